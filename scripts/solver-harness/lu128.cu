// lu128.cu: batched LU with partial pivoting (getrf semantics) of many small f64 matrices,
// n = 64, 96 or 128, strided, one block of 256 threads per matrix, the matrix in shared memory.
// Blocked right-looking LU: panels of NB (16) columns are factored by ONE warp holding the
// panel in registers (4 rows x 16 columns a lane at n = 128; the per-column chain has no block
// barrier: search by warp reductions, the pivot row through a 16-entry buffer), then all 8 warps apply the
// panel's interchanges (only the <= 2 NB rows that move), solve U12 = L11^-1 A12 (a thread a
// column) and update A22 -= L21 U12 (a 16 x 16 thread grid, up to 7 x 7 entries a thread).
// The arithmetic per element is the unblocked LU's (a division by the pivot, then
// fma(-l, u, c) per column in column order; columns whose pivot is zero are skipped), so the
// result is bit-identical to the plain CPU loop below (and to the library's `lur`).
//
//   GPU:  nvcc -O3 -arch=sm_90 -std=c++17 lu128.cu -lcublas -o lu128 && ./lu128
//         (+ -DSOLVER_SRC='"../../crates/gpublas/kernels/solver.cu"' to time the library's lur)
//   CPU:  g++ -O2 -std=c++20 -x c++ -DLU128_EMU lu128.cu -o lu128emu -lpthread && ./lu128emu
//         (one std::thread per CUDA thread, real barriers and shuffles; small batches)
//   NVRTC: everything above the host part compiles alone (kernels lu128_n64/_n96/_n128).
#ifndef LU_NB
#define LU_NB 16  // panel width: 16 only (the GEMM grid assumes multiples of 16; 32 would spill)
#endif
#define LU_NT 256  // threads a block (the GEMM grid is 16 x 16)

