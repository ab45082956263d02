//! The host backend of Level 2: plain loops over the stored elements. It leases the same plan
//! as the GPU (so queries, fixed workspaces and `PerfDegraded` behave the same) and builds
//! trmv's result in the workspace before it overwrites `x`, as the GPU does.

use super::plan::{Algo, Blas2Workspace, Plan};
use super::{Call, Kind, Storage};
use crate::common::host::{at, coef_value, not_host};
use crate::device::host_workspace_bytes;
use crate::memory::WorkspaceSlice;
use crate::{Diag, Error, Handle, Op, Scalar, Uplo};

/// The matrix description the loops need, copied out of the call (which holds the outputs).
#[derive(Clone, Copy)]
struct Mat {
    kind: Kind,
    op: Op,
    uplo: Uplo,
    diag: Diag,
    n: usize,
    storage: Storage,
}

/// Element (i, j) of the stored matrix, or zero outside the stored triangle/band; the unit
/// diagonal of a triangular matrix as one.
fn stored<T: Scalar>(c: Mat, a: &[T], i: usize, j: usize) -> T {
    let tri = !matches!(c.kind, Kind::Gemv);
    if tri {
        let inside = match c.uplo {
            Uplo::Upper => i <= j,
            Uplo::Lower => i >= j,
        };
        if !inside {
            return T::zero();
        }
        if i == j && c.diag == Diag::Unit && matches!(c.kind, Kind::Trmv | Kind::Trsv) {
            return T::one();
        }
    }
    let n = c.n;
    match c.storage {
        Storage::Full { lda } => a[i + j * lda],
        Storage::Band { kl, ku, lda } => {
            if (i > j && i - j > kl) || (j > i && j - i > ku) {
                return T::zero();
            }
            a[ku + i - j + j * lda]
        }
        Storage::Packed => match c.uplo {
            Uplo::Upper => a[i + j * (j + 1) / 2],
            Uplo::Lower => a[i + j * (2 * n - j - 1) / 2],
        },
    }
}

/// The columns `j < len` where row `i` of the applied operator (see [`oper`]) may be non-zero:
/// the band (and triangle) of the stored matrix, seen through `op` or mirrored. Loops over it
/// never multiply an element that is not stored.
fn row_range(c: Mat, i: usize, len: usize) -> std::ops::Range<usize> {
    let all = usize::MAX;
    let (kl, ku) = match (c.storage, c.kind) {
        (Storage::Band { kl, ku, .. }, _) => (kl, ku),
        (_, Kind::Trmv | Kind::Trsv) if c.uplo == Uplo::Lower => (all, 0),
        (_, Kind::Trmv | Kind::Trsv) => (0, all),
        _ => (all, all),
    };
    let (below, above) = match c.kind {
        Kind::Symv | Kind::Hemv => (kl.max(ku), kl.max(ku)),
        _ if c.op == Op::N => (kl, ku),
        _ => (ku, kl),
    };
    i.saturating_sub(below)..i.saturating_add(above).saturating_add(1).min(len)
}

/// Element (i, j) of the operator the routine applies (op(A), or the full symmetric/Hermitian
/// matrix).
fn oper<T: Scalar>(c: Mat, a: &[T], i: usize, j: usize) -> T {
    match c.kind {
        Kind::Symv | Kind::Hemv => {
            let herm = c.kind == Kind::Hemv;
            let in_tri = match c.uplo {
                Uplo::Upper => i <= j,
                Uplo::Lower => i >= j,
            };
            if i == j && herm {
                T::from_real(stored(c, a, i, i).re())
            } else if in_tri {
                stored(c, a, i, j)
            } else if herm {
                stored(c, a, j, i).conj()
            } else {
                stored(c, a, j, i)
            }
        }
        _ => match c.op {
            Op::N => stored(c, a, i, j),
            Op::T => stored(c, a, j, i),
            Op::C => stored(c, a, j, i).conj(),
        },
    }
}

