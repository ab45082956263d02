//! F1, F5, F10: posv.

use super::*;

/// posv at every order of `sizes`, both triangles, right-hand sides, layouts, padding and
/// `info` routing in rotation, HPD inputs of both kinds mixed in batches; with `big` one
/// single system of order 500 stored in that triangle.
fn posv_suite<E: T>(dev: &Device, seed: u64, sizes: &[usize], big: Option<Uplo>) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = seed as usize;
    let mut cases = vec![];
    for &n in sizes {
        for (k, uplo) in [Uplo::Lower, Uplo::Upper].into_iter().enumerate() {
            t += 1;
            let nrhs = NRHS[t % NRHS.len()];
            let fills = [[Fill::Gram, Fill::Hpd], [Fill::Hpd, Fill::Gram]][k];
            cases.push((DCase::rotate(Rt::Posv(uplo), n, nrhs, t), fills));
        }
    }
    if let Some(uplo) = big {
        let c = DCase::new(Rt::Posv(uplo), 500, 2).with(Form::Single, 1, 2);
        cases.push((c, [Fill::Hpd, Fill::Hpd]));
    }
    each(cases, |(c, fills)| {
        let mut p = prepare::<E>(dev, &mut r, c, &fills);
        run_checked(&mut h, &mut p);
    });
}

fn f1_f10_posv_both_uplos_sizes_forms_f64(dev: &Device) {
    posv_suite::<f64>(dev, 1201, SIZES, Some(Uplo::Lower))
}
fn f1_f10_posv_both_uplos_sizes_forms_f32(dev: &Device) {
    posv_suite::<f32>(dev, 1202, SUB, None)
}
fn f1_f10_posv_both_uplos_sizes_forms_c32(dev: &Device) {
    posv_suite::<Complex32>(dev, 1203, SUB, None)
}
fn f1_f10_posv_both_uplos_sizes_forms_c64(dev: &Device) {
    posv_suite::<Complex64>(dev, 1204, SIZES, Some(Uplo::Upper))
}

/// HPD matrices with the leading minor of order `k` broken (a negative or zero `A(k−1, k−1)`)
/// between regular entries: `info = k` in each entry's place, the factor bit for bit potrf's
/// (partial), the unstored triangle untouched, the regular entries solved.
fn not_pd<E: T>(dev: &Device, seed: u64, sizes: &[usize]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = seed as usize;
    let mut cases = vec![];
    for &n in sizes {
        let mut ks: Vec<usize> = [1, 2, 31, 32, 33, 64, 65, 100, 128, 129, n]
            .into_iter()
            .filter(|&k| k <= n)
            .collect();
        ks.dedup();
        for k in ks {
            // Both triangles at the smallest orders, else in turn.
            let uplos = if n <= 2 {
                vec![Uplo::Lower, Uplo::Upper]
            } else {
                vec![[Uplo::Lower, Uplo::Upper][t % 2]]
            };
            for uplo in uplos {
                t += 1;
                let v = [-1.0, 0.0, -0.5][t % 3];
                let fills = [Fill::NotPd(k, v), Fill::Hpd, Fill::NotPd((k / 2).max(1), v)];
                let nrhs = NRHS[t % NRHS.len()];
                cases.push((DCase::rotate(Rt::Posv(uplo), n, nrhs, t), fills));
            }
        }
    }
    each(cases, |(c, fills)| {
        let mut p = prepare::<E>(dev, &mut r, c, &fills);
        run_checked(&mut h, &mut p);
    });
}

fn f5_posv_info_is_first_broken_leading_minor(dev: &Device) {
    not_pd::<f64>(dev, 1211, &[1, 33, 65, 129]);
    not_pd::<f32>(dev, 1212, &[40]);
    not_pd::<Complex32>(dev, 1213, &[65]);
    not_pd::<Complex64>(dev, 1214, &[2, 65]);
}

crate::on_both_backends!(
    f1_f10_posv_both_uplos_sizes_forms_f64,
    f1_f10_posv_both_uplos_sizes_forms_f32,
    f1_f10_posv_both_uplos_sizes_forms_c32,
    f1_f10_posv_both_uplos_sizes_forms_c64,
    f5_posv_info_is_first_broken_leading_minor,
);
