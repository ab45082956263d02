//! F5: info.

use super::*;

/// Exactly singular matrices: a zero column (at panel and recursion boundaries, two of them,
/// the last one) and a column that is a combination of the earlier ones: `info` is the first
/// zero pivot (1-based), the pivots are the reference's, the factorization is completed
/// (finite, residual bound). Batches mix singular and regular entries: each entry's `info`
/// lands in its own place.
fn singular_lu<E: T>(dev: &Device, seed: u64, sizes: &[usize]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0;
    let mut items = vec![];
    for &n in sizes {
        let ks: Vec<usize> = [0, 1, 5, 31, 32, 33, 64, 100, n - 1]
            .into_iter()
            .filter(|&k| k < n)
            .collect();
        for (i, &k) in ks.iter().enumerate() {
            for rt in [Rt::Getrf, Rt::Npvt] {
                let second = (i % 3 == 1 && k + 3 < n).then_some(k + 3);
                items.push((rt, n, n, Fill::ZeroCol(k, second)));
            }
        }
        // Rectangular: m > n and m < n.
        items.push((Rt::Getrf, n + 7, n, Fill::ZeroCol(n / 2, None)));
        items.push((Rt::Getrf, n, n + 9, Fill::ZeroCol(n - 1, None)));
        for k in [0, 3, 17, 31] {
            if k < n {
                items.push((Rt::Getrf, n, n, Fill::Deficient(k)));
                items.push((Rt::Npvt, n, n, Fill::Deficient(k)));
            }
        }
    }
    each(items, |(rt, m, n, fill)| {
        t += 1;
        let c = FCase::rotate(rt, m, n, t);
        // Regular entries between the singular ones in batches.
        let other = if rt == Rt::Getrf {
            Fill::Sep
        } else {
            Fill::Dominant
        };
        let fills = [fill, other, fill];
        let mut p = prepare_fact::<E>(dev, &mut r, c, &fills);
        run_checked(&mut h, &mut p);
    });
}

fn f5_getrf_info_is_first_exact_zero_pivot_f64(dev: &Device) {
    singular_lu::<f64>(dev, 161, &[2, 33, 65, 129, 257])
}
fn f5_getrf_info_is_first_exact_zero_pivot_other_types(dev: &Device) {
    singular_lu::<f32>(dev, 162, &[8, 65]);
    singular_lu::<Complex32>(dev, 163, &[33]);
    singular_lu::<Complex64>(dev, 164, &[5, 129]);
}

/// HPD matrices with the leading minor of order `k` broken (a negative or zero `A(k−1, k−1)`):
/// `info = k`, the unstored triangle untouched; batches mix broken and regular entries.
fn not_pd<E: T>(dev: &Device, seed: u64, sizes: &[usize]) {
    let mut items = vec![];
    for &n in sizes {
        for k in [1, 2, 31, 32, 33, 64, 65, 100, 128, 129, 200, n] {
            if k <= n {
                for uplo in [Uplo::Lower, Uplo::Upper] {
                    items.push((n, k, uplo));
                }
            }
        }
    }
    not_pd_cases::<E>(dev, seed, items);
}

/// `not_pd`'s checks for the given (order, broken minor, triangle) cases.
fn not_pd_cases<E: T>(dev: &Device, seed: u64, items: Vec<(usize, usize, Uplo)>) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0;
    each(items, |(n, k, uplo)| {
        t += 1;
        let c = FCase::rotate(Rt::Potrf(uplo), n, n, t);
        let v = [-1.0, 0.0][t % 2];
        let fills = [Fill::NotPd(k, v), Fill::Hpd, Fill::NotPd((k / 2).max(1), v)];
        let mut p = prepare_fact::<E>(dev, &mut r, c, &fills);
        run_checked(&mut h, &mut p);
    });
}

