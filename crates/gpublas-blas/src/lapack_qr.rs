//! The Householder routines of LAPACK gpublas has, for s, d, c, z: QR (`geqrf`, `orgqr` /
//! `ungqr`, `ormqr` / `unmqr`), LQ (`gelqf`, `ormlq` / `unmlq`), the least-squares driver
//! `gels`, and the inverses from LU and Cholesky factors (`getri`, `potri`). Arguments are
//! checked in LAPACK's order, as in `lapack`: the first illegal one sets `INFO = -position`
//! and goes to `xerbla` under the routine's name (`DGEQRF`, unpadded), and nothing else is
//! touched. `INFO > 0` has LAPACK's meaning (a zero diagonal element).
//!
//! Workspace: gpublas takes its scratch from the handle, so WORK is never read or written
//! except by a query. `LWORK = -1` writes the least LWORK LAPACK accepts into `WORK(1)` (a
//! real value of the element type) and returns with `INFO = 0`; an LWORK below that least
//! value (and not `-1`) is an illegal argument at LWORK's position, as LAPACK checks it.
//! Quick returns are LAPACK's (`WORK(1) = 1` where LAPACK's quick return writes it).

use std::ffi::c_char;

use gpublas::{solver, Complex32, Complex64, Op, RealScalar, Results, Scalar, Side, Uplo};

use crate::args::{mat_len, side, uplo, work};
use crate::context::{run_placed, Family};
use crate::ffi::{host_slice, host_slice_mut, option, read, Int};
use crate::lapack::{least, legal};

/// `WORK(1) = value`, as LAPACK writes a workspace size (a query's answer, a quick return's 1).
fn set_work<T: Scalar>(work: *mut T, value: Int) {
    // SAFETY: WORK holds at least one element (its dimension is max(1, LWORK)); nothing else
    // touches it during the call. A null WORK gives an empty slice: nothing is written.
    let w = unsafe { host_slice_mut(work, 1) };
    if let Some(w) = w.first_mut() {
        *w = T::from_real(<T::Real as RealScalar>::from_f64(f64::from(value)));
    }
}

/// TRANS of a routine applying `Q` (`ormqr`, `ormlq`, `gels`): `N`, or `T` for a real type and
/// `C` for a complex one (LAPACK's `dormqr` refuses `C`, `zunmqr` refuses `T`).
fn trans_q<T: Scalar>(c: u8) -> Option<Op> {
    match (c, T::COMPLEX) {
        (b'N', _) => Some(Op::N),
        (b'T', false) => Some(Op::T),
        (b'C', true) => Some(Op::C),
        _ => None,
    }
}

/// The first exactly zero element of the diagonal of the order-`n` matrix at `a` (1-based),
/// 0 if none: LAPACK's `trtri` returns that index before it touches the matrix.
fn zero_diagonal<T: Scalar>(a: *const T, n: Int, lda: Int) -> Int {
    // SAFETY: A holds the n × n matrix (lda checked); it is only read, and nothing writes it
    // while the slice lives.
    let s = unsafe { host_slice(a, mat_len(n, n, lda)) };
    let ld = lda.max(1) as usize;
    (0..n.max(0) as usize)
        .find(|&i| s.get(i * ld + i).is_some_and(|x| *x == T::zero()))
        .map_or(0, |i| i as Int + 1)
}

/// Whether every element of the `m × n` matrix at `a` is zero (LAPACK's `gels` returns the
/// zero solution then, without factoring). Stops at the first nonzero element.
fn all_zero<T: Scalar>(a: *const T, m: Int, n: Int, lda: Int) -> bool {
    // SAFETY: A holds the m × n matrix (lda checked); it is only read, and nothing writes it
    // while the slice lives.
    let s = unsafe { host_slice(a, mat_len(m, n, lda)) };
    // Column j is the first m elements of the j-th chunk (the last chunk has just those).
    let (m, ld) = (m.max(0) as usize, lda.max(1) as usize);
    s.chunks(ld)
        .all(|col| col.iter().take(m).all(|x| *x == T::zero()))
}

