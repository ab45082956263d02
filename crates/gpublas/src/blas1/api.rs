//! The public Level-1 reductions: `asum`, `nrm2`, `iamax`, `iamin`, `nrm2_ex`, `dot`, `dotc`
//! and `dot_ex`, each single, `_batched` (a list of vectors) and `_strided_batched` (one buffer,
//! a stride): thin constructors of a [`Call`] for [`reduce`]. The vector updates are in
//! `update.rs`.

use super::{reduce, Call, Kind};
use crate::common::operand::Batch;
use crate::device::DeviceBuffer;
use crate::{Error, ExAcc, ExInput, Handle, Results, Scalar, Status};

/// Sum of `|re| + |im|` over `n` elements of `x` at increment `incx` (`?asum`).
pub fn asum<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    result: Results<'_, T::Real>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "asum",
            kind: Kind::Asum,
            tag: format!("asum_{}", T::TAG),
            n,
            x: Batch::Single(x),
            incx,
            y: None,
            out: result,
        },
    )
}

/// `asum` of each vector of a list; one result per vector.
pub fn asum_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    results: Results<'_, T::Real>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "asum_batched",
            kind: Kind::Asum,
            tag: format!("asum_{}", T::TAG),
            n,
            x: Batch::list(x),
            incx,
            y: None,
            out: results,
        },
    )
}

/// `asum` of `batch` vectors `stride_x` elements apart in one buffer.
pub fn asum_strided_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    batch: usize,
    results: Results<'_, T::Real>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "asum_strided_batched",
            kind: Kind::Asum,
            tag: format!("asum_{}", T::TAG),
            n,
            x: Batch::Strided {
                buf: x,
                stride: stride_x,
                count: batch,
            },
            incx,
            y: None,
            out: results,
        },
    )
}

/// Euclidean norm of `n` elements of `x`, free of overflow and underflow (`?nrm2`).
pub fn nrm2<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    result: Results<'_, T::Real>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "nrm2",
            kind: Kind::Nrm2,
            tag: format!("nrm2_{}", T::TAG),
            n,
            x: Batch::Single(x),
            incx,
            y: None,
            out: result,
        },
    )
}

/// `nrm2` of each vector of a list; one result per vector.
pub fn nrm2_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    results: Results<'_, T::Real>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "nrm2_batched",
            kind: Kind::Nrm2,
            tag: format!("nrm2_{}", T::TAG),
            n,
            x: Batch::list(x),
            incx,
            y: None,
            out: results,
        },
    )
}

/// `nrm2` of `batch` vectors `stride_x` elements apart in one buffer.
pub fn nrm2_strided_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    batch: usize,
    results: Results<'_, T::Real>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "nrm2_strided_batched",
            kind: Kind::Nrm2,
            tag: format!("nrm2_{}", T::TAG),
            n,
            x: Batch::Strided {
                buf: x,
                stride: stride_x,
                count: batch,
            },
            incx,
            y: None,
            out: results,
        },
    )
}

/// 1-based index of the first element of largest `|re| + |im|` (`i?amax`); 0 when `n == 0`
/// or `incx <= 0`.
pub fn iamax<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    result: Results<'_, i64>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "iamax",
            kind: Kind::Iamax,
            tag: format!("iamax_{}", T::TAG),
            n,
            x: Batch::Single(x),
            incx,
            y: None,
            out: result,
        },
    )
}

/// `iamax` of each vector of a list; one result per vector.
pub fn iamax_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    results: Results<'_, i64>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "iamax_batched",
            kind: Kind::Iamax,
            tag: format!("iamax_{}", T::TAG),
            n,
            x: Batch::list(x),
            incx,
            y: None,
            out: results,
        },
    )
}

/// `iamax` of `batch` vectors `stride_x` elements apart in one buffer.
pub fn iamax_strided_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    batch: usize,
    results: Results<'_, i64>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "iamax_strided_batched",
            kind: Kind::Iamax,
            tag: format!("iamax_{}", T::TAG),
            n,
            x: Batch::Strided {
                buf: x,
                stride: stride_x,
                count: batch,
            },
            incx,
            y: None,
            out: results,
        },
    )
}

/// 1-based index of the first element of smallest `|re| + |im|` (`i?amin`); 0 when `n == 0`
/// or `incx <= 0`.
pub fn iamin<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    result: Results<'_, i64>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "iamin",
            kind: Kind::Iamin,
            tag: format!("iamin_{}", T::TAG),
            n,
            x: Batch::Single(x),
            incx,
            y: None,
            out: result,
        },
    )
}

