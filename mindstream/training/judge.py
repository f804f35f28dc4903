"""`mindstream train judge`: the relation judge's adapter (replaces / contradicts).

Trained on built replacement pairs (`judge_data`) and OpenBookQA / EntailmentBank train
contradictions. The curve is measured on what training never sees: pairs about the slots in
`heldout_slots` and the last `heldout` OpenBookQA train questions (the verifier keeps the same
ones out). Dev is never read.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from mindstream.experiments.openbookqa import DataError, Question, load_questions
from mindstream.training.adapter import (
    AdapterTraining,
    CurvePoint,
    Hooks,
    Labelled,
    train_adapter,
    yes_probabilities,
)
from mindstream.training.judge_data import (
    Catalogue,
    contradiction_examples,
    labelled_pairs,
    replacement_pairs,
)

if TYPE_CHECKING:
    import torch

HELDOUT_SLOTS = ("gym", "provider", "team_sport", "hair", "instruments", "medication")


class JudgeTraining(AdapterTraining):
    per_slot: int = Field(220, ge=1, description="built pairs per training slot")
    town: int = Field(1200, ge=0, description="built pairs of town observations")
    heldout_slots: tuple[str, ...] = HELDOUT_SLOTS
    heldout: int = Field(500, ge=0, description="last N OpenBookQA train questions kept out")
    contradiction_questions: int = Field(1800, ge=0, description="OpenBookQA questions used")
    entailmentbank_share: float = Field(0.5, ge=0, le=1)
    curve_items: int = Field(200, ge=1, description="held-out items per task per curve point")


class HeldOut(BaseModel):
    """What the curve is measured on: (prompt, label) per task."""

    replaces: list[Labelled]
    contradicts: list[Labelled]


class JudgeReport(BaseModel):
    config: JudgeTraining
    examples: dict[str, int]
    precision: str
    threads: int
    curve: list[CurvePoint]
    final: dict[str, float]
    seconds: float
    peak_memory_mb: float


def build_examples(
    catalogue: Catalogue, questions: Sequence[Question], bank: Path | None, s: JudgeTraining
) -> tuple[list[Labelled], HeldOut]:
    unknown = sorted(set(s.heldout_slots) - set(catalogue.slots))
    if unknown:
        raise DataError(f"heldout_slots: not in the catalogue: {', '.join(unknown)}")
    if len(questions) <= s.heldout:
        raise DataError(f"{len(questions)} OpenBookQA train questions; {s.heldout} are held out")
    train_slots = [n for n in catalogue.slots if n not in s.heldout_slots]
    pairs = replacement_pairs(catalogue, train_slots, s.per_slot, s.town, s.seed)
    used = questions[: len(questions) - s.heldout][: s.contradiction_questions]
    examples = labelled_pairs(pairs) + contradiction_examples(
        used, bank, s.seed, s.entailmentbank_share
    )
    held_pairs = replacement_pairs(catalogue, s.heldout_slots, s.curve_items, 0, s.seed + 1)
    held_questions = questions[len(questions) - s.heldout :]
    held = HeldOut(
        replaces=labelled_pairs(held_pairs[: 2 * s.curve_items]),
        contradicts=contradiction_examples(held_questions, None, s.seed + 1, 0)[
            : 2 * s.curve_items
        ],
    )
    return examples, held


def balanced_accuracy(items: Sequence[Labelled], p: Sequence[float]) -> float:
    """Mean of the accuracy on yes items and on no items, at 0.5."""
    yes = [q >= 0.5 for e, q in zip(items, p, strict=True) if e.label]
    no = [q < 0.5 for e, q in zip(items, p, strict=True) if not e.label]
    parts = [sum(v) / len(v) for v in (yes, no) if v]
    return sum(parts) / len(parts) if parts else float("nan")


def measure(
    model: torch.nn.Module, tokenizer: object, held: HeldOut, precision: str
) -> dict[str, float]:
    found = {}
    for task, items in (("replaces", held.replaces), ("contradicts", held.contradicts)):
        p = yes_probabilities(model, tokenizer, [e.prompt for e in items], precision)
        found[task] = balanced_accuracy(items, p)
        if task == "replaces":
            found.update(threshold_sweep(items, p))
    return found


def threshold_sweep(items: Sequence[Labelled], p: Sequence[float]) -> dict[str, float]:
    """At each threshold, the share of held-out replacements caught and of compatible pairs
    wrongly caught: where the stream's threshold is chosen (never on the evaluation set)."""
    out = {}
    yes = [q for e, q in zip(items, p, strict=True) if e.label]
    no = [q for e, q in zip(items, p, strict=True) if not e.label]
    for threshold in (0.3, 0.5, 0.7, 0.8, 0.9):
        out[f"replaces caught at {threshold}"] = sum(q >= threshold for q in yes) / len(yes)
        out[f"compatible caught at {threshold}"] = sum(q >= threshold for q in no) / len(no)
    return out


def train_judge(
    model: torch.nn.Module,
    tokenizer: object,
    examples: list[Labelled],
    held: HeldOut,
    settings: JudgeTraining,
    hooks: Hooks | None = None,
) -> tuple[torch.nn.Module, list[CurvePoint], str]:
    def evaluate(trained: torch.nn.Module, precision: str) -> float:
        found = measure(trained, tokenizer, held, precision)
        return (found["replaces"] + found["contradicts"]) / 2

    return train_adapter(model, tokenizer, examples, evaluate, settings, hooks)


def load_train_questions(openbookqa: Path) -> list[Question]:
    train_file = openbookqa / "train_complete.jsonl" if openbookqa.is_dir() else openbookqa
    if "dev" in train_file.name:
        raise DataError(f"{train_file}: the judge never trains on dev")
    return load_questions(train_file, flag="--openbookqa")
