// band-smem.cuh on the CPU emulator (band-smem-emu.h) against a double reference loop.
//   g++ -std=c++20 -O2 -pthread -Wno-unknown-pragmas -o /tmp/band-smem-emu band-smem-emu_test.cpp
//   /tmp/band-smem-emu            # all cases
//   /tmp/band-smem-emu quick      # n <= 100 only
//   /tmp/band-smem-emu traffic    # n = 16384, band 64: bytes read and copy widths per kernel
// Exit status 1 on any failure.
#include "band-smem-emu.h"
#include "band-smem.cuh"
#include <chrono>
#include <random>
#include <string>

static std::mt19937_64 rng(12345);
static double urand() { return std::uniform_real_distribution<double>(-1.0, 1.0)(rng); }

struct Spec {
    bool sym, lower;
    long m, n, kl, ku, lda;  // sbmv: kl / ku from k and the triangle
    long incx, incy;
    double alpha, beta;
    int aoff;                // A's first element this many elements past a 16-byte boundary
};

struct Result { bool ok; std::string why; long areads = 0, stored = 0, cp16 = 0, cp8 = 0, cp4 = 0, cpz = 0; };

template <class T> static bool same_bits(T a, T b) { return memcmp(&a, &b, sizeof(T)) == 0; }

template <class T, class P>
static Result run_case(const Spec& s, bool reverse, bool deferred) {
    Result res{true, ""};
    const long m = s.m, n = s.n, kl = s.kl, ku = s.ku, lda = s.lda;
    const T nan = std::numeric_limits<T>::quiet_NaN();
    // A: the band array with NaN in every slot that must not be read.
    const long alen = lda * n;
    std::vector<T> abuf(alen + 16 + 2 * (16 / sizeof(T)), nan);
    uintptr_t base = ((uintptr_t)abuf.data() + 15) & ~(uintptr_t)15;
    T* A = (T*)base + 16 / sizeof(T) + s.aoff;  // room before A inside the buffer
    EmuRegion ra;
    ra.lo = (uintptr_t)abuf.data();
    ra.hi = (uintptr_t)(abuf.data() + abuf.size());
    ra.esz = sizeof(T);
    ra.ok.assign(abuf.size(), 0);
    for (long c = 0; c < n; c++)
        for (long i = std::max(0L, c - ku); i <= std::min(m - 1, c + kl); i++) {
            T* p = A + c * lda + ku + i - c;
            *p = (T)urand();
            ra.ok[p - abuf.data()] = 1;
            res.stored++;
        }
    // A vector of len random entries at inc, NaN between them; its entries readable or not.
    auto place = [&](long len, long inc, bool readable, std::vector<T>& buf, EmuRegion& r) {
        const long blen = 1 + (len - 1) * std::labs(inc) + 2, off = inc < 0 ? (1 - len) * inc : 0;
        buf.assign(blen, nan);
        r.lo = (uintptr_t)buf.data(); r.hi = (uintptr_t)(buf.data() + blen); r.esz = sizeof(T);
        r.ok.assign(blen, 0);
        for (long i = 0; i < len; i++) { buf[off + i * inc] = (T)urand(); r.ok[off + i * inc] = readable; }
        return off;
    };
    // x: n entries (incx); y: m entries (incy), readable only when beta != 0.
    std::vector<T> xbuf, ybuf;
    EmuRegion rx, ry;
    const long offx = place(n, s.incx, true, xbuf, rx);
    const long offy = place(m, s.incy, s.beta != 0.0, ybuf, ry);
    const std::vector<T> y0 = ybuf;

    // Reference (double): y_i = beta y_i + alpha sum A(i, c) x_c over stored (and mirrored) elements.
    std::vector<double> ref(m), mag(m);
    for (long i = 0; i < m; i++) {
        double acc = 0, am = 0;
        auto add = [&](long r, long c, long xi) {  // stored element (r, c) times x_xi
            const double a = A[c * lda + ku + r - c], xv = xbuf[offx + xi * s.incx];
            acc += a * xv; am += std::fabs(a * xv);
        };
        for (long c = std::max(0L, i - kl); c <= std::min(n - 1, i + ku); c++) add(i, c, c);
        if (s.sym)  // mirror: column i's stored rows other than i
            for (long r = std::max(0L, i - ku); r <= std::min(n - 1, i + kl); r++)
                if (r != i) add(r, i, r);
        const double yv = y0[offy + i * s.incy];
        ref[i] = (s.beta == 0 ? 0.0 : s.beta * yv) + (s.alpha == 0 ? 0.0 : s.alpha * acc);
        mag[i] = std::fabs(s.beta * yv) + std::fabs(s.alpha) * am;
    }

    BandJob<T> j;
    j.a = A; j.x = xbuf.data(); j.y = ybuf.data();
    j.m = m; j.n = n; j.kl = kl; j.ku = ku; j.lda = lda;
    j.incx = s.incx; j.offx = offx; j.incy = s.incy; j.offy = offy;
    j.alpha = (T)s.alpha; j.beta = (T)s.beta; j.sym = s.sym;

    static std::vector<unsigned char> smem_store;
    smem_store.resize(P::SMEM_BYTES + 64);
    Emu e;
    e.nt = P::NT;
    e.reverse = reverse;
    e.deferred = deferred;
    e.smem = (unsigned char*)(((uintptr_t)smem_store.data() + 15) & ~(uintptr_t)15);
    e.smem_bytes = P::SMEM_BYTES;
    e.regions = {&ra, &rx, &ry};
    e.body = [&] { band_smem<T, P>(j, e.smem); };
    emu = &e;
    const long blocks = (m + P::RB - 1) / P::RB;
    for (long b = 0; b < blocks; b++) emu_run_block(b);
    emu = nullptr;

    char buf[512];
    auto fail = [&](const char* w) { if (res.ok) { res.ok = false; res.why = w; } };
    if (e.bad_read || e.misalign || e.bad_dst || e.divergence || e.left_pending) {
        snprintf(buf, sizeof buf, "emu: bad_read %ld misalign %ld bad_dst %ld divergence %ld pending %ld: %s", e.bad_read,
                 e.misalign, e.bad_dst, e.divergence, e.left_pending, e.first_err);
        fail(buf);
    }
    if (s.alpha == 0 && (ra.reads || rx.reads)) fail("alpha == 0 read A or x");
    const double tol = sizeof(T) == 4 ? 2e-6 : 1e-14;
    for (long q = 0; q < (long)ybuf.size(); q++) {
        const long off = q - offy;
        const bool entry = (s.incy > 0 ? off >= 0 && off % s.incy == 0 && off / s.incy < m
                                       : off <= 0 && off % s.incy == 0 && off / s.incy < m);
        if (!entry) {
            if (!same_bits(ybuf[q], y0[q])) fail("a y slot that is no entry was written");
            continue;
        }
        const long i = off / s.incy;
        const double got = ybuf[q];
        if (!(std::fabs(got - ref[i]) <= tol * (mag[i] + 1e-30) * (2 + kl + ku) + (sizeof(T) == 4 ? 1e-30 : 0))) {
            snprintf(buf, sizeof buf, "y[%ld] = %.9g, reference %.9g", i, got, ref[i]);
            fail(buf);
        }
    }
    res.areads = ra.reads;
    res.cp16 = e.cp16; res.cp8 = e.cp8; res.cp4 = e.cp4; res.cpz = e.cpz;
    return res;
}

