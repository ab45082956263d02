// The solver's kernels (family GPUBLAS_FAMILY_SOLVER), for float, double, float2 (c32) and
// double2 (c64); the Cholesky kernels are in chol.cu:
//   lu:    LU with partial pivoting of a panel of at most 32 columns over all its rows. The
//          rows are split over the grid's blocks (a cooperative launch: all resident), each
//          keeping its rows in shared memory; per column every block offers its best row, one
//          grid barrier, then every block picks the same winner and swaps, scales and updates
//          its own rows. One block per entry for batches.
//   perm:  a chunk of row interchanges k0..k1 (or in reverse) turned into a permutation of the
//          rows it moves (a thread follows each row it touches), written as a gather list;
//   gather: that list applied to every column at once (a block per column, rows read first);
//   swap:  row interchanges on columns, one thread per column (when there is no room for lists);
//   luw:   LU of panels of at most 32 × 32 (the batched case), one warp each, a row per lane;
//   lur:   LU of a whole matrix of at most 128 × 128 (64 × 64 complex), one block each;
//   init:  info = 0 per entry.
//   getri's: diaginfo (info at the first zero of U's diagonal), take (a block of L moved to
//          the workspace, zeros left behind), colperm + colgather (the column interchanges as
//          one permutation, applied to groups of rows held in shared memory) or colswap (the
//          interchanges one by one, a thread per row, where there is no room for that);
//   trinvp: getri's and potri's leaves of at most 128 (and getri's unit blocks of L):
//          triangles inverted in place, a warp per column, the triangle packed in shared memory;
//   trmulp: the inversion's solves' leaves and getri's blocks times their inverted block of L:
//          X := T X or X T in place with a triangle of at most 128, 32 columns of X a block.

// 16-byte records in one access each (the tag travels with the value).
__device__ __forceinline__ void st_rec(int4* p, int4 v) {
    asm volatile("st.volatile.global.v4.s32 [%0], {%1, %2, %3, %4};" :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__device__ __forceinline__ int4 ld_rec(const int4* p) {
    int4 v;
    asm volatile("ld.volatile.global.v4.s32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p) : "memory");
    return v;
}

// (magnitude, row) pairs: the larger magnitude wins, then the smaller row; row -1 is "none".
__device__ __forceinline__ bool beats(double v, i64 i, double w, i64 k) {
    if (i < 0) return false;
    if (k < 0) return true;
    return v > w || (v == w && i < k);
}

// The block's best (magnitude, row); every thread gets it.
__device__ void block_best(double& v, i64& i) {
    __shared__ double sv[MAXT / 32];
    __shared__ i64 si[MAXT / 32];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
    for (int o = 16; o > 0; o >>= 1) {
        double v2 = __shfl_down_sync(0xffffffffu, v, o);
        i64 i2 = __shfl_down_sync(0xffffffffu, i, o);
        if (beats(v2, i2, v, i)) { v = v2; i = i2; }
    }
    __syncthreads();
    if (lane == 0) { sv[w] = v; si[w] = i; }
    __syncthreads();
    v = sv[0]; i = si[0];
    for (int k = 1; k < nw; ++k)
        if (beats(sv[k], si[k], v, i)) { v = sv[k]; i = si[k]; }
}

template <class T>
__device__ void lu(const Sol& j) {
    pdl_enter();
    extern __shared__ __align__(16) unsigned char smem_raw[];
    __shared__ T prow[PW], drow[PW];
    __shared__ i64 s_win;
    const int G = j.grid;
    const int e = blockIdx.x / G, b = blockIdx.x % G;
    if (e >= j.ne) return;
    T* A = (T*)j.a + e * j.es;
    int* piv = (int*)j.piv + e * j.piv_s;
    int* info = (int*)j.info + e * j.info_s;
    const i64 rows = j.rows;
    const int cols = (int)j.cols;
    const i64 rpb = (rows + G - 1) / G;
    const i64 r0 = b * rpb, r1 = min(rows, r0 + rpb), nr = max(r1 - r0, (i64)0);
    T* P;
    i64 ldp;
    if (j.smem_rows) {
        P = (T*)smem_raw;
        ldp = j.smem_rows;
        for (i64 t = threadIdx.x; t < nr * cols; t += blockDim.x) {
            i64 r = t % nr, c = t / nr;
            P[r + c * ldp] = A[r0 + r + c * j.ld];
        }
    } else {
        P = A + r0;
        ldp = j.ld;
    }
    __syncthreads();
    // Exchange slots: two generations of [G candidate rows][diagonal row][G (magnitude, row)].
    // Exchange slots laid out for j.k1 blocks (the most any leaf of the program uses).
    const int GC = j.k1;
    const size_t gen_bytes = (size_t)(GC + 1) * PW * sizeof(T) + (size_t)GC * 16;
    const int kmax = (int)min((i64)cols, rows);
    for (int jj = 0; jj < kmax; ++jj) {
        // 1. this block's best row at or below the diagonal
        double best = -1.0;
        i64 bi = -1;
        if (j.pivot) {
            for (i64 r = max((i64)jj - r0, (i64)0) + threadIdx.x; r < nr; r += blockDim.x) {
                double v = (double)mag(P[r + jj * ldp]);
                if (v > best) { best = v; bi = r0 + r; }
            }
            block_best(best, bi);
        }
        // 2. the winner, its row and the diagonal row
        if (G == 1) {
            if (threadIdx.x == 0) s_win = (j.pivot && bi >= 0) ? bi : jj;
            __syncthreads();
            const i64 w = s_win;
            if (threadIdx.x < cols) {
                prow[threadIdx.x] = P[(w - r0) + threadIdx.x * ldp];
                drow[threadIdx.x] = P[(jj - r0) + threadIdx.x * ldp];
            }
        } else {
            unsigned char* base = (unsigned char*)j.slots + (jj & 1) * gen_bytes;
            T* crow = (T*)base;
            T* dslot = crow + (size_t)GC * PW;
            // Each block's record: (magnitude, row, tag) in one 16-byte store after its rows,
            // polled by every block; the tag (leaf, column) is unique within the program, and
            // the records are zeroed at its start.
            int4* rec = (int4*)(base + (size_t)(GC + 1) * PW * sizeof(T));
            const int tag = ((j.aux + 1) << 8) | (jj + 1);
            if (bi >= 0 && threadIdx.x < cols) crow[b * PW + threadIdx.x] = P[(bi - r0) + threadIdx.x * ldp];
            if (jj >= r0 && jj < r1 && threadIdx.x < cols) dslot[threadIdx.x] = P[(jj - r0) + threadIdx.x * ldp];
            __syncthreads();
            if (threadIdx.x == 0) {
                __threadfence();
                const long long mb = __double_as_longlong(best);
                st_rec(rec + b, make_int4((int)(mb & 0xffffffffll), (int)(mb >> 32), (int)bi, tag));
            }
            double v = -1.0;
            i64 i = -1;
            for (int t = threadIdx.x; t < G; t += blockDim.x) {
                int4 r;
                // A short sleep between polls: fewer loads on the records' lines while the
                // other blocks write them (H100, 8192-row panel: 393 -> 377 us).
                for (;;) {
                    r = ld_rec(rec + t);
                    if (r.w == tag) break;
                    __nanosleep(128);
                }
                const double v2 = __longlong_as_double((long long)(unsigned)r.x | ((long long)r.y << 32));
                const i64 i2 = r.z;
                if (beats(v2, i2, v, i)) { v = v2; i = i2; }
            }
            __threadfence();
            // The winning block: the one whose row is the winner (rows are disjoint).
            block_best(v, i);
            __syncthreads();
            if (threadIdx.x == 0) s_win = i;
            __syncthreads();
            const i64 w = s_win;
            if (threadIdx.x < cols) {
                T dv = __ldcg(dslot + threadIdx.x);
                drow[threadIdx.x] = dv;
                if (w >= 0) {
                    const int owner = (int)(w / rpb);
                    prow[threadIdx.x] = __ldcg(crow + owner * PW + threadIdx.x);
                } else {
                    prow[threadIdx.x] = dv;
                }
            }
            if (w < 0 && threadIdx.x == 0) s_win = jj;
        }
        __syncthreads();
        const i64 w = s_win;
        const T pv = prow[jj];
        if (b == 0 && threadIdx.x == 0) {
            if (j.pivot) piv[j.k0 + jj] = (int)(j.k0 + w + 1);
            if (is0(pv) && *info == 0) *info = j.k0 + jj + 1;
        }
        if (!is0(pv)) {
            // 3. the interchange, in the rows this block holds
            if (w != jj && threadIdx.x < cols) {
                if (jj >= r0 && jj < r1) P[(jj - r0) + threadIdx.x * ldp] = prow[threadIdx.x];
                if (w >= r0 && w < r1) P[(w - r0) + threadIdx.x * ldp] = drow[threadIdx.x];
            }
            __syncthreads();
            // 4. scale the column below the diagonal and update the rest of the panel
            const Divisor<T> dpv = Divisor<T>::of(pv);
            for (i64 r = max((i64)jj + 1 - r0, (i64)0) + threadIdx.x; r < nr; r += blockDim.x) {
                T l = dpv.apply(P[r + jj * ldp]);
                P[r + jj * ldp] = l;
                for (int c = jj + 1; c < cols; ++c) P[r + c * ldp] = fms(P[r + c * ldp], l, prow[c]);
            }
        }
        __syncthreads();
    }
    if (j.smem_rows) {
        for (i64 t = threadIdx.x; t < nr * cols; t += blockDim.x) {
            i64 r = t % nr, c = t / nr;
            A[r0 + r + c * j.ld] = P[r + c * ldp];
        }
    }
}

// (magnitude, label) pairs of the register panel, branch-free: the larger magnitude, then the
// smaller label; "none" is (-1, INT_MAX), so any candidate (magnitude >= 0) beats it.
__device__ __forceinline__ void take_best(double& v, int& i, double v2, int i2) {
    const bool b = v2 > v || (v2 == v && i2 < i);
    v = b ? v2 : v;
    i = b ? i2 : i;
}

// The warp's best (magnitude, label) pair, in every lane: on sm_80 and later three redux.sync
// on the magnitude's IEEE bits (a candidate's bits + 1, so that "none" is 0: bits of numbers
// >= 0 order as the numbers), then the smallest label among the largest; else a butterfly.
__device__ __forceinline__ void warp_best(double& v, int& i) {
#if __CUDA_ARCH__ >= 800
    const bool elig = v >= 0.0;
    const u64 k = elig ? (u64)__double_as_longlong(v) + 1ull : 0ull;
    const unsigned hi = (unsigned)(k >> 32), lo = (unsigned)k;
    const unsigned mh = __reduce_max_sync(0xffffffffu, hi);
    const bool c = elig && hi == mh;
    const unsigned ml = __reduce_max_sync(0xffffffffu, c ? lo : 0u);
    const unsigned best = __reduce_min_sync(0xffffffffu, (c && lo == ml) ? (unsigned)i : 0xffffffffu);
    const u64 kb = ((u64)mh << 32) | ml;
    v = kb == 0 ? -1.0 : __longlong_as_double((long long)(kb - 1));
    i = kb == 0 ? 0x7fffffff : (int)best;
#else
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        take_best(v, i, __shfl_xor_sync(0xffffffffu, v, o), __shfl_xor_sync(0xffffffffu, i, o));
#endif
}

// The smallest of the warp's values, in every lane.
__device__ __forceinline__ unsigned warp_min(unsigned x) {
#if __CUDA_ARCH__ >= 800
    return __reduce_min_sync(0xffffffffu, x);
#else
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) x = min(x, __shfl_xor_sync(0xffffffffu, x, o));
    return x;
#endif
}

// The multipliers x / pv as LAPACK's getf2 forms them, by the reciprocal: r = 1 / (pv s) once
// per column, then (x s) r per row, s = 2^54 (2^24 for float) for a subnormal pivot so that
// its reciprocal stays finite (|x| <= |pv| under pivoting) and 1 otherwise. Complex values
// divide (`Divisor`: scaled, without overflow).
template <class R> struct PivotRange;
template <> struct PivotRange<float> {
    static __device__ __forceinline__ float min_normal() { return 0x1p-126f; }
    static __device__ __forceinline__ float scale() { return 0x1p24f; }
};
template <> struct PivotRange<double> {
    static __device__ __forceinline__ double min_normal() { return 0x1p-1022; }
    static __device__ __forceinline__ double scale() { return 0x1p54; }
};
template <class T> struct Multiplier {
    T s, r;
    static __device__ __forceinline__ Multiplier of(T pv) {
        Multiplier m;
        m.s = fabs(pv) < PivotRange<T>::min_normal() ? PivotRange<T>::scale() : (T)1;
        m.r = (T)1 / (pv * m.s);
        return m;
    }
    __device__ __forceinline__ T apply(T x) const { return (x * s) * r; }
};
template <class C> struct ComplexMultiplier {
    Divisor<C> d;
    static __device__ __forceinline__ ComplexMultiplier of(C pv) { ComplexMultiplier m; m.d = Divisor<C>::of(pv); return m; }
    __device__ __forceinline__ C apply(C x) const { return d.apply(x); }
};
template <> struct Multiplier<float2> : ComplexMultiplier<float2> {};
template <> struct Multiplier<double2> : ComplexMultiplier<double2> {};

// LU with partial pivoting of one panel of at most 8·H columns whose rows are split over the
// grid's blocks (cooperative: all resident) and held in registers: thread (row lane rl, column
// lane h) of 256 keeps RR rows (local rows rr·RL + rl) × 8 columns (h + H·q). Rows never move:
// each slot carries the label of the row it holds now, an interchange swaps two labels, and
// every row is stored once at the end under its label (the loads precede the first exchange,
// which every block passes only after all have loaded). Per column: the owners of column jj
// offer their best eligible slot (label >= jj; the largest |re| + |im|, then the smallest
// label; a NaN never), one barrier for the block's best; with several blocks, each publishes
// its best (magnitude, label) and that row in tagged 16-byte chunks (`RegsExchange`), and warp
// 0 alone polls the records, picks the winner and copies its row into shared memory while the
// other warps wait at a second barrier (every warp polling ran the same instructions eight
// times over on the column's chain: 17-31 % slower in regsbench). No fences: each datum
// carries its own tag (the old diagonal row keeps its place under the winner's label, so
// nothing else travels). Then the live slots (label > jj) are scaled and updated in registers.
// The exchange of `lu_regs` (after `lu`'s two generations in the slots): per generation a
// record per block, then per block PW columns of `words` 16-byte chunks (8 bytes of the value
// and the tag each); the program's start zeroes it all, and the tags (leaf, column) are unique
// within a program, so a stale record or chunk never matches.
template <class T> struct RegsExchange {
    static constexpr int words = (int)((sizeof(T) + 7) / 8);
    int4* rec;
    int4* chunk;
    __device__ RegsExchange(const Sol& j, int jj) {
        const int GC = j.k1;
        const size_t lu_gen = (size_t)(GC + 1) * PW * sizeof(T) + (size_t)GC * 16;
        const size_t gen = (size_t)GC * 16 * (1 + PW * words);
        unsigned char* base = (unsigned char*)j.slots + 2 * lu_gen + (jj & 1) * gen;
        rec = (int4*)base;
        chunk = rec + GC;
    }
    __device__ void put(int b, int c, T v, int tag) const {
        union { T v; unsigned long long u[words]; } x;
        x.u[words - 1] = 0;
        x.v = v;
#pragma unroll
        for (int w = 0; w < words; ++w)
            st_rec(chunk + ((size_t)b * PW + c) * words + w,
                   make_int4((int)(x.u[w] & 0xffffffffull), (int)(x.u[w] >> 32), 0, tag));
    }
};

// The most blocks `lu_regs` polls (two records per lane).
#define REGS_GRID 64

// The bits of a value folded into 32 (only to make an instruction wait for it).
template <class T>
__device__ __forceinline__ unsigned fold_bits(const T& x) {
    static_assert(sizeof(T) % 4 == 0, "whole words");
    unsigned w[sizeof(T) / 4], r = 0;
    memcpy(w, &x, sizeof(T));
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) / 4); ++i) r ^= w[i];
    return r;
}

