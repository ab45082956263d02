//! The public triangular solves and inverses: `trsm`, `trsm_ex` (choose how the diagonal
//! blocks are treated, or hand in their inverse) and `trtri`, each single, `_batched` and
//! `_strided_batched`.

use super::{run, Call, Kind, Method, ScalarArg};
use crate::common::operand::{Batch, BatchMut};
use crate::device::DeviceBuffer;
use crate::{Coef, Diag, Error, Handle, Op, Scalar, Side, Status, Uplo};

/// How `trsm_ex` treats the diagonal blocks of `A`. `I` is the form of a caller-supplied
/// inverse: `(&DeviceBuffer<T>, ld)` for the single form, `(&[&DeviceBuffer<T>], ld)` for
/// `_batched`, `(&DeviceBuffer<T>, ld, stride)` for `_strided_batched`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrsmMethod<I> {
    /// Invert the diagonal blocks into the workspace and solve with matrix products (what
    /// `trsm` does). Falls back to smaller blocks, then to substitution, under a small fixed
    /// workspace (`PerfDegraded`).
    Invert,
    /// Forward or back substitution on the diagonal blocks (matrix products for the rest): no
    /// inverse is formed, so the result keeps the accuracy of substitution on ill-conditioned
    /// `A`; slower, and needs no workspace beyond device-scalar slots.
    Substitute,
    /// Read the diagonal blocks' inverses from the inverse of `A` as [`trtri`] writes it (only
    /// its diagonal blocks are read), so repeated solves with one `A` skip the inversion.
    Inverse(I),
}

impl<I> TrsmMethod<I> {
    /// The same method with the inverse's form converted.
    fn map<J>(self, f: impl FnOnce(I) -> J) -> TrsmMethod<J> {
        match self {
            TrsmMethod::Invert => TrsmMethod::Invert,
            TrsmMethod::Substitute => TrsmMethod::Substitute,
            TrsmMethod::Inverse(i) => TrsmMethod::Inverse(f(i)),
        }
    }
}

/// A caller-supplied inverse for the single form: the buffer and its leading dimension.
pub type InvSingle<'a, T> = (&'a DeviceBuffer<T>, usize);
/// A caller-supplied inverse for `_batched`: one buffer per entry and the leading dimension.
pub type InvList<'a, T> = (&'a [&'a DeviceBuffer<T>], usize);
/// A caller-supplied inverse for `_strided_batched`: buffer, leading dimension, stride.
pub type InvStrided<'a, T> = (&'a DeviceBuffer<T>, usize, usize);

#[allow(clippy::too_many_arguments)]
fn solve<'a, 'b, T: Scalar>(
    h: &mut Handle,
    name: &'static str,
    (side, uplo, op, diag): (Side, Uplo, Op, Diag),
    (m, n): (usize, usize),
    alpha: Coef<'a, T>,
    a: Batch<'a, T>,
    lda: usize,
    b: BatchMut<'a, 'b, T>,
    ldb: usize,
    method: TrsmMethod<(Batch<'a, T>, usize)>,
) -> Result<Status, Error> {
    let mut call = Call::new(name, Kind::Trsm, a, lda, b, ldb);
    call.tri(side, uplo, op, diag).dims(m, n, 0);
    call.alpha = ScalarArg::Full(alpha);
    call.method = match method {
        TrsmMethod::Invert => Method::Invert,
        TrsmMethod::Substitute => Method::Substitute,
        TrsmMethod::Inverse((inv, ld)) => {
            call.with_b(inv, ld);
            Method::Given
        }
    };
    run(h, call)
}

/// Solves `op(A) X = alpha B` (`Side::Left`, `A` of order `m`) or `X op(A) = alpha B`
/// (`Side::Right`, order `n`) for `X`, `A` triangular, `B` `m × n` overwritten with `X`
/// (`?trsm`).
///
/// The diagonal blocks of `A` are inverted into the workspace and each block of `X` is one
/// matrix product with its inverse block after the products that update it; a triangle of
/// order 32 or less is solved by substitution. Accuracy: the inverted blocks (128 × 128; 512 × 512 with at most 128 right-hand
/// sides) carry their condition number into the result,
/// so on an ill-conditioned `A` the residual can exceed substitution's by up to about that
/// factor; use [`trsm_ex`] with [`TrsmMethod::Substitute`] where that matters. A zero on the
/// diagonal of a non-unit `A` gives IEEE infinities or NaNs in `X`, never an error.
#[allow(clippy::too_many_arguments)]
pub fn trsm<T: Scalar>(
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
    let (a, b) = (Batch::Single(a), BatchMut::Single(b));
    solve(
        h,
        "trsm",
        (side, uplo, op, diag),
        (m, n),
        alpha,
        a,
        lda,
        b,
        ldb,
        TrsmMethod::Invert,
    )
}

/// `trsm` of each entry of lists of matrices.
#[allow(clippy::too_many_arguments)]
pub fn trsm_batched<T: Scalar>(
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
    let (a, b) = (Batch::list(a), BatchMut::List(b));
    let name = "trsm_batched";
    solve(
        h,
        name,
        (side, uplo, op, diag),
        (m, n),
        alpha,
        a,
        lda,
        b,
        ldb,
        TrsmMethod::Invert,
    )
}

/// `trsm` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn trsm_strided_batched<T: Scalar>(
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
    let a = strided(a, stride_a, batch);
    let b = BatchMut::Strided {
        buf: b,
        stride: stride_b,
        count: batch,
    };
    let name = "trsm_strided_batched";
    solve(
        h,
        name,
        (side, uplo, op, diag),
        (m, n),
        alpha,
        a,
        lda,
        b,
        ldb,
        TrsmMethod::Invert,
    )
}

