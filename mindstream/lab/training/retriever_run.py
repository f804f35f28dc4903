"""The dialogue retriever's training job: pairs from the train chats and any public dialogue
files given, the dev chats for the curve, optional check files measured before and after
(never trained on), and the adapter with its report on disk."""

from __future__ import annotations

import time
from pathlib import Path

from rich.console import Console
from rich.progress import Progress

from mindstream.lab.experiments import truth_data
from mindstream.lab.experiments.report import table
from mindstream.lab.training import retriever_data as data
from mindstream.lab.training.retriever import (
    RetrieverTraining,
    recall_at,
    report_of,
    save,
    train,
)
from mindstream.lab.training.run import check_out

console = Console()


def run_retriever(
    out: Path,
    *,
    overwrite: bool,
    config: RetrieverTraining,
    friendsqa: list[Path],
    molweni: list[Path],
    openbookqa: Path | None,
    openbookqa_limit: int | None,
    check_friendsqa: Path | None,
    check_openbookqa: Path | None,
    threads: int,
) -> dict[str, object]:
    import torch

    from mindstream.lm.backends.embeddings import MiniLMEmbeddings

    check_out(out, overwrite)
    torch.set_num_threads(threads)
    stock = MiniLMEmbeddings(threads=threads, backend="torch").embed_array
    dialogues = {"chats (train)": data.from_chats(truth_data.split("train"))}
    dialogues |= {f"FriendsQA {p.name}": data.from_friendsqa(p) for p in friendsqa}
    dialogues |= {f"Molweni {p.name}": data.from_molweni(p) for p in molweni}
    if openbookqa is not None:
        dialogues["OpenBookQA train"] = data.from_openbookqa(openbookqa, openbookqa_limit)
    pairs = [pair for name, d in dialogues.items() for pair in data.mined(d, stock, name)]
    dev = data.from_chats(truth_data.split("dev"))
    checks = {"dev chats recall@10": dev}
    if check_friendsqa is not None:
        checks[f"FriendsQA {check_friendsqa.name} recall@1 (never trained on)"] = (
            data.from_friendsqa(check_friendsqa)
        )
    if check_openbookqa is not None:
        checks[f"OpenBookQA {check_openbookqa.name} recall@1 (among its questions' facts)"] = (
            data.from_openbookqa(check_openbookqa)
        )
    console.print(
        f"{len(pairs)} training pairs: "
        + ", ".join(f"{name} {sum(p.source == name for p in pairs)}" for name in dialogues)
    )
    started = time.perf_counter()
    with Progress(console=console) as progress:
        task = progress.add_task("training", total=None)
        encoder, curve = train(
            pairs,
            dev,
            config,
            lambda done, total: progress.update(task, completed=done, total=total),
            lambda p: console.print(
                f"step {p.step}: loss {p.loss:.3f}, dev recall@10 {p.heldout_accuracy:.3f}"
            ),
        )
    seconds = time.perf_counter() - started
    measured = {
        name: {
            "stock": recall_at(d, stock, _k(name)),
            "tuned": recall_at(d, encoder.embed, _k(name)),
        }
        for name, d in checks.items()
    }
    report = report_of(config, pairs, curve, measured, seconds)
    save(encoder.model, report, out)
    rows = [[name, f"{m['stock']:.3f}", f"{m['tuned']:.3f}"] for name, m in measured.items()]
    console.print(table(["check", "stock MiniLM", "tuned"], rows))
    console.print(f"{report.seconds} s, peak {report.peak_memory_mb} MB; written {out}")
    return report.model_dump(mode="json")


def _k(name: str) -> int:
    return 1 if "recall@1 " in name else 10
