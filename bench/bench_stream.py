"""Benchmark streaming: time to the first token against time to the whole reply, same prompt,
same run, on the embedded model and on the same weights served by vLLM (`make engine`; skipped
with a note when the engine is not installed). A token UI shows words after the first token,
not the last.

    MINDSTREAM_THREADS=1 python bench/bench_stream.py [--runs 5] [--max-tokens 96] [--no-vllm]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from rich.console import Console
from rich.table import Table

from mindstream.lm.backends.loading import cached_smollm2_dir
from mindstream.lm.backends.local import LocalChatModel
from mindstream.lm.config import LocalModelConfig
from mindstream.lm.served.chat import ServedChatModel
from mindstream.lm.served.server import ENGINE_HINT, VllmServer, engine_python

OUT = Path(__file__).parent / "results" / "stream.json"
PROMPT = "Tell me about the sea in three sentences."


def timed(model: BaseChatModel, runs: int) -> dict[str, Any]:
    """Median seconds to the first non-empty chunk and to the end, over `runs` streams."""
    model.invoke("hi")  # load (or reach) the model before timing
    first, whole, pieces = [], [], []
    for _ in range(runs):
        started = time.perf_counter()
        seen, count = None, 0
        for chunk in model.stream(PROMPT):
            if seen is None and chunk.content:
                seen = time.perf_counter() - started
            count += bool(chunk.content)
        whole.append(time.perf_counter() - started)
        first.append(seen or whole[-1])
        pieces.append(count)
    return {
        "first_token_s": round(statistics.median(first), 3),
        "whole_reply_s": round(statistics.median(whole), 3),
        "pieces": statistics.median(pieces),
        "ratio_whole_over_first": round(statistics.median(whole) / statistics.median(first), 1),
    }


def served(runs: int, max_tokens: int) -> dict[str, Any] | None:
    """The same weights on vLLM's CPU engine, streamed over HTTP by `ServedChatModel`."""
    if not engine_python().is_file():
        Console().print(f"vLLM skipped: {ENGINE_HINT}")
        return None
    folder = cached_smollm2_dir(LocalModelConfig().cache_dir)
    vllm = VllmServer(folder, threads=1, adapters=False, log=OUT.parent / "vllm-stream.log")
    vllm.start(timeout=600)  # its first start compiles the model
    try:
        model = ServedChatModel(
            model=vllm.model,
            base_url=vllm.base_url,
            api_key="none",
            temperature=0.0,
            max_tokens=max_tokens,
        )
        return timed(model, runs)
    finally:
        vllm.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="streams timed per model")
    parser.add_argument("--max-tokens", type=int, default=96, help="reply length at most")
    parser.add_argument("--no-vllm", action="store_true", help="the embedded model only")
    args = parser.parse_args()
    results = {
        "embedded": timed(LocalChatModel(temperature=0.0, max_tokens=args.max_tokens), args.runs)
    }
    if not args.no_vllm and (on_vllm := served(args.runs, args.max_tokens)) is not None:
        results["vllm"] = on_vllm
    table = Table(title=f"streaming, {args.max_tokens} tokens at most, median of {args.runs}")
    for column in ("model", "first token s", "whole reply s", "whole / first", "pieces"):
        table.add_column(column)
    for name, r in results.items():
        table.add_row(
            name,
            str(r["first_token_s"]),
            str(r["whole_reply_s"]),
            f"{r['ratio_whole_over_first']}x",
            str(r["pieces"]),
        )
    Console().print(table)
    OUT.write_text(json.dumps({**results["embedded"], "models": results}, indent=1))


if __name__ == "__main__":
    main()
