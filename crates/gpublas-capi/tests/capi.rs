//! The C entry points called as C would: raw pointers from `gpublas_malloc`, data moved with
//! `gpublas_set_vector`/`gpublas_get_vector`, results checked against plain f64 loops. The
//! same bodies run on the host backend and on CUDA (ignored without a GPU).
#![allow(clippy::too_many_arguments)]

use std::ffi::{c_void, CStr};
use std::ptr::null_mut;

use gpublas_capi::*;
use rand::{Rng, SeedableRng};

#[path = "capi/level2.rs"]
mod level2;
use level2::{f10_band_packed_products_and_solves, f1_rank_updates_through_c};
#[path = "capi/drivers.rs"]
mod drivers;
use drivers::{
    f6_drivers_complex_through_c, f6_drivers_real_through_c, f7_drivers_bad_arguments_and_query,
};
#[path = "capi/least_squares.rs"]
mod least_squares;
use least_squares::{
    f6_least_squares_complex_through_c, f6_least_squares_real_through_c,
    f7_least_squares_bad_arguments_and_query,
};
#[path = "capi/qr.rs"]
mod qr;
use qr::{f6_qr_complex_through_c, f6_qr_real_through_c, f7_qr_bad_arguments_and_query};

/// A handle on one backend plus the device memory it handed out.
struct C {
    h: gpublas_handle,
}

impl C {
    fn on(device: &str) -> C {
        let name = std::ffi::CString::new(device).unwrap();
        let mut h = null_mut();
        // SAFETY: a valid name and an out pointer.
        let s = unsafe { gpublas_create_handle_on(name.as_ptr(), &mut h) };
        assert_eq!(s, GPUBLAS_STATUS_SUCCESS, "{}", last());
        C { h }
    }

    /// Device memory holding `v`.
    fn up<T: Copy>(&self, v: &[T]) -> *mut T {
        let mut p = null_mut();
        let bytes = std::mem::size_of_val(v);
        // SAFETY: valid handle and out pointer; the copy reads `v` and writes `p`'s bytes.
        unsafe {
            assert_eq!(gpublas_malloc(self.h, bytes, &mut p), 0, "{}", last());
            let e = std::mem::size_of::<T>() as i64;
            let s = gpublas_set_vector(
                self.h,
                v.len() as i64,
                e,
                v.as_ptr() as *const c_void,
                1,
                p,
                1,
            );
            assert_eq!(s, 0, "{}", last());
        }
        p as *mut T
    }

    /// `n` elements of device memory at `p`.
    fn down<T: Copy + Default>(&self, p: *const T, n: usize) -> Vec<T> {
        let mut v = vec![T::default(); n];
        let e = std::mem::size_of::<T>() as i64;
        // SAFETY: `p` holds `n` elements of `T`.
        let s = unsafe {
            gpublas_get_vector(
                self.h,
                n as i64,
                e,
                p as *const c_void,
                1,
                v.as_mut_ptr() as *mut c_void,
                1,
            )
        };
        assert_eq!(s, 0, "{}", last());
        v
    }
}

impl Drop for C {
    fn drop(&mut self) {
        // SAFETY: the handle from `on`, destroyed once.
        let s = unsafe { gpublas_destroy_handle(self.h) };
        assert_eq!(s, 0, "{}", last());
    }
}