/// Sets the `rows × cols` matrix at `b` to zero (LAPACK's `dlaset` of `gels`'s quick return).
fn set_zero<T: Scalar>(b: *mut T, rows: Int, cols: Int, ldb: Int) {
    // SAFETY: B holds the rows × cols matrix (ldb checked); nothing else touches it during
    // the call.
    let s = unsafe { host_slice_mut(b, mat_len(rows, cols, ldb)) };
    let (rows, ld) = (rows.max(0) as usize, ldb.max(1) as usize);
    for col in s.chunks_mut(ld) {
        let r = rows.min(col.len());
        col[..r].fill(T::zero());
    }
}

// ---- operation counts (LAPACK's, real multiply-adds as two) -----------------------------

/// Work of a QR or LQ factorization of an `m × n` matrix: `2k²(max(m, n) − k/3)`,
/// `k = min(m, n)`.
fn factor_flops(m: Int, n: Int) -> f64 {
    let (m, n) = (m as f64, n as f64);
    let k = m.min(n);
    2.0 * k * k * (m.max(n) - k / 3.0)
}

/// Work and traffic of a QR or LQ factorization (`A` and `tau`).
fn factor_work<T: Scalar>(m: Int, n: Int) -> (f64, f64) {
    let k = m.min(n) as f64;
    work::<T>(factor_flops(m, n), (m as f64) * (n as f64) + k)
}

/// Work and traffic of `orgqr` (`m × n` from `k` reflectors): `4mnk − 2(m + n)k² + 4k³/3`.
fn orgqr_work<T: Scalar>(m: Int, n: Int, k: Int) -> (f64, f64) {
    let (m, n, k) = (m as f64, n as f64, k as f64);
    let flops = 4.0 * m * n * k - 2.0 * (m + n) * k * k + 4.0 * k * k * k / 3.0;
    work::<T>(flops, m * n + k)
}

/// Work of applying `k` reflectors of order `nq` to an `m × n` matrix from the left (`nq = m`,
/// `4mnk − 2nk²`) or the right (`nq = n`, `4mnk − 2mk²`).
fn apply_flops(left: bool, m: Int, n: Int, k: Int) -> f64 {
    let (m, n, k) = (m as f64, n as f64, k as f64);
    let other = if left { n } else { m };
    4.0 * m * n * k - 2.0 * other * k * k
}

/// Work and traffic of `ormqr` / `ormlq` (`A`'s `nq × k` reflectors, `tau`, `C`).
fn apply_work<T: Scalar>(left: bool, m: Int, n: Int, k: Int) -> (f64, f64) {
    let nq = if left { m } else { n } as f64;
    let (mf, nf, kf) = (m as f64, n as f64, k as f64);
    work::<T>(apply_flops(left, m, n, k), nq * kf + kf + mf * nf)
}

/// Work and traffic of `gels`: the factorization, `Q` applied to the `max(m, n) × nrhs`
/// right-hand sides, and the triangular solve.
fn gels_work<T: Scalar>(m: Int, n: Int, nrhs: Int) -> (f64, f64) {
    let (k, rows) = (m.min(n), m.max(n));
    let (kf, r) = (k as f64, nrhs as f64);
    let flops = factor_flops(m, n) + apply_flops(true, rows, nrhs, k) + kf * kf * r;
    work::<T>(flops, (m as f64) * (n as f64) + (rows as f64) * r)
}

/// Work and traffic of `getri` (`4n³/3`; `A` and the pivots).
fn getri_work<T: Scalar>(n: Int) -> (f64, f64) {
    let n = n as f64;
    work::<T>(4.0 * n * n * n / 3.0, n * n + n)
}

/// Work and traffic of `potri` (`2n³/3`; `A`).
fn potri_work<T: Scalar>(n: Int) -> (f64, f64) {
    let n = n as f64;
    work::<T>(2.0 * n * n * n / 3.0, n * n)
}

// ---- the routines -------------------------------------------------------------------------

