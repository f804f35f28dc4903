"""What replicas share on the chroma server beside the memories: the user registry (one row
per user; id: the name; document: the user's keys' hashes as JSON) and each replica's lease."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from typing import Any

from mindstream.memory.stores.chroma import http_client, refusing_embedder

COLLECTION = "mindstream_users"
LEASE_OWNER_ENV = "MINDSTREAM_LEASE_OWNER"


class ChromaRegistry:
    def __init__(self, host: str, port: int, collection: str = COLLECTION) -> None:
        self._collection = http_client(host, port).get_or_create_collection(
            collection, embedding_function=refusing_embedder()
        )

    def load(self) -> dict[str, dict[str, Any]]:
        rows = self._collection.get(include=["documents"])
        return {i: json.loads(d) for i, d in zip(rows["ids"], rows["documents"], strict=True)}

    def save(self, name: str, entry: dict[str, Any]) -> None:
        self._collection.upsert(ids=[name], documents=[json.dumps(entry)], embeddings=[[1.0]])

    def delete(self, name: str) -> None:
        self._collection.delete(ids=[name])


class LeaseTaken(ValueError):
    """Another live process already serves this replica of the shared store."""


class ReplicaLease:
    """Replica i of N claims its place on the chroma server and renews it every few seconds,
    so a second process for the same place (or with another N, which would split the users
    differently) is refused at start instead of serving a second view of the same users."""

    def __init__(self, host: str, port: int, replicas: int, replica: int, ttl: float = 15.0):
        self._collection = http_client(host, port).get_or_create_collection(
            "mindstream_leases", embedding_function=refusing_embedder()
        )
        self.replicas, self.replica, self.ttl = replicas, replica, ttl
        # A supervisor restarting its replica passes the same owner, which takes its place back.
        self.me = os.environ.get(LEASE_OWNER_ENV) or f"{socket.gethostname()}:{os.getpid()}"
        self._stop = threading.Event()

    def acquire(self) -> None:
        now = time.time()
        rows = self._collection.get(include=["documents"])
        for lease in (json.loads(d) for d in rows["documents"]):
            live = now - lease["beat"] < self.ttl and lease["owner"] != self.me
            clash = lease["replicas"] != self.replicas or lease["replica"] == self.replica
            if live and clash:
                raise LeaseTaken(
                    f"replica {lease['replica']} of {lease['replicas']} on this chroma server is "
                    f"served by {lease['owner']} (seen {now - lease['beat']:.0f} s ago): stop it, "
                    f"or wait {self.ttl:g} s after it stopped"
                )
        self._beat()
        threading.Thread(target=self._renew, daemon=True).start()

    def release(self) -> None:
        self._stop.set()
        self._collection.delete(ids=[f"replica-{self.replica}"])

    def _beat(self) -> None:
        lease = {"owner": self.me, "replicas": self.replicas, "replica": self.replica}
        document = json.dumps({**lease, "beat": time.time()})
        self._collection.upsert(
            ids=[f"replica-{self.replica}"], documents=[document], embeddings=[[1.0]]
        )

    def _renew(self) -> None:
        while not self._stop.wait(self.ttl / 3):
            self._beat()
