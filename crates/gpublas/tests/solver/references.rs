//! Dense f64 matrices and the independent references: LU and Cholesky by plain loops, the
//! products of their factors and the scaled residuals every check compares with `RESID_MAX`.

use super::*;

/// A logical matrix, column-major, in f64.
#[derive(Clone, Debug)]
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
    pub(crate) fn at(&self, i: usize, j: usize) -> C {
        self.v[i + j * self.r]
    }
    pub(crate) fn set(&mut self, i: usize, j: usize, x: C) {
        self.v[i + j * self.r] = x;
    }
    /// `self`, its transpose or its conjugate transpose.
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
    /// Max column sum of magnitudes.
    pub(crate) fn norm1(&self) -> f64 {
        (0..self.c)
            .map(|j| {
                self.v[j * self.r..(j + 1) * self.r]
                    .iter()
                    .map(|&x| mag(x))
                    .sum::<f64>()
            })
            .fold(0.0, f64::max)
    }
    pub(crate) fn all_finite(&self) -> bool {
        self.v.iter().all(|&x| finite(x))
    }
    pub(crate) fn swap_rows(&mut self, a: usize, b: usize) {
        if a == b {
            return;
        }
        for j in 0..self.c {
            self.v.swap(a + j * self.r, b + j * self.r);
        }
    }
    /// Every value rounded to the element type.
    pub(crate) fn rounded<E: El>(mut self) -> Dense {
        self.v.iter_mut().for_each(|x| *x = round_to::<E>(*x));
        self
    }
}

/// `L U` from the combined factors `f` (`m × n`: `L` unit lower trapezoidal below the diagonal,
/// `U` upper trapezoidal on and above it).
pub(crate) fn lu_product(f: &Dense) -> Dense {
    let (m, n) = (f.r, f.c);
    let k = m.min(n);
    let mut p = Dense::zeros(m, n);
    for j in 0..n {
        let out = &mut p.v[j * m..(j + 1) * m];
        for l in 0..k.min(j + 1) {
            let u = f.v[l + j * m];
            if u == ZERO {
                continue;
            }
            out[l] = cadd(out[l], u);
            let lc = &f.v[l * m..(l + 1) * m];
            for i in l + 1..m {
                let x = lc[i];
                out[i].0 += x.0 * u.0 - x.1 * u.1;
                out[i].1 += x.0 * u.1 + x.1 * u.0;
            }
        }
    }
    p
}

/// LU in f64 the way LAPACK's `getf2` does it: at step `j` the pivot is the first row of
/// largest `|re| + |im|` in column `j` (with `pivot`; else row `j`), a zero pivot sets `info`
/// (the first one, 1-based) and skips the scaling. Returns the combined factors, the 0-based
/// pivot rows and `info`.
pub(crate) fn ref_lu(a: &Dense, pivot: bool) -> (Dense, Vec<usize>, usize) {
    let (m, n) = (a.r, a.c);
    let k = m.min(n);
    let mut f = a.clone();
    let mut piv = Vec::with_capacity(k);
    let mut info = 0;
    for j in 0..k {
        let mut p = j;
        if pivot {
            let col = &f.v[j * m..(j + 1) * m];
            let mut best = mag(col[j]);
            for i in j + 1..m {
                let v = mag(col[i]);
                if v > best {
                    best = v;
                    p = i;
                }
            }
            f.swap_rows(j, p);
        }
        piv.push(p);
        let d = f.v[j + j * m];
        if d == ZERO {
            if info == 0 {
                info = j + 1;
            }
        } else {
            let inv = cdiv(ONE, d);
            for i in j + 1..m {
                f.v[i + j * m] = cmul(f.v[i + j * m], inv);
            }
        }
        let (left, right) = f.v.split_at_mut((j + 1) * m);
        let lcol = &left[j * m..];
        for c in 0..n - j - 1 {
            let col = &mut right[c * m..(c + 1) * m];
            let u = col[j];
            if u == ZERO {
                continue;
            }
            for i in j + 1..m {
                let x = lcol[i];
                col[i].0 -= x.0 * u.0 - x.1 * u.1;
                col[i].1 -= x.0 * u.1 + x.1 * u.0;
            }
        }
    }
    (f, piv, info)
}

/// Cholesky in f64 from the lower triangle of the Hermitian `a`: (`L`, `info`), `info` the
/// order of the first leading minor that is not positive definite (then `L` is partial).
pub(crate) fn ref_chol(a: &Dense) -> (Dense, usize) {
    let n = a.r;
    let mut w = Dense::zeros(n, n);
    for j in 0..n {
        for i in j..n {
            w.set(i, j, a.at(i, j));
        }
    }
    for j in 0..n {
        let d = w.at(j, j).0;
        if d.is_nan() || d <= 0.0 {
            return (w, j + 1);
        }
        let s = d.sqrt();
        w.set(j, j, (s, 0.0));
        for i in j + 1..n {
            let x = w.at(i, j);
            w.set(i, j, (x.0 / s, x.1 / s));
        }
        let (left, right) = w.v.split_at_mut((j + 1) * n);
        let lcol = &left[j * n..];
        for c in 0..n - j - 1 {
            let col = &mut right[c * n..(c + 1) * n];
            let cc = j + 1 + c;
            let x = conj(lcol[cc]);
            for i in cc..n {
                let y = lcol[i];
                col[i].0 -= y.0 * x.0 - y.1 * x.1;
                col[i].1 -= y.0 * x.1 + y.1 * x.0;
            }
        }
    }
    (w, 0)
}

