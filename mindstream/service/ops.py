"""What an operator watches: `/ready` (the store answers, the model is there) and `/metrics`
(Prometheus text: requests by route and status, their latency, users and memories).

Metrics carry route templates, never ids or user names; `/metrics` needs the admin key (a
Prometheus job sends it as a bearer token).

(No `from __future__ import annotations`: FastAPI reads the routes' annotations.)
"""

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Depends, FastAPI, Request, Response
from fastapi.responses import JSONResponse

if TYPE_CHECKING:
    from mindstream.service.core import Service


def model_check(model: Any) -> str:
    """'served at URL' after the server listed its models, 'in-process' for the embedded
    model (its weights are in this process's package cache); raises when unreachable."""
    endpoint = getattr(model, "endpoint", None)
    if endpoint is None:
        return "in-process"
    endpoint.call(lambda client: client.models.list(), "a model list")
    return f"served at {endpoint.url}"


def route_template(request: Request) -> str:
    """'/v1/memories/{memory_id}' for '/v1/memories/ab12...': the matched route with its
    parameters named, not their values ('unmatched' when no route matched)."""
    if "route" not in request.scope:
        return "unmatched"
    path = request.url.path
    for name, value in request.path_params.items():
        path = path.replace(f"/{value}", f"/{{{name}}}")
    return path


def store_check(store: Any) -> str:
    """The store's own count of its records (a query to chroma, on disk or a server)."""
    count = getattr(store, "count", None)
    return f"{count()} memories" if callable(count) else type(store).__name__


def ops_routes(service: "Service", admin: Callable[..., None]) -> tuple[APIRouter, Any]:
    """The routes and the middleware that counts every request."""
    from prometheus_client import (
        CONTENT_TYPE_LATEST,
        CollectorRegistry,
        Counter,
        Gauge,
        Histogram,
        generate_latest,
    )

    registry = CollectorRegistry()
    requests = Counter(
        "mindstream_requests", "Requests answered", ["method", "route", "status"], registry=registry
    )
    latency = Histogram(
        "mindstream_request_seconds", "Time to answer", ["method", "route"], registry=registry
    )
    users = Gauge("mindstream_users", "Users with a key", registry=registry)
    memories = Gauge(
        "mindstream_memories",
        "Memories held in this process (all of the store's, unless replicas or a budget hold"
        " only the users served lately)",
        registry=registry,
    )
    router = APIRouter()

    @router.get("/ready")
    def ready() -> JSONResponse:
        """200 when the stores answer and the model is reachable, else 503 naming which."""
        checks: dict[str, str] = {}
        parts: list[tuple[str, Callable[[], str]]] = [
            ("store", lambda: store_check(service.assistant.stream.store)),
            ("model", lambda: model_check(service.assistant.model)),
        ]
        if service.registry_store is not None:  # a replica: the user registry's server too
            parts.append(("registry", lambda: store_check(service.registry_store)))
        for name, check in parts:
            try:
                checks[name] = check()
            except Exception as error:  # any failure is the answer, not a 500
                checks[name] = f"failing: {type(error).__name__}: {error}"
        failing = any(v.startswith("failing") for v in checks.values())
        return JSONResponse({"ready": not failing, **checks}, 503 if failing else 200)

    @router.get("/metrics", dependencies=[Depends(admin)])
    def metrics() -> Response:
        users.set(len(service.users.names()))
        memories.set(len(service.assistant.stream))
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)

    async def count(request: Request, call_next: Callable[[Request], Awaitable[Any]]) -> Any:
        """Every answer by route template and status, a 500 included (an unexpected error
        passes through here on its way to the outermost handler)."""
        start = time.perf_counter()
        status = 500
        try:
            response = await call_next(request)
            status = response.status_code
            return response
        finally:
            route = route_template(request)
            latency.labels(request.method, route).observe(time.perf_counter() - start)
            requests.labels(request.method, route, str(status)).inc()

    return router, count


def mount_ops(app: FastAPI, service: "Service", admin: Callable[..., None]) -> None:
    router, count = ops_routes(service, admin)
    app.include_router(router)
    app.middleware("http")(count)
