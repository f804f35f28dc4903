"""The grids `mindstream eval teachme-vetoes` chooses TeachMe's thresholds from, on rows
written by hand."""

from __future__ import annotations

from mindstream.lab.experiments.teachme_vetoes_grid import (
    Row,
    block_grid,
    choose,
    choose_block,
    grid,
)

# The negated fact denies choice 0 (the judge agrees, the verifier weakly entails it); the core
# fact reads to the judge as showing choice 0 false, wrongly, at 0.4, with no support either;
# a second core fact the verifier finds supports choice 0 is never blocked from it.
ROWS: list[Row] = [
    Row(0, 0, [0.8, 0.1], [0.3, 0.1], [0.8, 0.1], [0.0, 0.0], 0.5),
    Row(None, 0, [0.4, 0.1], [0.3, 0.1], [0.4, 0.1], [0.0, 0.0], 0.5),
    Row(0, 0, [0.8, 0.1], [0.3, 0.1], [0.8, 0.1], [0.0, 0.0], 0.5),
    Row(None, 0, [0.9, 0.1], [0.9, 0.1], [0.9, 0.1], [0.0, 0.0], 0.5),
]


def test_blocks_are_vetoes_at_looser_thresholds_and_spare_what_the_fact_supports() -> None:
    vetoes = {
        (p["floor"], p["margin"]): p
        for p in grid(ROWS, support=0.5)
        if p["overruled_at"] is None and p["best_support"] is None and p["claim_first"] == 0
    }
    assert vetoes[(0.1, 0.1)]["denied_ruled_out"] == 1.0
    blocks = {(p["floor"], p["margin"]): p for p in block_grid(ROWS, support=0.5)}
    assert blocks[(0.1, 0.1)] == {
        "floor": 0.1,
        "margin": 0.1,
        "overruled_at": None,
        "best_support": None,
        "claim_first": 0.0,
        "denied_blocked": 1.0,
        "right_blocked": 0.5,
    }
    assert blocks[(0.5, 0.1)]["denied_blocked"] == 1.0
    assert blocks[(0.5, 0.1)]["right_blocked"] == 0.0


def test_the_chosen_block_keeps_the_right_proofs_within_budget() -> None:
    best = choose_block(block_grid(ROWS, support=0.5))
    assert best["right_blocked"] == 0.0 and best["denied_blocked"] == 1.0


# A denial the verifier reads as support (0.8): kept by the support guard, ruled out once the
# judge's clear lead (0.8) overrules it; a core fact the judge misreads as clearly denying what
# it supports is then a wrong veto, which the budget counts.
DENIAL_READ_AS_SUPPORT: list[Row] = [
    Row(0, 0, [0.9, 0.1], [0.8, 0.1], [0.9, 0.1], [0.0, 0.0], 0.5),
    Row(None, 0, [0.2, 0.1], [0.9, 0.1], [0.2, 0.1], [0.0, 0.0], 0.5),
    Row(None, 0, [0.9, 0.1], [0.9, 0.1], [0.9, 0.1], [0.0, 0.0], 0.5),
]


def test_a_clear_judge_overrules_the_verifiers_support_and_its_cost_is_counted() -> None:
    points = {
        (p["overruled_at"], p["floor"], p["margin"]): p
        for p in grid(DENIAL_READ_AS_SUPPORT, 0.5)
        if p["best_support"] is None and p["claim_first"] == 0
    }
    kept, overruled = points[(None, 0.1, 0.1)], points[(0.5, 0.1, 0.1)]
    assert (kept["denied_ruled_out"], kept["wrong_per_fact"]) == (0.0, 0.0)
    assert (overruled["denied_ruled_out"], overruled["wrong_per_fact"]) == (1.0, 1 / 3)


def test_ties_go_to_the_support_overruled_least() -> None:
    best = choose(grid(ROWS, support=0.5))
    assert best["overruled_at"] is None and best["best_support"] == 0.3
    assert best["claim_first"] == 0


def test_the_choice_keeps_the_guard_for_what_a_fact_entails_most_even_where_it_costs() -> None:
    # the negated fact's denied choice is also what the verifier finds it entails most (0.3),
    # and the judge's lead (0.15) overrules no support: only an unguarded point rules it out,
    # and it is still not chosen
    rows: list[Row] = [
        Row(0, 0, [0.25, 0.1], [0.3, 0.1], [0.25, 0.1], [0.0, 0.0], 0.5),
        Row(None, 0, [0.1, 0.1], [0.9, 0.1], [0.1, 0.1], [0.0, 0.0], 0.5),
    ]
    points = grid(rows, support=0.5)
    assert max(p["denied_ruled_out"] for p in points if p["best_support"] is None) == 1.0
    best = choose(points)
    assert best["best_support"] is not None and best["denied_ruled_out"] < 1.0


# A core fact the judge misreads as denying the choice it entails most, weakly (0.3): the
# best-support guard keeps that choice; the budget on right choices vetoed counts it.
OWN_BEST: list[Row] = [
    Row(0, 0, [0.8, 0.1], [0.1, 0.1], [0.8, 0.1], [0.0, 0.0], 0.5),
    Row(None, 0, [0.5, 0.1], [0.3, 0.1], [0.5, 0.1], [0.0, 0.0], 0.5),
]


