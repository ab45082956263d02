// The eigensolver family's kernels (GPUBLAS_FAMILY_EIG), for float (s), double (d), float2 (c)
// and double2 (z):
//   eig_jacobi<NP>:  the eigenvalues (and eigenvectors) of a Hermitian matrix of order n <= NP,
//                    NP in {8, 16, 32, 64} (the order padded with zero rows and columns), by the
//                    cyclic Jacobi method, one matrix per block (32 threads for NP <= 32, 256 for
//                    NP = 64), the matrix A and the eigenvectors V in shared memory. `_l`
//                    variants take the matrices' addresses as a list parameter.
//
// The algorithm (mirrored step for step by the host backend, src/eig/host.rs):
// - Load: the stored triangle into the full Hermitian A (imaginary parts of the diagonal
//   ignored, as LAPACK); a NaN or infinity there gives NaN eigenvalues (and vectors),
//   residual NaN, 0 sweeps and info = `nan_info`, and no iteration at all. A whose largest
//   |re|, |im| lies outside [LO, HI] is scaled by a power of two into [1/2, 1) (exact), so
//   that plain sums of squares neither overflow nor underflow; W and the residual are
//   unscaled at the end.
// - Sweeps: each sweep is NP - 1 rounds of the round-robin (circle) ordering, round r pairing
//   (NP - 1, r) and ((r + k) mod (NP - 1), (r - k) mod (NP - 1)) for k = 1 .. NP/2 - 1: every
//   pair of indices once a sweep, NP/2 disjoint pairs a round. Per round: (1) thread k forms
//   pair k's rotation (p < q, a_pq = g phi with g = |a_pq|): skipped (the identity) when g = 0
//   or g <= eps sqrt|a_pp| sqrt|a_qq|; else Rutishauser's theta = (a_qq - a_pp) / (2 g),
//   t = sign(theta) / (|theta| + sqrt(1 + theta^2)) (1 / (2 theta) for huge theta),
//   c = 1 / sqrt(1 + t^2), s = t c, J = [[c, s phi], [-s conj(phi), c]]; the pair's diagonal
//   block becomes diag(a_pp - t g, a_qq + t g) exactly. (2) Every off-diagonal 2 x 2 block of
//   two pairs (k, l) becomes J_k^H B J_l, written with its conjugate transpose (A stays exactly
//   Hermitian). (3) V's columns p, q become V J. Padding indices are zero: their rotations are
//   skipped exactly.
// - Stopping test, before each sweep: off(A) = sqrt(sum_{i != j} |a_ij|^2) <= tol ||A||_F
//   (tol = abstol, or eps when abstol <= 0) converges; a sweep that rotated nothing converges
//   too (every entry is below its pair threshold); max_sweeps sweeps without either: info = 1.
//   Sums are reduced in one fixed order (deterministic).
// - Output: W = diag(A) (ascending with `sort`, ties in index order), V's columns in the same
//   order over A (with `vectors`), residual = off(A), sweeps, info.

#define EIG_LIST_MAX 3968  // LIST_MAX in src/kernels.rs

struct EigList {
    u64 p[EIG_LIST_MAX];
};

struct Eigp {
    u64 a;               // the strided form's entry 0 (lists: the list parameter)
    i64 lda, a_s;        // leading dimension, elements between strided entries
    u64 w;               // eigenvalues of entry 0 (the real type), w_s elements apart
    i64 w_s;
    u64 info, sweeps, res;  // per entry, i32 / i32 / the real type; 0: not written
    double tol;          // abstol (<= 0 or NaN: the type's eps)
    int n, ne, max_sweeps, vectors, sort, lower, nan_info, pad;
};

template <class T> struct EigReal;
template <> struct EigReal<float> { typedef float R; };
template <> struct EigReal<double> { typedef double R; };
template <> struct EigReal<float2> { typedef float R; };
template <> struct EigReal<double2> { typedef double R; };

// The type's machine epsilon, and the range [LO, HI] of the largest entry left unscaled.
template <class R> struct EigLimits;
template <> struct EigLimits<float> {
    static __device__ __forceinline__ float eps() { return 0x1p-23f; }
    static __device__ __forceinline__ float lo() { return 0x1p-40f; }
    static __device__ __forceinline__ float hi() { return 0x1p40f; }
    static __device__ __forceinline__ float huge_theta() { return 0x1p60f; }
    static __device__ __forceinline__ float nan() { return __int_as_float(0x7fc00000); }
    // 2^k, k clamped to the normal range
    static __device__ __forceinline__ float pow2(int k) {
        k = max(-126, min(127, k));
        return __int_as_float((k + 127) << 23);
    }
    static __device__ __forceinline__ int exponent(float v) {
        return ((__float_as_int(v) >> 23) & 0xff) - 127;
    }
};
template <> struct EigLimits<double> {
    static __device__ __forceinline__ double eps() { return 0x1p-52; }
    static __device__ __forceinline__ double lo() { return 0x1p-400; }
    static __device__ __forceinline__ double hi() { return 0x1p400; }
    static __device__ __forceinline__ double huge_theta() { return 0x1p500; }
    static __device__ __forceinline__ double nan() { return __longlong_as_double(0x7ff8000000000000ll); }
    static __device__ __forceinline__ double pow2(int k) {
        k = max(-1022, min(1023, k));
        return __longlong_as_double((long long)(k + 1023) << 52);
    }
    static __device__ __forceinline__ int exponent(double v) {
        return (int)((__double_as_longlong(v) >> 52) & 0x7ff) - 1023;
    }
};

__device__ __forceinline__ float ere(float v) { return v; }
__device__ __forceinline__ double ere(double v) { return v; }
__device__ __forceinline__ float ere(float2 v) { return v.x; }
__device__ __forceinline__ double ere(double2 v) { return v.x; }
__device__ __forceinline__ float eim(float) { return 0.f; }
__device__ __forceinline__ double eim(double) { return 0.0; }
__device__ __forceinline__ float eim(float2 v) { return v.y; }
__device__ __forceinline__ double eim(double2 v) { return v.y; }
template <class T> __device__ __forceinline__ T emake(typename EigReal<T>::R re, typename EigReal<T>::R im);
template <> __device__ __forceinline__ float emake<float>(float re, float) { return re; }
template <> __device__ __forceinline__ double emake<double>(double re, double) { return re; }
template <> __device__ __forceinline__ float2 emake<float2>(float re, float im) { return make_float2(re, im); }
template <> __device__ __forceinline__ double2 emake<double2>(double re, double im) { return make_double2(re, im); }

// a b
template <class T> __device__ __forceinline__ T emul(T a, T b) {
    typedef typename EigReal<T>::R R;
    const R ar = ere(a), ai = eim(a), br = ere(b), bi = eim(b);
    return emake<T>(ar * br - ai * bi, ar * bi + ai * br);
}
// x c - y d (c real)
template <class T> __device__ __forceinline__ T erot(T x, typename EigReal<T>::R c, T y, T d) {
    const T yd = emul(y, d);
    return emake<T>(ere(x) * c - ere(yd), eim(x) * c - eim(yd));
}
// x c + y d (c real)
template <class T> __device__ __forceinline__ T erotp(T x, typename EigReal<T>::R c, T y, T d) {
    const T yd = emul(y, d);
    return emake<T>(ere(x) * c + ere(yd), eim(x) * c + eim(yd));
}
template <class T> __device__ __forceinline__ typename EigReal<T>::R eabs2(T v) {
    return ere(v) * ere(v) + eim(v) * eim(v);
}
template <class T> __device__ __forceinline__ T econj(T v) {
    return emake<T>(ere(v), -eim(v));
}
template <class T> __device__ __forceinline__ T escale(T v, typename EigReal<T>::R s) {
    return emake<T>(ere(v) * s, eim(v) * s);
}

template <int NT> __device__ __forceinline__ void eig_sync() {
    if (NT == 32) __syncwarp();
    else __syncthreads();
}

// The block's sum (every thread gets the same bits): a butterfly in each warp, then the
// warps' sums in order. `buf` holds one value per warp.
template <int NT, class R> __device__ __forceinline__ R eig_sum(R v, R* buf) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if (NT == 32) return v;
    __syncthreads();
    if ((threadIdx.x & 31) == 0) buf[threadIdx.x >> 5] = v;
    __syncthreads();
    R s = buf[0];
