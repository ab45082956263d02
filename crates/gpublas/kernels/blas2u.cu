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
// bytes of each column, then updates and stores them. A column lane's coefficients live one
// per thread (its tr threads hold those of tr of its columns; a group takes them by warp
// shuffles, and one ballot marks the skipped or absent columns), so no thread keeps UNROLL
// coefficient pairs or column indices live: with the fewer registers 3-4 blocks fit per SM
// (H200 against cuBLAS: syr2 f64 16384 0.86 -> 1.01x, her2 c64 8192 0.72 -> 0.95x, ger f64
// 0.93 -> 1.06x; scripts/blas2-harness/updbench.cu). alpha, the thread's rows of u/w and the
// coefficients load together, before the zero-alpha test (one latency before the first load
// of A). A tile whose columns hold all its rows, aligned, off the triangle's diagonal takes
// the interior path; the rest (misaligned or cut chunks, a Hermitian diagonal, skipped
// columns, a packed triangle of one row tile) goes one column at a time, element by element
// where it must. Packed triangles of more than one row tile have kernels of their own
// (rank_packed, below), whose pieces follow each column's alignment. A triangle
// with more than one row tile uses square tiles (tc * cpl = RB) numbered over the stored triangle
// only, so no block is launched for the other half. Reference BLAS skips a column whose coefficient
// is zero (nothing read or written there) except that her* still makes its diagonal real: the
// kernels do the same.

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
    int group, pad;           // consecutive tiles per block of the c64 kernels (>= 1)
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
// The column coefficients reference BLAS forms from alpha and the column's x_c and y_c: t1 =
// alpha y_c (ger, syr2) or alpha x_c (syr), t2 = alpha x_c (syr2), conjugated for gerc/her/her2.
// Returns whether reference BLAS skips the column (its coefficients' sources are zero).
template <class T, int KIND>
__device__ __forceinline__ bool column_coefs(T alpha, T xs, T ys, bool conj, T& t1, T& t2) {
    t2 = zero<T>();
    if (KIND == K_GER) {
        t1 = mul(alpha, conj ? cj(ys) : ys);
        return is0(ys);
    }
    if (KIND == K_SYR) {
        t1 = mul(alpha, conj ? cj(xs) : xs);
        return is0(xs);
    }
    t1 = mul(alpha, conj ? cj(ys) : ys);
    const T ax = mul(alpha, xs);
    t2 = conj ? cj(ax) : ax;
    return is0(xs) && is0(ys);
}

__device__ __forceinline__ float shfl(float v, int s) { return __shfl_sync(0xffffffffu, v, s); }
__device__ __forceinline__ double shfl(double v, int s) { return __shfl_sync(0xffffffffu, v, s); }
__device__ __forceinline__ float2 shfl(float2 v, int s) { return make_float2(shfl(v.x, s), shfl(v.y, s)); }
__device__ __forceinline__ double2 shfl(double2 v, int s) { return make_double2(shfl(v.x, s), shfl(v.y, s)); }

