// Level 2 rank updates (family GPUBLAS_FAMILY_RANKUPD): ger/geru/gerc, syr/her, syr2/her2 and
// the packed spr/hpr, spr2/hpr2, for float, double, float2 (c32) and double2 (c64).
//
// A(i,j) += u_i t1_j (+ w_i t2_j): u = x (and w = y for syr2/her2) down the rows, t1/t2 the
// column coefficients reference BLAS forms (ger: alpha y_j; syr: alpha x_j; syr2: alpha y_j and
// alpha x_j; conjugated for gerc/her/her2). Memory-bound: every stored element is read once and
// written once, 16 bytes per thread per access where the column allows.
//
// A block owns a tile of RB = tr * V rows (tr threads down a column, V elements = 16 bytes
// each) by tc * cpl columns (tc column lanes, cpl columns each). A thread keeps its V values
// of u (and w) in registers for the whole tile and, UNROLL columns at a time, loads its 16
// bytes of each column, then updates and stores them. Chunks that are misaligned, cut by the
// end of the stored part, or hold a Hermitian diagonal go element by element. A triangle with
// more than one row tile uses square tiles (tc * cpl = RB) numbered over the stored triangle
// only, so no block is launched for the other half. Reference BLAS skips a column whose
// coefficient is zero (nothing read or written there) except that her* still makes its
// diagonal real: the kernels do the same.

typedef long long i64;
typedef unsigned long long u64;

#define THREADS 256
#define LIST_MAX 3968
#define UNROLL 4

struct UVec { u64 base; i64 stride; i64 inc; i64 off0; };
struct RJob {
    u64 a; i64 a_stride; i64 lda;
    UVec x, y;
    u64 tab;                  // list batches: [A][x][y] addresses, nent each; 0 otherwise
    u64 alpha_p; i64 alpha_s; // device alpha (0: the host value) and its stride per entry
    double ar, ai;            // host alpha
    i64 m, n;                 // rows, columns (m == n for the triangles)
    i64 e0;                   // first entry of this launch (device alpha index)
    int nent, flags;
    int tr, tc, cpl, tri;     // tile geometry; tri: square tiles over the triangle
    int rowtiles, coltiles;
};
struct List { u64 p[LIST_MAX]; };

#define F_CONJ 1    // conjugate the column coefficients (gerc, her, her2)
#define F_HERM 2    // the diagonal stays real (her, her2, hpr, hpr2)
#define F_LOWER 4   // the lower triangle is stored
#define F_PACKED 8  // packed storage
#define F_REAL 16   // a device alpha is real (her, hpr)

#define K_GER 0
#define K_SYR 1
#define K_SYR2 2

// ---- arithmetic -----------------------------------------------------------------------
template <class T> struct Real;
template <> struct Real<float> { typedef float t; };
template <> struct Real<double> { typedef double t; };
template <> struct Real<float2> { typedef float t; };
template <> struct Real<double2> { typedef double t; };

