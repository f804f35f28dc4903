"""Retrieval benchmark against the shared anchors (LangChain, original code, numpy bound).

Runs `shared/bench/retrieval_anchors.py` with this project as the `P` column, once with
float32 embeddings (exact) and once with float16, plus the numpy baseline `C` in the same run;
then measures what the harness does not: adding one memory at size N, and the ANN prefilter's
recall on a chroma store. Writes bench/results/retrieval.json and retrieval.md.

    python bench/bench_retrieval.py [--sizes 10000 100000 1000000] [--anchors PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
DEFAULT_ANCHORS = ROOT.parent / "shared" / "bench" / "retrieval_anchors.py"


def run_harness(anchors: Path, sizes: list[int], impls: list[str], precision: str) -> list[dict]:
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
        out = Path(handle.name)
    env = {**os.environ, "MINDSTREAM_BENCH_PRECISION": precision, "PYTHONPATH": str(ROOT)}
    command = [
        sys.executable,
        str(anchors),
        "--sizes",
        *map(str, sizes),
        "--impls",
        *impls,
        "--project",
        "memory.anchors",
        "--json-out",
        str(out),
        "--query-budget-s",
        "10",
    ]
    print("$", " ".join(command[1:]), f"(precision {precision})", flush=True)
    subprocess.run(command, check=True, env=env, cwd=anchors.parent)
    report = json.loads(out.read_text())
    rows = list(report["results"])
    rows += [{**skip, "median_ms": None} for skip in report.get("skipped", [])]
    for row in rows:
        row["run"] = precision
        if row.get("impl") == "P":
            row["impl"] = f"P ({precision})"
        elif row.get("impl") == "C":
            row["impl"] = f"C (run {precision})"
    return rows


def add_one_cost(size: int, samples: int = 2000) -> float:
    """µs to append one memory to an index holding `size` (no embedding, no rating)."""
    from memory.anchors import project_build

    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((size, 384), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = project_build(
        vectors, np.full(size, 5.0, np.float32), np.zeros(size), [], {"decay": 0.99}
    )
    new = vectors[:samples]
    start = time.perf_counter()
    for i in range(samples):
        index.append([f"new{i}"], new[i : i + 1], [5.0], [1.0], [1.0], [0], [0])
    return (time.perf_counter() - start) / samples * 1e6


def ann_recall(size: int, candidate_counts: tuple[int, ...], queries: int = 20) -> list[dict]:
    """Recall@10 of retrieval with the chroma ANN prefilter against exact scoring.

    Random embeddings make relevance nearly flat (each query is one memory plus noise), the
    worst case for relevance-first pruning; real embeddings do better.
    """
    from datetime import timedelta

    from memory import ChromaStore, ManualClock, MemoryStream, StreamConfig, new_memory

    rng = np.random.default_rng(1)
    vectors = rng.standard_normal((size, 384), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    clock = ManualClock()
    targets = [
        vectors[rng.integers(size)] + 0.5 * rng.standard_normal(384).astype(np.float32)
        for _ in range(queries)
    ]
    out = []
    with tempfile.TemporaryDirectory() as folder:
        exact = MemoryStream(ChromaStore.persistent(folder), None, clock=clock)
        items = [
            new_memory(text=f"memory {i}", owner="a", importance=float(1 + i % 10))
            for i in range(size)
        ]
        for start in range(0, size, 5000):
            clock.advance(timedelta(minutes=30))
            exact.add_many(items[start : start + 5000], vectors[start : start + 5000])
        for candidates in candidate_counts:
            config = StreamConfig(ann_threshold=1000, ann_candidates=candidates)
            ann = MemoryStream(exact.store, None, clock=clock, config=config)
            hits = []
            for target in targets:
                ann.embedder = exact.embedder = _Fixed(target / np.linalg.norm(target))
                truth = {m.record.id for m in exact.retrieve("q", 10, owner="a", touch=False)}
                got = {m.record.id for m in ann.retrieve("q", 10, owner="a", touch=False)}
                hits.append(len(truth & got) / 10)
            out.append(
                {"n": size, "ann_candidates": candidates, "recall_at_10": float(np.mean(hits))}
            )
    return out


class _Fixed:
    def __init__(self, vector: np.ndarray) -> None:
        self.vector = vector

    def embed_array(self, texts: list[str]) -> np.ndarray:
        return np.tile(self.vector, (len(texts), 1))


def markdown(rows: list[dict], add_us: dict[int, float], ann: list[dict]) -> str:
    base = {
        (r["run"], r["n"]): r["median_ms"]
        for r in rows
        if r["impl"].startswith("C") and r.get("median_ms")
    }
    lines = [
        "| impl | N | median ms | p10–p90 ms | × numpy C (same run) | recall@10 | build s |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in sorted(rows, key=lambda r: (r["impl"], r["n"])):
        if r.get("median_ms") is None:
            lines.append(f"| {r['impl']} | {r['n']:,} | skipped: {r.get('why', '')} | | | | |")
            continue
        key = (r["run"], r["n"])
        ratio = r["median_ms"] / base[key] if key in base else float("nan")
        recall = "" if r.get("recall") is None else f"{r['recall']:.2f}"
        lines.append(
            f"| {r['impl']} | {r['n']:,} | {r['median_ms']:.2f} "
            f"| {r['p10_ms']:.2f}–{r['p90_ms']:.2f} | {ratio:.2f} | {recall} | {r['build_s']:.2f} |"
        )
    lines += ["", "| add one memory at N (µs, embedding and rating excluded) | |", "|---|---:|"]
    lines += [f"| {n:,} | {us:.1f} |" for n, us in add_us.items()]
    lines += [
        "",
        "| ANN prefilter (chroma HNSW) + exact re-rank | N | recall@10 |",
        "|---|---:|---:|",
    ]
    lines += [
        f"| {a['ann_candidates']} candidates | {a['n']:,} | {a['recall_at_10']:.2f} |" for a in ann
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--anchors", type=Path, default=DEFAULT_ANCHORS)
    parser.add_argument("--ann-size", type=int, default=20_000)
    args = parser.parse_args()
    if not args.anchors.is_file():
        sys.exit(f"error: anchors harness not found at {args.anchors} (pass --anchors PATH)")
    rows = run_harness(args.anchors, args.sizes, ["C", "P"], "float32")
    rows += run_harness(args.anchors, args.sizes, ["C", "P"], "float16")
    add_us = {n: add_one_cost(n) for n in args.sizes}
    ann = ann_recall(args.ann_size, (200, 1000))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "retrieval.json").write_text(
        json.dumps({"harness": rows, "add_one_us": add_us, "ann": ann}, indent=2)
    )
    table = markdown(rows, add_us, ann)
    (RESULTS / "retrieval.md").write_text(table)
    print(table)


if __name__ == "__main__":
    main()
