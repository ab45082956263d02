// Level 3's block operations around the GEMM engine (family GPUBLAS_FAMILY_L3), for float,
// double, float2 (c32) and double2 (c64):
//   expand: a diagonal block's stored triangle into a full n x n block (symmetric, Hermitian,
//           or triangular with zeros, optionally a unit diagonal);
//   tri:    a block's triangle written back: dst = src + beta dst (beta == 0: dst not read),
//           with the diagonal made real for the Hermitian updates;
//   scale:  dst = beta dst on a matrix or a triangle (beta == 0 writes zeros);
//   copy:   dst = src;
//   trinv:  the 32 x 32 diagonal blocks of triangular blocks inverted (trsm, trtri);
//   trsv:   substitution in place on right-hand sides of a triangle of order <= 32 (trsm);
//   trsl:   the same on the left, op N, for a triangle of order <= 128 (the LU's solves);
//   sumk:   dst += the sum of `count` partial products `src.bs` apart, in a fixed order (a
//           product split along k, `exec::cuda::SplitK`).
// One launch covers `count` blocks `bs` elements apart, for `ne` batch entries `es` apart,
// as 32 x 32 tiles in one grid-stride loop. `scalars` turns host or device alpha/beta (real
// or complex) into per-entry slots [alpha, conj(alpha), beta, 1, 0, -1] for the GEMM engine.

typedef long long i64;
typedef unsigned long long u64;

#define THREADS 256
#define TILE 32

struct MatrixBlocks { u64 base; i64 ld; i64 bs; i64 es; };
struct BlockOp {
    MatrixBlocks src; MatrixBlocks dst;
    u64 beta_p;          // device beta (0: use br, bi)
    i64 beta_s;          // its stride between entries, in elements
    double br, bi;
    i64 m, n;
    int count, ne;
    int op;              // 0 expand, 1 tri, 2 scale, 3 copy
    int fill;            // expand: 0 sym, 1 herm, 2 tri, 3 tri with a unit diagonal
    int lower;           // triangle: 1 lower, 0 upper; scale: 2 whole matrix
    int herm;            // tri/scale: make the diagonal real
    int trans;           // trinv/trsv: 0 N, 1 T, 2 C
    int left;            // trsv: 1 op(A) X = alpha B, 0 X op(A) = alpha B
};
struct ScalarSlotsOp {
    u64 slots;           // out: 6 elements per entry
    u64 alpha_p, beta_p; // device scalars (0: host value)
    i64 alpha_s, beta_s; // per-entry strides (0 or 1)
    double ar, ai, br, bi;
    int alpha_real, beta_real; // the device scalar is of the real type
    int ne, pad;
};

__device__ __forceinline__ void pdl_enter() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

