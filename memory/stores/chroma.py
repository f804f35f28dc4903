"""chromadb as the system of record: on disk by default, or a chroma server over HTTP.

Embeddings are always passed in: chroma's default embedder would try to download a model, so
the collection is given an embedding function that refuses to run.
"""

from __future__ import annotations

import fcntl
import itertools
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from mindstream.memory.errors import StoreBusyError, StorePathError
from mindstream.memory.records import MemoryRecord, MemoryStatus
from mindstream.memory.stores.base import MUTABLE_FIELDS, changed_fields, from_flat, to_flat

COLLECTION = "memories"
EMBEDDER_KEY = "mindstream_embedder"
LEGACY_EMBEDDER = "minilm"  # what every store held before the dialogue retriever shipped


def _chroma() -> Any:
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    import chromadb

    return chromadb


def _refusing_embedder() -> Any:
    from chromadb.api.types import Documents, EmbeddingFunction, Embeddings

    class RefuseToEmbed(EmbeddingFunction[Documents]):
        """Chroma must never embed: mindstream always passes its own embeddings."""

        def __init__(self) -> None:
            pass

        def __call__(self, input: Documents) -> Embeddings:
            raise RuntimeError("mindstream passes embeddings explicitly; chroma must not embed")

        @staticmethod
        def name() -> str:
            return "mindstream-refuse"

        def get_config(self) -> dict[str, Any]:
            return {}

        @staticmethod
        def build_from_config(config: dict[str, Any]) -> RefuseToEmbed:
            return RefuseToEmbed()

    return RefuseToEmbed()


def http_client(host: str, port: int) -> Any:
    """A client of a chroma server (`chroma run`), telemetry off."""
    chromadb = _chroma()
    settings = chromadb.Settings(anonymized_telemetry=False)
    return chromadb.HttpClient(host=host, port=port, settings=settings)


def refusing_embedder() -> Any:
    """For collections whose vectors are always given: chroma must never embed (its default
    embedder would try to download a model)."""
    return _refusing_embedder()


LOCK_FILE = ".mindstream.lock"


class FolderLock:
    """An exclusive lock on a store folder for as long as this process has it open.

    chroma's on-disk mode is not safe for two processes: a second one reads stale vectors and
    writes over the first one's changes. The lock (flock, released by the OS when a process
    dies) turns that into a clear refusal; opens within one process share it.
    """

    _held: ClassVar[dict[Path, tuple[int, int]]] = {}  # folder -> (file descriptor, opens)

    def __init__(self, folder: Path) -> None:
        self.folder = folder.resolve()
        held = self._held.get(self.folder)
        if held is not None:
            self._held[self.folder] = (held[0], held[1] + 1)
            return
        path = self.folder / LOCK_FILE
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(descriptor, 32).decode(errors="replace").strip() or "?"
            os.close(descriptor)
            raise StoreBusyError(
                f"store path {folder} is open in another process (pid {holder}); the on-disk "
                "store takes one process at a time: stop that one, or share the store through "
                "`mindstream serve` (--server URL) or a chroma server"
            ) from None
        os.ftruncate(descriptor, 0)
        os.write(descriptor, str(os.getpid()).encode())
        self._held[self.folder] = (descriptor, 1)

    def release(self) -> None:
        held = self._held.get(self.folder)
        if held is None:
            return
        descriptor, opens = held
        if opens > 1:
            self._held[self.folder] = (descriptor, opens - 1)
            return
        del self._held[self.folder]
        fcntl.flock(descriptor, fcntl.LOCK_UN)
        os.close(descriptor)


