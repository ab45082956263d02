//! F1, F10: ormlq (unmlq) on every type, side, op, form and size.

use super::*;

/// `(nq, other, k)`: `Q` of order `nq` applied to a `C` with `other` columns (Left: `m = nq`,
/// `n = other`) or rows (Right: `n = nq`, `m = other`), from `k` reflectors: `C` wider and
/// taller than `Q`'s order, `k` below and at `nq`, around the block sizes.
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
    (40, 100, 17),
];

/// Larger shapes, in rotation.
const BIG: &[(usize, usize, usize)] = &[
    (127, 40, 127),
    (128, 64, 128),
    (129, 129, 129),
    (129, 33, 64),
    (200, 150, 150),
    (200, 150, 100),
    (1000, 3, 16),
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

fn ormlq_suite<E: T>(dev: &Device, seed: u64, small: &[(usize, usize, usize)], big_each: usize) {
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
                    vec![Fill::ZeroRow(k / 2), Fill::Random]
                } else {
                    vec![Fill::Random]
                };
                cases.push((LCase::rotate(Rt::Ormlq(side, op), m, n, k, t), fills));
            }
        }
    }
    each(cases, |(c, fills)| {
        let mut p = prepare::<E>(dev, &mut r, c, &fills);
        run_checked(&mut h, &mut p);
    });
}

fn f1_ormlq_sides_ops_f64(dev: &Device) {
    ormlq_suite::<f64>(dev, 1501, SMALL, 2)
}
fn f1_ormlq_sides_ops_f32(dev: &Device) {
    ormlq_suite::<f32>(dev, 1502, &SMALL[2..8], 1)
}
fn f1_ormlq_sides_ops_c32(dev: &Device) {
    ormlq_suite::<Complex32>(dev, 1503, &SMALL[1..9], 0)
}
fn f1_ormlq_sides_ops_c64(dev: &Device) {
    ormlq_suite::<Complex64>(dev, 1504, &SMALL[3..], 1)
}

/// F1: LAPACK's `?ormlq` never references the diagonal of `A` or the part left of it (the
/// `L` that gelqf leaves there): with a NaN there (the diagonal alone, the part left of it
/// alone) every side, op and type still gives the right `C`, the NaN in no element of it.
fn f1_ormlq_reads_neither_diagonal_nor_l(dev: &Device) {
    fn one<'d, E: T>(dev: &'d Device, seed: u64, items: &mut Vec<Box<dyn FnOnce() + 'd>>) {
        let mut t = seed as usize;
        for side in [Side::Left, Side::Right] {
            for &op in ops::<E>() {
                for &s in &[(3, 2, 3), (40, 7, 33), (65, 3, 65)] {
                    for unread in [Unread::NanDiagonal, Unread::NanLeft] {
                        t += 1;
                        let (m, n, k) = shape(side, s);
                        let c = LCase::rotate(Rt::Ormlq(side, op), m, n, k, t);
                        items.push(Box::new(move || {
                            let mut h = handle(dev);
                            let mut r = Gen::new(t as u64);
                            let mut p = prepare_with::<E>(dev, &mut r, c, &[Fill::Random], unread);
                            let what = format!("{} with {unread:?}", p.name());
                            let st = p.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
                            assert_eq!(st, Status::Success, "{what}");
                            p.check(&what);
                        }));
                    }
                }
            }
        }
    }
    let mut items: Vec<Box<dyn FnOnce()>> = vec![];
    one::<f64>(dev, 1511, &mut items);
    one::<f32>(dev, 1521, &mut items);
    one::<Complex32>(dev, 1531, &mut items);
    one::<Complex64>(dev, 1541, &mut items);
    each(items, |f| f());
}

