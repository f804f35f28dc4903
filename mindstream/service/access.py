"""Who a request is: a user's API key (401 without a known one, 421 at the wrong replica) or
the admin key, within the key's rate (429 with Retry-After).

(No `from __future__ import annotations`: FastAPI reads the dependencies' annotations.)
"""

import math
from collections.abc import Callable
from typing import Annotated

from fastapi import Header, HTTPException, Request

from mindstream.service.core import Service
from mindstream.service.shards import key_tag, shard


def _key(authorization: str | None) -> str:
    scheme, _, key = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not key.strip():
        raise HTTPException(401, "missing API key: send 'Authorization: Bearer <key>'")
    return key.strip()


def route_check(service: Service, tag: str | None) -> None:
    """With replicas, a user's requests reach only the replica that owns them (421 here)."""
    replicas = service.config.replicas
    if replicas > 1 and (tag is None or shard(tag, replicas) != service.config.replica):
        owner = (
            "no replica (a key from before replicas)"
            if tag is None
            else f"replica {shard(tag, replicas)}"
        )
        raise HTTPException(421, f"this key belongs to {owner}: send requests through the proxy")


def user_dependency(service: Service) -> Callable[..., str]:
    """The user whose API key the request carries (401 without one), within their rate."""

    def user(request: Request, authorization: Annotated[str | None, Header()] = None) -> str:
        key = _key(authorization)
        route_check(service, key_tag(key))
        if not service.users.known(key):  # guessing keys is rate-limited by address
            _limit(service, f"unknown key from {request.client.host if request.client else '?'}")
        name = service.users.who(key)
        if name is None:
            raise HTTPException(401, "unknown API key")
        _limit(service, key)
        service.holds(name)
        return name

    return user


def admin_dependency(service: Service) -> Callable[..., None]:
    def admin(authorization: Annotated[str | None, Header()] = None) -> None:
        key = _key(authorization)
        if key != service.admin_key:
            raise HTTPException(401, "not the admin key")
        _limit(service, key)

    return admin


def _limit(service: Service, key: str) -> None:
    wait = service.limiter.wait_for(key)
    if wait:
        seconds = max(1, math.ceil(wait))  # the body says what the header says
        raise HTTPException(
            429, f"rate limit: retry in {seconds} s", headers={"Retry-After": str(seconds)}
        )
