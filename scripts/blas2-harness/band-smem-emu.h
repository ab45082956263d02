// CPU emulation of the CUDA pieces band-smem.cuh uses (band-smem-emu_test.cpp).
//
// A block is NT fibers (x86-64 stack switch, no syscalls) run one at a time, in thread order or
// in reverse, each until it reaches bs_sync() (__syncthreads) or returns; a barrier is released
// once every live fiber waits at it (some returned and others waiting: reported as divergence).
// Running the phases between barriers sequentially, in both orders, turns a missing barrier
// (a read of a buffer another thread refills in the same phase) into a deterministic wrong
// result in at least one order.
//
// cp.async (bs_cp / bs_commit / bs_wait<N>): mode IMMEDIATE copies at issue (the earliest the
// hardware may land it), mode DEFERRED queues a thread's copies by commit group and performs
// them in bs_wait<N> only when they must be complete (the latest): a sum before its wait, or a
// refill landing before the previous chunk is summed, gives a wrong result in one of them.
// Shared memory starts every block as NaN.
//
// Every global read (bs_cp with read, bs_ld) is checked against the readable regions: each
// element read must be marked readable (A: stored band elements only; x: its n entries; y: its
// entries, and only when beta != 0). A 16-byte copy must have a 16-byte-aligned source and
// destination; 8- and 4-byte copies their own size's alignment. A copy's destination must lie
// in the block's shared memory.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#define BAND_SMEM_EMU 1
typedef long long bs_i64;
typedef unsigned long long bs_u64;
#define BS_DEV inline
#define __device__
#define __forceinline__ inline

#include "emu-fiber.h"

struct EmuCopy { void* d; const void* s; int bytes; bool read; };
struct EmuFiber {
    void* sp = nullptr;
    int state = 0;  // 0 runnable, 1 at barrier, 2 finished
    std::vector<std::vector<EmuCopy>> groups;  // committed, not yet performed (DEFERRED)
    std::vector<EmuCopy> open;                 // issued since the last commit
};
struct EmuRegion {
    uintptr_t lo = 0, hi = 0;
    int esz = 0;
    std::vector<uint8_t> ok;  // readable elements
    long reads = 0;           // bytes read
};
struct Emu {
    static constexpr size_t STACK = 96 * 1024;
    int nt = 256;
    bool reverse = false, deferred = false;
    std::vector<EmuFiber> f;
    std::vector<char> stacks;
    void* sched_sp = nullptr;
    int cur = 0;
    long bid = 0;
    std::function<void()> body;
    unsigned char* smem = nullptr;
    size_t smem_bytes = 0;
    std::vector<EmuRegion*> regions;
    // errors and counters
    long bad_read = 0, misalign = 0, bad_dst = 0, divergence = 0, left_pending = 0;
    long cp16 = 0, cp8 = 0, cp4 = 0, cpz = 0;
    char first_err[256] = {0};
    void err(const char* what, uintptr_t a) {
        if (!first_err[0]) snprintf(first_err, sizeof first_err, "%s at %#lx (block %ld thread %d)", what, (unsigned long)a, bid, cur);
    }
};
inline Emu* emu = nullptr;
inline int emu_tid() { return emu->cur; }
#define BS_TID (emu_tid())
#define BS_BID ((bs_i64)emu->bid)

[[noreturn]] inline void emu_fiber_main() {
    emu->body();
    EmuFiber& f = emu->f[emu->cur];
    f.state = 2;
    emu_swap(&f.sp, emu->sched_sp);
    abort();
}

inline void bs_sync() {
    EmuFiber& f = emu->f[emu->cur];
    f.state = 1;
    emu_swap(&f.sp, emu->sched_sp);
}

