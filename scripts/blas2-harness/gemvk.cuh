// The gemv kernel shapes gemvbench.cu times (device code only, so NVRTC can check it too).
typedef long long i64;

template <class T> union Pack { uint4 q; T e[16 / sizeof(T)]; };

// Op N: a block owns 256 * V * RS rows; each thread V consecutive rows, RS times at a stride
// of 256 * V; it walks the columns of its split U at a time (U * RS loads of 16 B in flight).
template <class T, int U, int RS, int LB, int LD = 0>
__global__ void __launch_bounds__(256, LB) gemv_n(const T* __restrict__ a, i64 lda, int m, int n, const T* __restrict__ x, T* __restrict__ part, int cps) {
    const int V = 16 / sizeof(T);
    const i64 r0 = (i64)blockIdx.x * 256 * V * RS + threadIdx.x * V;
    const int c0 = blockIdx.y * cps, c1 = min(n, c0 + cps);
    T acc[RS][V];
#pragma unroll
    for (int k = 0; k < RS; k++)
#pragma unroll
        for (int v = 0; v < V; v++) acc[k][v] = 0;
    for (int c = c0; c < c1; c += U) {
        Pack<T> p[U][RS]; T xc[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            xc[u] = __ldg(x + c + u);
            const T* col = a + (i64)(c + u) * lda + r0;
#pragma unroll
            for (int k = 0; k < RS; k++) p[u][k].q = LD ? __ldg((const uint4*)(col + k * 256 * V)) : __ldcs((const uint4*)(col + k * 256 * V));
        }
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
            for (int k = 0; k < RS; k++)
#pragma unroll
                for (int v = 0; v < V; v++) acc[k][v] = fma(p[u][k].e[v], xc[u], acc[k][v]);
    }
    T* out = part + (i64)blockIdx.y * m + r0;
#pragma unroll
    for (int k = 0; k < RS; k++)
#pragma unroll
        for (int v = 0; v < V; v++) out[k * 256 * V + v] = acc[k][v];
}

template <class T>
__global__ void sum_parts(const T* part, int m, int np, T* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    T s = 0;
    for (int p = 0; p < np; p++) s += part[(i64)p * m + i];
    y[i] = s;
}

// Op T: a warp owns CW columns; per step the lanes read 512 B of x once and of each column.
// With gridDim.y = S > 1 the rows split S ways (blockIdx.y = split; cuBLAS's gemv2T splits 8
// ways) and y[split * n + column] holds S partial dots for sum_parts.
template <class T, int U, int CW, int LD = 0, bool STAGGER = false>
__global__ void __launch_bounds__(256) gemv_t(const T* __restrict__ a, i64 lda, int m, int n, const T* __restrict__ x, T* __restrict__ y) {
    const int V = 16 / sizeof(T);
    const int lane = threadIdx.x & 31;
    const int c0 = (blockIdx.x * 8 + threadIdx.x / 32) * CW;
    if (c0 >= n) return;
    T acc[CW];
#pragma unroll
    for (int w = 0; w < CW; w++) acc[w] = 0;
    const int all = m / (32 * V * U), per = (all + (int)gridDim.y - 1) / (int)gridDim.y;
    const int first = (int)blockIdx.y * per, nck = max(0, min(all, first + per) - first);
    const int k0 = STAGGER && nck ? (c0 * 5) % nck : 0;
    for (int t = 0; t < nck; t++) {
        int kk = k0 + t; if (kk >= nck) kk -= nck;
        const int r = (first + kk) * 32 * V * U + lane * V;
        Pack<T> xa[U], p[U][CW];
#pragma unroll
        for (int u = 0; u < U; u++) {
            xa[u].q = __ldg((const uint4*)(x + r + u * 32 * V));
#pragma unroll
            for (int w = 0; w < CW; w++) { const uint4* q = (const uint4*)(a + (i64)(c0 + w) * lda + r + u * 32 * V); p[u][w].q = LD ? __ldg(q) : __ldcs(q); }
        }
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
            for (int w = 0; w < CW; w++)
#pragma unroll
                for (int v = 0; v < V; v++) acc[w] = fma(p[u][w].e[v], xa[u].e[v], acc[w]);
    }
#pragma unroll
    for (int w = 0; w < CW; w++) {
        T s = acc[w];
        for (int d = 16; d > 0; d >>= 1) s += __shfl_xor_sync(0xffffffffu, s, d);
        if (lane == 0) y[(i64)blockIdx.y * n + c0 + w] = s;
    }
}

