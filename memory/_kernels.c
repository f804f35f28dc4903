/* The int8 first pass of the certified search (memory/kernels.py loads it by ctypes).
 *
 * Why not SimSIMD's int8 scan alone: at a million rows the search is a race for memory
 * bandwidth, and SimSIMD reads one row at a time and leaves prefetching to the hardware.
 * This kernel reads four rows at a time with every line prefetched 4 KB ahead, and
 * summarises each block of its output while it is in cache (minimum, maximum, and the
 * maximum of a guessed ranking), which the search needs next and would otherwise find in
 * passes over the output. VNNI (vpdpbusd) multiplies unsigned by signed bytes, so the row
 * codes c are flipped to c + 128 and 128·Σd taken off the sum.
 * Built with target attributes, so the module loads on any x86-64 CPU;
 * `ms_kernels_supported` says whether this one can run it.
 */
#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MS_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni")))
#define MS_ROWS 4
#define MS_PREFETCH 4096

int ms_kernels_supported(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vnni");
}

MS_TARGET static inline __m512i ms_load(const int8_t *p) {
    return _mm512_xor_si512(_mm512_loadu_si512(p), _mm512_set1_epi8((char)0x80)); /* c + 128 */
}

MS_TARGET static inline float ms_row(const int8_t *p, const int8_t *query, size_t chunks,
                                     int32_t offset) {
    __m512i acc = _mm512_setzero_si512();
    for (size_t j = 0; j < chunks; j++)
        acc = _mm512_dpbusd_epi32(acc, ms_load(p + 64 * j),
                                  _mm512_loadu_si512(query + 64 * j));
    return (float)(_mm512_reduce_add_epi32(acc) + offset);
}

/* Four rows from p: their products c·d (exact in float32, |c·d| < 2^24) into out[0..3]. */
MS_TARGET static inline void ms_four(const int8_t *p, size_t row_bytes, const int8_t *query,
                                     size_t chunks, int32_t offset, float *out) {
    for (size_t c = 0; c < MS_ROWS * row_bytes; c += 64)
        _mm_prefetch((const char *)(p + MS_PREFETCH + c), _MM_HINT_T0);
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
    for (size_t j = 0; j < chunks; j++) {
        __m512i q = _mm512_loadu_si512(query + 64 * j);
        const int8_t *c = p + 64 * j;
        a0 = _mm512_dpbusd_epi32(a0, ms_load(c), q);
        a1 = _mm512_dpbusd_epi32(a1, ms_load(c + row_bytes), q);
        a2 = _mm512_dpbusd_epi32(a2, ms_load(c + 2 * row_bytes), q);
        a3 = _mm512_dpbusd_epi32(a3, ms_load(c + 3 * row_bytes), q);
    }
    out[0] = (float)(_mm512_reduce_add_epi32(a0) + offset);
    out[1] = (float)(_mm512_reduce_add_epi32(a1) + offset);
    out[2] = (float)(_mm512_reduce_add_epi32(a2) + offset);
    out[3] = (float)(_mm512_reduce_add_epi32(a3) + offset);
}

/* The minimum and maximum of out[0..n) and, with a prior, the maximum of
   slope·out[r] + prior[r] (one rounding: fused multiply-add), sixteen rows at a time. */
MS_TARGET static void ms_summarize(const float *out, size_t n, const float *prior, float slope,
                                   float *low, float *high, float *rank) {
    const __m512 none = _mm512_set1_ps(3.4e38f), factor = _mm512_set1_ps(slope);
    __m512 lo = none, hi = _mm512_sub_ps(_mm512_setzero_ps(), none), best = hi;
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 in = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1);
        __m512 v = _mm512_maskz_loadu_ps(in, out + i);
        lo = _mm512_mask_min_ps(lo, in, lo, v);
        hi = _mm512_mask_max_ps(hi, in, hi, v);
        if (prior) {
            __m512 ranked = _mm512_fmadd_ps(factor, v, _mm512_maskz_loadu_ps(in, prior + i));
            best = _mm512_mask_max_ps(best, in, best, ranked);
        }
    }
    *low = _mm512_reduce_min_ps(lo);
    *high = _mm512_reduce_max_ps(hi);
    if (prior) *rank = _mm512_reduce_max_ps(best);
}

/* out[r] = c_r·d for rows [first, first + count) of `dim` codes each (a multiple of 64),
   and lows[b], highs[b] the minimum and maximum of out over each block b of `block` rows
   (the last one may be short); `first` is a multiple of `block`. With a `prior`, also
   ranks[b] = the block's maximum of slope·out[r] + prior[r]: a guess at the ranking that
   bounds the true one (certified.py), so the search needs no pass to rank every row. */
MS_TARGET void ms_dot8(const int8_t *codes, size_t first, size_t count,
                       const int8_t *query, size_t dim, float *out, size_t block, float *lows,
                       float *highs, const float *prior, float slope, float *ranks) {
    size_t chunks = dim / 64, end = first + count;
    int32_t query_sum = 0;
    for (size_t i = 0; i < dim; i++) query_sum += query[i];
    const int32_t offset = -128 * query_sum;
    for (size_t start = first; start < end; start += block) {
        size_t stop = start + block < end ? start + block : end, r = start, b = start / block;
        for (; r + MS_ROWS <= stop; r += MS_ROWS)
            ms_four(codes + r * dim, dim, query, chunks, offset, out + r);
        for (; r < stop; r++) out[r] = ms_row(codes + r * dim, query, chunks, offset);
        ms_summarize(out + start, stop - start, prior ? prior + start : NULL, slope, lows + b,
                     highs + b, prior ? ranks + b : NULL);
    }
}

