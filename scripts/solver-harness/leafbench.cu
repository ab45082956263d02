// The blocked Cholesky's leaf kernels (sol_cholx_*, sol_trsolve_*) outside the library: checks
// against plain f64 loops and median times. Standalone, nvcc:
//   nvcc -O3 -arch=sm_90 -std=c++17 -DSOLVER_SRC='"chol_cur.cu"' leafbench.cu -o leaf && ./leaf
// (`leafbench.sh` builds the working tree's chol.cu and a saved older copy side by side.)
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <algorithm>
#include <random>
#include <cuda_runtime.h>
#include "../../crates/gpublas/kernels/complex_div.cuh"
#include "../../crates/gpublas/kernels/lapack.cuh"
// SOLVER_SRC: a copy of kernels/chol.cu, or (-DOLD_MONOLITHIC) of an older solver.cu that held
// the Cholesky kernels and `Sol` itself.
#ifndef OLD_MONOLITHIC
#include "../../crates/gpublas/kernels/solver.cuh"
#endif
#include SOLVER_SRC

// Only the kernels timed here (the library's family define would build all of solver.cu).
// -DLEAF_OLD: the leaf as `cholp`'s factor with the update (before cholx).
#ifdef LEAF_OLD
#define LEAF_THREADS 256
extern "C" __global__ void __launch_bounds__(256) sol_cholx_s(Sol j) { cholp<float, 8, true>(j); }
extern "C" __global__ void __launch_bounds__(256) sol_cholx_d(Sol j) { cholp<double, 8, true>(j); }
#else
#define LEAF_THREADS 288
extern "C" __global__ void __launch_bounds__(288) sol_cholx_s(Sol j) { cholx<float>(j); }
extern "C" __global__ void __launch_bounds__(288) sol_cholx_d(Sol j) { cholx<double>(j); }
#endif
extern "C" __global__ void __launch_bounds__(256) sol_trsolve_s(Sol j) { trsolve<float>(j); }
extern "C" __global__ void __launch_bounds__(256) sol_trsolve_d(Sol j) { trsolve<double>(j); }

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA error %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)

template <class L, class R>
static double med(int reps, R reset, L launch) {
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    std::vector<float> t;
    for (int i = 0; i < reps + 2; ++i) {
        reset(); CK(cudaDeviceSynchronize());
        cudaEventRecord(a); launch(); cudaEventRecord(b); CK(cudaEventSynchronize(b));
        CK(cudaGetLastError());
        float ms; cudaEventElapsedTime(&ms, a, b); if (i >= 2) t.push_back(ms);
    }
    std::sort(t.begin(), t.end()); return t[t.size() / 2] * 1000.0;  // us
}

// S = M Mᵀ / n + I (SPD), column-major n × n.
static std::vector<double> spd(int n, std::mt19937_64& g) {
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> m((size_t)n * n), s((size_t)n * n);
    for (auto& x : m) x = u(g);
    for (int i = 0; i < n; ++i) for (int k = 0; k < n; ++k) {
        double t = 0; for (int p = 0; p < n; ++p) t += m[i + p * n] * m[k + p * n];
        s[i + k * n] = t / n + (i == k ? 1.0 : 0.0);
    }
    return s;
}

template <class T> struct Tag;
template <> struct Tag<double> { static constexpr const char* s = "d"; };
template <> struct Tag<float> { static constexpr const char* s = "s"; };

