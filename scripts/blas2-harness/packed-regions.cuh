// spmv by regions: y = alpha A x + beta y, A symmetric in packed storage (upper or lower),
// f32 and f64. Harness prototype (issue 30), after the library's full-storage f32 symv by
// regions (`sr::` / symv_regions / symv_regions_sum in crates/gpublas/kernels/blas2.cu);
// self-contained (no includes: it compiles with nvcc, with NVRTC and, with PR_EMU defined, on
// the CPU emulator packed-regions-emu_test.cpp).
//
// Packed addressing (column-major, BLAS): element (i, j) of the stored triangle lies at
//   upper (i <= j): j (j + 1) / 2 + i            (column j: rows 0..j)
//   lower (i >= j): j (2 n - j - 1) / 2 + i      (column j: rows j..n-1, starts at
//                                                 sum_{c<j} (n - c) = j n - j (j - 1) / 2)
// so both are pr_cb(j) + i with a per-column base; a column segment of a region (rows row0 ..
// row0 + R) is contiguous in memory but starts at any element offset.
//
// Design (same as sr::, per element type T):
// - The n x n matrix is cut into R x R regions; only those of the stored triangle exist (lower:
//   region row p >= region column q; upper p <= q), one block each, nR (nR + 1) / 2 (nR =
//   ceil(n / R)), the nR diagonal ones first (slower per element; the last wave would trail).
// - A block streams its region through shared memory, KC columns a stage, ST stages deep
//   (cp.async from sm_80, one barrier per stage). The shared layout is the full kernel's (column
//   c of the stage at c * LDS, row r at + r: 16-byte aligned whole vectors), so both passes are
//   the full kernel's: each element read once from memory and twice from shared memory, the row
//   pass into registers (RPT rows a thread), the column pass G threads a column + shuffles.
// - The only packed-specific part is the copy: thread t copies the VE = 16 / sizeof(T) rows
//   VE (t % RV) .. + VE of columns t / RV + i CPI. A column segment's global alignment
//   (A + pr_cb(gc) + row0, mod 16 bytes) is the same for every piece of the column, so the copy
//   width is chosen per column segment and is warp-uniform (a warp copies one column):
//     16-byte aligned -> one 16-byte cp.async (cg); f32 8-byte aligned -> two 8-byte ones;
//     otherwise one cp.async per element (4 bytes f32, 8 bytes f64).
//   f32 columns: 1/4 16-byte, 1/4 8-byte, 1/2 4-byte; f64: 1/2 16-byte, 1/2 8-byte.
//   Pieces at the edges (diagonal regions, the last region row/column) take per-element
//   copies for their stored elements only (or 8-byte pairs when both are stored and aligned);
//   elements outside the stored triangle or the matrix are zero-filled and never read, so
//   every byte read lies inside the n (n + 1) / 2 elements of the packed array.
// - Partials without atomics or zeroing: nR vectors of plen = n rounded up to 32 T's. Region
//   (p, q) writes its row sums to W[q][rows of p] and its column sums to W[p][columns of q]; a
//   diagonal one both to W[p][rows of p]: each W[k][i] (k < nR, i < n) exactly once.
//   pr_spmv_regions_sum adds the nR vectors in a fixed order (deterministic results).
// - alpha == 0: the region kernel returns at once and the sum kernel does not read W;
//   beta == 0: y is not read (NaN in y is overwritten), as in reference BLAS.
// Launch: region kernel grid nR (nR + 1) / 2, NT threads, PR<T>::SMEM_BYTES dynamic shared
// memory (f64 needs cudaFuncAttributeMaxDynamicSharedMemorySize > 48 KB); sum kernel grid
// ceil(n / 32), NT threads, after it on the same stream.
#pragma once

#ifndef PR_EMU
#define PR_STORE(p, v) (*(p) = (v))
#endif

typedef long long pr_i64;

// Job of one spmv (batch of one; alpha/beta host values; incx, incy nonzero, any sign).
template <class T> struct PrJob {
    const T* A;   // packed triangle, n (n + 1) / 2 elements
    const T* x;
    T* y;
    T* W;         // partials: nR * plen elements
    T alpha, beta;
    pr_i64 n, plen;  // plen: n rounded up to 32
    int incx, incy;
    int lower;
};

template <class T> struct PRC;  // per-type choices
template <> struct PRC<float> {
    static constexpr int R = 256, KC = 16, ST = 3, MINB = 4;  // = sr:: (51200 B, 4 blocks/SM)
};
template <> struct PRC<double> {
    // KC = 8 keeps a stage at 16 KB (53248 B in all, 4 blocks an SM, one warp a column in the
    // column pass).
    static constexpr int R = 256, KC = 8, ST = 3, MINB = 4;
};

