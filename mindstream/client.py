"""A client of `mindstream serve`, for the command line's `--server URL`: no model, no store.

The key comes from `--api-key` or MINDSTREAM_API_KEY; errors are one line naming the service.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

KEY_ENV = "MINDSTREAM_API_KEY"


class ServiceError(Exception):
    """The service refused or could not be reached; the message says which and why."""


class ServiceClient:
    def __init__(self, url: str, key: str | None = None, timeout: float = 120.0) -> None:
        self.url = url.rstrip("/")
        key = key or os.environ.get(KEY_ENV, "")
        if not key:
            raise ServiceError(f"--server {self.url}: give the API key (--api-key or {KEY_ENV})")
        import httpx

        self._http = httpx.Client(
            base_url=self.url, headers={"Authorization": f"Bearer {key}"}, timeout=timeout
        )

    def call(self, method: str, path: str, **options: Any) -> Any:
        import httpx

        try:
            response = self._http.request(method, path, **options)
        except httpx.HTTPError as error:
            raise ServiceError(f"cannot reach the service at {self.url} ({error})") from None
        if response.status_code >= 400:
            raise ServiceError(f"the service at {self.url} answered {_message(response)}")
        return response.json()

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


def _message(response: httpx.Response) -> str:
    try:
        error = response.json()["error"]
        return f"{error['code']}: {error['message']}"
    except (ValueError, KeyError, TypeError):
        return f"{response.status_code}: {response.text[:200]}"
