"""The command line: help everywhere, one-line errors on bad input."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from mindstream.cli import app

runner = CliRunner()


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["lm"],
        ["lm", "chat"],
        ["lm", "rate"],
        ["lm", "embed"],
        ["demo"],
        ["memory"],
        ["memory", "add"],
        ["memory", "search"],
        ["memory", "forget"],
        ["memory", "stats"],
        ["reflect"],
        ["refine"],
        ["eval"],
        ["eval", "refeed-retrieval"],
        ["eval", "self-refine"],
        ["eval", "reflection"],
        ["eval", "report"],
        ["eval", "teachme"],
        ["eval", "teachme-retrieval"],
        ["eval", "teachme-scoring"],
        ["ask"],
        ["teach"],
    ],
)
def test_every_command_has_help(args: list[str]) -> None:
    result = runner.invoke(app, [*args, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["lm", "chat", "  "], "TEXT is empty"),
        (["lm", "rate", ""], "MEMORY is empty"),
        (["lm", "embed", ""], "TEXT is empty"),
        (["lm", "chat", "hi", "--model", "nope:x"], "unknown model scheme"),
        (["memory", "stats", "--store", __file__], "is a file"),
        (["refine", " "], "TASK is empty"),
        (["ask", "Is the sky blue?"], "at least two choices"),
        (["eval", "refeed-retrieval", "--data", "/nonexistent"], "dev_complete.jsonl: not found"),
        (["eval", "self-refine", "--data", "/nonexistent"], "openbook.txt: not found"),
    ],
)
def test_bad_input_is_one_clean_line(args: list[str], message: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
