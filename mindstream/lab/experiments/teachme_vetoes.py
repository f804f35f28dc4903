"""`mindstream eval teachme-vetoes`: where TeachMe's veto thresholds come from.

On OpenBookQA train questions that neither the verifier nor the judge trained on (the last
500), a taught negated core fact should rule out the one choice it denies and nothing else,
and the core fact itself (which supports the right choice) should rule out nothing. For each
(floor, margin) of the rule in `agents/teachme/judging.vetoes` this measures the share of
denied choices ruled out and the wrong vetoes per fact; the configured thresholds rule out the
most within `WRONG_BUDGET`. The same rule at looser thresholds keeps a fact from proving the
choice it denies (`shown_false`): its grid counts denied choices blocked and right choices
blocked from their own core fact, chosen within `BLOCK_BUDGET`; so is the margin by which the
fact's negation must entail a choice more than the fact before the fact may not prove it
(`negation_margin`, with that block, in the same budget). The grids are in
`teachme_vetoes_grid`. Contrast pairs are never used to choose.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.progress import track

from mindstream.agents.teachme.judging import both_readings, gate_similarities
from mindstream.agents.teachme.language import negate, rule_hypothesis
from mindstream.lab.experiments.openbookqa import Question, load_questions
from mindstream.lab.experiments.report import table, write_section
from mindstream.lab.experiments.teachme_vetoes_grid import (
    BLOCK_BUDGET,
    GUARDS,
    HELD_OUT,
    NO_GUARD,
    RIGHT_BUDGET,
    WRONG_BUDGET,
    Row,
    block_grid,
    choose,
    choose_block,
    choose_negation,
    choose_on_topic,
    grid,
    guard_of,
    negation_grid,
    on_topic_grid,
    other_topic_vetoes,
)
from mindstream.lab.training.judge_data import WordTraps

if TYPE_CHECKING:
    from mindstream.compose import Parts


def judged(parts: Parts, train: Path, limit: int) -> list[Row]:
    questions = load_questions(train)[-HELD_OUT:][:limit]
    return [
        _row(parts, q, fact, denied)
        for q in track(questions, description="facts against claims")
        for fact, denied in ((negate(q.fact), q.answer_index), (q.fact, None))
    ]


def judged_traps(parts: Parts, train: Path, limit: int) -> list[Row]:
    """Per held-out question, another held-out question's negated core fact that names one of
    its choices' words and nothing of the question (`WordTraps`, "A magnet does not attract
    copper" against "Which material conducts electricity?"), kept where it passes TeachMe's
    relevance gate as a retrieved fact would: any veto it makes is wrong."""
    questions = load_questions(train)[-HELD_OUT:][:limit]
    traps, rng = WordTraps(sorted({q.fact for q in questions})), random.Random(0)
    found = [(q, t[1]) for q in questions if (t := traps.denial_for(q, rng)) is not None]
    near = [
        gate_similarities(parts.models.embedder, q.stem, q.choices, [d])[0][0] for q, d in found
    ]
    gate = parts.config.teachme.gate_similarity
    relevant = [pair for pair, cosine in zip(found, near, strict=True) if cosine >= gate]
    return [
        _row(parts, q, denial, None)
        for q, denial in track(relevant, description="other topics' denials")
    ]


def _row(parts: Parts, q: Question, fact: str, denied: int | None) -> Row:
    claims = [rule_hypothesis(q.stem, c) for c in q.choices]
    fact_first, claim_first = both_readings(parts.models.judge, [(fact, c) for c in claims])
    both = parts.models.verifier.entailment_batch(
        [([text], c) for text in (fact, negate(fact)) for c in claims]
    )
    entailment, negation = both[: len(claims)], both[len(claims) :]
    on_topic = gate_similarities(parts.models.embedder, q.stem, q.choices, [fact])[1][0]
    return Row(denied, q.answer_index, fact_first, entailment, claim_first, negation, on_topic)


def configured_point(parts: Parts) -> dict[str, Any]:
    """The shipped veto rule as a grid point (the on-topic floor is measured on top of it)."""
    t = parts.config.teachme
    return {
        "floor": t.veto_floor,
        "margin": t.veto_margin,
        "overruled_at": t.support_overruled_at,
        "best_support": t.best_support_floor,
        "claim_first": t.claim_first_share,
    }


def run(parts: Parts, train: Path, out: Path, limit: int, command: str) -> dict[str, Any]:
    started = time.perf_counter()
    support = parts.config.teachme.support_floor
    rows = judged(parts, train, limit)
    trap_rows = judged_traps(parts, train, limit)
    points = [
        {**p, "other_topics_vetoed": other_topic_vetoes(trap_rows, p, support)}
        for p in grid(rows, support)
    ]
    best = choose(points)
    topics = on_topic_grid(rows, trap_rows, configured_point(parts), support)
    blocks = block_grid(rows, support, guard_of(best))
    negations = negation_grid(rows, support, guard_of(best), choose_block(blocks))
    result = {
        "command": command,
        "model": parts.config.model.spec,
        "questions": min(limit, HELD_OUT),
        "support_floor": support,
        "grid": points,
        "rows": [
            {
                "denied": d,
                "right": r,
                "contradiction": c,
                "entailment": e,
                "contradiction_claim_first": c2,
                "negation_entailment": n,
                "on_topic": t,
            }
            for d, r, c, e, c2, n, t in rows
        ],
        "best": best,
        "other_topics": {
            "denials": len(trap_rows),
            "vetoing": other_topic_vetoes(trap_rows, best, support),
            "vetoing_without_guard": other_topic_vetoes(trap_rows, best, support, NO_GUARD),
            "rows": trap_rows,
        },
        "on_topic_grid": topics,
        "best_on_topic": choose_on_topic(topics),
        "block_grid": blocks,
        "best_block": choose_block(blocks),
        "negation_grid": negations,
        "best_negation": choose_negation(negations),
        "configured": {
            "veto_floor": parts.config.teachme.veto_floor,
            "veto_margin": parts.config.teachme.veto_margin,
            "block_floor": parts.config.teachme.block_floor,
            "block_margin": parts.config.teachme.block_margin,
            "support_overruled_at": parts.config.teachme.support_overruled_at,
            "best_support_floor": parts.config.teachme.best_support_floor,
            "claim_first_share": parts.config.teachme.claim_first_share,
            "negation_margin": parts.config.teachme.negation_margin,
            "veto_on_topic": parts.config.teachme.veto_on_topic,
        },
        "seconds": round(time.perf_counter() - started, 1),
    }
    write_section("teachme_vetoes", _markdown(result), result, out)
    return result


GUARD_HEADER = [
    "claim-first share",
    "support overruled at",
    "best choice supported at",
    "best floor / margin",
    "denied ruled out",
    "wrong/fact",
    "right vetoed",
]


VETO_HEADER = [
    "floor",
    "margin",
    "denied ruled out",
    "wrong vetoes per fact",
    "right vetoed",
    "another topic's denial vetoes",
]


TOPIC_HEADER = [
    "on-topic floor",
    "denied ruled out",
    "another topic's denial vetoes",
    "wrong vetoes per fact",
    "right vetoed",
]


def _never(value: float | None) -> str:
    return "never" if value is None else str(value)


def _margin_note(result: dict[str, Any]) -> str:
    """Why the shipped margin may differ from this eval's best: these rows reward ruling out
    what a denial names, not an instance of what it denies (`TeachMeConfig.veto_margin`)."""
    if result["configured"]["veto_margin"] == result["best"]["margin"]:
        return ""
    return (
        "The configured margin is wider than the best here: it is chosen on the transfer "
        "items (`eval teachme-transfer`), where a category's denial ('Insects do not have a "
        "backbone') leads the judge to rule out an instance's right answer. "
    )


def _markdown(result: dict[str, Any]) -> str:
    best, block, other = result["best"], result["best_block"], result["other_topics"]
    topic = result["best_on_topic"]
    topics = [
        [
            _never(p["on_topic"]),
            f"{p['denied_ruled_out']:.1%}",
            f"{p['other_topics_vetoed']:.1%}",
            f"{p['wrong_per_fact']:.3f}",
            f"{p['right_vetoed']:.1%}",
        ]
        for p in result["on_topic_grid"]
    ]
    chosen = [p for p in result["grid"] if guard_of(p) == guard_of(best)]
    rows = [
        [
            p["floor"],
            p["margin"],
            f"{p['denied_ruled_out']:.1%}",
            f"{p['wrong_per_fact']:.3f}",
            f"{p['right_vetoed']:.1%}",
            f"{p['other_topics_vetoed']:.1%}",
        ]
        for p in chosen
    ]
    per_guard = []
    for guard in GUARDS:
        o, b, share = guard
        top = choose([p for p in result["grid"] if guard_of(p) == guard])
        per_guard.append(
            [
                share,
                _never(o),
                _never(b),
                f"{top['floor']} / {top['margin']}",
                f"{top['denied_ruled_out']:.1%}",
                f"{top['wrong_per_fact']:.3f}",
                f"{top['right_vetoed']:.1%}",
            ]
        )
    blocks = [
        [p["floor"], p["margin"], f"{p['denied_blocked']:.1%}", f"{p['right_blocked']:.1%}"]
        for p in result["block_grid"]
    ]
    negation = result["best_negation"]
    negations = [
        [_never(p["negation_margin"]), f"{p['denied_blocked']:.1%}", f"{p['right_blocked']:.1%}"]
        for p in result["negation_grid"]
    ]
    return f"""## TeachMe: which choices may a taught fact rule out? ({result["model"]})

