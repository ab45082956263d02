//! The public triangular Level-2 routines: the products `trmv`, `tbmv`, `tpmv` and the solves
//! `trsv`, `tbsv`, `tpsv`, each single, `_batched` (lists of buffers) and `_strided_batched`
//! (one buffer, a stride): thin constructors of a [`Call`] for [`run`].

use super::{run, Call, Kind, Storage};
use crate::common::operand::{Batch, BatchMut};
use crate::device::DeviceBuffer;
use crate::{Coef, Diag, Error, Handle, Op, Scalar, Status, Uplo};

/// Runs the triangular routine `name` (`kind` Trmv or Trsv) of order `n` on `a` and `x` in
/// one of the three forms; these routines have no scalars (identity ones go to the call).
#[allow(clippy::too_many_arguments)]
fn tri<'a, 'b, T: Scalar>(
    h: &mut Handle,
    name: &'static str,
    kind: Kind,
    (uplo, op, diag): (Uplo, Op, Diag),
    n: usize,
    storage: Storage,
    a: Batch<'a, T>,
    x: BatchMut<'a, 'b, T>,
    incx: isize,
) -> Result<Status, Error> {
    run(
        h,
        Call {
            name,
            kind,
            op,
            uplo,
            diag,
            m: n,
            n,
            storage,
            a,
            x: None,
            out: x,
            inc_out: incx,
            alpha: Coef::Host(T::one()),
            beta: Coef::Host(T::zero()),
        },
    )
}

/// `x = op(A) x` with `A` triangular of order `n` (`?trmv`). The result is built in the
/// workspace before it overwrites `x` (an in-place algorithm runs when the workspace is too
/// small).
#[allow(clippy::too_many_arguments)]
pub fn trmv<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    n: usize,
    a: &DeviceBuffer<T>,
    lda: usize,
    x: &mut DeviceBuffer<T>,
    incx: isize,
) -> Result<Status, Error> {
    tri(
        h,
        "trmv",
        Kind::Trmv,
        (uplo, op, diag),
        n,
        Storage::Full { lda },
        Batch::Single(a),
        BatchMut::Single(x),
        incx,
    )
}

/// `trmv` of each entry of lists of matrices and vectors.
#[allow(clippy::too_many_arguments)]
pub fn trmv_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    n: usize,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    x: &mut [&mut DeviceBuffer<T>],
    incx: isize,
) -> Result<Status, Error> {
    tri(
        h,
        "trmv_batched",
        Kind::Trmv,
        (uplo, op, diag),
        n,
        Storage::Full { lda },
        Batch::list(a),
        BatchMut::List(x),
        incx,
    )
}

/// `trmv` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn trmv_strided_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    n: usize,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    x: &mut DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    batch: usize,
) -> Result<Status, Error> {
    tri(
        h,
        "trmv_strided_batched",
        Kind::Trmv,
        (uplo, op, diag),
        n,
        Storage::Full { lda },
        Batch::Strided {
            buf: a,
            stride: stride_a,
            count: batch,
        },
        BatchMut::Strided {
            buf: x,
            stride: stride_x,
            count: batch,
        },
        incx,
    )
}

/// `x = op(A) x` with `A` a triangular band matrix of order `n` with `k` off-diagonals in
/// BLAS band storage (`?tbmv`; any `k`, `lda >= k + 1`; with `k >= n` the band's rows
/// beyond the matrix are never read).
#[allow(clippy::too_many_arguments)]
pub fn tbmv<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    n: usize,
    k: usize,
    a: &DeviceBuffer<T>,
    lda: usize,
    x: &mut DeviceBuffer<T>,
    incx: isize,
) -> Result<Status, Error> {
    tri(
        h,
        "tbmv",
        Kind::Trmv,
        (uplo, op, diag),
        n,
        Storage::band(uplo, k, lda),
        Batch::Single(a),
        BatchMut::Single(x),
        incx,
    )
}

