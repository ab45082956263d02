// symv and spmv by regions (family GPUBLAS_FAMILY_MV): appended to blas2.cu's source (its
// types and arithmetic), compiled in the same module (kernels.rs).

// ---- symv by regions (f32, f64, c32) ------------------------------------------------------
// y = alpha A x + beta y for symv and spmv of f32, f64 and (complex symmetric) c32, full or
// packed storage, the stored triangle read once through shared memory (MAGMA-like, own code):
// - The matrix is cut into R x R regions; only those of the stored triangle exist (lower:
//   region row p >= region column q; upper: p <= q), one block each, nR (nR + 1) / 2 per entry
//   (nR = ceil(n / R)), the diagonal ones first: they are slower per element (the stored
//   triangle's tests), and as the last wave they trailed the kernel (H200, 16384: 174 -> 135
//   us, 0.92 -> 1.18x cuBLAS in symvbench). The order changes no result (fixed-order sums).
// - A block streams its region through shared memory, KC columns per stage, ST stages deep
//   (cp.async from sm_80, one barrier per stage; before sm_80 plain loads, correct but not
//   overlapped). Every element is loaded once and read twice from shared memory: the row pass
//   sums A(i, c) x_c over the region's columns into registers (RPT rows a thread); the column
//   pass sums A(i, c) x_i over the region's rows for the stage's columns (G threads a column,
//   reduced by shuffles), final for the region as each stage brings new columns.
// - The copies: a thread copies VE = 16 / sizeof(T) rows of a column at a time. A column's
//   pieces in a region share one alignment (its address of row0), and a warp copies one column,
//   so each column's copy width follows its alignment: 16 bytes, else (f32) 8-byte pairs, else
//   single elements. Packed columns start at any element (an f32 region: 1/4 of its columns
//   16-byte, 1/4 8-byte, 1/2 single; f64 and c32 half 16-byte, half single). Full storage with
//   aligned columns copies 16 bytes without a test (SR_ALIGNED).
// - Diagonal regions and the matrix's last region row and column are zero-filled outside the
//   stored triangle (those elements are not read from memory) and both passes leave them out,
//   the column pass the diagonal too, so an infinite x meets only stored elements, as in
//   reference BLAS.
// - Partials without atomics or zeroing: per entry, nR vectors of ldw = j.plen elements
//   (n rounded up to 32). Region (p, q) writes its row sums to W[q][rows of p] and its column
//   sums to W[p][columns of q]; a diagonal region both to W[p][rows of p]. Each W[k][i] (k < nR,
//   i < n) is written exactly once, for lower and upper alike; symv_regions_sum adds the nR
//   vectors in a fixed order, so results do not depend on scheduling.
// Sizes per type (SrSize): f32 KC 16 (51,200 B of shared memory); f64 and c32 KC 8, so a stage
// stays 16 KB (53,248 B; one warp a column in the column pass). The sizes are mirrored in
// plan.rs (SYMV_REGION, the workspace) and cuda.rs (the shared memory).
template <class T> struct SrSize;
template <> struct SrSize<float> { static constexpr int KC = 16; };
template <> struct SrSize<double> { static constexpr int KC = 8; };
template <> struct SrSize<float2> { static constexpr int KC = 8; };

