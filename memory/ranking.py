"""Min-max helpers of the vectorised index: column bounds, normalisation, the rows near the
extremes and the rows that could reach a top k."""

from __future__ import annotations

import numpy as np

# Rows per block: of 512-4096, the fastest at a million rows (by ~0.15 ms).
_BLOCK = 2048


def bounds(values: np.ndarray) -> tuple[float, float]:
    """Low end and span of the values; span 0 when they are (numerically) constant."""
    low, high = float(values.min()), float(values.max())
    span = high - low
    return low, (span if span > 1e-12 * max(1.0, abs(high)) else 0.0)


def near_extremes(values: np.ndarray, window: float) -> tuple[np.ndarray, np.ndarray]:
    """Positions within `window` of the minimum and of the maximum.

    By blocks: each block's minimum and maximum cost about what the two global ones do, and
    only the few blocks that reach within `window` of an extreme are searched row by row
    instead of two compare passes over every row.
    """
    full = values.size // _BLOCK * _BLOCK
    if full < 8 * _BLOCK:
        return _near(values, values.min(), window, low=True), _near(
            values, values.max(), window, low=False
        )
    blocks, tail = values[:full].reshape(-1, _BLOCK), values[full:]
    block_low, block_high = blocks.min(axis=1), blocks.max(axis=1)
    low = min(float(block_low.min()), float(tail.min()) if tail.size else np.inf)
    high = max(float(block_high.max()), float(tail.max()) if tail.size else -np.inf)
    hit_low = np.flatnonzero(block_low <= low + window)
    hit_high = np.flatnonzero(block_high >= high - window)
    near_low = _near_in_blocks(blocks, hit_low, low, window, low=True)
    near_high = _near_in_blocks(blocks, hit_high, high, window, low=False)
    return (
        np.concatenate([near_low, full + _near(tail, low, window, low=True)]),
        np.concatenate([near_high, full + _near(tail, high, window, low=False)]),
    )


def _near(values: np.ndarray, extreme: float, window: float, low: bool) -> np.ndarray:
    return np.flatnonzero(values <= extreme + window if low else values >= extreme - window)


def _near_in_blocks(
    blocks: np.ndarray, hit: np.ndarray, extreme: float, window: float, low: bool
) -> np.ndarray:
    """Rows of the `hit` blocks within `window` of `extreme`."""
    where = _near(blocks[hit].ravel(), extreme, window, low)
    return hit[where // _BLOCK] * _BLOCK + where % _BLOCK


def contenders(ranking: np.ndarray, k: int, margin: float) -> np.ndarray:
    """Positions whose ranking is at least the k-th largest minus `margin`.

    The k-th largest of the blocks' maxima is at most the true k-th (they are k distinct
    rows) and, with hundreds of blocks, close to it: only blocks whose maximum reaches it
    minus `margin` are searched row by row, and the true k-th is found among those rows.
    """
    full = ranking.size // _BLOCK * _BLOCK
    if full < 8 * _BLOCK or full // _BLOCK < k:
        pool = np.arange(ranking.size)
    else:
        blocks, tail = ranking[:full].reshape(-1, _BLOCK), ranking[full:]
        block_best = blocks.max(axis=1)
        firsts = np.concatenate([block_best, tail])
        floor = float(np.partition(firsts, firsts.size - k)[firsts.size - k])
        hit = np.flatnonzero(block_best >= floor - margin)
        pool = np.concatenate(
            [
                _near_in_blocks(blocks, hit, floor, margin, low=False),
                full + _near(tail, floor, margin, low=False),
            ]
        )
    values = ranking[pool]
    kth = float(np.partition(values, values.size - k)[values.size - k])
    return pool[values >= kth - margin]


def minmax(values: np.ndarray) -> np.ndarray:
    """Scale to [0, 1]; a constant part becomes 0.5 (as the original code does)."""
    if values.size == 0:
        return values
    low, high = values.min(), values.max()
    if high - low <= 1e-12 * max(1.0, abs(float(high))):
        return np.full(values.shape, 0.5, dtype=np.float32)
    return ((values - low) / (high - low)).astype(np.float32, copy=False)
