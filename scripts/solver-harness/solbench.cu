// A/B timing of solver.cu kernels (standalone, nvcc): build with -DSOLVER_SRC='"file"'.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <random>
#include <cuda_runtime.h>
#define GPUBLAS_FAMILY_SOLVER
// The prelude the library puts in front of every kernel source (complex division).
#include "../../crates/gpublas/kernels/complex_div.cuh"
#include "../../crates/gpublas/kernels/lapack.cuh"
#include "../../crates/gpublas/kernels/solver.cuh"
#include SOLVER_SRC
#ifdef HAVE_LUCL
#include "lucl.cu"
#endif

#if !defined(ONLY7) && !defined(ONLY8)
// The column-by-column leaf of 128, which the library no longer exports, for comparison.
extern "C" __global__ void __launch_bounds__(256) h_cholr8_d(Sol j) { cholr<double, 8>(j); }
#endif

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA error %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)

template <class L, class R>
static double med(int reps, R reset, L launch) {
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    std::vector<float> t;
    for (int i = 0; i < reps + 2; ++i) {
        reset(); CK(cudaDeviceSynchronize());
        cudaEventRecord(a); launch(); cudaEventRecord(b); CK(cudaEventSynchronize(b));
        float ms; cudaEventElapsedTime(&ms, a, b); if (i >= 2) t.push_back(ms);
    }
    std::sort(t.begin(), t.end()); return t[t.size() / 2] * 1000.0;  // us
}

static std::vector<double> spd(int n, int ne, std::mt19937_64& g) {
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> out((size_t)n * n * ne), m((size_t)n * n);
    for (int e = 0; e < ne; ++e) {
        for (auto& x : m) x = u(g);
        double* A = out.data() + (size_t)e * n * n;
        for (int i = 0; i < n; ++i) for (int k = 0; k < n; ++k) {
            double s = 0; for (int t = 0; t < n; ++t) s += m[i + t * n] * m[k + t * n];
            A[i + k * n] = s / n + (i == k ? 1.0 : 0.0);
        }
    }
    return out;
}

static double sum_abs(const double* d, size_t n) { double s = 0; for (size_t i = 0; i < n; ++i) s += fabs(d[i]); return s; }

