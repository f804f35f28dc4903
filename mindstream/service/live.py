"""`sim run --serve`: the town page of the run in progress, served from a thread of the
simulating process (so minds are read through the engine's own stream, not the locked store)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mindstream.compose import Parts
    from mindstream.memory import MemoryStream


class LiveServer:
    def __init__(self, server: object, thread: threading.Thread, url: str) -> None:
        self.server = server
        self.thread = thread
        self.url = url

    @classmethod
    def start(cls, out: Path, stream: MemoryStream, parts: Parts, port: int) -> LiveServer:
        import uvicorn

        from mindstream.lm.served.server import free_port
        from mindstream.service.app import create_pages_app
        from mindstream.service.runs import RunViews

        port = port or free_port()
        runs = RunViews(out.parent, parts, live={out.name: stream})
        config = uvicorn.Config(
            create_pages_app(runs), host="127.0.0.1", port=port, log_level="warning"
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, name="live-view", daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        return cls(server, thread, f"http://127.0.0.1:{port}/runs/{out.name}")

    def wait(self) -> None:
        """Until Ctrl-C."""
        try:
            while self.thread.is_alive():
                self.thread.join(0.5)
        except KeyboardInterrupt:
            self.server.should_exit = True  # type: ignore[attr-defined]
