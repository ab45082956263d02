//! The host backend's whole algorithms on faer (triangular solves, Cholesky, the LU's solves
//! and products), where the GPU's block programs (thousands of small steps tuned for kernels)
//! would be slow on a CPU. Operands are gpublas's column-major slices viewed in place.

use faer::linalg::cholesky::llt::factor::{
    cholesky_in_place, cholesky_in_place_scratch, LltParams,
};
use faer::linalg::triangular_solve as ts;
use faer::reborrow::{Reborrow, ReborrowMut};
use faer::{MatMut, MatRef};

use super::host::{current_par, with_faer_type, PAR_MIN_FLOPS};
use crate::{Diag, Error, Op, Scalar, Side, Uplo};

/// The error of a cast between gpublas's element type and faer's (the same layout by tag, so
/// it cannot fail; an error rather than a panic all the same).
pub(crate) fn cast_err(e: bytemuck::PodCastError) -> Error {
    Error::InvalidValue(format!("host faer call: element type cast failed: {e}"))
}

/// faer's parallelism for a call of `flops` multiply-adds: the current host setting from
/// `PAR_MIN_FLOPS` up, one thread below.
pub(crate) fn par_for(flops: usize) -> faer::Par {
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
    // faer writes the triangle it factors, except that its leaf kernel (a diagonal block of
    // order at most CHOL_LEAF) also writes that block's other strict triangle: only entries
    // within CHOL_LEAF - 1 of the diagonal, which are kept here and put back (at most
    // n · CHOL_LEAF elements, against n³/3 operations; no copy of the whole triangle).
    let other = |r: usize, c: usize| match uplo {
        Uplo::Lower => r + c * lda,
        Uplo::Upper => c + r * lda,
    };
    // Small orders (batches of them) keep theirs on the stack.
    let kept: smallvec::SmallVec<[T; 64]> = leaf_band(n).map(|(r, c)| a[other(r, c)]).collect();
    let threads = current_par();
    let par = par_for(n * n * n / 3);
    let info = threads.install(|| with_faer_type!(T, potrf_typed, uplo, n, &mut *a, lda, par));
    for ((r, c), v) in leaf_band(n).zip(kept) {
        a[other(r, c)] = v;
    }
    let info = info?;
    // The factor's diagonal is real (faer's updates can leave a rounding residue in the
    // imaginary parts of complex diagonals); LAPACK stores it real.
    let done = if info == 0 { n } else { info as usize - 1 };
    for j in 0..done {
        let d = &mut a[j + j * lda];
        *d = T::from_real(d.re());
    }
    Ok(info)
}

/// The largest diagonal block faer's Cholesky factors with its leaf kernel (its
/// `recursion_threshold`, set to this value in [`potrf_typed`]; faer's default is the same).
const CHOL_LEAF: usize = 64;

/// The (row, column) pairs `r < c` of a triangle of order `n` within `CHOL_LEAF - 1` of the
/// diagonal, column by column: where faer's leaf kernel can write above the diagonal.
fn leaf_band(n: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..n).flat_map(|c| (c.saturating_sub(CHOL_LEAF - 1)..c).map(move |r| (r, c)))
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
    let mut params: faer::Spec<LltParams, F> = Default::default();
    params.recursion_threshold = CHOL_LEAF;
    let mut mem =
        faer::dyn_stack::MemBuffer::try_new(cholesky_in_place_scratch::<F>(n, par, params))
            .map_err(|_| Error::MemoryError {
                needed: n * std::mem::size_of::<F>(),
                available: 0,
                detail: "the host Cholesky's scratch column could not be allocated".into(),
            })?;
    let stack = faer::dyn_stack::MemStack::new(&mut mem);
    match cholesky_in_place(view, Default::default(), par, stack, params) {
        Ok(_) => Ok(0),
        Err(faer::linalg::cholesky::llt::factor::LltError::NonPositivePivot { index }) => {
            Ok(i32::try_from(index + 1).unwrap_or(i32::MAX))
        }
    }
}