#pragma unroll
    for (int k = 1; k < NT / 32; ++k) s += buf[k];
    return s;
}

template <int NT, class R> __device__ __forceinline__ R eig_max(R v, R* buf) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
    if (NT == 32) return v;
    __syncthreads();
    if ((threadIdx.x & 31) == 0) buf[threadIdx.x >> 5] = v;
    __syncthreads();
    R s = buf[0];
#pragma unroll
    for (int k = 1; k < NT / 32; ++k) s = fmax(s, buf[k]);
    return s;
}

template <int NT> __device__ __forceinline__ bool eig_any(bool x) {
    if (NT == 32) return __any_sync(0xffffffffu, x);
    return __syncthreads_or(x);
}

// Pair k of round r of the circle ordering of m + 1 items (m odd), as (smaller, larger).
__device__ __forceinline__ void eig_pair(int m, int r, int k, int& p, int& q) {
    int x, y;
    if (k == 0) {
        x = m;
        y = r;
    } else {
        x = (r + k) % m;
        y = (r - k + m) % m;
    }
    p = min(x, y);
    q = max(x, y);
}

// Sums of |a_ij|^2 over the thread's columns (off: without the diagonal).
template <class T, int NP, int NT>
__device__ __forceinline__ typename EigReal<T>::R eig_col_sums(const T* A, bool off) {
    typedef typename EigReal<T>::R R;
    constexpr int LD = NP + 1;
    R s = 0;
    for (int c = threadIdx.x; c < NP; c += NT)
        for (int i = 0; i < NP; ++i)
            if (!off || i != c) s += eabs2(A[i + c * LD]);
    return s;
}

template <class T, int NP>
__device__ void eig_jacobi(const Eigp& j, u64 addr) {
    typedef typename EigReal<T>::R R;
    typedef EigLimits<R> L;
    constexpr int NT = NP <= 32 ? 32 : 256;
    constexpr int P = NP / 2;
    constexpr int LD = NP + 1;
    extern __shared__ __align__(16) unsigned char eig_smem[];
    T* A = (T*)eig_smem;
    T* V = A + NP * LD;
    __shared__ R s_c[P], s_s[P], s_w[NP], s_red[NT / 32];
    __shared__ T s_ph[P];
    __shared__ int s_p[P], s_q[P], s_rank[NP], s_skip[P];
    pdl_enter();
    const int t = threadIdx.x;
    const i64 e = blockIdx.x;
    if (e >= j.ne) return;  // (the whole block)
    T* G = (T*)addr;
    R* W = (R*)j.w + e * j.w_s;
    const int n = j.n;
    const i64 lda = j.lda;

    // Load the stored triangle into the full Hermitian matrix (zero padding).
    for (int x = t; x < NP * LD; x += NT) {
        A[x] = emake<T>(0, 0);
        V[x] = emake<T>((x % LD) == (x / LD) ? 1 : 0, 0);
    }
    eig_sync<NT>();
    bool bad = false;
    R amax = 0;
    for (int x = t; x < n * n; x += NT) {
        const int r = x % n, c = x / n;
        if (j.lower ? r < c : r > c) continue;
        const T v = G[r + c * lda];
        const R re = ere(v), im = r == c ? (R)0 : eim(v);
        if (!isfinite(re) || !isfinite(im)) bad = true;
        amax = fmax(amax, fmax(fabs(re), fabs(im)));
        A[r + c * LD] = emake<T>(re, im);
        A[c + r * LD] = emake<T>(re, -im);
    }
    bad = eig_any<NT>(bad);
    amax = eig_max<NT>(amax, s_red);
    eig_sync<NT>();
    if (bad) {
        const R nan = L::nan();
        for (int i = t; i < n; i += NT) W[i] = nan;
        if (j.vectors)
            for (int x = t; x < n * n; x += NT) G[x % n + (x / n) * lda] = emake<T>(nan, nan);
        if (t == 0) {
            if (j.info) ((int*)j.info)[e] = j.nan_info;
            if (j.sweeps) ((int*)j.sweeps)[e] = 0;
            if (j.res) ((R*)j.res)[e] = nan;
        }
        return;
    }
    // Scale into range by a power of two.
    R sigma = 1;
    if (amax > 0 && (amax < L::lo() || amax > L::hi())) sigma = L::pow2(-L::exponent(amax));
    if (sigma != (R)1) {
        for (int x = t; x < NP * LD; x += NT) A[x] = escale(A[x], sigma);
        eig_sync<NT>();
    }
    const R eps = L::eps();
    const R tol = j.tol > 0.0 ? (R)j.tol : eps;
    const R fro = sqrt(eig_sum<NT>(eig_col_sums<T, NP, NT>(A, false), s_red));
    const R thr = tol * fro;
    R off = sqrt(eig_sum<NT>(eig_col_sums<T, NP, NT>(A, true), s_red));
    int sweeps = 0, info = 0;
    for (;;) {
        if (off <= thr) break;
        if (sweeps >= j.max_sweeps) {
            info = 1;
            break;
        }
        bool rotated = false;
        for (int r = 0; r < NP - 1; ++r) {
            // (1) the rotations, each pair's diagonal block
            if (t < P) {
                int p, q;
                eig_pair(NP - 1, r, t, p, q);
                const R app = ere(A[p + p * LD]), aqq = ere(A[q + q * LD]);
                const T apq = A[p + q * LD];
                const R g = sqrt(eabs2(apq));
                const bool skip = g == (R)0 || g <= eps * sqrt(fabs(app)) * sqrt(fabs(aqq));
                R c = 1, s = 0;
                T ph = emake<T>(1, 0);
                if (!skip) {
                    const R theta = (aqq - app) / (2 * g);
                    const R at = fabs(theta);
                    R tt = at > L::huge_theta() ? (R)1 / (2 * at) : (R)1 / (at + sqrt(1 + at * at));
                    if (theta < 0) tt = -tt;
                    c = (R)1 / sqrt(1 + tt * tt);
                    s = tt * c;
                    ph = emake<T>(ere(apq) / g, eim(apq) / g);
                    A[p + p * LD] = emake<T>(app - tt * g, 0);
                    A[q + q * LD] = emake<T>(aqq + tt * g, 0);
                    A[p + q * LD] = emake<T>(0, 0);
                    A[q + p * LD] = emake<T>(0, 0);
                    rotated = true;
                }
                s_c[t] = c;
                s_s[t] = s;
                s_ph[t] = ph;
                s_p[t] = p;
                s_q[t] = q;
                s_skip[t] = skip;
            }
            eig_sync<NT>();
            // (2) the off-diagonal blocks: pairs of pairs, by the circle ordering of P items
            for (int x = t; x < P * (P - 1) / 2; x += NT) {
                int k, l;
                eig_pair(P - 1, x / (P / 2), x % (P / 2), l, k);
                if (s_skip[k] && s_skip[l]) continue;
                const int pk = s_p[k], qk = s_q[k], pl = s_p[l], ql = s_q[l];
                const R ck = s_c[k], cl = s_c[l];
                const T sk = escale(s_ph[k], s_s[k]), sl = escale(s_ph[l], s_s[l]);
                const T b00 = A[pk + pl * LD], b01 = A[pk + ql * LD];
                const T b10 = A[qk + pl * LD], b11 = A[qk + ql * LD];
                // X = B J_l
                const T x00 = erot(b00, cl, b01, econj(sl)), x01 = erotp(b01, cl, b00, sl);
                const T x10 = erot(b10, cl, b11, econj(sl)), x11 = erotp(b11, cl, b10, sl);
                // B' = J_k^H X
                const T y00 = erot(x00, ck, x10, sk), y01 = erot(x01, ck, x11, sk);
                const T y10 = erotp(x10, ck, x00, econj(sk)), y11 = erotp(x11, ck, x01, econj(sk));
                A[pk + pl * LD] = y00;
                A[pk + ql * LD] = y01;
                A[qk + pl * LD] = y10;
                A[qk + ql * LD] = y11;
                A[pl + pk * LD] = econj(y00);
                A[ql + pk * LD] = econj(y01);
                A[pl + qk * LD] = econj(y10);
                A[ql + qk * LD] = econj(y11);
            }
            // (3) V J
            for (int x = t; x < NP * P; x += NT) {
                const int i = x % NP, k = x / NP;
                if (s_skip[k]) continue;
                const int p = s_p[k], q = s_q[k];
                const R c = s_c[k];
                const T sp = escale(s_ph[k], s_s[k]);
                const T vp = V[i + p * LD], vq = V[i + q * LD];
                V[i + p * LD] = erot(vp, c, vq, econj(sp));
                V[i + q * LD] = erotp(vq, c, vp, sp);
            }
            eig_sync<NT>();
        }
        rotated = eig_any<NT>(rotated);
        ++sweeps;
        off = sqrt(eig_sum<NT>(eig_col_sums<T, NP, NT>(A, true), s_red));
        if (!rotated) break;
    }
    // Eigenvalues (sorted), then the vectors in their order.
    for (int i = t; i < n; i += NT) s_w[i] = ere(A[i + i * LD]);
    eig_sync<NT>();
    for (int i = t; i < n; i += NT) {
        const R wi = s_w[i];
        int rank = i;
        if (j.sort) {
            rank = 0;
            for (int k = 0; k < n; ++k) {
                const R wk = s_w[k];
                rank += (wk < wi || (wk == wi && k < i)) ? 1 : 0;
            }
        }
        s_rank[i] = rank;
        W[rank] = wi / sigma;
    }
    eig_sync<NT>();
    if (j.vectors)
        for (int x = t; x < n * n; x += NT) {
            const int r = x % n, c = x / n;
            G[r + s_rank[c] * lda] = V[r + c * LD];
        }
    if (t == 0) {
        if (j.info) ((int*)j.info)[e] = info;
        if (j.sweeps) ((int*)j.sweeps)[e] = sweeps;
        if (j.res) ((R*)j.res)[e] = off / sigma;
    }
}

