"""Scheduled reflection per user, on the running service's live stream.

apscheduler keeps the jobs (in the service's sqlite job store) across restarts; a job names
this module's function and its user, and reaches the stream through the service running in
this process.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from mindstream.reflection.schedule import ReflectionSchedule, ReflectionScheduler

log = logging.getLogger("mindstream.service")
JOB = "mindstream.service.jobs:reflect_user"
_running: dict[str, Any] = {}  # "worker": the reflection worker of this process's service


def attach(worker: Any) -> None:
    _running["worker"] = worker


def reflect_user(store: str, owner: str, settings: str) -> None:
    """Hand the user's reflection to the worker and return (apscheduler's thread never runs
    the model; a reflection already queued for the user is not queued again)."""
    worker = _running.get("worker")
    if worker is None:
        log.warning("reflection for %s skipped: no service running in this process", owner)
        return
    _, queued = worker.submit(owner)
    if not queued:
        log.warning("reflection for %s skipped: the last one is still queued or running", owner)


class UserReflections:
    """One interval job per user in a persistent job store."""

    def __init__(self, folder: Path, every_minutes: float | None) -> None:
        self.every_minutes = every_minutes
        self.store = str(folder / "memory")
        self.scheduler = ReflectionScheduler(folder / "jobs.sqlite")

    def start(self) -> None:
        self.scheduler.start()

    def add(self, user: str) -> None:
        if self.every_minutes is not None:
            schedule = ReflectionSchedule(
                owner=user, store=self.store, job=JOB, every_minutes=self.every_minutes
            )
            self.scheduler.add(schedule)

    def sync(self, users: list[str]) -> None:
        """Every user's job at the configured interval (a changed one replaces the stored
        trigger), none when reflection is off, and no job left for a user who is gone."""
        for user in users:
            if self.every_minutes is None:
                self.remove(user)
            else:
                self.add(user)
        for job in self.jobs():
            owner = job.removeprefix("reflect:").rpartition("@")[0]
            if job.startswith("reflect:") and owner not in users:
                self.scheduler.remove(job)

    def remove(self, user: str) -> None:
        job = f"reflect:{user}@{self.store}"
        if job in self.scheduler.jobs():
            self.scheduler.remove(job)

    def jobs(self) -> list[str]:
        return self.scheduler.jobs()

    def stop(self) -> None:
        self.scheduler.shutdown()
