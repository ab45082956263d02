// A/B timing of the band-smem prototype (band-smem.cuh) against cuBLAS gbmv/sbmv and a device
// copy of the band, at n = 16384, band 64 (nvcc, GPU machine):
//   nvcc -O3 -arch=sm_90 -std=c++17 band-smem-bench.cu -lcublas -o bsb && ./bsb
// Timing as the library's bench: a batch of back-to-back calls between two events, the median
// over batches.  Results are checked against cuBLAS (alpha 1.3, beta -0.5).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cmath>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include "band-smem.cuh"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA error %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)

template <class L>
static double med(L launch, int inner = 20, int reps = 15) {
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    for (int i = 0; i < 5; i++) launch();
    CK(cudaDeviceSynchronize());
    std::vector<float> t;
    for (int i = 0; i < reps; ++i) {
        cudaEventRecord(a);
        for (int k = 0; k < inner; k++) launch();
        cudaEventRecord(b); CK(cudaEventSynchronize(b));
        float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms * 1000.0f / inner);
    }
    std::sort(t.begin(), t.end()); return t[t.size() / 2];
}

template <class T>
__global__ void fillk(T* p, long long n, unsigned seed) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
        p[i] = (T)((h & 0xffff) / 65536.0 - 0.5);
    }
}

template <class T, class P>
__global__ void __launch_bounds__(P::NT) bs_kernel(BandJob<T> j) {
    extern __shared__ __align__(16) unsigned char smem[];
    band_smem<T, P>(j, smem);
}

static cublasStatus_t gbmv(cublasHandle_t h, int m, int n, int kl, int ku, const float* al, const float* a, int lda, const float* x, const float* be, float* y) { return cublasSgbmv(h, CUBLAS_OP_N, m, n, kl, ku, al, a, lda, x, 1, be, y, 1); }
static cublasStatus_t gbmv(cublasHandle_t h, int m, int n, int kl, int ku, const double* al, const double* a, int lda, const double* x, const double* be, double* y) { return cublasDgbmv(h, CUBLAS_OP_N, m, n, kl, ku, al, a, lda, x, 1, be, y, 1); }
static cublasStatus_t sbmv(cublasHandle_t h, cublasFillMode_t u, int n, int k, const float* al, const float* a, int lda, const float* x, const float* be, float* y) { return cublasSsbmv(h, u, n, k, al, a, lda, x, 1, be, y, 1); }
static cublasStatus_t sbmv(cublasHandle_t h, cublasFillMode_t u, int n, int k, const double* al, const double* a, int lda, const double* x, const double* be, double* y) { return cublasDsbmv(h, u, n, k, al, a, lda, x, 1, be, y, 1); }

