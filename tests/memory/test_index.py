"""The vectorised index against a plain reference implementation of the paper's formula."""

from __future__ import annotations

import numpy as np
import pytest

from mindstream.memory.anchors import project_build, project_retrieve
from mindstream.memory.index import OwnerIndex
from mindstream.memory.quantized import Int8Codes
from mindstream.memory.records import RetrievalWeights
from mindstream.memory.relevance import top_k
from mindstream.memory.sevenbit import SevenBitCodes


def _reference(E, last, imp, q, now, weights, decay, rows=None):  # type: ignore[no-untyped-def]
    rows = np.arange(len(E)) if rows is None else rows

    def mm(x):  # type: ignore[no-untyped-def]
        return (x - x.min()) / (x.max() - x.min())

    rec, im, rel = mm(decay ** (now - last[rows])), mm(imp[rows]), mm(E[rows] @ q)
    score = weights.recency * rec + weights.importance * im + weights.relevance * rel
    return rows[np.argsort(-score)[:10]], np.sort(score)[::-1][:10]


def _random_index(
    rng: np.random.Generator, n: int, precision: str, decay: float = 0.99
) -> tuple[OwnerIndex, np.ndarray, np.ndarray, np.ndarray]:
    """An index of n random unit embeddings, importance 1-10, last access within 30 days;
    with those arrays (embeddings, importance, last access) for the reference."""
    E = rng.standard_normal((n, 384)).astype(np.float32)
    E /= np.linalg.norm(E, axis=1, keepdims=True)
    imp = rng.integers(1, 11, n).astype(np.float32)
    last = rng.uniform(0, 720, n)
    index = OwnerIndex(384, decay, precision)
    index.append([str(i) for i in range(n)], E, imp, last, last, np.zeros(n), np.zeros(n))
    return index, E, imp, last


@pytest.mark.parametrize("precision", ["float32", "int8", "auto"])
def test_top_k_matches_the_reference_through_repeated_retrievals(precision: str) -> None:
    rng = np.random.default_rng(7)
    n, decay, weights = 5000, 0.99, RetrievalWeights.original_code()
    index, E, imp, last = _random_index(rng, n, precision, decay)
    now = 720.0
    for _ in range(5):
        q = E[rng.integers(n)] * 0.3 + rng.standard_normal(384).astype(np.float32) * 0.05
        q /= np.linalg.norm(q)
        expected_rows, expected_scores = _reference(E, last, imp, q, now, weights, decay)
        top = index.search(q, weights, 10)
        assert top.rows.tolist() == expected_rows.tolist()
        assert np.allclose(top.score, expected_scores, atol=1e-5)
        index.touch(top.rows, now)
        last[top.rows] = now
        now += 1.5


def test_int8_search_stays_exact_past_the_block_path_as_appends_grow_the_scale(
    int8_scan: str,
) -> None:
    """40,000 rows appended in four batches, each peaking higher (so earlier rows are
    encoded again at a larger scale): the block paths for the extremes and the contenders
    give the reference top-k through retrievals, touches and filtered candidates."""
    rng = np.random.default_rng(12)
    n, decay, weights = 40_000, 0.99, RetrievalWeights.original_code()
    E = rng.standard_normal((n, 384)).astype(np.float32)
    for batch in range(4):
        E[batch * 10_000 : (batch + 1) * 10_000, batch] += 4.0 * (batch + 1)
    E /= np.linalg.norm(E, axis=1, keepdims=True)
    imp = rng.integers(1, 11, n).astype(np.float32)
    last = rng.uniform(0, 720, n)
    index = OwnerIndex(384, decay, "int8")
    scales = []
    for start in range(0, n, 10_000):
        part = slice(start, start + 10_000)
        ids = [str(i) for i in range(start, start + 10_000)]
        kinds = statuses = np.zeros(10_000)
        index.append(ids, E[part], imp[part], last[part], last[part], kinds, statuses)
        assert index.codes is not None
        scales.append(index.codes.scale)
    assert scales == sorted(scales) and scales[0] < scales[-1]
    now = 720.0
    for step in range(6):
        q = E[rng.integers(n)] * 0.3 + rng.standard_normal(384).astype(np.float32) * 0.05
        q /= np.linalg.norm(q)
        rows = np.sort(rng.choice(n, 30_000, replace=False)) if step % 2 else None
        expected_rows, expected_scores = _reference(E, last, imp, q, now, weights, decay, rows)
        top = index.search(q, weights, 10, rows)
        assert top.rows.tolist() == expected_rows.tolist()
        assert np.allclose(top.score, expected_scores, atol=1e-5)
        index.touch(top.rows, now)
        last[top.rows] = now
        now += 1.5


