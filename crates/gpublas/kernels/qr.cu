// The QR family's kernels (GPUBLAS_FAMILY_QR), for float (s), double (d), float2 (c) and
// double2 (z):
//   qr_panel:    geqr2 of a panel of at most 64 columns over all its rows. The rows are split
//                over the entry's `grid` blocks (a cooperative launch: all resident); per column
//                one grid barrier (the blocks' partial products and the rows the next column
//                needs; its norm downdated, recomputed with a second barrier where downdates
//                lose precision), and every block forms the same reflector from the same sums
//                added in the same order.
//                qr_panelsm keeps each block's rows in shared memory for the whole panel.
//   qr_small:    geqrf of a whole matrix of at most 32 x 32, one warp per matrix (batches).
//   qr_whole:    geqrf of a whole matrix of at most 128 columns in one block's shared memory.
//   qr_tfactor:  the triangular factor T (order <= 128) of a block of reflectors from
//                G = V^H V and tau (larft's recurrence on leaves of 16, then merged by
//                products), one block per entry.
//   qr_org:      orgqr's block [I; 0] - V X, tiles of 32 rows, each tile's rows read before any
//                is written (in place).
//   qr_identity: columns of the identity.

#define QR_NB 64  // most columns of a panel

struct Qrp {
    u64 a; i64 ld, es;        // the block at entry e0, its leading dimension, entry distance
    u64 b; i64 b_ld, b_es;    // tfactor: G; org: X
    u64 t; i64 t_ld, t_es;    // tfactor: T
    u64 tau; i64 tau_s;       // entry e0's tau (at the block's first reflector), distance
    u64 ex; i64 ex_s;         // entry e0's exchange, bytes between entries
    u64 fl; i64 fl_s;         // panel: 0, or the chunk's first entry's CholeskyQR2 flag (the
                              // panel runs where it is nonzero: cholqr.cu fell back), distance
    i64 bs;                   // tfactor: elements between the G (and T) of the launch's blocks
    i64 rows, cols;
    int k0, grid, ne, spare, shift, pad;
};

__device__ __forceinline__ float mulc(float a, float b) { return a * b; }
__device__ __forceinline__ double mulc(double a, double b) { return a * b; }
__device__ __forceinline__ float2 mulc(float2 a, float2 b) {
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__device__ __forceinline__ double2 mulc(double2 a, double2 b) {
    return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
// c + conj(a) b
__device__ __forceinline__ float cmad(float c, float a, float b) { return c + a * b; }
__device__ __forceinline__ double cmad(double c, double a, double b) { return c + a * b; }
__device__ __forceinline__ float2 cmad(float2 c, float2 a, float2 b) {
    return make_float2(c.x + (a.x * b.x + a.y * b.y), c.y + (a.x * b.y - a.y * b.x));
}
__device__ __forceinline__ double2 cmad(double2 c, double2 a, double2 b) {
    return make_double2(c.x + (a.x * b.x + a.y * b.y), c.y + (a.x * b.y - a.y * b.x));
}
__device__ __forceinline__ double ipart(float) { return 0.0; }
__device__ __forceinline__ double ipart(double) { return 0.0; }
__device__ __forceinline__ double ipart(float2 v) { return v.y; }
__device__ __forceinline__ double ipart(double2 v) { return v.y; }
template <class T> __device__ __forceinline__ T of_parts(double re, double im);
template <> __device__ __forceinline__ float of_parts<float>(double re, double) { return (float)re; }
template <> __device__ __forceinline__ double of_parts<double>(double re, double) { return re; }
template <> __device__ __forceinline__ float2 of_parts<float2>(double re, double im) {
    return make_float2((float)re, (float)im);
}
template <> __device__ __forceinline__ double2 of_parts<double2>(double re, double im) {
    return make_double2(re, im);
}
template <class T> __device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = addc(v, shd(v, o));
    return v;
}

// A scaled sum of squares (LAPACK's lassq): the value is scale^2 * ssq.
struct Ssq {
    double scale, ssq;
};
__device__ __forceinline__ void ssq_add(Ssq& s, double x) {
    const double ax = fabs(x);
    if (ax == 0.0 || ax != ax) {
        if (ax != ax) s.ssq = ax;  // NaN propagates
        return;
    }
    if (s.scale < ax) {
        const double r = s.scale / ax;
        s.ssq = 1.0 + s.ssq * r * r;
        s.scale = ax;
    } else {
        const double r = ax / s.scale;
        s.ssq += r * r;
    }
}
__device__ __forceinline__ Ssq ssq_join(Ssq a, Ssq b) {
    if (a.scale < b.scale) { Ssq t = a; a = b; b = t; }
    if (b.scale == 0.0) return b.ssq != b.ssq ? b : a;
    const double r = b.scale / a.scale;
    a.ssq += b.ssq * r * r;
    return a;
}
// The block's sum (every thread gets it); `buf` holds one per warp.
__device__ Ssq block_ssq(Ssq s, Ssq* buf) {
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        Ssq t;
        t.scale = __shfl_xor_sync(0xffffffffu, s.scale, o);
        t.ssq = __shfl_xor_sync(0xffffffffu, s.ssq, o);
        s = ssq_join(s, t);
    }
    __syncthreads();
    if (lane == 0) buf[w] = s;
    __syncthreads();
    Ssq r = buf[0];
    for (int k = 1; k < nw; ++k) r = ssq_join(r, buf[k]);
    return r;
}

// Grid barrier of the entry's blocks: the counter only grows within a program, so round r
// is passed once it holds (r + 1) * G arrivals.
// The block's writes reach the arrival through the first block barrier and the release; the
// acquire makes the others' visible, and the second block barrier passes that on (no full
// fences).
__device__ __forceinline__ void grid_bar(unsigned* cnt, unsigned target) {
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(cnt) : "memory");
        unsigned v;
        do {
            asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(cnt) : "memory");
        } while (v < target);
    }
    __syncthreads();
}

