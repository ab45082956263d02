//! The QR family's programs: blocked Householder (LAPACK's `geqrf`, `orgqr`, `ormqr`) as the
//! executor's products plus the family's own steps. Per block of `nb` reflectors: the panel
//! (`geqr2`, one kernel over all its rows), the triangular factor `T` of the compact WY form
//! (`Q_block = I − V T Vᴴ`: `G = Vᴴ V` as two products, then `T` by LAPACK's `larft`
//! recurrence), and `larfb`: the block reflector applied to the trailing columns in chunks,
//! five products through `W`.
//!
//! Workspace per entry (elements): E holds `V1` (the block's top `nb × nb`, expanded unit
//! lower) at 0 and `T` at `nb²`; R holds `G` at 0, orgqr's `X = T V1ᴴ` at `nb²`, `W` at
//! `2 nb²` and `W2` after it (`nb × rc` each; `rc` rows or columns per chunk).

use super::plan::QrPlan;
use super::Kind;
use crate::exec::program::{mat, Fill, Space, Step as Block, K, M};
use crate::{Op, Side};

/// A geqrf panel factored by CholeskyQR2 (`kernels/cholqr.cu`): the `rows × cols` block at
/// `a`, its scalars at `tau[k0 ..]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CqPanel {
    pub rows: usize,
    pub cols: usize,
    pub a: M,
    pub k0: usize,
    /// Where the panel's reflectors also go as a plain matrix, with their `T`.
    pub out: Option<CqOut>,
}

/// A CholeskyQR2 panel's optional outputs: `vf` (`rows × cols`) = `V` with its unit upper
/// triangle written out, `t` (`cols × cols`) its `T` (upper, zeros below) and `vt` = `Vf T`
/// (`rows × cols`), made by `CqLu` and `CqFinish` (`T` from the reconstruction: no Gram of
/// `V`), or by `CqTFall` where the panel fell back to Householder's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CqOut {
    pub vf: M,
    pub t: M,
    pub vt: M,
}

/// The family's own steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum QrStep {
    /// Zeroes the panel kernel's barrier counters (entries of this chunk).
    Init,
    /// `geqr2` of the `rows × cols` block at `a`: vectors below its diagonal, `R` on and above,
    /// scalars to `tau[k0 ..]`. `gated`: only for the entries whose CholeskyQR2 steps just
    /// before fell back (their flag set; the block untouched).
    Panel {
        rows: usize,
        cols: usize,
        a: M,
        k0: usize,
        gated: bool,
    },
    /// CholeskyQR2, pass 1: the partial Grams of the panel and its columns' mask.
    CqGram(CqPanel),
    /// The partial Grams summed into `G` (`second`: those of pass 2, skipped once the flag is
    /// set; else pass 1's, with the mask).
    CqReduce { p: CqPanel, second: bool },
    /// `R1 = chol(G1)` and the flag (1: fall back to Householder's panel).
    CqChol1(CqPanel),
    /// Pass 2: the partial Grams of `A R1⁻¹`.
    CqSolve(CqPanel),
    /// `R2`, the checks, the top block's LU with signs, `tau`, and `W⁻¹` (`W = U R2`) for
    /// pass 3.
    CqLu(CqPanel),
    /// Pass 3: the vectors below the top block, `(a R1⁻¹) W⁻¹` in place.
    CqFinish(CqPanel),
    /// After the gated `Panel`, the panel's `out` where it fell back (nothing elsewhere).
    CqTFall(CqPanel),
    /// `geqrf` of the whole `rows × cols` matrix at `a` (both at most `SMALL`), one warp
    /// per matrix.
    Small { rows: usize, cols: usize, a: M },
    /// `geqrf` of the whole `rows × cols` matrix at `a` (at most `WHOLE_COLS` columns, within
    /// the plan's shared memory), one block per matrix.
    Whole { rows: usize, cols: usize, a: M },
    /// `T` (`k × k`, upper, written whole with zeros below) at `t` from `G = Vᴴ V` at `g`
    /// and `tau[k0 .. k0 + k]`; for `count` blocks of `k` reflectors at once (`g.bs` = `t.bs`
    /// apart, `tau` from `k0 + b k`). `g` may be `t` (in place).
    TFactor {
        k: usize,
        g: M,
        t: M,
        k0: usize,
        count: usize,
    },
    /// orgqr's block: the `rows × cols` block at `a`, holding its vectors, becomes
    /// `[I; 0] − V X` with `X = T V1ᴴ` (`cols × cols`) at `x`; each row needs only itself.
    OrgBlock {
        rows: usize,
        cols: usize,
        a: M,
        x: M,
    },
    /// The `rows × cols` block at `a` := the identity's columns `shift ..`: 1 where
    /// `row == column + shift`, else 0.
    Identity {
        rows: usize,
        cols: usize,
        a: M,
        shift: usize,
    },
    /// gels: info = the first exact zero on the diagonal of the order-`k` triangle at `a`
    /// (1-based; 0 if none): the matrix is not of full rank.
    DiagInfo { k: usize, a: M },
    /// gelqf, ormlq: `dst` (`cols × rows`) = the conjugate transpose of the `rows × cols`
    /// block at `src`; `strict`: only the part right of `src`'s diagonal is read (zeros in its
    /// place: the rows' reflectors, not `L` beside them).
    Transpose {
        rows: usize,
        cols: usize,
        src: M,
        dst: M,
        strict: bool,
    },
}

