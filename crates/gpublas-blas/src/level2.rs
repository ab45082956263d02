//! Level 2: the reference BLAS matrix-vector routines for s, d, c, z: the products (`gemv`,
//! `gbmv`, `symv`, `hemv`, `sbmv`, `hbmv`, `spmv`, `hpmv`), the triangular products and solves
//! (`trmv`, `tbmv`, `tpmv`, `trsv`, `tbsv`, `tpsv`) and the rank updates (`ger`, `geru`,
//! `gerc`, `syr`, `her`, `spr`, `hpr`, `syr2`, `her2`, `spr2`, `hpr2`).
//!
//! Each export reads its scalars and options, then one generic function per routine shape
//! checks the arguments in reference BLAS's order (the first illegal one goes to `xerbla` with
//! its position, and nothing is touched), takes reference BLAS's quick return, and lends the
//! caller's arrays to gpublas, which keeps reference BLAS's meaning of every argument (zero
//! scalars, negative increments, band widths beyond the matrix). Routines that share a shape
//! (`symv` and `hemv`, `trmv` and `trsv`, …) share the function, given gpublas's routine.

use std::ffi::c_char;

use gpublas::{
    blas2, Coef, Complex32, Complex64, DeviceBuffer, Diag, Error, Handle, Op, Scalar, Status, Uplo,
};

use crate::args::{self, legal, lend, mat_len, packed_len, vec_len};
use crate::context::run;
use crate::ffi::{option, read, Int};

/// The vector lengths of `op(A) x` for an `m × n` matrix: (x's, y's).
fn op_lens(op: Op, m: Int, n: Int) -> (Int, Int) {
    match op {
        Op::N => (n, m),
        _ => (m, n),
    }
}

/// Whether `alpha == 0` and `beta == 1`: with them the products leave `y` as it is.
fn identity<T: Scalar>(alpha: T, beta: T) -> bool {
    alpha == T::zero() && beta == T::one()
}

/// gpublas's `symv` or `hemv`.
pub(crate) type FullMv<T> = fn(
    &mut Handle,
    Uplo,
    usize,
    Coef<'_, T>,
    &DeviceBuffer<T>,
    usize,
    &DeviceBuffer<T>,
    isize,
    Coef<'_, T>,
    &mut DeviceBuffer<T>,
    isize,
) -> Result<Status, Error>;

/// gpublas's `sbmv` or `hbmv`.
pub(crate) type BandMv<T> = fn(
    &mut Handle,
    Uplo,
    usize,
    usize,
    Coef<'_, T>,
    &DeviceBuffer<T>,
    usize,
    &DeviceBuffer<T>,
    isize,
    Coef<'_, T>,
    &mut DeviceBuffer<T>,
    isize,
) -> Result<Status, Error>;

/// gpublas's `spmv` or `hpmv`.
pub(crate) type PackedMv<T> = fn(
    &mut Handle,
    Uplo,
    usize,
    Coef<'_, T>,
    &DeviceBuffer<T>,
    &DeviceBuffer<T>,
    isize,
    Coef<'_, T>,
    &mut DeviceBuffer<T>,
    isize,
) -> Result<Status, Error>;

/// gpublas's `trmv` or `trsv`.
pub(crate) type FullTri<T> = fn(
    &mut Handle,
    Uplo,
    Op,
    Diag,
    usize,
    &DeviceBuffer<T>,
    usize,
    &mut DeviceBuffer<T>,
    isize,
) -> Result<Status, Error>;

/// gpublas's `tbmv` or `tbsv`.
pub(crate) type BandTri<T> = fn(
    &mut Handle,
    Uplo,
    Op,
    Diag,
    usize,
    usize,
    &DeviceBuffer<T>,
    usize,
    &mut DeviceBuffer<T>,
    isize,
) -> Result<Status, Error>;

/// gpublas's `tpmv` or `tpsv`.
pub(crate) type PackedTri<T> = fn(
    &mut Handle,
    Uplo,
    Op,
    Diag,
    usize,
    &DeviceBuffer<T>,
    &mut DeviceBuffer<T>,
    isize,
) -> Result<Status, Error>;

/// gpublas's `ger`, `geru` or `gerc`.
pub(crate) type GerFn<T> = fn(
    &mut Handle,
    usize,
    usize,
    Coef<'_, T>,
    &DeviceBuffer<T>,
    isize,
    &DeviceBuffer<T>,
    isize,
    &mut DeviceBuffer<T>,
    usize,
) -> Result<Status, Error>;

/// gpublas's `syr` or `her` (`R`: alpha's type, real for `her`).
pub(crate) type SyrFn<T, R> = fn(
    &mut Handle,
    Uplo,
    usize,
    Coef<'_, R>,
    &DeviceBuffer<T>,
    isize,
    &mut DeviceBuffer<T>,
    usize,
) -> Result<Status, Error>;

