//! The QR family's workspace need, from one function (F4): [`QrShape::full`] for full speed,
//! [`QrShape::fitted`] under a fixed workspace (fewer entries at once, narrower chunks, a
//! one-block panel, narrower blocks: `PerfDegraded`, the same answer within rounding).

use super::Kind;
use crate::exec::workspace::BlockWorkspace;
use crate::exec::Layout;
use crate::memory::{rounded_total, WorkspaceSlice, CHUNK};
use crate::WorkspaceLease;
use smallvec::SmallVec;

/// Tuning values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct QrParams {
    /// Reflectors per block of geqrf (the panel's width, `T`'s order).
    pub nb: usize,
    /// Reflectors per block of ormqr and orgqr (no panel: wider blocks make the block
    /// reflector's products less bound by memory), and of geqrf's block reflectors, whose
    /// columns are factored by panels of `nb` (each updating the rest of its block).
    pub nb_apply: usize,
    /// Bytes of `W` and `W2` per entry: the trailing update's chunk width follows.
    pub chunk_budget: usize,
    /// Narrowest chunk the reduced plans go to.
    pub rc_min: usize,
    /// Narrowest block the reduced plans go to.
    pub nb_min: usize,
    /// Panel rows per block of the panel kernel's grid.
    pub rows_per_block: usize,
    /// Most blocks of one entry's panel.
    pub grid_max: usize,
    /// cuBLASLt's part at most (bytes).
    pub engine_budget: usize,
    /// Bytes of the family's own parts for all entries run at once: a batch narrows its chunks
    /// (down to 64) so that its entries fit in this at once, which keeps it inside a default
    /// handle's 32 MiB beside cuBLASLt's part.
    pub batch_fit: usize,
    /// A panel is factored by CholeskyQR2 when its rows are at least this many times its
    /// columns (and at least `cholqr_min_rows`): tall enough that reading it three times costs
    /// less than the Householder panel's pass per column.
    pub cholqr_ratio: usize,
    /// Fewest rows of a CholeskyQR2 panel.
    pub cholqr_min_rows: usize,
    /// Blocks an SM of CholeskyQR2's passes (their partial Grams are the workspace).
    pub cholqr_blocks_per_sm: usize,
    /// Fewest partial Grams the reduced plans go to before they drop CholeskyQR2.
    pub cholqr_min_blocks: usize,
    /// Bytes of ormqr's and orgqr's `T` factors made ahead: where all of a call's blocks' fit,
    /// they are made before any is applied, in one launch (one block's `T` took about 75 µs,
    /// 4.8 ms of ormqr 8192's 64 blocks in a row on the H200).
    pub t_ahead_budget: usize,
}

impl QrParams {
    /// The values the library runs with.
    pub(crate) fn auto() -> Self {
        QrParams {
            nb: 64,
            nb_apply: 128,
            chunk_budget: 16 << 20,
            rc_min: 8,
            nb_min: 4,
            rows_per_block: 256,
            grid_max: 128,
            engine_budget: 4 << 20,
            batch_fit: 28 << 20,
            cholqr_ratio: 8,
            cholqr_min_rows: 512,
            cholqr_blocks_per_sm: 2,
            cholqr_min_blocks: 8,
            t_ahead_budget: 12 << 20,
        }
    }
}

/// What the need depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct QrShape {
    pub kind: Kind,
    /// ormqr applies from the left.
    pub left: bool,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub batch: usize,
    pub list: bool,
    pub elem: usize,
    pub sms: usize,
    /// The device runs CholeskyQR2 panels for this element type (CUDA, f64, enough shared
    /// memory: `cholqr_fits`).
    pub cholqr: bool,
    /// Shared-memory bytes one block may take for `qr_whole` (the device's opt-in limit; 0 on
    /// the host: never).
    pub whole_smem: usize,
    pub params: QrParams,
}