// A block barrier past which no load of `v` (the entries where `loaded`) is still in flight:
// its predicate reads every loaded value, so a thread's later stores cannot overtake another
// thread's loads of the same place.
template <class T, int K>
__device__ __forceinline__ void barrier_after_loads(const T (&v)[K], const bool (&loaded)[K]) {
    unsigned bits = 0;
#pragma unroll
    for (int q = 0; q < K; ++q)
        if (loaded[q]) bits ^= fold_bits(v[q]);
    __syncthreads_or(bits == 0x9e3779b9u);
}

// After a register panel: its interchanges on the other columns of its block (j.uld columns
// left of the leaf at A, j.ues right of it), as the recursion's interchange steps would apply
// them. Every block knows every winner (`s_w`), so each works out the same list of moved rows
// (the position each touched row ends at) and takes every G-th move; per round it reads some of
// their entries into registers, waits until every block has read its own (exchange records as
// the barrier: a write may land on a row another block reads), then writes them to their new
// rows.
template <class T>
__device__ void lu_regs_others(const Sol& j, T* A, const int* s_w, int kmax, int b, int G) {
    constexpr int NT = 256;
    __shared__ int s_src[2 * PW], s_dst[2 * PW], s_count[NT / 32];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    // 1. Thread t < kmax follows the row at position t, thread kmax + s the row at the s-th
    // winner (unless it is one of the first kmax); the walk is the interchanges in order. A row
    // that wins twice is followed twice: its two moves are the same, and harmless.
    int src = -1;
    if (tid < kmax) {
        src = tid;
    } else if (tid < 2 * kmax) {
        const int p = s_w[tid - kmax];
        if (p >= kmax) src = p;
    }
    int dst = src;
    if (src >= 0)
        for (int s = 0; s < kmax; ++s) {
            const int w = s_w[s];
            dst = dst == s ? w : (dst == w ? s : dst);
        }
    const bool moved = src >= 0 && dst != src;
    const unsigned m = __ballot_sync(0xffffffffu, moved);
    if (lane == 0) s_count[warp] = __popc(m);
    __syncthreads();
    int before = 0, total = 0;
#pragma unroll
    for (int w = 0; w < NT / 32; ++w) {
        before += w < warp ? s_count[w] : 0;
        total += s_count[w];
    }
    if (moved) {
        const int i = before + __popc(m & ((1u << lane) - 1));
        s_src[i] = src;
        s_dst[i] = dst;
    }
    __syncthreads();
    // 2. Moves b, b + G, ...: their entries in rounds of whole columns (a round's writes may
    // land on rows a later round reads, but only in its own columns), at most K a thread, all
    // loads of a round issued before any is used (one round trip, not K); the same rounds in
    // every block (sized for the block with the most moves).
    constexpr int K = 8;
    const int mine = total > b ? (total - b + G - 1) / G : 0, most = (total + G - 1) / G;
    const int left = (int)j.uld, others = (int)(j.uld + j.ues);
    const int per = max(NT * K / max(most, 1), 1);
    const int rounds = most > 0 ? (others + per - 1) / per : 0;
    for (int k = 0; k < rounds; ++k) {
        T v[K];
        i64 at[K];  // where v[q] goes (left columns lie before A)
        bool ok[K];
#pragma unroll
        for (int q = 0; q < K; ++q) {
            const int e = q * NT + tid, u = mine > 0 ? e % mine : 0;
            const int x = k * per + (mine > 0 ? e / mine : 0);
            const i64 col = x < left ? (i64)(x - left) : j.cols + (x - left);
            ok[q] = mine > 0 && e < mine * per && x < others;
            at[q] = ok[q] ? (i64)s_dst[b + G * u] + col * j.ld : 0;
            if (ok[q]) v[q] = A[(i64)s_src[b + G * u] + col * j.ld];
        }
        barrier_after_loads(v, ok);
        if (G > 1) {
            // Every block's loads of this round before any block's stores (the barrier's
            // tags continue the columns'; their low byte wraps: a record's slot holds its own
            // round's or the round two before).
            const int round = kmax + k;
            const RegsExchange<T> x(j, round);
            const int tag = ((j.aux + 1) << 8) | ((round + 1) & 0xff);
            if (tid == 0) st_rec(x.rec + b, make_int4(0, 0, -1, tag));
            if (warp == 0) {
                for (;;) {
                    bool ready = true;
#pragma unroll
                    for (int q = 0; q < REGS_GRID / 32; ++q) {
                        const int t = lane + 32 * q;
                        if (t < G) ready = ready && ld_rec(x.rec + t).w == tag;
                    }
                    if (__all_sync(0xffffffffu, ready)) break;
                }
            }
            __syncthreads();
        }
#pragma unroll
        for (int q = 0; q < K; ++q)
            if (ok[q]) A[at[q]] = v[q];
    }
}

