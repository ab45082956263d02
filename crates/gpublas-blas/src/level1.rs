//! Level 1: the reference BLAS vector routines for s, d, c, z (and the mixed `sdsdot`, `dsdot`,
//! `csrot`, `zdrot`, `csscal`, `zdscal`, `scasum`, …), each a thin export over one generic
//! function that lends the caller's vectors to gpublas. Level 1 has no argument errors:
//! `n <= 0` returns at once, and gpublas keeps reference BLAS's meaning of every increment
//! (zero and negative included).

use gpublas::{blas1, Coef, Complex32, Complex64, Results, Scalar};

use crate::args::{lend, vec_len};
use crate::context::run;
use crate::ffi::{read, Int};

pub(crate) fn asum<T: Scalar>(n: Int, x: *const T, incx: Int) -> T::Real {
    if n <= 0 {
        return T::Real::zero();
    }
    run("ASUM", |h, dev| {
        let xb = lend!(dev, x, vec_len(n, incx));
        let mut r = [T::Real::zero()];
        let _ = blas1::asum(h, n as usize, &xb, incx as isize, Results::Host(&mut r))?;
        Ok(r[0])
    })
    .unwrap_or(T::Real::zero())
}

pub(crate) fn nrm2<T: Scalar>(n: Int, x: *const T, incx: Int) -> T::Real {
    if n <= 0 {
        return T::Real::zero();
    }
    run("NRM2", |h, dev| {
        let xb = lend!(dev, x, vec_len(n, incx));
        let mut r = [T::Real::zero()];
        let _ = blas1::nrm2(h, n as usize, &xb, incx as isize, Results::Host(&mut r))?;
        Ok(r[0])
    })
    .unwrap_or(T::Real::zero())
}

pub(crate) fn iamax<T: Scalar>(n: Int, x: *const T, incx: Int) -> Int {
    if n <= 0 || incx <= 0 {
        return 0;
    }
    run("IAMAX", |h, dev| {
        let xb = lend!(dev, x, vec_len(n, incx));
        let mut r = [0i64];
        let _ = blas1::iamax(h, n as usize, &xb, incx as isize, Results::Host(&mut r))?;
        Ok(r[0] as Int)
    })
    .unwrap_or(0)
}

pub(crate) fn dot<T: Scalar>(
    conj: bool,
    n: Int,
    x: *const T,
    incx: Int,
    y: *const T,
    incy: Int,
) -> T {
    if n <= 0 {
        return T::zero();
    }
    run("DOT", |h, dev| {
        let xb = lend!(dev, x, vec_len(n, incx));
        let yb = lend!(dev, y, vec_len(n, incy));
        let mut r = [T::zero()];
        let (nn, ix, iy) = (n as usize, incx as isize, incy as isize);
        if conj {
            let _ = blas1::dotc(h, nn, &xb, ix, &yb, iy, Results::Host(&mut r))?;
        } else {
            let _ = blas1::dot(h, nn, &xb, ix, &yb, iy, Results::Host(&mut r))?;
        }
        Ok(r[0])
    })
    .unwrap_or(T::zero())
}

/// `sum x_i y_i` of f32 vectors accumulated in f64 (`dsdot`, and `sdsdot` adds its `sb`).
pub(crate) fn dot_f64(n: Int, x: *const f32, incx: Int, y: *const f32, incy: Int) -> f64 {
    if n <= 0 {
        return 0.0;
    }
    run("DSDOT", |h, dev| {
        let xb = lend!(dev, x, vec_len(n, incx));
        let yb = lend!(dev, y, vec_len(n, incy));
        let mut r = [0.0f64];
        let (nn, ix, iy) = (n as usize, incx as isize, incy as isize);
        let _ = blas1::dot_ex::<f32, f64>(h, nn, &xb, ix, &yb, iy, Results::Host(&mut r))?;
        Ok(r[0])
    })
    .unwrap_or(0.0)
}

pub(crate) fn axpy<T: Scalar>(n: Int, alpha: T, x: *const T, incx: Int, y: *mut T, incy: Int) {
    if n <= 0 {
        return;
    }
    let _ = run("AXPY", |h, dev| {
        let xb = lend!(dev, x, vec_len(n, incx));
        let mut yb = lend!(dev, y, vec_len(n, incy));
        let (nn, ix, iy) = (n as usize, incx as isize, incy as isize);
        blas1::axpy(h, nn, Coef::Host(alpha), &xb, ix, &mut yb, iy)
    });
}

