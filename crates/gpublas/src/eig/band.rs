//! Stage 1 of the two-stage reduction to tridiagonal form: a Hermitian matrix stored in its
//! lower triangle becomes a band of `kd` subdiagonals by a unitary similarity, `A = Q B Qᴴ`
//! (LAPACK's `sytrd_sy2sb`/`hetrd_he2hb`, lower; the output in LAPACK's layout: the band on
//! and below the diagonal, below it the reflectors, `tau` of `n − kd` scalars).
//!
//! Per panel of `kd` columns (`c0 ..`; rows `r0 = c0 + kd ..`, `pm = n − r0` of them), as
//! products of the executor and the QR family's panel steps (MAGMA's `zhetrd_he2hb`):
//! 1. QR of the `pm × w` panel (`w = min(kd, pm)`): the reflectors `V` below its diagonal, `R`
//!    on and above it — the band's block below the diagonal block.
//! 2. `Vf` = `V` with its unit upper triangle written out (R); `G = Vfᴴ Vf`, `T` by `larft`'s
//!    recurrence (E). A CholeskyQR2 panel writes `Vf`, `T` and `VT` (3.) itself (`T = −U S
//!    L⁻ᵀ` from its reconstruction), or its fallback step does.
//! 3. `VT = Vf T`; `X = A22 VT` (`A22` the trailing triangle, a symm); `M = VTᴴ X`;
//!    `W = X − ½ Vf M`.
//! 4. `A22 −= Vf Wᴴ + W Vfᴴ` (a syr2k/her2k on the trailing triangle).
//!
//! On a full matrix (both triangles, the two-stage `syevd`'s) the products run over the whole
//! trailing matrix, the next panel's head beside the update (look-ahead), and while the
//! trailing matrix is large (`pair_rows`) two panels share one update of rank `4 kd`: the
//! second panel's `X` is corrected for the first panel's update that A22 has not had yet.
//!
//! Workspace per call (elements): QR's panel parts (its plan for the largest panel, its E and R
//! first), then in E `T` (`kd²`) and the symm's and syr2k's diagonal blocks (`nb² · eblocks`,
//! not for a full matrix), in R `Vf`, `X`, `Vf` again (side by side), `VT` (`(n − kd) · kd`
//! each) and `G`, `M` (`kd²` each) — two such sets on a full matrix, and where panels pair two
//! pair regions (`8 (n − kd) kd + 4 kd²` each).

// (Stage 1 of the GPU `syevd`, whose later stages are not in yet: only its tests call it so far.)
#![allow(dead_code)]

use crate::common::operand::{check_ld, mat_span, span_or, Batch, BatchMut, Checker};
use crate::common::plan::{drive, Routine, WorkspacePlan};
use crate::device::lt::{Lt, LT_MAX_WORKSPACE};
use crate::device::DeviceBuffer;
use crate::exec::program::{at, mat, Fill, Space, Step as Block, K, M};
use crate::exec::workspace::BlockWorkspace;
use crate::exec::{cuda as exec_cuda, host as exec_host, Layout, Operands, ScalarArg};
use crate::memory::{address, rounded_total};
use crate::qr::plan::{QrPlan, QrShape, QrWorkspace};
use crate::qr::program::{factor_steps, gemm, init_steps, CqOut, Prog, QrStep, Step};
use crate::qr::{Kind as QrKind, QrFamily};
use crate::{Coef, Error, Handle, Op, RealScalar, Scalar, Side, Status, WorkspaceLease};

/// What a band reduction's plan depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BandShape {
    pub n: usize,
    /// Subdiagonals of the band (`kd ≥ 1`; `n ≤ kd` has no work).
    pub kd: usize,
    pub elem: usize,
    pub complex: bool,
    /// The device's multiprocessors (the panel's grid), and whether it runs CholeskyQR2 panels.
    pub sms: usize,
    pub cholqr: bool,
    /// Leaves of the symm and syr2k, and how many of them are expanded at once.
    pub nb: usize,
    pub eblocks: usize,
    /// The matrix holds both triangles (the two-stage `syevd`'s working matrix): the trailing
    /// products are plain products over the whole trailing matrix (twice the update's flops,
    /// a tenth of the steps), not symm and syr2k on its lower triangle.
    pub full: bool,
    /// On a full matrix, panels whose successor's trailing matrix has at least this many rows
    /// go in pairs with one trailing update of rank `4 kd` for both (`pairs`; `usize::MAX`:
    /// never).
    pub pair_rows: usize,
}

/// How a band reduction runs, and its workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BandPlan {
    pub shape: BandShape,
    /// The QR family's plan of the largest panel (`(n − kd) × kd`).
    pub qr: QrPlan,
    /// cuBLASLt's part (bytes).
    pub lt: usize,
}

impl BandShape {
    /// Rows of the largest panel.
    fn rows(&self) -> usize {
        self.n.saturating_sub(self.kd)
    }

    /// The plan (F4: every part from the arguments alone).
    pub(crate) fn plan(&self) -> BandPlan {
        let qr = QrShape {
            kind: QrKind::Geqrf,
            left: true,
            m: self.rows(),
            n: self.kd,
            k: self.kd,
            batch: 1,
            list: false,
            elem: self.elem,
            sms: self.sms,
            cholqr: self.cholqr,
            whole_smem: 0,
            params: crate::qr::plan::QrParams::auto(),
        }
        .full();
        #[cfg(test)]
        let qr = match super::two_stage::probe::PANEL_GRID.with(|g| g.get()) {
            Some(grid) => QrPlan { grid, ..qr },
            None => qr,
        };
        BandPlan {
            shape: *self,
            qr,
            lt: 0,
        }
    }
}

