"""Kill a process in the middle of adding memories: every add that returned survives intact."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mindstream.lm.fakes import HashEmbeddings
from mindstream.memory import ChromaStore, MemoryStream

WRITER = textwrap.dedent(
    """
    import sys
    from mindstream.lm.fakes import HashEmbeddings
    from mindstream.memory import ChromaStore, MemoryStream
    stream = MemoryStream(ChromaStore.persistent(sys.argv[1]), HashEmbeddings())
    i = 0
    while True:
        text = f"memory number {i} " + "word " * (i % 50)
        record = stream.add(text, owner="crash", importance=1 + i % 10)
        print(record.id, i, flush=True)
        i += 1
    """
)


def test_sigkill_during_adds_loses_nothing_that_returned(tmp_path: Path) -> None:
    store_path = tmp_path / "store"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(store_path)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert writer.stdout is not None
    acknowledged: dict[str, int] = {}
    deadline = time.monotonic() + 60
    while len(acknowledged) < 150 and time.monotonic() < deadline:
        line = writer.stdout.readline()
        if not line:
            break
        memory_id, number = line.split()
        acknowledged[memory_id] = int(number)
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=10)
    if len(acknowledged) < 150:
        pytest.fail(f"writer acknowledged only {len(acknowledged)} adds before the deadline")

    reopened = MemoryStream(ChromaStore.persistent(store_path), HashEmbeddings())
    for memory_id, number in acknowledged.items():
        record = reopened.get(memory_id)
        assert record.text.startswith(f"memory number {number} ")
        assert record.importance == 1 + number % 10
    # Nothing half-written: every stored record loaded and validated, and at most the one
    # add in flight at the kill is present beyond the acknowledged ones.
    assert len(acknowledged) <= len(reopened) <= len(acknowledged) + 1
    assert reopened.retrieve("memory number 3", 1, owner="crash")
