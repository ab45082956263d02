// spmv/hpmv (packed symmetric / Hermitian, Algo::Split: b2_symsweep{1,4} with F_SYM, then
// b2_pass2) of a blas2.cu source on the CPU emulator (packed-emu.h) against a reference loop in
// complex<double>. Every __ldg is checked: inside the packed arrays' stored elements (no byte
// before element 0 or past element n(n+1)/2 - 1 of each entry), x, alpha/beta; 16-byte loads
// aligned. Also y elements between the increments untouched, partials poisoned with NaN.
// Built and run by packed-emu.sh.
#include "packed-emu.h"
#include <complex>
#include <random>
#include <unistd.h>
#include "packed-kern.inc"
typedef std::complex<double> C;
static C toC(float v) { return C(v, 0); } static C toC(double v) { return C(v, 0); }
static C toC(float2 v) { return C(v.x, v.y); } static C toC(double2 v) { return C(v.x, v.y); }
template <class T> T fromC(C c);
template <> float fromC<float>(C c) { return (float)c.real(); }
template <> double fromC<double>(C c) { return c.real(); }
template <> float2 fromC<float2>(C c) { return {(float)c.real(), (float)c.imag()}; }
template <> double2 fromC<double2>(C c) { return {c.real(), c.imag()}; }
template <class T> struct Cx { static constexpr bool v = false; };
template <> struct Cx<float2> { static constexpr bool v = true; };
template <> struct Cx<double2> { static constexpr bool v = true; };
template <class T> T nanT() { return fromC<T>(C(NAN, NAN)); }
template <class T> bool bits_eq(const T& a, const T& b) { return memcmp(&a, &b, sizeof(T)) == 0; }
static std::mt19937_64 rng(777);
static double rnd() { return std::uniform_real_distribution<double>(-1, 1)(rng); }
static int ri(int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng); }
static long fails = 0, tests = 0;

template <class T, class K> void launch(long grid, int block, K kern) {
    blockDim.x = block;
    for (long bx = 0; bx < grid; bx++) {
        EmuBlock blk(block); emu_blk = &blk;
        std::vector<std::thread> th;
        for (int t = 0; t < block; t++) th.emplace_back([&, t] { threadIdx.x = t; blockIdx.x = (unsigned)bx; kern(); });
        for (auto& x : th) x.join();
    }
}
template <class T> struct Buf {  // 64-byte aligned, NaN-poisoned
    std::vector<char> raw; T* p; long n;
    Buf(long n_) : raw((n_ + 4) * sizeof(T) + 64), n(n_) { p = (T*)(((uintptr_t)raw.data() + 63) & ~(uintptr_t)63); for (long i = 0; i < n + 2; i++) p[i] = nanT<T>(); }
};