// The tile of block index b (blockIdx.x, or one of a c64 block's j.group tiles).
template <class T, int KIND>
__device__ __forceinline__ void rank(const RJob& j, const i64 b) {
    const int V = 16 / sizeof(T);
    constexpr int U = UNROLL;
    static_assert(U >= 1 && U <= 16 && (U & (U - 1)) == 0, "UNROLL: a power of two up to 16");
    const bool lower = j.flags & F_LOWER;
    const bool conj = j.flags & F_CONJ, herm = j.flags & F_HERM;
    const i64 tiles = j.tri ? (i64)j.rowtiles * (j.rowtiles + 1) / 2 : (i64)j.rowtiles * j.coltiles;
    const int tr = j.tr, lr = threadIdx.x % tr, lc = threadIdx.x / tr;
    // tr is a power of two up to 32, so a column lane's threads are tr consecutive lanes of a
    // warp starting at lane0; a group of gw columns never crosses a round of tr columns.
    const int lane0 = (threadIdx.x & 31) - lr;
    const int gw = min(U, tr);
    const i64 rows = KIND == K_GER ? j.m : j.n;
    const i64 rb = (i64)tr * V;
    auto stored_lo = [&](i64 c) { return KIND != K_GER && lower ? c : (i64)0; };
    auto stored_hi = [&](i64 c) { return KIND != K_GER && !lower ? c + 1 : rows; };
    {
        const int e = (int)(b / tiles);
        const i64 t = b % tiles;
        i64 rt, ct;
        if (j.tri) {
            // t = q (q + 1) / 2 + r with 0 <= r <= q: upper tiles (r, q), full lower tiles
            // (T - r, T - q) with T = rowtiles - 1: consecutive tiles are the row tiles of one
            // column tile, the blocks running together reading down the same columns (the full
            // lower triangle by row tiles, (q, r), was 7-10 % slower than the upper: H200,
            // updbench dsyr/zher2 16384; bench syr f64 L 1.03 -> 1.19x). Packed triangles of more
            // than one row tile take rank_packed, so a packed one here has the single tile (0, 0).
            i64 q = (i64)((sqrt(8.0 * (double)t + 1.0) - 1.0) * 0.5);
            while (q * (q + 1) / 2 > t) q--;
            while ((q + 1) * (q + 2) / 2 <= t) q++;
            const i64 r = t - q * (q + 1) / 2;
            const i64 last = j.rowtiles - 1;
            if (!lower) {
                rt = r;
                ct = q;
            } else {
                rt = last - r;
                ct = last - q;
            }
        } else {
            // Row tiles vary fastest: the blocks running together share their columns.
            rt = t % j.rowtiles;
            ct = t / j.rowtiles;
        }
        const T alpha = alpha_of<T>(j, e);
        // A never aliases x or y (the API hands A over as the only mutable operand).
        T* __restrict__ a = mat_of<T>(j, e);
        const T* __restrict__ x = vec_of<T>(j, j.x, e, 1);
        const T* __restrict__ y = KIND == K_SYR ? x : vec_of<T>(j, j.y, e, 2);
        const i64 t0 = rt * rb;
        const i64 r0 = t0 + (i64)lr * V;
        // This thread's rows of u = x (and w = y), loaded with alpha and the coefficients.
        T u[16 / sizeof(T)], w[16 / sizeof(T)];
#pragma unroll
        for (int v = 0; v < V; v++) {
            const i64 i = r0 + v;
            u[v] = i < rows ? x[vidx(j.x, i)] : zero<T>();
            w[v] = (KIND == K_SYR2 && i < rows) ? y[vidx(j.y, i)] : zero<T>();
        }
        const i64 c0 = ct * (i64)j.tc * j.cpl;
        // The whole tile is interior: every column holds all of its rows (a full tile of a
        // general matrix, or a tile off the triangle's diagonal, so no Hermitian diagonal
        // either) and every column's chunks are 16-byte aligned.
        const bool clean = t0 + rb <= rows && (KIND == K_GER || (j.tri && rt != ct)) && !(j.flags & F_PACKED) &&
                           ((u64)(a + t0) & 15) == 0 && ((j.lda * (i64)sizeof(T)) & 15) == 0;
        for (int kr = 0; kr < j.cpl; kr += tr) {
            // Round of tr columns per lane: this thread holds column kr + lr of its lane.
            const int ks = kr + lr;
            const i64 cs = c0 + (i64)ks * j.tc + lc;
            const bool ls = ks < j.cpl && cs < j.n;
            const T xs = (KIND != K_GER && ls) ? x[vidx(j.x, cs)] : zero<T>();
            const T ys = (KIND != K_SYR && ls) ? y[vidx(j.y, cs)] : xs;
            // A zero alpha: reference BLAS's quick return (nothing read or written). The test
            // comes after the loads above so that they share one latency with alpha's.
            if (is0(alpha)) break;
            T t1s, t2s;
            const bool sk = column_coefs<T, KIND>(alpha, xs, ys, conj, t1s, t2s);
            // Bit l: lane l's column is skipped by reference BLAS or does not exist.
            const unsigned skipm = __ballot_sync(0xffffffffu, sk || !ls);
            const int kend = min(kr + tr, j.cpl);
            for (int k0 = kr; k0 < kend; k0 += gw) {
                const int src = lane0 + (k0 - kr);  // the lane holding column k0 of this lane
                const bool none_skipped = ((skipm >> src) & ((1u << gw) - 1)) == 0;
                if (__all_sync(0xffffffffu, clean && none_skipped)) {
                    // Interior group: load, update, store; nothing per column but the data.
                    const i64 step = (i64)j.tc * j.lda;
                    T* p = a + (c0 + (i64)k0 * j.tc + lc) * j.lda + r0;
                    Pack<T> pk[U];
#pragma unroll
                    for (int k = 0; k < U; k++)
                        if (k < gw) pk[k].q = __ldcs((const uint4*)(p + k * step));
#pragma unroll
                    for (int k = 0; k < U; k++) {
                        if (k >= gw) break;
                        const T c1 = shfl(t1s, src + k);
                        const T c2 = KIND == K_SYR2 ? shfl(t2s, src + k) : zero<T>();
#pragma unroll
                        for (int v = 0; v < V; v++) pk[k].e[v] = upd<KIND>(pk[k].e[v], u[v], c1, w[v], c2);
                        __stcs((uint4*)(p + k * step), pk[k].q);
                    }
                    continue;
                }
                // Edge group, one column at a time: the ends of the stored part, misaligned
                // columns, the Hermitian diagonal, skipped columns (rare: every tile but those on
                // the diagonal or the matrix's edges is interior).
#pragma unroll 1
                for (int k = 0; k < gw; k++) {
                    const T c1 = shfl(t1s, src + k);
                    const T c2 = KIND == K_SYR2 ? shfl(t2s, src + k) : zero<T>();
                    const i64 c = c0 + (i64)(k0 + k) * j.tc + lc;
                    if (k0 + k >= j.cpl || c >= j.n) continue;
                    const bool skip = (skipm >> (src + k)) & 1;
                    const i64 lo = stored_lo(c), hi = stored_hi(c);
                    if (max(lo, r0) >= min(hi, r0 + V)) continue;
                    const bool diag = herm && r0 <= c && c < r0 + V;
                    if (skip && !diag) continue;
                    T* col = col_of<T>(j, a, c);
                    if (!skip && !diag && r0 >= lo && r0 + V <= hi && ((u64)(col + r0) & 15) == 0) {
                        Pack<T> pk;
                        pk.q = __ldcs((const uint4*)(col + r0));
#pragma unroll
                        for (int v = 0; v < V; v++) pk.e[v] = upd<KIND>(pk.e[v], u[v], c1, w[v], c2);
                        __stcs((uint4*)(col + r0), pk.q);
                        continue;
                    }
#pragma unroll
                    for (int v = 0; v < V; v++) {
                        const i64 i = r0 + v;
                        if (i < lo || i >= hi) continue;
                        if (herm && i == c) {
                            const T d = skip ? zero<T>() : upd<KIND>(zero<T>(), u[v], c1, w[v], c2);
                            col[i] = real_diag(col[i], d);
                        } else if (!skip) {
                            col[i] = upd<KIND>(col[i], u[v], c1, w[v], c2);
                        }
                    }
                }
            }
        }
    }
}

