//! The LAPACK drivers through C: `?gesv`, `?posv` and `?getri` in their three forms, with the
//! helpers of `capi.rs`. Checks against plain f64 loops: the solution of `A X = B` (the
//! right-hand sides made from a known `X`), `A inv(A) = I`, 1-based pivots, `info` (0, or the
//! first zero pivot of a singular entry), gaps and the unstored triangle left as they were;
//! bad arguments (status and message, nothing written) and the M9 size query.

use std::ptr::null_mut;

use gpublas::Complex64 as Z64;
use gpublas_capi::*;
use rand::Rng;

use super::{last, rand_vec, rng, C, POISON};

/// `b = A x` for `nrhs` columns: `A` `n × n` at `lda`, `x` packed, `b` at `ldb`, the gap rows
/// of `b` poisoned.
fn rhs(a: &[f64], lda: usize, x: &[f64], (n, nrhs, ldb): (usize, usize, usize)) -> Vec<f64> {
    let mut b = vec![POISON; ldb * nrhs];
    for q in 0..nrhs {
        for i in 0..n {
            b[i + q * ldb] = (0..n).map(|j| a[i + j * lda] * x[j + q * n]).sum();
        }
    }
    b
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

/// `A[i][j]` of the full symmetric matrix `spd` stored one triangle of.
fn sym(a: &[f64], lda: usize, lower: bool, i: usize, j: usize) -> f64 {
    let (i, j) = if (lower && i >= j) || (!lower && i <= j) {
        (i, j)
    } else {
        (j, i)
    };
    a[i + j * lda]
}

/// `max |(A W − I)_ij|` for `n × n` real matrices at `lda` (`w` the computed inverse).
fn inverse_error(a: &[f64], w: &[f64], n: usize, lda: usize) -> f64 {
    let mut worst = 0.0f64;
    for j in 0..n {
        for i in 0..n {
            let s: f64 = (0..n).map(|l| a[i + l * lda] * w[l + j * lda]).sum();
            let want = if i == j { 1.0 } else { 0.0 };
            worst = worst.max((s - want).abs());
        }
    }
    worst
}

/// dgesv (lda and ldb with gap rows; the factors and pivots are dgetrf's), dgetri on dgetrf's
/// factors, dposv (lower, the upper triangle untouched), sgesv_strided_batched with one
/// exactly singular entry, sposv_strided_batched (upper) and sgetri_strided_batched.
pub(crate) fn f6_drivers_real_through_c(dev: &str) {
    let c = C::on(dev);
    let mut r = rng(31);
    let (n, lda, nrhs, ldb) = (70usize, 73usize, 3usize, 72usize);
    let mut a = rand_vec(&mut r, lda * n);
    for j in 0..n {
        for i in n..lda {
            a[i + j * lda] = POISON;
        }
    }
    let xt = rand_vec(&mut r, n * nrhs);
    let b = rhs(&a, lda, &xt, (n, nrhs, ldb));
    let (da, dp, di, db) = (c.up(&a), c.up(&vec![0i32; n + 1]), c.up(&[-1i32]), c.up(&b));
    // SAFETY: A spans lda × n, ipiv n + 1 pivots, B ldb × nrhs, one info.
    let s = unsafe {
        gpublas_dgesv(
            c.h,
            n as i64,
            nrhs as i64,
            da,
            lda as i64,
            dp,
            db,
            ldb as i64,
            di,
        )
    };
    assert_eq!(s, 0, "{}", last());
    assert_eq!(c.down(di, 1), vec![0]);
    let piv = c.down(dp, n + 1);
    assert!(
        piv[..n].iter().all(|&p| p >= 1 && p <= n as i32),
        "1-based pivots: {piv:?}"
    );
    assert_eq!(piv[n], 0, "past the n pivots untouched");
    let x = c.down(db, ldb * nrhs);
    for q in 0..nrhs {
        for i in 0..n {
            let (g, w) = (x[i + q * ldb], xt[i + q * n]);
            assert!((g - w).abs() < 1e-9, "dgesv x[{i}][{q}] = {g} vs {w}");
        }
        for i in n..ldb {
            assert_eq!(x[i + q * ldb], POISON, "gap row {i} of B");
        }
    }
    let f = c.down(da, lda * n);
    for j in 0..n {
        for i in n..lda {
            assert_eq!(f[i + j * lda], POISON, "gap row {i} of A");
        }
    }

    // dgetrf on the same matrix: the same factors and pivots as dgesv's.
    let (dlu, dp2, di2) = (c.up(&a), c.up(&vec![0i32; n]), c.up(&[-1i32]));
    // SAFETY: as above.
    let s = unsafe { gpublas_dgetrf(c.h, n as i64, n as i64, dlu, lda as i64, dp2, di2) };
    assert_eq!(s, 0, "{}", last());
    assert_eq!(
        c.down(dp2, n),
        piv[..n].to_vec(),
        "dgesv's pivots are dgetrf's"
    );
    let lu = c.down(dlu, lda * n);
    let worst = lu
        .iter()
        .zip(&f)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max);
    assert!(worst < 1e-12, "dgesv's factors are dgetrf's: {worst:e}");

    // dgetri from those factors and pivots: A inv(A) = I, the gap rows untouched.
    // SAFETY: the factors (lda × n), n pivots, one info.
    let s = unsafe { gpublas_dgetri(c.h, n as i64, dlu, lda as i64, dp2, di2) };
    assert_eq!(s, 0, "{}", last());
    assert_eq!(c.down(di2, 1), vec![0]);
    let w = c.down(dlu, lda * n);
    let err = inverse_error(&a, &w, n, lda);
    assert!(err < 1e-10, "dgetri: max |A inv(A) − I| = {err:e}");
    for j in 0..n {
        for i in n..lda {
            assert_eq!(w[i + j * lda], POISON, "dgetri: gap row {i}");
        }
    }

    // dposv, lower: the strictly upper triangle (9s) neither read nor written.
    let (np, ldp) = (45usize, 47usize);
    let ap = spd(&mut r, np, ldp, true, 9.0);
    let xp = rand_vec(&mut r, np * 2);
    let mut bp = vec![0.0; np * 2];
    for q in 0..2 {
        for i in 0..np {
            bp[i + q * np] = (0..np)
                .map(|j| sym(&ap, ldp, true, i, j) * xp[j + q * np])
                .sum();
        }
    }
    let (da, db, di) = (c.up(&ap), c.up(&bp), c.up(&[-1i32]));
    // SAFETY: A spans ldp × np, B np × 2, one info.
    let s = unsafe {
        gpublas_dposv(
            c.h,
            GPUBLAS_FILL_LOWER,
            np as i64,
            2,
            da,
            ldp as i64,
            db,
            np as i64,
            di,
        )
    };
    assert_eq!(s, 0, "{}", last());
    assert_eq!(c.down(di, 1), vec![0]);
    let x = c.down(db, np * 2);
    for (g, w) in x.iter().zip(&xp) {
        assert!((g - w).abs() < 1e-10, "dposv: {g} vs {w}");
    }
    let fp = c.down(da, ldp * np);
    for j in 0..np {
        for i in 0..ldp {
            if i < j || i >= np {
                assert_eq!(fp[i + j * ldp], 9.0, "dposv wrote A[{i}][{j}]");
            }
        }
    }

    // Single precision, strided: 3 systems of order 20 with gaps between entries, their
    // pivots and right-hand sides; entry 1's column 5 is zero, so U(5, 5) is.
    let (ns, batch) = (20usize, 3usize);
    let (sa, sp, sb) = (ns * ns + 3, ns + 2, ns + 1);
    let mut a32: Vec<f32> = (0..sa * batch).map(|_| r.gen_range(-1.0f32..1.0)).collect();
    for i in 0..ns {
        a32[sa + i + 4 * ns] = 0.0;
    }
    let b32: Vec<f32> = (0..sb * batch).map(|_| r.gen_range(-1.0f32..1.0)).collect();
    let (da, dp, di, db) = (
        c.up(&a32),
        c.up(&vec![-5i32; sp * batch]),
        c.up(&vec![-1i32; batch]),
        c.up(&b32),
    );
    // SAFETY: strided operands of `batch` entries.
    let s = unsafe {
        gpublas_sgesv_strided_batched(
            c.h,
            ns as i64,
            1,
            da,
            ns as i64,
            sa as i64,
            dp,
            sp as i64,
            db,
            ns as i64,
            sb as i64,
            di,
            batch as i64,
        )
    };
    assert_eq!(s, 0, "{}", last());
    assert_eq!(
        c.down(di, batch),
        vec![0, 5, 0],
        "info: the first zero pivot"
    );
    let piv = c.down(dp, sp * batch);
    for e in 0..batch {
        let p = &piv[e * sp..(e + 1) * sp];
        assert!(p[..ns].iter().all(|&v| v >= 1 && v <= ns as i32), "{p:?}");
        assert_eq!(&p[ns..], &[-5, -5], "entry {e}: the gap after its pivots");
    }
    let x = c.down(db, sb * batch);
    for e in [0usize, 2] {
        for i in 0..ns {
            let s: f64 = (0..ns)
                .map(|j| a32[e * sa + i + j * ns] as f64 * x[e * sb + j] as f64)
                .sum();
            let want = b32[e * sb + i] as f64;
            assert!((s - want).abs() < 1e-4, "sgesv entry {e} row {i}");
        }
        assert_eq!(x[e * sb + ns], b32[e * sb + ns], "entry {e}: the gap of B");
    }

    // sgetri_strided_batched on entries 0 and 2 of those factors (a batch of 2 at twice the
    // stride), pivots at twice theirs.
    let f32s = c.down(da, sa * batch);
    // SAFETY: entries 0 and 2 of the buffers above.
    let s = unsafe {
        gpublas_sgetri_strided_batched(
            c.h,
            ns as i64,
            da,
            ns as i64,
            2 * sa as i64,
            dp,
            2 * sp as i64,
            di,
            2,
        )
    };
    assert_eq!(s, 0, "{}", last());
    assert_eq!(c.down(di, 2), vec![0, 0]);
    let inv = c.down(da, sa * batch);
    assert_eq!(
        &inv[sa..2 * sa],
        &f32s[sa..2 * sa],
        "entry 1 (between the two) untouched"
    );
    let wide = |v: &[f32]| v.iter().map(|&x| x as f64).collect::<Vec<_>>();
    for e in [0usize, 2] {
        let range = e * sa..e * sa + ns * ns;
        let err = inverse_error(&wide(&a32[range.clone()]), &wide(&inv[range]), ns, ns);
        assert!(err < 1e-4, "sgetri entry {e}: max |A inv(A) − I| = {err:e}");
    }

    // sposv_strided_batched, upper, 2 entries of order 24 with 2 right-hand sides.
    let (ns, batch, nrhs) = (24usize, 2usize, 2usize);
    let (sa, sb) = (ns * ns + 7, ns * nrhs + 2);
    let mut a64 = vec![-3.0; sa * batch];
    let mut b64 = vec![-3.0; sb * batch];
    let mut xs = Vec::new();
    for e in 0..batch {
        let ae = spd(&mut r, ns, ns, false, -3.0);
        a64[e * sa..e * sa + ns * ns].copy_from_slice(&ae);
        let xe = rand_vec(&mut r, ns * nrhs);
        b64[e * sb..e * sb + ns * nrhs].copy_from_slice(&rhs_sym(&ae, ns, &xe, nrhs));
        xs.push(xe);
    }
    let a32: Vec<f32> = a64.iter().map(|&v| v as f32).collect();
    let b32: Vec<f32> = b64.iter().map(|&v| v as f32).collect();
    let (da, db, di) = (c.up(&a32), c.up(&b32), c.up(&vec![-1i32; batch]));
    // SAFETY: strided operands of `batch` entries.
    let s = unsafe {
        gpublas_sposv_strided_batched(
            c.h,
            GPUBLAS_FILL_UPPER,
            ns as i64,
            nrhs as i64,
            da,
            ns as i64,
            sa as i64,
            db,
            ns as i64,
            sb as i64,
            di,
            batch as i64,
        )
    };
    assert_eq!(s, 0, "{}", last());
    assert_eq!(c.down(di, batch), vec![0; batch]);
    let x = c.down(db, sb * batch);
    let fa = c.down(da, sa * batch);
    for e in 0..batch {
        for (i, w) in xs[e].iter().enumerate() {
            let g = x[e * sb + i] as f64;
            assert!((g - w).abs() < 1e-4, "sposv entry {e}: {g} vs {w}");
        }
        assert_eq!(&x[e * sb + ns * nrhs..(e + 1) * sb], &[-3.0, -3.0]);
        for j in 0..ns {
            for i in j + 1..ns {
                assert_eq!(fa[e * sa + i + j * ns], -3.0, "sposv wrote L[{i}][{j}]");
            }
        }
    }
}

