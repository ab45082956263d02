//! The programs of `trsm` and `trtri`, on the same block steps as the rest of Level 3.
//!
//! Inverting a triangle (`trtri`, and trsm's diagonal blocks): a kernel inverts its 32 × 32
//! diagonal blocks, then, level by level over the recursive cut of `exec::program::levels`, each
//! off-diagonal block is two products through a temporary in R. For a lower triangle with
//! diagonal blocks `p` (first) and `q` (second), `inv_qp = -inv_qq (A_qp inv_pp)`; upper:
//! `inv_pq = -inv_pp (A_pq inv_qq)`. The temporary is made a column chunk at a time, and both
//! products skip the zero parts of the triangular factors (so about `n³/2` multiply-adds
//! instead of `2n³/3`).
//!
//! Solving (`trsm`): the rows (Left) or columns (Right) of `B` are cut like the triangle: a
//! recursion solves the first half, updates the second with one product, solves the second
//! (the order reversed for a backward solve). A leaf is one product with its inverted
//! diagonal block into R and a copy back, or substitution in place.

use super::plan::Plan;
use super::{Call, Method};
use crate::exec::program::{at, levels, mat, runs, Space, Step, INV_NB, K, M, TRSL_MAX};
use crate::exec::NoSteps;
use crate::{Diag, Op, Scalar, Side, Uplo};

/// With a block stride.
fn every(x: M, bs: usize) -> M {
    M { bs, ..x }
}

/// Row chunks of the second product: more of them on big blocks, to skip more zeros.
fn row_cuts(rows: usize) -> Vec<(usize, usize)> {
    let parts = if rows >= 1024 {
        4
    } else if rows >= 256 {
        2
    } else {
        1
    };
    let mut v = Vec::new();
    let mut r0 = 0;
    for i in 1..=parts {
        let r1 = if i == parts {
            rows
        } else {
            (rows * i / parts).div_ceil(32) * 32
        };
        if r1 > r0 {
            v.push((r0, r1.min(rows)));
            r0 = r1.min(rows);
        }
    }
    v
}

/// A triangle of order `n` to invert: `src` (the stored triangle) into `dst` (whose other
/// triangle must already be zero), `count` of them `src.bs` / `dst.bs` apart.
#[derive(Clone, Copy)]
struct Inv {
    lower: bool,
    unit: bool,
    n: usize,
    src: M,
    dst: M,
    count: usize,
}

/// Steps that invert `t` with at most `rlen` elements of R.
fn invert<F>(v: &mut Vec<Step<F>>, t: Inv, rlen: usize) {
    v.push(Step::TriInv {
        lower: t.lower,
        unit: t.unit,
        n: t.n,
        src: t.src,
        dst: t.dst,
        count: t.count,
    });
    for l in levels(t.n, INV_NB) {
        for (p0, q0, qs, cnt) in runs(&l) {
            if t.count > 1 {
                // Leaves batched: one pair at a time, every leaf at once.
                for j in 0..cnt {
                    let d = 2 * l.s * j;
                    pair(
                        v,
                        t,
                        (p0 + d, q0 + d, l.s, qs),
                        t.count,
                        (t.src.bs, t.dst.bs),
                        rlen,
                    );
                }
            } else {
                let (sa, sd) = (2 * l.s * (t.src.ld + 1), 2 * l.s * (t.dst.ld + 1));
                pair(v, t, (p0, q0, l.s, qs), cnt, (sa, sd), rlen);
            }
        }
    }
}

