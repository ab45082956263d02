//! The public eigensolvers: `syevd` (`heevd`) single, `_batched` and `_strided_batched`, and
//! `syevj_batched` (`heevj_batched`) and `syevj_strided_batched`, in rocSOLVER's argument
//! order (rocSOLVER's `E` workspace argument left out: the handle's workspace serves).

use super::{run, Call, JacobiArgs, Kind};
use crate::common::operand::{BatchMut, Results};
use crate::device::DeviceBuffer;
use crate::{Error, Esort, Evect, Handle, Scalar, Status, Uplo};

/// The eigenvalues and, with `Evect::Original`, the eigenvectors of a symmetric (Hermitian)
/// matrix of order `n` given by its `uplo` triangle (`?syevd`, `?heevd` for complex types:
/// [`heevd`] is the same function). The imaginary parts of a Hermitian matrix's diagonal are
/// not read (taken as zero), nor is the other triangle.
///
/// `W` receives the `n` eigenvalues in ascending order. With `Evect::Original` the orthonormal
/// eigenvectors overwrite `A` (column `j` belongs to `W[j]`); with `Evect::None` `A`'s contents
/// afterwards are unspecified, as LAPACK says (this version leaves `A` unchanged; later ones
/// may overwrite its `uplo` triangle).
///
/// `info` (one value): 0 on success; `n + 1` when the referenced triangle holds a NaN or an
/// infinity (then `W`, and `A` with `Evect::Original`, are NaN); another positive value when
/// the iteration did not converge.
///
/// Backends: the host runs faer's eigensolver. CUDA runs `n ≤ 64` by the Jacobi kernel of
/// [`syevj_batched`] (converged to full precision), larger orders by a two-stage reduction
/// (dense to band by blocked Householder products, band to tridiagonal by bulge chasing) with
/// bisection (values only) or divide and conquer (with vectors) for the tridiagonal, all on
/// the device; only `info` in host memory waits for the stream.
///
/// ```
/// use gpublas::{solver, Device, Evect, Handle, Results, Uplo};
/// let dev = Device::host();
/// let mut h = Handle::new(&dev)?;
/// // [[2, 1], [1, 2]]: eigenvalues 1 and 3.
/// let mut a = dev.upload(&[2.0f64, 1.0, 1.0, 2.0])?;
/// let mut w = dev.alloc::<f64>(2)?;
/// let mut info = [0i32];
/// let _ = solver::syevd(&mut h, Evect::Original, Uplo::Lower, 2, &mut a, 2, &mut w,
///                       Results::Host(&mut info))?;
/// let w = w.to_vec()?;
/// assert!((w[0] - 1.0).abs() < 1e-14 && (w[1] - 3.0).abs() < 1e-14 && info[0] == 0);
/// # Ok::<(), gpublas::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn syevd<T: Scalar>(
    h: &mut Handle,
    evect: Evect,
    uplo: Uplo,
    n: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    w: &mut DeviceBuffer<T::Real>,
    info: Results<'_, i32>,
) -> Result<Status, Error> {
    let c = syevd_call(
        "syevd",
        evect,
        uplo,
        n,
        BatchMut::Single(a),
        lda,
        (w, 0),
        info,
    );
    run(h, c)
}

/// `syevd` of each matrix of a list; the eigenvalues of entry `e` at `W[e * stride_w ..]`
/// (`stride_w ≥ n`), one `info` per entry.
#[allow(clippy::too_many_arguments)]
pub fn syevd_batched<T: Scalar>(
    h: &mut Handle,
    evect: Evect,
    uplo: Uplo,
    n: usize,
    a: &mut [&mut DeviceBuffer<T>],
    lda: usize,
    w: &mut DeviceBuffer<T::Real>,
    stride_w: usize,
    info: Results<'_, i32>,
) -> Result<Status, Error> {
    let a = BatchMut::List(a);
    let c = syevd_call("syevd_batched", evect, uplo, n, a, lda, (w, stride_w), info);
    run(h, c)
}

/// `syevd` of `batch` matrices `stride_a` elements apart in one buffer, their eigenvalues
/// `stride_w` apart.
#[allow(clippy::too_many_arguments)]
pub fn syevd_strided_batched<T: Scalar>(
    h: &mut Handle,
    evect: Evect,
    uplo: Uplo,
    n: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    w: &mut DeviceBuffer<T::Real>,
    stride_w: usize,
    info: Results<'_, i32>,
    batch: usize,
) -> Result<Status, Error> {
    let a = BatchMut::Strided {
        buf: a,
        stride: stride_a,
        count: batch,
    };
    let name = "syevd_strided_batched";
    let c = syevd_call(name, evect, uplo, n, a, lda, (w, stride_w), info);
    run(h, c)
}

