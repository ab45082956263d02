//! CBLAS Level 2: the matrix-vector routines, over `crate::level2`'s generic functions.
//!
//! A row-major matrix is the column-major transpose, so a row-major call becomes reference
//! CBLAS's column-major call: dimensions (and band widths) swapped, UPLO flipped, TRANS `N` ↔
//! `T`. Where the transpose has no column-major form — `ConjTrans` of a general or triangular
//! matrix, and every Hermitian routine (`Aᵀ = conj(A)`) — the reference conjugates instead: the
//! routine runs on conjugated copies of the input vectors, or on the output vector conjugated
//! in place before and after, with conjugated alpha and beta. This module does the same, so
//! results are the reference's.

use std::ffi::c_int;

use gpublas::{blas2, Complex32, Complex64, Scalar};

use super::{arg, flip_uplo, Call, CblasScalar, Layout};
use crate::ffi::Int;
use crate::level2;

use crate::level2::{
    BandMv, BandTri, FullMv, FullTri, GerFn, PackedMv, PackedTri, Spr2Fn, SprFn, Syr2Fn, SyrFn,
};

// ---- conjugation, for what the transpose cannot express -----------------------------------

/// Conjugates the `n` entries of the vector at `x`, `inc` apart, in place.
fn conjugate<T: Scalar>(n: Int, x: *mut T, inc: Int) {
    let step = inc.unsigned_abs() as usize;
    for i in 0..n.max(0) as usize {
        // SAFETY: the caller's vector holds `n` entries `|inc|` apart (the reference
        // interface), and nothing else accesses it during the call.
        unsafe {
            let p = x.add(i * step);
            p.write(p.read().conj());
        }
    }
}

/// The `n` entries of the vector at `x` (`inc` apart, from the end for a negative `inc`, as
/// BLAS reads them), conjugated, in a contiguous copy.
fn conjugated_copy<T: Scalar>(n: Int, x: *const T, inc: Int) -> Vec<T> {
    let n = n.max(0) as usize;
    let step = inc.unsigned_abs() as usize;
    (0..n)
        .map(|i| {
            let at = if inc < 0 { n - 1 - i } else { i } * step;
            // SAFETY: the caller's vector holds `n` entries `|inc|` apart.
            unsafe { x.add(at).read() }.conj()
        })
        .collect()
}

/// A vector argument as a routine reads it: the caller's, or a conjugated contiguous copy.
enum Vector<T> {
    Caller(*const T, Int),
    Conjugated(Vec<T>),
}

impl<T: Scalar> Vector<T> {
    /// A conjugated copy of the caller's `n`-entry vector at `x`, `inc` apart.
    fn conjugated(n: Int, (x, inc): (*const T, Int)) -> Self {
        Self::Conjugated(conjugated_copy(n, x, inc))
    }

    /// The vector and its increment, for the routine.
    fn arg(&self) -> (*const T, Int) {
        match self {
            Self::Caller(x, inc) => (*x, *inc),
            Self::Conjugated(copy) => (copy.as_ptr(), 1),
        }
    }
}

/// Runs `product(conj(alpha), conj(x), 1, conj(beta))` on `y` conjugated in place (conjugated
/// back after): how reference CBLAS computes `y = alpha op(A) x + beta y` for a row-major `A`
/// whose transpose needs a conjugation. `nx`, `ny`: the lengths of `x` and `y`; with either 0
/// the product is empty and nothing runs, as in the reference.
fn conjugated_product<T: Scalar>(
    (nx, x, incx): (Int, *const T, Int),
    (ny, y, incy): (Int, *mut T, Int),
    (alpha, beta): (T, T),
    product: impl FnOnce(T, *const T, Int, T),
) {
    if nx <= 0 || ny <= 0 {
        return;
    }
    let x = conjugated_copy(nx, x, incx);
    conjugate(ny, y, incy);
    product(alpha.conj(), x.as_ptr(), 1, beta.conj());
    conjugate(ny, y, incy);
}

/// TRANS of a row-major matrix-vector routine: `N` ↔ `T`; `C` becomes `N`, on conjugated
/// vectors for complex types (for real ones `C` is `T`, so `N` is all there is to do).
fn transposed_trans(trans: u8) -> u8 {
    if trans == b'N' {
        b'T'
    } else {
        b'N'
    }
}

// ---- the routine shapes -------------------------------------------------------------------

