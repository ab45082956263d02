// spmv by regions (packed-regions.cuh) against cuBLAS Sspmv / Dspmv, f32 and f64, upper and
// lower, in one process.
//   nvcc -O3 -arch=sm_90 -std=c++17 packed-regions-bench.cu -lcublas -o prb && ./prb [n ...] [-r reps]
// Default n = 16384 and 8192. For each case: kernel attributes (registers, local bytes, blocks
// per SM), a check (alpha 0.7, beta 0.3 from the same y; then beta 0 with y all NaN), and the
// median of `reps` event-timed launches after 3 warm-ups (ours: sweep + sum; the sweep alone in
// parentheses). TB/s counts the packed triangle once: n (n + 1) / 2 * sizeof(T) bytes.
// `x cuBLAS` = cuBLAS time / ours (> 1: ours faster). FAIL when the max relative difference to
// cuBLAS (max |ours - cuBLAS| / max |cuBLAS|) exceeds 1e-4 (f32) / 1e-12 (f64).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include <algorithm>
#include <string>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include "packed-regions.cuh"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)
#define CB(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "%s:%d %s: cublas %d\n", __FILE__, __LINE__, #x, (int)s_); exit(1); } } while (0)

// Uniform in [-1, 1) from a hash of (seed, i).
template <class T> __global__ void fill_rand(T* p, long long n, unsigned long long seed) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        unsigned long long z = seed * 0x9E3779B97F4A7C15ull + (unsigned long long)i;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull; z = (z ^ (z >> 27)) * 0x94D049BB133111EBull; z ^= z >> 31;
        p[i] = (T)((double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0);
    }
}

template <class T> struct K;
template <> struct K<float> {
    static constexpr const char* name = "f32";
    static constexpr double tol = 1e-4;
    static void* sweep() { return (void*)pr_spmv_regions_s; }
    static void* sum() { return (void*)pr_spmv_regions_sum_s; }
    static void cub(cublasHandle_t h, cublasFillMode_t u, int n, const float* a, const float* A, const float* x, const float* b, float* y) {
        CB(cublasSspmv(h, u, n, a, A, x, 1, b, y, 1));
    }
};
template <> struct K<double> {
    static constexpr const char* name = "f64";
    static constexpr double tol = 1e-12;
    static void* sweep() { return (void*)pr_spmv_regions_d; }
    static void* sum() { return (void*)pr_spmv_regions_sum_d; }
    static void cub(cublasHandle_t h, cublasFillMode_t u, int n, const double* a, const double* A, const double* x, const double* b, double* y) {
        CB(cublasDspmv(h, u, n, a, A, x, 1, b, y, 1));
    }
};

template <class T> void ours(const PrJob<T>& j, bool sum_too = true) {
    using P = PR<T>;
    const long long nR = (j.n + P::R - 1) / P::R;
    void* args[] = {(void*)&j};
    CK(cudaLaunchKernel(K<T>::sweep(), dim3((unsigned)(nR * (nR + 1) / 2)), dim3(P::NT), args, P::SMEM_BYTES, 0));
    if (sum_too) CK(cudaLaunchKernel(K<T>::sum(), dim3((unsigned)((j.n + 31) / 32)), dim3(P::NT), args, 0, 0));
}

template <class F> float median_us(int reps, F f) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    for (int i = 0; i < 3; i++) f();
    std::vector<float> t;
    for (int i = 0; i < reps; i++) {
        CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
        float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms * 1000.f);
    }
    CK(cudaEventDestroy(a)); CK(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

template <class T> double maxrel(const std::vector<T>& a, const std::vector<T>& b, bool& finite) {
    double e = 0, m = 0; finite = true;
    for (size_t i = 0; i < a.size(); i++) {
        if (!std::isfinite((double)a[i])) finite = false;
        e = std::max(e, std::fabs((double)a[i] - (double)b[i])); m = std::max(m, std::fabs((double)b[i]));
    }
    return m > 0 ? e / m : e;
}

static int fails = 0;

template <class T> void attrs() {
    using P = PR<T>;
    CK(cudaFuncSetAttribute(K<T>::sweep(), cudaFuncAttributeMaxDynamicSharedMemorySize, P::SMEM_BYTES));
    cudaFuncAttributes fa; int nb = 0;
    CK(cudaFuncGetAttributes(&fa, K<T>::sweep()));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, K<T>::sweep(), P::NT, P::SMEM_BYTES));
    printf("pr_spmv_regions_%s: %d registers, %zu local bytes, %d B dynamic smem, %d blocks/SM (R %d, KC %d, ST %d)\n",
           K<T>::name, fa.numRegs, fa.localSizeBytes, P::SMEM_BYTES, nb, P::R, P::KC, P::ST);
    CK(cudaFuncGetAttributes(&fa, K<T>::sum()));
    printf("pr_spmv_regions_sum_%s: %d registers, %zu local bytes\n", K<T>::name, fa.numRegs, fa.localSizeBytes);
}