/// `tbmv` of each entry of lists of matrices and vectors.
#[allow(clippy::too_many_arguments)]
pub fn tbmv_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    n: usize,
    k: usize,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    x: &mut [&mut DeviceBuffer<T>],
    incx: isize,
) -> Result<Status, Error> {
    tri(
        h,
        "tbmv_batched",
        Kind::Trmv,
        (uplo, op, diag),
        n,
        Storage::band(uplo, k, lda),
        Batch::list(a),
        BatchMut::List(x),
        incx,
    )
}

/// `tbmv` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn tbmv_strided_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    n: usize,
    k: usize,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    x: &mut DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    batch: usize,
) -> Result<Status, Error> {
    tri(
        h,
        "tbmv_strided_batched",
        Kind::Trmv,
        (uplo, op, diag),
        n,
        Storage::band(uplo, k, lda),
        Batch::Strided {
            buf: a,
            stride: stride_a,
            count: batch,
        },
        BatchMut::Strided {
            buf: x,
            stride: stride_x,
            count: batch,
        },
        incx,
    )
}

/// `x = op(A) x` with `A` triangular of order `n` in packed storage (`?tpmv`).
#[allow(clippy::too_many_arguments)]
pub fn tpmv<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    n: usize,
    a: &DeviceBuffer<T>,
    x: &mut DeviceBuffer<T>,
    incx: isize,
) -> Result<Status, Error> {
    tri(
        h,
        "tpmv",
        Kind::Trmv,
        (uplo, op, diag),
        n,
        Storage::Packed,
        Batch::Single(a),
        BatchMut::Single(x),
        incx,
    )
}

/// `tpmv` of each entry of lists of matrices and vectors.
#[allow(clippy::too_many_arguments)]
pub fn tpmv_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    n: usize,
    a: &[&DeviceBuffer<T>],
    x: &mut [&mut DeviceBuffer<T>],
    incx: isize,
) -> Result<Status, Error> {
    tri(
        h,
        "tpmv_batched",
        Kind::Trmv,
        (uplo, op, diag),
        n,
        Storage::Packed,
        Batch::list(a),
        BatchMut::List(x),
        incx,
    )
}

/// `tpmv` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn tpmv_strided_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    n: usize,
    a: &DeviceBuffer<T>,
    stride_a: usize,
    x: &mut DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    batch: usize,
) -> Result<Status, Error> {
    tri(
        h,
        "tpmv_strided_batched",
        Kind::Trmv,
        (uplo, op, diag),
        n,
        Storage::Packed,
        Batch::Strided {
            buf: a,
            stride: stride_a,
            count: batch,
        },
        BatchMut::Strided {
            buf: x,
            stride: stride_x,
            count: batch,
        },
        incx,
    )
}

/// Solves `op(A) x = b` for `x`, `b` given in `x`, `A` triangular of order `n` (`?trsv`).
/// A singular `A` (a zero on the diagonal) gives IEEE infinities or NaNs, never an error.
#[allow(clippy::too_many_arguments)]
pub fn trsv<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    n: usize,
    a: &DeviceBuffer<T>,
    lda: usize,
    x: &mut DeviceBuffer<T>,
    incx: isize,
) -> Result<Status, Error> {
    tri(
        h,
        "trsv",
        Kind::Trsv,
        (uplo, op, diag),
        n,
        Storage::Full { lda },
        Batch::Single(a),
        BatchMut::Single(x),
        incx,
    )
}

/// `trsv` of each entry of lists of matrices and vectors.
#[allow(clippy::too_many_arguments)]
pub fn trsv_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    n: usize,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    x: &mut [&mut DeviceBuffer<T>],
    incx: isize,
) -> Result<Status, Error> {
    tri(
        h,
        "trsv_batched",
        Kind::Trsv,
        (uplo, op, diag),
        n,
        Storage::Full { lda },
        Batch::list(a),
        BatchMut::List(x),
        incx,
    )
}