pub(crate) fn scal<T: Scalar>(n: Int, alpha: T, x: *mut T, incx: Int) {
    if n <= 0 || incx <= 0 {
        return;
    }
    let _ = run("SCAL", |h, dev| {
        let mut xb = lend!(dev, x, vec_len(n, incx));
        blas1::scal(h, n as usize, Coef::Host(alpha), &mut xb, incx as isize)
    });
}

pub(crate) fn copy<T: Scalar>(n: Int, x: *const T, incx: Int, y: *mut T, incy: Int) {
    if n <= 0 {
        return;
    }
    let _ = run("COPY", |h, dev| {
        let xb = lend!(dev, x, vec_len(n, incx));
        let mut yb = lend!(dev, y, vec_len(n, incy));
        blas1::copy(h, n as usize, &xb, incx as isize, &mut yb, incy as isize)
    });
}

pub(crate) fn swap<T: Scalar>(n: Int, x: *mut T, incx: Int, y: *mut T, incy: Int) {
    if n <= 0 {
        return;
    }
    let _ = run("SWAP", |h, dev| {
        let mut xb = lend!(dev, x, vec_len(n, incx));
        let mut yb = lend!(dev, y, vec_len(n, incy));
        blas1::swap(
            h,
            n as usize,
            &mut xb,
            incx as isize,
            &mut yb,
            incy as isize,
        )
    });
}

/// A plane rotation with a real `c` and `s` of the vectors' type (`srot`, `drot`, and `csrot`,
/// `zdrot` with `s` real).
#[allow(clippy::too_many_arguments)]
pub(crate) fn rot<T: Scalar>(n: Int, x: *mut T, incx: Int, y: *mut T, incy: Int, c: T::Real, s: T) {
    if n <= 0 {
        return;
    }
    let _ = run("ROT", |h, dev| {
        let mut xb = lend!(dev, x, vec_len(n, incx));
        let mut yb = lend!(dev, y, vec_len(n, incy));
        let (nn, ix, iy) = (n as usize, incx as isize, incy as isize);
        blas1::rot(
            h,
            nn,
            &mut xb,
            ix,
            &mut yb,
            iy,
            Coef::Host(c),
            Coef::Host(s),
        )
    });
}

pub(crate) fn rotm<T: gpublas::RealScalar + Scalar>(
    n: Int,
    x: *mut T,
    incx: Int,
    y: *mut T,
    incy: Int,
    param: *const T,
) {
    if n <= 0 {
        return;
    }
    let _ = run("ROTM", |h, dev| {
        let mut xb = lend!(dev, x, vec_len(n, incx));
        let mut yb = lend!(dev, y, vec_len(n, incy));
        let pb = lend!(dev, param, 5); // PARAM: flag, h11, h21, h12, h22

        let (nn, ix, iy) = (n as usize, incx as isize, incy as isize);
        blas1::rotm(h, nn, &mut xb, ix, &mut yb, iy, &pb)
    });
}

/// `rotg`: `a` becomes `r`, `c` and `s` the rotation; for real types `b` becomes `z`.
pub(crate) fn rotg<T: Scalar>(a: *mut T, b: *mut T, c: *mut T::Real, s: *mut T) {
    let _ = run("ROTG", |h, dev| {
        let (mut ab, mut bb) = (lend!(dev, a, 1), lend!(dev, b, 1));
        let (mut cb, mut sb) = (lend!(dev, c, 1), lend!(dev, s, 1));
        blas1::rotg(h, &mut ab, &mut bb, &mut cb, &mut sb)
    });
}

pub(crate) fn rotmg<T: gpublas::RealScalar + Scalar>(
    d1: *mut T,
    d2: *mut T,
    x1: *mut T,
    y1: *const T,
    param: *mut T,
) {
    let _ = run("ROTMG", |h, dev| {
        let (mut b1, mut b2) = (lend!(dev, d1, 1), lend!(dev, d2, 1));
        let (mut bx, by, mut bp) = (lend!(dev, x1, 1), lend!(dev, y1, 1), lend!(dev, param, 5));
        blas1::rotmg(h, &mut b1, &mut b2, &mut bx, &by, &mut bp)
    });
}

