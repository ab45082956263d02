// trsl512: one launch that solves L X = B in place for the look-ahead LU's gap (f64, left side,
// lower, op N, unit diagonal, order 512, 64..512 right-hand sides), against cublasDtrsm and a CPU
// forward substitution. Standalone:
//   nvcc -O3 -arch=sm_90 -std=c++17 trsl512bench.cu -lcublas -o trsl512bench && ./trsl512bench
// Parameters (-D): TRSL5_BC columns of B a block (multiple of 8; default 8), TRSL5_W rows a step
// (8 or 16; 16), TRSL5_NS panel slots (NS - 1 steps of prefetch; 3 where it fits, else 2),
// TRSL5_UW update warps (8), TRSL5_CPL columns a lane in the solve warps (1), TRSL5_TB rows a
// shuffle round in the diagonal solve (4); LSCALE (L's entries below the diagonal are
// uniform(-1, 1) * LSCALE; 1/512), REPS (timed runs; 20); timing probes below.
// The kernels (everything above `#ifndef __CUDACC_RTC__`) compile alone with NVRTC.
//
// Design. A block owns BC columns of B (all 512 rows) and walks the rows in steps of W. Step t:
//   solve warps (SW = BC / (32 / W) / CPL of them, a lane per (row of the step, column)):
//     x = X[step t] (already updated by the panels 0 .. t-2), x -= L[t, t-1] X[t-1] (W
//     multiply-adds in two chains), then the W x W unit-lower diagonal tile by shuffles, TB rows
//     a round (each lane solves the round's TB x TB triangle redundantly from the TB shuffled
//     values, then updates its own row with TB multiply-adds: one shuffle latency and TB FMA
//     latencies a round instead of TB of each); the result goes to shared memory (for the next
//     step) and straight to B.
//   update warps (UW of them): the rows below step t + 1 less L[rows, panel t-1] X[t-1] with
//     DMMA m8n8k4 (X kept in the accumulators: 8-row blocks dealt cyclically over the warps, the
//     block's columns in the DMMA's n; the blocks still below the step are a suffix of each
//     warp's list, so a switch picks a branch-free, k-step-outer sequence of independent DMMAs),
//     then step t+1's rows handed to the solve warps through shared memory; before that, the
//     copies of the panel NS - 1 steps ahead.
//   one __syncthreads a step (32 for W 16).
// L is streamed from global memory (L2) with cp.async, block column by block column: group g is
// L[W g .. 511, W(g-1) .. W g - 1] (the off-diagonal panel step g uses: its first W rows for the
// solve warps, the rest for the update warps) and the diagonal tile L[W g .., W g ..]; NS slots,
// group t + NS - 1 issued at the start of step t and waited for at the end of step t + NS - 2.
// Nothing on or above L's diagonal is used (the diagonal tiles are copied whole, but only their
// strict lower part is read). Each block reads about 1.1 MB of L.
// Shared memory: NS panels (W x 500 doubles), NS diagonal tiles, X (BC x 516 doubles):
// W 16, BC 8: NS 2 169,216 bytes, NS 3 231,168 (the most a block may have is 232,448);
// W 16, BC 16, NS 2: 198,144.

