// Applying stage 2's reflectors (GPUBLAS_FAMILY_EIG_Q2): Z <- Q2 Z of the two-stage syevd in
// one launch, for float (s), double (d), float2 (c) and double2 (z), bands KD of 16 and 32.
// src/eig/q2.rs says the order and runs it on the host reflector by reflector.
//
// The reflectors (eig_sb2st's layout, eig.cu): H(s, t) = I - tau v v^H of sweep s, task t, on
// rows s + 1 + t KD .. (len = min(KD, n - that) of them), stored in column n - 1 - s of A's
// strict upper triangle from row t KD: tau, then v[1 .. len) (v[0] = 1). Group g: sweeps
// g KD .. g KD + KD - 1; diamond (g, t): task t of those, rows S = g KD + 1 + t KD .. S + 2 KD
// - 2. Q2 Z applies the groups descending, a group's diamonds t ascending, a diamond's sweeps
// descending (reflector c = KD - 1 .. 0 on window rows c .. c + KD - 1).
//
// A block per slab of Z's columns: a lane per column (real types: 32 columns), or a lane pair
// per column (complex: lanes j and j + 16 hold column j's real and imaginary parts; 16
// columns). Its Q2_WARPS warps take as many consecutive groups at once (a round, the highest
// first): at step tau warp k applies diamond t = tau - k of its group, its window (rows S ..
// S + 2 KD) in registers (complex f64 at KD 32: three quarters of it, `Q2Split`). Warp k's
// window at a step starts 2 KD below warp k - 1's, so the
// step's diamonds share no row, and warp k's diamond t comes a step after warp k - 1's, the
// last one whose rows it meets. After a diamond the window's top half is final for the group
// and goes to warp k + 1 through shared memory (its window's bottom half a step later; the
// pair waits on each other by named barriers, no block barrier a step); the bottom half moves
// up. Warp 0 reads its bottom halves from Z (staged a step ahead), the last
// warp writes its top halves to Z, and each warp reads its first top half from Z (rows no
// higher group of the round touches). The reflectors are staged a step ahead too (cp.async).
// Each round reads and writes Z's rows below its groups once: n^2 / (KD Q2_WARPS) elements per
// column in all, where applying the diamonds one by one over Z would move n^2 / KD.

#define Q2_THREADS(T) (32 * Q2_WARPS(T))
// Warps (groups in flight) per block: shared memory holds two diamonds and a half window per
// warp, and for `Q2Split` two parked quarter windows per lane (src/eig/q2.rs, `smem_bytes`,
// mirrors this and the layout below).
#define Q2_WARPS(T) (sizeof(T) == 16 ? 4 : 8)

struct Q2p {
    u64 a;    // the matrix whose strict upper triangle holds the reflectors
    i64 lda;
    u64 z;    // Z, n x m
    i64 ldz;
    i64 n, m;
};

template <class T> struct Q2Real;
template <> struct Q2Real<float> { typedef float R; enum { C = 1 }; };
template <> struct Q2Real<double> { typedef double R; enum { C = 1 }; };
template <> struct Q2Real<float2> { typedef float R; enum { C = 2 }; };
template <> struct Q2Real<double2> { typedef double R; enum { C = 2 }; };

// One element of sizeof(T) bytes from global to shared memory, asynchronously from sm_80 (a
// zero stored instead when !read; `s` stays a valid address either way).
template <class T> __device__ __forceinline__ void q2_cp(T* d, const T* s, bool read) {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"((unsigned)__cvta_generic_to_shared(d)),
                 "l"(s), "n"((int)sizeof(T)), "r"(read ? (int)sizeof(T) : 0)
                 : "memory");
#else
    if (read) *d = *s;
    else *d = T{};
#endif
}
__device__ __forceinline__ void q2_commit() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void q2_wait() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif
}

// Hand-offs between neighbouring warps on named barriers (0 is __syncthreads'): warp k
// arrives on FULL(k) when its top half is in `hand`, warp k + 1 on EMPTY(k) when it has read
// it; 2 (Q2_WARPS - 1) <= 14 of the 16 barriers.
#define Q2_FULL(k) (1 + 2 * (k))
#define Q2_EMPTY(k) (2 + 2 * (k))
__device__ __forceinline__ void q2_bar_sync(int id) {
    asm volatile("bar.sync %0, 64;\n" ::"r"(id) : "memory");
}
__device__ __forceinline__ void q2_bar_arrive(int id) {
    asm volatile("bar.arrive %0, 64;\n" ::"r"(id) : "memory");
}

