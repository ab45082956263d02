//! F1, F10: factorizations on every type, form and size.

use super::*;

fn getrf_suite<E: T>(dev: &Device, seed: u64, squares: &[usize], rects: &[(usize, usize)]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = seed as usize;
    let mut cases = vec![];
    for &n in squares {
        for fill in [Fill::Random, Fill::Sep] {
            t += 1;
            cases.push((FCase::rotate(Rt::Getrf, n, n, t), fill));
        }
    }
    for (i, &(m, n)) in rects.iter().enumerate() {
        t += 1;
        let fill = [Fill::Sep, Fill::Random][i % 2];
        cases.push((FCase::rotate(Rt::Getrf, m, n, t), fill));
    }
    each(cases, |(c, fill)| {
        let mut p = prepare_fact::<E>(dev, &mut r, c, &[fill]);
        run_checked(&mut h, &mut p);
    });
}

fn f1_f10_getrf_random_and_separated_all_sizes_forms_f64(dev: &Device) {
    getrf_suite::<f64>(dev, 101, SIZES, RECT)
}
/// More rows than the permutation kernel keeps in shared memory (its hashed path) and than one
/// panel block holds (every block of the grid cooperating), single matrices only.
fn f1_getrf_tall_panels_beyond_shared_memory(dev: &Device) {
    let mut h = handle(dev);
    let mut r = Gen::new(141);
    for (t, &(m, n, fill)) in [(45000usize, 80usize, Fill::Sep), (42000, 70, Fill::Random)]
        .iter()
        .enumerate()
    {
        let c = FCase::rotate(Rt::Getrf, m, n, t).with(Form::Single, t);
        let mut p = prepare_fact::<f64>(dev, &mut r, c, &[fill]);
        run_checked(&mut h, &mut p);
    }
}

/// Tall enough that the look-ahead program's side-lane panels take leaves narrower than 64
/// columns (their rows would not fit the side lane's blocks' shared memory), with and without
/// pivoting; single matrices and a strided pair.
fn f1_getrf_lookahead_narrow_side_leaves(dev: &Device) {
    let mut h = handle(dev);
    let mut r = Gen::new(151);
    for (t, &(rt, form, fill)) in [
        (Rt::Getrf, Form::Single, Fill::Sep),
        (Rt::Npvt, Form::Single, Fill::Dominant),
        (Rt::Getrf, Form::Strided(2), Fill::Random),
    ]
    .iter()
    .enumerate()
    {
        let c = FCase::rotate(rt, 11000, 260, t).with(form, t);
        let mut p = prepare_fact::<f64>(dev, &mut r, c, &[fill]);
        run_checked(&mut h, &mut p);
    }
}

fn f1_f10_getrf_random_and_separated_sizes_forms_f32(dev: &Device) {
    getrf_suite::<f32>(dev, 102, SUB, RECT_SUB)
}
fn f1_f10_getrf_random_and_separated_sizes_forms_c32(dev: &Device) {
    getrf_suite::<Complex32>(dev, 103, SUB, RECT_SUB)
}
fn f1_f10_getrf_random_and_separated_sizes_forms_c64(dev: &Device) {
    getrf_suite::<Complex64>(dev, 104, SUB, RECT_SUB)
}

/// The pivot search takes the first row of largest `|re| + |im|` (not the modulus): a column
/// with such a choice placed after an identity block (so that the elimination before it is
/// exact) at positions around the panel and recursion boundaries.
fn pivot_choice<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut items = vec![];
    for (n, k) in [
        (4, 0),
        (8, 3),
        (40, 31),
        (40, 32),
        (70, 33),
        (70, 64),
        (130, 100),
    ] {
        for tie in [false, true] {
            items.push((n, k, tie));
        }
    }
    let mut t = 0;
    each(items, |(n, k, tie)| {
        t += 1;
        // Rows p < q of column k below the identity block hold the two candidates.
        let p = k + 1 + r.below(n - k - 2);
        let q = p + 1 + r.below(n - p - 1);
        // (value at p, value at q, expected pivot row).
        let (vp, vq, want) = match (E::CPLX, tie) {
            // |re|+|im| ties (1.5 each) where the modulus prefers q: the first, p.
            (true, true) => ((0.75, 0.75), (1.5, 0.0), p),
            // |re|+|im| 1.25 < 1.5 where the modulus prefers p (1.25 > 1.06): q.
            (true, false) => ((1.25, 0.0), (-0.75, 0.75), q),
            (false, true) => ((0.75, 0.0), (-0.75, 0.0), p),
            (false, false) => ((0.5, 0.0), (-0.75, 0.0), q),
        };
        let mut a = Dense::zeros(n, n);
        for j in 0..n {
            for i in 0..n {
                let x = if j < k || i < k {
                    if i == j {
                        ONE
                    } else {
                        ZERO
                    }
                } else if j == k {
                    // Rows above p and the others: smaller than both candidates.
                    if i == p {
                        vp
                    } else if i == q {
                        vq
                    } else {
                        rnd::<E>(&mut r, 0.2)
                    }
                } else {
                    rnd::<E>(&mut r, 1.0)
                };
                a.set(i, j, x);
            }
        }
        let c = FCase::rotate(Rt::Getrf, n, n, t).with(Form::Single, t % 3);
        let st = store::<E>(&a, c.lda, None);
        let mut run = FactRun::<E> {
            c,
            a: Placed::with_gap(dev, Form::Single, st.len(), 0, &[st], E::pnan()),
            ipiv: Some(Ints::new(dev, c.piv, vec![PIV_POISON; n + 1])),
            info: Ints::new(dev, c.info, vec![INFO_POISON; 2]),
            ad: vec![a],
            fills: vec![Fill::Random],
            want_info: vec![0],
            want_piv: vec![None],
        };
        let what = format!("{} pivot choice n={n} column {k} tie={tie}", E::NAME);
        let s = run.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(s, Status::Success, "{what}");
        run.check(&what);
        let got = run.ipiv.as_ref().unwrap().now();
        for j in 0..k {
            assert_eq!(
                got[j],
                j as i32 + 1,
                "{what}: ipiv[{j}] in the identity block"
            );
        }
        assert_eq!(
            got[k],
            want as i32 + 1,
            "{what}: ipiv[{k}] (candidates on rows {} and {}, 1-based)",
            p + 1,
            q + 1
        );
    });
}

