// Throughput of FP64 tensor-core MMA shapes (m8n8k4, m16n8k4, m16n8k8, m16n8k16) on one GPU:
// eight independent accumulators a warp, 4 / 8 / 16 warps a block, a block per SM. Measured on
// the H200 (session 31): m8n8k4 29.9 / 32.8 / 33.0 TFLOP/s at 128 / 256 / 512 threads,
// m16n8k4 60.6 / 65.5, m16n8k8 65.5 / 66.0, m16n8k16 66.1 / 66.4 (the m16n8k* shapes at 512
// threads: too many registers to launch). So m8n8k4 reaches half the FP64 tensor peak and
// any m16n8k* shape all of it. On the GPU machine:
//   nvcc -O3 -arch=sm_90 -o /tmp/dmma_bench scripts/q2-harness/dmma_bench.cu && /tmp/dmma_bench
#include <cstdio>
#include <cuda_runtime.h>
#define ITER 4096
template <int SHAPE> __global__ void k(double* out, double s) {
    double a[8], b[4], c[8][4];
    for (int i = 0; i < 8; i++) { a[i] = s * (threadIdx.x + i); }
    for (int i = 0; i < 4; i++) b[i] = s * (i + 1);
    for (int j = 0; j < 8; j++) for (int i = 0; i < 4; i++) c[j][i] = 0;
    for (int it = 0; it < ITER; it++) {
#pragma unroll
        for (int j = 0; j < 8; j++) {
            if (SHAPE == 0)
                asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1},{%2},{%3},{%0,%1};" : "+d"(c[j][0]), "+d"(c[j][1]) : "d"(a[0]), "d"(b[0]));
            else if (SHAPE == 1)
                asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3},{%4,%5},{%6},{%0,%1,%2,%3};" : "+d"(c[j][0]), "+d"(c[j][1]), "+d"(c[j][2]), "+d"(c[j][3]) : "d"(a[0]), "d"(a[1]), "d"(b[0]));
            else if (SHAPE == 2)
                asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3},{%4,%5,%6,%7},{%8,%9},{%0,%1,%2,%3};" : "+d"(c[j][0]), "+d"(c[j][1]), "+d"(c[j][2]), "+d"(c[j][3]) : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
            else
                asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3},{%4,%5,%6,%7,%8,%9,%10,%11},{%12,%13,%14,%15},{%0,%1,%2,%3};" : "+d"(c[j][0]), "+d"(c[j][1]), "+d"(c[j][2]), "+d"(c[j][3]) : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
        }
    }
    double t = 0;
    for (int j = 0; j < 8; j++) for (int i = 0; i < 4; i++) t += c[j][i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = t;
}
template <int SHAPE> void run(const char* name, double flops_per, int blocks, int threads) {
    double* out; cudaMalloc(&out, sizeof(double) * blocks * threads);
    k<SHAPE><<<blocks, threads>>>(out, 1e-9); cudaDeviceSynchronize();
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    cudaEventRecord(e0); k<SHAPE><<<blocks, threads>>>(out, 1e-9); cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    double fl = flops_per * 8.0 * ITER * (blocks * threads / 32);
    printf("%-10s blocks %4d threads %4d: %.3f ms  %.1f TFLOP/s  %s\n", name, blocks, threads, ms, fl / ms / 1e9, cudaGetErrorString(cudaGetLastError()));
    cudaFree(out);
}
int main() {
    int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    for (int w : {4, 8, 16}) {
        run<0>("m8n8k4", 2.0 * 8 * 8 * 4, sms, 32 * w);
        run<1>("m16n8k4", 2.0 * 16 * 8 * 4, sms, 32 * w);
        run<2>("m16n8k8", 2.0 * 16 * 8 * 8, sms, 32 * w);
        run<3>("m16n8k16", 2.0 * 16 * 8 * 16, sms, 32 * w);
    }
}
