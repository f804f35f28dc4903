"""The `Scorer` of a served model, and the probe that picks its path once per endpoint."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from pydantic import BaseModel, ConfigDict

from mindstream.lm.accounting import CallLedger
from mindstream.lm.config import ScorerPath
from mindstream.lm.errors import ServedModelError, ServerUnreachableError
from mindstream.lm.scoring.scorer import scale_labels
from mindstream.lm.served.decisions import (
    Answered,
    DecisionPath,
    GeneratedPath,
    LogprobPath,
    SystemOnePath,
)
from mindstream.lm.served.endpoint import Endpoint
from mindstream.lm.served.likelihood import ServedLikelihoodScorer

T = TypeVar("T")
LOG_FLOOR = math.log(1e-9)  # the score of an option the server gave no probability
PATHS: dict[str, type[SystemOnePath] | type[LogprobPath] | type[GeneratedPath]] = {
    "systemone": SystemOnePath,
    "logprobs": LogprobPath,
    "generate": GeneratedPath,
}


class ServedScorer:
    """Ratings, yes/no and choices asked of a server, each prompt its own request, up to the
    endpoint's `max_concurrency` in flight. Requests are counted per component in a ledger."""

    def __init__(
        self, path: DecisionPath, *, ledger: CallLedger | None = None, component: str = "decision"
    ) -> None:
        self.path = path
        self.ledger = ledger
        self.component = component

    @property
    def concurrency(self) -> int:
        return self.path.endpoint.config.max_concurrency

    def for_component(self, component: str, ledger: CallLedger | None = None) -> ServedScorer:
        """A view whose requests are counted under `component` (in `ledger`, if given)."""
        return ServedScorer(self.path, ledger=ledger or self.ledger, component=component)

    def choose_batch(self, requests: Sequence[tuple[str, Sequence[str]]]) -> list[list[float]]:
        answers = self._each(lambda r: self.path.choice(r[0], list(r[1])), list(requests))
        return [[max(math.log(p), LOG_FLOOR) if p > 0 else LOG_FLOOR for p in a] for a in answers]

    def rate_batch(self, prompts: Sequence[str], low: int = 1, high: int = 10) -> list[float]:
        levels = scale_labels(low, high)
        answers = self._each(lambda p: self.path.score(p, levels), list(prompts))
        return [low + sum(i * p for i, p in enumerate(a)) / (sum(a) or 1.0) for a in answers]

    def p_yes_batch(self, prompts: Sequence[str]) -> list[float]:
        return [a[0] for a in self._each(self.path.noul, list(prompts))]

    def _each(self, ask: Callable[[T], Answered], items: list[T]) -> list[list[float]]:
        if not items:
            return []
        start = time.perf_counter()
        workers = min(self.concurrency, len(items))
        if workers == 1:
            answers = [ask(item) for item in items]
        else:
            with ThreadPoolExecutor(workers, thread_name_prefix="mindstream-decide") as pool:
                answers = list(pool.map(ask, items))
        if self.ledger is not None:
            self.ledger.record(
                self.component,
                calls=len(items),
                prompt_tokens=sum(a.prompt_tokens for a in answers),
                seconds=time.perf_counter() - start,
            )
        return [a.probabilities for a in answers]


class ProbeReport(BaseModel):
    """What an endpoint offers, and the decision path chosen from it."""

    model_config = ConfigDict(frozen=True)

    url: str
    model: str
    chat: bool
    likelihood: bool = False  # /tokenize and /v1/completions echoing prompt log-probabilities
    systemone: bool
    logprobs: bool
    path: str
    seconds: float


_probed: dict[Endpoint, ProbeReport] = {}
_probe_lock = threading.Lock()


def probe(endpoint: Endpoint, *, fresh: bool = False) -> ProbeReport:
    """Ask the endpoint once (per process) what it offers: prompt log-probabilities, a chat
    completion with log-probabilities, then a typed decision. Unreachable or refusing servers
    raise. Exact likelihoods are preferred: they answer as the local scorer does."""
    with _probe_lock:
        if endpoint in _probed and not fresh:
            return _probed[endpoint]
        start = time.perf_counter()
        logprobs = _offers_logprobs(endpoint)
        likelihood = _offers_likelihood(endpoint)
        systemone = _offers_systemone(endpoint)
        path = (
            "likelihood"
            if likelihood
            else "systemone"
            if systemone
            else "logprobs"
            if logprobs
            else "generate"
        )
        report = ProbeReport(
            url=endpoint.url,
            model=endpoint.model,
            chat=True,
            likelihood=likelihood,
            systemone=systemone,
            logprobs=logprobs,
            path=path,
            seconds=round(time.perf_counter() - start, 3),
        )
        _probed[endpoint] = report
        return report


def _offers_logprobs(endpoint: Endpoint) -> bool:
    response = endpoint.call(
        lambda client: client.chat.completions.create(
            model=endpoint.model,
            messages=[{"role": "user", "content": "Answer Yes or No only. Is snow white?"}],
            max_tokens=1,
            temperature=0.0,
            logprobs=True,
            top_logprobs=5,
        ),
        "a chat completion",
    )
    content = getattr(response.choices[0].logprobs, "content", None) or []
    return bool(content and content[0].top_logprobs)


def _offers_likelihood(endpoint: Endpoint) -> bool:
    try:
        ServedLikelihoodScorer(endpoint).loglik("Snow is", [" white"])
    except ServerUnreachableError:
        raise
    except (ServedModelError, KeyError, TypeError, ValueError):
        return False
    return True


def _offers_systemone(endpoint: Endpoint) -> bool:
    try:
        SystemOnePath(endpoint).noul("Is snow white?")
    except ServerUnreachableError:
        raise
    except (ServedModelError, KeyError, TypeError):
        return False
    return True


def served_scorer(
    endpoint: Endpoint, path: ScorerPath = "auto", ledger: CallLedger | None = None
) -> ServedScorer | ServedLikelihoodScorer:
    """The endpoint's scorer: `auto` probes it; a named path is used as told."""
    if path == "local":
        raise ServedModelError(
            f"scorer 'local' needs a model run in-process, not the server at {endpoint.url}"
        )
    chosen = probe(endpoint).path if path == "auto" else path
    if chosen == "likelihood":
        return ServedLikelihoodScorer(endpoint, ledger=ledger)
    return ServedScorer(PATHS[chosen](endpoint), ledger=ledger)
