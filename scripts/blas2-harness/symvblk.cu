// Prototype f32 symv, y = alpha * A * x + beta * y (A symmetric n x n, column-major, lda >= n,
// only the uplo triangle stored and read), that reads the stored triangle once through shared
// memory, timed against cublasSsymv (nvcc, GPU machine):
//
//   nvcc -O3 -arch=sm_90 -std=c++17 symvblk.cu -lcublas -o symvblk && ./symvblk
//   ./symvblk 16384      # only the two timed cases at this n (lower, upper)
//   ./symvblk once       # one call of each kernel and of cuBLAS at 16384, for Nsight Compute
//
// Design (MAGMA-like, own code):
// - The region grid: the matrix is cut into R x R regions (R = SB_R). Only the regions of the
//   stored triangle exist: lower, p >= q (region row p, region column q); upper, p <= q.
//   One thread block per region, nR * (nR + 1) / 2 blocks (nR = ceil(n / R)); off-diagonal
//   regions first, diagonal ones (half the work) last.
// - A block streams its region through shared memory, KC = SB_KC columns (R x KC floats, 16 KB
//   at R = 256, KC = 16) per stage, with a SB_STAGES-deep cp.async pipeline (one
//   __syncthreads per stage). Every element is loaded from global memory once and read twice
//   from shared memory:
//     row pass:    thread owns RPT consecutive rows (float/float2/float4 reads down a column)
//                  and sums A(i, c) x_c over the stage's columns into registers, for the whole
//                  region;
//     column pass: G = THREADS / KC threads per column, each a strided set of float4s down the
//                  column, times the region rows' x (kept in registers); the G partials are
//                  reduced with shuffles and the column's sum is final for the region (each
//                  stage brings new columns).
//   Diagonal regions are zero-filled outside the stored triangle (those elements are never
//   read: cp.async with src-size 0), and the column pass skips the diagonal element, so the
//   row pass (j <= i for lower) plus the column pass (j > i) is the full symmetric product.
// - Partials, deterministic, no atomics, no zeroing: W is nR vectors of ldw floats.
//   Region (p, q) writes its row sums to W[q][rows of p] and its column sums to W[p][cols of q];
//   a diagonal region (p, p) writes row + column sums to W[p][rows of p]. Each W[k][i]
//   (k < nR, i < n) is written exactly once (by region (row(i), k) if row(i) is on one side of
//   k, by (k, row(i)) on the other, by the diagonal region if equal), for lower and upper alike.
//   Pass 2 (symv_blk_sum): y_i = alpha * sum_k W[k][i] + beta * y_i (y not read if beta == 0),
//   summed in a fixed order.
//
// WORKSPACE: nR vectors of ldw floats, nR = ceil(n / SB_R), ldw = n rounded up to 32:
//   bytes = 4 * ceil(n / SB_R) * roundup(n, 32)
//   n = 16384: SB_R = 128 -> 8 MiB (128 vectors), 256 -> 4 MiB (64), 512 -> 2 MiB (32).
//   (The library's current symv uses (splits + rowtiles) * n = 65 * 16384 floats, 4.2 MB.)
//
// Compile-time parameters (-D, defaults in brackets):
//   SB_R [256]       region rows = columns; workspace vectors = ceil(n / SB_R)
//   SB_KC [16]       columns per pipeline stage (stage = SB_R * SB_KC * 4 bytes)
//   SB_STAGES [4]    pipeline depth (SB_STAGES - 1 stages in flight while one is computed)
//   SB_THREADS [256] threads per block
//   SB_MINB [3]      __launch_bounds__ min blocks per SM (caps registers at 64K / (THREADS * MINB))
//   SB_BULK [0]      1: full aligned off-diagonal regions load each column segment with one
//                    cp.async.bulk (TMA, mbarrier completion) instead of per-thread cp.async;
//                    diagonal / edge / unaligned regions keep the cp.async path
//   SB_L2PF [0]      128 or 256: add the .L2::128B / .L2::256B prefetch hint to the 16-byte cp.async
// Dynamic shared memory per block: 4 * (SB_STAGES * SB_KC * LDS + 2 * SB_R) (+ 8 * SB_STAGES
// with SB_BULK), LDS = SB_R (+ 4 * G when G < 8): 66 KiB at the defaults (3 blocks per SM).
//
// Device code is compilable alone by NVRTC (host code is under #ifndef __CUDACC_RTC__);
// kernels are extern "C": symv_blk (the sweep) and symv_blk_sum (pass 2).

