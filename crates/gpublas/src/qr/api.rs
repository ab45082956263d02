//! The public Householder routines: `geqrf`, `orgqr` (`ungqr`), `ormqr` (`unmqr`), each
//! single, `_batched` (lists of matrices) and `_strided_batched` (one buffer, a stride), in
//! rocSOLVER's argument order.

use super::{run, Call};
use crate::common::operand::{Batch, BatchMut};
use crate::device::DeviceBuffer;
use crate::{Error, Handle, Op, Scalar, Side, Status};

/// QR factorization of an `m × n` matrix: `A = Q R` (`?geqrf`). `R` (upper trapezoidal)
/// overwrites the upper triangle of `A`; below the diagonal column `i` holds the Householder
/// vector `v_i` (its leading 1 implied), and `tau[i]` the scalar of
/// `H_i = I − tau_i v_i v_iᴴ`, with `Q = H_0 H_1 … H_{k−1}`, `k = min(m, n)`. As LAPACK: the
/// diagonal of `R` is real, `tau = 0` where a column has nothing below its diagonal to reflect,
/// else `1 ≤ Re tau ≤ 2` and `|tau − 1| ≤ 1`. `tau` receives `min(m, n)` values.
pub fn geqrf<T: Scalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    tau: &mut DeviceBuffer<T>,
) -> Result<Status, Error> {
    let c = Call::geqrf("geqrf", BatchMut::Single(a), lda, (m, n), tau, 0);
    run(h, c)
}

/// `geqrf` of each matrix of a list; the scalars of entry `e` at `tau[e * stride_tau ..]`
/// (`stride_tau ≥ min(m, n)`).
#[allow(clippy::too_many_arguments)]
pub fn geqrf_batched<T: Scalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    a: &mut [&mut DeviceBuffer<T>],
    lda: usize,
    tau: &mut DeviceBuffer<T>,
    stride_tau: usize,
) -> Result<Status, Error> {
    let c = Call::geqrf(
        "geqrf_batched",
        BatchMut::List(a),
        lda,
        (m, n),
        tau,
        stride_tau,
    );
    run(h, c)
}

/// `geqrf` of `batch` matrices `stride_a` elements apart in one buffer, their scalars
/// `stride_tau` apart.
#[allow(clippy::too_many_arguments)]
pub fn geqrf_strided_batched<T: Scalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    tau: &mut DeviceBuffer<T>,
    stride_tau: usize,
    batch: usize,
) -> Result<Status, Error> {
    let a = BatchMut::Strided {
        buf: a,
        stride: stride_a,
        count: batch,
    };
    let c = Call::geqrf("geqrf_strided_batched", a, lda, (m, n), tau, stride_tau);
    run(h, c)
}

/// The first `n` columns of `Q = H_0 H_1 … H_{k−1}` (`m × n`, `m ≥ n ≥ k`), from `geqrf`'s
/// vectors in the first `k` columns of `A` and its `tau`; `Q` overwrites `A` (`?orgqr`,
/// `?ungqr` for complex types: [`ungqr`] is the same function).
#[allow(clippy::too_many_arguments)]
pub fn orgqr<T: Scalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    k: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    tau: &DeviceBuffer<T>,
) -> Result<Status, Error> {
    let c = Call::orgqr("orgqr", BatchMut::Single(a), lda, (m, n, k), tau, 0);
    run(h, c)
}

/// `orgqr` of each matrix of a list, entry `e`'s scalars at `tau[e * stride_tau ..]`.
#[allow(clippy::too_many_arguments)]
pub fn orgqr_batched<T: Scalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    k: usize,
    a: &mut [&mut DeviceBuffer<T>],
    lda: usize,
    tau: &DeviceBuffer<T>,
    stride_tau: usize,
) -> Result<Status, Error> {
    let a = BatchMut::List(a);
    let c = Call::orgqr("orgqr_batched", a, lda, (m, n, k), tau, stride_tau);
    run(h, c)
}

/// `orgqr` of `batch` matrices `stride_a` apart, their scalars `stride_tau` apart.
#[allow(clippy::too_many_arguments)]
pub fn orgqr_strided_batched<T: Scalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    k: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    tau: &DeviceBuffer<T>,
    stride_tau: usize,
    batch: usize,
) -> Result<Status, Error> {
    let a = BatchMut::Strided {
        buf: a,
        stride: stride_a,
        count: batch,
    };
    let c = Call::orgqr("orgqr_strided_batched", a, lda, (m, n, k), tau, stride_tau);
    run(h, c)
}

/// `C := op(Q) C` (`side` Left, `C` is `m × n`, `Q` of order `m`) or `C := C op(Q)` (Right,
/// `Q` of order `n`), with `Q = H_0 … H_{k−1}` given by `geqrf`'s vectors in the first `k`
/// columns of `A` (`lda ≥ m` Left, `≥ n` Right) and its `tau`, without forming `Q`
/// (`?ormqr`; `?unmqr` for complex types: [`unmqr`] is the same function). `op` is `N`, `T`
/// or `C` (for real types `T` and `C` are the same; for complex ones `T` is not accepted, as
/// LAPACK's `zunmqr` has no transpose without conjugation).
#[allow(clippy::too_many_arguments)]
pub fn ormqr<T: Scalar>(
    h: &mut Handle,
    side: Side,
    op: Op,
    m: usize,
    n: usize,
    k: usize,
    a: &DeviceBuffer<T>,
    lda: usize,
    tau: &DeviceBuffer<T>,
    c: &mut DeviceBuffer<T>,
    ldc: usize,
) -> Result<Status, Error> {
    let call = Call::ormqr(
        "ormqr",
        (side, op),
        (m, n, k),
        (Batch::Single(a), lda),
        (tau, 0),
        BatchMut::Single(c),
        ldc,
    );
    run(h, call)
}

/// `ormqr` of each entry of lists of `A` and `C`, entry `e`'s scalars at
/// `tau[e * stride_tau ..]`.
#[allow(clippy::too_many_arguments)]
pub fn ormqr_batched<T: Scalar>(
    h: &mut Handle,
    side: Side,
    op: Op,
    m: usize,
    n: usize,
    k: usize,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    tau: &DeviceBuffer<T>,
    stride_tau: usize,
    c: &mut [&mut DeviceBuffer<T>],
    ldc: usize,
) -> Result<Status, Error> {
    let call = Call::ormqr(
        "ormqr_batched",
        (side, op),
        (m, n, k),
        (Batch::list(a), lda),
        (tau, stride_tau),
        BatchMut::List(c),
        ldc,
    );
    run(h, call)
}

/// `ormqr` of `batch` entries at fixed strides.
#[allow(clippy::too_many_arguments)]
pub fn ormqr_strided_batched<T: Scalar>(
    h: &mut Handle,
    side: Side,
    op: Op,
    m: usize,
    n: usize,
    k: usize,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    tau: &DeviceBuffer<T>,
    stride_tau: usize,
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
    let cm = BatchMut::Strided {
        buf: c,
        stride: stride_c,
        count: batch,
    };
    let call = Call::ormqr(
        "ormqr_strided_batched",
        (side, op),
        (m, n, k),
        (a, lda),
        (tau, stride_tau),
        cm,
        ldc,
    );
    run(h, call)
}

pub use self::orgqr as ungqr;
pub use self::orgqr_batched as ungqr_batched;
pub use self::orgqr_strided_batched as ungqr_strided_batched;
pub use self::ormqr as unmqr;
pub use self::ormqr_batched as unmqr_batched;
pub use self::ormqr_strided_batched as unmqr_strided_batched;
