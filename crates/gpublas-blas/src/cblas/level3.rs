//! CBLAS Level 3: the matrix-matrix routines, over `crate::level3`'s generic functions.
//!
//! A row-major matrix is the column-major transpose, so a row-major call becomes reference
//! CBLAS's column-major call of the transposed problem: `Cᵀ = op(B)ᵀ op(A)ᵀ` for `gemm` (the
//! operands swap), SIDE and UPLO flipped and `m`, `n` swapped for `symm`, `hemm`, `trmm`,
//! `trsm`, UPLO and TRANS flipped for the rank-k updates (`her2k` also conjugates alpha).
//! Unlike Level 2, every transpose has a column-major form: no data is copied.

use std::ffi::{c_int, c_void};

use gpublas::{Complex32, Complex64, Scalar};

use super::{arg, flip_side, flip_uplo, Arg, Call, CblasScalar, Layout};
use crate::ffi::Int;
use crate::level3;

/// `crate::level3`'s `symm` or `hemm`.
type SymmFn<T> =
    fn(&str, (u8, u8), (Int, Int), T, (*const T, Int), (*const T, Int), T, (*mut T, Int));

/// `crate::level3`'s `syrk` or `herk` (`S`: the type of alpha and beta, real for `herk`).
type RankKFn<T, S> = fn(&str, (u8, u8), (Int, Int), S, (*const T, Int), S, (*mut T, Int));

/// `crate::level3`'s `syr2k` or `her2k` (`S`: the type of beta, real for `her2k`).
type Rank2KFn<T, S> =
    fn(&str, (u8, u8), (Int, Int), T, (*const T, Int), (*const T, Int), S, (*mut T, Int));

/// `C = alpha op(A) op(B) + beta C`, `C` `m × n`.
#[allow(clippy::too_many_arguments)]
fn gemm<T: Scalar>(
    call: Call,
    (layout, transa, transb): (c_int, c_int, c_int),
    (m, n, k): (Int, Int, Int),
    alpha: T,
    (a, lda): (*const T, Int),
    (b, ldb): (*const T, Int),
    beta: T,
    (c, ldc): (*mut T, Int),
) {
    let Some(layout) = call.layout(layout) else {
        return;
    };
    let Some(transa) = call.trans(2, "TransA", transa) else {
        return;
    };
    let Some(transb) = call.trans(3, "TransB", transb) else {
        return;
    };
    // The operands of the column-major call, each with its TRANS, in the call's order.
    let a = (transa, a, arg(lda, 9));
    let b = (transb, b, arg(ldb, 11));
    let (rows, cols, (ta, fa, flda), (tb, fb, fldb)) = match layout {
        Layout::ColMajor => (arg(m, 4), arg(n, 5), a, b),
        Layout::RowMajor => (arg(n, 5), arg(m, 4), b, a),
    };
    let nrowa = if ta == b'N' { rows.value } else { k };
    let nrowb = if tb == b'N' { k } else { cols.value };
    let checks = [
        (rows.value < 0, rows.position),
        (cols.value < 0, cols.position),
        (k < 0, 6),
        (flda.value < nrowa.max(1), flda.position),
        (fldb.value < nrowb.max(1), fldb.position),
        (ldc < rows.value.max(1), 14),
    ];
    if !call.legal(&checks) {
        return;
    }
    level3::gemm(
        call.0,
        (ta, tb),
        (rows.value, cols.value, k),
        alpha,
        (fa, flda.value),
        (fb, fldb.value),
        beta,
        (c, ldc),
    );
}

/// The order of `C` as the column-major call sees it: `m × n`, or `n × m` for row-major (the
/// arguments carry their CBLAS positions, 4 and 5 in `symm`, 6 and 7 in `trmm`).
fn order(layout: Layout, m: Arg, n: Arg) -> (Arg, Arg) {
    match layout {
        Layout::ColMajor => (m, n),
        Layout::RowMajor => (n, m),
    }
}

/// SIDE and UPLO as the column-major call takes them: flipped for row-major.
fn side_uplo(layout: Layout, side: u8, uplo: u8) -> (u8, u8) {
    match layout {
        Layout::ColMajor => (side, uplo),
        Layout::RowMajor => (flip_side(side), flip_uplo(uplo)),
    }
}

