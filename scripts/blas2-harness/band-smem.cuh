// band-smem.cuh — prototype: gbmv (op N) and sbmv (both triangles) by row tiles staged through
// shared memory (a design prototype for Issue 30's band products; not wired into the library).
//
// y = alpha A x + beta y.  Band storage (one formula for both): element (i, c) of A is
//   a[c * lda + ku + i - c]  and exists iff  c - ku <= i <= c + kl,  0 <= i < m,  0 <= c < n.
//   gbmv: kl, ku as given.  sbmv lower: kl = k, ku = 0 (m = n).  sbmv upper: kl = 0, ku = k.
//
// A block owns RB rows of y: [r0, r0 + RB).  It walks a short list of CHUNKS, each an RB x RB
// window (rows [R0, R0 + RB), columns [C0, C0 + RB)) of the band:
//   gbmv:        R0 = r0, C0 = max(0, r0 - kl) + h RB over the columns crossing the tile
//                (row pass only);
//   sbmv lower:  row chunks R0 = r0, C0 = r0 - h RB (h = ceil(k / RB) .. 0; the last one, C0 =
//                r0, holds the tile's own columns); mirror chunks R0 = r0 + h RB, C0 = r0
//                (h = 1 .. (RB - 1 + k) / RB), the own columns' stored rows below the tile;
//   sbmv upper:  row chunks C0 = r0 + h RB (h = 0 .. (RB - 1 + k) / RB), mirror chunks
//                R0 = r0 - h RB, C0 = r0.
// Every chunk is clipped to the matrix; a chunk with no column in it is not listed.
//
// A chunk is staged in shared memory column by column: slot s (column C0 + s) has LDS = RB + VE
// elements; row i sits at position sh_s + (i - R0) where sh_s = (address of row R0 of the column
// mod 16) / sizeof(T), so slot position p VE is 16-byte aligned exactly where the global address
// is.  The slot's 16-byte pieces (PPC = LDS / VE of them) that hold a needed row are copied:
//   - every element of the piece stored (in band and in the matrix): one 16-byte cp.async (rows
//     outside the chunk but stored are read too: they are band elements, read by another tile
//     as well, and the wider copy is cheaper than splitting it);
//   - else (the band's first or last piece of the column, the matrix edge): 8-byte pairs (f32)
//     or single elements, each stored element copied and each other one zero-filled with
//     cp.async's src-size 0 (nothing read).  Elements outside the stored band, padding rows of
//     lda > kl + ku + 1 and the top-left / bottom-right triangles of band storage are never read.
// Positions of a slot that no piece covers are never read by the passes: both passes test the
// band rule per element, so unstored elements (even zero-filled ones) never meet x (an infinite
// x meets only stored elements, as in reference BLAS).
//
// Pipeline: ST stages (chunk buffers).  All of the first ST chunks are issued (one cp.async group
// each, x of the chunk's columns and rows in the same group) before the first sum; chunk k is
// summed after cp.async.wait_group(ST - 1) and a barrier; chunk k + ST is issued into the same
// buffer after a second barrier (only when there is one: bands wider than ST RB columns).
// At n = 16384, band 64 and RB = 64 every tile has 3 chunks (gbmv: 192 crossing columns; sbmv:
// 2 row chunks + 1 mirror chunk), so ST = 3 puts a tile's whole band in flight at once.
//
// Passes from shared memory:
//   row pass (R0 == r0): thread (r = t % RB, slice sl = t / RB) sums columns s = sl + NS u of the
//     chunk into acc (NS = NT / RB slices; lanes of a warp read 32 consecutive rows of one slot:
//     no bank conflicts);
//   column pass (sbmv, C0 == r0, the tile's own columns): thread (column jc = t / G, g = t % G)
//     sums rows g + G u of slot jc times x of the chunk's rows (strictly off the diagonal) into
//     cacc: the mirrored part y_c += A(i, c) x_i.  The diagonal chunk's elements serve both
//     passes from one copy.
// End: the NS row partials and G column partials of each row are added in a fixed order
// (deterministic, no atomics) and y is written once: y = alpha s + beta y (beta == 0: y not
// read; alpha == 0: neither A nor x read).
//
// Shared memory (RB = 64, ST = 3, NT = 256): f32 56,576 B (4 blocks an SM fit); f64 109,312 B
// (2 blocks an SM).  See band-smem_README.md.
//
// Emulation: define BAND_SMEM_EMU and provide (band-smem-emu.h) bs_i64, bs_u64, BS_TID,
// BS_BID, bs_sync(), bs_cp<B>(dst, src, read), bs_commit(), bs_wait<N>(), bs_ld(p).
#pragma once