/// QR (`?geqrf`, `lq` false) or LQ (`?gelqf`, `lq` true) factorization of an `m × n` matrix.
/// Their least LWORK differs as LAPACK's: `geqrf` needs `max(1, N)` when `M > 0`, else 1;
/// `gelqf` needs `max(1, M)`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn factor<T: Scalar>(
    routine: &str,
    lq: bool,
    m: Int,
    n: Int,
    a: *mut T,
    lda: Int,
    tau: *mut T,
    work: *mut T,
    lwork: Int,
    info: &mut Int,
) {
    let query = lwork == -1;
    let need = match (lq, m > 0) {
        (true, _) => least(m),
        (false, true) => least(n),
        (false, false) => 1,
    };
    let checks = [
        (m < 0, 1),
        (n < 0, 2),
        (lda < least(m), 4),
        (lwork < need && !query, 7),
    ];
    if !legal(routine, &checks, info) {
        return;
    }
    if query {
        set_work(work, need);
        return;
    }
    let k = m.min(n);
    if k == 0 {
        set_work(work, 1);
        return;
    }
    let factor = if lq {
        solver::gelqf::<T>
    } else {
        solver::geqrf::<T>
    };
    let _ = run_placed(routine, Family::Qr, factor_work::<T>(m, n), |h, st| {
        let mut ab = st.input(h, a, (m, n, lda))?;
        let mut tb = st.output(tau, (k, 1, k))?;
        let (mm, nn, ld) = (m as usize, n as usize, ab.ld);
        let _ = factor(h, mm, nn, &mut ab.buf, ld, &mut tb.buf)?;
        st.back(h, &ab, a, (m, n, lda))?;
        st.back(h, &tb, tau, (k, 1, k))
    });
}

/// The first `n` columns of `Q` from `geqrf`'s `k` reflectors (`?orgqr`, `?ungqr`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn orgqr<T: Scalar>(
    routine: &str,
    m: Int,
    n: Int,
    k: Int,
    a: *mut T,
    lda: Int,
    tau: *const T,
    work: *mut T,
    lwork: Int,
    info: &mut Int,
) {
    let query = lwork == -1;
    let checks = [
        (m < 0, 1),
        (n < 0 || n > m, 2),
        (k < 0 || k > n, 3),
        (lda < least(m), 5),
        (lwork < least(n) && !query, 8),
    ];
    if !legal(routine, &checks, info) {
        return;
    }
    if query {
        set_work(work, least(n));
        return;
    }
    if n == 0 {
        set_work(work, 1);
        return;
    }
    let _ = run_placed(routine, Family::Qr, orgqr_work::<T>(m, n, k), |h, st| {
        let mut ab = st.input(h, a, (m, n, lda))?;
        let tb = st.input(h, tau, (k, 1, k))?;
        let (mm, nn, kk, ld) = (m as usize, n as usize, k as usize, ab.ld);
        let _ = solver::orgqr(h, mm, nn, kk, &mut ab.buf, ld, &tb.buf)?;
        st.back(h, &ab, a, (m, n, lda))
    });
}

/// `C := op(Q) C` or `C op(Q)` with `geqrf`'s (`?ormqr`, `?unmqr`; `lq` false: `A` holds the
/// reflectors in `nq × k` columns) or `gelqf`'s (`?ormlq`, `?unmlq`; `lq` true: in `k × nq`
/// rows) `Q`, without forming it.
#[allow(clippy::too_many_arguments)]
pub(crate) fn apply<T: Scalar>(
    routine: &str,
    lq: bool,
    (side_c, trans_c): (u8, u8),
    (m, n, k): (Int, Int, Int),
    (a, lda): (*const T, Int),
    tau: *const T,
    (c, ldc): (*mut T, Int),
    (work, lwork): (*mut T, Int),
    info: &mut Int,
) {
    let (s, o, query) = (side(side_c), trans_q::<T>(trans_c), lwork == -1);
    let left = s == Some(Side::Left);
    let (nq, nw) = if left { (m, least(n)) } else { (n, least(m)) };
    let a_rows = if lq { k } else { nq };
    let checks = [
        (s.is_none(), 1),
        (o.is_none(), 2),
        (m < 0, 3),
        (n < 0, 4),
        (k < 0 || k > nq, 5),
        (lda < least(a_rows), 7),
        (ldc < least(m), 10),
        (lwork < nw && !query, 12),
    ];
    if !legal(routine, &checks, info) {
        return;
    }
    if query {
        set_work(work, nw);
        return;
    }
    if m == 0 || n == 0 || k == 0 {
        set_work(work, 1);
        return;
    }
    let (Some(s), Some(o)) = (s, o) else { return };
    let a_shape = if lq { (k, nq, lda) } else { (nq, k, lda) };
    let multiply = if lq {
        solver::ormlq::<T>
    } else {
        solver::ormqr::<T>
    };
    let _ = run_placed(
        routine,
        Family::Qr,
        apply_work::<T>(left, m, n, k),
        |h, st| {
            let ab = st.input(h, a, a_shape)?;
            let tb = st.input(h, tau, (k, 1, k))?;
            let mut cb = st.input(h, c, (m, n, ldc))?;
            let (mm, nn, kk) = (m as usize, n as usize, k as usize);
            let (a_ld, c_ld) = (ab.ld, cb.ld);
            let _ = multiply(
                h,
                s,
                o,
                mm,
                nn,
                kk,
                &ab.buf,
                a_ld,
                &tb.buf,
                &mut cb.buf,
                c_ld,
            )?;
            st.back(h, &cb, c, (m, n, ldc))
        },
    );
}