/// gpublas's `spr` or `hpr` (`R`: alpha's type, real for `hpr`).
pub(crate) type SprFn<T, R> = fn(
    &mut Handle,
    Uplo,
    usize,
    Coef<'_, R>,
    &DeviceBuffer<T>,
    isize,
    &mut DeviceBuffer<T>,
) -> Result<Status, Error>;

/// gpublas's `syr2` or `her2`.
pub(crate) type Syr2Fn<T> = fn(
    &mut Handle,
    Uplo,
    usize,
    Coef<'_, T>,
    &DeviceBuffer<T>,
    isize,
    &DeviceBuffer<T>,
    isize,
    &mut DeviceBuffer<T>,
    usize,
) -> Result<Status, Error>;

/// gpublas's `spr2` or `hpr2`.
pub(crate) type Spr2Fn<T> = fn(
    &mut Handle,
    Uplo,
    usize,
    Coef<'_, T>,
    &DeviceBuffer<T>,
    isize,
    &DeviceBuffer<T>,
    isize,
    &mut DeviceBuffer<T>,
) -> Result<Status, Error>;

/// `gemv`: `y = alpha op(A) x + beta y`, `A` `m × n`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemv<T: Scalar>(
    name: &str,
    trans: u8,
    m: Int,
    n: Int,
    alpha: T,
    a: *const T,
    lda: Int,
    x: *const T,
    incx: Int,
    beta: T,
    y: *mut T,
    incy: Int,
) {
    let op = args::op(trans);
    let checks = [
        (op.is_none(), 1),
        (m < 0, 2),
        (n < 0, 3),
        (lda < m.max(1), 6),
        (incx == 0, 8),
        (incy == 0, 11),
    ];
    let (true, Some(op)) = (legal(name, &checks), op) else {
        return;
    };
    if m == 0 || n == 0 || identity(alpha, beta) {
        return;
    }
    let (lx, ly) = op_lens(op, m, n);
    let _ = run(name.trim_end(), |h, dev| {
        let ab = lend!(dev, a, mat_len(m, n, lda));
        let xb = lend!(dev, x, vec_len(lx, incx));
        let mut yb = lend!(dev, y, vec_len(ly, incy));
        let (m, n, lda) = (m as usize, n as usize, lda as usize);
        let (alpha, beta) = (Coef::Host(alpha), Coef::Host(beta));
        let (incx, incy) = (incx as isize, incy as isize);
        blas2::gemv(h, op, m, n, alpha, &ab, lda, &xb, incx, beta, &mut yb, incy)
    });
}

/// `gbmv`: `y = alpha op(A) x + beta y`, `A` an `m × n` band matrix (`kl` sub-, `ku`
/// super-diagonals) stored in an `lda × n` array.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gbmv<T: Scalar>(
    name: &str,
    trans: u8,
    m: Int,
    n: Int,
    kl: Int,
    ku: Int,
    alpha: T,
    a: *const T,
    lda: Int,
    x: *const T,
    incx: Int,
    beta: T,
    y: *mut T,
    incy: Int,
) {
    let op = args::op(trans);
    let checks = [
        (op.is_none(), 1),
        (m < 0, 2),
        (n < 0, 3),
        (kl < 0, 4),
        (ku < 0, 5),
        (i64::from(lda) < i64::from(kl) + i64::from(ku) + 1, 8),
        (incx == 0, 10),
        (incy == 0, 13),
    ];
    let (true, Some(op)) = (legal(name, &checks), op) else {
        return;
    };
    if m == 0 || n == 0 || identity(alpha, beta) {
        return;
    }
    let (lx, ly) = op_lens(op, m, n);
    // kl + ku + 1 <= lda: the band's rows fit an Int.
    let rows = kl + ku + 1;
    let _ = run(name.trim_end(), |h, dev| {
        let ab = lend!(dev, a, mat_len(rows, n, lda));
        let xb = lend!(dev, x, vec_len(lx, incx));
        let mut yb = lend!(dev, y, vec_len(ly, incy));
        let (m, n, lda) = (m as usize, n as usize, lda as usize);
        let (kl, ku) = (kl as usize, ku as usize);
        let (alpha, beta) = (Coef::Host(alpha), Coef::Host(beta));
        let (incx, incy) = (incx as isize, incy as isize);
        blas2::gbmv(
            h, op, m, n, kl, ku, alpha, &ab, lda, &xb, incx, beta, &mut yb, incy,
        )
    });
}