fn f5_potrf_info_is_first_broken_leading_minor(dev: &Device) {
    not_pd::<f64>(dev, 171, &[1, 33, 65, 129, 257]);
    not_pd::<f32>(dev, 172, &[40]);
    not_pd::<Complex32>(dev, 173, &[65]);
    not_pd::<Complex64>(dev, 174, &[2, 129]);
    // The blocked Cholesky's leaves (real types from 2048 on the GPU): a minor broken in the
    // first leaf, inside a 16-column block of a later leaf, at a leaf's first column and at
    // the last one of a short last leaf.
    if dev.backend() == gpublas::Backend::Cuda {
        let cases = [
            (2100, 1),
            (2100, 300),
            (2100, 1025),
            (2100, 2100),
            (2300, 1807),
        ];
        let items = cases
            .iter()
            .flat_map(|&(n, k)| [(n, k, Uplo::Lower), (n, k, Uplo::Upper)])
            .collect();
        not_pd_cases::<f64>(dev, 175, items);
    }
}

/// Runs `f` on another thread; fails if it has not finished after `secs` seconds.
fn within(secs: u64, what: &str, f: impl FnOnce() + Send + 'static) {
    let (tx, rx) = std::sync::mpsc::channel();
    let th = std::thread::spawn(move || {
        f();
        let _ = tx.send(());
    });
    match rx.recv_timeout(std::time::Duration::from_secs(secs)) {
        Ok(()) => th.join().unwrap(),
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what}: still running after {secs} s (a hang?)")
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            if let Err(p) = th.join() {
                std::panic::resume_unwind(p)
            }
        }
    }
}

/// Where NaN goes in an input.
#[derive(Clone, Copy, Debug)]
enum NanAt {
    All,
    One(usize, usize),
    Col(usize),
    Inf(usize, usize),
}

fn poison_nan(a: &mut Dense, at: NanAt, hermitian: bool) {
    let n = a.c;
    let nan = (f64::NAN, f64::NAN);
    match at {
        NanAt::All => a.v.iter_mut().for_each(|x| *x = nan),
        NanAt::One(i, j) => {
            a.set(i, j, nan);
            if hermitian {
                a.set(j, i, nan);
            }
        }
        NanAt::Col(j) => {
            for i in 0..a.r {
                a.set(i, j, nan);
                if hermitian && i < n {
                    a.set(j, i, nan);
                }
            }
        }
        NanAt::Inf(i, j) => {
            a.set(i, j, (f64::INFINITY, 0.0));
            if hermitian {
                a.set(j, i, (f64::INFINITY, 0.0));
            }
        }
    }
}

