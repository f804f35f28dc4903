"""The command line: help everywhere, one-line errors on bad input."""

from __future__ import annotations

from pathlib import Path

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
        ["lm", "probe"],
        ["model"],
        ["model", "serve"],
        ["sim", "run"],
        ["sim", "interview"],
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
        (["sim", "run", "--hours", "0"], "--hours must be above 0"),
        (["sim", "run", "--hours", "-1"], "--hours must be above 0"),
        (["lm", "rate", "x", "--scorer", "psychic"], "model.scorer"),
        (["lm", "rate", "x", "--max-concurrency", "0"], "model.served.max_concurrency"),
        (["serve", "--stores", "2"], "--stores 2: only with --replicas"),
        (["serve", "--replicas", "2", "--stores", "3"], "--stores 3: between 1 and the replicas"),
    ],
)
def test_bad_input_is_one_clean_line(args: list[str], message: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("command", ["stats", "search", "forget"])
def test_read_only_commands_refuse_a_missing_store(command: str, tmp_path: Path) -> None:
    store = tmp_path / "typo"
    args = {"stats": [], "search": ["party"], "forget": ["abc"]}[command]
    result = runner.invoke(app, ["memory", command, *args, "--store", str(store)])
    assert result.exit_code == 2 and "does not exist" in result.output
    assert not store.exists()


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--event", "Nowhere: room: stove = burning", "Nowhere"),
        ("--event", "Hobbs Cafe: kitchen: stove", "write 'area: room: object = state'"),
        ("--whisper", "Nobody Here: go home", "no agent named 'Nobody Here'"),
    ],
)
def test_a_bad_event_leaves_no_run_folder(
    flag: str, value: str, message: str, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    result = runner.invoke(app, ["sim", "run", "--out", str(out), flag, value])
    assert result.exit_code == 2 and message in result.output, result.output
    assert not out.exists()


@pytest.mark.parametrize("hours", ["nan", "inf", "1e9", "-inf", "169"])
def test_hours_that_are_not_a_finite_stay_leave_no_run_folder(hours: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = runner.invoke(app, ["sim", "run", "--out", str(out), "--hours", hours])
    assert result.exit_code == 2, result.output
    assert "--hours must be above 0 and at most 168" in result.output
    assert "Traceback" not in result.output and not out.exists()


def test_less_than_a_tick_is_refused_and_a_part_of_one_is_said(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from mindstream.cli_sim import ticks_for

    assert ticks_for(2, 10) == 12 and ticks_for(0.5, 10) == 3
    with pytest.raises(ValueError, match=r"--hours 0.01 is less than one 10-minute tick"):
        ticks_for(0.01, 10)
    assert ticks_for(0.34, 10) == 2
    assert "running 2 (0.333 sim-hours)" in capsys.readouterr().out


def test_a_stopped_run_is_reported_as_it_stands_with_resume_and_zero_hours(
    tmp_path: Path,
) -> None:
    """A two-day town stopped mid-way had no summary or report without simulating more."""
    import json
    import shutil

    run = tmp_path / "run"
    shutil.copytree(Path(__file__).parent / "data" / "town-run", run)
    (run / "summary.json").unlink()
    (run / "report.md").unlink()
    logged = (run / "events.jsonl").read_bytes()
    args = ["sim", "run", "--out", str(run), "--resume", "--hours", "0", "--no-interviews"]
    result = runner.invoke(app, args, env={"MINDSTREAM_THREADS": "1"})
    assert result.exit_code == 0, result.output
    assert json.loads((run / "summary.json").read_text())["ticks"] == 12
    assert (run / "report.md").exists() and (run / "events.jsonl").read_bytes() == logged
    started = runner.invoke(app, ["sim", "run", "--out", str(tmp_path / "new"), "--hours", "0"])
    assert started.exit_code == 2 and "--hours must be above 0" in started.output
