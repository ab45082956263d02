// The QR family's CholeskyQR2 panel (GPUBLAS_FAMILY_CHOLQR), double only: geqr2 of a tall
// panel (rows >= 8 cols, cols <= 64) in LAPACK's format from CholeskyQR2 plus Householder
// reconstruction (Ballard, Demmel, Grigori, Jacquelin, Nguyen, Solomonik, "Reconstructing
// Householder vectors from Tall-Skinny QR", JPDC 85, 2015; Fukaya et al., "CholeskyQR2",
// ScalA 2014). Memory bound: A is read three times and written once, against one read and
// write per column for the Householder panel. With Q = A R1^-1 R2^-1 (never written), R = R2 R1:
//   cq_gram:   G1 = A^T A, a persistent grid (two blocks an SM) over tiles of 128 rows, each
//              block's partial Gram (FP64 tensor cores, by warp groups) in the workspace; and per
//              column whether any entry below the panel's top `cols` rows is nonzero.
//   cq_reduce: fixed-order sum of the partials -> G (deterministic, no atomics).
//   cq_chol1:  R1 = chol(G1), one block. Sets the entry's flag: 1 (fall back) on a breakdown,
//              a non-finite entry, a diagonal outside [2^-900, 2^900] (squares near the range's
//              ends lose digits), or a column with nothing below the top rows (LAPACK's
//              tau = 0 case, which the reconstruction never produces).
//   cq_solve:  per row q = a R1^-1 by forward substitution, partial Grams of Q1 = A R1^-1.
//   cq_lu:     G2 = Q1^T Q1 with ||G2 - I||_F <= 0.1 (else fall back), R2 = chol(G2), the top
//              rows' Q, the LU without pivoting of Q_top - S (S_ii = -sign, |U_ii| >= 1),
//              tau_i = -U_ii S_ii, A's top block (L strict lower, S R upper), W = U R2.
//              Nothing in A or tau is written before its last check.
//   cq_finish: rows >= cols: v = (a R1^-1) W^-1 in place (Q_2 U^-1; W^-1 formed by cq_lu,
//              applied on tensor cores: W is well conditioned). The first solve repeats
//              pass 2's bit for bit, so R2 corrects exactly the Q1 it was computed from: Q is
//              orthonormal to working precision whatever A's condition (up to the G2 test's);
//              a single solve by U R2 R1 would lose orthogonality in proportion to it.
//   Where the caller asks for Vf, T and VT = Vf T (Cqp.vf; the eigensolvers' band panels),
//   cq_lu also writes T = -U S L^-T and the top blocks of Vf and VT, cq_finish the other rows
//   of Vf beside A's and of VT (v T on tensor cores), and cq_tfall (after the gated
//   Householder panel) makes all three where the entry fell back: the caller needs no copy of
//   V, no Gram of it, no larft and no product for VT.
// cq_chol1 and cq_lu run at the panel's width NC (16, 32, 64) like the passes: at 32 (the
// eigensolver's band panels) the 64-wide versions took 26 and 92 us under ncu, all of it
// instruction issue over padding.
// Every kernel after cq_chol1 returns at once once the flag is set; the Householder panel
// (qr_panel, gated on the same flag) then factors the untouched block.
// Why it is a QR: with Q S - [I; 0] = V Y (V = [L; Q_2 U^-1], Y = U S upper) the first columns
// of I - V T V^T (T = -U S L^-T) are Q S, so A = Q R = (I - V T V^T)[:, :n] (S R).
//
// Workspace per entry (bytes, qr/plan.rs mirrors it): G, R1, W (64 x 64 doubles each, ld 64),
// a 256-byte slot (the flag at 0, the column mask at 8), then each block's partial Gram and
// after all partials each block's column mask.

namespace cq {
constexpr int THREADS = 256;
constexpr int TR = 128;          // tile rows
constexpr int PAD = 4;           // tile row stride NC + 4: conflict-free fragment and row loads
constexpr int NB = 64;           // widest panel
constexpr int LDM = NB + 1;      // ld of 64 x 64 matrices in shared memory (one-block kernels)
constexpr int LDG = NB;          // ld of G, R1, W in the workspace
constexpr long long FLAG = 3LL * 64 * 64 * 8;  // byte offset of the flag slot
constexpr long long PARTS = FLAG + 256;         // byte offset of the partials
constexpr unsigned FULL = 0xffffffffu;
constexpr double EPS = 2.220446049250313e-16;

// Per panel width NC (16, 32, 64: cols rounded up; columns cols .. NC - 1 are zero, R's identity).
template <int NC>
struct Cfg {
    static constexpr int LDX = NC + PAD;
    static constexpr int NT = (NC / 4) * (NC / 4 + 1) / 2;  // upper 4 x 4 tiles of the Gram
    static constexpr int PART = NT * 16;               // a partial Gram: tile t's (a, b) at 16 t + 4 a + b
    static constexpr int XS = TR * LDX;                // the tile
    static constexpr int RN = XS;                      // -R (row-major, ld LDX; 0 on and below the diagonal)
    static constexpr int RINV = RN + NC * LDX;         // 1 / R_kk
    static_assert(NC * NC <= NC * LDX, "W^-1's fragments fit where -R is");
    static_assert(XS % 2 == 0 && RINV % 2 == 0, "double2 alignment");
};

// cq_lu's shared memory (doubles): the top rows' tile (later R = R2 R1), -R / rinv (later the
// LU), then two 64 x 64 matrices.
constexpr int LU_XS = 64 * Cfg<64>::LDX;
constexpr int LU_MR = 64 * Cfg<64>::LDX + 64;
constexpr int LU_MAT = 64 * LDM;
static_assert(LU_XS >= LU_MAT && LU_MR >= LU_MAT && LU_MR % 2 == 0 && LU_MAT % 2 == 0, "cq_lu layout");

__device__ __forceinline__ bool fin(double x) { return x - x == 0.0; }

// One entry's view of the workspace and its panel.
struct Entry {
    double* A;
    i64 lda, m, tiles;
    int n, nblk;
    double *G, *R1, *W, *part;
    int* flag;
    unsigned long long *mask, *masks;
};
}  // namespace cq