int main() {
    std::mt19937_64 g(7);
    std::uniform_real_distribution<double> u(-1, 1);
#if !defined(ONLY7) && !defined(ONLY8)
    // 1. batched LU 10000 x 32^2 (one warp each)
    {
        const int ne = 10000, n = 32; size_t N = (size_t)ne * n * n;
        std::vector<double> h(N); for (auto& x : h) x = u(g);
        double *A, *A0; int *piv, *info;
        CK(cudaMalloc(&A, N * 8)); CK(cudaMalloc(&A0, N * 8)); CK(cudaMalloc(&piv, ne * n * 4)); CK(cudaMalloc(&info, ne * 4));
        CK(cudaMemcpy(A0, h.data(), N * 8, cudaMemcpyHostToDevice));
        Sol j{}; j.a = (u64)A; j.ld = n; j.es = n * n; j.rows = n; j.cols = n; j.piv = (u64)piv; j.piv_s = n; j.info = (u64)info; j.info_s = 1; j.pivot = 1; j.ne = ne;
        auto reset = [&] { cudaMemcpy(A, A0, N * 8, cudaMemcpyDeviceToDevice); cudaMemset(info, 0, ne * 4); };
        double t = med(20, reset, [&] { sol_luw_d<<<(ne + 3) / 4, 128>>>(j); });
        std::vector<double> o(N); std::vector<int> p(ne * n);
        cudaMemcpy(o.data(), A, N * 8, cudaMemcpyDeviceToHost); cudaMemcpy(p.data(), piv, ne * n * 4, cudaMemcpyDeviceToHost);
        long ps = 0; for (int x : p) ps += x;
        printf("luw 10000x32: %.1f us  checksum %.12e piv %ld\n", t, sum_abs(o.data(), N), ps);
        cudaFree(A); cudaFree(A0); cudaFree(piv); cudaFree(info);
    }
    // 2. batched Cholesky 10000 x 32^2 (one warp each)
    {
        const int ne = 10000, n = 32; size_t N = (size_t)ne * n * n;
        auto h = spd(n, ne, g);
        double *A, *A0; int* info;
        CK(cudaMalloc(&A, N * 8)); CK(cudaMalloc(&A0, N * 8)); CK(cudaMalloc(&info, ne * 4));
        CK(cudaMemcpy(A0, h.data(), N * 8, cudaMemcpyHostToDevice));
        Sol j{}; j.a = (u64)A; j.ld = n; j.es = n * n; j.cols = n; j.info = (u64)info; j.info_s = 1; j.lower = 1; j.ne = ne;
        auto reset = [&] { cudaMemcpy(A, A0, N * 8, cudaMemcpyDeviceToDevice); cudaMemset(info, 0, ne * 4); };
        double t = med(20, reset, [&] { sol_chol_d<<<ne, 32>>>(j); });
        std::vector<double> o(N); cudaMemcpy(o.data(), A, N * 8, cudaMemcpyDeviceToHost);
        printf("chol warp 10000x32: %.1f us  checksum %.12e\n", t, sum_abs(o.data(), N));
        cudaFree(A); cudaFree(A0); cudaFree(info);
    }
    // 3. Cholesky leaves of 64 and 128: shared-memory block vs register tiles
    for (int n : {64, 128, 100, 57}) for (int ne : {1, 1000}) {
        size_t N = (size_t)ne * n * n;
        auto h = spd(n, ne, g);
        double *A, *A0; int* info;
        CK(cudaMalloc(&A, N * 8)); CK(cudaMalloc(&A0, N * 8)); CK(cudaMalloc(&info, ne * 4));
        CK(cudaMemcpy(A0, h.data(), N * 8, cudaMemcpyHostToDevice));
        Sol j{}; j.a = (u64)A; j.ld = n; j.es = n * n; j.cols = n; j.info = (u64)info; j.info_s = 1; j.lower = 1; j.ne = ne;
        auto reset = [&] { cudaMemcpy(A, A0, N * 8, cudaMemcpyDeviceToDevice); cudaMemset(info, 0, ne * 4); };
        std::vector<double> ob(N);
#ifdef HAVE_CHOLB
        int smem = n * (n + 1) * 8;
        CK(cudaFuncSetAttribute(sol_cholb_d, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 << 10));
        double tb = med(20, reset, [&] { sol_cholb_d<<<ne, 256, smem>>>(j); });
        CK(cudaGetLastError());
        cudaMemcpy(ob.data(), A, N * 8, cudaMemcpyDeviceToHost);
        printf("cholb n=%d ne=%d: %.1f us  checksum %.12e\n", n, ne, tb, sum_abs(ob.data(), N));
#endif
#ifdef HAVE_CHOLR
        double tr = med(20, reset, [&] { if (n <= 64) sol_cholr4_d<<<ne, 256>>>(j); else h_cholr8_d<<<ne, 256>>>(j); });
        CK(cudaGetLastError());
        std::vector<double> orr(N); cudaMemcpy(orr.data(), A, N * 8, cudaMemcpyDeviceToHost);
        double md = 0; for (int e = 0; e < ne; ++e) for (int k = 0; k < n; ++k) for (int r = k; r < n; ++r) { size_t i = (size_t)e * n * n + r + k * n; md = std::max(md, fabs(ob[i] - orr[i])); }
        printf("cholr n=%d ne=%d: %.1f us  max|cholb - cholr| %.3e checksum %.12e\n", n, ne, tr, md, sum_abs(orr.data(), N));
#ifdef HAVE_CHOLP
        // Blocks of 16 columns (cholp) against the column-by-column tiles (cholr).
        double tp = med(20, reset, [&] { if (n <= 64) sol_cholp4_d<<<ne, 256>>>(j); else sol_cholp8_d<<<ne, 256>>>(j); });
        CK(cudaGetLastError());
        std::vector<double> op(N); cudaMemcpy(op.data(), A, N * 8, cudaMemcpyDeviceToHost);
        std::vector<int> ip(ne); cudaMemcpy(ip.data(), info, ne * 4, cudaMemcpyDeviceToHost);
        double mp = 0; long bad = 0;
        for (int e = 0; e < ne; ++e) for (int k = 0; k < n; ++k) for (int r = 0; r < n; ++r) {
            size_t i = (size_t)e * n * n + r + k * n;
            if (r >= k) mp = std::max(mp, fabs(op[i] - orr[i]));
            else if (op[i] != h[i]) ++bad;  // the upper triangle stays as it was
        }
        long infos = 0; for (int x : ip) infos += x != 0;
        printf("cholp n=%d ne=%d: %.1f us  max|cholp - cholr| %.3e upper changed %ld infos %ld\n", n, ne, tp, mp, bad, infos);
#endif
#endif
        cudaFree(A); cudaFree(A0); cudaFree(info);
    }
    // 4. LU panel of 64 columns over 8192 / 16384 rows (cooperative, 128 rows per block)
    for (int rows : {8192, 16384}) {
        const int cols = 64, G = rows / 128; size_t N = (size_t)rows * cols;
        std::vector<double> h(N); for (auto& x : h) x = u(g);
        double *A, *A0; int *piv, *info; unsigned char* slots;
        size_t gen = (size_t)(G + 1) * 64 * 8 + (size_t)G * 16;
        CK(cudaMalloc(&A, N * 8)); CK(cudaMalloc(&A0, N * 8)); CK(cudaMalloc(&piv, cols * 4)); CK(cudaMalloc(&info, 4)); CK(cudaMalloc(&slots, 2 * gen));
        CK(cudaMemcpy(A0, h.data(), N * 8, cudaMemcpyHostToDevice));
        Sol j{}; j.a = (u64)A; j.ld = rows; j.rows = rows; j.cols = cols; j.piv = (u64)piv; j.info = (u64)info; j.pivot = 1; j.ne = 1;
        j.grid = G; j.k1 = G; j.aux = 0; j.slots = (u64)slots; j.smem_rows = 128;
        int smem = 128 * cols * 8;
        CK(cudaFuncSetAttribute(sol_lu_d, cudaFuncAttributeMaxDynamicSharedMemorySize, 160 << 10));
        auto reset = [&] { cudaMemcpy(A, A0, N * 8, cudaMemcpyDeviceToDevice); cudaMemset(info, 0, 4); cudaMemset(slots, 0, 2 * gen); };
        void* args[] = {&j};
        double t = med(10, reset, [&] { CK(cudaLaunchCooperativeKernel((void*)sol_lu_d, G, 128, args, smem, 0)); });
        std::vector<double> o(N); std::vector<int> p(cols);
        cudaMemcpy(o.data(), A, N * 8, cudaMemcpyDeviceToHost); cudaMemcpy(p.data(), piv, cols * 4, cudaMemcpyDeviceToHost);
        long ps = 0; for (int x : p) ps += x;
        printf("lu panel %d x 64 (G=%d): %.1f us  checksum %.12e piv %ld\n", rows, G, t, sum_abs(o.data(), N), ps);
        cudaFree(A); cudaFree(A0); cudaFree(piv); cudaFree(info); cudaFree(slots);
    }
    // 5. batched LU panels: 1000 x (128 rows x 64 columns), one block each
    {
        const int ne = 1000, rows = 128, cols = 64; size_t N = (size_t)ne * rows * cols;
        std::vector<double> h(N); for (auto& x : h) x = u(g);
        double *A, *A0; int *piv, *info;
        CK(cudaMalloc(&A, N * 8)); CK(cudaMalloc(&A0, N * 8)); CK(cudaMalloc(&piv, ne * cols * 4)); CK(cudaMalloc(&info, ne * 4));
        CK(cudaMemcpy(A0, h.data(), N * 8, cudaMemcpyHostToDevice));
        Sol j{}; j.a = (u64)A; j.ld = rows; j.es = rows * cols; j.rows = rows; j.cols = cols; j.piv = (u64)piv; j.piv_s = cols; j.info = (u64)info; j.info_s = 1; j.pivot = 1; j.ne = ne;
        j.grid = 1; j.k1 = 1; j.smem_rows = rows;
        int smem = rows * cols * 8;
        auto reset = [&] { cudaMemcpy(A, A0, N * 8, cudaMemcpyDeviceToDevice); cudaMemset(info, 0, ne * 4); };
        double t = med(10, reset, [&] { sol_lu_d<<<ne, 128, smem>>>(j); });
        CK(cudaGetLastError());
        std::vector<double> o(N); std::vector<int> p(ne * cols);
        cudaMemcpy(o.data(), A, N * 8, cudaMemcpyDeviceToHost); cudaMemcpy(p.data(), piv, ne * cols * 4, cudaMemcpyDeviceToHost);
        long ps = 0; for (int x : p) ps += x;
        printf("lu panel batched 1000 x 128 x 64: %.1f us  checksum %.12e piv %ld\n", t, sum_abs(o.data(), N), ps);
    }
    // 6. a panel with exactly singular columns and NaNs (info, NaN never chosen)
    {
        const int rows = 4096, cols = 64, G = 32; size_t N = (size_t)rows * cols;
        std::vector<double> h(N); for (auto& x : h) x = u(g);
        for (int r = 0; r < rows; ++r) { h[r + 5 * rows] = 0.0; h[r + 9 * rows] = h[r + 8 * rows]; }
        h[100 + 20 * rows] = NAN;
        double *A; int *piv, *info; unsigned char* slots;
        size_t gen = (size_t)(G + 1) * 64 * 8 + (size_t)G * 16;
        CK(cudaMalloc(&A, N * 8)); CK(cudaMalloc(&piv, cols * 4)); CK(cudaMalloc(&info, 4)); CK(cudaMalloc(&slots, 2 * gen));
        CK(cudaMemcpy(A, h.data(), N * 8, cudaMemcpyHostToDevice)); cudaMemset(info, 0, 4); cudaMemset(slots, 0, 2 * gen);
        Sol j{}; j.a = (u64)A; j.ld = rows; j.rows = rows; j.cols = cols; j.piv = (u64)piv; j.info = (u64)info; j.pivot = 1; j.ne = 1;
        j.grid = G; j.k1 = G; j.aux = 0; j.slots = (u64)slots; j.smem_rows = 128;
        void* args[] = {&j};
        CK(cudaLaunchCooperativeKernel((void*)sol_lu_d, G, 128, args, 128 * cols * 8, 0)); CK(cudaDeviceSynchronize());
        std::vector<double> o(N); std::vector<int> p(cols); int inf;
        cudaMemcpy(o.data(), A, N * 8, cudaMemcpyDeviceToHost); cudaMemcpy(p.data(), piv, cols * 4, cudaMemcpyDeviceToHost); cudaMemcpy(&inf, info, 4, cudaMemcpyDeviceToHost);
        long ps = 0; for (int x : p) ps += x;
        double cs = 0; size_t nan = 0; for (double x : o) { if (x != x) ++nan; else cs += fabs(x); }
        printf("lu panel singular+NaN 4096 x 64: info %d checksum %.12e nans %zu piv %ld\n", inf, cs, nan, ps);
    }
#endif
#ifdef HAVE_LUB
    // 8. whole LU of small matrices, one block each (lub): times, and bits against a CPU loop
    //    with the same arithmetic (division, then fma(-l, u, c)) and the same pivot rule.
    {
        auto ref = [](std::vector<double>& A, int rows, int cols, int ld, std::vector<int>& piv, int& info) {
            info = 0;
            for (int jj = 0; jj < std::min(rows, cols); ++jj) {
                int p = jj; double best = -2.0;
                for (int r = jj; r < rows; ++r) {
                    double m = fabs(A[r + (size_t)jj * ld]); if (m != m) m = -1.0;
                    if (m > best) { best = m; p = r; }
                }
                piv[jj] = p + 1;
                const double pv = A[p + (size_t)jj * ld];
                if (pv == 0.0) { if (!info) info = jj + 1; continue; }
                if (p != jj) for (int c = 0; c < cols; ++c) std::swap(A[jj + (size_t)c * ld], A[p + (size_t)c * ld]);
#ifdef LUR_REF_RCP  // a variant that scales by the reciprocal (LAPACK's dgetf2 where |pivot| >= sfmin)
                const double rp = 1.0 / pv;
                for (int r = jj + 1; r < rows; ++r) A[r + (size_t)jj * ld] = A[r + (size_t)jj * ld] * rp;
#else
                for (int r = jj + 1; r < rows; ++r) A[r + (size_t)jj * ld] = A[r + (size_t)jj * ld] / pv;
#endif
                for (int c = jj + 1; c < cols; ++c) {
                    const double u = A[jj + (size_t)c * ld];
                    for (int r = jj + 1; r < rows; ++r) A[r + (size_t)c * ld] = std::fma(-A[r + (size_t)jj * ld], u, A[r + (size_t)c * ld]);
                }
            }
        };
        struct Case { int rows, cols, ne, special; };
        const Case cases[] = {{128, 128, 1000, 0}, {64, 64, 1000, 0}, {128, 128, 1, 0}, {100, 100, 7, 0}, {128, 70, 5, 0},
                              {70, 128, 5, 0}, {65, 65, 5, 0}, {33, 40, 5, 0}, {64, 17, 5, 0}, {120, 120, 3, 1}, {50, 50, 3, 2}, {96, 96, 3, 3}};
        int bad_total = 0;
        for (const Case& cs : cases) {
            const int rows = cs.rows, cols = cs.cols, ne = cs.ne, ld = rows + 3;
            const size_t es = (size_t)ld * cols + 5, N = es * ne;
            std::vector<double> h(N);
            for (auto& x : h) x = u(g);
            for (int e = 0; e < ne; ++e) {
                double* M = h.data() + e * es;
                if (cs.special == 1) { for (int r = 0; r < rows; ++r) { M[r + 7 * ld] = 0.0; M[r + 30 * ld] = M[r + 29 * ld]; } }
                if (cs.special == 2) { M[3 + 4 * ld] = NAN; M[10 + 0 * ld] = INFINITY; }
                if (cs.special == 3) { for (size_t i = 0; i < (size_t)ld * cols; ++i) M[i] = (double)((int)(M[i] * 3)); }
            }
            double *A, *A0; int *piv, *info;
            CK(cudaMalloc(&A, N * 8)); CK(cudaMalloc(&A0, N * 8)); CK(cudaMalloc(&piv, ne * 128 * 4)); CK(cudaMalloc(&info, ne * 4));
            CK(cudaMemcpy(A0, h.data(), N * 8, cudaMemcpyHostToDevice));
            Sol j{}; j.a = (u64)A; j.ld = ld; j.es = es; j.rows = rows; j.cols = cols; j.piv = (u64)piv; j.piv_s = 128; j.info = (u64)info; j.info_s = 1; j.pivot = 1; j.ne = ne;
            auto reset = [&] { cudaMemcpy(A, A0, N * 8, cudaMemcpyDeviceToDevice); cudaMemset(info, 0, ne * 4); };
            const bool big = rows > 64 || cols > 64;
#if defined(LUR2)
            // LUR2: both whole-LU kernels, `lur` (one matrix a block) then `lur2` (two, the second
            // in 128 KB of shared memory), each checked below; `LUR2_ONLY` skips `lur`.
          for (int variant = 0; variant < 2; ++variant) {
#ifdef LUR2_ONLY
            if (variant == 0) continue;
#endif
            const size_t dyn = 128 * 128 * 8;
            CK(cudaFuncSetAttribute(sol_lur128x2_d, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn));
            double t = med(ne >= 1000 ? 20 : 3, reset, [&] {
                if (!big) sol_lur64_d<<<ne, 128>>>(j);
                else if (variant == 0) sol_lur128_d<<<ne, 512>>>(j);
                else sol_lur128x2_d<<<(ne + 1) / 2, 512, dyn>>>(j);
            });
            const char* vname = variant ? "lur2" : "lur";
#elif defined(LURX)
            // LURX: `lur` (registers only, one block an SM), the library's `lur128half` (16
            // slots a thread in shared memory, two blocks an SM) and `lur128x` (LUR_SQ slots),
            // each checked below.
          for (int variant = 0; variant < 3; ++variant) {
            const size_t dyn = (size_t)LUR_SQ * 4 * 128 * 8, dyn_half = (size_t)16 * 4 * 128 * 8;
            CK(cudaFuncSetAttribute(sol_lur128x_d, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn));
            CK(cudaFuncSetAttribute(sol_lur128half_d, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn_half));
            double t = med(ne >= 1000 ? 20 : 3, reset, [&] {
                if (!big) sol_lur64_d<<<ne, 128>>>(j);
                else if (variant == 0) sol_lur128_d<<<ne, 512>>>(j);
                else if (variant == 1) sol_lur128half_d<<<ne, 512, dyn_half>>>(j);
                else sol_lur128x_d<<<ne, 512, dyn>>>(j);
            });
            const char* vname = variant == 0 ? "lur" : variant == 1 ? "half" : "lurx";
#elif defined(LUR)
            double t = med(ne >= 1000 ? 20 : 3, reset, [&] { if (big) sol_lur128_d<<<ne, 512>>>(j); else sol_lur64_d<<<ne, 128>>>(j); });
#else
            double t = med(ne >= 1000 ? 20 : 3, reset, [&] { if (big) sol_lub8_d<<<ne, 256>>>(j); else sol_lub4_d<<<ne, 256>>>(j); });
#endif
            CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
            std::vector<double> o(N); std::vector<int> p(ne * 128), inf(ne);
            cudaMemcpy(o.data(), A, N * 8, cudaMemcpyDeviceToHost); cudaMemcpy(p.data(), piv, ne * 128 * 4, cudaMemcpyDeviceToHost); cudaMemcpy(inf.data(), info, ne * 4, cudaMemcpyDeviceToHost);
            int bad = 0, badp = 0, badi = 0; const int check = std::min(ne, 40);
            for (int e = 0; e < check; ++e) {
                std::vector<double> M(h.begin() + e * es, h.begin() + (e + 1) * es); std::vector<int> rp(128); int ri;
                ref(M, rows, cols, ld, rp, ri);
                for (size_t i = 0; i < es; ++i) { const double x = M[i], y = o[e * es + i]; if (!(x == y || (x != x && y != y))) ++bad; }
                for (int c = 0; c < std::min(rows, cols); ++c) badp += rp[c] != p[e * 128 + c];
                badi += ri != inf[e];
            }
            bad_total += bad + badp + badi;
#if defined(LUR2) || defined(LURX)
            printf("lub %-4s %d x %d x %d (special %d): %.1f us  elements differing %d, pivots %d, info %d (of %d entries)%s\n", vname, ne, rows, cols, cs.special, t, bad, badp, badi, check, bad + badp + badi ? "  MISMATCH" : "");
          }
#else
            printf("lub %d x %d x %d (special %d): %.1f us  elements differing %d, pivots %d, info %d (of %d entries)%s\n", ne, rows, cols, cs.special, t, bad, badp, badi, check, bad + badp + badi ? "  MISMATCH" : "");
#endif
#ifdef LUR_CLOCK
            // A variant that records clock64() at LUR_CLOCK points of each column (thread 0 of
            // block 0 and of block ne / 2, `lur_clk[block][column][point]`): mean cycles between
            // them over columns 2 .. 41 and 86 .. 125 (the last column of each: to the next one).
            if (&cs == &cases[0]) {
                long long c[2][128][8];
                CK(cudaMemcpyFromSymbol(c, lur_clk, sizeof c));
                for (int bb = 0; bb < 2; ++bb)
                    for (int k0 : {2, 86}) {
                        double d[8] = {0};
                        for (int k = k0; k < k0 + 40; ++k) {
                            for (int s = 1; s < LUR_CLOCK; ++s) d[s - 1] += (double)(c[bb][k][s] - c[bb][k][s - 1]);
                            d[LUR_CLOCK - 1] += (double)(c[bb][k + 1][0] - c[bb][k][0]);
                        }
                        printf("   lub clock block %s columns %d..%d:", bb ? "mid" : "0", k0, k0 + 39);
                        for (int s = 0; s + 1 < LUR_CLOCK; ++s) printf(" %.0f", d[s] / 40);
                        printf(" | column %.0f\n", d[LUR_CLOCK - 1] / 40);
                    }
            }
#endif
            cudaFree(A); cudaFree(A0); cudaFree(piv); cudaFree(info);
        }
        printf("lub check: %d mismatches\n", bad_total);
    }
#endif
#ifdef HAVE_LUCL
    // 7. 32-column panels: the cooperative kernel against the cluster kernel
    for (int rows : {4096, 8192}) {
        const int cols = 32; size_t N = (size_t)rows * cols;
        std::vector<double> h(N); for (auto& x : h) x = u(g);
        double *A, *A0; int *piv, *info; unsigned char* slots;
        const int G = rows / 128;
        size_t gen = (size_t)(G + 1) * 64 * 8 + (size_t)G * 16;
        CK(cudaMalloc(&A, N * 8)); CK(cudaMalloc(&A0, N * 8)); CK(cudaMalloc(&piv, cols * 4)); CK(cudaMalloc(&info, 4)); CK(cudaMalloc(&slots, 2 * gen));
        CK(cudaMemcpy(A0, h.data(), N * 8, cudaMemcpyHostToDevice));
        Sol j{}; j.a = (u64)A; j.ld = rows; j.rows = rows; j.cols = cols; j.piv = (u64)piv; j.info = (u64)info; j.pivot = 1; j.ne = 1;
        j.grid = G; j.k1 = G; j.aux = 0; j.slots = (u64)slots; j.smem_rows = 128;
        auto reset = [&] { cudaMemcpy(A, A0, N * 8, cudaMemcpyDeviceToDevice); cudaMemset(info, 0, 4); cudaMemset(slots, 0, 2 * gen); };
        void* args[] = {&j};
        double t0 = med(10, reset, [&] { CK(cudaLaunchCooperativeKernel((void*)sol_lu_d, G, 128, args, 128 * cols * 8, 0)); });
        std::vector<double> o(N), o2(N); std::vector<int> p(cols), p2(cols);
        cudaMemcpy(o.data(), A, N * 8, cudaMemcpyDeviceToHost); cudaMemcpy(p.data(), piv, cols * 4, cudaMemcpyDeviceToHost);
        for (int CS : {16}) {
            const int rpb = (rows + CS - 1) / CS;
            const int smem = rpb * cols * 8;
            const int threads = std::min(512, ((rpb + 31) / 32) * 32);
            CK(cudaFuncSetAttribute(sol_lucl_d, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
            CK(cudaFuncSetAttribute(sol_lucl_d, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
            cudaLaunchConfig_t cfg = {}; cfg.gridDim = dim3(CS); cfg.blockDim = dim3(threads); cfg.dynamicSmemBytes = smem;
            cudaLaunchAttribute at[1]; at[0].id = cudaLaunchAttributeClusterDimension; at[0].val.clusterDim.x = CS; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
            cfg.attrs = at; cfg.numAttrs = 1;
            double t1 = med(10, reset, [&] { CK(cudaLaunchKernelEx(&cfg, sol_lucl_d, j)); });
            cudaMemcpy(o2.data(), A, N * 8, cudaMemcpyDeviceToHost); cudaMemcpy(p2.data(), piv, cols * 4, cudaMemcpyDeviceToHost);
            double md = 0; for (size_t i = 0; i < N; ++i) md = std::max(md, fabs(o[i] - o2[i]));
            int pd = 0; for (int c = 0; c < cols; ++c) pd += p[c] != p2[c];
            printf("panel %d x 32: cooperative (G=%d) %.1f us, cluster of %d: %.1f us, max diff %.3e, pivots differing %d\n", rows, G, t0, CS, t1, md, pd);
        }
    }
#endif
    return 0;
}
