"""`mindstream eval long-memory`: evidence recall@5/10/25 per category for relevance-only
retrieval (embedding, BM25, hybrid), the Park default and the assistant's policy; ingestion
memories/s and ms/query; with `answer`, the model's answers scored against the gold ones."""

from __future__ import annotations

import time
from collections import defaultdict
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from rich.progress import Progress

from mindstream.lab.experiments.long_memory import Question, Sample
from mindstream.lab.experiments.long_memory_chats import load_any
from mindstream.lab.experiments.report import table, write_section
from mindstream.lm import complete_batch
from mindstream.lm.judges.reranker import trained_candidates
from mindstream.memory import (
    InMemoryStore,
    ManualClock,
    MemoryRecord,
    MemoryStream,
    RetrievalWeights,
    StreamConfig,
)
from mindstream.memory import new_memory as make_memory

if TYPE_CHECKING:
    from mindstream.agents.assistant.config import AssistantConfig
    from mindstream.compose import Parts

KS = (5, 10, 25)
IN_PROMPT = "assistant default, with what its memories replaced (as its prompt shows them)"
CHANGED_K = 10  # a changed fact is right when its current turn is in the top 10, above the old
assert CHANGED_K in KS


STOCK = " (stock MiniLM)"  # a policy on the stock embedder, beside the tuned default
NO_RERANKER = "assistant, no reranker"  # these two recall as the assistant does
WITH_RERANKER = "assistant, with the reranker"


def variants(assistant: StreamConfig, tuned: bool) -> dict[str, StreamConfig]:
    """The policies compared; with the tuned embedder configured, embedding alone and the
    assistant default also on the stock model without a reranker (the baseline, in the same
    run); the assistant with the reranker when its policy has none, without it otherwise."""
    only = RetrievalWeights.relevance_only()
    plain = assistant.model_copy(update={"rerank": None})
    stock = (
        {
            f"embedding (relevance only){STOCK}": StreamConfig(mode="embedding", weights=only),
            f"assistant default{STOCK}": plain,
        }
        if tuned
        else {}
    )
    reranked = assistant.model_copy(update={"rerank": trained_candidates()})
    other = {NO_RERANKER: plain} if assistant.rerank is not None else {WITH_RERANKER: reranked}
    return (
        stock
        | {
            "embedding (relevance only)": StreamConfig(mode="embedding", weights=only),
            "BM25 (relevance only)": StreamConfig(mode="bm25", weights=only),
            "hybrid (relevance only)": StreamConfig(mode="hybrid", weights=only),
            "Park default (equal weights, hours)": StreamConfig(),
            "assistant, no change detection": assistant.with_changes(enabled=False),
        }
        | other
        | {"assistant default": assistant}
    )


class Tally:
    """Recall sums per category, changed-fact verdicts and query time of one policy."""

    def __init__(self) -> None:
        self.recall: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
        self.changed: list[bool] = []
        self.changed_rows: list[dict[str, Any]] = []
        self.per_sample: dict[str, list[float]] = defaultdict(list)  # R@10 per conversation
        self.seconds = 0.0
        self.queries = 0

    def add(self, question: Question, ranked: dict[int, list[str]], sample: str) -> None:
        """`ranked[k]`: the ids a retrieval of k memories returned, best first."""
        for k in KS:
            found = len(set(question.evidence) & set(ranked[k])) / len(question.evidence)
            for name in (question.category, "all"):
                self.recall[name][k].append(found)
            if k == CHANGED_K:
                self.per_sample[sample].append(found)
        if question.outdated:
            right, current, stale = _current_first(question, ranked[CHANGED_K])
            self.changed.append(right)
            self.changed_rows.append(
                {"question": question.question, "right": right, "current": current, "old": stale}
            )

    def summary(self) -> dict[str, Any]:
        return {
            "recall": {
                c: {k: float(np.mean(v)) for k, v in by_k.items()}
                for c, by_k in self.recall.items()
            },
            "questions": {c: len(by_k[KS[0]]) for c, by_k in self.recall.items()},
            "changed_right": sum(self.changed),
            "changed_total": len(self.changed),
            "changed": self.changed_rows,
            "per_conversation": {name: float(np.mean(v)) for name, v in self.per_sample.items()},
            "ms_per_query": 1000 * self.seconds / max(self.queries, 1),
        }


