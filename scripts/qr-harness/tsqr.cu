// tsqr: tall-skinny Householder QR (dgeqrf: f64, column-major, m >> n) in LAPACK's output format,
// from TSQR plus Householder reconstruction, timed against cusolverDnDgeqrf in the same process.
// Standalone (GPU machine):
//   nvcc -O3 -arch=sm_90 -std=c++17 tsqr.cu -lcusolver -lcublas -o tsqr && ./tsqr
//   ./tsqr quick      # only the small checks
// The kernels (everything above `#ifndef __CUDACC_RTC__`) compile alone with NVRTC.
//
// Literature: G. Ballard, J. Demmel, L. Grigori, M. Jacquelin, H. D. Nguyen, E. Solomonik,
// "Reconstructing Householder vectors from Tall-Skinny QR", IPDPS 2014 / JPDC 85 (2015)
// (TSQR-HR); J. Demmel, L. Grigori, M. Hoemmen, J. Langou, "Communication-optimal parallel and
// sequential QR and LU factorizations", SISC 34 (2012) (TSQR); LAPACK dlarfg / dlarft.
//
// Output: A's upper n x n triangle holds R, below the diagonal the Householder vectors (unit
// leading entry implicit), tau[i]: A = H_1 ... H_n [R; 0], H_i = I - tau_i v_i v_i^T. R's row
// signs differ from LAPACK's (R = S R_tsqr below); any such QR is a valid dgeqrf result.
//
// Design, for a panel of nb <= 64 columns (n <= 64: the whole matrix):
//  1. Leaves (tsqr_factor, one block of 256 threads per tile of MB = 32 * TSQR_RPL rows): the
//     tile lives in registers (lane l holds rows l + 32 r, warp w columns w + 8 q), Householder
//     QR column by column (dlarfg), one __syncthreads a column: the warp owning column j + 1
//     applies reflector j to that column first and builds reflector j + 1 (look-ahead), the
//     other warps apply reflector j to their columns (dot products reduced in the warp by a
//     transpose-reduce of the 8 columns, no block reduction). V goes back in place into A, the
//     tile's R (n x n, zeros below) into a stack B_1 (tiles * nb rows), tau per tile.
//  2. Tree: the stack of R factors is itself a tall matrix; tsqr_factor on B_l (tiles of MB
//     rows = MB / nb stacked triangles, 4 for nb = 64) gives B_{l+1}, until one tile is left.
//     ceil(log_{MB/nb}(tiles)) levels (1,000,000 x 64: 3907 -> 977 -> 245 -> 62 -> 16 -> 4 -> 1,
//     6 levels). Rows of a stacked triangle more than j below its top hold zeros of reflector j
//     and are skipped (TSQR_TRI).
//  3. Top-down (tsqr_apply, in place): each tile of level l computes H_tile [X; 0] (X: n x n from
//     the level above, I at the root); the result's n-row pieces are the X of the tiles below.
//     B_1 ends up holding every leaf's X: the leaf's rows of the explicit Q are H_leaf [X; 0].
//  4. tsqr_lu (one block): leaf 0's top n rows Q1 = (H_leaf0 [X_0; 0])[0:n]; then the LU of
//     Q1 - S with S_ii = -sign of the diagonal entry of the current Schur complement (chosen
//     on the fly, so |U_ii| >= 1: the paper's stable choice), U^-1, T = -U S L^-T (compact WY,
//     diag(T) = tau), tau_i = -U_ii S_ii.
//  5. Final pass (tsqr_apply, final mode): V = [L; Q2 U^-1] without forming Q: a leaf's rows of
//     Q U^-1 are H_leaf [X U^-1; 0], so each leaf multiplies its X by U^-1 (n^3 flops) and applies
//     its reflectors; written in place over the leaf's V. Leaf 0's top n rows become R = S R_root
//     (upper) and L (strict lower).
//  Why it is a QR: with Q S - [I; 0] = V Y (Y = -T V1^T upper), the first n columns of
//  I - V T V^T are Q S, so A = Q R_root = (I - V T V^T)[:, :n] (S R_root) (verified in a NumPy
//  model of exactly these steps, including short last tiles and rank-deficient input).
// n > 64: blocked right-looking QR with the above as the panel factorization (the paper's
//  CAQR-HR): per 64-column panel, the panel's TSQR-HR on its rows p0.., then the trailing matrix
//  C <- (I - V T V^T)^T C = C - V (T^T (V^T C)) (bq_wpart: partial V^T C per TSQR_UPD_RT rows,
//  bq_wsum: their sum times T^T, bq_update: C -= V Z).
//
// Passes over A (n <= 64): leaves read A and write V (2), the final pass reads V and writes the
// result (2): 4 passes, 4 * 512 MB = 2.05 GB at 1,000,000 x 64 -> 0.51 ms at 4 TB/s. The tree
// and the X's add ~1/3 of A for tiles of 256 rows (n / MB * 4/3). The kernels are not
// memory-bound but FP64-FMA bound: leaves m n^2 FMAs, final pass 2 m n^2, tree ~ 1/3 of that
// again: ~4 m n^2 = 16.4 G FMA at 1,000,000 x 64, 0.98 ms at the H200's 16.7 T FMA/s (no
// tensor cores). Launches (n <= 64): 1 + 2 * levels + 2 (15 at 1,000,000 x 64).
//
// Parameters (-D, defaults in brackets):
//   TSQR_RPL [8]        rows a lane: tile rows MB = 32 * RPL (4: 128 rows, 8: 256 rows)
//   TSQR_TRI [1]        skip the known-zero row groups of stacked triangles in the tree
//   TSQR_UPD_RT [512]   rows per partial product of V^T C in the blocked trailing update
//   TSQR_MINB [1; 2 with RPL 4]  __launch_bounds__ min blocks an SM of tsqr_factor and tsqr_apply
//   REPS [11]           timed runs (median)

#ifndef TSQR_RPL
#define TSQR_RPL 8
#endif
#ifndef TSQR_TRI
#define TSQR_TRI 1
#endif
#ifndef TSQR_UPD_RT
#define TSQR_UPD_RT 512
#endif
#ifndef TSQR_MINB
#define TSQR_MINB (TSQR_RPL == 4 ? 2 : 1)  // blocks an SM for tsqr_factor / tsqr_apply (__launch_bounds__)
#endif

namespace tq {
constexpr int RPL = TSQR_RPL;     // rows a lane holds
constexpr int MB = 32 * RPL;      // tile rows
constexpr int NB = 64;            // panel width: columns a tile holds (8 warps x 8)
constexpr int THREADS = 256;
constexpr int LDM = NB + 1;       // leading dimension of n x n matrices in shared memory (tsqr_lu)
constexpr int UPD_RT = TSQR_UPD_RT;
constexpr unsigned FULL = 0xffffffffu;
static_assert(RPL == 4 || RPL == 8, "TSQR_RPL: 4 or 8");
static_assert(MB >= 2 * NB, "a tile must stack at least two triangles");
static_assert(UPD_RT % 32 == 0, "TSQR_UPD_RT: a multiple of 32");
}  // namespace tq