#ifndef TRSL5_N
#define TRSL5_N 512
#endif
#ifndef TRSL5_BC
#define TRSL5_BC 8
#endif
#ifndef TRSL5_W
#define TRSL5_W 16
#endif
#ifndef TRSL5_NS
#define TRSL5_NS (TRSL5_BC * TRSL5_W <= 128 ? 3 : 2)  // 3 fits in 227 KB with BC 8 and W 16
#endif
#ifndef TRSL5_UW
#define TRSL5_UW 8
#endif
#ifndef TRSL5_CPL
#define TRSL5_CPL 1
#endif
#ifndef TRSL5_TB
#define TRSL5_TB 4
#endif
// For timing only (the results are then wrong): TRSL5_NOUPD drops the update warps' DMMAs,
// TRSL5_NOSOLVE the solve warps' product and diagonal solve, TRSL5_NOSTREAM the copies of the
// panels after the first (the steps read stale shared memory).
#ifndef TRSL5_NOUPD
#define TRSL5_NOUPD 0
#endif
#ifndef TRSL5_NOSOLVE
#define TRSL5_NOSOLVE 0
#endif
#ifndef TRSL5_NOSTREAM
#define TRSL5_NOSTREAM 0
#endif
// TRSL5_CLOCK=1: block 0 records clock64() at each step's start, the end of its solve (warp 0),
// the end of its update and of its wait for the next panel (the first update warp); the host
// prints the sums (=2: and every step).
#ifndef TRSL5_CLOCK
#define TRSL5_CLOCK 0
#endif

namespace t5 {
constexpr int N = TRSL5_N, BC = TRSL5_BC, W = TRSL5_W, NS = TRSL5_NS, UW = TRSL5_UW;
constexpr int CPL = TRSL5_CPL, TB = TRSL5_TB;
constexpr int T = N / W;                          // steps
constexpr int LG = 32 / W;                        // columns (lane groups) a solve warp
constexpr int SW = BC / (LG * CPL);               // solve warps
constexpr int WARPS = SW + UW, THREADS = WARPS * 32, UT = UW * 32;
constexpr int NB = BC / 8;                        // DMMA column blocks
constexpr int RBW = N / 8 / UW;                   // 8-row blocks an update warp owns
constexpr int PS = ((N - W - 4 + 15) / 16) * 16 + 4;  // panel column stride, = 4 mod 16
constexpr int XR = ((N - 4 + 15) / 16) * 16 + 4;      // X column stride, = 4 mod 16
constexpr int PSZ = W * PS, DSZ = W * W;
constexpr int SMEM = (NS * PSZ + NS * DSZ + BC * XR) * 8;
static_assert(W == 8 || W == 16, "W: 8 or 16");
static_assert(N % W == 0 && N % (8 * UW) == 0, "N");
static_assert(BC % 8 == 0 && BC % (LG * CPL) == 0 && SW >= 1, "BC");
static_assert(W % TB == 0 && TB >= 1, "TB");
static_assert(NS >= 2 && NS <= 8, "NS");
static_assert(PS >= N - W && XR >= N, "strides");
static_assert(SMEM <= 232448, "shared memory: more than 227 KB (try NS 2, or W 8)");
}  // namespace t5

struct T5Args {
    const double* A;  // L: the triangle's top left, column-major
    long long lda;
    double* B;        // B (in place), N rows
    long long ldb;
    int nrhs;
};

#if TRSL5_CLOCK
__device__ long long t5_clk[4][t5::T];
#define T5_CLK(i, t) (blockIdx.x == 0 && lane == 0 ? (void)(t5_clk[i][t] = clock64()) : (void)0)
#else
#define T5_CLK(i, t) ((void)0)
#endif

namespace t5 {
// Asynchronous copy of CW bytes (16: bypassing L1, needs 16-byte aligned addresses; 8: any).
template <int CW> __device__ __forceinline__ void cp_async(double* dst, const double* src) {
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    if constexpr (CW == 16) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(src) : "memory");
    else asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(s), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int K> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(K) : "memory"); }

// D += A B, 8x8x4 in f64 on the tensor cores. Lane l holds A[l/4][l%4], B[l%4][l/4] and
// D[l/4][2(l%4) + {0, 1}].
__device__ __forceinline__ void dmma(double& d0, double& d1, double a, double b) {
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};" : "+d"(d0), "+d"(d1) : "d"(a), "d"(b));
}

