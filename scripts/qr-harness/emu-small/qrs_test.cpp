// usage: qrs_test TYPE(d|z|s|c) in.bin out.bin
// in: int64 m, n, ld, ne, es, tau_s; then ne*es elements (A), ne*tau_s elements (tau) (element = T)
// out: A, tau after qr_small.
#include QRS_HDR
#include <string>
int main(int argc, char** argv) {
    std::string t = argv[1];
    FILE* f = fopen(argv[2], "rb");
    long long h[6];
    if (fread(h, 8, 6, f) != 6) return 2;
    const size_t es = t == "d" ? 8 : t == "z" ? 16 : t == "s" ? 4 : 8;
    const long long ne = h[3];
    std::vector<char> A(ne * h[4] * es + 64), tau(ne * h[5] * es + 64);
    if (fread(A.data(), es, ne * h[4], f) != (size_t)(ne * h[4])) return 3;
    if (fread(tau.data(), es, ne * h[5], f) != (size_t)(ne * h[5])) return 4;
    fclose(f);
    Qrp j{}; j.a = (u64)A.data(); j.ld = h[2]; j.es = h[4]; j.tau = (u64)tau.data(); j.tau_s = h[5];
    j.rows = h[0]; j.cols = h[1]; j.ne = (int)ne;
    void (*k)(Qrp) = t == "d" ? qr_small_d : t == "z" ? qr_small_z : t == "s" ? qr_small_s : qr_small_c;
    emu_launch(k, dim3((unsigned)((ne + 3) / 4)), dim3(128), 0, j);
    f = fopen(argv[3], "wb");
    fwrite(A.data(), es, ne * h[4], f);
    fwrite(tau.data(), es, ne * h[5], f);
    fclose(f);
    return 0;
}
