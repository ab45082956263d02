//! F1, F5, F10: getri.

use super::*;

/// getri at every order of `sizes` (twice each: layouts, padding, pivot gaps and `info`
/// routing in rotation; random and well-conditioned matrices mixed in batches), on the factors
/// and pivots the library's getrf wrote; with `big` one single matrix of order 1000 and a
/// strided pair of order 300.
fn getri_suite<E: T>(dev: &Device, seed: u64, sizes: &[usize], big: bool) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = seed as usize;
    let mut cases = vec![];
    for &n in sizes {
        for k in 0..2 {
            t += 1;
            let fills = [
                [Fill::Random, Fill::Dominant],
                [Fill::Dominant, Fill::Random],
            ][k];
            cases.push((DCase::rotate(Rt::Getri, n, 0, t), fills));
        }
    }
    if big {
        // 1000: the inversion's second level runs three nodes of 256 as one set of steps
        // (complex double, leaves of 64: four of 128 on the third).
        let c = DCase::new(Rt::Getri, 1000, 0).with(Form::Single, 2, 0);
        cases.push((c, [Fill::Random, Fill::Random]));
        // Two entries of 300: two full leaves of 128 (64 for complex double) and a short one
        // each, inverted in place by one step over both entries.
        let c = DCase::new(Rt::Getri, 300, 0).with(Form::Strided(2), 1, 0);
        cases.push((c, [Fill::Random, Fill::Dominant]));
    }
    each(cases, |(c, fills)| {
        let mut p = prepare::<E>(dev, &mut r, c, &fills);
        run_checked(&mut h, &mut p);
    });
}

fn f1_f10_getri_sizes_forms_f64(dev: &Device) {
    getri_suite::<f64>(dev, 1301, SIZES, true)
}
fn f1_f10_getri_sizes_forms_f32(dev: &Device) {
    getri_suite::<f32>(dev, 1302, SUB, false)
}
fn f1_f10_getri_sizes_forms_c32(dev: &Device) {
    getri_suite::<Complex32>(dev, 1303, SUB, false)
}
fn f1_f10_getri_sizes_forms_c64(dev: &Device) {
    getri_suite::<Complex64>(dev, 1304, SIZES, true)
}

/// Exactly singular matrices (small integers, a zero column at and around the block
/// boundaries, sometimes a second one) between regular entries: `info` = the first zero
/// `U(i, i)` of the reference loop (and of getrf), no error, only each entry's `n × n`
/// elements written, the regular entries inverted.
fn singular<E: T>(dev: &Device, seed: u64, sizes: &[usize]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = seed as usize;
    let mut cases = vec![];
    for &n in sizes {
        let ks: Vec<usize> = [0, 1, 31, 32, 33, 63, 64, 65, 127, 128, n / 2, n - 1]
            .into_iter()
            .filter(|&k| k < n)
            .collect();
        for (i, &k) in ks.iter().enumerate() {
            t += 1;
            let second = (i % 2 == 0 && k + 3 < n).then_some(k + 3);
            let fills = [
                Fill::ZeroCol(k, second),
                Fill::Random,
                Fill::ZeroCol(k, None),
            ];
            cases.push((DCase::rotate(Rt::Getri, n, 0, t), fills));
        }
    }
    each(cases, |(c, fills)| {
        let mut p = prepare::<E>(dev, &mut r, c, &fills);
        run_checked(&mut h, &mut p);
    });
}

fn f5_getri_info_is_first_zero_pivot(dev: &Device) {
    singular::<f64>(dev, 1311, &[1, 2, 3, 65, 129, 200]);
    singular::<f32>(dev, 1312, &[33]);
    singular::<Complex32>(dev, 1313, &[2, 64]);
    singular::<Complex64>(dev, 1314, &[129]);
}

crate::on_both_backends!(
    f1_f10_getri_sizes_forms_f64,
    f1_f10_getri_sizes_forms_f32,
    f1_f10_getri_sizes_forms_c32,
    f1_f10_getri_sizes_forms_c64,
    f5_getri_info_is_first_zero_pivot,
);