// ---- stage 2 of the two-stage reduction: band to tridiagonal (bulge chasing) ----------------
//
// The Hermitian band of `kd` subdiagonals in `ab` (lower band storage with room for the
// bulge: element (i, j), 0 <= i - j < 2 kd, at (i - j) + j ldab) becomes real tridiagonal by
// the sweeps of LAPACK's hb2st: sweep s (s = 0 .. n - 2) reduces column s and chases the bulge
// it makes down the band, task by task. Task 0: the reflector H of column s below its
// subdiagonal (larfg), then the diagonal block D = B[s+1 .., s+1 ..] (order nc = min(kd,
// n - 1 - s)) becomes H^H D H. Task t >= 1 (rows j0 = s + 1 + t kd .., nr = min(kd, n - j0)
// of them): the block O = B[j0 .., j0 - kd ..] (nr x kd) becomes O H_prev (the sweep's
// previous reflector, which made the bulge), then the reflector of O's first column, O's
// other columns H^H O, and D = B[j0 .., j0 ..] becomes H^H D H. E[s] is the beta of task 0 (real).
//
// Scheduling: one block per sweep at a time, sweep s on block s mod gridDim.x (cooperative
// launch: every block resident). Task t of sweep s needs task t + 1 of sweep s - 1 done (they
// share one row); tasks further apart touch disjoint rows. Progress: prog[s] = tasks of sweep
// s done, published with release after the block's writes, read with acquire; the band is
// read through L2 (another SM wrote it).
//
// The reflectors (with vectors): reflector (s, t) of length len is stored in column n - 1 - s
// of A's strict upper triangle at rows t kd ..: its tau first, then v[1 .. len) (v[0] = 1).
// The sweep's reflectors cover rows s + 1 .. n - 1 once, so they fill that column exactly.

#define SB2ST_THREADS 256  // THREADS in src/eig/bulge.rs

// Waits until the progress counter at f reaches need (acquire: the tasks it counts wrote
// their rows before their release), sleeping ns between polls.
__device__ __forceinline__ void sb_wait(const unsigned* f, unsigned need, unsigned ns) {
    unsigned got;
    for (;;) {
        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(got) : "l"(f) : "memory");
        if (got >= need) break;
        __nanosleep(ns);
    }
}

struct Sb2stp {
    u64 ab;          // the band, T
    i64 ldab;        // 2 kd
    u64 a;           // A (reflectors to its strict upper triangle); 0: not stored
    i64 lda;
    u64 e;           // the subdiagonal, n - 1 reals
    u64 prog;        // n - 1 counters, zeroed
    i64 n;
    int kd, pad;
};

template <class T> __device__ __forceinline__ T eadd(T a, T b) {
    return emake<T>(ere(a) + ere(b), eim(a) + eim(b));
}
template <class T> __device__ __forceinline__ T esub(T a, T b) {
    return emake<T>(ere(a) - ere(b), eim(a) - eim(b));
}
// conj(a) b
template <class T> __device__ __forceinline__ T ecmul(T a, T b) { return emul(econj(a), b); }

// The block's sum of reals (every thread gets it). `buf` holds one per warp.
template <class R> __device__ __forceinline__ R sb_sum(R v, R* buf) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    __syncthreads();
    if ((threadIdx.x & 31) == 0) buf[threadIdx.x >> 5] = v;
    __syncthreads();
    R s = 0;
    for (int k = 0; k < (int)(blockDim.x >> 5); ++k) s += buf[k];
    return s;
}

// The sum over groups of W consecutive lanes (W a power of two up to 32; every lane of the
// group gets it).
template <int W, class T> __device__ __forceinline__ T sb_gsum(T v) {
    typedef typename EigReal<T>::R R;
    R re = ere(v), im = eim(v);
#pragma unroll
    for (int o = W / 2; o > 0; o >>= 1) {
        re += __shfl_xor_sync(0xffffffffu, re, o);
        im += __shfl_xor_sync(0xffffffffu, im, o);
    }
    return emake<T>(re, im);
}

// LAPACK's larfg for alpha and a vector of norm^2 xn2: beta, tau and the factor the vector is
// multiplied by (H^H (alpha; x) = (beta; 0), H = I - tau v v^H, v = (1; x scal)); tau = 0
// (H = I) when there is nothing to reflect and alpha is real.
template <class T> struct SbRefl {
    typename EigReal<T>::R beta;
    T tau, scal;
};
template <class T> __device__ SbRefl<T> sb_larfg(T alpha, typename EigReal<T>::R xn2) {
    typedef typename EigReal<T>::R R;
    SbRefl<T> f;
    const R ar = ere(alpha), ai = eim(alpha);
    if (xn2 == (R)0 && ai == (R)0) {
        f.beta = ar;
        f.tau = emake<T>(0, 0);
        f.scal = emake<T>(0, 0);
        return f;
    }
    R beta = sqrt(ar * ar + ai * ai + xn2);
    if (ar >= (R)0) beta = -beta;
    f.beta = beta;
    f.tau = emake<T>((beta - ar) / beta, -ai / beta);
    // 1 / (alpha - beta)
    const R dr = ar - beta, di = ai;
    const R q = dr * dr + di * di;
    f.scal = emake<T>(dr / q, -di / q);
    return f;
}

