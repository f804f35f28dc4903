"""A user's routes under /v1: chat, memories (add, list, read, forget, supersede, restore),
search, corrections, reflections, export, stats, and deleting the user.

(No `from __future__ import annotations`: FastAPI reads the routes' annotations.)
"""

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query
from fastapi.responses import JSONResponse, Response
from pydantic import AfterValidator

from mindstream.agents.assistant import Correction, Reply
from mindstream.service.access import user_dependency
from mindstream.service.admin import delete_user
from mindstream.service.core import Service
from mindstream.service.paging import MemoryPage, page
from mindstream.service.schemas import (
    ChatIn,
    CorrectionIn,
    FoundOut,
    IdempotencyKey,
    MemoryIn,
    MemoryOut,
    SupersedeIn,
    no_control,
)

REFLECTION_WAIT_S = 900


def user_routes(service: Service) -> APIRouter:
    """Every route acts on the caller's own memories (`User`: the key's user)."""
    User = Annotated[str, Depends(user_dependency(service))]
    router = APIRouter()
    _memory_routes(router, service, User)
    _knowledge_routes(router, service, User)
    return router


def _memory_routes(router: APIRouter, service: Service, User: Any) -> None:
    """Chat and the memories themselves: add, list, read, forget, supersede, restore."""
    assistant = service.assistant

    @router.post("/chat")
    def chat(body: ChatIn, me: User, request: IdempotencyKey = None) -> Reply:
        return assistant.chat(me, body.message, body.session, request)

    @router.post("/memories")
    def remember(body: MemoryIn, me: User, request: IdempotencyKey = None) -> MemoryOut:
        added = assistant.remember(me, body.text, body.importance, body.kind, request)
        return MemoryOut.of(added)

    @router.get("/memories")
    def memories(
        me: User,
        response: Response,
        kind: str | None = None,
        status: str | None = None,
        since: Annotated[datetime | None, Query(description="created at or after")] = None,
        until: Annotated[datetime | None, Query(description="created before")] = None,
        order: Literal["newest", "oldest"] = "newest",
        cursor: Annotated[str | None, Query(description="X-Next-Cursor of the last page")] = None,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    ) -> list[MemoryOut]:
        """Newest first; when there is more, the X-Next-Cursor header holds the next page's
        cursor."""
        ask = MemoryPage(since=since, until=until, order=order, cursor=cursor, limit=limit)
        found, following = page(assistant.memories(me, kind, status), ask)
        if following:
            response.headers["X-Next-Cursor"] = following
        return [MemoryOut.of(r) for r in found]

    @router.get("/memories/{memory_id}")
    def memory(memory_id: str, me: User) -> MemoryOut:
        return MemoryOut.of(assistant.memory(me, memory_id))

    @router.delete("/memories/{memory_id}")
    def forget(memory_id: str, me: User) -> MemoryOut:
        return MemoryOut.of(assistant.forget(me, memory_id))

    @router.post("/memories/{memory_id}/supersede")
    def supersede(
        memory_id: str, body: SupersedeIn, me: User, request: IdempotencyKey = None
    ) -> MemoryOut:
        """Replace the memory's newest version; a forgotten memory answers 409."""
        return MemoryOut.of(assistant.supersede(me, memory_id, body.text, request))

    @router.post("/memories/{memory_id}/restore")
    def restore(memory_id: str, me: User) -> MemoryOut:
        """Undo a supersede (automatic or by hand); only a superseded memory, else 409."""
        return MemoryOut.of(assistant.restore(me, memory_id))


def _knowledge_routes(router: APIRouter, service: Service, User: Any) -> None:
    """What the memories add up to: search, corrections, reflections, export, stats; and
    deleting the user."""
    assistant = service.assistant

    @router.get("/search")
    def search(
        me: User,
        q: Annotated[str, Query(min_length=1, max_length=1000), AfterValidator(no_control)],
        k: Annotated[int, Query(ge=1, le=100)] = 10,
        history: Annotated[
            bool, Query(description="include superseded and forgotten memories")
        ] = False,
    ) -> list[FoundOut]:
        return [FoundOut.of(m) for m in assistant.search(me, q, k, history)]

    @router.post("/corrections")
    def correct(body: CorrectionIn, me: User, request: IdempotencyKey = None) -> MemoryOut:
        return MemoryOut.of(assistant.correct(me, Correction(**body.model_dump()), request))

    @router.post("/reflections", response_model=None)
    def reflect(
        me: User,
        wait: Annotated[bool, Query(description="false: 202 at once, the worker reflects")] = True,
        force: Annotated[bool, Query(description="reflect even below the threshold")] = False,
    ) -> dict[str, Any] | JSONResponse:
        """Reflect on this user's memories in the process's reflection worker; a reflection
        already queued or running for the user is the one waited for. Nothing asked comes
        with the reason (below the threshold: `force=true` reflects anyway)."""
        future, queued = service.worker.submit(me, force=force)
        if not wait:
            status = "queued" if queued else "already queued or running"
            return JSONResponse({"user": me, "status": status}, 202)
        result = future.result(timeout=REFLECTION_WAIT_S)
        return {
            "questions": result.questions,
            "insights": [i.record.text for i in result.insights],
            "reason": result.reason,
        }

    @router.get("/reflections")
    def reflections(me: User) -> list[dict[str, Any]]:
        return assistant.reflections(me)

    @router.get("/export")
    def export(me: User) -> dict[str, Any]:
        return assistant.export(me)

    @router.get("/stats")
    def stats(me: User) -> dict[str, Any]:
        records = assistant.memories(me)
        return {
            "user": me,
            "memories": len(records),
            "by_kind": _count(r.kind.value for r in records),
            "by_status": _count(r.status.value for r in records),
        }

    @router.delete("/me")
    def delete_me(me: User) -> dict[str, Any]:
        return delete_user(service, me)


def _count(values: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts
