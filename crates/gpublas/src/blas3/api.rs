//! The public Level-3 routines `gemm`, `symm`, `hemm`, `syrk`, `herk`, `syr2k`, `her2k`,
//! `syrkx`, `herkx` and `trmm`, each single, `_batched` (lists of matrices) and
//! `_strided_batched` (one buffer, a stride): thin constructors of a [`Call`] for [`run`].

use super::{run, Call, Kind, ScalarArg};
use crate::common::operand::{Batch, BatchMut};
use crate::device::DeviceBuffer;
use crate::{Coef, ComplexScalar, Diag, Error, Handle, Op, Scalar, Side, Status, Uplo};

/// `C = alpha op(A) op(B) + beta C`, `C` `m × n`, `op(A)` `m × k`, `op(B)` `k × n` (`?gemm`).
#[allow(clippy::too_many_arguments)]
pub fn gemm<T: Scalar>(
    h: &mut Handle,
    opa: Op,
    opb: Op,
    m: usize,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    b: &DeviceBuffer<T>,
    ldb: usize,
    beta: Coef<'_, T>,
    c: &mut DeviceBuffer<T>,
    ldc: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "gemm",
        Kind::Gemm,
        Batch::Single(a),
        lda,
        BatchMut::Single(c),
        ldc,
    );
    call.ops(opa, opb)
        .dims(m, n, k)
        .with_b(Batch::Single(b), ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Full(beta);
    run(h, call)
}

/// `gemm` of each entry of lists of matrices (all the same shape).
#[allow(clippy::too_many_arguments)]
pub fn gemm_batched<T: Scalar>(
    h: &mut Handle,
    opa: Op,
    opb: Op,
    m: usize,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    b: &[&DeviceBuffer<T>],
    ldb: usize,
    beta: Coef<'_, T>,
    c: &mut [&mut DeviceBuffer<T>],
    ldc: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "gemm_batched",
        Kind::Gemm,
        Batch::list(a),
        lda,
        BatchMut::List(c),
        ldc,
    );
    call.ops(opa, opb).dims(m, n, k).with_b(Batch::list(b), ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Full(beta);
    run(h, call)
}

