// lu_warp (the Turing path, sol_luw0_*) against lu_warp2 (sm_80+, sol_luw2_*): time and bits. Standalone, nvcc:
//   cp ../../crates/gpublas/kernels/solver.cu solver_cur.cu
//   nvcc -O3 -arch=sm_90 -std=c++17 -DSOLVER_SRC='"solver_cur.cu"' luw2bench.cu -o luw2 && ./luw2
// -DLUW2_VARIANTS also times lu_warp2<double, B> for B = 4, 8, 16, 32 (block of columns per
// copy of the code). Exits 0 on mismatches (read the output: MISMATCH, `luw2 check:`).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include <algorithm>
#include <random>
#include <limits>
#include <cuda_runtime.h>
#define GPUBLAS_FAMILY_SOLVER
// The prelude the library puts in front of every kernel source (complex division).
#include "../../crates/gpublas/kernels/complex_div.cuh"
#include SOLVER_SRC
#include "luw2.cu"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA error %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)

typedef void (*Kern)(Sol);

template <class L, class R>
static double med(int reps, R reset, L launch) {
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    std::vector<float> t;
    for (int i = 0; i < reps + 2; ++i) {
        reset(); CK(cudaDeviceSynchronize());
        cudaEventRecord(a); launch(); cudaEventRecord(b); CK(cudaEventSynchronize(b));
        float ms; cudaEventElapsedTime(&ms, a, b); if (i >= 2) t.push_back(ms);
    }
    cudaEventDestroy(a); cudaEventDestroy(b);
    std::sort(t.begin(), t.end()); return t[t.size() / 2] * 1000.0;  // us
}

// Element types on the host: the scalar and the number of scalars per element.
template <class T> struct HT;
template <> struct HT<float> { typedef float S; static const int nc = 1; static const char* name() { return "float"; } };
template <> struct HT<double> { typedef double S; static const int nc = 1; static const char* name() { return "double"; } };
template <> struct HT<float2> { typedef float S; static const int nc = 2; static const char* name() { return "float2"; } };
template <> struct HT<double2> { typedef double S; static const int nc = 2; static const char* name() { return "double2"; } };

static int g_cases = 0, g_bad = 0;

