"""Benchmark the embedded chat model: load time, resident memory, batched vs sequential.

Ratios are taken against a baseline run in the same process (sequential calls), because these
machines are shared and noisy. Writes bench/results/lm.json and prints a table.

    python bench/bench_lm.py [--rounds 2] [--max-new-tokens 64] [--skip-gguf]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import psutil
from rich.console import Console
from rich.table import Table

from mindstream.lm import LocalModelConfig, rate_importance
from mindstream.lm.backends.loading import cached_smollm2_dir, smollm2_gguf_path

PROMPTS = [
    "Describe your morning routine in two sentences.",
    "What would you buy at a bakery?",
    "Give one tip for planning a party.",
    "Why do people like cafes?",
    "Write a short greeting to a neighbour.",
    "What is a good hobby for a rainy day?",
    "Name three things found in a kitchen.",
    "How do you make a cup of tea?",
]
MEMORIES = [
    "I made my bed",
    "My grandfather passed away",
    "I bought bread",
    "I got engaged",
    "I watered the plants",
    "I lost my wallet with all my savings",
    "I read the news",
    "My best friend moved to another country",
]
RESULTS = Path(__file__).parent / "results" / "lm.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="timed rounds per mode (min is kept)")
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--skip-gguf", action="store_true", help="skip timing the GGUF load")
    args = parser.parse_args()
    threads = LocalModelConfig().threads
    figures: dict[str, object] = {"machine": _machine(), "torch_threads": threads}
    figures.update(_load_figures(threads, skip_gguf=args.skip_gguf))
    from mindstream.lm.backends.causal_lm import (
        CausalLMBackend,  # the benchmark measures loading, so no cache
    )

    backend = CausalLMBackend.from_folder(
        cached_smollm2_dir(LocalModelConfig().cache_dir), threads=threads
    )
    figures["rss_after_load_mb"] = round(psutil.Process().memory_info().rss / 2**20, 1)
    figures["generation_fixed_length"] = _generation(
        backend, args.max_new_tokens, args.rounds, True
    )
    figures["generation_natural_stop"] = _generation(
        backend, args.max_new_tokens, args.rounds, False
    )
    figures["rating"] = _rating()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(figures, indent=2))
    _print(figures)


def _machine() -> dict[str, object]:
    return {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def _load_figures(threads: int | None, *, skip_gguf: bool) -> dict[str, float]:
    import torch
    from transformers import AutoModelForCausalLM
    from transformers.utils import logging as hf_logging

    from mindstream.lm.backends.causal_lm import CausalLMBackend

    hf_logging.disable_progress_bar()
    out: dict[str, float] = {}
    if threads:
        torch.set_num_threads(threads)
    folder = cached_smollm2_dir(LocalModelConfig().cache_dir)
    start = time.perf_counter()
    CausalLMBackend.from_folder(folder, threads=threads)
    out["load_cached_s"] = round(time.perf_counter() - start, 2)
    if not skip_gguf:
        gguf = smollm2_gguf_path()
        start = time.perf_counter()
        AutoModelForCausalLM.from_pretrained(
            str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32
        )
        out["load_gguf_s"] = round(time.perf_counter() - start, 2)
    return out


def _generation(backend, max_new_tokens: int, rounds: int, fixed: bool) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """8 prompts as 8 calls vs one batch. `fixed` makes every reply max_new_tokens long (pure
    throughput); otherwise replies stop naturally and the batch waits for its longest one."""
    options = {
        "max_new_tokens": max_new_tokens,
        "min_new_tokens": max_new_tokens if fixed else 0,
        "temperature": 0.0,
        "top_p": 1.0,
    }

    def run(batch_size: int) -> tuple[float, int]:
        start = time.perf_counter()
        if batch_size == 1:
            outs = [backend.generate([p], batch_size=1, **options)[0] for p in PROMPTS]
        else:
            outs = backend.generate(PROMPTS, batch_size=batch_size, **options)
        return time.perf_counter() - start, sum(o.completion_tokens for o in outs)

    sequential, batched = [], []
    for _ in range(rounds):  # interleaved, so both modes see the same machine load
        sequential.append(run(1))
        batched.append(run(len(PROMPTS)))
    seq_s, seq_tokens = min(sequential)
    batch_s, batch_tokens = min(batched)
    return {
        "prompts": len(PROMPTS),
        "max_new_tokens": max_new_tokens,
        "sequential_s": round(seq_s, 2),
        "sequential_tokens": seq_tokens,
        "sequential_tokens_per_s": round(seq_tokens / seq_s, 1),
        "batched_s": round(batch_s, 2),
        "batched_tokens": batch_tokens,
        "batched_tokens_per_s": round(batch_tokens / batch_s, 1),
        "throughput_ratio": round((batch_tokens / batch_s) / (seq_tokens / seq_s), 2),
        "wall_time_ratio": round(seq_s / batch_s, 2),
    }


def _rating() -> dict[str, float]:
    """Importance ratings: one at a time on a fresh model, as one batch (the few-shot prefix
    runs once), then one at a time again (the prefix's KV cache is reused)."""
    from mindstream.lm.backends.local import LocalChatModel

    model = LocalChatModel()

    def per_memory_ms(batched: bool) -> float:
        start = time.perf_counter()
        if batched:
            rate_importance(model, MEMORIES)
        else:
            for memory in MEMORIES:
                rate_importance(model, [memory])
        return round(1000 * (time.perf_counter() - start) / len(MEMORIES), 1)

    cold, batched, warm = per_memory_ms(False), per_memory_ms(True), per_memory_ms(False)
    return {
        "memories": len(MEMORIES),
        "ms_per_memory_one_at_a_time_cold": cold,
        "ms_per_memory_batched": batched,
        "ms_per_memory_one_at_a_time_prefix_cached": warm,
        "batched_speedup_vs_cold": round(cold / batched, 2),
    }


def _print(figures: dict) -> None:  # type: ignore[type-arg]
    table = Table("figure", "value", title="embedded model (SmolLM2-135M-Instruct)")
    for key in ("torch_threads", "load_cached_s", "load_gguf_s", "rss_after_load_mb"):
        if key in figures:
            table.add_row(key, str(figures[key]))
    for group in ("generation_fixed_length", "generation_natural_stop", "rating"):
        for key, value in figures[group].items():
            table.add_row(f"{group}.{key}", str(value))
    Console().print(table)
    print(f"written: {RESULTS}")


if __name__ == "__main__":
    main()