#ifndef BAND_SMEM_EMU
typedef long long bs_i64;
typedef unsigned long long bs_u64;
#define BS_TID ((int)threadIdx.x)
#define BS_BID ((bs_i64)blockIdx.x)
#define BS_DEV __device__ __forceinline__
__device__ __forceinline__ void bs_sync() { __syncthreads(); }
// Global to shared, B bytes; read == false stores zeros and reads nothing.
template <int B> __device__ __forceinline__ void bs_cp(void* d, const void* s, bool read) {
#if __CUDA_ARCH__ >= 800
    if constexpr (B == 16) {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"((unsigned)__cvta_generic_to_shared(d)), "l"(s)
                     : "memory");
    } else {
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"((unsigned)__cvta_generic_to_shared(d)),
                     "l"(s), "n"(B), "r"(read ? B : 0)
                     : "memory");
    }
#else
    if constexpr (B == 16) {
        *(uint4*)d = __ldg((const uint4*)s);
    } else if constexpr (B == 8) {
        *(unsigned long long*)d = read ? __ldg((const unsigned long long*)s) : 0ull;
    } else {
        *(unsigned*)d = read ? __ldg((const unsigned*)s) : 0u;
    }
#endif
}
__device__ __forceinline__ void bs_commit() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int N> __device__ __forceinline__ void bs_wait() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}
template <class T> __device__ __forceinline__ T bs_ld(const T* p) { return *p; }
#endif

template <class T> struct BandJob {
    const T* a;
    const T* x;
    T* y;
    bs_i64 m, n, kl, ku, lda;
    bs_i64 incx, offx, incy, offy;  // element i of x is x[offx + i * incx] (offx = (1 - n) incx if incx < 0)
    T alpha, beta;
    int sym;  // 1: sbmv (m == n; kl = k, ku = 0 lower, kl = 0, ku = k upper), 0: gbmv
};

template <class T, int RB_ = 64, int ST_ = 3, int NT_ = 256> struct BSCfg {
    static constexpr int RB = RB_;                          // rows of y a block = columns a chunk
    static constexpr int ST = ST_;                          // chunk buffers (all in flight at first)
    static constexpr int NT = NT_;                          // threads a block
    static constexpr int VE = 16 / (int)sizeof(T);          // elements a 16-byte piece
    static constexpr int LDS = RB + VE;                     // slot: RB rows and the alignment shift
    static constexpr int PPC = LDS / VE;                    // pieces a slot
    static constexpr int NS = NT / RB;                      // row pass: column slices
    static constexpr int G = NT / RB;                       // column pass: threads a column
    static constexpr int STAGE = RB * LDS;                  // elements a chunk buffer
    // Layout (bytes): stages | xs[ST][RB] | xr[ST][RB] | red[NS][RB] | cred[NT] | sh[ST][RB] (int)
    static constexpr int OFF_XS = ST * STAGE * (int)sizeof(T);
    static constexpr int OFF_XR = OFF_XS + ST * RB * (int)sizeof(T);
    static constexpr int OFF_RED = OFF_XR + ST * RB * (int)sizeof(T);
    static constexpr int OFF_CRED = OFF_RED + NS * RB * (int)sizeof(T);
    static constexpr int OFF_SH = OFF_CRED + NT * (int)sizeof(T);
    static constexpr int SMEM_BYTES = OFF_SH + ST * RB * 4;
    static_assert(RB % VE == 0 && RB % 32 == 0 && NT % RB == 0 && NS >= 1, "tile shape");
    static_assert(2 * RB <= NT, "x of a chunk's columns and rows: one element a thread");
};

