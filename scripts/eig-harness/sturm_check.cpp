// CPU check of eig.cu's eigenvalue multisection: its division-free Sturm count (leading minors'
// sign changes, renormalized by powers of two) against LAPACK's q form (dstebz) inside the same
// multisection, on random, graded, diagonal, integer-valued, zero, tiny-e, scaled and Wilkinson
// tridiagonals: the largest eigenvalue difference in units of |T| eps, and how many counts differ.
//   g++ -O2 sturm_check.cpp -o sturm_check && ./sturm_check
#include <cstdio>
#include <cmath>
#include <cstring>
#include <vector>
#include <random>
#include <algorithm>
#include <cstdint>
typedef double R;
static R inv_pow2(R v) { uint64_t b; memcpy(&b, &v, 8); int ex = (int)((b >> 52) & 0x7ff); uint64_t o = (uint64_t)(2046 - ex) << 52; R r; memcpy(&r, &o, 8); return r; }
static long count_q(const std::vector<R>& d, const std::vector<R>& e, R x, R pivmin) {
  long n = d.size(), cnt = 0; R q = d[0] - x; if (fabs(q) <= pivmin) q = -pivmin; cnt += q < 0;
  for (long i = 1; i < n; ++i) { R ei = e[i-1]; q = d[i] - x - ei * ei / q; if (fabs(q) <= pivmin) q = -pivmin; cnt += q < 0; }
  return cnt;
}
static long count_p(const std::vector<R>& d, const std::vector<R>& e, R x, R s2, R piv) {
  // as eig.cu's eig_bisect: rows scaled (d s2, (e s2)^2; row 0 without e), p_{-1} = 1, p_{-2} = 0
  long n = d.size(), cnt = 0; R xs = x * s2; R pm = 0, pc = 1;
  for (long i = 0; i < n; ++i) { R ds = d[i] * s2, t = i > 0 ? e[i-1] * s2 : 0, e2 = t * t; R pn = std::fma(ds - xs, pc, -e2 * pm);
    if (fabs(pn) <= piv * fabs(pc)) pn = -piv * pc; cnt += std::signbit(pn) != std::signbit(pc); R f = inv_pow2(pc); pm = pc * f; pc = pn * f;
    if (!std::isfinite(pc) || !std::isfinite(pm) || pc == 0) { printf("range failure at %ld\n", i); exit(1); } }
  return cnt;
}
static std::vector<R> eigs(const std::vector<R>& d, const std::vector<R>& e, bool pform, long& mism, std::vector<R>* other) {
  long n = d.size(); const int W = 8; R lo = d[0], hi = d[0], e2max = 0;
  for (long i = 0; i < n; ++i) { R el = i > 0 ? fabs(e[i-1]) : 0, er = i + 1 < n ? fabs(e[i]) : 0; lo = fmin(lo, d[i] - el - er); hi = fmax(hi, d[i] + el + er); e2max = fmax(e2max, er * er); }
  R pivmin = 0x1p-1022 * fmax(1, e2max); R span = fmax(hi - lo, fmax(fabs(lo), fabs(hi)) * 0x1p-52);
  lo -= span * 0x1p-52 * 4 + pivmin; hi += span * 0x1p-52 * 4 + pivmin;
  R s2 = inv_pow2(fmax(fabs(lo), fabs(hi))); R piv = fmax(pivmin * s2, 0x1p-500);
  std::vector<R> w(n);
  for (long k = 0; k < n; ++k) {
    R a = lo, b = hi;
    for (int it = 0; it < 32; ++it) {
      R mid = a + (b - a) / 2; if (mid == a || mid == b) break;
      int f = W; R xs[W];
      for (int j = 0; j < W; ++j) { xs[j] = a + (b - a) * ((R)(j + 1) / (R)(W + 1)); }
      for (int j = 0; j < W; ++j) {
        long c = pform ? count_p(d, e, xs[j], s2, piv) : count_q(d, e, xs[j], pivmin);
        long c2 = pform ? count_q(d, e, xs[j], pivmin) : c; if (c != c2) ++mism;
        if (c > k) { f = j; break; } }
      R na = a, nb = b; if (f < W) nb = xs[f]; if (f > 0) na = xs[f - 1]; a = na; b = nb;
    }
    w[k] = a + (b - a) / 2;
  }
  return w;
}
int main() {
  std::mt19937_64 g(7); std::uniform_real_distribution<R> u(-1, 1);
  const char* names[] = {"random", "graded 1e-12..1", "diagonal ints", "integer ties", "zero", "tiny e", "scale 1e110", "scale 1e-110", "wilkinson"};
  for (int t = 0; t < 9; ++t) for (long n : {1L, 2L, 33L, 200L}) {
    std::vector<R> d(n), e(n > 1 ? n - 1 : 0);
    for (long i = 0; i < n; ++i) d[i] = u(g); for (auto& x : e) x = u(g);
    if (t == 1) for (long i = 0; i < n; ++i) { d[i] *= pow(1e-12, (R)i / n); if (i + 1 < n) e[i] *= pow(1e-12, (R)i / n); }
    if (t == 2) { for (long i = 0; i < n; ++i) d[i] = (R)(i % 5); for (auto& x : e) x = 0; }
    if (t == 3) { for (long i = 0; i < n; ++i) d[i] = (R)((int)(d[i] * 3)); for (auto& x : e) x = (R)((int)(x * 2)); }
    if (t == 4) { for (auto& x : d) x = 0; for (auto& x : e) x = 0; }
    if (t == 5) for (auto& x : e) x *= 1e-170;
    if (t == 6) { for (auto& x : d) x *= 1e110; for (auto& x : e) x *= 1e110; }
    if (t == 7) { for (auto& x : d) x *= 1e-110; for (auto& x : e) x *= 1e-110; }
    if (t == 8) { for (long i = 0; i < n; ++i) d[i] = fabs((R)i - (n - 1) / 2.0); for (auto& x : e) x = 1; }
    long m1 = 0, m2 = 0;
    auto wq = eigs(d, e, false, m1, nullptr), wp = eigs(d, e, true, m2, nullptr);
    R nrm = 0; for (long i = 0; i < n; ++i) nrm = fmax(nrm, fabs(d[i]) + (i ? fabs(e[i-1]) : 0) + (i + 1 < n ? fabs(e[i]) : 0));
    R md = 0; for (long k = 0; k < n; ++k) md = fmax(md, fabs(wq[k] - wp[k]));
    printf("%-18s n %4ld: max |w_p - w_q| / (|T| eps) = %.3g   counts differing %ld\n", names[t], n, nrm > 0 ? md / (nrm * 0x1p-52) : md, m2);
  }
}
