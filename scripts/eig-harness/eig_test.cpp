// CPU emulator check of kernels/eig.cu's eig_jacobi (every type, padded order, strided and
// list entry points, both triangles, with and without vectors, sorted and not, NaN input,
// max_sweeps = 1), launched as src/eig/cuda.rs does (one block per matrix: 32 threads for
// NP <= 32, 256 for NP = 64; dynamic shared memory 2 NP (NP + 1) elements).
// Checks per entry: info, sweeps, W ascending (sorted), ||A V - V W||_1 / (||A||_1 n eps) < 30,
// ||V^H V - I||_1 / (n eps) < 30 (vectors), the eigenvalues against the sorted diagonal of
// V^H A V otherwise, and every element outside the outputs untouched (NaN bits).
#include "eig_emu.h"
#include <complex>
#include <random>
#include <string>
typedef std::complex<double> cd;

template <class T> struct Tr;
template <> struct Tr<float> { typedef float R; static constexpr bool C = false; static constexpr double eps = 0x1p-23; static constexpr const char* tag = "s";
    static float make(cd v) { return (float)v.real(); } static cd get(float v) { return cd(v, 0); } };
template <> struct Tr<double> { typedef double R; static constexpr bool C = false; static constexpr double eps = 0x1p-52; static constexpr const char* tag = "d";
    static double make(cd v) { return v.real(); } static cd get(double v) { return cd(v, 0); } };
template <> struct Tr<float2> { typedef float R; static constexpr bool C = true; static constexpr double eps = 0x1p-23; static constexpr const char* tag = "c";
    static float2 make(cd v) { return make_float2((float)v.real(), (float)v.imag()); } static cd get(float2 v) { return cd(v.x, v.y); } };
template <> struct Tr<double2> { typedef double R; static constexpr bool C = true; static constexpr double eps = 0x1p-52; static constexpr const char* tag = "z";
    static double2 make(cd v) { return make_double2(v.real(), v.imag()); } static cd get(double2 v) { return cd(v.x, v.y); } };

#define K(TAG, T, NP) if (np == NP) return list ? (void*)eig_jacobi##NP##l_##TAG : (void*)eig_jacobi##NP##_##TAG;
template <class T> void* kernel(int np, bool list);
template <> void* kernel<float>(int np, bool list) { K(s, float, 8) K(s, float, 16) K(s, float, 32) K(s, float, 64) return nullptr; }
template <> void* kernel<double>(int np, bool list) { K(d, double, 8) K(d, double, 16) K(d, double, 32) K(d, double, 64) return nullptr; }
template <> void* kernel<float2>(int np, bool list) { K(c, float2, 8) K(c, float2, 16) K(c, float2, 32) K(c, float2, 64) return nullptr; }
template <> void* kernel<double2>(int np, bool list) { K(z, double2, 8) K(z, double2, 16) K(z, double2, 32) K(z, double2, 64) return nullptr; }

static int failures = 0;
#define CHECK(c, ...) do { if (!(c)) { ++failures; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); } } while (0)

template <class T> bool same(T a, T b) { return memcmp(&a, &b, sizeof(T)) == 0; }