/// Rows per piece of a non-transposed product: a piece of the result stays in the L1/L2 cache
/// while runs of its columns stream past it.
const ROWS_PER_PIECE: usize = 2048;
/// Columns per block of a non-transposed product (at most `MAX_COL_BLOCKS` blocks): pieces ×
/// blocks give every thread work while each column run stays long.
const COLS_PER_BLOCK: usize = 1024;
const MAX_COL_BLOCKS: usize = 16;
/// Columns per piece of a transposed product.
const COLS_PER_PIECE: usize = 16;
/// Tasks a product with few pieces in one direction aims for (blocks in the other direction).
const COL_TASKS: usize = 256;
/// Rows per block of a transposed product with few column pieces.
const ROWS_PER_DOT_BLOCK: usize = 1 << 15;
/// Independent accumulators of a transposed product's column dot.
const LANES: usize = 8;

/// `t = op(A) x` for a full general matrix (`x` gathered to unit stride). Pieces are fixed
/// by the shape and every element's sum runs in one fixed order, so the result is the same
/// bit for bit on any number of threads.
#[allow(clippy::too_many_arguments)]
fn gemv_full<T: Scalar>(
    par: &crate::common::host::Par,
    op: Op,
    m: usize,
    n: usize,
    a: &[T],
    lda: usize,
    x: &[T],
    t: &mut [T],
) {
    let arch = pulp::Arch::new();
    if op == Op::N {
        // Pieces of rows × blocks of columns, so each piece streams long runs of its columns
        // and every thread has work; the blocks' partial sums are added in block order.
        let pieces = m.div_ceil(ROWS_PER_PIECE);
        // Few row pieces (a short, wide matrix): more column blocks, so every thread has work.
        let max_blocks = (COL_TASKS / pieces).clamp(MAX_COL_BLOCKS, COL_TASKS);
        let blocks = n.div_ceil(COLS_PER_BLOCK).clamp(1, max_blocks);
        let cb = n.div_ceil(blocks);
        let parts = par.map(pieces * blocks, |task| {
            let (p, q) = (task % pieces, task / pieces);
            let r0 = p * ROWS_PER_PIECE;
            let rows = ROWS_PER_PIECE.min(m - r0);
            let (c0, c1) = (q * cb, ((q + 1) * cb).min(n));
            let mut tp = vec![T::zero(); rows];
            arch.dispatch(RowsPiece {
                a,
                lda,
                x: &x[c0..c1],
                r0,
                c0,
                t: &mut tp,
            });
            tp
        });
        for (p, tp) in t.chunks_mut(ROWS_PER_PIECE).enumerate() {
            tp.iter_mut().for_each(|v| *v = T::zero());
            for q in 0..blocks {
                for (ti, v) in tp.iter_mut().zip(&parts[q * pieces + p]) {
                    *ti = *ti + *v;
                }
            }
        }
        return;
    }
    let conj = op == Op::C;
    let pieces = n.div_ceil(COLS_PER_PIECE);
    // Few column pieces (a tall, narrow matrix): the rows split into blocks too, each block's
    // dots added in block order.
    let rblocks = if pieces >= COL_TASKS {
        1
    } else {
        (m / ROWS_PER_DOT_BLOCK).clamp(1, COL_TASKS)
    };
    if rblocks == 1 {
        par.chunks_mut(t, COLS_PER_PIECE, |p, tp| {
            arch.dispatch(ColsPiece {
                a,
                lda,
                x: &x[..m],
                c0: p * COLS_PER_PIECE,
                conj,
                t: tp,
            })
        });
        return;
    }
    let parts = par.map(pieces * rblocks, |task| {
        let (p, q) = (task % pieces, task / pieces);
        let (r0, r1) = (q * m / rblocks, (q + 1) * m / rblocks);
        let c0 = p * COLS_PER_PIECE;
        let mut tp = vec![T::zero(); COLS_PER_PIECE.min(n - c0)];
        arch.dispatch(ColsPiece {
            a: &a[r0..],
            lda,
            x: &x[r0..r1],
            c0,
            conj,
            t: &mut tp,
        });
        tp
    });
    for (p, tp) in t.chunks_mut(COLS_PER_PIECE).enumerate() {
        tp.iter_mut().for_each(|v| *v = T::zero());
        for q in 0..rblocks {
            for (ti, v) in tp.iter_mut().zip(&parts[q * pieces + p]) {
                *ti = *ti + *v;
            }
        }
    }
}

