"""Fixtures of the memory tests: clocks, streams on fake embeddings, a chroma server."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mindstream.lm.fakes import HashEmbeddings
from mindstream.memory import ChromaStore, InMemoryStore, ManualClock, MemoryStream, StreamConfig
from mindstream.memory.kernels import compiled_kernels, seven_bit_kernels


@pytest.fixture(params=["simsimd", "kernel", "seven"])
def int8_scan(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Runs a test with each first pass: SimSIMD's int8 scan and, where this CPU can run
    them, the compiled kernel's int8 scan and its seven-bit one, here from the first row
    (`test_int8_kernel_is_built_where_the_cpu_can_run_it` fails if a CPU that can goes
    without)."""
    compiled = request.param != "simsimd"
    if compiled and compiled_kernels() is None:
        pytest.skip("no compiled kernel here (see `memory.kernels.compiled_kernels`)")
    monkeypatch.setenv("MINDSTREAM_KERNELS", "1" if compiled else "0")
    if request.param == "seven":
        if seven_bit_kernels() is None:
            pytest.skip("this CPU cannot run the seven-bit scan (AVX-512 VBMI)")
        monkeypatch.setattr("mindstream.memory.sevenbit.SEVEN_BIT_FROM", 0)
    return str(request.param)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def stream(clock: ManualClock) -> MemoryStream:
    return MemoryStream(InMemoryStore(), HashEmbeddings(), clock=clock, config=StreamConfig())


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """`chroma run` on loopback for the session; the test fails if it does not start."""
    chroma = shutil.which("chroma") or str(Path(__file__).parents[2] / ".venv" / "bin" / "chroma")
    port = _free_port()
    folder = tmp_path_factory.mktemp("chroma-server")
    process = subprocess.Popen(
        [chroma, "run", "--path", str(folder), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
        except OSError:
            time.sleep(0.2)
    else:
        process.kill()
        pytest.fail("chroma server did not start within 30 s")
    yield "127.0.0.1", port
    process.terminate()
    process.wait(timeout=10)


STORE_KINDS = ["inmemory", "chroma-disk", "chroma-server"]


def make_store(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> object:
    if kind == "inmemory":
        return InMemoryStore()
    if kind == "chroma-disk":
        return ChromaStore.persistent(tmp_path / "store")
    host, port = request.getfixturevalue("chroma_server")
    return ChromaStore.http(host, port, collection=f"t{abs(hash(request.node.nodeid)) % 10**8}")