// op: 0 gbmv N (kl = ku = k), 1 sbmv lower, 2 sbmv upper.
template <class T, class P>
static void run(const char* cfg, int op, int n, int k, cublasHandle_t h) {
    const int kl = op == 0 ? k : op == 1 ? k : 0, ku = op == 0 ? k : op == 1 ? 0 : k;
    const int lda = kl + ku + 1;
    T *a, *x, *y, *y0, *cp;
    CK(cudaMalloc(&a, (size_t)n * lda * sizeof(T)));
    CK(cudaMalloc(&cp, (size_t)n * lda * sizeof(T)));
    CK(cudaMalloc(&x, n * sizeof(T)));
    CK(cudaMalloc(&y, n * sizeof(T)));
    CK(cudaMalloc(&y0, n * sizeof(T)));
    fillk<T><<<1024, 256>>>(a, (long long)n * lda, 1); fillk<T><<<64, 256>>>(x, n, 2); fillk<T><<<64, 256>>>(y0, n, 3);
    CK(cudaDeviceSynchronize());
    const T al = 1.3, be = -0.5, one = 1, zero = 0;
    std::vector<T> ref(n), got(n);
    // Check: alpha 1.3, beta -0.5.
    CK(cudaMemcpy(y, y0, n * sizeof(T), cudaMemcpyDeviceToDevice));
    if (op == 0) gbmv(h, n, n, kl, ku, &al, a, lda, x, &be, y);
    else sbmv(h, op == 1 ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER, n, k, &al, a, lda, x, &be, y);
    CK(cudaMemcpy(ref.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
    BandJob<T> j = {};
    j.a = a; j.x = x; j.y = y; j.m = n; j.n = n; j.kl = kl; j.ku = ku; j.lda = lda;
    j.incx = 1; j.offx = 0; j.incy = 1; j.offy = 0; j.alpha = al; j.beta = be; j.sym = op != 0;
    CK(cudaFuncSetAttribute(bs_kernel<T, P>, cudaFuncAttributeMaxDynamicSharedMemorySize, P::SMEM_BYTES));
    const int grid = (n + P::RB - 1) / P::RB;
    CK(cudaMemcpy(y, y0, n * sizeof(T), cudaMemcpyDeviceToDevice));
    bs_kernel<T, P><<<grid, P::NT, P::SMEM_BYTES>>>(j);
    CK(cudaGetLastError());
    CK(cudaMemcpy(got.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
    double e = 0, s = 0;
    for (int i = 0; i < n; i++) { e = std::max(e, (double)std::fabs(got[i] - ref[i])); s = std::max(s, (double)std::fabs(ref[i])); }
    // Timing: alpha 1, beta 0.
    j.alpha = 1; j.beta = 0;
    double us = med([&] { bs_kernel<T, P><<<grid, P::NT, P::SMEM_BYTES>>>(j); });
    double cu = med([&] {
        if (op == 0) gbmv(h, n, n, kl, ku, &one, a, lda, x, &zero, y);
        else sbmv(h, op == 1 ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER, n, k, &one, a, lda, x, &zero, y);
    });
    double cpy = med([&] { cudaMemcpyAsync(cp, a, (size_t)n * lda * sizeof(T), cudaMemcpyDeviceToDevice); });
    CK(cudaGetLastError());
    // Bytes as the library's bench counts them: the stored band once, x and y.
    const double stored = op == 0 ? (double)n * (kl + ku + 1) - (double)kl * (kl + 1) / 2 - (double)ku * (ku + 1) / 2
                                   : (double)n * (k + 1) - (double)k * (k + 1) / 2;
    const double bytes = (stored + 2.0 * n) * sizeof(T);
    printf("%-6s %s %s n %d k %2d: %7.2f us %.3f TB/s | cuBLAS %7.2f us %.3f TB/s | %5.2fx | copy %6.2f us | smem %6d rel %.1e %s\n",
           op == 0 ? "gbmv N" : op == 1 ? "sbmv L" : "sbmv U", sizeof(T) == 8 ? "f64" : "f32", cfg, n, k, us, bytes / us * 1e-6,
           cu, bytes / cu * 1e-6, cu / us, cpy, P::SMEM_BYTES, e / s, e / s < (sizeof(T) == 8 ? 1e-12 : 1e-4) ? "ok" : "WRONG");
    cudaFree(a); cudaFree(cp); cudaFree(x); cudaFree(y); cudaFree(y0);
}

template <class T, class P> static void all(const char* cfg, int n, cublasHandle_t h) {
    for (int op = 0; op < 3; op++) run<T, P>(cfg, op, n, 64, h);
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 16384;
    cublasHandle_t h; cublasCreate(&h);
    all<float, BSCfg<float, 64, 3, 256>>("RB64 ST3 NT256 ", n, h);
    all<float, BSCfg<float, 32, 3, 128>>("RB32 ST3 NT128 ", n, h);
    all<float, BSCfg<float, 32, 4, 64>>("RB32 ST4 NT64  ", n, h);
    all<float, BSCfg<float, 128, 3, 256>>("RB128 ST3 NT256", n, h);
    all<double, BSCfg<double, 64, 3, 256>>("RB64 ST3 NT256 ", n, h);
    all<double, BSCfg<double, 32, 3, 128>>("RB32 ST3 NT128 ", n, h);
    all<double, BSCfg<double, 32, 4, 64>>("RB32 ST4 NT64  ", n, h);
    // Wider bands (refill path) at one configuration each.
    run<float, BSCfg<float, 64, 3, 256>>("RB64 ST3 k=300 ", 0, n, 300, h);
    run<double, BSCfg<double, 64, 3, 256>>("RB64 ST3 k=300 ", 1, n, 300, h);
    cublasDestroy(h);
    return 0;
}