struct Cqp {
    u64 a; i64 ld, es;        // the panel at entry e0 (elements), its ld, entry distance
    u64 ws; i64 ws_s;         // the chunk's first entry's part, bytes between entries
    u64 tau; i64 tau_s;       // entry e0's tau at the panel's first reflector, distance
    i64 rows, tiles;          // the panel's rows, its tiles of TR rows
    int cols, nblk, ne, part; // columns, blocks of the passes, entries, doubles a partial
    // Optional outputs (vf = 0: none), for callers that need the reflectors as a plain matrix
    // and their T (the eigensolvers' band panels): Vf = V with its unit upper triangle written
    // out (rows x cols, ld vf_ld), T (cols x cols, upper, zeros below, ld t_ld), VT = Vf T;
    // entry distances. vf, t and vt go together (the kernels test vf alone).
    u64 vf; i64 vf_ld, vf_es;
    u64 t; i64 t_ld, t_es;
    u64 vt; i64 vt_ld, vt_es;  // VT = Vf T (rows x cols)
};

namespace cq {
__device__ __forceinline__ Entry entry(const Cqp& p, int e) {
    Entry x;
    unsigned char* base = (unsigned char*)p.ws + e * p.ws_s;
    x.A = (double*)p.a + e * p.es;
    x.lda = p.ld;
    x.m = p.rows;
    x.tiles = p.tiles;
    x.n = p.cols;
    x.nblk = p.nblk;
    x.G = (double*)base;
    x.R1 = x.G + 64 * 64;
    x.W = x.R1 + 64 * 64;
    x.flag = (int*)(base + FLAG);
    x.mask = (unsigned long long*)(base + FLAG + 8);
    x.part = (double*)(base + PARTS);
    x.masks = (unsigned long long*)(x.part + (i64)p.nblk * p.part);
    return x;
}

extern __shared__ __align__(16) double cq_dsm[];

// The top n x n block of A -> the first NC rows of Xs (ld LDX), zeros elsewhere.
template <int NC>
__device__ __forceinline__ void load_top(double* Xs, const double* A, i64 lda, int n) {
    for (int e = threadIdx.x; e < NC * NC; e += THREADS) {
        const int i = e % NC, c = e / NC;
        Xs[i * Cfg<NC>::LDX + c] = (i < n && c < n) ? A[i + (i64)c * lda] : 0.0;
    }
}

// Rn[k * LDX + j] = -R(k, j) above the diagonal (0 elsewhere), rinv[k] = 1 / R(k, k).
template <int NC>
__device__ __forceinline__ void setup_rn(double* Rn, double* rinv, const double* R, int ldr) {
    constexpr int LDX = Cfg<NC>::LDX;
    for (int e = threadIdx.x; e < NC * NC; e += THREADS) {
        const int k = e / NC, j = e % NC;
        Rn[k * LDX + j] = j > k ? -R[k + j * ldr] : 0.0;
    }
    for (int k = threadIdx.x; k < NC; k += THREADS) rinv[k] = 1.0 / R[k + k * ldr];
}

// Rows 0 .. rows - 1 of Xs (ld LDX; rows a multiple of 16) <- Xs R^-1 in place: blocked forward
// substitution over 8-column blocks J, per row backward stable. The diagonal block by
// substitution (one row a lane: lanes 0..15 of warp w take rows 16 w + lane), then the blocks
// right of it less Y_J R(J, J+1:) on FP64 tensor cores (m8n8k4, -R's rows as B fragments). Warp
// w reads and writes only its own 16 rows: no block barrier. The same calls give the same bits
// (pass 2 and pass 3 rely on it).
template <int NC>
__device__ __forceinline__ void solve_rows(double* Xs, const double* Rn, const double* rinv, int rows) {
    constexpr int LDX = Cfg<NC>::LDX, NBK = NC / 8;
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    if (16 * w >= rows) return;
    double* xw = Xs + 16 * w * LDX;
#pragma unroll 1
    for (int J = 0; J < NBK; J++) {
        if (lane < 16) {
            double* xr = xw + lane * LDX + 8 * J;
            double y[8];
#pragma unroll
            for (int c = 0; c < 8; c++) y[c] = xr[c];
#pragma unroll
            for (int c = 0; c < 8; c++) {
                y[c] = y[c] * rinv[8 * J + c];
#pragma unroll
                for (int d = c + 1; d < 8; d++) y[d] = __fma_rn(y[c], Rn[(8 * J + c) * LDX + 8 * J + d], y[d]);
            }
#pragma unroll
            for (int c = 0; c < 8; c++) xr[c] = y[c];
        }
        __syncwarp();
        if (J + 1 < NBK) {
            // A fragments: Y_J's rows lane / 4 (+ 8), columns 4 ks + lane % 4
            double a[2][2];
#pragma unroll
            for (int rb = 0; rb < 2; rb++)
#pragma unroll
                for (int ks = 0; ks < 2; ks++) a[rb][ks] = xw[(8 * rb + (lane >> 2)) * LDX + 8 * J + 4 * ks + (lane & 3)];
#pragma unroll
            for (int cb = 1; cb < NBK; cb++) {
                if (cb <= J) continue;
                double b[2];
#pragma unroll
                for (int ks = 0; ks < 2; ks++) b[ks] = Rn[(8 * J + 4 * ks + (lane & 3)) * LDX + 8 * cb + (lane >> 2)];
#pragma unroll
                for (int rb = 0; rb < 2; rb++) {
                    double* cp = xw + (8 * rb + (lane >> 2)) * LDX + 8 * cb + 2 * (lane & 3);
                    double c0 = cp[0], c1 = cp[1];
                    dmma8844(c0, c1, a[rb][0], b[0]);
                    dmma8844(c0, c1, a[rb][1], b[1]);
                    cp[0] = c0;
                    cp[1] = c1;
                }
            }
            __syncwarp();
        }
    }
}

// Warp rows (row gi, lanes 0-15 and 16-31: columns c0 + 2 u, two at a time in 128-byte pieces)
// -> xr (the thread's row of Xs at column c0): A's entries for rows < m and columns < n, zeros
// elsewhere. MASK (pass 1): bit u of `nz` set when the row is at or below row n and its entry
// in column c0 + 2 u is nonzero (NaN included; 32-bit: fewer registers than a column mask).
template <int NC, bool MASK = false>
__device__ __forceinline__ void load_rows(double* xr, const Entry& x, i64 gi, int c0, unsigned* nz = nullptr) {
    constexpr int HALF = NC / 2, B = HALF < 16 ? HALF : 16;
    static_assert(HALF <= 32, "load_rows: a thread's mask bits");
    const bool rok = gi < x.m, below = rok && gi >= x.n;
    const double* a = x.A + (rok ? gi : 0) + (i64)c0 * x.lda;
#pragma unroll 1
    for (int u0 = 0; u0 < HALF; u0 += B) {
        double v[B];
#pragma unroll
        for (int u = 0; u < B; u++) {
            v[u] = 0.0;
            if (rok && c0 + 2 * (u0 + u) < x.n) v[u] = a[(i64)(2 * (u0 + u)) * x.lda];
        }
        unsigned bits = 0;
#pragma unroll
        for (int u = 0; u < B; u++) {
            xr[2 * (u0 + u)] = v[u];
            if (MASK) bits |= (v[u] != 0.0 ? 1u : 0u) << u;
        }
        if (MASK && below) *nz |= bits << u0;
    }
}

// Named barrier ID (1 ..: 0 is __syncthreads') over N threads (whole warps); immediates: a
// register id makes ptxas reserve all 16.
template <int ID, int N>
__device__ __forceinline__ void bar_sync() { asm volatile("bar.sync %0, %1;" ::"n"(ID), "n"(N) : "memory"); }

// Passes 1 and 2's Grams on tensor cores by warp groups: the K warps of group w / K (K = 2 at
// NC = 64, where one warp's 36 blocks would take 144 registers; else 1) accumulate the Gram of
// the group's 16 K rows of every tile, warp w taking the upper 8 x 8 blocks (numbered column by
// column) idx = w % K + K s; only the group synchronises in the tile loop. For a 4-row chunk X4
// and block (bi, bj): C += X4[:, bi]^T X4[:, bj], both operands X4[lane % 4][8 b + lane / 4].
// store(): the groups summed in a fixed order, in Cfg's PART layout. Below sm_80 (never
// planned) dmma8844's shuffles.
template <int NC>
struct GroupGram {
    static constexpr int NBK = NC / 8, NUB = NBK * (NBK + 1) / 2, PART = Cfg<NC>::PART;
    static constexpr int K = NC == 64 ? 2 : 1, BPW = NUB / K, NGR = (THREADS / 32) / K;
    static_assert(NUB % K == 0 && NGR * PART <= Cfg<NC>::XS, "GroupGram: the groups' partials must fit in the tile");
    double c[BPW][2];
    __host__ __device__ static constexpr int bj_of(int idx) {
        int j = 0;
        while ((j + 1) * (j + 2) / 2 <= idx) j++;
        return j;
    }
    __host__ __device__ static constexpr int bi_of(int idx) { return idx - bj_of(idx) * (bj_of(idx) + 1) / 2; }
    __device__ __forceinline__ void init() {
#pragma unroll
        for (int s = 0; s < BPW; s++) c[s][0] = c[s][1] = 0.0;
    }
    // the group's barrier: its rows solved before acc, read before the next tile's loads
    __device__ __forceinline__ void sync() {
        static_assert(K == 1 || K == 2, "GroupGram: the groups' barriers");
        const int g = (threadIdx.x >> 5) / K;
        if constexpr (K == 1) __syncwarp();
        else if (g == 0) bar_sync<1, 64>();
        else if (g == 1) bar_sync<2, 64>();
        else if (g == 2) bar_sync<3, 64>();
        else bar_sync<4, 64>();
    }
    template <int G>
    __device__ __forceinline__ void acc_g(const double* xg) {
        constexpr int LDX = Cfg<NC>::LDX;
        const int lane = threadIdx.x & 31;
        const double* xl = xg + (lane & 3) * LDX + (lane >> 2);
#pragma unroll 1
        for (int kc = 0; kc < 4 * K; kc++) {
            double f[NBK];
#pragma unroll
            for (int b = 0; b < NBK; b++) f[b] = xl[kc * 4 * LDX + 8 * b];
#pragma unroll
            for (int s = 0; s < BPW; s++) dmma8844(c[s][0], c[s][1], f[bi_of(G + K * s)], f[bj_of(G + K * s)]);
        }
    }
    __device__ __forceinline__ void acc(const double* xg) {
        if constexpr (K == 2) {
            if ((threadIdx.x >> 5) % K == 0) acc_g<0>(xg);
            else acc_g<1>(xg);
        } else {
            acc_g<0>(xg);
        }
    }
    // every entry of the layout is written by exactly one warp of the group (the lower 4 x 4
    // tile of a diagonal block is not in it)
    template <int G>
    __device__ __forceinline__ void put_g(double* dst) {
        const int lane = threadIdx.x & 31, r = lane >> 2, j0 = 2 * (lane & 3);
#pragma unroll
        for (int s = 0; s < BPW; s++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int idx = G + K * s, i = 8 * bi_of(idx) + r, j = 8 * bj_of(idx) + j0 + h, ti = i >> 2, tj = j >> 2;
                if (ti <= tj) dst[(tj * (tj + 1) / 2 + ti) * 16 + 4 * (i & 3) + (j & 3)] = c[s][h];
            }
    }
    // red: the tile (free after the barrier); out: the block's partial
    __device__ __forceinline__ void store(double* red, double* out) {
        const int w = threadIdx.x >> 5;
        __syncthreads();
        double* dst = red + (w / K) * PART;
        if constexpr (K == 2) {
            if (w % K == 0) put_g<0>(dst);
            else put_g<1>(dst);
        } else {
            put_g<0>(dst);
        }
        __syncthreads();
        for (int e = threadIdx.x; e < PART; e += THREADS) {
            double t = 0.0;
            for (int q = 0; q < NGR; q++) t += red[q * PART + e];
            out[e] = t;
        }
    }
};

// The tile's rows (128 x NC, ld LDX) := rows x F, F upper triangular (NC x NC, global memory,
// written by an earlier kernel) held as the m8n8k4 B fragments: F[(ks NBK + cb) 32 + lane] =
// F(4 ks + lane % 4, 8 cb + lane / 4). Warp w takes rows 16 w .. 16 w + 15 (reads and writes
// only its own rows); zero blocks are skipped.
template <int NC>
__device__ __forceinline__ void times_upper(double* Xs, const double* F) {
    constexpr int LDX = Cfg<NC>::LDX, NBK = NC / 8;
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    double c[2][NBK][2];
#pragma unroll
    for (int rb = 0; rb < 2; rb++)
#pragma unroll
        for (int cb = 0; cb < NBK; cb++) c[rb][cb][0] = c[rb][cb][1] = 0.0;
    const double* xa = Xs + (16 * w + (lane >> 2)) * LDX + (lane & 3);
#pragma unroll
    for (int ks = 0; ks < NC / 4; ks++) {
        const double a0 = xa[4 * ks], a1 = xa[8 * LDX + 4 * ks];
#pragma unroll
        for (int cb = 0; cb < NBK; cb++) {
            if (4 * ks >= 8 * (cb + 1)) continue;  // F's rows below column block cb's diagonal
            const double b = __ldg(F + (ks * NBK + cb) * 32 + lane);
            dmma8844(c[0][cb][0], c[0][cb][1], a0, b);
            dmma8844(c[1][cb][0], c[1][cb][1], a1, b);
        }
    }
    __syncwarp();
    double* xc = Xs + (16 * w + (lane >> 2)) * LDX + 2 * (lane & 3);
#pragma unroll
    for (int rb = 0; rb < 2; rb++)
#pragma unroll
        for (int cb = 0; cb < NBK; cb++) {
            xc[rb * 8 * LDX + 8 * cb] = c[rb][cb][0];
            xc[rb * 8 * LDX + 8 * cb + 1] = c[rb][cb][1];
        }
}

// Upper Cholesky in place of the 64 x 64 symmetric M (ld LDM; upper triangle read; identity
// beyond n): M = R^T R, R upper, zeros below. true on breakdown (non-finite entry, or a pivot
// not finite or <= eps * the original diagonal entry). Block-uniform; ends with a barrier.
template <int NC>
__device__ bool chol_upper(double* M, int n, double* diag0, volatile int* sbad) {
    // thread t: column t % NC, rows t / NC + RY u
    constexpr int RY = THREADS / NC, U = NC / RY;
    const int tid = threadIdx.x, cx = tid % NC, ry = tid / NC;
    __syncthreads();
    if (tid < NC) diag0[tid] = M[tid * (LDM + 1)];
    if (tid == 0) *sbad = 0;
    __syncthreads();
    for (int e = tid; e < NC * NC; e += THREADS) {
        const int i = e % NC, j = e / NC;
        if (i <= j && !fin(M[i + j * LDM])) *sbad = 1;
    }
    __syncthreads();
    bool bad = *sbad != 0;
    for (int k = 0; k < n && !bad; k++) {
        const double d = M[k + k * LDM];
        if (!(d > EPS * diag0[k]) || !fin(d)) {
            bad = true;
            break;
        }
        const double rk = sqrt(d), inv = 1.0 / rk;
        double li[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int i = ry + RY * u;
            li[u] = (i > k && i < n) ? M[k + i * LDM] * inv : 0.0;
        }
        const double rkj = (cx > k && cx < n) ? M[k + cx * LDM] * inv : 0.0;
        __syncthreads();
        if (cx > k && cx < n) {
#pragma unroll
            for (int u = 0; u < U; u++) {
                const int i = ry + RY * u;
                if (i > k && i <= cx) M[i + cx * LDM] = __fma_rn(-li[u], rkj, M[i + cx * LDM]);
            }
            if (ry == 0) M[k + cx * LDM] = rkj;
        }
        if (ry == 0 && cx == k) M[k + k * LDM] = rk;
        __syncthreads();
    }
    for (int e = tid; e < NC * NC; e += THREADS) {
        const int i = e % NC, j = e / NC;
        if (i > j) M[i + j * LDM] = 0.0;
    }
    __syncthreads();
    return bad;
}

// G (ld LDG, n x n) -> M (ld LDM), identity beyond n.
template <int NC>
__device__ __forceinline__ void load_sym(double* M, const double* G, int n) {
    for (int e = threadIdx.x; e < NC * NC; e += THREADS) {
        const int i = e % NC, j = e / NC;
        M[i + j * LDM] = (i < n && j < n) ? G[i + j * LDG] : (i == j ? 1.0 : 0.0);
    }
}

// C = A B for upper A, B (64 x 64, ld LDM; only i <= k <= j read), identity beyond n, zeros
// below: thread t computes rows t % 16 + 16 a, columns t / 16 + 16 b (16 accumulators, each an
// ascending-k sum). C must not alias A or B.
template <int NC>
__device__ __forceinline__ void tri_mm4(double* C, const double* A, const double* B, int n) {
    constexpr int A4 = NC / 16;  // a thread's rows (and columns): NC x NC over 16 x 16 threads
    const int ti = threadIdx.x & 15, tj = threadIdx.x >> 4;
    double acc[A4][A4];
#pragma unroll
    for (int a = 0; a < A4; a++)
#pragma unroll
        for (int b = 0; b < A4; b++) acc[a][b] = 0.0;
    const int kend = (tj + 16 * (A4 - 1) < n - 1 ? tj + 16 * (A4 - 1) : n - 1);
#pragma unroll 2
    for (int k = ti; k <= kend; k++) {
        double av[A4], bv[A4];
#pragma unroll
        for (int a = 0; a < A4; a++) av[a] = A[ti + 16 * a + k * LDM];
#pragma unroll
        for (int b = 0; b < A4; b++) bv[b] = B[k + (tj + 16 * b) * LDM];
#pragma unroll
        for (int a = 0; a < A4; a++)
#pragma unroll
            for (int b = 0; b < A4; b++) {
                const int i = ti + 16 * a, j = tj + 16 * b;
                if (i <= k && k <= j) acc[a][b] = __fma_rn(av[a], bv[b], acc[a][b]);
            }
    }
#pragma unroll
    for (int a = 0; a < A4; a++)
#pragma unroll
        for (int b = 0; b < A4; b++) {
            const int i = ti + 16 * a, j = tj + 16 * b;
            C[i + j * LDM] = (i <= j && j < n) ? acc[a][b] : (i == j ? 1.0 : 0.0);
        }
}

// Pass 1: the blocks' partial Grams of A and column masks. As in pass 2, each warp loads its own
// 16 rows of a tile and only the warp groups synchronise in the loop (GroupGram).
template <int NC>
__device__ void gram(const Cqp& p) {
    using C = Cfg<NC>;
    using GG = GroupGram<NC>;
    const Entry x = entry(p, blockIdx.y);
    double* Xs = cq_dsm;
    __shared__ unsigned s_bits[2];
    if (threadIdx.x < 2) s_bits[threadIdx.x] = 0;
    __syncthreads();
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, r = lane & 15, c0 = lane >> 4;
    const int g0 = 16 * GG::K * (w / GG::K);  // the group's first row in the tile
    double* xg = Xs + g0 * C::LDX;
    GG G;
    G.init();
    unsigned nz = 0;  // bit u: column c0 + 2 u
    for (i64 t = blockIdx.x; t < x.tiles; t += x.nblk) {
        if (t * TR + g0 >= x.m) break;  // only the last tile has rows beyond m: they add zero
        load_rows<NC, true>(Xs + (16 * w + r) * C::LDX + c0, x, t * TR + 16 * w + r, c0, &nz);
        G.sync();
        G.acc(xg);
        G.sync();
    }
    // lanes 0-15 and 16-31 share their columns
#pragma unroll
    for (int o = 8; o > 0; o >>= 1) nz |= __shfl_xor_sync(FULL, nz, o);
    if (r == 0 && nz) atomicOr(&s_bits[c0], nz);
    G.store(Xs, x.part + (i64)blockIdx.x * C::PART);
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long m = 0;
        for (int c = 0; c < 2; c++)
            for (int u = 0; u < 32; u++)
                if ((s_bits[c] >> u) & 1u) m |= 1ull << (c + 2 * u);
        x.masks[blockIdx.x] = m;
    }
}

