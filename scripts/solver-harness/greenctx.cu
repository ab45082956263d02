// Does a green context for the big product leave the side lane's small kernels their SMs?
// A DGEMM of the look-ahead LU's trailing-update shape runs on a "main" stream (primary context,
// or a green context of fewer SMs) while a chain of small kernels (a 48-block grid that needs an
// SM each, then 8-block kernels, as a side-lane panel issues them) runs on a high-priority
// stream of the primary context. Prints the chain's and the products' times.
// nvcc -O3 -arch=sm_90 greenctx.cu -lcublas -lcuda -o greenctx
#include <cstdio>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <vector>
#define CK(x) do { auto e_ = (x); if (e_ != 0) { printf("%s:%d %s -> %d\n", __FILE__, __LINE__, #x, (int)e_); return 1; } } while (0)

// A block that spins `ns` nanoseconds with `smem` bytes of shared memory (one block per SM when large).
__global__ void spin(long long ns, double* out) {
    extern __shared__ double s[];
    long long t0 = clock64();
    double acc = threadIdx.x;
    while ((clock64() - t0) < ns * 2) acc = acc * 1.0000001 + 1e-9;  // ~2 clocks per ns
    s[threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.x == 0 && s[0] == -1.0) out[blockIdx.x] = s[1];
}

int main(int argc, char** argv) {
    const int M = 15360, N = 14848, K = 512, reps = 3, chain = 120;
    CK(cuInit(0));
    CUdevice dev; CK(cuDeviceGet(&dev, 0));
    CUcontext prim; CK(cuDevicePrimaryCtxRetain(&prim, dev)); CK(cuCtxSetCurrent(prim));
    int sms; CK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    double *A, *B, *C, *out;
    CK(cudaMalloc(&A, (size_t)M * K * 8)); CK(cudaMalloc(&B, (size_t)K * N * 8)); CK(cudaMalloc(&C, (size_t)M * N * 8));
    CK(cudaMalloc(&out, 4096 * 8));
    CK(cudaMemset(A, 0, (size_t)M * K * 8)); CK(cudaMemset(B, 0, (size_t)K * N * 8)); CK(cudaMemset(C, 0, (size_t)M * N * 8));
    int lo, hi; CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    cudaStream_t side; CK(cudaStreamCreateWithPriority(&side, cudaStreamNonBlocking, hi));
    CK(cudaFuncSetAttribute(spin, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    cudaEvent_t e0, e1, g0, g1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    int leafgrid = 48;
    auto side_chain = [&]() {
        cudaEventRecord(e0, side);
        for (int i = 0; i < chain; ++i) {
            if (i % 8 == 0) spin<<<leafgrid, 256, 200 * 1024, side>>>(100000, out);   // a leaf: an SM a block, 100 us
            else spin<<<8, 256, 48 * 1024, side>>>(3000, out);                  // a small step, 3 us
        }
        cudaEventRecord(e1, side);
    };
    const double one = 1.0, mone = -1.0;
    // Configurations: 0 = product in the primary context; g = product in a green context of g SMs.
    std::vector<int> cfgs = {0, -1};
    for (int g : {112, 96, 80}) if (g < sms) cfgs.push_back(g);
    for (int g : cfgs) {
        CUcontext pctx = prim;
        CUstream mstream = nullptr;
        CUgreenCtx gctx = nullptr;
        cudaStream_t main_s;
        leafgrid = g > 0 ? (sms - g < 48 ? sms - g : 48) : 48;
        if (g > 0) {
            CUdevResource all, part, rest; unsigned n = 1;
            CK(cuDeviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM));
            CK(cuDevSmResourceSplitByCount(&part, &n, &all, &rest, 0, g));
            CUdevResourceDesc desc; CK(cuDevResourceGenerateDesc(&desc, &part, 1));
            CK(cuGreenCtxCreate(&gctx, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
            CK(cuCtxFromGreenCtx(&pctx, gctx));
            CK(cuGreenCtxStreamCreate(&mstream, gctx, CU_STREAM_NON_BLOCKING, 0));
            main_s = (cudaStream_t)mstream;
            printf("green context: %u SMs for the product (asked %d), leaves of %d blocks\n", part.sm.smCount, g, leafgrid);
        } else {
            CK(cudaStreamCreateWithFlags(&main_s, cudaStreamNonBlocking));
        }
        CK(cuCtxSetCurrent(pctx));
        cublasHandle_t h; CK(cublasCreate(&h)); CK(cublasSetStream(h, main_s));
        CK(cudaEventCreate(&g0)); CK(cudaEventCreate(&g1));  // in the product's context
        CK(cuCtxSetCurrent(prim));
        for (int pass = 0; pass < 2; ++pass) {
            // the product alone, the chain alone, then both
            CK(cuCtxSetCurrent(pctx));
            cudaEventRecord(g0, main_s);
            for (int r = 0; r < reps; ++r) CK(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &mone, A, M, B, K, &one, C, M));
            cudaEventRecord(g1, main_s);
            CK(cudaEventSynchronize(g1));
            CK(cuCtxSetCurrent(prim));
            CK(cudaDeviceSynchronize());
            float gms; cudaEventElapsedTime(&gms, g0, g1);
            side_chain(); CK(cudaDeviceSynchronize());
            float cms; cudaEventElapsedTime(&cms, e0, e1);
            CK(cuCtxSetCurrent(pctx));
            cudaEventRecord(g0, main_s);
            for (int r = 0; r < reps * 3; ++r) CK(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &mone, A, M, B, K, &one, C, M));
            cudaEventRecord(g1, main_s);
            CK(cuCtxSetCurrent(prim));
            side_chain();
            CK(cudaDeviceSynchronize());
            CK(cudaEventSynchronize(g1));
            float both_c, both_g; cudaEventElapsedTime(&both_c, e0, e1); cudaEventElapsedTime(&both_g, g0, g1);
            if (pass == 1)
                printf("%-22s product alone %.3f ms/call | chain alone %.3f ms | chain beside products %.3f ms (products %.3f ms/call)\n",
                       g > 0 ? "green" : (g == 0 ? "primary" : "primary (again)"), gms / reps, cms, both_c, both_g / (reps * 3));
        }
        CK(cuCtxSetCurrent(pctx));
        cublasDestroy(h);
        cudaEventDestroy(g0); cudaEventDestroy(g1);
        CK(cuCtxSetCurrent(prim));
        if (gctx) { cuStreamDestroy(mstream); cuGreenCtxDestroy(gctx); } else cudaStreamDestroy(main_s);
    }
    printf("done\n");
    return 0;
}
