//! The host backend's calls into faer for whole algorithms (triangular solves, Cholesky),
//! where the GPU's block programs (thousands of small steps tuned for kernels) would be slow
//! on a CPU. Operands are gpublas's column-major slices viewed in place, never copied.

use faer::linalg::cholesky::llt::factor::{cholesky_in_place, cholesky_in_place_scratch};
use faer::linalg::triangular_solve as ts;
use faer::{MatMut, MatRef};

use super::host::{current_par, with_faer_type, PAR_MIN_FLOPS};
use crate::{Diag, Error, Op, Scalar, Side, Uplo};

fn cast_err(e: bytemuck::PodCastError) -> Error {
    Error::InvalidValue(format!("host faer call: element type cast failed: {e}"))
}

fn par_for(flops: usize) -> faer::Par {
    if flops >= PAR_MIN_FLOPS {
        current_par().faer()
    } else {
        faer::Par::Seq
    }
}

/// `B = alpha op(A)⁻¹ B` (`Side::Left`) or `alpha B op(A)⁻¹` (`Side::Right`) for an `m × n` `B`
/// at `ldb`, `A` triangular at `lda` (only its `uplo` triangle read, not its diagonal when
/// `Diag::Unit`); `alpha == 0` sets `B` to zero without reading `A`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn trsm<T: Scalar>(
    side: Side,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    m: usize,
    n: usize,
    alpha: T,
    a: &[T],
    lda: usize,
    b: &mut [T],
    ldb: usize,
) -> Result<(), Error> {
    if m == 0 || n == 0 {
        return Ok(());
    }
    for j in 0..n {
        for x in &mut b[j * ldb..j * ldb + m] {
            *x = if alpha == T::zero() {
                T::zero()
            } else if alpha == T::one() {
                *x
            } else {
                alpha * *x
            };
        }
    }
    if alpha == T::zero() {
        return Ok(());
    }
    let ka = if side == Side::Left { m } else { n };
    let flops = ka * ka * if side == Side::Left { n } else { m };
    let threads = current_par();
    let par = par_for(flops);
    threads.install(move || {
        with_faer_type!(T, trsm_typed, side, uplo, op, diag, m, n, ka, a, lda, b, ldb, par)
    })
}

#[allow(clippy::too_many_arguments)]
fn trsm_typed<F: faer::traits::ComplexField + bytemuck::Pod>(
    side: Side,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    m: usize,
    n: usize,
    ka: usize,
    a: &[impl bytemuck::Pod],
    lda: usize,
    b: &mut [impl bytemuck::Pod],
    ldb: usize,
    par: faer::Par,
) -> Result<(), Error> {
    let a: &[F] = bytemuck::try_cast_slice(a).map_err(cast_err)?;
    let b: &mut [F] = bytemuck::try_cast_slice_mut(b).map_err(cast_err)?;
    let am = MatRef::from_column_major_slice_with_stride(a, ka, ka, lda);
    let bm = MatMut::from_column_major_slice_with_stride_mut(b, m, n, ldb);
    // Left: op(A) X = B. Right: X op(A) = B, that is op(A)ᵀ Xᵀ = Bᵀ. The triangle solved is A
    // or Aᵀ, conjugated for op C; transposing swaps lower and upper.
    let (transposed, rhs) = match side {
        Side::Left => (op != Op::N, bm),
        Side::Right => (op == Op::N, bm.transpose_mut()),
    };
    let tri = if transposed { am.transpose() } else { am };
    let lower = (uplo == Uplo::Lower) != transposed;
    let unit = diag == Diag::Unit;
    if op == Op::C {
        solve(tri.conjugate(), lower, unit, rhs, par);
    } else {
        solve(tri, lower, unit, rhs, par);
    }
    Ok(())
}

fn solve<F: faer::traits::ComplexField, L: faer::traits::Conjugate<Canonical = F>>(
    tri: MatRef<'_, L>,
    lower: bool,
    unit: bool,
    rhs: MatMut<'_, F>,
    par: faer::Par,
) {
    match (lower, unit) {
        (true, false) => ts::solve_lower_triangular_in_place(tri, rhs, par),
        (true, true) => ts::solve_unit_lower_triangular_in_place(tri, rhs, par),
        (false, false) => ts::solve_upper_triangular_in_place(tri, rhs, par),
        (false, true) => ts::solve_unit_upper_triangular_in_place(tri, rhs, par),
    }
}

/// Cholesky of the order-`n` Hermitian matrix at `lda` whose `uplo` triangle is stored, in
/// place (only that triangle is read or written). Returns `info`: 0, or the order of the
/// first leading minor that is not positive definite (NaN counts as not positive).
pub(crate) fn potrf<T: Scalar>(
    uplo: Uplo,
    n: usize,
    a: &mut [T],
    lda: usize,
) -> Result<i32, Error> {
    if n == 0 {
        return Ok(0);
    }
    let threads = current_par();
    let par = par_for(n * n * n / 3);
    let info = threads.install(|| with_faer_type!(T, potrf_typed, uplo, n, &mut *a, lda, par))?;
    // The factor's diagonal is real (faer's updates can leave a rounding residue in the
    // imaginary parts of complex diagonals); LAPACK stores it real.
    let done = if info == 0 { n } else { info as usize - 1 };
    for j in 0..done {
        let d = &mut a[j + j * lda];
        *d = T::from_real(d.re());
    }
    Ok(info)
}

fn potrf_typed<F: faer::traits::ComplexField + bytemuck::Pod>(
    uplo: Uplo,
    n: usize,
    a: &mut [impl bytemuck::Pod],
    lda: usize,
    par: faer::Par,
) -> Result<i32, Error> {
    let a: &mut [F] = bytemuck::try_cast_slice_mut(a).map_err(cast_err)?;
    let am = MatMut::from_column_major_slice_with_stride_mut(a, n, n, lda);
    // faer factors the lower triangle; the upper one is the lower triangle of Aᵀ, whose
    // factor Mᵀ is the U of A = Uᴴ U.
    let view = if uplo == Uplo::Lower {
        am
    } else {
        am.transpose_mut()
    };
    let mut mem = faer::dyn_stack::MemBuffer::try_new(cholesky_in_place_scratch::<F>(
        n,
        par,
        Default::default(),
    ))
    .map_err(|_| Error::MemoryError {
        needed: n * std::mem::size_of::<F>(),
        available: 0,
        detail: "the host Cholesky's scratch column could not be allocated".into(),
    })?;
    let stack = faer::dyn_stack::MemStack::new(&mut mem);
    match cholesky_in_place(view, Default::default(), par, stack, Default::default()) {
        Ok(_) => Ok(0),
        Err(faer::linalg::cholesky::llt::factor::LltError::NonPositivePivot { index }) => {
            Ok(i32::try_from(index + 1).unwrap_or(i32::MAX))
        }
    }
}