/// `gemv`: `y = alpha op(A) x + beta y`, `A` `m × n`.
#[allow(clippy::too_many_arguments)]
fn gemv<T: Scalar>(
    call: Call,
    layout: c_int,
    trans: c_int,
    (m, n): (Int, Int),
    alpha: T,
    (a, lda): (*const T, Int),
    (x, incx): (*const T, Int),
    beta: T,
    (y, incy): (*mut T, Int),
) {
    let Some(layout) = call.layout(layout) else {
        return;
    };
    let Some(trans) = call.trans(2, "TransA", trans) else {
        return;
    };
    let (ftrans, rows, cols) = match layout {
        Layout::ColMajor => (trans, arg(m, 3), arg(n, 4)),
        Layout::RowMajor => (transposed_trans(trans), arg(n, 4), arg(m, 3)),
    };
    let checks = [
        (rows.value < 0, rows.position),
        (cols.value < 0, cols.position),
        (lda < rows.value.max(1), 7),
        (incx == 0, 9),
        (incy == 0, 12),
    ];
    if !call.legal(&checks) {
        return;
    }
    let (rows, cols) = (rows.value, cols.value);
    let gemv = |ftrans, alpha, x, incx, beta| {
        level2::gemv(
            call.0, ftrans, rows, cols, alpha, a, lda, x, incx, beta, y, incy,
        )
    };
    if layout == Layout::RowMajor && trans == b'C' && T::COMPLEX {
        // conj(y) = conj(alpha) Aᵀ conj(x) + conj(beta) conj(y): x has m entries, y n.
        let product = |alpha, x, incx, beta| gemv(b'N', alpha, x, incx, beta);
        conjugated_product((m, x, incx), (n, y, incy), (alpha, beta), product);
    } else {
        gemv(ftrans, alpha, x, incx, beta);
    }
}

/// `gbmv`: `y = alpha op(A) x + beta y`, `A` an `m × n` band matrix (`kl` sub-, `ku`
/// super-diagonals), its band stored in `lda` rows (columns for row-major).
#[allow(clippy::too_many_arguments)]
fn gbmv<T: Scalar>(
    call: Call,
    layout: c_int,
    trans: c_int,
    (m, n, kl, ku): (Int, Int, Int, Int),
    alpha: T,
    (a, lda): (*const T, Int),
    (x, incx): (*const T, Int),
    beta: T,
    (y, incy): (*mut T, Int),
) {
    let Some(layout) = call.layout(layout) else {
        return;
    };
    let Some(trans) = call.trans(2, "TransA", trans) else {
        return;
    };
    // The transpose swaps the sub- and super-diagonals too.
    let (ftrans, rows, cols, sub, sup) = match layout {
        Layout::ColMajor => (trans, arg(m, 3), arg(n, 4), arg(kl, 5), arg(ku, 6)),
        Layout::RowMajor => (
            transposed_trans(trans),
            arg(n, 4),
            arg(m, 3),
            arg(ku, 6),
            arg(kl, 5),
        ),
    };
    let checks = [
        (rows.value < 0, rows.position),
        (cols.value < 0, cols.position),
        (sub.value < 0, sub.position),
        (sup.value < 0, sup.position),
        (i64::from(lda) < i64::from(kl) + i64::from(ku) + 1, 9),
        (incx == 0, 11),
        (incy == 0, 14),
    ];
    if !call.legal(&checks) {
        return;
    }
    let (rows, cols, sub, sup) = (rows.value, cols.value, sub.value, sup.value);
    let gbmv = |ftrans, alpha, x, incx, beta| {
        level2::gbmv(
            call.0, ftrans, rows, cols, sub, sup, alpha, a, lda, x, incx, beta, y, incy,
        )
    };
    if layout == Layout::RowMajor && trans == b'C' && T::COMPLEX {
        let product = |alpha, x, incx, beta| gbmv(b'N', alpha, x, incx, beta);
        conjugated_product((m, x, incx), (n, y, incy), (alpha, beta), product);
    } else {
        gbmv(ftrans, alpha, x, incx, beta);
    }
}

/// The layout and UPLO of the symmetric and Hermitian routines (positions 1 and 2), UPLO as
/// the column-major call takes it; `None` after reporting an illegal one.
fn layout_uplo(call: Call, layout: c_int, uplo: c_int) -> Option<(Layout, u8)> {
    let layout = call.layout(layout)?;
    let uplo = call.uplo(2, uplo)?;
    match layout {
        Layout::ColMajor => Some((layout, uplo)),
        Layout::RowMajor => Some((layout, flip_uplo(uplo))),
    }
}

/// Whether a row-major call of a symmetric or Hermitian routine runs on conjugated vectors:
/// for complex types, the Hermitian ones (CBLAS has no complex symmetric Level 2 routine),
/// whose transpose is the conjugate.
fn hermitian_row_major<T: Scalar>(layout: Layout) -> bool {
    layout == Layout::RowMajor && T::COMPLEX
}

