// rank_packed (blas2u.cu: u2_spr_{s,d,c,z}, u2_spr2_{s,d,c,z}) on the CPU emulator
// (rank-packed-emu.h) against reference BLAS semantics in complex<double>.
//
// Checked per case: every stored element of a column with a nonzero coefficient read once and
// written once, by one hardware thread (no element touched by two threads: a race between blocks
// or lanes), within tolerance of the reference; a skipped column (x(j) == 0, spr2: and y(j) ==
// 0) neither read nor written except the Hermitian diagonal (read and written once, real part
// kept, imaginary part 0); alpha = 0: nothing read or written; every 16-byte access aligned and
// inside one entry's array; every scalar access inside an array or on an x(i)/y(i); the NaN
// padding around and between the arrays unchanged; warps convergent at every collective.
// Built and run by rank-packed-emu.sh (arguments: [quick] [threads]).
#include "rank-packed-emu.h"
#include <atomic>
#include <chrono>
#include <complex>
#include <mutex>
#include <random>
#include <thread>
#define GPUBLAS_FAMILY_RANKUPD 1
#include "rank-packed-kern.inc"

typedef std::complex<double> C;
static C toC(float v) { return C(v, 0); }
static C toC(double v) { return C(v, 0); }
static C toC(float2 v) { return C(v.x, v.y); }
static C toC(double2 v) { return C(v.x, v.y); }
template <class T> T fromC(C c);
template <> float fromC<float>(C c) { return (float)c.real(); }
template <> double fromC<double>(C c) { return c.real(); }
template <> float2 fromC<float2>(C c) { return {(float)c.real(), (float)c.imag()}; }
template <> double2 fromC<double2>(C c) { return {c.real(), c.imag()}; }
template <class T> constexpr bool is_cx = std::is_same_v<T, float2> || std::is_same_v<T, double2>;
template <class T> constexpr bool is_single = std::is_same_v<T, float> || std::is_same_v<T, float2>;
template <class T> bool bits_eq(const T& a, const T& b) { return memcmp(&a, &b, sizeof(T)) == 0; }

// The kernels as the host names them (update_cuda.rs: "u2_spr_" / "u2_spr2_" + T::TAG).
template <class T, int K> void kernel(RJob j);
template <> void kernel<float, K_SYR>(RJob j) { u2_spr_s(j); }
template <> void kernel<double, K_SYR>(RJob j) { u2_spr_d(j); }
template <> void kernel<float2, K_SYR>(RJob j) { u2_spr_c(j); }
template <> void kernel<double2, K_SYR>(RJob j) { u2_spr_z(j); }
template <> void kernel<float, K_SYR2>(RJob j) { u2_spr2_s(j); }
template <> void kernel<double, K_SYR2>(RJob j) { u2_spr2_d(j); }
template <> void kernel<float2, K_SYR2>(RJob j) { u2_spr2_c(j); }
template <> void kernel<double2, K_SYR2>(RJob j) { u2_spr2_z(j); }

struct Case {
    int type;   // 0 float, 1 double, 2 float2, 3 double2
    int kind;   // K_SYR, K_SYR2
    bool lower, herm;
    int n, aoff, incx, incy;
    int zmode;  // 0 no zeros; 1 x(j) = y(j) = 0 for j % 3 == 0 (skipped); 2 x zero j%3==0, y zero j%3==1
    bool azero;
    int nent;   // batch entries
    int spad;   // a_stride = n(n+1)/2 + spad
    bool list;  // list batch (j.tab)
    unsigned seed;
    bool dalpha = false;  // device alpha per entry (stride 2, e0 = 1; entry 1's alpha zero)
};
static const char* tname[] = {"float", "double", "float2", "double2"};
static std::string describe(const Case& c) {
    char b[256];
    snprintf(b, sizeof b, "%s %s %s%s n=%d aoff=%d incx=%d incy=%d z=%d%s nent=%d spad=%d%s%s", tname[c.type],
             c.kind == K_SYR ? (c.herm ? "hpr" : "spr") : (c.herm ? "hpr2" : "spr2"), c.lower ? "L" : "U",
             c.type >= 2 && !c.herm ? "(sym)" : "", c.n, c.aoff, c.incx, c.incy, c.zmode, c.azero ? " alpha=0" : "",
             c.nent, c.spad, c.list ? " list" : "", c.dalpha ? " device-alpha" : "");
    return b;
}

template <class T> struct Buf {  // 64-byte aligned, NaN-poisoned, `front` elements before p
    std::vector<char> raw;
    T* p;
    long n;
    Buf(long n_, long front) : raw((n_ + front + 16) * sizeof(T) + 128), n(n_) {
        memset(raw.data(), 0xff, raw.size());
        p = (T*)(((uintptr_t)raw.data() + 63) & ~(uintptr_t)63) + front;
    }
};