/// `gemm` of `batch` entries at fixed strides (elements) in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn gemm_strided_batched<T: Scalar>(
    h: &mut Handle,
    opa: Op,
    opb: Op,
    m: usize,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    b: &DeviceBuffer<T>,
    ldb: usize,
    stride_b: usize,
    beta: Coef<'_, T>,
    c: &mut DeviceBuffer<T>,
    ldc: usize,
    stride_c: usize,
    batch: usize,
) -> Result<Status, Error> {
    let a = Batch::Strided {
        buf: a,
        stride: stride_a,
        count: batch,
    };
    let b = Batch::Strided {
        buf: b,
        stride: stride_b,
        count: batch,
    };
    let c = BatchMut::Strided {
        buf: c,
        stride: stride_c,
        count: batch,
    };
    let mut call = Call::new("gemm_strided_batched", Kind::Gemm, a, lda, c, ldc);
    call.ops(opa, opb).dims(m, n, k).with_b(b, ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Full(beta);
    run(h, call)
}

/// `C = alpha A B + beta C` (`Side::Left`) or `alpha B A + beta C` (`Side::Right`), `A`
/// symmetric (order `m` or `n`), only its `uplo` triangle read (`?symm`).
#[allow(clippy::too_many_arguments)]
pub fn symm<T: Scalar>(
    h: &mut Handle,
    side: Side,
    uplo: Uplo,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    b: &DeviceBuffer<T>,
    ldb: usize,
    beta: Coef<'_, T>,
    c: &mut DeviceBuffer<T>,
    ldc: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "symm",
        Kind::Symm,
        Batch::Single(a),
        lda,
        BatchMut::Single(c),
        ldc,
    );
    call.tri(side, uplo, Op::N, Diag::NonUnit)
        .dims(m, n, 0)
        .with_b(Batch::Single(b), ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Full(beta);
    run(h, call)
}

/// `symm` of each entry of lists of matrices.
#[allow(clippy::too_many_arguments)]
pub fn symm_batched<T: Scalar>(
    h: &mut Handle,
    side: Side,
    uplo: Uplo,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    b: &[&DeviceBuffer<T>],
    ldb: usize,
    beta: Coef<'_, T>,
    c: &mut [&mut DeviceBuffer<T>],
    ldc: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "symm_batched",
        Kind::Symm,
        Batch::list(a),
        lda,
        BatchMut::List(c),
        ldc,
    );
    call.tri(side, uplo, Op::N, Diag::NonUnit)
        .dims(m, n, 0)
        .with_b(Batch::list(b), ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Full(beta);
    run(h, call)
}

/// `symm` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn symm_strided_batched<T: Scalar>(
    h: &mut Handle,
    side: Side,
    uplo: Uplo,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    b: &DeviceBuffer<T>,
    ldb: usize,
    stride_b: usize,
    beta: Coef<'_, T>,
    c: &mut DeviceBuffer<T>,
    ldc: usize,
    stride_c: usize,
    batch: usize,
) -> Result<Status, Error> {
    let a = Batch::Strided {
        buf: a,
        stride: stride_a,
        count: batch,
    };
    let b = Batch::Strided {
        buf: b,
        stride: stride_b,
        count: batch,
    };
    let c = BatchMut::Strided {
        buf: c,
        stride: stride_c,
        count: batch,
    };
    let mut call = Call::new("symm_strided_batched", Kind::Symm, a, lda, c, ldc);
    call.tri(side, uplo, Op::N, Diag::NonUnit)
        .dims(m, n, 0)
        .with_b(b, ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Full(beta);
    run(h, call)
}

/// As [`symm`] with `A` Hermitian: only its `uplo` triangle read, the imaginary part of its
/// diagonal taken as zero (`?hemm`).
#[allow(clippy::too_many_arguments)]
pub fn hemm<T: ComplexScalar>(
    h: &mut Handle,
    side: Side,
    uplo: Uplo,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    b: &DeviceBuffer<T>,
    ldb: usize,
    beta: Coef<'_, T>,
    c: &mut DeviceBuffer<T>,
    ldc: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "hemm",
        Kind::Hemm,
        Batch::Single(a),
        lda,
        BatchMut::Single(c),
        ldc,
    );
    call.tri(side, uplo, Op::N, Diag::NonUnit)
        .dims(m, n, 0)
        .with_b(Batch::Single(b), ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Full(beta);
    run(h, call)
}

/// `hemm` of each entry of lists of matrices.
#[allow(clippy::too_many_arguments)]
pub fn hemm_batched<T: ComplexScalar>(
    h: &mut Handle,
    side: Side,
    uplo: Uplo,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    b: &[&DeviceBuffer<T>],
    ldb: usize,
    beta: Coef<'_, T>,
    c: &mut [&mut DeviceBuffer<T>],
    ldc: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "hemm_batched",
        Kind::Hemm,
        Batch::list(a),
        lda,
        BatchMut::List(c),
        ldc,
    );
    call.tri(side, uplo, Op::N, Diag::NonUnit)
        .dims(m, n, 0)
        .with_b(Batch::list(b), ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Full(beta);
    run(h, call)
}

/// `hemm` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn hemm_strided_batched<T: ComplexScalar>(
    h: &mut Handle,
    side: Side,
    uplo: Uplo,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    b: &DeviceBuffer<T>,
    ldb: usize,
    stride_b: usize,
    beta: Coef<'_, T>,
    c: &mut DeviceBuffer<T>,
    ldc: usize,
    stride_c: usize,
    batch: usize,
) -> Result<Status, Error> {
    let a = Batch::Strided {
        buf: a,
        stride: stride_a,
        count: batch,
    };
    let b = Batch::Strided {
        buf: b,
        stride: stride_b,
        count: batch,
    };
    let c = BatchMut::Strided {
        buf: c,
        stride: stride_c,
        count: batch,
    };
    let mut call = Call::new("hemm_strided_batched", Kind::Hemm, a, lda, c, ldc);
    call.tri(side, uplo, Op::N, Diag::NonUnit)
        .dims(m, n, 0)
        .with_b(b, ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Full(beta);
    run(h, call)
}

/// `C = alpha op(A) op(A)ᵀ + beta C` on the `uplo` triangle of the `n × n` matrix `C`;
/// `op(A)` is `n × k`, `op` is `N` or `T` (`?syrk`; `C` is read as `T` for real types).
#[allow(clippy::too_many_arguments)]
pub fn syrk<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    beta: Coef<'_, T>,
    c: &mut DeviceBuffer<T>,
    ldc: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "syrk",
        Kind::Syrk,
        Batch::Single(a),
        lda,
        BatchMut::Single(c),
        ldc,
    );
    call.tri(Side::Left, uplo, op, Diag::NonUnit).dims(n, n, k);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Full(beta);
    run(h, call)
}

