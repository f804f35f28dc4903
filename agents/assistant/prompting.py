"""The assistant's answer prompt from retrieved memories."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agents.assistant.prompts import ANSWER, HISTORY, MEMORY_LINE, REPLACED_LINE
from memory import MemoryRecord, ScoredMemory


def answer_prompt(
    message: str,
    memories: Sequence[ScoredMemory],
    history: Sequence[str] = (),
    replaced: Mapping[str, Sequence[MemoryRecord]] | None = None,
) -> str:
    """Memories in time order (so a change of fact reads as one), each followed by what it
    replaced (`replaced`: memory id -> the memories it superseded), then the chat so far."""
    ordered = sorted(memories, key=lambda m: m.record.created_at)
    lines = []
    for m in ordered:
        lines.append(MEMORY_LINE.format(date=f"{m.record.created_at:%Y-%m-%d}", text=m.record.text))
        lines += [
            REPLACED_LINE.format(date=f"{old.created_at:%Y-%m-%d}", text=old.text)
            for old in (replaced or {}).get(m.record.id, ())
        ]
    shown = HISTORY.format(turns="\n".join(history)) if history else ""
    return ANSWER.format(
        memories="\n".join(lines) or "- (nothing yet)", history=shown, message=message
    )
