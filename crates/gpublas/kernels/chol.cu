// The solver's Cholesky kernels (family GPUBLAS_FAMILY_CHOL), after solver.cuh:
//   chol:  Cholesky of a diagonal block of order <= 32, one warp, a row per lane in registers
//          (float, double, float2, double2);
//   cholr: Cholesky of a diagonal block of order <= 64, 16 × 16 threads each holding a tile
//          in registers, a column per barrier (batches: more blocks per SM than cholp);
//   cholp: the same tiles, a block of 16 columns per three barriers, order <= 64 (cholp4) or
//          <= 128 (cholp8, not for double2);
//   cholx: a leaf of order <= 128 (real types) after adding its update by the
//          panels before it (a product in the workspace): cholp's tiles in eight warps, the
//          diagonal blocks in a ninth, the next block's factor beside the rest's update;
//   trsolve: the panel beside such a leaf solved in place, 64 rows per block in 4 × 8
//          register tiles.

template <class T>
__device__ void chol(const Sol& j) {
    pdl_enter();
    const int e = blockIdx.x, lane = threadIdx.x;
    if (e >= j.ne) return;
    int* info = (int*)j.info + e * j.info_s;
    T* A = (T*)j.a + e * j.es;
    const int n = (int)j.cols;
    const bool lower = j.lower != 0;
    // a[k] = L(lane, k) (for the upper triangle, L = Uᴴ). The loads are issued before info is
    // known (reads only), so their latency overlaps its.
    T a[LEAF];
#pragma unroll
    for (int k = 0; k < LEAF; ++k) {
        a[k] = zero_of<T>();
        if (k < n && lane < n && k <= lane)
            a[k] = lower ? A[lane + k * j.ld] : cj(A[k + lane * j.ld]);
    }
    if (*info != 0) return;
    int fail = -1;
#pragma unroll
    for (int jj = 0; jj < LEAF; ++jj) {
        if (jj < n && fail < 0) {
            const double d = (double)rpart(shf(a[jj], jj));
            if (!(d > 0.0)) {
                fail = jj;
            } else {
                // One reciprocal square root on the column's critical path, as in `cholr`.
                const double ri = rsqrt(d);
                if (lane == jj) a[jj] = real_of<T>(d * ri);
                else if (lane > jj) a[jj] = scl(a[jj], (decltype(rpart(a[0])))ri);
#pragma unroll
                for (int k = jj + 1; k < LEAF; ++k) {
                    if (k < n) {
                        const T lkj = shf(a[jj], k);
                        if (lane >= k) a[k] = fms(a[k], a[jj], cj(lkj));
                    }
                }
            }
        }
    }
    if (fail >= 0 && lane == 0) *info = j.k0 + fail + 1;
#pragma unroll
    for (int k = 0; k < LEAF; ++k) {
        if (k < n && lane < n && k <= lane) {
            if (lower) A[lane + k * j.ld] = a[k];
            else A[k + lane * j.ld] = cj(a[k]);
        }
    }
}

