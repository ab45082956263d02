//! F1, F10: gelqf on every type, form and size; special rows; wide and tall; gelqf and ormlq
//! chained.

use super::*;

/// Orders where blocking changes (panels of 32 and 64 rows, the trailing matrix in chunks).
const SQUARES: &[usize] = &[1, 2, 3, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200];

/// The subset the other types run.
const SQUARES_SUB: &[usize] = &[1, 2, 3, 31, 32, 33, 64, 65];

/// Non-square both ways.
const RECTS: &[(usize, usize)] = &[
    (2, 1),
    (1, 2),
    (33, 31),
    (31, 33),
    (65, 64),
    (64, 65),
    (129, 65),
    (65, 129),
    (200, 129),
    (127, 200),
    (16, 1000),
    (1000, 16),
];

const RECTS_SUB: &[(usize, usize)] = &[(3, 2), (2, 3), (33, 64), (64, 33), (65, 40), (40, 65)];

fn gelqf_suite<E: T>(dev: &Device, seed: u64, squares: &[usize], rects: &[(usize, usize)]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = seed as usize;
    let mut cases = vec![];
    for &n in squares {
        for fill in [Fill::WellCond, Fill::Random] {
            t += 1;
            cases.push((LCase::rotate(Rt::Gelqf, n, n, 0, t), fill));
        }
    }
    for (i, &(m, n)) in rects.iter().enumerate() {
        t += 1;
        let fill = [Fill::WellCond, Fill::Random][i % 2];
        cases.push((LCase::rotate(Rt::Gelqf, m, n, 0, t), fill));
    }
    each(cases, |(c, fill)| {
        let mut p = prepare::<E>(dev, &mut r, c, &[fill]);
        run_checked(&mut h, &mut p);
    });
}

fn f1_f10_gelqf_sizes_forms_f64(dev: &Device) {
    gelqf_suite::<f64>(dev, 1301, SQUARES, RECTS)
}
fn f1_f10_gelqf_sizes_forms_f32(dev: &Device) {
    gelqf_suite::<f32>(dev, 1302, SQUARES_SUB, RECTS_SUB)
}
fn f1_f10_gelqf_sizes_forms_c32(dev: &Device) {
    gelqf_suite::<Complex32>(dev, 1303, SQUARES_SUB, RECTS_SUB)
}
fn f1_f10_gelqf_sizes_forms_c64(dev: &Device) {
    gelqf_suite::<Complex64>(
        dev,
        1304,
        &[1, 2, 31, 32, 33, 64, 65, 128, 129],
        &[(3, 2), (65, 129), (129, 65), (16, 1000), (1000, 16)],
    )
}

/// Matrices where LAPACK's `larfg` keeps `H = I`, and where the reflectors are unique: a zero
/// row (the first, around the panel boundaries 32 and 64, the last; between well-conditioned
/// ones), already lower triangular (every `tau` exactly 0 with a real diagonal; with a complex
/// diagonal `v = 0` and `tau` making the diagonal real), the identity and the zero matrix (all
/// `tau` 0, `A` unchanged in value). Batches mix the special entries with regular ones, each
/// checked on its own.
fn special<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut items = vec![];
    for (m, n) in [(70, 70), (66, 100), (90, 40)] {
        for z in [0, 31, 32, 33, 63, 64, m - 1] {
            if z < m {
                items.push((m, n, vec![Fill::ZeroRow(z), Fill::WellCond]));
            }
        }
    }
    for (m, n) in [(1, 1), (5, 5), (33, 33), (40, 65), (65, 40), (130, 130)] {
        items.push((m, n, vec![Fill::Lower]));
        items.push((m, n, vec![Fill::LowerPhase, Fill::Lower]));
        items.push((m, n, vec![Fill::Identity]));
        items.push((m, n, vec![Fill::Zero, Fill::Random, Fill::Identity]));
    }
    let mut t = seed as usize;
    each(items, |(m, n, fills)| {
        t += 1;
        let c = LCase::rotate(Rt::Gelqf, m, n, 0, t);
        let mut p = prepare::<E>(dev, &mut r, c, &fills);
        let what = p.name();
        run_checked(&mut h, &mut p);
        // Exact values where nothing is reflected: the identity and zero matrices stay as they
        // were, and with a real lower triangle the whole L does (every H = I).
        let after = p.a.after();
        let tau_after = p.tau.after().remove(0);
        for v in 0..form_count(c.form) {
            let fill = p.fills[v];
            let tau = tau_of(&c, &tau_after, v);
            if !matches!(fill, Fill::Identity | Fill::Zero | Fill::Lower) {
                continue;
            }
            assert!(
                tau.iter().all(|&x| x == ZERO),
                "{what}: entry {v} ({fill:?}): tau {tau:?}, want all exactly 0"
            );
            let f = entry(&p.a, &after, v, m, n, c.lda);
            if let Some(j) = (0..f.v.len()).find(|&i| f.v[i] != p.input[v].v[i]) {
                panic!(
                    "{what}: entry {v} ({fill:?}): element ({}, {}) is {:?}, was {:?}: with H = I nothing changes",
                    j % m,
                    j / m,
                    f.v[j],
                    p.input[v].v[j]
                );
            }
        }
    });
}

