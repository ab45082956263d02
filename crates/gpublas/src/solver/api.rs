//! The public LAPACK routines: `getrf`, `getrf_npvt`, `getrs`, `potrf`, `potrs`, each single,
//! `_batched` (lists of matrices) and `_strided_batched` (one buffer, a stride).

use super::{run, Call, Kind};
use crate::common::operand::{Batch, BatchMut};
use crate::device::DeviceBuffer;
use crate::{Error, Handle, Op, Results, Scalar, Status, Uplo};

/// LU factorization with partial pivoting of an `m × n` matrix: `A = P L U`, `L` unit lower
/// (trapezoidal when `m > n`), `U` upper (trapezoidal when `m < n`), both overwriting `A`
/// (`?getrf`).
///
/// `ipiv` receives `min(m, n)` 1-based row indices (row `i` was interchanged with row
/// `ipiv[i]`, in order, as LAPACK writes them); `info` one value: 0, or `i > 0` when `U(i, i)`
/// (1-based) is exactly zero — the factorization is completed anyway, and solving with it
/// would divide by zero. Either result goes to device memory (nothing waits: capturable) or
/// host memory (the call waits), as [`Results`] says.
#[allow(clippy::too_many_arguments)]
pub fn getrf<T: Scalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    ipiv: Results<'_, i32>,
    info: Results<'_, i32>,
) -> Result<Status, Error> {
    let mut c = Call::factor("getrf", Kind::Getrf, BatchMut::Single(a), lda, (m, n), info);
    c.ipiv = Some((ipiv, 0));
    run(h, c)
}

/// `getrf` of each matrix of a list; pivots of entry `e` at `ipiv[e * stride_piv ..]`
/// (`stride_piv ≥ min(m, n)`), one `info` per entry.
#[allow(clippy::too_many_arguments)]
pub fn getrf_batched<T: Scalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    a: &mut [&mut DeviceBuffer<T>],
    lda: usize,
    ipiv: Results<'_, i32>,
    stride_piv: usize,
    info: Results<'_, i32>,
) -> Result<Status, Error> {
    let mut c = Call::factor(
        "getrf_batched",
        Kind::Getrf,
        BatchMut::List(a),
        lda,
        (m, n),
        info,
    );
    c.ipiv = Some((ipiv, stride_piv));
    run(h, c)
}

/// `getrf` of `batch` matrices `stride_a` elements apart in one buffer; pivots
/// `stride_piv` apart, one `info` per entry.
#[allow(clippy::too_many_arguments)]
pub fn getrf_strided_batched<T: Scalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    ipiv: Results<'_, i32>,
    stride_piv: usize,
    info: Results<'_, i32>,
    batch: usize,
) -> Result<Status, Error> {
    let a = BatchMut::Strided {
        buf: a,
        stride: stride_a,
        count: batch,
    };
    let mut c = Call::factor("getrf_strided_batched", Kind::Getrf, a, lda, (m, n), info);
    c.ipiv = Some((ipiv, stride_piv));
    run(h, c)
}

/// LU factorization without pivoting (`A = L U`); `info` as [`getrf`]'s. Only for matrices
/// whose leading minors are safely non-singular (diagonally dominant ones, say).
pub fn getrf_npvt<T: Scalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    info: Results<'_, i32>,
) -> Result<Status, Error> {
    run(
        h,
        Call::factor(
            "getrf_npvt",
            Kind::GetrfNpvt,
            BatchMut::Single(a),
            lda,
            (m, n),
            info,
        ),
    )
}

/// `getrf_npvt` of each matrix of a list, one `info` per entry.
pub fn getrf_npvt_batched<T: Scalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    a: &mut [&mut DeviceBuffer<T>],
    lda: usize,
    info: Results<'_, i32>,
) -> Result<Status, Error> {
    let a = BatchMut::List(a);
    run(
        h,
        Call::factor("getrf_npvt_batched", Kind::GetrfNpvt, a, lda, (m, n), info),
    )
}

/// `getrf_npvt` of `batch` matrices `stride_a` apart, one `info` per entry.
#[allow(clippy::too_many_arguments)]
pub fn getrf_npvt_strided_batched<T: Scalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    info: Results<'_, i32>,
    batch: usize,
) -> Result<Status, Error> {
    let a = BatchMut::Strided {
        buf: a,
        stride: stride_a,
        count: batch,
    };
    run(
        h,
        Call::factor(
            "getrf_npvt_strided_batched",
            Kind::GetrfNpvt,
            a,
            lda,
            (m, n),
            info,
        ),
    )
}

/// Solves `op(A) X = B` with the factors and pivots [`getrf`] wrote for the `n × n` matrix
/// `A`; `B` (`n × nrhs`) is overwritten with `X` (`?getrs`). Pivots are read from device
/// memory. A zero on `U`'s diagonal gives IEEE infinities or NaNs, never an error.
#[allow(clippy::too_many_arguments)]
pub fn getrs<T: Scalar>(
    h: &mut Handle,
    op: Op,
    n: usize,
    nrhs: usize,
    a: &DeviceBuffer<T>,
    lda: usize,
    ipiv: &DeviceBuffer<i32>,
    b: &mut DeviceBuffer<T>,
    ldb: usize,
) -> Result<Status, Error> {
    let mut c = Call::solve(
        "getrs",
        Kind::Getrs,
        BatchMut::Single(b),
        ldb,
        (n, nrhs),
        (Batch::Single(a), lda),
    );
    c.op = op;
    c.piv_in = Some((ipiv, 0));
    run(h, c)
}