// LAPACK's larfg for alpha and a vector of norm xnorm, in double: beta (real), tau, and the
// factor the vector is multiplied by (x * up then * scal; up is 2^969 when beta is below
// LAPACK's safmin and the values are rescaled as its loop does).
struct Reflector {
    double beta, tau_r, tau_i, up, scal_r, scal_i;
    bool identity;
};
__device__ Reflector larfg(double ar, double ai, double xnorm) {
    Reflector f;
    f.up = 1.0;
    if (xnorm == 0.0 && ai == 0.0) {
        f.identity = true;
        f.beta = ar;
        f.tau_r = f.tau_i = f.scal_r = f.scal_i = 0.0;
        return f;
    }
    f.identity = false;
    // Reciprocals where they cannot overflow (a double division is a long instruction
    // sequence on the column's serial path: four instead of nine, three for real data).
    const double safmin = 0x1p-969;
    double mx = fmax(fabs(ar), fmax(fabs(ai), xnorm));
    double sr, si, sx;
    if (mx > 0x1p-1000 && mx < 0x1p1000) {  // (1 / mx normal: no bits lost)
        const double im = 1.0 / mx;
        sr = ar * im;
        si = ai * im;
        sx = xnorm * im;
    } else {
        sr = ar / mx;
        si = ai / mx;
        sx = xnorm / mx;
    }
    double beta = mx * sqrt(sr * sr + si * si + sx * sx);
    beta = ar >= 0.0 ? -beta : beta;
    double br = beta, sar = ar, sai = ai;
    if (fabs(beta) < safmin) {  // rescale (one step reaches safmin in double)
        f.up = 0x1p969;
        br = beta * f.up;
        sar = ar * f.up;
        sai = ai * f.up;
    }
    // |br| >= 2^-105 here (at least the smallest subnormal times 2^969): its reciprocal is
    // finite (and normal below 2^1022).
    const double ib = 1.0 / br;
    f.tau_r = (br - sar) * ib;
    f.tau_i = -sai * ib;
    // scal = 1 / (alpha - beta), range-reduced; |alpha - beta| >= |beta|.
    const double dr = sar - br, di = sai;
    if (di == 0.0) {
        f.scal_r = 1.0 / dr;
        f.scal_i = 0.0;
    } else {
        const double s = fmax(fabs(dr), fabs(di)), is = 1.0 / s;
        const double pr = dr * is, pi = di * is;
        const double iq = 1.0 / (s * (pr * pr + pi * pi));
        f.scal_r = pr * iq;
        f.scal_i = -pi * iq;
    }
    f.beta = beta;
    return f;
}

// The warp's sum of squares (every lane gets it): a butterfly of joins.
__device__ __forceinline__ Ssq warp_ssq(Ssq s) {
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        Ssq u;
        u.scale = __shfl_xor_sync(0xffffffffu, s.scale, o);
        u.ssq = __shfl_xor_sync(0xffffffffu, s.ssq, o);
        s = ssq_join(s, u);
    }
    return s;
}

template <class T> __device__ __forceinline__ double abs2(T v) {
    const double re = (double)rpart(v), im = ipart(v);
    return re * re + im * im;
}

// Bytes of one entry's exchange (mirrored by exchange_entry_bytes in qr/plan.rs): a 64-byte
// header (the barrier counter, the count it ended the last panel at), each block's partial
// sums of squares of every column (the panel's start), then two alternating sets (by column
// parity) of each block's partial products, the pre-update rows i and i + 1, v(i + 1), and
// each block's partial norm for a recomputed column.
template <class T> struct PanelExchange {
    unsigned char* base;
    int G;
    __device__ size_t par_bytes() const {
        return (size_t)G * QR_NB * sizeof(T) + (2 * QR_NB + 4) * sizeof(T) + (size_t)G * sizeof(Ssq);
    }
    __device__ unsigned* cnt() const { return (unsigned*)base; }
    __device__ unsigned* last() const { return (unsigned*)base + 1; }
    __device__ Ssq* init() const { return (Ssq*)(base + 64); }
    __device__ unsigned char* par(int p) const {
        return base + 64 + (size_t)G * QR_NB * sizeof(Ssq) + p * par_bytes();
    }
    __device__ T* dots(int p) const { return (T*)par(p); }
    __device__ T* row0(int p) const { return (T*)(par(p) + (size_t)G * QR_NB * sizeof(T)); }
    __device__ T* row1(int p) const { return row0(p) + QR_NB; }
    __device__ T* v1(int p) const { return row0(p) + 2 * QR_NB; }
    __device__ Ssq* recs(int p) const { return (Ssq*)(row0(p) + 2 * QR_NB + 4); }
};

// A column's norm below its diagonal is downdated from the norm of the column's rows from
// the diagonal on (‖a'_c[i+1:]‖² = ‖a_c[i:]‖² − |a'_c(i)|²: a reflector keeps the norm of the
// rows it acts on). It is recomputed exactly (one more exchange) where the downdated part below
// the diagonal is below this fraction of the column's norm last computed, or that is not a
// normal finite number: the downdates' rounding, relative to the part's norm, stays within a
// few units (and an exact zero below the diagonal stays zero).
#define QR_DOWNDATE_FLOOR 0.25
#define QR_NORM_TINY 0x1p-900