def _current_first(question: Question, ranked: list[str]) -> tuple[bool, int | None, int | None]:
    """Whether the current fact's turn is in the top `CHANGED_K` and above every outdated
    turn; and the 1-based ranks of the current and the best outdated turn (None: not there)."""
    position = {dia_id: n for n, dia_id in enumerate(ranked)}
    current = min((position[e] for e in question.evidence if e in position), default=None)
    stale = min((position[e] for e in question.outdated if e in position), default=None)
    right = current is not None and (stale is None or current < stale)
    return right, None if current is None else current + 1, None if stale is None else stale + 1


def run(
    data: Path,
    out: Path,
    parts: Parts,
    importance: float | None = None,
    answer: bool = False,
) -> dict[str, Any]:
    started = time.perf_counter()
    samples, skipped = load_any(data)
    if not samples:
        raise ValueError(f"{data}: no usable sample ({dict(skipped) or 'empty'})")
    stock = _stock_embedder(parts)
    policies = variants(parts.config.assistant.stream, tuned=stock is not None)
    tallies = {name: Tally() for name in [*policies, IN_PROMPT]}
    ingestion = {"memories": 0, "seconds": 0.0}
    answers: list[dict[str, Any]] = []
    with Progress() as progress:
        for sample in samples:
            streams, seconds = _ingest(sample, policies, parts, importance, progress, stock)
            ingestion["memories"] += len(sample.turns)
            ingestion["seconds"] += seconds
            _ask(sample, streams, tallies, progress, parts.config.assistant)
            if answer:
                answers += _answers(sample, streams["assistant default"], parts, progress)
    result = _result(data, samples, skipped, tallies, ingestion, answers, parts, importance)
    result["seconds"] = round(time.perf_counter() - started, 1)
    section = "long_memory" if data.suffix == ".json" else f"long_memory_{data.stem}"
    write_section(section, _markdown(result), result, out)
    return result


def _stock_embedder(parts: Parts) -> Any:
    """The stock MiniLM when the configured embedder is the tuned one, else None."""
    from mindstream.lm.backends.embeddings import MiniLMEmbeddings

    configured = parts.models.embedder
    if not isinstance(configured, MiniLMEmbeddings) or configured.adapter is None:
        return None
    return MiniLMEmbeddings(threads=configured.threads, cache_dir=configured.cache_dir)


def _ingest(
    sample: Sample,
    policies: dict[str, StreamConfig],
    parts: Parts,
    importance: float | None,
    progress: Progress,
    stock: Any = None,
) -> tuple[dict[str, MemoryStream], float]:
    """Embed (and rate) every turn once; the same memories go into one stream per policy
    (the stock-model policies get the stock model's vectors)."""
    task = progress.add_task(f"ingest {sample.sample_id}", total=len(sample.turns))
    texts = [t.memory_text for t in sample.turns]
    start = time.perf_counter()
    vectors, ratings = [], []
    for first in range(0, len(texts), 64):
        chunk = texts[first : first + 64]
        vectors.append(parts.models.embedder.embed_array(chunk))
        ratings += [importance] * len(chunk) if importance else parts.rater()(chunk)
        progress.advance(task, len(chunk))
    embeddings = np.concatenate(vectors)
    spent = time.perf_counter() - start
    now = max(t.at for t in sample.turns) + timedelta(days=1)
    stock_vectors = stock.embed_array(texts) if stock is not None else None
    streams = {}
    for name, policy in policies.items():
        on_stock = name.endswith(STOCK)
        stream = parts.stream(
            store=InMemoryStore(),
            clock=ManualClock(now),
            policy=policy,
            embedder=stock if on_stock else None,
        )
        added = time.perf_counter()
        stream.add_many(_memories(sample, ratings), stock_vectors if on_stock else embeddings)
        streams[name] = stream
        if name == "assistant default":
            spent += time.perf_counter() - added
    for stream in streams.values():
        stream.settle()  # change detection has judged every turn before a question is asked
    return streams, spent


