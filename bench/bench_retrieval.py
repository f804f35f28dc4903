"""Retrieval benchmark against the shared anchors (LangChain, original code, numpy bound).

Runs `shared/bench/retrieval_anchors.py` with this project as the `P` column in the default
configuration (precision "auto": an int8 first pass, seven-bit from 2^19 rows, where it
measures faster; exact re-rank) and with every scan in float32, each beside the numpy
baseline `C` of the same run; then measures what the harness does not: adding one memory at
size N, and the ANN prefilter's recall on a chroma store. Prints the CPU's SIMD flags and the
measured memory bandwidth beside the figures, and exits non-zero if any recall is below 1.00.
Writes bench/results/retrieval.json and retrieval.md.

    python bench/bench_retrieval.py [--sizes 10000 100000 1000000] [--precisions auto float32]
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


def cpu_flags() -> list[str]:
    """The SIMD features that decide which kernels run (from /proc/cpuinfo)."""
    wanted = ("avx2", "fma", "f16c", "avx512", "amx", "vnni", "bf16", "fp16")
    try:
        line = next(
            x for x in Path("/proc/cpuinfo").read_text().splitlines() if x.startswith("flags")
        )
    except (OSError, StopIteration):
        return []
    return sorted({f for f in line.split(":", 1)[1].split() if any(w in f for w in wanted)})


def run_harness(
    anchors: Path, sizes: list[int], impls: list[str], precision: str
) -> tuple[list[dict], dict]:
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
        "mindstream.memory.anchors",
        "--json-out",
        str(out),
        "--query-budget-s",
        "10",
    ]
    print("$", " ".join(command[1:]), f"(precision {precision})", flush=True)
    subprocess.run(command, check=True, env=env, cwd=anchors.parent)
    report = json.loads(out.read_text())
    meta = report["meta"]
    rows = list(report["results"])
    rows += [{**skip, "median_ms": None} for skip in report.get("skipped", [])]
    for row in rows:
        row["run"] = precision
        if row.get("impl") == "P":
            row["impl"] = f"P ({precision})"
        elif row.get("impl") == "C":
            row["impl"] = f"C (run {precision})"
    return rows, meta


def add_one_cost(size: int, samples: int = 2000) -> float:
    """µs to append one memory to an index holding `size` (no embedding, no rating)."""
    from mindstream.memory.anchors import project_build

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

    from mindstream.memory import ChromaStore, ManualClock, MemoryStream, StreamConfig, new_memory

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

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.vector.tolist()


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
    parser.add_argument(
        "--precisions", nargs="+", default=["auto", "float32"], help="auto, float32, int8"
    )
    args = parser.parse_args()
    if not args.anchors.is_file():
        sys.exit(f"error: anchors harness not found at {args.anchors} (pass --anchors PATH)")
    rows: list[dict] = []
    for precision in args.precisions:
        found, meta = run_harness(args.anchors, args.sizes, ["C", "P"], precision)
        rows += found
    machine = {
        "cpu": meta["versions"].get("cpu"),
        "cores": meta["versions"].get("cpu_count"),
        "simd_flags": cpu_flags(),
        "bandwidth_GBps": meta["bandwidth"],
    }
    add_us = {n: add_one_cost(n) for n in args.sizes}
    ann = ann_recall(args.ann_size, (200, 1000))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "retrieval.json").write_text(
        json.dumps(
            {"machine": machine, "harness": rows, "add_one_us": add_us, "ann": ann}, indent=2
        )
    )
    table = machine_lines(machine) + markdown(rows, add_us, ann)
    (RESULTS / "retrieval.md").write_text(table)
    print(table)
    short = [r for r in rows if r["impl"].startswith("P") and (r.get("recall") or 0) < 1.0]
    if short:
        sys.exit(f"FAILED: recall below 1.00 in {[(r['impl'], r['n']) for r in short]}")


def machine_lines(machine: dict) -> str:
    bandwidth = ", ".join(f"{k} {v:.1f}" for k, v in machine["bandwidth_GBps"].items())
    return (
        f"Machine: {machine['cpu']}, {machine['cores']} cores; SIMD: "
        f"{' '.join(machine['simd_flags']) or 'unknown'}; memory bandwidth (GB/s): {bandwidth}\n\n"
    )


if __name__ == "__main__":
    main()