/// `B = A X` for the symmetric `A` (packed, its upper triangle stored), `X` `n × nrhs`.
fn rhs_sym(a: &[f64], n: usize, x: &[f64], nrhs: usize) -> Vec<f64> {
    let mut b = vec![0.0; n * nrhs];
    for q in 0..nrhs {
        for i in 0..n {
            b[i + q * n] = (0..n).map(|j| sym(a, n, false, i, j) * x[j + q * n]).sum();
        }
    }
    b
}

fn zc(v: Z64) -> gpublas_double_complex {
    gpublas_double_complex { x: v.re, y: v.im }
}

fn cz(v: gpublas_double_complex) -> Z64 {
    Z64::new(v.x, v.y)
}

fn rz(r: &mut rand::rngs::StdRng) -> Z64 {
    Z64::new(r.gen_range(-1.0..1.0), r.gen_range(-1.0..1.0))
}

/// cgesv_batched (two entries, pivots `stride_piv` apart with a gap), zposv_batched (upper,
/// HPD, the strictly lower triangle untouched), zgetrf_batched then zgetri_batched.
pub(crate) fn f6_drivers_complex_through_c(dev: &str) {
    let c = C::on(dev);
    let mut r = rng(32);
    type F = gpublas_float_complex;
    let (n, lda, nrhs, batch) = (24usize, 25usize, 2usize, 2usize);
    let sp = n + 1;
    let mats: Vec<Vec<Z64>> = (0..batch)
        .map(|_| (0..lda * n).map(|_| rz(&mut r)).collect())
        .collect();
    let xs: Vec<Vec<Z64>> = (0..batch)
        .map(|_| (0..n * nrhs).map(|_| rz(&mut r)).collect())
        .collect();
    let f = |v: Z64| F {
        x: v.re as f32,
        y: v.im as f32,
    };
    let a32: Vec<Vec<F>> = mats
        .iter()
        .map(|m| m.iter().map(|&v| f(v)).collect())
        .collect();
    // The right-hand sides from the f32 matrices, in f64.
    let bs: Vec<Vec<F>> = (0..batch)
        .map(|e| {
            let mut b = vec![F { x: 0.0, y: 0.0 }; n * nrhs];
            for q in 0..nrhs {
                for i in 0..n {
                    let s: Z64 = (0..n)
                        .map(|j| {
                            let a = a32[e][i + j * lda];
                            Z64::new(a.x as f64, a.y as f64) * xs[e][j + q * n]
                        })
                        .sum();
                    b[i + q * n] = f(s);
                }
            }
            b
        })
        .collect();
    let aptrs: Vec<*mut F> = a32.iter().map(|a| c.up(a)).collect();
    let bptrs: Vec<*mut F> = bs.iter().map(|b| c.up(b)).collect();
    let (dp, di) = (c.up(&vec![-5i32; sp * batch]), c.up(&vec![-1i32; batch]));
    // SAFETY: host arrays of `batch` device pointers spanning A (lda × n) and B (n × nrhs).
    let s = unsafe {
        gpublas_cgesv_batched(
            c.h,
            n as i64,
            nrhs as i64,
            aptrs.as_ptr(),
            lda as i64,
            dp,
            sp as i64,
            bptrs.as_ptr(),
            n as i64,
            di,
            batch as i64,
        )
    };
    assert_eq!(s, 0, "{}", last());
    assert_eq!(c.down(di, batch), vec![0; batch]);
    let piv = c.down(dp, sp * batch);
    for e in 0..batch {
        let p = &piv[e * sp..(e + 1) * sp];
        assert!(p[..n].iter().all(|&v| v >= 1 && v <= n as i32), "{p:?}");
        assert_eq!(p[n], -5, "entry {e}: the gap after its pivots");
        let x = c.down(bptrs[e], n * nrhs);
        for (g, w) in x.iter().zip(&xs[e]) {
            let d = (Z64::new(g.x as f64, g.y as f64) - w).norm();
            assert!(d < 1e-3, "cgesv entry {e}: off by {d:e}");
        }
    }

    // zposv_batched, upper: A = G Gᴴ + n I, the strictly lower triangle poisoned.
    let (n, nrhs) = (33usize, 3usize);
    let poison = zc(Z64::new(POISON, 1.0));
    let mut hosts = Vec::new();
    let mut xs = Vec::new();
    let mut bs = Vec::new();
    for _ in 0..batch {
        let g: Vec<Z64> = (0..n * n).map(|_| rz(&mut r)).collect();
        let mut full = vec![Z64::new(0.0, 0.0); n * n];
        for j in 0..n {
            for i in 0..n {
                let s: Z64 = (0..n).map(|l| g[i + l * n] * g[j + l * n].conj()).sum();
                full[i + j * n] = s + if i == j { n as f64 } else { 0.0 };
            }
        }
        let x: Vec<Z64> = (0..n * nrhs).map(|_| rz(&mut r)).collect();
        let mut b = vec![Z64::new(0.0, 0.0); n * nrhs];
        for q in 0..nrhs {
            for i in 0..n {
                b[i + q * n] = (0..n).map(|j| full[i + j * n] * x[j + q * n]).sum();
            }
        }
        let stored: Vec<gpublas_double_complex> = (0..n * n)
            .map(|k| if k % n > k / n { poison } else { zc(full[k]) })
            .collect();
        hosts.push(stored);
        xs.push(x);
        bs.push(b.into_iter().map(zc).collect::<Vec<_>>());
    }
    let aptrs: Vec<*mut gpublas_double_complex> = hosts.iter().map(|a| c.up(a)).collect();
    let bptrs: Vec<*mut gpublas_double_complex> = bs.iter().map(|b| c.up(b)).collect();
    let di = c.up(&vec![-1i32; batch]);
    // SAFETY: host arrays of device pointers spanning A (n × n) and B (n × nrhs).
    let s = unsafe {
        gpublas_zposv_batched(
            c.h,
            GPUBLAS_FILL_UPPER,
            n as i64,
            nrhs as i64,
            aptrs.as_ptr(),
            n as i64,
            bptrs.as_ptr(),
            n as i64,
            di,
            batch as i64,
        )
    };
    assert_eq!(s, 0, "{}", last());
    assert_eq!(c.down(di, batch), vec![0; batch]);
    for e in 0..batch {
        let x = c.down(bptrs[e], n * nrhs);
        for (g, w) in x.iter().zip(&xs[e]) {
            let d = (cz(*g) - w).norm();
            assert!(d < 1e-11, "zposv entry {e}: off by {d:e}");
        }
        let fa = c.down(aptrs[e], n * n);
        for j in 0..n {
            for i in j + 1..n {
                assert_eq!(fa[i + j * n], poison, "zposv entry {e} wrote A[{i}][{j}]");
            }
        }
    }

    // zgetrf_batched, then zgetri_batched on its factors and pivots: A inv(A) = I.
    let (n, lda) = (40usize, 42usize);
    let mats: Vec<Vec<Z64>> = (0..batch)
        .map(|_| (0..lda * n).map(|_| rz(&mut r)).collect())
        .collect();
    let hosts: Vec<Vec<gpublas_double_complex>> = mats
        .iter()
        .map(|m| m.iter().map(|&v| zc(v)).collect())
        .collect();
    let aptrs: Vec<*mut gpublas_double_complex> = hosts.iter().map(|a| c.up(a)).collect();
    let (dp, di) = (c.up(&vec![0i32; n * batch]), c.up(&vec![-1i32; batch]));
    // SAFETY: host arrays of device pointers spanning A (lda × n); n pivots per entry.
    unsafe {
        let s = gpublas_zgetrf_batched(
            c.h,
            n as i64,
            n as i64,
            aptrs.as_ptr(),
            lda as i64,
            dp,
            n as i64,
            di,
            batch as i64,
        );
        assert_eq!(s, 0, "{}", last());
        let s = gpublas_zgetri_batched(
            c.h,
            n as i64,
            aptrs.as_ptr(),
            lda as i64,
            dp,
            n as i64,
            di,
            batch as i64,
        );
        assert_eq!(s, 0, "{}", last());
    }
    assert_eq!(c.down(di, batch), vec![0; batch]);
    for e in 0..batch {
        let w: Vec<Z64> = c.down(aptrs[e], lda * n).into_iter().map(cz).collect();
        let mut worst = 0.0f64;
        for j in 0..n {
            for i in 0..n {
                let s: Z64 = (0..n).map(|l| mats[e][i + l * lda] * w[l + j * lda]).sum();
                let want = Z64::new(if i == j { 1.0 } else { 0.0 }, 0.0);
                worst = worst.max((s - want).norm());
            }
            for i in n..lda {
                assert_eq!(w[i + j * lda], mats[e][i + j * lda], "gap row {i}");
            }
        }
        assert!(
            worst < 1e-10,
            "zgetri entry {e}: max |A inv(A) − I| = {worst:e}"
        );
    }
}