def test_filtered_candidates_are_normalised_over_themselves() -> None:
    rng = np.random.default_rng(3)
    n = 400
    E = rng.standard_normal((n, 384)).astype(np.float32)
    E /= np.linalg.norm(E, axis=1, keepdims=True)
    imp = rng.integers(1, 11, n).astype(np.float32)
    last = rng.uniform(0, 100, n)
    rows = np.arange(0, n, 3)
    q = E[5]
    expected_rows, expected_scores = _reference(
        E, last, imp, q, 120.0, RetrievalWeights(), 0.995, rows
    )
    for precision in ("float32", "int8"):
        index = OwnerIndex(384, 0.995, precision)
        index.append([str(i) for i in range(n)], E, imp, last, last, np.zeros(n), np.zeros(n))
        top = index.search(q, RetrievalWeights(), 10, rows)
        assert top.rows.tolist() == expected_rows.tolist()
        assert np.allclose(top.score, expected_scores, atol=1e-5)


def test_bench_plugin_returns_rows_and_updates_last_access() -> None:
    rng = np.random.default_rng(0)
    E = rng.standard_normal((50, 384)).astype(np.float32)
    E /= np.linalg.norm(E, axis=1, keepdims=True)
    params = {"decay": 0.99, "w_rec": 0.5, "w_imp": 2.0, "w_rel": 3.0, "normalize": "minmax"}
    store = project_build(E, np.full(50, 5.0, np.float32), np.zeros(50), [], params)
    rows = project_retrieve(store, "q", E[3], 10.0, 5, params)
    assert 3 in rows and len(rows) == 5
    assert np.all(store.last_access[rows] == 10.0)


# (0.045, 300): relevance spans ~1e-3, under the flat threshold (4 x scan error), so every
# row is re-scored in float32, which still separates them (gaps >> float32 rounding).
# (0.3, 3000): relevance is close but spread, so only the certified margin is re-scored.
# Scores are compared to float32 resolution: a dot product's rounding (~1e-7) divided by the
# relevance span (3.7e-4 in the flat case) times w_rel = 3 is ~1e-3.
@pytest.mark.parametrize(
    ("spread", "n", "score_tolerance"), [(0.045, 300, 2e-3), (0.3, 3000, 1e-4)]
)
@pytest.mark.parametrize("precision", ["int8"])
def test_approximate_first_passes_are_exact_on_near_ties(
    spread: float, n: int, score_tolerance: float, precision: str, int8_scan: str
) -> None:
    """Rows whose approximate relevance differs by less than the scan error are ranked by their
    float32 values: nearly flat relevance (re-scored in full) and close relevance (re-scored
    within the certified margin) both give the exact formula's order."""
    rng = np.random.default_rng(11)
    base = rng.standard_normal(384).astype(np.float32)
    base /= np.linalg.norm(base)
    E = base + spread * rng.standard_normal((n, 384)).astype(np.float32) / np.sqrt(384)
    E /= np.linalg.norm(E, axis=1, keepdims=True)
    imp = rng.integers(1, 11, n).astype(np.float32)
    last = rng.uniform(0, 10, n)
    index = OwnerIndex(384, 0.99, precision)
    index.append([str(i) for i in range(n)], E, imp, last, last, np.zeros(n), np.zeros(n))
    q = base
    weights = RetrievalWeights(recency=0.1, importance=0.1, relevance=3.0)
    expected_rows, expected_scores = _reference(E, last, imp, q, 12.0, weights, 0.99)
    top = index.search(q, weights, 10)
    assert top.rows.tolist() == expected_rows.tolist()
    assert np.allclose(top.score, expected_scores, atol=score_tolerance)


