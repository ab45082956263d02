#![allow(
    clippy::too_many_arguments,
    clippy::type_complexity,
    clippy::needless_range_loop
)]
//! The triangular solves and inverses (`trsm`, `trsm_ex`, `trtri`, each single, `_batched` and
//! `_strided_batched`) against independent f64 references written here, on both backends
//! (SPEC F1–F3, F5, F7–F10, M6, M8, M9).
//!
//! Operands are placed in seven batch layouts (single, lists of 0, 1 and 7 entries, strided
//! batches of 0, 1 and 7 entries, the strided ones with gaps of 0, 1 or 7 elements between
//! the entries). Everything a call may not write (padding rows of `B` and of `inv_a`, gaps,
//! one element past each entry, the inputs) is compared bit for bit after the call;
//! everything it may not read (the padding of `A`, its unstored triangle, a unit diagonal,
//! `A` and `B` when a host `alpha == 0`, `inv_a` before `trtri` writes it) holds NaN.
//!
//! `A` is well conditioned (off-diagonal entries in [-1, 1] / order, a diagonal of magnitude
//! in [1, 2] with random sign or phase), so a solve is checked by its residual: for each
//! column `x` of `X` (`Side::Left`; rows for `Side::Right`, against the ∞-norm of `op(A)`)
//! `‖op(A) x − alpha b‖₁ / (‖op(A)‖₁ ‖x‖₁ ε max(order, 1)) < 30` in f64, with `X` as the
//! call returned it and `|re| + |im|` as the magnitude of a complex value. An inverse is
//! checked the LAPACK way (`xTRT01`): `‖A inv − I‖₁ / (‖A‖₁ ‖inv‖₁ ε n) < 30`.

mod common;

use common::complex::*;
use common::elem::*;
use common::forms::*;
use common::{fixed_handle, handle};
use gpublas::blas3::{self, TrsmMethod};
use gpublas::{
    Coef, Complex32, Complex64, Device, DeviceBuffer, Diag, Error, Handle, Op, Scalar, Side,
    Status, Uplo,
};

// ---- the element types, seen from the test side ------------------------------------------

/// The four BLAS scalars.
trait T: El + Scalar {}
impl T for f32 {}
impl T for f64 {}
impl T for Complex32 {}
impl T for Complex64 {}

/// Uniform in [-1, 1) (both parts for complex types), times `s`, rounded to the type.
fn rnd<E: El>(r: &mut Gen, s: f64) -> E {
    let re = r.uni();
    let im = if E::CPLX { r.uni() } else { 0.0 };
    E::make(re * s, im * s)
}

/// `m` times a random sign (real) or phase (complex), rounded to the type.
fn with_phase<E: El>(r: &mut Gen, m: f64) -> E {
    if E::CPLX {
        let t = std::f64::consts::PI * r.uni();
        E::make(m * t.cos(), m * t.sin())
    } else if r.uni() < 0.0 {
        E::make(-m, 0.0)
    } else {
        E::make(m, 0.0)
    }
}

/// Elements between the entries of a strided layout, in rotation.
const GAPS: [usize; 3] = [0, 1, 7];

// ---- dense matrices and the references ---------------------------------------------------

/// A logical matrix, column-major.
#[derive(Clone)]
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
            .map(|j| (0..self.r).map(|i| mag(self.at(i, j))).sum::<f64>())
            .fold(0.0, f64::max)
    }
    /// Max row sum of magnitudes.
    fn norm_inf(&self) -> f64 {
        (0..self.r)
            .map(|i| (0..self.c).map(|j| mag(self.at(i, j))).sum::<f64>())
            .fold(0.0, f64::max)
    }
    /// `self * o`.
    fn mul(&self, o: &Dense) -> Dense {
        assert_eq!(self.c, o.r);
        let mut p = Dense::zeros(self.r, o.c);
        for j in 0..o.c {
            for l in 0..self.c {
                let x = o.at(l, j);
                if x == ZERO {
                    continue;
                }
                let col = &self.v[l * self.r..(l + 1) * self.r];
                let out = &mut p.v[j * self.r..(j + 1) * self.r];
                for i in 0..self.r {
                    out[i] = cadd(out[i], cmul(col[i], x));
                }
            }
        }
        p
    }
    fn max_abs(&self) -> f64 {
        self.v.iter().map(|&x| mag(x)).fold(0.0, f64::max)
    }
}

fn in_tri(uplo: Uplo, i: usize, j: usize) -> bool {
    match uplo {
        Uplo::Upper => i <= j,
        Uplo::Lower => i >= j,
    }
}

/// How the triangle of `A` is filled.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fill {
    /// Off-diagonal entries in [-1, 1] / order, diagonal magnitudes in [1, 2].
    Well,
    /// Ill conditioned: the first off-diagonal of row i has magnitude `g |a_ii|`, so the
    /// inverse grows like g^(i - j); the rest of the triangle in [-0.1, 0.1] / order.
    Ill(f64),
    /// Well, but with a zero at this position of the (non-unit) diagonal.
    ZeroDiag(usize),
}

/// The stored triangular `A` of order `k` at `lda` (NaN outside the `uplo` triangle, on a
/// unit diagonal and in the padding; all NaN with `nan_all`) and the logical matrix it
/// stands for (zeros outside the triangle, a unit diagonal as ones).
fn gen_tri<E: El>(
    k: usize,
    lda: usize,
    uplo: Uplo,
    diag: Diag,
    fill: Fill,
    r: &mut Gen,
    nan_all: bool,
) -> (Vec<E>, Dense) {
    let mut st = vec![nan::<E>(); span(k, k, lda)];
    let mut d = Dense::zeros(k, k);
    let scale = 1.0 / k.max(1) as f64;
    let mut dabs = vec![1.0; k];
    for i in 0..k {
        if diag == Diag::Unit {
            d.set(i, i, ONE); // the stored diagonal stays NaN
            continue;
        }
        let v: E = match fill {
            Fill::ZeroDiag(p) if p == i => E::make(0.0, 0.0),
            _ => {
                let m = 1.5 + 0.5 * r.uni();
                with_phase(r, m)
            }
        };
        st[i + i * lda] = v;
        let g = v.get();
        dabs[i] = (g.0 * g.0 + g.1 * g.1).sqrt();
        d.set(i, i, g);
    }
    for j in 0..k {
        for i in 0..k {
            if i == j || !in_tri(uplo, i, j) {
                continue;
            }
            let v: E = match fill {
                Fill::Ill(g) if i.abs_diff(j) == 1 => with_phase(r, g * dabs[i]),
                Fill::Ill(_) => rnd(r, 0.1 * scale),
                _ => rnd(r, scale),
            };
            st[i + j * lda] = v;
            d.set(i, j, v.get());
        }
    }
    if nan_all {
        st.iter_mut().for_each(|s| *s = nan());
    }
    (st, d)
}

/// A general `rows × cols` matrix at `ld`: padding holds `poison` (it is output padding);
/// the values are NaN with `nan_all`.
fn gen_b<E: El>(
    rows: usize,
    cols: usize,
    ld: usize,
    r: &mut Gen,
    nan_all: bool,
) -> (Vec<E>, Dense) {
    let mut st = vec![poison::<E>(); span(rows, cols, ld)];
    let mut d = Dense::zeros(rows, cols);
    for j in 0..cols {
        for i in 0..rows {
            let v: E = if nan_all { nan() } else { rnd(r, 1.0) };
            st[i + j * ld] = v;
            d.set(i, j, v.get());
        }
    }
    (st, d)
}

/// Solves `t x = rhs` column by column in f64 by substitution (`t` triangular: `lower`).
fn substitute(t: &Dense, lower: bool, rhs: &Dense) -> Dense {
    let k = t.r;
    let mut x = rhs.clone();
    for j in 0..rhs.c {
        let order: Vec<usize> = if lower {
            (0..k).collect()
        } else {
            (0..k).rev().collect()
        };
        for &i in &order {
            let mut s = x.at(i, j);
            let others: Vec<usize> = if lower {
                (0..i).collect()
            } else {
                (i + 1..k).collect()
            };
            for l in others {
                s = csub(s, cmul(t.at(i, l), x.at(l, j)));
            }
            x.set(i, j, cdiv(s, t.at(i, i)));
        }
    }
    x
}

/// Whether `op(A)` is lower triangular.
fn op_lower(uplo: Uplo, op: Op) -> bool {
    (uplo == Uplo::Lower) == (op == Op::N)
}

/// The f64 substitution reference: `X` with `op(A) X = alpha B` or `X op(A) = alpha B`.
fn solve_ref(c: &Case, a: &Dense, b: &Dense, alpha: C) -> Dense {
    let oa = a.op(c.op);
    let lower = op_lower(c.uplo, c.op);
    let mut ab = b.clone();
    ab.v.iter_mut().for_each(|x| *x = cmul(alpha, *x));
    match c.side {
        Side::Left => substitute(&oa, lower, &ab),
        // X op(A) = alpha B  ⇔  op(A)^T X^T = alpha B^T
        Side::Right => substitute(&oa.op(Op::T), !lower, &ab.op(Op::T)).op(Op::T),
    }
}

/// max(κ₁, κ∞) of the logical triangular `a`, its inverse formed in f64.
fn cond(a: &Dense, uplo: Uplo) -> f64 {
    let k = a.r;
    let mut id = Dense::zeros(k, k);
    for i in 0..k {
        id.set(i, i, ONE);
    }
    let inv = substitute(a, uplo == Uplo::Lower, &id);
    (a.norm1() * inv.norm1()).max(a.norm_inf() * inv.norm_inf())
}

