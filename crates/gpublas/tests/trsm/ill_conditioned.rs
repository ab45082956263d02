//! F1: accuracy on ill-conditioned A.

use super::*;

/// `trsm` (inverted diagonal blocks) and `trsm_ex` with `Substitute` on an `A` of condition
/// κ = max(κ₁, κ∞) within 3x of `target` (the inverse growing like g^(i - j)), with
/// `B = op(A) X_true / alpha` for `X_true` in [-1, 1], against the f64 substitution reference
/// (max-abs forward error relative to max |X_ref|): substitution's forward error is within
/// `30 κ ε order` and its residual ratio below 30 (backward stable); the inverted blocks'
/// forward error is within `min(30 κ² ε order, 1)` and their residual ratio within `30 κ`
/// (what the `trsm` docs promise: the blocks' condition carried into the residual). The
/// numbers are printed (`--nocapture`).
fn ill_conditioned<E: T>(
    dev: &Device,
    seed: u64,
    target: f64,
    cases: &[(Side, Uplo, Op, Diag, usize, usize)],
) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0;
    each(cases.to_vec(), |(s, u, o, d, m, n)| {
        t += 1;
        let c = Case::new(s, u, o, d, m, n).fit_t(t);
        let k = c.order();
        // The growth g of the first off-diagonal, adjusted until κ is within 3x of the target.
        let mut g = target.powf(1.0 / (k - 1) as f64);
        let (ast, ad, kappa) = loop {
            let mut rr = r.clone();
            let (ast, ad) = gen_tri::<E>(k, c.lda, c.uplo, c.diag, Fill::Ill(g), &mut rr, false);
            let kappa = cond(&ad, c.uplo);
            if (kappa / target).ln().abs() < 3f64.ln() || g < 1.0 + 1e-6 {
                r = rr;
                break (ast, ad, kappa);
            }
            g *= (target / kappa).powf(1.0 / (k - 1) as f64);
        };
        assert!(
            kappa > target / 10.0 && kappa < target * 10.0,
            "{} {c:?}: the construction gave condition {kappa:e}, aimed at {target:e}",
            E::NAME
        );
        // B = op(A) X_true / alpha with X_true in [-1, 1]: a solution of moderate size, so
        // that the condition of A shows in the forward error.
        let (_, xt) = gen_b::<f64>(c.m, c.n, c.m, &mut r, false);
        let oa = ad.op(c.op);
        let prod = match c.side {
            Side::Left => oa.mul(&xt),
            Side::Right => xt.mul(&oa),
        };
        let mut bst = vec![poison::<E>(); span(c.m, c.n, c.ldb)];
        let mut bd = Dense::zeros(c.m, c.n);
        for j in 0..c.n {
            for i in 0..c.m {
                let v = cdiv(prod.at(i, j), (0.75, 0.0));
                let e = E::make(v.0, v.1);
                bst[i + j * c.ldb] = e;
                bd.set(i, j, e.get());
            }
        }
        let alpha = E::make(0.75, 0.0).get();
        let xref = solve_ref(&c, &ad, &bd, alpha);
        let eps = E::EPS;
        let mut report = format!("{} {c:?} κ = {kappa:.2e}:", E::NAME);
        for way in [Way::Trsm, Way::Substitute] {
            let dev = h.device().clone();
            let a = Placed::with_gap(
                &dev,
                Form::Single,
                ast.len(),
                0,
                std::slice::from_ref(&ast),
                nan(),
            );
            let b = Placed::with_gap(&dev, Form::Single, bst.len(), 0, &[bst.clone()], poison());
            let mut p = Prepared::<E> {
                c,
                form: Form::Single,
                way,
                scal: Scal::Host,
                a,
                inv: None,
                b,
                alphas: vec![alpha],
                abuf: None,
                ad: vec![ad.clone()],
                bd: vec![bd.clone()],
            };
            let what = p.name();
            let st = p.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(st, Status::Success, "{what}");
            p.inputs_untouched(&what);
            let x = &p.xs()[0];
            let ferr = if x.v.iter().all(|&v| finite(v)) {
                let mut diff = x.clone();
                for (dv, rv) in diff.v.iter_mut().zip(&xref.v) {
                    *dv = csub(*dv, *rv);
                }
                diff.max_abs() / xref.max_abs()
            } else {
                f64::INFINITY
            };
            let res = residual(&c, &ad, x, &bd, alpha, eps);
            let unit = kappa * eps * k as f64;
            report += &format!(
                " {way:?}: forward error {ferr:.2e} ({:.1e} κεn), residual ratio {res:.2}",
                ferr / unit
            );
            if way == Way::Substitute {
                assert!(
                    ferr <= 30.0 * unit,
                    "{what}: forward error {ferr:e} > 30 κ ε n = {:e} (κ = {kappa:e})",
                    30.0 * unit
                );
                assert!(res < RESID_MAX, "{what}: residual ratio {res:e}");
            } else {
                // 30 κ² ε n, and never more than a relative error of 1.
                let loose = (30.0 * kappa * unit).min(1.0);
                assert!(
                    ferr <= loose,
                    "{what}: forward error {ferr:e} > min(30 κ² ε n, 1) = {loose:e} (κ = {kappa:e})"
                );
                assert!(ferr.is_finite(), "{what}: non-finite result");
                assert!(
                    res < RESID_MAX * kappa,
                    "{what}: residual ratio {res:e} > 30 κ = {:e}",
                    RESID_MAX * kappa
                );
            }
        }
        eprintln!("{report}");
    });
}

fn f1_trsm_ill_conditioned_substitute_keeps_accuracy_f64(dev: &Device) {
    ill_conditioned::<f64>(
        dev,
        41,
        1e6,
        &[
            (L, UP, ON, NU, 129, 17),
            (L, LO, OT, UN, 64, 9),
            (R, LO, ON, NU, 5, 129),
            (R, UP, OC, NU, 12, 65),
            (L, LO, ON, NU, 300, 3),
        ],
    );
    ill_conditioned::<Complex64>(
        dev,
        42,
        1e6,
        &[(L, UP, OC, NU, 129, 5), (R, LO, OT, UN, 7, 128)],
    );
}
fn f1_trsm_ill_conditioned_substitute_keeps_accuracy_f32(dev: &Device) {
    ill_conditioned::<f32>(
        dev,
        43,
        1e3,
        &[
            (L, UP, ON, NU, 129, 17),
            (L, LO, OT, UN, 64, 9),
            (R, LO, ON, NU, 5, 129),
            (R, UP, OC, UN, 12, 65),
        ],
    );
    ill_conditioned::<Complex32>(
        dev,
        44,
        1e3,
        &[(L, LO, OC, NU, 129, 5), (R, UP, ON, NU, 7, 65)],
    );
}

crate::on_both_backends!(
    f1_trsm_ill_conditioned_substitute_keeps_accuracy_f64,
    f1_trsm_ill_conditioned_substitute_keeps_accuracy_f32,
);