def _adversarial_rows(rng: np.random.Generator) -> np.ndarray:
    """Rows int8 codes handle worst: one large component (the rest round to zero), two equal
    peaks, tiny dense noise, exact duplicates of the query, and ordinary random rows."""
    spiky = rng.standard_normal((50, 384)) * 1e-3
    spiky[:, 0] = 1.0
    twin = rng.standard_normal((50, 384)) * 0.01
    twin[:, :2] = 0.7
    dense = rng.choice([-1.0, 1.0], (50, 384)) + rng.uniform(-0.004, 0.004, (50, 384))
    rows = np.vstack([spiky, twin, dense, rng.standard_normal((500, 384))]).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _codes(int8_scan: str, rows: int) -> Int8Codes:
    return SevenBitCodes(384, rows) if int8_scan == "seven" else Int8Codes(384, rows)


def test_int8_error_never_exceeds_its_certified_bound(int8_scan: str) -> None:
    rng = np.random.default_rng(2)
    E = _adversarial_rows(rng)
    codes = _codes(int8_scan, len(E))
    codes.encode(0, E, E)
    for q in [E[0], E[60], E[120], E[-1], _adversarial_rows(rng)[200]]:
        scan = codes.scan(q, len(E))
        assert np.abs(scan.factor * scan.approx - E @ q).max() <= scan.eps
        # Fifty of these rows peak near 1 and set the shared scale: the bound reaches ~0.11
        # (0.05 with a scale per row, 0.012 on real embeddings); that costs re-ranked rows,
        # never exactness. Seven-bit codes: twice the step, but the query's rounding (a
        # third of int8's bound) is gone: 0.097 for each of these queries.
        assert scan.eps < 0.12


def test_int8_codes_grow_their_scale_when_appended_rows_need_it(
    int8_scan: str,
) -> None:
    """Rows appended one by one with ever larger peaks: earlier rows are encoded again at the
    larger scale, so the bound still holds for every row (none is clipped)."""
    rng = np.random.default_rng(4)
    E = rng.standard_normal((40, 384)).astype(np.float32) * np.linspace(0.1, 1.0, 40)[:, None]
    E[:, 0] = np.linspace(0.01, 0.9, 40)
    E /= np.linalg.norm(E, axis=1, keepdims=True)
    codes = _codes(int8_scan, len(E))
    scales = set()
    for row in range(len(E)):
        codes.encode(row, E[row : row + 1], E)
        scales.add(codes.scale)
    assert len(scales) >= 3  # earlier rows were encoded again at least twice
    assert codes.scale >= np.abs(E).max() / codes.LIMIT
    for q in (E[0], E[-1], rng.standard_normal(384).astype(np.float32)):
        scan = codes.scan(q / np.linalg.norm(q), len(E))
        assert np.abs(scan.factor * scan.approx - E @ (q / np.linalg.norm(q))).max() <= scan.eps


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_int8_search_is_exact_on_adversarial_rows_and_ties(seed: int, int8_scan: str) -> None:
    """Duplicated rows tie on relevance, equal importance and recency make whole groups tie:
    the int8 path returns the same top-k scores as the float32 path."""
    rng = np.random.default_rng(seed)
    E = _adversarial_rows(rng)
    E = np.vstack([E, E[:100]])  # exact duplicates: relevance ties
    n = len(E)
    imp = rng.integers(1, 4, n).astype(np.float32)
    last = rng.choice([0.0, 5.0, 10.0], n)
    exact, quick = OwnerIndex(384, 0.99, "float32"), OwnerIndex(384, 0.99, "int8")
    for index in (exact, quick):
        index.append([str(i) for i in range(n)], E, imp, last, last, np.zeros(n), np.zeros(n))
    for q in (E[0], E[60], E[rng.integers(n)], rng.standard_normal(384).astype(np.float32)):
        q = q / np.linalg.norm(q)
        want, got = (
            exact.search(q, RetrievalWeights.original_code(), 10),
            quick.search(q, RetrievalWeights.original_code(), 10),
        )
        assert np.allclose(got.score, want.score, atol=1e-5)
        assert set(got.rows.tolist()) == set(want.rows.tolist()) or np.isclose(
            got.score[-1], got.score[-2], atol=1e-5
        )


