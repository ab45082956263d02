//! The solver's workspace need, from one function (SPEC F4): the triangular solves' inverted
//! diagonal blocks and result chunks (as trsm's plan), Cholesky's trailing-update diagonal
//! blocks, cuBLASLt's workspace, the panel kernel's exchange slots, and pivots and info routed
//! to host memory (gathered in the workspace, then copied out).

use smallvec::SmallVec;

use super::program::tri_place;
use super::Kind;
use crate::blas3::plan::{inv_temp, Blas3Params, Plan, Shape};
use crate::blas3::{Kind as K3, Method};
use crate::common::plan::most_entries;
use crate::common::plan::WorkspacePlan;
use crate::exec::program::INV_NB;
use crate::exec::workspace::BlockWorkspace;
use crate::memory::{rounded_total, WorkspaceSlice, CHUNK};
use crate::WorkspaceLease;

/// Order of a Cholesky leaf, and the unit the recursion splits at.
pub(crate) const LEAF: usize = 32;

/// Order of a Cholesky leaf for elements of `elem` bytes: one block factors it in shared memory
/// (mirrors `cholp` in chol.cu; a leaf of at most 32 is one warp's).
pub(crate) fn chol_leaf(elem: usize) -> usize {
    if elem <= 8 {
        128
    } else {
        64
    }
}

/// Largest order whose whole LU is one step: one block holds the matrix in registers (mirrors
/// `lur` in solver.cu, whose complex instances stop at 64).
pub(crate) fn lu_small(complex: bool) -> usize {
    if complex {
        64
    } else {
        128
    }
}

/// The whole LU of an `m × n` matrix is one step (no recursion, interchanges or solves).
pub(crate) fn lu_whole(m: usize, n: usize, complex: bool) -> bool {
    m <= lu_small(complex) && n <= lu_small(complex)
}

/// The whole LU at order 128 of `ne` entries on `sms` multiprocessors: the kernel's name
/// suffix and its dynamic shared memory. With more entries than SMs, double keeps 16 of a
/// thread's 32 slots (4 threads a row) in shared memory so two blocks share an SM
/// (`sol_lur128half_d`, `lur<double, 128, 4, 16>` in solver.cu); fewer entries run one block
/// an SM with every slot in registers, which is faster for a matrix alone.
pub(crate) fn lur128_kernel(
    elem: usize,
    complex: bool,
    ne: usize,
    sms: usize,
) -> (&'static str, usize) {
    if elem == 8 && !complex && ne > sms {
        ("half", 16 * 4 * 128 * 8)
    } else {
        ("", 0)
    }
}

/// Order of the blocked Cholesky's leaves for real types (mirrors the 16 · `R` of `cholx` and
/// the `N` of `trsolve` in chol.cu).
pub(crate) const CHOL_BLOCK_LEAF: usize = 128;

/// Most columns of an LU panel leaf (mirrors `PW` in solver.cuh).
pub(crate) const PANEL: usize = 64;

/// The solver's tuning values (measured on the H100; NOTES has the tables): block widths,
/// crossovers and grid caps, in one place beside the plan that uses them. Kernel facts the
/// sources mirror (`PANEL`, `PANEL_SMEM`, `SWAP_CHUNK`, `chol_leaf`) stay constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SolverParams {
    /// Fewest columns (of `min(m, n)`) for the look-ahead LU (and at least two blocks).
    pub ahead_min: usize,
    /// Block width of the look-ahead LU from `ahead_wide_from` columns on, and below it.
    /// Blocks of 512 beat 256 by 5 % at 32768 and equalled them at 8192 and 16384 (f64).
    pub ahead_nb: usize,
    pub ahead_nb_small: usize,
    pub ahead_wide_from: usize,
    /// Before a block's panel forks, the main lane prepares only that block's columns (its
    /// interchanges, rows of `U` and update); the rest of the matrix takes them beside the
    /// panel, whose solves use parts of E and R of their own (`SolverPlan::side_e`) and the
    /// first gather list (the main lane the second). Against preparing every column first
    /// (H200, f64, two runs each, ms): 8192 44.36 / 44.48 against 44.78 / 44.86, 16384
    /// 131.8 / 130.9 against 137.6 / 137.2, f32 16384 140.3 / 140.6 against 143.5 / 143.2
    /// (one matrix of order `ahead_wide_from` and more: `SolverShape::side_parts`).
    pub ahead_fork_narrow: bool,
    /// The look-ahead blocks' leaves apply their interchanges to the rest of their block
    /// (the register panel within its launch, once every block has read the rows it moves)
    /// instead of the recursion's 14 interchange steps of a 512-column block, each a launch
    /// waiting beside the main lane's product.
    pub leaf_swaps: bool,
    /// Most blocks of a panel on the side lane: the rest of the device stays with the main
    /// lane's product (a cooperative grid starts once all its blocks can be resident). 32, 48
    /// and 64 were within 2 % of each other; 24 and 16 were slower.
    pub side_grid: usize,
    /// Most blocks of a side-lane panel whose rows need more than `side_grid` blocks to sit in
    /// registers (tall panels, from 24576 rows).
    pub side_grid_max: usize,
    /// Fewest panel rows per block of the panel kernel.
    pub rows_per_block: usize,
    /// Most workspace bytes (everything but cuBLASLt's) a full plan takes for the batch
    /// entries it runs at once. The batched programs are launch-bound, so time grows with the
    /// number of groups: 16 MiB (within the default workspace) made 100 LUs of 512² take 15.0
    /// ms instead of 4.2 and 20 of 2048² 178 instead of 67 (H100); 64 MiB asks 53 / 42 MB
    /// there and grows a default handle once.
    pub batch_budget: usize,
    /// Bytes all entries of a batch aim to fit at once (the default workspace less cuBLASLt's
    /// part) by narrowing their result chunks, down to trsm's floor: narrower chunks add
    /// launches to the solves alone, where another group of entries repeats every step. 20 LUs
    /// of 2048² went 42 → 24 MB at the same speed (H100); 100 of 512² are at the floor already
    /// and keep 53 MB (two groups within 28 MiB made them 1.5 times slower).
    pub batch_fit: usize,
    /// Bytes a full plan aims to give one entry's triangular solves (inverted leaves E,
    /// result chunks R) and Cholesky's update blocks (which share E): with the exchange slots
    /// and gather lists, an LU stays within 4 MiB, cuSOLVER's order of workspace. Result
    /// chunks narrow to fit it; getrs and potrs keep their inverted leaves a group at a time
    /// within it, the factorizations all of them (theirs fit).
    pub solve_budget: usize,
    /// Fewest inverted leaves a group of getrs's and potrs's solves holds before their leaves
    /// halve (a group is inverted in one batched pass; each group costs a pass).
    pub solve_group_min: usize,
    /// Most bytes of cuBLASLt workspace a full plan gives the products (their algorithms are
    /// chosen within it), so a factorization with its own parts fits the default 32 MiB
    /// workspace without growing it. Against 32 MiB (H100, one bench process each): getrf f64
    /// 8192 / 16384 / 32768 45.74 / 141.90 / 664.97 ms against 45.67 / 142.71 / 669.70, f32
    /// 16384 148.49 against 148.44 (and 27.8 MB instead of 2.6), complex double 330.59 against
    /// 329.62, potrf 32768 257.35 against 255.83: within 1 %.
    pub engine_budget: usize,
    /// Leaf of Cholesky's trailing-update diagonal blocks: `n / 32` rounded up to a power of
    /// two, within these bounds (as Level 3's rank-k updates).
    pub herk_nb_min: usize,
    pub herk_nb_max: usize,
    /// Smallest order for the blocked Cholesky with look-ahead (and at least two blocks), and
    /// its block width: each block's diagonal factor and panel solve run on the side lane
    /// while the main lane updates the rest of the trailing matrix. Against the recursive
    /// program (H100, f64 lower, ms / bytes): 8192 11.84 / 3.8 MB against 11.47 / 8.4 MB;
    /// 16384 43.5 / 4.0 MB against 42.6 / 16.8 MB; 32768 253.9 / 4.1 MB against 256.1 / 33.5
    /// MB. Blocks of 256 or 512 were slower from 8192 on (upper 8192 with 256: 16.1 ms); below
    /// 8192 the recursion asks at most about 8 MB and blocks were not measured on upper
    /// triangles.
    pub chol_ahead_min: usize,
    pub chol_nb: usize,
    /// The same for real types with leaves of one step (`CHOL_BLOCK_LEAF` columns factored in
    /// one step, the panel beside them solved in one): fewest order, block width from
    /// `chol_leaves_wide_from` on and below it. Off (`chol_leaves` false), every type takes the
    /// values above. H200, f64 lower, ms (blocks of 256 / 512 / 1024; the values above): 2048
    /// 1.50 / 1.56 / 1.64 (recursion 1.87); 4096 3.42 / 3.49 / 3.71 (6.37); 8192 10.24 / 9.89 /
    /// 10.02 (11.53); 16384 49.66 / 45.17 / 42.31 (43.96); upper 8192 10.62 / 10.25 / 10.44
    /// (13.45).
    pub chol_leaves: bool,
    pub chol_leaves_min: usize,
    pub chol_leaves_nb: usize,
    pub chol_leaves_nb_small: usize,
    pub chol_leaves_wide_from: usize,
    /// Bytes of E the blocked Cholesky's trailing updates keep their diagonal blocks in: as
    /// many blocks as fit, of the largest power-of-two order (at most `herk_nb_max`) for which
    /// all of them fit at once (fewer, larger launches). 1, 2 and 4 MiB were within 1 % at
    /// 16384 and 32768 with blocks of 1024; 1 MiB keeps the call within 4 MiB.
    pub chol_trail_budget: usize,
    /// getri's block of columns (`n × nb` of `L` in E while the block is solved): the widest
    /// multiple of 8 (at least 8) up to `getri_nb_max` with which the call's own parts stay
    /// within `getri_budget` bytes (issue 31's bound: 4 MiB where cuSOLVER's getrf asks less
    /// than 2). The block's
    /// product has `nb` columns, so wider blocks read the rest of the matrix fewer times.
    pub getri_nb_max: usize,
    pub getri_budget: usize,
    /// getri's blocks widen toward the right, where their part of `L` is shorter, as far as
    /// E's `n × nb` elements allow (at most `tri_place` columns: 128, 64 for complex double):
    /// getri 8192 took 28.2 ms against 29.0 with every block 56 wide (H200).
    pub getri_widen: bool,
    /// Most rows (columns) of potri's triangular products per pass through E's temporary,
    /// and the order of their products' leaves.
    pub potri_chunk: usize,
    pub product_leaf: usize,
    /// Left-side op-N solves of order up to `subst_max` with at most `subst_rhs` right-hand
    /// columns (the LU panel's rows of `U`: 64, 128 and 256 rows in 512-column blocks) run by
    /// substitution in leaves of up to 128 (`b3_trsl`, one launch each, no E or R) instead of
    /// inverted leaves, products and copies (about 6 launches for 64 rows, 14 for 256, each
    /// waiting beside the main lane's product). A leaf of 128 takes about 30 µs (H200, alone),
    /// so the next block's 512-row solve on the main lane (4 leaves, 3 products: 190 µs
    /// against about 130 inverted) keeps the inverted leaves, as do wider ones: every block
    /// of 8 columns copies the whole triangle.
    pub subst_max: usize,
    pub subst_rhs: usize,
}

