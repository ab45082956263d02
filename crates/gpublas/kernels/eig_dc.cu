// The eigensolvers' divide and conquer (GPUBLAS_FAMILY_EIG_DC): the eigenvalues and vectors
// of the real symmetric tridiagonal of the two-stage syevd, float (s) and double (d).
// src/eig/dc.rs says the algorithm and runs it on the host step for step:
//   eig_dc_init:     one block: the tridiagonal scaled by its largest magnitude, torn every
//                    `leaf` rows (p.half), the non-finite flag.
//   eig_dc_leaves:   a warp per leaf: implicit QL, every lane running the scalar recurrence on
//                    its own copy (the same bits) and rotating its own row of the vectors.
//   eig_dc_prep:     a block per merge: z, the merged order, the deflation scan (one thread).
//   eig_dc_secular:  a warp per root: bisection over the bits of the offset from the nearer
//                    pole, the sums split over the lanes (every lane the same sum).
//   eig_dc_weights:  a thread per root: Gu-Eisenstat's z.
//   eig_dc_vectors:  a block per output column: the column of U at its eigenvalue's rank, the
//                    rotations applied, the merged eigenvalue to d.
//   eig_dc_finish:   W unscaled, info, NaN for a non-finite input, the complex widening.

#define DC_LEAF 32      // LEAF in src/eig/dc.rs
#define DC_THREADS 128  // DC_THREADS in src/eig/family.rs

struct Dcp {
    u64 d, e, w;   // the tridiagonal (n, n - 1 reals), the call's eigenvalues
    u64 amax;      // eig_amax's double bits (the syevd scaling)
    u64 info;      // one i32
    u64 scratch;   // dc::scratch_bytes
    u64 z, u;      // Z and U (reals), compact (dc.rs): U's blocks leading dimension ldu
    u64 zc;        // the complex eigenvector matrix to widen into (0: none), ldc
    u64 u2;        // the top merge's U rows from `half` on (0: none), ldu2
    i64 n, ldz, ldu, ldu2, ldc;
    i64 half;      // the level's child size (init and leaves: the leaf size)
};

template <class R> struct DcT;
template <> struct DcT<float> {
    typedef unsigned int B;
    static __device__ __forceinline__ float eps() { return 0x1p-24f; }
    static __device__ __forceinline__ B bits(float x) { return __float_as_uint(x); }
    static __device__ __forceinline__ float from(B b) { return __uint_as_float(b); }
    static __device__ __forceinline__ float nan() { return __int_as_float(0x7fc00000); }
    static __device__ __forceinline__ double lo() { return 0x1p-40; }
    static __device__ __forceinline__ double hi() { return 0x1p40; }
    static __device__ __forceinline__ double sigma(double amax) {
        const int k = ((__float_as_int((float)amax) >> 23) & 0xff) - 127;
        return ldexp(1.0, -max(-126, min(127, k)));
    }
};
template <> struct DcT<double> {
    typedef unsigned long long B;
    static __device__ __forceinline__ double eps() { return 0x1p-53; }
    static __device__ __forceinline__ B bits(double x) { return (B)__double_as_longlong(x); }
    static __device__ __forceinline__ double from(B b) { return __longlong_as_double((long long)b); }
    static __device__ __forceinline__ double nan() { return __longlong_as_double(0x7ff8000000000000ll); }
    static __device__ __forceinline__ double lo() { return 0x1p-400; }
    static __device__ __forceinline__ double hi() { return 0x1p400; }
    static __device__ __forceinline__ double sigma(double amax) {
        const int k = (int)((__double_as_longlong(amax) >> 52) & 0x7ff) - 1023;
        return ldexp(1.0, -max(-1022, min(1023, k)));
    }
};

