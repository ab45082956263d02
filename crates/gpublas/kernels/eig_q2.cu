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

// Rows r0 .. r0 + KD of the slab's columns from Z to the tile `tl` (column j's rows at
// j (KD + 1)), zeros past Z's rows and columns.
template <class T, int KD>
__device__ __forceinline__ void q2_stage_rows(const Q2p& p, T* tl, int r0, int col0, int lane) {
    constexpr int CPW = 32 / Q2Real<T>::C, CS = 32 / KD;
    const T* Z = (const T*)p.z;
    const int r = lane % KD;
    int j = lane / KD;
    const bool row_in = r0 + r < p.n;
    const T* src = Z + r0 + r + (col0 + j) * p.ldz;
#pragma unroll 4
    for (; j < CPW; j += CS, src += CS * p.ldz) {
        const bool read = row_in && col0 + j < p.m;
        q2_cp(tl + j * (KD + 1) + r, read ? src : Z, read);
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
            q2_stage_rows<T, KD>(p, hin, g * KD + 1 + KD, col0, lane);
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
                if (warp == 0) q2_stage_rows<T, KD>(p, hin + (buf ^ 1) * TILE, S + 2 * KD, col0, lane);
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

#ifdef GPUBLAS_FAMILY_EIG_Q2
#define EIG_Q2_KERNELS(TAG, T)                                                                     \
    extern "C" __global__ void __launch_bounds__(Q2_THREADS(T), 1) eig_q2_16_##TAG(Q2p p) {        \
        eig_q2<T, 16>(p);                                                                          \
    }                                                                                              \
    extern "C" __global__ void __launch_bounds__(Q2_THREADS(T), 1) eig_q2_32_##TAG(Q2p p) {        \
        eig_q2<T, 32>(p);                                                                          \
    }
EIG_Q2_KERNELS(s, float)
EIG_Q2_KERNELS(d, double)
EIG_Q2_KERNELS(c, float2)
EIG_Q2_KERNELS(z, double2)
#endif
