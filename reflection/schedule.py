"""Scheduled reflection for long-running use: one apscheduler job per owner.

Jobs live in a sqlite file (apscheduler's SQLAlchemy job store), so they survive restarts. The
job itself is named by import path and receives the store, the owner and `settings` (the
effective configuration, as text): the product layer builds the model and the stream from it,
so a scheduled run reflects exactly as the command that scheduled it would.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator


class ReflectionSchedule(BaseModel):
    """When to reflect for one owner of one store: every N minutes, or a crontab line."""

    model_config = ConfigDict(frozen=True)

    owner: str = Field(min_length=1)
    store: str = Field(min_length=1, description="folder of the chromadb store")
    job: str = Field(min_length=1, description="'module:function' run on every trigger")
    settings: str = Field("", description="passed to the job (the effective configuration)")
    every_minutes: float | None = Field(None, gt=0)
    cron: str | None = Field(None, description="crontab line, e.g. '0 */2 * * *'")

    @model_validator(mode="after")
    def _one_trigger(self) -> ReflectionSchedule:
        if (self.every_minutes is None) == (self.cron is None):
            raise ValueError("give exactly one of every_minutes and cron")
        return self

    @property
    def job_id(self) -> str:
        return f"reflect:{self.owner}@{self.store}"

    def trigger(self) -> Any:
        from apscheduler.triggers.cron import CronTrigger
        from apscheduler.triggers.interval import IntervalTrigger

        if self.cron is not None:
            return CronTrigger.from_crontab(self.cron)
        return IntervalTrigger(minutes=self.every_minutes)


class ReflectionScheduler:
    """An apscheduler scheduler whose jobs persist in `jobs_path` (sqlite)."""

    def __init__(self, jobs_path: Path, *, blocking: bool = False) -> None:
        from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
        from apscheduler.schedulers.background import BackgroundScheduler
        from apscheduler.schedulers.blocking import BlockingScheduler

        jobs_path.parent.mkdir(parents=True, exist_ok=True)
        store = SQLAlchemyJobStore(url=f"sqlite:///{jobs_path}")
        kind = BlockingScheduler if blocking else BackgroundScheduler
        self.scheduler = kind(
            jobstores={"default": store},
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": 300},
        )

    def add(self, schedule: ReflectionSchedule) -> str:
        """Add or replace the owner's job; it is stored at once, running or not."""
        self.scheduler.add_job(
            schedule.job,
            trigger=schedule.trigger(),
            kwargs={
                "store": schedule.store,
                "owner": schedule.owner,
                "settings": schedule.settings,
            },
            id=schedule.job_id,
            name=schedule.job_id,
            replace_existing=True,
        )
        return schedule.job_id

    def remove(self, job_id: str) -> None:
        self.scheduler.remove_job(job_id)

    def jobs(self) -> list[str]:
        return [job.id for job in self.scheduler.get_jobs()]

    def start(self) -> None:
        self.scheduler.start()

    def shutdown(self) -> None:
        self.scheduler.shutdown(wait=True)
