"""Benchmark streaming on the embedded model: time to the first token against time to the
whole reply, same prompt, same run (a token UI shows words after the first, not the last).

    MINDSTREAM_THREADS=1 python bench/bench_stream.py [--runs 5] [--max-tokens 96]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from rich.console import Console

from mindstream.lm.backends.local import LocalChatModel

OUT = Path(__file__).parent / "results" / "stream.json"
PROMPT = "Tell me about the sea in three sentences."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--max-tokens", type=int, default=96)
    args = parser.parse_args()
    model = LocalChatModel(temperature=0.0, max_tokens=args.max_tokens)
    model.invoke("hi")  # load the model before timing
    first, whole, tokens = [], [], []
    for _ in range(args.runs):
        started = time.perf_counter()
        seen = None
        pieces = 0
        for chunk in model.stream(PROMPT):
            if seen is None and chunk.content:
                seen = time.perf_counter() - started
            pieces += bool(chunk.content)
        whole.append(time.perf_counter() - started)
        first.append(seen or whole[-1])
        tokens.append(pieces)
    result = {
        "first_token_s": round(statistics.median(first), 3),
        "whole_reply_s": round(statistics.median(whole), 3),
        "pieces": statistics.median(tokens),
        "ratio_whole_over_first": round(statistics.median(whole) / statistics.median(first), 1),
    }
    Console().print(
        f"embedded model, {args.max_tokens} tokens at most: "
        f"first token {result['first_token_s']} s, "
        f"whole reply {result['whole_reply_s']} s ({result['ratio_whole_over_first']}x later), "
        f"{result['pieces']} pieces streamed"
    )
    OUT.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