#[allow(clippy::too_many_arguments)]
fn syevd_call<'a, 'b, T: Scalar>(
    name: &'static str,
    evect: Evect,
    uplo: Uplo,
    n: usize,
    a: BatchMut<'a, 'b, T>,
    lda: usize,
    (w, stride_w): (&'a mut DeviceBuffer<T::Real>, usize),
    info: Results<'a, i32>,
) -> Call<'a, 'b, T> {
    Call {
        name,
        kind: Kind::Syevd,
        evect,
        sort: Esort::Ascending,
        uplo,
        n,
        a,
        lda,
        w,
        stride_w,
        info,
        jacobi: None,
    }
}

/// The eigenvalues and, with `Evect::Original`, eigenvectors of each symmetric (Hermitian)
/// matrix of a list, of order `n ≤ 64`, by the cyclic Jacobi method (`?syevj_batched`,
/// `?heevj_batched` for complex types: [`heevj_batched`] is the same function), one thread
/// block per matrix on CUDA.
///
/// Per entry the iteration stops when `off(A) ≤ abstol · ‖A‖_F` (`off(A)` the Frobenius norm
/// of the off-diagonal part; `abstol ≤ 0` or NaN means the type's machine epsilon), when a
/// sweep finds nothing left to rotate (every off-diagonal entry below `ε·sqrt(|a_ii a_jj|)`),
/// or after `max_sweeps ≥ 1` sweeps. Per entry: `residual` = `off(A)` at the end (absolute),
/// `n_sweeps` = sweeps run, `info` = 0 converged, 1 not converged within `max_sweeps` (or a NaN
/// or infinity in the referenced triangle: then `W`, `A` with vectors and the residual are
/// NaN and `n_sweeps` is 0). `W` of entry `e` at `W[e * stride_w ..]` (`stride_w ≥ n`), in
/// ascending order with `Esort::Ascending` (eigenvectors permuted with them), else in the
/// final diagonal's order. With `Evect::None`, `A` is left unchanged. The imaginary parts of a
/// Hermitian matrix's diagonal and the other triangle are not read.
///
/// `n > 64` is `Error::InvalidSize` (use [`syevd_batched`]).
#[allow(clippy::too_many_arguments)]
pub fn syevj_batched<T: Scalar>(
    h: &mut Handle,
    esort: Esort,
    evect: Evect,
    uplo: Uplo,
    n: usize,
    a: &mut [&mut DeviceBuffer<T>],
    lda: usize,
    abstol: T::Real,
    residual: Results<'_, T::Real>,
    max_sweeps: usize,
    n_sweeps: Results<'_, i32>,
    w: &mut DeviceBuffer<T::Real>,
    stride_w: usize,
    info: Results<'_, i32>,
) -> Result<Status, Error> {
    let c = Call {
        name: "syevj_batched",
        kind: Kind::Syevj,
        evect,
        sort: esort,
        uplo,
        n,
        a: BatchMut::List(a),
        lda,
        w,
        stride_w,
        info,
        jacobi: Some(JacobiArgs {
            abstol,
            max_sweeps,
            residual,
            sweeps: n_sweeps,
        }),
    };
    run(h, c)
}

/// `syevj_batched` of `batch` matrices `stride_a` elements apart in one buffer
/// (`?syevj_strided_batched`, `?heevj_strided_batched`).
#[allow(clippy::too_many_arguments)]
pub fn syevj_strided_batched<T: Scalar>(
    h: &mut Handle,
    esort: Esort,
    evect: Evect,
    uplo: Uplo,
    n: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    abstol: T::Real,
    residual: Results<'_, T::Real>,
    max_sweeps: usize,
    n_sweeps: Results<'_, i32>,
    w: &mut DeviceBuffer<T::Real>,
    stride_w: usize,
    info: Results<'_, i32>,
    batch: usize,
) -> Result<Status, Error> {
    let c = Call {
        name: "syevj_strided_batched",
        kind: Kind::Syevj,
        evect,
        sort: esort,
        uplo,
        n,
        a: BatchMut::Strided {
            buf: a,
            stride: stride_a,
            count: batch,
        },
        lda,
        w,
        stride_w,
        info,
        jacobi: Some(JacobiArgs {
            abstol,
            max_sweeps,
            residual,
            sweeps: n_sweeps,
        }),
    };
    run(h, c)
}

pub use self::syevd as heevd;
pub use self::syevd_batched as heevd_batched;
pub use self::syevd_strided_batched as heevd_strided_batched;
pub use self::syevj_batched as heevj_batched;
pub use self::syevj_strided_batched as heevj_strided_batched;