// Cholesky of a diagonal block of order <= 16 * R, one block of 16 × 16 threads, each holding
// an R × R tile of the block in registers (rows tr + 16 i, columns tk + 16 q). Per column:
// its owners publish it to shared memory (two buffers alternate), one barrier, then every
// thread applies it to its tile (the column's owners also scale it). Entries above the
// diagonal are never stored (tiles wholly above it are not even updated).
template <class T, int R>
__device__ void cholr(const Sol& j) {
    pdl_enter();
    __shared__ T colbuf[2][16 * R];
    const int e = blockIdx.x;
    if (e >= j.ne) return;
    int* info = (int*)j.info + e * j.info_s;
    // Every thread reads the same value: the whole block returns or none does.
    if (*info != 0) return;
    T* A = (T*)j.a + e * j.es;
    const int n = (int)j.cols;
    const bool lower = j.lower != 0;
    const int tr = threadIdx.x & 15, tk = threadIdx.x >> 4;
    typedef decltype(rpart(zero_of<T>())) Rl;
    T a[R][R];
#pragma unroll
    for (int i = 0; i < R; ++i) {
#pragma unroll
        for (int q = 0; q < R; ++q) {
            const int r = tr + 16 * i, k = tk + 16 * q;
            a[i][q] = zero_of<T>();
            if (r < n && k <= r) a[i][q] = lower ? A[r + (i64)k * j.ld] : cj(A[k + (i64)r * j.ld]);
        }
    }
    int fail = -1;
#pragma unroll 1
    for (int c = 0; c < n; ++c) {
        const int cb = c & 15, cq = c >> 4, p = c & 1;
        if (tk == cb) {
#pragma unroll
            for (int i = 0; i < R; ++i) {
                T v = a[i][0];
#pragma unroll
                for (int q = 1; q < R; ++q)
                    if (q == cq) v = a[i][q];
                colbuf[p][tr + 16 * i] = v;
            }
        }
        __syncthreads();
        const double d = (double)rpart(colbuf[p][c]);
        if (!(d > 0.0)) {
            fail = c;
            break;
        }
        // One reciprocal square root on the column's critical path (sqrt and two divisions
        // took 7 % longer per leaf on the H100).
        const double ri = rsqrt(d);
        const double s = d * ri;
        const Rl inv = (Rl)ri, invd = (Rl)(ri * ri);
        T rv[R], kv[R];
#pragma unroll
        for (int i = 0; i < R; ++i) {
            rv[i] = scl(colbuf[p][tr + 16 * i], invd);
            kv[i] = cj(colbuf[p][tk + 16 * i]);
        }
#pragma unroll
        for (int q = 0; q < R; ++q) {
            const int k = tk + 16 * q;
            if (k > c) {
#pragma unroll
                // Tiles above the diagonal (i < q) are never stored: left alone (H100, double
                // 128: 93 -> 88 us per leaf).
                for (int i = q; i < R; ++i) a[i][q] = fms(a[i][q], rv[i], kv[q]);
            } else if (k == c) {
#pragma unroll
                for (int i = 0; i < R; ++i) {
                    const int r = tr + 16 * i;
                    if (r == c) a[i][q] = real_of<T>(s);
                    else if (r > c) a[i][q] = scl(a[i][q], inv);
                }
            }
        }
    }
    if (fail >= 0 && threadIdx.x == 0) *info = j.k0 + fail + 1;
#pragma unroll
    for (int i = 0; i < R; ++i) {
#pragma unroll
        for (int q = 0; q < R; ++q) {
            const int r = tr + 16 * i, k = tk + 16 * q;
            if (r < n && k <= r) {
                if (lower) A[r + (i64)k * j.ld] = a[i][q];
                else A[k + (i64)r * j.ld] = cj(a[i][q]);
            }
        }
    }
}

// Steps 2 and 3 of `cholp` for the block of columns jb .. jb + 15 in `P` (rows jb .. n - 1,
// columns 0 .. 15); returns the first failing column (-1: none), the same in every thread.
// Every warp factors the 16 × 16 diagonal block (lane l and l + 16 holding row jb + l) with
// shuffles, warp 0 keeps the result: no shuffle sits in a branch, and every thread knows the
// outcome without a barrier. Then one thread per row below solves X L11ᴴ = A21. Not inlined:
// one copy of this code serves every block of columns.
template <class T>
__device__ __noinline__ int cholp_panel(T (*P)[17], double* rd, int jb, int n) {
    typedef decltype(rpart(zero_of<T>())) Rl;
    const int l = threadIdx.x & 15;
    const bool keep = threadIdx.x < 16;
    T p[16];
#pragma unroll
    for (int t = 0; t < 16; ++t) p[t] = P[jb + l][t];
    int f = -1;
#pragma unroll
    for (int t = 0; t < 16; ++t) {
        if (jb + t >= n) break;
        const double d = (double)rpart(shf(p[t], t));
        if (!(d > 0.0)) {
            f = jb + t;
            break;
        }
        const double ri = rsqrt(d);
        if (l == t) p[t] = real_of<T>(d * ri);
        else if (l > t) p[t] = scl(p[t], (Rl)ri);
        if (threadIdx.x == t) rd[t] = ri;
#pragma unroll
        for (int q = t + 1; q < 16; ++q) {
            const T v = cj(shf(p[t], q));
            if (l >= q) p[q] = fms(p[q], p[t], v);
        }
    }
    if (keep) {
#pragma unroll
        for (int t = 0; t < 16; ++t) P[jb + l][t] = p[t];
    }
    __syncthreads();
    const int r = jb + 16 + (int)threadIdx.x;
    if (f < 0 && r < n) {
        T x[16];
#pragma unroll
        for (int t = 0; t < 16; ++t) x[t] = P[r][t];
#pragma unroll
        for (int t = 0; t < 16; ++t) {
            if (jb + t < n) {
                x[t] = scl(x[t], (Rl)rd[t]);
#pragma unroll
                for (int q = t + 1; q < 16; ++q) x[q] = fms(x[q], x[t], cj(P[jb + q][t]));
            }
        }
#pragma unroll
        for (int t = 0; t < 16; ++t) P[r][t] = x[t];
    }
    __syncthreads();
    return f;
}

