//! Distributed `gemm` by SUMMA: for each tile column `k` of A (tile row `k` of B), the grid
//! column that holds it broadcasts A's panel along each grid row and the grid row that holds
//! B's broadcasts it down each grid column; every device then updates its whole local C with
//! one product.

use super::{
    broadcast, front_buffer, hold_fronts, release_fronts, worst, DeviceGroup, DistMatrix, Held,
};
use crate::device::DeviceBuffer;
use crate::{blas3, Error, Op, Scalar, Status};

/// `C ← alpha A B + beta C` for distributed `m × k` A, `k × n` B and `m × n` C on the group's
/// grid with one tile size. `beta = 0` ignores C's contents (NaN included), as BLAS.
///
/// Per device, the workspace of its handle holds A's panel (its local rows × the tile size)
/// and B's (the tile size × its local columns) plus what its local product needs (a size
/// query on the group answers that per device). `Unsupported` for transposed operands (not
/// yet distributed); `InvalidSize`/`InvalidValue` for operands whose shapes, tiles or grids
/// disagree.
///
/// ```
/// use gpublas::multi::{self, DeviceGroup, DistMatrix};
/// use gpublas::{Device, Op};
/// let devices: Vec<Device> = (0..2).map(|_| Device::host()).collect();
/// let mut g = DeviceGroup::new(&devices)?;
/// // A 3 x 2 times 2 x 2, tiles of 1.
/// let a = DistMatrix::from_host(&mut g, 3, 2, 1, &[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], 3)?;
/// let b = DistMatrix::from_host(&mut g, 2, 2, 1, &[1.0f64, 0.0, 0.0, 2.0], 2)?;
/// let mut c = DistMatrix::zeros(&g, 3, 2, 1)?;
/// multi::gemm(&mut g, Op::N, Op::N, 1.0, &a, &b, 0.0, &mut c)?;
/// assert_eq!(c.to_host(&mut g)?, vec![1.0, 2.0, 3.0, 8.0, 10.0, 12.0]);
/// # Ok::<(), gpublas::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn gemm<T: Scalar>(
    group: &mut DeviceGroup,
    opa: Op,
    opb: Op,
    alpha: T,
    a: &DistMatrix<T>,
    b: &DistMatrix<T>,
    beta: T,
    c: &mut DistMatrix<T>,
) -> Result<Status, Error> {
    if opa != Op::N || opb != Op::N {
        return Err(Error::Unsupported(format!(
            "distributed gemm with ({opa:?}, {opb:?}): only (N, N) is distributed so far"
        )));
    }
    let (la, lb, lc) = (*a.layout(), *b.layout(), *c.layout());
    for (what, l) in [("A", &la), ("B", &lb), ("C", &lc)] {
        group.check_layout(what, l)?;
    }
    if la.m != lc.m || lb.n != lc.n || la.n != lb.m {
        return Err(Error::InvalidSize(format!(
            "gemm of a {} x {} A, a {} x {} B and a {} x {} C",
            la.m, la.n, lb.m, lb.n, lc.m, lc.n
        )));
    }
    if la.nb != lc.nb || lb.nb != lc.nb {
        return Err(Error::InvalidValue(format!(
            "gemm's operands have tiles of {}, {} and {}; they must be one size",
            la.nb, lb.nb, lc.nb
        )));
    }
    let grid = group.grid();
    let nb = lc.nb;
    let shape = |r: usize| lc.local_shape(r);
    // Panels: A's (local rows × nb, ld local rows), then B's (nb × local columns, ld nb).
    let a_len = |r: usize| shape(r).0 * nb;
    let b_len = |r: usize| nb * shape(r).1;
    let size = std::mem::size_of::<T>();
    let front: Vec<usize> = (0..group.len())
        .map(|r| (a_len(r) + b_len(r)) * size)
        .collect();
    let k_first = nb.min(la.n);
    let local_calls = |r: usize, h: &mut crate::Handle| -> Result<(), Error> {
        let (rows, cols) = shape(r);
        blas3::gemm(
            h,
            Op::N,
            Op::N,
            rows,
            cols,
            k_first,
            alpha.into(),
            &DeviceBuffer::placeholder(a_len(r)),
            rows.max(1),
            &DeviceBuffer::placeholder(b_len(r)),
            nb,
            beta.into(),
            &mut DeviceBuffer::placeholder(rows * cols),
            rows.max(1),
        )
        .map(|_| ())
    };
    let fronts = match hold_fronts(group, &front, &local_calls)? {
        Held::Query(status) => return Ok(status),
        Held::Fronts(f) => f,
    };
    let mut run = || -> Result<Status, Error> {
        let mut a_panels = Vec::with_capacity(group.len());
        let mut b_panels = Vec::with_capacity(group.len());
        for (r, &addr) in fronts.iter().enumerate() {
            a_panels.push(front_buffer::<T>(group, r, addr, 0, a_len(r))?);
            b_panels.push(front_buffer::<T>(group, r, addr, a_len(r), b_len(r))?);
        }
        let mut status = Status::Success;
        let kt = la.tile_cols();
        if kt == 0 {
            // k = 0: C ← beta C, one local call each.
            for r in 0..group.len() {
                let (rows, cols) = shape(r);
                let st = blas3::gemm(
                    &mut group.handles[r],
                    Op::N,
                    Op::N,
                    rows,
                    cols,
                    0,
                    alpha.into(),
                    &a_panels[r],
                    rows.max(1),
                    &b_panels[r],
                    nb,
                    beta.into(),
                    &mut c.locals_mut()[r],
                    rows.max(1),
                )?;
                status = worst(status, st);
            }
            return Ok(status);
        }
        for k in 0..kt {
            let w = la.tile_width(k);
            let (kr, kc) = (k % grid.rows, k % grid.cols);
            // A's tile column k along each grid row, B's tile row k down each grid column.
            for pr in 0..grid.rows {
                let root = grid.device_at(pr, kc);
                let rows = la.local_rows_of_row(pr);
                let src_at = la.local_col_of_tile(k, kc) * la.local_ld(root);
                broadcast(
                    group,
                    (rows, w),
                    root,
                    a.local(root),
                    (src_at, la.local_ld(root)),
                    &mut a_panels,
                    |r| (grid.coords(r).0 == pr).then_some((0, rows.max(1))),
                )?;
            }
            for pc in 0..grid.cols {
                let root = grid.device_at(kr, pc);
                let cols = lb.local_cols_of_col(pc);
                let src_at = lb.local_row_of_tile(k, kr);
                broadcast(
                    group,
                    (w, cols),
                    root,
                    b.local(root),
                    (src_at, lb.local_ld(root)),
                    &mut b_panels,
                    |r| (grid.coords(r).1 == pc).then_some((0, nb)),
                )?;
            }
            let step_beta = if k == 0 { beta } else { T::one() };
            for r in 0..group.len() {
                let (rows, cols) = shape(r);
                if rows == 0 || cols == 0 {
                    continue;
                }
                let st = blas3::gemm(
                    &mut group.handles[r],
                    Op::N,
                    Op::N,
                    rows,
                    cols,
                    w,
                    alpha.into(),
                    &a_panels[r],
                    rows,
                    &b_panels[r],
                    nb,
                    step_beta.into(),
                    &mut c.locals_mut()[r],
                    rows,
                )?;
                status = worst(status, st);
            }
        }
        Ok(status)
    };
    let result = run();
    release_fronts(group);
    result
}
