// A/B timing of the Level-2 rank-update kernels from a blas2u.cu source against cuBLAS (nvcc,
// GPU machine):
//   nvcc -O3 -arch=sm_90 -std=c++17 -DBLAS2U_SRC='"../../crates/gpublas/kernels/blas2u.cu"' updbench.cu -lcublas -o cur
//   ./cur [n [reps]]
//   nvcc -O3 -arch=sm_90 -std=c++17 -DBLAS2U_SRC='"variant.cu"' updbench.cu -lcublas -o var && ./var
// Each case launches the source's kernel (u2_ger_*, u2_syr_*, u2_syr2_*) with the library's job
// and geometry (UpdShape::geom in src/blas2/update.rs: 256 threads, tr = min(32, pow2 >= m / V),
// square tiles over the triangle), one entry, device alpha as `gpublas bench blas2` passes it.
// First a check pass at small awkward orders (lda = n, odd n gives misaligned columns, zeros in
// x and y give skipped columns), then the timed cases at n: median of reps event-timed launches
// (after 2 warm-ups) of the kernel alone, the update applied repeatedly to the same A; cuBLAS's
// same call timed the same way. TB/s = stored elements x element size x 2 (read + write).
// Correctness: A restored, one call of each; max |ours - cuBLAS| / max |cuBLAS| over the stored
// part, the unstored triangle (filled with a sentinel) compared bit for bit, and for her/her2
// the diagonal's imaginary parts exactly zero.
// Harness-only -D knobs (geometry): U2_GROUP=k tiles per block of the c64 kernels (the
// library: 4 for c64's triangles; the other types' kernels take one tile a block); U2_GER_CPL (8: the library's cols_per_lane) columns per lane
// of a ger tile; U2_PERSIST=k (a variant whose kernels loop over tiles, b += gridDim.x) grid of k x SMs x (resident blocks per SM)
// blocks looping over the tiles instead of one block per tile.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#define GPUBLAS_FAMILY_RANKUPD
#include "../../crates/gpublas/kernels/complex_div.cuh"
#include BLAS2U_SRC

#if defined(U2_PERSIST) && !defined(BLAS2U_VARIANT)
#error "U2_PERSIST needs a source whose kernels loop over tiles (b += gridDim.x)"
#endif
#ifndef U2_GER_CPL
#define U2_GER_CPL 8
#endif

