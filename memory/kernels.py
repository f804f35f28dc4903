"""The compiled int8 scan (`_kernels.c`), where this CPU can run it: SimSIMD's otherwise.

At a million rows the search is a race for memory bandwidth. The kernel reads four rows at
a time with software prefetch, and summarises its output by blocks of 64 rows while they
are in cache: each block's minimum and maximum product (for `ranking.near_extremes`) and,
given the search's prior, its maximum of a guessed ranking (for
`ranking.contenders_by_summary`), so the search makes no pass over the output. Its two
threads are Python threads around a call that releases the GIL, so no OpenMP pool is left
spinning on the other core.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from mindstream.memory.ranking import BlockSummary

# Rows per block of the scan's summary: small blocks let the search re-read few rows near the
# extremes and the top k. Post-scan time at a million rows, per block of 64/128/256/512 rows:
# 0.85/0.89/0.99/1.25 ms (median of 75 queries each, taking turns in one process).
SCAN_BLOCK = 64
_TWO_THREADS_FROM = 16_384
_POINTER = ctypes.c_void_p
_SIZE = ctypes.c_size_t


def kernels() -> ctypes.CDLL | None:
    """The kernel to scan with, or None: `compiled_kernels` has none, or
    MINDSTREAM_KERNELS=0 (to compare against SimSIMD's scan)."""
    if os.environ.get("MINDSTREAM_KERNELS", "1") == "0":
        return None
    return compiled_kernels()


@functools.cache
def compiled_kernels() -> ctypes.CDLL | None:
    """The compiled kernel, or None: not built (no C compiler at install) or a CPU without
    AVX-512 BW and VNNI."""
    spec = importlib.util.find_spec("mindstream.memory._kernels")
    if spec is None or spec.origin is None:
        return None
    library = ctypes.CDLL(spec.origin)
    if not library.ms_kernels_supported():
        return None
    for function in (library.ms_dot8, library.ms_dot7):
        function.argtypes = [_POINTER, _SIZE, _SIZE, _POINTER, _SIZE, _POINTER, _SIZE]
        function.argtypes += [_POINTER, _POINTER, _POINTER, ctypes.c_float, _POINTER]
        function.restype = None
    return library


def seven_bit_kernels() -> ctypes.CDLL | None:
    """The kernel, where this CPU can also run its seven-bit scan (AVX-512 VBMI)."""
    library = kernels()
    return library if library is not None and library.ms_seven_supported() else None


def usable(dimension: int) -> bool:
    return dimension % 64 == 0 and kernels() is not None


@functools.cache
def _helper() -> ThreadPoolExecutor:
    # One long-lived helper: a thread started per query costs ~0.1 ms.
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="mindstream-scan")


def int8_products_into(
    out: np.ndarray,
    codes: np.ndarray,
    query_codes: np.ndarray,
    threads: int,
    prior: np.ndarray | None = None,
    slope: float = 0.0,
) -> BlockSummary:
    """out = codes·query_codes, and its summary by SCAN_BLOCK rows (the last block may be
    short): minimum, maximum and, given a `prior`, the maximum of slope·out + prior. On two
    threads each takes whole blocks."""
    library = kernels()
    assert library is not None and codes.flags.c_contiguous
    size, dimension = codes.shape
    query = np.ascontiguousarray(query_codes, dtype=np.int8)
    return _scan(library.ms_dot8, codes, size, dimension, query, out, threads, prior, slope)


def seven_bit_products_into(
    out: np.ndarray,
    packed: np.ndarray,
    size: int,
    query_parts: np.ndarray,
    threads: int,
    prior: np.ndarray | None = None,
    slope: float = 0.0,
) -> BlockSummary:
    """As `int8_products_into` for `size` rows of seven-bit codes (`sevenbit.pack`) and a
    query in two int8 parts, high then low: out = c·(128·high + low)."""
    library = seven_bit_kernels()
    dimension = query_parts.size // 2
    assert library is not None and packed.flags.c_contiguous
    assert packed.size >= size * dimension // 8 * 7 + 8  # the kernel reads 8 bytes past a row
    query = np.ascontiguousarray(query_parts, dtype=np.int8)
    return _scan(library.ms_dot7, packed, size, dimension, query, out, threads, prior, slope)


def _scan(
    function: Any,
    codes: np.ndarray,
    size: int,
    dimension: int,
    query: np.ndarray,
    out: np.ndarray,
    threads: int,
    prior: np.ndarray | None,
    slope: float,
) -> BlockSummary:
    slope = float(np.float32(slope))  # as the kernel takes it, so bounds use the same value
    blocks = -(-size // SCAN_BLOCK)
    lows, highs = np.empty(blocks, np.float32), np.empty(blocks, np.float32)
    ranks = None if prior is None else np.empty(blocks, np.float32)
    if prior is not None:
        assert prior.dtype == np.float32 and prior.flags.c_contiguous and prior.size >= size
    assert out.dtype == np.float32 and out.size >= size
    inputs = (codes.ctypes.data, query.ctypes.data, out.ctypes.data)
    outputs = (lows.ctypes.data, highs.ctypes.data)
    ranking = (None if prior is None else prior.ctypes.data, slope)
    ranks_at = None if ranks is None else ranks.ctypes.data

    def part(first: int, count: int) -> None:
        codes_at, query_at, out_at = inputs
        function(
            codes_at,
            first,
            count,
            query_at,
            dimension,
            out_at,
            SCAN_BLOCK,
            *outputs,
            *ranking,
            ranks_at,
        )

    if threads <= 1 or size < _TWO_THREADS_FROM:
        part(0, size)
    else:
        half = blocks // 2 * SCAN_BLOCK
        other = _helper().submit(part, half, size - half)
        part(0, half)
        other.result()
    return BlockSummary(SCAN_BLOCK, lows, highs, ranks, slope)
