"""TeachMe on the real model: the magnet–penny dialogue typed into `mindstream teach`, taught
facts kept in a chroma store on disk, then `mindstream ask` reading them for a new question."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from memory import MemoryStream
from mindstream.cli import app

pytestmark = pytest.mark.real_model

COPPER = "A magnet cannot attract copper."


def test_teach_session_then_ask_uses_the_taught_fact(tmp_path: Path, real_embedder) -> None:  # type: ignore[no-untyped-def]
    runner = CliRunner()
    store = str(tmp_path / "taught")
    dialogue = "\n".join(
        [
            "q Can a magnet attract a penny? (A) yes (B) no",
            "m A penny is made of copper.",
            f"m {COPPER}",
            "l",
            "quit",
        ]
    )
    taught = runner.invoke(app, ["teach", "--store", store], input=dialogue + "\n")
    print(taught.output)
    assert taught.exit_code == 0, taught.output
    assert taught.output.count("Answer:") + taught.output.count("No proof found") == 3
    assert f"considered 1: {COPPER}" in taught.output
    stream = MemoryStream.open(Path(store), real_embedder)
    records = {r.text: r for r in stream.records("user")}
    stream.close()
    assert set(records) == {"A penny is made of copper.", COPPER}
    assert {r.metadata["question"] for r in records.values()} == {"Can a magnet attract a penny?"}

    asked = runner.invoke(
        app, ["ask", "Can a magnet attract a copper pan? (A) yes (B) no", "--store", store]
    )
    print(asked.output)
    assert asked.exit_code == 0, asked.output
    assert f"considered 1: {COPPER}" in asked.output  # BM25 finds the taught fact first
