#![allow(
    clippy::too_many_arguments,
    clippy::type_complexity,
    clippy::needless_range_loop
)]
//! Level-2 rank updates (`ger`, `geru`, `gerc`, `syr`, `syr2`, `her`, `her2`, `spr`, `spr2`,
//! `hpr`, `hpr2`) against f64 references written here as reference BLAS's loops, on both
//! backends (SPEC F1–F4, F7–F10, M6, M8, M9).
//!
//! Every element a call may not write (the unstored triangle, lda padding, gaps of strided
//! batches, one element past each entry, past the packed triangle) holds a NaN with a payload
//! and must keep its bits; every element it may not read (those, and the gaps of vectors with
//! |inc| > 1) would spread NaN into the results.

mod common;

use common::complex::*;
use common::elem::*;
use common::forms::*;
use common::{fixed_handle, handle};
use gpublas::blas2;
use gpublas::{
    Coef, Complex32, Complex64, Device, DeviceBuffer, Error, Handle, Scalar, Status, Uplo,
};

// ---- the routines ------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rt {
    Ger,
    Geru,
    Gerc,
    Syr,
    Her,
    Syr2,
    Her2,
    Spr,
    Hpr,
    Spr2,
    Hpr2,
}

const ALL: [Rt; 11] = [
    Rt::Ger,
    Rt::Geru,
    Rt::Gerc,
    Rt::Syr,
    Rt::Her,
    Rt::Syr2,
    Rt::Her2,
    Rt::Spr,
    Rt::Hpr,
    Rt::Spr2,
    Rt::Hpr2,
];

impl Rt {
    fn name(self) -> &'static str {
        match self {
            Rt::Ger => "ger",
            Rt::Geru => "geru",
            Rt::Gerc => "gerc",
            Rt::Syr => "syr",
            Rt::Her => "her",
            Rt::Syr2 => "syr2",
            Rt::Her2 => "her2",
            Rt::Spr => "spr",
            Rt::Hpr => "hpr",
            Rt::Spr2 => "spr2",
            Rt::Hpr2 => "hpr2",
        }
    }
    fn general(self) -> bool {
        matches!(self, Rt::Ger | Rt::Geru | Rt::Gerc)
    }
    /// Two vectors (x and y).
    fn two(self) -> bool {
        self.general() || matches!(self, Rt::Syr2 | Rt::Her2 | Rt::Spr2 | Rt::Hpr2)
    }
    fn packed(self) -> bool {
        matches!(self, Rt::Spr | Rt::Hpr | Rt::Spr2 | Rt::Hpr2)
    }
    fn herm(self) -> bool {
        matches!(self, Rt::Her | Rt::Her2 | Rt::Hpr | Rt::Hpr2)
    }
    fn conj(self) -> bool {
        self == Rt::Gerc || self.herm()
    }
    fn real_alpha(self) -> bool {
        matches!(self, Rt::Her | Rt::Hpr)
    }
    fn for_type(self, complex: bool) -> bool {
        match self {
            Rt::Ger => !complex,
            Rt::Geru | Rt::Gerc => complex,
            _ if self.herm() => complex,
            _ => true,
        }
    }
}

/// The routines an element type has.
fn routines<E: T>() -> Vec<Rt> {
    ALL.into_iter().filter(|r| r.for_type(E::CPLX)).collect()
}

/// One call's shape arguments.
#[derive(Clone, Copy, Debug)]
struct Case {
    rt: Rt,
    uplo: Uplo,
    m: usize,
    n: usize,
    lda: usize,
    incx: isize,
    incy: isize,
}

impl Case {
    /// Rows of the matrix (the length of x).
    fn rows(&self) -> usize {
        if self.rt.general() {
            self.m
        } else {
            self.n
        }
    }
    fn a_span(&self) -> usize {
        if self.rt.packed() {
            self.n * (self.n + 1) / 2
        } else {
            span(self.rows(), self.n, self.lda)
        }
    }
    fn pos(&self, i: usize, j: usize) -> usize {
        match (self.rt.packed(), self.uplo) {
            (false, _) => i + j * self.lda,
            (true, Uplo::Upper) => i + j * (j + 1) / 2,
            (true, Uplo::Lower) => i + j * (2 * self.n - j - 1) / 2,
        }
    }
    fn stored(&self, i: usize, j: usize) -> bool {
        self.rt.general()
            || match self.uplo {
                Uplo::Upper => i <= j,
                Uplo::Lower => i >= j,
            }
    }
}

// ---- the element types, seen from the test side ------------------------------------------

/// Where alpha lives.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scal {
    Host,
    Device,
    PerEntry,
}

/// alpha of a call: its values (one, or one per entry) and their device copies.
struct Alphas<E: T> {
    vals: Vec<C>,
    scal: Scal,
    full: Option<DeviceBuffer<E>>,
    real: Option<DeviceBuffer<E::Real>>,
}

