//! F7, F9: bad arguments and overlapping operands.

use super::*;

fn err_has(e: &Error, parts: &[&str]) {
    let m = e.to_string();
    for p in parts {
        assert!(m.contains(p), "message {m:?} should name {p:?}");
    }
}

fn f7_bad_arguments_are_errors_naming_values_with_outputs_untouched(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let p = -7.25f64;
    let x = dev.upload(&[1.0f64; 10]).unwrap();
    let x9 = dev.upload(&[1.0f64; 9]).unwrap();
    let mut y = dev.upload(&[p; 8]).unwrap();
    let mut z = dev.upload(&[p; 10]).unwrap();
    let mut w = dev.upload(&[p; 10]).unwrap();
    let mut q = dev.upload(&[p; 10]).unwrap();

    // One element short: 5 elements at incy = 2 need 9; 4 at incx = -3 need 10.
    let e = blas1::axpy(&mut h, 5, 2.0.into(), &x, 1, &mut y, 2).unwrap_err();
    assert!(matches!(e, Error::InvalidValue(_)), "{e}");
    err_has(&e, &["y has 8 elements", "needs 9", "incy = 2"]);
    let e = blas1::copy(&mut h, 4, &x9, -3, &mut z, 1).unwrap_err();
    err_has(&e, &["x has 9 elements", "needs 10", "incx = -3"]);
    let e = blas1::swap(&mut h, 9, &mut z, 1, &mut y, 1).unwrap_err();
    err_has(&e, &["y has 8 elements", "needs 9"]);
    let e = blas1::rot(&mut h, 9, &mut y, 1, &mut z, 1, 0.5.into(), 0.5.into()).unwrap_err();
    err_has(&e, &["x has 8 elements", "needs 9"]);
    // A batch whose last entry runs past the end: 3 entries of 3 at stride 3 need 9.
    let e = blas1::scal_strided_batched(&mut h, 3, 2.0.into(), &mut y, 1, 3, 3).unwrap_err();
    err_has(&e, &["has 8 elements", "needs 9", "stride_x = 3"]);
    let e = blas1::copy_strided_batched(&mut h, 2, &x, 1, 5, &mut y, 1, 3, 3).unwrap_err();
    err_has(
        &e,
        &["x (batch of 3, stride_x = 5) has 10 elements", "needs 12"],
    );
    let e = blas1::copy_strided_batched(&mut h, 2, &x, 1, 2, &mut y, 1, 4, 3).unwrap_err();
    err_has(
        &e,
        &["y (batch of 3, stride_y = 4) has 8 elements", "needs 10"],
    );
    // A list entry one element short.
    {
        let mut short = dev.upload(&[p; 2]).unwrap();
        let e = blas1::swap_batched(
            &mut h,
            3,
            &mut [&mut z, &mut short],
            1,
            &mut [&mut w, &mut q],
            1,
        )
        .unwrap_err();
        err_has(&e, &["x[1] has 2 elements", "needs 3"]);
        assert_eq!(bits64(&short), vec![p.to_bits(); 2]);
    }
    // Device scalars: one value per entry for a batch of 3, and element 0 at least.
    let two = dev.upload(&[0.5f64, 0.5]).unwrap();
    let e = blas1::rot_strided_batched(
        &mut h,
        2,
        &mut z,
        1,
        2,
        &mut w,
        1,
        2,
        Coef::DevicePerEntry(&two),
        0.5.into(),
        3,
    )
    .unwrap_err();
    err_has(&e, &["device scalar c has 2 elements", "needs 3"]);
    let empty = dev.alloc::<f64>(0).unwrap();
    let e = blas1::axpy(&mut h, 2, Coef::Device(&empty), &x, 1, &mut z, 1).unwrap_err();
    err_has(&e, &["device scalar alpha has 0 elements", "needs 1"]);
    // rotm's parameters: five values.
    let p4 = dev.upload(&[-1.0f64, 1.0, 0.0, 0.0]).unwrap();
    let e = blas1::rotm(&mut h, 2, &mut z, 1, &mut w, 1, &p4).unwrap_err();
    assert!(matches!(e, Error::InvalidValue(_)), "{e}");
    err_has(&e, &["param has 4 elements", "needs 5"]);
    let p9 = dev.upload(&[-2.0f64; 9]).unwrap();
    let e =
        blas1::rotm_strided_batched(&mut h, 2, &mut z, 1, 2, &mut w, 1, 2, &p9, 5, 2).unwrap_err();
    err_has(
        &e,
        &[
            "param (batch of 2, stride_param = 5) has 9 elements",
            "needs 10",
        ],
    );
    // rotg / rotmg: one value each, five for rotmg's param.
    {
        let mut c0 = dev.alloc::<f64>(0).unwrap();
        let e = blas1::rotg(&mut h, &mut z, &mut w, &mut c0, &mut q).unwrap_err();
        err_has(&e, &["c has 0 elements", "needs 1"]);
        let mut pm4 = dev.upload(&[p; 4]).unwrap();
        let e = blas1::rotmg(&mut h, &mut z, &mut w, &mut q, &x, &mut pm4).unwrap_err();
        err_has(&e, &["param has 4 elements", "needs 5"]);
        assert_eq!(bits64(&pm4), vec![p.to_bits(); 4]);
        let e = blas1::rotmg_strided_batched(
            &mut h, &mut z, 1, &mut w, 1, &mut q, 1, &x, 1, &mut y, 5, 2,
        )
        .unwrap_err();
        err_has(&e, &["has 8 elements", "needs 10"]);
    }
    // Overflowing sizes.
    let e = blas1::axpy(&mut h, usize::MAX, 2.0.into(), &x, isize::MAX, &mut z, 1).unwrap_err();
    assert!(matches!(e, Error::InvalidSize(_)), "{e}");
    let e =
        blas1::scal_strided_batched(&mut h, 2, 2.0.into(), &mut z, 1, usize::MAX, 3).unwrap_err();
    assert!(matches!(e, Error::InvalidSize(_)), "{e}");

    // Placeholders outside a query.
    let ph = DeviceBuffer::<f64>::placeholder(10);
    let mut phm = DeviceBuffer::<f64>::placeholder(10);
    for (what, e) in [
        ("x", blas1::axpy(&mut h, 3, 2.0.into(), &ph, 1, &mut z, 1)),
        ("y", blas1::copy(&mut h, 3, &x, 1, &mut phm, 1)),
        (
            "alpha",
            blas1::axpy(&mut h, 3, Coef::Device(&ph), &x, 1, &mut z, 1),
        ),
        ("param", blas1::rotm(&mut h, 3, &mut z, 1, &mut w, 1, &ph)),
        ("s", blas1::rotg(&mut h, &mut z, &mut w, &mut q, &mut phm)),
        (
            "y1",
            blas1::rotmg(&mut h, &mut z, &mut w, &mut q, &ph, &mut y),
        ),
    ] {
        let e = e.unwrap_err();
        assert!(matches!(e, Error::InvalidPointer(_)), "{what}: {e}");
        err_has(&e, &["placeholder"]);
    }
    // Buffers of another device, as input, output or device scalar.
    let other = Device::host();
    let xo = other.upload(&[1.0f64; 10]).unwrap();
    let mut yo = other.upload(&[p; 10]).unwrap();
    for (what, e) in [
        ("x", blas1::axpy(&mut h, 3, 2.0.into(), &xo, 1, &mut z, 1)),
        ("y", blas1::axpy(&mut h, 3, 2.0.into(), &x, 1, &mut yo, 1)),
        ("scal x", blas1::scal(&mut h, 3, 2.0.into(), &mut yo, 1)),
        (
            "c",
            blas1::rot(
                &mut h,
                3,
                &mut z,
                1,
                &mut w,
                1,
                Coef::Device(&xo),
                0.5.into(),
            ),
        ),
        (
            "rotg a",
            blas1::rotg(&mut h, &mut yo, &mut w, &mut q, &mut z),
        ),
    ] {
        let e = e.unwrap_err();
        assert!(matches!(e, Error::InvalidPointer(_)), "{what}: {e}");
    }
    assert_eq!(bits64(&yo), vec![p.to_bits(); 10]);
    // Lists of different lengths.
    let e = blas1::axpy_batched(&mut h, 3, 2.0.into(), &[&x, &x], 1, &mut [&mut z], 1).unwrap_err();
    assert!(matches!(e, Error::InvalidSize(_)), "{e}");
    err_has(&e, &["holds 2 entries", "holds 1"]);
    let e = blas1::swap_batched(&mut h, 3, &mut [&mut z], 1, &mut [&mut w, &mut q], 1).unwrap_err();
    assert!(matches!(e, Error::InvalidSize(_)), "{e}");
    let e = blas1::rotm_batched(&mut h, 3, &mut [&mut z], 1, &mut [&mut w], 1, &[&p9, &p9])
        .unwrap_err();
    assert!(matches!(e, Error::InvalidSize(_)), "{e}");
    err_has(&e, &["param holds 2"]);
    {
        let mut c1 = dev.upload(&[p]).unwrap();
        let e = blas1::rotg_batched(
            &mut h,
            &mut [&mut z, &mut w],
            &mut [&mut q],
            &mut [&mut c1],
            &mut [&mut y],
        )
        .unwrap_err();
        assert!(matches!(e, Error::InvalidSize(_)), "{e}");
        assert_eq!(bits64(&c1), vec![p.to_bits()]);
        let mut p1 = dev.upload(&[p; 5]).unwrap();
        let e = blas1::rotmg_batched(
            &mut h,
            &mut [&mut z],
            &mut [&mut w],
            &mut [&mut q],
            &[&x, &x],
            &mut [&mut p1],
        )
        .unwrap_err();
        assert!(matches!(e, Error::InvalidSize(_)), "{e}");
        err_has(&e, &["y1 holds 2"]);
    }
    for (name, b) in [("y", &y), ("z", &z), ("w", &w), ("q", &q)] {
        assert!(
            bits64(b).iter().all(|&v| v == p.to_bits()),
            "{name} was touched: {:?}",
            b.to_vec().unwrap()
        );
    }
    assert!(bits64(&x).iter().all(|&v| v == 1f64.to_bits()));
}