// The fixed-order sum of the partials into G (full, symmetric), 64 entries a block over 4
// part groups; `second`: G2 (returns if the flag is set), else G1 and the columns' mask.
template <int NC>
__device__ void reduce(const Cqp& p, bool second) {
    const Entry x = entry(p, blockIdx.y);
    if (second && __ldcg(x.flag)) return;
    __shared__ double s[4][64];
    const int tid = threadIdx.x, l = tid & 63, q = tid >> 6, e = blockIdx.x * 64 + l;
    constexpr int PART = Cfg<NC>::PART;
    double a0 = 0.0, a1 = 0.0;
    if (e < PART) {
        int k = q;
        for (; k + 4 < x.nblk; k += 8) {
            a0 += __ldcg(x.part + (i64)k * PART + e);
            a1 += __ldcg(x.part + (i64)(k + 4) * PART + e);
        }
        if (k < x.nblk) a0 += __ldcg(x.part + (i64)k * PART + e);
    }
    s[q][l] = a0 + a1;
    __syncthreads();
    if (q == 0 && e < PART) {
        const double v = ((s[0][l] + s[1][l]) + s[2][l]) + s[3][l];
        const int t = e >> 4, a = (e >> 2) & 3, b = e & 3;
        int tj = 0;
        while ((tj + 1) * (tj + 2) / 2 <= t) tj++;
        const int ti = t - tj * (tj + 1) / 2, i = 4 * ti + a, j = 4 * tj + b;
        if (i <= j) {
            x.G[i + j * LDG] = v;
            x.G[j + i * LDG] = v;
        }
    }
    if (!second && blockIdx.x == 0 && tid < 32) {
        unsigned long long m = 0;
        for (int k = tid; k < x.nblk; k += 32) m |= __ldcg(x.masks + k);
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) m |= __shfl_xor_sync(FULL, m, o);
        if (tid == 0) *x.mask = m;
    }
}