impl<E: T> Alphas<E> {
    fn new(dev: &Device, scal: Scal, vals: &[C]) -> Self {
        // As the element type holds them (real types drop the imaginary part).
        let vals: Vec<C> = vals.iter().map(|&v| round_to::<E>(v)).collect();
        let (full, real) = if scal == Scal::Host {
            (None, None)
        } else {
            // One value past those a call may use: NaN.
            let mut f: Vec<E> = vals.iter().map(|v| E::make(v.0, v.1)).collect();
            f.push(nan());
            let mut r: Vec<E::Real> = vals.iter().map(|v| E::real(v.0)).collect();
            r.push(E::real(f64::NAN));
            (Some(dev.upload(&f).unwrap()), Some(dev.upload(&r).unwrap()))
        };
        Alphas {
            vals,
            scal,
            full,
            real,
        }
    }
    fn host(v: C) -> Self {
        Alphas {
            vals: vec![round_to::<E>(v)],
            scal: Scal::Host,
            full: None,
            real: None,
        }
    }
    fn of_entry(&self, e: usize) -> C {
        if self.scal == Scal::PerEntry {
            self.vals[e]
        } else {
            self.vals[0]
        }
    }
    fn full(&self) -> Coef<'_, E> {
        match self.scal {
            Scal::Host => Coef::Host(E::make(self.vals[0].0, self.vals[0].1)),
            Scal::Device => Coef::Device(self.full.as_ref().unwrap()),
            Scal::PerEntry => Coef::DevicePerEntry(self.full.as_ref().unwrap()),
        }
    }
    fn real(&self) -> Coef<'_, E::Real> {
        match self.scal {
            Scal::Host => Coef::Host(E::real(self.vals[0].0)),
            Scal::Device => Coef::Device(self.real.as_ref().unwrap()),
            Scal::PerEntry => Coef::DevicePerEntry(self.real.as_ref().unwrap()),
        }
    }
}

/// The four BLAS scalars; the routines that exist for only some of them go through here.
trait T: El + Scalar {
    fn real(v: f64) -> Self::Real;
    /// ger (real types) or geru/gerc/her/her2/hpr/hpr2 (complex types).
    fn typed(
        h: &mut Handle,
        c: &Case,
        x: &Placed<Self>,
        y: Option<&Placed<Self>>,
        a: &mut Placed<Self>,
        al: &Alphas<Self>,
    ) -> Result<Status, Error>;
}

macro_rules! ger_forms {
    ($f:ident, $fb:ident, $fs:ident; $h:expr, $c:expr, $x:expr, $y:expr, $a:expr, $al:expr) => {{
        let (c, x, y, a) = ($c, $x, $y.unwrap(), $a);
        let (batch, sa) = (form_count(a.form), a.stride);
        match a.form {
            Form::Single => blas2::$f(
                $h,
                c.m,
                c.n,
                $al,
                x.one(),
                c.incx,
                y.one(),
                c.incy,
                a.one_mut(),
                c.lda,
            ),
            Form::List(_) => blas2::$fb(
                $h,
                c.m,
                c.n,
                $al,
                &x.refs(),
                c.incx,
                &y.refs(),
                c.incy,
                &mut a.muts(),
                c.lda,
            ),
            Form::Strided(_) => blas2::$fs(
                $h,
                c.m,
                c.n,
                $al,
                x.one(),
                c.incx,
                x.stride,
                y.one(),
                c.incy,
                y.stride,
                a.one_mut(),
                c.lda,
                sa,
                batch,
            ),
        }
    }};
}

macro_rules! syr_forms {
    ($f:ident, $fb:ident, $fs:ident; $h:expr, $c:expr, $x:expr, $a:expr, $al:expr) => {{
        let (c, x, a) = ($c, $x, $a);
        let (batch, sa) = (form_count(a.form), a.stride);
        match a.form {
            Form::Single => blas2::$f($h, c.uplo, c.n, $al, x.one(), c.incx, a.one_mut(), c.lda),
            Form::List(_) => blas2::$fb(
                $h,
                c.uplo,
                c.n,
                $al,
                &x.refs(),
                c.incx,
                &mut a.muts(),
                c.lda,
            ),
            Form::Strided(_) => blas2::$fs(
                $h,
                c.uplo,
                c.n,
                $al,
                x.one(),
                c.incx,
                x.stride,
                a.one_mut(),
                c.lda,
                sa,
                batch,
            ),
        }
    }};
}

macro_rules! syr2_forms {
    ($f:ident, $fb:ident, $fs:ident; $h:expr, $c:expr, $x:expr, $y:expr, $a:expr, $al:expr) => {{
        let (c, x, y, a) = ($c, $x, $y.unwrap(), $a);
        let (batch, sa) = (form_count(a.form), a.stride);
        match a.form {
            Form::Single => blas2::$f(
                $h,
                c.uplo,
                c.n,
                $al,
                x.one(),
                c.incx,
                y.one(),
                c.incy,
                a.one_mut(),
                c.lda,
            ),
            Form::List(_) => blas2::$fb(
                $h,
                c.uplo,
                c.n,
                $al,
                &x.refs(),
                c.incx,
                &y.refs(),
                c.incy,
                &mut a.muts(),
                c.lda,
            ),
            Form::Strided(_) => blas2::$fs(
                $h,
                c.uplo,
                c.n,
                $al,
                x.one(),
                c.incx,
                x.stride,
                y.one(),
                c.incy,
                y.stride,
                a.one_mut(),
                c.lda,
                sa,
                batch,
            ),
        }
    }};
}

