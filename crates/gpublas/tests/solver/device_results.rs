//! F6: results in device memory.

use super::*;

/// The same factorizations with pivots and `info` in host memory and in device memory (and
/// mixed): the same pivots and `info`, read back from the device buffer after the call.
fn f6_device_results_equal_host_results(dev: &Device) {
    let mut h = handle(dev);
    let mut r = Gen::new(191);
    let mut items = vec![];
    for (n, form) in [
        (33, Form::Single),
        (65, Form::Strided(4)),
        (129, Form::List(3)),
        (300, Form::Single),
    ] {
        for rt in [Rt::Getrf, Rt::Npvt, Rt::Potrf(Uplo::Upper)] {
            items.push((n, form, rt));
        }
    }
    each(items, |(n, form, rt)| {
        let fills = match rt {
            Rt::Getrf => [Fill::Sep, Fill::ZeroCol(n / 3, None), Fill::Random],
            Rt::Npvt => [Fill::Dominant, Fill::ZeroCol(n / 2, None), Fill::Dominant],
            Rt::Potrf(_) => [Fill::Hpd, Fill::NotPd(n / 2 + 1, -1.0), Fill::Gram],
        };
        let mut seen: Vec<(Vec<i32>, Vec<i32>)> = vec![];
        for (pl, il) in [
            (Loc::Host, Loc::Host),
            (Loc::Device, Loc::Device),
            (Loc::Device, Loc::Host),
            (Loc::Host, Loc::Device),
        ] {
            let mut c = FCase::new(rt, n, n).with(form, 1);
            c.pgap = 2;
            c.gap = 3;
            c.piv = pl;
            c.info = il;
            let mut p = prepare_fact::<f64>(dev, &mut r.clone(), c, &fills);
            run_checked(&mut h, &mut p);
            seen.push((
                p.ipiv.as_ref().map(|x| x.now()).unwrap_or_default(),
                p.info.now(),
            ));
        }
        for s in &seen[1..] {
            assert_eq!(
                s, &seen[0],
                "{rt:?} n={n} {form:?}: results differ by where they go"
            );
        }
        r.next();
    });
}

crate::on_both_backends!(f6_device_results_equal_host_results,);
