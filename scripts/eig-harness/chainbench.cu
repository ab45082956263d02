// Stage 1's chain between a panel's X = A22 VT and the next panel's head (f64, kd 32), as the
// library runs it (cuBLAS here: M = VT^T X, W = X - 1/2 Vf M in X's place, Vf's copy, the next
// panel's columns A22[:, 0:32] -= [Vf W] [W Vf](0:32, :)^T) against two fused kernels:
//   k1: per block of 64 rows the partial VT_rows^T X_rows; the last block to finish (a
//       counter) sums the partials in block order into M and makes W0 = X(0:32) - 1/2 Vf(0:32) M;
//   k2: per block of rows W = X - 1/2 Vf M in place, Vf's copy, and the rows of the next panel's
//       columns, A(r, 0:32) -= Vf(r) W0^T + W(r) Vf(0:32)^T.
// Both chains from the same inputs; the outputs compared, then each timed (median of 21).
// nvcc -O3 -arch=sm_90 -std=c++17 chainbench.cu -lcublas -o chainbench && ./chainbench
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                 \
    do {                                                                      \
        auto e_ = (x);                                                        \
        if ((int)e_ != 0) {                                                   \
            printf("error %d at %s:%d\n", (int)e_, __FILE__, __LINE__);       \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

constexpr int KD = 32;
constexpr int ROWS1 = 64;  // rows a block of k1
constexpr int ROWS2 = 32;  // rows a block of k2
constexpr int THREADS = 256;

struct ChainP {
    const double* vt;  // pm x 32, ld pm
    double* x;         // [Vf | X | Vf2], each pm x 32, ld pm: X at x, Vf at x - 32 pm
    double* a;         // A22's first 32 columns, ld lda
    long pm, lda;
    double* part;      // blocks x 32 x 32 partials
    double* m;         // 32 x 32 (M), then 32 x 32 (W0)
    unsigned* count;   // blocks done (the last resets it)
};

// k1: the partial VT_rows^T X_rows (thread t: entries t, t + 256, ..., of the 32 x 32, rows in
// order), then the last block sums the partials in block order (each thread its entries) into M
// and makes W0.
__global__ void __launch_bounds__(THREADS) k1(ChainP p) {
    constexpr int ROWS = ROWS1;
    __shared__ double sv[ROWS][KD + 1], sx[ROWS][KD + 1];
    __shared__ bool last;
    const long r0 = (long)blockIdx.x * ROWS;
    const int nr = p.pm - r0 < ROWS ? (int)(p.pm - r0) : ROWS;
    for (int e = threadIdx.x; e < ROWS * KD; e += THREADS) {
        const int i = e % ROWS, j = e / ROWS;
        sv[i][j] = i < nr ? p.vt[r0 + i + (long)j * p.pm] : 0.0;
        sx[i][j] = i < nr ? p.x[r0 + i + (long)j * p.pm] : 0.0;
    }
    __syncthreads();
    for (int e = threadIdx.x; e < KD * KD; e += THREADS) {
        const int i = e % KD, j = e / KD;
        double s0 = 0.0, s1 = 0.0;
#pragma unroll 4
        for (int r = 0; r < ROWS; r += 2) {
            s0 = fma(sv[r][i], sx[r][j], s0);
            s1 = fma(sv[r + 1][i], sx[r + 1][j], s1);
        }
        p.part[(long)blockIdx.x * KD * KD + e] = s0 + s1;
    }
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(p.count, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    __shared__ double sm[KD][KD + 1];
    for (int e = threadIdx.x; e < KD * KD; e += THREADS) {
        // (four sums over the blocks b = q mod 4, then in order: a fixed order, loads ahead)
        double q[4] = {0.0, 0.0, 0.0, 0.0};
        unsigned b = 0;
        for (; b + 4 <= gridDim.x; b += 4)
#pragma unroll
            for (int u = 0; u < 4; u++) q[u] += __ldcg(p.part + (long)(b + u) * KD * KD + e);
        for (; b < gridDim.x; b++) q[b % 4] += __ldcg(p.part + (long)b * KD * KD + e);
        const double s = (q[0] + q[1]) + (q[2] + q[3]);
        sm[e % KD][e / KD] = s;
        p.m[e] = s;
    }
    __syncthreads();
    // W0 = X(0:32, :) - 1/2 Vf(0:32, :) M
    const double* vf = p.x - KD * p.pm;
    for (int e = threadIdx.x; e < KD * KD; e += THREADS) {
        const int i = e % KD, j = e / KD;
        double s = 0.0;
        for (int k = 0; k < KD; k++) s = fma(vf[i + (long)k * p.pm], sm[k][j], s);
        p.m[KD * KD + e] = fma(-0.5, s, p.x[i + (long)j * p.pm]);
    }
    if (threadIdx.x == 0) *p.count = 0;
}

// k2: rows of W, Vf's copy, the next panel's columns. Thread t of a block: row t % 32 of the
// block, columns (t / 32) * 4 .. + 4.
__global__ void __launch_bounds__(THREADS) k2(ChainP p) {
    constexpr int ROWS = ROWS2, CPT = KD * ROWS / THREADS;
    __shared__ double sm[KD][KD + 1], sw0[KD][KD + 1], svf0[KD][KD + 1];
    __shared__ double svf[ROWS][KD + 1], sw[ROWS][KD + 1];
    const long r0 = (long)blockIdx.x * ROWS;
    const int nr = p.pm - r0 < ROWS ? (int)(p.pm - r0) : ROWS;
    const double* vf = p.x - KD * p.pm;
    double* vf2 = p.x + KD * p.pm;
    for (int e = threadIdx.x; e < KD * KD; e += THREADS) {
        const int i = e % KD, j = e / KD;
        sm[i][j] = p.m[e];
        sw0[i][j] = p.m[KD * KD + e];
        svf0[i][j] = vf[i + (long)j * p.pm];
    }
    for (int e = threadIdx.x; e < ROWS * KD; e += THREADS) {
        const int i = e % ROWS, j = e / ROWS;
        if (i < nr) {
            const double v = vf[r0 + i + (long)j * p.pm];
            svf[i][j] = v;
            vf2[r0 + i + (long)j * p.pm] = v;
        }
    }
    __syncthreads();
    const int i = threadIdx.x % ROWS, c0 = (threadIdx.x / ROWS) * CPT;
    if (i < nr) {
        const long r = r0 + i;
        // W(r, c) = X(r, c) - 1/2 sum_k Vf(r, k) M(k, c)
        for (int c = c0; c < c0 + CPT; c++) {
            double s = 0.0;
#pragma unroll 8
            for (int k = 0; k < KD; k++) s = fma(svf[i][k], sm[k][c], s);
            const double w = fma(-0.5, s, p.x[r + (long)c * p.pm]);
            sw[i][c] = w;
            p.x[r + (long)c * p.pm] = w;
        }
    }
    __syncthreads();
    if (i < nr) {
        const long r = r0 + i;
        // A(r, c) -= sum_k Vf(r, k) W0(c, k) + W(r, k) Vf0(c, k)
        for (int c = c0; c < c0 + CPT; c++) {
            double s = 0.0;
#pragma unroll 8
            for (int k = 0; k < KD; k++) s = fma(svf[i][k], sw0[c][k], fma(sw[i][k], svf0[c][k], s));
            p.a[r + (long)c * p.lda] -= s;
        }
    }
}

int main() {
    cublasHandle_t h;
    CK(cublasCreate(&h));
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    printf("%6s %12s %12s %8s %8s %10s %10s\n", "pm", "cublas us", "fused us", "k1 us", "k2 us", "err A", "err W");
    for (long pm : {4000L, 3000L, 2000L, 1000L, 8000L}) {
        const long lda = pm + 8;
        const long blocks = (pm + ROWS1 - 1) / ROWS1, blocks2 = (pm + ROWS2 - 1) / ROWS2;
        std::vector<double> ha(lda * KD), hs(3 * pm * KD), hvt(pm * KD);
        srand(7);
        auto u = [] { return rand() / (double)RAND_MAX - 0.5; };
        for (auto& v : ha) v = u();
        for (auto& v : hs) v = u();
        for (auto& v : hvt) v = u();
        double *a, *s, *vt, *a2, *s2, *part, *m, *mref;
        unsigned* count;
        CK(cudaMalloc(&a, ha.size() * 8));
        CK(cudaMalloc(&a2, ha.size() * 8));
        CK(cudaMalloc(&s, hs.size() * 8));
        CK(cudaMalloc(&s2, hs.size() * 8));
        CK(cudaMalloc(&vt, hvt.size() * 8));
        CK(cudaMalloc(&part, blocks * KD * KD * 8));
        CK(cudaMalloc(&m, 2 * KD * KD * 8));
        CK(cudaMalloc(&mref, KD * KD * 8));
        CK(cudaMalloc(&count, 4));
        CK(cudaMemset(count, 0, 4));
        CK(cudaMemcpy(vt, hvt.data(), hvt.size() * 8, cudaMemcpyHostToDevice));
        auto reset = [&] {
            CK(cudaMemcpy(a, ha.data(), ha.size() * 8, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(s, hs.data(), hs.size() * 8, cudaMemcpyHostToDevice));
        };
        const double one = 1.0, zero = 0.0, mhalf = -0.5, mone = -1.0;
        double* vf = s;
        double* x = s + KD * pm;
        double* vf2 = s + 2 * KD * pm;
        auto ref_chain = [&] {
            cublasDgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, KD, KD, pm, &one, vt, pm, x, pm, &zero, mref, KD);
            cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, pm, KD, KD, &mhalf, vf, pm, mref, KD, &one, x, pm);
            cudaMemcpyAsync(vf2, vf, pm * KD * 8, cudaMemcpyDeviceToDevice);
            // A(:, 0:32) -= [Vf X] [X Vf](0:32, :)^T
            cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, pm, KD, 2 * KD, &mone, vf, pm, x, pm, &one, a, lda);
        };
        ChainP p{vt, x, a, pm, lda, part, m, count};
        auto fused = [&] {
            k1<<<blocks, THREADS>>>(p);
            k2<<<blocks2, THREADS>>>(p);
        };
        reset();
        ref_chain();
        CK(cudaDeviceSynchronize());
        std::vector<double> ra(ha.size()), rs(hs.size()), fa(ha.size()), fs(hs.size());
        CK(cudaMemcpy(ra.data(), a, ra.size() * 8, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(rs.data(), s, rs.size() * 8, cudaMemcpyDeviceToHost));
        reset();
        fused();
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(fa.data(), a, fa.size() * 8, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(fs.data(), s, fs.size() * 8, cudaMemcpyDeviceToHost));
        double ea = 0, na = 0, ew = 0, nw = 0;
        for (long j = 0; j < KD; j++)
            for (long i = 0; i < pm; i++) {
                ea = std::max(ea, std::fabs(fa[i + j * lda] - ra[i + j * lda]));
                na = std::max(na, std::fabs(ra[i + j * lda]));
            }
        for (size_t e = 0; e < fs.size(); e++) {
            ew = std::max(ew, std::fabs(fs[e] - rs[e]));
            nw = std::max(nw, std::fabs(rs[e]));
        }
        auto timeit = [&](auto f) {
            std::vector<float> t;
            for (int r = 0; r < 21; r++) {
                reset();
                cudaEventRecord(e0);
                f();
                cudaEventRecord(e1);
                cudaEventSynchronize(e1);
                float ms;
                cudaEventElapsedTime(&ms, e0, e1);
                t.push_back(ms * 1000);
            }
            std::sort(t.begin(), t.end());
            return t[10];
        };
        const float tr = timeit(ref_chain), tf = timeit(fused);
        const float t1 = timeit([&] { k1<<<blocks, THREADS>>>(p); });
        const float t2 = timeit([&] { k2<<<blocks2, THREADS>>>(p); });
        printf("%6ld %12.1f %12.1f %8.1f %8.1f %10.1e %10.1e\n", pm, tr, tf, t1, t2, ea / na, ew / nw);
        cudaFree(a); cudaFree(a2); cudaFree(s); cudaFree(s2); cudaFree(vt); cudaFree(part); cudaFree(m);
        cudaFree(mref); cudaFree(count);
    }
    return 0;
}
