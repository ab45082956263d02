//! F3: quick returns.

use super::*;

/// `n = 0` in every layout: `Success`, `info = 0` written for every entry (LAPACK sets it on a
/// quick return), nothing else: the operands (one poisoned element each), the pivots and
/// `info` past the batch unchanged.
fn order_zero<E: T>(dev: &Device, h: &mut Handle, t: &mut usize) {
    for form in [
        Form::Single,
        Form::List(3),
        Form::Strided(3),
        Form::List(1),
        Form::Strided(1),
    ] {
        for rt in [
            Rt::Gesv,
            Rt::Posv(Uplo::Lower),
            Rt::Posv(Uplo::Upper),
            Rt::Getri,
        ] {
            for nrhs in [0, 3] {
                *t += 1;
                let mut c = DCase::rotate(rt, 0, nrhs, *t).with(form, *t % 2, (*t + 1) % 2);
                c.info = [Loc::Host, Loc::Device][*t % 2];
                let mut run = prepare::<E>(dev, &mut Gen::new(*t as u64), c, &[Fill::Random]);
                let what = format!("{} n = 0: {c:?}", E::NAME);
                let st = run.call(h).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(st, Status::Success, "{what}");
                let info = run.info.now();
                let count = form_count(form);
                assert!(
                    info[..count].iter().all(|&i| i == 0),
                    "{what}: info {info:?}, want 0 for each of the {count} entries"
                );
                assert_eq!(info[count], INFO_POISON, "{what}: info past the batch");
                run.a.untouched(&what);
                if let Some(b) = &run.b {
                    b.untouched(&format!("{what} (B)"));
                }
                if let Some(p) = &run.piv {
                    p.untouched(&what);
                }
                run.check(&what, true);
            }
        }
    }
}

/// `nrhs = 0` (gesv, posv): `A` is still factored as LAPACK does (bit for bit getrf's or
/// potrf's, the pivots and `info` too, singular and not positive definite entries included),
/// `B` untouched.
fn no_right_hand_sides<E: T>(dev: &Device, h: &mut Handle, t: &mut usize) {
    let mut r = Gen::new(*t as u64);
    for form in [Form::Single, Form::List(3), Form::Strided(3)] {
        for n in [1, 5, 33, 65] {
            for rt in [Rt::Gesv, Rt::Posv(Uplo::Lower), Rt::Posv(Uplo::Upper)] {
                *t += 1;
                let c = DCase::rotate(rt, n, 0, *t).with(form, 1 + *t % 2, *t % 3);
                let fills = match rt {
                    Rt::Gesv => [Fill::Random, Fill::ZeroCol(n / 2, None), Fill::Dominant],
                    _ => [Fill::Gram, Fill::NotPd(n / 2 + 1, -1.0), Fill::Hpd],
                };
                let mut run = prepare::<E>(dev, &mut r, c, &fills);
                let what = format!("{} nrhs = 0: {}", E::NAME, run.name());
                let st = run.call(h).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(st, Status::Success, "{what}");
                run.b.as_ref().unwrap().untouched(&format!("{what} (B)"));
                run.check(&what, true);
            }
        }
    }
}

/// Real orders with a batch of 0: nothing at all is written (`info` neither).
fn batch_zero<E: T>(dev: &Device, h: &mut Handle, t: &mut usize) {
    for form in [Form::List(0), Form::Strided(0)] {
        for rt in [
            Rt::Gesv,
            Rt::Posv(Uplo::Lower),
            Rt::Posv(Uplo::Upper),
            Rt::Getri,
        ] {
            for (n, nrhs) in [(5, 2), (40, 0), (3, 17)] {
                *t += 1;
                let mut c = DCase::rotate(rt, n, nrhs, *t).with(form, 1, *t % 2);
                c.info = [Loc::Host, Loc::Device][*t % 2];
                c.pgap = *t % 3;
                let mut run = prepare::<E>(dev, &mut Gen::new(*t as u64), c, &[Fill::Hpd]);
                let what = format!("{} batch 0: {c:?}", E::NAME);
                let st = run.call(h).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(st, Status::Success, "{what}");
                run.untouched(&what);
            }
        }
    }
}

fn quick<E: T>(dev: &Device, seed: usize) {
    let mut h = handle(dev);
    let mut t = seed;
    order_zero::<E>(dev, &mut h, &mut t);
    no_right_hand_sides::<E>(dev, &mut h, &mut t);
    batch_zero::<E>(dev, &mut h, &mut t);
}

fn f3_drivers_quick_returns(dev: &Device) {
    quick::<f64>(dev, 1400);
    quick::<f32>(dev, 1500);
    quick::<Complex32>(dev, 1600);
    quick::<Complex64>(dev, 1700);
}

crate::on_both_backends!(f3_drivers_quick_returns,);
