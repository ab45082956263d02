//! The LAPACK routines gpublas has, for s, d, c, z: LU (`getrf`, `getrs`, `gesv`) and
//! Cholesky (`potrf`, `potrs`, `posv`). Arguments are checked in LAPACK's order: the first
//! illegal one sets `INFO = -position` and goes to `xerbla` under the routine's name
//! (`DGETRF`, unpadded, as LAPACK passes it), and nothing else is touched. `INFO > 0` has
//! LAPACK's meaning (a zero pivot, a minor that is not positive definite).

use std::ffi::c_char;

use gpublas::{solver, Complex32, Complex64, Op, Results, Scalar, Uplo};

use crate::args::{first_illegal, op, uplo, work};
use crate::context::{run_placed, Family};
use crate::ffi::{host_slice_mut, option, read, xerbla, Int};

/// LAPACK's argument check: the first of `checks` (`(illegal, position)`, in the routine's
/// order) that holds sets `*info = -position` and is reported; returns whether the call is
/// legal (then `*info = 0`).
pub(crate) fn legal(routine: &str, checks: &[(bool, Int)], info: &mut Int) -> bool {
    let position = first_illegal(checks);
    *info = -position.unwrap_or(0);
    if let Some(p) = position {
        xerbla(routine, p);
    }
    position.is_none()
}

/// Work and traffic of an `m × n` LU factorization (LAPACK's operation count).
fn getrf_work<T: Scalar>(m: Int, n: Int) -> (f64, f64) {
    let (m, n) = (m as f64, n as f64);
    let k = m.min(n);
    work::<T>(
        2.0 * (m * n * k - (m + n) * k * k / 2.0 + k * k * k / 3.0),
        m * n,
    )
}

/// Work and traffic of a Cholesky factorization of order `n`.
fn potrf_work<T: Scalar>(n: Int) -> (f64, f64) {
    let n = n as f64;
    work::<T>(n * n * n / 3.0, n * n)
}

/// Work and traffic of the two triangular solves with `nrhs` right-hand sides of order `n`.
fn solve_work<T: Scalar>(n: Int, nrhs: Int) -> (f64, f64) {
    let (n, r) = (n as f64, nrhs as f64);
    work::<T>(2.0 * n * n * r, n * n + n * r)
}

/// `max(1, n)`, LAPACK's least leading dimension.
pub(crate) fn least(n: Int) -> Int {
    n.max(1)
}

/// LU factorization with partial pivoting of an `m × n` matrix (`?getrf`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn getrf<T: Scalar>(
    routine: &str,
    m: Int,
    n: Int,
    a: *mut T,
    lda: Int,
    ipiv: *mut Int,
    info: &mut Int,
) {
    if !legal(
        routine,
        &[(m < 0, 1), (n < 0, 2), (lda < least(m), 4)],
        info,
    ) || m == 0
        || n == 0
    {
        return;
    }
    let got = run_placed(routine, Family::Lu, getrf_work::<T>(m, n), |h, st| {
        let mut ab = st.input(h, a, (m, n, lda))?;
        // SAFETY: IPIV holds min(m, n) integers; nothing else touches them during the call.
        let pivots = unsafe { host_slice_mut(ipiv, m.min(n) as usize) };
        let mut res = [0];
        let (mm, nn) = (m as usize, n as usize);
        let (piv, inf) = (Results::Host(pivots), Results::Host(&mut res));
        let _ = solver::getrf(h, mm, nn, &mut ab.buf, ab.ld, piv, inf)?;
        st.back(h, &ab, a, (m, n, lda))?;
        Ok(res[0])
    });
    *info = got.unwrap_or(0);
}