template <class T, int H, int RR>
__device__ __forceinline__ void lu_regs(const Sol& j) {
    constexpr int NT = 256, Q = 8, RL = NT / H, W = H * Q;
    static_assert(W <= PW && W <= 64, "a panel is at most PW columns, two a lane of warp 0");
    pdl_enter();
    // Two generations: with several blocks no barrier follows the reads of a column's.
    __shared__ double s_v[2][NT / 32];
    __shared__ int s_i[2][NT / 32];
    __shared__ T s_prow[2][W];
    __shared__ int s_w[W];  // each column's winner (for `lu_regs_others`)
    __shared__ int s_win[2];  // with several blocks: the column's winner, from warp 0
    const int G = j.grid;
    const int e = blockIdx.x / G, b = blockIdx.x % G;
    if (e >= j.ne) return;
    T* A = (T*)j.a + e * j.es;
    int* piv = (int*)j.piv + e * j.piv_s;
    int* info = (int*)j.info + e * j.info_s;
    const int rows = (int)j.rows, cols = (int)j.cols;
    const int rpb = (rows + G - 1) / G;
    const int r0 = b * rpb, nr = max(min(rows - r0, rpb), 0);
    const int tid = threadIdx.x, h = tid % H, rl = tid / H, lane = tid & 31, warp = tid >> 5;
    T a[RR][Q];
    int lab[RR];  // the row a slot holds now; -1: no row
#pragma unroll
    for (int rr = 0; rr < RR; ++rr) {
        const int lr = rr * RL + rl;
        lab[rr] = lr < nr ? r0 + lr : -1;
#pragma unroll
        for (int q = 0; q < Q; ++q) {
            const int c = h + H * q;
            a[rr][q] = (lr < nr && c < cols) ? A[(i64)(r0 + lr) + (i64)c * j.ld] : zero_of<T>();
        }
    }
    const int kmax = min(rows, cols);
    int first_zero = 0;
#pragma unroll
    for (int qj = 0; qj < Q; ++qj) {
#pragma unroll 1
        for (int hj = 0; hj < H; ++hj) {
            const int jj = qj * H + hj;
            if (jj >= kmax) break;
            // 1. the block's best eligible slot (without pivoting: the slot of row jj)
            double v = -1.0;
            int i = 0x7fffffff;
#pragma unroll
            for (int rr = 0; rr < RR; ++rr) {
                const double m = j.pivot ? (double)mag(a[rr][qj]) : (lab[rr] == jj ? 1.0 : -1.0);
                // NaN fails m >= 0: never chosen.
                const bool elig = h == hj && lab[rr] >= jj && m >= 0.0;
                take_best(v, i, elig ? m : -1.0, elig ? lab[rr] : 0x7fffffff);
            }
            warp_best(v, i);
            double* sv = s_v[jj & 1];
            int* si = s_i[jj & 1];
            if (lane == 0) { sv[warp] = v; si[warp] = i; }
            __syncthreads();
            v = lane < NT / 32 ? sv[lane] : -1.0;
            i = lane < NT / 32 ? si[lane] : 0x7fffffff;
            warp_best(v, i);
            if (v < 0.0) i = -1;  // no candidate in this block
            // 2. the winner over all blocks and this thread's entries of its row
            T pr[Q];
            T pv;
            int w;
            if (G == 1) {
                T* buf = s_prow[jj & 1];
#pragma unroll
                for (int rr = 0; rr < RR; ++rr)
                    if (i >= 0 && lab[rr] == i) {
#pragma unroll
                        for (int q = 0; q < Q; ++q) buf[h + H * q] = a[rr][q];
                    }
                __syncthreads();
                w = i;
                if (w >= 0) {
#pragma unroll
                    for (int q = 0; q < Q; ++q) pr[q] = buf[h + H * q];
                    pv = buf[jj];
                }
            } else {
                const RegsExchange<T> x(j, jj);
                const int tag = ((j.aux + 1) << 8) | (jj + 1);
#pragma unroll
                for (int rr = 0; rr < RR; ++rr)
                    if (i >= 0 && lab[rr] == i) {
#pragma unroll
                        for (int q = 0; q < Q; ++q)
                            if (h + H * q < cols) x.put(b, h + H * q, a[rr][q], tag);
                    }
                if (tid == 0) {
                    const long long mb = __double_as_longlong(v);
                    st_rec(x.rec + b, make_int4((int)(mb & 0xffffffffll), (int)(mb >> 32), i, tag));
                }
                // Warp 0 alone reads every record (loads of both at once, then again for those
                // not there yet), picks the winner and copies its row into shared memory; the
                // other warps wait at the barrier, spending no issue slots.
                T* buf = s_prow[jj & 1];
                if (warp == 0) {
                    constexpr int K = REGS_GRID / 32;
                    int4 r[K];
#pragma unroll
                    for (int k = 0; k < K; ++k) r[k].w = 0;
                    for (;;) {
                        bool ready = true;
#pragma unroll
                        for (int k = 0; k < K; ++k) {
                            const int t = lane + 32 * k;
                            if (t < G && r[k].w != tag) r[k] = ld_rec(x.rec + t);
                        }
#pragma unroll
                        for (int k = 0; k < K; ++k)
                            if (lane + 32 * k < G && r[k].w != tag) ready = false;
                        // No sleep: a record comes within a round trip or two of the last block.
                        if (__all_sync(0xffffffffu, ready)) break;
                    }
                    double bv = -1.0;
                    int bl = 0x7fffffff, bb = 0x7fffffff;
#pragma unroll
                    for (int k = 0; k < K; ++k) {
                        const int t = lane + 32 * k;
                        const double v2 = __longlong_as_double((long long)(unsigned)r[k].x | ((long long)r[k].y << 32));
                        const bool take = t < G && r[k].z >= 0 && (v2 > bv || (v2 == bv && r[k].z < bl));
                        bv = take ? v2 : bv;
                        bl = take ? r[k].z : bl;
                        bb = take ? t : bb;
                    }
                    const int mine = bl;
                    warp_best(bv, bl);
                    // The winner's block: the record that offered its label (labels are unique).
                    bb = (int)warp_min(mine == bl ? (unsigned)bb : 0xffffffffu);
                    if (bv < 0.0) bl = -1;
                    if (lane == 0) s_win[jj & 1] = bl;
                    if (bl >= 0) {
                        // The row's W <= 64 entries, two a lane, every load issued first.
                        constexpr int WD = RegsExchange<T>::words;
                        int4 c[2][WD];
#pragma unroll
                        for (int k = 0; k < 2; ++k)
#pragma unroll
                            for (int wd = 0; wd < WD; ++wd) {
                                const int cc = lane + 32 * k;
                                c[k][wd] = cc < cols ? ld_rec(x.chunk + ((size_t)bb * PW + cc) * WD + wd) : make_int4(0, 0, 0, tag);
                            }
#pragma unroll
                        for (int k = 0; k < 2; ++k) {
                            const int cc = lane + 32 * k;
#pragma unroll
                            for (int wd = 0; wd < WD; ++wd)
                                // Rare: a chunk not there yet; read it again until it is.
                                while (c[k][wd].w != tag) {
                                    __nanosleep(32);
                                    c[k][wd] = ld_rec(x.chunk + ((size_t)bb * PW + cc) * WD + wd);
                                }
                            union { T v; unsigned long long u[WD]; } y;
#pragma unroll
                            for (int wd = 0; wd < WD; ++wd)
                                y.u[wd] = (unsigned long long)(unsigned)c[k][wd].x | ((unsigned long long)(unsigned)c[k][wd].y << 32);
                            if (cc < cols) buf[cc] = y.v;
                        }
                    }
                }
                __syncthreads();
                w = s_win[jj & 1];
                if (w >= 0) {
#pragma unroll
                    for (int q = 0; q < Q; ++q) pr[q] = buf[h + H * q];
                    pv = buf[jj];
                }
            }
            if (w < 0) {
                // Every candidate is NaN: as LAPACK, the diagonal row stays and the rest of the
                // live rows become NaN (x / NaN, then a - NaN · u).
                w = jj;
                pv = real_of<T>(__longlong_as_double(0x7ff8000000000000ll));
#pragma unroll
                for (int q = 0; q < Q; ++q) pr[q] = pv;
            }
            if (tid == 0) s_w[jj] = w;
            if (b == 0 && tid == 0 && j.pivot) piv[j.k0 + jj] = j.k0 + w + 1;
            if (is0(pv)) {
                // A zero column: no interchange (the winner is row jj), no update.
                if (first_zero == 0) first_zero = jj + 1;
                continue;
            }
            // 3. the interchange (labels), the multipliers and the update of the live slots
#pragma unroll
            for (int rr = 0; rr < RR; ++rr) {
                if (lab[rr] == w) lab[rr] = jj;
                else if (lab[rr] == jj) lab[rr] = w;
            }
            const auto mp = Multiplier<T>::of(pv);
            const int src_lane = (lane & ~(H - 1)) | hj;
#pragma unroll
            for (int rr = 0; rr < RR; ++rr) {
                const T x = shf(a[rr][qj], src_lane);
                if (lab[rr] > jj) {
                    const T l = mp.apply(x);
                    if (h == hj) a[rr][qj] = l;
#pragma unroll
                    for (int q = qj; q < Q; ++q)
                        if (q > qj || h > hj) a[rr][q] = fms(a[rr][q], l, pr[q]);
                }
            }
        }
    }
    if (b == 0 && tid == 0 && first_zero && *info == 0) *info = j.k0 + first_zero;
#pragma unroll
    for (int rr = 0; rr < RR; ++rr) {
        if (lab[rr] < 0) continue;
#pragma unroll
        for (int q = 0; q < Q; ++q) {
            const int c = h + H * q;
            if (c < cols) A[(i64)lab[rr] + (i64)c * j.ld] = a[rr][q];
        }
    }
    if (j.pivot && j.uld + j.ues > 0) {
        __syncthreads();
        lu_regs_others<T>(j, A, s_w, kmax, b, G);
    }
}