template <class T> struct PR {
    static constexpr int NT = 256;                         // threads a block (THREADS)
    static constexpr int R = PRC<T>::R, KC = PRC<T>::KC, ST = PRC<T>::ST, MINB = PRC<T>::MINB;
    static constexpr int VE = 16 / (int)sizeof(T);         // elements a 16-byte vector
    static constexpr int G = NT / KC;                      // column pass: threads a column
    static constexpr int CM = R / (VE * G);                // column pass: vectors a thread a column
    static constexpr int RPT = R >= NT ? R / NT : 1;       // row pass: rows a thread
    static constexpr int RG = R / RPT;                     // row pass: row groups
    static constexpr int CS = NT / RG;                     // row pass: column slices
    static constexpr int KCS = KC / CS;                    // row pass: columns a slice a stage
    static constexpr int LDS = R + (G < 8 ? VE * G : 0);   // shared column stride (elements)
    static constexpr int STAGE = KC * LDS;                 // elements a stage
    static constexpr int FPT = R * KC / VE / NT;           // 16-byte pieces a thread a stage
    static constexpr int RV = R / VE;                      // pieces a column
    static constexpr int CPI = NT / RV;                    // columns a copy round
    static constexpr int SMEM_BYTES = (ST * STAGE + 2 * R) * (int)sizeof(T);
    static_assert(ST >= 2, "two stages at least");
    static_assert(KC <= NT && NT % KC == 0 && G <= 32 && (G & (G - 1)) == 0, "G: a power of two <= 32");
    static_assert(R % (VE * G) == 0 && R % KC == 0, "R: a multiple of VE G and of KC");
    static_assert(RPT == 1 || RPT == 2 || RPT == 4, "1, 2 or 4 rows a thread");
    static_assert(RG * CS == NT && KC % CS == 0 && KCS % VE == 0, "column slices split KC in whole vectors");
    static_assert((R * KC / VE) % NT == 0 && R % 32 == 0 && NT % RV == 0, "whole 16-byte pieces a thread");
    static_assert(CS * R <= ST * STAGE, "the row-sum buffer fits the stages");
    static_assert(RPT * (int)sizeof(T) <= 16, "row-pass vector reads");
};
static_assert(PR<float>::SMEM_BYTES == 51200, "f32: the library's sr:: sizes");
static_assert(PR<double>::SMEM_BYTES == 53248, "f64: 53248 B");

// ---- copies: global -> shared, B bytes (read == false: zero-filled, nothing read) -----------
#ifdef PR_EMU
template <int B> inline void pr_cp(void* d, const void* s, bool read) { pr_emu_cp(d, s, B, read); }
inline void pr_commit() {}
template <int N> inline void pr_wait() {}
#else
template <int B> __device__ __forceinline__ void pr_cp(void* d, const void* s, bool read) {
#if __CUDA_ARCH__ >= 800
    if constexpr (B == 16) {
        // Only called with read == true (whole stored vectors).
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"((unsigned)__cvta_generic_to_shared(d)), "l"(s)
                     : "memory");
    } else {
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"((unsigned)__cvta_generic_to_shared(d)),
                     "l"(s), "n"(B), "r"(read ? B : 0)
                     : "memory");
    }
#else
    if constexpr (B == 16) {
        *(uint4*)d = __ldg((const uint4*)s);
    } else if constexpr (B == 8) {
        *(unsigned long long*)d = read ? __ldg((const unsigned long long*)s) : 0ull;
    } else {
        *(unsigned*)d = read ? __ldg((const unsigned*)s) : 0u;
    }
#endif
}
__device__ __forceinline__ void pr_commit() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int N> __device__ __forceinline__ void pr_wait() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}
#endif

