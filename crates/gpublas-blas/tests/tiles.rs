//! A product wide enough to be tiled (C's columns in tiles whose copies overlap the neighbour's
//! product) takes the GPU's way here on a second host device (`GPUBLAS_DEVICE=host-copies`, every
//! call above crossover 0): the tiles' operand windows, the last narrower tile and the padding
//! rows of the caller's C, against plain f64 loops.

use gpublas_blas::level3::{dgemm_, zgemm_};
use num_complex::Complex64;

/// The GPU's way on the host for every Level-3 call of this process (read once, at the first
/// call: every test sets the same values first).
fn copies_on_host() {
    std::env::set_var("GPUBLAS_DEVICE", "host-copies");
    std::env::set_var("GPUBLAS_BLAS_CROSSOVER", "0");
}

fn value(k: usize, i: usize) -> f64 {
    let h = (i as u64 * 2654435761 + k as u64 * 40503) % 1000;
    h as f64 / 500.0 - 1.0
}

/// Element (i, j) of op(X) for X stored column-major with leading dimension ld.
fn at(x: &[f64], ld: usize, trans: bool, i: usize, j: usize) -> f64 {
    if trans {
        x[j + i * ld]
    } else {
        x[i + j * ld]
    }
}

#[test]
fn tiled_dgemm_matches_loops() {
    copies_on_host();
    // n = 1100: tiles of 512, 512 and 76 columns.
    let (m, n, k) = (37usize, 1100usize, 23usize);
    for (ta, tb, beta) in [
        (false, false, 0.0),
        (true, true, 0.5),
        (false, true, -1.0),
        (true, false, 0.0),
    ] {
        let (ra, ca) = if ta { (k, m) } else { (m, k) };
        let (rb, cb) = if tb { (n, k) } else { (k, n) };
        let (lda, ldb, ldc) = (ra + 3, rb + 2, m + 5);
        let a: Vec<f64> = (0..lda * ca).map(|i| value(1, i)).collect();
        let b: Vec<f64> = (0..ldb * cb).map(|i| value(2, i)).collect();
        let c0: Vec<f64> = (0..ldc * n)
            .map(|i| if beta == 0.0 { f64::NAN } else { value(3, i) })
            .collect();
        let alpha = 1.25;
        let mut want = c0.clone();
        for j in 0..n {
            for i in 0..m {
                let s: f64 = (0..k)
                    .map(|l| at(&a, lda, ta, i, l) * at(&b, ldb, tb, l, j))
                    .sum();
                let old = if beta == 0.0 {
                    0.0
                } else {
                    beta * c0[i + j * ldc]
                };
                want[i + j * ldc] = alpha * s + old;
            }
        }
        let mut c = c0.clone();
        let (t, nn) = (c"T".as_ptr(), c"N".as_ptr());
        let (mi, ni, ki) = (m as i32, n as i32, k as i32);
        let (la, lb, lc) = (lda as i32, ldb as i32, ldc as i32);
        // SAFETY: every array holds what the call reads and writes at these sizes.
        unsafe {
            dgemm_(
                if ta { t } else { nn },
                if tb { t } else { nn },
                &mi,
                &ni,
                &ki,
                &alpha,
                a.as_ptr(),
                &la,
                b.as_ptr(),
                &lb,
                &beta,
                c.as_mut_ptr(),
                &lc,
            );
        }
        for j in 0..n {
            for i in 0..ldc {
                let (got, w) = (c[i + j * ldc], want[i + j * ldc]);
                if i >= m {
                    // Padding rows: untouched (NaN stays NaN).
                    assert!(
                        got.to_bits() == w.to_bits(),
                        "ta {ta} tb {tb}: padding ({i}, {j}) changed"
                    );
                } else {
                    assert!(
                        (got - w).abs() <= 1e-12 * (1.0 + w.abs()),
                        "ta {ta} tb {tb} beta {beta}: C({i}, {j}) = {got}, want {w}"
                    );
                }
            }
        }
    }
}

#[test]
fn tiled_zgemm_conjugate_transpose_matches_loops() {
    copies_on_host();
    let (m, n, k) = (9usize, 1030usize, 5usize);
    let (lda, ldb, ldc) = (m, n + 1, m + 1);
    let z = |s: usize, i: usize| Complex64::new(value(s, i), value(s + 7, i));
    let a: Vec<Complex64> = (0..lda * k).map(|i| z(4, i)).collect();
    let b: Vec<Complex64> = (0..ldb * k).map(|i| z(5, i)).collect();
    let c0: Vec<Complex64> = (0..ldc * n).map(|i| z(6, i)).collect();
    let (alpha, beta) = (Complex64::new(0.5, -1.0), Complex64::new(2.0, 0.25));
    let mut want = c0.clone();
    for j in 0..n {
        for i in 0..m {
            let s: Complex64 = (0..k).map(|l| a[i + l * lda] * b[j + l * ldb].conj()).sum();
            want[i + j * ldc] = alpha * s + beta * c0[i + j * ldc];
        }
    }
    let mut c = c0.clone();
    let (mi, ni, ki, la, lb, lc) = (
        m as i32, n as i32, k as i32, lda as i32, ldb as i32, ldc as i32,
    );
    // SAFETY: as above.
    unsafe {
        zgemm_(
            c"N".as_ptr(),
            c"C".as_ptr(),
            &mi,
            &ni,
            &ki,
            &alpha,
            a.as_ptr(),
            &la,
            b.as_ptr(),
            &lb,
            &beta,
            c.as_mut_ptr(),
            &lc,
        );
    }
    for (i, (got, w)) in c.iter().zip(&want).enumerate() {
        assert!(
            (got - w).norm() <= 1e-12 * (1.0 + w.norm()),
            "C[{i}] = {got}, want {w}"
        );
    }
}