/// `symm`, `hemm`: `C = alpha A B + beta C` or `alpha B A + beta C`, `A` symmetric or
/// Hermitian (`f`).
#[allow(clippy::too_many_arguments)]
fn symm<T: Scalar>(
    call: Call,
    f: SymmFn<T>,
    (layout, side, uplo): (c_int, c_int, c_int),
    (m, n): (Int, Int),
    alpha: T,
    (a, lda): (*const T, Int),
    (b, ldb): (*const T, Int),
    beta: T,
    (c, ldc): (*mut T, Int),
) {
    let Some(layout) = call.layout(layout) else {
        return;
    };
    let Some(side) = call.side(2, side) else {
        return;
    };
    let Some(uplo) = call.uplo(3, uplo) else {
        return;
    };
    let (side, uplo) = side_uplo(layout, side, uplo);
    let (rows, cols) = order(layout, arg(m, 4), arg(n, 5));
    let nrowa = if side == b'L' { rows.value } else { cols.value };
    let checks = [
        (rows.value < 0, rows.position),
        (cols.value < 0, cols.position),
        (lda < nrowa.max(1), 8),
        (ldb < rows.value.max(1), 10),
        (ldc < rows.value.max(1), 13),
    ];
    if !call.legal(&checks) {
        return;
    }
    let dims = (rows.value, cols.value);
    f(
        call.0,
        (side, uplo),
        dims,
        alpha,
        (a, lda),
        (b, ldb),
        beta,
        (c, ldc),
    );
}

/// A rank-k or rank-2k update's options as its column-major call takes them.
struct RankOptions {
    layout: Layout,
    /// UPLO and TRANS.
    letters: (u8, u8),
    /// Whether the Fortran routine rejects TRANS (position 3): the complex symmetric updates
    /// take no `C`, the Hermitian ones no `T`.
    bad_trans: bool,
    /// The rows `A` (and `B`) are declared with.
    nrowa: Int,
}

/// The options of a rank-k or rank-2k update (positions 1 to 3), or `None` after reporting an
/// illegal one. Row-major flips UPLO and TRANS: `N` becomes `C` for the Hermitian updates, `T`
/// otherwise; `T` and `C` become `N`.
fn rank_options<T: Scalar>(
    call: Call,
    hermitian: bool,
    (layout, uplo, trans): (c_int, c_int, c_int),
    (n, k): (Int, Int),
) -> Option<RankOptions> {
    let layout = call.layout(layout)?;
    let uplo = call.uplo(2, uplo)?;
    let trans = call.trans(3, "Trans", trans)?;
    let (uplo, trans) = match layout {
        Layout::ColMajor => (uplo, trans),
        Layout::RowMajor => {
            let flipped = match trans {
                b'N' if hermitian => b'C',
                b'N' => b'T',
                _ => b'N',
            };
            (flip_uplo(uplo), flipped)
        }
    };
    let allowed: &[u8] = match (hermitian, T::COMPLEX) {
        (true, _) => b"NC",
        (false, true) => b"NT",
        (false, false) => b"NTC",
    };
    let nrowa = if trans == b'N' { n } else { k };
    Some(RankOptions {
        layout,
        letters: (uplo, trans),
        bad_trans: !allowed.contains(&trans),
        nrowa,
    })
}

/// `syrk`, `herk`: `C = alpha op(A) op(A)ᵀ + beta C` (`ᴴ`, alpha and beta real, for `herk`) on
/// a triangle.
#[allow(clippy::too_many_arguments)]
fn rank_k<T: Scalar, S: Copy>(
    call: Call,
    (f, hermitian): (RankKFn<T, S>, bool),
    options: (c_int, c_int, c_int),
    (n, k): (Int, Int),
    alpha: S,
    (a, lda): (*const T, Int),
    beta: S,
    (c, ldc): (*mut T, Int),
) {
    let Some(o) = rank_options::<T>(call, hermitian, options, (n, k)) else {
        return;
    };
    let checks = [
        (o.bad_trans, 3),
        (n < 0, 4),
        (k < 0, 5),
        (lda < o.nrowa.max(1), 8),
        (ldc < n.max(1), 11),
    ];
    if call.legal(&checks) {
        f(call.0, o.letters, (n, k), alpha, (a, lda), beta, (c, ldc));
    }
}

/// `syr2k`, `her2k`: `C = alpha op(A) op(B)ᵀ + alpha op(B) op(A)ᵀ + beta C` (Hermitian: `ᴴ`,
/// `conj(alpha)` on the second term, beta real) on a triangle. Row-major `her2k` takes
/// `conj(alpha)`: the transposed update swaps the two terms.
#[allow(clippy::too_many_arguments)]
fn rank_2k<T: Scalar, S: Copy>(
    call: Call,
    (f, hermitian): (Rank2KFn<T, S>, bool),
    options: (c_int, c_int, c_int),
    (n, k): (Int, Int),
    alpha: T,
    (a, lda): (*const T, Int),
    (b, ldb): (*const T, Int),
    beta: S,
    (c, ldc): (*mut T, Int),
) {
    let Some(o) = rank_options::<T>(call, hermitian, options, (n, k)) else {
        return;
    };
    let checks = [
        (o.bad_trans, 3),
        (n < 0, 4),
        (k < 0, 5),
        (lda < o.nrowa.max(1), 8),
        (ldb < o.nrowa.max(1), 10),
        (ldc < n.max(1), 13),
    ];
    if !call.legal(&checks) {
        return;
    }
    let alpha = if hermitian && o.layout == Layout::RowMajor {
        alpha.conj()
    } else {
        alpha
    };
    f(
        call.0,
        o.letters,
        (n, k),
        alpha,
        (a, lda),
        (b, ldb),
        beta,
        (c, ldc),
    );
}

