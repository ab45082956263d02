// b3_trsl (kernels/blas3.cu: left-side op-N substitution of order <= 128) outside the library:
// checks against a plain f64 loop and median times. Standalone, nvcc:
//   nvcc -O3 -arch=sm_90 -std=c++17 -Xptxas -v trslbench.cu -o trsl && ./trsl
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <algorithm>
#include <random>
#include <cuda_runtime.h>
#include "../../crates/gpublas/kernels/complex_div.cuh"
#define GPUBLAS_FAMILY_L3
#include "../../crates/gpublas/kernels/blas3.cu"

static void check(cudaError_t e, const char* w) {
    if (e != cudaSuccess) { printf("%s: %s\n", w, cudaGetErrorString(e)); exit(1); }
}

int main() {
    const int lda = 8192;
    struct Case { int na, nv, lower, unit; };
    Case cases[] = {{64, 64, 1, 1}, {128, 128, 1, 1}, {128, 512, 1, 1}, {100, 37, 0, 0}, {128, 256, 1, 1}};
    check(cudaFuncSetAttribute(b3_trsl_d, cudaFuncAttributeMaxDynamicSharedMemorySize, 180 << 10), "attr");
    for (auto c : cases) {
        std::mt19937_64 g(7);
        std::uniform_real_distribution<double> u(-1, 1);
        std::vector<double> A((size_t)lda * c.na), B((size_t)lda * c.nv);
        for (auto& x : A) x = u(g) * 0.1;
        for (int i = 0; i < c.na; i++) A[i + (size_t)i * lda] = 1.0 + 0.5 * u(g);
        for (auto& x : B) x = u(g);
        double *dA, *dB;
        check(cudaMalloc(&dA, A.size() * 8), "m");
        check(cudaMalloc(&dB, B.size() * 8), "m");
        cudaMemcpy(dA, A.data(), A.size() * 8, cudaMemcpyHostToDevice);
        BlockOp j = {};
        j.src = {(u64)dA, lda, 0, 0};
        j.dst = {(u64)dB, lda, 0, 0};
        j.br = 1.0;
        j.m = c.na; j.n = c.nv; j.ne = 1; j.count = 1;
        j.lower = c.lower; j.fill = c.unit; j.left = 1;
        const int bc = TRSL_WARPS;
        const int grid = (c.nv + bc - 1) / bc;
        const size_t sh = (size_t)c.na * (c.na + 1) / 2 * 8;
        std::vector<float> ts;
        cudaEvent_t e0, e1;
        cudaEventCreate(&e0); cudaEventCreate(&e1);
        for (int it = 0; it < 30; it++) {
            cudaMemcpy(dB, B.data(), B.size() * 8, cudaMemcpyHostToDevice);
            cudaEventRecord(e0);
            b3_trsl_d<<<grid, 32 * TRSL_WARPS, sh>>>(j);
            cudaEventRecord(e1);
            check(cudaEventSynchronize(e1), "run");
            float ms; cudaEventElapsedTime(&ms, e0, e1); ts.push_back(ms * 1000);
        }
        std::vector<double> X(B.size());
        cudaMemcpy(X.data(), dB, X.size() * 8, cudaMemcpyDeviceToHost);
        // reference: forward (lower) or backward (upper) substitution
        double err = 0;
        for (int v = 0; v < c.nv; v++) {
            std::vector<double> x(c.na);
            for (int s = 0; s < c.na; s++) {
                const int i = c.lower ? s : c.na - 1 - s;
                double acc = B[i + (size_t)v * lda];
                for (int s2 = 0; s2 < s; s2++) {
                    const int k = c.lower ? s2 : c.na - 1 - s2;
                    acc -= A[i + (size_t)k * lda] * x[k];
                }
                x[i] = c.unit ? acc : acc / A[i + (size_t)i * lda];
            }
            for (int i = 0; i < c.na; i++) err = std::max(err, std::fabs(x[i] - X[i + (size_t)v * lda]));
        }
        std::sort(ts.begin(), ts.end());
        printf("na=%4d nv=%4d lower=%d unit=%d grid=%3d: median %7.2f us (min %7.2f)  max err %.2e\n", c.na, c.nv, c.lower, c.unit, grid, ts[ts.size() / 2], ts[0], err);
        cudaFree(dA); cudaFree(dB);
    }
}
