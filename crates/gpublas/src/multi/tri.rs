//! Triangular solves with a distributed factor by tile rows (potrs's and getrs's sweeps):
//! for each diagonal tile in turn, its grid row solves B's tile row with it, the solved row
//! travels down every grid column, the factor's tiles that multiply it travel along grid rows,
//! and every device updates its own rows of B with one product.

use super::{
    block, broadcast, front_buffer, hold_fronts, release_fronts, spread_along_rows, worst,
    DeviceGroup, DistMatrix, Held, Layout,
};
use crate::device::DeviceBuffer;
use crate::{blas3, Diag, Error, Op, Scalar, Side, Status, Uplo};

/// One sweep over the tile rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sweep {
    /// `L Y = B`, downwards (L's tile columns below the diagonal update the rows below).
    Lower(Diag),
    /// `Lᵀ X = Y`, upwards (L's tile rows left of the diagonal, transposed, update the rows
    /// above).
    LowerTransposed,
    /// `U X = Y`, upwards (U's tile columns above the diagonal update the rows above).
    Upper,
    /// `Uᵀ Y = B`, downwards (U's tile rows right of the diagonal, transposed, update the
    /// rows below).
    UpperTransposed,
}

/// Row interchanges to apply to B's rows before the sweeps (getrs): `(first row, second
/// row)` pairs in order, global 0-based rows.
pub(super) type Swaps<'a> = Option<&'a [(usize, usize)]>;

/// Holds the fronts, runs the row interchanges and the sweeps, releases the fronts.
pub(super) fn solve_with_factor<T: Scalar>(
    group: &mut DeviceGroup,
    routine: &str,
    a: &DistMatrix<T>,
    b: &mut DistMatrix<T>,
    sweeps: &[Sweep],
    swaps: Swaps<'_>,
) -> Result<Status, Error> {
    let (la, lb) = (*a.layout(), *b.layout());
    group.check_layout("A", &la)?;
    group.check_layout("B", &lb)?;
    if la.m != la.n || lb.m != la.n {
        return Err(Error::InvalidSize(format!(
            "{routine} of a {} x {} A and a {} x {} B",
            la.m, la.n, lb.m, lb.n
        )));
    }
    if la.nb != lb.nb {
        return Err(Error::InvalidValue(format!(
            "{routine}'s A has tiles of {}, B of {}; they must be one size",
            la.nb, lb.nb
        )));
    }
    if la.n == 0 || lb.n == 0 {
        return group.quick_return();
    }
    let nb = la.nb;
    let rows_of = |r: usize| la.local_shape(r).0;
    let rhs_of = |r: usize| lb.local_shape(r).1;
    // Diagonal tile, factor panel (ld local rows), B's tile row (ld nb), L's tile row (ld nb),
    // one row of B for the interchanges.
    let parts = |r: usize| {
        [
            nb * nb,
            rows_of(r) * nb,
            nb * rhs_of(r),
            nb * rows_of(r),
            if swaps.is_some() { rhs_of(r) } else { 0 },
        ]
    };
    let size = std::mem::size_of::<T>();
    let front: Vec<usize> = (0..group.len())
        .map(|r| parts(r).iter().sum::<usize>() * size)
        .collect();
    let mut run = |group: &mut DeviceGroup, fronts: &[u64]| -> Result<Status, Error> {
        let mut bufs = Buffers::default();
        for (r, &addr) in fronts.iter().enumerate() {
            let [d, p, br, lr, sw] = parts(r);
            bufs.diag.push(front_buffer::<T>(group, r, addr, 0, d)?);
            bufs.panel.push(front_buffer::<T>(group, r, addr, d, p)?);
            bufs.b_row
                .push(front_buffer::<T>(group, r, addr, d + p, br)?);
            bufs.l_row
                .push(front_buffer::<T>(group, r, addr, d + p + br, lr)?);
            bufs.swap
                .push(front_buffer::<T>(group, r, addr, d + p + br + lr, sw)?);
        }
        if let Some(swaps) = swaps {
            let all_cols = |pc: usize| vec![(0, lb.local_cols_of_col(pc))];
            for &(r1, r2) in swaps {
                super::swap_rows(group, b, (r1, r2), &all_cols, &mut bufs.swap)?;
            }
        }
        let mut status = Status::Success;
        for &sweep in sweeps {
            status = worst(status, run_sweep(group, &la, a, b, &mut bufs, sweep)?);
        }
        Ok(status)
    };
    let fronts = match hold_fronts(group, &front, |g, f| run(g, f).map(|_| ()))? {
        Held::Query(status) => return Ok(status),
        Held::Fronts(f) => f,
    };
    let result = run(group, &fronts);
    release_fronts(group);
    result
}

impl Sweep {
    /// The triangle, operation and diagonal of the diagonal tiles' solves.
    fn triangle(self) -> (Uplo, Op, Diag) {
        match self {
            Sweep::Lower(d) => (Uplo::Lower, Op::N, d),
            Sweep::LowerTransposed => (Uplo::Lower, Op::T, Diag::NonUnit),
            Sweep::Upper => (Uplo::Upper, Op::N, Diag::NonUnit),
            Sweep::UpperTransposed => (Uplo::Upper, Op::T, Diag::NonUnit),
        }
    }

    fn downwards(self) -> bool {
        matches!(self, Sweep::Lower(_) | Sweep::UpperTransposed)
    }

    /// Whether the factor's tiles that update B come from tile row k (transposed).
    fn by_rows(self) -> bool {
        matches!(self, Sweep::LowerTransposed | Sweep::UpperTransposed)
    }
}

