//! The executor's programs: short lists of block operations that both backends run the same
//! way (`cuda.rs`, `host.rs`). A step is a matrix product (cuBLASLt or faer), one of the small
//! block kernels of `kernels/blas3.cu` (expand a stored triangle into a full block, write a
//! block's triangle back, scale, copy, invert or solve small triangles), a step of the family
//! that built the program, or a lane change (`Fork`, `Back`, `Join` and their `Aux` forms).
//! Families only build
//! programs; blocking is decided there once, so the host runs the decomposition the GPU does.
//!
//! The recursive cut shared by the triangular programs: leaf blocks of `nb` on the diagonal,
//! then, at each level `s = nb, 2nb, 4nb, …`, the off-diagonal block of every pair of
//! neighbouring `s`-blocks; every level is one strided-batched product (its full pairs) plus
//! one product for a shorter last pair.

use crate::Op;

/// Where an operand lives: the caller's matrices of the current batch entry (`A` and `B` read,
/// `C` written), or the workspace (`E`: expanded or inverted diagonal blocks, `R`: result
/// blocks and temporaries).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Space {
    A,
    B,
    C,
    E,
    R,
}

/// A matrix operand of a step: element offset in its space, leading dimension, and the
/// distance between consecutive blocks of a batched step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct M {
    pub sp: Space,
    pub off: usize,
    pub ld: usize,
    pub bs: usize,
}

pub(crate) const fn mat(sp: Space, off: usize, ld: usize, bs: usize) -> M {
    M { sp, off, ld, bs }
}

/// Element (row `r`, column `c`) of a matrix operand, as an operand.
pub(crate) const fn at(x: M, r: usize, c: usize) -> M {
    M {
        off: x.off + r + c * x.ld,
        ..x
    }
}

/// The scalars a step uses, in the order of the per-entry slots (`SLOTS` of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum K {
    Alpha,
    AlphaConj,
    Beta,
    One,
    Zero,
    MinusOne,
}

impl K {
    /// Index of this scalar among an entry's slots.
    pub(crate) fn slot(self) -> usize {
        self as usize
    }
}

/// How a stored triangle becomes a full block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fill {
    Sym,
    Herm,
    Tri { unit: bool },
}

/// Order of the diagonal blocks the `TriInv` step inverts and the most a `TriSolve` solves
/// (but on the left with op N: `TRSL_MAX`).
pub(crate) const INV_NB: usize = 32;
/// Largest triangle a left-side op-N substitution step solves in one launch (`b3_trsl`; the
/// others take `INV_NB`).
pub(crate) const TRSL_MAX: usize = 128;

