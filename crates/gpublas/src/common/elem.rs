//! Element types shared by every routine family: the four BLAS scalars with the arithmetic the
//! host backend needs (complex division range-reduced, in one place: [`ComplexDivisor`]), the
//! mixed-precision inputs of the `_ex` routines, and result types.

use std::ops::{Add, Div, Mul, Neg, Sub};

use crate::device::Element;
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};

mod sealed {
    pub trait Sealed {}
}
use sealed::Sealed;

/// Element types the Level-1 reductions read.
pub trait Blas1Elem: Element + Sealed {
    #[doc(hidden)]
    /// Kernel-name tag.
    const TAG: &'static str;
    #[doc(hidden)]
    /// (re, im) widened to f64.
    fn parts(self) -> (f64, f64);
    #[doc(hidden)]
    /// |re| + |im| in the element's own precision (iamax/iamin compare these).
    fn mag(self) -> f64;
}

/// Types a Level-1 result can take: real and complex scalars, and `i64` indices.
pub trait Blas1Out: Element + Sealed {
    #[doc(hidden)]
    /// The output from an accumulated (re, im) (for indices: re is the 1-based index).
    fn from_parts(re: f64, im: f64) -> Self;
}

/// The four BLAS scalars: `f32`, `f64`, `Complex32`, `Complex64`.
///
/// There is no `/` on the trait: num-complex's complex division forms `|d|²` unscaled, which
/// overflows or underflows for values past the square root of the range (`1e160`, `1e-300`);
/// divisions go through [`Scalar::safe_div`] or a prepared [`Scalar::divisor`].
pub trait Scalar:
    Blas1Elem
    + Blas1Out
    + PartialEq
    + std::fmt::Debug
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Neg<Output = Self>
{
    /// The real type of `asum` and `nrm2` results, of `rot`'s `c`, of a norm.
    type Real: RealScalar;
    #[doc(hidden)]
    /// Whether the type is complex.
    const COMPLEX: bool;
    #[doc(hidden)]
    fn zero() -> Self;
    #[doc(hidden)]
    fn one() -> Self;
    #[doc(hidden)]
    fn conj(self) -> Self;
    #[doc(hidden)]
    /// The real part.
    fn re(self) -> Self::Real;
    #[doc(hidden)]
    /// A value with this real part and no imaginary part.
    fn from_real(r: Self::Real) -> Self;
    #[doc(hidden)]
    /// The real scalar times this value.
    fn scale(self, r: Self::Real) -> Self;
    #[doc(hidden)]
    /// This value divided by a real scalar, part by part (never through its reciprocal, which
    /// overflows for a subnormal divisor).
    fn unscale(self, r: Self::Real) -> Self;
    #[doc(hidden)]
    /// A divisor prepared once for many quotients (a pivot, a diagonal entry): real types keep
    /// the value and divide by it; complex ones keep [`ComplexDivisor`]'s range-reduced parts.
    type Divisor: Copy + Send + Sync + std::fmt::Debug;
    #[doc(hidden)]
    /// This value prepared as a divisor.
    fn divisor(self) -> Self::Divisor;
    #[doc(hidden)]
    /// This value divided by a prepared divisor (real types: `/`, the same bits).
    fn div_by(self, d: Self::Divisor) -> Self;
    #[doc(hidden)]
    /// `self / d` without spurious overflow or underflow (real types: `/`).
    fn safe_div(self, d: Self) -> Self {
        self.div_by(d.divisor())
    }
}

/// `f32` and `f64`: the real BLAS scalars (`rotm`, `rotmg`, `symv` on real data).
pub trait RealScalar: Scalar<Real = Self> + PartialOrd + Div<Output = Self> {
    #[doc(hidden)]
    fn abs(self) -> Self;
    #[doc(hidden)]
    fn sqrt(self) -> Self;
    #[doc(hidden)]
    fn from_f64(v: f64) -> Self;
    #[doc(hidden)]
    fn to_f64(self) -> f64;
}