fn f9_overlapping_outputs_are_invalid_inputs_may_overlap(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let p = -7.25f64;
    let x = dev.upload(&[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let mut y = dev.upload(&[p; 12]).unwrap();
    let mut z = dev.upload(&[p; 12]).unwrap();
    let mut c = dev.upload(&[p; 12]).unwrap();
    let mut s = dev.upload(&[p; 12]).unwrap();
    let inv = |e: Error, parts: &[&str]| {
        assert!(matches!(e, Error::InvalidValue(_)), "{e}");
        err_has(&e, parts);
    };
    // Strided outputs whose stride is less than one vector's span.
    inv(
        blas1::axpy_strided_batched(&mut h, 4, 2.0.into(), &x, 1, 0, &mut y, 1, 3, 2).unwrap_err(),
        &["stride_y = 3", "spans 4"],
    );
    inv(
        blas1::copy_strided_batched(&mut h, 2, &x, 1, 2, &mut y, -2, 2, 3).unwrap_err(),
        &["stride_y = 2", "spans 3"],
    );
    inv(
        blas1::scal_strided_batched(&mut h, 3, 2.0.into(), &mut y, 1, 0, 4).unwrap_err(),
        &["stride_x = 0"],
    );
    inv(
        blas1::rot_strided_batched(
            &mut h,
            3,
            &mut y,
            2,
            4,
            &mut z,
            1,
            3,
            0.5.into(),
            0.5.into(),
            2,
        )
        .unwrap_err(),
        &["stride_x = 4", "spans 5"],
    );
    inv(
        blas1::swap_strided_batched(&mut h, 2, &mut y, 1, 2, &mut z, 1, 1, 2).unwrap_err(),
        &["stride_y = 1"],
    );
    inv(
        blas1::rotg_strided_batched(&mut h, &mut y, 1, &mut z, 1, &mut c, 0, &mut s, 1, 2)
            .unwrap_err(),
        &["stride_c = 0"],
    );
    inv(
        blas1::rotmg_strided_batched(&mut h, &mut y, 1, &mut z, 1, &mut c, 1, &x, 1, &mut s, 4, 2)
            .unwrap_err(),
        &["stride_param = 4", "spans 5"],
    );
    // An output increment of 0 is valid within an entry (tests/reference/increments.rs), but
    // entries at stride 0 would still share their one output element.
    inv(
        blas1::axpy_strided_batched(&mut h, 2, 2.0.into(), &x, 1, 2, &mut y, 0, 0, 2).unwrap_err(),
        &["stride_y = 0", "spans 1"],
    );
    let pr = dev.upload(&[-1.0f64, 1.0, 2.0, 3.0, 4.0]).unwrap();
    inv(
        blas1::rotm_strided_batched(&mut h, 2, &mut y, 0, 0, &mut z, 1, 2, &pr, 0, 2).unwrap_err(),
        &["stride_x = 0", "spans 1"],
    );
    for (name, b) in [("y", &y), ("z", &z), ("c", &c), ("s", &s)] {
        assert!(
            bits64(b).iter().all(|&v| v == p.to_bits()),
            "{name} was touched: {:?}",
            b.to_vec().unwrap()
        );
    }
    // Inputs may overlap: every entry reads the same x (stride 0), and an input increment 0.
    let mut y = dev.upload(&[1.0f64; 9]).unwrap();
    let _ = blas1::axpy_strided_batched(&mut h, 3, 2.0.into(), &x, 1, 0, &mut y, 1, 3, 3).unwrap();
    assert_eq!(
        y.to_vec().unwrap(),
        vec![3.0, 5.0, 7.0, 3.0, 5.0, 7.0, 3.0, 5.0, 7.0]
    );
    let _ = blas1::copy_strided_batched(&mut h, 3, &x, 0, 1, &mut y, -1, 3, 3).unwrap();
    assert_eq!(
        y.to_vec().unwrap(),
        vec![1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0]
    );
    // n == 1 with an output increment 0 is one element: fine, at distinct strides.
    let _ = blas1::axpy_strided_batched(&mut h, 1, 1.0.into(), &x, 0, 1, &mut y, 0, 3, 3).unwrap();
    assert_eq!(
        y.to_vec().unwrap(),
        vec![2.0, 1.0, 1.0, 4.0, 2.0, 2.0, 6.0, 3.0, 3.0]
    );
}

/// F9 for vectors of one element: at increment 0 a one-element output still is one element,
/// so entries at stride 0 overlap exactly as they do at increment 1 (which is rejected).
fn f9_one_element_outputs_at_increment_zero_and_stride_zero_overlap(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let p = -7.25f64;
    let x = dev.upload(&[1.0f64, 2.0, 3.0]).unwrap();
    let mut y = dev.upload(&[p; 2]).unwrap();
    let mut z = dev.upload(&[1.0f64, 2.0]).unwrap();
    let mut w = dev.upload(&[3.0f64, 4.0]).unwrap();
    // The same call at incy = 1 is rejected, as F9 requires.
    let e =
        blas1::axpy_strided_batched(&mut h, 1, 1.0.into(), &x, 1, 1, &mut y, 1, 0, 3).unwrap_err();
    assert!(matches!(e, Error::InvalidValue(_)), "{e}");
    // At incy = 0: three entries would all update y[0]; at incx = 0 two entries swap x[0].
    let r1 = blas1::axpy_strided_batched(&mut h, 1, 1.0.into(), &x, 1, 1, &mut y, 0, 0, 3);
    let r2 = blas1::swap_strided_batched(&mut h, 1, &mut z, 0, 0, &mut w, 1, 1, 2);
    let (gy, gz, gw) = (
        y.to_vec().unwrap(),
        z.to_vec().unwrap(),
        w.to_vec().unwrap(),
    );
    assert!(
        matches!(r1, Err(Error::InvalidValue(_))) && matches!(r2, Err(Error::InvalidValue(_))),
        "outputs of one element at increment 0 and stride 0 overlap (F9): \
         axpy_strided_batched n=1 incy=0 stride_y=0 batch=3 gave {r1:?} with y = {gy:?}; \
         swap_strided_batched n=1 incx=0 stride_x=0 batch=2 gave {r2:?} with x = {gz:?}, \
         y = {gw:?}; want InvalidValue and nothing touched"
    );
    assert_eq!(bits64(&y), vec![p.to_bits(); 2]);
    assert_eq!(z.to_vec().unwrap(), vec![1.0, 2.0]);
    assert_eq!(w.to_vec().unwrap(), vec![3.0, 4.0]);
}

crate::on_both_backends!(
    f7_bad_arguments_are_errors_naming_values_with_outputs_untouched,
    f9_overlapping_outputs_are_invalid_inputs_may_overlap,
    f9_one_element_outputs_at_increment_zero_and_stride_zero_overlap,
);