/// `symv`, `hemv`: `y = alpha A x + beta y`, `A` of order `n`, one triangle stored.
#[allow(clippy::too_many_arguments)]
pub(crate) fn symv<T: Scalar>(
    name: &str,
    f: FullMv<T>,
    uplo: u8,
    n: Int,
    alpha: T,
    a: *const T,
    lda: Int,
    x: *const T,
    incx: Int,
    beta: T,
    y: *mut T,
    incy: Int,
) {
    let uplo = args::uplo(uplo);
    let checks = [
        (uplo.is_none(), 1),
        (n < 0, 2),
        (lda < n.max(1), 5),
        (incx == 0, 7),
        (incy == 0, 10),
    ];
    let (true, Some(uplo)) = (legal(name, &checks), uplo) else {
        return;
    };
    if n == 0 || identity(alpha, beta) {
        return;
    }
    let _ = run(name.trim_end(), |h, dev| {
        let ab = lend!(dev, a, mat_len(n, n, lda));
        let xb = lend!(dev, x, vec_len(n, incx));
        let mut yb = lend!(dev, y, vec_len(n, incy));
        let (n, lda) = (n as usize, lda as usize);
        let (alpha, beta) = (Coef::Host(alpha), Coef::Host(beta));
        let (incx, incy) = (incx as isize, incy as isize);
        f(h, uplo, n, alpha, &ab, lda, &xb, incx, beta, &mut yb, incy)
    });
}

/// `sbmv`, `hbmv`: `y = alpha A x + beta y`, `A` of order `n` with `k` off-diagonals, one
/// triangle's band stored in an `lda × n` array.
#[allow(clippy::too_many_arguments)]
pub(crate) fn sbmv<T: Scalar>(
    name: &str,
    f: BandMv<T>,
    uplo: u8,
    n: Int,
    k: Int,
    alpha: T,
    a: *const T,
    lda: Int,
    x: *const T,
    incx: Int,
    beta: T,
    y: *mut T,
    incy: Int,
) {
    let uplo = args::uplo(uplo);
    let checks = [
        (uplo.is_none(), 1),
        (n < 0, 2),
        (k < 0, 3),
        (i64::from(lda) < i64::from(k) + 1, 6),
        (incx == 0, 8),
        (incy == 0, 11),
    ];
    let (true, Some(uplo)) = (legal(name, &checks), uplo) else {
        return;
    };
    if n == 0 || identity(alpha, beta) {
        return;
    }
    let _ = run(name.trim_end(), |h, dev| {
        // k + 1 <= lda: the band's rows fit an Int.
        let ab = lend!(dev, a, mat_len(k + 1, n, lda));
        let xb = lend!(dev, x, vec_len(n, incx));
        let mut yb = lend!(dev, y, vec_len(n, incy));
        let (n, k, lda) = (n as usize, k as usize, lda as usize);
        let (alpha, beta) = (Coef::Host(alpha), Coef::Host(beta));
        let (incx, incy) = (incx as isize, incy as isize);
        f(
            h, uplo, n, k, alpha, &ab, lda, &xb, incx, beta, &mut yb, incy,
        )
    });
}

/// `spmv`, `hpmv`: `y = alpha A x + beta y`, `A` of order `n`, one triangle packed.
#[allow(clippy::too_many_arguments)]
pub(crate) fn spmv<T: Scalar>(
    name: &str,
    f: PackedMv<T>,
    uplo: u8,
    n: Int,
    alpha: T,
    ap: *const T,
    x: *const T,
    incx: Int,
    beta: T,
    y: *mut T,
    incy: Int,
) {
    let uplo = args::uplo(uplo);
    let checks = [
        (uplo.is_none(), 1),
        (n < 0, 2),
        (incx == 0, 6),
        (incy == 0, 9),
    ];
    let (true, Some(uplo)) = (legal(name, &checks), uplo) else {
        return;
    };
    if n == 0 || identity(alpha, beta) {
        return;
    }
    let _ = run(name.trim_end(), |h, dev| {
        let ab = lend!(dev, ap, packed_len(n));
        let xb = lend!(dev, x, vec_len(n, incx));
        let mut yb = lend!(dev, y, vec_len(n, incy));
        let (alpha, beta) = (Coef::Host(alpha), Coef::Host(beta));
        let (incx, incy) = (incx as isize, incy as isize);
        f(
            h, uplo, n as usize, alpha, &ab, &xb, incx, beta, &mut yb, incy,
        )
    });
}

/// The triangular options UPLO, TRANS, DIAG, parsed (`None` for an illegal letter).
type TriOptions = (Option<Uplo>, Option<Op>, Option<Diag>);

/// Parses the triangular routines' options.
fn tri_options(uplo: u8, trans: u8, diag: u8) -> TriOptions {
    (args::uplo(uplo), args::op(trans), args::diag(diag))
}

/// `trmv`, `trsv`: `x = op(A) x` or `x = op(A)⁻¹ x`, `A` triangular of order `n`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn trmv<T: Scalar>(
    name: &str,
    f: FullTri<T>,
    (uplo, trans, diag): (u8, u8, u8),
    n: Int,
    a: *const T,
    lda: Int,
    x: *mut T,
    incx: Int,
) {
    let (uplo, op, diag) = tri_options(uplo, trans, diag);
    let checks = [
        (uplo.is_none(), 1),
        (op.is_none(), 2),
        (diag.is_none(), 3),
        (n < 0, 4),
        (lda < n.max(1), 6),
        (incx == 0, 8),
    ];
    let (true, Some(uplo), Some(op), Some(diag)) = (legal(name, &checks), uplo, op, diag) else {
        return;
    };
    if n == 0 {
        return;
    }
    let _ = run(name.trim_end(), |h, dev| {
        let ab = lend!(dev, a, mat_len(n, n, lda));
        let mut xb = lend!(dev, x, vec_len(n, incx));
        let (n, lda, incx) = (n as usize, lda as usize, incx as isize);
        f(h, uplo, op, diag, n, &ab, lda, &mut xb, incx)
    });
}