#ifndef SB_R
#define SB_R 256
#endif
#ifndef SB_KC
#define SB_KC 16
#endif
#ifndef SB_STAGES
#define SB_STAGES 4
#endif
#ifndef SB_THREADS
#define SB_THREADS 256
#endif
#ifndef SB_MINB
#define SB_MINB 3
#endif
#ifndef SB_BULK
#define SB_BULK 0
#endif
#ifndef SB_L2PF
#define SB_L2PF 0
#endif

#ifndef __CUDACC_RTC__
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <cmath>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#endif

typedef long long sb_i64;

namespace sb {
constexpr int R = SB_R, KC = SB_KC, ST = SB_STAGES, NT = SB_THREADS;
constexpr int G = NT / KC;                       // column pass: threads per column
constexpr int CM = R / (4 * G);                  // column pass: float4s per thread per column
constexpr int RPT = R >= NT ? R / NT : 1;        // row pass: rows per thread
constexpr int RG = R / RPT;                      // row pass: row groups
constexpr int CS = NT / RG;                      // row pass: column slices (threads per row)
constexpr int KCS = KC / CS;                     // row pass: columns per slice per stage
constexpr int LDS = R + (G < 8 ? 4 * G : 0);     // shared column stride (floats)
constexpr int STAGE = KC * LDS;                  // floats per stage
constexpr int FPT = R * KC / 4 / NT;             // 16-byte copies per thread per stage
constexpr int SMEM_FLOATS = ST * STAGE + 2 * R;  // stages, x of the region's columns, column sums
constexpr int SMEM_BYTES = SMEM_FLOATS * 4 + (SB_BULK ? 8 * ST : 0);
static_assert(NT % 32 == 0 && NT <= 1024, "SB_THREADS: a multiple of 32, at most 1024");
static_assert(ST >= 2, "SB_STAGES >= 2");
static_assert(KC <= NT && NT % KC == 0 && G <= 32 && (G & (G - 1)) == 0, "SB_THREADS / SB_KC: a power of two <= 32");
static_assert(R % (4 * G) == 0 && R % KC == 0, "SB_R: a multiple of 4 * SB_THREADS / SB_KC and of SB_KC");
static_assert(RPT == 1 || RPT == 2 || RPT == 4, "SB_R / SB_THREADS: 1, 2 or 4 rows per thread");
static_assert(RG * CS == NT && KC % CS == 0 && KCS % 4 == 0, "row pass: column slices must split SB_KC in multiples of 4");
static_assert((R * KC / 4) % NT == 0 && R % 32 == 0, "stage copies: SB_R * SB_KC / 4 a multiple of SB_THREADS");
static_assert(CS * R <= ST * STAGE, "row-sum reduction buffer fits the stages");
// Stage copies: R / 4 float4s per column; thread t copies float4 row t % R4 of stage columns
// t / R4 + i * CPI, i < FPT.
constexpr int R4 = R / 4;
static_assert(NT % R4 == 0, "SB_THREADS: a multiple of SB_R / 4");
constexpr int CPI = NT / R4;  // columns per copy round
}  // namespace sb

// ---- copies ---------------------------------------------------------------------------
__device__ __forceinline__ unsigned sb_smem(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void sb_cp16(unsigned d, const float* s) {
#if SB_L2PF == 256
    asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;\n" ::"r"(d), "l"(s) : "memory");
#elif SB_L2PF == 128
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(d), "l"(s) : "memory");
#else
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(s) : "memory");
#endif
}
// 4 bytes, or zero-fill without reading (bytes = 0).
__device__ __forceinline__ void sb_cp4(unsigned d, const float* s, int bytes) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(d), "l"(s), "r"(bytes) : "memory");
}
__device__ __forceinline__ void sb_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void sb_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

