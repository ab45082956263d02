#![allow(
    clippy::too_many_arguments,
    clippy::type_complexity,
    clippy::needless_range_loop
)]
//! The rest of Level 1 against independent f64 references, on both backends: the vector
//! updates `axpy`, `scal`, `copy`, `swap`, `rot`, `rotm`, the rotation set-ups `rotg`,
//! `rotmg`, and the batched forms of `nrm2_ex` (SPEC F1, F3, F7, F9, F10, M8).
//!
//! Every output buffer is poisoned outside the elements a call may write (gaps between
//! strided entries, elements between increments, one element past each output) and compared
//! bit for bit there afterwards.

mod common;

use common::forms::{Form, FORMS};
use common::{randn, rng};
use gpublas::blas1::{self, RealScalar, Scalar};
use gpublas::{
    bf16, f16, Coef, Complex32, Complex64, Device, DeviceBuffer, Element, Error, ExAcc, ExInput,
    Handle, Results, Status,
};

const SIZES: &[usize] = &[0, 1, 2, 31, 32, 33, 1023, 1024, 1025, (1 << 20) + 3];
/// Sizes above this run only in the Single form at increments 1 and in the Strided(1) form at
/// increments -1.
const BIG: usize = 4096;

// ---- test-side element view ----------------------------------------------------------------

/// Test-side view of an element: built from and read as (re, im), independently of gpublas.
trait T: Scalar + std::fmt::Debug {
    const CPLX: bool;
    /// Unit roundoff of the type.
    const U: f64;
    fn make(re: f64, im: f64) -> Self;
    fn get(&self) -> (f64, f64);
    fn bits(&self) -> (u64, u64);
    fn rmake(v: f64) -> Self::Real;
}
impl T for f32 {
    const CPLX: bool = false;
    const U: f64 = 5.960_464_477_539_063e-8;
    fn make(re: f64, _: f64) -> Self {
        re as f32
    }
    fn get(&self) -> (f64, f64) {
        (*self as f64, 0.0)
    }
    fn bits(&self) -> (u64, u64) {
        (self.to_bits() as u64, 0)
    }
    fn rmake(v: f64) -> f32 {
        v as f32
    }
}
impl T for f64 {
    const CPLX: bool = false;
    const U: f64 = 1.110_223_024_625_156_5e-16;
    fn make(re: f64, _: f64) -> Self {
        re
    }
    fn get(&self) -> (f64, f64) {
        (*self, 0.0)
    }
    fn bits(&self) -> (u64, u64) {
        (self.to_bits(), 0)
    }
    fn rmake(v: f64) -> f64 {
        v
    }
}
impl T for Complex32 {
    const CPLX: bool = true;
    const U: f64 = 5.960_464_477_539_063e-8;
    fn make(re: f64, im: f64) -> Self {
        Complex32::new(re as f32, im as f32)
    }
    fn get(&self) -> (f64, f64) {
        (self.re as f64, self.im as f64)
    }
    fn bits(&self) -> (u64, u64) {
        (self.re.to_bits() as u64, self.im.to_bits() as u64)
    }
    fn rmake(v: f64) -> f32 {
        v as f32
    }
}
impl T for Complex64 {
    const CPLX: bool = true;
    const U: f64 = 1.110_223_024_625_156_5e-16;
    fn make(re: f64, im: f64) -> Self {
        Complex64::new(re, im)
    }
    fn get(&self) -> (f64, f64) {
        (self.re, self.im)
    }
    fn bits(&self) -> (u64, u64) {
        (self.re.to_bits(), self.im.to_bits())
    }
    fn rmake(v: f64) -> f64 {
        v
    }
}

fn poison<E: T>() -> E {
    E::make(f64::NAN, f64::NAN)
}

type C = (f64, f64);

fn mul(a: C, b: C) -> C {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}
fn add(a: C, b: C) -> C {
    (a.0 + b.0, a.1 + b.1)
}
fn conj(a: C) -> C {
    (a.0, -a.1)
}
/// |re| + |im|: the error scale of a product's parts.
fn mag(a: C) -> f64 {
    a.0.abs() + a.1.abs()
}

/// `got` is within `ulps` ulps (2u each) of `want`, measured against `scale`.
fn close(got: f64, want: f64, scale: f64, u: f64, ulps: f64) -> bool {
    let tol = ulps * 2.0 * u * scale.max(want.abs());
    (got - want).abs() <= tol || (got.is_nan() && want.is_nan())
}

/// A cyclic pool of uniform values in [-1, 1) (its length is prime, so an indexing error
/// never lands on an equal value by accident).
struct Pool {
    v: Vec<f64>,
    at: usize,
}
impl Pool {
    fn new(seed: u64) -> Pool {
        let mut r = rng(seed);
        Pool {
            v: randn(&mut r, 131_071),
            at: 0,
        }
    }
    fn f(&mut self) -> f64 {
        let x = self.v[self.at];
        self.at = (self.at + 1) % self.v.len();
        x
    }
    fn elem<E: T>(&mut self) -> E {
        let re = self.f();
        let im = if E::CPLX { self.f() } else { 0.0 };
        E::make(re, im)
    }
}

/// Logical element i of a vector of n at increment inc (reference BLAS addressing; an input
/// increment of 0 reads element 0).
fn idx(n: usize, inc: isize, i: usize) -> usize {
    if inc >= 0 {
        i * inc as usize
    } else {
        (n - 1 - i) * inc.unsigned_abs()
    }
}

/// Elements spanned by a vector of n at increment inc.
fn span(n: usize, inc: isize) -> usize {
    if n == 0 {
        0
    } else {
        (n - 1) * inc.unsigned_abs() + 1
    }
}

// ---- operands in every form ----------------------------------------------------------------

/// One operand of a call in one form: the data uploaded (kept on the host for the
/// reference) and the device buffers.
struct Opnd<E> {
    init: Vec<Vec<E>>,
    bufs: Vec<DeviceBuffer<E>>,
    form: Form,
    stride: usize,
}

/// What a buffer element must hold after a call.
enum Want<E> {
    /// Its initial bits.
    Same,
    /// These bits.
    Exact(E),
    /// (re, im) within tolerance of the error scale.
    Close(f64, f64, f64),
}

impl<E: Element + Copy> Opnd<E> {
    /// Entries of `span` elements, `stride` apart when strided; every buffer has one element
    /// past its last entry. `fill(v, k)` gives element k of entry v, `None` keeps `poison`.
    fn new(
        dev: &Device,
        form: Form,
        span: usize,
        stride: usize,
        poison: E,
        mut fill: impl FnMut(usize, usize) -> Option<E>,
    ) -> Self {
        let (nbuf, len) = match form {
            Form::Single => (1, span + 1),
            Form::List(c) => (c, span + 1),
            Form::Strided(c) => (1, c.saturating_sub(1) * stride + span + 1),
        };
        let mut o = Opnd {
            init: vec![vec![poison; len]; nbuf],
            bufs: vec![],
            form,
            stride,
        };
        for v in 0..form.count() {
            for k in 0..span {
                if let Some(e) = fill(v, k) {
                    let (b, i) = o.pos(v, k);
                    o.init[b][i] = e;
                }
            }
        }
        o.bufs = o.init.iter().map(|h| dev.upload(h).unwrap()).collect();
        o
    }

    /// (buffer, element) of element k of entry v.
    fn pos(&self, v: usize, k: usize) -> (usize, usize) {
        match self.form {
            Form::Single => (0, k),
            Form::List(_) => (v, k),
            Form::Strided(_) => (0, v * self.stride + k),
        }
    }

    fn val(&self, v: usize, k: usize) -> E {
        let (b, i) = self.pos(v, k);
        self.init[b][i]
    }

    fn one(&self) -> &DeviceBuffer<E> {
        &self.bufs[0]
    }

    fn refs(&self) -> Vec<&DeviceBuffer<E>> {
        self.bufs.iter().collect()
    }

    fn muts(&mut self) -> Vec<&mut DeviceBuffer<E>> {
        self.bufs.iter_mut().collect()
    }

    /// Everything as it was.
    fn same(&self) -> Vec<Vec<Want<E>>> {
        self.init
            .iter()
            .map(|b| b.iter().map(|_| Want::Same).collect())
            .collect()
    }

    fn set(&self, w: &mut [Vec<Want<E>>], v: usize, k: usize, want: Want<E>) {
        let (b, i) = self.pos(v, k);
        w[b][i] = want;
    }
}

impl<E: T> Opnd<E> {
    /// Compares every element of every buffer with `want`.
    fn check(&self, what: &dyn Fn() -> String, want: &[Vec<Want<E>>], ulps: f64) {
        for (b, buf) in self.bufs.iter().enumerate() {
            let got = buf.to_vec().unwrap();
            assert_eq!(got.len(), self.init[b].len());
            for (k, g) in got.iter().enumerate() {
                let ok = match &want[b][k] {
                    Want::Same => g.bits() == self.init[b][k].bits(),
                    Want::Exact(e) => g.bits() == e.bits(),
                    Want::Close(re, im, sc) => {
                        let (gr, gi) = g.get();
                        close(gr, *re, *sc, E::U, ulps) && close(gi, *im, *sc, E::U, ulps)
                    }
                };
                if !ok {
                    let w = match &want[b][k] {
                        Want::Same => format!("untouched {:?}", self.init[b][k]),
                        Want::Exact(e) => format!("exactly {e:?}"),
                        Want::Close(re, im, sc) => format!("({re}, {im}) at scale {sc}"),
                    };
                    panic!("{}: buffer {b} element {k}: got {g:?}, want {w}", what());
                }
            }
        }
    }

    /// Nothing changed.
    fn untouched(&self, what: &str) {
        self.check(&|| what.to_string(), &self.same(), 0.0);
    }
}

/// A vector of n at increment inc in every entry of `form`: random values where the vector
/// lives, poison in between, in the gaps (3 elements) between strided entries and past the end.
fn vector<E: T>(dev: &Device, form: Form, n: usize, inc: isize, pool: &mut Pool) -> Opnd<E> {
    let sp = span(n, inc);
    let a = inc.unsigned_abs().max(1);
    Opnd::new(dev, form, sp, sp + 3, poison::<E>(), |_, k| {
        (k % a == 0).then(|| pool.elem())
    })
}

