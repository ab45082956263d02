// LU panel over a thread-block cluster: rows in the blocks' shared memory, the per-column
// exchange through distributed shared memory and one cluster barrier per column.
#define PWC 32
__device__ __forceinline__ unsigned cl_rank() { unsigned r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r; }
__device__ __forceinline__ void cl_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ unsigned cl_map(const void* p, unsigned rank) {
    unsigned a = (unsigned)__cvta_generic_to_shared(p), r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
    return r;
}
template <class T> __device__ __forceinline__ T cl_ld(unsigned a) {
    static_assert(sizeof(T) % 4 == 0, "words");
    unsigned w[sizeof(T) / 4];
#pragma unroll
    for (int k = 0; k < (int)(sizeof(T) / 4); ++k)
        asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(w[k]) : "r"(a + 4 * k) : "memory");
    T v;
    memcpy(&v, w, sizeof(T));
    return v;
}

__device__ __forceinline__ void warp_best2(double& v, i64& i) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const double v2 = __shfl_xor_sync(0xffffffffu, v, o);
        const i64 i2 = __shfl_xor_sync(0xffffffffu, i, o);
        if (beats(v2, i2, v, i)) { v = v2; i = i2; }
    }
}

template <class T>
__device__ void lu_cl(const Sol& j) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    __shared__ T crow[2][PWC], dbuf[2][PWC];
    __shared__ double cv[2];
    __shared__ i64 ci[2];
    __shared__ T prow[PWC], drow[PWC];
    __shared__ double wv[32];
    __shared__ i64 wi[32];
    const int CS = gridDim.x;  // one cluster per matrix (ne = 1 here)
    const unsigned rank = cl_rank();
    T* A = (T*)j.a;
    int* piv = (int*)j.piv;
    int* info = (int*)j.info;
    const i64 rows = j.rows;
    const int cols = (int)j.cols;
    const i64 rpb = (rows + CS - 1) / CS;
    const i64 r0 = rank * rpb, r1 = min(rows, r0 + rpb), nr = max(r1 - r0, (i64)0);
    T* P = (T*)smem_raw;
    const i64 ldp = rpb;
    for (i64 t = threadIdx.x; t < nr * cols; t += blockDim.x) {
        i64 r = t % nr, c = t / nr;
        P[r + c * ldp] = A[r0 + r + c * j.ld];
    }
    __syncthreads();
    const int kmax = (int)min((i64)cols, rows);
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
    for (int jj = 0; jj < kmax; ++jj) {
        const int par = jj & 1;
        double best = -1.0;
        i64 bi = -1;
#ifndef LUCL_NOSEARCH
        if (j.pivot) {
#else
        if (false) {
#endif
            for (i64 r = threadIdx.x; r < nr; r += blockDim.x) {
                if (r0 + r < jj) continue;
                const double v = (double)mag(P[r + jj * ldp]);
                if (v > best) { best = v; bi = r0 + r; }
            }
            warp_best2(best, bi);
        }
        if (lane == 0) { wv[wid] = best; wi[wid] = bi; }
        __syncthreads();
        if (wid == 0) {
            double v = lane < nw ? wv[lane] : -1.0;
            i64 i = lane < nw ? wi[lane] : -1;
            warp_best2(v, i);
            if (lane == 0) { cv[par] = v; ci[par] = i; }
            for (int c = lane; c < cols; c += 32) {
                if (i >= 0) crow[par][c] = P[(i - r0) + c * ldp];
                if (jj >= r0 && jj < r1) dbuf[par][c] = P[(jj - r0) + c * ldp];
            }
        }
#ifndef LUCL_NOSYNC
        cl_sync();
#else
        __syncthreads();
#endif
        if (wid == 0) {
            double gv = -1.0;
            i64 gi = -1;
            for (int t = lane; t < CS; t += 32) {
                const double v2 = cl_ld<double>(cl_map(&cv[par], t));
                const i64 i2 = cl_ld<i64>(cl_map(&ci[par], t));
                if (beats(v2, i2, gv, gi)) { gv = v2; gi = i2; }
            }
            warp_best2(gv, gi);
            const i64 w = gi >= 0 ? gi : jj;
            const unsigned downer = (unsigned)(jj / rpb);
            for (int c = lane; c < cols; c += 32) {
                const T dv = cl_ld<T>(cl_map(&dbuf[par][c], downer));
                drow[c] = dv;
                prow[c] = gi >= 0 ? cl_ld<T>(cl_map(&crow[par][c], (unsigned)(gi / rpb))) : dv;
            }
            __syncwarp();
            const T pv = prow[jj];
            if (w != jj && !is0(pv)) {
                for (int c = lane; c < cols; c += 32) {
                    if (jj >= r0 && jj < r1) P[(jj - r0) + c * ldp] = prow[c];
                    if (w >= r0 && w < r1) P[(w - r0) + c * ldp] = drow[c];
                }
            }
            if (lane == 0 && rank == 0) {
                if (j.pivot) piv[j.k0 + jj] = (int)(j.k0 + w + 1);
                if (is0(pv) && *info == 0) *info = j.k0 + jj + 1;
            }
        }
        __syncthreads();
        const T pv = prow[jj];
#ifndef LUCL_NOUPD
        if (!is0(pv)) {
#else
        if (false) {
#endif
            for (i64 r = threadIdx.x; r < nr; r += blockDim.x) {
                if (r0 + r <= jj) continue;
                const T l = quotient(P[r + jj * ldp], pv);
                P[r + jj * ldp] = l;
                for (int c = jj + 1; c < cols; ++c) P[r + c * ldp] = fms(P[r + c * ldp], l, prow[c]);
            }
        }
    }
    // No block leaves while another may still read its exchange buffers.
    cl_sync();
    for (i64 t = threadIdx.x; t < nr * cols; t += blockDim.x) {
        i64 r = t % nr, c = t / nr;
        A[r0 + r + c * j.ld] = P[r + c * ldp];
    }
}
extern "C" __global__ void __launch_bounds__(512) sol_lucl_d(Sol j) { lu_cl<double>(j); }