#if SB_BULK
__device__ __forceinline__ void sb_mbar_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void sb_mbar_expect(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void sb_bulk(unsigned dst, const float* src, unsigned bytes, unsigned bar) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
                 ::"r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");
}
// Waits for the phase of the given parity to complete; traps after 2 s instead of hanging.
__device__ __forceinline__ void sb_mbar_wait(unsigned bar, unsigned parity) {
    unsigned long long t0 = 0;
    for (;;) {
        unsigned done;
        asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done) : "r"(bar), "r"(parity) : "memory");
        if (done) return;
        unsigned long long now;
        asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(now));
        if (t0 == 0) t0 = now;
        else if (now - t0 > 2000000000ull) __trap();
    }
}
#endif

// ---- one stage: row pass and column pass ------------------------------------------------
// Sk: the stage (KC columns, LDS apart); xs: x of the region's columns; cs: the column sums.
template <bool DIAG>
__device__ __forceinline__ void sb_stage(const float* Sk, const float* xs, float* cs, int k, int t,
                                         float (&racc)[2][sb::RPT], const float (&xr)[sb::CM][4]) {
    using namespace sb;
    // Row pass: rows rg * RPT .. + RPT, columns sl * KCS .. + KCS of the stage.
    {
        const int rg = t % RG, sl = t / RG;
        const float* xk = xs + k * KC + sl * KCS;
        const float* sk = Sk + sl * KCS * LDS + rg * RPT;
#pragma unroll
        for (int m = 0; m < KCS; m += 4) {
            const float4 xv = *(const float4*)(xk + m);
            const float xa[4] = {xv.x, xv.y, xv.z, xv.w};
#pragma unroll
            for (int u = 0; u < 4; u++) {
                const float* col = sk + (m + u) * LDS;
                float (&ra)[RPT] = racc[u & 1];
                if constexpr (RPT == 4) {
                    const float4 v = *(const float4*)col;
                    ra[0] = fmaf(v.x, xa[u], ra[0]);
                    ra[1] = fmaf(v.y, xa[u], ra[1]);
                    ra[2] = fmaf(v.z, xa[u], ra[2]);
                    ra[3] = fmaf(v.w, xa[u], ra[3]);
                } else if constexpr (RPT == 2) {
                    const float2 v = *(const float2*)col;
                    ra[0] = fmaf(v.x, xa[u], ra[0]);
                    ra[1] = fmaf(v.y, xa[u], ra[1]);
                } else {
                    ra[0] = fmaf(col[0], xa[u], ra[0]);
                }
            }
        }
    }
    // Column pass: column cc of the stage, rows 4 * g + 4 * G * m + e.
    {
        const int g = t % G, cc = t / G;
        const float* ck = Sk + cc * LDS + 4 * g;
        float s0 = 0.f, s1 = 0.f;
#pragma unroll
        for (int m = 0; m < CM; m++) {
            const float4 v = *(const float4*)(ck + 4 * G * m);
            const float va[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
            for (int e = 0; e < 4; e++) {
                float xe = xr[m][e];
                // The diagonal element is in the row pass already.
                if (DIAG && 4 * g + 4 * G * m + e == k * KC + cc) xe = 0.f;
                if (e & 1) s1 = fmaf(va[e], xe, s1);
                else s0 = fmaf(va[e], xe, s0);
            }
        }
        float s = s0 + s1;
#pragma unroll
        for (int d = G / 2; d > 0; d >>= 1) s += __shfl_xor_sync(0xffffffffu, s, d);
        if (g == 0) cs[k * KC + cc] = s;
    }
}

// ---- the sweep: one block per stored R x R region ---------------------------------------
// W: nR vectors of ldw floats (see WORKSPACE above). lower: 1 lower, 0 upper. aligned: A is
// 16-byte aligned and lda % 4 == 0 (16-byte copies of whole float4s).
extern "C" __global__ void __launch_bounds__(SB_THREADS, SB_MINB)
symv_blk(const float* __restrict__ A, sb_i64 lda, int n, const float* __restrict__ x, float* __restrict__ W,
         sb_i64 ldw, int lower, int aligned) {
    using namespace sb;
    extern __shared__ __align__(16) float sm[];
    float* S = sm;                // ST stages of KC columns
    float* xs = S + ST * STAGE;   // x of the region's columns
    float* cs = xs + R;           // column sums of the region
    const int t = threadIdx.x;
    const int nR = (n + R - 1) / R;
    const int noff = nR * (nR - 1) / 2;
    const int b = blockIdx.x;
    int p, q;
    if (b >= noff) {
        p = q = b - noff;
    } else {
        // b = hi * (hi - 1) / 2 + lo, lo < hi.
        int hi = (int)((1.f + sqrtf(1.f + 8.f * (float)b)) * 0.5f);
        while (hi * (hi - 1) / 2 > b) hi--;
        while ((hi + 1) * hi / 2 <= b) hi++;
        const int lo = b - hi * (hi - 1) / 2;
        if (lower) { p = hi; q = lo; } else { p = lo; q = hi; }
    }
    const sb_i64 row0 = (sb_i64)p * R, col0 = (sb_i64)q * R;
    const int nrows = (int)min((sb_i64)R, (sb_i64)n - row0);
    const int ncols = (int)min((sb_i64)R, (sb_i64)n - col0);
    const int nch = (ncols + KC - 1) / KC;
    const bool diag = p == q;
    const bool fast = aligned && !diag && nrows == R && ncols == R;

    // Stage k's copies (see R4, CPI). Outside the stored triangle or the matrix: zero-filled,
    // not read.
    const int cr = 4 * (t % R4), c0 = t / R4;
    const float* srct = A + (col0 + c0) * lda + row0 + cr;  // copy 0 of stage 0
    auto issue = [&](int k) {
        float* dst = S + (k % ST) * STAGE;
#pragma unroll
        for (int i = 0; i < FPT; i++) {
            const int c = c0 + i * CPI;
            const unsigned d = sb_smem(dst + c * LDS + cr);
            const sb_i64 gc = col0 + (sb_i64)k * KC + c, gr = row0 + cr;
            const float* src = srct + ((sb_i64)k * KC + i * CPI) * lda;
            if (fast) {
                sb_cp16(d, src);
            } else {
                bool v[4], all = true;
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    const sb_i64 rr = gr + e;
                    v[e] = rr < n && gc < n && (lower ? rr >= gc : rr <= gc);
                    all = all && v[e];
                }
                if (all && aligned) {
                    sb_cp16(d, src);
                } else {
#pragma unroll
                    for (int e = 0; e < 4; e++) sb_cp4(d + 4 * e, v[e] ? src + e : A, v[e] ? 4 : 0);
                }
            }
        }
    };
#if SB_BULK
    // Whole aligned regions: warp 0 lanes copy one column segment (R floats) each; stage s
    // completes on bars[s] (phase k / ST of it for stage k).
    unsigned long long* bars = (unsigned long long*)(cs + R);
    auto issue_bulk = [&](int k) {
        if (t < 32) {
            const unsigned bar = sb_smem(bars + k % ST);
            asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
            if (t == 0) sb_mbar_expect(bar, (unsigned)(KC * R * 4));
            __syncwarp();
            float* dst = S + (k % ST) * STAGE;
            for (int c = t; c < KC; c += 32)
                sb_bulk(sb_smem(dst + c * LDS), A + (col0 + (sb_i64)k * KC + c) * lda + row0, (unsigned)(R * 4), bar);
        }
    };
#endif

    // The first ST - 1 stages go out before x is read.
#if SB_BULK
    if (fast) {
        if (t == 0) {
            for (int s = 0; s < ST; s++) sb_mbar_init(sb_smem(bars + s), 1);
            asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        }
        __syncthreads();
        for (int s = 0; s < ST - 1; s++)
            if (s < nch) issue_bulk(s);
    } else
#endif
    {
#pragma unroll 1
        for (int s = 0; s < ST - 1; s++) {
            if (s < nch) issue(s);
            sb_commit();
        }
    }

    // x of the region's columns (shared; visible after the first stage's barrier) and of the
    // column pass's rows (registers).
    for (int c = t; c < R; c += NT) xs[c] = c < ncols ? x[col0 + c] : 0.f;
    float xr[CM][4];
    {
        const int g = t % G;
#pragma unroll
        for (int m = 0; m < CM; m++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int r = 4 * g + 4 * G * m + e;
                xr[m][e] = r < nrows ? x[row0 + r] : 0.f;
            }
    }
    float racc[2][RPT];
#pragma unroll
    for (int u = 0; u < 2; u++)
#pragma unroll
        for (int e = 0; e < RPT; e++) racc[u][e] = 0.f;

#if SB_BULK
    if (fast) {
#pragma unroll 1
        for (int k = 0; k < nch; k++) {
            sb_mbar_wait(sb_smem(bars + k % ST), (unsigned)((k / ST) & 1));
            __syncthreads();  // every thread is done with stage (k - 1) % ST, which is refilled now
            if (k + ST - 1 < nch) issue_bulk(k + ST - 1);
            sb_stage<false>(S + (k % ST) * STAGE, xs, cs, k, t, racc, xr);
        }
    } else
#endif
    {
#pragma unroll 1
        for (int k = 0; k < nch; k++) {
            sb_wait<ST - 2>();
            __syncthreads();  // stage k landed for all; every thread is done with stage (k - 1) % ST
            if (k + ST - 1 < nch) issue(k + ST - 1);
            sb_commit();
            const float* Sk = S + (k % ST) * STAGE;
            if (diag) sb_stage<true>(Sk, xs, cs, k, t, racc, xr);
            else sb_stage<false>(Sk, xs, cs, k, t, racc, xr);
        }
        sb_wait<0>();
    }
    __syncthreads();  // column sums complete; the stages are free

    // Row sums through shared memory (summing the column slices), then coalesced writes.
    float* rs = S;
    {
        const int rg = t % RG, sl = t / RG;
#pragma unroll
        for (int e = 0; e < RPT; e++) rs[sl * R + rg * RPT + e] = racc[0][e] + racc[1][e];
    }
    __syncthreads();
    for (int r = t; r < R; r += NT) {
        float v = rs[r];
#pragma unroll
        for (int c = 1; c < CS; c++) v += rs[c * R + r];
        if (diag) {
            if (r < nrows) W[(sb_i64)p * ldw + row0 + r] = v + cs[r];
        } else {
            if (r < nrows) W[(sb_i64)q * ldw + row0 + r] = v;
            if (r < ncols) W[(sb_i64)p * ldw + col0 + r] = cs[r];
        }
    }
}