// A shared-memory element read where it stands in the code (not hoisted by the compiler,
// which would hold a complex diamond's reflector in registers the window needs).
__device__ __forceinline__ float2 q2_lds(const float2* p) {
    float2 v;
    asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "r"((unsigned)__cvta_generic_to_shared(p)) : "memory");
    return v;
}
__device__ __forceinline__ double2 q2_lds(const double2* p) {
    double2 v;
    asm volatile("ld.shared.v2.f64 {%0, %1}, [%2];" : "=d"(v.x), "=d"(v.y) : "r"((unsigned)__cvta_generic_to_shared(p)) : "memory");
    return v;
}

// Tasks of sweep s: ceil((n - 1 - s) / KD).
template <int KD> __device__ __forceinline__ int q2_tasks(int n, int s) {
    return n - 1 - s <= 0 ? 0 : (n - 1 - s + KD - 1) / KD;
}

// Diamond (g, t)'s reflectors to `vs` (KD x KD, reflector c at c KD: tau, v[1..), zeros past
// its length; a reflector past the matrix's end is all zeros), by the warp's lanes: element i
// of reflector c exists when i + c < n - S (S its first row), reflector c in column
// n - 1 - g KD - c.
template <class T, int KD>
__device__ __forceinline__ void q2_stage(const Q2p& p, T* vs, int g, int t, int lane) {
    constexpr int CS = 32 / KD;  // reflectors a pass
    const T* A = (const T*)p.a;
    const int rem = (int)p.n - (g * KD + 1 + t * KD);
    const int i = lane % KD;
    int c = lane / KD;
    const T* src = A + (p.n - 1 - g * KD - c) * p.lda + t * KD + i;
#pragma unroll 4
    for (; c < KD; c += CS, src -= CS * p.lda) {
        const bool read = i + c < rem;
        q2_cp(vs + c * KD + i, read ? src : A, read);
    }
}

// Rows r0 .. r0 + KD of the slab's CPW columns from Z to the tile `tl` (row r of column j at
// r LDR + j LDC), zeros past Z's rows and columns.
template <class T, int KD, int CPW, int LDR, int LDC>
__device__ __forceinline__ void q2_stage_rows(const Q2p& p, T* tl, int r0, int col0, int lane) {
    constexpr int CS = 32 / KD;
    const T* Z = (const T*)p.z;
    const int r = lane % KD;
    int j = lane / KD;
    const bool row_in = r0 + r < p.n;
    const T* src = Z + r0 + r + (col0 + j) * p.ldz;
#pragma unroll 4
    for (; j < CPW; j += CS, src += CS * p.ldz) {
        const bool read = row_in && col0 + j < p.m;
        q2_cp(tl + r * LDR + j * LDC, read ? src : Z, read);
    }
}