// Tiles of MB rows of P (rows x n, n <= 64) factored in place; tile t's R to R rows n t .. n t + n - 1.
struct FactorArgs {
    double* P;
    long long ldp, rows;
    int n, tri;
    double* tau;  // tau[t * n + j]
    double* R;
    long long ldr;
};

// Tile t: out rows MB t .. = H_tile [X_t (* Uinv); 0], X_t = X rows n t .. (identity if X is null).
// Final mode (Rroot non-null): tile 0's rows < n become [S Rroot (upper) | L (strict lower)].
struct ApplyArgs {
    const double* V;
    long long ldv, rows;
    int n, tri;
    const double* tau;  // tau[t * n + j]
    const double* X;
    long long ldx;
    const double* Uinv;  // n x n, ld NB (final mode)
    double* out;
    long long ldo;
    const double* Rroot;
    long long ldr;
    const double* Lf;   // ld NB
    const double* sgn;  // S's diagonal
};

struct LuArgs {
    ApplyArgs ap;  // tile 0 of the leaves
    double* Lf;    // strict lower L (ld NB)
    double* Uinv;  // U^-1 (ld NB, zeros below)
    double* T;     // T = -U S L^-T (ld NB, zeros below)
    double* sgn;
    double* tau_out;
};

// Blocked trailing update of panel columns p0 .. p0 + nb - 1: V at A(p0, p0), C at A(p0, p0 + nb).
struct UpdArgs {
    const double* V;
    double* C;
    long long ld, rows;  // rows: m - p0
    int nb, nc;          // panel width, trailing columns
    double* Wp;          // partials: part t at Wp + t * 64 * nc (64 x nc, ld 64)
    int nparts;
    const double* T;     // ld NB
    double* Z;           // T^T V^T C (64 x nc, ld 64)
};

extern __shared__ __align__(16) double tq_dsm[];

