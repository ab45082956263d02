// CPU run of tsqr.cu's driver and kernels (emulated): ./test m n [kind: 0 random, 1 ill, 2 two equal columns];
// writes a0.bin and out.bin for check.py.
#include "tsqr_emu.h"
#include <cstdint>
static double urand(uint64_t i) {
    uint64_t z = i * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; z = (z ^ (z >> 27)) * 0x94d049bb133111ebull; z ^= z >> 31;
    return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}
int main(int argc, char** argv) {
    long long m = atoll(argv[1]); int n = atoi(argv[2]); int kind = argc > 3 ? atoi(argv[3]) : 0;
    std::vector<double> A(m * n);
    for (int j = 0; j < n; j++) { double sc = kind == 1 ? pow(10.0, -8.0 + 8.0 * j / (n - 1)) : 1.0;
        for (long long i = 0; i < m; i++) A[i + j * m] = urand(i + j * m + 977ull * n) * sc; }
    if (kind == 2) for (long long i = 0; i < m; i++) A[i + 17 * m] = A[i + 5 * m];
    FILE* f = fopen("a0.bin", "wb"); fwrite(A.data(), 8, m * n, f); fclose(f);
    TsqrWorkspace ws = tsqr_workspace_bytes(m, n);
    void* dws; cudaMalloc((char**)&dws, ws.total());
    std::vector<double> tau(n);
    geqrf_tsqr(A.data(), m, m, n, tau.data(), dws, ws, nullptr);
    f = fopen("out.bin", "wb"); fwrite(A.data(), 8, m * n, f); fwrite(tau.data(), 8, n, f); fclose(f);
    printf("done %lld x %d, workspace %zu\n", m, n, ws.total());
}