/// A chosen plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct QrPlan {
    /// Reflectors per block (block reflector).
    pub nb: usize,
    /// geqrf: columns per panel within a block (`nb` when a block is one panel).
    pub inner: usize,
    /// Columns (left) or rows (right) of the trailing matrix per chunk.
    pub rc: usize,
    /// Blocks of one entry's panel (1: no exchange).
    pub grid: usize,
    /// The program has block reflectors (E and R): not a geqrf of one block.
    pub blocks: bool,
    /// A geqrf of matrices of at most `SMALL` × `SMALL` (one warp each) or of at most
    /// `WHOLE_COLS` columns that fit one block's shared memory (`whole`: one block each): one
    /// kernel, no workspace.
    pub small: bool,
    pub whole: bool,
    /// Batch entries at once.
    pub entries: usize,
    pub elem: usize,
    /// cuBLASLt's part (bytes).
    pub lt: usize,
    /// gelqf and ormlq: rows of the transposed copy of a block of reflectors (their length at
    /// most; 0 for the others).
    pub tp: usize,
    /// geqrf's CholeskyQR2 panels: partial Grams per entry (its passes' blocks at most); 0:
    /// every panel is Householder's.
    pub cq: usize,
    /// ormqr and orgqr: blocks whose `T` is made ahead, all at once (every block of the call,
    /// in E after `V1` and `T`); 0: each block's `T` just before it is applied.
    pub tall: usize,
    pub params: QrParams,
}

/// The family's workspace parts: sizes in bytes, or the sub-buffers a lease holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct QrWorkspace<S> {
    /// The executor's parts (E: `V1` and `T`; R: `G`, `X`, `W`, `W2`).
    pub blocks: BlockWorkspace<S>,
    /// The panel kernel's exchange: per entry a barrier counter, each block's partial norm and
    /// partial products.
    pub exchange: S,
    /// The CholeskyQR2 panels' part: per entry `G`, `R1`, `W`, the flag, the partial Grams.
    pub cholqr: S,
}

impl QrWorkspace<Option<WorkspaceSlice>> {
    /// The parts of a lease laid out by `QrPlan::sizes`.
    pub(crate) fn leased(lease: &WorkspaceLease<'_>) -> Self {
        QrWorkspace {
            blocks: BlockWorkspace::leased(lease, 0),
            exchange: lease.buffer(BlockWorkspace::PARTS),
            cholqr: lease.buffer(BlockWorkspace::PARTS + 1),
        }
    }
}

impl crate::common::plan::WorkspacePlan for QrPlan {
    fn sizes(&self) -> SmallVec<[usize; 4]> {
        let w = self.workspace();
        let mut s = SmallVec::from_buf(w.blocks.list());
        s.push(w.exchange);
        s.push(w.cholqr);
        s
    }
}

/// Most columns of a panel (`QR_NB` in qr.cu): geqrf's block width at most.
pub(crate) const NB_MAX: usize = 64;

/// Most columns orgqr's row-local block kernel forms at once (`QR_ORG_COLS` in qr.cu): orgqr's
/// blocks are at most this wide.
pub(crate) const ORG_COLS: usize = 128;

/// Most bytes of `T` built in shared memory (`qr_tfactor`): ormqr's blocks are as wide as
/// `QrParams::nb_apply` allows within it.
const TFACTOR_SMEM: usize = 144 << 10;

/// Elements of shared memory `qr_tfactor` takes for `T` of order `k` (rows padded by one).
pub(crate) fn tfactor_smem(k: usize) -> usize {
    k * (k + 1)
}

/// Most bytes of a panel block's rows kept in shared memory (`qr_panelsm`); taller panels
/// work in global memory and re-read their rows once per column.
pub(crate) const PANEL_SMEM: usize = 160 << 10;

/// Largest order of a matrix factored by one warp (`qr_small`).
pub(crate) const SMALL: usize = 32;

/// Most columns and rows of a matrix factored whole in one block's shared memory (`qr_whole`;
/// taller ones are faster on many blocks: CholeskyQR2 or the panel's grid).
pub(crate) const WHOLE_COLS: usize = 128;
pub(crate) const WHOLE_ROWS: usize = 512;

/// Shared-memory bytes `qr_whole` takes for a `m × n` matrix (ld `m + 1`, then `n` of `w`).
pub(crate) fn whole_bytes(m: usize, n: usize, elem: usize) -> usize {
    ((m + 1) * n + n) * elem
}

/// Narrowest block a tall panel is cut to (its per-column passes cover at most this many
/// columns; the rest is products).
const NB_TALL: usize = 16;

