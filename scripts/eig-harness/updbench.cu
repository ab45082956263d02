// Stage 1's trailing update A22 -= [Vf X] [X Vf]^T (m x m x 64, beta 1) on the H200: cuBLASLt
// by its heuristic, on every SM and with an SM count target (what the library's products beside
// the side lane get), and a chain of one-block kernels on a high-priority stream beside it (the
// side lane's CholeskyQR2 panel stands in): how long the chain takes alone and beside the
// product. nvcc -O3 -arch=sm_90 -std=c++17 updbench.cu -lcublasLt -o updbench && ./updbench
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                 \
    do {                                                                      \
        auto e_ = (x);                                                        \
        if ((int)e_ != 0) {                                                   \
            printf("error %d at %s:%d\n", (int)e_, __FILE__, __LINE__);       \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

// about 2 us of one block's serial work, like the panel's one-block steps
__global__ void one_block(double* x, int iters) {
    __shared__ double s[256];
    double v = x[threadIdx.x];
    for (int i = 0; i < iters; i++) {
        s[threadIdx.x] = v;
        __syncthreads();
        v = v * 0.999 + s[(threadIdx.x + 1) & 255] * 1e-3;
        __syncthreads();
    }
    x[threadIdx.x] = v;
}

struct Mm {
    cublasLtMatmulDesc_t d;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulAlgo_t algo;
    size_t ws;
};

Mm make(cublasLtHandle_t h, long m, long n, long k, int target, size_t wsmax) {
    Mm r;
    CK(cublasLtMatmulDescCreate(&r.d, CUBLAS_COMPUTE_64F, CUDA_R_64F));
    cublasOperation_t ta = CUBLAS_OP_N, tb = CUBLAS_OP_T;
    CK(cublasLtMatmulDescSetAttribute(r.d, CUBLASLT_MATMUL_DESC_TRANSA, &ta, 4));
    CK(cublasLtMatmulDescSetAttribute(r.d, CUBLASLT_MATMUL_DESC_TRANSB, &tb, 4));
    if (target > 0) CK(cublasLtMatmulDescSetAttribute(r.d, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, &target, 4));
    CK(cublasLtMatrixLayoutCreate(&r.la, CUDA_R_64F, m, k, m));
    CK(cublasLtMatrixLayoutCreate(&r.lb, CUDA_R_64F, n, k, n));
    CK(cublasLtMatrixLayoutCreate(&r.lc, CUDA_R_64F, m, n, m));
    cublasLtMatmulPreference_t p;
    CK(cublasLtMatmulPreferenceCreate(&p));
    CK(cublasLtMatmulPreferenceSetAttribute(p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsmax, 8));
    cublasLtMatmulHeuristicResult_t res;
    int found = 0;
    CK(cublasLtMatmulAlgoGetHeuristic(h, r.d, r.la, r.lb, r.lc, r.lc, p, 1, &res, &found));
    if (!found) {
        printf("no algo\n");
        exit(1);
    }
    r.algo = res.algo;
    r.ws = res.workspaceSize;
    return r;
}

int main() {
    cublasLtHandle_t h;
    CK(cublasLtCreate(&h));
    int lo, hi;
    CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    cudaStream_t main_s, side_s;
    CK(cudaStreamCreateWithPriority(&main_s, cudaStreamNonBlocking, lo));
    CK(cudaStreamCreateWithPriority(&side_s, cudaStreamNonBlocking, hi));
    const long mmax = 16256;
    double *A, *B, *C, *x, *ws;
    CK(cudaMalloc(&A, mmax * 64 * 8));
    CK(cudaMalloc(&B, mmax * 64 * 8));
    CK(cudaMalloc(&C, mmax * mmax * 8));
    CK(cudaMalloc(&x, 256 * 8));
    CK(cudaMalloc(&ws, 4 << 20));
    CK(cudaMemset(A, 0, mmax * 64 * 8));
    CK(cudaMemset(B, 0, mmax * 64 * 8));
    CK(cudaMemset(C, 0, mmax * mmax * 8));
    CK(cudaMemset(x, 0, 256 * 8));
    cudaEvent_t e0, e1, s0, s1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventCreate(&s0);
    cudaEventCreate(&s1);
    const double one = 1.0, mone = -1.0;
    const int chain = 9, iters = 400;
    // the chain alone
    auto run_chain = [&] {
        for (int i = 0; i < chain; i++) one_block<<<1, 256, 0, side_s>>>(x, iters);
    };
    std::vector<float> tc;
    for (int r = 0; r < 7; r++) {
        cudaEventRecord(s0, side_s);
        run_chain();
        cudaEventRecord(s1, side_s);
        cudaEventSynchronize(s1);
        float ms;
        cudaEventElapsedTime(&ms, s0, s1);
        tc.push_back(ms * 1000);
    }
    std::sort(tc.begin(), tc.end());
    printf("chain of %d one-block kernels alone: %.1f us\n", chain, tc[3]);
    printf("%6s %7s %9s %9s %9s\n", "m", "target", "gemm us", "beside", "chain us");
    for (long m : {4064L, 8128L, 16256L}) {
        for (int target : {0, 124, 116, 100}) {
            Mm mm = make(h, m, m - 32, 64, target, 4 << 20);
            std::vector<float> tg, tb, tcb;
            for (int r = 0; r < 7; r++) {
                float ms;
                cudaEventRecord(e0, main_s);
                CK(cublasLtMatmul(h, mm.d, &mone, A, mm.la, B, mm.lb, &one, C, mm.lc, C, mm.lc, &mm.algo, ws, mm.ws, main_s));
                cudaEventRecord(e1, main_s);
                cudaEventSynchronize(e1);
                cudaEventElapsedTime(&ms, e0, e1);
                tg.push_back(ms * 1000);
                // beside the chain, started together
                cudaEventRecord(e0, main_s);
                CK(cudaStreamWaitEvent(side_s, e0));
                cudaEventRecord(s0, side_s);
                CK(cublasLtMatmul(h, mm.d, &mone, A, mm.la, B, mm.lb, &one, C, mm.lc, C, mm.lc, &mm.algo, ws, mm.ws, main_s));
                run_chain();
                cudaEventRecord(s1, side_s);
                cudaEventRecord(e1, main_s);
                cudaEventSynchronize(e1);
                cudaEventSynchronize(s1);
                cudaEventElapsedTime(&ms, e0, e1);
                tb.push_back(ms * 1000);
                cudaEventElapsedTime(&ms, s0, s1);
                tcb.push_back(ms * 1000);
            }
            std::sort(tg.begin(), tg.end());
            std::sort(tb.begin(), tb.end());
            std::sort(tcb.begin(), tcb.end());
            printf("%6ld %7d %9.1f %9.1f %9.1f\n", m, target, tg[3], tb[3], tcb[3]);
        }
    }
    printf("floor at 4.4 TB/s: 4064 %.1f, 8128 %.1f, 16256 %.1f us\n", 4064.0 * 4064 * 16 / 4.4e6,
           8128.0 * 8128 * 16 / 4.4e6, 16256.0 * 16256 * 16 / 4.4e6);
    return 0;
}