impl Default for SolverParams {
    fn default() -> Self {
        SolverParams::auto()
    }
}

impl SolverParams {
    /// The values for the devices gpublas is tuned on.
    pub(crate) fn auto() -> Self {
        SolverParams {
            ahead_min: 256,
            ahead_nb: 512,
            ahead_nb_small: 128,
            ahead_wide_from: 4096,
            ahead_fork_narrow: true,
            leaf_swaps: true,
            side_grid: 48,
            side_grid_max: 64,
            rows_per_block: 128,
            batch_budget: 64 << 20,
            batch_fit: 28 << 20,
            solve_budget: 3 << 20,
            solve_group_min: 4,
            engine_budget: 4 << 20,
            herk_nb_min: 64,
            herk_nb_max: 256,
            chol_ahead_min: 8192,
            chol_nb: 1024,
            chol_leaves: true,
            chol_leaves_min: 2048,
            chol_leaves_nb: 1536,
            chol_leaves_nb_small: 256,
            chol_leaves_wide_from: 8192,
            chol_trail_budget: 1 << 20,
            getri_nb_max: 128,
            getri_budget: 4 << 20,
            getri_widen: true,
            potri_chunk: 1024,
            product_leaf: 128,
            subst_max: 256,
            subst_rhs: 1024,
        }
    }

    /// Whether a left-side op-N solve of order `na` with `other` right-hand columns (one
    /// matrix at a time) substitutes (`subst_max`, `subst_rhs`).
    pub(crate) fn substitutes_left(&self, na: usize, other: usize) -> bool {
        na <= self.subst_max && other <= self.subst_rhs
    }

    /// The block width of the blocked Cholesky of order `n`, or `None` for the recursive one.
    pub(crate) fn chol_ahead(&self, n: usize) -> Option<usize> {
        (n >= self.chol_ahead_min.max(2 * self.chol_nb)).then_some(self.chol_nb)
    }

    /// The block width of the blocked Cholesky with leaves of one step of order `n` (real
    /// types), or `None` where it does not run.
    pub(crate) fn chol_leaves_blocks(&self, n: usize) -> Option<usize> {
        let nb = if n >= self.chol_leaves_wide_from {
            self.chol_leaves_nb
        } else {
            self.chol_leaves_nb_small
        };
        (self.chol_leaves && n >= self.chol_leaves_min.max(2 * nb)).then_some(nb)
    }

    /// The trailing updates' diagonal blocks for updates of order up to `n` (elements of
    /// `elem` bytes): (order, how many E holds at once).
    fn trail_blocks(&self, n: usize, elem: usize) -> (usize, usize) {
        let fits = |nb: usize| n.div_ceil(nb) * nb * nb * elem <= self.chol_trail_budget;
        let mut nb = self.herk_nb_max.min(n.max(1)).next_power_of_two();
        while nb > 8 && !fits(nb) {
            nb /= 2;
        }
        let per = (nb * nb * elem).max(1);
        (
            nb,
            (self.chol_trail_budget / per).clamp(1, n.div_ceil(nb).max(1)),
        )
    }

    /// The block width of the look-ahead LU of an `m × n` matrix, or `None` for the recursive
    /// program: blocks of columns whose panel (a recursive LU of its own) runs on the side
    /// lane while the main lane updates the rest of the trailing matrix.
    pub(crate) fn lookahead(&self, m: usize, n: usize) -> Option<usize> {
        let k = m.min(n);
        let nb = if k >= self.ahead_wide_from {
            self.ahead_nb
        } else {
            self.ahead_nb_small
        };
        (k >= self.ahead_min.max(2 * nb)).then_some(nb)
    }