/// Bytes of one entry's exchange (mirrors `PanelExchange` in qr.cu): a 64-byte header (the
/// barrier counter and where the last panel left it), each block's partial sums of squares of
/// every column (16 bytes each), then two sets (alternating by column) of each block's
/// `NB_MAX` partial products, two rows of `NB_MAX` and four values, and each block's partial
/// norm (16 bytes).
pub(crate) fn exchange_entry_bytes(grid: usize, elem: usize) -> usize {
    let set = grid * NB_MAX * elem + (2 * NB_MAX + 4) * elem + grid * 16;
    64 + grid * NB_MAX * 16 + 2 * set
}

/// Byte offset of the flag in an entry's CholeskyQR2 part (`FLAG` in cholqr.cu): after `G`,
/// `R1` and `W` (64 × 64 doubles each).
pub(crate) const CQ_FLAG: usize = 3 * 64 * 64 * 8;

/// Byte offset of the partial Grams (`PARTS` in cholqr.cu): after a 256-byte slot with the
/// flag and the columns' mask.
const CQ_FIXED: usize = CQ_FLAG + 256;

/// Rows of a CholeskyQR2 pass's tile (`TR` in cholqr.cu).
pub(crate) const CQ_TILE: usize = 128;

/// The CholeskyQR2 kernels' width for a panel of `cols` columns (16, 32 or 64).
pub(crate) fn cq_nc(cols: usize) -> usize {
    match cols {
        0..=16 => 16,
        17..=32 => 32,
        _ => 64,
    }
}

/// Doubles of one block's partial Gram at width `nc` (the upper 4 × 4 tiles).
pub(crate) fn cq_part(nc: usize) -> usize {
    let t = nc / 4;
    t * (t + 1) / 2 * 16
}

/// Dynamic shared memory of CholeskyQR2's Gram pass (bytes; a tile, cholqr.cu's `Cfg`).
pub(crate) fn cq_gram_smem(nc: usize) -> usize {
    CQ_TILE * (nc + 4) * 8
}

/// Dynamic shared memory of CholeskyQR2's substitution passes: the tile, `-R` (row-major, the
/// tile's row stride) and the diagonal's reciprocals.
pub(crate) fn cq_solve_smem(nc: usize) -> usize {
    (CQ_TILE * (nc + 4) + nc * (nc + 4) + nc) * 8
}

/// Dynamic shared memory of `qr_cqlu{16,32,64}_d` (cholqr.cu's `LU_*`, at 64 for every width).
pub(crate) const CQ_LU_SMEM: usize = (64 * 68 + (64 * 68 + 64) + 2 * 64 * 65) * 8;

/// Dynamic shared memory of `qr_cqchol1{16,32,64}_d`.
pub(crate) const CQ_CHOL1_SMEM: usize = 64 * 65 * 8;

/// Whether a device whose blocks may opt into `optin` bytes of shared memory runs the
/// CholeskyQR2 kernels (beside their static parts, at most 4 KiB).
pub(crate) fn cholqr_fits(optin: usize) -> bool {
    optin >= CQ_LU_SMEM.max(cq_solve_smem(64)) + (4 << 10)
}

/// Bytes of one entry's CholeskyQR2 part for `blocks` partial Grams at width `nc`, each with
/// its columns' mask.
pub(crate) fn cholqr_entry_bytes(blocks: usize, nc: usize) -> usize {
    (CQ_FIXED + blocks * (cq_part(nc) + 1) * 8).next_multiple_of(256)
}

impl QrPlan {
    /// Whether geqrf's panel of `rows × cols` is factored by CholeskyQR2.
    pub(crate) fn cholqr_panel(&self, rows: usize, cols: usize) -> bool {
        let p = &self.params;
        self.cq > 0 && cols <= NB_MAX && rows >= p.cholqr_min_rows.max(p.cholqr_ratio * cols)
    }

    /// Bytes of one entry's CholeskyQR2 part (0 without CholeskyQR2 panels).
    pub(crate) fn cholqr_per_entry(&self) -> usize {
        if self.cq > 0 {
            cholqr_entry_bytes(self.cq, cq_nc(self.inner))
        } else {
            0
        }
    }

    /// Elements of E per entry.
    fn e_elems(&self) -> usize {
        if self.blocks {
            2 * self.nb * self.nb + self.inner_e() + self.tall * self.nb * self.nb
        } else {
            0
        }
    }