template <class T> struct SR {
    static constexpr int R = 256;                         // region rows = columns
    static constexpr int KC = SrSize<T>::KC;              // columns per pipeline stage
    static constexpr int ST = 3;                          // stages (ST - 1 in flight while one is summed)
    static constexpr int NT = THREADS;
    static constexpr int MINB = 4;                        // blocks per SM (64 registers a thread)
    static constexpr int VE = 16 / (int)sizeof(T);        // elements a 16-byte piece
    static constexpr int G = NT / KC;                     // column pass: threads per column
    static constexpr int CM = R / (VE * G);               // column pass: pieces per thread per column
    static constexpr int RPT = R >= NT ? R / NT : 1;      // row pass: rows per thread
    static constexpr int RG = R / RPT;                    // row pass: row groups
    static constexpr int CS = NT / RG;                    // row pass: column slices (threads per row)
    static constexpr int KCS = KC / CS;                   // row pass: columns per slice per stage
    static constexpr int LDS = R + (G < 8 ? VE * G : 0);  // shared column stride (elements)
    static constexpr int STAGE = KC * LDS;                // elements per stage
    static constexpr int FPT = R * KC / VE / NT;          // 16-byte pieces per thread per stage
    static constexpr int RV = R / VE;                     // pieces per column
    static constexpr int CPI = NT / RV;                   // columns per copy round
    static constexpr int SMEM_BYTES = (ST * STAGE + 2 * R) * (int)sizeof(T);  // stages, x, column sums
    static_assert(ST >= 2, "two stages at least");
    static_assert(KC <= NT && NT % KC == 0 && G <= 32 && (G & (G - 1)) == 0, "G: a power of two <= 32");
    static_assert(R % (VE * G) == 0 && R % KC == 0, "R: a multiple of VE G and of KC");
    static_assert(RPT == 1 || RPT * (int)sizeof(T) == 16, "one row, or one 16-byte piece, per thread");
    static_assert(RG * CS == NT && KC % CS == 0 && KCS % VE == 0, "column slices split KC in whole pieces");
    static_assert((R * KC / VE) % NT == 0 && R % 32 == 0 && NT % RV == 0, "whole 16-byte pieces per thread");
    static_assert(CS * R <= ST * STAGE, "the row-sum buffer fits the stages");
};
static_assert(SR<float>::SMEM_BYTES == 51200, "mirrored by symv_region_smem in blas2/cuda.rs");
static_assert(SR<double>::SMEM_BYTES == 53248 && SR<float2>::SMEM_BYTES == 53248,
              "mirrored by symv_region_smem in blas2/cuda.rs");

