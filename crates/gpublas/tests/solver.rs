#![allow(
    clippy::too_many_arguments,
    clippy::type_complexity,
    clippy::needless_range_loop
)]
//! The LAPACK routines (`getrf`, `getrf_npvt`, `getrs`, `potrf`, `potrs`, each single,
//! `_batched` and `_strided_batched`) against independent f64 references written here, on both
//! backends (SPEC F1–F3, F5–F10, M6, M8, M9).
//!
//! Checks, with `ε` the element type's machine epsilon and `|re| + |im|` as the magnitude of a
//! complex value:
//! - getrf: `‖P A − L U‖₁ / (max(m, n) ‖A‖₁ ε) < 30` with `P` built from the returned pivots as
//!   sequential interchanges; every pivot in `[j + 1, m]`; on matrices built as
//!   `A = P0 L0 U0` (`|L0(i, j)| ≤ 0.5` below the unit diagonal, `U0`'s diagonal of magnitude in
//!   [1, 2]: each column's pivot beats the others by a factor of 2) the pivots equal both the
//!   construction's and those of a reference partial-pivoting loop; `info` exact (the first
//!   exactly zero `U(i, i)`, 1-based) on exactly singular matrices.
//! - getrf_npvt: `‖A − L U‖₁ / (max(m, n) ‖A‖₁ ε) < 30`, same `info`.
//! - potrf: `‖A − L Lᴴ‖₁ / (n ‖A‖₁ ε) < 30` (or `Uᴴ U`), a real positive diagonal, the
//!   unstored triangle bit-identical, `info = k` when the leading minor of order `k` is broken.
//! - getrs / potrs (factors from the f64 references, rounded to the type): for each column `x`
//!   of `X`, `‖op(A) x − b‖₁ / (n ‖op(A)‖₁ ‖x‖₁ ε) < 30`.
//!
//! Operands are placed in batch layouts (single, lists, strided batches with gaps between the
//! entries) at leading dimensions above the least; everything a call may neither read nor
//! write (padding, gaps, one element past each buffer, the unstored triangle of `potrf`/`potrs`
//! and the pivots' gaps) holds a NaN with a payload of its own and is compared bit for bit
//! afterwards. Pivots and `info` go to host memory or device memory, in rotation.

mod common;

use common::complex::*;
use common::elem::*;
use common::forms::*;
use common::{fixed_handle, handle};
use gpublas::solver;
use gpublas::{
    Complex32, Complex64, Device, DeviceBuffer, Error, Handle, Op, Results, Scalar, Status, Uplo,
};

// ---- the element types, seen from the test side ------------------------------------------

/// The four LAPACK scalars.
trait T: El + Scalar {}
impl T for f32 {}
impl T for f64 {}
impl T for Complex32 {}
impl T for Complex64 {}

/// Uniform in [-s, s) (both parts for complex types), rounded to the type.
fn rnd<E: El>(r: &mut Gen, s: f64) -> C {
    let re = r.uni() * s;
    let im = if E::CPLX { r.uni() * s } else { 0.0 };
    round_to::<E>((re, im))
}

/// Magnitude `m` (modulus) with a random sign (real) or phase (complex), rounded to the type.
fn with_phase<E: El>(r: &mut Gen, m: f64) -> C {
    if E::CPLX {
        let t = std::f64::consts::PI * r.uni();
        round_to::<E>((m * t.cos(), m * t.sin()))
    } else if r.uni() < 0.0 {
        (-m, 0.0)
    } else {
        round_to::<E>((m, 0.0))
    }
}

// ---- batch layouts -----------------------------------------------------------------------

/// Layouts of the correctness suites, in rotation (batches of 0 are in the quick-return test).
const FORMS: &[Form] = &[
    Form::Single,
    Form::List(1),
    Form::Strided(7),
    Form::Strided(1),
    Form::List(7),
    Form::Single,
    Form::Strided(2),
    Form::List(3),
];

/// Elements between the entries of a strided layout, in rotation.
const GAPS: [usize; 3] = [0, 1, 7];

impl<E: El> Placed<E> {
    /// The `rows × cols` entry `v` at `ld` of `after`, in f64.
    fn entry(&self, after: &[Vec<E>], v: usize, rows: usize, cols: usize, ld: usize) -> Dense {
        let (bi, off) = self.loc(v);
        let mut d = Dense::zeros(rows, cols);
        for j in 0..cols {
            for i in 0..rows {
                d.set(i, j, after[bi][off + i + j * ld].get());
            }
        }
        d
    }
}

/// Where `ipiv` or `info` go.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Loc {
    Host,
    Device,
}

/// What pivot outputs hold before a call (never a valid pivot).
const PIV_POISON: i32 = -7_000_001;
/// What `info` outputs hold before a call.
const INFO_POISON: i32 = -424_242;
/// What an input pivot buffer holds between the entries (a call must not read it).
const PIV_GAP: i32 = -99;

/// An integer result buffer (`ipiv` or `info`) in host or device memory.
struct Ints {
    loc: Loc,
    host: Vec<i32>,
    dev: Option<DeviceBuffer<i32>>,
    before: Vec<i32>,
}

impl Ints {
    fn new(dev: &Device, loc: Loc, v: Vec<i32>) -> Ints {
        let d = (loc == Loc::Device).then(|| dev.upload(&v).unwrap());
        Ints {
            loc,
            host: v.clone(),
            dev: d,
            before: v,
        }
    }

    /// The same routing with a placeholder (device) or a fresh slice (host) of the same length.
    fn placeholder(&self) -> Ints {
        Ints {
            loc: self.loc,
            host: self.before.clone(),
            dev: (self.loc == Loc::Device).then(|| DeviceBuffer::placeholder(self.before.len())),
            before: self.before.clone(),
        }
    }

    fn results(&mut self) -> Results<'_, i32> {
        match self.loc {
            Loc::Host => Results::Host(&mut self.host),
            Loc::Device => Results::Device(self.dev.as_mut().unwrap()),
        }
    }

    fn now(&self) -> Vec<i32> {
        match &self.dev {
            Some(d) => d.to_vec().unwrap(),
            None => self.host.clone(),
        }
    }

    fn reset(&mut self) {
        self.host = self.before.clone();
        if let Some(d) = &mut self.dev {
            d.copy_from_host(&self.before).unwrap();
        }
    }

    fn untouched(&self, what: &str) {
        let now = self.now();
        if let Some(p) = (0..now.len()).find(|&p| now[p] != self.before[p]) {
            panic!(
                "{what}: {:?} integer result {p} changed from {} to {}",
                self.loc, self.before[p], now[p]
            );
        }
    }
}

// ---- dense matrices and the references ---------------------------------------------------

/// A logical matrix, column-major, in f64.
#[derive(Clone, Debug)]
struct Dense {
    r: usize,
    c: usize,
    v: Vec<C>,
}