    /// geqrf's panels within a block, on the side lane beside the main lane's block reflector:
    /// their own `V1` and `T` (E), `G`, `X`, `W` and `W2` (R; `W` as wide as a block).
    fn inner_e(&self) -> usize {
        if self.inner < self.nb {
            2 * self.inner * self.inner
        } else {
            0
        }
    }

    fn inner_r(&self) -> usize {
        if self.inner < self.nb {
            2 * self.inner * self.inner + 2 * self.inner * self.nb
        } else {
            0
        }
    }

    /// The plan with blocks of one panel each (geqrf's reduced plans).
    fn one_panel_blocks(self) -> QrPlan {
        QrPlan {
            nb: self.inner,
            ..self
        }
    }

    /// Element offset in E of the first block's `T` made ahead (`tall`).
    pub(crate) fn tall_base(&self) -> usize {
        2 * self.nb * self.nb + self.inner_e()
    }

    /// Element offsets of the panels' own parts in E and R.
    pub(crate) fn inner_bases(&self) -> (usize, usize) {
        (2 * self.nb * self.nb, self.r_elems() - self.inner_r())
    }

    /// Elements of R per entry.
    fn r_elems(&self) -> usize {
        if self.blocks {
            2 * self.nb * self.nb + 2 * self.nb * self.rc + self.tp * self.nb + self.inner_r()
        } else {
            0
        }
    }

    /// The executor's layout of E and R.
    pub(crate) fn layout(&self) -> Layout {
        Layout {
            entries: self.entries,
            e_elems: self.e_elems(),
            r_elems: self.r_elems(),
        }
    }

    /// Bytes of one entry's exchange (0 for a one-block panel).
    pub(crate) fn exchange_per_entry(&self) -> usize {
        if self.grid > 1 {
            exchange_entry_bytes(self.grid, self.elem)
        } else {
            0
        }
    }

    /// The parts' sizes in bytes.
    pub(crate) fn workspace(&self) -> QrWorkspace<usize> {
        QrWorkspace {
            blocks: BlockWorkspace {
                lt: self.lt,
                slots: 0,
                e_blocks: self.e_elems() * self.entries * self.elem,
                r_results: self.r_elems() * self.entries * self.elem,
            },
            exchange: self.exchange_per_entry() * self.entries,
            cholqr: self.cholqr_per_entry() * self.entries,
        }
    }

    /// Bytes of everything but cuBLASLt's part.
    pub(crate) fn own_bytes(&self) -> usize {
        let w = self.workspace();
        rounded_total(&[w.blocks.e_blocks, w.blocks.r_results, w.exchange, w.cholqr])
            .unwrap_or(usize::MAX)
    }
}

impl QrShape {
    /// Reflectors of the call.
    fn reflectors(&self) -> usize {
        match self.kind {
            Kind::Geqrf | Kind::Gelqf => self.m.min(self.n),
            _ => self.k,
        }
    }

    /// Length of the reflectors gelqf and ormlq transpose (0: none).
    fn transposed(&self) -> usize {
        match self.kind {
            Kind::Gelqf => self.n,
            Kind::Ormlq if self.left => self.m,
            Kind::Ormlq => self.n,
            _ => 0,
        }
    }

    /// Rows a panel spans (geqrf: the matrix's; gelqf: its transposed rows').
    fn panel_rows(&self) -> usize {
        if self.kind == Kind::Gelqf {
            self.n
        } else {
            self.m
        }
    }

    /// The widest trailing update a chunk divides: columns (left) or rows (right of ormqr).
    fn trailing(&self, nb: usize) -> usize {
        match self.kind {
            Kind::Geqrf | Kind::Orgqr => self.n.saturating_sub(nb.min(self.reflectors())),
            // gelqf: the rows below each block of rows.
            Kind::Gelqf => self.m.saturating_sub(nb.min(self.reflectors())),
            Kind::Ormqr | Kind::Ormlq if self.left => self.n,
            Kind::Ormqr | Kind::Ormlq => self.m,
        }
    }

    /// Rows of the first panel (geqrf only has panels).
    fn panel_grid(&self, entries: usize) -> usize {
        if !matches!(self.kind, Kind::Geqrf | Kind::Gelqf) {
            return 1;
        }
        let p = &self.params;
        let by_rows = self.panel_rows().div_ceil(p.rows_per_block.max(1));
        // A cooperative launch: every entry's blocks resident at once, one per SM at most.
        by_rows
            .min(p.grid_max)
            .min(self.sms / entries.max(1))
            .max(1)
    }