/// `symv`, `hemv`: `y = alpha A x + beta y`, `A` of order `n`, one triangle stored.
#[allow(clippy::too_many_arguments)]
fn symv<T: Scalar>(
    call: Call,
    f: FullMv<T>,
    (layout, uplo): (c_int, c_int),
    n: Int,
    alpha: T,
    (a, lda): (*const T, Int),
    (x, incx): (*const T, Int),
    beta: T,
    (y, incy): (*mut T, Int),
) {
    let Some((layout, uplo)) = layout_uplo(call, layout, uplo) else {
        return;
    };
    let checks = [
        (n < 0, 3),
        (lda < n.max(1), 6),
        (incx == 0, 8),
        (incy == 0, 11),
    ];
    if !call.legal(&checks) {
        return;
    }
    let symv = |alpha, x, incx, beta| {
        level2::symv(call.0, f, uplo, n, alpha, a, lda, x, incx, beta, y, incy)
    };
    if hermitian_row_major::<T>(layout) {
        conjugated_product((n, x, incx), (n, y, incy), (alpha, beta), symv);
    } else {
        symv(alpha, x, incx, beta);
    }
}

/// `sbmv`, `hbmv`: `y = alpha A x + beta y`, `A` of order `n` with `k` off-diagonals, one
/// triangle's band stored.
#[allow(clippy::too_many_arguments)]
fn sbmv<T: Scalar>(
    call: Call,
    f: BandMv<T>,
    (layout, uplo): (c_int, c_int),
    (n, k): (Int, Int),
    alpha: T,
    (a, lda): (*const T, Int),
    (x, incx): (*const T, Int),
    beta: T,
    (y, incy): (*mut T, Int),
) {
    let Some((layout, uplo)) = layout_uplo(call, layout, uplo) else {
        return;
    };
    let checks = [
        (n < 0, 3),
        (k < 0, 4),
        (i64::from(lda) < i64::from(k) + 1, 7),
        (incx == 0, 9),
        (incy == 0, 12),
    ];
    if !call.legal(&checks) {
        return;
    }
    let sbmv = |alpha, x, incx, beta| {
        level2::sbmv(call.0, f, uplo, n, k, alpha, a, lda, x, incx, beta, y, incy)
    };
    if hermitian_row_major::<T>(layout) {
        conjugated_product((n, x, incx), (n, y, incy), (alpha, beta), sbmv);
    } else {
        sbmv(alpha, x, incx, beta);
    }
}

/// `spmv`, `hpmv`: `y = alpha A x + beta y`, `A` of order `n`, one triangle packed.
#[allow(clippy::too_many_arguments)]
fn spmv<T: Scalar>(
    call: Call,
    f: PackedMv<T>,
    (layout, uplo): (c_int, c_int),
    n: Int,
    alpha: T,
    ap: *const T,
    (x, incx): (*const T, Int),
    beta: T,
    (y, incy): (*mut T, Int),
) {
    let Some((layout, uplo)) = layout_uplo(call, layout, uplo) else {
        return;
    };
    if !call.legal(&[(n < 0, 3), (incx == 0, 7), (incy == 0, 10)]) {
        return;
    }
    let spmv =
        |alpha, x, incx, beta| level2::spmv(call.0, f, uplo, n, alpha, ap, x, incx, beta, y, incy);
    if hermitian_row_major::<T>(layout) {
        conjugated_product((n, x, incx), (n, y, incy), (alpha, beta), spmv);
    } else {
        spmv(alpha, x, incx, beta);
    }
}

/// The triangular routines' options (positions 1 to 4) as the column-major call takes them,
/// and whether `x` must be conjugated around it (row-major `ConjTrans` of a complex matrix);
/// `None` after reporting an illegal one.
fn triangular_options<T: Scalar>(
    call: Call,
    (layout, uplo, trans, diag): (c_int, c_int, c_int, c_int),
) -> Option<((u8, u8, u8), bool)> {
    let layout = call.layout(layout)?;
    let uplo = call.uplo(2, uplo)?;
    let trans = call.trans(3, "TransA", trans)?;
    let diag = call.diag(4, diag)?;
    Some(match layout {
        Layout::ColMajor => ((uplo, trans, diag), false),
        Layout::RowMajor => (
            (flip_uplo(uplo), transposed_trans(trans), diag),
            trans == b'C' && T::COMPLEX,
        ),
    })
}

/// Runs `f` (a triangular product or solve of `x`, `n` entries `inc` apart), on `x`
/// conjugated in place around it if `conjugated`: `conj(x) = Aᵀ conj(x)`, and likewise for
/// the solve, is row-major `x = Aᴴ x`.
fn on_conjugated_if<T: Scalar>(
    conjugated: bool,
    (n, x, inc): (Int, *mut T, Int),
    f: impl FnOnce(),
) {
    if conjugated {
        conjugate(n, x, inc);
        f();
        conjugate(n, x, inc);
    } else {
        f();
    }
}

