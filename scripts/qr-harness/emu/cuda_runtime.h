#pragma once
// CPU emulation of the CUDA subset tsqr.cu uses: one std::thread per CUDA thread, blocks in turn.
#include <cstddef>
#include <cstring>
#include <cstdlib>
#include <cmath>
#include <barrier>
#include <thread>
#include <vector>
#include <memory>
struct dim3 { unsigned x = 1, y = 1, z = 1; dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
inline thread_local dim3 threadIdx, blockIdx;
typedef int cudaError_t; typedef void* cudaEvent_t; typedef void* cudaStream_t;
enum { cudaSuccess = 0, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaFuncAttributeMaxDynamicSharedMemorySize };
struct cudaFuncAttributes { int numRegs; size_t localSizeBytes; };
inline const char* cudaGetErrorString(cudaError_t) { return "err"; }
inline cudaError_t cudaGetLastError() { return 0; }
inline cudaError_t cudaDeviceSynchronize() { return 0; }
template <class T> cudaError_t cudaMalloc(T** p, size_t b) { *p = (T*)malloc(b); memset((void*)*p, 0xff, b); return 0; }
inline cudaError_t cudaFree(void* p) { free(p); return 0; }
inline cudaError_t cudaMemcpy(void* d, const void* s, size_t b, int) { memcpy(d, s, b); return 0; }
inline cudaError_t cudaEventCreate(cudaEvent_t*) { return 0; }
inline cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t = 0) { return 0; }
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return 0; }
inline cudaError_t cudaEventElapsedTime(float* t, cudaEvent_t, cudaEvent_t) { *t = 0; return 0; }
inline cudaError_t cudaEventDestroy(cudaEvent_t) { return 0; }
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(x)
struct EmuBlock {
    std::barrier<> block;
    std::vector<std::unique_ptr<std::barrier<>>> warp;
    double slot[256];
    EmuBlock(int nt) : block(nt) { for (int w = 0; w < 8; w++) warp.emplace_back(new std::barrier<>(32)); }
};
inline EmuBlock* emu_blk;
inline void __syncthreads() { emu_blk->block.arrive_and_wait(); }
inline double emu_shfl(double x, int src) {
    const int t = threadIdx.x, w = t >> 5;
    emu_blk->slot[t] = x;
    emu_blk->warp[w]->arrive_and_wait();
    const double r = emu_blk->slot[(w << 5) + (src & 31)];
    emu_blk->warp[w]->arrive_and_wait();
    return r;
}
inline double __shfl_xor_sync(unsigned, double x, int o) { return emu_shfl(x, (threadIdx.x & 31) ^ o); }
inline double __shfl_sync(unsigned, double x, int l) { return emu_shfl(x, l); }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline double emu_dsm[40000];
template <class A> void emu_launch(void (*k)(A), dim3 g, dim3 b, A a) {
    for (unsigned by = 0; by < g.y; by++)
        for (unsigned bx = 0; bx < g.x; bx++) {
            EmuBlock blk((int)b.x); emu_blk = &blk;
            for (int i = 0; i < 40000; i++) emu_dsm[i] = NAN;   // stale shared memory must not be read
            std::vector<std::thread> th;
            for (unsigned t = 0; t < b.x; t++) th.emplace_back([&, t] { threadIdx = dim3(t); blockIdx = dim3(bx, by); k(a); });
            for (auto& x : th) x.join();
        }
}
template <class A> void emu_launch(void (*k)(A), dim3 g, dim3 b, size_t, A a) { emu_launch(k, g, b, a); }
