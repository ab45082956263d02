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

// Short names for the option tables of the tests.
use Diag::{NonUnit as NU, Unit as UN};
use Op::{C as OC, N as ON, T as OT};
use Side::{Left as L, Right as R};
use Uplo::{Lower as LO, Upper as UP};

#[path = "trsm/bad_arguments.rs"]
mod bad_arguments;
#[path = "trsm/ill_conditioned.rs"]
mod ill_conditioned;
#[path = "trsm/preallocate.rs"]
mod preallocate;
#[path = "trsm/quick_returns.rs"]
mod quick_returns;
#[path = "trsm/singular.rs"]
mod singular;
#[path = "trsm/small_workspaces.rs"]
mod small_workspaces;
#[path = "trsm/trsm.rs"]
mod trsm;
#[path = "trsm/trtri.rs"]
mod trtri;
