//! F3, F10: quick returns, beta = 0, alpha = 0, device scalars.

use super::*;

/// One call of every routine the type has at (m, n, k): rank-k updates take n (and k).
fn all_routines<E: T>(m: usize, n: usize, k: usize) -> Vec<Case> {
    let mut v = vec![
        Case::gemm(ON, OT, m, n, k),
        Case::gemm(OC, ON, m, n, k).fit(2, 1, 3),
        Case::mm(Rt::Symm, L, UP, m, n),
        Case::mm(Rt::Symm, R, LO, m, n).fit(1, 2, 3),
        Case::rk(Rt::Syrk, LO, ON, n, k),
        Case::rk(Rt::Syrk, UP, OT, n, k).fit(3, 0, 1),
        Case::rk(Rt::Syr2k, UP, ON, n, k),
        Case::rk(Rt::Syrkx, LO, OT, n, k).fit(1, 2, 0),
        Case::tr(L, LO, OT, UN, m, n),
        Case::tr(R, UP, ON, NU, m, n).fit(2, 0, 1),
    ];
    if E::CPLX {
        v.extend([
            Case::mm(Rt::Hemm, R, UP, m, n),
            Case::mm(Rt::Hemm, L, LO, m, n).fit(2, 1, 0),
            Case::rk(Rt::Herk, UP, OC, n, k).fit(1, 0, 2),
            Case::rk(Rt::Herk, LO, ON, n, k),
            Case::rk(Rt::Her2k, LO, OC, n, k),
            Case::rk(Rt::Herkx, UP, ON, n, k).fit(0, 3, 1),
        ]);
    }
    v
}

fn run_prepared<E: T>(h: &mut Handle, p: &mut Prepared<E>) {
    let what = p.name();
    let st = p.call(h).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(st, Status::Success, "{what}");
    p.check(&what);
}

fn quick_returns<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let (two, one, zero) = ((2.0, 0.5), ONE, ZERO);
    for form in [
        Form::Single,
        Form::List(3),
        Form::Strided(3),
        Form::List(0),
        Form::Strided(0),
    ] {
        // m == 0 or n == 0: C keeps its values whatever the scalars.
        for &(m, n, k) in &[(0, 5, 3), (4, 0, 3), (0, 0, 2), (0, 3, 0)] {
            for c in all_routines::<E>(m, n, k) {
                if !c.empty() {
                    continue;
                }
                let mut p = prepare::<E>(dev, &mut r, c, form, Scal::Host, &[two], &[two]);
                assert!(p.want.iter().all(|w| w.is_empty()));
                run_prepared(&mut h, &mut p);
                p.untouched(&p.name());
            }
        }
        for c in all_routines::<E>(5, 4, 3) {
            // Host alpha == 0 and beta == 1: nothing read (A and B are NaN), nothing written.
            if c.rt != Rt::Trmm {
                let mut p = prepare::<E>(dev, &mut r, c, form, Scal::Host, &[zero], &[one]);
                run_prepared(&mut h, &mut p);
                p.untouched(&p.name());
            }
        }
        for c in all_routines::<E>(5, 4, 0) {
            if !c.k_zero() {
                continue;
            }
            // k == 0 and beta == 1: a quick return; k == 0 and beta != 1: C = beta C (the
            // Hermitian updates make the diagonal real).
            let mut p = prepare::<E>(dev, &mut r, c, form, Scal::Host, &[two], &[one]);
            run_prepared(&mut h, &mut p);
            p.untouched(&p.name());
            let mut p = prepare::<E>(dev, &mut r, c, form, Scal::Host, &[two], &[(-0.5, 0.25)]);
            run_prepared(&mut h, &mut p);
        }
    }
}

fn f3_quick_returns_touch_nothing(dev: &Device) {
    quick_returns::<f32>(dev, 91);
    quick_returns::<Complex64>(dev, 92);
    // gemm_ex: m == 0, k == 0 with beta == 1, host alpha == 0 with beta == 1.
    let mut h = handle(dev);
    let mut r = Gen::new(93);
    for c in [
        Case::gemm(ON, ON, 0, 4, 3),
        Case::gemm(OT, OC, 5, 4, 0),
        Case::gemm(OC, ON, 5, 4, 3),
    ] {
        for form in [Form::Single, Form::List(2), Form::Strided(2)] {
            let alpha = if c.k == 3 && c.m == 5 { ZERO } else { ONE };
            let mut p = prepare_ex::<f16, f32>(
                dev,
                &mut r,
                c,
                form,
                ComputeType::F32,
                Scal::Host,
                &[alpha],
                &[ONE],
            );
            let what = p.name();
            assert!(p.want.iter().all(|w| w.is_empty()), "{what}");
            let st = p.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(st, Status::Success, "{what}");
            p.untouched(&what);
        }
    }
}

