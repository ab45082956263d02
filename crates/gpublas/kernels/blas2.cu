// Level 2: gemv/gbmv, symv/hemv/sbmv/hbmv/spmv/hpmv, trmv/tbmv/tpmv (family
// GPUBLAS_FAMILY_MV) and trsv/tbsv/tpsv (family GPUBLAS_FAMILY_SV), for float, double, float2
// (c32) and double2 (c64). Band and packed matrices run the same kernels as full ones: only
// the column address (colp) and the band rule (kl, ku) differ.
//
// Column-major matrices are read down their columns, 16 bytes per thread per load where the
// column is aligned, so every warp load is one contiguous segment:
//   sweep: a block owns a tile of rows (tr threads x V elements x RS steps) and a range of
//          columns (tc column lanes); it accumulates row sums (y += A(:,j) x_j) and, for
//          symv/hemv, the mirrored column sums (z_j += A(i,j) x_i) of the same elements, so the
//          stored triangle is read once. Row sums are combined across column lanes in shared
//          memory; with several column splits they go to the workspace as partials.
//   dot:   a group of tr threads owns a column and a range of rows; z_j = sum_i A(i,j) x_i is
//          reduced by shuffles. Several row splits write partials to the workspace.
//   pass2: out_i = alpha * (sum of partials) + beta * y_i.
// Which (i, j) exist is one rule for every storage: j - ku <= i <= j + kl inside m x n, and
// element (i, j) is col(j)[i] with col(j) depending on the storage (full, band, packed).
// Elements outside the rule are never loaded. symv and spmv by regions are in blas2_regions.cu,
// appended to this source (kernels.rs).

typedef long long i64;
typedef unsigned long long u64;

#define THREADS 256
#define LIST_MAX 3968

struct Vec { u64 base; i64 stride; i64 inc; i64 off0; };
// kind: 0 full, 1 band (element (i,j) at base[j*lda + kb + i - j]), 2 packed upper, 3 packed lower
struct Mat { u64 base; i64 stride; i64 lda; i64 kb; int kind; int pad; };
struct Job {
    Mat a; Vec x; Vec y;
    u64 tab;                  // list batches: [A][x][y] addresses, nent each; 0 otherwise
    u64 part;                 // partial sums in the workspace
    u64 alpha_p, beta_p;      // device scalars (0: use the host values)
    i64 alpha_s, beta_s;      // device scalar stride between entries (0 or 1)
    double ar, ai, br, bi;    // host scalars
    i64 m, n;                 // stored matrix rows, columns
    i64 kl, ku;               // element (i,j) exists iff j - ku <= i <= j + kl
    i64 plen;                 // length of one partial vector
    int flags;
    int splits;               // column splits (sweep) or row splits (dot)
    int tr, tc;               // threads per column, column lanes
    int rowtiles, colgroups;
    int e0, nent;             // first entry of this launch (for scalars), entries
    int np, nq;               // pass2: partial vectors to sum; symv: row-tile partials
    int rb;                   // rows per sweep block (symv ranges in pass2)
    int cpg;                  // dot: columns per thread group (1 or CPG)
};
struct List { u64 p[LIST_MAX]; };

#define F_CONJ 1     // use conj(A(i,j)) in the column sums (op C, hemv mirror)
#define F_UNIT 2     // the diagonal is one and never read
#define F_SYM 4      // also accumulate the mirrored column sums (symv/hemv)
#define F_HERM 8     // the diagonal's imaginary part is ignored
#define F_DIRECT 16  // write the output directly (one split)
#define F_LOWER 32   // symv: the stored triangle is the lower one (pass2 ranges)