#if defined(LU128_EMU)
// ---- CPU emulation of the CUDA subset used below ----
#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>
struct dim3 { unsigned x = 1, y = 1, z = 1; dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
inline thread_local dim3 threadIdx, blockIdx;
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__
struct EmuBlock {
    std::barrier<> block;
    std::vector<std::unique_ptr<std::barrier<>>> warp;
    unsigned long long slot[LU_NT];
    EmuBlock() : block(LU_NT) { for (int w = 0; w < LU_NT / 32; w++) warp.emplace_back(new std::barrier<>(32)); }
};
inline EmuBlock* emu_blk;
inline double emu_dsm[140 * 140];
inline void __syncthreads() { emu_blk->block.arrive_and_wait(); }
inline void __syncwarp(unsigned = 0xffffffffu) { emu_blk->warp[threadIdx.x >> 5]->arrive_and_wait(); }
// every lane publishes, then reads what it needs; the two warp barriers keep rounds apart
template <class F> inline unsigned long long emu_xchg(unsigned long long x, F f) {
    const int t = threadIdx.x, w = t >> 5;
    emu_blk->slot[t] = x;
    emu_blk->warp[w]->arrive_and_wait();
    const unsigned long long r = f(emu_blk->slot + (w << 5));
    emu_blk->warp[w]->arrive_and_wait();
    return r;
}
inline double __shfl_sync(unsigned, double x, int l) {
    unsigned long long b; memcpy(&b, &x, 8);
    b = emu_xchg(b, [&](unsigned long long* s) { return s[l & 31]; });
    double r; memcpy(&r, &b, 8); return r;
}
inline unsigned __reduce_max_sync(unsigned, unsigned x) {
    return (unsigned)emu_xchg(x, [](unsigned long long* s) { unsigned m = 0; for (int i = 0; i < 32; i++) m = std::max(m, (unsigned)s[i]); return (unsigned long long)m; });
}
inline unsigned __reduce_min_sync(unsigned, unsigned x) {
    return (unsigned)emu_xchg(x, [](unsigned long long* s) { unsigned m = 0xffffffffu; for (int i = 0; i < 32; i++) m = std::min(m, (unsigned)s[i]); return (unsigned long long)m; });
}
inline unsigned __ballot_sync(unsigned, bool p) {
    return (unsigned)emu_xchg(p, [](unsigned long long* s) { unsigned m = 0; for (int i = 0; i < 32; i++) m |= (s[i] ? 1u : 0u) << i; return (unsigned long long)m; });
}
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline long long __double_as_longlong(double x) { long long r; memcpy(&r, &x, 8); return r; }
using std::min;
template <class K> void emu_launch(K k, unsigned grid, double* A, int lda, long long stride, int* piv, int* info, int ne) {
    for (unsigned bx = 0; bx < grid; bx++) {
        EmuBlock blk; emu_blk = &blk;
        for (auto& x : emu_dsm) x = NAN;  // stale shared memory must not be read
        std::vector<std::thread> th;
        for (unsigned t = 0; t < LU_NT; t++) th.emplace_back([&, t] { threadIdx = dim3(t); blockIdx = dim3(bx); k(A, lda, stride, piv, info, ne); });
        for (auto& x : th) x.join();
    }
}
#else
#ifndef __CUDACC_RTC__
#include <cstdint>
#endif
#endif

namespace lu128 {
constexpr int NB = LU_NB;
constexpr unsigned FULL = 0xffffffffu;

// |x| as an ordered key: numbers (bits + 2) above a NaN (1) above no candidate (0), as lur.
__device__ __forceinline__ unsigned long long mkey(double x) {
    const double m = fabs(x);
    return m != m ? 1ull : (unsigned long long)__double_as_longlong(m) + 2ull;
}

// The panel (columns k .. k+NB-1, all rows >= k) factored by one warp. Lane holds slots
// (physical rows) lane + 32 i. Interchanges move labels (lab: the logical row a slot holds),
// not data; at the end the panel is written back in slot order and the moved rows listed, so
// that all threads permute every column alike.
template <int N>
__device__ __forceinline__ void panel(double* S, const int k, const int lane, int* gp, int& first_zero,
                                      int* s_mvp, int* s_mvs, int* s_cnt, unsigned* s_zmask, double* s_row) {
    constexpr int LD = N + 1, RL = N / 32;
    double a[RL][NB];
    int lab[RL];
    bool live[RL];
#pragma unroll
    for (int i = 0; i < RL; ++i) {
        const int r = lane + 32 * i;
        lab[i] = r;
        live[i] = r >= k;
#pragma unroll
        for (int q = 0; q < NB; ++q) a[i][q] = live[i] ? S[r + (k + q) * LD] : 0.0;
    }
    unsigned zmask = 0;
#pragma unroll
    for (int jj = 0; jj < NB; ++jj) {
        const int c = k + jj;
        // 1. the best live row: largest |x|, then the smallest label (the first row, as idamax)
        unsigned long long best = 0;
        unsigned bkey = FULL;
#pragma unroll
        for (int i = 0; i < RL; ++i) {
            if (live[i]) {
                const unsigned long long mk = mkey(a[i][jj]);
                const unsigned key = (unsigned)(lab[i] << 8 | (lane + 32 * i));
                if (mk > best || (mk == best && key < bkey)) { best = mk; bkey = key; }
            }
        }
        const unsigned hi = (unsigned)(best >> 32), lo = (unsigned)best;
        const unsigned m1 = __reduce_max_sync(FULL, hi);
        const unsigned m2 = __reduce_max_sync(FULL, hi == m1 ? lo : 0u);
        const unsigned key = __reduce_min_sync(FULL, (hi == m1 && lo == m2) ? bkey : FULL);
        const int w = (int)(key & 255u), wl = (int)(key >> 8);
        // 2. the pivot and the rest of its row, from the winner lane (wi is warp-uniform)
        double pv, ur[NB];
#ifndef LU_BCAST_SHFL
        // the winner lane stores its row (predicated stores), the warp reads it back (broadcast)
#pragma unroll
        for (int i = 0; i < RL; ++i)
            if (lane + 32 * i == w) {
#pragma unroll
                for (int q = jj; q < NB; ++q) s_row[q] = a[i][q];
            }
        __syncwarp();
        pv = s_row[jj];
#pragma unroll
        for (int q = jj + 1; q < NB; ++q) ur[q] = s_row[q];
        __syncwarp();  // the next column's stores come after every lane's reads
#else
        // every lane selects its register wi (warp-uniform), one shuffle per value from wlane
        // (a branch per wi was if-converted by the compiler: 4x the shuffles, 90 KB of code)
        const int wlane = w & 31, wi = w >> 5;
        {
            double x = a[0][jj];
#pragma unroll
            for (int i = 1; i < RL; ++i) x = wi == i ? a[i][jj] : x;
            pv = __shfl_sync(FULL, x, wlane);
        }
#pragma unroll
        for (int q = jj + 1; q < NB; ++q) {
            double x = a[0][q];
#pragma unroll
            for (int i = 1; i < RL; ++i) x = wi == i ? a[i][q] : x;
            ur[q] = __shfl_sync(FULL, x, wlane);
        }
#endif
        const bool zero = pv == 0.0;
        if (lane == 0) gp[c] = wl + 1;
        if (zero) {  // as LAPACK: info, no interchange; as lur: no division, no update
            zmask |= 1u << jj;
            if (first_zero == 0) first_zero = c + 1;
        } else {
#pragma unroll
            for (int i = 0; i < RL; ++i) lab[i] = (lane + 32 * i == w) ? c : (lab[i] == c ? wl : lab[i]);
        }
#pragma unroll
        for (int i = 0; i < RL; ++i)
            if (lab[i] == c) live[i] = false;  // the pivot row (row c from now on)
        if (!zero) {
#pragma unroll
            for (int i = 0; i < RL; ++i) {
                if (live[i]) {
                    const double l = a[i][jj] / pv;
                    a[i][jj] = l;
#pragma unroll
                    for (int q = jj + 1; q < NB; ++q) a[i][q] = __fma_rn(-l, ur[q], a[i][q]);
                }
            }
        }
    }
    // 3. write back in slot order; list the rows that move (position lab <- slot r)
    int base = 0;
#pragma unroll
    for (int i = 0; i < RL; ++i) {
        const int r = lane + 32 * i;
        if (r >= k) {
#pragma unroll
            for (int q = 0; q < NB; ++q) S[r + (k + q) * LD] = a[i][q];
        }
        const bool mv = r >= k && lab[i] != r;
        const unsigned b = __ballot_sync(FULL, mv);
        if (mv) {
            const int o = base + __popc(b & ((1u << lane) - 1u));
            s_mvp[o] = lab[i];
            s_mvs[o] = r;
        }
        base += __popc(b);
    }
    if (lane == 0) {
        *s_cnt = base;
        *s_zmask = zmask;
    }
}

// A22 -= L21 U12 for a trailing block of at most 16 NA rows and columns: thread (tr, tc) owns
// rows m0 + tr + 16 a and columns m0 + tc + 16 b; products in column order, zero pivots skipped.
template <int N, int NA>
__device__ __forceinline__ void gemm(double* S, const int k, const int t, const unsigned zm) {
    constexpr int LD = N + 1;
    const int m0 = k + NB, tr = t & 15, tc = t >> 4;
    double acc[NA][NA];
#pragma unroll
    for (int x = 0; x < NA; ++x)
#pragma unroll
        for (int y = 0; y < NA; ++y) acc[x][y] = S[m0 + tr + 16 * x + (m0 + tc + 16 * y) * LD];
#pragma unroll 1
    for (int m = 0; m < NB; ++m) {
        if (zm >> m & 1u) continue;
        double l[NA], u[NA];
#pragma unroll
        for (int x = 0; x < NA; ++x) l[x] = S[m0 + tr + 16 * x + (k + m) * LD];
#pragma unroll
        for (int y = 0; y < NA; ++y) u[y] = S[k + m + (m0 + tc + 16 * y) * LD];
#pragma unroll
        for (int x = 0; x < NA; ++x)
#pragma unroll
            for (int y = 0; y < NA; ++y) acc[x][y] = __fma_rn(-l[x], u[y], acc[x][y]);
    }
#pragma unroll
    for (int x = 0; x < NA; ++x)
#pragma unroll
        for (int y = 0; y < NA; ++y) S[m0 + tr + 16 * x + (m0 + tc + 16 * y) * LD] = acc[x][y];
}

template <int N>
__device__ __forceinline__ void lu_body(double* __restrict__ A, int lda, long long stride, int* __restrict__ piv,
                                        int* __restrict__ info, int ne, double* S, int* s_mvp, int* s_mvs, int* s_cnt,
                                        unsigned* s_zmask, double* s_row) {
    static_assert(N % 32 == 0 && NB == 16 && N <= 128, "N: 64, 96 or 128; NB: 16");
    constexpr int LD = N + 1;
    const int e = blockIdx.x;
    if (e >= ne) return;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    double* g = A + (long long)e * stride;
    int* gp = piv + (long long)e * N;
#pragma unroll 8
    for (int i = t; i < N * N; i += LU_NT) {
        const int r = i % N, c = i / N;
        S[r + c * LD] = g[r + (long long)c * lda];
    }
    int first_zero = 0;  // kept by thread 0
    __syncthreads();
#pragma unroll 1
    for (int k = 0; k < N; k += NB) {
        if (warp == 0) panel<N>(S, k, lane, gp, first_zero, s_mvp, s_mvs, s_cnt, s_zmask, s_row);
        __syncthreads();
        // the panel's interchanges on every column: (position p <- slot s) for the moved rows
        const int cnt = *s_cnt;
        const unsigned zm = *s_zmask;
        if (cnt) {
            // TPC threads a column (2 at n = 128 and 96, 4 at 64), moved rows x = xs + TPC it
            constexpr int TPC = LU_NT / N, MAXIT = (2 * NB + TPC - 1) / TPC;
            const int c = t % N, xs = t / N;
            double v[MAXIT];
#pragma unroll
            for (int it = 0; it < MAXIT; ++it) {
                const int x = xs + TPC * it;
                if (xs < TPC && x < cnt) v[it] = S[s_mvs[x] + c * LD];
            }
            __syncthreads();
#pragma unroll
            for (int it = 0; it < MAXIT; ++it) {
                const int x = xs + TPC * it;
                if (xs < TPC && x < cnt) S[s_mvp[x] + c * LD] = v[it];
            }
            __syncthreads();
        }
        const int m0 = k + NB, mt = N - m0;
        if (mt <= 0) break;
        // U12 = L11^-1 A12 (unit lower), a thread a column; row r takes columns m < r in order
        if (t < mt) {
            const int j = m0 + t;
            double u[NB];
#pragma unroll
            for (int r = 0; r < NB; ++r) u[r] = S[k + r + j * LD];
#pragma unroll
            for (int r = 1; r < NB; ++r)
#pragma unroll
                for (int m = 0; m < r; ++m)
                    if (!(zm >> m & 1u)) u[r] = __fma_rn(-S[k + r + (k + m) * LD], u[m], u[r]);
#pragma unroll
            for (int r = 1; r < NB; ++r) S[k + r + j * LD] = u[r];
        }
        __syncthreads();
        switch ((mt + 15) / 16) {  // mt is a multiple of 16 when NB is
            case 1: gemm<N, 1>(S, k, t, zm); break;
            case 2: gemm<N, 2>(S, k, t, zm); break;
            case 3: gemm<N, 3>(S, k, t, zm); break;
            case 4: gemm<N, (4 <= (N - NB + 15) / 16 ? 4 : 1)>(S, k, t, zm); break;
            case 5: gemm<N, (5 <= (N - NB + 15) / 16 ? 5 : 1)>(S, k, t, zm); break;
            case 6: gemm<N, (6 <= (N - NB + 15) / 16 ? 6 : 1)>(S, k, t, zm); break;
            case 7: gemm<N, (7 <= (N - NB + 15) / 16 ? 7 : 1)>(S, k, t, zm); break;
        }
        __syncthreads();
    }
    __syncthreads();
#pragma unroll 8
    for (int i = t; i < N * N; i += LU_NT) {
        const int r = i % N, c = i / N;
        g[r + (long long)c * lda] = S[r + c * LD];
    }
    if (t == 0) info[e] = first_zero;
}
}  // namespace lu128

#ifdef LU128_EMU
#define LU_KERNEL(NN, MINB)                                                                                  \
    void lu128_n##NN(double* A, int lda, long long stride, int* piv, int* info, int ne) {                    \
        static int s_mvp[2 * LU_NB], s_mvs[2 * LU_NB], s_cnt;                                                 \
        static unsigned s_zmask;                                                                            \
        static double s_row[LU_NB];                                                                         \
        lu128::lu_body<NN>(A, lda, stride, piv, info, ne, emu_dsm, s_mvp, s_mvs, &s_cnt, &s_zmask, s_row);   \
    }
