// Stage 1's X = A22 VT on the H200: cuBLAS (its heuristics, and split along k as a strided
// batch of chunks, the partials' sum not timed) against a narrow-output kernel on the FP64
// tensor cores (32 rows a block, the block's warps splitting k, their partials summed in a
// fixed order). nvcc -O3 -arch=sm_90 -std=c++17 xbench.cu -lcublas -o xbench && ./xbench
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                      \
    do {                                                                           \
        auto e_ = (x);                                                             \
        if (e_ != 0) {                                                             \
            printf("error %d at %s:%d\n", (int)e_, __FILE__, __LINE__);            \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

__device__ __forceinline__ void dmma8844(double& c0, double& c1, double a, double b) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+d"(c0), "+d"(c1)
                 : "d"(a), "d"(b));
}

#ifndef XW
#define XW 16  // warps a block
#endif
#ifndef XU
#define XU 4  // k-steps of 4 a warp loads at once
#endif

// X (m x 32, ldx) = A (m x k, lda) B (k x 32, ldb), column-major.
template <int W, int U>
__global__ void __launch_bounds__(32 * W) narrow_gemm(const double* __restrict__ A, long lda,
                                                      const double* __restrict__ B, long ldb,
                                                      double* __restrict__ X, long ldx, long m,
                                                      long k) {
    extern __shared__ double red[];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const long r0 = (long)blockIdx.x * 32;
    double acc[4][4][2];
#pragma unroll
    for (int t = 0; t < 4; t++)
#pragma unroll
        for (int c = 0; c < 4; c++) acc[t][c][0] = acc[t][c][1] = 0.0;
    const long steps = (k + 3) / 4;
    const int kq = lane & 3, rq = lane >> 2;
    bool rok[4];
    const double* ap[4];
#pragma unroll
    for (int t = 0; t < 4; t++) {
        const long row = r0 + 8 * t + rq;
        rok[t] = row < m;
        ap[t] = A + (rok[t] ? row : 0);
    }
    const double* bp = B + (long)rq * ldb;
    double a[U][4], b[U][4];
    auto load = [&](long s0) {
#pragma unroll
        for (int u = 0; u < U; u++) {
            const long kk = 4 * (s0 + (long)u * W) + kq;
            const bool kok = kk < k;
#pragma unroll
            for (int t = 0; t < 4; t++) a[u][t] = (kok && rok[t]) ? __ldg(ap[t] + kk * lda) : 0.0;
#pragma unroll
            for (int c = 0; c < 4; c++) b[u][c] = kok ? __ldg(bp + kk + 8L * c * ldb) : 0.0;
        }
    };
    long s = w;
    load(s);
    for (; s < steps; s += (long)U * W) {
        double a2[U][4], b2[U][4];
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
            for (int t = 0; t < 4; t++) a2[u][t] = a[u][t], b2[u][t] = b[u][t];
        if (s + (long)U * W < steps) load(s + (long)U * W);
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
            for (int t = 0; t < 4; t++)
#pragma unroll
                for (int c = 0; c < 4; c++) dmma8844(acc[t][c][0], acc[t][c][1], a2[u][t], b2[u][c]);
    }
    // the warps' partials, summed in warp order
    constexpr int LD = 33;
#pragma unroll
    for (int t = 0; t < 4; t++)
#pragma unroll
        for (int c = 0; c < 4; c++)
#pragma unroll
            for (int h = 0; h < 2; h++) red[w * 32 * LD + (8 * t + rq) * LD + 8 * c + 2 * kq + h] = acc[t][c][h];
    __syncthreads();
    for (int e = threadIdx.x; e < 1024; e += 32 * W) {
        const int i = e & 31, j = e >> 5;
        double sum = 0.0;
#pragma unroll
        for (int q = 0; q < W; q++) sum += red[q * 32 * LD + i * LD + j];
        if (r0 + i < m) X[r0 + i + (long)j * ldx] = sum;
    }
}

int main(int argc, char** argv) {
    std::vector<long> ms = {1024, 2016, 3808, 5600, 8000, 12000, 16000};
    cublasHandle_t h;
    CK(cublasCreate(&h));
    const long mmax = 16000;
    double *A, *B, *X, *Y, *P;
    CK(cudaMalloc(&A, mmax * mmax * 8));
    CK(cudaMalloc(&B, mmax * 32 * 8));
    CK(cudaMalloc(&X, mmax * 32 * 8));
    CK(cudaMalloc(&Y, mmax * 32 * 8));
    CK(cudaMalloc(&P, 16 * mmax * 32 * 8));
    {
        std::vector<double> hb(mmax * 32);
        srand(1);
        for (auto& v : hb) v = rand() / (double)RAND_MAX - 0.5;
        CK(cudaMemcpy(B, hb.data(), hb.size() * 8, cudaMemcpyHostToDevice));
        std::vector<double> ha(mmax * 1000);
        for (auto& v : ha) v = rand() / (double)RAND_MAX - 0.5;
        for (long c = 0; c < mmax; c += 1000)
            CK(cudaMemcpy(A + c * mmax, ha.data(), std::min(1000L, mmax - c) * mmax * 8, cudaMemcpyHostToDevice));
    }
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    const size_t smem = XW * 32 * 33 * 8;
    CK(cudaFuncSetAttribute(narrow_gemm<XW, XU>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    auto timeit = [&](auto f) {
        std::vector<float> t;
        for (int r = 0; r < 12; r++) {
            cudaEventRecord(e0);
            f();
            cudaEventRecord(e1);
            cudaEventSynchronize(e1);
            float ms;
            cudaEventElapsedTime(&ms, e0, e1);
            t.push_back(ms * 1000);
        }
        std::sort(t.begin(), t.end());
        return t[t.size() / 2];
    };
    printf("%6s %9s %9s %9s %9s %9s %9s %6s\n", "m", "cublas", "split2", "split4", "split8", "narrow", "floorBW", "err");
    for (long m : ms) {
        const long lda = m;
        const double one = 1.0, zero = 0.0;
        float tc = timeit([&] { cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, 32, m, &one, A, lda, B, m, &zero, Y, m); });
        float ts[3];
        int parts[3] = {2, 4, 8};
        for (int q = 0; q < 3; q++) {
            // every chunk in one strided batch (the partials' sum not timed)
            long kc = m / parts[q];
            ts[q] = timeit([&] {
                cublasDgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, 32, kc, &one, A, lda, kc * lda, B, m, kc, &zero, P,
                                          m, m * 32, parts[q]);
            });
        }
        dim3 grid((m + 31) / 32);
        float tn = timeit([&] { narrow_gemm<XW, XU><<<grid, 32 * XW, smem>>>(A, lda, B, m, X, m, m, m); });
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        std::vector<double> hx(m * 32), hy(m * 32);
        CK(cudaMemcpy(hx.data(), X, m * 32 * 8, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hy.data(), Y, m * 32 * 8, cudaMemcpyDeviceToHost));
        double err = 0, nrm = 0;
        for (long i = 0; i < m * 32; i++) err = std::max(err, std::fabs(hx[i] - hy[i])), nrm = std::max(nrm, std::fabs(hy[i]));
        printf("%6ld %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %6.1e\n", m, tc, ts[0], ts[1], ts[2], tn, m * m * 8.0 / 4.4e6,
               err / nrm);
    }
    return 0;
}