template <class T, int KD>
__device__ void eig_sb2st(const Sb2stp& p) {
    typedef typename EigReal<T>::R R;
    constexpr int LD = KD + 1;
    // The block's threads (SB2ST_THREADS), TPR of them to a row's or column's dot product.
    constexpr int TPR = SB2ST_THREADS / KD;
    extern __shared__ __align__(16) unsigned char sb_smem[];
    T* O = (T*)sb_smem;       // KD x KD (ld LD)
    T* D = O + KD * LD;        // KD x KD (ld LD), full Hermitian
    T* v = D + KD * LD;        // the task's reflector
    T* vp = v + KD;            // the sweep's previous one
    T* y = vp + KD;            // products
    __shared__ R s_red[32];
    __shared__ T s_tau, s_taup;
    pdl_enter();
    const int tid = threadIdx.x, nt = blockDim.x;
    const i64 n = p.n, ldab = p.ldab;
    T* ab = (T*)p.ab;
    T* A = (T*)p.a;
    R* E = (R*)p.e;
    unsigned* prog = (unsigned*)p.prog;
#define SB(i, j) ab[((i) - (j)) + (j) * ldab]
    for (i64 s = blockIdx.x; s < n - 1; s += gridDim.x) {
        const i64 ts = (n - 1 - s + KD - 1) / KD;
        const i64 tprev = s > 0 ? (n - s + KD - 1) / KD : 0;
        for (i64 t = 0; t < ts; ++t) {
            if (s > 0) {
                if (tid == 0) sb_wait(prog + (s - 1), (unsigned)min(t + 2, tprev), 64);
                __syncthreads();
            }
            const i64 j0 = s + 1 + t * KD;
            const int nr = (int)min((i64)KD, n - j0);
            T tau;
            if (t == 0) {
                // column s below its diagonal
                for (int i = tid; i < nr; i += nt) y[i] = __ldcg(&SB(j0 + i, s));
                __syncthreads();
                R part = 0;
                for (int i = 1 + tid; i < nr; i += nt) part += eabs2(y[i]);
                const R xn2 = sb_sum(part, s_red);
                const SbRefl<T> f = sb_larfg(y[0], xn2);
                tau = f.tau;
                for (int i = tid; i < nr; i += nt) {
                    v[i] = i == 0 ? emake<T>(1, 0) : emul(y[i], f.scal);
                    SB(j0 + i, s) = i == 0 ? emake<T>(f.beta, 0) : emake<T>(0, 0);
                }
                if (tid == 0) E[s] = f.beta;
            } else {
                const i64 jp = j0 - KD;
                for (int x = tid; x < KD * KD; x += nt) {
                    const int i = x % KD, k = x / KD;
                    if (i < nr) O[i + k * LD] = __ldcg(&SB(j0 + i, jp + k));
                }
                __syncthreads();
                // O H_prev = O - tau_p (O vp) vp^H
                const T taup = s_taup;
                if (!(ere(taup) == (R)0 && eim(taup) == (R)0)) {
                    {
                        // TPR threads a row
                        const int i = tid / TPR, part = tid % TPR;
                        T acc = emake<T>(0, 0);
                        if (i < nr)
                            for (int k = part; k < KD; k += TPR) acc = eadd(acc, emul(O[i + k * LD], vp[k]));
                        acc = sb_gsum<TPR>(acc);
                        if (i < nr && part == 0) y[i] = emul(acc, taup);
                    }
                    __syncthreads();
                    for (int x = tid; x < KD * KD; x += nt) {
                        const int i = x % KD, k = x / KD;
                        if (i < nr) O[i + k * LD] = esub(O[i + k * LD], emul(y[i], econj(vp[k])));
                    }
                    __syncthreads();
                }
                // the reflector of O's first column
                R part = 0;
                for (int i = 1 + tid; i < nr; i += nt) part += eabs2(O[i]);
                const R xn2 = sb_sum(part, s_red);
                const SbRefl<T> f = sb_larfg(O[0], xn2);
                tau = f.tau;
                for (int i = tid; i < nr; i += nt) v[i] = i == 0 ? emake<T>(1, 0) : emul(O[i], f.scal);
                __syncthreads();
                if (tid == 0) O[0] = emake<T>(f.beta, 0);
                for (int i = 1 + tid; i < nr; i += nt) O[i] = emake<T>(0, 0);
                // O's other columns: H^H O = O - conj(tau) v (v^H O)
                if (!(ere(tau) == (R)0 && eim(tau) == (R)0)) {
                    {
                        // TPR threads a column
                        const int k = tid / TPR, part = tid % TPR;
                        T acc = emake<T>(0, 0);
                        if (k >= 1)
                            for (int i = part; i < nr; i += TPR) acc = eadd(acc, ecmul(v[i], O[i + k * LD]));
                        acc = sb_gsum<TPR>(acc);
                        if (k >= 1 && part == 0) y[k] = emul(econj(tau), acc);
                    }
                    __syncthreads();
                    for (int x = KD + tid; x < KD * KD; x += nt) {
                        const int i = x % KD, k = x / KD;
                        if (i < nr) O[i + k * LD] = esub(O[i + k * LD], emul(v[i], y[k]));
                    }
                }
                __syncthreads();
                for (int x = tid; x < KD * KD; x += nt) {
                    const int i = x % KD, k = x / KD;
                    if (i < nr) SB(j0 + i, jp + k) = O[i + k * LD];
                }
            }
            // D = H^H D H: x = tau D v, c = conj(tau) v^H x (real), w = x - c/2 v,
            // D -= v w^H + w v^H (the lower triangle written back).
            for (int x = tid; x < KD * KD; x += nt) {
                const int i = x % KD, k = x / KD;
                if (i >= k && i < nr) {
                    const T d = __ldcg(&SB(j0 + i, j0 + k));
                    D[i + k * LD] = i == k ? emake<T>(ere(d), 0) : d;
                    D[k + i * LD] = i == k ? emake<T>(ere(d), 0) : econj(d);
                }
            }
            __syncthreads();
            if (!(ere(tau) == (R)0 && eim(tau) == (R)0)) {
                {
                    const int i = tid / TPR, part = tid % TPR;
                    T acc = emake<T>(0, 0);
                    if (i < nr)
                        for (int k = part; k < nr; k += TPR) acc = eadd(acc, emul(D[i + k * LD], v[k]));
                    acc = sb_gsum<TPR>(acc);
                    if (i < nr && part == 0) y[i] = emul(tau, acc);
                }
                __syncthreads();
                R part = 0;
                for (int i = tid; i < nr; i += nt) part += ere(emul(econj(tau), ecmul(v[i], y[i])));
                const R c = sb_sum(part, s_red);
                for (int i = tid; i < nr; i += nt) y[i] = esub(y[i], escale(v[i], c / 2));
                __syncthreads();
                for (int x = tid; x < KD * KD; x += nt) {
                    const int i = x % KD, k = x / KD;
                    if (i >= k && i < nr) {
                        T d = esub(D[i + k * LD], eadd(emul(v[i], econj(y[k])), emul(y[i], econj(v[k]))));
                        if (i == k) d = emake<T>(ere(d), 0);
                        SB(j0 + i, j0 + k) = d;
                    }
                }
            }
            // the reflector to A's triangle; it stays as the sweep's previous one
            if (A) {
                T* col = A + (n - 1 - s) * p.lda + t * KD;
                for (int i = tid; i < nr; i += nt) col[i] = i == 0 ? tau : v[i];
            }
            __syncthreads();
            for (int i = tid; i < nr; i += nt) vp[i] = v[i];
            if (tid == 0) {
                s_taup = tau;
                asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(prog + s), "r"((unsigned)(t + 1)) : "memory");
            }
            __syncthreads();
        }
    }
#undef SB
}

// The same sweeps with two teams of warps per sweep in flight (KD <= 32), several sweeps a
// block. A task splits in two parts on disjoint blocks of the band: its O part (t = 0: the
// reflector H of column s; t >= 1: O H_prev, the reflector H of O's first column, H^H O on the
// other columns) and its D part (D = H^H D H). Team A of the sweep runs its O parts and hands
// each reflector (v, tau) to team B through a ring in shared memory; team B runs the D parts
// and writes the reflectors to A. A team is KD / 8 warps: warp w holds rows 8w .. 8w + 7 of O
// (team A) or D (team B), lane 4 r + q row 8w + r at columns q + 4e (e < KD / 4), so a row's
// products are a lane's few FMAs and two shuffles, a column's sums shuffles within the warp
// and one partial a warp through shared memory: a part is a few dozen dependent instructions
// a warp and two barriers of its team (the chain of sweeps is the O parts' latency).
//
// Dependencies (task t of sweep s starts at row j0 = s + 1 + t KD; task t + 1 of sweep s - 1
// at j0 + KD - 1): O(s, t) shares a column with D(s - 1, t) and a row with O(s - 1, t + 1);
// D(s, t) shares its last row with O(s - 1, t + 1) and D(s - 1, t + 1). Two counters a sweep:
// progO[s] (O parts done, released by A) and progD[s] (D parts done, released by B after A's
// handoff of that task). O(s, t) waits for progD[s - 1] >= t + 1 and progO[s - 1] >= t + 2,
// D(s, t) for both >= t + 2 (capped at the tasks of sweep s - 1). So A runs the next O part
// while B applies the last reflector: a sweep follows the one before it by about two O parts
// and two hops. The sweeps of a group (its two teams): s = its index in the grid, then every
// (groups in the grid)-th, so a block's groups hold consecutive sweeps: a group after the
// first waits for the one before it on that group's ring counters in shared memory (handed:
// its O parts, taken: its D parts, both cumulative; a hop within the SM), the first for the
// previous block's last group on the counters in global memory, which only last groups
// publish.
#define SB2ST_RING 4  // reflectors a group's ring holds (A runs at most that far ahead of B)

