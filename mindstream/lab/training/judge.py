"""`mindstream train judge TASK`: one adapter per question of the relation judge.

`replaces` is trained on built replacement pairs (`judge_data`), its curve measured on pairs
about the slots in `heldout_slots`, which training never sees; `contradicts` on OpenBookQA /
EntailmentBank train contradictions, its curve on the last `heldout` OpenBookQA train questions
(the verifier keeps the same ones out); `reacts` (must an agent stop for what it saw?) on built
observations (`react_data`), its curve on objects and states training never sees. Dev is never
read.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from mindstream.lab.experiments.openbookqa import DataError, Question, load_questions
from mindstream.lab.training.adapter import (
    AdapterTraining,
    CurvePoint,
    Hooks,
    Labelled,
    train_adapter,
    yes_probabilities,
)
from mindstream.lab.training.change_data import Embed
from mindstream.lab.training.judge_data import (
    TRAP_SOURCE,
    Catalogue,
    contradiction_examples,
    labelled_pairs,
    replacement_pairs,
    trap_examples,
)
from mindstream.lab.training.poignancy_data import poignancy_examples
from mindstream.lab.training.react_data import reaction_examples
from mindstream.lm.judges.relation import replaces_prompt

if TYPE_CHECKING:
    import torch

HELDOUT_SLOTS = ("gym", "provider", "team_sport", "hair", "instruments", "medication")


Task = Literal["replaces", "contradicts", "reacts", "poignant"]


class JudgeTraining(AdapterTraining):
    task: Task = Field("replaces", description="which of the judge's two questions")
    per_slot: int = Field(220, ge=1, description="built pairs per training slot")
    town: int = Field(1200, ge=0, description="built pairs of town observations")
    heldout_slots: tuple[str, ...] = HELDOUT_SLOTS
    heldout: int = Field(500, ge=0, description="last N OpenBookQA train questions kept out")
    contradiction_questions: int = Field(3000, ge=0, description="OpenBookQA questions used")
    entailmentbank_share: float = Field(0.5, ge=0, le=1)
    trap_share: float = Field(
        0.0, ge=0, le=1, description="questions whose extra no-pair is a word trap"
    )
    chats: int = Field(
        0,
        ge=0,
        description="replaces: this many kept pairs mined from the train conversations' "
        "streams, beside every replacement there three times (0: built pairs only)",
    )
    curve_items: int = Field(400, ge=1, description="held-out items per curve point")
    reactions: int = Field(3000, ge=2, description="built observations (reacts)")
    memories: int = Field(2000, ge=2, description="built memories (poignant)")


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
) -> tuple[list[Labelled], list[Labelled]]:
    """(training examples, held-out items) of the settings' task. Each question is trained
    on its own: trained together, the harder contradictions pulled the replacements down."""
    unknown = sorted(set(s.heldout_slots) - set(catalogue.slots))
    if unknown:
        raise DataError(f"heldout_slots: not in the catalogue: {', '.join(unknown)}")
    if len(questions) <= s.heldout:
        raise DataError(f"{len(questions)} OpenBookQA train questions; {s.heldout} are held out")
    if s.task == "reacts":
        train = reaction_examples(s.reactions, s.seed)
        return train, reaction_examples(s.curve_items, s.seed + 1, held_out=True)
    if s.task == "poignant":
        train = poignancy_examples(s.memories, s.seed)
        return train, poignancy_examples(s.curve_items, s.seed + 1, held_out=True)
    if s.task == "replaces":
        train_slots = [n for n in catalogue.slots if n not in s.heldout_slots]
        pairs = replacement_pairs(catalogue, train_slots, s.per_slot, s.town, s.seed)
        held = replacement_pairs(catalogue, s.heldout_slots, s.curve_items, 0, s.seed + 1)
        random.Random(s.seed).shuffle(held)  # every held-out slot, not the first few
        train = labelled_pairs(pairs) + (chat_examples(s.chats, s.seed) if s.chats else [])
        random.Random(s.seed).shuffle(train)
        return train, labelled_pairs(held[: s.curve_items])
    used = questions[: len(questions) - s.heldout][: s.contradiction_questions]
    examples = contradiction_examples(used, bank, s.seed, s.entailmentbank_share, s.trap_share)
    held_questions = questions[len(questions) - s.heldout :]
    grouped = [e for e in contradiction_examples(held_questions, None, s.seed + 1, 0) if e.group]
    traps = trap_examples(held_questions, s.seed + 1)[: s.curve_items // 2]
    return examples, grouped[: s.curve_items] + traps


def chat_examples(
    count: int, seed: int, repeat: int = 3, embed: Embed | None = None
) -> list[Labelled]:
    """Replacements as a stream offers them, for the chat model's second opinion on the change
    judge: each statement of the train conversations against its nearest earlier ones by the
    dialogue embedder (as detection picks candidates). Built pairs alone never show a model
    the near neighbours of one speaker's everyday chat that stay true."""
    from mindstream.lab.experiments import truth_data
    from mindstream.lab.training.change_data import REPLACES, mined
    from mindstream.lm.backends.embeddings import RETRIEVER_DIR, MiniLMEmbeddings

    embed = embed or MiniLMEmbeddings(adapter=RETRIEVER_DIR).embed_array
    pairs = [
        e
        for c in truth_data.split("train")
        for e in mined(c, embed, neighbours=5, min_similarity=0.2)
    ]
    replaced = [e for e in pairs if e.label == REPLACES]
    kept = [e for e in pairs if e.label != REPLACES]
    random.Random(seed).shuffle(kept)
    return [
        Labelled(
            prompt=replaces_prompt(e.earlier, e.later),
            label=e.label == REPLACES,
            source="replaces: chat change" if e.label == REPLACES else "replaces: chat kept",
        )
        for e in replaced * repeat + kept[:count]
    ]