// Cholesky of a diagonal block of order <= 16 * R in blocks of 16 columns, the block held in
// R × R register tiles as `cholr`. Per block of columns: their owners publish them to shared
// memory (two buffers alternate), `cholp_panel` factors them, every thread takes its column
// back and applies the rank-16 update to the rest of its tile. Three barriers per 16 columns
// instead of one per column.
template <class T, int R>
__device__ void cholp(const Sol& j) {
    pdl_enter();
    constexpr int N = 16 * R;
    __shared__ T pb[2][N][17];
    __shared__ double rd[16];
    const int e = blockIdx.x;
    if (e >= j.ne) return;
    int* info = (int*)j.info + e * j.info_s;
    // Every thread reads the same value: the whole block returns or none does.
    if (*info != 0) return;
    T* A = (T*)j.a + e * j.es;
    const int n = (int)j.cols;
    const bool lower = j.lower != 0;
    const int tr = threadIdx.x & 15, tk = threadIdx.x >> 4;
    T a[R][R];
#pragma unroll
    for (int i = 0; i < R; ++i) {
#pragma unroll
        for (int q = 0; q < R; ++q) {
            const int r = tr + 16 * i, k = tk + 16 * q;
            a[i][q] = zero_of<T>();
            if (r < n && k <= r) a[i][q] = lower ? A[r + (i64)k * j.ld] : cj(A[k + (i64)r * j.ld]);
        }
    }
    int fail = -1;
#pragma unroll
    for (int qb = 0; qb < R; ++qb) {
        const int jb = 16 * qb;
        if (jb >= n) break;
        T(*P)[17] = pb[qb & 1];
#pragma unroll
        for (int i = qb; i < R; ++i) P[tr + 16 * i][tk] = a[i][qb];
        __syncthreads();
        fail = cholp_panel<T>(P, rd, jb, n);
#pragma unroll
        for (int i = qb; i < R; ++i) a[i][qb] = P[tr + 16 * i][tk];
        if (fail >= 0) break;
#pragma unroll
        for (int t = 0; t < 16; ++t) {
            T rv[R], kv[R];
#pragma unroll
            for (int i = qb + 1; i < R; ++i) {
                rv[i] = P[tr + 16 * i][t];
                kv[i] = cj(P[tk + 16 * i][t]);
            }
#pragma unroll
            for (int q = qb + 1; q < R; ++q) {
#pragma unroll
                for (int i = q; i < R; ++i) a[i][q] = fms(a[i][q], rv[i], kv[q]);
            }
        }
    }
    if (fail >= 0 && threadIdx.x == 0) *info = j.k0 + fail + 1;
#pragma unroll
    for (int i = 0; i < R; ++i) {
#pragma unroll
        for (int q = 0; q < R; ++q) {
            const int r = tr + 16 * i, k = tk + 16 * q;
            if (r < n && k <= r) {
                if (lower) A[r + (i64)k * j.ld] = a[i][q];
                else A[k + (i64)r * j.ld] = cj(a[i][q]);
            }
        }
    }
}

