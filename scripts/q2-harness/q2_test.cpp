// CPU run of eig_q2.cu's kernels (q2_emu.h from gen.py) against a plain reference loop.
// usage: q2_test --kernel K [--cases all|quick|big|LIST] [--case n,kd,m,ldzx[,special]] [--kd 16|32]
//                [--smem BYTES] [--cols N] [--warps W] [--seed S] [--repeat R] [--tol X] [--no-poison]
//                [--dump FILE] [--list]
//  K: a name from the kernel table below (--list prints it). LIST: case indices or names
//  (n300k32m64) separated by commas. special: 0 plain, 1 some tau = 0 / some v = 0, 2 every
//  tau = 0, 3 every v = 0 (v[0] = 1 implicit stays). Env EMU_JITTER=k: see cuda_runtime.h.
// Each case: A (n x n, lda = n + 2) holds the reflectors in its strict upper triangle (the
// layout of eig_q2.cu's header), everything else NaN (--no-poison: random); Z (n x m, ldz = n +
// ldzx) random, padding rows NaN, NaN guards before and after Z. Checks: the error figure
// max |Z - Zref| / (max |Z0| n eps) < tol (30), Z's padding and guards and all of A bitwise
// unchanged, no shared-memory guard write, and with --repeat R the R runs bit-identical.
#ifdef EMU_HDR
#include EMU_HDR
#else
#include "q2_emu.h"
#endif
#include <chrono>
#include <complex>
#include <string>
#include <cfloat>

typedef std::complex<double> cd;

// ---- shared memory of a launch (bytes); --smem overrides ----
// q2.rs's smem_bytes (at HEAD, before the tensor-core kernel) for eig_q2<T, KD>: per warp two
// diamonds' reflectors and a half window, two half windows for warp 0, Q2Split's parking.
static size_t smem_q2(int kd, int elem, bool complex) {
    const size_t warps = elem == 16 ? 4 : 8, cols = complex ? 16 : 32;
    const size_t tile = cols * (kd + 1) * elem;
    const size_t park = (elem == 16 && kd == 32) ? 2 * (kd / 2) * 32 * (elem / 2) : 0;
    return warps * (2 * kd * kd * elem + tile + park) + 2 * tile;
}
// eig_q2_mma<T, KD> (its header's layout): 8 warps, each two diamonds and a half-window tile
// of kd rows x LDT (Q2m<T>::LDT: 34 for double, 33 for double2), two tiles for warp 0.
[[maybe_unused]] static size_t smem_mma(int kd, int elem, bool) {
    const size_t ldt = elem == 16 ? 33 : 34, tile = (size_t)kd * ldt * elem;
    return 8 * (2 * (size_t)kd * kd * elem + tile) + 2 * tile;
}

// ---- the kernel table: ADD A KERNEL HERE (one entry). ----
// An entry: name (--kernel), complex (double2 elements, else double), columns of Z per block,
// warps per block, the call for KD 16 and for KD 32 (NONE: that KD's cases are skipped), the
// shared-memory formula, a description. gen.py defines EMU_HAS_<name> for every
// `template <...> __device__ void NAME(const Q2p& p)` in eig_q2.cu, and EMU_TYPED_<name> 1 when
// its first template parameter is a type (eig_q2_mma<T, KD>) or 0 (eig_q2_mma<KD>): guard an
// entry with them so that the harness still builds while the file changes.
typedef void (*Run)(const Q2p&);
struct Kernel {
    const char* name;
    bool complex;
    int cols, warps;
    Run run16, run32;
    size_t (*smem)(int kd, int elem, bool complex);
    const char* what;
};
#define CALL(...) [](const Q2p& p) { __VA_ARGS__(p); }
#define NONE nullptr
static const Kernel KERNELS[] = {
    {"d", false, 32, 8, CALL(eig_q2<double, 16>), CALL(eig_q2<double, 32>), smem_q2, "eig_q2<double, KD> (FMA, reflector by reflector)"},
    {"z", true, 16, 4, CALL(eig_q2<double2, 16>), CALL(eig_q2<double2, 32>), smem_q2, "eig_q2<double2, KD>"},
#if defined(EMU_HAS_eig_q2_mma) && EMU_TYPED_eig_q2_mma
    {"mma", false, 32, 8, CALL(eig_q2_mma<double, 16>), CALL(eig_q2_mma<double, 32>), smem_mma, "eig_q2_mma<double, KD> (DMMA m8n8k4)"},
    {"mmaz", true, 32, 8, CALL(eig_q2_mma<double2, 16>), NONE, smem_mma, "eig_q2_mma<double2, 16> (DMMA m8n8k4)"},
#elif defined(EMU_HAS_eig_q2_mma)
    {"mma", false, 32, 8, CALL(eig_q2_mma<16>), CALL(eig_q2_mma<32>), smem_mma, "eig_q2_mma<KD> (DMMA m8n8k4)"},
#endif
};

