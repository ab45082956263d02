//! The public triangular Level-2 routines: the products `trmv`, `tbmv`, `tpmv` and the solves
//! `trsv`, `tbsv`, `tpsv`, each single, `_batched` (lists of buffers) and `_strided_batched`
//! (one buffer, a stride): thin constructors of a [`Call`] for [`run`].

use super::{run, Call, Kind, Storage};
use crate::common::operand::{Batch, BatchMut};
use crate::device::DeviceBuffer;
use crate::{Coef, Diag, Error, Handle, Op, Scalar, Status, Uplo};

/// Identity scalars for the routines that have none.
fn one<'a, T: Scalar>() -> (Coef<'a, T>, Coef<'a, T>) {
    (Coef::Host(T::one()), Coef::Host(T::zero()))
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
    let (alpha, beta) = one();
    run(
        h,
        Call {
            name: "trmv",
            kind: Kind::Trmv,
            op,
            uplo,
            diag,
            m: n,
            n,
            storage: Storage::Full { lda },
            a: Batch::Single(a),
            x: None,
            out: BatchMut::Single(x),
            inc_out: incx,
            alpha,
            beta,
        },
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
    let (alpha, beta) = one();
    run(
        h,
        Call {
            name: "trmv_batched",
            kind: Kind::Trmv,
            op,
            uplo,
            diag,
            m: n,
            n,
            storage: Storage::Full { lda },
            a: Batch::list(a),
            x: None,
            out: BatchMut::List(x),
            inc_out: incx,
            alpha,
            beta,
        },
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
    let (alpha, beta) = one();
    run(
        h,
        Call {
            name: "trmv_strided_batched",
            kind: Kind::Trmv,
            op,
            uplo,
            diag,
            m: n,
            n,
            storage: Storage::Full { lda },
            a: Batch::Strided {
                buf: a,
                stride: stride_a,
                count: batch,
            },
            x: None,
            out: BatchMut::Strided {
                buf: x,
                stride: stride_x,
                count: batch,
            },
            inc_out: incx,
            alpha,
            beta,
        },
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
    let (alpha, beta) = one();
    run(
        h,
        Call {
            name: "tbmv",
            kind: Kind::Trmv,
            op,
            uplo,
            diag,
            m: n,
            n,
            storage: Storage::band(uplo, k, lda),
            a: Batch::Single(a),
            x: None,
            out: BatchMut::Single(x),
            inc_out: incx,
            alpha,
            beta,
        },
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
    let (alpha, beta) = one();
    run(
        h,
        Call {
            name: "tbmv_batched",
            kind: Kind::Trmv,
            op,
            uplo,
            diag,
            m: n,
            n,
            storage: Storage::band(uplo, k, lda),
            a: Batch::list(a),
            x: None,
            out: BatchMut::List(x),
            inc_out: incx,
            alpha,
            beta,
        },
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
    let (alpha, beta) = one();
    run(
        h,
        Call {
            name: "tbmv_strided_batched",
            kind: Kind::Trmv,
            op,
            uplo,
            diag,
            m: n,
            n,
            storage: Storage::band(uplo, k, lda),
            a: Batch::Strided {
                buf: a,
                stride: stride_a,
                count: batch,
            },
            x: None,
            out: BatchMut::Strided {
                buf: x,
                stride: stride_x,
                count: batch,
            },
            inc_out: incx,
            alpha,
            beta,
        },
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
    let (alpha, beta) = one();
    run(
        h,
        Call {
            name: "tpmv",
            kind: Kind::Trmv,
            op,
            uplo,
            diag,
            m: n,
            n,
            storage: Storage::Packed,
            a: Batch::Single(a),
            x: None,
            out: BatchMut::Single(x),
            inc_out: incx,
            alpha,
            beta,
        },
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
    let (alpha, beta) = one();
    run(
        h,
        Call {
            name: "tpmv_batched",
            kind: Kind::Trmv,
            op,
            uplo,
            diag,
            m: n,
            n,
            storage: Storage::Packed,
            a: Batch::list(a),
            x: None,
            out: BatchMut::List(x),
            inc_out: incx,
            alpha,
            beta,
        },
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
    let (alpha, beta) = one();
    run(
        h,
        Call {
            name: "tpmv_strided_batched",
            kind: Kind::Trmv,
            op,
            uplo,
            diag,
            m: n,
            n,
            storage: Storage::Packed,
            a: Batch::Strided {
                buf: a,
                stride: stride_a,
                count: batch,
            },
            x: None,
            out: BatchMut::Strided {
                buf: x,
                stride: stride_x,
                count: batch,
            },
            inc_out: incx,
            alpha,
            beta,
        },
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
    let (alpha, beta) = one();
    run(
        h,
        Call {
            name: "trsv",
            kind: Kind::Trsv,
            op,
            uplo,
            diag,
            m: n,
            n,
            storage: Storage::Full { lda },
            a: Batch::Single(a),
            x: None,
            out: BatchMut::Single(x),
            inc_out: incx,
            alpha,
            beta,
        },
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
    let (alpha, beta) = one();
    run(
        h,
        Call {
            name: "trsv_batched",
            kind: Kind::Trsv,
            op,
            uplo,
            diag,
            m: n,
            n,
            storage: Storage::Full { lda },
            a: Batch::list(a),
            x: None,
            out: BatchMut::List(x),
            inc_out: incx,
            alpha,
            beta,
        },
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
    let (alpha, beta) = one();
    run(
        h,
        Call {
            name: "trsv_strided_batched",
            kind: Kind::Trsv,
            op,
            uplo,
            diag,
            m: n,
            n,
            storage: Storage::Full { lda },
            a: Batch::Strided {
                buf: a,
                stride: stride_a,
                count: batch,
            },
            x: None,
            out: BatchMut::Strided {
                buf: x,
                stride: stride_x,
                count: batch,
            },
            inc_out: incx,
            alpha,
            beta,
        },
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
    let (alpha, beta) = one();
    run(
        h,
        Call {
            name: "tbsv",
            kind: Kind::Trsv,
            op,
            uplo,
            diag,
            m: n,
            n,
            storage: Storage::band(uplo, k, lda),
            a: Batch::Single(a),
            x: None,
            out: BatchMut::Single(x),
            inc_out: incx,
            alpha,
            beta,
        },
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
    let (alpha, beta) = one();
    run(
        h,
        Call {
            name: "tbsv_batched",
            kind: Kind::Trsv,
            op,
            uplo,
            diag,
            m: n,
            n,
            storage: Storage::band(uplo, k, lda),
            a: Batch::list(a),
            x: None,
            out: BatchMut::List(x),
            inc_out: incx,
            alpha,
            beta,
        },
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
    let (alpha, beta) = one();
    run(
        h,
        Call {
            name: "tbsv_strided_batched",
            kind: Kind::Trsv,
            op,
            uplo,
            diag,
            m: n,
            n,
            storage: Storage::band(uplo, k, lda),
            a: Batch::Strided {
                buf: a,
                stride: stride_a,
                count: batch,
            },
            x: None,
            out: BatchMut::Strided {
                buf: x,
                stride: stride_x,
                count: batch,
            },
            inc_out: incx,
            alpha,
            beta,
        },
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
    let (alpha, beta) = one();
    run(
        h,
        Call {
            name: "tpsv",
            kind: Kind::Trsv,
            op,
            uplo,
            diag,
            m: n,
            n,
            storage: Storage::Packed,
            a: Batch::Single(a),
            x: None,
            out: BatchMut::Single(x),
            inc_out: incx,
            alpha,
            beta,
        },
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
    let (alpha, beta) = one();
    run(
        h,
        Call {
            name: "tpsv_batched",
            kind: Kind::Trsv,
            op,
            uplo,
            diag,
            m: n,
            n,
            storage: Storage::Packed,
            a: Batch::list(a),
            x: None,
            out: BatchMut::List(x),
            inc_out: incx,
            alpha,
            beta,
        },
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
    let (alpha, beta) = one();
    run(
        h,
        Call {
            name: "tpsv_strided_batched",
            kind: Kind::Trsv,
            op,
            uplo,
            diag,
            m: n,
            n,
            storage: Storage::Packed,
            a: Batch::Strided {
                buf: a,
                stride: stride_a,
                count: batch,
            },
            x: None,
            out: BatchMut::Strided {
                buf: x,
                stride: stride_x,
                count: batch,
            },
            inc_out: incx,
            alpha,
            beta,
        },
    )
}
