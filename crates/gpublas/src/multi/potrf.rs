//! Distributed Cholesky (`potrf`) and its solve (`potrs`), right-looking by tiles: the tile
//! column's owner factors the diagonal tile, its grid column solves the tiles below, the panel
//! travels along grid rows (as rows of the update) and, tile by tile, to the grid columns that
//! hold the matching columns of the trailing matrix, and every device updates its own tiles of
//! the lower triangle with one product per local tile column.

use super::tri::{self, Sweep};
use super::{
    block, broadcast, front_buffer, hold_fronts, release_fronts, worst, DeviceGroup, DistMatrix,
    Held, Layout,
};
use crate::device::DeviceBuffer;
use crate::{blas3, solver, Diag, Error, Handle, Op, RealScalar, Results, Side, Status, Uplo};

/// What a distributed factorization returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Factored {
    /// `Success`, `PerfDegraded` when a local call ran a reduced plan, or the size query's
    /// status.
    pub status: Status,
    /// LAPACK's `info`: 0, or the order of the first leading minor that is not positive
    /// definite (the factorization stopped there).
    pub info: i32,
}

/// `InvalidValue` for an upper triangle (only the lower one is distributed so far).
fn lower_only(routine: &str, uplo: Uplo) -> Result<(), Error> {
    if uplo != Uplo::Lower {
        return Err(Error::Unsupported(format!(
            "distributed {routine} with {uplo:?}: only the lower triangle is distributed so far"
        )));
    }
    Ok(())
}

/// Cholesky factorization `A = L Lᵀ` of a distributed symmetric positive definite `n × n`
/// matrix (its lower triangle; the upper one is not touched), in place, as LAPACK's `potrf`.
///
/// Per device, its handle's workspace holds the diagonal tile, the panel's rows (its local
/// rows × the tile size) and columns (its local columns × the tile size), plus what its local
/// calls need (a size query on the group answers per device). `Unsupported` for `Uplo::Upper`
/// (not yet distributed); `InvalidSize` for a matrix that is not square.
pub fn potrf<T: RealScalar>(
    group: &mut DeviceGroup,
    uplo: Uplo,
    a: &mut DistMatrix<T>,
) -> Result<Factored, Error> {
    lower_only("potrf", uplo)?;
    let l = *a.layout();
    group.check_layout("A", &l)?;
    if l.m != l.n {
        return Err(Error::InvalidSize(format!(
            "potrf of a {} x {} matrix",
            l.m, l.n
        )));
    }
    let nb = l.nb;
    let rows_of = |r: usize| l.local_shape(r).0;
    let cols_of = |r: usize| l.local_shape(r).1;
    // Diagonal tile (ld nb), panel rows (ld local rows), panel columns (ld local columns).
    let parts = |r: usize| [nb * nb, rows_of(r) * nb, cols_of(r) * nb];
    let size = std::mem::size_of::<T>();
    let front: Vec<usize> = (0..group.len())
        .map(|r| parts(r).iter().sum::<usize>() * size)
        .collect();
    let w0 = nb.min(l.n);
    let local_calls = |r: usize, h: &mut Handle| -> Result<(), Error> {
        let (rows, cols) = (rows_of(r).max(w0), cols_of(r).max(w0));
        let tile = || DeviceBuffer::<T>::placeholder(w0 * w0);
        let panel = || DeviceBuffer::<T>::placeholder(rows * w0);
        let _ = solver::potrf(h, Uplo::Lower, w0, &mut tile(), w0, Results::Host(&mut [0]))?;
        let _ = blas3::trsm(
            h,
            Side::Right,
            Uplo::Lower,
            Op::T,
            Diag::NonUnit,
            rows,
            w0,
            T::one().into(),
            &tile(),
            w0,
            &mut panel(),
            rows,
        )?;
        let _ = blas3::syrk(
            h,
            Uplo::Lower,
            Op::N,
            w0,
            w0,
            (-T::one()).into(),
            &panel(),
            rows,
            T::one().into(),
            &mut tile(),
            w0,
        )?;
        let _ = blas3::gemm(
            h,
            Op::N,
            Op::T,
            rows,
            w0,
            w0,
            (-T::one()).into(),
            &panel(),
            rows,
            &DeviceBuffer::placeholder(cols * w0),
            cols,
            T::one().into(),
            &mut panel(),
            rows,
        )?;
        Ok(())
    };
    let fronts = match hold_fronts(group, &front, &local_calls)? {
        Held::Query(status) => return Ok(Factored { status, info: 0 }),
        Held::Fronts(f) => f,
    };
    let result = factor(group, &l, a, &fronts, &parts);
    release_fronts(group);
    result
}