/// A step of a QR program.
pub(crate) type Step = Block<QrStep>;

/// What a program is built from: the call's shape.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Prog {
    pub kind: Kind,
    pub side: Side,
    /// `N`, or `C` for `Qᴴ` (real types: `T`).
    pub op: Op,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// Leading dimension of the vectors (space C for geqrf/orgqr, A for ormqr).
    pub ldv: usize,
    /// Leading dimension of the matrix written (space C).
    pub ldc: usize,
    /// The element type is complex (`ᴴ` is `C`, else `T`).
    pub complex: bool,
    /// Where the matrix written starts (elements; 0 but for a block of a larger matrix: the
    /// eigensolvers' band reduction factors panels below the band), and its space (C but
    /// where a program applies `Q` to a matrix of its own workspace).
    pub c_off: usize,
    pub c_sp: Space,
    /// Where ormqr's vectors are: their space (A but where they are the matrix another
    /// program reduced, in C) and first element.
    pub v_sp: Space,
    pub v_off: usize,
    /// The index of geqrf's first scalar in `tau` (0 but for such a block).
    pub k_off: usize,
}

impl Prog {
    /// Element (`r`, `c`) of the matrix written, as an operand.
    fn c(&self, r: usize, c: usize) -> M {
        mat(self.c_sp, self.c_off + r + c * self.ldc, self.ldc, 0)
    }

    /// Element (`r`, `c`) of ormqr's vectors, as an operand.
    fn v(&self, r: usize, c: usize) -> M {
        mat(self.v_sp, self.v_off + r + c * self.ldv, self.ldv, 0)
    }

    fn hop(&self) -> Op {
        if self.complex {
            Op::C
        } else {
            Op::T
        }
    }
}

/// Where a program's workspace blocks live (element offsets per entry).
#[derive(Clone, Copy)]
struct Slots {
    nb: usize,
    rc: usize,
    /// Where the slots start in E and R (geqrf's panels within a block have their own).
    e0: usize,
    r0: usize,
    /// Where `T` is in E: after `V1`, or the block's own made ahead (`QrPlan::tall`).
    t_off: usize,
    /// The vectors are one operand where they are (orgqr: `V1` expanded in place over the `R`
    /// that orgqr overwrites anyway), not `V1` in E beside `V2`: two products a block where
    /// the split needs three (`G`) or five (`larfb`).
    v_whole: bool,
}

/// Where gelqf and ormlq keep a block's reflectors transposed (R, after `W2`).
impl Slots {
    fn transposed(&self, ld: usize) -> M {
        mat(
            Space::R,
            self.r0 + 2 * self.nb * self.nb + 2 * self.nb * self.rc,
            ld.max(1),
            0,
        )
    }
}

impl Slots {
    fn v1(&self) -> M {
        mat(Space::E, self.e0, self.nb, 0)
    }
    fn t(&self) -> M {
        mat(Space::E, self.t_off, self.nb, 0)
    }
    fn g(&self) -> M {
        mat(Space::R, self.r0, self.nb, 0)
    }
    fn x(&self) -> M {
        mat(Space::R, self.r0 + self.nb * self.nb, self.nb, 0)
    }
    /// `W` and `W2`: `nb × rc` (left) or `rc × nb` (right), leading dimension `ld`.
    fn w(&self, ld: usize) -> M {
        mat(Space::R, self.r0 + 2 * self.nb * self.nb, ld, 0)
    }
    fn w2(&self, ld: usize) -> M {
        mat(
            Space::R,
            self.r0 + 2 * self.nb * self.nb + self.nb * self.rc,
            ld,
            0,
        )
    }
}

fn at(sp: Space, ld: usize, r: usize, c: usize) -> M {
    mat(sp, r + c * ld, ld, 0)
}

/// Appends `c = alpha op(a) op(b) + beta c` (nothing for an empty result).
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm(
    v: &mut Vec<Step>,
    (ta, tb): (Op, Op),
    (m, n, k): (usize, usize, usize),
    alpha: K,
    a: M,
    b: M,
    beta: K,
    c: M,
) {
    if m == 0 || n == 0 {
        return;
    }
    v.push(Block::Gemm {
        ta,
        tb,
        m,
        n,
        k,
        alpha,
        a,
        b,
        beta,
        c,
        count: 1,
    });
}