/// A scalar argument in one of three kinds, with its value for each batch entry.
struct Co<S> {
    kind: usize,
    first: S,
    vals: Vec<S>,
    buf: Option<DeviceBuffer<S>>,
}

impl<S: Element + Copy> Co<S> {
    /// kind % 3 == 0: on the host; 1: element 0 of a device buffer whose element 1 differs;
    /// 2: one value per batch entry, all different.
    fn new(dev: &Device, kind: usize, count: usize, mut gen: impl FnMut() -> S) -> Self {
        let first = gen();
        match kind % 3 {
            0 => Co {
                kind: 0,
                first,
                vals: vec![first; count],
                buf: None,
            },
            1 => Co {
                kind: 1,
                first,
                vals: vec![first; count],
                buf: Some(dev.upload(&[first, gen()]).unwrap()),
            },
            _ => {
                let mut vals = vec![first];
                vals.extend((1..count).map(|_| gen()));
                Co {
                    kind: 2,
                    first,
                    vals: vals[..count].to_vec(),
                    buf: Some(dev.upload(&vals).unwrap()),
                }
            }
        }
    }

    fn coef(&self) -> Coef<'_, S> {
        match (self.kind, &self.buf) {
            (1, Some(b)) => Coef::Device(b),
            (2, Some(b)) => Coef::DevicePerEntry(b),
            _ => Coef::Host(self.first),
        }
    }

    fn name(&self) -> &'static str {
        ["Host", "Device", "DevicePerEntry"][self.kind]
    }
}

/// Runs `case(n, incx, incy, form, k)` over the sizes, increments and forms of the contract;
/// `zero_input`: also increment 0 for x (an input of axpy and copy).
fn sweep(zero_input: bool, mut case: impl FnMut(usize, isize, isize, Form, usize)) {
    let mut k = 0;
    for &n in SIZES {
        let big = n > BIG;
        let mut pairs: Vec<(isize, isize)> = if big {
            vec![(1, 1), (-1, -1)]
        } else {
            vec![(1, 1), (2, -3), (-1, 2), (-3, -1), (-1, -1)]
        };
        if zero_input && !big {
            pairs.extend([(0, 1), (0, -3)]);
        }
        for &(incx, incy) in &pairs {
            for &form in FORMS {
                // Large vectors: Single forwards, Strided(1) backwards (time on the host).
                let big_ok = match form {
                    Form::Single => incx > 0,
                    Form::Strided(1) => incx < 0,
                    _ => false,
                };
                if big && !big_ok {
                    continue;
                }
                case(n, incx, incy, form, k);
                k += 1;
            }
        }
    }
}

// ---- vector updates ------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Upd {
    Axpy,
    Scal,
    Copy,
    Swap,
    Rot,
}

fn update_case<E: T>(
    dev: &Device,
    h: &mut Handle,
    r: Upd,
    n: usize,
    incx: isize,
    incy: isize,
    form: Form,
    k: usize,
    pool: &mut Pool,
) {
    let count = form.count();
    let mut x = vector::<E>(dev, form, n, incx, pool);
    // scal has no y: an empty one stands in (and must stay as it is).
    let ny = if r == Upd::Scal { 0 } else { n };
    let mut y = vector::<E>(dev, form, ny, incy, pool);
    let alpha = Co::new(dev, k, count, || pool.elem::<E>());
    let c = Co::new(dev, k / 3 + 1, count, || E::rmake(pool.f()));
    let (sx, sy) = (x.stride, y.stride);
    let what = || {
        format!(
            "{r:?}<{}> n={n} incx={incx} incy={incy} {form:?} alpha/s {} c {}",
            std::any::type_name::<E>(),
            alpha.name(),
            c.name()
        )
    };
    let st = match (r, form) {
        (Upd::Axpy, Form::Single) => {
            blas1::axpy(h, n, alpha.coef(), x.one(), incx, &mut y.bufs[0], incy)
        }
        (Upd::Axpy, Form::List(_)) => {
            blas1::axpy_batched(h, n, alpha.coef(), &x.refs(), incx, &mut y.muts(), incy)
        }
        (Upd::Axpy, Form::Strided(b)) => blas1::axpy_strided_batched(
            h,
            n,
            alpha.coef(),
            x.one(),
            incx,
            sx,
            &mut y.bufs[0],
            incy,
            sy,
            b,
        ),
        (Upd::Scal, Form::Single) => blas1::scal(h, n, alpha.coef(), &mut x.bufs[0], incx),
        (Upd::Scal, Form::List(_)) => blas1::scal_batched(h, n, alpha.coef(), &mut x.muts(), incx),
        (Upd::Scal, Form::Strided(b)) => {
            blas1::scal_strided_batched(h, n, alpha.coef(), &mut x.bufs[0], incx, sx, b)
        }
        (Upd::Copy, Form::Single) => blas1::copy(h, n, x.one(), incx, &mut y.bufs[0], incy),
        (Upd::Copy, Form::List(_)) => {
            blas1::copy_batched(h, n, &x.refs(), incx, &mut y.muts(), incy)
        }
        (Upd::Copy, Form::Strided(b)) => {
            blas1::copy_strided_batched(h, n, x.one(), incx, sx, &mut y.bufs[0], incy, sy, b)
        }
        (Upd::Swap, Form::Single) => blas1::swap(h, n, &mut x.bufs[0], incx, &mut y.bufs[0], incy),
        (Upd::Swap, Form::List(_)) => {
            blas1::swap_batched(h, n, &mut x.muts(), incx, &mut y.muts(), incy)
        }
        (Upd::Swap, Form::Strided(b)) => {
            blas1::swap_strided_batched(h, n, &mut x.bufs[0], incx, sx, &mut y.bufs[0], incy, sy, b)
        }
        (Upd::Rot, Form::Single) => blas1::rot(
            h,
            n,
            &mut x.bufs[0],
            incx,
            &mut y.bufs[0],
            incy,
            c.coef(),
            alpha.coef(),
        ),
        (Upd::Rot, Form::List(_)) => blas1::rot_batched(
            h,
            n,
            &mut x.muts(),
            incx,
            &mut y.muts(),
            incy,
            c.coef(),
            alpha.coef(),
        ),
        (Upd::Rot, Form::Strided(b)) => blas1::rot_strided_batched(
            h,
            n,
            &mut x.bufs[0],
            incx,
            sx,
            &mut y.bufs[0],
            incy,
            sy,
            c.coef(),
            alpha.coef(),
            b,
        ),
    };
    assert_eq!(
        st.unwrap_or_else(|e| panic!("{}: {e}", what())),
        Status::Success,
        "{}",
        what()
    );
    let (mut wx, mut wy) = (x.same(), y.same());
    for v in 0..count {
        let a = alpha.vals[v].get();
        let cv = T::get(&E::from_real(c.vals[v]));
        for i in 0..n {
            let (px, py) = (idx(n, incx, i), idx(n, incy, i));
            let xe = x.val(v, px);
            let ye = if r == Upd::Scal { xe } else { y.val(v, py) };
            let (xv, yv) = (xe.get(), ye.get());
            match r {
                Upd::Axpy => {
                    let w = add(mul(a, xv), yv);
                    let sc = mag(a) * mag(xv) + mag(yv);
                    y.set(&mut wy, v, py, Want::Close(w.0, w.1, sc));
                }
                Upd::Scal => {
                    if incx > 0 {
                        let w = mul(a, xv);
                        x.set(&mut wx, v, px, Want::Close(w.0, w.1, mag(a) * mag(xv)));
                    }
                }
                Upd::Copy => y.set(&mut wy, v, py, Want::Exact(xe)),
                Upd::Swap => {
                    x.set(&mut wx, v, px, Want::Exact(ye));
                    y.set(&mut wy, v, py, Want::Exact(xe));
                }
                Upd::Rot => {
                    // (x, y) = (c x + s y, c y - conj(s) x)
                    let nx = add(mul(cv, xv), mul(a, yv));
                    let ny = add(mul(cv, yv), mul((-a.0, a.1), xv));
                    let scx = mag(cv) * mag(xv) + mag(a) * mag(yv);
                    let scy = mag(cv) * mag(yv) + mag(a) * mag(xv);
                    x.set(&mut wx, v, px, Want::Close(nx.0, nx.1, scx));
                    y.set(&mut wy, v, py, Want::Close(ny.0, ny.1, scy));
                }
            }
        }
    }
    x.check(&|| format!("{} x", what()), &wx, 2.0);
    y.check(&|| format!("{} y", what()), &wy, 2.0);
}

fn updates_of<E: T>(dev: &Device, r: Upd, seed: u64) {
    let mut h = Handle::new(dev).unwrap();
    let mut pool = Pool::new(seed);
    sweep(
        matches!(r, Upd::Axpy | Upd::Copy),
        |n, incx, incy, form, k| {
            update_case::<E>(dev, &mut h, r, n, incx, incy, form, k, &mut pool)
        },
    );
}

fn updates(dev: &Device, r: Upd) {
    updates_of::<f32>(dev, r, 11);
    updates_of::<f64>(dev, r, 12);
    updates_of::<Complex32>(dev, r, 13);
    updates_of::<Complex64>(dev, r, 14);
}

fn f1_axpy_every_type_form_size_and_increment(dev: &Device) {
    updates(dev, Upd::Axpy)
}
fn f1_scal_every_type_form_size_and_increment(dev: &Device) {
    updates(dev, Upd::Scal)
}
fn f1_copy_every_type_form_size_and_increment(dev: &Device) {
    updates(dev, Upd::Copy)
}
fn f1_swap_every_type_form_size_and_increment(dev: &Device) {
    updates(dev, Upd::Swap)
}
fn f1_rot_every_type_form_size_and_increment(dev: &Device) {
    updates(dev, Upd::Rot)
}

// ---- rotm ------------------------------------------------------------------------------------

/// (h11, h21, h12, h22) of rotm's `[flag, h11, h21, h12, h22]` by the BLAS flag conventions;
/// `None` for the identity (flag -2).
fn rotm_h(p: [f64; 5]) -> Option<[f64; 4]> {
    match p[0] as i32 {
        -2 => None,
        -1 => Some([p[1], p[2], p[3], p[4]]),
        0 => Some([1.0, p[2], p[3], 1.0]),
        _ => Some([p[1], -1.0, 1.0, p[4]]),
    }
}

