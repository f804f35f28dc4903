"""Models behind an OpenAI-compatible server (vLLM, llama.cpp, LM Studio, Ollama's /v1,
`transformers serve`, OpenAI) as langchain chat models.

Requests go through the `openai` client, which retries 429/5xx and lost connections with
exponential backoff; what still fails becomes one typed error naming the server. `batch()` sends
its inputs concurrently (bounded), so a batching server sees them together.
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import get_config_list

from mindstream.lm.endpoint import Endpoint
from mindstream.lm.prompts import PREFILL_INSTRUCTION
from mindstream.lm.served_likelihood import Tokens
from mindstream.lm.served_scorer import probe

_ROLES = {"human": "user", "ai": "assistant", "system": "system"}
_GENERATION_OPTIONS = ("max_tokens", "temperature", "top_p", "seed")


class ServedChatModel(BaseChatModel):
    """A chat model on an OpenAI-compatible server.

    A conversation ending with an assistant message is a prefill (the first words of the reply,
    which the local model continues). A server that tokenises chats and completes token ids
    (vLLM; found by the probe) continues it exactly as in-process: the model's own template is
    applied by the server and the prefill's tokens follow. Chat-only servers do not continue
    it, so there it becomes an instruction and is taken off the reply again.
    """

    endpoint: Endpoint

    @property
    def _llm_type(self) -> str:
        return "mindstream-served"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"url": self.endpoint.url, "model": self.endpoint.model}

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        body = self._options(kwargs)
        if stop:
            body["stop"] = stop
        if messages and messages[-1].type == "ai" and self._continues_prefills():
            return self._continued(messages, body)
        turns, prefill = as_turns(messages)
        response = self.endpoint.call(
            lambda client: client.chat.completions.create(
                model=self.endpoint.model, messages=turns, **body
            ),
            "a chat completion",
        )
        text = strip_prefill(response.choices[0].message.content or "", prefill)
        return _result(text, response.usage)

    def _continues_prefills(self) -> bool:
        return probe(self.endpoint).likelihood

    def _continued(self, messages: list[BaseMessage], body: dict[str, Any]) -> ChatResult:
        """The reply after the prefill, from the templated chat's token ids."""
        turns = [{"role": _ROLES.get(m.type, "user"), "content": m.text} for m in messages]
        ids = Tokens(self.endpoint).chat(turns)
        response = self.endpoint.call(
            lambda client: client.completions.create(model=self.endpoint.model, prompt=ids, **body),
            "a completion of a prefilled reply",
        )
        return _result((response.choices[0].text or "").strip(), response.usage)

    def _options(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """Generation options: the call's, else the configuration's (`max_new_tokens` is the
        local model's name for `max_tokens`)."""
        config = self.endpoint.config
        options: dict[str, Any] = {
            "max_tokens": config.max_tokens,
            "temperature": config.temperature,
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


def _result(text: str, usage: Any) -> ChatResult:
    tokens = {
        "input_tokens": getattr(usage, "prompt_tokens", 0) or 0,
        "output_tokens": getattr(usage, "completion_tokens", 0) or 0,
    }
    tokens["total_tokens"] = tokens["input_tokens"] + tokens["output_tokens"]
    message = AIMessage(content=text, usage_metadata=tokens)
    return ChatResult(generations=[ChatGeneration(message=message)])


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