// ---- packed triangles of more than one row tile ------------------------------------------
// A packed column starts at any element, so a tile's 16-byte pieces of it are not those of its
// rows: the rows of column c that tile (rt, ct) updates are shifted up by the column's
// misalignment m (elements between the aligned piece and row t0): [t0 - m, t0 + rb - m). Every
// tile of the column shifts by the same m, so the tiles still cover its stored rows once; the
// first row tile starts at the first row and the last tile of the column (the lower triangle's
// last row tile, the upper triangle's diagonal tile) ends at its last stored row, at most m rows
// past its shifted range (one more piece, lane 31's). A thread updates the aligned piece holding
// its first row r0 (rows r0 - m .. r0 - m + V - 1) with its rows of u shifted by m: the m rows
// above r0 are the previous lane's (lane 0: read from x). Interior groups (U columns whose
// shifted ranges lie inside their stored parts) load U pieces, then update and store them: the
// path of full storage, with each column's address and shift. The element path,
// one column at a time, takes the rest: partial pieces at a column's ends, a Hermitian diagonal,
// skipped columns, a base address that is not element-aligned. (Before, every packed piece went
// one column at a time, three quarters of f32's element by element: spr f32 16384 at 1.77 TB/s
// against syr's 3.78 on the H200.) Square tiles, tr = 32: a warp holds one column lane, so a
// column's shift is the same for the whole warp.
template <class T> __device__ __forceinline__ int packed_shift(const T* p) {
    const unsigned mis = (unsigned)((u64)p & 15);
    return mis % sizeof(T) ? -1 : (int)(mis / sizeof(T));
}
// o[v] = row r0 - m + v of u: u[v - m], or the previous lane's pu[V - m + v].
template <class T, int V> __device__ __forceinline__ void shifted(const T (&u)[V], const T (&pu)[V], int m, T (&o)[V]) {
#pragma unroll
    for (int v = 0; v < V; v++) {
        T r = u[v];
#pragma unroll
        for (int s = 1; s < V; s++)
            if (m == s) r = v >= s ? u[v - s] : pu[V - s + v];
        o[v] = r;
    }
}

