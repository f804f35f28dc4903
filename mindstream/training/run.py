"""The `train verifier` job: data, model, progress, the adapter and its report on disk."""

from __future__ import annotations

import time
from pathlib import Path

from rich.console import Console
from rich.progress import Progress

from lm.config import LocalModelConfig
from lm.loading import cached_smollm2_dir
from mindstream.experiments.openbookqa import DataError, load_questions
from mindstream.experiments.report import table
from mindstream.training.verifier import (
    CurvePoint,
    TrainingReport,
    VerifierTraining,
    peak_memory_mb,
    train_verifier,
    write_report,
)
from mindstream.training.verifier_data import entailmentbank_examples, openbookqa_examples

console = Console()


def run_training(
    openbookqa: Path,
    entailmentbank: Path,
    out: Path,
    epochs: float,
    top_layers: int,
    threads: int,
    limit: int | None,
    curve_questions: int = 200,
) -> TrainingReport:
    import random

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    settings = VerifierTraining(
        epochs=epochs, top_layers=top_layers, curve_questions=curve_questions
    )
    train_file = openbookqa / "train_complete.jsonl" if openbookqa.is_dir() else openbookqa
    if "dev" in train_file.name:
        raise DataError(f"{train_file}: the verifier never trains on dev")
    questions = load_questions(train_file)
    heldout = questions[len(questions) - settings.heldout :]
    used = questions[: len(questions) - settings.heldout][:limit]
    bank = entailmentbank_examples(entailmentbank, settings.seed)
    random.Random(settings.seed).shuffle(bank)
    bank = bank[: round(len(bank) * settings.entailmentbank_share)]
    if limit is not None:
        bank = bank[: 2 * limit]
    examples = openbookqa_examples(used, settings.seed) + bank
    counts: dict[str, int] = {}
    for example in examples:
        counts[example.source] = counts.get(example.source, 0) + 1
    console.print(table(["source", "examples"], [[k, str(v)] for k, v in counts.items()]))
    torch.set_num_threads(threads)
    base = cached_smollm2_dir(LocalModelConfig().cache_dir)
    tokenizer = AutoTokenizer.from_pretrained(str(base), local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(
        str(base), dtype=torch.float32, local_files_only=True
    )
    started = time.perf_counter()
    with Progress(console=console) as progress:
        task = progress.add_task("training the verifier", total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        def show(point: CurvePoint) -> None:
            progress.console.print(
                f"step {point.step:5d}  examples {point.examples:6d}  loss {point.loss:.3f}  "
                f"held-out gold-fact accuracy {point.heldout_accuracy:.1%}  ({point.seconds:.0f} s)"
            )

        trained, curve, precision = train_verifier(
            model,
            tokenizer,
            examples,
            heldout,
            settings,
            advance,
            show,
            lambda precision: progress.console.print(
                f"precision (measured faster here): {precision}"
            ),
        )
    out.mkdir(parents=True, exist_ok=True)
    trained.save_pretrained(str(out))
    report = TrainingReport(
        config=settings,
        examples=counts,
        precision=precision,
        threads=threads,
        curve=curve,
        seconds=round(time.perf_counter() - started, 1),
        peak_memory_mb=round(peak_memory_mb(), 1),
        heldout_ids=[q.id for q in heldout],
    )
    write_report(report, out)
    _plot(curve, out / "training.png")
    console.print(
        f"adapter in {out}: {report.seconds:.0f} s on {threads} threads ({precision}), "
        f"peak memory {report.peak_memory_mb:.0f} MB; curve in {out / 'training.png'}"
    )
    return report


def _plot(curve: list[CurvePoint], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, left = plt.subplots(figsize=(6, 4))
    left.plot([p.examples for p in curve], [100 * p.heldout_accuracy for p in curve], marker="o")
    left.set_xlabel("training examples seen")
    left.set_ylabel("held-out gold-fact accuracy (%)")
    right = left.twinx()
    right.plot([p.examples for p in curve[1:]], [p.loss for p in curve[1:]], color="grey", ls="--")
    right.set_ylabel("training loss (dashed)")
    left.set_title("verifier training (OpenBookQA train held-out slice)", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
