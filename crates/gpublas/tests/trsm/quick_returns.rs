//! F3, F10: quick returns and alpha = 0.

use super::*;

fn quick_and_zero<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let ways = [Way::Trsm, Way::Invert, Way::Substitute, Way::Inverse];
    let mut t = 0;
    for form in [
        Form::Single,
        Form::List(3),
        Form::Strided(3),
        Form::List(0),
        Form::Strided(0),
    ] {
        for way in ways {
            for cb in combos() {
                t += 1;
                // m == 0 or n == 0: nothing read (A all NaN), nothing written, whatever alpha.
                let (m, n) = [(0, 5), (4, 0), (0, 0)][t % 3];
                let c = Case::of(cb, m, n).fit_t(t);
                let mut p = prepare::<E>(
                    &mut h,
                    &mut r,
                    c,
                    form,
                    1,
                    way,
                    [Scal::Host, Scal::Device, Scal::PerEntry][t % 3],
                    [ZERO, (2.0, 0.5)][t % 2],
                    Fill::Well,
                );
                for a in p.a.bufs.iter_mut() {
                    let len = a.len();
                    a.copy_from_host(&vec![nan::<E>(); len]).unwrap();
                }
                p.a.snapshot();
                run_checked(&mut h, &mut p);
                p.untouched(&p.name());
            }
            // Host alpha == 0: A and B NaN, not read; B = 0. Device alpha == 0: B = 0 too.
            for (i, cb) in combos().into_iter().enumerate() {
                let c = Case::of(cb, [5, 33][i % 2], [4, 65][i % 2]).fit_t(i);
                for scal in [Scal::Host, Scal::Device] {
                    let mut p =
                        prepare::<E>(&mut h, &mut r, c, form, 7, way, scal, ZERO, Fill::Well);
                    run_checked(&mut h, &mut p);
                }
            }
        }
    }
    // trtri of order 0 touches nothing.
    for form in [Form::Single, Form::List(2), Form::Strided(2), Form::List(0)] {
        let count = form_count(form);
        let a = Placed::with_gap(
            &h.device().clone(),
            form,
            0,
            2,
            &vec![vec![]; count],
            nan::<E>(),
        );
        let mut inv = Placed::with_gap(
            &h.device().clone(),
            form,
            0,
            3,
            &vec![vec![]; count],
            poison::<E>(),
        );
        for (uplo, diag) in [(UP, NU), (LO, UN)] {
            let st = trtri_call(&mut h, uplo, diag, 0, &a, 1, &mut inv, 1).unwrap();
            assert_eq!(st, Status::Success, "trtri n = 0 {form:?}");
            inv.untouched(&format!("trtri n = 0 {form:?}"));
            a.untouched(&format!("trtri n = 0 {form:?} (A)"));
        }
    }
}

fn f3_f10_quick_returns_and_alpha_zero_touch_nothing_else(dev: &Device) {
    quick_and_zero::<f32>(dev, 31);
    quick_and_zero::<Complex64>(dev, 32);
}

/// F9: inputs may overlap: one `A` (and one inverse) for every entry at stride 0.
fn f9_strided_inputs_may_share_one_matrix(dev: &Device) {
    let mut h = handle(dev);
    let mut r = Gen::new(33);
    for (i, cb) in combos().into_iter().enumerate() {
        let c = Case::of(cb, 33, 17).fit_t(i);
        let k = c.order();
        let (ast, ad) = gen_tri::<f64>(k, c.lda, c.uplo, c.diag, Fill::Well, &mut r, false);
        let count = 4;
        let (mut b_e, mut bd) = (vec![], vec![]);
        for _ in 0..count {
            let (s, d) = gen_b::<f64>(c.m, c.n, c.ldb, &mut r, false);
            b_e.push(s);
            bd.push(d);
        }
        let dev = h.device().clone();
        // One entry, then seen as `count` entries at stride 0.
        let shared = |p: Placed<f64>| Placed {
            form: Form::Strided(count),
            stride: 0,
            bufs: p.bufs,
            before: p.before,
        };
        for way in [Way::Trsm, Way::Substitute, Way::Inverse] {
            let a = Placed::with_gap(
                &dev,
                Form::Strided(1),
                ast.len(),
                0,
                std::slice::from_ref(&ast),
                nan(),
            );
            let inv = (way == Way::Inverse).then(|| {
                let s = span(k, k, k + 2);
                let mut inv =
                    Placed::with_gap(&dev, Form::Strided(1), s, 0, &[vec![nan(); s]], nan());
                let st = trtri_call(&mut h, c.uplo, c.diag, k, &a, c.lda, &mut inv, k + 2);
                assert_eq!(st.unwrap(), Status::Success);
                inv.snapshot();
                (shared(inv), k + 2)
            });
            let b = Placed::with_gap(
                &dev,
                Form::Strided(count),
                span(c.m, c.n, c.ldb),
                1,
                &b_e,
                poison(),
            );
            let mut p = Prepared::<f64> {
                c,
                form: Form::Strided(count),
                way,
                scal: Scal::Host,
                a: shared(a),
                inv,
                b,
                alphas: vec![(-0.5, 0.0); count],
                abuf: None,
                ad: vec![ad.clone(); count],
                bd: bd.clone(),
            };
            run_checked(&mut h, &mut p);
        }
    }
}

crate::on_both_backends!(
    f3_f10_quick_returns_and_alpha_zero_touch_nothing_else,
    f9_strided_inputs_may_share_one_matrix,
);
