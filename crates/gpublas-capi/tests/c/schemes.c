/*
 * The rocSOLVER memory-model document's example, ported to gpublas's C interface: a 1024 x 1024
 * system with one right-hand side solved by dgetrf + dgetrs under each of the four workspace
 * schemes, after a size query with null device pointers. Also: Level-1 calls in both pointer
 * modes and as batches, a strided transfer, Householder QR (dgeqrf, dorgqr, dormqr and their
 * size query), the LAPACK drivers (dgesv, dgetri, dposv and their size query), least squares
 * and the Cholesky inverse (dgels, dpotri and their size query), and bad arguments that must
 * fail with the right status and a message. Runs on either backend (GPUBLAS_DEVICE=host|cuda);
 * exits 0 when every check passed.
 */
#include "gpublas.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static int checks = 0;

static void expect(const char *what, gpublas_status got, gpublas_status want) {
    checks++;
    if (got != want) {
        failures++;
        fprintf(stderr, "FAIL %s: got %s, wanted %s (%s)\n", what, gpublas_status_to_string(got),
                gpublas_status_to_string(want), gpublas_get_last_error_message());
    }
}

static void expect_true(const char *what, int cond) {
    checks++;
    if (!cond) {
        failures++;
        fprintf(stderr, "FAIL %s\n", what);
    }
}

#define N 1024
#define LDA (N + 3)

/* A diagonally dominant matrix (column-major, leading dimension LDA) and b = A x_true. */
static void make_system(double *a, double *b, double *x_true) {
    unsigned s = 12345u;
    for (int j = 0; j < N; j++) {
        for (int i = 0; i < LDA; i++) {
            s = s * 1103515245u + 12345u;
            a[i + (size_t)j * LDA] = (double)((s >> 8) & 0xffff) / 65536.0 - 0.5;
        }
        a[j + (size_t)j * LDA] += N;
        x_true[j] = 1.0 + (j % 7);
    }
    for (int i = 0; i < N; i++) {
        double acc = 0.0;
        for (int j = 0; j < N; j++) acc += a[i + (size_t)j * LDA] * x_true[j];
        b[i] = acc;
    }
}

/* Uploads the system, runs dgetrf + dgetrs and checks statuses, info and the solution. */
static void solve(gpublas_handle h, const char *scheme, gpublas_status want) {
    static double a[(size_t)LDA * N], b[N], x_true[N], x[N];
    make_system(a, b, x_true);
    void *da = NULL, *db = NULL, *dipiv = NULL, *dinfo = NULL;
    char what[160];
    expect("gpublas_malloc", gpublas_malloc(h, sizeof(double) * LDA * N, &da), GPUBLAS_STATUS_SUCCESS);
    expect("gpublas_malloc", gpublas_malloc(h, sizeof(double) * N, &db), GPUBLAS_STATUS_SUCCESS);
    expect("gpublas_malloc", gpublas_malloc(h, sizeof(int32_t) * N, &dipiv), GPUBLAS_STATUS_SUCCESS);
    expect("gpublas_malloc", gpublas_malloc(h, sizeof(int32_t), &dinfo), GPUBLAS_STATUS_SUCCESS);
    expect("set_matrix", gpublas_set_matrix(h, LDA, N, sizeof(double), a, LDA, da, LDA), GPUBLAS_STATUS_SUCCESS);
    expect("set_vector", gpublas_set_vector(h, N, sizeof(double), b, 1, db, 1), GPUBLAS_STATUS_SUCCESS);

    snprintf(what, sizeof what, "%s: dgetrf", scheme);
    expect(what, gpublas_dgetrf(h, N, N, da, LDA, dipiv, dinfo), want);
    snprintf(what, sizeof what, "%s: dgetrs", scheme);
    expect(what, gpublas_dgetrs(h, GPUBLAS_OPERATION_NONE, N, 1, da, LDA, dipiv, db, N), want);

    int32_t info = -1;
    expect("get info", gpublas_get_vector(h, 1, sizeof(int32_t), dinfo, 1, &info, 1), GPUBLAS_STATUS_SUCCESS);
    expect("get x", gpublas_get_vector(h, N, sizeof(double), db, 1, x, 1), GPUBLAS_STATUS_SUCCESS);
    double err = 0.0;
    for (int i = 0; i < N; i++) err = fmax(err, fabs(x[i] - x_true[i]) / x_true[i]);
    snprintf(what, sizeof what, "%s: info = 0 (got %d) and the solution (max rel err %.2e)", scheme, info, err);
    expect_true(what, info == 0 && err < 1e-10);

    gpublas_free(h, da);
    gpublas_free(h, db);
    gpublas_free(h, dipiv);
    gpublas_free(h, dinfo);
}

