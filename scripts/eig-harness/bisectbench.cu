// A/B timing of eig.cu's eigenvalue multisection (`eig_bisect_d`, `eig_bisect_s`) outside the
// library (nvcc, a GPU): random symmetric tridiagonals (d, e uniform in (-1, 1)) of the orders
// given (default 1000 4096 8192 16384), launched as src/eig/family.rs does (8 lanes an
// eigenvalue, 128 threads a block, 96 / 48 halvings' worth of steps, no scaling); median of 5
// launches between events. With `-o FILE` the eigenvalues are written to FILE; with `-r FILE`
// they are compared with FILE's (another build's): the largest |w - w_ref| / (|T| eps).
//
//   nvcc -O3 -arch=sm_90 -std=c++17 -I../../crates/gpublas/kernels -DEIG_SRC='"eig_new.cu"' bisectbench.cu -o new
//   (eig_new.cu: a copy of crates/gpublas/kernels/eig.cu; eig_old.cu: another version; from a
//   copy in another directory: this one's cuda_runtime.h is the CPU emulator's)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include <random>
#include <algorithm>
#include <string>
#include <cuda_runtime.h>
#define GPUBLAS_FAMILY_EIG
#include "complex_div.cuh"
#include "lapack.cuh"
#include EIG_SRC
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)

template <class R>
static void run(int n, const char* out, const char* ref, bool f32) {
    std::mt19937_64 g(1234 + n);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<R> d(n), e(n > 1 ? n - 1 : 1);
    for (auto& x : d) x = (R)u(g);
    for (auto& x : e) x = (R)u(g);
    R *dd, *de, *dw;
    int* info;
    CK(cudaMalloc(&dd, n * sizeof(R))); CK(cudaMalloc(&de, e.size() * sizeof(R))); CK(cudaMalloc(&dw, n * sizeof(R)));
    CK(cudaMalloc(&info, 4));
    CK(cudaMemcpy(dd, d.data(), n * sizeof(R), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(de, e.data(), e.size() * sizeof(R), cudaMemcpyHostToDevice));
    Bisectp p{};
    p.d = (u64)dd; p.e = (u64)de; p.w = (u64)dw; p.amax = 0; p.info = (u64)info; p.n = n; p.iters = f32 ? 48 : 96;
    const unsigned lanes = 8u * n, grid = (lanes + 127) / 128;
    auto launch = [&] { if (f32) eig_bisect_s<<<grid, 128>>>(p); else eig_bisect_d<<<grid, 128>>>(p); };
    launch();
    CK(cudaDeviceSynchronize());
    std::vector<float> ts;
    cudaEvent_t a, b;
    cudaEventCreate(&a); cudaEventCreate(&b);
    for (int r = 0; r < 5; ++r) {
        cudaEventRecord(a); launch(); cudaEventRecord(b); CK(cudaEventSynchronize(b));
        float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms);
    }
    std::sort(ts.begin(), ts.end());
    std::vector<R> w(n);
    CK(cudaMemcpy(w.data(), dw, n * sizeof(R), cudaMemcpyDeviceToHost));
    int inf; CK(cudaMemcpy(&inf, info, 4, cudaMemcpyDeviceToHost));
    bool asc = true;
    for (int i = 1; i < n; ++i) asc = asc && w[i - 1] <= w[i];
    double tn = 0;
    for (int i = 0; i < n; ++i) tn = fmax(tn, fabs((double)d[i]) + (i ? fabs((double)e[i - 1]) : 0) + (i + 1 < n ? fabs((double)e[i]) : 0));
    // the trace against the sum of the eigenvalues (an independent check of the whole set)
    double tr = 0, sw = 0;
    for (int i = 0; i < n; ++i) { tr += d[i]; sw += w[i]; }
    const double eps = f32 ? 0x1p-23 : 0x1p-52;
    printf("bisect %s n %6d: %9.3f ms  info %d  ascending %s  |trace - sum w| / (n |T| eps) %.3g", f32 ? "f32" : "f64", n, ts[2], inf,
           asc ? "yes" : "NO", fabs(tr - sw) / (n * tn * eps));
    std::string tag = std::string(f32 ? "s" : "d") + std::to_string(n);
    if (out) {
        FILE* f = fopen((std::string(out) + "." + tag).c_str(), "wb");
        fwrite(w.data(), sizeof(R), n, f); fclose(f);
    }
    if (ref) {
        std::vector<R> wr(n);
        FILE* f = fopen((std::string(ref) + "." + tag).c_str(), "rb");
        if (f && fread(wr.data(), sizeof(R), n, f) == (size_t)n) {
            double md = 0;
            for (int i = 0; i < n; ++i) md = fmax(md, fabs((double)w[i] - (double)wr[i]));
            printf("  against %s: max |w - w_ref| / (|T| eps) %.3g", ref, md / (tn * eps));
        } else printf("  (no %s)", ref);
        if (f) fclose(f);
    }
    printf("\n");
    cudaFree(dd); cudaFree(de); cudaFree(dw); cudaFree(info);
}

int main(int argc, char** argv) {
    const char* out = nullptr;
    const char* ref = nullptr;
    std::vector<int> ns;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "-r") && i + 1 < argc) ref = argv[++i];
        else ns.push_back(atoi(argv[i]));
    }
    if (ns.empty()) ns = {1000, 4096, 8192, 16384};
    for (int n : ns) run<double>(n, out, ref, false);
    for (int n : ns) run<float>(n, out, ref, true);
    return 0;
}
