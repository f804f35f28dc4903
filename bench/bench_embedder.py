"""The dialogue retriever costs what the stock embedder did: texts/s of both (onnxruntime,
the same chat turns, rounds interleaved so a busy CPU hits both alike) and the assistant's
query time at 10k memories on each, and on the dialogue retriever with the reranker (the
assistant's policy, `rerank` set to the candidates it was trained for). Writes
bench/results/embedder.json.

    python bench/bench_embedder.py [--rounds 3] [--memories 10000] [--queries 200]
        [--candidates 10 8]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from mindstream.agents.assistant.config import long_horizon
from mindstream.lab.experiments.truth_data import split
from mindstream.lm.backends.embeddings import RETRIEVER_DIR, MiniLMEmbeddings
from mindstream.lm.judges.reranker import OnnxReranker, load_reranker, trained_candidates
from mindstream.memory import InMemoryStore, ManualClock, MemoryStream, new_memory
from mindstream.memory.records import ChangePolicy

RESULTS = Path(__file__).resolve().parent / "results"


def turns() -> tuple[list[str], list[str]]:
    """Every user turn of the shipped chats, and their questions."""
    conversations = [c for name in ("train", "dev", "heldout") for c in split(name)]
    said = [t.text for c in conversations for t in c.turns if t.by_user]
    asked = [q.question for c in conversations for q in c.questions]
    return said, asked


def throughput(embedder: MiniLMEmbeddings, texts: list[str]) -> float:
    start = time.perf_counter()
    embedder.embed_array(texts)
    return len(texts) / (time.perf_counter() - start)


def query_ms(
    embedder: MiniLMEmbeddings,
    texts: list[str],
    embedded: np.ndarray,
    questions: list[str],
    size: int,
    reranker: OnnxReranker | None = None,
    candidates: int | None = None,
) -> float:
    """p50 of the assistant's retrieve (hybrid, gate 10, k 10, the reranker if given; detection
    is off: it is not on the query path) over `size` memories, `embedded` being `texts`'
    vectors (computed once per model, not per row); the reranker re-scores the top
    `candidates` (default: as many as it was trained for)."""
    clock = ManualClock(datetime(2026, 1, 1, tzinfo=UTC))
    policy = long_horizon().model_copy(update={"changes": ChangePolicy(enabled=False)})
    rerank = None if reranker is None else candidates or trained_candidates()
    policy = policy.model_copy(update={"rerank": rerank})
    stream = MemoryStream(InMemoryStore(), embedder, clock=clock, config=policy, reranker=reranker)
    pool = (texts * (size // len(texts) + 1))[:size]
    vectors = np.tile(embedded, (size // len(texts) + 1, 1))[:size]
    start = clock.now() - timedelta(days=180)
    stream.add_many(
        [
            new_memory(
                text=t,
                owner="u",
                kind="dialogue",
                importance=5.0,
                created_at=start + timedelta(minutes=n),
            )
            for n, t in enumerate(pool)
        ],
        vectors,
    )
    times = []
    for question in questions:
        began = time.perf_counter()
        stream.retrieve(question, 10, owner="u", touch=False)
        times.append(1000 * (time.perf_counter() - began))
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--candidates",
        type=int,
        nargs="*",
        default=[],
        help="also time the reranker over these top-N (default: only what it was trained for)",
    )
    args = parser.parse_args()
    texts, questions = turns()
    models = {"stock": MiniLMEmbeddings(), "dialogue": MiniLMEmbeddings(adapter=RETRIEVER_DIR)}
    for model in models.values():
        model.embed_array(texts[:64])  # export and load outside the timing
    speed: dict[str, list[float]] = {name: [] for name in models}
    for _ in range(args.rounds):
        for name, model in models.items():
            speed[name].append(throughput(model, texts))
    embedded = {name: model.embed_array(texts) for name, model in models.items()}
    asked = questions[: args.queries]

    def p50(name: str, reranker: OnnxReranker | None = None, top: int | None = None) -> float:
        return query_ms(models[name], texts, embedded[name], asked, args.memories, reranker, top)

    result = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "texts": len(texts),
        "texts_per_s": {name: statistics.median(v) for name, v in speed.items()},
        "query_p50_ms": {name: p50(name) for name in models},
        "memories": args.memories,
    }
    reranker = load_reranker()
    reranker.scores("warm up", texts[:20])
    result["query_p50_ms"]["dialogue + reranker"] = p50("dialogue", reranker)
    for top in args.candidates:
        result["query_p50_ms"][f"dialogue + reranker, top {top}"] = p50("dialogue", reranker, top)
    result["rerank_candidates"] = trained_candidates()
    result["rerank_layers"] = reranker.pairs.settings.layers or 6
    result["ratio_texts_per_s"] = result["texts_per_s"]["dialogue"] / result["texts_per_s"]["stock"]
    print(json.dumps(result, indent=1))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "embedder.json").write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
