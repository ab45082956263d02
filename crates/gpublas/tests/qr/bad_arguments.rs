//! F7, F9: bad arguments, and inputs that may overlap.

use super::*;
use crate::common::errors::Outs;

/// Sizes, leading dimensions, short buffers (A, C, tau), complex `Op::T`, lists of different
/// lengths and placeholders outside a query: each the right error naming the values involved,
/// every output bit for bit as it was.
fn f7_qr_bad_sizes_name_values(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let upt = |v: usize| dev.upload(&vec![1.5f64; v]).unwrap();
    let (a, a14) = (up(64), up(14));
    let (t, t2, t3, t8) = (upt(16), upt(2), upt(3), upt(8));
    let pa = DeviceBuffer::<f64>::placeholder(64);
    let pt = DeviceBuffer::<f64>::placeholder(16);
    let mut o = Outs::<f64>::new(dev, &[64, 64, 64, 24, 26, 16, 2, 10]);
    {
        let [b, b1, b2, b24, b26, tau, tau2, tau10] = &mut o.bufs[..] else {
            unreachable!()
        };
        // Leading dimensions.
        let e = solver::geqrf(&mut h, 6, 4, b, 5, tau);
        expect_err(e, is_size, &["geqrf", "lda = 5", "6"], "geqrf lda < m");
        let e = solver::geqrf(&mut h, 0, 4, b, 0, tau);
        expect_err(e, is_size, &["lda = 0"], "geqrf lda = 0 with m = 0");
        let e = solver::geqrf_batched(&mut h, 4, 4, &mut [&mut *b1, &mut *b2], 3, tau, 4);
        expect_err(
            e,
            is_size,
            &["geqrf_batched", "lda = 3", "4"],
            "geqrf_batched lda < m",
        );
        let e = solver::geqrf_strided_batched(&mut h, 5, 2, b, 4, 10, tau, 2, 2);
        expect_err(
            e,
            is_size,
            &["geqrf_strided_batched", "lda = 4", "5"],
            "geqrf_strided lda",
        );
        let e = solver::orgqr(&mut h, 6, 4, 4, b, 5, &t);
        expect_err(e, is_size, &["orgqr", "lda = 5", "6"], "orgqr lda < m");
        let e = solver::orgqr_batched(&mut h, 3, 3, 3, &mut [&mut *b1], 2, &t, 3);
        expect_err(
            e,
            is_size,
            &["orgqr_batched", "lda = 2"],
            "orgqr_batched lda < m",
        );
        let e = solver::ormqr(&mut h, Side::Left, Op::N, 6, 4, 3, &a, 5, &t, b, 6);
        expect_err(e, is_size, &["ormqr", "lda = 5", "6"], "ormqr Left lda < m");
        let e = solver::ormqr(&mut h, Side::Right, Op::T, 4, 6, 3, &a, 5, &t, b, 4);
        expect_err(
            e,
            is_size,
            &["ormqr", "lda = 5", "6"],
            "ormqr Right lda < n",
        );
        let e = solver::ormqr(&mut h, Side::Left, Op::C, 4, 3, 2, &a, 4, &t, b, 3);
        expect_err(e, is_size, &["ormqr", "ldc = 3", "4"], "ormqr Left ldc < m");
        let e = solver::ormqr(&mut h, Side::Right, Op::N, 4, 3, 2, &a, 3, &t, b, 3);
        expect_err(
            e,
            is_size,
            &["ormqr", "ldc = 3", "4"],
            "ormqr Right ldc < m",
        );
        let e = solver::ormqr_batched(
            &mut h,
            Side::Left,
            Op::T,
            3,
            3,
            2,
            &[&a],
            2,
            &t,
            2,
            &mut [&mut *b1],
            3,
        );
        expect_err(
            e,
            is_size,
            &["ormqr_batched", "lda = 2"],
            "ormqr_batched lda < m",
        );
        let e = solver::ormqr_strided_batched(
            &mut h,
            Side::Right,
            Op::N,
            3,
            4,
            2,
            &a,
            4,
            8,
            &t,
            2,
            b,
            2,
            12,
            2,
        );
        expect_err(
            e,
            is_size,
            &["ormqr_strided_batched", "ldc = 2"],
            "ormqr_strided ldc",
        );
        // Shapes: orgqr needs m ≥ n ≥ k, ormqr k ≤ the order of Q.
        let e = solver::orgqr(&mut h, 4, 5, 3, b, 4, &t);
        expect_err(e, is_size, &["orgqr", "n = 5", "m = 4"], "orgqr n > m");
        let e = solver::orgqr(&mut h, 6, 3, 4, b, 6, &t);
        expect_err(e, is_size, &["orgqr", "k = 4", "n = 3"], "orgqr k > n");
        let e = solver::orgqr_strided_batched(&mut h, 5, 6, 2, b, 5, 30, &t, 2, 2);
        expect_err(e, is_size, &["n = 6", "m = 5"], "orgqr_strided n > m");
        let e = solver::ormqr(&mut h, Side::Left, Op::N, 4, 6, 5, &a, 4, &t, b, 4);
        expect_err(e, is_size, &["ormqr", "k = 5", "4"], "ormqr Left k > m");
        let e = solver::ormqr(&mut h, Side::Right, Op::C, 6, 3, 4, &a, 3, &t, b, 6);
        expect_err(e, is_size, &["ormqr", "k = 4", "3"], "ormqr Right k > n");
        // Lists of different lengths.
        let e = solver::ormqr_batched(
            &mut h,
            Side::Left,
            Op::N,
            3,
            3,
            2,
            &[&a, &a, &a],
            3,
            &t,
            2,
            &mut [&mut *b1, &mut *b2],
            3,
        );
        expect_err(
            e,
            is_size,
            &["3", "2"],
            "ormqr_batched A list longer than C's",
        );
        // tau short: (batch − 1) stride_tau + k scalars.
        let e = solver::geqrf(&mut h, 5, 3, b, 5, tau2);
        expect_err(e, is_value, &["tau", "2", "3"], "geqrf tau short");
        let e = solver::geqrf_strided_batched(&mut h, 3, 3, b, 3, 9, tau10, 4, 3);
        expect_err(e, is_value, &["tau", "10", "11"], "geqrf_strided tau short");
        let e = solver::orgqr(&mut h, 6, 4, 4, b, 6, &t3);
        expect_err(e, is_value, &["tau", "3", "4"], "orgqr tau short");
        let e = solver::orgqr_strided_batched(&mut h, 4, 4, 4, b, 4, 16, &t8, 5, 2);
        expect_err(e, is_value, &["tau", "8", "9"], "orgqr_strided tau short");
        let e = solver::ormqr(&mut h, Side::Left, Op::N, 5, 2, 3, &a, 5, &t2, b, 5);
        expect_err(e, is_value, &["tau", "2", "3"], "ormqr tau short");
        let e = solver::ormqr_batched(
            &mut h,
            Side::Right,
            Op::C,
            2,
            4,
            3,
            &[&a, &a],
            4,
            &t8,
            6,
            &mut [&mut *b1, &mut *b2],
            2,
        );
        expect_err(e, is_value, &["tau", "8", "9"], "ormqr_batched tau short");
        // A and C short.
        let e = solver::geqrf(&mut h, 5, 5, b24, 5, tau);
        expect_err(e, is_value, &["geqrf", "24", "25"], "geqrf A short");
        let e = solver::geqrf_strided_batched(&mut h, 3, 3, b26, 3, 9, tau, 3, 3);
        expect_err(
            e,
            is_value,
            &["26", "27", "stride_a = 9"],
            "geqrf_strided A short",
        );
        let e = solver::orgqr_batched(&mut h, 5, 5, 5, &mut [&mut *b1, &mut *b24], 5, &t, 5);
        expect_err(
            e,
            is_value,
            &["[1]", "24", "25"],
            "orgqr_batched A[1] short",
        );
        let e = solver::ormqr(&mut h, Side::Left, Op::N, 5, 3, 3, &a14, 5, &t, b, 5);
        expect_err(e, is_value, &["ormqr", "14", "15"], "ormqr A short");
        let e = solver::ormqr(&mut h, Side::Right, Op::C, 5, 5, 2, &a, 5, &t, b24, 5);
        expect_err(e, is_value, &["ormqr", "24", "25"], "ormqr C short");
        let e = solver::ormqr_strided_batched(
            &mut h,
            Side::Left,
            Op::N,
            3,
            3,
            3,
            &a,
            3,
            9,
            &t,
            3,
            b26,
            3,
            9,
            3,
        );
        expect_err(
            e,
            is_value,
            &["26", "27", "stride_c = 9"],
            "ormqr_strided C short",
        );
        // Placeholders outside a query.
        let mut pb = DeviceBuffer::<f64>::placeholder(64);
        let e = solver::geqrf(&mut h, 4, 4, &mut pb, 4, tau);
        expect_err(e, is_pointer, &["placeholder"], "geqrf A placeholder");
        let mut ptm = DeviceBuffer::<f64>::placeholder(16);
        let e = solver::geqrf(&mut h, 4, 4, b, 4, &mut ptm);
        expect_err(e, is_pointer, &["placeholder"], "geqrf tau placeholder");
        let e = solver::orgqr(&mut h, 4, 4, 4, b, 4, &pt);
        expect_err(e, is_pointer, &["placeholder"], "orgqr tau placeholder");
        let e = solver::ormqr(&mut h, Side::Left, Op::N, 4, 4, 4, &pa, 4, &t, b, 4);
        expect_err(e, is_pointer, &["placeholder"], "ormqr A placeholder");
    }
    o.check();
    op_t_is_invalid_for_complex::<Complex32>(dev, &mut h);
    op_t_is_invalid_for_complex::<Complex64>(dev, &mut h);
    expect_errs_done();
}