/// Rows `r0..r0 + t.len()` of `A x`, column by column (a pulp operation, so the loop is
/// compiled for the CPU's vector unit).
struct RowsPiece<'a, T> {
    a: &'a [T],
    lda: usize,
    /// The vector's entries for columns `c0..c0 + x.len()`.
    x: &'a [T],
    r0: usize,
    c0: usize,
    t: &'a mut [T],
}

impl<T: Scalar> pulp::WithSimd for RowsPiece<'_, T> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        let RowsPiece {
            a,
            lda,
            x,
            r0,
            c0,
            t,
        } = self;
        t.iter_mut().for_each(|v| *v = T::zero());
        let rows = t.len();
        let col = |j: usize| {
            let s = r0 + (c0 + j) * lda;
            &a[s..s + rows]
        };
        // Four columns per pass over the piece, in column order (the bits of one per pass).
        let quads = x.len() / 4;
        for q in 0..quads {
            let j = [4 * q, 4 * q + 1, 4 * q + 2, 4 * q + 3];
            axpy4(t, j.map(col), j.map(|j| x[j]));
        }
        for (j, &xj) in x.iter().enumerate().skip(4 * quads) {
            axpy(t, col(j), xj);
        }
    }
}

/// Entries `c0..c0 + t.len()` of `op(A)ᵀ`-style column dots (transposed products).
struct ColsPiece<'a, T> {
    a: &'a [T],
    lda: usize,
    x: &'a [T],
    c0: usize,
    conj: bool,
    t: &'a mut [T],
}

impl<T: Scalar> pulp::WithSimd for ColsPiece<'_, T> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        let ColsPiece {
            a,
            lda,
            x,
            c0,
            conj,
            t,
        } = self;
        let m = x.len();
        for (q, tj) in t.iter_mut().enumerate() {
            let j = c0 + q;
            let col = &a[j * lda..j * lda + m];
            let mut acc = [T::zero(); LANES];
            let mut cc = col.chunks_exact(LANES);
            let mut xc = x.chunks_exact(LANES);
            for (ca, xa) in (&mut cc).zip(&mut xc) {
                for k in 0..LANES {
                    let v = if conj { ca[k].conj() } else { ca[k] };
                    acc[k] = acc[k] + v * xa[k];
                }
            }
            for (cv, xv) in cc.remainder().iter().zip(xc.remainder()) {
                let v = if conj { cv.conj() } else { *cv };
                acc[0] = acc[0] + v * *xv;
            }
            *tj = acc.iter().fold(T::zero(), |s, v| s + *v);
        }
    }
}

/// Columns per diagonal block of a full-storage trsv, and the fewest rows per piece of its
/// updates.
const TRSV_BLOCK: usize = 256;
const TRSV_PIECE: usize = 512;

/// One step of a full-storage trsv on a unit-stride copy of `x`, as a pulp operation (the loops
/// compile for the CPU's vector unit).
enum TrsvStep<'a, T> {
    /// Solve the diagonal block `j0..j1` in place, column by column; `outer` holds, for op T/C,
    /// each column's dot with the entries solved before the block (`None`: there are none).
    Block {
        j0: usize,
        j1: usize,
        outer: Option<&'a [T]>,
        x: &'a mut [T],
    },
    /// op N: subtract the solved block's columns from rows `r0..r0 + piece.len()`, one column
    /// at a time in the solve's order (the same operations, in the same order, as one axpy of
    /// each whole column).
    Update {
        j0: usize,
        xb: &'a [T],
        r0: usize,
        piece: &'a mut [T],
    },
    /// op T/C: the dots of columns `j0..j0 + out.len()` with the solved rows `lo..lo + xs.len()`.
    Dots {
        j0: usize,
        lo: usize,
        xs: &'a [T],
        out: &'a mut [T],
    },
}