{result["questions"]} OpenBookQA train questions neither adapter trained on. Taught the
negated core fact, the choice it denies should be ruled out and no other; taught the core fact
itself, nothing should be. A fact rules out the choice the judge finds it shows false most, when
that P reaches the floor and leads the next choice by the margin, unless the fact supports it:
the verifier's entailment at least {result["support_floor"]}, or the choice the fact entails
most at the "best choice supported at" value or more. That support no longer counts once the
judge's lead reaches the "overruled at" value (the verifier reads a denial as support). The
judge's P mixes its fact-first reading with its claim-first one by the "claim-first share". Best
(most denied choices ruled out with at most {WRONG_BUDGET} wrong vetoes per fact and a core
fact vetoing its own right choice for at most {RIGHT_BUDGET:.0%} of questions; the best-choice
guard always on, since a fact must not veto what it supports and these rows cannot show that
a weakly supporting fact gets vetoed, only what the guard costs): floor
{best["floor"]}, margin {best["margin"]}, overruled at {_never(best["overruled_at"])}, best
choice supported at {_never(best["best_support"])}, claim-first share {best["claim_first"]}
({best["denied_ruled_out"]:.1%} ruled
out, {best["wrong_per_fact"]:.3f} wrong per fact, right vetoed {best["right_vetoed"]:.1%});
configured: {result["configured"]}. {_margin_note(result)}Wall time {result["seconds"]} s.