/// Columns per panel of the host LU: the panel is factored by [`panel`], the rest of the
/// matrix by one triangular solve and one product per panel.
const LU_NB: usize = 64;

/// LU with partial pivoting of the `m × n` matrix at `lda`, in place, with the program's rules:
/// the pivot is the first largest `|re| + |im|` of its column (never NaN); a zero pivot is not
/// divided by, sets `info` once and leaves its column as it is. Writes `min(m, n)` 1-based
/// pivots to `ipiv`; returns `info`.
pub(crate) fn getrf<T: Scalar>(
    m: usize,
    n: usize,
    a: &mut [T],
    lda: usize,
    ipiv: &mut [i32],
) -> Result<i32, Error> {
    let k = m.min(n);
    let mut info = 0i32;
    let threads = current_par();
    for j0 in (0..k).step_by(LU_NB) {
        let jb = LU_NB.min(k - j0);
        panel::<T>(&threads, a, m, lda, j0, jb, ipiv, &mut info)?;
        // The panel's interchanges on the columns left and right of it, in order: column by
        // column (each column's swaps stay in its cache lines), the columns over the threads.
        swap_columns(&threads, a, lda, n, j0, &ipiv[j0..j0 + jb], (j0, j0 + jb));
        if j0 + jb < n {
            let rest = n - j0 - jb;
            let par = par_for(2 * (m - j0) * jb * rest);
            threads.install(|| with_faer_type!(T, lu_update, &mut *a, m, n, lda, j0, jb, par))?;
        }
    }
    Ok(info)
}

/// Columns per leaf of the host LU's recursive panel, factored column by column.
const LU_LEAF: usize = 16;

/// LU of columns `j0..j0 + jb` over rows `j0..m`, recursively (as LAPACK's `getrf2`): the left
/// half, its interchanges on the right half, `U12 = L11⁻¹ A12`, `A22 -= L21 U12` (faer, over
/// the threads), the right half, its interchanges on the left half. Leaves of [`LU_LEAF`]
/// columns run column by column on one thread, so most of the panel's work is products.
#[allow(clippy::too_many_arguments)]
fn panel<T: Scalar>(
    threads: &super::host::Par,
    a: &mut [T],
    m: usize,
    lda: usize,
    j0: usize,
    jb: usize,
    ipiv: &mut [i32],
    info: &mut i32,
) -> Result<(), Error> {
    if jb <= LU_LEAF {
        pulp::Arch::new().dispatch(Panel {
            a: &mut *a,
            lda,
            m,
            j0,
            jb,
            ipiv: &mut *ipiv,
            info,
        });
        return Ok(());
    }
    let n1 = jb / 2;
    let n2 = jb - n1;
    panel::<T>(threads, a, m, lda, j0, n1, ipiv, info)?;
    let single = super::host::Par::single();
    swap_columns(
        &single,
        a,
        lda,
        j0 + jb,
        j0,
        &ipiv[j0..j0 + n1],
        (0, j0 + n1),
    );
    let par = par_for(2 * (m - j0) * n1 * n2);
    // The view ends at the panel's last column: only the right half is updated.
    threads.install(|| with_faer_type!(T, lu_update, &mut *a, m, j0 + jb, lda, j0, n1, par))?;
    panel::<T>(threads, a, m, lda, j0 + n1, n2, ipiv, info)?;
    let right = &ipiv[j0 + n1..j0 + jb];
    swap_columns(&single, a, lda, j0 + n1, j0 + n1, right, (0, j0));
    Ok(())
}

