// Standalone A/B timing of gemv kernel shapes against cuBLAS (nvcc, GPU machine):
//   nvcc -O3 -arch=sm_90 -std=c++17 gemvbench.cu -lcublas -o gemvbench && ./gemvbench [n]
// Each variant computes y = A x (op N) or y = A^T x (op T) for a column-major n x n matrix and
// is checked against cuBLAS's answer; times are medians of cudaEvent-timed calls.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cmath>
#include <cuda_runtime.h>
#include <cublas_v2.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA error %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)
#include "gemvk.cuh"

template <class L>
static double med(int reps, L launch) {
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    std::vector<float> t;
    for (int i = 0; i < reps + 2; ++i) {
        cudaEventRecord(a); launch(); cudaEventRecord(b); CK(cudaEventSynchronize(b));
        float ms; cudaEventElapsedTime(&ms, a, b); if (i >= 2) t.push_back(ms);
    }
    std::sort(t.begin(), t.end()); return t[t.size() / 2] * 1000.0;
}

template <class T>
__global__ void fill(T* p, i64 n, unsigned seed) {
    for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
        p[i] = (T)((h & 0xffff) / 65536.0 - 0.5);
    }
}

template <class T> struct Cb;
template <> struct Cb<float> { static void gemv(cublasHandle_t h, cublasOperation_t o, int m, int n, const float* a, int lda, const float* x, float* y) { float one = 1, zero = 0; cublasSgemv(h, o, m, n, &one, a, lda, x, 1, &zero, y, 1); } };
template <> struct Cb<double> { static void gemv(cublasHandle_t h, cublasOperation_t o, int m, int n, const double* a, int lda, const double* x, double* y) { double one = 1, zero = 0; cublasDgemv(h, o, m, n, &one, a, lda, x, 1, &zero, y, 1); } };

static int sms;
static bool once;

template <class T>
static double check(const T* dy, const std::vector<T>& ref) {
    std::vector<T> h(ref.size());
    CK(cudaMemcpy(h.data(), dy, h.size() * sizeof(T), cudaMemcpyDeviceToHost));
    double e = 0, s = 0;
    for (size_t i = 0; i < h.size(); i++) { e = std::max(e, (double)std::fabs(h[i] - ref[i])); s = std::max(s, (double)std::fabs(ref[i])); }
    return e / (s + 1e-300);
}

template <class T, int U, int RS, int LB, int LD = 0>
static void run_n(const char* name, const T* a, int n, const T* x, T* part, T* y, int splits, const std::vector<T>& ref, double cub) {
    const int V = 16 / sizeof(T);
    const int tiles = n / (256 * V * RS);
    int cps = (n / splits + U - 1) / U * U;
    splits = (n + cps - 1) / cps;
    double us = med(10, [&] {
        gemv_n<T, U, RS, LB, LD><<<dim3(tiles, splits), 256>>>(a, n, n, n, x, part, cps);
        sum_parts<T><<<(n + 255) / 256, 256>>>(part, n, splits, y);
    });
    CK(cudaGetLastError());
    double bytes = (double)n * n * sizeof(T);
    printf("%-8s N %-24s splits %3d  %8.1f us  %.3f TB/s  %.2fx cuBLAS  err %.1e\n", sizeof(T) == 8 ? "f64" : "f32", name, splits, us, bytes / us * 1e-6, cub / us, check(y, ref));
}

template <class T, int LD, bool MASK>
static void run_lib(const char* name, const T* a, int n, const T* x, T* part, T* y, int splits, const std::vector<T>& ref, double cub) {
    const int V = 16 / sizeof(T);
    const int tiles = n / (32 * V * 4);
    int cps = (n + splits - 1) / splits;
    double us = med(10, [&] {
        sweep_lib<T, LD, MASK><<<dim3(tiles, splits), 256>>>(a, n, n, n, x, part, cps, n + 1, n + 1);
        sum_parts<T><<<(n + 255) / 256, 256>>>(part, n, splits, y);
    });
    CK(cudaGetLastError());
    double bytes = (double)n * n * sizeof(T);
    printf("%-8s N %-24s splits %3d  %8.1f us  %.3f TB/s  %.2fx cuBLAS  err %.1e\n", sizeof(T) == 8 ? "f64" : "f32", name, splits, us, bytes / us * 1e-6, cub / us, check(y, ref));
}

template <class T, int U, int CW, int LD = 0, bool STAGGER = false>
static void run_t(const char* name, const T* a, int n, const T* x, T* y, const std::vector<T>& ref, double cub) {
    double us = med(10, [&] { gemv_t<T, U, CW, LD, STAGGER><<<(n / CW + 7) / 8, 256>>>(a, n, n, n, x, y); });
    CK(cudaGetLastError());
    double bytes = (double)n * n * sizeof(T);
    printf("%-8s T %-24s            %8.1f us  %.3f TB/s  %.2fx cuBLAS  err %.1e\n", sizeof(T) == 8 ? "f64" : "f32", name, us, bytes / us * 1e-6, cub / us, check(y, ref));
}