macro_rules! spr_forms {
    ($f:ident, $fb:ident, $fs:ident; $h:expr, $c:expr, $x:expr, $a:expr, $al:expr) => {{
        let (c, x, a) = ($c, $x, $a);
        let (batch, sa) = (form_count(a.form), a.stride);
        match a.form {
            Form::Single => blas2::$f($h, c.uplo, c.n, $al, x.one(), c.incx, a.one_mut()),
            Form::List(_) => blas2::$fb($h, c.uplo, c.n, $al, &x.refs(), c.incx, &mut a.muts()),
            Form::Strided(_) => blas2::$fs(
                $h,
                c.uplo,
                c.n,
                $al,
                x.one(),
                c.incx,
                x.stride,
                a.one_mut(),
                sa,
                batch,
            ),
        }
    }};
}

macro_rules! spr2_forms {
    ($f:ident, $fb:ident, $fs:ident; $h:expr, $c:expr, $x:expr, $y:expr, $a:expr, $al:expr) => {{
        let (c, x, y, a) = ($c, $x, $y.unwrap(), $a);
        let (batch, sa) = (form_count(a.form), a.stride);
        match a.form {
            Form::Single => blas2::$f(
                $h,
                c.uplo,
                c.n,
                $al,
                x.one(),
                c.incx,
                y.one(),
                c.incy,
                a.one_mut(),
            ),
            Form::List(_) => blas2::$fb(
                $h,
                c.uplo,
                c.n,
                $al,
                &x.refs(),
                c.incx,
                &y.refs(),
                c.incy,
                &mut a.muts(),
            ),
            Form::Strided(_) => blas2::$fs(
                $h,
                c.uplo,
                c.n,
                $al,
                x.one(),
                c.incx,
                x.stride,
                y.one(),
                c.incy,
                y.stride,
                a.one_mut(),
                sa,
                batch,
            ),
        }
    }};
}

macro_rules! real_t {
    ($t:ty) => {
        impl T for $t {
            fn real(v: f64) -> $t {
                v as $t
            }
            fn typed(
                h: &mut Handle,
                c: &Case,
                x: &Placed<Self>,
                y: Option<&Placed<Self>>,
                a: &mut Placed<Self>,
                al: &Alphas<Self>,
            ) -> Result<Status, Error> {
                assert_eq!(c.rt, Rt::Ger, "{:?} takes complex elements", c.rt);
                ger_forms!(ger, ger_batched, ger_strided_batched; h, c, x, y, a, al.full())
            }
        }
    };
}
macro_rules! complex_t {
    ($t:ty, $r:ty) => {
        impl T for $t {
            fn real(v: f64) -> $r {
                v as $r
            }
            fn typed(
                h: &mut Handle,
                c: &Case,
                x: &Placed<Self>,
                y: Option<&Placed<Self>>,
                a: &mut Placed<Self>,
                al: &Alphas<Self>,
            ) -> Result<Status, Error> {
                match c.rt {
                    Rt::Geru => {
                        ger_forms!(geru, geru_batched, geru_strided_batched; h, c, x, y, a, al.full())
                    }
                    Rt::Gerc => {
                        ger_forms!(gerc, gerc_batched, gerc_strided_batched; h, c, x, y, a, al.full())
                    }
                    Rt::Her => syr_forms!(her, her_batched, her_strided_batched; h, c, x, a, al.real()),
                    Rt::Her2 => {
                        syr2_forms!(her2, her2_batched, her2_strided_batched; h, c, x, y, a, al.full())
                    }
                    Rt::Hpr => spr_forms!(hpr, hpr_batched, hpr_strided_batched; h, c, x, a, al.real()),
                    Rt::Hpr2 => {
                        spr2_forms!(hpr2, hpr2_batched, hpr2_strided_batched; h, c, x, y, a, al.full())
                    }
                    other => panic!("{other:?} is not complex-only"),
                }
            }
        }
    };
}
real_t!(f32);
real_t!(f64);
complex_t!(Complex32, f32);
complex_t!(Complex64, f64);

/// Calls the routine of `c` in `a`'s layout.
fn dispatch<E: T>(
    h: &mut Handle,
    c: &Case,
    x: &Placed<E>,
    y: Option<&Placed<E>>,
    a: &mut Placed<E>,
    al: &Alphas<E>,
) -> Result<Status, Error> {
    match c.rt {
        Rt::Syr => syr_forms!(syr, syr_batched, syr_strided_batched; h, c, x, a, al.full()),
        Rt::Syr2 => syr2_forms!(syr2, syr2_batched, syr2_strided_batched; h, c, x, y, a, al.full()),
        Rt::Spr => spr_forms!(spr, spr_batched, spr_strided_batched; h, c, x, a, al.full()),
        Rt::Spr2 => spr2_forms!(spr2, spr2_batched, spr2_strided_batched; h, c, x, y, a, al.full()),
        _ => E::typed(h, c, x, y, a, al),
    }
}