    /// Blocks of a side-lane panel over `rows` rows: `side_grid`, more (up to
    /// `side_grid_max`) where that many would leave a block more rows than the register panel
    /// holds at 32 columns.
    pub(crate) fn side_grid_for(&self, rows: usize) -> usize {
        // The 32-column register panel holds 8 rows in each of its 64 row lanes.
        let most_rows = 256 / 4 * 8;
        self.side_grid
            .max(rows.div_ceil(most_rows))
            .min(self.side_grid_max)
    }

    /// Columns of a side-lane panel's leaves over `rows` rows of `elem` bytes: 64 or 32 where
    /// the register panel (`lu_regs_fit`) holds a block's rows; else the widest of 64, 32, 16,
    /// 8 whose rows fit the shared memory of the side lane's blocks (the shared-memory panel
    /// works in global memory otherwise, several times slower per column).
    pub(crate) fn side_leaf(&self, rows: usize, elem: usize) -> usize {
        let (_, per) = self.panel_split(rows, self.side_grid_for(rows));
        if let Some(w) = [PANEL, PANEL / 2]
            .into_iter()
            .find(|&w| lu_regs_fit(per, w, elem).is_some())
        {
            return w;
        }
        let mut w = PANEL;
        while w > 8 && per * w * elem > PANEL_SMEM {
            w /= 2;
        }
        w
    }

    /// The blocks of a panel kernel over `rows` rows with at most `grid` of them (at least
    /// `rows_per_block` rows each), and the rows each block holds.
    pub(crate) fn panel_split(&self, rows: usize, grid: usize) -> (usize, usize) {
        let g = grid.min(rows.div_ceil(self.rows_per_block)).max(1);
        (g, rows.div_ceil(g))
    }

    /// Leaf of Cholesky's trailing-update diagonal blocks for an update of order `n`.
    fn herk_nb(&self, n: usize) -> usize {
        (n / 32)
            .next_power_of_two()
            .clamp(self.herk_nb_min, self.herk_nb_max)
            .min(n.max(1))
    }
}

/// The register panel (`lu_regs` in solver.cu) for a block of `rows` rows and a leaf of `cols`
/// columns of `elem` bytes, if one holds them: `(H, RR)`, `8·H` columns and `RR` rows per
/// thread of 256 (mirrors the kernels' list: `H` 8 or 4, `RR` 4 or 8; complex double `H` 4,
/// `RR` 2 or 4).
pub(crate) fn lu_regs_fit(rows: usize, cols: usize, elem: usize) -> Option<(usize, usize)> {
    let h = if cols > 32 { 8 } else { 4 };
    if cols > PANEL || (elem == 16 && h == 8) {
        return None;
    }
    let rr = rows.div_ceil(256 / h);
    let list: &[usize] = if elem == 16 { &[2, 4] } else { &[4, 8] };
    list.iter().find(|&&r| rr <= r).map(|&r| (h, r))
}

/// Most interchanges one permutation step turns into a gather (mirrors `SWAPC` in solver.cuh).
pub(crate) const SWAP_CHUNK: usize = 1024;

/// Bytes of shared memory a panel block may keep its rows in (else it works in place).
pub(crate) const PANEL_SMEM: usize = 160 << 10;

/// What the plan depends on.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SolverShape {
    pub kind: Kind,
    pub m: usize,
    pub n: usize,
    pub batch: usize,
    pub list: bool,
    pub elem: usize,
    pub complex: bool,
    /// Pivots and info are routed to host memory (gathered in the workspace).
    pub piv_host: bool,
    pub info_host: bool,
    pub sms: usize,
    pub params: SolverParams,
    /// getrs: only the row interchanges (no solves in the program).
    pub interchanges_only: bool,
}

/// A chosen plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SolverPlan {
    /// The triangular solves' plan (its E sized for Cholesky's update blocks too); its
    /// `entries` is how many batch entries run at once.
    pub p3: Plan,
    /// Cholesky's trailing update: leaf of its diagonal blocks, and how many E holds.
    pub hnb: usize,
    pub heblocks: usize,
    /// The blocked Cholesky's trailing updates (main lane): leaf of their diagonal blocks and
    /// how many E holds, after the side lane's part (0 blocks: not blocked).
    pub tnb: usize,
    pub teblocks: usize,
    /// Element offset in E of those blocks.
    pub e_trail: usize,
    /// The look-ahead LU's side-lane panels: element offsets in E and R of their own parts
    /// (0: no such parts), beside which the main lane solves and interchanges the rest of
    /// the matrix with E's and R's starts.
    pub side_e: usize,
    pub side_r: usize,
    /// The look-ahead LU prepares only the next block before its panel forks
    /// (`SolverParams::ahead_fork_narrow`, where the plan has the side parts for it).
    pub fork_narrow: bool,
    /// getri's block of columns (0 for the other routines).
    pub wnb: usize,
    /// potri's triangular products: rows (columns) of a chunk through E's temporary.
    pub tchunk: usize,
    /// The blocked Cholesky's block width (0: the recursion) and the order of its leaves of
    /// one step (0: the recursion and trsm for its block columns; their update squares from
    /// E's start, `csquares`).
    pub cnb: usize,
    pub cleaf: usize,
    /// potri's in-place products: order of their leaves (a triangle expanded into E and
    /// multiplied as a whole; fewer, larger steps than leaves of 32).
    pub pleaf: usize,
    /// Blocks of the panel kernel (1: no exchange slots).
    pub grid: usize,
    /// i32 values per entry gathered in the workspace (host-routed pivots and info).
    pub ints: usize,
    /// i32 values per entry for the interchanges' gather lists (0: interchanges one column
    /// per thread, in order).
    pub swap: usize,
    /// The tuning values the program is built and launched with.
    pub params: SolverParams,
}

/// The solver's workspace parts by name: their sizes in bytes (`SolverPlan::workspace`), or the
/// sub-buffers a lease holds for them (`SolverWorkspace::leased`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SolverWorkspace<S> {
    /// The executor's parts for the block steps (their E sized for Cholesky's update blocks
    /// too), laid out as Level 3's plan lays out its own.
    pub blocks: BlockWorkspace<S>,
    /// i32 values per entry: host-routed pivots and info, then the interchanges' gather lists.
    pub ints: S,
    /// The panel kernel's exchange slots.
    pub exchange: S,
}

impl SolverWorkspace<Option<WorkspaceSlice>> {
    /// The parts of a lease laid out by `SolverPlan::sizes`.
    pub(crate) fn leased(lease: &WorkspaceLease<'_>) -> Self {
        let after = BlockWorkspace::PARTS;
        SolverWorkspace {
            blocks: BlockWorkspace::leased(lease, 0),
            ints: lease.buffer(after),
            exchange: lease.buffer(after + 1),
        }
    }
}

impl WorkspacePlan for SolverPlan {
    fn sizes(&self) -> SmallVec<[usize; 4]> {
        let w = self.workspace();
        let mut s = SmallVec::from_buf(w.blocks.list());
        s.extend([w.ints, w.exchange]);
        s
    }
}

impl SolverPlan {
    /// Gather lists of `swap` i32s per entry the plan has: a second for the main lane beside
    /// the look-ahead LU's side-lane panels (`fork_narrow`).
    pub(crate) fn swap_lists(&self) -> usize {
        if self.swap > 0 && self.fork_narrow {
            2
        } else {
            1
        }
    }

    /// The blocked Cholesky's leaf update squares in E: one for each leaf of a block column
    /// but its first (0 without leaves of one step).
    pub(crate) fn csquares(&self) -> usize {
        if self.cleaf > 0 {
            self.cnb.div_ceil(self.cleaf).saturating_sub(1)
        } else {
            0
        }
    }