// R1 = chol(G1); sets the flag (0: go on, 1: fall back). One block an entry.
template <int NC>
__device__ void chol1(const Cqp& p) {
    const Entry x = entry(p, blockIdx.x);
    double* M = cq_dsm;
    __shared__ double diag0[64];
    __shared__ volatile int sbad;
    load_sym<NC>(M, x.G, x.n);
    __syncthreads();  // the diagonal below is other threads' writes
    const unsigned long long want = x.n >= 64 ? ~0ull : (1ull << x.n) - 1;
    // LAPACK's tau = 0 (nothing below the top rows) and squares near the ends of the range
    bool odd = (__ldcg(x.mask) & want) != want;
    for (int k = 0; k < x.n; k++) {
        const double d = M[k + k * LDM];
        if (!(d >= 0x1p-900 && d <= 0x1p900)) odd = true;
    }
    const bool bad = chol_upper<NC>(M, x.n, diag0, &sbad) || odd;
    // (R1's first NC rows and columns: every later pass reads only those)
    for (int e = threadIdx.x; e < NC * NC; e += THREADS) {
        const int i = e % NC, j = e / NC;
        x.R1[i + j * LDG] = M[i + j * LDM];
    }
    if (threadIdx.x == 0) *x.flag = bad ? 1 : 0;
}

