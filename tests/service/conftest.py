"""The real service for its tests: `mindstream serve` in a child process on a loopback port,
its store (chroma) on disk, the real embedder; the admin key set through the environment."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from mindstream.lm.served.server import free_port

ADMIN = "ms_test_admin_key"


class ServiceProcess:
    def __init__(self, data: Path, **env: str) -> None:
        self.data = data
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = data.parent / f"{data.name}.log"
        self.env = {**os.environ, "MINDSTREAM_ADMIN_KEY": ADMIN, "MINDSTREAM_THREADS": "1", **env}
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60) -> ServiceProcess:
        command = [sys.executable, "-m", "mindstream", "serve", "--data", str(self.data)]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [*command, "--port", str(self.port)], env=self.env, stdout=log, stderr=log
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log.read_text()
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.2)
        raise AssertionError(f"the service did not start: {self.log.read_text()}")

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)

    def user(self, name: str) -> httpx.Client:
        created = self.admin().post("/admin/users", json={"name": name})
        assert created.status_code == 201, created.text
        return self.client(created.json()["key"])

    def admin(self) -> httpx.Client:
        return self.client(ADMIN)

    def client(self, key: str | None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60)


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    running = ServiceProcess(
        tmp_path_factory.mktemp("service") / "data",
        # 40 at once, then 2 a second: a test's own key makes at most ~25 requests; the rate
        # test's 200 would have to take over 80 s to escape it, however busy the machine
        MINDSTREAM_SERVICE__RATE_PER_MINUTE="120",
        MINDSTREAM_SERVICE__BURST="40",
    ).start()
    yield running
    running.stop()
