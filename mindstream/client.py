"""A client of `mindstream serve`, for the command line's `--server URL`: no model, no store.

The key comes from `--api-key` or MINDSTREAM_API_KEY; errors are one line naming the service.
"""

from __future__ import annotations

import os
import time
import uuid
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

KEY_ENV = "MINDSTREAM_API_KEY"
WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
MAX_WAIT_S = 10.0


class ServiceError(Exception):
    """The service refused or could not be reached; the message says which and why."""


class ServiceClient:
    def __init__(
        self, url: str, key: str | None = None, timeout: float = 120.0, retries: int = 5
    ) -> None:
        self.url = url.rstrip("/")
        self.retries = retries
        key = key or os.environ.get(KEY_ENV, "")
        if not key:
            raise ServiceError(f"--server {self.url}: give the API key (--api-key or {KEY_ENV})")
        import httpx

        self._http = httpx.Client(
            base_url=self.url, headers={"Authorization": f"Bearer {key}"}, timeout=timeout
        )

    def call(self, method: str, path: str, **options: Any) -> Any:
        """One request; a write carries an idempotency key and is sent again with the same
        key while the service answers 503 or 429 (after its Retry-After, `retries` times at
        most) or the connection breaks: the service stores it once."""
        import httpx

        headers = dict(options.pop("headers", {}))
        if method in WRITES:
            headers.setdefault("Idempotency-Key", uuid.uuid4().hex)
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                response = self._http.request(method, path, headers=headers, **options)
            except httpx.HTTPError as error:
                if last or method not in WRITES | {"GET"}:
                    raise ServiceError(
                        f"cannot reach the service at {self.url} ({error})"
                    ) from None
                time.sleep(min(2.0**attempt, MAX_WAIT_S))
                continue
            if response.status_code in (429, 503) and not last:
                time.sleep(_retry_after(response, attempt))
                continue
            if response.status_code >= 400:
                raise ServiceError(f"the service at {self.url} answered {_message(response)}")
            return response.json()
        raise AssertionError("unreachable")

    def remember(self, text: str, kind: str, importance: float | None) -> dict[str, Any]:
        body = {"text": text, "kind": kind, "importance": importance}
        return dict(self.call("POST", "/v1/memories", json=body))

    def search(self, query: str, k: int, history: bool = False) -> list[dict[str, Any]]:
        params = {"q": query, "k": k, "history": str(history).lower()}
        return list(self.call("GET", "/v1/search", params=params))

    def restore(self, memory_id: str) -> dict[str, Any]:
        return dict(self.call("POST", f"/v1/memories/{memory_id}/restore"))

    def forget(self, memory_id: str) -> dict[str, Any]:
        return dict(self.call("DELETE", f"/v1/memories/{memory_id}"))

    def stats(self) -> dict[str, Any]:
        return dict(self.call("GET", "/v1/stats"))

    def reflect(self, force: bool = False) -> dict[str, Any]:
        params = {"force": "true"} if force else {}
        return dict(self.call("POST", "/v1/reflections", params=params))


def _retry_after(response: httpx.Response, attempt: int) -> float:
    try:
        seconds = float(response.headers.get("Retry-After", ""))
    except ValueError:
        seconds = 2.0**attempt
    return min(max(seconds, 0.1), MAX_WAIT_S)


def _message(response: httpx.Response) -> str:
    try:
        error = response.json()["error"]
        return f"{error['code']}: {error['message']}"
    except (ValueError, KeyError, TypeError):
        return f"{response.status_code}: {response.text[:200]}"