/// `iamin` of each vector of a list; one result per vector.
pub fn iamin_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    results: Results<'_, i64>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "iamin_batched",
            kind: Kind::Iamin,
            tag: format!("iamin_{}", T::TAG),
            n,
            x: Batch::list(x),
            incx,
            y: None,
            out: results,
        },
    )
}

/// `iamin` of `batch` vectors `stride_x` elements apart in one buffer.
pub fn iamin_strided_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    batch: usize,
    results: Results<'_, i64>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "iamin_strided_batched",
            kind: Kind::Iamin,
            tag: format!("iamin_{}", T::TAG),
            n,
            x: Batch::Strided {
                buf: x,
                stride: stride_x,
                count: batch,
            },
            incx,
            y: None,
            out: results,
        },
    )
}

/// Euclidean norm of `f16`/`bf16`/`f32` elements, accumulated and returned in `A`
/// (`f32` or `f64`).
pub fn nrm2_ex<X: ExInput, A: ExAcc>(
    h: &mut Handle,
    n: usize,
    x: &DeviceBuffer<X>,
    incx: isize,
    result: Results<'_, A>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "nrm2_ex",
            kind: Kind::Nrm2,
            tag: format!("nrm2ex_{}{}", X::TAG, <A as ExAcc>::TAG),
            n,
            x: Batch::Single(x),
            incx,
            y: None,
            out: result,
        },
    )
}

/// `nrm2_ex` of each vector of a list; one result per vector.
pub fn nrm2_ex_batched<X: ExInput, A: ExAcc>(
    h: &mut Handle,
    n: usize,
    x: &[&DeviceBuffer<X>],
    incx: isize,
    results: Results<'_, A>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "nrm2_ex_batched",
            kind: Kind::Nrm2,
            tag: format!("nrm2ex_{}{}", X::TAG, <A as ExAcc>::TAG),
            n,
            x: Batch::list(x),
            incx,
            y: None,
            out: results,
        },
    )
}

/// `nrm2_ex` of `batch` vectors `stride_x` elements apart in one buffer.
pub fn nrm2_ex_strided_batched<X: ExInput, A: ExAcc>(
    h: &mut Handle,
    n: usize,
    x: &DeviceBuffer<X>,
    incx: isize,
    stride_x: usize,
    batch: usize,
    results: Results<'_, A>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "nrm2_ex_strided_batched",
            kind: Kind::Nrm2,
            tag: format!("nrm2ex_{}{}", X::TAG, <A as ExAcc>::TAG),
            n,
            x: Batch::Strided {
                buf: x,
                stride: stride_x,
                count: batch,
            },
            incx,
            y: None,
            out: results,
        },
    )
}

/// `sum x[i] * y[i]` over `n` pairs (`?dot`, `?dotu` for complex: not conjugated).
/// Negative increments walk a vector backwards, as reference BLAS does.
#[allow(clippy::too_many_arguments)]
pub fn dot<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    y: &DeviceBuffer<T>,
    incy: isize,
    result: Results<'_, T>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "dot",
            kind: Kind::Dot,
            tag: format!("dot_{}", T::TAG),
            n,
            x: Batch::Single(x),
            incx,
            y: Some((Batch::Single(y), incy)),
            out: result,
        },
    )
}

/// `dot` of each pair of vectors of two lists; one result per pair.
#[allow(clippy::too_many_arguments)]
pub fn dot_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    y: &[&DeviceBuffer<T>],
    incy: isize,
    results: Results<'_, T>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "dot_batched",
            kind: Kind::Dot,
            tag: format!("dot_{}", T::TAG),
            n,
            x: Batch::list(x),
            incx,
            y: Some((Batch::list(y), incy)),
            out: results,
        },
    )
}

/// `dot` of `batch` pairs of vectors at strides `stride_x`, `stride_y`.
#[allow(clippy::too_many_arguments)]
pub fn dot_strided_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    y: &DeviceBuffer<T>,
    incy: isize,
    stride_y: usize,
    batch: usize,
    results: Results<'_, T>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "dot_strided_batched",
            kind: Kind::Dot,
            tag: format!("dot_{}", T::TAG),
            n,
            x: Batch::Strided {
                buf: x,
                stride: stride_x,
                count: batch,
            },
            incx,
            y: Some((
                Batch::Strided {
                    buf: y,
                    stride: stride_y,
                    count: batch,
                },
                incy,
            )),
            out: results,
        },
    )
}

