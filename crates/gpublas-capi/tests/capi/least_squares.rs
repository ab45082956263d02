//! Least squares, LQ and the Cholesky inverse through C: `?gels`, `?gelqf`, `?ormlq`/`?unmlq`
//! and `?potri` in their three forms, with the helpers of `capi.rs`. Checks against plain f64
//! loops: a line fit with a known answer (and LAPACK's residual rows below `X`), consistent
//! systems whose solution is known, least-norm solutions against `Aᴴ (A Aᴴ)⁻¹ b` (or
//! `A (Aᴴ A)⁻¹ b`), `Q Qᵀ = I`, `L Q = A` and `A Qᴴ = [L 0]` for the LQ factors, `A inv(A) = I`
//! for potri; gaps and the unstored triangle left as they were; bad arguments (status and
//! message, nothing written) and the M9 size query.

use std::ptr::null_mut;

use gpublas::Complex64 as Z64;
use gpublas_capi::*;
use rand::Rng;

use super::{last, rand_vec, rng, C, POISON};

type F = gpublas_float_complex;
type Zc = gpublas_double_complex;

fn zc(v: Z64) -> Zc {
    Zc { x: v.re, y: v.im }
}

fn cz(v: Zc) -> Z64 {
    Z64::new(v.x, v.y)
}

fn fz(v: F) -> Z64 {
    Z64::new(v.x as f64, v.y as f64)
}

fn zf(v: Z64) -> F {
    F {
        x: v.re as f32,
        y: v.im as f32,
    }
}

fn rz(r: &mut rand::rngs::StdRng) -> Z64 {
    Z64::new(r.gen_range(-1.0..1.0), r.gen_range(-1.0..1.0))
}

fn re(v: &[f64]) -> Vec<Z64> {
    v.iter().map(|&x| Z64::new(x, 0.0)).collect()
}

/// The solution of `M y = b`, `M` `n × n` packed column-major (Gaussian elimination with
/// partial pivoting, f64).
fn solve(n: usize, mut m: Vec<Z64>, mut b: Vec<Z64>) -> Vec<Z64> {
    for k in 0..n {
        let p = (k..n)
            .max_by(|&i, &j| m[i + k * n].norm().total_cmp(&m[j + k * n].norm()))
            .unwrap();
        for j in 0..n {
            m.swap(k + j * n, p + j * n);
        }
        b.swap(k, p);
        for i in k + 1..n {
            let f = m[i + k * n] / m[k + k * n];
            for j in k..n {
                let v = m[k + j * n];
                m[i + j * n] -= f * v;
            }
            let v = b[k];
            b[i] -= f * v;
        }
    }
    for k in (0..n).rev() {
        let s: Z64 = (k + 1..n).map(|j| m[k + j * n] * b[j]).sum();
        b[k] = (b[k] - s) / m[k + k * n];
    }
    b
}

/// The least-norm solution of the wide system `W x = b`, `W` `r × c` (`r ≤ c`) given by its
/// elements: `x = Wᴴ (W Wᴴ)⁻¹ b`.
fn least_norm(w: impl Fn(usize, usize) -> Z64, (r, c): (usize, usize), b: &[Z64]) -> Vec<Z64> {
    let mut g = vec![Z64::new(0.0, 0.0); r * r];
    for j in 0..r {
        for i in 0..r {
            g[i + j * r] = (0..c).map(|l| w(i, l) * w(j, l).conj()).sum();
        }
    }
    let y = solve(r, g, b.to_vec());
    (0..c)
        .map(|l| (0..r).map(|i| w(i, l).conj() * y[i]).sum())
        .collect()
}

/// A symmetric positive definite `n × n` matrix at `lda`: `G Gᵀ + n I` in the `lower` (else
/// upper) triangle, `fill` in the other and in the gap rows.
fn spd(r: &mut rand::rngs::StdRng, n: usize, lda: usize, lower: bool, fill: f64) -> Vec<f64> {
    let g = rand_vec(r, n * n);
    let mut a = vec![fill; lda * n];
    for j in 0..n {
        for i in 0..n {
            if (lower && i >= j) || (!lower && i <= j) {
                let s: f64 = (0..n).map(|l| g[i + l * n] * g[j + l * n]).sum();
                a[i + j * lda] = s + if i == j { n as f64 } else { 0.0 };
            }
        }
    }
    a
}

/// `A[i][j]` of the full Hermitian matrix stored in one triangle of `a`.
fn herm(a: &[Z64], lda: usize, lower: bool, i: usize, j: usize) -> Z64 {
    if (lower && i >= j) || (!lower && i <= j) {
        a[i + j * lda]
    } else {
        a[j + i * lda].conj()
    }
}

