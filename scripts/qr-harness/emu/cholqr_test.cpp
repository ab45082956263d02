// CPU run of cholqr.cu's driver and kernels (emulated): ./cholqr_test m n [kind] [maxgrid]
// kind: 0 random, 1 columns scaled 1e-8 .. 1, 2 two equal columns, 3 a NaN, 4 a zero column.
// Prints "fallback" (A must be untouched) or writes a0.bin and out.bin for check.py.
#include "cholqr_cuda.h"
#include "../cholqr.cu"
#include <cstdint>
static double urand(uint64_t i) {
    uint64_t z = i * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; z = (z ^ (z >> 27)) * 0x94d049bb133111ebull; z ^= z >> 31;
    return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}
int main(int argc, char** argv) {
    long long m = atoll(argv[1]); int n = atoi(argv[2]); int kind = argc > 3 ? atoi(argv[3]) : 0;
    int maxgrid = argc > 4 ? atoi(argv[4]) : 3;
    std::vector<double> A(m * n);
    for (int j = 0; j < n; j++) { double sc = kind == 1 ? pow(10.0, -8.0 + 8.0 * j / (n > 1 ? n - 1 : 1)) : 1.0;
        for (long long i = 0; i < m; i++) A[i + j * m] = urand(i + j * m + 977ull * n) * sc; }
    if (kind == 2) for (long long i = 0; i < m; i++) A[i + 17 * m] = A[i + 5 * m];
    if (kind == 3) A[m / 2 + (n / 3) * m] = NAN;
    if (kind == 4) for (long long i = 0; i < m; i++) A[i + (n / 2) * m] = 0.0;
    FILE* f = fopen("a0.bin", "wb"); fwrite(A.data(), 8, m * n, f); fclose(f);
    std::vector<double> A0 = A;
    CholqrPlan pl = cholqr_plan(m, n, maxgrid);
    void* dws; cudaMalloc((char**)&dws, pl.total());
    std::vector<double> tau(n, NAN);
    cholqr(A.data(), m, m, n, tau.data(), dws, pl, nullptr);
    int fb = *cq_carve(dws).flag;
    printf("%lld x %d kind %d: panel %d, %lld tiles, grid %d, workspace %zu B: %s\n", m, n, kind, pl.nc, pl.tiles, pl.grid, pl.total(),
           fb ? "fallback" : "cholqr");
    if (fb) {
        printf("A untouched: %s\n", memcmp(A.data(), A0.data(), 8 * m * n) ? "NO" : "yes");
        return 3;
    }
    f = fopen("out.bin", "wb"); fwrite(A.data(), 8, m * n, f); fwrite(tau.data(), 8, n, f); fclose(f);
}