/// `sum conj(x[i]) * y[i]` (`?dotc`); equal to `dot` for real types.
#[allow(clippy::too_many_arguments)]
pub fn dotc<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    y: &DeviceBuffer<T>,
    incy: isize,
    result: Results<'_, T>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "dotc",
            kind: Kind::Dotc,
            tag: format!(
                "{}_{}",
                if T::TAG == "c" || T::TAG == "z" {
                    "dotc"
                } else {
                    "dot"
                },
                T::TAG
            ),
            n,
            x: Batch::Single(x),
            incx,
            y: Some((Batch::Single(y), incy)),
            out: result,
        },
    )
}

/// `dotc` of each pair of vectors of two lists; one result per pair.
#[allow(clippy::too_many_arguments)]
pub fn dotc_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    y: &[&DeviceBuffer<T>],
    incy: isize,
    results: Results<'_, T>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "dotc_batched",
            kind: Kind::Dotc,
            tag: format!(
                "{}_{}",
                if T::TAG == "c" || T::TAG == "z" {
                    "dotc"
                } else {
                    "dot"
                },
                T::TAG
            ),
            n,
            x: Batch::list(x),
            incx,
            y: Some((Batch::list(y), incy)),
            out: results,
        },
    )
}

/// `dotc` of `batch` pairs of vectors at strides `stride_x`, `stride_y`.
#[allow(clippy::too_many_arguments)]
pub fn dotc_strided_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    y: &DeviceBuffer<T>,
    incy: isize,
    stride_y: usize,
    batch: usize,
    results: Results<'_, T>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "dotc_strided_batched",
            kind: Kind::Dotc,
            tag: format!(
                "{}_{}",
                if T::TAG == "c" || T::TAG == "z" {
                    "dotc"
                } else {
                    "dot"
                },
                T::TAG
            ),
            n,
            x: Batch::Strided {
                buf: x,
                stride: stride_x,
                count: batch,
            },
            incx,
            y: Some((
                Batch::Strided {
                    buf: y,
                    stride: stride_y,
                    count: batch,
                },
                incy,
            )),
            out: results,
        },
    )
}

/// `sum x[i] * y[i]` of `f16`/`bf16`/`f32` elements, accumulated and returned in `A`
/// (`f32` or `f64`).
#[allow(clippy::too_many_arguments)]
pub fn dot_ex<X: ExInput, A: ExAcc>(
    h: &mut Handle,
    n: usize,
    x: &DeviceBuffer<X>,
    incx: isize,
    y: &DeviceBuffer<X>,
    incy: isize,
    result: Results<'_, A>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "dot_ex",
            kind: Kind::Dot,
            tag: format!("dotex_{}{}", X::TAG, <A as ExAcc>::TAG),
            n,
            x: Batch::Single(x),
            incx,
            y: Some((Batch::Single(y), incy)),
            out: result,
        },
    )
}

/// `dot_ex` of each pair of vectors of two lists; one result per pair.
#[allow(clippy::too_many_arguments)]
pub fn dot_ex_batched<X: ExInput, A: ExAcc>(
    h: &mut Handle,
    n: usize,
    x: &[&DeviceBuffer<X>],
    incx: isize,
    y: &[&DeviceBuffer<X>],
    incy: isize,
    results: Results<'_, A>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "dot_ex_batched",
            kind: Kind::Dot,
            tag: format!("dotex_{}{}", X::TAG, <A as ExAcc>::TAG),
            n,
            x: Batch::list(x),
            incx,
            y: Some((Batch::list(y), incy)),
            out: results,
        },
    )
}

/// `dot_ex` of `batch` pairs of vectors at strides `stride_x`, `stride_y`.
#[allow(clippy::too_many_arguments)]
pub fn dot_ex_strided_batched<X: ExInput, A: ExAcc>(
    h: &mut Handle,
    n: usize,
    x: &DeviceBuffer<X>,
    incx: isize,
    stride_x: usize,
    y: &DeviceBuffer<X>,
    incy: isize,
    stride_y: usize,
    batch: usize,
    results: Results<'_, A>,
) -> Result<Status, Error> {
    reduce(
        h,
        Call {
            name: "dot_ex_strided_batched",
            kind: Kind::Dot,
            tag: format!("dotex_{}{}", X::TAG, <A as ExAcc>::TAG),
            n,
            x: Batch::Strided {
                buf: x,
                stride: stride_x,
                count: batch,
            },
            incx,
            y: Some((
                Batch::Strided {
                    buf: y,
                    stride: stride_y,
                    count: batch,
                },
                incy,
            )),
            out: results,
        },
    )
}