/// Solves `op(A) X = B` with `getrf`'s factors (`?getrs`; TRANS `C` of a real matrix is `T`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn getrs<T: Scalar>(
    routine: &str,
    trans: u8,
    n: Int,
    nrhs: Int,
    a: *const T,
    lda: Int,
    ipiv: *const Int,
    b: *mut T,
    ldb: Int,
    info: &mut Int,
) {
    let o = op(trans);
    let checks = [
        (o.is_none(), 1),
        (n < 0, 2),
        (nrhs < 0, 3),
        (lda < least(n), 5),
        (ldb < least(n), 8),
    ];
    if !legal(routine, &checks, info) || n == 0 || nrhs == 0 {
        return;
    }
    let o = match o {
        Some(Op::C) if !T::COMPLEX => Op::T,
        Some(o) => o,
        None => return,
    };
    let _ = run_placed(routine, Family::Solve, solve_work::<T>(n, nrhs), |h, st| {
        let ab = st.input(h, a, (n, n, lda))?;
        let pb = st.input(h, ipiv, (n, 1, n))?;
        let mut bb = st.input(h, b, (n, nrhs, ldb))?;
        let (nn, nr) = (n as usize, nrhs as usize);
        let _ = solver::getrs(h, o, nn, nr, &ab.buf, ab.ld, &pb.buf, &mut bb.buf, bb.ld)?;
        st.back(h, &bb, b, (n, nrhs, ldb))
    });
}

/// Solves `A X = B` by LU (`?gesv`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn gesv<T: Scalar>(
    routine: &str,
    n: Int,
    nrhs: Int,
    a: *mut T,
    lda: Int,
    ipiv: *mut Int,
    b: *mut T,
    ldb: Int,
    info: &mut Int,
) {
    let checks = [
        (n < 0, 1),
        (nrhs < 0, 2),
        (lda < least(n), 4),
        (ldb < least(n), 7),
    ];
    if !legal(routine, &checks, info) || n == 0 {
        return;
    }
    let (f, fb) = getrf_work::<T>(n, n);
    let (s, sb) = solve_work::<T>(n, nrhs);
    let got = run_placed(routine, Family::Lu, (f + s, fb + sb), |h, st| {
        let mut ab = st.input(h, a, (n, n, lda))?;
        let mut pb = st.output(ipiv, (n, 1, n))?;
        let mut bb = st.input(h, b, (n, nrhs, ldb))?;
        let mut res = [0];
        let (nn, nr, inf) = (n as usize, nrhs as usize, Results::Host(&mut res));
        let (a_ld, b_ld) = (ab.ld, bb.ld);
        let _ = solver::gesv(
            h,
            nn,
            nr,
            &mut ab.buf,
            a_ld,
            &mut pb.buf,
            &mut bb.buf,
            b_ld,
            inf,
        )?;
        st.back(h, &ab, a, (n, n, lda))?;
        st.back(h, &pb, ipiv, (n, 1, n))?;
        st.back(h, &bb, b, (n, nrhs, ldb))?;
        Ok(res[0])
    });
    *info = got.unwrap_or(0);
}

/// The argument checks `potrs` and `posv` share (their positions are the same).
fn cholesky_solve_checks(
    u: Option<Uplo>,
    n: Int,
    nrhs: Int,
    lda: Int,
    ldb: Int,
) -> [(bool, Int); 5] {
    [
        (u.is_none(), 1),
        (n < 0, 2),
        (nrhs < 0, 3),
        (lda < least(n), 5),
        (ldb < least(n), 7),
    ]
}

/// Cholesky factorization of a Hermitian positive definite matrix (`?potrf`).
pub(crate) fn potrf<T: Scalar>(
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
    let u = u.unwrap_or(Uplo::Upper);
    let got = run_placed(routine, Family::Cholesky, potrf_work::<T>(n), |h, st| {
        let mut ab = st.input(h, a, (n, n, lda))?;
        let mut res = [0];
        let _ = solver::potrf(
            h,
            u,
            n as usize,
            &mut ab.buf,
            ab.ld,
            Results::Host(&mut res),
        )?;
        st.back(h, &ab, a, (n, n, lda))?;
        Ok(res[0])
    });
    *info = got.unwrap_or(0);
}

