// CPU emulator check of packed-regions.cuh (spmv by regions, f32/f64, upper/lower): one
// std::thread per CUDA thread (packed-emu.h), every cp.async emulated by pr_emu_cp, which checks
// that each byte read lies inside the packed array's n (n + 1) / 2 elements and that every 16-
// and 8-byte copy is aligned (source and shared destination). Every store to y and to the
// partials is counted (y: each of the n entries exactly once, nothing between increments;
// W[k][i]: exactly once for k < nR, i < n, never for i >= n). Results against a double loop.
//   g++ -std=c++20 -O2 -pthread packed-regions-emu_test.cpp -o /tmp/pr_emu && /tmp/pr_emu [quick]
#include "packed-emu.h"
#include <random>
#include <map>
struct float4 { float x, y, z, w; };
#define PR_EMU 1
alignas(16) static unsigned char pr_emu_smem[64 * 1024];
#define PR_SMEM(T, name) T* name = (T*)pr_emu_smem;
// The readable matrix bytes, the counted stores.
static uintptr_t ea_lo, ea_hi, ey_lo, ey_hi, ew_lo, ew_hi;
static std::vector<std::atomic<int>>* ycnt; static std::vector<std::atomic<int>>* wcnt;
static std::atomic<long> e_bad{0}, e_mis{0}, e_badst{0};
static std::atomic<long> e_cnt[2][4];  // [f64][16, 8, 4 bytes, zero-filled]
static int e_elem;
inline void pr_emu_cp(void* d, const void* s, int B, bool read) {
    const uintptr_t a = (uintptr_t)s, da = (uintptr_t)d;
    if (da % B) e_mis++;
    if (da < (uintptr_t)pr_emu_smem || da + B > (uintptr_t)pr_emu_smem + sizeof pr_emu_smem) e_bad++;
    if (!read) { e_cnt[e_elem == 8][3]++; memset(d, 0, B); return; }
    if (B > 4 && a % B) e_mis++;
    if (a % e_elem) e_mis++;
    if (a < ea_lo || a + B > ea_hi) { e_bad++; memset(d, 0, B); return; }
    e_cnt[e_elem == 8][B == 16 ? 0 : B == 8 ? 1 : 2]++;
    memcpy(d, s, B);
}
template <class T> inline void emu_store(T* p, T v) {
    const uintptr_t a = (uintptr_t)p;
    if (a >= ey_lo && a < ey_hi) (*ycnt)[(a - ey_lo) / sizeof(T)]++;
    else if (a >= ew_lo && a < ew_hi) (*wcnt)[(a - ew_lo) / sizeof(T)]++;
    else e_badst++;
    *p = v;
}
#define PR_STORE(p, v) emu_store((p), (v))
#include "packed-regions.cuh"

static std::mt19937_64 rng(20261130);
static double rnd() { return std::uniform_real_distribution<double>(-1, 1)(rng); }
static int ri(int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng); }

template <class K> void launch(long grid, int block, K kern) {
    blockDim.x = block;
    for (long bx = 0; bx < grid; bx++) {
        EmuBlock blk(block); emu_blk = &blk;
        std::vector<std::thread> th;
        for (int t = 0; t < block; t++) th.emplace_back([&, t] { threadIdx.x = t; blockIdx.x = (unsigned)bx; kern(); });
        for (auto& x : th) x.join();
    }
}

struct Tally { long cases = 0, failed = 0; double worst = 0; };
std::map<std::string, Tally> tally;

