//! Distributed LU with partial pivoting (`getrf`) and its solve (`getrs`), right-looking by
//! tiles: the diagonal tile's owner gathers the tile column below it and factors it with the
//! one-device `getrf` (so pivots are LAPACK's), scatters it back, the interchanges reach every
//! other column, the grid row of the diagonal solves U's tile row, and every device updates
//! its own trailing tiles with one product (L's panel along grid rows, U's row down grid
//! columns).

use super::tri::{self, Sweep};
use super::{
    block, broadcast, front_buffer, hold_fronts, release_fronts, send, spread_along_rows,
    swap_rows, worst, DeviceGroup, DistMatrix, Factored, Held, Layout,
};
use crate::{blas3, solver, Diag, Error, Op, Results, Scalar, Side, Status, Uplo};

/// LU factorization with partial pivoting `A = P L U` of a distributed `m × n` matrix, in
/// place, as LAPACK's `getrf`: `ipiv[i]` (1-based, global) is the row interchanged with row
/// `i + 1`, for the first `min(m, n)` entries of `ipiv`; `info` is the first zero pivot (the
/// factorization goes on past it, as LAPACK's). The pivots are the one-device `getrf`'s on
/// each tile column, so the same as LAPACK's on inputs whose pivots are well separated.
///
/// Per device, its handle's workspace holds the tile column it gathers when it owns a
/// diagonal tile (rows from that tile down × the tile size), the diagonal tile, L's panel (its
/// local rows × the tile size), U's tile row (the tile size × its local columns) and one row
/// for the interchanges, plus what its local calls need. `InvalidSize` when `ipiv` is shorter
/// than `min(m, n)`.
pub fn getrf<T: Scalar>(
    group: &mut DeviceGroup,
    a: &mut DistMatrix<T>,
    ipiv: &mut [i32],
) -> Result<Factored, Error> {
    let l = *a.layout();
    group.check_layout("A", &l)?;
    let steps = l.m.min(l.n);
    if ipiv.len() < steps {
        return Err(Error::InvalidSize(format!(
            "getrf of a {} x {} matrix needs {steps} pivots, ipiv holds {}",
            l.m,
            l.n,
            ipiv.len()
        )));
    }
    if i32::try_from(l.m).is_err() {
        return Err(Error::InvalidSize(format!(
            "getrf's 32-bit pivots cannot name the {} rows",
            l.m
        )));
    }
    let nb = l.nb;
    let kt = l.tile_rows().min(l.tile_cols());
    // The tallest tile column a device gathers: from its first diagonal tile down.
    let gathered = |r: usize| {
        (0..kt)
            .find(|&k| l.owner(k, k) == r)
            .map_or(0, |k| (l.m - k * nb) * nb)
    };
    let (rows_of, cols_of) = (|r: usize| l.local_shape(r).0, |r: usize| l.local_shape(r).1);
    // Gathered column (ld its rows), diagonal tile, L's panel (ld local rows), U's row (ld nb),
    // one row of local columns.
    let parts = |r: usize| {
        [
            gathered(r),
            nb * nb,
            rows_of(r) * nb,
            nb * cols_of(r),
            cols_of(r),
        ]
    };
    let size = std::mem::size_of::<T>();
    let front: Vec<usize> = (0..group.len())
        .map(|r| parts(r).iter().sum::<usize>() * size)
        .collect();
    if steps == 0 {
        let status = group.quick_return()?;
        return Ok(Factored { status, info: 0 });
    }
    let measure = |g: &mut DeviceGroup, f: &[u64]| factor(g, &l, a, ipiv, f, &parts).map(|_| ());
    let fronts = match hold_fronts(group, &front, measure)? {
        Held::Query(status) => return Ok(Factored { status, info: 0 }),
        Held::Fronts(f) => f,
    };
    let result = factor(group, &l, a, ipiv, &fronts, &parts);
    release_fronts(group);
    result
}

