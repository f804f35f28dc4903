"""A typed client of `mindstream serve` for every user route, sync (`Client`) and async
(`AsyncClient`) on httpx: pydantic models in, pydantic models out.

    from mindstream.api_client import Client

    with Client("http://127.0.0.1:8080", key="ms_...") as memory:
        added = memory.remember("I live in York", importance=5)
        for found in memory.search("where do I live?"):
            print(found.memory.text, found.score)

Every write carries an idempotency key and is sent again with it while the service answers
503 or 429 (after its Retry-After): stored once. A refusal raises `ServiceError` with the
service's code and one-line message.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable
from typing import Any

import httpx
from pydantic import BaseModel, ConfigDict, TypeAdapter

from mindstream.agents.assistant.replies import Reply
from mindstream.client import KEY_ENV, MAX_WAIT_S, WRITES, ServiceError, _retry_after
from mindstream.service.schemas import FoundOut, MemoryOut
from mindstream.service.users import KeyInfo


class NewKey(KeyInfo):
    key: str


class Request(BaseModel):
    """One route call: what to send, and what the answer parses into."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    method: str
    path: str
    params: dict[str, Any] = {}
    body: Any = None
    answer: Any = dict


class Routes:
    """Every user route as a method building its `Request` (shared by both clients)."""

    def _send(self, request: Request) -> Any:
        raise NotImplementedError

    def chat(self, message: str, session: str = "default") -> Reply:
        return self._send(
            Request(
                method="POST",
                path="/v1/chat",
                body={"message": message, "session": session},
                answer=Reply,
            )
        )

    def remember(self, text: str, importance: float | None = None, kind: str = "fact") -> MemoryOut:
        body = {"text": text, "importance": importance, "kind": kind}
        return self._send(Request(method="POST", path="/v1/memories", body=body, answer=MemoryOut))

    def remember_many(self, items: list[dict[str, Any]]) -> list[MemoryOut]:
        return self._send(
            Request(
                method="POST",
                path="/v1/memories/batch",
                body={"memories": items},
                answer=list[MemoryOut],
            )
        )

    def memories(self, **filters: Any) -> list[MemoryOut]:
        """Filters: kind, status, since, until, order, cursor, limit."""
        return self._send(
            Request(method="GET", path="/v1/memories", params=filters, answer=list[MemoryOut])
        )

    def memory(self, memory_id: str) -> MemoryOut:
        return self._send(Request(method="GET", path=f"/v1/memories/{memory_id}", answer=MemoryOut))

    def forget(self, memory_id: str) -> MemoryOut:
        return self._send(
            Request(method="DELETE", path=f"/v1/memories/{memory_id}", answer=MemoryOut)
        )

    def forget_many(self, ids: list[str]) -> list[MemoryOut]:
        return self._send(
            Request(
                method="POST", path="/v1/memories/forget", body={"ids": ids}, answer=list[MemoryOut]
            )
        )

    def supersede(self, memory_id: str, text: str) -> MemoryOut:
        path = f"/v1/memories/{memory_id}/supersede"
        return self._send(Request(method="POST", path=path, body={"text": text}, answer=MemoryOut))

    def restore(self, memory_id: str) -> MemoryOut:
        return self._send(
            Request(method="POST", path=f"/v1/memories/{memory_id}/restore", answer=MemoryOut)
        )

    def correct(self, memory_id: str, action: str, text: str | None = None) -> MemoryOut:
        body = {"memory_id": memory_id, "action": action, "text": text}
        return self._send(
            Request(method="POST", path="/v1/corrections", body=body, answer=MemoryOut)
        )

    def search(self, query: str, k: int = 10, history: bool = False) -> list[FoundOut]:
        params = {"q": query, "k": k, "history": str(history).lower()}
        return self._send(
            Request(method="GET", path="/v1/search", params=params, answer=list[FoundOut])
        )

    def reflect(self, force: bool = False, wait: bool = True) -> dict[str, Any]:
        params = {"force": str(force).lower(), "wait": str(wait).lower()}
        return self._send(Request(method="POST", path="/v1/reflections", params=params))

    def reflections(self) -> list[dict[str, Any]]:
        return self._send(
            Request(method="GET", path="/v1/reflections", answer=list[dict[str, Any]])
        )

    def export(self) -> dict[str, Any]:
        return self._send(Request(method="GET", path="/v1/export"))

    def import_export(self, exported: dict[str, Any]) -> dict[str, Any]:
        return self._send(Request(method="POST", path="/v1/import", body=exported))

    def stats(self) -> dict[str, Any]:
        return self._send(Request(method="GET", path="/v1/stats"))

    def delete_all(self) -> dict[str, Any]:
        return self._send(Request(method="DELETE", path="/v1/memories"))

    def delete_me(self) -> dict[str, Any]:
        return self._send(Request(method="DELETE", path="/v1/me"))

    def api_keys(self) -> list[KeyInfo]:
        return self._send(Request(method="GET", path="/v1/keys", answer=list[KeyInfo]))

    def add_key(self, label: str) -> NewKey:
        return self._send(
            Request(method="POST", path="/v1/keys", body={"label": label}, answer=NewKey)
        )

    def rotate_key(self) -> NewKey:
        return self._send(Request(method="POST", path="/v1/keys/rotate", answer=NewKey))

    def revoke_key(self, key_id: str) -> list[KeyInfo]:
        return self._send(Request(method="DELETE", path=f"/v1/keys/{key_id}", answer=list[KeyInfo]))

    def sessions(self) -> dict[str, Any]:
        return self._send(Request(method="GET", path="/v1/sessions"))

    def session(self, name: str) -> list[MemoryOut]:
        return self._send(
            Request(method="GET", path=f"/v1/sessions/{name}", answer=list[MemoryOut])
        )

    def delete_session(self, name: str) -> dict[str, Any]:
        return self._send(Request(method="DELETE", path=f"/v1/sessions/{name}"))