// Pass 2: q = a R1^-1 per row (not written), the partial Grams of Q1. As in pass 3, each warp
// loads and solves its own 16 rows of a tile; the Gram is accumulated by warp groups (GroupGram):
// no block barrier in the loop.
template <int NC>
__device__ void solve(const Cqp& p) {
    using C = Cfg<NC>;
    using GG = GroupGram<NC>;
    const Entry x = entry(p, blockIdx.y);
    if (__ldcg(x.flag)) return;
    double* Xs = cq_dsm;
    double* Rn = cq_dsm + C::RN;
    double* rinv = cq_dsm + C::RINV;
    setup_rn<NC>(Rn, rinv, x.R1, LDG);
    __syncthreads();
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, r = lane & 15, c0 = lane >> 4;
    const int g0 = 16 * GG::K * (w / GG::K);  // the group's first row in the tile
    double* xg = Xs + g0 * C::LDX;
    GG G;
    G.init();
    for (i64 t = blockIdx.x; t < x.tiles; t += x.nblk) {
        if (t * TR + g0 >= x.m) break;  // only the last tile has rows beyond m: they add zero
        load_rows<NC>(Xs + (16 * w + r) * C::LDX + c0, x, t * TR + 16 * w + r, c0);
        __syncwarp();
        solve_rows<NC>(Xs, Rn, rinv, TR);  // the same arithmetic as pass 3's first solve
        G.sync();
        G.acc(xg);
        G.sync();
    }
    G.store(Xs, x.part + (i64)blockIdx.x * C::PART);
}

