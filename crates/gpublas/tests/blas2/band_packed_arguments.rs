//! F2, F7, F9: bad arguments of the band and packed routines are errors that name the values
//! involved (zero increments with reference BLAS's INFO position), with every output untouched.

use super::*;
use crate::common::errors::{expect_err, is_size, is_value, Outs};

fn f7_band_packed_bad_arguments_name_values_outputs_untouched(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let a = up(64);
    let x = up(16);
    let mut o = Outs::<f64>::new(dev, &[16, 4, 40]);
    let (al, be) = (Coef::Host(1.0f64), Coef::Host(0.5f64));
    let (u, l) = (Uplo::Upper, Uplo::Lower);
    let nu = Diag::NonUnit;
    {
        let [y, y4, ys] = &mut o.bufs[..] else {
            unreachable!()
        };
        // Leading dimensions below the band's rows.
        let r = blas2::gbmv(&mut h, Op::N, 5, 4, 2, 1, al, &a, 3, &x, 1, be, y, 1);
        expect_err(
            r,
            is_size,
            &["gbmv", "lda = 3", "kl + ku + 1", "4"],
            "gbmv lda",
        );
        let r = blas2::sbmv(&mut h, u, 5, 2, al, &a, 2, &x, 1, be, y, 1);
        expect_err(r, is_size, &["sbmv", "lda = 2", "k + 1"], "sbmv lda");
        let r = blas2::tbsv(&mut h, l, Op::T, nu, 5, 3, &a, 3, y, 1);
        expect_err(r, is_size, &["tbsv", "lda = 3", "4"], "tbsv lda");
        let r =
            blas2::sbmv_strided_batched(&mut h, l, 4, 1, al, &a, 1, 8, &x, 1, 4, be, ys, 1, 4, 2);
        expect_err(
            r,
            is_size,
            &["sbmv_strided_batched", "lda = 1"],
            "sbmv_strided lda",
        );
        // Zero increments: reference BLAS's INFO positions.
        for (r, what, parts) in [
            (
                blas2::gbmv(&mut h, Op::T, 4, 4, 1, 1, al, &a, 3, &x, 0, be, y, 1),
                "gbmv incx",
                ["incx = 0", "INFO = 10"],
            ),
            (
                blas2::gbmv(&mut h, Op::N, 4, 4, 1, 1, al, &a, 3, &x, 1, be, y, 0),
                "gbmv incy",
                ["incy = 0", "INFO = 13"],
            ),
            (
                blas2::sbmv(&mut h, u, 4, 1, al, &a, 2, &x, 0, be, y, 1),
                "sbmv incx",
                ["incx = 0", "INFO = 8"],
            ),
            (
                blas2::sbmv(&mut h, l, 4, 1, al, &a, 2, &x, 1, be, y, 0),
                "sbmv incy",
                ["incy = 0", "INFO = 11"],
            ),
            (
                blas2::spmv(&mut h, u, 4, al, &a, &x, 0, be, y, 1),
                "spmv incx",
                ["incx = 0", "INFO = 6"],
            ),
            (
                blas2::spmv(&mut h, l, 4, al, &a, &x, 1, be, y, 0),
                "spmv incy",
                ["incy = 0", "INFO = 9"],
            ),
            (
                blas2::tbsv(&mut h, u, Op::N, nu, 4, 1, &a, 2, y, 0),
                "tbsv incx",
                ["incx = 0", "INFO = 9"],
            ),
            (
                blas2::tpsv(&mut h, l, Op::C, nu, 4, &a, y, 0),
                "tpsv incx",
                ["incx = 0", "INFO = 7"],
            ),
        ] {
            expect_err(r, is_value, &parts, what);
        }
        // A, x, y one element short: gbmv's A spans (n - 1) lda + kl + ku + 1.
        let a18 = up(18);
        let r = blas2::gbmv(&mut h, Op::N, 6, 4, 1, 2, al, &a18, 5, &x, 1, be, y, 1);
        expect_err(
            r,
            is_value,
            &["has 18 elements", "needs 19"],
            "gbmv A short",
        );
        // A band wider than the matrix is valid, but A still has to hold it.
        let r = blas2::sbmv(&mut h, u, 3, 9, al, &up(29), 10, &x, 1, be, y, 1);
        expect_err(
            r,
            is_value,
            &["has 29 elements", "needs 30"],
            "sbmv k > n A short",
        );
        let r = blas2::spmv(&mut h, u, 6, al, &up(20), &x, 1, be, y, 1);
        expect_err(
            r,
            is_value,
            &["has 20 elements", "needs 21"],
            "spmv A short",
        );
        let r = blas2::tpsv(&mut h, l, Op::N, nu, 6, &up(20), y, 1);
        expect_err(
            r,
            is_value,
            &["has 20 elements", "needs 21"],
            "tpsv A short",
        );
        let r = blas2::gbmv(&mut h, Op::T, 9, 4, 1, 1, al, &a, 3, &up(8), 1, be, y, 1);
        expect_err(r, is_value, &["has 8 elements", "needs 9"], "gbmv x short");
        let r = blas2::spmv(&mut h, u, 5, al, &a, &x, 1, be, y4, -1);
        expect_err(r, is_value, &["has 4 elements", "needs 5"], "spmv y short");
        let r = blas2::tbsv(&mut h, u, Op::N, nu, 3, 1, &a, 2, y4, 2);
        expect_err(r, is_value, &["has 4 elements", "needs 5"], "tbsv x short");
        // Band widths that overflow are size errors, never a panic.
        let r = blas2::gbmv(
            &mut h,
            Op::N,
            4,
            4,
            usize::MAX,
            1,
            al,
            &a,
            4,
            &x,
            1,
            be,
            y,
            1,
        );
        expect_err(r, is_size, &["gbmv", "kl = "], "gbmv kl overflow");
        let r = blas2::tbsv(&mut h, u, Op::N, nu, 4, usize::MAX, &a, 4, y, 1);
        expect_err(r, is_size, &["tbsv", "k = "], "tbsv k overflow");
        // F9: strided outputs that overlap.
        let r = blas2::spmv_strided_batched(&mut h, u, 4, al, &a, 0, &x, 1, 0, be, ys, 1, 3, 2);
        expect_err(r, is_value, &["overlap", "stride_y = 3"], "spmv y stride 3");
        let r = blas2::gbmv_strided_batched(
            &mut h,
            Op::N,
            5,
            3,
            1,
            1,
            al,
            &a,
            3,
            0,
            &x,
            1,
            0,
            be,
            ys,
            1,
            4,
            2,
        );
        expect_err(r, is_value, &["overlap", "stride_y = 4"], "gbmv y stride 4");
        let r = blas2::tpsv_strided_batched(&mut h, u, Op::N, nu, 4, &a, 0, ys, 1, 2, 2);
        expect_err(r, is_value, &["overlap", "stride_x = 2"], "tpsv x stride 2");
        let r = blas2::tbsv_strided_batched(&mut h, l, Op::T, nu, 4, 1, &a, 2, 0, ys, 2, 6, 3);
        expect_err(r, is_value, &["overlap", "stride_x = 6"], "tbsv x stride 6");
    }
    o.check();
}