struct BSChunk {
    bs_i64 R0, C0;
    bool rows, cols;  // row pass (R0 == r0), column pass (sbmv, C0 == r0)
};

template <class T> BS_DEV bs_i64 bs_min(bs_i64 a, bs_i64 b) { return a < b ? a : b; }
template <class T> BS_DEV bs_i64 bs_max(bs_i64 a, bs_i64 b) { return a < b ? b : a; }

// The chunk list of tile r0 (see the top).  nA: row chunks, nB: mirror chunks (sbmv).
template <class T, class P> struct BSPlan {
    bs_i64 r0, cf;
    int nA, nB;
    bool sym, lower;
    BS_DEV void init(const BandJob<T>& j, bs_i64 r0_) {
        constexpr int RB = P::RB;
        r0 = r0_;
        sym = j.sym != 0;
        lower = sym && j.ku == 0 && j.kl > 0;  // k = 0: both rules are the diagonal; either list works
        nB = 0;
        cf = 0;
        if (!sym) {
            const bs_i64 nr = bs_min<T>(RB, j.m - r0);
            cf = bs_max<T>(0, r0 - j.kl);
            const bs_i64 cl = bs_min<T>(j.n, r0 + nr + j.ku);  // exclusive
            nA = cl > cf ? (int)((cl - cf + RB - 1) / RB) : 0;
        } else if (lower) {
            const bs_i64 k = j.kl;
            const bs_i64 nL = bs_min<T>((k + RB - 1) / RB, r0 / RB);
            nA = (int)nL + 1;
            nB = (int)bs_min<T>((RB - 1 + k) / RB, (j.n - 1 - r0) / RB);
        } else {
            const bs_i64 k = j.ku;
            nA = 1 + (int)bs_min<T>((RB - 1 + k) / RB, (j.n - 1 - r0) / RB);
            nB = (int)bs_min<T>((RB - 1 + k) / RB, r0 / RB);
        }
    }
    BS_DEV int count() const { return nA + nB; }
    BS_DEV BSChunk at(int ci) const {
        constexpr int RB = P::RB;
        BSChunk c;
        if (!sym) {
            c.R0 = r0; c.C0 = cf + (bs_i64)ci * RB; c.rows = true; c.cols = false;
        } else if (ci < nA) {
            c.R0 = r0;
            c.C0 = lower ? r0 - (bs_i64)(nA - 1 - ci) * RB : r0 + (bs_i64)ci * RB;
            c.rows = true;
            c.cols = c.C0 == r0;
        } else {
            const bs_i64 h = ci - nA + 1;
            c.R0 = lower ? r0 + h * RB : r0 - h * RB;
            c.C0 = r0;
            c.rows = false;
            c.cols = true;
        }
        return c;
    }
};