/// `tbmv`, `tbsv`: `x = op(A) x` or `x = op(A)⁻¹ x`, `A` triangular of order `n` with `k`
/// off-diagonals, its band stored in an `lda × n` array.
#[allow(clippy::too_many_arguments)]
pub(crate) fn tbmv<T: Scalar>(
    name: &str,
    f: BandTri<T>,
    (uplo, trans, diag): (u8, u8, u8),
    n: Int,
    k: Int,
    a: *const T,
    lda: Int,
    x: *mut T,
    incx: Int,
) {
    let (uplo, op, diag) = tri_options(uplo, trans, diag);
    let checks = [
        (uplo.is_none(), 1),
        (op.is_none(), 2),
        (diag.is_none(), 3),
        (n < 0, 4),
        (k < 0, 5),
        (i64::from(lda) < i64::from(k) + 1, 7),
        (incx == 0, 9),
    ];
    let (true, Some(uplo), Some(op), Some(diag)) = (legal(name, &checks), uplo, op, diag) else {
        return;
    };
    if n == 0 {
        return;
    }
    let _ = run(name.trim_end(), |h, dev| {
        // k + 1 <= lda: the band's rows fit an Int.
        let ab = lend!(dev, a, mat_len(k + 1, n, lda));
        let mut xb = lend!(dev, x, vec_len(n, incx));
        let (n, k, lda, incx) = (n as usize, k as usize, lda as usize, incx as isize);
        f(h, uplo, op, diag, n, k, &ab, lda, &mut xb, incx)
    });
}

/// `tpmv`, `tpsv`: `x = op(A) x` or `x = op(A)⁻¹ x`, `A` triangular of order `n`, packed.
pub(crate) fn tpmv<T: Scalar>(
    name: &str,
    f: PackedTri<T>,
    (uplo, trans, diag): (u8, u8, u8),
    n: Int,
    ap: *const T,
    x: *mut T,
    incx: Int,
) {
    let (uplo, op, diag) = tri_options(uplo, trans, diag);
    let checks = [
        (uplo.is_none(), 1),
        (op.is_none(), 2),
        (diag.is_none(), 3),
        (n < 0, 4),
        (incx == 0, 7),
    ];
    let (true, Some(uplo), Some(op), Some(diag)) = (legal(name, &checks), uplo, op, diag) else {
        return;
    };
    if n == 0 {
        return;
    }
    let _ = run(name.trim_end(), |h, dev| {
        let ab = lend!(dev, ap, packed_len(n));
        let mut xb = lend!(dev, x, vec_len(n, incx));
        f(h, uplo, op, diag, n as usize, &ab, &mut xb, incx as isize)
    });
}

/// `ger`, `geru`, `gerc`: `A += alpha x yᵀ` (`yᴴ` for `gerc`), `A` `m × n`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn ger<T: Scalar>(
    name: &str,
    f: GerFn<T>,
    m: Int,
    n: Int,
    alpha: T,
    x: *const T,
    incx: Int,
    y: *const T,
    incy: Int,
    a: *mut T,
    lda: Int,
) {
    let checks = [
        (m < 0, 1),
        (n < 0, 2),
        (incx == 0, 5),
        (incy == 0, 7),
        (lda < m.max(1), 9),
    ];
    if !legal(name, &checks) || m == 0 || n == 0 || alpha == T::zero() {
        return;
    }
    let _ = run(name.trim_end(), |h, dev| {
        let xb = lend!(dev, x, vec_len(m, incx));
        let yb = lend!(dev, y, vec_len(n, incy));
        let mut ab = lend!(dev, a, mat_len(m, n, lda));
        let (m, n, lda) = (m as usize, n as usize, lda as usize);
        let (incx, incy) = (incx as isize, incy as isize);
        let alpha = Coef::Host(alpha);
        f(h, m, n, alpha, &xb, incx, &yb, incy, &mut ab, lda)
    });
}

