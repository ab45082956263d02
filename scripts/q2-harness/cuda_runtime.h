#pragma once
// CPU emulation of the CUDA subset crates/gpublas/kernels/eig_q2.cu (+ lapack.cuh,
// complex_div.cuh) uses. Adapted from ../qr-harness/emu-lib/cuda_runtime.h: one std::thread per
// CUDA thread, the blocks of a grid in turn, real block, warp and named barriers.
//  - shuffles move raw 64-bit patterns through per-warp slots (double-buffered: one warp barrier
//    a shuffle); a mask other than 0xffffffff is an error (the kernels are warp-uniform);
//  - emu_dmma8844: m8n8k4 in one slot exchange (EMU_FAST_DMMA=1, gen.py routes dmma8844 here):
//    the same fma order as lapack.cuh's shuffle fallback, so bit-identical to it;
//  - named barriers (bar.sync / bar.arrive id, n): a counter per id and block with the hardware's
//    semantics (the n-th arrival completes the phase and releases the phase's waiters; arrivals
//    past it count for the next phase; sync waits, arrive does not). Every use of an id must
//    name the same n. Pairing checks (emu_sync_err, reported by the launcher): a thread arriving
//    twice in one phase (the waiting side would be released by the wrong arrivals), or a phase
//    left part-filled when the block ends;
//  - watchdog: no barrier / shuffle progress for EMU_HANG seconds (default 30) prints where each
//    warp waits and exits 3 (a deadlocked protocol);
//  - dynamic shared memory (emu_dsm): EMU_STALE (NaN) before each block; guard bands before it and
//    past the launch's declared size, checked after each block (emu_oob counts hits);
//  - env EMU_JITTER=k (1..): random yields / short sleeps (1 in k) before barrier and shuffle
//    arrivals, to vary the interleavings a race would need.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <cstdio>
#include <cmath>
#include <math.h>
#include <algorithm>
#include <thread>
#include <chrono>
#include <random>
#include <vector>
#include <memory>
#include <mutex>
#include <atomic>
#include <functional>
#include <condition_variable>
#include <climits>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef __CUDA_ARCH__
#error "__CUDA_ARCH__ must stay undefined: the kernels' #else branches are the emulated code"
#endif
struct dim3 { unsigned x = 1, y = 1, z = 1; dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
inline thread_local dim3 threadIdx, blockIdx, blockDim, gridDim;
struct alignas(8) float2 { float x, y; };
struct alignas(16) double2 { double x, y; };
inline float2 make_float2(float x, float y) { return float2{x, y}; }
inline double2 make_double2(double x, double y) { return double2{x, y}; }
typedef long long i64;
typedef unsigned long long u64;
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(x)
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }

