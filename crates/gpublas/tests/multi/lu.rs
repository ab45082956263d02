//! getrf and getrs on a group: pivots against a partial-pivoting loop and the one-device
//! getrf, residuals, info, per-device queries and errors; the transports.

use super::*;

/// Partial-pivoting LU in plain f64 loops (LAPACK's dgetf2: the first largest magnitude wins):
/// the factors in place, 1-based pivots and the first zero pivot.
fn lu_reference(a: &mut [f64], m: usize, n: usize) -> (Vec<i32>, i32) {
    let mut ipiv = vec![0i32; m.min(n)];
    let mut info = 0;
    for k in 0..m.min(n) {
        let mut p = k;
        for i in k + 1..m {
            if a[i + k * m].abs() > a[p + k * m].abs() {
                p = i;
            }
        }
        ipiv[k] = p as i32 + 1;
        if a[p + k * m] == 0.0 {
            if info == 0 {
                info = k as i32 + 1;
            }
            continue;
        }
        for j in 0..n {
            a.swap(k + j * m, p + j * m);
        }
        for i in k + 1..m {
            a[i + k * m] /= a[k + k * m];
        }
        for j in k + 1..n {
            for i in k + 1..m {
                a[i + j * m] -= a[i + k * m] * a[k + j * m];
            }
        }
    }
    (ipiv, info)
}

/// `‖P A − L U‖_F / (‖A‖_F max(m, n) ε)` from gpublas's factors and pivots.
pub(super) fn lu_ratio<T: Real>(a: &[f64], lu: &[T], ipiv: &[i32], m: usize, n: usize) -> f64 {
    let lu = widen(lu);
    let mut pa = a.to_vec();
    for (k, &p) in ipiv.iter().enumerate() {
        for j in 0..n {
            pa.swap(k + j * m, p as usize - 1 + j * m);
        }
    }
    let kmin = m.min(n);
    let mut r = vec![0.0; m * n];
    for j in 0..n {
        for i in 0..m {
            let mut s = 0.0;
            for l in 0..=i.min(j).min(kmin.saturating_sub(1)) {
                let li = if l == i { 1.0 } else { lu[i + l * m] };
                s += li * lu[l + j * m];
            }
            r[i + j * m] = pa[i + j * m] - s;
        }
    }
    fro(&r) / (fro(a) * m.max(n) as f64 * T::EPS)
}

pub(super) fn getrf_case<T: Real>(
    g: &mut DeviceGroup,
    (m, n, nb): (usize, usize, usize),
    seed: u64,
) {
    let what = format!("getrf {m} x {n}, nb {nb}, grid {:?}", g.grid());
    let a64 = randn(&mut rng(seed), m * n);
    let a: Vec<T> = cast(&a64);
    let mut da = DistMatrix::from_host(g, m, n, nb, &a, m.max(1)).unwrap();
    let mut ipiv = vec![-7i32; m.min(n) + 2];
    let f = multi::getrf(g, &mut da, &mut ipiv).unwrap();
    assert_eq!((f.status, f.info), (Status::Success, 0), "{what}");
    assert_eq!(
        &ipiv[m.min(n)..],
        &[-7, -7],
        "{what}: ipiv past min(m, n) untouched"
    );
    let lu = da.to_host(g).unwrap();
    // Pivots: the f64 reference's (f64), the one-device getrf's (both types).
    let mut reference = widen(&a);
    let (ref_piv, _) = lu_reference(&mut reference, m, n);
    if T::EPS < 1e-10 {
        assert_eq!(&ipiv[..m.min(n)], &ref_piv[..], "{what}: pivots");
    }
    let dev = g.handle(0).device().clone();
    let mut h = fixed_handle(&dev, 0);
    let mut one = dev.upload(&a).unwrap();
    let (mut piv1, mut info1) = (vec![0i32; m.min(n)], [0i32]);
    let _ = solver::getrf(
        &mut h,
        m,
        n,
        &mut one,
        m.max(1),
        Results::Host(&mut piv1),
        Results::Host(&mut info1),
    )
    .unwrap();
    assert_eq!(
        &ipiv[..m.min(n)],
        &piv1[..],
        "{what}: pivots against the one-device getrf"
    );
    let ratio = lu_ratio(&widen(&a), &lu, &ipiv[..m.min(n)], m, n);
    assert!(ratio < 30.0, "{what}: ‖PA − LU‖ ratio {ratio}");
}

