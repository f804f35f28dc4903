"""The assistant service's state: the assistant on the data folder's store, users, limits,
scheduled reflections, the town runs and the TeachMe desk; the routers act on one `Service`."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from mindstream.memory.residency import Residency
from mindstream.service import jobs
from mindstream.service.address import keep_private
from mindstream.service.config import ServiceConfig
from mindstream.service.limits import RateLimiter
from mindstream.service.runs import RunViews
from mindstream.service.shards import owner_of_name
from mindstream.service.teach import TeachDesk
from mindstream.service.users import JsonRegistry, Users, admin_key
from mindstream.service.worker import ReflectionWorker

if TYPE_CHECKING:
    from mindstream.compose import Parts


def residency_of(config: ServiceConfig) -> Residency | None:
    """Replicas, and a process with a memory budget, hold only the users they are asked for."""
    if config.replicas == 1 and config.resident_memories is None:
        return None
    return Residency(config.resident_memories)


class Service:
    """What the app serves: the assistant on the data folder's store, users, limits, jobs."""

    def __init__(self, parts: Parts, config: ServiceConfig) -> None:
        keep_private(config.data)
        self.config = config
        shared = parts.config.store
        self.lease = None
        if shared.kind == "chroma-server":  # replicas: users and TeachMe on the server too
            from mindstream.service.registry import ChromaRegistry, ReplicaLease

            self.lease = ReplicaLease(shared.host, shared.port, config.replicas, config.replica)
            self.lease.acquire()  # before loading: a second process is refused at once
            self.users = Users(ChromaRegistry(shared.host, shared.port))
            teach_store = parts.store(collection="teachme")
        else:
            self.users, teach_store = Users(JsonRegistry(config.data)), None
        self.registry_store = teach_store  # on the registry's server, which may be another
        self.assistant = parts.assistant(config.data / "memory", residency=residency_of(config))
        self.admin_key, self.admin_key_file = admin_key(config.data)
        self.limiter = RateLimiter(config.rate_per_minute, config.burst)
        self.reflections = jobs.UserReflections(
            config.data, parts.config.assistant.reflect_every_minutes
        )
        self.worker = ReflectionWorker(self.assistant.reflect)
        self.runs = RunViews(config.runs, parts)
        self.teach = TeachDesk(parts, config.data / "teachme", teach_store)
        self._closing = threading.Event()
        # Load the embedder now: the first request should not wait seconds for it; and an
        # embedded chat model, whose loading would stall every request at the first reflection.
        self.assistant.stream.embed(["warm up"])
        warm = getattr(parts.models.chat, "warm", None)
        if callable(warm):
            warm()

    def holds(self, name: str) -> None:
        """The user's memories loaded here, if they were not (a replica loads a user on their
        first request)."""
        self.assistant.stream.hold(name)

    def owns(self, name: str) -> bool:
        """Whether this process is the one replica that serves (and writes for) the user."""
        return owner_of_name(name, self.config.replicas) == self.config.replica

    def keep_jobs_in_step(self, every_seconds: float = 60.0) -> None:
        """The scheduled reflections of the users this replica owns, now and every minute (a
        user another replica created gets their job here within a minute)."""
        self.reflections.sync([n for n in self.users.names() if self.owns(n)])
        if self.config.replicas > 1 and not self._closing.is_set():
            timer = threading.Timer(every_seconds, self.keep_jobs_in_step, (every_seconds,))
            timer.daemon = True
            timer.start()

    def close(self) -> None:
        self._closing.set()
        if self.lease is not None:
            self.lease.release()
        self.reflections.stop()
        self.worker.stop()
        self.assistant.stream.close(settle=0)  # a stop is prompt; pending writes resume
        self.runs.close()
        self.teach.close()