// SM: the block's rows live in shared memory for the whole panel (loaded once, stored once);
// otherwise every step reads and writes them in global memory (tall panels).
//
// With several blocks (G > 1), one grid barrier per column: each block publishes its partial
// products v^H a_c (c > i), the block holding row i publishes that row and the block holding
// row i + 1 that row and v(i + 1), all before the column's update; after the barrier every
// block forms the same updates, the next column's alpha (row i + 1 after the update) and its
// norm below the diagonal by downdating (see QR_DOWNDATE_FLOOR). Sums are added in one fixed
// order, so every block forms the same reflector.
template <class T, bool SM>
__device__ void qr_panel(const Qrp& j) {
    pdl_enter();
    extern __shared__ __align__(16) unsigned char smem_raw[];
    __shared__ Ssq s_buf[32];
    __shared__ T s_w[QR_NB];
    __shared__ double s_n[QR_NB], s_nref[QR_NB];
    __shared__ T s_alpha;
    __shared__ double s_xnorm;
    __shared__ int s_exact;
    const int G = j.grid, b = blockIdx.x, e = blockIdx.y;
    if (e >= j.ne) return;
    // Every block of the entry reads the same flag: none waits at a barrier the others skip.
    if (j.fl && __ldcg((const int*)((const unsigned char*)j.fl + e * j.fl_s)) == 0) return;
    T* A = (T*)j.a + e * j.es;
    T* tau = (T*)j.tau + e * j.tau_s;
    const PanelExchange<T> X{(unsigned char*)j.ex + e * j.ex_s, G};
    const i64 rows = j.rows, ld = j.ld;
    const int cols = (int)j.cols;
    const i64 chunk = (rows + G - 1) / G;
    const i64 r0 = min(rows, b * chunk), r1 = min(rows, r0 + chunk);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    // Own rows: global (r, c) at P[r + c * pld] (shared: shifted by r0).
    T* P = A;
    i64 pld = ld;
    if (SM) {
        P = (T*)smem_raw - r0;
        pld = chunk;
        for (int c = 0; c < cols; ++c)
            for (i64 r = r0 + threadIdx.x; r < r1; r += blockDim.x) P[r + c * pld] = A[r + c * ld];
        __syncthreads();
    }
    const bool multi = G > 1;
    unsigned round = multi ? __ldcg(X.last()) : 0u;
    // The exact norm of column i below its diagonal, over all blocks (`p`: the parity's slot).
    auto exact_xnorm = [&](int i, int p) -> double {
        const T* ci = P + i * pld;
        Ssq s = {0.0, 0.0};
        for (i64 r = max(r0, (i64)i + 1) + threadIdx.x; r < r1; r += blockDim.x) {
            const T x = ci[r];
            ssq_add(s, (double)rpart(x));
            ssq_add(s, ipart(x));
        }
        s = block_ssq(s, s_buf);
        if (!multi) return s.scale * sqrt(s.ssq);
        if (threadIdx.x == 0) X.recs(p)[b] = s;
        grid_bar(X.cnt(), (++round) * (unsigned)G);
        if (warp == 0) {
            Ssq t = {0.0, 0.0};
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                const int g = lane + 32 * q;
                Ssq u = {0.0, 0.0};
                if (g < G) {
                    u.scale = __ldcg(&X.recs(p)[g].scale);
                    u.ssq = __ldcg(&X.recs(p)[g].ssq);
                }
                t = ssq_join(t, u);
            }
            t = warp_ssq(t);
            if (lane == 0) s_buf[0] = t;
        }
        __syncthreads();
        const Ssq t = s_buf[0];
        __syncthreads();
        return t.scale * sqrt(t.ssq);
    };
    // The start: every column's norm (multi: over all blocks) and column 0's alpha.
    if (multi) {
        for (int c = warp; c < cols; c += nw) {
            Ssq s = {0.0, 0.0};
            for (i64 r = r0 + lane; r < r1; r += 32) {
                const T x = P[r + c * pld];
                ssq_add(s, (double)rpart(x));
                ssq_add(s, ipart(x));
            }
            s = warp_ssq(s);
            if (lane == 0) X.init()[b * QR_NB + c] = s;
        }
        if (r0 == 0 && r1 > 0)
            for (int c = threadIdx.x; c < cols; c += blockDim.x) X.row1(1)[c] = P[c * pld];
        grid_bar(X.cnt(), (++round) * (unsigned)G);
        for (int c = threadIdx.x; c < cols; c += blockDim.x) {
            Ssq t = {0.0, 0.0};
#pragma unroll 8
            for (int g = 0; g < G; ++g) {
                Ssq u;
                u.scale = __ldcg(&X.init()[g * QR_NB + c].scale);
                u.ssq = __ldcg(&X.init()[g * QR_NB + c].ssq);
                t = ssq_join(t, u);
            }
            const double n2 = t.scale * t.scale * t.ssq;
            s_n[c] = n2;
            s_nref[c] = n2;
        }
        if (threadIdx.x == 0) s_alpha = __ldcg(&X.row1(1)[0]);
        __syncthreads();
    }
    // Column i's norm below the diagonal (every thread gets it): one block computes it
    // exactly; several downdate it when that is safe, else compute it exactly together.
    auto next_norm = [&](int i, int p) -> double {
        if (!multi) return exact_xnorm(i, p);
        if (threadIdx.x == 0) {
            const double nn = s_n[i], ref = s_nref[i];
            const double xn2 = nn - abs2(s_alpha);
            // The part below the diagonal, not only the column, must keep its share of `ref`:
            // where the diagonal holds nearly all of the norm (nothing below it: LAPACK's
            // tau = 0) the difference is rounding, not a norm.
            const bool ok = multi && isfinite(nn) && ref > QR_NORM_TINY &&
                            xn2 >= QR_DOWNDATE_FLOOR * ref;
            s_exact = !ok;
            s_xnorm = ok ? sqrt(xn2) : 0.0;
        }
        __syncthreads();
        if (s_exact) {
            const double xn = exact_xnorm(i, p);
            if (threadIdx.x == 0) {
                s_xnorm = xn;
                s_n[i] = abs2(s_alpha) + xn * xn;
                s_nref[i] = s_n[i];
            }
        }
        __syncthreads();
        return s_xnorm;
    };
    T alpha = multi ? s_alpha : P[0];
    double xnorm = next_norm(0, 0);
    for (int i = 0; i < cols; ++i) {
        const int p = i & 1;
        T* ci = P + i * pld;
        const bool mine = r0 <= i && i < r1;
        const Reflector f = larfg((double)rpart(alpha), ipart(alpha), xnorm);
        const T scal = of_parts<T>(f.scal_r, f.scal_i);
        const T ctau = of_parts<T>(f.tau_r, -f.tau_i);  // conj(tau)
        // 1. the vector: own rows below the diagonal (H = I: nothing to reflect)
        if (!f.identity) {
            for (i64 r = max(r0, (i64)i + 1) + threadIdx.x; r < r1; r += blockDim.x) {
                T x = ci[r];
                if (f.up != 1.0) x = scl(x, (decltype(rpart(x)))f.up);
                ci[r] = mulc(x, scal);
            }
        }
        __syncthreads();
        // 2. partial products v^H a_c over own rows (v_i = 1), a warp per column
        const i64 rs = max(r0, (i64)i);
        for (int c = i + 1 + warp; c < cols; c += nw) {
            const T* cc = P + c * pld;
            T acc = zero_of<T>();
            if (!f.identity) {
                for (i64 r = rs + lane; r < r1; r += 32) {
                    const T v = r == i ? real_of<T>(1.0) : ci[r];
                    acc = cmad(acc, v, cc[r]);
                }
                acc = warp_sum(acc);
            }
            if (lane == 0) {
                if (multi) X.dots(p)[b * QR_NB + c] = acc;
                else s_w[c] = mulc(ctau, acc);
            }
        }
        const bool last = i + 1 >= cols;
        if (multi && !last) {
            // the rows the next step needs, before the update
            if (mine)
                for (int c = i + 1 + threadIdx.x; c < cols; c += blockDim.x) X.row0(p)[c] = P[i + c * pld];
            if (r0 <= i + 1 && i + 1 < r1) {
                for (int c = i + 1 + threadIdx.x; c < cols; c += blockDim.x)
                    X.row1(p)[c] = P[(i + 1) + c * pld];
                if (threadIdx.x == 0) *X.v1(p) = f.identity ? zero_of<T>() : ci[i + 1];
            }
            grid_bar(X.cnt(), (++round) * (unsigned)G);
            // Four threads per column, each adding every fourth block's product (loads in
            // flight together), then a butterfly over the four: the same bits in every block.
            const int nc = cols - i - 1;
            for (int base = 0; base < 4 * nc; base += blockDim.x) {
                const int t = base + threadIdx.x, cc = t >> 2, q = t & 3;
                T acc = zero_of<T>();
                if (cc < nc) {
                    const T* col = X.dots(p) + i + 1 + cc;
#pragma unroll 8
                    for (int g = q; g < G; g += 4) acc = addc(acc, __ldcg(col + g * QR_NB));
                }
                acc = addc(acc, shd(acc, 1));
                acc = addc(acc, shd(acc, 2));
                if (q == 0 && cc < nc) s_w[i + 1 + cc] = f.identity ? zero_of<T>() : mulc(ctau, acc);
            }
        }
        __syncthreads();
        // 3. a_c -= v w_c on own rows; multi: the norms of rows i + 1.. downdated
        if (!f.identity) {
            for (int c = i + 1 + warp; c < cols; c += nw) {
                T* cc = P + c * pld;
                const T w = s_w[c];
                for (i64 r = rs + lane; r < r1; r += 32) {
                    const T v = r == i ? real_of<T>(1.0) : ci[r];
                    cc[r] = fms(cc[r], v, w);
                }
            }
        }
        if (multi && !last) {
            for (int c = i + 1 + threadIdx.x; c < cols; c += blockDim.x) {
                const T ai = fms(__ldcg(&X.row0(p)[c]), real_of<T>(1.0), s_w[c]);
                s_n[c] -= abs2(ai);
            }
        }
        if (threadIdx.x == 0 && mine) {
            ci[i] = real_of<T>(f.beta);
            tau[i] = of_parts<T>(f.tau_r, f.tau_i);
        }
        if (threadIdx.x == 0 && b == 0 && f.identity) tau[i] = zero_of<T>();
        __syncthreads();
        if (last) break;
        // the next column's alpha: row i + 1 after the update (one block: in place)
        if (multi) {
            if (threadIdx.x == 0) {
                const T v1 = __ldcg(X.v1(p));
                s_alpha = fms(__ldcg(&X.row1(p)[i + 1]), v1, s_w[i + 1]);
            }
            __syncthreads();
            alpha = s_alpha;
        } else {
            alpha = P[(i + 1) + (i + 1) * pld];
        }
        xnorm = next_norm(i + 1, p);
    }
    if (multi && b == 0 && threadIdx.x == 0) *X.last() = round;
    if (SM) {
        __syncthreads();
        for (int c = 0; c < cols; ++c)
            for (i64 r = r0 + threadIdx.x; r < r1; r += blockDim.x) A[r + c * ld] = P[r + c * pld];
    }
}

