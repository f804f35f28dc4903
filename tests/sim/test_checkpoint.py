"""The checkpoint as a typed, versioned model: a folder from before the version field still
reads, a newer one is refused in one line, a damaged field is named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mindstream.sim import CheckpointError
from mindstream.sim.checkpoint import CHECKPOINT_VERSION, RunFolder

RUN = Path(__file__).parent.parent / "data" / "town-run"


def _copy(tmp_path: Path) -> RunFolder:
    shutil.copytree(RUN, tmp_path / "run", ignore=shutil.ignore_patterns("memory"))
    return RunFolder(tmp_path / "run")


def test_a_folder_from_before_the_version_field_reads_as_version_1(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    assert "version" not in json.loads(folder.checkpoint.read_text())
    state = folder.load()
    assert state.version == 1 and state.tick == 12
    assert state.agents["Sam Moore"].intentions == [] and state.agents["Sam Moore"].plan.steps
    folder.save(state)
    assert folder.load() == state  # and writes back what it read


def test_a_newer_checkpoint_is_refused_and_a_bad_field_is_named(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    raw = json.loads(folder.checkpoint.read_text())
    folder.checkpoint.write_text(json.dumps({**raw, "version": CHECKPOINT_VERSION + 1}))
    with pytest.raises(CheckpointError, match=r"written by a newer mindstream"):
        folder.load()
    raw["agents"]["Sam Moore"]["plan"] = "nothing"
    folder.checkpoint.write_text(json.dumps(raw))
    with pytest.raises(CheckpointError, match=r"checkpoint.json: agents.Sam Moore.plan: "):
        folder.load()
