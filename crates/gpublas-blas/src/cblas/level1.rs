//! CBLAS Level 1: the vector routines, over `crate::level1`'s generic functions. They have no
//! layout and no argument errors; complex dot products return through a pointer (`_sub`), and
//! `cblas_i?amax` returns a 0-based index.

use std::ffi::c_void;

use gpublas::{Complex32, Complex64, Scalar};

use super::CblasScalar;
use crate::ffi::{read, Int};
use crate::level1::{
    asum, axpy, copy, dot, dot_f64, iamax, nrm2, rot, rotg, rotm, rotmg, scal, swap,
};

/// Exports a real-valued reduction of one vector (`cblas_sasum`, `cblas_dznrm2`, …).
macro_rules! reductions {
    ($($name:ident: $f:ident, $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// `x` points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            n: Int,
            x: *const <$t as CblasScalar>::Array,
            incx: Int,
        ) -> <$t as Scalar>::Real {
            $f::<$t>(n, x.cast(), incx)
        }
    )*};
}
reductions! {
    cblas_sasum: asum, f32;
    cblas_dasum: asum, f64;
    cblas_scasum: asum, Complex32;
    cblas_dzasum: asum, Complex64;
    cblas_snrm2: nrm2, f32;
    cblas_dnrm2: nrm2, f64;
    cblas_scnrm2: nrm2, Complex32;
    cblas_dznrm2: nrm2, Complex64;
}

/// Exports `i?amax`: the 0-based index of the first entry of largest `|re| + |im|` (0 for no
/// entries, as the reference).
macro_rules! iamaxs {
    ($($name:ident: $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// `x` points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            n: Int,
            x: *const <$t as CblasScalar>::Array,
            incx: Int,
        ) -> usize {
            // The Fortran index is 1-based, 0 when there is no entry.
            (iamax::<$t>(n, x.cast(), incx) - 1).max(0) as usize
        }
    )*};
}
iamaxs! {
    cblas_isamax: f32;
    cblas_idamax: f64;
    cblas_icamax: Complex32;
    cblas_izamax: Complex64;
}

/// Exports the real dot products.
macro_rules! real_dots {
    ($($name:ident: $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// `x` and `y` point to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(n: Int, x: *const $t, incx: Int, y: *const $t, incy: Int) -> $t {
            dot::<$t>(false, n, x, incx, y, incy)
        }
    )*};
}
real_dots! { cblas_sdot: f32; cblas_ddot: f64; }

/// Exports the complex dot products, which CBLAS returns through `result`.
macro_rules! complex_dots {
    ($($name:ident: $conj:expr, $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// `x` and `y` point to what the reference interface says, `result` to a complex value.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            n: Int,
            x: *const c_void,
            incx: Int,
            y: *const c_void,
            incy: Int,
            result: *mut c_void,
        ) {
            let r = dot::<$t>($conj, n, x.cast(), incx, y.cast(), incy);
            // SAFETY: as documented above.
            unsafe { result.cast::<$t>().write_unaligned(r) };
        }
    )*};
}
complex_dots! {
    cblas_cdotu_sub: false, Complex32;
    cblas_zdotu_sub: false, Complex64;
    cblas_cdotc_sub: true, Complex32;
    cblas_zdotc_sub: true, Complex64;
}

/// Reference CBLAS `cblas_dsdot`: the dot product of f32 vectors, accumulated and returned in
/// f64.
///
/// # Safety
/// `x` and `y` point to what the reference interface says.
#[no_mangle]
pub unsafe extern "C" fn cblas_dsdot(
    n: Int,
    x: *const f32,
    incx: Int,
    y: *const f32,
    incy: Int,
) -> f64 {
    dot_f64(n, x, incx, y, incy)
}

/// Reference CBLAS `cblas_sdsdot`: `alpha` plus the dot product of f32 vectors, accumulated in
/// f64.
///
/// # Safety
/// `x` and `y` point to what the reference interface says.
#[no_mangle]
pub unsafe extern "C" fn cblas_sdsdot(
    n: Int,
    alpha: f32,
    x: *const f32,
    incx: Int,
    y: *const f32,
    incy: Int,
) -> f32 {
    (alpha as f64 + dot_f64(n, x, incx, y, incy)) as f32
}

/// Exports `axpy`.
macro_rules! axpys {
    ($($name:ident: $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            n: Int,
            alpha: <$t as CblasScalar>::Value,
            x: *const <$t as CblasScalar>::Array,
            incx: Int,
            y: *mut <$t as CblasScalar>::Array,
            incy: Int,
        ) {
            // SAFETY: a complex alpha is passed by address.
            let alpha = unsafe { <$t>::value(alpha) };
            axpy::<$t>(n, alpha, x.cast(), incx, y.cast(), incy)
        }
    )*};
}
axpys! { cblas_saxpy: f32; cblas_daxpy: f64; cblas_caxpy: Complex32; cblas_zaxpy: Complex64; }