/// The worst residual ratio over the columns (Left) or rows (Right) of `x`:
/// `‖op(A) x − alpha b‖₁ / (‖op(A)‖ ‖x‖₁ ε max(order, 1))`; infinite if `x` holds a
/// non-finite value.
fn residual(c: &Case, a: &Dense, x: &Dense, b: &Dense, alpha: C, eps: f64) -> f64 {
    if !x.v.iter().all(|&v| finite(v)) {
        return f64::INFINITY;
    }
    let k = c.order();
    let oa = a.op(c.op);
    let mut r = match c.side {
        Side::Left => oa.mul(x),
        Side::Right => x.mul(&oa),
    };
    for (rv, bv) in r.v.iter_mut().zip(&b.v) {
        *rv = csub(*rv, cmul(alpha, *bv));
    }
    let den = eps * k.max(1) as f64;
    let ratio = |rn: f64, xn: f64, an: f64| {
        if rn == 0.0 {
            0.0
        } else {
            rn / (an * xn * den)
        }
    };
    let mut worst = 0.0f64;
    match c.side {
        Side::Left => {
            let an = oa.norm1();
            for j in 0..c.n {
                let rn: f64 = (0..c.m).map(|i| mag(r.at(i, j))).sum();
                let xn: f64 = (0..c.m).map(|i| mag(x.at(i, j))).sum();
                worst = worst.max(ratio(rn, xn, an));
            }
        }
        Side::Right => {
            let an = oa.norm_inf();
            for i in 0..c.m {
                let rn: f64 = (0..c.n).map(|j| mag(r.at(i, j))).sum();
                let xn: f64 = (0..c.n).map(|j| mag(x.at(i, j))).sum();
                worst = worst.max(ratio(rn, xn, an));
            }
        }
    }
    worst
}

/// The bound on the residual ratio of a solve and of an inverse.
const RESID_MAX: f64 = 30.0;

// ---- the calls ---------------------------------------------------------------------------

/// One trsm call's shape arguments.
#[derive(Clone, Copy, Debug)]
struct Case {
    side: Side,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    m: usize,
    n: usize,
    lda: usize,
    ldb: usize,
}

const OPS: [Op; 3] = [Op::N, Op::T, Op::C];
const UPLOS: [Uplo; 2] = [Uplo::Upper, Uplo::Lower];
const SIDES: [Side; 2] = [Side::Left, Side::Right];
const DIAGS: [Diag; 2] = [Diag::NonUnit, Diag::Unit];

/// Every side × uplo × op × diag (op `C` acts as `T` on real types).
fn combos() -> Vec<(Side, Uplo, Op, Diag)> {
    let mut v = vec![];
    for side in SIDES {
        for uplo in UPLOS {
            for op in OPS {
                for diag in DIAGS {
                    v.push((side, uplo, op, diag));
                }
            }
        }
    }
    v
}

impl Case {
    /// The least valid leading dimensions.
    fn new(side: Side, uplo: Uplo, op: Op, diag: Diag, m: usize, n: usize) -> Case {
        let mut c = Case {
            side,
            uplo,
            op,
            diag,
            m,
            n,
            lda: 0,
            ldb: 0,
        };
        c.lda = c.order().max(1);
        c.ldb = m.max(1);
        c
    }
    fn of(t: (Side, Uplo, Op, Diag), m: usize, n: usize) -> Case {
        Case::new(t.0, t.1, t.2, t.3, m, n)
    }

    /// Leading dimensions `ea` and `eb` above the least valid ones.
    fn fit(mut self, ea: usize, eb: usize) -> Case {
        self.lda = self.order().max(1) + ea;
        self.ldb = self.m.max(1) + eb;
        self
    }

    /// Leading dimensions above the least in rotation with the case counter `t`.
    fn fit_t(self, t: usize) -> Case {
        self.fit([1, 3, 2][t % 3], [2, 1, 4, 1][t % 4])
    }

    /// Order of `A`.
    fn order(&self) -> usize {
        if self.side == Side::Left {
            self.m
        } else {
            self.n
        }
    }

    fn empty(&self) -> bool {
        self.m == 0 || self.n == 0
    }
}

/// Which routine solves.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Way {
    /// `trsm`.
    Trsm,
    /// `trsm_ex` with `TrsmMethod::Invert`.
    Invert,
    /// `trsm_ex` with `TrsmMethod::Substitute`.
    Substitute,
    /// `trsm_ex` with `TrsmMethod::Inverse`, the inverse from `trtri`.
    Inverse,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Scal {
    Host,
    Device,
    PerEntry,
}

fn method<I>(way: Way, inv: impl FnOnce() -> I) -> TrsmMethod<I> {
    match way {
        Way::Invert => TrsmMethod::Invert,
        Way::Substitute => TrsmMethod::Substitute,
        Way::Inverse => TrsmMethod::Inverse(inv()),
        Way::Trsm => unreachable!("trsm takes no method"),
    }
}

/// Runs `way` in `b`'s layout. `inv`: the inverse operand and `ldinv` (`Way::Inverse`).
fn trsm_call<E: T>(
    h: &mut Handle,
    c: &Case,
    way: Way,
    alpha: Coef<'_, E>,
    a: &Placed<E>,
    inv: Option<(&Placed<E>, usize)>,
    b: &mut Placed<E>,
) -> Result<Status, Error> {
    let (side, uplo, op, diag, m, n, lda, ldb) =
        (c.side, c.uplo, c.op, c.diag, c.m, c.n, c.lda, c.ldb);
    let sa = a.stride;
    match b.form {
        Form::Single => {
            if way == Way::Trsm {
                return blas3::trsm(
                    h,
                    side,
                    uplo,
                    op,
                    diag,
                    m,
                    n,
                    alpha,
                    a.one(),
                    lda,
                    b.one_mut(),
                    ldb,
                );
            }
            let meth = method(way, || {
                let (p, ld) = inv.unwrap();
                (p.one(), ld)
            });
            blas3::trsm_ex(
                h,
                side,
                uplo,
                op,
                diag,
                m,
                n,
                alpha,
                a.one(),
                lda,
                b.one_mut(),
                ldb,
                meth,
            )
        }
        Form::List(_) => {
            let ar = a.refs();
            let ir: Vec<&DeviceBuffer<E>> = inv.map(|(p, _)| p.refs()).unwrap_or_default();
            let ld_inv = inv.map_or(0, |(_, ld)| ld);
            let mut bm = b.muts();
            if way == Way::Trsm {
                return blas3::trsm_batched(
                    h, side, uplo, op, diag, m, n, alpha, &ar, lda, &mut bm, ldb,
                );
            }
            let meth = method(way, || (&ir[..], ld_inv));
            blas3::trsm_ex_batched(
                h, side, uplo, op, diag, m, n, alpha, &ar, lda, &mut bm, ldb, meth,
            )
        }
        Form::Strided(count) => {
            let sb = b.stride;
            if way == Way::Trsm {
                return blas3::trsm_strided_batched(
                    h,
                    side,
                    uplo,
                    op,
                    diag,
                    m,
                    n,
                    alpha,
                    a.one(),
                    lda,
                    sa,
                    b.one_mut(),
                    ldb,
                    sb,
                    count,
                );
            }
            let meth = method(way, || {
                let (p, ld) = inv.unwrap();
                (p.one(), ld, p.stride)
            });
            blas3::trsm_ex_strided_batched(
                h,
                side,
                uplo,
                op,
                diag,
                m,
                n,
                alpha,
                a.one(),
                lda,
                sa,
                b.one_mut(),
                ldb,
                sb,
                count,
                meth,
            )
        }
    }
}

/// `trtri` in `inv`'s layout.
fn trtri_call<E: T>(
    h: &mut Handle,
    uplo: Uplo,
    diag: Diag,
    n: usize,
    a: &Placed<E>,
    lda: usize,
    inv: &mut Placed<E>,
    ldinv: usize,
) -> Result<Status, Error> {
    match inv.form {
        Form::Single => blas3::trtri(h, uplo, diag, n, a.one(), lda, inv.one_mut(), ldinv),
        Form::List(_) => {
            blas3::trtri_batched(h, uplo, diag, n, &a.refs(), lda, &mut inv.muts(), ldinv)
        }
        Form::Strided(count) => {
            let (sa, si) = (a.stride, inv.stride);
            blas3::trtri_strided_batched(
                h,
                uplo,
                diag,
                n,
                a.one(),
                lda,
                sa,
                inv.one_mut(),
                ldinv,
                si,
                count,
            )
        }
    }
}

/// A trsm call ready to run, with its operands placed and the logical matrices behind them.
struct Prepared<E: T> {
    c: Case,
    form: Form,
    way: Way,
    scal: Scal,
    a: Placed<E>,
    /// The inverse from `trtri` and its leading dimension (`Way::Inverse`).
    inv: Option<(Placed<E>, usize)>,
    b: Placed<E>,
    /// Each entry's alpha as the routine sees it.
    alphas: Vec<C>,
    /// The device alpha(s) (one value or one per entry), then a NaN.
    abuf: Option<DeviceBuffer<E>>,
    ad: Vec<Dense>,
    bd: Vec<Dense>,
}

/// Alphas of the per-entry device scalars, in rotation over the entries.
const PER_ENTRY: &[C] = &[
    (0.75, -0.25),
    (0.0, 0.0),
    (1.0, 0.0),
    (-1.25, 0.5),
    (0.5, 2.0),
];

/// Random operands for `c` in `form` (gaps of `gap` elements). `alpha`: the one value of
/// host and device scalars (per-entry scalars cycle through `PER_ENTRY`). With a host
/// `alpha == 0`, `A` and `B` are all NaN. `Way::Inverse` gets its inverse from `trtri` on `h`.
fn prepare<E: T>(
    h: &mut Handle,
    r: &mut Gen,
    c: Case,
    form: Form,
    gap: usize,
    way: Way,
    scal: Scal,
    alpha: C,
    fill: Fill,
) -> Prepared<E> {
    let dev = h.device().clone();
    let count = form_count(form);
    let eff = |v: C| E::make(v.0, v.1).get();
    let alphas: Vec<C> = (0..count)
        .map(|v| {
            if scal == Scal::PerEntry {
                eff(PER_ENTRY[v % PER_ENTRY.len()])
            } else {
                eff(alpha)
            }
        })
        .collect();
    let k = c.order();
    let (mut a_e, mut b_e, mut ad, mut bd) = (vec![], vec![], vec![], vec![]);
    for &al in &alphas {
        let nan_in = scal == Scal::Host && al == ZERO;
        let (ast, adn) = gen_tri::<E>(k, c.lda, c.uplo, c.diag, fill, r, nan_in);
        let (bst, bdn) = gen_b::<E>(c.m, c.n, c.ldb, r, nan_in);
        a_e.push(ast);
        b_e.push(bst);
        ad.push(adn);
        bd.push(bdn);
    }
    let a = Placed::with_gap(&dev, form, span(k, k, c.lda), gap, &a_e, nan());
    let b = Placed::with_gap(&dev, form, span(c.m, c.n, c.ldb), gap, &b_e, poison());
    let inv = (way == Way::Inverse).then(|| {
        let ldinv = k.max(1) + 1 + gap % 3;
        let s = span(k, k, ldinv);
        let empty = vec![vec![nan::<E>(); s]; count];
        let mut inv = Placed::with_gap(&dev, form, s, (gap + 2) % 5, &empty, nan());
        let st = trtri_call(h, c.uplo, c.diag, k, &a, c.lda, &mut inv, ldinv)
            .unwrap_or_else(|e| panic!("trtri for the inverse of {c:?}: {e}"));
        assert_eq!(st, Status::Success, "trtri for the inverse of {c:?}");
        inv.snapshot();
        (inv, ldinv)
    });
    let abuf = match scal {
        Scal::Host => None,
        Scal::Device => Some(dev.upload(&[E::make(alpha.0, alpha.1), nan()]).unwrap()),
        Scal::PerEntry => {
            let mut v: Vec<E> = (0..count)
                .map(|i| {
                    let x = PER_ENTRY[i % PER_ENTRY.len()];
                    E::make(x.0, x.1)
                })
                .collect();
            v.push(nan()); // one past the values a call may use
            Some(dev.upload(&v).unwrap())
        }
    };
    Prepared {
        c,
        form,
        way,
        scal,
        a,
        inv,
        b,
        alphas,
        abuf,
        ad,
        bd,
    }
}