// Reflectors c = HI - 1 .. LO of the diamond whose reflectors are in `vs` applied to the
// window (W rows, its row 0 the diamond's row OFF): reflector c on the diamond's rows c ..
// c + KD - 1, z -= tau v (v^H z) in each column.
template <class T, int KD, int LO, int HI, int OFF, int W>
__device__ __forceinline__ void q2_reflectors(typename Q2Real<T>::R (&win)[W], const T* vs, int part) {
    typedef typename Q2Real<T>::R R;
    const R im = (R)part;
    static_assert(OFF <= LO && HI - 1 + KD - 1 - OFF < W, "the reflectors' rows lie in the window");
#pragma unroll
    for (int c = HI - 1; c >= LO; --c) {
        const T* v = vs + c * KD;
        R* z = win + (c - OFF);  // the reflector's rows
        if constexpr (Q2Real<T>::C == 1) {
            const R tau = v[0];
            R vr[KD];
            R d[4] = {z[0], 0, 0, 0};
#pragma unroll
            for (int i = 1; i < KD; ++i) {
                vr[i] = v[i];
                d[i % 4] = fma(vr[i], z[i], d[i % 4]);
            }
            const R w = tau * ((d[0] + d[1]) + (d[2] + d[3]));
            z[0] -= w;
#pragma unroll
            for (int i = 1; i < KD; ++i) z[i] = fma(-vr[i], w, z[i]);
        } else {
            // Lane part 0 holds Re z, part 1 Im z; each sums Re v x and Im v x over its part x,
            // the pair exchanges them: v^H z = (P1 + Q2) + i (Q1 - P2) with (P1, P2) part 0's
            // sums and (Q1, Q2) part 1's.
            const T tau = v[0];
            // (one sum each: split sums make the compiler spill)
            R s1 = z[0], s2 = 0;
#pragma unroll
            for (int i = 1; i < KD; ++i) {
                const T vi = q2_lds(v + i);
                s1 = fma(vi.x, z[i], s1);
                s2 = fma(vi.y, z[i], s2);
            }
            // (the parts chosen by products with im = part and re = 1 - part, not selects: the
            // compiler would duplicate the whole loop for each part)
            const R re = (R)1 - im;
            const R xre = fma(re, s1, im * s2), xim = fma(im, s1, -re * s2);
            const R dre = xre + __shfl_xor_sync(0xffffffffu, xre, 16);
            const R dim = xim + __shfl_xor_sync(0xffffffffu, xim, 16);
            const R wre = tau.x * dre - tau.y * dim, wim = tau.x * dim + tau.y * dre;
            // Re z -= Re v wre - Im v wim; Im z -= Re v wim + Im v wre
            const R c1 = fma(im, wim, re * wre), c2 = fma(im, wre, -re * wim);
            z[0] -= c1;
#pragma unroll
            for (int i = 1; i < KD; ++i) {
                const T vi = q2_lds(v + i);
                z[i] = fma(-vi.x, c1, fma(-vi.y, c2, z[i]));
            }
        }
    }
}

// Whether a lane holds its window in three quarters of the diamond's rows (complex f64 with KD
// = 32, whose full window of 2 KD rows leaves too few registers): the diamond's reflectors in
// two halves, the first (c >= KD / 2) on rows KD / 2 .. 2 KD, the second on rows 0 .. 3 KD / 2;
// between them the bottom quarter leaves for the lane's own slot in shared memory (it is the
// next diamond's second quarter) and the top quarter comes back from the other slot (it was
// the last diamond's third quarter).
template <class T, int KD> struct Q2Split {
    enum { ON = sizeof(T) == 16 && KD == 32, Q = KD / 2, W = ON ? 3 * KD / 2 : 2 * KD };
};