def balanced_accuracy(items: Sequence[Labelled], p: Sequence[float]) -> float:
    """Mean of the accuracy on yes items and on no items, at 0.5."""
    yes = [q >= 0.5 for e, q in zip(items, p, strict=True) if e.label]
    no = [q < 0.5 for e, q in zip(items, p, strict=True) if not e.label]
    parts = [sum(v) / len(v) for v in (yes, no) if v]
    return sum(parts) / len(parts) if parts else float("nan")


def measure(
    model: torch.nn.Module, tokenizer: object, task: Task, held: Sequence[Labelled], precision: str
) -> dict[str, float]:
    p = yes_probabilities(model, tokenizer, [e.prompt for e in held], precision)
    return measured(task, held, p)


def measured(task: Task, held: Sequence[Labelled], p: Sequence[float]) -> dict[str, float]:
    """Replacements: balanced accuracy at 0.5 and the threshold sweep. Contradictions: how
    often the one claim a fact shows false is ranked first among its question's claims (how
    TeachMe uses it), how often every claim reads as contradicted, and how often another
    topic's denial (a word trap, ungrouped) does."""
    if task == "replaces":
        return {"balanced accuracy": balanced_accuracy(held, p), **threshold_sweep(held, p)}
    if task in ("reacts", "poignant"):
        return {"balanced accuracy": balanced_accuracy(held, p)}
    pairs = list(zip(held, p, strict=True))
    grouped = [(e, q) for e, q in pairs if e.group]
    groups: dict[int, list[tuple[bool, float]]] = {}
    for e, q in grouped:
        groups.setdefault(e.group, []).append((e.label, q))
    ranked = [max(g, key=lambda x: x[1])[0] for g in groups.values()]
    blanket = [all(q >= 0.5 for _, q in g) for g in groups.values()]
    traps = [q for e, q in pairs if e.source == TRAP_SOURCE] or [float("nan")]
    return {
        "denied claim ranked first": sum(ranked) / len(ranked),
        "every claim read as contradicted": sum(blanket) / len(blanket),
        "balanced accuracy": balanced_accuracy([e for e, _ in grouped], [q for _, q in grouped]),
        "another topic's denial read as contradicted": sum(q >= 0.5 for q in traps) / len(traps),
        "another topic's denial, mean P": sum(traps) / len(traps),
    }


def headline(task: Task, found: dict[str, float]) -> float:
    """The curve's one number per task."""
    return found["denied claim ranked first" if task == "contradicts" else "balanced accuracy"]


COMPATIBLE_SOURCES = ("replaces: compatible", "replaces: additive")
THRESHOLDS = tuple(round(0.5 + 0.05 * n, 2) for n in range(10))


def threshold_sweep(items: Sequence[Labelled], p: Sequence[float]) -> dict[str, float]:
    """At each threshold, the share of held-out replacements caught and of compatible pairs
    (someone else's, a visit, a plan, a detail, an addition) wrongly caught, and the threshold
    with the most caught minus wrongly caught: where the stream's threshold is chosen (never
    on the evaluation set)."""
    yes = [q for e, q in zip(items, p, strict=True) if e.label]
    no = [q for e, q in zip(items, p, strict=True) if e.source in COMPATIBLE_SOURCES]
    out: dict[str, float] = {}
    best, best_gap = THRESHOLDS[0], -1.0
    for threshold in THRESHOLDS:
        caught = sum(q >= threshold for q in yes) / len(yes)
        wrong = sum(q >= threshold for q in no) / len(no)
        out[f"replaces caught at {threshold}"] = caught
        out[f"compatible caught at {threshold}"] = wrong
        if caught - wrong > best_gap:
            best, best_gap = threshold, caught - wrong
    out["best threshold"] = best
    return out


def train_judge(
    model: torch.nn.Module,
    tokenizer: object,
    examples: list[Labelled],
    held: list[Labelled],
    settings: JudgeTraining,
    hooks: Hooks | None = None,
) -> tuple[torch.nn.Module, list[CurvePoint], str]:
    def evaluate(trained: torch.nn.Module, precision: str) -> float:
        return headline(settings.task, measure(trained, tokenizer, settings.task, held, precision))

    return train_adapter(model, tokenizer, examples, evaluate, settings, hooks)


def load_train_questions(openbookqa: Path) -> list[Question]:
    train_file = openbookqa / "train_complete.jsonl" if openbookqa.is_dir() else openbookqa
    if "dev" in train_file.name:
        raise DataError(f"{train_file}: the judge never trains on dev")
    return load_questions(train_file, flag="--openbookqa")