impl BandPlan {
    /// Where the band reduction's own parts start in E and R (after QR's).
    fn bases(&self) -> (usize, usize) {
        let l = self.qr.layout();
        (l.e_elems, l.r_elems)
    }

    /// The parts' sizes in bytes (QR's parts' layout, E and R grown by the reduction's own).
    pub(crate) fn workspace(&self) -> QrWorkspace<usize> {
        let l = self.layout();
        let elem = self.shape.elem;
        QrWorkspace {
            blocks: BlockWorkspace {
                lt: self.lt,
                slots: 0,
                e_blocks: l.e_elems * elem,
                r_results: l.r_elems * elem,
            },
            exchange: self.qr.exchange_per_entry(),
            cholqr: self.qr.cholqr_per_entry(),
        }
    }

    /// Bytes of everything but cuBLASLt's part.
    fn own_bytes(&self) -> usize {
        let w = self.workspace();
        rounded_total(&[w.blocks.e_blocks, w.blocks.r_results, w.exchange, w.cholqr])
            .unwrap_or(usize::MAX)
    }

    /// The executor's layout of E and R.
    pub(crate) fn layout(&self) -> Layout {
        let s = &self.shape;
        let (e0, r0) = self.bases();
        Layout {
            entries: 1,
            e_elems: e0 + s.kd * s.kd + if s.full { 0 } else { s.nb * s.nb * s.eblocks },
            r_elems: r0 + self.sets() * self.set_elems() + 2 * self.pair_elems(),
        }
    }
}

/// The program: every panel's QR, `T`, the products and the trailing update, in order. The
/// matrix is space C (`lda`), `tau` the QR steps' scalars.
pub(crate) fn build(p: &BandPlan, lda: usize) -> Vec<Step> {
    build_at(p, mat(Space::C, 0, lda, 0))
}

/// The program for the matrix whose first element is `a` (in C, or in R: a copy the
/// eigensolver works on). On a full matrix with a next panel, that panel's columns are
/// updated first and it is factored (with its `T` and `VT`) on the side lane while the main
/// lane updates the rest (look-ahead: panel `j + 1`'s parts in R are the other of two sets).
pub(crate) fn build_at(p: &BandPlan, a: M) -> Vec<Step> {
    let s = &p.shape;
    let (n, kd) = (s.n, s.kd);
    let mut v: Vec<Step> = Vec::new();
    init_steps(&mut v, &p.qr);
    if n <= kd + 1 {
        return v;
    }
    let plan = schedule(p);
    panel_head(&mut v, p, a, plan[0].0, plan[0].1.place());
    for (j, &(c0, mode)) in plan.iter().enumerate() {
        let next = plan.get(j + 1).map(|&(c1, m)| (c1, m.place()));
        match mode {
            Mode::Single(set) => panel_tail(&mut v, p, a, c0, Place::Set(set), next),
            Mode::First(_) => pair_first(&mut v, p, a, c0, mode.place(), next),
            Mode::Second(region) => pair_second(&mut v, p, a, c0, region, next),
        }
    }
    v
}

/// The parts in R of panel `c0` (`set`: which of the two sets, for look-ahead).
struct PanelParts {
    /// `[Vf | X | Vf]` side by side, then `VT` (leading dimension `pm`); `G`, `M` (`kd`).
    vf: M,
    x: M,
    vf_again: M,
    vt: M,
    g: M,
    m: M,
}

impl BandPlan {
    /// Elements of one set of a panel's parts in R.
    fn set_elems(&self) -> usize {
        let s = &self.shape;
        4 * s.rows() * s.kd + 2 * s.kd * s.kd
    }

    /// Sets of panel parts (two with look-ahead: the full matrix's).
    fn sets(&self) -> usize {
        if self.shape.full {
            2
        } else {
            1
        }
    }

    /// Elements of one pair region (0 without pairs): the six blocks `[Vf₀ Vf₁ X₀ X₁ Vf₀ Vf₁]`
    /// (leading dimension the first panel's rows `pm₀`, the second panel's rows from row `kd`:
    /// `[Vf₀ Vf₁ X₀ X₁]` and `[X₀ X₁ Vf₀ Vf₁]` are the two operands of the pair's update),
    /// then each panel's `VT`, `G` and `M`.
    fn pair_elems(&self) -> usize {
        let s = &self.shape;
        if s.full && pairs(s) > 0 {
            8 * s.rows() * s.kd + 4 * s.kd * s.kd
        } else {
            0
        }
    }