/// `trsv` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn trsv_strided_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    n: usize,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    x: &mut DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    batch: usize,
) -> Result<Status, Error> {
    tri(
        h,
        "trsv_strided_batched",
        Kind::Trsv,
        (uplo, op, diag),
        n,
        Storage::Full { lda },
        Batch::Strided {
            buf: a,
            stride: stride_a,
            count: batch,
        },
        BatchMut::Strided {
            buf: x,
            stride: stride_x,
            count: batch,
        },
        incx,
    )
}

/// Solves `op(A) x = b` for `x`, `b` given in `x`, `A` a triangular band matrix of order `n`
/// with `k` off-diagonals in BLAS band storage (`?tbsv`; any `k`, `lda >= k + 1`). Only the
/// stored band is read (not the diagonal when `Diag::Unit`). A singular `A` gives IEEE
/// infinities or NaNs, never an error.
#[allow(clippy::too_many_arguments)]
pub fn tbsv<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    n: usize,
    k: usize,
    a: &DeviceBuffer<T>,
    lda: usize,
    x: &mut DeviceBuffer<T>,
    incx: isize,
) -> Result<Status, Error> {
    tri(
        h,
        "tbsv",
        Kind::Trsv,
        (uplo, op, diag),
        n,
        Storage::band(uplo, k, lda),
        Batch::Single(a),
        BatchMut::Single(x),
        incx,
    )
}

/// `tbsv` of each entry of lists of matrices and vectors.
#[allow(clippy::too_many_arguments)]
pub fn tbsv_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    n: usize,
    k: usize,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    x: &mut [&mut DeviceBuffer<T>],
    incx: isize,
) -> Result<Status, Error> {
    tri(
        h,
        "tbsv_batched",
        Kind::Trsv,
        (uplo, op, diag),
        n,
        Storage::band(uplo, k, lda),
        Batch::list(a),
        BatchMut::List(x),
        incx,
    )
}

/// `tbsv` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn tbsv_strided_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    n: usize,
    k: usize,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    x: &mut DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    batch: usize,
) -> Result<Status, Error> {
    tri(
        h,
        "tbsv_strided_batched",
        Kind::Trsv,
        (uplo, op, diag),
        n,
        Storage::band(uplo, k, lda),
        Batch::Strided {
            buf: a,
            stride: stride_a,
            count: batch,
        },
        BatchMut::Strided {
            buf: x,
            stride: stride_x,
            count: batch,
        },
        incx,
    )
}

/// Solves `op(A) x = b` for `x`, `b` given in `x`, `A` triangular of order `n` in packed
/// storage (`?tpsv`). A singular `A` gives IEEE infinities or NaNs, never an error.
#[allow(clippy::too_many_arguments)]
pub fn tpsv<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    n: usize,
    a: &DeviceBuffer<T>,
    x: &mut DeviceBuffer<T>,
    incx: isize,
) -> Result<Status, Error> {
    tri(
        h,
        "tpsv",
        Kind::Trsv,
        (uplo, op, diag),
        n,
        Storage::Packed,
        Batch::Single(a),
        BatchMut::Single(x),
        incx,
    )
}

/// `tpsv` of each entry of lists of matrices and vectors.
#[allow(clippy::too_many_arguments)]
pub fn tpsv_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    n: usize,
    a: &[&DeviceBuffer<T>],
    x: &mut [&mut DeviceBuffer<T>],
    incx: isize,
) -> Result<Status, Error> {
    tri(
        h,
        "tpsv_batched",
        Kind::Trsv,
        (uplo, op, diag),
        n,
        Storage::Packed,
        Batch::list(a),
        BatchMut::List(x),
        incx,
    )
}

/// `tpsv` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn tpsv_strided_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    n: usize,
    a: &DeviceBuffer<T>,
    stride_a: usize,
    x: &mut DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    batch: usize,
) -> Result<Status, Error> {
    tri(
        h,
        "tpsv_strided_batched",
        Kind::Trsv,
        (uplo, op, diag),
        n,
        Storage::Packed,
        Batch::Strided {
            buf: a,
            stride: stride_a,
            count: batch,
        },
        BatchMut::Strided {
            buf: x,
            stride: stride_x,
            count: batch,
        },
        incx,
    )
}
