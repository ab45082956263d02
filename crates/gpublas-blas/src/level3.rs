//! Level 3: the reference BLAS matrix-matrix routines for s, d, c, z (`gemm`, `symm`, `syrk`,
//! `syr2k`, `trmm`, `trsm`, and the complex `hemm`, `herk`, `her2k`), each a thin export over
//! one generic function per shape that checks the arguments in reference BLAS's order, returns
//! at once where reference BLAS does, and lends the caller's matrices to gpublas (which keeps
//! reference BLAS's meaning of `alpha == 0` and `beta == 0`). `trmm` and `trsm` overwrite `B`
//! in place, as gpublas's own `trmm` and `trsm` do.

use std::ffi::c_char;

use gpublas::{
    blas3, Coef, Complex32, Complex64, ComplexScalar, DeviceBuffer, Error, Handle, Op, Scalar,
    Side, Status, Uplo,
};

use crate::args::{diag, legal, op, side, uplo, work};
use crate::context::{run_placed, Family};
use crate::ffi::{option, read, Int};

/// TRANS of a rank-k update: `op(c)` if `c` is one of `allowed`.
fn trans_of(c: u8, allowed: &[u8]) -> Option<Op> {
    if allowed.contains(&c) {
        op(c)
    } else {
        None
    }
}

/// `C = alpha op(A) op(B) + beta C` (`?gemm`; real types read TRANS = `C` as `T`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm<T: Scalar>(
    routine: &str,
    (transa, transb): (u8, u8),
    (m, n, k): (Int, Int, Int),
    alpha: T,
    (a, lda): (*const T, Int),
    (b, ldb): (*const T, Int),
    beta: T,
    (c, ldc): (*mut T, Int),
) {
    let (opa, opb) = (op(transa), op(transb));
    let nota = opa == Some(Op::N);
    let notb = opb == Some(Op::N);
    let (nrowa, ka) = if nota { (m, k) } else { (k, m) };
    let (nrowb, kb) = if notb { (k, n) } else { (n, k) };
    if !legal(
        routine,
        &[
            (opa.is_none(), 1),
            (opb.is_none(), 2),
            (m < 0, 3),
            (n < 0, 4),
            (k < 0, 5),
            (lda < nrowa.max(1), 8),
            (ldb < nrowb.max(1), 10),
            (ldc < m.max(1), 13),
        ],
    ) {
        return;
    }
    let (Some(opa), Some(opb)) = (opa, opb) else {
        return;
    };
    if m == 0 || n == 0 || ((alpha == T::zero() || k == 0) && beta == T::one()) {
        return;
    }
    let flops = work::<T>(
        2.0 * m as f64 * n as f64 * k as f64,
        nrowa as f64 * ka as f64 + nrowb as f64 * kb as f64 + m as f64 * n as f64,
    );
    let _ = run_placed(routine, Family::Product, flops, |h, st| {
        let ab = st.input(h, a, (nrowa, ka, lda))?;
        let bb = st.input(h, b, (nrowb, kb, ldb))?;
        // beta == 0: C is only written (reference BLAS does not read it).
        let mut cb = if beta == T::zero() {
            st.output(c, (m, n, ldc))?
        } else {
            st.input(h, c, (m, n, ldc))?
        };
        let (mu, nu, ku) = (m as usize, n as usize, k as usize);
        let (al, be) = (Coef::Host(alpha), Coef::Host(beta));
        let (a, b) = ((&ab.buf, ab.ld), (&bb.buf, bb.ld));
        let _ = blas3::gemm(
            h,
            opa,
            opb,
            mu,
            nu,
            ku,
            al,
            a.0,
            a.1,
            b.0,
            b.1,
            be,
            &mut cb.buf,
            cb.ld,
        )?;
        st.back(h, &cb, c, (m, n, ldc))
    });
}

/// The checks of `symm` and `hemm`: SIDE, UPLO and the order of `A`, or `None` after an
/// illegal argument.
fn symm_args(
    routine: &str,
    (side_c, uplo_c): (u8, u8),
    (m, n): (Int, Int),
    (lda, ldb, ldc): (Int, Int, Int),
) -> Option<(Side, Uplo, Int)> {
    let (s, u) = (side(side_c), uplo(uplo_c));
    let nrowa = if s == Some(Side::Left) { m } else { n };
    if !legal(
        routine,
        &[
            (s.is_none(), 1),
            (u.is_none(), 2),
            (m < 0, 3),
            (n < 0, 4),
            (lda < nrowa.max(1), 7),
            (ldb < m.max(1), 9),
            (ldc < m.max(1), 12),
        ],
    ) {
        return None;
    }
    Some((s?, u?, nrowa))
}