/// `syr`, `her`: `A += alpha x xᵀ` (`xᴴ` for `her`, with a real alpha), `A` of order `n`,
/// one triangle stored.
#[allow(clippy::too_many_arguments)]
pub(crate) fn syr<T: Scalar, R: Scalar>(
    name: &str,
    f: SyrFn<T, R>,
    uplo: u8,
    n: Int,
    alpha: R,
    x: *const T,
    incx: Int,
    a: *mut T,
    lda: Int,
) {
    let uplo = args::uplo(uplo);
    let checks = [
        (uplo.is_none(), 1),
        (n < 0, 2),
        (incx == 0, 5),
        (lda < n.max(1), 7),
    ];
    let (true, Some(uplo)) = (legal(name, &checks), uplo) else {
        return;
    };
    if n == 0 || alpha == R::zero() {
        return;
    }
    let _ = run(name.trim_end(), |h, dev| {
        let xb = lend!(dev, x, vec_len(n, incx));
        let mut ab = lend!(dev, a, mat_len(n, n, lda));
        let (n, lda, incx) = (n as usize, lda as usize, incx as isize);
        let alpha = Coef::Host(alpha);
        f(h, uplo, n, alpha, &xb, incx, &mut ab, lda)
    });
}

/// `spr`, `hpr`: `A += alpha x xᵀ` (`xᴴ` for `hpr`, with a real alpha), `A` of order `n`,
/// one triangle packed.
#[allow(clippy::too_many_arguments)]
pub(crate) fn spr<T: Scalar, R: Scalar>(
    name: &str,
    f: SprFn<T, R>,
    uplo: u8,
    n: Int,
    alpha: R,
    x: *const T,
    incx: Int,
    ap: *mut T,
) {
    let uplo = args::uplo(uplo);
    let checks = [(uplo.is_none(), 1), (n < 0, 2), (incx == 0, 5)];
    let (true, Some(uplo)) = (legal(name, &checks), uplo) else {
        return;
    };
    if n == 0 || alpha == R::zero() {
        return;
    }
    let _ = run(name.trim_end(), |h, dev| {
        let xb = lend!(dev, x, vec_len(n, incx));
        let mut ab = lend!(dev, ap, packed_len(n));
        let alpha = Coef::Host(alpha);
        f(h, uplo, n as usize, alpha, &xb, incx as isize, &mut ab)
    });
}

/// `syr2`, `her2`: `A += alpha x yᵀ + alpha y xᵀ` (Hermitian: `alpha x yᴴ + conj(alpha) y xᴴ`),
/// `A` of order `n`, one triangle stored.
#[allow(clippy::too_many_arguments)]
pub(crate) fn syr2<T: Scalar>(
    name: &str,
    f: Syr2Fn<T>,
    uplo: u8,
    n: Int,
    alpha: T,
    x: *const T,
    incx: Int,
    y: *const T,
    incy: Int,
    a: *mut T,
    lda: Int,
) {
    let uplo = args::uplo(uplo);
    let checks = [
        (uplo.is_none(), 1),
        (n < 0, 2),
        (incx == 0, 5),
        (incy == 0, 7),
        (lda < n.max(1), 9),
    ];
    let (true, Some(uplo)) = (legal(name, &checks), uplo) else {
        return;
    };
    if n == 0 || alpha == T::zero() {
        return;
    }
    let _ = run(name.trim_end(), |h, dev| {
        let xb = lend!(dev, x, vec_len(n, incx));
        let yb = lend!(dev, y, vec_len(n, incy));
        let mut ab = lend!(dev, a, mat_len(n, n, lda));
        let (n, lda) = (n as usize, lda as usize);
        let (incx, incy) = (incx as isize, incy as isize);
        let alpha = Coef::Host(alpha);
        f(h, uplo, n, alpha, &xb, incx, &yb, incy, &mut ab, lda)
    });
}

/// `spr2`, `hpr2`: `syr2`, `her2` with the triangle packed.
#[allow(clippy::too_many_arguments)]
pub(crate) fn spr2<T: Scalar>(
    name: &str,
    f: Spr2Fn<T>,
    uplo: u8,
    n: Int,
    alpha: T,
    x: *const T,
    incx: Int,
    y: *const T,
    incy: Int,
    ap: *mut T,
) {
    let uplo = args::uplo(uplo);
    let checks = [
        (uplo.is_none(), 1),
        (n < 0, 2),
        (incx == 0, 5),
        (incy == 0, 7),
    ];
    let (true, Some(uplo)) = (legal(name, &checks), uplo) else {
        return;
    };
    if n == 0 || alpha == T::zero() {
        return;
    }
    let _ = run(name.trim_end(), |h, dev| {
        let xb = lend!(dev, x, vec_len(n, incx));
        let yb = lend!(dev, y, vec_len(n, incy));
        let mut ab = lend!(dev, ap, packed_len(n));
        let (incx, incy) = (incx as isize, incy as isize);
        let alpha = Coef::Host(alpha);
        f(h, uplo, n as usize, alpha, &xb, incx, &yb, incy, &mut ab)
    });
}

// ---- the exports ------------------------------------------------------------------------