/// `V1` of the block of `w` vectors at `vb`: its unit lower triangle expanded into E.
fn expand_v1(v: &mut Vec<Step>, s: &Slots, vb: M, w: usize) {
    v.push(Block::Expand {
        fill: Fill::Tri { unit: true },
        lower: true,
        n: w,
        src: vb,
        dst: s.v1(),
        count: 1,
    });
}

/// `g = Vᴴ V = V1ᴴ V1 + V2ᴴ V2` of the block of `w` vectors of length `rows` at `vb` (`V1`
/// already in E; with `v_whole`, one product over `vb`).
fn gram(v: &mut Vec<Step>, p: &Prog, s: &Slots, vb: M, (w, rows): (usize, usize), g: M) {
    let h = p.hop();
    if s.v_whole {
        gemm(v, (h, Op::N), (w, w, rows), K::One, vb, vb, K::Zero, g);
        return;
    }
    gemm(v, (h, Op::N), (w, w, w), K::One, s.v1(), s.v1(), K::Zero, g);
    if rows > w {
        let v2 = mat(vb.sp, vb.off + w, vb.ld, 0);
        gemm(v, (h, Op::N), (w, w, rows - w), K::One, v2, v2, K::One, g);
    }
}

/// `T` of the block of `w` vectors of length `rows` at `vb` (in `vsp`): `V1` expanded into E
/// (not with `v_whole`: already in place), `G = V1ᴴ V1 + V2ᴴ V2`, then the recurrence.
fn tfactor(v: &mut Vec<Step>, p: &Prog, s: &Slots, vb: M, w: usize, rows: usize, k0: usize) {
    if !s.v_whole {
        expand_v1(v, s, vb, w);
    }
    gram(v, p, s, vb, (w, rows), s.g());
    v.push(Block::Family(QrStep::TFactor {
        k: w,
        g: s.g(),
        t: s.t(),
        k0,
        count: 1,
    }));
}

/// ormqr's and orgqr's `T` factors made ahead (`plan.tall`): each block's `G` in its own `T`
/// place, then the recurrence of every full-width block in one launch (in place), and of a
/// narrower last block in another. `blocks`: each block's first reflector `j`, width and
/// vectors (their length, where they start).
fn tfactors_ahead(
    v: &mut Vec<Step>,
    p: &Prog,
    s: &Slots,
    plan: &QrPlan,
    blocks: &[(usize, usize, usize, M)],
) -> Vec<Slots> {
    let nb2 = s.nb * s.nb;
    let own: Vec<Slots> = (0..blocks.len())
        .map(|b| Slots {
            t_off: plan.tall_base() + b * nb2,
            ..*s
        })
        .collect();
    for (&(_, w, rows, vb), sb) in blocks.iter().zip(&own) {
        if !s.v_whole {
            expand_v1(v, sb, vb, w);
        }
        gram(v, p, sb, vb, (w, rows), sb.t());
    }
    let full = blocks.iter().take_while(|b| b.1 == s.nb).count();
    if full > 0 {
        let t = mat(Space::E, own[0].t_off, s.nb, nb2);
        v.push(Block::Family(QrStep::TFactor {
            k: s.nb,
            g: t,
            t,
            k0: blocks[0].0,
            count: full,
        }));
    }
    for (&(j, w, _, _), sb) in blocks.iter().zip(&own).skip(full) {
        v.push(Block::Family(QrStep::TFactor {
            k: w,
            g: sb.t(),
            t: sb.t(),
            k0: j,
            count: 1,
        }));
    }
    own
}

/// `C := op(Q_block) C` for the `rows × (q1 − q0)` block of C at rows `r0 ..`, columns
/// `q0 .. q1`, with the block's `w` vectors at `vb` (`V1` already in E, or in place with
/// `v_whole`; `T` in E): chunks of `rc` columns, `W = Vᴴ C`, `W2 = op(T) W`, `C −= V W2`.
#[allow(clippy::too_many_arguments)]
fn larfb_left(
    v: &mut Vec<Step>,
    p: &Prog,
    s: &Slots,
    vb: M,
    (w, rows): (usize, usize),
    r0: usize,
    (q0, q1): (usize, usize),
    op: Op,
) {
    let h = p.hop();
    let v2 = mat(vb.sp, vb.off + w, vb.ld, 0);
    let (wm, w2m) = (s.w(s.nb), s.w2(s.nb));
    let mut q = q0;
    while q < q1 {
        let nc = s.rc.min(q1 - q);
        let c1 = p.c(r0, q);
        let c2 = p.c(r0 + w, q);
        let top = if op == Op::N { Op::N } else { h };
        if s.v_whole {
            gemm(v, (h, Op::N), (w, nc, rows), K::One, vb, c1, K::Zero, wm);
            gemm(v, (top, Op::N), (w, nc, w), K::One, s.t(), wm, K::Zero, w2m);
            let minus = K::MinusOne;
            gemm(v, (Op::N, Op::N), (rows, nc, w), minus, vb, w2m, K::One, c1);
            q += nc;
            continue;
        }
        gemm(v, (h, Op::N), (w, nc, w), K::One, s.v1(), c1, K::Zero, wm);
        if rows > w {
            gemm(v, (h, Op::N), (w, nc, rows - w), K::One, v2, c2, K::One, wm);
        }
        gemm(v, (top, Op::N), (w, nc, w), K::One, s.t(), wm, K::Zero, w2m);
        if rows > w {
            gemm(
                v,
                (Op::N, Op::N),
                (rows - w, nc, w),
                K::MinusOne,
                v2,
                w2m,
                K::One,
                c2,
            );
        }
        gemm(
            v,
            (Op::N, Op::N),
            (w, nc, w),
            K::MinusOne,
            s.v1(),
            w2m,
            K::One,
            c1,
        );
        q += nc;
    }
}

