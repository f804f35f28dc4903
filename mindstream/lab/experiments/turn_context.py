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
from mindstream.lab.training.retriever import shares_found
from mindstream.lab.training.retriever_data import Dialogue, from_chats, recalled_turns

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


def _similarities(
    conversation: Conversation, dialogue: Dialogue, embedder: object
) -> dict[str, np.ndarray]:
    """Question x turn cosines for every way to embed the recalled turns, and each
    in-context way's better-of-two with the turn alone."""
    turns = conversation.turns
    position = {t.dia_id: i for i, t in enumerate(turns)}
    said = [position[t.dia_id] for t in recalled_turns(conversation)]
    query = _unit([embedder.embed_query(q) for q, _, _ in dialogue.questions])  # type: ignore[attr-defined]
    out = {
        name: query @ _unit(embedder.embed_documents([text(turns, i) for i in said])).T  # type: ignore[attr-defined]
        for name, text in TEXTS.items()
    }
    alone = out["turn alone"]
    out |= {
        f"{name}, best of two": np.maximum(alone, s) for name, s in out.items() if s is not alone
    }
    return out


def measure(
    conversations: Sequence[Conversation], embedder: object, k: int = K
) -> dict[str, float]:
    """Recall@k of every way to embed a turn, over the questions whose evidence the assistant
    recalls (`retriever_data.from_chats`, as the retriever's own dev curve counts them)."""
    found: dict[str, list[float]] = {}
    for conversation in conversations:
        dialogue = from_chats([conversation])[0]
        if not dialogue.questions:
            continue
        for name, similarity in _similarities(conversation, dialogue, embedder).items():
            found.setdefault(name, []).extend(shares_found(similarity, dialogue, k))
    return {name: round(float(np.mean(shares)), 4) for name, shares in found.items()}


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