// ---- the exports ------------------------------------------------------------------------

/// Exports a real-valued reduction of one vector (`sasum_`, `dznrm2_`, …).
macro_rules! reduction {
    ($($name:ident: $f:ident, $t:ty => $r:ty;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(n: *const Int, x: *const $t, incx: *const Int) -> $r {
            // SAFETY: scalar arguments by reference.
            let (n, incx) = unsafe { (read(n), read(incx)) };
            $f::<$t>(n, x, incx)
        }
    )*};
}
reduction! {
    sasum_: asum, f32 => f32;
    dasum_: asum, f64 => f64;
    scasum_: asum, Complex32 => f32;
    dzasum_: asum, Complex64 => f64;
    snrm2_: nrm2, f32 => f32;
    dnrm2_: nrm2, f64 => f64;
    scnrm2_: nrm2, Complex32 => f32;
    dznrm2_: nrm2, Complex64 => f64;
    isamax_: iamax, f32 => Int;
    idamax_: iamax, f64 => Int;
    icamax_: iamax, Complex32 => Int;
    izamax_: iamax, Complex64 => Int;
}

/// Exports a dot product (`sdot_`, `cdotu_`, `zdotc_`, …): complex results return by value,
/// as gfortran returns COMPLEX functions.
macro_rules! dots {
    ($($name:ident: $conj:expr, $t:ty;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            n: *const Int,
            x: *const $t,
            incx: *const Int,
            y: *const $t,
            incy: *const Int,
        ) -> $t {
            // SAFETY: scalar arguments by reference.
            let (n, incx, incy) = unsafe { (read(n), read(incx), read(incy)) };
            dot::<$t>($conj, n, x, incx, y, incy)
        }
    )*};
}
dots! {
    sdot_: false, f32;
    ddot_: false, f64;
    cdotu_: false, Complex32;
    zdotu_: false, Complex64;
    cdotc_: true, Complex32;
    zdotc_: true, Complex64;
}

/// Reference BLAS `dsdot_`: the dot product of f32 vectors, accumulated and returned in f64.
///
/// # Safety
/// Every argument points to what the reference interface says.
#[no_mangle]
pub unsafe extern "C" fn dsdot_(
    n: *const Int,
    x: *const f32,
    incx: *const Int,
    y: *const f32,
    incy: *const Int,
) -> f64 {
    // SAFETY: scalar arguments by reference.
    let (n, incx, incy) = unsafe { (read(n), read(incx), read(incy)) };
    dot_f64(n, x, incx, y, incy)
}

/// Reference BLAS `sdsdot_`: `sb` plus the dot product of f32 vectors, accumulated in f64.
///
/// # Safety
/// Every argument points to what the reference interface says.
#[no_mangle]
pub unsafe extern "C" fn sdsdot_(
    n: *const Int,
    sb: *const f32,
    x: *const f32,
    incx: *const Int,
    y: *const f32,
    incy: *const Int,
) -> f32 {
    // SAFETY: scalar arguments by reference.
    let (n, sb, incx, incy) = unsafe { (read(n), read(sb), read(incx), read(incy)) };
    (sb as f64 + dot_f64(n, x, incx, y, incy)) as f32
}

/// Exports `axpy`.
macro_rules! axpys {
    ($($name:ident: $t:ty;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            n: *const Int,
            alpha: *const $t,
            x: *const $t,
            incx: *const Int,
            y: *mut $t,
            incy: *const Int,
        ) {
            // SAFETY: scalar arguments by reference.
            let (n, alpha, incx, incy) = unsafe { (read(n), read(alpha), read(incx), read(incy)) };
            axpy::<$t>(n, alpha, x, incx, y, incy)
        }
    )*};
}
axpys! { saxpy_: f32; daxpy_: f64; caxpy_: Complex32; zaxpy_: Complex64; }

/// Exports `scal` (`$a`: alpha's type; a real alpha of a complex vector becomes `a + 0i`).
macro_rules! scals {
    ($($name:ident: $t:ty, $a:ty;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(n: *const Int, alpha: *const $a, x: *mut $t, incx: *const Int) {
            // SAFETY: scalar arguments by reference.
            let (n, alpha, incx) = unsafe { (read(n), read(alpha), read(incx)) };
            scal::<$t>(n, <$t>::from(alpha), x, incx)
        }
    )*};
}
scals! {
    sscal_: f32, f32;
    dscal_: f64, f64;
    cscal_: Complex32, Complex32;
    zscal_: Complex64, Complex64;
    csscal_: Complex32, f32;
    zdscal_: Complex64, f64;
}