/// gpublas's `symm` or `hemm`.
type SymmetricProduct<T> = fn(
    &mut Handle,
    Side,
    Uplo,
    usize,
    usize,
    Coef<'_, T>,
    &DeviceBuffer<T>,
    usize,
    &DeviceBuffer<T>,
    usize,
    Coef<'_, T>,
    &mut DeviceBuffer<T>,
    usize,
) -> Result<Status, Error>;

/// `C = alpha A B + beta C` or `alpha B A + beta C`, `A` symmetric (`?symm`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn symm<T: Scalar>(
    routine: &str,
    options: (u8, u8),
    (m, n): (Int, Int),
    alpha: T,
    a: (*const T, Int),
    b: (*const T, Int),
    beta: T,
    c: (*mut T, Int),
) {
    let product: SymmetricProduct<T> = blas3::symm::<T>;
    symmetric(routine, product, options, (m, n), alpha, a, b, beta, c)
}

/// `?hemm`: [`symm`] with `A` Hermitian.
#[allow(clippy::too_many_arguments)]
pub(crate) fn hemm<T: ComplexScalar>(
    routine: &str,
    options: (u8, u8),
    (m, n): (Int, Int),
    alpha: T,
    a: (*const T, Int),
    b: (*const T, Int),
    beta: T,
    c: (*mut T, Int),
) {
    let product: SymmetricProduct<T> = blas3::hemm::<T>;
    symmetric(routine, product, options, (m, n), alpha, a, b, beta, c)
}

/// `symm` and `hemm`, given gpublas's routine.
#[allow(clippy::too_many_arguments)]
fn symmetric<T: Scalar>(
    routine: &str,
    product: SymmetricProduct<T>,
    options: (u8, u8),
    (m, n): (Int, Int),
    alpha: T,
    (a, lda): (*const T, Int),
    (b, ldb): (*const T, Int),
    beta: T,
    (c, ldc): (*mut T, Int),
) {
    let Some((s, u, nrowa)) = symm_args(routine, options, (m, n), (lda, ldb, ldc)) else {
        return;
    };
    if m == 0 || n == 0 || (alpha == T::zero() && beta == T::one()) {
        return;
    }
    let flops = work::<T>(
        2.0 * m as f64 * n as f64 * nrowa as f64,
        nrowa as f64 * nrowa as f64 + 2.0 * m as f64 * n as f64,
    );
    let _ = run_placed(routine, Family::Product, flops, |h, st| {
        let ab = st.input(h, a, (nrowa, nrowa, lda))?;
        let bb = st.input(h, b, (m, n, ldb))?;
        let mut cb = if beta == T::zero() {
            st.output(c, (m, n, ldc))?
        } else {
            st.input(h, c, (m, n, ldc))?
        };
        let (mu, nu) = (m as usize, n as usize);
        let (al, be) = (Coef::Host(alpha), Coef::Host(beta));
        let (a, b) = ((&ab.buf, ab.ld), (&bb.buf, bb.ld));
        let _ = product(
            h,
            s,
            u,
            mu,
            nu,
            al,
            a.0,
            a.1,
            b.0,
            b.1,
            be,
            &mut cb.buf,
            cb.ld,
        )?;
        st.back(h, &cb, c, (m, n, ldc))
    });
}