/// `syrk` of each entry of lists of matrices.
#[allow(clippy::too_many_arguments)]
pub fn syrk_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    beta: Coef<'_, T>,
    c: &mut [&mut DeviceBuffer<T>],
    ldc: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "syrk_batched",
        Kind::Syrk,
        Batch::list(a),
        lda,
        BatchMut::List(c),
        ldc,
    );
    call.tri(Side::Left, uplo, op, Diag::NonUnit).dims(n, n, k);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Full(beta);
    run(h, call)
}

/// `syrk` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn syrk_strided_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    beta: Coef<'_, T>,
    c: &mut DeviceBuffer<T>,
    ldc: usize,
    stride_c: usize,
    batch: usize,
) -> Result<Status, Error> {
    let a = Batch::Strided {
        buf: a,
        stride: stride_a,
        count: batch,
    };
    let c = BatchMut::Strided {
        buf: c,
        stride: stride_c,
        count: batch,
    };
    let mut call = Call::new("syrk_strided_batched", Kind::Syrk, a, lda, c, ldc);
    call.tri(Side::Left, uplo, op, Diag::NonUnit).dims(n, n, k);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Full(beta);
    run(h, call)
}

/// `C = alpha op(A) op(A)ᴴ + beta C` on the `uplo` triangle, `alpha` and `beta` real, `op`
/// `N` or `C`; the imaginary parts of `C`'s diagonal are set to zero (`?herk`).
#[allow(clippy::too_many_arguments)]
pub fn herk<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    n: usize,
    k: usize,
    alpha: Coef<'_, T::Real>,
    a: &DeviceBuffer<T>,
    lda: usize,
    beta: Coef<'_, T::Real>,
    c: &mut DeviceBuffer<T>,
    ldc: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "herk",
        Kind::Herk,
        Batch::Single(a),
        lda,
        BatchMut::Single(c),
        ldc,
    );
    call.tri(Side::Left, uplo, op, Diag::NonUnit).dims(n, n, k);
    call.alpha = ScalarArg::Real(alpha);
    call.beta = ScalarArg::Real(beta);
    run(h, call)
}

/// `herk` of each entry of lists of matrices.
#[allow(clippy::too_many_arguments)]
pub fn herk_batched<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    n: usize,
    k: usize,
    alpha: Coef<'_, T::Real>,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    beta: Coef<'_, T::Real>,
    c: &mut [&mut DeviceBuffer<T>],
    ldc: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "herk_batched",
        Kind::Herk,
        Batch::list(a),
        lda,
        BatchMut::List(c),
        ldc,
    );
    call.tri(Side::Left, uplo, op, Diag::NonUnit).dims(n, n, k);
    call.alpha = ScalarArg::Real(alpha);
    call.beta = ScalarArg::Real(beta);
    run(h, call)
}