static long nfail = 0, ncase = 0;
template <class T, class P>
static void check(const Spec& s, const char* cfg) {
    for (int mode = 0; mode < 2; mode++) {
        const Result r = run_case<T, P>(s, mode == 1, mode == 1);
        ncase++;
        if (!r.ok) {
            nfail++;
            if (nfail <= 30)
                printf("FAIL %s %s %s m %ld n %ld kl %ld ku %ld lda %ld incx %ld incy %ld alpha %g beta %g aoff %d mode %s: %s\n",
                       sizeof(T) == 4 ? "f32" : "f64", cfg, s.sym ? (s.lower ? "sbmv L" : "sbmv U") : "gbmv", s.m, s.n, s.kl,
                       s.ku, s.lda, s.incx, s.incy, s.alpha, s.beta, s.aoff, mode ? "reverse+deferred" : "forward+immediate",
                       r.why.c_str());
        }
    }
}

template <class T, class P>
static void suite(bool quick, const char* cfg) {
    const long ns[] = {1, 2, 31, 33, 100, 1000};
    const long incs[][2] = {{1, 1}, {-1, 2}, {2, -1}, {1, -1}, {-1, 1}, {2, 2}};
    const double ab[][2] = {{1.3, 0.0}, {-0.8, 1.1}, {0.0, 0.7}, {0.0, 0.0}, {0.9, -0.5}};
    long ci = 0;
    for (long n : ns) {
        if (quick && n > 100) continue;
        // gbmv
        const long ms[] = {n, n / 2 + 1, n + 13};
        for (long m : ms)
            for (int a = 0; a < 5; a++)
                for (int b = 0; b < 5; b++)
                    for (int lx = 0; lx < 2; lx++) {
                        const long kls[] = {0, 1, 5, 64, std::max(0L, m - 1)}, kus[] = {0, 1, 5, 64, std::max(0L, n - 1)};
                        Spec s{};
                        s.sym = false; s.m = m; s.n = n; s.kl = kls[a]; s.ku = kus[b];
                        s.lda = s.kl + s.ku + 1 + (lx ? 3 : 0);
                        s.incx = incs[ci % 6][0]; s.incy = incs[ci % 6][1];
                        s.alpha = ab[ci % 5][0]; s.beta = ab[ci % 5][1];
                        s.aoff = (int)(ci % (16 / sizeof(T)));
                        ci++;
                        check<T, P>(s, cfg);
                    }
        // sbmv
        const long ks[] = {0, 1, 64, std::max(0L, n - 1)};
        for (int lo = 0; lo < 2; lo++)
            for (long k : ks)
                for (int lx = 0; lx < 2; lx++)
                    for (int v = 0; v < 3; v++) {
                        Spec s{};
                        s.sym = true; s.lower = lo; s.m = n; s.n = n;
                        s.kl = lo ? k : 0; s.ku = lo ? 0 : k;
                        s.lda = k + 1 + (lx ? 2 : 0);
                        s.incx = incs[ci % 6][0]; s.incy = incs[ci % 6][1];
                        s.alpha = ab[ci % 5][0]; s.beta = ab[ci % 5][1];
                        s.aoff = (int)(ci % (16 / sizeof(T)));
                        ci++;
                        check<T, P>(s, cfg);
                    }
    }
}

