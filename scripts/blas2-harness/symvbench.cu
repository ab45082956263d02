// A/B timing of Level-2 symv kernels from a blas2.cu source against cuBLAS (nvcc, GPU machine):
//   nvcc -O3 -arch=sm_90 -std=c++17 -DBLAS2_SRC='"../../crates/gpublas/kernels/blas2.cu"' \
//        symvbench.cu -lcublas -o cur && ./cur
// -DSYMV_REGIONS adds f32 symv by regions, -DBAND_SYM sbmv (k = 64) by the one-pass
// b2_bandsym, both with the library's kernels.
// The launch geometry is the library's for symv at n = 16384 (Algo::Split: the sweep with
// mirrored sums, then pass 2); results are checked against cuBLAS.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cmath>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#define GPUBLAS_FAMILY_MV
#include "../../crates/gpublas/kernels/complex_div.cuh"
#include BLAS2_SRC
#include "../../crates/gpublas/kernels/blas2_regions.cu"  // kernels.rs appends it to blas2.cu

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA error %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)

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
__global__ void fillk(T* p, i64 n, unsigned seed) {
    for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
        p[i] = (T)((h & 0xffff) / 65536.0 - 0.5);
    }
}

template <class T> struct Cb;
template <> struct Cb<float> {
    static void symv(cublasHandle_t h, cublasFillMode_t u, int n, const float* a, const float* x, float* y) { float one = 1, zero = 0; cublasSsymv(h, u, n, &one, a, n, x, 1, &zero, y, 1); }
    static void sweep(Job j, int grid) { b2_symsweep4_s<<<grid, 256>>>(j); }
    static void pass(Job j, int grid) { b2_pass2_s<<<grid, 256>>>(j, 2); }
    static void gemv(cublasHandle_t h, int n, const float* a, const float* x, float* y) { float one = 1, zero = 0; cublasSgemv(h, CUBLAS_OP_N, n, n, &one, a, n, x, 1, &zero, y, 1); }
    static void trmv(cublasHandle_t h, int n, const float* a, float* x) { cublasStrmv(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, a, n, x, 1); }
    static void plain(Job j, int grid) { b2_sweep4_s<<<grid, 256>>>(j); }
#ifdef BAND_SYM
    static void sbmv(cublasHandle_t h, cublasFillMode_t u, int n, int k, const float* a, int lda, const float* x, float* y) { float one = 1, zero = 0; cublasSsbmv(h, u, n, k, &one, a, lda, x, 1, &zero, y, 1); }
    static void band(Job j, int grid) { b2_bandsym_s<<<grid, 256>>>(j); }
#endif
#ifdef PACKED_SYM
    static void spmv(cublasHandle_t h, cublasFillMode_t u, int n, const float* ap, const float* x, float* y) { float one = 1, zero = 0; cublasSspmv(h, u, n, &one, ap, x, 1, &zero, y, 1); }
#endif
};
template <> struct Cb<double> {
    static void symv(cublasHandle_t h, cublasFillMode_t u, int n, const double* a, const double* x, double* y) { double one = 1, zero = 0; cublasDsymv(h, u, n, &one, a, n, x, 1, &zero, y, 1); }
    static void sweep(Job j, int grid) { b2_symsweep4_d<<<grid, 256>>>(j); }
    static void pass(Job j, int grid) { b2_pass2_d<<<grid, 256>>>(j, 2); }
    static void gemv(cublasHandle_t h, int n, const double* a, const double* x, double* y) { double one = 1, zero = 0; cublasDgemv(h, CUBLAS_OP_N, n, n, &one, a, n, x, 1, &zero, y, 1); }
    static void trmv(cublasHandle_t h, int n, const double* a, double* x) { cublasDtrmv(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, a, n, x, 1); }
    static void plain(Job j, int grid) { b2_sweep4_d<<<grid, 256>>>(j); }
#ifdef BAND_SYM
    static void sbmv(cublasHandle_t h, cublasFillMode_t u, int n, int k, const double* a, int lda, const double* x, double* y) { double one = 1, zero = 0; cublasDsbmv(h, u, n, k, &one, a, lda, x, 1, &zero, y, 1); }
    static void band(Job j, int grid) { b2_bandsym_d<<<grid, 256>>>(j); }
#endif
#ifdef PACKED_SYM
    static void spmv(cublasHandle_t h, cublasFillMode_t u, int n, const double* ap, const double* x, double* y) { double one = 1, zero = 0; cublasDspmv(h, u, n, &one, ap, x, 1, &zero, y, 1); }
#endif
};