/// `C := C op(Q_block)` for the `(r1 − r0) × cols` block of C at rows `r0 .. r1`, columns
/// `c0 ..`: chunks of `rc` rows, `W = C V`, `W2 = W op(T)`, `C −= W2 Vᴴ`.
#[allow(clippy::too_many_arguments)]
fn larfb_right(
    v: &mut Vec<Step>,
    p: &Prog,
    s: &Slots,
    vb: M,
    (w, cols): (usize, usize),
    c0: usize,
    (r0, r1): (usize, usize),
    op: Op,
) {
    let h = p.hop();
    let v2 = mat(vb.sp, vb.off + w, vb.ld, 0);
    let (wm, w2m) = (s.w(s.rc), s.w2(s.rc));
    let mut r = r0;
    while r < r1 {
        let nr = s.rc.min(r1 - r);
        let c1 = p.c(r, c0);
        let c2 = p.c(r, c0 + w);
        gemm(
            v,
            (Op::N, Op::N),
            (nr, w, w),
            K::One,
            c1,
            s.v1(),
            K::Zero,
            wm,
        );
        if cols > w {
            gemm(
                v,
                (Op::N, Op::N),
                (nr, w, cols - w),
                K::One,
                c2,
                v2,
                K::One,
                wm,
            );
        }
        let top = if op == Op::N { Op::N } else { h };
        gemm(v, (Op::N, top), (nr, w, w), K::One, wm, s.t(), K::Zero, w2m);
        gemm(
            v,
            (Op::N, h),
            (nr, w, w),
            K::MinusOne,
            w2m,
            s.v1(),
            K::One,
            c1,
        );
        if cols > w {
            gemm(
                v,
                (Op::N, h),
                (nr, cols - w, w),
                K::MinusOne,
                w2m,
                v2,
                K::One,
                c2,
            );
        }
        r += nr;
    }
}

/// geqrf: the columns `j .. j + w` of a block factored by panels of `s.nb` (`s`: the panels'
/// own slots), each panel's reflector applied to the rest of the block.
/// A panel tall enough (`plan.cholqr_panel`) is CholeskyQR2's first, Householder's where it
/// falls back.
fn factor_block(v: &mut Vec<Step>, p: &Prog, s: &Slots, plan: &QrPlan, (j, w): (usize, usize)) {
    factor_panels(v, p, s, plan, (j, w), None);
}

/// [`factor_block`]; with `out`, a block of one CholeskyQR2 panel also writes its `Vf` and
/// `T` there. Whether it did.
fn factor_panels(
    v: &mut Vec<Step>,
    p: &Prog,
    s: &Slots,
    plan: &QrPlan,
    (j, w): (usize, usize),
    out: Option<CqOut>,
) -> bool {
    let single = w <= s.nb && plan.cholqr_panel(p.m - j, w);
    let out = out.filter(|_| single);
    for (c, cw) in blocks(w, s.nb) {
        let (j, rows) = (j + c, p.m - j - c);
        let k0 = p.k_off + j;
        let vb = p.c(j, j);
        let gated = plan.cholqr_panel(rows, cw);
        if gated {
            let cq = CqPanel {
                rows,
                cols: cw,
                a: vb,
                k0,
                out,
            };
            v.extend(
                [
                    QrStep::CqGram(cq),
                    QrStep::CqReduce {
                        p: cq,
                        second: false,
                    },
                    QrStep::CqChol1(cq),
                    QrStep::CqSolve(cq),
                    QrStep::CqReduce {
                        p: cq,
                        second: true,
                    },
                    QrStep::CqLu(cq),
                    QrStep::CqFinish(cq),
                ]
                .map(Block::Family),
            );
        }
        v.push(Block::Family(QrStep::Panel {
            rows,
            cols: cw,
            a: vb,
            k0,
            gated,
        }));
        if let (true, Some(out)) = (gated, out) {
            v.push(Block::Family(QrStep::CqTFall(CqPanel {
                rows,
                cols: cw,
                a: vb,
                k0,
                out: Some(out),
            })));
        }
        if c + cw < w {
            tfactor(v, p, s, vb, cw, rows, k0);
            larfb_left(v, p, s, vb, (cw, rows), j, (j + cw, j - c + w), p.hop());
        }
    }
    out.is_some()
}