/// One block operation, applied to `count` blocks `bs` apart (and to every batch entry). `F`
/// is a family's own step type (the solver's panel LU, interchanges, ...; `NoSteps` for
/// Level 3), which the family runs through `FamilySteps`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step<F> {
    /// `c = alpha op(a) op(b) + beta c`.
    Gemm {
        ta: Op,
        tb: Op,
        m: usize,
        n: usize,
        k: usize,
        alpha: K,
        a: M,
        b: M,
        beta: K,
        c: M,
        count: usize,
    },
    /// `dst` (n × n) = the full matrix whose `lower`/upper triangle is stored in `src`; `src`
    /// may be `dst` itself (in place: orgqr's `V1`), not another place in the same space.
    Expand {
        fill: Fill,
        lower: bool,
        n: usize,
        src: M,
        dst: M,
        count: usize,
    },
    /// The `lower`/upper triangle of `dst` (n × n) = `src + beta dst` (`beta == 0`: `dst` not
    /// read); `herm` makes the diagonal real.
    Tri {
        lower: bool,
        herm: bool,
        n: usize,
        src: M,
        dst: M,
        beta: K,
        count: usize,
    },
    /// `dst = beta dst` on an `m × n` matrix, or on a triangle when `tri` is `Some(lower)`.
    Scale {
        tri: Option<bool>,
        herm: bool,
        m: usize,
        n: usize,
        dst: M,
        beta: K,
    },
    /// `dst = src`, `m × n`.
    Copy { m: usize, n: usize, src: M, dst: M },
    /// Inverts the 32 × 32 diagonal blocks of each triangular `n × n` block of `src` (its
    /// `lower`/upper triangle; ones on the diagonal when `unit`) into the same places of `dst`,
    /// each written whole (zeros in its other triangle).
    TriInv {
        lower: bool,
        unit: bool,
        n: usize,
        src: M,
        dst: M,
        count: usize,
    },
    /// Substitution in place: `b` (`m × n`) becomes the solution of `op(a) X = alpha b`
    /// (`left`, `a` of order `m`) or `X op(a) = alpha b` (order `n`), `a` triangular as stored
    /// (`lower`, `unit`), of order at most 32.
    TriSolve {
        left: bool,
        lower: bool,
        op: Op,
        unit: bool,
        m: usize,
        n: usize,
        a: M,
        b: M,
        alpha: K,
    },
    /// A step of the family that built the program.
    Family(F),
    /// The steps after it run on the side lane (a second stream on CUDA), once the main
    /// lane's steps so far have finished. The host runs every step in program order, so a
    /// program must be correct that way too.
    Fork,
    /// The steps after it run on the main lane again, beside the side lane's.
    Back,
    /// The main lane waits for the side lane's steps so far.
    Join,
    /// The steps after it run on the aux lane (a third stream on CUDA), once the lane it
    /// leaves (main or side) has finished its steps so far: work of one lane's chain that may
    /// run beside the chain's next steps.
    ForkAux,
    /// The steps after it run on the lane `ForkAux` left again, beside the aux lane's.
    BackAux,
    /// That lane waits for the aux lane's steps so far.
    JoinAux,
}

impl<F> Step<F> {
    /// The same step in a program whose family steps are `G`s (a family that runs another
    /// family's steps among its own: the eigensolvers run QR's).
    pub(crate) fn map<G>(self, f: impl FnOnce(F) -> G) -> Step<G> {
        match self {
            Step::Gemm {
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
                count,
            } => Step::Gemm {
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
                count,
            },
            Step::Expand {
                fill,
                lower,
                n,
                src,
                dst,
                count,
            } => Step::Expand {
                fill,
                lower,
                n,
                src,
                dst,
                count,
            },
            Step::Tri {
                lower,
                herm,
                n,
                src,
                dst,
                beta,
                count,
            } => Step::Tri {
                lower,
                herm,
                n,
                src,
                dst,
                beta,
                count,
            },
            Step::Scale {
                tri,
                herm,
                m,
                n,
                dst,
                beta,
            } => Step::Scale {
                tri,
                herm,
                m,
                n,
                dst,
                beta,
            },
            Step::Copy { m, n, src, dst } => Step::Copy { m, n, src, dst },
            Step::TriInv {
                lower,
                unit,
                n,
                src,
                dst,
                count,
            } => Step::TriInv {
                lower,
                unit,
                n,
                src,
                dst,
                count,
            },
            Step::TriSolve {
                left,
                lower,
                op,
                unit,
                m,
                n,
                a,
                b,
                alpha,
            } => Step::TriSolve {
                left,
                lower,
                op,
                unit,
                m,
                n,
                a,
                b,
                alpha,
            },
            Step::Family(x) => Step::Family(f(x)),
            Step::Fork => Step::Fork,
            Step::Back => Step::Back,
            Step::Join => Step::Join,
            Step::ForkAux => Step::ForkAux,
            Step::BackAux => Step::BackAux,
            Step::JoinAux => Step::JoinAux,
        }
    }