// Group g's copies, by update thread ut: the off-diagonal panel L[W g .. N-1, W(g-1) .. W g-1]
// (g >= 1) into panel slot g % NS (row W g at offset 0) and the diagonal tile L[W g .., W g ..]
// into tile slot g % NS.
template <int CW>
__device__ __forceinline__ void issue_group(int g, const double* A, long long lda, double* P, double* D, int ut) {
    constexpr int E = CW / 8;
    const int slot = g % NS;
    if (g >= 1) {
        const int r0 = W * g, per = (N - r0) / E;
        double* dst = P + slot * PSZ;
        const double* src = A + r0 + (long long)(W * (g - 1)) * lda;
#pragma unroll 1
        for (int j = 0; j < W; j++)
            for (int e = ut; e < per; e += UT) cp_async<CW>(dst + j * PS + e * E, src + j * lda + e * E);
    }
    constexpr int per = W / E;
    double* dst = D + slot * DSZ;
    const double* src = A + W * g + (long long)(W * g) * lda;
    for (int q = ut; q < W * per; q += UT) {
        const int j = q / per, e = q % per;
        cp_async<CW>(dst + j * W + e * E, src + j * lda + e * E);
    }
}

// Step t of a solve warp: rows W t .. W t + W - 1 of its columns.
__device__ __forceinline__ void solve_step(int t, int sw, int lane, double* Xs, const double* P, const double* D,
                                           double* B, long long ldb, int c0, int nv) {
    const int r = lane % W, grp = lane / W;
    int col[CPL];
    double x[CPL];
#pragma unroll
    for (int q = 0; q < CPL; q++) {
        col[q] = (sw * LG + grp) * CPL + q;
        x[q] = Xs[col[q] * XR + W * t + r];
    }
    if (t > 0 && !TRSL5_NOSOLVE) {
        // x -= L[W t + r, W(t-1) ..] X[W(t-1) .., col]: the last panel's part of this step.
        const double* Pp = P + (t % NS) * PSZ;
        double a0[CPL], a1[CPL];
#pragma unroll
        for (int q = 0; q < CPL; q++) a0[q] = a1[q] = 0.0;
#pragma unroll
        for (int k = 0; k < W; k += 2) {
            const double l0 = Pp[k * PS + r], l1 = Pp[(k + 1) * PS + r];
#pragma unroll
            for (int q = 0; q < CPL; q++) {
                const double* xc = Xs + col[q] * XR + W * (t - 1) + k;
                a0[q] = __fma_rn(l0, xc[0], a0[q]);
                a1[q] = __fma_rn(l1, xc[1], a1[q]);
            }
        }
#pragma unroll
        for (int q = 0; q < CPL; q++) x[q] -= a0[q] + a1[q];
    }
    // The diagonal tile (column-major, W x W; only its strict lower part is read), TB rows a
    // round: the round's TB values shuffled at once, its TB x TB triangle solved in every lane,
    // then each later row updated with the TB solved values.
    const double* Dp = D + (t % NS) * DSZ;
#pragma unroll
    for (int k0 = 0; k0 < (TRSL5_NOSOLVE ? 0 : W); k0 += TB) {
        double xs[TB][CPL];
#pragma unroll
        for (int j = 0; j < TB; j++)
#pragma unroll
            for (int q = 0; q < CPL; q++) xs[j][q] = __shfl_sync(0xffffffffu, x[q], k0 + j, W);
#pragma unroll
        for (int j = 1; j < TB; j++)
#pragma unroll
            for (int i = 0; i < j; i++) {
                const double m = Dp[(k0 + i) * W + k0 + j];
#pragma unroll
                for (int q = 0; q < CPL; q++) xs[j][q] = __fma_rn(-m, xs[i][q], xs[j][q]);
            }
        double lr[TB];
#pragma unroll
        for (int j = 0; j < TB; j++) lr[j] = Dp[(k0 + j) * W + r];  // used only where r >= k0 + TB
#pragma unroll
        for (int q = 0; q < CPL; q++) {
            double y = x[q];
#pragma unroll
            for (int j = 0; j < TB; j++) y = __fma_rn(-lr[j], xs[j][q], y);
            double v = r >= k0 + TB ? y : x[q];
#pragma unroll
            for (int j = 0; j < TB; j++)
                if (r == k0 + j) v = xs[j][q];
            x[q] = v;
        }
    }
#pragma unroll
    for (int q = 0; q < CPL; q++) {
        Xs[col[q] * XR + W * t + r] = x[q];
        const int c = c0 + col[q];
        if (c < nv) B[W * t + r + (long long)c * ldb] = x[q];
    }
}