/// Complex `ormqr` with `Op::T` (LAPACK's `zunmqr` has no transpose without conjugation):
/// `InvalidValue` in every form, `C` untouched.
fn op_t_is_invalid_for_complex<E: T>(dev: &Device, h: &mut Handle) {
    let a = dev.upload(&[E::make(0.5, 0.25); 64]).unwrap();
    let t = dev.upload(&[E::make(1.5, 0.5); 16]).unwrap();
    let mut o = Outs::<E>::new(dev, &[64, 64, 64]);
    {
        let [b, b1, b2] = &mut o.bufs[..] else {
            unreachable!()
        };
        let w = format!("{} ormqr Op::T", E::NAME);
        let e = solver::ormqr(h, Side::Left, Op::T, 4, 4, 2, &a, 4, &t, b, 4);
        expect_err(e, is_value, &["ormqr"], &w);
        let e = solver::ormqr_batched(
            h,
            Side::Right,
            Op::T,
            4,
            4,
            2,
            &[&a, &a],
            4,
            &t,
            2,
            &mut [&mut *b1, &mut *b2],
            4,
        );
        expect_err(e, is_value, &["ormqr_batched"], &w);
        let e = solver::ormqr_strided_batched(
            h,
            Side::Left,
            Op::T,
            3,
            3,
            3,
            &a,
            3,
            9,
            &t,
            3,
            b,
            3,
            9,
            2,
        );
        expect_err(e, is_value, &["ormqr_strided_batched"], &w);
    }
    o.check();
}