class InsertionOrder:
    """Insertion numbers unique across processes sharing a store: microseconds since the
    epoch (strictly increasing within a process) times 1000, plus a slot from the process id.
    Numbers from before (0, 1, 2, ... per store) sort first."""

    def __init__(self) -> None:
        self._last = 0
        self._slot = os.getpid() % 1000

    def next(self) -> int:
        self._last = max(self._last + 1, time.time_ns() // 1000)
        return self._last * 1000 + self._slot


class ChromaStore:
    """A chroma collection holding text, flat metadata and embeddings of every memory."""

    def __init__(
        self,
        client: Any,
        collection: str = COLLECTION,
        lock: FolderLock | None = None,
        folder: Path | None = None,
    ) -> None:
        self._client = client
        self._lock = lock
        self._folder = folder
        self._collection = client.get_or_create_collection(
            collection,
            embedding_function=_refusing_embedder(),
            configuration={"hnsw": {"space": "cosine"}},
        )
        self._sequence = InsertionOrder()

    @classmethod
    def persistent(cls, path: str | Path, collection: str = COLLECTION) -> ChromaStore:
        folder = Path(path)
        if folder.exists() and not folder.is_dir():
            raise StorePathError(f"store path {folder} is a file, not a folder")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StorePathError(f"store path {folder} cannot be created: {error}") from None
        lock = FolderLock(folder)
        try:
            chromadb = _chroma()
            settings = chromadb.Settings(anonymized_telemetry=False, allow_reset=False)
            client = chromadb.PersistentClient(path=str(folder), settings=settings)
            return cls(client, collection, lock, folder)
        except BaseException:
            lock.release()
            raise

    @classmethod
    def http(
        cls, host: str = "127.0.0.1", port: int = 8000, collection: str = COLLECTION
    ) -> ChromaStore:
        return cls(http_client(host, port), collection)

    def put(self, records: Sequence[MemoryRecord], embeddings: np.ndarray) -> None:
        if not records:
            return
        metadatas = [to_flat(r, self._sequence.next()) for r in records]
        add = partial(
            self._collection.add,
            ids=[r.id for r in records],
            embeddings=np.asarray(embeddings, dtype=np.float32),
            documents=[r.text for r in records],
            metadatas=metadatas,
        )
        retried(add)

    def update(
        self, records: Sequence[MemoryRecord], fields: Sequence[str] = MUTABLE_FIELDS
    ) -> None:
        if not records:
            return
        # chroma merges metadata: keys not written (the insertion number, the fields another
        # process owns) keep their stored values.
        self._collection.update(
            ids=[r.id for r in records], metadatas=[changed_fields(r, fields) for r in records]
        )

    def load(
        self, batch_size: int = 5000, owner: str | None = None
    ) -> Iterator[tuple[list[MemoryRecord], np.ndarray]]:
        where: dict[str, Any] | None = None if owner is None else {"owner": owner}
        rows: list[tuple[int, MemoryRecord, np.ndarray]] = []
        if self._collection.count() == 0:  # a get with embeddings fails on a new collection
            return
        for offset in itertools.count(0, batch_size):
            page = retried(
                partial(
                    self._collection.get,
                    where=where,
                    include=["embeddings", "metadatas", "documents"],
                    limit=batch_size,
                    offset=offset,
                )
            )
            if not page["ids"]:
                break
            for memory_id, text, meta, vector in zip(
                page["ids"], page["documents"], page["metadatas"], page["embeddings"], strict=True
            ):
                rows.append((int(meta["seq"]), from_flat(memory_id, text, meta), vector))
            if len(page["ids"]) < batch_size:
                break
        rows.sort(key=lambda row: row[0])
        for start in range(0, len(rows), batch_size):
            chunk = rows[start : start + batch_size]
            yield [r for _, r, _ in chunk], np.asarray([v for _, _, v in chunk], dtype=np.float32)

    def taken(self, ids: Sequence[str]) -> set[str]:
        if not ids or self._collection.count() == 0:
            return set()
        return set(retried(partial(self._collection.get, ids=list(ids), include=[]))["ids"])

    def nearest(self, owner: str, vector: np.ndarray, n: int) -> list[str]:
        where = {"$and": [{"owner": owner}, {"status": MemoryStatus.ACTIVE.value}]}
        result = retried(
            partial(
                self._collection.query,
                query_embeddings=[np.asarray(vector, dtype=np.float32)],
                n_results=n,
                where=where,
                include=[],
            )
        )
        return list(result["ids"][0])

    def delete(self, ids: Sequence[str]) -> None:
        """Remove for good. Chroma keeps every write in its log table until it compacts; on a
        store on disk the deleted memories' text, metadata and vectors are blanked there too
        and the file vacuumed, so no page of it still holds their words."""
        if not ids:
            return
        self._collection.delete(ids=list(ids))
        if self._folder is not None:
            scrub_log(self._folder / "chroma.sqlite3", ids)

    def count(self) -> int:
        return int(self._collection.count())

    def embedded_by(self) -> str | None:
        """The embedder that made the stored vectors (None: an empty store). A store written
        before stores said so holds the stock model's."""
        said = (self._collection.metadata or {}).get(EMBEDDER_KEY)
        if said is not None:
            return str(said)
        return LEGACY_EMBEDDER if self._collection.count() else None

    def reembed(self, name: str, embed: Callable[[list[str]], np.ndarray], batch: int = 500) -> int:
        """Every stored vector made again by `embed` from its text (nothing else changes), then
        the store says `name` made them; the number of memories re-embedded."""
        done = 0
        for offset in itertools.count(0, batch):
            if not self._collection.count():
                break
            page = self._collection.get(include=["documents"], limit=batch, offset=offset)
            if not page["ids"]:
                break
            vectors = embed([str(text) for text in page["documents"]])
            self._collection.update(ids=page["ids"], embeddings=vectors)
            done += len(page["ids"])
        self._collection.modify(metadata={**(self._collection.metadata or {}), EMBEDDER_KEY: name})
        return done

    def close(self) -> None:
        """Release chroma's client (the last one on a folder stops its cached system, so a
        later open reads what other processes wrote) and let other processes open the folder."""
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._lock is not None:
            self._lock.release()
            self._lock = None


def scrub_log(database: Path, ids: Sequence[str], chunk: int = 500) -> None:
    """Blank the log rows of deleted ids (each row keeps its operation, so a replay still adds
    and then deletes them) and VACUUM the file."""
    with sqlite3.connect(database, timeout=60) as db:
        for start in range(0, len(ids), chunk):
            part = list(ids[start : start + chunk])
            marks = ",".join("?" * len(part))
            db.execute(
                "UPDATE embeddings_queue SET metadata = NULL, vector = zeroblob(length(vector))"
                f" WHERE id IN ({marks})",
                part,
            )
    db.close()
    with sqlite3.connect(database, timeout=60, isolation_level=None) as db:
        db.execute("VACUUM")
    db.close()


def retried(call: Callable[[], Any], tries: int = 4) -> Any:
    """A chroma server's first writes to a new collection from several processes at once can
    fail while its index segment is not yet on disk ("Error creating hnsw segment reader:
    Nothing found on disk", a 500 in the replicas test about one full run in three), and so
    can a replica's first read of a user another replica has just written (seen once, in
    `load`); the same call a moment later goes through. Any other error is raised at once."""
    for attempt in range(tries):
        try:
            return call()
        except Exception as error:
            if "Nothing found on disk" not in str(error) or attempt == tries - 1:
                raise
            time.sleep(0.1 * 2**attempt)
    return None