// o[v] = row r0 + V - m + v of u for v < m: u[V - m + v] (lane 31's rows past the range).
template <class T, int V> __device__ __forceinline__ void tail_rows(const T (&u)[V], int m, T (&o)[V]) {
#pragma unroll
    for (int v = 0; v < V; v++) {
        T r = zero<T>();
#pragma unroll
        for (int s = 1; s < V; s++)
            if (m == s && v < s) r = u[V - s + v];
        o[v] = r;
    }
}

template <class T, int KIND>
__device__ __forceinline__ void rank_packed(const RJob& j, const i64 b) {
    constexpr int V = 16 / sizeof(T);
    constexpr int U = UNROLL;
    const bool lower = j.flags & F_LOWER;
    const bool conj = j.flags & F_CONJ, herm = j.flags & F_HERM;
    const i64 tiles = (i64)j.rowtiles * (j.rowtiles + 1) / 2;
    const int lr = threadIdx.x & 31, lc = threadIdx.x >> 5;  // tr = 32: a warp per column lane
    const int tc = j.tc;
    const i64 n = j.n;
    const i64 rb = 32 * V;
    const int e = (int)(b / tiles);
    const i64 t = b % tiles;
    // t = q (q + 1) / 2 + r, 0 <= r <= q: upper tile (r, q), lower (q, r), as in rank().
    i64 q = (i64)((sqrt(8.0 * (double)t + 1.0) - 1.0) * 0.5);
    while (q * (q + 1) / 2 > t) q--;
    while ((q + 1) * (q + 2) / 2 <= t) q++;
    const i64 r = t - q * (q + 1) / 2;
    const i64 rt = lower ? q : r, ct = lower ? r : q;
    const i64 last = j.rowtiles - 1;
    const T alpha = alpha_of<T>(j, e);
    T* __restrict__ a = mat_of<T>(j, e);
    const T* __restrict__ x = vec_of<T>(j, j.x, e, 1);
    const T* __restrict__ y = KIND == K_SYR ? x : vec_of<T>(j, j.y, e, 2);
    const i64 t0 = rt * rb;
    const i64 r0 = t0 + (i64)lr * V;
    // Rows r0 .. r0 + V of u = x (and w = y); pu, pw: rows r0 - V .. r0 (lane 0 reads them).
    T u[V], w[V], pu[V], pw[V];
#pragma unroll
    for (int v = 0; v < V; v++) {
        const i64 i = r0 + v, ip = r0 - V + v;
        u[v] = i < n ? x[vidx(j.x, i)] : zero<T>();
        w[v] = (KIND == K_SYR2 && i < n) ? y[vidx(j.y, i)] : zero<T>();
        pu[v] = (lr == 0 && ip >= 0) ? x[vidx(j.x, ip)] : zero<T>();
        pw[v] = (KIND == K_SYR2 && lr == 0 && ip >= 0) ? y[vidx(j.y, ip)] : zero<T>();
    }
#pragma unroll
    for (int v = 0; v < V; v++) {
        const T su = shfl(u[v], (lr + 31) & 31), sw = shfl(w[v], (lr + 31) & 31);
        if (lr > 0) {
            pu[v] = su;
            pw[v] = sw;
        }
    }
    const i64 c0 = ct * (i64)tc * j.cpl;
    // Tiles whose shifted ranges lie inside every column's stored rows: all but the first and
    // last row tiles, the diagonal tile and (lower) the one below it, whose range can start
    // above the column's diagonal.
    const bool inner = lower ? (rt >= ct + 2 && rt < last) : (rt >= 1 && rt < ct);
    // The lane's columns c0 + k tc + lc, k < cpl (<= 16 < 32): lane k holds column k's coefficients.
    const int ks = lr;
    const i64 cs = c0 + (i64)ks * tc + lc;
    const bool ls = ks < j.cpl && cs < n;
    const T xs = ls ? x[vidx(j.x, cs)] : zero<T>();
    const T ys = (KIND != K_SYR && ls) ? y[vidx(j.y, cs)] : xs;
    if (is0(alpha)) return;
    T t1s, t2s;
    const bool sk = column_coefs<T, KIND>(alpha, xs, ys, conj, t1s, t2s);
    const unsigned skipm = __ballot_sync(0xffffffffu, sk || !ls);
    for (int k0 = 0; k0 < j.cpl; k0 += U) {
        const bool none_skipped = ((skipm >> k0) & ((1u << U) - 1)) == 0;
        if (inner && none_skipped) {
            T* p[U];
            int m[U];
            bool fast = true;
#pragma unroll
            for (int k = 0; k < U; k++) {
                T* col = col_of<T>(j, a, c0 + (i64)(k0 + k) * tc + lc);
                m[k] = packed_shift(col + t0);
                fast = fast && m[k] >= 0;
                p[k] = col + r0 - max(m[k], 0);
            }
            if (fast) {
                Pack<T> pk[U];
#pragma unroll
                for (int k = 0; k < U; k++) pk[k].q = __ldcs((const uint4*)p[k]);
#pragma unroll
                for (int k = 0; k < U; k++) {
                    const T c1 = shfl(t1s, k0 + k);
                    const T c2 = KIND == K_SYR2 ? shfl(t2s, k0 + k) : zero<T>();
                    T us[V], ws[V];
                    shifted(u, pu, m[k], us);
                    shifted(w, pw, m[k], ws);
#pragma unroll
                    for (int v = 0; v < V; v++) pk[k].e[v] = upd<KIND>(pk[k].e[v], us[v], c1, ws[v], c2);
                    __stcs((uint4*)p[k], pk[k].q);
                }
                continue;
            }
        }
        // One column at a time.
#pragma unroll 1
        for (int k = 0; k < U; k++) {
            const T c1 = shfl(t1s, k0 + k);
            const T c2 = KIND == K_SYR2 ? shfl(t2s, k0 + k) : zero<T>();
            const i64 c = c0 + (i64)(k0 + k) * tc + lc;
            if (k0 + k >= j.cpl || c >= n) continue;
            const bool skip = (skipm >> (k0 + k)) & 1;
            T* col = col_of<T>(j, a, c);
            const int ms = packed_shift(col + t0);
            const int mk = max(ms, 0);  // not element-aligned: unshifted, element by element
            // This tile's rows of column c: [start, end).
            const i64 lo = lower ? c : 0, hi = lower ? n : c + 1;
            const i64 start = max(rt == 0 ? (i64)0 : t0 - mk, lo);
            const i64 end = min((rt == last || (!lower && rt == ct)) ? n : t0 + rb - mk, hi);
            if (start >= end) continue;
            const i64 p0 = r0 - mk;  // the piece's first row
            const bool dg = herm && p0 <= c && c < p0 + V;
            // A skipped column is left alone, except that her* makes its diagonal real: only the
            // tile holding row c writes then.
            if (skip && !(herm && start <= c && c < end)) continue;
            T us[V], ws[V];
            shifted(u, pu, mk, us);
            shifted(w, pw, mk, ws);
            auto elem = [&](i64 i, T uu, T ww) {
                if (herm && i == c) {
                    const T d = skip ? zero<T>() : upd<KIND>(zero<T>(), uu, c1, ww, c2);
                    col[i] = real_diag(col[i], d);
                } else if (!skip) {
                    col[i] = upd<KIND>(col[i], uu, c1, ww, c2);
                }
            };
            if (ms >= 0 && !skip && !dg && p0 >= start && p0 + V <= end) {
                Pack<T> pk;
                pk.q = __ldcs((const uint4*)(col + p0));
#pragma unroll
                for (int v = 0; v < V; v++) pk.e[v] = upd<KIND>(pk.e[v], us[v], c1, ws[v], c2);
                __stcs((uint4*)(col + p0), pk.q);
            } else {
#pragma unroll
                for (int v = 0; v < V; v++) {
                    const i64 i = p0 + v;
                    if (i >= start && i < end) elem(i, us[v], ws[v]);
                }
            }
            // The rows past the shifted range (the column's last tile): lane 31's own rows
            // r0 + V - m .. r0 + V - 1.
            if (lr == 31 && end > t0 + rb - mk) {
                tail_rows(u, mk, us);
                tail_rows(w, mk, ws);
#pragma unroll
                for (int v = 0; v < V; v++) {
                    const i64 i = t0 + rb - mk + v;
                    if (v < mk && i >= start && i < end) elem(i, us[v], ws[v]);
                }
            }
        }
    }
}