struct Trsv<'a, T> {
    op: Op,
    uplo: Uplo,
    unit: bool,
    a: &'a [T],
    lda: usize,
    step: TrsvStep<'a, T>,
}

impl<T: Scalar> pulp::WithSimd for Trsv<'_, T> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        trsv_step(self)
    }
}

#[inline(always)]
fn trsv_step<T: Scalar>(f: Trsv<'_, T>) {
    let Trsv {
        op,
        uplo,
        unit,
        a,
        lda,
        step,
    } = f;
    let upper = uplo == Uplo::Upper;
    let conj = op == Op::C;
    let col = |j: usize, lo: usize, hi: usize| &a[lo + j * lda..hi + j * lda];
    // op N walks the columns in the order the triangle allows and subtracts each solved
    // entry's column (axpy); op T/C solves entry j from a dot with column j.
    let forward = (op == Op::N) != upper;
    match step {
        TrsvStep::Block { j0, j1, outer, x } => {
            // The off-diagonal rows of column j inside the block (x holds rows j0..j1).
            let rows = |j: usize| if upper { (j0, j) } else { (j + 1, j1) };
            let order: Box<dyn Iterator<Item = usize>> = if forward {
                Box::new(j0..j1)
            } else {
                Box::new((j0..j1).rev())
            };
            for j in order {
                let (lo, hi) = rows(j);
                let (lb, hb, jb) = (lo - j0, hi - j0, j - j0);
                if op == Op::N {
                    if !unit {
                        x[jb] = x[jb].safe_div(a[j + j * lda]);
                    }
                    let xj = x[jb];
                    axpy(&mut x[lb..hb], col(j, lo, hi), T::zero() - xj);
                } else {
                    let inner = dot(col(j, lo, hi), &x[lb..hb], conj);
                    let d = match outer {
                        Some(o) => inner + o[jb],
                        None => inner,
                    };
                    let s = x[jb] - d;
                    let dj = a[j + j * lda];
                    let dj = if conj { dj.conj() } else { dj };
                    x[jb] = if unit { s } else { s.safe_div(dj) };
                }
            }
        }
        TrsvStep::Update { j0, xb, r0, piece } => {
            let (rows, len) = (piece.len(), xb.len());
            // The block's columns in the solve's order, four per pass over the piece (each
            // element still takes them one at a time, in that order: the same bits).
            let at = |i: usize| if forward { i } else { len - 1 - i };
            let c = |q: usize| col(j0 + q, r0, r0 + rows);
            let s = |q: usize| T::zero() - xb[q];
            for g in 0..len / 4 {
                let q = [at(4 * g), at(4 * g + 1), at(4 * g + 2), at(4 * g + 3)];
                axpy4(piece, q.map(c), q.map(s));
            }
            for i in 4 * (len / 4)..len {
                axpy(piece, c(at(i)), s(at(i)));
            }
        }
        TrsvStep::Dots { j0, lo, xs, out } => {
            for (q, o) in out.iter_mut().enumerate() {
                *o = dot(col(j0 + q, lo, lo + xs.len()), xs, conj);
            }
        }
    }
}