struct Case { int n, kd, m, ldzx, special; };
static const Case CASES[] = {
    {2, 16, 5, 0, 0},    {17, 16, 5, 3, 0},    {40, 16, 33, 3, 0},   {50, 16, 5, 0, 0},
    {97, 32, 5, 3, 0},   {130, 32, 40, 1, 0},  {300, 16, 5, 3, 0},   {300, 32, 64, 3, 0},
    {513, 32, 5, 0, 0},  {33, 32, 45, 2, 0},   {100, 16, 70, 1, 0},  {1, 16, 5, 1, 0},
    {9, 16, 3, 1, 0},    {129, 32, 7, 0, 0},   {70, 16, 37, 0, 1},   {160, 32, 50, 3, 1},
    {45, 16, 20, 1, 2},  {81, 32, 9, 0, 3},    {200, 16, 33, 2, 1},
};
constexpr int NCASES = sizeof(CASES) / sizeof(CASES[0]);
static std::string case_name(const Case& c) {
    std::string s = "n" + std::to_string(c.n) + "k" + std::to_string(c.kd) + "m" + std::to_string(c.m);
    if (c.ldzx) s += "x" + std::to_string(c.ldzx);
    if (c.special) s += "s" + std::to_string(c.special);
    return s;
}

static uint64_t rng_state;
static double urand() {  // [-1, 1)
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng_state >> 11) * 0x1p-52 - 1.0;
}
static bool same_bits(const double* a, const double* b, size_t n) { return memcmp(a, b, n * 8) == 0; }

static int tasks(int n, int kd, int s) { return n - 1 - s <= 0 ? 0 : (n - 1 - s + kd - 1) / kd; }

struct Result { double fig; bool pad_ok, guard_ok, a_ok, smem_ok, sync_ok, rep_ok; double secs; };

static int g_cols = 0, g_warps = 0;  // --cols / --warps overrides
static FILE* g_dump = nullptr;       // --dump FILE: each case's Z (ldz x m, C doubles an element) after the run

