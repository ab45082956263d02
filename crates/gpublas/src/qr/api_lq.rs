//! The LQ routines: `gelqf` (`A = L Q`) and `ormlq` (`unmlq`: apply its `Q` without forming
//! it), each single, `_batched` and `_strided_batched`, in rocSOLVER's argument order. Both
//! run geqrf's machinery on `Aᴴ`: each block of rows is transposed into the workspace, where
//! its panel (gelqf) or its `T` (ormlq) is made, so they share geqrf's kernels.

use super::{run, Call, Kind};
use crate::common::operand::{Batch, BatchMut};
use crate::device::DeviceBuffer;
use crate::{Error, Handle, Op, Scalar, Side, Status};

/// LQ factorization of an `m × n` matrix: `A = L Q` (`?gelqf`). `L` (lower trapezoidal)
/// overwrites the lower triangle of `A`; right of the diagonal row `i` holds the conjugated
/// Householder vector `v_i` (its leading 1 implied), and `tau[i]` the scalar of
/// `H_i = I − tau_i v_i v_iᴴ`, with `Q = H_{k−1}ᴴ … H_1ᴴ H_0ᴴ`, `k = min(m, n)` (LAPACK's
/// convention; `L`'s diagonal is real). `tau` receives `min(m, n)` values.
pub fn gelqf<T: Scalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    tau: &mut DeviceBuffer<T>,
) -> Result<Status, Error> {
    let mut c = Call::geqrf("gelqf", BatchMut::Single(a), lda, (m, n), tau, 0);
    c.kind = Kind::Gelqf;
    run(h, c)
}

/// `gelqf` of each matrix of a list; the scalars of entry `e` at `tau[e * stride_tau ..]`
/// (`stride_tau ≥ min(m, n)`).
#[allow(clippy::too_many_arguments)]
pub fn gelqf_batched<T: Scalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    a: &mut [&mut DeviceBuffer<T>],
    lda: usize,
    tau: &mut DeviceBuffer<T>,
    stride_tau: usize,
) -> Result<Status, Error> {
    let a = BatchMut::List(a);
    let mut c = Call::geqrf("gelqf_batched", a, lda, (m, n), tau, stride_tau);
    c.kind = Kind::Gelqf;
    run(h, c)
}

/// `gelqf` of `batch` matrices `stride_a` elements apart in one buffer, their scalars
/// `stride_tau` apart.
#[allow(clippy::too_many_arguments)]
pub fn gelqf_strided_batched<T: Scalar>(
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
    let mut c = Call::geqrf("gelqf_strided_batched", a, lda, (m, n), tau, stride_tau);
    c.kind = Kind::Gelqf;
    run(h, c)
}

/// `C := op(Q) C` (`side` Left, `C` is `m × n`, `Q` of order `m`) or `C := C op(Q)` (Right,
/// `Q` of order `n`), with `Q = H_{k−1}ᴴ … H_0ᴴ` given by `gelqf`'s vectors in the first `k`
/// rows of `A` (`k × m` Left, `k × n` Right; `lda ≥ k`) and its `tau`, without forming `Q`
/// (`?ormlq`; `?unmlq` for complex types: [`unmlq`] is the same function). `op` as
/// [`ormqr`](crate::solver::ormqr)'s: `N`, `T` or `C`, `T` not accepted for complex types.
#[allow(clippy::too_many_arguments)]
pub fn ormlq<T: Scalar>(
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
    let mut call = Call::ormqr(
        "ormlq",
        (side, op),
        (m, n, k),
        (Batch::Single(a), lda),
        (tau, 0),
        BatchMut::Single(c),
        ldc,
    );
    call.kind = Kind::Ormlq;
    run(h, call)
}

/// `ormlq` of each entry of lists of `A` and `C`, entry `e`'s scalars at
/// `tau[e * stride_tau ..]`.
#[allow(clippy::too_many_arguments)]
pub fn ormlq_batched<T: Scalar>(
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
    let mut call = Call::ormqr(
        "ormlq_batched",
        (side, op),
        (m, n, k),
        (Batch::list(a), lda),
        (tau, stride_tau),
        BatchMut::List(c),
        ldc,
    );
    call.kind = Kind::Ormlq;
    run(h, call)
}

/// `ormlq` of `batch` entries at fixed strides.
#[allow(clippy::too_many_arguments)]
pub fn ormlq_strided_batched<T: Scalar>(
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
    let mut call = Call::ormqr(
        "ormlq_strided_batched",
        (side, op),
        (m, n, k),
        (a, lda),
        (tau, stride_tau),
        cm,
        ldc,
    );
    call.kind = Kind::Ormlq;
    run(h, call)
}

pub use self::ormlq as unmlq;
pub use self::ormlq_batched as unmlq_batched;
pub use self::ormlq_strided_batched as unmlq_strided_batched;