// Global to shared memory, B bytes (read == false: a zero is stored, nothing read; 16-byte
// copies always read). Asynchronous from sm_80 (completed by sr_commit / sr_wait); plain loads
// and stores before.
template <int B> __device__ __forceinline__ void sr_cp(void* d, const void* s, bool read) {
#if __CUDA_ARCH__ >= 800
    if constexpr (B == 16) {
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
__device__ __forceinline__ void sr_commit() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int N> __device__ __forceinline__ void sr_wait() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

// N elements of shared memory: one, or a 16-byte piece.
template <class T, int N> __device__ __forceinline__ void sr_ldv(const T* p, T (&v)[N]) {
    if constexpr (N == 1) {
        v[0] = p[0];
    } else {
        static_assert(N * sizeof(T) == 16, "a 16-byte piece");
        Pack<T> pk;
        pk.q = *(const uint4*)p;
#pragma unroll
        for (int i = 0; i < N; i++) v[i] = pk.e[i];
    }
}

// One stage: the row pass and the column pass. Sk: the stage (KC columns, LDS apart); xs: x of
// the region's columns; cs: the column sums; k: the stage's index in the region. DIAG: a
// diagonal region, whose passes take only the stored triangle (lower or upper).
template <class T, bool DIAG>
__device__ __forceinline__ void sr_stage(const T* Sk, const T* xs, T* cs, int k, int t, bool lower,
                                         T (&racc)[2][SR<T>::RPT], const T (&xr)[SR<T>::CM][SR<T>::VE]) {
    using P = SR<T>;
    constexpr int VE = P::VE, RPT = P::RPT, KCS = P::KCS, LDS = P::LDS, RG = P::RG, KC = P::KC, G = P::G;
    // Row pass: rows rg * RPT .. + RPT, columns sl * KCS .. + KCS of the stage.
    {
        const int rg = t % RG, sl = t / RG;
        const T* xk = xs + k * KC + sl * KCS;
        const T* sk = Sk + sl * KCS * LDS + rg * RPT;
#pragma unroll
        for (int m = 0; m < KCS; m += VE) {
            T xa[VE];
            sr_ldv(xk + m, xa);
#pragma unroll
            for (int u = 0; u < VE; u++) {
                const int c = k * KC + sl * KCS + m + u;  // the column in the region
                T v[RPT];
                sr_ldv(sk + (m + u) * LDS, v);
                T (&ra)[RPT] = racc[u & 1];
#pragma unroll
                for (int e = 0; e < RPT; e++) {
                    const int r = rg * RPT + e;
                    if (!DIAG || (lower ? r >= c : r <= c)) fmac(ra[e], v[e], xa[u]);
                }
            }
        }
    }
    // Column pass: column cc of the stage, rows VE g + VE G m + e.
    {
        const int g = t % G, cc = t / G;
        const int c = k * KC + cc;
        const T* ck = Sk + cc * LDS + VE * g;
        T s0 = zero<T>(), s1 = zero<T>();
#pragma unroll
        for (int m = 0; m < P::CM; m++) {
            T va[VE];
            sr_ldv(ck + VE * G * m, va);
#pragma unroll
            for (int e = 0; e < VE; e++) {
                const int r = VE * g + VE * G * m + e;
                // The diagonal element is in the row pass already.
                if (DIAG && !(lower ? r > c : r < c)) continue;
                if (e & 1) fmac(s1, va[e], xr[m][e]);
                else fmac(s0, va[e], xr[m][e]);
            }
        }
        T s = add(s0, s1);
#pragma unroll
        for (int d = G / 2; d > 0; d >>= 1) s = add(s, shx(s, d, 32));
        if (g == 0) cs[c] = s;
    }
}

// How a region's pieces are copied: Aligned (full storage, aligned columns, a full region off
// the diagonal: 16 bytes each, no tests), Interior (a full region off the diagonal: each
// column's width follows its alignment, no tests), Edge (every piece tested against the stored
// triangle and the matrix: diagonal regions, the last region row and column).
enum SrMode { SR_ALIGNED, SR_INTERIOR, SR_EDGE };

// Copies the piece at rows gr .. gr + VE of column gc (src = its address, used only where an
// element is stored) to d.
template <class T, int MODE>
__device__ __forceinline__ void sr_piece(T* d, const T* A, const T* src, i64 gr, i64 gc, i64 n, bool lower) {
    constexpr int VE = SR<T>::VE;
    const unsigned al = (unsigned)((u64)src & 15);
    bool v[VE], all = true;
#pragma unroll
    for (int u = 0; u < VE; u++) {
        const i64 rr = gr + u;
        v[u] = MODE != SR_EDGE || (rr < n && gc < n && (lower ? rr >= gc : rr <= gc));
        all = all && v[u];
    }
    if (all && al == 0) {
        sr_cp<16>(d, src, true);
        return;
    }
    if constexpr (sizeof(T) == 4) {
        if ((al & 7) == 0) {
#pragma unroll
            for (int h = 0; h < VE; h += 2) {
                if (v[h] && v[h + 1]) {
                    sr_cp<8>(d + h, src + h, true);
                } else {
                    sr_cp<4>(d + h, v[h] ? src + h : A, v[h]);
                    sr_cp<4>(d + h + 1, v[h + 1] ? src + h + 1 : A, v[h + 1]);
                }
            }
            return;
        }
    }
#pragma unroll
    for (int u = 0; u < VE; u++) sr_cp<sizeof(T)>(d + u, v[u] ? src + u : A, v[u]);
}

// A region's stages and passes, up to the row sums in racc and the column sums in cs.
template <class T, int MODE>
__device__ __forceinline__ void sr_sweep(const Job& j, T* S, T* xs, T* cs, const T* A, const T* x, i64 row0,
                                         i64 col0, int nrows, int ncols, bool diag, T (&racc)[2][SR<T>::RPT]) {
    using P = SR<T>;
    constexpr int VE = P::VE, KC = P::KC, ST = P::ST, CM = P::CM, G = P::G, RPT = P::RPT;
    const int t = threadIdx.x;
    const i64 n = j.n;
    const bool lower = j.flags & F_LOWER;
    const int nch = (ncols + KC - 1) / KC;
    const int cr = VE * (t % P::RV), c0 = t / P::RV;
    const i64 gr = row0 + cr;
    // Stage k's copies: piece cr / VE of columns c0 + i CPI, i < FPT.
    auto issue = [&](int k) {
        T* dst = S + (k % ST) * P::STAGE;
#pragma unroll
        for (int i = 0; i < P::FPT; i++) {
            const int c = c0 + i * P::CPI;
            T* d = dst + c * P::LDS + cr;
            const i64 gc = col0 + (i64)k * KC + c;
            if constexpr (MODE == SR_ALIGNED) {
                sr_cp<16>(d, A + gc * j.a.lda + gr, true);
            } else {
                // Columns past n (the last region column) have no stored element: any base will do.
                const T* src = colp<T>(j, A, gc < n ? gc : 0) + gr;
                sr_piece<T, MODE>(d, A, src, gr, gc, n, lower);
            }
        }
    };
    // The first ST - 1 stages go out before x is read.
#pragma unroll 1
    for (int s = 0; s < ST - 1; s++) {
        if (s < nch) issue(s);
        sr_commit();
    }
    // x of the region's columns (shared; visible after the first stage's barrier) and of the
    // column pass's rows (registers).
    for (int c = t; c < P::R; c += P::NT) xs[c] = c < ncols ? x[vidx(j.x, col0 + c)] : zero<T>();
    T xr[CM][VE];
    {
        const int g = t % G;
#pragma unroll
        for (int m = 0; m < CM; m++)
#pragma unroll
            for (int u = 0; u < VE; u++) {
                const int r = VE * g + VE * G * m + u;
                xr[m][u] = r < nrows ? x[vidx(j.x, row0 + r)] : zero<T>();
            }
    }
#pragma unroll
    for (int u = 0; u < 2; u++)
#pragma unroll
        for (int r = 0; r < RPT; r++) racc[u][r] = zero<T>();
#pragma unroll 1
    for (int k = 0; k < nch; k++) {
        sr_wait<ST - 2>();
        __syncthreads();  // stage k landed for all; every thread is done with stage (k - 1) % ST
        if (k + ST - 1 < nch) issue(k + ST - 1);
        sr_commit();
        const T* Sk = S + (k % ST) * P::STAGE;
        if (MODE == SR_EDGE && diag) sr_stage<T, true>(Sk, xs, cs, k, t, lower, racc, xr);
        else sr_stage<T, false>(Sk, xs, cs, k, t, lower, racc, xr);
    }
}

// The sweep: one block per stored region of each entry (blockIdx.x = entry * regions + region);
// the partials at j.part, nR * j.plen elements an entry.
template <class T>
__device__ __forceinline__ void symv_regions(const Job& j) {
    using P = SR<T>;
    constexpr int R = P::R, NT = P::NT, RPT = P::RPT, RG = P::RG, CS = P::CS;
    extern __shared__ __align__(16) unsigned char sr_smem[];
    T* S = (T*)sr_smem;              // ST stages of KC columns
    T* xs = S + P::ST * P::STAGE;    // x of the region's columns
    T* cs = xs + R;                  // column sums of the region
    const int t = threadIdx.x;
    const i64 n = j.n;
    const i64 nR = (n + R - 1) / R;
    const i64 regions = nR * (nR + 1) / 2;
    const int e = (int)(blockIdx.x / regions);
    const i64 b = blockIdx.x % regions;
    const bool lower = j.flags & F_LOWER;
    i64 p, q;
    if (b < nR) {
        p = q = b;
    } else {
        // b - nR = hi (hi - 1) / 2 + lo, lo < hi.
        const i64 bo = b - nR;
        i64 hi = (i64)((1.0 + sqrt(1.0 + 8.0 * (double)bo)) * 0.5);
        while (hi * (hi - 1) / 2 > bo) hi--;
        while ((hi + 1) * hi / 2 <= bo) hi++;
        const i64 lo = bo - hi * (hi - 1) / 2;
        if (lower) { p = hi; q = lo; } else { p = lo; q = hi; }
    }
    pdl_enter();
    // alpha == 0: y = beta y, and the sum pass does not use the partials.
    if (is0(alpha_of<T>(j, e))) return;
    const T* A = mat_of<T>(j, e);
    const T* x = x_of<T>(j, e);
    T* W = (T*)j.part + (i64)e * nR * j.plen;
    const i64 row0 = p * R, col0 = q * R;
    const int nrows = (int)min((i64)R, n - row0);
    const int ncols = (int)min((i64)R, n - col0);
    const bool diag = p == q;
    const bool full = !diag && nrows == R && ncols == R;
    // Full storage whose columns are all 16-byte aligned.
    const bool aligned = j.a.kind == 0 && ((u64)A & 15) == 0 && ((j.a.lda * (i64)sizeof(T)) & 15) == 0;

    T racc[2][RPT];
    if (full && aligned) sr_sweep<T, SR_ALIGNED>(j, S, xs, cs, A, x, row0, col0, nrows, ncols, diag, racc);
    else if (full) sr_sweep<T, SR_INTERIOR>(j, S, xs, cs, A, x, row0, col0, nrows, ncols, diag, racc);
    else sr_sweep<T, SR_EDGE>(j, S, xs, cs, A, x, row0, col0, nrows, ncols, diag, racc);
    sr_wait<0>();
    __syncthreads();  // column sums complete; the stages are free

    // Row sums through shared memory (summing the column slices), then coalesced writes.
    T* rs = S;
    {
        const int rg = t % RG, sl = t / RG;
#pragma unroll
        for (int r = 0; r < RPT; r++) rs[sl * R + rg * RPT + r] = add(racc[0][r], racc[1][r]);
    }
    __syncthreads();
    for (int r = t; r < R; r += NT) {
        T v = rs[r];
#pragma unroll
        for (int c = 1; c < CS; c++) v = add(v, rs[c * R + r]);
        if (diag) {
            if (r < nrows) W[p * j.plen + row0 + r] = add(v, cs[r]);
        } else {
            if (r < nrows) W[q * j.plen + row0 + r] = v;
            if (r < ncols) W[p * j.plen + col0 + r] = cs[r];
        }
    }
}

// y_i = alpha * sum_k W[k][i] + beta * y_i: 32 outputs a block, its 8 warps each summing a
// slice of the nR partial vectors, then added in a fixed order (blockIdx.x = entry *
// ceil(n / 32) + block within the entry).
template <class T>
__device__ __forceinline__ void symv_regions_sum(const Job& j) {
    __shared__ T red[8][33];
    const i64 per = (j.n + 31) / 32;
    const int e = (int)(blockIdx.x / per);
    const int lane = threadIdx.x & 31, ks = threadIdx.x >> 5;
    const i64 i = (blockIdx.x % per) * 32 + lane;
    const int nv = (int)((j.n + SR<T>::R - 1) / SR<T>::R);
    pdl_enter();
    const T* W = (const T*)j.part + (i64)e * nv * j.plen;
    T a0 = zero<T>(), a1 = zero<T>(), a2 = zero<T>(), a3 = zero<T>();
    if (i < j.n) {
        int k = ks;
        for (; k + 24 < nv; k += 32) {
            a0 = add(a0, W[(i64)k * j.plen + i]);
            a1 = add(a1, W[(i64)(k + 8) * j.plen + i]);
            a2 = add(a2, W[(i64)(k + 16) * j.plen + i]);
            a3 = add(a3, W[(i64)(k + 24) * j.plen + i]);
        }
        for (; k < nv; k += 8) a0 = add(a0, W[(i64)k * j.plen + i]);
    }
    red[ks][lane] = add(add(a0, a1), add(a2, a3));
    __syncthreads();
    if (ks == 0 && i < j.n) {
        T s = red[0][lane];
#pragma unroll
        for (int w = 1; w < 8; w++) s = add(s, red[w][lane]);
        T* y = y_of<T>(j, e, 2) + vidx(j.y, i);
        *y = combine(s, alpha_of<T>(j, e), beta_of<T>(j, e), y);
    }
}

#ifdef GPUBLAS_FAMILY_MV
// symv by regions (dynamic shared memory: SR<T>::SMEM_BYTES).
#define REGION_KERNELS(TAG, T)                                                                  \
    extern "C" __global__ void __launch_bounds__(THREADS, SR<T>::MINB) b2_symv_regions_##TAG(Job j) { symv_regions<T>(j); } \
    extern "C" __global__ void __launch_bounds__(THREADS) b2_symv_regions_sum_##TAG(Job j) { symv_regions_sum<T>(j); }
REGION_KERNELS(s, float)
REGION_KERNELS(d, double)
REGION_KERNELS(c, float2)
#endif