/// Least squares or least norm by QR or LQ (`?gels`). As LAPACK: a matrix of zeros gives the
/// zero solution without a factorization; `INFO = i > 0` for an exactly zero `i`-th diagonal
/// element of the triangle.
pub(crate) fn gels<T: Scalar>(
    routine: &str,
    trans_c: u8,
    (m, n, nrhs): (Int, Int, Int),
    (a, lda): (*mut T, Int),
    (b, ldb): (*mut T, Int),
    (work, lwork): (*mut T, Int),
    info: &mut Int,
) {
    let (o, query) = (trans_q::<T>(trans_c), lwork == -1);
    let mn = m.min(n);
    let need = least(mn + mn.max(nrhs));
    let checks = [
        (o.is_none(), 1),
        (m < 0, 2),
        (n < 0, 3),
        (nrhs < 0, 4),
        (lda < least(m), 6),
        (ldb < least(m.max(n)), 8),
        (lwork < need && !query, 10),
    ];
    if !legal(routine, &checks, info) {
        return;
    }
    if query {
        set_work(work, need);
        return;
    }
    let rows = m.max(n);
    if mn == 0 || nrhs == 0 || all_zero(a, m, n, lda) {
        set_zero(b, rows, nrhs, ldb);
        return;
    }
    let Some(o) = o else { return };
    let got = run_placed(routine, Family::Qr, gels_work::<T>(m, n, nrhs), |h, st| {
        let mut ab = st.input(h, a, (m, n, lda))?;
        let mut bb = st.input(h, b, (rows, nrhs, ldb))?;
        let mut res = [0];
        let (mm, nn, nr) = (m as usize, n as usize, nrhs as usize);
        let (a_ld, b_ld, inf) = (ab.ld, bb.ld, Results::Host(&mut res));
        let _ = solver::gels(h, o, mm, nn, nr, &mut ab.buf, a_ld, &mut bb.buf, b_ld, inf)?;
        st.back(h, &ab, a, (m, n, lda))?;
        st.back(h, &bb, b, (rows, nrhs, ldb))?;
        Ok(res[0])
    });
    *info = got.unwrap_or(0);
}

/// The inverse of a general matrix from `getrf`'s factors and pivots (`?getri`). As LAPACK:
/// an exactly zero `U(i, i)` sets `INFO = i` and leaves `A` as it was.
#[allow(clippy::too_many_arguments)]
pub(crate) fn getri<T: Scalar>(
    routine: &str,
    n: Int,
    a: *mut T,
    lda: Int,
    ipiv: *const Int,
    work: *mut T,
    lwork: Int,
    info: &mut Int,
) {
    let query = lwork == -1;
    let checks = [
        (n < 0, 1),
        (lda < least(n), 3),
        (lwork < least(n) && !query, 6),
    ];
    if !legal(routine, &checks, info) {
        return;
    }
    if query {
        set_work(work, least(n));
        return;
    }
    if n == 0 {
        return;
    }
    *info = zero_diagonal(a, n, lda);
    if *info > 0 {
        return;
    }
    let got = run_placed(routine, Family::Inverse, getri_work::<T>(n), |h, st| {
        let mut ab = st.input(h, a, (n, n, lda))?;
        let pb = st.input(h, ipiv, (n, 1, n))?;
        let mut res = [0];
        let (ld, inf) = (ab.ld, Results::Host(&mut res));
        let _ = solver::getri(h, n as usize, &mut ab.buf, ld, &pb.buf, inf)?;
        st.back(h, &ab, a, (n, n, lda))?;
        Ok(res[0])
    });
    *info = got.unwrap_or(0);
}

