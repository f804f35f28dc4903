"""Min-max helpers of the vectorised index: column bounds, normalisation, the rows near the
extremes and the rows that could reach a top k."""

from __future__ import annotations

import numpy as np

# Rows per block: of 512-4096, the fastest at a million rows (by ~0.15 ms).
BLOCK = 2048


def bounds(values: np.ndarray) -> tuple[float, float]:
    """Low end and span of the values; span 0 when they are (numerically) constant."""
    low, high = float(values.min()), float(values.max())
    span = high - low
    return low, (span if span > 1e-12 * max(1.0, abs(high)) else 0.0)


def near_extremes(
    values: np.ndarray,
    window: float,
    block_extremes: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Positions within `window` of the minimum and of the maximum.

    By blocks: each block's minimum and maximum cost about what the two global ones do (or
    nothing, when the scan kept them: `block_extremes`, the minimum and maximum of every
    block of BLOCK values, the last one maybe short), and only the few blocks that reach
    within `window` of an extreme are searched row by row.
    """
    full = values.size // BLOCK * BLOCK
    if full < 8 * BLOCK:
        low, high = float(values.min()), float(values.max())
        return _beyond(values, low + window, low=True), _beyond(values, high - window, low=False)
    blocks, tail = values[:full].reshape(-1, BLOCK), values[full:]
    if block_extremes is None:
        block_low, block_high = blocks.min(axis=1), blocks.max(axis=1)
        low = min(float(block_low.min()), float(tail.min()) if tail.size else np.inf)
        high = max(float(block_high.max()), float(tail.max()) if tail.size else -np.inf)
    else:
        lows, highs = block_extremes
        block_low, block_high = lows[: len(blocks)], highs[: len(blocks)]
        low, high = float(lows.min()), float(highs.max())
    return (
        _beyond_in_blocks(blocks, tail, block_low, low + window, low=True),
        _beyond_in_blocks(blocks, tail, block_high, high - window, low=False),
    )


def _beyond(values: np.ndarray, threshold: float, low: bool) -> np.ndarray:
    """Positions at most `threshold` (`low`) or at least it."""
    return np.flatnonzero(values <= threshold if low else values >= threshold)


def _beyond_in_blocks(
    blocks: np.ndarray, tail: np.ndarray, block_extreme: np.ndarray, threshold: float, low: bool
) -> np.ndarray:
    """`_beyond` over the blocks and the tail after them, searching row by row only the
    blocks whose extreme (minimum when `low`, else maximum) reaches `threshold`."""
    hit = _beyond(block_extreme, threshold, low)
    where = _beyond(blocks[hit].ravel(), threshold, low)
    in_blocks = hit[where // BLOCK] * BLOCK + where % BLOCK
    return np.concatenate([in_blocks, blocks.size + _beyond(tail, threshold, low)])


def contenders(ranking: np.ndarray, k: int, margin: float) -> np.ndarray:
    """Positions whose ranking is at least the k-th largest minus `margin`.

    The k-th largest of the blocks' maxima is at most the true k-th (they are k distinct
    rows) and, with hundreds of blocks, close to it: only blocks whose maximum reaches it
    minus `margin` are searched row by row, and the true k-th is found among those rows.
    """
    full = ranking.size // BLOCK * BLOCK
    if full < 8 * BLOCK or full // BLOCK < k:
        pool = np.arange(ranking.size)
    else:
        blocks, tail = ranking[:full].reshape(-1, BLOCK), ranking[full:]
        block_best = blocks.max(axis=1)
        firsts = np.concatenate([block_best, tail])
        floor = float(np.partition(firsts, firsts.size - k)[firsts.size - k])
        pool = _beyond_in_blocks(blocks, tail, block_best, floor - margin, low=False)
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