// ---- data and the reference --------------------------------------------------------------

/// Logical element i of a vector of `len` at increment `inc` (reference BLAS addressing).
fn idx(len: usize, inc: isize, i: usize) -> usize {
    if inc >= 0 {
        i * inc as usize
    } else {
        (len - 1 - i) * inc.unsigned_abs()
    }
}

fn vspan(len: usize, inc: isize) -> usize {
    if len == 0 {
        0
    } else {
        (len - 1) * inc.unsigned_abs() + 1
    }
}

/// Uniform in [-1, 1) (both parts for complex types).
fn rnd<E: T>(r: &mut Gen) -> E {
    let re = r.uni();
    let im = if E::CPLX { r.uni() } else { 0.0 };
    E::make(re, im)
}

/// A vector's storage (NaN with a payload in the gaps) from its logical values.
fn place_vec<E: T>(vals: &[E], inc: isize) -> Vec<E> {
    let mut st = vec![E::pnan(); vspan(vals.len(), inc)];
    for (i, v) in vals.iter().enumerate() {
        st[idx(vals.len(), inc, i)] = *v;
    }
    st
}

/// What data a case gets beyond random values.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Data {
    Random,
    /// Zero column coefficients in some columns and an infinity in the row vector: reference
    /// BLAS skips those columns, so they stay as they were (Hermitian diagonals turn real).
    ZeroColumns,
    /// NaN in x and y (alpha == 0: nothing may be read).
    NanVectors,
}

/// One expected output element: position, value, tolerance, imaginary part exactly zero.
type Want = (usize, C, f64, bool);

fn cj_if(c: bool, v: C) -> C {
    if c {
        conj(v)
    } else {
        v
    }
}

/// Reference BLAS's loop for one entry, in f64 (real arithmetic for real types, so that an
/// infinity meets no imaginary zero): the expected value of every stored element.
fn reference<E: T>(c: &Case, a: &[C], x: &[C], y: &[C], alpha: C) -> Vec<Want> {
    let (rows, n) = (c.rows(), c.n);
    let rt = c.rt;
    let mul = |p: C, q: C| {
        if E::CPLX {
            cmul(p, q)
        } else {
            (p.0 * q.0, 0.0)
        }
    };
    // syr2/her2's second vector down the rows.
    let sym2 = rt.two() && !rt.general();
    let mut out = Vec::new();
    for j in 0..n {
        // TEMP/TEMP1/TEMP2 and whether the column is skipped.
        let (skip, t1, t2) = match (rt.general(), rt.two()) {
            (true, _) => (y[j] == ZERO, mul(alpha, cj_if(rt.conj(), y[j])), ZERO),
            (false, false) => (x[j] == ZERO, mul(alpha, cj_if(rt.conj(), x[j])), ZERO),
            (false, true) => (
                x[j] == ZERO && y[j] == ZERO,
                mul(alpha, cj_if(rt.conj(), y[j])),
                cj_if(rt.conj(), mul(alpha, x[j])),
            ),
        };
        for i in 0..rows {
            if !c.stored(i, j) {
                continue;
            }
            let p = c.pos(i, j);
            let old = a[p];
            let diag = rt.herm() && i == j;
            if skip {
                let v = if diag { (old.0, 0.0) } else { old };
                out.push((p, v, 0.0, diag));
                continue;
            }
            let mut d = mul(x[i], t1);
            let mut scale = mag(x[i]) * mag(t1);
            if sym2 {
                d = cadd(d, mul(y[i], t2));
                scale += mag(y[i]) * mag(t2);
            }
            let tol = 8.0 * E::EPS * (mag(old) + scale);
            if diag {
                out.push((p, (old.0 + d.0, 0.0), tol, true));
            } else if sym2 {
                // (A + x t1) + y t2, in reference BLAS's order.
                let v = cadd(cadd(old, mul(x[i], t1)), mul(y[i], t2));
                out.push((p, v, tol, false));
            } else {
                out.push((p, cadd(old, d), tol, false));
            }
        }
    }
    out
}

/// A call ready to run, with its operands placed and its expected outputs.
struct Prepared<E: T> {
    c: Case,
    x: Placed<E>,
    y: Option<Placed<E>>,
    a: Placed<E>,
    al: Alphas<E>,
    want: Vec<Vec<Want>>,
}

