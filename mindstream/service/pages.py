"""The web pages: town replay and live view, an agent's mind, the TeachMe page and the
assistant's chat page. Plain HTML, CSS and JavaScript modules from `static/` (no build step, no
CDN); the pages read the typed JSON routes below.

(No `from __future__ import annotations`: FastAPI reads the routes' annotations.)
"""

import asyncio
import html
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles

from mindstream.service.runs import Mind, RunNotFound, RunOverview, RunViews
from mindstream.service.schemas import FoundOut, MemoryOut
from mindstream.service.teach import AnswerOut, AskIn, MoveIn, TeachDesk

STATIC = Path(__file__).parent / "static"
_POLL_SECONDS = 0.5


def not_found_page(message: str) -> HTMLResponse:
    """A readable 404 page (the message escaped: it may echo a path the visitor typed)."""
    body = (STATIC / "404.html").read_text(encoding="utf-8")
    return HTMLResponse(body.replace("{message}", html.escape(message)), status_code=404)


def _page(name: str) -> FileResponse:
    return FileResponse(STATIC / name, media_type="text/html")


def mount_pages(app: FastAPI, runs: RunViews, teach: TeachDesk | None, user: Any = None) -> None:
    """Static files, the run pages, and (in `mindstream serve`) the teach and chat pages; the
    teach API acts for the user whose key `user` (a FastAPI dependency) checks."""
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.include_router(_run_routes(runs))
    if teach is not None:
        app.include_router(_teach_routes(teach, user))

    @app.exception_handler(RunNotFound)
    async def missing(request: Request, error: Exception) -> JSONResponse:
        return JSONResponse({"error": {"code": 404, "message": str(error)}}, 404)


def _run_routes(runs: RunViews) -> APIRouter:
    router = APIRouter()

    @router.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return _page("index.html")

    @router.get("/runs/{run}", include_in_schema=False, response_model=None)
    def run_page(run: str) -> FileResponse | HTMLResponse:
        try:
            runs.folder(run)
        except RunNotFound as error:
            return not_found_page(str(error))
        return _page("run.html")

    @router.get("/api/runs")
    def run_names() -> list[str]:
        return runs.names()

    @router.get("/api/runs/{run}")
    def overview(run: str) -> RunOverview:
        return runs.overview(run)

    @router.get("/api/runs/{run}/stream")
    async def stream(run: str, after: Annotated[int, Query(ge=0)] = 0) -> StreamingResponse:
        runs.folder(run)
        return StreamingResponse(_follow(runs, run, after), media_type="text/event-stream")

    @router.get("/api/runs/{run}/agents/{agent}")
    def mind(
        run: str,
        agent: str,
        until: Annotated[datetime | None, Query(description="the replay's time")] = None,
    ) -> Mind:
        return runs.mind(run, agent, until=until)

    @router.get("/api/runs/{run}/agents/{agent}/recall")
    def recall(
        run: str,
        agent: str,
        q: Annotated[str, Query(min_length=1, max_length=500)],
        k: Annotated[int, Query(ge=1, le=50)] = 8,
        until: Annotated[datetime | None, Query(description="the replay's time")] = None,
    ) -> list[FoundOut]:
        return runs.recall(run, agent, q, k, until=until)

    return router


async def _follow(runs: RunViews, run: str, after: int) -> AsyncIterator[str]:
    """Server-sent events: each new event as it is logged; `done` once the run has finished."""
    seen = after
    while True:
        fresh = runs.events_after(run, seen)
        for event in fresh:
            yield f"data: {event.as_json()}\n\n"
        seen += len(fresh)
        if (runs.folder(run) / "summary.json").is_file() and not fresh:
            yield "event: done\ndata: {}\n\n"
            return
        await asyncio.sleep(_POLL_SECONDS)


def _teach_routes(teach: TeachDesk, user: Any) -> APIRouter:
    router = APIRouter()
    User = Annotated[str, Depends(user)]

    @router.get("/teach", include_in_schema=False)
    def teach_page() -> FileResponse:
        return _page("teach.html")

    @router.get("/chat", include_in_schema=False)
    def chat_page() -> FileResponse:
        return _page("chat.html")

    @router.post("/api/teach/ask")
    def ask(body: AskIn, me: User) -> AnswerOut:
        return teach.ask(me, body)

    @router.post("/api/teach/move")
    def move(body: MoveIn, me: User) -> AnswerOut:
        return teach.move(me, body)

    @router.get("/api/teach/taught")
    def taught(me: User) -> list[MemoryOut]:
        return teach.taught(me)

    return router
