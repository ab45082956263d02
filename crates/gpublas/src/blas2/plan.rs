//! The workspace need of every Level-2 routine (SPEC F4) and the launch geometry it comes from.
//! One function, `Shape::full`, serves the size query and the call; the need depends only on
//! the arguments and the device.

use super::Kind;
use crate::common::plan::{most_entries, WorkspacePlan};
use crate::memory::WorkspaceSlice;
use crate::{Error, Op, WorkspaceLease};

/// Threads per block of the matrix-vector kernels (mirrors `THREADS` in kernels/blas2.cu).
pub(crate) const THREADS: usize = 256;

/// Blocks per multiprocessor of the one-step sweep (mirrors `__launch_bounds__` of
/// `b2_sweep1` in kernels/blas2.cu).
const SWEEP1_BLOCKS_PER_SM: usize = 4;
/// Columns per column lane per step of the one-step sweep (mirrors `CU` in `sweep`).
const SWEEP1_COLUMNS_PER_STEP: usize = 4;

/// Rows and columns of the regions symv's sweep cuts the matrix into (mirrors `SR::R` in
/// kernels/blas2.cu): one partial vector per region row.
pub(crate) const SYMV_REGION: usize = 256;

/// Level 2's tuning values, in one place beside the plan that uses them. Kernel facts the
/// sources mirror (`THREADS`, the geometry's 16-byte loads and four row steps, `CPG`, trsv's
/// tile order `trsv_nb`) stay constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Blas2Params {
    /// Blocks per multiprocessor a split aims for.
    pub blocks_per_sm: usize,
    /// Fewest steps of work per thread in each split: row steps of a column dot, columns of a
    /// sweep's thread group.
    pub split_steps: usize,
    /// Most batch entries in one launch (keeps grids within 2^31 blocks).
    pub max_entries: usize,
    /// gemv batches whose columns hold at most this many bytes run `SmallBatched` ...
    pub small_column_bytes: usize,
    /// ... when they give each multiprocessor at least this many threads.
    pub small_threads_per_sm: usize,
    /// trsv solves by substitution, one block per system, a triangle of at most this many
    /// diagonal tiles (and any batch of at least one system per multiprocessor); larger ones
    /// run the blocked solve over many blocks.
    pub trsv_subst_tiles: usize,
}

impl Blas2Params {
    /// The values for the devices gpublas is tuned on.
    pub(crate) fn auto() -> Self {
        Blas2Params {
            blocks_per_sm: 8,
            split_steps: 4,
            max_entries: 1 << 20,
            small_column_bytes: 128,
            small_threads_per_sm: 2048,
            trsv_subst_tiles: 2,
        }
    }
}

/// What a call's arguments fix for its plan.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    pub kind: Kind,
    pub op: Op,
    pub m: usize,
    pub n: usize,
    /// Bytes per element.
    pub elem: usize,
    pub batch: usize,
    pub list: bool,
    pub sms: usize,
    pub params: Blas2Params,
    /// Band products (gbmv, sbmv, hbmv): the stored rows of a band column, which set the
    /// kernels' geometry. They run without partials (one pass; sbmv/hbmv read a column again
    /// from L2 where it crosses the next block's rows), so their workspace does not depend on
    /// the band width.
    pub band_rows: Option<usize>,
}

/// How the threads of a block cover a matrix: `tr` threads down a column (each with `vec`
/// consecutive elements, `rs` times), `tc` columns at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Geom {
    pub vec: usize,
    pub tr: usize,
    pub rs: usize,
    pub tc: usize,
}

impl Geom {
    /// Geometry for columns of `rows` elements of `elem` bytes.
    pub(crate) fn for_rows(rows: usize, elem: usize) -> Geom {
        let vec = (16 / elem).max(1);
        let rv = rows.div_ceil(vec).max(1);
        let (tr, rs) = if rv <= 32 {
            (rv.next_power_of_two(), 1)
        } else {
            (32, 4)
        };
        Geom {
            vec,
            tr,
            rs,
            tc: THREADS / tr,
        }
    }

    /// Rows one block covers in a column sweep.
    pub(crate) fn rows_per_block(&self) -> usize {
        self.tr * self.vec * self.rs
    }
}

