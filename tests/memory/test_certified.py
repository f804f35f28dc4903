"""The int8 search compares estimated scores with exact ones (`certified._exact_top_k`), so
its estimates must hold in absolute terms, not only row against row: flat recency (the score
gives it 0.5) and a cached prior whose growth bounds have moved since it was built."""

from __future__ import annotations

import numpy as np
import pytest

from mindstream.memory.index import OwnerIndex
from mindstream.memory.records import RetrievalWeights


def _reference(E, last, imp, q, now, weights, decay):  # type: ignore[no-untyped-def]
    def mm(x):  # type: ignore[no-untyped-def]
        span = x.max() - x.min()
        return np.full(x.shape, 0.5) if span == 0 else (x - x.min()) / span

    rec, im, rel = mm(decay ** (now - last)), mm(imp), mm(E @ q)
    score = weights.recency * rec + weights.importance * im + weights.relevance * rel
    return np.argsort(-score, kind="stable")[:10], np.sort(score)[::-1][:10]


def _index(n: int, last: np.ndarray, seed: int) -> tuple[OwnerIndex, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    E = rng.standard_normal((n, 384)).astype(np.float32)
    E /= np.linalg.norm(E, axis=1, keepdims=True)
    imp = rng.integers(1, 11, n).astype(np.float32)
    index = OwnerIndex(384, 0.99, "int8")
    index.append([str(i) for i in range(n)], E, imp, last, last, np.zeros(n), np.zeros(n))
    return index, E, imp


@pytest.mark.parametrize("second_oldest", [5.5, 50.0])
def test_a_cached_prior_is_within_its_drift_of_a_fresh_one(second_oldest: float) -> None:
    """The oldest row is touched just after the newest, so both growth bounds move up by the
    same amount: the span is unchanged, the low is not (by half the rebuild limit, so the
    cached prior is kept and its drift must cover the move, or well past it)."""
    from mindstream.memory.certified import prior_into

    n, w_rec, w_imp = 2000, 0.5, 2.0
    rng = np.random.default_rng(5)
    last = rng.uniform(60.0, 700.0, n)
    last[:3] = [0.0, second_oldest, 700.0]
    index, _, _ = _index(n, last, 6)
    index.prior.get(index, w_rec, w_imp)
    g_low, g_span = index.growth_bounds()
    rise = float(index._growth(np.array([second_oldest]))[0]) - g_low
    top = float(index._growth(np.array([700.0]))[0])
    now = 700.0 + float(np.log((top + rise) / top) / -index.log_decay)
    index.touch(np.array([0]), now)
    assert index.growth_bounds()[1] == pytest.approx(g_span, rel=1e-9)
    cached, drift = index.prior.get(index, w_rec, w_imp)
    low, span = index.growth_bounds()
    fresh = prior_into(
        np.empty(n, np.float32),
        index.growth32[:n],
        low,
        span,
        index.importance_norm(),
        w_rec,
        w_imp,
    )
    assert np.abs(cached - fresh).max() <= drift + 1e-6


def test_near_ties_under_flat_recency_keep_the_int8_top_k_exact(int8_scan: str) -> None:
    """Thirty rows a hair apart in relevance at the top and thirty at the bottom, closer than
    the int8 codes can tell: exact values decide the extremes and the top k, so estimates must
    sit where the scores do."""
    n, weights = 30_000, RetrievalWeights(recency=0.5, importance=0.0, relevance=3.0)
    rng = np.random.default_rng(8)
    E = rng.standard_normal((n, 384)).astype(np.float32)
    base = E[0] / np.linalg.norm(E[0])
    E[:30] = base + 0.004 * rng.standard_normal((30, 384)).astype(np.float32)
    E[30:60] = -base + 0.004 * rng.standard_normal((30, 384)).astype(np.float32)  # the minimum
    E /= np.linalg.norm(E, axis=1, keepdims=True)
    imp, last = np.ones(n, np.float32), np.full(n, 10.0)
    index = OwnerIndex(384, 0.99, "int8")
    index.append([str(i) for i in range(n)], E, imp, last, last, np.zeros(n), np.zeros(n))
    for q in (base, E[3], E[7]):
        expected_rows, expected_scores = _reference(E, last, imp, q, 10.0, weights, 0.99)
        top = index.search(q, weights, 10)
        assert top.rows.tolist() == expected_rows.tolist()
        assert np.allclose(top.score, expected_scores, atol=1e-5)


def test_exact_extremes_are_found_among_near_ties_at_both_ends(int8_scan: str) -> None:
    """Thirty rows a hair apart at each end of relevance: the minimum and maximum that set the
    min-max range must be the exact ones, not those of the rows the codes rank first."""
    from mindstream.memory.certified import _exact_extremes

    n = 30_000
    rng = np.random.default_rng(9)
    E = rng.standard_normal((n, 384)).astype(np.float32)
    base = E[0] / np.linalg.norm(E[0])
    E[:30] = base + 0.004 * rng.standard_normal((30, 384)).astype(np.float32)
    E[30:60] = -base + 0.004 * rng.standard_normal((30, 384)).astype(np.float32)
    E /= np.linalg.norm(E, axis=1, keepdims=True)
    last = np.full(n, 10.0)
    index = OwnerIndex(384, 0.99, "int8")
    index.append([str(i) for i in range(n)], E, np.ones(n), last, last, np.zeros(n), np.zeros(n))
    assert index.codes is not None
    scan = index.codes.scan(base, n)
    found = _exact_extremes(index, base, None, scan.approx, scan.factor, scan.eps, scan.summary)
    relevance = E.astype(np.float64) @ base.astype(np.float64)
    # float32 rounding apart; a row missed among the ties would be ~1e-4 off
    assert np.abs(found - [relevance.min(), relevance.max()]).max() < 2e-6