/// `trmv`, `trsv`: `x = op(A) x` or `x = op(A)⁻¹ x`, `A` triangular of order `n`.
#[allow(clippy::too_many_arguments)]
fn trmv<T: Scalar>(
    call: Call,
    f: FullTri<T>,
    options: (c_int, c_int, c_int, c_int),
    n: Int,
    (a, lda): (*const T, Int),
    (x, incx): (*mut T, Int),
) {
    let Some((options, conjugated)) = triangular_options::<T>(call, options) else {
        return;
    };
    if !call.legal(&[(n < 0, 5), (lda < n.max(1), 7), (incx == 0, 9)]) {
        return;
    }
    on_conjugated_if(conjugated, (n, x, incx), || {
        level2::trmv(call.0, f, options, n, a, lda, x, incx)
    });
}

/// `tbmv`, `tbsv`: `x = op(A) x` or `x = op(A)⁻¹ x`, `A` triangular of order `n` with `k`
/// off-diagonals, its band stored.
#[allow(clippy::too_many_arguments)]
fn tbmv<T: Scalar>(
    call: Call,
    f: BandTri<T>,
    options: (c_int, c_int, c_int, c_int),
    (n, k): (Int, Int),
    (a, lda): (*const T, Int),
    (x, incx): (*mut T, Int),
) {
    let Some((options, conjugated)) = triangular_options::<T>(call, options) else {
        return;
    };
    let checks = [
        (n < 0, 5),
        (k < 0, 6),
        (i64::from(lda) < i64::from(k) + 1, 8),
        (incx == 0, 10),
    ];
    if !call.legal(&checks) {
        return;
    }
    on_conjugated_if(conjugated, (n, x, incx), || {
        level2::tbmv(call.0, f, options, n, k, a, lda, x, incx)
    });
}

/// `tpmv`, `tpsv`: `x = op(A) x` or `x = op(A)⁻¹ x`, `A` triangular of order `n`, packed.
fn tpmv<T: Scalar>(
    call: Call,
    f: PackedTri<T>,
    options: (c_int, c_int, c_int, c_int),
    n: Int,
    ap: *const T,
    (x, incx): (*mut T, Int),
) {
    let Some((options, conjugated)) = triangular_options::<T>(call, options) else {
        return;
    };
    if !call.legal(&[(n < 0, 5), (incx == 0, 8)]) {
        return;
    }
    on_conjugated_if(conjugated, (n, x, incx), || {
        level2::tpmv(call.0, f, options, n, ap, x, incx)
    });
}

/// `ger`, `geru`, `gerc`: `A += alpha x yᵀ` (`yᴴ` for `gerc`), `A` `m × n`. Row-major, the
/// transpose takes `Aᵀ += alpha y xᵀ` (`conj(y) xᵀ` for `gerc`): `f` is the column-major
/// routine, `row_major` the one the transpose takes (`geru` on a conjugated copy of `y` for
/// `gerc`, as the reference; `conj_y`).
#[allow(clippy::too_many_arguments)]
fn ger<T: Scalar>(
    call: Call,
    (f, row_major, conj_y): (GerFn<T>, GerFn<T>, bool),
    layout: c_int,
    (m, n): (Int, Int),
    alpha: T,
    (x, incx): (*const T, Int),
    (y, incy): (*const T, Int),
    (a, lda): (*mut T, Int),
) {
    let Some(layout) = call.layout(layout) else {
        return;
    };
    let (rows, cols, incu, incv) = match layout {
        Layout::ColMajor => (arg(m, 2), arg(n, 3), arg(incx, 6), arg(incy, 8)),
        Layout::RowMajor => (arg(n, 3), arg(m, 2), arg(incy, 8), arg(incx, 6)),
    };
    let checks = [
        (rows.value < 0, rows.position),
        (cols.value < 0, cols.position),
        (incu.value == 0, incu.position),
        (incv.value == 0, incv.position),
        (lda < rows.value.max(1), 10),
    ];
    if !call.legal(&checks) {
        return;
    }
    match layout {
        Layout::ColMajor => level2::ger(call.0, f, m, n, alpha, x, incx, y, incy, a, lda),
        Layout::RowMajor => {
            let v = if conj_y {
                Vector::conjugated(n, (y, incy))
            } else {
                Vector::Caller(y, incy)
            };
            let (y, incy) = v.arg();
            level2::ger(call.0, row_major, n, m, alpha, y, incy, x, incx, a, lda)
        }
    }
}

/// The vector `x` of `syr`, `her` and relatives as the routine takes it: for a row-major
/// Hermitian call, a conjugated copy (`conj(A) += alpha conj(x) conj(x)ᴴ`).
fn hermitian_vector<T: Scalar>(layout: Layout, n: Int, (x, inc): (*const T, Int)) -> Vector<T> {
    if hermitian_row_major::<T>(layout) {
        Vector::conjugated(n, (x, inc))
    } else {
        Vector::Caller(x, inc)
    }
}