// Coverage per type: 0 interior group, 1 element path's 16-byte piece, 2 element path's single
// element, 3 lane 31's tail element, 4 skipped Hermitian column, 5 empty range (lower: the row
// tile of the diagonal when the column's rows start in the next one), 6 Hermitian diagonal.
static std::atomic<long> cover[4][8];
static const char* cover_name[7] = {"interior", "elem-16B", "elem-1", "tail", "herm-skip", "empty", "herm-diag"};

template <class T, int KIND> long run_case(const Case& cs, std::string& out) {
    constexpr int V = 16 / sizeof(T);
    const long n = cs.n, rb = 32 * V;
    const bool lower = cs.lower, herm = cs.herm, conj = cs.herm;
    const int nent = cs.nent;
    const long psize = n * (n + 1) / 2, astr = psize + cs.spad;
    std::mt19937_64 rng(cs.seed);
    auto rnd = [&] { return std::uniform_real_distribution<double>(-1, 1)(rng); };
    auto rc = [&] { return fromC<T>(C(rnd(), is_cx<T> ? rnd() : 0)); };

    // A: 16 poisoned elements, then aoff elements (base misalignment), the entries at astr.
    Buf<T> A(cs.aoff + astr * nent + 16, 16);
    T* Ab = A.p + cs.aoff;
    const long lx = (n - 1) * std::abs(cs.incx) + 1, ly = (n - 1) * std::abs(cs.incy) + 1;
    const long xs = lx + 3, ys = ly + 5;
    Buf<T> X(xs * nent + 8, 4), Y(ys * nent + 8, 4);
    // list batches: entries in reverse buffer order
    auto slot = [&](int e) { return cs.list ? nent - 1 - e : e; };
    auto aent = [&](int e) { return Ab + astr * slot(e); };
    auto xent = [&](int e) { return X.p + xs * slot(e); };
    auto yent = [&](int e) { return Y.p + ys * slot(e); };
    auto pidx = [&](long i, long c) { return lower ? c * (2 * n - c - 1) / 2 + i : c * (c + 1) / 2 + i; };
    auto vi = [&](long i, int inc) { return inc > 0 ? i * inc : (n - 1 - i) * -inc; };

    for (int e = 0; e < nent; e++) {
        T* a = aent(e);
        for (long q = 0; q < psize; q++) a[q] = rc();
        if constexpr (is_cx<T>)
            if (herm)
                for (long c = 0; c < n; c++) a[pidx(c, c)].y = NAN;  // must come out 0
        for (long i = 0; i < n; i++) {
            T xv = rc(), yv = rc();
            if (cs.zmode && i % 3 == 0) xv = fromC<T>(0);
            if (cs.zmode == 1 && i % 3 == 0) yv = fromC<T>(0);
            if (cs.zmode == 2 && i % 3 == 1) yv = fromC<T>(0);
            xent(e)[vi(i, cs.incx)] = xv;
            if (KIND == K_SYR2) yent(e)[vi(i, cs.incy)] = yv;
        }
    }
    const std::vector<char> A0(A.raw);
    auto a0_at = [&](const T* p) {
        T v;
        memcpy(&v, A0.data() + ((const char*)p - A.raw.data()), sizeof v);
        return v;
    };
    const bool real_alpha = !is_cx<T> || (herm && KIND == K_SYR);
    std::vector<C> al(nent);
    for (int e = 0; e < nent; e++) {
        al[e] = cs.azero || (cs.dalpha && e == 1) ? C(0, 0) : C(rnd(), real_alpha ? 0 : rnd());
        al[e] = toC(fromC<T>(al[e]));
        if (!cs.dalpha) al[e] = al[0];
    }
    // Device alpha: entry e's at (e0 + e) * 2 of an array of T, or of the real type (F_REAL).
    typedef typename Real<T>::t R;
    std::vector<T> dal(2 * (nent + 1) + 2, fromC<T>(C(NAN, NAN)));
    std::vector<R> dalr(2 * (nent + 1) + 2, (R)NAN);
    for (int e = 0; e < nent; e++) {
        dal[2 * (1 + e)] = fromC<T>(al[e]);
        dalr[2 * (1 + e)] = (R)al[e].real();
    }

    // The emulator's regions.
    Ctx ctx;
    emu_ctx = &ctx;
    ctx.alo = A.raw.data();
    ctx.ahi = A.raw.data() + A.raw.size();
    for (int e = 0; e < nent; e++) {
        Region r;
        r.lo = (char*)aent(e);
        r.hi = (char*)(aent(e) + psize);
        r.mat = true;
        r.esz = sizeof(T);
        r.rd.assign(psize, 0);
        r.wr.assign(psize, 0);
        r.owner.assign(psize, -1);
        r.shared.assign(psize, 0);
        ctx.regs.push_back(std::move(r));
    }
    auto addvec = [&](T* base, long len, int inc) {
        Region r;
        r.lo = (char*)base;
        r.hi = (char*)(base + len);
        r.mat = false;
        r.esz = sizeof(T);
        r.valid.assign(len, 0);
        for (long i = 0; i < n; i++) r.valid[vi(i, inc)] = 1;
        ctx.regs.push_back(std::move(r));
    };
    for (int e = 0; e < nent; e++) {
        addvec(xent(e), lx, cs.incx);
        if (KIND == K_SYR2) addvec(yent(e), ly, cs.incy);
    }

    // The job as update_cuda.rs fills it, the geometry of UpdShape::geom() (tri: tr = 32).
    const long rowtiles = (n + rb - 1) / rb;
    const long tiles = rowtiles * (rowtiles + 1) / 2;
    const int group = sizeof(T) == 16 ? std::max(1L, 65536 / (rb * rb * 16)) : 1;
    std::vector<u64> tab;
    RJob j;
    memset(&j, 0, sizeof j);
    if (cs.list) {
        for (int e = 0; e < nent; e++) tab.push_back((u64)aent(e));
        for (int e = 0; e < nent; e++) tab.push_back((u64)xent(e));
        if (KIND == K_SYR2)
            for (int e = 0; e < nent; e++) tab.push_back((u64)yent(e));
        j.tab = (u64)tab.data();
    } else {
        j.a = (u64)Ab;
        j.a_stride = astr;
        j.x = UVec{(u64)X.p, xs, cs.incx, cs.incx < 0 ? (n - 1) * -cs.incx : 0};
        if (KIND == K_SYR2) j.y = UVec{(u64)Y.p, ys, cs.incy, cs.incy < 0 ? (n - 1) * -cs.incy : 0};
    }
    if (cs.list) {
        j.x = UVec{0, 0, cs.incx, cs.incx < 0 ? (n - 1) * -cs.incx : 0};
        if (KIND == K_SYR2) j.y = UVec{0, 0, cs.incy, cs.incy < 0 ? (n - 1) * -cs.incy : 0};
    }
    j.lda = 0;
    j.ar = al[0].real();
    j.ai = al[0].imag();
    j.m = n;
    j.n = n;
    j.e0 = 0;
    if (cs.dalpha) {
        j.ar = j.ai = NAN;
        j.alpha_p = real_alpha && is_cx<T> ? (u64)dalr.data() : (u64)dal.data();
        j.alpha_s = 2;
        j.e0 = 1;
    }
    j.nent = nent;
    j.flags = F_PACKED | (lower ? F_LOWER : 0) | (herm ? F_HERM | F_CONJ : 0) | (cs.dalpha && real_alpha && is_cx<T> ? F_REAL : 0);
    j.tr = 32;
    j.tc = 8;
    j.cpl = (int)(rb / 8);
    j.tri = 1;
    j.rowtiles = (int)rowtiles;
    j.coltiles = (int)((n + rb - 1) / rb);
    j.group = group;
    const long blocks = (nent * tiles + group - 1) / group;
    emu_launch(blocks, [&] { kernel<T, KIND>(j); });

    // Checks.
    long fails = 0;
    auto fail = [&](const char* fmt, auto... args) {
        fails++;
        if (fails > 6) return;
        char b[400];
        snprintf(b, sizeof b, fmt, args...);
        out += "    ";
        out += b;
        out += "\n";
    };
    const double tol = is_single<T> ? 3e-6 : 1e-14;
    for (int e = 0; e < nent; e++) {
        T* a = aent(e);
        const Region& R = ctx.regs[e];
        const T* xe = xent(e);
        const T* ye = yent(e);
        for (long c = 0; c < n; c++) {
            const C xc = toC(xe[vi(c, cs.incx)]);
            const C yc = KIND == K_SYR2 ? toC(ye[vi(c, cs.incy)]) : xc;
            const bool skip = KIND == K_SYR ? xc == 0.0 : (xc == 0.0 && yc == 0.0);
            const long lo = lower ? c : 0, hi = lower ? n : c + 1;
            for (long i = lo; i < hi; i++) {
                const long q = pidx(i, c);
                const T got = a[q], old = a0_at(a + q);
                const bool dg = herm && i == c;
                const int rd = R.rd[q], wr = R.wr[q];
                const C alpha = al[e];
                const bool az = alpha == 0.0;
                if (az || (skip && !dg)) {
                    if (rd || wr)
                        fail("entry %d (%ld,%ld)%s: read %d written %d times (must not be touched)", e, i, c,
                             az ? " alpha=0" : " skipped column", rd, wr);
                    if (!bits_eq(got, old)) fail("entry %d (%ld,%ld): changed although untouchable", e, i, c);
                    continue;
                }
                if (rd != 1 || wr != 1) fail("entry %d (%ld,%ld)%s: read %d written %d times", e, i, c, skip ? " skipped diag" : "", rd, wr);
                if (R.shared[q]) fail("entry %d (%ld,%ld): accessed by two hardware threads (race)", e, i, c);
                const C xi = toC(xe[vi(i, cs.incx)]);
                const C yi = KIND == K_SYR2 ? toC(ye[vi(i, cs.incy)]) : xi;
                C t1 = 0, t2 = 0;
                if (!skip) {
                    if (KIND == K_SYR) {
                        t1 = alpha * xi * (conj ? std::conj(xc) : xc);
                    } else {
                        t1 = alpha * xi * (conj ? std::conj(yc) : yc);
                        t2 = (conj ? std::conj(alpha) : alpha) * yi * (conj ? std::conj(xc) : xc);
                    }
                }
                const C a0 = toC(old);
                C want = a0 + t1 + t2;
                double mag = std::abs(a0) + std::abs(t1) + std::abs(t2);
                const C g = toC(got);
                bool ok;
                if (dg) {
                    want = C(a0.real() + t1.real() + t2.real(), 0);
                    mag = std::abs(a0.real()) + std::abs(t1) + std::abs(t2);
                    ok = g.imag() == 0.0 && !std::isnan(g.real()) && std::abs(g.real() - want.real()) <= tol * mag + 1e-300;
                } else {
                    ok = !std::isnan(g.real()) && !std::isnan(g.imag()) && std::abs(g - want) <= tol * mag + 1e-300;
                }
                if (!ok)
                    fail("entry %d (%ld,%ld): got (%.9g,%.9g) want (%.9g,%.9g)%s", e, i, c, g.real(), g.imag(), want.real(),
                         want.imag(), skip ? " [skipped column's diagonal]" : "");
            }
        }
    }
    // The padding: before the first entry, between the entries, after the last.
    {
        const char* lo = A.raw.data();
        const char* hi = A.raw.data() + A.raw.size();
        long bad = 0, first = -1;
        for (const char* p = lo; p < hi; p++) {
            bool in = false;
            for (int e = 0; e < nent; e++)
                if (p >= ctx.regs[e].lo && p < ctx.regs[e].hi) in = true;
            if (!in && *p != A0[p - lo]) {
                if (first < 0) first = (long)(p - (const char*)Ab);
                bad++;
            }
        }
        if (bad) fail("padding changed: %ld bytes, first at byte %ld from entry 0's element 0", bad, first);
    }
    if (ctx.errors) {
        fails += ctx.errors;
        out = ctx.msgs + (ctx.errors > 6 ? "    ... (" + std::to_string(ctx.errors) + " emulator errors)\n" : "") + out;
    }
    for (int k = 0; k < 8; k++) cover[cs.type][k] += ctx.probe[k];
    emu_ctx = nullptr;
    return fails;
}