__device__ __forceinline__ float pr_fma(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ double pr_fma(double a, double b, double c) { return fma(a, b, c); }
__device__ __forceinline__ float pr_shx(float v, int d) { return __shfl_xor_sync(0xffffffffu, v, d, 32); }
__device__ __forceinline__ double pr_shx(double v, int d) { return __shfl_xor_sync(0xffffffffu, v, d, 32); }
__device__ __forceinline__ pr_i64 pr_vidx(int inc, pr_i64 n, pr_i64 i) { return inc > 0 ? i * inc : (n - 1 - i) * -(pr_i64)inc; }
__device__ __forceinline__ pr_i64 pr_min(pr_i64 a, pr_i64 b) { return a < b ? a : b; }
// Packed column base: element (i, j) at pr_cb(j) + i.
__device__ __forceinline__ pr_i64 pr_cb(pr_i64 j, pr_i64 n, bool lower) {
    return lower ? j * (2 * n - j - 1) / 2 : j * (j + 1) / 2;
}

// Read VE elements (16 bytes, aligned) of shared memory.
template <class T, int N> __device__ __forceinline__ void pr_ldv(const T* p, T (&v)[N]) {
    static_assert(N * sizeof(T) == 16 || N * sizeof(T) == 8 || N == 1, "vector reads");
    if constexpr (N == 1) {
        v[0] = p[0];
    } else if constexpr (sizeof(T) == 4 && N == 4) {
        const float4 w = *(const float4*)p; v[0] = w.x; v[1] = w.y; v[2] = w.z; v[3] = w.w;
    } else if constexpr (sizeof(T) == 4 && N == 2) {
        const float2 w = *(const float2*)p; v[0] = w.x; v[1] = w.y;
    } else {
        static_assert(sizeof(T) == 8 && N == 2, "f64: pairs");
        const double2 w = *(const double2*)p; v[0] = w.x; v[1] = w.y;
    }
}

// One stage: the row pass and the column pass (sr_stage for T). DIAG: a diagonal region, whose
// passes take only the stored triangle; the column pass leaves the diagonal to the row pass.
template <class T, bool DIAG>
__device__ __forceinline__ void pr_stage(const T* Sk, const T* xs, T* cs, int k, int t, bool lower,
                                         T (&racc)[2][PR<T>::RPT], const T (&xr)[PR<T>::CM][PR<T>::VE]) {
    using P = PR<T>;
    constexpr int VE = P::VE, RPT = P::RPT, KCS = P::KCS, LDS = P::LDS, RG = P::RG, KC = P::KC, G = P::G;
    {
        const int rg = t % RG, sl = t / RG;
        const T* xk = xs + k * KC + sl * KCS;
        const T* sk = Sk + sl * KCS * LDS + rg * RPT;
#pragma unroll
        for (int m = 0; m < KCS; m += VE) {
            T xa[VE];
            pr_ldv(xk + m, xa);
#pragma unroll
            for (int u = 0; u < VE; u++) {
                const T* col = sk + (m + u) * LDS;
                const int c = k * KC + sl * KCS + m + u;
                T v[RPT];
                pr_ldv(col, v);
                T (&ra)[RPT] = racc[u & 1];
#pragma unroll
                for (int e = 0; e < RPT; e++) {
                    const int r = rg * RPT + e;
                    if (!DIAG || (lower ? r >= c : r <= c)) ra[e] = pr_fma(v[e], xa[u], ra[e]);
                }
            }
        }
    }
    {
        const int g = t % G, cc = t / G;
        const int c = k * KC + cc;
        const T* ck = Sk + cc * LDS + VE * g;
        T s0 = 0, s1 = 0;
#pragma unroll
        for (int m = 0; m < P::CM; m++) {
            T va[VE];
            pr_ldv(ck + VE * G * m, va);
#pragma unroll
            for (int e = 0; e < VE; e++) {
                const int r = VE * g + VE * G * m + e;
                if (DIAG && !(lower ? r > c : r < c)) continue;
                if (e & 1) s1 = pr_fma(va[e], xr[m][e], s1);
                else s0 = pr_fma(va[e], xr[m][e], s0);
            }
        }
        T s = s0 + s1;
#pragma unroll
        for (int d = G / 2; d > 0; d >>= 1) s += pr_shx(s, d);
        if (g == 0) cs[c] = s;
    }
}

// Copies piece (rows gr .. gr + VE) of packed column gc (global) to d. FAST: every element of
// the piece is stored (an interior region). src: A + pr_cb(gc) + gr (may point outside the
// array when no element is stored; then it is not used).
template <class T, bool FAST>
__device__ __forceinline__ void pr_piece(T* d, const T* A, const T* src, pr_i64 gr, pr_i64 gc, pr_i64 n, bool lower) {
    constexpr int VE = PR<T>::VE;
    const unsigned al = (unsigned)((unsigned long long)src & 15);
    if constexpr (FAST) {
        if (al == 0) {
            pr_cp<16>(d, src, true);
        } else {
            if constexpr (sizeof(T) == 4) {
                if ((al & 7) == 0) {
                    pr_cp<8>(d, src, true);
                    pr_cp<8>(d + 2, src + 2, true);
                    return;
                }
            }
#pragma unroll
            for (int u = 0; u < VE; u++) pr_cp<sizeof(T)>(d + u, src + u, true);
        }
    } else {
        bool v[VE], all = true;
#pragma unroll
        for (int u = 0; u < VE; u++) {
            const pr_i64 rr = gr + u;
            v[u] = rr < n && gc < n && (lower ? rr >= gc : rr <= gc);
            all = all && v[u];
        }
        if (all && al == 0) {
            pr_cp<16>(d, src, true);
        } else {
            if constexpr (sizeof(T) == 4) {
                if ((al & 7) == 0) {
#pragma unroll
                    for (int h = 0; h < VE; h += 2) {
                        if (v[h] && v[h + 1]) {
                            pr_cp<8>(d + h, src + h, true);
                        } else {
                            pr_cp<4>(d + h, v[h] ? src + h : A, v[h]);
                            pr_cp<4>(d + h + 1, v[h + 1] ? src + h + 1 : A, v[h + 1]);
                        }
                    }
                    return;
                }
            }
#pragma unroll
            for (int u = 0; u < VE; u++) pr_cp<sizeof(T)>(d + u, v[u] ? src + u : A, v[u]);
        }
    }
}

// A region's stages and passes, up to the row sums in racc and the column sums in cs.
// FAST: an off-diagonal full region (no edge tests in the copies).
template <class T, bool FAST>
__device__ __forceinline__ void pr_sweep(const PrJob<T>& j, T* S, T* xs, T* cs, pr_i64 row0, pr_i64 col0, int nrows,
                                         int ncols, bool diag, T (&racc)[2][PR<T>::RPT]) {
    using P = PR<T>;
    constexpr int VE = P::VE, KC = P::KC, ST = P::ST, CM = P::CM, G = P::G, RPT = P::RPT;
    const int t = threadIdx.x;
    const pr_i64 n = j.n;
    const bool lower = j.lower;
    const T* A = j.A;
    const int nch = (ncols + KC - 1) / KC;
    const int cr = VE * (t % P::RV), c0 = t / P::RV;
    const pr_i64 gr = row0 + cr;
    auto issue = [&](int k) {
        T* dst = S + (k % ST) * P::STAGE;
#pragma unroll
        for (int i = 0; i < P::FPT; i++) {
            const int c = c0 + i * P::CPI;
            const pr_i64 gc = col0 + (pr_i64)k * KC + c;
            T* d = dst + c * P::LDS + cr;
            // Columns past n (last region column) have no stored element: any base will do.
            const T* src = A + (gc < n ? pr_cb(gc, n, lower) : 0) + gr;
            pr_piece<T, FAST>(d, A, src, gr, gc, n, lower);
        }
    };
#pragma unroll 1
    for (int s = 0; s < ST - 1; s++) {
        if (s < nch) issue(s);
        pr_commit();
    }
    for (int c = t; c < P::R; c += P::NT) xs[c] = c < ncols ? j.x[pr_vidx(j.incx, n, col0 + c)] : T(0);
    T xr[CM][VE];
    {
        const int g = t % G;
#pragma unroll
        for (int m = 0; m < CM; m++)
#pragma unroll
            for (int u = 0; u < VE; u++) {
                const int r = VE * g + VE * G * m + u;
                xr[m][u] = r < nrows ? j.x[pr_vidx(j.incx, n, row0 + r)] : T(0);
            }
    }
#pragma unroll
    for (int u = 0; u < 2; u++)
#pragma unroll
        for (int r = 0; r < RPT; r++) racc[u][r] = T(0);
#pragma unroll 1
    for (int k = 0; k < nch; k++) {
        pr_wait<ST - 2>();
        __syncthreads();  // stage k landed for all; every thread is done with stage (k - 1) % ST
        if (k + ST - 1 < nch) issue(k + ST - 1);
        pr_commit();
        const T* Sk = S + (k % ST) * P::STAGE;
        if (!FAST && diag) pr_stage<T, true>(Sk, xs, cs, k, t, lower, racc, xr);
        else pr_stage<T, false>(Sk, xs, cs, k, t, lower, racc, xr);
    }
}

#ifndef PR_EMU
#define PR_SMEM(T, name)                                             \
    extern __shared__ __align__(16) unsigned char pr_smem_raw[];     \
    T* name = (T*)pr_smem_raw;
#endif

// The sweep: one block per stored region; blockIdx.x = region (the nR diagonal ones first).
template <class T>
__device__ __forceinline__ void spmv_regions(const PrJob<T>& j) {
    using P = PR<T>;
    constexpr int R = P::R, NT = P::NT, RPT = P::RPT, RG = P::RG, CS = P::CS;
    PR_SMEM(T, sm)
    T* S = sm;
    T* xs = S + P::ST * P::STAGE;
    T* cs = xs + R;
    const int t = threadIdx.x;
    const pr_i64 n = j.n;
    const pr_i64 nR = (n + R - 1) / R;
    const pr_i64 b = blockIdx.x;
    const bool lower = j.lower;
    pr_i64 p, q;
    if (b < nR) {
        p = q = b;
    } else {
        // b - nR = hi (hi - 1) / 2 + lo, lo < hi.
        const pr_i64 bo = b - nR;
        pr_i64 hi = (pr_i64)((1.0 + sqrt(1.0 + 8.0 * (double)bo)) * 0.5);
        while (hi * (hi - 1) / 2 > bo) hi--;
        while ((hi + 1) * hi / 2 <= bo) hi++;
        const pr_i64 lo = bo - hi * (hi - 1) / 2;
        if (lower) { p = hi; q = lo; } else { p = lo; q = hi; }
    }
    if (j.alpha == T(0)) return;
    T* W = j.W;
    const pr_i64 row0 = p * R, col0 = q * R;
    const int nrows = (int)pr_min((pr_i64)R, n - row0);
    const int ncols = (int)pr_min((pr_i64)R, n - col0);
    const bool diag = p == q;
    const bool fast = !diag && nrows == R && ncols == R;

    T racc[2][RPT];
    if (fast) pr_sweep<T, true>(j, S, xs, cs, row0, col0, nrows, ncols, diag, racc);
    else pr_sweep<T, false>(j, S, xs, cs, row0, col0, nrows, ncols, diag, racc);
    pr_wait<0>();
    __syncthreads();  // column sums complete; the stages are free

    T* rs = S;
    {
        const int rg = t % RG, sl = t / RG;
#pragma unroll
        for (int r = 0; r < RPT; r++) rs[sl * R + rg * RPT + r] = racc[0][r] + racc[1][r];
    }
    __syncthreads();
    for (int r = t; r < R; r += NT) {
        T v = rs[r];
#pragma unroll
        for (int c = 1; c < CS; c++) v += rs[c * R + r];
        if (diag) {
            if (r < nrows) PR_STORE(&W[p * j.plen + row0 + r], v + cs[r]);
        } else {
            if (r < nrows) PR_STORE(&W[q * j.plen + row0 + r], v);
            if (r < ncols) PR_STORE(&W[p * j.plen + col0 + r], cs[r]);
        }
    }
}

// y_i = alpha * sum_k W[k][i] + beta * y_i: 32 outputs a block, its 8 warps each summing a slice
// of the nR partial vectors, added in a fixed order.
template <class T>
__device__ __forceinline__ void spmv_regions_sum(const PrJob<T>& j) {
    __shared__ T red[8][33];
    const int lane = threadIdx.x & 31, ks = threadIdx.x >> 5;
    const pr_i64 i = (pr_i64)blockIdx.x * 32 + lane;
    const int nv = (int)((j.n + PR<T>::R - 1) / PR<T>::R);
    const bool use = j.alpha != T(0);
    const T* W = j.W;
    T a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    if (use && i < j.n) {
        int k = ks;
        for (; k + 24 < nv; k += 32) {
            a0 += W[(pr_i64)k * j.plen + i];
            a1 += W[(pr_i64)(k + 8) * j.plen + i];
            a2 += W[(pr_i64)(k + 16) * j.plen + i];
            a3 += W[(pr_i64)(k + 24) * j.plen + i];
        }
        for (; k < nv; k += 8) a0 += W[(pr_i64)k * j.plen + i];
    }
    red[ks][lane] = (a0 + a1) + (a2 + a3);
    __syncthreads();
    if (ks == 0 && i < j.n) {
        T s = red[0][lane];
#pragma unroll
        for (int w = 1; w < 8; w++) s += red[w][lane];
        T* y = j.y + pr_vidx(j.incy, j.n, i);
        T r = j.beta == T(0) ? T(0) : j.beta * *y;
        if (use) r += j.alpha * s;
        PR_STORE(y, r);
    }
}

#ifndef PR_EMU
extern "C" __global__ void __launch_bounds__(256, PR<float>::MINB) pr_spmv_regions_s(PrJob<float> j) { spmv_regions(j); }
extern "C" __global__ void __launch_bounds__(256, PR<double>::MINB) pr_spmv_regions_d(PrJob<double> j) { spmv_regions(j); }
extern "C" __global__ void __launch_bounds__(256) pr_spmv_regions_sum_s(PrJob<float> j) { spmv_regions_sum(j); }
extern "C" __global__ void __launch_bounds__(256) pr_spmv_regions_sum_d(PrJob<double> j) { spmv_regions_sum(j); }
#endif
