"""Self-Refine on constrained generation: one sentence using all of 3-5 concept words drawn
from the OpenBookQA book facts (a CommonGen-style task with an automatic metric)."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.progress import Progress

from mindstream.lab.experiments.openbookqa import DEFAULT_DATA, load_book
from mindstream.lab.experiments.report import table, write_section
from mindstream.reflection.self_refine import Feedback, RefineHistory, stop_when_satisfied

if TYPE_CHECKING:
    from mindstream.compose import Parts

STOPWORDS = set(
    [
        "that",
        "this",
        "with",
        "from",
        "have",
        "into",
        "than",
        "then",
        "them",
        "they",
        "their",
        "there",
        "these",
        "those",
        "when",
        "where",
        "which",
        "what",
        "will",
        "would",
        "could",
        "should",
        "about",
        "also",
        "more",
        "most",
        "some",
        "such",
        "only",
        "other",
        "over",
        "under",
        "each",
        "being",
        "been",
        "were",
        "does",
        "used",
        "uses",
        "using",
        "make",
        "makes",
        "made",
        "very",
        "much",
        "many",
        "like",
        "because",
    ]
)
TASK = "Write one sentence that uses all of these words: {words}."
ITERATIONS = 3


def concept_sets(book: Sequence[str], count: int, seed: int) -> list[list[str]]:
    """`count` sets of 3-5 content words, each drawn from one book fact."""
    rng = random.Random(seed)
    sets: list[list[str]] = []
    while len(sets) < count:
        words = list(
            dict.fromkeys(
                w
                for w in re.findall(r"[a-z]+", rng.choice(book).lower())
                if len(w) >= 4 and w not in STOPWORDS
            )
        )
        if len(words) >= 3:
            chosen = rng.sample(words, rng.randint(3, min(5, len(words))))
            sets.append(sorted(chosen, key=words.index))
    return sets


def covered(concept: str, text: str) -> bool:
    """A concept counts when a word of the text is it or an inflection of it."""
    stem = concept[: max(4, len(concept) - 2)]
    return any(
        token == concept or token.startswith(stem) for token in re.findall(r"[a-z]+", text.lower())
    )


def coverage(concepts: Sequence[str], text: str) -> float:
    return sum(covered(c, text) for c in concepts) / len(concepts)


def missing_words_feedback(concept_of_task: dict[str, list[str]]) -> Feedback:
    """Program feedback: name the concepts the sentence still lacks."""

    def feedback(tasks: Sequence[str], outputs: Sequence[str]) -> list[str]:
        notes = []
        for task, output in zip(tasks, outputs, strict=True):
            missing = [c for c in concept_of_task[task] if not covered(c, output)]
            notes.append(
                "It is correct."
                if not missing
                else f"The sentence does not use: {', '.join(missing)}. Use every listed word."
            )
        return notes

    return feedback


def _curve(histories: list[RefineHistory], concepts: list[list[str]]) -> dict[str, Any]:
    per_step = []
    for t in range(ITERATIONS + 1):
        # A history that stopped early keeps its last answer for the later steps.
        per_step.append(
            sum(
                coverage(c, h.steps[min(t, len(h.steps) - 1)].output)
                for h, c in zip(histories, concepts, strict=True)
            )
            / len(histories)
        )
    first = [coverage(c, h.steps[0].output) for h, c in zip(histories, concepts, strict=True)]
    last = [coverage(c, h.final) for h, c in zip(histories, concepts, strict=True)]
    return {
        "coverage": per_step,
        "hurt": sum(b < a for a, b in zip(first, last, strict=True)) / len(histories),
        "helped": sum(b > a for a, b in zip(first, last, strict=True)) / len(histories),
        "all_covered_final": sum(x == 1.0 for x in last) / len(histories),
        "mean_refinements": sum(len(h.steps) - 1 for h in histories) / len(histories),
    }


def run(
    data: Path = DEFAULT_DATA,
    items: int = 100,
    seed: int = 0,
    chunk: int = 25,
    parts: Parts | None = None,
) -> dict[str, Any]:
    if parts is None:
        raise ValueError("the Self-Refine experiment needs the configuration's parts")
    started = time.perf_counter()
    concepts = concept_sets(load_book(data), items, seed)
    tasks = [TASK.format(words=", ".join(c)) for c in concepts]
    settings: dict[str, Any] = {"max_iters": ITERATIONS, "max_tokens": 48}  # one sentence
    variants = {
        "model feedback (Self-Refine)": parts.self_refine(**settings),
        "missing-words feedback (program)": parts.self_refine(
            feedback=missing_words_feedback(dict(zip(tasks, concepts, strict=True))),
            stop=stop_when_satisfied,
            **settings,
        ),
    }
    results: dict[str, Any] = {}
    examples: dict[str, Any] = {}
    with Progress() as progress:
        for name, refiner in variants.items():
            task_bar = progress.add_task(name, total=len(tasks))
            histories: list[RefineHistory] = []
            for start in range(0, len(tasks), chunk):
                histories += refiner.run_batch(tasks[start : start + chunk])
                progress.advance(task_bar, len(tasks[start : start + chunk]))
            results[name] = _curve(histories, concepts)
            examples[name] = histories[0].model_dump()
    command = f"mindstream eval self-refine --items {items} --seed {seed}"
    data_out = {
        "command": command,
        "items": items,
        "results": results,
        "examples": examples,
        "seconds": round(time.perf_counter() - started, 1),
    }
    rows = [
        [
            name,
            *(f"{x:.3f}" for x in r["coverage"]),
            f"{r['hurt']:.0%}",
            f"{r['helped']:.0%}",
            f"{r['all_covered_final']:.0%}",
            f"{r['mean_refinements']:.2f}",
        ]
        for name, r in results.items()
    ]
    header = [
        "feedback",
        *(f"y{t}" for t in range(ITERATIONS + 1)),
        "hurt",
        "helped",
        "all words at end",
        "refinements",
    ]
    example = examples["model feedback (Self-Refine)"]
    shown = "\n".join(
        f"  - y{n}: {s['output']!r} — feedback: {s['feedback']!r}"
        for n, s in enumerate(example["steps"])
    )
    markdown = f"""## Self-Refine on constrained generation ({items} items)

Each item gives 3-5 content words from one OpenBookQA book fact; the task is one sentence using
all of them. The metric is the share of words used (inflections count). y0 is the first answer,
y1-y3 the refinements (an item that stopped early keeps its last answer). "hurt": the final
answer covers fewer words than y0. Wall time {data_out["seconds"]} s.

{table(header, rows)}

One item, model feedback:
- task: {example["task"]}
{shown}
"""
    write_section("self_refine", markdown, data_out)
    return data_out
