"""`mindstream train verifier`: a yes/no adapter that makes the embedded model judge entailment.

Trained on OpenBookQA train (minus a held-out slice that draws the curve and sets TeachMe's
thresholds) and EntailmentBank train; dev is never read. The loop is `training.adapter`'s:
binary cross-entropy on logit(" Yes") - logit(" No"), plus a ranking term over each question's
four choices.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from mindstream.agents.teachme.language import rule_hypothesis
from mindstream.lab.experiments.openbookqa import Question
from mindstream.lab.training.adapter import (
    AdapterTraining,
    CurvePoint,
    Hooks,
    Labelled,
    train_adapter,
    yes_probabilities,
)
from mindstream.lab.training.verifier_data import Example
from mindstream.lm.judges.verifier import verify_prompt

if TYPE_CHECKING:
    import torch


class VerifierTraining(AdapterTraining):
    heldout: int = Field(500, ge=0, description="last N OpenBookQA train questions kept out")
    curve_questions: int = Field(200, ge=0, description="held-out questions per curve point")
    entailmentbank_share: float = Field(0.3, ge=0, le=1, description="of its steps, used")
    negated_share: float = Field(
        0.25, ge=0, le=1, description="of the questions, also taught their negated fact"
    )


class TrainingReport(BaseModel):
    config: VerifierTraining
    examples: dict[str, int]
    precision: str
    threads: int
    curve: list[CurvePoint]
    seconds: float
    peak_memory_mb: float
    heldout_ids: list[str]


def labelled(examples: Sequence[Example]) -> list[Labelled]:
    return [
        Labelled(
            prompt=verify_prompt(e.premises, e.hypothesis),
            label=e.entailed,
            group=e.group,
            source=e.source,
        )
        for e in examples
    ]


def train_verifier(
    model: torch.nn.Module,
    tokenizer: object,
    examples: list[Example],
    heldout: list[Question],
    settings: VerifierTraining,
    hooks: Hooks | None = None,
) -> tuple[torch.nn.Module, list[CurvePoint], str]:
    """Wrap `model` in a LoRA adapter and train it; returns the peft model and its curve."""
    curve_set = heldout[: settings.curve_questions]

    def evaluate(trained: torch.nn.Module, precision: str) -> float:
        return heldout_accuracy(trained, tokenizer, curve_set, precision)

    return train_adapter(model, tokenizer, labelled(examples), evaluate, settings, hooks)


def heldout_accuracy(
    model: torch.nn.Module,
    tokenizer: object,
    questions: Sequence[Question],
    precision: str = "float32",
) -> float:
    """Gold-fact oracle: the choice whose hypothesis the question's core fact best entails."""
    if not questions:
        return float("nan")
    prompts = [
        verify_prompt([q.fact], rule_hypothesis(q.stem, c)) for q in questions for c in q.choices
    ]
    scores = yes_probabilities(model, tokenizer, prompts, precision)
    right, at = 0, 0
    for q in questions:
        mine = scores[at : at + len(q.choices)]
        right += max(range(len(mine)), key=mine.__getitem__) == q.answer_index
        at += len(q.choices)
    return right / len(questions)
