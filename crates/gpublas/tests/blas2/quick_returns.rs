//! F3, F10: quick returns, beta = 0, alpha = 0, device scalars.

use super::*;

/// Shapes of the scalar tests: gemv both ways, symv, and hemv for complex types.
fn scalar_cases<E: T>(incx: isize, incy: isize) -> Vec<Case> {
    let mut v = vec![
        Case::gemv(Op::N, 33, 65, 36, incx, incy),
        Case::gemv(Op::C, 65, 33, 65, incx, incy),
        Case::sym(Rt::Symv, Uplo::Upper, 65, 65, incx, incy),
        Case::sym(Rt::Symv, Uplo::Lower, 33, 40, incx, incy),
    ];
    if E::CPLX {
        v.push(Case::sym(Rt::Hemv, Uplo::Upper, 33, 33, incx, incy));
        v.push(Case::sym(Rt::Hemv, Uplo::Lower, 65, 70, incx, incy));
    }
    v
}

fn run_prepared<E: T>(h: &mut Handle, p: &mut Prepared<E>, what: &str) {
    let st = p.call(h).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(st, Status::Success, "{what}");
    p.check(what);
}

fn quick_returns<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let (two, one, zero) = (mk::<E>((2.0, 0.5)), mk::<E>(ONE), mk::<E>(ZERO));
    let forms = [Form::Single, Form::List(3), Form::Strided(3)];
    for form in forms {
        // m == 0 or n == 0: y keeps its values even though beta != 1 and it has elements.
        for c in [
            Case::gemv(Op::N, 5, 0, 5, 1, 1),
            Case::gemv(Op::T, 0, 5, 1, 1, -2),
            Case::gemv(Op::C, 0, 4, 1, 2, 1),
            Case::gemv(Op::N, 0, 0, 1, 1, 1),
            Case::sym(Rt::Symv, Uplo::Upper, 0, 1, 1, 1),
        ] {
            let mut p = prepare(dev, &mut r, c, form, Scal::Host, &[two], &[two], false);
            let what = format!("{} quick {c:?} {form:?}", E::NAME);
            run_prepared(&mut h, &mut p, &what);
            p.untouched(&what);
        }
        // Triangular n == 0.
        for rt in [Rt::Trmv, Rt::Tbmv, Rt::Tpmv, Rt::Trsv] {
            let c = Case::tri(rt, Uplo::Lower, Op::T, Diag::NonUnit, 0, 0, 1, 1);
            let mut p = prepare(dev, &mut r, c, form, Scal::Host, &[one], &[zero], false);
            let what = format!("{} quick {c:?} {form:?}", E::NAME);
            run_prepared(&mut h, &mut p, &what);
            p.untouched(&what);
        }
        // Host alpha == 0 and beta == 1: nothing read, nothing written (A and x are NaN).
        for c in scalar_cases::<E>(-2, 1) {
            let mut p = prepare(dev, &mut r, c, form, Scal::Host, &[zero], &[one], true);
            let what = format!("{} alpha=0 beta=1 {c:?} {form:?}", E::NAME);
            run_prepared(&mut h, &mut p, &what);
            p.untouched(&what);
        }
    }
}

fn f3_quick_returns_touch_nothing(dev: &Device) {
    quick_returns::<f32>(dev, 71);
    quick_returns::<Complex64>(dev, 72);
}

fn zero_scalars<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let (a, b) = (mk::<E>((0.75, -0.5)), mk::<E>((-1.25, 0.25)));
    let (one, zero) = (mk::<E>(ONE), mk::<E>(ZERO));
    for form in [Form::Single, Form::List(3), Form::Strided(3)] {
        for &(incx, incy) in &[(1, 1), (-2, 3)] {
            for c in scalar_cases::<E>(incx, incy) {
                // (alpha, beta, scalars, A and x NaN)
                for (alpha, beta, scal, nan_a) in [
                    (a, zero, Scal::Host, false),    // y NaN, not read
                    (one, zero, Scal::Host, false),  // y NaN, not read
                    (zero, b, Scal::Host, true),     // y = beta y, A and x NaN, not read
                    (zero, zero, Scal::Host, true),  // y = 0 from NaN everywhere
                    (zero, one, Scal::Device, true), // no host quick return: y = y
                    (a, zero, Scal::Device, false),
                    (zero, b, Scal::Device, true),
                ] {
                    let mut p = prepare(dev, &mut r, c, form, scal, &[alpha], &[beta], nan_a);
                    let what = format!(
                        "{} {c:?} {form:?} alpha={alpha:?} beta={beta:?} {scal:?} nan_a={nan_a}",
                        E::NAME
                    );
                    run_prepared(&mut h, &mut p, &what);
                }
            }
        }
    }
}

fn f10_beta_zero_ignores_y_and_alpha_zero_ignores_a_and_x(dev: &Device) {
    zero_scalars::<f32>(dev, 81);
    zero_scalars::<f64>(dev, 82);
    zero_scalars::<Complex32>(dev, 83);
    zero_scalars::<Complex64>(dev, 84);
}