fn coef<'s, E: T>(scal: Scal, alpha: C, abuf: &'s Option<DeviceBuffer<E>>) -> Coef<'s, E> {
    match scal {
        Scal::Host => Coef::Host(E::make(alpha.0, alpha.1)),
        Scal::Device => Coef::Device(abuf.as_ref().unwrap()),
        Scal::PerEntry => Coef::DevicePerEntry(abuf.as_ref().unwrap()),
    }
}

impl<E: T> Prepared<E> {
    /// The host alpha (every entry has the same one unless the scalars are per entry).
    fn host_alpha(&self) -> C {
        self.alphas.first().copied().unwrap_or(ONE)
    }

    fn call(&mut self, h: &mut Handle) -> Result<Status, Error> {
        let alpha = coef(self.scal, self.host_alpha(), &self.abuf);
        let inv = self.inv.as_ref().map(|(p, ld)| (p, *ld));
        trsm_call(h, &self.c, self.way, alpha, &self.a, inv, &mut self.b)
    }

    /// The same call with placeholders for every matrix operand.
    fn call_placeholders(&self, h: &mut Handle) -> Result<Status, Error> {
        let alpha = coef(self.scal, self.host_alpha(), &self.abuf);
        let a = self.a.placeholders();
        let inv = self.inv.as_ref().map(|(p, ld)| (p.placeholders(), *ld));
        let mut b = self.b.placeholders();
        let inv = inv.as_ref().map(|(p, ld)| (p, *ld));
        trsm_call(h, &self.c, self.way, alpha, &a, inv, &mut b)
    }

    fn name(&self) -> String {
        format!(
            "{} {:?} {:?} {:?} {:?} alpha={:?}",
            E::NAME,
            self.way,
            self.c,
            self.form,
            self.scal,
            self.alphas.iter().take(3).collect::<Vec<_>>()
        )
    }

    /// `X` of each entry as the call left it.
    fn xs(&self) -> Vec<Dense> {
        let after = self.b.after();
        (0..form_count(self.form))
            .map(|v| {
                let (bi, off) = self.b.loc(v);
                let mut x = Dense::zeros(self.c.m, self.c.n);
                for j in 0..self.c.n {
                    for i in 0..self.c.m {
                        x.set(i, j, after[bi][off + i + j * self.c.ldb].get());
                    }
                }
                x
            })
            .collect()
    }

    /// Each entry solved (exact zeros where alpha is 0, else a residual ratio below
    /// `RESID_MAX`), everything else bit-identical.
    fn check(&self, what: &str) {
        let (c, count) = (&self.c, form_count(self.form));
        let after = self.b.after();
        let mut outs: Vec<Vec<bool>> = after.iter().map(|b| vec![false; b.len()]).collect();
        if !c.empty() {
            for v in 0..count {
                let (bi, off) = self.b.loc(v);
                for j in 0..c.n {
                    for i in 0..c.m {
                        outs[bi][off + i + j * c.ldb] = true;
                    }
                }
            }
        }
        for (bi, o) in outs.iter().enumerate() {
            for (p, &is_out) in o.iter().enumerate() {
                assert!(
                    is_out || same(after[bi][p], self.b.before[bi][p]),
                    "{what}: buffer {bi} element {p} is not an output but changed from {:?} to {:?}",
                    self.b.before[bi][p].get(),
                    after[bi][p].get()
                );
            }
        }
        if !c.empty() {
            for (v, x) in self.xs().iter().enumerate() {
                let alpha = self.alphas[v];
                if alpha == ZERO {
                    if let Some(p) = x.v.iter().position(|&e| e != ZERO) {
                        panic!(
                            "{what}: entry {v} (alpha 0): X({}, {}) = {:?}, want exactly 0",
                            p % c.m,
                            p / c.m,
                            x.v[p]
                        );
                    }
                    continue;
                }
                let res = residual(c, &self.ad[v], x, &self.bd[v], alpha, E::EPS);
                assert!(
                    res < RESID_MAX,
                    "{what}: entry {v}: residual ratio {res:.3e} ≥ {RESID_MAX} (max |X| {:e})",
                    x.max_abs()
                );
            }
        }
        self.inputs_untouched(what);
    }

    fn inputs_untouched(&self, what: &str) {
        self.a.untouched(&format!("{what} (A)"));
        if let Some((inv, _)) = &self.inv {
            inv.untouched(&format!("{what} (inverse)"));
        }
    }

    /// Nothing written anywhere.
    fn untouched(&self, what: &str) {
        self.b.untouched(what);
        self.inputs_untouched(what);
    }
}

/// Runs `p` on `h`, expects `Success` and checks it.
fn run_checked<E: T>(h: &mut Handle, p: &mut Prepared<E>) {
    let what = p.name();
    let st = p.call(h).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(st, Status::Success, "{what}");
    p.check(&what);
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

// ---- F1, F10: trsm and trsm_ex on every side, uplo, op, diag, type, form and size -----------

/// Sizes where blocking changes (the blocks of `A` are at most 128 wide; 32 for `trtri`).
const SIZES: &[usize] = &[0, 1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 300];
/// The small ones, cheap enough for batches of 7.
const SMALL: &[usize] = &[0, 1, 2, 31, 32, 33, 63, 64, 65];

/// Alphas the correctness loops cycle through (real types take the real parts): general
/// values, 1, and 0 (with host scalars `A` and `B` are NaN then and `B` becomes 0).
const ALPHAS: &[C] = &[
    (0.75, -0.25),
    (1.0, 0.0),
    (0.0, 0.0),
    (-1.5, 0.5),
    (2.0, 1.0),
];
/// Scalars in rotation (with `ALPHAS`, every pair comes up).
const SCALS: &[Scal] = &[Scal::Host, Scal::Device, Scal::Host, Scal::PerEntry];

/// A pair of different sizes from `SMALL`, rotating with `t`.
fn small_pair(t: usize) -> (usize, usize) {
    let m = SMALL[(t * 5 + 1) % SMALL.len()];
    let mut n = SMALL[(t * 7 + 4) % SMALL.len()];
    if n == m {
        n = SMALL[(t * 7 + 5) % SMALL.len()];
    }
    (m, n)
}

/// Each `(m, n)` of `SIZES × SIZES` with `m != n` (only those with `(i + j) % every == 0`
/// for `every > 1`) with the side/uplo/op/diag combination, layout, scalars, alpha, gaps
/// and leading dimensions in rotation (one- or two-entry layouts at 300), then `reps`
/// more rounds of every combination at small sizes in every layout. `ways` rotate too.
fn trsm_suite<E: T>(dev: &Device, seed: u64, ways: &[Way], every: usize, reps: usize) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let all = combos();
    let mut t = seed as usize;
    let mut cases = vec![];
    for (i, &m) in SIZES.iter().enumerate() {
        for (j, &n) in SIZES.iter().enumerate() {
            if m == n || (i + j) % every != 0 {
                continue;
            }
            t += 1;
            let form = if m.max(n) > 129 {
                BIG_FORMS[t % BIG_FORMS.len()]
            } else {
                FORMS[t % FORMS.len()]
            };
            let c = Case::of(all[t % all.len()], m, n).fit_t(t);
            cases.push((c, form, ways[t % ways.len()], t));
        }
    }
    for rep in 0..reps {
        for (ci, &cb) in all.iter().enumerate() {
            t += 1;
            let (m, n) = small_pair(t);
            let form = FORMS[t % FORMS.len()];
            let c = Case::of(cb, m, n).fit_t(t);
            cases.push((c, form, ways[(ci + rep) % ways.len()], t));
        }
    }
    each(cases, |(c, form, way, t)| {
        let scal = SCALS[t % SCALS.len()];
        let alpha = ALPHAS[t % ALPHAS.len()];
        let gap = GAPS[t % GAPS.len()];
        let mut p = prepare::<E>(&mut h, &mut r, c, form, gap, way, scal, alpha, Fill::Well);
        run_checked(&mut h, &mut p);
    });
}

use Diag::{NonUnit as NU, Unit as UN};
use Op::{C as OC, N as ON, T as OT};
use Side::{Left as L, Right as R};
use Uplo::{Lower as LO, Upper as UP};

fn f1_f10_trsm_all_sides_uplos_ops_diags_forms_sizes_f32(dev: &Device) {
    trsm_suite::<f32>(dev, 11, &[Way::Trsm], 1, 3)
}
fn f1_f10_trsm_all_sides_uplos_ops_diags_forms_sizes_f64(dev: &Device) {
    trsm_suite::<f64>(dev, 12, &[Way::Trsm], 1, 3)
}
fn f1_f10_trsm_all_sides_uplos_ops_diags_forms_sizes_c32(dev: &Device) {
    trsm_suite::<Complex32>(dev, 13, &[Way::Trsm], 1, 3)
}
fn f1_f10_trsm_all_sides_uplos_ops_diags_forms_sizes_c64(dev: &Device) {
    trsm_suite::<Complex64>(dev, 14, &[Way::Trsm], 1, 3)
}

