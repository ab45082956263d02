//! Dense f64 matrices and the independent references of the drivers: LU with partial pivoting
//! and Cholesky by plain loops, substitution with their factors, matrix products, and the
//! scaled residuals every check compares with `RESID_MAX`. Nothing here calls gpublas.

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
    pub(crate) fn identity(n: usize) -> Dense {
        let mut d = Dense::zeros(n, n);
        for i in 0..n {
            d.set(i, i, ONE);
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
    /// Max column sum of magnitudes.
    pub(crate) fn norm1(&self) -> f64 {
        (0..self.c)
            .map(|j| self.col(j).iter().map(|&x| mag(x)).sum::<f64>())
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
}

/// `a b` in plain loops (column by column, `a`'s columns scaled and added).
pub(crate) fn matmul(a: &Dense, b: &Dense) -> Dense {
    assert_eq!(a.c, b.r);
    let m = a.r;
    let mut p = Dense::zeros(m, b.c);
    for j in 0..b.c {
        let out = &mut p.v[j * m..(j + 1) * m];
        for l in 0..a.c {
            let x = b.v[l + j * b.r];
            if x == ZERO {
                continue;
            }
            let col = &a.v[l * m..(l + 1) * m];
            for (o, &y) in out.iter_mut().zip(col) {
                o.0 += y.0 * x.0 - y.1 * x.1;
                o.1 += y.0 * x.1 + y.1 * x.0;
            }
        }
    }
    p
}

/// `L U` from the combined factors `f` (`n × n`: `L` unit lower below the diagonal, `U` upper
/// on and above it).
pub(crate) fn lu_product(f: &Dense) -> Dense {
    let n = f.r;
    let mut p = Dense::zeros(n, n);
    for j in 0..n {
        let out = &mut p.v[j * n..(j + 1) * n];
        for l in 0..=j {
            let u = f.v[l + j * n];
            if u == ZERO {
                continue;
            }
            out[l] = cadd(out[l], u);
            let lc = &f.v[l * n..(l + 1) * n];
            for i in l + 1..n {
                let x = lc[i];
                out[i].0 += x.0 * u.0 - x.1 * u.1;
                out[i].1 += x.0 * u.1 + x.1 * u.0;
            }
        }
    }
    p
}

/// LU in f64 the way LAPACK's `getf2` does it: at step `j` the pivot is the first row of
/// largest `|re| + |im|` in column `j`; a zero pivot sets `info` (the first one, 1-based) and
/// skips the scaling. Returns the combined factors, the 0-based pivot rows and `info`.
pub(crate) fn ref_lu(a: &Dense) -> (Dense, Vec<usize>, usize) {
    let n = a.r;
    assert_eq!(a.c, n);
    let mut f = a.clone();
    let mut piv = Vec::with_capacity(n);
    let mut info = 0;
    for j in 0..n {
        let mut p = j;
        {
            let col = &f.v[j * n..(j + 1) * n];
            let mut best = mag(col[j]);
            for i in j + 1..n {
                let v = mag(col[i]);
                if v > best {
                    best = v;
                    p = i;
                }
            }
        }
        f.swap_rows(j, p);
        piv.push(p);
        let d = f.v[j + j * n];
        if d == ZERO {
            if info == 0 {
                info = j + 1;
            }
        } else {
            let inv = cdiv(ONE, d);
            for i in j + 1..n {
                f.v[i + j * n] = cmul(f.v[i + j * n], inv);
            }
        }
        let (left, right) = f.v.split_at_mut((j + 1) * n);
        let lcol = &left[j * n..];
        for c in 0..n - j - 1 {
            let col = &mut right[c * n..(c + 1) * n];
            let u = col[j];
            if u == ZERO {
                continue;
            }
            for i in j + 1..n {
                let x = lcol[i];
                col[i].0 -= x.0 * u.0 - x.1 * u.1;
                col[i].1 -= x.0 * u.1 + x.1 * u.0;
            }
        }
    }
    (f, piv, info)
}

/// `A⁻¹ B` from `ref_lu`'s factors and pivots: interchanges, forward substitution with the
/// unit lower `L`, back substitution with `U`.
pub(crate) fn lu_solve(f: &Dense, piv: &[usize], b: &Dense) -> Dense {
    let n = f.r;
    let mut x = b.clone();
    for (j, &p) in piv.iter().enumerate() {
        x.swap_rows(j, p);
    }
    for c in 0..x.c {
        let col = &mut x.v[c * n..(c + 1) * n];
        for j in 0..n {
            let y = col[j];
            if y == ZERO {
                continue;
            }
            for i in j + 1..n {
                col[i] = csub(col[i], cmul(f.at(i, j), y));
            }
        }
        for j in (0..n).rev() {
            let y = cdiv(col[j], f.at(j, j));
            col[j] = y;
            for i in 0..j {
                col[i] = csub(col[i], cmul(f.at(i, j), y));
            }
        }
    }
    x
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

/// `‖P A − L U‖₁ / (n ‖A‖₁ ε)` with `P` from 0-based pivot rows applied as sequential
/// interchanges; infinite if the factors hold a non-finite value.
pub(crate) fn lu_residual(a: &Dense, f: &Dense, piv: &[usize], eps: f64) -> f64 {
    if !f.all_finite() {
        return f64::INFINITY;
    }
    let mut pa = a.clone();
    for (j, &r) in piv.iter().enumerate() {
        pa.swap_rows(j, r);
    }
    let prod = lu_product(f);
    for (x, y) in pa.v.iter_mut().zip(&prod.v) {
        *x = csub(*x, *y);
    }
    ratio(pa.norm1(), a.norm1() * eps * a.r.max(1) as f64)
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

/// The worst over the columns `x` of `x` of `‖A x − b‖₁ / (n ‖A‖₁ ‖x‖₁ ε)`; infinite if `x`
/// holds a non-finite value.
pub(crate) fn solve_residual(a: &Dense, x: &Dense, b: &Dense, eps: f64) -> f64 {
    if !x.all_finite() {
        return f64::INFINITY;
    }
    let n = a.r;
    let an = a.norm1();
    let ax = matmul(a, x);
    let mut worst = 0.0f64;
    for j in 0..x.c {
        let rn: f64 = (0..n).map(|i| mag(csub(ax.at(i, j), b.at(i, j)))).sum();
        let xn: f64 = x.col(j).iter().map(|&v| mag(v)).sum();
        worst = worst.max(ratio(rn, an * xn * eps * n.max(1) as f64));
    }
    worst
}

/// The worst over the columns of `max |x − x_ref| / (n ‖x_ref‖∞ ε)` (the forward error of a
/// well-conditioned solve); infinite if `x` holds a non-finite value.
pub(crate) fn forward_error(x: &Dense, x_ref: &Dense, eps: f64) -> f64 {
    if !x.all_finite() {
        return f64::INFINITY;
    }
    let n = x.r;
    let mut worst = 0.0f64;
    for j in 0..x.c {
        let d = (0..n)
            .map(|i| mag(csub(x.at(i, j), x_ref.at(i, j))))
            .fold(0.0, f64::max);
        let s = x_ref.col(j).iter().map(|&v| mag(v)).fold(0.0, f64::max);
        worst = worst.max(ratio(d, s * eps * n.max(1) as f64));
    }
    worst
}

/// `(‖X A − I‖₁, ‖A X − I‖₁)`, each over `n ‖A‖₁ ‖X‖₁ ε` (LAPACK's `dget03` ratio, on both
/// sides); infinite if `x` holds a non-finite value.
pub(crate) fn inverse_residuals(a: &Dense, x: &Dense, eps: f64) -> (f64, f64) {
    if !x.all_finite() {
        return (f64::INFINITY, f64::INFINITY);
    }
    let n = a.r;
    let den = a.norm1() * x.norm1() * eps * n.max(1) as f64;
    let id = Dense::identity(n);
    let off = |p: Dense| -> f64 {
        let mut p = p;
        for (x, y) in p.v.iter_mut().zip(&id.v) {
            *x = csub(*x, *y);
        }
        ratio(p.norm1(), den)
    };
    (off(matmul(x, a)), off(matmul(a, x)))
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
