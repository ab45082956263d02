/* Times BLAS and LAPACK calls made through the Fortran interface (host-resident operands), as a
 * program linked against libblas.so.3 / liblapack.so.3 sees them: whatever library the loader
 * gives (LD_LIBRARY_PATH, LD_PRELOAD) is measured. Each row: best of `reps` calls after one
 * warm-up, wall clock, operands re-initialised outside the timed region where the call
 * overwrites them.
 *   cc -O2 bench.c -o bench -L<dir with libblas.so.3, liblapack.so.3> -l:libblas.so.3 -l:liblapack.so.3
 *   ./bench LABEL [what ...]   what: dgemm sgemm zgemm dgetrf dpotrf dgemv dtrsm (default all)
 * BENCH_SIZES="256 512 ..." replaces the orders of dgemm, dgemv, dtrsm, dgetrf and dpotrf (a
 * crossover sweep).
 */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *);
void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *, const float *,
            const int *, const float *, const int *, const float *, float *, const int *);
void zgemm_(const char *, const char *, const int *, const int *, const int *, const double complex *,
            const double complex *, const int *, const double complex *, const int *, const double complex *,
            double complex *, const int *);
void dgemv_(const char *, const int *, const int *, const double *, const double *, const int *, const double *,
            const int *, const double *, double *, const int *);
void dtrsm_(const char *, const char *, const char *, const char *, const int *, const int *, const double *,
            const double *, const int *, double *, const int *);
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);
void dpotrf_(const char *, const int *, double *, const int *, int *);

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}
static void fill(double *p, size_t n, unsigned s) {
    for (size_t i = 0; i < n; i++) { s = s * 1664525u + 1013904223u; p[i] = (s >> 8) * (1.0 / 16777216.0) - 0.5; }
}
/* The orders to time: BENCH_SIZES if set, else `def` (`count` of them); returns how many. */
static int sizes(int *out, const int *def, int count) {
    const char *e = getenv("BENCH_SIZES");
    if (!e) { memcpy(out, def, count * sizeof(int)); return count; }
    int k = 0;
    char *end;
    for (long v = strtol(e, &end, 10); end != e && k < 32; v = strtol(e, &end, 10)) { out[k++] = (int)v; e = end; }
    return k;
}
static int want(int argc, char **argv, const char *w) {
    if (argc <= 2) return 1;
    for (int i = 2; i < argc; i++) if (!strcmp(argv[i], w)) return 1;
    return 0;
}
static void row(const char *label, const char *op, int n, double sec, double flops) {
    printf("%-14s %-7s n=%-6d %10.3f ms %9.1f GFLOP/s\n", label, op, n, sec * 1e3, flops / sec * 1e-9);
    fflush(stdout);
}
#define BEST(reps, reset, call)                                   \
    ({ double best_ = 1e30; reset; call;                          \
       for (int r_ = 0; r_ < (reps); r_++) { reset; double t0_ = now(); call; double t_ = now() - t0_; \
         if (t_ < best_) best_ = t_; } best_; })