/// The parameter entries a flag uses (the others are implied and never read).
fn rotm_used(flag: i32, j: usize) -> bool {
    j == 0
        || match flag {
            -1 => true,
            0 => j == 2 || j == 3,
            1 => j == 1 || j == 4,
            _ => false,
        }
}

fn rotm_case<E: T + RealScalar>(
    dev: &Device,
    h: &mut Handle,
    n: usize,
    incx: isize,
    incy: isize,
    form: Form,
    k: usize,
    pool: &mut Pool,
) {
    let count = form.count();
    let mut x = vector::<E>(dev, form, n, incx, pool);
    let mut y = vector::<E>(dev, form, n, incy, pool);
    // A different flag for each entry; implied parameters hold NaN, which must not be read.
    let flag_of = |v: usize| [-2, -1, 0, 1][(k + v) % 4];
    let ps = 5 + k % 3;
    let param = Opnd::<E>::new(dev, form, 5, ps, poison::<E>(), |v, j| {
        let f = flag_of(v);
        if j == 0 {
            Some(E::make(f as f64, 0.0))
        } else {
            rotm_used(f, j).then(|| E::make(2.0 * pool.f(), 0.0))
        }
    });
    let (sx, sy) = (x.stride, y.stride);
    let what = || {
        format!(
            "rotm<{}> n={n} incx={incx} incy={incy} {form:?} first flag {}",
            std::any::type_name::<E>(),
            flag_of(0)
        )
    };
    let st = match form {
        Form::Single => blas1::rotm(
            h,
            n,
            &mut x.bufs[0],
            incx,
            &mut y.bufs[0],
            incy,
            param.one(),
        ),
        Form::List(_) => blas1::rotm_batched(
            h,
            n,
            &mut x.muts(),
            incx,
            &mut y.muts(),
            incy,
            &param.refs(),
        ),
        Form::Strided(b) => blas1::rotm_strided_batched(
            h,
            n,
            &mut x.bufs[0],
            incx,
            sx,
            &mut y.bufs[0],
            incy,
            sy,
            param.one(),
            ps,
            b,
        ),
    };
    assert_eq!(
        st.unwrap_or_else(|e| panic!("{}: {e}", what())),
        Status::Success
    );
    let (mut wx, mut wy) = (x.same(), y.same());
    for v in 0..count {
        let mut p = [0.0; 5];
        for j in 0..5 {
            p[j] = param.val(v, j).get().0;
        }
        let Some([h11, h21, h12, h22]) = rotm_h(p) else {
            continue;
        };
        for i in 0..n {
            let (px, py) = (idx(n, incx, i), idx(n, incy, i));
            let (xv, yv) = (x.val(v, px).get().0, y.val(v, py).get().0);
            let nx = h11 * xv + h12 * yv;
            let ny = h21 * xv + h22 * yv;
            let sx = (h11 * xv).abs() + (h12 * yv).abs();
            let sy = (h21 * xv).abs() + (h22 * yv).abs();
            x.set(&mut wx, v, px, Want::Close(nx, 0.0, sx));
            y.set(&mut wy, v, py, Want::Close(ny, 0.0, sy));
        }
    }
    x.check(&|| format!("{} x", what()), &wx, 2.0);
    y.check(&|| format!("{} y", what()), &wy, 2.0);
    param.untouched(&format!("{} param", what()));
}

fn rotm_of<E: T + RealScalar>(dev: &Device, seed: u64) {
    let mut h = Handle::new(dev).unwrap();
    let mut pool = Pool::new(seed);
    sweep(false, |n, incx, incy, form, k| {
        rotm_case::<E>(dev, &mut h, n, incx, incy, form, k, &mut pool)
    });
}

fn f1_rotm_every_flag_form_size_and_increment(dev: &Device) {
    rotm_of::<f32>(dev, 21);
    rotm_of::<f64>(dev, 22);
}

// ---- rotg --------------------------------------------------------------------------------

/// Reference BLAS srotg/drotg (classic form): (r, z, c, s).
fn ref_rotg_real(a: f64, b: f64) -> (f64, f64, f64, f64) {
    let roe = if a.abs() > b.abs() { a } else { b };
    let scale = a.abs() + b.abs();
    if scale == 0.0 {
        return (0.0, 0.0, 1.0, 0.0);
    }
    let mut r = scale * ((a / scale).powi(2) + (b / scale).powi(2)).sqrt();
    if roe < 0.0 {
        r = -r;
    }
    let c = a / r;
    let s = b / r;
    let mut z = 1.0;
    if a.abs() > b.abs() {
        z = s;
    }
    if b.abs() >= a.abs() && c != 0.0 {
        z = 1.0 / c;
    }
    (r, z, c, s)
}

fn cabs(a: C) -> f64 {
    a.0.hypot(a.1)
}

/// Reference BLAS crotg/zrotg (classic form): (r, c, s).
fn ref_rotg_cplx(a: C, b: C) -> (C, f64, C) {
    let na = cabs(a);
    if na == 0.0 {
        return (b, 0.0, (1.0, 0.0));
    }
    let nb = cabs(b);
    let scale = na + nb;
    let norm = scale * ((na / scale).powi(2) + (nb / scale).powi(2)).sqrt();
    let alpha = (a.0 / na, a.1 / na);
    let s = mul(alpha, conj(b));
    (
        (alpha.0 * norm, alpha.1 * norm),
        na / norm,
        (s.0 / norm, s.1 / norm),
    )
}

fn rotg_of<E: T>(dev: &Device, seed: u64)
where
    E::Real: T,
{
    let mut h = Handle::new(dev).unwrap();
    let mut pool = Pool::new(seed);
    let specials: Vec<(C, C)> = if E::CPLX {
        vec![
            ((0.0, 0.0), (0.0, 0.0)),
            ((0.0, 0.0), (1.0, -2.0)),
            ((1.5, -0.5), (0.0, 0.0)),
            ((3.0, 4.0), (-1.0, 0.5)),
            ((-0.25, 0.0), (0.0, 4.0)),
            ((1.0, 1.0), (1.0, 1.0)),
        ]
    } else {
        vec![
            ((0.0, 0.0), (0.0, 0.0)),
            ((0.0, 0.0), (2.0, 0.0)),
            ((0.0, 0.0), (-2.0, 0.0)),
            ((-3.0, 0.0), (0.0, 0.0)),
            ((3.0, 0.0), (4.0, 0.0)),
            ((-4.0, 0.0), (3.0, 0.0)),
            ((4.0, 0.0), (-3.0, 0.0)),
            ((1.0, 0.0), (-1.0, 0.0)),
            ((-2.0, 0.0), (-2.0, 0.0)),
        ]
    };
    let strides = [(1, 1, 1, 1), (1, 2, 3, 2), (3, 1, 2, 1)];
    for round in 0..12 {
        for &form in FORMS {
            let count = form.count();
            // Entry v: a special pair or a random one.
            let pairs: Vec<(E, E)> = (0..count)
                .map(|v| {
                    let pick = round * 7 + v;
                    if pick % 2 == 0 {
                        let (a, b) = specials[(pick / 2) % specials.len()];
                        (E::make(a.0, a.1), E::make(b.0, b.1))
                    } else {
                        (pool.elem::<E>(), pool.elem::<E>())
                    }
                })
                .collect();
            let (sa, sb, sc, ss) = strides[round % 3];
            let mut a = Opnd::new(dev, form, 1, sa, poison::<E>(), |v, _| Some(pairs[v].0));
            let mut b = Opnd::new(dev, form, 1, sb, poison::<E>(), |v, _| Some(pairs[v].1));
            let mut c = Opnd::new(dev, form, 1, sc, poison::<E::Real>(), |_, _| None);
            let mut s = Opnd::new(dev, form, 1, ss, poison::<E>(), |_, _| None);
            let what = || {
                format!(
                    "rotg<{}> round {round} {form:?}",
                    std::any::type_name::<E>()
                )
            };
            let st = match form {
                Form::Single => blas1::rotg(
                    &mut h,
                    &mut a.bufs[0],
                    &mut b.bufs[0],
                    &mut c.bufs[0],
                    &mut s.bufs[0],
                ),
                Form::List(_) => blas1::rotg_batched(
                    &mut h,
                    &mut a.muts(),
                    &mut b.muts(),
                    &mut c.muts(),
                    &mut s.muts(),
                ),
                Form::Strided(n) => blas1::rotg_strided_batched(
                    &mut h,
                    &mut a.bufs[0],
                    sa,
                    &mut b.bufs[0],
                    sb,
                    &mut c.bufs[0],
                    sc,
                    &mut s.bufs[0],
                    ss,
                    n,
                ),
            };
            assert_eq!(
                st.unwrap_or_else(|e| panic!("{}: {e}", what())),
                Status::Success
            );
            let (mut wa, mut wb, mut wc, mut ws) = (a.same(), b.same(), c.same(), s.same());
            for v in 0..count {
                let (av, bv) = (pairs[v].0.get(), pairs[v].1.get());
                if E::CPLX {
                    let (r, cc, sv) = ref_rotg_cplx(av, bv);
                    a.set(&mut wa, v, 0, Want::Close(r.0, r.1, cabs(r)));
                    c.set(&mut wc, v, 0, Want::Close(cc, 0.0, cc.abs()));
                    s.set(&mut ws, v, 0, Want::Close(sv.0, sv.1, cabs(sv)));
                    // b is left as it was.
                } else {
                    let (r, z, cc, sv) = ref_rotg_real(av.0, bv.0);
                    a.set(&mut wa, v, 0, Want::Close(r, 0.0, r.abs()));
                    b.set(&mut wb, v, 0, Want::Close(z, 0.0, z.abs()));
                    c.set(&mut wc, v, 0, Want::Close(cc, 0.0, cc.abs()));
                    s.set(&mut ws, v, 0, Want::Close(sv, 0.0, sv.abs()));
                }
            }
            a.check(&|| format!("{} a (r)", what()), &wa, 6.0);
            b.check(&|| format!("{} b (z)", what()), &wb, 6.0);
            c.check(&|| format!("{} c", what()), &wc, 6.0);
            s.check(&|| format!("{} s", what()), &ws, 6.0);
        }
    }
}