// The most threads a block holds (its launch bound: up to 128 registers a thread; TEAM_THREADS
// in src/eig/bulge.rs). 768 (80 registers) measured slower, and three sweeps a block slower
// than two (NOTES.md, session 29).
#define SB2ST_TEAM_THREADS 512
#define SB2ST_GROUPS_MAX 4  // groups a block holds at most (two teams of two warps each)

// A nonzero scale (either part).
template <class T> __device__ __forceinline__ bool sb_nonzero(T v) { return ere(v) != 0 || eim(v) != 0; }

// The sums over a warp's eight rows (lane bits 2 .. 4) of the lane's EPL column values p[e]
// (column q + 4e), scattered: halves of the columns exchanged at each step, so afterwards
// lane 4 r + q holds the sum of column q + 4 ((r EPL) >> 3) (EPL = 4: two lanes each).
template <int EPL, class T> __device__ __forceinline__ T sb_rows_scatter(T (&p)[EPL], int lane) {
#pragma unroll
    for (int step = 0; step < 3; ++step) {
        const int o = 16 >> step, half = EPL >> (step + 1);
        const bool hi = (lane & o) != 0;
        if (half >= 1) {
#pragma unroll
            for (int e = 0; e < half; ++e) {
                const T mine = hi ? p[e + half] : p[e], other = hi ? p[e] : p[e + half];
                p[e] = eadd(mine, shd(other, o));
            }
        } else {
            p[0] = eadd(p[0], shd(p[0], o));
        }
    }
    return p[0];
}

// Waits until the counters at fa and fb reach na and nb: both read in one round trip
// (relaxed), then a fence (the acquire of what their releases published).
__device__ __forceinline__ void sb_wait2(const unsigned* fa, unsigned na, const unsigned* fb, unsigned nb) {
    unsigned a, b;
    for (;;) {
        asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(a) : "l"(fa) : "memory");
        asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(b) : "l"(fb) : "memory");
        if (a >= na && b >= nb) break;
        __nanosleep(32);
    }
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
}

// A counter in shared memory: waited for by lane 0 (acquire, CTA scope), then the warp.
__device__ __forceinline__ void sb_wait_cta(const unsigned* f, unsigned need) {
    if ((threadIdx.x & 31) == 0) {
        const unsigned a = (unsigned)__cvta_generic_to_shared(f);
        unsigned got;
        for (;;) {
            asm volatile("ld.acquire.cta.shared.u32 %0, [%1];" : "=r"(got) : "r"(a) : "memory");
            if (got >= need) break;
            __nanosleep(8);
        }
    }
    __syncwarp();
}

// A team's barrier (named barrier id, its threads): orders the team's writes before its
// members' later reads (CTA scope).
__device__ __forceinline__ void sb_team_sync(int id, int threads) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// Waits until the shared counters at fa and fb reach na and nb (every lane: acquire, CTA
// scope).
__device__ __forceinline__ void sb_wait_cta2(const unsigned* fa, unsigned na, const unsigned* fb, unsigned nb) {
    const unsigned a = (unsigned)__cvta_generic_to_shared(fa), b = (unsigned)__cvta_generic_to_shared(fb);
    for (;;) {
        unsigned x, y;
        asm volatile("ld.acquire.cta.shared.u32 %0, [%1];" : "=r"(x) : "r"(a) : "memory");
        asm volatile("ld.acquire.cta.shared.u32 %0, [%1];" : "=r"(y) : "r"(b) : "memory");
        if (x >= na && y >= nb) break;
        __nanosleep(8);
    }
}

// Ends a part, by its team's first thread after the team's barrier: the ring counter (release,
// CTA scope), and for a block's last group the progress counter (release, GPU scope:
// cumulative over the team's writes the barrier ordered before it, the pattern of cooperative
// groups' grid barrier).
__device__ __forceinline__ void sb_release(unsigned* cta, unsigned cv, unsigned* gpu, unsigned gv, bool global) {
    asm volatile("st.release.cta.shared.u32 [%0], %1;" ::"r"((unsigned)__cvta_generic_to_shared(cta)), "r"(cv)
                 : "memory");
    if (global) asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(gpu), "r"(gv) : "memory");
}