/// `trsm_ex`: substitution and a `trtri` inverse most, `Invert` (what `trsm` does) some.
const EX_WAYS: &[Way] = &[
    Way::Substitute,
    Way::Inverse,
    Way::Substitute,
    Way::Inverse,
    Way::Invert,
];

fn f1_f10_trsm_ex_substitute_inverse_invert_f32(dev: &Device) {
    trsm_suite::<f32>(dev, 21, EX_WAYS, 2, 2)
}
fn f1_f10_trsm_ex_substitute_inverse_invert_f64(dev: &Device) {
    trsm_suite::<f64>(dev, 22, EX_WAYS, 2, 2)
}
fn f1_f10_trsm_ex_substitute_inverse_invert_c32(dev: &Device) {
    trsm_suite::<Complex32>(dev, 23, EX_WAYS, 2, 2)
}
fn f1_f10_trsm_ex_substitute_inverse_invert_c64(dev: &Device) {
    trsm_suite::<Complex64>(dev, 24, EX_WAYS, 2, 2)
}

// ---- F3, F10: quick returns and alpha = 0 --------------------------------------------------

fn quick_and_zero<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let ways = [Way::Trsm, Way::Invert, Way::Substitute, Way::Inverse];
    let mut t = 0;
    for form in [
        Form::Single,
        Form::List(3),
        Form::Strided(3),
        Form::List(0),
        Form::Strided(0),
    ] {
        for way in ways {
            for cb in combos() {
                t += 1;
                // m == 0 or n == 0: nothing read (A all NaN), nothing written, whatever alpha.
                let (m, n) = [(0, 5), (4, 0), (0, 0)][t % 3];
                let c = Case::of(cb, m, n).fit_t(t);
                let mut p = prepare::<E>(
                    &mut h,
                    &mut r,
                    c,
                    form,
                    1,
                    way,
                    [Scal::Host, Scal::Device, Scal::PerEntry][t % 3],
                    [ZERO, (2.0, 0.5)][t % 2],
                    Fill::Well,
                );
                for a in p.a.bufs.iter_mut() {
                    let len = a.len();
                    a.copy_from_host(&vec![nan::<E>(); len]).unwrap();
                }
                p.a.snapshot();
                run_checked(&mut h, &mut p);
                p.untouched(&p.name());
            }
            // Host alpha == 0: A and B NaN, not read; B = 0. Device alpha == 0: B = 0 too.
            for (i, cb) in combos().into_iter().enumerate() {
                let c = Case::of(cb, [5, 33][i % 2], [4, 65][i % 2]).fit_t(i);
                for scal in [Scal::Host, Scal::Device] {
                    let mut p =
                        prepare::<E>(&mut h, &mut r, c, form, 7, way, scal, ZERO, Fill::Well);
                    run_checked(&mut h, &mut p);
                }
            }
        }
    }
    // trtri of order 0 touches nothing.
    for form in [Form::Single, Form::List(2), Form::Strided(2), Form::List(0)] {
        let count = form_count(form);
        let a = Placed::with_gap(
            &h.device().clone(),
            form,
            0,
            2,
            &vec![vec![]; count],
            nan::<E>(),
        );
        let mut inv = Placed::with_gap(
            &h.device().clone(),
            form,
            0,
            3,
            &vec![vec![]; count],
            poison::<E>(),
        );
        for (uplo, diag) in [(UP, NU), (LO, UN)] {
            let st = trtri_call(&mut h, uplo, diag, 0, &a, 1, &mut inv, 1).unwrap();
            assert_eq!(st, Status::Success, "trtri n = 0 {form:?}");
            inv.untouched(&format!("trtri n = 0 {form:?}"));
            a.untouched(&format!("trtri n = 0 {form:?} (A)"));
        }
    }
}

fn f3_f10_quick_returns_and_alpha_zero_touch_nothing_else(dev: &Device) {
    quick_and_zero::<f32>(dev, 31);
    quick_and_zero::<Complex64>(dev, 32);
}

/// F9: inputs may overlap: one `A` (and one inverse) for every entry at stride 0.
fn f9_strided_inputs_may_share_one_matrix(dev: &Device) {
    let mut h = handle(dev);
    let mut r = Gen::new(33);
    for (i, cb) in combos().into_iter().enumerate() {
        let c = Case::of(cb, 33, 17).fit_t(i);
        let k = c.order();
        let (ast, ad) = gen_tri::<f64>(k, c.lda, c.uplo, c.diag, Fill::Well, &mut r, false);
        let count = 4;
        let (mut b_e, mut bd) = (vec![], vec![]);
        for _ in 0..count {
            let (s, d) = gen_b::<f64>(c.m, c.n, c.ldb, &mut r, false);
            b_e.push(s);
            bd.push(d);
        }
        let dev = h.device().clone();
        // One entry, then seen as `count` entries at stride 0.
        let shared = |p: Placed<f64>| Placed {
            form: Form::Strided(count),
            stride: 0,
            bufs: p.bufs,
            before: p.before,
        };
        for way in [Way::Trsm, Way::Substitute, Way::Inverse] {
            let a = Placed::with_gap(
                &dev,
                Form::Strided(1),
                ast.len(),
                0,
                std::slice::from_ref(&ast),
                nan(),
            );
            let inv = (way == Way::Inverse).then(|| {
                let s = span(k, k, k + 2);
                let mut inv =
                    Placed::with_gap(&dev, Form::Strided(1), s, 0, &[vec![nan(); s]], nan());
                let st = trtri_call(&mut h, c.uplo, c.diag, k, &a, c.lda, &mut inv, k + 2);
                assert_eq!(st.unwrap(), Status::Success);
                inv.snapshot();
                (shared(inv), k + 2)
            });
            let b = Placed::with_gap(
                &dev,
                Form::Strided(count),
                span(c.m, c.n, c.ldb),
                1,
                &b_e,
                poison(),
            );
            let mut p = Prepared::<f64> {
                c,
                form: Form::Strided(count),
                way,
                scal: Scal::Host,
                a: shared(a),
                inv,
                b,
                alphas: vec![(-0.5, 0.0); count],
                abuf: None,
                ad: vec![ad.clone(); count],
                bd: bd.clone(),
            };
            run_checked(&mut h, &mut p);
        }
    }
}

// ---- F1: accuracy on ill-conditioned A ----------------------------------------------------

/// `trsm` (inverted diagonal blocks) and `trsm_ex` with `Substitute` on an `A` of condition
/// κ = max(κ₁, κ∞) within 3x of `target` (the inverse growing like g^(i - j)), with
/// `B = op(A) X_true / alpha` for `X_true` in [-1, 1], against the f64 substitution reference
/// (max-abs forward error relative to max |X_ref|): substitution's forward error is within
/// `30 κ ε order` and its residual ratio below 30 (backward stable); the inverted blocks'
/// forward error is within `min(30 κ² ε order, 1)` and their residual ratio within `30 κ`
/// (what the `trsm` docs promise: the blocks' condition carried into the residual). The
/// numbers are printed (`--nocapture`).
fn ill_conditioned<E: T>(
    dev: &Device,
    seed: u64,
    target: f64,
    cases: &[(Side, Uplo, Op, Diag, usize, usize)],
) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0;
    each(cases.to_vec(), |(s, u, o, d, m, n)| {
        t += 1;
        let c = Case::new(s, u, o, d, m, n).fit_t(t);
        let k = c.order();
        // The growth g of the first off-diagonal, adjusted until κ is within 3x of the target.
        let mut g = target.powf(1.0 / (k - 1) as f64);
        let (ast, ad, kappa) = loop {
            let mut rr = r.clone();
            let (ast, ad) = gen_tri::<E>(k, c.lda, c.uplo, c.diag, Fill::Ill(g), &mut rr, false);
            let kappa = cond(&ad, c.uplo);
            if (kappa / target).ln().abs() < 3f64.ln() || g < 1.0 + 1e-6 {
                r = rr;
                break (ast, ad, kappa);
            }
            g *= (target / kappa).powf(1.0 / (k - 1) as f64);
        };
        assert!(
            kappa > target / 10.0 && kappa < target * 10.0,
            "{} {c:?}: the construction gave condition {kappa:e}, aimed at {target:e}",
            E::NAME
        );
        // B = op(A) X_true / alpha with X_true in [-1, 1]: a solution of moderate size, so
        // that the condition of A shows in the forward error.
        let (_, xt) = gen_b::<f64>(c.m, c.n, c.m, &mut r, false);
        let oa = ad.op(c.op);
        let prod = match c.side {
            Side::Left => oa.mul(&xt),
            Side::Right => xt.mul(&oa),
        };
        let mut bst = vec![poison::<E>(); span(c.m, c.n, c.ldb)];
        let mut bd = Dense::zeros(c.m, c.n);
        for j in 0..c.n {
            for i in 0..c.m {
                let v = cdiv(prod.at(i, j), (0.75, 0.0));
                let e = E::make(v.0, v.1);
                bst[i + j * c.ldb] = e;
                bd.set(i, j, e.get());
            }
        }
        let alpha = E::make(0.75, 0.0).get();
        let xref = solve_ref(&c, &ad, &bd, alpha);
        let eps = E::EPS;
        let mut report = format!("{} {c:?} κ = {kappa:.2e}:", E::NAME);
        for way in [Way::Trsm, Way::Substitute] {
            let dev = h.device().clone();
            let a = Placed::with_gap(
                &dev,
                Form::Single,
                ast.len(),
                0,
                std::slice::from_ref(&ast),
                nan(),
            );
            let b = Placed::with_gap(&dev, Form::Single, bst.len(), 0, &[bst.clone()], poison());
            let mut p = Prepared::<E> {
                c,
                form: Form::Single,
                way,
                scal: Scal::Host,
                a,
                inv: None,
                b,
                alphas: vec![alpha],
                abuf: None,
                ad: vec![ad.clone()],
                bd: vec![bd.clone()],
            };
            let what = p.name();
            let st = p.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(st, Status::Success, "{what}");
            p.inputs_untouched(&what);
            let x = &p.xs()[0];
            let ferr = if x.v.iter().all(|&v| finite(v)) {
                let mut diff = x.clone();
                for (dv, rv) in diff.v.iter_mut().zip(&xref.v) {
                    *dv = csub(*dv, *rv);
                }
                diff.max_abs() / xref.max_abs()
            } else {
                f64::INFINITY
            };
            let res = residual(&c, &ad, x, &bd, alpha, eps);
            let unit = kappa * eps * k as f64;
            report += &format!(
                " {way:?}: forward error {ferr:.2e} ({:.1e} κεn), residual ratio {res:.2}",
                ferr / unit
            );
            if way == Way::Substitute {
                assert!(
                    ferr <= 30.0 * unit,
                    "{what}: forward error {ferr:e} > 30 κ ε n = {:e} (κ = {kappa:e})",
                    30.0 * unit
                );
                assert!(res < RESID_MAX, "{what}: residual ratio {res:e}");
            } else {
                // 30 κ² ε n, and never more than a relative error of 1.
                let loose = (30.0 * kappa * unit).min(1.0);
                assert!(
                    ferr <= loose,
                    "{what}: forward error {ferr:e} > min(30 κ² ε n, 1) = {loose:e} (κ = {kappa:e})"
                );
                assert!(ferr.is_finite(), "{what}: non-finite result");
                assert!(
                    res < RESID_MAX * kappa,
                    "{what}: residual ratio {res:e} > 30 κ = {:e}",
                    RESID_MAX * kappa
                );
            }
        }
        eprintln!("{report}");
    });
}

