//! F1, F10: geqrf on every type, form and size; special columns; tall-skinny; the three
//! routines chained.

use super::*;

/// Orders where blocking changes (panels of 32 and 64 columns, the trailing matrix in chunks).
const SQUARES: &[usize] = &[1, 2, 3, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200];

/// The subset the other types run.
const SQUARES_SUB: &[usize] = &[1, 2, 31, 32, 33, 64, 65, 128, 129];

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
    (300, 40),
    (40, 300),
    // Blocks of 128 reflectors over panels of 64 (from 512 columns on).
    (600, 520),
];

const RECTS_SUB: &[(usize, usize)] = &[
    (3, 2),
    (33, 64),
    (129, 65),
    (65, 129),
    (300, 40),
    (40, 300),
    (530, 520),
];

fn geqrf_suite<E: T>(dev: &Device, seed: u64, squares: &[usize], rects: &[(usize, usize)]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = seed as usize;
    let mut cases = vec![];
    for &n in squares {
        for fill in [Fill::WellCond, Fill::Random] {
            t += 1;
            cases.push((QCase::rotate(Rt::Geqrf, n, n, 0, t), fill));
        }
    }
    for (i, &(m, n)) in rects.iter().enumerate() {
        t += 1;
        let fill = [Fill::WellCond, Fill::Random][i % 2];
        cases.push((QCase::rotate(Rt::Geqrf, m, n, 0, t), fill));
    }
    each(cases, |(c, fill)| {
        let mut p = prepare::<E>(dev, &mut r, c, &[fill]);
        run_checked(&mut h, &mut p);
    });
}

fn f1_f10_geqrf_sizes_forms_f64(dev: &Device) {
    geqrf_suite::<f64>(dev, 301, SQUARES, RECTS)
}
fn f1_f10_geqrf_sizes_forms_f32(dev: &Device) {
    geqrf_suite::<f32>(dev, 302, SQUARES_SUB, RECTS_SUB)
}
fn f1_f10_geqrf_sizes_forms_c32(dev: &Device) {
    geqrf_suite::<Complex32>(dev, 303, SQUARES_SUB, RECTS_SUB)
}
fn f1_f10_geqrf_sizes_forms_c64(dev: &Device) {
    geqrf_suite::<Complex64>(dev, 304, SQUARES_SUB, RECTS_SUB)
}