/// `herk` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn herk_strided_batched<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    n: usize,
    k: usize,
    alpha: Coef<'_, T::Real>,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    beta: Coef<'_, T::Real>,
    c: &mut DeviceBuffer<T>,
    ldc: usize,
    stride_c: usize,
    batch: usize,
) -> Result<Status, Error> {
    let a = Batch::Strided {
        buf: a,
        stride: stride_a,
        count: batch,
    };
    let c = BatchMut::Strided {
        buf: c,
        stride: stride_c,
        count: batch,
    };
    let mut call = Call::new("herk_strided_batched", Kind::Herk, a, lda, c, ldc);
    call.tri(Side::Left, uplo, op, Diag::NonUnit).dims(n, n, k);
    call.alpha = ScalarArg::Real(alpha);
    call.beta = ScalarArg::Real(beta);
    run(h, call)
}

/// `C = alpha op(A) op(B)ᵀ + alpha op(B) op(A)ᵀ + beta C` on the `uplo` triangle (`?syr2k`).
#[allow(clippy::too_many_arguments)]
pub fn syr2k<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    b: &DeviceBuffer<T>,
    ldb: usize,
    beta: Coef<'_, T>,
    c: &mut DeviceBuffer<T>,
    ldc: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "syr2k",
        Kind::Syr2k,
        Batch::Single(a),
        lda,
        BatchMut::Single(c),
        ldc,
    );
    call.tri(Side::Left, uplo, op, Diag::NonUnit)
        .dims(n, n, k)
        .with_b(Batch::Single(b), ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Full(beta);
    run(h, call)
}

/// `syr2k` of each entry of lists of matrices.
#[allow(clippy::too_many_arguments)]
pub fn syr2k_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    b: &[&DeviceBuffer<T>],
    ldb: usize,
    beta: Coef<'_, T>,
    c: &mut [&mut DeviceBuffer<T>],
    ldc: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "syr2k_batched",
        Kind::Syr2k,
        Batch::list(a),
        lda,
        BatchMut::List(c),
        ldc,
    );
    call.tri(Side::Left, uplo, op, Diag::NonUnit)
        .dims(n, n, k)
        .with_b(Batch::list(b), ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Full(beta);
    run(h, call)
}

/// `syr2k` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn syr2k_strided_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    b: &DeviceBuffer<T>,
    ldb: usize,
    stride_b: usize,
    beta: Coef<'_, T>,
    c: &mut DeviceBuffer<T>,
    ldc: usize,
    stride_c: usize,
    batch: usize,
) -> Result<Status, Error> {
    let a = Batch::Strided {
        buf: a,
        stride: stride_a,
        count: batch,
    };
    let b = Batch::Strided {
        buf: b,
        stride: stride_b,
        count: batch,
    };
    let c = BatchMut::Strided {
        buf: c,
        stride: stride_c,
        count: batch,
    };
    let mut call = Call::new("syr2k_strided_batched", Kind::Syr2k, a, lda, c, ldc);
    call.tri(Side::Left, uplo, op, Diag::NonUnit)
        .dims(n, n, k)
        .with_b(b, ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Full(beta);
    run(h, call)
}

/// `C = alpha op(A) op(B)ᴴ + conj(alpha) op(B) op(A)ᴴ + beta C` on the `uplo` triangle,
/// `beta` real, diagonal made real (`?her2k`).
#[allow(clippy::too_many_arguments)]
pub fn her2k<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    b: &DeviceBuffer<T>,
    ldb: usize,
    beta: Coef<'_, T::Real>,
    c: &mut DeviceBuffer<T>,
    ldc: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "her2k",
        Kind::Her2k,
        Batch::Single(a),
        lda,
        BatchMut::Single(c),
        ldc,
    );
    call.tri(Side::Left, uplo, op, Diag::NonUnit)
        .dims(n, n, k)
        .with_b(Batch::Single(b), ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Real(beta);
    run(h, call)
}