def test_auto_precision_measures_then_stays_exact() -> None:
    """Past AUTO_MIN_ROWS the index times both passes once and keeps the faster; either way
    the top-k equals the reference."""
    from mindstream.memory.index import AUTO_MIN_ROWS

    rng = np.random.default_rng(4)
    n = AUTO_MIN_ROWS + 500
    E = rng.standard_normal((n, 384)).astype(np.float32)
    E /= np.linalg.norm(E, axis=1, keepdims=True)
    imp = rng.integers(1, 11, n).astype(np.float32)
    last = rng.uniform(0, 720, n)
    index = OwnerIndex(384, 0.99, "auto")
    index.append([str(i) for i in range(n)], E, imp, last, last, np.zeros(n), np.zeros(n))
    q = E[7]
    expected_rows, expected_scores = _reference(
        E, last, imp, q, 720.0, RetrievalWeights.original_code(), 0.99
    )
    top = index.search(q, RetrievalWeights.original_code(), 10)
    assert index._measured_at == n
    assert top.rows.tolist() == expected_rows.tolist()
    assert np.allclose(top.score, expected_scores, atol=1e-5)


@pytest.mark.parametrize("precision", ["float32", "int8"])
def test_recency_stays_right_across_a_rebase_in_an_append(precision: str) -> None:
    """Memories added years after the first ones move the growth reference; the rows of that
    very append must be rebased too (they were once left relative to the old reference)."""
    rng = np.random.default_rng(8)
    decay, weights = 0.995, RetrievalWeights(recency=1.0, importance=0.0, relevance=0.0)
    E = rng.standard_normal((40, 384)).astype(np.float32)
    E /= np.linalg.norm(E, axis=1, keepdims=True)
    last = np.concatenate([np.linspace(0, 100, 20), 20_000 + np.linspace(0, 100, 20)])
    imp = rng.integers(1, 11, 40).astype(np.float32)
    index = OwnerIndex(384, decay, precision)
    index.append(
        [str(i) for i in range(20)],
        E[:20],
        np.ones(20),
        last[:20],
        last[:20],
        np.zeros(20),
        np.zeros(20),
    )
    index.append(
        [str(i) for i in range(20, 40)],
        E[20:],
        np.ones(20),
        last[20:],
        last[20:],
        np.zeros(20),
        np.zeros(20),
    )
    assert np.isfinite(index.growth32[:40]).all()
    rows, scores = _reference(E, last, imp, E[0], 20_100.0, weights, decay)
    top = index.search(E[0], weights, 10)
    assert top.rows.tolist() == rows.tolist()
    assert np.allclose(top.score, scores, atol=1e-5)


def test_concurrent_searches_of_one_index_do_not_share_buffers() -> None:
    """The int8 path reuses scratch buffers; two threads searching at once (the service's
    pages, a live run) must each get their own, so every result equals the sequential one."""
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(12)
    n = 30_000
    E = rng.standard_normal((n, 384)).astype(np.float32)
    E /= np.linalg.norm(E, axis=1, keepdims=True)
    imp = rng.integers(1, 11, n).astype(np.float32)
    last = rng.uniform(0, 720, n)
    index = OwnerIndex(384, 0.99, "int8")
    index.append([str(i) for i in range(n)], E, imp, last, last, np.zeros(n), np.zeros(n))
    queries = [E[i] for i in rng.integers(n, size=40)]
    weights = RetrievalWeights.original_code()
    alone = [index.search(q, weights, 10).rows.tolist() for q in queries]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda q: index.search(q, weights, 10).rows.tolist(), queries))
    assert together == alone


@pytest.mark.parametrize("step_hours", [1e-4, 0.5])
def test_cached_prior_and_growth_bounds_stay_exact_as_time_moves(step_hours: float) -> None:
    """Recency and importance are cached between queries and only re-derived for touched
    rows; a clock that moves a little reuses the stale prior (its drift widens the margin),
    one that moves a lot rebuilds it. Touching the oldest memory moves the growth minimum.
    Every answer equals the reference formula's."""
    rng = np.random.default_rng(21)
    n, decay, weights = 6000, 0.99, RetrievalWeights.original_code()
    index, E, imp, last = _random_index(rng, n, "int8", decay)
    now = 720.0
    for step in range(25):
        q = rng.standard_normal(384).astype(np.float32)
        q /= np.linalg.norm(q)
        expected_rows, expected_scores = _reference(E, last, imp, q, now, weights, decay)
        top = index.search(q, weights, 10)
        assert top.rows.tolist() == expected_rows.tolist()
        assert np.allclose(top.score, expected_scores, atol=1e-5)
        touched = np.append(top.rows, np.argmin(last)) if step % 5 == 0 else top.rows
        index.touch(touched, now)
        last[touched] = now
        now += step_hours
    if step_hours < 0.01:
        assert index.prior.builds <= 2  # reused (the first touch moves the newest row to now)
    else:
        assert index.prior.builds >= 20