/// Outputs of different entries may not overlap: geqrf's `tau` with `stride_tau < min(m, n)`
/// (0 included) in a batch of more than one, a strided `A` (geqrf, orgqr) or `C` (ormqr) whose
/// stride is shorter than an entry: `InvalidValue` naming the stride, outputs untouched. With a
/// single entry, geqrf's `stride_tau = 0` overlaps nothing and runs.
fn f9_geqrf_overlapping_tau_is_invalid(dev: &Device) {
    let mut h = handle(dev);
    let a = dev.upload(&[0.5f64; 64]).unwrap();
    let t = dev.upload(&[1.5f64; 16]).unwrap();
    let mut o = Outs::<f64>::new(dev, &[64, 16, 16, 16]);
    {
        let [b, tau, b1, b2] = &mut o.bufs[..] else {
            unreachable!()
        };
        let e = solver::geqrf_strided_batched(&mut h, 4, 3, b, 4, 12, tau, 2, 2);
        expect_err(
            e,
            is_value,
            &["geqrf_strided_batched", "stride_tau = 2"],
            "tau stride 2 < 3",
        );
        let e = solver::geqrf_strided_batched(&mut h, 3, 5, b, 3, 15, tau, 0, 3);
        expect_err(e, is_value, &["stride_tau = 0"], "tau stride 0");
        let e = solver::geqrf_batched(&mut h, 3, 3, &mut [&mut *b1, &mut *b2], 3, tau, 1);
        expect_err(
            e,
            is_value,
            &["geqrf_batched", "stride_tau = 1"],
            "list tau stride 1",
        );
        let e = solver::geqrf_strided_batched(&mut h, 3, 3, b, 3, 8, tau, 3, 2);
        expect_err(e, is_value, &["stride_a = 8"], "geqrf A stride 8 < 9");
        let e = solver::orgqr_strided_batched(&mut h, 4, 2, 2, b, 4, 0, &t, 2, 2);
        expect_err(
            e,
            is_value,
            &["orgqr_strided_batched", "stride_a = 0"],
            "orgqr A stride 0",
        );
        let e = solver::ormqr_strided_batched(
            &mut h,
            Side::Left,
            Op::N,
            3,
            2,
            2,
            &a,
            3,
            6,
            &t,
            2,
            b,
            3,
            5,
            2,
        );
        expect_err(
            e,
            is_value,
            &["ormqr_strided_batched", "stride_c = 5"],
            "C stride 5 < 6",
        );
    }
    o.check();
    expect_errs_done();
    // One entry: stride_tau = 0 is valid.
    let mut r = Gen::new(701);
    for form in [Form::Strided(1), Form::List(1)] {
        let c = QCase::new(Rt::Geqrf, 7, 5, 0).with(form, 2);
        let mut p = prepare::<f64>(dev, &mut r, c, &[Fill::WellCond]);
        let what = format!("{} with stride_tau = 0", p.name());
        let sa = p.a.stride;
        let st = match form {
            Form::Strided(_) => solver::geqrf_strided_batched(
                &mut h,
                7,
                5,
                p.a.one_mut(),
                c.lda,
                sa,
                p.tau.one_mut(),
                0,
                1,
            ),
            _ => solver::geqrf_batched(&mut h, 7, 5, &mut p.a.muts(), c.lda, p.tau.one_mut(), 0),
        };
        assert_eq!(
            st.unwrap_or_else(|e| panic!("{what}: {e}")),
            Status::Success,
            "{what}"
        );
        p.check(&what);
    }
}