template <class T, int KD>
__device__ void eig_q2(const Q2p& p) {
    typedef typename Q2Real<T>::R R;
    constexpr int C = Q2Real<T>::C, CPW = 32 / C, P = Q2_WARPS(T), TILE = CPW * (KD + 1);
    pdl_enter();
    extern __shared__ __align__(16) unsigned char q2_smem[];
    T* vbuf = (T*)q2_smem;                 // [P][2][KD * KD]: each warp's diamond, two steps
    T* hand = vbuf + P * 2 * KD * KD;      // [P][TILE]: each warp's released top half
    T* hin = hand + P * TILE;              // [2][TILE]: warp 0's next bottom half
    typedef Q2Split<T, KD> Split;
    constexpr int Q = Split::Q;
    // Split::ON: [P][2][Q][32] reals, each lane's two parked quarters (0: the first, 1: the
    // second of the next diamond)
    R* park = (R*)(hin + 2 * TILE) + (threadIdx.x / 32) * 2 * Q * 32 + threadIdx.x % 32;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int j = lane % CPW, part = lane / CPW;
    // (orders and column counts fit an int: Z holds n x m elements; 32-bit indices keep
    // the registers for the window)
    const int n = (int)p.n, m = (int)p.m, col0 = blockIdx.x * CPW, col = col0 + j;
    const int groups = n <= 1 ? 0 : (n - 2) / KD + 1;
    T* vmine = vbuf + warp * 2 * KD * KD;
    T* hmine = hand + warp * TILE;
    const R* Zr = (const R*)p.z;
    R win[Split::W];  // rows S .. S + 2 KD of the lane's column (part), or a part of them
    for (int gb = groups - 1; gb >= 0; gb -= P) {
        // This round: warp k takes group gb - k; the lowest group's warp has the most tasks.
        const int g = gb - warp;
        const int tasks = g >= 0 ? q2_tasks<KD>(n, g * KD) : 0;
        const int last = min(P - 1, gb);
        const int steps = last + q2_tasks<KD>(n, (gb - last) * KD);
        const bool writer = warp == P - 1 || g == 0;
        __syncthreads();  // the previous round's writes to Z before this round reads them
        if (warp == 0 && tasks > 0) {
            q2_stage<T, KD>(p, vmine, g, 0, lane);
            q2_stage_rows<T, KD, CPW, 1, KD + 1>(p, hin, g * KD + 1 + KD, col0, lane);
        }
        q2_commit();
        for (int tau = 0; tau < steps; ++tau) {
            const int t = tau - warp;
            const bool active = g >= 0 && t >= 0 && t < tasks;
            const int S = g * KD + 1 + t * KD;
            const int buf = tau & 1;
            q2_wait();
            __syncwarp();  // the warp's own staging (this step's reflectors, warp 0's rows) landed
            // The next step's, while this one computes (into the buffers the last step read).
            const int tn = t + 1;
            if (g >= 0 && tn >= 0 && tn < tasks) {
                q2_stage<T, KD>(p, vmine + (buf ^ 1) * KD * KD, g, tn, lane);
                if (warp == 0) q2_stage_rows<T, KD, CPW, 1, KD + 1>(p, hin + (buf ^ 1) * TILE, S + 2 * KD, col0, lane);
            }
            q2_commit();
            // Warp k - 1's top half of the last step: waited for, read, and released (the
            // schedule below keeps each pair's arrivals and waits matched, active or not).
            const bool take = warp > 0 && tau >= 1, release = take && tau + 1 < steps;
            if (take) q2_bar_sync(Q2_FULL(warp - 1));
            if (active) {
                // the top half: from Z first, then kept (Split::ON: parked quarters)
                if (t == 0) {
#pragma unroll
                    for (int i = 0; i < KD; ++i) {
                        const int row = S + i;
                        const R x = row < n && col < m ? Zr[(row + col * p.ldz) * C + part] : (R)0;
                        if (Split::ON) park[i * 32] = x;  // quarters 0 and 1 parked
                        else win[i] = x;
                    }
                }
                if (Split::ON) {
#pragma unroll
                    for (int i = 0; i < Q; ++i) win[i] = park[(Q + i) * 32];
                }
                // the bottom half from warp k - 1 (warp 0: Z, staged)
                constexpr int B = Split::W - KD;
                const R* src = (const R*)(warp == 0 ? hin + buf * TILE : hand + (warp - 1) * TILE);
#pragma unroll
                for (int i = 0; i < KD; ++i)
                    win[B + i] = S + KD + i < n ? src[(j * (KD + 1) + i) * C + part] : (R)0;
            }
            if (release) q2_bar_arrive(Q2_EMPTY(warp - 1));
            if (active) {
                const T* vs = vmine + buf * KD * KD;
                if constexpr (Split::ON) {
                    q2_reflectors<T, KD, Q, KD, Q, Split::W>(win, vs, part);
                    // quarters (1, 2, 3) in the window become (0, 1, 2)
#pragma unroll
                    for (int i = 0; i < Q; ++i) {
                        park[(Q + i) * 32] = win[2 * Q + i];
                        win[2 * Q + i] = win[Q + i];
                        win[Q + i] = win[i];
                        win[i] = park[i * 32];
                    }
                    q2_reflectors<T, KD, 0, Q, 0, Split::W>(win, vs, part);
                } else {
                    q2_reflectors<T, KD, 0, KD, 0, Split::W>(win, vs, part);
                }
            }
            // The top half to warp k + 1 (after it read the last one), and by the writer to Z.
            // A warp other than the last is never active on the round's last step.
            const bool give = warp < P - 1 && tau + 1 < steps;
            if (give && tau >= 1) q2_bar_sync(Q2_EMPTY(warp));
            if (active) {
                R* out = (R*)hmine;
#pragma unroll
                for (int i = 0; i < KD; ++i) out[(j * (KD + 1) + i) * C + part] = win[i];
                if (writer) {
                    // the group's last warp: the final rows to Z, a column's rows by the lanes
                    __syncwarp();
                    constexpr int CS = 32 / KD;
                    const int r = lane % KD;
                    const bool row_in = S + r < n;
                    T* dst = (T*)p.z + S + r + (col0 + lane / KD) * p.ldz;
                    for (int jj = lane / KD; jj < CPW; jj += CS, dst += CS * p.ldz)
                        if (row_in && col0 + jj < m) *dst = hmine[jj * (KD + 1) + r];
                    __syncwarp();
                }
                // the bottom half stays for the next diamond (Split::ON: its third quarter
                // parked; the fourth already is)
                if constexpr (Split::ON) {
#pragma unroll
                    for (int i = 0; i < Q; ++i) park[i * 32] = win[2 * Q + i];
                } else {
#pragma unroll
                    for (int i = 0; i < KD; ++i) win[i] = win[KD + i];
                }
            }
            if (give) q2_bar_arrive(Q2_FULL(warp));
        }
    }
}

