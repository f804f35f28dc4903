"""TeachMe on the real model: the magnet–penny dialogue typed into `mindstream teach`, taught
facts kept in a chroma store on disk, then `mindstream ask` reading them for a new question."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mindstream.agents.teachme.language import negate
from mindstream.cli import app
from mindstream.memory import MemoryStream

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


MAGNET = "What will a magnet pick up? (A) a copper coin (B) a steel paperclip"


def test_scripted_teach_session_answers_every_message_clearly(
    tmp_path: Path, real_embedder
) -> None:  # type: ignore[no-untyped-def]
    """Each message of the TeachMe issue, typed into `mindstream teach`: a clear prompt or
    refusal for each, no traceback, no duplicate, and the taught negation moves the answer."""
    store = str(tmp_path / "taught")
    dialogue = [
        "m A magnet attracts iron.",  # a fact before any question: refused, not stored
        "q What will a magnet pick up?",  # no choices: a one-line refusal
        f"q {MAGNET}",
        f"m {COPPER}",  # the negation moves the answer away from copper
        "f abc",  # not a number
        "u 1",
        "u 1",  # the same fact again: not stored twice
        "f 1",  # the premise is false: its negation replaces it
        "b",  # bad reasoning: this step is blocked
        "l",
        "quit",
    ]
    result = CliRunner().invoke(app, ["teach", "--store", store], input="\n".join(dialogue) + "\n")
    print(result.output)
    output = result.output
    assert result.exit_code == 0, output
    assert "Traceback" not in output and "invalid literal" not in output
    assert "ask a question first" in output
    assert "give at least two choices" in output
    assert "abc is not a number; f N" in output
    lines = [line.removeprefix("> ") for line in output.splitlines()]
    answers = [line for line in lines if line.startswith("Answer:")]
    assert answers[1].startswith("Answer: a steel paperclip"), answers  # after the negation
    vetoes = [line for line in lines if "ruled out" in line]
    assert all("by what you taught: '" in line for line in vetoes), vetoes  # names the fact
    notes = ("rests on that fact", "already the proof's premise", "Not used:")
    assert sum(output.count(note) for note in notes) >= 2  # each `u 1` says what it did
    stream = MemoryStream.open(Path(store), real_embedder)
    records = [r for r in stream.records("user") if r.status.value == "active"]
    stream.close()
    texts = [r.text for r in records]
    assert "A magnet attracts iron." not in texts
    assert len(texts) == len(set(texts)), texts
    proofs = _proof_blocks(output)
    for premises in proofs:  # never a premise beside its own negation
        normal = {p.lower().rstrip(".") for p in premises}
        assert not any(negate(p).lower().rstrip(".") in normal for p in premises), premises


def _proof_blocks(output: str) -> list[list[str]]:
    blocks: list[list[str]] = []
    for line in output.splitlines():
        line = line.removeprefix("> ")
        if line.startswith("Answer:"):
            blocks.append([])
        elif (
            blocks and line.startswith("  ") and line.strip()[:2] in {f"{n}." for n in range(1, 9)}
        ):
            blocks[-1].append(line.strip()[3:].rsplit("  (", 1)[0])
    return blocks