// R2 = chol(G2), the checks, Q_top, its LU with signs, tau, A's top block, W = U R2 R1. One
// block an entry; NC x NC matrices (the panel's columns rounded up), in the layout of NC = 64.
template <int NC>
__device__ void lu(const Cqp& p) {
    using C = Cfg<NC>;
    constexpr int RY = THREADS / NC, U = NC / RY;
    const Entry x = entry(p, blockIdx.x);
    if (__ldcg(x.flag)) return;
    const int tid = threadIdx.x, n = x.n, cx = tid % NC, ry = tid / NC;
    double* Xs = cq_dsm;                  // Q_top (NC rows, ld LDX), then Z = R2 R1 (ld LDM)
    double* MR = Xs + LU_XS;              // -R and rinv during the substitutions, then M (LU)
    double* Rn = MR;
    double* rinv = MR + NC * C::LDX;
    double* M = MR;
    double* P = MR + LU_MR;               // G2, then R2
    double* Q = P + LU_MAT;               // R1, then W
    double* Z = Xs;
    __shared__ double diag0[64];
    __shared__ double sS[64];
    __shared__ double s_far[THREADS / 32];
    __shared__ volatile int sbad;
    load_sym<NC>(P, x.G, n);
    for (int e = tid; e < NC * NC; e += THREADS) {
        const int i = e % NC, j = e / NC;
        Q[i + j * LDM] = x.R1[i + j * LDG];
    }
    __syncthreads();
    // ||G2 - I||_F > 0.1 (or not finite): Q1 = A R1^-1 too far from orthonormal to trust R2
    double far = 0.0;
    for (int e = tid; e < NC * NC; e += THREADS) {
        const int i = e % NC, j = e / NC;
        const double d = P[i + j * LDM] - (i == j ? 1.0 : 0.0);
        if (i < n && j < n) far = __fma_rn(d, d, far);
    }
    // (the warps' sums, then theirs in a fixed order: every thread the same value)
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) far += __shfl_xor_sync(FULL, far, o);
    if ((tid & 31) == 0) s_far[tid >> 5] = far;
    __syncthreads();
    far = 0.0;
#pragma unroll
    for (int k = 0; k < THREADS / 32; k++) far += s_far[k];
    const bool bad = chol_upper<NC>(P, n, diag0, &sbad) || !(far <= 0.01);
    if (bad) {
        if (tid == 0) *x.flag = 1;
        return;
    }
    // Q_top = (A_top R1^-1) R2^-1, row by row
    load_top<NC>(Xs, x.A, x.lda, n);
    setup_rn<NC>(Rn, rinv, Q, LDM);
    __syncthreads();
    solve_rows<NC>(Xs, Rn, rinv, NC);
    __syncthreads();
    setup_rn<NC>(Rn, rinv, P, LDM);
    __syncthreads();
    solve_rows<NC>(Xs, Rn, rinv, NC);
    __syncthreads();
    for (int e = tid; e < NC * NC; e += THREADS) {
        const int i = e % NC, j = e / NC;
        M[i + j * LDM] = (i < n && j < n) ? Xs[i * C::LDX + j] : 0.0;
    }
    __syncthreads();
    // LU of Q_top - S in place: L strict lower (unit), U upper, |U_ii| >= 1
    for (int i = 0; i < n; i++) {
        const double d = M[i + i * LDM];
        const double s = d >= 0.0 ? -1.0 : 1.0;
        const double piv = d - s, rp = 1.0 / piv;
        if (tid == 0) sS[i] = s;
        double li[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int k = ry + RY * u;
            li[u] = (k > i && k < n) ? M[k + i * LDM] * rp : 0.0;
        }
        __syncthreads();
        if (cx > i && cx < n) {
            const double uij = M[i + cx * LDM];
#pragma unroll
            for (int u = 0; u < U; u++) {
                const int k = ry + RY * u;
                if (k > i && k < n) M[k + cx * LDM] = __fma_rn(-li[u], uij, M[k + cx * LDM]);
            }
        }
        if (cx == i) {
#pragma unroll
            for (int u = 0; u < U; u++) {
                const int k = ry + RY * u;
                if (k > i && k < n) M[k + i * LDM] = li[u];
            }
            if (ry == 0) M[i + i * LDM] = piv;
        }
        __syncthreads();
    }
    // Z = R2 R1 (upper, over the dead tile); then W = U R2 over Q (R1 no longer needed)
    if (tid == 0) sbad = 0;
    tri_mm4<NC>(Z, P, Q, n);
    __syncthreads();
    tri_mm4<NC>(Q, M, P, n);
    {
        const int ti = tid & 15, tj = tid >> 4;
        bool nf = false;
#pragma unroll
        for (int a4 = 0; a4 < NC / 16; a4++)
#pragma unroll
            for (int b4 = 0; b4 < NC / 16; b4++) {
                const int i = ti + 16 * a4, j = tj + 16 * b4;
                if (i < n && j < n && !(fin(Q[i + j * LDM]) && fin(M[i + j * LDM]) && fin(Z[i + j * LDM]))) nf = true;
            }
        if (nf) sbad = 1;
    }
    __syncthreads();
    if (sbad) {
        if (tid == 0) *x.flag = 1;
        return;
    }
    for (int e = tid; e < n * n; e += THREADS) {
        const int i = e % n, j = e / n;
        x.A[i + (i64)j * x.lda] = i > j ? M[i + j * LDM] : sS[i] * Z[i + j * LDM];
    }
    double* tau = (double*)p.tau + blockIdx.x * p.tau_s;
    if (tid < n) tau[tid] = -M[tid + tid * LDM] * sS[tid];
    __syncthreads();
    if (p.vf) {
        // Vf's top block (L, unit) while M holds the LU, and T = -(U S) L^-T straight from the
        // reconstruction (no Gram of V): the rows of -U S over the dead tile, times (L^T)^-1 by
        // the substitution with R = L^T (unit upper, in P: R2 is no longer needed; setup_rn
        // then overwrites M, dead too).
        double* vf = (double*)p.vf + blockIdx.x * p.vf_es;
        for (int e = tid; e < NC * NC; e += THREADS) {
            const int i = e % NC, j = e / NC;
            const bool in = i < n && j < n;
            Xs[i * C::LDX + j] = (in && i <= j) ? -M[i + j * LDM] * sS[j] : 0.0;
            P[i + j * LDM] = (in && i < j) ? M[j + i * LDM] : (i == j ? 1.0 : 0.0);
            if (in) vf[i + (i64)j * p.vf_ld] = i > j ? M[i + j * LDM] : (i == j ? 1.0 : 0.0);
        }
        __syncthreads();
        setup_rn<NC>(Rn, rinv, P, LDM);
        __syncthreads();
        solve_rows<NC>(Xs, Rn, rinv, NC);
        __syncthreads();
        double* t = (double*)p.t + blockIdx.x * p.t_es;
        double* vt = (double*)p.vt + blockIdx.x * p.vt_es;
        for (int e = tid; e < n * n; e += THREADS) {
            const int i = e % n, j = e / n;
            t[i + (i64)j * p.t_ld] = i <= j ? Xs[i * C::LDX + j] : 0.0;
            // VT's top block L T (L(i, k) = P(k, i) below the diagonal, 1 on it)
            double a = Xs[i * C::LDX + j];
            for (int k = 0; k < i; k++) a = __fma_rn(P[k + i * LDM], Xs[k * C::LDX + j], a);
            vt[i + (i64)j * p.vt_ld] = a;
        }
        // T as m8n8k4 B fragments at its width for cq_finish's VT rows (over G: read above)
        constexpr int nbk = NC / 8;
        for (int e = tid; e < NC * NC; e += THREADS) {
            const int lane = e & 31, blk = e >> 5, ks = blk / nbk, cb = blk % nbk;
            const int r = 4 * ks + (lane & 3), c = 8 * cb + (lane >> 2);
            x.G[e] = (r <= c && c < n) ? Xs[r * C::LDX + c] : 0.0;
        }
        __syncthreads();
    }
    // W^-1 (well conditioned: U's diagonal at least 1 in magnitude, R2 near the identity) as
    // the rows of I W^-1, by the substitution over the dead tile; into the workspace as pass 3's
    // B fragments at its width.
    for (int e = tid; e < NC * NC; e += THREADS) {
        const int i = e % NC, j = e / NC;
        Xs[i * C::LDX + j] = i == j ? 1.0 : 0.0;
    }
    setup_rn<NC>(Rn, rinv, Q, LDM);
    __syncthreads();
    solve_rows<NC>(Xs, Rn, rinv, NC);
    __syncthreads();
    constexpr int nc = NC, nbk = nc / 8;
    for (int e = tid; e < nc * nc; e += THREADS) {
        const int lane = e & 31, blk = e >> 5, ks = blk / nbk, cb = blk % nbk;
        x.W[e] = Xs[(4 * ks + (lane & 3)) * C::LDX + 8 * cb + (lane >> 2)];
    }
}