/// Solves `A X = B` with `potrf`'s factor (`?potrs`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn potrs<T: Scalar>(
    routine: &str,
    uplo_c: u8,
    n: Int,
    nrhs: Int,
    a: *const T,
    lda: Int,
    b: *mut T,
    ldb: Int,
    info: &mut Int,
) {
    let u = uplo(uplo_c);
    let checks = cholesky_solve_checks(u, n, nrhs, lda, ldb);
    if !legal(routine, &checks, info) || n == 0 || nrhs == 0 {
        return;
    }
    let u = u.unwrap_or(Uplo::Upper);
    let _ = run_placed(routine, Family::Solve, solve_work::<T>(n, nrhs), |h, st| {
        let ab = st.input(h, a, (n, n, lda))?;
        let mut bb = st.input(h, b, (n, nrhs, ldb))?;
        let (nn, nr) = (n as usize, nrhs as usize);
        let _ = solver::potrs(h, u, nn, nr, &ab.buf, ab.ld, &mut bb.buf, bb.ld)?;
        st.back(h, &bb, b, (n, nrhs, ldb))
    });
}

/// Solves `A X = B` by Cholesky (`?posv`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn posv<T: Scalar>(
    routine: &str,
    uplo_c: u8,
    n: Int,
    nrhs: Int,
    a: *mut T,
    lda: Int,
    b: *mut T,
    ldb: Int,
    info: &mut Int,
) {
    let u = uplo(uplo_c);
    let checks = cholesky_solve_checks(u, n, nrhs, lda, ldb);
    if !legal(routine, &checks, info) || n == 0 {
        return;
    }
    let u = u.unwrap_or(Uplo::Upper);
    let (f, fb) = potrf_work::<T>(n);
    let (s, sb) = solve_work::<T>(n, nrhs);
    let got = run_placed(routine, Family::Cholesky, (f + s, fb + sb), |h, st| {
        let mut ab = st.input(h, a, (n, n, lda))?;
        let mut bb = st.input(h, b, (n, nrhs, ldb))?;
        let mut res = [0];
        let (nn, nr, inf) = (n as usize, nrhs as usize, Results::Host(&mut res));
        let (a_ld, b_ld) = (ab.ld, bb.ld);
        let _ = solver::posv(h, u, nn, nr, &mut ab.buf, a_ld, &mut bb.buf, b_ld, inf)?;
        st.back(h, &ab, a, (n, n, lda))?;
        st.back(h, &bb, b, (n, nrhs, ldb))?;
        Ok(res[0])
    });
    *info = got.unwrap_or(0);
}

// ---- the exports ------------------------------------------------------------------------