/// Exports `gemv` (`$id`: the routine's name as reference BLAS passes it to `xerbla`).
macro_rules! gemvs {
    ($($name:ident: $t:ty, $id:literal;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            trans: *const c_char,
            m: *const Int,
            n: *const Int,
            alpha: *const $t,
            a: *const $t,
            lda: *const Int,
            x: *const $t,
            incx: *const Int,
            beta: *const $t,
            y: *mut $t,
            incy: *const Int,
        ) {
            // SAFETY: scalar and CHARACTER arguments by reference.
            let (trans, m, n, alpha, lda, incx, beta, incy) = unsafe {
                (
                    option(trans),
                    read(m),
                    read(n),
                    read(alpha),
                    read(lda),
                    read(incx),
                    read(beta),
                    read(incy),
                )
            };
            gemv::<$t>($id, trans, m, n, alpha, a, lda, x, incx, beta, y, incy)
        }
    )*};
}
gemvs! {
    sgemv_: f32, "SGEMV ";
    dgemv_: f64, "DGEMV ";
    cgemv_: Complex32, "CGEMV ";
    zgemv_: Complex64, "ZGEMV ";
}

/// Exports `gbmv`.
macro_rules! gbmvs {
    ($($name:ident: $t:ty, $id:literal;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            trans: *const c_char,
            m: *const Int,
            n: *const Int,
            kl: *const Int,
            ku: *const Int,
            alpha: *const $t,
            a: *const $t,
            lda: *const Int,
            x: *const $t,
            incx: *const Int,
            beta: *const $t,
            y: *mut $t,
            incy: *const Int,
        ) {
            // SAFETY: scalar and CHARACTER arguments by reference.
            let (trans, m, n, kl, ku, alpha, lda, incx, beta, incy) = unsafe {
                (
                    option(trans),
                    read(m),
                    read(n),
                    read(kl),
                    read(ku),
                    read(alpha),
                    read(lda),
                    read(incx),
                    read(beta),
                    read(incy),
                )
            };
            gbmv::<$t>($id, trans, m, n, kl, ku, alpha, a, lda, x, incx, beta, y, incy)
        }
    )*};
}
gbmvs! {
    sgbmv_: f32, "SGBMV ";
    dgbmv_: f64, "DGBMV ";
    cgbmv_: Complex32, "CGBMV ";
    zgbmv_: Complex64, "ZGBMV ";
}

/// Exports `symv` and `hemv` (`$f`: gpublas's routine).
macro_rules! symvs {
    ($($name:ident: $f:ident, $t:ty, $id:literal;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            uplo: *const c_char,
            n: *const Int,
            alpha: *const $t,
            a: *const $t,
            lda: *const Int,
            x: *const $t,
            incx: *const Int,
            beta: *const $t,
            y: *mut $t,
            incy: *const Int,
        ) {
            // SAFETY: scalar and CHARACTER arguments by reference.
            let (uplo, n, alpha, lda, incx, beta, incy) = unsafe {
                (
                    option(uplo),
                    read(n),
                    read(alpha),
                    read(lda),
                    read(incx),
                    read(beta),
                    read(incy),
                )
            };
            let f: FullMv<$t> = blas2::$f::<$t>;
            symv::<$t>($id, f, uplo, n, alpha, a, lda, x, incx, beta, y, incy)
        }
    )*};
}
symvs! {
    ssymv_: symv, f32, "SSYMV ";
    dsymv_: symv, f64, "DSYMV ";
    chemv_: hemv, Complex32, "CHEMV ";
    zhemv_: hemv, Complex64, "ZHEMV ";
}

/// Exports `sbmv` and `hbmv`.
macro_rules! sbmvs {
    ($($name:ident: $f:ident, $t:ty, $id:literal;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            uplo: *const c_char,
            n: *const Int,
            k: *const Int,
            alpha: *const $t,
            a: *const $t,
            lda: *const Int,
            x: *const $t,
            incx: *const Int,
            beta: *const $t,
            y: *mut $t,
            incy: *const Int,
        ) {
            // SAFETY: scalar and CHARACTER arguments by reference.
            let (uplo, n, k, alpha, lda, incx, beta, incy) = unsafe {
                (
                    option(uplo),
                    read(n),
                    read(k),
                    read(alpha),
                    read(lda),
                    read(incx),
                    read(beta),
                    read(incy),
                )
            };
            let f: BandMv<$t> = blas2::$f::<$t>;
            sbmv::<$t>($id, f, uplo, n, k, alpha, a, lda, x, incx, beta, y, incy)
        }
    )*};
}
sbmvs! {
    ssbmv_: sbmv, f32, "SSBMV ";
    dsbmv_: sbmv, f64, "DSBMV ";
    chbmv_: hbmv, Complex32, "CHBMV ";
    zhbmv_: hbmv, Complex64, "ZHBMV ";
}

