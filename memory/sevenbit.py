"""Seven-bit codes: the first pass over a large index reads 7/8 of the int8 bytes.

At half a million rows and more the scan is a race for memory bandwidth, so a byte less per
eight codes is time saved. Coarser codes loosen the bound, and every row the bound leaves
near the extremes or the top k is re-scored from float32 rows. With the query in int8 as
well the bound grew 1.66x over int8's and the extra re-scoring ate the scan's saving (the
query's own rounding was a third of it); so the query goes in two int8 parts,
d = 128·high + low, which the kernel multiplies in two passes over codes already in
registers, and the bound grows only 1.2-1.4x. Measured whole searches, int8 against
seven-bit, 2 threads, taking turns (prototype; the harness's rows and weights): 12.58
against 11.63 ms at 1M, 6.78 against 6.47 at 500k, even at 300k, 1.66 against 1.74 at 100k;
hence `SEVEN_BIT_FROM`.
"""

from __future__ import annotations

import numpy as np

from mindstream.memory.kernels import seven_bit_kernels, seven_bit_products_into
from mindstream.memory.quantized import Codes, Int8Codes, peak, quantize
from mindstream.memory.ranking import BlockSummary

# Index capacity (rows) from which codes are seven-bit, where the CPU can scan them.
SEVEN_BIT_FROM = 1 << 19
_LOW_SCALE = 128  # d = 128·high + low
_PAD = 8  # the kernel reads a row's last group as 64 bytes: 8 past the row's end
_INT32_LIMIT = 2**31


def usable(dimension: int) -> bool:
    return dimension % 64 == 0 and seven_bit_kernels() is not None


def pack(codes: np.ndarray) -> np.ndarray:
    """Rows of codes in [-63, 63] as c + 64 in 7 bits, eight codes per 7 bytes (code i of a
    group in bits 7i..7i+6, little-endian), as the kernel reads them."""
    rows, dimension = codes.shape
    fields = (codes.astype(np.int16) + 64).astype(np.uint64).reshape(rows, dimension // 8, 8)
    words = np.zeros(fields.shape[:2], np.uint64)
    for i in range(8):
        words |= fields[:, :, i] << np.uint64(7 * i)
    groups = words.view(np.uint8).reshape(rows, dimension // 8, 8)[:, :, :7]
    return np.ascontiguousarray(groups).reshape(rows, dimension // 8 * 7)


def unpack(packed: np.ndarray, dimension: int) -> np.ndarray:
    """The codes `pack` stored: rows × dimension int8."""
    rows = packed.size // (dimension // 8 * 7)
    groups = np.zeros((rows, dimension // 8, 8), np.uint8)
    groups[:, :, :7] = packed[: rows * dimension // 8 * 7].reshape(rows, dimension // 8, 7)
    words = groups.view(np.uint64)[:, :, 0]
    fields = [(words >> np.uint64(7 * i)) & np.uint64(0x7F) for i in range(8)]
    codes = np.stack(fields, axis=2).reshape(rows, dimension).astype(np.int16) - 64
    return codes.astype(np.int8)


def split_query(query: np.ndarray) -> tuple[np.ndarray, float, float, float]:
    """The query as int8 parts [high, low] with query ≈ scale·(128·high + low), that scale,
    the residual's norm and the query's norm."""
    query = np.asarray(query, dtype=np.float32)
    scale = peak(query) / 127.0
    high = quantize(query, scale)
    rest = query / np.float32(scale) - high if scale else np.zeros_like(query)
    low = np.rint(rest * _LOW_SCALE).clip(-64, 64).astype(np.int8)
    restored = (high.astype(np.float64) * _LOW_SCALE + low) * (scale / _LOW_SCALE)
    residual = float(np.linalg.norm(query - restored))
    return np.concatenate([high, low]), scale / _LOW_SCALE, residual, float(np.linalg.norm(query))


class SevenBitCodes(Int8Codes):
    """Int8Codes with codes in [-63, 63] packed by `pack`, scanned by the compiled kernel."""

    LIMIT = 63

    def __init__(self, dimension: int, capacity: int) -> None:
        largest = self.LIMIT * dimension * (127 * _LOW_SCALE + 64)
        if dimension % 8 or largest >= _INT32_LIMIT:
            raise ValueError(f"dimension {dimension} does not suit seven-bit codes")
        super().__init__(dimension, 0)
        self.row_bytes = dimension // 8 * 7
        self.codes = np.zeros(capacity * self.row_bytes + _PAD, dtype=np.uint8)
        # Products are exact in int32; float32 rounds them by at most 2^-24 of the largest.
        self.product_rounding = largest * 2.0**-24

    def resize(self, capacity: int, size: int) -> None:
        codes = np.zeros(capacity * self.row_bytes + _PAD, dtype=np.uint8)
        codes[: size * self.row_bytes] = self.codes[: size * self.row_bytes]
        self.codes = codes

    def _store(self, at: int, codes: np.ndarray) -> None:
        self.codes[at * self.row_bytes : (at + len(codes)) * self.row_bytes] = pack(codes).ravel()

    def _encode_query(self, query: np.ndarray) -> tuple[np.ndarray, float, float, float]:
        return split_query(query)

    def _products(
        self,
        out: np.ndarray,
        query_codes: np.ndarray,
        size: int,
        threads: int,
        prior: np.ndarray | None,
        slope: float,
    ) -> BlockSummary:
        return seven_bit_products_into(out[0], self.codes, size, query_codes, threads, prior, slope)


def grown_codes(codes: Codes, capacity: int, size: int, embeddings: np.ndarray) -> Codes:
    """The codes of an index grown to `capacity` rows: from SEVEN_BIT_FROM rows seven-bit
    where this CPU can scan them (encoded once from the float32 rows), else `codes` resized."""
    if type(codes) is Int8Codes and capacity >= SEVEN_BIT_FROM and usable(codes.dimension):
        seven = SevenBitCodes(codes.dimension, capacity)
        seven.encode(0, embeddings[:size], embeddings)
        return seven
    codes.resize(capacity, size)
    return codes
