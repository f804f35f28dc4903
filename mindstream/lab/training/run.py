"""Training jobs: data, model, progress, the adapter and its report on disk.

An adapter's folder holds `adapter_config.json`, the weights, `training.json` and the curve
(`training.png`). A job never writes over an adapter that is there unless asked (`overwrite`),
so a trial run cannot replace the one the package ships.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel
from rich.console import Console
from rich.progress import Progress

from mindstream.lab.experiments.openbookqa import DataError, load_questions
from mindstream.lab.experiments.report import table
from mindstream.lab.training.adapter import (
    CurvePoint,
    Hooks,
    peak_memory_mb,
    plot_curve,
    write_report,
)
from mindstream.lm.backends.loading import cached_smollm2_dir
from mindstream.lm.config import LocalModelConfig

if TYPE_CHECKING:
    import torch

console = Console()


class AdapterExistsError(ValueError):
    """The output folder already holds an adapter and overwriting was not asked for."""


def check_out(out: Path, overwrite: bool) -> None:
    if (out / "adapter_config.json").is_file() and not overwrite:
        raise AdapterExistsError(
            f"{out}: holds an adapter already; pass --overwrite to replace it, "
            "or --out with another folder"
        )


def check_start(start_from: Path | None, flag: str = "--start-from") -> None:
    if start_from is not None and not (start_from / "adapter_config.json").is_file():
        raise FileNotFoundError(f"{flag} {start_from}: holds no adapter_config.json")


def count_sources(sources: Sequence[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for source in sources:
        counts[source] = counts.get(source, 0) + 1
    console.print(table(["source", "examples"], [[k, str(v)] for k, v in counts.items()]))
    return counts


def load_base(threads: int) -> tuple[torch.nn.Module, object]:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.set_num_threads(threads)
    base = cached_smollm2_dir(LocalModelConfig().cache_dir)
    tokenizer = AutoTokenizer.from_pretrained(str(base), local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(
        str(base), dtype=torch.float32, local_files_only=True
    )
    return model, tokenizer


Train = Callable[[Hooks], "tuple[torch.nn.Module, list[CurvePoint], str]"]


def run_with_progress(what: str, measure: str, train: Train) -> tuple[object, list, str, float]:
    """Run `train` under a progress bar, printing each curve point; (model, curve, precision,
    seconds)."""
    started = time.perf_counter()
    with Progress(console=console) as progress:
        task = progress.add_task(f"training {what}", total=None)

        def show(point: CurvePoint) -> None:
            progress.console.print(
                f"step {point.step:5d}  examples {point.examples:6d}  loss {point.loss:.3f}  "
                f"{measure} {point.heldout_accuracy:.1%}  ({point.seconds:.0f} s)"
            )

        hooks = Hooks(
            progress=lambda done, total: progress.update(task, completed=done, total=total),
            log=show,
            log_precision=lambda p: progress.console.print(f"precision (measured faster): {p}"),
        )
        trained, curve, precision = train(hooks)
    return trained, curve, precision, round(time.perf_counter() - started, 1)


def save(trained: object, report: BaseModel, out: Path, title: str, measure: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    trained.save_pretrained(str(out))  # type: ignore[attr-defined]
    write_report(report, out)
    plot_curve(report.curve, out / "training.png", title, measure)  # type: ignore[attr-defined]
    console.print(
        f"adapter in {out}: {report.seconds:.0f} s ({report.precision}), "  # type: ignore[attr-defined]
        f"peak memory {report.peak_memory_mb:.0f} MB; curve in {out / 'training.png'}"  # type: ignore[attr-defined]
    )


def run_training(
    openbookqa: Path,
    entailmentbank: Path,
    out: Path,
    epochs: float,
    top_layers: int,
    threads: int,
    limit: int | None,
    curve_questions: int = 200,
    overwrite: bool = False,
    negated_share: float = 0.25,
) -> BaseModel:
    """The verifier job (`mindstream train verifier`)."""
    from mindstream.lab.training.verifier import TrainingReport, VerifierTraining, train_verifier
    from mindstream.lab.training.verifier_data import entailmentbank_examples, openbookqa_examples

    check_out(out, overwrite)
    settings = VerifierTraining(
        epochs=epochs,
        top_layers=top_layers,
        curve_questions=curve_questions,
        negated_share=negated_share,
    )
    train_file = openbookqa / "train_complete.jsonl" if openbookqa.is_dir() else openbookqa
    if "dev" in train_file.name:
        raise DataError(f"{train_file}: the verifier never trains on dev")
    questions = load_questions(train_file, flag="--openbookqa")
    if len(questions) <= settings.heldout:
        raise DataError(
            f"{train_file}: {len(questions)} questions, but the last {settings.heldout} are "
            "held out for the curve; more are needed to train"
        )
    heldout = questions[len(questions) - settings.heldout :]
    used = questions[: len(questions) - settings.heldout][:limit]
    bank = entailmentbank_examples(entailmentbank, settings.seed)
    random.Random(settings.seed).shuffle(bank)
    bank = bank[: round(len(bank) * settings.entailmentbank_share)]
    if limit is not None:
        bank = bank[: 2 * limit]
    examples = openbookqa_examples(used, settings.seed, settings.negated_share) + bank
    counts = count_sources([e.source for e in examples])
    model, tokenizer = load_base(threads)
    measure = "held-out gold-fact accuracy"
    trained, curve, precision, seconds = run_with_progress(
        "the verifier",
        measure,
        lambda hooks: train_verifier(model, tokenizer, examples, heldout, settings, hooks),
    )
    report = TrainingReport(
        config=settings,
        examples=counts,
        precision=precision,
        threads=threads,
        curve=curve,
        seconds=seconds,
        peak_memory_mb=round(peak_memory_mb(), 1),
        heldout_ids=[q.id for q in heldout],
    )
    save(trained, report, out, "verifier training (OpenBookQA train held-out slice)", measure)
    return report


def run_judge_training(
    openbookqa: Path,
    entailmentbank: Path | None,
    catalogue_file: Path,
    out: Path,
    settings: BaseModel,
    threads: int,
    overwrite: bool = False,
) -> BaseModel:
    """One question of the relation judge (`mindstream train judge TASK`)."""
    from mindstream.lab.training.judge import (
        JudgeReport,
        JudgeTraining,
        build_examples,
        load_train_questions,
        measure,
        train_judge,
    )
    from mindstream.lab.training.judge_data import load_catalogue

    assert isinstance(settings, JudgeTraining)
    check_out(out, overwrite)
    check_start(settings.start_from)
    catalogue = load_catalogue(catalogue_file)
    questions = load_train_questions(openbookqa)
    examples, held = build_examples(catalogue, questions, entailmentbank, settings)
    counts = count_sources([e.source for e in examples])
    model, tokenizer = load_base(threads)
    what = {
        "replaces": "held-out balanced accuracy (slots never trained on)",
        "contradicts": "held-out: the denied claim ranked first",
        "reacts": "held-out balanced accuracy (objects and states never trained on)",
        "poignant": "held-out balanced accuracy (events, chores and states never trained on)",
    }[settings.task]
    trained, curve, precision, seconds = run_with_progress(
        f"the judge ({settings.task})",
        what,
        lambda hooks: train_judge(model, tokenizer, examples, held, settings, hooks),
    )
    final = measure(trained, tokenizer, settings.task, held, precision)
    console.print(", ".join(f"{k} {v:.3g}" for k, v in final.items() if "caught at" not in k))
    report = JudgeReport(
        config=settings,
        examples=counts,
        precision=precision,
        threads=threads,
        curve=curve,
        final=final,
        seconds=seconds,
        peak_memory_mb=round(peak_memory_mb(), 1),
    )
    title = f"relation judge, {settings.task} (held-out slots or questions)"
    save(trained, report, out, title, what)
    return report