/// geqrf's panels within a block: their own slots, `W` as wide as the block.
fn panel_slots(plan: &QrPlan) -> Slots {
    let (e0, r0) = plan.inner_bases();
    Slots {
        nb: plan.inner,
        rc: plan.nb,
        e0,
        r0,
        t_off: e0 + plan.inner * plan.inner,
        v_whole: false,
    }
}

/// Appends geqrf of the whole `p.m × p.n` matrix of `p` (a block of a larger one, at
/// `p.c_off`, its scalars from `tau[p.k_off]`) as panels of `plan.inner` columns, each applied
/// to the rest of the block: the eigensolvers' band reduction factors its panels so, in its
/// own program (which starts with [`init_steps`]). At most `plan.nb` columns. Where the whole
/// block is one CholeskyQR2 panel, its reflectors as a plain matrix, their `T` and `V T` go to
/// `out` too (see [`CqOut`]); whether they did (else the caller makes them).
pub(crate) fn factor_steps(v: &mut Vec<Step>, p: &Prog, plan: &QrPlan, out: CqOut) -> bool {
    factor_panels(v, p, &panel_slots(plan), plan, (0, p.m.min(p.n)), Some(out))
}

/// The steps a program with panels of `plan` starts with (the panel kernel's barrier
/// counters zeroed).
pub(crate) fn init_steps(v: &mut Vec<Step>, plan: &QrPlan) {
    if plan.grid > 1 {
        v.push(Block::Family(QrStep::Init));
    }
}

/// Block starts `0, nb, 2nb, …` below `k`, with their widths.
fn blocks(k: usize, nb: usize) -> Vec<(usize, usize)> {
    (0..k)
        .step_by(nb.max(1))
        .map(|j| (j, nb.min(k - j)))
        .collect()
}

