//! F1, F10: gels on every type, `trans`, shape, form and size; rank-deficient input (`info`).

use super::*;

/// Shapes where blocking changes, both ways, square and not; wide and tall.
const SHAPES: &[(usize, usize)] = &[
    (1, 1),
    (2, 2),
    (3, 3),
    (31, 31),
    (32, 32),
    (33, 33),
    (63, 63),
    (64, 64),
    (65, 65),
    (127, 127),
    (128, 128),
    (129, 129),
    (200, 200),
    (2, 1),
    (1, 2),
    (33, 31),
    (31, 33),
    (65, 64),
    (64, 65),
    (129, 65),
    (65, 129),
    (200, 129),
    (129, 200),
    (1000, 16),
    (16, 1000),
];

/// The subset the single-precision types run.
const SHAPES_SUB: &[(usize, usize)] = &[
    (1, 1),
    (3, 3),
    (32, 32),
    (33, 33),
    (2, 1),
    (1, 2),
    (33, 31),
    (31, 33),
    (65, 40),
    (40, 65),
];

/// The subset Complex64 runs.
const SHAPES_C64: &[(usize, usize)] = &[
    (1, 1),
    (2, 2),
    (33, 33),
    (65, 65),
    (129, 129),
    (3, 2),
    (2, 3),
    (65, 64),
    (64, 65),
    (129, 65),
    (65, 129),
    (1000, 16),
    (16, 1000),
];

/// Right-hand sides, in rotation.
const NRHS: [usize; 3] = [1, 3, 17];

fn gels_suite<E: T>(dev: &Device, seed: u64, shapes: &[(usize, usize)]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = seed as usize;
    let mut cases = vec![];
    for &(m, n) in shapes {
        for trans in [Op::N, op_t::<E>()] {
            t += 1;
            let nrhs = NRHS[t % 3];
            // Mostly well conditioned (the solution compared with the f64 one); every third
            // random (the backward checks only).
            let fill = if t % 3 == 0 {
                GFill::Random
            } else {
                GFill::WellCond
            };
            cases.push((GCase::rotate(trans, m, n, nrhs, t), fill));
        }
    }
    // Real types: trans = C is trans = T.
    if !E::CPLX {
        for (i, &(m, n)) in [(40, 20), (20, 40), (33, 33)].iter().enumerate() {
            t += 1;
            cases.push((GCase::rotate(Op::C, m, n, NRHS[i], t), GFill::WellCond));
        }
    }
    each(cases, |(c, fill)| {
        let mut p = prepare_gels::<E>(dev, &mut r, c, &[fill]);
        run_checked(&mut h, &mut p);
    });
}

fn f1_f10_gels_sizes_forms_f64(dev: &Device) {
    gels_suite::<f64>(dev, 1601, SHAPES)
}
fn f1_f10_gels_sizes_forms_f32(dev: &Device) {
    gels_suite::<f32>(dev, 1602, SHAPES_SUB)
}
fn f1_f10_gels_sizes_forms_c32(dev: &Device) {
    gels_suite::<Complex32>(dev, 1603, SHAPES_SUB)
}
fn f1_f10_gels_sizes_forms_c64(dev: &Device) {
    gels_suite::<Complex64>(dev, 1604, SHAPES_C64)
}

/// An exactly zero column (`m ≥ n`) or row (`m < n`) `j` makes `R(j, j)` (`L(j, j)`) exactly
/// zero: `info = j + 1` (the first such `j` with two of them), `Success`, no error; entries
/// of full rank beside it in the same batch are solved as usual, and nothing outside the
/// operands' matrices is written either way.
fn deficient<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = seed as usize;
    let mut cases = vec![];
    for (m, n) in [(70, 40), (40, 70), (65, 65), (5, 3), (3, 5), (1, 1)] {
        let k = m.min(n);
        let mut js: Vec<usize> = vec![0, 31, 32, 33, k - 1];
        js.retain(|&j| j < k);
        js.dedup();
        for trans in [Op::N, op_t::<E>()] {
            for &j in &js {
                t += 1;
                let c = GCase::rotate(trans, m, n, NRHS[t % 3], t);
                cases.push((c, vec![GFill::Deficient(j), GFill::WellCond]));
            }
            if k > 2 {
                t += 1;
                let c = GCase::rotate(trans, m, n, 2, t).with(Form::Strided(3), 1, Loc::Device);
                let fills = vec![
                    GFill::WellCond,
                    GFill::Deficient2(k - 1, 1),
                    GFill::Deficient(0),
                ];
                cases.push((c, fills));
            }
        }
    }
    each(cases, |(c, fills)| {
        let mut p = prepare_gels::<E>(dev, &mut r, c, &fills);
        run_checked(&mut h, &mut p);
    });
}

fn f1_gels_rank_deficient_sets_info(dev: &Device) {
    deficient::<f64>(dev, 1611);
    deficient::<f32>(dev, 1612);
    deficient::<Complex32>(dev, 1613);
    deficient::<Complex64>(dev, 1614);
}

crate::on_both_backends!(
    f1_f10_gels_sizes_forms_f64,
    f1_f10_gels_sizes_forms_f32,
    f1_f10_gels_sizes_forms_c32,
    f1_f10_gels_sizes_forms_c64,
    f1_gels_rank_deficient_sets_info,
);