// mode 0 single, 1 strided, 2 list. herm: hpmv (F_HERM | F_CONJ), else spmv. aoff: elements
// before entry 0's array; spad: extra elements between entries (stride psize + spad).
// split_choice 0: the library's splits on 132 SMs; otherwise a random count.
template <class T> void one(int n, bool lower, bool herm, int incx, int incy, int mode, int ascal, int bscal, bool devscal, int aoff, int spad, int split_choice) {
    const int V = 16 / sizeof(T), elem = sizeof(T);
    const int nent = mode == 0 ? 1 : mode == 1 ? 2 : 3;
    const long psize = (long)n * (n + 1) / 2, astr = psize + spad;
    const long lx = (long)(n - 1) * std::abs(incx) + 1, ly = (long)(n - 1) * std::abs(incy) + 1;
    const long xs = lx + 3, ys = ly + 5;
    Buf<T> A(aoff + astr * nent + 8), X(xs * nent + 8), Y(ys * nent + 8);
    T* Ab = A.p + aoff; T* Xb = X.p; T* Yb = Y.p;
    // list mode: entries in reverse buffer order
    auto aent = [&](int e) { return Ab + astr * (mode == 2 ? nent - 1 - e : e); };
    auto xent = [&](int e) { return Xb + xs * (mode == 2 ? nent - 1 - e : e); };
    auto yent = [&](int e) { return Yb + ys * (mode == 2 ? nent - 1 - e : e); };
    auto pidx = [&](int i, int c) -> long { return lower ? (long)c * (2L * n - c - 1) / 2 + i : (long)c * (c + 1) / 2 + i; };
    auto xi = [&](int i, int inc) -> long { return inc > 0 ? (long)i * inc : (long)(n - 1 - i) * -inc; };
    std::vector<C> al(nent), be(nent);
    std::vector<T> alv(nent), bev(nent);
    for (int e = 0; e < nent; e++) {
        int as = ascal, bs = bscal;
        if (devscal && e == 1 && ascal == 3) as = 0;
        if (devscal && e == 1 && bscal == 3) bs = 0;
        if (as == 3) as = 2; if (bs == 3) bs = 2;
        al[e] = as == 0 ? C(0, 0) : as == 1 ? C(1, 0) : C(rnd(), Cx<T>::v ? rnd() : 0);
        be[e] = bs == 0 ? C(0, 0) : bs == 1 ? C(1, 0) : C(rnd(), Cx<T>::v ? rnd() : 0);
        if (!devscal) { al[e] = al[0]; be[e] = be[0]; }
        alv[e] = fromC<T>(al[e]); bev[e] = fromC<T>(be[e]); al[e] = toC(alv[e]); be[e] = toC(bev[e]);
    }
    for (int e = 0; e < nent; e++) {
        T* a = aent(e);
        for (long q = 0; q < psize; q++) a[q] = fromC<T>(C(rnd(), Cx<T>::v ? rnd() : 0));
        if (herm) for (int c = 0; c < n; c++) { T& d = a[pidx(c, c)]; if constexpr (Cx<T>::v) d.y = NAN; }
        for (int i = 0; i < n; i++) xent(e)[xi(i, incx)] = fromC<T>(C(rnd(), Cx<T>::v ? rnd() : 0));
        if (!(bscal == 0)) for (int i = 0; i < n; i++) yent(e)[xi(i, incy)] = fromC<T>(C(rnd(), Cx<T>::v ? rnd() : 0));
    }
    std::vector<T> Y0(Y.p, Y.p + Y.n);
    std::vector<std::vector<C>> ref(nent, std::vector<C>(n));
    std::vector<std::vector<double>> mag(nent, std::vector<double>(n));
    for (int e = 0; e < nent; e++) {
        T* a = aent(e);
        auto Aat = [&](int i, int c) -> C {
            const bool st = lower ? i >= c : i <= c;
            if (i == c) { C v = toC(a[pidx(i, c)]); return herm ? C(v.real(), 0) : v; }
            if (st) return toC(a[pidx(i, c)]);
            C v = toC(a[pidx(c, i)]);
            return herm ? std::conj(v) : v;
        };
        for (int i = 0; i < n; i++) {
            C s = 0; double m = 0;
            if (al[e] != C(0, 0)) for (int c = 0; c < n; c++) { C t = Aat(i, c) * toC(xent(e)[xi(c, incx)]); s += t; m += std::abs(t); }
            C yv = be[e] == C(0, 0) ? C(0, 0) : be[e] * toC(Y0[yent(e) + xi(i, incy) - Y.p]);
            ref[e][i] = yv + (al[e] == C(0, 0) ? C(0, 0) : al[e] * s);
            mag[e][i] = std::abs(yv) + std::abs(al[e]) * m;
        }
    }
    // the library's geometry (cuda.rs: sweep, pass2; plan.rs: Geom::for_rows, best_splits)
    const long rv = std::max(1L, (long)((n + V - 1) / V));
    int tr = 1, rs = 1;
    if (rv <= 32) { while (tr < rv) tr *= 2; } else { tr = 32; rs = 4; }
    const int gtc = 256 / tr;
    const long RB = (long)tr * V * rs, rowtiles = std::max(1L, (n + RB - 1) / RB);
    const long want = (132L * 8 + rowtiles * nent - 1) / (rowtiles * nent), most = (n + gtc * 4 - 1) / (gtc * 4);
    long splits = std::max(1L, std::min(want, most));
    if (split_choice) splits = ri(1, std::max(1L, std::min<long>(n, 40)));
    const long cps = std::max(1L, (n + splits - 1) / splits);
    const int tc = (int)std::max(1L, std::min<long>(gtc, cps));
    const long plen = n, nq = rowtiles;
    std::vector<T> part((size_t)nent * (splits + nq) * plen + 1, nanT<T>());
    std::vector<u64> tab;
    Job j; memset(&j, 0, sizeof j);
    j.a.base = (u64)Ab; j.a.stride = astr; j.a.lda = 0; j.a.kb = 0; j.a.kind = lower ? 3 : 2;
    j.x.base = (u64)Xb; j.x.stride = xs; j.x.inc = incx; j.x.off0 = incx < 0 ? (long)(n - 1) * -incx : 0;
    j.y.base = (u64)Yb; j.y.stride = ys; j.y.inc = incy; j.y.off0 = incy < 0 ? (long)(n - 1) * -incy : 0;
    if (mode == 2) {
        for (int e = 0; e < nent; e++) tab.push_back((u64)aent(e));
        for (int e = 0; e < nent; e++) tab.push_back((u64)xent(e));
        for (int e = 0; e < nent; e++) tab.push_back((u64)yent(e));
        j.tab = (u64)tab.data(); j.a.base = j.x.base = j.y.base = 0; j.a.stride = j.x.stride = j.y.stride = 0;
    }
    if (mode == 0) j.a.stride = j.x.stride = j.y.stride = 0;
    if (devscal) { j.alpha_p = (u64)alv.data(); j.beta_p = (u64)bev.data(); j.alpha_s = j.beta_s = 1; }
    else { j.ar = al[0].real(); j.ai = al[0].imag(); j.br = be[0].real(); j.bi = be[0].imag(); }
    j.part = (u64)part.data();
    j.m = n; j.n = n; j.kl = lower ? n + 1 : 0; j.ku = lower ? 0 : n + 1; j.plen = plen;
    j.flags = F_SYM | (lower ? F_LOWER : 0) | (herm ? F_HERM | F_CONJ : 0);
    j.splits = (int)splits; j.tr = tr; j.tc = tc; j.rowtiles = (int)rowtiles; j.colgroups = 1;
    j.e0 = 0; j.nent = nent; j.np = 0; j.nq = (int)nq; j.rb = (int)RB; j.cpg = 1;
    // readable: each entry's stored array, x (whole buffer), scalars, the table
    emu_ok.clear();
    for (int e = 0; e < nent; e++) emu_ok.push_back({(uintptr_t)aent(e), (uintptr_t)(aent(e) + psize)});
    emu_ok.push_back({(uintptr_t)X.p, (uintptr_t)(X.p + X.n)});
    emu_ok.push_back({(uintptr_t)alv.data(), (uintptr_t)(alv.data() + nent)});
    emu_ok.push_back({(uintptr_t)bev.data(), (uintptr_t)(bev.data() + nent)});
    emu_alo = (uintptr_t)A.p; emu_ahi = (uintptr_t)(A.p + A.n);
    const long bad0 = emu_badread, mis0 = emu_misalign, sh0 = emu_badshfl;
    const long sweep_grid = nent * rowtiles * splits;
    if (rs == 4) launch<T>(sweep_grid, tr * tc, [&] { sweep<T, 4, true>(j); });
    else launch<T>(sweep_grid, tr * tc, [&] { sweep<T, 1, true>(j); });
    Job p = j; p.np = (int)splits;
    const long per = std::min(std::max(1L, (plen + 255) / 256), std::max(1L, 4096L / nent));
    p.colgroups = (int)per;
    launch<T>(nent * per, 256, [&] { pass2<T>(p, 2); });
    tests++;
    const double eps = sizeof(T) == 4 || sizeof(T) == 8 && Cx<T>::v ? 6e-8 : 1.2e-16;
    bool bad = false;
    for (int e = 0; e < nent; e++) for (int i = 0; i < n; i++) {
        C g = toC(yent(e)[xi(i, incy)]), r = ref[e][i];
        if (!(std::abs(g - r) <= eps * 4 * (n + 4) * (mag[e][i] + 1e-30))) { bad = true; if (fails < 10) printf("  e%d i%d got (%g,%g) ref (%g,%g)\n", e, i, g.real(), g.imag(), r.real(), r.imag()); }
    }
    std::vector<char> touched(Y.n, 0);
    for (int e = 0; e < nent; e++) for (int i = 0; i < n; i++) touched[yent(e) + xi(i, incy) - Y.p] = 1;
    for (long q = 0; q < Y.n; q++) if (!touched[q] && !bits_eq(Y.p[q], Y0[q])) { bad = true; if (fails < 10) printf("  untouched y[%ld] written\n", q); }
    if (emu_badread != bad0 || emu_misalign != mis0 || emu_badshfl != sh0) { bad = true; if (fails < 10) printf("  loads: %ld outside, %ld misaligned, %ld bad shuffles\n", (long)(emu_badread - bad0), (long)(emu_misalign - mis0), (long)(emu_badshfl - sh0)); }
    if (bad) { fails++; if (fails < 30) printf("FAIL T%d herm%d n=%d lower=%d incx=%d incy=%d mode=%d a%d b%d dev%d aoff=%d spad=%d splits=%ld tr=%d tc=%d rs=%d\n", elem, herm, n, lower, incx, incy, mode, ascal, bscal, devscal, aoff, spad, splits, tr, tc, rs); }
}

