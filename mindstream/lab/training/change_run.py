"""The change judge's training job: data from the train and dev conversations, a progress bar,
the adapter and its report (`training.json`, curve) on disk."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.progress import Progress

from mindstream.lab.experiments import truth_data
from mindstream.lab.experiments.report import table
from mindstream.lab.training import change_data
from mindstream.lab.training.change_judge import ChangeJudgeTraining, train, write_report
from mindstream.lab.training.run import check_out

console = Console()


def run_change_judge(
    out: Path,
    *,
    overwrite: bool,
    epochs: float,
    learning_rate: float,
    rank: int,
    templates: int,
    hand: Path | None,
    threads: int,
) -> dict[str, object]:
    import torch

    from mindstream.lm.backends.embeddings import MiniLMEmbeddings

    check_out(out, overwrite)
    torch.set_num_threads(threads)
    embed = MiniLMEmbeddings(threads=threads).embed_array
    examples = change_data.build(
        truth_data.split("train"), embed, templates=templates, hand=hand or change_data.HAND
    )
    dev = [e for c in truth_data.split("dev") for e in change_data.mined(c, embed)]
    config = ChangeJudgeTraining(
        epochs=epochs, learning_rate=learning_rate, rank=rank, alpha=2 * rank
    )
    console.print(f"{len(examples)} training pairs, {len(dev)} dev pairs")
    with Progress(console=console) as progress:
        task = progress.add_task("training", total=None)
        report = train(
            examples,
            dev,
            out,
            config,
            lambda done, total: progress.update(task, completed=done, total=total),
            lambda point: console.print(
                f"step {point['step']}: loss {point['loss']:.3f}, dev AUC {point['auc']:.3f}, "
                f"P/R at 0.5 {point['precision_at']['0.5']}/{point['recall_at']['0.5']}"
            ),
        )
    write_report(report, out)
    rows = [
        [
            p["step"],
            f"{p['loss']:.3f}",
            f"{p['auc']:.3f}",
            p["precision_at"]["0.9"],
            p["recall_at"]["0.9"],
        ]
        for p in report["curve"]
    ]
    console.print(table(["step", "loss", "dev AUC", "P@0.9", "R@0.9"], rows))
    console.print(
        f"temperature {report['temperature']}, {report['seconds']} s, "
        f"peak {report['peak_memory_mb']} MB; written {out}"
    )
    return report