#else
#define LU_KERNEL(NN, MINB)                                                                                  \
    extern "C" __global__ void __launch_bounds__(LU_NT, MINB)                                                   \
        lu128_n##NN(double* __restrict__ A, int lda, long long stride, int* __restrict__ piv,                \
                    int* __restrict__ info, int ne) {                                                        \
        extern __shared__ __align__(16) double lu_dsm[];                                                     \
        __shared__ int s_mvp[2 * LU_NB], s_mvs[2 * LU_NB], s_cnt;                                             \
        __shared__ unsigned s_zmask;                                                                        \
        __shared__ __align__(16) double s_row[LU_NB];                                                       \
        lu128::lu_body<NN>(A, lda, stride, piv, info, ne, lu_dsm, s_mvp, s_mvs, &s_cnt, &s_zmask, s_row);    \
    }
#endif
#ifndef LU_MINB64
#define LU_MINB64 1  // n = 64: 33 KB of shared memory; 2 (128 registers) lets 2 blocks share an SM but spills 64 B
#endif
#ifndef LU_MINB96
#define LU_MINB96 1
#endif
LU_KERNEL(64, LU_MINB64)
LU_KERNEL(96, LU_MINB96)
LU_KERNEL(128, 1)

// ============================== host harness ==============================
#ifndef __CUDACC_RTC__
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

