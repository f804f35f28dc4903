"""`mindstream serve`: the personal assistant as a REST service for many users.

(No `from __future__ import annotations` here: FastAPI reads the routes' annotations, and the
per-service `User` dependency is a local name.)

Each API key belongs to one user and every route acts on that user's memories only: another
user's memory id answers 404, exactly like an unknown one. The service is the single writer
of its store. Errors are JSON `{"error": {"code", "message"}}`; no traceback reaches a client.
"""

import logging
import math
import threading
from collections.abc import Callable
from contextlib import asynccontextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import APIRouter, Depends, FastAPI, Header, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from agents.assistant import Correction, Reply
from lm import ServedModelError
from memory import InvalidMemoryError, MemoryNotFoundError, MemoryStateError
from mindstream.service import jobs
from mindstream.service.account import account_routes
from mindstream.service.address import keep_private
from mindstream.service.config import ServiceConfig
from mindstream.service.limits import BodyLimit, RateLimiter
from mindstream.service.ops import mount_ops
from mindstream.service.pages import mount_pages
from mindstream.service.paging import MemoryPage, page
from mindstream.service.runs import RunViews
from mindstream.service.schemas import (
    ChatIn,
    CorrectionIn,
    FoundOut,
    MemoryIn,
    MemoryOut,
    SupersedeIn,
    UserIn,
)
from mindstream.service.shards import key_tag, owner_of_name, shard, user_tag
from mindstream.service.teach import TeachDesk
from mindstream.service.users import JsonRegistry, UserExists, Users, admin_key
from mindstream.service.worker import ReflectionWorker

if TYPE_CHECKING:
    from mindstream.compose import Parts

log = logging.getLogger("mindstream.service")
REFLECTION_WAIT_S = 900


class Service:
    """What the app serves: the assistant on the data folder's store, users, limits, jobs."""

    def __init__(self, parts: "Parts", config: ServiceConfig) -> None:
        keep_private(config.data)
        self.config = config
        shared = parts.config.store
        self.lease = None
        if shared.kind == "chroma-server":  # replicas: users and TeachMe on the server too
            from memory import ChromaStore
            from mindstream.service.registry import ChromaRegistry, ReplicaLease

            self.lease = ReplicaLease(shared.host, shared.port, config.replicas, config.replica)
            self.lease.acquire()  # before loading: a second process is refused at once
            self.users = Users(ChromaRegistry(shared.host, shared.port))
            teach_store = ChromaStore.http(shared.host, shared.port, collection="teachme")
        else:
            self.users, teach_store = Users(JsonRegistry(config.data)), None
        self.assistant = parts.assistant(config.data / "memory")
        self.admin_key, self.admin_key_file = admin_key(config.data)
        self.limiter = RateLimiter(config.rate_per_minute, config.burst)
        self.reflections = jobs.UserReflections(
            config.data, parts.config.assistant.reflect_every_minutes
        )
        self.worker = ReflectionWorker(self.assistant.reflect)
        self.runs = RunViews(config.runs, parts)
        self.teach = TeachDesk(parts, config.data / "teachme", teach_store)
        self._closing = threading.Event()
        # Load the embedder now: the first request should not wait seconds for it.
        self.assistant.stream.embed(["warm up"])

    def owns(self, name: str) -> bool:
        """Whether this process is the one replica that serves (and writes for) the user."""
        return owner_of_name(name, self.config.replicas) == self.config.replica

    def keep_jobs_in_step(self, every_seconds: float = 60.0) -> None:
        """The scheduled reflections of the users this replica owns, now and every minute (a
        user another replica created gets their job here within a minute)."""
        self.reflections.sync([n for n in self.users.names() if self.owns(n)])
        if self.config.replicas > 1 and not self._closing.is_set():
            timer = threading.Timer(every_seconds, self.keep_jobs_in_step, (every_seconds,))
            timer.daemon = True
            timer.start()

    def close(self) -> None:
        self._closing.set()
        if self.lease is not None:
            self.lease.release()
        self.reflections.stop()
        self.worker.stop()
        self.assistant.stream.close()
        self.runs.close()
        self.teach.close()