/// Exports `spmv` and `hpmv`.
macro_rules! spmvs {
    ($($name:ident: $f:ident, $t:ty, $id:literal;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            uplo: *const c_char,
            n: *const Int,
            alpha: *const $t,
            ap: *const $t,
            x: *const $t,
            incx: *const Int,
            beta: *const $t,
            y: *mut $t,
            incy: *const Int,
        ) {
            // SAFETY: scalar and CHARACTER arguments by reference.
            let (uplo, n, alpha, incx, beta, incy) = unsafe {
                (
                    option(uplo),
                    read(n),
                    read(alpha),
                    read(incx),
                    read(beta),
                    read(incy),
                )
            };
            let f: PackedMv<$t> = blas2::$f::<$t>;
            spmv::<$t>($id, f, uplo, n, alpha, ap, x, incx, beta, y, incy)
        }
    )*};
}
spmvs! {
    sspmv_: spmv, f32, "SSPMV ";
    dspmv_: spmv, f64, "DSPMV ";
    chpmv_: hpmv, Complex32, "CHPMV ";
    zhpmv_: hpmv, Complex64, "ZHPMV ";
}

/// Exports `trmv` and `trsv`.
macro_rules! trmvs {
    ($($name:ident: $f:ident, $t:ty, $id:literal;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            uplo: *const c_char,
            trans: *const c_char,
            diag: *const c_char,
            n: *const Int,
            a: *const $t,
            lda: *const Int,
            x: *mut $t,
            incx: *const Int,
        ) {
            // SAFETY: scalar and CHARACTER arguments by reference.
            let (options, n, lda, incx) = unsafe {
                (
                    (option(uplo), option(trans), option(diag)),
                    read(n),
                    read(lda),
                    read(incx),
                )
            };
            let f: FullTri<$t> = blas2::$f::<$t>;
            trmv::<$t>($id, f, options, n, a, lda, x, incx)
        }
    )*};
}
trmvs! {
    strmv_: trmv, f32, "STRMV ";
    dtrmv_: trmv, f64, "DTRMV ";
    ctrmv_: trmv, Complex32, "CTRMV ";
    ztrmv_: trmv, Complex64, "ZTRMV ";
    strsv_: trsv, f32, "STRSV ";
    dtrsv_: trsv, f64, "DTRSV ";
    ctrsv_: trsv, Complex32, "CTRSV ";
    ztrsv_: trsv, Complex64, "ZTRSV ";
}

/// Exports `tbmv` and `tbsv`.
macro_rules! tbmvs {
    ($($name:ident: $f:ident, $t:ty, $id:literal;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            uplo: *const c_char,
            trans: *const c_char,
            diag: *const c_char,
            n: *const Int,
            k: *const Int,
            a: *const $t,
            lda: *const Int,
            x: *mut $t,
            incx: *const Int,
        ) {
            // SAFETY: scalar and CHARACTER arguments by reference.
            let (options, n, k, lda, incx) = unsafe {
                (
                    (option(uplo), option(trans), option(diag)),
                    read(n),
                    read(k),
                    read(lda),
                    read(incx),
                )
            };
            let f: BandTri<$t> = blas2::$f::<$t>;
            tbmv::<$t>($id, f, options, n, k, a, lda, x, incx)
        }
    )*};
}
tbmvs! {
    stbmv_: tbmv, f32, "STBMV ";
    dtbmv_: tbmv, f64, "DTBMV ";
    ctbmv_: tbmv, Complex32, "CTBMV ";
    ztbmv_: tbmv, Complex64, "ZTBMV ";
    stbsv_: tbsv, f32, "STBSV ";
    dtbsv_: tbsv, f64, "DTBSV ";
    ctbsv_: tbsv, Complex32, "CTBSV ";
    ztbsv_: tbsv, Complex64, "ZTBSV ";
}

/// Exports `tpmv` and `tpsv`.
macro_rules! tpmvs {
    ($($name:ident: $f:ident, $t:ty, $id:literal;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            uplo: *const c_char,
            trans: *const c_char,
            diag: *const c_char,
            n: *const Int,
            ap: *const $t,
            x: *mut $t,
            incx: *const Int,
        ) {
            // SAFETY: scalar and CHARACTER arguments by reference.
            let (options, n, incx) = unsafe {
                (
                    (option(uplo), option(trans), option(diag)),
                    read(n),
                    read(incx),
                )
            };
            let f: PackedTri<$t> = blas2::$f::<$t>;
            tpmv::<$t>($id, f, options, n, ap, x, incx)
        }
    )*};
}
tpmvs! {
    stpmv_: tpmv, f32, "STPMV ";
    dtpmv_: tpmv, f64, "DTPMV ";
    ctpmv_: tpmv, Complex32, "CTPMV ";
    ztpmv_: tpmv, Complex64, "ZTPMV ";
    stpsv_: tpsv, f32, "STPSV ";
    dtpsv_: tpsv, f64, "DTPSV ";
    ctpsv_: tpsv, Complex32, "CTPSV ";
    ztpsv_: tpsv, Complex64, "ZTPSV ";
}