    fn parts(&self, c0: usize, place: Place) -> PanelParts {
        let s = &self.shape;
        let (kd, pm) = (s.kd, s.n - c0 - s.kd);
        let w = kd.min(pm);
        let rows = s.rows();
        let sets = self.bases().1 + self.sets() * self.set_elems();
        match place {
            Place::Set(set) => {
                let r0 = self.bases().1 + set * self.set_elems();
                PanelParts {
                    vf: mat(Space::R, r0, pm, 0),
                    x: mat(Space::R, r0 + pm * w, pm, 0),
                    vf_again: mat(Space::R, r0 + 2 * pm * w, pm, 0),
                    vt: mat(Space::R, r0 + 3 * rows * kd, pm, 0),
                    g: mat(Space::R, r0 + 4 * rows * kd, kd, 0),
                    m: mat(Space::R, r0 + 4 * rows * kd + kd * kd, kd, 0),
                }
            }
            Place::Pair { region, second } => {
                let base = sets + region * self.pair_elems();
                let h = second as usize;
                // (the first panel's rows: the blocks' leading dimension)
                let pm0 = pm + h * kd;
                let block = |b: usize| mat(Space::R, base + b * kd * pm0 + h * kd, pm0, 0);
                let own = base + 6 * rows * kd;
                PanelParts {
                    vf: block(h),
                    x: block(2 + h),
                    vf_again: block(4 + h),
                    vt: mat(Space::R, own + h * rows * kd, pm, 0),
                    g: mat(Space::R, own + 2 * rows * kd + 2 * h * kd * kd, kd, 0),
                    m: mat(Space::R, own + 2 * rows * kd + (2 * h + 1) * kd * kd, kd, 0),
                }
            }
        }
    }
}

/// Where a panel's parts are: one of the two sets (look-ahead alternates them), or its place
/// in one of the two pair regions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Set(usize),
    Pair { region: usize, second: bool },
}

/// How a panel's trailing update goes, and where its parts are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Its own update (rank `2 kd`) beside the next panel's head; parts in set `.0`.
    Single(usize),
    /// The first of a pair (in pair region `.0`): only the next panel's columns updated; the
    /// rest waits.
    First(usize),
    /// The second of a pair (in pair region `.0`): its `X` corrected for the first's pending
    /// update, then both updates as one product of rank `4 kd` beside the next panel's head.
    Second(usize),
}

impl Mode {
    fn place(self) -> Place {
        match self {
            Mode::Single(set) => Place::Set(set),
            Mode::First(region) => Place::Pair {
                region,
                second: false,
            },
            Mode::Second(region) => Place::Pair {
                region,
                second: true,
            },
        }
    }
}

/// The pairs of a full matrix's panels (counted from the first panel): a pair while the
/// second panel's trailing matrix has at least `pair_rows` rows and a panel follows it. The
/// update of rank `4 kd` reads and writes the trailing matrix once for two panels; at these
/// orders that pass, not the panel beside it, is the chain's longer part (H200: 8128 × 8096 ×
/// 64 took 440 µs against the CholeskyQR2 panel's ≈ 200).
fn pairs(s: &BandShape) -> usize {
    // (panel j starts at column j kd; the trailing matrix of panel j has n − (j + 1) kd rows)
    let panels = if s.n <= s.kd + 1 {
        0
    } else {
        (s.n - s.kd).div_ceil(s.kd)
    };
    let mut count = 0;
    if s.full {
        while 2 * count + 2 < panels && s.n - (2 * count + 2) * s.kd >= s.pair_rows.max(2 * s.kd) {
            count += 1;
        }
    }
    count
}

/// The pairs a plan's panels go in.
pub(crate) fn pair_count(p: &BandPlan) -> usize {
    pairs(&p.shape)
}

/// Every panel's mode.
fn schedule(p: &BandPlan) -> Vec<(usize, Mode)> {
    let s = &p.shape;
    let count = pairs(s);
    (0..s.n - s.kd)
        .step_by(s.kd)
        .enumerate()
        .map(|(j, c0)| {
            let region = (j / 2) % 2;
            let mode = if j >= 2 * count {
                Mode::Single(j % p.sets())
            } else if j % 2 == 1 {
                Mode::Second(region)
            } else {
                Mode::First(region)
            };
            (c0, mode)
        })
        .collect()
}

/// Panel `c0`'s QR, `Vf`, `T` and `VT` (what needs only its own columns, updated).
fn panel_head(v: &mut Vec<Step>, p: &BandPlan, a: M, c0: usize, place: Place) {
    let s = &p.shape;
    let (n, kd, lda) = (s.n, s.kd, a.ld);
    let hop = if s.complex { Op::C } else { Op::T };
    let t = mat(Space::E, p.bases().0, kd, 0);
    let c = |r: usize, col: usize| at(a, r, col);
    let top = c0 + kd;
    let pm = n - top;
    let w = kd.min(pm);
    let PanelParts { vf, vt, g, m, .. } = p.parts(c0, place);
    let prog = Prog {
        kind: QrKind::Geqrf,
        side: Side::Left,
        op: Op::N,
        m: pm,
        n: w,
        k: w,
        ldv: lda,
        ldc: lda,
        complex: s.complex,
        c_off: a.off + top + c0 * lda,
        c_sp: a.sp,
        v_sp: Space::A,
        v_off: 0,
        k_off: c0,
    };
    // A CholeskyQR2 panel writes Vf, T and VT itself (T from the reconstruction); else Vf is
    // the panel's vectors with the unit upper triangle written out, T from G = Vfᴴ Vf.
    let made = factor_steps(v, &prog, &p.qr, CqOut { vf, t, vt });
    if !made {
        v.push(Block::Expand {
            fill: Fill::Tri { unit: true },
            lower: true,
            n: w,
            src: c(top, c0),
            dst: vf,
            count: 1,
        });
        if pm > w {
            v.push(Block::Copy {
                m: pm - w,
                n: w,
                src: c(top + w, c0),
                dst: at(vf, w, 0),
            });
        }
        gemm(v, (hop, Op::N), (w, w, pm), K::One, vf, vf, K::Zero, g);
        v.push(Block::Family(QrStep::TFactor {
            k: w,
            g,
            t,
            k0: c0,
            count: 1,
        }));
    }
    if w < kd {
        // The last panel has fewer rows than columns (LAPACK factors all `kd` columns):
        // the columns right of its reflectors, `Qᴴ C = C − Vf (Tᴴ (Vfᴴ C))` (in the slots of
        // G, used, and M, not yet).
        let (rest, extra) = (c(top, c0 + w), kd - w);
        gemm(
            v,
            (hop, Op::N),
            (w, extra, pm),
            K::One,
            vf,
            rest,
            K::Zero,
            g,
        );
        gemm(v, (hop, Op::N), (w, extra, w), K::One, t, g, K::Zero, m);
        gemm(
            v,
            (Op::N, Op::N),
            (pm, extra, w),
            K::MinusOne,
            vf,
            m,
            K::One,
            rest,
        );
    }
    if !made {
        gemm(v, (Op::N, Op::N), (pm, w, w), K::One, vf, t, K::Zero, vt);
    }
}