static size_t lu_smem(int n) { return (size_t)n * (n + 1) * 8; }

// The reference: LAPACK's unblocked getrf order (dgetf2) with lur's pivot rule and arithmetic:
// first index of the largest |x| (a NaN never beats a number; only NaNs: the first), at a zero
// pivot info and no interchange, division, no update; otherwise rows swapped over all columns,
// division by the pivot, then c = fma(-l, u, c) column by column.
static void ref_getrf(double* A, int n, int ld, int* piv, int& info) {
    info = 0;
    for (int jj = 0; jj < n; ++jj) {
        int p = jj; double best = -2.0;
        for (int r = jj; r < n; ++r) {
            double m = fabs(A[r + (size_t)jj * ld]); if (m != m) m = -1.0;
            if (m > best) { best = m; p = r; }
        }
        piv[jj] = p + 1;
        const double pv = A[p + (size_t)jj * ld];
        if (pv == 0.0) { if (!info) info = jj + 1; continue; }
        if (p != jj) for (int c = 0; c < n; ++c) std::swap(A[jj + (size_t)c * ld], A[p + (size_t)c * ld]);
        for (int r = jj + 1; r < n; ++r) A[r + (size_t)jj * ld] = A[r + (size_t)jj * ld] / pv;
        for (int c = jj + 1; c < n; ++c) {
            const double u = A[jj + (size_t)c * ld];
            for (int r = jj + 1; r < n; ++r) A[r + (size_t)c * ld] = std::fma(-A[r + (size_t)jj * ld], u, A[r + (size_t)c * ld]);
        }
    }
}