template <class T>
void run(int n, int ne, bool list, bool lower, bool vectors, bool sort, int max_sweeps, int nan_entry, unsigned seed) {
    typedef typename Tr<T>::R R;
    const int np = n <= 8 ? 8 : n <= 16 ? 16 : n <= 32 ? 32 : 64;
    const int lda = n + 1, es = lda * n + 2;  // entries es apart (a gap of 2 after each)
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    const T poison = Tr<T>::make(cd(NAN, NAN));
    std::vector<T> A((size_t)ne * es + 1, poison);
    std::vector<std::vector<cd>> full(ne, std::vector<cd>(n * n));
    for (int e = 0; e < ne; ++e)
        for (int c = 0; c < n; ++c)
            for (int r = c; r < n; ++r) {
                cd v(u(g), Tr<T>::C && r != c ? u(g) : 0.0);
                v = Tr<T>::get(Tr<T>::make(v));  // rounded to the type
                if (e == nan_entry && r == n - 1 && c == 0) v = cd(NAN, 0);
                full[e][r + c * n] = v;
                full[e][c + r * n] = std::conj(v);
                const int sr = lower ? r : c, sc = lower ? c : r;
                T st = Tr<T>::make(lower ? v : std::conj(v));
                if (r == c && Tr<T>::C) st = Tr<T>::make(cd(v.real(), NAN));  // not read
                A[(size_t)e * es + sr + (size_t)sc * lda] = st;
            }
    const std::vector<T> A0 = A;
    const int ws = n + 1;
    std::vector<R> W((size_t)ne * ws + 1, (R)NAN), res(ne, (R)-7);
    std::vector<int> info(ne, -7), sweeps(ne, -7);
    Eigp j{};
    j.a = (u64)A.data();
    j.lda = lda;
    j.a_s = es;
    j.w = (u64)W.data();
    j.w_s = ws;
    j.info = (u64)info.data();
    j.sweeps = (u64)sweeps.data();
    j.res = (u64)res.data();
    j.tol = 0;
    j.n = n;
    j.ne = ne;
    j.max_sweeps = max_sweeps;
    j.vectors = vectors;
    j.sort = sort;
    j.lower = lower;
    j.nan_info = 1;
    const unsigned nt = np <= 32 ? 32 : 256;
    const size_t smem = 2 * (size_t)np * (np + 1) * sizeof(T);
    void* k = kernel<T>(np, list);
    if (list) {
        EigList l{};
        for (int e = 0; e < ne; ++e) l.p[e] = (u64)(A.data() + (size_t)e * es);
        emu_launch((void (*)(Eigp, EigList))k, dim3(ne), dim3(nt), smem, j, l);
    } else {
        emu_launch((void (*)(Eigp))k, dim3(ne), dim3(nt), smem, j);
    }
    char what[160];
    snprintf(what, sizeof what, "%s n %d ne %d list %d lower %d vec %d sort %d max %d nan %d", Tr<T>::tag, n, ne, list, lower, vectors, sort, max_sweeps, nan_entry);
    const double eps = Tr<T>::eps;
    for (int e = 0; e < ne; ++e) {
        T* a = A.data() + (size_t)e * es;
        const T* a0 = A0.data() + (size_t)e * es;
        const R* w = W.data() + (size_t)e * ws;
        // outside the outputs: untouched
        for (int c = 0; c < n; ++c)
            for (int r = 0; r < lda; ++r)
                if (!(vectors && r < n)) CHECK(same(a[r + c * lda], a0[r + c * lda]), "%s: A(%d, %d) of entry %d written", what, r, c, e);
        CHECK(same(a[lda * n], a0[lda * n]) && same(a[lda * n + 1], a0[lda * n + 1]), "%s: gap of entry %d written", what, e);
        CHECK(std::isnan((double)w[n]), "%s: W gap of entry %d written", what, e);
        if (e == nan_entry) {
            CHECK(info[e] == 1 && sweeps[e] == 0 && std::isnan((double)res[e]), "%s: NaN entry: info %d sweeps %d res %g", what, info[e], sweeps[e], (double)res[e]);
            for (int i = 0; i < n; ++i) CHECK(std::isnan((double)w[i]), "%s: NaN entry W", what);
            if (vectors) for (int c = 0; c < n; ++c) for (int r = 0; r < n; ++r) CHECK(std::isnan(Tr<T>::get(a[r + c * lda]).real()), "%s: NaN entry V", what);
            continue;
        }
        if (max_sweeps == 1 && n >= 16) {
            CHECK(info[e] == 1 && sweeps[e] == 1, "%s: one sweep: info %d sweeps %d", what, info[e], sweeps[e]);
            continue;
        }
        CHECK(info[e] == 0 && sweeps[e] >= (n > 1 ? 1 : 0) && sweeps[e] <= 20, "%s: entry %d info %d sweeps %d", what, e, info[e], sweeps[e]);
        double an = 0, fro = 0;
        for (int c = 0; c < n; ++c) {
            double s = 0;
            for (int r = 0; r < n; ++r) { s += std::abs(full[e][r + c * n]); fro += std::norm(full[e][r + c * n]); }
            an = std::max(an, s);
        }
        CHECK((double)res[e] <= 2 * eps * std::sqrt((double)n) * std::sqrt(fro) + 1e-300, "%s: residual %g", what, (double)res[e]);
        if (sort) for (int i = 1; i < n; ++i) CHECK(w[i - 1] <= w[i], "%s: W not ascending", what);
        if (!vectors) continue;
        double rmax = 0, omax = 0;
        for (int c = 0; c < n; ++c) {
            double rs = 0, os = 0;
            for (int r = 0; r < n; ++r) {
                cd av = 0, vv = r == c ? -1.0 : 0.0;
                for (int k = 0; k < n; ++k) {
                    av += full[e][r + k * n] * Tr<T>::get(a[k + c * lda]);
                    vv += std::conj(Tr<T>::get(a[k + r * lda])) * Tr<T>::get(a[k + c * lda]);
                }
                rs += std::abs(av - (double)w[c] * Tr<T>::get(a[r + c * lda]));
                os += std::abs(vv);
            }
            rmax = std::max(rmax, rs);
            omax = std::max(omax, os);
        }
        CHECK(rmax / (std::max(an, 1e-300) * n * eps) < 30, "%s: entry %d residual ratio %g", what, e, rmax / (an * n * eps));
        CHECK(omax / (n * eps) < 30, "%s: entry %d orthogonality ratio %g", what, e, omax / (n * eps));
    }
}

template <class T> void suite(unsigned seed) {
    const int orders[] = {1, 2, 3, 8, 9, 16, 17, 31, 32, 33, 64};
    int k = 0;
    for (int n : orders) {
        ++k;
        run<T>(n, 3, k % 2, k % 3 != 0, k % 4 != 1, true, 100, -1, seed + k);
        run<T>(n, 2, !(k % 2), k % 3 == 0, true, k % 2, 100, n > 1 ? 1 : -1, seed + 100 + k);
    }
    run<T>(32, 1, false, true, true, true, 1, -1, seed + 7);
    run<T>(64, 1, true, false, true, true, 1, -1, seed + 8);
}

int main(int argc, char** argv) {
    const std::string t = argc > 1 ? argv[1] : "dzsc";
    if (t.find('d') != std::string::npos) suite<double>(1);
    if (t.find('z') != std::string::npos) suite<double2>(2);
    if (t.find('s') != std::string::npos) suite<float>(3);
    if (t.find('c') != std::string::npos) suite<float2>(4);
    fprintf(stderr, "%s: %d failures, %ld out-of-bounds shared writes\n", t.c_str(), failures, emu_oob);
    return failures || emu_oob ? 1 : 0;
}
