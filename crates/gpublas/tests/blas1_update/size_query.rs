//! M8: the device memory size query.

use super::*;

fn m08_size_query_answers_size_unchanged_and_touches_nothing(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let n = 100;
    let ph = || DeviceBuffer::<f64>::placeholder(1000);
    let phc = || DeviceBuffer::<Complex32>::placeholder(1000);
    let phr = || DeviceBuffer::<f32>::placeholder(1000);
    let (x, mut y, mut z, mut w, mut v) = (ph(), ph(), ph(), ph(), ph());
    let (xc, mut yc, mut zc, mut sc) = (phc(), phc(), phc(), phc());
    let mut cr = phr();
    let (xl1, xl2) = (ph(), ph());
    let (mut yl1, mut yl2, mut zl1, mut zl2) = (ph(), ph(), ph(), ph());
    let dev_alpha = ph();
    let real = dev.upload(&[1.0f64; 1000]).unwrap();
    let p = -7.25f64;
    let mut out = dev.upload(&[p; 1000]).unwrap();
    h.start_device_memory_size_query().unwrap();
    let calls: Vec<(&str, Result<Status, Error>)> = vec![
        ("axpy", blas1::axpy(&mut h, n, 2.0.into(), &x, 1, &mut y, 1)),
        (
            "axpy device alpha",
            blas1::axpy(&mut h, n, Coef::Device(&dev_alpha), &x, -2, &mut y, 3),
        ),
        (
            "axpy_batched",
            blas1::axpy_batched(
                &mut h,
                n,
                Coef::DevicePerEntry(&dev_alpha),
                &[&xl1, &xl2],
                1,
                &mut [&mut yl1, &mut yl2],
                1,
            ),
        ),
        (
            "axpy_strided_batched",
            blas1::axpy_strided_batched(&mut h, n, 2.0.into(), &x, 1, n, &mut y, 1, n, 7),
        ),
        ("scal", blas1::scal(&mut h, n, 2.0.into(), &mut y, 1)),
        (
            "scal_batched",
            blas1::scal_batched(&mut h, n, 2.0.into(), &mut [&mut yl1, &mut yl2], 1),
        ),
        (
            "scal_strided_batched",
            blas1::scal_strided_batched(&mut h, n, 2.0.into(), &mut y, 1, n, 3),
        ),
        ("copy", blas1::copy(&mut h, n, &x, 1, &mut y, 1)),
        (
            "copy_batched",
            blas1::copy_batched(&mut h, n, &[&xl1, &xl2], 1, &mut [&mut yl1, &mut yl2], 1),
        ),
        (
            "copy_strided_batched",
            blas1::copy_strided_batched(&mut h, n, &x, 1, n, &mut y, 1, n, 3),
        ),
        ("swap", blas1::swap(&mut h, n, &mut y, 1, &mut z, 1)),
        (
            "swap_batched",
            blas1::swap_batched(
                &mut h,
                n,
                &mut [&mut yl1, &mut yl2],
                1,
                &mut [&mut zl1, &mut zl2],
                1,
            ),
        ),
        (
            "swap_strided_batched",
            blas1::swap_strided_batched(&mut h, n, &mut y, 1, n, &mut z, 1, n, 3),
        ),
        (
            "rot",
            blas1::rot(
                &mut h,
                n,
                &mut yc,
                1,
                &mut zc,
                1,
                0.5.into(),
                Coef::Device(&xc),
            ),
        ),
        (
            "rot_batched",
            blas1::rot_batched(
                &mut h,
                n,
                &mut [&mut yl1, &mut yl2],
                1,
                &mut [&mut zl1, &mut zl2],
                1,
                Coef::DevicePerEntry(&dev_alpha),
                0.5.into(),
            ),
        ),
        (
            "rot_strided_batched",
            blas1::rot_strided_batched(
                &mut h,
                n,
                &mut y,
                1,
                n,
                &mut z,
                1,
                n,
                0.5.into(),
                0.5.into(),
                3,
            ),
        ),
        ("rotm", blas1::rotm(&mut h, n, &mut y, 1, &mut z, 1, &x)),
        (
            "rotm_batched",
            blas1::rotm_batched(
                &mut h,
                n,
                &mut [&mut yl1, &mut yl2],
                1,
                &mut [&mut zl1, &mut zl2],
                1,
                &[&xl1, &xl2],
            ),
        ),
        (
            "rotm_strided_batched",
            blas1::rotm_strided_batched(&mut h, n, &mut y, 1, n, &mut z, 1, n, &x, 5, 3),
        ),
        (
            "rotg",
            blas1::rotg(&mut h, &mut yc, &mut zc, &mut cr, &mut sc),
        ),
        (
            "rotg_batched",
            blas1::rotg_batched(
                &mut h,
                &mut [&mut yl1, &mut yl2],
                &mut [&mut zl1, &mut zl2],
                &mut [&mut w, &mut v],
                &mut [&mut y, &mut z],
            ),
        ),
        (
            "rotg_strided_batched",
            blas1::rotg_strided_batched(&mut h, &mut y, 1, &mut z, 1, &mut w, 1, &mut v, 1, 7),
        ),
        (
            "rotmg",
            blas1::rotmg(&mut h, &mut y, &mut z, &mut w, &x, &mut v),
        ),
        (
            "rotmg_batched",
            blas1::rotmg_batched(
                &mut h,
                &mut [&mut yl1],
                &mut [&mut zl1],
                &mut [&mut w],
                &[&x],
                &mut [&mut v],
            ),
        ),
        (
            "rotmg_strided_batched",
            blas1::rotmg_strided_batched(
                &mut h, &mut y, 1, &mut z, 1, &mut w, 1, &x, 1, &mut v, 5, 7,
            ),
        ),
        // Real operands during a query: nothing runs, nothing is written.
        (
            "axpy on real buffers",
            blas1::axpy(&mut h, n, 2.0.into(), &real, 1, &mut out, 1),
        ),
        (
            "scal on real buffers",
            blas1::scal(&mut h, n, 2.0.into(), &mut out, 1),
        ),
    ];
    for (name, r) in calls {
        match r {
            Ok(Status::SizeUnchanged) => {}
            other => panic!("{name} during a query: {other:?}"),
        }
    }
    // Size and shape errors are still reported during a query.
    let e = blas1::copy_batched(&mut h, 2, &[&xl1], 1, &mut [&mut yl1, &mut yl2], 1).unwrap_err();
    assert!(matches!(e, Error::InvalidSize(_)), "{e}");
    assert!(h.is_device_memory_size_query());
    assert_eq!(h.stop_device_memory_size_query().unwrap(), 0);
    assert_eq!(bits64(&out), vec![p.to_bits(); 1000]);
}

crate::on_both_backends!(m08_size_query_answers_size_unchanged_and_touches_nothing);