/// Bad driver arguments (status and message, A and B untouched: gesv and posv check both
/// parts before either writes), then the M9 pattern: a size query over dgesv, dposv and
/// dgetri with null device pointers, that size set, and the three calls succeed in full.
pub(crate) fn f7_drivers_bad_arguments_and_query(dev: &str) {
    let c = C::on(dev);
    let (da, db) = (c.up(&[1.0f64; 16]), c.up(&[2.0f64; 16]));
    let (dp, di) = (c.up(&[0i32; 8]), c.up(&[-1i32; 2]));
    let up = GPUBLAS_FILL_UPPER;
    // SAFETY: valid pointers except where the test passes bad ones on purpose.
    unsafe {
        assert_eq!(
            gpublas_dgesv(c.h, 2, -1, da, 2, dp, db, 2, di),
            GPUBLAS_STATUS_INVALID_SIZE
        );
        assert!(last().contains("nrhs"), "{}", last());
        assert_eq!(
            gpublas_dgesv(c.h, 4, 1, da, 3, dp, db, 4, di),
            GPUBLAS_STATUS_INVALID_SIZE
        );
        assert!(last().contains("lda"), "{}", last());
        // The solve's ldb is wrong: the factorization must not have run either.
        assert_eq!(
            gpublas_dgesv(c.h, 2, 2, da, 2, dp, db, 1, di),
            GPUBLAS_STATUS_INVALID_SIZE
        );
        assert!(last().contains("ldb"), "{}", last());
        assert_eq!(
            gpublas_dposv(c.h, up, 3, 2, da, 3, db, 2, di),
            GPUBLAS_STATUS_INVALID_SIZE
        );
        assert!(last().contains("ldb"), "{}", last());
        assert_eq!(
            gpublas_dgesv(c.h, 2, 1, da, 2, null_mut(), db, 2, di),
            GPUBLAS_STATUS_INVALID_POINTER
        );
        assert!(last().contains("ipiv"), "{}", last());
        assert_eq!(
            gpublas_dgesv(c.h, 2, 1, da, 2, dp, db, 2, null_mut()),
            GPUBLAS_STATUS_INVALID_POINTER
        );
        assert!(last().contains("info"), "{}", last());
        assert_eq!(
            gpublas_dgesv_strided_batched(c.h, 2, 1, da, 2, 4, dp, 1, db, 2, 2, di, 2),
            GPUBLAS_STATUS_INVALID_VALUE
        );
        assert!(last().contains("stride_piv = 1"), "{}", last());
        assert_eq!(
            gpublas_dposv(c.h, 7, 2, 1, da, 2, db, 2, di),
            GPUBLAS_STATUS_INVALID_VALUE
        );
        assert_eq!(
            gpublas_dposv_strided_batched(c.h, up, 2, 1, da, 2, 4, db, 2, 2, di, -1),
            GPUBLAS_STATUS_INVALID_SIZE
        );
        assert_eq!(
            gpublas_dgetri(c.h, 3, da, 2, dp, di),
            GPUBLAS_STATUS_INVALID_SIZE
        );
        assert!(last().contains("lda"), "{}", last());
        assert_eq!(
            gpublas_dgetri(c.h, 2, da, 2, std::ptr::null(), di),
            GPUBLAS_STATUS_INVALID_POINTER
        );
        assert!(last().contains("ipiv"), "{}", last());
        assert_eq!(
            gpublas_dgetri(null_mut(), 2, da, 2, dp, di),
            GPUBLAS_STATUS_INVALID_HANDLE
        );
    }
    assert_eq!(c.down(da, 16), vec![1.0; 16], "A untouched");
    assert_eq!(c.down(db, 16), vec![2.0; 16], "B untouched");
    assert_eq!(c.down(dp, 8), vec![0; 8], "ipiv untouched");
    assert_eq!(c.down(di, 2), vec![-1; 2], "info untouched");

    let (n, nrhs) = (300i64, 7i64);
    let calls = |a: *mut f64,
                 s: *mut f64,
                 b: *mut f64,
                 piv: *mut i32,
                 info: *mut i32|
     -> Vec<gpublas_status> {
        // SAFETY: null pointers during the query; real ones spanning the operands after.
        unsafe {
            vec![
                gpublas_dgesv(c.h, n, nrhs, a, n, piv, b, n, info),
                gpublas_dposv(c.h, GPUBLAS_FILL_LOWER, n, nrhs, s, n, b, n, info),
                gpublas_dgetri(c.h, n, a, n, piv, info),
            ]
        }
    };
    // SAFETY: valid handle.
    unsafe { assert_eq!(gpublas_start_device_memory_size_query(c.h), 0) };
    let q = calls(null_mut(), null_mut(), null_mut(), null_mut(), null_mut());
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

    let mut r = rng(33);
    let nu = n as usize;
    let a = rand_vec(&mut r, nu * nu);
    let sp = spd(&mut r, nu, nu, true, 0.0);
    let (da, ds) = (c.up(&a), c.up(&sp));
    let db = c.up(&rand_vec(&mut r, nu * nrhs as usize));
    let (dp, di) = (c.up(&vec![0i32; nu]), c.up(&[-1i32]));
    // SAFETY: valid handle.
    unsafe { assert_eq!(gpublas_set_device_memory_size(c.h, need), 0) };
    // dgetri inverts dgesv's factors with its pivots.
    let st = calls(da, ds, db, dp, di);
    assert!(
        st.iter().all(|&s| s == GPUBLAS_STATUS_SUCCESS),
        "{st:?}: {}",
        last()
    );
    assert_eq!(c.down(di, 1), vec![0]);
    let w = c.down(da, nu * nu);
    let err = inverse_error(&a, &w, nu, nu);
    assert!(
        err < 1e-9,
        "dgesv then dgetri: max |A inv(A) − I| = {err:e}"
    );
}