namespace tq {
// tsqr_lu's shared memory: Vs (MB x n; later U^-1 and L^-1, NB x LDM each), then M (NB x LDM).
__host__ __device__ constexpr int lu_moff(int n) { return MB * n > 2 * NB * LDM ? MB * n : 2 * NB * LDM; }

__device__ __forceinline__ double wsum(double x) {
#pragma unroll
    for (int o = 16; o; o >>= 1) x += __shfl_xor_sync(FULL, x, o);
    return x;
}

// The warp's sums of 8 columns, in every lane: lane partials p[q] -> w[q]. Three transposing
// rounds (each lane keeps half of its values and receives its partner's half: 4 + 2 + 1 double
// shuffles), two plain rounds, then lane 4 q holds column q's sum: 8 more to gather.
__device__ __forceinline__ void wsum8(const double (&p)[8], double (&w)[8], int lane) {
    double a4[4], a2[2];
    const bool b4 = lane & 16, b3 = lane & 8, b2 = lane & 4;
#pragma unroll
    for (int k = 0; k < 4; k++) {
        const double send = b4 ? p[k] : p[k + 4], keep = b4 ? p[k + 4] : p[k];
        a4[k] = keep + __shfl_xor_sync(FULL, send, 16);
    }
#pragma unroll
    for (int k = 0; k < 2; k++) {
        const double send = b3 ? a4[k] : a4[k + 2], keep = b3 ? a4[k + 2] : a4[k];
        a2[k] = keep + __shfl_xor_sync(FULL, send, 8);
    }
    double a1;
    {
        const double send = b2 ? a2[0] : a2[1], keep = b2 ? a2[1] : a2[0];
        a1 = keep + __shfl_xor_sync(FULL, send, 4);
    }
    a1 += __shfl_xor_sync(FULL, a1, 2);
    a1 += __shfl_xor_sync(FULL, a1, 1);
#pragma unroll
    for (int q = 0; q < 8; q++) w[q] = __shfl_sync(FULL, a1, 4 * q);
}

// Row groups r (rows l + 32 r) where reflector j may be nonzero: not wholly above row j, and in
// a stack of triangles of order n (tri) not wholly more than j below their triangle's top.
__device__ __forceinline__ unsigned active_rows(int j, int n, int tri) {
    unsigned m = 0;
#pragma unroll
    for (int r = 0; r < RPL; r++) {
        const bool above = 32 * r + 31 < j;
        const bool below = tri && (32 * r) % n > j;
        if (!above && !below) m |= 1u << r;
    }
    return m;
}

__device__ __forceinline__ void load_tile(double (&a)[RPL][8], const double* P, long long ld, long long rows,
                                          long long row0, int n, int lane, int warp) {
#pragma unroll
    for (int r = 0; r < RPL; r++) {
        const long long i = row0 + lane + 32 * r;
#pragma unroll
        for (int q = 0; q < 8; q++) {
            const int c = warp + 8 * q;
            a[r][q] = (i < rows && c < n) ? P[i + (long long)c * ld] : 0.0;
        }
    }
}

// C <- (I - tau v v^T) C on the warp's columns q >= Q0 (v: the lane's rows in vr).
template <int Q0>
__device__ __forceinline__ void refl_cols(double (&a)[RPL][8], const double (&vr)[RPL], double tau, unsigned act, int lane) {
    double p[8], w[8];
#pragma unroll
    for (int q = 0; q < 8; q++) p[q] = 0.0;
#pragma unroll
    for (int r = 0; r < RPL; r++)
        if (act >> r & 1u)
#pragma unroll
            for (int q = Q0; q < 8; q++) p[q] = __fma_rn(vr[r], a[r][q], p[q]);
    wsum8(p, w, lane);
#pragma unroll
    for (int q = Q0; q < 8; q++) w[q] *= -tau;
#pragma unroll
    for (int r = 0; r < RPL; r++)
        if (act >> r & 1u)
#pragma unroll
            for (int q = Q0; q < 8; q++) a[r][q] = __fma_rn(vr[r], w[q], a[r][q]);
}
template <int Q>
__device__ __forceinline__ void refl_cols_from(int qlo, double (&a)[RPL][8], const double (&vr)[RPL], double tau, unsigned act,
                                               int lane) {
    if constexpr (Q < 8) {
        if (qlo <= Q) refl_cols<Q>(a, vr, tau, act, lane);
        else refl_cols_from<Q + 1>(qlo, a, vr, tau, act, lane);
    }
}

// dlarfg on column j of the tile (col: the lane's rows): col becomes beta at row j and v below;
// v (with its unit entry and zeros above row j) goes to shared memory, tau to *tau_s.
__device__ __forceinline__ void gen_reflector(double (&col)[RPL], int j, int lane, double* v, double* tau_s) {
    const int rj = j >> 5, lj = j & 31;
    double s0 = 0.0, s1 = 0.0, al = 0.0;
#pragma unroll
    for (int r = 0; r < RPL; r++) {
        const int i = lane + 32 * r;
        if (i > j) {
            if (r & 1) s1 = __fma_rn(col[r], col[r], s1);
            else s0 = __fma_rn(col[r], col[r], s0);
        }
        if (r == rj) al = col[r];
    }
    const double ss = wsum(s0 + s1);
    const double alpha = __shfl_sync(FULL, al, lj);
    double beta = alpha, tau = 0.0, scal = 0.0;
    if (ss > 0.0) {
        const double nrm = sqrt(__fma_rn(alpha, alpha, ss));
        beta = alpha >= 0.0 ? -nrm : nrm;
        tau = (beta - alpha) / beta;
        scal = 1.0 / (alpha - beta);
    }
#pragma unroll
    for (int r = 0; r < RPL; r++) {
        const int i = lane + 32 * r;
        double x = col[r];
        if (i > j) x *= scal;
        else if (i == j) x = beta;
        col[r] = x;
        v[i] = i > j ? x : (i == j ? 1.0 : 0.0);
    }
    if (lane == 0) *tau_s = tau;
}

// The owner of column j1 = j + 1 (its q is Q): reflector j on that column, then reflector j1.
template <int Q>
__device__ __forceinline__ void owner_step(double (&a)[RPL][8], const double (&vr)[RPL], double tauj, unsigned act, int j1, int lane,
                                           double* vnext, double* tau_next) {
    double col[RPL];
#pragma unroll
    for (int r = 0; r < RPL; r++) col[r] = a[r][Q];
    if (tauj != 0.0) {
        double s0 = 0.0, s1 = 0.0;
#pragma unroll
        for (int r = 0; r < RPL; r++)
            if (act >> r & 1u) {
                if (r & 1) s1 = __fma_rn(vr[r], col[r], s1);
                else s0 = __fma_rn(vr[r], col[r], s0);
            }
        const double tw = -tauj * wsum(s0 + s1);
#pragma unroll
        for (int r = 0; r < RPL; r++)
            if (act >> r & 1u) col[r] = __fma_rn(vr[r], tw, col[r]);
    }
    gen_reflector(col, j1, lane, vnext, tau_next);
#pragma unroll
    for (int r = 0; r < RPL; r++) a[r][Q] = col[r];
}
template <int Q>
__device__ __forceinline__ void owner_dispatch(int q1, double (&a)[RPL][8], const double (&vr)[RPL], double tauj, unsigned act, int j1,
                                               int lane, double* vnext, double* tau_next) {
    if constexpr (Q < 8) {
        if (q1 == Q) owner_step<Q>(a, vr, tauj, act, j1, lane, vnext, tau_next);
        else owner_dispatch<Q + 1>(q1, a, vr, tauj, act, j1, lane, vnext, tau_next);
    }
}

// The reflector loop of an apply: C <- H_0 H_1 ... H_{n-1} C (H_{n-1} first), V (ld MB, unit
// entries and zeros above included) and tau in shared memory. Warps are independent: no barrier.
__device__ __forceinline__ void apply_reflectors(double (&c)[RPL][8], const double* Vs, const double* taus, int n, int tri, int lane) {
#pragma unroll 1
    for (int j = n - 1; j >= 0; j--) {
        const double tj = taus[j];
        if (tj == 0.0) continue;
        const unsigned act = active_rows(j, n, tri);
        double vr[RPL];
#pragma unroll
        for (int r = 0; r < RPL; r++) vr[r] = (act >> r & 1u) ? Vs[lane + 32 * r + j * MB] : 0.0;
        refl_cols<0>(c, vr, tj, act, lane);
    }
}

// Shared-memory setup and reflector loop of tile t (the part tsqr_apply and tsqr_lu share):
// Vs (MB x n) <- the tile's V with its unit diagonal and zeros above; c <- H [X_t (Uinv); 0].
// Dynamic shared memory: Vs (MB * n), then in final mode Xs and Us (n * n each).
__device__ __forceinline__ void apply_tile(const ApplyArgs& g, int t, double (&c)[RPL][8], double* taus) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, n = g.n;
    double* Vs = tq_dsm;
    const long long row0 = (long long)t * MB;
    for (int e = threadIdx.x; e < MB * n; e += THREADS) {
        const int i = e % MB, k = e / MB;
        const long long gi = row0 + i;
        const double v = gi < g.rows ? g.V[gi + (long long)k * g.ldv] : 0.0;
        Vs[e] = i > k ? v : (i == k ? 1.0 : 0.0);
    }
    if (threadIdx.x < n) taus[threadIdx.x] = g.tau[(long long)t * n + threadIdx.x];
    const bool mul = g.Uinv != nullptr;
    double* Xs = Vs + MB * n;
    double* Us = Xs + n * n;
    if (mul) {
        for (int e = threadIdx.x; e < n * n; e += THREADS) {
            const int i = e % n, k = e / n;
            Xs[e] = g.X ? g.X[(long long)t * n + i + (long long)k * g.ldx] : (i == k ? 1.0 : 0.0);
            Us[e] = g.Uinv[i + k * NB];
        }
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < RPL; r++) {
        const int i = lane + 32 * r;
#pragma unroll
        for (int q = 0; q < 8; q++) {
            const int col = warp + 8 * q;
            double x = 0.0;
            if (i < n && col < n) {
                if (mul) {
                    // (X_t U^-1)(i, col); U^-1 is upper triangular
                    double s0 = 0.0, s1 = 0.0;
                    int k = 0;
                    for (; k + 1 <= col; k += 2) {
                        s0 = __fma_rn(Xs[i + k * n], Us[k + col * n], s0);
                        s1 = __fma_rn(Xs[i + (k + 1) * n], Us[k + 1 + col * n], s1);
                    }
                    if (k <= col) s0 = __fma_rn(Xs[i + k * n], Us[k + col * n], s0);
                    x = s0 + s1;
                } else {
                    x = g.X ? g.X[(long long)t * n + i + (long long)col * g.ldx] : (i == col ? 1.0 : 0.0);
                }
            }
            c[r][q] = x;
        }
    }
    apply_reflectors(c, Vs, taus, n, g.tri, lane);
}
}  // namespace tq

// Householder QR of each tile (V in place, R and tau out).
extern "C" __global__ void __launch_bounds__(tq::THREADS, TSQR_MINB) tsqr_factor(FactorArgs g) {
    using namespace tq;
    __shared__ double vbuf[2][MB];
    __shared__ double taus[NB];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, n = g.n;
    const long long row0 = (long long)blockIdx.x * MB;
    double a[RPL][8];
    load_tile(a, g.P, g.ldp, g.rows, row0, n, lane, warp);
    if (warp == 0) {
        double col[RPL];
#pragma unroll
        for (int r = 0; r < RPL; r++) col[r] = a[r][0];
        gen_reflector(col, 0, lane, vbuf[0], &taus[0]);
#pragma unroll
        for (int r = 0; r < RPL; r++) a[r][0] = col[r];
    }
    __syncthreads();
#pragma unroll 1
    for (int j = 0; j < n; j++) {
        const double tauj = taus[j];
        const double* v = vbuf[j & 1];
        const unsigned act = active_rows(j, n, g.tri);
        double vr[RPL];
#pragma unroll
        for (int r = 0; r < RPL; r++) vr[r] = (act >> r & 1u) ? v[lane + 32 * r] : 0.0;
        const int j1 = j + 1;
        // look-ahead: the owner of column j + 1 finishes it and builds reflector j + 1 first
        if (j1 < n && warp == (j1 & 7)) owner_dispatch<0>(j1 >> 3, a, vr, tauj, act, j1, lane, vbuf[j1 & 1], &taus[j1]);
        if (tauj != 0.0) {
            const int qlo = j1 - warp < 0 ? 0 : (j1 - warp) / 8 + 1;  // first column > j + 1
            refl_cols_from<0>(qlo, a, vr, tauj, act, lane);
        }
        __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < RPL; r++) {
        const int i = lane + 32 * r;
        const long long gi = row0 + i;
#pragma unroll
        for (int q = 0; q < 8; q++) {
            const int c = warp + 8 * q;
            if (c < n) {
                if (gi < g.rows) g.P[gi + (long long)c * g.ldp] = a[r][q];
                if (i < n) g.R[(long long)blockIdx.x * n + i + (long long)c * g.ldr] = i <= c ? a[r][q] : 0.0;
            }
        }
    }
    if (threadIdx.x < n) g.tau[(long long)blockIdx.x * n + threadIdx.x] = taus[threadIdx.x];
}