// geqrf of a whole matrix of at most 32 x 32 (the batched small case), one warp per matrix:
// lane c holds column c in registers. The matrix goes through a per-warp tile of shared memory
// (row-contiguous global loads and stores). Per column the diagonal lane writes its vector
// (1 on the diagonal) to the warp's slot and every lane reads it back by broadcasts for its
// product w = conj(tau) v^H a_c and its update a_c -= v w, so a column costs no barrier and no
// reduction; the scalars are larfg's, as the panel's. The columns go in bands of QRS_BAND:
// within a band the column index is a loop variable but every register index is static (the
// band's rows are masked, the rows above the band are not touched), so the code is a loop of
// 32 / QRS_BAND bodies instead of a fully unrolled 32 columns.
#define QRS_BAND 8
#define QRS_LD 33  // the tile's leading dimension (elements)
template <class T> __device__ __forceinline__ void qrs_ld16(const T* p, T* o);
template <class T> __device__ __forceinline__ void qrs_st16(T* p, const T* v);
template <> __device__ __forceinline__ void qrs_ld16<float>(const float* p, float* o) {
    const float4 q = *(const float4*)p;
    o[0] = q.x, o[1] = q.y, o[2] = q.z, o[3] = q.w;
}
template <> __device__ __forceinline__ void qrs_ld16<double>(const double* p, double* o) {
    const double2 q = *(const double2*)p;
    o[0] = q.x, o[1] = q.y;
}
template <> __device__ __forceinline__ void qrs_ld16<float2>(const float2* p, float2* o) {
    const float4 q = *(const float4*)p;
    o[0] = make_float2(q.x, q.y), o[1] = make_float2(q.z, q.w);
}
template <> __device__ __forceinline__ void qrs_ld16<double2>(const double2* p, double2* o) { o[0] = *p; }
template <> __device__ __forceinline__ void qrs_st16<float>(float* p, const float* v) {
    *(float4*)p = make_float4(v[0], v[1], v[2], v[3]);
}
template <> __device__ __forceinline__ void qrs_st16<double>(double* p, const double* v) {
    *(double2*)p = make_double2(v[0], v[1]);
}
template <> __device__ __forceinline__ void qrs_st16<float2>(float2* p, const float2* v) {
    *(float4*)p = make_float4(v[0].x, v[0].y, v[1].x, v[1].y);
}
template <> __device__ __forceinline__ void qrs_st16<double2>(double2* p, const double2* v) { *p = v[0]; }

// s + |v|^2 (fused)
__device__ __forceinline__ double qrs_sq(double s, float v) { return fma((double)v, (double)v, s); }
__device__ __forceinline__ double qrs_sq(double s, double v) { return fma(v, v, s); }
__device__ __forceinline__ double qrs_sq(double s, float2 v) {
    return fma((double)v.y, (double)v.y, fma((double)v.x, (double)v.x, s));
}
__device__ __forceinline__ double qrs_sq(double s, double2 v) { return fma(v.y, v.y, fma(v.x, v.x, s)); }