fn f1_trsm_ill_conditioned_substitute_keeps_accuracy_f64(dev: &Device) {
    ill_conditioned::<f64>(
        dev,
        41,
        1e6,
        &[
            (L, UP, ON, NU, 129, 17),
            (L, LO, OT, UN, 64, 9),
            (R, LO, ON, NU, 5, 129),
            (R, UP, OC, NU, 12, 65),
            (L, LO, ON, NU, 300, 3),
        ],
    );
    ill_conditioned::<Complex64>(
        dev,
        42,
        1e6,
        &[(L, UP, OC, NU, 129, 5), (R, LO, OT, UN, 7, 128)],
    );
}
fn f1_trsm_ill_conditioned_substitute_keeps_accuracy_f32(dev: &Device) {
    ill_conditioned::<f32>(
        dev,
        43,
        1e3,
        &[
            (L, UP, ON, NU, 129, 17),
            (L, LO, OT, UN, 64, 9),
            (R, LO, ON, NU, 5, 129),
            (R, UP, OC, UN, 12, 65),
        ],
    );
    ill_conditioned::<Complex32>(
        dev,
        44,
        1e3,
        &[(L, LO, OC, NU, 129, 5), (R, UP, ON, NU, 7, 65)],
    );
}

// ---- F1: trtri ------------------------------------------------------------------------------

const TRTRI_SIZES: &[usize] = &[0, 1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 300];

/// A trtri call ready to run.
struct Inv<E: T> {
    uplo: Uplo,
    diag: Diag,
    n: usize,
    lda: usize,
    ldinv: usize,
    a: Placed<E>,
    inv: Placed<E>,
    ad: Vec<Dense>,
}

/// Random well-conditioned (or `fill`) `A`s in `form`; `inv_a` NaN where it is written, its
/// padding rows, gaps and the element past the end `poison`.
fn prepare_inv<E: T>(
    dev: &Device,
    r: &mut Gen,
    (uplo, diag, n, ea, ei): (Uplo, Diag, usize, usize, usize),
    form: Form,
    gap: usize,
    fill: Fill,
) -> Inv<E> {
    let (lda, ldinv) = (n.max(1) + ea, n.max(1) + ei);
    let count = form_count(form);
    let (mut a_e, mut ad, mut i_e) = (vec![], vec![], vec![]);
    for _ in 0..count {
        let (s, d) = gen_tri::<E>(n, lda, uplo, diag, fill, r, false);
        a_e.push(s);
        ad.push(d);
        let mut iv = vec![poison::<E>(); span(n, n, ldinv)];
        for j in 0..n {
            for i in 0..n {
                iv[i + j * ldinv] = nan();
            }
        }
        i_e.push(iv);
    }
    let a = Placed::with_gap(dev, form, span(n, n, lda), gap, &a_e, nan());
    let inv = Placed::with_gap(dev, form, span(n, n, ldinv), (gap + 1) % 8, &i_e, poison());
    Inv {
        uplo,
        diag,
        n,
        lda,
        ldinv,
        a,
        inv,
        ad,
    }
}

impl<E: T> Inv<E> {
    fn call(&mut self, h: &mut Handle) -> Result<Status, Error> {
        trtri_call(
            h,
            self.uplo,
            self.diag,
            self.n,
            &self.a,
            self.lda,
            &mut self.inv,
            self.ldinv,
        )
    }
    fn call_placeholders(&self, h: &mut Handle) -> Result<Status, Error> {
        let a = self.a.placeholders();
        let mut inv = self.inv.placeholders();
        trtri_call(
            h, self.uplo, self.diag, self.n, &a, self.lda, &mut inv, self.ldinv,
        )
    }
    fn name(&self) -> String {
        format!(
            "{} trtri {:?} {:?} n={} lda={} ldinv={} {:?}",
            E::NAME,
            self.uplo,
            self.diag,
            self.n,
            self.lda,
            self.ldinv,
            self.inv.form
        )
    }

    /// The inverse of entry `v` as the call left it.
    fn got(&self, after: &[Vec<E>], v: usize) -> Dense {
        let (bi, off) = self.inv.loc(v);
        let mut x = Dense::zeros(self.n, self.n);
        for j in 0..self.n {
            for i in 0..self.n {
                x.set(i, j, after[bi][off + i + j * self.ldinv].get());
            }
        }
        x
    }

    /// The `uplo` triangle holds an inverse (`‖A inv − I‖₁ / (‖A‖₁ ‖inv‖₁ ε n) < 30`, ones on a
    /// unit diagonal), the other strict triangle exact zeros; nothing else changed.
    fn check(&self, what: &str) {
        let n = self.n;
        let count = form_count(self.inv.form);
        let after = self.inv.after();
        let mut outs: Vec<Vec<bool>> = after.iter().map(|b| vec![false; b.len()]).collect();
        for v in 0..count {
            let (bi, off) = self.inv.loc(v);
            for j in 0..n {
                for i in 0..n {
                    outs[bi][off + i + j * self.ldinv] = true;
                }
            }
        }
        for (bi, o) in outs.iter().enumerate() {
            for (p, &is_out) in o.iter().enumerate() {
                assert!(
                    is_out || same(after[bi][p], self.inv.before[bi][p]),
                    "{what}: buffer {bi} element {p} is not an output but changed from {:?} to {:?}",
                    self.inv.before[bi][p].get(),
                    after[bi][p].get()
                );
            }
        }
        for v in 0..count {
            let x = self.got(&after, v);
            for j in 0..n {
                for i in 0..n {
                    let e = x.at(i, j);
                    if i != j && !in_tri(self.uplo, i, j) {
                        assert!(
                            e == ZERO,
                            "{what}: entry {v}: inv({i}, {j}) = {e:?} outside the triangle, want 0"
                        );
                    } else if i == j && self.diag == Diag::Unit {
                        assert!(
                            e == ONE,
                            "{what}: entry {v}: unit diagonal inv({i}, {i}) = {e:?}, want 1"
                        );
                    } else {
                        assert!(finite(e), "{what}: entry {v}: inv({i}, {j}) = {e:?}");
                    }
                }
            }
            if n == 0 {
                continue;
            }
            let mut p = self.ad[v].mul(&x);
            for i in 0..n {
                p.set(i, i, csub(p.at(i, i), ONE));
            }
            let res = p.norm1() / (self.ad[v].norm1() * x.norm1() * E::EPS * n as f64);
            assert!(
                res < RESID_MAX,
                "{what}: entry {v}: ‖A inv − I‖ ratio {res:.3e} ≥ {RESID_MAX}"
            );
        }
        self.a.untouched(&format!("{what} (A)"));
    }
}

fn trtri_suite<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut cases = vec![];
    let mut t = seed as usize;
    for uplo in UPLOS {
        for diag in DIAGS {
            for &n in TRTRI_SIZES {
                t += 1;
                let form = if n > 65 {
                    BIG_FORMS[t % 3]
                } else {
                    FORMS[t % FORMS.len()]
                };
                cases.push(((uplo, diag, n, [0, 3, 1][t % 3], [1, 2, 5][t % 3]), form, t));
            }
        }
    }
    each(cases, |(shape, form, t)| {
        let mut p = prepare_inv::<E>(dev, &mut r, shape, form, GAPS[t % 3], Fill::Well);
        let what = p.name();
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(st, Status::Success, "{what}");
        p.check(&what);
    });
}

fn f1_trtri_all_uplos_diags_forms_sizes_f32(dev: &Device) {
    trtri_suite::<f32>(dev, 51)
}
fn f1_trtri_all_uplos_diags_forms_sizes_f64(dev: &Device) {
    trtri_suite::<f64>(dev, 52)
}
fn f1_trtri_all_uplos_diags_forms_sizes_c32(dev: &Device) {
    trtri_suite::<Complex32>(dev, 53)
}
fn f1_trtri_all_uplos_diags_forms_sizes_c64(dev: &Device) {
    trtri_suite::<Complex64>(dev, 54)
}

// ---- F1, F5: a singular A gives infinities or NaNs, never an error -----------------------------