/* Level 1 in both pointer modes, a list batch and a strided batch. */
static void level1(gpublas_handle h) {
    float x[8], y[8];
    for (int i = 0; i < 8; i++) {
        x[i] = (float)(i + 1);
        y[i] = (float)(2 * i - 3);
    }
    float want = 0.0f;
    for (int i = 0; i < 8; i++) want += x[i] * y[i];
    void *dx = NULL, *dy = NULL, *dr = NULL;
    gpublas_malloc(h, sizeof x, &dx);
    gpublas_malloc(h, sizeof y, &dy);
    gpublas_malloc(h, sizeof(float) * 2, &dr);
    gpublas_set_vector(h, 8, sizeof(float), x, 1, dx, 1);
    gpublas_set_vector(h, 8, sizeof(float), y, 1, dy, 1);

    float r = -1.0f;
    expect("sdot, host pointer mode", gpublas_sdot(h, 8, dx, 1, dy, 1, &r), GPUBLAS_STATUS_SUCCESS);
    expect_true("sdot value", r == want);

    expect("set_pointer_mode device", gpublas_set_pointer_mode(h, GPUBLAS_POINTER_MODE_DEVICE), GPUBLAS_STATUS_SUCCESS);
    expect("sdot, device pointer mode", gpublas_sdot(h, 8, dx, 1, dy, 1, dr), GPUBLAS_STATUS_SUCCESS);
    float rd = -1.0f;
    gpublas_get_vector(h, 1, sizeof(float), dr, 1, &rd, 1);
    expect_true("sdot value from device memory", rd == want);
    gpublas_set_pointer_mode(h, GPUBLAS_POINTER_MODE_HOST);

    /* Two vectors of 4 at stride 4: norms of [1,2,3,4] and [5,6,7,8]. */
    float norms[2] = {0, 0};
    expect("snrm2_strided_batched", gpublas_snrm2_strided_batched(h, 4, dx, 1, 4, 2, norms), GPUBLAS_STATUS_SUCCESS);
    expect_true("snrm2_strided_batched values",
                fabsf(norms[0] - sqrtf(30.0f)) < 1e-5f && fabsf(norms[1] - sqrtf(174.0f)) < 1e-5f);

    /* A list batch: a host array of device pointers. */
    const float *xs[2] = {(const float *)dx, (const float *)dx + 4};
    const float *ys[2] = {(const float *)dy, (const float *)dy + 4};
    float dots[2] = {0, 0};
    expect("sdot_batched", gpublas_sdot_batched(h, 4, xs, 1, ys, 1, 2, dots), GPUBLAS_STATUS_SUCCESS);
    float d0 = 0, d1 = 0;
    for (int i = 0; i < 4; i++) {
        d0 += x[i] * y[i];
        d1 += x[4 + i] * y[4 + i];
    }
    expect_true("sdot_batched values", dots[0] == d0 && dots[1] == d1);

    /* saxpy with a strided device side: y[0,2,4,6] += 2 x[0..4]. */
    float alpha = 2.0f, back[8];
    gpublas_set_vector(h, 8, sizeof(float), y, 1, dy, 1);
    expect("saxpy incy 2", gpublas_saxpy(h, 4, &alpha, dx, 1, dy, 2), GPUBLAS_STATUS_SUCCESS);
    expect("get_vector", gpublas_get_vector(h, 8, sizeof(float), dy, 1, back, 1), GPUBLAS_STATUS_SUCCESS);
    int ok = 1;
    for (int i = 0; i < 8; i++) {
        float w = (i % 2 == 0) ? y[i] + 2.0f * x[i / 2] : y[i];
        ok &= back[i] == w;
    }
    expect_true("saxpy values, odd elements untouched", ok);

    /* A strided host gather: every second element of x into the device. */
    float got[4];
    expect("set_vector incx 2", gpublas_set_vector(h, 4, sizeof(float), x, 2, dy, 1), GPUBLAS_STATUS_SUCCESS);
    gpublas_get_vector(h, 4, sizeof(float), dy, 1, got, 1);
    expect_true("set_vector incx 2 values", got[0] == 1 && got[1] == 3 && got[2] == 5 && got[3] == 7);

    gpublas_free(h, dx);
    gpublas_free(h, dy);
    gpublas_free(h, dr);
}