/// `syr`, `her`: `A += alpha x xᵀ` (`xᴴ` for `her`, with a real alpha), `A` of order `n`, one
/// triangle stored.
#[allow(clippy::too_many_arguments)]
fn syr<T: Scalar, R: Scalar>(
    call: Call,
    f: SyrFn<T, R>,
    (layout, uplo): (c_int, c_int),
    n: Int,
    alpha: R,
    (x, incx): (*const T, Int),
    (a, lda): (*mut T, Int),
) {
    let Some((layout, uplo)) = layout_uplo(call, layout, uplo) else {
        return;
    };
    if !call.legal(&[(n < 0, 3), (incx == 0, 6), (lda < n.max(1), 8)]) {
        return;
    }
    let u = hermitian_vector::<T>(layout, n, (x, incx));
    let (x, incx) = u.arg();
    level2::syr(call.0, f, uplo, n, alpha, x, incx, a, lda);
}

/// `spr`, `hpr`: [`syr`] with the triangle packed.
#[allow(clippy::too_many_arguments)]
fn spr<T: Scalar, R: Scalar>(
    call: Call,
    f: SprFn<T, R>,
    (layout, uplo): (c_int, c_int),
    n: Int,
    alpha: R,
    (x, incx): (*const T, Int),
    ap: *mut T,
) {
    let Some((layout, uplo)) = layout_uplo(call, layout, uplo) else {
        return;
    };
    if !call.legal(&[(n < 0, 3), (incx == 0, 6)]) {
        return;
    }
    let u = hermitian_vector::<T>(layout, n, (x, incx));
    let (x, incx) = u.arg();
    level2::spr(call.0, f, uplo, n, alpha, x, incx, ap);
}

/// The vectors of `syr2`, `her2` and relatives as the routine takes them: for a row-major
/// Hermitian call, conjugated copies, swapped (`conj(A) += alpha conj(y) conj(x)ᴴ + conj(alpha)
/// conj(x) conj(y)ᴴ`).
fn rank2_vectors<T: Scalar>(
    layout: Layout,
    n: Int,
    x: (*const T, Int),
    y: (*const T, Int),
) -> (Vector<T>, Vector<T>) {
    if hermitian_row_major::<T>(layout) {
        (Vector::conjugated(n, y), Vector::conjugated(n, x))
    } else {
        (Vector::Caller(x.0, x.1), Vector::Caller(y.0, y.1))
    }
}

/// The increment checks of `syr2`, `her2` and relatives in the order reference CBLAS makes
/// them: row-major Hermitian calls swap `x` and `y` (`incy`, position 8, comes first).
fn rank2_increment_checks<T: Scalar>(layout: Layout, incx: Int, incy: Int) -> [(bool, Int); 2] {
    if hermitian_row_major::<T>(layout) {
        [(incy == 0, 8), (incx == 0, 6)]
    } else {
        [(incx == 0, 6), (incy == 0, 8)]
    }
}

/// `syr2`, `her2`: `A += alpha x yᵀ + alpha y xᵀ` (Hermitian: `alpha x yᴴ + conj(alpha) y
/// xᴴ`), `A` of order `n`, one triangle stored.
#[allow(clippy::too_many_arguments)]
fn syr2<T: Scalar>(
    call: Call,
    f: Syr2Fn<T>,
    (layout, uplo): (c_int, c_int),
    n: Int,
    alpha: T,
    (x, incx): (*const T, Int),
    (y, incy): (*const T, Int),
    (a, lda): (*mut T, Int),
) {
    let Some((layout, uplo)) = layout_uplo(call, layout, uplo) else {
        return;
    };
    let [inc1, inc2] = rank2_increment_checks::<T>(layout, incx, incy);
    if !call.legal(&[(n < 0, 3), inc1, inc2, (lda < n.max(1), 10)]) {
        return;
    }
    let (u, v) = rank2_vectors::<T>(layout, n, (x, incx), (y, incy));
    let ((x, incx), (y, incy)) = (u.arg(), v.arg());
    level2::syr2(call.0, f, uplo, n, alpha, x, incx, y, incy, a, lda);
}

/// `spr2`, `hpr2`: [`syr2`] with the triangle packed.
#[allow(clippy::too_many_arguments)]
fn spr2<T: Scalar>(
    call: Call,
    f: Spr2Fn<T>,
    (layout, uplo): (c_int, c_int),
    n: Int,
    alpha: T,
    (x, incx): (*const T, Int),
    (y, incy): (*const T, Int),
    ap: *mut T,
) {
    let Some((layout, uplo)) = layout_uplo(call, layout, uplo) else {
        return;
    };
    let [inc1, inc2] = rank2_increment_checks::<T>(layout, incx, incy);
    if !call.legal(&[(n < 0, 3), inc1, inc2]) {
        return;
    }
    let (u, v) = rank2_vectors::<T>(layout, n, (x, incx), (y, incy));
    let ((x, incx), (y, incy)) = (u.arg(), v.arg());
    level2::spr2(call.0, f, uplo, n, alpha, x, incx, y, incy, ap);
}