/// Panel `c0`'s products and trailing update (its head's parts at `place`); on a full matrix
/// with a `next` panel, that panel's head runs on the side lane beside the update's rest.
fn panel_tail(
    v: &mut Vec<Step>,
    p: &BandPlan,
    a: M,
    c0: usize,
    place: Place,
    next: Option<(usize, Place)>,
) {
    let s = &p.shape;
    let (n, kd) = (s.n, s.kd);
    let hop = if s.complex { Op::C } else { Op::T };
    let e_blocks = p.bases().0 + kd * kd;
    let c = |r: usize, col: usize| at(a, r, col);
    let top = c0 + kd;
    let pm = n - top;
    let w = kd.min(pm);
    let parts = p.parts(c0, place);
    let PanelParts { vf, x, vt, m, .. } = parts;
    if s.full {
        full_products(v, s, c(top, top), pm, &parts, None);
    } else {
        crate::blas3::program::symm_steps(
            v,
            &crate::blas3::program::Symm {
                left: true,
                lower: true,
                herm: s.complex,
                m: pm,
                n: w,
                a: c(top, top),
                b: vt,
                c: x,
                alpha: K::One,
                beta: K::Zero,
                e_off: e_blocks,
            },
            s.nb,
            s.eblocks,
        );
        gemm(v, (hop, Op::N), (w, w, pm), K::One, vt, x, K::Zero, m);
        // W = X − ½ Vf M (the program's alpha is −½).
        gemm(v, (Op::N, Op::N), (pm, w, w), K::Alpha, vf, m, K::One, x);
        crate::blas3::program::rank_k_steps(
            v,
            &crate::blas3::program::RankK {
                lower: true,
                herm: s.complex,
                notrans: true,
                n: pm,
                k: w,
                x: vf,
                y: x,
                two: true,
                alpha: K::MinusOne,
                alpha2: K::MinusOne,
                beta: K::One,
                c: c(top, top),
                e_off: e_blocks,
            },
            s.nb,
            s.eblocks,
        );
        if let Some((c1, at)) = next {
            panel_head(v, p, a, c1, at);
        }
        return;
    }
    // A22 −= Vf Wᴴ + W Vfᴴ over both triangles, as products of rank 2w: [Vf X] [X Vf]ᴴ.
    let update = |v: &mut Vec<Step>, (j0, j1): (usize, usize)| {
        gemm(
            v,
            (Op::N, hop),
            (pm, j1 - j0, 2 * w),
            K::MinusOne,
            vf,
            at(x, j0, 0),
            K::One,
            c(top, top + j0),
        );
    };
    trailing_update(v, p, a, pm, next, update);
}

/// A full matrix's trailing update by `update` (its columns `j0 .. j1` of A22's `pm`): with a
/// `next` panel, that panel's columns (the first `kd`) first, then its head on the side lane
/// beside the rest.
fn trailing_update(
    v: &mut Vec<Step>,
    p: &BandPlan,
    a: M,
    pm: usize,
    next: Option<(usize, Place)>,
    update: impl Fn(&mut Vec<Step>, (usize, usize)),
) {
    let kd = p.shape.kd;
    match next {
        Some((c1, at)) => {
            update(v, (0, kd));
            v.push(Block::Fork);
            panel_head(v, p, a, c1, at);
            v.push(Block::Back);
            update(v, (kd, pm));
            v.push(Block::Join);
        }
        None => update(v, (0, pm)),
    }
}