/* Seven-bit codes: a row of `dim` codes c in [-63, 63] is stored as c + 64 in 7 bits, eight
   codes per 7 bytes, so a pass reads 7/8 of the int8 bytes. VBMI spreads each 7-byte group
   over a quadword (vpermb) and cuts out its eight 7-bit fields (vpmultishiftqb). The query
   comes in two int8 halves, d = 128·high + low, so its own rounding adds almost nothing to
   the bound; each product is exact in int32. Rows need 8 readable bytes after their end. */
#define MS_SEVEN_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni,avx512vbmi")))

int ms_seven_supported(void) {
    return ms_kernels_supported() && __builtin_cpu_supports("avx512vbmi");
}

MS_SEVEN_TARGET static inline __m512i ms_unpack7(const uint8_t *p) {
    const __m512i order = _mm512_set_epi8(
        55, 55, 54, 53, 52, 51, 50, 49, 48, 48, 47, 46, 45, 44, 43, 42, 41, 41, 40, 39, 38, 37,
        36, 35, 34, 34, 33, 32, 31, 30, 29, 28, 27, 27, 26, 25, 24, 23, 22, 21, 20, 20, 19, 18,
        17, 16, 15, 14, 13, 13, 12, 11, 10, 9, 8, 7, 6, 6, 5, 4, 3, 2, 1, 0);
    const __m512i shifts = _mm512_set1_epi64(0x312A231C150E0700LL); /* 0, 7, ..., 49 */
    __m512i spread = _mm512_permutexvar_epi8(order, _mm512_loadu_si512(p));
    return _mm512_and_si512(_mm512_multishift_epi64_epi8(shifts, spread), _mm512_set1_epi8(0x7F));
}

/* Rows [0, rows) from p (at most MS_ROWS): 128·(c·high) + c·low, less the offset, into out. */
MS_SEVEN_TARGET static inline void ms_rows7(const uint8_t *p, size_t rows, size_t row_bytes,
                                            const int8_t *query, size_t chunks, int32_t offset,
                                            float *out) {
    for (size_t c = 0; c < rows * row_bytes; c += 64)
        _mm_prefetch((const char *)(p + MS_PREFETCH + c), _MM_HINT_T0);
    __m512i high[MS_ROWS], low[MS_ROWS];
    for (size_t r = 0; r < MS_ROWS; r++) high[r] = low[r] = _mm512_setzero_si512();
    for (size_t j = 0; j < chunks; j++) {
        __m512i h = _mm512_loadu_si512(query + 64 * j);
        __m512i l = _mm512_loadu_si512(query + 64 * (chunks + j));
        for (size_t r = 0; r < rows; r++) {
            __m512i codes = ms_unpack7(p + r * row_bytes + 56 * j);
            high[r] = _mm512_dpbusd_epi32(high[r], codes, h);
            low[r] = _mm512_dpbusd_epi32(low[r], codes, l);
        }
    }
    for (size_t r = 0; r < rows; r++)
        out[r] = (float)(_mm512_reduce_add_epi32(
                             _mm512_add_epi32(_mm512_slli_epi32(high[r], 7), low[r])) +
                         offset);
}

/* As ms_dot8 for seven-bit codes (rows of dim / 8 · 7 bytes) and a two-part query of 2·dim
   bytes (high, then low). */
MS_SEVEN_TARGET void ms_dot7(const uint8_t *codes, size_t first, size_t count,
                             const int8_t *query, size_t dim, float *out, size_t block,
                             float *lows, float *highs, const float *prior, float slope,
                             float *ranks) {
    size_t chunks = dim / 64, end = first + count, row_bytes = dim / 8 * 7;
    int32_t high_sum = 0, low_sum = 0;
    for (size_t i = 0; i < dim; i++) high_sum += query[i], low_sum += query[dim + i];
    const int32_t offset = -64 * (128 * high_sum + low_sum);
    for (size_t start = first; start < end; start += block) {
        size_t stop = start + block < end ? start + block : end, b = start / block;
        for (size_t r = start; r < stop; r += MS_ROWS) {
            size_t rows = stop - r < MS_ROWS ? stop - r : MS_ROWS;
            ms_rows7(codes + r * row_bytes, rows, row_bytes, query, chunks, offset, out + r);
        }
        ms_summarize(out + start, stop - start, prior ? prior + start : NULL, slope, lows + b,
                     highs + b, prior ? ranks + b : NULL);
    }
}
#else
int ms_kernels_supported(void) { return 0; }
int ms_seven_supported(void) { return 0; }
void ms_dot8(const int8_t *codes, size_t first, size_t count,
             const int8_t *query, size_t dim, float *out, size_t block, float *lows,
             float *highs, const float *prior, float slope, float *ranks) {}
void ms_dot7(const uint8_t *codes, size_t first, size_t count,
             const int8_t *query, size_t dim, float *out, size_t block, float *lows,
             float *highs, const float *prior, float slope, float *ranks) {}
#endif

/* A module only so that setuptools builds and installs the shared library. */
static struct PyModuleDef ms_module = {PyModuleDef_HEAD_INIT, "_kernels", NULL, -1, NULL};
PyMODINIT_FUNC PyInit__kernels(void) { return PyModule_Create(&ms_module); }