/// Matrices where LAPACK's `larfg` keeps `H = I`, and where the reflectors are unique: a zero
/// column (the first, around the panel boundaries 32 and 64, the last; between well-conditioned
/// ones), already upper triangular (every `tau` exactly 0 with a real diagonal; with a complex
/// diagonal `v = 0` and `tau` making the diagonal real), the identity and the zero matrix (all
/// `tau` 0, `A` unchanged in value). Batches mix the special entries with regular ones, each
/// checked on its own.
fn special<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut items = vec![];
    for (m, n) in [(70, 70), (100, 66), (40, 90)] {
        for z in [0, 31, 32, 33, 63, 64, n - 1] {
            if z < n {
                items.push((m, n, vec![Fill::ZeroCol(z), Fill::WellCond]));
            }
        }
    }
    for (m, n) in [(1, 1), (5, 5), (33, 33), (65, 40), (40, 65), (130, 130)] {
        items.push((m, n, vec![Fill::Upper]));
        items.push((m, n, vec![Fill::UpperPhase, Fill::Upper]));
        items.push((m, n, vec![Fill::Identity]));
        items.push((m, n, vec![Fill::Zero, Fill::Random, Fill::Identity]));
    }
    let mut t = seed as usize;
    each(items, |(m, n, fills)| {
        t += 1;
        let c = QCase::rotate(Rt::Geqrf, m, n, 0, t);
        let mut p = prepare::<E>(dev, &mut r, c, &fills);
        let what = p.name();
        run_checked(&mut h, &mut p);
        // Exact values where nothing is reflected: the identity and zero matrices stay as they
        // were, and with a real upper triangle the whole R does (every H = I).
        let after = p.a.after();
        let tau_after = p.tau.after().remove(0);
        for v in 0..form_count(c.form) {
            let fill = p.fills[v];
            let tau = tau_of(&c, &tau_after, v);
            if !matches!(fill, Fill::Identity | Fill::Zero | Fill::Upper) {
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

fn f1_geqrf_special_columns(dev: &Device) {
    special::<f64>(dev, 311);
    special::<f32>(dev, 312);
    special::<Complex32>(dev, 313);
    special::<Complex64>(dev, 314);
}

/// One tall-skinny matrix (100000 × 16, a single entry, `lda = m + 3`) in f64 and f32:
/// geqrf's residuals and uniqueness (random tall matrices are well conditioned), then orgqr on
/// its output: `Q R = A` with the library's own `Q`, orthonormal.
fn f1_geqrf_tall_skinny(dev: &Device) {
    tall::<f64>(dev, 321);
    tall::<f32>(dev, 322);
}

fn tall<E: T>(dev: &Device, seed: u64) {
    let (m, n) = (100_000, 16);
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let c = QCase::new(Rt::Geqrf, m, n, 0).with(Form::Single, 3);
    let mut p = prepare::<E>(dev, &mut r, c, &[Fill::Random]);
    let what = p.name();
    assert_eq!(p.call(&mut h).unwrap(), Status::Success, "{what}");
    p.check(&what);
    let rf = &p.refs[0];
    let after = p.a.after();
    let f = entry(&p.a, &after, 0, m, n, c.lda);
    let tau_after = p.tau.after().remove(0);
    let tau = tau_of(&c, &tau_after, 0);
    if let Some(s) = uniqueness_mismatch(&p.input[0], &f, &tau, rf, E::EPS) {
        panic!("{what}: not LAPACK's factorization: {s}");
    }
    // orgqr on the library's own factors.
    let mut q = p.a.bufs.remove(0);
    let st = solver::orgqr(&mut h, m, n, n, &mut q, c.lda, p.tau.one()).unwrap();
    assert_eq!(st, Status::Success, "{what}: orgqr");
    let qv = q.to_vec().unwrap();
    let qd = Dense {
        r: m,
        c: n,
        v: (0..n)
            .flat_map(|j| (0..m).map(move |i| (i, j)))
            .map(|(i, j)| qv[i + j * c.lda].get())
            .collect(),
    };
    let want = form_q(&f, &tau, n);
    let d = max_diff_ratio(&qd, &want, E::EPS);
    assert!(
        d < RESID_MAX,
        "{what}: orgqr: max |Q − Q_ref| ratio {d:.3e}"
    );
    let orth = orth_residual(&qd, E::EPS);
    assert!(
        orth < RESID_MAX,
        "{what}: orgqr: ‖I − QᴴQ‖ ratio {orth:.3e}"
    );
    let res = apply_residual(&mul(&qd, &upper(&f, n)), &p.input[0], &p.input[0], E::EPS);
    assert!(
        res < RESID_MAX,
        "{what}: ‖A − Q R‖ ratio {res:.3e} with orgqr's Q"
    );
    assert!(
        same(qv[qv.len() - 1], pn::<E>(Poison::End)),
        "{what}: orgqr wrote past the end"
    );
}

/// The library's own routines chained, its output as the next input: `geqrf`, then `orgqr` on
/// a copy of its factors (`Q R = A` with that thin `Q`), `ormqr(Left, C)` on a copy of `A`
/// (`Qᴴ A = R`, zeros below) and `ormqr(Right, C)` on `Rᴴ` (`Rᴴ Qᴴ = Aᴴ`); `T` for real types.
fn chain<E: T>(dev: &Device, seed: u64, m: usize, n: usize) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let k = m.min(n);
    let lda = m + 2;
    let a = gen_fill::<E>(m, n, Fill::Random, &mut r);
    let what = format!("{} chain {m}x{n}", E::NAME);
    let mut fa = dev.upload(&store::<E>(&a, lda)).unwrap();
    let mut tau = dev.upload(&vec![pn::<E>(Poison::TauOut); k]).unwrap();
    let st = solver::geqrf(&mut h, m, n, &mut fa, lda, &mut tau).unwrap();
    assert_eq!(st, Status::Success, "{what}: geqrf");
    let fv = fa.to_vec().unwrap();
    let f = Dense {
        r: m,
        c: n,
        v: (0..n)
            .flat_map(|j| (0..m).map(move |i| (i, j)))
            .map(|(i, j)| fv[i + j * lda].get())
            .collect(),
    };
    let rr = upper(&f, m);
    // orgqr: Q (m × k) from a copy of the factors; Q R = A.
    let mut q = dev.upload(&fv).unwrap();
    let st = solver::orgqr(&mut h, m, k, k, &mut q, lda, &tau).unwrap();
    assert_eq!(st, Status::Success, "{what}: orgqr");
    let qv = q.to_vec().unwrap();
    let qd = Dense {
        r: m,
        c: k,
        v: (0..k)
            .flat_map(|j| (0..m).map(move |i| (i, j)))
            .map(|(i, j)| qv[i + j * lda].get())
            .collect(),
    };
    let res = apply_residual(&mul(&qd, &upper(&f, k)), &a, &a, E::EPS);
    assert!(
        res < RESID_MAX,
        "{what}: ‖A − Q R‖ ratio {res:.3e} (orgqr's Q)"
    );
    // ormqr(Left, C): Qᴴ A = R.
    let ldc = m + 1;
    let mut cm = dev.upload(&store::<E>(&a, ldc)).unwrap();
    let op = if E::CPLX { Op::C } else { Op::T };
    let st = solver::ormqr(
        &mut h,
        Side::Left,
        op,
        m,
        n,
        k,
        &fa,
        lda,
        &tau,
        &mut cm,
        ldc,
    )
    .unwrap();
    assert_eq!(st, Status::Success, "{what}: ormqr Left");
    let cv = cm.to_vec().unwrap();
    let got = Dense {
        r: m,
        c: n,
        v: (0..n)
            .flat_map(|j| (0..m).map(move |i| (i, j)))
            .map(|(i, j)| cv[i + j * ldc].get())
            .collect(),
    };
    let res = apply_residual(&got, &rr, &a, E::EPS);
    assert!(res < RESID_MAX, "{what}: ‖Qᴴ A − R‖ ratio {res:.3e}");
    // ormqr(Right, C) on Rᴴ (n × m, Q of order m from the right): Rᴴ Qᴴ = Aᴴ.
    let rh = rr.op(Op::C);
    let ldr = n + 3;
    let mut cr = dev.upload(&store::<E>(&rh, ldr)).unwrap();
    let st = solver::ormqr(
        &mut h,
        Side::Right,
        op,
        n,
        m,
        k,
        &fa,
        lda,
        &tau,
        &mut cr,
        ldr,
    )
    .unwrap();
    assert_eq!(st, Status::Success, "{what}: ormqr Right");
    let crv = cr.to_vec().unwrap();
    let got = Dense {
        r: n,
        c: m,
        v: (0..m)
            .flat_map(|j| (0..n).map(move |i| (i, j)))
            .map(|(i, j)| crv[i + j * ldr].get())
            .collect(),
    };
    let res = apply_residual(&got, &a.op(Op::C), &a.op(Op::C), E::EPS);
    assert!(res < RESID_MAX, "{what}: ‖Rᴴ Qᴴ − Aᴴ‖ ratio {res:.3e}");
}

fn f1_qr_geqrf_orgqr_ormqr_chained(dev: &Device) {
    chain::<f64>(dev, 331, 150, 100);
    chain::<f32>(dev, 332, 65, 65);
    chain::<Complex32>(dev, 333, 129, 64);
    chain::<Complex64>(dev, 334, 100, 100);
}

crate::on_both_backends!(
    f1_f10_geqrf_sizes_forms_f64,
    f1_f10_geqrf_sizes_forms_f32,
    f1_f10_geqrf_sizes_forms_c32,
    f1_f10_geqrf_sizes_forms_c64,
    f1_geqrf_special_columns,
    f1_geqrf_tall_skinny,
    f1_qr_geqrf_orgqr_ormqr_chained,
);