template <class T>
__device__ void swap_rows(const Sol& j) {
    pdl_enter();
    const i64 ncb = (j.cols + blockDim.x - 1) / blockDim.x;
    const i64 e = blockIdx.x / ncb, c = (blockIdx.x % ncb) * blockDim.x + threadIdx.x;
    if (e >= j.ne || c >= j.cols) return;
    T* col = (T*)j.a + e * j.es + c * j.ld;
    const int* piv = (const int*)j.piv + e * j.piv_s;
    const i64 n = j.k1 - j.k0;
    for (i64 t = 0; t < n; ++t) {
        const i64 k = j.reverse ? j.k1 - 1 - t : j.k0 + t;
        const i64 p = (i64)piv[k] - 1;
        // A pivot outside the matrix is ignored: nothing outside it is ever touched.
        if (p < 0 || p >= j.rows || k >= j.rows || p == k) continue;
        T x = col[k];
        col[k] = col[p];
        col[p] = x;
    }
}

// LU of panels of at most 32 × 32, one warp each (a row per lane, in registers): the batched
// case, where a block per matrix spends most of its time in barriers.
template <class T>
__device__ void lu_warp(const Sol& j) {
    pdl_enter();
    const int lane = threadIdx.x & 31;
    const i64 e = (i64)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (e >= j.ne) return;
    T* A = (T*)j.a + e * j.es;
    int* piv = (int*)j.piv + e * j.piv_s;
    int* info = (int*)j.info + e * j.info_s;
    const int rows = (int)j.rows, cols = (int)j.cols;
    const int kmax = min(rows, cols);
    T a[LEAF];
#pragma unroll
    for (int c = 0; c < LEAF; ++c)
        a[c] = (c < cols && lane < rows) ? A[lane + c * j.ld] : zero_of<T>();
    // Rows are not moved between lanes: each lane tracks which row it holds now (`row`),
    // and interchanges only swap those labels; every row is stored once at the end.
    int row = lane;
    int first_zero = 0;
#pragma unroll
    for (int jj = 0; jj < LEAF; ++jj) {
        if (jj < kmax) {
            // The pivot: the largest |re| + |im| at or below the diagonal, the first of equals
            // (a NaN is never chosen; with nothing else, the diagonal row is).
            const bool elig = row >= jj && lane < rows;
            double v = elig ? (double)mag(a[jj]) : -1.0;
            if (v != v) v = -1.0;
            int i = elig ? row : 64;
            if (!j.pivot) { v = row == jj ? 1.0 : -1.0; i = row == jj ? jj : 64; }
#pragma unroll
            for (int o = 16; o > 0; o >>= 1) {
                const double v2 = __shfl_xor_sync(0xffffffffu, v, o);
                const int i2 = __shfl_xor_sync(0xffffffffu, i, o);
                if (v2 > v || (v2 == v && i2 < i)) { v = v2; i = i2; }
            }
            const int w = i;  // the row chosen
            if (lane == 0 && j.pivot) piv[j.k0 + jj] = j.k0 + w + 1;
            const int wl = __ffs(__ballot_sync(0xffffffffu, row == w && lane < rows)) - 1;
            const T pvt = shf(a[jj], wl);
            if (is0(pvt)) {
                if (first_zero == 0) first_zero = jj + 1;
            } else {
                // The interchange of rows jj and w (as LAPACK, none at a zero pivot): labels.
                if (row == jj) row = w;
                else if (lane == wl) row = jj;
                const bool below = row > jj && lane < rows;
                if (below) a[jj] = quotient(a[jj], pvt);
#pragma unroll
                for (int c = jj + 1; c < LEAF; ++c) {
                    const T u = shf(a[c], wl);
                    if (below && c < cols) a[c] = fms(a[c], a[jj], u);
                }
            }
        }
    }
    if (lane == 0 && first_zero && *info == 0) *info = j.k0 + first_zero;
#pragma unroll
    for (int c = 0; c < LEAF; ++c)
        if (c < cols && lane < rows) A[row + c * j.ld] = a[c];
}

// The one-warp LU on sm_80 and later (lu_warp2, written for gpublas by a helper session and
// checked against lu_warp bit for bit: factors, pivots and info over 4 types × 9 shapes × both
// pivot modes × 7 fills; only NaN payloads differ where NaN and Inf meet). What differs from
// lu_warp: the pivot search is three redux.sync on the magnitude's IEEE bits (a NaN 0, a
// number its bits + 1; the last reduction also names the winner's lane) instead of a 5-round
// shuffle butterfly; the pivot row reaches the lanes through a per-warp shared buffer (16-byte
// stores by the winner, one __syncwarp, broadcast 16-byte loads; two generations) instead of
// two shuffles per double; columns past `cols` are never read into others or stored, so the
// update tests nothing; complex double goes in blocks of 8 columns with the registers rotated
// after each block (less code; double: B = 32, fully unrolled, was fastest). H100, 10000 × 32²:
// float 91.5 -> 65.8 us, double 229.1 -> 102.2, float2 273.8 -> 139.2, double2 787 -> 302.
// Columns per copy of the code (H100, 10000 x 32^2: double B = 32 101 us, 16 126, 8 133,
// 4 165 (the rotating loop spills at 96 registers); double2 B = 8 301 us, 32 425).

template <class T> struct luw2_e { static constexpr int n = 16 / sizeof(T); };

// 16-byte chunks: v[0 .. n) <-> p[0 .. n).
__device__ __forceinline__ void luw2_st(float* p, const float* v) { *(float4*)p = make_float4(v[0], v[1], v[2], v[3]); }
__device__ __forceinline__ void luw2_st(double* p, const double* v) { *(double2*)p = make_double2(v[0], v[1]); }
__device__ __forceinline__ void luw2_st(float2* p, const float2* v) { *(float4*)p = make_float4(v[0].x, v[0].y, v[1].x, v[1].y); }
__device__ __forceinline__ void luw2_st(double2* p, const double2* v) { *p = v[0]; }
__device__ __forceinline__ void luw2_ld(const float* p, float* v) { float4 x = *(const float4*)p; v[0] = x.x; v[1] = x.y; v[2] = x.z; v[3] = x.w; }
__device__ __forceinline__ void luw2_ld(const double* p, double* v) { double2 x = *(const double2*)p; v[0] = x.x; v[1] = x.y; }
__device__ __forceinline__ void luw2_ld(const float2* p, float2* v) { float4 x = *(const float4*)p; v[0] = make_float2(x.x, x.y); v[1] = make_float2(x.z, x.w); }
__device__ __forceinline__ void luw2_ld(const double2* p, double2* v) { v[0] = *p; }

