//! The public Level-2 products: `gemv`, `gbmv`, `symv`, `hemv`, `sbmv`, `hbmv`, `spmv`, `hpmv`
//! (the triangular routines are in `api_tri.rs`, the rank updates in `update_api.rs`), each
//! single, `_batched` (lists of buffers) and `_strided_batched` (one buffer, a stride): thin
//! constructors of a [`Call`] for [`run`].

use super::{run, Call, Kind, Storage};
use crate::common::operand::{Batch, BatchMut};
use crate::device::DeviceBuffer;
use crate::{Coef, ComplexScalar, Diag, Error, Handle, Op, Scalar, Status, Uplo};

/// `y = alpha op(A) x + beta y` with `A` an `m × n` matrix (`?gemv`). `x` has `n` elements for
/// `Op::N`, `m` otherwise; `y` the other count.
#[allow(clippy::too_many_arguments)]
pub fn gemv<T: Scalar>(
    h: &mut Handle,
    op: Op,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    beta: Coef<'_, T>,
    y: &mut DeviceBuffer<T>,
    incy: isize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "gemv",
            kind: Kind::Gemv,
            op,
            uplo: Uplo::Upper,
            diag: Diag::NonUnit,
            m,
            n,
            storage: Storage::Full { lda },
            a: Batch::Single(a),
            x: Some((Batch::Single(x), incx)),
            out: BatchMut::Single(y),
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `gemv` of each entry of lists of matrices and vectors (all the same shape).
#[allow(clippy::too_many_arguments)]
pub fn gemv_batched<T: Scalar>(
    h: &mut Handle,
    op: Op,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    beta: Coef<'_, T>,
    y: &mut [&mut DeviceBuffer<T>],
    incy: isize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "gemv_batched",
            kind: Kind::Gemv,
            op,
            uplo: Uplo::Upper,
            diag: Diag::NonUnit,
            m,
            n,
            storage: Storage::Full { lda },
            a: Batch::list(a),
            x: Some((Batch::list(x), incx)),
            out: BatchMut::List(y),
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `gemv` of `batch` entries at fixed strides (elements) in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn gemv_strided_batched<T: Scalar>(
    h: &mut Handle,
    op: Op,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    beta: Coef<'_, T>,
    y: &mut DeviceBuffer<T>,
    incy: isize,
    stride_y: usize,
    batch: usize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "gemv_strided_batched",
            kind: Kind::Gemv,
            op,
            uplo: Uplo::Upper,
            diag: Diag::NonUnit,
            m,
            n,
            storage: Storage::Full { lda },
            a: Batch::Strided {
                buf: a,
                stride: stride_a,
                count: batch,
            },
            x: Some((
                Batch::Strided {
                    buf: x,
                    stride: stride_x,
                    count: batch,
                },
                incx,
            )),
            out: BatchMut::Strided {
                buf: y,
                stride: stride_y,
                count: batch,
            },
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `y = alpha A x + beta y` with `A` symmetric of order `n`, only its `uplo` triangle read
/// (`?symv`).
#[allow(clippy::too_many_arguments)]
pub fn symv<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    beta: Coef<'_, T>,
    y: &mut DeviceBuffer<T>,
    incy: isize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "symv",
            kind: Kind::Symv,
            op: Op::N,
            uplo,
            diag: Diag::NonUnit,
            m: n,
            n,
            storage: Storage::Full { lda },
            a: Batch::Single(a),
            x: Some((Batch::Single(x), incx)),
            out: BatchMut::Single(y),
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `symv` of each entry of lists of matrices and vectors.
#[allow(clippy::too_many_arguments)]
pub fn symv_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    beta: Coef<'_, T>,
    y: &mut [&mut DeviceBuffer<T>],
    incy: isize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "symv_batched",
            kind: Kind::Symv,
            op: Op::N,
            uplo,
            diag: Diag::NonUnit,
            m: n,
            n,
            storage: Storage::Full { lda },
            a: Batch::list(a),
            x: Some((Batch::list(x), incx)),
            out: BatchMut::List(y),
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `symv` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn symv_strided_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    beta: Coef<'_, T>,
    y: &mut DeviceBuffer<T>,
    incy: isize,
    stride_y: usize,
    batch: usize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "symv_strided_batched",
            kind: Kind::Symv,
            op: Op::N,
            uplo,
            diag: Diag::NonUnit,
            m: n,
            n,
            storage: Storage::Full { lda },
            a: Batch::Strided {
                buf: a,
                stride: stride_a,
                count: batch,
            },
            x: Some((
                Batch::Strided {
                    buf: x,
                    stride: stride_x,
                    count: batch,
                },
                incx,
            )),
            out: BatchMut::Strided {
                buf: y,
                stride: stride_y,
                count: batch,
            },
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `y = alpha A x + beta y` with `A` Hermitian of order `n`, only its `uplo` triangle read
/// and the imaginary part of its diagonal taken as zero (`?hemv`).
#[allow(clippy::too_many_arguments)]
pub fn hemv<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    beta: Coef<'_, T>,
    y: &mut DeviceBuffer<T>,
    incy: isize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "hemv",
            kind: Kind::Hemv,
            op: Op::N,
            uplo,
            diag: Diag::NonUnit,
            m: n,
            n,
            storage: Storage::Full { lda },
            a: Batch::Single(a),
            x: Some((Batch::Single(x), incx)),
            out: BatchMut::Single(y),
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `hemv` of each entry of lists of matrices and vectors.
#[allow(clippy::too_many_arguments)]
pub fn hemv_batched<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    beta: Coef<'_, T>,
    y: &mut [&mut DeviceBuffer<T>],
    incy: isize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "hemv_batched",
            kind: Kind::Hemv,
            op: Op::N,
            uplo,
            diag: Diag::NonUnit,
            m: n,
            n,
            storage: Storage::Full { lda },
            a: Batch::list(a),
            x: Some((Batch::list(x), incx)),
            out: BatchMut::List(y),
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `hemv` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn hemv_strided_batched<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    beta: Coef<'_, T>,
    y: &mut DeviceBuffer<T>,
    incy: isize,
    stride_y: usize,
    batch: usize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "hemv_strided_batched",
            kind: Kind::Hemv,
            op: Op::N,
            uplo,
            diag: Diag::NonUnit,
            m: n,
            n,
            storage: Storage::Full { lda },
            a: Batch::Strided {
                buf: a,
                stride: stride_a,
                count: batch,
            },
            x: Some((
                Batch::Strided {
                    buf: x,
                    stride: stride_x,
                    count: batch,
                },
                incx,
            )),
            out: BatchMut::Strided {
                buf: y,
                stride: stride_y,
                count: batch,
            },
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `y = alpha op(A) x + beta y` with `A` an `m × n` band matrix with `kl` sub- and `ku`
/// super-diagonals in BLAS band storage (`?gbmv`): element `(i, j)` at `ku + i - j + j lda`,
/// `lda >= kl + ku + 1`. Any `kl`, `ku` (a band wider than the matrix is valid; its rows
/// beyond the matrix are never read). `x` has `n` elements for `Op::N`, `m` otherwise.
#[allow(clippy::too_many_arguments)]
pub fn gbmv<T: Scalar>(
    h: &mut Handle,
    op: Op,
    m: usize,
    n: usize,
    kl: usize,
    ku: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    beta: Coef<'_, T>,
    y: &mut DeviceBuffer<T>,
    incy: isize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "gbmv",
            kind: Kind::Gemv,
            op,
            uplo: Uplo::Upper,
            diag: Diag::NonUnit,
            m,
            n,
            storage: Storage::Band { kl, ku, lda },
            a: Batch::Single(a),
            x: Some((Batch::Single(x), incx)),
            out: BatchMut::Single(y),
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `gbmv` of each entry of lists of matrices and vectors (all the same shape).
#[allow(clippy::too_many_arguments)]
pub fn gbmv_batched<T: Scalar>(
    h: &mut Handle,
    op: Op,
    m: usize,
    n: usize,
    kl: usize,
    ku: usize,
    alpha: Coef<'_, T>,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    beta: Coef<'_, T>,
    y: &mut [&mut DeviceBuffer<T>],
    incy: isize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "gbmv_batched",
            kind: Kind::Gemv,
            op,
            uplo: Uplo::Upper,
            diag: Diag::NonUnit,
            m,
            n,
            storage: Storage::Band { kl, ku, lda },
            a: Batch::list(a),
            x: Some((Batch::list(x), incx)),
            out: BatchMut::List(y),
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `gbmv` of `batch` entries at fixed strides (elements) in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn gbmv_strided_batched<T: Scalar>(
    h: &mut Handle,
    op: Op,
    m: usize,
    n: usize,
    kl: usize,
    ku: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    beta: Coef<'_, T>,
    y: &mut DeviceBuffer<T>,
    incy: isize,
    stride_y: usize,
    batch: usize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "gbmv_strided_batched",
            kind: Kind::Gemv,
            op,
            uplo: Uplo::Upper,
            diag: Diag::NonUnit,
            m,
            n,
            storage: Storage::Band { kl, ku, lda },
            a: Batch::Strided {
                buf: a,
                stride: stride_a,
                count: batch,
            },
            x: Some((
                Batch::Strided {
                    buf: x,
                    stride: stride_x,
                    count: batch,
                },
                incx,
            )),
            out: BatchMut::Strided {
                buf: y,
                stride: stride_y,
                count: batch,
            },
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `y = alpha A x + beta y` with `A` symmetric of order `n` with `k` off-diagonals, its `uplo`
/// triangle in BLAS band storage (`?sbmv`; `lda >= k + 1`, any `k`).
#[allow(clippy::too_many_arguments)]
pub fn sbmv<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    beta: Coef<'_, T>,
    y: &mut DeviceBuffer<T>,
    incy: isize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "sbmv",
            kind: Kind::Symv,
            op: Op::N,
            uplo,
            diag: Diag::NonUnit,
            m: n,
            n,
            storage: Storage::band(uplo, k, lda),
            a: Batch::Single(a),
            x: Some((Batch::Single(x), incx)),
            out: BatchMut::Single(y),
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `sbmv` of each entry of lists of matrices and vectors (all the same shape).
#[allow(clippy::too_many_arguments)]
pub fn sbmv_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    beta: Coef<'_, T>,
    y: &mut [&mut DeviceBuffer<T>],
    incy: isize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "sbmv_batched",
            kind: Kind::Symv,
            op: Op::N,
            uplo,
            diag: Diag::NonUnit,
            m: n,
            n,
            storage: Storage::band(uplo, k, lda),
            a: Batch::list(a),
            x: Some((Batch::list(x), incx)),
            out: BatchMut::List(y),
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `sbmv` of `batch` entries at fixed strides (elements) in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn sbmv_strided_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    beta: Coef<'_, T>,
    y: &mut DeviceBuffer<T>,
    incy: isize,
    stride_y: usize,
    batch: usize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "sbmv_strided_batched",
            kind: Kind::Symv,
            op: Op::N,
            uplo,
            diag: Diag::NonUnit,
            m: n,
            n,
            storage: Storage::band(uplo, k, lda),
            a: Batch::Strided {
                buf: a,
                stride: stride_a,
                count: batch,
            },
            x: Some((
                Batch::Strided {
                    buf: x,
                    stride: stride_x,
                    count: batch,
                },
                incx,
            )),
            out: BatchMut::Strided {
                buf: y,
                stride: stride_y,
                count: batch,
            },
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `y = alpha A x + beta y` with `A` Hermitian of order `n` with `k` off-diagonals, its `uplo`
/// triangle in BLAS band storage (`?hbmv`; `lda >= k + 1`, any `k`), the imaginary part of its
/// diagonal taken as zero.
#[allow(clippy::too_many_arguments)]
pub fn hbmv<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    beta: Coef<'_, T>,
    y: &mut DeviceBuffer<T>,
    incy: isize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "hbmv",
            kind: Kind::Hemv,
            op: Op::N,
            uplo,
            diag: Diag::NonUnit,
            m: n,
            n,
            storage: Storage::band(uplo, k, lda),
            a: Batch::Single(a),
            x: Some((Batch::Single(x), incx)),
            out: BatchMut::Single(y),
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `hbmv` of each entry of lists of matrices and vectors (all the same shape).
#[allow(clippy::too_many_arguments)]
pub fn hbmv_batched<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    beta: Coef<'_, T>,
    y: &mut [&mut DeviceBuffer<T>],
    incy: isize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "hbmv_batched",
            kind: Kind::Hemv,
            op: Op::N,
            uplo,
            diag: Diag::NonUnit,
            m: n,
            n,
            storage: Storage::band(uplo, k, lda),
            a: Batch::list(a),
            x: Some((Batch::list(x), incx)),
            out: BatchMut::List(y),
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `hbmv` of `batch` entries at fixed strides (elements) in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn hbmv_strided_batched<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    beta: Coef<'_, T>,
    y: &mut DeviceBuffer<T>,
    incy: isize,
    stride_y: usize,
    batch: usize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "hbmv_strided_batched",
            kind: Kind::Hemv,
            op: Op::N,
            uplo,
            diag: Diag::NonUnit,
            m: n,
            n,
            storage: Storage::band(uplo, k, lda),
            a: Batch::Strided {
                buf: a,
                stride: stride_a,
                count: batch,
            },
            x: Some((
                Batch::Strided {
                    buf: x,
                    stride: stride_x,
                    count: batch,
                },
                incx,
            )),
            out: BatchMut::Strided {
                buf: y,
                stride: stride_y,
                count: batch,
            },
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `y = alpha A x + beta y` with `A` symmetric of order `n`, its `uplo` triangle in packed
/// storage (`?spmv`, `n (n + 1) / 2` elements).
#[allow(clippy::too_many_arguments)]
pub fn spmv<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    x: &DeviceBuffer<T>,
    incx: isize,
    beta: Coef<'_, T>,
    y: &mut DeviceBuffer<T>,
    incy: isize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "spmv",
            kind: Kind::Symv,
            op: Op::N,
            uplo,
            diag: Diag::NonUnit,
            m: n,
            n,
            storage: Storage::Packed,
            a: Batch::Single(a),
            x: Some((Batch::Single(x), incx)),
            out: BatchMut::Single(y),
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `spmv` of each entry of lists of matrices and vectors (all the same shape).
#[allow(clippy::too_many_arguments)]
pub fn spmv_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    a: &[&DeviceBuffer<T>],
    x: &[&DeviceBuffer<T>],
    incx: isize,
    beta: Coef<'_, T>,
    y: &mut [&mut DeviceBuffer<T>],
    incy: isize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "spmv_batched",
            kind: Kind::Symv,
            op: Op::N,
            uplo,
            diag: Diag::NonUnit,
            m: n,
            n,
            storage: Storage::Packed,
            a: Batch::list(a),
            x: Some((Batch::list(x), incx)),
            out: BatchMut::List(y),
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `spmv` of `batch` entries at fixed strides (elements) in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn spmv_strided_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    stride_a: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    beta: Coef<'_, T>,
    y: &mut DeviceBuffer<T>,
    incy: isize,
    stride_y: usize,
    batch: usize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "spmv_strided_batched",
            kind: Kind::Symv,
            op: Op::N,
            uplo,
            diag: Diag::NonUnit,
            m: n,
            n,
            storage: Storage::Packed,
            a: Batch::Strided {
                buf: a,
                stride: stride_a,
                count: batch,
            },
            x: Some((
                Batch::Strided {
                    buf: x,
                    stride: stride_x,
                    count: batch,
                },
                incx,
            )),
            out: BatchMut::Strided {
                buf: y,
                stride: stride_y,
                count: batch,
            },
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `y = alpha A x + beta y` with `A` Hermitian of order `n`, its `uplo` triangle in packed
/// storage (`?hpmv`), the imaginary part of its diagonal taken as zero.
#[allow(clippy::too_many_arguments)]
pub fn hpmv<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    x: &DeviceBuffer<T>,
    incx: isize,
    beta: Coef<'_, T>,
    y: &mut DeviceBuffer<T>,
    incy: isize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "hpmv",
            kind: Kind::Hemv,
            op: Op::N,
            uplo,
            diag: Diag::NonUnit,
            m: n,
            n,
            storage: Storage::Packed,
            a: Batch::Single(a),
            x: Some((Batch::Single(x), incx)),
            out: BatchMut::Single(y),
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `hpmv` of each entry of lists of matrices and vectors (all the same shape).
#[allow(clippy::too_many_arguments)]
pub fn hpmv_batched<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    a: &[&DeviceBuffer<T>],
    x: &[&DeviceBuffer<T>],
    incx: isize,
    beta: Coef<'_, T>,
    y: &mut [&mut DeviceBuffer<T>],
    incy: isize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "hpmv_batched",
            kind: Kind::Hemv,
            op: Op::N,
            uplo,
            diag: Diag::NonUnit,
            m: n,
            n,
            storage: Storage::Packed,
            a: Batch::list(a),
            x: Some((Batch::list(x), incx)),
            out: BatchMut::List(y),
            inc_out: incy,
            alpha,
            beta,
        },
    )
}

/// `hpmv` of `batch` entries at fixed strides (elements) in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn hpmv_strided_batched<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    stride_a: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    beta: Coef<'_, T>,
    y: &mut DeviceBuffer<T>,
    incy: isize,
    stride_y: usize,
    batch: usize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name: "hpmv_strided_batched",
            kind: Kind::Hemv,
            op: Op::N,
            uplo,
            diag: Diag::NonUnit,
            m: n,
            n,
            storage: Storage::Packed,
            a: Batch::Strided {
                buf: a,
                stride: stride_a,
                count: batch,
            },
            x: Some((
                Batch::Strided {
                    buf: x,
                    stride: stride_x,
                    count: batch,
                },
                incx,
            )),
            out: BatchMut::Strided {
                buf: y,
                stride: stride_y,
                count: batch,
            },
            inc_out: incy,
            alpha,
            beta,
        },
    )
}