/// Exports `copy` and `swap`.
macro_rules! pairs {
    ($($name:ident: $f:ident, $t:ty, $xp:ty;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            n: *const Int,
            x: $xp,
            incx: *const Int,
            y: *mut $t,
            incy: *const Int,
        ) {
            // SAFETY: scalar arguments by reference.
            let (n, incx, incy) = unsafe { (read(n), read(incx), read(incy)) };
            $f::<$t>(n, x, incx, y, incy)
        }
    )*};
}
pairs! {
    scopy_: copy, f32, *const f32;
    dcopy_: copy, f64, *const f64;
    ccopy_: copy, Complex32, *const Complex32;
    zcopy_: copy, Complex64, *const Complex64;
    sswap_: swap, f32, *mut f32;
    dswap_: swap, f64, *mut f64;
    cswap_: swap, Complex32, *mut Complex32;
    zswap_: swap, Complex64, *mut Complex64;
}

/// Exports `rot` with real `c` and `s` (`csrot_`, `zdrot_`: complex vectors).
macro_rules! rots {
    ($($name:ident: $t:ty, $r:ty;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            n: *const Int,
            x: *mut $t,
            incx: *const Int,
            y: *mut $t,
            incy: *const Int,
            c: *const $r,
            s: *const $r,
        ) {
            // SAFETY: scalar arguments by reference.
            let (n, incx, incy, c, s) =
                unsafe { (read(n), read(incx), read(incy), read(c), read(s)) };
            rot::<$t>(n, x, incx, y, incy, c, <$t>::from(s))
        }
    )*};
}
rots! { srot_: f32, f32; drot_: f64, f64; csrot_: Complex32, f32; zdrot_: Complex64, f64; }

/// Exports `rotm` and `rotmg`.
macro_rules! modified_rotations {
    ($($rotm:ident, $rotmg:ident: $t:ty;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($rotm), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $rotm(
            n: *const Int,
            x: *mut $t,
            incx: *const Int,
            y: *mut $t,
            incy: *const Int,
            param: *const $t,
        ) {
            // SAFETY: scalar arguments by reference.
            let (n, incx, incy) = unsafe { (read(n), read(incx), read(incy)) };
            rotm::<$t>(n, x, incx, y, incy, param)
        }

        #[doc = concat!("Reference BLAS `", stringify!($rotmg), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $rotmg(d1: *mut $t, d2: *mut $t, x1: *mut $t, y1: *const $t, param: *mut $t) {
            rotmg::<$t>(d1, d2, x1, y1, param)
        }
    )*};
}
modified_rotations! { srotm_, srotmg_: f32; drotm_, drotmg_: f64; }

/// Exports `rotg` (`crotg_`, `zrotg_`: `c` real, `b` only read).
macro_rules! rotgs {
    ($($name:ident: $t:ty, $r:ty;)*) => {$(
        #[doc = concat!("Reference BLAS `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// Every argument points to what the reference interface says.
        #[no_mangle]
        pub unsafe extern "C" fn $name(a: *mut $t, b: *mut $t, c: *mut $r, s: *mut $t) {
            rotg::<$t>(a, b, c, s)
        }
    )*};
}
rotgs! { srotg_: f32, f32; drotg_: f64, f64; crotg_: Complex32, f32; zrotg_: Complex64, f64; }

/// Reference BLAS `scabs1_`: `|re z| + |im z|`.
///
/// # Safety
/// `z` points to a complex value.
#[no_mangle]
pub unsafe extern "C" fn scabs1_(z: *const Complex32) -> f32 {
    // SAFETY: as documented above.
    let z = unsafe { read(z) };
    z.re.abs() + z.im.abs()
}

/// Reference BLAS `dcabs1_`: `|re z| + |im z|`.
///
/// # Safety
/// `z` points to a complex value.
#[no_mangle]
pub unsafe extern "C" fn dcabs1_(z: *const Complex64) -> f64 {
    // SAFETY: as documented above.
    let z = unsafe { read(z) };
    z.re.abs() + z.im.abs()
}