Another topic's denial (another held-out question's negated core fact naming a choice's word
and nothing of the question, as "A magnet does not attract copper" against "Which material
conducts electricity?", kept where it passes the relevance gate) should veto nothing: at the
best point it vetoes a choice for {other["vetoing"]:.1%} of {other["denials"]} questions
({other["vetoing_without_guard"]:.1%} without the support guards): no floor or margin of this
judge tells these apart from the own denials. A fact about the question itself does: a veto
needs the fact's cosine to the question alone (not its choices) at the on-topic floor. With the
configured floor, margin and guard, best (most own denials ruled out less other topics'
denials vetoing, within the same budgets):
{_never(topic["on_topic"])} ({topic["denied_ruled_out"]:.1%} ruled out,
{topic["other_topics_vetoed"]:.1%} of other topics' denials vetoing, {topic["wrong_per_fact"]:.3f}
wrong per fact, right vetoed {topic["right_vetoed"]:.1%}). These denials share no word with the
question by construction, so part of the gap is lexical; the contrast pairs
(`eval teachme-contrast`) are the check on questions written apart.

{table(TOPIC_HEADER, topics)}

{table(GUARD_HEADER, per_guard)}

With the chosen guard:

{table(VETO_HEADER, rows)}

A fact is also never the premise of the choice it would rule out at looser thresholds (a
negation must not prove what it denies on the verifier's weak entailment). Best (most denied
choices blocked with the right choice's own core fact blocked for at most {BLOCK_BUDGET:.0%} of
questions): floor {block["floor"]}, margin {block["margin"]} ({block["denied_blocked"]:.1%}
blocked, right blocked {block["right_blocked"]:.1%}).

{table(["floor", "margin", "denied choice blocked", "right choice blocked"], blocks)}

Nor is a fact the premise of a choice its own negation entails more, by the negation margin
(the verifier reads "Rubber does not conduct electricity" almost as support for "a rubber
band", and "Rubber conducts electricity" as far more). With the block above, best (most denied
choices blocked with the right choice blocked for at most {BLOCK_BUDGET:.0%} of questions):
margin {_never(negation["negation_margin"])} ({negation["denied_blocked"]:.1%} blocked, right
blocked {negation["right_blocked"]:.1%}).

{table(["negation margin", "denied choice blocked", "right choice blocked"], negations)}
"""
