"""mindstream's labelled chats (`.chat`, data/truth) as long-memory samples, read as the
assistant keeps a chat; kept apart from `long_memory` so the two readers do not import each
other."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from mindstream.lab.experiments.long_memory import Question, Sample, Turn, load
from mindstream.lab.experiments.truth_data import load as load_chats
from mindstream.memory.statements import is_question


def load_any(path: Path) -> tuple[list[Sample], Counter[str]]:
    """A `.chat` file or a folder of them, or the long-memory JSON format."""
    if path.is_dir() or path.suffix == ".chat":
        return from_chats(path), Counter()
    return load(path)


def from_chats(path: Path) -> list[Sample]:
    """User–assistant chats as the assistant keeps them: the user's statements recalled as
    plain text, questions and the assistant's turns kept for history only. A question about a
    fact that changed is "changed"; one about a fact that stayed, "stays", unless the file
    names its category (multi-hop, temporal)."""
    samples = []
    for conversation in load_chats(path):
        turns = [
            Turn(
                dia_id=t.dia_id,
                speaker=t.speaker,
                text=t.text,
                at=t.at,
                named=not t.by_user,
                recalled=t.by_user and not is_question(t.text),
            )
            for t in conversation.turns
        ]
        recalled = {t.dia_id for t in turns if t.recalled}
        questions = [
            Question(
                question=q.question,
                answer=q.answer,
                evidence=list(q.evidence),
                outdated=list(q.outdated),
                category=q.category or ("changed" if q.outdated else "stays"),
            )
            for q in conversation.questions
            if set(q.evidence) & recalled
        ]
        samples.append(Sample(sample_id=conversation.sample_id, turns=turns, questions=questions))
    return samples