/// Exports `scal` whose alpha has the vector's type.
macro_rules! scals {
    ($($name:ident: $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            n: Int,
            alpha: <$t as CblasScalar>::Value,
            x: *mut <$t as CblasScalar>::Array,
            incx: Int,
        ) {
            // SAFETY: a complex alpha is passed by address.
            let alpha = unsafe { <$t>::value(alpha) };
            scal::<$t>(n, alpha, x.cast(), incx)
        }
    )*};
}
scals! { cblas_sscal: f32; cblas_dscal: f64; cblas_cscal: Complex32; cblas_zscal: Complex64; }

/// Exports `scal` of a complex vector by a real alpha (`cblas_csscal`, `cblas_zdscal`).
macro_rules! real_scals {
    ($($name:ident: $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// `x` points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(n: Int, alpha: <$t as Scalar>::Real, x: *mut c_void, incx: Int) {
            scal::<$t>(n, <$t>::from_real(alpha), x.cast(), incx)
        }
    )*};
}
real_scals! { cblas_csscal: Complex32; cblas_zdscal: Complex64; }

/// Exports `copy` and `swap` (`$x`: how `x` is passed, read-only for `copy`).
macro_rules! pairs {
    ($($name:ident: $f:ident, $t:ty, $x:ident;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// `x` and `y` point to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            n: Int,
            x: *$x <$t as CblasScalar>::Array,
            incx: Int,
            y: *mut <$t as CblasScalar>::Array,
            incy: Int,
        ) {
            $f::<$t>(n, x.cast(), incx, y.cast(), incy)
        }
    )*};
}
pairs! {
    cblas_scopy: copy, f32, const;
    cblas_dcopy: copy, f64, const;
    cblas_ccopy: copy, Complex32, const;
    cblas_zcopy: copy, Complex64, const;
    cblas_sswap: swap, f32, mut;
    cblas_dswap: swap, f64, mut;
    cblas_cswap: swap, Complex32, mut;
    cblas_zswap: swap, Complex64, mut;
}

/// Exports `rot` with real `c` and `s` (`cblas_csrot`, `cblas_zdrot`: complex vectors).
macro_rules! rots {
    ($($name:ident: $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// `x` and `y` point to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            n: Int,
            x: *mut <$t as CblasScalar>::Array,
            incx: Int,
            y: *mut <$t as CblasScalar>::Array,
            incy: Int,
            c: <$t as Scalar>::Real,
            s: <$t as Scalar>::Real,
        ) {
            rot::<$t>(n, x.cast(), incx, y.cast(), incy, c, <$t>::from_real(s))
        }
    )*};
}
rots! { cblas_srot: f32; cblas_drot: f64; cblas_csrot: Complex32; cblas_zdrot: Complex64; }

/// Exports `rotm` and `rotmg` (`rotmg`'s `b2` by value).
macro_rules! modified_rotations {
    ($($rotm:ident, $rotmg:ident: $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($rotm), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $rotm(n: Int, x: *mut $t, incx: Int, y: *mut $t, incy: Int, p: *const $t) {
            rotm::<$t>(n, x, incx, y, incy, p)
        }

        #[doc = concat!("Reference CBLAS `", stringify!($rotmg), "`.")]
        ///
        /// # Safety
        /// Every pointer points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $rotmg(d1: *mut $t, d2: *mut $t, b1: *mut $t, b2: $t, p: *mut $t) {
            rotmg::<$t>(d1, d2, b1, &b2, p)
        }
    )*};
}
modified_rotations! { cblas_srotm, cblas_srotmg: f32; cblas_drotm, cblas_drotmg: f64; }

/// Exports `rotg` (`cblas_crotg`, `cblas_zrotg`: `c` real).
macro_rules! rotgs {
    ($($name:ident: $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every pointer points to one scalar, as the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            a: *mut <$t as CblasScalar>::Array,
            b: *mut <$t as CblasScalar>::Array,
            c: *mut <$t as Scalar>::Real,
            s: *mut <$t as CblasScalar>::Array,
        ) {
            rotg::<$t>(a.cast(), b.cast(), c, s.cast())
        }
    )*};
}
rotgs! { cblas_srotg: f32; cblas_drotg: f64; cblas_crotg: Complex32; cblas_zrotg: Complex64; }

/// Exports `cabs1`: `|re z| + |im z|`.
macro_rules! cabs1s {
    ($($name:ident: $t:ty;)*) => {$(
        #[doc = concat!("Reference CBLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// `z` points to a complex value.
        #[no_mangle]
        pub unsafe extern "C" fn $name(z: *const c_void) -> <$t as Scalar>::Real {
            // SAFETY: as documented above.
            let z = unsafe { read(z.cast::<$t>()) };
            z.re.abs() + z.im.abs()
        }
    )*};
}
cabs1s! { cblas_scabs1: Complex32; cblas_dcabs1: Complex64; }