/// Exports the six routines for one type, with the names LAPACK passes to `xerbla`.
macro_rules! lapack_exports {
    ($t:ty, $getrf:ident, $getrs:ident, $gesv:ident, $potrf:ident, $potrs:ident, $posv:ident,
     [$n_getrf:literal, $n_getrs:literal, $n_gesv:literal, $n_potrf:literal, $n_potrs:literal, $n_posv:literal]) => {
        #[doc = concat!("LAPACK `", stringify!($getrf), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the LAPACK interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $getrf(
            m: *const Int,
            n: *const Int,
            a: *mut $t,
            lda: *const Int,
            ipiv: *mut Int,
            info: *mut Int,
        ) {
            // SAFETY: scalar arguments and INFO by reference.
            unsafe { getrf::<$t>($n_getrf, read(m), read(n), a, read(lda), ipiv, &mut *info) }
        }

        #[doc = concat!("LAPACK `", stringify!($getrs), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the LAPACK interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $getrs(
            trans: *const c_char,
            n: *const Int,
            nrhs: *const Int,
            a: *const $t,
            lda: *const Int,
            ipiv: *const Int,
            b: *mut $t,
            ldb: *const Int,
            info: *mut Int,
        ) {
            // SAFETY: scalar arguments and INFO by reference.
            unsafe {
                let (t, n, nrhs, lda, ldb) =
                    (option(trans), read(n), read(nrhs), read(lda), read(ldb));
                getrs::<$t>($n_getrs, t, n, nrhs, a, lda, ipiv, b, ldb, &mut *info)
            }
        }

        #[doc = concat!("LAPACK `", stringify!($gesv), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the LAPACK interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $gesv(
            n: *const Int,
            nrhs: *const Int,
            a: *mut $t,
            lda: *const Int,
            ipiv: *mut Int,
            b: *mut $t,
            ldb: *const Int,
            info: *mut Int,
        ) {
            // SAFETY: scalar arguments and INFO by reference.
            unsafe {
                let (n, nrhs, lda, ldb) = (read(n), read(nrhs), read(lda), read(ldb));
                gesv::<$t>($n_gesv, n, nrhs, a, lda, ipiv, b, ldb, &mut *info)
            }
        }

        #[doc = concat!("LAPACK `", stringify!($potrf), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the LAPACK interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $potrf(
            uplo: *const c_char,
            n: *const Int,
            a: *mut $t,
            lda: *const Int,
            info: *mut Int,
        ) {
            // SAFETY: scalar arguments and INFO by reference.
            unsafe { potrf::<$t>($n_potrf, option(uplo), read(n), a, read(lda), &mut *info) }
        }

        #[doc = concat!("LAPACK `", stringify!($potrs), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the LAPACK interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $potrs(
            uplo: *const c_char,
            n: *const Int,
            nrhs: *const Int,
            a: *const $t,
            lda: *const Int,
            b: *mut $t,
            ldb: *const Int,
            info: *mut Int,
        ) {
            // SAFETY: scalar arguments and INFO by reference.
            unsafe {
                let (u, n, nrhs, lda, ldb) =
                    (option(uplo), read(n), read(nrhs), read(lda), read(ldb));
                potrs::<$t>($n_potrs, u, n, nrhs, a, lda, b, ldb, &mut *info)
            }
        }

        #[doc = concat!("LAPACK `", stringify!($posv), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the LAPACK interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $posv(
            uplo: *const c_char,
            n: *const Int,
            nrhs: *const Int,
            a: *mut $t,
            lda: *const Int,
            b: *mut $t,
            ldb: *const Int,
            info: *mut Int,
        ) {
            // SAFETY: scalar arguments and INFO by reference.
            unsafe {
                let (u, n, nrhs, lda, ldb) =
                    (option(uplo), read(n), read(nrhs), read(lda), read(ldb));
                posv::<$t>($n_posv, u, n, nrhs, a, lda, b, ldb, &mut *info)
            }
        }
    };
}
lapack_exports!(
    f32,
    sgetrf_,
    sgetrs_,
    sgesv_,
    spotrf_,
    spotrs_,
    sposv_,
    ["SGETRF", "SGETRS", "SGESV", "SPOTRF", "SPOTRS", "SPOSV"]
);
lapack_exports!(
    f64,
    dgetrf_,
    dgetrs_,
    dgesv_,
    dpotrf_,
    dpotrs_,
    dposv_,
    ["DGETRF", "DGETRS", "DGESV", "DPOTRF", "DPOTRS", "DPOSV"]
);
lapack_exports!(
    Complex32,
    cgetrf_,
    cgetrs_,
    cgesv_,
    cpotrf_,
    cpotrs_,
    cposv_,
    ["CGETRF", "CGETRS", "CGESV", "CPOTRF", "CPOTRS", "CPOSV"]
);
lapack_exports!(
    Complex64,
    zgetrf_,
    zgetrs_,
    zgesv_,
    zpotrf_,
    zpotrs_,
    zposv_,
    ["ZGETRF", "ZGETRS", "ZGESV", "ZPOTRF", "ZPOTRS", "ZPOSV"]
);
