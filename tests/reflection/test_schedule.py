"""Scheduled reflection: jobs persist in sqlite across restarts and run on their trigger."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from pydantic import ValidationError

from mindstream.reflection.schedule import ReflectionSchedule, ReflectionScheduler


def record_run(store: str, owner: str, settings: str) -> None:
    with open(Path(store) / "runs.jsonl", "a") as handle:
        handle.write(json.dumps({"owner": owner, "settings": settings}) + "\n")


def test_a_schedule_needs_exactly_one_trigger(tmp_path: Path) -> None:
    where = {"owner": "klaus", "store": str(tmp_path), "job": "tests:job"}
    with pytest.raises(ValidationError, match="exactly one"):
        ReflectionSchedule(**where)
    with pytest.raises(ValidationError, match="exactly one"):
        ReflectionSchedule(**where, every_minutes=5, cron="* * * * *")
    assert ReflectionSchedule(**where, cron="0 */2 * * *").trigger()


def test_jobs_survive_a_restart_and_run(tmp_path: Path) -> None:
    jobs = tmp_path / "jobs.sqlite"
    schedule = ReflectionSchedule(
        owner="klaus",
        store=str(tmp_path),
        every_minutes=1 / 60,  # every second
        job="tests.reflection.test_schedule:record_run",
        settings="model:\n  spec: openai:x\n",
    )
    first = ReflectionScheduler(jobs)
    first.start()
    first.add(schedule)
    first.shutdown()

    second = ReflectionScheduler(jobs)  # a new process would do exactly this
    second.start()
    assert second.jobs() == [schedule.job_id]
    deadline = time.monotonic() + 10
    runs = tmp_path / "runs.jsonl"
    while time.monotonic() < deadline and not runs.exists():
        time.sleep(0.2)
    second.remove(schedule.job_id)
    second.shutdown()
    assert runs.exists(), "the restored job never ran"
    assert json.loads(runs.read_text().splitlines()[0]) == {
        "owner": "klaus",
        "settings": "model:\n  spec: openai:x\n",
    }
    assert ReflectionScheduler(jobs).jobs() == []