/// A full-storage trsv in diagonal blocks of [`TRSV_BLOCK`] columns: each block is solved on
/// one thread, then (op N) its columns are subtracted from the unsolved rows in pieces over the
/// threads, which repeats the sequential solve's operations exactly; or (op T/C) each block's
/// columns first take their dots with the solved entries in parallel, then the block is solved
/// adding its own part. The blocks are fixed by the shape, so the bits never depend on threads.
#[allow(clippy::too_many_arguments)]
fn trsv_full<T: Scalar>(
    par: &crate::common::host::Par,
    op: Op,
    uplo: Uplo,
    unit: bool,
    n: usize,
    a: &[T],
    lda: usize,
    x: &mut [T],
) {
    let arch = pulp::Arch::new();
    let upper = uplo == Uplo::Upper;
    let forward = (op == Op::N) != upper;
    let blocks = n.div_ceil(TRSV_BLOCK);
    let run = |step: TrsvStep<'_, T>| {
        arch.dispatch(Trsv {
            op,
            uplo,
            unit,
            a,
            lda,
            step,
        })
    };
    for k in 0..blocks {
        let b = if forward { k } else { blocks - 1 - k };
        let (j0, j1) = (b * TRSV_BLOCK, ((b + 1) * TRSV_BLOCK).min(n));
        if op == Op::N {
            run(TrsvStep::Block {
                j0,
                j1,
                outer: None,
                x: &mut x[j0..j1],
            });
            // The rows still unsolved: below the block (forward) or above it.
            let (head, tail) = x.split_at_mut(j0);
            let (xb, below) = tail.split_at_mut(j1 - j0);
            let (rest, r_start) = if forward { (below, j1) } else { (head, 0) };
            let xb: &[T] = xb;
            // Two pieces per thread, none shorter than TRSV_PIECE rows: long column runs where
            // there are few threads. Each element's operations do not depend on the pieces, so
            // neither do the bits.
            let len = rest.len().div_ceil(2 * par.threads()).max(TRSV_PIECE);
            par.chunks_mut(rest, len, |i, piece| {
                run(TrsvStep::Update {
                    j0,
                    xb,
                    r0: r_start + i * len,
                    piece,
                })
            });
        } else {
            // The entries solved before this block: above it (forward) or below it.
            let (lo, hi) = if forward { (0, j0) } else { (j1, n) };
            let mut outer = vec![T::zero(); j1 - j0];
            if hi > lo {
                let xs: &[T] = &x[lo..hi];
                par.chunks_mut(&mut outer, 16, |i, out| {
                    run(TrsvStep::Dots {
                        j0: j0 + i * 16,
                        lo,
                        xs,
                        out,
                    })
                });
            }
            run(TrsvStep::Block {
                j0,
                j1,
                outer: (hi > lo).then_some(&outer[..]),
                x: &mut x[j0..j1],
            });
        }
    }
}

/// Columns per block of a full-storage symv/hemv/trmv (at most `PROD_MAX_BLOCKS` blocks).
const PROD_COLS: usize = 256;
const PROD_MAX_BLOCKS: usize = 64;

/// Columns `j0..j1` of a full-storage symv/hemv or trmv: each column's axpy into the rows it
/// touches and its diagonal and dot into its own row, summed into `t`, which holds rows
/// `base..base + t.len()` (a pulp operation: the loops compile for the CPU's vector unit).
struct ProdBlock<'a, T> {
    kind: Kind,
    op: Op,
    uplo: Uplo,
    unit: bool,
    n: usize,
    a: &'a [T],
    lda: usize,
    x: &'a [T],
    j0: usize,
    j1: usize,
    base: usize,
    t: &'a mut [T],
}

impl<T: Scalar> pulp::WithSimd for ProdBlock<'_, T> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        prod_block(self)
    }
}

#[inline(always)]
fn prod_block<T: Scalar>(p: ProdBlock<'_, T>) {
    let ProdBlock {
        kind,
        op,
        uplo,
        unit,
        n,
        a,
        lda,
        x,
        j0,
        j1,
        base,
        t,
    } = p;
    let upper = uplo == Uplo::Upper;
    let rows = |j: usize| if upper { (0, j) } else { (j + 1, n) };
    let col = |j: usize, lo: usize, hi: usize| &a[lo + j * lda..hi + j * lda];
    t.iter_mut().for_each(|v| *v = T::zero());
    for j in j0..j1 {
        let (lo, hi) = rows(j);
        let c = col(j, lo, hi);
        let xj = x[j];
        match kind {
            Kind::Symv | Kind::Hemv => {
                let herm = kind == Kind::Hemv;
                axpy(&mut t[lo - base..hi - base], c, xj);
                let d = a[j + j * lda];
                let d = if herm { T::from_real(d.re()) } else { d };
                t[j - base] = t[j - base] + d * xj + dot(c, &x[lo..hi], herm);
            }
            _ => {
                let d = if unit { T::one() } else { a[j + j * lda] };
                if op == Op::N {
                    axpy(&mut t[lo - base..hi - base], c, xj);
                    t[j - base] = t[j - base] + d * xj;
                } else {
                    let conj = op == Op::C;
                    let d = if conj { d.conj() } else { d };
                    t[j - base] = dot(c, &x[lo..hi], conj) + d * xj;
                }
            }
        }
    }
}

