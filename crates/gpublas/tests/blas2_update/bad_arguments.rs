//! F2, F7, F9, F10: bad arguments are errors naming the argument and its value, and leave
//! every output untouched.

use super::*;
use crate::common::errors::{expect_err, is_pointer, is_size, is_value, Outs};

fn f7_zero_increments_name_reference_blas_info(dev: &Device) {
    let mut h = handle(dev);
    let v = dev.upload(&[0.5f64; 64]).unwrap();
    let mut o = Outs::<f64>::new(dev, &[64]);
    let a = &mut o.bufs[0];
    let al = Coef::Host(1.0f64);
    let u = Uplo::Upper;
    let r = blas2::ger(&mut h, 4, 4, al, &v, 0, &v, 1, a, 4);
    expect_err(r, is_value, &["ger", "incx = 0", "INFO = 5"], "ger incx");
    let r = blas2::ger(&mut h, 4, 4, al, &v, 1, &v, 0, a, 4);
    expect_err(r, is_value, &["ger", "incy = 0", "INFO = 7"], "ger incy");
    let r = blas2::syr(&mut h, u, 4, al, &v, 0, a, 4);
    expect_err(r, is_value, &["syr", "incx = 0", "INFO = 5"], "syr incx");
    let r = blas2::syr2(&mut h, u, 4, al, &v, 1, &v, 0, a, 4);
    expect_err(r, is_value, &["syr2", "incy = 0", "INFO = 7"], "syr2 incy");
    let r = blas2::spr(&mut h, u, 4, al, &v, 0, a);
    expect_err(r, is_value, &["spr", "incx = 0", "INFO = 5"], "spr incx");
    let r = blas2::spr2_strided_batched(&mut h, u, 4, al, &v, 1, 4, &v, 0, 4, a, 10, 2);
    expect_err(
        r,
        is_value,
        &["spr2_strided_batched", "incy = 0"],
        "spr2 incy",
    );
    // The increments before the leading dimension, as reference BLAS checks them.
    let r = blas2::ger(&mut h, 4, 4, al, &v, 0, &v, 1, a, 1);
    expect_err(r, is_value, &["incx = 0"], "ger incx before lda");
    o.check();
}

fn f7_leading_dimensions(dev: &Device) {
    let mut h = handle(dev);
    let v = dev.upload(&[0.5f64; 64]).unwrap();
    let mut o = Outs::<f64>::new(dev, &[64]);
    let a = &mut o.bufs[0];
    let al = Coef::Host(1.0f64);
    let r = blas2::ger(&mut h, 5, 3, al, &v, 1, &v, 1, a, 4);
    expect_err(
        r,
        is_size,
        &["ger", "lda = 4", "max(1, m) = 5"],
        "ger lda < m",
    );
    let r = blas2::ger(&mut h, 0, 3, al, &v, 1, &v, 1, a, 0);
    expect_err(r, is_size, &["lda = 0", "max(1, m) = 1"], "ger lda 0");
    let r = blas2::syr(&mut h, Uplo::Lower, 6, al, &v, 1, a, 5);
    expect_err(
        r,
        is_size,
        &["syr", "lda = 5", "max(1, n) = 6"],
        "syr lda < n",
    );
    let r = blas2::syr2_strided_batched(&mut h, Uplo::Upper, 3, al, &v, 1, 3, &v, 1, 3, a, 2, 9, 2);
    expect_err(r, is_size, &["lda = 2", "3"], "syr2 lda < n");
    o.check();
    let mut oc = Outs::<Complex64>::new(dev, &[64]);
    let vc = dev.upload(&[Complex64::new(0.5, 0.25); 64]).unwrap();
    let r = blas2::her(
        &mut h,
        Uplo::Upper,
        4,
        Coef::Host(1.0),
        &vc,
        1,
        &mut oc.bufs[0],
        3,
    );
    expect_err(r, is_size, &["her", "lda = 3", "4"], "her lda < n");
    let r = blas2::gerc(
        &mut h,
        7,
        2,
        Coef::Host(Complex64::new(1.0, 0.0)),
        &vc,
        1,
        &vc,
        1,
        &mut oc.bufs[0],
        6,
    );
    expect_err(r, is_size, &["gerc", "lda = 6", "7"], "gerc lda < m");
    oc.check();
}

fn f7_short_buffers_name_the_operand(dev: &Device) {
    let mut h = handle(dev);
    let up = |n: usize| dev.upload(&vec![0.5f64; n]).unwrap();
    let (x9, x8, x6) = (up(9), up(8), up(6));
    let mut o = Outs::<f64>::new(dev, &[20, 19, 9, 40]);
    let al = Coef::Host(1.0f64);
    let [a20, a19, ap9, a40] = &mut o.bufs[..] else {
        unreachable!()
    };
    // ger 5 × 4, lda 5: A needs 20, x 5 at incx 2 needs 9, y 4 at incy -2 needs 7.
    let r = blas2::ger(&mut h, 5, 4, al, &x9, 2, &x9, -2, a19, 5);
    expect_err(
        r,
        is_value,
        &["ger", "A has 19 elements", "needs 20"],
        "ger A short",
    );
    let r = blas2::ger(&mut h, 5, 4, al, &x8, 2, &x9, -2, a20, 5);
    expect_err(
        r,
        is_value,
        &["x has 8 elements", "needs 9", "incx = 2"],
        "ger x short",
    );
    let r = blas2::ger(&mut h, 5, 4, al, &x9, 2, &x6, -2, a20, 5);
    expect_err(
        r,
        is_value,
        &["y has 6 elements", "needs 7", "incy = -2"],
        "ger y short",
    );
    // spr of order 4: AP needs 10.
    let r = blas2::spr(&mut h, Uplo::Lower, 4, al, &x9, 1, ap9);
    expect_err(
        r,
        is_value,
        &["spr", "AP has 9 elements", "needs 10"],
        "spr AP short",
    );
    // Strided: the last entry past the buffer (3 entries of 16 at stride 12 need 40... 41).
    let r = blas2::syr_strided_batched(&mut h, Uplo::Upper, 4, al, &x9, 1, 0, a40, 4, 16, 3);
    expect_err(
        r,
        is_value,
        &["has 40 elements", "needs 48", "stride_a = 16"],
        "syr_strided A short",
    );
    let r = blas2::syr2_strided_batched(
        &mut h,
        Uplo::Upper,
        2,
        al,
        &x9,
        1,
        3,
        &x9,
        1,
        5,
        a40,
        2,
        4,
        3,
    );
    expect_err(
        r,
        is_value,
        &["has 9 elements", "needs 12", "stride_y = 5"],
        "syr2_strided y short",
    );
    o.check();
}