// ---- pass 2: y_i = alpha * sum_k W[k][i] + beta * y_i ----------------------------------
// 256 threads: 32 outputs x 8 slices of the nv partial vectors, summed in a fixed order.
extern "C" __global__ void __launch_bounds__(256)
symv_blk_sum(const float* __restrict__ W, sb_i64 ldw, int nv, int n, float alpha, float beta, float* __restrict__ y) {
    __shared__ float red[8][33];
    const int lane = threadIdx.x & 31, ks = threadIdx.x >> 5;
    const sb_i64 i = (sb_i64)blockIdx.x * 32 + lane;
    float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
    if (i < n) {
        int k = ks;
        for (; k + 24 < nv; k += 32) {
            a0 += W[(sb_i64)k * ldw + i];
            a1 += W[(sb_i64)(k + 8) * ldw + i];
            a2 += W[(sb_i64)(k + 16) * ldw + i];
            a3 += W[(sb_i64)(k + 24) * ldw + i];
        }
        for (; k < nv; k += 8) a0 += W[(sb_i64)k * ldw + i];
    }
    red[ks][lane] = (a0 + a1) + (a2 + a3);
    __syncthreads();
    if (ks == 0 && i < n) {
        float s = red[0][lane];
#pragma unroll
        for (int j = 1; j < 8; j++) s += red[j][lane];
        y[i] = beta == 0.f ? alpha * s : fmaf(alpha, s, beta * y[i]);
    }
}