fn f1_rotg_every_type_and_form(dev: &Device) {
    rotg_of::<f32>(dev, 31);
    rotg_of::<f64>(dev, 32);
    rotg_of::<Complex32>(dev, 33);
    rotg_of::<Complex64>(dev, 34);
}

// ---- rotmg -------------------------------------------------------------------------------

/// Reference BLAS drotmg (netlib, with its rescaling loops), written from the Fortran:
/// returns (d1, d2, x1, param) where param entries that drotmg does not store are `None`.
fn ref_rotmg(d1: f64, d2: f64, x1: f64, y1: f64) -> (f64, f64, f64, [Option<f64>; 5]) {
    let (gam, gamsq, rgamsq) = (4096.0f64, 16777216.0f64, 5.9604645e-8f64);
    let (mut dd1, mut dd2, mut dx1) = (d1, d2, x1);
    let (mut h11, mut h12, mut h21, mut h22) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut flag: f64;
    if dd1 < 0.0 {
        flag = -1.0;
        dd1 = 0.0;
        dd2 = 0.0;
        dx1 = 0.0;
    } else {
        let p2 = dd2 * y1;
        if p2 == 0.0 {
            return (dd1, dd2, dx1, [Some(-2.0), None, None, None, None]);
        }
        let p1 = dd1 * dx1;
        let q2 = p2 * y1;
        let q1 = p1 * dx1;
        if q1.abs() > q2.abs() {
            h21 = -y1 / dx1;
            h12 = p2 / p1;
            let u = 1.0 - h12 * h21;
            if u > 0.0 {
                flag = 0.0;
                dd1 /= u;
                dd2 /= u;
                dx1 *= u;
            } else {
                flag = -1.0;
                (h11, h12, h21, h22) = (0.0, 0.0, 0.0, 0.0);
                (dd1, dd2, dx1) = (0.0, 0.0, 0.0);
            }
        } else if q2 < 0.0 {
            flag = -1.0;
            (h11, h12, h21, h22) = (0.0, 0.0, 0.0, 0.0);
            (dd1, dd2, dx1) = (0.0, 0.0, 0.0);
        } else {
            flag = 1.0;
            h11 = p1 / p2;
            h22 = dx1 / y1;
            let u = 1.0 + h11 * h22;
            let t = dd2 / u;
            dd2 = dd1 / u;
            dd1 = t;
            dx1 = y1 * u;
        }
        if dd1 != 0.0 {
            while dd1 <= rgamsq || dd1 >= gamsq {
                if flag == 0.0 {
                    h11 = 1.0;
                    h22 = 1.0;
                } else {
                    h21 = -1.0;
                    h12 = 1.0;
                }
                flag = -1.0;
                if dd1 <= rgamsq {
                    dd1 *= gam * gam;
                    dx1 /= gam;
                    h11 /= gam;
                    h12 /= gam;
                } else {
                    dd1 /= gam * gam;
                    dx1 *= gam;
                    h11 *= gam;
                    h12 *= gam;
                }
            }
        }
        if dd2 != 0.0 {
            while dd2.abs() <= rgamsq || dd2.abs() >= gamsq {
                if flag == 0.0 {
                    h11 = 1.0;
                    h22 = 1.0;
                } else {
                    h21 = -1.0;
                    h12 = 1.0;
                }
                flag = -1.0;
                if dd2.abs() <= rgamsq {
                    dd2 *= gam * gam;
                    h21 /= gam;
                    h22 /= gam;
                } else {
                    dd2 /= gam * gam;
                    h21 *= gam;
                    h22 *= gam;
                }
            }
        }
    }
    let p = if flag < 0.0 {
        [Some(flag), Some(h11), Some(h21), Some(h12), Some(h22)]
    } else if flag == 0.0 {
        [Some(flag), None, Some(h21), Some(h12), None]
    } else {
        [Some(flag), Some(h11), None, None, Some(h22)]
    };
    (dd1, dd2, dx1, p)
}

/// (d1, d2, x1, y1) exercising every branch of drotmg, with the flag expected.
const ROTMG_CASES: &[(f64, f64, f64, f64, f64)] = &[
    (-1.0, 2.0, 3.0, 4.0, -1.0),    // d1 < 0: H, d1, d2, x1 all zero
    (2.0, 0.0, 3.0, 4.0, -2.0),     // d2 y1 == 0: identity, nothing else changes
    (2.0, 3.0, 4.0, 0.0, -2.0),     // y1 == 0
    (2.0, 1.0, 3.0, 1.0, 0.0),      // |q1| > |q2|
    (1.0, 2.0, 1.0, 3.0, 1.0),      // |q1| <= |q2|
    (1.0, -2.0, 1.0, 3.0, -1.0),    // q2 < 0: all zero
    (0.0, 1.0, 2.0, 3.0, 1.0),      // d1 == 0
    (1e-10, 1e-10, 1.0, 1.0, -1.0), // tiny d1 and d2 rescaled
    (1e-30, 1e-30, 1.0, 1.0, -1.0), // several rescaling rounds
    (1e10, 1.0, 1.0, 1e-3, -1.0),   // huge d1 rescaled from flag 0
    (1.0, 1e9, 1e6, 1.0, -1.0),     // huge d2 rescaled
    (1.0, -1e-12, 1.0, 1.0, -1.0),  // tiny negative d2 rescaled
    (1e30, 1e30, 1.0, 1.0, -1.0),   // huge d1 and d2, several rounds
];

fn rotmg_of<E: T + RealScalar>(dev: &Device, seed: u64) {
    let mut h = Handle::new(dev).unwrap();
    let mut pool = Pool::new(seed);
    // First the classic cases one at a time, checking their flags.
    for &(d1, d2, x1, y1, flag) in ROTMG_CASES {
        let up = |v: f64| dev.upload(&[E::make(v, 0.0)]).unwrap();
        let (mut b1, mut b2, mut bx, by) = (up(d1), up(d2), up(x1), up(y1));
        let mut p = dev.upload(&[poison::<E>(); 5]).unwrap();
        let _ = blas1::rotmg(&mut h, &mut b1, &mut b2, &mut bx, &by, &mut p).unwrap();
        let got = p.to_vec().unwrap()[0].get().0;
        assert_eq!(
            got,
            flag,
            "rotmg<{}> {:?}: flag",
            std::any::type_name::<E>(),
            (d1, d2, x1, y1)
        );
    }
    let strides = [(1, 1, 1, 1, 5), (2, 1, 3, 0, 6), (1, 2, 1, 1, 7)];
    for round in 0..12 {
        for &form in FORMS {
            let count = form.count();
            let quads: Vec<[f64; 4]> = (0..count)
                .map(|v| {
                    let pick = round * 7 + v;
                    if pick % 3 != 2 {
                        let c = ROTMG_CASES[(pick / 3 * 2 + pick % 3) % ROTMG_CASES.len()];
                        [c.0, c.1, c.2, c.3]
                    } else {
                        [2.0 * pool.f().abs(), 2.0 * pool.f(), pool.f(), pool.f()]
                    }
                })
                .map(|q| q.map(|v| E::make(v, 0.0).get().0))
                .collect();
            let (s1, s2, sx, sy, sp) = strides[round % 3];
            let one = |s: usize, j: usize| {
                Opnd::new(dev, form, 1, s, poison::<E>(), |v, _| {
                    Some(E::make(quads[v][j], 0.0))
                })
            };
            let (mut d1, mut d2, mut x1, y1) = (one(s1, 0), one(s2, 1), one(sx, 2), one(sy, 3));
            let mut param = Opnd::new(dev, form, 5, sp, poison::<E>(), |_, _| None);
            let what = || {
                format!(
                    "rotmg<{}> round {round} {form:?}",
                    std::any::type_name::<E>()
                )
            };
            let st = match form {
                Form::Single => blas1::rotmg(
                    &mut h,
                    &mut d1.bufs[0],
                    &mut d2.bufs[0],
                    &mut x1.bufs[0],
                    y1.one(),
                    &mut param.bufs[0],
                ),
                Form::List(_) => blas1::rotmg_batched(
                    &mut h,
                    &mut d1.muts(),
                    &mut d2.muts(),
                    &mut x1.muts(),
                    &y1.refs(),
                    &mut param.muts(),
                ),
                Form::Strided(n) => blas1::rotmg_strided_batched(
                    &mut h,
                    &mut d1.bufs[0],
                    s1,
                    &mut d2.bufs[0],
                    s2,
                    &mut x1.bufs[0],
                    sx,
                    y1.one(),
                    sy,
                    &mut param.bufs[0],
                    sp,
                    n,
                ),
            };
            assert_eq!(
                st.unwrap_or_else(|e| panic!("{}: {e}", what())),
                Status::Success
            );
            let (mut w1, mut w2, mut wx, mut wp) = (d1.same(), d2.same(), x1.same(), param.same());
            // Entries that drotmg does not store are compared separately (see
            // f1_rotmg_leaves_implied_param_entries_as_reference_blas_does).
            let mut implied = vec![];
            for v in 0..count {
                // Inputs as the buffers hold them (y1 may be shared at stride 0).
                let q = [
                    d1.val(v, 0).get().0,
                    d2.val(v, 0).get().0,
                    x1.val(v, 0).get().0,
                    y1.val(v, 0).get().0,
                ];
                let (r1, r2, rx, rp) = ref_rotmg(q[0], q[1], q[2], q[3]);
                d1.set(&mut w1, v, 0, Want::Close(r1, 0.0, r1.abs()));
                d2.set(&mut w2, v, 0, Want::Close(r2, 0.0, r2.abs()));
                x1.set(&mut wx, v, 0, Want::Close(rx, 0.0, rx.abs()));
                for j in 0..5 {
                    match rp[j] {
                        Some(pv) => param.set(&mut wp, v, j, Want::Close(pv, 0.0, pv.abs())),
                        None => {
                            let (b, i) = param.pos(v, j);
                            implied.push((b, i));
                        }
                    }
                }
            }
            // Implied entries are not judged here: whatever is there is accepted.
            let got_p: Vec<Vec<E>> = param.bufs.iter().map(|b| b.to_vec().unwrap()).collect();
            for &(b, i) in &implied {
                wp[b][i] = Want::Exact(got_p[b][i]);
            }
            d1.check(&|| format!("{} d1", what()), &w1, 6.0);
            d2.check(&|| format!("{} d2", what()), &w2, 6.0);
            x1.check(&|| format!("{} x1", what()), &wx, 6.0);
            param.check(&|| format!("{} param", what()), &wp, 6.0);
            y1.untouched(&format!("{} y1", what()));
        }
    }
}