// ---- f64 and complex f64 on FP64 tensor cores (eig_q2_{16,32}_d, eig_q2_16_z) ----
// The same walk, hand-offs and staging as eig_q2, but a diamond's reflectors go in blocks of
// eight consecutive sweeps, c = 8 J .. 8 J + 7 with J descending: H_{8J} .. H_{8J+7} = I - V T
// V^H (T upper triangular, LAPACK's larft forward), V the block's KD + 8 window rows 8 J ..
// 8 J + KD + 7 (a parallelogram: V(r, k) = v_{8J+k}[r - k]). Each of Z ← Z - V (T (V^H Z)) is
// m16n8k4 products on the tensor cores (dmma16844, pairs of m-tiles; a complex product four real
// ones): 1.4 times the reflector-by-reflector flops (1.5 with the Gram) at twice their peak rate.
//
// A warp's window is Z^T in accumulator fragments (complex: one set for the real parts, one
// for the imaginary): 32 columns as four 8-column m-tiles, 2 KD rows as 8-row blocks; lane
// (g, q) = (lane / 4, lane % 4) holds Z(row 8 rb + 2 q + {0, 1}, column 8 mt + g) at
// w[part][rb][mt][{0, 1}]. A fragment is also an A operand if its two elements are taken as
// k-steps 0 and 1 of a permuted k (k = 2 q + step): so V^H Z, T X and V Y need no shuffles,
// only B operands from the staged reflectors with the same permutation.
// Half windows pass between warps in row-major tiles (row stride Q2m::LDT, which makes a
// fragment access conflict-free: 8-byte elements 16 banks per half warp, 16-byte ones 8 per
// quarter).
template <class T> struct Q2m;
template <> struct Q2m<double> { enum { C = 1, LDT = 34 }; };
template <> struct Q2m<double2> { enum { C = 2, LDT = 33 }; };
__device__ __forceinline__ double q2m_re(double v) { return v; }
__device__ __forceinline__ double q2m_im(double) { return 0.0; }
__device__ __forceinline__ double q2m_re(double2 v) { return v.x; }
__device__ __forceinline__ double q2m_im(double2 v) { return v.y; }

// m-tiles mt and mt + 1 of d += a b: d and a rows of fragments (four 8-column m-tiles), a's
// k-step st, one B operand for both (one m16n8k4).
__device__ __forceinline__ void q2m_mma(double (&d)[4][2], int mt, const double (&a)[4][2], int st, double b) {
    dmma16844(d[mt][0], d[mt][1], d[mt + 1][0], d[mt + 1][1], a[mt][st], a[mt + 1][st], b);
}

