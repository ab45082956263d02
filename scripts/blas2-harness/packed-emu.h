// CPU emulation of the CUDA pieces blas2.cu's sweep and pass2 use (one std::thread per CUDA
// thread), after /work/helper-review/emu/r2/emu.h, with: blocks of any size (partial warps),
// __syncwarp, __shfl_sync (width segments), __all_sync, and every __ldg checked against the
// readable byte ranges in emu_ok (a 16-byte load must also be 16-byte aligned).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <cmath>
#include <barrier>
#include <thread>
#include <vector>
#include <memory>
#include <atomic>
#include <algorithm>
using std::min; using std::max;
struct dim3 { unsigned x = 1, y = 1, z = 1; };
inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim;
struct float2 { float x, y; }; struct double2 { double x, y; };
struct uint4 { unsigned x, y, z, w; };
inline float2 make_float2(float a, float b) { return {a, b}; }
inline double2 make_double2(double a, double b) { return {a, b}; }
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(x)
struct Iv { uintptr_t lo, hi; };
inline std::vector<Iv> emu_ok;  // readable byte ranges for __ldg
inline std::atomic<long> emu_badread{0}, emu_misalign{0}, emu_loads{0}, emu_vloads{0}, emu_badshfl{0};
inline uintptr_t emu_alo = 0, emu_ahi = 0;  // the matrix buffer: its loads are counted apart
inline std::atomic<long> emu_avec{0}, emu_ascal{0};
inline void emu_chk(const void* p, size_t n, bool vec) {
    uintptr_t a = (uintptr_t)p;
    emu_loads++;
    if (a >= emu_alo && a < emu_ahi) (vec ? emu_avec : emu_ascal)++;
    if (vec) emu_vloads++;
    if (vec && (a & 15)) emu_misalign++;
    for (auto& v : emu_ok) if (a >= v.lo && a + n <= v.hi) return;
    emu_badread++;
}
template <class T> T __ldg(const T* p) { emu_chk(p, sizeof(T), false); T r; memcpy(&r, p, sizeof(T)); return r; }
inline uint4 __ldg(const uint4* p) { emu_chk(p, 16, true); uint4 r; memcpy(&r, p, 16); return r; }
struct EmuBlock {
    int nt;
    std::barrier<> block;
    std::vector<std::unique_ptr<std::barrier<>>> warp;
    double slot[1024];
    EmuBlock(int n) : nt(n), block(n) { for (int w = 0; w * 32 < n; w++) warp.emplace_back(new std::barrier<>(std::min(32, n - 32 * w))); }
};
inline EmuBlock* emu_blk;
inline void __syncthreads() { emu_blk->block.arrive_and_wait(); }
inline void __syncwarp() { emu_blk->warp[threadIdx.x >> 5]->arrive_and_wait(); }
inline double emu_shfl(double x, int src) {
    const int t = threadIdx.x, w = t >> 5;
    emu_blk->slot[t] = x;
    emu_blk->warp[w]->arrive_and_wait();
    const int st = (w << 5) + (src & 31);
    if (st >= emu_blk->nt) emu_badshfl++;  // a lane the block does not have
    const double r = emu_blk->slot[st < emu_blk->nt ? st : t];
    emu_blk->warp[w]->arrive_and_wait();
    return r;
}
inline double __shfl_xor_sync(unsigned, double x, int o, int w) { int l = threadIdx.x & 31; int s = l ^ o; if ((s / w) != (l / w)) s = l; return emu_shfl(x, s); }
inline float __shfl_xor_sync(unsigned, float x, int o, int w) { return (float)__shfl_xor_sync(0u, (double)x, o, w); }
inline unsigned __shfl_sync(unsigned, unsigned x, int src, int w) { int l = threadIdx.x & 31; int s = (l / w) * w + (src % w); return (unsigned)emu_shfl((double)x, s); }
inline int __all_sync(unsigned, int p) {
    const int t = threadIdx.x, w = t >> 5;
    emu_blk->slot[t] = p ? 1.0 : 0.0;
    emu_blk->warp[w]->arrive_and_wait();
    int r = 1;
    for (int q = w << 5; q < std::min(emu_blk->nt, (w + 1) << 5); q++) r &= emu_blk->slot[q] != 0.0;
    emu_blk->warp[w]->arrive_and_wait();
    return r;
}