template <class T, int KIND> __device__ __forceinline__ void rank_packed_one(const RJob& j) {
    pdl_enter();
    rank_packed<T, KIND>(j, blockIdx.x);
}
template <class T, int KIND> __device__ __forceinline__ void rank_packed_group(const RJob& j) {
    pdl_enter();
    const i64 tiles = (i64)j.rowtiles * (j.rowtiles + 1) / 2;
    const i64 end = min(((i64)blockIdx.x + 1) * j.group, tiles * j.nent);
#pragma unroll 1
    for (i64 b = (i64)blockIdx.x * j.group; b < end; b++) rank_packed<T, KIND>(j, b);
}

// A list batch's addresses into the workspace table (by a kernel, so the call is capturable).
__device__ __forceinline__ void fill(u64 dst, int count, const List& l) {
    pdl_enter();
    for (int i = threadIdx.x; i < count; i += blockDim.x) ((u64*)dst)[i] = l.p[i];
}

// One tile per block.
template <class T, int KIND> __device__ __forceinline__ void rank_one(const RJob& j) {
    pdl_enter();
    rank<T, KIND>(j, blockIdx.x);
}
// j.group consecutive tiles per block (row tiles of one column tile): c64's
// 32 x 32 triangle tiles are 16 KB, too little work for a block alone. (The other types keep
// one tile a block: the loop costs them registers they do not have at 3-4 blocks per SM.)
template <class T, int KIND> __device__ __forceinline__ void rank_group(const RJob& j) {
    pdl_enter();
    const i64 tiles = j.tri ? (i64)j.rowtiles * (j.rowtiles + 1) / 2 : (i64)j.rowtiles * j.coltiles;
    const i64 end = min(((i64)blockIdx.x + 1) * j.group, tiles * j.nent);
#pragma unroll 1
    for (i64 b = (i64)blockIdx.x * j.group; b < end; b++) rank<T, KIND>(j, b);
}

