"""Two real processes, one store. Through a chroma server (how processes share a store): one
process touches a memory (its last-access write-back pending) while the other forgets it, and
the forget stands; insertion numbers stay unique. On disk, a second process is refused in one
line instead of reading stale vectors and writing over the first one's changes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mindstream.lm.fakes import HashEmbeddings
from mindstream.memory import ChromaStore, MemoryStatus, MemoryStream, StoreBusyError

HOLDER = textwrap.dedent(
    """
    import sys
    from mindstream.lm.fakes import HashEmbeddings
    from mindstream.memory import ChromaStore, MemoryStream
    where = sys.argv[1]
    if where.startswith("http:"):
        _, host, port, collection = where.split(":")
        store = ChromaStore.http(host, int(port), collection=collection)
    else:
        store = ChromaStore.persistent(where)
    stream = MemoryStream(store, HashEmbeddings())
    stream.retrieve("the party", 5, owner="ana")  # touches: a write-back is now pending
    print("touched", flush=True)
    sys.stdin.readline()  # the other process works meanwhile
    stream.add("a memory added after the forget", owner="ana", importance=2)
    stream.close()  # writes the pending last access back
    print("closed", flush=True)
    """
)


def _holder(where: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, where],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "touched"
    return holder


def _finish(holder: subprocess.Popen[str]) -> None:
    assert holder.stdin is not None and holder.stdout is not None
    holder.stdin.write("go\n")
    holder.stdin.flush()
    assert holder.stdout.readline().strip() == "closed"
    assert holder.wait(timeout=30) == 0


def _seed(store: ChromaStore) -> MemoryStream:
    stream = MemoryStream(store, HashEmbeddings())
    stream.add("Ana is planning the party", owner="ana", importance=5)
    stream.add("Ana bought bread", owner="ana", importance=2)
    return stream


def test_a_forget_survives_another_process_writing_back(
    chroma_server: tuple[str, int], request: pytest.FixtureRequest
) -> None:
    host, port = chroma_server
    collection = f"two{abs(hash(request.node.nodeid)) % 10**8}"
    first = _seed(ChromaStore.http(host, port, collection=collection))
    party = first.records("ana")[0]
    first.close()

    holder = _holder(f"http:{host}:{port}:{collection}")
    other = MemoryStream(ChromaStore.http(host, port, collection=collection), HashEmbeddings())
    other.forget(party.id)
    other.add("a memory the other process added", owner="ana", importance=2)
    other.close()
    _finish(holder)

    reopened = MemoryStream(ChromaStore.http(host, port, collection=collection), HashEmbeddings())
    assert reopened.get(party.id).status is MemoryStatus.FORGOTTEN
    assert reopened.get(party.id).last_accessed_at > party.last_accessed_at  # both writes kept
    texts = [r.text for r in reopened.records("ana")]
    assert len(texts) == len(set(texts)) == 4  # no id or insertion number collided
    assert texts[-2:] == ["a memory the other process added", "a memory added after the forget"]


def test_a_second_process_is_refused_the_on_disk_store(tmp_path: Path) -> None:
    path = tmp_path / "store"
    _seed(ChromaStore.persistent(path)).close()
    holder = _holder(str(path))
    with pytest.raises(StoreBusyError, match=rf"{path} is open in another process \(pid \d+\)"):
        ChromaStore.persistent(path)
    _finish(holder)
    reopened = MemoryStream(ChromaStore.persistent(path), HashEmbeddings())
    assert [r.text for r in reopened.records("ana")][-1] == "a memory added after the forget"
    reopened.close()