// One leaf of order n in a matrix with leading dimension ld: A's stored triangle = S + Q Qᵀ,
// the update square (ld 128) = −Q Qᵀ, so the factor is S's. The other triangle holds NaN and
// must stay NaN. `bad` >= 0: S's leading minor of order bad + 1 is made indefinite.
template <class T>
static void leaf(int n, bool lower, bool upd, int bad, int reps, std::mt19937_64& g, bool time) {
    const int ld = 8192;
    std::vector<double> S = spd(n, g), Qq((size_t)n * n, 0.0);
    if (bad >= 0) S[bad + (size_t)bad * n] = -1.0;
    if (upd) {
        std::uniform_real_distribution<double> u(-1, 1);
        std::vector<double> q((size_t)n * 40);
        for (auto& x : q) x = u(g);
        for (int i = 0; i < n; ++i) for (int k = 0; k < n; ++k) {
            double t = 0; for (int p = 0; p < 40; ++p) t += q[i + p * n] * q[k + p * n];
            Qq[i + k * n] = t;
        }
    }
    std::vector<T> hA((size_t)ld * n, (T)NAN), hU((size_t)128 * 128, (T)NAN);
    for (int i = 0; i < n; ++i) for (int k = 0; k <= i; ++k) {
        const T v = (T)(S[i + k * n] + Qq[i + k * n]);
        if (lower) hA[i + (size_t)k * ld] = v; else hA[k + (size_t)i * ld] = v;
        hU[i + k * 128] = (T)(-Qq[i + k * n]);
    }
    T *A, *A0, *U; int* info;
    CK(cudaMalloc(&A, hA.size() * sizeof(T))); CK(cudaMalloc(&A0, hA.size() * sizeof(T)));
    CK(cudaMalloc(&U, hU.size() * sizeof(T))); CK(cudaMalloc(&info, 4));
    CK(cudaMemcpy(A0, hA.data(), hA.size() * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(U, hU.data(), hU.size() * sizeof(T), cudaMemcpyHostToDevice));
    Sol j{}; j.a = (u64)A; j.ld = ld; j.cols = n; j.lower = lower; j.info = (u64)info; j.info_s = 1; j.ne = 1; j.k0 = 0;
    if (upd) { j.u = (u64)U; j.uld = 128; }
    auto reset = [&] { cudaMemcpy(A, A0, hA.size() * sizeof(T), cudaMemcpyDeviceToDevice); cudaMemset(info, 0, 4); };
    auto launch = [&] { if (sizeof(T) == 8) sol_cholx_d<<<1, LEAF_THREADS>>>(j); else sol_cholx_s<<<1, LEAF_THREADS>>>(j); };
    const double us = time ? med(reps, reset, launch) : 0.0;
    reset(); launch(); CK(cudaDeviceSynchronize());
    std::vector<T> out(hA.size()); int hinfo;
    CK(cudaMemcpy(out.data(), A, out.size() * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&hinfo, info, 4, cudaMemcpyDeviceToHost));
    // ‖L Lᵀ − S‖_max / ‖S‖_max over the factored columns; the other triangle still NaN.
    const int nf = bad >= 0 ? bad : n;
    auto Lf = [&](int i, int k) -> double { return lower ? out[i + (size_t)k * ld] : out[k + (size_t)i * ld]; };
    double err = 0, smax = 0; long other = 0;
    for (int i = 0; i < nf; ++i) for (int k = 0; k <= i; ++k) {
        double t = 0; for (int p = 0; p <= k; ++p) t += Lf(i, p) * Lf(k, p);
        err = std::max(err, std::fabs(t - S[i + k * n])); smax = std::max(smax, std::fabs(S[i + k * n]));
    }
    for (int i = 0; i < n; ++i) for (int k = i + 1; k < n; ++k) {
        const T v = lower ? out[i + (size_t)k * ld] : out[k + (size_t)i * ld];
        if (!std::isnan((double)v)) ++other;
    }
    const double rel = err / smax / (sizeof(T) == 8 ? 1.1e-16 : 6e-8) / n;
    const bool ok = !(rel > 30) && other == 0 && hinfo == (bad >= 0 ? bad + 1 : 0);
    printf("cholx_%s n=%3d %s upd=%d bad=%4d: %7.2f us  err/(n eps) %.3f  info %d  other-triangle writes %ld  %s\n",
           Tag<T>::s, n, lower ? "L" : "U", upd, bad, us, rel, hinfo, other, ok ? "ok" : "FAIL");
    cudaFree(A); cudaFree(A0); cudaFree(U); cudaFree(info);
}

// The panel of `rows` vectors beside a factor of order n: X Lᵀ = B (lower: rows of A21; upper:
// columns of A12, L = Uᵀ); the factor shares the matrix's leading dimension.
template <class T>
static void panel(int rows, int n, bool lower, int reps, std::mt19937_64& g, bool time) {
    const int ld = 8192 + 128;
    std::vector<double> S = spd(n, g), Lh((size_t)n * n, 0.0);
    for (int k = 0; k < n; ++k) {  // plain Cholesky of S
        double d = S[k + k * n]; for (int p = 0; p < k; ++p) d -= Lh[k + p * n] * Lh[k + p * n];
        Lh[k + k * n] = std::sqrt(d);
        for (int i = k + 1; i < n; ++i) {
            double t = S[i + k * n]; for (int p = 0; p < k; ++p) t -= Lh[i + p * n] * Lh[k + p * n];
            Lh[i + k * n] = t / Lh[k + k * n];
        }
    }
    std::uniform_real_distribution<double> u(-1, 1);
    // The factor at (0, 0), the vectors at (n, 0) (lower) or (0, n) (upper); size ld × ld/.. .
    const size_t cols = lower ? n : (size_t)n + rows;
    std::vector<T> h((size_t)ld * cols, (T)NAN);
    for (int i = 0; i < n; ++i) for (int k = 0; k <= i; ++k) {
        if (lower) h[i + (size_t)k * ld] = (T)Lh[i + k * n]; else h[k + (size_t)i * ld] = (T)Lh[i + k * n];
    }
    std::vector<double> B((size_t)rows * n);
    for (int v = 0; v < rows; ++v) for (int k = 0; k < n; ++k) {
        const T x = (T)u(g); B[v + (size_t)k * rows] = x;
        if (lower) h[(n + v) + (size_t)k * ld] = x; else h[k + (size_t)(n + v) * ld] = x;
    }
    T *A, *A0;
    CK(cudaMalloc(&A, h.size() * sizeof(T))); CK(cudaMalloc(&A0, h.size() * sizeof(T)));
    CK(cudaMemcpy(A0, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    Sol j{}; j.ld = ld; j.rows = rows; j.cols = n; j.lower = lower; j.ne = 1;
    j.w = (u64)A; j.a = lower ? (u64)(A + n) : (u64)(A + (size_t)n * ld);
    const int smem = (128 * 129 + 128 * 65 + 128) * sizeof(T);
    if (sizeof(T) == 8) CK(cudaFuncSetAttribute(sol_trsolve_d, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    else CK(cudaFuncSetAttribute(sol_trsolve_s, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    dim3 grid((rows + 63) / 64, 1);
    auto reset = [&] { cudaMemcpy(A, A0, h.size() * sizeof(T), cudaMemcpyDeviceToDevice); };
    auto launch = [&] {
        if (sizeof(T) == 8) sol_trsolve_d<<<grid, 256, smem>>>(j); else sol_trsolve_s<<<grid, 256, smem>>>(j);
    };
    const double us = time ? med(reps, reset, launch) : 0.0;
    reset(); launch(); CK(cudaDeviceSynchronize());
    std::vector<T> out(h.size());
    CK(cudaMemcpy(out.data(), A, out.size() * sizeof(T), cudaMemcpyDeviceToHost));
    // ‖X Lᵀ − B‖_max / (‖X‖ ‖L‖ n eps); the factor and everything else unchanged.
    double err = 0, xm = 0, lm = 0; long changed = 0;
    for (int v = 0; v < rows; ++v) for (int k = 0; k < n; ++k) {
        double t = 0;
        for (int p = 0; p <= k; ++p) {
            const double x = lower ? out[(n + v) + (size_t)p * ld] : out[p + (size_t)(n + v) * ld];
            t += x * Lh[k + p * n];
            xm = std::max(xm, std::fabs(x));
        }
        err = std::max(err, std::fabs(t - B[v + (size_t)k * rows]));
    }
    for (int i = 0; i < n * n; ++i) lm = std::max(lm, std::fabs(Lh[i]));
    for (size_t i = 0; i < h.size(); ++i) {
        const size_t r = i % ld, c = i / ld;
        const bool vec = lower ? (r >= (size_t)n && r < (size_t)n + rows && c < (size_t)n) : (c >= (size_t)n && r < (size_t)n);
        if (vec) continue;
        const bool same = (std::isnan((double)h[i]) && std::isnan((double)out[i])) || h[i] == out[i];
        if (!same) ++changed;
    }
    const double rel = err / (xm * lm * n * (sizeof(T) == 8 ? 1.1e-16 : 6e-8));
    const bool ok = !(rel > 30) && changed == 0;
    printf("trsolve_%s rows=%5d n=%3d %s: %7.2f us  err/(|X||L| n eps) %.3f  other writes %ld  %s\n",
           Tag<T>::s, rows, n, lower ? "L" : "U", us, rel, changed, ok ? "ok" : "FAIL");
    cudaFree(A); cudaFree(A0);
}

int main() {
    std::mt19937_64 g(11);
    for (int lower = 1; lower >= 0; --lower) {
        leaf<double>(128, lower, true, -1, 50, g, true);
        leaf<double>(128, lower, false, -1, 50, g, true);
        leaf<float>(128, lower, true, -1, 50, g, true);
    }
    for (int n : {1, 15, 16, 17, 33, 100, 127})
        for (int lower = 1; lower >= 0; --lower) leaf<double>(n, lower, true, -1, 0, g, false);
    leaf<double>(128, true, true, 70, 0, g, false);
    leaf<double>(100, false, true, 5, 0, g, false);
    leaf<float>(77, true, true, 16, 0, g, false);
    for (int lower = 1; lower >= 0; --lower) {
        panel<double>(8000, 128, lower, 50, g, true);
        panel<double>(4000, 128, lower, 50, g, true);
        panel<float>(8000, 128, lower, 50, g, true);
    }
    for (int rows : {1, 63, 65, 200})
        for (int n : {1, 17, 100, 128})
            for (int lower = 1; lower >= 0; --lower) panel<double>(rows, n, lower, 0, g, false);
    panel<float>(130, 50, true, 0, g, false);
    return 0;
}
