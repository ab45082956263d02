// CPU emulation of the CUDA pieces blas2u.cu's rank_packed uses, for rank-packed-emu_test.cpp.
//
// Threads are fibers (a 14-instruction x86-64 context switch, no syscalls): a block runs warp by
// warp (the kernel has no shared memory and no __syncthreads), and a warp's 32 lanes run one at a
// time until each reaches a warp collective (__shfl_sync, __ballot_sync, __all_sync). When all 32
// lanes wait at one, the collective is evaluated exactly as the hardware would (shuffle: the
// source lane's value; ballot: the bits; all: the AND) and all lanes resume. A warp whose lanes
// do not all reach the same number and kind of collectives (some finished, others waiting, or a
// shuffle against a ballot) is reported as divergent: with the full mask that is undefined
// behaviour on the GPU. The mask must be 0xffffffff.
//
// Memory: each worker thread has a Ctx with the regions the kernel may touch: the packed array of
// each batch entry (exactly its n(n+1)/2 elements, with per-element shadow counts of reads and
// writes and the first hardware thread (block * 256 + thread) to access it, plus a flag when a
// second one does) and the x / y vectors (a bitmap of the elements off0 + i*inc, i < n). Every
// __ldcs / __stcs of a uint4 must be 16-byte aligned and lie inside one entry's array; every
// scalar read (emu_rd) inside an array or on a valid vector element; every scalar write (emu_wr)
// inside an array. A violating store is not performed.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

// ---- CUDA types and builtins ------------------------------------------------------------
struct dim3 { unsigned x = 0, y = 0, z = 0; };
inline thread_local dim3 threadIdx, blockIdx;
inline thread_local dim3 blockDim{256, 1, 1};
struct float2 { float x, y; };
struct double2 { double x, y; };
struct uint4 { unsigned x, y, z, w; };
inline float2 make_float2(float a, float b) { return {a, b}; }
inline double2 make_double2(double a, double b) { return {a, b}; }
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
template <class A, class B> inline std::common_type_t<A, B> min(A a, B b) {
    typedef std::common_type_t<A, B> C;
    return (C)a < (C)b ? (C)a : (C)b;
}
template <class A, class B> inline std::common_type_t<A, B> max(A a, B b) {
    typedef std::common_type_t<A, B> C;
    return (C)a < (C)b ? (C)b : (C)a;
}
using std::sqrt;

// ---- fibers ------------------------------------------------------------------------------
#include "emu-fiber.h"

enum { OP_SHFL32 = 1, OP_SHFL64, OP_BALLOT, OP_ALL };
struct Fiber {
    void* sp = nullptr;
    int state = 0;  // 0 ready, 1 waiting at a collective, 2 finished
    int op = 0, src = 0;
    unsigned mask = 0;
    uint64_t val = 0, res = 0;
};
struct Warp {
    static constexpr size_t STACK = 256 * 1024;
    Fiber f[32];
    std::vector<char> stacks = std::vector<char>(32 * STACK);
    void* sched_sp = nullptr;
    int cur = 0, base = 0;
    const std::function<void()>* body = nullptr;
};
inline thread_local Warp* emu_warp = nullptr;

[[noreturn]] inline void emu_fiber_main() {
    (*emu_warp->body)();
    Fiber& f = emu_warp->f[emu_warp->cur];
    f.state = 2;
    emu_swap(&f.sp, emu_warp->sched_sp);
    abort();
}

inline uint64_t emu_collective(int op, unsigned mask, uint64_t val, int src) {
    Warp* w = emu_warp;
    Fiber& f = w->f[w->cur];
    f.op = op;
    f.mask = mask;
    f.val = val;
    f.src = src;
    f.state = 1;
    emu_swap(&f.sp, w->sched_sp);
    return f.res;
}
inline float __shfl_sync(unsigned m, float v, int s) {
    uint32_t b;
    memcpy(&b, &v, 4);
    b = (uint32_t)emu_collective(OP_SHFL32, m, b, s);
    memcpy(&v, &b, 4);
    return v;
}
inline double __shfl_sync(unsigned m, double v, int s) {
    uint64_t b;
    memcpy(&b, &v, 8);
    b = emu_collective(OP_SHFL64, m, b, s);
    memcpy(&v, &b, 8);
    return v;
}
inline unsigned __ballot_sync(unsigned m, int p) { return (unsigned)emu_collective(OP_BALLOT, m, p != 0, 0); }
inline int __all_sync(unsigned m, int p) { return (int)emu_collective(OP_ALL, m, p != 0, 0); }