/// `trmm` (`solve == false`) and `trsm` (`solve`): `B = alpha op(A) B`, `alpha B op(A)`, or the
/// solves, `A` triangular. Row-major flips SIDE and UPLO and swaps `m`, `n`; TRANS stays.
#[allow(clippy::too_many_arguments)]
fn triangular<T: Scalar>(
    call: Call,
    solve: bool,
    (layout, side, uplo, trans, diag): (c_int, c_int, c_int, c_int, c_int),
    (m, n): (Int, Int),
    alpha: T,
    (a, lda): (*const T, Int),
    (b, ldb): (*mut T, Int),
) {
    let Some(layout) = call.layout(layout) else {
        return;
    };
    let Some(side) = call.side(2, side) else {
        return;
    };
    let Some(uplo) = call.uplo(3, uplo) else {
        return;
    };
    let Some(trans) = call.trans(4, "Trans", trans) else {
        return;
    };
    let Some(diag) = call.diag(5, diag) else {
        return;
    };
    let (side, uplo) = side_uplo(layout, side, uplo);
    let (rows, cols) = order(layout, arg(m, 6), arg(n, 7));
    let nrowa = if side == b'L' { rows.value } else { cols.value };
    let checks = [
        (rows.value < 0, rows.position),
        (cols.value < 0, cols.position),
        (lda < nrowa.max(1), 10),
        (ldb < rows.value.max(1), 12),
    ];
    if !call.legal(&checks) {
        return;
    }
    level3::triangular(
        call.0,
        solve,
        (side, uplo, trans, diag),
        (rows.value, cols.value),
        alpha,
        (a, lda),
        (b, ldb),
    );
}

// ---- the exports ------------------------------------------------------------------------

/// Exports `gemm`.
macro_rules! gemms {
    ($($name:ident: $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            layout: c_int,
            transa: c_int,
            transb: c_int,
            m: Int,
            n: Int,
            k: Int,
            alpha: <$t as CblasScalar>::Value,
            a: *const <$t as CblasScalar>::Array,
            lda: Int,
            b: *const <$t as CblasScalar>::Array,
            ldb: Int,
            beta: <$t as CblasScalar>::Value,
            c: *mut <$t as CblasScalar>::Array,
            ldc: Int,
        ) {
            // SAFETY: complex scalars are passed by address.
            let (alpha, beta) = unsafe { (<$t>::value(alpha), <$t>::value(beta)) };
            gemm::<$t>(
                Call(stringify!($name)),
                (layout, transa, transb),
                (m, n, k),
                alpha,
                (a.cast(), lda),
                (b.cast(), ldb),
                beta,
                (c.cast(), ldc),
            )
        }
    )*};
}
gemms! {
    cblas_sgemm: f32;
    cblas_dgemm: f64;
    cblas_cgemm: Complex32;
    cblas_zgemm: Complex64;
}

/// Exports `symm` and `hemm` (`$f`: `crate::level3`'s function).
macro_rules! symms {
    ($($name:ident: $f:ident, $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            layout: c_int,
            side: c_int,
            uplo: c_int,
            m: Int,
            n: Int,
            alpha: <$t as CblasScalar>::Value,
            a: *const <$t as CblasScalar>::Array,
            lda: Int,
            b: *const <$t as CblasScalar>::Array,
            ldb: Int,
            beta: <$t as CblasScalar>::Value,
            c: *mut <$t as CblasScalar>::Array,
            ldc: Int,
        ) {
            // SAFETY: complex scalars are passed by address.
            let (alpha, beta) = unsafe { (<$t>::value(alpha), <$t>::value(beta)) };
            symm::<$t>(
                Call(stringify!($name)),
                level3::$f::<$t>,
                (layout, side, uplo),
                (m, n),
                alpha,
                (a.cast(), lda),
                (b.cast(), ldb),
                beta,
                (c.cast(), ldc),
            )
        }
    )*};
}
symms! {
    cblas_ssymm: symm, f32;
    cblas_dsymm: symm, f64;
    cblas_csymm: symm, Complex32;
    cblas_zsymm: symm, Complex64;
    cblas_chemm: hemm, Complex32;
    cblas_zhemm: hemm, Complex64;
}