def create_app(service: Service) -> Any:
    """The ASGI app: FastAPI behind the body-size limit."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        jobs.attach(service.worker)
        service.reflections.start()
        service.keep_jobs_in_step()
        yield
        service.close()

    app = FastAPI(
        title="mindstream",
        description="A personal assistant with a long memory, per user (Bearer API key).",
        lifespan=lifespan,
    )
    _errors(app)
    app.include_router(_user_routes(service), prefix="/v1")
    app.include_router(account_routes(service, _user_dependency(service)), prefix="/v1")
    app.include_router(_admin_routes(service), prefix="/admin")

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    mount_ops(app, service, _admin_dependency(service))

    mount_pages(app, service.runs, service.teach, _user_dependency(service))
    imports = {"/v1/import": service.config.max_import_bytes}
    return BodyLimit(app, service.config.max_body_bytes, imports)


def create_pages_app(runs: RunViews) -> Any:
    """Only the town pages (for `sim run --serve`): no users, no assistant."""
    app = FastAPI(title="mindstream town", description="Town replay and live view.")
    _errors(app)
    mount_pages(app, runs, None)
    return app


def _key(authorization: str | None) -> str:
    scheme, _, key = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not key.strip():
        raise HTTPException(401, "missing API key: send 'Authorization: Bearer <key>'")
    return key.strip()


def _route_check(service: Service, tag: str | None) -> None:
    """With replicas, a user's requests reach only the replica that owns them (421 here)."""
    replicas = service.config.replicas
    if replicas > 1 and (tag is None or shard(tag, replicas) != service.config.replica):
        owner = (
            "no replica (a key from before replicas)"
            if tag is None
            else f"replica {shard(tag, replicas)}"
        )
        raise HTTPException(421, f"this key belongs to {owner}: send requests through the proxy")


def _user_dependency(service: Service) -> Callable[..., str]:
    """The user whose API key the request carries (401 without one), within their rate."""

    def user(authorization: Annotated[str | None, Header()] = None) -> str:
        key = _key(authorization)
        _route_check(service, key_tag(key))
        name = service.users.who(key)
        if name is None:
            raise HTTPException(401, "unknown API key")
        _limit(service, key)
        return name

    return user


def _user_routes(service: Service) -> APIRouter:
    User = Annotated[str, Depends(_user_dependency(service))]
    assistant = service.assistant
    router = APIRouter()

    @router.post("/chat")
    def chat(body: ChatIn, me: User) -> Reply:
        return assistant.chat(me, body.message, body.session)

    @router.post("/memories")
    def remember(body: MemoryIn, me: User) -> MemoryOut:
        return MemoryOut.of(assistant.remember(me, body.text, body.importance, body.kind))

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
    def supersede(memory_id: str, body: SupersedeIn, me: User) -> MemoryOut:
        """Replace the memory's newest version; a forgotten memory answers 409."""
        return MemoryOut.of(assistant.supersede(me, memory_id, body.text))

    @router.post("/memories/{memory_id}/restore")
    def restore(memory_id: str, me: User) -> MemoryOut:
        """Undo a supersede (automatic or by hand); only a superseded memory, else 409."""
        return MemoryOut.of(assistant.restore(me, memory_id))

    @router.get("/search")
    def search(
        me: User,
        q: Annotated[str, Query(min_length=1, max_length=1000)],
        k: Annotated[int, Query(ge=1, le=100)] = 10,
        history: Annotated[
            bool, Query(description="include superseded and forgotten memories")
        ] = False,
    ) -> list[FoundOut]:
        return [FoundOut.of(m) for m in assistant.search(me, q, k, history)]

    @router.post("/corrections")
    def correct(body: CorrectionIn, me: User) -> MemoryOut:
        return MemoryOut.of(assistant.correct(me, Correction(**body.model_dump())))

    @router.post("/reflections", response_model=None)
    def reflect(
        me: User,
        wait: Annotated[bool, Query(description="false: 202 at once, the worker reflects")] = True,
    ) -> dict[str, Any] | JSONResponse:
        """Reflect on this user's memories in the process's reflection worker; a reflection
        already queued or running for the user is the one waited for."""
        future, queued = service.worker.submit(me)
        if not wait:
            status = "queued" if queued else "already queued or running"
            return JSONResponse({"user": me, "status": status}, 202)
        result = future.result(timeout=REFLECTION_WAIT_S)
        return {"questions": result.questions, "insights": [i.record.text for i in result.insights]}

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
        return _delete_user(service, me)

    return router