def test_a_fact_never_vetoes_the_choice_it_entails_most_under_the_guard() -> None:
    points = {
        (p["best_support"], p["floor"], p["margin"]): p
        for p in grid(OWN_BEST, 0.5)
        if p["overruled_at"] is None and p["claim_first"] == 0
    }
    assert points[(None, 0.1, 0.1)]["right_vetoed"] == 1.0
    assert points[(0.2, 0.1, 0.1)]["right_vetoed"] == 0.0
    assert points[(0.2, 0.1, 0.1)]["denied_ruled_out"] == 1.0
    assert choose(grid(OWN_BEST, 0.5))["right_vetoed"] == 0.0


# Read fact first, the judge leans to the other choice with the same predicate (0.36 against
# 0.26, as "Rubber does not conduct electricity" did with "a copper wire"); read claim first,
# it finds the denied one (0.96 against 0.37). Half of each reading rules out the denied choice.
SUBJECT_MIXED_UP: list[Row] = [
    Row(0, 1, [0.26, 0.36], [0.05, 0.05], [0.96, 0.37], [0.0, 0.0], 0.5),
    Row(None, 1, [0.05, 0.1], [0.05, 0.6], [0.1, 0.2], [0.0, 0.0], 0.5),
]


def test_the_claim_first_reading_can_find_the_subject_the_fact_denies() -> None:
    points = {
        p["claim_first"]: p
        for p in grid(SUBJECT_MIXED_UP, 0.5)
        if (p["overruled_at"], p["best_support"], p["floor"], p["margin"])
        == (None, None, 0.1, 0.05)
    }
    assert points[0.0]["denied_ruled_out"] == 0.0 and points[0.0]["wrong_per_fact"] == 0.5
    assert points[0.5]["denied_ruled_out"] == 1.0 and points[0.5]["wrong_per_fact"] == 0.0
    assert choose(grid(SUBJECT_MIXED_UP, 0.5))["claim_first"] > 0


# A denial the verifier reads almost as support (0.22 for the denied choice, as "Rubber does
# not conduct electricity" for "a rubber band") while its negation entails that choice far more
# (0.75); a core fact whose negation the verifier also reads as support, a little less (0.85
# against 0.9). Negation margins up to 0.5 block the first, and none blocks the core fact.
NEGATION_READ_AS_SUPPORT: list[Row] = [
    Row(0, 0, [0.1, 0.1], [0.22, 0.15], [0.1, 0.1], [0.75, 0.68], 0.5),
    Row(None, 0, [0.1, 0.1], [0.9, 0.1], [0.1, 0.1], [0.85, 0.1], 0.5),
]


def test_the_negation_check_blocks_what_a_facts_negation_supports_more() -> None:
    from mindstream.lab.experiments.teachme_vetoes_grid import choose_negation, negation_grid

    no_block = {"floor": 0.9, "margin": 0.9}
    points = {
        p["negation_margin"]: p
        for p in negation_grid(NEGATION_READ_AS_SUPPORT, 0.5, (None, None, 0.0), no_block)
    }
    assert points[None]["denied_blocked"] == 0.0
    assert points[0.5]["denied_blocked"] == 1.0 and points[0.5]["right_blocked"] == 0.0
    assert points[0.0]["right_blocked"] == 0.0
    assert choose_negation(list(points.values()))["negation_margin"] == 0.5


def test_another_topics_denial_counts_every_veto_it_makes() -> None:
    from mindstream.lab.experiments.teachme_vetoes_grid import other_topic_vetoes

    point = {"floor": 0.1, "margin": 0.1, "overruled_at": None, "best_support": None}
    point["claim_first"] = 0.0
    traps: list[Row] = [
        Row(None, 1, [0.1, 0.6], [0.0, 0.0], [0.1, 0.6], [0.0, 0.0], 0.5),  # vetoes choice 1
        Row(None, 1, [0.1, 0.15], [0.0, 0.0], [0.1, 0.15], [0.0, 0.0], 0.5),  # no lead: nothing
    ]
    assert other_topic_vetoes(traps, point, support=0.5) == 0.5
    assert other_topic_vetoes([], point, support=0.5) == 0.0


def test_a_veto_needs_a_fact_about_the_question_and_the_floor_weighs_both_kinds() -> None:
    """An own denial close to the question (0.6) and another topic's denial that names a
    choice but is about something else (0.1): both read by the judge as denying choice 0. The
    on-topic floor keeps the first veto and drops the second."""
    from mindstream.lab.experiments.teachme_vetoes_grid import choose_on_topic, on_topic_grid

    own = [
        Row(0, 1, [0.8, 0.1], [0.1, 0.1], [0.8, 0.1], [0.0, 0.0], 0.6),
        Row(None, 1, [0.1, 0.1], [0.1, 0.9], [0.1, 0.1], [0.0, 0.0], 0.6),
    ]
    traps = [Row(None, 1, [0.8, 0.1], [0.1, 0.1], [0.8, 0.1], [0.0, 0.0], 0.1)]
    point = {"floor": 0.1, "margin": 0.1, "overruled_at": None, "best_support": None}
    point["claim_first"] = 0.0
    points = {p["on_topic"]: p for p in on_topic_grid(own, traps, point, support=0.5)}
    assert (points[None]["denied_ruled_out"], points[None]["other_topics_vetoed"]) == (1.0, 1.0)
    assert (points[0.3]["denied_ruled_out"], points[0.3]["other_topics_vetoed"]) == (1.0, 0.0)
    assert points[0.1]["other_topics_vetoed"] == 1.0  # at the floor: kept
    assert choose_on_topic(list(points.values()))["on_topic"] == 0.15