/// `Complex32` and `Complex64` (`hemv` and the other Hermitian routines).
pub trait ComplexScalar: Scalar {}

/// Inputs of `dot_ex` and `nrm2_ex`: `f16`, `bf16`, `f32`.
pub trait ExInput: Blas1Elem {}

/// Accumulation (and result) types of `dot_ex` and `nrm2_ex`: `f32`, `f64`.
pub trait ExAcc: Blas1Out {
    #[doc(hidden)]
    const TAG: &'static str;
}

macro_rules! real {
    ($t:ty, $tag:literal) => {
        impl Sealed for $t {}
        impl Blas1Elem for $t {
            const TAG: &'static str = $tag;
            fn parts(self) -> (f64, f64) {
                (self as f64, 0.0)
            }
            fn mag(self) -> f64 {
                self.abs() as f64
            }
        }
        impl Blas1Out for $t {
            fn from_parts(re: f64, _: f64) -> Self {
                re as $t
            }
        }
        impl Scalar for $t {
            type Real = $t;
            const COMPLEX: bool = false;
            fn zero() -> Self {
                0.0
            }
            fn one() -> Self {
                1.0
            }
            fn conj(self) -> Self {
                self
            }
            fn re(self) -> Self {
                self
            }
            fn from_real(r: Self) -> Self {
                r
            }
            fn scale(self, r: Self) -> Self {
                self * r
            }
            fn unscale(self, r: Self) -> Self {
                self / r
            }
            type Divisor = $t;
            fn divisor(self) -> Self {
                self
            }
            fn div_by(self, d: Self) -> Self {
                self / d
            }
        }
        impl RealScalar for $t {
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
        impl ExAcc for $t {
            const TAG: &'static str = $tag;
        }
    };
}
real!(f32, "s");
real!(f64, "d");
impl ExInput for f32 {}

macro_rules! complex {
    ($t:ty, $r:ty, $tag:literal) => {
        impl Sealed for $t {}
        impl Blas1Elem for $t {
            const TAG: &'static str = $tag;
            fn parts(self) -> (f64, f64) {
                (self.re as f64, self.im as f64)
            }
            fn mag(self) -> f64 {
                (self.re.abs() + self.im.abs()) as f64
            }
        }
        impl Blas1Out for $t {
            fn from_parts(re: f64, im: f64) -> Self {
                <$t>::new(re as $r, im as $r)
            }
        }
        impl Scalar for $t {
            type Real = $r;
            const COMPLEX: bool = true;
            fn zero() -> Self {
                <$t>::new(0.0, 0.0)
            }
            fn one() -> Self {
                <$t>::new(1.0, 0.0)
            }
            fn conj(self) -> Self {
                <$t>::new(self.re, -self.im)
            }
            fn re(self) -> $r {
                self.re
            }
            fn from_real(r: $r) -> Self {
                <$t>::new(r, 0.0)
            }
            fn scale(self, r: $r) -> Self {
                <$t>::new(self.re * r, self.im * r)
            }
            fn unscale(self, r: $r) -> Self {
                <$t>::new(self.re / r, self.im / r)
            }
            type Divisor = ComplexDivisor<$r>;
            fn divisor(self) -> ComplexDivisor<$r> {
                ComplexDivisor::<$r>::new(self.re, self.im)
            }
            fn div_by(self, d: ComplexDivisor<$r>) -> Self {
                let (re, im) = d.divide(self.re, self.im);
                <$t>::new(re, im)
            }
        }
        impl ComplexScalar for $t {}
    };
}
complex!(Complex32, f32, "c");
complex!(Complex64, f64, "z");

/// A complex divisor `c + i d` prepared for many quotients, range-reduced as LAPACK's `?ladiv`
/// (Baudin & Smith, "A Robust Complex Division in Scilab", 2012): Smith's ratio `r = d / c`
/// (parts swapped so that `|d| ≤ |c|`) and `den = c + d r` replace `|c + i d|²`, and operands
/// near overflow or underflow are scaled by powers of two (exact) first. The quotient's parts
/// are `(a + b r) / den` and `(b − a r) / den`: two divisions, as the textbook formula, so a
/// real divisor divides each part exactly as real division does. Left out of `?ladiv`: its
/// special cases for `b r` or `r` underflowing, which change a quotient by less than an ulp of
/// its larger part. The CUDA kernels run the same steps (`kernels/complex_div.cuh`).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct ComplexDivisor<R> {
    /// Smith's `d / c`, of the parts swapped and scaled.
    ratio: R,
    /// `c + d ratio`.
    den: R,
    /// The power of two every quotient is multiplied by for the divisor's scaling.
    scale: R,
    /// `|im| > |re|`: the parts were swapped, and the quotient is conjugated back.
    swapped: bool,
}