#ifndef __CUDACC_RTC__
// ======================================= host =============================================
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)
#define CB(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { printf("cuBLAS error %d at line %d\n", (int)s_, __LINE__); exit(1); } } while (0)

static size_t ws_floats(int n, sb_i64* ldw, int* nv) {
    *nv = (n + sb::R - 1) / sb::R;
    *ldw = ((sb_i64)n + 31) / 32 * 32;
    return (size_t)*nv * (size_t)*ldw;
}

static void launch_sweep(const float* A, sb_i64 lda, int n, const float* x, float* W, bool lower, cudaStream_t st) {
    sb_i64 ldw; int nv;
    ws_floats(n, &ldw, &nv);
    const int blocks = nv * (nv + 1) / 2;
    int lw = lower ? 1 : 0;
    int al = ((uintptr_t)A % 16 == 0 && lda % 4 == 0) ? 1 : 0;
    void* args[] = {(void*)&A, (void*)&lda, (void*)&n, (void*)&x, (void*)&W, (void*)&ldw, (void*)&lw, (void*)&al};
    CK(cudaLaunchKernel((const void*)symv_blk, dim3(blocks), dim3(sb::NT), args, (size_t)sb::SMEM_BYTES, st));
}
static void launch_sum(const float* W, int n, float alpha, float beta, float* y, cudaStream_t st) {
    sb_i64 ldw; int nv;
    ws_floats(n, &ldw, &nv);
    void* args[] = {(void*)&W, (void*)&ldw, (void*)&nv, (void*)&n, (void*)&alpha, (void*)&beta, (void*)&y};
    CK(cudaLaunchKernel((const void*)symv_blk_sum, dim3((n + 31) / 32), dim3(256), args, 0, st));
}
static void symv(const float* A, sb_i64 lda, int n, const float* x, float* W, bool lower, float alpha, float beta, float* y) {
    if (n <= 0) return;
    launch_sweep(A, lda, n, x, W, lower, 0);
    launch_sum(W, n, alpha, beta, y, 0);
}