def _memories(sample: Sample, ratings: list[float]) -> list[Any]:
    return [
        make_memory(
            text=t.memory_text,
            owner=sample.sample_id,
            kind="dialogue",
            importance=rating,
            created_at=t.at,
            recall=t.recalled,
            metadata={"dia_id": t.dia_id},
        )
        for t, rating in zip(sample.turns, ratings, strict=True)
    ]


def _ask(
    sample: Sample,
    streams: dict[str, MemoryStream],
    tallies: dict[str, Tally],
    progress: Progress,
    assistant: AssistantConfig,
) -> None:
    """Each policy's top k (the assistant's with superseded memories as history, as it
    recalls); the assistant's also as its prompt shows it: each recalled memory followed by
    the memories it superseded."""
    shown = assistant.replaced_shown
    task = progress.add_task(f"questions {sample.sample_id}", total=len(sample.questions))
    for question in sample.questions:
        for name, stream in streams.items():
            ranked, context = {}, {}
            history = name.startswith(("assistant default", NO_RERANKER, WITH_RERANKER))
            history = history and assistant.recall_replaced
            for k in KS:  # a gated policy's top 5 is not the head of its top 25
                start = time.perf_counter()
                found = stream.retrieve(
                    question.question,
                    k,
                    owner=sample.sample_id,
                    touch=False,
                    with_replaced=history,
                )
                tallies[name].seconds += time.perf_counter() - start
                tallies[name].queries += 1
                ranked[k] = [_turn(m.record) for m in found]
                context[k] = [
                    _turn(r)
                    for m in found
                    for r in (m.record, *stream.replaced_by(m.record, shown))
                ]
            tallies[name].add(question, ranked, sample.sample_id)
            if name == "assistant default":
                tallies[IN_PROMPT].add(question, context, sample.sample_id)
        progress.advance(task)


def _turn(record: MemoryRecord) -> str:
    return str(record.metadata["dia_id"])


def _answers(
    sample: Sample, stream: MemoryStream, parts: Parts, progress: Progress
) -> list[dict[str, Any]]:
    """The assistant's answer to every question from the memories it retrieves."""
    from mindstream.agents.assistant import answer_prompt

    task = progress.add_task(f"answers {sample.sample_id}", total=len(sample.questions))
    config = parts.config.assistant
    rows = []
    for first in range(0, len(sample.questions), 8):
        chunk = sample.questions[first : first + 8]
        prompts = [
            answer_prompt(
                q.question,
                stream.retrieve(q.question, config.k, owner=sample.sample_id, touch=False),
            )
            for q in chunk
        ]
        replies = complete_batch(parts.models.chat, prompts, "answer", max_tokens=config.max_tokens)
        for q, text in zip(chunk, replies, strict=True):
            rows.append({"category": q.category, "f1": token_f1(text, q.answer), "reply": text})
        progress.advance(task, len(chunk))
    return rows


def token_f1(prediction: str, gold: str) -> float:
    """Token-overlap F1 of normalised words (the measure of SQuAD and LoCoMo)."""
    predicted, expected = _words(prediction), _words(gold)
    common = sum(min(predicted.count(w), expected.count(w)) for w in set(expected))
    if not predicted or not expected or not common:
        return 0.0
    precision, recall = common / len(predicted), common / len(expected)
    return 2 * precision * recall / (precision + recall)


def _words(text: str) -> list[str]:
    import re

    stop = {"a", "an", "the", "and", "of", "in", "on", "at", "to", "is", "was"}
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in stop]