// The pivot: among eligible lanes the largest key (NaN 0, a number its bits + 1), then the
// smallest row label; returns (row << 5 | lane) of the winner. Some lane is eligible.
template <bool FAST = false>
__device__ __forceinline__ unsigned luw2_pick(float m, bool elig, unsigned tag) {
    const unsigned b = __float_as_uint(m);
    const unsigned k = elig ? (b > 0x7f800000u ? 0u : b + 1u) : 0u;
    const unsigned mk = __reduce_max_sync(0xffffffffu, k);
    return __reduce_min_sync(0xffffffffu, (elig && k == mk) ? tag : 0xffffffffu);
}
template <bool FAST = false>
__device__ __forceinline__ unsigned luw2_pick(double m, bool elig, unsigned tag) {
    const u64 b = (u64)__double_as_longlong(m);
    const u64 k = b > 0x7ff0000000000000ull ? 0ull : b + 1ull;
    const unsigned hi = elig ? (unsigned)(k >> 32) : 0u, lo = (unsigned)k;
    const unsigned mh = __reduce_max_sync(0xffffffffu, hi);
    const bool c = elig && hi == mh;
    if (FAST) {  // one lane with the largest high word: it wins
        const unsigned bl = __ballot_sync(0xffffffffu, c);
        if ((bl & (bl - 1)) == 0) return __reduce_min_sync(0xffffffffu, c ? tag : 0xffffffffu);
    }
    const unsigned ml = __reduce_max_sync(0xffffffffu, c ? lo : 0u);
    return __reduce_min_sync(0xffffffffu, (c && lo == ml) ? tag : 0xffffffffu);
}

// Positions [lo, hi) of a (compile-time after unrolling) to the buffer, whole chunks.
template <class T>
__device__ __forceinline__ void luw2_put(T* buf, const T* a, int lo, int hi) {
    constexpr int E = luw2_e<T>::n;
#pragma unroll
    for (int q = 0; q < LEAF / E; ++q)
        if ((q + 1) * E > lo && q * E < hi) luw2_st(buf + q * E, a + q * E);
}

// a[p] = fms(a[p], l, u[p]) for p in [lo, hi), u from the buffer.
template <class T>
__device__ __forceinline__ void luw2_upd(T* a, const T* buf, int lo, int hi, T l) {
    constexpr int E = luw2_e<T>::n;
#pragma unroll
    for (int q = 0; q < LEAF / E; ++q) {
        if ((q + 1) * E > lo && q * E < hi) {
            T u[E];
            luw2_ld(buf + q * E, u);
#pragma unroll
            for (int i = 0; i < E; ++i) {
                const int p = q * E + i;
                if (p >= lo && p < hi) a[p] = fms(a[p], l, u[i]);
            }
        }
    }
}

template <class T, int B, bool FAST = false>
__device__ void lu_warp2(const Sol& j) {
    static_assert(LEAF % B == 0 && B % 2 == 0, "B divides 32, even");
    constexpr int NB = LEAF / B;
    // Per warp (4 per block), two generations of the pivot row.
    __shared__ __align__(16) T sbuf[4][2][LEAF];
    pdl_enter();
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    const i64 e = (i64)blockIdx.x * (blockDim.x >> 5) + wid;
    if (e >= j.ne) return;
    T* A = (T*)j.a + e * j.es;
    int* piv = (int*)j.piv + e * j.piv_s;
    int* info = (int*)j.info + e * j.info_s;
    const int rows = (int)j.rows, cols = (int)j.cols;
    const int kmax = min(rows, cols);
    T a[LEAF];
#pragma unroll
    for (int c = 0; c < LEAF; ++c)
        a[c] = (c < cols && lane < rows) ? A[lane + c * j.ld] : zero_of<T>();
    int row = lane;
    int first_zero = 0;
    int jb = 0;  // the column at position 0
#pragma unroll 1
    for (int t = 0; t < NB; ++t) {
        if (jb >= kmax) break;
        const int live = NB - t;  // groups of B positions holding columns jb .. 31
#pragma unroll
        for (int k = 0; k < B; ++k) {
            const int jj = jb + k;
            if (jj < kmax) {
                T* buf = sbuf[wid][k & 1];
                const bool elig = row >= jj && lane < rows;
                const unsigned r = j.pivot ? luw2_pick<FAST>(mag(a[k]), elig, ((unsigned)row << 5) | lane)
                                           : (((unsigned)jj << 5) | (unsigned)jj);
                const int w = (int)(r >> 5), wl = (int)(r & 31);
                if (lane == 0 && j.pivot) piv[j.k0 + jj] = j.k0 + w + 1;
                if (lane == wl) {
                    luw2_put(buf, a, k, B);
#pragma unroll
                    for (int g = 1; g < NB; ++g)
                        if (g < live) luw2_put(buf, a, g * B, g * B + B);
                }
                __syncwarp();
                const T pvt = buf[k];
                if (is0(pvt)) {
                    if (first_zero == 0) first_zero = jj + 1;
                } else {
                    if (row == jj) row = w;
                    else if (lane == wl) row = jj;
                    if (row > jj) {
                        a[k] = quotient(a[k], pvt);
                        luw2_upd(a, buf, k + 1, B, a[k]);
#pragma unroll
                        for (int g = 1; g < NB; ++g)
                            if (g < live) luw2_upd(a, buf, g * B, g * B + B, a[k]);
                    }
                }
            }
        }
        if (NB > 1) {
            T r[LEAF];
#pragma unroll
            for (int p = 0; p < LEAF; ++p) r[p] = a[(p + B) % LEAF];
#pragma unroll
            for (int p = 0; p < LEAF; ++p) a[p] = r[p];
        }
        jb += B;
    }
    if (lane == 0 && first_zero && *info == 0) *info = j.k0 + first_zero;
    // Position p holds column (p + jb) mod 32.
#pragma unroll
    for (int p = 0; p < LEAF; ++p) {
        const int c = (p + jb) & (LEAF - 1);
        if (c < cols && lane < rows) A[row + c * j.ld] = a[p];
    }
}


// The batched one-warp LU's entry: lu_warp2 where redux.sync exists (sm_80+), else lu_warp.
template <class T>
__device__ void luw(const Sol& j) {
#if __CUDA_ARCH__ >= 800
    lu_warp2<T, sizeof(T) == 16 ? 8 : 32>(j);
#else
    lu_warp<T>(j);
#endif
}

// A chunk of interchanges as a gather list: slots = [n][dst rows][src rows], `aux` i32s per
// entry (1 + 4 * capacity); entry i moves row src[i] of the input to row dst[i] of the result
// (dst -1: none). Entry i < len follows the row at position k0 + i, entry len + s the row at
// the s-th pivot, through the interchanges in order: a thread per entry and `grid` blocks per
// batch entry, no walk by one thread. A row two entries follow gives them the same move.
__device__ void perm(const Sol& j) {
    pdl_enter();
    __shared__ int2 swaps[SWAPC];  // (k, p) in the order applied; (-2, -2): ignored
    const int e = blockIdx.x / j.grid, blk = blockIdx.x % j.grid;
    if (e >= j.ne) return;
    const int* piv = (const int*)j.piv + e * j.piv_s;
    int* list = (int*)j.slots + (i64)e * j.aux;
    const int cap = (j.aux - 1) / 2;
    const int k0 = j.k0, len = j.k1 - j.k0;
    const int rows = (int)j.rows;
    for (int t = threadIdx.x; t < len; t += blockDim.x) {
        const int s = j.reverse ? len - 1 - t : t, k = k0 + s, p = piv[k] - 1;
        // A pivot outside the matrix is ignored (never read out of bounds).
        swaps[t] = (p < 0 || p >= rows || k >= rows) ? make_int2(-2, -2) : make_int2(k, p);
    }
    __syncthreads();
    const int i = blk * blockDim.x + threadIdx.x;
    if (i >= 2 * len) return;
    int src = -1;
    if (i < len) {
        src = k0 + i < rows ? k0 + i : -1;
    } else {
        const int p = piv[k0 + i - len] - 1;
        src = p >= 0 && p < rows ? p : -1;
    }
    int dst = src;
    if (src >= 0) {
#pragma unroll 8
        for (int t = 0; t < len; ++t) {
            const int2 x = swaps[t];
            dst = dst == x.x ? x.y : (dst == x.y ? x.x : dst);
        }
    }
    list[1 + i] = dst != src ? dst : -1;
    list[1 + cap + i] = src;
    if (i == 0) list[0] = 2 * len;
}

// The gather list applied to one column per block: every entry's source read into registers
// (all loads at once, one round trip), a barrier, then every entry written.
template <class T>
__device__ void gather(const Sol& j) {
    pdl_enter();
    constexpr int K = 2 * SWAPC / MAXT;  // entries a thread (a list holds at most 2·SWAPC)
    const i64 e = blockIdx.x / j.cols, c = blockIdx.x % j.cols;
    if (e >= j.ne) return;
    const int* list = (const int*)j.slots + e * j.aux;
    const int cap = (j.aux - 1) / 2;
    const int n = list[0];
    T* col = (T*)j.a + e * j.es + c * j.ld;
    T v[K];
    int to[K];
    bool ok[K];
#pragma unroll
    for (int q = 0; q < K; ++q) {
        const int i = q * MAXT + threadIdx.x;
        to[q] = i < n ? list[1 + i] : -1;
        ok[q] = to[q] >= 0;
        if (ok[q]) v[q] = col[list[1 + cap + i]];
    }
    barrier_after_loads(v, ok);
#pragma unroll
    for (int q = 0; q < K; ++q)
        if (ok[q]) col[to[q]] = v[q];
}