// The 16 × 16 diagonal block of `cholx`'s column block at jb, by one warp (lane l and
// l + 16 hold row jb + l): rows jb .. jb + 15 of P become L11, rd[t] = 1 / L11(t, t). Per
// column the lanes publish their unscaled entries to C (shared memory: a store and broadcast
// loads instead of 30 shuffles and the moves they brought) while the diagonal entry travels by
// shuffle, so the chain per column is the shuffle, the rsqrt, two multiplies and an fma. Returns the first failing column (-1:
// none). Entries above the diagonal are left as garbage (never read, never stored). Real types.
template <class T>
__device__ __noinline__ int cholx_diag(T (*P)[17], T (*C)[16], T* rd, int jb, int n) {
    const int lane = threadIdx.x & 31, l = lane & 15;
    T p[16];
#pragma unroll
    for (int t = 0; t < 16; ++t) p[t] = P[jb + l][t];
    int f = -1;
#pragma unroll
    for (int t = 0; t < 16; ++t) {
        if (jb + t >= n) break;
        if (lane < 16) C[t][l] = p[t];
        const T d = shf(p[t], t);
        __syncwarp();
        T c[16];
#pragma unroll
        for (int q = t + 1; q < 16; ++q) c[q] = C[t][q];
        if (!(d > T(0))) {
            f = jb + t;
            break;
        }
        const T ri = (T)rsqrt((double)d);
        const T lv = l == t ? d * ri : p[t] * ri;
        const T m = lv * ri;
        p[t] = lv;
#pragma unroll
        for (int q = t + 1; q < 16; ++q) p[q] = fms(p[q], m, c[q]);
        if (lane == t) rd[t] = ri;
    }
    if (lane < 16) {
#pragma unroll
        for (int t = 0; t < 16; ++t) P[jb + l][t] = p[t];
    }
    return f;
}

// The rows below `cholx`'s diagonal block at jb solved with it, one thread per row.
template <class T>
__device__ __noinline__ void cholx_rows(T (*P)[17], const T* rd, int jb, int n) {
    const int r = jb + 16 + (int)threadIdx.x;
    if (r >= n) return;
    T x[16];
#pragma unroll
    for (int t = 0; t < 16; ++t) x[t] = P[r][t];
#pragma unroll
    for (int t = 0; t < 16; ++t) {
        x[t] *= rd[t];
#pragma unroll
        for (int q = t + 1; q < 16; ++q) x[q] = fms(x[q], x[t], P[jb + q][t]);
    }
#pragma unroll
    for (int t = 0; t < 16; ++t) P[r][t] = x[t];
}

