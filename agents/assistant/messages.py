"""A chat given as messages (`[{"role": "user", "content": "..."}]`), as mem0, OpenAI and
LangChain users hand it over: checked in one line per problem, turned into turns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

ROLES = {"user": "user", "human": "user", "assistant": "assistant", "ai": "assistant"}
ROLES |= {"system": "system"}


class Message(BaseModel):
    model_config = ConfigDict(frozen=True)

    role: str
    content: str


def as_messages(given: str | Sequence[Any]) -> list[Message]:
    """Text is one user message; a list holds dicts (or LangChain messages) with a known role
    and non-empty text content, else `ValueError` naming the item."""
    if isinstance(given, str):
        return [Message(role="user", content=given)]
    out = []
    for n, item in enumerate(given):
        role = item.get("role") if isinstance(item, dict) else getattr(item, "type", None)
        content = item.get("content") if isinstance(item, dict) else getattr(item, "content", None)
        if role not in ROLES:
            raise ValueError(f"messages[{n}].role: {role!r} is none of user, assistant, system")
        if not isinstance(content, str) or not content.strip():
            raise ValueError(f"messages[{n}].content: missing or not text")
        out.append(Message(role=ROLES[str(role)], content=content))
    if not out:
        raise ValueError("messages: the list is empty")
    return out