/* Householder QR: dgeqrf, then dorgqr (Q^T Q = I) and dormqr (Q^T A = [R; 0]) on a 7 x 4
 * matrix with lda = 9, and a size query over the three with null device pointers. */
static void qr(gpublas_handle h) {
    enum { M = 7, NC = 4, LD = 9 };
    double a[LD * NC], f[LD * NC], q[LD * NC], c[M * NC], tau[NC];
    unsigned s = 777u;
    for (int i = 0; i < LD * NC; i++) {
        s = s * 1103515245u + 12345u;
        a[i] = (double)((s >> 8) & 0xffff) / 65536.0 - 0.5;
    }
    for (int j = 0; j < NC; j++)
        for (int i = 0; i < M; i++) c[i + j * M] = a[i + j * LD];
    void *da = NULL, *dq = NULL, *dc = NULL, *dtau = NULL;
    gpublas_malloc(h, sizeof a, &da);
    gpublas_malloc(h, sizeof q, &dq);
    gpublas_malloc(h, sizeof c, &dc);
    gpublas_malloc(h, sizeof tau, &dtau);
    gpublas_set_vector(h, LD * NC, sizeof(double), a, 1, da, 1);
    gpublas_set_vector(h, M * NC, sizeof(double), c, 1, dc, 1);

    expect("dgeqrf", gpublas_dgeqrf(h, M, NC, da, LD, dtau), GPUBLAS_STATUS_SUCCESS);
    gpublas_get_vector(h, LD * NC, sizeof(double), da, 1, f, 1);
    gpublas_set_vector(h, LD * NC, sizeof(double), f, 1, dq, 1);
    expect("dorgqr", gpublas_dorgqr(h, M, NC, NC, dq, LD, dtau), GPUBLAS_STATUS_SUCCESS);
    expect("dormqr",
           gpublas_dormqr(h, GPUBLAS_SIDE_LEFT, GPUBLAS_OPERATION_TRANSPOSE, M, NC, NC, da, LD, dtau, dc, M),
           GPUBLAS_STATUS_SUCCESS);
    gpublas_get_vector(h, LD * NC, sizeof(double), dq, 1, q, 1);
    gpublas_get_vector(h, M * NC, sizeof(double), dc, 1, c, 1);
    double orth = 0.0, rerr = 0.0;
    for (int i = 0; i < NC; i++)
        for (int j = 0; j < NC; j++) {
            double acc = 0.0;
            for (int l = 0; l < M; l++) acc += q[l + i * LD] * q[l + j * LD];
            orth = fmax(orth, fabs(acc - (i == j ? 1.0 : 0.0)));
        }
    for (int j = 0; j < NC; j++)
        for (int i = 0; i < M; i++) rerr = fmax(rerr, fabs(c[i + j * M] - (i <= j ? f[i + j * LD] : 0.0)));
    char what[160];
    snprintf(what, sizeof what, "dorgqr: Q^T Q = I (max err %.2e); dormqr: Q^T A = [R; 0] (max err %.2e)", orth, rerr);
    expect_true(what, orth < 1e-13 && rerr < 1e-13);

    size_t need = 0;
    expect("start query", gpublas_start_device_memory_size_query(h), GPUBLAS_STATUS_SUCCESS);
    gpublas_status q1 = gpublas_dgeqrf(h, 1024, 512, NULL, 1024, NULL);
    gpublas_status q2 = gpublas_dorgqr(h, 1024, 512, 512, NULL, 1024, NULL);
    gpublas_status q3 = gpublas_dormqr(h, GPUBLAS_SIDE_LEFT, GPUBLAS_OPERATION_TRANSPOSE, 1024, 1, 512, NULL, 1024,
                                       NULL, NULL, 1024);
    expect("stop query", gpublas_stop_device_memory_size_query(h, &need), GPUBLAS_STATUS_SUCCESS);
    expect_true("query: dgeqrf, dorgqr, dormqr record their needs",
                (q1 == GPUBLAS_STATUS_SIZE_INCREASED || q1 == GPUBLAS_STATUS_SIZE_UNCHANGED) &&
                    (q2 == GPUBLAS_STATUS_SIZE_INCREASED || q2 == GPUBLAS_STATUS_SIZE_UNCHANGED) &&
                    (q3 == GPUBLAS_STATUS_SIZE_INCREASED || q3 == GPUBLAS_STATUS_SIZE_UNCHANGED));
    printf("size query over dgeqrf + dorgqr + dormqr (1024 x 512): %zu bytes\n", need);

    gpublas_free(h, da);
    gpublas_free(h, dq);
    gpublas_free(h, dc);
    gpublas_free(h, dtau);
}