// A Cholesky leaf of order n <= 128 for real types (the blocked Cholesky's `CholLeaf`), with
// its update square (j.u, 0: none) added while loading. 8 warps of 16 × 16 threads hold 8 × 8
// register tiles (rows tr + 16 i, columns tk + 16 q); a ninth warp factors the diagonal blocks
// (`cholx_diag`). Per block of 16 columns qb: the diagonal block's factor (ninth warp)
// while the tile warps finish the previous block's update of the columns past qb (the
// look-ahead); one tile thread per row below solves with the factor (`cholx_rows`); every
// tile thread takes its column back, updates the next block of columns first and publishes
// it, so the next diagonal factor can start. The update loops over 16 columns are not
// unrolled (`cholp`'s fully unrolled code stalled on instruction fetch and spilled). Entries
// above the diagonal are never stored.
template <class T>
__device__ void cholx(const Sol& j) {
    pdl_trigger();
    constexpr int R = 8;
    __shared__ T pb[2][16 * R][17];
    __shared__ __align__(16) T cols[16][16];
    __shared__ T rd[16];
    __shared__ int fail_s;
    const int e = blockIdx.x;
    if (e >= j.ne) return;
    int* info = (int*)j.info + e * j.info_s;
    T* A = (T*)j.a + e * j.es;
    const T* U = j.u ? (const T*)j.u + e * j.ues : nullptr;
    const int n = (int)j.cols;
    const bool lower = j.lower != 0;
    const bool tile = threadIdx.x < 256;
    const int tr = threadIdx.x & 15, tk = (threadIdx.x >> 4) & 15;
    T a[R][R];
    // All of A's loads first (they land in the tile itself), before waiting for the previous
    // kernel: the diagonal block is written only by work ordered before it by events (the
    // main lane's updates) or by this program's start. Then the square (the product just
    // before) row by row.
    if (tile) {
#pragma unroll
        for (int i = 0; i < R; ++i) {
#pragma unroll
            for (int q = 0; q <= i; ++q) {
                const int r = tr + 16 * i, k = tk + 16 * q;
                a[i][q] = zero_of<T>();
                if (r < n && k <= r) a[i][q] = lower ? A[r + (i64)k * j.ld] : A[k + (i64)r * j.ld];
            }
        }
    }
    pdl_wait();
    // Every thread reads the same value: the whole block returns or none does.
    if (*info != 0) return;
    if (tile) {
        if (U) {
#pragma unroll
            for (int i = 0; i < R; ++i) {
                T y[R];
#pragma unroll
                for (int q = 0; q <= i; ++q) {
                    const int r = tr + 16 * i, k = tk + 16 * q;
                    y[q] = zero_of<T>();
                    if (r < n && k <= r) y[q] = U[r + (i64)k * j.uld];
                }
#pragma unroll
                for (int q = 0; q <= i; ++q) a[i][q] += y[q];
            }
        }
#pragma unroll
        for (int i = 0; i < R; ++i) pb[0][tr + 16 * i][tk] = a[i][0];
    } else if (threadIdx.x == 256) {
        fail_s = -1;
    }
    int fail = -1;
#pragma unroll
    for (int qb = 0; qb < R; ++qb) {
        const int jb = 16 * qb;
        if (jb >= n) break;
        T(*P)[17] = pb[qb & 1];
        __syncthreads();  // column block qb published
        if (!tile) {
            const int f = cholx_diag<T>(P, cols, rd, jb, n);
            if (threadIdx.x == 256 && f >= 0) fail_s = f;
        } else if (qb > 0) {
            // The previous block's update of the columns past this block (the look-ahead).
            T(*Q)[17] = pb[(qb - 1) & 1];
#pragma unroll 2
            for (int t = 0; t < 16; ++t) {
                T rv[R], kv[R];
#pragma unroll
                for (int i = qb + 1; i < R; ++i) {
                    rv[i] = Q[tr + 16 * i][t];
                    kv[i] = Q[tk + 16 * i][t];
                }
#pragma unroll
                for (int q = qb + 1; q < R; ++q) {
#pragma unroll
                    for (int i = q; i < R; ++i) a[i][q] = fms(a[i][q], rv[i], kv[q]);
                }
            }
        }
        __syncthreads();  // the diagonal block factored
        fail = fail_s;
        if (tile) {
            if (fail < 0) cholx_rows<T>(P, rd, jb, n);
            asm volatile("bar.sync 1, 256;" ::: "memory");  // the rows below solved
#pragma unroll
            for (int i = qb; i < R; ++i) a[i][qb] = P[tr + 16 * i][tk];
            if (fail < 0 && qb + 1 < R && jb + 16 < n) {
                // The next block of columns first, then published for its diagonal factor.
#pragma unroll 2
                for (int t = 0; t < 16; ++t) {
                    T rv[R];
#pragma unroll
                    for (int i = qb + 1; i < R; ++i) rv[i] = P[tr + 16 * i][t];
                    const T kv = P[tk + 16 * (qb + 1)][t];
#pragma unroll
                    for (int i = qb + 1; i < R; ++i) a[i][qb + 1] = fms(a[i][qb + 1], rv[i], kv);
                }
                T(*N)[17] = pb[(qb + 1) & 1];
#pragma unroll
                for (int i = qb + 1; i < R; ++i) N[tr + 16 * i][tk] = a[i][qb + 1];
            }
        }
        if (fail >= 0) break;
    }
    if (!tile) return;
    if (fail >= 0 && threadIdx.x == 0) *info = j.k0 + fail + 1;
#pragma unroll
    for (int i = 0; i < R; ++i) {
#pragma unroll
        for (int q = 0; q <= i; ++q) {
            const int r = tr + 16 * i, k = tk + 16 * q;
            if (r < n && k <= r) {
                if (lower) A[r + (i64)k * j.ld] = a[i][q];
                else A[k + (i64)r * j.ld] = a[i][q];
            }
        }
    }
}