template <class T, int KD>
__device__ void eig_sb2st_team(const Sb2stp& p) {
    typedef typename EigReal<T>::R R;
    constexpr int W = KD / 8, EPL = KD / 4, TEAM = 32 * W, RING = SB2ST_RING;
    // the band's leading dimension (launch_sweeps: 2 kd), so that a row of O or D is one
    // pointer and compile-time offsets: element (i, j) at (i - j) + j LDAB, row i's element
    // j + 1 at LDAB - 1 past element j
    constexpr int LDAB = 2 * KD, STEP = LDAB - 1;
    // per group: the ring (RING reflectors: v[0 .. KD), tau at KD); A's column-sum partials
    // (W x KD), O's row 0 (KD), norm partials (W) and alpha; B's products D v (KD) and partials
    // (W). Mirrored by sweep_launch in src/eig/bulge.rs.
    constexpr int GROUP_ELEMS = RING * (KD + 1) + W * KD + KD + (W + 1) + KD + W;
    extern __shared__ __align__(16) unsigned char sb_smem[];
    // handed[group]: reflectors A has put in the ring; taken[group]: those B has finished with
    __shared__ unsigned handed[SB2ST_GROUPS_MAX], taken[SB2ST_GROUPS_MAX];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int group = warp / (2 * W), wr = warp % W;
    const bool is_a = (warp / W) % 2 == 0;
    // the lane's row of O or D and its first column (then every fourth)
    const int r = lane >> 2, q = lane & 3, i = 8 * wr + r;
    T* ring = (T*)sb_smem + group * GROUP_ELEMS;
    T* acs = ring + RING * (KD + 1);
    T* arow0 = acs + W * KD;
    T* anrm = arow0 + KD;
    T* by = anrm + W + 1;
    T* bpart = by + KD;
    const int bar = 1 + 2 * group + (is_a ? 0 : 1);
    const bool lead = wr == 0 && lane == 0;
    if (threadIdx.x < SB2ST_GROUPS_MAX) {
        handed[threadIdx.x] = 0;
        taken[threadIdx.x] = 0;
    }
    __syncthreads();
    pdl_enter();
    // (orders fit an int: the band holds 2 kd n elements)
    const int n = (int)p.n;
    T* ab = (T*)p.ab;
    T* A = (T*)p.a;
    R* E = (R*)p.e;
    unsigned* progO = (unsigned*)p.prog;
    unsigned* progD = progO + (n - 1);
    const T zero = emake<T>(0, 0);
    // (groups a block: as the launch spreads the sweeps in flight)
    const int gpb = (int)(blockDim.x / (64 * W)), groups = gridDim.x * gpb;
    // the lane's column-sum slot after sb_rows_scatter (and whether it writes it)
    const int cf = q + 4 * ((r * EPL) >> 3);
    const bool cf_writer = ((r * EPL) & 7) == 0;
    // the previous sweep's group in this block (its ring counters), and whether this group's
    // progress goes to global memory (the next block's first group reads it)
    const unsigned* prev_handed = group > 0 ? &handed[group - 1] : nullptr;
    const unsigned* prev_taken = group > 0 ? &taken[group - 1] : nullptr;
    const bool global = group == gpb - 1;
    unsigned k = 0;      // the group's tasks so far (the ring's index)
    unsigned kprev = 0;  // the previous group's tasks before the previous sweep (group > 0)
    for (int s = blockIdx.x * gpb + group; s < n - 1; s += groups) {
        const int ts = (n - 1 - s + KD - 1) / KD;
        const int tprev = s > 0 ? (n - s + KD - 1) / KD : 0;
        T taup = zero;
        for (int t = 0; t < ts; ++t, ++k) {
            const int j0 = s + 1 + t * KD;
            const int nr = min(KD, n - j0);
            const bool row = i < nr;
            T* slot = ring + (k % RING) * (KD + 1);
            if (is_a) {
                // vp: the last task's reflector (the ring's previous slot: zeros past its
                // length; A rewrites that slot only RING - 1 tasks from now), read before the
                // wait
                T vp[EPL];
                const bool hprev = t > 0 && sb_nonzero(taup);
#pragma unroll
                for (int e = 0; e < EPL; ++e)
                    vp[e] = hprev ? ring[((k + RING - 1) % RING) * (KD + 1) + q + 4 * e] : zero;
                if (prev_handed) {
                    sb_wait_cta2(prev_taken, kprev + min(t + 1, tprev), prev_handed, kprev + min(t + 2, tprev));
                    __syncwarp();
                } else if (s > 0) {
                    sb_wait2(progD + (s - 1), (unsigned)min(t + 1, tprev), progO + (s - 1),
                             (unsigned)min(t + 2, tprev));
                    __syncwarp();
                }
                // t = 0: column s below its diagonal (band rows 1 .. of column s) as O's first
                // column; else row i of O: B[j0 + i][j0 - KD + c] at orow[c STEP]
                T* col = ab + (1 + i + (i64)s * LDAB);
                T* orow = ab + (i + (i64)j0 * LDAB) + (KD - KD * LDAB);
                T o[EPL];
                if (t == 0) {
#pragma unroll
                    for (int e = 0; e < EPL; ++e) o[e] = zero;
                    if (q == 0 && row) o[0] = __ldcg(col);
                } else {
#pragma unroll
                    for (int e = 0; e < EPL; ++e) o[e] = row ? __ldcg(orow + (q + 4 * e) * STEP) : zero;
                    // O H_prev = O - tau_p (O vp) vp^H
                    if (hprev) {
                        T acc[2] = {zero, zero};
#pragma unroll
                        for (int e = 0; e < EPL; ++e) acc[e % 2] = eadd(acc[e % 2], emul(o[e], vp[e]));
                        T y = eadd(acc[0], acc[1]);
                        y = eadd(y, shd(y, 1));
                        y = eadd(y, shd(y, 2));
                        y = emul(y, taup);
#pragma unroll
                        for (int e = 0; e < EPL; ++e) o[e] = esub(o[e], emul(y, econj(vp[e])));
                    }
                }
                // One exchange over the team before the reflector of O's first column is
                // known: that column's norm below row 0, alpha (row 0), and for t >= 1 the
                // column sums S_c = sum over rows i >= 1 of conj(O_i0) O_ic with row 0 — v^H O =
                // O_0 + conj(scal) S (v = (1; O_i0 scal)). Every lane then makes the same
                // reflector.
                const T first = shf(o[0], lane & ~3);  // the row's first element, to its lanes
                R part = q == 0 && row && i >= 1 ? eabs2(o[0]) : (R)0;
#pragma unroll
                for (int m = 4; m < 32; m <<= 1) part += __shfl_xor_sync(0xffffffffu, part, m);
                if (lane == 0) anrm[wr] = emake<T>(part, 0);
                if (lead) anrm[W] = o[0];
                if (t > 0) {
                    T pc[EPL];
#pragma unroll
                    for (int e = 0; e < EPL; ++e) pc[e] = i >= 1 ? ecmul(first, o[e]) : zero;
                    const T cs = sb_rows_scatter<EPL>(pc, lane);
                    if (cf_writer) acs[wr * KD + cf] = cs;
                    if (i == 0) {
#pragma unroll
                        for (int e = 0; e < EPL; ++e) arow0[q + 4 * e] = o[e];
                    }
                }
                sb_team_sync(bar, TEAM);
                R xn2 = 0;
#pragma unroll
                for (int w = 0; w < W; ++w) xn2 += ere(anrm[w]);
                const SbRefl<T> f = sb_larfg(anrm[W], xn2);
                const T tau = f.tau;
                const T vl = !row ? zero : i == 0 ? emake<T>(1, 0) : emul(first, f.scal);
                if (q == 0) o[0] = i == 0 ? emake<T>(f.beta, 0) : zero;
                if (t == 0) {
                    if (q == 0 && row) *col = o[0];
                    if (lead) E[s] = f.beta;
                } else {
                    // O's other columns: H^H O = O - conj(tau) v (v^H O); the lane totals
                    // column cf, the row's lanes take their columns from those that total them
                    if (sb_nonzero(tau)) {
                        T tot = zero;
#pragma unroll
                        for (int w = 0; w < W; ++w) tot = eadd(tot, acs[w * KD + cf]);
                        tot = emul(econj(tau), eadd(arow0[cf], emul(econj(f.scal), tot)));
#pragma unroll
                        for (int e = 0; e < EPL; ++e) {
                            const T ws = shf(tot, 4 * ((e * 8) / EPL) + q);
                            if (q + 4 * e != 0) o[e] = esub(o[e], emul(vl, ws));
                        }
                    }
                    if (row) {
#pragma unroll
                        for (int e = 0; e < EPL; ++e) orow[(q + 4 * e) * STEP] = o[e];
                    }
                }
                // the reflector to B, once B is done with the slot's last one
                if (k >= RING) sb_wait_cta(&taken[group], k + 1 - RING);
                if (q == 0) slot[i] = vl;
                if (lead) slot[KD] = tau;
                sb_team_sync(bar, TEAM);
                if (lead) sb_release(&handed[group], k + 1, progO + s, (unsigned)(t + 1), global);
                taup = tau;
            } else {
                // (the O parts' counter too: A's release, not B's, publishes the O part's row
                // this shares)
                const unsigned need = (unsigned)min(t + 2, tprev);
                if (prev_handed) {
                    sb_wait_cta2(prev_taken, kprev + need, prev_handed, kprev + need);
                    __syncwarp();
                } else if (s > 0) {
                    sb_wait2(progD + (s - 1), need, progO + (s - 1), need);
                    __syncwarp();
                }
                // row i of D, loaded before the reflector arrives: B[j0 + i][j0 + c] for c <= i,
                // the conjugate of B[j0 + c][j0 + i] above the diagonal
                T* base = ab + (i64)j0 * LDAB;
                T d[EPL];
#pragma unroll
                for (int e = 0; e < EPL; ++e) {
                    const int c = q + 4 * e;
                    d[e] = zero;
                    if (row && c < nr) {
                        d[e] = c <= i ? __ldcg(base + i + c * STEP) : econj(__ldcg(base + c + i * STEP));
                        if (c == i) d[e] = emake<T>(ere(d[e]), 0);
                    }
                }
                sb_wait_cta(&handed[group], k + 1);
                const T tau = slot[KD];
                const T vi = slot[i];
                T v[EPL];
#pragma unroll
                for (int e = 0; e < EPL; ++e) v[e] = slot[q + 4 * e];
                // D = H^H D H: y = tau D v, h = conj(tau) v^H y / 2 (real), w = y - h v,
                // D -= v w^H + w v^H (the lower triangle written back)
                if (sb_nonzero(tau)) {
                    T acc[2] = {zero, zero};
#pragma unroll
                    for (int e = 0; e < EPL; ++e) acc[e % 2] = eadd(acc[e % 2], emul(d[e], v[e]));
                    T y = eadd(acc[0], acc[1]);
                    y = eadd(y, shd(y, 1));
                    y = eadd(y, shd(y, 2));
                    y = emul(tau, y);
                    R part = q == 0 ? ere(emul(econj(tau), ecmul(vi, y))) : (R)0;
#pragma unroll
                    for (int m = 4; m < 32; m <<= 1) part += __shfl_xor_sync(0xffffffffu, part, m);
                    if (lane == 0) bpart[wr] = emake<T>(part, 0);
                    if (q == 0) by[i] = y;
                    sb_team_sync(bar, TEAM);
                    R h = 0;
#pragma unroll
                    for (int w = 0; w < W; ++w) h += ere(bpart[w]);
                    h /= 2;
                    const T wi = esub(y, escale(vi, h));
#pragma unroll
                    for (int e = 0; e < EPL; ++e) {
                        const int c = q + 4 * e;
                        if (row && c <= i) {
                            const T wc = esub(by[c], escale(v[e], h));
                            T x = esub(d[e], eadd(emul(vi, econj(wc)), emul(wi, econj(v[e]))));
                            if (c == i) x = emake<T>(ere(x), 0);
                            base[i + c * STEP] = x;
                        }
                    }
                }
                // the reflector to A's triangle
                if (A && row && q == 0) A[(i64)(n - 1 - s) * p.lda + t * KD + i] = i == 0 ? tau : vi;
                // the slot back to A (the team has read it), then the task to the next sweep
                sb_team_sync(bar, TEAM);
                if (lead) sb_release(&taken[group], k + 1, progD + s, (unsigned)(t + 1), global);
            }
        }
        kprev += (unsigned)tprev;
    }
}