// The scratch (mirrors dc::scratch_bytes): DC_REALS arrays of n reals and the scale, then
// DC_INTS arrays of n ints and two flags (non-finite input, a leaf not converged). Per merge
// the arrays are used from the merge's first row s on; KCNT, NROT and RHO at s itself.
enum { R_DL, R_WZ, R_DEFV, R_TAU, R_VAL, R_ZT, R_DT, R_RC, R_RS, R_RHO, DC_REALS };
enum { I_COL, I_ORIG, I_RA, I_RB, I_PERM, I_KCNT, I_NROT, I_DCOL, DC_INTS };
template <class R> struct DcS {
    R* r;
    int* i;
    i64 n;
    __device__ __forceinline__ DcS(const Dcp& p) : n(p.n) {
        r = (R*)p.scratch;
        i = (int*)(p.scratch + (((u64)(DC_REALS * n + 1) * sizeof(R) + 7) / 8) * 8);
    }
    __device__ __forceinline__ R* ra(int k) const { return r + k * n; }
    __device__ __forceinline__ int* ia(int k) const { return i + k * n; }
    __device__ __forceinline__ R& tnorm() const { return r[DC_REALS * n]; }
    __device__ __forceinline__ int* flags() const { return i + DC_INTS * n; }
};

template <class V> __device__ __forceinline__ V dc_wsum(V v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
// Block sum, the same value in every thread (blockDim.x a multiple of 32, at most 1024).
template <class V> __device__ V dc_bsum(V v) {
    __shared__ V part[32];
    v = dc_wsum(v);
    __syncthreads();
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
    __syncthreads();
    V t = 0;
    for (int q = 0; q < (int)(blockDim.x >> 5); ++q) t += part[q];
    return t;
}
template <class R> __device__ R dc_bmax(R v) {
    __shared__ R part[32];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
    __syncthreads();
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
    __syncthreads();
    R t = 0;
    for (int q = 0; q < (int)(blockDim.x >> 5); ++q) t = fmax(t, part[q]);
    return t;
}

template <class R>
__device__ void dc_init(const Dcp& p) {
    pdl_enter();
    const DcS<R> S(p);
    const i64 n = p.n;
    R* d = (R*)p.d;
    R* e = (R*)p.e;
    R m = 0;
    int bad = 0;
    for (i64 x = threadIdx.x; x < 2 * n - 1; x += blockDim.x) {
        const R v = x < n ? d[x] : e[x - n];
        bad |= !isfinite(v);
        m = fmax(m, fabs(v));
    }
    m = dc_bmax(m);
    bad = dc_bsum(bad);
    if (!(m > 0) || bad) m = 1;
    for (i64 x = threadIdx.x; x < 2 * n - 1; x += blockDim.x) {
        if (x < n) d[x] = d[x] / m;
        else e[x - n] = e[x - n] / m;
    }
    __syncthreads();
    const i64 lf = p.half;
    for (i64 t = lf - 1 + (i64)threadIdx.x * lf; t + 1 < n; t += (i64)blockDim.x * lf) {
        const R a = fabs(e[t]);
        d[t] = d[t] - a;
        d[t + 1] = d[t + 1] - a;
    }
    if (threadIdx.x == 0) {
        S.tnorm() = m;
        S.flags()[0] = bad != 0;
        S.flags()[1] = 0;
    }
}

template <class R>
__device__ void dc_leaves(const Dcp& p) {
    pdl_enter();
    const DcS<R> S(p);
    const i64 n = p.n, lf = p.half, s = (i64)blockIdx.x * lf;
    if (s >= n) return;
    const int len = (int)min(lf, n - s), r = threadIdx.x;
    R* d = (R*)p.d + s;
    const R* e = (const R*)p.e + s;
    const R eps = DcT<R>::eps();
    R dl[DC_LEAF], el[DC_LEAF], zr[DC_LEAF];
    for (int i = 0; i < DC_LEAF; ++i) {
        dl[i] = i < len ? d[i] : (R)0;
        el[i] = i + 1 < len ? e[i] : (R)0;
        zr[i] = i == r ? (R)1 : (R)0;
    }
    bool ok = true;
    for (int l = 0; l < len; ++l) {
        int iter = 0;
        for (;;) {
            int m = l;
            while (m + 1 < len) {
                const R dd = fabs(dl[m]) + fabs(dl[m + 1]);
                if (fabs(el[m]) <= eps * dd) break;
                ++m;
            }
            if (m == l) break;
            if (iter == 30) {
                ok = false;
                break;
            }
            ++iter;
            R g = (dl[l + 1] - dl[l]) / ((R)2 * el[l]);
            R rr = hypot(g, (R)1);
            g = dl[m] - dl[l] + el[l] / (g + copysign(rr, g));
            R sn = 1, c = 1, pp = 0;
            bool under = false;
            for (int i = m - 1; i >= l; --i) {
                const R f = sn * el[i], b = c * el[i];
                rr = hypot(f, g);
                el[i + 1] = rr;
                if (rr == 0) {
                    dl[i + 1] -= pp;
                    el[m] = 0;
                    under = true;
                    break;
                }
                sn = f / rr;
                c = g / rr;
                g = dl[i + 1] - pp;
                rr = (dl[i] - g) * sn + (R)2 * c * b;
                pp = sn * rr;
                dl[i + 1] = g + pp;
                g = c * rr - b;
                const R fz = zr[i + 1];
                zr[i + 1] = sn * zr[i] + c * fz;
                zr[i] = c * zr[i] - sn * fz;
            }
            if (under) continue;
            dl[l] -= pp;
            el[l] = g;
            el[m] = 0;
        }
    }
    // Ascending, ties in index order; lane r writes row r of the block (compact: at s lf,
    // leading dimension lf).
    R* Z = (R*)p.z + s * lf;
    for (int j = 0; j < len; ++j) {
        int rk = 0;
        for (int i = 0; i < len; ++i)
            rk += (dl[i] < dl[j]) || (dl[i] == dl[j] && i < j) || (dl[j] != dl[j] && i < j);
        if (r < len) Z[r + rk * lf] = zr[j];
        if (r == 0) d[rk] = dl[j];
    }
    if (!ok && r == 0) S.flags()[1] = 1;
}

// The merge at block x's first row s (children of p.half), or nothing: no partner, or a
// non-finite input (finish writes NaN).
__device__ __forceinline__ bool dc_merge_of(i64 g, const Dcp& p, const int* flags, i64& s, i64& len) {
    const i64 L = p.half;
    s = g / (2 * L) * (2 * L);
    len = min(2 * L, p.n - s);
    return g < p.n && p.n - s > L && !flags[0];
}

template <class R>
__device__ void dc_prep(const Dcp& p) {
    pdl_enter();
    const DcS<R> S(p);
    i64 s, len;
    if (!dc_merge_of((i64)blockIdx.x * 2 * p.half, p, S.flags(), s, len)) return;
    const i64 n1 = p.half, m = s + n1 - 1;
    const R* d = (const R*)p.d;
    // (the children compact: Q1 at s L, Q2 at (s + L) L, leading dimension L)
    const R* q1 = (const R*)p.z + s * n1;
    const R* q2 = (const R*)p.z + (s + n1) * n1;
    const R rr = ((const R*)p.e)[m];
    const bool neg = rr < 0;
    const R half = (R)1 / sqrt((R)2);
    R* ZT = S.ra(R_ZT) + s;
    R* DT = S.ra(R_DT) + s;
    int* PERM = S.ia(I_PERM) + s;
    R dmax = 0, zmax = 0;
    for (i64 t = threadIdx.x; t < len; t += blockDim.x) {
        R z = t < n1 ? q1[(n1 - 1) + t * n1] : q2[(t - n1) * n1];
        if (t >= n1 && neg) z = -z;
        z = z * half;
        const R dt = d[s + t];
        ZT[t] = z;
        DT[t] = dt;
        dmax = fmax(dmax, fabs(dt));
        zmax = fmax(zmax, fabs(z));
        // The merged order: a top value before the bottom values not below it.
        i64 lo = 0, hi = t < n1 ? len - n1 : n1;
        const R* other = t < n1 ? d + s + n1 : d + s;
        while (lo < hi) {
            const i64 mid = (lo + hi) / 2;
            const bool before = t < n1 ? other[mid] < dt : other[mid] <= dt;
            if (before) lo = mid + 1;
            else hi = mid;
        }
        PERM[(t < n1 ? t : t - n1) + lo] = (int)t;
    }
    dmax = dc_bmax(dmax);
    zmax = dc_bmax(zmax);
    if (threadIdx.x != 0) return;
    const R tol = (R)8 * DcT<R>::eps() * fmax(dmax, zmax);
    const R rho = (R)2 * fabs(rr);
    R* DLa = S.ra(R_DL) + s;
    R* W = S.ra(R_WZ) + s;
    R* DV = S.ra(R_DEFV) + s;
    R* C = S.ra(R_RC) + s;
    R* SN = S.ra(R_RS) + s;
    int* CO = S.ia(I_COL) + s;
    int* A = S.ia(I_RA) + s;
    int* B = S.ia(I_RB) + s;
    int* DC = S.ia(I_DCOL) + s;
    int k = 0, nd = 0, nr = 0, pj = -1;
    for (i64 q = 0; q < len; ++q) {
        const int j = min(max(PERM[q], 0), (int)len - 1);
        const R zj = ZT[j];
        if (rho * fabs(zj) <= tol) {
            DV[nd] = DT[j];
            DC[nd] = j;
            ++nd;
            continue;
        }
        if (pj < 0) {
            pj = j;
            continue;
        }
        const R s0 = ZT[pj], tau = hypot(zj, s0), t = DT[j] - DT[pj];
        const R c = zj / tau, sn = -s0 / tau;
        if (fabs(t * c * sn) <= tol) {
            ZT[j] = tau;
            ZT[pj] = 0;
            A[nr] = pj;
            B[nr] = j;
            C[nr] = c;
            SN[nr] = sn;
            ++nr;
            const R tp = DT[pj] * c * c + DT[j] * sn * sn;
            DT[j] = DT[pj] * sn * sn + DT[j] * c * c;
            DV[nd] = tp;
            DC[nd] = pj;
            ++nd;
        } else {
            DLa[k] = DT[pj];
            W[k] = ZT[pj];
            CO[k] = pj;
            ++k;
        }
        pj = j;
    }
    if (pj >= 0) {
        DLa[k] = DT[pj];
        W[k] = ZT[pj];
        CO[k] = pj;
        ++k;
    }
    S.ia(I_KCNT)[s] = k;
    S.ia(I_NROT)[s] = nr;
    S.ra(R_RHO)[s] = rho;
}

template <class R>
__device__ void dc_secular(const Dcp& p) {
    typedef typename DcT<R>::B B;
    pdl_enter();
    const DcS<R> S(p);
    const i64 g = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    i64 s, len;
    if (!dc_merge_of(g, p, S.flags(), s, len)) return;
    const int j = (int)(g - s), k = S.ia(I_KCNT)[s];
    if (j >= k) {
        if (lane == 0) S.ra(R_VAL)[g] = S.ra(R_DEFV)[s + j - k];
        return;
    }
    const R* dl = S.ra(R_DL) + s;
    const R* w = S.ra(R_WZ) + s;
    const R rho = S.ra(R_RHO)[s];
    // 1 + rho sum w_i^2 / ((dl_i - dl_o) - tau), the same in every lane
    auto f = [&](int o, R tau) {
        R acc = 0;
        for (int i = lane; i < k; i += 32) acc += w[i] * w[i] / ((dl[i] - dl[o]) - tau);
        return (R)1 + rho * dc_wsum(acc);
    };
    int o;
    R sgn, tmax;
    if (j + 1 < k) {
        const R mid = (dl[j + 1] - dl[j]) / (R)2;
        if (f(j, mid) >= 0) {
            o = j;
            sgn = 1;
            tmax = mid;
        } else {
            o = j + 1;
            sgn = -1;
            tmax = dl[j + 1] - dl[j] - mid;
        }
    } else {
        R acc = 0;
        for (int i = lane; i < k; i += 32) acc += w[i] * w[i];
        o = j;
        sgn = 1;
        tmax = rho * dc_wsum(acc) * ((R)1 + (R)4 * DcT<R>::eps());
    }
    // g(t) = sgn f(dl[o] + sgn t): below zero at the pole side, not below at tmax.
    B lo = 0, hi = DcT<R>::bits(tmax);
    while (hi > lo + 1) {
        const B mid = lo + (hi - lo) / 2;
        const R t = DcT<R>::from(mid);
        if (sgn * f(o, sgn * t) < 0) lo = mid;
        else hi = mid;
    }
    const R tau = sgn * DcT<R>::from(hi);
    if (lane == 0) {
        S.ia(I_ORIG)[g] = o;
        S.ra(R_TAU)[g] = tau;
        S.ra(R_VAL)[g] = dl[o] + tau;
    }
}

template <class R>
__device__ void dc_weights(const Dcp& p) {
    pdl_enter();
    const DcS<R> S(p);
    const i64 g = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    i64 s, len;
    if (!dc_merge_of(g, p, S.flags(), s, len)) return;
    const int j = (int)(g - s), k = S.ia(I_KCNT)[s];
    if (j >= k) return;
    const R* dl = S.ra(R_DL) + s;
    const R* tau = S.ra(R_TAU) + s;
    const int* orig = S.ia(I_ORIG) + s;
    R* w = S.ra(R_WZ) + s;
    const R dj = dl[j];
    R pr = (dl[orig[j]] - dj) + tau[j];
    for (int q = 0; q < k; ++q)
        if (q != j) pr = pr * (((dl[orig[q]] - dj) + tau[q]) / (dl[q] - dj));
    w[j] = copysign(sqrt(fabs(pr) / S.ra(R_RHO)[s]), w[j]);
}

template <class R>
__device__ void dc_vectors(const Dcp& p) {
    pdl_enter();
    const DcS<R> S(p);
    const i64 g = blockIdx.x;
    i64 s, len;
    if (!dc_merge_of(g, p, S.flags(), s, len)) return;
    const int t = (int)(g - s), k = S.ia(I_KCNT)[s], nr = S.ia(I_NROT)[s];
    const R* val = S.ra(R_VAL) + s;
    const R vt = val[t];
    int cnt = 0;
    for (int i = threadIdx.x; i < len; i += blockDim.x)
        cnt += (val[i] < vt) || (val[i] == vt && i < t) || (vt != vt && i < t);
    const int rank = dc_bsum(cnt);
    // Row r of the column: in U below `split`, else in the second part (the top merge's).
    R* U1 = (R*)p.u + (s + rank) * p.ldu;
    const int split = p.u2 ? (int)p.half : (int)len;
    R* U2 = p.u2 ? (R*)p.u2 + rank * p.ldu2 - split : U1;
#define UROW(r) (*((r) < split ? U1 + (r) : U2 + (r)))
    for (int i = threadIdx.x; i < len; i += blockDim.x) UROW(i) = 0;
    __syncthreads();
    const R* dl = S.ra(R_DL) + s;
    const R* w = S.ra(R_WZ) + s;
    const int* col = S.ia(I_COL) + s;
    if (t < k) {
        const int o = S.ia(I_ORIG)[s + t];
        const R tau = S.ra(R_TAU)[s + t], dlo = dl[o];
        R acc = 0;
        for (int i = threadIdx.x; i < k; i += blockDim.x) {
            const R x = w[i] / ((dl[i] - dlo) - tau);
            acc += x * x;
        }
        const R nrm = sqrt(dc_bsum(acc));
        for (int i = threadIdx.x; i < k; i += blockDim.x) UROW(col[i]) = w[i] / ((dl[i] - dlo) - tau) / nrm;
    } else if (threadIdx.x == 0) {
        UROW(S.ia(I_DCOL)[s + t - k]) = 1;
    }
    __syncthreads();
    if (threadIdx.x != 0) return;
    const int* A = S.ia(I_RA) + s;
    const int* B = S.ia(I_RB) + s;
    const R* C = S.ra(R_RC) + s;
    const R* SN = S.ra(R_RS) + s;
    for (int q = nr - 1; q >= 0; --q) {
        const R xa = UROW(A[q]), xb = UROW(B[q]);
        UROW(A[q]) = C[q] * xa - SN[q] * xb;
        UROW(B[q]) = SN[q] * xa + C[q] * xb;
    }
#undef UROW
    ((R*)p.d)[s + rank] = vt;
}

template <class R>
__device__ void dc_finish(const Dcp& p) {
    pdl_enter();
    const DcS<R> S(p);
    const i64 n = p.n;
    const bool bad = S.flags()[0] != 0;
    double sigma = 1;
    if (p.amax) {
        const double amax = __longlong_as_double((long long)*(const unsigned long long*)p.amax);
        if (amax > 0 && isfinite(amax) && (amax < DcT<R>::lo() || amax > DcT<R>::hi()))
            sigma = DcT<R>::sigma(amax);
    }
    const R f = (R)((double)S.tnorm() / sigma);
    const i64 x0 = (i64)blockIdx.x * blockDim.x + threadIdx.x, step = (i64)gridDim.x * blockDim.x;
    const R* d = (const R*)p.d;
    R* w = (R*)p.w;
    for (i64 x = x0; x < n; x += step) w[x] = bad ? DcT<R>::nan() : d[x] * f;
    if (x0 == 0 && p.info) *(int*)p.info = bad ? (int)(n + 1) : S.flags()[1];
    if (!bad && !p.zc) return;
    R* Z = (R*)p.z;
    R* zc = (R*)p.zc;
    for (i64 x = x0; x < n * n; x += step) {
        const i64 i = x % n, j = x / n;
        R v = Z[i + j * p.ldz];
        if (bad) {
            v = DcT<R>::nan();
            Z[i + j * p.ldz] = v;
        }
        if (zc) {
            zc[2 * (i + j * p.ldc)] = v;
            zc[2 * (i + j * p.ldc) + 1] = 0;
        }
    }
}

#ifdef GPUBLAS_FAMILY_EIG_DC
#define EIG_DC_KERNELS(TAG, R)                                                                     \
    extern "C" __global__ void __launch_bounds__(1024) eig_dc_init_##TAG(Dcp p) { dc_init<R>(p); } \
    extern "C" __global__ void __launch_bounds__(32) eig_dc_leaves_##TAG(Dcp p) { dc_leaves<R>(p); } \
    extern "C" __global__ void __launch_bounds__(DC_THREADS) eig_dc_prep_##TAG(Dcp p) { dc_prep<R>(p); } \
    extern "C" __global__ void __launch_bounds__(DC_THREADS) eig_dc_secular_##TAG(Dcp p) {         \
        dc_secular<R>(p);                                                                          \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(DC_THREADS) eig_dc_weights_##TAG(Dcp p) {         \
        dc_weights<R>(p);                                                                          \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(DC_THREADS) eig_dc_vectors_##TAG(Dcp p) {         \
        dc_vectors<R>(p);                                                                          \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(256) eig_dc_finish_##TAG(Dcp p) { dc_finish<R>(p); }
EIG_DC_KERNELS(s, float)
EIG_DC_KERNELS(d, double)
#endif