    fn small(&self) -> bool {
        self.kind == Kind::Geqrf && self.m <= SMALL && self.n <= SMALL
    }

    /// A geqrf that one block factors whole in shared memory (larger than `small`).
    fn whole(&self) -> bool {
        self.kind == Kind::Geqrf
            && !self.small()
            && self.n <= WHOLE_COLS
            && self.m <= WHOLE_ROWS
            && whole_bytes(self.m, self.n, self.elem) <= self.whole_smem
    }

    /// geqrf's panels may be CholeskyQR2's: the device runs it and the first panel qualifies.
    fn cholqr_shape(&self) -> bool {
        let p = &self.params;
        self.cholqr
            && self.kind == Kind::Geqrf
            && !self.small()
            && !self.whole()
            && self.m >= p.cholqr_min_rows.max(p.cholqr_ratio * self.n.min(NB_MAX))
    }

    /// Partial Grams per entry of CholeskyQR2 panels: the first panel's tiles, within the
    /// blocks an SM allow for `entries` at once.
    fn cholqr_blocks(&self, entries: usize) -> usize {
        if !self.cholqr_shape() {
            return 0;
        }
        let p = &self.params;
        let by_sms = (p.cholqr_blocks_per_sm * self.sms / entries.max(1)).max(1);
        self.m.div_ceil(CQ_TILE).min(by_sms)
    }

    /// `nb_apply` within `T`'s shared memory: the widest block reflector the `T` kernel builds.
    fn apply_width(&self) -> usize {
        (1..=self.params.nb_apply)
            .rev()
            .find(|&k| tfactor_smem(k) * self.elem <= TFACTOR_SMEM)
            .unwrap_or(1)
    }

    /// geqrf's block reflector width for panels of `nb`: `nb_apply` rounded down to a
    /// multiple of `nb` within `T`'s shared memory, where it pays: at least `4 ×` that many
    /// columns. Tall-skinny shapes, whose block reflectors are bound by reading the vectors
    /// (twice when nested: 100,000 × 256 ran at half the speed), and a batch of 128²
    /// matrices (larger slots, fewer entries at once: 3.4× slower) keep one panel per block.
    /// `nb` for the other routines.
    fn outer(&self, nb: usize) -> usize {
        if self.kind != Kind::Geqrf {
            return nb;
        }
        let outer = self.apply_width() / nb.max(1) * nb;
        if outer <= nb || self.n < 4 * outer || self.reflectors() < 4 * outer {
            return nb;
        }
        outer
    }

    /// The plan with panels (blocks) of `nb`, chunks of `rc` and `entries` at once; geqrf's
    /// block reflectors are `outer(nb)` wide.
    fn plan(&self, nb: usize, rc: usize, entries: usize) -> QrPlan {
        let whole = self.whole();
        let small = self.small() || whole;
        let outer = self.outer(nb);
        QrPlan {
            nb: outer,
            inner: nb,
            rc,
            grid: if small { 1 } else { self.panel_grid(entries) },
            // A geqrf whose one block is all its columns updates nothing with it (gelqf's
            // transposed copies live in R whatever it updates; blocks wider than a panel
            // imply more columns than a panel).
            blocks: !small && (self.kind != Kind::Geqrf || self.n > nb.min(self.reflectors())),
            small,
            whole,
            entries,
            elem: self.elem,
            lt: 0,
            tp: self.transposed(),
            cq: self.cholqr_blocks(entries),
            tall: self.t_ahead(outer, entries),
            params: self.params,
        }
    }

    /// Blocks of `nb` whose `T` ormqr and orgqr make ahead: all of them where one entry at a
    /// time runs and they fit in `t_ahead_budget`, else none.
    fn t_ahead(&self, nb: usize, entries: usize) -> usize {
        let blocks = self.reflectors().div_ceil(nb.max(1));
        // (one launch: at most 65,535 blocks on gridDim.y)
        let fits = blocks * nb * nb * self.elem <= self.params.t_ahead_budget && blocks <= 65_535;
        if matches!(self.kind, Kind::Ormqr | Kind::Orgqr) && entries == 1 && blocks > 1 && fits {
            blocks
        } else {
            0
        }
    }