    /// The step's operands as (operand, rows, columns, blocks): mutable, for `relocate`.
    fn operands_mut(&mut self) -> Vec<(&mut M, usize, usize, usize)> {
        match self {
            Step::Gemm {
                ta,
                tb,
                m,
                n,
                k,
                a,
                b,
                c,
                count,
                ..
            } => {
                let (ar, ac) = if *ta == Op::N { (*m, *k) } else { (*k, *m) };
                let (br, bc) = if *tb == Op::N { (*k, *n) } else { (*n, *k) };
                vec![
                    (a, ar, ac, *count),
                    (b, br, bc, *count),
                    (c, *m, *n, *count),
                ]
            }
            Step::Expand {
                n, src, dst, count, ..
            }
            | Step::Tri {
                n, src, dst, count, ..
            }
            | Step::TriInv {
                n, src, dst, count, ..
            } => vec![(src, *n, *n, *count), (dst, *n, *n, *count)],
            Step::Scale { m, n, dst, .. } => vec![(dst, *m, *n, 1)],
            Step::Copy { m, n, src, dst } => vec![(src, *m, *n, 1), (dst, *m, *n, 1)],
            Step::TriSolve {
                left, m, n, a, b, ..
            } => {
                let o = if *left { *m } else { *n };
                vec![(a, o, o, 1), (b, *m, *n, 1)]
            }
            _ => Vec::new(),
        }
    }

    /// Moves the step's operands in E and R by `e` and `r` elements (a program part that runs
    /// beside another lane's use of their starts gets parts of its own).
    pub(crate) fn relocate(&mut self, e: usize, r: usize) {
        for (x, ..) in self.operands_mut() {
            match x.sp {
                Space::E => x.off += e,
                Space::R => x.off += r,
                _ => {}
            }
        }
    }

    /// One past the last element the step touches in space `sp` (0: none; a family's own
    /// steps are not counted).
    #[cfg(test)]
    pub(crate) fn extent(&mut self, sp: Space) -> usize {
        self.operands_mut()
            .into_iter()
            .filter(|(x, r, c, _)| x.sp == sp && *r > 0 && *c > 0)
            .map(|(x, r, c, n)| x.off + (c - 1) * x.ld + r + n.saturating_sub(1) * x.bs)
            .max()
            .unwrap_or(0)
    }

    /// The first element of the step's operands in space `sp` (`None`: none there).
    #[cfg(test)]
    pub(crate) fn start(&mut self, sp: Space) -> Option<usize> {
        self.operands_mut()
            .into_iter()
            .filter(|(x, ..)| x.sp == sp)
            .map(|(x, ..)| x.off)
            .min()
    }

    /// Whether the step only moves the program between lanes (no work of its own).
    pub(crate) fn is_lane_change(&self) -> bool {
        matches!(
            self,
            Step::Fork | Step::Back | Step::Join | Step::ForkAux | Step::BackAux | Step::JoinAux
        )
    }
}

/// One level of the recursive cut: pairs of `s`-blocks starting every `2s`; `full` pairs have
/// a second block of `s`, a last pair may have a shorter one (`last`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Level {
    pub s: usize,
    pub full: usize,
    pub last: Option<usize>,
}

pub(crate) fn levels(n: usize, nb: usize) -> Vec<Level> {
    let mut v = Vec::new();
    let mut s = nb.max(1);
    while s < n {
        let full = n / (2 * s);
        let q0 = full * 2 * s + s;
        v.push(Level {
            s,
            full,
            last: (q0 < n).then(|| n - q0),
        });
        s *= 2;
    }
    v
}

/// The pairs of a level as (p0, q0, second block size, count of such pairs, pair index 0 of
/// the run): the full pairs as one batched run, then the short last pair.
pub(crate) fn runs(l: &Level) -> impl Iterator<Item = (usize, usize, usize, usize)> {
    let s = l.s;
    let full = (l.full > 0).then_some((0, s, s, l.full));
    let last = l.last.map(|qs| (l.full * 2 * s, l.full * 2 * s + s, qs, 1));
    full.into_iter().chain(last)
}

/// Leaf blocks on the diagonal in groups of at most `per` blocks: (start, size, count).
pub(crate) fn leaf_groups(n: usize, nb: usize, per: usize) -> Vec<(usize, usize, usize)> {
    let mut v = Vec::new();
    let full = n / nb;
    let mut i = 0;
    while i < full {
        let g = per.min(full - i);
        v.push((i * nb, nb, g));
        i += g;
    }
    if n % nb != 0 {
        v.push((full * nb, n % nb, 1));
    }
    v
}
