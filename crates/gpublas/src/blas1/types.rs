//! Element, result and batch types of the Level-1 routines.

use crate::device::{DeviceBuffer, Element};
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};

mod sealed {
    pub trait Sealed {}
}
use sealed::Sealed;

/// Element types the Level-1 routines read.
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
pub trait Scalar: Blas1Elem + Blas1Out {
    /// The real type of `asum` and `nrm2` results.
    type Real: Blas1Out;
}

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
        }
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

/// Where results go (F6): host memory (the call waits for them) or a device buffer (the call
/// never synchronises the host, so it can be captured into a graph).
pub enum Results<'a, R> {
    /// One result per vector into this slice; the call waits.
    Host(&'a mut [R]),
    /// One result per vector into this device buffer; nothing waits.
    Device(&'a mut DeviceBuffer<R>),
}

impl<R> Results<'_, R> {
    pub(crate) fn len(&self) -> usize
    where
        R: Element,
    {
        match self {
            Results::Host(s) => s.len(),
            Results::Device(b) => b.len(),
        }
    }

    pub(crate) fn is_host(&self) -> bool {
        matches!(self, Results::Host(_))
    }
}

/// The operands of one call: one vector, a list, or vectors at a fixed stride in one buffer.
pub(crate) enum Batch<'a, T> {
    Single(&'a DeviceBuffer<T>),
    List(&'a [&'a DeviceBuffer<T>]),
    Strided {
        buf: &'a DeviceBuffer<T>,
        stride: usize,
        count: usize,
    },
}

impl<T: Element> Batch<'_, T> {
    pub(crate) fn count(&self) -> usize {
        match self {
            Batch::Single(_) => 1,
            Batch::List(l) => l.len(),
            Batch::Strided { count, .. } => *count,
        }
    }

    pub(crate) fn is_list(&self) -> bool {
        matches!(self, Batch::List(_))
    }

    /// Buffer holding vector `v` and the element offset of its first element.
    pub(crate) fn vector(&self, v: usize) -> (&DeviceBuffer<T>, usize) {
        match self {
            Batch::Single(b) => (b, 0),
            Batch::List(l) => (l[v], 0),
            Batch::Strided { buf, stride, .. } => (buf, v * stride),
        }
    }
}