// LU with partial pivoting of a whole matrix of at most N × N (N = 64 or 128: the batched
// small case), one block of H·N threads: thread (h, r) holds row slot r's columns h + Hq
// (q < N/H) in registers (slots q < SQ in shared memory), so a pivot row is H threads' values,
// read without selection.
// Interchanges move labels, not rows (as lu_warp): `lab` is the row each slot holds now, and
// every row is stored once at the end. Per column: its N/32 owner warps each offer their best
// row, one barrier, every thread picks the same winner; the winner's H threads publish its
// row and the owners their multipliers, one barrier; every live row is updated. The loop over
// column groups is unrolled, so column jj is a static register. The arithmetic per element is
// lu_warp's (a division, then c - l u per column), so the bits are the unblocked LU's.
template <class T, int N, int H, int SQ = 0>
__device__ void lur(const Sol& j) {
    pdl_enter();
    constexpr int Q = N / H, W = N / 32, RQ = Q - SQ;
    // Slots q < SQ (columns h + Hq) live in dynamic shared memory, the rest in registers: the
    // fewer registers let two blocks share an SM, one's column chain beside the other's. A
    // thread's slots 2i and 2i + 1 are adjacent (one 16-byte access for both; a warp's 32
    // threads, consecutive rows, read 512 contiguous bytes: H200, 1000 × 128² 872 -> 839 us
    // against one slot per column-major plane).
    extern __shared__ __align__(16) unsigned char lur_dyn[];
    T* const sa = reinterpret_cast<T*>(lur_dyn);
    __shared__ __align__(16) T prow[H][Q];  // the pivot row: prow[h][q] is column h + Hq
    __shared__ T lcol[N];
    __shared__ int lab[N], slot_of[N];
    // Each owner warp's candidate, by step parity (a step with a zero pivot has one barrier).
    __shared__ double c_v[2][W];
    __shared__ int c_key[2][W];
    __shared__ T c_x[2][W];
    __shared__ int s_first;
    const int e = blockIdx.x;
    if (e >= j.ne) return;
    T* A = (T*)j.a + e * j.es;
    int* piv = (int*)j.piv + e * j.piv_s;
    const int rows = (int)j.rows, cols = (int)j.cols, kmax = min(rows, cols);
    const int r = threadIdx.x % N, h = threadIdx.x / N, lane = threadIdx.x & 31, wq = r >> 5;
    T a[RQ > 0 ? RQ : 1];
    T* const srow = sa + (h * N + r) * 2;  // slot q at srow[LUR_OFF(q)]
#define LUR_OFF(q) (((q) / 2) * H * N * 2 + ((q) % 2))
#define LUR_GET(q) ((q) < SQ ? srow[LUR_OFF(q)] : a[(q) < SQ ? 0 : (q) - SQ])
#define LUR_SET(q, v)                                  \
    do {                                               \
        if ((q) < SQ) srow[LUR_OFF(q)] = (v);          \
        else a[(q) < SQ ? 0 : (q) - SQ] = (v);         \
    } while (0)
    // Columns past `cols` load as zeros and are updated like the rest but never stored.
#pragma unroll
    for (int q = 0; q < Q; ++q) {
        const int k = h + H * q;
        LUR_SET(q, (r < rows && k < cols) ? A[r + (i64)k * j.ld] : zero_of<T>());
    }
    bool live = r < rows;  // a candidate row: not a pivot row yet
    if (h == 0) {
        lab[r] = r;
        slot_of[r] = r;
    }
    if (threadIdx.x == 0) s_first = 0;
    __syncthreads();
#pragma unroll
    for (int qq = 0; qq < Q; ++qq) {
        if (H * qq >= kmax) break;
#pragma unroll 1
        for (int hh = 0; hh < H; ++hh) {
            const int jj = H * qq + hh, p = jj & 1;
            if (jj >= kmax) break;
            // 1. each owner warp's best row: the largest |re| + |im|, the first label of
            // equals; a NaN is never chosen over a number (with only NaNs, the diagonal row
            // is). Every warp runs the reductions: under a per-thread condition shuffles compile to
            // collective fallbacks (double: 513 -> 320 KB of code; on the H100 instruction-cache
            // misses were the first stall, and 1000 × 64² took 148 -> 128 us).
            {
                double v = -2.0;
                int key = 0x7fffffff;  // label * 256 + slot
                const T x = LUR_GET(qq);
                if (live && h == hh) {
                    const int l = lab[r];
                    double m = (double)mag(x);
                    if (m != m) m = -1.0;
                    if (!j.pivot) m = l == jj ? 1.0 : -1.0;
                    v = m;
                    key = l * 256 + r;
                }
#if __CUDA_ARCH__ >= 800
                // (magnitude, row) as an ordered 64-bit value: numbers (bits + 2) above a NaN (1)
                // above no candidate (0); three warp reductions instead of five shuffle rounds
                // (H100, bits unchanged: 1000 × 128² 1.21 -> 1.10 ms, 1000 × 64² 152 -> 128 us).
                const bool cand = live && h == hh;
                const unsigned long long mk =
                    !cand ? 0ull : v == -1.0 ? 1ull : (unsigned long long)__double_as_longlong(v) + 2ull;
                const unsigned hi = (unsigned)(mk >> 32), lo = (unsigned)mk;
                const unsigned m1 = __reduce_max_sync(0xffffffffu, hi);
                const unsigned m2 = __reduce_max_sync(0xffffffffu, hi == m1 ? lo : 0u);
                const bool match = cand && hi == m1 && lo == m2;
                key = (int)__reduce_min_sync(0xffffffffu, match ? (unsigned)key : 0x7fffffffu);
                const unsigned long long mm = ((unsigned long long)m1 << 32) | m2;
                v = mm == 0 ? -2.0 : mm == 1 ? -1.0 : __longlong_as_double((long long)(mm - 2));
#else  // no redux.sync before sm_80 (Turing)
#pragma unroll
                for (int o = 16; o > 0; o >>= 1) {
                    const double v2 = __shfl_xor_sync(0xffffffffu, v, o);
                    const int k2 = __shfl_xor_sync(0xffffffffu, key, o);
                    if (v2 > v || (v2 == v && k2 < key)) { v = v2; key = k2; }
                }
#endif
                const T xw = shf(x, key & 31);
                if (lane == 0 && h == hh) {
                    c_v[p][wq] = v;
                    c_key[p][wq] = key;
                    c_x[p][wq] = xw;
                }
            }
            __syncthreads();
            double v = c_v[p][0];
            int key = c_key[p][0];
            T pv = c_x[p][0];
#pragma unroll
            for (int t = 1; t < W; ++t) {
                const double v2 = c_v[p][t];
                const int k2 = c_key[p][t];
                if (v2 > v || (v2 == v && k2 < key)) { v = v2; key = k2; pv = c_x[p][t]; }
            }
            const int w = key & 255, wl = key >> 8;
            const bool zero = is0(pv);
            // The slot that holds row jj from now on (as LAPACK, no interchange at a zero pivot).
            const int ds = zero ? slot_of[jj] : w;
            if (threadIdx.x == 0) {
                if (j.pivot) piv[j.k0 + jj] = j.k0 + wl + 1;
                if (zero) {
                    if (s_first == 0) s_first = jj + 1;
                } else {
                    const int sd = slot_of[jj];
                    lab[sd] = wl;
                    slot_of[wl] = sd;
                    lab[w] = jj;
                    slot_of[jj] = w;
                }
            }
            if (r == ds) live = false;
            if (zero) continue;  // the same for every thread
            // 2. the pivot row (columns right of jj) and the multipliers
            if (r == ds) {
#pragma unroll
                for (int q = qq; q < Q; ++q) prow[h][q] = LUR_GET(q);
            }
            if (h == hh && live) lcol[r] = quotient(LUR_GET(qq), pv);
            __syncthreads();
            // 3. the update of the live rows
            if (live) {
                const T l = lcol[r];
                if (h == hh) LUR_SET(qq, l);
#pragma unroll
                for (int q = qq; q < Q; ++q)
                    if (q > qq || h > hh) LUR_SET(q, fms(LUR_GET(q), l, prow[h][q]));
            }
        }
    }
    __syncthreads();
    if (threadIdx.x == 0 && s_first) {
        int* info = (int*)j.info + e * j.info_s;
        if (*info == 0) *info = j.k0 + s_first;
    }
    if (r < rows) {
        const int l = lab[r];
#pragma unroll
        for (int q = 0; q < Q; ++q) {
            const int k = h + H * q;
            if (k < cols) A[l + (i64)k * j.ld] = LUR_GET(q);
        }
    }
#undef LUR_GET
#undef LUR_SET
#undef LUR_OFF
}

// getri: info = the first zero on the diagonal (1-based), one block per entry.
template <class T>
__device__ void diag_info(const Sol& j) {
    pdl_enter();
    const i64 e = blockIdx.x;
    if (e >= j.ne) return;
    const int n = (int)j.cols;
    const int first = first_zero_diagonal((const T*)j.a + e * j.es, j.ld, n);
    int* info = (int*)j.info + e * j.info_s;
    if (threadIdx.x == 0 && first < n && *info == 0) *info = first + 1;
}

// getri: the rows × cols block at a (its first row on the diagonal) hands L's part to w:
// w = the unit lower trapezoid (ones on the diagonal, zeros above); a's strict lower part = 0.
template <class T>
__device__ void take_lower(const Sol& j) {
    pdl_enter();
    const i64 per = (j.rows * j.cols + blockDim.x - 1) / blockDim.x;
    const i64 e = blockIdx.x / per;
    const i64 t = (blockIdx.x % per) * blockDim.x + threadIdx.x;
    if (e >= j.ne || t >= j.rows * j.cols) return;
    const i64 r = t % j.rows, k = t / j.rows;
    T* a = (T*)j.a + e * j.es + r + k * j.ld;
    T* w = (T*)j.w + e * j.wes + r + k * j.wld;
    if (r > k) {
        *w = *a;
        *a = zero_of<T>();
    } else {
        *w = r == k ? real_of<T>(1.0) : zero_of<T>();
    }
}