/// `her2k` of each entry of lists of matrices.
#[allow(clippy::too_many_arguments)]
pub fn her2k_batched<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    b: &[&DeviceBuffer<T>],
    ldb: usize,
    beta: Coef<'_, T::Real>,
    c: &mut [&mut DeviceBuffer<T>],
    ldc: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "her2k_batched",
        Kind::Her2k,
        Batch::list(a),
        lda,
        BatchMut::List(c),
        ldc,
    );
    call.tri(Side::Left, uplo, op, Diag::NonUnit)
        .dims(n, n, k)
        .with_b(Batch::list(b), ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Real(beta);
    run(h, call)
}

/// `her2k` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn her2k_strided_batched<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    b: &DeviceBuffer<T>,
    ldb: usize,
    stride_b: usize,
    beta: Coef<'_, T::Real>,
    c: &mut DeviceBuffer<T>,
    ldc: usize,
    stride_c: usize,
    batch: usize,
) -> Result<Status, Error> {
    let a = Batch::Strided {
        buf: a,
        stride: stride_a,
        count: batch,
    };
    let b = Batch::Strided {
        buf: b,
        stride: stride_b,
        count: batch,
    };
    let c = BatchMut::Strided {
        buf: c,
        stride: stride_c,
        count: batch,
    };
    let mut call = Call::new("her2k_strided_batched", Kind::Her2k, a, lda, c, ldc);
    call.tri(Side::Left, uplo, op, Diag::NonUnit)
        .dims(n, n, k)
        .with_b(b, ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Real(beta);
    run(h, call)
}

/// `C = alpha op(A) op(B)ᵀ + beta C` on the `uplo` triangle, for `A`, `B` whose product is
/// known to be symmetric (`?syrkx`).
#[allow(clippy::too_many_arguments)]
pub fn syrkx<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    b: &DeviceBuffer<T>,
    ldb: usize,
    beta: Coef<'_, T>,
    c: &mut DeviceBuffer<T>,
    ldc: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "syrkx",
        Kind::Syrkx,
        Batch::Single(a),
        lda,
        BatchMut::Single(c),
        ldc,
    );
    call.tri(Side::Left, uplo, op, Diag::NonUnit)
        .dims(n, n, k)
        .with_b(Batch::Single(b), ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Full(beta);
    run(h, call)
}

/// `syrkx` of each entry of lists of matrices.
#[allow(clippy::too_many_arguments)]
pub fn syrkx_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    b: &[&DeviceBuffer<T>],
    ldb: usize,
    beta: Coef<'_, T>,
    c: &mut [&mut DeviceBuffer<T>],
    ldc: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "syrkx_batched",
        Kind::Syrkx,
        Batch::list(a),
        lda,
        BatchMut::List(c),
        ldc,
    );
    call.tri(Side::Left, uplo, op, Diag::NonUnit)
        .dims(n, n, k)
        .with_b(Batch::list(b), ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Full(beta);
    run(h, call)
}

/// `syrkx` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn syrkx_strided_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    b: &DeviceBuffer<T>,
    ldb: usize,
    stride_b: usize,
    beta: Coef<'_, T>,
    c: &mut DeviceBuffer<T>,
    ldc: usize,
    stride_c: usize,
    batch: usize,
) -> Result<Status, Error> {
    let a = Batch::Strided {
        buf: a,
        stride: stride_a,
        count: batch,
    };
    let b = Batch::Strided {
        buf: b,
        stride: stride_b,
        count: batch,
    };
    let c = BatchMut::Strided {
        buf: c,
        stride: stride_c,
        count: batch,
    };
    let mut call = Call::new("syrkx_strided_batched", Kind::Syrkx, a, lda, c, ldc);
    call.tri(Side::Left, uplo, op, Diag::NonUnit)
        .dims(n, n, k)
        .with_b(b, ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Full(beta);
    run(h, call)
}

/// `C = alpha op(A) op(B)ᴴ + beta C` on the `uplo` triangle, `beta` real, diagonal made real
/// (`?herkx`).
#[allow(clippy::too_many_arguments)]
pub fn herkx<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    b: &DeviceBuffer<T>,
    ldb: usize,
    beta: Coef<'_, T::Real>,
    c: &mut DeviceBuffer<T>,
    ldc: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "herkx",
        Kind::Herkx,
        Batch::Single(a),
        lda,
        BatchMut::Single(c),
        ldc,
    );
    call.tri(Side::Left, uplo, op, Diag::NonUnit)
        .dims(n, n, k)
        .with_b(Batch::Single(b), ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Real(beta);
    run(h, call)
}

