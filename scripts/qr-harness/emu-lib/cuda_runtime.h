#pragma once
// CPU emulation of the CUDA subset crates/gpublas/kernels/cholqr.cu uses (adapted from
// ../emu/cuda_runtime.h): one std::thread per CUDA thread, blocks in turn, real block, warp and
// named barriers; shuffles move raw 64-bit patterns (u64 masks survive), atomicOr is a real atomic,
// dynamic shared memory is filled with EMU_STALE (NaN) before each block (stale reads show up) and a guard band
// beyond the launch's declared size is checked after each block (out-of-bounds writes).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <cstdio>
#include <cmath>
#include <barrier>
#include <thread>
#include <vector>
#include <memory>
#include <mutex>
struct dim3 { unsigned x = 1, y = 1, z = 1; dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
inline thread_local dim3 threadIdx, blockIdx;
struct alignas(16) double2 { double x, y; };
typedef long long i64;
typedef unsigned long long u64;
inline void pdl_enter() {}
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
    uint64_t slot[256];
    std::mutex mu;
    std::unique_ptr<std::barrier<>> named[16];   // bar.sync id, n: made by the first arrival
    EmuBlock(int nt) : block(nt) { for (int w = 0; w < nt / 32; w++) warp.emplace_back(new std::barrier<>(32)); }
};
inline EmuBlock* emu_blk;
// bar.sync id, n (n threads, whole warps; id 0 is __syncthreads'): every use of an id must name the same n
inline void emu_bar_sync(int id, int n) {
    if (id <= 0 || id >= 16 || n % 32) { fprintf(stderr, "emu: bad bar.sync %d, %d\n", id, n); exit(2); }
    std::barrier<>* b;
    {
        std::lock_guard<std::mutex> l(emu_blk->mu);
        if (!emu_blk->named[id]) emu_blk->named[id].reset(new std::barrier<>(n));
        b = emu_blk->named[id].get();
    }
    b->arrive_and_wait();
}
inline void __syncthreads() { emu_blk->block.arrive_and_wait(); }
template <class T> inline T emu_shfl(T x, int src) {
    static_assert(sizeof(T) <= 8, "shfl");
    const int t = threadIdx.x, w = t >> 5;
    uint64_t b = 0; memcpy(&b, &x, sizeof(T));
    emu_blk->slot[t] = b;
    emu_blk->warp[w]->arrive_and_wait();
    const uint64_t r = emu_blk->slot[(w << 5) + (src & 31)];
    emu_blk->warp[w]->arrive_and_wait();
    T y; memcpy(&y, &r, sizeof(T));
    return y;
}
template <class T> inline T __shfl_xor_sync(unsigned, T x, int o) { return emu_shfl(x, (threadIdx.x & 31) ^ o); }
template <class T> inline T __shfl_sync(unsigned, T x, int l) { return emu_shfl(x, l); }
inline void __syncwarp(unsigned = 0xffffffffu) { emu_blk->warp[threadIdx.x >> 5]->arrive_and_wait(); }
inline bool __any_sync(unsigned, bool p) {
    bool any = false;
    for (int l = 0; l < 32; l++) any = emu_shfl((int)p, l) || any;  // every lane takes part in each
    return any;
}
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
// lapack.cuh's dmma8844 (m8n8k4 f64 MMA) by its shuffle branch: the library puts lapack.cuh in
// front of cholqr.cu, the emulator only this file.
inline void dmma8844(double& c0, double& c1, double a, double b) {
    const int lane = threadIdx.x & 31, r = lane >> 2, j = 2 * (lane & 3);
    for (int k = 0; k < 4; k++) {
        const double ak = __shfl_sync(0xffffffffu, a, 4 * r + k);
        const double b0 = __shfl_sync(0xffffffffu, b, 4 * j + k), b1 = __shfl_sync(0xffffffffu, b, 4 * (j + 1) + k);
        c0 = __fma_rn(ak, b0, c0);
        c1 = __fma_rn(ak, b1, c1);
    }
}
inline unsigned atomicOr(unsigned* a, unsigned v) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }
template <class T> inline T __ldcg(const T* p) { return *(const volatile T*)p; }
template <class T> inline T __ldg(const T* p) { return *p; }
#ifndef EMU_STALE
#define EMU_STALE NAN
#endif
constexpr int EMU_DSM = 40000, EMU_GUARD = 1024;
alignas(16) inline double emu_dsm[EMU_DSM + EMU_GUARD];
inline long emu_oob = 0;
template <class A> void emu_launch(void (*k)(A), dim3 g, dim3 b, size_t smem, A a) {
    const size_t nd = smem / 8;
    if (nd + EMU_GUARD > (size_t)EMU_DSM + EMU_GUARD || b.x % 32) { fprintf(stderr, "emu: bad launch\n"); exit(2); }
    const uint64_t guard = 0x7ff4deadbeef0001ull;
    for (unsigned by = 0; by < g.y; by++)
        for (unsigned bx = 0; bx < g.x; bx++) {
            EmuBlock blk((int)b.x); emu_blk = &blk;
            for (size_t i = 0; i < nd; i++) emu_dsm[i] = EMU_STALE;   // stale shared memory must not be read
            for (size_t i = nd; i < nd + EMU_GUARD; i++) memcpy(&emu_dsm[i], &guard, 8);
            std::vector<std::thread> th;
            for (unsigned t = 0; t < b.x; t++) th.emplace_back([&, t] { threadIdx = dim3(t); blockIdx = dim3(bx, by); k(a); });
            for (auto& x : th) x.join();
            for (size_t i = nd; i < nd + EMU_GUARD; i++)
                if (memcmp(&emu_dsm[i], &guard, 8)) { emu_oob++; fprintf(stderr, "emu: dyn smem write past %zu B at double %zu\n", smem, i); break; }
        }
}