/// The program of one call under `plan`.
pub(crate) fn build(p: &Prog, plan: &QrPlan) -> Vec<Step> {
    let s = Slots {
        nb: plan.nb,
        rc: plan.rc,
        e0: 0,
        r0: 0,
        t_off: plan.nb * plan.nb,
        v_whole: p.kind == Kind::Orgqr,
    };
    let panels = panel_slots(plan);
    let mut v = Vec::new();
    match p.kind {
        Kind::Geqrf if plan.small => {
            let (rows, cols, a) = (p.m, p.n, p.c(0, 0));
            v.push(Block::Family(if plan.whole {
                QrStep::Whole { rows, cols, a }
            } else {
                QrStep::Small { rows, cols, a }
            }));
        }
        Kind::Geqrf => {
            // Look-ahead: once block b's reflector has updated the next block's columns, the
            // next panel is factored on the side lane while the main lane updates the rest.
            let kmin = p.m.min(p.n);
            init_steps(&mut v, plan);
            let all = blocks(kmin, s.nb);
            if let Some(&first) = all.first() {
                factor_block(&mut v, p, &panels, plan, first);
            }
            for (b, &(j, w)) in all.iter().enumerate() {
                if j + w >= p.n {
                    continue;
                }
                let rows = p.m - j;
                let vb = p.c(j, j);
                tfactor(&mut v, p, &s, vb, w, rows, j);
                let apply = |v: &mut Vec<Step>, q: (usize, usize)| {
                    larfb_left(v, p, &s, vb, (w, rows), j, q, p.hop());
                };
                match all.get(b + 1) {
                    Some(&(j2, w2)) => {
                        apply(&mut v, (j2, j2 + w2));
                        v.push(Block::Fork);
                        factor_block(&mut v, p, &panels, plan, (j2, w2));
                        v.push(Block::Back);
                        apply(&mut v, (j2 + w2, p.n));
                        v.push(Block::Join);
                    }
                    None => apply(&mut v, (j + w, p.n)),
                }
            }
        }
        Kind::Orgqr => {
            if p.n > p.k {
                v.push(Block::Family(QrStep::Identity {
                    rows: p.m,
                    cols: p.n - p.k,
                    a: p.c(0, p.k),
                    shift: p.k,
                }));
            }
            let all: Vec<_> = blocks(p.k, s.nb)
                .into_iter()
                .map(|(j, w)| (j, w, p.m - j, p.c(j, j)))
                .collect();
            // Every block's `V1` in place, the full-width blocks in one step (their diagonal
            // blocks are `nb (ldc + 1)` apart), a narrower last one in another.
            let full = all.iter().take_while(|b| b.1 == s.nb).count();
            for (first, count) in [(0, full), (full, all.len() - full)] {
                if let Some(&(_, w, _, vb)) = all.get(first).filter(|_| count > 0) {
                    let v1 = M {
                        bs: s.nb * (p.ldc + 1),
                        ..vb
                    };
                    v.push(Block::Expand {
                        fill: Fill::Tri { unit: true },
                        lower: true,
                        n: w,
                        src: v1,
                        dst: v1,
                        count,
                    });
                }
            }
            let ahead = if plan.tall == all.len() {
                tfactors_ahead(&mut v, p, &s, plan, &all)
            } else {
                Vec::new()
            };
            for (b, &(j, w, rows, vb)) in all.iter().enumerate().rev() {
                let s = match ahead.get(b) {
                    Some(own) => *own,
                    None => {
                        tfactor(&mut v, p, &s, vb, w, rows, j);
                        s
                    }
                };
                if j + w < p.n {
                    larfb_left(&mut v, p, &s, vb, (w, rows), j, (j + w, p.n), Op::N);
                }
                // The block's own columns, `[I; 0] − V X` by the row-local kernel (blocks are
                // at most ORG_COLS wide).
                gemm(
                    &mut v,
                    (Op::N, p.hop()),
                    (w, w, w),
                    K::One,
                    s.t(),
                    vb,
                    K::Zero,
                    s.x(),
                );
                v.push(Block::Family(QrStep::OrgBlock {
                    rows,
                    cols: w,
                    a: vb,
                    x: s.x(),
                }));
                if j > 0 {
                    v.push(Block::Scale {
                        tri: None,
                        herm: false,
                        m: j,
                        n: w,
                        dst: p.c(0, j),
                        beta: K::Zero,
                    });
                }
            }
        }
        Kind::Gelqf => {
            // geqrf of Aᴴ a block of rows at a time: the block transposed into R, its panel
            // there, transposed back (L's diagonal block and the conjugated vectors), then
            // `T` and the block reflector applied from the right to the rows below.
            let kmin = p.m.min(p.n);
            if plan.grid > 1 {
                v.push(Block::Family(QrStep::Init));
            }
            for (j, w) in blocks(kmin, s.nb) {
                let len = p.n - j;
                let rows_a = p.c(j, j);
                let vt = s.transposed(plan.tp);
                v.push(Block::Family(QrStep::Transpose {
                    rows: w,
                    cols: len,
                    src: rows_a,
                    dst: vt,
                    strict: false,
                }));
                v.push(Block::Family(QrStep::Panel {
                    rows: len,
                    cols: w,
                    a: vt,
                    k0: j,
                    gated: false,
                }));
                v.push(Block::Family(QrStep::Transpose {
                    rows: len,
                    cols: w,
                    src: vt,
                    dst: rows_a,
                    strict: false,
                }));
                if j + w < p.m {
                    tfactor(&mut v, p, &s, vt, w, len, j);
                    larfb_right(&mut v, p, &s, vt, (w, len), j, (j + w, p.m), Op::N);
                }
            }
        }
        Kind::Ormlq => {
            // gelqf's Q is Qᴴ of geqrf-of-Aᴴ's reflectors: ormqr's blocks with the other op,
            // each block's rows of A transposed into R first.
            let left = p.side == Side::Left;
            let nq = if left { p.m } else { p.n };
            let op = if p.op == Op::N { p.hop() } else { Op::N };
            let forward = left != (op == Op::N);
            let mut order = blocks(p.k, s.nb);
            if !forward {
                order.reverse();
            }
            for (j, w) in order {
                let len = nq - j;
                let vt = s.transposed(plan.tp);
                v.push(Block::Family(QrStep::Transpose {
                    rows: w,
                    cols: len,
                    src: at(Space::A, p.ldv, j, j),
                    dst: vt,
                    strict: true,
                }));
                tfactor(&mut v, p, &s, vt, w, len, j);
                if left {
                    larfb_left(&mut v, p, &s, vt, (w, len), j, (0, p.n), op);
                } else {
                    larfb_right(&mut v, p, &s, vt, (w, len), j, (0, p.m), op);
                }
            }
        }
        Kind::Ormqr => {
            let left = p.side == Side::Left;
            let nq = if left { p.m } else { p.n };
            let forward = left != (p.op == Op::N);
            let all: Vec<_> = blocks(p.k, s.nb)
                .into_iter()
                .map(|(j, w)| (j, w, nq - j, p.v(j, j)))
                .collect();
            let ahead = if plan.tall == all.len() {
                tfactors_ahead(&mut v, p, &s, plan, &all)
            } else {
                Vec::new()
            };
            let mut order: Vec<usize> = (0..all.len()).collect();
            if !forward {
                order.reverse();
            }
            for b in order {
                let (j, w, rows, vb) = all[b];
                let s = match ahead.get(b) {
                    Some(own) => {
                        expand_v1(&mut v, own, vb, w);
                        *own
                    }
                    None => {
                        tfactor(&mut v, p, &s, vb, w, rows, j);
                        s
                    }
                };
                if left {
                    larfb_left(&mut v, p, &s, vb, (w, rows), j, (0, p.n), p.op);
                } else {
                    larfb_right(&mut v, p, &s, vb, (w, rows), j, (0, p.m), p.op);
                }
            }
        }
    }
    v
}

