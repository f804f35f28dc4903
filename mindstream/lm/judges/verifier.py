"""The entailment verifier: does a set of premises entail a hypothesis?

TeachMe checks every proof with a model trained to judge entailment. The embedded 135M model
has no such skill out of the box, so a LoRA adapter (trained by `mindstream train verifier`
on OpenBookQA train and EntailmentBank train, shipped in `mindstream/lm/adapters/verifier`)
gives it one.
The judgement is read as every yes/no adapter's is (`lm.yes_no`). A served model has no
adapter; it answers the same question through its scorer's `p_yes_batch`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from langchain_core.prompts import PromptTemplate

from mindstream.lm.config import VERIFIER_ADAPTER_DIR
from mindstream.lm.judges.yes_no import YesNo, load_yes_no_adapter

if TYPE_CHECKING:
    from mindstream.lm.scoring.scorer import Scorer

ADAPTER_DIR = VERIFIER_ADAPTER_DIR
NO_PREMISES = "(none)"

# One template for training and inference; a premise-free request asks about the claim alone.
VERIFY = PromptTemplate.from_template(
    "Facts: {premises}\nClaim: {hypothesis}\nDo the facts show that the claim is true? Answer:"
)
FEW_SHOT = PromptTemplate.from_template(
    "Answer each question with Yes or No.\n\n"
    "Facts: Snow is cold. Ice is frozen water.\nClaim: Ice is cold.\n"
    "Do the facts show that the claim is true? Answer: Yes\n\n"
    "Facts: Dogs are animals.\nClaim: Dogs can fly.\n"
    "Do the facts show that the claim is true? Answer: No\n\n"
    "{request}"
)


def verify_prompt(premises: Sequence[str], hypothesis: str) -> str:
    joined = " ".join(p.strip().rstrip(".") + "." for p in premises if p.strip())
    claim = hypothesis.strip().rstrip(".") + "."
    return VERIFY.format(premises=joined or NO_PREMISES, hypothesis=claim)


@runtime_checkable
class Verifier(Protocol):
    """Judges proofs: P(premises entail hypothesis) for each request."""

    def entailment_batch(self, requests: Sequence[tuple[Sequence[str], str]]) -> list[float]: ...


class MemoVerifier:
    """A verifier that judges each (premises, hypothesis) once: a frozen model's judgement
    never changes, and experiments ask the same ones many times."""

    def __init__(self, verifier: Verifier) -> None:
        self.verifier = verifier
        self.memo: dict[tuple[tuple[str, ...], str], float] = {}

    def entailment_batch(self, requests: Sequence[tuple[Sequence[str], str]]) -> list[float]:
        keys = [(tuple(p), h) for p, h in requests]
        new = list(dict.fromkeys(k for k in keys if k not in self.memo))
        self.memo.update(zip(new, self.verifier.entailment_batch(new), strict=True))
        return [self.memo[k] for k in keys]


class ScorerVerifier:
    """Any scorer as a verifier (a served model): its P(yes) on a few-shot prompt."""

    def __init__(self, scorer: Scorer) -> None:
        self.scorer = scorer

    def entailment_batch(self, requests: Sequence[tuple[Sequence[str], str]]) -> list[float]:
        prompts = [FEW_SHOT.format(request=verify_prompt(p, h)) for p, h in requests]
        return self.scorer.p_yes_batch(prompts) if prompts else []


class AdapterVerifier:
    """The embedded model with the verifier adapter merged in (or that adapter served)."""

    def __init__(self, adapter: YesNo) -> None:
        self.adapter = adapter

    @property
    def load_seconds(self) -> float:
        return self.adapter.load_seconds

    @property
    def precision(self) -> str:
        return self.adapter.precision

    def entailment_batch(self, requests: Sequence[tuple[Sequence[str], str]]) -> list[float]:
        return self.adapter.p_yes([verify_prompt(p, h) for p, h in requests])


def load_adapter_verifier(
    base: Path, adapter: Path = ADAPTER_DIR, threads: int | None = None
) -> AdapterVerifier:
    """The base model in `base` with `adapter` merged; loaded once per process."""
    probe = verify_prompt(["a fact of about the usual length for a proof"], "a claim to check")
    return AdapterVerifier(
        load_yes_no_adapter(base, adapter, probe, threads, trainer="mindstream train verifier")
    )
