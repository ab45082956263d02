//! Dense f64 matrices for the references of the least-squares and potri tests: complex values
//! as `(re, im)` pairs, column-major, plain loops (independent of gpublas). Shared by
//! `least_squares.rs` and `potri.rs` (each includes this file as a module of its own).
#![allow(dead_code)]

use crate::common::complex::*;
use crate::common::elem::{round_to, El};
use gpublas::Op;

/// A logical matrix, column-major, in f64.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Dense {
    pub(crate) r: usize,
    pub(crate) c: usize,
    pub(crate) v: Vec<C>,
}

impl Dense {
    pub(crate) fn zeros(r: usize, c: usize) -> Dense {
        Dense {
            r,
            c,
            v: vec![ZERO; r * c],
        }
    }
    /// The `r × c` part of the identity.
    pub(crate) fn identity(r: usize, c: usize) -> Dense {
        let mut d = Dense::zeros(r, c);
        for j in 0..r.min(c) {
            d.set(j, j, ONE);
        }
        d
    }
    pub(crate) fn at(&self, i: usize, j: usize) -> C {
        self.v[i + j * self.r]
    }
    pub(crate) fn set(&mut self, i: usize, j: usize, x: C) {
        self.v[i + j * self.r] = x;
    }
    pub(crate) fn col(&self, j: usize) -> &[C] {
        &self.v[j * self.r..(j + 1) * self.r]
    }
    /// Column `j` as an `r × 1` matrix.
    pub(crate) fn column(&self, j: usize) -> Dense {
        Dense {
            r: self.r,
            c: 1,
            v: self.col(j).to_vec(),
        }
    }
    /// Rows `r0..r1` and columns `c0..c1`.
    pub(crate) fn sub(&self, r0: usize, r1: usize, c0: usize, c1: usize) -> Dense {
        let mut d = Dense::zeros(r1 - r0, c1 - c0);
        for j in c0..c1 {
            for i in r0..r1 {
                d.set(i - r0, j - c0, self.at(i, j));
            }
        }
        d
    }
    /// `self`, its transpose (`T`) or its conjugate transpose (`C`).
    pub(crate) fn op(&self, op: Op) -> Dense {
        if op == Op::N {
            return self.clone();
        }
        let mut d = Dense::zeros(self.c, self.r);
        for j in 0..self.c {
            for i in 0..self.r {
                let x = self.at(i, j);
                d.set(j, i, if op == Op::C { conj(x) } else { x });
            }
        }
        d
    }
    /// Max column sum of `|re| + |im|`.
    pub(crate) fn norm1(&self) -> f64 {
        (0..self.c)
            .map(|j| self.col(j).iter().map(|&x| mag(x)).sum::<f64>())
            .fold(0.0, f64::max)
    }
    /// Max row sum of `|re| + |im|`.
    pub(crate) fn norm_inf(&self) -> f64 {
        let mut rows = vec![0.0f64; self.r];
        for j in 0..self.c {
            for (i, x) in self.col(j).iter().enumerate() {
                rows[i] += mag(*x);
            }
        }
        rows.into_iter().fold(0.0, f64::max)
    }
    /// The Euclidean norm of column `j`.
    pub(crate) fn col_norm2(&self, j: usize) -> f64 {
        self.col(j)
            .iter()
            .map(|x| x.0 * x.0 + x.1 * x.1)
            .sum::<f64>()
            .sqrt()
    }
    /// The Euclidean norm of row `i`.
    pub(crate) fn row_norm2(&self, i: usize) -> f64 {
        (0..self.c)
            .map(|j| {
                let x = self.at(i, j);
                x.0 * x.0 + x.1 * x.1
            })
            .sum::<f64>()
            .sqrt()
    }
    pub(crate) fn all_finite(&self) -> bool {
        self.v.iter().all(|&x| finite(x))
    }
    /// Every value rounded to the element type.
    pub(crate) fn rounded<E: El>(mut self) -> Dense {
        self.v.iter_mut().for_each(|x| *x = round_to::<E>(*x));
        self
    }
    /// `self − b`.
    pub(crate) fn minus(&self, b: &Dense) -> Dense {
        assert_eq!((self.r, self.c), (b.r, b.c));
        Dense {
            r: self.r,
            c: self.c,
            v: self.v.iter().zip(&b.v).map(|(&x, &y)| csub(x, y)).collect(),
        }
    }
}