// The library's sweep layout: tr = 32 threads down a column (V elements, RS = 4 steps of 512 B),
// tc = 8 warps on different columns, CU = 2 columns per warp per step; row sums combined across
// the warps in shared memory. LD as above; MASK: the library's per-element existence bits.
template <class T, int LD, bool MASK>
__global__ void __launch_bounds__(256, 2) sweep_lib(const T* __restrict__ a, i64 lda, int m, int n, const T* __restrict__ x, T* __restrict__ part, int cps, i64 kl, i64 ku) {
    const int V = 16 / sizeof(T);
    const int RS = 4, tr = 32, tc = 8, CU = 2;
    __shared__ T red[256 * (16 / sizeof(T)) * 4];
    const int lr = threadIdx.x % tr, lc = threadIdx.x / tr;
    const i64 RB = (i64)tr * V * RS;
    const i64 r0 = (i64)blockIdx.x * RB;
    const i64 c0 = blockIdx.y * (i64)cps, c1 = min((i64)n, c0 + cps);
    T acc[RS][16 / sizeof(T)];
#pragma unroll
    for (int k = 0; k < RS; k++)
#pragma unroll
        for (int v = 0; v < V; v++) acc[k][v] = 0;
    for (i64 cb = c0; cb < c1; cb += CU * tc) {
        T xc[CU]; Pack<T> p[CU][RS]; unsigned ex[CU][RS];
#pragma unroll
        for (int u = 0; u < CU; u++) {
            const i64 c = cb + u * tc + lc;
            const bool live = c < c1;
            xc[u] = live ? __ldg(x + c) : (T)0;
            const T* col = a + (live ? c : c0) * lda;
            const i64 lo = live ? max((i64)0, c - ku) : 0, hi = live ? min((i64)m, c + kl + 1) : 0;
#pragma unroll
            for (int k = 0; k < RS; k++) {
                const i64 i0 = r0 + k * tr * V + lr * V;
                if (!MASK || (i0 >= lo && i0 + V <= hi && ((unsigned long long)(col + i0) & 15) == 0)) {
                    const uint4* q = (const uint4*)(col + i0);
                    p[u][k].q = LD ? __ldg(q) : __ldcs(q);
                    ex[u][k] = (1u << V) - 1;
                } else {
                    ex[u][k] = 0;
#pragma unroll
                    for (int v = 0; v < V; v++) { p[u][k].e[v] = 0; if (i0 + v >= lo && i0 + v < hi) { p[u][k].e[v] = __ldg(col + i0 + v); ex[u][k] |= 1u << v; } }
                }
            }
        }
#pragma unroll
        for (int u = 0; u < CU; u++)
#pragma unroll
            for (int k = 0; k < RS; k++)
#pragma unroll
                for (int v = 0; v < V; v++) {
                    if (MASK && !(ex[u][k] >> v & 1)) continue;
                    acc[k][v] = fma(p[u][k].e[v], xc[u], acc[k][v]);
                }
    }
#pragma unroll
    for (int k = 0; k < RS; k++)
#pragma unroll
        for (int v = 0; v < V; v++) red[lc * RB + k * tr * V + lr * V + v] = acc[k][v];
    __syncthreads();
    for (int r = threadIdx.x; r < RB; r += blockDim.x) {
        T t = 0;
        for (int c = 0; c < tc; c++) t += red[c * RB + r];
        part[(i64)blockIdx.y * m + r0 + r] = t;
    }
}