// Issues chunk c into buffer b: the slots' pieces, x of its columns (row pass) and rows (column
// pass).  No commit.
template <class T, class P>
BS_DEV void bs_issue(const BandJob<T>& j, const BSChunk& c, unsigned char* smem, int b) {
    constexpr int RB = P::RB, VE = P::VE, LDS = P::LDS, PPC = P::PPC, NT = P::NT;
    const int t = BS_TID;
    T* S = (T*)smem + b * P::STAGE;
    int* shs = (int*)(smem + P::OFF_SH) + b * RB;
    const bs_i64 m = j.m, n = j.n, kl = j.kl, ku = j.ku;
    for (int idx = t; idx < RB * PPC; idx += NT) {
        const int s = idx / PPC, p = idx - s * PPC;
        const bs_i64 col = c.C0 + s;
        if (col < 0 || col >= n) {
            if (p == 0) shs[s] = 0;
            continue;
        }
        // Byte address of row R0 of the column (may lie outside the array; only an address).
        const bs_u64 g0 = (bs_u64)j.a + (bs_u64)((col * j.lda + ku - col + c.R0) * (bs_i64)sizeof(T));
        const int sh = (int)((g0 & 15) / sizeof(T));
        if (p == 0) shs[s] = sh;
        const bs_i64 lo = bs_max<T>(0, col - ku), hi = bs_min<T>(m - 1, col + kl);  // stored rows
        const bs_i64 nlo = bs_max<T>(lo, c.R0), nhi = bs_min<T>(hi, c.R0 + RB - 1); // needed rows
        const bs_i64 pr = c.R0 - sh + (bs_i64)p * VE;                              // the piece's first row
        if (nlo > nhi || pr + VE - 1 < nlo || pr > nhi) continue;
        T* d = S + s * LDS + p * VE;
        const T* src = (const T*)(g0 - (bs_u64)sh * sizeof(T) + (bs_u64)p * 16);
        bool v[VE], all = true;
#pragma unroll
        for (int u = 0; u < VE; u++) {
            v[u] = pr + u >= lo && pr + u <= hi;
            all = all && v[u];
        }
        if (all) {
            bs_cp<16>(d, src, true);
            continue;
        }
        if constexpr (sizeof(T) == 4) {
#pragma unroll
            for (int h = 0; h < VE; h += 2) {
                if (v[h] && v[h + 1]) {
                    bs_cp<8>(d + h, src + h, true);
                } else {
                    bs_cp<4>(d + h, v[h] ? src + h : j.a, v[h]);
                    bs_cp<4>(d + h + 1, v[h + 1] ? src + h + 1 : j.a, v[h + 1]);
                }
            }
        } else {
#pragma unroll
            for (int u = 0; u < VE; u++) bs_cp<sizeof(T)>(d + u, v[u] ? src + u : j.a, v[u]);
        }
    }
    // x of the columns (row pass) and of the rows (column pass); zero where none is read.
    T* xs = (T*)(smem + P::OFF_XS) + b * RB;
    T* xr = (T*)(smem + P::OFF_XR) + b * RB;
    if (t < RB) {
        if (c.rows) {
            const bs_i64 col = c.C0 + t;
            const bool ok = col >= 0 && col < n;
            bs_cp<sizeof(T)>(xs + t, ok ? j.x + j.offx + col * j.incx : j.x + j.offx, ok);
        }
    } else if (t < 2 * RB) {
        if (c.cols) {
            const bs_i64 row = c.R0 + (t - RB);
            const bool ok = row >= 0 && row < n;
            bs_cp<sizeof(T)>(xr + (t - RB), ok ? j.x + j.offx + row * j.incx : j.x + j.offx, ok);
        }
    }
}

template <class T> BS_DEV T bs_fma(T a, T b, T c);
template <> BS_DEV float bs_fma<float>(float a, float b, float c) { return fmaf(a, b, c); }
template <> BS_DEV double bs_fma<double>(double a, double b, double c) { return fma(a, b, c); }