/// The checks of the rank-k and rank-2k updates: UPLO, TRANS (one of `allowed`), the rows
/// and columns `A` (and `B`) are declared with, or `None` after an illegal argument. `ldb` is
/// `Some` for the rank-2k updates (positions 9 and 12 for LDB and LDC, else LDC is 10).
#[allow(clippy::too_many_arguments)]
fn rank_args(
    routine: &str,
    allowed: &[u8],
    (uplo_c, trans_c): (u8, u8),
    (n, k): (Int, Int),
    lda: Int,
    ldb: Option<Int>,
    ldc: Int,
) -> Option<(Uplo, Op, Int, Int)> {
    let (u, t) = (uplo(uplo_c), trans_of(trans_c, allowed));
    let (nrowa, ka) = if trans_c == b'N' { (n, k) } else { (k, n) };
    let ldc_pos = if ldb.is_some() { 12 } else { 10 };
    if !legal(
        routine,
        &[
            (u.is_none(), 1),
            (t.is_none(), 2),
            (n < 0, 3),
            (k < 0, 4),
            (lda < nrowa.max(1), 7),
            (ldb.is_some_and(|ldb| ldb < nrowa.max(1)), 9),
            (ldc < n.max(1), ldc_pos),
        ],
    ) {
        return None;
    }
    Some((u?, t?, nrowa, ka))
}

/// gpublas's `syrk` (`S = T`) or `herk` (`S` real).
type RankK<T, S> = fn(
    &mut Handle,
    Uplo,
    Op,
    usize,
    usize,
    Coef<'_, S>,
    &DeviceBuffer<T>,
    usize,
    Coef<'_, S>,
    &mut DeviceBuffer<T>,
    usize,
) -> Result<Status, Error>;

/// gpublas's `syr2k` (`B = T`) or `her2k` (`B` real): `beta` of type `B`.
type Rank2K<T, B> = fn(
    &mut Handle,
    Uplo,
    Op,
    usize,
    usize,
    Coef<'_, T>,
    &DeviceBuffer<T>,
    usize,
    &DeviceBuffer<T>,
    usize,
    Coef<'_, B>,
    &mut DeviceBuffer<T>,
    usize,
) -> Result<Status, Error>;

/// `C = alpha op(A) op(A)ᵀ + beta C` on a triangle (`?syrk`; TRANS `N`, `T`, and for real
/// types `C`).
pub(crate) fn syrk<T: Scalar>(
    routine: &str,
    options: (u8, u8),
    sizes: (Int, Int),
    alpha: T,
    a: (*const T, Int),
    beta: T,
    c: (*mut T, Int),
) {
    let allowed: &[u8] = if T::COMPLEX { b"NT" } else { b"NTC" };
    let update: RankK<T, T> = blas3::syrk::<T>;
    rank_k(routine, update, allowed, options, sizes, alpha, a, beta, c)
}

/// `C = alpha op(A) op(A)ᴴ + beta C` on a triangle, `alpha` and `beta` real (`?herk`; TRANS
/// `N` or `C`).
pub(crate) fn herk<T: ComplexScalar>(
    routine: &str,
    options: (u8, u8),
    sizes: (Int, Int),
    alpha: T::Real,
    a: (*const T, Int),
    beta: T::Real,
    c: (*mut T, Int),
) {
    let update: RankK<T, T::Real> = blas3::herk::<T>;
    rank_k(routine, update, b"NC", options, sizes, alpha, a, beta, c)
}

/// `syrk` and `herk`, given gpublas's routine and the TRANS letters it accepts.
#[allow(clippy::too_many_arguments)]
fn rank_k<T: Scalar, S: Scalar>(
    routine: &str,
    update: RankK<T, S>,
    allowed: &[u8],
    options: (u8, u8),
    (n, k): (Int, Int),
    alpha: S,
    (a, lda): (*const T, Int),
    beta: S,
    (c, ldc): (*mut T, Int),
) {
    let Some((u, t, nrowa, ka)) = rank_args(routine, allowed, options, (n, k), lda, None, ldc)
    else {
        return;
    };
    if n == 0 || ((alpha == S::zero() || k == 0) && beta == S::one()) {
        return;
    }
    let flops = work::<T>(
        n as f64 * n as f64 * k as f64,
        nrowa as f64 * ka as f64 + n as f64 * n as f64,
    );
    let _ = run_placed(routine, Family::Product, flops, |h, st| {
        let ab = st.input(h, a, (nrowa, ka, lda))?;
        // C always goes in: only one triangle is written, the other must come back unchanged.
        let mut cb = st.input(h, c, (n, n, ldc))?;
        let (nu, ku) = (n as usize, k as usize);
        let (al, be) = (Coef::Host(alpha), Coef::Host(beta));
        let _ = update(h, u, t, nu, ku, al, &ab.buf, ab.ld, be, &mut cb.buf, cb.ld)?;
        st.back(h, &cb, c, (n, n, ldc))
    });
}