/// F9: strided outputs whose entries overlap; F2: list counts that disagree.
fn f9_overlapping_outputs_and_count_mismatches(dev: &Device) {
    let mut h = handle(dev);
    let up = |n: usize| dev.upload(&vec![0.5f64; n]).unwrap();
    let x = up(64);
    let mut o = Outs::<f64>::new(dev, &[64, 16, 16, 16]);
    let al = Coef::Host(1.0f64);
    let [a, l0, l1, l2] = &mut o.bufs[..] else {
        unreachable!()
    };
    let r = blas2::ger_strided_batched(&mut h, 3, 3, al, &x, 1, 3, &x, 1, 3, a, 3, 8, 2);
    expect_err(
        r,
        is_value,
        &["stride_a = 8", "9 elements", "overlap"],
        "ger overlap",
    );
    let r = blas2::spr_strided_batched(&mut h, Uplo::Upper, 4, al, &x, 1, 4, a, 9, 3);
    expect_err(
        r,
        is_value,
        &["stride_ap = 9", "10 elements", "overlap"],
        "spr overlap",
    );
    // A stride of 0 with more than one entry.
    let r = blas2::syr_strided_batched(&mut h, Uplo::Lower, 2, al, &x, 1, 2, a, 2, 0, 2);
    expect_err(r, is_value, &["stride_a = 0", "overlap"], "syr stride 0");
    let xs = [&x, &x];
    let mut outs: Vec<&mut DeviceBuffer<f64>> = vec![l0, l1, l2];
    let r = blas2::syr_batched(&mut h, Uplo::Upper, 3, al, &xs, 1, &mut outs, 3);
    expect_err(
        r,
        is_size,
        &["syr_batched", "A holds 3", "x holds 2"],
        "syr counts",
    );
    let xs3 = [&x, &x, &x];
    let r = blas2::syr2_batched(&mut h, Uplo::Upper, 3, al, &xs3, 1, &xs, 1, &mut outs, 3);
    expect_err(r, is_size, &["A holds 3", "y holds 2"], "syr2 counts");
    drop(outs);
    o.check();
}

/// F10: a device alpha too short for a batch; placeholders outside a query; a buffer of
/// another device.
fn f10_f7_device_alpha_and_placeholders(dev: &Device) {
    let mut h = handle(dev);
    let x = dev.upload(&[0.5f64; 64]).unwrap();
    let mut o = Outs::<f64>::new(dev, &[64]);
    let a = &mut o.bufs[0];
    let two = dev.upload(&[1.0f64, 2.0]).unwrap();
    let r = blas2::ger_strided_batched(
        &mut h,
        3,
        3,
        Coef::DevicePerEntry(&two),
        &x,
        1,
        3,
        &x,
        1,
        3,
        a,
        3,
        9,
        3,
    );
    expect_err(
        r,
        is_value,
        &["alpha", "has 2 elements", "needs 3"],
        "alpha per entry short",
    );
    let ph = DeviceBuffer::<f64>::placeholder(64);
    let r = blas2::syr(&mut h, Uplo::Upper, 4, Coef::Host(1.0), &ph, 1, a, 4);
    expect_err(r, is_pointer, &["x", "placeholder"], "placeholder x");
    let mut pa = DeviceBuffer::<f64>::placeholder(64);
    let r = blas2::syr(&mut h, Uplo::Upper, 4, Coef::Host(1.0), &x, 1, &mut pa, 4);
    expect_err(r, is_pointer, &["A", "placeholder"], "placeholder A");
    o.check();
    // Complex her: real device alpha too short for the batch.
    let mut oc = Outs::<Complex32>::new(dev, &[64]);
    let xc = dev.upload(&[Complex32::new(0.5, 0.5); 64]).unwrap();
    let one = dev.upload(&[1.0f32]).unwrap();
    let r = blas2::hpr_strided_batched(
        &mut h,
        Uplo::Lower,
        3,
        Coef::DevicePerEntry(&one),
        &xc,
        1,
        3,
        &mut oc.bufs[0],
        6,
        2,
    );
    expect_err(
        r,
        is_value,
        &["hpr_strided_batched", "alpha", "needs 2"],
        "hpr alpha short",
    );
    oc.check();
}

on_both_backends!(
    f7_zero_increments_name_reference_blas_info,
    f7_leading_dimensions,
    f7_short_buffers_name_the_operand,
    f9_overlapping_outputs_and_count_mismatches,
    f10_f7_device_alpha_and_placeholders,
);
