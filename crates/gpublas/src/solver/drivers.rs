//! The LAPACK drivers on the solver's routines: `gesv` (getrf then getrs) and `posv` (potrf
//! then potrs) as parts of one call through `common::plan::drive_parts` (every part checked
//! before any writes), `getri` and `potri` (the inverses from getrf's and potrf's factors,
//! programs of their own),
//! each single, `_batched` and `_strided_batched`, in rocSOLVER's argument order.

use super::{run, run_pass, Call, Kind};
use crate::common::operand::{Batch, BatchMut};
use crate::common::plan::drive_parts;
use crate::device::DeviceBuffer;
use crate::{Error, Handle, Op, Results, Scalar, Status, Uplo};

/// Solves `A X = B` for a general `n × n` matrix `A` (`?gesv`): `A` is overwritten by its LU
/// factors and `ipiv` by the `n` pivots, exactly as [`getrf`](super::getrf) writes them, and
/// `B` (`n × nrhs`) by `X`. `info` as getrf's: 0, or `i > 0` when `U(i, i)` (1-based) is
/// exactly zero; then `B` holds no solution (the solve divides by that zero: IEEE infinities
/// or NaNs), never an error. With `nrhs = 0` `A` is still factored, as LAPACK does.
#[allow(clippy::too_many_arguments)]
pub fn gesv<T: Scalar>(
    h: &mut Handle,
    n: usize,
    nrhs: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    ipiv: &mut DeviceBuffer<i32>,
    b: &mut DeviceBuffer<T>,
    ldb: usize,
    info: Results<'_, i32>,
) -> Result<Status, Error> {
    let (a, b) = (BatchMut::Single(a), BatchMut::Single(b));
    lu_solve(h, "gesv", (n, nrhs), (a, lda), (ipiv, 0), (b, ldb), info)
}

/// `gesv` of each entry of lists of matrices and right-hand sides; pivots of entry `e` at
/// `ipiv[e * stride_piv ..]` (`stride_piv ≥ n`), one `info` per entry.
#[allow(clippy::too_many_arguments)]
pub fn gesv_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    nrhs: usize,
    a: &mut [&mut DeviceBuffer<T>],
    lda: usize,
    ipiv: &mut DeviceBuffer<i32>,
    stride_piv: usize,
    b: &mut [&mut DeviceBuffer<T>],
    ldb: usize,
    info: Results<'_, i32>,
) -> Result<Status, Error> {
    let (a, b) = (BatchMut::List(a), BatchMut::List(b));
    let name = "gesv_batched";
    lu_solve(
        h,
        name,
        (n, nrhs),
        (a, lda),
        (ipiv, stride_piv),
        (b, ldb),
        info,
    )
}

/// `gesv` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn gesv_strided_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    nrhs: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    ipiv: &mut DeviceBuffer<i32>,
    stride_piv: usize,
    b: &mut DeviceBuffer<T>,
    ldb: usize,
    stride_b: usize,
    info: Results<'_, i32>,
    batch: usize,
) -> Result<Status, Error> {
    let a = strided_mut(a, stride_a, batch);
    let b = strided_mut(b, stride_b, batch);
    let name = "gesv_strided_batched";
    lu_solve(
        h,
        name,
        (n, nrhs),
        (a, lda),
        (ipiv, stride_piv),
        (b, ldb),
        info,
    )
}

/// Solves `A X = B` for a Hermitian (symmetric) positive definite `n × n` matrix `A`
/// (`?posv`): the `uplo` triangle of `A` is overwritten by its Cholesky factor, exactly as
/// [`potrf`](super::potrf) writes it (the other triangle is neither read nor written), and
/// `B` (`n × nrhs`) by `X`. `info` as potrf's: 0, or `k > 0` when the leading minor of order
/// `k` is not positive definite; then `B` holds no solution, never an error.
#[allow(clippy::too_many_arguments)]
pub fn posv<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    nrhs: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    b: &mut DeviceBuffer<T>,
    ldb: usize,
    info: Results<'_, i32>,
) -> Result<Status, Error> {
    let (a, b) = (BatchMut::Single(a), BatchMut::Single(b));
    cholesky_solve(h, "posv", uplo, (n, nrhs), (a, lda), (b, ldb), info)
}

