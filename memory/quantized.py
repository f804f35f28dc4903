"""An int8 first pass over the embedding matrix whose error is certified (`Codes`, the
interface every first pass has; seven-bit codes in `memory.sevenbit`).

Each row x is stored as int8 codes c at a scale s shared by every row (x ≈ s·c, round to
nearest); the query q at its own scale (q ≈ t·d). Then

    |x·q − s·t·(c·d)| ≤ ‖x − s·c‖·‖q‖ + ‖s·c‖·‖q − t·d‖

so one bound, eps, covers every row: the largest residual norm times ‖q‖ plus the largest
code norm times the query's residual. The integer products c·d are exact in float32 (at most
d·127² < 2²⁴), computed by SimSIMD's VNNI kernels at memory bandwidth: a quarter of the
bytes of a float32 pass.
"""

from __future__ import annotations

import ctypes
import functools
import os
import sys
import threading
from typing import NamedTuple, Protocol

import numpy as np

from mindstream.memory.kernels import int8_products_into, usable
from mindstream.memory.ranking import BlockSummary

# Float32 rounding of s·t·(c·d) and of the caller's arithmetic on unit vectors.
_ROUNDING = 1e-5
_EXACT_INT_LIMIT = 2**24
_BLOCK = 16_384
_SCALE_GROWTH = 1.1


class Scratch(threading.local):
    """Reusable float32 buffers, one per thread: a million-row temporary costs page faults,
    and two threads searching one index at once must never share one."""

    array: np.ndarray | None = None

    def buffer(self, rows: int, size: int) -> np.ndarray:
        current = self.array
        if current is None or current.shape[0] < rows or current.shape[1] < size:
            width = max(size, 2 * current.shape[1]) if current is not None else size
            self.array = current = np.zeros((rows, width), dtype=np.float32)
        return current[:rows, :size]


def simsimd_available() -> bool:
    try:
        import simsimd  # noqa: F401
    except ImportError:
        return False
    return True


def dot_into(out: np.ndarray, queries: np.ndarray, codes: np.ndarray, threads: int) -> None:
    """SimSIMD's int8 dot products of every query with every row, written into `out`."""
    import simsimd

    simsimd.cdist(queries, codes, metric="dot", out=out, out_dtype="float32", threads=threads)
    _repay_none("cdist")


def scale_add_into(values: np.ndarray, factor: float, other: np.ndarray) -> None:
    """values = factor·values + other in one pass (SimSIMD's wsum; numpy takes two)."""
    import simsimd

    simsimd.wsum(values, other, alpha=factor, beta=1.0, out=values)
    _repay_none("wsum")


def _repay_none(function: str) -> None:
    for _ in range(_none_references_taken(function)):
        _give_back_none_reference()


_SMALL_CALLS = {
    "cdist": lambda simsimd: simsimd.cdist(
        np.zeros((1, 8), np.int8),
        np.zeros((2, 8), np.int8),
        metric="dot",
        out=np.zeros((1, 2), np.float32),
        out_dtype="float32",
    ),
    "wsum": lambda simsimd: simsimd.wsum(
        np.zeros(8, np.float32), np.zeros(8, np.float32), out=np.zeros(8, np.float32)
    ),
}


@functools.cache
def _none_references_taken(function: str) -> int:
    """How many references to None one SimSIMD call with `out=` takes and never gives back.

    SimSIMD 6.5 returns None there without a new reference. On Python 3.11 None is not
    immortal: after ~8,000 retrievals its count reached zero and the interpreter aborted
    ("none_dealloc"). Measured once per function here, so a fixed SimSIMD (or an immortal
    None) costs nothing.
    """
    import simsimd

    call = _SMALL_CALLS[function]
    seen = []
    for _ in range(3):  # the largest of three: other threads may take or give some meanwhile
        before = sys.getrefcount(None)
        for _ in range(16):
            call(simsimd)
        taken = before - sys.getrefcount(None)
        for _ in range(max(0, taken)):
            _give_back_none_reference()
        seen.append(round(taken / 16))
    return max(0, *seen)


def _give_back_none_reference() -> None:
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(None))


def quantize(vectors: np.ndarray, scale: float, limit: int = 127) -> np.ndarray:
    """Symmetric int8 codes in [-limit, limit] of `vectors` at one scale (x ≈ scale·c);
    scale 0 gives zeros."""
    if not scale:
        return np.zeros(vectors.shape, dtype=np.int8)
    return np.rint(vectors / np.float32(scale)).clip(-limit, limit).astype(np.int8)


def peak(vectors: np.ndarray) -> float:
    """Largest |value|, without an |vectors| temporary (1.5 GB at a million rows)."""
    return max(float(vectors.max()), -float(vectors.min())) if vectors.size else 0.0


class FirstPass(NamedTuple):
    """A scan's integer products, the factor that turns them into relevance, the bound on
    every row's error in relevance, and the products' summary by blocks where the scan kept
    one."""

    approx: np.ndarray
    factor: float
    eps: float
    summary: BlockSummary | None = None


class Codes(Protocol):
    """A first pass over an index's rows whose relevance is certified to within eps per row:
    int8 codes (`Int8Codes`) or, from SEVEN_BIT_FROM rows, seven-bit ones (`SevenBitCodes`).
    The index keeps them in step with its rows; `memory.certified` turns a scan into the
    exact top k."""

    dimension: int
    scale: float

    def encode(self, start: int, vectors: np.ndarray, earlier: np.ndarray) -> None: ...

    def resize(self, capacity: int, size: int) -> None: ...

    def scan(
        self,
        query: np.ndarray,
        size: int,
        threads: int = 1,
        prior: np.ndarray | None = None,
        weight: float = 0.0,
    ) -> FirstPass: ...


