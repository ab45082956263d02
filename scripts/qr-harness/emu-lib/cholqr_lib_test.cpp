// CPU run of the library's CholeskyQR2 kernels (cholqr_emu.h from gen.py), launched as
// crates/gpublas/src/qr/cuda.rs::launch_cholqr does for one chunk of ne entries.
// usage: cholqr_lib_test in.bin out.bin
//  in:  int64 m, n, lda, ne, es, cq_blocks, tau_s; then ne * es doubles (A, entry e at e * es,
//       column-major, ld lda), then ne * tau_s doubles (tau).
//       Optional extension (Vf/T outputs, cq_tfall), read when the file goes on:
//       int64 mode, vf_ld, vf_es, vf_n, t_ld, t_es, t_n; mode bits: 1 p.vf/p.t set (else 0),
//       2 launch qr_cqtfall after finish, 4 emulate the gated Householder panel (entries whose
//       flag is set get the panel's A and tau from the file before tfall), 8 VT (Cqp.vt): three
//       more int64 vt_ld, vt_es, vt_n follow t_n; then (mode & 4)
//       ne * es doubles (the panel's A buffer) and ne * tau_s doubles (its tau); then (mode & 1)
//       vf_n doubles (Vf's buffer, poisoned by the caller) and t_n doubles (T's buffer); then
//       (mode & 8) vt_n doubles (VT's buffer). Mode 1 without 8 passes p.vt = 0 (a source with
//       Cqp.vt then writes through a null pointer: the caller must ask for 8 with 1).
//  Reduce launches: skipped where the source fuses them (EMU_SRC_FUSE) and nblk * part <=
//  CQ_FUSE_MAX, as qr/cuda.rs does; env EMU_REDUCE=1 launches them anyway.
//  out: the A and tau buffers after the run, then int64 per entry: flag (| 0x100 when chol1 set
//       it, else lu did), then int64 emu_oob; then (mode & 1) the Vf and T buffers, (mode & 8)
//       the VT buffer.
#ifdef EMU_HDR   // another generated header (gen.py SRC OUT), e.g. of a version before Cqp.vf
#include EMU_HDR
#else
#include "cholqr_emu.h"
#endif
#ifndef EMU_NO_VF  // 1: the source has no Cqp.vf / qr_cqtfall (the extension then must not ask for them)
#define EMU_NO_VF 0
#endif
#ifndef EMU_NO_VT  // 1: the source has no Cqp.vt (a version before VT; novt.py)
#define EMU_NO_VT EMU_NO_VF
#endif
#ifndef EMU_SRC_FUSE  // headers from gen.py before EMU_SRC_FUSE
#define EMU_SRC_FUSE 0
#endif
#include <cassert>
#include <algorithm>
#include <cstdlib>
#include <cstring>
// qr/cuda.rs's CQ_FUSE_MAX: where the source fuses the reduce (EMU_SRC_FUSE) and nblk * part <=
// this, cq_reduce / cq_reduce2 are not launched (cq_chol1 / cq_lu sum the partials). Env
// EMU_REDUCE=1 launches them anyway (the old sequence; the fused kernels then ignore G and the
// mask: results must be bit-identical); sources without FUSE_MAX always get them.
static constexpr long long CQ_FUSE_MAX = 65536;
#if EMU_SRC_FUSE
static_assert(CQ_FUSE_MAX == cq::FUSE_MAX, "cuda.rs's CQ_FUSE_MAX vs cholqr.cu's FUSE_MAX");
#endif

static int cq_nc(int n) { return n <= 16 ? 16 : n <= 32 ? 32 : 64; }
static constexpr long long cq_part(int nc) { long long t = nc / 4; return t * (t + 1) / 2 * 16; }
static_assert(cq_part(16) == cq::Cfg<16>::PART && cq_part(32) == cq::Cfg<32>::PART && cq_part(64) == cq::Cfg<64>::PART,
              "plan.rs's cq_part (Cqp.part) vs Cfg<NC>::PART");
static size_t entry_bytes(long long blocks, int nc) {
    size_t b = 3 * 64 * 64 * 8 + 256 + blocks * (cq_part(nc) + 1) * 8;
    return (b + 255) / 256 * 256;
}