/// `max |(A W − I)_ij|` for Hermitian `A` and `W` (the inverse from potri), each stored in
/// its `lower` (else upper) triangle at `lda`.
fn herm_inverse_error(a: &[Z64], w: &[Z64], n: usize, lda: usize, lower: bool) -> f64 {
    let mut worst = 0.0f64;
    for j in 0..n {
        for i in 0..n {
            let s: Z64 = (0..n)
                .map(|l| herm(a, lda, lower, i, l) * herm(w, lda, lower, l, j))
                .sum();
            let want = Z64::new(if i == j { 1.0 } else { 0.0 }, 0.0);
            worst = worst.max((s - want).norm());
        }
    }
    worst
}

/// dgels on a line fit with a known answer (and its residual in the rows below `X`, as
/// LAPACK), then on a consistent 50 × 20 system with gaps in A and B; sgels_strided_batched
/// (m < n) against the least-norm solution; sgelqf + sormlq forming `Q` (`Q Qᵀ = I`,
/// `L Q = A`) and applying `Qᵀ` from the right (`A Qᵀ = [L 0]`); dpotrf + dpotri (lower, the
/// upper triangle untouched) and spotrf + spotri_strided_batched (upper).
pub(crate) fn f6_least_squares_real_through_c(dev: &str) {
    let c = C::on(dev);
    let mut r = rng(41);

    // The line through (t, y) = (0, 1), (1, 3), (2, 2), (3, 5) closest in the 2-norm:
    // y = 1.1 + 1.1 t, residual [-0.1, 0.8, -1.3, 0.6] of squared norm 2.7.
    let (m, n, lda, ldb) = (4usize, 2usize, 5usize, 6usize);
    let mut a = vec![POISON; lda * n];
    for i in 0..m {
        a[i] = 1.0;
        a[i + lda] = i as f64;
    }
    let mut b = vec![POISON; ldb];
    b[..m].copy_from_slice(&[1.0, 3.0, 2.0, 5.0]);
    let (da, db, di) = (c.up(&a), c.up(&b), c.up(&[-1i32]));
    // SAFETY: A spans lda × n, B ldb × 1, one info.
    let s = unsafe {
        gpublas_dgels(
            c.h,
            GPUBLAS_OPERATION_NONE,
            m as i64,
            n as i64,
            1,
            da,
            lda as i64,
            db,
            ldb as i64,
            di,
        )
    };
    assert_eq!(s, 0, "{}", last());
    assert_eq!(c.down(di, 1), vec![0]);
    let x = c.down(db, ldb);
    assert!(
        (x[0] - 1.1).abs() < 1e-13 && (x[1] - 1.1).abs() < 1e-13,
        "dgels line fit: {x:?}"
    );
    let rss = x[2] * x[2] + x[3] * x[3];
    assert!((rss - 2.7).abs() < 1e-12, "the residual rows: {rss}");
    assert_eq!(&x[m..], &[POISON, POISON], "gap rows of B");
    let f = c.down(da, lda * n);
    assert_eq!((f[m], f[m + lda]), (POISON, POISON), "gap row of A");

    // A consistent 50 × 20 system with 3 right-hand sides: X exactly, a zero residual.
    let (m, n, nrhs, lda, ldb) = (50usize, 20usize, 3usize, 53usize, 52usize);
    let mut a = rand_vec(&mut r, lda * n);
    for j in 0..n {
        for i in m..lda {
            a[i + j * lda] = POISON;
        }
    }
    let xt = rand_vec(&mut r, n * nrhs);
    let mut b = vec![POISON; ldb * nrhs];
    for q in 0..nrhs {
        for i in 0..m {
            b[i + q * ldb] = (0..n).map(|j| a[i + j * lda] * xt[j + q * n]).sum();
        }
    }
    let (da, db, di) = (c.up(&a), c.up(&b), c.up(&[-1i32]));
    // SAFETY: A spans lda × n, B ldb × nrhs, one info.
    let s = unsafe {
        gpublas_dgels(
            c.h,
            GPUBLAS_OPERATION_NONE,
            m as i64,
            n as i64,
            nrhs as i64,
            da,
            lda as i64,
            db,
            ldb as i64,
            di,
        )
    };
    assert_eq!(s, 0, "{}", last());
    assert_eq!(c.down(di, 1), vec![0]);
    let x = c.down(db, ldb * nrhs);
    for q in 0..nrhs {
        for i in 0..n {
            let (g, w) = (x[i + q * ldb], xt[i + q * n]);
            assert!((g - w).abs() < 1e-10, "dgels x[{i}][{q}] = {g} vs {w}");
        }
        for i in n..m {
            assert!(x[i + q * ldb].abs() < 1e-10, "residual row {i}");
        }
        for i in m..ldb {
            assert_eq!(x[i + q * ldb], POISON, "gap row {i} of B");
        }
    }
    let f = c.down(da, lda * n);
    for j in 0..n {
        for i in m..lda {
            assert_eq!(f[i + j * lda], POISON, "gap row {i} of A");
        }
    }

    // sgels_strided_batched, 2 entries of 8 × 20 (least norm): rows m..n of B are the
    // solution's only, and the gaps between entries stay.
    let (m, n, batch) = (8usize, 20usize, 2usize);
    let (sa, ldb, sb) = (m * n + 3, n, n + 2);
    let a32: Vec<f32> = (0..sa * batch).map(|_| r.gen_range(-1.0f32..1.0)).collect();
    let mut b32 = vec![3.5f32; sb * batch];
    let mut bs = Vec::new();
    for e in 0..batch {
        let xe: Vec<f64> = rand_vec(&mut r, n);
        let be: Vec<f64> = (0..m)
            .map(|i| (0..n).map(|j| a32[e * sa + i + j * m] as f64 * xe[j]).sum())
            .collect();
        for i in 0..m {
            b32[e * sb + i] = be[i] as f32;
        }
        bs.push(be);
    }
    let (da, db, di) = (c.up(&a32), c.up(&b32), c.up(&vec![-1i32; batch]));
    // SAFETY: strided operands of `batch` entries.
    let s = unsafe {
        gpublas_sgels_strided_batched(
            c.h,
            GPUBLAS_OPERATION_NONE,
            m as i64,
            n as i64,
            1,
            da,
            m as i64,
            sa as i64,
            db,
            ldb as i64,
            sb as i64,
            di,
            batch as i64,
        )
    };
    assert_eq!(s, 0, "{}", last());
    assert_eq!(c.down(di, batch), vec![0; batch]);
    let x = c.down(db, sb * batch);
    for e in 0..batch {
        let b_used: Vec<Z64> = (0..m)
            .map(|i| Z64::new(b32[e * sb + i] as f64, 0.0))
            .collect();
        let w = |i: usize, j: usize| Z64::new(a32[e * sa + i + j * m] as f64, 0.0);
        let want = least_norm(w, (m, n), &b_used);
        for (i, w) in want.iter().enumerate() {
            let g = x[e * sb + i] as f64;
            assert!(
                (g - w.re).abs() < 1e-3,
                "sgels entry {e} x[{i}] = {g} vs {}",
                w.re
            );
        }
        assert_eq!(
            &x[e * sb + n..(e + 1) * sb],
            &[3.5, 3.5],
            "entry {e}: the gap of B"
        );
    }
    let fa = c.down(da, sa * batch);
    for e in 0..batch {
        assert_eq!(
            &fa[e * sa + m * n..(e + 1) * sa],
            &a32[e * sa + m * n..(e + 1) * sa],
            "entry {e}: the gap of A"
        );
    }

    // sgelqf of a 12 × 30 matrix (lda 14), then its Q formed by sormlq from the left on I.
    let (m, n, lda) = (12usize, 30usize, 14usize);
    let mut a32: Vec<f32> = (0..lda * n).map(|_| r.gen_range(-1.0f32..1.0)).collect();
    for j in 0..n {
        for i in m..lda {
            a32[i + j * lda] = -9.0;
        }
    }
    let (da, dtau) = (c.up(&a32), c.up(&vec![-9.0f32; m + 1]));
    // SAFETY: A spans lda × n, tau m + 1 elements.
    let s = unsafe { gpublas_sgelqf(c.h, m as i64, n as i64, da, lda as i64, dtau) };
    assert_eq!(s, 0, "{}", last());
    let f = c.down(da, lda * n);
    let tau = c.down(dtau, m + 1);
    assert_eq!(tau[m], -9.0, "tau past min(m, n) untouched");
    for j in 0..n {
        for i in m..lda {
            assert_eq!(f[i + j * lda], -9.0, "sgelqf: gap row {i}");
        }
    }
    let mut eye = vec![0.0f32; n * n];
    for i in 0..n {
        eye[i + i * n] = 1.0;
    }
    let dq = c.up(&eye);
    // SAFETY: the factors (lda × n, k = m rows of reflectors), tau, C (n × n).
    let s = unsafe {
        gpublas_sormlq(
            c.h,
            GPUBLAS_SIDE_LEFT,
            GPUBLAS_OPERATION_NONE,
            n as i64,
            n as i64,
            m as i64,
            da,
            lda as i64,
            dtau,
            dq,
            n as i64,
        )
    };
    assert_eq!(s, 0, "{}", last());
    let q = c.down(dq, n * n);
    let mut worst = 0.0f64;
    for i in 0..n {
        for j in 0..n {
            let s: f64 = (0..n)
                .map(|l| q[i + l * n] as f64 * q[j + l * n] as f64)
                .sum();
            worst = worst.max((s - if i == j { 1.0 } else { 0.0 }).abs());
        }
    }
    assert!(worst < 1e-5, "sormlq: max |Q Qᵀ − I| = {worst:e}");
    // A = L Q[0..m, :], L the lower triangle of the factors' first m columns.
    let mut worst = 0.0f64;
    for j in 0..n {
        for i in 0..m {
            let s: f64 = (0..=i)
                .map(|l| f[i + l * lda] as f64 * q[l + j * n] as f64)
                .sum();
            worst = worst.max((s - a32[i + j * lda] as f64).abs());
        }
    }
    assert!(worst < 1e-5, "sgelqf: max |L Q − A| = {worst:e}");

    // A Qᵀ = [L 0] through sormlq from the right with op T, C = A packed (ldc = m).
    let mut packed = vec![0.0f32; m * n];
    for j in 0..n {
        packed[j * m..j * m + m].copy_from_slice(&a32[j * lda..j * lda + m]);
    }
    let dc = c.up(&packed);
    // SAFETY: the factors, tau, C (m × n).
    let s = unsafe {
        gpublas_sormlq(
            c.h,
            GPUBLAS_SIDE_RIGHT,
            GPUBLAS_OPERATION_TRANSPOSE,
            m as i64,
            n as i64,
            m as i64,
            da,
            lda as i64,
            dtau,
            dc,
            m as i64,
        )
    };
    assert_eq!(s, 0, "{}", last());
    let aq = c.down(dc, m * n);
    for j in 0..n {
        for i in 0..m {
            let want = if j <= i { f[i + j * lda] } else { 0.0 };
            assert!(
                (aq[i + j * m] - want).abs() < 1e-5,
                "sormlq: (A Qᵀ)[{i}][{j}] = {} vs {want}",
                aq[i + j * m]
            );
        }
    }

    // dpotrf then dpotri, lower, n = 40 at lda 43: the upper triangle (9s) and the gap rows
    // neither read nor written.
    let (n, lda) = (40usize, 43usize);
    let mut a = spd(&mut r, n, lda, true, 9.0);
    for j in 0..n {
        for i in n..lda {
            a[i + j * lda] = POISON;
        }
    }
    let (da, di) = (c.up(&a), c.up(&[-1i32]));
    // SAFETY: A spans lda × n, one info.
    unsafe {
        let s = gpublas_dpotrf(c.h, GPUBLAS_FILL_LOWER, n as i64, da, lda as i64, di);
        assert_eq!(s, 0, "{}", last());
        let s = gpublas_dpotri(c.h, GPUBLAS_FILL_LOWER, n as i64, da, lda as i64, di);
        assert_eq!(s, 0, "{}", last());
    }
    assert_eq!(c.down(di, 1), vec![0]);
    let w = c.down(da, lda * n);
    let err = herm_inverse_error(&re(&a), &re(&w), n, lda, true);
    assert!(err < 1e-10, "dpotri: max |A inv(A) − I| = {err:e}");
    for j in 0..n {
        for i in 0..lda {
            if i < j {
                assert_eq!(w[i + j * lda], 9.0, "dpotri wrote A[{i}][{j}]");
            } else if i >= n {
                assert_eq!(w[i + j * lda], POISON, "dpotri: gap row {i}");
            }
        }
    }

    // spotrf + spotri_strided_batched, upper: 2 entries of order 16, 5 elements between them.
    let (n, batch) = (16usize, 2usize);
    let sa = n * n + 5;
    let mut a64 = vec![-3.0; sa * batch];
    for e in 0..batch {
        let ae = spd(&mut r, n, n, false, -3.0);
        a64[e * sa..e * sa + n * n].copy_from_slice(&ae);
    }
    let a32: Vec<f32> = a64.iter().map(|&v| v as f32).collect();
    let (da, di) = (c.up(&a32), c.up(&vec![-1i32; batch]));
    // SAFETY: strided operands of `batch` entries.
    unsafe {
        let s = gpublas_spotrf_strided_batched(
            c.h,
            GPUBLAS_FILL_UPPER,
            n as i64,
            da,
            n as i64,
            sa as i64,
            di,
            batch as i64,
        );
        assert_eq!(s, 0, "{}", last());
        let s = gpublas_spotri_strided_batched(
            c.h,
            GPUBLAS_FILL_UPPER,
            n as i64,
            da,
            n as i64,
            sa as i64,
            di,
            batch as i64,
        );
        assert_eq!(s, 0, "{}", last());
    }
    assert_eq!(c.down(di, batch), vec![0; batch]);
    let w = c.down(da, sa * batch);
    for e in 0..batch {
        let range = e * sa..e * sa + n * n;
        let we: Vec<f64> = w[range.clone()].iter().map(|&v| v as f64).collect();
        let ae: Vec<f64> = a32[range].iter().map(|&v| v as f64).collect();
        let err = herm_inverse_error(&re(&ae), &re(&we), n, n, false);
        assert!(err < 1e-4, "spotri entry {e}: max |A inv(A) − I| = {err:e}");
        for j in 0..n {
            for i in j + 1..n {
                assert_eq!(
                    w[e * sa + i + j * n],
                    -3.0,
                    "spotri entry {e} wrote A[{i}][{j}]"
                );
            }
        }
        assert!(w[e * sa + n * n..(e + 1) * sa].iter().all(|&v| v == -3.0));
    }
}