static Result run_case(const Kernel& K, const Case& c, size_t smem_override, uint64_t seed, int repeat, bool poison) {
    const int C = K.complex ? 2 : 1, elem = 8 * C, n = c.n, kd = c.kd, m = c.m;
    const long lda = n + 2, ldz = n + c.ldzx;
    uint64_t bits = 0x7ff8000000a0a0a0ull;  // A's poison (a quiet NaN with a payload)
    double nanA; memcpy(&nanA, &bits, 8);
    bits = 0x7ff80000000b0b0bull;
    double nanZ; memcpy(&nanZ, &bits, 8);
    rng_state = seed * 0x9e3779b97f4a7c15ull + (uint64_t)n * 1000003 + (uint64_t)m * 7919 + kd + c.special * 31 + C;
    // A: C doubles an element
    double* A = (double*)aligned_alloc(64, ((size_t)lda * std::max(n, 1) * C * 8 + 63) / 64 * 64);
    for (long i = 0; i < lda * n * C; i++) A[i] = poison ? nanA : urand();
    auto a_at = [&](long r, long col) { return A + (r + col * lda) * C; };
    for (int s = 0; s <= n - 2; s++)
        for (int t = 0; t < tasks(n, kd, s); t++) {
            const int row = s + 1 + t * kd, len = std::min(kd, n - row);
            const long col = n - 1 - s;
            double nv = 1;
            const double u = (urand() + 1) / 2;
            const bool zero_v = c.special == 3 || (c.special == 1 && u < 0.25);
            const bool zero_tau = c.special == 2 || (c.special == 1 && u >= 0.2 && u < 0.45);
            for (int i = 1; i < len; i++)
                for (int q = 0; q < C; q++) {
                    const double x = zero_v ? 0.0 : urand();
                    a_at(t * kd + i, col)[q] = x;
                    nv += x * x;
                }
            // tau = (1 - e^{i th}) / |v|^2 (unitary H; th = pi: the real 2 / |v|^2)
            const double th = C == 2 && urand() > -0.5 ? M_PI * urand() : M_PI;
            a_at(t * kd, col)[0] = zero_tau ? 0.0 : (1 - cos(th)) / nv;
            if (C == 2) a_at(t * kd, col)[1] = zero_tau ? 0.0 : -sin(th) / nv;
        }
    std::vector<double> A0(A, A + lda * n * C);
    // Z with guards: G elements before, Z (ldz x m), a block's width of columns + G after
    const long G = 64, tailc = 32;
    const size_t zn = (size_t)(G + ldz * m + ldz * tailc + G) * C;
    double* Zall = (double*)aligned_alloc(64, (zn * 8 + 63) / 64 * 64);
    double* Z = Zall + G * C;
    for (size_t i = 0; i < zn; i++) Zall[i] = nanZ;
    double zmax = 0;
    for (long j = 0; j < m; j++)
        for (long i = 0; i < n; i++) {
            double mag2 = 0;
            for (int q = 0; q < C; q++) { const double x = urand(); Z[(i + j * ldz) * C + q] = x; mag2 += x * x; }
            zmax = std::max(zmax, sqrt(mag2));
        }
    std::vector<double> Z0(Zall, Zall + zn);
    // reference: the reflectors from the last made to the first
    std::vector<cd> R((size_t)n * m);
    for (long j = 0; j < m; j++)
        for (long i = 0; i < n; i++) R[i + j * n] = cd(Z[(i + j * ldz) * C], C == 2 ? Z[(i + j * ldz) * C + 1] : 0.0);
    std::vector<cd> v(kd);
    for (int s = n - 2; s >= 0; s--)
        for (int t = tasks(n, kd, s) - 1; t >= 0; t--) {
            const int row = s + 1 + t * kd, len = std::min(kd, n - row);
            const long col = n - 1 - s;
            const cd tau(a_at(t * kd, col)[0], C == 2 ? a_at(t * kd, col)[1] : 0.0);
            v[0] = 1;
            for (int i = 1; i < len; i++) v[i] = cd(a_at(t * kd + i, col)[0], C == 2 ? a_at(t * kd + i, col)[1] : 0.0);
            for (long j = 0; j < m; j++) {
                cd* z = &R[row + j * n];
                cd d = 0;
                for (int i = 0; i < len; i++) d += std::conj(v[i]) * z[i];
                const cd w = tau * d;
                for (int i = 0; i < len; i++) z[i] -= v[i] * w;
            }
        }
    // the launch (q2.rs / family.rs): ceil(m / cols) blocks of 32 Q2_WARPS threads
    const int cols = g_cols ? g_cols : K.cols, warps = g_warps ? g_warps : K.warps;
    const Run run = kd == 16 ? K.run16 : K.run32;
    const size_t smem = smem_override ? smem_override : K.smem(kd, elem, K.complex);
    Q2p p{};
    p.a = (u64)A; p.lda = lda; p.z = (u64)Z; p.ldz = ldz; p.n = n; p.m = m;
    const long oob0 = emu_oob, serr0 = emu_sync_err;
    Result res{};
    res.rep_ok = true;
    std::vector<double> first;
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < repeat; r++) {
        if (r) std::copy(Z0.begin(), Z0.end(), Zall);
        emu_launch([&] { run(p); }, dim3((m + cols - 1) / cols), dim3(32 * warps), smem);
        if (r == 0) first.assign(Zall, Zall + zn);
        else if (!same_bits(first.data(), Zall, zn)) res.rep_ok = false;
    }
    res.secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / repeat;
    if (g_dump) fwrite(Z, 8, (size_t)ldz * m * C, g_dump);
    // checks
    double err = 0;
    bool nan = false;
    for (long j = 0; j < m; j++)
        for (long i = 0; i < n; i++) {
            const double* z = &Z[(i + j * ldz) * C];
            const cd k(z[0], C == 2 ? z[1] : 0.0);
            if (std::isnan(k.real()) || std::isnan(k.imag())) nan = true;
            err = std::max(err, std::abs(k - R[i + j * n]));
        }
    res.fig = nan ? NAN : err / (std::max(zmax, 1e-300) * std::max(n, 1) * DBL_EPSILON);
    res.pad_ok = true;
    for (long j = 0; j < m; j++)
        if (!same_bits(&Z[(n + j * ldz) * C], &Z0[(G + n + j * ldz) * C], (ldz - n) * C)) res.pad_ok = false;
    res.guard_ok = same_bits(Zall, Z0.data(), G * C) && same_bits(Z + ldz * m * C, &Z0[(G + ldz * m) * C], (ldz * tailc + G) * C);
    res.a_ok = same_bits(A, A0.data(), lda * n * C);
    res.smem_ok = emu_oob == oob0;
    res.sync_ok = emu_sync_err == serr0;
    free(A);
    free(Zall);
    return res;
}

