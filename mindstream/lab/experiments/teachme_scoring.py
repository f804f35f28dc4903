"""Can the model use a fact, and which taught facts should become premises?

For each question (any file in the OpenBookQA format), with memory holding every core fact of
the train file (or the open book), the choices are scored directly (likelihood), with the gold
fact through the verifier (the oracle) and with the likelihood scorer (the old oracle), and each
of the top-k retrieved facts is judged by the verifier with its similarity to the question.
The gate thresholds are then chosen by accuracy over a grid: run it on the held-out train slice
(`--offset 4457`, questions the verifier never saw) to set them, on dev to report them.
"""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import Any

import numpy as np
from rich.progress import track

from mindstream.agents.teachme import TeachMeConfig
from mindstream.agents.teachme.judging import judge_facts
from mindstream.agents.teachme.language import rule_hypothesis
from mindstream.agents.teachme.reasoner import Premise, context_for
from mindstream.lab.experiments.openbookqa import Question, load_book, load_questions
from mindstream.lab.experiments.report import table, write_section
from mindstream.lab.experiments.teachme import Lab

SIMILARITIES = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6)
ENTAILMENTS = (0.0, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95)


def run(
    data: Path,
    train: Path,
    lab: Lab,
    out: Path,
    limit: int = 500,
    offset: int = 0,
    memory: str = "train",
) -> dict[str, Any]:
    if lab.verifier is None:
        raise ValueError("the scoring experiment needs a verifier (teachme.verifier=auto)")
    started = time.perf_counter()
    questions = load_questions(data)[offset : offset + limit]
    facts = _memory_facts(train, memory)
    reasoner = lab.reasoner([(f"fact-{n}", f) for n, f in enumerate(facts)])
    rows = [_measure(lab, reasoner, q) for q in track(questions, description="scoring")]
    grid = {
        (s, e): float(np.mean([_gated_pick(r, s, e) == r["answer"] for r in rows]))
        for s, e in itertools.product(SIMILARITIES, ENTAILMENTS)
    }
    best = max(grid, key=lambda k: (grid[k], k[0], k[1]))
    current = (lab.config.gate_similarity, lab.config.gate_entailment)
    accuracy = {
        "direct (likelihood, no premise)": _share(rows, "direct"),
        "oracle: gold fact, likelihood": _share(rows, "gold_likelihood"),
        "oracle: gold fact, verifier": _share(rows, "gold_verifier"),
        "top-1 retrieved fact, verifier": _share(rows, "top1"),
        f"gated, configured thresholds {current}": grid.get(current, float("nan")),
        f"gated, best thresholds on this data {best}": grid[best],
    }
    result = {
        "command": f"mindstream eval teachme-scoring --data {data} --train {train} "
        f"--memory {memory} --limit {limit} --offset {offset}",
        "model": lab.spec,
        "questions": len(questions),
        "memory_facts": len(facts),
        "accuracy": accuracy,
        "gold_fact_retrieved": float(np.mean([r["gold_retrieved"] for r in rows])),
        "best_thresholds": {"gate_similarity": best[0], "gate_entailment": best[1]},
        "grid": {f"{s} {e}": a for (s, e), a in grid.items()},
        "seconds": round(time.perf_counter() - started, 1),
    }
    section = "teachme_scoring" if data.stem.startswith("dev") else f"teachme_scoring_{data.stem}"
    write_section(section, _markdown(result, data, offset), result, out)
    return result


def _memory_facts(train: Path, memory: str) -> list[str]:
    if memory == "book":
        return load_book(train.parent if train.is_file() else train)
    if memory != "train":
        raise ValueError(f"--memory {memory!r}: expected train or book")
    return list(dict.fromkeys(q.fact for q in load_questions(train)))


def _measure(lab: Lab, reasoner: Any, q: Question) -> dict[str, Any]:
    assert lab.verifier is not None
    hypotheses = [rule_hypothesis(q.stem, c) for c in q.choices]
    options = [" " + c for c in q.choices]
    likelihood = lab.scorer.choose_batch(
        [(context_for(q.stem, []), options), (context_for(q.stem, [Premise(text=q.fact)]), options)]
    )
    gold = lab.verifier.entailment_batch([([q.fact], h) for h in hypotheses])
    facts = reasoner.retrieve_facts(q.stem, q.choices)
    open_gate = TeachMeConfig(gate_similarity=-1.0, gate_entailment=0.0, negation_margin=None)
    judged = judge_facts(
        lab.verifier,
        None,  # the gates only: which facts become premises, not what they rule out
        lab.embedder,
        q.stem,
        q.choices,
        hypotheses,
        facts,
        open_gate,
    )
    return {
        "answer": q.answer_index,
        "direct": int(np.argmax(likelihood[0])),
        "gold_likelihood": int(np.argmax(likelihood[1])),
        "gold_verifier": int(np.argmax(gold)),
        "top1": int(np.argmax(judged[0].entailment)) if judged else int(np.argmax(likelihood[0])),
        "facts": [(j.similarity, j.entailment) for j in judged],
        "gold_retrieved": any(f.text == q.fact for f in facts),
    }


def _gated_pick(row: dict[str, Any], similarity: float, entailment: float) -> int:
    """The reasoner's rule: the best verifier proof over gated facts, else the direct answer."""
    gated = [p for s, p in row["facts"] if s >= similarity and max(p) >= entailment]
    if not gated:
        return int(row["direct"])
    best = max(gated, key=max)
    return int(np.argmax(best))


def _share(rows: list[dict[str, Any]], key: str) -> float:
    return float(np.mean([r[key] == r["answer"] for r in rows]))


def _markdown(result: dict[str, Any], data: Path, offset: int) -> str:
    rows = [[rule, f"{value:.1%}"] for rule, value in result["accuracy"].items()]
    grid_rows = [
        [f"{s}", *(f"{result['grid'][f'{s} {e}']:.1%}" for e in ENTAILMENTS)] for s in SIMILARITIES
    ]
    return f"""## TeachMe: can {result["model"]} use a fact? Which facts become premises?

{result["questions"]} questions of `{data.name}` from #{offset}; memory holds
{result["memory_facts"]} facts, the gold fact among the 5 retrieved for
{result["gold_fact_retrieved"]:.0%} of them. Chance is 25%. Wall time {result["seconds"]} s.

{table(["answer rule", "accuracy"], rows)}

Gate grid (rows: minimum cosine similarity of fact and question; columns: minimum verifier
entailment of some choice); a question with no fact through the gate is answered directly.

{table(["similarity", *(str(e) for e in ENTAILMENTS)], grid_rows)}
"""