/* The LAPACK drivers: dgesv on a 4 x 4 system with lda = 5 and two right-hand sides, dgetri on
 * its factors and pivots (A inv(A) = I), dposv (lower) on a 3 x 3 SPD system, and a size
 * query over the three with null device pointers. */
static void drivers(gpublas_handle h) {
    enum { ND = 4, LD = 5, NRHS = 2 };
    double a[LD * ND], f[LD * ND], b[ND * NRHS], x_true[ND * NRHS];
    unsigned s = 4242u;
    for (int i = 0; i < LD * ND; i++) {
        s = s * 1103515245u + 12345u;
        a[i] = (double)((s >> 8) & 0xffff) / 65536.0 - 0.5;
    }
    for (int i = 0; i < ND * NRHS; i++) x_true[i] = 1.0 + i;
    for (int q = 0; q < NRHS; q++)
        for (int i = 0; i < ND; i++) {
            double acc = 0.0;
            for (int j = 0; j < ND; j++) acc += a[i + j * LD] * x_true[j + q * ND];
            b[i + q * ND] = acc;
        }
    void *da = NULL, *db = NULL, *dipiv = NULL, *dinfo = NULL;
    gpublas_malloc(h, sizeof a, &da);
    gpublas_malloc(h, sizeof b, &db);
    gpublas_malloc(h, sizeof(int32_t) * ND, &dipiv);
    gpublas_malloc(h, sizeof(int32_t), &dinfo);
    gpublas_set_vector(h, LD * ND, sizeof(double), a, 1, da, 1);
    gpublas_set_vector(h, ND * NRHS, sizeof(double), b, 1, db, 1);

    int32_t info = -1;
    expect("dgesv", gpublas_dgesv(h, ND, NRHS, da, LD, dipiv, db, ND, dinfo), GPUBLAS_STATUS_SUCCESS);
    gpublas_get_vector(h, 1, sizeof(int32_t), dinfo, 1, &info, 1);
    gpublas_get_vector(h, ND * NRHS, sizeof(double), db, 1, b, 1);
    double err = 0.0;
    for (int i = 0; i < ND * NRHS; i++) err = fmax(err, fabs(b[i] - x_true[i]));
    char what[160];
    snprintf(what, sizeof what, "dgesv: info = 0 (got %d) and X (max err %.2e)", info, err);
    expect_true(what, info == 0 && err < 1e-10);

    info = -1;
    expect("dgetri", gpublas_dgetri(h, ND, da, LD, dipiv, dinfo), GPUBLAS_STATUS_SUCCESS);
    gpublas_get_vector(h, 1, sizeof(int32_t), dinfo, 1, &info, 1);
    gpublas_get_vector(h, LD * ND, sizeof(double), da, 1, f, 1);
    err = 0.0;
    for (int i = 0; i < ND; i++)
        for (int j = 0; j < ND; j++) {
            double acc = 0.0;
            for (int l = 0; l < ND; l++) acc += a[i + l * LD] * f[l + j * LD];
            err = fmax(err, fabs(acc - (i == j ? 1.0 : 0.0)));
        }
    snprintf(what, sizeof what, "dgetri: info = 0 (got %d) and A inv(A) = I (max err %.2e)", info, err);
    expect_true(what, info == 0 && err < 1e-12);

    /* [4 1 0; 1 3 1; 0 1 2] x = [5 5 3] has x = [1 1 1]; the upper triangle holds 9s. */
    double p[9] = {4, 1, 0, 9, 3, 1, 9, 9, 2}, rhs[3] = {5, 5, 3};
    gpublas_set_vector(h, 9, sizeof(double), p, 1, da, 1);
    gpublas_set_vector(h, 3, sizeof(double), rhs, 1, db, 1);
    info = -1;
    expect("dposv", gpublas_dposv(h, GPUBLAS_FILL_LOWER, 3, 1, da, 3, db, 3, dinfo), GPUBLAS_STATUS_SUCCESS);
    gpublas_get_vector(h, 1, sizeof(int32_t), dinfo, 1, &info, 1);
    gpublas_get_vector(h, 3, sizeof(double), db, 1, rhs, 1);
    gpublas_get_vector(h, 9, sizeof(double), da, 1, p, 1);
    err = fmax(fabs(rhs[0] - 1.0), fmax(fabs(rhs[1] - 1.0), fabs(rhs[2] - 1.0)));
    snprintf(what, sizeof what, "dposv: info = 0 (got %d), x = 1 (max err %.2e), upper untouched", info, err);
    expect_true(what, info == 0 && err < 1e-14 && p[3] == 9 && p[6] == 9 && p[7] == 9);

    size_t need = 0;
    expect("start query", gpublas_start_device_memory_size_query(h), GPUBLAS_STATUS_SUCCESS);
    gpublas_status q1 = gpublas_dgesv(h, 1024, 16, NULL, 1024, NULL, NULL, 1024, NULL);
    gpublas_status q2 = gpublas_dgetri(h, 1024, NULL, 1024, NULL, NULL);
    gpublas_status q3 = gpublas_dposv(h, GPUBLAS_FILL_UPPER, 1024, 16, NULL, 1024, NULL, 1024, NULL);
    expect("stop query", gpublas_stop_device_memory_size_query(h, &need), GPUBLAS_STATUS_SUCCESS);
    expect_true("query: dgesv, dgetri, dposv record their needs",
                (q1 == GPUBLAS_STATUS_SIZE_INCREASED || q1 == GPUBLAS_STATUS_SIZE_UNCHANGED) &&
                    (q2 == GPUBLAS_STATUS_SIZE_INCREASED || q2 == GPUBLAS_STATUS_SIZE_UNCHANGED) &&
                    (q3 == GPUBLAS_STATUS_SIZE_INCREASED || q3 == GPUBLAS_STATUS_SIZE_UNCHANGED) && need > 0);
    printf("size query over dgesv + dgetri + dposv (1024, 16 rhs): %zu bytes\n", need);

    gpublas_free(h, da);
    gpublas_free(h, db);
    gpublas_free(h, dipiv);
    gpublas_free(h, dinfo);
}

