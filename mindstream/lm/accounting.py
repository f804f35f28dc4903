"""Per-component accounting of model calls: calls, tokens and seconds, printable as a table."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult
from pydantic import BaseModel

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

T = TypeVar("T")
ChatT = TypeVar("ChatT", bound="BaseChatModel")


class ComponentUsage(BaseModel):
    """Totals for one component label (e.g. "importance", "plan", "dialogue")."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0


class CallLedger:
    """Counts model calls per component label.

    The local model records into it directly; any other langchain chat model is counted by
    passing `ledger.callback()` in the run config (the component comes from
    `config["metadata"]["component"]`).
    """

    def __init__(self) -> None:
        self._usage: dict[str, ComponentUsage] = {}
        self._lock = threading.Lock()

    def record(
        self,
        component: str,
        *,
        calls: int = 1,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
        seconds: float = 0.0,
    ) -> None:
        with self._lock:
            usage = self._usage.setdefault(component, ComponentUsage())
            usage.calls += calls
            usage.prompt_tokens += prompt_tokens
            usage.completion_tokens += completion_tokens
            usage.seconds += seconds

    @contextmanager
    def timed(self, component: str, *, calls: int = 1) -> Iterator[dict[str, int]]:
        """Time a block; the block fills in `prompt_tokens` / `completion_tokens`."""
        tokens = {"prompt_tokens": 0, "completion_tokens": 0}
        start = time.perf_counter()
        try:
            yield tokens
        finally:
            self.record(component, calls=calls, seconds=time.perf_counter() - start, **tokens)

    def usage(self) -> dict[str, ComponentUsage]:
        with self._lock:
            return {name: usage.model_copy() for name, usage in sorted(self._usage.items())}

    def total(self) -> ComponentUsage:
        total = ComponentUsage()
        for usage in self.usage().values():
            total.calls += usage.calls
            total.prompt_tokens += usage.prompt_tokens
            total.completion_tokens += usage.completion_tokens
            total.seconds += usage.seconds
        return total

    def as_dict(self) -> dict[str, dict[str, float]]:
        return {name: usage.model_dump() for name, usage in self.usage().items()}

    def table(self, title: str = "model calls") -> Any:
        """A rich Table of the usage, one row per component plus a total."""
        from rich.table import Table

        table = Table(title=title)
        for column in ("component", "calls", "prompt tokens", "completion tokens", "seconds"):
            table.add_column(column, justify="left" if column == "component" else "right")
        rows = [*self.usage().items(), ("total", self.total())]
        for name, usage in rows:
            table.add_row(
                name,
                str(usage.calls),
                str(usage.prompt_tokens),
                str(usage.completion_tokens),
                f"{usage.seconds:.2f}",
            )
        return table

    def callback(self) -> BaseCallbackHandler:
        return _LedgerCallback(self)


class BusyClock:
    """Wall time during which at least one model request is in flight (the union of their
    intervals, not their sum): what is left of a run's wall time is the framework's own."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._in_flight = 0
        self._since = 0.0
        self._seconds = 0.0

    @contextmanager
    def busy(self) -> Iterator[None]:
        self.enter()
        try:
            yield
        finally:
            self.leave()

    def enter(self) -> None:
        with self._lock:
            if self._in_flight == 0:
                self._since = time.perf_counter()
            self._in_flight += 1

    def leave(self) -> None:
        with self._lock:
            if self._in_flight == 0:  # an end without a start (a callback's error path)
                return
            self._in_flight -= 1
            if self._in_flight == 0:
                self._seconds += time.perf_counter() - self._since

    def seconds(self) -> float:
        """Busy seconds so far, the current stretch included."""
        with self._lock:
            running = time.perf_counter() - self._since if self._in_flight else 0.0
            return self._seconds + running


MODEL_BUSY = BusyClock()  # every served request of this process (`lm.endpoint.Endpoint.call`)


class _LedgerCallback(BaseCallbackHandler):
    """Records chat-model runs of any langchain model into a ledger."""

    def __init__(self, ledger: CallLedger) -> None:
        self._ledger = ledger
        self._started: dict[UUID, tuple[str, float, int]] = {}

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[Any]],
        *,
        run_id: UUID,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        component = (metadata or {}).get("component", "chat")
        # Runs started together as one batch share its wall time.
        batch_size = max(int(kwargs.get("batch_size", 1) or 1), 1)
        self._started[run_id] = (str(component), time.perf_counter(), batch_size)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        component, start, batch_size = self._started.pop(run_id, ("chat", time.perf_counter(), 1))
        prompt_tokens = completion_tokens = 0
        for generations in response.generations:
            for generation in generations:
                usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
                if usage:
                    prompt_tokens += usage.get("input_tokens", 0)
                    completion_tokens += usage.get("output_tokens", 0)
        self._ledger.record(
            component,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            seconds=(time.perf_counter() - start) / batch_size,
        )


@runtime_checkable
class Countable(Protocol):
    """A model or scorer that records its own calls (the local model's scoring, a served
    scorer's requests): it gives a view that records them under a component."""

    def for_component(self, component: str, ledger: CallLedger | None = None) -> Any: ...


def counted(model: T, component: str, ledger: CallLedger) -> T:
    """The view of `model` whose own calls land in `ledger` under `component`; a model that
    records nothing itself is returned as it is (count it with `counted_chat`)."""
    if isinstance(model, Countable):
        return model.for_component(component, ledger)
    return model


def counted_chat(
    model: ChatT, component: str, ledger: CallLedger, *more: BaseCallbackHandler
) -> ChatT:
    """A chat model whose generations land in `ledger` under `component`, through callbacks
    (any langchain chat model): its other callbacks kept, a ledger's replaced (never counted
    twice), and `more` added."""
    kept = [c for c in model.callbacks or [] if not isinstance(c, _LedgerCallback)]  # type: ignore[union-attr]
    callbacks = [*kept, ledger.callback(), *more]
    metadata = {**(model.metadata or {}), "component": component}
    return model.model_copy(update={"callbacks": callbacks, "metadata": metadata})