/// Exports `ger`, `geru` and `gerc`.
macro_rules! gers {
    ($($name:ident: $f:ident, $t:ty, $id:literal;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            m: *const Int,
            n: *const Int,
            alpha: *const $t,
            x: *const $t,
            incx: *const Int,
            y: *const $t,
            incy: *const Int,
            a: *mut $t,
            lda: *const Int,
        ) {
            // SAFETY: scalar arguments by reference.
            let (m, n, alpha, incx, incy, lda) = unsafe {
                (read(m), read(n), read(alpha), read(incx), read(incy), read(lda))
            };
            let f: GerFn<$t> = blas2::$f::<$t>;
            ger::<$t>($id, f, m, n, alpha, x, incx, y, incy, a, lda)
        }
    )*};
}
gers! {
    sger_: ger, f32, "SGER  ";
    dger_: ger, f64, "DGER  ";
    cgeru_: geru, Complex32, "CGERU ";
    zgeru_: geru, Complex64, "ZGERU ";
    cgerc_: gerc, Complex32, "CGERC ";
    zgerc_: gerc, Complex64, "ZGERC ";
}

/// Exports `syr` and `her` (`$r`: alpha's type, real for `her`).
macro_rules! syrs {
    ($($name:ident: $f:ident, $t:ty, $r:ty, $id:literal;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            uplo: *const c_char,
            n: *const Int,
            alpha: *const $r,
            x: *const $t,
            incx: *const Int,
            a: *mut $t,
            lda: *const Int,
        ) {
            // SAFETY: scalar and CHARACTER arguments by reference.
            let (uplo, n, alpha, incx, lda) = unsafe {
                (option(uplo), read(n), read(alpha), read(incx), read(lda))
            };
            let f: SyrFn<$t, $r> = blas2::$f::<$t>;
            syr::<$t, $r>($id, f, uplo, n, alpha, x, incx, a, lda)
        }
    )*};
}
syrs! {
    ssyr_: syr, f32, f32, "SSYR  ";
    dsyr_: syr, f64, f64, "DSYR  ";
    cher_: her, Complex32, f32, "CHER  ";
    zher_: her, Complex64, f64, "ZHER  ";
}

/// Exports `spr` and `hpr` (`$r`: alpha's type, real for `hpr`).
macro_rules! sprs {
    ($($name:ident: $f:ident, $t:ty, $r:ty, $id:literal;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            uplo: *const c_char,
            n: *const Int,
            alpha: *const $r,
            x: *const $t,
            incx: *const Int,
            ap: *mut $t,
        ) {
            // SAFETY: scalar and CHARACTER arguments by reference.
            let (uplo, n, alpha, incx) =
                unsafe { (option(uplo), read(n), read(alpha), read(incx)) };
            let f: SprFn<$t, $r> = blas2::$f::<$t>;
            spr::<$t, $r>($id, f, uplo, n, alpha, x, incx, ap)
        }
    )*};
}
sprs! {
    sspr_: spr, f32, f32, "SSPR  ";
    dspr_: spr, f64, f64, "DSPR  ";
    chpr_: hpr, Complex32, f32, "CHPR  ";
    zhpr_: hpr, Complex64, f64, "ZHPR  ";
}

/// Exports `syr2` and `her2`.
macro_rules! syr2s {
    ($($name:ident: $f:ident, $t:ty, $id:literal;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            uplo: *const c_char,
            n: *const Int,
            alpha: *const $t,
            x: *const $t,
            incx: *const Int,
            y: *const $t,
            incy: *const Int,
            a: *mut $t,
            lda: *const Int,
        ) {
            // SAFETY: scalar and CHARACTER arguments by reference.
            let (uplo, n, alpha, incx, incy, lda) = unsafe {
                (
                    option(uplo),
                    read(n),
                    read(alpha),
                    read(incx),
                    read(incy),
                    read(lda),
                )
            };
            let f: Syr2Fn<$t> = blas2::$f::<$t>;
            syr2::<$t>($id, f, uplo, n, alpha, x, incx, y, incy, a, lda)
        }
    )*};
}
syr2s! {
    ssyr2_: syr2, f32, "SSYR2 ";
    dsyr2_: syr2, f64, "DSYR2 ";
    cher2_: her2, Complex32, "CHER2 ";
    zher2_: her2, Complex64, "ZHER2 ";
}

/// Exports `spr2` and `hpr2`.
macro_rules! spr2s {
    ($($name:ident: $f:ident, $t:ty, $id:literal;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            uplo: *const c_char,
            n: *const Int,
            alpha: *const $t,
            x: *const $t,
            incx: *const Int,
            y: *const $t,
            incy: *const Int,
            ap: *mut $t,
        ) {
            // SAFETY: scalar and CHARACTER arguments by reference.
            let (uplo, n, alpha, incx, incy) = unsafe {
                (option(uplo), read(n), read(alpha), read(incx), read(incy))
            };
            let f: Spr2Fn<$t> = blas2::$f::<$t>;
            spr2::<$t>($id, f, uplo, n, alpha, x, incx, y, incy, ap)
        }
    )*};
}
spr2s! {
    sspr2_: spr2, f32, "SSPR2 ";
    dspr2_: spr2, f64, "DSPR2 ";
    chpr2_: hpr2, Complex32, "CHPR2 ";
    zhpr2_: hpr2, Complex64, "ZHPR2 ";
}