#ifdef GPUBLAS_FAMILY_RANKUPD
#define RANK_KERNELS(TAG, T, MG, MS, M2, HOW)                                                  \
    extern "C" __global__ void __launch_bounds__(THREADS, MG) u2_ger_##TAG(RJob j) { HOW<T, K_GER>(j); } \
    extern "C" __global__ void __launch_bounds__(THREADS, MS) u2_syr_##TAG(RJob j) { HOW<T, K_SYR>(j); } \
    extern "C" __global__ void __launch_bounds__(THREADS, M2) u2_syr2_##TAG(RJob j) { HOW<T, K_SYR2>(j); }
// Blocks per SM asked of ptxas per kernel (ger, syr, syr2): the most NVRTC 13 compiles without
// spills (4: 64 registers, 3: 80; syr2 f64 at 4 spills on sm_75 and sm_80, and at 3 it was
// within 3 % on the H200).
RANK_KERNELS(s, float, 4, 4, 3, rank_one)
RANK_KERNELS(d, double, 4, 4, 3, rank_one)
RANK_KERNELS(c, float2, 4, 4, 3, rank_one)
RANK_KERNELS(z, double2, 3, 3, 3, rank_group)
// Packed triangles of more than one row tile (rank_packed).
#define PACKED_KERNELS(TAG, T, MS, M2, HOW)                                                     \
    extern "C" __global__ void __launch_bounds__(THREADS, MS) u2_spr_##TAG(RJob j) { HOW<T, K_SYR>(j); } \
    extern "C" __global__ void __launch_bounds__(THREADS, M2) u2_spr2_##TAG(RJob j) { HOW<T, K_SYR2>(j); }
PACKED_KERNELS(s, float, 4, 3, rank_packed_one)
PACKED_KERNELS(d, double, 4, 3, rank_packed_one)
PACKED_KERNELS(c, float2, 4, 3, rank_packed_one)
PACKED_KERNELS(z, double2, 3, 3, rank_packed_group)
extern "C" __global__ void __launch_bounds__(THREADS) u2_fill(u64 dst, int count, List l) { fill(dst, count, l); }
#endif
