"""The `eval` command group and the options its commands share (split from `cli_eval` so
each command module stays small)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mindstream.lab.experiments.report import SECTIONS as DEFAULT_SECTIONS

app = typer.Typer(
    help="Run the experiments; results go to docs/results.md and docs/results/.",
    no_args_is_help=True,
)

DataOption = Annotated[
    Path, typer.Option("--data", help="The openbookqa folder (train/dev jsonl and openbook.txt).")
]

QuestionsOption = Annotated[
    Path, typer.Option("--data", help="Questions in the OpenBookQA jsonl format (any such file).")
]
TrainOption = Annotated[
    Path,
    typer.Option(
        "--train",
        help="OpenBookQA-format file whose questions the teacher goes through; their core "
        "facts are the memory of the upper bound.",
    ),
]
OutOption = Annotated[
    Path | None,
    typer.Option(help="Where the section, JSON and plot go (default runs/<experiment>)."),
]
DocsOption = Annotated[
    bool, typer.Option("--docs", help="Write into docs/results (the published figures).")
]


def results_dir(out: Path | None, docs: bool, name: str) -> Path:
    """Where an experiment writes: docs/results with --docs (a checkout only), else --out
    or runs/<name>."""
    if docs:
        from mindstream.lab.paths import in_checkout

        if not in_checkout():
            raise ValueError("--docs writes the published figures of a checkout; use --out DIR")
        return DEFAULT_SECTIONS
    return out or Path("runs") / name