// Block J of the diamond in `vs` (q2_stage's layout) applied to the window.
template <class T, int KD, int J>
__device__ __forceinline__ void q2m_block(double (&w)[Q2m<T>::C][KD / 4][4][2], const T* vs, int g, int q) {
    constexpr int C = Q2m<T>::C, NR = KD / 8 + 1;  // row blocks the block's reflectors meet
    const T* v0 = vs + 8 * J * KD;  // reflector 8 J
    // V(r, k) = element r - k of reflector 8 J + k: the unit at r == k, zero outside 0 .. KD.
    // (Only the first and last row blocks have elements outside.)
    auto vget = [&](int rb, int r, int k) -> T {
        const int i = r - k;
        if (rb == 0) return i == 0 ? real_of<T>(1.0) : (i > 0 ? v0[k * KD + i] : zero_of<T>());
        if (rb == NR - 1) return i < KD ? v0[k * KD + i] : zero_of<T>();
        return v0[k * KD + i];
    };
    // X = V^H Z (as X^T = Z^T conj(V)) and the Gram G = V^H V, by parts:
    // Re X = Vr^T Zr + Vi^T Zi, Im X = Vr^T Zi - Vi^T Zr; Re G = Vr^T Vr + Vi^T Vi, Im G = Vr^T Vi
    // - Vi^T Vr.
    double gram[C][2], x[C][4][2];
#pragma unroll
    for (int c = 0; c < C; ++c) {
        gram[c][0] = gram[c][1] = 0.0;
#pragma unroll
        for (int mt = 0; mt < 4; ++mt) x[c][mt][0] = x[c][mt][1] = 0.0;
    }
#pragma unroll
    for (int rb = 0; rb < NR; ++rb)
#pragma unroll
        for (int st = 0; st < 2; ++st) {
            // B operand of X^T and both operands of the Gram: V(8 rb + 2 q + st, g)
            const T v = vget(rb, 8 * rb + 2 * q + st, g);
            const double vr = q2m_re(v), vi = q2m_im(v);
            dmma8844(gram[0][0], gram[0][1], vr, vr);
            if constexpr (C == 2) {
                dmma8844(gram[0][0], gram[0][1], vi, vi);
                dmma8844(gram[C - 1][0], gram[C - 1][1], vr, vi);
                dmma8844(gram[C - 1][0], gram[C - 1][1], -vi, vr);
            }
#pragma unroll
            for (int mt = 0; mt < 4; mt += 2) {
                q2m_mma(x[0], mt, w[0][J + rb], st, vr);
                if constexpr (C == 2) {
                    q2m_mma(x[0], mt, w[C - 1][J + rb], st, vi);
                    q2m_mma(x[C - 1], mt, w[C - 1][J + rb], st, vr);
                    q2m_mma(x[C - 1], mt, w[0][J + rb], st, -vi);
                }
            }
        }
    // Row g of T: T(g, c) = -tau_c sum_{k < c} T(g, k) G(k, c), T(g, g) = tau_g, zero left of
    // the diagonal. G(k, c) = conj(G(c, k)), and G(c, k) is lane 4 c + k / 2's element k % 2.
    double tr[C][8];
#pragma unroll
    for (int c = 0; c < 8; ++c) {
        double sr = 0.0, si = 0.0;
#pragma unroll
        for (int k = 0; k < c; ++k) {
            const double gr = __shfl_sync(0xffffffffu, gram[0][k & 1], 4 * c + k / 2);
            sr = fma(tr[0][k], gr, sr);
            if constexpr (C == 2) {
                const double gi = -__shfl_sync(0xffffffffu, gram[C - 1][k & 1], 4 * c + k / 2);
                sr = fma(-tr[C - 1][k], gi, sr);
                si = fma(tr[0][k], gi, fma(tr[C - 1][k], gr, si));
            }
        }
        const T tc = v0[c * KD];
        const double tcr = q2m_re(tc), tci = q2m_im(tc);
        tr[0][c] = g < c ? -(tcr * sr - tci * si) : (g == c ? tcr : 0.0);
        if constexpr (C == 2) tr[C - 1][c] = g < c ? -(tcr * si + tci * sr) : (g == c ? tci : 0.0);
    }
    // Y = -T X (as Y^T = X^T (-T)^T): B operand -T(g, 2 q + st); Re Y = Xr Br - Xi Bi, Im Y =
    // Xr Bi + Xi Br.
    double tb[C][2], y[C][4][2];
#pragma unroll
    for (int c = 0; c < C; ++c)
#pragma unroll
        for (int st = 0; st < 2; ++st)
            tb[c][st] = -(q == 0 ? tr[c][st] : q == 1 ? tr[c][2 + st] : q == 2 ? tr[c][4 + st] : tr[c][6 + st]);
#pragma unroll
    for (int mt = 0; mt < 4; ++mt)
#pragma unroll
        for (int c = 0; c < C; ++c) y[c][mt][0] = y[c][mt][1] = 0.0;
#pragma unroll
    for (int mt = 0; mt < 4; mt += 2)
#pragma unroll
        for (int st = 0; st < 2; ++st) {
            q2m_mma(y[0], mt, x[0], st, tb[0][st]);
            if constexpr (C == 2) {
                q2m_mma(y[0], mt, x[C - 1], st, -tb[C - 1][st]);
                q2m_mma(y[C - 1], mt, x[0], st, tb[C - 1][st]);
                q2m_mma(y[C - 1], mt, x[C - 1], st, tb[0][st]);
            }
        }
    // Z += V Y (as Z^T += Y^T V^T): B operand V(8 rb + g, 2 q + st); Re Z += Yr Vr - Yi Vi, Im
    // Z += Yr Vi + Yi Vr.
#pragma unroll
    for (int rb = 0; rb < NR; ++rb) {
#pragma unroll
        for (int st = 0; st < 2; ++st) {
            const T v = vget(rb, 8 * rb + g, 2 * q + st);
            const double vr = q2m_re(v), vi = q2m_im(v);
#pragma unroll
            for (int mt = 0; mt < 4; mt += 2) {
                q2m_mma(w[0][J + rb], mt, y[0], st, vr);
                if constexpr (C == 2) {
                    q2m_mma(w[0][J + rb], mt, y[C - 1], st, -vi);
                    q2m_mma(w[C - 1][J + rb], mt, y[0], st, vi);
                    q2m_mma(w[C - 1][J + rb], mt, y[C - 1], st, vr);
                }
            }
        }
    }
}