    /// The parts' sizes in bytes.
    pub(crate) fn workspace(&self) -> SolverWorkspace<usize> {
        SolverWorkspace {
            blocks: self.p3.workspace(),
            ints: (self.ints + self.swap * self.swap_lists()) * self.p3.entries * 4,
            exchange: self.slot_bytes(),
        }
    }

    /// The panel kernels' exchange slots: two generations of the shared-memory panel's (a
    /// candidate row per block, the diagonal row, each block's best magnitude and row), then two
    /// of the register panel's (each block's record and its candidate row in tagged chunks).
    pub(crate) fn slot_bytes(&self) -> usize {
        if self.grid <= 1 {
            0
        } else {
            2 * slot_gen_bytes(self.grid, self.p3.elem)
                + 2 * regs_gen_bytes(self.grid, self.p3.elem)
        }
    }

    /// Bytes of everything but cuBLASLt's part.
    pub(crate) fn own_bytes(&self) -> usize {
        let w = self.workspace();
        let s = w.blocks;
        rounded_total(&[s.slots, s.e_blocks, s.r_results, w.ints, w.exchange]).unwrap_or(usize::MAX)
    }
}

/// Bytes of one generation of exchange slots (mirrors `lu_panel` in solver.cu).
pub(crate) fn slot_gen_bytes(grid: usize, elem: usize) -> usize {
    (grid + 1) * PANEL * elem + grid * 16
}

/// Bytes of one generation of the register panel's exchange (mirrors `RegsExchange` in
/// solver.cu): a 16-byte record per block, then per block `PANEL` columns of 16-byte chunks,
/// one per 8 bytes of a value.
pub(crate) fn regs_gen_bytes(grid: usize, elem: usize) -> usize {
    grid * 16 * (1 + PANEL * elem.div_ceil(8))
}

/// Most blocks the register panel polls (mirrors `REGS_GRID` in solver.cu).
pub(crate) const REGS_GRID: usize = 64;

/// Halves `p`'s result chunks, down to `floor` elements, while `too_big` holds for it.
fn narrow_chunks(p: &mut Plan, floor: usize, too_big: impl Fn(&Plan) -> bool) {
    while too_big(p) && p.rlen > floor {
        p.rlen = (p.rlen / 2).max(floor);
    }
}

/// The split of `nc` columns into two recursion halves: a multiple of the leaf near the middle.
pub(crate) fn split(nc: usize) -> usize {
    split_by(nc, LEAF)
}

/// `split` in multiples of `unit`.
pub(crate) fn split_by(nc: usize, unit: usize) -> usize {
    let h = (nc / 2).div_ceil(unit) * unit;
    h.clamp(1, nc - 1)
}

impl SolverShape {
    fn kmin(&self) -> usize {
        self.m.min(self.n)
    }

    fn whole_lu(&self) -> bool {
        matches!(self.kind, Kind::Getrf | Kind::GetrfNpvt) && lu_whole(self.m, self.n, self.complex)
    }

    /// The largest triangular solve of the program: (order, other dimension).
    fn solve_shape(&self) -> (usize, usize) {
        match self.kind {
            Kind::Getrs if self.interchanges_only => (0, 0),
            Kind::Getrs | Kind::Potrs => (self.m, self.n),
            // getri, potri: the triangle's inversion solves in place, without workspace.
            Kind::Getri | Kind::Potri => (0, 0),
            _ if self.whole_lu() => (0, 0),
            // Leaves of one step: no triangular solves.
            Kind::Potrf if self.chol_in_leaves() => (0, 0),
            // The blocked Cholesky's panel solves (its diagonal blocks' solves are smaller).
            Kind::Potrf if self.chol_nb().is_some() => {
                let nb = self.chol_nb().unwrap_or(0);
                (nb, self.m - nb)
            }
            Kind::Getrf | Kind::GetrfNpvt if self.params.lookahead(self.m, self.n).is_some() => {
                // The look-ahead program's widest solve: the first block row of U (its side
                // lane panels solve smaller triangles with fewer columns).
                let nb = self.params.lookahead(self.m, self.n).unwrap_or(0);
                (nb, self.n - nb)
            }
            _ => {
                let k = self.kmin();
                let leaf = if self.kind == Kind::Potrf {
                    chol_leaf(self.elem)
                } else {
                    LEAF
                };
                let top = if k > leaf {
                    let n1 = split(k);
                    (n1, k - n1)
                } else {
                    (0, 0)
                };
                if self.kind != Kind::Potrf && self.n > self.m {
                    (top.0.max(self.m), top.1.max(self.n - self.m))
                } else {
                    top
                }
            }
        }
    }

    /// The blocked Cholesky's block width, if it runs.
    fn chol_nb(&self) -> Option<usize> {
        if self.chol_in_leaves() {
            return self.params.chol_leaves_blocks(self.m);
        }
        (self.kind == Kind::Potrf)
            .then(|| self.params.chol_ahead(self.m))
            .flatten()
    }

    /// The blocked Cholesky with leaves of one step runs (real types).
    fn chol_in_leaves(&self) -> bool {
        self.kind == Kind::Potrf
            && !self.complex
            && self.params.chol_leaves_blocks(self.m).is_some()
    }

    /// Order of Cholesky's largest rank-k update of a diagonal block's recursion (the whole
    /// matrix's, unless blocked).
    fn herk_n(&self) -> usize {
        if self.kind == Kind::Potri {
            // lauum's largest rank-k update: the top level's first half.
            return if self.m > INV_NB { split(self.m) } else { 0 };
        }
        let n = self.chol_nb().unwrap_or(self.m);
        if self.kind == Kind::Potrf && !self.chol_in_leaves() && n > chol_leaf(self.elem) {
            n - split(n)
        } else {
            0
        }
    }

    /// Order of the blocked Cholesky's largest trailing update (0: not blocked).
    fn trail_n(&self) -> usize {
        self.chol_nb().map_or(0, |nb| self.m - nb)
    }

    /// The gather lists of one permutation step: a count and (destination, source) rows.
    fn swap_ints(&self) -> usize {
        let k = match self.kind {
            Kind::Getrf if !self.whole_lu() && (self.kmin() > PANEL || self.n > self.m) => {
                self.kmin()
            }
            Kind::Getrs => self.m,
            // getri's column interchanges as one permutation, applied to rows held in shared
            // memory (a row that does not fit takes the interchanges one by one).
            Kind::Getri if self.m * self.elem <= PANEL_SMEM => return self.m,
            _ => 0,
        };
        if k == 0 {
            0
        } else {
            1 + 4 * k.min(SWAP_CHUNK)
        }
    }

    fn p3_shape(&self) -> Shape {
        let (na, other) = self.solve_shape();
        Shape {
            kind: K3::Trsm,
            na,
            other,
            batch: self.batch,
            list: self.list,
            elem: self.elem,
            device_scalars: false,
            scale_only: na == 0 || other == 0,
            method: Method::Invert,
            params: Blas3Params::auto(),
        }
    }

    /// The panel kernel's blocks for one matrix at a time.
    fn full_grid(&self) -> usize {
        let lu = matches!(self.kind, Kind::Getrf | Kind::GetrfNpvt);
        if !lu || self.whole_lu() || (self.batch > 1 && !self.list) {
            return 1;
        }
        self.m
            .div_ceil(self.params.rows_per_block)
            .clamp(1, self.sms.max(1))
    }

    fn ints(&self) -> usize {
        let piv = if self.piv_host && self.kind == Kind::Getrf {
            self.kmin()
        } else {
            0
        };
        piv + usize::from(self.info_host && self.info_kind())
    }

