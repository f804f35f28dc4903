"""`mindstream memory` end to end on a real store, real embeddings and real model ratings."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mindstream.cli import app

pytestmark = pytest.mark.real_model


def test_add_search_forget_stats(tmp_path: Path) -> None:
    runner = CliRunner()
    store = str(tmp_path / "store")

    def run(*args: str) -> str:
        result = runner.invoke(app, ["memory", *args, "--store", store])
        assert result.exit_code == 0, result.output
        return result.output

    added = run("add", "Isabella is planning a party at Hobbs Cafe", "--owner", "isabella")
    assert "importance" in added
    swept = run("add", "Isabella swept the floor", "--owner", "isabella", "--importance", "2")
    memory_id, swept_id = added.split()[1], swept.split()[1]
    found = run("search", "party", "--owner", "isabella", "-k", "2")
    assert found.index(memory_id[:8]) < found.index(swept_id[:8])
    assert "forgot" in run("forget", memory_id[:10])
    assert "forgotten 1" in run("stats")