    fn chunk(&self, nb: usize) -> usize {
        let by_budget = self.params.chunk_budget / (2 * nb * self.elem).max(1);
        let by_budget = if by_budget >= 64 {
            by_budget / 64 * 64
        } else {
            by_budget
        };
        by_budget.clamp(1, self.trailing(nb).max(1))
    }

    /// Block width: geqrf's tuning value, narrowed (down to `NB_TALL`) where the first
    /// panel's rows per block would not fit in shared memory; ormqr's and orgqr's as wide as
    /// `T` fits.
    fn block_width(&self, entries: usize) -> usize {
        let mut nb = self.params.nb.min(NB_MAX);
        if matches!(self.kind, Kind::Ormqr | Kind::Ormlq | Kind::Orgqr) {
            nb = self.apply_width() / 8 * 8;
            if self.kind == Kind::Orgqr {
                // (a block's own columns are formed by one `qr_org`)
                nb = nb.min(ORG_COLS);
            }
            if self.kind == Kind::Ormlq {
                // ormlq's transposed block (`tp × nb`) within the chunks' budget share.
                let by_copy = self.params.engine_budget / (self.transposed() * self.elem).max(1);
                nb = nb.min((by_copy / 8 * 8).max(self.params.nb_min));
            }
        } else if matches!(self.kind, Kind::Geqrf | Kind::Gelqf) && !self.cholqr_shape() {
            // (CholeskyQR2's panels are as wide as `nb`: their Householder fallback then works
            // in global memory.)
            let chunk = self.panel_rows().div_ceil(self.panel_grid(entries)).max(1);
            let fit = PANEL_SMEM / (chunk * self.elem) / 8 * 8;
            nb = nb.min(fit.max(NB_TALL));
        }
        nb.min(self.reflectors()).max(1)
    }

    /// The plan with enough workspace (cuBLASLt's part still 0).
    pub(crate) fn full(&self) -> QrPlan {
        let nb = self.block_width(1);
        let rc = self.chunk(self.outer(nb));
        if self.list || self.batch <= 1 {
            return self.plan(nb, rc, 1);
        }
        // A batch: as many entries at once as fit in `batch_fit` with chunks of 64, then the
        // widest chunks that keep them there.
        let fit = self.params.batch_fit;
        let floor = rc.min(64);
        // (one entry alone would make every T ahead; a batch of several does not)
        let least = QrPlan {
            tall: 0,
            ..self.plan(nb, floor, 1)
        }
        .own_bytes()
        .max(1);
        let entries = (fit / least).clamp(1, self.batch);
        let mut rc = rc;
        while rc > floor && self.plan(nb, rc, entries).own_bytes() > fit {
            rc = if rc > 64 { (rc - 1) / 64 * 64 } else { floor };
        }
        self.plan(nb, rc.max(floor), entries)
    }

    /// The best plan whose own parts fit in `cap` bytes, or `None`.
    pub(crate) fn fitted(&self, cap: usize) -> Option<QrPlan> {
        let mut p = self.full();
        while p.own_bytes() > cap {
            if p.tall > 0 {
                p.tall = 0;
                continue;
            }
            if p.entries > 1 {
                let q = p;
                p.entries = crate::common::plan::most_entries(q.entries - 1, |e| {
                    QrPlan { entries: e, ..q }.own_bytes() <= cap
                })
                .unwrap_or(1);
                continue;
            }
            if p.rc > self.params.rc_min.min(self.trailing(p.nb).max(1)) {
                p.rc = (p.rc / 2).max(self.params.rc_min.min(self.trailing(p.nb).max(1)));
                continue;
            }
            if p.cq > self.params.cholqr_min_blocks {
                p.cq = (p.cq / 2).max(self.params.cholqr_min_blocks);
                continue;
            }
            if p.cq > 0 {
                // Householder's own plans and rungs (their narrower blocks).
                return QrShape {
                    cholqr: false,
                    ..*self
                }
                .fitted(cap);
            }
            if p.grid > 1 {
                p.grid = 1;
                continue;
            }
            if p.nb > p.inner {
                p.nb = p.inner;
                continue;
            }
            if p.nb > self.params.nb_min {
                let nb = (p.nb / 2).max(self.params.nb_min);
                p = QrPlan {
                    grid: 1,
                    ..self.plan(nb, self.chunk(nb), 1).one_panel_blocks()
                };
                continue;
            }
            return None;
        }
        Some(p)
    }

