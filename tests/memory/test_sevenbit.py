"""Seven-bit codes: their packing, the kernel's products over them, the query's two parts,
and the index switching to them as it grows (searches stay exact across the switch)."""

from __future__ import annotations

import numpy as np
import pytest

from mindstream.memory.index import OwnerIndex
from mindstream.memory.kernels import seven_bit_kernels
from mindstream.memory.quantized import Int8Codes
from mindstream.memory.records import RetrievalWeights
from mindstream.memory.sevenbit import SevenBitCodes, pack, split_query, unpack


def _needs_kernel() -> None:
    if seven_bit_kernels() is None:
        pytest.skip("this CPU cannot run the seven-bit scan (AVX-512 VBMI) or no kernel")


def test_packing_round_trips_every_code_in_every_position() -> None:
    rng = np.random.default_rng(0)
    codes = rng.integers(-63, 64, (50, 384), dtype=np.int8)
    codes[0], codes[1] = 63, -63  # the extremes in all eight positions of every group
    packed = pack(codes)
    assert packed.shape == (50, 336)
    assert np.array_equal(unpack(packed, 384), codes)


def test_the_query_parts_restore_it_far_closer_than_int8() -> None:
    rng = np.random.default_rng(1)
    query = rng.standard_normal(384).astype(np.float32)
    parts, scale, residual, norm = split_query(query)
    high, low = parts[:384].astype(np.float64), parts[384:].astype(np.float64)
    assert np.abs(low).max() <= 64
    restored = (128 * high + low) * scale
    assert np.linalg.norm(query - restored) == pytest.approx(residual, rel=1e-6, abs=1e-12)
    assert residual < norm * 1e-4  # int8 alone: ~2e-3 of the norm
    assert split_query(np.zeros(384, np.float32))[2:] == (0.0, 0.0)


@pytest.mark.parametrize("size", [1, 3, 64, 67, 16_384 + 5, 40_000])
def test_seven_bit_kernel_gives_exact_products_and_block_summaries(size: int) -> None:
    """Against numpy: every row's product with 128·high + low, each block's minimum,
    maximum and ranking guess, on one thread and on two."""
    from mindstream.memory.kernels import seven_bit_products_into

    _needs_kernel()
    rng = np.random.default_rng(size)
    codes = rng.integers(-63, 64, (size, 384), dtype=np.int8)
    codes[: min(size, 2)] = [[63], [-63]][: min(size, 2)]
    packed = np.concatenate([pack(codes).ravel(), np.zeros(8, np.uint8)])
    parts = rng.integers(-127, 128, 768, dtype=np.int8)
    parts[:2], parts[384:386] = [127, -127], [64, -64]
    query = 128 * parts[:384].astype(np.int64) + parts[384:]
    want = (codes.astype(np.int64) @ query).astype(np.float32)  # one rounding, as the kernel's
    prior = rng.uniform(0, 2.5, size).astype(np.float32)
    for threads in (1, 2):
        out = np.full(size, np.nan, dtype=np.float32)
        summary = seven_bit_products_into(out, packed, size, parts, threads, prior, 1e-8)
        assert out.tolist() == want.tolist()
        starts = range(0, size, summary.size)
        assert summary.lows.tolist() == [want[s : s + summary.size].min() for s in starts]
        assert summary.highs.tolist() == [want[s : s + summary.size].max() for s in starts]
        ranks = np.float32(summary.slope) * want + prior
        assert summary.ranks is not None
        np.testing.assert_allclose(
            summary.ranks, [ranks[s : s + summary.size].max() for s in starts], rtol=1e-6
        )


def test_the_index_switches_to_seven_bits_as_it_grows_and_stays_exact(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Below the threshold the codes are int8; the append that grows capacity past it
    encodes every row again in seven bits; searches before and after equal the reference."""
    _needs_kernel()
    monkeypatch.setattr("mindstream.memory.sevenbit.SEVEN_BIT_FROM", 6_000)
    rng = np.random.default_rng(7)
    n, weights = 8_000, RetrievalWeights.original_code()
    E = rng.standard_normal((n, 384)).astype(np.float32)
    E /= np.linalg.norm(E, axis=1, keepdims=True)
    imp = rng.integers(1, 11, n).astype(np.float32)
    last = rng.uniform(0, 720, n)
    exact, quick = OwnerIndex(384, 0.99, "float32"), OwnerIndex(384, 0.99, "int8")
    kinds: list[type[Int8Codes]] = []
    for part in (slice(0, 3_000), slice(3_000, n)):
        ids = [str(i) for i in range(part.start, part.stop)]
        zeros = np.zeros(part.stop - part.start)
        for index in (exact, quick):
            index.append(ids, E[part], imp[part], last[part], last[part], zeros, zeros)
        kinds.append(type(quick.codes))  # type: ignore[arg-type]
        for q in (E[rng.integers(part.stop)], rng.standard_normal(384).astype(np.float32)):
            q = q / np.linalg.norm(q)
            want, got = exact.search(q, weights, 10), quick.search(q, weights, 10)
            assert got.rows.tolist() == want.rows.tolist()
            assert np.allclose(got.score, want.score, atol=1e-5)
    assert kinds == [Int8Codes, SevenBitCodes]
