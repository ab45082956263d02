//! Householder QR through C: `?geqrf`, `?orgqr`/`?ungqr` and `?ormqr`/`?unmqr` in their three
//! forms, with the helpers of `capi.rs`. The checks need no LAPACK reference: `Q` from
//! orgqr/ungqr is orthonormal and `Q R` is `A`; `Qᵀ A` (or `Qᴴ A`) from ormqr/unmqr is `R` with
//! zeros below; `I Q` from the right is the whole `Q`, whose first columns are orgqr's.

use std::ptr::null_mut;

use gpublas::Complex64 as Z64;
use gpublas_capi::*;
use rand::Rng;

use super::{last, rand_vec, rng, C, POISON};

/// `max |(QᵀQ)_ij − δ_ij|` over the `n` columns of `q` (`m` rows, leading dimension `ld`).
fn orthonormality(q: &[f64], m: usize, n: usize, ld: usize) -> f64 {
    let mut worst = 0.0f64;
    for i in 0..n {
        for j in 0..n {
            let s: f64 = (0..m).map(|l| q[l + i * ld] * q[l + j * ld]).sum();
            let want = if i == j { 1.0 } else { 0.0 };
            worst = worst.max((s - want).abs());
        }
    }
    worst
}

/// `max |(Q R − A)_ij|` with `R` the upper triangle of `f`'s first `n` rows (geqrf's output).
fn qr_residual(q: &[f64], f: &[f64], a: &[f64], (m, n, ld): (usize, usize, usize)) -> f64 {
    let mut worst = 0.0f64;
    for j in 0..n {
        for i in 0..m {
            let s: f64 = (0..=j).map(|l| q[i + l * ld] * f[l + j * ld]).sum();
            worst = worst.max((s - a[i + j * ld]).abs());
        }
    }
    worst
}