/// The algorithm a call runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Algo {
    /// One pass writes the result (gemv with one split).
    Direct,
    /// gemv on many small full matrices: a thread per 16 bytes of y (op N) or per column
    /// (op T/C), many entries per block, the result written directly.
    SmallBatched,
    /// Partial sums in the workspace, then a pass that combines them into the output.
    Split,
    /// symv and spmv in f32, f64 and c32, full or packed storage: one block per 256 x 256
    /// region of the stored triangle, each element read once through shared memory; a partial
    /// vector per region row in the workspace, then a pass that adds them into y.
    SymRegions,
    /// symv/hemv without workspace: the stored triangle is read twice.
    SymTwoPass,
    /// sbmv/hbmv: one pass, a block per tile of rows sums the stored columns crossing its rows
    /// and the mirror of its own columns; no workspace.
    SymBand,
    /// trmv-family without workspace: one block per matrix, in place.
    InPlace,
    /// trsv: diagonal blocks inverted into the workspace, many blocks solving at once.
    TrsvBlocked,
    /// trsv: substitution on one block per system.
    TrsvSubst,
}

/// How a call splits its work, and the workspace that takes (F4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    pub algo: Algo,
    /// Column splits of a sweep (`Op::N`, symv) or row splits of column dots (`Op::T`/`C`).
    pub splits: usize,
    /// Batch entries per launch.
    pub chunk: usize,
    /// The workspace parts' sizes in bytes.
    pub workspace: Blas2Workspace<usize>,
}

/// Level 2's workspace parts by name: their sizes in bytes (`Plan::workspace`), or the
/// sub-buffers a lease holds for them (`Blas2Workspace::leased`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Blas2Workspace<S> {
    /// Partial sums of `chunk` entries (a split product, symv's two halves, trmv's result
    /// before it overwrites `x`).
    pub partials: S,
    /// A list batch's table of the buffers' device addresses (`chunk` entries: A's, x's, y's).
    pub addr_table: S,
    /// trsv's progress flags and ticket counter (one system at a time).
    pub trsv_tiles: S,
}

impl Blas2Workspace<usize> {
    /// The sizes in lease order.
    pub(crate) fn list(&self) -> [usize; 3] {
        [self.partials, self.addr_table, self.trsv_tiles]
    }
}

impl Blas2Workspace<Option<WorkspaceSlice>> {
    /// The parts of a lease laid out by `list`.
    pub(crate) fn leased(lease: &WorkspaceLease<'_>) -> Self {
        Blas2Workspace {
            partials: lease.buffer(0),
            addr_table: lease.buffer(1),
            trsv_tiles: lease.buffer(2),
        }
    }
}

impl WorkspacePlan for Plan {
    fn sizes(&self) -> smallvec::SmallVec<[usize; 4]> {
        smallvec::SmallVec::from_slice(&self.workspace.list())
    }
}

/// trsv block order for an element size (the diagonal tile must fit in shared memory; mirrors
/// the `NB` of `SV_KERNELS` in kernels/blas2.cu).
pub(crate) fn trsv_nb(elem: usize) -> usize {
    if elem >= 16 {
        32
    } else {
        64
    }
}

impl Shape {
    /// Does the product run as column dots (`Op::T`/`C` of gemv and trmv)?
    pub(crate) fn dots(&self) -> bool {
        matches!(self.kind, Kind::Gemv | Kind::Trmv) && self.op != Op::N
    }

    /// Geometry of the kernels: columns have `m` rows (a band's stored rows, at least a
    /// warp's loads, so a narrow band still gets whole row tiles).
    pub(crate) fn geom(&self) -> Geom {
        match self.band_rows {
            Some(rows) if self.kind == Kind::Gemv && !self.dots() => self.band_sweep_geom(rows),
            // One row step per block: a band sweep runs without column splits, so its row tiles
            // are all the blocks it has (four steps left a 16384-row f32 band 32 blocks).
            Some(rows) => Geom {
                rs: 1,
                ..Geom::for_rows(rows.max(32 * 16 / self.elem).min(self.m), self.elem)
            },
            None => Geom::for_rows(self.m, self.elem),
        }
    }

    /// gbmv N's sweep: a block's row tile meets its rows' band columns, `rows - 1` more than
    /// it has rows, in steps of four columns per column lane, each a memory latency long. The
    /// tile (`tr` of 4, 8, 16, 32 threads down a column) with the fewest steps over all waves
    /// of blocks (a 32-thread tile of f32 takes 8 steps at kl = ku = 64; 8 threads take 2).
    fn band_sweep_geom(&self, rows: usize) -> Geom {
        let vec = (16 / self.elem).max(1);
        let slots = self.sms.max(1) * SWEEP1_BLOCKS_PER_SM;
        let cost = |tr: usize| {
            let (rb, tc) = (tr * vec, THREADS / tr);
            let steps = (rb + rows - 1).div_ceil(SWEEP1_COLUMNS_PER_STEP * tc);
            let blocks = self.m.div_ceil(rb).saturating_mul(self.batch.max(1));
            blocks.div_ceil(slots).saturating_mul(steps)
        };
        let tr = [32, 16, 8, 4]
            .into_iter()
            .min_by_key(|&tr| cost(tr))
            .unwrap_or(32);
        Geom {
            vec,
            tr,
            rs: 1,
            tc: THREADS / tr,
        }
    }

