//! Level 3's workspace need, from one function (SPEC F4): scalar slots (device scalars),
//! expanded diagonal blocks `E`, result blocks `R` (trmm), and the GEMM engine's own workspace
//! (cuBLASLt's, sized by the algorithm its heuristic picks for each product of the call).

use super::{Kind, Method};
use crate::common::plan::WorkspacePlan;
use crate::exec::program::{levels, INV_NB};
use crate::exec::workspace::{BlockWorkspace, SLOTS};
use crate::exec::Layout;
use crate::memory::{rounded_total, CHUNK};
use smallvec::SmallVec;

/// Level 3's tuning values (measured on the H100), in one place beside the plan that uses
/// them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Blas3Params {
    /// Most bytes of E and R a full plan takes per chunk of batch entries.
    pub blocks_budget: usize,
    /// Most bytes of diagonal blocks a full plan of the rank-k updates (syrk, herk, syr2k,
    /// her2k, syrkx, herkx), symm and hemm keeps in E (the rest run in groups). At the cap of
    /// 8 MiB (`gpublas bench blas3 --only workspace`, H100, f64, 8192 / 16384): syrk +0.49 /
    /// +0.14 %, symm −0.06 / +0.04 %, syr2k +2.03 / −0.10 % and in a second run −2.07 / −0.31
    /// % (noise); trsm (+10.4 / +2.1 %) and trmm (+441 %) keep their need.
    pub e_budget: usize,
    /// Leaf block of the triangular programs: `n / 32` as a power of two within these bounds
    /// (the wasted half of the diagonal blocks stays near 3 % of a rank-k update), or `n`.
    pub leaf_min: usize,
    pub leaf_max: usize,
    /// Smallest leaf block of a reduced plan.
    pub nb_min: usize,
    /// Smallest chunk of B's columns (rows) in trmm's reduced plan.
    pub rchunk_min: usize,
    /// trsm's leaf (its diagonal blocks inverted or substituted), and the larger leaf it takes
    /// with at most `trsm_few_rhs` right-hand sides, where each leaf's few launches cost more
    /// than the extra work of a larger inverted block (`2 nb na other`; 0.65 ms against
    /// 1.49 ms at order 8192 with 16 right-hand sides).
    pub trsm_nb: usize,
    pub trsm_nb_few_rhs: usize,
    pub trsm_few_rhs: usize,
    /// A reduced trsm plan narrows its result chunks down to this many columns before it
    /// gives up keeping every inverted leaf resident (inverting each leaf just before its
    /// use serialises the inversions; narrower chunks only cost more, smaller products).
    pub trsm_chunk_floor: usize,
}

impl Blas3Params {
    /// The values for the devices gpublas is tuned on.
    pub(crate) fn auto() -> Self {
        Blas3Params {
            blocks_budget: 64 << 20,
            e_budget: 8 << 20,
            leaf_min: 64,
            leaf_max: 256,
            nb_min: 8,
            rchunk_min: 1,
            trsm_nb: 128,
            trsm_nb_few_rhs: 512,
            trsm_few_rhs: 128,
            trsm_chunk_floor: 1024,
        }
    }

    /// trsm's leaf for a triangle of order `na` and `other` right-hand sides.
    fn trsm_nb(&self, na: usize, other: usize) -> usize {
        let nb = if other <= self.trsm_few_rhs {
            self.trsm_nb_few_rhs
        } else {
            self.trsm_nb
        };
        nb.min(na).max(1)
    }

    /// Leaf block for a triangle of order `n`.
    fn nb_for(&self, n: usize) -> usize {
        (n / 32)
            .next_power_of_two()
            .clamp(self.leaf_min, self.leaf_max)
            .min(n.max(1))
    }
}

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
    /// Only `C = beta C` (or trmm's and trsm's `B = 0`) is left to do.
    pub scale_only: bool,
    /// trsm: how the diagonal blocks are treated.
    pub method: Method,
    pub params: Blas3Params,
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
    pub kind: Kind,
    /// trsm, trtri: elements of R per entry (products' temporaries, result chunks).
    pub rlen: usize,
    /// trsm: the diagonal blocks are solved by substitution (no E, no R).
    pub subst: bool,
    /// Elements E holds per entry at least (the solver's Cholesky update blocks share it).
    pub e_min: usize,
    /// Elements R holds per entry at least (the solver's side-lane panels take a part).
    pub r_min: usize,
}