/// zgels_batched with trans C on both shapes (m < n: the least-squares solution of a
/// consistent `Aᴴ X = B`; m ≥ n: the least-norm solution), gaps in A and B; cgelqf_batched +
/// cunmlq_batched from the right with op C (`A Qᴴ = [L 0]`), op T refused; zpotrf_batched +
/// zpotri_batched (upper, HPD, the strictly lower triangle untouched).
pub(crate) fn f6_least_squares_complex_through_c(dev: &str) {
    let c = C::on(dev);
    let mut r = rng(42);
    let poison = zc(Z64::new(POISON, 1.0));
    let (batch, nrhs) = (2usize, 2usize);
    for (m, n) in [(10usize, 25usize), (20, 8)] {
        let (lda, ldb) = (m + 1, m.max(n) + 2);
        let mats: Vec<Vec<Z64>> = (0..batch)
            .map(|_| (0..lda * n).map(|_| rz(&mut r)).collect())
            .collect();
        let xs: Vec<Vec<Z64>> = (0..batch)
            .map(|_| (0..m * nrhs).map(|_| rz(&mut r)).collect())
            .collect();
        // B = Aᴴ X_true in its first n rows (Aᴴ is n × m).
        let ah = |e: usize, i: usize, j: usize| mats[e][j + i * lda].conj();
        let bs: Vec<Vec<Z64>> = (0..batch)
            .map(|e| {
                let mut b = vec![Z64::new(0.0, 0.0); ldb * nrhs];
                for q in 0..nrhs {
                    for i in 0..n {
                        b[i + q * ldb] = (0..m).map(|j| ah(e, i, j) * xs[e][j + q * m]).sum();
                    }
                }
                b
            })
            .collect();
        let ahost: Vec<Vec<Zc>> = mats
            .iter()
            .map(|a| {
                (0..lda * n)
                    .map(|k| if k % lda >= m { poison } else { zc(a[k]) })
                    .collect()
            })
            .collect();
        let bhost: Vec<Vec<Zc>> = bs
            .iter()
            .map(|b| {
                (0..ldb * nrhs)
                    .map(|k| {
                        if k % ldb >= m.max(n) {
                            poison
                        } else {
                            zc(b[k])
                        }
                    })
                    .collect()
            })
            .collect();
        let aptrs: Vec<*mut Zc> = ahost.iter().map(|a| c.up(a)).collect();
        let bptrs: Vec<*mut Zc> = bhost.iter().map(|b| c.up(b)).collect();
        let di = c.up(&vec![-1i32; batch]);
        // SAFETY: host arrays of `batch` device pointers spanning A (lda × n) and B
        // (ldb × nrhs).
        let s = unsafe {
            gpublas_zgels_batched(
                c.h,
                GPUBLAS_OPERATION_CONJUGATE_TRANSPOSE,
                m as i64,
                n as i64,
                nrhs as i64,
                aptrs.as_ptr(),
                lda as i64,
                bptrs.as_ptr(),
                ldb as i64,
                di,
                batch as i64,
            )
        };
        assert_eq!(s, 0, "{m} × {n}: {}", last());
        assert_eq!(c.down(di, batch), vec![0; batch]);
        for e in 0..batch {
            let x = c.down(bptrs[e], ldb * nrhs);
            for q in 0..nrhs {
                // m < n: the consistent system's solution; m ≥ n: Aᴴ x = b of least norm.
                let want = if m < n {
                    xs[e][q * m..(q + 1) * m].to_vec()
                } else {
                    let b: Vec<Z64> = (0..n).map(|i| bs[e][i + q * ldb]).collect();
                    least_norm(|i, j| ah(e, i, j), (n, m), &b)
                };
                for (i, w) in want.iter().enumerate() {
                    let d = (cz(x[i + q * ldb]) - w).norm();
                    assert!(
                        d < 1e-10,
                        "zgels {m} × {n} entry {e} x[{i}][{q}]: off by {d:e}"
                    );
                }
                for i in m.max(n)..ldb {
                    assert_eq!(x[i + q * ldb], poison, "{m} × {n}: gap row {i} of B");
                }
            }
            let fa = c.down(aptrs[e], lda * n);
            for j in 0..n {
                assert_eq!(fa[m + j * lda], poison, "{m} × {n}: gap row of A");
            }
        }
    }

    // cgelqf_batched (9 × 21, tau 10 apart), then cunmlq_batched from the right with op C
    // on copies of A: A Qᴴ = [L 0].
    let (m, n, lda, st) = (9usize, 21usize, 10usize, 10usize);
    let mats: Vec<Vec<F>> = (0..batch)
        .map(|_| (0..lda * n).map(|_| zf(rz(&mut r))).collect())
        .collect();
    let aptrs: Vec<*mut F> = mats.iter().map(|a| c.up(a)).collect();
    let dtau = c.up(&vec![zf(Z64::new(-9.0, 0.0)); st * batch]);
    // SAFETY: host arrays of device pointers spanning A (lda × n); tau `st` apart.
    let s = unsafe {
        gpublas_cgelqf_batched(
            c.h,
            m as i64,
            n as i64,
            aptrs.as_ptr(),
            lda as i64,
            dtau,
            st as i64,
            batch as i64,
        )
    };
    assert_eq!(s, 0, "{}", last());
    let tau = c.down(dtau, st * batch);
    for e in 0..batch {
        assert_eq!(
            fz(tau[e * st + m]),
            Z64::new(-9.0, 0.0),
            "entry {e}: tau's gap"
        );
    }
    let cptrs: Vec<*mut F> = mats.iter().map(|a| c.up(a)).collect();
    let consts: Vec<*const F> = aptrs.iter().map(|&p| p as *const F).collect();
    // SAFETY: the factors, tau, C (lda × n each).
    let s = unsafe {
        gpublas_cunmlq_batched(
            c.h,
            GPUBLAS_SIDE_RIGHT,
            GPUBLAS_OPERATION_CONJUGATE_TRANSPOSE,
            m as i64,
            n as i64,
            m as i64,
            consts.as_ptr(),
            lda as i64,
            dtau,
            st as i64,
            cptrs.as_ptr(),
            lda as i64,
            batch as i64,
        )
    };
    assert_eq!(s, 0, "{}", last());
    for e in 0..batch {
        let f = c.down(aptrs[e], lda * n);
        let aq = c.down(cptrs[e], lda * n);
        for j in 0..n {
            for i in 0..m {
                let want = if j <= i {
                    fz(f[i + j * lda])
                } else {
                    Z64::new(0.0, 0.0)
                };
                let d = (fz(aq[i + j * lda]) - want).norm();
                assert!(d < 1e-4, "cunmlq entry {e}: (A Qᴴ)[{i}][{j}] off by {d:e}");
            }
            assert_eq!(aq[m + j * lda], mats[e][m + j * lda], "gap row of C");
            if j < m {
                assert!(
                    fz(f[j + j * lda]).im.abs() < 1e-6,
                    "L's diagonal is real: {:?}",
                    f[j + j * lda]
                );
            }
        }
    }
    let before = c.down(cptrs[0], lda * n);
    // SAFETY: as above; op T is refused for a complex type before anything is written.
    let s = unsafe {
        gpublas_cunmlq(
            c.h,
            GPUBLAS_SIDE_RIGHT,
            GPUBLAS_OPERATION_TRANSPOSE,
            m as i64,
            n as i64,
            m as i64,
            aptrs[0],
            lda as i64,
            dtau,
            cptrs[0],
            lda as i64,
        )
    };
    assert_eq!(s, GPUBLAS_STATUS_INVALID_VALUE, "{}", last());
    assert!(last().contains("op = T"), "{}", last());
    assert_eq!(c.down(cptrs[0], lda * n), before, "C untouched");

    // zpotrf_batched then zpotri_batched, upper: A = G Gᴴ + n I, the strict lower triangle
    // poisoned.
    let n = 20usize;
    let mut fulls = Vec::new();
    let mut hosts = Vec::new();
    for _ in 0..batch {
        let g: Vec<Z64> = (0..n * n).map(|_| rz(&mut r)).collect();
        let mut full = vec![Z64::new(0.0, 0.0); n * n];
        for j in 0..n {
            for i in 0..n {
                let s: Z64 = (0..n).map(|l| g[i + l * n] * g[j + l * n].conj()).sum();
                full[i + j * n] = s + if i == j { n as f64 } else { 0.0 };
            }
        }
        hosts.push(
            (0..n * n)
                .map(|k| if k % n > k / n { poison } else { zc(full[k]) })
                .collect::<Vec<_>>(),
        );
        fulls.push(full);
    }
    let aptrs: Vec<*mut Zc> = hosts.iter().map(|a| c.up(a)).collect();
    let di = c.up(&vec![-1i32; batch]);
    // SAFETY: host arrays of device pointers spanning A (n × n); one info per entry.
    unsafe {
        let s = gpublas_zpotrf_batched(
            c.h,
            GPUBLAS_FILL_UPPER,
            n as i64,
            aptrs.as_ptr(),
            n as i64,
            di,
            batch as i64,
        );
        assert_eq!(s, 0, "{}", last());
        let s = gpublas_zpotri_batched(
            c.h,
            GPUBLAS_FILL_UPPER,
            n as i64,
            aptrs.as_ptr(),
            n as i64,
            di,
            batch as i64,
        );
        assert_eq!(s, 0, "{}", last());
    }
    assert_eq!(c.down(di, batch), vec![0; batch]);
    for e in 0..batch {
        let w = c.down(aptrs[e], n * n);
        for j in 0..n {
            for i in j + 1..n {
                assert_eq!(w[i + j * n], poison, "zpotri entry {e} wrote A[{i}][{j}]");
            }
        }
        let w: Vec<Z64> = w.into_iter().map(cz).collect();
        let err = herm_inverse_error(&fulls[e], &w, n, n, false);
        assert!(
            err < 1e-10,
            "zpotri entry {e}: max |A inv(A) − I| = {err:e}"
        );
    }
}