/// F9: inputs may overlap: one set of vectors and scalars (`stride_a = 0`,
/// `stride_tau = 0`) applied to different `C`s of a strided batch gives each its right
/// answer; and gelqf with a single entry may take `stride_tau = 0` (nothing to overlap).
fn f9_ormlq_may_share_vectors_and_tau(dev: &Device) {
    fn one<E: T>(dev: &Device, seed: u64) {
        let mut h = handle(dev);
        let mut r = Gen::new(seed);
        let count = 4;
        for (side, m, n, k) in [(Side::Left, 50, 20, 30), (Side::Right, 17, 70, 70)] {
            for op in [Op::N, op_t::<E>()] {
                let mut c = LCase::new(Rt::Ormlq(side, op), m, n, k).with(Form::Strided(count), 2);
                c.gap = 1;
                let nq = c.nq();
                let (vs, tau) =
                    rounded_reflectors::<E>(&gen_fill::<E>(k, nq, Fill::Random, &mut r));
                let q = form_q_lq(&vs, &tau, nq);
                let ast = store_row_vectors::<E>(&vs, c.lda, Unread::Finite);
                let single = LCase {
                    form: Form::Single,
                    ..c
                };
                let cs: Vec<Dense> = (0..count)
                    .map(|_| gen_fill::<E>(m, n, Fill::Random, &mut r))
                    .collect();
                let cst: Vec<Vec<E>> = cs.iter().map(|x| store::<E>(x, c.ldc)).collect();
                let mut p = LqRun::<E> {
                    c,
                    a: place(dev, Form::Single, ast.len(), 0, &[ast]),
                    tau: place_tau(
                        dev,
                        &single,
                        &[tau.iter().map(|t| E::make(t.0, t.1)).collect()],
                    ),
                    cm: Some(place(dev, c.form, span(m, n, c.ldc), 2, &cst)),
                    input: cs.clone(),
                    want: cs.iter().map(|x| apply_q(side, op, &q, x)).collect(),
                    refs: vec![],
                    fills: vec![Fill::Random; count],
                };
                let what = format!("{} with stride_a = stride_tau = 0", p.name());
                let cm = p.cm.as_mut().unwrap();
                let sc = cm.stride;
                let st = solver::ormlq_strided_batched(
                    &mut h,
                    side,
                    op,
                    m,
                    n,
                    k,
                    p.a.one(),
                    c.lda,
                    0,
                    p.tau.one(),
                    0,
                    cm.one_mut(),
                    c.ldc,
                    sc,
                    count,
                )
                .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(st, Status::Success, "{what}");
                p.check(&what);
            }
        }
        // gelqf, one entry, stride_tau = 0.
        for form in [Form::Strided(1), Form::List(1)] {
            let c = LCase::new(Rt::Gelqf, 5, 7, 0).with(form, 2);
            let mut p = prepare::<E>(dev, &mut r, c, &[Fill::WellCond]);
            let what = format!("{} with stride_tau = 0", p.name());
            let sa = p.a.stride;
            let st = match form {
                Form::Strided(_) => solver::gelqf_strided_batched(
                    &mut h,
                    5,
                    7,
                    p.a.one_mut(),
                    c.lda,
                    sa,
                    p.tau.one_mut(),
                    0,
                    1,
                ),
                _ => {
                    solver::gelqf_batched(&mut h, 5, 7, &mut p.a.muts(), c.lda, p.tau.one_mut(), 0)
                }
            };
            assert_eq!(
                st.unwrap_or_else(|e| panic!("{what}: {e}")),
                Status::Success,
                "{what}"
            );
            p.check(&what);
        }
    }
    one::<f64>(dev, 1551);
    one::<Complex32>(dev, 1552);
}

crate::on_both_backends!(
    f9_ormlq_may_share_vectors_and_tau,
    f1_ormlq_reads_neither_diagonal_nor_l,
    f1_ormlq_sides_ops_f64,
    f1_ormlq_sides_ops_f32,
    f1_ormlq_sides_ops_c32,
    f1_ormlq_sides_ops_c64,
);
