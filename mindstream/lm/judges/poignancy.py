"""How poignant a memory is, 1 to 10 (the paper's importance), through a yes/no question.

The embedded model's own 1-10 rating is flat on a town's memories (3.7-5.4: a burning stove
4.4, "John Lin is a pharmacist" 5.1), and a reflection waits on the sum of importance, so it
either never fires or fires on nothing. On the embedded model a trained adapter answers "is
this an important event in someone's life?" (`mindstream train judge poignant`) and P(yes)
maps onto the scale; a served model without the adapter answers the same question few-shot.
"""

from __future__ import annotations

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
