//! The solver's programs, on Level 3's block steps plus four of its own (panel LU, row
//! interchanges, Cholesky leaf, start): recursive right-looking factorizations whose updates
//! are the library's trsm and products, so both backends run the same decomposition.
//!
//! LU (as LAPACK's `getrf2`, blocked by recursion): factor the left half of the columns, apply
//! its interchanges to the right half, solve for `U12`, update `A22`, factor it, apply its
//! interchanges to the left half. Leaves of up to 64 columns are one panel kernel over all rows;
//! a matrix of at most 128 × 128 (64 × 64 complex) is a single step, no recursion.
//! Cholesky: factor `A11`, solve for the off-diagonal block, a rank-k update of the trailing
//! triangle (diagonal blocks through E, the rest as products), factor it; leaves of up to 128
//! (64 complex double) are one block in shared memory (a warp's registers up to 32). From
//! order `chol_ahead_min` on, blocked instead with a look-ahead of one (`chol_ahead`): the
//! diagonal factors (that recursion) and panel solves on the side lane, each block's rank-nb
//! update of the rest of the trailing matrix on the main lane, so the recursion's result rows
//! (R of the whole half) give way to chunks and a call stays within about 4 MiB. For real
//! types (from `chol_leaves_min`) the block columns are leaves of 128 instead: each one
//! factored in one step and the panel beside it solved in one step, so a block column is at
//! most four steps per leaf rather than a recursion of small products.

use super::plan::{chol_leaf, lu_whole, split, split_by, SolverPlan, CHOL_BLOCK_LEAF, LEAF, PANEL};
use super::Kind;
use crate::blas3::program::{rank_k_steps, RankK};
use crate::blas3::tri::{trsm_steps, Inverses, TrsmBlocks};
use crate::exec::program::{at, mat, Fill, Space, Step as BlockStep, INV_NB, K, M};
use crate::{Diag, Op, Scalar, Side, Uplo};

/// The solver's own steps, which its `FamilySteps` runs (`cuda.rs`, `host.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SolverStep {
    /// LU of a panel: `rows × cols` (`cols` at most 64, or a whole small matrix) at `a`,
    /// whose first row and column are the matrix's row and column `k0`. Writes pivots
    /// `k0 .. k0 + cols` (1-based matrix rows; none when `!pivot`) and sets info at the first
    /// zero pivot. `leaf`: its number in the program (tags its blocks' exchange records).
    /// `others`: how many columns left and right of it (its panel's) take its interchanges
    /// too, as the recursion's interchange steps would (over the same rows).
    Lu {
        rows: usize,
        cols: usize,
        a: M,
        k0: usize,
        pivot: bool,
        leaf: usize,
        others: (usize, usize),
    },
    /// Row interchanges `k0 .. k1` (in reverse when `reverse`), applied to `cols` columns at
    /// `a` (row 0 of a matrix of `rows` rows; a pivot outside them is ignored).
    Swap {
        rows: usize,
        cols: usize,
        a: M,
        k0: usize,
        k1: usize,
        reverse: bool,
        /// Which of the plan's gather lists (the side lane's panels use the first, the main
        /// lane beside them the second), where it has them; else one column per thread.
        list: usize,
    },
    /// Cholesky of a diagonal block of order `n` (at most `chol_leaf`) at `a`, the matrix's
    /// column `k0`; skipped once info is set.
    Chol {
        lower: bool,
        n: usize,
        a: M,
        k0: usize,
    },
    /// A leaf of the blocked Cholesky (real types): `upd` (a square of order `n`, if any: the
    /// block's update by the panels before it) added to the diagonal block of order `n` (at
    /// most `CHOL_BLOCK_LEAF`) at `a`, the matrix's column `k0`, and the block factored (info
    /// as `Chol`).
    CholLeaf {
        lower: bool,
        n: usize,
        a: M,
        k0: usize,
        upd: Option<M>,
    },
    /// The panel beside such a leaf solved in place with its factor (`l`, order `n`): the
    /// `rows × n` block at `a` becomes `a L⁻ᵀ` (lower: `L21`), or the `n × rows` block
    /// `U⁻ᵀ a` (upper: `U12`).
    PanelSolve {
        lower: bool,
        rows: usize,
        n: usize,
        a: M,
        l: M,
    },
    /// The start: info 0 for every entry, the panel's exchange records cleared.
    Init,
    /// getri: info = the first zero on the diagonal of the order-`n` matrix at `a` (1-based).
    DiagInfo { n: usize, a: M },
    /// getri: the `rows × cols` block at `a` (its first row on the diagonal) hands `L`'s part
    /// to `w`: `w` gets the unit lower trapezoid (ones on its diagonal, zeros above), and the
    /// block's strictly lower part becomes zero.
    TakeLower {
        rows: usize,
        cols: usize,
        a: M,
        w: M,
    },
    /// getri: the column interchanges `n − 2, …, 0` (LAPACK's, after the inverse) on the
    /// order-`n` matrix at `a`.
    ColSwaps { n: usize, a: M },
    /// getri, potri: the `lower`/upper triangles of `count` diagonal blocks of order `n` (at
    /// most `TRI_PLACE`, `a.bs` apart) inverted in place; the other triangle is not touched,
    /// nor the diagonal when `unit` (taken as ones: getri's blocks of `L`).
    TriInvPlace {
        lower: bool,
        unit: bool,
        n: usize,
        a: M,
        count: usize,
    },
    /// getri, potri: in `count` blocks (each operand's `bs` apart), `x := t x` (`left`; `x` is
    /// `n × other`) or `x := x t` (`other × n`) in place, negated when `negate`, with `t` the
    /// non-unit `lower`/upper triangle of order `n` (at most `TRI_PLACE`; its other triangle
    /// not read): a leaf of the inversion's solves, by a leaf `TriInvPlace` inverted first.
    TriMulPlace {
        left: bool,
        lower: bool,
        negate: bool,
        n: usize,
        other: usize,
        t: M,
        x: M,
        count: usize,
    },
}