/* Least squares and the Cholesky inverse: dgels fits the line closest to (0, 1), (1, 3), (2, 2),
 * (3, 5) (y = 1.1 + 1.1 t, LAPACK's residual rows below the solution, squared norm 2.7) with
 * lda = 5 and ldb = 6; dpotrf + dpotri (lower) invert [4 1 0; 1 3 1; 0 1 2] with 9s in the upper
 * triangle; then a size query over dgels and dpotri with null device pointers. */
static void least_squares(gpublas_handle h) {
    enum { M = 4, NC = 2, LDA_LS = 5, LDB_LS = 6 };
    double a[LDA_LS * NC], b[LDB_LS];
    for (int i = 0; i < LDA_LS; i++) {
        a[i] = i < M ? 1.0 : -1.0;
        a[i + LDA_LS] = i < M ? (double)i : -1.0;
    }
    const double y[M] = {1, 3, 2, 5};
    for (int i = 0; i < LDB_LS; i++) b[i] = i < M ? y[i] : -1.0;
    void *da = NULL, *db = NULL, *dinfo = NULL;
    gpublas_malloc(h, sizeof a, &da);
    gpublas_malloc(h, sizeof b, &db);
    gpublas_malloc(h, sizeof(int32_t), &dinfo);
    gpublas_set_vector(h, LDA_LS * NC, sizeof(double), a, 1, da, 1);
    gpublas_set_vector(h, LDB_LS, sizeof(double), b, 1, db, 1);

    int32_t info = -1;
    expect("dgels", gpublas_dgels(h, GPUBLAS_OPERATION_NONE, M, NC, 1, da, LDA_LS, db, LDB_LS, dinfo),
           GPUBLAS_STATUS_SUCCESS);
    gpublas_get_vector(h, 1, sizeof(int32_t), dinfo, 1, &info, 1);
    gpublas_get_vector(h, LDB_LS, sizeof(double), db, 1, b, 1);
    double err = fmax(fabs(b[0] - 1.1), fabs(b[1] - 1.1));
    double rss = b[2] * b[2] + b[3] * b[3];
    char what[160];
    snprintf(what, sizeof what, "dgels: info = 0 (got %d), x = [1.1 1.1] (max err %.2e), residual %.3f",
             info, err, rss);
    expect_true(what, info == 0 && err < 1e-13 && fabs(rss - 2.7) < 1e-12 && b[4] == -1.0 && b[5] == -1.0);

    double p[9] = {4, 1, 0, 9, 3, 1, 9, 9, 2}, w[9];
    const double full[9] = {4, 1, 0, 1, 3, 1, 0, 1, 2};
    gpublas_set_vector(h, 9, sizeof(double), p, 1, da, 1);
    info = -1;
    expect("dpotrf", gpublas_dpotrf(h, GPUBLAS_FILL_LOWER, 3, da, 3, dinfo), GPUBLAS_STATUS_SUCCESS);
    expect("dpotri", gpublas_dpotri(h, GPUBLAS_FILL_LOWER, 3, da, 3, dinfo), GPUBLAS_STATUS_SUCCESS);
    gpublas_get_vector(h, 1, sizeof(int32_t), dinfo, 1, &info, 1);
    gpublas_get_vector(h, 9, sizeof(double), da, 1, w, 1);
    err = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double acc = 0.0;
            for (int l = 0; l < 3; l++) acc += full[i + l * 3] * (l >= j ? w[l + j * 3] : w[j + l * 3]);
            err = fmax(err, fabs(acc - (i == j ? 1.0 : 0.0)));
        }
    snprintf(what, sizeof what, "dpotri: info = 0 (got %d), A inv(A) = I (max err %.2e), upper untouched", info,
             err);
    expect_true(what, info == 0 && err < 1e-13 && w[3] == 9 && w[6] == 9 && w[7] == 9);

    size_t need = 0;
    expect("start query", gpublas_start_device_memory_size_query(h), GPUBLAS_STATUS_SUCCESS);
    gpublas_status q1 = gpublas_dgels(h, GPUBLAS_OPERATION_NONE, 1024, 512, 16, NULL, 1024, NULL, 1024, NULL);
    gpublas_status q2 = gpublas_dpotri(h, GPUBLAS_FILL_UPPER, 1024, NULL, 1024, NULL);
    expect("stop query", gpublas_stop_device_memory_size_query(h, &need), GPUBLAS_STATUS_SUCCESS);
    expect_true("query: dgels, dpotri record their needs",
                (q1 == GPUBLAS_STATUS_SIZE_INCREASED || q1 == GPUBLAS_STATUS_SIZE_UNCHANGED) &&
                    (q2 == GPUBLAS_STATUS_SIZE_INCREASED || q2 == GPUBLAS_STATUS_SIZE_UNCHANGED) && need > 0);
    printf("size query over dgels (1024 x 512, 16 rhs) + dpotri (1024): %zu bytes\n", need);

    gpublas_free(h, da);
    gpublas_free(h, db);
    gpublas_free(h, dinfo);
}