/// What gels's solve is built from: the factorization (`lq`: `A = L Q`, else `A = Q R`),
/// `op(A) X = B` with `trans`, `A` of `m × n` (space A, `lda`), `B` with `nrhs` columns
/// (space C, `ldb`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct GelsSolve {
    pub lq: bool,
    pub trans: bool,
    pub m: usize,
    pub n: usize,
    pub nrhs: usize,
    pub lda: usize,
    pub ldb: usize,
    pub complex: bool,
}

impl GelsSolve {
    /// The program applying `Q` (or `Qᴴ`) to `B` from the left.
    pub(crate) fn apply(&self, op: Op) -> Prog {
        let k = self.m.min(self.n);
        Prog {
            kind: if self.lq { Kind::Ormlq } else { Kind::Ormqr },
            side: Side::Left,
            op,
            m: self.m.max(self.n),
            n: self.nrhs,
            k,
            ldv: self.lda,
            ldc: self.ldb,
            complex: self.complex,
            c_off: 0,
            c_sp: Space::C,
            v_sp: Space::A,
            v_off: 0,
            k_off: 0,
        }
    }

    fn hop(&self) -> Op {
        if self.complex {
            Op::C
        } else {
            Op::T
        }
    }
}

/// `op(T) X = B` in place on the first `k` rows of B (space C), `T` the order-`k` triangle of
/// the factors (space A; `lower`: L, else R): substitution on 32-row blocks in the solve's
/// order, each followed by one product updating the rows still to solve.
fn tri_solve(v: &mut Vec<Step>, g: &GelsSolve, lower: bool, op: Op, k: usize) {
    const BLK: usize = crate::exec::program::INV_NB;
    let forward = lower == (op == Op::N);
    let a = |r: usize, c: usize| at(Space::A, g.lda, r, c);
    let b = |r: usize| at(Space::C, g.ldb, r, 0);
    // The block of op(T) at rows `r`, columns `c`: stored at (r, c) for N, at (c, r) else.
    let block = |r: usize, c: usize| if op == Op::N { a(r, c) } else { a(c, r) };
    let starts: Vec<usize> = (0..k).step_by(BLK).collect();
    let order: Vec<usize> = if forward {
        starts
    } else {
        starts.into_iter().rev().collect()
    };
    for p0 in order {
        let pw = BLK.min(k - p0);
        v.push(Block::TriSolve {
            left: true,
            lower,
            op,
            unit: false,
            m: pw,
            n: g.nrhs,
            a: a(p0, p0),
            b: b(p0),
            alpha: K::One,
        });
        let (r0, rows) = if forward {
            (p0 + pw, k - p0 - pw)
        } else {
            (0, p0)
        };
        if rows > 0 {
            gemm(
                v,
                (op, Op::N),
                (rows, g.nrhs, pw),
                K::MinusOne,
                block(r0, p0),
                b(p0),
                K::One,
                b(r0),
            );
        }
    }
}