// Pass 3: rows >= n: v = (a R1^-1) W^-1 in place. Each warp loads, solves, multiplies and
// stores its own 16 rows of a tile (no block barrier in the loop: the warps of a block drift
// apart and hide each other's latencies); -R1 stays in shared memory, W^-1's fragments come
// through the read-only cache.
template <int NC>
__device__ void finish(const Cqp& p) {
    using C = Cfg<NC>;
    constexpr int LDX = C::LDX, HALF = NC / 2;
    const Entry x = entry(p, blockIdx.y);
    if (__ldcg(x.flag)) return;
    double* Xs = cq_dsm;
    double* Rn = cq_dsm + C::RN;
    double* rinv = cq_dsm + C::RINV;
    setup_rn<NC>(Rn, rinv, x.R1, LDG);
    __syncthreads();
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, r = lane & 15, c0 = lane >> 4;
    double* xr = Xs + (16 * w + r) * LDX + c0;
    double* vf = p.vf ? (double*)p.vf + blockIdx.y * p.vf_es : nullptr;
    double* vt = p.vf ? (double*)p.vt + blockIdx.y * p.vt_es : nullptr;
    for (i64 t = blockIdx.x; t < x.tiles; t += x.nblk) {
        const i64 gi = t * TR + 16 * w + r;
        const bool rok = gi < x.m;
        load_rows<NC>(xr, x, gi, c0);
        __syncwarp();
        solve_rows<NC>(Xs, Rn, rinv, TR);  // the same arithmetic as pass 2's
        times_upper<NC>(Xs, x.W);
        __syncwarp();
        if (rok && gi >= x.n) {
            double* ar = x.A + gi + (i64)c0 * x.lda;
#pragma unroll 4
            for (int u = 0; u < HALF; u++)
                if (c0 + 2 * u < x.n) ar[(i64)(2 * u) * x.lda] = xr[2 * u];
            if (vf) {
                double* vr = vf + gi + (i64)c0 * p.vf_ld;
#pragma unroll 4
                for (int u = 0; u < HALF; u++)
                    if (c0 + 2 * u < x.n) vr[(i64)(2 * u) * p.vf_ld] = xr[2 * u];
            }
        }
        __syncwarp();
        if (vf) {
            // VT's rows: v T (T's fragments from cq_lu, over G)
            times_upper<NC>(Xs, x.G);
            __syncwarp();
            if (rok && gi >= x.n) {
                double* vr = vt + gi + (i64)c0 * p.vt_ld;
#pragma unroll 4
                for (int u = 0; u < HALF; u++)
                    if (c0 + 2 * u < x.n) vr[(i64)(2 * u) * p.vt_ld] = xr[2 * u];
            }
            __syncwarp();
        }
    }
}