/// `L Lᴴ` (Hermitian) of a lower triangular `l`.
pub(crate) fn chol_product(l: &Dense) -> Dense {
    let n = l.r;
    let mut p = Dense::zeros(n, n);
    for j in 0..n {
        let out = &mut p.v[j * n..(j + 1) * n];
        for q in 0..=j {
            let x = conj(l.v[j + q * n]);
            if x == ZERO {
                continue;
            }
            let lc = &l.v[q * n..(q + 1) * n];
            for i in j..n {
                let y = lc[i];
                out[i].0 += y.0 * x.0 - y.1 * x.1;
                out[i].1 += y.0 * x.1 + y.1 * x.0;
            }
        }
    }
    for j in 0..n {
        for i in 0..j {
            let x = conj(p.at(j, i));
            p.set(i, j, x);
        }
    }
    p
}

/// `‖P A − L U‖₁ / (max(m, n) ‖A‖₁ ε)` with `P` from 0-based pivot rows applied as sequential
/// interchanges (`None`: no pivoting); infinite if the factors hold a non-finite value.
pub(crate) fn lu_residual(a: &Dense, f: &Dense, piv: Option<&[usize]>, eps: f64) -> f64 {
    if !f.all_finite() {
        return f64::INFINITY;
    }
    let mut pa = a.clone();
    if let Some(p) = piv {
        for (j, &r) in p.iter().enumerate() {
            pa.swap_rows(j, r);
        }
    }
    let prod = lu_product(f);
    for (x, y) in pa.v.iter_mut().zip(&prod.v) {
        *x = csub(*x, *y);
    }
    ratio(pa.norm1(), a.norm1() * eps * a.r.max(a.c).max(1) as f64)
}

/// `‖A − L Lᴴ‖₁ / (n ‖A‖₁ ε)`; infinite if `l` holds a non-finite value.
pub(crate) fn chol_residual(a: &Dense, l: &Dense, eps: f64) -> f64 {
    if !l.all_finite() {
        return f64::INFINITY;
    }
    let prod = chol_product(l);
    let mut d = a.clone();
    for (x, y) in d.v.iter_mut().zip(&prod.v) {
        *x = csub(*x, *y);
    }
    ratio(d.norm1(), a.norm1() * eps * a.r.max(1) as f64)
}

/// The worst over the columns `x` of `x` of `‖oa x − b‖₁ / (n ‖oa‖₁ ‖x‖₁ ε)`; infinite if `x`
/// holds a non-finite value.
pub(crate) fn solve_residual(oa: &Dense, x: &Dense, b: &Dense, eps: f64) -> f64 {
    if !x.all_finite() {
        return f64::INFINITY;
    }
    let n = oa.r;
    let an = oa.norm1();
    let mut worst = 0.0f64;
    for j in 0..x.c {
        let mut r: Vec<C> = b.v[j * n..(j + 1) * n].to_vec();
        for l in 0..n {
            let xv = x.v[l + j * n];
            let col = &oa.v[l * n..(l + 1) * n];
            for i in 0..n {
                let y = col[i];
                r[i].0 -= y.0 * xv.0 - y.1 * xv.1;
                r[i].1 -= y.0 * xv.1 + y.1 * xv.0;
            }
        }
        let rn: f64 = r.iter().map(|&v| mag(v)).sum();
        let xn: f64 = x.v[j * n..(j + 1) * n].iter().map(|&v| mag(v)).sum();
        worst = worst.max(ratio(rn, an * xn * eps * n.max(1) as f64));
    }
    worst
}

/// `A x` in plain loops.
pub(crate) fn mat_vec(a: &Dense, x: &[C]) -> Vec<C> {
    let mut y = vec![ZERO; a.r];
    for (j, &xj) in x.iter().enumerate().take(a.c) {
        for (i, yi) in y.iter_mut().enumerate() {
            *yi = cadd(*yi, cmul(a.at(i, j), xj));
        }
    }
    y
}

/// The scaled residual of a factorization checked against one vector `x` (O(n²)):
/// `‖want − got‖∞ / (‖A‖∞ ‖x‖∞ n ε)`, `want` from `A x`, `got` from the factors.
pub(crate) fn vec_residual(a: &Dense, x: &[C], want: &[C], got: &[C], eps: f64) -> f64 {
    let norm_a = (0..a.r)
        .map(|i| (0..a.c).map(|j| mag(a.at(i, j))).sum::<f64>())
        .fold(0.0, f64::max);
    let norm_x = x.iter().map(|&v| mag(v)).fold(0.0, f64::max);
    let err = want
        .iter()
        .zip(got)
        .map(|(&w, &g)| mag(csub(w, g)))
        .fold(0.0, f64::max);
    err / (norm_a * norm_x * a.c as f64 * eps)
}

pub(crate) fn ratio(num: f64, den: f64) -> f64 {
    if num == 0.0 {
        0.0
    } else {
        num / den.max(f64::MIN_POSITIVE)
    }
}

/// The bound on every residual ratio.
pub(crate) const RESID_MAX: f64 = 30.0;
