"""Can the model use a fact at all? How TeachMe's proof scores should be aggregated.

For train questions (not the evaluation split), with every train core fact in memory, each
choice is scored with no premise, with each of the top-5 retrieved facts, and with the gold
fact itself; several ways of turning those scores into an answer are compared.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
from rich.progress import track

from agents.teachme.reasoner import Premise, context_for
from lm import DEFAULT_MODEL_SPEC
from mindstream.experiments.openbookqa import DEFAULT_DATA, load_split
from mindstream.experiments.report import table, write_section
from mindstream.experiments.teachme import Lab

RULES = {
    "direct (no premise)": "the likeliest choice after the question alone",
    "best proof (current)": "max over the no-premise proof and the 5 fact proofs",
    "top-1 fact": "the likeliest choice with the best-retrieved fact as premise",
    "mean over facts": "mean over the 5 fact proofs",
    "best gain over no premise": "max over facts of (with fact - without)",
    "oracle: gold fact": "the likeliest choice with the gold core fact as premise",
}


def run(
    data: Path = DEFAULT_DATA,
    limit: int = 100,
    offset: int = 1000,
    lab: Lab | None = None,
) -> dict[str, Any]:
    """`lab` holds the scorer (`Lab.of(parts)`)."""
    if lab is None:
        raise ValueError("the scoring experiment needs a lab (Lab.of(parts))")
    model = lab.spec
    started = time.perf_counter()
    train = load_split("train", data)
    reasoner = lab.reasoner(list({q.fact: (q.id, q.fact) for q in train}.values()))
    questions = train[offset : offset + limit]
    right = dict.fromkeys(RULES, 0)
    gold_retrieved = 0
    for q in track(questions, description="scoring"):
        facts = reasoner.retrieve_facts(q.stem, q.choices)
        gold_retrieved += any(f.text == q.fact for f in facts)
        sets: list[list[Premise]] = [[], *([Premise(text=f.text)] for f in facts)]
        sets.append([Premise(text=q.fact)])
        options = [" " + c for c in q.choices]
        requests = [(context_for(q.stem, s), options) for s in sets]
        scores = np.array(lab.scorer.choose_batch(requests))
        base, with_facts, gold = scores[0], scores[1:-1], scores[-1]
        if not len(with_facts):
            with_facts = base[None, :]
        picks = {
            "direct (no premise)": base,
            "best proof (current)": scores[:-1].max(0),
            "top-1 fact": with_facts[0],
            "mean over facts": with_facts.mean(0),
            "best gain over no premise": (with_facts - base).max(0),
            "oracle: gold fact": gold,
        }
        for rule, values in picks.items():
            right[rule] += int(values.argmax() == q.answer_index)
    accuracy = {rule: right[rule] / len(questions) for rule in RULES}
    data_out = {
        "command": f"mindstream eval teachme-scoring --limit {limit} --offset {offset}"
        + ("" if model == DEFAULT_MODEL_SPEC else f" --model {model}"),
        "model": model,
        "questions": len(questions),
        "accuracy": accuracy,
        "gold_fact_in_top5": gold_retrieved / len(questions),
        "seconds": round(time.perf_counter() - started, 1),
    }
    rows = [[rule, RULES[rule], f"{accuracy[rule]:.0%}"] for rule in RULES]

    def gain(rule: str) -> str:
        return f"{100 * (accuracy[rule] - accuracy['direct (no premise)']):+.0f}"

    markdown = f"""## TeachMe: can {model} use a fact? ({len(questions)} train questions)

Train questions {offset}-{offset + len(questions) - 1} (not the evaluation split), memory holding
every train core fact; the gold fact is among the 5 retrieved for
{data_out["gold_fact_in_top5"]:.0%} of them. Chance is 25%. Wall time {data_out["seconds"]} s.

{table(["answer rule", "how", "accuracy"], rows)}

Handing the model the gold fact changes its accuracy by {gain("oracle: gold fact")} points over
direct QA, and taking the best of several proofs (TeachMe's rule) by
{gain("best proof (current)")}. Memory can raise accuracy by at most about the first figure,
whatever the aggregation; when the second is negative, irrelevant facts are raising wrong
answers. The simulated-teacher experiment (`mindstream eval teachme`, below) measures what
teaching does; `--model hf:<folder>` runs both with a stronger scorer.
"""
    write_section("teachme_scoring", markdown, data_out)
    return data_out
