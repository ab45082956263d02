// The QR family's kernels (GPUBLAS_FAMILY_QR), for float (s), double (d), float2 (c) and
// double2 (z):
//   qr_panel:    geqr2 of a panel of at most 64 columns over all its rows. The rows are split
//                over the entry's `grid` blocks (a cooperative launch: all resident); per column
//                two grid barriers (the blocks' partial norms, then their partial products), and
//                every block forms the same reflector from the same sums added in the same order.
//                qr_panelsm keeps each block's rows in shared memory for the whole panel.
//   qr_small:    geqrf of a whole matrix of at most 32 x 32, one warp per matrix (batches).
//   qr_tfactor:  the triangular factor T (order <= 128) of a block of reflectors from
//                G = V^H V and tau (LAPACK's larft recurrence), one block per entry.
//   qr_org:      orgqr's block [I; 0] - V X, tiles of 64 rows, each tile's rows read before any
//                is written (in place).
//   qr_identity: columns of the identity.

#define QR_NB 64  // most columns of a panel

struct Qrp {
    u64 a; i64 ld, es;        // the block at entry e0, its leading dimension, entry distance
    u64 b; i64 b_ld, b_es;    // tfactor: G; org: X
    u64 t; i64 t_ld, t_es;    // tfactor: T
    u64 tau; i64 tau_s;       // entry e0's tau (at the block's first reflector), distance
    u64 ex; i64 ex_s;         // entry e0's exchange, bytes between entries
    i64 rows, cols;
    int k0, grid, ne, bars, shift, pad;
};