fn singular<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0;
    let mut items = vec![];
    for (s, u, o) in [(L, UP, ON), (L, LO, OC), (R, LO, ON), (R, UP, OT)] {
        for k in [1, 33, 129] {
            for way in [Way::Trsm, Way::Substitute] {
                items.push((s, u, o, k, way));
            }
        }
    }
    each(items, |(s, u, o, k, way)| {
        t += 1;
        let (m, n) = if s == L { (k, 7) } else { (5, k) };
        let c = Case::new(s, u, o, NU, m, n).fit_t(t);
        let zero_at = (t * 13) % k;
        let form = [Form::Single, Form::Strided(2), Form::List(2)][t % 3];
        let mut p = prepare::<E>(
            &mut h,
            &mut r,
            c,
            form,
            1,
            way,
            Scal::Host,
            (0.5, 0.0),
            Fill::ZeroDiag(zero_at),
        );
        let what = format!("{} (zero at A({zero_at}, {zero_at}))", p.name());
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(st, Status::Success, "{what}");
        for (v, x) in p.xs().iter().enumerate() {
            assert!(
                x.v.iter().any(|&e| !finite(e)),
                "{what}: entry {v}: every value finite"
            );
        }
        p.inputs_untouched(&what);
    });
    for (uplo, n) in [(UP, 1), (LO, 33), (UP, 129), (LO, 64)] {
        t += 1;
        let form = [Form::Single, Form::Strided(2), Form::List(2)][t % 3];
        let mut p = prepare_inv::<E>(
            dev,
            &mut r,
            (uplo, NU, n, 1, 2),
            form,
            1,
            Fill::ZeroDiag((t * 7) % n),
        );
        let what = p.name();
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(st, Status::Success, "{what}");
        let after = p.inv.after();
        for v in 0..form_count(form) {
            let x = p.got(&after, v);
            assert!(
                x.v.iter().any(|&e| !finite(e)),
                "{what}: entry {v}: every value finite"
            );
        }
        p.a.untouched(&what);
    }
}

fn f5_singular_a_gives_inf_or_nan_not_an_error(dev: &Device) {
    singular::<f64>(dev, 61);
    singular::<Complex32>(dev, 62);
}

// ---- M8, M9: query, preallocate, Success ---------------------------------------------------

/// The workspace a query with placeholders asks for; checks the query's status.
fn query_trsm<E: T>(dev: &Device, p: &Prepared<E>) -> usize {
    let name = p.name();
    let mut q = fixed_handle(dev, 0);
    q.start_device_memory_size_query().unwrap();
    let st = p
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
    size
}

fn query_trtri<E: T>(dev: &Device, p: &Inv<E>) -> usize {
    let name = p.name();
    let mut q = fixed_handle(dev, 0);
    q.start_device_memory_size_query().unwrap();
    let st = p
        .call_placeholders(&mut q)
        .unwrap_or_else(|e| panic!("{name}: query: {e}"));
    assert!(
        matches!(st, Status::SizeIncreased | Status::SizeUnchanged),
        "{name}: {st:?}"
    );
    q.stop_device_memory_size_query().unwrap()
}

/// Query (placeholders, then the real operands, which must come back untouched and ask for the
/// same), then a handle of exactly that size: `Success`, the right answer, no growth.
fn m9_trsm_one<E: T>(dev: &Device, p: &mut Prepared<E>) {
    let name = p.name();
    let size = query_trsm(dev, p);
    let mut q = fixed_handle(dev, 0);
    q.start_device_memory_size_query().unwrap();
    let _ = p
        .call(&mut q)
        .unwrap_or_else(|e| panic!("{name}: query: {e}"));
    p.untouched(&format!("{name}: during a query"));
    assert_eq!(
        q.stop_device_memory_size_query().unwrap(),
        size,
        "{name}: real operands"
    );
    let mut h = fixed_handle(dev, size);
    let st = p
        .call(&mut h)
        .unwrap_or_else(|e| panic!("{name}: workspace {size}: {e}"));
    assert_eq!(
        st,
        Status::Success,
        "{name}: workspace of the query's {size} bytes"
    );
    p.check(&name);
    let s = h.workspace_stats();
    assert_eq!(
        (s.memory_errors, s.degraded_calls, s.growths),
        (0, 0, 0),
        "{name}: {s}"
    );
}

fn m08_m09_trsm_query_then_preallocate_runs_as_planned(dev: &Device) {
    let mut hh = handle(dev);
    let mut r = Gen::new(71);
    let mut items: Vec<(Case, Form, Way, Scal)> = vec![];
    for (i, cb) in combos().into_iter().enumerate() {
        items.push((Case::of(cb, 300, 129), Form::Single, Way::Trsm, Scal::Host));
        let way = [Way::Substitute, Way::Inverse, Way::Invert][i % 3];
        let scal = [Scal::Host, Scal::Device, Scal::PerEntry][i % 3];
        let form = [Form::Strided(3), Form::List(2), Form::Single][i % 3];
        items.push((Case::of(cb, 65, 129).fit(1, 2), form, way, scal));
    }
    each(items, |(c, form, way, scal)| {
        let mut p = prepare::<f64>(
            &mut hh,
            &mut r,
            c,
            form,
            1,
            way,
            scal,
            (-0.75, 0.0),
            Fill::Well,
        );
        m9_trsm_one(dev, &mut p);
    });
    each(vec![(L, UP, OC, NU), (R, LO, ON, UN)], |cb| {
        let c = Case::of(cb, 129, 300);
        let mut p = prepare::<Complex32>(
            &mut hh,
            &mut r,
            c,
            Form::Strided(2),
            0,
            Way::Trsm,
            Scal::Device,
            (0.5, 1.0),
            Fill::Well,
        );
        m9_trsm_one(dev, &mut p);
    });
}

fn m08_m09_trtri_query_then_preallocate_runs_as_planned(dev: &Device) {
    let mut r = Gen::new(72);
    let mut items = vec![];
    for uplo in UPLOS {
        for diag in DIAGS {
            items.push(((uplo, diag, 300, 0, 1), Form::Single));
            items.push(((uplo, diag, 129, 2, 3), Form::Strided(3)));
            items.push(((uplo, diag, 65, 1, 1), Form::List(7)));
        }
    }
    each(items, |(shape, form)| {
        let mut p = prepare_inv::<f64>(dev, &mut r, shape, form, 2, Fill::Well);
        let name = p.name();
        let size = query_trtri(dev, &p);
        let mut q = fixed_handle(dev, 0);
        q.start_device_memory_size_query().unwrap();
        let _ = p
            .call(&mut q)
            .unwrap_or_else(|e| panic!("{name}: query: {e}"));
        p.inv.untouched(&format!("{name}: during a query"));
        assert_eq!(
            q.stop_device_memory_size_query().unwrap(),
            size,
            "{name}: real operands"
        );
        let mut h = fixed_handle(dev, size);
        let st = p
            .call(&mut h)
            .unwrap_or_else(|e| panic!("{name}: workspace {size}: {e}"));
        assert_eq!(
            st,
            Status::Success,
            "{name}: workspace of the query's {size} bytes"
        );
        p.check(&name);
        let s = h.workspace_stats();
        assert_eq!(
            (s.memory_errors, s.degraded_calls, s.growths),
            (0, 0, 0),
            "{name}: {s}"
        );
    });
}

// ---- M6, F8: small fixed workspaces degrade, same answers --------------------------------------

const KIB: usize = 1024;

/// In a fixed 1 KiB workspace: `PerfDegraded` exactly when the query asks for more (it must
/// for `Invert`), the right answer, no memory error.
fn trsm_in_1kib<E: T>(dev: &Device, p: &mut Prepared<E>) {
    let name = p.name();
    let size = query_trsm(dev, p);
    if matches!(p.way, Way::Trsm | Way::Invert) {
        assert!(size > KIB, "{name}: the query asks for only {size} bytes");
    }
    let mut h = fixed_handle(dev, KIB);
    let st = p
        .call(&mut h)
        .unwrap_or_else(|e| panic!("{name}: 1 KiB workspace: {e}"));
    let degraded = size > KIB;
    let expect = if degraded {
        Status::PerfDegraded
    } else {
        Status::Success
    };
    assert_eq!(st, expect, "{name}: 1 KiB workspace, query said {size}");
    eprintln!("{name}: query {size} bytes, in 1 KiB {st:?}");
    p.check(&format!("{name} (1 KiB workspace)"));
    let s = h.workspace_stats();
    assert_eq!(s.degraded_calls, degraded as u64, "{name}: {s}");
    assert_eq!((s.memory_errors, s.growths), (0, 0), "{name}: {s}");
    assert_eq!(h.get_device_memory_size(), KIB);
}

fn m06_f08_trsm_in_1kib_degrades_with_right_answers(dev: &Device) {
    let mut hh = handle(dev);
    let mut r = Gen::new(81);
    let items: Vec<(Case, Form, Way, bool)> = vec![
        (
            Case::new(L, UP, ON, NU, 129, 129),
            Form::Single,
            Way::Trsm,
            false,
        ),
        (
            Case::new(R, LO, OT, UN, 129, 129).fit(1, 2),
            Form::Single,
            Way::Trsm,
            true,
        ),
        (
            Case::new(L, LO, OC, NU, 129, 129),
            Form::Strided(7),
            Way::Trsm,
            false,
        ),
        (
            Case::new(R, UP, ON, NU, 65, 129),
            Form::List(7),
            Way::Trsm,
            true,
        ),
        (
            Case::new(L, UP, OT, UN, 300, 33),
            Form::Single,
            Way::Invert,
            false,
        ),
        (
            Case::new(R, UP, OC, NU, 64, 129),
            Form::Strided(7),
            Way::Substitute,
            true,
        ),
        (
            Case::new(L, LO, ON, NU, 129, 65),
            Form::Strided(7),
            Way::Inverse,
            false,
        ),
        (
            Case::new(R, LO, OT, NU, 33, 129),
            Form::List(3),
            Way::Inverse,
            true,
        ),
    ];
    each(items, |(c, form, way, cplx)| {
        if cplx {
            let mut p = prepare::<Complex32>(
                &mut hh,
                &mut r,
                c,
                form,
                1,
                way,
                Scal::Host,
                (0.5, -1.0),
                Fill::Well,
            );
            trsm_in_1kib(dev, &mut p);
        } else {
            let mut p = prepare::<f64>(
                &mut hh,
                &mut r,
                c,
                form,
                1,
                way,
                Scal::Host,
                (0.5, 0.0),
                Fill::Well,
            );
            trsm_in_1kib(dev, &mut p);
        }
    });
}

