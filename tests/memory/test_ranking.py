"""The rows near the extremes and the contenders for a top k, against brute force: random
values, many ties, sizes on both sides of the block path, extremes in the tail."""

from __future__ import annotations

import numpy as np
import pytest

from mindstream.memory.ranking import (
    contenders,
    contenders_by_summary,
    near_extremes,
    summarize,
)


def _values(rng: np.random.Generator, n: int, ties: bool) -> np.ndarray:
    if ties:
        return rng.integers(-40, 41, n).astype(np.float32)
    return rng.standard_normal(n).astype(np.float32)


@pytest.mark.parametrize("n", [1, 500, 16 * 1024 - 1, 16 * 1024, 50_000 + 17])
@pytest.mark.parametrize("ties", [False, True])
def test_near_extremes_finds_every_row_within_the_window(n: int, ties: bool) -> None:
    rng = np.random.default_rng(n)
    values = _values(rng, n, ties)
    if n > 1:
        values[-1] = values.max() + 1.0  # the largest row sits in the tail past the blocks
    for window in (0.0, 0.5, 3.0):
        expected_low = np.flatnonzero(values <= values.min() + window)
        expected_high = np.flatnonzero(values >= values.max() - window)
        for summary in (None, summarize(values, 256)):  # a scan's summary: short last block
            near_low, near_high = near_extremes(values, window, summary)
            assert sorted(near_low.tolist()) == expected_low.tolist()
            assert sorted(near_high.tolist()) == expected_high.tolist()


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("ties", [False, True])
def test_contenders_hold_every_row_within_the_margin_of_the_kth(seed: int, ties: bool) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 60_000))
    ranking = _values(rng, n, ties)
    for k in (1, 10, int(rng.integers(1, n))):
        for margin in (0.0, 0.05, 2.0):
            kth = np.sort(ranking)[-k]
            expected = np.flatnonzero(ranking >= kth - margin)
            assert sorted(contenders(ranking, k, margin).tolist()) == expected.tolist()


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("ties", [False, True])
def test_contenders_from_a_scans_guess_hold_every_row_within_the_margin(
    seed: int, ties: bool
) -> None:
    """Whatever slope the scan guessed (right, off by a tenth, wrong sign, none), the rows
    found from its block maxima are exactly those within the margin of the k-th."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 60_000))
    approx = _values(rng, n, ties) * 100
    prior = rng.uniform(0, 2.5, n).astype(np.float32)
    slope = 0.02
    ranking = np.float32(slope) * approx + prior
    for guess in (slope, 1.1 * slope, -slope, 0.0):
        guessed = np.float32(guess) * approx + prior
        summary = summarize(approx, 256)
        summary = summary._replace(ranks=summarize(guessed, 256).highs, slope=guess)
        for k in (1, 10, int(rng.integers(1, n))):
            for margin in (0.0, 0.05, 2.0):
                kth = np.sort(ranking)[-k]
                expected = np.flatnonzero(ranking >= kth - margin)
                found = contenders_by_summary(approx, prior, slope, summary, k, margin)
                assert sorted(found.tolist()) == expected.tolist()