// The band's copy with room for the bulge: the lower band of A (kd subdiagonals) into ab,
// zeros below it. One thread per element of ab.
template <class T>
__device__ void eig_bandcopy(const Sb2stp& p) {
    const i64 total = p.n * p.ldab;
    const i64 x = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    pdl_enter();
    if (x >= total) return;
    const i64 r = x % p.ldab, j = x / p.ldab;
    T v = emake<T>(0, 0);
    if (r <= p.kd && j + r < p.n) v = ((const T*)p.a)[(j + r) + j * p.lda];
    ((T*)p.ab)[x] = v;
}

// The tridiagonal's diagonal (real) from the band: d[i] = Re ab[i ldab]; `e` is d here.
template <class T>
__device__ void eig_banddiag(const Sb2stp& p) {
    typedef typename EigReal<T>::R R;
    const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    pdl_enter();
    if (i < p.n) ((R*)p.e)[i] = ere(((const T*)p.ab)[i * p.ldab]);
}

// The two-stage syevd's scaling (LAPACK's): amax = the largest |re|, |im| of the lower
// triangle (as double bits, atomicMax: non-negative doubles order as their bits, NaN above
// infinity), then, when it lies outside [LO, HI], the whole matrix (both triangles) times
// 2^-exponent(amax) (exact),
// so that stage 2's plain sums of squares neither overflow nor underflow. Stage 3 divides the
// eigenvalues by the same factor.
struct Scalep {
    u64 a;
    i64 lda, n;
    u64 amax;  // one double's bits, zeroed
};
template <class T>
__device__ void eig_amax(const Scalep& p) {
    typedef typename EigReal<T>::R R;
    pdl_enter();
    double m = 0;
    for (i64 x = (i64)blockIdx.x * blockDim.x + threadIdx.x; x < p.n * p.n;
         x += (i64)gridDim.x * blockDim.x) {
        const i64 i = x % p.n, j = x / p.n;
        if (i < j) continue;
        const T v = ((const T*)p.a)[i + j * p.lda];
        const R re = fabs(ere(v)), im = i == j ? (R)0 : fabs(eim(v));
        const double here = (double)(re != re ? re : (im != im ? im : fmax(re, im)));
        m = (here != here || m != m) ? __longlong_as_double(0x7ff8000000000000ll) : fmax(m, here);
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const double u = __shfl_xor_sync(0xffffffffu, m, o);
        m = (u != u || m != m) ? __longlong_as_double(0x7ff8000000000000ll) : fmax(m, u);
    }
    if ((threadIdx.x & 31) == 0)
        atomicMax((unsigned long long*)p.amax, (unsigned long long)__double_as_longlong(m));
}
template <class T>
__device__ void eig_scale(const Scalep& p) {
    typedef typename EigReal<T>::R R;
    typedef EigLimits<R> L;
    pdl_enter();
    const double amax = __longlong_as_double((long long)*(const unsigned long long*)p.amax);
    const bool keep = !(amax > 0) || !isfinite(amax) || (amax >= (double)L::lo() && amax <= (double)L::hi());
    const R sigma = keep ? (R)1 : L::pow2(-L::exponent((R)amax));
    // (the diagonal's imaginary parts, never read, zeroed: a product by 1 + 0i keeps the real
    // part only if the imaginary one is finite)
    for (i64 x = (i64)blockIdx.x * blockDim.x + threadIdx.x; x < p.n * p.n;
         x += (i64)gridDim.x * blockDim.x) {
        const i64 i = x % p.n, j = x / p.n;
        if (keep && i != j) continue;
        T* e = (T*)p.a + i + j * p.lda;
        *e = i == j ? emake<T>(ere(*e) * sigma, 0) : escale(*e, sigma);
    }
}