/// `C = alpha op(A) op(B)ᵀ + alpha op(B) op(A)ᵀ + beta C` on a triangle (`?syr2k`; TRANS `N`,
/// `T`, and for real types `C`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn syr2k<T: Scalar>(
    routine: &str,
    options: (u8, u8),
    sizes: (Int, Int),
    alpha: T,
    a: (*const T, Int),
    b: (*const T, Int),
    beta: T,
    c: (*mut T, Int),
) {
    let allowed: &[u8] = if T::COMPLEX { b"NT" } else { b"NTC" };
    let update: Rank2K<T, T> = blas3::syr2k::<T>;
    rank_2k(
        routine, update, allowed, options, sizes, alpha, a, b, beta, c,
    )
}

/// `C = alpha op(A) op(B)ᴴ + conj(alpha) op(B) op(A)ᴴ + beta C` on a triangle, `beta` real
/// (`?her2k`; TRANS `N` or `C`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn her2k<T: ComplexScalar>(
    routine: &str,
    options: (u8, u8),
    sizes: (Int, Int),
    alpha: T,
    a: (*const T, Int),
    b: (*const T, Int),
    beta: T::Real,
    c: (*mut T, Int),
) {
    let update: Rank2K<T, T::Real> = blas3::her2k::<T>;
    rank_2k(routine, update, b"NC", options, sizes, alpha, a, b, beta, c)
}

/// `syr2k` and `her2k`, given gpublas's routine and the TRANS letters it accepts.
#[allow(clippy::too_many_arguments)]
fn rank_2k<T: Scalar, B: Scalar>(
    routine: &str,
    update: Rank2K<T, B>,
    allowed: &[u8],
    options: (u8, u8),
    (n, k): (Int, Int),
    alpha: T,
    (a, lda): (*const T, Int),
    (b, ldb): (*const T, Int),
    beta: B,
    (c, ldc): (*mut T, Int),
) {
    let ldbs = Some(ldb);
    let Some((u, t, nrowa, ka)) = rank_args(routine, allowed, options, (n, k), lda, ldbs, ldc)
    else {
        return;
    };
    if n == 0 || ((alpha == T::zero() || k == 0) && beta == B::one()) {
        return;
    }
    let flops = work::<T>(
        2.0 * n as f64 * n as f64 * k as f64,
        2.0 * nrowa as f64 * ka as f64 + n as f64 * n as f64,
    );
    let _ = run_placed(routine, Family::Product, flops, |h, st| {
        let ab = st.input(h, a, (nrowa, ka, lda))?;
        let bb = st.input(h, b, (nrowa, ka, ldb))?;
        // C always goes in: only one triangle is written, the other must come back unchanged.
        let mut cb = st.input(h, c, (n, n, ldc))?;
        let (nu, ku) = (n as usize, k as usize);
        let (al, be) = (Coef::Host(alpha), Coef::Host(beta));
        let (a, b) = ((&ab.buf, ab.ld), (&bb.buf, bb.ld));
        let _ = update(
            h,
            u,
            t,
            nu,
            ku,
            al,
            a.0,
            a.1,
            b.0,
            b.1,
            be,
            &mut cb.buf,
            cb.ld,
        )?;
        st.back(h, &cb, c, (n, n, ldc))
    });
}