/// A full matrix's panel products: `X = A22 VT`; with `pending` (the first panel of a pair's
/// `Vf` and `W` from its row `kd`, the second panel's first row) `X −= Vf₀ (W₀ᴴ VT) + W₀
/// (Vf₀ᴴ VT)`, the first panel's update that A22 has not had yet; then `M = VTᴴ X`, `W = X −
/// ½ Vf M` (in X's place) and `Vf`'s second copy (`[Vf X]` and `[X Vf]` are the update's
/// operands).
fn full_products(
    v: &mut Vec<Step>,
    s: &BandShape,
    a22: M,
    pm: usize,
    parts: &PanelParts,
    pending: Option<(M, M)>,
) {
    let hop = if s.complex { Op::C } else { Op::T };
    let w = s.kd.min(pm);
    let PanelParts {
        vf,
        x,
        vf_again,
        vt,
        g,
        m,
    } = *parts;
    gemm(v, (Op::N, Op::N), (pm, w, pm), K::One, a22, vt, K::Zero, x);
    if let Some((vf0, w0)) = pending {
        // (G and M hold W₀ᴴ VT and Vf₀ᴴ VT; M is made again below)
        gemm(v, (hop, Op::N), (w, w, pm), K::One, w0, vt, K::Zero, g);
        gemm(v, (hop, Op::N), (w, w, pm), K::One, vf0, vt, K::Zero, m);
        gemm(
            v,
            (Op::N, Op::N),
            (pm, w, w),
            K::MinusOne,
            vf0,
            g,
            K::One,
            x,
        );
        gemm(v, (Op::N, Op::N), (pm, w, w), K::MinusOne, w0, m, K::One, x);
    }
    gemm(v, (hop, Op::N), (w, w, pm), K::One, vt, x, K::Zero, m);
    // W = X − ½ Vf M (the program's alpha is −½).
    gemm(v, (Op::N, Op::N), (pm, w, w), K::Alpha, vf, m, K::One, x);
    v.push(Block::Copy {
        m: pm,
        n: w,
        src: vf,
        dst: vf_again,
    });
}

/// The first panel of a pair: its products, the next panel's columns updated by its `Vf` and
/// `W` (two products of rank `kd`: in the pair's blocks they are not side by side), then the
/// next panel's head on the main lane (nothing to run beside it: the trailing update waits
/// for the pair's second panel).
fn pair_first(
    v: &mut Vec<Step>,
    p: &BandPlan,
    a: M,
    c0: usize,
    place: Place,
    next: Option<(usize, Place)>,
) {
    let s = &p.shape;
    let kd = s.kd;
    let hop = if s.complex { Op::C } else { Op::T };
    let top = c0 + kd;
    let pm = s.n - top;
    let parts = p.parts(c0, place);
    let a22 = at(a, top, top);
    full_products(v, s, a22, pm, &parts, None);
    for (left, right) in [(parts.vf, parts.x), (parts.x, parts.vf)] {
        gemm(
            v,
            (Op::N, hop),
            (pm, kd, kd),
            K::MinusOne,
            left,
            right,
            K::One,
            a22,
        );
    }
    if let Some((c1, at)) = next {
        panel_head(v, p, a, c1, at);
    }
}

/// The second panel of a pair: `X` from the trailing matrix the first panel's update has not
/// reached (corrected), its products, then both panels' updates at once, rank `4 kd`: the
/// next panel's columns first, its head on the side lane beside the rest.
fn pair_second(
    v: &mut Vec<Step>,
    p: &BandPlan,
    a: M,
    c0: usize,
    region: usize,
    next: Option<(usize, Place)>,
) {
    let s = &p.shape;
    let kd = s.kd;
    let hop = if s.complex { Op::C } else { Op::T };
    let top = c0 + kd;
    let pm = s.n - top;
    let parts = p.parts(c0, Mode::Second(region).place());
    let first = p.parts(c0 - kd, Mode::First(region).place());
    // (the first panel's blocks from its row kd: this panel's rows)
    let (vf0, w0) = (at(first.vf, kd, 0), at(first.x, kd, 0));
    let a22 = at(a, top, top);
    full_products(v, s, a22, pm, &parts, Some((vf0, w0)));
    // [Vf₀ Vf₁ X₀ X₁] and [X₀ X₁ Vf₀ Vf₁] start where Vf₀ and X₀ do (this panel's rows)
    let update = |v: &mut Vec<Step>, (j0, j1): (usize, usize)| {
        gemm(
            v,
            (Op::N, hop),
            (pm, j1 - j0, 4 * kd),
            K::MinusOne,
            vf0,
            at(w0, j0, 0),
            K::One,
            at(a22, 0, j0),
        );
    };
    trailing_update(v, p, a, pm, next, update);
}

impl WorkspacePlan for BandPlan {
    fn sizes(&self) -> smallvec::SmallVec<[usize; 4]> {
        let w = self.workspace();
        let mut s = smallvec::SmallVec::from_buf(w.blocks.list());
        s.push(w.exchange);
        s.push(w.cholqr);
        s
    }
}

/// The band reduction's tuning values.
const SYMM_NB: usize = 256;
/// The two-stage `syevd`'s `pair_rows`: where the trailing update of rank `2 kd` takes
/// longer than the CholeskyQR2 panel beside it (H200: ≈ 200 µs, the update's time at about
/// this order), two panels share one update of rank `4 kd`.
pub(crate) const PAIR_ROWS: usize = 5120;
const SYMM_EBLOCKS: usize = 4;

/// One band reduction: the order-`n` matrix `a` (lower triangle, `lda`) to `kd` subdiagonals,
/// the `n − kd` scalars to `tau`.
pub(crate) struct BandCall<'a, T: Scalar> {
    pub n: usize,
    pub kd: usize,
    pub a: &'a mut DeviceBuffer<T>,
    pub lda: usize,
    pub tau: &'a mut DeviceBuffer<T>,
}

/// A band reduction on its way through the driver, with the GEMM engine it borrows (CUDA).
struct BandRoutine<'a, T: Scalar> {
    call: BandCall<'a, T>,
    lt: Option<Lt>,
    plan: Option<BandPlan>,
    /// Space A (the programs read no A).
    placeholder: DeviceBuffer<T>,
}

