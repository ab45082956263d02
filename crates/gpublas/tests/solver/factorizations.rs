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

/// Strided batches of more entries than a GPU has SMs, at orders 65–128: the whole-LU kernel
/// that runs two blocks an SM with half of each thread's values in shared memory (f64; the
/// same calls check the register kernel's other types and the host). Fills rotate through the
/// entries: separated pivots (checked against the reference's), random values, a zero column
/// (`info`) and a deficient column, so every entry is checked, pivots and info included.
fn f1_getrf_whole_lu_batches_beyond_the_sms(dev: &Device) {
    let mut h = handle(dev);
    let mut r = Gen::new(161);
    let fills = [
        Fill::Sep,
        Fill::Random,
        Fill::ZeroCol(40, Some(66)),
        Fill::Sep,
        Fill::Deficient(17),
    ];
    for (t, &(rt, m, n)) in [
        (Rt::Getrf, 128, 128),
        (Rt::Getrf, 100, 100),
        (Rt::Getrf, 128, 70),
        (Rt::Getrf, 101, 128),
        (Rt::Npvt, 128, 128),
    ]
    .iter()
    .enumerate()
    {
        // 300 entries: more than one block an SM holds on any current GPU.
        let c = FCase::rotate(rt, m, n, t).with(Form::Strided(300), t);
        let fill: &[Fill] = if rt == Rt::Npvt {
            &[Fill::Dominant]
        } else {
            &fills
        };
        let mut p = prepare_fact::<f64>(dev, &mut r, c, fill);
        run_checked(&mut h, &mut p);
    }
}

/// One `n × n` LU of uniform random values at an order where the look-ahead program runs many
/// panels over several cooperating blocks, checked in O(n²) (an O(n³) reference would take
/// minutes here): every multiplier at most 1 in magnitude (the pivot is a column's largest
/// `|re| + |im|`, so `√2` for complex), every pivot in range, and for a random `x`
/// `‖P A x − L (U x)‖∞ / (‖A‖∞ ‖x‖∞ n ε) < 30`.
fn lu_medium<E: T>(dev: &Device, seed: u64, n: usize) {
    let mut r = Gen::new(seed);
    let a = gen_random::<E>(n, n, &mut r);
    let mut h = handle(dev);
    let mut ad = dev.upload(&store::<E>(&a, n, None)).unwrap();
    let mut pd = dev.alloc::<i32>(n).unwrap();
    let mut info = [-1i32];
    let st = solver::getrf(
        &mut h,
        n,
        n,
        &mut ad,
        n,
        Results::Device(&mut pd),
        Results::Host(&mut info),
    )
    .unwrap();
    let what = format!("{} getrf n = {n}", E::NAME);
    assert_eq!((st, info[0]), (Status::Success, 0), "{what}");
    let f: Vec<C> = ad.to_vec().unwrap().iter().map(|x| x.get()).collect();
    let piv = pd.to_vec().unwrap();
    let bound = if E::CPLX { 2f64.sqrt() } else { 1.0 } * (1.0 + 4.0 * E::EPS);
    for j in 0..n {
        assert!(
            piv[j] as usize > j && piv[j] as usize <= n,
            "{what}: ipiv[{j}] = {}",
            piv[j]
        );
        for i in j + 1..n {
            let l = f[i + j * n];
            assert!(
                (l.0 * l.0 + l.1 * l.1).sqrt() <= bound,
                "{what}: |L({i}, {j})| = {:e} > {bound}",
                (l.0 * l.0 + l.1 * l.1).sqrt()
            );
        }
    }
    let x: Vec<C> = (0..n).map(|_| rnd::<E>(&mut r, 1.0)).collect();
    // P A x: A x, then the interchanges in order.
    let mut pax = mat_vec(&a, &x);
    for (k, &p) in piv.iter().enumerate() {
        pax.swap(k, p as usize - 1);
    }
    // L (U x).
    let mut ux = vec![ZERO; n];
    for j in 0..n {
        for i in 0..=j {
            ux[i] = cadd(ux[i], cmul(f[i + j * n], x[j]));
        }
    }
    let mut lux = ux.clone();
    for j in 0..n {
        for i in j + 1..n {
            lux[i] = cadd(lux[i], cmul(f[i + j * n], ux[j]));
        }
    }
    let res = vec_residual(&a, &x, &pax, &lux, E::EPS);
    assert!(res < 30.0, "{what}: scaled residual {res:.2}");
}

/// The look-ahead LU over several cooperating panel blocks (register and shared-memory panels,
/// both lanes) at orders past the suites': the host runs the smallest.
fn f1_getrf_lookahead_medium_orders(dev: &Device) {
    lu_medium::<f64>(dev, 161, 700);
    if dev.backend() != gpublas::Backend::Cuda {
        return;
    }
    lu_medium::<f64>(dev, 162, 2500);
    lu_medium::<f64>(dev, 163, 4700);
    lu_medium::<f32>(dev, 164, 4300);
    lu_medium::<Complex32>(dev, 165, 1300);
    lu_medium::<Complex64>(dev, 166, 1700);
}