/// `t = A x` for a full-storage symv/hemv or `t = op(A) x` for trmv. The columns split into
/// blocks fixed by the shape, run over the threads; each block sums into its own partial of the
/// rows it touches, and the partials are added in block order, so the bits never depend on the
/// threads. trmv op T/C has no axpys: each block's entries are its own columns' dots, copied.
#[allow(clippy::too_many_arguments)]
fn full_product<T: Scalar>(
    par: &crate::common::host::Par,
    kind: Kind,
    op: Op,
    uplo: Uplo,
    unit: bool,
    n: usize,
    a: &[T],
    lda: usize,
    x: &[T],
    t: &mut [T],
) {
    let arch = pulp::Arch::new();
    let blocks = (n / PROD_COLS).clamp(1, PROD_MAX_BLOCKS);
    let dots_only = kind == Kind::Trmv && op != Op::N;
    let upper = uplo == Uplo::Upper;
    let parts = par.map(blocks, |k| {
        let (j0, j1) = (k * n / blocks, (k + 1) * n / blocks);
        let (base, len) = if dots_only {
            (j0, j1 - j0)
        } else if upper {
            (0, j1)
        } else {
            (j0, n - j0)
        };
        let mut p = vec![T::zero(); len];
        arch.dispatch(ProdBlock {
            kind,
            op,
            uplo,
            unit,
            n,
            a,
            lda,
            x,
            j0,
            j1,
            base,
            t: &mut p,
        });
        (base, p)
    });
    if dots_only {
        for (base, p) in parts {
            t[base..base + p.len()].copy_from_slice(&p);
        }
        return;
    }
    t.iter_mut().for_each(|v| *v = T::zero());
    for (base, p) in parts {
        for (ti, v) in t[base..base + p.len()].iter_mut().zip(&p) {
            *ti = *ti + *v;
        }
    }
}

/// `sum conj?(c) · v` with eight independent accumulators.
#[inline(always)]
fn dot<T: Scalar>(c: &[T], v: &[T], conj: bool) -> T {
    let mut acc = [T::zero(); LANES];
    let mut cc = c.chunks_exact(LANES);
    let mut vc = v.chunks_exact(LANES);
    for (ca, va) in (&mut cc).zip(&mut vc) {
        for k in 0..LANES {
            let e = if conj { ca[k].conj() } else { ca[k] };
            acc[k] = acc[k] + e * va[k];
        }
    }
    for (e, w) in cc.remainder().iter().zip(vc.remainder()) {
        let e = if conj { e.conj() } else { *e };
        acc[0] = acc[0] + e * *w;
    }
    acc.iter().fold(T::zero(), |s, v| s + *v)
}

/// `y += c · s`.
#[inline(always)]
fn axpy<T: Scalar>(y: &mut [T], c: &[T], s: T) {
    for (yi, &ci) in y.iter_mut().zip(c) {
        *yi = *yi + ci * s;
    }
}

/// Four axpys in one pass over `y`: a quarter of its loads and stores and four column streams
/// in flight. Each element still adds the columns one at a time in order, so the bits are
/// those of four [`axpy`] calls in turn.
#[inline(always)]
fn axpy4<T: Scalar>(y: &mut [T], c: [&[T]; 4], s: [T; 4]) {
    for ((((yi, &a0), &a1), &a2), &a3) in y.iter_mut().zip(c[0]).zip(c[1]).zip(c[2]).zip(c[3]) {
        *yi = *yi + a0 * s[0] + a1 * s[1] + a2 * s[2] + a3 * s[3];
    }
}

/// Whether the applied triangular operator is lower triangular.
fn applied_lower(c: Mat) -> bool {
    (c.uplo == Uplo::Lower) == (c.op == Op::N)
}