/// dgeqrf, then dorgqr (QᵀQ = I, QR = A) and dormqr from the left with Qᵀ (QᵀA = [R; 0]),
/// with lda > m and the gap rows poisoned; then sgeqrf_strided_batched and
/// sorgqr_strided_batched over three entries with gaps between entries and between their
/// `tau`s.
pub(crate) fn f6_qr_real_through_c(dev: &str) {
    let c = C::on(dev);
    let mut r = rng(21);
    let (m, n, lda) = (67usize, 33usize, 70usize);
    let mut a = rand_vec(&mut r, lda * n);
    for j in 0..n {
        for i in m..lda {
            a[i + j * lda] = POISON;
        }
    }
    let (da, dtau) = (c.up(&a), c.up(&vec![POISON; n + 1]));
    // SAFETY: A spans lda × n, tau n + 1 elements.
    let s = unsafe { gpublas_dgeqrf(c.h, m as i64, n as i64, da, lda as i64, dtau) };
    assert_eq!(s, 0, "{}", last());
    let f = c.down(da, lda * n);
    let tau = c.down(dtau, n + 1);
    assert_eq!(tau[n], POISON, "tau past min(m, n) untouched");
    for j in 0..n {
        for i in m..lda {
            assert_eq!(f[i + j * lda], POISON, "gap row {i} of column {j}");
        }
    }
    assert!(
        tau[..n].iter().all(|t| (1.0..=2.0).contains(t)),
        "LAPACK's tau range: {tau:?}"
    );

    // Q's first n columns overwrite a copy of the factors.
    let dq = c.up(&f);
    // SAFETY: as above.
    let s = unsafe { gpublas_dorgqr(c.h, m as i64, n as i64, n as i64, dq, lda as i64, dtau) };
    assert_eq!(s, 0, "{}", last());
    let q = c.down(dq, lda * n);
    let orth = orthonormality(&q, m, n, lda);
    assert!(orth < 1e-13, "dorgqr: max |QᵀQ − I| = {orth:e}");
    let res = qr_residual(&q, &f, &a, (m, n, lda));
    assert!(res < 1e-13, "dorgqr: max |QR − A| = {res:e}");

    // Qᵀ A through dormqr, C = A packed (ldc = m).
    let mut packed = vec![0.0; m * n];
    for j in 0..n {
        packed[j * m..j * m + m].copy_from_slice(&a[j * lda..j * lda + m]);
    }
    let dc = c.up(&packed);
    // SAFETY: the factors (lda × n), tau, C (m × n).
    let s = unsafe {
        gpublas_dormqr(
            c.h,
            GPUBLAS_SIDE_LEFT,
            GPUBLAS_OPERATION_TRANSPOSE,
            m as i64,
            n as i64,
            n as i64,
            da,
            lda as i64,
            dtau,
            dc,
            m as i64,
        )
    };
    assert_eq!(s, 0, "{}", last());
    let qta = c.down(dc, m * n);
    for j in 0..n {
        for i in 0..m {
            let want = if i <= j { f[i + j * lda] } else { 0.0 };
            assert!(
                (qta[i + j * m] - want).abs() < 1e-13,
                "dormqr: (QᵀA)[{i}][{j}] = {} vs {want}",
                qta[i + j * m]
            );
        }
    }

    // Single precision, strided: 3 entries of 20 × 12, stride_a and stride_tau with gaps.
    let (ms, ns, batch) = (20usize, 12usize, 3usize);
    let (sa, st) = (ms * ns + 5, ns + 2);
    let a32: Vec<f32> = (0..sa * batch).map(|_| r.gen_range(-1.0f32..1.0)).collect();
    let (da, dtau) = (c.up(&a32), c.up(&vec![-9.0f32; st * batch]));
    // SAFETY: `batch` entries `sa` apart, their tau `st` apart.
    let s = unsafe {
        gpublas_sgeqrf_strided_batched(
            c.h,
            ms as i64,
            ns as i64,
            da,
            ms as i64,
            sa as i64,
            dtau,
            st as i64,
            batch as i64,
        )
    };
    assert_eq!(s, 0, "{}", last());
    let f32s = c.down(da, sa * batch);
    let tau = c.down(dtau, st * batch);
    for e in 0..batch {
        assert!(tau[e * st + ns..(e + 1) * st].iter().all(|&t| t == -9.0));
        assert!(f32s[e * sa + ms * ns..(e + 1) * sa]
            .iter()
            .zip(&a32[e * sa + ms * ns..(e + 1) * sa])
            .all(|(g, w)| g == w));
    }
    let dq = c.up(&f32s);
    // SAFETY: as above.
    let s = unsafe {
        gpublas_sorgqr_strided_batched(
            c.h,
            ms as i64,
            ns as i64,
            ns as i64,
            dq,
            ms as i64,
            sa as i64,
            dtau,
            st as i64,
            batch as i64,
        )
    };
    assert_eq!(s, 0, "{}", last());
    let q32 = c.down(dq, sa * batch);
    let wide = |v: &[f32]| v.iter().map(|&x| x as f64).collect::<Vec<_>>();
    for e in 0..batch {
        let range = e * sa..e * sa + ms * ns;
        let (q, f, a) = (
            wide(&q32[range.clone()]),
            wide(&f32s[range.clone()]),
            wide(&a32[range]),
        );
        let orth = orthonormality(&q, ms, ns, ms);
        assert!(orth < 1e-5, "entry {e}: max |QᵀQ − I| = {orth:e}");
        let res = qr_residual(&q, &f, &a, (ms, ns, ms));
        assert!(res < 1e-5, "entry {e}: max |QR − A| = {res:e}");
    }
}

/// `A[i][j]` of a column-major complex matrix as C's struct.
fn z(v: &[gpublas_double_complex], i: usize) -> Z64 {
    Z64::new(v[i].x, v[i].y)
}