/// hbmv and hpmv: the same checks for the Hermitian forms.
fn f7_hbmv_hpmv_bad_arguments(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![Complex64::new(0.5, 0.25); v]).unwrap();
    let (a, x) = (up(64), up(16));
    let mut o = Outs::<Complex64>::new(dev, &[16]);
    let one = Coef::Host(Complex64::new(1.0, 0.0));
    {
        let y = &mut o.bufs[0];
        let r = blas2::hbmv(&mut h, Uplo::Lower, 5, 3, one, &a, 3, &x, 1, one, y, 1);
        expect_err(r, is_size, &["hbmv", "lda = 3", "4"], "hbmv lda");
        let r = blas2::hbmv(&mut h, Uplo::Upper, 5, 1, one, &a, 2, &x, 0, one, y, 1);
        expect_err(r, is_value, &["incx = 0", "INFO = 8"], "hbmv incx");
        let r = blas2::hpmv(&mut h, Uplo::Upper, 5, one, &a, &x, 1, one, y, 0);
        expect_err(r, is_value, &["incy = 0", "INFO = 9"], "hpmv incy");
        let r = blas2::hpmv(&mut h, Uplo::Lower, 11, one, &a, &x, 1, one, y, 1);
        expect_err(
            r,
            is_value,
            &["has 64 elements", "needs 66"],
            "hpmv A short",
        );
    }
    o.check();
}

crate::on_both_backends!(
    f7_band_packed_bad_arguments_name_values_outputs_untouched,
    f7_hbmv_hpmv_bad_arguments,
);
