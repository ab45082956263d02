//! F3: quick returns.

use super::*;

/// m = 0 or n = 0 (and nrhs = 0), and batches of 0: `Success`, nothing read (every operand
/// NaN), nothing written (`info` may be set to 0 for the entries of an empty factorization).
fn quick<E: T>(dev: &Device) {
    let mut h = handle(dev);
    let mut t = 0;
    for form in [
        Form::Single,
        Form::List(3),
        Form::Strided(3),
        Form::List(0),
        Form::Strided(0),
    ] {
        let count = form_count(form);
        for rt in [
            Rt::Getrf,
            Rt::Npvt,
            Rt::Potrf(Uplo::Lower),
            Rt::Potrf(Uplo::Upper),
        ] {
            let shapes: &[(usize, usize)] = match rt {
                Rt::Potrf(_) => &[(0, 0)],
                _ => &[(0, 5), (4, 0), (0, 0)],
            };
            for &(m, n) in shapes {
                t += 1;
                let mut c = FCase::rotate(rt, m, n, t).with(form, t % 2);
                c.pgap = t % 2;
                let s = span(m, n, c.lda);
                let entries = vec![vec![E::pnan(); s]; count];
                let a = Placed::with_gap(dev, form, s, 2, &entries, E::pnan());
                let ipiv = (rt == Rt::Getrf).then(|| Ints::new(dev, c.piv, vec![PIV_POISON; 4]));
                let info = Ints::new(dev, c.info, vec![INFO_POISON; count + 1]);
                let mut run = FactRun::<E> {
                    c,
                    a,
                    ipiv,
                    info,
                    ad: vec![],
                    fills: vec![],
                    want_info: vec![],
                    want_piv: vec![],
                };
                let what = format!("{} quick return {c:?}", E::NAME);
                let st = run.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(st, Status::Success, "{what}");
                run.a.untouched(&what);
                if let Some(p) = &run.ipiv {
                    p.untouched(&format!("{what} (ipiv)"));
                }
                let info = run.info.now();
                for v in 0..count {
                    assert!(
                        info[v] == INFO_POISON || info[v] == 0,
                        "{what}: info[{v}] = {}",
                        info[v]
                    );
                }
                assert_eq!(info[count], INFO_POISON, "{what}: info past the batch");
            }
        }
        for rt in [
            Srt::Getrs(Op::N),
            Srt::Getrs(Op::C),
            Srt::Potrs(Uplo::Lower),
            Srt::Potrs(Uplo::Upper),
        ] {
            for (n, nrhs) in [(0, 3), (4, 0), (0, 0)] {
                t += 1;
                let mut c = SCase::rotate(rt, n, nrhs, t).with(form, t % 2, (t + 1) % 2);
                c.pgap = t % 3;
                let sa = span(n, n, c.lda);
                let sb = span(n, nrhs, c.ldb);
                let a = Placed::with_gap(
                    dev,
                    form,
                    sa,
                    1,
                    &vec![vec![E::pnan(); sa]; count],
                    E::pnan(),
                );
                let b = Placed::with_gap(
                    dev,
                    form,
                    sb,
                    2,
                    &vec![vec![E::pnan(); sb]; count],
                    E::pnan(),
                );
                let pv = vec![PIV_GAP; count * c.stride_piv() + 1];
                let piv = matches!(rt, Srt::Getrs(_)).then(|| (dev.upload(&pv).unwrap(), pv));
                let mut run = SolveRun::<E> {
                    c,
                    a,
                    piv,
                    b,
                    ad: vec![],
                    bd: vec![],
                    fill: Fill::Random,
                };
                let what = format!("{} quick return {c:?}", E::NAME);
                let st = run.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(st, Status::Success, "{what}");
                run.untouched(&what);
            }
        }
    }
    // n > 0 with a batch of 0: nothing at all.
    for form in [Form::List(0), Form::Strided(0)] {
        for rt in [Rt::Getrf, Rt::Npvt, Rt::Potrf(Uplo::Upper)] {
            t += 1;
            let c = FCase::rotate(rt, 5, 5, t).with(form, 1);
            let mut run = prepare_fact::<E>(dev, &mut Gen::new(t as u64), c, &[Fill::Hpd]);
            let what = format!("{} batch 0 {c:?}", E::NAME);
            let st = run.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(st, Status::Success, "{what}");
            run.untouched(&what);
        }
        for rt in [Srt::Getrs(Op::T), Srt::Potrs(Uplo::Lower)] {
            t += 1;
            let c = SCase::rotate(rt, 5, 2, t).with(form, 1, 0);
            let mut run = prepare_solve::<E>(dev, &mut Gen::new(t as u64), c, Fill::Hpd);
            let what = format!("{} batch 0 {c:?}", E::NAME);
            let st = run.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(st, Status::Success, "{what}");
            run.untouched(&what);
        }
    }
}

fn f3_quick_returns_touch_nothing(dev: &Device) {
    quick::<f32>(dev);
    quick::<Complex64>(dev);
}

crate::on_both_backends!(f3_quick_returns_touch_nothing,);