// ---- memory checks -----------------------------------------------------------------------
struct Region {
    char *lo, *hi;  // bytes [lo, hi)
    bool mat;       // a packed array (else a vector)
    long esz;
    std::vector<uint8_t> valid;          // vectors: readable elements
    std::vector<uint16_t> rd, wr;        // arrays: access counts per element
    std::vector<int> owner;              // first hardware thread to access the element
    std::vector<uint8_t> shared;         // accessed by a second hardware thread
};
struct Ctx {
    std::vector<Region> regs;
    char *alo = nullptr, *ahi = nullptr;  // the whole allocation of the arrays (padding included)
    long errors = 0, divergent = 0;
    long probe[8] = {};  // coverage (EMU_PROBE in the prepared kernel source)
    std::string msgs;
    void err(const char* fmt, ...) __attribute__((format(printf, 2, 3)));
};
#include <cstdarg>
inline void Ctx::err(const char* fmt, ...) {
    errors++;
    if (errors > 6) return;
    char b[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    msgs += "    ";
    msgs += b;
    msgs += "\n";
}
inline thread_local Ctx* emu_ctx = nullptr;
#define EMU_PROBE(k) (emu_ctx->probe[k]++)
inline int emu_hwid() { return (int)(blockIdx.x * 256 + threadIdx.x); }

// The region holding bytes [p, p + n), or null.
inline Region* emu_find(const void* p, size_t n) {
    const char* c = (const char*)p;
    for (auto& r : emu_ctx->regs)
        if (c >= r.lo && c + n <= r.hi) return &r;
    return nullptr;
}
inline void emu_touch(Region& r, long e, bool write) {
    (write ? r.wr : r.rd)[e]++;
    const int id = emu_hwid();
    if (r.owner[e] < 0) r.owner[e] = id;
    else if (r.owner[e] != id) r.shared[e] = 1;
}
inline const char* emu_where() {
    static thread_local char b[64];
    snprintf(b, sizeof b, "block %u thread %u", blockIdx.x, threadIdx.x);
    return b;
}

template <class T> T emu_rd(const T* p) {
    Region* r = emu_find(p, sizeof(T));
    T v;
    memset(&v, 0xff, sizeof v);  // NaN
    if (!r || ((const char*)p - r->lo) % sizeof(T)) {
        emu_ctx->err("scalar read outside the arrays and vectors at %p (%s)", (const void*)p, emu_where());
        return v;
    }
    const long e = ((const char*)p - r->lo) / (long)sizeof(T);
    if (r->mat) emu_touch(*r, e, false);
    else if (!r->valid[e]) emu_ctx->err("read of vector element %ld that is not x(i)/y(i) (%s)", e, emu_where());
    memcpy(&v, p, sizeof v);
    return v;
}
template <class T> void emu_wr(T* p, T v) {
    Region* r = emu_find(p, sizeof(T));
    if (!r || !r->mat || ((const char*)p - r->lo) % sizeof(T)) {
        emu_ctx->err("scalar write outside the arrays at %p (%s)", (void*)p, emu_where());
        return;
    }
    emu_touch(*r, ((char*)p - r->lo) / (long)sizeof(T), true);
    memcpy(p, &v, sizeof v);
}
inline Region* emu_vec(const uint4* p, bool write) {
    if ((uintptr_t)p & 15) emu_ctx->err("misaligned 16-byte %s at %p (%s)", write ? "store" : "load", (const void*)p, emu_where());
    Region* r = emu_find(p, 16);
    if (!r || !r->mat) {
        const char* c = (const char*)p;
        long off = emu_ctx->regs.empty() ? 0 : (long)(c - emu_ctx->regs[0].lo);
        emu_ctx->err("16-byte %s not inside one entry's array: byte %ld from entry 0's element 0 (%s)",
                     write ? "store" : "load", off, emu_where());
        return nullptr;
    }
    return r;
}
inline uint4 __ldcs(const uint4* p) {
    uint4 v;
    memset(&v, 0xff, sizeof v);
    Region* r = emu_vec(p, false);
    if (r) {
        const long e0 = ((const char*)p - r->lo) / r->esz;
        for (long k = 0; k < 16 / r->esz; k++) emu_touch(*r, e0 + k, false);
        memcpy(&v, p, 16);
    } else if ((const char*)p >= emu_ctx->alo && (const char*)p + 16 <= emu_ctx->ahi) {
        memcpy(&v, p, 16);  // padding: the NaN poison
    }
    return v;
}
inline void __stcs(uint4* p, uint4 v) {
    Region* r = emu_vec(p, true);
    if (!r) return;
    const long e0 = ((const char*)p - r->lo) / r->esz;
    for (long k = 0; k < 16 / r->esz; k++) emu_touch(*r, e0 + k, true);
    memcpy(p, &v, 16);
}

// ---- launching -----------------------------------------------------------------------------
// Runs one warp of block `blk`: its 32 lanes as fibers through `body`. Returns false when the
// warp diverged (reported in ctx).
inline bool emu_run_warp(Warp& w, int warp, const std::function<void()>& body) {
    emu_warp = &w;
    w.body = &body;
    w.base = warp * 32;
    for (int l = 0; l < 32; l++) {
        Fiber& f = w.f[l];
        f = Fiber();
        char* top = w.stacks.data() + (l + 1) * Warp::STACK;
        top = (char*)((uintptr_t)top & ~(uintptr_t)15);
        void** s = (void**)top;
        *--s = nullptr;                         // the entry's "return address"
        *--s = (void*)&emu_fiber_main;          // popped by emu_swap's ret
        for (int k = 0; k < 6; k++) *--s = nullptr;  // rbp rbx r12 r13 r14 r15
        f.sp = s;
    }
    for (long round = 0;; round++) {
        for (int l = 0; l < 32; l++) {
            if (w.f[l].state != 0) continue;
            w.cur = l;
            threadIdx.x = w.base + l;
            emu_swap(&w.sched_sp, w.f[l].sp);
        }
        int waiting = 0, done = 0;
        for (auto& f : w.f) (f.state == 1 ? waiting : done)++;
        if (done == 32) return true;
        if (done) {
            emu_ctx->divergent++;
            emu_ctx->err("divergent warp %d of block %u: at collective %ld, %d lanes finished, %d wait", warp, blockIdx.x,
                         round, done, waiting);
            return false;
        }
        const int op = w.f[0].op;
        for (auto& f : w.f)
            if (f.op != op || f.mask != 0xffffffffu) {
                emu_ctx->divergent++;
                emu_ctx->err("divergent warp %d of block %u: collective %ld of different kinds or masks", warp, blockIdx.x, round);
                return false;
            }
        uint64_t acc = op == OP_ALL ? 1 : 0;
        if (op == OP_BALLOT)
            for (int l = 0; l < 32; l++) acc |= (uint64_t)(w.f[l].val & 1) << l;
        if (op == OP_ALL)
            for (auto& f : w.f) acc &= f.val;
        for (int l = 0; l < 32; l++) {
            Fiber& f = w.f[l];
            f.res = (op == OP_SHFL32 || op == OP_SHFL64) ? w.f[f.src & 31].val : acc;
            f.state = 0;
        }
    }
}
// A grid of 256-thread blocks, one after another.
inline void emu_launch(long blocks, const std::function<void()>& kern) {
    static thread_local Warp* w = new Warp();
    for (long b = 0; b < blocks; b++) {
        blockIdx.x = (unsigned)b;
        for (int wi = 0; wi < 8; wi++) emu_run_warp(*w, wi, kern);
    }
}
