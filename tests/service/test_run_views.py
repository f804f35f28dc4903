"""The town pages read a finished run without holding its store: `sim interview` and
`sim run --resume` must be able to open it while `mindstream serve --runs` is up."""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

from mindstream.compose import Parts
from mindstream.lm.fakes import HashEmbeddings
from mindstream.memory.stores.chroma import LOCK_FILE
from mindstream.service.runs import RunViews

RUN = Path(__file__).parent.parent / "data" / "town-run"


def _views(tmp_path: Path) -> RunViews:
    shutil.copytree(RUN, tmp_path / "town")
    parts = Parts.load().override(embedder=HashEmbeddings())  # records only: no vector compared
    return RunViews(tmp_path, parts)


def _free(store: Path) -> bool:
    """Whether another opener could take the store's lock now (flock is per open file)."""
    descriptor = os.open(store / LOCK_FILE, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(descriptor)


def test_an_agents_mind_is_read_and_the_store_is_left_free(tmp_path: Path) -> None:
    views = _views(tmp_path)
    mind = views.mind("town", "Isabella Rodriguez")
    assert mind.recent and not mind.note
    assert _free(tmp_path / "town" / "memory")
    assert views.mind("town", "Isabella Rodriguez").recent == mind.recent  # still readable


def test_the_memories_are_read_again_only_when_the_run_moved_on(tmp_path: Path) -> None:
    views = _views(tmp_path)
    first = views.stream("town")
    assert views.stream("town") is first
    checkpoint = tmp_path / "town" / "checkpoint.json"
    later = checkpoint.stat().st_mtime_ns + 10**9
    os.utime(checkpoint, ns=(later, later))  # a resumed run saved its next tick
    assert views.stream("town") is not first


def test_sim_report_rebuilds_a_run_and_leaves_its_store_free(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mindstream.cli import app

    run = tmp_path / "town"
    shutil.copytree(RUN, run)
    (run / "report.md").unlink()
    result = CliRunner().invoke(app, ["sim", "report", str(run)])
    assert result.exit_code == 0, result.output
    assert (run / "report.md").read_text().startswith("# ")
    assert _free(run / "memory")


def test_the_mind_panel_follows_the_replays_time(tmp_path: Path) -> None:
    """At tick 1 the panel showed memories of 16:00: what the agent had in mind is what it
    had by the replay's time."""
    views = _views(tmp_path)
    everything = views.mind("town", "Isabella Rodriguez", recent=1000).recent
    times = sorted({m.created_at for m in everything})
    assert len(times) > 1
    early = views.mind("town", "Isabella Rodriguez", recent=1000, until=times[0]).recent
    assert early and all(m.created_at <= times[0] for m in early)
    assert len(early) < len(everything)
    found = views.recall("town", "Isabella Rodriguez", "the party", until=times[0])
    assert found and all(f.memory.created_at <= times[0] for f in found)
