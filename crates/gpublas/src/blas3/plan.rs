//! Level 3's workspace need, from one function (SPEC F4): scalar slots (device scalars),
//! expanded diagonal blocks `E`, result blocks `R` (trmm), and the GEMM engine's own workspace
//! (cuBLASLt's, sized by the algorithm its heuristic picks for each product of the call).

use super::Kind;
use crate::common::plan::WorkspacePlan;
use crate::memory::{rounded_total, CHUNK};
use smallvec::{smallvec, SmallVec};

/// Scalar slots per batch entry: alpha, conj(alpha), beta, 1, 0.
pub(crate) const SLOTS: usize = 5;

/// Most bytes of E and R a full plan takes per chunk of batch entries.
const BLOCKS_BUDGET: usize = 64 << 20;

/// Smallest leaf block of a reduced plan.
const NB_MIN: usize = 8;

/// Smallest chunk of B's columns (rows) in trmm's reduced plan.
const RCHUNK_MIN: usize = 1;

/// What the plan depends on.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    pub kind: Kind,
    /// Order of the triangle that is cut into blocks (A's for symm/trmm, C's for the rank-k).
    pub na: usize,
    /// trmm: B's other dimension (n for Left, m for Right).
    pub other: usize,
    pub batch: usize,
    pub list: bool,
    pub elem: usize,
    pub device_scalars: bool,
    /// Only `C = beta C` (or trmm's `B = 0`) is left to do.
    pub scale_only: bool,
}

/// A chosen plan: block sizes and how many batch entries run at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    pub nb: usize,
    /// Diagonal blocks E holds per entry.
    pub eblocks: usize,
    /// trmm: columns (Left) or rows (Right) of B per result chunk.
    pub rchunk: usize,
    /// Batch entries per launch (F8).
    pub entries: usize,
    pub slots: usize,
    pub elem: usize,
    pub na: usize,
    pub uses_e: bool,
    pub uses_r: bool,
    /// cuBLASLt workspace bytes.
    pub lt: usize,
}

impl WorkspacePlan for Plan {
    fn sizes(&self) -> SmallVec<[usize; 4]> {
        let e = if self.uses_e {
            self.eblocks * self.nb * self.nb
        } else {
            0
        };
        let r = if self.uses_r {
            self.na * self.rchunk
        } else {
            0
        };
        let per = |x: usize| x.saturating_mul(self.entries).saturating_mul(self.elem);
        // cuBLASLt first: its workspace must be 256-byte aligned, as the lease start is.
        smallvec![self.lt, per(self.slots), per(e), per(r)]
    }
}

impl Plan {
    /// Bytes of everything but cuBLASLt's part.
    pub(crate) fn own_bytes(&self) -> usize {
        let s = self.sizes();
        rounded_total(&s[1..]).unwrap_or(usize::MAX)
    }

    /// Element offsets of each entry's E, R and slots within their sub-buffers.
    pub(crate) fn per_entry(&self) -> (usize, usize, usize) {
        (
            if self.uses_e {
                self.eblocks * self.nb * self.nb
            } else {
                0
            },
            if self.uses_r {
                self.na * self.rchunk
            } else {
                0
            },
            self.slots,
        )
    }
}

/// Leaf block for a triangle of order `n`: 1/32 of it as a power of two in [64, 256] (the
/// wasted half of the diagonal blocks stays near 3 % of a rank-k update), or `n` itself.
fn nb_for(n: usize) -> usize {
    (n / 32).next_power_of_two().clamp(64, 256).min(n.max(1))
}

impl Shape {
    /// The plan with enough workspace, cuBLASLt's part still 0.
    pub(crate) fn full(&self) -> Plan {
        let uses_e = !self.scale_only && self.kind != Kind::Gemm;
        let uses_r = !self.scale_only && self.kind == Kind::Trmm;
        let nb = nb_for(self.na);
        let leaves = self.na.div_ceil(nb).max(1);
        let rchunk = if uses_r {
            let per_col = self.na.max(1).saturating_mul(self.elem);
            let fit = (BLOCKS_BUDGET / per_col) / 64 * 64;
            fit.max(64).min(self.other.max(1))
        } else {
            1
        };
        let mut p = Plan {
            nb,
            eblocks: if uses_e { leaves } else { 1 },
            rchunk,
            entries: 1,
            slots: if self.device_scalars { SLOTS } else { 0 },
            elem: self.elem,
            na: self.na,
            uses_e,
            uses_r,
            lt: 0,
        };
        if !self.list {
            let per = p.own_bytes().max(1);
            p.entries = (BLOCKS_BUDGET / per).clamp(1, self.batch.max(1));
        }
        p
    }

    /// The best plan whose own parts fit in `cap` bytes (cuBLASLt's part still 0), or `None`.
    pub(crate) fn fitted(&self, cap: usize) -> Option<Plan> {
        let mut p = self.full();
        while p.own_bytes() > cap {
            if p.entries > 1 {
                let q = p;
                p.entries = crate::common::plan::most_entries(p.entries, |e| {
                    Plan { entries: e, ..q }.own_bytes() <= cap
                })
                .unwrap_or(1);
            } else if p.uses_e && p.eblocks > 1 {
                let q = p;
                p.eblocks = crate::common::plan::most_entries(p.eblocks - 1, |e| {
                    Plan { eblocks: e, ..q }.own_bytes() <= cap
                })
                .unwrap_or(1);
            } else if p.uses_r && p.rchunk > RCHUNK_MIN {
                p.rchunk = (p.rchunk / 2).max(RCHUNK_MIN);
            } else if p.uses_e && p.nb > NB_MIN {
                p.nb = (p.nb / 2).max(NB_MIN);
                p.eblocks = 1;
            } else {
                return None;
            }
        }
        Some(p)
    }

    /// Explains the minimum, for `MemoryError`.
    pub(crate) fn minimum_text(&self) -> String {
        format!(
            "needs at least one {NB_MIN} × {NB_MIN} block of {} bytes per element{} and the scalar slots; \
             workspace is handed out in {CHUNK}-byte chunks",
            self.elem,
            if self.kind == Kind::Trmm {
                format!(" and {RCHUNK_MIN} result columns of {} elements", self.na)
            } else {
                String::new()
            }
        )
    }
}