fn f1_getrf_pivot_is_first_max_of_re_plus_im(dev: &Device) {
    pivot_choice::<f64>(dev, 111);
    pivot_choice::<f32>(dev, 112);
    pivot_choice::<Complex32>(dev, 113);
    pivot_choice::<Complex64>(dev, 114);
}

fn npvt_suite<E: T>(dev: &Device, seed: u64, squares: &[usize], rects: &[(usize, usize)]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = seed as usize;
    let mut cases: Vec<(usize, usize)> = squares.iter().map(|&n| (n, n)).collect();
    cases.extend_from_slice(rects);
    each(cases, |(m, n)| {
        t += 1;
        let c = FCase::rotate(Rt::Npvt, m, n, t);
        // Diagonally dominant, and P0 L0 U0 without P0.
        let fill = [Fill::Dominant, Fill::Sep][t % 2];
        let mut p = prepare_fact::<E>(dev, &mut r, c, &[fill]);
        run_checked(&mut h, &mut p);
    });
}

fn f1_f10_getrf_npvt_dominant_sizes_forms(dev: &Device) {
    npvt_suite::<f64>(dev, 121, SIZES, RECT);
    npvt_suite::<f32>(dev, 122, &[1, 33, 64, 129], &[(65, 32)]);
    npvt_suite::<Complex32>(dev, 123, &[2, 32, 65], &[(31, 64)]);
    npvt_suite::<Complex64>(dev, 124, &[31, 128, 257], &[(129, 63)]);
}

fn potrf_suite<E: T>(dev: &Device, seed: u64, sizes: &[usize]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = seed as usize;
    let mut cases = vec![];
    for &n in sizes {
        for uplo in [Uplo::Lower, Uplo::Upper] {
            t += 1;
            let fill = if n <= 129 && t % 3 == 0 {
                Fill::Gram
            } else {
                Fill::Hpd
            };
            cases.push((FCase::rotate(Rt::Potrf(uplo), n, n, t), fill));
        }
    }
    each(cases, |(c, fill)| {
        let mut p = prepare_fact::<E>(dev, &mut r, c, &[fill]);
        run_checked(&mut h, &mut p);
    });
}

fn f1_f10_potrf_hpd_uplos_all_sizes_forms_f64(dev: &Device) {
    potrf_suite::<f64>(dev, 131, SIZES)
}
fn f1_f10_potrf_hpd_uplos_sizes_forms_f32(dev: &Device) {
    potrf_suite::<f32>(dev, 132, SUB)
}
fn f1_f10_potrf_hpd_uplos_sizes_forms_c32(dev: &Device) {
    potrf_suite::<Complex32>(dev, 133, SUB)
}
fn f1_f10_potrf_hpd_uplos_sizes_forms_c64(dev: &Device) {
    potrf_suite::<Complex64>(dev, 134, SUB)
}

crate::on_both_backends!(
    f1_f10_getrf_random_and_separated_all_sizes_forms_f64,
    f1_getrf_tall_panels_beyond_shared_memory,
    f1_getrf_lookahead_narrow_side_leaves,
    f1_f10_getrf_random_and_separated_sizes_forms_f32,
    f1_f10_getrf_random_and_separated_sizes_forms_c32,
    f1_f10_getrf_random_and_separated_sizes_forms_c64,
    f1_getrf_pivot_is_first_max_of_re_plus_im,
    f1_f10_getrf_npvt_dominant_sizes_forms,
    f1_f10_potrf_hpd_uplos_all_sizes_forms_f64,
    f1_f10_potrf_hpd_uplos_sizes_forms_f32,
    f1_f10_potrf_hpd_uplos_sizes_forms_c32,
    f1_f10_potrf_hpd_uplos_sizes_forms_c64,
);