pub(super) fn run<T: Scalar>(
    h: &Handle,
    ws: &Blas2Workspace<Option<WorkspaceSlice>>,
    c: &mut Call<'_, '_, T>,
    plan: &Plan,
) -> Result<(), Error> {
    let (lx, ly) = c.lens();
    let batch = c.a.count();
    let par = h.host_par.clone();
    let part = ws
        .partials
        .map(|s| (s.device_ptr(), s.len()))
        .unwrap_or((0, 0));
    let c_ = Mat {
        kind: c.kind,
        op: c.op,
        uplo: c.uplo,
        diag: c.diag,
        n: c.n,
        storage: c.storage,
    };
    let g = Shared {
        mat: c_,
        kind: c.kind,
        op: c.op,
        uplo: c.uplo,
        diag: c.diag,
        m: c.m,
        n: c.n,
        storage: c.storage,
        inc_out: c.inc_out,
        x: c.x.as_ref(),
        alpha: &c.alpha,
        beta: &c.beta,
        algo: plan.algo,
        lx,
        ly,
        part,
    };
    // Batches of small full-storage matrices spread their entries over the threads (each
    // entry on one thread, computed as alone: the same bits); the rest runs entry by entry
    // with each entry's own parallelism (trmv's workspace result is one entry's).
    let small = c.m.max(1).saturating_mul(c.n) <= SPREAD_MAX;
    let full = matches!(c.storage, Storage::Full { .. });
    let spread = batch > 1 && small && full && par.threads() > 1;
    let outs = if spread {
        c.out.host_entries_mut().filter(|o| o.len() == batch)
    } else {
        None
    };
    if let Some(outs) = outs {
        let single = crate::common::host::Par::single();
        let a_b = &c.a;
        let items: Vec<_> = outs.into_iter().enumerate().collect();
        let done = par.map_items(items, |(e, out)| {
            let a = a_b.host_entry(e).ok_or_else(not_host)?;
            let mut t = vec![T::zero(); ly];
            entry(&g, &single, e, a, out, &mut t)
        });
        return done.into_iter().collect();
    }
    let mut t = vec![T::zero(); ly];
    for e in 0..batch {
        let a = c.a.host_entry(e).ok_or_else(not_host)?;
        let out = c.out.host_entry_mut(e).ok_or_else(not_host)?;
        entry(&g, &par, e, a, out, &mut t)?;
    }
    Ok(())
}

/// Matrices of at most this many elements spread a batch over the threads (one piece of gemv
/// each: `gemv_full` would run them on one thread anyway).
const SPREAD_MAX: usize = 1 << 16;

/// What every entry of a call shares (the call itself holds the outputs).
struct Shared<'g, 'a, T> {
    mat: Mat,
    kind: Kind,
    op: Op,
    uplo: Uplo,
    diag: Diag,
    m: usize,
    n: usize,
    storage: Storage,
    inc_out: isize,
    x: Option<&'g (crate::common::operand::Batch<'a, T>, isize)>,
    alpha: &'g crate::Coef<'a, T>,
    beta: &'g crate::Coef<'a, T>,
    algo: Algo,
    lx: usize,
    ly: usize,
    /// The workspace (trmv's result for the non-full storages).
    part: (u64, usize),
}