    /// Row tiles of a sweep.
    pub(crate) fn row_tiles(&self) -> usize {
        self.m.div_ceil(self.geom().rows_per_block()).max(1)
    }

    /// Columns per thread group of the column dots: several when a column is one chunk of
    /// rows (four row steps), so their loads go out together (`CPG` in blas2.cu), as long as
    /// there are columns enough to keep blocks full.
    pub(crate) fn dot_columns_per_group(&self) -> usize {
        let g = self.geom();
        if self.m <= 4 * g.tr * g.vec && self.n >= 4 * g.tc {
            4
        } else {
            1
        }
    }

    /// Blocks of one entry before splitting: row tiles of a sweep, column groups of dots.
    fn base_blocks(&self) -> usize {
        let g = self.geom();
        if self.dots() {
            self.n.div_ceil(g.tc * self.dot_columns_per_group()).max(1)
        } else {
            self.row_tiles()
        }
    }

    /// The most useful splits: enough blocks to fill the device, at least `split_steps` steps
    /// of work per thread in each split.
    fn best_splits(&self) -> usize {
        if self.band_rows.is_some() {
            return 1;
        }
        let g = self.geom();
        let target = self.sms * self.params.blocks_per_sm;
        let want = target.div_ceil(self.base_blocks() * self.batch.max(1));
        let steps = self.params.split_steps;
        let most = if self.dots() {
            self.m.div_ceil(g.tr * g.vec * steps)
        } else {
            self.n.div_ceil(g.tc * steps)
        };
        want.min(most).max(1)
    }

    /// Output elements per entry (the length of y, or of x for trmv).
    fn out_len(&self) -> usize {
        if self.kind == Kind::Gemv && self.op == Op::N {
            self.m
        } else {
            self.n
        }
    }

    /// The region sweep of symv and spmv in f32, f64 and c32 (the element sizes 4 and 8; a
    /// size query names no type): full or packed storage, not a band (spmv 16384 in the
    /// harness, f32 / f64: 3.2 / 4.0 TB/s, against 1.5 / 2.2 through the split sweep; H200).
    fn regions(&self) -> bool {
        self.kind == Kind::Symv && matches!(self.elem, 4 | 8) && self.band_rows.is_none()
    }

    /// The region sweep's partial vectors per entry (one per region row) and their stride in
    /// elements (n rounded up to 32: 128-byte aligned vectors).
    pub(crate) fn region_partials(&self) -> (usize, usize) {
        let stride = self.n.div_ceil(32).saturating_mul(32);
        (self.n.div_ceil(SYMV_REGION), stride)
    }

    /// Partial-sum elements per entry with `splits` splits under `algo`.
    fn part_elems(&self, algo: Algo, splits: usize) -> usize {
        match algo {
            Algo::SymRegions => {
                let (vectors, stride) = self.region_partials();
                vectors.saturating_mul(stride)
            }
            Algo::Split if matches!(self.kind, Kind::Symv | Kind::Hemv) => {
                (splits + self.row_tiles()).saturating_mul(self.n)
            }
            Algo::Split => splits.saturating_mul(self.out_len()),
            _ => 0,
        }
    }

    fn table_per_entry(&self) -> usize {
        if !self.list {
            return 0;
        }
        let ops = if matches!(self.kind, Kind::Trmv | Kind::Trsv) {
            2
        } else {
            3
        };
        ops * 8
    }

    /// trsv over many blocks: a progress flag per block of rows and a ticket counter (each
    /// block inverts its own diagonal tile in shared memory).
    fn trsv_blocked_bytes(&self) -> usize {
        let blocks = self.n.div_ceil(trsv_nb(self.elem));
        blocks.saturating_add(2).saturating_mul(4)
    }

    fn make(&self, algo: Algo, splits: usize, chunk: usize) -> Plan {
        Plan {
            algo,
            splits,
            chunk,
            workspace: Blas2Workspace {
                // Saturating: an absurd shape needs more than any workspace, it never wraps.
                partials: chunk
                    .saturating_mul(self.part_elems(algo, splits))
                    .saturating_mul(self.elem),
                addr_table: chunk.saturating_mul(self.table_per_entry()),
                trsv_tiles: if algo == Algo::TrsvBlocked {
                    self.trsv_blocked_bytes()
                } else {
                    0
                },
            },
        }
    }