__device__ __forceinline__ float mulc(float a, float b) { return a * b; }
__device__ __forceinline__ double mulc(double a, double b) { return a * b; }
__device__ __forceinline__ float2 mulc(float2 a, float2 b) {
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__device__ __forceinline__ double2 mulc(double2 a, double2 b) {
    return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__device__ __forceinline__ float addc(float a, float b) { return a + b; }
__device__ __forceinline__ double addc(double a, double b) { return a + b; }
__device__ __forceinline__ float2 addc(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ double2 addc(double2 a, double2 b) { return make_double2(a.x + b.x, a.y + b.y); }
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
__device__ __forceinline__ float shd(float v, int o) { return __shfl_xor_sync(0xffffffffu, v, o); }
__device__ __forceinline__ double shd(double v, int o) { return __shfl_xor_sync(0xffffffffu, v, o); }
__device__ __forceinline__ float2 shd(float2 v, int o) {
    return make_float2(__shfl_xor_sync(0xffffffffu, v.x, o), __shfl_xor_sync(0xffffffffu, v.y, o));
}
__device__ __forceinline__ double2 shd(double2 v, int o) {
    return make_double2(__shfl_xor_sync(0xffffffffu, v.x, o), __shfl_xor_sync(0xffffffffu, v.y, o));
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
    const double safmin = 0x1p-969;
    double mx = fmax(fabs(ar), fmax(fabs(ai), xnorm));
    double beta = mx * sqrt((ar / mx) * (ar / mx) + (ai / mx) * (ai / mx) + (xnorm / mx) * (xnorm / mx));
    beta = ar >= 0.0 ? -beta : beta;
    double br = beta, sar = ar, sai = ai;
    if (fabs(beta) < safmin) {  // rescale (one step reaches safmin in double)
        f.up = 0x1p969;
        br = beta * f.up;
        sar = ar * f.up;
        sai = ai * f.up;
    }
    f.tau_r = (br - sar) / br;
    f.tau_i = -sai / br;
    // scal = 1 / (alpha - beta), range-reduced.
    const double dr = sar - br, di = sai;
    const double s = fmax(fabs(dr), fabs(di));
    const double pr = dr / s, pi = di / s;
    const double q = s * (pr * pr + pi * pi);
    f.scal_r = pr / q;
    f.scal_i = -pi / q;
    f.beta = beta;
    return f;
}

// The exchange record of one block for one column: its partial norm and, from the block that
// holds the column's diagonal row, that row's value (alpha).
template <class T> struct NormRec {
    Ssq s;
    T alpha;
};

// SM: the block's rows live in shared memory for the whole panel (loaded once, stored once);
// otherwise every step reads and writes them in global memory (tall panels).
template <class T, bool SM>
__device__ void qr_panel(const Qrp& j) {
    pdl_enter();
    extern __shared__ __align__(16) unsigned char smem_raw[];
    __shared__ Ssq s_buf[32];
    __shared__ T s_dot[QR_NB];
    __shared__ T s_alpha;
    const int G = j.grid, b = blockIdx.x, e = blockIdx.y;
    if (e >= j.ne) return;
    T* A = (T*)j.a + e * j.es;
    T* tau = (T*)j.tau + e * j.tau_s;
    unsigned char* ex = (unsigned char*)j.ex + e * j.ex_s;
    unsigned* cnt = (unsigned*)ex;
    NormRec<T>* recs = (NormRec<T>*)(ex + 64);
    T* dots = (T*)(ex + 64 + sizeof(NormRec<T>) * G);
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
    unsigned round = (unsigned)j.bars;
    for (int i = 0; i < cols; ++i) {
        T* ci = P + i * pld;
        const bool mine = r0 <= i && i < r1;
        // 1. the column's norm below the diagonal, and alpha from the block that holds it
        Ssq s = {0.0, 0.0};
        for (i64 r = max(r0, (i64)i + 1) + threadIdx.x; r < r1; r += blockDim.x) {
            const T x = ci[r];
            ssq_add(s, (double)rpart(x));
            ssq_add(s, ipart(x));
        }
        s = block_ssq(s, s_buf);
        T alpha;
        if (G > 1) {
            if (threadIdx.x == 0) {
                recs[b].s = s;
                if (mine) recs[b].alpha = ci[i];
            }
            grid_bar(cnt, (++round) * (unsigned)G);
            // Warp 0 joins the records: lane l those of blocks l, l + 32, … (loads in flight
            // together), then a butterfly; the join is commutative, so every lane, and every
            // block, ends with the same bits.
            if (warp == 0) {
                Ssq t = {0.0, 0.0};
#pragma unroll
                for (int q = 0; q < 4; ++q) {
                    const int g = lane + 32 * q;
                    Ssq u = {0.0, 0.0};
                    if (g < G) {
                        u.scale = __ldcg(&recs[g].s.scale);
                        u.ssq = __ldcg(&recs[g].s.ssq);
                    }
                    t = ssq_join(t, u);
                }
#pragma unroll
                for (int o = 1; o < 32; o <<= 1) {
                    Ssq u;
                    u.scale = __shfl_xor_sync(0xffffffffu, t.scale, o);
                    u.ssq = __shfl_xor_sync(0xffffffffu, t.ssq, o);
                    t = ssq_join(t, u);
                }
                if (lane == 0) {
                    s_buf[0] = t;
                    s_alpha = __ldcg(&recs[(int)(i / chunk)].alpha);
                }
            }
            __syncthreads();
            s = s_buf[0];
            alpha = s_alpha;
        } else {
            alpha = ci[i];
        }
        const double xnorm = s.scale * sqrt(s.ssq);
        const Reflector f = larfg((double)rpart(alpha), ipart(alpha), xnorm);
        if (f.identity) {  // the same in every block: H = I
            if (b == 0 && threadIdx.x == 0) tau[i] = zero_of<T>();
            if (G > 1) grid_bar(cnt, (++round) * (unsigned)G);  // keeps the rounds' count
            continue;
        }
        const T scal = of_parts<T>(f.scal_r, f.scal_i);
        const T ctau = of_parts<T>(f.tau_r, -f.tau_i);  // conj(tau)
        // 2. the vector: own rows below the diagonal
        for (i64 r = max(r0, (i64)i + 1) + threadIdx.x; r < r1; r += blockDim.x) {
            T x = ci[r];
            if (f.up != 1.0) x = scl(x, (decltype(rpart(x)))f.up);
            ci[r] = mulc(x, scal);
        }
        __syncthreads();
        // 3. partial products v^H a_c over own rows (v_i = 1), a warp per column
        const i64 rs = max(r0, (i64)i);
        for (int c = i + 1 + warp; c < cols; c += nw) {
            const T* cc = P + c * pld;
            T acc = zero_of<T>();
            for (i64 r = rs + lane; r < r1; r += 32) {
                const T v = r == i ? real_of<T>(1.0) : ci[r];
                acc = cmad(acc, v, cc[r]);
            }
            acc = warp_sum(acc);
            if (lane == 0) s_dot[c] = acc;
        }
        __syncthreads();
        if (G > 1) {
            for (int c = i + 1 + threadIdx.x; c < cols; c += blockDim.x) dots[b * QR_NB + c] = s_dot[c];
            grid_bar(cnt, (++round) * (unsigned)G);
            // Four threads per column, each adding every fourth block's product (loads in
            // flight together), then a butterfly over the four: the same bits in every block.
            const int nc = cols - i - 1;
            for (int base = 0; base < 4 * nc; base += blockDim.x) {
                const int t = base + threadIdx.x, cc = t >> 2, p = t & 3;
                T acc = zero_of<T>();
                if (cc < nc) {
                    const T* col = dots + i + 1 + cc;
#pragma unroll 8
                    for (int g = p; g < G; g += 4) acc = addc(acc, __ldcg(col + g * QR_NB));
                }
                acc = addc(acc, shd(acc, 1));
                acc = addc(acc, shd(acc, 2));
                if (p == 0 && cc < nc) s_dot[i + 1 + cc] = acc;
            }
            __syncthreads();
        }
        // 4. a_c -= conj(tau) v (v^H a_c) on own rows
        for (int c = i + 1 + warp; c < cols; c += nw) {
            T* cc = P + c * pld;
            const T w = mulc(ctau, s_dot[c]);
            for (i64 r = rs + lane; r < r1; r += 32) {
                const T v = r == i ? real_of<T>(1.0) : ci[r];
                cc[r] = fms(cc[r], v, w);
            }
        }
        if (threadIdx.x == 0 && mine) {
            ci[i] = real_of<T>(f.beta);
            tau[i] = of_parts<T>(f.tau_r, f.tau_i);
        }
        __syncthreads();
    }
    if (SM) {
        for (int c = 0; c < cols; ++c)
            for (i64 r = r0 + threadIdx.x; r < r1; r += blockDim.x) A[r + c * ld] = P[r + c * pld];
    }
}

// geqrf of a whole matrix of at most 32 x 32 (the batched small case), one warp per matrix:
// lane c holds column c in registers. Per column the diagonal lane's vector is broadcast
// (a shuffle per row) and every later column forms its product and update itself, so a
// column costs no barrier and no reduction; the scalars are larfg's, as the panel's.
template <class T>
__device__ void qr_small(const Qrp& j) {
    pdl_enter();
    const int lane = threadIdx.x & 31;
    const i64 e = (i64)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (e >= j.ne) return;  // a whole warp
    T* A = (T*)j.a + e * j.es;
    T* tau = (T*)j.tau + e * j.tau_s;
    const int m = (int)j.rows, n = (int)j.cols, k = min(m, n);
    T a[32];
#pragma unroll
    for (int r = 0; r < 32; ++r) a[r] = (lane < n && r < m) ? A[r + lane * j.ld] : zero_of<T>();
#pragma unroll
    for (int i = 0; i < 32; ++i) {
        if (i >= k) break;
        // The column's norm below the diagonal (every lane its own; lane i's is used): a plain
        // sum of squares in double, the scaled one only where that could overflow or lose
        // small terms.
        Ssq s = {1.0, 0.0};
        double mx = 0.0;
#pragma unroll
        for (int r = i + 1; r < 32; ++r) {
            const double re = (double)rpart(a[r]), im = ipart(a[r]);
            s.ssq += re * re + im * im;
            mx = fmax(mx, fmax(fabs(re), fabs(im)));
        }
        if (mx > 0x1p490 || (mx < 0x1p-490 && mx > 0.0)) {
            const double inv = 1.0 / mx;
            s.scale = mx;
            s.ssq = 0.0;
#pragma unroll
            for (int r = i + 1; r < 32; ++r) {
                const double re = (double)rpart(a[r]) * inv, im = ipart(a[r]) * inv;
                s.ssq += re * re + im * im;
            }
        }
        const double scale = __shfl_sync(0xffffffffu, s.scale, i);
        const double ssq = __shfl_sync(0xffffffffu, s.ssq, i);
        const T alpha = shf(a[i], i);
        const Reflector f = larfg((double)rpart(alpha), ipart(alpha), scale * sqrt(ssq));
        if (f.identity) {
            if (lane == 0) tau[i] = zero_of<T>();
            continue;
        }
        if (lane == i) {
            const T scal = of_parts<T>(f.scal_r, f.scal_i);
#pragma unroll
            for (int r = i + 1; r < 32; ++r) {
                T x = a[r];
                if (f.up != 1.0) x = scl(x, (decltype(rpart(x)))f.up);
                a[r] = mulc(x, scal);
            }
        }
        // w = conj(tau) v^H a_c, then a_c -= v w, on the columns right of i.
        T w = a[i];
        const bool upd = lane > i && lane < n;
#pragma unroll
        for (int r = i + 1; r < 32; ++r) w = cmad(w, shf(a[r], i), a[r]);
        w = mulc(of_parts<T>(f.tau_r, -f.tau_i), w);
        if (upd) a[i] = fms(a[i], real_of<T>(1.0), w);
#pragma unroll
        for (int r = i + 1; r < 32; ++r) {
            const T v = shf(a[r], i);
            if (upd) a[r] = fms(a[r], v, w);
        }
        if (lane == i) a[i] = real_of<T>(f.beta);
        if (lane == 0) tau[i] = of_parts<T>(f.tau_r, f.tau_i);
    }
#pragma unroll
    for (int r = 0; r < 32; ++r)
        if (lane < n && r < m) A[r + lane * j.ld] = a[r];
}

// T (k x k, upper, zeros below; k <= 128) from G = V^H V and tau: T(i, i) = tau_i,
// T(0:i, i) = -tau_i T(0:i, 0:i) G(0:i, i). T is built in shared memory (row l by threads
// 4l .. 4l + 3);
// G's columns and tau come in groups of TF_GROUP, all of a group's loads in flight at once
// (one memory latency per group, not per column).
#define TF_GROUP 8
template <class T>
__device__ void qr_tfactor(const Qrp& j) {
    pdl_enter();
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const int k = (int)j.cols, kp = k + 1, row = threadIdx.x >> 2, part = threadIdx.x & 3;
    T* Ts = (T*)smem_raw;           // k x (k + 1), row-major: Ts[l * kp + p] = T(l, p)
    T* gblk = Ts + k * kp;          // TF_GROUP columns of G: gblk[c * k + p] = G(p, i0 + c)
    T* tblk = gblk + TF_GROUP * k;  // their tau
    const int e = blockIdx.x;
    if (e >= j.ne) return;
    const T* Gm = (const T*)j.b + e * j.b_es;
    T* Tm = (T*)j.t + e * j.t_es;
    const T* tau = (const T*)j.tau + e * j.tau_s;
    const i64 gl = j.b_ld, tl = j.t_ld;
    for (int i0 = 0; i0 < k; i0 += TF_GROUP) {
        const int nc = min(TF_GROUP, k - i0);
        for (int q = threadIdx.x; q < nc * k; q += blockDim.x) {
            const int p = q % k, c = q / k;
            gblk[q] = p < i0 + c ? Gm[p + (i0 + c) * gl] : zero_of<T>();
        }
        if (threadIdx.x < nc) tblk[threadIdx.x] = tau[i0 + threadIdx.x];
        __syncthreads();
        for (int c = 0; c < nc; ++c) {
            const int i = i0 + c;
            const T ti = tblk[c];
            const T* gcol = gblk + c * k;
            // Four threads per row, each every fourth term of the row's dot, then a butterfly.
            T acc = zero_of<T>();
            if (row < i)
                for (int p = row + part; p < i; p += 4) acc = addc(acc, mulc(Ts[row * kp + p], gcol[p]));
            acc = addc(acc, shd(acc, 1));
            acc = addc(acc, shd(acc, 2));
            if (part == 0 && row < i) Ts[row * kp + i] = mulc(scl(ti, (decltype(rpart(ti)))-1), acc);
            if (part == 0 && row == i) Ts[row * kp + i] = ti;
            __syncthreads();
        }
    }
    for (int q = threadIdx.x; q < k * k; q += blockDim.x) {
        const int r = q % k, c = q / k;
        Tm[r + c * tl] = r <= c ? Ts[r * kp + c] : zero_of<T>();
    }
}

// orgqr's block: out = [I; 0] - V X on a tile of 64 rows; V unit lower (its upper part not read).
template <class T>
__device__ void qr_org(const Qrp& j) {
    pdl_enter();
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* Vt = (T*)smem_raw;                 // 64 x 65
    T* Xs = Vt + 64 * 65;                 // 64 x 65
    const int e = blockIdx.y;
    if (e >= j.ne) return;
    T* A = (T*)j.a + e * j.es;
    const T* X = (const T*)j.b + e * j.b_es;
    const int cols = (int)j.cols;
    const i64 rows = j.rows, ld = j.ld, r0 = (i64)blockIdx.x * 64;
    for (int q = threadIdx.x; q < 64 * cols; q += blockDim.x) {
        const int r = q % 64, l = q / 64;
        const i64 gr = r0 + r;
        T v = zero_of<T>();
        if (gr < rows) v = gr > l ? A[gr + l * ld] : gr == l ? real_of<T>(1.0) : zero_of<T>();
        Vt[r * 65 + l] = v;
        Xs[r * 65 + l] = r < cols ? X[r + l * j.b_ld] : zero_of<T>();  // Xs[l'][c] at l' = r, c = l
    }
    __syncthreads();
    const int tr = threadIdx.x % 64, cg = threadIdx.x / 64;  // 4 groups of 16 columns
    const i64 gr = r0 + tr;
    T acc[16];
#pragma unroll
    for (int q = 0; q < 16; ++q) acc[q] = zero_of<T>();
    for (int l = 0; l < cols; ++l) {
        const T v = Vt[tr * 65 + l];
#pragma unroll
        for (int q = 0; q < 16; ++q) acc[q] = addc(acc[q], mulc(v, Xs[l * 65 + cg * 16 + q]));
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
    __shared__ int first;
    const i64 e = blockIdx.x;
    if (e >= j.ne) return;
    const T* A = (const T*)j.a + e * j.es;
    const int k = (int)j.cols;
    if (threadIdx.x == 0) first = k;
    __syncthreads();
    for (int i = threadIdx.x; i < k; i += blockDim.x)
        if (is_zero(A[i + i * j.ld])) atomicMin(&first, i);
    __syncthreads();
    if (threadIdx.x == 0) ((int*)j.b)[e * j.b_es] = first < k ? first + 1 : 0;
}

#ifdef GPUBLAS_FAMILY_QR
#define QR_KERNELS(TAG, T) \
    extern "C" __global__ void __launch_bounds__(256) qr_panel_##TAG(Qrp j) { qr_panel<T, false>(j); } \
    extern "C" __global__ void __launch_bounds__(256) qr_panelsm_##TAG(Qrp j) { qr_panel<T, true>(j); } \
    extern "C" __global__ void __launch_bounds__(128) qr_small_##TAG(Qrp j) { qr_small<T>(j); } \
    extern "C" __global__ void __launch_bounds__(512) qr_tfactor_##TAG(Qrp j) { qr_tfactor<T>(j); } \
    extern "C" __global__ void __launch_bounds__(256) qr_org_##TAG(Qrp j) { qr_org<T>(j); } \
    extern "C" __global__ void __launch_bounds__(256) qr_identity_##TAG(Qrp j) { qr_identity<T>(j); } \
    extern "C" __global__ void __launch_bounds__(256) qr_diaginfo_##TAG(Qrp j) { qr_diaginfo<T>(j); }
QR_KERNELS(s, float)
QR_KERNELS(d, double)
QR_KERNELS(c, float2)
QR_KERNELS(z, double2)
#endif