impl WorkspacePlan for Plan {
    fn sizes(&self) -> SmallVec<[usize; 4]> {
        SmallVec::from_buf(self.workspace().list())
    }
}

impl Plan {
    /// The parts' sizes in bytes.
    pub(crate) fn workspace(&self) -> BlockWorkspace<usize> {
        let e = self.e_elems();
        let r = self.r_elems();
        let per = |x: usize| x.saturating_mul(self.entries).saturating_mul(self.elem);
        BlockWorkspace {
            lt: self.lt,
            slots: per(self.slots),
            e_blocks: per(e),
            r_results: per(r),
        }
    }

    /// Bytes of everything but cuBLASLt's part.
    pub(crate) fn own_bytes(&self) -> usize {
        let w = self.workspace();
        rounded_total(&[w.slots, w.e_blocks, w.r_results]).unwrap_or(usize::MAX)
    }

    /// How the executor lays out the workspace per batch entry.
    pub(crate) fn layout(&self) -> Layout {
        Layout {
            entries: self.entries,
            e_elems: self.e_elems(),
            r_elems: self.r_elems(),
        }
    }

    fn e_elems(&self) -> usize {
        let blocks = if self.uses_e {
            self.eblocks * self.nb * self.nb
        } else {
            0
        };
        blocks.max(self.e_min)
    }

    /// The most batch entries at once whose parts fit in `cap` bytes (at least 1).
    fn fewer_entries(self, cap: usize) -> Plan {
        let entries = crate::common::plan::most_entries(self.entries, |e| {
            Plan { entries: e, ..self }.own_bytes() <= cap
        })
        .unwrap_or(1);
        Plan { entries, ..self }
    }

    fn r_elems(&self) -> usize {
        let r = match (self.uses_r, self.kind) {
            (false, _) => 0,
            (true, Kind::Trsm | Kind::Trtri) => self.rlen,
            (true, _) => self.na * self.rchunk,
        };
        r.max(self.r_min)
    }
}

/// Largest level of the recursive cut of an order-`n` triangle into `nb` leaves (0 if none).
fn top_level(n: usize, nb: usize) -> usize {
    levels(n, nb).last().map_or(0, |l| l.s)
}

/// Elements of R that inverting `g` leaves of order `bs` at once takes (one `s × s`
/// temporary per leaf for the largest level inside a leaf).
pub(crate) fn inv_temp(bs: usize, g: usize) -> usize {
    let s = top_level(bs, INV_NB);
    s * s * g
}

/// trtri's R for every level's products at full width, all pairs of a level at once.
fn trtri_temp(n: usize) -> usize {
    levels(n, INV_NB)
        .iter()
        .map(|l| (l.full.max(1)) * l.s * l.s)
        .max()
        .unwrap_or(0)
}

impl Shape {
    /// The plan with enough workspace, cuBLASLt's part still 0.
    pub(crate) fn full(&self) -> Plan {
        if matches!(self.kind, Kind::Trsm | Kind::Trtri) {
            return self.full_tri();
        }
        let uses_e = !self.scale_only && self.kind != Kind::Gemm;
        let uses_r = !self.scale_only && self.kind == Kind::Trmm;
        let nb = self.params.nb_for(self.na);
        let leaves = self.na.div_ceil(nb).max(1);
        let rchunk = if uses_r {
            let per_col = self.na.max(1).saturating_mul(self.elem);
            let fit = (self.params.blocks_budget / per_col) / 64 * 64;
            fit.max(64).min(self.other.max(1))
        } else {
            1
        };
        // The rank-k updates and symm, hemm keep at most `e_budget` of diagonal blocks: E in
        // groups cost them within the noise (H100, 8192 and 16384).
        let capped = matches!(
            self.kind,
            Kind::Syrk
                | Kind::Herk
                | Kind::Syrkx
                | Kind::Herkx
                | Kind::Syr2k
                | Kind::Her2k
                | Kind::Symm
                | Kind::Hemm
        );
        let per_leaf = (nb * nb * self.elem).max(1);
        let eblocks = if !uses_e {
            1
        } else if capped {
            leaves.min(self.params.e_budget / per_leaf).max(1)
        } else {
            leaves
        };
        let p = Plan {
            nb,
            eblocks,
            rchunk,
            entries: 1,
            slots: if self.device_scalars { SLOTS } else { 0 },
            elem: self.elem,
            na: self.na,
            uses_e,
            uses_r,
            lt: 0,
            kind: self.kind,
            rlen: 0,
            subst: false,
            e_min: 0,
            r_min: 0,
        };
        self.with_entries(p)
    }

