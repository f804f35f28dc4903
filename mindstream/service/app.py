"""`mindstream serve`: the personal assistant as a REST service for many users.

Each API key belongs to one user and every route acts on that user's memories only: another
user's memory id answers 404, exactly like an unknown one. The service is the single writer
of its store. The routers live beside this module: a user's (`memories`, `account`), the
admin's (`admin`), operations (`ops`) and the pages (`pages`).
"""

from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi_offline import FastAPIOffline

from mindstream.service import jobs
from mindstream.service.access import admin_dependency, user_dependency
from mindstream.service.account import account_routes
from mindstream.service.admin import admin_routes
from mindstream.service.core import Service
from mindstream.service.errors import json_errors
from mindstream.service.limits import BodyLimit
from mindstream.service.memories import user_routes
from mindstream.service.ops import mount_ops, store_check
from mindstream.service.pages import mount_pages
from mindstream.service.runs import RunViews

__all__ = ["Service", "create_app", "create_pages_app"]


def create_app(service: Service) -> Any:
    """The ASGI app: FastAPI behind the body-size limit."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        jobs.attach(service.worker)
        service.reflections.start()
        service.keep_jobs_in_step()
        yield
        service.close()

    app = FastAPIOffline(
        title="mindstream",
        description="A personal assistant with a long memory, per user (Bearer API key).",
        lifespan=lifespan,
    )
    bearer_in_openapi(app)
    json_errors(app, lambda: store_problem(service))
    app.include_router(user_routes(service), prefix="/v1")
    app.include_router(account_routes(service, user_dependency(service)), prefix="/v1")
    app.include_router(admin_routes(service), prefix="/admin")

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    mount_ops(app, service, admin_dependency(service))

    mount_pages(app, service.runs, service.teach, user_dependency(service))
    imports = {"/v1/import": service.config.max_import_bytes}
    return BodyLimit(app, service.config.max_body_bytes, imports)


def bearer_in_openapi(app: FastAPI) -> None:
    """The OpenAPI says how to authenticate (a bearer API key), so Swagger UI's Authorize
    button and generated clients send it."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        schema = build()
        schemes = schema.setdefault("components", {}).setdefault("securitySchemes", {})
        schemes["apiKey"] = {"type": "http", "scheme": "bearer", "description": "ms_... key"}
        schema["security"] = [{"apiKey": []}]
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def store_problem(service: Service) -> str | None:
    """Why the memory store (or the registry's, when it is another) does not answer, or None
    when both do."""
    stores = [service.assistant.stream.store, service.registry_store]
    try:
        for store in stores:
            if store is not None:
                store_check(store)
    except Exception as error:  # whatever the store's client raises is the answer
        return f"{type(error).__name__}: {error}"[:200]
    return None


def create_pages_app(runs: RunViews) -> Any:
    """Only the town pages (for `sim run --serve`): no users, no assistant."""
    app = FastAPI(title="mindstream town", description="Town replay and live view.")
    json_errors(app)
    mount_pages(app, runs, None)
    return app