/// Inputs may overlap (F9): orgqr with every entry reading one set of scalars
/// (`stride_tau = 0`), ormqr with one set of vectors and scalars for every entry
/// (`stride_a = 0`, `stride_tau = 0`) applied to different `C`s; the right answers.
fn f9_orgqr_ormqr_may_share_tau_and_vectors(dev: &Device) {
    share::<f64>(dev, 711);
    share::<Complex32>(dev, 712);
}

fn share<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let count = 4;
    // orgqr: the same vectors in each entry (orgqr overwrites them), one tau.
    for (m, n, k) in [(40, 30, 20), (129, 65, 65)] {
        let mut c = QCase::new(Rt::Orgqr, m, n, k).with(Form::Strided(count), 1);
        c.gap = 3;
        let (vs, tau) = rounded_reflectors::<E>(&gen_fill::<E>(m, k, Fill::Random, &mut r));
        let st = store_vectors::<E>(&vs, k, n, c.lda);
        let p = QrRun::<E> {
            c,
            a: place(dev, c.form, st.len(), c.gap, &vec![st; count]),
            tau: place_tau(
                dev,
                &QCase {
                    form: Form::Single,
                    ..c
                },
                &[tau.iter().map(|t| E::make(t.0, t.1)).collect()],
            ),
            cm: None,
            input: vec![],
            want: vec![form_q(&vs, &tau, n); count],
            refs: vec![],
            fills: vec![Fill::Random; count],
        };
        let what = format!("{} with stride_tau = 0", p.name());
        let mut p = p;
        let sa = p.a.stride;
        let st = solver::orgqr_strided_batched(
            &mut h,
            m,
            n,
            k,
            p.a.one_mut(),
            c.lda,
            sa,
            p.tau.one(),
            0,
            count,
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(st, Status::Success, "{what}");
        check_shared(&p, &what);
    }
    // ormqr: one A and one tau (stride 0), different Cs.
    for (side, m, n, k) in [(Side::Left, 50, 20, 30), (Side::Right, 17, 70, 70)] {
        let op = if E::CPLX { Op::C } else { Op::T };
        let mut c = QCase::new(Rt::Ormqr(side, op), m, n, k).with(Form::Strided(count), 2);
        c.gap = 1;
        let nq = c.nq();
        let (vs, tau) = rounded_reflectors::<E>(&gen_fill::<E>(nq, k, Fill::Random, &mut r));
        let q = form_q(&vs, &tau, nq);
        let ast = store_vectors::<E>(&vs, k, k, c.lda);
        let one = QCase {
            form: Form::Single,
            ..c
        };
        let cs: Vec<Dense> = (0..count)
            .map(|_| gen_fill::<E>(m, n, Fill::Random, &mut r))
            .collect();
        let cst: Vec<Vec<E>> = cs.iter().map(|x| store::<E>(x, c.ldc)).collect();
        let mut p = QrRun::<E> {
            c,
            a: place(dev, Form::Single, ast.len(), 0, &[ast]),
            tau: place_tau(
                dev,
                &one,
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
        let st = solver::ormqr_strided_batched(
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

/// orgqr's check for entries that all read one set of scalars.
fn check_shared<E: T>(p: &QrRun<E>, what: &str) {
    let c = &p.c;
    let after = p.a.after();
    p.a.only_outputs_changed(&after, c.m, c.n, c.lda, &|_, _| true, what);
    p.tau.untouched(&format!("{what} (tau)"));
    for v in 0..form_count(c.form) {
        let q = entry(&p.a, &after, v, c.m, c.n, c.lda);
        let d = max_diff_ratio(&q, &p.want[v], E::EPS);
        assert!(
            d < RESID_MAX,
            "{what}: entry {v}: max |Q − Q_ref| ratio {d:.3e}"
        );
    }
}

crate::on_both_backends!(
    f7_qr_bad_sizes_name_values,
    f9_geqrf_overlapping_tau_is_invalid,
    f9_orgqr_ormqr_may_share_tau_and_vectors,
);