/* Bad arguments: the status names the problem and the message carries the values. */
static void errors(gpublas_handle h) {
    double a[4] = {1, 2, 3, 4};
    void *da = NULL, *dinfo = NULL, *dipiv = NULL;
    gpublas_malloc(h, sizeof a, &da);
    gpublas_malloc(h, sizeof(int32_t) * 2, &dipiv);
    gpublas_malloc(h, sizeof(int32_t), &dinfo);
    gpublas_set_vector(h, 4, sizeof(double), a, 1, da, 1);

    expect("dgetrf lda < m", gpublas_dgetrf(h, 2, 2, da, 1, dipiv, dinfo), GPUBLAS_STATUS_INVALID_SIZE);
    expect_true("the message names lda", strstr(gpublas_get_last_error_message(), "lda") != NULL);
    expect("dgetrf m < 0", gpublas_dgetrf(h, -1, 2, da, 2, dipiv, dinfo), GPUBLAS_STATUS_INVALID_SIZE);
    expect("dgetrf null A", gpublas_dgetrf(h, 2, 2, NULL, 2, dipiv, dinfo), GPUBLAS_STATUS_INVALID_POINTER);
    expect("dgetrs bad operation", gpublas_dgetrs(h, 7, 2, 1, da, 2, dipiv, da, 2), GPUBLAS_STATUS_INVALID_VALUE);
    expect("dgetrf null handle", gpublas_dgetrf(NULL, 2, 2, da, 2, dipiv, dinfo), GPUBLAS_STATUS_INVALID_HANDLE);
    expect("set_vector elem_size 3", gpublas_set_vector(h, 1, 3, a, 1, da, 1), GPUBLAS_STATUS_INVALID_VALUE);
    expect("stop without start", gpublas_stop_device_memory_size_query(h, &(size_t){0}), GPUBLAS_STATUS_SIZE_QUERY_MISMATCH);
    double back[4];
    gpublas_get_vector(h, 4, sizeof(double), da, 1, back, 1);
    expect_true("outputs untouched after the errors", memcmp(a, back, sizeof a) == 0);
    gpublas_free(h, da);
    gpublas_free(h, dipiv);
    gpublas_free(h, dinfo);
}