template <class T> void type_suite(int iters, const char* name) {
    const int V = 16 / sizeof(T);
    const long t0 = tests, f0 = fails, av0 = emu_avec, as0 = emu_ascal;
    // every n from 1 to 70, both triangles, aligned base, unit increments, the library's splits
    for (int n = 1; n <= 70; n++) for (int lower = 0; lower < 2; lower++)
        one<T>(n, lower, Cx<T>::v && (n & 1), 1, 1, 0, 2, 2, false, 0, 0, 0);
    // a few hundred (several row tiles where 32 V 4 < n)
    for (int n : {100, 129, 255, 256, 257, 300, 383, 513, 600})
        for (int lower = 0; lower < 2; lower++) one<T>(n, lower, Cx<T>::v && lower, 1, 1, 0, 2, 2, false, 0, 0, 0);
    // random: increments +-1, 2, batches (strided with odd strides, list), misaligned bases, scalars
    for (int it = 0; it < iters; it++) {
        const int incs[] = {1, -1, 2, -2};
        int n = ri(0, 3) == 0 ? ri(71, 600) : ri(1, 70);
        one<T>(n, ri(0, 1), Cx<T>::v && ri(0, 1), incs[ri(0, 3)], incs[ri(0, 3)], ri(0, 2), ri(0, 3), ri(0, 3), ri(0, 1),
               V > 1 ? ri(0, V - 1) : 0, ri(0, 5), ri(0, 3) == 0);
    }
    printf("%s: %ld cases, %ld failed; matrix loads: %ld 16-byte, %ld element\n", name, tests - t0, fails - f0, (long)(emu_avec - av0), (long)(emu_ascal - as0));
    fflush(stdout);
}
int main(int argc, char** argv) {
    alarm(3000);
    const int it = argc > 1 ? atoi(argv[1]) : 60;
    type_suite<float>(it, "f32");
    type_suite<double>(it, "f64");
    type_suite<float2>(it, "c32");
    type_suite<double2>(it, "c64");
    printf("total %ld cases, %ld failed, %ld loads outside the stored arrays, %ld misaligned 16-byte loads\n", tests, fails, (long)emu_badread, (long)emu_misalign);
    return fails != 0;
}