fn last() -> String {
    // SAFETY: a NUL-terminated thread-local string.
    unsafe { CStr::from_ptr(gpublas_get_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

fn rng(seed: u64) -> rand::rngs::StdRng {
    rand::rngs::StdRng::seed_from_u64(seed)
}

fn rand_vec(r: &mut impl Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| r.gen_range(-1.0..1.0)).collect()
}

const POISON: f64 = -7.25e300;

/// `op(A)[i][j]` of a column-major real matrix.
fn opat(a: &[f64], lda: usize, trans: bool, i: usize, j: usize) -> f64 {
    if trans {
        a[j + i * lda]
    } else {
        a[i + j * lda]
    }
}

/// dgemm_strided_batched with both transposes, C with ldc > m and its gap rows poisoned.
fn f10_dgemm_strided_batched(dev: &str) {
    let c = C::on(dev);
    let mut r = rng(1);
    let (m, n, k, batch) = (67usize, 33usize, 129usize, 3usize);
    let (lda, ldb, ldc) = (k + 2, n + 1, m + 3);
    let (sa, sb, sc) = (lda * m + 5, ldb * k + 1, ldc * n + 7);
    let a = rand_vec(&mut r, sa * batch);
    let b = rand_vec(&mut r, sb * batch);
    let c0 = vec![POISON; sc * batch];
    let mut c_in = c0.clone();
    for e in 0..batch {
        for j in 0..n {
            for i in 0..m {
                c_in[e * sc + i + j * ldc] = r.gen_range(-1.0..1.0);
            }
        }
    }
    let (alpha, beta) = (0.75f64, -1.5f64);
    let (da, db, dc) = (c.up(&a), c.up(&b), c.up(&c_in));
    // SAFETY: device pointers spanning the strided operands.
    let s = unsafe {
        gpublas_dgemm_strided_batched(
            c.h,
            GPUBLAS_OPERATION_TRANSPOSE,
            GPUBLAS_OPERATION_TRANSPOSE,
            m as i64,
            n as i64,
            k as i64,
            &alpha,
            da,
            lda as i64,
            sa as i64,
            db,
            ldb as i64,
            sb as i64,
            &beta,
            dc,
            ldc as i64,
            sc as i64,
            batch as i64,
        )
    };
    assert_eq!(s, GPUBLAS_STATUS_SUCCESS, "{}", last());
    let got = c.down(dc, sc * batch);
    for e in 0..batch {
        for j in 0..ldc.min(sc / ldc) {
            for i in 0..ldc {
                let idx = e * sc + i + j * ldc;
                if i >= m || j >= n {
                    assert_eq!(
                        got[idx].to_bits(),
                        c_in[idx].to_bits(),
                        "gap ({i}, {j}) of entry {e} touched"
                    );
                    continue;
                }
                let mut want = beta * c_in[idx];
                for l in 0..k {
                    want += alpha
                        * opat(&a[e * sa..], lda, true, i, l)
                        * opat(&b[e * sb..], ldb, true, l, j);
                }
                assert!(
                    (got[idx] - want).abs() <= 1e-12 * (k as f64),
                    "({i}, {j}) of {e}: {} vs {want}",
                    got[idx]
                );
            }
        }
    }
}

/// zgemv_batched (op C) through a host array of device pointers, complex scalars.
fn f10_zgemv_batched(dev: &str) {
    let c = C::on(dev);
    let mut r = rng(2);
    let (m, n, lda, batch) = (45usize, 70usize, 48usize, 2usize);
    type Z = gpublas_double_complex;
    let z = |r: &mut rand::rngs::StdRng| Z {
        x: r.gen_range(-1.0..1.0),
        y: r.gen_range(-1.0..1.0),
    };
    let mut ptrs_a = Vec::new();
    let mut ptrs_x = Vec::new();
    let mut ptrs_y = Vec::new();
    let mut host = Vec::new();
    for _ in 0..batch {
        let a: Vec<Z> = (0..lda * n).map(|_| z(&mut r)).collect();
        let x: Vec<Z> = (0..m * 2).map(|_| z(&mut r)).collect(); // incx 2
        let y: Vec<Z> = (0..n).map(|_| z(&mut r)).collect();
        ptrs_a.push(c.up(&a) as *const Z);
        ptrs_x.push(c.up(&x) as *const Z);
        ptrs_y.push(c.up(&y));
        host.push((a, x, y));
    }
    let alpha = Z { x: 0.5, y: -0.25 };
    let beta = Z { x: -1.0, y: 0.5 };
    // SAFETY: host arrays of `batch` device pointers, each spanning its operand.
    let s = unsafe {
        gpublas_zgemv_batched(
            c.h,
            GPUBLAS_OPERATION_CONJUGATE_TRANSPOSE,
            m as i64,
            n as i64,
            &alpha,
            ptrs_a.as_ptr(),
            lda as i64,
            ptrs_x.as_ptr(),
            2,
            &beta,
            ptrs_y.as_ptr(),
            1,
            batch as i64,
        )
    };
    assert_eq!(s, 0, "{}", last());
    for (e, (a, x, y)) in host.iter().enumerate() {
        let got = c.down(ptrs_y[e], n);
        for j in 0..n {
            // y_j = alpha * sum_i conj(a_ij) x_i + beta y_j
            let (mut sr, mut si) = (0.0, 0.0);
            for i in 0..m {
                let (ar, ai) = (a[i + j * lda].x, -a[i + j * lda].y);
                let (xr, xi) = (x[2 * i].x, x[2 * i].y);
                sr += ar * xr - ai * xi;
                si += ar * xi + ai * xr;
            }
            let wr = alpha.x * sr - alpha.y * si + beta.x * y[j].x - beta.y * y[j].y;
            let wi = alpha.x * si + alpha.y * sr + beta.x * y[j].y + beta.y * y[j].x;
            assert!(
                (got[j].x - wr).abs() < 1e-12 && (got[j].y - wi).abs() < 1e-12,
                "entry {e} row {j}"
            );
        }
    }
}

/// dtrsm (right, lower, transposed, unit) and dtbmv/dtpmv spans: band and packed storage.
fn f10_dtrsm_and_band_packed(dev: &str) {
    let c = C::on(dev);
    let mut r = rng(3);
    let (m, n, lda, ldb) = (40usize, 90usize, 92usize, 41usize);
    let mut a = rand_vec(&mut r, lda * n);
    for j in 0..n {
        a[j + j * lda] = 9.0; // never read: unit diagonal
    }
    let b = rand_vec(&mut r, ldb * n);
    let alpha = 2.0f64;
    let (da, db) = (c.up(&a), c.up(&b));
    // SAFETY: device pointers spanning A (n × n, lda) and B (m × n, ldb).
    let s = unsafe {
        gpublas_dtrsm(
            c.h,
            GPUBLAS_SIDE_RIGHT,
            GPUBLAS_FILL_LOWER,
            GPUBLAS_OPERATION_TRANSPOSE,
            GPUBLAS_DIAGONAL_UNIT,
            m as i64,
            n as i64,
            &alpha,
            da,
            lda as i64,
            db,
            ldb as i64,
        )
    };
    assert_eq!(s, 0, "{}", last());
    let x = c.down(db, ldb * n);
    // X op(A) = alpha B with op(A) = Aᵀ, A unit lower: check the product.
    for i in 0..m {
        for j in 0..n {
            let mut s = x[i + j * ldb]; // unit diagonal
            for l in 0..n {
                // (Aᵀ)[l][j] = A[j][l], lower: j > l
                if j > l {
                    s += x[i + l * ldb] * a[j + l * lda];
                }
            }
            assert!((s - alpha * b[i + j * ldb]).abs() < 1e-9, "({i}, {j})");
        }
        assert_eq!(x[m].to_bits(), b[m].to_bits(), "row m of B is a gap");
    }

    // dtbmv: upper band with k = 3, lda = 5; dtpmv: packed lower.
    let (nb, kb, ldab) = (50usize, 3usize, 5usize);
    let ab = rand_vec(&mut r, ldab * nb);
    let xb = rand_vec(&mut r, nb * 3);
    let (dab, dxb) = (c.up(&ab), c.up(&xb));
    // SAFETY: band storage of `ldab * nb` and x at increment 3.
    let s = unsafe {
        gpublas_dtbmv(
            c.h,
            GPUBLAS_FILL_UPPER,
            GPUBLAS_OPERATION_NONE,
            GPUBLAS_DIAGONAL_NON_UNIT,
            nb as i64,
            kb as i64,
            dab,
            ldab as i64,
            dxb,
            3,
        )
    };
    assert_eq!(s, 0, "{}", last());
    let got = c.down(dxb, nb * 3);
    for i in 0..nb {
        // A[i][j] = ab[kb + i - j + j * ldab] for j in i..=i+kb
        let mut w = 0.0;
        for j in i..(i + kb + 1).min(nb) {
            w += ab[kb + i - j + j * ldab] * xb[3 * j];
        }
        assert!((got[3 * i] - w).abs() < 1e-12, "tbmv row {i}");
        assert_eq!(got[3 * i + 1].to_bits(), xb[3 * i + 1].to_bits());
    }
    let np = 31usize;
    let ap = rand_vec(&mut r, np * (np + 1) / 2);
    let xp = rand_vec(&mut r, np);
    let (dap, dxp) = (c.up(&ap), c.up(&xp));
    // SAFETY: a packed triangle of order np and x of np.
    let s = unsafe {
        gpublas_dtpmv(
            c.h,
            GPUBLAS_FILL_LOWER,
            GPUBLAS_OPERATION_NONE,
            GPUBLAS_DIAGONAL_NON_UNIT,
            np as i64,
            dap,
            dxp,
            1,
        )
    };
    assert_eq!(s, 0, "{}", last());
    let got = c.down(dxp, np);
    for i in 0..np {
        let mut w = 0.0;
        for j in 0..=i {
            // lower packed: column j starts at j*(2n-j+1)/2
            w += ap[j * (2 * np - j + 1) / 2 + (i - j)] * xp[j];
        }
        assert!((got[i] - w).abs() < 1e-12, "tpmv row {i}");
    }
}

/// dpotrf + dpotrs on an SPD matrix, sgetrf_strided_batched + sgetrs_strided_batched, info.
fn f6_solver_through_c(dev: &str) {
    let c = C::on(dev);
    let mut r = rng(4);
    let (n, lda, nrhs) = (129usize, 131usize, 3usize);
    let g = rand_vec(&mut r, n * n);
    let mut a = vec![POISON; lda * n];
    for j in 0..n {
        for i in 0..n {
            let mut s = 0.0;
            for l in 0..n {
                s += g[i + l * n] * g[j + l * n];
            }
            a[i + j * lda] = s + if i == j { n as f64 } else { 0.0 };
        }
    }
    let xt = rand_vec(&mut r, n * nrhs);
    let mut b = vec![0.0; n * nrhs];
    for q in 0..nrhs {
        for i in 0..n {
            b[i + q * n] = (0..n).map(|j| a[i + j * lda] * xt[j + q * n]).sum();
        }
    }
    let (da, db, dinfo) = (c.up(&a), c.up(&b), c.up(&[-1i32]));
    // SAFETY: device pointers spanning A, B and one info.
    unsafe {
        assert_eq!(
            gpublas_dpotrf(c.h, GPUBLAS_FILL_LOWER, n as i64, da, lda as i64, dinfo),
            0,
            "{}",
            last()
        );
        assert_eq!(
            gpublas_dpotrs(
                c.h,
                GPUBLAS_FILL_LOWER,
                n as i64,
                nrhs as i64,
                da,
                lda as i64,
                db,
                n as i64
            ),
            0,
            "{}",
            last()
        );
    }
    assert_eq!(c.down(dinfo, 1), vec![0]);
    let x = c.down(db, n * nrhs);
    for (g, w) in x.iter().zip(&xt) {
        assert!((g - w).abs() < 1e-10, "{g} vs {w}");
    }

    // Single precision, strided batch of 3 systems of order 20; entry 1 exactly singular.
    let (ns, batch) = (20usize, 3usize);
    let sa = ns * ns;
    let mut a32: Vec<f32> = (0..sa * batch).map(|_| r.gen_range(-1.0f32..1.0)).collect();
    for e in 0..batch {
        for i in 0..ns {
            a32[e * sa + i + i * ns] += 8.0;
        }
    }
    for i in 0..ns {
        a32[sa + i + 4 * ns] = 0.0; // column 5 of entry 1 is zero
    }
    let b32: Vec<f32> = (0..ns * batch).map(|_| r.gen_range(-1.0f32..1.0)).collect();
    let (da, dp, di, db) = (
        c.up(&a32),
        c.up(&vec![0i32; ns * batch]),
        c.up(&vec![-1i32; batch]),
        c.up(&b32),
    );
    // SAFETY: strided operands of `batch` entries.
    unsafe {
        let s = gpublas_sgetrf_strided_batched(
            c.h,
            ns as i64,
            ns as i64,
            da,
            ns as i64,
            sa as i64,
            dp,
            ns as i64,
            di,
            batch as i64,
        );
        assert_eq!(s, 0, "{}", last());
    }
    let info = c.down(di, batch);
    assert_eq!(info[0], 0);
    assert!(
        info[1] > 0 && info[1] <= 5,
        "info of the singular entry: {}",
        info[1]
    );
    assert_eq!(info[2], 0);
    let piv = c.down(dp, ns * batch);
    assert!(
        piv.iter().all(|&p| p >= 1 && p <= ns as i32),
        "1-based pivots: {piv:?}"
    );
    // Solve entries 0 and 2 and check the residual against the original matrices.
    // SAFETY: as above.
    unsafe {
        let s = gpublas_sgetrs_strided_batched(
            c.h,
            GPUBLAS_OPERATION_NONE,
            ns as i64,
            1,
            da,
            ns as i64,
            sa as i64,
            dp,
            ns as i64,
            db,
            ns as i64,
            ns as i64,
            batch as i64,
        );
        assert_eq!(s, 0, "{}", last());
    }
    let x = c.down(db, ns * batch);
    for e in [0usize, 2] {
        for i in 0..ns {
            let s: f64 = (0..ns)
                .map(|j| a32[e * sa + i + j * ns] as f64 * x[e * ns + j] as f64)
                .sum();
            assert!(
                (s - b32[e * ns + i] as f64).abs() < 1e-4,
                "entry {e} row {i}"
            );
        }
    }
}

/// Level 1 through C: izamax, dznrm2 (device pointer mode), drot, drotg.
fn f6_level1_pointer_modes(dev: &str) {
    let c = C::on(dev);
    type Z = gpublas_double_complex;
    let x: Vec<Z> = (0..100)
        .map(|i| Z {
            x: (i as f64).sin(),
            y: if i == 37 { -5.0 } else { 0.1 },
        })
        .collect();
    let dx = c.up(&x);
    let mut idx = 0i64;
    // SAFETY: x spans 100 elements; idx is one host i64.
    assert_eq!(
        unsafe { gpublas_izamax(c.h, 100, dx, 1, &mut idx) },
        0,
        "{}",
        last()
    );
    assert_eq!(idx, 38, "1-based index of |re| + |im| max");
    let dr = c.up(&[0.0f64]);
    // SAFETY: valid handle; the result goes to one device f64.
    unsafe {
        assert_eq!(
            gpublas_set_pointer_mode(c.h, GPUBLAS_POINTER_MODE_DEVICE),
            0
        );
        assert_eq!(gpublas_dznrm2(c.h, 100, dx, 1, dr), 0, "{}", last());
        assert_eq!(gpublas_set_pointer_mode(c.h, GPUBLAS_POINTER_MODE_HOST), 0);
    }
    let want = x.iter().map(|z| z.x * z.x + z.y * z.y).sum::<f64>().sqrt();
    let got = c.down(dr, 1)[0];
    assert!((got - want).abs() < 1e-13 * want, "{got} vs {want}");

    let (xs, ys) = ([1.0f64, 2.0, 3.0], [4.0f64, 5.0, 6.0]);
    let (dxs, dys) = (c.up(&xs), c.up(&ys));
    let (cs, sn) = (0.6f64, 0.8f64);
    // SAFETY: two vectors of 3; c and s on the host.
    assert_eq!(
        unsafe { gpublas_drot(c.h, 3, dxs, 1, dys, 1, &cs, &sn) },
        0,
        "{}",
        last()
    );
    let (gx, gy) = (c.down(dxs, 3), c.down(dys, 3));
    for i in 0..3 {
        assert!((gx[i] - (cs * xs[i] + sn * ys[i])).abs() < 1e-15);
        assert!((gy[i] - (cs * ys[i] - sn * xs[i])).abs() < 1e-15);
    }
    let (da, db, dc, ds) = (
        c.up(&[3.0f64]),
        c.up(&[4.0f64]),
        c.up(&[0.0f64]),
        c.up(&[0.0f64]),
    );
    // SAFETY: four device scalars.
    assert_eq!(
        unsafe { gpublas_drotg(c.h, da, db, dc, ds) },
        0,
        "{}",
        last()
    );
    assert!((c.down(da, 1)[0] - 5.0).abs() < 1e-15);
    assert!((c.down(dc, 1)[0] - 0.6).abs() < 1e-15 && (c.down(ds, 1)[0] - 0.8).abs() < 1e-15);
}

/// A size query with null device pointers over one routine of every family (single,
/// batched with a null pointer array, strided); then exactly that workspace runs the same
/// calls with real pointers at full speed (`Success`, not `PerfDegraded`).
fn m9_query_null_pointers_then_preallocate(dev: &str) {
    let c = C::on(dev);
    let n = 300i64;
    let nn = (n * n) as usize;
    let calls = |a: *mut f64,
                 b: *mut f64,
                 cc: *mut f64,
                 piv: *mut i32,
                 info: *mut i32,
                 x: *mut f64,
                 r: *mut f64|
     -> Vec<gpublas_status> {
        let (one, zero) = (1.0f64, 0.0f64);
        // SAFETY: null pointers during the query; real ones spanning the operands after.
        unsafe {
            vec![
                gpublas_dnrm2_strided_batched(c.h, n, x, 1, n, 4, r),
                gpublas_dgemv(
                    c.h,
                    GPUBLAS_OPERATION_TRANSPOSE,
                    n,
                    n,
                    &one,
                    a,
                    n,
                    x,
                    1,
                    &zero,
                    x.wrapping_add(n as usize),
                    1,
                ),
                gpublas_dgemm(
                    c.h,
                    GPUBLAS_OPERATION_NONE,
                    GPUBLAS_OPERATION_NONE,
                    n,
                    n,
                    n,
                    &one,
                    a,
                    n,
                    b,
                    n,
                    &zero,
                    cc,
                    n,
                ),
                gpublas_dtrsm(
                    c.h,
                    GPUBLAS_SIDE_LEFT,
                    GPUBLAS_FILL_UPPER,
                    GPUBLAS_OPERATION_NONE,
                    GPUBLAS_DIAGONAL_NON_UNIT,
                    n,
                    n,
                    &one,
                    a,
                    n,
                    b,
                    n,
                ),
                gpublas_dgetrf(c.h, n, n, cc, n, piv, info),
                gpublas_dgetrs(c.h, GPUBLAS_OPERATION_NONE, n, n, cc, n, piv, b, n),
            ]
        }
    };
    // SAFETY: valid handle and out pointers.
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
    // A batched form with a null pointer array is accepted during a query too.
    // SAFETY: null arrays during a query.
    let qb = unsafe {
        gpublas_ddot_batched(
            c.h,
            1000,
            std::ptr::null(),
            1,
            std::ptr::null(),
            1,
            8,
            null_mut(),
        )
    };
    let mut need = 0usize;
    // SAFETY: as above.
    unsafe { assert_eq!(gpublas_stop_device_memory_size_query(c.h, &mut need), 0) };
    for s in q.iter().chain([&qb]) {
        assert!(
            *s == GPUBLAS_STATUS_SIZE_INCREASED || *s == GPUBLAS_STATUS_SIZE_UNCHANGED,
            "{s}: {}",
            last()
        );
    }
    assert!(need > 0);

    let mut r = rng(5);
    let mut a = rand_vec(&mut r, nn);
    for i in 0..n as usize {
        a[i + i * n as usize] += n as f64;
    }
    let (da, db, dc) = (c.up(&a), c.up(&rand_vec(&mut r, nn)), c.up(&vec![0.0; nn]));
    let (dp, di) = (c.up(&vec![0i32; n as usize]), c.up(&[0i32]));
    let dx = c.up(&rand_vec(&mut r, 4 * n as usize));
    let mut res = [0.0f64; 4];
    // SAFETY: valid handle.
    unsafe { assert_eq!(gpublas_set_device_memory_size(c.h, need), 0) };
    let st = calls(da, db, dc, dp, di, dx, res.as_mut_ptr());
    assert!(
        st.iter().all(|&s| s == GPUBLAS_STATUS_SUCCESS),
        "{st:?}: {}",
        last()
    );
}

/// Bad arguments: the status says which kind, the message names the values, outputs stay.
fn f7_bad_arguments(dev: &str) {
    let c = C::on(dev);
    let y0 = [1.0f32, 2.0, 3.0, 4.0];
    let (dx, dy) = (c.up(&y0), c.up(&y0));
    let alpha = 2.0f32;
    // SAFETY: valid pointers except where the test passes bad ones on purpose.
    unsafe {
        assert_eq!(
            gpublas_saxpy(c.h, -1, &alpha, dx, 1, dy, 1),
            GPUBLAS_STATUS_INVALID_SIZE
        );
        assert!(last().contains("n = -1"), "{}", last());
        assert_eq!(
            gpublas_saxpy(c.h, 4, std::ptr::null(), dx, 1, dy, 1),
            GPUBLAS_STATUS_INVALID_POINTER
        );
        assert!(last().contains("alpha"), "{}", last());
        assert_eq!(
            gpublas_saxpy(c.h, 4, &alpha, dx, 1, null_mut(), 1),
            GPUBLAS_STATUS_INVALID_POINTER
        );
        assert!(last().contains("y is null"), "{}", last());
        let odd = (dy as *mut u8).wrapping_add(2) as *mut f32;
        assert_eq!(
            gpublas_saxpy(c.h, 1, &alpha, dx, 1, odd, 1),
            GPUBLAS_STATUS_INVALID_POINTER
        );
        assert_eq!(
            gpublas_sgemm(
                c.h,
                0,
                GPUBLAS_OPERATION_NONE,
                2,
                2,
                2,
                &alpha,
                dx,
                2,
                dx,
                2,
                &alpha,
                dy,
                2
            ),
            GPUBLAS_STATUS_INVALID_VALUE
        );
        assert!(last().contains("transa = 0"), "{}", last());
        assert_eq!(
            gpublas_sgemm(
                c.h,
                GPUBLAS_OPERATION_NONE,
                GPUBLAS_OPERATION_NONE,
                2,
                2,
                2,
                &alpha,
                dx,
                1,
                dx,
                2,
                &alpha,
                dy,
                2
            ),
            GPUBLAS_STATUS_INVALID_SIZE
        );
        assert!(last().contains("lda"), "{}", last());
        assert_eq!(
            gpublas_saxpy(null_mut(), 4, &alpha, dx, 1, dy, 1),
            GPUBLAS_STATUS_INVALID_HANDLE
        );
        let mut r = 0.0f32;
        assert_eq!(
            gpublas_snrm2_batched(c.h, 4, std::ptr::null(), 1, 2, &mut r),
            GPUBLAS_STATUS_INVALID_POINTER
        );
        assert_eq!(
            gpublas_set_pointer_mode(c.h, 5),
            GPUBLAS_STATUS_INVALID_VALUE
        );
        let mut p = null_mut();
        assert_eq!(
            gpublas_free(c.h, 16 as *mut c_void),
            GPUBLAS_STATUS_INVALID_POINTER
        );
        assert_eq!(gpublas_malloc(c.h, 8, &mut p), 0);
        assert_eq!(gpublas_free(c.h, p), 0);
    }
    assert_eq!(
        c.down(dy, 4),
        y0.to_vec(),
        "y untouched by the failed calls"
    );
    // The routine table: every generated entry point is there (582, then 36 of Householder
    // QR: geqrf, orgqr/ungqr, ormqr/unmqr, then 36 of the LAPACK drivers: gesv, posv, getri,
    // then 48 of potri, Householder LQ (gelqf, ormlq/unmlq) and gels; four types, three forms
    // each).
    assert_eq!(GPUBLAS_ROUTINE_COUNT, 702);
}

/// The `_ex` routines through their type arguments: gemm_ex (f16 in, f32 out), dot_ex (bf16
/// in, f64 out), nrm2_ex (strided f32), trsm_ex with the inverse from trtri; bad type pairs.
fn f10_ex_routines(dev: &str) {
    let c = C::on(dev);
    let mut r = rng(6);
    // gemm_ex: small integers are exact in f16 and their products exact in f32.
    let (m, n, k) = (24usize, 17usize, 40usize);
    let ai: Vec<f64> = (0..m * k).map(|_| r.gen_range(-4..5) as f64).collect();
    let bi: Vec<f64> = (0..k * n).map(|_| r.gen_range(-4..5) as f64).collect();
    let ah: Vec<gpublas::f16> = ai.iter().map(|&v| gpublas::f16::from_f64(v)).collect();
    let bh: Vec<gpublas::f16> = bi.iter().map(|&v| gpublas::f16::from_f64(v)).collect();
    let (da, db, dc) = (c.up(&ah), c.up(&bh), c.up(&vec![9.0f32; m * n]));
    let (alpha, beta) = (1.0f32, 0.0f32);
    // SAFETY: device pointers spanning A (m × k), B (k × n), C (m × n).
    let s = unsafe {
        gpublas_gemm_ex(
            c.h,
            GPUBLAS_OPERATION_NONE,
            GPUBLAS_OPERATION_NONE,
            m as i64,
            n as i64,
            k as i64,
            &alpha as *const f32 as *const c_void,
            da as *const c_void,
            GPUBLAS_DATATYPE_F16_R,
            m as i64,
            db as *const c_void,
            GPUBLAS_DATATYPE_F16_R,
            k as i64,
            &beta as *const f32 as *const c_void,
            dc as *mut c_void,
            GPUBLAS_DATATYPE_F32_R,
            m as i64,
            GPUBLAS_COMPUTE_32F,
        )
    };
    assert_eq!(s, 0, "{}", last());
    let got = c.down(dc, m * n);
    for j in 0..n {
        for i in 0..m {
            let w: f64 = (0..k).map(|l| ai[i + l * m] * bi[l + j * k]).sum();
            assert_eq!(got[i + j * m] as f64, w, "gemm_ex ({i}, {j})");
        }
    }
    // SAFETY: as above, with a type pair gemm_ex does not have (f16 in, f64 out).
    let s = unsafe {
        gpublas_gemm_ex(
            c.h,
            GPUBLAS_OPERATION_NONE,
            GPUBLAS_OPERATION_NONE,
            m as i64,
            n as i64,
            k as i64,
            &alpha as *const f32 as *const c_void,
            da as *const c_void,
            GPUBLAS_DATATYPE_F16_R,
            m as i64,
            db as *const c_void,
            GPUBLAS_DATATYPE_F16_R,
            k as i64,
            &beta as *const f32 as *const c_void,
            dc as *mut c_void,
            GPUBLAS_DATATYPE_F64_R,
            m as i64,
            GPUBLAS_COMPUTE_32F,
        )
    };
    assert_eq!(s, GPUBLAS_STATUS_INVALID_VALUE);
    assert!(last().contains("c_type = 152"), "{}", last());

    // dot_ex, bf16 inputs with an f64 result.
    let xv: Vec<f64> = (0..1000).map(|_| r.gen_range(-8..9) as f64 / 4.0).collect();
    let yv: Vec<f64> = (0..1000).map(|_| r.gen_range(-8..9) as f64 / 4.0).collect();
    let xb: Vec<gpublas::bf16> = xv.iter().map(|&v| gpublas::bf16::from_f64(v)).collect();
    let yb: Vec<gpublas::bf16> = yv.iter().map(|&v| gpublas::bf16::from_f64(v)).collect();
    let (dx, dy) = (c.up(&xb), c.up(&yb));
    let mut res = 0.0f64;
    // SAFETY: two vectors of 1000; one host f64.
    let s = unsafe {
        gpublas_dot_ex(
            c.h,
            1000,
            dx as *const c_void,
            GPUBLAS_DATATYPE_BF16_R,
            1,
            dy as *const c_void,
            GPUBLAS_DATATYPE_BF16_R,
            1,
            &mut res as *mut f64 as *mut c_void,
            GPUBLAS_DATATYPE_F64_R,
        )
    };
    assert_eq!(s, 0, "{}", last());
    assert_eq!(res, xv.iter().zip(&yv).map(|(a, b)| a * b).sum::<f64>());

    // nrm2_ex, two f32 vectors of 3 at stride 5, f32 results.
    let v = [3.0f32, 4.0, 12.0, -1.0, -1.0, 1.0, 2.0, 2.0, -1.0, -1.0];
    let dv = c.up(&v);
    let mut norms = [0.0f32; 2];
    // SAFETY: 2 strided vectors within 10 elements; two host f32.
    let s = unsafe {
        gpublas_nrm2_ex_strided_batched(
            c.h,
            3,
            dv as *const c_void,
            GPUBLAS_DATATYPE_F32_R,
            1,
            5,
            2,
            norms.as_mut_ptr() as *mut c_void,
            GPUBLAS_DATATYPE_F32_R,
        )
    };
    assert_eq!(s, 0, "{}", last());
    assert_eq!(norms, [13.0, 3.0]);

    // trsm_ex with the inverse written by trtri equals trsm.
    let (nt, mt) = (70usize, 9usize);
    let mut a = rand_vec(&mut r, nt * nt);
    for i in 0..nt {
        a[i + i * nt] += 4.0;
    }
    let b = rand_vec(&mut r, mt * nt);
    let (da, dinv, db1, db2) = (c.up(&a), c.up(&vec![0.0f64; nt * nt]), c.up(&b), c.up(&b));
    let one = 1.0f64;
    // SAFETY: A and its inverse n × n, B m × n.
    unsafe {
        let s = gpublas_dtrtri(
            c.h,
            GPUBLAS_FILL_UPPER,
            GPUBLAS_DIAGONAL_NON_UNIT,
            nt as i64,
            da,
            nt as i64,
            dinv,
            nt as i64,
        );
        assert_eq!(s, 0, "{}", last());
        let s = gpublas_dtrsm(
            c.h,
            GPUBLAS_SIDE_RIGHT,
            GPUBLAS_FILL_UPPER,
            GPUBLAS_OPERATION_NONE,
            GPUBLAS_DIAGONAL_NON_UNIT,
            mt as i64,
            nt as i64,
            &one,
            da,
            nt as i64,
            db1,
            mt as i64,
        );
        assert_eq!(s, 0, "{}", last());
        let s = gpublas_dtrsm_ex(
            c.h,
            GPUBLAS_SIDE_RIGHT,
            GPUBLAS_FILL_UPPER,
            GPUBLAS_OPERATION_NONE,
            GPUBLAS_DIAGONAL_NON_UNIT,
            mt as i64,
            nt as i64,
            &one,
            da,
            nt as i64,
            db2,
            mt as i64,
            GPUBLAS_TRSM_METHOD_INVERSE,
            dinv,
            nt as i64,
        );
        assert_eq!(s, 0, "{}", last());
        let s = gpublas_dtrsm_ex(
            c.h,
            GPUBLAS_SIDE_RIGHT,
            GPUBLAS_FILL_UPPER,
            GPUBLAS_OPERATION_NONE,
            GPUBLAS_DIAGONAL_NON_UNIT,
            mt as i64,
            nt as i64,
            &one,
            da,
            nt as i64,
            db2,
            mt as i64,
            9,
            std::ptr::null(),
            0,
        );
        assert_eq!(s, GPUBLAS_STATUS_INVALID_VALUE);
    }
    let (x1, x2) = (c.down(db1, mt * nt), c.down(db2, mt * nt));
    for (p, q) in x1.iter().zip(&x2) {
        assert!((p - q).abs() < 1e-12 * p.abs().max(1.0), "{p} vs {q}");
    }
    // X A = B check for the trsm result.
    for i in 0..mt {
        for j in 0..nt {
            let s: f64 = (0..=j).map(|l| x1[i + l * mt] * a[l + j * nt]).sum();
            assert!((s - b[i + j * mt]).abs() < 1e-10, "({i}, {j})");
        }
    }
}

// ==== issue 27: zero dimensions and the triangle potrf must not reference ====================
//
// Reproductions of the reported failures: gemm with k = 0 and syr2k/her2k with k = 0 panicked
// at the C boundary on the host backend (a zero-length operand failed an aligned cast);
// dpotrf(LOWER) wrote into the strictly upper triangle. References are plain f64 loops.

fn z(x: f64, y: f64) -> gpublas_double_complex {
    gpublas_double_complex { x, y }
}

/// The bytes of a pointer array, as C would lay it out.
fn bytemuck_free_bytes(ptrs: &[*mut f64]) -> Vec<u8> {
    ptrs.iter()
        .flat_map(|p| (*p as usize as u64).to_ne_bytes())
        .collect()
}

/// Bit patterns, NaN payloads included.
fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// dgemm and zgemm with k = 0 (A and B null, then real empty allocations): C = beta C, with
/// ldc > m and its padding compared bit for bit; beta = 1 is a quick return; the strided form
/// with k = 0 as well.
fn m16_c_gemm_k0_is_beta_c(dev: &str) {
    let c = C::on(dev);
    let mut r = rng(2701);
    let (m, n, ldc) = (3usize, 2usize, 5usize);
    let c0: Vec<f64> = (0..ldc * n).map(|_| r.gen_range(-1.0..1.0)).collect();
    let empty = c.up(&[0.0f64; 1]);
    for (a_ptr, what) in [
        (std::ptr::null(), "null A, B"),
        (empty as *const f64, "allocated A, B"),
    ] {
        for beta in [0.5f64, 1.0, 0.0] {
            let dc = c.up(&c0);
            let (alpha, lda) = (2.0f64, m as i64);
            // SAFETY: A and B address nothing (k = 0); C spans ldc × n.
            let s = unsafe {
                gpublas_dgemm(
                    c.h,
                    GPUBLAS_OPERATION_NONE,
                    GPUBLAS_OPERATION_TRANSPOSE,
                    m as i64,
                    n as i64,
                    0,
                    &alpha,
                    a_ptr,
                    lda,
                    a_ptr,
                    n as i64,
                    &beta,
                    dc,
                    ldc as i64,
                )
            };
            assert_eq!(s, GPUBLAS_STATUS_SUCCESS, "dgemm k=0 {what}: {}", last());
            let got = c.down(dc, ldc * n);
            for (idx, (&g, &c0)) in got.iter().zip(&c0).enumerate() {
                let inside = idx % ldc < m;
                let want = match (inside, beta) {
                    (false, _) | (true, 1.0) => c0,
                    (true, 0.0) => 0.0,
                    _ => beta * c0,
                };
                assert_eq!(
                    g.to_bits(),
                    want.to_bits(),
                    "dgemm k=0 {what} beta={beta} [{idx}]"
                );
            }
        }
    }
    // The reported case: m = n = 1, k = 0, zgemm.
    let cz = [z(0.25, -0.5)];
    let dcz = c.up(&cz);
    let (alpha, beta) = (z(1.0, 0.0), z(0.0, 2.0));
    // SAFETY: A and B null with k = 0; C one element.
    let s = unsafe {
        gpublas_zgemm(
            c.h,
            GPUBLAS_OPERATION_NONE,
            GPUBLAS_OPERATION_NONE,
            1,
            1,
            0,
            &alpha,
            std::ptr::null(),
            1,
            std::ptr::null(),
            1,
            &beta,
            dcz,
            1,
        )
    };
    assert_eq!(s, GPUBLAS_STATUS_SUCCESS, "zgemm 1 1 0: {}", last());
    assert_eq!(c.down(dcz, 1), vec![z(1.0, 0.5)]);
    // Strided, three entries, k = 0: each C scaled, the gaps between entries untouched; A and
    // B null with strides that are not 0 (their entries address nothing, wherever they start).
    let (sc, batch) = (ldc * n + 3, 3usize);
    let cs: Vec<f64> = (0..sc * batch).map(|_| r.gen_range(-1.0..1.0)).collect();
    let dcs = c.up(&cs);
    let (alpha, beta) = (1.0f64, -2.0f64);
    // SAFETY: A and B address nothing; C spans the batch.
    let s = unsafe {
        gpublas_dgemm_strided_batched(
            c.h,
            GPUBLAS_OPERATION_NONE,
            GPUBLAS_OPERATION_NONE,
            m as i64,
            n as i64,
            0,
            &alpha,
            std::ptr::null(),
            m as i64,
            (4 * m) as i64,
            std::ptr::null(),
            1,
            5,
            &beta,
            dcs,
            ldc as i64,
            sc as i64,
            batch as i64,
        )
    };
    assert_eq!(
        s,
        GPUBLAS_STATUS_SUCCESS,
        "dgemm_strided_batched k=0: {}",
        last()
    );
    let got = c.down(dcs, sc * batch);
    for (idx, (&g, &c0)) in got.iter().zip(&cs).enumerate() {
        let off = idx % sc;
        let inside = off < ldc * n && off % ldc < m;
        let want = if inside { beta * c0 } else { c0 };
        assert_eq!(
            g.to_bits(),
            want.to_bits(),
            "dgemm_strided_batched k=0 [{idx}]"
        );
    }
    // Batched, k = 0: arrays of null A and B pointers; each C scaled. The same call with the C
    // pointer array at an unaligned address is InvalidPointer, and C is untouched.
    let cb: Vec<f64> = (0..ldc * n).map(|_| r.gen_range(-1.0..1.0)).collect();
    let (dc1, dc2) = (c.up(&cb), c.up(&cb));
    let nulls = [std::ptr::null::<f64>(); 2];
    let cs_ptrs = [dc1, dc2];
    let mut raw = [0u8; 32];
    let off = (8 - raw.as_ptr() as usize % 8) % 8 + 1;
    raw[off..off + 16].copy_from_slice(bytemuck_free_bytes(&cs_ptrs).as_slice());
    let (alpha, beta) = (1.0f64, 3.0f64);
    for unaligned in [true, false] {
        let cptrs = if unaligned {
            raw[off..].as_ptr() as *const *mut f64
        } else {
            cs_ptrs.as_ptr()
        };
        // SAFETY: arrays of two pointers (A and B null with k = 0, C each ldc × n); the
        // unaligned array is refused before it is read.
        let s = unsafe {
            gpublas_dgemm_batched(
                c.h,
                GPUBLAS_OPERATION_NONE,
                GPUBLAS_OPERATION_NONE,
                m as i64,
                n as i64,
                0,
                &alpha,
                nulls.as_ptr(),
                m as i64,
                nulls.as_ptr(),
                1,
                &beta,
                cptrs,
                ldc as i64,
                2,
            )
        };
        let want_status = if unaligned {
            GPUBLAS_STATUS_INVALID_POINTER
        } else {
            GPUBLAS_STATUS_SUCCESS
        };
        assert_eq!(
            s,
            want_status,
            "dgemm_batched k=0 unaligned={unaligned}: {}",
            last()
        );
        for p in [dc1, dc2] {
            let got = c.down(p, ldc * n);
            for (idx, (&g, &c0)) in got.iter().zip(&cb).enumerate() {
                let want = if !unaligned && idx % ldc < m {
                    beta * c0
                } else {
                    c0
                };
                assert_eq!(g.to_bits(), want.to_bits(), "dgemm_batched k=0 [{idx}]");
            }
        }
    }
}

/// dsyr2k and zher2k (and zherk) with k = 0: the `uplo` triangle becomes beta C, the other
/// triangle and the padding are untouched; her2k/herk make the diagonal real.
fn m16_c_syr2k_her2k_k0_is_beta_c(dev: &str) {
    let c = C::on(dev);
    let mut r = rng(2702);
    let (n, ldc) = (4usize, 6usize);
    for uplo in [GPUBLAS_FILL_LOWER, GPUBLAS_FILL_UPPER] {
        let stored = |i: usize, j: usize| {
            if uplo == GPUBLAS_FILL_LOWER {
                i >= j
            } else {
                i <= j
            }
        };
        // dsyr2k
        let c0: Vec<f64> = (0..ldc * n).map(|_| r.gen_range(-1.0..1.0)).collect();
        let dc = c.up(&c0);
        let (alpha, beta) = (1.5f64, -0.75f64);
        // SAFETY: A and B null with k = 0; C spans ldc × n.
        let s = unsafe {
            gpublas_dsyr2k(
                c.h,
                uplo,
                GPUBLAS_OPERATION_NONE,
                n as i64,
                0,
                &alpha,
                std::ptr::null(),
                n as i64,
                std::ptr::null(),
                n as i64,
                &beta,
                dc,
                ldc as i64,
            )
        };
        assert_eq!(s, GPUBLAS_STATUS_SUCCESS, "dsyr2k k=0: {}", last());
        let got = c.down(dc, ldc * n);
        for (idx, (&g, &c0)) in got.iter().zip(&c0).enumerate() {
            let (i, j) = (idx % ldc, idx / ldc);
            let want = if i < n && stored(i, j) { beta * c0 } else { c0 };
            assert_eq!(
                g.to_bits(),
                want.to_bits(),
                "dsyr2k k=0 uplo {uplo} ({i}, {j})"
            );
        }
        // zher2k, then zherk, on complex C with imaginary diagonals.
        for herk in [false, true] {
            let cz: Vec<gpublas_double_complex> = (0..ldc * n)
                .map(|_| z(r.gen_range(-1.0..1.0), r.gen_range(-1.0..1.0)))
                .collect();
            let dcz = c.up(&cz);
            let (alpha, beta) = (z(0.5, 0.25), 2.0f64);
            let ralpha = 0.5f64;
            // SAFETY: A and B null with k = 0; C spans ldc × n.
            let s = unsafe {
                if herk {
                    gpublas_zherk(
                        c.h,
                        uplo,
                        GPUBLAS_OPERATION_CONJUGATE_TRANSPOSE,
                        n as i64,
                        0,
                        &ralpha,
                        std::ptr::null(),
                        1,
                        &beta,
                        dcz,
                        ldc as i64,
                    )
                } else {
                    gpublas_zher2k(
                        c.h,
                        uplo,
                        GPUBLAS_OPERATION_NONE,
                        n as i64,
                        0,
                        &alpha,
                        std::ptr::null(),
                        n as i64,
                        std::ptr::null(),
                        n as i64,
                        &beta,
                        dcz,
                        ldc as i64,
                    )
                }
            };
            let what = if herk { "zherk" } else { "zher2k" };
            assert_eq!(s, GPUBLAS_STATUS_SUCCESS, "{what} k=0: {}", last());
            let got = c.down(dcz, ldc * n);
            for (idx, (g, c0)) in got.iter().zip(&cz).enumerate() {
                let (i, j) = (idx % ldc, idx / ldc);
                let want = if i < n && stored(i, j) {
                    z(beta * c0.x, if i == j { 0.0 } else { beta * c0.y })
                } else {
                    *c0
                };
                assert_eq!(
                    (g.x.to_bits(), g.y.to_bits()),
                    (want.x.to_bits(), want.y.to_bits()),
                    "{what} k=0 uplo {uplo} ({i}, {j})"
                );
            }
        }
    }
}

/// The reported dpotrf(LOWER, n = 3, lda = 3) with 9s in the strictly upper part, then
/// dpotrf/zpotrf of order 70 (blocked) with lda > n, both triangles: the factor matches an f64
/// Cholesky and the unreferenced triangle and padding are bit-identical.
fn f3_c_potrf_leaves_other_triangle_untouched(dev: &str) {
    let c = C::on(dev);
    // The report's case.
    let a = [4.0f64, 2.0, 1.0, 9.0, 5.0, 3.5, 9.0, 9.0, 14.0];
    let (da, dinfo) = (c.up(&a), c.up(&[-1i32]));
    // SAFETY: A spans 3 × 3; one device info.
    let s = unsafe { gpublas_dpotrf(c.h, GPUBLAS_FILL_LOWER, 3, da, 3, dinfo) };
    assert_eq!(s, GPUBLAS_STATUS_SUCCESS, "{}", last());
    assert_eq!(c.down(dinfo, 1), vec![0]);
    let got = c.down(da, 9);
    assert_eq!(
        (got[3], got[6], got[7]),
        (9.0, 9.0, 9.0),
        "upper part written: {got:?}"
    );
    let want = [2.0, 1.0, 0.5, 2.0, 1.5, 11.5f64.sqrt()];
    let lower = [got[0], got[1], got[2], got[4], got[5], got[8]];
    for (g, w) in lower.iter().zip(&want) {
        assert!((g - w).abs() < 1e-14, "factor {lower:?}, want {want:?}");
    }

    // Order 70 at lda 73: a random SPD matrix, the other triangle and padding poisoned.
    let mut r = rng(2703);
    let (n, lda) = (70usize, 73usize);
    for uplo in [GPUBLAS_FILL_LOWER, GPUBLAS_FILL_UPPER] {
        let lower = uplo == GPUBLAS_FILL_LOWER;
        let stored = |i: usize, j: usize| if lower { i >= j } else { i <= j };
        // A = G Gᵀ + n I, real; the complex one adds a skew-symmetric imaginary part.
        let g: Vec<f64> = (0..n * n).map(|_| r.gen_range(-1.0..1.0)).collect();
        let h: Vec<f64> = (0..n * n).map(|_| r.gen_range(-1.0..1.0)).collect();
        let mut ar = vec![0.0f64; n * n];
        let mut ai = vec![0.0f64; n * n];
        for i in 0..n {
            for j in 0..n {
                ar[i + j * n] = (0..n).map(|k| g[i + k * n] * g[j + k * n]).sum::<f64>()
                    + if i == j { n as f64 } else { 0.0 };
                ai[i + j * n] = if i == j {
                    0.0
                } else {
                    h[i + j * n] - h[j + i * n]
                };
            }
        }
        let poison = |r: &mut rand::rngs::StdRng| 9.0 + r.gen_range(0.0..1.0);
        let mut real = vec![0.0f64; lda * n];
        let mut cplx = vec![z(0.0, 0.0); lda * n];
        for j in 0..n {
            for i in 0..lda {
                let (x, y) = if i < n && stored(i, j) {
                    (ar[i + j * n], ai[i + j * n])
                } else {
                    (poison(&mut r), -poison(&mut r))
                };
                real[i + j * lda] = x;
                cplx[i + j * lda] = z(x, y);
            }
        }
        let (dr, dz, dinfo) = (c.up(&real), c.up(&cplx), c.up(&[-1i32, -1]));
        // SAFETY: A spans lda × n; two device infos.
        unsafe {
            let s = gpublas_dpotrf(c.h, uplo, n as i64, dr, lda as i64, dinfo);
            assert_eq!(s, GPUBLAS_STATUS_SUCCESS, "{}", last());
            let s = gpublas_zpotrf(c.h, uplo, n as i64, dz, lda as i64, dinfo.add(1));
            assert_eq!(s, GPUBLAS_STATUS_SUCCESS, "{}", last());
        }
        assert_eq!(c.down(dinfo, 2), vec![0, 0]);
        let (fr, fz) = (c.down(dr, lda * n), c.down(dz, lda * n));
        // Outside the stored triangle: bit-identical.
        for j in 0..n {
            for i in 0..lda {
                if i < n && stored(i, j) {
                    continue;
                }
                let at = i + j * lda;
                assert_eq!(
                    fr[at].to_bits(),
                    real[at].to_bits(),
                    "dpotrf uplo {uplo} ({i}, {j})"
                );
                assert_eq!(
                    bits(&[fz[at].x, fz[at].y]),
                    bits(&[cplx[at].x, cplx[at].y]),
                    "zpotrf uplo {uplo} ({i}, {j})"
                );
            }
        }
        // The factor: L Lᴴ (lower) or Uᴴ U (upper) equals A, in f64.
        let l = |f: &dyn Fn(usize) -> (f64, f64), i: usize, j: usize| -> (f64, f64) {
            // Entry (i, j) of the lower factor L (L = Uᴴ for upper).
            if lower {
                if i >= j {
                    f(i + j * lda)
                } else {
                    (0.0, 0.0)
                }
            } else if i >= j {
                let (x, y) = f(j + i * lda);
                (x, -y)
            } else {
                (0.0, 0.0)
            }
        };
        let real_at = |at: usize| (fr[at], 0.0);
        let cplx_at = |at: usize| (fz[at].x, fz[at].y);
        for (name, f) in [
            ("dpotrf", &real_at as &dyn Fn(usize) -> (f64, f64)),
            ("zpotrf", &cplx_at),
        ] {
            let mut worst = 0.0f64;
            for i in 0..n {
                for j in 0..n {
                    let mut s = (0.0, 0.0);
                    for k in 0..=i.min(j) {
                        let (p, q) = (l(f, i, k), l(f, j, k));
                        // L(i, k) conj(L(j, k))
                        s.0 += p.0 * q.0 + p.1 * q.1;
                        s.1 += p.1 * q.0 - p.0 * q.1;
                    }
                    let want = (
                        ar[i + j * n],
                        if name == "dpotrf" { 0.0 } else { ai[i + j * n] },
                    );
                    worst = worst.max((s.0 - want.0).abs() + (s.1 - want.1).abs());
                }
            }
            assert!(
                worst < 1e-10 * n as f64,
                "{name} uplo {uplo}: |L Lᴴ - A| = {worst}"
            );
        }
    }
}

macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod host {
            $( #[test] fn $name() { super::$name("host") } )*
        }
        mod cuda {
            $(
                #[test]
                #[ignore = "needs a CUDA GPU; run with --include-ignored on a GPU machine"]
                fn $name() { super::$name("cuda") }
            )*
        }
    };
}

on_both_backends!(
    f10_dgemm_strided_batched,
    f10_zgemv_batched,
    f10_dtrsm_and_band_packed,
    f10_band_packed_products_and_solves,
    f6_solver_through_c,
    f6_level1_pointer_modes,
    m9_query_null_pointers_then_preallocate,
    f7_bad_arguments,
    f10_ex_routines,
    m16_c_gemm_k0_is_beta_c,
    m16_c_syr2k_her2k_k0_is_beta_c,
    f3_c_potrf_leaves_other_triangle_untouched,
    f1_rank_updates_through_c,
    f6_qr_real_through_c,
    f6_qr_complex_through_c,
    f7_qr_bad_arguments_and_query,
    f6_drivers_real_through_c,
    f6_drivers_complex_through_c,
    f7_drivers_bad_arguments_and_query,
    f6_least_squares_real_through_c,
    f6_least_squares_complex_through_c,
    f7_least_squares_bad_arguments_and_query,
);
