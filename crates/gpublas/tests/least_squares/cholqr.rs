//! F1, F5: gels on a tall f64 matrix (4096 × 64), whose QR panel the CUDA backend factors by
//! CholeskyQR2 with Householder reconstruction, falling back to the Householder panel where
//! a column is zero. The host backend never takes that path; the same test runs there.

use super::*;

/// 4096 × 64, four right-hand sides, `op = N`: well conditioned (the solution against the f64
/// one, `A` the reference's QR), random (the backward checks), and with column 5 exactly zero
/// (`info = 6`, `R(5, 5)` exactly 0, `Success`), alone and beside a full-rank entry in strided
/// and list batches, `info` in host and device memory (gels.rs's checks); and one `op = T`
/// (the least-norm solution, from the same QR of `A`).
fn f1_f5_gels_cholqr_shape(dev: &Device) {
    let (m, n, nrhs) = (4096, 64, 4);
    let mut h = handle(dev);
    let mut r = Gen::new(3501);
    let gc = |form, pad, loc| {
        let mut c = GCase::new(Op::N, m, n, nrhs).with(form, pad, loc);
        c.gap = 3;
        c
    };
    let cases = vec![
        (gc(Form::Single, 2, Loc::Host), vec![GFill::WellCond]),
        (gc(Form::Single, 0, Loc::Device), vec![GFill::Random]),
        (gc(Form::Single, 1, Loc::Host), vec![GFill::Deficient(5)]),
        (
            gc(Form::Strided(2), 3, Loc::Device),
            vec![GFill::Deficient(5), GFill::WellCond],
        ),
        (
            gc(Form::List(2), 1, Loc::Host),
            vec![GFill::WellCond, GFill::Deficient(5)],
        ),
        // op = T: the least-norm solution of Aᵀ x = b, through the same QR of A.
        (
            GCase {
                trans: Op::T,
                ..gc(Form::Single, 1, Loc::Device)
            },
            vec![GFill::WellCond],
        ),
    ];
    each(cases, |(c, fills)| {
        let mut p = prepare_gels::<f64>(dev, &mut r, c, &fills);
        run_checked(&mut h, &mut p);
    });
}

crate::on_both_backends!(f1_f5_gels_cholqr_shape);