template <class T> void run(cublasHandle_t h, long long n, int reps) {
    using P = PR<T>;
    const long long tot = n * (n + 1) / 2, nR = (n + P::R - 1) / P::R, plen = (n + 31) / 32 * 32;
    T *A, *x, *y, *y0, *yc, *W;
    CK(cudaMalloc(&A, tot * sizeof(T))); CK(cudaMalloc(&x, n * sizeof(T))); CK(cudaMalloc(&y, n * sizeof(T)));
    CK(cudaMalloc(&y0, n * sizeof(T))); CK(cudaMalloc(&yc, n * sizeof(T))); CK(cudaMalloc(&W, nR * plen * sizeof(T)));
    fill_rand<T><<<1024, 256>>>(A, tot, 1); fill_rand<T><<<64, 256>>>(x, n, 2); fill_rand<T><<<64, 256>>>(y0, n, 3);
    CK(cudaGetLastError());
    std::vector<T> ho(n), hc(n);
    for (int lo = 0; lo < 2; lo++) {
        const cublasFillMode_t uf = lo ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
        // Check 1: alpha 0.7, beta 0.3 from the same y0.
        T al = (T)0.7, be = (T)0.3;
        PrJob<T> j{A, x, y, W, al, be, n, plen, 1, 1, lo};
        CK(cudaMemcpy(y, y0, n * sizeof(T), cudaMemcpyDeviceToDevice));
        CK(cudaMemcpy(yc, y0, n * sizeof(T), cudaMemcpyDeviceToDevice));
        ours(j);
        K<T>::cub(h, uf, (int)n, &al, A, x, &be, yc);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(ho.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hc.data(), yc, n * sizeof(T), cudaMemcpyDeviceToHost));
        bool fin1, fin2;
        const double rel1 = maxrel(ho, hc, fin1);
        // Check 2: beta 0, y all NaN (must not be read).
        be = 0; j.beta = 0;
        CK(cudaMemset(y, 0xff, n * sizeof(T))); CK(cudaMemset(yc, 0xff, n * sizeof(T)));
        ours(j);
        K<T>::cub(h, uf, (int)n, &al, A, x, &be, yc);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(ho.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hc.data(), yc, n * sizeof(T), cudaMemcpyDeviceToHost));
        const double rel2 = maxrel(ho, hc, fin2);
        const double rel = std::max(rel1, rel2);
        const bool bad = !(rel <= K<T>::tol) || !fin1 || !fin2;
        fails += bad;
        // Timing: alpha 1, beta 0.5, y updated in place.
        al = 1; be = (T)0.5; j.alpha = al; j.beta = be;
        CK(cudaMemcpy(y, y0, n * sizeof(T), cudaMemcpyDeviceToDevice));
        CK(cudaMemcpy(yc, y0, n * sizeof(T), cudaMemcpyDeviceToDevice));
        const float to = median_us(reps, [&] { ours(j); });
        const float ts = median_us(reps, [&] { ours(j, false); });
        const float tc = median_us(reps, [&] { K<T>::cub(h, uf, (int)n, &al, A, x, &be, yc); });
        CK(cudaGetLastError());
        const double bytes = (double)tot * sizeof(T);
        printf("spmv %s %c n %lld: ours %.1f us (sweep %.1f) %.2f TB/s | cuBLAS %.1f us %.2f TB/s | %.3fx cuBLAS | rel %.2g%s\n",
               K<T>::name, lo ? 'L' : 'U', n, to, ts, bytes / to * 1e-6, tc, bytes / tc * 1e-6, tc / to, rel,
               bad ? (fin1 && fin2 ? "  FAIL" : "  FAIL (non-finite)") : "");
        fflush(stdout);
    }
    CK(cudaFree(A)); CK(cudaFree(x)); CK(cudaFree(y)); CK(cudaFree(y0)); CK(cudaFree(yc)); CK(cudaFree(W));
}

int main(int argc, char** argv) {
    std::vector<long long> ns; int reps = 11;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-r") && i + 1 < argc) reps = atoi(argv[++i]);
        else ns.push_back(atoll(argv[i]));
    }
    if (ns.empty()) ns = {16384, 8192};
    cudaDeviceProp pr; CK(cudaGetDeviceProperties(&pr, 0));
    printf("%s, %d SMs, reps %d\n", pr.name, pr.multiProcessorCount, reps);
    cublasHandle_t h; CB(cublasCreate(&h));
    CB(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    attrs<float>(); attrs<double>();
    for (long long n : ns) { run<float>(h, n, reps); run<double>(h, n, reps); }
    CB(cublasDestroy(h));
    printf("%s\n", fails ? "SOME FAILED" : "all checks passed");
    return fails != 0;
}