/// NaN (and infinity) in the inputs: every routine returns `Success`, finishes, writes only its
/// outputs, and its pivots stay valid rows and its `info` in range.
fn nan_inputs<E: T>(dev: &Device, seed: u64) {
    let mut r = Gen::new(seed);
    let mut h = handle(dev);
    let mut t = 0;
    let mut items = vec![];
    for n in [1, 33, 65, 129] {
        for at in [
            NanAt::All,
            NanAt::One(n / 2, n / 3),
            NanAt::Col(n - 1),
            NanAt::Col(0),
            NanAt::Inf(n - 1, 0),
        ] {
            items.push((n, at));
        }
    }
    each(items, |(n, at)| {
        t += 1;
        for rt in [
            Rt::Getrf,
            Rt::Npvt,
            Rt::Potrf(Uplo::Lower),
            Rt::Potrf(Uplo::Upper),
        ] {
            let hermitian = matches!(rt, Rt::Potrf(_));
            let c = FCase::rotate(rt, n, n, t).with([Form::Single, Form::Strided(2)][t % 2], 1);
            let fill = if hermitian { Fill::Hpd } else { Fill::Random };
            let mut p = prepare_fact::<E>(dev, &mut r, c, &[fill]);
            // Replace the values by NaN-poisoned ones and upload again.
            let tri = match rt {
                Rt::Potrf(u) => Some(u),
                _ => None,
            };
            let mut entries = vec![];
            for d in p.ad.iter_mut() {
                poison_nan(d, at, hermitian);
                entries.push(store::<E>(d, c.lda, tri));
            }
            p.a = Placed::with_gap(dev, c.form, span(n, n, c.lda), c.gap, &entries, E::pnan());
            let what = format!("{} NaN at {at:?}", p.name());
            let count = form_count(c.form);
            let mut hh = std::mem::replace(&mut h, handle(dev));
            let w = what.clone();
            let (tx, rx) = std::sync::mpsc::channel();
            within(120, &what, move || {
                let st = p.call(&mut hh).unwrap_or_else(|e| panic!("{w}: {e}"));
                assert_eq!(st, Status::Success, "{w}");
                let _ = tx.send((p, hh));
            });
            let (p, hh) = rx.recv().unwrap();
            h = hh;
            let after = p.a.after();
            let is_out = |i: usize, j: usize| match tri {
                None => true,
                Some(Uplo::Lower) => i >= j,
                Some(Uplo::Upper) => i <= j,
            };
            p.a.only_outputs_changed(&after, n, n, c.lda, &is_out, &what);
            let info = p.info.now();
            for v in 0..count {
                assert!(
                    (0..=n as i32).contains(&info[v]),
                    "{what}: entry {v}: info = {}",
                    info[v]
                );
            }
            assert_eq!(info[count], INFO_POISON, "{what}: info past the batch");
            if let Some(ip) = &p.ipiv {
                let got = ip.now();
                for v in 0..count {
                    for j in 0..n {
                        let x = got[v * c.stride_piv() + j];
                        assert!(
                            x > j as i32 && x <= n as i32,
                            "{what}: entry {v}: ipiv[{j}] = {x}"
                        );
                    }
                }
            }
        }
        // Solves with NaN in the right-hand sides and in the factors.
        for rt in [
            Srt::Getrs(Op::N),
            Srt::Getrs(Op::C),
            Srt::Potrs(Uplo::Upper),
        ] {
            let c = SCase::rotate(rt, n, 3, t).with(Form::Single, 1, 2);
            let mut s = prepare_solve::<E>(dev, &mut r, c, Fill::Random);
            for (idx, d) in s.bd.iter_mut().enumerate() {
                poison_nan(d, [NanAt::Col(1), NanAt::All][idx % 2], false);
            }
            let bst: Vec<Vec<E>> = s.bd.iter().map(|d| store::<E>(d, c.ldb, None)).collect();
            s.b = Placed::with_gap(dev, c.form, span(n, 3, c.ldb), 0, &bst, E::pnan());
            let mut a0 = s.a.after();
            a0[0][0] = E::make(f64::NAN, 0.0);
            s.a = Placed::with_gap(
                dev,
                Form::Single,
                a0[0].len() - 1,
                0,
                &[a0[0][..a0[0].len() - 1].to_vec()],
                E::pnan(),
            );
            let what = format!("{} NaN in the factor and B", s.name());
            let mut hh = std::mem::replace(&mut h, handle(dev));
            let w = what.clone();
            let (tx, rx) = std::sync::mpsc::channel();
            within(120, &what, move || {
                let st = s.call(&mut hh).unwrap_or_else(|e| panic!("{w}: {e}"));
                assert_eq!(st, Status::Success, "{w}");
                let _ = tx.send((s, hh));
            });
            let (s, hh) = rx.recv().unwrap();
            h = hh;
            let after = s.b.after();
            s.b.only_outputs_changed(&after, n, 3, c.ldb, &|_, _| true, &what);
            s.inputs_untouched(&what);
        }
    });
}

fn f5_nan_inputs_finish_with_success(dev: &Device) {
    nan_inputs::<f64>(dev, 181);
    nan_inputs::<Complex32>(dev, 182);
}

crate::on_both_backends!(
    f5_getrf_info_is_first_exact_zero_pivot_f64,
    f5_getrf_info_is_first_exact_zero_pivot_other_types,
    f5_potrf_info_is_first_broken_leading_minor,
    f5_nan_inputs_finish_with_success,
);