// The update warps' product for their 8-row blocks J0 .. RBW-1 (those still below the step),
// without branches between the DMMAs: k-step outer, row blocks inner, so that consecutive DMMAs
// are independent. Pa: the lane's A fragment of row block 0, k-step 0.
template <int J0>
__device__ __forceinline__ void upd_rows(double (&acc)[RBW][NB][2], const double* Pa, const double (&bf)[W / 4][NB]) {
#pragma unroll
    for (int kk = 0; kk < W / 4; kk++) {
        double a[RBW];
#pragma unroll
        for (int j = J0; j < RBW; j++) a[j] = Pa[4 * kk * PS + 8 * UW * j];
#pragma unroll
        for (int j = J0; j < RBW; j++)
#pragma unroll
            for (int nb = 0; nb < NB; nb++) dmma(acc[j][nb][0], acc[j][nb][1], a[j], bf[kk][nb]);
    }
}
template <int J>
__device__ __forceinline__ void upd_dispatch(int jlo, double (&acc)[RBW][NB][2], const double* Pa, const double (&bf)[W / 4][NB]) {
    if constexpr (J < RBW) {
        if (jlo <= J) upd_rows<J>(acc, Pa, bf);
        else upd_dispatch<J + 1>(jlo, acc, Pa, bf);
    }
}

// Step t of update warp u (it owns the 8-row blocks u + UW j): the rows from W(t+1) on less
// L[.., panel t-1] X[panel t-1, ..], then the rows of step t + 1 to shared memory for the solve
// warps.
__device__ __forceinline__ void update_step(int t, int u, int lane, double (&acc)[RBW][NB][2], double* Xs, const double* P) {
    const int g = lane >> 2, q = lane & 3;
    if (t < 1) return;  // step 0: nothing solved yet; step 1's rows are B's as loaded
    const double* Pp = P + (t % NS) * PSZ;  // rows from W t of the block column t - 1
    double bf[W / 4][NB];
#pragma unroll
    for (int kk = 0; kk < W / 4; kk++)
#pragma unroll
        for (int nb = 0; nb < NB; nb++) bf[kk][nb] = -Xs[(8 * nb + g) * XR + W * (t - 1) + 4 * kk + q];
    const int lo = W * (t + 1) / 8, hi = W * (t + 2) / 8;  // 8-row blocks: first updated; first after step t + 1
    const int jlo = lo <= u ? 0 : (lo - u + UW - 1) / UW;  // first of this warp's blocks updated
    if (!TRSL5_NOUPD) upd_dispatch<0>(jlo, acc, Pp + q * PS + 8 * u - W * t + g, bf);
#pragma unroll
    for (int j = 0; j < RBW; j++) {
        const int rb = u + UW * j;
        if (rb >= lo && rb < hi)
#pragma unroll
            for (int nb = 0; nb < NB; nb++)
#pragma unroll
                for (int i = 0; i < 2; i++) Xs[(8 * nb + 2 * q + i) * XR + 8 * rb + g] = acc[j][nb][i];
    }
}

