//! F1, F10: solves.

use super::*;

const NRHS: &[usize] = &[1, 2, 7, 33, 65];

fn solve_suite<E: T>(dev: &Device, seed: u64, sizes: &[usize]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = seed as usize;
    let mut cases = vec![];
    for &n in sizes {
        for rt in [
            Srt::Getrs(Op::N),
            Srt::Getrs(Op::T),
            Srt::Getrs(Op::C),
            Srt::Potrs(Uplo::Lower),
            Srt::Potrs(Uplo::Upper),
        ] {
            t += 1;
            let nrhs = NRHS[t % NRHS.len()];
            let fill = match rt {
                Srt::Getrs(_) => [Fill::Random, Fill::Dominant, Fill::Random, Fill::Sep][t % 4],
                Srt::Potrs(_) if n <= 129 && t % 2 == 0 => Fill::Gram,
                Srt::Potrs(_) => Fill::Hpd,
            };
            cases.push((SCase::rotate(rt, n, nrhs, t), fill));
        }
    }
    each(cases, |(c, fill)| {
        let mut p = prepare_solve::<E>(dev, &mut r, c, fill);
        run_checked(&mut h, &mut p);
    });
}

fn f1_f10_getrs_potrs_ops_uplos_all_sizes_forms_f64(dev: &Device) {
    solve_suite::<f64>(dev, 141, SIZES)
}
fn f1_f10_getrs_potrs_ops_uplos_sizes_forms_f32(dev: &Device) {
    solve_suite::<f32>(dev, 142, SUB)
}
fn f1_f10_getrs_potrs_ops_uplos_sizes_forms_c32(dev: &Device) {
    solve_suite::<Complex32>(dev, 143, SUB)
}
fn f1_f10_getrs_potrs_ops_uplos_sizes_forms_c64(dev: &Device) {
    solve_suite::<Complex64>(dev, 144, SUB)
}

/// getrf then getrs, potrf then potrs, all on the library: the solve of the library's own
/// factors is right.
fn end_to_end<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0;
    let mut items = vec![];
    for n in [1, 33, 65, 129] {
        for form in [Form::Single, Form::Strided(3), Form::List(2)] {
            items.push((n, form));
        }
    }
    each(items, |(n, form)| {
        t += 1;
        let nrhs = [1, 5, 17][t % 3];
        let op = [Op::N, Op::T, Op::C][t % 3];
        let uplo = [Uplo::Lower, Uplo::Upper][t % 2];
        // LU.
        let mut c = FCase::rotate(Rt::Getrf, n, n, t).with(form, t % 3);
        c.piv = Loc::Device;
        let mut f = prepare_fact::<E>(dev, &mut r, c, &[Fill::Random]);
        run_checked(&mut h, &mut f);
        let sc = SCase {
            pgap: c.pgap,
            ..SCase::new(Srt::Getrs(op), n, nrhs).with(form, c.lda - n.max(1), 2)
        };
        solve_after(dev, &mut h, &mut r, sc, &f.a, f.ipiv.as_ref(), &f.ad);
        // Cholesky.
        let c = FCase::rotate(Rt::Potrf(uplo), n, n, t).with(form, (t + 1) % 3);
        let mut f = prepare_fact::<E>(dev, &mut r, c, &[Fill::Hpd]);
        run_checked(&mut h, &mut f);
        let sc = SCase::new(Srt::Potrs(uplo), n, nrhs).with(form, c.lda - n.max(1), 1);
        solve_after(dev, &mut h, &mut r, sc, &f.a, None, &f.ad);
    });
}

/// Solves with the factors `a` (and pivots) a factorization left, checks against `ad`.
fn solve_after<E: T>(
    dev: &Device,
    h: &mut Handle,
    r: &mut Gen,
    c: SCase,
    a: &Placed<E>,
    ipiv: Option<&Ints>,
    ad: &[Dense],
) {
    let count = form_count(c.form);
    let (mut bst, mut bd) = (vec![], vec![]);
    for _ in 0..count {
        let b = gen_random::<E>(c.n, c.nrhs, r);
        bst.push(store::<E>(&b, c.ldb, None));
        bd.push(b);
    }
    let factors = Placed {
        form: a.form,
        stride: a.stride,
        bufs: a.bufs.iter().map(|b| a_copy(dev, b)).collect(),
        before: a.after(),
    };
    let piv = ipiv.map(|p| {
        let v = p.now();
        (dev.upload(&v).unwrap(), v)
    });
    let mut run = SolveRun::<E> {
        c,
        a: factors,
        piv,
        b: Placed::with_gap(dev, c.form, span(c.n, c.nrhs, c.ldb), 3, &bst, E::pnan()),
        ad: ad.to_vec(),
        bd,
        fill: Fill::Random,
    };
    run_checked(h, &mut run);
}

fn a_copy<E: El>(dev: &Device, b: &DeviceBuffer<E>) -> DeviceBuffer<E> {
    dev.upload(&b.to_vec().unwrap()).unwrap()
}

fn f1_getrf_getrs_potrf_potrs_end_to_end(dev: &Device) {
    end_to_end::<f64>(dev, 151);
    end_to_end::<f32>(dev, 152);
    end_to_end::<Complex32>(dev, 153);
    end_to_end::<Complex64>(dev, 154);
}

crate::on_both_backends!(
    f1_f10_getrs_potrs_ops_uplos_all_sizes_forms_f64,
    f1_f10_getrs_potrs_ops_uplos_sizes_forms_f32,
    f1_f10_getrs_potrs_ops_uplos_sizes_forms_c32,
    f1_f10_getrs_potrs_ops_uplos_sizes_forms_c64,
    f1_getrf_getrs_potrf_potrs_end_to_end,
);