/// Bad arguments of gels, gelqf, ormlq and potri (status and message, A, B, tau and info
/// untouched), then the M9 pattern: a size query over dgels, dgelqf, dormlq, dpotrf and dpotri
/// with null device pointers, that size set, and the calls succeed in full (dgels's solution
/// checked).
pub(crate) fn f7_least_squares_bad_arguments_and_query(dev: &str) {
    let c = C::on(dev);
    let (da, db) = (c.up(&[1.0f64; 16]), c.up(&[2.0f64; 16]));
    let (dtau, di) = (c.up(&[5.0f64; 8]), c.up(&[-1i32; 2]));
    let one = gpublas_double_complex { x: 1.0, y: 0.0 };
    let (za, zb) = (c.up(&[one; 16]), c.up(&[one; 16]));
    let (no, tr) = (GPUBLAS_OPERATION_NONE, GPUBLAS_OPERATION_TRANSPOSE);
    let (left, lo) = (GPUBLAS_SIDE_LEFT, GPUBLAS_FILL_LOWER);
    // SAFETY: valid pointers except where the test passes bad ones on purpose.
    unsafe {
        assert_eq!(
            gpublas_dgels(c.h, no, 4, 2, 1, da, 4, db, 3, di),
            GPUBLAS_STATUS_INVALID_SIZE
        );
        assert!(last().contains("ldb"), "{}", last());
        // m < n: B holds n rows (the solution), so ldb ≥ n.
        assert_eq!(
            gpublas_dgels(c.h, no, 2, 4, 1, da, 2, db, 2, di),
            GPUBLAS_STATUS_INVALID_SIZE
        );
        assert!(last().contains("ldb"), "{}", last());
        assert_eq!(
            gpublas_dgels(c.h, no, 4, 2, 1, da, 3, db, 4, di),
            GPUBLAS_STATUS_INVALID_SIZE
        );
        assert!(last().contains("lda"), "{}", last());
        assert_eq!(
            gpublas_dgels(c.h, 7, 2, 2, 1, da, 2, db, 2, di),
            GPUBLAS_STATUS_INVALID_VALUE
        );
        assert_eq!(
            gpublas_zgels(c.h, tr, 2, 2, 1, za, 2, zb, 2, di),
            GPUBLAS_STATUS_INVALID_VALUE
        );
        assert!(last().contains("trans = T"), "{}", last());
        assert_eq!(
            gpublas_dgels(c.h, no, 2, 2, 1, da, 2, db, 2, null_mut()),
            GPUBLAS_STATUS_INVALID_POINTER
        );
        assert!(last().contains("info"), "{}", last());
        assert_eq!(
            gpublas_dgels(c.h, no, 2, 2, -1, da, 2, db, 2, di),
            GPUBLAS_STATUS_INVALID_SIZE
        );
        assert!(last().contains("nrhs"), "{}", last());
        assert_eq!(
            gpublas_dgels_strided_batched(c.h, no, 2, 2, 1, da, 2, 4, db, 2, 2, di, -1),
            GPUBLAS_STATUS_INVALID_SIZE
        );
        assert_eq!(
            gpublas_dgelqf(c.h, 4, 2, da, 3, dtau),
            GPUBLAS_STATUS_INVALID_SIZE
        );
        assert!(last().contains("lda"), "{}", last());
        assert_eq!(
            gpublas_dgelqf(c.h, 2, 2, da, 2, null_mut()),
            GPUBLAS_STATUS_INVALID_POINTER
        );
        assert!(last().contains("tau"), "{}", last());
        assert_eq!(
            gpublas_dgelqf_strided_batched(c.h, 2, 2, da, 2, 4, dtau, 1, 2),
            GPUBLAS_STATUS_INVALID_VALUE
        );
        assert!(last().contains("stride_tau = 1"), "{}", last());
        // ormlq's A is k × nq: lda ≥ k (here 3 > 2), and k ≤ nq.
        assert_eq!(
            gpublas_dormlq(c.h, left, no, 4, 2, 3, da, 2, dtau, db, 4),
            GPUBLAS_STATUS_INVALID_SIZE
        );
        assert!(last().contains("lda"), "{}", last());
        assert_eq!(
            gpublas_dormlq(c.h, left, no, 2, 2, 3, da, 3, dtau, db, 2),
            GPUBLAS_STATUS_INVALID_SIZE
        );
        assert!(last().contains("k = 3"), "{}", last());
        assert_eq!(
            gpublas_dormlq(c.h, 7, no, 2, 2, 1, da, 2, dtau, db, 2),
            GPUBLAS_STATUS_INVALID_VALUE
        );
        assert_eq!(
            gpublas_dormlq(c.h, left, no, 2, 2, 1, da, 2, std::ptr::null(), db, 2),
            GPUBLAS_STATUS_INVALID_POINTER
        );
        assert!(last().contains("tau"), "{}", last());
        assert_eq!(
            gpublas_dpotri(c.h, lo, 3, da, 2, di),
            GPUBLAS_STATUS_INVALID_SIZE
        );
        assert!(last().contains("lda"), "{}", last());
        assert_eq!(
            gpublas_dpotri(c.h, 7, 2, da, 2, di),
            GPUBLAS_STATUS_INVALID_VALUE
        );
        assert_eq!(
            gpublas_dpotri(c.h, lo, 2, da, 2, null_mut()),
            GPUBLAS_STATUS_INVALID_POINTER
        );
        assert!(last().contains("info"), "{}", last());
        assert_eq!(
            gpublas_dpotri_strided_batched(c.h, lo, 2, da, 2, 4, di, -2),
            GPUBLAS_STATUS_INVALID_SIZE
        );
        assert_eq!(
            gpublas_dpotri(null_mut(), lo, 2, da, 2, di),
            GPUBLAS_STATUS_INVALID_HANDLE
        );
        assert_eq!(
            gpublas_dgels(null_mut(), no, 2, 2, 1, da, 2, db, 2, di),
            GPUBLAS_STATUS_INVALID_HANDLE
        );
    }
    assert_eq!(c.down(da, 16), vec![1.0; 16], "A untouched");
    assert_eq!(c.down(db, 16), vec![2.0; 16], "B untouched");
    assert_eq!(c.down(dtau, 8), vec![5.0; 8], "tau untouched");
    assert_eq!(c.down(di, 2), vec![-1; 2], "info untouched");
    assert_eq!(c.down(za, 16), vec![one; 16], "complex A untouched");
    assert_eq!(c.down(zb, 16), vec![one; 16], "complex B untouched");

    let (m, n, nrhs) = (300i64, 200i64, 7i64);
    let calls = |a: *mut f64,
                 b: *mut f64,
                 l: *mut f64,
                 tau: *mut f64,
                 cm: *mut f64,
                 s: *mut f64,
                 info: *mut i32|
     -> Vec<gpublas_status> {
        // SAFETY: null pointers during the query; real ones spanning the operands after.
        unsafe {
            vec![
                gpublas_dgels(c.h, no, m, n, nrhs, a, m, b, m, info),
                // The LQ of an n × m matrix (wide), then its Q (order m) applied to C (m × nrhs).
                gpublas_dgelqf(c.h, n, m, l, n, tau),
                gpublas_dormlq(c.h, left, tr, m, nrhs, n, l, n, tau, cm, m),
                gpublas_dpotrf(c.h, lo, n, s, n, info),
                gpublas_dpotri(c.h, lo, n, s, n, info),
            ]
        }
    };
    // SAFETY: valid handle.
    unsafe { assert_eq!(gpublas_start_device_memory_size_query(c.h), 0) };
    let q = calls(
        null_mut(),
        null_mut(),
        null_mut(),
        null_mut(),
        null_mut(),
        null_mut(),
        null_mut(),
    );
    let mut need = 0usize;
    // SAFETY: valid handle and out pointer.
    unsafe { assert_eq!(gpublas_stop_device_memory_size_query(c.h, &mut need), 0) };
    for s in &q {
        assert!(
            *s == GPUBLAS_STATUS_SIZE_INCREASED || *s == GPUBLAS_STATUS_SIZE_UNCHANGED,
            "{s}: {}",
            last()
        );
    }
    assert!(need > 0);

    let mut r = rng(43);
    let (mu, nu, ku) = (m as usize, n as usize, nrhs as usize);
    let a = rand_vec(&mut r, mu * nu);
    let xt = rand_vec(&mut r, nu * ku);
    let mut b = vec![0.0; mu * ku];
    for q in 0..ku {
        for i in 0..mu {
            b[i + q * mu] = (0..nu).map(|j| a[i + j * mu] * xt[j + q * nu]).sum();
        }
    }
    let sp = spd(&mut r, nu, nu, true, 0.0);
    let (da, db, dl) = (c.up(&a), c.up(&b), c.up(&rand_vec(&mut r, nu * mu)));
    let (dtau, dcm, ds) = (
        c.up(&vec![0.0; nu]),
        c.up(&rand_vec(&mut r, mu * ku)),
        c.up(&sp),
    );
    let di = c.up(&[-1i32]);
    // SAFETY: valid handle.
    unsafe { assert_eq!(gpublas_set_device_memory_size(c.h, need), 0) };
    let st = calls(da, db, dl, dtau, dcm, ds, di);
    assert!(
        st.iter().all(|&s| s == GPUBLAS_STATUS_SUCCESS),
        "{st:?}: {}",
        last()
    );
    assert_eq!(c.down(di, 1), vec![0]);
    let x = c.down(db, mu * ku);
    for q in 0..ku {
        for i in 0..nu {
            let (g, w) = (x[i + q * mu], xt[i + q * nu]);
            assert!((g - w).abs() < 1e-9, "dgels x[{i}][{q}] = {g} vs {w}");
        }
    }
    let w = c.down(ds, nu * nu);
    let err = herm_inverse_error(&re(&sp), &re(&w), nu, nu, true);
    assert!(
        err < 1e-9,
        "dpotrf then dpotri: max |A inv(A) − I| = {err:e}"
    );
}