/// Largest triangle `TriInvPlace` inverts (one block of threads a triangle, packed in shared
/// memory: 67 KB for f64 and Complex32 at 128; Complex64 stops at 64, 33 KB; within the opt-in
/// shared memory of compute capability 8.0 and later, as the solver's other kernels assume).
pub(crate) const TRI_PLACE: usize = 128;

/// `TRI_PLACE` for elements of `elem` bytes.
pub(crate) fn tri_place(elem: usize) -> usize {
    if elem > 8 {
        TRI_PLACE / 2
    } else {
        TRI_PLACE
    }
}

/// A step of a solver program.
pub(crate) type Step = BlockStep<SolverStep>;

/// The conjugate transpose (the transpose on real data).
fn hop<T: Scalar>() -> Op {
    if T::COMPLEX {
        Op::C
    } else {
        Op::T
    }
}

/// What a program needs to know of its call.
pub(crate) struct Prog {
    pub kind: Kind,
    pub op: Op,
    pub uplo: Uplo,
    pub m: usize,
    pub n: usize,
    /// Leading dimension of the factors a solve reads (space A).
    pub ld_factors: usize,
    /// Leading dimension of the matrix written (space C): the user's lda or ldb.
    pub ld_written: usize,
    /// getrs: only the row interchanges (the solves run elsewhere).
    pub interchanges_only: bool,
}

/// Nodes of one size along the diagonal, `distance` apart (`tri_inverse`'s levels).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    start: usize,
    size: usize,
    count: usize,
    distance: usize,
}

/// `nodes` (start, size; by start) as runs of one size at even distances.
fn even_runs(nodes: &[(usize, usize)]) -> Vec<Run> {
    let mut sizes: Vec<usize> = nodes.iter().map(|n| n.1).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut runs = Vec::new();
    for size in sizes {
        let starts: Vec<usize> = nodes.iter().filter(|n| n.1 == size).map(|n| n.0).collect();
        let mut i = 0;
        while i < starts.len() {
            let distance = starts.get(i + 1).map_or(0, |s| s - starts[i]);
            let mut count = 1;
            while i + count < starts.len() && starts[i + count] - starts[i + count - 1] == distance
            {
                count += 1;
            }
            runs.push(Run {
                start: starts[i],
                size,
                count,
                distance,
            });
            i += count;
        }
    }
    runs
}

/// The solves of a level of `tri_inverse`: in `c` (its blocks `c.bs` apart, `nodes` of
/// them), from the left (`left`) or right, with a `lower`/upper triangle, negated or not.
#[derive(Clone, Copy)]
struct Solve {
    c: M,
    nodes: usize,
    lower: bool,
    left: bool,
    negate: bool,
}

struct Builder<'p> {
    v: Vec<Step>,
    p: &'p SolverPlan,
    c: M,
    /// Panel leaves so far (each tags its exchange records with its number).
    leaf: usize,
    /// Most columns of a panel leaf (`PANEL`, less for panels on the side lane).
    unit: usize,
    /// Bytes of an element.
    elem: usize,
    /// The columns of the look-ahead block being factored, where its leaves apply their
    /// interchanges to the rest of it (`SolverParams::leaf_swaps`).
    panel: Option<(usize, usize)>,
}

