//! `gels`: least squares and least-norm solutions of full-rank systems, each single,
//! `_batched` and `_strided_batched`, in rocSOLVER's argument order.

use super::gels::{run, GelsCall};
use crate::common::operand::BatchMut;
use crate::device::DeviceBuffer;
use crate::{Error, Handle, Op, Results, Scalar, Status};

/// Solves an over- or underdetermined full-rank system with the `m × n` matrix `A`
/// (`?gels`), as LAPACK:
/// - `trans = N`, `m ≥ n`: the least-squares solution of `min ‖B − A X‖`;
/// - `trans = N`, `m < n`: the least-norm solution of `A X = B`;
/// - `trans = T` (real) or `C`, `m ≥ n`: the least-norm solution of `Aᴴ X = B`;
/// - `trans = T`/`C`, `m < n`: the least-squares solution of `min ‖B − Aᴴ X‖`.
///
/// `B` (`ldb ≥ max(m, n)`, `nrhs` columns) holds the right-hand sides in its first `m` rows
/// (`N`) or `n` rows (`T`/`C`) and receives `X` in its first `n` (`N`) or `m` rows; for a
/// least-squares problem the rows below `X` are overwritten too. `A` receives its QR
/// (`m ≥ n`, as [`geqrf`](crate::solver::geqrf)) or LQ (`m < n`, as [`gelqf`](crate::solver::gelqf))
/// factorization; `tau` stays in the workspace. `info`: 0, or `i > 0` when the `i`-th
/// diagonal element of `R` (`L`) is exactly zero: `A` is not of full rank and `B` holds no
/// solution (IEEE infinities or NaNs), never an error. `nrhs = 0` returns at once; `m` or
/// `n` zero sets `X` to zero.
#[allow(clippy::too_many_arguments)]
pub fn gels<T: Scalar>(
    h: &mut Handle,
    trans: Op,
    m: usize,
    n: usize,
    nrhs: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    b: &mut DeviceBuffer<T>,
    ldb: usize,
    info: Results<'_, i32>,
) -> Result<Status, Error> {
    let (a, b) = (BatchMut::Single(a), BatchMut::Single(b));
    run(
        h,
        call("gels", trans, (m, n, nrhs), (a, lda), (b, ldb), info),
    )
}

/// `gels` of each entry of lists of `A` and `B`, one `info` per entry.
#[allow(clippy::too_many_arguments)]
pub fn gels_batched<T: Scalar>(
    h: &mut Handle,
    trans: Op,
    m: usize,
    n: usize,
    nrhs: usize,
    a: &mut [&mut DeviceBuffer<T>],
    lda: usize,
    b: &mut [&mut DeviceBuffer<T>],
    ldb: usize,
    info: Results<'_, i32>,
) -> Result<Status, Error> {
    let (a, b) = (BatchMut::List(a), BatchMut::List(b));
    let c = call(
        "gels_batched",
        trans,
        (m, n, nrhs),
        (a, lda),
        (b, ldb),
        info,
    );
    run(h, c)
}

/// `gels` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn gels_strided_batched<T: Scalar>(
    h: &mut Handle,
    trans: Op,
    m: usize,
    n: usize,
    nrhs: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    b: &mut DeviceBuffer<T>,
    ldb: usize,
    stride_b: usize,
    info: Results<'_, i32>,
    batch: usize,
) -> Result<Status, Error> {
    let a = BatchMut::Strided {
        buf: a,
        stride: stride_a,
        count: batch,
    };
    let b = BatchMut::Strided {
        buf: b,
        stride: stride_b,
        count: batch,
    };
    let c = call(
        "gels_strided_batched",
        trans,
        (m, n, nrhs),
        (a, lda),
        (b, ldb),
        info,
    );
    run(h, c)
}

fn call<'a, 'b, 'c, T: Scalar>(
    name: &'static str,
    trans: Op,
    (m, n, nrhs): (usize, usize, usize),
    (a, lda): (BatchMut<'a, 'b, T>, usize),
    (b, ldb): (BatchMut<'a, 'c, T>, usize),
    info: Results<'a, i32>,
) -> GelsCall<'a, 'b, 'c, T> {
    GelsCall {
        name,
        trans,
        m,
        n,
        nrhs,
        a,
        lda,
        b,
        ldb,
        info,
    }
}