#define CK(x)                                                                                   \
    do {                                                                                        \
        cudaError_t e_ = (x);                                                                   \
        if (e_ != cudaSuccess) {                                                                \
            printf("CUDA error %s at line %d: %s\n", cudaGetErrorString(e_), __LINE__, #x);     \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)
#define CB(x)                                                                                   \
    do {                                                                                        \
        cublasStatus_t s_ = (x);                                                                \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                      \
            printf("cuBLAS error %d at line %d: %s\n", (int)s_, __LINE__, #x);                  \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

typedef void (*Kern)(RJob);

// ---- the cases ---------------------------------------------------------------------------
enum { KG = 0, KS = 1, KS2 = 2 };  // ger, syr/her, syr2/her2 (K_GER, K_SYR, K_SYR2)

template <class T> struct Ty;
template <> struct Ty<float> { typedef float R; static const char* tag() { return "s"; } };
template <> struct Ty<double> { typedef double R; static const char* tag() { return "d"; } };
template <> struct Ty<double2> { typedef double R; static const char* tag() { return "z"; } };

static Kern kernel_of(const char* tag, int kind) {
    if (!strcmp(tag, "s")) return kind == KG ? u2_ger_s : kind == KS ? u2_syr_s : u2_syr2_s;
    if (!strcmp(tag, "d")) return kind == KG ? u2_ger_d : kind == KS ? u2_syr_d : u2_syr2_d;
    return kind == KG ? u2_ger_z : kind == KS ? u2_syr_z : u2_syr2_z;
}

// cuBLAS's same call (alpha on the host; x, y with increment 1; lda = n).
static void cublas_call(cublasHandle_t h, int kind, cublasFillMode_t u, int n, float* a, const float* x, const float* y) {
    const float al = 0.5f;
    if (kind == KG) CB(cublasSger(h, n, n, &al, x, 1, y, 1, a, n));
    else if (kind == KS) CB(cublasSsyr(h, u, n, &al, x, 1, a, n));
    else CB(cublasSsyr2(h, u, n, &al, x, 1, y, 1, a, n));
}
static void cublas_call(cublasHandle_t h, int kind, cublasFillMode_t u, int n, double* a, const double* x, const double* y) {
    const double al = 0.5;
    if (kind == KG) CB(cublasDger(h, n, n, &al, x, 1, y, 1, a, n));
    else if (kind == KS) CB(cublasDsyr(h, u, n, &al, x, 1, a, n));
    else CB(cublasDsyr2(h, u, n, &al, x, 1, y, 1, a, n));
}
static void cublas_call(cublasHandle_t h, int kind, cublasFillMode_t u, int n, double2* a, const double2* x, const double2* y) {
    if (kind == KS) {
        const double al = 0.5;
        CB(cublasZher(h, u, n, &al, (const cuDoubleComplex*)x, 1, (cuDoubleComplex*)a, n));
    } else if (kind == KS2) {
        const cuDoubleComplex al = make_cuDoubleComplex(0.5, 0.25);
        CB(cublasZher2(h, u, n, &al, (const cuDoubleComplex*)x, 1, (const cuDoubleComplex*)y, 1, (cuDoubleComplex*)a, n));
    } else {
        printf("no zger case\n");
        exit(1);
    }
}

// ---- data ----------------------------------------------------------------------------------
__device__ __forceinline__ double hval(unsigned long long i, unsigned seed) {
    unsigned hsh = (unsigned)i * 2654435761u ^ (unsigned)(i >> 32) * 40503u ^ seed;
    hsh ^= hsh >> 13; hsh *= 0x5bd1e995u; hsh ^= hsh >> 15;
    return (hsh & 0xffff) / 65536.0 - 0.4999;  // never exactly zero
}
__device__ __forceinline__ void setv(float& p, unsigned long long i, unsigned s) { p = (float)hval(i, s); }
__device__ __forceinline__ void setv(double& p, unsigned long long i, unsigned s) { p = hval(i, s); }
__device__ __forceinline__ void setv(double2& p, unsigned long long i, unsigned s) { p = make_double2(hval(i, s), hval(i, s ^ 0x9e3779b9u)); }
// The unstored triangle's sentinel: finite and of moderate size, so that any update of it
// changes its bits (a NaN can come out of arithmetic with the same bits).
__device__ __forceinline__ void setsentinel(float& p) { p = -1234.5f; }
__device__ __forceinline__ void setsentinel(double& p) { p = -1234.5; }
__device__ __forceinline__ void setsentinel(double2& p) { p = make_double2(-1234.5, 4321.25); }
__device__ __forceinline__ void setzero(float& p) { p = 0.f; }
__device__ __forceinline__ void setzero(double& p) { p = 0.0; }
__device__ __forceinline__ void setzero(double2& p) { p = make_double2(0.0, 0.0); }

// Random values; with zstep > 0 every element i with i % zstep == zoff is exactly zero.
template <class T>
__global__ void fill_vec(T* p, long long n, unsigned seed, int zstep, int zoff) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        setv(p[i], (unsigned long long)i, seed);
        if (zstep > 0 && i % zstep == zoff) setzero(p[i]);
    }
}

// Random stored part (column-major, lda = n); the other strict triangle (tri = 1 lower stored,
// 2 upper stored) gets the sentinel.
template <class T>
__global__ void fill_mat(T* a, long long n, int tri, unsigned seed) {
    const long long total = n * n;
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < total; k += (long long)gridDim.x * blockDim.x) {
        const long long i = k % n, c = k / n;
        const bool unstored = (tri == 1 && i < c) || (tri == 2 && i > c);
        if (unstored) {
            setsentinel(a[k]);
        } else {
            setv(a[k], (unsigned long long)k, seed);
        }
    }
}

template <class L>
static double med_us(int reps, L launch) {
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<float> t;
    for (int i = 0; i < reps + 2; ++i) {
        CK(cudaEventRecord(e0));
        launch();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (i >= 2) t.push_back(ms);
    }
    CK(cudaGetLastError());
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2] * 1000.0;
}

// ---- geometry: UpdShape::geom (src/blas2/update.rs) ----------------------------------------
struct Geom { int tr, tc, cpl, tri, rowtiles, coltiles, group; long long tiles; };
static Geom geom_of(int kind, long long m, long long n, int elem) {
    const long long vec = std::max(16 / elem, 1);
    const long long chunks = std::max((m + vec - 1) / vec, 1LL);
    long long p2 = 1;
    while (p2 < chunks) p2 *= 2;
    Geom g;
    g.tr = (int)std::min(p2, 32LL);
    g.tc = 256 / g.tr;
    const long long rb = g.tr * vec;
    g.rowtiles = (int)std::max((m + rb - 1) / rb, 1LL);
    g.tri = kind != KG && g.rowtiles > 1;
    g.cpl = g.tri ? (int)(rb / g.tc) : U2_GER_CPL;
    g.coltiles = (int)std::max((n + (long long)g.tc * g.cpl - 1) / ((long long)g.tc * g.cpl), 1LL);
    g.tiles = g.tri ? (long long)g.rowtiles * (g.rowtiles + 1) / 2 : (long long)g.rowtiles * g.coltiles;
    g.group = g.tri && elem == 16 ? (int)std::max(65536 / (rb * rb * elem), 1LL) : 1;
#ifdef U2_GROUP
    if (elem == 16) g.group = U2_GROUP;  // harness override: tiles per block (the c64 kernels)
#endif
    return g;
}

static int g_sms = 0;

// Kernel attributes, printed once per kernel.
static void print_attrs(const char* name, Kern k) {
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, (const void*)k));
    int occ = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, (const void*)k, 256, 0));
    printf("  %-10s regs %3d  local %4d B  blocks/SM %d\n", name, fa.numRegs, (int)fa.localSizeBytes, occ);
}

