"""The compiled int8 scan (`_kernels.c`), where this CPU can run it: SimSIMD's otherwise.

At a million rows the search is a race for memory bandwidth. The kernel reads four rows at
a time with software prefetch, and returns each block's minimum and maximum product, which
`ranking.near_extremes` would otherwise find in another pass over the output. Its two
threads are Python threads around a call that releases the GIL, so no OpenMP pool is left
spinning on the other core.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from memory.ranking import BLOCK

_TWO_THREADS_FROM = 8 * BLOCK
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
    spec = importlib.util.find_spec("memory._kernels")
    if spec is None or spec.origin is None:
        return None
    library = ctypes.CDLL(spec.origin)
    if not library.ms_kernels_supported():
        return None
    library.ms_dot8.argtypes = [_POINTER, _SIZE, _SIZE, _POINTER, _SIZE, _POINTER, _SIZE]
    library.ms_dot8.argtypes += [_POINTER, _POINTER]
    library.ms_dot8.restype = None
    return library


def usable(dimension: int) -> bool:
    return dimension % 64 == 0 and kernels() is not None


@functools.cache
def _helper() -> ThreadPoolExecutor:
    # One long-lived helper: a thread started per query costs ~0.1 ms.
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="mindstream-scan")


def int8_products_into(
    out: np.ndarray, codes: np.ndarray, query_codes: np.ndarray, threads: int
) -> tuple[np.ndarray, np.ndarray]:
    """out = codes·query_codes, and the minimum and maximum of every BLOCK rows of it (the
    last block may be short); on two threads each takes whole blocks."""
    library = kernels()
    assert library is not None and codes.flags.c_contiguous
    size, dimension = codes.shape
    blocks = -(-size // BLOCK)
    lows, highs = np.empty(blocks, np.float32), np.empty(blocks, np.float32)
    query = np.ascontiguousarray(query_codes, dtype=np.int8)
    inputs = (codes.ctypes.data, query.ctypes.data, out.ctypes.data)
    outputs = (lows.ctypes.data, highs.ctypes.data)

    def part(first: int, count: int) -> None:
        codes_at, query_at, out_at = inputs
        library.ms_dot8(codes_at, first, count, query_at, dimension, out_at, BLOCK, *outputs)

    if threads <= 1 or size < _TWO_THREADS_FROM:
        part(0, size)
    else:
        half = blocks // 2 * BLOCK
        other = _helper().submit(part, half, size - half)
        part(0, half)
        other.result()
    return lows, highs
