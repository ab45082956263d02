//! F3: quick returns.

use super::*;

/// gelqf with `m = 0` or `n = 0`, ormlq with `m`, `n` or `k` zero, and batches of 0:
/// `Success`, nothing read (every operand poisoned, `C` holding real values where it is not
/// empty) and nothing written.
fn quick_lq<E: T>(dev: &Device) {
    let mut h = handle(dev);
    let mut r = Gen::new(1701);
    let mut t = 0;
    let shapes: Vec<(Rt, usize, usize, usize)> = vec![
        (Rt::Gelqf, 0, 5, 0),
        (Rt::Gelqf, 4, 0, 0),
        (Rt::Gelqf, 0, 0, 0),
        (Rt::Ormlq(Side::Left, Op::N), 0, 5, 0),
        (Rt::Ormlq(Side::Right, op_t::<E>()), 0, 5, 3),
        (Rt::Ormlq(Side::Left, Op::C), 4, 0, 2),
        (Rt::Ormlq(Side::Right, Op::N), 4, 0, 0),
        // k = 0: C unchanged.
        (Rt::Ormlq(Side::Left, op_t::<E>()), 4, 6, 0),
        (Rt::Ormlq(Side::Right, Op::C), 5, 3, 0),
        (Rt::Ormlq(Side::Left, Op::N), 70, 65, 0),
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
            let mut c = LCase::rotate(rt, m, n, k, t).with(form, t % 2);
            c.tgap = t % 3;
            let (ar, ac) = c.a_shape();
            let sa = span(ar, ac, c.lda);
            let a = place(dev, form, sa, 2, &vec![vec![pn(Poison::Unread); sa]; count]);
            let tau = place_tau(dev, &c, &vec![vec![pn(Poison::Unread); c.k]; count]);
            let cm = matches!(rt, Rt::Ormlq(..)).then(|| {
                let cs: Vec<Vec<E>> = (0..count)
                    .map(|_| store::<E>(&gen_fill::<E>(m, n, Fill::Random, &mut r), c.ldc))
                    .collect();
                place(dev, form, span(m, n, c.ldc), 1, &cs)
            });
            let mut run = LqRun::<E> {
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
            (Rt::Gelqf, 5, 4, 0),
            (Rt::Gelqf, 4, 9, 0),
            (Rt::Ormlq(Side::Left, Op::N), 5, 3, 2),
            (Rt::Ormlq(Side::Right, op_t::<E>()), 3, 5, 5),
        ] {
            t += 1;
            let mut c = LCase::rotate(rt, m, n, k, t).with(form, 1);
            c.tgap = 1;
            let mut run = prepare::<E>(dev, &mut r, c, &[Fill::Random]);
            let what = format!("{} batch 0 {c:?}", E::NAME);
            let st = run.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(st, Status::Success, "{what}");
            run.untouched(&what);
        }
    }
}

fn f3_lq_quick_returns_touch_nothing(dev: &Device) {
    quick_lq::<f32>(dev);
    quick_lq::<f64>(dev);
    quick_lq::<Complex32>(dev);
    quick_lq::<Complex64>(dev);
}

/// gels's quick returns, as LAPACK's: `nrhs = 0` writes nothing but `info = 0` (`A` is not
/// factored); `m` or `n` zero sets the first `max(m, n)` rows of `B` to exactly zero (nothing
/// read: `A` spans nothing, the rows past the right-hand sides are poisoned) with `info = 0`;
/// a batch of 0 writes nothing at all, `info` included.
fn quick_gels<E: T>(dev: &Device) {
    let mut h = handle(dev);
    let mut r = Gen::new(1711);
    let mut t = 0;
    for form in [
        Form::Single,
        Form::List(3),
        Form::Strided(3),
        Form::List(0),
        Form::Strided(0),
    ] {
        let count = form_count(form);
        for (m, n, nrhs) in [
            (5, 3, 0),
            (3, 5, 0),
            (0, 0, 0),
            (0, 4, 2),
            (4, 0, 3),
            (0, 0, 2),
            (0, 7, 1),
        ] {
            for trans in [Op::N, op_t::<E>()] {
                t += 1;
                let loc = if t % 2 == 0 { Loc::Host } else { Loc::Device };
                let c = GCase::new(trans, m, n, nrhs).with(form, t % 3, loc);
                let mut p = prepare_gels::<E>(dev, &mut r, c, &[GFill::Random]);
                let what = format!("{} gels quick return {c:?}", E::NAME);
                let st = p.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(st, Status::Success, "{what}");
                p.info.expect(&vec![0; count], &what);
                p.a.untouched(&format!("{what} (A)"));
                // X, all max(m, n) rows of it, is zero where A has no rows or no columns.
                let rows = if m.min(n) == 0 { m.max(n) } else { 0 };
                let zeros: Vec<Vec<(usize, C, f64)>> = (0..count)
                    .map(|_| {
                        (0..nrhs)
                            .flat_map(|j| (0..rows).map(move |i| (i + j * c.ldb, ZERO, 0.0)))
                            .collect()
                    })
                    .collect();
                p.b.check(&format!("{what} (B)"), &zeros);
            }
        }
    }
}

fn f3_gels_quick_returns(dev: &Device) {
    quick_gels::<f32>(dev);
    quick_gels::<f64>(dev);
    quick_gels::<Complex32>(dev);
    quick_gels::<Complex64>(dev);
}

crate::on_both_backends!(f3_lq_quick_returns_touch_nothing, f3_gels_quick_returns);
