"""A loopback HTTP proxy in front of a real model server that can fail on demand (429/503),
to test retries, typed errors and resuming without a flaky server."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler

import httpx

from tests.fake_openai import LoopbackServer


class FaultProxy:
    """Forwards to `upstream`; after `passes` more requests, answers `status` to the next
    `failures` requests (all of them until healed, if None), then forwards again."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.status = 503
        self.passes: int | None = None  # None: never fail
        self.failures: int | None = None
        self.forwarded = 0
        self.failed = 0
        self._lock = threading.Lock()
        self._server = LoopbackServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def fail_after(self, passes: int, status: int = 503, failures: int | None = None) -> None:
        with self._lock:
            self.passes, self.status, self.failures = passes, status, failures

    def heal(self) -> None:
        with self._lock:
            self.passes = None

    def _should_fail(self) -> bool:
        with self._lock:
            if self.passes is None:
                self.forwarded += 1
                return False
            if self.passes > 0 or self.failures == 0:
                self.passes = max(self.passes - 1, 0)
                self.forwarded += 1
                return False
            if self.failures is not None:
                self.failures -= 1
            self.failed += 1
            return True

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                self._relay("GET")

            def do_POST(self) -> None:
                self._relay("POST")

            def _relay(self, method: str) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                if proxy._should_fail():
                    self._send(proxy.status, b'{"error": {"message": "injected fault"}}')
                    return
                reply = httpx.request(
                    method,
                    proxy.upstream + self.path,
                    content=body,
                    headers={"content-type": self.headers.get("content-type", "")},
                    timeout=120,
                )
                self._send(reply.status_code, reply.content)

            def _send(self, status: int, payload: bytes) -> None:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        return Handler

    def __enter__(self) -> FaultProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