fn f1_rotmg_every_branch_and_form(dev: &Device) {
    rotmg_of::<f32>(dev, 41);
    rotmg_of::<f64>(dev, 42);
}

/// Reference BLAS ?rotmg stores only the entries of `param` its flag uses: with flag -2 only
/// `param[0]`; with flag 0 not h11, h22; with flag 1 not h21, h12 (netlib drotmg, rocBLAS and
/// cuBLAS alike). The rest of `param` keeps what the caller had there.
fn f1_rotmg_leaves_implied_param_entries_as_reference_blas_does(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let keep = 7.5f64;
    let mut overwritten = vec![];
    for &(d1, d2, x1, y1, flag) in ROTMG_CASES {
        let up = |v: f64| dev.upload(&[v]).unwrap();
        let (mut b1, mut b2, mut bx, by) = (up(d1), up(d2), up(x1), up(y1));
        let mut p = dev.upload(&[keep; 5]).unwrap();
        let _ = blas1::rotmg(&mut h, &mut b1, &mut b2, &mut bx, &by, &mut p).unwrap();
        let got = p.to_vec().unwrap();
        let (_, _, _, want) = ref_rotmg(d1, d2, x1, y1);
        let bad: Vec<usize> = (1..5)
            .filter(|&j| want[j].is_none() && got[j].to_bits() != keep.to_bits())
            .collect();
        if !bad.is_empty() {
            overwritten.push(format!(
                "(d1, d2, x1, y1) = {:?}, flag {flag}: param[{bad:?}] overwritten, param = {got:?}",
                (d1, d2, x1, y1)
            ));
        }
    }
    assert!(
        overwritten.is_empty(),
        "rotmg writes param entries that its flag implies and reference BLAS leaves as they \
         were ({keep} before the call):\n{}",
        overwritten.join("\n")
    );
}

// ---- device scalars (F10) ------------------------------------------------------------------

fn f10_device_scalars_shared_and_per_entry(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let (n, batch) = (5usize, 3usize);
    let x: Vec<f64> = (0..n * batch).map(|i| i as f64 + 1.0).collect();
    let xb = dev.upload(&x).unwrap();
    let per = dev.upload(&[2.0f64, -3.0, 0.5]).unwrap();
    let shared = dev.upload(&[4.0f64, 100.0, 100.0]).unwrap();
    // axpy: y_v = alpha_v x_v + y_v.
    for (coef, alphas) in [
        (Coef::DevicePerEntry(&per), [2.0, -3.0, 0.5]),
        (Coef::Device(&shared), [4.0; 3]),
    ] {
        let mut y = dev.upload(&vec![1.0f64; n * batch + 1]).unwrap();
        let _ =
            blas1::axpy_strided_batched(&mut h, n, coef, &xb, 1, n, &mut y, 1, n, batch).unwrap();
        let got = y.to_vec().unwrap();
        for v in 0..batch {
            for i in 0..n {
                assert_eq!(got[v * n + i], alphas[v] * x[v * n + i] + 1.0, "axpy v={v}");
            }
        }
        assert_eq!(got[n * batch], 1.0);
        // scal on a list, alpha per entry.
        let mut l: Vec<DeviceBuffer<f64>> = (0..batch)
            .map(|v| dev.upload(&x[v * n..(v + 1) * n]).unwrap())
            .collect();
        let mut lm: Vec<&mut DeviceBuffer<f64>> = l.iter_mut().collect();
        let _ = blas1::scal_batched(&mut h, n, coef, &mut lm, 1).unwrap();
        for v in 0..batch {
            let got = l[v].to_vec().unwrap();
            for i in 0..n {
                assert_eq!(got[i], alphas[v] * x[v * n + i], "scal v={v}");
            }
        }
    }
    // rot: c and s per entry (complex s), and shared.
    let cs = dev.upload(&[0.6f64, 0.0, 1.0]).unwrap();
    let ss = dev
        .upload(&[
            Complex64::new(0.8, 0.0),
            Complex64::new(0.0, 1.0),
            Complex64::new(0.0, 0.0),
        ])
        .unwrap();
    let xs: Vec<Complex64> = (0..n * batch)
        .map(|i| Complex64::new(i as f64, 1.0))
        .collect();
    let ys: Vec<Complex64> = (0..n * batch)
        .map(|i| Complex64::new(-2.0, i as f64 * 0.5))
        .collect();
    let mut xb = dev.upload(&xs).unwrap();
    let mut yb = dev.upload(&ys).unwrap();
    let _ = blas1::rot_strided_batched(
        &mut h,
        n,
        &mut xb,
        1,
        n,
        &mut yb,
        1,
        n,
        Coef::DevicePerEntry(&cs),
        Coef::DevicePerEntry(&ss),
        batch,
    )
    .unwrap();
    let (gx, gy) = (xb.to_vec().unwrap(), yb.to_vec().unwrap());
    let cv = [0.6, 0.0, 1.0];
    let sv = [(0.8, 0.0), (0.0, 1.0), (0.0, 0.0)];
    for v in 0..batch {
        for i in 0..n {
            let k = v * n + i;
            let (xv, yv) = ((xs[k].re, xs[k].im), (ys[k].re, ys[k].im));
            let wx = add(mul((cv[v], 0.0), xv), mul(sv[v], yv));
            let wy = add(mul((cv[v], 0.0), yv), mul((-sv[v].0, sv[v].1), xv));
            for (g, w) in [(gx[k], wx), (gy[k], wy)] {
                assert!(
                    (g.re - w.0).abs() < 1e-14 * (1.0 + w.0.abs())
                        && (g.im - w.1).abs() < 1e-14 * (1.0 + w.1.abs()),
                    "rot v={v} i={i}: got {g}, want {w:?}"
                );
            }
        }
    }
    // rot with c and s from element 0 of device buffers, single form.
    let mut x1 = dev.upload(&[1.0f32, 2.0]).unwrap();
    let mut y1 = dev.upload(&[3.0f32, 4.0]).unwrap();
    let c0 = dev.upload(&[0.0f32, 9.0]).unwrap();
    let s0 = dev.upload(&[1.0f32, 9.0]).unwrap();
    let _ = blas1::rot(
        &mut h,
        2,
        &mut x1,
        1,
        &mut y1,
        1,
        Coef::Device(&c0),
        Coef::Device(&s0),
    )
    .unwrap();
    assert_eq!(x1.to_vec().unwrap(), vec![3.0, 4.0]);
    assert_eq!(y1.to_vec().unwrap(), vec![-1.0, -2.0]);
}

// ---- quick returns (F3) ----------------------------------------------------------------------

fn bits64(b: &DeviceBuffer<f64>) -> Vec<u64> {
    b.to_vec().unwrap().iter().map(|v| v.to_bits()).collect()
}

fn f3_quick_returns_touch_nothing(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let p = -7.25f64;
    let x = dev.upload(&[1.0f64, f64::NAN, 3.0, f64::INFINITY]).unwrap();
    let mut y = dev.upload(&[p; 4]).unwrap();
    let mut z = dev.upload(&[p; 4]).unwrap();
    let mut c = dev.upload(&[p; 4]).unwrap();
    let mut s = dev.upload(&[p; 4]).unwrap();
    let pr = dev.upload(&[-1.0f64, 2.0, 3.0, 4.0, 5.0]).unwrap();
    let ok = |r: Result<Status, Error>| assert_eq!(r.unwrap(), Status::Success);
    // n == 0: every routine, even with empty buffers.
    let mut e0 = dev.alloc::<f64>(0).unwrap();
    let mut e1 = dev.alloc::<f64>(0).unwrap();
    ok(blas1::axpy(&mut h, 0, 2.0.into(), &x, 1, &mut y, 1));
    ok(blas1::axpy(&mut h, 0, 2.0.into(), &e0, 1, &mut e1, 1));
    ok(blas1::scal(&mut h, 0, 2.0.into(), &mut y, 1));
    ok(blas1::copy(&mut h, 0, &x, 1, &mut y, -1));
    ok(blas1::swap(&mut h, 0, &mut y, 1, &mut z, 1));
    ok(blas1::swap(&mut h, 0, &mut e0, 1, &mut e1, 1));
    ok(blas1::rot(
        &mut h,
        0,
        &mut y,
        1,
        &mut z,
        1,
        0.5.into(),
        0.5.into(),
    ));
    ok(blas1::rotm(&mut h, 0, &mut y, 1, &mut z, 1, &pr));
    ok(blas1::axpy_strided_batched(
        &mut h,
        0,
        2.0.into(),
        &x,
        1,
        1,
        &mut y,
        1,
        1,
        4,
    ));
    ok(blas1::copy_batched(
        &mut h,
        0,
        &[&x, &x],
        1,
        &mut [&mut y, &mut z],
        1,
    ));
    // batch == 0.
    ok(blas1::scal_strided_batched(
        &mut h,
        4,
        2.0.into(),
        &mut y,
        1,
        4,
        0,
    ));
    ok(blas1::rot_batched(
        &mut h,
        4,
        &mut [],
        1,
        &mut [],
        1,
        0.5.into(),
        0.5.into(),
    ));
    ok(blas1::rotg_strided_batched(
        &mut h, &mut y, 1, &mut z, 1, &mut c, 1, &mut s, 1, 0,
    ));
    ok(blas1::rotg_batched::<f64>(
        &mut h,
        &mut [],
        &mut [],
        &mut [],
        &mut [],
    ));
    ok(blas1::rotmg_strided_batched(
        &mut h, &mut y, 1, &mut z, 1, &mut c, 1, &x, 1, &mut s, 5, 0,
    ));
    // scal with incx <= 0 does nothing.
    ok(blas1::scal(&mut h, 4, 2.0.into(), &mut y, -1));
    ok(blas1::scal(&mut h, 4, 2.0.into(), &mut y, 0));
    ok(blas1::scal_batched(
        &mut h,
        2,
        2.0.into(),
        &mut [&mut y, &mut z],
        -2,
    ));
    // axpy with a host alpha of 0 does not touch y, not even with NaN and Inf in x.
    ok(blas1::axpy(&mut h, 4, 0.0.into(), &x, 1, &mut y, 1));
    ok(blas1::axpy(&mut h, 4, (-0.0).into(), &x, -1, &mut z, 1));
    ok(blas1::axpy_strided_batched(
        &mut h,
        2,
        0.0.into(),
        &x,
        1,
        2,
        &mut y,
        1,
        2,
        2,
    ));
    // rotm with flag -2 is the identity (its other parameters are not read).
    let pn = dev
        .upload(&[-2.0f64, f64::NAN, f64::NAN, f64::NAN, f64::NAN])
        .unwrap();
    ok(blas1::rotm(&mut h, 4, &mut y, 1, &mut z, 1, &pn));
    for (name, b) in [("y", &y), ("z", &z), ("c", &c), ("s", &s)] {
        assert!(
            bits64(b).iter().all(|&v| v == p.to_bits()),
            "{name} was touched: {:?}",
            b.to_vec().unwrap()
        );
    }
    assert_eq!(
        bits64(&pr),
        [-1.0f64, 2.0, 3.0, 4.0, 5.0].map(f64::to_bits).to_vec()
    );
    // Complex axpy with a host alpha of 0 likewise.
    let xc = dev
        .upload(&[
            Complex32::new(f32::NAN, 1.0),
            Complex32::new(1.0, f32::INFINITY),
        ])
        .unwrap();
    let pc = Complex32::new(-7.25, 3.5);
    let mut yc = dev.upload(&[pc; 2]).unwrap();
    ok(blas1::axpy(
        &mut h,
        2,
        Complex32::new(0.0, 0.0).into(),
        &xc,
        1,
        &mut yc,
        1,
    ));
    assert_eq!(yc.to_vec().unwrap(), vec![pc; 2]);
}

