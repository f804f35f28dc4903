"""A scripted OpenAI-compatible server on loopback, for unit tests of the served paths: real
HTTP, no model. Replies come from a function of the request's last user message."""

from __future__ import annotations

import json
import math
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = Callable[[str], str]


class LoopbackServer(ThreadingHTTPServer):
    """Stays quiet when a client hangs up first (a timeout test): printed from the handler
    thread, that traceback lands in whichever later test is capturing stderr then."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class FakeOpenAI:
    """`reply(prompt)` gives the text; with `top_logprobs` (token -> probability), a request for
    log-probabilities gets them for its first token. Every request body is kept."""

    def __init__(self, reply: Reply, top_logprobs: Callable[[str], dict[str, float]] | None = None):
        self.reply = reply
        self.top_logprobs = top_logprobs
        self.requests: list[dict[str, Any]] = []
        self._server = LoopbackServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        self.requests.append(body)
        prompt = body["messages"][-1]["content"]
        text = self.reply(prompt)
        choice: dict[str, Any] = {
            "index": 0,
            "finish_reason": "stop",
            "message": {"role": "assistant", "content": text},
            "logprobs": None,
        }
        if body.get("logprobs") and self.top_logprobs is not None:
            alternatives = [
                {"token": t, "logprob": math.log(p), "bytes": None}
                for t, p in self.top_logprobs(prompt).items()
            ]
            first = alternatives[0] if alternatives else {"token": text, "logprob": 0.0}
            choice["logprobs"] = {"content": [{**first, "top_logprobs": alternatives}]}
        usage = {"prompt_tokens": len(prompt.split()), "completion_tokens": 1, "total_tokens": 0}
        return 200, {
            "id": "fake",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [choice],
            "usage": usage,
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                status, payload = (
                    fake.answer(body)
                    if self.path.endswith("/chat/completions")
                    else (404, {"detail": "Not Found"})
                )
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