// One batch through two kernels from the same input; bits of A (whole buffer, gaps too),
// pivots and info compared. Returns the number of differences.
template <class T>
static long run_pair(Kern k_old, Kern k_new, const std::vector<typename HT<T>::S>& h, int ne, i64 rows, i64 cols,
                     i64 ld, i64 es, int pivot, int k0, const std::vector<int>& info0, const char* label, bool print) {
    typedef typename HT<T>::S S;
    const size_t nA = (size_t)ne * es, nbytes = nA * sizeof(T);
    const int piv_s = k0 + 33;
    const size_t np = (size_t)ne * piv_s;
    T *A0, *A1, *A2; int *p1, *p2, *i1, *i2;
    CK(cudaMalloc(&A0, nbytes)); CK(cudaMalloc(&A1, nbytes)); CK(cudaMalloc(&A2, nbytes));
    CK(cudaMalloc(&p1, np * 4)); CK(cudaMalloc(&p2, np * 4)); CK(cudaMalloc(&i1, ne * 4)); CK(cudaMalloc(&i2, ne * 4));
    CK(cudaMemcpy(A0, h.data(), nbytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(A1, A0, nbytes, cudaMemcpyDeviceToDevice)); CK(cudaMemcpy(A2, A0, nbytes, cudaMemcpyDeviceToDevice));
    CK(cudaMemset(p1, 0xA5, np * 4)); CK(cudaMemset(p2, 0xA5, np * 4));
    CK(cudaMemcpy(i1, info0.data(), ne * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(i2, info0.data(), ne * 4, cudaMemcpyHostToDevice));
    Sol j{}; j.ld = ld; j.es = es; j.rows = rows; j.cols = cols; j.piv_s = piv_s; j.info_s = 1; j.pivot = pivot; j.ne = ne; j.k0 = k0;
    j.a = (u64)A1; j.piv = (u64)p1; j.info = (u64)i1;
    k_old<<<(ne + 3) / 4, 128>>>(j); CK(cudaGetLastError());
    j.a = (u64)A2; j.piv = (u64)p2; j.info = (u64)i2;
    k_new<<<(ne + 3) / 4, 128>>>(j); CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<S> o1(nA * HT<T>::nc), o2(nA * HT<T>::nc);
    std::vector<int> q1(np), q2(np), f1(ne), f2(ne);
    CK(cudaMemcpy(o1.data(), A1, nbytes, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(o2.data(), A2, nbytes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(q1.data(), p1, np * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(q2.data(), p2, np * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(f1.data(), i1, ne * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(f2.data(), i2, ne * 4, cudaMemcpyDeviceToHost));
    long de = 0, dp = 0, di = 0, nz = 0, nnan = 0;
    long dn = 0;  // of de: elements whose differing scalars are NaN on both sides (sign or payload)
    for (size_t i = 0; i < nA; ++i)
        if (memcmp(&o1[i * HT<T>::nc], &o2[i * HT<T>::nc], sizeof(T)) != 0) {
            ++de;
            bool nanonly = true;
            for (int k = 0; k < HT<T>::nc; ++k) {
                const S x = o1[i * HT<T>::nc + k], y = o2[i * HT<T>::nc + k];
                if (memcmp(&x, &y, sizeof(S)) != 0 && !(x != x && y != y)) nanonly = false;
            }
            if (nanonly) ++dn;
        }
    for (size_t i = 0; i < nA * HT<T>::nc; ++i) if (o1[i] != o1[i]) ++nnan;
    for (size_t i = 0; i < np; ++i) if (q1[i] != q2[i]) ++dp;
    for (int i = 0; i < ne; ++i) { if (f1[i] != f2[i]) ++di; if (f1[i] != info0[i]) ++nz; }
    const long bad = de + dp + di;
    if (print)
        printf("%-8s %-11s %2lldx%-2lld ld %2lld piv %d k0 %d: elems %ld (NaN bits only %ld) piv %ld info %ld differ (info set %ld, NaN out %ld)%s\n",
               HT<T>::name(), label, (long long)rows, (long long)cols, (long long)ld, pivot, k0, de, dn, dp, di, nz, nnan,
               bad ? "   <<<<<<<< MISMATCH" : "");
    cudaFree(A0); cudaFree(A1); cudaFree(A2); cudaFree(p1); cudaFree(p2); cudaFree(i1); cudaFree(i2);
    return bad;
}

// Fills: every scalar (gaps too); complex as pairs of scalars drawn the same way.
enum { F_RAND, F_ZEROCOL, F_EQCOLS, F_TIES, F_NAN, F_INF, F_MIXED, F_N };
static const char* fill_name[F_N] = {"random", "zero-col", "equal-col", "ties", "nan", "inf", "ties+naninf"};

template <class T>
static std::vector<typename HT<T>::S> make(int kind, int ne, int rows, int cols, int ld, int es, std::mt19937_64& g) {
    typedef typename HT<T>::S S;
    const int nc = HT<T>::nc;
    std::uniform_real_distribution<double> u(-1, 1);
    std::uniform_int_distribution<int> ui(-2, 2), pct(0, 99);
    const S nan = std::numeric_limits<S>::quiet_NaN(), inf = std::numeric_limits<S>::infinity();
    std::vector<S> h((size_t)ne * es * nc);
    for (auto& x : h) x = (S)(kind == F_TIES || kind == F_MIXED ? ui(g) : u(g));
    auto at = [&](int e, int r, int c, int k) -> S& { return h[((size_t)e * es + r + (size_t)c * ld) * nc + k]; };
    for (int e = 0; e < ne; ++e) {
        if (kind == F_ZEROCOL) {
            const int z = e % cols;
            for (int r = 0; r < rows; ++r) for (int k = 0; k < nc; ++k) at(e, r, z, k) = 0;
            if (e % 3 == 0 && cols > 2) for (int r = 0; r < rows; ++r) for (int k = 0; k < nc; ++k) at(e, r, cols - 1 - z % 2, k) = 0;
        } else if (kind == F_EQCOLS && cols >= 2) {
            const int c0 = e % cols, c1 = (e / 2 + 1) % cols;
            if (c0 != c1) for (int r = 0; r < rows; ++r) for (int k = 0; k < nc; ++k) at(e, r, c1, k) = at(e, r, c0, k);
            if (e % 4 == 1) for (int r = 0; r < rows; ++r) for (int c = 0; c < cols; ++c) for (int k = 0; k < nc; ++k) at(e, r, c, k) = (S)1;
        } else if (kind == F_NAN || kind == F_MIXED) {
            for (int r = 0; r < rows; ++r) for (int c = 0; c < cols; ++c) for (int k = 0; k < nc; ++k)
                if (pct(g) < 4) at(e, r, c, k) = nan;
            if (e % 5 == 0) { const int c = e % cols; for (int r = 0; r < rows; ++r) at(e, r, c, 0) = nan; }
            if (e % 7 == 3) { const int c = (e / 7) % cols; for (int r = 0; r < rows; r += 2) at(e, r, c, nc - 1) = nan; }
        }
        if (kind == F_INF || kind == F_MIXED) {
            for (int r = 0; r < rows; ++r) for (int c = 0; c < cols; ++c) for (int k = 0; k < nc; ++k)
                if (pct(g) < 4) at(e, r, c, k) = pct(g) < 50 ? inf : -inf;
            if (e % 6 == 2) { const int c = e % cols; for (int r = 1; r < rows; r += 3) at(e, r, c, 0) = inf; }
        }
        if (kind == F_TIES && e % 3 == 0) {  // whole columns of equal magnitudes
            const int c = e % cols;
            for (int r = 0; r < rows; ++r) for (int k = 0; k < nc; ++k) at(e, r, c, k) = (S)((r & 1) ? -1 : 1);
        }
    }
    return h;
}

template <class T>
static void sweep(Kern k_old, Kern k_new, std::mt19937_64& g) {
    const int sizes[][2] = {{32, 32}, {31, 32}, {32, 17}, {17, 32}, {1, 1}, {5, 3}, {3, 5}, {32, 1}, {1, 32}};
    const int ne = 37;
    for (auto& sz : sizes) for (int pivot = 1; pivot >= 0; --pivot) for (int kind = 0; kind < F_N; ++kind) {
        const int rows = sz[0], cols = sz[1], ld = rows + 3, es = ld * cols + 5;
        const int k0 = (kind & 1) ? 2 : 0;
        auto h = make<T>(kind, ne, rows, cols, ld, es, g);
        std::vector<int> info0(ne, 0);
        for (int e = 0; e < ne; e += 9) info0[e] = 99;  // a set info is kept
        const long bad = run_pair<T>(k_old, k_new, h, ne, rows, cols, ld, es, pivot, k0, info0, fill_name[kind], true);
        ++g_cases; if (bad) ++g_bad;
    }
}

// 10000 x 32^2 timed (median of 20, a reset copy before each), then compared bit for bit.
template <class T>
static void timing(const char* tag, Kern k_old, Kern k_new, std::mt19937_64& g) {
    typedef typename HT<T>::S S;
    const int ne = 10000, n = 32;
    const size_t N = (size_t)ne * n * n, nbytes = N * sizeof(T);
    std::vector<S> h(N * HT<T>::nc);
    std::uniform_real_distribution<double> u(-1, 1);
    for (auto& x : h) x = (S)u(g);
    T *A, *A0; int *piv, *info;
    CK(cudaMalloc(&A, nbytes)); CK(cudaMalloc(&A0, nbytes)); CK(cudaMalloc(&piv, ne * n * 4)); CK(cudaMalloc(&info, ne * 4));
    CK(cudaMemcpy(A0, h.data(), nbytes, cudaMemcpyHostToDevice));
    Sol j{}; j.a = (u64)A; j.ld = n; j.es = n * n; j.rows = n; j.cols = n; j.piv = (u64)piv; j.piv_s = n; j.info = (u64)info; j.info_s = 1; j.pivot = 1; j.ne = ne;
    auto reset = [&] { cudaMemcpy(A, A0, nbytes, cudaMemcpyDeviceToDevice); cudaMemset(info, 0, ne * 4); };
    double t[2];
    std::vector<S> o[2]; std::vector<int> p[2], f[2];
    Kern ks[2] = {k_old, k_new};
    for (int v = 0; v < 2; ++v) {
        t[v] = med(20, reset, [&] { ks[v]<<<(ne + 3) / 4, 128>>>(j); });
        CK(cudaGetLastError());
        o[v].resize(N * HT<T>::nc); p[v].resize(ne * n); f[v].resize(ne);
        CK(cudaMemcpy(o[v].data(), A, nbytes, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(p[v].data(), piv, ne * n * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(f[v].data(), info, ne * 4, cudaMemcpyDeviceToHost));
    }
    long de = 0, dp = 0, di = 0;
    for (size_t i = 0; i < N; ++i) if (memcmp(&o[0][i * HT<T>::nc], &o[1][i * HT<T>::nc], sizeof(T)) != 0) ++de;
    for (int i = 0; i < ne * n; ++i) if (p[0][i] != p[1][i]) ++dp;
    for (int i = 0; i < ne; ++i) if (f[0][i] != f[1][i]) ++di;
    printf("%-8s 10000x32^2 %-10s luw %7.1f us  luw2 %7.1f us  (%.2fx)  elems %ld piv %ld info %ld differ%s\n",
           HT<T>::name(), tag, t[0], t[1], t[0] / t[1], de, dp, di, (de + dp + di) ? "   <<<<<<<< MISMATCH" : "");
    ++g_cases; if (de + dp + di) ++g_bad;
    cudaFree(A); cudaFree(A0); cudaFree(piv); cudaFree(info);
}

int main() {
    std::mt19937_64 g(7);
    cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
    printf("device %s, lu_warp2 B 32 (complex double 8)\n", prop.name);
    timing<double>("sol_luw2_d", sol_luw0_d, sol_luw2_d, g);
#ifdef LUW2_VARIANTS
    timing<double>("B=4", sol_luw0_d, sol_luw2b4_d, g);
    timing<double>("B=8", sol_luw0_d, sol_luw2b8_d, g);
    timing<double>("B=16", sol_luw0_d, sol_luw2b16_d, g);
    timing<double>("B=32", sol_luw0_d, sol_luw2b32_d, g);
    timing<double>("B=32 fast", sol_luw0_d, sol_luw2f_d, g);
    sweep<double>(sol_luw0_d, sol_luw2f_d, g);
#endif
    timing<float>("sol_luw2_s", sol_luw0_s, sol_luw2_s, g);
    timing<float2>("sol_luw2_c", sol_luw0_c, sol_luw2_c, g);
    timing<double2>("sol_luw2_z", sol_luw0_z, sol_luw2_z, g);
    sweep<float>(sol_luw0_s, sol_luw2_s, g);
    sweep<double>(sol_luw0_d, sol_luw2_d, g);
    sweep<float2>(sol_luw0_c, sol_luw2_c, g);
    sweep<double2>(sol_luw0_z, sol_luw2_z, g);
    printf("luw2 check: %d cases, %d mismatches%s\n", g_cases, g_bad, g_bad ? "   <<<<<<<< MISMATCH" : "");
    return 0;
}