inline void emu_check_read(const void* p, int bytes) {
    const uintptr_t a = (uintptr_t)p;
    for (EmuRegion* r : emu->regions) {
        if (a >= r->lo && a < r->hi) {
            if (a + bytes > r->hi || (a - r->lo) % r->esz) { emu->bad_read++; emu->err("read across a region's end or misplaced", a); return; }
            for (int e = 0; e < bytes / r->esz; e++)
                if (!r->ok[(a - r->lo) / r->esz + e]) { emu->bad_read++; emu->err("read of an element that must not be read", a + e * r->esz); return; }
            r->reads += bytes;
            return;
        }
    }
    emu->bad_read++;
    emu->err("read outside every region", a);
}
inline void emu_do_copy(const EmuCopy& c) {
    if (c.read) memcpy(c.d, c.s, c.bytes);
    else memset(c.d, 0, c.bytes);
}
template <int B> inline void bs_cp(void* d, const void* s, bool read) {
    const uintptr_t da = (uintptr_t)d;
    if (da < (uintptr_t)emu->smem || da + B > (uintptr_t)emu->smem + emu->smem_bytes) { emu->bad_dst++; emu->err("copy outside shared memory", da); return; }
    if ((da % B) || (read && ((uintptr_t)s % B))) { emu->misalign++; emu->err("misaligned copy", read ? (uintptr_t)s : da); }
    if (read) emu_check_read(s, B);
    if (B == 16) emu->cp16++;
    else if (!read) emu->cpz++;
    else if (B == 8) emu->cp8++;
    else emu->cp4++;
    EmuCopy c{d, s, B, read};
    if (!emu->deferred) emu_do_copy(c);
    else emu->f[emu->cur].open.push_back(c);
}
inline void bs_commit() {
    if (!emu->deferred) return;
    EmuFiber& f = emu->f[emu->cur];
    f.groups.push_back(std::move(f.open));
    f.open.clear();
}
template <int N> inline void bs_wait() {
    if (!emu->deferred) return;
    EmuFiber& f = emu->f[emu->cur];
    while ((int)f.groups.size() > N) {
        for (auto& c : f.groups.front()) emu_do_copy(c);
        f.groups.erase(f.groups.begin());
    }
}
template <class T> inline T bs_ld(const T* p) {
    emu_check_read(p, sizeof(T));
    return *p;
}

// Runs one block of emu->nt threads of body().
inline void emu_run_block(long bid) {
    Emu& e = *emu;
    e.bid = bid;
    e.f.assign(e.nt, EmuFiber{});
    if (e.stacks.size() < e.nt * Emu::STACK) e.stacks.resize(e.nt * Emu::STACK);
    // Shared memory: NaN everywhere.
    for (size_t q = 0; q + 4 <= e.smem_bytes; q += 4) { const uint32_t nan = 0x7fc00000u; memcpy(e.smem + q, &nan, 4); }
    if (e.smem_bytes % 8 == 0) for (size_t q = 0; q < e.smem_bytes; q += 8) { const uint64_t nan = 0x7ff8000000000000ull; memcpy(e.smem + q, &nan, 8); }
    for (int t = 0; t < e.nt; t++) {
        uintptr_t top = ((uintptr_t)(e.stacks.data() + (t + 1) * Emu::STACK)) & ~(uintptr_t)15;
        uint64_t* sp = (uint64_t*)top;
        *--sp = 0;                               // the entry function's return address (never used)
        *--sp = (uint64_t)(void*)&emu_fiber_main; // popped by ret
        for (int r = 0; r < 6; r++) *--sp = 0;   // rbp rbx r12..r15
        e.f[t].sp = sp;
    }
    for (;;) {
        int live = 0, waiting = 0;
        for (int q = 0; q < e.nt; q++) {
            const int t = e.reverse ? e.nt - 1 - q : q;
            if (e.f[t].state == 2) continue;
            e.cur = t;
            e.f[t].state = 0;
            emu_swap(&e.sched_sp, e.f[t].sp);
            if (e.f[t].state == 1) waiting++;
            if (e.f[t].state != 2) live++;
        }
        if (live == 0) break;
        if (waiting != e.nt) {
            // Some threads returned while others wait at a barrier.
            e.divergence++;
            if (!e.first_err[0]) snprintf(e.first_err, sizeof e.first_err, "barrier divergence in block %ld", bid);
        }
    }
    for (int t = 0; t < e.nt; t++) {
        EmuFiber& f = e.f[t];
        bool pend = !f.open.empty();
        for (auto& g : f.groups) pend = pend || !g.empty();
        if (pend) { e.left_pending++; if (!e.first_err[0]) snprintf(e.first_err, sizeof e.first_err, "copies never waited for (block %ld thread %d)", bid, t); }
    }
}