/// `posv` of each entry of lists of matrices and right-hand sides, one `info` per entry.
#[allow(clippy::too_many_arguments)]
pub fn posv_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    nrhs: usize,
    a: &mut [&mut DeviceBuffer<T>],
    lda: usize,
    b: &mut [&mut DeviceBuffer<T>],
    ldb: usize,
    info: Results<'_, i32>,
) -> Result<Status, Error> {
    let (a, b) = (BatchMut::List(a), BatchMut::List(b));
    cholesky_solve(h, "posv_batched", uplo, (n, nrhs), (a, lda), (b, ldb), info)
}

/// `posv` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn posv_strided_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
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
    let a = strided_mut(a, stride_a, batch);
    let b = strided_mut(b, stride_b, batch);
    let name = "posv_strided_batched";
    cholesky_solve(h, name, uplo, (n, nrhs), (a, lda), (b, ldb), info)
}

/// The inverse of a general `n × n` matrix from the LU factors and pivots
/// [`getrf`](super::getrf) wrote, in place (`?getri`): `A` becomes `inv(A)`. `info`: 0, or
/// `i > 0` when `U(i, i)` (1-based) is exactly zero: `A` is singular and then holds no
/// inverse (IEEE infinities or NaNs), never an error.
///
/// LAPACK's algorithm: `U` inverted in place (recursively: two triangular solves per level,
/// 32 × 32 leaves by a kernel), then `inv(A) L = inv(U)` solved for `inv(A)` by blocks of
/// columns from the right (each block's part of `L` moved to the workspace first), then the
/// column interchanges. Workspace: that block of `L` (`n × nb`, `nb` from the plan) and the
/// solves' parts.
pub fn getri<T: Scalar>(
    h: &mut Handle,
    n: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    ipiv: &DeviceBuffer<i32>,
    info: Results<'_, i32>,
) -> Result<Status, Error> {
    inverse(h, "getri", n, (BatchMut::Single(a), lda), (ipiv, 0), info)
}

/// `getri` of each matrix of a list; pivots of entry `e` at `ipiv[e * stride_piv ..]`, one
/// `info` per entry.
#[allow(clippy::too_many_arguments)]
pub fn getri_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    a: &mut [&mut DeviceBuffer<T>],
    lda: usize,
    ipiv: &DeviceBuffer<i32>,
    stride_piv: usize,
    info: Results<'_, i32>,
) -> Result<Status, Error> {
    let a = (BatchMut::List(a), lda);
    inverse(h, "getri_batched", n, a, (ipiv, stride_piv), info)
}

/// `getri` of `batch` matrices `stride_a` apart, their pivots `stride_piv` apart.
#[allow(clippy::too_many_arguments)]
pub fn getri_strided_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    ipiv: &DeviceBuffer<i32>,
    stride_piv: usize,
    info: Results<'_, i32>,
    batch: usize,
) -> Result<Status, Error> {
    let a = (strided_mut(a, stride_a, batch), lda);
    inverse(h, "getri_strided_batched", n, a, (ipiv, stride_piv), info)
}

/// The inverse of a Hermitian (symmetric) positive definite `n × n` matrix from the Cholesky
/// factor [`potrf`](super::potrf) wrote in its `uplo` triangle, in place (`?potri`): that
/// triangle becomes the same triangle of `inv(A)`; the other is neither read nor written.
/// `info`: 0, or `i > 0` when the factor's `(i, i)` element (1-based) is exactly zero (then
/// `A` holds no inverse: IEEE infinities or NaNs), never an error.
///
/// LAPACK's algorithm: the factor inverted in place (as getri's `U`), then `lauum` (`inv(U)
/// inv(U)ᴴ`, or `inv(L)ᴴ inv(L)`) in place, recursively: a rank-k update and a triangular
/// product per level, 32 × 32 leaves in the workspace.
pub fn potri<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    info: Results<'_, i32>,
) -> Result<Status, Error> {
    cholesky_inverse(h, "potri", uplo, n, (BatchMut::Single(a), lda), info)
}