// Barriers: a counter of arrivals; arrival a belongs to phase a / n, which completes at the
// n-th. Waiting by futex (no library wait pools, mutexes or seq_cst counters: under
// ThreadSanitizer the only happens-before edges are the ones the hardware gives: an arrival's
// earlier accesses before a waiter's later ones (release RMW / acquire load); bar.arrive acquires
// nothing).
struct EmuBar {
    std::atomic<unsigned> arrivals{0};
    std::atomic<int> n{0};
    unsigned last[1024];  // each thread's last phase arrived at + 1 (0: none): pairing check
    EmuBar() { memset(last, 0, sizeof last); }
};
inline void emu_futex_wait(std::atomic<unsigned>* a, unsigned v) {
    syscall(SYS_futex, (unsigned*)a, FUTEX_WAIT_PRIVATE, v, nullptr, nullptr, 0);
}
inline void emu_futex_wake(std::atomic<unsigned>* a) { syscall(SYS_futex, (unsigned*)a, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0); }
// One arrival (wait: and the wait for its phase's completion); returns the phase.
inline unsigned emu_bar(EmuBar& b, unsigned n, bool wait) {
    const unsigned a = b.arrivals.fetch_add(1, wait ? std::memory_order_acq_rel : std::memory_order_release);
    const unsigned target = (a / n + 1) * n;
    if (a + 1 == target) emu_futex_wake(&b.arrivals);
    else if (wait) {
        unsigned v;
        int spin = 0;
        while ((int)((v = b.arrivals.load(std::memory_order_acquire)) - target) < 0)
            if (++spin > 64) emu_futex_wait(&b.arrivals, v);
            else std::this_thread::yield();
    }
    return a / n;
}
struct EmuBlock {
    int nt;
    EmuBar block, warp[32], named[16];
    uint64_t slot[2][1024], slotb[2][1024];  // shuffle / dmma slots, two buffers
    unsigned char par[1024];                  // each thread's next buffer
    const char* wait_op[1024];                // where each thread waits (watchdog)
    int wait_id[1024];
    EmuBlock(int nt_) : nt(nt_) {
        memset(par, 0, sizeof par);
        for (int t = 0; t < 1024; t++) { wait_op[t] = "running"; wait_id[t] = -1; }
    }
};
inline EmuBlock* emu_blk;
inline int emu_jitter = 0;
inline std::atomic<unsigned long> emu_progress{0};
inline long emu_sync_err = 0;
inline std::mutex emu_err_mu;
inline void emu_jit() {
    if (!emu_jitter) return;
    thread_local std::minstd_rand r(std::hash<std::thread::id>()(std::this_thread::get_id()));
    const unsigned x = r();
    if (x % emu_jitter) return;
    if ((x >> 8) % 4 == 0) std::this_thread::sleep_for(std::chrono::microseconds((x >> 12) % 50));
    else std::this_thread::yield();
}
struct EmuWait {  // marks the thread as waiting in op (id) for the watchdog; progress for it
    EmuWait(const char* op, int id) { emu_blk->wait_op[threadIdx.x] = op; emu_blk->wait_id[threadIdx.x] = id; }
    ~EmuWait() {
        emu_blk->wait_op[threadIdx.x] = "running";
        emu_blk->wait_id[threadIdx.x] = -1;
        emu_progress.fetch_add(1, std::memory_order_relaxed);  // relaxed: no happens-before for TSan
    }
};
inline void emu_named(int id, int n, bool wait) {
    const char* op = wait ? "bar.sync" : "bar.arrive";
    if (id <= 0 || id >= 16 || n <= 0 || n % 32 || n > (int)blockDim.x) {
        fprintf(stderr, "emu: bad %s %d, %d\n", op, id, n);
        exit(2);
    }
    emu_jit();
    EmuBar& b = emu_blk->named[id];
    int n0 = 0;
    if (!b.n.compare_exchange_strong(n0, n, std::memory_order_relaxed) && n0 != n) {
        fprintf(stderr, "emu: %s %d with %d threads, first used with %d\n", op, id, n, n0);
        exit(2);
    }
    const unsigned t = threadIdx.x;
    EmuWait w(op, id);
    const unsigned before = b.last[t];
    const unsigned ph = emu_bar(b, n, wait);
    b.last[t] = ph + 1;
    if (before == ph + 1) {
        std::lock_guard<std::mutex> e(emu_err_mu);
        if (emu_sync_err++ < 8)
            fprintf(stderr, "emu: block %u thread %u (warp %u): %s %d twice in its phase %u: a pairing mismatch\n", blockIdx.x, t,
                    t / 32, op, id, ph);
    }
}
// bar.sync id, n: wait until n threads (this one included) arrived at id in this phase
inline void emu_bar_sync(int id, int n) { emu_named(id, n, true); }
// bar.arrive id, n: count this thread for id's current phase and go on
inline void emu_bar_arrive(int id, int n) { emu_named(id, n, false); }
inline void __syncthreads() {
    emu_jit();
    EmuWait w("__syncthreads", 0);
    emu_bar(emu_blk->block, emu_blk->nt, true);
}
inline void emu_mask(unsigned mask, const char* op) {
    if (mask != 0xffffffffu) { fprintf(stderr, "emu: %s with mask %#x (only full warps emulated)\n", op, mask); exit(2); }
}
inline void __syncwarp(unsigned mask = 0xffffffffu) {
    emu_mask(mask, "__syncwarp");
    emu_jit();
    EmuWait w("__syncwarp", 0);
    emu_bar(emu_blk->warp[threadIdx.x >> 5], 32, true);
}
// Double buffering: a thread writes buffer p at its k-th exchange and again at its (k + 2)-th,
// after the (k + 1)-th barrier, which every lane passes only after its k-th read.
inline uint64_t emu_xchg(uint64_t v, int src, uint64_t* vb = nullptr, uint64_t w = 0) {
    const int t = threadIdx.x, wp = t >> 5, p = emu_blk->par[t];
    emu_blk->slot[p][t] = v;
    if (vb) emu_blk->slotb[p][t] = w;
    emu_jit();
    {
        EmuWait w(vb ? "dmma" : "shfl", 0);
        emu_bar(emu_blk->warp[wp], 32, true);
    }
    emu_blk->par[t] = (unsigned char)(p ^ 1);
    if (vb) { memcpy(vb, &emu_blk->slot[p][wp << 5], 32 * 8); memcpy(vb + 32, &emu_blk->slotb[p][wp << 5], 32 * 8); return 0; }
    return emu_blk->slot[p][(wp << 5) + (src & 31)];
}
template <class T> inline T emu_shfl(T x, int src) {
    static_assert(sizeof(T) <= 8, "shfl of more than 64 bits");
    uint64_t b = 0;
    memcpy(&b, &x, sizeof(T));
    const uint64_t r = emu_xchg(b, src);
    T y;
    memcpy(&y, &r, sizeof(T));
    return y;
}
template <class T> inline T __shfl_sync(unsigned mask, T x, int l, int width = 32) {
    emu_mask(mask, "__shfl_sync");
    const int lane = threadIdx.x & 31;
    return emu_shfl(x, (lane & ~(width - 1)) + (l & (width - 1)));
}
template <class T> inline T __shfl_xor_sync(unsigned mask, T x, int o, int width = 32) {
    emu_mask(mask, "__shfl_xor_sync");
    const int lane = threadIdx.x & 31, s = lane ^ o;
    return emu_shfl(x, (s & ~(width - 1)) == (lane & ~(width - 1)) ? s : lane);
}
template <class T> inline T __shfl_down_sync(unsigned mask, T x, unsigned d, int width = 32) {
    emu_mask(mask, "__shfl_down_sync");
    const int lane = threadIdx.x & 31, s = lane + (int)d;
    return emu_shfl(x, (s & ~(width - 1)) == (lane & ~(width - 1)) ? s : lane);
}
template <class T> inline T __shfl_up_sync(unsigned mask, T x, unsigned d, int width = 32) {
    emu_mask(mask, "__shfl_up_sync");
    const int lane = threadIdx.x & 31, s = lane - (int)d;
    return emu_shfl(x, s >= (lane & ~(width - 1)) ? s : lane);
}
// m8n8k4 f64 (lapack.cuh's fragment layout) in one exchange: the fallback's arithmetic exactly
inline void emu_dmma8844(double& c0, double& c1, double a, double b) {
    uint64_t ua, ub, all[64];
    memcpy(&ua, &a, 8);
    memcpy(&ub, &b, 8);
    emu_xchg(ua, 0, all, ub);
    double A[32], B[32];
    memcpy(A, all, 256);
    memcpy(B, all + 32, 256);
    const int lane = threadIdx.x & 31, r = lane >> 2, j = 2 * (lane & 3);
    for (int k = 0; k < 4; k++) {
        const double ak = A[4 * r + k], b0 = B[4 * j + k], b1 = B[4 * (j + 1) + k];
        c0 = std::fma(ak, b0, c0);
        c1 = std::fma(ak, b1, c1);
    }
}
inline int atomicMin(int* a, int v) {
    int o = __atomic_load_n(a, __ATOMIC_SEQ_CST);
    while (v < o && !__atomic_compare_exchange_n(a, &o, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
    return o;
}
inline unsigned atomicOr(unsigned* a, unsigned v) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }
inline int atomicAdd(int* a, int v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }
inline unsigned atomicAdd(unsigned* a, unsigned v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }
template <class T> inline T __ldcg(const T* p) { return *(const volatile T*)p; }
template <class T> inline T __ldg(const T* p) { return *p; }
inline size_t __cvta_generic_to_shared(const void* p) { return (size_t)p; }

#ifndef EMU_STALE
#define EMU_STALE NAN
#endif
// dynamic shared memory: [guard | EMU_DSM bytes | guard]; the launch's size must fit EMU_DSM
constexpr size_t EMU_DSM = 512 * 1024, EMU_GUARD = 8192;
alignas(256) inline unsigned char emu_dsm_all[EMU_GUARD + EMU_DSM + EMU_GUARD];
inline unsigned char* const emu_dsm = emu_dsm_all + EMU_GUARD;
inline long emu_oob = 0;
// f(): one CUDA thread's run of the kernel (threadIdx, blockIdx, blockDim, gridDim set)
template <class F> void emu_launch(F f, dim3 g, dim3 b, size_t smem) {
    if (smem > EMU_DSM || b.x % 32 || b.x > 1024 || b.y != 1 || b.z != 1) {
        fprintf(stderr, "emu: bad launch (block %u, smem %zu)\n", b.x, smem);
        exit(2);
    }
    if (const char* j = getenv("EMU_JITTER")) emu_jitter = atoi(j);
    const uint64_t guard = 0x7ff4deadbeef0001ull;
    auto fill = [&](unsigned char* p, size_t bytes) { for (size_t i = 0; i + 8 <= bytes; i += 8) memcpy(p + i, &guard, 8); };
    auto bad = [&](const unsigned char* p, size_t bytes) { for (size_t i = 0; i + 8 <= bytes; i += 8) if (memcmp(p + i, &guard, 8)) return (long)i; return -1L; };
    const size_t tail = (smem + 7) / 8 * 8;
    for (unsigned bz = 0; bz < g.z; bz++)
        for (unsigned by = 0; by < g.y; by++)
            for (unsigned bx = 0; bx < g.x; bx++) {
                EmuBlock blk((int)b.x);
                emu_blk = &blk;
                const double stale = EMU_STALE;
                for (size_t i = 0; i + 8 <= tail; i += 8) memcpy(emu_dsm + i, &stale, 8);  // stale reads show up
                fill(emu_dsm_all, EMU_GUARD);
                fill(emu_dsm + tail, EMU_GUARD + EMU_DSM - tail);
                std::vector<std::thread> th;
                th.reserve(b.x);
                std::mutex wd_mu;
                std::condition_variable wd_cv;
                bool done = false;
                std::thread wd([&] {  // the watchdog
                    const char* h = getenv("EMU_HANG");
                    const double limit = h ? atof(h) : 30.0;
                    unsigned long seen = emu_progress.load(std::memory_order_relaxed);
                    auto since = std::chrono::steady_clock::now();
                    std::unique_lock<std::mutex> l(wd_mu);
                    while (!wd_cv.wait_for(l, std::chrono::milliseconds(200), [&] { return done; })) {
                        const unsigned long now = emu_progress.load(std::memory_order_relaxed);
                        if (now != seen) { seen = now; since = std::chrono::steady_clock::now(); continue; }
                        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count() < limit) continue;
                        fprintf(stderr, "emu: block %u: no progress for %.0f s (deadlock?); where each warp's threads are:\n", bx, limit);
                        for (unsigned w0 = 0; w0 < b.x; w0 += 32) {
                            fprintf(stderr, "  warp %u:", w0 / 32);
                            for (unsigned t = w0; t < w0 + 32; t++)
                                if (t == w0 || blk.wait_op[t] != blk.wait_op[t - 1] || blk.wait_id[t] != blk.wait_id[t - 1])
                                    fprintf(stderr, " [lane %u..] %s %d", t - w0, blk.wait_op[t], blk.wait_id[t]);
                            fprintf(stderr, "\n");
                        }
                        for (int id = 1; id < 16; id++)
                            if (int nb = blk.named[id].n.load()) {
                                const unsigned a = blk.named[id].arrivals.load(std::memory_order_relaxed);
                                fprintf(stderr, "  barrier %d: phase %u, %u of %d arrived\n", id, a / nb, a % nb, nb);
                            }
                        fflush(stderr);
                        _exit(3);
                    }
                });
                for (unsigned t = 0; t < b.x; t++)
                    th.emplace_back([&, t] {
                        threadIdx = dim3(t);
                        blockIdx = dim3(bx, by, bz);
                        blockDim = b;
                        gridDim = g;
                        f();
                        blk.wait_op[t] = "exited";
                    });
                for (auto& x : th) x.join();
                {
                    std::lock_guard<std::mutex> l(wd_mu);
                    done = true;
                }
                wd_cv.notify_all();
                wd.join();
                for (int id = 1; id < 16; id++)
                    if (int nb = blk.named[id].n.load())
                        if (const unsigned a = blk.named[id].arrivals.load(); a % nb) {
                            emu_sync_err++;
                            fprintf(stderr, "emu: block %u: barrier %d ends with %u of %d arrivals in phase %u (unpaired arrivals)\n", bx, id,
                                    a % nb, nb, a / nb);
                        }
                long i;
                if ((i = bad(emu_dsm_all, EMU_GUARD)) >= 0) {
                    emu_oob++;
                    fprintf(stderr, "emu: block %u: dyn smem write %ld B before its start\n", bx, (long)EMU_GUARD - i);
                }
                if ((i = bad(emu_dsm + tail, EMU_GUARD + EMU_DSM - tail)) >= 0) {
                    emu_oob++;
                    fprintf(stderr, "emu: block %u: dyn smem write past the declared %zu B (at byte %zu)\n", bx, smem, tail + i);
                }
                emu_blk = nullptr;
            }
}
