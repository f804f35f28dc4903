"""`mindstream demo`: a short tour of the model layer and the memory stream, on the configured
model (the embedded one by default), with its timings and model-call accounting. `make demo`
runs the main job, a town simulation."""

from __future__ import annotations

import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from rich.table import Table

from mindstream.cli_support import console
from mindstream.compose import Parts
from mindstream.lm import belief, choose, rate_importance
from mindstream.memory import ManualClock, RetrievalWeights, new_memory

DEMO_MEMORIES = (
    "I made my bed this morning",
    "I bought milk at the corner shop",
    "I locked the front door",
    "My sister gave birth to her first child",
    "I was fired from the job I loved",
    "My doctor told me the tumour is benign",
)
DEMO_QUESTIONS = (
    "Name one thing people do in a cafe.",
    "What season comes after winter?",
    "Give a short greeting to a neighbour.",
    "What do plants need to grow?",
)


def run_demo(parts: Parts) -> None:
    start = time.perf_counter()
    console.rule(f"mindstream demo: {parts.config.model.spec}")
    chat = parts.chat_for("chat")
    _timed(
        "one chat turn (the first loads the model)",
        lambda: console.print(chat.invoke(DEMO_QUESTIONS[0], max_tokens=48).text),
    )
    replies = _timed(
        "four prompts as one batch", lambda: chat.batch(list(DEMO_QUESTIONS), max_tokens=48)
    )
    for question, reply in zip(DEMO_QUESTIONS, replies, strict=True):
        console.print(f"[bold]{question}[/] {reply.text}", highlight=False)

    ratings = rate_importance(parts.scorer_for("importance"), DEMO_MEMORIES)
    table = Table("importance (1-10)", "memory", title="poignancy by log-likelihood")
    for memory, rating in sorted(zip(DEMO_MEMORIES, ratings, strict=True), key=lambda p: p[1]):
        table.add_row(f"{rating:.1f}", memory)
    console.print(table)

    picked = choose(
        parts.scorer_for("choose"),
        "Isabella wants to buy fresh bread for the party, so she walks to the",
        [" bakery", " swimming pool", " dentist"],
    )
    console.print(
        f"choose(): the model picks [bold]{picked.option.strip()}[/] "
        f"(scores {', '.join(f'{s:.2f}' for s in picked.scores)})"
    )
    statements = ["Ice is cold.", "Fish live in the desert sand."]
    for statement, p in zip(
        statements, belief(parts.scorer_for("belief"), statements), strict=True
    ):
        console.print(f"belief: P(yes) that “{statement}” = {p:.2f}")

    vectors = parts.models.embedder.embed_array(
        ["a party at the cafe", "a celebration at the coffee shop", "tax law"]
    )
    console.print(
        f"embeddings ({vectors.shape[1]}-d): similarity party~celebration "
        f"{float(vectors[0] @ vectors[1]):.2f}, party~tax law {float(vectors[0] @ vectors[2]):.2f}"
    )
    _memory_showcase(parts)
    console.print(parts.ledger.table())
    console.print(f"demo wall time: {time.perf_counter() - start:.1f} s")


DEMO_WEEK = (
    (0, "Isabella decided to host a Valentine's Day party at Hobbs Cafe on February 14th"),
    (2, "Isabella served blueberry muffins to the morning regulars"),
    (20, "Isabella invited Maria Lopez to the party and Maria said she would come"),
    (30, "Isabella wiped the tables and locked the cafe"),
    (50, "Isabella worries that not enough people will come to her party"),
    (70, "Tom told Isabella that Sam Moore is running for mayor"),
)


def _memory_showcase(parts: Parts) -> None:
    """A memory stream on disk: model-rated importance, real embeddings, scored retrieval."""
    start = time.perf_counter()
    clock = ManualClock(datetime(2023, 2, 6, 8, 0, tzinfo=UTC))
    with tempfile.TemporaryDirectory() as folder:
        stream = parts.stream(Path(folder), clock=clock)
        begin = clock.now()
        stream.add_many(
            [
                new_memory(text=text, owner="isabella", created_at=begin + timedelta(hours=h))
                for h, text in DEMO_WEEK
            ]
        )
        clock.advance(hours=96)
        query = "What does Isabella think about the party?"
        found = stream.retrieve(
            query, 3, owner="isabella", mode="hybrid", weights=RetrievalWeights.original_code()
        )
        stream.close()
    table = Table("score", "rec", "imp", "rel", "importance 1-10", "memory", title=query)
    for m in found:
        table.add_row(
            f"{m.score:.2f}",
            f"{m.recency:.2f}",
            f"{m.importance:.2f}",
            f"{m.relevance:.2f}",
            f"{m.record.importance:.1f}",
            m.record.text,
        )
    console.print(table)
    console.print(f"[dim]memory stream on chromadb: {time.perf_counter() - start:.2f} s[/]")


def _timed(label: str, action: Any) -> Any:
    start = time.perf_counter()
    result = action()
    console.print(f"[dim]{label}: {time.perf_counter() - start:.2f} s[/]")
    return result