// max |L U - P A| / (max|A| n eps) from a factored F, its pivots and the original A0.
static double resid(const double* F, const double* A0, int n, int ld, const int* piv) {
    std::vector<double> PA((size_t)n * n);
    for (int c = 0; c < n; ++c) for (int r = 0; r < n; ++r) PA[r + (size_t)c * n] = A0[r + (size_t)c * ld];
    for (int j = 0; j < n; ++j) { const int p = piv[j] - 1; if (p != j && p >= 0 && p < n) for (int c = 0; c < n; ++c) std::swap(PA[j + (size_t)c * n], PA[p + (size_t)c * n]); }
    double amax = 0, emax = 0;
    for (int i = 0; i < n * n; ++i) amax = std::max(amax, fabs(PA[i]));
    for (int c = 0; c < n; ++c)
        for (int r = 0; r < n; ++r) {
            double s = 0;
            for (int m = 0; m <= std::min(r, c); ++m) s += (m == r ? 1.0 : F[r + (size_t)m * ld]) * F[m + (size_t)c * ld];
            emax = std::max(emax, fabs(s - PA[r + (size_t)c * n]));
        }
    return emax / (amax * n * DBL_EPSILON);
}

static bool same(double x, double y) { return x == y || (x != x && y != y); }

struct Case { int n, ne, ld, special; };  // special: 1 zero col + equal cols, 2 NaN/Inf, 3 integer ties