/// The inverse of a Hermitian positive definite matrix from `potrf`'s factor (`?potri`). As
/// LAPACK: an exactly zero diagonal element `i` of the factor sets `INFO = i` and leaves `A`
/// as it was.
pub(crate) fn potri<T: Scalar>(
    routine: &str,
    uplo_c: u8,
    n: Int,
    a: *mut T,
    lda: Int,
    info: &mut Int,
) {
    let u = uplo(uplo_c);
    let checks = [(u.is_none(), 1), (n < 0, 2), (lda < least(n), 4)];
    if !legal(routine, &checks, info) || n == 0 {
        return;
    }
    *info = zero_diagonal(a, n, lda);
    if *info > 0 {
        return;
    }
    let u = u.unwrap_or(Uplo::Upper);
    let got = run_placed(routine, Family::Inverse, potri_work::<T>(n), |h, st| {
        let mut ab = st.input(h, a, (n, n, lda))?;
        let mut res = [0];
        let (ld, inf) = (ab.ld, Results::Host(&mut res));
        let _ = solver::potri(h, u, n as usize, &mut ab.buf, ld, inf)?;
        st.back(h, &ab, a, (n, n, lda))?;
        Ok(res[0])
    });
    *info = got.unwrap_or(0);
}

// ---- the exports ------------------------------------------------------------------------

/// One factorization export: `geqrf` (`lq == false`) or `gelqf`.
macro_rules! factor_export {
    ($t:ty, $name:ident, $routine:literal, $lq:literal) => {
        #[doc = concat!("LAPACK `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the LAPACK interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            m: *const Int,
            n: *const Int,
            a: *mut $t,
            lda: *const Int,
            tau: *mut $t,
            work: *mut $t,
            lwork: *const Int,
            info: *mut Int,
        ) {
            // SAFETY: scalar arguments and INFO by reference.
            unsafe {
                let (m, n, lda, lwork) = (read(m), read(n), read(lda), read(lwork));
                factor::<$t>($routine, $lq, m, n, a, lda, tau, work, lwork, &mut *info)
            }
        }
    };
}

/// One export applying Q: `ormqr`/`unmqr` (`lq == false`) or `ormlq`/`unmlq`.
macro_rules! apply_export {
    ($t:ty, $name:ident, $routine:literal, $lq:literal) => {
        #[doc = concat!("LAPACK `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the LAPACK interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            side: *const c_char,
            trans: *const c_char,
            m: *const Int,
            n: *const Int,
            k: *const Int,
            a: *const $t,
            lda: *const Int,
            tau: *const $t,
            c: *mut $t,
            ldc: *const Int,
            work: *mut $t,
            lwork: *const Int,
            info: *mut Int,
        ) {
            // SAFETY: scalar arguments and INFO by reference.
            unsafe {
                let opts = (option(side), option(trans));
                let dims = (read(m), read(n), read(k));
                let (a, c, w) = ((a, read(lda)), (c, read(ldc)), (work, read(lwork)));
                apply::<$t>($routine, $lq, opts, dims, a, tau, c, w, &mut *info)
            }
        }
    };
}