#define TRI_PLACE 128
// Column k's first stored element in the packed triangle (upper: rows 0 .. k; lower: k .. n-1).
template <bool LOWER> __device__ __forceinline__ int tri_col(int k, int n) {
    return LOWER ? k * n - k * (k - 1) / 2 - k : k * (k + 1) / 2;
}
// The rows 32 QK .. 32 QK + 31 of T x = e_c: x_k for each of them (in order: descending for
// upper, ascending for lower), each broadcast and taken out of the rows still to come.
template <class T, bool LOWER, int QK>
__device__ __forceinline__ void tri_inv_rows(T (&t)[4], const T* P, const T* ND, int c, int n, int lane) {
    if (LOWER ? 32 * QK + 31 < c : 32 * QK > c) return;
    for (int i = 0; i < 32; ++i) {
        const int kl = LOWER ? i : 31 - i, k = 32 * QK + kl;
        if (LOWER ? (k < c || k >= n) : k > c) continue;
        const T x = fms(zero_of<T>(), shf(t[QK], kl), ND[k]);
        if (lane == kl) t[QK] = x;
        const T* pk = P + tri_col<LOWER>(k, n);
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            if (LOWER ? q < QK : q > QK) continue;
            const int r = 32 * q + lane;
            if (LOWER ? (r > k && r < n) : r < k) t[q] = fms(t[q], pk[r], x);
        }
    }
}
template <class T, bool LOWER>
__device__ void tri_inv_place_as(const Sol& j) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const int n = (int)j.cols, count = j.k0;
    const i64 e = blockIdx.x / count, b = blockIdx.x % count;
    if (e >= j.ne) return;
    T* A = (T*)j.a + e * j.es + b * j.rows;
    T* P = (T*)smem_raw;
    T* ND = P + n * (n + 1) / 2;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    const bool unit = j.pivot != 0;
    // Two columns a warp at once, eight loads in flight a thread before the stores.
    for (int k0 = warp; k0 < n; k0 += 2 * nw) {
        T v[2][4];
#pragma unroll
        for (int u = 0; u < 2; ++u)
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int k = k0 + nw * u, r = lane + 32 * i;
                const bool in = k < n && r < n && (LOWER ? r >= k : r <= k);
                v[u][i] = !in ? zero_of<T>() : (unit && r == k) ? real_of<T>(1.0) : A[r + (i64)k * j.ld];
            }
#pragma unroll
        for (int u = 0; u < 2; ++u)
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int k = k0 + nw * u, r = lane + 32 * i;
                if (k < n && r < n && (LOWER ? r >= k : r <= k)) P[tri_col<LOWER>(k, n) + r] = v[u][i];
            }
    }
    __syncthreads();
    for (int k = threadIdx.x; k < n; k += blockDim.x) {
        const T d = P[tri_col<LOWER>(k, n) + k];
        ND[k] = fms(zero_of<T>(), real_of<T>(1.0), quotient(real_of<T>(1.0), d));
    }
    __syncthreads();
    for (int c = warp; c < n; c += nw) {
        T t[4];
#pragma unroll
        for (int q = 0; q < 4; ++q) t[q] = (32 * q + lane == c) ? real_of<T>(1.0) : zero_of<T>();
        if (LOWER) {
            tri_inv_rows<T, true, 0>(t, P, ND, c, n, lane);
            tri_inv_rows<T, true, 1>(t, P, ND, c, n, lane);
            tri_inv_rows<T, true, 2>(t, P, ND, c, n, lane);
            tri_inv_rows<T, true, 3>(t, P, ND, c, n, lane);
        } else {
            tri_inv_rows<T, false, 3>(t, P, ND, c, n, lane);
            tri_inv_rows<T, false, 2>(t, P, ND, c, n, lane);
            tri_inv_rows<T, false, 1>(t, P, ND, c, n, lane);
            tri_inv_rows<T, false, 0>(t, P, ND, c, n, lane);
        }
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const int r = 32 * q + lane;
            if (LOWER ? (r >= c + unit && r < n) : r + unit <= c) A[r + (i64)c * j.ld] = t[q];
        }
    }
}
// getri, potri: the `lower`/upper triangles of count (k0) diagonal blocks of order n (cols, at
// most TRI_PLACE; rows: elements between the blocks) inverted in place, the other triangle not
// touched, nor the diagonal when unit (pivot; taken as ones): the triangle packed in shared memory with the negated reciprocals of
// its diagonal, then a warp per column solves T x = e_c by columns (the column's rows in
// registers, four a lane; each x_k broadcast by a shuffle) and writes x over the column.
template <class T>
__device__ void tri_inv_place(const Sol& j) {
    pdl_enter();
    if (j.lower) tri_inv_place_as<T, true>(j);
    else tri_inv_place_as<T, false>(j);
}

// getri, potri: X := T X (left; X is n x other) or X T (right; other x n) in place, negated
// when `pivot`, for count (k0) blocks, T the non-unit lower/upper triangle of order n (cols, at
// most TRI_PLACE) at w (its other triangle not read; blocks ues apart), X at a (blocks uld
// apart; rows: other). Computed as S Y with S = T, Y = X (left) or S = T^T, Y = X^T (right),
// so S is lower exactly when `lower` says: a block of threads per TMP_COLS columns of Y, S packed
// by columns and the columns (rows of X on the right) in shared memory, each thread 4 rows x
// 4 columns of the result, written back through shared memory (coalesced either way).
#define TMP_COLS 32
#define TMP_LD (TMP_COLS + 1)
template <class T, bool SLOWER>
__device__ void tri_mul_place_as(const Sol& j) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const int n = (int)j.cols, count = j.k0;
    const bool right = j.reverse != 0;
    const i64 other = j.rows, slabs = (other + TMP_COLS - 1) / TMP_COLS;
    const i64 slab = blockIdx.x % slabs, b = (blockIdx.x / slabs) % count,
              e = blockIdx.x / slabs / count;
    if (e >= j.ne) return;
    const T* Tm = (const T*)j.w + e * j.wes + b * j.ues;
    T* X = (T*)j.a + e * j.es + b * j.uld;
    T* P = (T*)smem_raw;          // S(r, k) at tri_col(k) + r
    T* Y = P + n * (n + 1) / 2;   // Y(k, c) at k * TMP_LD + c
    const i64 c0 = slab * TMP_COLS;
    const int nc = (int)min((i64)TMP_COLS, other - c0);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    // T read down its columns, a warp's lanes along rows (coalesced): warp w takes columns
    // w + 8 u, each lane rows lane + 32 i, sixteen loads in flight a thread before any store
    // (one at a time, the loads' latency set the pace). S(r, k) = T(r, k), or T(k, r) on the
    // right.
    const bool tlow = SLOWER != right;
    for (int k0 = warp; k0 < n; k0 += 32) {
        T v[4][4];
#pragma unroll
        for (int u = 0; u < 4; ++u)
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int k = k0 + 8 * u, r = lane + 32 * i;
                const bool in = k < n && r < n && (tlow ? r >= k : r <= k);
                v[u][i] = in ? Tm[r + (i64)k * j.wld] : zero_of<T>();
            }
#pragma unroll
        for (int u = 0; u < 4; ++u)
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int k = k0 + 8 * u, r = lane + 32 * i;
                if (!(k < n && r < n && (tlow ? r >= k : r <= k))) continue;
                if (right) P[tri_col<SLOWER>(r, n) + k] = v[u][i];
                else P[tri_col<SLOWER>(k, n) + r] = v[u][i];
            }
    }
    // Y(k, c) = X(k, c0 + c) (lanes along k), or X(c0 + c, k) on the right (lanes along c),
    // sixteen loads in flight a thread; the columns past nc zero.
    {
        T v[16];
#pragma unroll
        for (int u = 0; u < 16; ++u) {
            const int k = right ? warp + 8 * u : lane + 32 * (u & 3);
            const int c = right ? lane : warp + 8 * (u >> 2);
            v[u] = zero_of<T>();
            if (k < n && c < nc) v[u] = right ? X[c0 + c + (i64)k * j.ld] : X[k + (c0 + c) * j.ld];
        }
#pragma unroll
        for (int u = 0; u < 16; ++u) {
            const int k = right ? warp + 8 * u : lane + 32 * (u & 3);
            const int c = right ? lane : warp + 8 * (u >> 2);
            if (k < n) Y[k * TMP_LD + c] = v[u];
        }
    }
    __syncthreads();
    const int cq = 4 * warp;
    T acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int q = 0; q < 4; ++q) acc[i][q] = zero_of<T>();
    // acc = -(S Y): fms subtracts. Columns of S by chunks of 32 (unrolled), so a row block
    // that is zero in the chunk (above it for lower S, below it for upper) is skipped at
    // compile time rather than predicated off (37 % of the products at n = 128).
#pragma unroll
    for (int kc = 0; kc < 4; ++kc) {
        if (32 * kc >= n) break;
        const int k1 = min(n, 32 * kc + 32);
        for (int k = 32 * kc; k < k1; ++k) {
            const T* yk = Y + k * TMP_LD + cq;
            const T y[4] = {yk[0], yk[1], yk[2], yk[3]};
            const T* pk = P + tri_col<SLOWER>(k, n);
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                if (SLOWER ? i < kc : i > kc) continue;
                const int r = lane + 32 * i;
                const bool in = i == kc ? (SLOWER ? (r >= k && r < n) : r <= k) : r < n;
                if (in) {
                    const T s = pk[r];
#pragma unroll
                    for (int q = 0; q < 4; ++q) acc[i][q] = fms(acc[i][q], s, y[q]);
                }
            }
        }
    }
    __syncthreads();
    const bool neg = j.pivot != 0;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const int r = lane + 32 * i;
        if (r < n) {
#pragma unroll
            for (int q = 0; q < 4; ++q)
                Y[r * TMP_LD + cq + q] = neg ? acc[i][q] : fms(zero_of<T>(), real_of<T>(1.0), acc[i][q]);
        }
    }
    __syncthreads();