    fn info_kind(&self) -> bool {
        matches!(
            self.kind,
            Kind::Getrf | Kind::GetrfNpvt | Kind::Potrf | Kind::Getri | Kind::Potri
        )
    }

    /// getri's block of columns for the full plan (0 for the other routines): what
    /// `getri_budget` leaves beside the integers.
    fn getri_nb(&self, p3: &Plan) -> usize {
        if self.kind != Kind::Getri {
            return 0;
        }
        let others = p3.workspace().r_results + (self.ints() + self.swap_ints()) * p3.entries * 4;
        let room = self.params.getri_budget.saturating_sub(others + 2 * CHUNK);
        let fit = room / (self.m * self.elem).max(1);
        // (at most `tri_place`: each block's unit lower diagonal block is inverted and
        // multiplied in one step each, within the shared memory of compute capability 8.0)
        (fit / 8 * 8)
            .clamp(8, self.params.getri_nb_max.min(tri_place(self.elem)))
            .min(self.m.max(1))
    }

    fn with(
        &self,
        p3: Plan,
        (hnb, heblocks): (usize, usize),
        trail: (usize, usize),
        grid: usize,
    ) -> SolverPlan {
        let mut p = SolverPlan {
            p3,
            hnb,
            heblocks,
            tnb: trail.0,
            teblocks: trail.1,
            e_trail: 0,
            side_e: 0,
            side_r: 0,
            fork_narrow: false,
            wnb: self.getri_nb(&p3),
            cnb: self.chol_nb().unwrap_or(0),
            cleaf: if self.chol_in_leaves() {
                CHOL_BLOCK_LEAF
            } else {
                0
            },
            tchunk: if self.kind == Kind::Potri {
                split(self.m.max(2)).min(self.params.potri_chunk)
            } else {
                0
            },
            pleaf: if self.kind == Kind::Potri {
                self.params.product_leaf.clamp(INV_NB, self.m.max(INV_NB))
            } else {
                0
            },
            grid,
            ints: self.ints(),
            swap: self.swap_ints(),
            params: self.params,
        };
        self.lay_out_e(&mut p);
        p
    }

    /// The look-ahead LU's side-lane panels (`ahead_fork_narrow`): E and R of their own after
    /// the main lane's, for their largest solve (a triangle of half the block width, at most
    /// as many columns) with the main lane's plan of the solves.
    fn lay_out_side(&self, p: &mut SolverPlan) {
        (p.side_e, p.side_r, p.p3.r_min, p.fork_narrow) = (0, 0, 0, false);
        let Some((e, r)) = self.side_parts(&p.p3) else {
            return;
        };
        p.fork_narrow = true;
        let layout = p.p3.layout();
        p.side_e = layout.e_elems;
        p.side_r = layout.r_elems;
        p.p3.e_min = p.side_e + e;
        p.p3.r_min = p.side_r + r;
    }

    /// Elements of E and R the look-ahead LU's side-lane panels take for themselves with the
    /// solves' plan `q` (`None`: the program has no such parts).
    fn side_parts(&self, q: &Plan) -> Option<(usize, usize)> {
        let nb = self.params.lookahead(self.m, self.n)?;
        // One large matrix only: batches (100 × 512², 20 × 2048²) ran 14 % / 5 % slower with
        // it and asked 14 % / 7 % more workspace, and orders under `ahead_wide_from` were not
        // measured. Complex double keeps the wide fork: its side parts would take the
        // workspace past 4 MiB at order 16384 (its result chunks are at their floor), and it
        // leads there.
        if !(matches!(self.kind, Kind::Getrf | Kind::GetrfNpvt)
            && self.params.ahead_fork_narrow
            && self.batch == 1
            && self.kmin() >= self.params.ahead_wide_from
            && self.elem < 16)
        {
            return None;
        }
        // The panel's largest solve: `h` rows of `U` for as many columns (left side, op N),
        // by substitution where `subst_max` covers it.
        let h = split_by(nb, LEAF);
        if h <= INV_NB || q.subst || self.params.substitutes_left(h, h) {
            return Some((0, 0));
        }
        let bs = q.nb.max(1).min(h);
        let group = if q.uses_e { q.eblocks } else { 1 }.clamp(1, h.div_ceil(bs));
        let e = if q.uses_e { group * bs * bs } else { 0 };
        let r = if q.uses_r {
            (bs * h).max(inv_temp(bs, group))
        } else {
            0
        };
        Some((e, r))
    }

    /// E's layout: the solves' inverted leaves and the diagonal recursion's update blocks
    /// share its start (they run in turn); the blocked Cholesky's trailing update blocks,
    /// which the main lane uses beside them, follow.
    fn lay_out_e(&self, p: &mut SolverPlan) {
        let q = p.p3;
        let leaves = if q.uses_e { q.eblocks * q.nb * q.nb } else { 0 };
        // getri's block of L and its inverted leaves of U use E after (or before) its solves
        // are done with theirs.
        let getri = match self.kind {
            Kind::Getri => self.m * p.wnb,
            // potri: a leaf triangle expanded, then its product or a chunk passing through.
            Kind::Potri => p.pleaf * p.pleaf + p.pleaf * p.tchunk.max(p.pleaf),
            // The blocked Cholesky's leaves' update squares.
            Kind::Potrf => p.cleaf * p.cleaf * p.csquares().max(1),
            _ => 0,
        };
        let side = leaves.max(self.herk_e(p.hnb, p.heblocks)).max(getri);
        let trail = if self.trail_n() > 0 {
            p.teblocks * p.tnb * p.tnb
        } else {
            0
        };
        p.e_trail = side;
        p.p3.e_min = side + trail;
        self.lay_out_side(p);
    }

    /// Elements of E Cholesky's update blocks take (E serves the solves' inverted blocks and
    /// these in turn).
    fn herk_e(&self, hnb: usize, heblocks: usize) -> usize {
        if self.herk_n() > 0 {
            heblocks * hnb * hnb
        } else {
            0
        }
    }

    /// The solves' plan for one entry: Level 3's full trsm plan, its result chunks narrowed
    /// until the solves fit `solve_budget` (`narrowed`); for getrs and potrs also their
    /// inverted leaves, a group at a time (getri and potri solve without workspace). The factorizations keep every leaf resident: inverting each
    /// just before its use cost potrf 54 % at order 8192 (H100); their leaves fit the budget.
    fn solves_plan(&self) -> Plan {
        let mut one = self.entry_shape();
        let mut p = self.narrowed(&one);
        // getrs, potrs: inverted leaves beyond the budget are kept a group at a time (each
        // group inverted just before its first use), in leaves of at most half the order while
        // a group would hold fewer than `solve_group_min` of them.
        if matches!(self.kind, Kind::Getrs | Kind::Potrs) && p.uses_e && !p.subst {
            loop {
                let leaves = one.na.div_ceil(p.nb.max(1));
                // A group's inversion needs its temporaries in R beside the result chunk.
                let chunk = (p.nb * one.other).min(p.rlen);
                let with = |g: usize| Plan {
                    eblocks: g,
                    rlen: chunk.max(inv_temp(p.nb, g)),
                    ..p
                };
                let budget = self.params.solve_budget;
                if with(leaves).own_bytes() <= budget {
                    break;
                }
                let g = most_entries(leaves, |g| with(g).own_bytes() <= budget).unwrap_or(1);
                if g >= self.params.solve_group_min || p.nb <= INV_NB * 4 {
                    p = with(g);
                    break;
                }
                let half = p.nb / 2;
                one.params.trsm_nb = one.params.trsm_nb.min(half);
                one.params.trsm_nb_few_rhs = one.params.trsm_nb_few_rhs.min(half);
                p = self.narrowed(&one);
            }
        }
        p
    }

