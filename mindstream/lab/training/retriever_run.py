"""The dialogue retriever's and the reranker's training jobs: pairs from the train chats and any
public dialogue files given, the dev chats for the curve, optional check files measured before
and after (never trained on), and the adapter with its report on disk."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from rich.console import Console
from rich.progress import Progress

from mindstream.lab.experiments import truth_data
from mindstream.lab.experiments.report import table
from mindstream.lab.training import retriever_data as data
from mindstream.lab.training.adapter import CurvePoint, peak_memory_mb
from mindstream.lab.training.reranker import (
    RerankerReport,
    RerankerTraining,
    Scores,
    recall_reranked,
)
from mindstream.lab.training.reranker import save as save_reranker
from mindstream.lab.training.reranker import train as train_reranker
from mindstream.lab.training.retriever import (
    RetrieverTraining,
    recall_at,
    report_of,
    save,
    train,
)
from mindstream.lab.training.run import check_out, check_start

console = Console()
T = TypeVar("T")


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
    dialogues = training_dialogues(friendsqa, molweni, openbookqa, openbookqa_limit)
    pairs = mined_pairs(dialogues, stock)
    dev = data.from_chats(truth_data.split("dev"))
    checks = {"dev chats recall@10": dev} | check_dialogues(check_friendsqa, check_openbookqa)
    (encoder, curve), seconds = _trained(lambda step, log: train(pairs, dev, config, step, log))
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


def training_dialogues(
    friendsqa: list[Path], molweni: list[Path], openbookqa: Path | None, limit: int | None
) -> dict[str, list[data.Dialogue]]:
    """The train chats and the public dialogue files given, by source name."""
    dialogues = {"chats (train)": data.from_chats(truth_data.split("train"))}
    dialogues |= {f"FriendsQA {p.name}": data.from_friendsqa(p) for p in friendsqa}
    dialogues |= {f"Molweni {p.name}": data.from_molweni(p) for p in molweni}
    if openbookqa is not None:
        dialogues["OpenBookQA train"] = data.from_openbookqa(openbookqa, limit)
    return dialogues


def mined_pairs(dialogues: dict[str, list[data.Dialogue]], embed: data.Embed) -> list[data.Pair]:
    pairs = [pair for name, d in dialogues.items() for pair in data.mined(d, embed, name)]
    console.print(
        f"{len(pairs)} training pairs: "
        + ", ".join(f"{name} {sum(p.source == name for p in pairs)}" for name in dialogues)
    )
    return pairs


def check_dialogues(
    friendsqa: Path | None, openbookqa: Path | None
) -> dict[str, list[data.Dialogue]]:
    """Files measured before and after, never trained on."""
    checks = {}
    if friendsqa is not None:
        checks[f"FriendsQA {friendsqa.name} recall@1 (never trained on)"] = data.from_friendsqa(
            friendsqa
        )
    if openbookqa is not None:
        checks[f"OpenBookQA {openbookqa.name} recall@1 (among its questions' facts)"] = (
            data.from_openbookqa(openbookqa)
        )
    return checks


def run_reranker(
    out: Path,
    *,
    overwrite: bool,
    config: RerankerTraining,
    friendsqa: list[Path],
    molweni: list[Path],
    openbookqa: Path | None,
    openbookqa_limit: int | None,
    check_friendsqa: Path | None,
    threads: int,
    distil_from: Path | None = None,
) -> dict[str, object]:
    """The reranker on the same pairs as the retriever, its negatives mined by the tuned
    retriever (the candidates it will be shown); with `distil_from`, also taught that
    reranker's scores."""
    import torch

    from mindstream.lm.backends.embeddings import RETRIEVER_DIR, MiniLMEmbeddings

    check_out(out, overwrite)
    check_start(distil_from, "--distil-from")
    torch.set_num_threads(threads)
    teacher = _teacher(distil_from, threads) if distil_from and config.distil else None
    tuned = MiniLMEmbeddings(threads=threads, backend="torch", adapter=RETRIEVER_DIR).embed_array
    dialogues = training_dialogues(friendsqa, molweni, openbookqa, openbookqa_limit)
    pairs = mined_pairs(dialogues, tuned)
    dev = data.from_chats(truth_data.split("dev"))
    checks = {"dev chats recall@10": dev} | check_dialogues(check_friendsqa, None)
    (encoder, curve), seconds = _trained(
        lambda step, log: train_reranker(pairs, dev, tuned, config, step, log, teacher)
    )
    measured = {
        name: {
            "retriever": recall_reranked(d, tuned, None, config, _k(name)),
            "reranked": recall_reranked(d, tuned, encoder.scores, config, _k(name)),
        }
        for name, d in checks.items()
    }
    report = RerankerReport(
        config=config,
        examples=len(pairs),
        by_source={name: sum(p.source == name for p in pairs) for name in dialogues},
        curve=curve,
        checks=measured,
        seconds=round(seconds, 1),
        peak_memory_mb=round(peak_memory_mb(), 1),
    )
    save_reranker(encoder, report, out)
    rows = [[name, f"{m['retriever']:.3f}", f"{m['reranked']:.3f}"] for name, m in measured.items()]
    console.print(table(["check", "tuned retriever", "reranked"], rows))
    console.print(f"{report.seconds} s, peak {report.peak_memory_mb} MB; written {out}")
    return report.model_dump(mode="json")


def _trained(
    run: Callable[[Callable[[int, int], None], Callable[[CurvePoint], None]], T],
) -> tuple[T, float]:
    """`run(step, log)` under a progress bar, each curve point printed; its result and
    seconds."""
    started = time.perf_counter()
    with Progress(console=console) as progress:
        task = progress.add_task("training", total=None)
        result = run(
            lambda done, total: progress.update(task, completed=done, total=total),
            lambda p: console.print(
                f"step {p.step}: loss {p.loss:.3f}, dev recall@10 {p.heldout_accuracy:.3f}"
            ),
        )
    return result, time.perf_counter() - started


def _k(name: str) -> int:
    return 1 if "recall@1 " in name else 10


def _teacher(folder: Path, threads: int) -> Scores:
    """A trained reranker's scores (its exported graph), for a smaller one to learn."""
    from mindstream.lm.judges.reranker import load_reranker

    return load_reranker(folder, threads=threads).scores