const NAME: &str = "sytrd_sy2sb";

impl<T: Scalar> BandRoutine<'_, T> {
    fn operands(&mut self) -> Operands<'_, '_, T> {
        let mut ops = Operands::lapack(
            None,
            &self.placeholder,
            BatchMut::Single(&mut *self.call.a),
            (0, 1),
        );
        // (`W = X − ½ Vf M` takes K::Alpha.)
        ops.alpha = ScalarArg::Full(Coef::Host(T::from_real(T::Real::from_f64(-0.5))));
        ops
    }

    fn with_engine_need(&mut self, mut plan: BandPlan, limit: usize) -> Result<BandPlan, Error> {
        if let Some(mut lt) = self.lt.take() {
            let steps = build(&plan, self.call.lda);
            let layout = plan.layout();
            let need = {
                let ops = self.operands();
                exec_cuda::lt_need(&mut lt, &ops, &layout, &steps, limit)
            };
            self.lt = Some(lt);
            plan.lt = need?;
        }
        Ok(plan)
    }
}

impl<T: Scalar> Routine for BandRoutine<'_, T> {
    type Plan = BandPlan;

    fn name(&self) -> &'static str {
        NAME
    }

    fn check_sizes(&mut self) -> Result<(), Error> {
        let c = &self.call;
        check_ld(NAME, "lda", c.lda, c.n, "n")?;
        if c.kd == 0 {
            return Err(Error::InvalidSize(format!(
                "{NAME}: kd = 0; the band needs at least one subdiagonal"
            )));
        }
        span_or(NAME, mat_span(c.n, c.n, c.lda), &|| {
            format!("A of order n = {} with lda = {}", c.n, c.lda)
        })?;
        Ok(())
    }

    fn full(&mut self, h: &mut Handle) -> Result<Option<BandPlan>, Error> {
        let c = &self.call;
        // (LAPACK: no reflector below order kd + 2.)
        if c.n <= c.kd + 1 {
            return Ok(None);
        }
        exec_cuda::take_engine(h, &mut self.lt)?;
        let shape = BandShape {
            n: c.n,
            kd: c.kd,
            elem: std::mem::size_of::<T>(),
            complex: T::COMPLEX,
            sms: h.device().multiprocessor_count(),
            cholqr: crate::qr::cholqr_device::<T>(h),
            nb: SYMM_NB,
            eblocks: SYMM_EBLOCKS,
            full: false,
            pair_rows: usize::MAX,
        };
        let plan = shape.plan();
        self.plan = Some(plan);
        let limit = plan.qr.params.engine_budget.min(LT_MAX_WORKSPACE);
        self.with_engine_need(plan, limit).map(Some)
    }

    fn check_operands(&mut self, h: &mut Handle) -> Result<(), Error> {
        let c = &self.call;
        let ck = Checker { h, call: NAME };
        let why = || format!("A of order n = {} with lda = {}", c.n, c.lda);
        let need = span_or(NAME, mat_span(c.n, c.n, c.lda), &why)?;
        ck.batch("A", &Batch::Single(&*c.a), need, &why, true, None)?;
        let kt = c.n.saturating_sub(c.kd);
        ck.batch(
            "tau",
            &Batch::Single(&*c.tau),
            kt,
            &|| format!("n − kd = {kt} scalars"),
            true,
            None,
        )
    }

    fn fitted(&mut self, cap: usize) -> Result<Option<BandPlan>, Error> {
        let Some(p) = self.plan else {
            return Ok(None);
        };
        let limit = p.qr.params.engine_budget.min(LT_MAX_WORKSPACE);
        match exec_cuda::engine_room(cap, p.own_bytes(), limit) {
            Some(room) => self.with_engine_need(p, room).map(Some),
            None if self.lt.is_none() && p.own_bytes() <= cap => Ok(Some(p)),
            None => Ok(None),
        }
    }

    fn minimum(&self) -> String {
        self.plan
            .map(|p| format!("needs {} bytes (panels, products' blocks)", p.own_bytes()))
            .unwrap_or_default()
    }

    fn run(&mut self, lease: &WorkspaceLease<'_>, plan: &BandPlan) -> Result<(), Error> {
        let steps = build(plan, self.call.lda);
        let ws = QrWorkspace::leased(lease);
        let kt = self.call.n - self.call.kd;
        match self.lt.take() {
            Some(mut lt) => {
                let family = QrFamily::<T>::Dev(crate::qr::cuda::DevTaus {
                    tau: self.call.tau.device_ptr().unwrap_or(0),
                    tau_s: 0,
                    ex: address(ws.exchange),
                    ex_s: plan.qr.exchange_per_entry(),
                    grid: plan.qr.grid,
                    info: 0,
                    info_s: 0,
                    cq: address(ws.cholqr),
                    cq_s: plan.qr.cholqr_per_entry(),
                    cq_blocks: plan.qr.cq,
                });
                let layout = plan.layout();
                let r = {
                    let ops = self.operands();
                    exec_cuda::run(
                        lease.handle(),
                        &ws.blocks,
                        &mut lt,
                        &ops,
                        &layout,
                        &steps,
                        &family,
                        NAME,
                    )
                };
                self.lt = Some(lt);
                r
            }
            None => {
                let mut family = QrFamily::Host {
                    tau: vec![T::zero(); kt],
                    kt,
                    info: Vec::new(),
                };
                {
                    let mut ops = self.operands();
                    exec_host::run(lease.handle(), &ws.blocks, &mut ops, &steps, &mut family)?;
                }
                if let QrFamily::Host { tau, .. } = &family {
                    let dst = self
                        .call
                        .tau
                        .host_slice_mut()
                        .ok_or_else(crate::common::host::not_host)?;
                    dst[..kt].copy_from_slice(tau);
                }
                Ok(())
            }
        }
    }

    fn finish(&mut self, h: &mut Handle) {
        exec_cuda::give_back(h, self.lt.take());
    }
}

