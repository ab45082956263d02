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

// ---- shared by several sections ------------------------------------------------------------

fn bits64(b: &DeviceBuffer<f64>) -> Vec<u64> {
    b.to_vec().unwrap().iter().map(|v| v.to_bits()).collect()
}

#[path = "blas1_update/bad_arguments.rs"]
mod bad_arguments;
#[path = "blas1_update/device_scalars.rs"]
mod device_scalars;
#[path = "blas1_update/nrm2_ex.rs"]
mod nrm2_ex;
#[path = "blas1_update/quick_returns.rs"]
mod quick_returns;
#[path = "blas1_update/rotations.rs"]
mod rotations;
#[path = "blas1_update/size_query.rs"]
mod size_query;
#[path = "blas1_update/updates.rs"]
mod updates;
