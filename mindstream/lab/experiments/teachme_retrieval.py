"""TeachMe's Table A1 on OpenBookQA: recall of a question's gold fact when memory holds every
train core fact, indexed by the fact (F), the question (Q), question + fact (Q+F), or all the
questions that use the fact + the fact (relevant Qs + F); BM25, embeddings and hybrid."""

from __future__ import annotations

import time
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.progress import Progress

from mindstream.lab.experiments.openbookqa import (
    DEFAULT_DATA,
    Question,
    load_questions,
    normalise_fact,
)
from mindstream.lab.experiments.report import SECTIONS, table, write_section
from mindstream.memory import InMemoryStore, MemoryStream, RetrievalWeights, new_memory

if TYPE_CHECKING:
    from mindstream.compose import Parts

KS = (1, 2, 3, 5, 10)
MODES = ("bm25", "embedding", "hybrid")
PAPER_F_BM25 = {1: 31.0, 2: 39.2, 3: 44.2, 5: 51.0, 10: 58.8}


def documents(train: list[Question], indexing: str) -> list[tuple[str, str]]:
    """(text indexed, fact it stands for) for one way of indexing the train core facts."""
    by_fact: dict[str, list[Question]] = defaultdict(list)
    for q in train:
        by_fact[q.fact].append(q)
    if indexing == "F":
        return [(fact, fact) for fact in by_fact]
    if indexing == "Q":
        return [(q.stem, q.fact) for q in train]
    if indexing == "Q+F":
        return [(f"{q.stem} {q.fact}", q.fact) for q in train]
    if indexing == "relevant Qs + F":
        return [(" ".join([*(q.stem for q in qs), fact]), fact) for fact, qs in by_fact.items()]
    raise ValueError(f"unknown indexing {indexing!r}")


INDEXINGS = ("F", "Q", "Q+F", "relevant Qs + F")


def recall(stream: MemoryStream, questions: list[Question], mode: str) -> dict[int, float]:
    hits = dict.fromkeys(KS, 0)
    for q in questions:
        found = stream.retrieve(
            " ".join([q.stem, *q.choices]),
            40,
            owner="memory",
            mode=mode,  # type: ignore[arg-type]
            weights=RetrievalWeights.relevance_only(),
            touch=False,
        )
        facts = list(dict.fromkeys(normalise_fact(str(m.record.metadata["fact"])) for m in found))
        gold = normalise_fact(q.fact)
        for k in KS:
            hits[k] += gold in facts[:k]
    return {k: 100.0 * hits[k] / len(questions) for k in KS}


def run(
    data: Path = DEFAULT_DATA / "dev_complete.jsonl",
    train_file: Path = DEFAULT_DATA / "train_complete.jsonl",
    limit: int | None = None,
    parts: Parts | None = None,
    out: Path = SECTIONS,
) -> dict[str, Any]:
    """`data`: the questions (any OpenBookQA-format file); `train_file`: whose facts are memory."""
    if parts is None:
        raise ValueError("the retrieval experiment needs the configuration's parts")
    started = time.perf_counter()
    train = load_questions(train_file)
    questions = load_questions(data, limit)
    split = data.name
    results: dict[str, dict[str, dict[int, float]]] = {}
    with Progress() as progress:
        bar = progress.add_task("indexings x retrieval modes", total=len(INDEXINGS) * len(MODES))
        for indexing in INDEXINGS:
            stream = parts.stream(store=InMemoryStore())
            stream.add_many(
                [
                    new_memory(
                        text=text,
                        owner="memory",
                        kind="fact",
                        importance=1.0,
                        metadata={"fact": fact},
                    )
                    for text, fact in documents(train, indexing)
                ]
            )
            for mode in MODES:
                results.setdefault(indexing, {})[mode] = recall(stream, questions, mode)
                progress.advance(bar)
    command = f"mindstream eval teachme-retrieval --data {data} --train {train_file}" + (
        f" --limit {limit}" if limit else ""
    )
    covered = sum(
        normalise_fact(q.fact) in {normalise_fact(t.fact) for t in train} for q in questions
    )
    data_out = {
        "command": command,
        "questions": len(questions),
        "gold_fact_in_train": covered,
        "recall_percent": results,
        "paper_F_bm25": PAPER_F_BM25,
        "seconds": round(time.perf_counter() - started, 1),
    }
    rows = [["paper (BM25, F)", "BM25", *(f"{PAPER_F_BM25[k]:.1f}" for k in KS)]]
    rows += [
        [indexing, mode, *(f"{results[indexing][mode][k]:.1f}" for k in KS)]
        for indexing in INDEXINGS
        for mode in MODES
    ]
    markdown = f"""## TeachMe retrieval (Table A1), OpenBookQA {split}, {len(questions)} questions

Memory holds every train core fact ({len({q.fact for q in train})} distinct), indexed four ways;
the query is the question plus its answer choices; recall@k (%) of the question's gold fact.
{covered} of the {len(questions)} questions have their gold fact among the train facts at all, so
{100 * covered / len(questions):.1f}% is the ceiling. Wall time {data_out["seconds"]} s.

{table(["indexed by", "retrieval", *(f"R@{k}" for k in KS)], rows)}
"""
    write_section("teachme_retrieval", markdown, data_out, out)
    return data_out
