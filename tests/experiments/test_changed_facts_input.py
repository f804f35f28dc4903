"""`eval changed-facts` on data it cannot measure: one line naming the file and field, before
any model is loaded (its AUC and false-supersede rate need both kinds of item)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from mindstream.cli import app


def test_data_with_only_changed_items_is_refused_in_one_line(tmp_path: Path) -> None:
    item = {
        "id": "x-01",
        "kind": "changed",
        "type": "implicit",
        "earlier": "I live in Leeds.",
        "later": "I moved to York.",
        "question": "Where do I live?",
    }
    data = tmp_path / "only_changed.jsonl"
    data.write_text(json.dumps(item) + "\n")
    result = CliRunner().invoke(
        app, ["eval", "changed-facts", "--data", str(data), "--out", str(tmp_path / "out")]
    )
    assert result.exit_code != 0
    assert f"{data}: kind: needs both changed and compatible items" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "out").exists()