class Int8Codes:
    """Codes for rows [0, size) of an index at one shared scale, grown alongside it.

    One scale for every row (not one per row) leaves the scan's output as plain integer dot
    products: no per-row multiply (a pass over 4 MB at a million rows) before the ranking,
    which folds the scale into its own factor. The bound is the same in practice, as eps
    takes the worst row either way (0.0120 against 0.0110 on the OpenBookQA book's
    embeddings, 0.0150 against 0.0137 on random unit vectors).
    """

    LIMIT = 127  # codes lie in [-LIMIT, LIMIT]
    product_rounding = 0.0  # products exact in float32 (see _EXACT_INT_LIMIT)

    def __init__(self, dimension: int, capacity: int) -> None:
        if dimension * 127 * 127 >= _EXACT_INT_LIMIT:
            raise ValueError(f"dimension {dimension} is too large for exact int8 products")
        self.dimension = dimension
        self.codes: np.ndarray = np.zeros((capacity, dimension), dtype=np.int8)
        self.scale = 0.0
        self.max_residual = 0.0
        self.max_code_norm = 0.0
        self._out = Scratch()

    def resize(self, capacity: int, size: int) -> None:
        codes = np.zeros((capacity, self.dimension), dtype=np.int8)
        codes[:size] = self.codes[:size]
        self.codes = codes

    def encode(self, start: int, vectors: np.ndarray, earlier: np.ndarray) -> None:
        """Encode rows [start, start + len(vectors)); `earlier` holds rows [0, start), which
        are encoded again when the new rows need a larger scale (by at least a tenth, so a
        stream of one-by-one appends rarely pays for it)."""
        needed = peak(vectors) / self.LIMIT
        if needed > self.scale:
            grown = max(needed, _SCALE_GROWTH * self.scale)
            self.scale, self.max_residual, self.max_code_norm = grown, 0.0, 0.0
            self._encode_blocks(0, earlier[:start])
        self._encode_blocks(start, vectors)

    def _encode_blocks(self, start: int, vectors: np.ndarray) -> None:
        # In blocks: whole-matrix temporaries of a million rows cost seconds in page faults.
        for first in range(0, len(vectors), _BLOCK):
            block = np.asarray(vectors[first : first + _BLOCK], dtype=np.float32)
            codes = quantize(block, self.scale, self.LIMIT)
            self._store(start + first, codes)
            restored = codes.astype(np.float32) * np.float32(self.scale)
            residual = np.linalg.norm(block - restored, axis=1).max()
            self.max_residual = max(self.max_residual, float(residual))
            self.max_code_norm = max(
                self.max_code_norm, float(np.linalg.norm(restored, axis=1).max())
            )

    def _store(self, at: int, codes: np.ndarray) -> None:
        self.codes[at : at + len(codes)] = codes

    def scan(
        self,
        query: np.ndarray,
        size: int,
        threads: int = 1,
        prior: np.ndarray | None = None,
        weight: float = 0.0,
    ) -> FirstPass:
        """Integer dot products of rows [0, size) with the query's codes, and their bound.

        Given the search's `prior`, the compiled scan also ranks rows by
        weight·relevance + prior per block (`weight`: a guess at w_rel/span of relevance).
        """
        query_codes, query_scale, query_residual, query_norm = self._encode_query(query)
        out = self._out.buffer(1, size)  # reused: a fresh million-row array page-faults
        factor = self.scale * query_scale
        summary = self._products(out, query_codes, size, threads, prior, weight * factor)
        eps = self.max_residual * query_norm + self.max_code_norm * query_residual + _ROUNDING
        return FirstPass(out[0], factor, eps + self.product_rounding * factor, summary)

    def _encode_query(self, query: np.ndarray) -> tuple[np.ndarray, float, float, float]:
        return _encode_query(query)

    def _products(
        self,
        out: np.ndarray,
        query_codes: np.ndarray,
        size: int,
        threads: int,
        prior: np.ndarray | None,
        slope: float,
    ) -> BlockSummary | None:
        """out[0] = codes·query_codes for rows [0, size), and the compiled scan's summary."""
        if usable(self.dimension):
            return int8_products_into(out[0], self.codes[:size], query_codes, threads, prior, slope)
        dot_into(out, query_codes[None, :], self.codes[:size], threads)
        return None


def _encode_query(query: np.ndarray) -> tuple[np.ndarray, float, float, float]:
    """The query's int8 codes, their scale, the residual's norm and the query's norm."""
    query = np.asarray(query, dtype=np.float32)
    query_scale = peak(query) / 127.0
    query_codes = quantize(query, query_scale)
    restored = query_codes.astype(np.float32) * np.float32(query_scale)
    residual = float(np.linalg.norm(query - restored))
    return query_codes, query_scale, residual, float(np.linalg.norm(query))


def thread_choices() -> list[int]:
    """Thread counts worth timing for the scan: 1 up to the cores (at most
    MINDSTREAM_THREADS when it is set, as for the models)."""
    cores = os.cpu_count() or 1
    cap = os.environ.get("MINDSTREAM_THREADS")
    return list(range(1, min(cores, int(cap) if cap else cores, 4) + 1))
