"""Model layer: chat models behind langchain-core, scoring, embeddings, structured output.

Importing `lm` does not import torch; the transformers backends load on first use."""

from typing import TYPE_CHECKING

from lm.lazy import attach

if TYPE_CHECKING:
    from lm.accounting import MODEL_BUSY, BusyClock, CallLedger, ComponentUsage
    from lm.config import (
        DEFAULT_LOCAL_MODEL,
        DEFAULT_MODEL_SPEC,
        LocalModelConfig,
        ModelConfig,
        ServedConfig,
    )
    from lm.errors import (
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
    from lm.importance import rate_importance
    from lm.resolve import resolve_model, resolve_scorer
    from lm.scoring import (
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
    from lm.structured import ParseError, complete_batch, generate_structured, parse_json_object
    from lm.truth import belief

__getattr__, __dir__ = attach(
    __name__,
    {
        "lm.accounting": (
            "MODEL_BUSY",
            "BusyClock",
            "CallLedger",
            "ComponentUsage",
        ),
        "lm.config": (
            "DEFAULT_LOCAL_MODEL",
            "DEFAULT_MODEL_SPEC",
            "LocalModelConfig",
            "ModelConfig",
            "ServedConfig",
        ),
        "lm.errors": (
            "DecisionParseError",
            "LMError",
            "MissingExtraError",
            "ModelPackageMissingError",
            "RealModelForbiddenError",
            "PortInUseError",
            "ScoringInputError",
            "ServedModelError",
            "ServerBusyError",
            "ServerRejectedError",
            "ServerUnreachableError",
            "StructuredOutputError",
            "UnknownModelSpecError",
        ),
        "lm.importance": ("rate_importance",),
        "lm.resolve": (
            "resolve_model",
            "resolve_scorer",
        ),
        "lm.scoring": (
            "Choice",
            "LikelihoodScorer",
            "LogLikelihood",
            "MemoScorer",
            "Scorer",
            "choose",
            "choose_many",
            "p_yes",
            "rate",
        ),
        "lm.structured": (
            "ParseError",
            "complete_batch",
            "generate_structured",
            "parse_json_object",
        ),
        "lm.truth": ("belief",),
    },
)

__all__ = [
    "DEFAULT_LOCAL_MODEL",
    "DEFAULT_MODEL_SPEC",
    "MODEL_BUSY",
    "BusyClock",
    "CallLedger",
    "Choice",
    "ComponentUsage",
    "DecisionParseError",
    "LMError",
    "LikelihoodScorer",
    "LocalModelConfig",
    "LogLikelihood",
    "MemoScorer",
    "MissingExtraError",
    "ModelConfig",
    "ModelPackageMissingError",
    "ParseError",
    "PortInUseError",
    "RealModelForbiddenError",
    "Scorer",
    "ScoringInputError",
    "ServedConfig",
    "ServedModelError",
    "ServerBusyError",
    "ServerRejectedError",
    "ServerUnreachableError",
    "StructuredOutputError",
    "UnknownModelSpecError",
    "belief",
    "choose",
    "choose_many",
    "complete_batch",
    "generate_structured",
    "p_yes",
    "parse_json_object",
    "rate",
    "rate_importance",
    "resolve_model",
    "resolve_scorer",
]