/// `potri` of each matrix of a list, one `info` per entry.
pub fn potri_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    a: &mut [&mut DeviceBuffer<T>],
    lda: usize,
    info: Results<'_, i32>,
) -> Result<Status, Error> {
    cholesky_inverse(h, "potri_batched", uplo, n, (BatchMut::List(a), lda), info)
}

/// `potri` of `batch` matrices `stride_a` apart, one `info` per entry.
#[allow(clippy::too_many_arguments)]
pub fn potri_strided_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    info: Results<'_, i32>,
    batch: usize,
) -> Result<Status, Error> {
    let a = (strided_mut(a, stride_a, batch), lda);
    cholesky_inverse(h, "potri_strided_batched", uplo, n, a, info)
}

fn cholesky_inverse<T: Scalar>(
    h: &mut Handle,
    name: &'static str,
    uplo: Uplo,
    n: usize,
    (a, lda): (BatchMut<'_, '_, T>, usize),
    info: Results<'_, i32>,
) -> Result<Status, Error> {
    let mut c = Call::factor(name, Kind::Potri, a, lda, (n, n), info);
    c.uplo = uplo;
    run(h, c)
}

fn strided_mut<T>(buf: &mut DeviceBuffer<T>, stride: usize, count: usize) -> BatchMut<'_, '_, T> {
    BatchMut::Strided { buf, stride, count }
}

/// gesv: getrf, then getrs reading the factors and pivots it wrote.
fn lu_solve<T: Scalar>(
    h: &mut Handle,
    name: &'static str,
    (n, nrhs): (usize, usize),
    (mut a, lda): (BatchMut<'_, '_, T>, usize),
    (ipiv, stride_piv): (&mut DeviceBuffer<i32>, usize),
    (mut b, ldb): (BatchMut<'_, '_, T>, usize),
    mut info: Results<'_, i32>,
) -> Result<Status, Error> {
    drive_parts(h, 2, |h, part, pass| {
        if part == 0 {
            let mut c = Call::factor(
                name,
                Kind::Getrf,
                a.reborrow(),
                lda,
                (n, n),
                info.reborrow(),
            );
            c.ipiv = Some((Results::Device(&mut *ipiv), stride_piv));
            run_pass(h, c, pass)
        } else {
            let factors = (a.view(), lda);
            let mut c = Call::solve(name, Kind::Getrs, b.reborrow(), ldb, (n, nrhs), factors);
            c.op = Op::N;
            c.piv_in = Some((&*ipiv, stride_piv));
            run_pass(h, c, pass)
        }
    })
}

/// posv: potrf, then potrs reading the factor it wrote.
fn cholesky_solve<T: Scalar>(
    h: &mut Handle,
    name: &'static str,
    uplo: Uplo,
    (n, nrhs): (usize, usize),
    (mut a, lda): (BatchMut<'_, '_, T>, usize),
    (mut b, ldb): (BatchMut<'_, '_, T>, usize),
    mut info: Results<'_, i32>,
) -> Result<Status, Error> {
    drive_parts(h, 2, |h, part, pass| {
        if part == 0 {
            let mut c = Call::factor(
                name,
                Kind::Potrf,
                a.reborrow(),
                lda,
                (n, n),
                info.reborrow(),
            );
            c.uplo = uplo;
            run_pass(h, c, pass)
        } else {
            let factors: (Batch<'_, T>, usize) = (a.view(), lda);
            let mut c = Call::solve(name, Kind::Potrs, b.reborrow(), ldb, (n, nrhs), factors);
            c.uplo = uplo;
            run_pass(h, c, pass)
        }
    })
}

fn inverse<T: Scalar>(
    h: &mut Handle,
    name: &'static str,
    n: usize,
    (a, lda): (BatchMut<'_, '_, T>, usize),
    (ipiv, stride_piv): (&DeviceBuffer<i32>, usize),
    info: Results<'_, i32>,
) -> Result<Status, Error> {
    let mut c = Call::factor(name, Kind::Getri, a, lda, (n, n), info);
    c.piv_in = Some((ipiv, stride_piv));
    run(h, c)
}