template <class L>
static double med(int reps, L launch) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    std::vector<float> t;
    for (int i = 0; i < reps + 2; ++i) {
        CK(cudaEventRecord(a)); launch(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
        float ms; CK(cudaEventElapsedTime(&ms, a, b));
        if (i >= 2) t.push_back(ms);
    }
    CK(cudaEventDestroy(a)); CK(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2] * 1000.0;
}

static inline float rnd(uint64_t k) {
    k += 0x9e3779b97f4a7c15ULL;
    k ^= k >> 33; k *= 0xff51afd7ed558ccdULL; k ^= k >> 33; k *= 0xc4ceb9fe1a85ec53ULL; k ^= k >> 33;
    return (float)((double)(k >> 40) / 16777216.0 - 0.5);
}

struct Case { int n; sb_i64 lda; bool lower; float alpha, beta; bool ynan; bool timed; };

static cublasHandle_t hb;
static int fails = 0;

// Device buffers shared by the cases (grown as needed).
static float *dA = nullptr, *dx = nullptr, *dy = nullptr, *dW = nullptr;
static size_t capA = 0, capX = 0, capY = 0, capW = 0;
static const int GUARD = 64;
static const float SENT = 12345.f;

static void grow(float** p, size_t* cap, size_t need) {
    if (need <= *cap) return;
    if (*p) CK(cudaFree(*p));
    CK(cudaMalloc(p, need * sizeof(float)));
    *cap = need;
}

