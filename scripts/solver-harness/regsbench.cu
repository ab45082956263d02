// The register panel (`lu_regs`, sol_lu_regs8x8_d) alone, with and without its interchanges on
// the rest of a 512-column block (`lu_regs_others`): median times, and the other columns
// checked against the device's pivots applied on the CPU. Standalone, nvcc:
//   nvcc -O3 -arch=sm_90 -std=c++17 -Xptxas -v -DSOLVER_SRC='"solver_cur.cu"' regsbench.cu
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <random>
#include <cuda_runtime.h>
#define GPUBLAS_FAMILY_SOLVER
#include "../../crates/gpublas/kernels/complex_div.cuh"
#include "../../crates/gpublas/kernels/lapack.cuh"
#include "../../crates/gpublas/kernels/solver.cuh"
#include SOLVER_SRC

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA error %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)

int main(int argc, char** argv) {
    // rows, grid, then the instance (H, RR; 8 and 8 by default) and the leaf's columns (8·H).
    const int rows = argc > 1 ? atoi(argv[1]) : 8192, G = argc > 2 ? atoi(argv[2]) : 48;
    const int H = argc > 3 ? atoi(argv[3]) : 8, RR = argc > 4 ? atoi(argv[4]) : 8;
    const int width = 512, cols = argc > 5 ? atoi(argv[5]) : 8 * H, reps = 20;
    void* kern = nullptr;
    if (H == 8 && RR == 8) kern = (void*)sol_lu_regs8x8_d;
    if (H == 8 && RR == 4) kern = (void*)sol_lu_regs8x4_d;
    if (H == 4 && RR == 8) kern = (void*)sol_lu_regs4x8_d;
    if (H == 4 && RR == 4) kern = (void*)sol_lu_regs4x4_d;
#ifdef REGS_RR6
    if (H == 8 && RR == 6) kern = (void*)sol_lu_regs8x6_d;
    if (H == 4 && RR == 6) kern = (void*)sol_lu_regs4x6_d;
#endif
    if (!kern || (rows + G - 1) / G > 256 / H * RR) { printf("no such instance, or rows do not fit\n"); return 1; }
    std::mt19937_64 g(11);
    std::uniform_real_distribution<double> u(-1, 1);
    const size_t N = (size_t)rows * width;
    std::vector<double> h(N);
    for (auto& x : h) x = u(g);
    double *A, *A0; int *piv, *info; unsigned char* slots;
    const size_t slot_bytes = 8 << 20;
    CK(cudaMalloc(&A, N * 8)); CK(cudaMalloc(&A0, N * 8)); CK(cudaMalloc(&piv, width * 4));
    CK(cudaMalloc(&info, 4)); CK(cudaMalloc(&slots, slot_bytes));
    CK(cudaMemcpy(A0, h.data(), N * 8, cudaMemcpyHostToDevice));
    cudaEvent_t ea, eb; cudaEventCreate(&ea); cudaEventCreate(&eb);
    // The interchanges of a 512-column block (pivots k <= p < rows) as one gather list
    // (sol_perm) applied to its 512 columns (sol_gather_d): checked against the swaps in order.
    if (rows >= 1024) {
        const int len = 512, cap = 2 * 1024;
        std::vector<int> hp(len);
        for (int k = 0; k < len; ++k) hp[k] = k + 1 + (int)(g() % (rows - k));
        int *dp, *list;
        CK(cudaMalloc(&dp, len * 4)); CK(cudaMalloc(&list, (1 + 2 * cap) * 4));
        CK(cudaMemcpy(dp, hp.data(), len * 4, cudaMemcpyHostToDevice));
        std::vector<float> t;
        for (int i = 0; i < reps + 2; ++i) {
            CK(cudaMemcpy(A, A0, N * 8, cudaMemcpyDeviceToDevice)); CK(cudaDeviceSynchronize());
            Sol j{}; j.a = (u64)A; j.ld = rows; j.rows = rows; j.cols = width; j.piv = (u64)dp;
            j.ne = 1; j.k0 = 0; j.k1 = len; j.slots = (u64)list; j.aux = 1 + 2 * cap;
            j.grid = (2 * len + 255) / 256;
            cudaEventRecord(ea);
            sol_perm<<<j.grid, 256>>>(j);
            sol_gather_d<<<width, 256>>>(j);
            cudaEventRecord(eb); CK(cudaEventSynchronize(eb)); CK(cudaGetLastError());
            float ms; cudaEventElapsedTime(&ms, ea, eb); if (i >= 2) t.push_back(ms * 1000);
        }
        std::vector<double> o(N), ref = h;
        CK(cudaMemcpy(o.data(), A, N * 8, cudaMemcpyDeviceToHost));
        {
            std::vector<float> tp;
            Sol j{}; j.rows = rows; j.piv = (u64)dp; j.ne = 1; j.k0 = 0; j.k1 = len;
            j.slots = (u64)list; j.aux = 1 + 2 * cap; j.grid = (2 * len + 255) / 256;
            for (int i = 0; i < reps + 2; ++i) {
                cudaEventRecord(ea); sol_perm<<<j.grid, 256>>>(j); cudaEventRecord(eb); CK(cudaEventSynchronize(eb));
                float ms; cudaEventElapsedTime(&ms, ea, eb); if (i >= 2) tp.push_back(ms * 1000);
            }
            std::sort(tp.begin(), tp.end());
            printf("rows %d: perm of 512 interchanges alone %.1f us\n", rows, tp[tp.size() / 2]);
        }
        for (int k = 0; k < len; ++k)
            for (int c = 0; c < width; ++c) std::swap(ref[k + (size_t)c * rows], ref[hp[k] - 1 + (size_t)c * rows]);
        size_t bad = 0;
        for (size_t i = 0; i < N; ++i) bad += o[i] != ref[i];
        std::sort(t.begin(), t.end());
        printf("rows %d: 512 interchanges on 512 columns (perm + gather): %.1f us  %s (%zu differ)\n",
               rows, t[t.size() / 2], bad ? "WRONG" : "ok", bad);
    }
    int leaf_no = 0;
    // Few rows: one block, or blocks of a few rows each (several rounds of columns).
    for (int c0 : rows <= 2048 ? std::vector<int>{192} : std::vector<int>{0, 192, 448}) {
        for (int with : {0, 1}) {
            std::vector<float> t;
            std::vector<double> o(N); std::vector<int> p(cols);
            for (int i = 0; i < reps + 2; ++i) {
                CK(cudaMemcpy(A, A0, N * 8, cudaMemcpyDeviceToDevice)); cudaMemset(info, 0, 4);
                if (leaf_no % 200 == 0) cudaMemset(slots, 0, slot_bytes);
                CK(cudaDeviceSynchronize());
                Sol j{}; j.a = (u64)(A + (size_t)c0 * rows); j.ld = rows; j.rows = rows; j.cols = cols;
                j.piv = (u64)piv; j.info = (u64)info; j.pivot = 1; j.ne = 1; j.k0 = 0;
                j.grid = G; j.k1 = G; j.aux = leaf_no++ % 200; j.slots = (u64)slots;
                if (with) { j.uld = c0; j.ues = width - c0 - cols; }
                void* args[] = {&j};
                cudaEventRecord(ea);
                CK(cudaLaunchCooperativeKernel(kern, G, 256, args, 0, 0));
                cudaEventRecord(eb); CK(cudaEventSynchronize(eb));
                float ms; cudaEventElapsedTime(&ms, ea, eb); if (i >= 2) t.push_back(ms * 1000);
            }
            CK(cudaMemcpy(o.data(), A, N * 8, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(p.data(), piv, cols * 4, cudaMemcpyDeviceToHost));
            // REGS_DUMP=file: every case's matrix and pivots appended (to compare two builds bit for bit).
            if (const char* dump = getenv("REGS_DUMP")) {
                FILE* f = fopen(dump, "ab");
                fwrite(o.data(), 8, N, f);
                fwrite(p.data(), 4, cols, f);
                fclose(f);
            }
            // The other columns: the input with the pivots applied in order.
            std::vector<double> ref = h;
            for (int k = 0; k < cols; ++k)
                for (int c = 0; c < width; ++c)
                    if (c < c0 || c >= c0 + cols) std::swap(ref[k + (size_t)c * rows], ref[p[k] - 1 + (size_t)c * rows]);
            size_t bad = 0;
            for (int c = 0; c < width; ++c)
                if (c < c0 || c >= c0 + cols)
                    for (int r = 0; r < rows; ++r) bad += o[r + (size_t)c * rows] != ref[r + (size_t)c * rows];
            std::sort(t.begin(), t.end());
            printf("rows %d grid %d %dx%d cols %d leaf at %3d others %d: %7.1f us (min %.1f)  other columns %s (%zu differ)\n",
                   rows, G, H, RR, cols, c0, with, t[t.size() / 2], t[0], with ? (bad ? "WRONG" : "ok") : "-", bad);
#ifdef REGS_CLOCK
            // Per column, cycles between the instrumented points of a variant (block 0 and
            // block G - 1, thread 0: `regs_clk[block][column][point]`, REGS_CLOCK points).
            {
                long long c[2][64][8];
                CK(cudaMemcpyFromSymbol(c, regs_clk, sizeof c));
                for (int bb = 0; bb < (G > 1 ? 2 : 1); ++bb) {
                    double d[8] = {0};
                    int n = 0;
                    for (int k = 2; k < cols - 2; ++k, ++n) {
                        for (int s = 1; s < REGS_CLOCK; ++s) d[s - 1] += (double)(c[bb][k][s] - c[bb][k][s - 1]);
                        d[REGS_CLOCK - 1] += (double)(c[bb][k + 1][0] - c[bb][k][0]);
                    }
                    printf("   block %s cycles/column:", bb ? "last" : "0");
                    for (int s = 0; s + 1 < REGS_CLOCK; ++s) printf(" %.0f", d[s] / n);
                    printf(" | column %.0f\n", d[REGS_CLOCK - 1] / n);
                }
            }
#endif
        }
    }
}