    /// Runs as many batch entries at once as fit the blocks budget (lists one at a time).
    fn with_entries(&self, mut p: Plan) -> Plan {
        if !self.list {
            let per = p.own_bytes().max(1);
            p.entries = (self.params.blocks_budget / per).clamp(1, self.batch.max(1));
        }
        p
    }

    /// trsm's and trtri's full plan.
    fn full_tri(&self) -> Plan {
        let work = !self.scale_only;
        let trsm = self.kind == Kind::Trsm;
        // Substitution runs on leaves of at most 32 (a whole triangle that small is solved
        // that way: faster than inverting it, and more accurate).
        let subst = trsm
            && (self.method == Method::Substitute
                || (self.method == Method::Invert && self.na <= INV_NB));
        let nb = match (trsm, subst) {
            (true, false) => self.params.trsm_nb(self.na, self.other),
            _ => INV_NB,
        };
        let leaves = self.na.div_ceil(nb).max(1);
        let uses_e = work && trsm && self.method == Method::Invert && !subst;
        let budget = self.params.blocks_budget / self.elem;
        let rlen = if !work || subst {
            0
        } else if trsm {
            // A whole leaf row (column) of the solution at once, within the budget.
            let w = self.other.clamp(1, (budget / nb).max(64));
            let t = if uses_e { inv_temp(nb, leaves) } else { 0 };
            (nb * w).max(t)
        } else {
            trtri_temp(self.na).min(budget).max(self.tri_min_r())
        };
        let p = Plan {
            nb,
            eblocks: if uses_e { leaves } else { 1 },
            rchunk: 1,
            entries: 1,
            slots: if self.device_scalars { SLOTS } else { 0 },
            elem: self.elem,
            na: self.na,
            uses_e,
            uses_r: rlen > 0,
            lt: 0,
            kind: self.kind,
            rlen,
            subst,
            e_min: 0,
            r_min: 0,
        };
        self.with_entries(p)
    }

    /// trtri's least R: one row of a temporary of the largest level.
    fn tri_min_r(&self) -> usize {
        top_level(self.na, INV_NB)
    }

    /// trsm's and trtri's reduced plans: fewer entries at once, leaves inverted a group at a
    /// time (as many as E holds), narrower chunks, smaller leaves, then (trsm) substitution.
    fn fitted_tri(&self, cap: usize) -> Option<Plan> {
        let mut p = self.full();
        while p.own_bytes() > cap {
            if p.entries > 1 {
                p = p.fewer_entries(cap);
                continue;
            }
            if self.kind == Kind::Trtri {
                let min = self.tri_min_r();
                if p.rlen <= min {
                    return None;
                }
                p.rlen = (p.rlen / 2).max(min);
                continue;
            }
            if p.subst {
                return None;
            }
            let t = if p.uses_e { inv_temp(p.nb, 1) } else { 0 };
            // Narrower result chunks first, down to the floor, keeping every leaf resident.
            let floor = self.trsm_chunk_floor(&p);
            if p.rlen > floor {
                p.rlen = (p.rlen / 2).max(floor);
            } else if p.uses_e && p.eblocks > 1 {
                // As many leaves in E as fit: the solve inverts them a group at a time.
                let q = p;
                let rlen = p.rlen.min(p.nb * self.other.max(1)).max(t);
                p.eblocks = crate::common::plan::most_entries(p.eblocks - 1, |e| {
                    Plan {
                        eblocks: e,
                        rlen,
                        ..q
                    }
                    .own_bytes()
                        <= cap
                })
                .unwrap_or(1);
                p.rlen = rlen;
            } else if p.rlen > (p.nb * 8).max(t) {
                p.rlen = (p.rlen / 2).max((p.nb * 8).max(t));
            } else if p.uses_e && p.nb > INV_NB {
                p.nb = (p.nb / 2).max(INV_NB);
                p.rlen = (p.nb * 8).max(inv_temp(p.nb, 1));
            } else {
                // Substitution: no blocks, no temporaries.
                p.subst = true;
                p.uses_e = false;
                p.uses_r = false;
                p.rlen = 0;
                p.nb = INV_NB;
            }
        }
        Some(p)
    }