// ---- the exports ------------------------------------------------------------------------

/// Exports `gemv`.
macro_rules! gemvs {
    ($($name:ident: $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            layout: c_int,
            trans: c_int,
            m: Int,
            n: Int,
            alpha: <$t as CblasScalar>::Value,
            a: *const <$t as CblasScalar>::Array,
            lda: Int,
            x: *const <$t as CblasScalar>::Array,
            incx: Int,
            beta: <$t as CblasScalar>::Value,
            y: *mut <$t as CblasScalar>::Array,
            incy: Int,
        ) {
            // SAFETY: complex scalars are passed by address.
            let (alpha, beta) = unsafe { (<$t>::value(alpha), <$t>::value(beta)) };
            gemv::<$t>(
                Call(stringify!($name)),
                layout,
                trans,
                (m, n),
                alpha,
                (a.cast(), lda),
                (x.cast(), incx),
                beta,
                (y.cast(), incy),
            )
        }
    )*};
}
gemvs! {
    cblas_sgemv: f32;
    cblas_dgemv: f64;
    cblas_cgemv: Complex32;
    cblas_zgemv: Complex64;
}

/// Exports `gbmv`.
macro_rules! gbmvs {
    ($($name:ident: $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            layout: c_int,
            trans: c_int,
            m: Int,
            n: Int,
            kl: Int,
            ku: Int,
            alpha: <$t as CblasScalar>::Value,
            a: *const <$t as CblasScalar>::Array,
            lda: Int,
            x: *const <$t as CblasScalar>::Array,
            incx: Int,
            beta: <$t as CblasScalar>::Value,
            y: *mut <$t as CblasScalar>::Array,
            incy: Int,
        ) {
            // SAFETY: complex scalars are passed by address.
            let (alpha, beta) = unsafe { (<$t>::value(alpha), <$t>::value(beta)) };
            gbmv::<$t>(
                Call(stringify!($name)),
                layout,
                trans,
                (m, n, kl, ku),
                alpha,
                (a.cast(), lda),
                (x.cast(), incx),
                beta,
                (y.cast(), incy),
            )
        }
    )*};
}
gbmvs! {
    cblas_sgbmv: f32;
    cblas_dgbmv: f64;
    cblas_cgbmv: Complex32;
    cblas_zgbmv: Complex64;
}

/// Exports `symv` and `hemv` (`$f`: gpublas's routine).
macro_rules! symvs {
    ($($name:ident: $f:ident, $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            layout: c_int,
            uplo: c_int,
            n: Int,
            alpha: <$t as CblasScalar>::Value,
            a: *const <$t as CblasScalar>::Array,
            lda: Int,
            x: *const <$t as CblasScalar>::Array,
            incx: Int,
            beta: <$t as CblasScalar>::Value,
            y: *mut <$t as CblasScalar>::Array,
            incy: Int,
        ) {
            // SAFETY: complex scalars are passed by address.
            let (alpha, beta) = unsafe { (<$t>::value(alpha), <$t>::value(beta)) };
            symv::<$t>(
                Call(stringify!($name)),
                blas2::$f::<$t>,
                (layout, uplo),
                n,
                alpha,
                (a.cast(), lda),
                (x.cast(), incx),
                beta,
                (y.cast(), incy),
            )
        }
    )*};
}
symvs! {
    cblas_ssymv: symv, f32;
    cblas_dsymv: symv, f64;
    cblas_chemv: hemv, Complex32;
    cblas_zhemv: hemv, Complex64;
}

/// Exports `sbmv` and `hbmv`.
macro_rules! sbmvs {
    ($($name:ident: $f:ident, $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            layout: c_int,
            uplo: c_int,
            n: Int,
            k: Int,
            alpha: <$t as CblasScalar>::Value,
            a: *const <$t as CblasScalar>::Array,
            lda: Int,
            x: *const <$t as CblasScalar>::Array,
            incx: Int,
            beta: <$t as CblasScalar>::Value,
            y: *mut <$t as CblasScalar>::Array,
            incy: Int,
        ) {
            // SAFETY: complex scalars are passed by address.
            let (alpha, beta) = unsafe { (<$t>::value(alpha), <$t>::value(beta)) };
            sbmv::<$t>(
                Call(stringify!($name)),
                blas2::$f::<$t>,
                (layout, uplo),
                (n, k),
                alpha,
                (a.cast(), lda),
                (x.cast(), incx),
                beta,
                (y.cast(), incy),
            )
        }
    )*};
}
sbmvs! {
    cblas_ssbmv: sbmv, f32;
    cblas_dsbmv: sbmv, f64;
    cblas_chbmv: hbmv, Complex32;
    cblas_zhbmv: hbmv, Complex64;
}