/// The factorization's steps, on the held fronts.
fn factor<T: Scalar>(
    group: &mut DeviceGroup,
    l: &Layout,
    a: &mut DistMatrix<T>,
    ipiv: &mut [i32],
    fronts: &[u64],
    parts: &dyn Fn(usize) -> [usize; 5],
) -> Result<Factored, Error> {
    let (grid, nb) = (l.grid, l.nb);
    let mut column = Vec::new();
    let mut diag = Vec::new();
    let mut l_panel = Vec::new();
    let mut u_row = Vec::new();
    let mut swap = Vec::new();
    for (r, &addr) in fronts.iter().enumerate() {
        let [g, d, p, u, s] = parts(r);
        column.push(front_buffer::<T>(group, r, addr, 0, g)?);
        diag.push(front_buffer::<T>(group, r, addr, g, d)?);
        l_panel.push(front_buffer::<T>(group, r, addr, g + d, p)?);
        u_row.push(front_buffer::<T>(group, r, addr, g + d + p, u)?);
        swap.push(front_buffer::<T>(group, r, addr, g + d + p + u, s)?);
    }
    let lld = |r: usize| l.local_ld(r);
    let (mt, nt) = (l.tile_rows(), l.tile_cols());
    let mut status = Status::Success;
    let mut info = 0i32;
    for k in 0..mt.min(nt) {
        let w = l.tile_width(k);
        let pm = l.m - k * nb;
        let kp = pm.min(w);
        let (kr, kc) = (k % grid.rows, k % grid.cols);
        let owner = grid.device_at(kr, kc);
        let krow = l.local_row_of_tile(k, kr);
        let kcol = l.local_col_of_tile(k, kc);
        // 1. Tile column k from the diagonal down, gathered on the diagonal's owner, factored
        //    there, and dealt back.
        for i in k..mt {
            let ir = i % grid.rows;
            let from = grid.device_at(ir, kc);
            let at = l.local_row_of_tile(i, ir) + kcol * lld(from);
            send(
                group,
                (l.tile_height(i), w),
                (from, a.local(from), (at, lld(from))),
                (owner, &mut column[owner], ((i - k) * nb, pm)),
            )?;
        }
        let mut piv = vec![0i32; kp];
        let mut step_info = [0i32];
        let mut gathered = block(&column[owner], 0, (pm, w), pm)?;
        let st = solver::getrf(
            &mut group.handles[owner],
            pm,
            w,
            &mut gathered,
            pm,
            Results::Host(&mut piv),
            Results::Host(&mut step_info),
        )?;
        status = worst(status, st);
        if info == 0 && step_info[0] > 0 {
            info = (k * nb) as i32 + step_info[0];
        }
        for i in k..mt {
            let ir = i % grid.rows;
            let to = grid.device_at(ir, kc);
            let at = l.local_row_of_tile(i, ir) + kcol * lld(to);
            let all = a.local(to).len();
            let mut local = block(a.local(to), 0, (all, 1), all.max(1))?;
            send(
                group,
                (l.tile_height(i), w),
                (owner, &column[owner], ((i - k) * nb, pm)),
                (to, &mut local, (at, lld(to))),
            )?;
        }
        // 2. The interchanges in every other column.
        let other_cols = |pc: usize| {
            let cols = l.local_cols_of_col(pc);
            if pc == kc {
                vec![(0, kcol), (kcol + w, cols)]
            } else {
                vec![(0, cols)]
            }
        };
        // (While the steps are measured, nothing ran and there are no pivots.)
        for (t, &p) in piv.iter().enumerate().filter(|&(_, &p)| p > 0) {
            let (g1, g2) = (k * nb + t, k * nb + p as usize - 1);
            ipiv[g1] = g2 as i32 + 1;
            swap_rows(group, a, (g1, g2), &other_cols, &mut swap)?;
        }
        if k + 1 >= nt {
            continue;
        }
        // 3. U's tile row k: L_kk along grid row kr, which solves its columns to the right.
        broadcast(
            group,
            (kp, kp),
            owner,
            a.local(owner),
            (krow + kcol * lld(owner), lld(owner)),
            &mut diag,
            |r| (grid.coords(r).0 == kr).then_some((0, kp)),
        )?;
        for pc in 0..grid.cols {
            let r = grid.device_at(kr, pc);
            let c0 = l.local_col_of_tile(k + 1, pc);
            let cols = l.local_cols_of_col(pc) - c0;
            if cols == 0 {
                continue;
            }
            let mut row = block(a.local(r), krow + c0 * lld(r), (kp, cols), lld(r))?;
            let st = blas3::trsm(
                &mut group.handles[r],
                Side::Left,
                Uplo::Lower,
                Op::N,
                Diag::Unit,
                kp,
                cols,
                T::one().into(),
                &diag[r],
                kp,
                &mut row,
                lld(r),
            )?;
            status = worst(status, st);
        }
        if k + 1 >= mt {
            continue;
        }
        // 4. L's panel along grid rows, U's row down grid columns, one product per device.
        let below = |pr: usize| (l.local_row_of_tile(k + 1, pr), l.local_rows_of_row(pr));
        spread_along_rows(group, l, (k, kp), &below, a, &mut l_panel)?;
        for pc in 0..grid.cols {
            let root = grid.device_at(kr, pc);
            let c0 = l.local_col_of_tile(k + 1, pc);
            let cols = l.local_cols_of_col(pc) - c0;
            broadcast(
                group,
                (kp, cols),
                root,
                a.local(root),
                (krow + c0 * lld(root), lld(root)),
                &mut u_row,
                |r| (grid.coords(r).1 == pc).then_some((c0 * nb, nb)),
            )?;
        }
        for r in 0..group.len() {
            let (pr, pc) = grid.coords(r);
            let (rows_here, cols_here) = l.local_shape(r);
            let (r0, c0) = (
                l.local_row_of_tile(k + 1, pr),
                l.local_col_of_tile(k + 1, pc),
            );
            let (rows, cols) = (rows_here - r0, cols_here - c0);
            if rows == 0 || cols == 0 {
                continue;
            }
            let mut c = block(a.local(r), r0 + c0 * lld(r), (rows, cols), lld(r))?;
            let st = blas3::gemm(
                &mut group.handles[r],
                Op::N,
                Op::N,
                rows,
                cols,
                kp,
                (-T::one()).into(),
                &block(&l_panel[r], r0, (rows, kp), rows_here)?,
                rows_here,
                &block(&u_row[r], c0 * nb, (kp, cols), nb)?,
                nb,
                T::one().into(),
                &mut c,
                lld(r),
            )?;
            status = worst(status, st);
        }
    }
    Ok(Factored { status, info })
}