// ---- arithmetic -----------------------------------------------------------------------
__device__ __forceinline__ float cj(float v) { return v; }
__device__ __forceinline__ double cj(double v) { return v; }
__device__ __forceinline__ float2 cj(float2 v) { return make_float2(v.x, -v.y); }
__device__ __forceinline__ double2 cj(double2 v) { return make_double2(v.x, -v.y); }
__device__ __forceinline__ float re_only(float v) { return v; }
__device__ __forceinline__ double re_only(double v) { return v; }
__device__ __forceinline__ float2 re_only(float2 v) { return make_float2(v.x, 0.f); }
__device__ __forceinline__ double2 re_only(double2 v) { return make_double2(v.x, 0.0); }
__device__ __forceinline__ void fmac(float& s, float a, float b) { s = fmaf(a, b, s); }
__device__ __forceinline__ void fmac(double& s, double a, double b) { s = fma(a, b, s); }
__device__ __forceinline__ void fmac(float2& s, float2 a, float2 b) {
    s.x = fmaf(a.x, b.x, s.x); s.x = fmaf(-a.y, b.y, s.x);
    s.y = fmaf(a.x, b.y, s.y); s.y = fmaf(a.y, b.x, s.y);
}
__device__ __forceinline__ void fmac(double2& s, double2 a, double2 b) {
    s.x = fma(a.x, b.x, s.x); s.x = fma(-a.y, b.y, s.x);
    s.y = fma(a.x, b.y, s.y); s.y = fma(a.y, b.x, s.y);
}
__device__ __forceinline__ float add(float a, float b) { return a + b; }
__device__ __forceinline__ double add(double a, double b) { return a + b; }
__device__ __forceinline__ float2 add(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ double2 add(double2 a, double2 b) { return make_double2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ float sub(float a, float b) { return a - b; }
__device__ __forceinline__ double sub(double a, double b) { return a - b; }
__device__ __forceinline__ float2 sub(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
__device__ __forceinline__ double2 sub(double2 a, double2 b) { return make_double2(a.x - b.x, a.y - b.y); }
__device__ __forceinline__ float mul(float a, float b) { return a * b; }
__device__ __forceinline__ double mul(double a, double b) { return a * b; }
__device__ __forceinline__ float2 mul(float2 a, float2 b) { return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
__device__ __forceinline__ double2 mul(double2 a, double2 b) { return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
template <class T> __device__ __forceinline__ T zero();
template <> __device__ __forceinline__ float zero<float>() { return 0.f; }
template <> __device__ __forceinline__ double zero<double>() { return 0.0; }
template <> __device__ __forceinline__ float2 zero<float2>() { return make_float2(0.f, 0.f); }
template <> __device__ __forceinline__ double2 zero<double2>() { return make_double2(0.0, 0.0); }
template <class T> __device__ __forceinline__ T mk(double re, double im);
template <> __device__ __forceinline__ float mk<float>(double re, double) { return (float)re; }
template <> __device__ __forceinline__ double mk<double>(double re, double) { return re; }
template <> __device__ __forceinline__ float2 mk<float2>(double re, double im) { return make_float2((float)re, (float)im); }
template <> __device__ __forceinline__ double2 mk<double2>(double re, double im) { return make_double2(re, im); }
__device__ __forceinline__ bool is0(float v) { return v == 0.f; }
__device__ __forceinline__ bool is0(double v) { return v == 0.0; }
__device__ __forceinline__ bool is0(float2 v) { return v.x == 0.f && v.y == 0.f; }
__device__ __forceinline__ bool is0(double2 v) { return v.x == 0.0 && v.y == 0.0; }
__device__ __forceinline__ float shx(float v, int d, int w) { return __shfl_xor_sync(0xffffffffu, v, d, w); }
__device__ __forceinline__ double shx(double v, int d, int w) { return __shfl_xor_sync(0xffffffffu, v, d, w); }
__device__ __forceinline__ float2 shx(float2 v, int d, int w) { return make_float2(shx(v.x, d, w), shx(v.y, d, w)); }
__device__ __forceinline__ double2 shx(double2 v, int d, int w) { return make_double2(shx(v.x, d, w), shx(v.y, d, w)); }
template <class T> __device__ __forceinline__ T ld(const T* p) { return __ldg(p); }

// 16 bytes as V elements.
template <class T> union Pack { uint4 q; T e[16 / sizeof(T)]; };

__device__ __forceinline__ void pdl_enter() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// ---- addressing -----------------------------------------------------------------------
template <class T> __device__ __forceinline__ const T* mat_of(const Job& j, int e) {
    if (j.tab) return (const T*)((const u64*)j.tab)[e];
    return (const T*)j.a.base + (i64)e * j.a.stride;
}
template <class T> __device__ __forceinline__ const T* x_of(const Job& j, int e) {
    if (j.tab) return (const T*)((const u64*)j.tab)[j.nent + e];
    return (const T*)j.x.base + (i64)e * j.x.stride;
}
// The output vector: y of gemv/symv (table slot 2), x of trmv/trsv (table slot 1).
template <class T> __device__ __forceinline__ T* y_of(const Job& j, int e, int slot) {
    if (j.tab) return (T*)((const u64*)j.tab)[slot * j.nent + e];
    return (T*)j.y.base + (i64)e * j.y.stride;
}
__device__ __forceinline__ i64 vidx(const Vec& v, i64 i) { return v.off0 + i * v.inc; }

// Element (i, j) of the stored matrix is colp(j)[i].
template <class T> __device__ __forceinline__ const T* colp(const Job& j, const T* a, i64 c) {
    switch (j.a.kind) {
    case 0: return a + c * j.a.lda;
    case 1: return a + c * j.a.lda + j.a.kb - c;
    case 2: return a + c * (c + 1) / 2;
    default: return a + c * (2 * j.n - c - 1) / 2;
    }
}

template <class T> __device__ __forceinline__ T alpha_of(const Job& j, int e) {
    if (j.alpha_p) return ((const T*)j.alpha_p)[(j.e0 + e) * j.alpha_s];
    return mk<T>(j.ar, j.ai);
}
template <class T> __device__ __forceinline__ T beta_of(const Job& j, int e) {
    if (j.beta_p) return ((const T*)j.beta_p)[(j.e0 + e) * j.beta_s];
    return mk<T>(j.br, j.bi);
}

// out = alpha * s + beta * y, with beta == 0 not reading y and alpha == 0 not using s.
template <class T> __device__ __forceinline__ T combine(T s, T alpha, T beta, const T* yp) {
    T r = is0(beta) ? zero<T>() : mul(beta, *yp);
    if (!is0(alpha)) r = add(r, mul(alpha, s));
    return r;
}
// The same with y read ahead (old_y(yp, beta) before the products, so the read's latency
// overlaps theirs instead of following them: a short kernel is a few latencies in a row).
template <class T> __device__ __forceinline__ T old_y(const T* yp, T beta) { return is0(beta) ? zero<T>() : *yp; }
template <class T> __device__ __forceinline__ T combine_old(T s, T alpha, T beta, T y) {
    T r = is0(beta) ? zero<T>() : mul(beta, y);
    if (!is0(alpha)) r = add(r, mul(alpha, s));
    return r;
}

// Loads the V elements at rows i0..i0+V of column c (pointer col), leaving out the ones that do
// not exist ([lo, hi)), and fixing the diagonal (unit, Hermitian).
// Returns a bit per element that exists: the others are zero and must not be multiplied (an
// infinite x would turn them into NaN where reference BLAS never touches them).
template <class T> __device__ __forceinline__ unsigned load_rows(const Job& j, const T* col, i64 i0, i64 lo, i64 hi, i64 c, T* a) {
    const int V = 16 / sizeof(T);
    const bool diag_in = (j.flags & (F_UNIT | F_HERM)) && c >= i0 && c < i0 + V;
    if (i0 >= lo && i0 + V <= hi && !diag_in && ((u64)(col + i0) & 15) == 0) {
        Pack<T> p; p.q = __ldg((const uint4*)(col + i0));
#pragma unroll
        for (int v = 0; v < V; v++) a[v] = p.e[v];
        return (1u << V) - 1;
    }
    unsigned m = 0;
#pragma unroll
    for (int v = 0; v < V; v++) {
        i64 i = i0 + v;
        if (i < lo || i >= hi) { a[v] = zero<T>(); continue; }
        m |= 1u << v;
        if (i == c && (j.flags & F_UNIT)) { a[v] = mk<T>(1.0, 0.0); continue; }
        T t = ld(col + i);
        a[v] = (i == c && (j.flags & F_HERM)) ? re_only(t) : t;
    }
    return m;
}

// ---- sweep ----------------------------------------------------------------------------
// SYM: also the mirrored column sums (symv/hemv); without it the x values of the rows are not
// kept, which frees their registers for loads in flight.
template <class T, int RS, bool SYM>
__device__ __forceinline__ void sweep(const Job& j) {
    const int V = 16 / sizeof(T);
    // symv's long columns (tr = 32) sum each column's mirrored partials through shared
    // memory, 16 columns at a time, instead of a 5-step shuffle chain per column: a lane
    // stores its partial, then lanes 0-15 each add up one column's 32 partials.
    constexpr bool DEFER = SYM && RS == 4 && sizeof(T) <= 8;
    constexpr int ZSLOTS = 16;
    constexpr int RED_BYTES = THREADS * 16 * RS;
    constexpr int ZB_BYTES = DEFER ? THREADS / 32 * ZSLOTS * 33 * (int)sizeof(T) : 0;
    // The row-sum buffer and the mirrored-sum buffer share memory: one is used after the
    // column loop, the other inside it.
    __shared__ __align__(16) unsigned char smem[RED_BYTES > ZB_BYTES ? RED_BYTES : ZB_BYTES];
    T* red = (T*)smem;
    T(*zb)[ZSLOTS][33] = (T(*)[ZSLOTS][33])smem;
    const int tr = j.tr, tc = j.tc;
    const int lr = threadIdx.x % tr, lc = threadIdx.x / tr;
    // Row tiles vary fastest, so the blocks running together read different rows (not the
    // same rows of many columns, which crowds a few memory channels).
    i64 b = blockIdx.x;
    const int rt = (int)(b % j.rowtiles); b /= j.rowtiles;
    const int s = (int)(b % j.splits);
    const int e = (int)(b / j.splits);
    pdl_enter();
    const T* a = mat_of<T>(j, e);
    const T* x = x_of<T>(j, e);
    const i64 RB = (i64)tr * V * RS;
    const i64 r0 = rt * RB;
    const i64 cps = (j.n + j.splits - 1) / j.splits;
    i64 c0 = s * cps, c1 = min(j.n, c0 + cps);
    c0 = max(c0, r0 - j.kl);
    c1 = min(c1, r0 + RB + j.ku);
    const T alpha = alpha_of<T>(j, e);
    T acc[RS][16 / sizeof(T)];
    T xr[SYM ? RS : 1][16 / sizeof(T)];
#pragma unroll
    for (int k = 0; k < RS; k++)
#pragma unroll
        for (int v = 0; v < V; v++) {
            acc[k][v] = zero<T>();
            if (SYM) {
                i64 i = r0 + (i64)k * tr * V + (i64)lr * V + v;
                xr[SYM ? k : 0][v] = i < j.m ? ld(x + vidx(j.x, i)) : zero<T>();
            }
        }
    T* zpart = (T*)j.part + ((i64)e * (j.splits + j.nq) + j.splits + rt) * j.plen;
    const bool conj = j.flags & F_CONJ;
    // The one-step product writing y directly reads y ahead (old_y) for its first rows.
    constexpr int YA = !SYM && RS == 1 ? 2 : 0;
    const bool direct = j.flags & F_DIRECT;
    const T beta = YA && direct ? beta_of<T>(j, e) : zero<T>();
    T yahead[YA > 0 ? YA : 1];
#pragma unroll
    for (int q = 0; q < YA; q++) {
        const i64 r = threadIdx.x + (i64)q * blockDim.x, i = r0 + r;
        yahead[q] = direct && r < RB && i < j.m ? old_y(y_of<T>(j, e, 2) + vidx(j.y, i), beta) : zero<T>();
    }
    if (!is0(alpha)) {
        // CU columns per lane per step (more loads in flight; symv's long columns fit two in
        // 128 registers and gained 4-8 %, its short ones keep one and 4 blocks per SM; the
        // one-step product, gbmv N's band among others, four: its steps are memory latencies
        // in a row), every lane the same number of steps (the symv shuffles need the whole warp).
        constexpr int CU = SYM ? (RS == 1 ? 1 : 2) : (RS == 1 ? 4 : 2);
        int slot = 0;
        i64 cg = c0;  // the column of slot 0 is cg + lc; slot q's is cg + q * tc + lc
        for (i64 cb = c0; cb < c1; cb += CU * tc) {
            i64 cc[CU]; bool live[CU]; T xc[CU]; const T* col[CU]; i64 lo[CU], hi[CU];
#pragma unroll
            for (int u = 0; u < CU; u++) {
                cc[u] = cb + u * tc + lc;
                live[u] = cc[u] < c1;
                xc[u] = live[u] ? ld(x + vidx(j.x, cc[u])) : zero<T>();
                col[u] = colp<T>(j, a, live[u] ? cc[u] : c0);
                lo[u] = live[u] ? max((i64)0, cc[u] - j.ku) : 0;
                hi[u] = live[u] ? min(j.m, cc[u] + j.kl + 1) : 0;
            }
            T av[CU][RS][16 / sizeof(T)];
            T z[CU];
#pragma unroll
            for (int u = 0; u < CU; u++) z[u] = zero<T>();
            // Interior steps (every element of the block's rows exists in each column, no
            // diagonal to fix, aligned columns) load and multiply without per-element checks:
            // the checks, even when they pass, cost f64 a fifth of its bandwidth. The condition
            // is the same for the whole block.
            bool interior = true;
#pragma unroll
            for (int u = 0; u < CU; u++)
                interior = interior && live[u] && r0 >= lo[u] && r0 + RB <= hi[u] && ((u64)(col[u] + r0) & 15) == 0 &&
                           !((j.flags & (F_UNIT | F_HERM)) || SYM ? cc[u] >= r0 && cc[u] < r0 + RB : false);
            if (interior) {
#pragma unroll
                for (int u = 0; u < CU; u++)
#pragma unroll
                    for (int k = 0; k < RS; k++) {
                        Pack<T> p; p.q = __ldg((const uint4*)(col[u] + r0 + (i64)k * tr * V + (i64)lr * V));
#pragma unroll
                        for (int v = 0; v < V; v++) av[u][k][v] = p.e[v];
                    }
#pragma unroll
                for (int u = 0; u < CU; u++)
#pragma unroll
                    for (int k = 0; k < RS; k++)
#pragma unroll
                        for (int v = 0; v < V; v++) {
                            fmac(acc[k][v], av[u][k][v], xc[u]);
                            if (SYM) fmac(z[u], conj ? cj(av[u][k][v]) : av[u][k][v], xr[SYM ? k : 0][v]);
                        }
            } else {
                unsigned ex[CU][RS];
#pragma unroll
                for (int u = 0; u < CU; u++)
#pragma unroll
                    for (int k = 0; k < RS; k++)
                        ex[u][k] = load_rows<T>(j, col[u], r0 + (i64)k * tr * V + (i64)lr * V, lo[u], hi[u], cc[u], av[u][k]);
#pragma unroll
                for (int u = 0; u < CU; u++)
#pragma unroll
                    for (int k = 0; k < RS; k++) {
                        const i64 i0 = r0 + (i64)k * tr * V + (i64)lr * V;
#pragma unroll
                        for (int v = 0; v < V; v++) {
                            if (!(ex[u][k] >> v & 1)) continue;
                            fmac(acc[k][v], av[u][k][v], xc[u]);
                            if (SYM && i0 + v != cc[u]) fmac(z[u], conj ? cj(av[u][k][v]) : av[u][k][v], xr[SYM ? k : 0][v]);
                        }
                    }
            }
            if (DEFER) {
#pragma unroll
                for (int u = 0; u < CU; u++) zb[lc][slot + u][lr] = z[u];
                slot += CU;
                if (slot == ZSLOTS || cb + CU * tc >= c1) {
                    __syncwarp();
                    if (lr < slot) {
                        T t = zero<T>();
#pragma unroll 8
                        for (int k = 0; k < 32; k++) t = add(t, zb[lc][lr][k]);
                        const i64 c = cg + (i64)lr * tc + lc;
                        if (c < c1) zpart[c] = t;
                    }
                    __syncwarp();
                    slot = 0;
                    cg = cb + CU * tc;
                }
            } else if (SYM) {
#pragma unroll
                for (int u = 0; u < CU; u++) {
                    T zu = z[u];
                    for (int d = tr / 2; d > 0; d >>= 1) zu = add(zu, shx(zu, d, tr));
                    if (lr == 0 && live[u]) zpart[cc[u]] = zu;
                }
            }
        }
    }
    // Row sums across the column lanes (after every warp is done with the mirrored sums'
    // buffer, which shares the memory).
    if (DEFER) __syncthreads();
#pragma unroll
    for (int k = 0; k < RS; k++)
#pragma unroll
        for (int v = 0; v < V; v++) red[lc * RB + (i64)k * tr * V + (i64)lr * V + v] = acc[k][v];
    __syncthreads();
    int q = 0;
    for (int r = threadIdx.x; r < RB; r += blockDim.x, q++) {
        const i64 i = r0 + r;
        if (i >= j.m) break;
        T t = zero<T>();
        for (int c = 0; c < tc; c++) t = add(t, red[c * RB + r]);
        if (j.flags & F_DIRECT) {
            T* y = y_of<T>(j, e, 2) + vidx(j.y, i);
            if (q < YA) {
                T ya = yahead[0];
#pragma unroll
                for (int u = 1; u < YA; u++)
                    if (q == u) ya = yahead[u];
                *y = combine_old(t, alpha, beta, ya);
            } else {
                *y = combine(t, alpha, beta_of<T>(j, e), y);
            }
        } else {
            ((T*)j.part)[((i64)e * (j.splits + j.nq) + s) * j.plen + i] = t;
        }
    }
}

// ---- dot ------------------------------------------------------------------------------
// A group of tr threads owns CPG columns of a block; a short column (one chunk of rows) is
// read for all CPG columns at once, with x loaded once for them.
#define CPG 4
// SHORT: the kernel for short columns, CPG to a group; the other one keeps its registers for
// loads in flight down long columns.
template <class T, bool SHORT, int STEPS>
__device__ __forceinline__ void dot(const Job& j, int yslot) {
    const int V = 16 / sizeof(T);
    const int tr = j.tr, tc = j.tc;
    const int lr = threadIdx.x % tr, lc = threadIdx.x / tr;
    // Column groups vary fastest: the blocks of one row range run together and share x in L2
    // (split row ranges otherwise read x again from memory for every group of columns).
    i64 b = blockIdx.x;
    const int cg = (int)(b % j.colgroups); b /= j.colgroups;
    const int s = (int)(b % j.splits);
    const int e = (int)(b / j.splits);
    pdl_enter();
    const T* a = mat_of<T>(j, e);
    const T* x = x_of<T>(j, e);
    const T alpha = alpha_of<T>(j, e);
    const i64 step = (i64)tr * V;
    const i64 chunk = 4 * step;
    const i64 rps = ((j.m + j.splits - 1) / j.splits + step - 1) / step * step;
    const bool conj = j.flags & F_CONJ;
    const bool xvec = j.x.inc == 1 && (((u64)x) & 15) == 0;
    enum { NC = SHORT ? CPG : 1 };
    T z[NC];
    i64 cc[NC], lo[NC], hi[NC];
    bool live[NC];
#pragma unroll
    for (int k = 0; k < NC; k++) {
        z[k] = zero<T>();
        cc[k] = ((i64)cg * j.cpg + k) * tc + lc;
        live[k] = k < j.cpg && cc[k] < j.n;
        const i64 c = live[k] ? cc[k] : 0;
        lo[k] = max(max((i64)0, c - j.ku), s * rps);
        hi[k] = live[k] ? min(min(j.m, c + j.kl + 1), (s + 1) * rps) : 0;
    }
    if (!is0(alpha)) {
        if (SHORT) {
            // Short columns (one chunk, set by the launcher): every column's loads together.
            const i64 i0 = s * rps + (i64)lr * V;
            T av[NC][STEPS][16 / sizeof(T)];
            unsigned ex[NC][STEPS];
#pragma unroll
            for (int k = 0; k < NC; k++) {
                const T* col = colp<T>(j, a, live[k] ? cc[k] : 0);
#pragma unroll
                for (int u = 0; u < STEPS; u++)
                    ex[k][u] = (i0 + u * step < hi[k]) ? load_rows<T>(j, col, i0 + u * step, lo[k], hi[k], cc[k], av[k][u]) : 0u;
            }
#pragma unroll
            for (int u = 0; u < STEPS; u++) {
                const i64 iu = i0 + u * step;
                if (iu >= j.m) continue;
                T xv[16 / sizeof(T)];
                if (xvec && iu + V <= j.m) {
                    Pack<T> p; p.q = __ldg((const uint4*)(x + iu));
#pragma unroll
                    for (int v = 0; v < V; v++) xv[v] = p.e[v];
                } else {
#pragma unroll
                    for (int v = 0; v < V; v++) xv[v] = iu + v < j.m ? ld(x + vidx(j.x, iu + v)) : zero<T>();
                }
#pragma unroll
                for (int k = 0; k < NC; k++)
#pragma unroll
                    for (int v = 0; v < V; v++)
                        if (ex[k][u] >> v & 1) fmac(z[k], conj ? cj(av[k][u][v]) : av[k][u][v], xv[v]);
            }
        } else {
            // Long columns have one column per group (cpg = 1, set by the launcher); constant
            // indices keep the per-column values in registers.
            const int k = 0;
            if (lo[k] < hi[k]) {
                const i64 c = cc[k];
                const T* col = colp<T>(j, a, c);
                // Start at the aligned row at or below lo so all but the ends are whole loads.
                const i64 base = (lo[k] / V) * V;
                const i64 nck = (hi[k] - base + chunk - 1) / chunk;
                // Columns start at different chunks (and wrap around), so the warps running
                // together do not all read the same rows of many columns.
                const i64 k0 = nck > 1 ? (c * 5) % nck : 0;
                for (i64 t = 0; t < nck; t++) {
                    i64 kk = k0 + t;
                    if (kk >= nck) kk -= nck;
                    const i64 i0 = base + kk * chunk + (i64)lr * V;
                    const i64 left = hi[k] - (base + kk * chunk);
                    const int steps = left > 2 * step ? 4 : (left > step ? 2 : 1);
                    T av[4][16 / sizeof(T)], xv[4][16 / sizeof(T)];
                    // A whole chunk inside the column's rows, aligned, with no diagonal to fix
                    // and x in 16-byte pieces: loads and products without per-element checks
                    // (the same for the whole group of threads).
                    const i64 cs = base + kk * chunk;
                    const bool interior = steps == 4 && cs >= lo[k] && cs + chunk <= hi[k] && xvec &&
                                          ((u64)(col + cs) & 15) == 0 &&
                                          !((j.flags & (F_UNIT | F_HERM)) && c >= cs && c < cs + chunk);
                    if (interior) {
#pragma unroll
                        for (int u = 0; u < 4; u++) {
                            Pack<T> p; p.q = __ldg((const uint4*)(col + i0 + u * step));
                            Pack<T> q; q.q = __ldg((const uint4*)(x + i0 + u * step));
#pragma unroll
                            for (int v = 0; v < V; v++) { av[u][v] = p.e[v]; xv[u][v] = q.e[v]; }
                        }
#pragma unroll
                        for (int u = 0; u < 4; u++)
#pragma unroll
                            for (int v = 0; v < V; v++) fmac(z[k], conj ? cj(av[u][v]) : av[u][v], xv[u][v]);
                        continue;
                    }
                    unsigned ex[4] = {0, 0, 0, 0};
#pragma unroll
                    for (int u = 0; u < 4; u++)
                        if (u < steps) ex[u] = load_rows<T>(j, col, i0 + u * step, lo[k], hi[k], c, av[u]);
#pragma unroll
                    for (int u = 0; u < 4; u++) {
                        if (u >= steps) continue;
                        const i64 iu = i0 + u * step;
                        if (xvec && ex[u] == (1u << V) - 1) {
                            Pack<T> p; p.q = __ldg((const uint4*)(x + iu));
#pragma unroll
                            for (int v = 0; v < V; v++) xv[u][v] = p.e[v];
                        } else {
#pragma unroll
                            for (int v = 0; v < V; v++) xv[u][v] = (ex[u] >> v & 1) ? ld(x + vidx(j.x, iu + v)) : zero<T>();
                        }
                    }
#pragma unroll
                    for (int u = 0; u < 4; u++)
#pragma unroll
                        for (int v = 0; v < V; v++)
                            if (ex[u] >> v & 1) fmac(z[k], conj ? cj(av[u][v]) : av[u][v], xv[u][v]);
                }
            }
        }
    }
#pragma unroll
    for (int k = 0; k < NC; k++) {
        T zk = z[k];
        for (int d = tr / 2; d > 0; d >>= 1) zk = add(zk, shx(zk, d, tr));
        if (lr != 0 || !live[k]) continue;
        const i64 c = cc[k];
        if (j.flags & F_DIRECT) {
            T* y = y_of<T>(j, e, yslot) + vidx(j.y, c);
            *y = combine(zk, alpha, beta_of<T>(j, e), y);
        } else {
            ((T*)j.part)[((i64)e * j.splits + s) * j.plen + c] = zk;
        }
    }
}

// ---- gbmv op T/C on a narrow band ----------------------------------------------------------
// A warp per column: its stored rows (at most 32 * BD_STEPS, contiguous in band storage but
// starting at any element) read 32 at a time by the lanes, every load of A and x of the column
// in flight together, then a shuffle sum; y read ahead. The general dot gives such a column a
// group of 32 threads with 16-byte steps, 80 registers and 3 blocks an SM: 2,048 blocks in five
// waves of a few latencies each (gbmv T f32 16384, kl = ku = 64: 20.6 us for 8.5 MB, where a
// copy of the same bytes took 4.9; H200, Nsight Compute: DRAM 6.6 %, occupancy 34 %).
#define BD_STEPS 8  // mirrored by BAND_DOT_ROWS (32 * BD_STEPS) in blas2/cuda.rs
template <class T>
__device__ __forceinline__ void band_dot(const Job& j) {
    const int lane = threadIdx.x & 31;
    const i64 per = (j.n + THREADS / 32 - 1) / (THREADS / 32);
    const int e = (int)(blockIdx.x / per);
    const i64 c = (blockIdx.x % per) * (THREADS / 32) + (threadIdx.x >> 5);
    pdl_enter();
    if (c >= j.n) return;  // a whole warp: no shuffle below misses a lane
    const T* a = mat_of<T>(j, e);
    const T* x = x_of<T>(j, e);
    const T alpha = alpha_of<T>(j, e), beta = beta_of<T>(j, e);
    T* y = y_of<T>(j, e, 2) + vidx(j.y, c);
    const T yahead = lane == 0 ? old_y(y, beta) : zero<T>();
    const bool conj = j.flags & F_CONJ;
    T z = zero<T>();
    const i64 lo = max((i64)0, c - j.ku), hi = min(j.m, c + j.kl + 1);
    if (!is0(alpha) && lo < hi) {
        const T* col = colp<T>(j, a, c);
        // Rows past the column's last are clamped to it (read, not used): no branch between
        // the loads, so they all go out before the first product.
        T av[BD_STEPS], xv[BD_STEPS];
#pragma unroll
        for (int u = 0; u < BD_STEPS; u++) {
            const i64 i = min(lo + lane + 32 * u, hi - 1);
            av[u] = ld(col + i);
            xv[u] = ld(x + vidx(j.x, i));
        }
#pragma unroll
        for (int u = 0; u < BD_STEPS; u++)
            if (lo + lane + 32 * u < hi) fmac(z, conj ? cj(av[u]) : av[u], xv[u]);
    }
    for (int d = 16; d > 0; d >>= 1) z = add(z, shx(z, d, 32));
    if (lane == 0) *y = combine_old(z, alpha, beta, yahead);
}

// ---- gemv op T/C in the common case: full storage, aligned, x contiguous -------------------
// A warp per column, chunks of 4 x 512 bytes down it from a start that rotates with the column
// (the warps running together read different rows), the rows below the last whole chunk one
// element per lane; no per-element checks (every element of A exists). About half the general
// dot's registers, so twice the blocks per SM: with 3 a SM the general kernel's last wave ran
// too few blocks to reach the memory's rate (H200, gemvbench, f64 16384: 501 us, 0.96x
// cuBLAS; this warp-per-column form 471 us, 1.02x). The launcher checks the alignments.
template <class T>
__device__ __forceinline__ void dot_lean(const Job& j, int yslot) {
    const int V = 16 / sizeof(T);
    const int lane = threadIdx.x & 31;
    const i64 per = (j.n + 7) / 8;
    const int e = (int)(blockIdx.x / per);
    const i64 c = (blockIdx.x % per) * 8 + threadIdx.x / 32;
    pdl_enter();
    if (c >= j.n) return;  // the whole warp
    const T* x = x_of<T>(j, e);
    const T alpha = alpha_of<T>(j, e);
    const bool conj = j.flags & F_CONJ;
    T z = zero<T>();
    if (!is0(alpha)) {
        const T* col = mat_of<T>(j, e) + c * j.a.lda;
        const i64 chunk = 4 * 32 * V;
        const i64 nck = j.m / chunk;
        const i64 k0 = nck > 1 ? (c * 5) % nck : 0;
        for (i64 t = 0; t < nck; t++) {
            i64 kk = k0 + t;
            if (kk >= nck) kk -= nck;
            const i64 r = kk * chunk + (i64)lane * V;
            Pack<T> xa[4], p[4];
#pragma unroll
            for (int u = 0; u < 4; u++) {
                xa[u].q = __ldg((const uint4*)(x + r + u * 32 * V));
                p[u].q = __ldcs((const uint4*)(col + r + u * 32 * V));
            }
#pragma unroll
            for (int u = 0; u < 4; u++)
#pragma unroll
                for (int v = 0; v < V; v++) fmac(z, conj ? cj(p[u].e[v]) : p[u].e[v], xa[u].e[v]);
        }
        for (i64 i = nck * chunk + lane; i < j.m; i += 32) {
            const T av = ld(col + i);
            fmac(z, conj ? cj(av) : av, ld(x + i));
        }
    }
    for (int d = 16; d > 0; d >>= 1) z = add(z, shx(z, d, 32));
    if (lane == 0) {
        T* y = y_of<T>(j, e, yslot) + vidx(j.y, c);
        *y = combine(z, alpha, beta_of<T>(j, e), y);
    }
}

// ---- symmetric and Hermitian bands in one pass (sbmv, hbmv) ----------------------------
// y = alpha A x + beta y with A in band storage, one triangle stored (kl, ku: the stored part
// with its diagonal, j - ku <= i <= j + kl). A block owns SB_TR * V rows of y (SB_TC column
// lanes of SB_TR threads, 16 bytes a thread a column) and writes them directly:
// - the stored part: every stored column crossing the block's rows, those rows of it (the
//   sweep's form: sum A(i, c) x_c over c);
// - the mirror: the block's own columns without their diagonal (sum A(i, c) x_i over i, conj
//   for hbmv), as column dots reduced by shuffles.
// A column is read by its own block and, where it crosses the next block's rows, by that one
// (from L2: a band of k = 64 at 16384 f64 is 8.5 MB); the two passes of the split form each
// paid a launch and a latency-bound tail (H200: sbmv f64 16384, k = 64 took 34 us in two).
// Only existing elements are multiplied (an infinite x meets only stored elements), and the
// Hermitian diagonal's imaginary part is not read (load_rows).
#define SB_TR 16
#define SB_TC (THREADS / SB_TR)
template <class T>
__device__ __forceinline__ void band_sym(const Job& j) {
    const int V = 16 / sizeof(T);
    constexpr int RBT = SB_TR * (16 / sizeof(T));  // rows of y a block
    __shared__ T red[SB_TC][RBT + 1];
    __shared__ T mir[RBT];
    const int lr = threadIdx.x % SB_TR, lc = threadIdx.x / SB_TR;
    const i64 per = (j.n + RBT - 1) / RBT;
    const int e = (int)(blockIdx.x / per);
    const i64 r0 = (blockIdx.x % per) * RBT;
    pdl_enter();
    const T* a = mat_of<T>(j, e);
    const T* x = x_of<T>(j, e);
    const T alpha = alpha_of<T>(j, e);
    const bool herm = j.flags & F_HERM;
    const bool lower = j.flags & F_LOWER;
    T acc[16 / sizeof(T)];
#pragma unroll
    for (int v = 0; v < V; v++) acc[v] = zero<T>();
    if (threadIdx.x < RBT) mir[threadIdx.x] = zero<T>();
    if (!is0(alpha)) {
        // The stored part: columns c with c - ku <= i <= c + kl for some row i of the block.
        const i64 i0 = r0 + (i64)lr * V;
        const i64 c0 = max((i64)0, r0 - j.kl), c1 = min(j.n, r0 + RBT + j.ku);
#pragma unroll 2
        for (i64 c = c0 + lc; c < c1; c += SB_TC) {
            const T xc = ld(x + vidx(j.x, c));
            const T* col = colp<T>(j, a, c);
            const i64 lo = max((i64)0, c - j.ku), hi = min(j.n, c + j.kl + 1);
            T av[16 / sizeof(T)];
            const unsigned ex = i0 < hi && i0 + V > lo ? load_rows<T>(j, col, i0, lo, hi, c, av) : 0u;
#pragma unroll
            for (int v = 0; v < V; v++)
                if (ex >> v & 1) fmac(acc[v], av[v], xc);
        }
    }
    __syncthreads();  // mir zeroed
    if (!is0(alpha)) {
        // The mirror: the block's columns, their stored rows without the diagonal.
        // Every lane of a warp takes the same rounds (the shuffles need the whole warp).
        const i64 cend = min(j.n, r0 + RBT);
        for (i64 cb = r0; cb < cend; cb += SB_TC) {
            const i64 c = cb + lc;
            const bool live = c < cend;
            const T* col = colp<T>(j, a, live ? c : r0);
            const i64 lo = !live ? 0 : lower ? c + 1 : max((i64)0, c - j.ku);
            const i64 hi = !live ? 0 : lower ? min(j.n, c + j.kl + 1) : c;
            T z = zero<T>();
            // Chunks of SB_TR * V rows from the aligned row at or below lo.
            const i64 base = (lo / V) * V;
            for (i64 i0 = base + (i64)lr * V; i0 < hi; i0 += (i64)SB_TR * V) {
                if (i0 + V <= lo) continue;
                T av[16 / sizeof(T)];
                const unsigned ex = load_rows<T>(j, col, i0, lo, hi, c, av);
#pragma unroll
                for (int v = 0; v < V; v++)
                    if (ex >> v & 1) fmac(z, herm ? cj(av[v]) : av[v], ld(x + vidx(j.x, i0 + v)));
            }
            for (int d = SB_TR / 2; d > 0; d >>= 1) z = add(z, shx(z, d, SB_TR));
            // One column lane per column: no two lanes write the same entry.
            if (lr == 0 && live) mir[c - r0] = z;
        }
    }
#pragma unroll
    for (int v = 0; v < V; v++) red[lc][lr * V + v] = acc[v];
    __syncthreads();
    for (int r = threadIdx.x; r < RBT; r += THREADS) {
        const i64 i = r0 + r;
        if (i >= j.n) break;
        T t = mir[r];
        for (int c = 0; c < SB_TC; c++) t = add(t, red[c][r]);
        T* y = y_of<T>(j, e, 2) + vidx(j.y, i);
        *y = combine(t, alpha, beta_of<T>(j, e), y);
    }
}

// ---- many small products ---------------------------------------------------------------
// gemv on a batch of small full matrices (columns of at most 128 bytes): a thread owns 16
// bytes of one entry's y and walks the entry's columns (op N), or one column and walks its
// rows (op T/C); a block serves many entries, and the result is written directly. The
// general kernels give such a matrix a block of 64 threads, each with one 16-byte load.
template <class T>
__device__ __forceinline__ void small_n(const Job& j) {
    const int V = 16 / sizeof(T);
    const i64 per = (j.m + V - 1) / V;  // threads per entry
    const i64 g = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    pdl_enter();
    if (g >= per * j.nent) return;
    const int e = (int)(g / per);
    const i64 i0 = (g % per) * V;
    const T* a = mat_of<T>(j, e);
    const T* x = x_of<T>(j, e);
    const T alpha = alpha_of<T>(j, e);
    T acc[16 / sizeof(T)];
#pragma unroll
    for (int v = 0; v < V; v++) acc[v] = zero<T>();
    if (!is0(alpha)) {
        const bool fast = i0 + V <= j.m && ((u64)(a + i0) & 15) == 0 && ((j.a.lda * (i64)sizeof(T)) & 15) == 0;
        if (fast) {
#pragma unroll 4
            for (i64 c = 0; c < j.n; c++) {
                Pack<T> p; p.q = __ldg((const uint4*)(a + c * j.a.lda + i0));
                const T xc = ld(x + vidx(j.x, c));
#pragma unroll
                for (int v = 0; v < V; v++) fmac(acc[v], p.e[v], xc);
            }
        } else {
            for (i64 c = 0; c < j.n; c++) {
                T av[16 / sizeof(T)];
                const unsigned ex = load_rows<T>(j, a + c * j.a.lda, i0, 0, j.m, c, av);
                const T xc = ld(x + vidx(j.x, c));
#pragma unroll
                for (int v = 0; v < V; v++)
                    if (ex >> v & 1) fmac(acc[v], av[v], xc);
            }
        }
    }
    const T beta = beta_of<T>(j, e);
    T* y = y_of<T>(j, e, 2);
#pragma unroll
    for (int v = 0; v < V; v++) {
        if (i0 + v >= j.m) break;
        T* yi = y + vidx(j.y, i0 + v);
        *yi = combine(acc[v], alpha, beta, yi);
    }
}

template <class T>
__device__ __forceinline__ void small_t(const Job& j) {
    const int V = 16 / sizeof(T);
    const i64 g = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    pdl_enter();
    if (g >= j.n * j.nent) return;
    const int e = (int)(g / j.n);
    const i64 c = g % j.n;
    const T* col = mat_of<T>(j, e) + c * j.a.lda;
    const T* x = x_of<T>(j, e);
    const T alpha = alpha_of<T>(j, e);
    const bool conj = j.flags & F_CONJ;
    T z = zero<T>();
    if (!is0(alpha)) {
        const bool fast = ((u64)col & 15) == 0 && j.x.inc == 1 && ((u64)x & 15) == 0;
        i64 i0 = 0;
        if (fast) {
#pragma unroll 4
            for (; i0 + V <= j.m; i0 += V) {
                Pack<T> p; p.q = __ldg((const uint4*)(col + i0));
                Pack<T> q; q.q = __ldg((const uint4*)(x + i0));
#pragma unroll
                for (int v = 0; v < V; v++) fmac(z, conj ? cj(p.e[v]) : p.e[v], q.e[v]);
            }
        }
        for (; i0 < j.m; i0 += V) {
            T av[16 / sizeof(T)];
            const unsigned ex = load_rows<T>(j, col, i0, 0, j.m, c, av);
#pragma unroll
            for (int v = 0; v < V; v++)
                if (ex >> v & 1) fmac(z, conj ? cj(av[v]) : av[v], ld(x + vidx(j.x, i0 + v)));
        }
    }
    T* yc = y_of<T>(j, e, 2) + vidx(j.y, c);
    *yc = combine(z, alpha, beta_of<T>(j, e), yc);
}

// ---- pass 2 ---------------------------------------------------------------------------
// out_i = alpha * (sum of np partials + symv's row-tile partials) + beta * y_i.
template <class T>
__device__ __forceinline__ void pass2(const Job& j, int yslot) {
    // blockIdx.x = entry * colgroups + block within the entry.
    const int e = blockIdx.x / j.colgroups, bx = blockIdx.x % j.colgroups;
    pdl_enter();
    const T alpha = alpha_of<T>(j, e);
    const T beta = beta_of<T>(j, e);
    const T* p = (const T*)j.part + (i64)e * (j.np + j.nq) * j.plen;
    T* y = y_of<T>(j, e, yslot);
    for (i64 i = (i64)bx * blockDim.x + threadIdx.x; i < j.plen; i += (i64)j.colgroups * blockDim.x) {
        // Four independent sums, so a long list of partials has four loads in flight.
        T t0 = zero<T>(), t1 = zero<T>(), t2 = zero<T>(), t3 = zero<T>();
        int s = 0;
        for (; s + 4 <= j.np; s += 4) {
            t0 = add(t0, p[(i64)s * j.plen + i]);
            t1 = add(t1, p[(i64)(s + 1) * j.plen + i]);
            t2 = add(t2, p[(i64)(s + 2) * j.plen + i]);
            t3 = add(t3, p[(i64)(s + 3) * j.plen + i]);
        }
        for (; s < j.np; s++) t0 = add(t0, p[(i64)s * j.plen + i]);
        T t = add(add(t0, t1), add(t2, t3));
        if (j.nq) {
            // Row tiles whose blocks saw column i: lower, the tile holding i and those below it;
            // upper, those above it and the tile holding it.
            const int mid = (int)(i / j.rb);
            const int q0 = (j.flags & F_LOWER) ? mid : 0;
            const int q1 = (j.flags & F_LOWER) ? j.nq : mid + 1;
            for (int q = q0; q < q1; q++) t = add(t, p[(i64)(j.np + q) * j.plen + i]);
        }
        T* yi = y + vidx(j.y, i);
        *yi = combine(t, alpha, beta, yi);
    }
}

// Many partials per output (short outputs split over many blocks): one block per output
// sums its partials with every thread, then reduces across the block.
template <class T>
__device__ __forceinline__ void pass2_wide(const Job& j, int yslot) {
    __shared__ T red[THREADS / 32];
    const int e = (int)(blockIdx.x / j.plen);
    const i64 i = blockIdx.x % j.plen;
    pdl_enter();
    const T* p = (const T*)j.part + (i64)e * j.np * j.plen;
    T t = zero<T>();
    for (int s = threadIdx.x; s < j.np; s += blockDim.x) t = add(t, p[(i64)s * j.plen + i]);
    for (int d = 16; d > 0; d >>= 1) t = add(t, shx(t, d, 32));
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = t;
    __syncthreads();
    if (threadIdx.x == 0) {
        T u = zero<T>();
        for (int w = 0; w < (int)(blockDim.x >> 5); w++) u = add(u, red[w]);
        T* yi = y_of<T>(j, e, yslot) + vidx(j.y, i);
        *yi = combine(u, alpha_of<T>(j, e), beta_of<T>(j, e), yi);
    }
}

// ---- trmv in place (no workspace) -----------------------------------------------------
// One block per matrix. Applied-lower operators are computed from the last rows up, so a row
// is overwritten only after every row that still needs its old value has been computed.
template <class T>
__device__ __forceinline__ void trmv_inplace(const Job& j) {
    const int e = blockIdx.x;
    pdl_enter();
    const T* a = mat_of<T>(j, e);
    T* x = y_of<T>(j, e, 1);
    const bool trans = j.flags & 64;       // op T/C: element (i,k) of op(A) is A(k,i)
    const bool lower_app = j.flags & 128;  // the applied operator is lower triangular
    const i64 n = j.n;
    const i64 nch = (n + blockDim.x - 1) / blockDim.x;
    for (i64 q = 0; q < nch; q++) {
        const i64 ch = lower_app ? nch - 1 - q : q;
        const i64 i = ch * blockDim.x + threadIdx.x;
        T s = zero<T>();
        if (i < n) {
            const i64 k0 = lower_app ? 0 : i, k1 = lower_app ? i + 1 : n;
            for (i64 k = k0; k < k1; k++) {
                // op(A)(i,k) = A(i,k) or A(k,i); stored element exists by the triangle rule.
                const i64 r = trans ? k : i, c = trans ? i : k;
                if (r - c > j.kl || c - r > j.ku) continue;
                T av;
                if (r == c && (j.flags & F_UNIT)) av = mk<T>(1.0, 0.0);
                else av = ld(colp<T>(j, a, c) + r);
                if (trans && (j.flags & F_CONJ)) av = cj(av);
                fmac(s, av, x[vidx(j.y, k)]);
            }
        }
        __syncthreads();
        if (i < n) x[vidx(j.y, i)] = s;
        __syncthreads();
    }
}

__device__ __forceinline__ void fill(u64 dst, int count, const List& l) {
    pdl_enter();
    for (int i = threadIdx.x; i < count; i += blockDim.x) ((u64*)dst)[i] = l.p[i];
}

#ifdef GPUBLAS_FAMILY_MV
// The plain four-step sweep fits 80 registers and 3 blocks per SM without spilling (gemv N
// f64 0.97 -> 1.00x cuBLAS, trmv N f64 2.55 -> 2.71 TB/s); the symmetric one spills there.
#define MV_KERNELS(TAG, T)                                                                     \
    extern "C" __global__ void __launch_bounds__(THREADS, 4) b2_sweep1_##TAG(Job j) { sweep<T, 1, false>(j); } \
    extern "C" __global__ void __launch_bounds__(THREADS, 3) b2_sweep4_##TAG(Job j) { sweep<T, 4, false>(j); } \
    extern "C" __global__ void __launch_bounds__(THREADS, 2) b2_symsweep1_##TAG(Job j) { sweep<T, 1, true>(j); } \
    extern "C" __global__ void __launch_bounds__(THREADS, 2) b2_symsweep4_##TAG(Job j) { sweep<T, 4, true>(j); } \
    extern "C" __global__ void __launch_bounds__(THREADS) b2_dot_##TAG(Job j, int yslot) { dot<T, false, 4>(j, yslot); } \
    extern "C" __global__ void __launch_bounds__(THREADS) b2_dotshort_##TAG(Job j, int yslot) { dot<T, true, 4>(j, yslot); } \
    extern "C" __global__ void __launch_bounds__(THREADS) b2_dotshort1_##TAG(Job j, int yslot) { dot<T, true, 1>(j, yslot); } \
    extern "C" __global__ void __launch_bounds__(THREADS) b2_pass2_##TAG(Job j, int yslot) { pass2<T>(j, yslot); } \
    extern "C" __global__ void __launch_bounds__(THREADS) b2_pass2w_##TAG(Job j, int yslot) { pass2_wide<T>(j, yslot); } \
    extern "C" __global__ void __launch_bounds__(THREADS) b2_trmv_ip_##TAG(Job j) { trmv_inplace<T>(j); } \
    extern "C" __global__ void __launch_bounds__(THREADS) b2_bandsym_##TAG(Job j) { band_sym<T>(j); } \
    extern "C" __global__ void __launch_bounds__(THREADS) b2_dotlean_##TAG(Job j, int yslot) { dot_lean<T>(j, yslot); } \
    extern "C" __global__ void __launch_bounds__(THREADS) b2_small_n_##TAG(Job j) { small_n<T>(j); } \
    extern "C" __global__ void __launch_bounds__(THREADS) b2_small_t_##TAG(Job j) { small_t<T>(j); }
MV_KERNELS(s, float)
MV_KERNELS(d, double)
MV_KERNELS(c, float2)
MV_KERNELS(z, double2)
// gbmv op T/C on a narrow band: not Complex64, whose 16-byte elements spill there (the launcher
// takes the general dot).
#define BAND_DOT_KERNEL(TAG, T) \
    extern "C" __global__ void __launch_bounds__(THREADS, 4) b2_banddot_##TAG(Job j) { band_dot<T>(j); }
BAND_DOT_KERNEL(s, float)
BAND_DOT_KERNEL(d, double)
BAND_DOT_KERNEL(c, float2)
extern "C" __global__ void __launch_bounds__(THREADS) b2_fill(u64 dst, int count, List l) { fill(dst, count, l); }
#endif

// ---- trsv ------------------------------------------------------------------------------
// The system is cut into NB-row blocks. A block of rows needs the solutions of the blocks
// before it (in solve order): its right-hand side minus their products with the off-diagonal
// tiles, then a solve of its diagonal tile. `trsv_blocked` runs one thread block per block of
// rows, all at once: each takes a ticket (so tickets are handed out in the order blocks start,
// and every block it waits for has started: no deadlock), multiplies the tiles of rows that are
// already solved as soon as their flag is up, solves its diagonal tile, writes its rows and
// raises its flag. `trsv_subst` does the same blocks in order inside one thread block. A band
// (tbsv) multiplies only the tiles that meet it; packed storage (tpsv) only changes addresses.

// Progress flags are read with acquire semantics and x with loads that bypass L1.
__device__ __forceinline__ int ld_acquire(const int* p) {
    int v;
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
template <class T> __device__ __forceinline__ T ldcg(const T* p) { return __ldcg(p); }

// FULL: full storage (trsv): plain column addressing and no band test, as compile-time facts;
// otherwise band or packed storage (tbsv, tpsv) through colp and the band rule.
template <class T, int NB, bool FULL>
struct Tri {
    // flags bits: 64 trans (op T/C), 128 the applied operator is lower (forward solve)
    enum { L = THREADS / NB, PER = NB / (THREADS / NB) };
    const Job& j;
    const T* a;
    T* x;
    bool trans, conj, unit, fwd;
    i64 n;
    int rr, lane;
    __device__ Tri(const Job& jj, const T* aa, T* xx) : j(jj), a(aa), x(xx) {
        trans = j.flags & 64; conj = j.flags & F_CONJ; unit = j.flags & F_UNIT; fwd = j.flags & 128; n = j.n;
        rr = threadIdx.x % NB; lane = threadIdx.x / NB;
    }
    // Stored element (r, c) (inside the stored triangle and band), for every storage.
    __device__ __forceinline__ T A(i64 r, i64 c) const {
        return FULL ? ld(a + c * j.a.lda + r) : ld(colp<T>(j, a, c) + r);
    }
    // Whether (r, c) is stored: the triangle, and for a band its width (tbsv).
    __device__ __forceinline__ bool in(i64 r, i64 c) const { return r - c <= j.kl && c - r <= j.ku; }
    // The first block (in solve order) whose tile in block row q meets the band: a band of k
    // off-diagonals reaches ceil(k / NB) blocks back, so tbsv multiplies only those tiles.
    __device__ __forceinline__ int first(int q) const {
        if (FULL) return 0;
        const i64 kt = (max(j.kl, j.ku) + NB - 1) / NB;
        return kt >= q ? 0 : q - (int)kt;
    }
    // This thread's share of the off-diagonal tile (block bi of rows, block bk of columns of
    // op(A)), all loads issued at once: non-transposed, A(bi*NB + rr, bk*NB + lane + t*L);
    // transposed, A(bk*NB + rr, bi*NB + lane + t*L) (coalesced either way).
    __device__ __forceinline__ void fetch(int bi, int bk, T* r) const {
        const i64 rows = trans ? (i64)bk * NB : (i64)bi * NB;
        const i64 cols = trans ? (i64)bi * NB : (i64)bk * NB;
        const i64 row = rows + rr;
#pragma unroll
        for (int t = 0; t < PER; t++) {
            const i64 col = cols + lane + t * L;
            // Full storage: an off-diagonal tile of the triangle is stored whole.
            r[t] = (row < n && col < n && (FULL || in(row, col))) ? A(row, col) : zero<T>();
        }
    }
    // acc += op(A)(tile) * xs, from a fetched tile; a transposed tile goes through shared memory.
    __device__ __forceinline__ void apply(const T* r, const T* xs, T& acc, T (*ts)[NB + 1]) const {
        if (!trans) {
#pragma unroll
            for (int t = 0; t < PER; t++) fmac(acc, r[t], xs[lane + t * L]);
        } else {
#pragma unroll
            for (int t = 0; t < PER; t++) ts[lane + t * L][rr] = r[t];
            __syncthreads();
#pragma unroll
            for (int t = 0; t < PER; t++) {
                T v = ts[rr][lane + t * L];
                fmac(acc, conj ? cj(v) : v, xs[lane + t * L]);
            }
            __syncthreads();
        }
    }
    // The applied diagonal tile op(A)(b, b) into ts (unit diagonal as ones, rows past n as the
    // identity, nothing outside the stored triangle read).
    __device__ __forceinline__ void load_diag(int b, T (*ts)[NB + 1]) const {
        const i64 base = (i64)b * NB;
        const int nb = (int)min((i64)NB, n - base);
        for (int cc = lane; cc < NB; cc += L) {
            T v = zero<T>();
            if (rr < nb && cc < nb) {
                if (rr == cc && unit) v = mk<T>(1.0, 0.0);
                else if (in(base + rr, base + cc)) v = A(base + rr, base + cc);
            } else if (rr == cc) {
                v = mk<T>(1.0, 0.0);
            }
            if (trans) ts[cc][rr] = conj ? cj(v) : v; else ts[rr][cc] = v;
        }
        __syncthreads();
    }
    // Solves the diagonal tile of block b in place (rhs in shared memory), one warp stepping
    // through the rows: the path without a workspace. The diagonal's divisors are prepared by
    // the whole warp first, off the rows' chain of dependences.
    __device__ __forceinline__ void diag_solve(int b, T* rhs, T (*ts)[NB + 1], Divisor<T>* dv) const {
        load_diag(b, ts);
        const int nb = (int)min((i64)NB, n - (i64)b * NB);
        if (threadIdx.x < 32) {
            const int w = threadIdx.x;
            if (!unit)
                for (int r = w; r < nb; r += 32) dv[r] = Divisor<T>::of(ts[r][r]);
            __syncwarp();
            for (int q = 0; q < nb; q++) {
                const int i = fwd ? q : nb - 1 - q;
                if (w == 0) rhs[i] = unit ? rhs[i] : dv[i].apply(rhs[i]);
                __syncwarp();
                const T xi = rhs[i];
                for (int r = w; r < nb; r += 32)
                    if (fwd ? r > i : r < i) rhs[r] = sub(rhs[r], mul(ts[r][i], xi));
                __syncwarp();
            }
        }
        __syncthreads();
    }
    // Sums the lanes' partial row values into out[NB] (shared).
    __device__ __forceinline__ void lanes_sum(T v, T* part, T* out) const {
        part[threadIdx.x] = v;
        __syncthreads();
        if (threadIdx.x < NB) {
            T t = zero<T>();
#pragma unroll
            for (int l = 0; l < L; l++) t = add(t, part[l * NB + rr]);
            out[rr] = t;
        }
        __syncthreads();
    }
    // rhs = b - acc for block b's rows.
    __device__ __forceinline__ void finish_rhs(int b, T acc, T* part, T* rhs) const {
        lanes_sum(acc, part, rhs);
        if (threadIdx.x < NB) {
            const i64 row = (i64)b * NB + rr;
            rhs[rr] = row < n ? sub(ldcg(x + vidx(j.y, row)), rhs[rr]) : zero<T>();
        }
        __syncthreads();
    }
    // Inverts the applied diagonal tile op(A)(b, b) in place in ts, as LAPACK's trti2 does
    // (col and rdiag: NB elements of shared scratch each).
    __device__ __forceinline__ void invert_diag(int b, T (*ts)[NB + 1], T* col, T* rdiag) const {
        load_diag(b, ts);
        const int i = threadIdx.x;
        const T one = mk<T>(1.0, 0.0);
        // The diagonal's reciprocals, all at once (the first step's barrier publishes them): no
        // division on the columns' chain of dependences. A column's diagonal is only rewritten
        // by its own step.
        if (i < NB) rdiag[i] = quotient(one, ts[i][i]);
        for (int q = 0; q < NB; q++) {
            // Lower: columns from the last; upper: from the first. The inverse of the part
            // already done times the column below (above) the diagonal, scaled by -1/diag.
            const int jj = fwd ? NB - 1 - q : q;
            if (i < NB) col[i] = ts[i][jj];
            __syncthreads();
            const T d = rdiag[jj];
            T s = zero<T>();
            const bool mine = i < NB && (fwd ? i > jj : i < jj);
            if (mine) {
                const int k0 = fwd ? jj + 1 : i, k1 = fwd ? i : jj - 1;
                for (int k = k0; k <= k1; k++) fmac(s, ts[i][k], col[k]);
            }
            __syncthreads();
            if (mine) ts[i][jj] = mul(sub(zero<T>(), d), s);
            if (i == jj) ts[jj][jj] = d;
            __syncthreads();
        }
    }
    __device__ __forceinline__ void store(int b, const T* v) const {
        if (threadIdx.x < NB) {
            const i64 row = (i64)b * NB + threadIdx.x;
            if (row < n) x[vidx(j.y, row)] = v[threadIdx.x];
        }
    }
};

template <class T, int NB, bool FULL>
__device__ __forceinline__ void trsv_subst(const Job& j) {
    __shared__ T ts[NB][NB + 1];
    __shared__ T xs[NB];
    __shared__ T rhs[NB];
    __shared__ T part[THREADS];
    __shared__ Divisor<T> dv[NB];
    const int e = blockIdx.x;
    pdl_enter();
    Tri<T, NB, FULL> t(j, mat_of<T>(j, e), y_of<T>(j, e, 1));
    const int nbk = (int)((j.n + NB - 1) / NB);
    T r[Tri<T, NB, FULL>::PER];
    for (int q = 0; q < nbk; q++) {
        const int b = t.fwd ? q : nbk - 1 - q;
        T acc = zero<T>();
        for (int p = t.first(q); p < q; p++) {
            const int c = t.fwd ? p : nbk - 1 - p;
            t.fetch(b, c, r);
            if (threadIdx.x < NB) {
                const i64 row = (i64)c * NB + threadIdx.x;
                xs[threadIdx.x] = row < j.n ? t.x[vidx(j.y, row)] : zero<T>();
            }
            __syncthreads();
            t.apply(r, xs, acc, ts);
            __syncthreads();
        }
        t.finish_rhs(b, acc, part, rhs);
        t.diag_solve(b, rhs, ts, dv);
        t.store(b, rhs);
        __syncthreads();
    }
}

// Workspace (per system): flags[nbk] and the ticket counter (zeroed before the launch). Each
// block inverts its own diagonal tile before it waits for anyone, so the inverses need no
// workspace and no launch of their own.
template <class T, int NB, bool FULL>
__device__ __forceinline__ void trsv_blocked(const Job& j, int e, u64 flags_p) {
    __shared__ T ts[NB][NB + 1];
    __shared__ T col[NB];
    __shared__ T rdiag[NB];
    __shared__ T xs[NB];
    __shared__ T rhs[NB];
    __shared__ T part[THREADS];
    __shared__ int s_ticket;
    pdl_enter();
    Tri<T, NB, FULL> t(j, mat_of<T>(j, e), y_of<T>(j, e, 1));
    int* flags = (int*)flags_p;
    const int nbk = (int)((j.n + NB - 1) / NB);
    if (threadIdx.x == 0) s_ticket = atomicAdd(flags + nbk, 1);
    __syncthreads();
    const int q = s_ticket;
    const int b = t.fwd ? q : nbk - 1 - q;
    enum { PER = Tri<T, NB, FULL>::PER, L = Tri<T, NB, FULL>::L };
    // The inverse of this block's diagonal tile, computed now: it does not wait for anyone.
    T inv[PER];
    t.invert_diag(b, ts, col, rdiag);
#pragma unroll
    for (int u = 0; u < PER; u++) inv[u] = ts[t.rr][t.lane + u * L];
    __syncthreads();
    // This block's right-hand side does not wait for anyone either.
    T bval = zero<T>();
    if (threadIdx.x < NB) {
        const i64 row = (i64)b * NB + threadIdx.x;
        if (row < j.n) bval = ldcg(t.x + vidx(j.y, row));
    }
    // Tiles are fetched one dependency ahead, so a tile's loads are in flight while the block
    // waits for the rows it multiplies.
    T cur[PER], nxt[PER];
    const int p0 = t.first(q);
    if (p0 < q) t.fetch(b, t.fwd ? p0 : nbk - 1 - p0, nxt);
    T acc = zero<T>();
    for (int p = p0; p < q; p++) {
        const int c = t.fwd ? p : nbk - 1 - p;
#pragma unroll
        for (int u = 0; u < PER; u++) cur[u] = nxt[u];
        if (p + 1 < q) t.fetch(b, t.fwd ? p + 1 : nbk - 2 - p, nxt);
        // The threads that load the solved rows wait for them themselves.
        if (threadIdx.x < NB) {
            while (ld_acquire(flags + c) == 0) { }
            const i64 row = (i64)c * NB + threadIdx.x;
            xs[threadIdx.x] = row < j.n ? ldcg(t.x + vidx(j.y, row)) : zero<T>();
        }
        __syncthreads();
        t.apply(cur, xs, acc, ts);
        __syncthreads();
    }
    // rhs = b - acc
    t.lanes_sum(acc, part, rhs);
    if (threadIdx.x < NB) rhs[threadIdx.x] = sub(bval, rhs[threadIdx.x]);
    __syncthreads();
    // x_b = inverse(op(A)(b, b)) * rhs
    T v = zero<T>();
#pragma unroll
    for (int u = 0; u < PER; u++) fmac(v, inv[u], rhs[t.lane + u * L]);
    t.lanes_sum(v, part, xs);
    t.store(b, xs);
    // Release: the barrier orders every thread's stores before thread 0's fence and flag (as
    // cooperative groups' grid sync does).
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        atomicExch(flags + b, 1);
    }
}

#ifdef GPUBLAS_FAMILY_SV
#define SV_KERNELS(TAG, T, NB)                                                                 \
    extern "C" __global__ void __launch_bounds__(THREADS) b2_trsv_sub_##TAG(Job j) { trsv_subst<T, NB, true>(j); } \
    extern "C" __global__ void __launch_bounds__(THREADS) b2_trsv_blk_##TAG(Job j, int e, u64 flags) { trsv_blocked<T, NB, true>(j, e, flags); } \
    extern "C" __global__ void __launch_bounds__(THREADS) b2_tbsv_sub_##TAG(Job j) { trsv_subst<T, NB, false>(j); } \
    extern "C" __global__ void __launch_bounds__(THREADS) b2_tbsv_blk_##TAG(Job j, int e, u64 flags) { trsv_blocked<T, NB, false>(j, e, flags); }
SV_KERNELS(s, float, 64)
SV_KERNELS(d, double, 64)
SV_KERNELS(c, float2, 64)
SV_KERNELS(z, double2, 32)
#endif
