"""`mindstream train`: the embedded model's adapters, reproducible from the training splits."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lm.config import VERIFIER_ADAPTER_DIR
from mindstream.cli_support import clean_errors

app = typer.Typer(
    help="Train the embedded model's adapters (train splits only; dev is never read)."
)

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


@app.command()
@clean_errors
def verifier(
    openbookqa: Annotated[Path, typer.Option(help="folder with train_complete.jsonl")] = SHARED
    / "openbookqa",
    entailmentbank: Annotated[
        Path, typer.Option(help="EntailmentBank train.angles.jsonl (task_2 has distractors)")
    ] = SHARED / "entailmentbank" / "task_2" / "train.angles.jsonl",
    out: Annotated[
        Path, typer.Option(help="where the adapter goes (default: the one TeachMe loads)")
    ] = VERIFIER_ADAPTER_DIR,
    epochs: Annotated[
        float, typer.Option(help="passes over the examples (may be fractional)")
    ] = 1.0,
    top_layers: Annotated[int, typer.Option(help="LoRA on the last N of 30 layers")] = 16,
    threads: Annotated[int, typer.Option(help="torch threads")] = 2,
    limit: Annotated[
        int | None, typer.Option(help="OpenBookQA train questions used (a quick trial)")
    ] = None,
    curve_questions: Annotated[
        int, typer.Option(help="held-out questions scored at each curve point")
    ] = 200,
) -> None:
    """Fine-tune the entailment verifier (LoRA on SmolLM2-135M) and print its curve.

    The held-out curve is the gold-fact oracle on the last 500 OpenBookQA train questions,
    which training never sees; TeachMe's thresholds are measured there too.
    """
    from mindstream.training.run import run_training

    run_training(
        openbookqa, entailmentbank, out, epochs, top_layers, threads, limit, curve_questions
    )