/// Reduces `call.a` to a band of `call.kd` subdiagonals (stage 1 of `syevd`).
pub(crate) fn sy2sb<T: Scalar>(h: &mut Handle, call: BandCall<'_, T>) -> Result<Status, Error> {
    let mut r = BandRoutine {
        call,
        lt: None,
        plan: None,
        placeholder: DeviceBuffer::<T>::placeholder(0),
    };
    drive(h, &mut r)
}

#[cfg(test)]
pub(crate) mod tests {
    //! The reduction against its definition, in plain f64 loops: `A = Q B Qᴴ` with `B` the
    //! band left in the lower triangle and `Q` built from the stored reflectors, `Q` unitary,
    //! the upper triangle untouched.

    use super::*;
    use crate::{Complex64, Device};
    use num_complex::Complex;

    pub(crate) type C = Complex<f64>;

    pub(crate) trait Elem: Scalar {
        fn make(v: C) -> Self;
        fn get(self) -> C;
    }
    impl Elem for f64 {
        fn make(v: C) -> Self {
            v.re
        }
        fn get(self) -> C {
            C::new(self, 0.0)
        }
    }
    impl Elem for Complex64 {
        fn make(v: C) -> Self {
            Complex64::new(v.re, v.im)
        }
        fn get(self) -> C {
            C::new(self.re, self.im)
        }
    }
    impl Elem for f32 {
        fn make(v: C) -> Self {
            v.re as f32
        }
        fn get(self) -> C {
            C::new(self as f64, 0.0)
        }
    }
    impl Elem for crate::Complex32 {
        fn make(v: C) -> Self {
            crate::Complex32::new(v.re as f32, v.im as f32)
        }
        fn get(self) -> C {
            C::new(self.re as f64, self.im as f64)
        }
    }

    pub(crate) struct Lcg(pub(crate) u64);
    impl Lcg {
        pub(crate) fn uni(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        }
    }

    pub(crate) fn mul(a: &[C], b: &[C], n: usize) -> Vec<C> {
        let mut c = vec![C::new(0.0, 0.0); n * n];
        for j in 0..n {
            for k in 0..n {
                let bkj = b[k + j * n];
                if bkj == C::new(0.0, 0.0) {
                    continue;
                }
                for i in 0..n {
                    c[i + j * n] += a[i + k * n] * bkj;
                }
            }
        }
        c
    }

    pub(crate) fn adjoint(a: &[C], n: usize) -> Vec<C> {
        let mut t = vec![C::new(0.0, 0.0); n * n];
        for j in 0..n {
            for i in 0..n {
                t[j + i * n] = a[i + j * n].conj();
            }
        }
        t
    }

    pub(crate) fn max_abs(a: &[C]) -> f64 {
        a.iter().map(|v| v.norm()).fold(0.0, f64::max)
    }

    fn check<T: Elem>(dev: &Device, n: usize, kd: usize, seed: u64) {
        let cplx = T::COMPLEX;
        let lda = n + 3;
        let mut r = Lcg(seed);
        let mut a0 = vec![C::new(0.0, 0.0); n * n];
        for j in 0..n {
            for i in j..n {
                let im = if cplx && i != j { r.uni() } else { 0.0 };
                let v = C::new(r.uni(), im);
                a0[i + j * n] = v;
                a0[j + i * n] = v.conj();
            }
        }
        let poison = T::make(C::new(f64::NAN, f64::NAN));
        let mut host = vec![poison; lda * n];
        for j in 0..n {
            for i in j..n {
                host[i + j * lda] = T::make(a0[i + j * n]);
            }
        }
        let mut h = Handle::new(dev).unwrap();
        let mut a = dev.upload(&host).unwrap();
        // (no reflector below order kd + 2, LAPACK's quick return)
        let kt = if n > kd + 1 { n - kd } else { 0 };
        let mut tau = dev.upload(&vec![poison; kt + 1]).unwrap();
        let st = sy2sb(
            &mut h,
            BandCall {
                n,
                kd,
                a: &mut a,
                lda,
                tau: &mut tau,
            },
        )
        .unwrap();
        assert_eq!(st, Status::Success);
        let out = a.to_vec().unwrap();
        let taus = tau.to_vec().unwrap();
        let what = format!("n = {n}, kd = {kd}, complex = {cplx}");
        // The upper triangle and the padding rows untouched; tau's end untouched.
        for j in 0..n {
            for i in 0..lda {
                if i < j || i >= n {
                    assert!(
                        out[i + j * lda].get().re.is_nan(),
                        "{what}: ({i}, {j}) written"
                    );
                }
            }
        }
        assert!(
            taus[kt].get().re.is_nan(),
            "{what}: tau past its end written"
        );
        // B from the band, Q from the reflectors.
        let mut b = vec![C::new(0.0, 0.0); n * n];
        for j in 0..n {
            for i in j..(j + kd + 1).min(n) {
                let v = out[i + j * lda].get();
                let v = if i == j { C::new(v.re, 0.0) } else { v };
                b[i + j * n] = v;
                b[j + i * n] = v.conj();
            }
        }
        let mut q = vec![C::new(0.0, 0.0); n * n];
        for i in 0..n {
            q[i + i * n] = C::new(1.0, 0.0);
        }
        for k in 0..kt {
            let top = k + kd;
            let mut v = vec![C::new(0.0, 0.0); n];
            v[top] = C::new(1.0, 0.0);
            for (i, vi) in v.iter_mut().enumerate().skip(top + 1) {
                *vi = out[i + k * lda].get();
            }
            let t = taus[k].get();
            // Q := Q (I − t v vᴴ)
            for row in 0..n {
                let mut s = C::new(0.0, 0.0);
                for i in top..n {
                    s += q[row + i * n] * v[i];
                }
                let s = s * t;
                for i in top..n {
                    q[row + i * n] -= s * v[i].conj();
                }
            }
        }
        let qb = mul(&q, &b, n);
        let rec = mul(&qb, &adjoint(&q, n), n);
        let diff: Vec<C> = rec.iter().zip(&a0).map(|(x, y)| x - y).collect();
        let eps = f64::EPSILON;
        let res = max_abs(&diff) / (max_abs(&a0) * n as f64 * eps);
        let qq = mul(&adjoint(&q, n), &q, n);
        let orth = (0..n * n)
            .map(|x| (qq[x] - if x % (n + 1) == 0 { 1.0 } else { 0.0 }).norm())
            .fold(0.0, f64::max)
            / (n as f64 * eps);
        assert!(
            res < 30.0 && orth < 30.0,
            "{what}: ‖A − QBQᴴ‖ {res:.2}, ‖QᴴQ − I‖ {orth:.2} (× n ε)"
        );
    }

