"""Does a turn embedded with its context find more evidence than the turn alone?

`python -m mindstream.lab.experiments.turn_context --split dev` embeds the user's recalled
turns of a part of the labelled chats (data/truth) in five ways and prints each one's
evidence recall@10 (relevance only, the configured embedder): the turn alone; after the turn
before it (same day); that for short turns only; the session date in front; and the better of
the turn-alone and in-context scores. Measured once (docs/concepts/models.md), not wired into
the product: the turn alone won.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

import numpy as np

from mindstream.lab.experiments import truth_data
from mindstream.lab.experiments.truth_data import Conversation, Turn
from mindstream.memory.statements import is_question

K = 10
SHORT = 8  # words: "yes, on tuesdays" needs the question it answers


def _before(turns: Sequence[Turn], i: int) -> str:
    if i == 0 or turns[i - 1].at.date() != turns[i].at.date():
        return ""
    return turns[i - 1].text + " "


TEXTS: dict[str, Callable[[Sequence[Turn], int], str]] = {
    "turn alone": lambda turns, i: turns[i].text,
    "after the turn before": lambda turns, i: _before(turns, i) + turns[i].text,
    "the same, short turns only": lambda turns, i: (
        _before(turns, i) + turns[i].text if len(turns[i].text.split()) < SHORT else turns[i].text
    ),
    "date in front": lambda turns, i: f"{turns[i].at:%d %B %Y}: {turns[i].text}",
}


def _unit(vectors: object) -> np.ndarray:
    array = np.asarray(vectors, dtype=np.float32)
    return array / np.linalg.norm(array, axis=1, keepdims=True)


def _recall(conversation: Conversation, ids: list[str], scores: np.ndarray, k: int) -> float:
    found = 0.0
    for row, question in zip(scores, conversation.questions, strict=True):
        top = {ids[j] for j in np.argsort(-row)[:k]}
        evidence = [e for e in question.evidence if e in ids]
        found += sum(e in top for e in evidence) / len(evidence) if evidence else 0.0
    return found


def measure(
    conversations: Sequence[Conversation], embedder: object, k: int = K
) -> dict[str, float]:
    """Recall@k of every way to embed a turn, over all the questions."""
    totals: dict[str, float] = {}
    asked = 0
    for conversation in conversations:
        turns = conversation.turns
        kept = [i for i, t in enumerate(turns) if t.by_user and not is_question(t.text)]
        ids = [turns[i].dia_id for i in kept]
        questions = [q.question for q in conversation.questions]
        query = _unit([embedder.embed_query(q) for q in questions])  # type: ignore[attr-defined]
        alone: np.ndarray | None = None
        for name, text in TEXTS.items():
            documents = _unit(embedder.embed_documents([text(turns, i) for i in kept]))  # type: ignore[attr-defined]
            scores = query @ documents.T
            alone = scores if alone is None else alone
            totals[name] = totals.get(name, 0.0) + _recall(conversation, ids, scores, k)
            if name != "turn alone":
                best = f"{name}, best of two"
                both = np.maximum(alone, scores)
                totals[best] = totals.get(best, 0.0) + _recall(conversation, ids, both, k)
        asked += len(questions)
    return {name: round(total / asked, 4) for name, total in totals.items()}


def main() -> None:
    from mindstream.compose import Parts

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="dev", choices=truth_data.SPLITS)
    args = parser.parse_args()
    embedder = Parts.load(None).models.embedder
    for name, recall in measure(truth_data.split(args.split), embedder).items():
        print(f"{name:40} recall@10 {recall:.3f}")


if __name__ == "__main__":
    main()