    /// The best plan whose own parts fit in `cap` bytes (cuBLASLt's part still 0), or `None`.
    /// The fewest elements of R a trsm plan keeps before it gives up resident leaves: result
    /// chunks of `trsm_chunk_floor` columns (or all of them), and the inversion's temporaries.
    pub(crate) fn trsm_chunk_floor(&self, p: &Plan) -> usize {
        let resident = if p.uses_e {
            inv_temp(p.nb, p.eblocks)
        } else {
            0
        };
        (p.nb * self.params.trsm_chunk_floor.min(self.other.max(1))).max(resident)
    }

    pub(crate) fn fitted(&self, cap: usize) -> Option<Plan> {
        if matches!(self.kind, Kind::Trsm | Kind::Trtri) {
            return self.fitted_tri(cap);
        }
        let mut p = self.full();
        while p.own_bytes() > cap {
            if p.entries > 1 {
                p = p.fewer_entries(cap);
            } else if p.uses_e && p.eblocks > 1 {
                let q = p;
                p.eblocks = crate::common::plan::most_entries(p.eblocks - 1, |e| {
                    Plan { eblocks: e, ..q }.own_bytes() <= cap
                })
                .unwrap_or(1);
            } else if p.uses_r && p.rchunk > self.params.rchunk_min {
                p.rchunk = (p.rchunk / 2).max(self.params.rchunk_min);
            } else if p.uses_e && p.nb > self.params.nb_min {
                p.nb = (p.nb / 2).max(self.params.nb_min);
                p.eblocks = 1;
            } else {
                return None;
            }
        }
        Some(p)
    }

    /// Explains the minimum, for `MemoryError`.
    pub(crate) fn minimum_text(&self) -> String {
        match self.kind {
            Kind::Trsm => {
                return format!(
                    "substitution needs only the scalar slots of device scalars ({SLOTS} \
                     elements of {} bytes per entry); workspace is handed out in {CHUNK}-byte chunks",
                    self.elem
                )
            }
            Kind::Trtri => {
                return format!(
                    "needs at least {} elements of {} bytes (one row of the largest block \
                     product's temporary); workspace is handed out in {CHUNK}-byte chunks",
                    self.tri_min_r(),
                    self.elem
                )
            }
            _ => {}
        }
        let (nb, rchunk) = (self.params.nb_min, self.params.rchunk_min);
        format!(
            "needs at least one {nb} × {nb} block of {} bytes per element{} and the scalar slots; \
             workspace is handed out in {CHUNK}-byte chunks",
            self.elem,
            if self.kind == Kind::Trmm {
                format!(" and {rchunk} result columns of {} elements", self.na)
            } else {
                String::new()
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Full plans at order 8192 (f64; herk c64; one matrix): syrk, herk, syr2k and symm keep at
    /// most 8 MiB of diagonal blocks; trmm keeps every block (the issue 29 report: capping it
    /// cost 4–7×).
    #[test]
    fn full_plans_keep_diagonal_blocks_within_e_budget() {
        let shape = |kind| Shape {
            kind,
            na: 8192,
            other: 8192,
            batch: 1,
            list: false,
            elem: if kind == Kind::Herk { 16 } else { 8 },
            device_scalars: false,
            scale_only: false,
            method: Method::Invert,
            params: Blas3Params::auto(),
        };
        for kind in [Kind::Syrk, Kind::Herk, Kind::Syr2k, Kind::Symm] {
            let p = shape(kind).full();
            assert!(p.eblocks < p.na.div_ceil(p.nb), "{kind:?}: {p:?}");
            assert!(p.own_bytes() <= 8 << 20, "{kind:?}: {}", p.own_bytes());
        }
        let p = shape(Kind::Trmm).full();
        assert_eq!(p.eblocks, p.na.div_ceil(p.nb), "trmm");
    }
}
