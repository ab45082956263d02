// CPU run of the library's CholeskyQR2 kernels (cholqr_emu.h from gen.py), launched as
// crates/gpublas/src/qr/cuda.rs::launch_cholqr does for one chunk of ne entries.
// usage: cholqr_lib_test in.bin out.bin
//  in:  int64 m, n, lda, ne, es, cq_blocks, tau_s; then ne * es doubles (A, entry e at e * es,
//       column-major, ld lda), then ne * tau_s doubles (tau).
//  out: the A and tau buffers after the run, then int64 per entry: flag (| 0x100 when chol1 set
//       it, else lu did), then int64 emu_oob.
#include "cholqr_emu.h"
#include <cassert>
#include <algorithm>

static int cq_nc(int n) { return n <= 16 ? 16 : n <= 32 ? 32 : 64; }
static long long cq_part(int nc) { long long t = nc / 4; return t * (t + 1) / 2 * 16; }
static size_t entry_bytes(long long blocks, int nc) {
    size_t b = 3 * 64 * 64 * 8 + 256 + blocks * (cq_part(nc) + 1) * 8;
    return (b + 255) / 256 * 256;
}

#define LAUNCH_ALL(NC)                                                                                        \
    do {                                                                                                      \
        const size_t tile = 128 * (NC + 4) * 8, solve = (128 * (NC + 4) + NC * (NC + 4) + NC) * 8;    \
        emu_launch(qr_cqgram##NC##_d, dim3(nblk, ne), dim3(256), tile, p);                                   \
        emu_launch(qr_cqreduce##NC##_d, dim3(rb, ne), dim3(256), 0, p);                                       \
        emu_launch(qr_cqchol1##NC##_d, dim3(ne), dim3(256), 64 * 65 * 8, p);                                  \
        for (int e = 0; e < ne; e++) after_chol1[e] = flag_of(e);                                             \
        emu_launch(qr_cqsolve##NC##_d, dim3(nblk, ne), dim3(256), solve, p);                                  \
        emu_launch(qr_cqreduce2##NC##_d, dim3(rb, ne), dim3(256), 0, p);                                      \
        emu_launch(qr_cqlu##NC##_d, dim3(ne), dim3(256), lu, p);                                              \
        emu_launch(qr_cqfinish##NC##_d, dim3(nblk, ne), dim3(256), solve, p);                                 \
    } while (0)

static char* g_ws; static size_t g_ws_s;
static long long flag_of(int e) { return *(int*)(g_ws + e * g_ws_s + 3 * 64 * 64 * 8); }
static long long after_chol1[64];

int main(int argc, char** argv) {
    if (argc != 3) { fprintf(stderr, "usage: %s in.bin out.bin\n", argv[0]); return 2; }
    FILE* f = fopen(argv[1], "rb");
    long long h[7];
    if (fread(h, 8, 7, f) != 7) return 2;
    const long long m = h[0], lda = h[2], es = h[4], tau_s = h[6];
    const int n = (int)h[1], ne = (int)h[3], cqb = (int)h[5];
    std::vector<double> A(ne * es), tau(ne * tau_s);
    if (fread(A.data(), 8, A.size(), f) != A.size() || fread(tau.data(), 8, tau.size(), f) != tau.size()) return 2;
    fclose(f);
    const int nc = cq_nc(n);
    const long long tiles = (m + 127) / 128;
    const int nblk = (int)std::max<long long>(1, std::min<long long>(tiles, cqb));
    const size_t ws_s = entry_bytes(cqb, nc);
    std::vector<double> ws(ws_s / 8 * ne + 32);
    double* wsp = (double*)(((uintptr_t)ws.data() + 255) & ~(uintptr_t)255);
    for (size_t i = 0; i < ws_s / 8 * ne; i++) wsp[i] = NAN;
    g_ws = (char*)wsp; g_ws_s = ws_s;
    Cqp p;
    p.a = (u64)A.data(); p.ld = lda; p.es = es;
    p.ws = (u64)wsp; p.ws_s = (i64)ws_s;
    p.tau = (u64)tau.data(); p.tau_s = tau_s;
    p.rows = m; p.tiles = tiles;
    p.cols = n; p.nblk = nblk; p.ne = ne; p.part = (int)cq_part(nc);
    const unsigned rb = (unsigned)((cq_part(nc) + 63) / 64);
    const size_t lu = (64 * 68 + 64 * 68 + 64 + 2 * 64 * 65) * 8;
    fprintf(stderr, "cholqr.cu blob %s: m %lld n %d lda %lld ne %d es %lld nc %d tiles %lld nblk %d ws_s %zu mma %d fix %d\n", EMU_SRC_BLOB, m, n, lda, ne, es, nc,
            tiles, nblk, ws_s, EMU_MMA, EMU_FIX_CHOL1);
    if (nc == 16) LAUNCH_ALL(16);
    else if (nc == 32) LAUNCH_ALL(32);
    else LAUNCH_ALL(64);
    f = fopen(argv[2], "wb");
    fwrite(A.data(), 8, A.size(), f);
    fwrite(tau.data(), 8, tau.size(), f);
    for (int e = 0; e < ne; e++) {
        long long fl = flag_of(e) | (after_chol1[e] == 1 ? 0x100 : 0);   // 0x100: set by chol1 (else by lu)
        fwrite(&fl, 8, 1, f);
    }
    long long oob = emu_oob;
    fwrite(&oob, 8, 1, f);
    fclose(f);
    return 0;
}