fn prepare<E: T>(
    dev: &Device,
    r: &mut Gen,
    c: Case,
    form: Form,
    al: Alphas<E>,
    data: Data,
) -> Prepared<E> {
    let count = form_count(form);
    let (rows, n) = (c.rows(), c.n);
    let (mut a_e, mut x_e, mut y_e, mut want) = (vec![], vec![], vec![], vec![]);
    for e in 0..count {
        let alpha = al.of_entry(e);
        let mut st = vec![E::pnan(); c.a_span()];
        let mut dense = vec![ZERO; c.a_span()];
        for j in 0..n {
            for i in 0..rows {
                if c.stored(i, j) {
                    let v: E = rnd(r);
                    st[c.pos(i, j)] = v;
                    dense[c.pos(i, j)] = v.get();
                }
            }
        }
        let mut xv: Vec<E> = (0..rows).map(|_| rnd(r)).collect();
        let ylen = if c.rt.two() { n } else { 0 };
        let mut yv: Vec<E> = (0..ylen).map(|_| rnd(r)).collect();
        match data {
            Data::Random => {}
            Data::NanVectors => {
                xv.iter_mut().for_each(|v| *v = nan());
                yv.iter_mut().for_each(|v| *v = nan());
            }
            Data::ZeroColumns => {
                // Every third column's coefficients zero, an infinity in a row of another.
                for j in (0..n).step_by(3) {
                    if c.rt.general() {
                        yv[j] = E::make(0.0, 0.0);
                    } else {
                        xv[j] = E::make(0.0, 0.0);
                        if c.rt.two() {
                            yv[j] = E::make(0.0, 0.0);
                        }
                    }
                }
                if rows > 1 {
                    xv[1] = E::make(f64::INFINITY, 0.25);
                }
            }
        }
        let xl: Vec<C> = xv.iter().map(|v| v.get()).collect();
        let yl: Vec<C> = yv.iter().map(|v| v.get()).collect();
        let quick = rows == 0 || n == 0 || alpha == ZERO;
        want.push(if quick {
            vec![]
        } else {
            reference::<E>(&c, &dense, &xl, &yl, alpha)
        });
        a_e.push(st);
        x_e.push(place_vec(&xv, c.incx));
        y_e.push(place_vec(&yv, c.incy));
    }
    let x = Placed::new(dev, form, vspan(rows, c.incx), &x_e, E::pnan());
    let y =
        c.rt.two()
            .then(|| Placed::new(dev, form, vspan(n, c.incy), &y_e, E::pnan()));
    let a = Placed::new(dev, form, c.a_span(), &a_e, E::pnan());
    Prepared {
        c,
        x,
        y,
        a,
        al,
        want,
    }
}

/// Within tolerance, or the same special value (infinities and NaN from the infinities of
/// `Data::ZeroColumns`).
fn close(g: f64, w: f64, tol: f64) -> bool {
    (g - w).abs() <= tol || g == w || (g.is_nan() && w.is_nan())
}

impl<E: T> Prepared<E> {
    fn call(&mut self, h: &mut Handle) -> Result<Status, Error> {
        dispatch(h, &self.c, &self.x, self.y.as_ref(), &mut self.a, &self.al)
    }

    /// The same call with placeholders for every operand (host alpha).
    fn call_placeholders(&self, h: &mut Handle) -> Result<Status, Error> {
        let x = self.x.placeholders();
        let y = self.y.as_ref().map(|y| y.placeholders());
        let mut a = self.a.placeholders();
        let al = Alphas::host(self.al.vals[0]);
        dispatch(h, &self.c, &x, y.as_ref(), &mut a, &al)
    }

    /// Outputs as expected, everything else bit-identical; inputs untouched.
    fn check(&self, what: &str) {
        let after = self.a.after();
        let mut marks: Vec<Vec<Option<(C, f64, bool)>>> =
            after.iter().map(|b| vec![None; b.len()]).collect();
        for (v, w) in self.want.iter().enumerate() {
            let (b, off) = self.a.loc(v);
            for &(p, val, tol, exact_im) in w {
                marks[b][off + p] = Some((val, tol, exact_im));
            }
        }
        for b in 0..after.len() {
            for p in 0..after[b].len() {
                let got = after[b][p];
                match marks[b][p] {
                    Some((w, tol, exact_im)) => {
                        let g = got.get();
                        assert!(
                            close(g.0, w.0, tol) && close(g.1, w.1, tol),
                            "{what}: buffer {b} element {p}: got {g:?}, want {w:?} (tol {tol:e})"
                        );
                        assert!(
                            !exact_im || g.1 == 0.0,
                            "{what}: buffer {b} element {p} is a Hermitian diagonal but {g:?} has an imaginary part"
                        );
                        if tol == 0.0 && !exact_im {
                            assert!(
                                same(got, self.a.before[b][p]),
                                "{what}: buffer {b} element {p} of a skipped column changed"
                            );
                        }
                    }
                    None => assert!(
                        same(got, self.a.before[b][p]),
                        "{what}: buffer {b} element {p} is not an output but changed from {:?} to {:?}",
                        self.a.before[b][p].get(),
                        got.get()
                    ),
                }
            }
        }
        self.inputs_untouched(what);
    }

    fn inputs_untouched(&self, what: &str) {
        self.x.untouched(&format!("{what} (x)"));
        if let Some(y) = &self.y {
            y.untouched(&format!("{what} (y)"));
        }
    }

    fn untouched(&self, what: &str) {
        self.a.untouched(what);
        self.inputs_untouched(what);
    }

    fn reset(&mut self) {
        self.a.reset();
    }
}