static void run_case(const Case& c, bool once) {
    const int n = c.n;
    const sb_i64 lda = c.lda;
    const char* ul = c.lower ? "L" : "U";
    // Host data: the stored triangle random, everything else (other triangle, rows n..lda) NaN.
    std::vector<float> hA((size_t)lda * n), hx(n), hy0(n + GUARD);
    const float qnan = std::nanf("");
    const uint64_t seed = ((uint64_t)n << 32) ^ ((uint64_t)lda << 8) ^ (c.lower ? 1 : 2);
    for (int j = 0; j < n; j++)
        for (sb_i64 i = 0; i < lda; i++) {
            const bool st = i < n && (c.lower ? i >= j : i <= j);
            hA[(size_t)j * lda + i] = st ? rnd(seed * 0x100000001b3ULL + (uint64_t)j * (uint64_t)lda + (uint64_t)i) : qnan;
        }
    for (int i = 0; i < n; i++) hx[i] = rnd(seed ^ (0xabcdULL << 40) ^ (uint64_t)i);
    for (int i = 0; i < n; i++) hy0[i] = c.ynan ? qnan : rnd(seed ^ (0x1234ULL << 40) ^ (uint64_t)i);
    for (int i = n; i < n + GUARD; i++) hy0[i] = SENT;

    sb_i64 ldw; int nv;
    const size_t wsf = ws_floats(n, &ldw, &nv);
    grow(&dA, &capA, (size_t)lda * n);
    grow(&dx, &capX, (size_t)n + GUARD);
    grow(&dy, &capY, (size_t)n + GUARD);
    grow(&dW, &capW, wsf);
    CK(cudaMemcpy(dA, hA.data(), (size_t)lda * n * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dx, hx.data(), (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    auto reset_y = [&] { CK(cudaMemcpy(dy, hy0.data(), (size_t)(n + GUARD) * sizeof(float), cudaMemcpyHostToDevice)); };
    const cublasFillMode_t fm = c.lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
    const float al = c.alpha, be = c.beta;
    auto ours = [&] { symv(dA, lda, n, dx, dW, c.lower, al, be, dy); };
    auto theirs = [&] { CB(cublasSsymv(hb, fm, n, &al, dA, (int)lda, dx, 1, &be, dy, 1)); };

    if (once) {
        reset_y(); ours(); theirs(); CK(cudaDeviceSynchronize());
        printf("once: uplo %s n %d: one symv_blk + symv_blk_sum + cublasSsymv\n", ul, n);
        return;
    }

    // CPU reference in double, from the stored triangle; ab_i = |alpha| sum_j |A_ij x_j| + |beta y_i|.
    std::vector<double> ref(n, 0.0), ab(n, 0.0);
    for (int j = 0; j < n; j++) {
        const float* col = &hA[(size_t)j * lda];
        const int i0 = c.lower ? j : 0, i1 = c.lower ? n : j + 1;
        double zj = 0.0, zaj = 0.0;
        const double xj = hx[j];
        for (int i = i0; i < i1; i++) {
            const double a = col[i];
            ref[i] += a * xj; ab[i] += std::fabs(a * xj);
            if (i != j) { zj += a * (double)hx[i]; zaj += std::fabs(a * (double)hx[i]); }
        }
        ref[j] += zj; ab[j] += zaj;
    }
    for (int i = 0; i < n; i++) {
        const double by = c.beta == 0.f ? 0.0 : (double)c.beta * hy0[i];
        ref[i] = (double)c.alpha * ref[i] + by;
        ab[i] = std::fabs((double)c.alpha) * ab[i] + std::fabs(by);
    }

    std::vector<float> got(n + GUARD), got2(n + GUARD), gotc(n + GUARD);
    reset_y(); ours(); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got.data(), dy, (size_t)(n + GUARD) * sizeof(float), cudaMemcpyDeviceToHost));
    reset_y(); ours(); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got2.data(), dy, (size_t)(n + GUARD) * sizeof(float), cudaMemcpyDeviceToHost));
    reset_y(); theirs(); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(gotc.data(), dy, (size_t)(n + GUARD) * sizeof(float), cudaMemcpyDeviceToHost));
    auto relerr = [&](const std::vector<float>& g) {
        double e = 0.0;
        for (int i = 0; i < n; i++) {
            const double d = std::fabs((double)g[i] - ref[i]) / std::max(ab[i], 1e-300);
            if (!(d <= e)) e = d;  // NaN sticks
        }
        return e;
    };
    const double err = relerr(got), errc = relerr(gotc);
    const bool det = std::memcmp(got.data(), got2.data(), (size_t)n * sizeof(float)) == 0;
    bool guard = true;
    for (int i = n; i < n + GUARD; i++) guard = guard && got[i] == SENT;
    const bool ok = err <= 1e-5 && det && guard;
    if (!ok) fails++;

    double us = 0, usw = 0, uss = 0, cu = 0;
    if (c.timed) {
        reset_y();
        us = med(20, ours);
        usw = med(20, [&] { launch_sweep(dA, lda, n, dx, dW, c.lower, 0); });
        uss = med(20, [&] { launch_sum(dW, n, al, be, dy, 0); });
        cu = med(20, theirs);
        CK(cudaGetLastError());
    }
    const double bytes = (double)n * (n + 1) / 2 * 4 + (double)n * 4 * (be == 0.f ? 2 : 3);
    char tbuf[200];
    if (c.timed)
        snprintf(tbuf, sizeof tbuf, "%8.1f us %5.3f TB/s (sweep %.1f + sum %.1f) | cuBLAS %8.1f us %5.3f TB/s | %5.3fx",
                 us, bytes / us * 1e-6, usw, uss, cu, bytes / cu * 1e-6, cu / us);
    else
        snprintf(tbuf, sizeof tbuf, "%8s                                  | cuBLAS %8s               |       ", "-", "-");
    printf("uplo %s n %6d lda %6lld %s | err %.1e (cuBLAS %.1e)%s%s%s %s\n", ul, n, (long long)lda, tbuf, err, errc,
           c.ynan ? " beta=0,y=NaN" : "", det ? "" : " NONDETERMINISTIC", guard ? "" : " GUARD-OVERWRITTEN", ok ? "ok" : "FAIL");
    fflush(stdout);
}