/// `trmm` (`solve == false`: `B = alpha op(A) B` or `alpha B op(A)`) and `trsm` (`solve`:
/// `op(A) X = alpha B` or `X op(A) = alpha B`, `X` over `B`), `A` triangular, `B` overwritten
/// in place.
#[allow(clippy::too_many_arguments)]
pub(crate) fn triangular<T: Scalar>(
    routine: &str,
    solve: bool,
    (side_c, uplo_c, trans_c, diag_c): (u8, u8, u8, u8),
    (m, n): (Int, Int),
    alpha: T,
    (a, lda): (*const T, Int),
    (b, ldb): (*mut T, Int),
) {
    let (s, u, t, d) = (side(side_c), uplo(uplo_c), op(trans_c), diag(diag_c));
    let nrowa = if s == Some(Side::Left) { m } else { n };
    if !legal(
        routine,
        &[
            (s.is_none(), 1),
            (u.is_none(), 2),
            (t.is_none(), 3),
            (d.is_none(), 4),
            (m < 0, 5),
            (n < 0, 6),
            (lda < nrowa.max(1), 9),
            (ldb < m.max(1), 11),
        ],
    ) {
        return;
    }
    let (Some(s), Some(u), Some(t), Some(d)) = (s, u, t, d) else {
        return;
    };
    if m == 0 || n == 0 {
        return;
    }
    let flops = work::<T>(
        m as f64 * n as f64 * nrowa as f64,
        nrowa as f64 * nrowa as f64 + m as f64 * n as f64,
    );
    let _ = run_placed(
        routine,
        if solve {
            Family::Solve
        } else {
            Family::Product
        },
        flops,
        |h, st| {
            let ab = st.input(h, a, (nrowa, nrowa, lda))?;
            let mut bb = st.input(h, b, (m, n, ldb))?;
            let (mu, nu, al) = (m as usize, n as usize, Coef::Host(alpha));
            let _ = if solve {
                blas3::trsm(
                    h,
                    s,
                    u,
                    t,
                    d,
                    mu,
                    nu,
                    al,
                    &ab.buf,
                    ab.ld,
                    &mut bb.buf,
                    bb.ld,
                )?
            } else {
                blas3::trmm(
                    h,
                    s,
                    u,
                    t,
                    d,
                    mu,
                    nu,
                    al,
                    &ab.buf,
                    ab.ld,
                    &mut bb.buf,
                    bb.ld,
                )?
            };
            st.back(h, &bb, b, (m, n, ldb))
        },
    );
}

// ---- the exports ------------------------------------------------------------------------

/// Exports `gemm`.
macro_rules! gemms {
    ($($name:ident: $t:ty, $routine:literal;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            transa: *const c_char,
            transb: *const c_char,
            m: *const Int,
            n: *const Int,
            k: *const Int,
            alpha: *const $t,
            a: *const $t,
            lda: *const Int,
            b: *const $t,
            ldb: *const Int,
            beta: *const $t,
            c: *mut $t,
            ldc: *const Int,
        ) {
            // SAFETY: options and scalar arguments by reference.
            let (ta, tb, m, n, k, alpha, lda, ldb, beta, ldc) = unsafe {
                (
                    option(transa),
                    option(transb),
                    read(m),
                    read(n),
                    read(k),
                    read(alpha),
                    read(lda),
                    read(ldb),
                    read(beta),
                    read(ldc),
                )
            };
            gemm::<$t>($routine, (ta, tb), (m, n, k), alpha, (a, lda), (b, ldb), beta, (c, ldc))
        }
    )*};
}
gemms! {
    sgemm_: f32, "SGEMM ";
    dgemm_: f64, "DGEMM ";
    cgemm_: Complex32, "CGEMM ";
    zgemm_: Complex64, "ZGEMM ";
}

/// Exports `symm` and `hemm` (`$f`: the generic function).
macro_rules! symms {
    ($($name:ident: $t:ty, $routine:literal, $f:ident;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            side: *const c_char,
            uplo: *const c_char,
            m: *const Int,
            n: *const Int,
            alpha: *const $t,
            a: *const $t,
            lda: *const Int,
            b: *const $t,
            ldb: *const Int,
            beta: *const $t,
            c: *mut $t,
            ldc: *const Int,
        ) {
            // SAFETY: options and scalar arguments by reference.
            let (s, u, m, n, alpha, lda, ldb, beta, ldc) = unsafe {
                (
                    option(side),
                    option(uplo),
                    read(m),
                    read(n),
                    read(alpha),
                    read(lda),
                    read(ldb),
                    read(beta),
                    read(ldc),
                )
            };
            $f::<$t>(
                $routine,
                (s, u),
                (m, n),
                alpha,
                (a, lda),
                (b, ldb),
                beta,
                (c, ldc),
            )
        }
    )*};
}
symms! {
    ssymm_: f32, "SSYMM ", symm;
    dsymm_: f64, "DSYMM ", symm;
    csymm_: Complex32, "CSYMM ", symm;
    zsymm_: Complex64, "ZSYMM ", symm;
    chemm_: Complex32, "CHEMM ", hemm;
    zhemm_: Complex64, "ZHEMM ", hemm;
}