static void fill(std::vector<double>& h, const Case& cs, size_t es, std::mt19937_64& g) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const int n = cs.n, ld = cs.ld;
    for (int e = 0; e < cs.ne; ++e) {
        double* M = h.data() + e * es;
        for (int c = 0; c < n; ++c)
            for (int r = 0; r < ld; ++r) M[r + (size_t)c * ld] = r < n ? u(g) : NAN;  // padding NaN
        if (cs.special == 1) for (int r = 0; r < n; ++r) { M[r + 7 * ld] = 0.0; M[r + 30 * ld] = M[r + 29 * ld]; }
        if (cs.special == 2) { M[3 + 4 * ld] = NAN; M[10 + 0 * ld] = INFINITY; }
        if (cs.special == 3) for (int c = 0; c < n; ++c) for (int r = 0; r < n; ++r) M[r + (size_t)c * ld] = (double)(int)(M[r + (size_t)c * ld] * 3);
    }
}

// Check ne0 = min(ne, lim) matrices of out/piv/info against the CPU loop; returns mismatches.
static int check(const Case& cs, size_t es, const std::vector<double>& h, const std::vector<double>& o,
                 const std::vector<int>& p, const std::vector<int>& inf, int lim, double& rmax, const char* who) {
    const int n = cs.n, ld = cs.ld, ne0 = std::min(cs.ne, lim);
    int bad = 0, badp = 0, badi = 0, badpad = 0;
    rmax = 0;
    for (int e = 0; e < ne0; ++e) {
        std::vector<double> M(h.begin() + e * es, h.begin() + (e + 1) * es);
        std::vector<int> rp(n); int ri;
        ref_getrf(M.data(), n, ld, rp.data(), ri);
        for (int c = 0; c < n; ++c)
            for (int r = 0; r < ld; ++r) {
                const size_t i = r + (size_t)c * ld;
                if (r >= n) { badpad += memcmp(&h[e * es + i], &o[e * es + i], 8) != 0; continue; }
                bad += !same(M[i], o[e * es + i]);
            }
        for (int c = 0; c < n; ++c) badp += rp[c] != p[e * n + c];
        badi += ri != inf[e];
        if (cs.special == 0) rmax = std::max(rmax, resid(o.data() + e * es, h.data() + e * es, n, ld, p.data() + e * n));
    }
    printf("   %-6s vs CPU loop (%d matrices): elements differing %d, pivots %d, info %d, padding changed %d%s",
           who, ne0, bad, badp, badi, badpad, bad + badp + badi + badpad ? "  MISMATCH" : "  bit-identical");
    if (cs.special == 0) printf(", max |LU-PA|/(|A| n eps) %.3f%s", rmax, rmax < 30 ? "" : "  LARGE");
    printf("\n");
    return bad + badp + badi + badpad + (cs.special == 0 && !(rmax < 30));
}

