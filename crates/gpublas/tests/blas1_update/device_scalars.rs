//! F10: device scalars, shared and per entry.

use super::*;

fn f10_device_scalars_shared_and_per_entry(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let (n, batch) = (5usize, 3usize);
    let x: Vec<f64> = (0..n * batch).map(|i| i as f64 + 1.0).collect();
    let xb = dev.upload(&x).unwrap();
    let per = dev.upload(&[2.0f64, -3.0, 0.5]).unwrap();
    let shared = dev.upload(&[4.0f64, 100.0, 100.0]).unwrap();
    // axpy: y_v = alpha_v x_v + y_v.
    for (coef, alphas) in [
        (Coef::DevicePerEntry(&per), [2.0, -3.0, 0.5]),
        (Coef::Device(&shared), [4.0; 3]),
    ] {
        let mut y = dev.upload(&vec![1.0f64; n * batch + 1]).unwrap();
        let _ =
            blas1::axpy_strided_batched(&mut h, n, coef, &xb, 1, n, &mut y, 1, n, batch).unwrap();
        let got = y.to_vec().unwrap();
        for v in 0..batch {
            for i in 0..n {
                assert_eq!(got[v * n + i], alphas[v] * x[v * n + i] + 1.0, "axpy v={v}");
            }
        }
        assert_eq!(got[n * batch], 1.0);
        // scal on a list, alpha per entry.
        let mut l: Vec<DeviceBuffer<f64>> = (0..batch)
            .map(|v| dev.upload(&x[v * n..(v + 1) * n]).unwrap())
            .collect();
        let mut lm: Vec<&mut DeviceBuffer<f64>> = l.iter_mut().collect();
        let _ = blas1::scal_batched(&mut h, n, coef, &mut lm, 1).unwrap();
        for v in 0..batch {
            let got = l[v].to_vec().unwrap();
            for i in 0..n {
                assert_eq!(got[i], alphas[v] * x[v * n + i], "scal v={v}");
            }
        }
    }
    // rot: c and s per entry (complex s), and shared.
    let cs = dev.upload(&[0.6f64, 0.0, 1.0]).unwrap();
    let ss = dev
        .upload(&[
            Complex64::new(0.8, 0.0),
            Complex64::new(0.0, 1.0),
            Complex64::new(0.0, 0.0),
        ])
        .unwrap();
    let xs: Vec<Complex64> = (0..n * batch)
        .map(|i| Complex64::new(i as f64, 1.0))
        .collect();
    let ys: Vec<Complex64> = (0..n * batch)
        .map(|i| Complex64::new(-2.0, i as f64 * 0.5))
        .collect();
    let mut xb = dev.upload(&xs).unwrap();
    let mut yb = dev.upload(&ys).unwrap();
    let _ = blas1::rot_strided_batched(
        &mut h,
        n,
        &mut xb,
        1,
        n,
        &mut yb,
        1,
        n,
        Coef::DevicePerEntry(&cs),
        Coef::DevicePerEntry(&ss),
        batch,
    )
    .unwrap();
    let (gx, gy) = (xb.to_vec().unwrap(), yb.to_vec().unwrap());
    let cv = [0.6, 0.0, 1.0];
    let sv = [(0.8, 0.0), (0.0, 1.0), (0.0, 0.0)];
    for v in 0..batch {
        for i in 0..n {
            let k = v * n + i;
            let (xv, yv) = ((xs[k].re, xs[k].im), (ys[k].re, ys[k].im));
            let wx = add(mul((cv[v], 0.0), xv), mul(sv[v], yv));
            let wy = add(mul((cv[v], 0.0), yv), mul((-sv[v].0, sv[v].1), xv));
            for (g, w) in [(gx[k], wx), (gy[k], wy)] {
                assert!(
                    (g.re - w.0).abs() < 1e-14 * (1.0 + w.0.abs())
                        && (g.im - w.1).abs() < 1e-14 * (1.0 + w.1.abs()),
                    "rot v={v} i={i}: got {g}, want {w:?}"
                );
            }
        }
    }
    // rot with c and s from element 0 of device buffers, single form.
    let mut x1 = dev.upload(&[1.0f32, 2.0]).unwrap();
    let mut y1 = dev.upload(&[3.0f32, 4.0]).unwrap();
    let c0 = dev.upload(&[0.0f32, 9.0]).unwrap();
    let s0 = dev.upload(&[1.0f32, 9.0]).unwrap();
    let _ = blas1::rot(
        &mut h,
        2,
        &mut x1,
        1,
        &mut y1,
        1,
        Coef::Device(&c0),
        Coef::Device(&s0),
    )
    .unwrap();
    assert_eq!(x1.to_vec().unwrap(), vec![3.0, 4.0]);
    assert_eq!(y1.to_vec().unwrap(), vec![-1.0, -2.0]);
}

crate::on_both_backends!(f10_device_scalars_shared_and_per_entry);