// The diamond's blocks, the last sweeps' first.
template <class T, int KD, int J = KD / 8 - 1>
__device__ __forceinline__ void q2m_diamond(double (&w)[Q2m<T>::C][KD / 4][4][2], const T* vs, int g, int q) {
    q2m_block<T, KD, J>(w, vs, g, q);
    if constexpr (J > 0) q2m_diamond<T, KD, J - 1>(w, vs, g, q);
}

template <class T, int KD>
__device__ void eig_q2_mma(const Q2p& p) {
    constexpr int C = Q2m<T>::C, LDT = Q2m<T>::LDT, P = 8, H = KD / 8, TILE = KD * LDT;
    pdl_enter();
    extern __shared__ __align__(16) unsigned char q2_smem[];
    T* vbuf = (T*)q2_smem;             // [P][2][KD * KD]: each warp's diamond, two steps
    T* hand = vbuf + P * 2 * KD * KD;  // [P][TILE]: each warp's released top half
    T* hin = hand + P * TILE;          // [2][TILE]: warp 0's next bottom half
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g8 = lane / 4, q = lane % 4;
    const int n = (int)p.n, m = (int)p.m, col0 = blockIdx.x * 32;
    const int groups = n <= 1 ? 0 : (n - 2) / KD + 1;
    T* vmine = vbuf + warp * 2 * KD * KD;
    T* hmine = hand + warp * TILE;
    const T* Zt = (const T*)p.z;
    const int frag = 2 * q * LDT + g8;  // the lane's first fragment element in a tile
    double w[C][2 * H][4][2];           // the window, rows S .. S + 2 KD (see above)
    for (int gb = groups - 1; gb >= 0; gb -= P) {
        const int g = gb - warp;
        const int tasks = g >= 0 ? q2_tasks<KD>(n, g * KD) : 0;
        const int last = min(P - 1, gb);
        const int steps = last + q2_tasks<KD>(n, (gb - last) * KD);
        const bool writer = warp == P - 1 || g == 0;
        __syncthreads();  // the previous round's writes to Z before this round reads them
        if (warp == 0 && tasks > 0) {
            q2_stage<T, KD>(p, vmine, g, 0, lane);
            q2_stage_rows<T, KD, 32, LDT, 1>(p, hin, g * KD + 1 + KD, col0, lane);
        }
        q2_commit();
        for (int tau = 0; tau < steps; ++tau) {
            const int t = tau - warp;
            const bool active = g >= 0 && t >= 0 && t < tasks;
            const int S = g * KD + 1 + t * KD;
            const int buf = tau & 1;
            q2_wait();
            __syncwarp();
            const int tn = t + 1;
            if (g >= 0 && tn >= 0 && tn < tasks) {
                q2_stage<T, KD>(p, vmine + (buf ^ 1) * KD * KD, g, tn, lane);
                if (warp == 0) q2_stage_rows<T, KD, 32, LDT, 1>(p, hin + (buf ^ 1) * TILE, S + 2 * KD, col0, lane);
            }
            q2_commit();
            const bool take = warp > 0 && tau >= 1, release = take && tau + 1 < steps;
            if (take) q2_bar_sync(Q2_FULL(warp - 1));
            if (active) {
                if (t == 0) {
#pragma unroll
                    for (int rb = 0; rb < H; ++rb)
#pragma unroll
                        for (int mt = 0; mt < 4; ++mt)
#pragma unroll
                            for (int e = 0; e < 2; ++e) {
                                const int row = S + 8 * rb + 2 * q + e, col = col0 + 8 * mt + g8;
                                const T z = row < n && col < m ? Zt[row + col * p.ldz] : zero_of<T>();
                                w[0][rb][mt][e] = q2m_re(z);
                                if constexpr (C == 2) w[C - 1][rb][mt][e] = q2m_im(z);
                            }
                }
                const T* src = warp == 0 ? hin + buf * TILE : hand + (warp - 1) * TILE;
#pragma unroll
                for (int rb = 0; rb < H; ++rb)
#pragma unroll
                    for (int mt = 0; mt < 4; ++mt)
#pragma unroll
                        for (int e = 0; e < 2; ++e) {
                            const T z = S + KD + 8 * rb + 2 * q + e < n ? src[frag + (8 * rb + e) * LDT + 8 * mt] : zero_of<T>();
                            w[0][H + rb][mt][e] = q2m_re(z);
                            if constexpr (C == 2) w[C - 1][H + rb][mt][e] = q2m_im(z);
                        }
            }
            if (release) q2_bar_arrive(Q2_EMPTY(warp - 1));
            if (active) q2m_diamond<T, KD>(w, vmine + buf * KD * KD, g8, q);
            const bool give = warp < P - 1 && tau + 1 < steps;
            if (give && tau >= 1) q2_bar_sync(Q2_EMPTY(warp));
            if (active) {
#pragma unroll
                for (int rb = 0; rb < H; ++rb)
#pragma unroll
                    for (int mt = 0; mt < 4; ++mt)
#pragma unroll
                        for (int e = 0; e < 2; ++e) {
                            T z;
                            if constexpr (C == 2) z = make_double2(w[0][rb][mt][e], w[C - 1][rb][mt][e]);
                            else z = w[0][rb][mt][e];
                            hmine[frag + (8 * rb + e) * LDT + 8 * mt] = z;
                        }
                if (writer) {
                    __syncwarp();
                    constexpr int CS = 32 / KD;
                    const int r = lane % KD;
                    const bool row_in = S + r < n;
                    T* dst = (T*)p.z + S + r + (col0 + lane / KD) * p.ldz;
                    for (int jj = lane / KD; jj < 32; jj += CS, dst += CS * p.ldz)
                        if (row_in && col0 + jj < m) *dst = hmine[r * LDT + jj];
                    __syncwarp();
                }
#pragma unroll
                for (int c = 0; c < C; ++c)
#pragma unroll
                    for (int rb = 0; rb < H; ++rb)
#pragma unroll
                        for (int mt = 0; mt < 4; ++mt) {
                            w[c][rb][mt][0] = w[c][H + rb][mt][0];
                            w[c][rb][mt][1] = w[c][H + rb][mt][1];
                        }
            }
            if (give) q2_bar_arrive(Q2_FULL(warp));
        }
    }
}

