"""Errors as JSON `{"error": {"code", "message"}}`, one handler per kind; no traceback reaches
a client (an unexpected error is logged and answers 500)."""

import logging
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from mindstream.lm import ServedModelError
from mindstream.memory import InvalidMemoryError, MemoryNotFoundError, MemoryStateError
from mindstream.service.users import UserExists

log = logging.getLogger("mindstream.service")


STORE_RETRY_AFTER_S = 5


def json_errors(app: FastAPI, store_down: Callable[[], str | None] = lambda: None) -> None:
    """`store_down` says why the store does not answer (None: it does): an unexpected error
    while it is down is a 503 naming it, retried later, not a 500."""

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
        down = store_down()
        if down is not None:
            log.warning("%s %s: the store is down (%s)", request.method, request.url.path, down)
            retry = {"Retry-After": str(STORE_RETRY_AFTER_S)}
            message = f"the memory store is unavailable ({down}): retry in {STORE_RETRY_AFTER_S} s"
            return reply(503, message, retry)
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