// Vf and T where the entry fell back (its flag set; the Householder panel, gated on the same
// flag, has just factored the block): Vf = V with its unit upper triangle written out, G =
// Vf^T Vf by tiles of TR rows (each thread its pairs, in row order: deterministic), T by
// larft's recurrence, T(0:i, i) = -tau_i T(0:i, 0:i) G(0:i, i). Returns at once where the
// CholeskyQR2 steps succeeded (cq_lu and cq_finish wrote Vf and T) or no Vf was asked for. One
// block an entry, in cq_lu's layout: slow (one multiprocessor reads the panel) but rare.
template <int NC>
__device__ void tfall(const Cqp& p) {
    using C = Cfg<NC>;
    const Entry x = entry(p, blockIdx.x);
    if (!p.vf || !__ldcg(x.flag)) return;
    constexpr int PAIRS = NC * (NC + 1) / 2, PER = (PAIRS + THREADS - 1) / THREADS;
    static_assert(TR * C::LDX <= LU_XS + LU_MR, "tfall: the tile fits before G");
    const int tid = threadIdx.x, n = x.n;
    double* Xs = cq_dsm;                  // a tile of TR rows (ld LDX)
    double* G = cq_dsm + LU_XS + LU_MR;   // ld LDM
    double* T = G + LU_MAT;               // ld LDM
    double* vf = (double*)p.vf + blockIdx.x * p.vf_es;
    const double* tau = (const double*)p.tau + blockIdx.x * p.tau_s;
    int pi[PER], pj[PER];
    double acc[PER];
#pragma unroll
    for (int u = 0; u < PER; u++) {
        // pair e = tid + THREADS u: column j, row i <= j (e = j (j + 1) / 2 + i)
        const int e = tid + THREADS * u;
        int j = 0;
        while ((j + 1) * (j + 2) / 2 <= e) j++;
        pi[u] = e < PAIRS ? e - j * (j + 1) / 2 : 0;
        pj[u] = e < PAIRS ? j : -1;
        acc[u] = 0.0;
    }
    for (i64 r0 = 0; r0 < x.m; r0 += TR) {
        for (int e = tid; e < TR * NC; e += THREADS) {
            const int i = e % TR, j = e / TR;
            const i64 gi = r0 + i;
            double v = 0.0;
            if (gi < x.m && j < n) {
                v = gi < j ? 0.0 : (gi == j ? 1.0 : x.A[gi + (i64)j * x.lda]);
                vf[gi + (i64)j * p.vf_ld] = v;
            }
            Xs[i * C::LDX + j] = v;
        }
        __syncthreads();
#pragma unroll
        for (int u = 0; u < PER; u++) {
            if (pj[u] < 0) continue;
            double a = acc[u];
            for (int i = 0; i < TR; i++) a = __fma_rn(Xs[i * C::LDX + pi[u]], Xs[i * C::LDX + pj[u]], a);
            acc[u] = a;
        }
        __syncthreads();
    }
#pragma unroll
    for (int u = 0; u < PER; u++)
        if (pj[u] >= 0) G[pi[u] + pj[u] * LDM] = acc[u];
    for (int e = tid; e < NC * NC; e += THREADS) T[e % NC + (e / NC) * LDM] = 0.0;
    __syncthreads();
    for (int i = 0; i < n; i++) {
        // column i needs only columns 0 .. i - 1, complete
        if (tid < i) {
            double v = 0.0;
            for (int k = tid; k < i; k++) v = __fma_rn(T[tid + k * LDM], G[k + i * LDM], v);
            T[tid + i * LDM] = -tau[i] * v;
        }
        if (tid == i) T[i + i * LDM] = tau[i];
        __syncthreads();
    }
    double* t = (double*)p.t + blockIdx.x * p.t_es;
    for (int e = tid; e < n * n; e += THREADS) {
        const int i = e % n, j = e / n;
        t[i + (i64)j * p.t_ld] = i <= j ? T[i + j * LDM] : 0.0;
    }
    // VT = Vf T, tile by tile
    double* vt = (double*)p.vt + blockIdx.x * p.vt_es;
    for (i64 r0 = 0; r0 < x.m; r0 += TR) {
        __syncthreads();
        for (int e = tid; e < TR * NC; e += THREADS) {
            const int i = e % TR, j = e / TR;
            const i64 gi = r0 + i;
            double v = 0.0;
            if (gi < x.m && j < n) v = gi < j ? 0.0 : (gi == j ? 1.0 : x.A[gi + (i64)j * x.lda]);
            Xs[i * C::LDX + j] = v;
        }
        __syncthreads();
        for (int e = tid; e < TR * NC; e += THREADS) {
            const int i = e % TR, j = e / TR;
            const i64 gi = r0 + i;
            if (gi >= x.m || j >= n) continue;
            double a = 0.0;
            for (int k = 0; k <= j; k++) a = __fma_rn(Xs[i * C::LDX + k], T[k + j * LDM], a);
            vt[gi + (i64)j * p.vt_ld] = a;
        }
    }
}
}  // namespace cq

#ifdef GPUBLAS_FAMILY_CHOLQR
#define CQ_KERNELS(NC) \
    extern "C" __global__ void __launch_bounds__(256, 2) qr_cqgram##NC##_d(Cqp p) { pdl_enter(); cq::gram<NC>(p); } \
    extern "C" __global__ void __launch_bounds__(256) qr_cqreduce##NC##_d(Cqp p) { pdl_enter(); cq::reduce<NC>(p, false); } \
    extern "C" __global__ void __launch_bounds__(256) qr_cqreduce2##NC##_d(Cqp p) { pdl_enter(); cq::reduce<NC>(p, true); } \
    extern "C" __global__ void __launch_bounds__(256, 2) qr_cqsolve##NC##_d(Cqp p) { pdl_enter(); cq::solve<NC>(p); } \
    extern "C" __global__ void __launch_bounds__(256, 2) qr_cqfinish##NC##_d(Cqp p) { pdl_enter(); cq::finish<NC>(p); }
CQ_KERNELS(16)
CQ_KERNELS(32)
CQ_KERNELS(64)
#define CQ_ONE_BLOCK_KERNELS(NC) \
    extern "C" __global__ void __launch_bounds__(256, 1) qr_cqchol1##NC##_d(Cqp p) { pdl_enter(); cq::chol1<NC>(p); } \
    extern "C" __global__ void __launch_bounds__(256, 1) qr_cqlu##NC##_d(Cqp p) { pdl_enter(); cq::lu<NC>(p); } \
    extern "C" __global__ void __launch_bounds__(256, 1) qr_cqtfall##NC##_d(Cqp p) { pdl_enter(); cq::tfall<NC>(p); }
CQ_ONE_BLOCK_KERNELS(16)
CQ_ONE_BLOCK_KERNELS(32)
CQ_ONE_BLOCK_KERNELS(64)
#endif