// ---- bad arguments (F7, F9) ----------------------------------------------------------------

fn err_has(e: &Error, parts: &[&str]) {
    let m = e.to_string();
    for p in parts {
        assert!(m.contains(p), "message {m:?} should name {p:?}");
    }
}

fn f7_bad_arguments_are_errors_naming_values_with_outputs_untouched(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let p = -7.25f64;
    let x = dev.upload(&[1.0f64; 10]).unwrap();
    let x9 = dev.upload(&[1.0f64; 9]).unwrap();
    let mut y = dev.upload(&[p; 8]).unwrap();
    let mut z = dev.upload(&[p; 10]).unwrap();
    let mut w = dev.upload(&[p; 10]).unwrap();
    let mut q = dev.upload(&[p; 10]).unwrap();

    // One element short: 5 elements at incy = 2 need 9; 4 at incx = -3 need 10.
    let e = blas1::axpy(&mut h, 5, 2.0.into(), &x, 1, &mut y, 2).unwrap_err();
    assert!(matches!(e, Error::InvalidValue(_)), "{e}");
    err_has(&e, &["y has 8 elements", "needs 9", "incy = 2"]);
    let e = blas1::copy(&mut h, 4, &x9, -3, &mut z, 1).unwrap_err();
    err_has(&e, &["x has 9 elements", "needs 10", "incx = -3"]);
    let e = blas1::swap(&mut h, 9, &mut z, 1, &mut y, 1).unwrap_err();
    err_has(&e, &["y has 8 elements", "needs 9"]);
    let e = blas1::rot(&mut h, 9, &mut y, 1, &mut z, 1, 0.5.into(), 0.5.into()).unwrap_err();
    err_has(&e, &["x has 8 elements", "needs 9"]);
    // A batch whose last entry runs past the end: 3 entries of 3 at stride 3 need 9.
    let e = blas1::scal_strided_batched(&mut h, 3, 2.0.into(), &mut y, 1, 3, 3).unwrap_err();
    err_has(&e, &["has 8 elements", "needs 9", "stride_x = 3"]);
    let e = blas1::copy_strided_batched(&mut h, 2, &x, 1, 5, &mut y, 1, 3, 3).unwrap_err();
    err_has(
        &e,
        &["x (batch of 3, stride_x = 5) has 10 elements", "needs 12"],
    );
    let e = blas1::copy_strided_batched(&mut h, 2, &x, 1, 2, &mut y, 1, 4, 3).unwrap_err();
    err_has(
        &e,
        &["y (batch of 3, stride_y = 4) has 8 elements", "needs 10"],
    );
    // A list entry one element short.
    {
        let mut short = dev.upload(&[p; 2]).unwrap();
        let e = blas1::swap_batched(
            &mut h,
            3,
            &mut [&mut z, &mut short],
            1,
            &mut [&mut w, &mut q],
            1,
        )
        .unwrap_err();
        err_has(&e, &["x[1] has 2 elements", "needs 3"]);
        assert_eq!(bits64(&short), vec![p.to_bits(); 2]);
    }
    // Device scalars: one value per entry for a batch of 3, and element 0 at least.
    let two = dev.upload(&[0.5f64, 0.5]).unwrap();
    let e = blas1::rot_strided_batched(
        &mut h,
        2,
        &mut z,
        1,
        2,
        &mut w,
        1,
        2,
        Coef::DevicePerEntry(&two),
        0.5.into(),
        3,
    )
    .unwrap_err();
    err_has(&e, &["device scalar c has 2 elements", "needs 3"]);
    let empty = dev.alloc::<f64>(0).unwrap();
    let e = blas1::axpy(&mut h, 2, Coef::Device(&empty), &x, 1, &mut z, 1).unwrap_err();
    err_has(&e, &["device scalar alpha has 0 elements", "needs 1"]);
    // rotm's parameters: five values.
    let p4 = dev.upload(&[-1.0f64, 1.0, 0.0, 0.0]).unwrap();
    let e = blas1::rotm(&mut h, 2, &mut z, 1, &mut w, 1, &p4).unwrap_err();
    assert!(matches!(e, Error::InvalidValue(_)), "{e}");
    err_has(&e, &["param has 4 elements", "needs 5"]);
    let p9 = dev.upload(&[-2.0f64; 9]).unwrap();
    let e =
        blas1::rotm_strided_batched(&mut h, 2, &mut z, 1, 2, &mut w, 1, 2, &p9, 5, 2).unwrap_err();
    err_has(
        &e,
        &[
            "param (batch of 2, stride_param = 5) has 9 elements",
            "needs 10",
        ],
    );
    // rotg / rotmg: one value each, five for rotmg's param.
    {
        let mut c0 = dev.alloc::<f64>(0).unwrap();
        let e = blas1::rotg(&mut h, &mut z, &mut w, &mut c0, &mut q).unwrap_err();
        err_has(&e, &["c has 0 elements", "needs 1"]);
        let mut pm4 = dev.upload(&[p; 4]).unwrap();
        let e = blas1::rotmg(&mut h, &mut z, &mut w, &mut q, &x, &mut pm4).unwrap_err();
        err_has(&e, &["param has 4 elements", "needs 5"]);
        assert_eq!(bits64(&pm4), vec![p.to_bits(); 4]);
        let e = blas1::rotmg_strided_batched(
            &mut h, &mut z, 1, &mut w, 1, &mut q, 1, &x, 1, &mut y, 5, 2,
        )
        .unwrap_err();
        err_has(&e, &["has 8 elements", "needs 10"]);
    }
    // Overflowing sizes.
    let e = blas1::axpy(&mut h, usize::MAX, 2.0.into(), &x, isize::MAX, &mut z, 1).unwrap_err();
    assert!(matches!(e, Error::InvalidSize(_)), "{e}");
    let e =
        blas1::scal_strided_batched(&mut h, 2, 2.0.into(), &mut z, 1, usize::MAX, 3).unwrap_err();
    assert!(matches!(e, Error::InvalidSize(_)), "{e}");

    // Placeholders outside a query.
    let ph = DeviceBuffer::<f64>::placeholder(10);
    let mut phm = DeviceBuffer::<f64>::placeholder(10);
    for (what, e) in [
        ("x", blas1::axpy(&mut h, 3, 2.0.into(), &ph, 1, &mut z, 1)),
        ("y", blas1::copy(&mut h, 3, &x, 1, &mut phm, 1)),
        (
            "alpha",
            blas1::axpy(&mut h, 3, Coef::Device(&ph), &x, 1, &mut z, 1),
        ),
        ("param", blas1::rotm(&mut h, 3, &mut z, 1, &mut w, 1, &ph)),
        ("s", blas1::rotg(&mut h, &mut z, &mut w, &mut q, &mut phm)),
        (
            "y1",
            blas1::rotmg(&mut h, &mut z, &mut w, &mut q, &ph, &mut y),
        ),
    ] {
        let e = e.unwrap_err();
        assert!(matches!(e, Error::InvalidPointer(_)), "{what}: {e}");
        err_has(&e, &["placeholder"]);
    }
    // Buffers of another device, as input, output or device scalar.
    let other = Device::host();
    let xo = other.upload(&[1.0f64; 10]).unwrap();
    let mut yo = other.upload(&[p; 10]).unwrap();
    for (what, e) in [
        ("x", blas1::axpy(&mut h, 3, 2.0.into(), &xo, 1, &mut z, 1)),
        ("y", blas1::axpy(&mut h, 3, 2.0.into(), &x, 1, &mut yo, 1)),
        ("scal x", blas1::scal(&mut h, 3, 2.0.into(), &mut yo, 1)),
        (
            "c",
            blas1::rot(
                &mut h,
                3,
                &mut z,
                1,
                &mut w,
                1,
                Coef::Device(&xo),
                0.5.into(),
            ),
        ),
        (
            "rotg a",
            blas1::rotg(&mut h, &mut yo, &mut w, &mut q, &mut z),
        ),
    ] {
        let e = e.unwrap_err();
        assert!(matches!(e, Error::InvalidPointer(_)), "{what}: {e}");
    }
    assert_eq!(bits64(&yo), vec![p.to_bits(); 10]);
    // Lists of different lengths.
    let e = blas1::axpy_batched(&mut h, 3, 2.0.into(), &[&x, &x], 1, &mut [&mut z], 1).unwrap_err();
    assert!(matches!(e, Error::InvalidSize(_)), "{e}");
    err_has(&e, &["holds 2 entries", "holds 1"]);
    let e = blas1::swap_batched(&mut h, 3, &mut [&mut z], 1, &mut [&mut w, &mut q], 1).unwrap_err();
    assert!(matches!(e, Error::InvalidSize(_)), "{e}");
    let e = blas1::rotm_batched(&mut h, 3, &mut [&mut z], 1, &mut [&mut w], 1, &[&p9, &p9])
        .unwrap_err();
    assert!(matches!(e, Error::InvalidSize(_)), "{e}");
    err_has(&e, &["param holds 2"]);
    {
        let mut c1 = dev.upload(&[p]).unwrap();
        let e = blas1::rotg_batched(
            &mut h,
            &mut [&mut z, &mut w],
            &mut [&mut q],
            &mut [&mut c1],
            &mut [&mut y],
        )
        .unwrap_err();
        assert!(matches!(e, Error::InvalidSize(_)), "{e}");
        assert_eq!(bits64(&c1), vec![p.to_bits()]);
        let mut p1 = dev.upload(&[p; 5]).unwrap();
        let e = blas1::rotmg_batched(
            &mut h,
            &mut [&mut z],
            &mut [&mut w],
            &mut [&mut q],
            &[&x, &x],
            &mut [&mut p1],
        )
        .unwrap_err();
        assert!(matches!(e, Error::InvalidSize(_)), "{e}");
        err_has(&e, &["y1 holds 2"]);
    }
    for (name, b) in [("y", &y), ("z", &z), ("w", &w), ("q", &q)] {
        assert!(
            bits64(b).iter().all(|&v| v == p.to_bits()),
            "{name} was touched: {:?}",
            b.to_vec().unwrap()
        );
    }
    assert!(bits64(&x).iter().all(|&v| v == 1f64.to_bits()));
}

