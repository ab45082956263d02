//! The CUDA backend of the solver's own steps (`kernels/solver.cu`, the Cholesky kernels in
//! `kernels/chol.cu`); the rest of its programs run on the executor's block steps.

use super::plan::{
    lu_regs_fit, lu_whole, lur128_kernel, CHOL_BLOCK_LEAF, PANEL, PANEL_SMEM, REGS_GRID, SWAP_CHUNK,
};
use super::program::{SolverStep as Step, TRI_PLACE};
use super::DevInts;
use crate::device::{param, Stream};
use crate::exec::cuda::Bases;
use crate::exec::program::M;
use crate::kernels::{CHOL, SOLVER};
use crate::{Error, Scalar};

/// Columns of `Y` a block of `sol_trmulp` takes (`TMP_COLS` in solver.cu).
const TRI_MUL_COLS: usize = 32;

/// Mirrors `Sol` in solver.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Sol {
    a: u64,
    ld: i64,
    es: i64,
    rows: i64,
    cols: i64,
    piv: u64,
    piv_s: i64,
    info: u64,
    info_s: i64,
    slots: u64,
    k0: i32,
    k1: i32,
    pivot: i32,
    reverse: i32,
    lower: i32,
    grid: i32,
    ne: i32,
    smem_rows: i32,
    aux: i32,
    pad: i32,
    /// getri's block of L (`trsolve`: the factor, in the matrix): its first element for
    /// entry e0, leading dimension, entry distance.
    w: u64,
    wld: i64,
    wes: i64,
    /// The Cholesky leaf's update square (0: none), as `w`. The register panel: `uld` / `ues`
    /// columns left / right of the leaf take its interchanges too.
    u: u64,
    uld: i64,
    ues: i64,
}