/// Solves `A X = B` with the distributed factors and pivots of [`getrf`] for a distributed
/// `n × nrhs` B (same tile size and grid), overwriting B with X: B's rows interchanged as
/// `ipiv` says, then `L Y = B` (unit diagonal) and `U X = Y` by tile rows.
///
/// Per device, its handle's workspace holds a diagonal tile, the factor's panel (its local
/// rows × the tile size), one tile row of B, one of L and one row of B for the interchanges,
/// plus what its local calls need. `Unsupported` for a transposed solve (not yet
/// distributed); `InvalidValue` for a pivot outside `1..=n`.
pub fn getrs<T: Scalar>(
    group: &mut DeviceGroup,
    op: Op,
    a: &DistMatrix<T>,
    ipiv: &[i32],
    b: &mut DistMatrix<T>,
) -> Result<Status, Error> {
    if op != Op::N {
        return Err(Error::Unsupported(format!(
            "distributed getrs with {op:?}: only Op::N is distributed so far"
        )));
    }
    let n = a.layout().n;
    if ipiv.len() < n {
        return Err(Error::InvalidSize(format!(
            "getrs of order {n} needs {n} pivots, ipiv holds {}",
            ipiv.len()
        )));
    }
    let mut swaps = Vec::with_capacity(n);
    for (i, &p) in ipiv[..n].iter().enumerate() {
        if p < 1 || p as usize > n {
            return Err(Error::InvalidValue(format!(
                "ipiv[{i}] = {p} is outside 1..={n}"
            )));
        }
        swaps.push((i, p as usize - 1));
    }
    let sweeps = [Sweep::Lower(Diag::Unit), Sweep::Upper];
    tri::solve_with_factor(group, "getrs", a, b, &sweeps, Some(&swaps))
}
