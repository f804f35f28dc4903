"""The grids behind `mindstream eval teachme-vetoes`: for each rule and threshold, how often a
taught fact rules out (or is kept from proving) the choice it denies, and what it costs; and
the choices of thresholds within budgets. Pure functions of the measured rows."""

from __future__ import annotations

from typing import Any, NamedTuple

from mindstream.agents.teachme.config import VetoRule
from mindstream.agents.teachme.judging import about_the_question, mix_readings, ruled_out_by

FLOORS = (0.05, 0.1, 0.2, 0.3, 0.5)
MARGINS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3)
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


class Row(NamedTuple):
    """One taught fact against one question's claims."""

    denied: int | None  # the choice the fact denies; None for the core fact
    right: int
    contradiction: list[float]  # the judge, fact first
    entailment: list[float]  # the verifier
    claim_first: list[float]  # the judge, claim first
    negation: list[float]  # the verifier, the fact's negation as premise
    on_topic: float  # cosine of the fact and the question alone


def vetoed(
    row: Row,
    floor: float,
    margin: float,
    support: float,
    guard: Guard = NO_GUARD,
    on_topic: float | None = None,
) -> list[int]:
    if not about_the_question(row.on_topic, on_topic):
        return []
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
    return [
        {
            "floor": floor,
            "margin": margin,
            "overruled_at": guard[0],
            "best_support": guard[1],
            "claim_first": guard[2],
            **veto_shares([(r, vetoed(r, floor, margin, support, guard)) for r in rows]),
        }
        for guard in GUARDS
        for floor in FLOORS
        for margin in MARGINS
    ]


def veto_shares(picked: list[tuple[Row, list[int]]]) -> dict[str, float]:
    """Of each row's vetoes: the share of negated facts that rule out what they deny, wrong
    vetoes per fact, and the share of core facts that veto the right choice they support."""
    negated = [v for r, v in picked if r.denied is not None]
    core = [r.right in v for r, v in picked if r.denied is None]
    return {
        "denied_ruled_out": sum(r.denied in v for r, v in picked) / len(negated),
        "wrong_per_fact": sum(sum(i != r.denied for i in v) for r, v in picked) / len(picked),
        "right_vetoed": sum(core) / len(core),
    }


def other_topic_vetoes(
    rows: list[Row],
    point: dict[str, Any],
    support: float,
    guard: Guard | None = None,
    on_topic: float | None = None,
) -> float:
    """The share of rows (facts that deny nothing here) with a veto at `point`."""
    chosen = guard_of(point) if guard is None else guard
    floor, margin = point["floor"], point["margin"]
    hits = [bool(vetoed(r, floor, margin, support, chosen, on_topic)) for r in rows]
    return sum(hits) / len(hits) if hits else 0.0


# The cosine to the question alone a vetoing fact needs (`TeachMeConfig.veto_on_topic`);
# None: none.
ON_TOPIC: tuple[float | None, ...] = (None, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)


def on_topic_grid(
    rows: list[Row], traps: list[Row], point: dict[str, Any], support: float
) -> list[dict[str, Any]]:
    """At the chosen veto point, per on-topic floor: own denials ruled out, wrong vetoes per
    fact, right choices vetoed, and other topics' denials (`traps`) vetoing."""
    guard, floor, margin = guard_of(point), point["floor"], point["margin"]
    return [
        {
            "on_topic": gate,
            **veto_shares([(r, vetoed(r, floor, margin, support, guard, gate)) for r in rows]),
            "other_topics_vetoed": other_topic_vetoes(traps, point, support, guard, gate),
        }
        for gate in ON_TOPIC
    ]


def choose_on_topic(points: list[dict[str, Any]]) -> dict[str, Any]:
    """The floor that best tells a question's own denials from other topics' (most own denials
    ruled out less other topics' vetoing, Youden's J), within the wrong-veto budgets (ties: the
    grid's order, the looser floor)."""
    within = within_veto_budgets(points) or points
    return max(within, key=lambda p: round(p["denied_ruled_out"] - p["other_topics_vetoed"], 9))


def within_veto_budgets(points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The points with at most `WRONG_BUDGET` wrong vetoes per fact and a core fact vetoing
    its right choice for at most `RIGHT_BUDGET` of questions."""
    return [
        p
        for p in points
        if p["wrong_per_fact"] <= WRONG_BUDGET + 1e-9 and p["right_vetoed"] <= RIGHT_BUDGET + 1e-9
    ]


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
    within = within_veto_budgets(guarded) or guarded

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


# The negation check's margins (`TeachMeConfig.negation_margin`); None: no check.
NEGATION_MARGINS: tuple[float | None, ...] = (None, 0.5, 0.3, 0.2, 0.1, 0.05, 0.0)


def negation_blocked(row: Row, margin: float | None) -> set[int]:
    """The choices the fact's negation entails by more than `margin` above the fact
    (`judging.not_premise_of`)."""
    if margin is None:
        return set()
    return {i for i, (p, q) in enumerate(zip(row[3], row[5], strict=True)) if q - p > margin}


def negation_grid(
    rows: list[Row], support: float, guard: Guard, block: dict[str, Any]
) -> list[dict[str, Any]]:
    """Premise blocks by the chosen block rule and the negation check together, per margin."""
    negated = [r for r in rows if r[0] is not None]
    core = [r for r in rows if r[0] is None]

    def share(group: list[Row], index: int, margin: float | None) -> float:
        hits = [
            r[index] in negation_blocked(r, margin)
            or r[index] in vetoed(r, block["floor"], block["margin"], support, guard)
            for r in group
        ]
        return sum(hits) / len(group)

    return [
        {
            "negation_margin": m,
            "denied_blocked": share(negated, 0, m),
            "right_blocked": share(core, 1, m),
        }
        for m in NEGATION_MARGINS
    ]


def choose_negation(points: list[dict[str, Any]]) -> dict[str, Any]:
    """The most denied choices blocked within `BLOCK_BUDGET` (ties: fewer right blocked, then
    the grid's order: the larger margin, the check used least)."""
    within = [p for p in points if p["right_blocked"] <= BLOCK_BUDGET + 1e-9] or points[:1]
    return max(within, key=lambda p: (round(p["denied_blocked"], 9), -round(p["right_blocked"], 9)))


def guard_of(point: dict[str, Any]) -> Guard:
    return (point["overruled_at"], point["best_support"], point["claim_first"])