template <class T> bool one(int n, bool lower, int aoff, int incx, int incy, int amode, int bmode) {
    using P = PR<T>;
    e_elem = sizeof(T);
    const long tot = (long)n * (n + 1) / 2;
    std::vector<T> Abuf(tot + 16 + 8), Wb, Ybuf, Xbuf;
    // A at a 64-byte aligned base + aoff elements (varies the column alignments).
    T* A0 = (T*)(((uintptr_t)Abuf.data() + 63) & ~(uintptr_t)63);
    if ((char*)(A0 + aoff + tot) > (char*)(Abuf.data() + Abuf.size())) { puts("buf"); exit(2); }
    T* A = A0 + aoff;
    for (long i = 0; i < tot; i++) A[i] = (T)rnd();
    ea_lo = (uintptr_t)A; ea_hi = (uintptr_t)(A + tot);
    const long lx = (long)(n - 1) * std::abs(incx) + 1, ly = (long)(n - 1) * std::abs(incy) + 1;
    Xbuf.resize(lx); Ybuf.resize(ly);
    for (auto& v : Xbuf) v = (T)rnd();
    for (auto& v : Ybuf) v = (T)rnd();
    const T alpha = amode == 0 ? T(0) : amode == 1 ? T(1) : (T)rnd();
    const T beta = bmode == 0 ? T(0) : bmode == 1 ? T(1) : (T)rnd();
    if (bmode == 0) for (long i = 0; i < ly; i++) if (i % std::abs(incy) == 0) Ybuf[i] = NAN;
    std::vector<T> Y0 = Ybuf;
    const long nR = (n + P::R - 1) / P::R, plen = (n + 31) / 32 * 32;
    Wb.assign(nR * plen, (T)NAN);
    std::vector<std::atomic<int>> yc(ly), wc(nR * plen);
    ycnt = &yc; wcnt = &wc;
    ey_lo = (uintptr_t)Ybuf.data(); ey_hi = (uintptr_t)(Ybuf.data() + ly);
    ew_lo = (uintptr_t)Wb.data(); ew_hi = (uintptr_t)(Wb.data() + Wb.size());
    PrJob<T> j{A, Xbuf.data(), Ybuf.data(), Wb.data(), alpha, beta, n, plen, incx, incy, lower ? 1 : 0};
    const long bad0 = e_bad, mis0 = e_mis, bst0 = e_badst;
    launch(nR * (nR + 1) / 2, P::NT, [&] { spmv_regions<T>(j); });
    launch((n + 31) / 32, P::NT, [&] { spmv_regions_sum<T>(j); });
    // Reference.
    auto xi = [&](long i, int inc) -> long { return inc > 0 ? i * inc : (n - 1 - i) * (long)-inc; };
    auto a = [&](long i, long c) -> double {
        if (lower ? i < c : i > c) std::swap(i, c);
        return (double)A[lower ? c * (2L * n - c - 1) / 2 + i : c * (c + 1) / 2 + i];
    };
    double emax = 0, rmax = 0; bool ok = true; const char* why = "";
    for (long i = 0; i < n; i++) {
        double s = 0;
        for (long c = 0; c < n; c++) s += a(i, c) * (double)Xbuf[xi(c, incx)];
        double r = (bmode == 0 ? 0.0 : (double)beta * (double)Y0[xi(i, incy)]) + (double)alpha * s;
        if (amode == 0) r = bmode == 0 ? 0.0 : (double)beta * (double)Y0[xi(i, incy)];
        const double got = (double)Ybuf[xi(i, incy)];
        if (!std::isfinite(got)) { ok = false; why = "nonfinite"; }
        emax = std::max(emax, std::fabs(got - r)); rmax = std::max(rmax, std::fabs(r));
    }
    const double rel = rmax > 0 ? emax / rmax : emax;
    const double tol = sizeof(T) == 4 ? 1e-5 : 1e-13;
    if (!(rel < tol) && !(rmax == 0 && emax == 0)) { ok = false; why = "error"; }
    for (long i = 0; i < ly; i++) {
        const bool hit = i % std::abs(incy) == 0;
        if (yc[i] != (hit ? 1 : 0)) { ok = false; why = "y stores"; }
        if (!hit && memcmp(&Ybuf[i], &Y0[i], sizeof(T))) { ok = false; why = "y between increments"; }
    }
    for (long k = 0; k < nR; k++)
        for (long i = 0; i < plen; i++)
            if (wc[k * plen + i] != (amode != 0 && i < n ? 1 : 0)) { ok = false; why = "W stores"; }
    if (e_bad != bad0) { ok = false; why = "read outside"; }
    if (e_mis != mis0) { ok = false; why = "misaligned"; }
    if (e_badst != bst0) { ok = false; why = "stray store"; }
    std::string key = std::string(sizeof(T) == 4 ? "f32 " : "f64 ") + (lower ? "L" : "U");
    auto& tl = tally[key];
    tl.cases++; tl.worst = std::max(tl.worst, rel);
    if (!ok) {
        tl.failed++;
        printf("FAIL %s n %d aoff %d incx %d incy %d alpha %d beta %d: %s rel %.3g\n", key.c_str(), n, aoff, incx, incy, amode, bmode, why, rel);
    }
    return ok;
}

template <class T> void run_n(int n) {
    for (int lo = 0; lo < 2; lo++) {
        // Mostly incx = incy = 1, random alpha/beta; a share with the special cases.
        const int sel = ri(0, 9);
        int incx = 1, incy = 1, am = 2, bm = 2;
        if (sel == 0) { incx = ri(0, 1) ? -1 : 2; incy = ri(0, 1) ? -2 : 3; }
        if (sel == 1) am = ri(0, 1);
        if (sel == 2) bm = ri(0, 1);
        one<T>(n, lo, ri(0, 16 / (int)sizeof(T) - 1), incx, incy, am, bm);
    }
}

int main(int argc, char** argv) {
    const bool quick = argc > 1;
    std::vector<int> ns;
    for (int n = 1; n <= 70; n++) ns.push_back(n);
    for (int n = 100; n <= 600; n += quick ? 97 : 13) ns.push_back(n);
    ns.push_back(255); ns.push_back(256); ns.push_back(257); ns.push_back(511); ns.push_back(512); ns.push_back(513);
    ns.push_back(1000); ns.push_back(1025);
    for (int n : ns) { run_n<float>(n); run_n<double>(n); fflush(stdout); }
    long c = 0, f = 0;
    for (auto& [k, t] : tally) {
        printf("%s: %ld cases, %ld failed, worst rel %.3g\n", k.c_str(), t.cases, t.failed, t.worst);
        c += t.cases; f += t.failed;
    }
    printf("total %ld cases, %ld failed; reads outside the array %ld, misaligned copies %ld, stray stores %ld\n", c, f, (long)e_bad, (long)e_mis, (long)e_badst);
    for (int d = 0; d < 2; d++)
        printf("%s matrix copies: 16-byte %ld, 8-byte %ld, 4-byte %ld, zero-filled %ld\n", d ? "f64" : "f32", (long)e_cnt[d][0],
               (long)e_cnt[d][1], (long)e_cnt[d][2], (long)e_cnt[d][3]);
    return f != 0;
}