/// Entry `e`: `a` its matrix, `out` its output vector (y, or x updated in place), `t` a
/// scratch vector of the output's length.
fn entry<T: Scalar>(
    g: &Shared<'_, '_, T>,
    par: &crate::common::host::Par,
    e: usize,
    a: &[T],
    out: &mut [T],
    t: &mut [T],
) -> Result<(), Error> {
    match g.kind {
        Kind::Gemv | Kind::Symv | Kind::Hemv => {
            let alpha = coef_value(g.alpha, e)?;
            let beta = coef_value(g.beta, e)?;
            let (xb, incx) = g.x.ok_or_else(not_host)?;
            let x = xb.host_entry(e).ok_or_else(not_host)?;
            let product = alpha != T::zero();
            if let (true, Kind::Gemv, Storage::Full { lda }) = (product, g.kind, g.storage) {
                let xv: Vec<T> = (0..g.lx).map(|j| x[at(g.lx, *incx, j)]).collect();
                gemv_full(par, g.op, g.m, g.n, a, lda, &xv, t);
            } else if let (true, Storage::Full { lda }) = (product, g.storage) {
                let xv: Vec<T> = (0..g.lx).map(|j| x[at(g.lx, *incx, j)]).collect();
                full_product(par, g.kind, g.op, g.uplo, false, g.n, a, lda, &xv, t);
            } else if product {
                for (i, ti) in t.iter_mut().enumerate() {
                    let mut s = T::zero();
                    for j in row_range(g.mat, i, g.lx) {
                        s = s + oper(g.mat, a, i, j) * x[at(g.lx, *incx, j)];
                    }
                    *ti = s;
                }
            }
            let inc = g.inc_out;
            let y = &mut *out;
            for (i, ti) in t.iter().enumerate() {
                let yi = &mut y[at(g.ly, inc, i)];
                let kept = if beta == T::zero() {
                    T::zero()
                } else {
                    beta * *yi
                };
                *yi = if product { alpha * *ti + kept } else { kept };
            }
        }
        Kind::Trmv => {
            let inc = g.inc_out;
            let n = g.n;
            let lower = applied_lower(g.mat);
            let x = &mut *out;
            if let Storage::Full { lda } = g.storage {
                let xv: Vec<T> = (0..n).map(|j| x[at(n, inc, j)]).collect();
                let mut r = vec![T::zero(); n];
                let unit = g.diag == Diag::Unit;
                full_product(par, Kind::Trmv, g.op, g.uplo, unit, n, a, lda, &xv, &mut r);
                for (i, v) in r.iter().enumerate() {
                    x[at(n, inc, i)] = *v;
                }
            } else if g.algo == Algo::InPlace {
                // Each output is written only after every output that still needs its old value.
                let order: Box<dyn Iterator<Item = usize>> = if lower {
                    Box::new((0..n).rev())
                } else {
                    Box::new(0..n)
                };
                for i in order {
                    let mut s = T::zero();
                    for j in row_range(g.mat, i, n) {
                        s = s + oper(g.mat, a, i, j) * x[at(n, inc, j)];
                    }
                    x[at(n, inc, i)] = s;
                }
            } else {
                // The result array, built in the workspace before it overwrites x.
                let bytes = host_workspace_bytes(g.part.0, g.part.1);
                let res: &mut [T] =
                    bytemuck::cast_slice_mut(&mut bytes[..n * std::mem::size_of::<T>()]);
                for (i, r) in res.iter_mut().enumerate() {
                    let mut s = T::zero();
                    for j in row_range(g.mat, i, n) {
                        s = s + oper(g.mat, a, i, j) * x[at(n, inc, j)];
                    }
                    *r = s;
                }
                for (i, r) in res.iter().enumerate() {
                    x[at(n, inc, i)] = *r;
                }
            }
        }
        Kind::Trsv => {
            let inc = g.inc_out;
            let n = g.n;
            let lower = applied_lower(g.mat);
            let unit = g.diag == Diag::Unit;
            let x = &mut *out;
            if let Storage::Full { lda } = g.storage {
                let mut xv: Vec<T> = (0..n).map(|j| x[at(n, inc, j)]).collect();
                trsv_full(par, g.op, g.uplo, unit, n, a, lda, &mut xv);
                for (i, v) in xv.iter().enumerate() {
                    x[at(n, inc, i)] = *v;
                }
                return Ok(());
            }
            let order: Box<dyn Iterator<Item = usize>> = if lower {
                Box::new(0..n)
            } else {
                Box::new((0..n).rev())
            };
            for i in order {
                let mut s = x[at(n, inc, i)];
                let (lo, hi) = if lower { (0, i) } else { (i + 1, n) };
                let band = row_range(g.mat, i, n);
                for j in lo.max(band.start)..hi.min(band.end) {
                    s = s - oper(g.mat, a, i, j) * x[at(n, inc, j)];
                }
                x[at(n, inc, i)] = if unit {
                    s
                } else {
                    s.safe_div(oper(g.mat, a, i, i))
                };
            }
        }
    }
    Ok(())
}