/// Applies the interchanges `piv` (1-based rows, of pivot rows `k0..k0 + piv.len()`) in order
/// to every column of `0..n` outside `skip`, column by column, the columns over the threads.
#[allow(clippy::too_many_arguments)]
fn swap_columns<T: Scalar>(
    threads: &super::host::Par,
    a: &mut [T],
    lda: usize,
    n: usize,
    k0: usize,
    piv: &[i32],
    skip: (usize, usize),
) {
    let moves: Vec<(usize, usize)> = piv
        .iter()
        .enumerate()
        .map(|(i, &p)| (k0 + i, p as usize - 1))
        .filter(|&(r, p)| r != p)
        .collect();
    if moves.is_empty() || n == 0 {
        return;
    }
    const COLS: usize = 16;
    let end = (lda * n).min(a.len());
    let groups: Vec<(usize, &mut [T])> = a[..end].chunks_mut(lda * COLS).enumerate().collect();
    threads.map_items(groups, |(g, chunk)| {
        for (c, col) in chunk.chunks_mut(lda).enumerate() {
            let j = g * COLS + c;
            if j >= skip.0 && j < skip.1 {
                continue;
            }
            for &(r, p) in &moves {
                col.swap(r, p);
            }
        }
    });
}

/// `U12 = L11⁻¹ A12` and `A22 -= L21 U12` for the factored columns `j0..j0 + jb` and every
/// column right of them in the `m × n` view.
#[allow(clippy::too_many_arguments)]
fn lu_update<F: faer::traits::ComplexField + bytemuck::Pod>(
    a: &mut [impl bytemuck::Pod],
    m: usize,
    n: usize,
    lda: usize,
    j0: usize,
    jb: usize,
    par: faer::Par,
) -> Result<(), Error> {
    let a: &mut [F] = bytemuck::try_cast_slice_mut(a).map_err(cast_err)?;
    let whole = MatMut::from_column_major_slice_with_stride_mut(a, m, n, lda);
    let (left, right) = whole.split_at_col_mut(j0 + jb);
    let panel = left.rb().subcols(j0, jb);
    let l11 = panel.subrows(j0, jb);
    let l21 = panel.subrows(j0 + jb, m - j0 - jb);
    let (top, a22) = right.split_at_row_mut(j0 + jb);
    let mut u12 = top.subrows_mut(j0, jb);
    ts::solve_unit_lower_triangular_in_place(l11, u12.rb_mut(), par);
    faer::linalg::matmul::matmul(
        a22,
        faer::Accum::Add,
        l21,
        u12.rb(),
        F::from_f64_impl(-1.0),
        par,
    );
    Ok(())
}

/// One panel of the host LU (a pulp operation: its loops are compiled for the CPU's vector
/// unit).
struct Panel<'a, T> {
    a: &'a mut [T],
    lda: usize,
    m: usize,
    j0: usize,
    jb: usize,
    ipiv: &'a mut [i32],
    info: &'a mut i32,
}

impl<T: Scalar> pulp::WithSimd for Panel<'_, T> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        let Panel {
            a,
            lda,
            m,
            j0,
            jb,
            ipiv,
            info,
        } = self;
        for j in j0..j0 + jb {
            let col = j * lda;
            let mut p = j;
            let mut best = -1.0f64;
            for r in j..m {
                let v = a[col + r].mag();
                if v > best {
                    best = v;
                    p = r;
                }
            }
            ipiv[j] = i32::try_from(p + 1).unwrap_or(i32::MAX);
            let d = a[col + p];
            if d == T::zero() {
                if *info == 0 {
                    *info = i32::try_from(j + 1).unwrap_or(i32::MAX);
                }
                continue;
            }
            if p != j {
                for k in j0..j0 + jb {
                    a.swap(j + k * lda, p + k * lda);
                }
            }
            let dv = d.divisor();
            for x in &mut a[col + j + 1..col + m] {
                *x = x.div_by(dv);
            }
            for k in j + 1..j0 + jb {
                let (lo, hi) = a.split_at_mut(k * lda);
                let l = &lo[col + j + 1..col + m];
                let u = hi[j];
                for (x, &lv) in hi[j + 1..m].iter_mut().zip(l) {
                    *x = *x - lv * u;
                }
            }
        }
    }
}