    fn all(dev: &Device) {
        for &(n, kd) in &[
            (1, 4),
            (5, 4),
            (6, 4),
            (10, 3),
            (40, 8),
            (97, 16),
            (130, 32),
            (300, 64),
            (700, 64),
        ] {
            check::<f64>(dev, n, kd, n as u64);
            check::<Complex64>(dev, n, kd, 7 + n as u64);
        }
    }

    /// A full matrix's CholeskyQR2 panels write `Vf` (their set's slot) and `T` (E's slot)
    /// themselves, with the fallback step after the gated Householder panel: no copy of `V`,
    /// no Gram of it, no `TFactor`; the short last panels (fewer rows than CholeskyQR2 takes)
    /// make them as before.
    #[test]
    fn f1_cholqr_panels_write_vf_and_t() {
        let plan = BandShape {
            n: 4096,
            kd: 32,
            elem: 8,
            complex: false,
            sms: 132,
            cholqr: true,
            nb: SYMM_NB,
            eblocks: SYMM_EBLOCKS,
            full: true,
            pair_rows: PAIR_ROWS,
        }
        .plan();
        let steps = build(&plan, 4096);
        let panels: Vec<usize> = (0..4096 - 32).step_by(32).collect();
        let gated: Vec<usize> = panels
            .iter()
            .copied()
            .filter(|&c0| plan.qr.cholqr_panel(4096 - c0 - 32, 32))
            .collect();
        assert!(gated.len() > panels.len() / 2 && gated.len() < panels.len());
        let count = |f: &dyn Fn(&Step) -> bool| steps.iter().filter(|s| f(s)).count();
        let t = mat(Space::E, plan.bases().0, 32, 0);
        let mut outs = Vec::new();
        for st in &steps {
            if let Block::Family(QrStep::CqLu(p)) = st {
                outs.push(p.out);
            }
        }
        assert_eq!(outs.len(), gated.len());
        for (j, (&c0, out)) in gated.iter().zip(&outs).enumerate() {
            let PanelParts { vf, vt, .. } = plan.parts(c0, Place::Set(j % 2));
            assert_eq!(*out, Some(CqOut { vf, t, vt }), "panel {c0}");
        }
        let tfall = |s: &Step| matches!(s, Block::Family(QrStep::CqTFall(p)) if p.out.is_some());
        assert_eq!(count(&tfall), gated.len());
        for (i, s) in steps.iter().enumerate() {
            if tfall(s) {
                assert!(matches!(
                    steps[i - 1],
                    Block::Family(QrStep::Panel { gated: true, .. })
                ));
            }
        }
        let tfactor = |s: &Step| matches!(s, Block::Family(QrStep::TFactor { .. }));
        assert_eq!(count(&tfactor), panels.len() - gated.len());
        let expand = |s: &Step| matches!(s, Block::Expand { .. });
        assert_eq!(count(&expand), panels.len() - gated.len());
        // per panel: X, M, W, the update's two (next panel's columns, the rest; one for the
        // last), and without CholeskyQR2 G and VT
        let products = count(&|s: &Step| matches!(s, Block::Gemm { .. }));
        let tail = 5 * panels.len() - 1;
        assert_eq!(products, tail + 2 * (panels.len() - gated.len()));
    }

    #[test]
    fn f1_sy2sb_host() {
        all(&Device::host());
    }

    #[test]
    #[ignore = "needs a CUDA GPU; run with --include-ignored on a GPU machine"]
    fn f1_sy2sb_cuda() {
        all(&Device::cuda(0).unwrap());
    }
}
