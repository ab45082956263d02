//! The host backend of the rank updates: reference BLAS's column loops. Every element is
//! updated on its own from the same operands in the same order, so the result does not depend
//! on how columns are spread over threads.

use super::update::{Alpha, UpdCall, UpdKind};
use crate::common::host::{at, coef_value, not_host, Par};
use crate::{Error, Handle, Scalar, Uplo};

/// Elements of a piece of work given to one thread.
const PIECE: usize = 1 << 16;

/// The column coefficients of one entry and how its columns are updated.
struct Entry<'v, T> {
    kind: UpdKind,
    conj: bool,
    herm: bool,
    alpha: T,
    /// x (and y) gathered to unit stride.
    x: &'v [T],
    y: &'v [T],
}

impl<T: Scalar> Entry<'_, T> {
    fn cj(&self, v: T) -> T {
        if self.conj {
            v.conj()
        } else {
            v
        }
    }

    /// Column `j`'s coefficients (t1, t2) as reference BLAS forms them, or `None` where it
    /// skips the column (a zero `y(j)` for ger, `x(j)` for syr, both for syr2).
    fn coefs(&self, j: usize) -> Option<(T, T)> {
        let z = T::zero();
        match self.kind {
            UpdKind::Ger => (self.y[j] != z).then(|| (self.alpha * self.cj(self.y[j]), z)),
            UpdKind::Syr => (self.x[j] != z).then(|| (self.alpha * self.cj(self.x[j]), z)),
            UpdKind::Syr2 => (self.x[j] != z || self.y[j] != z).then(|| {
                (
                    self.alpha * self.cj(self.y[j]),
                    self.cj(self.alpha * self.x[j]),
                )
            }),
        }
    }

    /// Rows `lo..lo + seg.len()` of column `j`.
    fn column(&self, j: usize, lo: usize, seg: &mut [T]) {
        let coefs = self.coefs(j);
        let rows = lo..lo + seg.len();
        match coefs {
            Some((t1, t2)) => {
                let diag = (self.herm && rows.contains(&j)).then(|| seg[j - lo]);
                let x = &self.x[rows.clone()];
                if self.kind == UpdKind::Syr2 {
                    let y = &self.y[rows.clone()];
                    for ((a, &xi), &yi) in seg.iter_mut().zip(x).zip(y) {
                        *a = *a + xi * t1 + yi * t2;
                    }
                } else {
                    for (a, &xi) in seg.iter_mut().zip(x) {
                        *a = *a + xi * t1;
                    }
                }
                if let Some(orig) = diag {
                    // zher: A(J,J) = DBLE(A(J,J)) + DBLE(X(J)*TEMP1 [+ Y(J)*TEMP2]).
                    let mut d = self.x[j] * t1;
                    if self.kind == UpdKind::Syr2 {
                        d = d + self.y[j] * t2;
                    }
                    seg[j - lo] = T::from_real(orig.re() + d.re());
                }
            }
            None => {
                if self.herm && rows.contains(&j) {
                    let a = &mut seg[j - lo];
                    *a = T::from_real(a.re());
                }
            }
        }
    }
}

/// Runs every entry of the call.
pub(super) fn run<T: Scalar>(h: &Handle, c: &mut UpdCall<'_, '_, T>) -> Result<(), Error> {
    let par = h.host_par.clone();
    let (rows, n) = (c.rows(), c.n);
    let batch = c.a.count();
    for e in 0..batch {
        let alpha = match &c.alpha {
            Alpha::Full(a) => coef_value(a, e)?,
            Alpha::Real(a) => T::from_real(coef_value(a, e)?),
        };
        // A device alpha of zero: reference BLAS's quick return, nothing read or written.
        if alpha == T::zero() {
            continue;
        }
        let xs = c.x.host_entry(e).ok_or_else(not_host)?;
        let x: Vec<T> = (0..rows).map(|i| xs[at(rows, c.incx, i)]).collect();
        let y: Vec<T> = match &c.y {
            Some(yb) => {
                let ys = yb.host_entry(e).ok_or_else(not_host)?;
                (0..n).map(|i| ys[at(n, c.incy, i)]).collect()
            }
            None => Vec::new(),
        };
        let ent = Entry {
            kind: c.kind,
            conj: c.conj,
            herm: c.herm,
            alpha,
            x: &x,
            y: &y,
        };
        let a = c.a.host_entry_mut(e).ok_or_else(not_host)?;
        let cols = columns(a, rows, n, c.lda, c.packed, c.kind == UpdKind::Ger, c.uplo);
        run_columns(&par, &ent, cols);
    }
    Ok(())
}

/// Each column's stored rows: (column, first row, its elements), in order, disjoint.
fn columns<T>(
    mut a: &mut [T],
    rows: usize,
    n: usize,
    lda: usize,
    packed: bool,
    general: bool,
    uplo: Uplo,
) -> Vec<(usize, usize, &mut [T])> {
    let mut out = Vec::with_capacity(n);
    // Offset of `a`'s first element in the entry.
    let mut base = 0;
    for j in 0..n {
        let (lo, hi) = match (general, uplo) {
            (true, _) => (0, rows),
            (false, Uplo::Upper) => (0, j + 1),
            (false, Uplo::Lower) => (j, rows),
        };
        // Where element (lo, j) is stored.
        let start = match (packed, uplo) {
            (false, _) => j * lda + lo,
            (true, Uplo::Upper) => j * (j + 1) / 2,
            (true, Uplo::Lower) => j * (2 * n - j - 1) / 2 + j,
        };
        let rest = std::mem::take(&mut a);
        let (_, tail) = rest.split_at_mut(start - base);
        let (seg, tail) = tail.split_at_mut(hi - lo);
        out.push((j, lo, seg));
        a = tail;
        base = start + (hi - lo);
    }
    out
}

/// Updates the columns, spread over the threads in pieces of about [`PIECE`] elements.
fn run_columns<T: Scalar>(par: &Par, ent: &Entry<'_, T>, cols: Vec<(usize, usize, &mut [T])>) {
    let mut pieces: Vec<Vec<(usize, usize, &mut [T])>> = Vec::new();
    let mut size = PIECE;
    for col in cols {
        if size >= PIECE {
            pieces.push(Vec::new());
            size = 0;
        }
        size += col.2.len().max(1);
        if let Some(p) = pieces.last_mut() {
            p.push(col);
        }
    }
    par.map_items(pieces, |piece| {
        for (j, lo, seg) in piece {
            ent.column(j, lo, seg);
        }
    });
}
