//! The drop-in called from many host threads at once (each thread gets its own handle): every
//! thread's results equal those of the same calls made on one thread, and plain f64 loops.

use gpublas_blas::lapack::dgesv_;
use gpublas_blas::level1::{daxpy_, ddot_, dnrm2_, zdotc_};
use gpublas_blas::level3::dgemm_;
use num_complex::Complex64;

/// Deterministic data: element `i` of vector `k`.
fn value(k: usize, i: usize) -> f64 {
    let h = (i as u64 * 2654435761 + k as u64 * 40503) % 1000;
    h as f64 / 500.0 - 1.0
}

/// One thread's mixed calls on its own data; returns every result.
fn work(k: usize, n: i32) -> Vec<f64> {
    let x: Vec<f64> = (0..n as usize).map(|i| value(k, i)).collect();
    let mut y: Vec<f64> = (0..n as usize).map(|i| value(k + 1, i)).collect();
    let z: Vec<Complex64> = (0..n as usize)
        .map(|i| Complex64::new(value(k, i), value(k + 2, i)))
        .collect();
    let (one, alpha) = (1, 0.5 + k as f64);
    let mut out = Vec::new();
    // SAFETY: every pointer is to a live local of the length the call reads.
    unsafe {
        for _ in 0..20 {
            daxpy_(&n, &alpha, x.as_ptr(), &one, y.as_mut_ptr(), &one);
            out.push(ddot_(&n, x.as_ptr(), &one, y.as_ptr(), &one));
            out.push(dnrm2_(&n, y.as_ptr(), &one));
            let c = zdotc_(&n, z.as_ptr(), &one, z.as_ptr(), &one);
            out.push(c.re);
            out.push(c.im);
        }
        // Level 3 and LAPACK: C = A B + C, then A X = C by LU (A diagonally dominant).
        let m = 40;
        let a: Vec<f64> = (0..m * m)
            .map(|i| value(k + 3, i) + if i % (m + 1) == 0 { m as f64 } else { 0.0 })
            .collect();
        let b: Vec<f64> = (0..m * m).map(|i| value(k + 4, i)).collect();
        let mut c: Vec<f64> = (0..m * m).map(|i| value(k + 5, i)).collect();
        let (mi, one_f, no) = (m as i32, 1.0f64, c"N".as_ptr());
        dgemm_(
            no,
            no,
            &mi,
            &mi,
            &mi,
            &one_f,
            a.as_ptr(),
            &mi,
            b.as_ptr(),
            &mi,
            &one_f,
            c.as_mut_ptr(),
            &mi,
        );
        out.extend_from_slice(&c);
        let mut lu = a.clone();
        let mut ipiv = vec![0i32; m];
        let mut info = -1;
        dgesv_(
            &mi,
            &mi,
            lu.as_mut_ptr(),
            &mi,
            ipiv.as_mut_ptr(),
            c.as_mut_ptr(),
            &mi,
            &mut info,
        );
        assert_eq!(info, 0, "thread {k}");
        out.extend_from_slice(&c);
    }
    out
}

/// The same calls as plain loops.
fn reference(k: usize, n: usize) -> Vec<f64> {
    let x: Vec<f64> = (0..n).map(|i| value(k, i)).collect();
    let mut y: Vec<f64> = (0..n).map(|i| value(k + 1, i)).collect();
    let alpha = 0.5 + k as f64;
    let mut out = Vec::new();
    for _ in 0..20 {
        for i in 0..n {
            y[i] += alpha * x[i];
        }
        out.push((0..n).map(|i| x[i] * y[i]).sum());
        out.push((0..n).map(|i| y[i] * y[i]).sum::<f64>().sqrt());
        out.push(
            (0..n)
                .map(|i| value(k, i).powi(2) + value(k + 2, i).powi(2))
                .sum(),
        );
        out.push(0.0);
    }
    let m = 40;
    let a: Vec<f64> = (0..m * m)
        .map(|i| value(k + 3, i) + if i % (m + 1) == 0 { m as f64 } else { 0.0 })
        .collect();
    let b: Vec<f64> = (0..m * m).map(|i| value(k + 4, i)).collect();
    let mut c: Vec<f64> = (0..m * m).map(|i| value(k + 5, i)).collect();
    for j in 0..m {
        for i in 0..m {
            c[i + j * m] += (0..m).map(|l| a[i + l * m] * b[l + j * m]).sum::<f64>();
        }
    }
    out.extend_from_slice(&c);
    // The solve's X is checked through its residual (`residual`), not against a loop of its own.
    out
}

/// The largest `|A X - C|` over the solve's result `x` (column-major m × m).
fn residual(k: usize, m: usize, c: &[f64], x: &[f64]) -> f64 {
    let a: Vec<f64> = (0..m * m)
        .map(|i| value(k + 3, i) + if i % (m + 1) == 0 { m as f64 } else { 0.0 })
        .collect();
    let mut worst = 0.0f64;
    for j in 0..m {
        for i in 0..m {
            let ax: f64 = (0..m).map(|l| a[i + l * m] * x[l + j * m]).sum();
            worst = worst.max((ax - c[i + j * m]).abs());
        }
    }
    worst
}

#[test]
fn sixteen_threads_agree_with_one() {
    let n = 1000;
    let alone: Vec<Vec<f64>> = (0..16).map(|k| work(k, n)).collect();
    let together: Vec<Vec<f64>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..16).map(|k| s.spawn(move || work(k, n))).collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let m = 40;
    for k in 0..16 {
        assert_eq!(alone[k], together[k], "thread {k}");
        let r = reference(k, n as usize);
        // Level 1 and the product against the loops; the solve through its residual.
        assert_eq!(alone[k].len(), r.len() + m * m, "thread {k}");
        for (a, r) in alone[k].iter().zip(&r) {
            assert!(
                (a - r).abs() <= 1e-9 * r.abs().max(1.0),
                "thread {k}: {a} against {r}"
            );
        }
        let res = residual(k, m, &r[r.len() - m * m..], &alone[k][r.len()..]);
        assert!(res <= 1e-10, "thread {k}: residual {res}");
    }
}