fn getrf_cases<T: Real>(dev: &Device) {
    // Square and not, tiles dividing or not, of 1 and past the matrix.
    let shapes = [
        (33, 33, 4),
        (20, 13, 3),
        (13, 20, 3),
        (17, 17, 1),
        (7, 7, 16),
        (32, 32, 8),
        (65, 40, 16),
    ];
    for (i, &grid) in GRIDS.iter().enumerate() {
        let mut g = group(dev, grid);
        for (j, &shape) in shapes.iter().enumerate() {
            if (i + j) % 2 == 0 || grid == (2, 2) {
                getrf_case::<T>(&mut g, shape, 100 + (i * 10 + j) as u64);
            }
        }
    }
}

pub(super) fn f10_getrf_pivots_and_residual_f64(dev: &Device) {
    getrf_cases::<f64>(dev);
}

pub(super) fn f10_getrf_pivots_and_residual_f32(dev: &Device) {
    getrf_cases::<f32>(dev);
}

/// A zero column j makes U(j, j) exactly 0: info j + 1 (the first), as the reference and the
/// one-device getrf, and the factorization goes on past it.
pub(super) fn multi_getrf_singular_info(dev: &Device) {
    for &(grid, n, nb, zero) in &[
        ((2, 2), 13, 3, 0),
        ((2, 2), 13, 3, 7),
        ((1, 3), 13, 4, 12),
        ((3, 1), 10, 2, 5),
    ] {
        let mut g = group(dev, grid);
        let mut a = randn(&mut rng(7), n * n);
        for i in 0..n {
            a[i + zero * n] = 0.0;
        }
        let mut da = DistMatrix::from_host(&mut g, n, n, nb, &a, n).unwrap();
        let mut ipiv = vec![0i32; n];
        let f = multi::getrf(&mut g, &mut da, &mut ipiv).unwrap();
        let mut reference = a.clone();
        let (ref_piv, ref_info) = lu_reference(&mut reference, n, n);
        assert_eq!(f.info, zero as i32 + 1, "grid {grid:?} column {zero}");
        assert_eq!(f.info, ref_info);
        assert_eq!(ipiv, ref_piv, "grid {grid:?} column {zero}: pivots");
    }
}

fn getrs_case<T: Real>(g: &mut DeviceGroup, n: usize, nb: usize, nrhs: usize, seed: u64) {
    let what = format!("getrs n {n}, nb {nb}, nrhs {nrhs}, grid {:?}", g.grid());
    let mut r = rng(seed);
    let a: Vec<T> = cast(&randn(&mut r, n * n));
    let b: Vec<T> = cast(&randn(&mut r, n * nrhs));
    let mut da = DistMatrix::from_host(g, n, n, nb, &a, n.max(1)).unwrap();
    let mut ipiv = vec![0i32; n];
    assert_eq!(
        multi::getrf(g, &mut da, &mut ipiv).unwrap().info,
        0,
        "{what}"
    );
    let mut dx = DistMatrix::from_host(g, n, nrhs, nb, &b, n.max(1)).unwrap();
    let st = multi::getrs(g, Op::N, &da, &ipiv, &mut dx).unwrap();
    assert_eq!(st, Status::Success, "{what}");
    let ratio = solve_ratio(&widen(&a), &dx.to_host(g).unwrap(), &b, n, nrhs);
    assert!(ratio < 30.0, "{what}: residual ratio {ratio}");
}

pub(super) fn f10_getrs_residual_f64(dev: &Device) {
    for (i, &grid) in GRIDS.iter().enumerate() {
        let mut g = group(dev, grid);
        for (j, &nrhs) in [1, 3, 17].iter().enumerate() {
            getrs_case::<f64>(&mut g, 31 + i, 2 + j * 3, nrhs, (i * 3 + j) as u64);
        }
    }
}

pub(super) fn f10_getrs_residual_f32(dev: &Device) {
    for &grid in &[(2, 2), (1, 3), (3, 1)] {
        let mut g = group(dev, grid);
        getrs_case::<f32>(&mut g, 29, 4, 5, 9);
    }
}