/// The off-diagonal block of one pair of inverted diagonal blocks (`p` at `p0` of order `s`,
/// `q` at `q0` of order `qs`), for `count` pairs `strides` apart.
fn pair<F>(
    v: &mut Vec<Step<F>>,
    t: Inv,
    (p0, q0, s, qs): (usize, usize, usize, usize),
    count: usize,
    (sa, sd): (usize, usize),
    rlen: usize,
) {
    // The block is rows × cols; its temporary is made in column chunks.
    let (rows, cols) = if t.lower { (qs, s) } else { (s, qs) };
    let floor = cols.min(16);
    let per = (rlen / (rows * count).max(1)).min(cols);
    let (cc, w) = if per >= floor {
        (count, per)
    } else {
        let cc = (rlen / (rows * floor)).clamp(1, count);
        (cc, (rlen / (rows * cc)).clamp(1, cols))
    };
    let a = every(t.src, sa);
    let d = every(t.dst, sd);
    let mut b0 = 0;
    while b0 < count {
        let nb = cc.min(count - b0);
        let (ab, db) = (
            M {
                off: a.off + b0 * sa,
                ..a
            },
            M {
                off: d.off + b0 * sd,
                ..d
            },
        );
        let r = mat(Space::R, 0, rows, rows * w);
        let mut j0 = 0;
        while j0 < cols {
            let j1 = (j0 + w).min(cols);
            let wj = j1 - j0;
            if t.lower {
                // T = A_qp[:, j0..s] inv_pp[j0..s, j0..j1]
                v.push(Step::Gemm {
                    ta: Op::N,
                    tb: Op::N,
                    m: qs,
                    n: wj,
                    k: s - j0,
                    alpha: K::One,
                    a: at(ab, q0, p0 + j0),
                    b: at(db, p0 + j0, p0 + j0),
                    beta: K::Zero,
                    c: r,
                    count: nb,
                });
                // inv_qp[r0..r1, j0..j1] = -inv_qq[r0..r1, 0..r1] T[0..r1, :]
                for (r0, r1) in row_cuts(qs) {
                    v.push(Step::Gemm {
                        ta: Op::N,
                        tb: Op::N,
                        m: r1 - r0,
                        n: wj,
                        k: r1,
                        alpha: K::MinusOne,
                        a: at(db, q0 + r0, q0),
                        b: r,
                        beta: K::Zero,
                        c: at(db, q0 + r0, p0 + j0),
                        count: nb,
                    });
                }
            } else {
                // T = A_pq[:, 0..j1] inv_qq[0..j1, j0..j1]
                v.push(Step::Gemm {
                    ta: Op::N,
                    tb: Op::N,
                    m: s,
                    n: wj,
                    k: j1,
                    alpha: K::One,
                    a: at(ab, p0, q0),
                    b: at(db, q0, q0 + j0),
                    beta: K::Zero,
                    c: r,
                    count: nb,
                });
                // inv_pq[r0..r1, j0..j1] = -inv_pp[r0..r1, r0..s] T[r0..s, :]
                for (r0, r1) in row_cuts(s) {
                    v.push(Step::Gemm {
                        ta: Op::N,
                        tb: Op::N,
                        m: r1 - r0,
                        n: wj,
                        k: s - r0,
                        alpha: K::MinusOne,
                        a: at(db, p0 + r0, p0 + r0),
                        b: at(r, r0, 0),
                        beta: K::Zero,
                        c: at(db, p0 + r0, q0 + j0),
                        count: nb,
                    });
                }
            }
            j0 = j1;
        }
        b0 += nb;
    }
}

/// trtri: the other strict triangle of the output zeroed, then the inverse built in place.
pub(super) fn trtri<T: Scalar>(c: &Call<'_, '_, T>, p: &Plan) -> Vec<Step<NoSteps>> {
    let lower = c.uplo == Uplo::Lower;
    let n = c.n;
    let dst = mat(Space::C, 0, c.ldc, 0);
    let mut v = vec![Step::Scale {
        tri: Some(!lower),
        herm: false,
        m: n,
        n,
        dst,
        beta: K::Zero,
    }];
    let t = Inv {
        lower,
        unit: c.diag == Diag::Unit,
        n,
        src: mat(Space::A, 0, c.lda, 0),
        dst,
        count: 1,
    };
    invert(&mut v, t, p.rlen);
    v
}

/// The solve's fixed facts.
struct Solve {
    left: bool,
    lower: bool,
    op: Op,
    unit: bool,
    forward: bool,
    nb: usize,
    other: usize,
    /// Where A and B start (the solver solves with blocks of one matrix).
    a0: M,
    b0: M,
    /// Where the leaves' inverses are: inverted into E (`Space::E`), or the caller's in space
    /// B (its leading dimension); `None`: substitution.
    inv: Option<(Space, usize)>,
    /// Leaves inverted into E in groups of `group` consecutive leaves, each group just before
    /// its first leaf in solve order is used (E holds one group: all leaves when it holds them
    /// all, 1: each leaf alone).
    group: usize,
    /// Leaves of the triangle (the last may be shorter than `nb`).
    leaves: usize,
    na: usize,
    rlen: usize,
}

impl Solve {
    fn a(&self) -> M {
        self.a0
    }

    fn b(&self) -> M {
        self.b0
    }

    /// op(A)'s block with rows at `r0`, columns at `k0`.
    fn op_block(&self, r0: usize, k0: usize) -> M {
        if self.op == Op::N {
            at(self.a(), r0, k0)
        } else {
            at(self.a(), k0, r0)
        }
    }

    /// B's block of the triangle's indices `i0..` (rows for Left, columns for Right).
    fn b_at(&self, i0: usize) -> M {
        if self.left {
            at(self.b(), i0, 0)
        } else {
            at(self.b(), 0, i0)
        }
    }