// The kernel body (smem: P::SMEM_BYTES of dynamic shared memory, 16-byte aligned; blockIdx.x =
// row tile; blockDim.x = P::NT).
template <class T, class P>
BS_DEV void band_smem(const BandJob<T>& j, unsigned char* smem) {
    constexpr int RB = P::RB, ST = P::ST, LDS = P::LDS, NS = P::NS, G = P::G;
    const int t = BS_TID;
    const bs_i64 r0 = BS_BID * RB;
    const bs_i64 m = j.m, n = j.n, kl = j.kl, ku = j.ku;
    const T alpha = j.alpha, beta = j.beta;
    T* yp = nullptr;
    if (t < RB && r0 + t < m) yp = j.y + j.offy + (r0 + t) * j.incy;
    if (alpha == T(0)) {
        if (yp) *yp = beta == T(0) ? T(0) : beta * bs_ld(yp);
        return;
    }
    BSPlan<T, P> plan;
    plan.init(j, r0);
    const int nch = plan.count();
#pragma unroll 1
    for (int b = 0; b < ST; b++) {
        if (b < nch) bs_issue<T, P>(j, plan.at(b), smem, b);
        bs_commit();
    }
    // y read ahead: its latency overlaps the copies'.
    const T yold = (yp && beta != T(0)) ? bs_ld(yp) : T(0);
    const int r = t % RB, sl = t / RB;   // row pass
    const int jc = t / G, g = t % G;     // column pass
    const bs_i64 i = r0 + r;
    T acc0 = T(0), acc1 = T(0), cacc = T(0);
#pragma unroll 1
    for (int k = 0; k < nch; k++) {
        bs_wait<ST - 1>();
        bs_sync();  // chunk k landed for every thread
        const int b = k % ST;
        const BSChunk c = plan.at(k);
        const T* S = (const T*)smem + b * P::STAGE;
        const int* shs = (const int*)(smem + P::OFF_SH) + b * RB;
        if (c.rows && i < m) {
            const T* xs = (const T*)(smem + P::OFF_XS) + b * RB;
            const T* Sr = S + (i - c.R0);
#pragma unroll 4
            for (int s = sl; s < RB; s += NS) {
                const bs_i64 col = c.C0 + s;
                if (col >= 0 && col < n && col - ku <= i && i <= col + kl) {
                    const T v = Sr[s * LDS + (shs[s] & (P::VE - 1))];  // the mask keeps a slot's reads inside it
                    if (s & NS) acc1 = bs_fma(v, xs[s], acc1);
                    else acc0 = bs_fma(v, xs[s], acc0);
                }
            }
        }
        if (c.cols) {
            const bs_i64 col = c.C0 + jc;
            if (col < n) {
                const T* xr = (const T*)(smem + P::OFF_XR) + b * RB;
                const T* Sc = S + jc * LDS + (shs[jc] & (P::VE - 1));
                const bs_i64 lo = bs_max<T>(0, col - ku), hi = bs_min<T>(n - 1, col + kl);
#pragma unroll 4
                for (int rr = g; rr < RB; rr += G) {
                    const bs_i64 row = c.R0 + rr;
                    if (row >= lo && row <= hi && row != col) cacc = bs_fma(Sc[rr], xr[rr], cacc);
                }
            }
        }
        if (k + ST < nch) {
            bs_sync();  // every thread is done with buffer b
            bs_issue<T, P>(j, plan.at(k + ST), smem, b);
        }
        bs_commit();
    }
    // Partials through shared memory (their own area: no barrier needed before writing them).
    T* red = (T*)(smem + P::OFF_RED);
    T* cred = (T*)(smem + P::OFF_CRED);
    red[sl * RB + r] = acc0 + acc1;
    cred[t] = cacc;
    bs_sync();
    if (yp) {
        T s = red[r];
#pragma unroll
        for (int q = 1; q < NS; q++) s += red[q * RB + r];
        if (j.sym) {
            T cs = cred[r * G];
#pragma unroll
            for (int q = 1; q < G; q++) cs += cred[r * G + q];
            s += cs;
        }
        *yp = beta == T(0) ? alpha * s : alpha * s + beta * yold;
    }
}

#ifndef BAND_SMEM_EMU
typedef BSCfg<float, 64, 3, 256> BSCfgS;
typedef BSCfg<double, 64, 3, 256> BSCfgD;
extern "C" __global__ void __launch_bounds__(256) band_smem_s(BandJob<float> j) {
    extern __shared__ __align__(16) unsigned char bs_smem[];
    band_smem<float, BSCfgS>(j, bs_smem);
}
extern "C" __global__ void __launch_bounds__(256) band_smem_d(BandJob<double> j) {
    extern __shared__ __align__(16) unsigned char bs_smem[];
    band_smem<double, BSCfgD>(j, bs_smem);
}
#endif