template <int CW>
__device__ __forceinline__ void trsl512(const T5Args& a) {
    extern __shared__ __align__(16) double sm[];
    double* P = sm;             // NS panels
    double* D = P + NS * PSZ;   // NS diagonal tiles
    double* Xs = D + NS * DSZ;  // the block's columns of X
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int c0 = blockIdx.x * BC, nv = a.nrhs;
    const double* A = a.A;
    double* B = a.B;
    const long long lda = a.lda, ldb = a.ldb;
    double acc[RBW][NB][2];
    if (warp >= SW) {
        const int ut = threadIdx.x - SW * 32;
        constexpr int E = CW / 8, per = N / E;
        for (int c = 0; c < BC; c++) {
            if (c0 + c < nv) {
                for (int e = ut; e < per; e += UT) cp_async<CW>(Xs + c * XR + e * E, B + (long long)(c0 + c) * ldb + e * E);
            } else {
                for (int e = ut; e < N; e += UT) Xs[c * XR + e] = 0.0;
            }
        }
        issue_group<CW>(0, A, lda, P, D, ut);
        cp_commit();
        for (int g = 1; g <= NS - 2; g++) {
            issue_group<CW>(g, A, lda, P, D, ut);
            cp_commit();
        }
        cp_wait<NS - 2>();
    }
    __syncthreads();
    if (warp >= SW) {
        const int u = warp - SW, g = lane >> 2, q = lane & 3;
#pragma unroll
        for (int j = 0; j < RBW; j++) {
            const int rb = u + UW * j;
#pragma unroll
            for (int nb = 0; nb < NB; nb++)
#pragma unroll
                for (int i = 0; i < 2; i++)
                    acc[j][nb][i] = rb >= 2 * W / 8 ? Xs[(8 * nb + 2 * q + i) * XR + 8 * rb + g] : 0.0;
        }
    }
#pragma unroll 1
    for (int t = 0; t < T; t++) {
        if (warp < SW) {
            if (warp == 0) T5_CLK(0, t);
            solve_step(t, warp, lane, Xs, P, D, B, ldb, c0, nv);
            if (warp == 0) T5_CLK(1, t);
        } else {
            const int ut = threadIdx.x - SW * 32;
            if (t + NS - 1 < T && !TRSL5_NOSTREAM) issue_group<CW>(t + NS - 1, A, lda, P, D, ut);
            cp_commit();
            update_step(t, warp - SW, lane, acc, Xs, P);
            if (warp == SW) T5_CLK(2, t);
            cp_wait<NS - 2>();  // group t + 1 has arrived
            if (warp == SW) T5_CLK(3, t);
        }
        __syncthreads();
    }
}
}  // namespace t5

// 16-byte copies (lda, ldb even and both bases 16-byte aligned), 8-byte copies otherwise.
extern "C" __global__ void __launch_bounds__(t5::THREADS, 1) trsl512_v16(T5Args a) { t5::trsl512<16>(a); }
extern "C" __global__ void __launch_bounds__(t5::THREADS, 1) trsl512_v8(T5Args a) { t5::trsl512<8>(a); }

#ifndef __CUDACC_RTC__
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#ifndef LSCALE
#define LSCALE (1.0 / 512)
#endif
#ifndef REPS
#define REPS 20
#endif

#define CK(x)                                                                                       \
    do {                                                                                            \
        cudaError_t e_ = (x);                                                                       \
        if (e_ != cudaSuccess) {                                                                    \
            printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));              \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)