// Columns [R0, R0 + QRS_BAND) (those below k); rows below R0 are final.
template <class T, int R0>
__device__ __forceinline__ void qr_small_band(T (&a)[32], T* slot, T& my_tau, int lane, int n, int k) {
    constexpr int R1 = R0 + QRS_BAND, P = 16 / sizeof(T);
    static_assert(QRS_BAND % 4 == 0 && 32 % QRS_BAND == 0, "band");
#pragma unroll 1
    for (int i = R0; i < R1 && i < k; ++i) {
        // The column's norm below the diagonal (every lane its own; lane i's is used): a plain
        // sum of squares in double (four partial sums), the scaled one only where that could
        // overflow or lose small terms (its square sum out of range, which also catches a zero
        // sum of nonzero squares that underflowed).
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
#pragma unroll
        for (int r = R0; r < 32; ++r) {
            if (r < R1 && r <= i) continue;
            if ((r & 3) == 0) s0 = qrs_sq(s0, a[r]);
            else if ((r & 3) == 1) s1 = qrs_sq(s1, a[r]);
            else if ((r & 3) == 2) s2 = qrs_sq(s2, a[r]);
            else s3 = qrs_sq(s3, a[r]);
        }
        T al = a[R0];
#pragma unroll
        for (int r = R0 + 1; r < R1; ++r)
            if (r == i) al = a[r];
        double ssq = __shfl_sync(0xffffffffu, (s0 + s1) + (s2 + s3), i);
        const T alpha = shf(al, i);
        double scale = 1.0;
        if (!(ssq >= 0x1p-970 && ssq <= 0x1p970)) {  // (the warp's branch)
            double mx = 0.0, sq = 0.0;
#pragma unroll
            for (int r = R0; r < 32; ++r)
                if (r >= R1 || r > i) mx = fmax(mx, fmax(fabs((double)rpart(a[r])), fabs((double)ipart(a[r]))));
            if (mx > 0.0) {
                // (a subnormal mx first scaled up by 2^600, exactly: its reciprocal would
                // overflow; x * pre is exact too)
                const double pre = mx < 0x1p-1000 ? 0x1p600 : 1.0, inv = 1.0 / (mx * pre);
#pragma unroll
                for (int r = R0; r < 32; ++r)
                    if (r >= R1 || r > i) {
                        const double re = (double)rpart(a[r]) * pre * inv, im = ipart(a[r]) * pre * inv;
                        sq += re * re + im * im;
                    }
            }
            mx = __shfl_sync(0xffffffffu, mx, i);
            sq = __shfl_sync(0xffffffffu, sq, i);
            if (mx > 0.0) {
                scale = mx;
                ssq = sq;
            }
        }
        const Reflector f = larfg((double)rpart(alpha), ipart(alpha), scale * sqrt(ssq));
        if (f.identity) {
            if (lane == i) my_tau = zero_of<T>();
            continue;
        }
        if (lane == i) my_tau = of_parts<T>(f.tau_r, f.tau_i);
        __syncwarp();  // the previous column's reads of the slot are done
        if (f.up != 1.0 && lane == i) {  // (rare: larfg's rescaled case) x * up
#pragma unroll
            for (int r = R0; r < 32; ++r)
                if (r >= R1 || r > i) a[r] = scl(a[r], (decltype(rpart(a[r])))f.up);
        }
        if (lane == i) {
            // The vector (rows below i; 1 at i) to the slot, beta and the vector to the column.
            const T scal = of_parts<T>(f.scal_r, f.scal_i);
#pragma unroll
            for (int r0 = R0; r0 < 32; r0 += P) {
                T sv[P];
#pragma unroll
                for (int q = 0; q < P; ++q) {
                    const int r = r0 + q;
                    const T v = mulc(a[r], scal);
                    if (r >= R1 || r > i) {
                        sv[q] = v;
                        a[r] = v;
                    } else if (r == i) {
                        sv[q] = real_of<T>(1.0);
                        a[r] = real_of<T>(f.beta);
                    } else {
                        sv[q] = zero_of<T>();
                    }
                }
                qrs_st16(slot + r0, sv);
            }
        }
        __syncwarp();
        // w = conj(tau) v^H a_c, then a_c -= v w, on the columns right of i (four partial
        // sums: a quarter of the dependent chain).
        T w0 = zero_of<T>(), w1 = w0, w2 = w0, w3 = w0;
#pragma unroll
        for (int r0 = R0; r0 < 32; r0 += P) {
            T v[P];
            qrs_ld16(slot + r0, v);
#pragma unroll
            for (int q = 0; q < P; ++q) {
                const int r = r0 + q;
                if (r < R1 && r < i) continue;
                if ((r & 3) == 0) w0 = cmad(w0, v[q], a[r]);
                else if ((r & 3) == 1) w1 = cmad(w1, v[q], a[r]);
                else if ((r & 3) == 2) w2 = cmad(w2, v[q], a[r]);
                else w3 = cmad(w3, v[q], a[r]);
            }
        }
        const T w = mulc(of_parts<T>(f.tau_r, -f.tau_i), addc(addc(w0, w1), addc(w2, w3)));
        __syncwarp();  // (the slot is read again below: not 32 more registers)
        if (lane > i && lane < n) {
#pragma unroll
            for (int r0 = R0; r0 < 32; r0 += P) {
                T v[P];
                qrs_ld16(slot + r0, v);
#pragma unroll
                for (int q = 0; q < P; ++q) {
                    const int r = r0 + q;
                    if (r < R1 && r < i) continue;
                    a[r] = fms(a[r], v[q], w);
                }
            }
        }
    }
}
template <class T, int R0>
__device__ __forceinline__ void qr_small_bands(T (&a)[32], T* slot, T& my_tau, int lane, int n, int k) {
    qr_small_band<T, R0>(a, slot, my_tau, lane, n, k);
    if constexpr (R0 + QRS_BAND < 32)
        if (R0 + QRS_BAND < k) qr_small_bands<T, R0 + QRS_BAND>(a, slot, my_tau, lane, n, k);
}