/// A case for `rt` of order `n` (ger: `m × n`), with lda `pad` above the minimum.
fn case(rt: Rt, uplo: Uplo, m: usize, n: usize, pad: usize, incx: isize, incy: isize) -> Case {
    let rows = if rt.general() { m } else { n };
    Case {
        rt,
        uplo,
        m: if rt.general() { m } else { n },
        n,
        lda: rows.max(1) + pad,
        incx,
        incy,
    }
}

/// alpha values to cycle through (real for her/hpr).
fn alpha_for(rt: Rt, k: usize) -> C {
    const VALS: [C; 4] = [(0.75, -0.25), (-1.5, 0.5), (1.0, 0.0), (0.5, 1.25)];
    let v = VALS[k % VALS.len()];
    if rt.real_alpha() {
        (v.0, 0.0)
    } else {
        v
    }
}

/// Runs `c` in `form` and checks every element of every buffer.
fn check_case<E: T>(
    h: &mut Handle,
    dev: &Device,
    r: &mut Gen,
    c: Case,
    form: Form,
    al: Alphas<E>,
    data: Data,
) {
    let what = format!("{} {c:?} {form:?} {data:?} alpha {:?}", E::NAME, al.vals);
    let mut p = prepare(dev, r, c, form, al, data);
    let st = p.call(h).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(st, Status::Success, "{what}");
    p.check(&what);
}

const INCS: [(isize, isize); 5] = [(1, 1), (2, -1), (-1, 2), (-3, 1), (1, -3)];
const SMALL: [usize; 6] = [0, 1, 2, 31, 32, 33];
const LARGE: [usize; 6] = [63, 64, 65, 127, 128, 129];
const LARGE_FORMS: [Form; 3] = [Form::Single, Form::List(2), Form::Strided(2)];

/// Every size, layout, uplo and increment pair of `rt` for element type `E`.
fn sweep<E: T>(dev: &Device, rt: Rt, seed: u64) {
    let mut r = Gen::new(seed);
    let mut h = handle(dev);
    let uplos: &[Uplo] = if rt.general() {
        &[Uplo::Upper]
    } else {
        &[Uplo::Upper, Uplo::Lower]
    };
    let mut k = 0;
    for &uplo in uplos {
        for (sizes, forms) in [(&SMALL, FORMS), (&LARGE, &LARGE_FORMS[..])] {
            for &n in sizes.iter() {
                for &form in forms {
                    let (incx, incy) = INCS[k % INCS.len()];
                    // ger: m cycles around n.
                    let m = if rt.general() { n + k % 3 } else { n };
                    let c = case(rt, uplo, m, n, k % 3 * 2, incx, incy);
                    let al = Alphas::host(alpha_for(rt, k));
                    check_case::<E>(&mut h, dev, &mut r, c, form, al, Data::Random);
                    k += 1;
                }
            }
        }
    }
}

fn sweep_all<E: T>(dev: &Device, rts: &[Rt], seed: u64) {
    for (i, &rt) in rts.iter().enumerate() {
        if rt.for_type(E::CPLX) {
            sweep::<E>(dev, rt, seed + i as u64);
        }
    }
}

fn every_type(dev: &Device, rts: &[Rt], seed: u64) {
    sweep_all::<f32>(dev, rts, seed);
    sweep_all::<f64>(dev, rts, seed + 100);
    sweep_all::<Complex32>(dev, rts, seed + 200);
    sweep_all::<Complex64>(dev, rts, seed + 300);
}

// ---- F1: every routine, type, uplo, layout and size ----------------------------------------

fn f1_ger_geru_gerc_every_form(dev: &Device) {
    every_type(dev, &[Rt::Ger, Rt::Geru, Rt::Gerc], 1);
}
fn f1_syr_her_every_form(dev: &Device) {
    every_type(dev, &[Rt::Syr, Rt::Her], 2);
}
fn f1_syr2_her2_every_form(dev: &Device) {
    every_type(dev, &[Rt::Syr2, Rt::Her2], 3);
}
fn f1_spr_hpr_every_form(dev: &Device) {
    every_type(dev, &[Rt::Spr, Rt::Hpr], 4);
}
fn f1_spr2_hpr2_every_form(dev: &Device) {
    every_type(dev, &[Rt::Spr2, Rt::Hpr2], 5);
}

/// ger with m far from n: tall (1000 × 3) and wide (3 × 1000).
fn ger_shapes<E: T>(dev: &Device, seed: u64) {
    let mut r = Gen::new(seed);
    let mut h = handle(dev);
    for (k, rt) in routines::<E>()
        .into_iter()
        .filter(|r| r.general())
        .enumerate()
    {
        for (m, n) in [(1000, 3), (3, 1000), (1, 257), (257, 1)] {
            for form in [Form::Single, Form::List(3), Form::Strided(2)] {
                let (incx, incy) = INCS[(k + m) % INCS.len()];
                let c = case(rt, Uplo::Upper, m, n, 1, incx, incy);
                let al = Alphas::host(alpha_for(rt, k));
                check_case::<E>(&mut h, dev, &mut r, c, form, al, Data::Random);
            }
        }
    }
}
fn f1_ger_tall_and_wide(dev: &Device) {
    ger_shapes::<f32>(dev, 11);
    ger_shapes::<f64>(dev, 12);
    ger_shapes::<Complex32>(dev, 13);
    ger_shapes::<Complex64>(dev, 14);
}