/// zgeqrf_batched (two entries, tau `stride_tau` apart with a gap), zunmqr_batched with Qᴴ from
/// the left (QᴴA = [R; 0]), zungqr (QᴴQ = I), zunmqr with Q from the right on the identity
/// (the whole Q, whose first columns are zungqr's), and op = T refused for a complex type.
pub(crate) fn f6_qr_complex_through_c(dev: &str) {
    let c = C::on(dev);
    let mut r = rng(22);
    type Z = gpublas_double_complex;
    let (m, n, lda, batch) = (40usize, 25usize, 41usize, 2usize);
    let st = n + 1;
    let rz = |r: &mut rand::rngs::StdRng| Z {
        x: r.gen_range(-1.0..1.0),
        y: r.gen_range(-1.0..1.0),
    };
    let hosts: Vec<Vec<Z>> = (0..batch)
        .map(|_| (0..lda * n).map(|_| rz(&mut r)).collect())
        .collect();
    let ptrs: Vec<*mut Z> = hosts.iter().map(|a| c.up(a)).collect();
    let poison = Z { x: POISON, y: 0.0 };
    let dtau = c.up(&vec![poison; st * batch]);
    // SAFETY: a host array of `batch` device pointers, each spanning lda × n; tau st * batch.
    let s = unsafe {
        gpublas_zgeqrf_batched(
            c.h,
            m as i64,
            n as i64,
            ptrs.as_ptr(),
            lda as i64,
            dtau,
            st as i64,
            batch as i64,
        )
    };
    assert_eq!(s, 0, "{}", last());
    let tau = c.down(dtau, st * batch);
    let facs: Vec<Vec<Z>> = ptrs.iter().map(|&p| c.down(p, lda * n)).collect();
    for e in 0..batch {
        assert_eq!(tau[e * st + n].x, POISON, "entry {e}: the gap after tau");
        for j in 0..n {
            let d = facs[e][j + j * lda];
            assert!(
                d.y.abs() < 1e-14,
                "entry {e}: R's diagonal is real, got {d:?}"
            );
        }
    }

    // Qᴴ A from the left, C = copies of A packed (ldc = m).
    let packed: Vec<Vec<Z>> = hosts
        .iter()
        .map(|a| {
            (0..n)
                .flat_map(|j| a[j * lda..j * lda + m].to_vec())
                .collect()
        })
        .collect();
    let cptrs: Vec<*mut Z> = packed.iter().map(|p| c.up(p)).collect();
    let aptrs: Vec<*const Z> = ptrs.iter().map(|&p| p as *const Z).collect();
    // SAFETY: host arrays of device pointers spanning the factors and the C matrices.
    let s = unsafe {
        gpublas_zunmqr_batched(
            c.h,
            GPUBLAS_SIDE_LEFT,
            GPUBLAS_OPERATION_CONJUGATE_TRANSPOSE,
            m as i64,
            n as i64,
            n as i64,
            aptrs.as_ptr(),
            lda as i64,
            dtau,
            st as i64,
            cptrs.as_ptr(),
            m as i64,
            batch as i64,
        )
    };
    assert_eq!(s, 0, "{}", last());
    for e in 0..batch {
        let got = c.down(cptrs[e], m * n);
        for j in 0..n {
            for i in 0..m {
                let want = if i <= j {
                    z(&facs[e], i + j * lda)
                } else {
                    Z64::new(0.0, 0.0)
                };
                let d = (z(&got, i + j * m) - want).norm();
                assert!(d < 1e-13, "entry {e}: (QᴴA)[{i}][{j}] off by {d:e}");
            }
        }
    }

    // zungqr on entry 0: QᴴQ = I.
    let dq = c.up(&facs[0]);
    // SAFETY: the factors (lda × n) and entry 0's tau.
    let s = unsafe { gpublas_zungqr(c.h, m as i64, n as i64, n as i64, dq, lda as i64, dtau) };
    assert_eq!(s, 0, "{}", last());
    let q = c.down(dq, lda * n);
    for i in 0..n {
        for j in 0..n {
            let s: Z64 = (0..m)
                .map(|l| z(&q, l + i * lda).conj() * z(&q, l + j * lda))
                .sum();
            let want = if i == j { 1.0 } else { 0.0 };
            assert!(
                (s - Z64::new(want, 0.0)).norm() < 1e-13,
                "(QᴴQ)[{i}][{j}] = {s}"
            );
        }
    }

    // I Q from the right (C = I of order m, Q of order m from k = n reflectors): the whole Q.
    let mut eye = vec![Z { x: 0.0, y: 0.0 }; m * m];
    for i in 0..m {
        eye[i + i * m].x = 1.0;
    }
    let dc = c.up(&eye);
    // SAFETY: the factors (lda ≥ m rows, n columns), tau, C (m × m).
    let s = unsafe {
        gpublas_zunmqr(
            c.h,
            GPUBLAS_SIDE_RIGHT,
            GPUBLAS_OPERATION_NONE,
            m as i64,
            m as i64,
            n as i64,
            ptrs[0],
            lda as i64,
            dtau,
            dc,
            m as i64,
        )
    };
    assert_eq!(s, 0, "{}", last());
    let full = c.down(dc, m * m);
    for j in 0..n {
        for i in 0..m {
            let d = (z(&full, i + j * m) - z(&q, i + j * lda)).norm();
            assert!(d < 1e-13, "Q[{i}][{j}]: zunmqr and zungqr differ by {d:e}");
        }
    }

    // A transpose without conjugation is not a zunmqr operation; C stays as it was.
    let before = c.down(dc, m * m);
    // SAFETY: as above.
    let s = unsafe {
        gpublas_zunmqr(
            c.h,
            GPUBLAS_SIDE_RIGHT,
            GPUBLAS_OPERATION_TRANSPOSE,
            m as i64,
            m as i64,
            n as i64,
            ptrs[0],
            lda as i64,
            dtau,
            dc,
            m as i64,
        )
    };
    assert_eq!(s, GPUBLAS_STATUS_INVALID_VALUE, "{}", last());
    assert!(last().contains("op = T"), "{}", last());
    assert_eq!(
        c.down(dc, m * m)
            .iter()
            .zip(&before)
            .filter(|(a, b)| a != b)
            .count(),
        0
    );
}