__device__ __forceinline__ float mul(float a, float b) { return a * b; }
__device__ __forceinline__ double mul(double a, double b) { return a * b; }
__device__ __forceinline__ float2 mul(float2 a, float2 b) { return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
__device__ __forceinline__ double2 mul(double2 a, double2 b) { return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
__device__ __forceinline__ float add(float a, float b) { return a + b; }
__device__ __forceinline__ double add(double a, double b) { return a + b; }
__device__ __forceinline__ float2 add(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ double2 add(double2 a, double2 b) { return make_double2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ float cj(float v) { return v; }
__device__ __forceinline__ double cj(double v) { return v; }
__device__ __forceinline__ float2 cj(float2 v) { return make_float2(v.x, -v.y); }
__device__ __forceinline__ double2 cj(double2 v) { return make_double2(v.x, -v.y); }
__device__ __forceinline__ bool is0(float v) { return v == 0.f; }
__device__ __forceinline__ bool is0(double v) { return v == 0.0; }
__device__ __forceinline__ bool is0(float2 v) { return v.x == 0.f && v.y == 0.f; }
__device__ __forceinline__ bool is0(double2 v) { return v.x == 0.0 && v.y == 0.0; }
// re(a) + re(d) with a zero imaginary part (the Hermitian diagonal); real types never use it.
__device__ __forceinline__ float real_diag(float a, float d) { return a + d; }
__device__ __forceinline__ double real_diag(double a, double d) { return a + d; }
__device__ __forceinline__ float2 real_diag(float2 a, float2 d) { return make_float2(a.x + d.x, 0.f); }
__device__ __forceinline__ double2 real_diag(double2 a, double2 d) { return make_double2(a.x + d.x, 0.0); }
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

// 16 bytes as V elements.
template <class T> union Pack { uint4 q; T e[16 / sizeof(T)]; };

__device__ __forceinline__ void pdl_enter() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// ---- addressing -----------------------------------------------------------------------
template <class T> __device__ __forceinline__ T* mat_of(const RJob& j, int e) {
    if (j.tab) return (T*)((const u64*)j.tab)[e];
    return (T*)j.a + (i64)e * j.a_stride;
}
// Vector operand of entry e: x in table slot 1, y in slot 2.
template <class T> __device__ __forceinline__ const T* vec_of(const RJob& j, const UVec& v, int e, int slot) {
    if (j.tab) return (const T*)((const u64*)j.tab)[slot * j.nent + e];
    return (const T*)v.base + (i64)e * v.stride;
}
__device__ __forceinline__ i64 vidx(const UVec& v, i64 i) { return v.off0 + i * v.inc; }
// Element (i, c) of the matrix is col_of(c)[i] for every storage.
template <class T> __device__ __forceinline__ T* col_of(const RJob& j, T* a, i64 c) {
    if (!(j.flags & F_PACKED)) return a + c * j.lda;
    if (j.flags & F_LOWER) return a + c * (2 * j.n - c - 1) / 2;
    return a + c * (c + 1) / 2;
}

template <class T> __device__ __forceinline__ T alpha_of(const RJob& j, int e) {
    typedef typename Real<T>::t R;
    if (!j.alpha_p) return mk<T>(j.ar, j.ai);
    const i64 k = (j.e0 + e) * j.alpha_s;
    if (j.flags & F_REAL) return mk<T>((double)((const R*)j.alpha_p)[k], 0.0);
    return ((const T*)j.alpha_p)[k];
}

template <int KIND, class T> __device__ __forceinline__ T upd(T a, T u, T t1, T w, T t2) {
    a = add(a, mul(u, t1));
    if (KIND == K_SYR2) a = add(a, mul(w, t2));
    return a;
}

// ---- the update -----------------------------------------------------------------------
template <class T, int KIND>
__device__ __forceinline__ void rank(const RJob& j) {
    const int V = 16 / sizeof(T);
    const bool lower = j.flags & F_LOWER;
    const i64 tiles = j.tri ? (i64)j.rowtiles * (j.rowtiles + 1) / 2 : (i64)j.rowtiles * j.coltiles;
    const int e = (int)(blockIdx.x / tiles);
    const i64 t = blockIdx.x % tiles;
    i64 rt, ct;
    if (j.tri) {
        // t = q (q + 1) / 2 + r with 0 <= r <= q: upper tiles (r, q), lower tiles (q, r).
        i64 q = (i64)((sqrt(8.0 * (double)t + 1.0) - 1.0) * 0.5);
        while (q * (q + 1) / 2 > t) q--;
        while ((q + 1) * (q + 2) / 2 <= t) q++;
        const i64 r = t - q * (q + 1) / 2;
        rt = lower ? q : r;
        ct = lower ? r : q;
    } else {
        // Row tiles vary fastest: the blocks running together share their columns.
        rt = t % j.rowtiles;
        ct = t / j.rowtiles;
    }
    pdl_enter();
    const T alpha = alpha_of<T>(j, e);
    // A device alpha of zero: reference BLAS's quick return (nothing read or written).
    if (is0(alpha)) return;
    const bool conj = j.flags & F_CONJ, herm = j.flags & F_HERM;
    // A never aliases x or y (the API hands A over as the only mutable operand), so the
    // compiler may issue the vector loads of a group ahead of the group's stores.
    T* __restrict__ a = mat_of<T>(j, e);
    const T* __restrict__ x = vec_of<T>(j, j.x, e, 1);
    const T* __restrict__ y = KIND == K_SYR ? x : vec_of<T>(j, j.y, e, 2);
    const int tr = j.tr, lr = threadIdx.x % tr, lc = threadIdx.x / tr;
    const i64 rows = KIND == K_GER ? j.m : j.n;
    // The stored rows [lo, hi) of column c: all of them for ger, the triangle's for the others.
    auto stored_lo = [&](i64 c) { return KIND != K_GER && lower ? c : (i64)0; };
    auto stored_hi = [&](i64 c) { return KIND != K_GER && !lower ? c + 1 : rows; };
    const i64 r0 = rt * (i64)tr * V + (i64)lr * V;
    // This thread's rows of u = x (and w = y).
    T u[16 / sizeof(T)], w[16 / sizeof(T)];
#pragma unroll
    for (int v = 0; v < V; v++) {
        const i64 i = r0 + v;
        u[v] = i < rows ? x[vidx(j.x, i)] : zero<T>();
        w[v] = (KIND == K_SYR2 && i < rows) ? y[vidx(j.y, i)] : zero<T>();
    }
    const i64 c0 = ct * (i64)j.tc * j.cpl;
    for (int k0 = 0; k0 < j.cpl; k0 += UNROLL) {
        // 1. The group's column values (loads issued together).
        i64 cc[UNROLL];
        bool live[UNROLL];
        T xc[UNROLL], yc[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            cc[k] = c0 + (i64)(k0 + k) * j.tc + lc;
            live[k] = k0 + k < j.cpl && cc[k] < j.n;
            xc[k] = (KIND != K_GER && live[k]) ? x[vidx(j.x, cc[k])] : zero<T>();
            yc[k] = (KIND != K_SYR && live[k]) ? y[vidx(j.y, cc[k])] : xc[k];
        }
        // 2. Coefficients, and whether reference BLAS skips the column.
        bool skip[UNROLL];
        T t1[UNROLL], t2[UNROLL];
        T* col[UNROLL];
        // Interior groups (every column live, not skipped, aligned, holding all of the tile's
        // rows and no Hermitian diagonal) load, update and store without per-column modes
        // (with them between the loads: ger f64 2.69 TB/s, syr2 f64 1.89; without: 2.90,
        // 2.58). The test is the same for the threads of a column lane (a warp when tr = 32).
        const i64 t0 = rt * (i64)tr * V;
        bool interior = true;
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            t2[k] = zero<T>();
            skip[k] = true;
            col[k] = a;
            if (!live[k]) { interior = false; continue; }
            const i64 c = cc[k];
            if (KIND == K_GER) {
                skip[k] = is0(yc[k]);
                t1[k] = mul(alpha, conj ? cj(yc[k]) : yc[k]);
            } else if (KIND == K_SYR) {
                skip[k] = is0(xc[k]);
                t1[k] = mul(alpha, conj ? cj(xc[k]) : xc[k]);
            } else {
                skip[k] = is0(xc[k]) && is0(yc[k]);
                t1[k] = mul(alpha, conj ? cj(yc[k]) : yc[k]);
                const T ax = mul(alpha, xc[k]);
                t2[k] = conj ? cj(ax) : ax;
            }
            col[k] = col_of<T>(j, a, c);
            const i64 lo = stored_lo(c), hi = stored_hi(c);
            interior = interior && !skip[k] && t0 >= lo && t0 + (i64)tr * V <= hi && ((u64)(col[k] + t0) & 15) == 0 &&
                       !(herm && t0 <= c && c < t0 + (i64)tr * V);
        }
        if (interior) {
            Pack<T> pk[UNROLL];
#pragma unroll
            for (int k = 0; k < UNROLL; k++) pk[k].q = __ldcs((const uint4*)(col[k] + r0));
#pragma unroll
            for (int k = 0; k < UNROLL; k++) {
#pragma unroll
                for (int v = 0; v < V; v++) pk[k].e[v] = upd<KIND>(pk[k].e[v], u[v], t1[k], w[v], t2[k]);
                __stcs((uint4*)(col[k] + r0), pk[k].q);
            }
            continue;
        }
        // 3. What this thread touches of each column, and the 16-byte loads.
        // mode: 0 nothing, 1 one 16-byte access, 2 element by element.
        int mode[UNROLL];
        Pack<T> pk[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            mode[k] = 0;
            if (!live[k]) continue;
            const i64 c = cc[k];
            // The column's stored rows, and this thread's part of them.
            const i64 lo = stored_lo(c), hi = stored_hi(c);
            if (max(lo, r0) >= min(hi, r0 + V)) continue;
            const bool diag = herm && r0 <= c && c < r0 + V;
            if (skip[k] && !diag) continue;
            if (!skip[k] && !diag && r0 >= lo && r0 + V <= hi && ((u64)(col[k] + r0) & 15) == 0) {
                mode[k] = 1;
                // Streaming (evict-first): every byte is read once and written once.
                pk[k].q = __ldcs((const uint4*)(col[k] + r0));
            } else {
                mode[k] = 2;
            }
        }
        // 4. Updates and stores.
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            if (mode[k] == 1) {
#pragma unroll
                for (int v = 0; v < V; v++) pk[k].e[v] = upd<KIND>(pk[k].e[v], u[v], t1[k], w[v], t2[k]);
                __stcs((uint4*)(col[k] + r0), pk[k].q);
            } else if (mode[k] == 2) {
                // Element by element: the ends of the stored part, misaligned columns, the
                // Hermitian diagonal.
                const i64 c = cc[k];
                const i64 lo = stored_lo(c), hi = stored_hi(c);
#pragma unroll
                for (int v = 0; v < V; v++) {
                    const i64 i = r0 + v;
                    if (i < lo || i >= hi) continue;
                    if (herm && i == c) {
                        const T d = skip[k] ? zero<T>() : upd<KIND>(zero<T>(), u[v], t1[k], w[v], t2[k]);
                        col[k][i] = real_diag(col[k][i], d);
                    } else if (!skip[k]) {
                        col[k][i] = upd<KIND>(col[k][i], u[v], t1[k], w[v], t2[k]);
                    }
                }
            }
        }
    }
}

// A list batch's addresses into the workspace table (by a kernel, so the call is capturable).
__device__ __forceinline__ void fill(u64 dst, int count, const List& l) {
    pdl_enter();
    for (int i = threadIdx.x; i < count; i += blockDim.x) ((u64*)dst)[i] = l.p[i];
}

#ifdef GPUBLAS_FAMILY_RANKUPD
#define RANK_KERNELS(TAG, T)                                                                   \
    extern "C" __global__ void __launch_bounds__(THREADS) u2_ger_##TAG(RJob j) { rank<T, K_GER>(j); } \
    extern "C" __global__ void __launch_bounds__(THREADS) u2_syr_##TAG(RJob j) { rank<T, K_SYR>(j); } \
    extern "C" __global__ void __launch_bounds__(THREADS) u2_syr2_##TAG(RJob j) { rank<T, K_SYR2>(j); }
RANK_KERNELS(s, float)
RANK_KERNELS(d, double)
RANK_KERNELS(c, float2)
RANK_KERNELS(z, double2)
extern "C" __global__ void __launch_bounds__(THREADS) u2_fill(u64 dst, int count, List l) { fill(dst, count, l); }
#endif