    /// `Algo::SmallBatched`'s threads per entry: one for each 16 bytes of y (op N) or each
    /// column (op T/C).
    pub(crate) fn small_threads_per_entry(&self) -> usize {
        if self.op == Op::N {
            self.m.div_ceil(16 / self.elem)
        } else {
            self.n
        }
    }

    /// Many small full matrices, with threads enough to fill the device (`Algo::SmallBatched`).
    fn small_batched(&self) -> bool {
        let threads = self.small_threads_per_entry();
        self.kind == Kind::Gemv
            && self.band_rows.is_none()
            && self.m.saturating_mul(self.elem) <= self.params.small_column_bytes
            && threads.saturating_mul(self.batch)
                >= self.sms.saturating_mul(self.params.small_threads_per_sm)
    }

    /// The algorithm with enough workspace.
    fn best_algo(&self, splits: usize) -> Algo {
        match self.kind {
            Kind::Gemv if self.small_batched() => Algo::SmallBatched,
            Kind::Gemv if splits == 1 => Algo::Direct,
            Kind::Symv | Kind::Hemv if self.band_rows.is_some() => Algo::SymBand,
            Kind::Gemv | Kind::Symv | Kind::Hemv | Kind::Trmv => Algo::Split,
            Kind::Trsv => {
                let nb = trsv_nb(self.elem);
                if self.n <= self.params.trsv_subst_tiles * nb || self.batch >= self.sms {
                    Algo::TrsvSubst
                } else {
                    Algo::TrsvBlocked
                }
            }
        }
    }

    /// The plan with enough workspace: depends only on the arguments and the device (F4).
    pub(crate) fn full(&self) -> Plan {
        if self.regions() {
            let chunk = self.batch.clamp(1, self.params.max_entries);
            return self.make(Algo::SymRegions, 1, chunk);
        }
        self.split_full()
    }

    /// The plan of the sweeps whose partials follow their splits (and of the algorithms
    /// without partials).
    fn split_full(&self) -> Plan {
        let splits = if self.kind == Kind::Trsv {
            1
        } else {
            self.best_splits()
        };
        self.make(
            self.best_algo(splits),
            splits,
            self.batch.clamp(1, self.params.max_entries),
        )
    }

    /// The algorithm a routine falls back on when not even one entry's partials fit.
    fn fallback(&self) -> Algo {
        match self.kind {
            Kind::Gemv => Algo::Direct,
            Kind::Symv | Kind::Hemv if self.band_rows.is_some() => Algo::SymBand,
            Kind::Symv | Kind::Hemv => Algo::SymTwoPass,
            Kind::Trmv => Algo::InPlace,
            Kind::Trsv => Algo::TrsvSubst,
        }
    }

    /// The best plan within `cap` bytes: fewer splits, then fewer entries per launch (F8),
    /// then the routine's algorithm without partials. `None` when not even one list entry's
    /// address table fits. symv's region sweep first runs fewer entries per launch; when
    /// not even one entry's partials fit, the split sweep's steps follow.
    pub(crate) fn fitted(&self, cap: usize) -> Option<Plan> {
        let full = self.full();
        if full.total() <= cap {
            return Some(full);
        }
        if full.algo == Algo::SymRegions {
            let fits = |c| self.make(Algo::SymRegions, 1, c).total() <= cap;
            if let Some(c) = most_entries(full.chunk, fits) {
                return Some(self.make(Algo::SymRegions, 1, c));
            }
        }
        let full = self.split_full();
        if full.total() <= cap {
            return Some(full);
        }
        let chunk = full.chunk;
        let mut s = full.splits;
        if full.algo != Algo::TrsvBlocked {
            while s > 1 {
                s /= 2;
                let p = self.make(self.best_algo(s), s, chunk);
                if p.total() <= cap {
                    return Some(p);
                }
            }
        }
        // One split: as many entries per launch as fit (F8), else the algorithm without
        // partials, still chunked by what its address table allows.
        let most = |algo: Algo| most_entries(chunk, |c| self.make(algo, 1, c).total() <= cap);
        let algo = self.best_algo(1);
        if let Some(c) = most(algo) {
            return Some(self.make(algo, 1, c));
        }
        let algo = self.fallback();
        most(algo).map(|c| self.make(algo, 1, c))
    }

    /// Why nothing fits, with the figures (for `MemoryError`).
    pub(crate) fn minimum_text(&self) -> String {
        table_minimum_text(self.table_per_entry())
    }
}

