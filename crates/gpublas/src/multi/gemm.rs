//! Distributed `gemm` by SUMMA: for each tile column `k` of A (tile row `k` of B), the grid
//! column that holds it broadcasts A's panel along each grid row and the grid row that holds
//! B's broadcasts it down each grid column; every device then updates its whole local C with
//! one product.

use super::{
    broadcast, front_buffer, hold_fronts, release_fronts, spread_along_rows, worst, DeviceGroup,
    DistMatrix, Held, Layout,
};
use crate::device::DeviceBuffer;
use crate::{blas3, Error, Op, Scalar, Status};

/// `C ← alpha op(A) op(B) + beta C` for distributed `m × k` op(A), `k × n` op(B) and `m × n`
/// C on the group's grid with one tile size (`op`: as is, transposed, conjugate-transposed). `beta = 0` ignores C's contents (NaN included), as BLAS.
///
/// Per device, the workspace of its handle holds A's panel (its local rows × the tile size)
/// and B's (the tile size × its local columns) plus what its local product needs (a size
/// query on the group answers that per device). `InvalidSize`/`InvalidValue` for operands
/// whose shapes, tiles or grids disagree.
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
    let (la, lb, lc) = (*a.layout(), *b.layout(), *c.layout());
    for (what, l) in [("A", &la), ("B", &lb), ("C", &lc)] {
        group.check_layout(what, l)?;
    }
    // op(A) is m × k, op(B) k × n.
    let (am, ak) = if opa == Op::N {
        (la.m, la.n)
    } else {
        (la.n, la.m)
    };
    let (bk, bn) = if opb == Op::N {
        (lb.m, lb.n)
    } else {
        (lb.n, lb.m)
    };
    if am != lc.m || bn != lc.n || ak != bk {
        return Err(Error::InvalidSize(format!(
            "gemm ({opa:?}, {opb:?}) of a {} x {} A, a {} x {} B and a {} x {} C",
            la.m, la.n, lb.m, lb.n, lc.m, lc.n
        )));
    }
    if la.nb != lc.nb || lb.nb != lc.nb {
        return Err(Error::InvalidValue(format!(
            "gemm's operands have tiles of {}, {} and {}; they must be one size",
            la.nb, lb.nb, lc.nb
        )));
    }
    let nb = lc.nb;
    let shape = |r: usize| lc.local_shape(r);
    // Panels: op(A)'s (local rows × nb, ld local rows; transposed: nb × local rows, ld nb),
    // then op(B)'s (nb × local columns, ld nb; transposed: local columns × nb, ld local
    // columns).
    let a_len = |r: usize| shape(r).0 * nb;
    let b_len = |r: usize| nb * shape(r).1;
    let a_ld = |r: usize| if opa == Op::N { shape(r).0.max(1) } else { nb };
    let b_ld = |r: usize| if opb == Op::N { nb } else { shape(r).1.max(1) };
    let size = std::mem::size_of::<T>();
    let front: Vec<usize> = (0..group.len())
        .map(|r| (a_len(r) + b_len(r)) * size)
        .collect();
    let mut steps = |group: &mut DeviceGroup, fronts: &[u64]| -> Result<Status, Error> {
        let mut a_panels = Vec::with_capacity(group.len());
        let mut b_panels = Vec::with_capacity(group.len());
        for (r, &addr) in fronts.iter().enumerate() {
            a_panels.push(front_buffer::<T>(group, r, addr, 0, a_len(r))?);
            b_panels.push(front_buffer::<T>(group, r, addr, a_len(r), b_len(r))?);
        }
        let mut status = Status::Success;
        let kt = ak.div_ceil(nb);
        // k = 0 still runs one step: C ← beta C.
        for k in 0..kt.max(1) {
            let w = if kt == 0 { 0 } else { nb.min(ak - k * nb) };
            if w > 0 {
                send_a_panel(group, opa, (&la, &lc), k, w, a, &mut a_panels)?;
                send_b_panel(group, opb, (&lb, &lc), k, w, b, &mut b_panels)?;
            }
            let step_beta = if k == 0 { beta } else { T::one() };
            for r in 0..group.len() {
                let (rows, cols) = shape(r);
                if rows == 0 || cols == 0 {
                    continue;
                }
                let st = blas3::gemm(
                    &mut group.handles[r],
                    opa,
                    opb,
                    rows,
                    cols,
                    w,
                    alpha.into(),
                    &a_panels[r],
                    a_ld(r),
                    &b_panels[r],
                    b_ld(r),
                    step_beta.into(),
                    &mut c.locals_mut()[r],
                    rows,
                )?;
                status = worst(status, st);
            }
        }
        Ok(status)
    };
    let fronts = match hold_fronts(group, &front, |g, f| steps(g, f).map(|_| ()))? {
        Held::Query(status) => return Ok(status),
        Held::Fronts(f) => f,
    };
    let result = steps(group, &fronts);
    release_fronts(group);
    result
}

