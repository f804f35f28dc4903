"""What a user does to their account as a whole: keys (several, rotated, revoked), batch add
and forget, delete everything, and import of an export.

(No `from __future__ import annotations`: FastAPI reads the routes' annotations.)
"""

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Depends, Header, HTTPException
from pydantic import Field

from mindstream.service.schemas import IdempotencyKey, MemoryIn, MemoryOut, Strict
from mindstream.service.users import KeyInfo, LastKey

if TYPE_CHECKING:
    from mindstream.service.core import Service

BATCH = 100


class KeyIn(Strict):
    label: str = Field("another", min_length=1, max_length=64)


class NewKeyOut(KeyInfo):
    key: str = Field(description="shown this once")


class BatchIn(Strict):
    memories: list[MemoryIn] = Field(min_length=1, max_length=BATCH)


class IdsIn(Strict):
    ids: list[str] = Field(min_length=1, max_length=BATCH)


class ExportIn(Strict):
    user: str | None = Field(None, description="whose export it was (not used)")
    memories: list[dict[str, Any]] = Field(max_length=100_000)


def account_routes(service: "Service", user: Callable[..., str]) -> APIRouter:
    """A user's own account: keys, memories in bulk, sessions."""
    router = APIRouter()
    for part in (_key_routes, _bulk_routes, _session_routes):
        router.include_router(part(service, Annotated[str, Depends(user)]))
    return router


def _key_routes(service: "Service", User: Any) -> APIRouter:
    users = service.users
    router = APIRouter()

    @router.get("/keys")
    def keys(me: User) -> list[KeyInfo]:
        return users.keys(me)

    @router.post("/keys", status_code=201)
    def add_key(body: KeyIn, me: User) -> NewKeyOut:
        key = users.add_key(me, body.label)
        return _shown(users.keys(me), users.key_id(key), key)

    @router.post("/keys/rotate", status_code=201)
    def rotate(me: User, authorization: Annotated[str | None, Header()] = None) -> NewKeyOut:
        """A new key with this key's label; this key stops working."""
        old = (authorization or "").partition(" ")[2].strip()
        label = next(k.label for k in users.keys(me) if k.id == users.key_id(old))
        key = users.add_key(me, label)
        users.revoke(me, users.key_id(old))
        return _shown(users.keys(me), users.key_id(key), key)

    @router.delete("/keys/{key_id}")
    def revoke(key_id: str, me: User) -> list[KeyInfo]:
        try:
            users.revoke(me, key_id)
        except KeyError:
            raise HTTPException(404, f"no key {key_id!r}") from None
        except LastKey as error:
            raise HTTPException(409, str(error)) from None
        return users.keys(me)

    return router


def _bulk_routes(service: "Service", User: Any) -> APIRouter:
    assistant = service.assistant
    router = APIRouter()

    @router.post("/memories/batch")
    def remember_many(body: BatchIn, me: User, request: IdempotencyKey = None) -> list[MemoryOut]:
        items = [(m.text, _number(m.importance), m.kind) for m in body.memories]
        return [MemoryOut.of(r) for r in assistant.remember_many(me, items, request)]

    @router.post("/memories/forget")
    def forget_many(body: IdsIn, me: User) -> list[MemoryOut]:
        """Forget several; all ids are checked first, so an unknown one forgets nothing."""
        for memory_id in body.ids:
            assistant.memory(me, memory_id)
        return [MemoryOut.of(assistant.forget(me, i)) for i in dict.fromkeys(body.ids)]

    @router.delete("/memories")
    def delete_all(me: User) -> dict[str, Any]:
        """Every memory of this user, for good (the account and its keys stay)."""
        removed = assistant.delete_user(me)
        return {"user": me, "memories_removed": removed}

    @router.post("/import")
    def import_export(body: ExportIn, me: User) -> dict[str, Any]:
        """An export (GET /v1/export) back into this account; its memory ids must be free."""
        imported = assistant.import_export(me, {"memories": body.memories})
        return {"user": me, "imported": len(imported)}

    return router


def _session_routes(service: "Service", User: Any) -> APIRouter:
    assistant = service.assistant
    router = APIRouter()

    @router.get("/sessions")
    def sessions(me: User) -> dict[str, int]:
        """Each chat session and how many turns it holds."""
        return assistant.sessions(me)

    @router.get("/sessions/{session}")
    def session_turns(session: str, me: User) -> list[MemoryOut]:
        """The session's turns, oldest first (they are never recalled as facts)."""
        return [MemoryOut.of(r) for r in assistant.turns(me, session)]

    @router.delete("/sessions/{session}")
    def forget_session(session: str, me: User) -> dict[str, Any]:
        turns = assistant.turns(me, session)
        for turn in turns:
            assistant.forget(me, turn.id)
        return {"session": session, "turns_forgotten": len(turns)}

    return router


def _number(value: float | None) -> float | None:
    return None if value is None else float(value)


def _shown(keys: list[KeyInfo], key_id: str, key: str) -> NewKeyOut:
    info = next(k for k in keys if k.id == key_id)
    return NewKeyOut(**info.model_dump(), key=key)