// An element copied from global to shared memory without passing through registers
// (`cp.async`, sm_80+; a plain copy before); zeros where `in` is false (`src` is not read).
template <class T>
__device__ __forceinline__ void copy_async(T* dst, const T* src, bool in) {
#if __CUDA_ARCH__ >= 800
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    if constexpr (sizeof(T) == 8)
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(d), "l"(src), "r"(in ? 8 : 0) : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(d), "l"(src), "r"(in ? 4 : 0) : "memory");
#else
    *dst = in ? *src : zero_of<T>();
#endif
}
// Waits for this thread's `copy_async`s (a barrier then makes every thread's visible).
__device__ __forceinline__ void copy_async_wait() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

// trsolve: the panel beside a factored diagonal block of order n <= 128 solved in place:
// every vector v (a row of A21, lower; a column of A12, upper) becomes v L⁻ᵀ, L the block's
// factor (Uᵀ, upper). 64 vectors per block of 256 threads: the factor's triangle in shared
// memory, the vectors staged through shared memory (coalesced either way) into 4 × 8 register
// tiles (vectors tr + 16 i, elements tk + 16 q). Per block of 16 elements: its owners publish
// it, 64 threads substitute (reciprocals of the diagonal precomputed), every thread takes its
// elements back and subtracts them from its later ones. Real types.
template <class T>
__device__ void trsolve(const Sol& j) {
    pdl_trigger();
    constexpr int N = 128, VB = 64, VP = VB + 1, LP = N + 1, G = 16, R = 8, RV = 4;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* L = (T*)smem_raw;  // L[k * LP + c]: element (c, k) of the factor (c >= k)
    T* V = L + N * LP;    // V[k * VP + v]: element k of vector v (loads and stores)
    T* rd = V + N * VP;   // reciprocals of the diagonal
    // The published element blocks, inside V's space once the tiles are loaded.
    T(*S)[VB][17] = (T(*)[VB][17])V;
    const int n = (int)j.cols;
    const i64 m = j.rows, v0 = (i64)blockIdx.x * VB;
    const bool lower = j.lower != 0;
    T* A = (T*)j.a + blockIdx.y * j.es;
    const T* D = (const T*)j.w + blockIdx.y * j.es;
    // Every load in flight at once, straight into shared memory (`cp.async`; zeros past the
    // block's order and the panel's rows). Element (c, k) of L is D[c + k ld] (lower) or
    // D[k + c ld] (upper), read along D's columns either way and only in the factor's
    // triangle; element k of vector v is A[v + k ld] or A[k + v ld], along the matrix's columns.
#pragma unroll 8
    for (int t = threadIdx.x; t < N * VB; t += 256) {
        const int v = lower ? t % VB : t / N, k = lower ? t / VB : t % N;
        const i64 gv = v0 + v;
        const bool in = gv < m && k < n;
        copy_async(&V[k * VP + v], in ? (lower ? &A[gv + (i64)k * j.ld] : &A[k + gv * j.ld]) : A, in);
    }
    // The vectors before waiting for the previous kernel (the leaf's factor): they are written
    // only by work ordered before it by events (the rows' update on the aux lane, the main
    // lane's) or by full launches.
    pdl_wait();
#pragma unroll 8
    for (int t = threadIdx.x; t < N * N; t += 256) {
        const int c = t % N, k = t / N;
        if (lower ? c >= k : c <= k) {
            const bool in = c < n && k < n;
            // Upper: D[c + k ld] is element (k, c) of L; stored transposed.
            copy_async(&L[lower ? k * LP + c : c * LP + k], in ? &D[c + (i64)k * j.ld] : D, in);
        }
    }
    copy_async_wait();
    __syncthreads();
    if (threadIdx.x < N) rd[threadIdx.x] = threadIdx.x < n ? real_of<T>(1.0) / L[threadIdx.x * (LP + 1)] : zero_of<T>();
    const int tr = threadIdx.x & 15, tk = threadIdx.x >> 4;
    T x[RV][R];
#pragma unroll
    for (int i = 0; i < RV; ++i) {
#pragma unroll
        for (int q = 0; q < R; ++q) x[i][q] = V[(tk + 16 * q) * VP + tr + 16 * i];
    }
    __syncthreads();
#pragma unroll
    for (int qb = 0; qb < R; ++qb) {
        const int jb = 16 * qb;
        if (jb >= n) break;
        T(*P)[17] = S[qb & 1];
#pragma unroll
        for (int i = 0; i < RV; ++i) P[tr + 16 * i][tk] = x[i][qb];
        __syncthreads();
        if (threadIdx.x < VB) {
            T y[16];
#pragma unroll
            for (int q = 0; q < 16; ++q) y[q] = P[threadIdx.x][q];
#pragma unroll
            for (int k = 0; k < 16; ++k) {
                y[k] *= rd[min(jb + k, N - 1)];
#pragma unroll
                for (int q = k + 1; q < 16; ++q) y[q] = fms(y[q], y[k], L[(jb + k) * LP + min(jb + q, N - 1)]);
            }
#pragma unroll
            for (int q = 0; q < 16; ++q) P[threadIdx.x][q] = y[q];
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < RV; ++i) x[i][qb] = P[tr + 16 * i][tk];
#pragma unroll 2
        for (int t = 0; t < 16; ++t) {
            T rv[RV], lv[R];
#pragma unroll
            for (int i = 0; i < RV; ++i) rv[i] = P[tr + 16 * i][t];
#pragma unroll
            for (int q = qb + 1; q < R; ++q) lv[q] = L[(jb + t) * LP + tk + 16 * q];
#pragma unroll
            for (int q = qb + 1; q < R; ++q) {
#pragma unroll
                for (int i = 0; i < RV; ++i) x[i][q] = fms(x[i][q], rv[i], lv[q]);
            }
        }
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < RV; ++i) {
#pragma unroll
        for (int q = 0; q < R; ++q) V[(tk + 16 * q) * VP + tr + 16 * i] = x[i][q];
    }
    __syncthreads();
    for (int t0 = 0; t0 < N * VB; t0 += G * 256) {
#pragma unroll
        for (int g = 0; g < G; ++g) {
            const int t = t0 + g * 256 + threadIdx.x;
            const int v = lower ? t % VB : t / N, k = lower ? t / VB : t % N;
            const i64 gv = v0 + v;
            if (gv < m && k < n) {
                if (lower) A[gv + (i64)k * j.ld] = V[k * VP + v];
                else A[k + gv * j.ld] = V[k * VP + v];
            }
        }
    }
}

