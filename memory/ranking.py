"""What a certified first pass needs beyond the score: the rows near the extremes of its
approximate relevance and the rows that could still reach a top k, searched by blocks."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# Rows per block: of 512-4096, the fastest at a million rows (by ~0.15 ms).
BLOCK = 2048


class BlockSummary(NamedTuple):
    """What a pass kept of its values by blocks of `size` rows (the last may be short): each
    block's minimum and maximum and, when it also ranked the rows with a guessed `slope`,
    each block's maximum of slope·value + prior (`ranks`)."""

    size: int
    lows: np.ndarray
    highs: np.ndarray
    ranks: np.ndarray | None = None
    slope: float = 0.0


def summarize(values: np.ndarray, size: int = BLOCK) -> BlockSummary:
    """Each block's minimum and maximum: about what the two global ones cost."""
    return BlockSummary(
        size, _by_block(values, size, np.minimum), _by_block(values, size, np.maximum)
    )


def _by_block(values: np.ndarray, size: int, reduce: np.ufunc) -> np.ndarray:
    """The minimum or maximum (`reduce`) of each block of `size` values, the last one maybe
    short."""
    full = values.size // size * size
    reduced = reduce.reduce(values[:full].reshape(-1, size), axis=1)
    return np.append(reduced, reduce.reduce(values[full:])) if values.size > full else reduced


def near_extremes(
    values: np.ndarray, window: float, summary: BlockSummary | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Positions within `window` of the minimum and of the maximum.

    By blocks (`summary`, or made here): only the few blocks that reach within `window` of an
    extreme are searched row by row.
    """
    if summary is None:
        if values.size < 8 * BLOCK:
            low, high = float(values.min()), float(values.max())
            return _beyond(values, low + window, low=True), _beyond(
                values, high - window, low=False
            )
        summary = summarize(values)
    low, high = float(summary.lows.min()), float(summary.highs.max())
    return (
        _beyond_in_blocks(values, summary.size, summary.lows, low + window, low=True),
        _beyond_in_blocks(values, summary.size, summary.highs, high - window, low=False),
    )


def _beyond(values: np.ndarray, threshold: float, low: bool) -> np.ndarray:
    """Positions at most `threshold` (`low`) or at least it."""
    return np.flatnonzero(values <= threshold if low else values >= threshold)


def _rows_of(blocks: np.ndarray, size: int, count: int) -> np.ndarray:
    """Positions in the given blocks (ascending) of `size` rows, of `count` rows in all."""
    rows = (blocks[:, None] * size + np.arange(size)).ravel()
    return rows[rows < count] if blocks.size and (blocks[-1] + 1) * size > count else rows


def _beyond_in_blocks(
    values: np.ndarray, size: int, block_extreme: np.ndarray, threshold: float, low: bool
) -> np.ndarray:
    """`_beyond`, searching row by row only the blocks of `size` rows whose extreme (minimum
    when `low`, else maximum) reaches `threshold`."""
    rows = _rows_of(_beyond(block_extreme, threshold, low), size, values.size)
    picked = values[rows]
    return rows[picked <= threshold if low else picked >= threshold]


def contenders(ranking: np.ndarray, k: int, margin: float) -> np.ndarray:
    """Positions whose ranking is at least the k-th largest minus `margin`.

    The k-th largest of the blocks' maxima is at most the true k-th (they are k distinct
    rows) and, with hundreds of blocks, close to it: only blocks whose maximum reaches it
    minus `margin` are searched row by row, and the true k-th is found among those rows.
    """
    if ranking.size < 8 * BLOCK or ranking.size // BLOCK < k:
        pool = np.arange(ranking.size)
    else:
        block_best = _by_block(ranking, BLOCK, np.maximum)
        floor = _kth_largest(block_best, k)
        pool = _beyond_in_blocks(ranking, BLOCK, block_best, floor - margin, low=False)
    return _within(pool, ranking[pool], k, margin)


def contenders_by_summary(
    approx: np.ndarray,
    prior: np.ndarray,
    slope: float,
    summary: BlockSummary,
    k: int,
    margin: float,
) -> np.ndarray:
    """`contenders` of the ranking slope·approx + prior without computing it for every row.

    The scan ranked each row with a guessed slope and kept each block's maximum; with the
    true slope a row moves by at most |slope − guess|·|approx|, so that maximum plus the
    block's largest |approx| times the difference bounds every row of the block. The rows of
    the k blocks with the highest bounds give a floor at most the true k-th, and only blocks
    whose bound reaches the floor minus `margin` can hold a contender.
    """
    assert summary.ranks is not None
    largest = np.maximum(np.abs(summary.lows), np.abs(summary.highs))
    bound = summary.ranks + abs(slope - summary.slope) * largest
    bound += 1e-6 * float(np.abs(bound).max())  # float32 rounding of the scan's ranking
    k = min(k, approx.size)
    first = np.arange(bound.size)
    if bound.size > k:
        first = np.sort(np.argpartition(bound, bound.size - k)[bound.size - k :])
    sample = _rows_of(first, summary.size, approx.size)
    floor = _kth_largest(ranking_at(approx, prior, slope, sample), k)
    pool = _rows_of(np.flatnonzero(bound >= floor - margin), summary.size, approx.size)
    return _within(pool, ranking_at(approx, prior, slope, pool), k, margin)


def ranking_at(approx: np.ndarray, prior: np.ndarray, slope: float, rows: np.ndarray) -> np.ndarray:
    """The ranking slope·approx + prior of `rows`, in float32 as the search compares it."""
    return np.float32(slope) * approx[rows] + prior[rows]


def _kth_largest(values: np.ndarray, k: int) -> float:
    return float(np.partition(values, values.size - k)[values.size - k])


def _within(pool: np.ndarray, values: np.ndarray, k: int, margin: float) -> np.ndarray:
    """The positions of `pool` whose value is at least the k-th largest minus `margin`."""
    return pool[values >= _kth_largest(values, k) - margin]