    /// Level 3's full plan for `one`, its result chunks narrowed (but for the recursive
    /// Cholesky) until the solves fit `solve_budget`, down to `trsm_chunk_floor` columns.
    fn narrowed(&self, one: &Shape) -> Plan {
        let mut p = one.full();
        // The recursive Cholesky's solves keep whole result rows: narrowed to the budget they
        // cost potrf 6 % at order 8192 and 12 % at 16384 (H100), the LU 0.5-1.8 %. The
        // blocked one's run on the side lane.
        if p.uses_r && !p.subst && (self.kind != Kind::Potrf || self.chol_nb().is_some()) {
            let floor = one.trsm_chunk_floor(&p);
            // The look-ahead LU's side-lane parts come out of the same budget.
            narrow_chunks(&mut p, floor, |q| {
                let (e, r) = self.side_parts(q).unwrap_or((0, 0));
                q.own_bytes() + (e + r) * self.elem > self.params.solve_budget
            });
        }
        p
    }

    /// The solves' shape for one entry.
    fn entry_shape(&self) -> Shape {
        Shape {
            batch: 1,
            list: false,
            ..self.p3_shape()
        }
    }

    /// The plan with enough workspace (cuBLASLt's part still 0).
    pub(crate) fn full(&self) -> SolverPlan {
        let mut p3 = Plan {
            entries: 1,
            ..self.solves_plan()
        };
        let hn = self.herk_n();
        let hnb = self.params.herk_nb(hn);
        // Cholesky's update blocks share E with the solves' leaves: as many at once as the
        // solves' E holds anyway, or the budget left beside their result chunks if more.
        let w3 = p3.workspace();
        let per_block = (hnb * hnb * self.elem).max(1);
        let room = self
            .params
            .solve_budget
            .saturating_sub(w3.r_results)
            .max(w3.e_blocks)
            / per_block;
        let heblocks = hn.div_ceil(hnb).clamp(1, room.max(1));
        let trail = self.params.trail_blocks(self.trail_n(), self.elem);
        let grid = self.full_grid();
        // Batch entries at once: as the solves' plan, but at most what the budget allows.
        let mut one = self.with(Plan { entries: 1, ..p3 }, (hnb, heblocks), trail, grid);
        if !self.list {
            if self.batch > 1 && one.p3.uses_r && !one.p3.subst {
                let floor = self.entry_shape().trsm_chunk_floor(&one.p3);
                let base = one;
                narrow_chunks(&mut one.p3, floor, |q| {
                    let all = SolverPlan { p3: *q, ..base }.own_bytes();
                    all.saturating_mul(self.batch) > self.params.batch_fit
                });
                p3.rlen = one.p3.rlen;
            }
            let per = one.own_bytes().max(1);
            p3.entries = (self.params.batch_budget / per).clamp(1, self.batch.max(1));
        } else {
            p3.entries = 1;
        }
        self.with(p3, (hnb, heblocks), trail, grid)
    }

    /// The best plan whose own parts fit in `cap` bytes, or `None`.
    pub(crate) fn fitted(&self, cap: usize) -> Option<SolverPlan> {
        let mut p = self.full();
        let shape3 = self.p3_shape();
        while p.own_bytes() > cap {
            if p.p3.entries > 1 {
                let q = p;
                let e = crate::common::plan::most_entries(q.p3.entries - 1, |e| {
                    let mut r = q;
                    r.p3.entries = e;
                    r.own_bytes() <= cap
                })
                .unwrap_or(1);
                p.p3.entries = e;
                continue;
            }
            if p.swap > 0 {
                p.swap = 0;
                continue;
            }
            if p.grid > 1 {
                p.grid = (p.grid / 2).max(1);
                continue;
            }
            if self.trail_n() > 0 && p.teblocks > 1 {
                p.teblocks = 1;
                self.lay_out_e(&mut p);
                continue;
            }
            if p.heblocks > 1 {
                p.heblocks = 1;
                self.lay_out_e(&mut p);
                continue;
            }
            if self.trail_n() > 0 && p.tnb > 8 {
                p.tnb = (p.tnb / 2).max(8);
                self.lay_out_e(&mut p);
                continue;
            }
            if p.pleaf > INV_NB {
                p.pleaf = (p.pleaf / 2).max(INV_NB);
                self.lay_out_e(&mut p);
                continue;
            }
            if p.tchunk > 8 {
                p.tchunk = (p.tchunk / 2).max(8);
                self.lay_out_e(&mut p);
                continue;
            }
            if p.wnb > 8 {
                p.wnb = (p.wnb / 2).max(8);
                self.lay_out_e(&mut p);
                continue;
            }
            if self.herk_n() > 0 && p.hnb > 8 {
                p.hnb = (p.hnb / 2).max(8);
                self.lay_out_e(&mut p);
                continue;
            }
            if p.cleaf > 0 {
                // No room for the leaves' update square: the recursion and trsm instead.
                let params = SolverParams {
                    chol_leaves: false,
                    ..self.params
                };
                return SolverShape { params, ..*self }.fitted(cap);
            }
            // The solves' own reduced plans, down to substitution.
            let room =
                cap.saturating_sub(p.workspace().ints.div_ceil(CHUNK) * CHUNK + p.slot_bytes());
            let others = p.p3.e_min - p.e_trail + self.herk_e(p.hnb, p.heblocks);
            let room3 = room.saturating_sub(others * self.elem);
            let q3 = shape3.fitted(room3)?;
            let mut q = SolverPlan {
                p3: Plan { entries: 1, ..q3 },
                ..p
            };
            self.lay_out_e(&mut q);
            if q == p {
                return None;
            }
            p = q;
            let least_blocks = (self.herk_n() == 0 || p.hnb <= 8)
                && (self.trail_n() == 0 || p.tnb <= 8)
                && p.wnb <= 8
                && p.tchunk <= 8
                && p.pleaf <= INV_NB;
            if p.own_bytes() > cap && p.p3.subst && least_blocks {
                return None;
            }
        }
        Some(p)
    }