/// op(A)'s tile column `k` to every device, as the rows its C rows need: A's tile column `k`
/// whole along each grid row, or (transposed) A's tile row `k` tile by tile, each tile to the
/// grid row of C's matching rows.
fn send_a_panel<T: Scalar>(
    group: &DeviceGroup,
    opa: Op,
    (la, lc): (&Layout, &Layout),
    k: usize,
    w: usize,
    a: &DistMatrix<T>,
    panels: &mut [DeviceBuffer<T>],
) -> Result<(), Error> {
    let grid = la.grid;
    let kr = k % grid.rows;
    if opa == Op::N {
        let all = |pr: usize| (0, la.local_rows_of_row(pr));
        spread_along_rows(group, la, (k, w), &all, a, panels)?;
        return Ok(());
    }
    for i in 0..la.tile_cols() {
        let (ir, ic) = (i % grid.rows, i % grid.cols);
        let root = grid.device_at(kr, ic);
        let src_at = la.local_row_of_tile(k, kr) + la.local_col_of_tile(i, ic) * la.local_ld(root);
        // C's tile row i is on grid row i mod p, at the local row tile i has there.
        let dst_at = lc.local_row_of_tile(i, ir) * la.nb;
        broadcast(
            group,
            (w, la.tile_width(i)),
            root,
            a.local(root),
            (src_at, la.local_ld(root)),
            panels,
            |r| (grid.coords(r).0 == ir).then_some((dst_at, la.nb)),
        )?;
    }
    Ok(())
}

/// op(B)'s tile row `k` to every device, as the columns its C columns need: B's tile row `k`
/// whole down each grid column, or (transposed) B's tile column `k` tile by tile, each tile to
/// the grid column of C's matching columns.
fn send_b_panel<T: Scalar>(
    group: &DeviceGroup,
    opb: Op,
    (lb, lc): (&Layout, &Layout),
    k: usize,
    w: usize,
    b: &DistMatrix<T>,
    panels: &mut [DeviceBuffer<T>],
) -> Result<(), Error> {
    let grid = lb.grid;
    let (kr, kc) = (k % grid.rows, k % grid.cols);
    if opb == Op::N {
        for pc in 0..grid.cols {
            let root = grid.device_at(kr, pc);
            let cols = lb.local_cols_of_col(pc);
            broadcast(
                group,
                (w, cols),
                root,
                b.local(root),
                (lb.local_row_of_tile(k, kr), lb.local_ld(root)),
                panels,
                |r| (grid.coords(r).1 == pc).then_some((0, lb.nb)),
            )?;
        }
        return Ok(());
    }
    for j in 0..lb.tile_rows() {
        let (jr, jc) = (j % grid.rows, j % grid.cols);
        let root = grid.device_at(jr, kc);
        let src_at = lb.local_row_of_tile(j, jr) + lb.local_col_of_tile(k, kc) * lb.local_ld(root);
        // C's tile column j is on grid column j mod q, at the local column tile j has there.
        let dst_at = lc.local_col_of_tile(j, jc);
        let ld = lc.local_cols_of_col(jc).max(1);
        broadcast(
            group,
            (lb.tile_height(j), w),
            root,
            b.local(root),
            (src_at, lb.local_ld(root)),
            panels,
            |r| (grid.coords(r).1 == jc).then_some((dst_at, ld)),
        )?;
    }
    Ok(())
}