impl Dense {
    fn zeros(r: usize, c: usize) -> Dense {
        Dense {
            r,
            c,
            v: vec![ZERO; r * c],
        }
    }
    fn at(&self, i: usize, j: usize) -> C {
        self.v[i + j * self.r]
    }
    fn set(&mut self, i: usize, j: usize, x: C) {
        self.v[i + j * self.r] = x;
    }
    /// `self`, its transpose or its conjugate transpose.
    fn op(&self, op: Op) -> Dense {
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
    fn norm1(&self) -> f64 {
        (0..self.c)
            .map(|j| {
                self.v[j * self.r..(j + 1) * self.r]
                    .iter()
                    .map(|&x| mag(x))
                    .sum::<f64>()
            })
            .fold(0.0, f64::max)
    }
    fn all_finite(&self) -> bool {
        self.v.iter().all(|&x| finite(x))
    }
    fn swap_rows(&mut self, a: usize, b: usize) {
        if a == b {
            return;
        }
        for j in 0..self.c {
            self.v.swap(a + j * self.r, b + j * self.r);
        }
    }
    /// Every value rounded to the element type.
    fn rounded<E: El>(mut self) -> Dense {
        self.v.iter_mut().for_each(|x| *x = round_to::<E>(*x));
        self
    }
}

/// `L U` from the combined factors `f` (`m × n`: `L` unit lower trapezoidal below the diagonal,
/// `U` upper trapezoidal on and above it).
fn lu_product(f: &Dense) -> Dense {
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
fn ref_lu(a: &Dense, pivot: bool) -> (Dense, Vec<usize>, usize) {
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
fn ref_chol(a: &Dense) -> (Dense, usize) {
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
fn chol_product(l: &Dense) -> Dense {
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
fn lu_residual(a: &Dense, f: &Dense, piv: Option<&[usize]>, eps: f64) -> f64 {
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
fn chol_residual(a: &Dense, l: &Dense, eps: f64) -> f64 {
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
fn solve_residual(oa: &Dense, x: &Dense, b: &Dense, eps: f64) -> f64 {
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

fn ratio(num: f64, den: f64) -> f64 {
    if num == 0.0 {
        0.0
    } else {
        num / den.max(f64::MIN_POSITIVE)
    }
}

/// The bound on every residual ratio.
const RESID_MAX: f64 = 30.0;

// ---- test matrices -----------------------------------------------------------------------

/// Columns of the first panel: `Fill::Deficient` is exact up to there.
const PANEL: usize = 32;

/// How a matrix is filled.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fill {
    /// Uniform in [-1, 1) (both parts).
    Random,
    /// Random, and each column diagonally dominant: `|a_jj| = Σ_{i≠j} |a_ij| + [1, 2]`.
    Dominant,
    /// `P0 L0 U0`: well-separated pivots (see `gen_sep`).
    Sep,
    /// `P0 L0 U0` with row and column `k` of `U0` zero: column `k` of `A` is exactly zero
    /// (and a second one, if any): `info = k + 1`.
    ZeroCol(usize, Option<usize>),
    /// `P0 L0 U0` of small dyadic values, row `k` of `U0` zero from its diagonal on but the
    /// column above it kept: column `k` is a combination of the earlier ones, and the elimination
    /// is exact up to that step, so `U(k, k)` is exactly zero (`k < 32`: in the first panel).
    Deficient(usize),
    /// Hermitian, diagonally dominant with a real positive diagonal (HPD).
    Hpd,
    /// `B Bᴴ / n + I / 2`: HPD without dominance.
    Gram,
    /// HPD, then `A(k−1, k−1)` set to the value: the leading minor of order `k` is not
    /// positive definite, the smaller ones are.
    NotPd(usize, f64),
}

/// Uniform random `m × n`.
fn gen_random<E: El>(m: usize, n: usize, r: &mut Gen) -> Dense {
    let mut d = Dense::zeros(m, n);
    d.v.iter_mut().for_each(|x| *x = rnd::<E>(r, 1.0));
    d
}

/// Random with each column's diagonal entry dominating it.
fn gen_dominant<E: El>(m: usize, n: usize, r: &mut Gen) -> Dense {
    let mut d = gen_random::<E>(m, n, r);
    for j in 0..m.min(n) {
        let s: f64 = (0..m).filter(|&i| i != j).map(|i| mag(d.at(i, j))).sum();
        let extra = 1.5 + 0.5 * r.uni();
        let v = with_phase::<E>(r, 2.0 * s + extra);
        d.set(j, j, v);
    }
    d
}

/// `A = P0 L0 U0` (`m × n`) and the 0-based pivot rows that produce it. `P0` is a random
/// sequence of interchanges (none at the `zero` steps); `L0` unit lower with
/// `|re| + |im| ≤ 0.5` below the diagonal, so that partial pivoting picks the intended row by
/// a factor of 2 at least, scaled down with the order to keep `A` well conditioned; `U0` upper,
/// its diagonal of magnitude in [1, 2], entries above scaled with the order. `zero_cols`:
/// row and column of `U0` zero (column of `A` zero); `deficient`: row of `U0` zero from the
/// diagonal on. `exact`: the first `PANEL` columns hold small dyadic numbers, so that the
/// elimination of the first panel is exact in every type.
fn gen_sep<E: El>(
    m: usize,
    n: usize,
    zero_cols: &[usize],
    deficient: &[usize],
    exact: bool,
    pivot: bool,
    r: &mut Gen,
) -> (Dense, Vec<usize>) {
    let k = m.min(n);
    let piv: Vec<usize> = (0..k)
        .map(|j| {
            if !pivot || zero_cols.contains(&j) || deficient.contains(&j) {
                j
            } else {
                j + r.below(m - j)
            }
        })
        .collect();
    let lmax = 0.5f64.min((6.0 / k.max(1) as f64).sqrt());
    let umax = 1.0f64.min(2.0 / (n.max(1) as f64).sqrt());
    // Dyadic values for `exact`: multiples of 1/4 (L, up to 0.5) and 1/2 (U, up to 1).
    let q = |r: &mut Gen, step: f64, max: f64| -> f64 {
        let steps = (max / step).round() as i64;
        (r.below(2 * steps as usize + 1) as i64 - steps) as f64 * step
    };
    let mut f = Dense::zeros(m, n);
    for j in 0..n {
        // Only the first panel's columns need to be exact; the others stay well conditioned.
        let dy = exact && j < PANEL;
        for i in 0..m {
            let v = if i > j {
                if j >= k {
                    ZERO
                } else if dy {
                    if E::CPLX {
                        (q(r, 0.25, 0.25), q(r, 0.25, 0.25))
                    } else {
                        (q(r, 0.25, 0.5), 0.0)
                    }
                } else if E::CPLX {
                    (0.5 * lmax * r.uni(), 0.5 * lmax * r.uni())
                } else {
                    (lmax * r.uni(), 0.0)
                }
            } else if i == j {
                if dy {
                    let m = [1.0, 2.0][r.below(2)];
                    let s = [1.0, -1.0][r.below(2)];
                    if E::CPLX && r.below(2) == 1 {
                        (0.0, m * s)
                    } else {
                        (m * s, 0.0)
                    }
                } else {
                    let m = 1.5 + 0.5 * r.uni();
                    with_phase::<E>(r, m)
                }
            } else if dy {
                if E::CPLX {
                    (q(r, 0.5, 0.5), q(r, 0.5, 0.5))
                } else {
                    (q(r, 0.5, 1.0), 0.0)
                }
            } else {
                rnd::<E>(r, umax)
            };
            f.set(i, j, v);
        }
    }
    for &z in zero_cols.iter().chain(deficient) {
        if z >= k {
            continue;
        }
        for j in z..n {
            f.set(z, j, ZERO);
        }
    }
    for &z in zero_cols {
        if z < k {
            for i in 0..z {
                f.set(i, z, ZERO);
            }
        }
    }
    let mut a = lu_product(&f);
    for j in (0..k).rev() {
        a.swap_rows(j, piv[j]);
    }
    (a.rounded::<E>(), piv)
}

/// Hermitian with a real diagonal dominating each row.
fn gen_hpd<E: El>(n: usize, r: &mut Gen) -> Dense {
    let mut d = Dense::zeros(n, n);
    for j in 0..n {
        for i in j + 1..n {
            let v = rnd::<E>(r, 1.0);
            d.set(i, j, v);
            d.set(j, i, conj(v));
        }
    }
    for i in 0..n {
        let s: f64 = (0..n).filter(|&j| j != i).map(|j| mag(d.at(i, j))).sum();
        d.set(i, i, round_to::<E>((s + 1.5 + 0.5 * r.uni(), 0.0)));
    }
    d
}

/// `B Bᴴ / n + I / 2` for a random `B`, rounded to the type (still Hermitian).
fn gen_gram<E: El>(n: usize, r: &mut Gen) -> Dense {
    let b = gen_random::<E>(n, n, r);
    let mut d = Dense::zeros(n, n);
    for j in 0..n {
        for i in j..n {
            let mut s = ZERO;
            for l in 0..n {
                s = cadd(s, cmul(b.at(i, l), conj(b.at(j, l))));
            }
            s = (s.0 / n as f64, s.1 / n as f64);
            if i == j {
                s = (s.0 + 0.5, 0.0);
            }
            let s = round_to::<E>(s);
            d.set(i, j, s);
            d.set(j, i, conj(s));
        }
    }
    d
}

/// The stored form of `d` at `ld`: padding holds the payload NaN; with `tri`, so does the
/// strict other triangle.
fn store<E: El>(d: &Dense, ld: usize, tri: Option<Uplo>) -> Vec<E> {
    let mut st = vec![E::pnan(); span(d.r, d.c, ld)];
    for j in 0..d.c {
        for i in 0..d.r {
            let keep = match tri {
                None => true,
                Some(Uplo::Lower) => i >= j,
                Some(Uplo::Upper) => i <= j,
            };
            if keep {
                let x = d.at(i, j);
                st[i + j * ld] = E::make(x.0, x.1);
            }
        }
    }
    st
}

// ---- factorizations ----------------------------------------------------------------------

/// Which factorization.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Rt {
    Getrf,
    Npvt,
    Potrf(Uplo),
}

/// One factorization call's shape, layout and result routing.
#[derive(Clone, Copy, Debug)]
struct FCase {
    rt: Rt,
    m: usize,
    n: usize,
    lda: usize,
    form: Form,
    /// Elements between strided entries.
    gap: usize,
    /// Pivots between entries beyond `min(m, n)`.
    pgap: usize,
    piv: Loc,
    info: Loc,
}

impl FCase {
    fn new(rt: Rt, m: usize, n: usize) -> FCase {
        FCase {
            rt,
            m,
            n,
            lda: m.max(1),
            form: Form::Single,
            gap: 0,
            pgap: 0,
            piv: Loc::Device,
            info: Loc::Host,
        }
    }

    /// Padding, layout, gaps and routing in rotation with the case counter `t`.
    fn rotate(rt: Rt, m: usize, n: usize, t: usize) -> FCase {
        let form = if m.max(n) > 129 {
            BIG_FORMS[t % BIG_FORMS.len()]
        } else {
            FORMS[t % FORMS.len()]
        };
        FCase {
            rt,
            m,
            n,
            lda: m.max(1) + [1, 3, 0, 2][t % 4],
            form,
            gap: GAPS[(t / 2) % 3],
            pgap: [0, 1, 3][(t / 3) % 3],
            piv: [Loc::Device, Loc::Host][t % 2],
            info: [Loc::Host, Loc::Device, Loc::Device][t % 3],
        }
    }

    fn with(mut self, form: Form, lda_extra: usize) -> FCase {
        self.form = form;
        self.lda = self.m.max(1) + lda_extra;
        self
    }

    fn k(&self) -> usize {
        self.m.min(self.n)
    }

    fn stride_piv(&self) -> usize {
        self.k() + self.pgap
    }
}

/// A factorization ready to run: its operands placed, the logical matrices behind them and
/// what each entry must give.
struct FactRun<E: T> {
    c: FCase,
    a: Placed<E>,
    ipiv: Option<Ints>,
    info: Ints,
    ad: Vec<Dense>,
    fills: Vec<Fill>,
    want_info: Vec<i32>,
    /// 0-based pivot rows each entry must give (well-separated matrices).
    want_piv: Vec<Option<Vec<usize>>>,
}

/// The logical matrix of a fill, the pivots it must give (if determined) and its `info`.
fn gen_fill<E: El>(
    rt: Rt,
    m: usize,
    n: usize,
    fill: Fill,
    r: &mut Gen,
) -> (Dense, Option<Vec<usize>>, i32) {
    let pivot = rt == Rt::Getrf;
    match fill {
        Fill::Random => (gen_random::<E>(m, n, r), None, 0),
        Fill::Dominant => (gen_dominant::<E>(m, n, r), None, 0),
        Fill::Sep | Fill::ZeroCol(..) | Fill::Deficient(_) => {
            let (zc, df, exact): (Vec<usize>, Vec<usize>, bool) = match fill {
                Fill::ZeroCol(a, b) => (std::iter::once(a).chain(b).collect(), vec![], false),
                Fill::Deficient(k) => (vec![], vec![k], true),
                _ => (vec![], vec![], false),
            };
            let (a, piv) = gen_sep::<E>(m, n, &zc, &df, exact, pivot, r);
            let want = zc
                .iter()
                .chain(&df)
                .filter(|&&z| z < m.min(n))
                .map(|&z| z + 1)
                .min()
                .unwrap_or(0);
            // The reference loop must agree with the construction (a check of the test).
            let (_, rp, ri) = ref_lu(&a, pivot);
            assert_eq!(ri, want, "{} {m}x{n} {fill:?}: reference info", E::NAME);
            assert_eq!(rp, piv, "{} {m}x{n} {fill:?}: reference pivots", E::NAME);
            (a, Some(piv), want as i32)
        }
        Fill::Hpd | Fill::Gram | Fill::NotPd(..) => {
            let mut a = if fill == Fill::Gram {
                gen_gram::<E>(n, r)
            } else {
                gen_hpd::<E>(n, r)
            };
            let mut want = 0;
            if let Fill::NotPd(k, v) = fill {
                a.set(k - 1, k - 1, (v, 0.0));
                want = k;
            }
            if n <= 300 || want != 0 {
                let (_, ri) = ref_chol(&a);
                assert_eq!(ri, want, "{} n={n} {fill:?}: reference info", E::NAME);
            }
            (a, None, want as i32)
        }
    }
}

/// Operands for `c`, entry `v` filled with `fills[v % len]`.
fn prepare_fact<E: T>(dev: &Device, r: &mut Gen, c: FCase, fills: &[Fill]) -> FactRun<E> {
    let count = form_count(c.form);
    let tri = match c.rt {
        Rt::Potrf(u) => Some(u),
        _ => None,
    };
    let (mut st, mut ad, mut want_info, mut want_piv, mut fl) =
        (vec![], vec![], vec![], vec![], vec![]);
    for v in 0..count {
        let fill = fills[v % fills.len()];
        let (a, piv, info) = gen_fill::<E>(c.rt, c.m, c.n, fill, r);
        st.push(store::<E>(&a, c.lda, tri));
        ad.push(a);
        want_info.push(info);
        want_piv.push(piv);
        fl.push(fill);
    }
    let a = Placed::with_gap(dev, c.form, span(c.m, c.n, c.lda), c.gap, &st, E::pnan());
    let k = c.k();
    let ipiv = (c.rt == Rt::Getrf).then(|| {
        let len = match c.form {
            Form::Single => k + 1,
            _ => count * c.stride_piv() + 1,
        };
        Ints::new(dev, c.piv, vec![PIV_POISON; len])
    });
    let info = Ints::new(dev, c.info, vec![INFO_POISON; count + 1]);
    FactRun {
        c,
        a,
        ipiv,
        info,
        ad,
        fills: fl,
        want_info,
        want_piv,
    }
}

/// Runs the factorization `c` on `a` in its layout.
fn fact_call<E: T>(
    h: &mut Handle,
    c: &FCase,
    a: &mut Placed<E>,
    ipiv: Option<&mut Ints>,
    info: &mut Ints,
) -> Result<Status, Error> {
    let (m, n, lda, sp) = (c.m, c.n, c.lda, c.stride_piv());
    let sa = a.stride;
    match (c.rt, a.form) {
        (Rt::Getrf, Form::Single) => solver::getrf(
            h,
            m,
            n,
            a.one_mut(),
            lda,
            ipiv.unwrap().results(),
            info.results(),
        ),
        (Rt::Getrf, Form::List(_)) => solver::getrf_batched(
            h,
            m,
            n,
            &mut a.muts(),
            lda,
            ipiv.unwrap().results(),
            sp,
            info.results(),
        ),
        (Rt::Getrf, Form::Strided(count)) => solver::getrf_strided_batched(
            h,
            m,
            n,
            a.one_mut(),
            lda,
            sa,
            ipiv.unwrap().results(),
            sp,
            info.results(),
            count,
        ),
        (Rt::Npvt, Form::Single) => solver::getrf_npvt(h, m, n, a.one_mut(), lda, info.results()),
        (Rt::Npvt, Form::List(_)) => {
            solver::getrf_npvt_batched(h, m, n, &mut a.muts(), lda, info.results())
        }
        (Rt::Npvt, Form::Strided(count)) => {
            solver::getrf_npvt_strided_batched(h, m, n, a.one_mut(), lda, sa, info.results(), count)
        }
        (Rt::Potrf(u), Form::Single) => solver::potrf(h, u, n, a.one_mut(), lda, info.results()),
        (Rt::Potrf(u), Form::List(_)) => {
            solver::potrf_batched(h, u, n, &mut a.muts(), lda, info.results())
        }
        (Rt::Potrf(u), Form::Strided(count)) => {
            solver::potrf_strided_batched(h, u, n, a.one_mut(), lda, sa, info.results(), count)
        }
    }
}

/// A call ready to run, checked the same way by the query, workspace and batch tests.
trait Job {
    fn call(&mut self, h: &mut Handle) -> Result<Status, Error>;
    /// The same call with placeholders for every device operand (host results stay host).
    fn call_placeholders(&self, h: &mut Handle) -> Result<Status, Error>;
    /// The answer is right and nothing else changed.
    fn check(&self, what: &str);
    /// Nothing changed.
    fn untouched(&self, what: &str);
    /// Uploads the original operands again.
    fn reset(&mut self);
    fn name(&self) -> String;
    /// Bytes of the results of one batch entry that go to host memory (pivots, `info`).
    fn host_result_bytes(&self) -> usize;
}

impl<E: T> Job for FactRun<E> {
    fn call(&mut self, h: &mut Handle) -> Result<Status, Error> {
        fact_call(h, &self.c, &mut self.a, self.ipiv.as_mut(), &mut self.info)
    }

    fn call_placeholders(&self, h: &mut Handle) -> Result<Status, Error> {
        let mut a = self.a.placeholders();
        let mut ipiv = self.ipiv.as_ref().map(|p| p.placeholder());
        let mut info = self.info.placeholder();
        fact_call(h, &self.c, &mut a, ipiv.as_mut(), &mut info)
    }

    fn name(&self) -> String {
        let mut fills = self.fills.clone();
        fills.dedup();
        format!("{} {:?} {fills:?}", E::NAME, self.c)
    }

    fn host_result_bytes(&self) -> usize {
        let piv = if self.ipiv.is_some() && self.c.piv == Loc::Host {
            self.c.k()
        } else {
            0
        };
        4 * (piv + usize::from(self.c.info == Loc::Host))
    }

    fn reset(&mut self) {
        self.a.reset();
        if let Some(p) = &mut self.ipiv {
            p.reset();
        }
        self.info.reset();
    }

    fn untouched(&self, what: &str) {
        self.a.untouched(what);
        if let Some(p) = &self.ipiv {
            p.untouched(&format!("{what} (ipiv)"));
        }
        self.info.untouched(&format!("{what} (info)"));
    }

    fn check(&self, what: &str) {
        let c = &self.c;
        let (m, n, k) = (c.m, c.n, c.k());
        let count = form_count(c.form);
        let after = self.a.after();
        let tri = match c.rt {
            Rt::Potrf(u) => Some(u),
            _ => None,
        };
        let is_out = |i: usize, j: usize| match tri {
            None => true,
            Some(Uplo::Lower) => i >= j,
            Some(Uplo::Upper) => i <= j,
        };
        self.a
            .only_outputs_changed(&after, m, n, c.lda, &is_out, what);
        // info: one per entry, nothing past them.
        let info = self.info.now();
        for v in 0..count {
            assert_eq!(
                info[v], self.want_info[v],
                "{what}: entry {v} ({:?}): info",
                self.fills[v]
            );
        }
        for p in count..info.len() {
            assert_eq!(
                info[p], INFO_POISON,
                "{what}: info[{p}] past the batch was written"
            );
        }
        // Pivots: 1-based, row j interchanged with a row at or below it; the gaps untouched.
        let mut pivs: Vec<Vec<usize>> = vec![];
        if let Some(ip) = &self.ipiv {
            let got = ip.now();
            let sp = c.stride_piv();
            let mut is_piv = vec![false; got.len()];
            for v in 0..count {
                let mut p0 = vec![];
                for j in 0..k {
                    let x = got[v * sp + j];
                    is_piv[v * sp + j] = true;
                    assert!(
                        x > j as i32 && x <= m as i32,
                        "{what}: entry {v}: ipiv[{j}] = {x}, want a row in [{}, {m}]",
                        j + 1
                    );
                    p0.push(x as usize - 1);
                }
                if let Some(w) = &self.want_piv[v] {
                    if let Some(j) = (0..k).find(|&j| p0[j] != w[j]) {
                        panic!(
                            "{what}: entry {v} ({:?}): ipiv[{j}] = {}, the reference pivots on row {} (1-based)",
                            self.fills[v],
                            p0[j] + 1,
                            w[j] + 1
                        );
                    }
                }
                pivs.push(p0);
            }
            for (p, &isp) in is_piv.iter().enumerate() {
                assert!(
                    isp || got[p] == PIV_POISON,
                    "{what}: ipiv[{p}] is not a pivot of an entry but was written ({})",
                    got[p]
                );
            }
        }
        // The factors.
        for v in 0..count {
            let f = self.a.entry(&after, v, m, n, c.lda);
            let res = match c.rt {
                Rt::Getrf => lu_residual(&self.ad[v], &f, Some(&pivs[v]), E::EPS),
                Rt::Npvt => lu_residual(&self.ad[v], &f, None, E::EPS),
                Rt::Potrf(u) => {
                    if self.want_info[v] != 0 {
                        continue;
                    }
                    let mut l = Dense::zeros(n, n);
                    for j in 0..n {
                        let d = f.at(j, j);
                        assert!(
                            d.0 > 0.0 && d.1 == 0.0,
                            "{what}: entry {v}: the factor's diagonal ({j}, {j}) is {d:?}, want real and positive"
                        );
                        for i in j..n {
                            let x = match u {
                                Uplo::Lower => f.at(i, j),
                                Uplo::Upper => conj(f.at(j, i)),
                            };
                            l.set(i, j, x);
                        }
                    }
                    chol_residual(&self.ad[v], &l, E::EPS)
                }
            };
            assert!(
                res < RESID_MAX,
                "{what}: entry {v} ({:?}): factorization residual ratio {res:.3e} ≥ {RESID_MAX}",
                self.fills[v]
            );
        }
    }
}

/// Runs `job` on `h`, expects `Success` and checks it.
fn run_checked(h: &mut Handle, job: &mut dyn Job) {
    let what = job.name();
    let st = job.call(h).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(st, Status::Success, "{what}");
    job.check(&what);
}

/// The text of a caught panic.
fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Runs `f` on every item, then fails listing each one that panicked, so that one failing
/// case does not hide the others.
fn each<X>(items: Vec<X>, mut f: impl FnMut(X)) {
    let mut failures = vec![];
    for x in items {
        if let Err(p) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(x))) {
            failures.push(panic_text(&*p));
        }
    }
    assert!(
        failures.is_empty(),
        "{} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---- solves --------------------------------------------------------------------------------

/// Which solve.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Srt {
    Getrs(Op),
    Potrs(Uplo),
}

/// One solve call's shape and layout.
#[derive(Clone, Copy, Debug)]
struct SCase {
    rt: Srt,
    n: usize,
    nrhs: usize,
    lda: usize,
    ldb: usize,
    form: Form,
    gap: usize,
    pgap: usize,
}

impl SCase {
    fn new(rt: Srt, n: usize, nrhs: usize) -> SCase {
        SCase {
            rt,
            n,
            nrhs,
            lda: n.max(1),
            ldb: n.max(1),
            form: Form::Single,
            gap: 0,
            pgap: 0,
        }
    }

    fn rotate(rt: Srt, n: usize, nrhs: usize, t: usize) -> SCase {
        let form = if n > 129 {
            BIG_FORMS[t % BIG_FORMS.len()]
        } else {
            FORMS[t % FORMS.len()]
        };
        SCase {
            rt,
            n,
            nrhs,
            lda: n.max(1) + [2, 0, 1, 3][t % 4],
            ldb: n.max(1) + [1, 3, 0][t % 3],
            form,
            gap: GAPS[(t / 2) % 3],
            pgap: [1, 0, 3][(t / 3) % 3],
        }
    }

    fn with(mut self, form: Form, lda_extra: usize, ldb_extra: usize) -> SCase {
        self.form = form;
        self.lda = self.n.max(1) + lda_extra;
        self.ldb = self.n.max(1) + ldb_extra;
        self
    }

    fn stride_piv(&self) -> usize {
        self.n + self.pgap
    }
}

/// A solve ready to run: factors from the f64 references, rounded to the type.
struct SolveRun<E: T> {
    c: SCase,
    a: Placed<E>,
    /// Pivots (getrs) and what was uploaded into them.
    piv: Option<(DeviceBuffer<i32>, Vec<i32>)>,
    b: Placed<E>,
    /// The matrices the factors are of, and the right-hand sides.
    ad: Vec<Dense>,
    bd: Vec<Dense>,
    fill: Fill,
}

/// The pivot buffer of `count` entries `stride` apart (gaps hold `PIV_GAP`), one more element.
fn piv_buffer(entries: &[Vec<i32>], single: bool, stride: usize) -> Vec<i32> {
    if single {
        let mut v = entries[0].clone();
        v.push(PIV_GAP);
        return v;
    }
    let mut v = vec![PIV_GAP; entries.len() * stride + 1];
    for (e, p) in entries.iter().enumerate() {
        v[e * stride..e * stride + p.len()].copy_from_slice(p);
    }
    v
}

fn prepare_solve<E: T>(dev: &Device, r: &mut Gen, c: SCase, fill: Fill) -> SolveRun<E> {
    let count = form_count(c.form);
    let n = c.n;
    let (mut ast, mut ad, mut bst, mut bd, mut pivs) = (vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..count {
        match c.rt {
            Srt::Getrs(_) => {
                let a = match fill {
                    Fill::Dominant => gen_dominant::<E>(n, n, r),
                    Fill::Sep => gen_sep::<E>(n, n, &[], &[], false, true, r).0,
                    _ => gen_random::<E>(n, n, r),
                };
                let (f, p, info) = ref_lu(&a, true);
                assert_eq!(info, 0, "test matrix singular");
                ast.push(store::<E>(&f.rounded::<E>(), c.lda, None));
                pivs.push(p.iter().map(|&x| x as i32 + 1).collect::<Vec<i32>>());
                ad.push(a);
            }
            Srt::Potrs(u) => {
                let a = if fill == Fill::Gram {
                    gen_gram::<E>(n, r)
                } else {
                    gen_hpd::<E>(n, r)
                };
                let (l, info) = ref_chol(&a);
                assert_eq!(info, 0, "test matrix not positive definite");
                let f = match u {
                    Uplo::Lower => l,
                    Uplo::Upper => l.op(Op::C),
                };
                ast.push(store::<E>(&f.rounded::<E>(), c.lda, Some(u)));
                ad.push(a);
            }
        }
        let b = gen_random::<E>(n, c.nrhs, r);
        bst.push(store::<E>(&b, c.ldb, None));
        bd.push(b);
    }
    let a = Placed::with_gap(dev, c.form, span(n, n, c.lda), c.gap, &ast, E::pnan());
    let b = Placed::with_gap(
        dev,
        c.form,
        span(n, c.nrhs, c.ldb),
        (c.gap + 1) % 8,
        &bst,
        E::pnan(),
    );
    let piv = matches!(c.rt, Srt::Getrs(_)).then(|| {
        let v = if count == 0 {
            vec![PIV_GAP]
        } else {
            piv_buffer(&pivs, c.form == Form::Single, c.stride_piv())
        };
        (dev.upload(&v).unwrap(), v)
    });
    SolveRun {
        c,
        a,
        piv,
        b,
        ad,
        bd,
        fill,
    }
}

fn solve_call<E: T>(
    h: &mut Handle,
    c: &SCase,
    a: &Placed<E>,
    piv: Option<&DeviceBuffer<i32>>,
    b: &mut Placed<E>,
) -> Result<Status, Error> {
    let (n, nrhs, lda, ldb, sp) = (c.n, c.nrhs, c.lda, c.ldb, c.stride_piv());
    let (sa, sb) = (a.stride, b.stride);
    match (c.rt, b.form) {
        (Srt::Getrs(op), Form::Single) => {
            solver::getrs(h, op, n, nrhs, a.one(), lda, piv.unwrap(), b.one_mut(), ldb)
        }
        (Srt::Getrs(op), Form::List(_)) => solver::getrs_batched(
            h,
            op,
            n,
            nrhs,
            &a.refs(),
            lda,
            piv.unwrap(),
            sp,
            &mut b.muts(),
            ldb,
        ),
        (Srt::Getrs(op), Form::Strided(count)) => solver::getrs_strided_batched(
            h,
            op,
            n,
            nrhs,
            a.one(),
            lda,
            sa,
            piv.unwrap(),
            sp,
            b.one_mut(),
            ldb,
            sb,
            count,
        ),
        (Srt::Potrs(u), Form::Single) => {
            solver::potrs(h, u, n, nrhs, a.one(), lda, b.one_mut(), ldb)
        }
        (Srt::Potrs(u), Form::List(_)) => {
            solver::potrs_batched(h, u, n, nrhs, &a.refs(), lda, &mut b.muts(), ldb)
        }
        (Srt::Potrs(u), Form::Strided(count)) => solver::potrs_strided_batched(
            h,
            u,
            n,
            nrhs,
            a.one(),
            lda,
            sa,
            b.one_mut(),
            ldb,
            sb,
            count,
        ),
    }
}

impl<E: T> Job for SolveRun<E> {
    fn call(&mut self, h: &mut Handle) -> Result<Status, Error> {
        solve_call(
            h,
            &self.c,
            &self.a,
            self.piv.as_ref().map(|p| &p.0),
            &mut self.b,
        )
    }

    fn call_placeholders(&self, h: &mut Handle) -> Result<Status, Error> {
        let a = self.a.placeholders();
        let mut b = self.b.placeholders();
        let piv = self
            .piv
            .as_ref()
            .map(|p| DeviceBuffer::<i32>::placeholder(p.1.len()));
        solve_call(h, &self.c, &a, piv.as_ref(), &mut b)
    }

    fn name(&self) -> String {
        format!("{} {:?} {:?}", E::NAME, self.c, self.fill)
    }

    fn host_result_bytes(&self) -> usize {
        0
    }

    fn reset(&mut self) {
        self.b.reset();
    }

    fn untouched(&self, what: &str) {
        self.b.untouched(what);
        self.inputs_untouched(what);
    }

    fn check(&self, what: &str) {
        let c = &self.c;
        let after = self.b.after();
        self.b
            .only_outputs_changed(&after, c.n, c.nrhs, c.ldb, &|_, _| true, what);
        self.inputs_untouched(what);
        let op = match c.rt {
            Srt::Getrs(op) => op,
            Srt::Potrs(_) => Op::N,
        };
        for v in 0..form_count(c.form) {
            let x = self.b.entry(&after, v, c.n, c.nrhs, c.ldb);
            let res = solve_residual(&self.ad[v].op(op), &x, &self.bd[v], E::EPS);
            assert!(
                res < RESID_MAX,
                "{what}: entry {v}: solve residual ratio {res:.3e} ≥ {RESID_MAX}"
            );
        }
    }
}

impl<E: T> SolveRun<E> {
    fn inputs_untouched(&self, what: &str) {
        self.a.untouched(&format!("{what} (A)"));
        if let Some((buf, want)) = &self.piv {
            let got = buf.to_vec().unwrap();
            assert_eq!(&got, want, "{what}: the input pivots changed");
        }
    }
}

// ---- F1, F10: factorizations on every type, form and size ---------------------------------

/// Sizes where blocking changes (panel width 32, recursion at powers of two times 32, trsm
/// leaves of 128).
const SIZES: &[usize] = &[
    0, 1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 257, 500,
];
/// The subset the other types run.
const SUB: &[usize] = &[1, 2, 31, 32, 33, 64, 65, 128, 129, 257];
/// Rectangular shapes (m > n and m < n).
const RECT: &[(usize, usize)] = &[
    (2, 1),
    (1, 2),
    (33, 31),
    (31, 33),
    (65, 32),
    (32, 65),
    (129, 64),
    (64, 129),
    (257, 128),
    (127, 255),
    (500, 129),
    (129, 500),
];
const RECT_SUB: &[(usize, usize)] = &[(2, 1), (33, 31), (32, 65), (129, 64), (64, 257)];

fn getrf_suite<E: T>(dev: &Device, seed: u64, squares: &[usize], rects: &[(usize, usize)]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = seed as usize;
    let mut cases = vec![];
    for &n in squares {
        for fill in [Fill::Random, Fill::Sep] {
            t += 1;
            cases.push((FCase::rotate(Rt::Getrf, n, n, t), fill));
        }
    }
    for (i, &(m, n)) in rects.iter().enumerate() {
        t += 1;
        let fill = [Fill::Sep, Fill::Random][i % 2];
        cases.push((FCase::rotate(Rt::Getrf, m, n, t), fill));
    }
    each(cases, |(c, fill)| {
        let mut p = prepare_fact::<E>(dev, &mut r, c, &[fill]);
        run_checked(&mut h, &mut p);
    });
}

fn f1_f10_getrf_random_and_separated_all_sizes_forms_f64(dev: &Device) {
    getrf_suite::<f64>(dev, 101, SIZES, RECT)
}
/// More rows than the permutation kernel keeps in shared memory (its hashed path) and than one
/// panel block holds (every block of the grid cooperating), single matrices only.
fn f1_getrf_tall_panels_beyond_shared_memory(dev: &Device) {
    let mut h = handle(dev);
    let mut r = Gen::new(141);
    for (t, &(m, n, fill)) in [(45000usize, 80usize, Fill::Sep), (42000, 70, Fill::Random)]
        .iter()
        .enumerate()
    {
        let c = FCase::rotate(Rt::Getrf, m, n, t).with(Form::Single, t);
        let mut p = prepare_fact::<f64>(dev, &mut r, c, &[fill]);
        run_checked(&mut h, &mut p);
    }
}

/// Tall enough that the look-ahead program's side-lane panels take leaves narrower than 64
/// columns (their rows would not fit the side lane's blocks' shared memory), with and without
/// pivoting; single matrices and a strided pair.
fn f1_getrf_lookahead_narrow_side_leaves(dev: &Device) {
    let mut h = handle(dev);
    let mut r = Gen::new(151);
    for (t, &(rt, form, fill)) in [
        (Rt::Getrf, Form::Single, Fill::Sep),
        (Rt::Npvt, Form::Single, Fill::Dominant),
        (Rt::Getrf, Form::Strided(2), Fill::Random),
    ]
    .iter()
    .enumerate()
    {
        let c = FCase::rotate(rt, 11000, 260, t).with(form, t);
        let mut p = prepare_fact::<f64>(dev, &mut r, c, &[fill]);
        run_checked(&mut h, &mut p);
    }
}

fn f1_f10_getrf_random_and_separated_sizes_forms_f32(dev: &Device) {
    getrf_suite::<f32>(dev, 102, SUB, RECT_SUB)
}
fn f1_f10_getrf_random_and_separated_sizes_forms_c32(dev: &Device) {
    getrf_suite::<Complex32>(dev, 103, SUB, RECT_SUB)
}
fn f1_f10_getrf_random_and_separated_sizes_forms_c64(dev: &Device) {
    getrf_suite::<Complex64>(dev, 104, SUB, RECT_SUB)
}

/// The pivot search takes the first row of largest `|re| + |im|` (not the modulus): a column
/// with such a choice placed after an identity block (so that the elimination before it is
/// exact) at positions around the panel and recursion boundaries.
fn pivot_choice<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut items = vec![];
    for (n, k) in [
        (4, 0),
        (8, 3),
        (40, 31),
        (40, 32),
        (70, 33),
        (70, 64),
        (130, 100),
    ] {
        for tie in [false, true] {
            items.push((n, k, tie));
        }
    }
    let mut t = 0;
    each(items, |(n, k, tie)| {
        t += 1;
        // Rows p < q of column k below the identity block hold the two candidates.
        let p = k + 1 + r.below(n - k - 2);
        let q = p + 1 + r.below(n - p - 1);
        // (value at p, value at q, expected pivot row).
        let (vp, vq, want) = match (E::CPLX, tie) {
            // |re|+|im| ties (1.5 each) where the modulus prefers q: the first, p.
            (true, true) => ((0.75, 0.75), (1.5, 0.0), p),
            // |re|+|im| 1.25 < 1.5 where the modulus prefers p (1.25 > 1.06): q.
            (true, false) => ((1.25, 0.0), (-0.75, 0.75), q),
            (false, true) => ((0.75, 0.0), (-0.75, 0.0), p),
            (false, false) => ((0.5, 0.0), (-0.75, 0.0), q),
        };
        let mut a = Dense::zeros(n, n);
        for j in 0..n {
            for i in 0..n {
                let x = if j < k || i < k {
                    if i == j {
                        ONE
                    } else {
                        ZERO
                    }
                } else if j == k {
                    // Rows above p and the others: smaller than both candidates.
                    if i == p {
                        vp
                    } else if i == q {
                        vq
                    } else {
                        rnd::<E>(&mut r, 0.2)
                    }
                } else {
                    rnd::<E>(&mut r, 1.0)
                };
                a.set(i, j, x);
            }
        }
        let c = FCase::rotate(Rt::Getrf, n, n, t).with(Form::Single, t % 3);
        let st = store::<E>(&a, c.lda, None);
        let mut run = FactRun::<E> {
            c,
            a: Placed::with_gap(dev, Form::Single, st.len(), 0, &[st], E::pnan()),
            ipiv: Some(Ints::new(dev, c.piv, vec![PIV_POISON; n + 1])),
            info: Ints::new(dev, c.info, vec![INFO_POISON; 2]),
            ad: vec![a],
            fills: vec![Fill::Random],
            want_info: vec![0],
            want_piv: vec![None],
        };
        let what = format!("{} pivot choice n={n} column {k} tie={tie}", E::NAME);
        let s = run.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(s, Status::Success, "{what}");
        run.check(&what);
        let got = run.ipiv.as_ref().unwrap().now();
        for j in 0..k {
            assert_eq!(
                got[j],
                j as i32 + 1,
                "{what}: ipiv[{j}] in the identity block"
            );
        }
        assert_eq!(
            got[k],
            want as i32 + 1,
            "{what}: ipiv[{k}] (candidates on rows {} and {}, 1-based)",
            p + 1,
            q + 1
        );
    });
}

fn f1_getrf_pivot_is_first_max_of_re_plus_im(dev: &Device) {
    pivot_choice::<f64>(dev, 111);
    pivot_choice::<f32>(dev, 112);
    pivot_choice::<Complex32>(dev, 113);
    pivot_choice::<Complex64>(dev, 114);
}

fn npvt_suite<E: T>(dev: &Device, seed: u64, squares: &[usize], rects: &[(usize, usize)]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = seed as usize;
    let mut cases: Vec<(usize, usize)> = squares.iter().map(|&n| (n, n)).collect();
    cases.extend_from_slice(rects);
    each(cases, |(m, n)| {
        t += 1;
        let c = FCase::rotate(Rt::Npvt, m, n, t);
        // Diagonally dominant, and P0 L0 U0 without P0.
        let fill = [Fill::Dominant, Fill::Sep][t % 2];
        let mut p = prepare_fact::<E>(dev, &mut r, c, &[fill]);
        run_checked(&mut h, &mut p);
    });
}

fn f1_f10_getrf_npvt_dominant_sizes_forms(dev: &Device) {
    npvt_suite::<f64>(dev, 121, SIZES, RECT);
    npvt_suite::<f32>(dev, 122, &[1, 33, 64, 129], &[(65, 32)]);
    npvt_suite::<Complex32>(dev, 123, &[2, 32, 65], &[(31, 64)]);
    npvt_suite::<Complex64>(dev, 124, &[31, 128, 257], &[(129, 63)]);
}

fn potrf_suite<E: T>(dev: &Device, seed: u64, sizes: &[usize]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = seed as usize;
    let mut cases = vec![];
    for &n in sizes {
        for uplo in [Uplo::Lower, Uplo::Upper] {
            t += 1;
            let fill = if n <= 129 && t % 3 == 0 {
                Fill::Gram
            } else {
                Fill::Hpd
            };
            cases.push((FCase::rotate(Rt::Potrf(uplo), n, n, t), fill));
        }
    }
    each(cases, |(c, fill)| {
        let mut p = prepare_fact::<E>(dev, &mut r, c, &[fill]);
        run_checked(&mut h, &mut p);
    });
}

fn f1_f10_potrf_hpd_uplos_all_sizes_forms_f64(dev: &Device) {
    potrf_suite::<f64>(dev, 131, SIZES)
}
fn f1_f10_potrf_hpd_uplos_sizes_forms_f32(dev: &Device) {
    potrf_suite::<f32>(dev, 132, SUB)
}
fn f1_f10_potrf_hpd_uplos_sizes_forms_c32(dev: &Device) {
    potrf_suite::<Complex32>(dev, 133, SUB)
}
fn f1_f10_potrf_hpd_uplos_sizes_forms_c64(dev: &Device) {
    potrf_suite::<Complex64>(dev, 134, SUB)
}

// ---- F1, F10: solves -------------------------------------------------------------------------

const NRHS: &[usize] = &[1, 2, 7, 33, 65];

fn solve_suite<E: T>(dev: &Device, seed: u64, sizes: &[usize]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = seed as usize;
    let mut cases = vec![];
    for &n in sizes {
        for rt in [
            Srt::Getrs(Op::N),
            Srt::Getrs(Op::T),
            Srt::Getrs(Op::C),
            Srt::Potrs(Uplo::Lower),
            Srt::Potrs(Uplo::Upper),
        ] {
            t += 1;
            let nrhs = NRHS[t % NRHS.len()];
            let fill = match rt {
                Srt::Getrs(_) => [Fill::Random, Fill::Dominant, Fill::Random, Fill::Sep][t % 4],
                Srt::Potrs(_) if n <= 129 && t % 2 == 0 => Fill::Gram,
                Srt::Potrs(_) => Fill::Hpd,
            };
            cases.push((SCase::rotate(rt, n, nrhs, t), fill));
        }
    }
    each(cases, |(c, fill)| {
        let mut p = prepare_solve::<E>(dev, &mut r, c, fill);
        run_checked(&mut h, &mut p);
    });
}

fn f1_f10_getrs_potrs_ops_uplos_all_sizes_forms_f64(dev: &Device) {
    solve_suite::<f64>(dev, 141, SIZES)
}
fn f1_f10_getrs_potrs_ops_uplos_sizes_forms_f32(dev: &Device) {
    solve_suite::<f32>(dev, 142, SUB)
}
fn f1_f10_getrs_potrs_ops_uplos_sizes_forms_c32(dev: &Device) {
    solve_suite::<Complex32>(dev, 143, SUB)
}
fn f1_f10_getrs_potrs_ops_uplos_sizes_forms_c64(dev: &Device) {
    solve_suite::<Complex64>(dev, 144, SUB)
}

/// getrf then getrs, potrf then potrs, all on the library: the solve of the library's own
/// factors is right.
fn end_to_end<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0;
    let mut items = vec![];
    for n in [1, 33, 65, 129] {
        for form in [Form::Single, Form::Strided(3), Form::List(2)] {
            items.push((n, form));
        }
    }
    each(items, |(n, form)| {
        t += 1;
        let nrhs = [1, 5, 17][t % 3];
        let op = [Op::N, Op::T, Op::C][t % 3];
        let uplo = [Uplo::Lower, Uplo::Upper][t % 2];
        // LU.
        let mut c = FCase::rotate(Rt::Getrf, n, n, t).with(form, t % 3);
        c.piv = Loc::Device;
        let mut f = prepare_fact::<E>(dev, &mut r, c, &[Fill::Random]);
        run_checked(&mut h, &mut f);
        let sc = SCase {
            pgap: c.pgap,
            ..SCase::new(Srt::Getrs(op), n, nrhs).with(form, c.lda - n.max(1), 2)
        };
        solve_after(dev, &mut h, &mut r, sc, &f.a, f.ipiv.as_ref(), &f.ad);
        // Cholesky.
        let c = FCase::rotate(Rt::Potrf(uplo), n, n, t).with(form, (t + 1) % 3);
        let mut f = prepare_fact::<E>(dev, &mut r, c, &[Fill::Hpd]);
        run_checked(&mut h, &mut f);
        let sc = SCase::new(Srt::Potrs(uplo), n, nrhs).with(form, c.lda - n.max(1), 1);
        solve_after(dev, &mut h, &mut r, sc, &f.a, None, &f.ad);
    });
}

/// Solves with the factors `a` (and pivots) a factorization left, checks against `ad`.
fn solve_after<E: T>(
    dev: &Device,
    h: &mut Handle,
    r: &mut Gen,
    c: SCase,
    a: &Placed<E>,
    ipiv: Option<&Ints>,
    ad: &[Dense],
) {
    let count = form_count(c.form);
    let (mut bst, mut bd) = (vec![], vec![]);
    for _ in 0..count {
        let b = gen_random::<E>(c.n, c.nrhs, r);
        bst.push(store::<E>(&b, c.ldb, None));
        bd.push(b);
    }
    let factors = Placed {
        form: a.form,
        stride: a.stride,
        bufs: a.bufs.iter().map(|b| a_copy(dev, b)).collect(),
        before: a.after(),
    };
    let piv = ipiv.map(|p| {
        let v = p.now();
        (dev.upload(&v).unwrap(), v)
    });
    let mut run = SolveRun::<E> {
        c,
        a: factors,
        piv,
        b: Placed::with_gap(dev, c.form, span(c.n, c.nrhs, c.ldb), 3, &bst, E::pnan()),
        ad: ad.to_vec(),
        bd,
        fill: Fill::Random,
    };
    run_checked(h, &mut run);
}

fn a_copy<E: El>(dev: &Device, b: &DeviceBuffer<E>) -> DeviceBuffer<E> {
    dev.upload(&b.to_vec().unwrap()).unwrap()
}

fn f1_getrf_getrs_potrf_potrs_end_to_end(dev: &Device) {
    end_to_end::<f64>(dev, 151);
    end_to_end::<f32>(dev, 152);
    end_to_end::<Complex32>(dev, 153);
    end_to_end::<Complex64>(dev, 154);
}

// ---- F5: info ------------------------------------------------------------------------------

/// Exactly singular matrices: a zero column (at panel and recursion boundaries, two of them,
/// the last one) and a column that is a combination of the earlier ones: `info` is the first
/// zero pivot (1-based), the pivots are the reference's, the factorization is completed
/// (finite, residual bound). Batches mix singular and regular entries: each entry's `info`
/// lands in its own place.
fn singular_lu<E: T>(dev: &Device, seed: u64, sizes: &[usize]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0;
    let mut items = vec![];
    for &n in sizes {
        let ks: Vec<usize> = [0, 1, 5, 31, 32, 33, 64, 100, n - 1]
            .into_iter()
            .filter(|&k| k < n)
            .collect();
        for (i, &k) in ks.iter().enumerate() {
            for rt in [Rt::Getrf, Rt::Npvt] {
                let second = (i % 3 == 1 && k + 3 < n).then_some(k + 3);
                items.push((rt, n, n, Fill::ZeroCol(k, second)));
            }
        }
        // Rectangular: m > n and m < n.
        items.push((Rt::Getrf, n + 7, n, Fill::ZeroCol(n / 2, None)));
        items.push((Rt::Getrf, n, n + 9, Fill::ZeroCol(n - 1, None)));
        for k in [0, 3, 17, 31] {
            if k < n {
                items.push((Rt::Getrf, n, n, Fill::Deficient(k)));
                items.push((Rt::Npvt, n, n, Fill::Deficient(k)));
            }
        }
    }
    each(items, |(rt, m, n, fill)| {
        t += 1;
        let c = FCase::rotate(rt, m, n, t);
        // Regular entries between the singular ones in batches.
        let other = if rt == Rt::Getrf {
            Fill::Sep
        } else {
            Fill::Dominant
        };
        let fills = [fill, other, fill];
        let mut p = prepare_fact::<E>(dev, &mut r, c, &fills);
        run_checked(&mut h, &mut p);
    });
}

fn f5_getrf_info_is_first_exact_zero_pivot_f64(dev: &Device) {
    singular_lu::<f64>(dev, 161, &[2, 33, 65, 129, 257])
}
fn f5_getrf_info_is_first_exact_zero_pivot_other_types(dev: &Device) {
    singular_lu::<f32>(dev, 162, &[8, 65]);
    singular_lu::<Complex32>(dev, 163, &[33]);
    singular_lu::<Complex64>(dev, 164, &[5, 129]);
}

/// HPD matrices with the leading minor of order `k` broken (a negative or zero `A(k−1, k−1)`):
/// `info = k`, the unstored triangle untouched; batches mix broken and regular entries.
fn not_pd<E: T>(dev: &Device, seed: u64, sizes: &[usize]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0;
    let mut items = vec![];
    for &n in sizes {
        for k in [1, 2, 31, 32, 33, 64, 65, 100, 128, 129, 200, n] {
            if k <= n {
                for uplo in [Uplo::Lower, Uplo::Upper] {
                    items.push((n, k, uplo));
                }
            }
        }
    }
    each(items, |(n, k, uplo)| {
        t += 1;
        let c = FCase::rotate(Rt::Potrf(uplo), n, n, t);
        let v = [-1.0, 0.0][t % 2];
        let fills = [Fill::NotPd(k, v), Fill::Hpd, Fill::NotPd((k / 2).max(1), v)];
        let mut p = prepare_fact::<E>(dev, &mut r, c, &fills);
        run_checked(&mut h, &mut p);
    });
}

fn f5_potrf_info_is_first_broken_leading_minor(dev: &Device) {
    not_pd::<f64>(dev, 171, &[1, 33, 65, 129, 257]);
    not_pd::<f32>(dev, 172, &[40]);
    not_pd::<Complex32>(dev, 173, &[65]);
    not_pd::<Complex64>(dev, 174, &[2, 129]);
}

/// Runs `f` on another thread; fails if it has not finished after `secs` seconds.
fn within(secs: u64, what: &str, f: impl FnOnce() + Send + 'static) {
    let (tx, rx) = std::sync::mpsc::channel();
    let th = std::thread::spawn(move || {
        f();
        let _ = tx.send(());
    });
    match rx.recv_timeout(std::time::Duration::from_secs(secs)) {
        Ok(()) => th.join().unwrap(),
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what}: still running after {secs} s (a hang?)")
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            if let Err(p) = th.join() {
                std::panic::resume_unwind(p)
            }
        }
    }
}

/// Where NaN goes in an input.
#[derive(Clone, Copy, Debug)]
enum NanAt {
    All,
    One(usize, usize),
    Col(usize),
    Inf(usize, usize),
}

fn poison_nan(a: &mut Dense, at: NanAt, hermitian: bool) {
    let n = a.c;
    let nan = (f64::NAN, f64::NAN);
    match at {
        NanAt::All => a.v.iter_mut().for_each(|x| *x = nan),
        NanAt::One(i, j) => {
            a.set(i, j, nan);
            if hermitian {
                a.set(j, i, nan);
            }
        }
        NanAt::Col(j) => {
            for i in 0..a.r {
                a.set(i, j, nan);
                if hermitian && i < n {
                    a.set(j, i, nan);
                }
            }
        }
        NanAt::Inf(i, j) => {
            a.set(i, j, (f64::INFINITY, 0.0));
            if hermitian {
                a.set(j, i, (f64::INFINITY, 0.0));
            }
        }
    }
}

/// NaN (and infinity) in the inputs: every routine returns `Success`, finishes, writes only its
/// outputs, and its pivots stay valid rows and its `info` in range.
fn nan_inputs<E: T>(dev: &Device, seed: u64) {
    let mut r = Gen::new(seed);
    let mut h = handle(dev);
    let mut t = 0;
    let mut items = vec![];
    for n in [1, 33, 65, 129] {
        for at in [
            NanAt::All,
            NanAt::One(n / 2, n / 3),
            NanAt::Col(n - 1),
            NanAt::Col(0),
            NanAt::Inf(n - 1, 0),
        ] {
            items.push((n, at));
        }
    }
    each(items, |(n, at)| {
        t += 1;
        for rt in [
            Rt::Getrf,
            Rt::Npvt,
            Rt::Potrf(Uplo::Lower),
            Rt::Potrf(Uplo::Upper),
        ] {
            let hermitian = matches!(rt, Rt::Potrf(_));
            let c = FCase::rotate(rt, n, n, t).with([Form::Single, Form::Strided(2)][t % 2], 1);
            let fill = if hermitian { Fill::Hpd } else { Fill::Random };
            let mut p = prepare_fact::<E>(dev, &mut r, c, &[fill]);
            // Replace the values by NaN-poisoned ones and upload again.
            let tri = match rt {
                Rt::Potrf(u) => Some(u),
                _ => None,
            };
            let mut entries = vec![];
            for d in p.ad.iter_mut() {
                poison_nan(d, at, hermitian);
                entries.push(store::<E>(d, c.lda, tri));
            }
            p.a = Placed::with_gap(dev, c.form, span(n, n, c.lda), c.gap, &entries, E::pnan());
            let what = format!("{} NaN at {at:?}", p.name());
            let count = form_count(c.form);
            let mut hh = std::mem::replace(&mut h, handle(dev));
            let w = what.clone();
            let (tx, rx) = std::sync::mpsc::channel();
            within(120, &what, move || {
                let st = p.call(&mut hh).unwrap_or_else(|e| panic!("{w}: {e}"));
                assert_eq!(st, Status::Success, "{w}");
                let _ = tx.send((p, hh));
            });
            let (p, hh) = rx.recv().unwrap();
            h = hh;
            let after = p.a.after();
            let is_out = |i: usize, j: usize| match tri {
                None => true,
                Some(Uplo::Lower) => i >= j,
                Some(Uplo::Upper) => i <= j,
            };
            p.a.only_outputs_changed(&after, n, n, c.lda, &is_out, &what);
            let info = p.info.now();
            for v in 0..count {
                assert!(
                    (0..=n as i32).contains(&info[v]),
                    "{what}: entry {v}: info = {}",
                    info[v]
                );
            }
            assert_eq!(info[count], INFO_POISON, "{what}: info past the batch");
            if let Some(ip) = &p.ipiv {
                let got = ip.now();
                for v in 0..count {
                    for j in 0..n {
                        let x = got[v * c.stride_piv() + j];
                        assert!(
                            x > j as i32 && x <= n as i32,
                            "{what}: entry {v}: ipiv[{j}] = {x}"
                        );
                    }
                }
            }
        }
        // Solves with NaN in the right-hand sides and in the factors.
        for rt in [
            Srt::Getrs(Op::N),
            Srt::Getrs(Op::C),
            Srt::Potrs(Uplo::Upper),
        ] {
            let c = SCase::rotate(rt, n, 3, t).with(Form::Single, 1, 2);
            let mut s = prepare_solve::<E>(dev, &mut r, c, Fill::Random);
            for (idx, d) in s.bd.iter_mut().enumerate() {
                poison_nan(d, [NanAt::Col(1), NanAt::All][idx % 2], false);
            }
            let bst: Vec<Vec<E>> = s.bd.iter().map(|d| store::<E>(d, c.ldb, None)).collect();
            s.b = Placed::with_gap(dev, c.form, span(n, 3, c.ldb), 0, &bst, E::pnan());
            let mut a0 = s.a.after();
            a0[0][0] = E::make(f64::NAN, 0.0);
            s.a = Placed::with_gap(
                dev,
                Form::Single,
                a0[0].len() - 1,
                0,
                &[a0[0][..a0[0].len() - 1].to_vec()],
                E::pnan(),
            );
            let what = format!("{} NaN in the factor and B", s.name());
            let mut hh = std::mem::replace(&mut h, handle(dev));
            let w = what.clone();
            let (tx, rx) = std::sync::mpsc::channel();
            within(120, &what, move || {
                let st = s.call(&mut hh).unwrap_or_else(|e| panic!("{w}: {e}"));
                assert_eq!(st, Status::Success, "{w}");
                let _ = tx.send((s, hh));
            });
            let (s, hh) = rx.recv().unwrap();
            h = hh;
            let after = s.b.after();
            s.b.only_outputs_changed(&after, n, 3, c.ldb, &|_, _| true, &what);
            s.inputs_untouched(&what);
        }
    });
}

fn f5_nan_inputs_finish_with_success(dev: &Device) {
    nan_inputs::<f64>(dev, 181);
    nan_inputs::<Complex32>(dev, 182);
}

// ---- F3: quick returns -----------------------------------------------------------------------

/// m = 0 or n = 0 (and nrhs = 0), and batches of 0: `Success`, nothing read (every operand
/// NaN), nothing written (`info` may be set to 0 for the entries of an empty factorization).
fn quick<E: T>(dev: &Device) {
    let mut h = handle(dev);
    let mut t = 0;
    for form in [
        Form::Single,
        Form::List(3),
        Form::Strided(3),
        Form::List(0),
        Form::Strided(0),
    ] {
        let count = form_count(form);
        for rt in [
            Rt::Getrf,
            Rt::Npvt,
            Rt::Potrf(Uplo::Lower),
            Rt::Potrf(Uplo::Upper),
        ] {
            let shapes: &[(usize, usize)] = match rt {
                Rt::Potrf(_) => &[(0, 0)],
                _ => &[(0, 5), (4, 0), (0, 0)],
            };
            for &(m, n) in shapes {
                t += 1;
                let mut c = FCase::rotate(rt, m, n, t).with(form, t % 2);
                c.pgap = t % 2;
                let s = span(m, n, c.lda);
                let entries = vec![vec![E::pnan(); s]; count];
                let a = Placed::with_gap(dev, form, s, 2, &entries, E::pnan());
                let ipiv = (rt == Rt::Getrf).then(|| Ints::new(dev, c.piv, vec![PIV_POISON; 4]));
                let info = Ints::new(dev, c.info, vec![INFO_POISON; count + 1]);
                let mut run = FactRun::<E> {
                    c,
                    a,
                    ipiv,
                    info,
                    ad: vec![],
                    fills: vec![],
                    want_info: vec![],
                    want_piv: vec![],
                };
                let what = format!("{} quick return {c:?}", E::NAME);
                let st = run.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(st, Status::Success, "{what}");
                run.a.untouched(&what);
                if let Some(p) = &run.ipiv {
                    p.untouched(&format!("{what} (ipiv)"));
                }
                let info = run.info.now();
                for v in 0..count {
                    assert!(
                        info[v] == INFO_POISON || info[v] == 0,
                        "{what}: info[{v}] = {}",
                        info[v]
                    );
                }
                assert_eq!(info[count], INFO_POISON, "{what}: info past the batch");
            }
        }
        for rt in [
            Srt::Getrs(Op::N),
            Srt::Getrs(Op::C),
            Srt::Potrs(Uplo::Lower),
            Srt::Potrs(Uplo::Upper),
        ] {
            for (n, nrhs) in [(0, 3), (4, 0), (0, 0)] {
                t += 1;
                let mut c = SCase::rotate(rt, n, nrhs, t).with(form, t % 2, (t + 1) % 2);
                c.pgap = t % 3;
                let sa = span(n, n, c.lda);
                let sb = span(n, nrhs, c.ldb);
                let a = Placed::with_gap(
                    dev,
                    form,
                    sa,
                    1,
                    &vec![vec![E::pnan(); sa]; count],
                    E::pnan(),
                );
                let b = Placed::with_gap(
                    dev,
                    form,
                    sb,
                    2,
                    &vec![vec![E::pnan(); sb]; count],
                    E::pnan(),
                );
                let pv = vec![PIV_GAP; count * c.stride_piv() + 1];
                let piv = matches!(rt, Srt::Getrs(_)).then(|| (dev.upload(&pv).unwrap(), pv));
                let mut run = SolveRun::<E> {
                    c,
                    a,
                    piv,
                    b,
                    ad: vec![],
                    bd: vec![],
                    fill: Fill::Random,
                };
                let what = format!("{} quick return {c:?}", E::NAME);
                let st = run.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(st, Status::Success, "{what}");
                run.untouched(&what);
            }
        }
    }
    // n > 0 with a batch of 0: nothing at all.
    for form in [Form::List(0), Form::Strided(0)] {
        for rt in [Rt::Getrf, Rt::Npvt, Rt::Potrf(Uplo::Upper)] {
            t += 1;
            let c = FCase::rotate(rt, 5, 5, t).with(form, 1);
            let mut run = prepare_fact::<E>(dev, &mut Gen::new(t as u64), c, &[Fill::Hpd]);
            let what = format!("{} batch 0 {c:?}", E::NAME);
            let st = run.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(st, Status::Success, "{what}");
            run.untouched(&what);
        }
        for rt in [Srt::Getrs(Op::T), Srt::Potrs(Uplo::Lower)] {
            t += 1;
            let c = SCase::rotate(rt, 5, 2, t).with(form, 1, 0);
            let mut run = prepare_solve::<E>(dev, &mut Gen::new(t as u64), c, Fill::Hpd);
            let what = format!("{} batch 0 {c:?}", E::NAME);
            let st = run.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(st, Status::Success, "{what}");
            run.untouched(&what);
        }
    }
}

fn f3_quick_returns_touch_nothing(dev: &Device) {
    quick::<f32>(dev);
    quick::<Complex64>(dev);
}

// ---- F6: results in device memory --------------------------------------------------------------

/// The same factorizations with pivots and `info` in host memory and in device memory (and
/// mixed): the same pivots and `info`, read back from the device buffer after the call.
fn f6_device_results_equal_host_results(dev: &Device) {
    let mut h = handle(dev);
    let mut r = Gen::new(191);
    let mut items = vec![];
    for (n, form) in [
        (33, Form::Single),
        (65, Form::Strided(4)),
        (129, Form::List(3)),
        (300, Form::Single),
    ] {
        for rt in [Rt::Getrf, Rt::Npvt, Rt::Potrf(Uplo::Upper)] {
            items.push((n, form, rt));
        }
    }
    each(items, |(n, form, rt)| {
        let fills = match rt {
            Rt::Getrf => [Fill::Sep, Fill::ZeroCol(n / 3, None), Fill::Random],
            Rt::Npvt => [Fill::Dominant, Fill::ZeroCol(n / 2, None), Fill::Dominant],
            Rt::Potrf(_) => [Fill::Hpd, Fill::NotPd(n / 2 + 1, -1.0), Fill::Gram],
        };
        let mut seen: Vec<(Vec<i32>, Vec<i32>)> = vec![];
        for (pl, il) in [
            (Loc::Host, Loc::Host),
            (Loc::Device, Loc::Device),
            (Loc::Device, Loc::Host),
            (Loc::Host, Loc::Device),
        ] {
            let mut c = FCase::new(rt, n, n).with(form, 1);
            c.pgap = 2;
            c.gap = 3;
            c.piv = pl;
            c.info = il;
            let mut p = prepare_fact::<f64>(dev, &mut r.clone(), c, &fills);
            run_checked(&mut h, &mut p);
            seen.push((
                p.ipiv.as_ref().map(|x| x.now()).unwrap_or_default(),
                p.info.now(),
            ));
        }
        for s in &seen[1..] {
            assert_eq!(
                s, &seen[0],
                "{rt:?} n={n} {form:?}: results differ by where they go"
            );
        }
        r.next();
    });
}

// ---- M8, M9: query, preallocate, Success -------------------------------------------------------

/// The workspace a query with placeholders asks for; checks the query's status.
fn query(dev: &Device, job: &dyn Job) -> usize {
    let name = job.name();
    let mut q = fixed_handle(dev, 0);
    q.start_device_memory_size_query().unwrap();
    let st = job
        .call_placeholders(&mut q)
        .unwrap_or_else(|e| panic!("{name}: query: {e}"));
    assert!(
        matches!(st, Status::SizeIncreased | Status::SizeUnchanged),
        "{name}: {st:?}"
    );
    let size = q.stop_device_memory_size_query().unwrap();
    assert_eq!(
        st == Status::SizeIncreased,
        size > 0,
        "{name}: {st:?} with size {size}"
    );
    assert_eq!(
        size % 64,
        0,
        "{name}: the query's {size} bytes are not whole chunks"
    );
    size
}

/// Query (placeholders, then the real operands, which must come back untouched and ask for
/// the same), then a handle of exactly that size: `Success`, the right answer, no growth.
fn m9_one(dev: &Device, job: &mut dyn Job) {
    let name = job.name();
    let size = query(dev, job);
    let mut q = fixed_handle(dev, 0);
    q.start_device_memory_size_query().unwrap();
    let _ = job
        .call(&mut q)
        .unwrap_or_else(|e| panic!("{name}: query: {e}"));
    job.untouched(&format!("{name}: during a query"));
    assert_eq!(
        q.stop_device_memory_size_query().unwrap(),
        size,
        "{name}: real operands"
    );
    assert_eq!(q.get_device_memory_size(), 0, "{name}: a query allocated");
    let mut h = fixed_handle(dev, size);
    let st = job
        .call(&mut h)
        .unwrap_or_else(|e| panic!("{name}: workspace {size}: {e}"));
    assert_eq!(
        st,
        Status::Success,
        "{name}: workspace of the query's {size} bytes"
    );
    job.check(&name);
    let s = h.workspace_stats();
    assert_eq!(
        (s.memory_errors, s.degraded_calls, s.growths),
        (0, 0, 0),
        "{name}: {s}"
    );
}

/// The seed's example: the workspace of a 1024 × 1024 system with one right-hand side
/// (`getrf` then `getrs`) asked with placeholders, then allocated: both calls `Success`, the
/// solve right.
fn m09_query_getrf_getrs_1024(dev: &Device) {
    let n = 1024;
    let (lda, ldb) = (n, n);
    let mut h = handle(dev);
    h.start_device_memory_size_query().unwrap();
    let mut pa = DeviceBuffer::<f64>::placeholder(n * lda);
    let mut pp = DeviceBuffer::<i32>::placeholder(n);
    let mut pi = DeviceBuffer::<i32>::placeholder(1);
    let s1 = solver::getrf(
        &mut h,
        n,
        n,
        &mut pa,
        lda,
        Results::Device(&mut pp),
        Results::Device(&mut pi),
    )
    .unwrap();
    let mut pb = DeviceBuffer::<f64>::placeholder(ldb);
    let s2 = solver::getrs(&mut h, Op::N, n, 1, &pa, lda, &pp, &mut pb, ldb).unwrap();
    for s in [s1, s2] {
        assert!(
            matches!(s, Status::SizeIncreased | Status::SizeUnchanged),
            "{s:?}"
        );
    }
    let need = h.stop_device_memory_size_query().unwrap();
    eprintln!("getrf + getrs 1024 f64: the query asks for {need} bytes");
    let _ = h.set_device_memory_size(need).unwrap();
    assert_eq!(h.get_device_memory_size(), need);
    h.reset_workspace_stats();
    let mut r = Gen::new(201);
    let ad = gen_random::<f64>(n, n, &mut r);
    let bd = gen_random::<f64>(n, 1, &mut r);
    let mut a = dev.upload(&store::<f64>(&ad, lda, None)).unwrap();
    let mut b = dev.upload(&store::<f64>(&bd, ldb, None)).unwrap();
    let mut ipiv = dev.upload(&vec![PIV_POISON; n]).unwrap();
    let mut info = dev.upload(&[INFO_POISON]).unwrap();
    let s1 = solver::getrf(
        &mut h,
        n,
        n,
        &mut a,
        lda,
        Results::Device(&mut ipiv),
        Results::Device(&mut info),
    )
    .unwrap();
    let s2 = solver::getrs(&mut h, Op::N, n, 1, &a, lda, &ipiv, &mut b, ldb).unwrap();
    assert_eq!((s1, s2), (Status::Success, Status::Success));
    assert_eq!(info.to_vec().unwrap(), vec![0]);
    let piv = ipiv.to_vec().unwrap();
    for (j, &p) in piv.iter().enumerate() {
        assert!(p > j as i32 && p <= n as i32, "ipiv[{j}] = {p}");
    }
    let x: Vec<f64> = b.to_vec().unwrap();
    let xd = Dense {
        r: n,
        c: 1,
        v: x.iter().map(|&v| (v, 0.0)).collect(),
    };
    let res = solve_residual(&ad, &xd, &bd, f64::EPSILON);
    assert!(res < RESID_MAX, "solve residual ratio {res:.3e}");
    let s = h.workspace_stats();
    assert_eq!(
        (s.memory_errors, s.degraded_calls, s.growths),
        (0, 0, 0),
        "{s}"
    );
}

/// Cases of the query, workspace and batch tests: every routine, type and layout.
fn jobs(dev: &Device, r: &mut Gen, big: bool) -> Vec<Box<dyn Job>> {
    let mut v: Vec<Box<dyn Job>> = vec![];
    let f = |rt, m, n, form, pl, il| {
        let mut c = FCase::new(rt, m, n).with(form, 1);
        c.piv = pl;
        c.info = il;
        c.gap = 2;
        c.pgap = 1;
        c
    };
    use Form::{List, Single, Strided};
    use Loc::{Device as D, Host as H};
    let s = if big { 500 } else { 257 };
    v.push(Box::new(prepare_fact::<f64>(
        dev,
        r,
        f(Rt::Getrf, s, s, Single, D, D),
        &[Fill::Sep],
    )));
    v.push(Box::new(prepare_fact::<f64>(
        dev,
        r,
        f(Rt::Getrf, 129, 129, Single, H, H),
        &[Fill::Sep],
    )));
    v.push(Box::new(prepare_fact::<f64>(
        dev,
        r,
        f(Rt::Getrf, 257, 129, Strided(3), D, H),
        &[Fill::Sep, Fill::ZeroCol(40, None)],
    )));
    v.push(Box::new(prepare_fact::<Complex32>(
        dev,
        r,
        f(Rt::Getrf, 65, 129, List(2), H, D),
        &[Fill::Sep],
    )));
    v.push(Box::new(prepare_fact::<f32>(
        dev,
        r,
        f(Rt::Getrf, 65, 65, List(7), D, D),
        &[Fill::Sep, Fill::ZeroCol(33, None)],
    )));
    v.push(Box::new(prepare_fact::<Complex64>(
        dev,
        r,
        f(Rt::Getrf, 33, 33, Strided(7), H, H),
        &[Fill::Sep],
    )));
    v.push(Box::new(prepare_fact::<f64>(
        dev,
        r,
        f(Rt::Npvt, s, s, Single, D, H),
        &[Fill::Dominant],
    )));
    v.push(Box::new(prepare_fact::<Complex64>(
        dev,
        r,
        f(Rt::Npvt, 129, 65, Strided(3), D, D),
        &[Fill::Dominant],
    )));
    v.push(Box::new(prepare_fact::<f64>(
        dev,
        r,
        f(Rt::Potrf(Uplo::Lower), s, s, Single, D, D),
        &[Fill::Hpd],
    )));
    v.push(Box::new(prepare_fact::<f64>(
        dev,
        r,
        f(Rt::Potrf(Uplo::Upper), 129, 129, Strided(3), D, H),
        &[Fill::Hpd, Fill::NotPd(70, -1.0)],
    )));
    v.push(Box::new(prepare_fact::<Complex32>(
        dev,
        r,
        f(Rt::Potrf(Uplo::Lower), 65, 65, List(7), D, D),
        &[Fill::Gram],
    )));
    let sc = |rt, n, nrhs, form| {
        let mut c = SCase::new(rt, n, nrhs).with(form, 1, 2);
        c.gap = 1;
        c.pgap = 2;
        c
    };
    v.push(Box::new(prepare_solve::<f64>(
        dev,
        r,
        sc(Srt::Getrs(Op::N), s, 1, Single),
        Fill::Random,
    )));
    v.push(Box::new(prepare_solve::<f64>(
        dev,
        r,
        sc(Srt::Getrs(Op::T), 129, 65, Strided(3)),
        Fill::Random,
    )));
    v.push(Box::new(prepare_solve::<Complex64>(
        dev,
        r,
        sc(Srt::Getrs(Op::C), 65, 7, List(7)),
        Fill::Random,
    )));
    v.push(Box::new(prepare_solve::<f32>(
        dev,
        r,
        sc(Srt::Getrs(Op::N), 129, 33, List(2)),
        Fill::Dominant,
    )));
    v.push(Box::new(prepare_solve::<f64>(
        dev,
        r,
        sc(Srt::Potrs(Uplo::Upper), s, 3, Single),
        Fill::Hpd,
    )));
    v.push(Box::new(prepare_solve::<Complex32>(
        dev,
        r,
        sc(Srt::Potrs(Uplo::Lower), 129, 17, Strided(3)),
        Fill::Hpd,
    )));
    v.push(Box::new(prepare_solve::<f64>(
        dev,
        r,
        sc(Srt::Potrs(Uplo::Lower), 65, 2, List(7)),
        Fill::Gram,
    )));
    v
}

fn m08_m09_query_then_preallocate_runs_as_planned(dev: &Device) {
    let mut r = Gen::new(211);
    each(jobs(dev, &mut r, true), |mut job| m9_one(dev, &mut *job));
}

/// During a query the size and shape arguments are checked (a bad one is an error), nothing
/// is allocated, and routines take placeholders for every operand.
fn m08_query_checks_sizes_and_takes_placeholders(dev: &Device) {
    let mut h = fixed_handle(dev, 0);
    h.start_device_memory_size_query().unwrap();
    let mut pa = DeviceBuffer::<f64>::placeholder(100);
    let mut pp = DeviceBuffer::<i32>::placeholder(10);
    let mut pi = DeviceBuffer::<i32>::placeholder(1);
    let e = solver::getrf(
        &mut h,
        10,
        10,
        &mut pa,
        9,
        Results::Device(&mut pp),
        Results::Device(&mut pi),
    );
    expect_err(e, is_size, &["lda"], "getrf lda < m during a query");
    let e = solver::potrf(
        &mut h,
        Uplo::Upper,
        10,
        &mut pa,
        5,
        Results::Device(&mut pi),
    );
    expect_err(e, is_size, &["lda"], "potrf lda < n during a query");
    let mut pb = DeviceBuffer::<f64>::placeholder(100);
    let e = solver::getrs(&mut h, Op::T, 10, 2, &pa, 10, &pp, &mut pb, 9);
    expect_err(e, is_size, &["ldb"], "getrs ldb < n during a query");
    let st = solver::getrf_npvt_strided_batched(
        &mut h,
        10,
        10,
        &mut pa,
        10,
        100,
        Results::Device(&mut pi),
        1,
    )
    .unwrap();
    assert!(matches!(st, Status::SizeIncreased | Status::SizeUnchanged));
    let st = solver::potrs(&mut h, Uplo::Lower, 10, 2, &pa, 10, &mut pb, 10).unwrap();
    assert!(matches!(st, Status::SizeIncreased | Status::SizeUnchanged));
    let _ = h.stop_device_memory_size_query().unwrap();
    assert_eq!(h.get_device_memory_size(), 0);
    expect_errs_done();
}

// ---- M6, F8: small fixed workspaces ------------------------------------------------------------

const KIB: usize = 1024;

/// Host-routed results of one entry above which 1 KiB may be too small even for the reduced
/// algorithms (the results are gathered in the workspace).
const HOST_RESULTS_MAY_NOT_FIT: usize = 256;

/// In a fixed 1 KiB workspace: `Success` if the query asks for no more, else `PerfDegraded`
/// with the right answer; `MemoryError` (needs > 1 KiB, both sizes named, outputs untouched)
/// only where the results of one entry routed to host memory take more than
/// `HOST_RESULTS_MAY_NOT_FIT` bytes (pivots of order 64 and more).
fn in_1kib(dev: &Device, job: &mut dyn Job) {
    let name = job.name();
    let size = query(dev, job);
    let mut h = handle(dev);
    let _ = h.set_device_memory_size(KIB).unwrap();
    assert!(h.is_user_managing_device_memory());
    job.reset();
    match job.call(&mut h) {
        Ok(st) => {
            let want = if size > KIB {
                Status::PerfDegraded
            } else {
                Status::Success
            };
            eprintln!("{name}: query {size} bytes, in 1 KiB {st:?}");
            assert_eq!(st, want, "{name}: 1 KiB workspace, the query said {size}");
            job.check(&format!("{name} (1 KiB workspace)"));
            let s = h.workspace_stats();
            assert_eq!(s.degraded_calls, (size > KIB) as u64, "{name}: {s}");
            assert_eq!((s.memory_errors, s.growths), (0, 0), "{name}: {s}");
        }
        Err(e @ Error::MemoryError { .. }) => {
            eprintln!("{name}: query {size} bytes, in 1 KiB: {e}");
            let Error::MemoryError {
                needed, available, ..
            } = &e
            else {
                unreachable!()
            };
            assert!(
                job.host_result_bytes() > HOST_RESULTS_MAY_NOT_FIT,
                "{name}: no reduced algorithm in 1 KiB with {} bytes of host-routed results per entry: {e}",
                job.host_result_bytes()
            );
            assert!(size > KIB && *needed > *available, "{name}: {e}");
            assert_eq!(*available, KIB, "{name}: {e}");
            let text = e.to_string();
            assert!(
                text.contains(&needed.to_string()) && text.contains(&available.to_string()),
                "{name}: {text}"
            );
            job.untouched(&format!("{name}: memory error"));
            assert_eq!(h.workspace_stats().memory_errors, 1, "{name}");
        }
        Err(e) => panic!("{name}: 1 KiB workspace: {e}"),
    }
    assert_eq!(h.get_device_memory_size(), KIB);
}

fn m06_in_1kib_degrades_with_right_answers(dev: &Device) {
    let mut r = Gen::new(221);
    each(jobs(dev, &mut r, false), |mut job| in_1kib(dev, &mut *job));
}

/// F8: a batch whose need grows with the batch count, in a fixed workspace of the need of one
/// entry: runs (in chunks: `PerfDegraded` when the whole batch needs more), the same answers,
/// each entry's `info` and pivots in their own place.
fn f8_batches_run_in_chunks_in_a_one_entry_workspace(dev: &Device) {
    let mut r = Gen::new(231);
    use Form::{List, Strided};
    let mut items: Vec<(Box<dyn Job>, Box<dyn Job>)> = vec![];
    let fc = |rt, n, form, pl: Loc, il: Loc| {
        let mut c = FCase::new(rt, n, n).with(form, 2);
        c.piv = pl;
        c.info = il;
        c.gap = 1;
        c.pgap = 2;
        c
    };
    for (n, form, pl, il) in [
        (65, Strided(7), Loc::Device, Loc::Device),
        (65, List(9), Loc::Host, Loc::Host),
        (33, Strided(40), Loc::Host, Loc::Device),
        (129, List(5), Loc::Device, Loc::Host),
    ] {
        let c = fc(Rt::Getrf, n, form, pl, il);
        let getrf_fills = [
            Fill::Sep,
            Fill::ZeroCol(5, None),
            Fill::Sep,
            Fill::ZeroCol(n * 2 / 3, Some(n - 1)),
        ];
        let one = prepare_fact::<f64>(dev, &mut r, c.with(with_count(form, 1), 2), &getrf_fills);
        let all = prepare_fact::<f64>(dev, &mut r, c, &getrf_fills);
        items.push((Box::new(one), Box::new(all)));
    }
    let c = fc(Rt::Npvt, 64, Strided(9), Loc::Device, Loc::Host);
    let fills = [Fill::Dominant, Fill::ZeroCol(20, None)];
    let one = prepare_fact::<Complex32>(dev, &mut r, c.with(Strided(1), 2), &fills);
    let all = prepare_fact::<Complex32>(dev, &mut r, c, &fills);
    items.push((Box::new(one), Box::new(all)));
    for (uplo, n, form, il) in [
        (Uplo::Lower, 65, List(7), Loc::Host),
        (Uplo::Upper, 33, Strided(12), Loc::Device),
    ] {
        let c = fc(Rt::Potrf(uplo), n, form, Loc::Device, il);
        let fills = [Fill::Hpd, Fill::NotPd(n / 2, -1.0), Fill::Gram];
        let one = prepare_fact::<f64>(dev, &mut r, c.with(with_count(form, 1), 2), &fills);
        let all = prepare_fact::<f64>(dev, &mut r, c, &fills);
        items.push((Box::new(one), Box::new(all)));
    }
    for (rt, n, nrhs, form) in [
        (Srt::Getrs(Op::N), 65, 3, Strided(7)),
        (Srt::Getrs(Op::C), 33, 17, List(7)),
        (Srt::Potrs(Uplo::Upper), 65, 2, Strided(7)),
        (Srt::Potrs(Uplo::Lower), 129, 1, List(4)),
    ] {
        let mut c = SCase::new(rt, n, nrhs).with(form, 1, 2);
        c.gap = 2;
        c.pgap = 1;
        let one = prepare_solve::<Complex64>(
            dev,
            &mut r,
            c.with(with_count(form, 1), 1, 2),
            Fill::Random,
        );
        let all = prepare_solve::<Complex64>(dev, &mut r, c, Fill::Random);
        items.push((Box::new(one), Box::new(all)));
    }
    each(items, |(one, mut all)| {
        let name = all.name();
        let ws = query(dev, &*one).max(64);
        let full = query(dev, &*all);
        let mut h = fixed_handle(dev, ws);
        let st = all
            .call(&mut h)
            .unwrap_or_else(|e| panic!("{name}: workspace of one entry ({ws} bytes): {e}"));
        eprintln!("{name}: one entry {ws} bytes, the batch {full}: {st:?}");
        let want = if full > ws {
            Status::PerfDegraded
        } else {
            Status::Success
        };
        assert_eq!(st, want, "{name}: one entry needs {ws}, the batch {full}");
        all.check(&format!("{name} (workspace of one entry)"));
        let s = h.workspace_stats();
        assert_eq!((s.memory_errors, s.growths), (0, 0), "{name}: {s}");
    });
}

// ---- F7, F9: bad arguments ---------------------------------------------------------------------

thread_local! {
    /// Failed error expectations of the running test, reported together by `expect_errs_done`.
    static ERR_FAILURES: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(vec![]) };
}

/// Expects an error of the kind whose message names `parts` (case-insensitive); a mismatch is
/// recorded and reported with the others by `expect_errs_done`, so that one does not hide the
/// rest.
fn expect_err(r: Result<Status, Error>, kind: fn(&Error) -> bool, parts: &[&str], what: &str) {
    let fail = match r {
        Ok(st) => Some(format!("{what}: expected an error, got {st:?}")),
        Err(e) if !kind(&e) => Some(format!("{what}: wrong kind: {e:?}")),
        Err(e) => {
            let text = e.to_string().to_lowercase();
            parts
                .iter()
                .find(|p| !text.contains(&p.to_lowercase()))
                .map(|p| format!("{what}: '{e}' lacks '{p}'"))
        }
    };
    if let Some(f) = fail {
        ERR_FAILURES.with(|v| v.borrow_mut().push(f));
    }
}

/// Fails with every recorded error expectation that did not hold.
fn expect_errs_done() {
    let f = ERR_FAILURES.with(|v| std::mem::take(&mut *v.borrow_mut()));
    assert!(
        f.is_empty(),
        "{} error expectations failed:\n{}",
        f.len(),
        f.join("\n")
    );
}

fn is_size(e: &Error) -> bool {
    matches!(e, Error::InvalidSize(_))
}
fn is_value(e: &Error) -> bool {
    matches!(e, Error::InvalidValue(_))
}
fn is_size_or_value(e: &Error) -> bool {
    matches!(e, Error::InvalidSize(_) | Error::InvalidValue(_))
}
fn is_pointer(e: &Error) -> bool {
    matches!(e, Error::InvalidPointer(_))
}

fn pattern(len: usize) -> Vec<f64> {
    (0..len).map(|i| -7.5 - i as f64).collect()
}

/// Output buffers holding a known pattern, checked bit for bit at the end.
struct Outs {
    bufs: Vec<DeviceBuffer<f64>>,
}
impl Outs {
    fn new(dev: &Device, lens: &[usize]) -> Outs {
        Outs {
            bufs: lens
                .iter()
                .map(|&l| dev.upload(&pattern(l)).unwrap())
                .collect(),
        }
    }
    fn check(&self) {
        for (i, b) in self.bufs.iter().enumerate() {
            let got = b.to_vec().unwrap();
            let want = pattern(got.len());
            assert!(
                got.iter().zip(&want).all(|(a, b)| same(*a, *b)),
                "output {i} was written: {got:?}"
            );
        }
    }
}

fn f7_bad_leading_dimensions_are_invalid_size_naming_them(dev: &Device) {
    let mut h = handle(dev);
    let a = dev.upload(&[0.5f64; 64]).unwrap();
    let mut ipiv = Ints::new(dev, Loc::Device, vec![PIV_POISON; 32]);
    let mut ipiv_h = Ints::new(dev, Loc::Host, vec![PIV_POISON; 32]);
    let mut info = Ints::new(dev, Loc::Host, vec![INFO_POISON; 4]);
    let mut info_d = Ints::new(dev, Loc::Device, vec![INFO_POISON; 4]);
    let piv_in = dev.upload(&[1i32; 32]).unwrap();
    let mut o = Outs::new(dev, &[64, 64, 64]);
    {
        let [b, b1, b2] = &mut o.bufs[..] else {
            unreachable!()
        };
        let r = solver::getrf(&mut h, 6, 4, b, 5, ipiv.results(), info.results());
        expect_err(r, is_size, &["getrf", "lda = 5", "6"], "getrf lda < m");
        let r = solver::getrf(&mut h, 0, 4, b, 0, ipiv_h.results(), info_d.results());
        expect_err(r, is_size, &["lda = 0"], "getrf lda = 0 with m = 0");
        let r = solver::getrf_batched(
            &mut h,
            4,
            4,
            &mut [&mut *b1, &mut *b2],
            3,
            ipiv.results(),
            4,
            info.results(),
        );
        expect_err(
            r,
            is_size,
            &["getrf_batched", "lda = 3"],
            "getrf_batched lda < m",
        );
        let r = solver::getrf_strided_batched(
            &mut h,
            5,
            2,
            b,
            4,
            10,
            ipiv_h.results(),
            2,
            info_d.results(),
            2,
        );
        expect_err(
            r,
            is_size,
            &["getrf_strided_batched", "lda = 4"],
            "getrf_strided lda < m",
        );
        let r = solver::getrf_npvt(&mut h, 7, 3, b, 6, info.results());
        expect_err(r, is_size, &["getrf_npvt", "lda = 6", "7"], "npvt lda < m");
        let r = solver::getrf_npvt_batched(&mut h, 3, 3, &mut [&mut *b1], 2, info_d.results());
        expect_err(r, is_size, &["lda = 2"], "npvt_batched lda < m");
        let r = solver::getrf_npvt_strided_batched(&mut h, 3, 5, b, 2, 15, info.results(), 2);
        expect_err(r, is_size, &["lda = 2"], "npvt_strided lda < m");
        let r = solver::potrf(&mut h, Uplo::Lower, 5, b, 4, info.results());
        expect_err(r, is_size, &["potrf", "lda = 4", "5"], "potrf lda < n");
        let r = solver::potrf_batched(
            &mut h,
            Uplo::Upper,
            3,
            &mut [&mut *b1, &mut *b2],
            2,
            info_d.results(),
        );
        expect_err(
            r,
            is_size,
            &["potrf_batched", "lda = 2"],
            "potrf_batched lda < n",
        );
        let r = solver::potrf_strided_batched(&mut h, Uplo::Lower, 4, b, 3, 16, info.results(), 2);
        expect_err(r, is_size, &["lda = 3"], "potrf_strided lda < n");
        let r = solver::getrs(&mut h, Op::N, 5, 2, &a, 4, &piv_in, b, 5);
        expect_err(r, is_size, &["getrs", "lda = 4", "5"], "getrs lda < n");
        let r = solver::getrs(&mut h, Op::T, 5, 2, &a, 5, &piv_in, b, 4);
        expect_err(r, is_size, &["getrs", "ldb = 4", "5"], "getrs ldb < n");
        let r = solver::getrs(&mut h, Op::C, 0, 2, &a, 1, &piv_in, b, 0);
        expect_err(r, is_size, &["ldb = 0"], "getrs ldb = 0 with n = 0");
        let r = solver::getrs_batched(
            &mut h,
            Op::N,
            3,
            2,
            &[&a, &a],
            3,
            &piv_in,
            3,
            &mut [&mut *b1, &mut *b2],
            2,
        );
        expect_err(
            r,
            is_size,
            &["getrs_batched", "ldb = 2"],
            "getrs_batched ldb < n",
        );
        let r =
            solver::getrs_strided_batched(&mut h, Op::T, 4, 1, &a, 3, 16, &piv_in, 4, b, 4, 4, 2);
        expect_err(
            r,
            is_size,
            &["getrs_strided_batched", "lda = 3"],
            "getrs_strided lda < n",
        );
        let r = solver::potrs(&mut h, Uplo::Upper, 5, 1, &a, 5, b, 3);
        expect_err(r, is_size, &["potrs", "ldb = 3", "5"], "potrs ldb < n");
        let r = solver::potrs(&mut h, Uplo::Lower, 5, 1, &a, 2, b, 5);
        expect_err(r, is_size, &["potrs", "lda = 2"], "potrs lda < n");
        let r = solver::potrs_batched(&mut h, Uplo::Lower, 3, 1, &[&a], 3, &mut [&mut *b1], 1);
        expect_err(
            r,
            is_size,
            &["potrs_batched", "ldb = 1"],
            "potrs_batched ldb < n",
        );
        let r = solver::potrs_strided_batched(&mut h, Uplo::Upper, 3, 2, &a, 2, 9, b, 3, 6, 2);
        expect_err(
            r,
            is_size,
            &["potrs_strided_batched", "lda = 2"],
            "potrs_strided lda < n",
        );
    }
    o.check();
    ipiv.untouched("bad ld (ipiv)");
    ipiv_h.untouched("bad ld (ipiv host)");
    info.untouched("bad ld (info)");
    info_d.untouched("bad ld (info device)");
    expect_errs_done();
}

fn f7_short_buffers_placeholders_and_batch_counts_are_errors(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let a = up(64);
    let a24 = up(24);
    let pa = DeviceBuffer::<f64>::placeholder(64);
    let piv_in = dev.upload(&[1i32; 32]).unwrap();
    let piv4 = dev.upload(&[1i32; 4]).unwrap();
    let ppiv = DeviceBuffer::<i32>::placeholder(32);
    let ip = |loc: Loc, len: usize| Ints::new(dev, loc, vec![PIV_POISON; len]);
    let mut ipiv = ip(Loc::Device, 32);
    let mut ipiv4h = ip(Loc::Host, 4);
    let mut ipiv4d = ip(Loc::Device, 4);
    let mut ipiv12 = ip(Loc::Device, 12);
    let mut info = Ints::new(dev, Loc::Host, vec![INFO_POISON; 4]);
    let mut info0 = Ints::new(dev, Loc::Host, vec![]);
    let mut info2d = Ints::new(dev, Loc::Device, vec![INFO_POISON; 2]);
    let mut info2h = Ints::new(dev, Loc::Host, vec![INFO_POISON; 2]);
    let mut o = Outs::new(dev, &[64, 24, 26, 64, 64, 64]);
    {
        let [b, b24, b26, b1, b2, b3] = &mut o.bufs[..] else {
            unreachable!()
        };
        // A one element short.
        let r = solver::getrf(&mut h, 5, 5, b24, 5, ipiv.results(), info.results());
        expect_err(r, is_value, &["getrf", "24", "25"], "getrf A short");
        let r = solver::getrf_strided_batched(
            &mut h,
            3,
            3,
            b26,
            3,
            9,
            ipiv.results(),
            3,
            info.results(),
            3,
        );
        expect_err(
            r,
            is_value,
            &["26", "27", "stride_a = 9"],
            "getrf_strided A short",
        );
        let r = solver::potrf(&mut h, Uplo::Upper, 5, b24, 5, info.results());
        expect_err(r, is_value, &["potrf", "24", "25"], "potrf A short");
        let r =
            solver::getrf_npvt_batched(&mut h, 5, 5, &mut [&mut *b1, &mut *b24], 5, info.results());
        expect_err(r, is_value, &["[1]", "24", "25"], "npvt_batched A[1] short");
        // ipiv short: min(m, n) pivots, entries stride_piv apart.
        let r = solver::getrf(&mut h, 7, 5, b, 7, ipiv4h.results(), info.results());
        expect_err(r, is_value, &["ipiv", "4", "5"], "getrf ipiv (host) short");
        let r = solver::getrf(&mut h, 5, 6, b, 5, ipiv4d.results(), info.results());
        expect_err(
            r,
            is_value,
            &["ipiv", "4", "5"],
            "getrf ipiv (device) short",
        );
        let r = solver::getrf_strided_batched(
            &mut h,
            3,
            3,
            b,
            3,
            9,
            ipiv12.results(),
            5,
            info.results(),
            3,
        );
        expect_err(
            r,
            is_value,
            &["ipiv", "12", "13"],
            "getrf_strided ipiv short",
        );
        let r = solver::getrf_batched(
            &mut h,
            4,
            4,
            &mut [&mut *b1, &mut *b2, &mut *b3],
            4,
            ipiv12.results(),
            5,
            info.results(),
        );
        expect_err(
            r,
            is_value,
            &["ipiv", "12", "14"],
            "getrf_batched ipiv short",
        );
        // info short: one per entry.
        let r = solver::getrf(&mut h, 3, 3, b, 3, ipiv.results(), info0.results());
        expect_err(r, is_value, &["info"], "getrf info empty");
        let r = solver::getrf_npvt_strided_batched(&mut h, 3, 3, b, 3, 9, info2d.results(), 3);
        expect_err(
            r,
            is_value,
            &["info", "2", "3"],
            "npvt_strided info (device) short",
        );
        let r = solver::potrf_batched(
            &mut h,
            Uplo::Lower,
            3,
            &mut [&mut *b1, &mut *b2, &mut *b3],
            3,
            info2h.results(),
        );
        expect_err(
            r,
            is_value,
            &["info", "2", "3"],
            "potrf_batched info (host) short",
        );
        let r = solver::getrf_strided_batched(
            &mut h,
            2,
            2,
            b,
            2,
            4,
            ipiv.results(),
            2,
            info2h.results(),
            3,
        );
        expect_err(r, is_value, &["info", "2", "3"], "getrf_strided info short");
        // Solves: A, B and the pivots short.
        let r = solver::getrs(&mut h, Op::N, 5, 2, &a24, 5, &piv_in, b, 5);
        expect_err(r, is_value, &["getrs", "24", "25"], "getrs A short");
        let r = solver::getrs(&mut h, Op::N, 5, 5, &a, 5, &piv_in, b24, 5);
        expect_err(r, is_value, &["getrs", "24", "25"], "getrs B short");
        let r = solver::getrs(&mut h, Op::T, 5, 1, &a, 5, &piv4, b, 5);
        expect_err(r, is_value, &["ipiv", "4", "5"], "getrs ipiv short");
        let r = solver::getrs_strided_batched(&mut h, Op::C, 3, 1, &a, 3, 9, &piv4, 3, b, 3, 3, 2);
        expect_err(r, is_value, &["ipiv", "4", "6"], "getrs_strided ipiv short");
        let r = solver::potrs_strided_batched(&mut h, Uplo::Upper, 3, 3, &a, 3, 9, b26, 3, 9, 3);
        expect_err(
            r,
            is_value,
            &["26", "27", "stride_b = 9"],
            "potrs_strided B short",
        );
        let r = solver::potrs_batched(
            &mut h,
            Uplo::Lower,
            5,
            1,
            &[&a, &a24],
            5,
            &mut [&mut *b1, &mut *b2],
            5,
        );
        expect_err(
            r,
            is_value,
            &["[1]", "24", "25"],
            "potrs_batched A[1] short",
        );
        // Batch counts that differ.
        let r = solver::getrs_batched(
            &mut h,
            Op::N,
            4,
            1,
            &[&a, &a, &a],
            4,
            &piv_in,
            4,
            &mut [&mut *b1, &mut *b2],
            4,
        );
        expect_err(r, is_size, &["3", "2"], "getrs_batched A list longer");
        let r = solver::potrs_batched(
            &mut h,
            Uplo::Upper,
            4,
            1,
            &[&a],
            4,
            &mut [&mut *b1, &mut *b2],
            4,
        );
        expect_err(r, is_size, &["1", "2"], "potrs_batched A list shorter");
        // Placeholders outside a query.
        let mut pb = DeviceBuffer::<f64>::placeholder(64);
        let r = solver::getrf(&mut h, 4, 4, &mut pb, 4, ipiv.results(), info.results());
        expect_err(r, is_pointer, &["placeholder"], "getrf A placeholder");
        let mut pi = Ints {
            loc: Loc::Device,
            host: vec![],
            dev: Some(DeviceBuffer::placeholder(32)),
            before: vec![],
        };
        let r = solver::getrf(&mut h, 4, 4, b, 4, pi.results(), info.results());
        expect_err(r, is_pointer, &["placeholder"], "getrf ipiv placeholder");
        let r = solver::potrf(&mut h, Uplo::Lower, 4, b, 4, pi.results());
        expect_err(r, is_pointer, &["placeholder"], "potrf info placeholder");
        let r = solver::getrs(&mut h, Op::N, 4, 1, &a, 4, &ppiv, b, 4);
        expect_err(r, is_pointer, &["placeholder"], "getrs ipiv placeholder");
        let r = solver::potrs(&mut h, Uplo::Upper, 4, 1, &pa, 4, b, 4);
        expect_err(r, is_pointer, &["placeholder"], "potrs A placeholder");
    }
    o.check();
    for (i, x) in [&ipiv, &ipiv4h, &ipiv4d, &ipiv12, &info, &info2d, &info2h]
        .iter()
        .enumerate()
    {
        x.untouched(&format!("short buffers: integer buffer {i}"));
    }
    expect_errs_done();
}

fn f9_overlapping_strided_outputs_are_invalid(dev: &Device) {
    let mut h = handle(dev);
    let a = dev.upload(&[0.5f64; 64]).unwrap();
    let piv_in = dev.upload(&[1i32; 32]).unwrap();
    let mut ipiv = Ints::new(dev, Loc::Device, vec![PIV_POISON; 32]);
    let mut ipiv_h = Ints::new(dev, Loc::Host, vec![PIV_POISON; 32]);
    let mut info = Ints::new(dev, Loc::Host, vec![INFO_POISON; 4]);
    let mut o = Outs::new(dev, &[64]);
    {
        let b = &mut o.bufs[0];
        let r = solver::getrf_strided_batched(
            &mut h,
            3,
            3,
            b,
            3,
            8,
            ipiv.results(),
            3,
            info.results(),
            2,
        );
        expect_err(
            r,
            is_value,
            &["getrf_strided_batched", "stride_a = 8"],
            "getrf A stride 8 < 9",
        );
        let r = solver::getrf_npvt_strided_batched(&mut h, 4, 2, b, 4, 0, info.results(), 2);
        expect_err(r, is_value, &["stride_a = 0"], "npvt A stride 0");
        let r = solver::potrf_strided_batched(&mut h, Uplo::Upper, 3, b, 4, 10, info.results(), 3);
        expect_err(
            r,
            is_value,
            &["potrf_strided_batched", "stride_a = 10"],
            "potrf A stride 10 < 11",
        );
        let r =
            solver::getrs_strided_batched(&mut h, Op::N, 3, 2, &a, 3, 9, &piv_in, 3, b, 3, 5, 2);
        expect_err(
            r,
            is_value,
            &["getrs_strided_batched", "stride_b = 5"],
            "getrs B stride 5 < 6",
        );
        let r = solver::potrs_strided_batched(&mut h, Uplo::Lower, 2, 2, &a, 2, 4, b, 3, 0, 2);
        expect_err(
            r,
            is_value,
            &["potrs_strided_batched", "stride_b = 0"],
            "potrs B stride 0",
        );
        // Pivots of different entries would overlap.
        let r = solver::getrf_strided_batched(
            &mut h,
            4,
            3,
            b,
            4,
            12,
            ipiv.results(),
            2,
            info.results(),
            2,
        );
        expect_err(
            r,
            is_size_or_value,
            &["stride_piv"],
            "getrf stride_piv 2 < 3",
        );
        let r = solver::getrf_strided_batched(
            &mut h,
            3,
            3,
            b,
            3,
            9,
            ipiv_h.results(),
            0,
            info.results(),
            3,
        );
        expect_err(
            r,
            is_size_or_value,
            &["stride_piv"],
            "getrf stride_piv 0 (host)",
        );
        let mut b1 = dev.upload(&pattern(16)).unwrap();
        let mut b2 = dev.upload(&pattern(16)).unwrap();
        let r = solver::getrf_batched(
            &mut h,
            3,
            3,
            &mut [&mut b1, &mut b2],
            3,
            ipiv.results(),
            1,
            info.results(),
        );
        expect_err(
            r,
            is_size_or_value,
            &["stride_piv"],
            "getrf_batched stride_piv 1 < 3",
        );
        assert_eq!(b1.to_vec().unwrap(), pattern(16));
        assert_eq!(b2.to_vec().unwrap(), pattern(16));
    }
    o.check();
    ipiv.untouched("overlap (ipiv)");
    ipiv_h.untouched("overlap (ipiv host)");
    info.untouched("overlap (info)");
    expect_errs_done();
}

/// F9: inputs may overlap: one factor and one set of pivots for every entry (stride 0).
fn f9_strided_solves_may_share_one_factor(dev: &Device) {
    let mut h = handle(dev);
    let mut r = Gen::new(241);
    let count = 5;
    for rt in [
        Srt::Getrs(Op::N),
        Srt::Getrs(Op::C),
        Srt::Potrs(Uplo::Upper),
    ] {
        for n in [7, 65] {
            let one = SCase::new(rt, n, 3).with(Form::Strided(1), 1, 2);
            let s = prepare_solve::<Complex64>(dev, &mut r, one, Fill::Random);
            let c = SCase {
                form: Form::Strided(count),
                pgap: 0,
                ..one
            };
            let (mut bst, mut bd) = (vec![], vec![]);
            for _ in 0..count {
                let b = gen_random::<Complex64>(n, 3, &mut r);
                bst.push(store::<Complex64>(&b, c.ldb, None));
                bd.push(b);
            }
            let mut run = SolveRun::<Complex64> {
                c,
                a: Placed {
                    form: Form::Strided(count),
                    stride: 0,
                    bufs: s.a.bufs,
                    before: s.a.before,
                },
                piv: s.piv,
                b: Placed::with_gap(dev, c.form, span(n, 3, c.ldb), 1, &bst, Complex64::pnan()),
                ad: vec![s.ad[0].clone(); count],
                bd,
                fill: Fill::Random,
            };
            // The pivots are read at stride 0 too.
            let (sa, sb) = (run.a.stride, run.b.stride);
            let what = run.name();
            let st = match rt {
                Srt::Getrs(op) => solver::getrs_strided_batched(
                    &mut h,
                    op,
                    n,
                    3,
                    run.a.one(),
                    c.lda,
                    sa,
                    &run.piv.as_ref().unwrap().0,
                    0,
                    run.b.one_mut(),
                    c.ldb,
                    sb,
                    count,
                ),
                Srt::Potrs(u) => solver::potrs_strided_batched(
                    &mut h,
                    u,
                    n,
                    3,
                    run.a.one(),
                    c.lda,
                    sa,
                    run.b.one_mut(),
                    c.ldb,
                    sb,
                    count,
                ),
            }
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(st, Status::Success, "{what}");
            run.check(&what);
        }
    }
}

/// F7: pivots are data the call cannot trust: rows out of range (0, negative, past `n`) must
/// not make `getrs` read or write outside its buffers; it returns (an error or a result) and
/// only `B`'s entries may change.
fn f7_getrs_out_of_range_pivots_stay_inside_buffers(dev: &Device) {
    let mut h = handle(dev);
    let mut r = Gen::new(251);
    for (n, form) in [
        (5, Form::Single),
        (40, Form::Strided(2)),
        (70, Form::List(2)),
    ] {
        for bad in [0, -3, n as i32 + 1, i32::MAX, i32::MIN] {
            let c = SCase::new(Srt::Getrs(Op::N), n, 2).with(form, 1, 1);
            let mut s = prepare_solve::<f64>(dev, &mut r, c, Fill::Random);
            let (buf, v) = s.piv.as_mut().unwrap();
            for e in 0..form_count(form) {
                let at = if form == Form::Single {
                    0
                } else {
                    e * c.stride_piv()
                };
                v[at + n / 2] = bad;
            }
            buf.copy_from_host(v).unwrap();
            let what = format!("{} with ipiv holding {bad}", s.name());
            match s.call(&mut h) {
                Ok(_) | Err(Error::InvalidValue(_)) => {}
                Err(e) => panic!("{what}: {e}"),
            }
            let after = s.b.after();
            s.b.only_outputs_changed(&after, n, 2, c.ldb, &|_, _| true, &what);
            s.inputs_untouched(&what);
        }
    }
}

/// A getrf big enough for the look-ahead program (its panels on a second stream) captured into
/// a graph on a workspace preallocated by a query: capturing runs nothing, and every replay
/// gives the bits of an uncaptured call, whose factors and pivots are checked against the
/// reference loop. The host backend refuses capture.
fn m13_f10_capture_lookahead_getrf_replays(dev: &Device) {
    let mut h = fixed_handle(dev, 0);
    if dev.backend() == gpublas::Backend::Host {
        assert!(matches!(
            h.stream().begin_capture(),
            Err(Error::Unsupported(_))
        ));
        return;
    }
    let (m, n, lda) = (700usize, 600usize, 703usize);
    let mut r = Gen::new(211);
    let (ad, _) = gen_sep::<f64>(m, n, &[], &[], false, true, &mut r);
    let a0 = store::<f64>(&ad, lda, None);
    let getrf = |h: &mut Handle,
                 a: &mut DeviceBuffer<f64>,
                 p: &mut DeviceBuffer<i32>,
                 i: &mut DeviceBuffer<i32>| {
        solver::getrf(h, m, n, a, lda, Results::Device(p), Results::Device(i))
    };
    let mut a = dev.upload(&a0).unwrap();
    let mut piv = dev.upload(&vec![PIV_POISON; n]).unwrap();
    let mut info = dev.upload(&[INFO_POISON]).unwrap();
    h.start_device_memory_size_query().unwrap();
    let _ = getrf(&mut h, &mut a, &mut piv, &mut info).unwrap();
    let need = h.stop_device_memory_size_query().unwrap();
    let _ = h.set_device_memory_size(need).unwrap();
    // The uncaptured call, checked against the reference.
    assert_eq!(
        getrf(&mut h, &mut a, &mut piv, &mut info).unwrap(),
        Status::Success
    );
    let (want_a, want_p) = (a.to_vec().unwrap(), piv.to_vec().unwrap());
    assert_eq!(info.to_vec().unwrap(), vec![0]);
    let f = Dense {
        r: m,
        c: n,
        v: (0..n)
            .flat_map(|j| (0..m).map(move |i| (i, j)))
            .map(|(i, j)| (want_a[i + j * lda], 0.0))
            .collect(),
    };
    let p0: Vec<usize> = want_p.iter().map(|&p| (p - 1) as usize).collect();
    let (_, ref_p, _) = ref_lu(&ad, true);
    assert_eq!(p0, ref_p, "pivots differ from the reference loop");
    let res = lu_residual(&ad, &f, Some(&p0), f64::EPSILON);
    assert!(res < RESID_MAX, "LU residual ratio {res:.3e}");
    // Captured: nothing runs until the graph does.
    a.copy_from_host(&a0).unwrap();
    piv.copy_from_host(&vec![PIV_POISON; n]).unwrap();
    info.copy_from_host(&[INFO_POISON]).unwrap();
    h.stream().begin_capture().unwrap();
    let st = getrf(&mut h, &mut a, &mut piv, &mut info);
    let graph = h.stream().end_capture();
    assert_eq!(st.unwrap(), Status::Success);
    let graph = graph.unwrap();
    // Bits: the padding rows hold NaN.
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
    assert!(
        bits(&a.to_vec().unwrap()) == bits(&a0),
        "capturing changed A"
    );
    assert_eq!(info.to_vec().unwrap(), vec![INFO_POISON]);
    for rep in 0..3 {
        a.copy_from_host(&a0).unwrap();
        piv.copy_from_host(&vec![PIV_POISON; n]).unwrap();
        info.copy_from_host(&[INFO_POISON]).unwrap();
        graph.launch().unwrap();
        h.synchronize().unwrap();
        assert!(
            bits(&a.to_vec().unwrap()) == bits(&want_a),
            "replay {rep}: factors differ"
        );
        assert_eq!(piv.to_vec().unwrap(), want_p, "replay {rep}: pivots differ");
        assert_eq!(info.to_vec().unwrap(), vec![0], "replay {rep}: info");
    }
}

on_both_backends!(
    f1_f10_getrf_random_and_separated_all_sizes_forms_f64,
    f1_getrf_tall_panels_beyond_shared_memory,
    f1_getrf_lookahead_narrow_side_leaves,
    f1_f10_getrf_random_and_separated_sizes_forms_f32,
    f1_f10_getrf_random_and_separated_sizes_forms_c32,
    f1_f10_getrf_random_and_separated_sizes_forms_c64,
    f1_getrf_pivot_is_first_max_of_re_plus_im,
    f1_f10_getrf_npvt_dominant_sizes_forms,
    f1_f10_potrf_hpd_uplos_all_sizes_forms_f64,
    f1_f10_potrf_hpd_uplos_sizes_forms_f32,
    f1_f10_potrf_hpd_uplos_sizes_forms_c32,
    f1_f10_potrf_hpd_uplos_sizes_forms_c64,
    f1_f10_getrs_potrs_ops_uplos_all_sizes_forms_f64,
    f1_f10_getrs_potrs_ops_uplos_sizes_forms_f32,
    f1_f10_getrs_potrs_ops_uplos_sizes_forms_c32,
    f1_f10_getrs_potrs_ops_uplos_sizes_forms_c64,
    f1_getrf_getrs_potrf_potrs_end_to_end,
    f5_getrf_info_is_first_exact_zero_pivot_f64,
    f5_getrf_info_is_first_exact_zero_pivot_other_types,
    f5_potrf_info_is_first_broken_leading_minor,
    f5_nan_inputs_finish_with_success,
    f3_quick_returns_touch_nothing,
    f6_device_results_equal_host_results,
    m09_query_getrf_getrs_1024,
    m08_m09_query_then_preallocate_runs_as_planned,
    m08_query_checks_sizes_and_takes_placeholders,
    m06_in_1kib_degrades_with_right_answers,
    f8_batches_run_in_chunks_in_a_one_entry_workspace,
    f7_bad_leading_dimensions_are_invalid_size_naming_them,
    f7_short_buffers_placeholders_and_batch_counts_are_errors,
    f9_overlapping_strided_outputs_are_invalid,
    f9_strided_solves_may_share_one_factor,
    f7_getrs_out_of_range_pivots_stay_inside_buffers,
    m13_f10_capture_lookahead_getrf_replays,
);