struct CaseDef { const char* name; int kind; int lower; };

template <class T>
struct Run {
    typedef typename Ty<T>::R R;
    static const int NC = sizeof(T) / sizeof(R);
    cublasHandle_t h;

    // One case at order n. timed: also time (reps launches); otherwise only check.
    // Returns false on a failed check.
    bool one(const CaseDef& cd, long long n, bool timed, int reps, bool zeros) {
        const bool cplx = NC == 2;
        const int kind = cd.kind;
        const bool lower = cd.lower != 0;
        const int tri = kind == KG ? 0 : lower ? 1 : 2;
        const size_t nn = (size_t)n * (size_t)n;
        T *a, *a0, *x, *y;
        void* dal;
        CK(cudaMalloc(&a, nn * sizeof(T)));
        CK(cudaMalloc(&a0, nn * sizeof(T)));
        CK(cudaMalloc(&x, n * sizeof(T)));
        CK(cudaMalloc(&y, n * sizeof(T)));
        CK(cudaMalloc(&dal, 16));
        fill_mat<T><<<2048, 256>>>(a0, n, tri, 11u);
        fill_vec<T><<<64, 256>>>(x, n, 12u, zeros ? 7 : 0, 3);
        fill_vec<T><<<64, 256>>>(y, n, 13u, zeros ? 5 : 0, 3);
        CK(cudaGetLastError());
        // Device alpha as the bench passes it: 0.5 (her: real 0.5; her2: 0.5 + 0.25i).
        double hal[2] = {0.5, cplx && kind == KS2 ? 0.25 : 0.0};
        float hals = 0.5f;
        if (sizeof(R) == 4) CK(cudaMemcpy(dal, &hals, 4, cudaMemcpyHostToDevice));
        else CK(cudaMemcpy(dal, hal, 16, cudaMemcpyHostToDevice));

        const Geom g = geom_of(kind, n, n, (int)sizeof(T));
        RJob jb;
        memset(&jb, 0, sizeof(jb));
        jb.a = (u64)a; jb.a_stride = 0; jb.lda = n;
        jb.x.base = (u64)x; jb.x.stride = 0; jb.x.inc = 1; jb.x.off0 = 0;
        if (kind != KS) { jb.y.base = (u64)y; jb.y.stride = 0; jb.y.inc = 1; jb.y.off0 = 0; }
        jb.tab = 0; jb.alpha_p = (u64)dal; jb.alpha_s = 0; jb.ar = 0; jb.ai = 0;
        jb.m = n; jb.n = n; jb.e0 = 0; jb.nent = 1;
        int flags = 0;
        if (cplx) flags |= F_CONJ | F_HERM;            // her, her2 (no complex ger here)
        if (cplx && kind == KS) flags |= F_REAL;       // her's device alpha is real
        if (lower && kind != KG) flags |= F_LOWER;
        jb.flags = flags;
        jb.tr = g.tr; jb.tc = g.tc; jb.cpl = g.cpl; jb.tri = g.tri; jb.rowtiles = g.rowtiles; jb.coltiles = g.coltiles;
        jb.group = g.group;
        const Kern k = kernel_of(Ty<T>::tag(), kind);
        long long blocks = (g.tiles + g.group - 1) / g.group;
#ifdef U2_PERSIST
        {
            int occ = 0;
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, (const void*)k, 256, 0));
            blocks = std::min(blocks, (long long)U2_PERSIST * g_sms * std::max(occ, 1));
        }
