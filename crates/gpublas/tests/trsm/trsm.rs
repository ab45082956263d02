//! F1, F10: trsm and trsm_ex on every side, uplo, op, diag, type, form and size.

use super::*;

/// Sizes where blocking changes (the blocks of `A` are at most 128 wide; 32 for `trtri`).
const SIZES: &[usize] = &[0, 1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 300];
/// The small ones, cheap enough for batches of 7.
const SMALL: &[usize] = &[0, 1, 2, 31, 32, 33, 63, 64, 65];

/// Alphas the correctness loops cycle through (real types take the real parts): general
/// values, 1, and 0 (with host scalars `A` and `B` are NaN then and `B` becomes 0).
const ALPHAS: &[C] = &[
    (0.75, -0.25),
    (1.0, 0.0),
    (0.0, 0.0),
    (-1.5, 0.5),
    (2.0, 1.0),
];
/// Scalars in rotation (with `ALPHAS`, every pair comes up).
const SCALS: &[Scal] = &[Scal::Host, Scal::Device, Scal::Host, Scal::PerEntry];

/// A pair of different sizes from `SMALL`, rotating with `t`.
fn small_pair(t: usize) -> (usize, usize) {
    let m = SMALL[(t * 5 + 1) % SMALL.len()];
    let mut n = SMALL[(t * 7 + 4) % SMALL.len()];
    if n == m {
        n = SMALL[(t * 7 + 5) % SMALL.len()];
    }
    (m, n)
}

/// Each `(m, n)` of `SIZES × SIZES` with `m != n` (only those with `(i + j) % every == 0`
/// for `every > 1`) with the side/uplo/op/diag combination, layout, scalars, alpha, gaps
/// and leading dimensions in rotation (one- or two-entry layouts at 300), then `reps`
/// more rounds of every combination at small sizes in every layout. `ways` rotate too.
fn trsm_suite<E: T>(dev: &Device, seed: u64, ways: &[Way], every: usize, reps: usize) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let all = combos();
    let mut t = seed as usize;
    let mut cases = vec![];
    for (i, &m) in SIZES.iter().enumerate() {
        for (j, &n) in SIZES.iter().enumerate() {
            if m == n || (i + j) % every != 0 {
                continue;
            }
            t += 1;
            let form = if m.max(n) > 129 {
                BIG_FORMS[t % BIG_FORMS.len()]
            } else {
                FORMS[t % FORMS.len()]
            };
            let c = Case::of(all[t % all.len()], m, n).fit_t(t);
            cases.push((c, form, ways[t % ways.len()], t));
        }
    }
    for rep in 0..reps {
        for (ci, &cb) in all.iter().enumerate() {
            t += 1;
            let (m, n) = small_pair(t);
            let form = FORMS[t % FORMS.len()];
            let c = Case::of(cb, m, n).fit_t(t);
            cases.push((c, form, ways[(ci + rep) % ways.len()], t));
        }
    }
    each(cases, |(c, form, way, t)| {
        let scal = SCALS[t % SCALS.len()];
        let alpha = ALPHAS[t % ALPHAS.len()];
        let gap = GAPS[t % GAPS.len()];
        let mut p = prepare::<E>(&mut h, &mut r, c, form, gap, way, scal, alpha, Fill::Well);
        run_checked(&mut h, &mut p);
    });
}

fn f1_f10_trsm_all_sides_uplos_ops_diags_forms_sizes_f32(dev: &Device) {
    trsm_suite::<f32>(dev, 11, &[Way::Trsm], 1, 3)
}
fn f1_f10_trsm_all_sides_uplos_ops_diags_forms_sizes_f64(dev: &Device) {
    trsm_suite::<f64>(dev, 12, &[Way::Trsm], 1, 3)
}
fn f1_f10_trsm_all_sides_uplos_ops_diags_forms_sizes_c32(dev: &Device) {
    trsm_suite::<Complex32>(dev, 13, &[Way::Trsm], 1, 3)
}
fn f1_f10_trsm_all_sides_uplos_ops_diags_forms_sizes_c64(dev: &Device) {
    trsm_suite::<Complex64>(dev, 14, &[Way::Trsm], 1, 3)
}

/// `trsm_ex`: substitution and a `trtri` inverse most, `Invert` (what `trsm` does) some.
const EX_WAYS: &[Way] = &[
    Way::Substitute,
    Way::Inverse,
    Way::Substitute,
    Way::Inverse,
    Way::Invert,
];

fn f1_f10_trsm_ex_substitute_inverse_invert_f32(dev: &Device) {
    trsm_suite::<f32>(dev, 21, EX_WAYS, 2, 2)
}
fn f1_f10_trsm_ex_substitute_inverse_invert_f64(dev: &Device) {
    trsm_suite::<f64>(dev, 22, EX_WAYS, 2, 2)
}
fn f1_f10_trsm_ex_substitute_inverse_invert_c32(dev: &Device) {
    trsm_suite::<Complex32>(dev, 23, EX_WAYS, 2, 2)
}
fn f1_f10_trsm_ex_substitute_inverse_invert_c64(dev: &Device) {
    trsm_suite::<Complex64>(dev, 24, EX_WAYS, 2, 2)
}

crate::on_both_backends!(
    f1_f10_trsm_all_sides_uplos_ops_diags_forms_sizes_f32,
    f1_f10_trsm_all_sides_uplos_ops_diags_forms_sizes_f64,
    f1_f10_trsm_all_sides_uplos_ops_diags_forms_sizes_c32,
    f1_f10_trsm_all_sides_uplos_ops_diags_forms_sizes_c64,
    f1_f10_trsm_ex_substitute_inverse_invert_f32,
    f1_f10_trsm_ex_substitute_inverse_invert_f64,
    f1_f10_trsm_ex_substitute_inverse_invert_c32,
    f1_f10_trsm_ex_substitute_inverse_invert_c64,
);