// Top-down tree step and final pass (see ApplyArgs).
extern "C" __global__ void __launch_bounds__(tq::THREADS, TSQR_MINB) tsqr_apply(ApplyArgs g) {
    using namespace tq;
    __shared__ double taus[NB];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, n = g.n, t = blockIdx.x;
    double c[RPL][8];
    apply_tile(g, t, c, taus);
    const long long row0 = (long long)t * MB;
    const bool fin0 = g.Rroot != nullptr && t == 0;
#pragma unroll
    for (int r = 0; r < RPL; r++) {
        const int i = lane + 32 * r;
        const long long gi = row0 + i;
        if (gi >= g.rows) continue;
#pragma unroll
        for (int q = 0; q < 8; q++) {
            const int col = warp + 8 * q;
            if (col >= n) continue;
            double x = c[r][q];
            if (fin0 && i < n) x = i <= col ? g.sgn[i] * g.Rroot[i + (long long)col * g.ldr] : g.Lf[i + col * NB];
            g.out[gi + (long long)col * g.ldo] = x;
        }
    }
}

// Q1 (top n rows of leaf 0's Q), its LU with on-the-fly signs, U^-1, T, S, tau. One block.
extern "C" __global__ void __launch_bounds__(tq::THREADS, 1) tsqr_lu(LuArgs g) {
    using namespace tq;
    __shared__ double taus[NB];
    __shared__ double sS[NB];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, n = g.ap.n, tid = threadIdx.x;
    double c[RPL][8];
    apply_tile(g.ap, 0, c, taus);
    double* M = tq_dsm + lu_moff(n);  // n x n, ld LDM (after Vs, and after U^-1 and L^-1 below)
#pragma unroll
    for (int r = 0; r < RPL; r++) {
        const int i = lane + 32 * r;
#pragma unroll
        for (int q = 0; q < 8; q++) {
            const int col = warp + 8 * q;
            if (i < n && col < n) M[i + col * LDM] = c[r][q];
        }
    }
    __syncthreads();
    // LU of Q1 - S in place (L strict lower, U upper); step i: every thread reads the pivot
    // entry, picks S_ii = -sign(M_ii) (|U_ii| = |M_ii| + 1 >= 1); the Schur complement is
    // updated with unscaled column entries times 1 / U_ii; column i is scaled into place by
    // the threads that own it (no one else reads it in that step).
    const int cx = tid & 63, ry = tid >> 6;
    for (int i = 0; i < n; i++) {
        const double d = M[i + i * LDM];
        const double s = d >= 0.0 ? -1.0 : 1.0;
        const double piv = d - s, rp = 1.0 / piv;
        if (tid == 0) sS[i] = s;
        double li[16];
#pragma unroll
        for (int u = 0; u < 16; u++) {
            const int k = ry + 4 * u;
            li[u] = (k > i && k < n) ? M[k + i * LDM] * rp : 0.0;
        }
        __syncthreads();
        if (cx > i && cx < n) {
            const double uij = M[i + cx * LDM];
#pragma unroll
            for (int u = 0; u < 16; u++) {
                const int k = ry + 4 * u;
                if (k > i && k < n) M[k + cx * LDM] = __fma_rn(-li[u], uij, M[k + cx * LDM]);
            }
        }
        if (cx == i) {
#pragma unroll
            for (int u = 0; u < 16; u++) {
                const int k = ry + 4 * u;
                if (k > i && k < n) M[k + i * LDM] = li[u];
            }
            if (ry == 0) M[i + i * LDM] = piv;
        }
        __syncthreads();
    }
    // U^-1 and L^-1 by substitution on the identity, all columns at once (Vs is free now).
    double* Ui = tq_dsm;            // n x n, ld LDM
    double* Li = tq_dsm + NB * LDM;
    for (int e = tid; e < n * LDM; e += THREADS) {
        const int i = e % LDM, k = e / LDM;
        Ui[e] = (i == k) ? 1.0 : 0.0;
        Li[e] = (i == k) ? 1.0 : 0.0;
    }
    __syncthreads();
    // U Y = I from the bottom (rows of Y unscaled by 1/U_kk until the end), L Z = I from the top.
    for (int k = 0; k < n; k++) {
        const int ku = n - 1 - k;
        const double rk = 1.0 / M[ku + ku * LDM];
        if (cx < n) {
            const double yk = Ui[ku + cx * LDM], zk = Li[k + cx * LDM];
#pragma unroll
            for (int u = 0; u < 16; u++) {
                const int r = ry + 4 * u;
                if (r < ku) Ui[r + cx * LDM] = __fma_rn(-M[r + ku * LDM] * rk, yk, Ui[r + cx * LDM]);
                if (r > k && r < n) Li[r + cx * LDM] = __fma_rn(-M[r + k * LDM], zk, Li[r + cx * LDM]);
            }
        }
        __syncthreads();
    }
    for (int e = tid; e < NB * NB; e += THREADS) {
        const int i = e % NB, k = e / NB;
        double ui = 0.0, lf = 0.0, tt = 0.0;
        if (i < n && k < n) {
            if (i <= k) ui = Ui[i + k * LDM] / M[i + i * LDM];
            if (i > k) lf = M[i + k * LDM];
            if (i <= k) {
                // T(i, k) = -sum_{p = i..k} U(i, p) S_p Linv(k, p)
                double s = 0.0;
                for (int p = i; p <= k; p++) s = __fma_rn(M[i + p * LDM] * sS[p], Li[k + p * LDM], s);
                tt = -s;
            }
        }
        g.Uinv[e] = ui;
        g.Lf[e] = lf;
        g.T[e] = tt;
    }
    if (tid < n) {
        g.sgn[tid] = sS[tid];
        g.tau_out[tid] = -M[tid + tid * LDM] * sS[tid];
    }
}

