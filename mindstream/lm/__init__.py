"""Model layer: chat models behind langchain-core, scoring, embeddings, structured output.

Importing `lm` does not import torch; the transformers backends load on first use."""

from typing import TYPE_CHECKING

from mindstream.lm.lazy import attach_declared

if TYPE_CHECKING:
    from mindstream.lm.accounting import MODEL_BUSY, BusyClock, CallLedger, ComponentUsage
    from mindstream.lm.config import (
        DEFAULT_LOCAL_MODEL,
        DEFAULT_MODEL_SPEC,
        LocalModelConfig,
        ModelConfig,
        ServedConfig,
    )
    from mindstream.lm.errors import (
        DecisionParseError,
        LMError,
        MissingExtraError,
        ModelPackageMissingError,
        PortInUseError,
        RealModelForbiddenError,
        ScoringInputError,
        ServedModelError,
        ServerBusyError,
        ServerRejectedError,
        ServerUnreachableError,
        StructuredOutputError,
        UnknownModelSpecError,
    )
    from mindstream.lm.resolve import resolve_model, resolve_scorer
    from mindstream.lm.scoring.importance import rate_importance
    from mindstream.lm.scoring.scorer import (
        Choice,
        LikelihoodScorer,
        LogLikelihood,
        MemoScorer,
        Scorer,
        choose,
        choose_many,
        p_yes,
        rate,
    )
    from mindstream.lm.scoring.truth import belief
    from mindstream.lm.structured import (
        ParseError,
        complete_batch,
        generate_structured,
        parse_json_object,
    )

__getattr__, __dir__, __all__ = attach_declared(__name__, __file__)
