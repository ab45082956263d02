//! F3: quick returns touch nothing.

use super::*;

fn f3_quick_returns_touch_nothing(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let p = -7.25f64;
    let x = dev.upload(&[1.0f64, f64::NAN, 3.0, f64::INFINITY]).unwrap();
    let mut y = dev.upload(&[p; 4]).unwrap();
    let mut z = dev.upload(&[p; 4]).unwrap();
    let mut c = dev.upload(&[p; 4]).unwrap();
    let mut s = dev.upload(&[p; 4]).unwrap();
    let pr = dev.upload(&[-1.0f64, 2.0, 3.0, 4.0, 5.0]).unwrap();
    let ok = |r: Result<Status, Error>| assert_eq!(r.unwrap(), Status::Success);
    // n == 0: every routine, even with empty buffers.
    let mut e0 = dev.alloc::<f64>(0).unwrap();
    let mut e1 = dev.alloc::<f64>(0).unwrap();
    ok(blas1::axpy(&mut h, 0, 2.0.into(), &x, 1, &mut y, 1));
    ok(blas1::axpy(&mut h, 0, 2.0.into(), &e0, 1, &mut e1, 1));
    ok(blas1::scal(&mut h, 0, 2.0.into(), &mut y, 1));
    ok(blas1::copy(&mut h, 0, &x, 1, &mut y, -1));
    ok(blas1::swap(&mut h, 0, &mut y, 1, &mut z, 1));
    ok(blas1::swap(&mut h, 0, &mut e0, 1, &mut e1, 1));
    ok(blas1::rot(
        &mut h,
        0,
        &mut y,
        1,
        &mut z,
        1,
        0.5.into(),
        0.5.into(),
    ));
    ok(blas1::rotm(&mut h, 0, &mut y, 1, &mut z, 1, &pr));
    ok(blas1::axpy_strided_batched(
        &mut h,
        0,
        2.0.into(),
        &x,
        1,
        1,
        &mut y,
        1,
        1,
        4,
    ));
    ok(blas1::copy_batched(
        &mut h,
        0,
        &[&x, &x],
        1,
        &mut [&mut y, &mut z],
        1,
    ));
    // batch == 0.
    ok(blas1::scal_strided_batched(
        &mut h,
        4,
        2.0.into(),
        &mut y,
        1,
        4,
        0,
    ));
    ok(blas1::rot_batched(
        &mut h,
        4,
        &mut [],
        1,
        &mut [],
        1,
        0.5.into(),
        0.5.into(),
    ));
    ok(blas1::rotg_strided_batched(
        &mut h, &mut y, 1, &mut z, 1, &mut c, 1, &mut s, 1, 0,
    ));
    ok(blas1::rotg_batched::<f64>(
        &mut h,
        &mut [],
        &mut [],
        &mut [],
        &mut [],
    ));
    ok(blas1::rotmg_strided_batched(
        &mut h, &mut y, 1, &mut z, 1, &mut c, 1, &x, 1, &mut s, 5, 0,
    ));
    // scal with incx <= 0 does nothing.
    ok(blas1::scal(&mut h, 4, 2.0.into(), &mut y, -1));
    ok(blas1::scal(&mut h, 4, 2.0.into(), &mut y, 0));
    ok(blas1::scal_batched(
        &mut h,
        2,
        2.0.into(),
        &mut [&mut y, &mut z],
        -2,
    ));
    // axpy with a host alpha of 0 does not touch y, not even with NaN and Inf in x.
    ok(blas1::axpy(&mut h, 4, 0.0.into(), &x, 1, &mut y, 1));
    ok(blas1::axpy(&mut h, 4, (-0.0).into(), &x, -1, &mut z, 1));
    ok(blas1::axpy_strided_batched(
        &mut h,
        2,
        0.0.into(),
        &x,
        1,
        2,
        &mut y,
        1,
        2,
        2,
    ));
    // rotm with flag -2 is the identity (its other parameters are not read).
    let pn = dev
        .upload(&[-2.0f64, f64::NAN, f64::NAN, f64::NAN, f64::NAN])
        .unwrap();
    ok(blas1::rotm(&mut h, 4, &mut y, 1, &mut z, 1, &pn));
    for (name, b) in [("y", &y), ("z", &z), ("c", &c), ("s", &s)] {
        assert!(
            bits64(b).iter().all(|&v| v == p.to_bits()),
            "{name} was touched: {:?}",
            b.to_vec().unwrap()
        );
    }
    assert_eq!(
        bits64(&pr),
        [-1.0f64, 2.0, 3.0, 4.0, 5.0].map(f64::to_bits).to_vec()
    );
    // Complex axpy with a host alpha of 0 likewise.
    let xc = dev
        .upload(&[
            Complex32::new(f32::NAN, 1.0),
            Complex32::new(1.0, f32::INFINITY),
        ])
        .unwrap();
    let pc = Complex32::new(-7.25, 3.5);
    let mut yc = dev.upload(&[pc; 2]).unwrap();
    ok(blas1::axpy(
        &mut h,
        2,
        Complex32::new(0.0, 0.0).into(),
        &xc,
        1,
        &mut yc,
        1,
    ));
    assert_eq!(yc.to_vec().unwrap(), vec![pc; 2]);
}

crate::on_both_backends!(f3_quick_returns_touch_nothing);