/// Exports `spmv` and `hpmv`.
macro_rules! spmvs {
    ($($name:ident: $f:ident, $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            layout: c_int,
            uplo: c_int,
            n: Int,
            alpha: <$t as CblasScalar>::Value,
            ap: *const <$t as CblasScalar>::Array,
            x: *const <$t as CblasScalar>::Array,
            incx: Int,
            beta: <$t as CblasScalar>::Value,
            y: *mut <$t as CblasScalar>::Array,
            incy: Int,
        ) {
            // SAFETY: complex scalars are passed by address.
            let (alpha, beta) = unsafe { (<$t>::value(alpha), <$t>::value(beta)) };
            spmv::<$t>(
                Call(stringify!($name)),
                blas2::$f::<$t>,
                (layout, uplo),
                n,
                alpha,
                ap.cast(),
                (x.cast(), incx),
                beta,
                (y.cast(), incy),
            )
        }
    )*};
}
spmvs! {
    cblas_sspmv: spmv, f32;
    cblas_dspmv: spmv, f64;
    cblas_chpmv: hpmv, Complex32;
    cblas_zhpmv: hpmv, Complex64;
}

/// Exports `trmv` and `trsv`.
macro_rules! trmvs {
    ($($name:ident: $f:ident, $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            layout: c_int,
            uplo: c_int,
            trans: c_int,
            diag: c_int,
            n: Int,
            a: *const <$t as CblasScalar>::Array,
            lda: Int,
            x: *mut <$t as CblasScalar>::Array,
            incx: Int,
        ) {
            trmv::<$t>(
                Call(stringify!($name)),
                blas2::$f::<$t>,
                (layout, uplo, trans, diag),
                n,
                (a.cast(), lda),
                (x.cast(), incx),
            )
        }
    )*};
}
trmvs! {
    cblas_strmv: trmv, f32;
    cblas_dtrmv: trmv, f64;
    cblas_ctrmv: trmv, Complex32;
    cblas_ztrmv: trmv, Complex64;
    cblas_strsv: trsv, f32;
    cblas_dtrsv: trsv, f64;
    cblas_ctrsv: trsv, Complex32;
    cblas_ztrsv: trsv, Complex64;
}

/// Exports `tbmv` and `tbsv`.
macro_rules! tbmvs {
    ($($name:ident: $f:ident, $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            layout: c_int,
            uplo: c_int,
            trans: c_int,
            diag: c_int,
            n: Int,
            k: Int,
            a: *const <$t as CblasScalar>::Array,
            lda: Int,
            x: *mut <$t as CblasScalar>::Array,
            incx: Int,
        ) {
            tbmv::<$t>(
                Call(stringify!($name)),
                blas2::$f::<$t>,
                (layout, uplo, trans, diag),
                (n, k),
                (a.cast(), lda),
                (x.cast(), incx),
            )
        }
    )*};
}
tbmvs! {
    cblas_stbmv: tbmv, f32;
    cblas_dtbmv: tbmv, f64;
    cblas_ctbmv: tbmv, Complex32;
    cblas_ztbmv: tbmv, Complex64;
    cblas_stbsv: tbsv, f32;
    cblas_dtbsv: tbsv, f64;
    cblas_ctbsv: tbsv, Complex32;
    cblas_ztbsv: tbsv, Complex64;
}

/// Exports `tpmv` and `tpsv`.
macro_rules! tpmvs {
    ($($name:ident: $f:ident, $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            layout: c_int,
            uplo: c_int,
            trans: c_int,
            diag: c_int,
            n: Int,
            ap: *const <$t as CblasScalar>::Array,
            x: *mut <$t as CblasScalar>::Array,
            incx: Int,
        ) {
            tpmv::<$t>(
                Call(stringify!($name)),
                blas2::$f::<$t>,
                (layout, uplo, trans, diag),
                n,
                ap.cast(),
                (x.cast(), incx),
            )
        }
    )*};
}
tpmvs! {
    cblas_stpmv: tpmv, f32;
    cblas_dtpmv: tpmv, f64;
    cblas_ctpmv: tpmv, Complex32;
    cblas_ztpmv: tpmv, Complex64;
    cblas_stpsv: tpsv, f32;
    cblas_dtpsv: tpsv, f64;
    cblas_ctpsv: tpsv, Complex32;
    cblas_ztpsv: tpsv, Complex64;
}

