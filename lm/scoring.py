"""The `Scorer` protocol: small models choose better than they write.

Every closed-set decision in the framework (a rating, a yes/no, one of several options) goes
through these methods, so a backend with log-probabilities ranks candidates exactly and a
served model without them can fall back to generation behind the same protocol.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from lm.errors import ScoringInputError

YES_LABELS = ("Yes", "yes")
NO_LABELS = ("No", "no")


class LogLikelihood(BaseModel):
    """Log-likelihood of one continuation: its total, per-token mean and token count."""

    model_config = ConfigDict(frozen=True)

    total: float
    mean: float
    tokens: int


@runtime_checkable
class Scorer(Protocol):
    def loglik(self, prompt: str, continuations: Sequence[str]) -> list[LogLikelihood]:
        """Log-likelihood of each continuation after the prompt, scored as one batch."""
        ...

    def loglik_batch(self, pairs: Sequence[tuple[str, str]]) -> list[LogLikelihood]:
        """Log-likelihood of each (prompt, continuation) pair, all in one batch."""
        ...

    def rate_batch(self, prompts: Sequence[str], low: int = 1, high: int = 10) -> list[float]:
        """Expected rating on the integer scale low..high for each prompt."""
        ...

    def p_yes_batch(self, prompts: Sequence[str]) -> list[float]:
        """P(yes) / (P(yes) + P(no)) for each prompt."""
        ...


def rate(scorer: Scorer, prompt: str, low: int = 1, high: int = 10) -> float:
    return scorer.rate_batch([prompt], low, high)[0]


def p_yes(scorer: Scorer, prompt: str) -> float:
    return scorer.p_yes_batch([prompt])[0]


def scale_labels(low: int, high: int) -> list[str]:
    if low >= high:
        raise ScoringInputError(f"rating scale needs low < high, got {low}..{high}")
    return [str(value) for value in range(low, high + 1)]


def expected_value(probabilities: Sequence[float], low: int) -> float:
    return sum((low + i) * p for i, p in enumerate(probabilities))


def yes_share(probabilities: Sequence[float]) -> float:
    """Collapse the probabilities of YES_LABELS + NO_LABELS (in that order) to P(yes)."""
    yes = sum(probabilities[: len(YES_LABELS)])
    no = sum(probabilities[len(YES_LABELS) :])
    return yes / (yes + no) if yes + no > 0 else 0.5


class Choice(BaseModel):
    """The option a scorer picked, with the per-token mean log-likelihood of every option."""

    model_config = ConfigDict(frozen=True)

    index: int
    option: str
    scores: list[float]


def choose(scorer: Scorer, prompt: str, options: Sequence[str]) -> Choice:
    """Pick the option with the highest mean token log-likelihood after the prompt.

    The one helper every closed-set decision goes through; the mean (not the total) keeps
    long options from being penalised for their length.
    """
    if not options:
        raise ScoringInputError("choose() needs at least one option")
    return choose_many(scorer, [(prompt, options)])[0]


def choose_many(
    scorer: Scorer, requests: Sequence[tuple[str, Sequence[str]]], baseline: str | None = None
) -> list[Choice]:
    """`choose` for many (prompt, options) requests in one scoring batch.

    With `baseline` (a neutral prompt), an option scores log P(option | prompt) minus
    log P(option | baseline): the options' own prior (a long or frequent name) cancels out,
    which a small model otherwise lets decide (domain-conditional PMI, Holtzman et al. 2021).
    """
    if any(not options for _, options in requests):
        raise ScoringInputError("choose_many() needs at least one option per request")
    pairs = [(prompt, option) for prompt, options in requests for option in options]
    distinct = list(dict.fromkeys(o for _, options in requests for o in options))
    if baseline is not None:
        pairs += [(baseline, option) for option in distinct]
    scored = scorer.loglik_batch(pairs) if pairs else []
    prior = (
        {o: ll.total for o, ll in zip(distinct, scored[len(scored) - len(distinct) :], strict=True)}
        if baseline is not None
        else {}
    )
    choices, at = [], 0
    for _, options in requests:
        rows = scored[at : at + len(options)]
        at += len(options)
        scores = [
            ll.total - prior[o] if baseline is not None else ll.mean
            for o, ll in zip(options, rows, strict=True)
        ]
        best = max(range(len(options)), key=scores.__getitem__)
        choices.append(Choice(index=best, option=options[best], scores=scores))
    return choices


class MemoScorer:
    """A `Scorer` that remembers the log-likelihoods it computed.

    Scoring is deterministic, so an experiment that asks the same questions again as a memory
    grows (a learning curve) pays only for the contexts that changed. Ratings and yes/no pass
    through unremembered. The memo is unbounded: use one per experiment.
    """

    def __init__(self, scorer: Scorer) -> None:
        self.scorer = scorer
        self.remembered: dict[tuple[str, str], LogLikelihood] = {}
        self.reused = 0

    def loglik(self, prompt: str, continuations: Sequence[str]) -> list[LogLikelihood]:
        return self.loglik_batch([(prompt, c) for c in continuations])

    def loglik_batch(self, pairs: Sequence[tuple[str, str]]) -> list[LogLikelihood]:
        missing = list(dict.fromkeys(p for p in pairs if p not in self.remembered))
        if missing:
            self.remembered.update(zip(missing, self.scorer.loglik_batch(missing), strict=True))
        self.reused += len(pairs) - len(missing)
        return [self.remembered[p] for p in pairs]

    def rate_batch(self, prompts: Sequence[str], low: int = 1, high: int = 10) -> list[float]:
        return self.scorer.rate_batch(prompts, low, high)

    def p_yes_batch(self, prompts: Sequence[str]) -> list[float]:
        return self.scorer.p_yes_batch(prompts)