impl Builder<'_> {
    #[allow(clippy::too_many_arguments)]
    fn trsm(&mut self, side: Side, uplo: Uplo, op: Op, diag: Diag, m: usize, n: usize, a: M, b: M) {
        let t = TrsmBlocks {
            side,
            uplo,
            op,
            diag,
            m,
            n,
            a,
            b,
            alpha: false,
            inv: if self.substitutes(side, op, m, n) {
                Inverses::Substitute
            } else {
                Inverses::Invert
            },
        };
        trsm_steps(&mut self.v, &t, &self.p.p3);
    }

    /// Whether a solve of `m × n` right-hand sides substitutes instead of inverting its
    /// leaves: a triangle of at most 32 (one step instead of inversion, product and copy; the
    /// recursion's smallest solves are launch-bound), or a small left-side op-N one (leaves of
    /// `TRSL_MAX`, one launch each: `SolverParams::subst_max`) of one matrix at a time: a
    /// batch's inverted leaves serve all its entries at once (100 LUs of 512² took 3.83 ms
    /// substituting, 3.48 inverting; H200).
    fn substitutes(&self, side: Side, op: Op, m: usize, n: usize) -> bool {
        let (na, other) = if side == Side::Left { (m, n) } else { (n, m) };
        na <= INV_NB
            || (side == Side::Left
                && op == Op::N
                && self.p.p3.entries == 1
                && self.p.params.substitutes_left(na, other))
    }

    /// LU of columns `c0 .. c0 + nc` over rows `c0 .. m`.
    /// With `self.panel` (its columns), each leaf applies its interchanges to the rest of the
    /// panel and the recursion has no interchange steps of its own.
    fn lu(&mut self, m: usize, c0: usize, nc: usize, pivot: bool) {
        let leaf_swaps = pivot && self.panel.is_some();
        if nc <= self.unit {
            let others = match self.panel {
                Some((p0, p1)) if pivot => (c0 - p0, p1 - c0 - nc),
                _ => (0, 0),
            };
            self.v.push(Step::Family(SolverStep::Lu {
                rows: m - c0,
                cols: nc,
                a: at(self.c, c0, c0),
                k0: c0,
                pivot,
                leaf: self.leaf,
                others,
            }));
            self.leaf += 1;
            return;
        }
        let n1 = split_by(nc, self.unit.min(LEAF));
        let n2 = nc - n1;
        self.lu(m, c0, n1, pivot);
        if pivot && !leaf_swaps {
            self.swap(m, c0 + n1, n2, c0, c0 + n1);
        }
        let (a11, a12) = (at(self.c, c0, c0), at(self.c, c0, c0 + n1));
        self.trsm(Side::Left, Uplo::Lower, Op::N, Diag::Unit, n1, n2, a11, a12);
        let rows = m - c0 - n1;
        if rows > 0 {
            self.update(rows, (c0 + n1, n2), c0, n1);
        }
        self.lu(m, c0 + n1, n2, pivot);
        if pivot && !leaf_swaps {
            self.swap(m, c0, n1, c0 + n1, c0 + nc);
        }
    }

    /// LU of the whole `m × n` matrix in blocks of `nb` columns with a look-ahead of one: once
    /// block `k` (columns `c .. c1`) is factored, the main lane applies its interchanges to
    /// the other columns, solves its rows of `U` and updates block `k + 1`, whose panel
    /// (recursive, as `lu`, with leaves narrow enough for the side lane's blocks) then runs on
    /// the side lane while the main lane updates the rest of the trailing matrix. With the
    /// plan's `fork_narrow` only block `k + 1` is prepared before its panel forks, and the
    /// other columns take their interchanges and rows of `U` beside the panel: the panel's
    /// solves then use E's and R's parts of their own (`side_e`, `side_r`) and the first
    /// gather list, the main lane the second. Otherwise the main lane runs only a product
    /// beside the panel.
    fn lu_ahead(&mut self, m: usize, n: usize, nb: usize, pivot: bool) {
        let narrow = self.p.fork_narrow;
        let k = m.min(n);
        let mut c = 0;
        self.block_lu(m, 0, nb.min(k), pivot);
        while c < k {
            let w = nb.min(k - c);
            let c1 = c + w;
            let rows = m - c1;
            // The next block, if there is one to factor.
            let w1 = if c1 < k && rows > 0 {
                nb.min(k - c1)
            } else {
                0
            };
            let c2 = c1 + w1;
            // Columns prepared before the fork: block k + 1, or every column after block k.
            let ready = if narrow { c2 } else { n };
            // The main lane's gather list beside a narrow fork's panel.
            let beside = usize::from(narrow && w1 > 0);
            if pivot && c > 0 && !narrow {
                self.swap(m, 0, c, c, c1);
            }
            self.prepare(m, (c, c1), (c1, ready), 0, pivot);
            if w1 > 0 {
                self.update(rows, (c1, w1), c, w);
                self.v.push(Step::Fork);
                let first = self.v.len();
                self.unit = self.p.params.side_leaf(m - c1, self.elem);
                self.block_lu(m, c1, w1, pivot);
                self.unit = PANEL;
                // Without a narrow fork both offsets are 0.
                for st in &mut self.v[first..] {
                    st.relocate(self.p.side_e, self.p.side_r);
                }
                self.v.push(Step::Back);
            }
            if narrow {
                if pivot && c > 0 {
                    self.swap_with(m, 0, c, (c, c1), beside);
                }
                self.prepare(m, (c, c1), (c2, n), beside, pivot);
            }
            if rows > 0 {
                self.update(rows, (c2, n - c2), c, w);
            }
            if w1 == 0 {
                break;
            }
            self.v.push(Step::Join);
            c = c1;
        }
    }

    /// LU of the look-ahead block of columns `c0 .. c0 + nc` (as `lu`).
    fn block_lu(&mut self, m: usize, c0: usize, nc: usize, pivot: bool) {
        self.panel = self.p.params.leaf_swaps.then_some((c0, c0 + nc));
        self.lu(m, c0, nc, pivot);
        self.panel = None;
    }

    /// Columns `from .. to` after block `c .. c1` is factored: its interchanges (through gather
    /// list `list`, where `pivot`) and their rows of `U`.
    fn prepare(
        &mut self,
        m: usize,
        (c, c1): (usize, usize),
        (from, to): (usize, usize),
        list: usize,
        pivot: bool,
    ) {
        if to <= from {
            return;
        }
        if pivot {
            self.swap_with(m, from, to - from, (c, c1), list);
        }
        let (a11, u) = (at(self.c, c, c), at(self.c, c, from));
        self.trsm(
            Side::Left,
            Uplo::Lower,
            Op::N,
            Diag::Unit,
            c1 - c,
            to - from,
            a11,
            u,
        );
    }

    /// Row interchanges `k0 .. k1` on `cols` columns from column `c0`, all `m` rows.
    fn swap(&mut self, m: usize, c0: usize, cols: usize, k0: usize, k1: usize) {
        self.swap_with(m, c0, cols, (k0, k1), 0);
    }

    /// `swap` through gather list `list`.
    fn swap_with(
        &mut self,
        m: usize,
        c0: usize,
        cols: usize,
        (k0, k1): (usize, usize),
        list: usize,
    ) {
        self.v.push(Step::Family(SolverStep::Swap {
            rows: m,
            cols,
            a: at(self.c, 0, c0),
            k0,
            k1,
            reverse: false,
            list,
        }));
    }

    /// `A[r0.., c0..c0+nc] -= L U`, `L` the `rows × w` block below the diagonal block at `c`
    /// and `U` its rows of the columns, for the `rows` rows from `r0 = c + w`.
    fn update(&mut self, rows: usize, (c0, nc): (usize, usize), c: usize, w: usize) {
        if nc == 0 {
            return;
        }
        let r0 = c + w;
        self.v.push(Step::Gemm {
            ta: Op::N,
            tb: Op::N,
            m: rows,
            n: nc,
            k: w,
            alpha: K::MinusOne,
            a: at(self.c, r0, c),
            b: at(self.c, c, c0),
            beta: K::One,
            c: at(self.c, r0, c0),
            count: 1,
        });
    }

    /// `C -= op(X) op(X)ᴴ` on the `lower`/upper triangle of the order-`n` block at `c`, `X`
    /// `n × k` at `x` (lower) or `k × n` (upper, used as `Xᴴ X`): Level 3's rank-k program,
    /// its diagonal blocks in the start of E.
    fn herk<T: Scalar>(&mut self, lower: bool, n: usize, k: usize, x: M, c: M) {
        let (nb, blocks) = (self.p.hnb, self.p.heblocks);
        self.herk_in::<T>(lower, n, k, x, c, (0, nb, blocks));
    }

    /// `herk` with its diagonal blocks of order `nb` at element `e_off` of E, `blocks` at once.
    fn herk_in<T: Scalar>(
        &mut self,
        lower: bool,
        n: usize,
        k: usize,
        x: M,
        c: M,
        (e_off, nb, blocks): (usize, usize, usize),
    ) {
        let r = RankK {
            lower,
            herm: T::COMPLEX,
            notrans: lower,
            n,
            k,
            x,
            y: x,
            two: false,
            alpha: K::MinusOne,
            alpha2: K::MinusOne,
            beta: K::One,
            c,
            e_off,
        };
        rank_k_steps(&mut self.v, &r, nb, blocks);
    }

    /// The `lower`/upper triangle of the order-`nc` diagonal block at `c0` (non-unit)
    /// inverted in place, without workspace. First its leaves, the diagonal blocks of
    /// `tri_place` (and a shorter last one), in one step (two with the short one). Then the
    /// recursion's off-diagonal blocks, `−inv(A11) A12 inv(A22)` (upper; lower:
    /// `−inv(A22) A21 inv(A11)`), level by level from the top, each by two solves with the
    /// triangles below it as they are then: their off-diagonal blocks still the factor's,
    /// their leaves inverted, so the solves' leaves are products in place (`TriMulPlace`)
    /// between products of their recursion. A level's nodes of one size that lie evenly along
    /// the diagonal go as one set of steps (`count` blocks): getri 8192 inverts `U` in 241
    /// steps. The other triangle is `L`'s (getri) or the caller's (potri) and is not touched.
    fn tri_inverse(&mut self, lower: bool, c0: usize, nc: usize) {
        let a = at(self.c, c0, c0);
        let leaf = tri_place(self.elem);
        let full = nc / leaf;
        if full > 0 {
            self.v.push(Step::Family(SolverStep::TriInvPlace {
                lower,
                unit: false,
                n: leaf,
                a: M {
                    bs: leaf * (a.ld + 1),
                    ..a
                },
                count: full,
            }));
        }
        if nc % leaf > 0 {
            let t0 = full * leaf;
            self.v.push(Step::Family(SolverStep::TriInvPlace {
                lower,
                unit: false,
                n: nc - t0,
                a: at(self.c, c0 + t0, c0 + t0),
                count: 1,
            }));
        }
        let mut level = vec![(c0, nc)];
        while !level.is_empty() {
            let mut next = Vec::new();
            for run in even_runs(&level) {
                if run.size <= leaf {
                    continue;
                }
                self.node_solves(lower, run);
                let n1 = split_by(run.size, leaf);
                for q in 0..run.count {
                    let s0 = run.start + q * run.distance;
                    next.extend([(s0, n1), (s0 + n1, run.size - n1)]);
                }
            }
            next.sort_unstable();
            level = next;
        }
    }

    /// The off-diagonal block of each node of `run` (see `tri_inverse`): `X := −inv(T1) X`,
    /// then `X := X inv(T2)`, with `T1` the triangle left of `X` and `T2` the one below it
    /// (upper; lower: `T1` below and `T2` left).
    fn node_solves(&mut self, lower: bool, run: Run) {
        let leaf = tri_place(self.elem);
        let (c0, nc) = (run.start, run.size);
        let n1 = split_by(nc, leaf);
        let n2 = nc - n1;
        let c = M {
            bs: run.distance * (self.c.ld + 1),
            ..self.c
        };
        let nodes = run.count;
        let (x, rows, cols, t1, t2) = if lower {
            (at(c, c0 + n1, c0), n2, n1, c0 + n1, c0)
        } else {
            (at(c, c0, c0 + n1), n1, n2, c0, c0 + n1)
        };
        let left = Solve {
            c,
            nodes,
            lower,
            left: true,
            negate: true,
        };
        self.solve_in_place(left, t1, rows, x, cols);
        let right = Solve {
            left: false,
            negate: false,
            ..left
        };
        self.solve_in_place(right, t2, cols, x, rows);
    }

    /// `X := ±inv(T) X` (`s.left`; `X` is `q × other`) or `±X inv(T)` (`other × q`) in place
    /// (`s.negate`: minus), `T` the order-`q` triangle at diagonal position `t0` of `s.c` with
    /// its leaves inverted and its off-diagonal blocks as they are, in each of `s.nodes`
    /// blocks: the half of `X` that meets `T`'s first leaf is solved first, its share taken
    /// out of the other half by one product, then the other half.
    fn solve_in_place(&mut self, s: Solve, t0: usize, q: usize, x: M, other: usize) {
        let leaf = tri_place(self.elem);
        if q <= leaf {
            self.v.push(Step::Family(SolverStep::TriMulPlace {
                left: s.left,
                lower: s.lower,
                negate: s.negate,
                n: q,
                other,
                t: at(s.c, t0, t0),
                x,
                count: s.nodes,
            }));
            return;
        }
        let q1 = split_by(q, leaf);
        let q2 = q - q1;
        // The first half's solution is stored negated when `negate`.
        let alpha = if s.negate { K::One } else { K::MinusOne };
        // (first triangle, its part of X; second triangle, its part of X; T's block that
        // couples them), in solving order: lower left and upper right start at the top.
        let top = s.lower == s.left;
        let (x1, x2) = if s.left {
            (x, at(x, q1, 0))
        } else {
            (x, at(x, 0, q1))
        };
        let (first, second) = if top {
            ((t0, q1, x1), (t0 + q1, q2, x2))
        } else {
            ((t0 + q1, q2, x2), (t0, q1, x1))
        };
        let coupling = if s.lower {
            at(s.c, t0 + q1, t0)
        } else {
            at(s.c, t0, t0 + q1)
        };
        self.solve_in_place(s, first.0, first.1, first.2, other);
        let (m, n, a, b) = if s.left {
            (second.1, other, coupling, first.2)
        } else {
            (other, second.1, first.2, coupling)
        };
        self.v.push(Step::Gemm {
            ta: Op::N,
            tb: Op::N,
            m,
            n,
            k: first.1,
            alpha,
            a,
            b,
            beta: K::One,
            c: second.2,
            count: s.nodes,
        });
        self.solve_in_place(s, second.0, second.1, second.2, other);
    }

    /// LAPACK's `lauum` in place on the order-`nc` diagonal block at `c0`: the upper triangle
    /// becomes `U Uᴴ` (lower: `Lᴴ L`), recursively: `A11 = lauum(A11) + A12 A12ᴴ` (a rank-k
    /// update), `A12 = A12 A22ᴴ` (`tri_times_h`), then `lauum(A22)`; leaves of at most `pleaf`
    /// expanded into E and multiplied there.
    fn lauum<T: Scalar>(&mut self, lower: bool, c0: usize, nc: usize) {
        let a11 = at(self.c, c0, c0);
        let h = hop::<T>();
        let pl = self.p.pleaf.max(INV_NB);
        if nc <= pl {
            let e = mat(Space::E, 0, pl, 0);
            let t = mat(Space::E, pl * pl, pl, 0);
            self.v.push(Step::Expand {
                fill: Fill::Tri { unit: false },
                lower,
                n: nc,
                src: a11,
                dst: e,
                count: 1,
            });
            let (ta, tb) = if lower { (h, Op::N) } else { (Op::N, h) };
            self.v.push(Step::Gemm {
                ta,
                tb,
                m: nc,
                n: nc,
                k: nc,
                alpha: K::One,
                a: e,
                b: e,
                beta: K::Zero,
                c: t,
                count: 1,
            });
            self.v.push(Step::Tri {
                lower,
                herm: T::COMPLEX,
                n: nc,
                src: t,
                dst: a11,
                beta: K::Zero,
                count: 1,
            });
            return;
        }
        let n1 = split(nc);
        let n2 = nc - n1;
        self.lauum::<T>(lower, c0, n1);
        let x = if lower {
            at(self.c, c0 + n1, c0)
        } else {
            at(self.c, c0, c0 + n1)
        };
        let r = RankK {
            lower,
            herm: T::COMPLEX,
            notrans: !lower,
            n: n1,
            k: n2,
            x,
            y: x,
            two: false,
            alpha: K::One,
            alpha2: K::One,
            beta: K::One,
            c: a11,
            e_off: 0,
        };
        rank_k_steps(&mut self.v, &r, self.p.hnb, self.p.heblocks);
        self.tri_times_h::<T>(lower, c0 + n1, n2, x, n1);
        self.lauum::<T>(lower, c0 + n1, n2);
    }

    /// In place, with the order-`q` triangle at diagonal position `t0`: `X = X Uᴴ` (upper; `X`
    /// is `other × q`) or `X = Lᴴ X` (lower; `X` is `q × other`). Recursively: the first half
    /// of `X` by its own triangle, plus the second half times the off-diagonal block (one
    /// product), then the second half; leaves of at most `pleaf` expanded into E, `X` passing
    /// through E's temporary in chunks of `tchunk` rows (columns).
    fn tri_times_h<T: Scalar>(&mut self, lower: bool, t0: usize, q: usize, x: M, other: usize) {
        let h = hop::<T>();
        let pl = self.p.pleaf.max(INV_NB);
        if q <= pl {
            let e = mat(Space::E, 0, pl, 0);
            self.v.push(Step::Expand {
                fill: Fill::Tri { unit: false },
                lower,
                n: q,
                src: at(self.c, t0, t0),
                dst: e,
                count: 1,
            });
            let chunk = self.p.tchunk.max(1);
            let mut o = 0;
            while o < other {
                let w = chunk.min(other - o);
                if lower {
                    let t = mat(Space::E, pl * pl, pl, 0);
                    let xc = at(x, 0, o);
                    self.v.push(Step::Copy {
                        m: q,
                        n: w,
                        src: xc,
                        dst: t,
                    });
                    self.v.push(Step::Gemm {
                        ta: h,
                        tb: Op::N,
                        m: q,
                        n: w,
                        k: q,
                        alpha: K::One,
                        a: e,
                        b: t,
                        beta: K::Zero,
                        c: xc,
                        count: 1,
                    });
                } else {
                    let t = mat(Space::E, pl * pl, w, 0);
                    let xc = at(x, o, 0);
                    self.v.push(Step::Copy {
                        m: w,
                        n: q,
                        src: xc,
                        dst: t,
                    });
                    self.v.push(Step::Gemm {
                        ta: Op::N,
                        tb: h,
                        m: w,
                        n: q,
                        k: q,
                        alpha: K::One,
                        a: t,
                        b: e,
                        beta: K::Zero,
                        c: xc,
                        count: 1,
                    });
                }
                o += w;
            }
            return;
        }
        let q1 = split(q);
        let q2 = q - q1;
        self.tri_times_h::<T>(lower, t0, q1, x, other);
        if lower {
            // X1 += Lbᴴ X2, Lb the q2 × q1 block below the first half's triangle.
            self.v.push(Step::Gemm {
                ta: h,
                tb: Op::N,
                m: q1,
                n: other,
                k: q2,
                alpha: K::One,
                a: at(self.c, t0 + q1, t0),
                b: at(x, q1, 0),
                beta: K::One,
                c: x,
                count: 1,
            });
            self.tri_times_h::<T>(lower, t0 + q1, q2, at(x, q1, 0), other);
        } else {
            // X1 += X2 Ubᴴ, Ub the q1 × q2 block right of the first half's triangle.
            self.v.push(Step::Gemm {
                ta: Op::N,
                tb: h,
                m: other,
                n: q1,
                k: q2,
                alpha: K::One,
                a: at(x, 0, q1),
                b: at(self.c, t0, t0 + q1),
                beta: K::One,
                c: x,
                count: 1,
            });
            self.tri_times_h::<T>(lower, t0 + q1, q2, at(x, 0, q1), other);
        }
    }

    /// getri after `inv(U)`: `X L = inv(U)` solved for `X = inv(A)` (before the column
    /// interchanges) in blocks of columns from the right, as LAPACK's `getri`: each block's
    /// part of `L` moves to E (zeros left behind), one product subtracts the solved columns'
    /// share, and the block is solved with the unit lower diagonal block. E holds `n × wnb`
    /// elements; with `getri_widen` a block takes as many columns (up to `tri_place`: 128, 64
    /// for complex double) as its
    /// part of `L`, shorter toward the right, fits there. The diagonal blocks of `L` are
    /// inverted in place first (blocks of one width in one step) and each block multiplied by
    /// its own in place (`TriMulPlace`): getri 8192 took 28.2 ms against 35.0 with each block
    /// solved by substitution, one thread's chain per row (H200).
    fn inverse_times_l(&mut self, n: usize) {
        let nb = self.p.wnb.max(1);
        let room = n * nb;
        // (`wnb` is at most `tri_place`, the widest triangle one step inverts or multiplies)
        let widest = if self.p.params.getri_widen {
            tri_place(self.elem)
        } else {
            nb
        };
        // (first column, width) of each block, from the right.
        let mut blocks = Vec::new();
        let mut end = n;
        while end > 0 {
            let mut jb = widest.min(end);
            while jb > 8 && (n - end + jb) * jb > room {
                jb -= 8;
            }
            if !self.p.params.getri_widen && end % nb != 0 {
                jb = end % nb;
            }
            blocks.push((end - jb, jb));
            end -= jb;
        }
        // L's diagonal blocks, a run of one width (evenly spaced) a step.
        let mut i = 0;
        while i < blocks.len() {
            let jb = blocks[i].1;
            let count = blocks[i..].iter().take_while(|b| b.1 == jb).count();
            let j = blocks[i + count - 1].0;
            let a = at(self.c, j, j);
            self.v.push(Step::Family(SolverStep::TriInvPlace {
                lower: true,
                unit: true,
                n: jb,
                a: M {
                    bs: jb * (a.ld + 1),
                    ..a
                },
                count,
            }));
            i += count;
        }
        for (j, jb) in blocks {
            let w = mat(Space::E, 0, n - j, 0);
            self.v.push(Step::Family(SolverStep::TakeLower {
                rows: n - j,
                cols: jb,
                a: at(self.c, j, j),
                w,
            }));
            if j + jb < n {
                self.v.push(Step::Gemm {
                    ta: Op::N,
                    tb: Op::N,
                    m: n,
                    n: jb,
                    k: n - j - jb,
                    alpha: K::MinusOne,
                    a: at(self.c, 0, j + jb),
                    b: at(w, jb, 0),
                    beta: K::One,
                    c: at(self.c, 0, j),
                    count: 1,
                });
            }
            self.v.push(Step::Family(SolverStep::TriMulPlace {
                left: false,
                lower: true,
                negate: false,
                n: jb,
                other: n,
                t: w,
                x: at(self.c, 0, j),
                count: 1,
            }));
        }
    }

    /// Cholesky of the order-`nc` diagonal block at `c0`.
    fn chol<T: Scalar>(&mut self, lower: bool, c0: usize, nc: usize) {
        if nc <= chol_leaf(std::mem::size_of::<T>()) {
            self.v.push(Step::Family(SolverStep::Chol {
                lower,
                n: nc,
                a: at(self.c, c0, c0),
                k0: c0,
            }));
            return;
        }
        let n1 = split(nc);
        let n2 = nc - n1;
        self.chol::<T>(lower, c0, n1);
        let a11 = at(self.c, c0, c0);
        let h = hop::<T>();
        if lower {
            let a21 = at(self.c, c0 + n1, c0);
            self.trsm(Side::Right, Uplo::Lower, h, Diag::NonUnit, n2, n1, a11, a21);
            self.herk::<T>(true, n2, n1, a21, at(self.c, c0 + n1, c0 + n1));
        } else {
            let a12 = at(self.c, c0, c0 + n1);
            self.trsm(Side::Left, Uplo::Upper, h, Diag::NonUnit, n1, n2, a11, a12);
            self.herk::<T>(false, n2, n1, a12, at(self.c, c0 + n1, c0 + n1));
        }
        self.chol::<T>(lower, c0 + n1, n2);
    }

    /// Cholesky of the order-`nc` diagonal block at `c0` and the solve for its block column
    /// below (lower; its block row to the right, upper) in a matrix of order `n`.
    fn chol_panel<T: Scalar>(&mut self, lower: bool, c0: usize, nc: usize, n: usize) {
        self.chol::<T>(lower, c0, nc);
        let rest = n - c0 - nc;
        if rest == 0 {
            return;
        }
        let a11 = at(self.c, c0, c0);
        let h = hop::<T>();
        if lower {
            let a21 = at(self.c, c0 + nc, c0);
            self.trsm(
                Side::Right,
                Uplo::Lower,
                h,
                Diag::NonUnit,
                rest,
                nc,
                a11,
                a21,
            );
        } else {
            let a12 = at(self.c, c0, c0 + nc);
            self.trsm(
                Side::Left,
                Uplo::Upper,
                h,
                Diag::NonUnit,
                nc,
                rest,
                a11,
                a12,
            );
        }
    }

    /// The block column (row, upper) of `nc` columns at `c0` of the blocked Cholesky of order
    /// `n` for real types, its update by the blocks before it done: leaves of
    /// `CHOL_BLOCK_LEAF` columns. Each leaf's diagonal block takes its update by the leaves
    /// before it in this block from its square in E (`SolverPlan::csquares` of them from
    /// E's start), to which every leaf, once solved, adds its part as one batched product (on
    /// the chain only a product of order 128, not one over all the leaves before); the leaf's
    /// factor adds the square while loading. The rows below a leaf (columns right) take its update
    /// by the leaves before it as one product on the aux lane beside the square and the
    /// factor; then they are solved with the factor in one step.
    fn chol_column(&mut self, lower: bool, c0: usize, nc: usize, n: usize) {
        let leaf = CHOL_BLOCK_LEAF;
        let sq = leaf * leaf;
        let square = |m: usize| mat(Space::E, (m - 1) * sq, leaf, sq);
        let (ta, tb) = if lower {
            (Op::N, Op::T)
        } else {
            (Op::T, Op::N)
        };
        let gemm = |m, nn, k, a, b, beta, c, count| Step::Gemm {
            ta,
            tb,
            m,
            n: nn,
            k,
            alpha: K::MinusOne,
            a,
            b,
            beta,
            c,
            count,
        };
        let leaves = nc.div_ceil(leaf);
        for j in 0..leaves {
            let s = c0 + j * leaf;
            let ns = leaf.min(c0 + nc - s);
            let (k, below) = (s - c0, n - s - ns);
            if k > 0 && below > 0 {
                // Lower: the rows below take −Q Pᵀ, Q their part and P the leaf's rows of the
                // panels before it. Upper: the transposes. On the aux lane.
                let (p, q, t) = if lower {
                    (
                        at(self.c, s, c0),
                        at(self.c, s + ns, c0),
                        at(self.c, s + ns, s),
                    )
                } else {
                    (
                        at(self.c, c0, s),
                        at(self.c, c0, s + ns),
                        at(self.c, s, s + ns),
                    )
                };
                self.v.push(Step::ForkAux);
                self.v.push(if lower {
                    gemm(below, ns, k, q, p, K::One, t, 1)
                } else {
                    gemm(ns, below, k, p, q, K::One, t, 1)
                });
                self.v.push(Step::BackAux);
            }
            let upd = (k > 0).then(|| square(j));
            let l = at(self.c, s, s);
            self.v.push(Step::Family(SolverStep::CholLeaf {
                lower,
                n: ns,
                a: l,
                k0: s,
                upd,
            }));
            if below > 0 {
                if k > 0 {
                    self.v.push(Step::JoinAux);
                }
                self.v.push(Step::Family(SolverStep::PanelSolve {
                    lower,
                    rows: below,
                    n: ns,
                    a: if lower {
                        at(self.c, s + ns, s)
                    } else {
                        at(self.c, s, s + ns)
                    },
                    l,
                }));
            }
            // This leaf's part of the later leaves' squares: the full ones as one batched
            // product (their rows of this leaf's panel, `leaf` apart), a short last one alone.
            let later = leaves - 1 - j;
            if later == 0 {
                continue;
            }
            let last = c0 + nc - (s + ns) - (later - 1) * leaf;
            let full = if last == leaf { later } else { later - 1 };
            let beta = if j == 0 { K::Zero } else { K::One };
            let rows = |m: usize| {
                // Leaf m's rows (columns, upper) of this leaf's panel, the next full leaf `leaf`
                // rows (columns) on.
                let x = if lower {
                    at(self.c, c0 + m * leaf, s)
                } else {
                    at(self.c, s, c0 + m * leaf)
                };
                M {
                    bs: if lower { leaf } else { leaf * self.c.ld },
                    ..x
                }
            };
            if full > 0 {
                let x = rows(j + 1);
                self.v
                    .push(gemm(leaf, leaf, ns, x, x, beta, square(j + 1), full));
            }
            if last < leaf {
                let x = rows(leaves - 1);
                self.v
                    .push(gemm(last, last, ns, x, x, beta, square(leaves - 1), 1));
            }
        }
    }

    /// The diagonal blocks of the look-ahead's update of the next block's diagonal block (order
    /// `w`), in the trailing updates' part of E (they run in turn on the main lane): the
    /// largest power-of-two order whose blocks all fit there at once, fewer and larger
    /// products than the trailing updates' order (sized for a whole trailing matrix).
    fn ahead_blocks(&self, w: usize) -> (usize, usize, usize) {
        let p = self.p;
        let room = p.teblocks * p.tnb * p.tnb;
        let mut nb = p.params.herk_nb_max.min(w.max(1)).next_power_of_two();
        while nb > p.tnb && w.div_ceil(nb) * nb * nb > room {
            nb /= 2;
        }
        if nb <= p.tnb {
            return (p.e_trail, p.tnb, p.teblocks);
        }
        (p.e_trail, nb, w.div_ceil(nb))
    }

    /// Cholesky of the whole order-`n` matrix in blocks of `nb` with a look-ahead of one: once
    /// block `k`'s column (lower; row, upper) is solved, the main lane updates block `k + 1`'s
    /// column with it, whose diagonal factor and solve then run on the side lane while the
    /// main lane updates the rest of the trailing matrix. The side lane's steps use the start
    /// of E and R; the main lane's beside them only its own part of E (`e_trail`).
    fn chol_ahead<T: Scalar>(&mut self, lower: bool, n: usize, nb: usize) {
        let trail = (self.p.e_trail, self.p.tnb, self.p.teblocks);
        let h = hop::<T>();
        // Real types with room for the leaves' update square: leaves of one step each
        // (`chol_column`); otherwise the recursion and trsm.
        let leaves = self.p.cleaf > 0 && !T::COMPLEX;
        let column = |b: &mut Self, c0: usize, nc: usize| {
            if leaves {
                b.chol_column(lower, c0, nc, n);
            } else {
                b.chol_panel::<T>(lower, c0, nc, n);
            }
        };
        column(self, 0, nb.min(n));
        let mut c = 0;
        while c + nb.min(n - c) < n {
            let w = nb.min(n - c);
            let c1 = c + w;
            let w1 = nb.min(n - c1);
            let rest = n - c1 - w1;
            // Block column (row) c1: its diagonal block, then the rows below (columns right).
            let (x1, xr) = if lower {
                (at(self.c, c1, c), at(self.c, c1 + w1, c))
            } else {
                (at(self.c, c, c1), at(self.c, c, c1 + w1))
            };
            let ahead = self.ahead_blocks(w1);
            self.herk_in::<T>(lower, w1, w, x1, at(self.c, c1, c1), ahead);
            if rest > 0 {
                self.v.push(if lower {
                    Step::Gemm {
                        ta: Op::N,
                        tb: h,
                        m: rest,
                        n: w1,
                        k: w,
                        alpha: K::MinusOne,
                        a: xr,
                        b: x1,
                        beta: K::One,
                        c: at(self.c, c1 + w1, c1),
                        count: 1,
                    }
                } else {
                    Step::Gemm {
                        ta: h,
                        tb: Op::N,
                        m: w1,
                        n: rest,
                        k: w,
                        alpha: K::MinusOne,
                        a: x1,
                        b: xr,
                        beta: K::One,
                        c: at(self.c, c1, c1 + w1),
                        count: 1,
                    }
                });
            }
            self.v.push(Step::Fork);
            column(self, c1, w1);
            self.v.push(Step::Back);
            if rest > 0 {
                let c2 = c1 + w1;
                self.herk_in::<T>(lower, rest, w, xr, at(self.c, c2, c2), trail);
            }
            self.v.push(Step::Join);
            c = c1;
        }
    }
}