// Eigenvalues of the real symmetric tridiagonal (d, e) by multisection (LAPACK's dstebz,
// BISECT_WAYS points a step): a group of BISECT_WAYS lanes finds the k-th smallest in the
// Gershgorin interval, each lane one Sturm count q_i = d_i - x - e_{i-1}^2 / q_{i-1} (|q| <=
// pivmin taken as -pivmin) at its point of the interval a step, which then shrinks to the
// part between the last point with at most k eigenvalues below it and the first with more;
// it stops when the interval's midpoint equals an end (adjacent values) or after `iters`
// halvings' worth of steps. The groups' lanes share a warp, the counts a warp's latency, so
// the chains of dependent divisions run BISECT_WAYS times as many at once and log2(WAYS + 1)
// halvings a step. A NaN in d or e gives NaN eigenvalues and info = n + 1. The eigenvalues
// are divided by the scale factor eig_scale applied (from amax).
#define BISECT_WAYS 8  // lanes an eigenvalue; 32 / BISECT_WAYS eigenvalues a warp
// 2^-e for a positive normal v in [2^e, 2^(e+1)): v times it is in [1, 2), exactly.
__device__ __forceinline__ double inv_pow2(double v) {
    return __hiloint2double((2046 - ((__double2hiint(v) >> 20) & 0x7ff)) << 20, 0);
}
__device__ __forceinline__ float inv_pow2(float v) { return __int_as_float((254 - ((__float_as_int(v) >> 23) & 0xff)) << 23); }
#define BISECT_THREADS 128  // a block (family.rs launches this many)
template <class R> struct __align__(2 * sizeof(R)) BisectRow { R d, e2; };
__device__ __forceinline__ int sign_bit(double v) { return (unsigned)__double2hiint(v) >> 31; }
__device__ __forceinline__ int sign_bit(float v) { return (unsigned)__float_as_int(v) >> 31; }
struct Bisectp {
    u64 d, e, w;     // n, n - 1, n reals
    u64 amax;        // eig_amax's double bits (0: no scaling)
    u64 info;        // one i32 (0: not written)
    i64 n;
    int iters, pad;
};
template <class R>
__device__ void eig_bisect(const Bisectp& p) {
    typedef EigLimits<R> L;
    constexpr unsigned FULL = 0xffffffffu;
    pdl_enter();
    const int lane = threadIdx.x & 31, way = lane % BISECT_WAYS, base = lane - way, warp = threadIdx.x >> 5;
    __shared__ BisectRow<R> rows[BISECT_THREADS / 32][32];  // a warp's chunk of scaled rows
    const i64 n = p.n, k = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / BISECT_WAYS;
    // (whole warps leave together: the groups exchange values by warp shuffles)
    if (__all_sync(FULL, k >= n)) return;
    const bool mine = k < n;
    const R* d = (const R*)p.d;
    const R* e = (const R*)p.e;
    // Gershgorin bounds, the largest e^2, and whether all is finite: the group's lanes take
    // every BISECT_WAYS-th row.
    R lo = d[0], hi = d[0], e2max = 0;
    bool finite = true;
    for (i64 i = way; i < n; i += BISECT_WAYS) {
        const R el = i > 0 ? fabs(e[i - 1]) : (R)0, er = i + 1 < n ? fabs(e[i]) : (R)0;
        finite = finite && isfinite(d[i]) && isfinite(el) && isfinite(er);
        lo = fmin(lo, d[i] - el - er);
        hi = fmax(hi, d[i] + el + er);
        e2max = fmax(e2max, er * er);
    }
#pragma unroll
    for (int o = 1; o < BISECT_WAYS; o <<= 1) {
        lo = fmin(lo, __shfl_xor_sync(FULL, lo, o));
        hi = fmax(hi, __shfl_xor_sync(FULL, hi, o));
        e2max = fmax(e2max, __shfl_xor_sync(FULL, e2max, o));
        finite = __shfl_xor_sync(FULL, (int)finite, o) && finite;
    }
    double sigma = 1;
    if (p.amax) {
        const double amax = __longlong_as_double((long long)*(const unsigned long long*)p.amax);
        if (amax > 0 && isfinite(amax) && (amax < (double)L::lo() || amax > (double)L::hi()))
            sigma = (double)L::pow2(-L::exponent((R)amax));
    }
    R* w = (R*)p.w;
    if (!finite) {
        // (the same for every group: d and e are the warp's)
        if (mine && way == 0) w[k] = L::nan();
        if (k == 0 && way == 0 && p.info) *(int*)p.info = (int)(n + 1);
        return;
    }
    const R tiny = sizeof(R) == 4 ? (R)0x1p-126f : (R)0x1p-1022;
    const R pivmin = tiny * fmax((R)1, e2max);
    // widen a little so the ends are strictly outside
    const R span = fmax(hi - lo, fmax(fabs(lo), fabs(hi)) * L::eps());
    lo -= span * L::eps() * 4 + pivmin;
    hi += span * L::eps() * 4 + pivmin;
    // The count's scale (|d - x| and |e| at most 4 after it) and its smallest |q| (pivmin
    // scaled, at least 2^-500 (f64) or 2^-60 (f32) of the scaled matrix: far below its
    // rounding, and 1 / piv far from overflow).
    const R s2 = inv_pow2(fmax(fabs(lo), fabs(hi)));
    const R piv = fmax(pivmin * s2, sizeof(R) == 4 ? (R)0x1p-60f : (R)0x1p-500);
    // a step shrinks the interval BISECT_WAYS + 1 times: about 3 halvings
    const int steps = (p.iters + 2) / 3;
    for (int it = 0; it < steps; ++it) {
        const R mid = lo + (hi - lo) / 2;
        const bool done = !mine || mid == lo || mid == hi;
        if (__all_sync(FULL, done)) break;
        const R x = lo + (hi - lo) * ((R)(way + 1) / (R)(BISECT_WAYS + 1));
        // Eigenvalues below x: LAPACK's count of q_i = d_i - x - e_{i-1}^2 / q_{i-1} < 0 without
        // its division, as sign changes of the leading minors p_i = (d_i - x) p_{i-1} - e_{i-1}^2
        // p_{i-2} (q_i = p_i / p_{i-1}; p_{-1} = 1, p_{-2} = 0): one fma a row on the chain (a
        // division's latency set the pace: 7.8 ms at n 4096). Rows scaled by s2, the pair
        // (p_{i-1}, p_i) by a power of two every row (their ratio exact), so p stays near [piv,
        // 1 / piv]; |q_i| <= piv is taken as -piv (dstebz's pivmin rule). The warp's lanes load
        // and scale 32 rows at a time into shared memory (the next 32 in flight meanwhile);
        // every lane runs the count, a done one too, so the loads stay whole-warp.
        // (d_i s2 - x s2 is (d_i - x) s2 exactly: one rounding, as LAPACK's d_i - x)
        const R xs = x * s2;
        int cnt = 0;
        R pm = 0, pc = 1;
        R nd = 0, ne2 = 0;  // this lane's row of the next chunk: d s2, (e s2)^2
        auto fetch = [&](i64 i) {
            nd = 0;
            ne2 = 0;
            if (i < n) {
                nd = d[i] * s2;
                if (i > 0) {
                    const R t = e[i - 1] * s2;
                    ne2 = t * t;
                }
            }
        };
        fetch(lane);
        for (i64 i0 = 0; i0 < n; i0 += 32) {
            __syncwarp();  // the last chunk's reads are done
            rows[warp][lane] = {nd, ne2};
            __syncwarp();
            fetch(i0 + 32 + lane);
            const int m = (int)min((i64)32, n - i0);
#pragma unroll 4
            for (int r = 0; r < m; ++r) {
                const BisectRow<R> row = rows[warp][r];
                R pn = fma(row.d - xs, pc, -row.e2 * pm);
                if (fabs(pn) <= piv * fabs(pc)) pn = -piv * pc;
                cnt += sign_bit(pn) ^ sign_bit(pc);  // neither is zero
                const R f = inv_pow2(pc);  // from the older value: off the chain
                pm = pc * f;
                pc = pn * f;
            }
        }
        const bool above = !done && cnt > k;
        // the group's first point with more than k below it (BISECT_WAYS: none)
        const unsigned group = (__ballot_sync(FULL, above) >> base) & ((1u << BISECT_WAYS) - 1);
        const int f = group ? __ffs(group) - 1 : BISECT_WAYS;
        const R xf = __shfl_sync(FULL, x, base + min(f, BISECT_WAYS - 1));
        const R xb = __shfl_sync(FULL, x, base + max(f - 1, 0));
        if (!done) {
            if (f < BISECT_WAYS) hi = xf;
            if (f > 0) lo = xb;
        }
    }
    if (mine && way == 0) w[k] = (R)((double)(lo + (hi - lo) / 2) / sigma);
    if (k == 0 && way == 0 && p.info) *(int*)p.info = 0;
}

#ifdef GPUBLAS_FAMILY_EIG
#define EIG_JACOBI(TAG, T, NP)                                                                     \
    extern "C" __global__ void __launch_bounds__(NP <= 32 ? 32 : 256)                              \
        eig_jacobi##NP##_##TAG(Eigp j) {                                                           \
        eig_jacobi<T, NP>(j, j.a + (u64)blockIdx.x * (u64)j.a_s * sizeof(T));                      \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(NP <= 32 ? 32 : 256)                              \
        eig_jacobi##NP##l_##TAG(Eigp j, EigList l) {                                               \
        eig_jacobi<T, NP>(j, blockIdx.x < (unsigned)j.ne ? l.p[blockIdx.x] : 0);                   \
    }
#define EIG_SB2ST(TAG, T, KD)                                                                      \
    extern "C" __global__ void __launch_bounds__(SB2ST_THREADS) eig_sb2st##KD##_##TAG(Sb2stp p) {  \
        eig_sb2st<T, KD>(p);                                                                       \
    }
#define EIG_SB2ST_TEAM(TAG, T, KD)                                                                 \
    extern "C" __global__ void __launch_bounds__(SB2ST_TEAM_THREADS, 1)                            \
        eig_sb2stt##KD##_##TAG(Sb2stp p) {                                                         \
        eig_sb2st_team<T, KD>(p);                                                                  \
    }
#define EIG_KERNELS(TAG, T)                                                                        \
    EIG_JACOBI(TAG, T, 8)                                                                          \
    EIG_JACOBI(TAG, T, 16)                                                                         \
    EIG_JACOBI(TAG, T, 32)                                                                         \
    EIG_JACOBI(TAG, T, 64)                                                                         \
    EIG_SB2ST(TAG, T, 16)                                                                          \
    EIG_SB2ST(TAG, T, 32)                                                                          \
    EIG_SB2ST(TAG, T, 64)                                                                          \
    EIG_SB2ST_TEAM(TAG, T, 16)                                                                     \
    EIG_SB2ST_TEAM(TAG, T, 32)                                                                     \
    extern "C" __global__ void eig_bandcopy_##TAG(Sb2stp p) { eig_bandcopy<T>(p); }               \
    extern "C" __global__ void eig_banddiag_##TAG(Sb2stp p) { eig_banddiag<T>(p); }               \
    extern "C" __global__ void eig_amax_##TAG(Scalep p) { eig_amax<T>(p); }                    \
    extern "C" __global__ void eig_scale_##TAG(Scalep p) { eig_scale<T>(p); }
extern "C" __global__ void eig_bisect_s(Bisectp p) { eig_bisect<float>(p); }
extern "C" __global__ void eig_bisect_d(Bisectp p) { eig_bisect<double>(p); }
EIG_KERNELS(s, float)
EIG_KERNELS(d, double)
EIG_KERNELS(c, float2)
EIG_KERNELS(z, double2)
#endif
