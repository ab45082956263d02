//! F1, F10: ormqr (unmqr) on every type, side, op, form and size.

use super::*;

/// `(nq, other, k)`: `Q` of order `nq` applied to a `C` with `other` columns (Left: `m = nq`,
/// `n = other`) or rows (Right: `n = nq`, `m = other`), from `k` reflectors.
const SMALL: &[(usize, usize, usize)] = &[
    (1, 1, 1),
    (2, 3, 1),
    (3, 2, 3),
    (31, 33, 31),
    (32, 5, 32),
    (33, 64, 33),
    (63, 63, 40),
    (64, 1, 64),
    (65, 17, 1),
    (65, 65, 65),
];

/// Larger shapes, two per side and op in rotation.
const BIG: &[(usize, usize, usize)] = &[
    (127, 40, 127),
    (128, 64, 128),
    (129, 129, 129),
    (129, 33, 64),
    (200, 150, 150),
    (200, 150, 100),
    (400, 60, 300),
    (390, 70, 390),
];

/// The ops of the type: `T` and `C` for real types (the same product), `C` only for complex
/// ones (`T` is an error there).
fn ops<E: El>() -> &'static [Op] {
    if E::CPLX {
        &[Op::N, Op::C]
    } else {
        &[Op::N, Op::T, Op::C]
    }
}

fn shape(side: Side, (nq, other, k): (usize, usize, usize)) -> (usize, usize, usize) {
    match side {
        Side::Left => (nq, other, k),
        Side::Right => (other, nq, k),
    }
}

fn ormqr_suite<E: T>(dev: &Device, seed: u64, small: &[(usize, usize, usize)], big_each: usize) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = seed as usize;
    let mut b = 0;
    let mut cases = vec![];
    for side in [Side::Left, Side::Right] {
        for &op in ops::<E>() {
            let bigs: Vec<_> = (0..big_each)
                .map(|_| {
                    b += 1;
                    BIG[(b + seed as usize) % BIG.len()]
                })
                .collect();
            for &s in small.iter().chain(&bigs) {
                t += 1;
                let (m, n, k) = shape(side, s);
                let fills = if t % 4 == 0 {
                    vec![Fill::ZeroCol(k / 2), Fill::Random]
                } else {
                    vec![Fill::Random]
                };
                cases.push((QCase::rotate(Rt::Ormqr(side, op), m, n, k, t), fills));
            }
        }
    }
    each(cases, |(c, fills)| {
        let mut p = prepare::<E>(dev, &mut r, c, &fills);
        run_checked(&mut h, &mut p);
    });
}

fn f1_ormqr_sides_ops_f64(dev: &Device) {
    ormqr_suite::<f64>(dev, 501, SMALL, 2)
}
fn f1_ormqr_sides_ops_f32(dev: &Device) {
    ormqr_suite::<f32>(dev, 502, &SMALL[2..8], 1)
}
fn f1_ormqr_sides_ops_c32(dev: &Device) {
    ormqr_suite::<Complex32>(dev, 503, &SMALL[1..9], 1)
}
fn f1_ormqr_sides_ops_c64(dev: &Device) {
    ormqr_suite::<Complex64>(dev, 504, &SMALL[3..], 1)
}

crate::on_both_backends!(
    f1_ormqr_sides_ops_f64,
    f1_ormqr_sides_ops_f32,
    f1_ormqr_sides_ops_c32,
    f1_ormqr_sides_ops_c64,
);