fn f1_gelqf_special_rows(dev: &Device) {
    special::<f64>(dev, 1311);
    special::<f32>(dev, 1312);
    special::<Complex32>(dev, 1313);
    special::<Complex64>(dev, 1314);
}

/// The library's own routines chained, its output as the next input: gelqf, then ormlq on
/// its rows: `[L 0] Q = A` (`Right`, `N`), `A Qᴴ = [L 0]` (`Right`, `C`; `T` for real types),
/// `Q Aᴴ = [Lᴴ; 0]` (`Left`, `N`) and `Qᴴ [Lᴴ; 0] = Aᴴ` (`Left`, `C`).
fn chain<E: T>(dev: &Device, seed: u64, m: usize, n: usize) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let k = m.min(n);
    let lda = m + 2;
    let a = gen_fill::<E>(m, n, Fill::Random, &mut r);
    let what = format!("{} chain {m}x{n}", E::NAME);
    let mut fa = dev.upload(&store::<E>(&a, lda)).unwrap();
    let mut tau = dev.upload(&vec![pn::<E>(Poison::WriteOnly); k]).unwrap();
    let st = solver::gelqf(&mut h, m, n, &mut fa, lda, &mut tau).unwrap();
    assert_eq!(st, Status::Success, "{what}: gelqf");
    let fv = fa.to_vec().unwrap();
    let mut f = Dense::zeros(m, n);
    for j in 0..n {
        for i in 0..m {
            f.set(i, j, fv[i + j * lda].get());
        }
    }
    let l0 = lower(&f, n);
    let op = op_t::<E>();
    let cases: [(Side, Op, Dense, Dense, &str); 4] = [
        (Side::Right, Op::N, l0.clone(), a.clone(), "[L 0] Q = A"),
        (Side::Right, op, a.clone(), l0.clone(), "A Qᴴ = [L 0]"),
        (
            Side::Left,
            Op::N,
            a.op(Op::C),
            l0.op(Op::C),
            "Q Aᴴ = [Lᴴ; 0]",
        ),
        (Side::Left, op, l0.op(Op::C), a.op(Op::C), "Qᴴ [Lᴴ; 0] = Aᴴ"),
    ];
    for (side, op, cin, want, name) in cases {
        let ldc = cin.r + 1;
        let mut cm = dev.upload(&store::<E>(&cin, ldc)).unwrap();
        let st = solver::ormlq(
            &mut h, side, op, cin.r, cin.c, k, &fa, lda, &tau, &mut cm, ldc,
        )
        .unwrap();
        assert_eq!(st, Status::Success, "{what}: {name}");
        let cv = cm.to_vec().unwrap();
        let mut got = Dense::zeros(cin.r, cin.c);
        for j in 0..cin.c {
            for i in 0..cin.r {
                got.set(i, j, cv[i + j * ldc].get());
            }
        }
        let res = apply_residual(&got, &want, &a, E::EPS);
        assert!(res < RESID_MAX, "{what}: {name}: ratio {res:.3e}");
    }
}

fn f1_lq_gelqf_ormlq_chained(dev: &Device) {
    chain::<f64>(dev, 1331, 100, 150);
    chain::<f64>(dev, 1332, 150, 100);
    chain::<f32>(dev, 1333, 65, 65);
    chain::<Complex32>(dev, 1334, 64, 129);
    chain::<Complex64>(dev, 1335, 100, 70);
}

crate::on_both_backends!(
    f1_f10_gelqf_sizes_forms_f64,
    f1_f10_gelqf_sizes_forms_f32,
    f1_f10_gelqf_sizes_forms_c32,
    f1_f10_gelqf_sizes_forms_c64,
    f1_gelqf_special_rows,
    f1_lq_gelqf_ormlq_chained,
);