template <class T, class P>
static void traffic(const char* name, bool sym, bool lower) {
    Spec s{};
    s.sym = sym; s.lower = lower; s.m = s.n = 16384;
    s.kl = sym ? (lower ? 64 : 0) : 64;
    s.ku = sym ? (lower ? 0 : 64) : 64;
    s.lda = s.kl + s.ku + 1;
    s.incx = s.incy = 1; s.alpha = 1.0; s.beta = 0.5; s.aoff = 0;
    const Result r = run_case<T, P>(s, false, false);
    const double stored = (double)r.stored * sizeof(T);
    printf("%-10s %s: %s; A stored %.2f MB, A read %.2f MB (x%.3f); copies a block: 16-byte %.1f, 8-byte %.1f, 4-byte %.1f, zero %.1f\n",
           name, sizeof(T) == 4 ? "f32" : "f64", r.ok ? "ok" : r.why.c_str(), stored / 1e6, r.areads / 1e6, r.areads / stored,
           r.cp16 / 256.0, r.cp8 / 256.0, r.cp4 / 256.0, r.cpz / 256.0);
    if (!r.ok) nfail++;
}

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    const auto t0 = std::chrono::steady_clock::now();
    if (mode == "traffic") {
        traffic<float, BSCfg<float, 64, 3, 256>>("gbmv N", false, false);
        traffic<float, BSCfg<float, 64, 3, 256>>("sbmv L", true, true);
        traffic<float, BSCfg<float, 64, 3, 256>>("sbmv U", true, false);
        traffic<double, BSCfg<double, 64, 3, 256>>("gbmv N", false, false);
        traffic<double, BSCfg<double, 64, 3, 256>>("sbmv L", true, true);
        traffic<double, BSCfg<double, 64, 3, 256>>("sbmv U", true, false);
        return nfail ? 1 : 0;
    }
    const bool quick = mode == "quick";
    suite<float, BSCfg<float, 64, 3, 256>>(quick, "RB64/ST3/NT256");
    suite<double, BSCfg<double, 64, 3, 256>>(quick, "RB64/ST3/NT256");
    // A small tile and two stages: the refill path (chunk k + ST into a summed buffer) runs often.
    suite<float, BSCfg<float, 32, 2, 64>>(quick, "RB32/ST2/NT64");
    suite<double, BSCfg<double, 32, 2, 64>>(quick, "RB32/ST2/NT64");
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    printf("%ld runs (cases x 2 modes), %ld failed, %.1f s\n", ncase, nfail, sec);
    return nfail ? 1 : 0;
}
