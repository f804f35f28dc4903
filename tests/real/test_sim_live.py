"""`mindstream sim run --serve` on the real model: the run's page answers while it runs and
stays up after it ends, until Ctrl-C."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from mindstream.lm.served.server import free_port
from tests.conftest import DATA

pytestmark = pytest.mark.real_model


def test_sim_run_serve_shows_the_run_live(tmp_path: Path) -> None:
    port = free_port()
    out = tmp_path / "live-run"
    two = str(DATA / "smallville_two.yaml")
    command = [sys.executable, "-m", "mindstream", "sim", "run", two, "--hours", "0.34"]
    command += ["--out", str(out), "--serve", "--port", str(port), "--no-interviews"]
    env = {**os.environ, "MINDSTREAM_THREADS": "1", "COLUMNS": "200"}
    log = tmp_path / "sim.log"
    with log.open("w") as sink:
        # Ctrl-C as in a terminal, even when this test runs as a background job of a
        # non-interactive shell (which starts it, and so the child, with SIGINT ignored).
        process = subprocess.Popen(
            command,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=env,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
    try:
        url = _wait_for(log, r"live view: (\S+)", process)
        assert url == f"http://127.0.0.1:{port}/runs/live-run"
        api = f"http://127.0.0.1:{port}/api/runs/live-run"
        seen_live = httpx.get(api, timeout=30).json()
        assert seen_live["finished"] is False  # read while it runs
        _wait_for(log, r"page stays up", process)
        done = httpx.get(api, timeout=30).json()
        assert done["finished"] is True and any(e["type"] == "tick" for e in done["events"])
        assert httpx.get(url, timeout=30).status_code == 200
        mind = httpx.get(f"{api}/agents/Sam%20Moore", timeout=30).json()
        assert mind["plan"] and mind["recent"]  # read through the engine's own stream
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)


def _wait_for(
    log: Path, pattern: str, process: subprocess.Popen[bytes], timeout: float = 300
) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(pattern, log.read_text())
        if found:
            return found.group(1) if found.groups() else found.group(0)
        assert process.poll() is None, log.read_text()
        time.sleep(0.3)
    raise AssertionError(f"{pattern!r} not printed in {timeout} s: {log.read_text()}")