/// `herkx` of each entry of lists of matrices.
#[allow(clippy::too_many_arguments)]
pub fn herkx_batched<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    b: &[&DeviceBuffer<T>],
    ldb: usize,
    beta: Coef<'_, T::Real>,
    c: &mut [&mut DeviceBuffer<T>],
    ldc: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "herkx_batched",
        Kind::Herkx,
        Batch::list(a),
        lda,
        BatchMut::List(c),
        ldc,
    );
    call.tri(Side::Left, uplo, op, Diag::NonUnit)
        .dims(n, n, k)
        .with_b(Batch::list(b), ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Real(beta);
    run(h, call)
}

/// `herkx` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn herkx_strided_batched<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    op: Op,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    b: &DeviceBuffer<T>,
    ldb: usize,
    stride_b: usize,
    beta: Coef<'_, T::Real>,
    c: &mut DeviceBuffer<T>,
    ldc: usize,
    stride_c: usize,
    batch: usize,
) -> Result<Status, Error> {
    let a = Batch::Strided {
        buf: a,
        stride: stride_a,
        count: batch,
    };
    let b = Batch::Strided {
        buf: b,
        stride: stride_b,
        count: batch,
    };
    let c = BatchMut::Strided {
        buf: c,
        stride: stride_c,
        count: batch,
    };
    let mut call = Call::new("herkx_strided_batched", Kind::Herkx, a, lda, c, ldc);
    call.tri(Side::Left, uplo, op, Diag::NonUnit)
        .dims(n, n, k)
        .with_b(b, ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Real(beta);
    run(h, call)
}

/// `B = alpha op(A) B` (`Side::Left`, `A` of order `m`) or `B = alpha B op(A)` (`Side::Right`,
/// order `n`), `A` triangular, `B` `m × n` overwritten (`?trmm`). Result blocks are built in
/// the workspace before they overwrite `B`.
#[allow(clippy::too_many_arguments)]
pub fn trmm<T: Scalar>(
    h: &mut Handle,
    side: Side,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    b: &mut DeviceBuffer<T>,
    ldb: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "trmm",
        Kind::Trmm,
        Batch::Single(a),
        lda,
        BatchMut::Single(b),
        ldb,
    );
    call.tri(side, uplo, op, diag).dims(m, n, 0);
    call.alpha = ScalarArg::Full(alpha);
    run(h, call)
}

/// `trmm` of each entry of lists of matrices.
#[allow(clippy::too_many_arguments)]
pub fn trmm_batched<T: Scalar>(
    h: &mut Handle,
    side: Side,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    b: &mut [&mut DeviceBuffer<T>],
    ldb: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "trmm_batched",
        Kind::Trmm,
        Batch::list(a),
        lda,
        BatchMut::List(b),
        ldb,
    );
    call.tri(side, uplo, op, diag).dims(m, n, 0);
    call.alpha = ScalarArg::Full(alpha);
    run(h, call)
}

/// `trmm` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn trmm_strided_batched<T: Scalar>(
    h: &mut Handle,
    side: Side,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    b: &mut DeviceBuffer<T>,
    ldb: usize,
    stride_b: usize,
    batch: usize,
) -> Result<Status, Error> {
    let a = Batch::Strided {
        buf: a,
        stride: stride_a,
        count: batch,
    };
    let b = BatchMut::Strided {
        buf: b,
        stride: stride_b,
        count: batch,
    };
    let mut call = Call::new("trmm_strided_batched", Kind::Trmm, a, lda, b, ldb);
    call.tri(side, uplo, op, diag).dims(m, n, 0);
    call.alpha = ScalarArg::Full(alpha);
    run(h, call)
}
