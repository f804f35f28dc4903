"""How poignant a memory is, 1 to 10 (the paper's importance), through a yes/no question.

The embedded model's own 1-10 rating orders memories fairly well but is flat (4.1-5.2 over a
town's labelled memories), and a reflection waits on the sum of importance. On the embedded
model a trained adapter answers "is this an important event in someone's life?" (`mindstream
train judge poignant`); a served model without the adapter answers it few-shot. The town's
rating (`AnchoredImportance`) averages two readings on the paper's scale: the model's own
rating stretched so that everyday chores sit at 1 and life events at 10 (anchors below, rated
once), and P(yes) times nine plus one. On held-out built memories the average separated
better than either (AUC 0.963 against 0.91 and 0.90); `eval poignancy` measures all three.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from langchain_core.prompts import PromptTemplate

from mindstream.lm.config import JUDGE_ADAPTER_DIR
from mindstream.lm.judges.yes_no import YesNo, load_yes_no_adapter

if TYPE_CHECKING:
    from mindstream.lm.scoring.scorer import Scorer

POIGNANT = PromptTemplate.from_template(
    "Memory: {memory}\nIs this an important event in someone's life? Answer:"
)
# For a served model (no adapter); the examples avoid the labelled sets' texts.
FEW_SHOT_POIGNANT = PromptTemplate.from_template(
    "Answer each question with Yes or No.\n\n"
    + POIGNANT.format(memory="Ana Ruiz washed the dishes.")
    + " No\n\n"
    + POIGNANT.format(memory="Ben Okafor was rushed to hospital after a fall.")
    + " Yes\n\n"
    + POIGNANT.format(memory="the cafe: piano is in use.")
    + " No\n\n"
    + POIGNANT.format(memory="Chen Wei invited Dara Kelly to her wedding in June.")
    + " Yes\n\n{request}"
)
LOWEST, HIGHEST = 1.0, 10.0
ADAPTER = JUDGE_ADAPTER_DIR / "poignant"  # the shipped adapter


# The paper's anchors: brushing teeth is a 1, a break-up an 8 to 10. Not in the labelled sets.
LOW_ANCHORS = (
    "Ana Ruiz brushed her teeth.", "Ben Okafor made his bed.", "Chen Wei tied his shoelaces.",
    "Dara Kelly washed a cup.", "Eli Novak looked at the clock.", "Gus Berg put on his socks.",
)  # fmt: skip
HIGH_ANCHORS = (
    "Ana Ruiz broke up with her partner of ten years.", "Ben Okafor's father died.",
    "Chen Wei got married.", "Dara Kelly was fired from her job.",
    "Eli Novak was badly hurt in an accident.", "Gus Berg's first child was born.",
)  # fmt: skip


def poignant_prompt(memory: str) -> str:
    text = " ".join(memory.split())
    return POIGNANT.format(memory=text if text[-1:] in ".!?" else text + ".")


def importance(p_yes: float) -> float:
    """P(an important event) on the paper's 1-10 scale."""
    return LOWEST + (HIGHEST - LOWEST) * p_yes


@runtime_checkable
class PoignancyJudge(Protocol):
    """P(a memory is an important event in someone's life), one batch per call."""

    def poignant_batch(self, memories: Sequence[str]) -> list[float]: ...


class AdapterPoignancy:
    """The trained poignancy adapter (in-process, or served by vLLM as a LoRA module)."""

    def __init__(self, adapter: Callable[[], YesNo]) -> None:
        self.adapter = adapter

    def poignant_batch(self, memories: Sequence[str]) -> list[float]:
        return self.adapter().p_yes([poignant_prompt(m) for m in memories]) if memories else []


class ScorerPoignancy:
    """Any scorer's P(yes) after worked examples (a served model without the adapter)."""

    def __init__(self, scorer: Scorer) -> None:
        self.scorer = scorer

    def poignant_batch(self, memories: Sequence[str]) -> list[float]:
        prompts = [FEW_SHOT_POIGNANT.format(request=poignant_prompt(m)) for m in memories]
        return self.scorer.p_yes_batch(prompts) if prompts else []


def load_adapter_poignancy(
    base: Path, adapter: Path = ADAPTER, threads: int | None = None
) -> AdapterPoignancy:
    """The poignancy adapter in `adapter` (the shipped one by default), loaded when first
    asked."""
    probe = poignant_prompt("Ana Ruiz's father died last night")
    trainer = "mindstream train judge poignant"
    return AdapterPoignancy(lambda: load_yes_no_adapter(base, adapter, probe, threads, trainer))


class AnchoredImportance:
    """The town's importance: the mean of the model's own 1-10 (stretched between the anchors'
    mean ratings) and the poignancy judge's P(yes) on the same scale."""

    def __init__(self, rate: Callable[[Sequence[str]], list[float]], judge: PoignancyJudge) -> None:
        self.rate = rate
        self.judge = judge
        self._anchors: tuple[float, float] | None = None
        self._lock = threading.Lock()

    def __call__(self, memories: Sequence[str]) -> list[float]:
        if not memories:
            return []
        low, high = self.anchors()
        base = self.rate(memories)
        p_yes = self.judge.poignant_batch(memories)
        return [
            (_stretched(r, low, high) + importance(p)) / 2 for r, p in zip(base, p_yes, strict=True)
        ]

    def anchors(self) -> tuple[float, float]:
        """The model's mean rating of everyday chores and of life events, rated once."""
        with self._lock:
            if self._anchors is None:
                rated = self.rate([*LOW_ANCHORS, *HIGH_ANCHORS])
                low = sum(rated[: len(LOW_ANCHORS)]) / len(LOW_ANCHORS)
                high = sum(rated[len(LOW_ANCHORS) :]) / len(HIGH_ANCHORS)
                self._anchors = (low, high if high > low else low + 1.0)
            return self._anchors


def _stretched(rating: float, low: float, high: float) -> float:
    share = min(1.0, max(0.0, (rating - low) / (high - low)))
    return LOWEST + (HIGHEST - LOWEST) * share