int main(int argc, char** argv) {
    std::string kname, cases = "all";
    std::vector<Case> custom;
    size_t smem_override = 0;
    uint64_t seed = 1;
    int repeat = 1, kd_only = 0;
    double tol = 30;
    bool poison = true, list = false;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto next = [&]() -> std::string { if (i + 1 >= argc) { fprintf(stderr, "%s needs a value\n", a.c_str()); exit(2); } return argv[++i]; };
        if (a == "--kernel") kname = next();
        else if (a == "--cases") cases = next();
        else if (a == "--case") {
            Case c{0, 16, 1, 0, 0};
            if (sscanf(next().c_str(), "%d,%d,%d,%d,%d", &c.n, &c.kd, &c.m, &c.ldzx, &c.special) < 3) { fprintf(stderr, "--case n,kd,m[,ldzx[,special]]\n"); return 2; }
            custom.push_back(c);
        } else if (a == "--kd") kd_only = atoi(next().c_str());
        else if (a == "--dump") {
            if (!(g_dump = fopen(next().c_str(), "wb"))) { perror("--dump"); return 2; }
        } else if (a == "--cols") g_cols = atoi(next().c_str());
        else if (a == "--warps") g_warps = atoi(next().c_str());
        else if (a == "--smem") smem_override = strtoull(next().c_str(), nullptr, 0);
        else if (a == "--seed") seed = strtoull(next().c_str(), nullptr, 0);
        else if (a == "--repeat") repeat = std::max(1, atoi(next().c_str()));
        else if (a == "--tol") tol = atof(next().c_str());
        else if (a == "--no-poison") poison = false;
        else if (a == "--list") list = true;
        else { fprintf(stderr, "unknown argument %s (see the head of q2_test.cpp)\n", a.c_str()); return 2; }
    }
    const Kernel* K = nullptr;
    for (auto& k : KERNELS) if (kname == k.name) K = &k;
    if (list || !K) {
        printf("kernels (eig_q2.cu blob %.12s, lapack.cuh %.12s, mutations %s):\n", EMU_SRC_BLOB, EMU_LAPACK_BLOB, EMU_MUTATIONS);
        for (auto& k : KERNELS) printf("  %-6s %s; %d columns a block, %d warps\n", k.name, k.what, k.cols, k.warps);
        printf("cases:\n");
        for (int i = 0; i < NCASES; i++) printf("  %2d %s\n", i, case_name(CASES[i]).c_str());
        return list && kname.empty() ? 0 : (K ? 0 : 2);
    }
    std::vector<Case> sel;
    if (!custom.empty()) sel = custom;
    else if (cases == "all") sel.assign(CASES, CASES + NCASES);
    else if (cases == "quick" || cases == "big") {
        for (auto& c : CASES) if ((long)c.n * c.m <= 5000 ? cases == "quick" : cases == "big") sel.push_back(c);
    } else {
        size_t pos = 0;
        while (pos <= cases.size()) {
            size_t e = cases.find(',', pos);
            if (e == std::string::npos) e = cases.size();
            const std::string t = cases.substr(pos, e - pos);
            bool found = false;
            for (int i = 0; i < NCASES; i++)
                if (t == std::to_string(i) || t == case_name(CASES[i])) { sel.push_back(CASES[i]); found = true; }
            if (!found) { fprintf(stderr, "no case %s (--list)\n", t.c_str()); return 2; }
            pos = e + 1;
        }
    }
    printf("kernel %s: %s; eig_q2.cu blob %.12s, lapack.cuh %.12s, fast dmma %d, mutations %s, seed %llu%s\n", K->name, K->what,
           EMU_SRC_BLOB, EMU_LAPACK_BLOB, EMU_FAST_DMMA, EMU_MUTATIONS, (unsigned long long)seed, poison ? "" : ", A not poisoned");
    int fails = 0, runs = 0;
    double total = 0;
    for (auto& c : sel) {
        if (kd_only && c.kd != kd_only) continue;
        if (c.kd != 16 && c.kd != 32) { fprintf(stderr, "kd %d: the kernels take 16 or 32\n", c.kd); return 2; }
        if (!(c.kd == 16 ? K->run16 : K->run32)) {
            printf("SKIP %-16s (kernel %s has no KD %d)\n", case_name(c).c_str(), K->name, c.kd);
            continue;
        }
        const int elem = K->complex ? 16 : 8;
        const size_t smem = smem_override ? smem_override : K->smem(c.kd, elem, K->complex);
        Result r = run_case(*K, c, smem_override, seed, repeat, poison);
        const bool ok = r.fig < tol && r.pad_ok && r.guard_ok && r.a_ok && r.smem_ok && r.sync_ok && r.rep_ok;
        printf("%-4s %-16s smem %6zu  err %8.3f  pad %s  zguard %s  A %s  smem-guard %s  bars %s%s  %7.2f s\n", ok ? "PASS" : "FAIL",
               case_name(c).c_str(), smem, r.fig, r.pad_ok ? "ok" : "BAD", r.guard_ok ? "ok" : "BAD", r.a_ok ? "ok" : "BAD",
               r.smem_ok ? "ok" : "BAD", r.sync_ok ? "ok" : "BAD", repeat > 1 ? (r.rep_ok ? "  repeat ok" : "  repeat DIFFERS") : "", r.secs);
        fflush(stdout);
        fails += !ok;
        runs++;
        total += r.secs * repeat;
    }
    if (g_dump) fclose(g_dump);
    printf("%s: %d/%d cases passed (kernel %s, %.1f s in launches)\n", fails ? "FAIL" : "PASS", runs - fails, runs, K->name, total);
    return fails ? 1 : 0;
}