/// gels after the factorization (LAPACK's `gels`): with `A = Q R` (`m ≥ n`) least squares
/// `R X = (Qᴴ B)[..n]` (op N) or the least-norm `X = Q [R⁻ᴴ B; 0]` (op C); with `A = L Q`
/// least-norm `X = Qᴴ [L⁻¹ B; 0]` (op N) or least squares `Lᴴ X = (Q B)[..m]` (op C).
pub(crate) fn build_gels_solve(g: &GelsSolve, plan: &QrPlan) -> Vec<Step> {
    let k = g.m.min(g.n);
    let h = g.hop();
    let mut v = Vec::new();
    if k == 0 {
        // No rows or no columns in A: X = 0 (LAPACK's quick return).
        v.push(Block::Scale {
            tri: None,
            herm: false,
            m: g.m.max(g.n),
            n: g.nrhs,
            dst: at(Space::C, g.ldb, 0, 0),
            beta: K::Zero,
        });
        return v;
    }
    let zero_tail = |v: &mut Vec<Step>| {
        let rows = g.m.max(g.n) - k;
        if rows > 0 {
            v.push(Block::Scale {
                tri: None,
                herm: false,
                m: rows,
                n: g.nrhs,
                dst: at(Space::C, g.ldb, k, 0),
                beta: K::Zero,
            });
        }
    };
    match (g.lq, g.trans) {
        (false, false) => {
            v.extend(build(&g.apply(h), plan));
            tri_solve(&mut v, g, false, Op::N, k);
        }
        (false, true) => {
            tri_solve(&mut v, g, false, h, k);
            zero_tail(&mut v);
            v.extend(build(&g.apply(Op::N), plan));
        }
        (true, false) => {
            tri_solve(&mut v, g, true, Op::N, k);
            zero_tail(&mut v);
            v.extend(build(&g.apply(h), plan));
        }
        (true, true) => {
            v.extend(build(&g.apply(Op::N), plan));
            tri_solve(&mut v, g, true, h, k);
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qr::plan::{QrParams, QrShape};

    /// The plan and program of one f64 call of `kind` (left side, op N, tight leading
    /// dimensions) on a device of 132 SMs.
    fn plan_and_steps(kind: Kind, m: usize, n: usize, k: usize) -> (QrPlan, Vec<Step>) {
        let shape = QrShape {
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
        };
        let prog = Prog {
            kind,
            side: Side::Left,
            op: Op::N,
            m,
            n,
            k,
            ldv: m,
            ldc: m,
            complex: false,
            c_off: 0,
            c_sp: Space::C,
            v_sp: Space::A,
            v_off: 0,
            k_off: 0,
        };
        let plan = shape.full();
        let steps = build(&prog, &plan);
        (plan, steps)
    }

    fn geqrf_steps(m: usize, n: usize) -> Vec<Step> {
        plan_and_steps(Kind::Geqrf, m, n, 0).1
    }

    /// orgqr expands every block's `V1` in place (full-width blocks in one step, a narrower
    /// last one in another), then uses the vectors as one operand: one product for each
    /// block's `G`, three per trailing chunk, one for `X`; nothing reads E's `V1` slot.
    #[test]
    fn f1_orgqr_vectors_whole_in_place() {
        for (m, n, k) in [(8192, 8192, 8192), (1000, 700, 650)] {
            let (plan, mut steps) = plan_and_steps(Kind::Orgqr, m, n, k);
            let nb = plan.nb;
            let nblocks = k.div_ceil(nb);
            let expands: Vec<_> = steps
                .iter()
                .filter_map(|s| match s {
                    Block::Expand {
                        src, dst, count, n, ..
                    } => Some((*src, *dst, *count, *n)),
                    _ => None,
                })
                .collect();
            let full = k / nb;
            let mut want = vec![(full, nb)];
            if k % nb != 0 {
                want.push((1, k % nb));
            }
            let got: Vec<_> = expands.iter().map(|e| (e.2, e.3)).collect();
            assert_eq!(got, want, "{m} {n} {k}");
            for (src, dst, ..) in &expands {
                assert_eq!(src, dst);
                assert_eq!(src.sp, Space::C);
                assert_eq!(src.bs, nb * (m + 1));
            }
            let chunks: usize = (0..nblocks)
                .map(|b| (n - (b * nb + nb).min(k)).div_ceil(plan.rc))
                .sum();
            let products = steps
                .iter()
                .filter(|s| matches!(s, Block::Gemm { .. }))
                .count();
            assert_eq!(products, 2 * nblocks + 3 * chunks, "{m} {n} {k}");
            for s in steps.iter_mut() {
                if let Some(first) = s.start(Space::E) {
                    assert!(first >= nb * nb, "{s:?}");
                }
            }
        }
    }

    /// Each gated panel comes right after its seven CholeskyQR2 steps; panels of fewer than
    /// `cholqr_min_rows` (512) rows are Householder's alone.
    #[test]
    fn f1_cholqr_program_shape() {
        let steps = geqrf_steps(4096, 64);
        let fam: Vec<&QrStep> = steps
            .iter()
            .filter_map(|s| match s {
                Block::Family(f) => Some(f),
                _ => None,
            })
            .collect();
        assert_eq!(fam.len(), 9, "{fam:?}");
        assert!(matches!(fam[0], QrStep::Init));
        assert!(matches!(fam[1], QrStep::CqGram(p) if p.rows == 4096 && p.cols == 64));
        assert!(matches!(fam[7], QrStep::CqFinish(_)));
        assert!(matches!(fam[8], QrStep::Panel { gated: true, .. }));

        let steps = geqrf_steps(4096, 4096);
        let mut expect_gated = Vec::new();
        let mut gated = Vec::new();
        for (i, s) in steps.iter().enumerate() {
            if let Block::Family(QrStep::Panel { rows, gated: g, .. }) = s {
                expect_gated.push(*rows >= 512);
                gated.push(*g);
                if *g {
                    assert!(matches!(steps[i - 1], Block::Family(QrStep::CqFinish(_))));
                    assert!(matches!(steps[i - 7], Block::Family(QrStep::CqGram(_))));
                }
            }
        }
        assert_eq!(gated, expect_gated);
        assert_eq!(gated.iter().filter(|g| **g).count(), 57);
    }
}