    /// Explains the minimum, for `MemoryError`.
    pub(crate) fn minimum_text(&self) -> String {
        if self.cholqr {
            return QrShape {
                cholqr: false,
                ..*self
            }
            .minimum_text();
        }
        let nb = self.params.nb_min.min(self.reflectors()).max(1);
        let rc = self.params.rc_min.min(self.trailing(nb).max(1));
        let least = QrPlan {
            grid: 1,
            tall: 0,
            ..self.plan(nb, rc, 1).one_panel_blocks()
        };
        format!(
            "needs at least {} bytes (blocks of {nb} reflectors, chunks of {rc}); workspace is \
             handed out in {CHUNK}-byte chunks",
            least.own_bytes()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f64_on_h100(kind: Kind, m: usize, n: usize, k: usize) -> QrShape {
        QrShape {
            kind,
            left: true,
            m,
            n,
            k,
            batch: 1,
            list: false,
            elem: 8,
            sms: 132,
            cholqr: true,
            whole_smem: 0,
            params: QrParams::auto(),
        }
    }

    /// geqrf of at most 128 columns and 512 rows that fits the device's shared memory is one
    /// kernel (`whole`, no workspace); wider, taller, larger or on the host (0 bytes) it is not.
    #[test]
    fn f4_whole_matrix_plan() {
        let on = |m, n, elem, smem| QrShape {
            elem,
            whole_smem: smem,
            ..f64_on_h100(Kind::Geqrf, m, n, 0)
        };
        let h100 = 227 * 1024 - 1024;
        let p = on(128, 128, 8, h100).full();
        assert!(p.whole && p.small && !p.blocks && p.cq == 0 && p.own_bytes() == 0);
        assert!(on(33, 40, 8, h100).full().whole);
        assert!(!on(32, 32, 8, h100).full().whole, "qr_small's");
        assert!(!on(128, 129, 8, h100).full().whole);
        assert!(!on(600, 16, 8, h100).full().whole);
        assert!(
            !on(230, 128, 8, h100).full().whole,
            "227 KB do not hold 230 x 128 doubles"
        );
        assert!(on(200, 128, 8, h100).full().whole);
        assert!(!on(128, 128, 16, h100).full().whole);
        assert!(!on(128, 128, 8, 0).full().whole);
        assert!(
            !QrShape {
                kind: Kind::Orgqr,
                ..on(128, 128, 8, h100)
            }
            .full()
            .whole
        );
    }

    /// ormqr and orgqr make every block's `T` ahead where they fit in `t_ahead_budget` (E
    /// grows by one `nb × nb` a block); a batch, geqrf and a one-block call do not; the
    /// reduced plans drop them first.
    #[test]
    fn f4_t_factors_ahead() {
        for kind in [Kind::Ormqr, Kind::Orgqr] {
            let s = f64_on_h100(kind, 8192, 8192, 8192);
            let p = s.full();
            assert_eq!(p.tall, 8192usize.div_ceil(p.nb), "{kind:?}");
            let without = QrPlan { tall: 0, ..p };
            assert_eq!(
                p.workspace().blocks.e_blocks - without.workspace().blocks.e_blocks,
                p.tall * p.nb * p.nb * 8
            );
            let cut = s.fitted(p.own_bytes() - 1).unwrap();
            assert_eq!(cut.tall, 0);
            assert_eq!(
                cut.rc, p.rc,
                "{kind:?}: T ahead goes before the chunks narrow"
            );
            let one = f64_on_h100(kind, 8192, 8192, 100).full();
            assert_eq!(one.tall, 0);
            let batch = QrShape {
                batch: 1000,
                ..f64_on_h100(kind, 512, 512, 512)
            };
            assert_eq!(batch.full().tall, 0);
            let before = QrShape {
                params: QrParams {
                    t_ahead_budget: 0,
                    ..QrParams::auto()
                },
                ..batch
            };
            assert_eq!(batch.full().entries, before.full().entries, "{kind:?}");
            let over = QrShape {
                params: QrParams {
                    t_ahead_budget: 1 << 20,
                    ..QrParams::auto()
                },
                ..s
            };
            assert_eq!(over.full().tall, 0);
        }
        assert_eq!(f64_on_h100(Kind::Geqrf, 8192, 8192, 0).full().tall, 0);
    }

    /// The bound (twice cuSOLVER's `bufferSize` on the H100, CUDA 13, from `bench qr`)
    /// and a default handle's 32 MiB less cuBLASLt's 4 MiB, whichever is smaller.
    #[test]
    fn geqrf_parts_at_bench_shapes_stay_within_bounds() {
        for (m, n, cusolver) in [
            (8192, 8192, 71_303_168),
            (16384, 16384, 89_128_960),
            (1_000_000, 64, 145_870_080),
            (100_000, 256, 14_821_632),
        ] {
            let p = f64_on_h100(Kind::Geqrf, m, n, 0).full();
            let bound = (2 * cusolver).min(28 << 20);
            assert!(p.own_bytes() <= bound, "{m} × {n}: {}", p.own_bytes());
        }
    }

    #[test]
    fn the_ladder_reaches_its_minimum_and_stops() {
        let s = f64_on_h100(Kind::Geqrf, 300, 200, 0);
        let full = s.full();
        let least = s.fitted(0);
        assert!(least.is_none());
        let small = s.fitted(8 << 10).expect("8 KiB holds the least plan");
        assert!(small.own_bytes() <= 8 << 10);
        assert!(small.nb < full.nb);
        assert_eq!(s.fitted(full.own_bytes()), Some(full));
    }

    #[test]
    fn f4_cholqr_part_is_the_formula() {
        let part = |m, n| f64_on_h100(Kind::Geqrf, m, n, 0).full().workspace().cholqr;
        // 264 partials (two blocks on each of 132 SMs) of 136 4 × 4 tiles, each with its mask
        assert_eq!(part(1_000_000, 64), 4_696_576);
        // 64 tiles of 128 rows
        assert_eq!(part(8192, 8192), 98_560 + 64 * 2177 * 8);
        // too short, gelqf, a device without it
        assert_eq!(part(500, 64), 0);
        assert_eq!(
            f64_on_h100(Kind::Gelqf, 64, 100_000, 0)
                .full()
                .workspace()
                .cholqr,
            0
        );
        let no_device = QrShape {
            cholqr: false,
            ..f64_on_h100(Kind::Geqrf, 1_000_000, 64, 0)
        };
        assert_eq!(no_device.full().workspace().cholqr, 0);
        // its panels 64 wide, where Householder's alone narrows them to fit shared memory
        assert_eq!(f64_on_h100(Kind::Geqrf, 1_000_000, 64, 0).full().inner, 64);
        assert!(no_device.full().inner < 64);
    }

    #[test]
    fn f4_cholqr_ladder_halves_the_partials_then_drops_them() {
        let s = f64_on_h100(Kind::Geqrf, 1_000_000, 64, 0);
        let full = s.full();
        let less = s.fitted(full.own_bytes() - 1).expect("fits");
        assert!(less.cq < full.cq && less.cq >= s.params.cholqr_min_blocks);
        assert!(less.own_bytes() < full.own_bytes());
        let least_cq = QrPlan {
            cq: s.params.cholqr_min_blocks,
            ..full
        };
        let none = s.fitted(least_cq.own_bytes() - 1).expect("fits");
        assert_eq!(none.cq, 0);
        let householder = QrShape { cholqr: false, ..s };
        assert_eq!(
            Some(none),
            householder.fitted(least_cq.own_bytes() - 1),
            "without CholeskyQR2: Householder's own plan"
        );
        assert!(s.fitted(0).is_none());
        assert_eq!(s.minimum_text(), householder.minimum_text());
    }

    #[test]
    fn f4_cholqr_panel_rule() {
        let p = f64_on_h100(Kind::Geqrf, 8192, 8192, 0).full();
        assert!(p.cholqr_panel(512, 64));
        assert!(!p.cholqr_panel(511, 64));
        assert!(p.cholqr_panel(512, 40));
        assert!(!p.cholqr_panel(511, 16));
        assert!(p.cholqr_panel(8192, 64));
        assert!(!p.cholqr_panel(8192, 65));
        let no = f64_on_h100(Kind::Geqrf, 500, 64, 0).full();
        assert_eq!(no.cq, 0);
        assert!(!no.cholqr_panel(4096, 64));
    }
}
