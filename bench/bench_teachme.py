"""Benchmark TeachMe's answering cost: seconds per question of `ask` without the verifier (the
likelihood proofs of before) and with it, the same questions and memory in the same run, plus
the verifier's load time and the process's peak memory. The training cost of the adapter is
read from the adapter's own training.json (written by `mindstream train verifier`).

    python bench/bench_teachme.py [--questions 30] [--facts 300]
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from mindstream.agents.teachme import TeachableReasoner
from mindstream.compose import Parts
from mindstream.lab.experiments.openbookqa import DEFAULT_DATA, load_questions
from mindstream.lm.judges.verifier import ADAPTER_DIR
from mindstream.memory import InMemoryStore, MemoryStream, new_memory

RESULTS = Path(__file__).parent / "results" / "teachme.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=30, help="dev questions answered")
    parser.add_argument("--facts", type=int, default=300, help="train core facts in memory")
    args = parser.parse_args()
    parts = Parts.load()
    dev = load_questions(DEFAULT_DATA / "dev_complete.jsonl", args.questions)
    train = load_questions(DEFAULT_DATA / "train_complete.jsonl")
    facts = list({q.fact: (q.id, q.fact) for q in train}.values())[: args.facts]
    started = time.perf_counter()
    verifier = parts.models.verifier
    parts.models.ready("verifier")
    load_seconds = time.perf_counter() - started
    judge = parts.models.judge  # rules choices out; loaded before timing
    figures: dict[str, object] = {
        "questions": len(dev),
        "facts_in_memory": len(facts),
        "threads": parts.config.model.local.threads,
        "verifier_load_seconds": round(load_seconds, 2),
    }
    stream = MemoryStream(InMemoryStore(), parts.models.embedder)
    stream.add_many(
        [new_memory(text=f, owner="user", kind="fact", importance=8.0) for _, f in facts]
    )
    for label, use in (("without verifier", None), ("with verifier", verifier)):
        # no memo: every question pays in full, as `mindstream ask` does
        config = parts.config.teachme.model_copy(update={"retrieve_k": 5})
        reasoner = TeachableReasoner(
            stream,
            parts.scorer_for("teachme"),
            config=config,
            verifier=use,
            judge=judge if use is not None else None,
        )
        reasoner.answer(dev[0].stem, dev[0].choices)  # warm-up
        start = time.perf_counter()
        for q in dev:
            reasoner.answer(q.stem, q.choices)
        figures[f"seconds_per_question {label}"] = round(
            (time.perf_counter() - start) / len(dev), 3
        )
    figures["peak_memory_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    training = ADAPTER_DIR / "training.json"
    if training.is_file():
        report = json.loads(training.read_text())
        figures["training_seconds"] = report["seconds"]
        figures["training_peak_memory_mb"] = report["peak_memory_mb"]
        figures["training_threads"] = report["threads"]
    RESULTS.write_text(json.dumps(figures, indent=1))
    table = Table("measure", "value", title="TeachMe cost on this machine")
    for key, value in figures.items():
        table.add_row(key, str(value))
    Console().print(table)


if __name__ == "__main__":
    main()