/// The held pieces of every device.
struct Buffers<T> {
    diag: Vec<DeviceBuffer<T>>,
    panel: Vec<DeviceBuffer<T>>,
    b_row: Vec<DeviceBuffer<T>>,
    l_row: Vec<DeviceBuffer<T>>,
    swap: Vec<DeviceBuffer<T>>,
}

impl<T> Default for Buffers<T> {
    fn default() -> Self {
        Buffers {
            diag: Vec::new(),
            panel: Vec::new(),
            b_row: Vec::new(),
            l_row: Vec::new(),
            swap: Vec::new(),
        }
    }
}

/// One sweep over the tile rows.
fn run_sweep<T: Scalar>(
    group: &mut DeviceGroup,
    l: &Layout,
    a: &DistMatrix<T>,
    b: &mut DistMatrix<T>,
    bufs: &mut Buffers<T>,
    sweep: Sweep,
) -> Result<Status, Error> {
    let (grid, nb) = (l.grid, l.nb);
    let lb = *b.layout();
    let lld = |r: usize| l.local_ld(r);
    let bld = |r: usize| lb.local_ld(r);
    let (uplo, op, diag) = sweep.triangle();
    let nt = l.tile_cols();
    let order: Vec<usize> = if sweep.downwards() {
        (0..nt).collect()
    } else {
        (0..nt).rev().collect()
    };
    let mut status = Status::Success;
    for k in order {
        let w = l.tile_width(k);
        let (kr, kc) = (k % grid.rows, k % grid.cols);
        let owner = grid.device_at(kr, kc);
        let krow = l.local_row_of_tile(k, kr);
        let kcol = l.local_col_of_tile(k, kc);
        // B's tile row k, on grid row kr, solved with the diagonal tile.
        broadcast(
            group,
            (w, w),
            owner,
            a.local(owner),
            (krow + kcol * lld(owner), lld(owner)),
            &mut bufs.diag,
            |r| (grid.coords(r).0 == kr).then_some((0, w)),
        )?;
        for pc in 0..grid.cols {
            let r = grid.device_at(kr, pc);
            let rhs = lb.local_shape(r).1;
            if rhs == 0 {
                continue;
            }
            let mut bk = block(b.local(r), krow, (w, rhs), bld(r))?;
            let st = blas3::trsm(
                &mut group.handles[r],
                Side::Left,
                uplo,
                op,
                diag,
                w,
                rhs,
                T::one().into(),
                &bufs.diag[r],
                w,
                &mut bk,
                bld(r),
            )?;
            status = worst(status, st);
        }
        // The solved tile row down every grid column.
        for pc in 0..grid.cols {
            let root = grid.device_at(kr, pc);
            broadcast(
                group,
                (w, lb.local_cols_of_col(pc)),
                root,
                b.local(root),
                (krow, bld(root)),
                &mut bufs.b_row,
                |r| (grid.coords(r).1 == pc).then_some((0, nb)),
            )?;
        }
        // The factor's tiles that multiply it, to the grid rows whose B rows they update: the
        // tile column below (Lower) or above (Upper) the diagonal as it is, or L's tile row
        // left of the diagonal as columns of a transposed panel.
        if sweep.by_rows() {
            let others = if sweep.downwards() { k + 1..nt } else { 0..k };
            for i in others {
                let (ir, ic) = (i % grid.rows, i % grid.cols);
                let root = grid.device_at(kr, ic);
                let src_at = krow + l.local_col_of_tile(i, ic) * lld(root);
                let dst_at = l.local_row_of_tile(i, ir) * nb;
                broadcast(
                    group,
                    (w, l.tile_width(i)),
                    root,
                    a.local(root),
                    (src_at, lld(root)),
                    &mut bufs.l_row,
                    |r| (grid.coords(r).0 == ir).then_some((dst_at, nb)),
                )?;
            }
        } else {
            let rows = |pr: usize| update_rows(l, sweep, k, pr);
            spread_along_rows(group, l, (k, w), &rows, a, &mut bufs.panel)?;
        }
        for r in 0..group.len() {
            let pr = grid.coords(r).0;
            let rows_here = l.local_rows_of_row(pr);
            let rhs = lb.local_shape(r).1;
            let (r0, r1) = update_rows(l, sweep, k, pr);
            if r1 == r0 || rhs == 0 {
                continue;
            }
            let (factor, ld) = if sweep.by_rows() {
                (block(&bufs.l_row[r], r0 * nb, (w, r1 - r0), nb)?, nb)
            } else {
                (
                    block(&bufs.panel[r], r0, (r1 - r0, w), rows_here)?,
                    rows_here,
                )
            };
            let mut target = block(b.local(r), r0, (r1 - r0, rhs), bld(r))?;
            let st = blas3::gemm(
                &mut group.handles[r],
                op,
                Op::N,
                r1 - r0,
                rhs,
                w,
                (-T::one()).into(),
                &factor,
                ld,
                &bufs.b_row[r],
                nb,
                T::one().into(),
                &mut target,
                bld(r),
            )?;
            status = worst(status, st);
        }
    }
    Ok(status)
}

/// The local rows (of grid row `pr`) that tile row `k`'s solve updates: those below it for a
/// downward sweep, those above it otherwise.
fn update_rows(l: &Layout, sweep: Sweep, k: usize, pr: usize) -> (usize, usize) {
    if sweep.downwards() {
        (l.local_row_of_tile(k + 1, pr), l.local_rows_of_row(pr))
    } else {
        (0, l.local_row_of_tile(k, pr))
    }
}
