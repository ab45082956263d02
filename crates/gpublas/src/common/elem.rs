//! Element types shared by every routine family: the four BLAS scalars with the arithmetic the
//! host backend needs, the mixed-precision inputs of the `_ex` routines, and result types.

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
pub trait Scalar:
    Blas1Elem
    + Blas1Out
    + PartialEq
    + std::fmt::Debug
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
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
}

/// `f32` and `f64`: the real BLAS scalars (`rotm`, `rotmg`, `symv` on real data).
pub trait RealScalar: Scalar<Real = Self> + PartialOrd {
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
        }
        impl ComplexScalar for $t {}
    };
}
complex!(Complex32, f32, "c");
complex!(Complex64, f64, "z");

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