/// The factorization's steps, on the held fronts.
fn factor<T: RealScalar>(
    group: &mut DeviceGroup,
    l: &Layout,
    a: &mut DistMatrix<T>,
    fronts: &[u64],
    parts: &dyn Fn(usize) -> [usize; 3],
) -> Result<Factored, Error> {
    let (grid, nb) = (l.grid, l.nb);
    let mut diag = Vec::new();
    let mut rows_panel = Vec::new();
    let mut cols_panel = Vec::new();
    for (r, &addr) in fronts.iter().enumerate() {
        let [d, pr, pc] = parts(r);
        diag.push(front_buffer::<T>(group, r, addr, 0, d)?);
        rows_panel.push(front_buffer::<T>(group, r, addr, d, pr)?);
        cols_panel.push(front_buffer::<T>(group, r, addr, d + pr, pc)?);
    }
    let mut status = Status::Success;
    let nt = l.tile_cols();
    for k in 0..nt {
        let w = l.tile_width(k);
        let (kr, kc) = (k % grid.rows, k % grid.cols);
        let owner = grid.device_at(kr, kc);
        let lld = |r: usize| l.local_ld(r);
        let kcol = l.local_col_of_tile(k, kc);
        // 1. The diagonal tile, on its owner.
        let at = l.local_row_of_tile(k, kr) + kcol * lld(owner);
        let mut info = [0i32];
        let mut tile = block(a.local(owner), at, (w, w), lld(owner))?;
        let st = solver::potrf(
            &mut group.handles[owner],
            Uplo::Lower,
            w,
            &mut tile,
            lld(owner),
            Results::Host(&mut info),
        )?;
        status = worst(status, st);
        if info[0] != 0 {
            return Ok(Factored {
                status,
                info: (k * nb) as i32 + info[0],
            });
        }
        // 2. L_kk to the grid column, which solves the tiles below it.
        broadcast(
            group,
            (w, w),
            owner,
            a.local(owner),
            (at, lld(owner)),
            &mut diag,
            |r| (grid.coords(r).1 == kc).then_some((0, w)),
        )?;
        for pr in 0..grid.rows {
            let r = grid.device_at(pr, kc);
            let r0 = l.local_row_of_tile(k + 1, pr);
            let rows = l.local_rows_of_row(pr) - r0;
            if rows == 0 {
                continue;
            }
            let mut below = block(a.local(r), r0 + kcol * lld(r), (rows, w), lld(r))?;
            let st = blas3::trsm(
                &mut group.handles[r],
                Side::Right,
                Uplo::Lower,
                Op::T,
                Diag::NonUnit,
                rows,
                w,
                T::one().into(),
                &diag[r],
                w,
                &mut below,
                lld(r),
            )?;
            status = worst(status, st);
        }
        // 3. The panel along grid rows (rows of the update), and tile by tile to the grid
        //    columns holding the matching columns (columns of the update).
        for pr in 0..grid.rows {
            let root = grid.device_at(pr, kc);
            let rows_here = l.local_rows_of_row(pr);
            let r0 = l.local_row_of_tile(k + 1, pr);
            broadcast(
                group,
                (rows_here - r0, w),
                root,
                a.local(root),
                (r0 + kcol * lld(root), lld(root)),
                &mut rows_panel,
                |r| (grid.coords(r).0 == pr).then_some((r0, rows_here.max(1))),
            )?;
        }
        for j in k + 1..nt {
            let (jr, jc) = (j % grid.rows, j % grid.cols);
            let root = grid.device_at(jr, kc);
            let src_at = l.local_row_of_tile(j, jr) + kcol * lld(root);
            let dst_at = l.local_col_of_tile(j, jc);
            let ld = l.local_cols_of_col(jc).max(1);
            broadcast(
                group,
                (l.tile_height(j), w),
                root,
                a.local(root),
                (src_at, lld(root)),
                &mut cols_panel,
                |r| (grid.coords(r).1 == jc).then_some((dst_at, ld)),
            )?;
        }
        // 4. Each device's tiles of the trailing lower triangle: a product per tile column.
        for r in 0..group.len() {
            let (pr, pc) = grid.coords(r);
            let (rows_here, cols_here) = l.local_shape(r);
            for j in (k + 1..nt).filter(|j| j % grid.cols == pc) {
                let wj = l.tile_width(j);
                let cj = l.local_col_of_tile(j, pc);
                let mut rs = l.local_row_of_tile(j, pr);
                if j % grid.rows == pr {
                    let mut c = block(a.local(r), rs + cj * lld(r), (wj, wj), lld(r))?;
                    let panel = block(&rows_panel[r], rs, (wj, w), rows_here)?;
                    let st = blas3::syrk(
                        &mut group.handles[r],
                        Uplo::Lower,
                        Op::N,
                        wj,
                        w,
                        (-T::one()).into(),
                        &panel,
                        rows_here,
                        T::one().into(),
                        &mut c,
                        lld(r),
                    )?;
                    status = worst(status, st);
                    rs += wj;
                }
                let rows = rows_here - rs;
                if rows == 0 {
                    continue;
                }
                let mut c = block(a.local(r), rs + cj * lld(r), (rows, wj), lld(r))?;
                let panel = block(&rows_panel[r], rs, (rows, w), rows_here)?;
                let cols = block(&cols_panel[r], cj, (wj, w), cols_here)?;
                let st = blas3::gemm(
                    &mut group.handles[r],
                    Op::N,
                    Op::T,
                    rows,
                    wj,
                    w,
                    (-T::one()).into(),
                    &panel,
                    rows_here,
                    &cols,
                    cols_here,
                    T::one().into(),
                    &mut c,
                    lld(r),
                )?;
                status = worst(status, st);
            }
        }
    }
    Ok(Factored { status, info: 0 })
}

/// Solves `A X = B` with the distributed Cholesky factor of [`potrf`] (`A = L Lᵀ`, lower
/// triangle) for a distributed `n × nrhs` B (same tile size and grid), overwriting B with X.
///
/// Per device, its handle's workspace holds the diagonal tile, the factor's panel (its local
/// rows × the tile size), one tile row of B (the tile size × its local columns) and one of L
/// (the tile size × its local rows), plus what its local calls need. `Unsupported` for
/// `Uplo::Upper`; `InvalidSize`/`InvalidValue` for shapes or tiles that disagree.
pub fn potrs<T: RealScalar>(
    group: &mut DeviceGroup,
    uplo: Uplo,
    a: &DistMatrix<T>,
    b: &mut DistMatrix<T>,
) -> Result<Status, Error> {
    lower_only("potrs", uplo)?;
    let sweeps = [Sweep::Lower(Diag::NonUnit), Sweep::LowerTransposed];
    tri::solve_with_factor(group, "potrs", a, b, &sweeps, None)
}