// Blocked trailing update, 1/3: partial products V^T C over UPD_RT rows (grid: parts x 64-column blocks).
extern "C" __global__ void __launch_bounds__(tq::THREADS) bq_wpart(UpdArgs g) {
    using namespace tq;
    __shared__ double Vs[32][LDM], Cs[32][LDM];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, tid = threadIdx.x;
    const long long r0 = (long long)blockIdx.x * UPD_RT;
    const int col0 = blockIdx.y * 64;
    double acc[2][8];
#pragma unroll
    for (int a = 0; a < 2; a++)
#pragma unroll
        for (int b = 0; b < 8; b++) acc[a][b] = 0.0;
    for (long long s0 = r0; s0 < r0 + UPD_RT && s0 < g.rows; s0 += 32) {
        __syncthreads();
        for (int e = tid; e < 32 * 64; e += THREADS) {
            const int k = e & 31, cc = e >> 5;
            const long long gi = s0 + k;
            double v = 0.0, x = 0.0;
            if (gi < g.rows) {
                if (cc < g.nb) {
                    v = g.V[gi + (long long)cc * g.ld];
                    if (gi < g.nb) v = gi > cc ? v : (gi == cc ? 1.0 : 0.0);
                }
                if (col0 + cc < g.nc) x = g.C[gi + (long long)(col0 + cc) * g.ld];
            }
            Vs[k][cc] = v;
            Cs[k][cc] = x;
        }
        __syncthreads();
#pragma unroll 4
        for (int k = 0; k < 32; k++) {
            const double v0 = Vs[k][lane], v1 = Vs[k][lane + 32];
#pragma unroll
            for (int b = 0; b < 8; b++) {
                const double x = Cs[k][warp + 8 * b];
                acc[0][b] = __fma_rn(v0, x, acc[0][b]);
                acc[1][b] = __fma_rn(v1, x, acc[1][b]);
            }
        }
    }
    double* W = g.Wp + (long long)blockIdx.x * 64 * g.nc;
#pragma unroll
    for (int b = 0; b < 8; b++) {
        const int cc = col0 + warp + 8 * b;
        if (cc < g.nc) {
            W[lane + 64 * cc] = acc[0][b];
            W[lane + 32 + 64 * cc] = acc[1][b];
        }
    }
}

// 2/3: Z(:, c) = T^T sum_parts W(:, c), one block of 64 threads per column.
extern "C" __global__ void __launch_bounds__(64) bq_wsum(UpdArgs g) {
    using namespace tq;
    __shared__ double w[64];
    const int i = threadIdx.x, c = blockIdx.x;
    double s0 = 0.0, s1 = 0.0;
    int t = 0;
    for (; t + 1 < g.nparts; t += 2) {
        s0 += g.Wp[(long long)t * 64 * g.nc + i + 64 * c];
        s1 += g.Wp[(long long)(t + 1) * 64 * g.nc + i + 64 * c];
    }
    if (t < g.nparts) s0 += g.Wp[(long long)t * 64 * g.nc + i + 64 * c];
    w[i] = i < g.nb ? s0 + s1 : 0.0;
    __syncthreads();
    double z = 0.0;
    for (int k = 0; k <= i && k < g.nb; k++) z = __fma_rn(g.T[k + i * NB], w[k], z);
    g.Z[i + 64 * c] = i < g.nb ? z : 0.0;
}

// 3/3: C -= V Z on 64 x 64 blocks (grid: row blocks x column blocks), k in slabs of 32.
extern "C" __global__ void __launch_bounds__(tq::THREADS) bq_update(UpdArgs g) {
    using namespace tq;
    __shared__ double Vs[32][64], Zs[32][LDM];  // Vs[k][row], Zs[k][col]
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, tid = threadIdx.x;
    const long long r0 = (long long)blockIdx.x * 64;
    const int col0 = blockIdx.y * 64;
    double acc[2][8];
#pragma unroll
    for (int a = 0; a < 2; a++)
#pragma unroll
        for (int b = 0; b < 8; b++) acc[a][b] = 0.0;
    for (int k0 = 0; k0 < g.nb; k0 += 32) {
        __syncthreads();
        for (int e = tid; e < 32 * 64; e += THREADS) {
            const int i = e & 63, kk = e >> 6, k = k0 + kk;
            const long long gi = r0 + i;
            double v = 0.0;
            if (gi < g.rows && k < g.nb) {
                v = g.V[gi + (long long)k * g.ld];
                if (gi < g.nb) v = gi > k ? v : (gi == k ? 1.0 : 0.0);
            }
            Vs[kk][i] = v;
            const int zk = e & 31, zc = e >> 5;  // Z's row k0 + zk, column col0 + zc
            Zs[zk][zc] = (col0 + zc < g.nc && k0 + zk < g.nb) ? g.Z[k0 + zk + 64 * (col0 + zc)] : 0.0;
        }
        __syncthreads();
#pragma unroll 4
        for (int kk = 0; kk < 32; kk++) {
            const double v0 = Vs[kk][lane], v1 = Vs[kk][lane + 32];
#pragma unroll
            for (int b = 0; b < 8; b++) {
                const double z = Zs[kk][warp + 8 * b];
                acc[0][b] = __fma_rn(v0, z, acc[0][b]);
                acc[1][b] = __fma_rn(v1, z, acc[1][b]);
            }
        }
    }
#pragma unroll
    for (int a = 0; a < 2; a++) {
        const long long gi = r0 + lane + 32 * a;
        if (gi >= g.rows) continue;
#pragma unroll
        for (int b = 0; b < 8; b++) {
            const int cc = col0 + warp + 8 * b;
            if (cc < g.nc) g.C[gi + (long long)cc * g.ld] -= acc[a][b];
        }
    }
}

#ifndef __CUDACC_RTC__
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cusolverDn.h>

#ifndef REPS
#define REPS 11
#endif

#define CK(x)                                                                                       \
    do {                                                                                            \
        cudaError_t e_ = (x);                                                                       \
        if (e_ != cudaSuccess) {                                                                    \
            printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));              \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)