#if EMU_NO_VF
#define LAUNCH_TFALL(NC) (fprintf(stderr, "emu: no qr_cqtfall in this source\n"), exit(2))
#else
#define LAUNCH_TFALL(NC) emu_launch(qr_cqtfall##NC##_d, dim3(ne), dim3(256), lu, p)
#endif
#define LAUNCH_ALL(NC)                                                                                        \
    do {                                                                                                      \
        const size_t tile = 128 * (NC + 4) * 8, solve = (128 * (NC + 4) + NC * (NC + 4) + NC) * 8;    \
        emu_launch(qr_cqgram##NC##_d, dim3(nblk, ne), dim3(256), tile, p);                                   \
        if (!fuse) emu_launch(qr_cqreduce##NC##_d, dim3(rb, ne), dim3(256), 0, p);                            \
        emu_launch(qr_cqchol1##NC##_d, dim3(ne), dim3(256), 64 * 65 * 8, p);                                  \
        for (int e = 0; e < ne; e++) after_chol1[e] = flag_of(e);                                             \
        emu_launch(qr_cqsolve##NC##_d, dim3(nblk, ne), dim3(256), solve, p);                                  \
        if (!fuse) emu_launch(qr_cqreduce2##NC##_d, dim3(rb, ne), dim3(256), 0, p);                           \
        emu_launch(qr_cqlu##NC##_d, dim3(ne), dim3(256), lu, p);                                              \
        emu_launch(qr_cqfinish##NC##_d, dim3(nblk, ne), dim3(256), solve, p);                                 \
        if (mode & 4)  /* the gated Householder panel: dgeqrf's result where the flag is set */                \
            for (int e = 0; e < ne; e++)                                                                      \
                if (flag_of(e)) {                                                                             \
                    std::copy(PA.begin() + e * es, PA.begin() + (e + 1) * es, A.begin() + e * es);            \
                    std::copy(PT.begin() + e * tau_s, PT.begin() + (e + 1) * tau_s, tau.begin() + e * tau_s); \
                }                                                                                             \
        if (mode & 2) LAUNCH_TFALL(NC);                                                                       \
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
    long long ext[7] = {0, 0, 0, 0, 0, 0, 0};
    const size_t next = fread(ext, 8, 7, f);
    if (next != 0 && next != 7) return 2;
    const long long mode = ext[0], vf_ld = ext[1], vf_es = ext[2], vf_n = ext[3], t_ld = ext[4], t_es = ext[5], t_n = ext[6];
    long long ext2[3] = {0, 0, 0};
    if ((mode & 8) && fread(ext2, 8, 3, f) != 3) return 2;
    const long long vt_ld = ext2[0], vt_es = ext2[1], vt_n = ext2[2];
    std::vector<double> PA, PT, VF, TT, VT;
    if (mode & 4) {
        PA.resize(ne * es); PT.resize(ne * tau_s);
        if (fread(PA.data(), 8, PA.size(), f) != PA.size() || fread(PT.data(), 8, PT.size(), f) != PT.size()) return 2;
    }
    if (mode & 1) {
        VF.resize(vf_n); TT.resize(t_n);
        if (fread(VF.data(), 8, VF.size(), f) != VF.size() || fread(TT.data(), 8, TT.size(), f) != TT.size()) return 2;
    }
    if (mode & 8) {
        VT.resize(vt_n);
        if (fread(VT.data(), 8, VT.size(), f) != VT.size()) return 2;
    }
    fclose(f);
    const int nc = cq_nc(n);
    const long long tiles = (m + 127) / 128;
    const int nblk = (int)std::max<long long>(1, std::min<long long>(tiles, cqb));
    const size_t ws_s = entry_bytes(cqb, nc);
    std::vector<double> ws(ws_s / 8 * ne + 32);
    double* wsp = (double*)(((uintptr_t)ws.data() + 255) & ~(uintptr_t)255);
    for (size_t i = 0; i < ws_s / 8 * ne; i++) wsp[i] = NAN;
    g_ws = (char*)wsp; g_ws_s = ws_s;
    Cqp p{};
    p.a = (u64)A.data(); p.ld = lda; p.es = es;
    p.ws = (u64)wsp; p.ws_s = (i64)ws_s;
    p.tau = (u64)tau.data(); p.tau_s = tau_s;
    p.rows = m; p.tiles = tiles;
    p.cols = n; p.nblk = nblk; p.ne = ne; p.part = (int)cq_part(nc);
#if EMU_NO_VF
    if (mode & 1) { fprintf(stderr, "emu: no Cqp.vf in this source\n"); return 2; }
    (void)vf_ld; (void)vf_es; (void)t_ld; (void)t_es;
#else
    p.vf = (mode & 1) ? (u64)VF.data() : 0; p.vf_ld = (mode & 1) ? vf_ld : 0; p.vf_es = (mode & 1) ? vf_es : 0;
    p.t = (mode & 1) ? (u64)TT.data() : 0; p.t_ld = (mode & 1) ? t_ld : 0; p.t_es = (mode & 1) ? t_es : 0;
#endif
#if EMU_NO_VT
    if (mode & 8) { fprintf(stderr, "emu: no Cqp.vt in this source\n"); return 2; }
    (void)vt_ld; (void)vt_es;
#else
    if ((mode & 1) && !(mode & 8)) { fprintf(stderr, "emu: this source writes VT with Vf: mode needs 8 with 1\n"); return 2; }
    p.vt = (mode & 8) ? (u64)VT.data() : 0; p.vt_ld = (mode & 8) ? vt_ld : 0; p.vt_es = (mode & 8) ? vt_es : 0;
#endif
    const unsigned rb = (unsigned)((cq_part(nc) + 63) / 64);
    const char* env_reduce = getenv("EMU_REDUCE");
    const bool force_reduce = env_reduce && strcmp(env_reduce, "0") != 0;
    const bool fuse = EMU_SRC_FUSE && !force_reduce && (long long)nblk * cq_part(nc) <= CQ_FUSE_MAX;
    const size_t lu = (64 * 68 + 64 * 68 + 64 + 2 * 64 * 65) * 8;
    fprintf(stderr, "cholqr.cu blob %s: m %lld n %d lda %lld ne %d es %lld nc %d tiles %lld nblk %d ws_s %zu mma %d fix %d mode %lld fuse %d (nblk part %lld)\n", EMU_SRC_BLOB, m, n, lda, ne, es, nc,
            tiles, nblk, ws_s, EMU_MMA, EMU_FIX_CHOL1, mode, (int)fuse, (long long)nblk * cq_part(nc));
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
    if (mode & 1) { fwrite(VF.data(), 8, VF.size(), f); fwrite(TT.data(), 8, TT.size(), f); }
    if (mode & 8) fwrite(VT.data(), 8, VT.size(), f);
    fclose(f);
    return 0;
}