#endif
        if (blocks > 0x7fffffffLL) { printf("%s n %lld: %lld blocks exceed one launch\n", cd.name, n, blocks); exit(1); }
        auto ours = [&] { k<<<(unsigned)blocks, 256>>>(jb); };
        const cublasFillMode_t uplo = lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
        auto theirs = [&] { cublas_call(h, kind, uplo, (int)n, a, x, y); };

        // Correctness: one call of each from the same A.
        std::vector<T> ref(nn), got(nn);
        CK(cudaMemcpy(a, a0, nn * sizeof(T), cudaMemcpyDeviceToDevice));
        theirs();
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(ref.data(), a, nn * sizeof(T), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(a, a0, nn * sizeof(T), cudaMemcpyDeviceToDevice));
        ours();
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(got.data(), a, nn * sizeof(T), cudaMemcpyDeviceToHost));
        std::vector<T> init;
        if (tri) {
            init.resize(nn);
            CK(cudaMemcpy(init.data(), a0, nn * sizeof(T), cudaMemcpyDeviceToHost));
        }
        double emax = 0, smax = 0;
        long long touched = 0, imagbad = 0, nonfinite = 0;
        for (long long c = 0; c < n; c++) {
            for (long long i = 0; i < n; i++) {
                const size_t kk = (size_t)c * n + i;
                const bool unstored = (tri == 1 && i < c) || (tri == 2 && i > c);
                if (unstored) {
                    if (memcmp(&got[kk], &init[kk], sizeof(T)) != 0) touched++;
                    continue;
                }
                const R* gp = (const R*)&got[kk];
                const R* rp = (const R*)&ref[kk];
                for (int w = 0; w < NC; w++) {
                    // Hermitian diagonal: ours must be exactly real; its real part is compared.
                    if (cplx && i == c && w == 1) {
                        if (gp[1] != (R)0) imagbad++;
                        continue;
                    }
                    const double gv = (double)gp[w], rv = (double)rp[w];
                    if (!std::isfinite(gv)) { nonfinite++; continue; }
                    emax = std::max(emax, std::fabs(gv - rv));
                    smax = std::max(smax, std::fabs(rv));
                }
            }
        }
        const double rel = smax > 0 ? emax / smax : emax;
        const double tol = sizeof(R) == 4 ? 1e-5 : 1e-13;
        const bool ok = rel <= tol && touched == 0 && imagbad == 0 && nonfinite == 0;
        char chk[160];
        snprintf(chk, sizeof chk, "rel %.1e%s%s", rel, tri ? (touched ? " UNSTORED-TOUCHED" : " unstored ok") : "",
                 ok ? "" : " FAIL");
        if (!ok) {
            printf("   %s n %lld: rel %.2e, %lld unstored elements changed, %lld diagonal imaginary parts nonzero, %lld non-finite\n",
                   cd.name, n, rel, touched, imagbad, nonfinite);
        }

        if (timed) {
            CK(cudaMemcpy(a, a0, nn * sizeof(T), cudaMemcpyDeviceToDevice));
            const double us = med_us(reps, ours);
            CK(cudaMemcpy(a, a0, nn * sizeof(T), cudaMemcpyDeviceToDevice));
            const double cu = med_us(reps, theirs);
            CK(cudaDeviceSynchronize());
            const double stored = kind == KG ? (double)n * n : (double)n * (n + 1) / 2;
            const double bytes = stored * sizeof(T) * 2;
            printf("%-9s n %6lld tr %2d tc %3d cpl %2d tri %d blocks %9lld | ours %9.1f us %5.3f TB/s | cuBLAS %9.1f us %5.3f TB/s | %5.3fx | %s\n",
                   cd.name, n, g.tr, g.tc, g.cpl, g.tri, blocks, us, bytes / us * 1e-6, cu, bytes / cu * 1e-6, cu / us, chk);
        } else if (!ok) {
            printf("%-9s n %6lld check: %s\n", cd.name, n, chk);
        }
        CK(cudaFree(a)); CK(cudaFree(a0)); CK(cudaFree(x)); CK(cudaFree(y)); CK(cudaFree(dal));
        return ok;
    }
};