/// Larger triangles: more than one tile of the GPU kernels (square tiles over the triangle).
fn larger<E: T>(dev: &Device, seed: u64) {
    let mut r = Gen::new(seed);
    let mut h = handle(dev);
    for (k, rt) in routines::<E>().into_iter().enumerate() {
        let uplo = if k % 2 == 0 { Uplo::Upper } else { Uplo::Lower };
        let n = [300, 257, 513][k % 3];
        let c = case(rt, uplo, n + 5, n, k % 2, 1, -1);
        let al = Alphas::host(alpha_for(rt, k));
        check_case::<E>(&mut h, dev, &mut r, c, Form::Single, al, Data::Random);
    }
}
fn f1_larger_matrices(dev: &Device) {
    larger::<f32>(dev, 21);
    larger::<f64>(dev, 22);
    larger::<Complex32>(dev, 23);
    larger::<Complex64>(dev, 24);
}

/// Packed triangles of five to seven row tiles of the GPU kernels, whose interior tiles' pieces
/// follow each column's alignment: the order a multiple of the tile and not, the second entry
/// at a misaligned stride, zero columns, a list with alpha per entry in device memory.
fn packed_tiles<E: T>(dev: &Device, seed: u64) {
    let mut r = Gen::new(seed);
    let mut h = handle(dev);
    // Rows of a GPU tile: 32 pieces of 16 bytes.
    let rb = 32 * (16 / std::mem::size_of::<E>()).max(1);
    let mut k = 0;
    for rt in routines::<E>().into_iter().filter(|r| r.packed()) {
        for uplo in [Uplo::Upper, Uplo::Lower] {
            for (n, data) in [(5 * rb, Data::Random), (6 * rb + 3, Data::ZeroColumns)] {
                let (incx, incy) = INCS[k % INCS.len()];
                let c = case(rt, uplo, n, n, 0, incx, incy);
                let al = Alphas::host(alpha_for(rt, k));
                check_case::<E>(&mut h, dev, &mut r, c, Form::Strided(2), al, data);
                k += 1;
            }
            // A list of entries with alpha per entry in device memory (real for hpr/hpr2), one
            // of them zero (that entry untouched).
            let n = 5 * rb + 1;
            let (incx, incy) = INCS[k % INCS.len()];
            let c = case(rt, uplo, n, n, 0, incx, incy);
            let vals = [alpha_for(rt, k), ZERO, alpha_for(rt, k + 1)];
            let al = Alphas::new(dev, Scal::PerEntry, &vals);
            check_case::<E>(&mut h, dev, &mut r, c, Form::List(3), al, Data::Random);
            k += 1;
        }
    }
}
fn f1_packed_updates_over_many_tiles(dev: &Device) {
    packed_tiles::<f32>(dev, 41);
    packed_tiles::<f64>(dev, 42);
    packed_tiles::<Complex32>(dev, 43);
    packed_tiles::<Complex64>(dev, 44);
}

// ---- F3: quick returns ---------------------------------------------------------------------

/// alpha == 0 (host): nothing read or written, NaN in x and y included; n == 0 and m == 0 too.
fn quick<E: T>(dev: &Device, seed: u64) {
    let mut r = Gen::new(seed);
    let mut h = handle(dev);
    for rt in routines::<E>() {
        for form in [Form::Single, Form::List(3), Form::Strided(3)] {
            for uplo in [Uplo::Upper, Uplo::Lower] {
                let c = case(rt, uplo, 9, 7, 2, -2, 3);
                let mut p =
                    prepare::<E>(dev, &mut r, c, form, Alphas::host(ZERO), Data::NanVectors);
                let what = format!("{} {c:?} {form:?} alpha 0", E::NAME);
                let st = p.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(st, Status::Success, "{what}");
                p.untouched(&what);
            }
            // n == 0 (and m == 0 for ger) with empty operands.
            let shapes: &[(usize, usize)] = if rt.general() {
                &[(0, 5), (5, 0)]
            } else {
                &[(0, 0)]
            };
            for &(m, n) in shapes {
                let c = case(rt, Uplo::Lower, m, n, 0, 1, 1);
                let mut p = prepare::<E>(
                    dev,
                    &mut r,
                    c,
                    form,
                    Alphas::host(alpha_for(rt, 0)),
                    Data::Random,
                );
                let what = format!("{} {c:?} {form:?} empty", E::NAME);
                let st = p.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(st, Status::Success, "{what}");
                p.untouched(&what);
            }
        }
    }
}
fn f3_alpha_zero_and_empty_touch_nothing(dev: &Device) {
    quick::<f32>(dev, 31);
    quick::<f64>(dev, 32);
    quick::<Complex32>(dev, 33);
    quick::<Complex64>(dev, 34);
}

// ---- F10: alpha in device memory -------------------------------------------------------------