/// Below its full need `trtri` runs a reduced algorithm (`PerfDegraded`, right answers) or,
/// below its minimum, fails with a `MemoryError` naming both sizes and touching nothing; at
/// half, a quarter and 1 KiB of the need at least one size must degrade.
fn trtri_below_need<E: T>(
    dev: &Device,
    r: &mut Gen,
    shape: (Uplo, Diag, usize, usize, usize),
    form: Form,
) {
    let mut p = prepare_inv::<E>(dev, r, shape, form, 1, Fill::Well);
    let name = p.name();
    let full = query_trtri(dev, &p);
    assert!(
        full > 4 * KIB,
        "{name}: the query asks for only {full} bytes"
    );
    let mut degraded = 0;
    for ws in [full / 2, full / 4, KIB] {
        let ws = (ws / 64).max(1) * 64;
        let what = format!("{name} in {ws} of {full} bytes");
        p.inv.reset();
        let mut h = fixed_handle(dev, ws);
        match p.call(&mut h) {
            Ok(Status::PerfDegraded) => {
                eprintln!("{what}: PerfDegraded");
                degraded += 1;
                p.check(&what);
            }
            Ok(st) => panic!("{what}: {st:?}, want PerfDegraded"),
            Err(e @ Error::MemoryError { .. }) => {
                let Error::MemoryError {
                    needed, available, ..
                } = &e
                else {
                    unreachable!()
                };
                eprintln!("{what}: {e}");
                assert!(needed > available, "{what}: {e}");
                assert_eq!((*needed, *available), (full, ws), "{what}: {e}");
                let text = e.to_string();
                assert!(
                    text.contains(&needed.to_string()) && text.contains(&available.to_string()),
                    "{what}: {text}"
                );
                p.inv.untouched(&what);
                assert_eq!(h.workspace_stats().memory_errors, 1, "{what}");
            }
            Err(e) => panic!("{what}: {e}"),
        }
    }
    assert!(
        degraded > 0,
        "{name}: no reduced algorithm at 1/2, 1/4 or 1 KiB of {full} bytes"
    );
}

fn m06_f08_trtri_below_its_need_degrades_with_right_answers(dev: &Device) {
    let mut r = Gen::new(82);
    each(
        vec![
            ((UP, NU, 300, 1, 2), Form::Single, false),
            ((LO, UN, 300, 0, 1), Form::Single, false),
            ((LO, NU, 129, 2, 1), Form::Strided(7), false),
            ((UP, UN, 65, 0, 3), Form::List(7), false),
            ((LO, NU, 129, 1, 1), Form::Single, true),
            ((UP, NU, 128, 3, 2), Form::Strided(3), true),
        ],
        |(shape, form, cplx)| {
            if cplx {
                trtri_below_need::<Complex64>(dev, &mut r, shape, form)
            } else {
                trtri_below_need::<f64>(dev, &mut r, shape, form)
            }
        },
    );
}

// ---- F7, F9, F10: bad arguments -------------------------------------------------------------

/// Asserts the error's kind and that its message names `parts`.
fn expect_err(
    r: Result<Status, Error>,
    kind: fn(&Error) -> bool,
    parts: &[&str],
    what: &str,
) -> Error {
    let e = match r {
        Ok(st) => panic!("{what}: expected an error, got {st:?}"),
        Err(e) => e,
    };
    assert!(kind(&e), "{what}: wrong kind: {e:?}");
    let text = e.to_string();
    for p in parts {
        assert!(
            text.to_lowercase().contains(&p.to_lowercase()),
            "{what}: '{text}' lacks '{p}'"
        );
    }
    e
}
fn is_size(e: &Error) -> bool {
    matches!(e, Error::InvalidSize(_))
}
fn is_value(e: &Error) -> bool {
    matches!(e, Error::InvalidValue(_))
}
fn is_pointer(e: &Error) -> bool {
    matches!(e, Error::InvalidPointer(_))
}

/// Output buffers holding a known pattern, checked bit for bit at the end.
struct Outs<E> {
    bufs: Vec<DeviceBuffer<E>>,
}
impl<E: El> Outs<E> {
    fn new(dev: &Device, lens: &[usize]) -> Outs<E> {
        Outs {
            bufs: lens
                .iter()
                .map(|&l| dev.upload(&pattern::<E>(l)).unwrap())
                .collect(),
        }
    }
    fn check(&self) {
        for (i, b) in self.bufs.iter().enumerate() {
            let got = b.to_vec().unwrap();
            let want = pattern::<E>(got.len());
            assert!(
                got.iter().zip(&want).all(|(a, b)| same(*a, *b)),
                "output {i} was written: {got:?}"
            );
        }
    }
}
fn pattern<E: El>(len: usize) -> Vec<E> {
    (0..len)
        .map(|i| E::make(-7.5 - i as f64, 0.25 * i as f64))
        .collect()
}

fn f7_bad_leading_dimensions_are_invalid_size_naming_them(dev: &Device) {
    let mut h = handle(dev);
    let a = dev.upload(&[0.5f64; 64]).unwrap();
    let al = Coef::Host(1.0f64);
    let mut o = Outs::<f64>::new(dev, &[64, 64, 64]);
    {
        let [b, b1, b2] = &mut o.bufs[..] else {
            unreachable!()
        };
        let r = blas3::trsm(&mut h, L, UP, ON, NU, 6, 4, al, &a, 5, b, 6);
        expect_err(r, is_size, &["trsm", "lda = 5", "6"], "trsm Left lda < m");
        let r = blas3::trsm(&mut h, R, LO, OT, UN, 4, 6, al, &a, 5, b, 4);
        expect_err(r, is_size, &["lda = 5", "6"], "trsm Right lda < n");
        let r = blas3::trsm(&mut h, L, UP, OC, NU, 4, 2, al, &a, 4, b, 3);
        expect_err(r, is_size, &["ldb = 3", "4"], "trsm ldb < m");
        let r = blas3::trsm(&mut h, R, UP, ON, NU, 0, 3, al, &a, 3, b, 0);
        expect_err(r, is_size, &["ldb = 0", "1"], "trsm ldb = 0 with m = 0");
        let r = blas3::trsm(&mut h, L, LO, ON, NU, 0, 3, al, &a, 0, b, 1);
        expect_err(r, is_size, &["lda = 0", "1"], "trsm lda = 0 with m = 0");
        let r = blas3::trsm_batched(
            &mut h,
            L,
            LO,
            ON,
            NU,
            4,
            3,
            al,
            &[&a, &a],
            4,
            &mut [&mut *b1, &mut *b2],
            3,
        );
        expect_err(
            r,
            is_size,
            &["trsm_batched", "ldb = 3", "4"],
            "trsm_batched ldb < m",
        );
        let r = blas3::trsm_strided_batched(&mut h, R, UP, OC, UN, 5, 3, al, &a, 2, 0, b, 5, 15, 2);
        expect_err(
            r,
            is_size,
            &["trsm_strided_batched", "lda = 2", "3"],
            "trsm_strided lda < n",
        );
        let inv = TrsmMethod::Inverse((&a, 4));
        let r = blas3::trsm_ex(&mut h, L, UP, ON, NU, 5, 2, al, &a, 5, b, 5, inv);
        expect_err(
            r,
            is_size,
            &["trsm_ex", "ldinv = 4", "5"],
            "trsm_ex ldinv < m",
        );
        let sub = TrsmMethod::Substitute;
        let r = blas3::trsm_ex(&mut h, R, LO, OT, NU, 2, 5, al, &a, 4, b, 2, sub);
        expect_err(r, is_size, &["lda = 4", "5"], "trsm_ex Substitute lda < n");
        let list = [&a, &a];
        let r = blas3::trsm_ex_batched(
            &mut h,
            L,
            UP,
            OT,
            UN,
            3,
            2,
            al,
            &list,
            3,
            &mut [&mut *b1, &mut *b2],
            3,
            TrsmMethod::Inverse((&list, 2)),
        );
        expect_err(
            r,
            is_size,
            &["trsm_ex_batched", "ldinv = 2", "3"],
            "trsm_ex_batched ldinv < m",
        );
        let r = blas3::trsm_ex_strided_batched(
            &mut h,
            R,
            LO,
            OT,
            NU,
            2,
            3,
            al,
            &a,
            3,
            9,
            b,
            2,
            6,
            2,
            TrsmMethod::Inverse((&a, 2, 9)),
        );
        expect_err(r, is_size, &["ldinv = 2", "3"], "trsm_ex_strided ldinv < n");
        // trtri: the output is inv_a.
        let r = blas3::trtri(&mut h, UP, NU, 5, &a, 5, b, 4);
        expect_err(r, is_size, &["trtri", "ldinv = 4", "5"], "trtri ldinv < n");
        let r = blas3::trtri(&mut h, LO, UN, 5, &a, 4, b, 5);
        expect_err(r, is_size, &["lda = 4", "5"], "trtri lda < n");
        let r = blas3::trtri(&mut h, UP, NU, 0, &a, 1, b, 0);
        expect_err(
            r,
            is_size,
            &["ldinv = 0", "1"],
            "trtri ldinv = 0 with n = 0",
        );
        let r = blas3::trtri_batched(&mut h, UP, NU, 3, &[&a], 3, &mut [&mut *b1], 2);
        expect_err(
            r,
            is_size,
            &["trtri_batched", "ldinv = 2", "3"],
            "trtri_batched ldinv < n",
        );
        let r = blas3::trtri_strided_batched(&mut h, LO, NU, 4, &a, 3, 16, b, 4, 16, 2);
        expect_err(
            r,
            is_size,
            &["trtri_strided_batched", "lda = 3", "4"],
            "trtri_strided lda < n",
        );
    }
    o.check();
}