template <class T>
__device__ void qr_small(const Qrp& j) {
    pdl_enter();
    // a warp's tile: 32 rows x CP columns (ld QRS_LD), its first 32 elements also the slot
    __shared__ __align__(16) double qrs_tile[4][QRS_LD * 32];
    constexpr int CP = sizeof(T) <= 8 ? 32 : 16;  // columns per pass through the tile
    const int lane = threadIdx.x & 31, wp = threadIdx.x >> 5;
    const i64 e = (i64)blockIdx.x * 4 + wp;  // (128 threads a block)
    if (e >= j.ne) return;  // a whole warp
    T* A = (T*)j.a + e * j.es;
    T* tau = (T*)j.tau + e * j.tau_s;
    T* S = (T*)qrs_tile[wp];
    const int m = (int)j.rows, n = (int)j.cols, k = min(m, n);
    T a[32];
#pragma unroll
    for (int c0 = 0; c0 < 32; c0 += CP) {
#pragma unroll
        for (int c = 0; c < CP; ++c)
            S[c * QRS_LD + lane] = (lane < m && c0 + c < n) ? A[lane + (c0 + c) * j.ld] : zero_of<T>();
        __syncwarp();
        if (lane >= c0 && lane < c0 + CP) {
#pragma unroll
            for (int r = 0; r < 32; ++r) a[r] = S[(lane - c0) * QRS_LD + r];
        }
        __syncwarp();
    }
    T my_tau = zero_of<T>();
    if (k > 0) qr_small_bands<T, 0>(a, S, my_tau, lane, n, k);
    if (lane < k) tau[lane] = my_tau;
#pragma unroll
    for (int c0 = 0; c0 < 32; c0 += CP) {
        __syncwarp();
        if (lane >= c0 && lane < c0 + CP) {
#pragma unroll
            for (int r = 0; r < 32; ++r) S[(lane - c0) * QRS_LD + r] = a[r];
        }
        __syncwarp();
#pragma unroll
        for (int c = 0; c < CP; ++c)
            if (lane < m && c0 + c < n) A[lane + (c0 + c) * j.ld] = S[c * QRS_LD + lane];
    }
}

// geqrf of a whole matrix (at most QR_WHOLE_COLS columns, ld = rows + 1 in shared memory) by
// one block of QR_WHOLE_THREADS (batches of 33 .. 128 columns): per column warp 0 takes the
// norm and larfg, all threads scale the vector, thread groups form w = conj(tau) v^H A (a
// group a column), warps apply the rank-1 update (a warp a column); four barriers a column
// instead of a program of panels, T factors and products per block of columns.
#define QR_WHOLE_COLS 128
#define QR_WHOLE_THREADS 256
template <class T>
__device__ void qr_whole(const Qrp& j) {
    pdl_enter();
    extern __shared__ __align__(16) unsigned char smem_raw[];
    __shared__ double sc[7];  // beta, tau (re, im), up, scal (re, im), identity
    const int t = threadIdx.x, lane = t & 31, wp = t >> 5, nw = QR_WHOLE_THREADS / 32;
    const int m = (int)j.rows, n = (int)j.cols, k = min(m, n), ld = m + 1;
    T* S = (T*)smem_raw;
    T* W = S + (i64)ld * n;
    // threads a column for w: more where the columns are few
    const int tpc = n <= 64 ? 4 : 2, groups = QR_WHOLE_THREADS / tpc;
    for (i64 e = blockIdx.x; e < j.ne; e += gridDim.x) {
        T* A = (T*)j.a + e * j.es;
        T* tau = (T*)j.tau + e * j.tau_s;
        __syncthreads();  // the previous entry's reads of S are done
        for (int c = wp; c < n; c += nw)
            for (int r = lane; r < m; r += 32) S[r + c * ld] = A[r + (i64)c * j.ld];
        __syncthreads();
        for (int i = 0; i < k; ++i) {
            T* v = S + i * ld;
            if (wp == 0) {
                // The norm below the diagonal: a plain sum of squares, the scaled one where
                // that sum is out of range (as qr_small).
                double ssq = 0.0;
                for (int r = i + 1 + lane; r < m; r += 32) ssq += abs2(v[r]);
#pragma unroll
                for (int o = 16; o > 0; o >>= 1) ssq += __shfl_xor_sync(0xffffffffu, ssq, o);
                double scale = 1.0;
                if (!(ssq >= 0x1p-970 && ssq <= 0x1p970)) {
                    double mx = 0.0;
                    for (int r = i + 1 + lane; r < m; r += 32)
                        mx = fmax(mx, fmax(fabs((double)rpart(v[r])), fabs((double)ipart(v[r]))));
#pragma unroll
                    for (int o = 16; o > 0; o >>= 1) mx = fmax(mx, __shfl_xor_sync(0xffffffffu, mx, o));
                    if (mx > 0.0) {
                        // (a subnormal mx first scaled up by 2^600, exactly: its reciprocal
                        // would overflow; x * pre is exact too)
                        const double pre = mx < 0x1p-1000 ? 0x1p600 : 1.0, inv = 1.0 / (mx * pre);
                        double s2 = 0.0;
                        for (int r = i + 1 + lane; r < m; r += 32) {
                            const double re = (double)rpart(v[r]) * pre * inv;
                            const double im = ipart(v[r]) * pre * inv;
                            s2 += re * re + im * im;
                        }
#pragma unroll
                        for (int o = 16; o > 0; o >>= 1) s2 += __shfl_xor_sync(0xffffffffu, s2, o);
                        scale = mx;
                        ssq = s2;
                    }
                }
                if (lane == 0) {
                    const T alpha = v[i];
                    const Reflector f = larfg((double)rpart(alpha), ipart(alpha), scale * sqrt(ssq));
                    sc[0] = f.beta;
                    sc[1] = f.tau_r;
                    sc[2] = f.tau_i;
                    sc[3] = f.up;
                    sc[4] = f.scal_r;
                    sc[5] = f.scal_i;
                    sc[6] = f.identity ? 1.0 : 0.0;
                }
            }
            __syncthreads();
            const double beta = sc[0], tr = sc[1], ti = sc[2], up = sc[3];
            const T scal = of_parts<T>(sc[4], sc[5]);
            const bool identity = sc[6] != 0.0;
            __syncthreads();  // sc is rewritten by the next column
            if (identity) {
                if (t == 0) tau[i] = zero_of<T>();
                continue;
            }
            for (int r = i + 1 + t; r < m; r += QR_WHOLE_THREADS) {
                T x = v[r];
                if (up != 1.0) x = scl(x, (decltype(rpart(x)))up);
                v[r] = mulc(x, scal);
            }
            __syncthreads();
            // W[c] = conj(tau) (S(i, c) + sum over r > i of conj(v_r) S(r, c)), c > i; every
            // thread runs the same number of rounds (the shuffles need the whole warp).
            const int nc = n - i - 1, part = t % tpc;
            const T ctau = of_parts<T>(tr, -ti);
            for (int c0 = 0; c0 < nc; c0 += groups) {
                const int cc = c0 + t / tpc;
                const bool valid = cc < nc;
                const int c = i + 1 + (valid ? cc : 0);
                T acc = (valid && part == 0) ? S[i + c * ld] : zero_of<T>();
                if (valid)
                    for (int r = i + 1 + part; r < m; r += tpc) acc = cmad(acc, v[r], S[r + c * ld]);
                for (int o = 1; o < tpc; o <<= 1) acc = addc(acc, shd(acc, o));
                if (valid && part == 0) W[c] = mulc(ctau, acc);
            }
            __syncthreads();
            // S(r, c) -= v_r W[c], r >= i (v_i = 1), c > i.
            for (int c = i + 1 + wp; c < n; c += nw) {
                const T wc = W[c];
                for (int r = i + lane; r < m; r += 32)
                    S[r + c * ld] = fms(S[r + c * ld], r == i ? real_of<T>(1.0) : v[r], wc);
            }
            if (t == 0) {
                v[i] = real_of<T>(beta);
                tau[i] = of_parts<T>(tr, ti);
            }
            __syncthreads();
        }
        for (int c = wp; c < n; c += nw)
            for (int r = lane; r < m; r += 32) A[r + (i64)c * j.ld] = S[r + c * ld];
    }
}