int main(int argc, char** argv) {
    const long long n = argc > 1 ? atoll(argv[1]) : 16384;
    const int reps = argc > 2 ? atoi(argv[2]) : 21;
    if (n < 1 || reps < 1) { printf("usage: %s [n [reps]]\n", argv[0]); return 1; }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    g_sms = prop.multiProcessorCount;
    printf("device %s, %d SMs; source %s; ger cpl %d", prop.name, g_sms, BLAS2U_SRC, U2_GER_CPL);
#ifdef U2_PERSIST
    printf("; persistent grid %d x SMs x blocks/SM", U2_PERSIST);
#endif
    printf("\nkernels (cudaFuncGetAttributes; blocks/SM at 256 threads):\n");
    print_attrs("u2_ger_s", u2_ger_s); print_attrs("u2_syr2_s", u2_syr2_s);
    print_attrs("u2_ger_d", u2_ger_d); print_attrs("u2_syr_d", u2_syr_d); print_attrs("u2_syr2_d", u2_syr2_d);
    print_attrs("u2_syr_z", u2_syr_z); print_attrs("u2_syr2_z", u2_syr2_z);

    cublasHandle_t h;
    CB(cublasCreate(&h));
    Run<float> rs; rs.h = h;
    Run<double> rd; rd.h = h;
    Run<double2> rz; rz.h = h;
    const CaseDef dger = {"dger", KG, 0}, dsyrL = {"dsyr L", KS, 1}, dsyrU = {"dsyr U", KS, 0};
    const CaseDef dsyr2L = {"dsyr2 L", KS2, 1}, dsyr2U = {"dsyr2 U", KS2, 0};
    const CaseDef zherL = {"zher L", KS, 1}, zher2L = {"zher2 L", KS2, 1}, zher2U = {"zher2 U", KS2, 0};
    const CaseDef sger = {"sger", KG, 0}, ssyr2L = {"ssyr2 L", KS2, 1};

    // Check pass: small awkward orders, zeros in x and y (skipped columns), odd lda.
    const long long small[] = {1, 2, 5, 33, 100, 256, 257, 300, 1001};
    int fails = 0, checks = 0;
    for (long long m : small) {
        fails += !rd.one(dger, m, false, 0, true); fails += !rd.one(dsyrL, m, false, 0, true);
        fails += !rd.one(dsyrU, m, false, 0, true); fails += !rd.one(dsyr2L, m, false, 0, true);
        fails += !rd.one(dsyr2U, m, false, 0, true); fails += !rz.one(zherL, m, false, 0, true);
        fails += !rz.one(zher2L, m, false, 0, true); fails += !rz.one(zher2U, m, false, 0, true);
        fails += !rs.one(sger, m, false, 0, true); fails += !rs.one(ssyr2L, m, false, 0, true);
        checks += 10;
    }
    printf("check pass (n = 1 2 5 33 100 256 257 300 1001, zeros in x and y): %d of %d failed\n", fails, checks);

    // Timed cases at n (zher/zher2 also at n / 2, the order `gpublas bench blas2` uses for c64).
    rd.one(dger, n, true, reps, false);
    rd.one(dsyrL, n, true, reps, false);
    rd.one(dsyrU, n, true, reps, false);
    rd.one(dsyr2L, n, true, reps, false);
    rd.one(dsyr2U, n, true, reps, false);
    if (n / 2 >= 1) {
        rz.one(zherL, n / 2, true, reps, false);
        rz.one(zher2L, n / 2, true, reps, false);
    }
    rz.one(zherL, n, true, reps, false);
    rz.one(zher2L, n, true, reps, false);
    rz.one(zher2U, n, true, reps, false);
    rs.one(sger, n, true, reps, false);
    rs.one(ssyr2L, n, true, reps, false);
    CB(cublasDestroy(h));
    return 0;
}