/// `getrs` of each entry of lists of factors and right-hand sides; pivots `stride_piv` apart.
#[allow(clippy::too_many_arguments)]
pub fn getrs_batched<T: Scalar>(
    h: &mut Handle,
    op: Op,
    n: usize,
    nrhs: usize,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    ipiv: &DeviceBuffer<i32>,
    stride_piv: usize,
    b: &mut [&mut DeviceBuffer<T>],
    ldb: usize,
) -> Result<Status, Error> {
    let mut c = Call::solve(
        "getrs_batched",
        Kind::Getrs,
        BatchMut::List(b),
        ldb,
        (n, nrhs),
        (Batch::list(a), lda),
    );
    c.op = op;
    c.piv_in = Some((ipiv, stride_piv));
    run(h, c)
}

/// `getrs` of `batch` entries at fixed strides.
#[allow(clippy::too_many_arguments)]
pub fn getrs_strided_batched<T: Scalar>(
    h: &mut Handle,
    op: Op,
    n: usize,
    nrhs: usize,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    ipiv: &DeviceBuffer<i32>,
    stride_piv: usize,
    b: &mut DeviceBuffer<T>,
    ldb: usize,
    stride_b: usize,
    batch: usize,
) -> Result<Status, Error> {
    let b = BatchMut::Strided {
        buf: b,
        stride: stride_b,
        count: batch,
    };
    let a = Batch::Strided {
        buf: a,
        stride: stride_a,
        count: batch,
    };
    let mut c = Call::solve(
        "getrs_strided_batched",
        Kind::Getrs,
        b,
        ldb,
        (n, nrhs),
        (a, lda),
    );
    c.op = op;
    c.piv_in = Some((ipiv, stride_piv));
    run(h, c)
}

/// Cholesky factorization of a Hermitian (symmetric) positive definite `n × n` matrix:
/// `A = L Lᴴ` (`Uplo::Lower`) or `Uᴴ U` (`Uplo::Upper`), overwriting the stored triangle; the
/// other triangle is neither read nor written (`?potrf`). `info`: 0, or `k > 0` when the
/// leading minor of order `k` is not positive definite (the factorization stopped there and
/// `A` is partly overwritten).
pub fn potrf<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    info: Results<'_, i32>,
) -> Result<Status, Error> {
    let mut c = Call::factor("potrf", Kind::Potrf, BatchMut::Single(a), lda, (n, n), info);
    c.uplo = uplo;
    run(h, c)
}

/// `potrf` of each matrix of a list, one `info` per entry.
pub fn potrf_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    a: &mut [&mut DeviceBuffer<T>],
    lda: usize,
    info: Results<'_, i32>,
) -> Result<Status, Error> {
    let mut c = Call::factor(
        "potrf_batched",
        Kind::Potrf,
        BatchMut::List(a),
        lda,
        (n, n),
        info,
    );
    c.uplo = uplo;
    run(h, c)
}

/// `potrf` of `batch` matrices `stride_a` apart, one `info` per entry.
#[allow(clippy::too_many_arguments)]
pub fn potrf_strided_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    info: Results<'_, i32>,
    batch: usize,
) -> Result<Status, Error> {
    let a = BatchMut::Strided {
        buf: a,
        stride: stride_a,
        count: batch,
    };
    let mut c = Call::factor("potrf_strided_batched", Kind::Potrf, a, lda, (n, n), info);
    c.uplo = uplo;
    run(h, c)
}

/// Solves `A X = B` with the Cholesky factor [`potrf`] wrote (`uplo` as it was given); `B`
/// (`n × nrhs`) is overwritten with `X` (`?potrs`).
#[allow(clippy::too_many_arguments)]
pub fn potrs<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    nrhs: usize,
    a: &DeviceBuffer<T>,
    lda: usize,
    b: &mut DeviceBuffer<T>,
    ldb: usize,
) -> Result<Status, Error> {
    let mut c = Call::solve(
        "potrs",
        Kind::Potrs,
        BatchMut::Single(b),
        ldb,
        (n, nrhs),
        (Batch::Single(a), lda),
    );
    c.uplo = uplo;
    run(h, c)
}

/// `potrs` of each entry of lists of factors and right-hand sides.
#[allow(clippy::too_many_arguments)]
pub fn potrs_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    nrhs: usize,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    b: &mut [&mut DeviceBuffer<T>],
    ldb: usize,
) -> Result<Status, Error> {
    let mut c = Call::solve(
        "potrs_batched",
        Kind::Potrs,
        BatchMut::List(b),
        ldb,
        (n, nrhs),
        (Batch::list(a), lda),
    );
    c.uplo = uplo;
    run(h, c)
}

/// `potrs` of `batch` entries at fixed strides.
#[allow(clippy::too_many_arguments)]
pub fn potrs_strided_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    nrhs: usize,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    b: &mut DeviceBuffer<T>,
    ldb: usize,
    stride_b: usize,
    batch: usize,
) -> Result<Status, Error> {
    let b = BatchMut::Strided {
        buf: b,
        stride: stride_b,
        count: batch,
    };
    let a = Batch::Strided {
        buf: a,
        stride: stride_a,
        count: batch,
    };
    let mut c = Call::solve(
        "potrs_strided_batched",
        Kind::Potrs,
        b,
        ldb,
        (n, nrhs),
        (a, lda),
    );
    c.uplo = uplo;
    run(h, c)
}