/// Exports `syrk` (alpha and beta of the matrices' type).
macro_rules! syrks {
    ($($name:ident: $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            layout: c_int,
            uplo: c_int,
            trans: c_int,
            n: Int,
            k: Int,
            alpha: <$t as CblasScalar>::Value,
            a: *const <$t as CblasScalar>::Array,
            lda: Int,
            beta: <$t as CblasScalar>::Value,
            c: *mut <$t as CblasScalar>::Array,
            ldc: Int,
        ) {
            // SAFETY: complex scalars are passed by address.
            let (alpha, beta) = unsafe { (<$t>::value(alpha), <$t>::value(beta)) };
            rank_k::<$t, $t>(
                Call(stringify!($name)),
                (level3::syrk::<$t>, false),
                (layout, uplo, trans),
                (n, k),
                alpha,
                (a.cast(), lda),
                beta,
                (c.cast(), ldc),
            )
        }
    )*};
}
syrks! {
    cblas_ssyrk: f32;
    cblas_dsyrk: f64;
    cblas_csyrk: Complex32;
    cblas_zsyrk: Complex64;
}

/// Exports `herk` (alpha and beta real).
macro_rules! herks {
    ($($name:ident: $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            layout: c_int,
            uplo: c_int,
            trans: c_int,
            n: Int,
            k: Int,
            alpha: <$t as Scalar>::Real,
            a: *const <$t as CblasScalar>::Array,
            lda: Int,
            beta: <$t as Scalar>::Real,
            c: *mut <$t as CblasScalar>::Array,
            ldc: Int,
        ) {
            rank_k::<$t, <$t as Scalar>::Real>(
                Call(stringify!($name)),
                (level3::herk::<$t>, true),
                (layout, uplo, trans),
                (n, k),
                alpha,
                (a.cast(), lda),
                beta,
                (c.cast(), ldc),
            )
        }
    )*};
}
herks! {
    cblas_cherk: Complex32;
    cblas_zherk: Complex64;
}

/// Exports `syr2k` and `her2k` (`$beta`: beta's argument type: the matrices' scalar for
/// `syr2k`, real and by value for `her2k`, read by `$read`).
macro_rules! rank_2ks {
    ($($name:ident: $f:ident, $t:ty, $hermitian:expr, $beta:ty, $read:expr;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            layout: c_int,
            uplo: c_int,
            trans: c_int,
            n: Int,
            k: Int,
            alpha: <$t as CblasScalar>::Value,
            a: *const <$t as CblasScalar>::Array,
            lda: Int,
            b: *const <$t as CblasScalar>::Array,
            ldb: Int,
            beta: $beta,
            c: *mut <$t as CblasScalar>::Array,
            ldc: Int,
        ) {
            // SAFETY: complex scalars are passed by address.
            let (alpha, beta) = unsafe { (<$t>::value(alpha), $read(beta)) };
            rank_2k(
                Call(stringify!($name)),
                (level3::$f::<$t>, $hermitian),
                (layout, uplo, trans),
                (n, k),
                alpha,
                (a.cast(), lda),
                (b.cast(), ldb),
                beta,
                (c.cast(), ldc),
            )
        }
    )*};
}
rank_2ks! {
    cblas_ssyr2k: syr2k, f32, false, f32, f32::value;
    cblas_dsyr2k: syr2k, f64, false, f64, f64::value;
    cblas_csyr2k: syr2k, Complex32, false, *const c_void, Complex32::value;
    cblas_zsyr2k: syr2k, Complex64, false, *const c_void, Complex64::value;
    cblas_cher2k: her2k, Complex32, true, f32, f32::value;
    cblas_zher2k: her2k, Complex64, true, f64, f64::value;
}

/// Exports `trmm` (`$solve` false) and `trsm` (`$solve` true).
macro_rules! triangulars {
    ($($name:ident: $t:ty, $solve:expr;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            layout: c_int,
            side: c_int,
            uplo: c_int,
            trans: c_int,
            diag: c_int,
            m: Int,
            n: Int,
            alpha: <$t as CblasScalar>::Value,
            a: *const <$t as CblasScalar>::Array,
            lda: Int,
            b: *mut <$t as CblasScalar>::Array,
            ldb: Int,
        ) {
            // SAFETY: a complex alpha is passed by address.
            let alpha = unsafe { <$t>::value(alpha) };
            triangular::<$t>(
                Call(stringify!($name)),
                $solve,
                (layout, side, uplo, trans, diag),
                (m, n),
                alpha,
                (a.cast(), lda),
                (b.cast(), ldb),
            )
        }
    )*};
}
triangulars! {
    cblas_strmm: f32, false;
    cblas_dtrmm: f64, false;
    cblas_ctrmm: Complex32, false;
    cblas_ztrmm: Complex64, false;
    cblas_strsm: f32, true;
    cblas_dtrsm: f64, true;
    cblas_ctrsm: Complex32, true;
    cblas_ztrsm: Complex64, true;
}
