//! F1, F5, F10: gesv.

use super::*;

/// gesv at every order of `sizes` (twice each: right-hand sides, layouts, padding and `info`
/// routing in rotation; well-conditioned and random entries mixed in batches), and with `big`
/// one single system of order 500.
fn gesv_suite<E: T>(dev: &Device, seed: u64, sizes: &[usize], big: bool) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = seed as usize;
    let mut cases = vec![];
    for &n in sizes {
        for k in 0..2 {
            t += 1;
            let nrhs = NRHS[t % NRHS.len()];
            let fills = [
                [Fill::Dominant, Fill::Random],
                [Fill::Random, Fill::Dominant],
            ][k];
            cases.push((DCase::rotate(Rt::Gesv, n, nrhs, t), fills));
        }
    }
    if big {
        let c = DCase::new(Rt::Gesv, 500, 17).with(Form::Single, 3, 1);
        cases.push((c, [Fill::Dominant, Fill::Random]));
    }
    each(cases, |(c, fills)| {
        let mut p = prepare::<E>(dev, &mut r, c, &fills);
        run_checked(&mut h, &mut p);
    });
}

fn f1_f10_gesv_sizes_nrhs_forms_f64(dev: &Device) {
    gesv_suite::<f64>(dev, 1101, SIZES, true)
}
fn f1_f10_gesv_sizes_nrhs_forms_f32(dev: &Device) {
    gesv_suite::<f32>(dev, 1102, SUB, false)
}
fn f1_f10_gesv_sizes_nrhs_forms_c32(dev: &Device) {
    gesv_suite::<Complex32>(dev, 1103, SUB, false)
}
fn f1_f10_gesv_sizes_nrhs_forms_c64(dev: &Device) {
    gesv_suite::<Complex64>(dev, 1104, SIZES, true)
}

/// Exactly singular entries (a zero column at and around the panel and recursion
/// boundaries, sometimes a second one further right) between regular ones: each entry's
/// `info` in its place, `A` and the pivots still getrf's, the regular entries solved.
fn singular<E: T>(dev: &Device, seed: u64, sizes: &[usize]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = seed as usize;
    let mut cases = vec![];
    for &n in sizes {
        let ks: Vec<usize> = [0, 1, 31, 32, 33, 64, n / 2, n - 1]
            .into_iter()
            .filter(|&k| k < n)
            .collect();
        for (i, &k) in ks.iter().enumerate() {
            t += 1;
            let second = (i % 2 == 1 && k + 2 < n).then_some(k + 2);
            let nrhs = NRHS[t % NRHS.len()];
            let fills = [
                Fill::ZeroCol(k, second),
                Fill::Dominant,
                Fill::ZeroCol(k, None),
            ];
            cases.push((DCase::rotate(Rt::Gesv, n, nrhs, t), fills));
        }
    }
    each(cases, |(c, fills)| {
        let mut p = prepare::<E>(dev, &mut r, c, &fills);
        run_checked(&mut h, &mut p);
    });
}

fn f5_gesv_info_is_first_zero_pivot_others_solved(dev: &Device) {
    singular::<f64>(dev, 1111, &[1, 2, 3, 33, 65, 129]);
    singular::<f32>(dev, 1112, &[2, 40]);
    singular::<Complex32>(dev, 1113, &[3, 65]);
    singular::<Complex64>(dev, 1114, &[1, 33, 129]);
}

crate::on_both_backends!(
    f1_f10_gesv_sizes_nrhs_forms_f64,
    f1_f10_gesv_sizes_nrhs_forms_f32,
    f1_f10_gesv_sizes_nrhs_forms_c32,
    f1_f10_gesv_sizes_nrhs_forms_c64,
    f5_gesv_info_is_first_zero_pivot_others_solved,
);