int main(void) {
    gpublas_handle handle = NULL;
    expect("create_handle", gpublas_create_handle(&handle), GPUBLAS_STATUS_SUCCESS);
    if (!handle) return 1;

    /* 1. Automatic (library-managed) workspace, the default. */
    expect_true("managed at creation", gpublas_is_managing_device_memory(handle));
    solve(handle, "managed", GPUBLAS_STATUS_SUCCESS);

    /* The document's size query: null device pointers, then the minimum size. */
    size_t memory_size = 0;
    expect("start query", gpublas_start_device_memory_size_query(handle), GPUBLAS_STATUS_SUCCESS);
    gpublas_status s1 = gpublas_dgetrf(handle, N, N, NULL, LDA, NULL, NULL);
    gpublas_status s2 = gpublas_dgetrs(handle, GPUBLAS_OPERATION_NONE, N, 1, NULL, LDA, NULL, NULL, N);
    expect_true("query: dgetrf records its need",
                s1 == GPUBLAS_STATUS_SIZE_INCREASED || s1 == GPUBLAS_STATUS_SIZE_UNCHANGED);
    expect_true("query: dgetrs records its need",
                s2 == GPUBLAS_STATUS_SIZE_INCREASED || s2 == GPUBLAS_STATUS_SIZE_UNCHANGED);
    expect("stop query", gpublas_stop_device_memory_size_query(handle, &memory_size), GPUBLAS_STATUS_SUCCESS);
    expect_true("the query found a need", memory_size > 0);
    printf("size query over dgetrf + dgetrs (1024, 1 rhs): %zu bytes\n", memory_size);

    /* 2. User-managed by call: exactly the queried size; both calls succeed in full. */
    void *stream = NULL;
    expect("get_stream", gpublas_get_stream(handle, &stream), GPUBLAS_STATUS_SUCCESS);
    expect("set_device_memory_size", gpublas_set_device_memory_size(handle, memory_size), GPUBLAS_STATUS_SUCCESS);
    expect_true("user-managed", gpublas_is_user_managing_device_memory(handle) && !gpublas_is_managing_device_memory(handle));
    size_t got = 0;
    gpublas_get_device_memory_size(handle, &got);
    expect_true("get_device_memory_size", got >= memory_size);
    solve(handle, "user-managed by call", GPUBLAS_STATUS_SUCCESS);

    /* 3. User-owned: the caller's buffer, then back to managed. */
    void *device_memory = NULL;
    expect("malloc workspace", gpublas_malloc(handle, memory_size, &device_memory), GPUBLAS_STATUS_SUCCESS);
    expect("set_workspace", gpublas_set_workspace(handle, device_memory, memory_size), GPUBLAS_STATUS_SUCCESS);
    expect_true("user-owned", !gpublas_is_managing_device_memory(handle) && !gpublas_is_user_managing_device_memory(handle));
    solve(handle, "user-owned", GPUBLAS_STATUS_SUCCESS);
    expect("set_workspace(NULL, 0)", gpublas_set_workspace(handle, NULL, 0), GPUBLAS_STATUS_SUCCESS);
    expect_true("managed again", gpublas_is_managing_device_memory(handle));
    expect("free workspace", gpublas_free(handle, device_memory), GPUBLAS_STATUS_SUCCESS);

    /* 4. User-managed by environment, read once at creation. */
    char value[32];
    snprintf(value, sizeof value, "%zu", memory_size);
    setenv("GPUBLAS_DEVICE_MEMORY_SIZE", value, 1);
    gpublas_handle h2 = NULL;
    expect("create_handle with the environment", gpublas_create_handle(&h2), GPUBLAS_STATUS_SUCCESS);
    unsetenv("GPUBLAS_DEVICE_MEMORY_SIZE");
    expect_true("user-managed by environment", gpublas_is_user_managing_device_memory(h2));
    size_t env_size = 0;
    gpublas_get_device_memory_size(h2, &env_size);
    expect_true("the environment's size", env_size >= memory_size);
    solve(h2, "user-managed by environment", GPUBLAS_STATUS_SUCCESS);

    level1(handle);
    qr(handle);
    drivers(handle);
    least_squares(handle);
    errors(handle);

    expect("destroy", gpublas_destroy_handle(h2), GPUBLAS_STATUS_SUCCESS);
    expect("destroy", gpublas_destroy_handle(handle), GPUBLAS_STATUS_SUCCESS);
    expect("destroy null", gpublas_destroy_handle(NULL), GPUBLAS_STATUS_INVALID_HANDLE);

    printf("%d checks, %d failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