/// `count` Cholesky factorizations of order `n` (`lda = n + 3`; more than one: a strided batch
/// with poisoned gaps between the entries) at an order where the blocked program runs (several
/// blocks, a short last one, both lanes), checked in O(n²): info 0, a real positive diagonal,
/// the other triangle and the gaps still the poison they were, and for a random `x`
/// `‖A x − L (Lᴴ x)‖∞ / (‖A‖∞ ‖x‖∞ n ε) < 30` (upper: `Uᴴ (U x)`).
fn chol_medium<E: T>(dev: &Device, seed: u64, n: usize, uplo: Uplo, count: usize) {
    let mut r = Gen::new(seed);
    let lda = n + 3;
    let stride = span(n, n, lda) + 5;
    let mats: Vec<Dense> = (0..count).map(|_| gen_hpd::<E>(n, &mut r)).collect();
    let mut host = vec![E::pnan(); stride * count];
    for (e, a) in mats.iter().enumerate() {
        let st = store::<E>(a, lda, Some(uplo));
        host[e * stride..e * stride + st.len()].copy_from_slice(&st);
    }
    let mut h = handle(dev);
    let mut ad = dev.upload(&host).unwrap();
    let mut info = vec![-1i32; count];
    let st = if count == 1 {
        solver::potrf(&mut h, uplo, n, &mut ad, lda, Results::Host(&mut info))
    } else {
        solver::potrf_strided_batched(
            &mut h,
            uplo,
            n,
            &mut ad,
            lda,
            stride,
            Results::Host(&mut info),
            count,
        )
    }
    .unwrap();
    let what = format!("{} potrf {uplo:?} n = {n} ({count} entries)", E::NAME);
    assert_eq!(st, Status::Success, "{what}");
    assert!(info.iter().all(|&i| i == 0), "{what}: info {info:?}");
    let all: Vec<C> = ad.to_vec().unwrap().iter().map(|x| x.get()).collect();
    let lower = uplo == Uplo::Lower;
    for (e, a) in mats.iter().enumerate() {
        let got = &all[e * stride..(e + 1) * stride];
        // L(i, j) for i ≥ j, read from the stored triangle (upper: L = Uᴴ).
        let l = |i: usize, j: usize| {
            if lower {
                got[i + j * lda]
            } else {
                conj(got[j + i * lda])
            }
        };
        for j in 0..n {
            let d = l(j, j);
            assert!(
                d.0 > 0.0 && d.1 == 0.0,
                "{what}: entry {e}: diagonal {j} = {d:?}"
            );
            // Rows to the next column, the last column's up to the gap before the next entry.
            let rows = if j + 1 < n { lda } else { stride - j * lda };
            for i in 0..rows {
                let stored = if lower { i >= j && i < n } else { i <= j };
                assert!(
                    stored || got[i + j * lda].0.is_nan(),
                    "{what}: entry {e}: ({i}, {j}) outside the triangle was written: {:?}",
                    got[i + j * lda]
                );
            }
        }
        let x: Vec<C> = (0..n).map(|_| rnd::<E>(&mut r, 1.0)).collect();
        let ax = mat_vec(a, &x);
        // Lᴴ x, then L (Lᴴ x).
        let mut lhx = vec![ZERO; n];
        for j in 0..n {
            for i in j..n {
                lhx[j] = cadd(lhx[j], cmul(conj(l(i, j)), x[i]));
            }
        }
        let mut llx = vec![ZERO; n];
        for j in 0..n {
            for i in j..n {
                llx[i] = cadd(llx[i], cmul(l(i, j), lhx[j]));
            }
        }
        let res = vec_residual(a, &x, &ax, &llx, E::EPS);
        assert!(res < 30.0, "{what}: entry {e}: scaled residual {res:.2}");
    }
}

/// Cholesky at orders past the suites': the recursive program (short and exact last leaves)
/// below 8192, the blocked one (diagonal blocks and panel solves on the side lane, trailing
/// updates on the main lane, blocks of 1024) from 8192, with short last blocks, both triangles,
/// single matrices and strided pairs. The host (whose potrf is faer's) runs the smallest; under
/// compute-sanitizer only one blocked order runs (the rest are too slow instrumented).
fn f1_potrf_blocked_medium_orders(dev: &Device) {
    chol_medium::<f64>(dev, 171, 2100, Uplo::Lower, 1);
    if dev.backend() != gpublas::Backend::Cuda {
        return;
    }
    chol_medium::<f64>(dev, 172, 4700, Uplo::Lower, 1);
    chol_medium::<f64>(dev, 173, 4700, Uplo::Upper, 1);
    chol_medium::<Complex32>(dev, 175, 4300, Uplo::Upper, 1);
    chol_medium::<Complex64>(dev, 177, 4096, Uplo::Upper, 1);
    chol_medium::<f64>(dev, 178, 8192, Uplo::Lower, 1);
    if under_sanitizer() {
        return;
    }
    chol_medium::<f64>(dev, 179, 9000, Uplo::Upper, 1);
    chol_medium::<f64>(dev, 181, 8300, Uplo::Lower, 2);
    chol_medium::<Complex32>(dev, 182, 8250, Uplo::Upper, 2);
    chol_medium::<Complex64>(dev, 180, 8200, Uplo::Lower, 1);
    chol_medium::<f32>(dev, 174, 8500, Uplo::Lower, 1);
    // Inverted leaves (real types): upper, a batch, a short last leaf.
    chol_medium::<f32>(dev, 183, 5000, Uplo::Upper, 2);
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
    f1_getrf_lookahead_medium_orders,
    f1_getrf_whole_lu_batches_beyond_the_sms,
    f1_f10_getrf_random_and_separated_sizes_forms_f32,
    f1_f10_getrf_random_and_separated_sizes_forms_c32,
    f1_f10_getrf_random_and_separated_sizes_forms_c64,
    f1_getrf_pivot_is_first_max_of_re_plus_im,
    f1_f10_getrf_npvt_dominant_sizes_forms,
    f1_f10_potrf_hpd_uplos_all_sizes_forms_f64,
    f1_f10_potrf_hpd_uplos_sizes_forms_f32,
    f1_f10_potrf_hpd_uplos_sizes_forms_c32,
    f1_f10_potrf_hpd_uplos_sizes_forms_c64,
    f1_potrf_blocked_medium_orders,
);
