"""The change gate's training job (`mindstream train change-gate`): replay the train
conversations through a stream with the shipped change judges (gate off), keep every pair the
stream sends the judges with their probability, fit a logistic regression on the two
embeddings to foresee it, and set the threshold on the train pairs. The dev conversations are
replayed the same way to report what the gate keeps; the held-out ones are never read.

A pair the gate drops is one the judges would have read, so the gate is judged by the share of
the judges' likely pairs it lets through (at least `rank_above` likely: a near miss), not by
gold labels alone; both are reported.
"""

from __future__ import annotations

import json
import resource
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, ConfigDict
from rich.progress import Progress

from mindstream.lab.experiments import truth_data, truth_eval
from mindstream.lab.experiments.truth_data import Conversation
from mindstream.lab.training.run import AdapterExistsError
from mindstream.lm.judges.change_gate import GATE_FILE, ChangeGate, features, save
from mindstream.memory import InMemoryStore, ManualClock, MemoryStream

if TYPE_CHECKING:
    from mindstream.compose import Parts

LIKELY = 0.25  # the assistant's rank_above: below it a pair's probability decides nothing
TARGET = 0.2  # the label the regression fits: the judges' P(replaces) at least this


class MinedPair(BaseModel):
    """A pair the stream sent the judges, with both vectors and what the judges said."""

    model_config = ConfigDict(frozen=True)

    old: tuple[float, ...]
    new: tuple[float, ...]
    similarity: float
    probability: float
    changed: bool  # labelled as a change in the conversation


def mine(
    conversations: Sequence[Conversation], build: Callable[[], MemoryStream], named: bool
) -> list[MinedPair]:
    """Every pair the judges read while each conversation is remembered turn by turn."""
    out: list[MinedPair] = []
    with Progress(transient=True) as progress:
        task = progress.add_task("replaying", total=len(conversations))
        for conversation in conversations:
            out.extend(_replayed(conversation, build(), named))
            progress.advance(task)
    return out


def _replayed(conversation: Conversation, stream: MemoryStream, named: bool) -> list[MinedPair]:
    changes = {(link.old, link.new) for link in conversation.changes}
    detector, found = stream.changes, []
    judged = detector.judged

    def recording(gathered: Any) -> Any:
        decisions = judged(gathered)
        for (old, new, similarity), decision in zip(gathered.pairs, decisions, strict=True):
            turns = (old.metadata.get("dia_id"), new.metadata.get("dia_id"))
            found.append(
                MinedPair(
                    old=tuple(stream.vector_of(old).tolist()),
                    new=tuple(stream.vector_of(new).tolist()),
                    similarity=similarity,
                    probability=decision.probability,
                    changed=turns in changes,
                )
            )
        return decisions

    detector.judged = recording  # type: ignore[method-assign]
    for turn in conversation.turns:
        truth_eval.remember(stream, conversation.sample_id, turn, named)
    stream.settle()
    stream.close()
    return found


def _vectors(pairs: Sequence[MinedPair]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    old = np.array([p.old for p in pairs], dtype=np.float32)
    new = np.array([p.new for p in pairs], dtype=np.float32)
    return old, new, np.array([p.similarity for p in pairs], dtype=np.float32)


def fit(
    pairs: Sequence[MinedPair], embedder: str, let_through: float, strength: float
) -> ChangeGate:
    """The regression, and the threshold that lets `let_through` of the likely train pairs
    through."""
    from sklearn.linear_model import LogisticRegression

    x = features(*_vectors(pairs))
    p = np.array([pair.probability for pair in pairs])
    if not (p >= TARGET).any() or (p >= TARGET).all():
        raise ValueError("change gate: the mined pairs hold one class only (nothing to learn)")
    model = LogisticRegression(C=strength, max_iter=3000, class_weight="balanced")
    model.fit(x, p >= TARGET)
    gate = ChangeGate(
        embedder=embedder,
        weights=tuple(float(w) for w in model.coef_[0]),
        bias=float(model.intercept_[0]),
        threshold=1.0,
    )
    threshold = float(np.quantile(_scores(gate, pairs)[p >= LIKELY], 1.0 - let_through))
    return gate.model_copy(update={"threshold": threshold})


def _scores(gate: ChangeGate, pairs: Sequence[MinedPair]) -> np.ndarray:
    return gate.scores(*_vectors(pairs))


def kept(gate: ChangeGate, pairs: Sequence[MinedPair]) -> dict[str, Any]:
    """What the gate lets through: all pairs, and those the judges found likely."""
    if not pairs:
        return {"pairs": 0}
    keep = _scores(gate, pairs) >= gate.threshold
    p = np.array([pair.probability for pair in pairs])
    changed = np.array([pair.changed for pair in pairs])

    def share(mask: np.ndarray) -> float | None:
        return round(float(keep[mask].mean()), 4) if mask.any() else None

    return {
        "pairs": len(pairs),
        "kept": share(np.ones(len(pairs), dtype=bool)),
        f"kept_of_p_at_least_{LIKELY}": share(p >= LIKELY),
        "kept_of_p_at_least_0.5": share(p >= 0.5),
        "kept_of_p_at_least_0.9": share(p >= 0.9),
        "kept_of_labelled_changes": share(changed),
    }


def run_change_gate(
    out: Path, parts: Parts, *, overwrite: bool, let_through: float, strength: float
) -> dict[str, Any]:
    """Mine, fit, report; the gate and its training.json in `out`."""
    if (out / GATE_FILE).is_file() and not overwrite:
        raise AdapterExistsError(
            f"{out}: holds a change gate already; pass --overwrite to replace it, "
            "or --out with another folder"
        )
    started = time.perf_counter()
    policy = parts.config.assistant.stream.with_changes(enabled=True, gate=False)
    embedder = parts.models.embedder
    name = str(getattr(embedder, "name", "unknown"))

    def build() -> MemoryStream:
        return parts.stream(store=InMemoryStore(), policy=policy, clock=ManualClock())

    def both(split: str) -> list[MinedPair]:
        conversations = truth_data.split(split)
        return [p for named in (False, True) for p in mine(conversations, build, named)]

    train, dev = both("train"), both("dev")
    gate = fit(train, name, let_through, strength)
    report = {
        "embedder": name,
        "let_through": let_through,
        "strength": strength,
        "threshold": gate.threshold,
        "train": kept(gate, train),
        "dev": kept(gate, dev),
        "seconds": round(time.perf_counter() - started, 1),
        "peak_memory_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "command": "mindstream train change-gate",
    }
    save(gate, out)
    (out / "training.json").write_text(json.dumps(report, indent=1))
    return report