fn zero_scalars<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let (a, b) = ((0.75, -0.5), (-1.25, 0.25));
    for form in [Form::Single, Form::List(3), Form::Strided(3)] {
        for c in all_routines::<E>(65, 33, 17) {
            // (alpha, beta, scalars)
            for (alpha, beta, scal) in [
                (a, ZERO, Scal::Host),     // C NaN, not read
                (ONE, ZERO, Scal::Host),   // C NaN, not read
                (ZERO, b, Scal::Host),     // C = beta C, A and B NaN, not read (trmm: B = 0)
                (ZERO, ZERO, Scal::Host),  // C = 0 from NaN everywhere
                (ZERO, ONE, Scal::Device), // no host quick return: C = C
                (a, ZERO, Scal::Device),   // C NaN, not read
                (ZERO, b, Scal::Device),
            ] {
                let mut p = prepare::<E>(dev, &mut r, c, form, scal, &[alpha], &[beta]);
                run_prepared(&mut h, &mut p);
            }
        }
    }
}

fn f10_beta_zero_ignores_c_and_alpha_zero_ignores_a_and_b(dev: &Device) {
    zero_scalars::<f32>(dev, 101);
    zero_scalars::<f64>(dev, 102);
    zero_scalars::<Complex32>(dev, 103);
    zero_scalars::<Complex64>(dev, 104);
}

fn device_scalars<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let alphas: Vec<C> = vec![
        (0.75, -0.5),
        (0.0, 0.0),
        (-1.25, 0.25),
        (1.0, 0.0),
        (2.0, 1.5),
    ];
    // Entry 1: alpha 0 with beta != 0; entry 3: beta 0 (C NaN there); entry 4: beta 1.
    let betas: Vec<C> = vec![(0.5, 0.5), (-2.0, 0.0), (1.5, -1.0), (0.0, 0.0), (1.0, 0.0)];
    for c in all_routines::<E>(33, 17, 9) {
        for form in [Form::Single, Form::List(3), Form::Strided(3)] {
            let mut p = prepare::<E>(dev, &mut r, c, form, Scal::Device, &alphas, &betas);
            run_prepared(&mut h, &mut p);
        }
        for form in [
            Form::Strided(5),
            Form::List(5),
            Form::Strided(0),
            Form::List(0),
        ] {
            let mut p = prepare::<E>(dev, &mut r, c, form, Scal::PerEntry, &alphas, &betas);
            run_prepared(&mut h, &mut p);
        }
    }
}

fn f10_device_scalars_single_and_per_entry(dev: &Device) {
    device_scalars::<f32>(dev, 111);
    device_scalars::<f64>(dev, 112);
    device_scalars::<Complex32>(dev, 113);
    device_scalars::<Complex64>(dev, 114);
    // gemm_ex with device scalars, one per entry on the strided form.
    let mut h = handle(dev);
    let mut r = Gen::new(115);
    let alphas: Vec<C> = vec![(0.5, 0.0), (0.0, 0.0), (-1.5, 0.0)];
    let betas: Vec<C> = vec![(0.0, 0.0), (2.0, 0.0), (1.0, 0.0)];
    for (form, scal) in [
        (Form::Strided(3), Scal::PerEntry),
        (Form::List(3), Scal::PerEntry),
        (Form::Strided(2), Scal::Device),
    ] {
        let c = Case::gemm(OT, ON, 33, 31, 65).fit(1, 2, 3);
        let mut p = prepare_ex::<f16, f32>(
            dev,
            &mut r,
            c,
            form,
            ComputeType::F32,
            scal,
            &alphas,
            &betas,
        );
        let what = p.name();
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(st, Status::Success, "{what}");
        p.check(&what);
        let mut p = prepare_ex::<f64, f64>(
            dev,
            &mut r,
            c,
            form,
            ComputeType::F64,
            scal,
            &alphas,
            &betas,
        );
        let what = p.name();
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(st, Status::Success, "{what}");
        p.check(&what);
    }
}