#define CB(x)                                                                                       \
    do {                                                                                            \
        cublasStatus_t s_ = (x);                                                                    \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                          \
            printf("%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #x, (int)s_);               \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)

// uniform(-1, 1) from an index (splitmix64)
static double urand(uint64_t i) {
    uint64_t z = i * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static float median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main() {
    using namespace t5;
    const int n = 8192, nb = N;  // the matrix, the triangle's order
    const long long ld = n;
    const size_t elems = (size_t)n * n;
    printf("trsl512: N %d BC %d W %d NS %d UW %d CPL %d TB %d: %d solve + %d update warps, %d threads, %d B shared, LSCALE %g\n",
           N, BC, W, NS, UW, CPL, TB, SW, UW, THREADS, SMEM, (double)LSCALE);
    if (TRSL5_NOUPD || TRSL5_NOSOLVE || TRSL5_NOSTREAM)
        printf("timing probe: NOUPD %d NOSOLVE %d NOSTREAM %d (results wrong, FAIL expected)\n", TRSL5_NOUPD, TRSL5_NOSOLVE,
               TRSL5_NOSTREAM);

    // The matrix: L (unit lower, entries below the diagonal uniform(-1,1) * LSCALE) in the top left,
    // NaN on and above its diagonal (must not be read), everything else uniform(-1, 1).
    std::vector<double> H(elems);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            const size_t k = (size_t)i + (size_t)j * ld;
            H[k] = (i < nb && j < nb) ? (i > j ? urand(k) * LSCALE : NAN) : urand(k);
        }
    double *dM, *dSave;
    CK(cudaMalloc(&dM, elems * 8));
    CK(cudaMalloc(&dSave, (size_t)nb * 512 * 8));
    CK(cudaMemcpy(dM, H.data(), elems * 8, cudaMemcpyHostToDevice));
    double* dA12 = dM + (size_t)nb * ld;
    CK(cudaMemcpy2D(dSave, nb * 8, dA12, ld * 8, nb * 8, 512, cudaMemcpyDeviceToDevice));
    auto restore = [&](int cols) {
        CK(cudaMemcpy2DAsync(dA12, ld * 8, dSave, nb * 8, nb * 8, cols, cudaMemcpyDeviceToDevice, 0));
    };

    // Reference: forward substitution in double, 512 columns.
    std::vector<double> Xref((size_t)nb * 512);
    for (int v = 0; v < 512; v++) {
        double* x = &Xref[(size_t)v * nb];
        for (int i = 0; i < nb; i++) x[i] = H[(size_t)i + (size_t)(nb + v) * ld];
        for (int k = 0; k < nb; k++) {
            const double xk = x[k];
            const double* l = &H[(size_t)k * ld];
            for (int i = k + 1; i < nb; i++) x[i] -= l[i] * xk;
        }
    }
    // max over columns of max |x - ref| / max |ref|
    auto relerr = [&](const double* X, long long ldx, int cols) {
        double e = 0;
        for (int v = 0; v < cols; v++) {
            double d = 0, m = 0;
            for (int i = 0; i < nb; i++) {
                const double r = Xref[(size_t)v * nb + i], x = X[(size_t)i + (size_t)v * ldx];
                d = std::max(d, std::fabs(x - r));
                if (std::isnan(x)) d = INFINITY;
                m = std::max(m, std::fabs(r));
            }
            e = std::max(e, d / m);
        }
        return e;
    };

    const bool al16 = ld % 2 == 0 && (uintptr_t)dM % 16 == 0;
    void (*kern)(T5Args) = al16 ? trsl512_v16 : trsl512_v8;
    CK(cudaFuncSetAttribute((const void*)kern, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, (const void*)kern));
    printf("kernel %s: %d registers, %zu bytes local (spills), %zu bytes static shared, max %d threads\n",
           al16 ? "trsl512_v16" : "trsl512_v8", fa.numRegs, (size_t)fa.localSizeBytes, (size_t)fa.sharedSizeBytes,
           fa.maxThreadsPerBlock);
    if (fa.localSizeBytes) printf("WARNING: local memory in use (register spills)\n");

    cublasHandle_t h;
    CB(cublasCreate(&h));
    const double one = 1.0;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<double> R(elems), Rc((size_t)nb * 512);

    const int cases[] = {64, 128, 512};
    for (int nrhs : cases) {
        const T5Args args = {dM, ld, dA12, ld, nrhs};
        const int grid = (nrhs + BC - 1) / BC;
        auto launch = [&]() { kern<<<grid, THREADS, SMEM>>>(args); };
        auto cublas = [&]() {
            CB(cublasDtrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, nb, nrhs, &one, dM,
                           (int)ld, dA12, (int)ld));
        };

        // Correctness: the whole matrix back; A12's columns against the reference, everything
        // else bit for bit against what was uploaded (NaN poison included).
        restore(512);
        launch();
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(R.data(), dM, elems * 8, cudaMemcpyDeviceToHost));
        const double err = relerr(&R[(size_t)nb * ld], ld, nrhs);
        size_t changed = 0;
        for (int j = 0; j < n; j++) {
            const bool inB = j >= nb && j < nb + nrhs;
            const size_t off = (size_t)j * ld + (inB ? nb : 0), cnt = inB ? n - nb : n;
            if (memcmp(&R[off], &H[off], cnt * 8) == 0) continue;
            for (size_t i = 0; i < cnt; i++)
                if (memcmp(&R[off + i], &H[off + i], 8)) changed++;
        }
        restore(512);
        cublas();
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy2D(Rc.data(), nb * 8, dA12, ld * 8, nb * 8, nrhs, cudaMemcpyDeviceToHost));
        const double errc = relerr(Rc.data(), nb, nrhs);

        // Times: medians of REPS single runs between events (A12 restored before each, outside
        // the events), and REPS launches back to back (solving again in place) over REPS.
        std::vector<float> ts, tc;
        float ms;
        for (int it = 0; it < REPS + 3; it++) {
            restore(nrhs);
            CK(cudaEventRecord(e0));
            launch();
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (it >= 3) ts.push_back(ms * 1000);
        }
        CK(cudaGetLastError());
        restore(nrhs);
        CK(cudaEventRecord(e0));
        for (int it = 0; it < REPS; it++) launch();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        const float b2b = ms * 1000 / REPS;
#if TRSL5_CLOCK
        {
            // block 0 of the last back-to-back run (L in L2)
            long long clk[4][T];
            CK(cudaMemcpyFromSymbol(clk, t5_clk, sizeof clk));
            long long sol = 0, upd = 0, wt = 0;
            for (int t = 0; t < T; t++) {
                const long long st = (t + 1 < T ? clk[0][t + 1] : clk[3][t]) - clk[0][t];
                sol += clk[1][t] - clk[0][t];
                upd += clk[2][t] - clk[0][t];
                wt += clk[3][t] - clk[2][t];
                if (TRSL5_CLOCK > 1)
                    printf("  step %2d: %6lld cycles; solve %6lld, update %6lld, then wait %6lld\n", t, st,
                           clk[1][t] - clk[0][t], clk[2][t] - clk[0][t], clk[3][t] - clk[2][t]);
            }
            printf("nrhs %3d block 0: steps %lld cycles (from step 0's start); sums: solve %lld, update %lld, wait for copies %lld\n",
                   nrhs, clk[3][T - 1] - clk[0][0], sol, upd, wt);
        }
#endif
        for (int it = 0; it < REPS + 3; it++) {
            restore(nrhs);
            CK(cudaEventRecord(e0));
            cublas();
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (it >= 3) tc.push_back(ms * 1000);
        }
        restore(nrhs);
        CK(cudaEventRecord(e0));
        for (int it = 0; it < REPS; it++) cublas();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        const float b2bc = ms * 1000 / REPS;
        CK(cudaDeviceSynchronize());
        printf("nrhs %3d (grid %3d): trsl512 %7.2f us (b2b %7.2f)  cuBLAS %7.2f us (b2b %7.2f)  max rel err %.2e "
               "(cuBLAS %.2e)  changed outside A12: %zu  %s\n",
               nrhs, grid, median(ts), b2b, median(tc), b2bc, err, errc, changed,
               err < 1e-12 && changed == 0 ? "ok" : "FAIL");
    }
    CB(cublasDestroy(h));
    CK(cudaFree(dM));
    CK(cudaFree(dSave));
    return 0;
}
#endif