#ifdef LU128_EMU
// ---------------- CPU emulation driver: small batches of every size and special case ----------------
int main(int argc, char** argv) {
    const int ne = argc > 1 ? atoi(argv[1]) : 2;
    std::mt19937_64 g(12345);
    const Case cases[] = {{64, ne, 64, 0}, {96, ne, 96, 0}, {128, ne, 128, 0}, {128, 2, 131, 0}, {128, 2, 128, 1},
                          {64, 2, 67, 1}, {128, 2, 128, 2}, {96, 2, 96, 2}, {128, 2, 128, 3}, {64, 2, 64, 3}};
    int total = 0;
    for (const Case& cs : cases) {
        const size_t es = (size_t)cs.ld * cs.n;
        std::vector<double> h(es * cs.ne), o;
        fill(h, cs, es, g);
        o = h;
        std::vector<int> p(cs.ne * cs.n, -7), inf(cs.ne, -7);
        auto k = cs.n == 64 ? lu128_n64 : cs.n == 96 ? lu128_n96 : lu128_n128;
        emu_launch(k, cs.ne, o.data(), cs.ld, (long long)es, p.data(), inf.data(), cs.ne);
        printf("emu %d x %d^2 ld %d special %d:\n", cs.ne, cs.n, cs.ld, cs.special);
        double r;
        total += check(cs, es, h, o, p, inf, cs.ne, r, "lu128");
    }
    printf("emu check: %d mismatches\n", total);
    return total != 0;
}
#else
// ---------------- GPU harness ----------------
#include <cublas_v2.h>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)
#define CB(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { printf("cuBLAS %d at %s:%d\n", (int)s_, __FILE__, __LINE__); exit(1); } } while (0)

#ifdef SOLVER_SRC  // the library's lur, for reference (as solbench.cu includes it)
#define GPUBLAS_FAMILY_SOLVER
#include "../../crates/gpublas/kernels/complex_div.cuh"
#include "../../crates/gpublas/kernels/lapack.cuh"
#include "../../crates/gpublas/kernels/solver.cuh"
#include SOLVER_SRC
#endif

static void launch(int n, double* A, int ld, long long es, int* piv, int* info, int ne) {
    auto k = n == 64 ? lu128_n64 : n == 96 ? lu128_n96 : lu128_n128;
    k<<<ne, LU_NT, lu_smem(n)>>>(A, ld, es, piv, info, ne);
}

template <class R, class F> static double med(int reps, R reset, F f) {
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    std::vector<float> ts;
    for (int i = 0; i < reps + 1; ++i) {  // the first run warms up
        reset(); CK(cudaDeviceSynchronize());
        cudaEventRecord(a); f(); cudaEventRecord(b); CK(cudaEventSynchronize(b));
        float ms; cudaEventElapsedTime(&ms, a, b);
        if (i) ts.push_back(ms * 1000.f);
    }
    std::sort(ts.begin(), ts.end());
    cudaEventDestroy(a); cudaEventDestroy(b);
    return ts[ts.size() / 2];
}

