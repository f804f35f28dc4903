"""The `Scorer` protocol: small models choose better than they write.

Every closed-set decision in the framework (a rating, a yes/no, one of several options) goes
through these methods, so a backend with log-probabilities ranks candidates exactly and a
served model answers the same questions through whatever its endpoint offers (`lm.served`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from mindstream.lm.errors import ScoringInputError

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
    """Closed-set decisions: every backend has one (local likelihoods, a server's typed
    decisions, first-token log-probabilities, or parsed replies)."""

    def choose_batch(self, requests: Sequence[tuple[str, Sequence[str]]]) -> list[list[float]]:
        """A score per option of each (prompt, options) request; higher is better.

        Scores of one scorer compare across requests (a local model gives the options' mean
        token log-likelihoods, a server the log-probability of picking each option).
        """
        ...

    def rate_batch(self, prompts: Sequence[str], low: int = 1, high: int = 10) -> list[float]:
        """Expected rating on the integer scale low..high for each prompt."""
        ...

    def p_yes_batch(self, prompts: Sequence[str]) -> list[float]:
        """P(yes) / (P(yes) + P(no)) for each prompt."""
        ...


@runtime_checkable
class LikelihoodScorer(Scorer, Protocol):
    """A scorer that also gives exact continuation log-likelihoods (a model run in-process)."""

    def loglik(self, prompt: str, continuations: Sequence[str]) -> list[LogLikelihood]:
        """Log-likelihood of each continuation after the prompt, scored as one batch."""
        ...

    def loglik_batch(self, pairs: Sequence[tuple[str, str]]) -> list[LogLikelihood]:
        """Log-likelihood of each (prompt, continuation) pair, all in one batch."""
        ...


def mean_loglik_choices(
    scorer: LikelihoodScorer, requests: Sequence[tuple[str, Sequence[str]]]
) -> list[list[float]]:
    """`choose_batch` of a likelihood scorer: each option's mean token log-likelihood, so long
    options are not penalised for their length."""
    pairs = [(prompt, option) for prompt, options in requests for option in options]
    scored = iter(scorer.loglik_batch(pairs) if pairs else [])
    return [[next(scored).mean for _ in options] for _, options in requests]


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


def label_log_scores(
    label_ids: Sequence[tuple[int, ...]], logp: Callable[[tuple[int, ...], int], float]
) -> list[float]:
    """log P(label) for token-id labels, from `logp(prefix, token)` = log P(token | prompt +
    prefix). A label that is a prefix of longer ones ("1" of "10") keeps only the mass that
    stops there: 1 - P(continuing into the longer labels)."""
    scores = []
    for ids in label_ids:
        total = sum(logp(ids[:d], ids[d]) for d in range(len(ids)))
        children = {o[len(ids)] for o in label_ids if len(o) > len(ids) and o[: len(ids)] == ids}
        if children:
            p_continue = sum(math.exp(logp(ids, c)) for c in children)
            total += math.log(max(1.0 - p_continue, 1e-12))
        scores.append(total)
    return scores


def normalise(logprobs: Sequence[float]) -> list[float]:
    """Probabilities over a closed set from their log-scores."""
    top = max(logprobs)
    weights = [math.exp(lp - top) for lp in logprobs]
    total = sum(weights)
    return [w / total for w in weights]


def yes_share(probabilities: Sequence[float]) -> float:
    """Collapse the probabilities of YES_LABELS + NO_LABELS (in that order) to P(yes)."""
    yes = sum(probabilities[: len(YES_LABELS)])
    no = sum(probabilities[len(YES_LABELS) :])
    return yes / (yes + no) if yes + no > 0 else 0.5


class Choice(BaseModel):
    """The option a scorer picked, with the scorer's score of every option."""

    model_config = ConfigDict(frozen=True)

    index: int
    option: str
    scores: list[float]


def choose(scorer: Scorer, prompt: str, options: Sequence[str]) -> Choice:
    """Pick the option the scorer rates best after the prompt: the one helper every
    closed-set decision goes through."""
    if not options:
        raise ScoringInputError("choose() needs at least one option")
    return choose_many(scorer, [(prompt, options)])[0]


def choose_many(
    scorer: Scorer, requests: Sequence[tuple[str, Sequence[str]]], baseline: str | None = None
) -> list[Choice]:
    """`choose` for many (prompt, options) requests in one scoring batch.

    With `baseline` (a neutral prompt) and a likelihood scorer, an option scores
    log P(option | prompt) minus log P(option | baseline): the options' own prior (a long or
    frequent name) cancels out, which a small model otherwise lets decide (domain-conditional
    PMI, Holtzman et al. 2021). A served scorer picks among labelled options instead, where the
    prior does not arise, so it ignores `baseline`.
    """
    if any(not options for _, options in requests):
        raise ScoringInputError("choose_many() needs at least one option per request")
    if baseline is not None and isinstance(scorer, LikelihoodScorer):
        rows = _pmi_scores(scorer, requests, baseline)
    else:
        rows = scorer.choose_batch(requests) if requests else []
    choices = []
    for (_, options), scores in zip(requests, rows, strict=True):
        best = max(range(len(options)), key=scores.__getitem__)
        choices.append(Choice(index=best, option=options[best], scores=list(scores)))
    return choices


def _pmi_scores(
    scorer: LikelihoodScorer, requests: Sequence[tuple[str, Sequence[str]]], baseline: str
) -> list[list[float]]:
    pairs = [(prompt, option) for prompt, options in requests for option in options]
    distinct = list(dict.fromkeys(o for _, options in requests for o in options))
    scored = scorer.loglik_batch(pairs + [(baseline, option) for option in distinct])
    prior = {o: ll.total for o, ll in zip(distinct, scored[len(pairs) :], strict=True)}
    rows, at = [], 0
    for _, options in requests:
        chunk = scored[at : at + len(options)]
        rows.append([ll.total - prior[o] for o, ll in zip(options, chunk, strict=True)])
        at += len(options)
    return rows


class MemoScorer:
    """A `Scorer` that remembers the option scores it computed.

    Scoring is deterministic, so an experiment that asks the same questions again as a memory
    grows (a learning curve) pays only for the contexts that changed. Ratings and yes/no pass
    through unremembered. The memo is unbounded: use one per experiment.
    """

    def __init__(self, scorer: Scorer) -> None:
        self.scorer = scorer
        self.remembered: dict[tuple[str, tuple[str, ...]], list[float]] = {}
        self.reused = 0

    def choose_batch(self, requests: Sequence[tuple[str, Sequence[str]]]) -> list[list[float]]:
        keys = [(prompt, tuple(options)) for prompt, options in requests]
        missing = list(dict.fromkeys(k for k in keys if k not in self.remembered))
        if missing:
            self.remembered.update(zip(missing, self.scorer.choose_batch(missing), strict=True))
        self.reused += len(keys) - len(missing)
        return [list(self.remembered[k]) for k in keys]

    def rate_batch(self, prompts: Sequence[str], low: int = 1, high: int = 10) -> list[float]:
        return self.scorer.rate_batch(prompts, low, high)

    def p_yes_batch(self, prompts: Sequence[str]) -> list[float]:
        return self.scorer.p_yes_batch(prompts)
