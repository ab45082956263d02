//! F1, F10: orgqr (ungqr) on every type, form and size.

use super::*;

/// `(m, n, k)` where blocking changes: panels of 32 and 64 reflectors, `k < n` (columns past
/// `k` start as the identity's), `k = 0` (the identity), `m > n`.
const SHAPES: &[(usize, usize, usize)] = &[
    (1, 1, 1),
    (1, 1, 0),
    (2, 1, 1),
    (2, 2, 2),
    (3, 3, 2),
    (3, 3, 3),
    (31, 31, 31),
    (32, 32, 32),
    (33, 33, 33),
    (33, 33, 0),
    (40, 40, 1),
    (63, 63, 63),
    (64, 64, 64),
    (65, 64, 63),
    (65, 65, 64),
    (65, 65, 65),
    (100, 64, 0),
    (127, 127, 127),
    (128, 128, 128),
    (129, 65, 33),
    (129, 65, 65),
    (129, 129, 65),
    (129, 129, 128),
    (129, 129, 129),
    (200, 150, 100),
    (200, 200, 200),
    (300, 40, 40),
    (330, 300, 290),
];

/// The subset the other types run.
const SHAPES_SUB: &[(usize, usize, usize)] = &[
    (1, 1, 1),
    (2, 2, 1),
    (31, 31, 31),
    (32, 32, 32),
    (33, 33, 33),
    (64, 64, 64),
    (65, 65, 0),
    (65, 65, 64),
    (128, 128, 128),
    (129, 65, 65),
    (129, 129, 129),
    (300, 40, 40),
    (330, 300, 290),
];

fn orgqr_suite<E: T>(dev: &Device, seed: u64, shapes: &[(usize, usize, usize)]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = seed as usize;
    let mut cases = vec![];
    for &(m, n, k) in shapes {
        t += 1;
        // Mostly random reflectors; some with H_j = I (tau = 0) between them.
        let fills = match t % 5 {
            0 => vec![Fill::ZeroCol(k / 2), Fill::Random],
            3 => vec![Fill::Random, Fill::Upper],
            _ => vec![Fill::Random],
        };
        cases.push((QCase::rotate(Rt::Orgqr, m, n, k, t), fills));
    }
    each(cases, |(c, fills)| {
        let mut p = prepare::<E>(dev, &mut r, c, &fills);
        run_checked(&mut h, &mut p);
    });
}

fn f1_orgqr_sizes_forms_f64(dev: &Device) {
    orgqr_suite::<f64>(dev, 401, SHAPES)
}
fn f1_orgqr_sizes_forms_f32(dev: &Device) {
    orgqr_suite::<f32>(dev, 402, SHAPES_SUB)
}
fn f1_orgqr_sizes_forms_c32(dev: &Device) {
    orgqr_suite::<Complex32>(dev, 403, SHAPES_SUB)
}
fn f1_orgqr_sizes_forms_c64(dev: &Device) {
    orgqr_suite::<Complex64>(dev, 404, SHAPES_SUB)
}

crate::on_both_backends!(
    f1_orgqr_sizes_forms_f64,
    f1_orgqr_sizes_forms_f32,
    f1_orgqr_sizes_forms_c32,
    f1_orgqr_sizes_forms_c64,
);
