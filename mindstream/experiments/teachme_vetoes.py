"""`mindstream eval teachme-vetoes`: where TeachMe's veto thresholds come from.

On OpenBookQA train questions that neither the verifier nor the judge trained on (the last
500), a taught negated core fact should rule out the one choice it denies and nothing else,
and the core fact itself (which supports the right choice) should rule out nothing. For each
(floor, margin) of the rule in `agents/teachme/judging.vetoes` this measures the share of
denied choices ruled out and the wrong vetoes per fact; the configured thresholds rule out the
most within `WRONG_BUDGET`. The same rule at looser thresholds keeps a fact from proving the
choice it denies (`shown_false`): its grid counts denied choices blocked and right choices
blocked from their own core fact, chosen within `BLOCK_BUDGET`. Contrast pairs are never used
to choose.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.progress import track

from agents.teachme.config import VetoRule
from agents.teachme.judging import both_readings, mix_readings, ruled_out_by
from agents.teachme.language import negate, rule_hypothesis
from mindstream.experiments.openbookqa import load_questions
from mindstream.experiments.report import table, write_section

if TYPE_CHECKING:
    from mindstream.compose import Parts

FLOORS = (0.05, 0.1, 0.2, 0.3, 0.5)
MARGINS = (0.0, 0.05, 0.1, 0.2, 0.3)
# The judge's lead at which the verifier's support stops keeping a choice; None: never. Ties
# go to the earlier one (the support guard overruled least).
OVERRULES: tuple[float | None, ...] = (None, 0.5, 0.4, 0.3, 0.2)
# The entailment at which the choice a fact entails most counts as supported; None: never.
BEST_SUPPORTS: tuple[float | None, ...] = (None, 0.3, 0.2, 0.1)
# The weight of the judge's claim-first reading (`TeachMeConfig.claim_first_share`).
CLAIM_FIRST = (0.0, 0.25, 0.5)
# (support overruled at, best choice supported at, claim-first share)
Guard = tuple[float | None, float | None, float]
GUARDS: list[Guard] = [(o, b, s) for s in CLAIM_FIRST for b in BEST_SUPPORTS for o in OVERRULES]
NO_GUARD: Guard = (None, None, 0.0)
HELD_OUT = 500


# (denied choice, right choice, contradiction fact first, entailment, contradiction claim
# first): denied is None for the core fact
Row = tuple[int | None, int, list[float], list[float], list[float]]


def judged(parts: Parts, train: Path, limit: int) -> list[Row]:
    questions = load_questions(train)[-HELD_OUT:][:limit]
    judge, verifier = parts.judge, parts.verifier
    rows: list[Row] = []
    for q in track(questions, description="facts against claims"):
        claims = [rule_hypothesis(q.stem, c) for c in q.choices]
        for fact, denied in ((negate(q.fact), q.answer_index), (q.fact, None)):
            fact_first, claim_first = both_readings(judge, [(fact, c) for c in claims])
            entailment = verifier.entailment_batch([([fact], c) for c in claims])
            rows.append((denied, q.answer_index, fact_first, entailment, claim_first))
    return rows


def vetoed(
    row: Row,
    floor: float,
    margin: float,
    support: float,
    guard: Guard = NO_GUARD,
) -> list[int]:
    overruled_at, best_support, claim_first = guard
    rule = VetoRule(
        floor=floor,
        margin=margin,
        support=support,
        best_support=best_support,
        overruled_at=overruled_at,
    )
    top = ruled_out_by(mix_readings(row[2], row[4], claim_first), row[3], rule)
    return [] if top is None else [top]


def grid(rows: list[Row], support: float) -> list[dict[str, Any]]:
    """Every (guard, floor, margin): denied choices ruled out, wrong vetoes per fact, and how
    often a core fact vetoes the very choice it supports (the right one)."""
    out = []
    negated = [r for r in rows if r[0] is not None]
    core = [r for r in rows if r[0] is None]
    for guard in GUARDS:
        for floor in FLOORS:
            for margin in MARGINS:
                picked = [(r, vetoed(r, floor, margin, support, guard)) for r in rows]
                right = sum(r[0] in v for r, v in picked if r[0] is not None)
                wrong = sum(sum(i != r[0] for i in v) for r, v in picked)
                own = sum(r[1] in v for r, v in picked if r[0] is None)
                out.append(
                    {
                        "floor": floor,
                        "margin": margin,
                        "overruled_at": guard[0],
                        "best_support": guard[1],
                        "claim_first": guard[2],
                        "denied_ruled_out": right / len(negated),
                        "wrong_per_fact": wrong / len(rows),
                        "right_vetoed": own / len(core),
                    }
                )
    return out


def block_grid(rows: list[Row], support: float, guard: Guard = NO_GUARD) -> list[dict[str, Any]]:
    """Premise blocks (the same rule, looser thresholds): how often the denied choice loses the
    negated fact as a premise, and how often the right choice loses the core fact that
    supports it."""
    negated = [r for r in rows if r[0] is not None]
    core = [r for r in rows if r[0] is None]

    def share(group: list[Row], index: int, floor: float, margin: float) -> float:
        hits = [r[index] in vetoed(r, floor, margin, support, guard) for r in group]
        return sum(hits) / len(group)

    return [
        {
            "floor": floor,
            "margin": margin,
            "overruled_at": guard[0],
            "best_support": guard[1],
            "claim_first": guard[2],
            "denied_blocked": share(negated, 0, floor, margin),
            "right_blocked": share(core, 1, floor, margin),
        }
        for floor in FLOORS
        for margin in MARGINS
    ]


# A blocked right proof loses what the user taught: at most one core fact in twenty.
BLOCK_BUDGET = 0.05
# A wrong veto can take the right answer away, a missed one leaves the verifier to decide: the
# rule may make one wrong veto per ~16 taught facts, no more.
WRONG_BUDGET = 0.06


def best_within(
    points: list[dict[str, Any]], gain: str, cost: str, budget: float
) -> dict[str, Any]:
    """The grid point with the most `gain` whose `cost` stays within `budget` (ties: less
    cost, then the higher floor); every point when none does."""
    within = [p for p in points if p[cost] <= budget + 1e-9] or points
    return max(within, key=lambda p: (round(p[gain], 9), -round(p[cost], 9), p["floor"]))


# "A fact that supports a choice can never veto it": a core fact may veto the right choice it
# supports for at most one question in a hundred.
RIGHT_BUDGET = 0.01


def choose(points: list[dict[str, Any]]) -> dict[str, Any]:
    """The most denied choices ruled out within both budgets (ties: fewer right choices
    vetoed, fewer wrong vetoes, the higher floor, then the grid's order), with the guard for
    the choice a fact entails most on: a fact must not veto what it supports however weakly
    ("Ice floats on water because it is less dense than water" and the pond's "on the top
    surface", tests/real), and these rows hold only negated core facts, where that guard can
    only cost. The unguarded points stay in the grid to show the cost."""
    guarded = [p for p in points if p["best_support"] is not None] or points
    within = [
        p
        for p in guarded
        if p["wrong_per_fact"] <= WRONG_BUDGET + 1e-9 and p["right_vetoed"] <= RIGHT_BUDGET + 1e-9
    ] or guarded

    def rank(p: dict[str, Any]) -> tuple[float, ...]:
        return (
            round(p["denied_ruled_out"], 9),
            -round(p["right_vetoed"], 9),
            -round(p["wrong_per_fact"], 9),
            p["floor"],
        )

    return max(within, key=rank)


def choose_block(points: list[dict[str, Any]]) -> dict[str, Any]:
    return best_within(points, "denied_blocked", "right_blocked", BLOCK_BUDGET)


def run(parts: Parts, train: Path, out: Path, limit: int, command: str) -> dict[str, Any]:
    started = time.perf_counter()
    support = parts.config.teachme.support_floor
    rows = judged(parts, train, limit)
    points = grid(rows, support)
    best = choose(points)
    blocks = block_grid(rows, support, guard_of(best))
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
            }
            for d, r, c, e, c2 in rows
        ],
        "best": best,
        "block_grid": blocks,
        "best_block": choose_block(blocks),
        "configured": {
            "veto_floor": parts.config.teachme.veto_floor,
            "veto_margin": parts.config.teachme.veto_margin,
            "block_floor": parts.config.teachme.block_floor,
            "block_margin": parts.config.teachme.block_margin,
            "support_overruled_at": parts.config.teachme.support_overruled_at,
            "best_support_floor": parts.config.teachme.best_support_floor,
            "claim_first_share": parts.config.teachme.claim_first_share,
        },
        "seconds": round(time.perf_counter() - started, 1),
    }
    write_section("teachme_vetoes", _markdown(result), result, out)
    return result


def guard_of(point: dict[str, Any]) -> Guard:
    return (point["overruled_at"], point["best_support"], point["claim_first"])


GUARD_HEADER = [
    "claim-first share",
    "support overruled at",
    "best choice supported at",
    "best floor / margin",
    "denied ruled out",
    "wrong/fact",
    "right vetoed",
]


def _never(value: float | None) -> str:
    return "never" if value is None else str(value)


def _markdown(result: dict[str, Any]) -> str:
    best, block = result["best"], result["best_block"]
    chosen = [p for p in result["grid"] if guard_of(p) == guard_of(best)]
    rows = [
        [
            p["floor"],
            p["margin"],
            f"{p['denied_ruled_out']:.1%}",
            f"{p['wrong_per_fact']:.3f}",
            f"{p['right_vetoed']:.1%}",
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
configured: {result["configured"]}. Wall time {result["seconds"]} s.

{table(GUARD_HEADER, per_guard)}

With the chosen guard:

{table(["floor", "margin", "denied ruled out", "wrong vetoes per fact", "right vetoed"], rows)}

A fact is also never the premise of the choice it would rule out at looser thresholds (a
negation must not prove what it denies on the verifier's weak entailment). Best (most denied
choices blocked with the right choice's own core fact blocked for at most {BLOCK_BUDGET:.0%} of
questions): floor {block["floor"]}, margin {block["margin"]} ({block["denied_blocked"]:.1%}
blocked, right blocked {block["right_blocked"]:.1%}).

{table(["floor", "margin", "denied choice blocked", "right choice blocked"], blocks)}
"""