    /// Explains the minimum, for `MemoryError`.
    pub(crate) fn minimum_text(&self) -> String {
        let mut t = format!(
            "needs at least {} i32 values per batch entry (pivots and info routed to host memory)",
            self.ints()
        );
        if self.herk_n() > 0 || self.trail_n() > 0 {
            let blocks = usize::from(self.herk_n() > 0) + usize::from(self.trail_n() > 0);
            t.push_str(&format!(
                " and {} 8 × 8 block{} of {} bytes per element (Cholesky's updates)",
                if blocks == 1 { "one" } else { "two" },
                if blocks == 1 { "" } else { "s" },
                self.elem
            ));
        }
        if self.kind == Kind::Potri {
            t.push_str(&format!(
                " and two 32 × 32 blocks of {} bytes per element (a leaf of the product and \
                 its result)",
                self.elem
            ));
        }
        if self.kind == Kind::Getri {
            t.push_str(&format!(
                " and {} × 8 elements (getri's block of L)",
                self.m
            ));
        }
        t.push_str(&format!("; workspace is handed out in {CHUNK}-byte chunks"));
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of a one-matrix f64 call with pivots and info on the device, on a device of
    /// 132 SMs (the H100).
    fn f64_on_h100(kind: Kind, n: usize) -> SolverShape {
        SolverShape {
            kind,
            m: n,
            n,
            batch: 1,
            list: false,
            elem: 8,
            complex: false,
            piv_host: false,
            info_host: false,
            sms: 132,
            params: SolverParams::auto(),
            interchanges_only: false,
        }
    }

    /// The plan and program of one square getri or potri of order `n` (lower for potri), of
    /// f64 (`elem` 8) or complex double (16), on the H100's shape.
    fn inverse_program(
        kind: Kind,
        n: usize,
        elem: usize,
    ) -> (SolverPlan, Vec<crate::solver::program::Step>) {
        use crate::solver::program::{build, Prog};
        let s = SolverShape {
            elem,
            complex: elem == 16,
            ..f64_on_h100(kind, n)
        };
        let p = s.full();
        let g = Prog {
            kind,
            op: crate::Op::N,
            uplo: crate::Uplo::Lower,
            m: n,
            n,
            ld_factors: n,
            ld_written: n,
            interchanges_only: false,
        };
        let steps = if elem == 16 {
            build::<num_complex::Complex64>(&g, &p)
        } else {
            build::<f64>(&g, &p)
        };
        (p, steps)
    }

    /// getri's and potri's triangle inversion: every full leaf of `tri_place` inverted in
    /// place in one step and a shorter last one in another, before the solves (getri's unit
    /// blocks of `L` are counted apart).
    /// The whole 128² LU runs half in shared memory (two blocks an SM) only for real double
    /// batches of more entries than SMs; its shared memory is the 16 slots a thread there.
    #[test]
    fn whole_lu_kernel_by_batch_and_type() {
        assert_eq!(lur128_kernel(8, false, 133, 132), ("half", 65536));
        assert_eq!(lur128_kernel(8, false, 132, 132), ("", 0));
        assert_eq!(lur128_kernel(8, false, 1, 132), ("", 0));
        assert_eq!(lur128_kernel(4, false, 1000, 132), ("", 0));
        assert_eq!(lur128_kernel(8, true, 1000, 132), ("", 0));
    }

    #[test]
    fn f4_triangle_inverse_leaves_in_one_step() {
        use crate::exec::program::{Space, Step};
        use crate::solver::program::SolverStep;
        for (kind, n, elem, leaves) in [
            (Kind::Getri, 8192, 8, vec![(128, 64)]),
            (Kind::Getri, 8200, 8, vec![(128, 64), (8, 1)]),
            (Kind::Potri, 1000, 8, vec![(128, 7), (104, 1)]),
            (Kind::Getri, 1000, 16, vec![(64, 15), (40, 1)]),
        ] {
            let (_, steps) = inverse_program(kind, n, elem);
            let got: Vec<(usize, usize)> = steps
                .iter()
                .filter_map(|st| match st {
                    Step::Family(SolverStep::TriInvPlace {
                        n,
                        count,
                        a,
                        unit: false,
                        ..
                    }) => {
                        assert_eq!(a.sp, Space::C);
                        assert!(*count == 1 || a.bs == n * (a.ld + 1));
                        Some((*n, *count))
                    }
                    _ => None,
                })
                .collect();
            assert_eq!(got, leaves, "{kind:?} {n}");
        }
    }

    /// F4: getri 8192 inverts `U` without workspace in 241 steps after its start and info
    /// steps (2,116 with the solves' leaves inverted into E and their products through R): a
    /// level's nodes go as one set of steps, from the one node of 8192 to 32 of 256; its blocks
    /// of `L` widen to 128 columns toward the right within E's 8192 × 56 elements.
    #[test]
    fn f4_getri_inverts_u_by_levels_without_workspace() {
        use crate::exec::program::Step;
        use crate::solver::program::SolverStep;
        let (p, steps) = inverse_program(Kind::Getri, 8192, 8);
        assert_eq!(p.p3.workspace().r_results, 0);
        assert_eq!(p.wnb, 56);
        let unit_inverses = steps
            .iter()
            .position(|st| matches!(st, Step::Family(SolverStep::TriInvPlace { unit: true, .. })))
            .unwrap_or(steps.len());
        assert_eq!(unit_inverses, 243);
        let first_take = steps
            .iter()
            .position(|st| matches!(st, Step::Family(SolverStep::TakeLower { .. })))
            .unwrap_or(steps.len());
        // L's diagonal blocks inverted in place, one step per width.
        assert_eq!(first_take - unit_inverses, 11);
        // (order of the multiplied leaves' node pairs, nodes per step)
        let mut counts: Vec<usize> = steps[..unit_inverses]
            .iter()
            .filter_map(|st| match st {
                Step::Family(SolverStep::TriMulPlace { count, .. }) => Some(*count),
                _ => None,
            })
            .collect();
        counts.dedup();
        assert_eq!(counts, vec![1, 2, 4, 8, 16, 32]);
        let widths: Vec<usize> = steps[first_take..]
            .iter()
            .filter_map(|st| match st {
                Step::Family(SolverStep::TakeLower { cols, rows, .. }) => {
                    assert!(cols * rows <= 8192 * 56);
                    Some(*cols)
                }
                _ => None,
            })
            .collect();
        assert_eq!(widths.iter().sum::<usize>(), 8192);
        // 28 blocks of 128, then narrower down to 56 (and the 48 left over): 91 blocks
        // instead of 147 of 56.
        assert_eq!(
            (widths.len(), widths[0], widths[27], widths[28]),
            (91, 128, 128, 120)
        );
        assert!(widths[28..].windows(2).all(|w| w[0] >= w[1] && w[1] >= 48));
    }

    /// F4: getri's one-step triangles (inverted or multiplied in place) never exceed
    /// `tri_place` (64 for complex double: its shared memory at 128 is past compute capability
    /// 8.0's 163 KB), whatever the budget leaves for the blocks of `L`.
    #[test]
    fn f4_getri_triangles_within_one_step() {
        use crate::exec::program::Step;
        use crate::solver::program::{tri_place, SolverStep};
        for (elem, n) in [
            (8, 200),
            (8, 1000),
            (8, 5000),
            (16, 200),
            (16, 1000),
            (16, 3000),
        ] {
            let (_, steps) = inverse_program(Kind::Getri, n, elem);
            let most = steps
                .iter()
                .filter_map(|st| match st {
                    Step::Family(SolverStep::TriInvPlace { n, .. })
                    | Step::Family(SolverStep::TriMulPlace { n, .. }) => Some(*n),
                    Step::Family(SolverStep::TakeLower { cols, .. }) => Some(*cols),
                    _ => None,
                })
                .max();
            assert_eq!(most, Some(tri_place(elem)), "elem {elem}, n {n}");
        }
    }

    /// M11 (parts of a lease never overlap in use): the look-ahead LU's side-lane panels use
    /// E and R only from `side_e` / `side_r` on, the main lane's steps beside them only
    /// before those offsets, and no step reaches past the plan's E and R (f32, f64, complex
    /// double; square, tall and wide; blocks of 128 and 512).
    #[test]
    fn m11_lookahead_lanes_use_disjoint_parts() {
        use crate::exec::program::{Space, Step};
        use crate::solver::program::{build, Prog, SolverStep};
        use num_complex::Complex64;
        fn check<T: crate::common::elem::Scalar>(m: usize, n: usize) {
            let elem = std::mem::size_of::<T>();
            let s = SolverShape {
                m,
                n,
                elem,
                complex: elem == 16,
                ..f64_on_h100(Kind::Getrf, 0)
            };
            let p = s.full();
            if elem == 16 {
                assert!(!p.fork_narrow, "complex double keeps the wide fork");
                return;
            }
            assert!(
                p.fork_narrow && p.side_e > 0 && p.side_r > 0,
                "{m}×{n}: no side parts"
            );
            let g = Prog {
                kind: Kind::Getrf,
                op: crate::Op::N,
                uplo: crate::Uplo::Lower,
                m,
                n,
                ld_factors: m,
                ld_written: m,
                interchanges_only: false,
            };
            let lay = p.p3.layout();
            let (mut lane, mut forks) = (0, 0);
            for st in build::<T>(&g, &p) {
                let mut x = st;
                let (e, r) = (x.extent(Space::E), x.extent(Space::R));
                assert!(
                    e <= lay.e_elems && r <= lay.r_elems,
                    "{m}×{n}: {st:?} past E/R"
                );
                match st {
                    Step::Fork => (lane, forks) = (1, forks + 1),
                    Step::Back => lane = 2,
                    Step::Join => lane = 0,
                    Step::Family(SolverStep::Swap { list, .. }) => {
                        // The panel's interchanges through the first gather list, the main
                        // lane's beside it through the second.
                        assert_eq!(list, usize::from(lane == 2), "{m}×{n}: lane {lane} {st:?}");
                        assert!(p.swap_lists() == 2 && p.swap > 0);
                    }
                    _ if lane == 1 => {
                        let (se, sr) = (x.start(Space::E), x.start(Space::R));
                        assert!(
                            se.is_none_or(|o| o >= p.side_e),
                            "{m}×{n}: side {st:?} in main E"
                        );
                        assert!(
                            sr.is_none_or(|o| o >= p.side_r),
                            "{m}×{n}: side {st:?} in main R"
                        );
                    }
                    _ if lane == 2 => {
                        assert!(
                            e <= p.side_e && r <= p.side_r,
                            "{m}×{n}: main {st:?} in side parts"
                        );
                    }
                    _ => {}
                }
            }
            assert!(forks > 1, "{m}×{n}: not the look-ahead program");
            // Within the bound at the bench's orders (cuSOLVER's bufferSize is under
            // 2 MiB there).
            assert!(
                m < 8192 || p.own_bytes() <= 4 << 20,
                "{m}×{n}: {}",
                p.own_bytes()
            );
        }
        // Batches and orders under `ahead_wide_from` keep the wide fork.
        for (m, batch) in [(512, 100), (2048, 20), (2048, 1)] {
            let s = SolverShape {
                m,
                n: m,
                batch,
                ..f64_on_h100(Kind::Getrf, 0)
            };
            assert!(!s.full().fork_narrow, "{batch} × {m}²");
        }
        for (m, n) in [
            (8192, 8192),
            (4096, 4096),
            (9000, 4100),
            (4100, 9000),
            (16384, 16384),
        ] {
            check::<f64>(m, n);
            check::<f32>(m, n);
            check::<Complex64>(m, n);
        }
    }

    /// What a full-speed getrf of 32768 (f64, one matrix, pivots and info on the device)
    /// leases, part by part, on a device of 132 SMs (the H100): NOTES lists these numbers.
    #[test]
    fn getrf_32768_parts_on_an_h100() {
        let s = f64_on_h100(Kind::Getrf, 32768);
        let p = s.full();
        let w = p.workspace();
        let b = w.blocks;
        eprintln!(
            "getrf 32768 f64: slots {} E {} R {} ints {} exchange {} (grid {}), lt {}; own {}",
            b.slots,
            b.e_blocks,
            b.r_results,
            w.ints,
            w.exchange,
            p.grid,
            b.lt,
            p.own_bytes()
        );
        assert!(p.own_bytes() <= 4 << 20, "{}", p.own_bytes());
        assert_eq!(
            w.exchange,
            2 * slot_gen_bytes(132, 8) + 2 * regs_gen_bytes(132, 8)
        );
    }

    /// What a full-speed Cholesky (f64, one matrix) leases at the bench's orders, part by
    /// part: within 4 MiB (the bound, cuSOLVER's `bufferSize` being under 2 MiB) up to
    /// 16384 and within twice cuSOLVER's 4,194,432 bytes at 32768.
    #[test]
    fn potrf_parts_at_bench_orders() {
        for (n, most) in [(8192, 4 << 20), (16384, 4 << 20), (32768, 2 * 4_194_432)] {
            let s = f64_on_h100(Kind::Potrf, n);
            let p = s.full();
            let b = p.workspace().blocks;
            eprintln!(
                "potrf {n} f64: E {} (trailing blocks {} × {}² from {}) R {}; own {}",
                b.e_blocks,
                p.teblocks,
                p.tnb,
                p.e_trail,
                b.r_results,
                p.own_bytes()
            );
            assert!(p.own_bytes() <= most, "{n}: {}", p.own_bytes());
        }
    }

    /// The blocked Cholesky's leaves of one step need their update squares in E (one for each
    /// leaf of a block column but its first): a workspace without room for them falls back to
    /// the recursion and trsm (reduced, not refused), and complex types never take them.
    #[test]
    fn potrf_leaves_fall_back_without_their_square() {
        let s = f64_on_h100(Kind::Potrf, 8192);
        let full = s.full();
        assert_eq!(full.cleaf, CHOL_BLOCK_LEAF);
        assert!(full.cnb > 0);
        assert_eq!(full.csquares(), full.cnb / CHOL_BLOCK_LEAF - 1);
        let square = CHOL_BLOCK_LEAF * CHOL_BLOCK_LEAF * 8;
        let own = full.own_bytes();
        assert_eq!(s.fitted(own), Some(full));
        let small = s
            .fitted(square / 2)
            .expect("the recursion fits half the square");
        assert_eq!(small.cleaf, 0);
        assert!(small.own_bytes() <= square / 2, "{}", small.own_bytes());
        let complex = SolverShape {
            complex: true,
            elem: 16,
            ..s
        };
        assert_eq!(complex.full().cleaf, 0);
    }

    /// getri and potri keep their own parts within 4 MiB (issue 31's bound: cuSOLVER's getrf
    /// and potrf `bufferSize` are under 2 MiB there) at the bench's orders: their solves' leaves
    /// go a group at a time and getri's block of L narrows to fit its budget.
    #[test]
    fn inverses_within_4_mib() {
        for kind in [Kind::Getri, Kind::Potri] {
            for n in [4096, 8192, 16384] {
                let p = f64_on_h100(kind, n).full();
                assert!(
                    p.own_bytes() <= 4 << 20,
                    "{kind:?} {n}: {} {:?} {:?}",
                    p.own_bytes(),
                    p.workspace(),
                    (p.p3.nb, p.p3.eblocks, p.p3.rlen, p.wnb)
                );
            }
        }
    }

    /// A batch narrows its result chunks until all its entries fit `batch_fit` at once, down to
    /// trsm's floor: 20 LUs of 2048² fit the default workspace in one group; 100 of 512² are at
    /// the floor and keep their chunks (and their 53 MB), in one group.
    #[test]
    fn batches_narrow_their_chunks_to_fit_at_once() {
        let mut s = f64_on_h100(Kind::Getrf, 2048);
        let whole = s.full();
        s.batch = 20;
        let p = s.full();
        assert_eq!(p.p3.entries, 20);
        assert!(p.p3.rlen < whole.p3.rlen, "{} {}", p.p3.rlen, whole.p3.rlen);
        assert!(p.own_bytes() <= s.params.batch_fit, "{}", p.own_bytes());
        let mut s = f64_on_h100(Kind::Getrf, 512);
        let whole = s.full();
        s.batch = 100;
        let p = s.full();
        assert_eq!((p.p3.entries, p.p3.rlen), (100, whole.p3.rlen));
        assert!(p.own_bytes() > s.params.batch_fit, "{}", p.own_bytes());
    }
}
