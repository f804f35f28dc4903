"""The assistant's answer prompt from retrieved memories."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mindstream.agents.assistant.prompts import (
    ANSWER,
    HISTORY,
    MEMORY_LINE,
    NO_LONGER_TRUE,
    REPLACED_LINE,
)
from mindstream.memory import MemoryRecord, MemoryStatus, ScoredMemory


def answer_prompt(
    message: str,
    memories: Sequence[ScoredMemory],
    history: Sequence[str] = (),
    replaced: Mapping[str, Sequence[MemoryRecord]] | None = None,
) -> str:
    """Memories in time order (so a change of fact reads as one), each followed by what it
    replaced (`replaced`: memory id -> the memories it superseded), then the chat so far. A
    recalled superseded memory is marked no longer true, and shown once."""
    under = {old.id for olds in (replaced or {}).values() for old in olds}
    ordered = sorted(memories, key=lambda m: m.record.created_at)
    lines = []
    for m in ordered:
        if m.record.id in under:
            continue
        line = MEMORY_LINE.format(date=f"{m.record.created_at:%Y-%m-%d}", text=m.record.text)
        stale = m.record.status is MemoryStatus.SUPERSEDED
        lines.append(NO_LONGER_TRUE.format(line=line) if stale else line)
        lines += [
            REPLACED_LINE.format(date=f"{old.created_at:%Y-%m-%d}", text=old.text)
            for old in (replaced or {}).get(m.record.id, ())
        ]
    shown = HISTORY.format(turns="\n".join(history)) if history else ""
    return ANSWER.format(
        memories="\n".join(lines) or "- (nothing yet)", history=shown, message=message
    )