template <class T>
static void suite(int n, cublasHandle_t h, int sms) {
    const int V = 16 / sizeof(T), tr = 32, RB = tr * V * 4;
    const int rowtiles = (n + RB - 1) / RB;
    const int splits = std::min((sms * 8 + rowtiles - 1) / rowtiles, n / (8 * 4));
    T *a, *x, *y, *part;
    CK(cudaMalloc(&a, (size_t)n * n * sizeof(T)));
    CK(cudaMalloc(&x, n * sizeof(T)));
    CK(cudaMalloc(&y, n * sizeof(T)));
    CK(cudaMalloc(&part, (size_t)(splits + rowtiles) * n * sizeof(T)));
    fillk<T><<<1024, 256>>>(a, (i64)n * n, 1); fillk<T><<<64, 256>>>(x, n, 2); CK(cudaDeviceSynchronize());
    for (int lower = 0; lower < 2; lower++) {
        std::vector<T> ref(n), got(n);
        const cublasFillMode_t u = lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
        double cu = med(10, [&] { Cb<T>::symv(h, u, n, a, x, y); });
        CK(cudaMemcpy(ref.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
        Job j = {};
        j.a.base = (u64)a; j.a.lda = n; j.a.kind = 0;
        j.x.base = (u64)x; j.x.inc = 1; j.y.base = (u64)y; j.y.inc = 1;
        j.part = (u64)part; j.ar = 1.0; j.br = 0.0;
        j.m = n; j.n = n; j.kl = lower ? n + 1 : 0; j.ku = lower ? 0 : n + 1;
        j.plen = n; j.flags = F_SYM | (lower ? F_LOWER : 0); j.splits = splits; j.tr = tr; j.tc = 8;
        j.rowtiles = rowtiles; j.colgroups = 1; j.nent = 1; j.nq = rowtiles; j.rb = RB; j.cpg = 1;
        Job p = j; p.np = splits; p.colgroups = std::min((n + 255) / 256, 4096);
        double us = med(10, [&] { Cb<T>::sweep(j, rowtiles * splits); Cb<T>::pass(p, p.colgroups); });
        CK(cudaGetLastError());
        CK(cudaMemcpy(got.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
        double e = 0, s = 0;
        for (int i = 0; i < n; i++) { e = std::max(e, (double)std::fabs(got[i] - ref[i])); s = std::max(s, (double)std::fabs(ref[i])); }
        const double bytes = (double)n * (n + 1) / 2 * sizeof(T);
        printf("symv %s %s n %d splits %d: %8.1f us %.3f TB/s | cuBLAS %8.1f us %.3f TB/s | %.2fx  rel %.1e\n", sizeof(T) == 8 ? "f64" : "f32", lower ? "L" : "U", n, splits, us, bytes / us * 1e-6, cu, bytes / cu * 1e-6, cu / us, e / s);
    }
#ifdef SYMV_REGIONS
    // f32 symv by regions (b2_symv_regions_s + b2_symv_regions_sum_s), alpha and beta on the
    // device as the library's bench passes them; W = nR partial vectors of roundup(n, 32).
    if (sizeof(T) == 4) {
        const int nR = (n + 255) / 256, plen = (n + 31) / 32 * 32;
        float *W, *sc;
        CK(cudaMalloc(&W, (size_t)nR * plen * 4));
        CK(cudaMalloc(&sc, 8));
        const float hs[2] = {1.0f, 0.0f};
        CK(cudaMemcpy(sc, hs, 8, cudaMemcpyHostToDevice));
        CK(cudaFuncSetAttribute(b2_symv_regions_s, cudaFuncAttributeMaxDynamicSharedMemorySize, 51200));
        for (int lower = 0; lower < 2; lower++) {
            std::vector<T> ref(n), got(n);
            const cublasFillMode_t u = lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
            double cu = med(10, [&] { Cb<T>::symv(h, u, n, a, x, y); });
            CK(cudaMemcpy(ref.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
            Job j = {};
            j.a.base = (u64)a; j.a.lda = n; j.a.kind = 0;
            j.x.base = (u64)x; j.x.inc = 1; j.y.base = (u64)y; j.y.inc = 1;
            j.part = (u64)W; j.alpha_p = (u64)sc; j.beta_p = (u64)(sc + 1);
            j.m = n; j.n = n; j.plen = plen; j.flags = lower ? F_LOWER : 0; j.nent = 1;
            const int regions = nR * (nR + 1) / 2;
            double sw = med(10, [&] { b2_symv_regions_s<<<regions, 256, 51200>>>(j); });
            double us = med(10, [&] { b2_symv_regions_s<<<regions, 256, 51200>>>(j); b2_symv_regions_sum_s<<<(n + 31) / 32, 256>>>(j); });
            CK(cudaGetLastError());
            CK(cudaMemcpy(got.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
            double e = 0, s = 0;
            for (int i = 0; i < n; i++) { e = std::max(e, (double)std::fabs(got[i] - ref[i])); s = std::max(s, (double)std::fabs(ref[i])); }
            const double bytes = (double)n * (n + 1) / 2 * sizeof(T);
            printf("symv regions f32 %s n %d: %8.1f us (sweep %.1f) %.3f TB/s | cuBLAS %8.1f us %.3f TB/s | %.2fx  rel %.1e\n", lower ? "L" : "U", n, us, sw, bytes / us * 1e-6, cu, bytes / cu * 1e-6, cu / us, e / s);
        }
        CK(cudaFree(W)); CK(cudaFree(sc));
    }
#endif
#ifdef BAND_SYM
    // sbmv with k = 64 (lda = k + 1), the library's one-pass b2_bandsym (16 threads down a
    // column, 16 bytes each), host alpha 1 and beta 0; the band is the first (k + 1) n
    // elements of a.
    {
        const int k = 64, lda = k + 1, rows = 16 * V;
        for (int lower = 0; lower < 2; lower++) {
            std::vector<T> ref(n), got(n);
            const cublasFillMode_t u = lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
            double cu = med(20, [&] { Cb<T>::sbmv(h, u, n, k, a, lda, x, y); });
            CK(cudaMemcpy(ref.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
            Job j = {};
            j.a.base = (u64)a; j.a.lda = lda; j.a.kind = 1; j.a.kb = lower ? 0 : k;
            j.x.base = (u64)x; j.x.inc = 1; j.y.base = (u64)y; j.y.inc = 1;
            j.ar = 1.0; j.br = 0.0; j.m = n; j.n = n; j.kl = lower ? k : 0; j.ku = lower ? 0 : k;
            j.flags = lower ? F_LOWER : 0; j.nent = 1;
            const int grid = (n + rows - 1) / rows;
            double us = med(20, [&] { Cb<T>::band(j, grid); });
            CK(cudaGetLastError());
            CK(cudaMemcpy(got.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
            double e = 0, sc = 0;
            for (int i = 0; i < n; i++) { e = std::max(e, (double)std::fabs(got[i] - ref[i])); sc = std::max(sc, (double)std::fabs(ref[i])); }
            const double bytes = (double)n * (k + 1) * sizeof(T);
            printf("sbmv %s %s n %d k %d: %8.1f us %.3f TB/s | cuBLAS %8.1f us %.3f TB/s | %.2fx  rel %.1e\n", sizeof(T) == 8 ? "f64" : "f32", lower ? "L" : "U", n, k, us, bytes / us * 1e-6, cu, bytes / cu * 1e-6, cu / us, e / sc);
        }
    }
#endif
#ifdef PACKED_SYM
    // spmv (packed, U and L): the library's Algo::Split for Kind::Symv on Storage::Packed (cuda.rs:
    // kind 2 upper / 3 lower, lda 0, the sweep with F_SYM, then pass 2), the same geometry as
    // symv above; the packed triangle is the first n(n+1)/2 elements of a. Host alpha 1, beta 0.
    for (int lower = 0; lower < 2; lower++) {
        std::vector<T> ref(n), got(n);
        const cublasFillMode_t u = lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
        double cu = med(10, [&] { Cb<T>::spmv(h, u, n, a, x, y); });
        CK(cudaMemcpy(ref.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
        CK(cudaMemset(y, 0xff, n * sizeof(T)));  // NaN: every output must be written
        Job j = {};
        j.a.base = (u64)a; j.a.lda = 0; j.a.kind = lower ? 3 : 2;
        j.x.base = (u64)x; j.x.inc = 1; j.y.base = (u64)y; j.y.inc = 1;
        j.part = (u64)part; j.ar = 1.0; j.br = 0.0;
        j.m = n; j.n = n; j.kl = lower ? n + 1 : 0; j.ku = lower ? 0 : n + 1;
        j.plen = n; j.flags = F_SYM | (lower ? F_LOWER : 0); j.splits = splits; j.tr = tr; j.tc = 8;
        j.rowtiles = rowtiles; j.colgroups = 1; j.nent = 1; j.nq = rowtiles; j.rb = RB; j.cpg = 1;
        Job p = j; p.np = splits; p.colgroups = std::min((n + 255) / 256, 4096);
        Cb<T>::sweep(j, rowtiles * splits); Cb<T>::pass(p, p.colgroups);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(got.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
        double sw = med(10, [&] { Cb<T>::sweep(j, rowtiles * splits); });
        double us = med(10, [&] { Cb<T>::sweep(j, rowtiles * splits); Cb<T>::pass(p, p.colgroups); });
        CK(cudaGetLastError());
        double e = 0, s = 0;
        for (int i = 0; i < n; i++) { e = std::max(e, (double)std::fabs(got[i] - ref[i]) ); s = std::max(s, (double)std::fabs(ref[i])); }
        if (std::isnan(e)) e = INFINITY;
        const double bytes = (double)n * (n + 1) / 2 * sizeof(T);
        printf("spmv %s %s n %d splits %d: %8.1f us (sweep %.1f) %.3f TB/s | cuBLAS %8.1f us %.3f TB/s | %.2fx  rel %.1e%s\n", sizeof(T) == 8 ? "f64" : "f32", lower ? "L" : "U", n, splits, us, sw, bytes / us * 1e-6, cu, bytes / cu * 1e-6, cu / us, e / s, e / s < (sizeof(T) == 8 ? 1e-12 : 1e-4) ? "" : "  FAIL");
    }
#endif
    // gemv N and trmv (lower, N): the plain sweep and pass 2 (trmv written to y here).
    for (int tri = 0; tri < 2; tri++) {
        std::vector<T> ref(n), got(n);
        double cu;
        if (tri) {
            T* xt; CK(cudaMalloc(&xt, n * sizeof(T)));
            cu = med(10, [&] { CK(cudaMemcpyAsync(xt, x, n * sizeof(T), cudaMemcpyDeviceToDevice)); Cb<T>::trmv(h, n, a, xt); });
            CK(cudaMemcpy(ref.data(), xt, n * sizeof(T), cudaMemcpyDeviceToHost)); CK(cudaFree(xt));
        } else {
            cu = med(10, [&] { Cb<T>::gemv(h, n, a, x, y); });
            CK(cudaMemcpy(ref.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
        }
        Job j = {};
        j.a.base = (u64)a; j.a.lda = n; j.a.kind = 0;
        j.x.base = (u64)x; j.x.inc = 1; j.y.base = (u64)y; j.y.inc = 1;
        j.part = (u64)part; j.ar = 1.0; j.br = 0.0;
        j.m = n; j.n = n; j.kl = n + 1; j.ku = tri ? 0 : n + 1;
        j.plen = n; j.flags = 0; j.splits = splits; j.tr = tr; j.tc = 8;
        j.rowtiles = rowtiles; j.colgroups = 1; j.nent = 1; j.nq = 0; j.rb = RB; j.cpg = 1;
        Job p = j; p.np = splits; p.colgroups = std::min((n + 255) / 256, 4096);
        double us = med(10, [&] { Cb<T>::plain(j, rowtiles * splits); Cb<T>::pass(p, p.colgroups); });
        CK(cudaGetLastError());
        CK(cudaMemcpy(got.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
        double e = 0, sc = 0;
        for (int i = 0; i < n; i++) { e = std::max(e, (double)std::fabs(got[i] - ref[i])); sc = std::max(sc, (double)std::fabs(ref[i])); }
        const double bytes = tri ? (double)n * (n + 1) / 2 * sizeof(T) : (double)n * n * sizeof(T);
        printf("%s %s n %d splits %d: %8.1f us %.3f TB/s | cuBLAS %8.1f us %.3f TB/s | %.2fx  rel %.1e\n", tri ? "trmv L N" : "gemv N  ", sizeof(T) == 8 ? "f64" : "f32", n, splits, us, bytes / us * 1e-6, cu, bytes / cu * 1e-6, cu / us, e / sc);
    }
    CK(cudaFree(a)); CK(cudaFree(x)); CK(cudaFree(y)); CK(cudaFree(part));
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 16384;
    int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cublasHandle_t h; cublasCreate(&h);
    suite<float>(n, h, sms);
    suite<double>(n, h, sms);
    return 0;
}