def _headers(key: str | None, method: str) -> dict[str, str]:
    import os

    key = key or os.environ.get(KEY_ENV, "")
    if not key:
        raise ServiceError(f"give the API key (key=... or {KEY_ENV})")
    headers = {"Authorization": f"Bearer {key}"}
    if method in WRITES:
        headers["Idempotency-Key"] = uuid.uuid4().hex
    return headers


def _parsed(request: Request, response: httpx.Response, url: str) -> Any:
    if response.status_code >= 400:
        try:
            error = response.json()["error"]
            message = f"{error['code']}: {error['message']}"
        except (ValueError, KeyError, TypeError):
            message = f"{response.status_code}: {response.text[:200]}"
        raise ServiceError(f"the service at {url} answered {message}")
    return TypeAdapter(request.answer).validate_python(response.json())


def _retried(
    request: Request, attempt: int, response: httpx.Response | None, retries: int
) -> float | None:
    """Seconds to wait before sending again, or None to answer now."""
    if attempt >= retries or (response is not None and response.status_code not in (429, 503)):
        return None
    return (
        _retry_after(response, attempt) if response is not None else min(2.0**attempt, MAX_WAIT_S)
    )


class Client(Routes):
    """The sync client (a context manager; `close` ends its connections). `http`: an httpx
    client of your own (a test's in-process one, a proxy's)."""

    def __init__(
        self,
        url: str,
        key: str | None = None,
        timeout: float = 120.0,
        retries: int = 5,
        http: httpx.Client | None = None,
    ) -> None:
        self.url, self.key, self.retries = url.rstrip("/"), key, retries
        self._http = http or httpx.Client(base_url=self.url, timeout=timeout)

    def _send(self, request: Request) -> Any:
        headers = _headers(self.key, request.method)
        for attempt in range(self.retries + 1):
            response = None
            try:
                response = self._http.request(
                    request.method,
                    request.path,
                    params=request.params or None,
                    json=request.body,
                    headers=headers,
                )
            except httpx.HTTPError as error:
                if attempt >= self.retries:
                    raise ServiceError(
                        f"cannot reach the service at {self.url} ({error})"
                    ) from None
            wait = _retried(request, attempt, response, self.retries)
            if wait is None and response is not None:
                return _parsed(request, response, self.url)
            time.sleep(wait or 0.1)
        raise AssertionError("unreachable")

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncClient(Routes):
    """The async client: every route method returns an awaitable of the model the sync
    client's returns (`await client.search(...)`)."""

    def __init__(
        self,
        url: str,
        key: str | None = None,
        timeout: float = 120.0,
        retries: int = 5,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url, self.key, self.retries = url.rstrip("/"), key, retries
        self._http = httpx.AsyncClient(base_url=self.url, timeout=timeout, transport=transport)

    def _send(self, request: Request) -> Awaitable[Any]:
        return self._asend(request)

    async def _asend(self, request: Request) -> Any:
        headers = _headers(self.key, request.method)
        for attempt in range(self.retries + 1):
            response = None
            try:
                response = await self._http.request(
                    request.method,
                    request.path,
                    params=request.params or None,
                    json=request.body,
                    headers=headers,
                )
            except httpx.HTTPError as error:
                if attempt >= self.retries:
                    raise ServiceError(
                        f"cannot reach the service at {self.url} ({error})"
                    ) from None
            wait = _retried(request, attempt, response, self.retries)
            if wait is None and response is not None:
                return _parsed(request, response, self.url)
            await asyncio.sleep(wait or 0.1)
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