#ifdef GPUBLAS_FAMILY_CHOL
#define CHOL_KERNELS(TAG, T) \
    extern "C" __global__ void __launch_bounds__(LEAF) sol_chol_##TAG(Sol j) { chol<T>(j); } \
    extern "C" __global__ void __launch_bounds__(256) sol_cholr4_##TAG(Sol j) { cholr<T, 4>(j); } \
    extern "C" __global__ void __launch_bounds__(256) sol_cholp4_##TAG(Sol j) { cholp<T, 4>(j); }
CHOL_KERNELS(s, float)
CHOL_KERNELS(d, double)
CHOL_KERNELS(c, float2)
CHOL_KERNELS(z, double2)
// Leaves of 65 .. 128 (complex double stops at 64). H100, double, one leaf of 128: 86.2 us
// column by column (cholr), 42.1 in blocks of 16; 1000 at once: 668 -> 319 us.
extern "C" __global__ void __launch_bounds__(256) sol_cholp8_s(Sol j) { cholp<float, 8>(j); }
extern "C" __global__ void __launch_bounds__(256) sol_cholp8_d(Sol j) { cholp<double, 8>(j); }
extern "C" __global__ void __launch_bounds__(256) sol_cholp8_c(Sol j) { cholp<float2, 8>(j); }
// The blocked Cholesky's leaves for real types: the factor with its update square added,
// then the panel beside it solved in place.
extern "C" __global__ void __launch_bounds__(288) sol_cholx_s(Sol j) { cholx<float>(j); }
extern "C" __global__ void __launch_bounds__(288) sol_cholx_d(Sol j) { cholx<double>(j); }
extern "C" __global__ void __launch_bounds__(256) sol_trsolve_s(Sol j) { trsolve<float>(j); }
extern "C" __global__ void __launch_bounds__(256) sol_trsolve_d(Sol j) { trsolve<double>(j); }
#endif