fn device_alpha<E: T>(dev: &Device, seed: u64) {
    let mut r = Gen::new(seed);
    let mut h = handle(dev);
    for (k, rt) in routines::<E>().into_iter().enumerate() {
        let uplo = if k % 2 == 0 { Uplo::Lower } else { Uplo::Upper };
        for (form, scal) in [
            (Form::Single, Scal::Device),
            (Form::List(4), Scal::Device),
            (Form::Strided(4), Scal::PerEntry),
            (Form::List(4), Scal::PerEntry),
        ] {
            let c = case(rt, uplo, 35, 33, 1, 2, -1);
            // Per entry: a zero among them (that entry untouched, as reference BLAS).
            let vals: Vec<C> = (0..4)
                .map(|e| if e == 2 { ZERO } else { alpha_for(rt, e) })
                .collect();
            let al = Alphas::new(dev, scal, &vals);
            check_case::<E>(&mut h, dev, &mut r, c, form, al, Data::Random);
        }
        // A device alpha of zero: nothing written, NaN in x and y included.
        let c = case(rt, uplo, 17, 19, 0, 1, 1);
        let al = Alphas::new(dev, Scal::Device, &[ZERO]);
        let mut p = prepare::<E>(dev, &mut r, c, Form::Strided(3), al, Data::NanVectors);
        let what = format!("{} {c:?} device alpha 0", E::NAME);
        assert_eq!(p.call(&mut h).unwrap(), Status::Success, "{what}");
        p.untouched(&what);
    }
}
fn f10_device_alpha(dev: &Device) {
    device_alpha::<f32>(dev, 41);
    device_alpha::<f64>(dev, 42);
    device_alpha::<Complex32>(dev, 43);
    device_alpha::<Complex64>(dev, 44);
}

// ---- reference BLAS's skipped columns and the Hermitian diagonal -----------------------------

/// Columns whose coefficients are zero are skipped: an infinity in the row vector does not
/// reach them, and her*/hpr* still make their diagonal real (`A(J,J) = DBLE(A(J,J))`).
fn zero_columns<E: T>(dev: &Device, seed: u64) {
    let mut r = Gen::new(seed);
    let mut h = handle(dev);
    for (k, rt) in routines::<E>().into_iter().enumerate() {
        for uplo in [Uplo::Upper, Uplo::Lower] {
            for (n, form) in [
                (7, Form::Single),
                (70, Form::Strided(2)),
                (130, Form::List(2)),
            ] {
                let c = case(rt, uplo, n + 1, n, 1, 1, -2);
                let al = Alphas::host(alpha_for(rt, k));
                check_case::<E>(&mut h, dev, &mut r, c, form, al, Data::ZeroColumns);
            }
        }
    }
}
fn reference_blas_skips_zero_columns(dev: &Device) {
    zero_columns::<f32>(dev, 51);
    zero_columns::<f64>(dev, 52);
    zero_columns::<Complex32>(dev, 53);
    zero_columns::<Complex64>(dev, 54);
}

/// The diagonal's imaginary part is exactly zero after her/her2/hpr/hpr2, whatever it held.
fn hermitian_diagonal<E: T>(dev: &Device, seed: u64) {
    let mut r = Gen::new(seed);
    let mut h = handle(dev);
    for rt in routines::<E>().into_iter().filter(|r| r.herm()) {
        for uplo in [Uplo::Upper, Uplo::Lower] {
            for data in [Data::Random, Data::ZeroColumns] {
                let c = case(rt, uplo, 40, 40, 0, 1, 1);
                let mut p =
                    prepare::<E>(dev, &mut r, c, Form::Single, Alphas::host((0.5, 0.0)), data);
                assert_eq!(p.call(&mut h).unwrap(), Status::Success);
                let a = p.a.after().remove(0);
                for j in 0..c.n {
                    let d = a[c.pos(j, j)].get();
                    let before = p.a.before[0][c.pos(j, j)].get();
                    assert!(before.1 != 0.0, "the test starts from a complex diagonal");
                    assert_eq!(d.1, 0.0, "{rt:?} {uplo:?} {data:?}: A({j},{j}) = {d:?}");
                }
                p.check(&format!("{rt:?} {uplo:?} {data:?}"));
            }
        }
    }
}
fn her_her2_hpr_hpr2_leave_a_real_diagonal(dev: &Device) {
    hermitian_diagonal::<Complex32>(dev, 61);
    hermitian_diagonal::<Complex64>(dev, 62);
}

#[path = "blas2_update/bad_arguments.rs"]
mod bad_arguments;
#[path = "blas2_update/workspace.rs"]
mod workspace;

on_both_backends!(
    f1_ger_geru_gerc_every_form,
    f1_syr_her_every_form,
    f1_syr2_her2_every_form,
    f1_spr_hpr_every_form,
    f1_spr2_hpr2_every_form,
    f1_ger_tall_and_wide,
    f1_larger_matrices,
    f1_packed_updates_over_many_tiles,
    f3_alpha_zero_and_empty_touch_nothing,
    f10_device_alpha,
    reference_blas_skips_zero_columns,
    her_her2_hpr_hpr2_leave_a_real_diagonal,
);