fn device_scalars<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let vals: Vec<C> = vec![
        (0.75, -0.5),
        (0.0, 0.0),
        (-1.25, 0.25),
        (1.0, 0.0),
        (2.0, 1.5),
    ];
    let alphas: Vec<E> = vals.iter().map(|&v| mk(v)).collect();
    // Entry 1: alpha 0 with beta != 0; entry 3: beta 0 (y NaN there); entry 4: beta 1.
    let betas: Vec<E> = [(0.5, 0.5), (-2.0, 0.0), (1.5, -1.0), (0.0, 0.0), (1.0, 0.0)]
        .iter()
        .map(|&v| mk(v))
        .collect();
    for c in scalar_cases::<E>(-1, 2) {
        for form in [Form::Single, Form::List(3), Form::Strided(3)] {
            let mut p = prepare(dev, &mut r, c, form, Scal::Device, &alphas, &betas, false);
            let what = format!("{} {c:?} {form:?} Coef::Device", E::NAME);
            run_prepared(&mut h, &mut p, &what);
        }
        for form in [
            Form::Single,
            Form::List(5),
            Form::Strided(5),
            Form::List(0),
            Form::Strided(0),
        ] {
            let mut p = prepare(dev, &mut r, c, form, Scal::PerEntry, &alphas, &betas, false);
            let what = format!("{} {c:?} {form:?} Coef::DevicePerEntry", E::NAME);
            run_prepared(&mut h, &mut p, &what);
        }
    }
}

fn f10_device_scalars_single_and_per_entry(dev: &Device) {
    device_scalars::<f32>(dev, 91);
    device_scalars::<f64>(dev, 92);
    device_scalars::<Complex32>(dev, 93);
    device_scalars::<Complex64>(dev, 94);
}

/// Inputs of one call may overlap (F9): one matrix and one x for every entry (stride 0, or a
/// list naming one buffer repeatedly).
fn f9_inputs_may_overlap(dev: &Device) {
    let mut h = handle(dev);
    let (m, n, batch) = (7usize, 5usize, 3usize);
    let a: Vec<f64> = (0..m * n).map(|i| (i % 11) as f64 - 4.0).collect();
    let x: Vec<f64> = (0..n).map(|i| i as f64 * 0.5 - 1.0).collect();
    let want: Vec<f64> = (0..m)
        .map(|i| (0..n).map(|j| a[i + j * m] * x[j]).sum::<f64>())
        .collect();
    let ab = dev.upload(&a).unwrap();
    let xb = dev.upload(&x).unwrap();
    let mut y = dev.upload(&vec![f64::NAN; m * batch + 1]).unwrap();
    let st = blas2::gemv_strided_batched(
        &mut h,
        Op::N,
        m,
        n,
        1.0.into(),
        &ab,
        m,
        0,
        &xb,
        1,
        0,
        0.0.into(),
        &mut y,
        1,
        m,
        batch,
    )
    .unwrap();
    assert_eq!(st, Status::Success);
    let got = y.to_vec().unwrap();
    for e in 0..batch {
        for i in 0..m {
            assert!(
                (got[e * m + i] - want[i]).abs() < 1e-12,
                "entry {e} row {i}"
            );
        }
    }
    assert!(got[m * batch].is_nan());
    // A list naming the same matrix and vector for every entry.
    let mut ys: Vec<DeviceBuffer<f64>> = (0..batch)
        .map(|_| dev.upload(&vec![f64::NAN; m]).unwrap())
        .collect();
    let mut ym: Vec<&mut DeviceBuffer<f64>> = ys.iter_mut().collect();
    let _ = blas2::gemv_batched(
        &mut h,
        Op::N,
        m,
        n,
        1.0.into(),
        &[&ab, &ab, &ab],
        m,
        &[&xb, &xb, &xb],
        1,
        0.0.into(),
        &mut ym,
        1,
    )
    .unwrap();
    for y in &ys {
        let got = y.to_vec().unwrap();
        for i in 0..m {
            assert!((got[i] - want[i]).abs() < 1e-12);
        }
    }
    // trsv with one matrix for every right-hand side.
    let l: Vec<f64> = (0..9).map(|i| if i % 4 == 0 { 2.0 } else { 0.5 }).collect();
    let lb = dev.upload(&l).unwrap();
    let mut xs = dev.upload(&[2.0, 2.5, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let _ = blas2::trsv_strided_batched(
        &mut h,
        Uplo::Lower,
        Op::N,
        Diag::NonUnit,
        3,
        &lb,
        3,
        0,
        &mut xs,
        1,
        3,
        2,
    )
    .unwrap();
    // L = [2 0 0; .5 2 0; .5 .5 2]: [2, 2.5, 3] -> [1, 1, 1]; [4, 5, 6] -> [2, 2, 2]
    assert_eq!(xs.to_vec().unwrap(), vec![1.0, 1.0, 1.0, 2.0, 2.0, 2.0]);
}

crate::on_both_backends!(
    f3_quick_returns_touch_nothing,
    f10_beta_zero_ignores_y_and_alpha_zero_ignores_a_and_x,
    f10_device_scalars_single_and_per_entry,
    f9_inputs_may_overlap,
);
