"""Models behind an OpenAI-compatible server (vLLM, llama.cpp, LM Studio, Ollama's /v1,
`transformers serve`, OpenAI) as langchain chat models.

Requests go through the `openai` client, which retries 429/5xx and lost connections with
exponential backoff; what still fails becomes one typed error naming the server. `batch()` sends
its inputs concurrently (bounded), so a batching server sees them together.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.language_models.chat_models import LangSmithParams
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import get_config_list
from langchain_core.utils import secret_from_env
from pydantic import ConfigDict, Field, SecretStr, model_validator

from mindstream.lm.config import ServedConfig
from mindstream.lm.prompts import PREFILL_INSTRUCTION
from mindstream.lm.served.endpoint import Endpoint
from mindstream.lm.served.likelihood import Tokens
from mindstream.lm.served.scorer import probe
from mindstream.lm.standard import check_arguments, ls_params
from mindstream.lm.structured import structured_output

_ROLES = {"human": "user", "ai": "assistant", "system": "system"}
_GENERATION_OPTIONS = ("max_tokens", "temperature", "top_p", "seed")
STREAM_USAGE = {"include_usage": True}


class ServedChatModel(BaseChatModel):
    """A chat model on an OpenAI-compatible server.

    Built from an `endpoint`, or as `ChatOpenAI` is: `model=` with `base_url` and `api_key`
    (default: the environment's OPENAI_BASE_URL and OPENAI_API_KEY), and LangChain's standard
    parameters (`max_tokens`, `temperature`, `stop`, `timeout`, `max_retries`); an unknown
    argument is refused, naming it. Streams and async calls go to the server natively.

    A conversation ending with an assistant message is a prefill (the first words of the reply,
    which the local model continues). A server that tokenises chats and completes token ids
    (vLLM; found by the probe) continues it exactly as in-process: the model's own template is
    applied by the server and the prefill's tokens follow. Chat-only servers do not continue
    it, so there it becomes an instruction and is taken off the reply again.
    """

    model_config = ConfigDict(populate_by_name=True)

    endpoint: Endpoint = Field(default=None, validate_default=False)  # type: ignore[assignment]
    model_name: str | None = Field(None, alias="model")
    base_url: str | None = Field(default_factory=lambda: os.environ.get("OPENAI_BASE_URL"))
    api_key: SecretStr | None = Field(
        default_factory=lambda: secret_from_env("OPENAI_API_KEY", default=None)()
    )
    max_tokens: int | None = Field(None, ge=1)
    temperature: float | None = Field(None, ge=0.0)
    stop: list[str] | None = None
    timeout: float | None = Field(None, gt=0)
    max_retries: int | None = Field(None, ge=0)
    streaming: bool = False

    def __init__(self, **kwargs: Any) -> None:
        check_arguments(type(self), kwargs)
        super().__init__(**kwargs)

    @model_validator(mode="after")
    def _reached(self) -> ServedChatModel:
        """The endpoint the arguments describe, when none was given."""
        if self.endpoint is None:
            if not self.model_name:
                raise ValueError("model: name the served model (model=...)")
            settings = {"timeout": self.timeout, "retries": self.max_retries}
            config = ServedConfig(**{k: v for k, v in settings.items() if v is not None})
            url = self.base_url or "https://api.openai.com/v1"
            self.endpoint = Endpoint(
                url=url, model=self.model_name, config=config, api_key=self.api_key
            )
        return self

    @property
    def _llm_type(self) -> str:
        return "mindstream-served"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"url": self.endpoint.url, "model_name": self.endpoint.model}

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
        options = self._options(kwargs)
        limits = (options.get("temperature"), options.get("max_tokens"), stop or self.stop)
        return ls_params("openai-compatible", self.endpoint.model, kwargs, *limits)

    def with_structured_output(
        self, schema: Any, *, include_raw: bool = False, **kwargs: Any
    ) -> Runnable[LanguageModelInput, Any]:
        """Replies parsed into `schema` by the retrying parser (`method` and `strict` are
        accepted; every OpenAI-compatible server can answer in JSON text)."""
        return structured_output(self, schema, include_raw=include_raw)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        body = self._body(stop, kwargs)
        if messages and messages[-1].type == "ai" and self._continues_prefills():
            return self._continued(messages, body)
        turns, prefill = as_turns(messages)
        response = self.endpoint.call(
            lambda client: client.chat.completions.create(messages=turns, **body),
            "a chat completion",
        )
        text = strip_prefill(response.choices[0].message.content or "", prefill)
        return _result(text, response)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """A chat completion awaited on the async client (a prefill goes the sync way)."""
        if messages and messages[-1].type == "ai":
            return await super()._agenerate(messages, stop, run_manager, **kwargs)
        body = self._body(stop, kwargs)
        turns, _ = as_turns(messages)
        response = await self.endpoint.acall(
            lambda client: client.chat.completions.create(messages=turns, **body),
            "a chat completion",
        )
        return _result(response.choices[0].message.content or "", response)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        """The server's tokens as they come (a prefilled reply comes whole)."""
        if messages and messages[-1].type == "ai":
            yield from super()._stream(messages, stop, run_manager, **kwargs)
            return
        body = {**self._body(stop, kwargs), "stream": True, "stream_options": STREAM_USAGE}
        turns, _ = as_turns(messages)
        chunks = self.endpoint.stream(
            lambda client: client.chat.completions.create(messages=turns, **body),
            "a streamed chat completion",
        )
        for chunk in chunks:
            piece = _chunk(chunk)
            if run_manager is not None and piece.text:
                run_manager.on_llm_new_token(piece.text, chunk=piece)
            yield piece

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        if messages and messages[-1].type == "ai":
            async for piece in super()._astream(messages, stop, run_manager, **kwargs):
                yield piece
            return
        body = {**self._body(stop, kwargs), "stream": True, "stream_options": STREAM_USAGE}
        turns, _ = as_turns(messages)
        chunks = await self.endpoint.acall(
            lambda client: client.chat.completions.create(messages=turns, **body),
            "a streamed chat completion",
        )
        async for chunk in chunks:
            piece = _chunk(chunk)
            if run_manager is not None and piece.text:
                await run_manager.on_llm_new_token(piece.text, chunk=piece)
            yield piece

    def _body(self, stop: list[str] | None, kwargs: dict[str, Any]) -> dict[str, Any]:
        body = {"model": kwargs.get("model") or self.endpoint.model, **self._options(kwargs)}
        if stop or self.stop:
            body["stop"] = stop or self.stop
        return body

    def _continues_prefills(self) -> bool:
        return probe(self.endpoint).likelihood

    def _continued(self, messages: list[BaseMessage], body: dict[str, Any]) -> ChatResult:
        """The reply after the prefill, from the templated chat's token ids."""
        turns = [{"role": _ROLES.get(m.type, "user"), "content": m.text} for m in messages]
        ids = Tokens(self.endpoint).chat(turns)
        response = self.endpoint.call(
            lambda client: client.completions.create(prompt=ids, **body),
            "a completion of a prefilled reply",
        )
        return _result((response.choices[0].text or "").strip(), response)

    def _options(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """Generation options: the call's, else the configuration's (`max_new_tokens` is the
        local model's name for `max_tokens`)."""
        config = self.endpoint.config
        options: dict[str, Any] = {
            "max_tokens": self.max_tokens or config.max_tokens,
            "temperature": config.temperature if self.temperature is None else self.temperature,
        }
        if "max_new_tokens" in kwargs:
            options["max_tokens"] = kwargs["max_new_tokens"]
        options.update({k: kwargs[k] for k in _GENERATION_OPTIONS if kwargs.get(k) is not None})
        return options

    def batch(
        self,
        inputs: list[LanguageModelInput],
        config: RunnableConfig | list[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        """Every input as its own request, up to `max_concurrency` in flight at once."""
        limit = self.endpoint.config.max_concurrency
        configs = [
            {**c, "max_concurrency": c.get("max_concurrency") or limit}
            for c in get_config_list(config, len(inputs))
        ]
        return super().batch(
            inputs,
            configs,  # type: ignore[arg-type]
            return_exceptions=return_exceptions,
            **kwargs,
        )


def _result(text: str, response: Any) -> ChatResult:
    metadata = {
        "model_name": getattr(response, "model", None),
        "model_provider": "openai-compatible",
        "finish_reason": getattr(response.choices[0], "finish_reason", None),
    }
    usage = _usage(getattr(response, "usage", None))
    message = AIMessage(content=text, usage_metadata=usage, response_metadata=metadata)
    return ChatResult(generations=[ChatGeneration(message=message)])


def _usage(usage: Any) -> UsageMetadata:
    prompt = getattr(usage, "prompt_tokens", 0) or 0
    completion = getattr(usage, "completion_tokens", 0) or 0
    return UsageMetadata(
        input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion
    )


def _chunk(chunk: Any) -> ChatGenerationChunk:
    """One streamed chunk: its text; the model's name and why it ended; usage on the last."""
    choice = chunk.choices[0] if chunk.choices else None
    text = (choice.delta.content or "") if choice is not None else ""
    metadata: dict[str, Any] = {"model_name": chunk.model, "model_provider": "openai-compatible"}
    if choice is not None and choice.finish_reason:
        metadata["finish_reason"] = choice.finish_reason
    usage = _usage(chunk.usage) if getattr(chunk, "usage", None) else None
    message = AIMessageChunk(content=text, usage_metadata=usage, response_metadata=metadata)
    return ChatGenerationChunk(message=message)


def as_turns(messages: list[BaseMessage]) -> tuple[list[dict[str, str]], str]:
    """OpenAI chat turns, and the prefill (the text of a final assistant message, else "")."""
    turns = [{"role": _ROLES.get(m.type, "user"), "content": m.text} for m in messages]
    if len(turns) < 2 or turns[-1]["role"] != "assistant" or turns[-2]["role"] != "user":
        return turns, ""
    prefill = turns.pop()["content"]
    request = turns[-1]["content"]
    turns[-1] = {
        "role": "user",
        "content": PREFILL_INSTRUCTION.format(request=request, prefill=prefill),
    }
    return turns, prefill


def strip_prefill(reply: str, prefill: str) -> str:
    """The reply after the prefill: a served model usually repeats the prefill (or its last
    lines) before continuing, which the caller must not see twice."""
    text = reply.strip()
    if not prefill.strip():
        return text
    lines = prefill.strip().splitlines()
    for start in range(len(lines)):
        head = "\n".join(lines[start:]).strip()
        if head and text.startswith(head):
            return text[len(head) :].strip()
    return text