// T (k x k, upper, zeros below; k <= 128) from G = V^H V and tau, by blocks: the diagonal
// blocks of TF_LEAF columns by LAPACK's recurrence T(0:i, i) = -tau_i T(0:i, 0:i) G(0:i, i)
// (every leaf at once, four threads per row), then neighbours merged level by level as
// T12 = -T11 G12 T22 (H1 H2 = I - [V1 V2] [T11 T12; 0 T22] [V1 V2]^H), every pair of a level
// at once: a few dozen barriers instead of one per column. T lives in shared memory, row-major
// (Ts[l * kp + p] = T(l, p)); its unused lower part holds each leaf's G (transposed) and, during
// a merge, Y = G12 T22 (transposed); G12 is staged where T12 will go.
#define TF_LEAF 16
template <class T>
__device__ void qr_tfactor(const Qrp& j) {
    pdl_enter();
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const int k = (int)j.cols, kp = k + 1, nt = blockDim.x;
    T* Ts = (T*)smem_raw;
    const int e = blockIdx.x;
    if (e >= j.ne) return;
    // blockIdx.y: one of several blocks of reflectors (k apart in tau, bs apart in G and T); G
    // may be T's own place: it is read only before the last barrier.
    const T* Gm = (const T*)j.b + e * j.b_es + blockIdx.y * j.bs;
    T* Tm = (T*)j.t + e * j.t_es + blockIdx.y * j.bs;
    const T* tau = (const T*)j.tau + e * j.tau_s + (i64)blockIdx.y * k;
    const i64 gl = j.b_ld, tl = j.t_ld;
    using R = decltype(rpart(zero_of<T>()));
    // tau on the diagonal; each leaf's G(p, c), p < c, at (c, p).
    for (int q = threadIdx.x; q < k * TF_LEAF; q += nt) {
        const int c = q / TF_LEAF, p = c / TF_LEAF * TF_LEAF + q % TF_LEAF;
        if (p < c) Ts[c * kp + p] = Gm[p + c * gl];
        if (p == c) Ts[c * kp + c] = tau[c];
    }
    __syncthreads();
    // The leaves: row `row` of its leaf, column by column.
    {
        const int row = threadIdx.x >> 2, part = threadIdx.x & 3;
        const int first = row / TF_LEAF * TF_LEAF;
        for (int c = 0; c < TF_LEAF; ++c) {
            const int i = first + c;
            const bool mine = row < i && i < k;
            T acc = zero_of<T>();
            if (mine)
                for (int p = row + part; p < i; p += 4) acc = addc(acc, mulc(Ts[row * kp + p], Ts[i * kp + p]));
            acc = addc(acc, shd(acc, 1));
            acc = addc(acc, shd(acc, 2));
            if (mine && part == 0) Ts[row * kp + i] = scl(mulc(Ts[i * kp + i], acc), (R)-1);
            __syncthreads();
        }
    }
    // Merges: A = [a, a + s), B = [a + s, min(a + 2s, k)) for every a = 0, 2s, 4s, ...
    for (int s = TF_LEAF; s < k; s *= 2) {
        // Element q of the level: column c (in some B), row p = a + q % s (in its A).
        const int n = k * s;
        for (int q = threadIdx.x; q < n; q += nt) {
            const int c = q / s, a = c / (2 * s) * (2 * s), p = a + q % s;
            if (c >= a + s) Ts[p * kp + c] = Gm[p + c * gl];
        }
        __syncthreads();
        // Y(p, c) = sum over q in B, q <= c, of G(p, q) T(q, c), at (c, p).
        for (int q = threadIdx.x; q < n; q += nt) {
            const int c = q / s, a = c / (2 * s) * (2 * s), p = a + q % s;
            if (c < a + s) continue;
            T acc = zero_of<T>();
            for (int r = a + s; r <= c; ++r) acc = addc(acc, mulc(Ts[p * kp + r], Ts[r * kp + c]));
            Ts[c * kp + p] = acc;
        }
        __syncthreads();
        // T12(r, c) = -sum over p in A, p >= r, of T(r, p) Y(p, c).
        for (int q = threadIdx.x; q < n; q += nt) {
            const int c = q / s, a = c / (2 * s) * (2 * s), r = a + q % s;
            if (c < a + s) continue;
            T acc = zero_of<T>();
            for (int p = r; p < a + s; ++p) acc = addc(acc, mulc(Ts[r * kp + p], Ts[c * kp + p]));
            Ts[r * kp + c] = scl(acc, (R)-1);
        }
        __syncthreads();
    }
    for (int q = threadIdx.x; q < k * k; q += nt) {
        const int r = q % k, c = q / k;
        Tm[r + c * tl] = r <= c ? Ts[r * kp + c] : zero_of<T>();
    }
}

