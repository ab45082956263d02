//! The host backend of Level 2: plain loops over the stored elements. It leases the same plan
//! as the GPU (so queries, fixed workspaces and `PerfDegraded` behave the same) and builds
//! trmv's result in the workspace before it overwrites `x`, as the GPU does.

use super::plan::{Algo, Plan};
use super::{Call, Kind, Storage};
use crate::common::host::{at, coef_value, not_host};
use crate::device::host_workspace_bytes;
use crate::{Diag, Error, Op, Scalar, Uplo, WorkspaceLease};

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
        Storage::Band { k, lda } => {
            if i.abs_diff(j) > k {
                return T::zero();
            }
            match c.uplo {
                Uplo::Upper => a[k + i - j + j * lda],
                Uplo::Lower => a[i - j + j * lda],
            }
        }
        Storage::Packed => match c.uplo {
            Uplo::Upper => a[i + j * (j + 1) / 2],
            Uplo::Lower => a[i + j * (2 * n - j - 1) / 2],
        },
    }
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

/// Rows per piece of a non-transposed product: a piece of the result stays in the L1 cache
/// while the columns stream past it.
const ROWS_PER_PIECE: usize = 512;
/// Columns per piece of a transposed product.
const COLS_PER_PIECE: usize = 16;
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
    if op == Op::N {
        par.chunks_mut(t, ROWS_PER_PIECE, |p, tp| {
            let r0 = p * ROWS_PER_PIECE;
            tp.iter_mut().for_each(|v| *v = T::zero());
            for (j, &xj) in x.iter().enumerate().take(n) {
                let col = &a[r0 + j * lda..r0 + j * lda + tp.len()];
                for (ti, &aij) in tp.iter_mut().zip(col) {
                    *ti = *ti + aij * xj;
                }
            }
        });
        return;
    }
    let conj = op == Op::C;
    par.chunks_mut(t, COLS_PER_PIECE, |p, tp| {
        for (q, tj) in tp.iter_mut().enumerate() {
            let j = p * COLS_PER_PIECE + q;
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
    });
}

/// Whether the applied triangular operator is lower triangular.
fn applied_lower(c: Mat) -> bool {
    (c.uplo == Uplo::Lower) == (c.op == Op::N)
}

pub(super) fn run<T: Scalar>(
    lease: &WorkspaceLease<'_>,
    c: &mut Call<'_, '_, T>,
    plan: &Plan,
) -> Result<(), Error> {
    let (lx, ly) = c.lens();
    let batch = c.a.count();
    let par = lease.handle().host_par.clone();
    let part = lease
        .buffer(0)
        .map(|s| (s.device_ptr(), s.len()))
        .unwrap_or((0, 0));
    let mut t = vec![T::zero(); ly];
    let c_ = Mat {
        kind: c.kind,
        op: c.op,
        uplo: c.uplo,
        diag: c.diag,
        n: c.n,
        storage: c.storage,
    };
    for e in 0..batch {
        let a = c.a.host_entry(e).ok_or_else(not_host)?;
        match c.kind {
            Kind::Gemv | Kind::Symv | Kind::Hemv => {
                let alpha = coef_value(&c.alpha, e)?;
                let beta = coef_value(&c.beta, e)?;
                let (xb, incx) = c.x.as_ref().ok_or_else(not_host)?;
                let x = xb.host_entry(e).ok_or_else(not_host)?;
                let product = alpha != T::zero();
                if let (true, Kind::Gemv, Storage::Full { lda }) = (product, c.kind, c.storage) {
                    let xv: Vec<T> = (0..lx).map(|j| x[at(lx, *incx, j)]).collect();
                    gemv_full(&par, c.op, c.m, c.n, a, lda, &xv, &mut t);
                } else if product {
                    for (i, ti) in t.iter_mut().enumerate() {
                        let mut s = T::zero();
                        for j in 0..lx {
                            s = s + oper(c_, a, i, j) * x[at(lx, *incx, j)];
                        }
                        *ti = s;
                    }
                }
                let inc = c.inc_out;
                let y = c.out.host_entry_mut(e).ok_or_else(not_host)?;
                for (i, ti) in t.iter().enumerate() {
                    let yi = &mut y[at(ly, inc, i)];
                    let kept = if beta == T::zero() {
                        T::zero()
                    } else {
                        beta * *yi
                    };
                    *yi = if product { alpha * *ti + kept } else { kept };
                }
            }
            Kind::Trmv => {
                let inc = c.inc_out;
                let n = c.n;
                let lower = applied_lower(c_);
                let x = c.out.host_entry_mut(e).ok_or_else(not_host)?;
                if plan.algo == Algo::InPlace {
                    // Each output is written only after every output that still needs its old value.
                    let order: Box<dyn Iterator<Item = usize>> = if lower {
                        Box::new((0..n).rev())
                    } else {
                        Box::new(0..n)
                    };
                    for i in order {
                        let mut s = T::zero();
                        for j in 0..n {
                            s = s + oper(c_, a, i, j) * x[at(n, inc, j)];
                        }
                        x[at(n, inc, i)] = s;
                    }
                } else {
                    // The result array, built in the workspace before it overwrites x.
                    let bytes = host_workspace_bytes(part.0, part.1);
                    let res: &mut [T] =
                        bytemuck::cast_slice_mut(&mut bytes[..n * std::mem::size_of::<T>()]);
                    for (i, r) in res.iter_mut().enumerate() {
                        let mut s = T::zero();
                        for j in 0..n {
                            s = s + oper(c_, a, i, j) * x[at(n, inc, j)];
                        }
                        *r = s;
                    }
                    for (i, r) in res.iter().enumerate() {
                        x[at(n, inc, i)] = *r;
                    }
                }
            }
            Kind::Trsv => {
                let inc = c.inc_out;
                let n = c.n;
                let lower = applied_lower(c_);
                let unit = c.diag == Diag::Unit;
                let x = c.out.host_entry_mut(e).ok_or_else(not_host)?;
                let order: Box<dyn Iterator<Item = usize>> = if lower {
                    Box::new(0..n)
                } else {
                    Box::new((0..n).rev())
                };
                for i in order {
                    let mut s = x[at(n, inc, i)];
                    let (lo, hi) = if lower { (0, i) } else { (i + 1, n) };
                    for j in lo..hi {
                        s = s - oper(c_, a, i, j) * x[at(n, inc, j)];
                    }
                    x[at(n, inc, i)] = if unit { s } else { s / oper(c_, a, i, i) };
                }
            }
        }
    }
    Ok(())
}