/// Inputs of one call may overlap (F9): one `A` and one `B` for every entry (stride 0, or a
/// list naming one buffer repeatedly).
fn f9_inputs_may_overlap(dev: &Device) {
    let mut h = handle(dev);
    let (m, n, k, batch) = (7usize, 5usize, 3usize, 3usize);
    let a: Vec<f64> = (0..m * k).map(|i| (i % 11) as f64 - 4.0).collect();
    let b: Vec<f64> = (0..k * n).map(|i| i as f64 * 0.5 - 1.0).collect();
    let want: Vec<f64> = (0..m * n)
        .map(|p| {
            let (i, j) = (p % m, p / m);
            (0..k).map(|l| a[i + l * m] * b[l + j * k]).sum::<f64>()
        })
        .collect();
    let ab = dev.upload(&a).unwrap();
    let bb = dev.upload(&b).unwrap();
    let mut c = dev.upload(&vec![f64::NAN; m * n * batch + 1]).unwrap();
    let st = blas3::gemm_strided_batched(
        &mut h,
        Op::N,
        Op::N,
        m,
        n,
        k,
        1.0.into(),
        &ab,
        m,
        0,
        &bb,
        k,
        0,
        0.0.into(),
        &mut c,
        m,
        m * n,
        batch,
    )
    .unwrap();
    assert_eq!(st, Status::Success);
    let got = c.to_vec().unwrap();
    for e in 0..batch {
        for p in 0..m * n {
            assert!(
                (got[e * m * n + p] - want[p]).abs() < 1e-12,
                "entry {e} {p}"
            );
        }
    }
    assert!(got[m * n * batch].is_nan());
    // syrk with one A named three times in a list: C = A Aᵀ (lower triangle).
    let mut cs: Vec<DeviceBuffer<f64>> = (0..batch)
        .map(|_| dev.upload(&vec![f64::NAN; m * m]).unwrap())
        .collect();
    let mut cm: Vec<&mut DeviceBuffer<f64>> = cs.iter_mut().collect();
    let st = blas3::syrk_batched(
        &mut h,
        Uplo::Lower,
        Op::N,
        m,
        k,
        1.0.into(),
        &[&ab, &ab, &ab],
        m,
        0.0.into(),
        &mut cm,
        m,
    )
    .unwrap();
    assert_eq!(st, Status::Success);
    for cb in &cs {
        let got = cb.to_vec().unwrap();
        for j in 0..m {
            for i in 0..m {
                let w: f64 = (0..k).map(|l| a[i + l * m] * a[j + l * m]).sum();
                if i >= j {
                    assert!((got[i + j * m] - w).abs() < 1e-12, "syrk ({i}, {j})");
                } else {
                    assert!(got[i + j * m].is_nan(), "syrk wrote ({i}, {j})");
                }
            }
        }
    }
    // trmm with one triangular A for every entry of B (stride_a = 0).
    let t: Vec<f64> = vec![2.0, 0.5, 0.25, 9.0, 1.0, -1.0, 9.0, 9.0, 4.0]; // lower, 3 × 3
    let tb = dev.upload(&t).unwrap();
    let mut bs = dev
        .upload(&[1.0, 1.0, 1.0, 2.0, 0.0, -1.0, f64::NAN])
        .unwrap();
    let st = blas3::trmm_strided_batched(
        &mut h,
        Side::Left,
        Uplo::Lower,
        Op::N,
        Diag::NonUnit,
        3,
        1,
        1.0.into(),
        &tb,
        3,
        0,
        &mut bs,
        3,
        3,
        2,
    )
    .unwrap();
    assert_eq!(st, Status::Success);
    let got = bs.to_vec().unwrap();
    // L = [2 0 0; .5 1 0; .25 -1 4]: [1, 1, 1] -> [2, 1.5, 3.25]; [2, 0, -1] -> [4, 1, -3.5]
    assert_eq!(&got[..6], &[2.0, 1.5, 3.25, 4.0, 1.0, -3.5]);
    assert!(got[6].is_nan());
}

crate::on_both_backends!(
    f3_quick_returns_touch_nothing,
    f10_beta_zero_ignores_c_and_alpha_zero_ignores_a_and_b,
    f10_device_scalars_single_and_per_entry,
    f9_inputs_may_overlap,
);
