//! Distributed Cholesky (`potrf`) and its solve (`potrs`), right-looking by tiles: the
//! diagonal tile's owner factors it, its grid column (lower; grid row for upper) solves the
//! tiles below (right of) it, the panel travels whole along the grid rows (columns) that hold
//! it and tile by tile to the others, and every device updates its own tiles of the trailing
//! triangle with one product per local tile column.

use super::tri::{self, Sweep};
use super::{
    block, broadcast, front_buffer, hold_fronts, release_fronts, spread_along_rows, worst,
    DeviceGroup, DistMatrix, Held, Layout,
};
use crate::{blas3, solver, Diag, Error, Op, RealScalar, Results, Side, Status, Uplo};

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

/// Cholesky factorization `A = L Lᵀ` (`Uplo::Lower`) or `A = Uᵀ U` (`Uplo::Upper`) of a
/// distributed symmetric positive definite `n × n` matrix, from and into that triangle (the
/// other is neither read nor written), as LAPACK's `potrf`.
///
/// Per device, its handle's workspace holds the diagonal tile, the panel's rows (its local
/// rows × the tile size) and columns (its local columns × the tile size), plus what its local
/// calls need (a size query on the group answers per device). `InvalidSize` for a matrix that
/// is not square.
pub fn potrf<T: RealScalar>(
    group: &mut DeviceGroup,
    uplo: Uplo,
    a: &mut DistMatrix<T>,
) -> Result<Factored, Error> {
    let l = *a.layout();
    group.check_layout("A", &l)?;
    if l.m != l.n {
        return Err(Error::InvalidSize(format!(
            "potrf of a {} x {} matrix",
            l.m, l.n
        )));
    }
    if l.n == 0 {
        let status = group.quick_return()?;
        return Ok(Factored { status, info: 0 });
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
    let measure = |g: &mut DeviceGroup, f: &[u64]| factor(g, uplo, &l, a, f, &parts).map(|_| ());
    let fronts = match hold_fronts(group, &front, measure)? {
        Held::Query(status) => return Ok(Factored { status, info: 0 }),
        Held::Fronts(f) => f,
    };
    let result = factor(group, uplo, &l, a, &fronts, &parts);
    release_fronts(group);
    result
}

/// The factorization's steps, on the held fronts. Lower: the tile column below the diagonal
/// is solved by the diagonal's grid column and reaches the update as rows (along grid rows,
/// whole) and as columns (tile by tile); upper: the tile row right of the diagonal is solved by
/// the diagonal's grid row and reaches the update as columns (down grid columns, whole) and as
/// rows (tile by tile), transposed.
fn factor<T: RealScalar>(
    group: &mut DeviceGroup,
    uplo: Uplo,
    l: &Layout,
    a: &mut DistMatrix<T>,
    fronts: &[u64],
    parts: &dyn Fn(usize) -> [usize; 3],
) -> Result<Factored, Error> {
    let (grid, nb) = (l.grid, l.nb);
    let lower = uplo == Uplo::Lower;
    let mut diag = Vec::new();
    let mut rows_panel = Vec::new();
    let mut cols_panel = Vec::new();
    for (r, &addr) in fronts.iter().enumerate() {
        let [d, pr, pc] = parts(r);
        diag.push(front_buffer::<T>(group, r, addr, 0, d)?);
        rows_panel.push(front_buffer::<T>(group, r, addr, d, pr)?);
        cols_panel.push(front_buffer::<T>(group, r, addr, d + pr, pc)?);
    }
    let lld = |r: usize| l.local_ld(r);
    let mut status = Status::Success;
    let nt = l.tile_cols();
    for k in 0..nt {
        let w = l.tile_width(k);
        let (kr, kc) = (k % grid.rows, k % grid.cols);
        let owner = grid.device_at(kr, kc);
        let krow = l.local_row_of_tile(k, kr);
        let kcol = l.local_col_of_tile(k, kc);
        // 1. The diagonal tile, on its owner.
        let at = krow + kcol * lld(owner);
        let mut info = [0i32];
        let mut tile = block(a.local(owner), at, (w, w), lld(owner))?;
        let st = solver::potrf(
            &mut group.handles[owner],
            uplo,
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
        // 2. The diagonal tile to the grid column (lower) or row (upper) that solves the
        //    tiles below (right of) it.
        let solvers = |r: usize| {
            let (pr, pc) = grid.coords(r);
            if lower {
                pc == kc
            } else {
                pr == kr
            }
        };
        broadcast(
            group,
            (w, w),
            owner,
            a.local(owner),
            (at, lld(owner)),
            &mut diag,
            |r| solvers(r).then_some((0, w)),
        )?;
        for r in (0..group.len()).filter(|&r| solvers(r)) {
            let (pr, pc) = grid.coords(r);
            let (at, shape, side) = if lower {
                let r0 = l.local_row_of_tile(k + 1, pr);
                (
                    r0 + kcol * lld(r),
                    (l.local_rows_of_row(pr) - r0, w),
                    Side::Right,
                )
            } else {
                let c0 = l.local_col_of_tile(k + 1, pc);
                (
                    krow + c0 * lld(r),
                    (w, l.local_cols_of_col(pc) - c0),
                    Side::Left,
                )
            };
            if shape.0 == 0 || shape.1 == 0 {
                continue;
            }
            let mut solved = block(a.local(r), at, shape, lld(r))?;
            let st = blas3::trsm(
                &mut group.handles[r],
                side,
                uplo,
                Op::T,
                Diag::NonUnit,
                shape.0,
                shape.1,
                T::one().into(),
                &diag[r],
                w,
                &mut solved,
                lld(r),
            )?;
            status = worst(status, st);
        }
        // 3. The solved panel to every device: whole along the grid rows (lower) or columns
        //    (upper) of its owners, and tile by tile to the others.
        if lower {
            let below = |pr: usize| (l.local_row_of_tile(k + 1, pr), l.local_rows_of_row(pr));
            spread_along_rows(group, l, (k, w), &below, a, &mut rows_panel)?;
        } else {
            for pc in 0..grid.cols {
                let root = grid.device_at(kr, pc);
                let c0 = l.local_col_of_tile(k + 1, pc);
                broadcast(
                    group,
                    (w, l.local_cols_of_col(pc) - c0),
                    root,
                    a.local(root),
                    (krow + c0 * lld(root), lld(root)),
                    &mut cols_panel,
                    |r| (grid.coords(r).1 == pc).then_some((c0 * nb, nb)),
                )?;
            }
        }
        for j in k + 1..nt {
            let (jr, jc) = (j % grid.rows, j % grid.cols);
            if lower {
                // L(j, k) to the grid column of tile column j, as rows of its columns.
                let root = grid.device_at(jr, kc);
                let ld = l.local_cols_of_col(jc).max(1);
                broadcast(
                    group,
                    (l.tile_height(j), w),
                    root,
                    a.local(root),
                    (l.local_row_of_tile(j, jr) + kcol * lld(root), lld(root)),
                    &mut cols_panel,
                    |r| (grid.coords(r).1 == jc).then_some((l.local_col_of_tile(j, jc), ld)),
                )?;
            } else {
                // U(k, j) to the grid row of tile row j, as columns of its rows.
                let root = grid.device_at(kr, jc);
                let dst_at = l.local_row_of_tile(j, jr) * nb;
                broadcast(
                    group,
                    (w, l.tile_width(j)),
                    root,
                    a.local(root),
                    (krow + l.local_col_of_tile(j, jc) * lld(root), lld(root)),
                    &mut rows_panel,
                    |r| (grid.coords(r).0 == jr).then_some((dst_at, nb)),
                )?;
            }
        }
        // 4. Each device's tiles of the trailing triangle: per local tile column, the diagonal
        //    tile by a rank-w update and the tiles below (above) it by one product.
        for r in 0..group.len() {
            let (pr, pc) = grid.coords(r);
            let (rows_here, cols_here) = l.local_shape(r);
            for j in (k + 1..nt).filter(|j| j % grid.cols == pc) {
                let wj = l.tile_width(j);
                let cj = l.local_col_of_tile(j, pc);
                let rj = l.local_row_of_tile(j, pr);
                let has_diag = j % grid.rows == pr;
                if has_diag {
                    let mut c = block(a.local(r), rj + cj * lld(r), (wj, wj), lld(r))?;
                    let (panel, op, ld) = if lower {
                        (
                            block(&rows_panel[r], rj, (wj, w), rows_here)?,
                            Op::N,
                            rows_here,
                        )
                    } else {
                        (block(&cols_panel[r], cj * nb, (w, wj), nb)?, Op::T, nb)
                    };
                    let st = blas3::syrk(
                        &mut group.handles[r],
                        uplo,
                        op,
                        wj,
                        w,
                        (-T::one()).into(),
                        &panel,
                        ld,
                        T::one().into(),
                        &mut c,
                        lld(r),
                    )?;
                    status = worst(status, st);
                }
                let (r0, r1) = if lower {
                    (rj + if has_diag { wj } else { 0 }, rows_here)
                } else {
                    (l.local_row_of_tile(k + 1, pr), rj)
                };
                if r1 <= r0 {
                    continue;
                }
                let rows = r1 - r0;
                let mut c = block(a.local(r), r0 + cj * lld(r), (rows, wj), lld(r))?;
                let st = if lower {
                    blas3::gemm(
                        &mut group.handles[r],
                        Op::N,
                        Op::T,
                        rows,
                        wj,
                        w,
                        (-T::one()).into(),
                        &block(&rows_panel[r], r0, (rows, w), rows_here)?,
                        rows_here,
                        &block(&cols_panel[r], cj, (wj, w), cols_here)?,
                        cols_here,
                        T::one().into(),
                        &mut c,
                        lld(r),
                    )?
                } else {
                    blas3::gemm(
                        &mut group.handles[r],
                        Op::T,
                        Op::N,
                        rows,
                        wj,
                        w,
                        (-T::one()).into(),
                        &block(&rows_panel[r], r0 * nb, (w, rows), nb)?,
                        nb,
                        &block(&cols_panel[r], cj * nb, (w, wj), nb)?,
                        nb,
                        T::one().into(),
                        &mut c,
                        lld(r),
                    )?
                };
                status = worst(status, st);
            }
        }
    }
    Ok(Factored { status, info: 0 })
}

/// Solves `A X = B` with the distributed Cholesky factor of [`potrf`] (`A = L Lᵀ` or `Uᵀ U`,
/// as `uplo` says) for a distributed `n × nrhs` B (same tile size and grid), overwriting B
/// with X.
///
/// Per device, its handle's workspace holds the diagonal tile, the factor's panel (its local
/// rows × the tile size), one tile row of B (the tile size × its local columns) and one of L
/// (the tile size × its local rows), plus what its local calls need.
/// `InvalidSize`/`InvalidValue` for shapes or tiles that disagree.
pub fn potrs<T: RealScalar>(
    group: &mut DeviceGroup,
    uplo: Uplo,
    a: &DistMatrix<T>,
    b: &mut DistMatrix<T>,
) -> Result<Status, Error> {
    let sweeps = match uplo {
        Uplo::Lower => [Sweep::Lower(Diag::NonUnit), Sweep::LowerTransposed],
        Uplo::Upper => [Sweep::UpperTransposed, Sweep::Upper],
    };
    tri::solve_with_factor(group, "potrs", a, b, &sweeps, None)
}