int main() {
    for (auto k : {lu128_n64, lu128_n96, lu128_n128}) {
        cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, (const void*)k));
        const int n = k == lu128_n64 ? 64 : k == lu128_n96 ? 96 : 128;
        CK(cudaFuncSetAttribute((const void*)k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)lu_smem(n)));
        int bps = 0; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, k, LU_NT, lu_smem(n)));
        printf("lu128_n%d: %d registers, %zu B local (spills if > 0), %zu B static + %zu B dynamic shared, %d blocks/SM\n",
               n, fa.numRegs, (size_t)fa.localSizeBytes, (size_t)fa.sharedSizeBytes, lu_smem(n), bps);
    }
    cublasHandle_t hb; CB(cublasCreate(&hb));
    std::mt19937_64 g(2024);
    const int REPS = 20;
    const Case cases[] = {{128, 1000, 128, 0}, {64, 1000, 64, 0}, {96, 1000, 96, 0}, {128, 100, 128, 0}, {128, 1, 128, 0},
                          {128, 7, 131, 0}, {128, 5, 128, 1}, {96, 5, 99, 1}, {128, 5, 128, 2}, {64, 5, 64, 2},
                          {128, 5, 128, 3}, {64, 5, 66, 3}};
    int total = 0;
    for (const Case& cs : cases) {
        const int n = cs.n, ne = cs.ne, ld = cs.ld;
        const size_t es = (size_t)ld * n, N = es * ne;
        std::vector<double> h(N);
        fill(h, cs, es, g);
        double *A, *A0; int *piv, *info; double** ptrs;
        CK(cudaMalloc(&A, N * 8)); CK(cudaMalloc(&A0, N * 8)); CK(cudaMalloc(&piv, (size_t)ne * n * 4)); CK(cudaMalloc(&info, ne * 4));
        CK(cudaMalloc(&ptrs, ne * sizeof(double*)));
        std::vector<double*> hp(ne); for (int e = 0; e < ne; ++e) hp[e] = A + e * es;
        CK(cudaMemcpy(ptrs, hp.data(), ne * sizeof(double*), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(A0, h.data(), N * 8, cudaMemcpyHostToDevice));
        auto reset = [&] { cudaMemcpy(A, A0, N * 8, cudaMemcpyDeviceToDevice); cudaMemset(info, 0xff, ne * 4); cudaMemset(piv, 0xff, (size_t)ne * n * 4); };
        auto fetch = [&](std::vector<double>& o, std::vector<int>& p, std::vector<int>& inf) {
            CK(cudaDeviceSynchronize());
            o.resize(N); p.resize((size_t)ne * n); inf.resize(ne);
            CK(cudaMemcpy(o.data(), A, N * 8, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(p.data(), piv, (size_t)ne * n * 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(inf.data(), info, ne * 4, cudaMemcpyDeviceToHost));
        };
        const int reps = ne >= 100 ? REPS : 5;
        const double tl = med(reps, reset, [&] { launch(n, A, ld, (long long)es, piv, info, ne); });
        CK(cudaGetLastError());
        std::vector<double> o; std::vector<int> p, inf; fetch(o, p, inf);
        const double tc = med(reps, reset, [&] { CB(cublasDgetrfBatched(hb, n, ptrs, ld, piv, info, ne)); });
        std::vector<double> oc; std::vector<int> pc, ic; fetch(oc, pc, ic);
        printf("%d x %d^2 ld %d special %d: lu128 %.1f us, cuBLAS getrfBatched %.1f us, speed-up %.3fx\n", ne, n, ld, cs.special, tl, tc, tc / tl);
        double r;
        total += check(cs, es, h, o, p, inf, 40, r, "lu128");
        double rc = 0; int pd = 0, idf = 0;
        for (int e = 0; e < std::min(ne, 40); ++e) {
            if (cs.special == 0) rc = std::max(rc, resid(oc.data() + e * es, h.data() + e * es, n, ld, pc.data() + e * n));
            for (int c = 0; c < n; ++c) pd += p[e * n + c] != pc[e * n + c];
            idf += inf[e] != ic[e];
        }
        printf("   cuBLAS: pivots differing from lu128 %d, info differing %d", pd, idf);
        if (cs.special == 0) printf(", its max |LU-PA|/(|A| n eps) %.3f", rc);
        printf(" (for scale; not counted)\n");
#ifdef SOLVER_SRC
        {
            Sol j{}; j.a = (u64)A; j.ld = ld; j.es = es; j.rows = n; j.cols = n; j.piv = (u64)piv; j.piv_s = n; j.info = (u64)info; j.info_s = 1; j.pivot = 1; j.ne = ne;
            auto reset0 = [&] { cudaMemcpy(A, A0, N * 8, cudaMemcpyDeviceToDevice); cudaMemset(info, 0, ne * 4); };
            const double tr = med(reps, reset0, [&] { if (n > 64) sol_lur128_d<<<ne, 512>>>(j); else sol_lur64_d<<<ne, 128>>>(j); });
            CK(cudaGetLastError());
            std::vector<double> ol; std::vector<int> pl, il; fetch(ol, pl, il);
            size_t d = 0; for (size_t i = 0; i < N; ++i) d += memcmp(&ol[i], &o[i], 8) != 0;
            int dp = 0; for (size_t i = 0; i < pl.size(); ++i) dp += pl[i] != p[i];
            printf("   lur %.1f us (lu128 %.2fx faster); bits differing from lu128: %zu elements, %d pivots\n", tr, tr / tl, d, dp);
        }
#endif
        cudaFree(A); cudaFree(A0); cudaFree(piv); cudaFree(info); cudaFree(ptrs);
    }
    printf("lu128 check: %d mismatches\n", total);
    cublasDestroy(hb);
    return total != 0;
}
#endif  // LU128_EMU
#endif  // __CUDACC_RTC__
