"""`mindstream reflect` and the scheduled job function on a real store and the real model."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mindstream.cli import app
from mindstream.config import MindstreamConfig
from mindstream.jobs import reflect as reflect_job
from mindstream.lm.backends.embeddings import MiniLMEmbeddings
from mindstream.memory import MemoryKind, MemoryStream, new_memory
from tests.conftest import DATA

pytestmark = pytest.mark.real_model


def test_reflect_command_then_scheduled_job(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = tmp_path / "store"
    lines = [json.loads(x) for x in (DATA / "klaus_week.jsonl").read_text().splitlines()][:20]
    stream = MemoryStream.open(store, MiniLMEmbeddings())
    stream.add_many([new_memory(text=x["text"], owner="Klaus", importance=8.0) for x in lines])
    stream.close()

    result = CliRunner().invoke(app, ["reflect", "--store", str(store), "--owner", "Klaus"])
    assert result.exit_code == 0, result.output
    assert "importance since the last reflection: 160" in result.output
    assert "question:" in result.output

    reopened = MemoryStream.open(store, MiniLMEmbeddings())
    reflections = [r for r in reopened.records("Klaus") if r.kind is MemoryKind.REFLECTION]
    assert reflections
    assert all(reopened.get(e).owner == "Klaus" for r in reflections for e in r.evidence)
    reopened.close()

    with caplog.at_level(logging.WARNING, logger="mindstream.reflection.schedule"):
        summary = reflect_job(str(store), "Klaus", MindstreamConfig().to_yaml())
    assert summary["owner"] == "Klaus" and summary["threshold"] == 150.0
    assert summary["model"] == "local:smollm2-135m"
    assert summary["importance_since_last"] < 150  # the command's reflection reset the trigger
    assert any("reflection job Klaus" in message for message in caplog.messages)