def _admin_dependency(service: Service) -> Callable[..., None]:
    def admin(authorization: Annotated[str | None, Header()] = None) -> None:
        key = _key(authorization)
        if key != service.admin_key:
            raise HTTPException(401, "not the admin key")
        _limit(service, key)

    return admin


def _admin_routes(service: Service) -> APIRouter:
    router = APIRouter(dependencies=[Depends(_admin_dependency(service))])

    @router.post("/users", status_code=201)
    def add_user(body: UserIn) -> dict[str, str]:
        key = service.users.create(body.name)
        if service.owns(body.name):
            service.reflections.add(body.name)
        return {"user": body.name, "key": key}

    @router.get("/users")
    def users() -> list[str]:
        return service.users.names()

    @router.delete("/users/{name}")
    def delete_user(name: str) -> dict[str, Any]:
        _route_check(service, user_tag(name))
        if name not in service.users.names():
            raise HTTPException(404, f"no user {name!r}")
        return _delete_user(service, name)

    return router


def _delete_user(service: Service, name: str) -> dict[str, Any]:
    """Memories (reflections and what they taught TeachMe included) from store and index, the
    key, the scheduled job."""
    removed = service.assistant.delete_user(name) + service.teach.forget_user(name)
    service.reflections.remove(name)
    service.users.remove(name)
    return {"user": name, "memories_removed": removed}


def _limit(service: Service, key: str) -> None:
    wait = service.limiter.wait_for(key)
    if wait:
        raise HTTPException(
            429,
            f"rate limit: retry in {wait:.1f} s",
            headers={"Retry-After": str(max(1, math.ceil(wait)))},
        )


def _count(values: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts


def _errors(app: FastAPI) -> None:
    def reply(code: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
        return JSONResponse({"error": {"code": code, "message": message}}, code, headers)

    def handler(code: int) -> Callable[[Request, Exception], Any]:
        async def handle(request: Request, error: Exception) -> JSONResponse:
            return reply(code, str(error))

        return handle

    @app.exception_handler(StarletteHTTPException)  # also the router's own 404 and 405
    async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        return reply(error.status_code, str(error.detail), dict(error.headers or {}))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        first = error.errors()[0] if error.errors() else {"loc": (), "msg": "invalid request"}
        where = ".".join(str(p) for p in first["loc"])
        return reply(422, f"{where}: {first['msg']}")

    @app.exception_handler(Exception)
    async def internal(request: Request, error: Exception) -> JSONResponse:
        log.error(
            "%s %s failed: %s: %s", request.method, request.url.path, type(error).__name__, error
        )
        return reply(500, "internal error (see the service log)")

    app.add_exception_handler(MemoryNotFoundError, handler(404))
    app.add_exception_handler(UserExists, handler(409))
    app.add_exception_handler(MemoryStateError, handler(409))
    app.add_exception_handler(InvalidMemoryError, handler(422))
    app.add_exception_handler(ValueError, handler(422))
    app.add_exception_handler(ServedModelError, handler(502))