/// Bad QR arguments (status and message), then the M9 pattern: a size query over dgeqrf,
/// dorgqr and dormqr with null device pointers, that size set, and the three calls succeed
/// in full.
pub(crate) fn f7_qr_bad_arguments_and_query(dev: &str) {
    let c = C::on(dev);
    let (da, dtau) = (c.up(&[1.0f64; 16]), c.up(&[0.0f64; 8]));
    // SAFETY: valid pointers except where the test passes bad ones on purpose.
    unsafe {
        assert_eq!(
            gpublas_dorgqr(c.h, 2, 3, 1, da, 2, dtau),
            GPUBLAS_STATUS_INVALID_SIZE
        );
        assert!(last().contains("m ≥ n ≥ k"), "{}", last());
        assert_eq!(
            gpublas_dgeqrf(c.h, 4, 2, da, 3, dtau),
            GPUBLAS_STATUS_INVALID_SIZE
        );
        assert!(last().contains("lda"), "{}", last());
        assert_eq!(
            gpublas_dgeqrf(c.h, 2, 2, da, 2, null_mut()),
            GPUBLAS_STATUS_INVALID_POINTER
        );
        assert!(last().contains("tau"), "{}", last());
        assert_eq!(
            gpublas_dgeqrf_strided_batched(c.h, 2, 2, da, 2, 4, dtau, 1, 2),
            GPUBLAS_STATUS_INVALID_VALUE
        );
        assert!(last().contains("stride_tau = 1"), "{}", last());
        assert_eq!(
            gpublas_dormqr(
                c.h,
                GPUBLAS_SIDE_LEFT,
                GPUBLAS_OPERATION_NONE,
                2,
                2,
                3,
                da,
                2,
                dtau,
                da,
                2
            ),
            GPUBLAS_STATUS_INVALID_SIZE
        );
        assert!(last().contains("k = 3"), "{}", last());
        assert_eq!(
            gpublas_dormqr(c.h, 7, GPUBLAS_OPERATION_NONE, 2, 2, 1, da, 2, dtau, da, 2),
            GPUBLAS_STATUS_INVALID_VALUE
        );
        assert_eq!(
            gpublas_dgeqrf(c.h, -1, 2, da, 2, dtau),
            GPUBLAS_STATUS_INVALID_SIZE
        );
        assert_eq!(
            gpublas_dgeqrf(null_mut(), 2, 2, da, 2, dtau),
            GPUBLAS_STATUS_INVALID_HANDLE
        );
    }
    assert_eq!(
        c.down(da, 16),
        vec![1.0; 16],
        "A untouched by the failed calls"
    );

    let (m, n, nrhs) = (300i64, 200i64, 7i64);
    let calls = |a: *mut f64, q: *mut f64, tau: *mut f64, b: *mut f64| -> Vec<gpublas_status> {
        // SAFETY: null pointers during the query; real ones spanning the operands after.
        unsafe {
            vec![
                gpublas_dgeqrf(c.h, m, n, a, m, tau),
                gpublas_dorgqr(c.h, m, n, n, q, m, tau),
                gpublas_dormqr(
                    c.h,
                    GPUBLAS_SIDE_LEFT,
                    GPUBLAS_OPERATION_TRANSPOSE,
                    m,
                    nrhs,
                    n,
                    a,
                    m,
                    tau,
                    b,
                    m,
                ),
            ]
        }
    };
    // SAFETY: valid handle.
    unsafe { assert_eq!(gpublas_start_device_memory_size_query(c.h), 0) };
    let q = calls(null_mut(), null_mut(), null_mut(), null_mut());
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

    let mut r = rng(23);
    let (mu, nu) = (m as usize, n as usize);
    let a = rand_vec(&mut r, mu * nu);
    let (da, dq, dtau) = (c.up(&a), c.up(&a), c.up(&vec![0.0; nu]));
    let db = c.up(&rand_vec(&mut r, mu * nrhs as usize));
    // SAFETY: valid handle.
    unsafe { assert_eq!(gpublas_set_device_memory_size(c.h, need), 0) };
    // dorgqr runs on an unfactored copy: only the statuses matter here.
    let st = calls(da, dq, dtau, db);
    assert!(
        st.iter().all(|&s| s == GPUBLAS_STATUS_SUCCESS),
        "{st:?}: {}",
        last()
    );
}