    fn rec<F>(&self, v: &mut Vec<Step<F>>, r0: usize, len: usize, scaled: bool) {
        if len <= self.nb {
            self.leaf(v, r0, len, scaled);
            return;
        }
        let mut s = self.nb;
        while 2 * s < len {
            s *= 2;
        }
        let (first, second) = ((r0, s), (r0 + s, len - s));
        let (a, b) = if self.forward {
            (first, second)
        } else {
            (second, first)
        };
        self.rec(v, a.0, a.1, scaled);
        self.update(v, b, a, scaled);
        self.rec(v, b.0, b.1, true);
    }

    /// `B_t = beta B_t - op(A)_tf X_f` (Left) or `B_t = beta B_t - X_f op(A)_ft` (Right).
    fn update<F>(
        &self,
        v: &mut Vec<Step<F>>,
        (t0, tl): (usize, usize),
        (f0, fl): (usize, usize),
        scaled: bool,
    ) {
        let beta = if scaled { K::One } else { K::Alpha };
        v.push(if self.left {
            Step::Gemm {
                ta: self.op,
                tb: Op::N,
                m: tl,
                n: self.other,
                k: fl,
                alpha: K::MinusOne,
                a: self.op_block(t0, f0),
                b: self.b_at(f0),
                beta,
                c: self.b_at(t0),
                count: 1,
            }
        } else {
            Step::Gemm {
                ta: Op::N,
                tb: self.op,
                m: self.other,
                n: tl,
                k: fl,
                alpha: K::MinusOne,
                a: self.b_at(f0),
                b: self.op_block(f0, t0),
                beta,
                c: self.b_at(t0),
                count: 1,
            }
        });
    }

    /// Inverts leaves `lo .. hi` into E's first `hi - lo` slots of `nb²` (leaves of order `nb`
    /// batched, a shorter last leaf alone).
    fn invert_group<F>(&self, v: &mut Vec<Step<F>>, lo: usize, hi: usize) {
        let nb = self.nb;
        let short = hi == self.leaves && self.na % nb != 0;
        let full = hi - lo - usize::from(short);
        if nb > INV_NB {
            // The kernel writes only its 32-blocks and the products the lower (upper) part.
            v.push(Step::Scale {
                tri: None,
                herm: false,
                m: nb,
                n: nb * (hi - lo),
                dst: mat(Space::E, 0, nb, 0),
                beta: K::Zero,
            });
        }
        let a = self.a();
        let diag = |i: usize, count: usize| Inv {
            lower: self.lower,
            unit: self.unit,
            n: if i + 1 == self.leaves && short {
                self.na - i * nb
            } else {
                nb
            },
            src: M {
                off: a.off + i * nb * (a.ld + 1),
                bs: nb * (a.ld + 1),
                ..a
            },
            dst: mat(Space::E, (i - lo) * nb * nb, nb, nb * nb),
            count,
        };
        if full > 0 {
            invert(v, diag(lo, full), self.rlen);
        }
        if short {
            invert(v, diag(hi - 1, 1), self.rlen);
        }
    }

    fn leaf<F>(&self, v: &mut Vec<Step<F>>, i0: usize, bs: usize, scaled: bool) {
        let alpha = if scaled { K::One } else { K::Alpha };
        let Some((sp, ld)) = self.inv else {
            let (m, n) = if self.left {
                (bs, self.other)
            } else {
                (self.other, bs)
            };
            v.push(Step::TriSolve {
                left: self.left,
                lower: self.lower,
                op: self.op,
                unit: self.unit,
                m,
                n,
                a: at(self.a(), i0, i0),
                b: self.b_at(i0),
                alpha,
            });
            return;
        };
        let d = if sp == Space::E {
            let idx = i0 / self.nb;
            let g = self.group.max(1);
            // The group's leaves: a range of consecutive leaves, counted from the first (forward
            // solves) or the last (backward), so a group is inverted once, before its first use.
            let (lo, hi) = if self.forward {
                let lo = idx / g * g;
                (lo, (lo + g).min(self.leaves))
            } else {
                let k = (self.leaves - 1 - idx) / g;
                let hi = self.leaves - k * g;
                (hi.saturating_sub(g), hi)
            };
            let first = if self.forward { lo } else { hi - 1 };
            if idx == first {
                self.invert_group(v, lo, hi);
            }
            mat(Space::E, (idx - lo) * self.nb * self.nb, self.nb, 0)
        } else {
            mat(sp, i0 * (ld + 1), ld, 0)
        };
        let w = (self.rlen / bs).clamp(1, self.other.max(1));
        let mut c0 = 0;
        while c0 < self.other {
            let cw = w.min(self.other - c0);
            if self.left {
                let r = mat(Space::R, 0, bs, 0);
                let bb = at(self.b(), i0, c0);
                v.push(Step::Gemm {
                    ta: self.op,
                    tb: Op::N,
                    m: bs,
                    n: cw,
                    k: bs,
                    alpha,
                    a: d,
                    b: bb,
                    beta: K::Zero,
                    c: r,
                    count: 1,
                });
                v.push(Step::Copy {
                    m: bs,
                    n: cw,
                    src: r,
                    dst: bb,
                });
            } else {
                let r = mat(Space::R, 0, cw, 0);
                let bb = at(self.b(), c0, i0);
                v.push(Step::Gemm {
                    ta: Op::N,
                    tb: self.op,
                    m: cw,
                    n: bs,
                    k: bs,
                    alpha,
                    a: bb,
                    b: d,
                    beta: K::Zero,
                    c: r,
                    count: 1,
                });
                v.push(Step::Copy {
                    m: cw,
                    n: bs,
                    src: r,
                    dst: bb,
                });
            }
            c0 += cw;
        }
    }
}