// orgqr's block: out = [I; 0] - V X (at most QR_ORG_COLS columns) on a tile of 32 rows; V unit
// lower (its upper part not read). The tile's rows of V are read before any is written (in
// place); X passes through shared memory 32 rows at a time, read by every warp at once.
#define QR_ORG_COLS 128
#define QR_ORG_LD (QR_ORG_COLS + 1)
template <class T>
__device__ void qr_org(const Qrp& j) {
    pdl_enter();
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* Vt = (T*)smem_raw;            // 32 x QR_ORG_LD: the tile's rows of V
    T* Xs = Vt + 32 * QR_ORG_LD;     // 32 x QR_ORG_LD: rows l0 .. l0 + 31 of X
    const int e = blockIdx.y;
    if (e >= j.ne) return;
    T* A = (T*)j.a + e * j.es;
    const T* X = (const T*)j.b + e * j.b_es;
    const int cols = (int)j.cols;
    const i64 rows = j.rows, ld = j.ld, r0 = (i64)blockIdx.x * 32;
    for (int q = threadIdx.x; q < 32 * cols; q += blockDim.x) {
        const int r = q % 32, l = q / 32;
        const i64 gr = r0 + r;
        T v = zero_of<T>();
        if (gr < rows) v = gr > l ? A[gr + l * ld] : gr == l ? real_of<T>(1.0) : zero_of<T>();
        Vt[r * QR_ORG_LD + l] = v;
    }
    const int tr = threadIdx.x % 32, cg = threadIdx.x / 32;  // 8 groups of 16 columns
    const i64 gr = r0 + tr;
    T acc[16];
#pragma unroll
    for (int q = 0; q < 16; ++q) acc[q] = zero_of<T>();
    for (int l0 = 0; l0 < cols; l0 += 32) {
        const int lc = min(32, cols - l0);
        __syncthreads();  // Vt written (first round), Xs read (later ones)
        for (int q = threadIdx.x; q < 32 * cols; q += blockDim.x) {
            const int ll = q % 32, c = q / 32;
            Xs[ll * QR_ORG_LD + c] = ll < lc ? X[l0 + ll + (i64)c * j.b_ld] : zero_of<T>();
        }
        __syncthreads();
        for (int ll = 0; ll < lc; ++ll) {
            const T v = Vt[tr * QR_ORG_LD + l0 + ll];
#pragma unroll
            for (int q = 0; q < 16; ++q) acc[q] = addc(acc[q], mulc(v, Xs[ll * QR_ORG_LD + cg * 16 + q]));
        }
    }
    if (gr < rows) {
#pragma unroll
        for (int q = 0; q < 16; ++q) {
            const int c = cg * 16 + q;
            if (c < cols) {
                const T id = gr == c ? real_of<T>(1.0) : zero_of<T>();
                A[gr + c * ld] = fms(id, real_of<T>(1.0), acc[q]);
            }
        }
    }
}

template <class T>
__device__ void qr_identity(const Qrp& j) {
    pdl_enter();
    const int e = blockIdx.y;
    if (e >= j.ne) return;
    T* A = (T*)j.a + e * j.es;
    const i64 rows = j.rows, n = rows * j.cols;
    for (i64 q = (i64)blockIdx.x * blockDim.x + threadIdx.x; q < n; q += (i64)gridDim.x * blockDim.x) {
        const i64 r = q % rows, c = q / rows;
        A[r + c * j.ld] = r == c + j.shift ? real_of<T>(1.0) : zero_of<T>();
    }
}

// gels: info = the first exact zero on the triangle's diagonal (1-based, 0 if none), one
// block per entry; j.b holds entry e0's info, j.b_es the i32 values between entries.
template <class T>
__device__ void qr_diaginfo(const Qrp& j) {
    pdl_enter();
    const i64 e = blockIdx.x;
    if (e >= j.ne) return;
    const int k = (int)j.cols;
    const int first = first_zero_diagonal((const T*)j.a + e * j.es, j.ld, k);
    if (threadIdx.x == 0) ((int*)j.b)[e * j.b_es] = first < k ? first + 1 : 0;
}

// gelqf, ormlq: b (cols x rows) = the conjugate transpose of a (rows x cols), through 32 x 32
// tiles in shared memory (reads along a's columns, writes along b's); shift != 0: a's elements
// on and left of its diagonal are not read (zeros in their place).
template <class T>
__device__ void qr_transpose(const Qrp& j) {
    pdl_enter();
    __shared__ T tile[32][33];
    const int e = blockIdx.z;
    if (e >= j.ne) return;
    const T* S = (const T*)j.a + e * j.es;
    T* D = (T*)j.b + e * j.b_es;
    const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
    const i64 r0 = (i64)blockIdx.y * 32, c0 = (i64)blockIdx.x * 32;
    for (int k = ty; k < 32; k += 8) {
        const i64 r = r0 + tx, c = c0 + k;
        T v = zero_of<T>();
        if (r < j.rows && c < j.cols && !(j.shift && c <= r)) v = S[r + c * j.ld];
        tile[tx][k] = v;
    }
    __syncthreads();
    for (int k = ty; k < 32; k += 8) {
        const i64 r = r0 + k, c = c0 + tx;
        if (r < j.rows && c < j.cols) D[c + r * j.b_ld] = cj(tile[k][tx]);
    }
}

#ifdef GPUBLAS_FAMILY_QR
#define QR_KERNELS(TAG, T) \
    extern "C" __global__ void __launch_bounds__(256) qr_panel_##TAG(Qrp j) { qr_panel<T, false>(j); } \
    extern "C" __global__ void __launch_bounds__(256) qr_panelsm_##TAG(Qrp j) { qr_panel<T, true>(j); } \
    extern "C" __global__ void __launch_bounds__(128) qr_small_##TAG(Qrp j) { qr_small<T>(j); } \
    extern "C" __global__ void __launch_bounds__(QR_WHOLE_THREADS) qr_whole_##TAG(Qrp j) { qr_whole<T>(j); } \
    extern "C" __global__ void __launch_bounds__(512) qr_tfactor_##TAG(Qrp j) { qr_tfactor<T>(j); } \
    extern "C" __global__ void __launch_bounds__(256) qr_org_##TAG(Qrp j) { qr_org<T>(j); } \
    extern "C" __global__ void __launch_bounds__(256) qr_identity_##TAG(Qrp j) { qr_identity<T>(j); } \
    extern "C" __global__ void __launch_bounds__(256) qr_diaginfo_##TAG(Qrp j) { qr_diaginfo<T>(j); } \
    extern "C" __global__ void __launch_bounds__(256) qr_transpose_##TAG(Qrp j) { qr_transpose<T>(j); }
QR_KERNELS(s, float)
QR_KERNELS(d, double)
QR_KERNELS(c, float2)
QR_KERNELS(z, double2)
#endif