static long dispatch(const Case& c, std::string& out) {
    switch (c.type * 2 + (c.kind == K_SYR2)) {
        case 0: return run_case<float, K_SYR>(c, out);
        case 1: return run_case<float, K_SYR2>(c, out);
        case 2: return run_case<double, K_SYR>(c, out);
        case 3: return run_case<double, K_SYR2>(c, out);
        case 4: return run_case<float2, K_SYR>(c, out);
        case 5: return run_case<float2, K_SYR2>(c, out);
        case 6: return run_case<double2, K_SYR>(c, out);
        default: return run_case<double2, K_SYR2>(c, out);
    }
}

int main(int argc, char** argv) {
    const bool quick = argc > 1 && !strcmp(argv[1], "quick");
    const int nthreads = argc > 2 ? atoi(argv[2]) : 2;
    std::vector<Case> cases;
    const int incs[4] = {1, 2, -1, -3};
    unsigned seed = 1;
    int rot = 0;
    std::mt19937 pick(12345);
    for (int type = 0; type < 4; type++) {
        const int V = type == 0 ? 4 : type == 3 ? 1 : 2;
        const int rb = 32 * V;
        const int vm = V > 1 ? V - 1 : 0;  // multiples plus 1 .. V-1
        std::vector<int> ns = {rb + 1, rb + std::max(vm, 3), 2 * rb, 2 * rb + 1, 3 * rb, 3 * rb + std::max(vm, 2),
                               4 * rb + 1, 5 * rb, 5 * rb + std::max(vm, 5), 6 * rb - 1};
        if (V == 4) ns.push_back(4 * rb + 2);
        if (quick) ns = {rb + 1, 2 * rb, 3 * rb + std::max(vm, 2), 5 * rb + 1};
        for (int kind : {K_SYR, K_SYR2})
            for (bool lower : {false, true})
                for (int hv = 0; hv < (type >= 2 ? 2 : 1); hv++) {
                    const bool herm = hv == 1;
                    std::vector<int> nn = ns;
                    if (!quick)  // and three random sizes in (rb, 6 rb]
                        for (int k = 0; k < 3; k++) nn.push_back(rb + 1 + (int)(pick() % (5 * rb)));
                    // quick: one increment pair a case, rotating; full: every incx (and incy)
                    const int nix = quick ? 1 : 4, niy = quick || kind == K_SYR ? 1 : 4;
                    for (int n : nn)
                        for (int aoff = 0; aoff < V; aoff++)
                            for (int ix = 0; ix < nix; ix++)
                                for (int iy = 0; iy < niy; iy++)
                                    for (int rep = 0; rep < (V == 1 && quick ? 2 : 1); rep++) {
                                        const int incx = quick ? incs[rot % 4] : incs[ix];
                                        const int incy = quick ? incs[(rot / 4 + rot + 1) % 4] : incs[(iy + rot) % 4];
                                        cases.push_back(Case{type, kind, lower, herm, n, aoff, incx, incy, rot % 3, false, 1, 0, false, seed++});
                                        rot++;
                                    }
                    // alpha = 0: nothing touched
                    cases.push_back(Case{type, kind, lower, herm, 2 * rb + 1, V > 1 ? 1 : 0, 1, -1, 1, true, 1, 0, false, seed++});
                    // a batch of 2 strided entries, a_stride not a multiple of V (and a list batch)
                    for (int n : {rb + 1, 3 * rb + (V > 1 ? V - 1 : 2)}) {
                        cases.push_back(Case{type, kind, lower, herm, n, 0, 2, -3, rot % 3, false, 2, V > 1 ? 1 : 3, false, seed++});
                        rot++;
                    }
                    // device alpha (entry 1's zero), strided and list batches of 3
                    cases.push_back(Case{type, kind, lower, herm, 2 * rb + 1, V > 1 ? 1 : 0, 1, -1, 2, false, 3, V > 1 ? 1 : 3, false, seed++, true});
                    if (!quick) {
                        cases.push_back(Case{type, kind, lower, herm, 3 * rb + 2, 0, -3, 2, 1, false, 3, 2, true, seed++, true});
                        cases.push_back(Case{type, kind, lower, herm, 2 * rb + 3, V > 2 ? 2 : 0, -1, 1, 1, false, 2, V > 1 ? V + 1 : 1, false, seed++});
                        cases.push_back(Case{type, kind, lower, herm, 2 * rb + 1, 1 % V, 1, 2, 2, false, 3, V > 1 ? 3 : 5, true, seed++});
                        // one large triangle (mostly interior tiles)
                        cases.push_back(Case{type, kind, lower, herm, 16 * rb + 3, V - 1, 1, -1, 2, false, 1, 0, false, seed++});
                    }
                }
    }
    std::atomic<size_t> next{0};
    std::atomic<long> nfail{0}, nbad{0};
    std::mutex mu;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < nthreads; t++)
        pool.emplace_back([&] {
            for (size_t k; (k = next++) < cases.size();) {
                std::string out;
                const long f = dispatch(cases[k], out);
                if (f) {
                    nfail++;
                    nbad += f;
                    std::lock_guard<std::mutex> g(mu);
                    printf("FAIL %s: %ld problems\n%s", describe(cases[k]).c_str(), f, out.c_str());
                    fflush(stdout);
                }
            }
        });
    for (auto& t : pool) t.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (int t = 0; t < 4; t++) {
        printf("coverage %-7s:", tname[t]);
        for (int k = 0; k < 7; k++) printf(" %s %ld", cover_name[k], cover[t][k].load());
        printf("\n");
    }
    printf("%zu cases, %ld failed (%ld problems), %.1f s\n", cases.size(), nfail.load(), nbad.load(), s);
    return nfail ? 1 : 0;
}