/// trsm (not a quick return, `alpha` not a host zero).
pub(super) fn trsm<T: Scalar>(c: &Call<'_, '_, T>, p: &Plan) -> Vec<Step<NoSteps>> {
    let inv = match c.method {
        Method::Substitute => Inverses::Substitute,
        Method::Given => {
            c.b.map_or(Inverses::Substitute, |(_, ld)| Inverses::Given(ld))
        }
        Method::Invert => Inverses::Invert,
    };
    let t = TrsmBlocks {
        side: c.side,
        uplo: c.uplo,
        op: c.opa,
        diag: c.diag,
        m: c.m,
        n: c.n,
        a: mat(Space::A, 0, c.lda, 0),
        b: mat(Space::C, 0, c.ldc, 0),
        alpha: true,
        inv,
    };
    let mut v = Vec::new();
    trsm_steps(&mut v, &t, p);
    v
}

/// How a solve treats its diagonal blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Inverses {
    /// Inverted into E (a reduced plan may substitute).
    Invert,
    /// Substitution.
    Substitute,
    /// Read from the caller's inverse in space B, with this leading dimension.
    Given(usize),
}

/// One triangular solve on blocks: `op(A) X = alpha B` (Left) or `X op(A) = alpha B`, `A` and
/// `B` anywhere (the solver solves with blocks of the matrix it factors).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TrsmBlocks {
    pub side: Side,
    pub uplo: Uplo,
    pub op: Op,
    pub diag: Diag,
    pub m: usize,
    pub n: usize,
    pub a: M,
    pub b: M,
    /// Scale by the call's `alpha` (else by 1).
    pub alpha: bool,
    pub inv: Inverses,
}

/// Appends the steps of one solve under plan `p` (its `nb`, E, R, substitution).
pub(crate) fn trsm_steps<F>(v: &mut Vec<Step<F>>, t: &TrsmBlocks, p: &Plan) {
    let left = t.side == Side::Left;
    let lower = t.uplo == Uplo::Lower;
    let op = t.op;
    let na = if left { t.m } else { t.n };
    let other = if left { t.n } else { t.m };
    if na == 0 || other == 0 {
        return;
    }
    let eff_lower = lower != (op != Op::N);
    let unit = t.diag == Diag::Unit;
    let subst = p.subst || t.inv == Inverses::Substitute;
    // Substitution on the left with op N solves leaves of up to TRSL_MAX in one launch (it
    // needs no workspace, so the plan's leaf does not bound it); elsewhere leaves of INV_NB.
    let nb = if subst && left && op == Op::N {
        TRSL_MAX
    } else {
        p.nb
    };
    let nb = nb.max(1).min(na);
    let leaves = na.div_ceil(nb);
    let inv = if subst {
        None
    } else {
        match t.inv {
            Inverses::Substitute => None,
            Inverses::Given(ld) => Some((Space::B, ld)),
            Inverses::Invert => Some((Space::E, nb)),
        }
    };
    let s = Solve {
        left,
        lower,
        op,
        unit,
        forward: left == eff_lower,
        nb,
        other,
        a0: t.a,
        b0: t.b,
        inv,
        // E holds `eblocks` leaves (one when the plan keeps none resident).
        group: if p.uses_e { p.eblocks } else { 1 }.clamp(1, leaves),
        leaves,
        na,
        rlen: p.rlen,
    };
    s.rec(v, 0, na, !t.alpha);
}
