"""The assistant's answer prompt from retrieved memories."""

from __future__ import annotations

from collections.abc import Sequence

from agents.assistant.prompts import ANSWER, HISTORY, MEMORY_LINE
from memory import ScoredMemory


def answer_prompt(
    message: str, memories: Sequence[ScoredMemory], history: Sequence[str] = ()
) -> str:
    """Memories in time order (so a change of fact reads as one), then the chat so far."""
    ordered = sorted(memories, key=lambda m: m.record.created_at)
    lines = [
        MEMORY_LINE.format(date=f"{m.record.created_at:%Y-%m-%d}", text=m.record.text)
        for m in ordered
    ]
    shown = HISTORY.format(turns="\n".join(history)) if history else ""
    return ANSWER.format(
        memories="\n".join(lines) or "- (nothing yet)", history=shown, message=message
    )