/// `workspace_bytes`'s element size: 4, 8 or 16 bytes.
pub(crate) fn check_elem(elem: usize) -> Result<(), Error> {
    if [4, 8, 16].contains(&elem) {
        Ok(())
    } else {
        Err(Error::InvalidValue(format!(
            "element size {elem} is not 4, 8 or 16 bytes"
        )))
    }
}

/// Why nothing fits a list batch whose entry's address table takes `per_entry` bytes (for
/// `MemoryError`; the other workspace parts all have an algorithm without them).
pub(crate) fn table_minimum_text(per_entry: usize) -> String {
    format!(
        "a list batch needs at least {} bytes for one entry's address table; raise the \
         workspace with set_device_memory_size",
        crate::memory::round_up(per_entry).unwrap_or(0)
    )
}

/// Workspace bytes a Level-2 call of this shape needs on `device` (what a size query returns
/// for it): `routine` is one of `gemv`, `gbmv`, `symv`, `hemv`, `sbmv`, `hbmv`, `spmv`,
/// `hpmv`, `trmv`, `tbmv`, `tpmv`, `trsv`, `tbsv`, `tpsv` and the rank updates `ger`, `geru`,
/// `gerc`, `syr`, `syr2`, `her`, `her2`, `spr`, `spr2`, `hpr`, `hpr2`; `m` is ignored except
/// for gemv, gbmv and the ger family; `elem` is the element size in bytes (4, 8 or 16). No
/// need depends on a band width.
///
/// ```
/// use gpublas::{blas2, Device, Op};
/// let need = blas2::workspace_bytes(&Device::host(), "gemv", Op::T, 1 << 20, 32, 4, 1, false)?;
/// assert!(need > 0); // a tall skinny transposed product splits its columns' dots
/// # Ok::<(), gpublas::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn workspace_bytes(
    device: &crate::Device,
    routine: &str,
    op: Op,
    m: usize,
    n: usize,
    elem: usize,
    batch: usize,
    list: bool,
) -> Result<usize, Error> {
    let kind = match routine {
        "gemv" => Kind::Gemv,
        "gbmv" => Kind::Gemv,
        "symv" => Kind::Symv,
        "sbmv" | "spmv" => Kind::Symv,
        "hemv" => Kind::Hemv,
        "hbmv" | "hpmv" => Kind::Hemv,
        "trmv" | "tbmv" | "tpmv" => Kind::Trmv,
        "trsv" => Kind::Trsv,
        "tbsv" | "tpsv" => Kind::Trsv,
        "ger" | "geru" | "gerc" | "syr" | "syr2" | "her" | "her2" | "spr" | "spr2" | "hpr"
        | "hpr2" => return super::update::workspace_bytes(routine, m, n, elem, batch, list),
        other => {
            return Err(Error::InvalidValue(format!(
                "unknown Level-2 routine '{other}' (gemv, gbmv, symv, hemv, sbmv, hbmv, spmv, \
                 hpmv, trmv, tbmv, tpmv, trsv, tbsv, tpsv, ger, geru, gerc, syr, syr2, her, \
                 her2, spr, spr2, hpr, hpr2)"
            )))
        }
    };
    // The band products' geometry follows the band; their workspace does not (any rows do).
    let band_rows = matches!(routine, "gbmv" | "sbmv" | "hbmv").then_some(1);
    check_elem(elem)?;
    let m = if kind == Kind::Gemv { m } else { n };
    if m == 0 || n == 0 || batch == 0 {
        return Ok(0);
    }
    let s = Shape {
        kind,
        op,
        m,
        n,
        elem,
        batch,
        list,
        sms: device.multiprocessor_count(),
        params: Blas2Params::auto(),
        band_rows,
    };
    Ok(s.full().total())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gbmv(op: Op, m: usize, rows: usize, elem: usize) -> Shape {
        Shape {
            kind: Kind::Gemv,
            op,
            m,
            n: m,
            elem,
            batch: 1,
            list: false,
            sms: 132,
            params: Blas2Params::auto(),
            band_rows: Some(rows),
        }
    }

    /// gbmv N's row tile follows the band: at kl = ku = 64 and order 16384 on 132
    /// multiprocessors, 8 threads down a column of f32 (two steps of four columns a lane, one
    /// wave of blocks) and 16 of f64 (32 rows: three steps, one wave); op T keeps a warp a
    /// column.
    #[test]
    fn band_sweep_tile_follows_the_band() {
        assert_eq!(gbmv(Op::N, 16384, 129, 4).geom().tr, 8);
        assert_eq!(gbmv(Op::N, 16384, 129, 8).geom().tr, 16);
        assert_eq!(gbmv(Op::T, 16384, 129, 4).geom().tr, 32);
    }
}
