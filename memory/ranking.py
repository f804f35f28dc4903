"""Min-max helpers of the vectorised index: column bounds, normalisation, and the pool of
rows that could reach a top k."""

from __future__ import annotations

import numpy as np


def bounds(values: np.ndarray) -> tuple[float, float]:
    """Low end and span of the values; span 0 when they are (numerically) constant."""
    low, high = float(values.min()), float(values.max())
    span = high - low
    return low, (span if span > 1e-12 * max(1.0, abs(high)) else 0.0)


def within(ranking: np.ndarray, k: int, margin: float) -> np.ndarray:
    """Positions whose ranking is at least the k-th largest minus `margin`.

    The k-th largest of a strided sample is at most the true k-th, so one pass with it picks
    a pool holding every answer; the true k-th is then found inside the pool.
    """
    stride = max(1, ranking.size // 16_384)
    sample = ranking[::stride]
    if sample.size <= k:
        pool = np.arange(ranking.size)
    else:
        floor = float(np.partition(sample, sample.size - k)[sample.size - k])
        pool = np.flatnonzero(ranking >= floor - margin)
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