fn f7_short_buffers_batch_counts_placeholders_are_errors(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let a = up(64);
    let a24 = up(24);
    let a26 = up(26);
    let a39 = up(39);
    let one = up(1);
    let pa = DeviceBuffer::<f64>::placeholder(64);
    let al = Coef::Host(1.0f64);
    let mut o = Outs::<f64>::new(dev, &[64, 19, 26, 24, 64, 64]);
    {
        let [b, b19, b26, b24, b1, b2] = &mut o.bufs[..] else {
            unreachable!()
        };
        // One element short.
        let r = blas3::trsm(&mut h, L, UP, ON, NU, 5, 3, al, &a24, 5, b, 5);
        expect_err(
            r,
            is_value,
            &["trsm", "has 24 elements", "needs 25"],
            "trsm A short",
        );
        let r = blas3::trsm(&mut h, R, UP, ON, UN, 4, 5, al, &a, 5, b19, 4);
        expect_err(
            r,
            is_value,
            &["has 19 elements", "needs 20"],
            "trsm B short",
        );
        let inv = TrsmMethod::Inverse((&a24, 5));
        let r = blas3::trsm_ex(&mut h, L, LO, OT, NU, 5, 2, al, &a, 5, b, 5, inv);
        expect_err(
            r,
            is_value,
            &["has 24 elements", "needs 25"],
            "trsm_ex inverse short",
        );
        let r =
            blas3::trsm_strided_batched(&mut h, L, LO, OT, NU, 3, 3, al, &a, 3, 9, b26, 3, 9, 3);
        expect_err(
            r,
            is_value,
            &["has 26 elements", "needs 27", "stride_b = 9"],
            "trsm_strided B short",
        );
        let r =
            blas3::trsm_strided_batched(&mut h, L, UP, ON, NU, 4, 2, al, &a39, 4, 12, b, 4, 8, 3);
        expect_err(
            r,
            is_value,
            &["has 39 elements", "needs 40", "stride_a = 12"],
            "trsm_strided A short",
        );
        let r = blas3::trsm_ex_strided_batched(
            &mut h,
            L,
            UP,
            ON,
            NU,
            3,
            2,
            al,
            &a,
            3,
            9,
            b,
            3,
            6,
            3,
            TrsmMethod::Inverse((&a26, 3, 9)),
        );
        expect_err(
            r,
            is_value,
            &["has 26 elements", "needs 27", "stride_inv = 9"],
            "trsm_ex_strided inverse short",
        );
        let r = blas3::trsm_batched(
            &mut h,
            L,
            UP,
            ON,
            NU,
            5,
            3,
            al,
            &[&a, &a24],
            5,
            &mut [&mut *b1, &mut *b2],
            5,
        );
        expect_err(
            r,
            is_value,
            &["A[1]", "has 24 elements", "needs 25"],
            "trsm_batched A[1] short",
        );
        let list = [&a, &a];
        let r = blas3::trsm_ex_batched(
            &mut h,
            R,
            LO,
            ON,
            NU,
            3,
            5,
            al,
            &list,
            5,
            &mut [&mut *b1, &mut *b2],
            3,
            TrsmMethod::Inverse((&[&a, &a24], 5)),
        );
        expect_err(
            r,
            is_value,
            &["[1]", "has 24 elements", "needs 25"],
            "trsm_ex_batched inverse[1] short",
        );
        let r = blas3::trtri(&mut h, UP, NU, 5, &a24, 5, b, 5);
        expect_err(
            r,
            is_value,
            &["trtri", "has 24 elements", "needs 25"],
            "trtri A short",
        );
        let r = blas3::trtri(&mut h, LO, UN, 5, &a, 5, b24, 5);
        expect_err(
            r,
            is_value,
            &["has 24 elements", "needs 25"],
            "trtri inv_a short",
        );
        let r = blas3::trtri_strided_batched(&mut h, UP, NU, 3, &a, 3, 9, b26, 3, 9, 3);
        expect_err(
            r,
            is_value,
            &["has 26 elements", "needs 27", "stride_inv = 9"],
            "trtri_strided inv_a short",
        );
        // Batch counts that differ.
        let r = blas3::trsm_batched(
            &mut h,
            L,
            UP,
            ON,
            NU,
            4,
            4,
            al,
            &[&a, &a, &a],
            4,
            &mut [&mut *b1, &mut *b2],
            4,
        );
        expect_err(r, is_size, &["3", "2"], "trsm_batched A list longer");
        let r = blas3::trsm_ex_batched(
            &mut h,
            L,
            UP,
            ON,
            NU,
            4,
            4,
            al,
            &list,
            4,
            &mut [&mut *b1, &mut *b2],
            4,
            TrsmMethod::Inverse((&[&a], 4)),
        );
        expect_err(
            r,
            is_size,
            &["2", "1"],
            "trsm_ex_batched inverse list shorter",
        );
        let r = blas3::trsm_ex_batched(
            &mut h,
            R,
            LO,
            OC,
            UN,
            4,
            4,
            al,
            &list,
            4,
            &mut [&mut *b1],
            4,
            TrsmMethod::Substitute,
        );
        expect_err(r, is_size, &["2", "1"], "trsm_ex_batched B list shorter");
        let r = blas3::trtri_batched(&mut h, UP, NU, 4, &[&a, &a], 4, &mut [&mut *b1], 4);
        expect_err(r, is_size, &["2", "1"], "trtri_batched inv_a list shorter");
        let r = blas3::trtri_batched(&mut h, LO, NU, 4, &[&a], 4, &mut [&mut *b1, &mut *b2], 4);
        expect_err(r, is_size, &["1", "2"], "trtri_batched A list shorter");
        // Placeholders outside a query.
        let r = blas3::trsm(&mut h, L, UP, ON, NU, 4, 4, al, &pa, 4, b, 4);
        expect_err(r, is_pointer, &["placeholder"], "trsm A placeholder");
        let mut pb = DeviceBuffer::<f64>::placeholder(64);
        let r = blas3::trsm(&mut h, L, UP, ON, NU, 4, 4, al, &a, 4, &mut pb, 4);
        expect_err(r, is_pointer, &["placeholder"], "trsm B placeholder");
        let inv = TrsmMethod::Inverse((&pa, 4));
        let r = blas3::trsm_ex(&mut h, R, UP, ON, NU, 4, 4, al, &a, 4, b, 4, inv);
        expect_err(
            r,
            is_pointer,
            &["placeholder"],
            "trsm_ex inverse placeholder",
        );
        let r = blas3::trtri(&mut h, UP, NU, 4, &a, 4, &mut pb, 4);
        expect_err(r, is_pointer, &["placeholder"], "trtri inv_a placeholder");
        let r = blas3::trtri(&mut h, LO, UN, 4, &pa, 4, b, 4);
        expect_err(r, is_pointer, &["placeholder"], "trtri A placeholder");
        // A device alpha per entry holds one value for two entries.
        let r = blas3::trsm_strided_batched(
            &mut h,
            L,
            UP,
            ON,
            NU,
            2,
            2,
            Coef::DevicePerEntry(&one),
            &a,
            2,
            4,
            b,
            2,
            4,
            2,
        );
        expect_err(
            r,
            is_value,
            &["alpha", "needs 2"],
            "trsm per-entry alpha short",
        );
    }
    o.check();
}

fn f9_overlapping_strided_outputs_are_invalid(dev: &Device) {
    let mut h = handle(dev);
    let a = dev.upload(&[0.5f64; 64]).unwrap();
    let al = Coef::Host(1.0f64);
    let mut o = Outs::<f64>::new(dev, &[64]);
    {
        let b = &mut o.bufs[0];
        let r = blas3::trsm_strided_batched(&mut h, L, UP, ON, NU, 2, 2, al, &a, 2, 0, b, 2, 3, 3);
        expect_err(
            r,
            is_value,
            &["overlap", "stride_b = 3"],
            "trsm B stride 3 < 4",
        );
        let r = blas3::trsm_ex_strided_batched(
            &mut h,
            R,
            LO,
            OC,
            UN,
            3,
            2,
            al,
            &a,
            2,
            4,
            b,
            3,
            0,
            2,
            TrsmMethod::Substitute,
        );
        expect_err(
            r,
            is_value,
            &["overlap", "stride_b = 0"],
            "trsm_ex B stride 0",
        );
        let r = blas3::trsm_ex_strided_batched(
            &mut h,
            L,
            LO,
            ON,
            NU,
            3,
            3,
            al,
            &a,
            3,
            0,
            b,
            4,
            10,
            2,
            TrsmMethod::Inverse((&a, 3, 0)),
        );
        expect_err(
            r,
            is_value,
            &["overlap", "stride_b = 10"],
            "trsm_ex B stride 10 < 11",
        );
        let r = blas3::trtri_strided_batched(&mut h, UP, NU, 3, &a, 3, 0, b, 3, 5, 2);
        expect_err(
            r,
            is_value,
            &["overlap", "stride_inv = 5"],
            "trtri inv_a stride 5 < 9",
        );
    }
    o.check();
    // A stride of 0 is fine for a batch of one (nothing to overlap with).
    let b = &mut o.bufs[0];
    let st =
        blas3::trsm_strided_batched(&mut h, L, UP, ON, UN, 2, 2, al, &a, 2, 0, b, 2, 0, 1).unwrap();
    assert_eq!(st, Status::Success);
    let st = blas3::trtri_strided_batched(&mut h, LO, UN, 2, &a, 2, 0, b, 2, 0, 1).unwrap();
    assert_eq!(st, Status::Success);
}

on_both_backends!(
    f1_f10_trsm_all_sides_uplos_ops_diags_forms_sizes_f32,
    f1_f10_trsm_all_sides_uplos_ops_diags_forms_sizes_f64,
    f1_f10_trsm_all_sides_uplos_ops_diags_forms_sizes_c32,
    f1_f10_trsm_all_sides_uplos_ops_diags_forms_sizes_c64,
    f1_f10_trsm_ex_substitute_inverse_invert_f32,
    f1_f10_trsm_ex_substitute_inverse_invert_f64,
    f1_f10_trsm_ex_substitute_inverse_invert_c32,
    f1_f10_trsm_ex_substitute_inverse_invert_c64,
    f3_f10_quick_returns_and_alpha_zero_touch_nothing_else,
    f9_strided_inputs_may_share_one_matrix,
    f1_trsm_ill_conditioned_substitute_keeps_accuracy_f64,
    f1_trsm_ill_conditioned_substitute_keeps_accuracy_f32,
    f1_trtri_all_uplos_diags_forms_sizes_f32,
    f1_trtri_all_uplos_diags_forms_sizes_f64,
    f1_trtri_all_uplos_diags_forms_sizes_c32,
    f1_trtri_all_uplos_diags_forms_sizes_c64,
    f5_singular_a_gives_inf_or_nan_not_an_error,
    m08_m09_trsm_query_then_preallocate_runs_as_planned,
    m08_m09_trtri_query_then_preallocate_runs_as_planned,
    m06_f08_trsm_in_1kib_degrades_with_right_answers,
    m06_f08_trtri_below_its_need_degrades_with_right_answers,
    f7_bad_leading_dimensions_are_invalid_size_naming_them,
    f7_short_buffers_batch_counts_placeholders_are_errors,
    f9_overlapping_strided_outputs_are_invalid,
);
