//! F1, F5: a singular A gives infinities or NaNs, never an error.

use super::*;

fn singular<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0;
    let mut items = vec![];
    for (s, u, o) in [(L, UP, ON), (L, LO, OC), (R, LO, ON), (R, UP, OT)] {
        for k in [1, 33, 129] {
            for way in [Way::Trsm, Way::Substitute] {
                items.push((s, u, o, k, way));
            }
        }
    }
    each(items, |(s, u, o, k, way)| {
        t += 1;
        let (m, n) = if s == L { (k, 7) } else { (5, k) };
        let c = Case::new(s, u, o, NU, m, n).fit_t(t);
        let zero_at = (t * 13) % k;
        let form = [Form::Single, Form::Strided(2), Form::List(2)][t % 3];
        let mut p = prepare::<E>(
            &mut h,
            &mut r,
            c,
            form,
            1,
            way,
            Scal::Host,
            (0.5, 0.0),
            Fill::ZeroDiag(zero_at),
        );
        let what = format!("{} (zero at A({zero_at}, {zero_at}))", p.name());
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(st, Status::Success, "{what}");
        for (v, x) in p.xs().iter().enumerate() {
            assert!(
                x.v.iter().any(|&e| !finite(e)),
                "{what}: entry {v}: every value finite"
            );
        }
        p.inputs_untouched(&what);
    });
    for (uplo, n) in [(UP, 1), (LO, 33), (UP, 129), (LO, 64)] {
        t += 1;
        let form = [Form::Single, Form::Strided(2), Form::List(2)][t % 3];
        let mut p = prepare_inv::<E>(
            dev,
            &mut r,
            (uplo, NU, n, 1, 2),
            form,
            1,
            Fill::ZeroDiag((t * 7) % n),
        );
        let what = p.name();
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(st, Status::Success, "{what}");
        let after = p.inv.after();
        for v in 0..form_count(form) {
            let x = p.got(&after, v);
            assert!(
                x.v.iter().any(|&e| !finite(e)),
                "{what}: entry {v}: every value finite"
            );
        }
        p.a.untouched(&what);
    }
}

fn f5_singular_a_gives_inf_or_nan_not_an_error(dev: &Device) {
    singular::<f64>(dev, 61);
    singular::<Complex32>(dev, 62);
}

crate::on_both_backends!(f5_singular_a_gives_inf_or_nan_not_an_error,);