/// Exports `ger`, `geru` and `gerc` (`$f`: gpublas's routine for column-major, `$row` for
/// row-major, `$conj_y`: whether row-major runs on a conjugated copy of `y`).
macro_rules! gers {
    ($($name:ident: $f:ident, $row:ident, $conj_y:expr, $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            layout: c_int,
            m: Int,
            n: Int,
            alpha: <$t as CblasScalar>::Value,
            x: *const <$t as CblasScalar>::Array,
            incx: Int,
            y: *const <$t as CblasScalar>::Array,
            incy: Int,
            a: *mut <$t as CblasScalar>::Array,
            lda: Int,
        ) {
            // SAFETY: a complex alpha is passed by address.
            let alpha = unsafe { <$t>::value(alpha) };
            ger::<$t>(
                Call(stringify!($name)),
                (blas2::$f::<$t>, blas2::$row::<$t>, $conj_y),
                layout,
                (m, n),
                alpha,
                (x.cast(), incx),
                (y.cast(), incy),
                (a.cast(), lda),
            )
        }
    )*};
}
gers! {
    cblas_sger: ger, ger, false, f32;
    cblas_dger: ger, ger, false, f64;
    cblas_cgeru: geru, geru, false, Complex32;
    cblas_zgeru: geru, geru, false, Complex64;
    cblas_cgerc: gerc, geru, true, Complex32;
    cblas_zgerc: gerc, geru, true, Complex64;
}

/// Exports `syr` and `her` (alpha real).
macro_rules! syrs {
    ($($name:ident: $f:ident, $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            layout: c_int,
            uplo: c_int,
            n: Int,
            alpha: <$t as Scalar>::Real,
            x: *const <$t as CblasScalar>::Array,
            incx: Int,
            a: *mut <$t as CblasScalar>::Array,
            lda: Int,
        ) {
            syr::<$t, <$t as Scalar>::Real>(
                Call(stringify!($name)),
                blas2::$f::<$t>,
                (layout, uplo),
                n,
                alpha,
                (x.cast(), incx),
                (a.cast(), lda),
            )
        }
    )*};
}
syrs! {
    cblas_ssyr: syr, f32;
    cblas_dsyr: syr, f64;
    cblas_cher: her, Complex32;
    cblas_zher: her, Complex64;
}

/// Exports `spr` and `hpr` (alpha real).
macro_rules! sprs {
    ($($name:ident: $f:ident, $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            layout: c_int,
            uplo: c_int,
            n: Int,
            alpha: <$t as Scalar>::Real,
            x: *const <$t as CblasScalar>::Array,
            incx: Int,
            ap: *mut <$t as CblasScalar>::Array,
        ) {
            spr::<$t, <$t as Scalar>::Real>(
                Call(stringify!($name)),
                blas2::$f::<$t>,
                (layout, uplo),
                n,
                alpha,
                (x.cast(), incx),
                ap.cast(),
            )
        }
    )*};
}
sprs! {
    cblas_sspr: spr, f32;
    cblas_dspr: spr, f64;
    cblas_chpr: hpr, Complex32;
    cblas_zhpr: hpr, Complex64;
}

/// Exports `syr2` and `her2`.
macro_rules! syr2s {
    ($($name:ident: $f:ident, $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            layout: c_int,
            uplo: c_int,
            n: Int,
            alpha: <$t as CblasScalar>::Value,
            x: *const <$t as CblasScalar>::Array,
            incx: Int,
            y: *const <$t as CblasScalar>::Array,
            incy: Int,
            a: *mut <$t as CblasScalar>::Array,
            lda: Int,
        ) {
            // SAFETY: a complex alpha is passed by address.
            let alpha = unsafe { <$t>::value(alpha) };
            syr2::<$t>(
                Call(stringify!($name)),
                blas2::$f::<$t>,
                (layout, uplo),
                n,
                alpha,
                (x.cast(), incx),
                (y.cast(), incy),
                (a.cast(), lda),
            )
        }
    )*};
}
syr2s! {
    cblas_ssyr2: syr2, f32;
    cblas_dsyr2: syr2, f64;
    cblas_cher2: her2, Complex32;
    cblas_zher2: her2, Complex64;
}

/// Exports `spr2` and `hpr2`.
macro_rules! spr2s {
    ($($name:ident: $f:ident, $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            layout: c_int,
            uplo: c_int,
            n: Int,
            alpha: <$t as CblasScalar>::Value,
            x: *const <$t as CblasScalar>::Array,
            incx: Int,
            y: *const <$t as CblasScalar>::Array,
            incy: Int,
            ap: *mut <$t as CblasScalar>::Array,
        ) {
            // SAFETY: a complex alpha is passed by address.
            let alpha = unsafe { <$t>::value(alpha) };
            spr2::<$t>(
                Call(stringify!($name)),
                blas2::$f::<$t>,
                (layout, uplo),
                n,
                alpha,
                (x.cast(), incx),
                (y.cast(), incy),
                ap.cast(),
            )
        }
    )*};
}
spr2s! {
    cblas_sspr2: spr2, f32;
    cblas_dspr2: spr2, f64;
    cblas_chpr2: hpr2, Complex32;
    cblas_zhpr2: hpr2, Complex64;
}