int main(int argc, char **argv) {
    const char *label = argc > 1 ? argv[1] : "?";
    const double one = 1, zero = 0;
    int info;
    if (want(argc, argv, "dgemm")) {
        int ns[32], cnt = sizes(ns, (int[]){256, 512, 1024, 2048, 4096, 8192}, 6);
        for (int q = 0; q < cnt; q++) {
            int n = ns[q];
            size_t e = (size_t)n * n;
            double *a = malloc(e * 8), *b = malloc(e * 8), *c = malloc(e * 8);
            fill(a, e, 1); fill(b, e, 2); fill(c, e, 3);
            double t = BEST(n <= 1024 ? 5 : 2, (void)0, dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n));
            row(label, "dgemm", n, t, 2.0 * n * n * (double)n);
            free(a); free(b); free(c);
        }
    }
    if (want(argc, argv, "sgemm")) {
        int n = 8192;
        size_t e = (size_t)n * n;
        float *a = malloc(e * 4), *b = malloc(e * 4), *c = malloc(e * 4);
        for (size_t i = 0; i < e; i++) { a[i] = (float)(i % 7) - 3; b[i] = (float)(i % 5) - 2; c[i] = 0; }
        const float o = 1, z = 0;
        double t = BEST(2, (void)0, sgemm_("N", "N", &n, &n, &n, &o, a, &n, b, &n, &z, c, &n));
        row(label, "sgemm", n, t, 2.0 * n * n * (double)n);
        free(a); free(b); free(c);
    }
    if (want(argc, argv, "zgemm")) {
        int n = 4096;
        size_t e = (size_t)n * n;
        double complex *a = malloc(e * 16), *b = malloc(e * 16), *c = malloc(e * 16);
        fill((double *)a, 2 * e, 4); fill((double *)b, 2 * e, 5); memset(c, 0, e * 16);
        const double complex o = 1, z = 0;
        double t = BEST(2, (void)0, zgemm_("N", "N", &n, &n, &n, &o, a, &n, b, &n, &z, c, &n));
        row(label, "zgemm", n, t, 8.0 * n * n * (double)n);
        free(a); free(b); free(c);
    }
    if (want(argc, argv, "dgemv")) {
        int ns[32], cnt = sizes(ns, (int[]){1024, 4096, 16384}, 3);
        for (int q = 0; q < cnt; q++) {
            int n = ns[q], inc = 1;
            size_t e = (size_t)n * n;
            double *a = malloc(e * 8), *x = malloc(n * 8), *y = malloc(n * 8);
            fill(a, e, 6); fill(x, n, 7); fill(y, n, 8);
            double t = BEST(5, (void)0, dgemv_("N", &n, &n, &one, a, &n, x, &inc, &zero, y, &inc));
            row(label, "dgemv", n, t, 2.0 * n * (double)n);
            free(a); free(x); free(y);
        }
    }
    if (want(argc, argv, "dtrsm")) {
        int ns[32], cnt = sizes(ns, (int[]){1024, 4096, 8192}, 3);
        for (int q = 0; q < cnt; q++) {
            int n = ns[q];
            size_t e = (size_t)n * n;
            double *a = malloc(e * 8), *b = malloc(e * 8), *b0 = malloc(e * 8);
            fill(a, e, 9); fill(b0, e, 10);
            for (int i = 0; i < n; i++) a[(size_t)i * n + i] = n;
            double t = BEST(2, memcpy(b, b0, e * 8), dtrsm_("L", "L", "N", "N", &n, &n, &one, a, &n, b, &n));
            row(label, "dtrsm", n, t, (double)n * n * (double)n);
            free(a); free(b); free(b0);
        }
    }
    if (want(argc, argv, "dgetrf")) {
        int ns[32], cnt = sizes(ns, (int[]){1024, 4096, 8192, 16384}, 4);
        for (int q = 0; q < cnt; q++) {
            int n = ns[q];
            size_t e = (size_t)n * n;
            double *a = malloc(e * 8), *a0 = malloc(e * 8);
            int *ipiv = malloc(n * sizeof(int));
            fill(a0, e, 11);
            double t = BEST(n <= 4096 ? 3 : 1, memcpy(a, a0, e * 8), dgetrf_(&n, &n, a, &n, ipiv, &info));
            row(label, "dgetrf", n, t, 2.0 / 3.0 * n * n * (double)n);
            free(a); free(a0); free(ipiv);
        }
    }
    if (want(argc, argv, "dpotrf")) {
        int ns[32], cnt = sizes(ns, (int[]){1024, 4096, 8192, 16384}, 4);
        for (int q = 0; q < cnt; q++) {
            int n = ns[q];
            size_t e = (size_t)n * n;
            double *a = malloc(e * 8), *a0 = malloc(e * 8);
            fill(a0, e, 12);
            for (int j = 0; j < n; j++) for (int i = 0; i < j; i++) a0[(size_t)j * n + i] = a0[(size_t)i * n + j];
            for (int i = 0; i < n; i++) a0[(size_t)i * n + i] += n;
            double t = BEST(n <= 4096 ? 3 : 1, memcpy(a, a0, e * 8), dpotrf_("L", &n, a, &n, &info));
            if (info) printf("dpotrf n=%d info %d\n", n, info);
            row(label, "dpotrf", n, t, 1.0 / 3.0 * n * n * (double)n);
            free(a); free(a0);
        }
    }
    return 0;
}