#ifdef GPUBLAS_FAMILY_EIG_Q2
// Reflector by reflector: single precision, and complex f64 at KD 32 (its two window parts
// would not fit the registers of the tensor-core kernel); f64 and complex f64 at KD 16 on the
// tensor cores (src/eig/q2.rs, `tensor_cores`, says which and sizes the launch).
#define EIG_Q2_KERNEL(TAG, KD, T)                                                                  \
    extern "C" __global__ void __launch_bounds__(Q2_THREADS(T), 1) eig_q2_##KD##_##TAG(Q2p p) {    \
        eig_q2<T, KD>(p);                                                                          \
    }
#define EIG_Q2_MMA_KERNEL(TAG, KD, T)                                                              \
    extern "C" __global__ void __launch_bounds__(256, 1) eig_q2_##KD##_##TAG(Q2p p) {              \
        eig_q2_mma<T, KD>(p);                                                                      \
    }
EIG_Q2_KERNEL(s, 16, float)
EIG_Q2_KERNEL(s, 32, float)
EIG_Q2_MMA_KERNEL(d, 16, double)
EIG_Q2_MMA_KERNEL(d, 32, double)
EIG_Q2_KERNEL(c, 16, float2)
EIG_Q2_KERNEL(c, 32, float2)
EIG_Q2_MMA_KERNEL(z, 16, double2)
EIG_Q2_KERNEL(z, 32, double2)
#endif
