"""`mindstream train` refuses bad input in one line and never writes over an adapter unless
asked; nothing is loaded or trained before the inputs are checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mindstream.cli import app
from mindstream.lm.backends.embeddings import RETRIEVER_DIR
from mindstream.lm.config import JUDGE_ADAPTER_DIR, VERIFIER_ADAPTER_DIR

runner = CliRunner()


def _one_error_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert "Traceback" not in output
    assert lines and lines[0].startswith("error:"), output
    return " ".join(lines)  # rich may wrap one long line


@pytest.mark.parametrize("adapter", [["verifier"], ["judge", "replaces"], ["judge", "contradicts"]])
def test_an_empty_openbookqa_file_is_refused_naming_it(tmp_path: Path, adapter: list[str]) -> None:
    empty = tmp_path / "train_complete.jsonl"
    empty.write_text("")
    result = runner.invoke(
        app, ["train", *adapter, "--openbookqa", str(empty), "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 2
    message = _one_error_line(result.output)
    assert "train_complete.jsonl" in message and "no questions" in message
    assert not (tmp_path / "out").exists()


def test_a_missing_file_names_the_flag_that_exists(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.jsonl"
    result = runner.invoke(app, ["train", "verifier", "--openbookqa", str(missing)])
    assert result.exit_code == 2
    assert "--openbookqa" in _one_error_line(result.output)


def test_an_empty_entailmentbank_file_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "train.angles.jsonl"
    empty.write_text("\n")
    args = ["train", "verifier", "--entailmentbank", str(empty), "--out", str(tmp_path / "o")]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "no proof steps" in _one_error_line(result.output)


@pytest.mark.parametrize(
    ("adapter", "shipped"),
    [
        (["verifier"], VERIFIER_ADAPTER_DIR),
        (["judge", "replaces"], JUDGE_ADAPTER_DIR / "replaces"),
        (["judge", "contradicts"], JUDGE_ADAPTER_DIR / "contradicts"),
        (["retriever"], RETRIEVER_DIR),
    ],
)
def test_the_shipped_adapter_is_never_overwritten_unless_asked(
    adapter: list[str], shipped: Path
) -> None:
    assert (shipped / "adapter_config.json").is_file(), f"no adapter shipped in {shipped}"
    before = (shipped / "adapter_config.json").read_bytes()
    result = runner.invoke(app, ["train", *adapter, "--out", str(shipped)])
    assert result.exit_code == 2
    assert "--overwrite" in _one_error_line(result.output)
    assert (shipped / "adapter_config.json").read_bytes() == before


def test_a_malformed_catalogue_is_one_line_naming_it(tmp_path: Path) -> None:
    catalogue = tmp_path / "slots.yaml"
    catalogue.write_text("slots: {city: {values: [Leeds]}}\nstates: []\n")
    args = [
        "train",
        "judge",
        "replaces",
        "--catalogue",
        str(catalogue),
        "--out",
        str(tmp_path / "o"),
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "slots.yaml" in _one_error_line(result.output)


def test_the_default_output_is_a_run_folder_not_the_shipped_adapter() -> None:
    result = runner.invoke(app, ["train", "judge", "--help"], env={"COLUMNS": "250"})
    assert "runs/adapters/judge/TASK" in result.output and "--overwrite" in result.output


def test_an_unknown_judge_task_is_one_line() -> None:
    result = runner.invoke(app, ["train", "judge", "entails"])
    assert result.exit_code == 2
    assert "replaces, contradicts, reacts or poignant" in _one_error_line(result.output)


def test_a_start_adapter_that_is_not_there_is_one_line(tmp_path: Path) -> None:
    args = ["train", "judge", "contradicts", "--start-from", str(tmp_path / "none")]
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "--start-from" in _one_error_line(result.output)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("flag", ["--friendsqa", "--molweni"])
def test_a_malformed_dialogue_file_is_one_line_naming_file_and_field(
    tmp_path: Path, flag: str
) -> None:
    bad = tmp_path / "dialogues.json"
    bad.write_text('{"data": 3}')
    result = runner.invoke(
        app, ["train", "retriever", flag, str(bad), "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 2
    message = _one_error_line(result.output)
    assert "dialogues.json" in message and "'data'" in message
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(("model", "layers"), [("change-judge", "3"), ("reranker", "2")])
def test_a_teacher_that_is_not_there_is_one_line_before_any_mining(
    tmp_path: Path, model: str, layers: str
) -> None:
    args = ["train", model, "--distil-from", str(tmp_path / "none"), "--layers", layers]
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "--distil-from" in _one_error_line(result.output)
    assert not (tmp_path / "o").exists()