/// getrf and getrs: per-device needs from the group's query; a group of fixed workspaces of
/// exactly those sizes runs both with `Success` and the right answer; a pivot outside 1..=n is
/// `InvalidValue` and a short ipiv `InvalidSize`, both touching nothing.
pub(super) fn m9_getrf_getrs_query_and_errors(dev: &Device) {
    for &(grid, n, nb) in &[
        ((2, 2), 33, 5),
        ((1, 3), 20, 4),
        ((4, 1), 9, 3),
        ((1, 1), 16, 16),
    ] {
        let devs = devices(dev, grid.0 * grid.1);
        let mut g = group_of(&devs, grid);
        let what = format!("n {n}, nb {nb}, grid {grid:?}");
        let mut r = rng(5);
        let a = randn(&mut r, n * n);
        let b = randn(&mut r, n * 2);
        let mut da = DistMatrix::from_host(&mut g, n, n, nb, &a, n).unwrap();
        let mut ipiv = vec![0i32; n];
        let need = needs(&mut g, &mut |g| {
            multi::getrf(g, &mut da, &mut ipiv).map(|f| f.status)
        });
        assert!(
            ipiv.iter().all(|&p| p == 0),
            "{what}: the query ran nothing"
        );
        let mut fg = fixed_group(&devs, &need, grid);
        let f = multi::getrf(&mut fg, &mut da, &mut ipiv).unwrap();
        assert_eq!((f.status, f.info), (Status::Success, 0), "{what}: getrf");
        assert!(lu_ratio(&a, &da.to_host(&mut fg).unwrap(), &ipiv, n, n) < 30.0);
        let mut dx = DistMatrix::from_host(&mut g, n, 2, nb, &b, n).unwrap();
        let need = needs(&mut g, &mut |g| multi::getrs(g, Op::N, &da, &ipiv, &mut dx));
        let mut fg = fixed_group(&devs, &need, grid);
        let before = dx.to_host(&mut fg).unwrap();
        let mut bad = ipiv.clone();
        bad[n / 2] = n as i32 + 1;
        assert!(matches!(
            multi::getrs(&mut fg, Op::N, &da, &bad, &mut dx),
            Err(Error::InvalidValue(_))
        ));
        assert!(matches!(
            multi::getrs(&mut fg, Op::N, &da, &ipiv[..n - 1], &mut dx),
            Err(Error::InvalidSize(_))
        ));
        let mut other = DistMatrix::<f64>::zeros(&fg, n, n, nb).unwrap();
        assert!(matches!(
            multi::getrf(&mut fg, &mut other, &mut ipiv[..n - 1]),
            Err(Error::InvalidSize(_))
        ));
        assert_eq!(bits(&dx.to_host(&mut fg).unwrap()), bits(&before), "{what}");
        let st = multi::getrs(&mut fg, Op::N, &da, &ipiv, &mut dx).unwrap();
        assert_eq!(st, Status::Success, "{what}: getrs");
        let ratio = solve_ratio(&a, &dx.to_host(&mut fg).unwrap(), &b, n, 2);
        assert!(ratio < 30.0, "{what}: residual ratio {ratio}");
    }
}

/// The transports: host devices and one GPU named twice move tiles in process, and NCCL is
/// refused for them (`Unsupported`); a group of one GPU may take NCCL where it loads
/// (`LibraryMissing` where not) and then factors as before.
pub(super) fn multi_transports(dev: &Device) {
    let g = group(dev, (1, 2));
    assert_eq!(g.transport(), Transport::InProcess);
    assert!(matches!(
        g.with_transport(Transport::Nccl),
        Err(Error::Unsupported(_))
    ));
    let one = group(dev, (1, 1));
    match one.with_transport(Transport::Nccl) {
        Ok(mut g) => {
            assert_eq!(dev.backend(), Backend::Cuda);
            assert_eq!(g.transport(), Transport::Nccl);
            potrf_case::<f64>(&mut g, Uplo::Lower, 33, 8, 3);
            getrf_case::<f64>(&mut g, (33, 33, 8), 4);
        }
        Err(Error::LibraryMissing(_)) => assert_eq!(dev.backend(), Backend::Cuda),
        Err(Error::Unsupported(_)) => assert_eq!(dev.backend(), Backend::Host),
        Err(e) => panic!("{e:?}"),
    }
}