int main(int argc, char** argv) {
    const bool once = argc > 1 && std::strcmp(argv[1], "once") == 0;
    const int only_n = (!once && argc > 1) ? std::atoi(argv[1]) : 0;
    int dev = 0, sms = 0;
    CK(cudaSetDevice(dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dev));
    CB(cublasCreate(&hb));

    CK(cudaFuncSetAttribute((const void*)symv_blk, cudaFuncAttributeMaxDynamicSharedMemorySize, sb::SMEM_BYTES));
    CK(cudaFuncSetAttribute((const void*)symv_blk, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
    cudaFuncAttributes fa, fb;
    CK(cudaFuncGetAttributes(&fa, (const void*)symv_blk));
    CK(cudaFuncGetAttributes(&fb, (const void*)symv_blk_sum));
    int occ = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, (const void*)symv_blk, sb::NT, (size_t)sb::SMEM_BYTES));
    sb_i64 ldw; int nv;
    const size_t wsf = ws_floats(16384, &ldw, &nv);
    printf("%s, %d SMs | SB_R %d SB_KC %d SB_STAGES %d SB_THREADS %d SB_MINB %d SB_BULK %d SB_L2PF %d\n", prop.name, sms, sb::R, sb::KC,
           sb::ST, sb::NT, SB_MINB, SB_BULK, SB_L2PF);
    const int blocks16k = nv * (nv + 1) / 2;
    printf("symv_blk: %d regs, %zu B local (spill), %d B dyn smem, %d blocks/SM | symv_blk_sum: %d regs | "
           "n=16384: %d blocks (%.2f waves), workspace %d vectors, %.2f MiB\n",
           fa.numRegs, (size_t)fa.localSizeBytes, sb::SMEM_BYTES, occ, fb.numRegs, blocks16k,
           occ > 0 ? (double)blocks16k / (occ * sms) : 0.0, nv, wsf * 4.0 / 1048576.0);
    fflush(stdout);

    std::vector<Case> cases;
    if (once) {
        cases.push_back({16384, 16384, true, 1.f, 0.f, false, false});
    } else if (only_n > 0) {
        cases.push_back({only_n, only_n, true, 1.f, 0.f, false, true});
        cases.push_back({only_n, only_n, false, 1.f, 0.f, false, true});
    } else {
        // Awkward sizes, both triangles, alpha and beta not 1 / 0.
        for (int n : {1, 2, 3, 4, 5, 31, 33, 63, 65, 127, 129, 255, 257, 1000, 1025})
            for (bool lo : {true, false}) cases.push_back({n, n, lo, 1.25f, -0.5f, false, false});
        // lda > n: unaligned (lda % 4 != 0, the 4-byte copy path) and aligned; beta = 0 with y NaN.
        for (bool lo : {true, false}) {
            cases.push_back({1000, 1003, lo, 0.75f, 0.5f, false, false});
            cases.push_back({1000, 1024, lo, 0.75f, 0.5f, false, false});
            cases.push_back({129, 131, lo, -1.f, 0.f, true, false});
            cases.push_back({2 * sb::R + 1, 2 * sb::R + 8, lo, 2.f, 0.f, true, false});
            cases.push_back({4099, 4100, lo, 1.f, 1.f, false, false});
        }
        // The timed cases (beta = 0 like the library's bench), then lda % 4 != 0 at full size.
        cases.push_back({16384, 16384, true, 1.f, 0.f, false, true});
        cases.push_back({16384, 16384, false, 1.f, 0.f, false, true});
        cases.push_back({16384, 16387, true, 1.f, 0.f, false, true});
    }
    for (const Case& c : cases) run_case(c, once);
    if (!once) printf("%d case(s) failed\n", fails);
    CB(cublasDestroy(hb));
    if (dA) CK(cudaFree(dA));
    if (dx) CK(cudaFree(dx));
    if (dy) CK(cudaFree(dy));
    if (dW) CK(cudaFree(dW));
    return fails ? 1 : 0;
}
#endif