template <class T, int U, int CW, int LD = 0>
static void run_t_split(const char* name, const T* a, int n, const T* x, T* part, T* y, int splits, const std::vector<T>& ref, double cub) {
    double us = med(10, [&] {
        gemv_t<T, U, CW, LD><<<dim3((n / CW + 7) / 8, splits), 256>>>(a, n, n, n, x, part);
        sum_parts<T><<<(n + 255) / 256, 256>>>(part, n, splits, y);
    });
    CK(cudaGetLastError());
    double bytes = (double)n * n * sizeof(T);
    printf("%-8s T %-24s splits %3d  %8.1f us  %.3f TB/s  %.2fx cuBLAS  err %.1e\n", sizeof(T) == 8 ? "f64" : "f32", name, splits, us, bytes / us * 1e-6, cub / us, check(y, ref));
}

template <class T>
static void suite(int n, cublasHandle_t h) {
    T *a, *x, *y, *part;
    CK(cudaMalloc(&a, (size_t)n * n * sizeof(T)));
    CK(cudaMalloc(&x, n * sizeof(T)));
    CK(cudaMalloc(&y, n * sizeof(T)));
    CK(cudaMalloc(&part, (size_t)256 * n * sizeof(T)));
    fill<T><<<1024, 256>>>(a, (i64)n * n, 1); fill<T><<<64, 256>>>(x, n, 2); CK(cudaDeviceSynchronize());
    std::vector<T> refn(n), reft(n);
    double bytes = (double)n * n * sizeof(T);
    const char* tn = sizeof(T) == 8 ? "f64" : "f32";
    // One call of each, for a profiler.
    if (once) { Cb<T>::gemv(h, CUBLAS_OP_N, n, n, a, n, x, y); Cb<T>::gemv(h, CUBLAS_OP_T, n, n, a, n, x, y); CK(cudaDeviceSynchronize()); return; }
    double cn = med(10, [&] { Cb<T>::gemv(h, CUBLAS_OP_N, n, n, a, n, x, y); });
    CK(cudaMemcpy(refn.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
    double ct = med(10, [&] { Cb<T>::gemv(h, CUBLAS_OP_T, n, n, a, n, x, y); });
    CK(cudaMemcpy(reft.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
    printf("%-8s N cuBLAS %8.1f us %.3f TB/s | T cuBLAS %8.1f us %.3f TB/s\n", tn, cn, bytes / cn * 1e-6, ct, bytes / ct * 1e-6);
    for (int sp : {16, 33}) {
        run_n<T, 4, 1, 2>("U4 RS1 LB2 ldcs", a, n, x, part, y, sp, refn, cn);
        run_n<T, 4, 1, 2, 1>("U4 RS1 LB2 ldg", a, n, x, part, y, sp, refn, cn);
        run_n<T, 8, 1, 2>("U8 RS1 LB2 ldcs", a, n, x, part, y, sp, refn, cn);
        run_n<T, 8, 1, 2, 1>("U8 RS1 LB2 ldg", a, n, x, part, y, sp, refn, cn);
    }
    for (int sp : {16, 17, 33}) {
        run_lib<T, 0, false>("lib ldcs", a, n, x, part, y, sp, refn, cn);
        run_lib<T, 1, false>("lib ldg", a, n, x, part, y, sp, refn, cn);
        run_lib<T, 0, true>("lib ldcs mask", a, n, x, part, y, sp, refn, cn);
        run_lib<T, 1, true>("lib ldg mask", a, n, x, part, y, sp, refn, cn);
    }
    run_t<T, 4, 1>("U4 CW1 ldcs", a, n, x, y, reft, ct);
    run_t<T, 4, 1, 1>("U4 CW1 ldg", a, n, x, y, reft, ct);
    run_t<T, 4, 1, 0, true>("U4 CW1 ldcs stagger", a, n, x, y, reft, ct);
    run_t<T, 4, 1, 1, true>("U4 CW1 ldg stagger", a, n, x, y, reft, ct);
    run_t<T, 8, 1>("U8 CW1 ldcs", a, n, x, y, reft, ct);
    run_t<T, 8, 1, 1>("U8 CW1 ldg", a, n, x, y, reft, ct);
    for (int sp : {2, 4, 8, 16}) {
        run_t_split<T, 4, 1>("split U4 CW1 ldcs", a, n, x, part, y, sp, reft, ct);
        run_t_split<T, 4, 1, 1>("split U4 CW1 ldg", a, n, x, part, y, sp, reft, ct);
        run_t_split<T, 2, 2>("split U2 CW2 ldcs", a, n, x, part, y, sp, reft, ct);
    }
    CK(cudaFree(a)); CK(cudaFree(x)); CK(cudaFree(y)); CK(cudaFree(part));
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 16384;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    once = argc > 2;
    cublasHandle_t h; cublasCreate(&h);
    suite<float>(n, h);
    suite<double>(n, h);
    return 0;
}