fn strided<T>(buf: &DeviceBuffer<T>, stride: usize, count: usize) -> Batch<'_, T> {
    Batch::Strided { buf, stride, count }
}

/// `trsm` with a choice of how the diagonal blocks of `A` are treated, or with their inverse
/// supplied by the caller (see [`TrsmMethod`]). With `TrsmMethod::Inverse((inv, ldinv))`,
/// `inv` is `A`'s inverse as [`trtri`] writes it (`ldinv ≥` the order of `A`); only its
/// diagonal blocks are read.
#[allow(clippy::too_many_arguments)]
pub fn trsm_ex<'a, T: Scalar>(
    h: &mut Handle,
    side: Side,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    m: usize,
    n: usize,
    alpha: Coef<'a, T>,
    a: &'a DeviceBuffer<T>,
    lda: usize,
    b: &mut DeviceBuffer<T>,
    ldb: usize,
    method: TrsmMethod<InvSingle<'a, T>>,
) -> Result<Status, Error> {
    let method = method.map(|(inv, ld)| (Batch::Single(inv), ld));
    let (a, b) = (Batch::Single(a), BatchMut::Single(b));
    solve(
        h,
        "trsm_ex",
        (side, uplo, op, diag),
        (m, n),
        alpha,
        a,
        lda,
        b,
        ldb,
        method,
    )
}

/// `trsm_ex` of each entry of lists of matrices.
#[allow(clippy::too_many_arguments)]
pub fn trsm_ex_batched<'a, T: Scalar>(
    h: &mut Handle,
    side: Side,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    m: usize,
    n: usize,
    alpha: Coef<'a, T>,
    a: &'a [&'a DeviceBuffer<T>],
    lda: usize,
    b: &mut [&mut DeviceBuffer<T>],
    ldb: usize,
    method: TrsmMethod<InvList<'a, T>>,
) -> Result<Status, Error> {
    let method = method.map(|(inv, ld)| (Batch::list(inv), ld));
    let (a, b) = (Batch::list(a), BatchMut::List(b));
    let name = "trsm_ex_batched";
    solve(
        h,
        name,
        (side, uplo, op, diag),
        (m, n),
        alpha,
        a,
        lda,
        b,
        ldb,
        method,
    )
}

/// `trsm_ex` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn trsm_ex_strided_batched<'a, T: Scalar>(
    h: &mut Handle,
    side: Side,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    m: usize,
    n: usize,
    alpha: Coef<'a, T>,
    a: &'a DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    b: &mut DeviceBuffer<T>,
    ldb: usize,
    stride_b: usize,
    batch: usize,
    method: TrsmMethod<InvStrided<'a, T>>,
) -> Result<Status, Error> {
    let method = method.map(|(inv, ld, st)| (strided(inv, st, batch), ld));
    let a = strided(a, stride_a, batch);
    let b = BatchMut::Strided {
        buf: b,
        stride: stride_b,
        count: batch,
    };
    let name = "trsm_ex_strided_batched";
    solve(
        h,
        name,
        (side, uplo, op, diag),
        (m, n),
        alpha,
        a,
        lda,
        b,
        ldb,
        method,
    )
}

/// The inverse of the triangular `n × n` matrix `A`, out of place (`?trtri`): the `uplo`
/// triangle of `inv_a` gets the inverse (ones on the diagonal for `Diag::Unit`, whose
/// diagonal of `A` is not read) and its other strict triangle zeros, so `inv_a` is the whole
/// inverse as a full matrix. Only `A`'s `uplo` triangle is read.
///
/// Blocked: diagonal 32 × 32 blocks inverted by a kernel, then level by level each
/// off-diagonal block as two matrix products with a chunk of it in the workspace. A zero on
/// the diagonal of a non-unit `A` gives IEEE infinities or NaNs, never an error.
#[allow(clippy::too_many_arguments)]
pub fn trtri<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    diag: Diag,
    n: usize,
    a: &DeviceBuffer<T>,
    lda: usize,
    inv_a: &mut DeviceBuffer<T>,
    ldinv: usize,
) -> Result<Status, Error> {
    let (a, c) = (Batch::Single(a), BatchMut::Single(inv_a));
    inverse(h, "trtri", uplo, diag, n, a, lda, c, ldinv)
}

/// `trtri` of each entry of lists of matrices.
#[allow(clippy::too_many_arguments)]
pub fn trtri_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    diag: Diag,
    n: usize,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    inv_a: &mut [&mut DeviceBuffer<T>],
    ldinv: usize,
) -> Result<Status, Error> {
    let (a, c) = (Batch::list(a), BatchMut::List(inv_a));
    inverse(h, "trtri_batched", uplo, diag, n, a, lda, c, ldinv)
}

/// `trtri` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn trtri_strided_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    diag: Diag,
    n: usize,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    inv_a: &mut DeviceBuffer<T>,
    ldinv: usize,
    stride_inv: usize,
    batch: usize,
) -> Result<Status, Error> {
    let a = strided(a, stride_a, batch);
    let c = BatchMut::Strided {
        buf: inv_a,
        stride: stride_inv,
        count: batch,
    };
    inverse(h, "trtri_strided_batched", uplo, diag, n, a, lda, c, ldinv)
}

#[allow(clippy::too_many_arguments)]
fn inverse<'a, 'b, T: Scalar>(
    h: &mut Handle,
    name: &'static str,
    uplo: Uplo,
    diag: Diag,
    n: usize,
    a: Batch<'a, T>,
    lda: usize,
    c: BatchMut<'a, 'b, T>,
    ldinv: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(name, Kind::Trtri, a, lda, c, ldinv);
    call.tri(Side::Left, uplo, Op::N, diag).dims(n, n, 0);
    run(h, call)
}