/// Exports the eight routines for one type (`orgqr`/`ormqr`/`ormlq` under their complex names
/// `ungqr`/`unmqr`/`unmlq` for c, z), with the names LAPACK passes to `xerbla`.
macro_rules! qr_exports {
    ($t:ty, $geqrf:ident, $orgqr:ident, $ormqr:ident, $gelqf:ident, $ormlq:ident, $gels:ident,
     $getri:ident, $potri:ident,
     [$n_geqrf:literal, $n_orgqr:literal, $n_ormqr:literal, $n_gelqf:literal,
      $n_ormlq:literal, $n_gels:literal, $n_getri:literal, $n_potri:literal]) => {
        factor_export!($t, $geqrf, $n_geqrf, false);
        factor_export!($t, $gelqf, $n_gelqf, true);
        apply_export!($t, $ormqr, $n_ormqr, false);
        apply_export!($t, $ormlq, $n_ormlq, true);

        #[doc = concat!("LAPACK `", stringify!($orgqr), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the LAPACK interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $orgqr(
            m: *const Int,
            n: *const Int,
            k: *const Int,
            a: *mut $t,
            lda: *const Int,
            tau: *const $t,
            work: *mut $t,
            lwork: *const Int,
            info: *mut Int,
        ) {
            // SAFETY: scalar arguments and INFO by reference.
            unsafe {
                let (m, n, k, lda, lwork) = (read(m), read(n), read(k), read(lda), read(lwork));
                orgqr::<$t>($n_orgqr, m, n, k, a, lda, tau, work, lwork, &mut *info)
            }
        }

        #[doc = concat!("LAPACK `", stringify!($gels), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the LAPACK interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $gels(
            trans: *const c_char,
            m: *const Int,
            n: *const Int,
            nrhs: *const Int,
            a: *mut $t,
            lda: *const Int,
            b: *mut $t,
            ldb: *const Int,
            work: *mut $t,
            lwork: *const Int,
            info: *mut Int,
        ) {
            // SAFETY: scalar arguments and INFO by reference.
            unsafe {
                let dims = (read(m), read(n), read(nrhs));
                let (a, b, w) = ((a, read(lda)), (b, read(ldb)), (work, read(lwork)));
                gels::<$t>($n_gels, option(trans), dims, a, b, w, &mut *info)
            }
        }

        #[doc = concat!("LAPACK `", stringify!($getri), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the LAPACK interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $getri(
            n: *const Int,
            a: *mut $t,
            lda: *const Int,
            ipiv: *const Int,
            work: *mut $t,
            lwork: *const Int,
            info: *mut Int,
        ) {
            // SAFETY: scalar arguments and INFO by reference.
            unsafe {
                let (n, lda, lwork) = (read(n), read(lda), read(lwork));
                getri::<$t>($n_getri, n, a, lda, ipiv, work, lwork, &mut *info)
            }
        }

        #[doc = concat!("LAPACK `", stringify!($potri), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the LAPACK interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $potri(
            uplo: *const c_char,
            n: *const Int,
            a: *mut $t,
            lda: *const Int,
            info: *mut Int,
        ) {
            // SAFETY: scalar arguments and INFO by reference.
            unsafe { potri::<$t>($n_potri, option(uplo), read(n), a, read(lda), &mut *info) }
        }
    };
}
qr_exports!(
    f32,
    sgeqrf_,
    sorgqr_,
    sormqr_,
    sgelqf_,
    sormlq_,
    sgels_,
    sgetri_,
    spotri_,
    ["SGEQRF", "SORGQR", "SORMQR", "SGELQF", "SORMLQ", "SGELS", "SGETRI", "SPOTRI"]
);
qr_exports!(
    f64,
    dgeqrf_,
    dorgqr_,
    dormqr_,
    dgelqf_,
    dormlq_,
    dgels_,
    dgetri_,
    dpotri_,
    ["DGEQRF", "DORGQR", "DORMQR", "DGELQF", "DORMLQ", "DGELS", "DGETRI", "DPOTRI"]
);
qr_exports!(
    Complex32,
    cgeqrf_,
    cungqr_,
    cunmqr_,
    cgelqf_,
    cunmlq_,
    cgels_,
    cgetri_,
    cpotri_,
    ["CGEQRF", "CUNGQR", "CUNMQR", "CGELQF", "CUNMLQ", "CGELS", "CGETRI", "CPOTRI"]
);
qr_exports!(
    Complex64,
    zgeqrf_,
    zungqr_,
    zunmqr_,
    zgelqf_,
    zunmlq_,
    zgels_,
    zgetri_,
    zpotri_,
    ["ZGEQRF", "ZUNGQR", "ZUNMQR", "ZGELQF", "ZUNMLQ", "ZGELS", "ZGETRI", "ZPOTRI"]
);
