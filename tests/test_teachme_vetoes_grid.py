"""The grids `mindstream eval teachme-vetoes` chooses TeachMe's thresholds from, on rows
written by hand."""

from __future__ import annotations

from mindstream.experiments.teachme_vetoes import Row, block_grid, choose_block, grid

# The negated fact denies choice 0 (the judge agrees, the verifier weakly entails it); the core
# fact reads to the judge as showing choice 0 false, wrongly, at 0.4, with no support either;
# a second core fact the verifier finds supports choice 0 is never blocked from it.
ROWS: list[Row] = [
    (0, 0, [0.8, 0.1], [0.3, 0.1]),
    (None, 0, [0.4, 0.1], [0.3, 0.1]),
    (0, 0, [0.8, 0.1], [0.3, 0.1]),
    (None, 0, [0.9, 0.1], [0.9, 0.1]),
]


def test_blocks_are_vetoes_at_looser_thresholds_and_spare_what_the_fact_supports() -> None:
    vetoes = {(p["floor"], p["margin"]): p for p in grid(ROWS, support=0.5)}
    assert vetoes[(0.1, 0.1)]["denied_ruled_out"] == 1.0
    blocks = {(p["floor"], p["margin"]): p for p in block_grid(ROWS, support=0.5)}
    assert blocks[(0.1, 0.1)] == {
        "floor": 0.1,
        "margin": 0.1,
        "denied_blocked": 1.0,
        "right_blocked": 0.5,
    }
    assert blocks[(0.5, 0.1)]["denied_blocked"] == 1.0
    assert blocks[(0.5, 0.1)]["right_blocked"] == 0.0


def test_the_chosen_block_keeps_the_right_proofs_within_budget() -> None:
    best = choose_block(block_grid(ROWS, support=0.5))
    assert best["right_blocked"] == 0.0 and best["denied_blocked"] == 1.0
