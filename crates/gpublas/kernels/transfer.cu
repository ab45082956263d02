// Auxiliary transfers: move a run of elements between a contiguous chunk of the workspace and
// a strided device layout (a vector at an increment, or columns at a leading dimension).
// Elements are copied as words (the largest power of two up to 16 bytes that divides the
// element size): element k of the run is `words` words.
//
// Layout of the strided side: logical element k sits at column c = k / rows, row r = k % rows,
// address base + (c' * ld + r) * elem, with c' = cols - 1 - c when `reverse` (a vector at a
// negative increment, stored as rows = 1 and ld = |inc|).

typedef long long i64;
typedef unsigned long long u64;
#define THREADS 256

struct TJob {
    u64 chunk;   // contiguous side (workspace)
    u64 base;    // strided side
    u64 k0;      // first logical element of the run
    u64 words;   // words in the run
    u64 rows, cols, ld;
    u64 per;     // words per element
    int reverse;
};

__device__ __forceinline__ void pdl_enter() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Word offset (from base) of word w of the run.
__device__ __forceinline__ u64 strided_word(const TJob& j, u64 w) {
    u64 e = w / j.per, part = w - e * j.per;
    u64 k = j.k0 + e;
    u64 c = k / j.rows, r = k - c * j.rows;
    if (j.reverse) c = j.cols - 1 - c;
    return (c * j.ld + r) * j.per + part;
}

// scatter: chunk -> strided; gather: strided -> chunk.
#define TRANSFER(W, TAG)                                                                        \
    extern "C" __global__ void __launch_bounds__(THREADS) tr_scatter_##TAG(TJob j) {          \
        pdl_enter();                                                                            \
        const W* src = (const W*)j.chunk;                                                       \
        W* dst = (W*)j.base;                                                                    \
        for (u64 w = blockIdx.x * (u64)THREADS + threadIdx.x; w < j.words;                      \
             w += (u64)gridDim.x * THREADS)                                                     \
            dst[strided_word(j, w)] = src[w];                                                   \
    }                                                                                           \
    extern "C" __global__ void __launch_bounds__(THREADS) tr_gather_##TAG(TJob j) {           \
        pdl_enter();                                                                            \
        const W* src = (const W*)j.base;                                                        \
        W* dst = (W*)j.chunk;                                                                   \
        for (u64 w = blockIdx.x * (u64)THREADS + threadIdx.x; w < j.words;                      \
             w += (u64)gridDim.x * THREADS)                                                     \
            dst[w] = src[strided_word(j, w)];                                                   \
    }

#ifdef GPUBLAS_FAMILY_TRANSFER
TRANSFER(unsigned char, 1)
TRANSFER(unsigned short, 2)
TRANSFER(unsigned int, 4)
TRANSFER(u64, 8)
TRANSFER(uint4, 16)
#endif