def test_int8_searches_do_not_use_up_references_to_none() -> None:
    """SimSIMD's cdist(out=...) and wsum(out=...) return None without a reference; unrepaid,
    a long-running process aborted after ~8,000 retrievals (Python 3.11's None is not
    immortal)."""
    import sys

    n = 300
    rng = np.random.default_rng(5)
    rows = rng.standard_normal((n, 384)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    index = OwnerIndex(384, 0.99, "int8")
    last = rng.uniform(0, 10, n)
    index.append([str(i) for i in range(n)], rows, np.ones(n), last, last, np.zeros(n), np.zeros(n))
    query = rows[0]
    index.search(query, RetrievalWeights(), 5)
    before = sys.getrefcount(None)
    for _ in range(500):
        index.search(query, RetrievalWeights(), 5)
    assert sys.getrefcount(None) >= before - 5


@pytest.mark.parametrize("size", [1, 5, 64, 65, 16_384 + 3, 40_000])
def test_int8_kernel_gives_exact_products_and_block_summaries(size: int) -> None:
    """The kernel against numpy: every row's product with the query codes, and each block's
    minimum, maximum and ranking guess, on one thread and split over two at a block boundary."""
    from mindstream.memory.kernels import int8_products_into, kernels

    if kernels() is None:
        pytest.skip("no int8 kernel here or MINDSTREAM_KERNELS=0 (see `memory.kernels`)")
    rng = np.random.default_rng(size)
    codes = rng.integers(-127, 128, (size, 384), dtype=np.int8)
    codes[: min(size, 2)] = [[127], [-127]][: min(size, 2)]  # the extreme codes
    query = rng.integers(-127, 128, 384, dtype=np.int8)
    query[:3] = [127, -127, 127]
    prior = rng.uniform(0, 2.5, size).astype(np.float32)
    want = codes.astype(np.int64) @ query.astype(np.int64)
    for threads in (1, 2):
        out = np.full(size, np.nan, dtype=np.float32)
        summary = int8_products_into(out, codes, query, threads, prior, 1e-6)
        assert out.tolist() == want.tolist()
        block = summary.size
        starts = range(0, size, block)
        assert summary.lows.tolist() == [want[s : s + block].min() for s in starts]
        assert summary.highs.tolist() == [want[s : s + block].max() for s in starts]
        ranks = np.float32(summary.slope) * want.astype(np.float32) + prior
        assert summary.ranks is not None
        np.testing.assert_allclose(
            summary.ranks, [ranks[s : s + block].max() for s in starts], rtol=1e-6
        )
        assert int8_products_into(out, codes, query, threads).ranks is None


def test_int8_kernel_is_built_where_the_cpu_can_run_it() -> None:
    """A CPU with AVX-512 BW and VNNI gets the kernel: an install that failed to compile it
    would otherwise only show as a slower scan."""
    from pathlib import Path

    from mindstream.memory.kernels import compiled_kernels

    flags = Path("/proc/cpuinfo").read_text().split() if Path("/proc/cpuinfo").exists() else []
    if not {"avx512f", "avx512bw", "avx512_vnni"} <= set(flags):
        pytest.skip("this CPU cannot run the int8 kernel")
    assert compiled_kernels() is not None


@pytest.mark.parametrize("size", [1, 3, 4, 50, 1000])
@pytest.mark.parametrize("k", [1, 3, 7])
def test_top_k_is_a_stable_sort_cut_short(size: int, k: int) -> None:
    """Change detection's nearest neighbours, ties included, as a full stable sort gives."""
    rng = np.random.default_rng(size * 10 + k)
    for _ in range(20):
        values = rng.integers(0, 5, size).astype(np.float32)  # many ties
        expected = np.argsort(-values, kind="stable")[:k]
        assert top_k(values, k).tolist() == expected.tolist()