#define CB(x)                                                                                       \
    do {                                                                                            \
        cublasStatus_t s_ = (x);                                                                    \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                          \
            printf("%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #x, (int)s_);               \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)
#define CS(x)                                                                                       \
    do {                                                                                            \
        cusolverStatus_t s_ = (x);                                                                  \
        if (s_ != CUSOLVER_STATUS_SUCCESS) {                                                        \
            printf("%s:%d: %s: cuSOLVER status %d\n", __FILE__, __LINE__, #x, (int)s_);             \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)

using tq::MB;
using tq::NB;

// ---- plan: the tree's shape and the workspace, both pure functions of (m, n) ----

struct LevelShape {
    long long rows;   // rows of the matrix factored at this level (level 0: the panel; l >= 1: B_l)
    long long tiles;  // its tiles of MB rows
};
// Level 0 is the panel itself, level l >= 1 the stack B_l of level l-1's R factors; the last
// level has one tile. B_{h+1} (nb rows) holds the root R.
static std::vector<LevelShape> tree_shape(long long m, int nb) {
    std::vector<LevelShape> lv;
    long long rows = m;
    for (;;) {
        const long long tiles = (rows + MB - 1) / MB;
        lv.push_back({rows, tiles});
        if (tiles == 1) break;
        rows = tiles * nb;
    }
    return lv;
}

struct TsqrWorkspace {
    size_t r_stacks;   // B_1 .. B_h and the root R (the stacks later hold the top-down X's)
    size_t tile_taus;  // tau of every tile of every level
    size_t lu;         // L, U^-1, T (64 x 64 each) and S
    size_t trailing;   // n > 64: partial products of V^T C, and Z = T^T V^T C
    size_t total() const { return r_stacks + tile_taus + lu + trailing; }
};
static size_t round256(size_t b) { return (b + 255) / 256 * 256; }
// The biggest panel is the first (most rows), so its shapes bound every later panel's.
static TsqrWorkspace tsqr_workspace_bytes(long long m, int n) {
    const int nb = std::min(n, NB);
    const std::vector<LevelShape> lv = tree_shape(m, nb);
    size_t rs = (size_t)nb * nb, ts = 0;
    for (size_t l = 0; l < lv.size(); l++) {
        ts += (size_t)lv[l].tiles * nb;
        if (l >= 1) rs += (size_t)lv[l].rows * nb;
    }
    TsqrWorkspace w;
    w.r_stacks = round256(rs * 8);
    w.tile_taus = round256(ts * 8);
    w.lu = round256((3 * NB * NB + NB) * 8);
    w.trailing = 0;
    if (n > NB) {
        const size_t nc = (size_t)(n - NB), parts = (size_t)((m + tq::UPD_RT - 1) / tq::UPD_RT);
        w.trailing = round256((parts + 1) * 64 * nc * 8);
    }
    return w;
}

struct TsqrBuffers {
    double *rstack, *taus, *Lf, *Uinv, *T, *sgn, *Wp, *Z;
};
static TsqrBuffers carve(void* ws, const TsqrWorkspace& w, long long m, int n) {
    char* p = (char*)ws;
    TsqrBuffers b;
    b.rstack = (double*)p;
    p += w.r_stacks;
    b.taus = (double*)p;
    p += w.tile_taus;
    b.Lf = (double*)p;
    b.Uinv = b.Lf + NB * NB;
    b.T = b.Uinv + NB * NB;
    b.sgn = b.T + NB * NB;
    p += w.lu;
    b.Wp = (double*)p;
    b.Z = nullptr;
    if (n > NB) b.Z = b.Wp + (size_t)((m + tq::UPD_RT - 1) / tq::UPD_RT) * 64 * (n - NB);
    return b;
}

// ---- per-stage event timing ----
enum Stage { ST_LEAVES, ST_TREE_UP, ST_TREE_DOWN, ST_LU, ST_FINAL, ST_TRAILING, ST_COUNT };
static const char* stage_name[ST_COUNT] = {"leaves", "tree up", "tree down (X)", "Q1 + LU", "final (Q U^-1, V)", "trailing update"};
struct StageTimer {
    std::vector<cudaEvent_t> ev;
    std::vector<int> tag;
    size_t used = 0;
    double ms[ST_COUNT] = {};
    int runs = 0;
    void mark(int s) {
        if (used == ev.size()) {
            cudaEvent_t e;
            CK(cudaEventCreate(&e));
            ev.push_back(e);
            tag.push_back(0);
        }
        CK(cudaEventRecord(ev[used]));
        tag[used++] = s;
    }
    void begin() {
        used = 0;
        mark(-1);
    }
    void end() {
        CK(cudaEventSynchronize(ev[used - 1]));
        for (size_t k = 1; k < used; k++) {
            float t;
            CK(cudaEventElapsedTime(&t, ev[k - 1], ev[k]));
            ms[tag[k]] += t;
        }
        runs++;
    }
    ~StageTimer() {
        for (cudaEvent_t e : ev) cudaEventDestroy(e);
    }
};
static void mark(StageTimer* tm, int s) {
    if (tm) tm->mark(s);
}

static size_t apply_smem(int nb, bool fin) { return ((size_t)MB * nb + (fin ? 2 * (size_t)nb * nb : 0)) * 8; }
static size_t lu_smem(int nb) { return ((size_t)tq::lu_moff(nb) + (size_t)NB * tq::LDM) * 8; }

// TSQR-HR of one panel (m x nb, nb <= 64, m >= nb) in place; its tau to tau_out, its T to b.T.
static void tsqr_panel(double* Ap, long long lda, long long m, int nb, double* tau_out, const TsqrBuffers& b, StageTimer* tm) {
    const std::vector<LevelShape> lv = tree_shape(m, nb);
    const int h = (int)lv.size() - 1;
    std::vector<double*> B(h + 2), taus(h + 1);
    std::vector<long long> rowsB(h + 2);
    double* p = b.rstack;
    for (int l = 1; l <= h + 1; l++) {
        rowsB[l] = lv[l - 1].tiles * nb;
        B[l] = p;
        p += rowsB[l] * nb;
    }
    double* tp = b.taus;
    for (int l = 0; l <= h; l++) {
        taus[l] = tp;
        tp += lv[l].tiles * nb;
    }
    const int tri = (TSQR_TRI && nb % 32 == 0 && MB % nb == 0) ? 1 : 0;

    FactorArgs fa = {Ap, lda, m, nb, 0, taus[0], B[1], rowsB[1]};
    tsqr_factor<<<(unsigned)lv[0].tiles, tq::THREADS>>>(fa);
    CK(cudaGetLastError());
    mark(tm, ST_LEAVES);
    for (int l = 1; l <= h; l++) {
        FactorArgs f = {B[l], rowsB[l], rowsB[l], nb, tri, taus[l], B[l + 1], rowsB[l + 1]};
        tsqr_factor<<<(unsigned)lv[l].tiles, tq::THREADS>>>(f);
        CK(cudaGetLastError());
    }
    mark(tm, ST_TREE_UP);
    for (int l = h; l >= 1; l--) {
        ApplyArgs a = {};
        a.V = B[l];
        a.ldv = a.rows = rowsB[l];
        a.n = nb;
        a.tri = tri;
        a.tau = taus[l];
        a.X = l == h ? nullptr : B[l + 1];
        a.ldx = rowsB[l + 1];
        a.out = B[l];
        a.ldo = rowsB[l];
        tsqr_apply<<<(unsigned)lv[l].tiles, tq::THREADS, apply_smem(nb, false)>>>(a);
        CK(cudaGetLastError());
    }
    mark(tm, ST_TREE_DOWN);
    ApplyArgs a0 = {};
    a0.V = Ap;
    a0.ldv = lda;
    a0.rows = m;
    a0.n = nb;
    a0.tau = taus[0];
    a0.X = h >= 1 ? B[1] : nullptr;
    a0.ldx = rowsB[1];
    LuArgs la = {a0, b.Lf, b.Uinv, b.T, b.sgn, tau_out};
    tsqr_lu<<<1, tq::THREADS, lu_smem(nb)>>>(la);
    CK(cudaGetLastError());
    mark(tm, ST_LU);
    ApplyArgs af = a0;
    af.Uinv = b.Uinv;
    af.out = Ap;
    af.ldo = lda;
    af.Rroot = B[h + 1];
    af.ldr = nb;
    af.Lf = b.Lf;
    af.sgn = b.sgn;
    tsqr_apply<<<(unsigned)lv[0].tiles, tq::THREADS, apply_smem(nb, true)>>>(af);
    CK(cudaGetLastError());
    mark(tm, ST_FINAL);
}

// dgeqrf (m >= n) in place: 64-column panels by TSQR-HR, trailing matrix by (I - V T V^T)^T.
static void geqrf_tsqr(double* A, long long lda, long long m, int n, double* tau, void* ws, const TsqrWorkspace& w, StageTimer* tm) {
    const TsqrBuffers b = carve(ws, w, m, n);
    for (int p0 = 0; p0 < n; p0 += NB) {
        const int nb = std::min(NB, n - p0);
        double* Ap = A + p0 + (long long)p0 * lda;
        tsqr_panel(Ap, lda, m - p0, nb, tau + p0, b, tm);
        const int nc = n - p0 - nb;
        if (nc > 0) {
            UpdArgs u;
            u.V = Ap;
            u.C = Ap + (long long)nb * lda;
            u.ld = lda;
            u.rows = m - p0;
            u.nb = nb;
            u.nc = nc;
            u.Wp = b.Wp;
            u.nparts = (int)((u.rows + tq::UPD_RT - 1) / tq::UPD_RT);
            u.T = b.T;
            u.Z = b.Wp + (size_t)u.nparts * 64 * nc;  // within the trailing part (nparts, nc shrink)
            const unsigned cb = (unsigned)((nc + 63) / 64);
            bq_wpart<<<dim3((unsigned)u.nparts, cb), tq::THREADS>>>(u);
            CK(cudaGetLastError());
            bq_wsum<<<(unsigned)nc, 64>>>(u);
            CK(cudaGetLastError());
            bq_update<<<dim3((unsigned)((u.rows + 63) / 64), cb), tq::THREADS>>>(u);
            CK(cudaGetLastError());
            mark(tm, ST_TRAILING);
        }
    }
}

// ---- harness ----

// uniform(-1, 1) from an index (splitmix64)
static double urand(uint64_t i) {
    uint64_t z = i * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}
static float median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

enum Kind { RANDOM, ILL, DUP };
struct Case {
    long long m;
    int n;
    Kind kind;
    bool big;     // print per-stage times and the issue's target
    double target_ms;
};

int main(int argc, char** argv) {
    const bool quick = argc > 1 && !strcmp(argv[1], "quick");
    printf("tsqr: TSQR + Householder reconstruction, f64. MB %d rows a tile (TSQR_RPL %d), panel %d, TSQR_TRI %d, UPD_RT %d, MINB %d, REPS %d\n",
           MB, tq::RPL, NB, TSQR_TRI, tq::UPD_RT, TSQR_MINB, REPS);
    CK(cudaFuncSetAttribute((const void*)tsqr_apply, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)apply_smem(NB, true)));
    CK(cudaFuncSetAttribute((const void*)tsqr_lu, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)lu_smem(NB)));
    {
        const void* ks[] = {(const void*)tsqr_factor, (const void*)tsqr_apply, (const void*)tsqr_lu,
                            (const void*)bq_wpart,    (const void*)bq_wsum,    (const void*)bq_update};
        const char* kn[] = {"tsqr_factor", "tsqr_apply", "tsqr_lu", "bq_wpart", "bq_wsum", "bq_update"};
        for (int k = 0; k < 6; k++) {
            cudaFuncAttributes fa;
            CK(cudaFuncGetAttributes(&fa, ks[k]));
            printf("  %-12s %3d registers, %zu bytes local%s\n", kn[k], fa.numRegs, (size_t)fa.localSizeBytes,
                   fa.localSizeBytes ? "  WARNING: spills" : "");
        }
    }
    cublasHandle_t hb;
    cusolverDnHandle_t hs;
    CB(cublasCreate(&hb));
    CS(cusolverDnCreate(&hs));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));

    std::vector<Case> cases;
    if (!quick) {
        cases.push_back({1000000, 64, RANDOM, true, 1.73});
        cases.push_back({100000, 256, RANDOM, true, 3.04});
    }
    cases.push_back({4096, 64, RANDOM, false, 0});
    cases.push_back({10000, 32, RANDOM, false, 0});
    cases.push_back({2048, 256, RANDOM, false, 0});
    cases.push_back({300, 64, RANDOM, false, 0});    // rows not a multiple of the tile; last tile < n rows
    cases.push_back({200, 64, RANDOM, false, 0});    // one tile: no tree
    cases.push_back({64, 64, RANDOM, false, 0});     // square
    cases.push_back({1000, 20, RANDOM, false, 0});   // n not a multiple of 32 (no triangle skip)
    cases.push_back({5000, 100, RANDOM, false, 0});  // a narrow last panel
    cases.push_back({20000, 64, ILL, false, 0});     // columns scaled 1e-8 .. 1
    cases.push_back({20000, 64, DUP, false, 0});     // two equal columns (rank-deficient)
    cases.push_back({3000, 256, DUP, false, 0});     // rank-deficient, blocked

    int nok = 0, nfail = 0;
    for (const Case& cs : cases) {
        const long long m = cs.m, lda = m;
        const int n = cs.n;
        const size_t el = (size_t)m * n;
        std::vector<double> H(el);
        for (int j = 0; j < n; j++) {
            const double sc = cs.kind == ILL ? pow(10.0, -8.0 + 8.0 * j / (n - 1)) : 1.0;
            for (long long i = 0; i < m; i++) H[i + j * lda] = urand((uint64_t)(i + j * lda) + 977ull * n) * sc;
        }
        if (cs.kind == DUP)
            for (long long i = 0; i < m; i++) H[i + 17 * lda] = H[i + 5 * lda];
        double *dA0, *dA, *dTau, *dQ, *dRes, *dR, *dG, *dTauC, *dWc;
        int* dInfo;
        CK(cudaMalloc(&dA0, el * 8));
        CK(cudaMalloc(&dA, el * 8));
        CK(cudaMalloc(&dQ, el * 8));
        CK(cudaMalloc(&dRes, el * 8));
        CK(cudaMalloc(&dTau, n * 8));
        CK(cudaMalloc(&dTauC, n * 8));
        CK(cudaMalloc(&dR, (size_t)n * n * 8));
        CK(cudaMalloc(&dG, (size_t)n * n * 8));
        CK(cudaMalloc(&dInfo, sizeof(int)));
        CK(cudaMemcpy(dA0, H.data(), el * 8, cudaMemcpyHostToDevice));
        const TsqrWorkspace ws = tsqr_workspace_bytes(m, n);
        void* dWs;
        CK(cudaMalloc(&dWs, ws.total()));
        int lworkC = 0;
        CS(cusolverDnDgeqrf_bufferSize(hs, (int)m, n, dA, (int)lda, &lworkC));
        CK(cudaMalloc(&dWc, (size_t)std::max(lworkC, 1) * 8));
        auto restore = [&]() { CK(cudaMemcpyAsync(dA, dA0, el * 8, cudaMemcpyDeviceToDevice, 0)); };
        auto ours = [&](StageTimer* tm) { geqrf_tsqr(dA, lda, m, n, dTau, dWs, ws, tm); };
        auto theirs = [&]() { CS(cusolverDnDgeqrf(hs, (int)m, n, dA, (int)lda, dTauC, dWc, lworkC, dInfo)); };

        // ---- our result and its checks ----
        restore();
        ours(nullptr);
        CK(cudaDeviceSynchronize());
        std::vector<double> out(el), tauh(n);
        CK(cudaMemcpy(out.data(), dA, el * 8, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(tauh.data(), dTau, n * 8, cudaMemcpyDeviceToHost));
        size_t nan = 0;
        for (size_t k = 0; k < el; k++) nan += !std::isfinite(out[k]);
        int taubad = 0;
        for (int j = 0; j < n; j++) {
            nan += !std::isfinite(tauh[j]);
            taubad += !(tauh[j] == 0.0 || (tauh[j] >= 1.0 - 1e-12 && tauh[j] <= 2.0 + 1e-12));
        }
        // Q from our V and tau (cusolverDnDorgqr on a copy), R from the upper triangle only.
        CK(cudaMemcpy(dQ, dA, el * 8, cudaMemcpyDeviceToDevice));
        int lworkQ = 0;
        CS(cusolverDnDorgqr_bufferSize(hs, (int)m, n, n, dQ, (int)lda, dTau, &lworkQ));
        double* dWq;
        CK(cudaMalloc(&dWq, (size_t)std::max(lworkQ, 1) * 8));
        CS(cusolverDnDorgqr(hs, (int)m, n, n, dQ, (int)lda, dTau, dWq, lworkQ, dInfo));
        int info = 0;
        CK(cudaMemcpy(&info, dInfo, sizeof(int), cudaMemcpyDeviceToHost));
        if (info) printf("  orgqr info %d\n", info);
        CK(cudaFree(dWq));
        std::vector<double> R((size_t)n * n);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) R[i + (size_t)j * n] = i <= j ? out[i + j * lda] : 0.0;
        CK(cudaMemcpy(dR, R.data(), (size_t)n * n * 8, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dRes, dA0, el * 8, cudaMemcpyDeviceToDevice));
        const double one = 1.0, mone = -1.0, zero = 0.0;
        CB(cublasDgemm(hb, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, n, n, &mone, dQ, (int)lda, dR, n, &one, dRes, (int)lda));
        double nres = 0, na = 0;
        CB(cublasDnrm2(hb, (int)el, dRes, 1, &nres));
        CB(cublasDnrm2(hb, (int)el, dA0, 1, &na));
        CB(cublasDsyrk(hb, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, n, (int)m, &one, dQ, (int)lda, &zero, dG, n));
        std::vector<double> G((size_t)n * n);
        CK(cudaMemcpy(G.data(), dG, (size_t)n * n * 8, cudaMemcpyDeviceToHost));
        double og = 0;
        for (int j = 0; j < n; j++)
            for (int i = 0; i <= j; i++) {
                const double d = G[i + (size_t)j * n] - (i == j ? 1.0 : 0.0);
                og += (i == j ? 1.0 : 2.0) * d * d;
            }
        const double eps = 2.220446049250313e-16;
        const double resid = nres / (na * n * eps), orth = sqrt(og) / (n * eps);

        // ---- timing: ours, per stage (big shapes), cuSOLVER ----
        std::vector<float> t_ours, t_cus;
        float ms;
        for (int it = 0; it < REPS + 2; it++) {
            restore();
            CK(cudaEventRecord(e0));
            ours(nullptr);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (it >= 2) t_ours.push_back(ms);
        }
        StageTimer st;
        if (cs.big) {
            for (int it = 0; it < REPS; it++) {
                restore();
                st.begin();
                ours(&st);
                st.end();
            }
        }
        restore();
        theirs();
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(&info, dInfo, sizeof(int), cudaMemcpyDeviceToHost));
        if (info) printf("  geqrf info %d\n", info);
        std::vector<double> Rc((size_t)n * n);
        CK(cudaMemcpy2D(Rc.data(), n * 8, dA, lda * 8, n * 8, n, cudaMemcpyDeviceToHost));
        for (int it = 0; it < REPS + 2; it++) {
            restore();
            CK(cudaEventRecord(e0));
            theirs();
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (it >= 2) t_cus.push_back(ms);
        }
        CK(cudaDeviceSynchronize());
        // R against cuSOLVER's, up to row signs (informational where the rank is deficient)
        double rmax = 0, rdiff = 0;
        for (int j = 0; j < n; j++)
            for (int i = 0; i <= j; i++) rmax = std::max(rmax, std::fabs(Rc[i + (size_t)j * n]));
        for (int i = 0; i < n; i++) {
            const double d = (R[i + (size_t)i * n] < 0) != (Rc[i + (size_t)i * n] < 0) ? -1.0 : 1.0;
            for (int j = i; j < n; j++) rdiff = std::max(rdiff, std::fabs(R[i + (size_t)j * n] - d * Rc[i + (size_t)j * n]));
        }
        rdiff /= rmax;

        const bool ok = nan == 0 && taubad == 0 && resid < 30 && orth < 30 && (cs.kind == DUP || rdiff < 1e-6);
        (ok ? nok : nfail)++;
        const char* kname = cs.kind == ILL ? "ill" : cs.kind == DUP ? "dup" : "rand";
        const float to = median(t_ours), tc = median(t_cus);
        printf("%7lld x %3d %-4s  tsqr %8.3f ms  cuSOLVER %8.3f ms  speed-up %5.2fx | workspace %9.3f MB (cuSOLVER %8.3f MB)\n"
               "                 resid %6.2f  orth %6.2f  R vs cuSOLVER %.1e%s  non-finite %zu  tau outside [1,2] %d  %s\n",
               m, n, kname, to, tc, tc / to, ws.total() / 1e6, (double)lworkC * 8 / 1e6, resid, orth, rdiff,
               cs.kind == DUP ? " (rank-deficient: info only)" : "", nan, taubad, ok ? "ok" : "FAIL");
        if (cs.big) {
            printf("                 target <= %.2f ms (%s); stages (mean of %d runs with events between stages):\n", cs.target_ms,
                   to <= cs.target_ms ? "met" : "not met", st.runs);
            double tot = 0;
            for (int s = 0; s < ST_COUNT; s++) tot += st.ms[s];
            for (int s = 0; s < ST_COUNT; s++)
                if (st.ms[s] > 0)
                    printf("                   %-18s %8.3f ms  %5.1f%%\n", stage_name[s], st.ms[s] / st.runs, 100.0 * st.ms[s] / tot);
            printf("                 workspace: R stacks %.1f MB, tile taus %.3f MB, LU %.3f MB, trailing %.1f MB\n", ws.r_stacks / 1e6,
                   ws.tile_taus / 1e6, ws.lu / 1e6, ws.trailing / 1e6);
        }
        CK(cudaFree(dA0));
        CK(cudaFree(dA));
        CK(cudaFree(dQ));
        CK(cudaFree(dRes));
        CK(cudaFree(dTau));
        CK(cudaFree(dTauC));
        CK(cudaFree(dR));
        CK(cudaFree(dG));
        CK(cudaFree(dInfo));
        CK(cudaFree(dWs));
        CK(cudaFree(dWc));
    }
    printf("%d ok, %d FAIL\n", nok, nfail);
    CB(cublasDestroy(hb));
    CS(cusolverDnDestroy(hs));
    return nfail ? 1 : 0;
}
#endif
