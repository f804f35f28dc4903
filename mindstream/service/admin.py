"""The admin's routes under /admin (the admin key): add, list and delete users.

(No `from __future__ import annotations`: FastAPI reads the routes' annotations.)
"""

from typing import Any

from fastapi import APIRouter, Depends, HTTPException

from mindstream.service.access import admin_dependency, route_check
from mindstream.service.core import Service
from mindstream.service.schemas import UserIn
from mindstream.service.shards import user_tag


def admin_routes(service: Service) -> APIRouter:
    router = APIRouter(dependencies=[Depends(admin_dependency(service))])

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
    def remove_user(name: str) -> dict[str, Any]:
        route_check(service, user_tag(name))
        if name not in service.users.names():
            raise HTTPException(404, f"no user {name!r}")
        return delete_user(service, name)

    return router


def delete_user(service: Service, name: str) -> dict[str, Any]:
    """Memories (reflections and what they taught TeachMe included) from store and index, the
    key, the scheduled job."""
    removed = service.assistant.delete_user(name) + service.teach.forget_user(name)
    service.reflections.remove(name)
    service.users.remove(name)
    return {"user": name, "memories_removed": removed}