/// `a b` in plain loops (a column of the result at a time, as axpys).
pub(crate) fn mul(a: &Dense, b: &Dense) -> Dense {
    assert_eq!(a.c, b.r, "mul: {}x{} times {}x{}", a.r, a.c, b.r, b.c);
    let mut p = Dense::zeros(a.r, b.c);
    for j in 0..b.c {
        let out = &mut p.v[j * a.r..(j + 1) * a.r];
        for l in 0..a.c {
            let x = b.v[l + j * b.r];
            if x == ZERO {
                continue;
            }
            for (o, &y) in out.iter_mut().zip(a.col(l)) {
                o.0 += y.0 * x.0 - y.1 * x.1;
                o.1 += y.0 * x.1 + y.1 * x.0;
            }
        }
    }
    p
}

/// `Σ conj(x_i) y_i`.
pub(crate) fn dotc(x: &[C], y: &[C]) -> C {
    let mut s = ZERO;
    for (a, b) in x.iter().zip(y) {
        s.0 += a.0 * b.0 + a.1 * b.1;
        s.1 += a.0 * b.1 - a.1 * b.0;
    }
    s
}

/// `num / den`, 0 when `num` is 0 (an exact answer needs no scale).
pub(crate) fn ratio(num: f64, den: f64) -> f64 {
    if num == 0.0 {
        0.0
    } else if num.is_nan() {
        f64::INFINITY
    } else {
        num / den.max(f64::MIN_POSITIVE)
    }
}

/// The bound on every scaled residual.
pub(crate) const RESID_MAX: f64 = 30.0;

/// The Cholesky factor `L` (`G = L Lᴴ`) of a Hermitian positive definite `g` in f64; `None`
/// if a pivot is not positive.
pub(crate) fn cholesky(g: &Dense) -> Option<Dense> {
    let n = g.r;
    let mut l = Dense::zeros(n, n);
    for j in 0..n {
        let mut d = g.at(j, j).0;
        for p in 0..j {
            let x = l.at(j, p);
            d -= x.0 * x.0 + x.1 * x.1;
        }
        if d.is_nan() || d <= 0.0 {
            return None;
        }
        let d = d.sqrt();
        l.set(j, j, (d, 0.0));
        for i in j + 1..n {
            let mut s = g.at(i, j);
            for p in 0..j {
                // s -= L(i, p) conj(L(j, p))
                s = csub(s, cmul(l.at(i, p), conj(l.at(j, p))));
            }
            l.set(i, j, (s.0 / d, s.1 / d));
        }
    }
    Some(l)
}

/// `G⁻¹ b` for a Hermitian positive definite `g` (f64 Cholesky, two substitutions).
pub(crate) fn chol_solve(g: &Dense, b: &Dense) -> Dense {
    let n = g.r;
    let l = cholesky(g).expect("chol_solve: the Gram matrix is not positive definite");
    let mut x = b.clone();
    for c in 0..b.c {
        // L y = b
        for i in 0..n {
            let mut s = x.at(i, c);
            for p in 0..i {
                s = csub(s, cmul(l.at(i, p), x.at(p, c)));
            }
            x.set(i, c, cdiv(s, l.at(i, i)));
        }
        // Lᴴ x = y
        for i in (0..n).rev() {
            let mut s = x.at(i, c);
            for p in i + 1..n {
                s = csub(s, cmul(conj(l.at(p, i)), x.at(p, c)));
            }
            x.set(i, c, cdiv(s, l.at(i, i)));
        }
    }
    x
}
