//! F3: quick returns.

use super::*;

/// `T` for real types, `C` for complex ones (where `T` is an error).
fn op_t<E: El>() -> Op {
    if E::CPLX {
        Op::C
    } else {
        Op::T
    }
}

/// `m = 0` or `n = 0`, `ormqr` with `k = 0`, and batches of 0: `Success`, nothing read (every
/// operand poisoned, `C` holding real values where it is not empty) and nothing written.
fn quick<E: T>(dev: &Device) {
    let mut h = handle(dev);
    let mut r = Gen::new(601);
    let mut t = 0;
    let shapes: Vec<(Rt, usize, usize, usize)> = vec![
        (Rt::Geqrf, 0, 5, 0),
        (Rt::Geqrf, 4, 0, 0),
        (Rt::Geqrf, 0, 0, 0),
        (Rt::Orgqr, 0, 0, 0),
        (Rt::Orgqr, 5, 0, 0),
        (Rt::Ormqr(Side::Left, Op::N), 0, 5, 0),
        (Rt::Ormqr(Side::Right, op_t::<E>()), 0, 5, 3),
        (Rt::Ormqr(Side::Left, Op::C), 4, 0, 2),
        (Rt::Ormqr(Side::Right, Op::N), 4, 0, 0),
        // k = 0: C unchanged.
        (Rt::Ormqr(Side::Left, op_t::<E>()), 4, 6, 0),
        (Rt::Ormqr(Side::Right, Op::C), 5, 3, 0),
        (Rt::Ormqr(Side::Left, Op::N), 70, 65, 0),
    ];
    for form in [
        Form::Single,
        Form::List(3),
        Form::Strided(3),
        Form::List(0),
        Form::Strided(0),
    ] {
        let count = form_count(form);
        for &(rt, m, n, k) in &shapes {
            t += 1;
            let mut c = QCase::rotate(rt, m, n, k, t).with(form, t % 2);
            c.tgap = t % 3;
            let (ar, ac) = c.a_shape();
            let sa = span(ar, ac, c.lda);
            let a = place(dev, form, sa, 2, &vec![vec![pn(Poison::Unread); sa]; count]);
            let tau = place_tau(dev, &c, &vec![vec![pn(Poison::Unread); c.k]; count]);
            let cm = matches!(rt, Rt::Ormqr(..)).then(|| {
                let cs: Vec<Vec<E>> = (0..count)
                    .map(|_| store::<E>(&gen_fill::<E>(m, n, Fill::Random, &mut r), c.ldc))
                    .collect();
                place(dev, form, span(m, n, c.ldc), 1, &cs)
            });
            let mut run = QrRun::<E> {
                c,
                a,
                tau,
                cm,
                input: vec![],
                want: vec![],
                refs: vec![],
                fills: vec![],
            };
            let what = format!("{} quick return {c:?}", E::NAME);
            let st = run.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(st, Status::Success, "{what}");
            run.untouched(&what);
        }
    }
    // Real sizes with a batch of 0: nothing at all.
    for form in [Form::List(0), Form::Strided(0)] {
        for (rt, m, n, k) in [
            (Rt::Geqrf, 5, 4, 0),
            (Rt::Orgqr, 6, 5, 3),
            (Rt::Ormqr(Side::Left, Op::N), 5, 3, 2),
            (Rt::Ormqr(Side::Right, op_t::<E>()), 3, 5, 5),
        ] {
            t += 1;
            let mut c = QCase::rotate(rt, m, n, k, t).with(form, 1);
            c.tgap = 1;
            let mut run = prepare::<E>(dev, &mut r, c, &[Fill::Random]);
            let what = format!("{} batch 0 {c:?}", E::NAME);
            let st = run.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(st, Status::Success, "{what}");
            run.untouched(&what);
        }
    }
}

fn f3_qr_quick_returns_touch_nothing(dev: &Device) {
    quick::<f32>(dev);
    quick::<f64>(dev);
    quick::<Complex32>(dev);
    quick::<Complex64>(dev);
}

crate::on_both_backends!(f3_qr_quick_returns_touch_nothing,);