macro_rules! complex_divisor {
    ($r:ty) => {
        impl ComplexDivisor<$r> {
            /// Half the largest value: operands at or above it are halved first.
            const HALF_MAX: $r = <$r>::MAX * 0.5;
            /// LAPACK's `2 safmin / eps` (eps the unit roundoff): operands at or below it are
            /// scaled up by `BE`.
            const SMALL: $r = <$r>::MIN_POSITIVE * 2.0 / (<$r>::EPSILON * 0.5);
            /// `2 / eps²`, a power of two.
            const BE: $r = 2.0 / ((<$r>::EPSILON * 0.5) * (<$r>::EPSILON * 0.5));

            /// The factor an operand of magnitude `big` is scaled by, and its inverse.
            fn factor(big: $r) -> ($r, $r) {
                if big >= Self::HALF_MAX {
                    (0.5, 2.0)
                } else if big <= Self::SMALL {
                    (Self::BE, 1.0 / Self::BE)
                } else {
                    (1.0, 1.0)
                }
            }

            fn new(re: $r, im: $r) -> Self {
                let swapped = im.abs() > re.abs();
                let (c, d) = if swapped { (im, re) } else { (re, im) };
                // x / (f y) = (x / y) / f: the quotient is multiplied back by f.
                let (f, _) = Self::factor(c.abs().max(d.abs()));
                let (c, d) = (c * f, d * f);
                let ratio = d / c;
                ComplexDivisor {
                    ratio,
                    den: c + d * ratio,
                    scale: f,
                    swapped,
                }
            }

            /// `(re + i im) / (c + i d)` as (re, im).
            fn divide(&self, re: $r, im: $r) -> ($r, $r) {
                let (a, b) = if self.swapped { (im, re) } else { (re, im) };
                let (g, inv_g) = Self::factor(a.abs().max(b.abs()));
                let (a, b) = (a * g, b * g);
                let s = self.scale * inv_g;
                let p = (a + b * self.ratio) / self.den;
                let q = (b - a * self.ratio) / self.den;
                // Swapped parts divide i conj(x) by i conj(y): the conjugate of the quotient.
                let q = if self.swapped { -q } else { q };
                (p * s, q * s)
            }
        }
    };
}
complex_divisor!(f32);
complex_divisor!(f64);

macro_rules! half {
    ($t:ty, $tag:literal) => {
        impl Sealed for $t {}
        impl Blas1Elem for $t {
            const TAG: &'static str = $tag;
            fn parts(self) -> (f64, f64) {
                (self.to_f64(), 0.0)
            }
            fn mag(self) -> f64 {
                self.to_f64().abs()
            }
        }
        impl ExInput for $t {}
    };
}
half!(f16, "h");
half!(bf16, "b");

impl Sealed for i64 {}
impl Blas1Out for i64 {
    fn from_parts(re: f64, _: f64) -> Self {
        re as i64
    }
}
