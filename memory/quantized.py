"""An int8 first pass over the embedding matrix whose error is certified, and the start-up
measurement that decides whether it is worth taking on this machine.

Each row x is stored as int8 codes c with a per-row scale s (x ≈ s·c, round to nearest); the
query q likewise (q ≈ t·d). Then

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

import numpy as np

# Float32 rounding of s·t·(c·d) and of the caller's arithmetic on unit vectors.
_ROUNDING = 1e-5
_EXACT_INT_LIMIT = 2**24
_BLOCK = 16_384


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
    for _ in range(_none_references_taken()):
        _give_back_none_reference()


@functools.cache
def _none_references_taken() -> int:
    """How many references to None one `cdist(out=...)` call takes and never gives back.

    SimSIMD 6.5 returns None there without a new reference. On Python 3.11 None is not
    immortal: after ~8,000 retrievals its count reached zero and the interpreter aborted
    ("none_dealloc"). Measured once here, so a fixed SimSIMD (or an immortal None) costs
    nothing.
    """
    import simsimd

    queries, rows = np.zeros((1, 8), dtype=np.int8), np.zeros((2, 8), dtype=np.int8)
    out = np.zeros((1, 2), dtype=np.float32)
    seen = []
    for _ in range(3):  # the largest of three: other threads may take or give some meanwhile
        before = sys.getrefcount(None)
        for _ in range(16):
            simsimd.cdist(queries, rows, metric="dot", out=out, out_dtype="float32")
        taken = before - sys.getrefcount(None)
        for _ in range(max(0, taken)):
            _give_back_none_reference()
        seen.append(round(taken / 16))
    return max(0, *seen)


def _give_back_none_reference() -> None:
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(None))


def quantize(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric per-row int8 codes and their scales (a zero row gets scale 1, codes 0)."""
    peak = np.abs(vectors).max(axis=1) if vectors.size else np.zeros(len(vectors))
    scales = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    codes = np.rint(vectors / scales[:, None]).clip(-127, 127).astype(np.int8)
    return codes, scales


class Int8Codes:
    """Codes and scales for rows [0, size) of an index, grown alongside it."""

    def __init__(self, dimension: int, capacity: int) -> None:
        if dimension * 127 * 127 >= _EXACT_INT_LIMIT:
            raise ValueError(f"dimension {dimension} is too large for exact int8 products")
        self.dimension = dimension
        self.codes = np.zeros((capacity, dimension), dtype=np.int8)
        self.scales = np.zeros(capacity, dtype=np.float32)
        self.max_residual = 0.0
        self.max_code_norm = 0.0
        self._out = Scratch()

    def resize(self, capacity: int, size: int) -> None:
        codes = np.zeros((capacity, self.dimension), dtype=np.int8)
        scales = np.zeros(capacity, dtype=np.float32)
        codes[:size], scales[:size] = self.codes[:size], self.scales[:size]
        self.codes, self.scales = codes, scales

    def encode(self, start: int, vectors: np.ndarray) -> None:
        # In blocks: whole-matrix temporaries of a million rows cost seconds in page faults.
        for first in range(0, len(vectors), _BLOCK):
            block = np.asarray(vectors[first : first + _BLOCK], dtype=np.float32)
            codes, scales = quantize(block)
            at = start + first
            self.codes[at : at + len(block)], self.scales[at : at + len(block)] = codes, scales
            restored = codes.astype(np.float32) * scales[:, None]
            residual = np.linalg.norm(block - restored, axis=1).max()
            self.max_residual = max(self.max_residual, float(residual))
            self.max_code_norm = max(
                self.max_code_norm, float(np.linalg.norm(restored, axis=1).max())
            )

    def scan(self, query: np.ndarray, size: int, threads: int = 1) -> tuple[np.ndarray, float]:
        """Approximate relevance of rows [0, size) and the bound on every row's error."""
        query = np.asarray(query, dtype=np.float32)
        (query_codes,), (query_scale,) = quantize(query[None, :])
        restored = query_codes.astype(np.float32) * query_scale
        query_residual = float(np.linalg.norm(query - restored))
        out = self._out.buffer(1, size)
        dot_into(out, query_codes[None, :], self.codes[:size], threads)
        approx = out[0]  # in place: a fresh million-row array costs page faults
        approx *= self.scales[:size]
        approx *= np.float32(query_scale)
        eps = (
            self.max_residual * float(np.linalg.norm(query))
            + self.max_code_norm * query_residual
            + _ROUNDING
        )
        return approx, eps


def thread_choices() -> list[int]:
    """Thread counts worth timing for the scan: 1 up to the cores (at most
    MINDSTREAM_THREADS when it is set, as for the models)."""
    cores = os.cpu_count() or 1
    cap = os.environ.get("MINDSTREAM_THREADS")
    return list(range(1, min(cores, int(cap) if cap else cores, 4) + 1))