template <class T> struct Ar;
template <> struct Ar<float> {
    typedef float R;
    static __device__ __forceinline__ float mk(double r, double) { return (float)r; }
    static __device__ __forceinline__ float cj(float v) { return v; }
    static __device__ __forceinline__ float re(float v) { return v; }
    static __device__ __forceinline__ float mul(float a, float b) { return a * b; }
    static __device__ __forceinline__ float add(float a, float b) { return a + b; }
    static __device__ __forceinline__ bool zero(float v) { return v == 0.f; }
    static __device__ __forceinline__ float sub(float a, float b) { return a - b; }
};
template <> struct Ar<double> {
    typedef double R;
    static __device__ __forceinline__ double mk(double r, double) { return r; }
    static __device__ __forceinline__ double cj(double v) { return v; }
    static __device__ __forceinline__ double re(double v) { return v; }
    static __device__ __forceinline__ double mul(double a, double b) { return a * b; }
    static __device__ __forceinline__ double add(double a, double b) { return a + b; }
    static __device__ __forceinline__ bool zero(double v) { return v == 0.0; }
    static __device__ __forceinline__ double sub(double a, double b) { return a - b; }
};
template <> struct Ar<float2> {
    typedef float R;
    static __device__ __forceinline__ float2 mk(double r, double i) { return make_float2((float)r, (float)i); }
    static __device__ __forceinline__ float2 cj(float2 v) { return make_float2(v.x, -v.y); }
    static __device__ __forceinline__ float2 re(float2 v) { return make_float2(v.x, 0.f); }
    static __device__ __forceinline__ float2 mul(float2 a, float2 b) { return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
    static __device__ __forceinline__ float2 add(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
    static __device__ __forceinline__ bool zero(float2 v) { return v.x == 0.f && v.y == 0.f; }
    static __device__ __forceinline__ float2 sub(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
};
template <> struct Ar<double2> {
    typedef double R;
    static __device__ __forceinline__ double2 mk(double r, double i) { return make_double2(r, i); }
    static __device__ __forceinline__ double2 cj(double2 v) { return make_double2(v.x, -v.y); }
    static __device__ __forceinline__ double2 re(double2 v) { return make_double2(v.x, 0.0); }
    static __device__ __forceinline__ double2 mul(double2 a, double2 b) { return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
    static __device__ __forceinline__ double2 add(double2 a, double2 b) { return make_double2(a.x + b.x, a.y + b.y); }
    static __device__ __forceinline__ bool zero(double2 v) { return v.x == 0.0 && v.y == 0.0; }
    static __device__ __forceinline__ double2 sub(double2 a, double2 b) { return make_double2(a.x - b.x, a.y - b.y); }
};

// A scalar from the device (of T or of T's real type) or the host value.
template <class T>
__device__ __forceinline__ T scalar(u64 p, i64 s, int real, int e, double r, double i) {
    typedef typename Ar<T>::R R;
    if (!p) return Ar<T>::mk(r, i);
    if (real) return Ar<T>::mk((double)((const R*)p)[s * e], 0.0);
    return ((const T*)p)[s * e];
}

template <class T>
__device__ void blocks(const BlockOp& j) {
    pdl_enter();
    const i64 tm = (j.m + TILE - 1) / TILE, tn = (j.n + TILE - 1) / TILE;
    const i64 tiles = tm * tn, total = tiles * j.count * j.ne;
    const int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;  // 32 x 8 threads
    for (i64 t = blockIdx.x; t < total; t += gridDim.x) {
        const i64 tile = t % tiles, rest = t / tiles;
        const i64 b = rest % j.count, e = rest / j.count;
        const i64 r = (tile % tm) * TILE + tx;
        T* dst = (T*)j.dst.base + b * j.dst.bs + e * j.dst.es;
        const T* src = (const T*)j.src.base + b * j.src.bs + e * j.src.es;
        T beta = Ar<T>::mk(0.0, 0.0);
        if (j.op == 1 || j.op == 2) beta = scalar<T>(j.beta_p, j.beta_s, 0, (int)e, j.br, j.bi);
        const bool bz = Ar<T>::zero(beta);
        if (r >= j.m) continue;
        for (int cc = ty; cc < TILE; cc += THREADS / TILE) {
            const i64 c = (tile / tm) * TILE + cc;
            if (c >= j.n) break;
            T* d = dst + r + c * j.dst.ld;
            if (j.op == 0) {
                const bool stored = j.lower ? r >= c : r <= c;
                T v;
                if (r == c) {
                    if (j.fill == 3) v = Ar<T>::mk(1.0, 0.0);
                    else if (j.fill == 1) v = Ar<T>::re(src[r + c * j.src.ld]);
                    else v = src[r + c * j.src.ld];
                } else if (stored) {
                    v = src[r + c * j.src.ld];
                } else if (j.fill >= 2) {
                    v = Ar<T>::mk(0.0, 0.0);
                } else {
                    v = src[c + r * j.src.ld];
                    if (j.fill == 1) v = Ar<T>::cj(v);
                }
                *d = v;
            } else if (j.op == 1) {
                if (j.lower ? r < c : r > c) continue;
                T v = src[r + c * j.src.ld];
                if (!bz) v = Ar<T>::add(v, Ar<T>::mul(beta, *d));
                if (j.herm && r == c) v = Ar<T>::re(v);
                *d = v;
            } else if (j.op == 2) {
                if (j.lower == 1 ? r < c : (j.lower == 0 ? r > c : false)) continue;
                T v = bz ? Ar<T>::mk(0.0, 0.0) : Ar<T>::mul(beta, *d);
                if (j.herm && r == c) v = Ar<T>::re(v);
                *d = v;
            } else {
                *d = src[r + c * j.src.ld];
            }
        }
    }
}

// dst (m x n) += src_0 + src_1 + ... + src_{count-1}, partials bs apart: the sum of a
// product split along k, in a fixed order (the same on every run). One entry.
template <class T>
__device__ void sumk(const BlockOp& j) {
    pdl_enter();
    const i64 tm = (j.m + TILE - 1) / TILE, tiles = tm * ((j.n + TILE - 1) / TILE);
    const int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
    for (i64 t = blockIdx.x; t < tiles; t += gridDim.x) {
        const i64 r = (t % tm) * TILE + tx;
        if (r >= j.m) continue;
        for (int cc = ty; cc < TILE; cc += THREADS / TILE) {
            const i64 c = (t / tm) * TILE + cc;
            if (c >= j.n) break;
            const T* s = (const T*)j.src.base + r + c * j.src.ld;
            T v = s[0];
            for (int p = 1; p < j.count; p++) v = Ar<T>::add(v, s[p * j.src.bs]);
            T* d = (T*)j.dst.base + r + c * j.dst.ld;
            *d = Ar<T>::add(*d, v);
        }
    }
}

template <class T>
__device__ void scalars(const ScalarSlotsOp& j) {
    pdl_enter();
    for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < j.ne; e += gridDim.x * blockDim.x) {
        T a = scalar<T>(j.alpha_p, j.alpha_s, j.alpha_real, e, j.ar, j.ai);
        T b = scalar<T>(j.beta_p, j.beta_s, j.beta_real, e, j.br, j.bi);
        T* s = (T*)j.slots + 6 * (i64)e;
        s[0] = a;
        s[1] = Ar<T>::cj(a);
        s[2] = b;
        s[3] = Ar<T>::mk(1.0, 0.0);
        s[4] = Ar<T>::mk(0.0, 0.0);
        s[5] = Ar<T>::mk(-1.0, 0.0);
    }
}

// Inverts the 32 x 32 diagonal blocks of `count` triangular n x n blocks (one warp per
// diagonal block): lane c computes column c of the inverse by substitution against the block
// held in shared memory, and the block is written whole (zeros in its other triangle). The
// strictly-zero part is written as zeros, never computed, so a zero pivot gives IEEE values
// only where the inverse has entries.
template <class T>
__device__ void trinv(const BlockOp& j) {
    pdl_enter();
    __shared__ T L[TILE][TILE + 1];
    __shared__ Divisor<T> dv[TILE];  // the diagonal's, prepared once per block
    const int c = threadIdx.x;
    const i64 nsub = (j.n + TILE - 1) / TILE, total = nsub * j.count * j.ne;
    const T zero = Ar<T>::mk(0.0, 0.0), one = Ar<T>::mk(1.0, 0.0);
    for (i64 t = blockIdx.x; t < total; t += gridDim.x) {
        const i64 sub = t % nsub, rest = t / nsub;
        const i64 b = rest % j.count, e = rest / j.count;
        const i64 o = sub * TILE;
        const int nn = (int)min((i64)TILE, j.n - o);
        const T* A = (const T*)j.src.base + b * j.src.bs + e * j.src.es + o * (j.src.ld + 1);
        T* D = (T*)j.dst.base + b * j.dst.bs + e * j.dst.es + o * (j.dst.ld + 1);
        __syncwarp();
        // Lane c loads row c (consecutive lanes read consecutive addresses of a column).
        for (int q = 0; q < nn; q++) {
            T v = zero;
            if (c < nn) {
                const bool stored = j.lower ? c >= q : c <= q;
                if (c == q && j.fill) v = one;
                else if (stored) v = A[c + (i64)q * j.src.ld];
            }
            L[c][q] = v;
        }
        __syncwarp();
        if (!j.fill && c < nn) dv[c] = Divisor<T>::of(L[c][c]);
        __syncwarp();
        // Lane c solves column c of the inverse in registers, one unknown after another: each
        // unknown k is s_k / L(k, k), then every later equation drops its term in x_k at once
        // (independent multiply-adds; the old row-by-row sums were a chain of n² / 2).
        T s[TILE];
#pragma unroll
        for (int i = 0; i < TILE; i++) s[i] = (i == c) ? one : zero;
        if (j.lower) {
#pragma unroll
            for (int k = 0; k < TILE; k++) {
                if (k < nn && k >= c) {
                    const T x = j.fill ? s[k] : dv[k].apply(s[k]);
                    s[k] = x;
#pragma unroll
                    for (int i = k + 1; i < TILE; i++) s[i] = Ar<T>::sub(s[i], Ar<T>::mul(L[i][k], x));
                }
            }
        } else {
#pragma unroll
            for (int k = TILE - 1; k >= 0; k--) {
                if (k < nn && k <= c) {
                    const T x = j.fill ? s[k] : dv[k].apply(s[k]);
                    s[k] = x;
#pragma unroll
                    for (int i = 0; i < k; i++) s[i] = Ar<T>::sub(s[i], Ar<T>::mul(L[i][k], x));
                }
            }
        }
        // Through shared memory again, so the stores of each column are consecutive.
        __syncwarp();
#pragma unroll
        for (int i = 0; i < TILE; i++) {
            const bool in = j.lower ? i >= c : i <= c;
            L[i][c] = in ? s[i] : zero;
        }
        __syncwarp();
        if (c < nn)
            for (int q = 0; q < nn; q++) D[c + (i64)q * j.dst.ld] = L[c][q];
    }
}

// Substitution in place on a triangle of order at most 32 (trsm's leaves, and whole small
// systems): one warp per entry and chunk of 32 right-hand sides (columns of B for left, rows
// for right): B = alpha op(A)^-1 B or alpha B op(A)^-1. The coefficients G(i, k) of x_k in
// equation i go to shared memory renumbered in solve order (p(i) = i forward, na - 1 - i
// backward), so lane v solves right-hand side v as a forward substitution on registers: after
// each unknown, the later equations update independently of each other.
template <class T>
__device__ void trsv(const BlockOp& j) {
    pdl_enter();
    __shared__ T G[TILE][TILE + 1];
    __shared__ T X[TILE][TILE + 1];
    __shared__ Divisor<T> dv[TILE];  // the diagonal's (in solve order), prepared once per chunk
    const int lane = threadIdx.x;
    const int na = (int)(j.left ? j.m : j.n);
    const i64 nv = j.left ? j.n : j.m;
    const bool eff_lower = (j.lower != 0) != (j.trans != 0);
    const bool forward = j.left ? eff_lower : !eff_lower;
    // A(r, q) is G(r, q) (op N on the left, op T/C on the right), else G(q, r).
    const bool swap = (j.left != 0) == (j.trans != 0);
    const T zero = Ar<T>::mk(0.0, 0.0);
    const i64 chunks = (nv + TILE - 1) / TILE, total = chunks * j.ne;
    for (i64 t = blockIdx.x; t < total; t += gridDim.x) {
        const i64 ch = t % chunks, e = t / chunks;
        const T* A = (const T*)j.src.base + e * j.src.es;
        T* B = (T*)j.dst.base + e * j.dst.es;
        const T alpha = scalar<T>(j.beta_p, j.beta_s, 0, (int)e, j.br, j.bi);
        const i64 v0 = ch * TILE;
        const int nvc = (int)min((i64)TILE, nv - v0);
        __syncwarp();
        // Loads unrolled so every lane has all its loads in flight at once.
        if (lane < na) {
            const int pl = forward ? lane : na - 1 - lane;
            T av[TILE];
#pragma unroll
            for (int q = 0; q < TILE; q++) {
                const bool use = q < na && (j.lower ? lane >= q : lane <= q) && !(j.fill && lane == q);
                av[q] = use ? A[lane + (i64)q * j.src.ld] : zero;
            }
#pragma unroll
            for (int q = 0; q < TILE; q++) {
                if (q >= na) continue;
                T a = j.trans == 2 ? Ar<T>::cj(av[q]) : av[q];
                const int pq = forward ? q : na - 1 - q;
                if (swap) G[pq][pl] = a;
                else G[pl][pq] = a;
            }
        }
        if (j.left) {
            if (lane < na) {
                const int pl = forward ? lane : na - 1 - lane;
                T bv[TILE];
#pragma unroll
                for (int v = 0; v < TILE; v++) bv[v] = v < nvc ? B[lane + (v0 + v) * j.dst.ld] : zero;
#pragma unroll
                for (int v = 0; v < TILE; v++) X[pl][v] = bv[v];
            }
        } else if (lane < nvc) {
            T bv[TILE];
#pragma unroll
            for (int i = 0; i < TILE; i++) bv[i] = i < na ? B[v0 + lane + (i64)i * j.dst.ld] : zero;
#pragma unroll
            for (int i = 0; i < TILE; i++)
                if (i < na) X[forward ? i : na - 1 - i][lane] = bv[i];
        }
        __syncwarp();
        if (!j.fill && lane < na) dv[lane] = Divisor<T>::of(G[lane][lane]);
        __syncwarp();
        if (lane < nvc) {
            T x[TILE];
#pragma unroll
            for (int ii = 0; ii < TILE; ii++) x[ii] = ii < na ? Ar<T>::mul(alpha, X[ii][lane]) : zero;
#pragma unroll
            for (int ii = 0; ii < TILE; ii++) {
                if (ii < na) {
                    if (!j.fill) x[ii] = dv[ii].apply(x[ii]);
#pragma unroll
                    for (int jj = ii + 1; jj < TILE; jj++)
                        if (jj < na) x[jj] = Ar<T>::sub(x[jj], Ar<T>::mul(G[jj][ii], x[ii]));
                }
            }
#pragma unroll
            for (int ii = 0; ii < TILE; ii++)
                if (ii < na) X[ii][lane] = x[ii];
        }
        __syncwarp();
        if (j.left) {
            if (lane < na) {
                const int pl = forward ? lane : na - 1 - lane;
                for (int v = 0; v < nvc; v++) B[lane + (v0 + v) * j.dst.ld] = X[pl][v];
            }
        } else if (lane < nvc) {
            for (int i = 0; i < na; i++) B[v0 + lane + (i64)i * j.dst.ld] = X[forward ? i : na - 1 - i][lane];
        }
    }
}

// A value of T from lane `src` of the warp (complex: both parts).
template <class T> __device__ __forceinline__ T lane_value(T v, int src) { return __shfl_sync(0xffffffffu, v, src); }
template <> __device__ __forceinline__ float2 lane_value(float2 v, int src) {
    return make_float2(__shfl_sync(0xffffffffu, v.x, src), __shfl_sync(0xffffffffu, v.y, src));
}
template <> __device__ __forceinline__ double2 lane_value(double2 v, int src) {
    return make_double2(__shfl_sync(0xffffffffu, v.x, src), __shfl_sync(0xffffffffu, v.y, src));
}

// trsl: substitution in place, A X = alpha B (left side, op N) for a triangle of order up to
// TRSL_TILES * 32, TRSL_WARPS columns of B a block. The block first copies the triangle (in
// solve order: forward for lower, backward for upper; column k's rows k.. packed) and its
// columns of B into shared memory asynchronously, all copies in flight at once, so the solve
// makes no dependent trips to memory (beside a large product those cost microseconds each).
// Then per tile of 32 rows: each warp solves its column's diagonal tile (a lane per row: one
// shuffle and one multiply-add per row on the chain), and the warps share the updates of the
// tiles below (a tile and a column each). With a warp solving whole columns alone, a warp ran
// 12,000 instructions at 6 cycles each: 40 µs for order 128, more than the inversion it
// replaces. This replaces inversion, product and copy for the LU's solves, which are launch-
// and latency-bound.
#define TRSL_TILES 4
#define TRSL_WARPS 8

// Asynchronous copy of one element of N bytes from global to shared memory (sm_80+): the
// copies of a block are all in flight until `copies_done`.
template <int N> __device__ __forceinline__ void copy_async(void* dst, const void* src) {
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(s), "l"(src), "n"(N) : "memory");
}
__device__ __forceinline__ void copies_done() { asm volatile("cp.async.wait_all;" ::: "memory"); }

template <class T>
__device__ void trsl(const BlockOp& j) {
    pdl_enter();
    constexpr int BC = TRSL_WARPS;        // columns of B per block
    constexpr int XS = TRSL_TILES * 32 + 1;  // column c's row p at X[c * XS + p]
    __shared__ T X[BC * XS];
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* L = (T*)smem_raw;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int na = (int)j.m;
    const i64 nv = j.n;
    const bool lower = j.lower != 0, unit = j.fill != 0;
    const int nt = (na + 31) / 32;
    const T zero = Ar<T>::mk(0.0, 0.0);
    const i64 groups = (nv + BC - 1) / BC, total = groups * j.ne;
    const i64 lda = j.src.ld, ldb = j.dst.ld;
    // Row (column) of A of solve-order index p; column k's packed start less k.
    auto at = [&](int p) { return lower ? p : na - 1 - p; };
    auto col = [&](int k) { return k * na - k * (k + 1) / 2; };
    for (i64 g = blockIdx.x; g < total; g += gridDim.x) {
        const i64 e = g / groups, c0 = (g % groups) * BC;
        const T* A = (const T*)j.src.base + e * j.src.es;
        T* B = (T*)j.dst.base + e * j.dst.es;
        const T alpha = scalar<T>(j.beta_p, j.beta_s, 0, (int)e, j.br, j.bi);
        const bool mine = c0 + warp < nv;  // this warp's column exists
        __syncthreads();  // the previous entry's triangle is no longer read
        // The block's columns of B and column k's rows k .. na - 1 of the triangle (the
        // diagonal only where it is used), copied asynchronously: one trip to memory.
#pragma unroll
        for (int t = 0; t < TRSL_TILES; t++) {
            const int p = 32 * t + lane;
            if (mine && p < na) copy_async<sizeof(T)>(&X[warp * XS + p], &B[at(p) + (c0 + warp) * ldb]);
            else X[warp * XS + p] = zero;
        }
        for (int k = warp; k < na; k += TRSL_WARPS) {
            const T* a = A + (i64)at(k) * lda;
            for (int p = k + (unit ? 1 : 0) + lane; p < na; p += 32) copy_async<sizeof(T)>(&L[col(k) + p], &a[at(p)]);
        }
        copies_done();
        __syncthreads();
        if (mine) {
#pragma unroll
            for (int t = 0; t < TRSL_TILES; t++) {
                const int p = 32 * t + lane;
                if (p < na) X[warp * XS + p] = Ar<T>::mul(alpha, X[warp * XS + p]);
            }
        }
        for (int t = 0; t < nt; t++) {
            {
                // The diagonal tile of this warp's column: rows after k take row k's value.
                const int p = 32 * t + lane;
                const bool row = p < na;
                T x = X[warp * XS + p];
                const Divisor<T> dv = Divisor<T>::of(unit || !row ? Ar<T>::mk(1.0, 0.0) : L[col(p) + p]);
#pragma unroll 4
                for (int kk = 0; kk < 32; kk++) {
                    const int k = 32 * t + kk;
                    const T l = (row && lane > kk) ? L[col(k) + p] : zero;
                    if (!unit && lane == kk) x = dv.apply(x);
                    const T xk = lane_value(x, kk);
                    if (lane > kk) x = Ar<T>::sub(x, Ar<T>::mul(l, xk));
                }
                X[warp * XS + p] = x;
            }
            __syncthreads();
            // The tiles below with the solved tile: a (tile, column) pair per warp at a time.
            const int pairs = (nt - 1 - t) * BC;
            for (int q = warp; q < pairs; q += TRSL_WARPS) {
                const int c = q % BC, p2 = 32 * (t + 1 + q / BC) + lane;
                const T* xc = X + c * XS;
                T y = xc[p2];
                if (p2 < na) {
#pragma unroll 8
                    for (int kk = 0; kk < 32; kk++) {
                        const int k = 32 * t + kk;
                        y = Ar<T>::sub(y, Ar<T>::mul(L[col(k) + p2], xc[k]));
                    }
                }
                X[c * XS + p2] = y;
            }
            __syncthreads();
        }
#pragma unroll
        for (int t = 0; t < TRSL_TILES; t++) {
            const int p = 32 * t + lane;
            if (mine && t < nt && p < na) B[at(p) + (c0 + warp) * ldb] = X[warp * XS + p];
        }
    }
}

#ifdef GPUBLAS_FAMILY_L3
#define L3_KERNELS(TAG, T) \
    extern "C" __global__ void __launch_bounds__(THREADS) b3_blocks_##TAG(BlockOp j) { blocks<T>(j); } \
    extern "C" __global__ void __launch_bounds__(THREADS) b3_scalars_##TAG(ScalarSlotsOp j) { scalars<T>(j); } \
    extern "C" __global__ void __launch_bounds__(THREADS) b3_sumk_##TAG(BlockOp j) { sumk<T>(j); } \
    extern "C" __global__ void __launch_bounds__(TILE) b3_trinv_##TAG(BlockOp j) { trinv<T>(j); } \
    extern "C" __global__ void __launch_bounds__(TILE) b3_trsv_##TAG(BlockOp j) { trsv<T>(j); } \
    extern "C" __global__ void __launch_bounds__(TRSL_WARPS * 32) b3_trsl_##TAG(BlockOp j) { trsl<T>(j); }
L3_KERNELS(s, float)
L3_KERNELS(d, double)
L3_KERNELS(c, float2)
L3_KERNELS(z, double2)
#endif
