"""The change gate: which of a new memory's near neighbours are worth the change judge's time,
read from the two memories' embeddings alone (already computed; no model runs).

Most pairs the stream offers the judge are plainly another question: of the pairs the dev
conversations offer, nine in ten get P(replaces) below 0.25. A cross-encoder pass costs about
as much as embedding a memory, and a write meets up to three candidates, so judging every pair
made detection five times slower than the write itself. The gate is a logistic regression on
(old * new, |old - new|, new, cosine), trained by `mindstream train change-gate` to foresee the
shipped judges' P(replaces), its threshold set so that it lets through 97% of the train pairs
the judges found at least 0.25 likely (what a near miss needs). It is bound to the embedder it
was trained on: vectors from another model are all passed to the judge.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

log = logging.getLogger(__name__)

CHANGE_GATE_DIR = Path(__file__).parents[1] / "adapters" / "change_gate"
GATE_FILE = "gate.json"


def features(old: np.ndarray, new: np.ndarray, similarity: np.ndarray) -> np.ndarray:
    """One row per pair: what the gate reads of two normalised embeddings."""
    old, new = np.atleast_2d(old), np.atleast_2d(new)
    cosine = np.asarray(similarity, dtype=np.float32).reshape(-1, 1)
    return np.hstack([old * new, np.abs(old - new), new, cosine]).astype(np.float32)


class ChangeGate(BaseModel):
    """A trained linear gate: `keep` says which pairs go on to the change judge."""

    model_config = ConfigDict(frozen=True)

    embedder: str = Field(description="the embedder whose vectors it was trained on")
    weights: tuple[float, ...]
    bias: float
    threshold: float = Field(description="P(worth judging) a pair must reach")

    def scores(self, old: np.ndarray, new: np.ndarray, similarity: np.ndarray) -> np.ndarray:
        x = features(old, new, similarity)
        if x.shape[1] != len(self.weights):
            raise ValueError(
                f"change gate: {len(self.weights)} weights for {x.shape[1]} features "
                f"(vectors of another dimension than {self.embedder}'s)"
            )
        logits = x @ np.asarray(self.weights, dtype=np.float32) + self.bias
        return np.asarray(1.0 / (1.0 + np.exp(-logits)))

    def keep(self, old: np.ndarray, new: np.ndarray, similarity: np.ndarray) -> np.ndarray:
        """One bool per pair (rows of `old` and `new`): judge it."""
        if len(similarity) == 0:
            return np.zeros(0, dtype=bool)
        return np.asarray(self.scores(old, new, similarity) >= self.threshold)


def save(gate: ChangeGate, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / GATE_FILE
    path.write_text(gate.model_dump_json())
    return path


@lru_cache(maxsize=4)
def load_change_gate(embedder: str, folder: Path = CHANGE_GATE_DIR) -> ChangeGate | None:
    """The shipped gate for vectors made by `embedder`; None (every pair judged, said once)
    where there is none or it was trained on another embedder's vectors."""
    path = folder / GATE_FILE
    if not path.is_file():
        return None
    gate = ChangeGate.model_validate_json(path.read_text())
    if gate.embedder != embedder:
        log.warning(
            "the change gate in %s was trained on %s's vectors, not %s's: every near "
            "neighbour goes to the change judge",
            folder,
            gate.embedder,
            embedder,
        )
        return None
    return gate