def _result(
    data: Path,
    samples: list[Sample],
    skipped: Any,
    tallies: dict[str, Tally],
    ingestion: dict[str, float],
    answers: list[dict[str, Any]],
    parts: Parts,
    importance: float | None,
) -> dict[str, Any]:
    by_category: dict[str, list[float]] = defaultdict(list)
    for row in answers:
        by_category[row["category"]].append(row["f1"])
        by_category["all"].append(row["f1"])
    command = (
        f"mindstream eval long-memory --data {data}"
        + (f" --importance {importance:g}" if importance else "")
        + (" --answer" if answers else "")
    )
    return {
        "command": command,
        "model": parts.config.model.spec,
        "importance": importance if importance else "rated by the model",
        "samples": len(samples),
        "turns": sum(len(s.turns) for s in samples),
        "questions": sum(len(s.questions) for s in samples),
        "skipped": dict(skipped),
        "policies": {name: t.summary() for name, t in tallies.items()},
        "assistant_policy": parts.config.assistant.stream.model_dump(mode="json"),
        "ingestion_memories_per_s": ingestion["memories"] / max(ingestion["seconds"], 1e-9),
        "answer_f1": {c: float(np.mean(v)) for c, v in by_category.items()},
        "answer_examples": answers[:5],
    }


def _markdown(result: dict[str, Any]) -> str:
    policies = result["policies"]
    categories = sorted(c for c in next(iter(policies.values()))["recall"] if c != "all")
    header = ["policy", *(f"R@{k}" for k in KS), *(f"R@10 {c}" for c in categories)]
    header += ["changed facts right", "ms/query"]
    rows = []
    for name, p in policies.items():
        recall = p["recall"]
        rows.append(
            [
                name,
                *(f"{recall['all'][k]:.2f}" for k in KS),
                *(f"{recall[c][10]:.2f}" for c in categories),
                f"{p['changed_right']}/{p['changed_total']}",
                f"{p['ms_per_query']:.1f}" if p["ms_per_query"] else "-",
            ]
        )
    counts = ", ".join(
        f"{c} {n}" for c, n in sorted(next(iter(policies.values()))["questions"].items())
    )
    skipped = result["skipped"] or "nothing"
    answers = (
        "Answers (assistant default, token F1 against the gold answer): "
        + ", ".join(f"{c} {v:.2f}" for c, v in sorted(result["answer_f1"].items()))
        if result["answer_f1"]
        else "Answers were not generated (`--answer` does)."
    )
    size = f"{result['samples']} conversation(s), {result['turns']} turns, {result['questions']}"
    return f"""## Long-term memory: evidence recall ({size} questions)

Every turn is a memory at its session's time (importance: {result["importance"]}); every question
is asked a day after the last session. R@k: share of a question's evidence turns among the top k.
A changed fact is right when its current turn is in the top {CHANGED_K} and above every turn
that stated the old fact. Questions: {counts}. Skipped while reading: {skipped}. Ingestion
{result["ingestion_memories_per_s"]:.1f} memories/s (embedding and rating); whole run
{result.get("seconds", 0)} s. Assistant policy: `{result["assistant_policy"]}`.

{table(header, rows)}

{_per_conversation(policies)}

Changed facts under the assistant default (rank of the current turn / of the old one among
the top {CHANGED_K}; "-": not there):

{_changed_rows(policies["assistant default"]["changed"])}

{answers}
"""


def _changed_rows(rows: list[dict[str, Any]]) -> str:
    def rank(value: int | None) -> str:
        return "-" if value is None else str(value)

    return table(
        ["question", "current", "old", "right"],
        [
            [r["question"], rank(r["current"]), rank(r["old"]), "yes" if r["right"] else "no"]
            for r in rows
        ],
    )


def _per_conversation(policies: dict[str, Any]) -> str:
    """R@10 of each conversation under relevance-only embedding and the assistant default."""
    shown = [
        n
        for n in (
            f"embedding (relevance only){STOCK}",
            f"assistant default{STOCK}",
            "embedding (relevance only)",
            "hybrid (relevance only)",
            "assistant default",
        )
        if n in policies
    ]
    names = list(policies["assistant default"]["per_conversation"])
    rows = [[n, *(f"{policies[p]['per_conversation'][n]:.2f}" for p in shown)] for n in names]
    return "R@10 per conversation:\n\n" + table(["conversation", *shown], rows)