fn f9_overlapping_outputs_are_invalid_inputs_may_overlap(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let p = -7.25f64;
    let x = dev.upload(&[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let mut y = dev.upload(&[p; 12]).unwrap();
    let mut z = dev.upload(&[p; 12]).unwrap();
    let mut c = dev.upload(&[p; 12]).unwrap();
    let mut s = dev.upload(&[p; 12]).unwrap();
    let inv = |e: Error, parts: &[&str]| {
        assert!(matches!(e, Error::InvalidValue(_)), "{e}");
        err_has(&e, parts);
    };
    // Strided outputs whose stride is less than one vector's span.
    inv(
        blas1::axpy_strided_batched(&mut h, 4, 2.0.into(), &x, 1, 0, &mut y, 1, 3, 2).unwrap_err(),
        &["stride_y = 3", "spans 4"],
    );
    inv(
        blas1::copy_strided_batched(&mut h, 2, &x, 1, 2, &mut y, -2, 2, 3).unwrap_err(),
        &["stride_y = 2", "spans 3"],
    );
    inv(
        blas1::scal_strided_batched(&mut h, 3, 2.0.into(), &mut y, 1, 0, 4).unwrap_err(),
        &["stride_x = 0"],
    );
    inv(
        blas1::rot_strided_batched(
            &mut h,
            3,
            &mut y,
            2,
            4,
            &mut z,
            1,
            3,
            0.5.into(),
            0.5.into(),
            2,
        )
        .unwrap_err(),
        &["stride_x = 4", "spans 5"],
    );
    inv(
        blas1::swap_strided_batched(&mut h, 2, &mut y, 1, 2, &mut z, 1, 1, 2).unwrap_err(),
        &["stride_y = 1"],
    );
    inv(
        blas1::rotg_strided_batched(&mut h, &mut y, 1, &mut z, 1, &mut c, 0, &mut s, 1, 2)
            .unwrap_err(),
        &["stride_c = 0"],
    );
    inv(
        blas1::rotmg_strided_batched(&mut h, &mut y, 1, &mut z, 1, &mut c, 1, &x, 1, &mut s, 4, 2)
            .unwrap_err(),
        &["stride_param = 4", "spans 5"],
    );
    // An output increment of 0 is valid within an entry (tests/reference/increments.rs), but
    // entries at stride 0 would still share their one output element.
    inv(
        blas1::axpy_strided_batched(&mut h, 2, 2.0.into(), &x, 1, 2, &mut y, 0, 0, 2).unwrap_err(),
        &["stride_y = 0", "spans 1"],
    );
    let pr = dev.upload(&[-1.0f64, 1.0, 2.0, 3.0, 4.0]).unwrap();
    inv(
        blas1::rotm_strided_batched(&mut h, 2, &mut y, 0, 0, &mut z, 1, 2, &pr, 0, 2).unwrap_err(),
        &["stride_x = 0", "spans 1"],
    );
    for (name, b) in [("y", &y), ("z", &z), ("c", &c), ("s", &s)] {
        assert!(
            bits64(b).iter().all(|&v| v == p.to_bits()),
            "{name} was touched: {:?}",
            b.to_vec().unwrap()
        );
    }
    // Inputs may overlap: every entry reads the same x (stride 0), and an input increment 0.
    let mut y = dev.upload(&[1.0f64; 9]).unwrap();
    let _ = blas1::axpy_strided_batched(&mut h, 3, 2.0.into(), &x, 1, 0, &mut y, 1, 3, 3).unwrap();
    assert_eq!(
        y.to_vec().unwrap(),
        vec![3.0, 5.0, 7.0, 3.0, 5.0, 7.0, 3.0, 5.0, 7.0]
    );
    let _ = blas1::copy_strided_batched(&mut h, 3, &x, 0, 1, &mut y, -1, 3, 3).unwrap();
    assert_eq!(
        y.to_vec().unwrap(),
        vec![1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0]
    );
    // n == 1 with an output increment 0 is one element: fine, at distinct strides.
    let _ = blas1::axpy_strided_batched(&mut h, 1, 1.0.into(), &x, 0, 1, &mut y, 0, 3, 3).unwrap();
    assert_eq!(
        y.to_vec().unwrap(),
        vec![2.0, 1.0, 1.0, 4.0, 2.0, 2.0, 6.0, 3.0, 3.0]
    );
}

/// F9 for vectors of one element: at increment 0 a one-element output still is one element,
/// so entries at stride 0 overlap exactly as they do at increment 1 (which is rejected).
fn f9_one_element_outputs_at_increment_zero_and_stride_zero_overlap(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let p = -7.25f64;
    let x = dev.upload(&[1.0f64, 2.0, 3.0]).unwrap();
    let mut y = dev.upload(&[p; 2]).unwrap();
    let mut z = dev.upload(&[1.0f64, 2.0]).unwrap();
    let mut w = dev.upload(&[3.0f64, 4.0]).unwrap();
    // The same call at incy = 1 is rejected, as F9 requires.
    let e =
        blas1::axpy_strided_batched(&mut h, 1, 1.0.into(), &x, 1, 1, &mut y, 1, 0, 3).unwrap_err();
    assert!(matches!(e, Error::InvalidValue(_)), "{e}");
    // At incy = 0: three entries would all update y[0]; at incx = 0 two entries swap x[0].
    let r1 = blas1::axpy_strided_batched(&mut h, 1, 1.0.into(), &x, 1, 1, &mut y, 0, 0, 3);
    let r2 = blas1::swap_strided_batched(&mut h, 1, &mut z, 0, 0, &mut w, 1, 1, 2);
    let (gy, gz, gw) = (
        y.to_vec().unwrap(),
        z.to_vec().unwrap(),
        w.to_vec().unwrap(),
    );
    assert!(
        matches!(r1, Err(Error::InvalidValue(_))) && matches!(r2, Err(Error::InvalidValue(_))),
        "outputs of one element at increment 0 and stride 0 overlap (F9): \
         axpy_strided_batched n=1 incy=0 stride_y=0 batch=3 gave {r1:?} with y = {gy:?}; \
         swap_strided_batched n=1 incx=0 stride_x=0 batch=2 gave {r2:?} with x = {gz:?}, \
         y = {gw:?}; want InvalidValue and nothing touched"
    );
    assert_eq!(bits64(&y), vec![p.to_bits(); 2]);
    assert_eq!(z.to_vec().unwrap(), vec![1.0, 2.0]);
    assert_eq!(w.to_vec().unwrap(), vec![3.0, 4.0]);
}

// ---- size query (M8) -----------------------------------------------------------------------

fn m08_size_query_answers_size_unchanged_and_touches_nothing(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let n = 100;
    let ph = || DeviceBuffer::<f64>::placeholder(1000);
    let phc = || DeviceBuffer::<Complex32>::placeholder(1000);
    let phr = || DeviceBuffer::<f32>::placeholder(1000);
    let (x, mut y, mut z, mut w, mut v) = (ph(), ph(), ph(), ph(), ph());
    let (xc, mut yc, mut zc, mut sc) = (phc(), phc(), phc(), phc());
    let mut cr = phr();
    let (xl1, xl2) = (ph(), ph());
    let (mut yl1, mut yl2, mut zl1, mut zl2) = (ph(), ph(), ph(), ph());
    let dev_alpha = ph();
    let real = dev.upload(&[1.0f64; 1000]).unwrap();
    let p = -7.25f64;
    let mut out = dev.upload(&[p; 1000]).unwrap();
    h.start_device_memory_size_query().unwrap();
    let calls: Vec<(&str, Result<Status, Error>)> = vec![
        ("axpy", blas1::axpy(&mut h, n, 2.0.into(), &x, 1, &mut y, 1)),
        (
            "axpy device alpha",
            blas1::axpy(&mut h, n, Coef::Device(&dev_alpha), &x, -2, &mut y, 3),
        ),
        (
            "axpy_batched",
            blas1::axpy_batched(
                &mut h,
                n,
                Coef::DevicePerEntry(&dev_alpha),
                &[&xl1, &xl2],
                1,
                &mut [&mut yl1, &mut yl2],
                1,
            ),
        ),
        (
            "axpy_strided_batched",
            blas1::axpy_strided_batched(&mut h, n, 2.0.into(), &x, 1, n, &mut y, 1, n, 7),
        ),
        ("scal", blas1::scal(&mut h, n, 2.0.into(), &mut y, 1)),
        (
            "scal_batched",
            blas1::scal_batched(&mut h, n, 2.0.into(), &mut [&mut yl1, &mut yl2], 1),
        ),
        (
            "scal_strided_batched",
            blas1::scal_strided_batched(&mut h, n, 2.0.into(), &mut y, 1, n, 3),
        ),
        ("copy", blas1::copy(&mut h, n, &x, 1, &mut y, 1)),
        (
            "copy_batched",
            blas1::copy_batched(&mut h, n, &[&xl1, &xl2], 1, &mut [&mut yl1, &mut yl2], 1),
        ),
        (
            "copy_strided_batched",
            blas1::copy_strided_batched(&mut h, n, &x, 1, n, &mut y, 1, n, 3),
        ),
        ("swap", blas1::swap(&mut h, n, &mut y, 1, &mut z, 1)),
        (
            "swap_batched",
            blas1::swap_batched(
                &mut h,
                n,
                &mut [&mut yl1, &mut yl2],
                1,
                &mut [&mut zl1, &mut zl2],
                1,
            ),
        ),
        (
            "swap_strided_batched",
            blas1::swap_strided_batched(&mut h, n, &mut y, 1, n, &mut z, 1, n, 3),
        ),
        (
            "rot",
            blas1::rot(
                &mut h,
                n,
                &mut yc,
                1,
                &mut zc,
                1,
                0.5.into(),
                Coef::Device(&xc),
            ),
        ),
        (
            "rot_batched",
            blas1::rot_batched(
                &mut h,
                n,
                &mut [&mut yl1, &mut yl2],
                1,
                &mut [&mut zl1, &mut zl2],
                1,
                Coef::DevicePerEntry(&dev_alpha),
                0.5.into(),
            ),
        ),
        (
            "rot_strided_batched",
            blas1::rot_strided_batched(
                &mut h,
                n,
                &mut y,
                1,
                n,
                &mut z,
                1,
                n,
                0.5.into(),
                0.5.into(),
                3,
            ),
        ),
        ("rotm", blas1::rotm(&mut h, n, &mut y, 1, &mut z, 1, &x)),
        (
            "rotm_batched",
            blas1::rotm_batched(
                &mut h,
                n,
                &mut [&mut yl1, &mut yl2],
                1,
                &mut [&mut zl1, &mut zl2],
                1,
                &[&xl1, &xl2],
            ),
        ),
        (
            "rotm_strided_batched",
            blas1::rotm_strided_batched(&mut h, n, &mut y, 1, n, &mut z, 1, n, &x, 5, 3),
        ),
        (
            "rotg",
            blas1::rotg(&mut h, &mut yc, &mut zc, &mut cr, &mut sc),
        ),
        (
            "rotg_batched",
            blas1::rotg_batched(
                &mut h,
                &mut [&mut yl1, &mut yl2],
                &mut [&mut zl1, &mut zl2],
                &mut [&mut w, &mut v],
                &mut [&mut y, &mut z],
            ),
        ),
        (
            "rotg_strided_batched",
            blas1::rotg_strided_batched(&mut h, &mut y, 1, &mut z, 1, &mut w, 1, &mut v, 1, 7),
        ),
        (
            "rotmg",
            blas1::rotmg(&mut h, &mut y, &mut z, &mut w, &x, &mut v),
        ),
        (
            "rotmg_batched",
            blas1::rotmg_batched(
                &mut h,
                &mut [&mut yl1],
                &mut [&mut zl1],
                &mut [&mut w],
                &[&x],
                &mut [&mut v],
            ),
        ),
        (
            "rotmg_strided_batched",
            blas1::rotmg_strided_batched(
                &mut h, &mut y, 1, &mut z, 1, &mut w, 1, &x, 1, &mut v, 5, 7,
            ),
        ),
        // Real operands during a query: nothing runs, nothing is written.
        (
            "axpy on real buffers",
            blas1::axpy(&mut h, n, 2.0.into(), &real, 1, &mut out, 1),
        ),
        (
            "scal on real buffers",
            blas1::scal(&mut h, n, 2.0.into(), &mut out, 1),
        ),
    ];
    for (name, r) in calls {
        match r {
            Ok(Status::SizeUnchanged) => {}
            other => panic!("{name} during a query: {other:?}"),
        }
    }
    // Size and shape errors are still reported during a query.
    let e = blas1::copy_batched(&mut h, 2, &[&xl1], 1, &mut [&mut yl1, &mut yl2], 1).unwrap_err();
    assert!(matches!(e, Error::InvalidSize(_)), "{e}");
    assert!(h.is_device_memory_size_query());
    assert_eq!(h.stop_device_memory_size_query().unwrap(), 0);
    assert_eq!(bits64(&out), vec![p.to_bits(); 1000]);
}

// ---- nrm2_ex, batched forms ----------------------------------------------------------------

/// Runs nrm2_ex_batched and nrm2_ex_strided_batched with results on the host and on the
/// device, poisoned one past the batch, and compares with `want`.
fn nrm2_ex_forms<X: ExInput, A: ExAcc + Copy + std::fmt::Debug>(
    h: &mut Handle,
    n: usize,
    inc: isize,
    strided: &DeviceBuffer<X>,
    stride: usize,
    list: &[&DeviceBuffer<X>],
    want: &[f64],
    nan: A,
    to_f64: fn(A) -> f64,
    tol: f64,
) {
    let batch = want.len();
    for (form, dev_out) in [(0, false), (0, true), (1, false), (1, true)] {
        let mut host = vec![nan; batch + 1];
        let mut dbuf = h.device().upload(&host).unwrap();
        let out = if dev_out {
            Results::Device(&mut dbuf)
        } else {
            Results::Host(&mut host)
        };
        let what = format!(
            "nrm2_ex<{}, {}> {} n={n} inc={inc} batch={batch} results on {}",
            std::any::type_name::<X>(),
            std::any::type_name::<A>(),
            if form == 0 { "batched" } else { "strided" },
            if dev_out { "device" } else { "host" }
        );
        let st = if form == 0 {
            blas1::nrm2_ex_batched::<X, A>(h, n, list, inc, out)
        } else {
            blas1::nrm2_ex_strided_batched::<X, A>(h, n, strided, inc, stride, batch, out)
        }
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(
            matches!(st, Status::Success | Status::PerfDegraded),
            "{what}: {st:?}"
        );
        let got = if dev_out {
            dbuf.to_vec().unwrap()
        } else {
            host
        };
        for v in 0..batch {
            let g = to_f64(got[v]);
            assert!(
                (g - want[v]).abs() <= tol * want[v].abs(),
                "{what} v={v}: got {g}, want {}",
                want[v]
            );
        }
        assert!(to_f64(got[batch]).is_nan(), "{what}: wrote past the batch");
    }
}

fn f1_nrm2_ex_batched_and_strided_half_bf16_f32(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    for &n in &[0usize, 1, 33, 1025, (1 << 20) + 3] {
        let big = n > BIG;
        let batches: &[usize] = if big { &[0, 2] } else { &[0, 1, 7] };
        let incs: &[isize] = if big { &[1] } else { &[1, 3, -1] };
        for &inc in incs {
            for &batch in batches {
                let sp = span(n, inc);
                let stride = sp + 2;
                let len = stride * batch.max(1);
                let mut r = rng(n as u64 * 31 + batch as u64 * 7 + inc.unsigned_abs() as u64);
                let vals = randn(&mut r, len);
                let a = inc.unsigned_abs();
                // NaN in the gaps, between increments and between entries.
                let live = |k: usize| k % stride < sp && (k % stride) % a == 0;
                macro_rules! case {
                    ($t:ty, $conv:expr, $back:expr) => {{
                        let data: Vec<$t> = (0..len)
                            .map(|k| $conv(if live(k) { vals[k] } else { f64::NAN }))
                            .collect();
                        let want: Vec<f64> = (0..batch)
                            .map(|v| {
                                if inc <= 0 {
                                    return 0.0;
                                }
                                (0..n)
                                    .map(|i| {
                                        let q: f64 = $back(data[v * stride + i * a]);
                                        q * q
                                    })
                                    .sum::<f64>()
                                    .sqrt()
                            })
                            .collect();
                        let sb = dev.upload(&data).unwrap();
                        let lb: Vec<DeviceBuffer<$t>> = (0..batch)
                            .map(|v| dev.upload(&data[v * stride..v * stride + sp]).unwrap())
                            .collect();
                        let lr: Vec<&DeviceBuffer<$t>> = lb.iter().collect();
                        nrm2_ex_forms::<$t, f32>(
                            &mut h,
                            n,
                            inc,
                            &sb,
                            stride,
                            &lr,
                            &want,
                            f32::NAN,
                            |v| v as f64,
                            4e-5,
                        );
                        nrm2_ex_forms::<$t, f64>(
                            &mut h,
                            n,
                            inc,
                            &sb,
                            stride,
                            &lr,
                            &want,
                            f64::NAN,
                            |v| v,
                            4e-13,
                        );
                    }};
                }
                case!(f16, f16::from_f64, |v: f16| v.to_f64());
                case!(bf16, bf16::from_f64, |v: bf16| v.to_f64());
                case!(f32, |v: f64| v as f32, |v: f32| v as f64);
            }
        }
    }
}

on_both_backends!(
    f1_axpy_every_type_form_size_and_increment,
    f1_scal_every_type_form_size_and_increment,
    f1_copy_every_type_form_size_and_increment,
    f1_swap_every_type_form_size_and_increment,
    f1_rot_every_type_form_size_and_increment,
    f1_rotm_every_flag_form_size_and_increment,
    f1_rotg_every_type_and_form,
    f1_rotmg_every_branch_and_form,
    f1_rotmg_leaves_implied_param_entries_as_reference_blas_does,
    f1_nrm2_ex_batched_and_strided_half_bf16_f32,
    f10_device_scalars_shared_and_per_entry,
    f3_quick_returns_touch_nothing,
    f7_bad_arguments_are_errors_naming_values_with_outputs_untouched,
    f9_overlapping_outputs_are_invalid_inputs_may_overlap,
    f9_one_element_outputs_at_increment_zero_and_stride_zero_overlap,
    m08_size_query_answers_size_unchanged_and_touches_nothing,
);