#pragma unroll
    for (int u = 0; u < 16; ++u) {
        const int k = right ? warp + 8 * u : lane + 32 * (u & 3);
        const int c = right ? lane : warp + 8 * (u >> 2);
        if (k >= n || c >= nc) continue;
        const T v = Y[k * TMP_LD + c];
        if (right) X[c0 + c + (i64)k * j.ld] = v;
        else X[k + (c0 + c) * j.ld] = v;
    }
}
template <class T>
__device__ void tri_mul_place(const Sol& j) {
    pdl_enter();
    if (j.lower) tri_mul_place_as<T, true>(j);
    else tri_mul_place_as<T, false>(j);
}

// getri: LAPACK's column interchanges n-2 .. 0 as one permutation per entry: column c of the
// result is column perm[c] of the input (one thread walks them in shared memory).
__device__ void col_perm(const Sol& j) {
    pdl_enter();
    extern __shared__ __align__(16) unsigned char smem_raw[];
    int* occ = (int*)smem_raw;
    const i64 e = blockIdx.x;
    if (e >= j.ne) return;
    const int n = (int)j.cols;
    const int* piv = (const int*)j.piv + e * j.piv_s;
    int* perm = (int*)j.slots + e * j.aux;
    for (int t = threadIdx.x; t < n; t += blockDim.x) occ[t] = t;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int c = n - 2; c >= 0; --c) {
            const int p = piv[c] - 1;
            // A pivot outside the matrix is ignored: nothing outside it is ever touched.
            if (p < 0 || p >= n || p == c) continue;
            const int x = occ[c];
            occ[c] = occ[p];
            occ[p] = x;
        }
    }
    __syncthreads();
    for (int t = threadIdx.x; t < n; t += blockDim.x) perm[t] = occ[t];
}

// getri: the permutation applied to smem_rows rows per block: read permuted into shared
// memory (consecutive threads on consecutive rows of a column), then written back in order.
template <class T>
__device__ void col_gather(const Sol& j) {
    pdl_enter();
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* buf = (T*)smem_raw;
    const i64 n = j.cols, R = j.smem_rows;
    const i64 groups = (n + R - 1) / R;
    const i64 e = blockIdx.x / groups, r0 = (blockIdx.x % groups) * R;
    if (e >= j.ne) return;
    // (the group fits shared memory, so its element count fits an int)
    const int rows = (int)min(R, n - r0), total = rows * (int)n, nt = blockDim.x;
    const int* perm = (const int*)j.slots + e * j.aux;
    T* A = (T*)j.a + e * j.es + r0;
    // Eight elements in flight a thread before their stores (one at a time, the loads'
    // latency set the pace: 2.5 ms of getri 8192 on the H200).
    for (int t0 = threadIdx.x; t0 < total; t0 += 8 * nt) {
        T v[8];
#pragma unroll
        for (int u = 0; u < 8; ++u) {
            const int t = t0 + u * nt;
            if (t < total) v[u] = A[t % rows + (i64)perm[t / rows] * j.ld];
        }
#pragma unroll
        for (int u = 0; u < 8; ++u) {
            const int t = t0 + u * nt;
            if (t < total) buf[t] = v[u];
        }
    }
    __syncthreads();
    for (int t = threadIdx.x; t < total; t += nt) A[t % rows + (i64)(t / rows) * j.ld] = buf[t];
}

// getri: the column interchanges one by one, a thread per row (no room for the permutation).
template <class T>
__device__ void col_swap(const Sol& j) {
    pdl_enter();
    const i64 n = j.cols;
    const i64 nrb = (n + blockDim.x - 1) / blockDim.x;
    const i64 e = blockIdx.x / nrb, r = (blockIdx.x % nrb) * blockDim.x + threadIdx.x;
    if (e >= j.ne || r >= n) return;
    T* row = (T*)j.a + e * j.es + r;
    const int* piv = (const int*)j.piv + e * j.piv_s;
    for (i64 c = n - 2; c >= 0; --c) {
        const i64 p = (i64)piv[c] - 1;
        if (p < 0 || p >= n || p == c) continue;
        T x = row[c * j.ld];
        row[c * j.ld] = row[p * j.ld];
        row[p * j.ld] = x;
    }
}

__device__ void init(const Sol& j) {
    pdl_enter();
    const i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j.info && t < j.ne) ((int*)j.info)[t * j.info_s] = 0;
}

#ifdef GPUBLAS_FAMILY_SOLVER
#define SOLVER_KERNELS(TAG, T, LUW_BLOCKS) \
    extern "C" __global__ void __launch_bounds__(MAXT) sol_lu_##TAG(Sol j) { lu<T>(j); } \
    extern "C" __global__ void __launch_bounds__(128, LUW_BLOCKS) sol_luw_##TAG(Sol j) { luw<T>(j); } \
    extern "C" __global__ void __launch_bounds__(MAXT) sol_swap_##TAG(Sol j) { swap_rows<T>(j); } \
    extern "C" __global__ void __launch_bounds__(MAXT) sol_gather_##TAG(Sol j) { gather<T>(j); } \
    extern "C" __global__ void __launch_bounds__(128) sol_lur64_##TAG(Sol j) { lur<T, 64, 2>(j); } \
    extern "C" __global__ void __launch_bounds__(MAXT) sol_diaginfo_##TAG(Sol j) { diag_info<T>(j); } \
    extern "C" __global__ void __launch_bounds__(MAXT) sol_take_##TAG(Sol j) { take_lower<T>(j); } \
    extern "C" __global__ void __launch_bounds__(512) sol_trinvp_##TAG(Sol j) { tri_inv_place<T>(j); } \
    extern "C" __global__ void __launch_bounds__(256, 2) sol_trmulp_##TAG(Sol j) { tri_mul_place<T>(j); } \
    extern "C" __global__ void __launch_bounds__(MAXT) sol_colgather_##TAG(Sol j) { col_gather<T>(j); } \
    extern "C" __global__ void __launch_bounds__(MAXT) sol_colswap_##TAG(Sol j) { col_swap<T>(j); }
// LUW_BLOCKS: the one-warp LU's blocks per SM (registers capped to fit them; five instead of
// the four 128 registers allow: 240 -> 230 us for 10000 double 32 x 32 on the H100; double2's
// rows need their registers).
SOLVER_KERNELS(s, float, 5)
SOLVER_KERNELS(d, double, 5)
SOLVER_KERNELS(c, float2, 5)
SOLVER_KERNELS(z, double2, 1)
// Whole LU of 65 .. 128 for real types (complex stops at 64): one block per matrix.
// Four threads per row (512): on the H100, 1000 double 128 x 128 took 1.21 ms against 1.39-1.45
// with two (half the code per thread: fewer instruction-cache misses) and 1.22 with eight.
extern "C" __global__ void __launch_bounds__(512, 1) sol_lur128_s(Sol j) { lur<float, 128, 4>(j); }
extern "C" __global__ void __launch_bounds__(512, 1) sol_lur128_d(Sol j) { lur<double, 128, 4>(j); }
// Batches of more entries than SMs: double keeps its first 16 slots (columns 0..63, done
// halfway) in 64 KB of dynamic shared memory and the other 16 in 64 registers, so two blocks
// share an SM and one's barriers hide behind the other's work (H200, 1000 × 128²: 1049 ->
// 868 us, 839 with slot pairs; 20 slots 894, 24 996). One matrix alone takes 150 us against
// 122 in registers. `lur_shared_bytes` in plan.rs mirrors the 16.
extern "C" __global__ void __launch_bounds__(512, 2) sol_lur128half_d(Sol j) { lur<double, 128, 4, 16>(j); }
#ifdef LUR_SQ  // the solver harness's variants (scripts/solver-harness, -DLURX)
extern "C" __global__ void __launch_bounds__(512, 2) sol_lur128x_d(Sol j) { lur<double, 128, 4, LUR_SQ>(j); }
#endif
// The register panels (`lu_regs`): W = 8·H columns, RR rows per thread (of 256; so 32·RR
// rows per block at W = 64, 64·RR at W = 32); the launch picks the fewest registers that hold
// the block's rows (`lu_regs_fit` in plan.rs mirrors this list). Complex double: W = 32 only,
// RR <= 4 (four registers a value). RR = 12 spills (double: 1.2 KB of loads per thread).
#define LU_REGS(TAG, T, H, RR) \
    extern "C" __global__ void __launch_bounds__(256, 1) sol_lu_regs##H##x##RR##_##TAG(Sol j) { lu_regs<T, H, RR>(j); }
#define LU_REGS_ALL(TAG, T) \
    LU_REGS(TAG, T, 8, 4) LU_REGS(TAG, T, 8, 8) LU_REGS(TAG, T, 4, 4) LU_REGS(TAG, T, 4, 8)
LU_REGS_ALL(s, float)
LU_REGS_ALL(d, double)
LU_REGS_ALL(c, float2)
LU_REGS(z, double2, 4, 2) LU_REGS(z, double2, 4, 4)
extern "C" __global__ void __launch_bounds__(MAXT) sol_init(Sol j) { init(j); }
extern "C" __global__ void __launch_bounds__(MAXT) sol_perm(Sol j) { perm(j); }
extern "C" __global__ void __launch_bounds__(MAXT) sol_colperm(Sol j) { col_perm(j); }
#endif
