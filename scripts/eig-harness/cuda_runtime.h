#pragma once
// CPU emulation of the CUDA subset crates/gpublas/kernels/eig.cu uses (adapted from
// ../qr-harness/emu-small/cuda_runtime.h): one std::thread per CUDA thread, blocks in turn, real block, warp and
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
inline thread_local dim3 threadIdx, blockIdx, blockDim, gridDim;
inline int atomicMin(int* a, int v) { int o = *a; while (v < o && !__atomic_compare_exchange_n(a, &o, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {} return o; }
struct alignas(16) double2 { double x, y; };
struct alignas(8) float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
inline double2 make_double2(double x, double y) { return {x, y}; }
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
using std::isfinite;
inline float __int_as_float(int v) { float f; memcpy(&f, &v, 4); return f; }
inline int __float_as_int(float v) { int i; memcpy(&i, &v, 4); return i; }
inline double __longlong_as_double(long long v) { double f; memcpy(&f, &v, 8); return f; }
inline long long __double_as_longlong(double v) { long long i; memcpy(&i, &v, 8); return i; }
using std::fma; using std::fmax; using std::fabs; using std::sqrt;
typedef long long i64;
typedef unsigned long long u64;
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(x) __attribute__((aligned(x)))
struct EmuBlock {
    std::barrier<> block;
    std::vector<std::unique_ptr<std::barrier<>>> warp;
    uint64_t slot[256];
    std::mutex mu;
    std::unique_ptr<std::barrier<>> named[16];
    int orv = 0;   // bar.sync id, n: made by the first arrival
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
inline int __any_sync(unsigned, int p) {
    const int t = threadIdx.x, w = t >> 5;
    emu_blk->slot[t] = p != 0;
    emu_blk->warp[w]->arrive_and_wait();
    int r = 0;
    for (int l = 0; l < 32; ++l) r |= (int)emu_blk->slot[(w << 5) + l];
    emu_blk->warp[w]->arrive_and_wait();
    return r;
}
inline int __syncthreads_or(int p) {
    emu_blk->block.arrive_and_wait();  // the previous call's readers are done
    if (threadIdx.x == 0) emu_blk->orv = 0;
    emu_blk->block.arrive_and_wait();
    if (p) __atomic_fetch_or(&emu_blk->orv, 1, __ATOMIC_SEQ_CST);
    emu_blk->block.arrive_and_wait();
    return __atomic_load_n(&emu_blk->orv, __ATOMIC_SEQ_CST);
}
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline unsigned atomicOr(unsigned* a, unsigned v) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }
template <class T> inline T __ldcg(const T* p) { return *(const volatile T*)p; }
template <class T> inline T __ldg(const T* p) { return *p; }
#ifndef EMU_STALE
#define EMU_STALE NAN
#endif
constexpr int EMU_DSM = 20000, EMU_GUARD = 1024;
alignas(16) inline double emu_dsm[EMU_DSM + EMU_GUARD];
inline long emu_oob = 0;
template <class A, class... L> void emu_launch(void (*k)(A, L...), dim3 g, dim3 b, size_t smem, A a, L... l) {
    const size_t nd = smem / 8;
    if (nd + EMU_GUARD > (size_t)EMU_DSM + EMU_GUARD || b.x % 32) { fprintf(stderr, "emu: bad launch\n"); exit(2); }
    const uint64_t guard = 0x7ff4deadbeef0001ull;
    for (unsigned by = 0; by < g.y; by++)
        for (unsigned bx = 0; bx < g.x; bx++) {
            EmuBlock blk((int)b.x); emu_blk = &blk;
            for (size_t i = 0; i < nd; i++) emu_dsm[i] = EMU_STALE;   // stale shared memory must not be read
            for (size_t i = nd; i < nd + EMU_GUARD; i++) memcpy(&emu_dsm[i], &guard, 8);
            std::vector<std::thread> th;
            for (unsigned t = 0; t < b.x; t++) th.emplace_back([&, t] { threadIdx = dim3(t); blockIdx = dim3(bx, by); blockDim = b; gridDim = g; k(a, l...); });
            for (auto& x : th) x.join();
            for (size_t i = nd; i < nd + EMU_GUARD; i++)
                if (memcmp(&emu_dsm[i], &guard, 8)) { emu_oob++; fprintf(stderr, "emu: dyn smem write past %zu B at double %zu\n", smem, i); break; }
        }
}