/// The program of a call with work to do (no quick return).
pub(crate) fn build<T: Scalar>(g: &Prog, p: &SolverPlan) -> Vec<Step> {
    let mut b = Builder {
        v: Vec::new(),
        p,
        c: mat(Space::C, 0, g.ld_written, 0),
        leaf: 0,
        unit: PANEL,
        elem: std::mem::size_of::<T>(),
        panel: None,
    };
    match g.kind {
        Kind::Getrf | Kind::GetrfNpvt => {
            let pivot = g.kind == Kind::Getrf;
            b.v.push(Step::Family(SolverStep::Init));
            if lu_whole(g.m, g.n, T::COMPLEX) {
                // A small matrix: one step factors all of it (one block per matrix on the GPU).
                b.v.push(Step::Family(SolverStep::Lu {
                    rows: g.m,
                    cols: g.n,
                    a: b.c,
                    k0: 0,
                    pivot,
                    leaf: 0,
                    others: (0, 0),
                }));
                return b.v;
            }
            if let Some(nb) = p.params.lookahead(g.m, g.n) {
                b.lu_ahead(g.m, g.n, nb, pivot);
                return b.v;
            }
            let k = g.m.min(g.n);
            b.lu(g.m, 0, k, pivot);
            if g.n > g.m {
                let rest = g.n - g.m;
                if pivot {
                    b.swap(g.m, g.m, rest, 0, g.m);
                }
                let (a, r) = (b.c, at(b.c, 0, g.m));
                b.trsm(Side::Left, Uplo::Lower, Op::N, Diag::Unit, g.m, rest, a, r);
            }
        }
        Kind::Potrf => {
            b.v.push(Step::Family(SolverStep::Init));
            let lower = g.uplo == Uplo::Lower;
            if p.cnb > 0 {
                b.chol_ahead::<T>(lower, g.m, p.cnb);
            } else {
                b.chol::<T>(lower, 0, g.m);
            }
        }
        Kind::Getrs => {
            let (n, nrhs) = (g.m, g.n);
            let a = mat(Space::A, 0, g.ld_factors, 0);
            let x = b.c;
            // All n interchanges on the right-hand sides, in reverse for a transposed solve.
            let swaps = Step::Family(SolverStep::Swap {
                rows: n,
                cols: nrhs,
                a: x,
                k0: 0,
                k1: n,
                reverse: g.op != Op::N,
                list: 0,
            });
            if g.interchanges_only {
                b.v.push(swaps);
            } else if g.op == Op::N {
                b.v.push(swaps);
                b.trsm(Side::Left, Uplo::Lower, Op::N, Diag::Unit, n, nrhs, a, x);
                b.trsm(Side::Left, Uplo::Upper, Op::N, Diag::NonUnit, n, nrhs, a, x);
            } else {
                b.trsm(Side::Left, Uplo::Upper, g.op, Diag::NonUnit, n, nrhs, a, x);
                b.trsm(Side::Left, Uplo::Lower, g.op, Diag::Unit, n, nrhs, a, x);
                b.v.push(swaps);
            }
        }
        Kind::Getri => {
            let n = g.m;
            b.v.push(Step::Family(SolverStep::Init));
            b.v.push(Step::Family(SolverStep::DiagInfo { n, a: b.c }));
            b.tri_inverse(false, 0, n);
            b.inverse_times_l(n);
            b.v.push(Step::Family(SolverStep::ColSwaps { n, a: b.c }));
        }
        Kind::Potri => {
            let (n, lower) = (g.m, g.uplo == Uplo::Lower);
            b.v.push(Step::Family(SolverStep::Init));
            b.v.push(Step::Family(SolverStep::DiagInfo { n, a: b.c }));
            b.tri_inverse(lower, 0, n);
            b.lauum::<T>(lower, 0, n);
        }
        Kind::Potrs => {
            let (n, nrhs) = (g.m, g.n);
            let a = mat(Space::A, 0, g.ld_factors, 0);
            let x = b.c;
            let h = hop::<T>();
            let (first, second) = if g.uplo == Uplo::Lower {
                (Op::N, h)
            } else {
                (h, Op::N)
            };
            b.trsm(Side::Left, g.uplo, first, Diag::NonUnit, n, nrhs, a, x);
            b.trsm(Side::Left, g.uplo, second, Diag::NonUnit, n, nrhs, a, x);
        }
    }
    b.v
}
