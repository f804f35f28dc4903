"""One model on one OpenAI-compatible server, and how it is reached: the shared `openai`
client, at most `max_concurrency` requests in flight per server in this process, and the
client's errors as this layer's typed errors naming the server."""

from __future__ import annotations

import os
import threading
from collections.abc import Awaitable, Callable, Iterator
from functools import lru_cache
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, SecretStr

from mindstream.lm.accounting import MODEL_BUSY
from mindstream.lm.config import ServedConfig
from mindstream.lm.errors import ServerBusyError, ServerRejectedError, ServerUnreachableError

T = TypeVar("T")


class Endpoint(BaseModel):
    """One model on one server, and how it is reached."""

    model_config = ConfigDict(frozen=True)

    url: str
    model: str
    config: ServedConfig = ServedConfig()
    api_key: SecretStr | None = None  # else read from `config.api_key_env` when needed

    def _key(self) -> str:
        if self.api_key is not None:
            return self.api_key.get_secret_value()
        return os.environ.get(self.config.api_key_env) or "not-needed"

    def client(self) -> Any:
        """The shared `openai` client of this endpoint (one connection pool per process)."""
        return _client(self.url, self._key(), self.config.timeout, self.config.retries)

    def async_client(self) -> Any:
        """The `openai` async client (one per event loop: made per call, cheap)."""
        from openai import AsyncOpenAI

        return AsyncOpenAI(
            base_url=self.url,
            api_key=self._key(),
            timeout=self.config.timeout,
            max_retries=self.config.retries,
        )

    def stream(self, action: Callable[[Any], Any], what: str) -> Iterator[Any]:
        """`call` for a streamed answer: the server's chunks, the in-flight slot held (and
        errors translated) while they arrive."""
        import openai

        try:
            with _gate(self.url, self.config.max_concurrency), MODEL_BUSY.busy():
                yield from action(self.client())
        except openai.OpenAIError as error:
            raise self._translated(error, what) from None

    async def acall(self, action: Callable[[Any], Awaitable[T]], what: str) -> T:
        """`call` for async callers (no thread held while the server thinks)."""
        import openai

        try:
            return await action(self.async_client())
        except openai.OpenAIError as error:
            raise self._translated(error, what) from None

    def _translated(self, error: Exception, what: str) -> Exception:
        import openai

        if isinstance(error, openai.APIStatusError):
            if error.status_code == 429 or error.status_code >= 500:
                return ServerBusyError(
                    f"the model server at {self.url} answered HTTP {error.status_code} to "
                    f"{what}: {_detail(error)}"
                )
            return ServerRejectedError(
                f"the model server at {self.url} refused {what} for model {self.model!r}: "
                f"HTTP {error.status_code}: {_detail(error)}"
            )
        if isinstance(error, openai.APITimeoutError):
            return ServerUnreachableError(self._too_slow(what))
        cause = error.__cause__ or error
        return ServerUnreachableError(
            f"cannot reach the model server at {self.url} ({_reason(cause)}); is it running?"
        )

    def _too_slow(self, what: str) -> str:
        """A server that is up but queued (a 25-agent day's first tick on a 2-core vLLM) times
        out like one that is gone: say which, and what to raise."""
        return (
            f"the model server at {self.url} did not answer {what} within "
            f"{self.config.timeout:g} s ({self.config.retries} retries): if it is running, it "
            "is busy; raise model.served.timeout (MINDSTREAM_MODEL__SERVED__TIMEOUT) or lower "
            "--max-concurrency (a stopped town goes on with `sim run --resume`)"
        )

    def call(self, action: Callable[[Any], T], what: str) -> T:
        """Run one request; the `openai` client's errors become this layer's typed errors.

        At most `max_concurrency` requests to this server are in flight in this process,
        however many callers (agents, batches) send at once."""
        import openai

        try:
            with _gate(self.url, self.config.max_concurrency), MODEL_BUSY.busy():
                return action(self.client())
        except openai.APITimeoutError:
            raise ServerUnreachableError(self._too_slow(what)) from None
        except openai.APIConnectionError as error:
            cause = error.__cause__ or error
            raise ServerUnreachableError(
                f"cannot reach the model server at {self.url} ({_reason(cause)}; "
                f"timeout {self.config.timeout:g} s, {self.config.retries} retries); is it "
                "running? `mindstream model serve` starts one"
            ) from None
        except openai.APIStatusError as error:
            detail = _detail(error)
            if error.status_code == 429 or error.status_code >= 500:
                raise ServerBusyError(
                    f"the model server at {self.url} answered HTTP {error.status_code} to "
                    f"{what} {self.config.retries + 1} times (retried with backoff): {detail}"
                ) from None
            raise ServerRejectedError(
                f"the model server at {self.url} refused {what} for model {self.model!r}: "
                f"HTTP {error.status_code}: {detail}"
            ) from None


@lru_cache(maxsize=16)
def _client(url: str, api_key: str, timeout: float, retries: int) -> Any:
    from openai import OpenAI

    return OpenAI(base_url=url, api_key=api_key, timeout=timeout, max_retries=retries)


@lru_cache(maxsize=16)
def _gate(url: str, limit: int) -> threading.BoundedSemaphore:
    return threading.BoundedSemaphore(limit)


def _reason(error: BaseException) -> str:
    text = str(error) or type(error).__name__
    return text.splitlines()[0][:160]


def _detail(error: Any) -> str:
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") or inner.get("detail") if isinstance(inner, dict) else inner
        if message:
            return str(message)[:300]
    return str(error.message)[:300]