/// Exports `syrk` and `herk` (`$s`: the type of `alpha` and `beta`).
macro_rules! rank_ks {
    ($($name:ident: $t:ty, $s:ty, $routine:literal, $f:ident;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            uplo: *const c_char,
            trans: *const c_char,
            n: *const Int,
            k: *const Int,
            alpha: *const $s,
            a: *const $t,
            lda: *const Int,
            beta: *const $s,
            c: *mut $t,
            ldc: *const Int,
        ) {
            // SAFETY: options and scalar arguments by reference.
            let (u, t, n, k, alpha, lda, beta, ldc) = unsafe {
                (
                    option(uplo),
                    option(trans),
                    read(n),
                    read(k),
                    read(alpha),
                    read(lda),
                    read(beta),
                    read(ldc),
                )
            };
            $f::<$t>($routine, (u, t), (n, k), alpha, (a, lda), beta, (c, ldc))
        }
    )*};
}
rank_ks! {
    ssyrk_: f32, f32, "SSYRK ", syrk;
    dsyrk_: f64, f64, "DSYRK ", syrk;
    csyrk_: Complex32, Complex32, "CSYRK ", syrk;
    zsyrk_: Complex64, Complex64, "ZSYRK ", syrk;
    cherk_: Complex32, f32, "CHERK ", herk;
    zherk_: Complex64, f64, "ZHERK ", herk;
}

/// Exports `syr2k` and `her2k` (`$s`: the type of `beta`).
macro_rules! rank_2ks {
    ($($name:ident: $t:ty, $s:ty, $routine:literal, $f:ident;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            uplo: *const c_char,
            trans: *const c_char,
            n: *const Int,
            k: *const Int,
            alpha: *const $t,
            a: *const $t,
            lda: *const Int,
            b: *const $t,
            ldb: *const Int,
            beta: *const $s,
            c: *mut $t,
            ldc: *const Int,
        ) {
            // SAFETY: options and scalar arguments by reference.
            let (u, t, n, k, alpha, lda, ldb, beta, ldc) = unsafe {
                (
                    option(uplo),
                    option(trans),
                    read(n),
                    read(k),
                    read(alpha),
                    read(lda),
                    read(ldb),
                    read(beta),
                    read(ldc),
                )
            };
            $f::<$t>($routine, (u, t), (n, k), alpha, (a, lda), (b, ldb), beta, (c, ldc))
        }
    )*};
}
rank_2ks! {
    ssyr2k_: f32, f32, "SSYR2K", syr2k;
    dsyr2k_: f64, f64, "DSYR2K", syr2k;
    csyr2k_: Complex32, Complex32, "CSYR2K", syr2k;
    zsyr2k_: Complex64, Complex64, "ZSYR2K", syr2k;
    cher2k_: Complex32, f32, "CHER2K", her2k;
    zher2k_: Complex64, f64, "ZHER2K", her2k;
}

/// Exports `trmm` (`$solve` false) and `trsm` (`$solve` true).
macro_rules! triangulars {
    ($($name:ident: $t:ty, $routine:literal, $solve:expr;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            side: *const c_char,
            uplo: *const c_char,
            transa: *const c_char,
            diag: *const c_char,
            m: *const Int,
            n: *const Int,
            alpha: *const $t,
            a: *const $t,
            lda: *const Int,
            b: *mut $t,
            ldb: *const Int,
        ) {
            // SAFETY: options and scalar arguments by reference.
            let (s, u, t, d, m, n, alpha, lda, ldb) = unsafe {
                (
                    option(side),
                    option(uplo),
                    option(transa),
                    option(diag),
                    read(m),
                    read(n),
                    read(alpha),
                    read(lda),
                    read(ldb),
                )
            };
            triangular::<$t>($routine, $solve, (s, u, t, d), (m, n), alpha, (a, lda), (b, ldb))
        }
    )*};
}
triangulars! {
    strmm_: f32, "STRMM ", false;
    dtrmm_: f64, "DTRMM ", false;
    ctrmm_: Complex32, "CTRMM ", false;
    ztrmm_: Complex64, "ZTRMM ", false;
    strsm_: f32, "STRSM ", true;
    dtrsm_: f64, "DTRSM ", true;
    ctrsm_: Complex32, "CTRSM ", true;
    ztrsm_: Complex64, "ZTRSM ", true;
}