/// Launches one solver step on `s` for batch entries `e0 .. e0 + ne`, whose spaces start where
/// `bases` says (matrices in C, `c.1` elements apart), with pivots, info and scratch at `d`;
/// on the side lane (`side`) a panel takes at most `side_grid` blocks (and at most the plan's).
pub(crate) fn launch<T: Scalar>(
    s: &Stream,
    st: &Step,
    bases: &Bases,
    (e0, ne): (usize, usize),
    d: &DevInts,
    side: bool,
) -> Result<(), Error> {
    let c = bases.c;
    let grid_cap = |rows| {
        if side {
            d.params.side_grid_for(rows)
        } else {
            usize::MAX
        }
    };
    let elem = std::mem::size_of::<T>() as u64;
    let at = |x: M| c.0 + x.off as u64 * elem;
    let idx = |chunk: bool| if chunk { e0 - d.first } else { e0 } as u64;
    let mut j = Sol {
        es: c.1,
        ne: ne as i32,
        piv: if d.piv != 0 {
            d.piv + idx(d.piv_chunk) * d.piv_s as u64 * 4
        } else {
            0
        },
        piv_s: d.piv_s as i64,
        info: if d.info != 0 {
            d.info + idx(d.info_chunk) * d.info_s as u64 * 4
        } else {
            0
        },
        info_s: d.info_s as i64,
        ..Default::default()
    };
    let tag = T::TAG;
    match *st {
        Step::Init => {
            if d.grid > 1 && d.slots != 0 {
                // The panel kernel's exchange records (after each generation's rows).
                let gen = super::plan::slot_gen_bytes(d.grid, elem as usize) as u64;
                let rows = ((d.grid + 1) * PANEL) as u64 * elem;
                for g in 0..2 {
                    s.memset32(d.slots + g * gen + rows, 0, d.grid * 4)?;
                }
                // The register panel's records and chunks, all of them (each carries a tag).
                let regs = 2 * super::plan::regs_gen_bytes(d.grid, elem as usize);
                s.memset32(d.slots + 2 * gen, 0, regs / 4)?;
            }
            let mut prm = [param(&j)];
            s.launch(
                &SOLVER,
                "sol_init",
                (ne as u32).div_ceil(256).max(1),
                256,
                &mut prm,
            )
        }
        Step::Lu {
            rows,
            cols,
            a,
            k0,
            pivot,
            leaf,
            others,
        } => {
            j.a = at(a);
            j.ld = a.ld as i64;
            (j.rows, j.cols) = (rows as i64, cols as i64);
            j.k0 = k0 as i32;
            j.pivot = pivot as i32;
            let (left, right) = if pivot { others } else { (0, 0) };
            // Whether the kernel applied the interchanges to the other columns itself.
            let applied = 'kernel: {
                if rows <= 32 && cols <= 32 {
                    // One warp per panel, four panels per block.
                    let mut prm = [param(&j)];
                    s.launch(
                        &SOLVER,
                        &format!("sol_luw_{tag}"),
                        ne.div_ceil(4) as u32,
                        128,
                        &mut prm,
                    )?;
                    break 'kernel false;
                }
                if lu_whole(rows, cols, T::COMPLEX) {
                    // One block per matrix: two threads per row up to 64, four up to 128
                    // (`lu_small` keeps complex at 64).
                    let (order, threads, (kind, shared)) = if rows <= 64 && cols <= 64 {
                        (64, 128, ("", 0))
                    } else {
                        let kernel = lur128_kernel(elem as usize, T::COMPLEX, ne, d.sms);
                        (128, 512, kernel)
                    };
                    let mut prm = [param(&j)];
                    s.launch_with(
                        &SOLVER,
                        &format!("sol_lur{order}{kind}_{tag}"),
                        (ne as u32, 1, 1),
                        (threads, shared as u32),
                        false,
                        &mut prm,
                    )?;
                    break 'kernel false;
                }
                // Deeper leaves have fewer rows: fewer blocks (the slots hold `d.grid`).
                let cap = d.grid.min(grid_cap(rows));
                let (g, rpb) = if ne == 1 {
                    d.params.panel_split(rows, cap)
                } else {
                    (1, rows)
                };
                j.aux = leaf as i32;
                j.k1 = d.grid as i32;
                j.slots = d.slots;
                // The register panel polls at most `REGS_GRID` blocks.
                let (g_regs, rpb_regs) = d.params.panel_split(rows, cap.min(REGS_GRID));
                if let (1, Some((h, rr))) = (ne, lu_regs_fit(rpb_regs, cols, elem as usize)) {
                    j.grid = g_regs as i32;
                    (j.uld, j.ues) = (left as i64, right as i64);
                    // The block's rows in registers: one barrier fewer per column than below
                    // and no loops over shared memory (NOTES: issue 29).
                    let mut prm = [param(&j)];
                    s.launch_with(
                        &SOLVER,
                        &format!("sol_lu_regs{h}x{rr}_{tag}"),
                        (g_regs as u32, 1, 1),
                        (256, 0),
                        g_regs > 1,
                        &mut prm,
                    )?;
                    break 'kernel true;
                }
                j.grid = g as i32;
                let bytes = rpb * cols * elem as usize;
                let smem = if bytes <= PANEL_SMEM { bytes } else { 0 };
                j.smem_rows = if smem > 0 { rpb as i32 } else { 0 };
                let threads = (rpb.div_ceil(32) * 32).clamp(PANEL, 256) as u32;
                let mut prm = [param(&j)];
                s.launch_with(
                    &SOLVER,
                    &format!("sol_lu_{tag}"),
                    ((g * ne) as u32, 1, 1),
                    (threads, smem as u32),
                    g > 1,
                    &mut prm,
                )?;
                false
            };
            if !applied && left + right > 0 {
                // The recursion's interchange steps, on the panel's columns left and right.
                let row0 = a.off - k0;
                for (off, n) in [(row0 - left * a.ld, left), (row0 + cols * a.ld, right)] {
                    let swap = Step::Swap {
                        rows: k0 + rows,
                        cols: n,
                        a: M { off, ..a },
                        k0,
                        k1: k0 + rows.min(cols),
                        reverse: false,
                        list: 0,
                    };
                    launch::<T>(s, &swap, bases, (e0, ne), d, side)?;
                }
            }
            Ok(())
        }
        Step::Swap {
            rows,
            cols,
            a,
            k0,
            k1,
            reverse,
            list,
        } => {
            if cols == 0 || k1 <= k0 {
                return Ok(());
            }
            j.a = at(a);
            j.ld = a.ld as i64;
            (j.rows, j.cols) = (rows as i64, cols as i64);
            j.reverse = reverse as i32;
            if d.swap == 0 || list >= d.swap_lists {
                // No room for gather lists: one thread per column, interchanges in order.
                (j.k0, j.k1) = (k0 as i32, k1 as i32);
                let threads = (cols.div_ceil(32) * 32).min(128) as u32;
                let blocks = cols.div_ceil(threads as usize) * ne;
                let mut prm = [param(&j)];
                return s.launch(
                    &SOLVER,
                    &format!("sol_swap_{tag}"),
                    blocks as u32,
                    threads,
                    &mut prm,
                );
            }
            // Chunks of interchanges, each turned into a permutation (one block per entry)
            // and applied as a gather over every column at once.
            let own = list * d.swap_s * d.entries;
            j.slots = d.swap + (own + (e0 - d.first) * d.swap_s) as u64 * 4;
            j.aux = d.swap_s as i32;
            let chunks: Vec<(usize, usize)> = (k0..k1)
                .step_by(SWAP_CHUNK)
                .map(|c| (c, (c + SWAP_CHUNK).min(k1)))
                .collect();
            let order: Box<dyn Iterator<Item = &(usize, usize)>> = if reverse {
                Box::new(chunks.iter().rev())
            } else {
                Box::new(chunks.iter())
            };
            for &(c0, c1) in order {
                (j.k0, j.k1) = (c0 as i32, c1 as i32);
                // A thread per row the chunk touches (at most two per interchange).
                j.grid = (2 * (c1 - c0)).div_ceil(256) as i32;
                let mut prm = [param(&j)];
                s.launch(
                    &SOLVER,
                    "sol_perm",
                    j.grid as u32 * ne as u32,
                    256,
                    &mut prm,
                )?;
                let mut prm = [param(&j)];
                s.launch(
                    &SOLVER,
                    &format!("sol_gather_{tag}"),
                    (cols * ne) as u32,
                    256,
                    &mut prm,
                )?;
            }
            Ok(())
        }
        Step::DiagInfo { n, a } => {
            j.a = at(a);
            j.ld = a.ld as i64;
            j.cols = n as i64;
            let mut prm = [param(&j)];
            s.launch(
                &SOLVER,
                &format!("sol_diaginfo_{tag}"),
                ne as u32,
                256,
                &mut prm,
            )
        }
        Step::TakeLower { rows, cols, a, w } => {
            if rows == 0 || cols == 0 {
                return Ok(());
            }
            j.a = at(a);
            j.ld = a.ld as i64;
            (j.rows, j.cols) = (rows as i64, cols as i64);
            let (wb, wes) = bases.of(w.sp);
            (j.w, j.wld, j.wes) = (wb + w.off as u64 * elem, w.ld as i64, wes);
            let blocks = (rows * cols).div_ceil(256) * ne;
            let mut prm = [param(&j)];
            s.launch(
                &SOLVER,
                &format!("sol_take_{tag}"),
                blocks as u32,
                256,
                &mut prm,
            )
        }
        Step::TriInvPlace {
            lower,
            unit,
            n,
            a,
            count,
        } => {
            if n == 0 || count == 0 {
                return Ok(());
            }
            if n > TRI_PLACE {
                return Err(Error::Unsupported(format!(
                    "an in-place triangle inversion of order {n} (at most {TRI_PLACE})"
                )));
            }
            let (ab, aes) = bases.of(a.sp);
            (j.a, j.es) = (ab + a.off as u64 * elem, aes);
            j.ld = a.ld as i64;
            (j.rows, j.cols) = (a.bs as i64, n as i64);
            (j.k0, j.lower, j.pivot) = (count as i32, lower as i32, unit as i32);
            let smem = ((n * (n + 1) / 2 + n) as u64 * elem) as u32;
            let mut prm = [param(&j)];
            s.launch_with(
                &SOLVER,
                &format!("sol_trinvp_{tag}"),
                ((count * ne) as u32, 1, 1),
                (512, smem),
                false,
                &mut prm,
            )
        }
        Step::TriMulPlace {
            left,
            lower,
            negate,
            n,
            other,
            t,
            x,
            count,
        } => {
            if n == 0 || other == 0 || count == 0 {
                return Ok(());
            }
            if n > TRI_PLACE {
                return Err(Error::Unsupported(format!(
                    "an in-place product with a triangle of order {n} (at most {TRI_PLACE})"
                )));
            }
            let (xb, xes) = bases.of(x.sp);
            (j.a, j.es) = (xb + x.off as u64 * elem, xes);
            j.ld = x.ld as i64;
            let (tb, tes) = bases.of(t.sp);
            (j.w, j.wld, j.wes) = (tb + t.off as u64 * elem, t.ld as i64, tes);
            (j.uld, j.ues) = (x.bs as i64, t.bs as i64);
            (j.rows, j.cols) = (other as i64, n as i64);
            j.k0 = count as i32;
            // The kernel multiplies by `t`, or by its transpose from the left (on the right):
            // its triangle is lower when `t`'s is and the side is left, or neither.
            (j.lower, j.reverse, j.pivot) = ((lower == left) as i32, !left as i32, negate as i32);
            let blocks = other.div_ceil(TRI_MUL_COLS) * count * ne;
            let smem = ((n * (n + 1) / 2 + n * (TRI_MUL_COLS + 1)) as u64 * elem) as u32;
            let mut prm = [param(&j)];
            s.launch_with(
                &SOLVER,
                &format!("sol_trmulp_{tag}"),
                (blocks as u32, 1, 1),
                (256, smem),
                false,
                &mut prm,
            )
        }
        Step::ColSwaps { n, a } => {
            if n < 2 {
                return Ok(());
            }
            j.a = at(a);
            j.ld = a.ld as i64;
            j.cols = n as i64;
            let row_bytes = n * elem as usize;
            if d.swap == 0 || row_bytes > PANEL_SMEM {
                // No room for the permutation (or a row does not fit shared memory): one
                // thread per row takes the interchanges one by one.
                let mut prm = [param(&j)];
                let blocks = n.div_ceil(128) * ne;
                return s.launch(
                    &SOLVER,
                    &format!("sol_colswap_{tag}"),
                    blocks as u32,
                    128,
                    &mut prm,
                );
            }
            // The interchanges as one permutation (one thread walks them in shared memory),
            // then every row group read permuted into shared memory and written back.
            j.slots = d.swap + (e0 - d.first) as u64 * d.swap_s as u64 * 4;
            j.aux = d.swap_s as i32;
            let mut prm = [param(&j)];
            s.launch_with(
                &SOLVER,
                "sol_colperm",
                (ne as u32, 1, 1),
                (256, (n * 4) as u32),
                false,
                &mut prm,
            )?;
            let rows = (PANEL_SMEM / row_bytes).clamp(1, 32);
            j.smem_rows = rows as i32;
            let blocks = n.div_ceil(rows) * ne;
            let mut prm = [param(&j)];
            s.launch_with(
                &SOLVER,
                &format!("sol_colgather_{tag}"),
                (blocks as u32, 1, 1),
                (256, (rows * row_bytes) as u32),
                false,
                &mut prm,
            )
        }
        Step::CholLeaf {
            lower,
            n,
            a,
            k0,
            upd,
        } => {
            if T::COMPLEX || n > CHOL_BLOCK_LEAF {
                return Err(Error::Unsupported(format!(
                    "a blocked Cholesky leaf of order {n} for {tag}"
                )));
            }
            j.a = at(a);
            j.ld = a.ld as i64;
            j.cols = n as i64;
            j.k0 = k0 as i32;
            j.lower = lower as i32;
            if let Some(u) = upd {
                let (ub, ues) = bases.of(u.sp);
                (j.u, j.uld, j.ues) = (ub + u.off as u64 * elem, u.ld as i64, ues);
            }
            let mut prm = [param(&j)];
            // Eight warps of register tiles and a ninth for the diagonal blocks.
            s.launch(&CHOL, &format!("sol_cholx_{tag}"), ne as u32, 288, &mut prm)
        }
        Step::PanelSolve {
            lower,
            rows,
            n,
            a,
            l,
        } => {
            if rows == 0 || n == 0 {
                return Ok(());
            }
            if T::COMPLEX || n > CHOL_BLOCK_LEAF || a.sp != l.sp || a.ld != l.ld {
                return Err(Error::Unsupported(format!(
                    "a blocked Cholesky panel of order {n} for {tag}"
                )));
            }
            j.a = at(a);
            j.ld = a.ld as i64;
            (j.rows, j.cols) = (rows as i64, n as i64);
            j.lower = lower as i32;
            j.w = at(l);
            // The factor (leading dimension 129), 64 vectors (65) and the diagonal's
            // reciprocals in shared memory.
            let leaf = CHOL_BLOCK_LEAF;
            let smem = (leaf * (leaf + 1) + leaf * 65 + leaf) * elem as usize;
            let mut prm = [param(&j)];
            s.launch_with(
                &CHOL,
                &format!("sol_trsolve_{tag}"),
                (rows.div_ceil(64) as u32, ne as u32, 1),
                (256, smem as u32),
                false,
                &mut prm,
            )
        }
        Step::Chol { lower, n, a, k0 } => {
            j.a = at(a);
            j.ld = a.ld as i64;
            j.cols = n as i64;
            j.k0 = k0 as i32;
            j.lower = lower as i32;
            let mut prm = [param(&j)];
            if n <= 32 {
                return s.launch(&CHOL, &format!("sol_chol_{tag}"), ne as u32, 32, &mut prm);
            }
            // One block of 16 × 16 threads per entry, the block in registers (tiles of 4 × 4
            // up to order 64, of 8 × 8 up to 128: `plan::chol_leaf` keeps double2 at 64). Blocks of 16
            // columns (`cholp`) for a single leaf and for orders above 64; column by column
            // (`cholr`, fewer registers) for batches up to 64. H100, double: one leaf of 64
            // 29.6 -> 21.5 us, of 128 86.2 -> 42.1; 1000 of 64 93 -> 137 us, of 128 668 -> 319.
            let r = if n <= 64 { 4 } else { 8 };
            let kind = if r == 8 || ne == 1 { "p" } else { "r" };
            s.launch(
                &CHOL,
                &format!("sol_chol{kind}{r}_{tag}"),
                ne as u32,
                256,
                &mut prm,
            )
        }
    }
}
