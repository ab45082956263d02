//! Issue 27, items 1 and 2 (SPEC F9 as revised, F3, F7, M16): within one batch entry reference
//! BLAS decides.
//! - Level 1: an increment of 0 on an output (or an input) is a valid call whose result is what
//!   netlib's sequential loop leaves in the one element (daxpy, dcopy, dswap, drot/zrot,
//!   drotm); outputs of different batch entries still must not overlap.
//! - Level 2: every routine rejects a zero increment, as reference BLAS's `xerbla` check does.
//! - Band widths `k >= n` are valid `tbmv` calls; the band's unused rows are never read.
//!
//! References are plain f64 loops written here after netlib's. Every buffer holds NaN outside
//! what a call may write and is compared bit for bit there; what a call must not read (unused
//! band rows, a unit diagonal, padding rows) holds NaN too.

use crate::common::forms::Form;
use crate::common::rng;
use gpublas::blas1::{self, RealScalar, Scalar};
use gpublas::blas2;
use gpublas::{
    Coef, Complex32, Complex64, ComplexScalar, Device, DeviceBuffer, Diag, Element, Error, Handle,
    HandleConfig, Op, Status, Uplo,
};
use rand::Rng;

type C = (f64, f64);

fn cmul(a: C, b: C) -> C {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}
fn cadd(a: C, b: C) -> C {
    (a.0 + b.0, a.1 + b.1)
}
fn csub(a: C, b: C) -> C {
    (a.0 - b.0, a.1 - b.1)
}
fn conj(a: C) -> C {
    (a.0, -a.1)
}
/// |re| + |im|: bounds both parts of a product it takes part in.
fn mag(a: C) -> f64 {
    a.0.abs() + a.1.abs()
}

// ---- test-side element view ------------------------------------------------------------------

/// An element built from and read as (re, im), independently of gpublas.
trait El: Scalar + std::fmt::Debug + RotmCall {
    const CPLX: bool;
    /// Unit roundoff.
    const U: f64;
    fn make(re: f64, im: f64) -> Self;
    fn get(&self) -> C;
    fn bits(&self) -> (u64, u64);
    fn real(v: f64) -> Self::Real;
    fn real_get(v: Self::Real) -> f64;
}

macro_rules! el {
    ($t:ty, $r:ty, $cplx:expr, $u:expr, |$re:ident, $im:ident| $make:expr, |$s:ident| $get:expr, $bits:expr) => {
        impl El for $t {
            const CPLX: bool = $cplx;
            const U: f64 = $u;
            fn make($re: f64, $im: f64) -> Self {
                $make
            }
            fn get(&self) -> C {
                let $s = self;
                $get
            }
            fn bits(&self) -> (u64, u64) {
                let $s = self;
                $bits
            }
            fn real(v: f64) -> $r {
                v as $r
            }
            fn real_get(v: $r) -> f64 {
                v as f64
            }
        }
    };
}
const U32: f64 = 5.960_464_477_539_063e-8;
const U64: f64 = 1.110_223_024_625_156_5e-16;
el!(
    f32,
    f32,
    false,
    U32,
    |re, _im| re as f32,
    |s| (*s as f64, 0.0),
    (s.to_bits() as u64, 0)
);
el!(
    f64,
    f64,
    false,
    U64,
    |re, _im| re,
    |s| (*s, 0.0),
    (s.to_bits(), 0)
);
el!(
    Complex32,
    f32,
    true,
    U32,
    |re, im| Complex32::new(re as f32, im as f32),
    |s| (s.re as f64, s.im as f64),
    (s.re.to_bits() as u64, s.im.to_bits() as u64)
);
el!(
    Complex64,
    f64,
    true,
    U64,
    |re, im| Complex64::new(re, im),
    |s| (s.re, s.im),
    (s.re.to_bits(), s.im.to_bits())
);

fn nan<E: El>() -> E {
    E::make(f64::NAN, f64::NAN)
}

fn type_name<E>() -> &'static str {
    std::any::type_name::<E>()
        .rsplit("::")
        .next()
        .unwrap_or("?")
}

/// Random values in [-1, 1), reproducible per seed.
struct Pool(rand::rngs::StdRng);
impl Pool {
    fn new(seed: u64) -> Pool {
        Pool(rng(seed))
    }
    fn f(&mut self) -> f64 {
        self.0.gen_range(-1.0..1.0)
    }
    fn elem<E: El>(&mut self) -> E {
        let re = self.f();
        let im = if E::CPLX { self.f() } else { 0.0 };
        E::make(re, im)
    }
}

/// Netlib's element of step `i` (0-based) of a vector of `n` at `inc`: a negative increment
/// starts at `(n - 1) |inc|` and walks back; an increment of 0 stays on element 0.
fn at(n: usize, inc: isize, i: usize) -> usize {
    if inc >= 0 {
        i * inc as usize
    } else {
        (n - 1 - i) * inc.unsigned_abs()
    }
}

/// Elements a vector of `n` at `inc` spans.
fn span(n: usize, inc: isize) -> usize {
    if n == 0 {
        0
    } else {
        (n - 1) * inc.unsigned_abs() + 1
    }
}

// ---- operands in three forms -----------------------------------------------------------------

const FORMS: [Form; 3] = [Form::Single, Form::List(3), Form::Strided(3)];
/// Poisoned elements between strided entries.
const GAP: usize = 2;

/// One operand in one form: `span` elements per entry, `span + GAP` apart when strided, one
/// poisoned element past the last entry of every buffer.
struct Opnd<E> {
    init: Vec<Vec<E>>,
    bufs: Vec<DeviceBuffer<E>>,
    form: Form,
    stride: usize,
}

impl<E: El> Opnd<E> {
    /// `fill(entry, k)` gives element k of an entry; `None` leaves NaN.
    fn new(
        dev: &Device,
        form: Form,
        span: usize,
        mut fill: impl FnMut(usize, usize) -> Option<E>,
    ) -> Self {
        Self::with_stride(dev, form, span, span + GAP, &mut fill)
    }

    fn with_stride(
        dev: &Device,
        form: Form,
        span: usize,
        stride: usize,
        fill: &mut dyn FnMut(usize, usize) -> Option<E>,
    ) -> Self {
        let (nbuf, len) = match form {
            Form::Single => (1, span + 1),
            Form::List(c) => (c, span + 1),
            Form::Strided(c) => (1, c.saturating_sub(1) * stride + span + 1),
        };
        let mut o = Opnd {
            init: vec![vec![nan::<E>(); len]; nbuf],
            bufs: vec![],
            form,
            stride,
        };
        for e in 0..form.count() {
            for k in 0..span {
                if let Some(v) = fill(e, k) {
                    let (b, i) = o.pos(e, k);
                    o.init[b][i] = v;
                }
            }
        }
        o.bufs = o.init.iter().map(|v| dev.upload(v).unwrap()).collect();
        o
    }

    /// A vector of `n` at `inc` in every entry: random values where it lives, NaN between.
    fn vector(dev: &Device, form: Form, n: usize, inc: isize, pool: &mut Pool) -> Self {
        let step = inc.unsigned_abs().max(1);
        Self::new(dev, form, span(n, inc), |_, k| {
            (k % step == 0).then(|| pool.elem())
        })
    }

    /// (buffer, element) of element k of entry e.
    fn pos(&self, e: usize, k: usize) -> (usize, usize) {
        match self.form {
            Form::Single => (0, k),
            Form::List(_) => (e, k),
            Form::Strided(_) => (0, e * self.stride + k),
        }
    }

    fn val(&self, e: usize, k: usize) -> E {
        let (b, i) = self.pos(e, k);
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

    /// Every element as it was.
    fn unchanged(&self) -> Vec<Vec<Want<E>>> {
        self.init
            .iter()
            .map(|b| b.iter().map(|&v| Want::Exact(v)).collect())
            .collect()
    }

    fn set(&self, w: &mut [Vec<Want<E>>], e: usize, k: usize, want: Want<E>) {
        let (b, i) = self.pos(e, k);
        w[b][i] = want;
    }

    /// Compares every element of every buffer with `want`.
    fn check(&self, what: &dyn Fn() -> String, want: &[Vec<Want<E>>]) {
        for (b, buf) in self.bufs.iter().enumerate() {
            let got = buf.to_vec().unwrap();
            for (k, g) in got.iter().enumerate() {
                let ok = match want[b][k] {
                    Want::Exact(v) => g.bits() == v.bits(),
                    Want::Near(w, tol) => {
                        let (gr, gi) = g.get();
                        (gr - w.0).abs() <= tol && (gi - w.1).abs() <= tol
                    }
                };
                if !ok {
                    let w = match want[b][k] {
                        Want::Exact(v) => format!("exactly {v:?}"),
                        Want::Near(w, tol) => format!("{w:?} within {tol:e}"),
                    };
                    panic!("{}: buffer {b} element {k}: got {g:?}, want {w}", what());
                }
            }
        }
    }

    fn untouched(&self, what: &str) {
        self.check(&|| what.to_string(), &self.unchanged());
    }
}

/// What an element must hold after a call.
#[derive(Clone, Copy)]
enum Want<E> {
    /// These bits (a copied, swapped or untouched element).
    Exact(E),
    /// Within this absolute tolerance, in both parts.
    Near(C, f64),
}

/// A scalar argument: on the host, in a device buffer (element 0 for every entry), or one per
/// entry; `vals[e]` is entry e's value.
struct Co<S> {
    kind: usize,
    vals: Vec<S>,
    buf: Option<DeviceBuffer<S>>,
}

impl<S: Element + Copy> Co<S> {
    fn new(dev: &Device, kind: usize, count: usize, mut gen: impl FnMut() -> S) -> Self {
        let kind = kind % 3;
        let first = gen();
        let mut vals = vec![first];
        match kind {
            0 => Co {
                kind,
                vals: vec![first; count.max(1)],
                buf: None,
            },
            1 => {
                let other = gen(); // element 1 differs: it must not be read
                Co {
                    kind,
                    vals: vec![first; count.max(1)],
                    buf: Some(dev.upload(&[first, other]).unwrap()),
                }
            }
            _ => {
                vals.extend((1..count.max(1)).map(|_| gen()));
                let buf = dev.upload(&vals).unwrap();
                Co {
                    kind,
                    vals,
                    buf: Some(buf),
                }
            }
        }
    }

    fn coef(&self) -> Coef<'_, S> {
        match (self.kind, &self.buf) {
            (1, Some(b)) => Coef::Device(b),
            (2, Some(b)) => Coef::DevicePerEntry(b),
            _ => Coef::Host(self.vals[0]),
        }
    }

    fn name(&self) -> &'static str {
        ["Host", "Device", "DevicePerEntry"][self.kind]
    }
}

// ---- Level 1: the reference loops -----------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Rout {
    Axpy,
    Copy,
    Swap,
    Rot,
    Rotm,
}

/// One element of the reference: its value, the error scale it carries (a bound on what
/// rounding in the steps that built it can reach, per step), and its exact bits while it is
/// only ever moved (copy, swap, untouched).
#[derive(Clone, Copy)]
struct Rv<E> {
    v: C,
    sc: f64,
    exact: Option<E>,
}

impl<E: El> Rv<E> {
    fn of(e: E) -> Self {
        Rv {
            v: e.get(),
            sc: mag(e.get()),
            exact: Some(e),
        }
    }
    fn computed(v: C, sc: f64) -> Self {
        Rv { v, sc, exact: None }
    }
}

/// An entry's coefficients: axpy's alpha, rot's c and s, rotm's H as [h11, h21, h12, h22]
/// (`None`: flag -2), and the largest singular value of the 2x2 step (rot, rotm).
struct Step {
    alpha: C,
    c: f64,
    h: Option<[f64; 4]>,
    sigma: f64,
}

/// Netlib's loop (daxpy, dcopy, dswap, zrot with real c, drotm) over one entry's x and y:
/// step i reads and writes element `at(n, inc, i)`, in order, so a shared element carries
/// every step's result into the next.
fn reference<E: El>(
    r: Rout,
    n: usize,
    incx: isize,
    incy: isize,
    x: &mut [Rv<E>],
    y: &mut [Rv<E>],
    k: &Step,
) {
    if r == Rout::Rotm && k.h.is_none() {
        return; // flag -2: drotm returns before the loop
    }
    for i in 0..n {
        let (ix, iy) = (at(n, incx, i), at(n, incy, i));
        let (xv, yv) = (x[ix], y[iy]);
        match r {
            Rout::Axpy => {
                y[iy] = Rv::computed(
                    cadd(yv.v, cmul(k.alpha, xv.v)),
                    yv.sc + mag(k.alpha) * xv.sc,
                )
            }
            Rout::Copy => y[iy] = xv,
            Rout::Swap => {
                x[ix] = yv;
                y[iy] = xv;
            }
            Rout::Rot => {
                // (x, y) = (c x + s y, c y - conj(s) x)
                let c = (k.c, 0.0);
                let nx = cadd(cmul(c, xv.v), cmul(k.alpha, yv.v));
                let ny = csub(cmul(c, yv.v), cmul(conj(k.alpha), xv.v));
                let sc = k.sigma * xv.sc.hypot(yv.sc);
                x[ix] = Rv::computed(nx, sc);
                y[iy] = Rv::computed(ny, sc);
            }
            Rout::Rotm => {
                let [h11, h21, h12, h22] = k.h.unwrap_or([1.0, 0.0, 0.0, 1.0]);
                let nx = h11 * xv.v.0 + h12 * yv.v.0;
                let ny = h21 * xv.v.0 + h22 * yv.v.0;
                let sc = k.sigma * xv.sc.hypot(yv.sc);
                x[ix] = Rv::computed((nx, 0.0), sc);
                y[iy] = Rv::computed((ny, 0.0), sc);
            }
        }
    }
}

/// Largest singular value of the real 2x2 matrix [[a, b], [c, d]].
fn sigma_max(a: f64, b: f64, c: f64, d: f64) -> f64 {
    let f = a * a + b * b + c * c + d * d;
    let det = a * d - b * c;
    ((f + (f * f - 4.0 * det * det).max(0.0).sqrt()) / 2.0).sqrt()
}

/// rotm's parameters for a flag, with implied entries NaN (never read). H stays close to
/// orthogonal so a chain of 1000 steps through one element neither overflows nor vanishes.
fn rotm_param(flag: i32, pool: &mut Pool) -> [f64; 5] {
    const EPS: f64 = 0.002;
    let t = EPS * pool.f();
    let th = std::f64::consts::PI * pool.f();
    match flag {
        -1 => [-1.0, th.cos(), -th.sin(), th.sin(), th.cos()],
        0 => [0.0, f64::NAN, -t, t, f64::NAN],
        1 => [1.0, t, f64::NAN, f64::NAN, EPS * pool.f()],
        _ => [-2.0, f64::NAN, f64::NAN, f64::NAN, f64::NAN],
    }
}

/// H as [h11, h21, h12, h22] by the BLAS flag conventions, read like drotm: flag < 0 full,
/// 0 unit diagonal, > 0 h21 = -1 and h12 = 1; -2 the identity (None).
fn rotm_h(p: [f64; 5]) -> Option<[f64; 4]> {
    if p[0] == -2.0 {
        None
    } else if p[0] < 0.0 {
        Some([p[1], p[2], p[3], p[4]])
    } else if p[0] == 0.0 {
        Some([1.0, p[2], p[3], 1.0])
    } else {
        Some([p[1], -1.0, 1.0, p[4]])
    }
}

/// Runs one Level-1 update in one form.
fn call<E: El>(
    h: &mut Handle,
    r: Rout,
    n: usize,
    x: &mut Opnd<E>,
    incx: isize,
    y: &mut Opnd<E>,
    incy: isize,
    alpha: Coef<'_, E>,
    c: Coef<'_, E::Real>,
    param: Option<&Opnd<E>>,
) -> Result<Status, Error> {
    let (sx, sy) = (x.stride, y.stride);
    let form = x.form;
    let b = form.count();
    match (r, form) {
        (Rout::Axpy, Form::Single) => blas1::axpy(h, n, alpha, x.one(), incx, &mut y.bufs[0], incy),
        (Rout::Axpy, Form::List(_)) => {
            blas1::axpy_batched(h, n, alpha, &x.refs(), incx, &mut y.muts(), incy)
        }
        (Rout::Axpy, Form::Strided(_)) => {
            blas1::axpy_strided_batched(h, n, alpha, x.one(), incx, sx, &mut y.bufs[0], incy, sy, b)
        }
        (Rout::Copy, Form::Single) => blas1::copy(h, n, x.one(), incx, &mut y.bufs[0], incy),
        (Rout::Copy, Form::List(_)) => {
            blas1::copy_batched(h, n, &x.refs(), incx, &mut y.muts(), incy)
        }
        (Rout::Copy, Form::Strided(_)) => {
            blas1::copy_strided_batched(h, n, x.one(), incx, sx, &mut y.bufs[0], incy, sy, b)
        }
        (Rout::Swap, Form::Single) => blas1::swap(h, n, &mut x.bufs[0], incx, &mut y.bufs[0], incy),
        (Rout::Swap, Form::List(_)) => {
            blas1::swap_batched(h, n, &mut x.muts(), incx, &mut y.muts(), incy)
        }
        (Rout::Swap, Form::Strided(_)) => {
            blas1::swap_strided_batched(h, n, &mut x.bufs[0], incx, sx, &mut y.bufs[0], incy, sy, b)
        }
        (Rout::Rot, Form::Single) => {
            blas1::rot(h, n, &mut x.bufs[0], incx, &mut y.bufs[0], incy, c, alpha)
        }
        (Rout::Rot, Form::List(_)) => {
            blas1::rot_batched(h, n, &mut x.muts(), incx, &mut y.muts(), incy, c, alpha)
        }
        (Rout::Rot, Form::Strided(_)) => blas1::rot_strided_batched(
            h,
            n,
            &mut x.bufs[0],
            incx,
            sx,
            &mut y.bufs[0],
            incy,
            sy,
            c,
            alpha,
            b,
        ),
        (Rout::Rotm, _) => E::rotm(h, n, x, incx, y, incy, param.expect("rotm's param")),
    }
}

/// rotm in one form; real types only (`blas1::rotm` takes a `RealScalar`).
trait RotmCall: Sized {
    fn rotm(
        h: &mut Handle,
        n: usize,
        x: &mut Opnd<Self>,
        incx: isize,
        y: &mut Opnd<Self>,
        incy: isize,
        p: &Opnd<Self>,
    ) -> Result<Status, Error>;
}

macro_rules! rotm_call {
    ($t:ty, $body:ident) => {
        impl RotmCall for $t {
            fn rotm(
                h: &mut Handle,
                n: usize,
                x: &mut Opnd<Self>,
                incx: isize,
                y: &mut Opnd<Self>,
                incy: isize,
                p: &Opnd<Self>,
            ) -> Result<Status, Error> {
                $body(h, n, x, incx, y, incy, p)
            }
        }
    };
}
rotm_call!(f32, rotm_real);
rotm_call!(f64, rotm_real);
rotm_call!(Complex32, rotm_complex);
rotm_call!(Complex64, rotm_complex);

fn rotm_complex<E: El>(
    _: &mut Handle,
    _: usize,
    _: &mut Opnd<E>,
    _: isize,
    _: &mut Opnd<E>,
    _: isize,
    _: &Opnd<E>,
) -> Result<Status, Error> {
    unreachable!("rotm is real only, not {}", type_name::<E>())
}

fn rotm_real<E: El + RealScalar>(
    h: &mut Handle,
    n: usize,
    x: &mut Opnd<E>,
    incx: isize,
    y: &mut Opnd<E>,
    incy: isize,
    p: &Opnd<E>,
) -> Result<Status, Error> {
    let (sx, sy, sp) = (x.stride, y.stride, p.stride);
    match x.form {
        Form::Single => blas1::rotm(h, n, &mut x.bufs[0], incx, &mut y.bufs[0], incy, p.one()),
        Form::List(_) => {
            blas1::rotm_batched(h, n, &mut x.muts(), incx, &mut y.muts(), incy, &p.refs())
        }
        Form::Strided(b) => blas1::rotm_strided_batched(
            h,
            n,
            &mut x.bufs[0],
            incx,
            sx,
            &mut y.bufs[0],
            incy,
            sy,
            p.one(),
            sp,
            b,
        ),
    }
}

/// Sizes of the Level-1 sweeps: empty, one element, short chains, one past a warp, long.
const SIZES: [usize; 6] = [0, 1, 2, 3, 33, 1000];
/// (incx, incy) pairs: an output y at 0 against every kind of x, then x at 0 (an input of
/// axpy and copy, an output of swap, rot and rotm).
const ZERO_PAIRS: [(isize, isize); 7] = [(1, 0), (-1, 0), (2, 0), (-3, 0), (0, 0), (0, 1), (0, -2)];
/// Tolerance: this many unit roundoffs of an element's error scale per step of its chain.
const K: f64 = 16.0;

/// One call of `r` with the given increments and form against the reference loop, every
/// element of every buffer checked.
fn zero_inc_case<E: El>(
    dev: &Device,
    h: &mut Handle,
    r: Rout,
    n: usize,
    (incx, incy): (isize, isize),
    form: Form,
    t: usize,
    pool: &mut Pool,
) {
    let count = form.count();
    let mut x = Opnd::<E>::vector(dev, form, n, incx, pool);
    let mut y = Opnd::<E>::vector(dev, form, n, incy, pool);
    // rot: c = cos θ, s = sin θ e^{iφ}, each rounded to the type; the step is unitary.
    let mut angles = vec![];
    let alpha = Co::new(dev, t, count, || {
        if r == Rout::Rot {
            let th = std::f64::consts::PI * pool.f();
            let ph = std::f64::consts::PI * pool.f();
            angles.push(th.cos());
            let s = th.sin();
            if E::CPLX {
                E::make(s * ph.cos(), s * ph.sin())
            } else {
                E::make(s, 0.0)
            }
        } else {
            pool.elem::<E>()
        }
    });
    let c_vals: Vec<E::Real> = (0..count.max(1))
        .map(|e| E::real(angles.get(e).copied().unwrap_or(0.6)))
        .collect();
    let mut ci = 0;
    let c = Co::new(dev, alpha.kind, count, || {
        let v = c_vals[ci.min(c_vals.len() - 1)];
        ci += 1;
        v
    });
    // rotm: a different flag per entry, starting from a different one per case.
    let flag_of = |e: usize| [-2, -1, 0, 1][(t + e) % 4];
    let params: Vec<[f64; 5]> = (0..count).map(|e| rotm_param(flag_of(e), pool)).collect();
    let param = (r == Rout::Rotm).then(|| {
        Opnd::<E>::new(dev, form, 5, |e, j| {
            let v = params[e][j];
            (!v.is_nan()).then(|| E::make(v, 0.0))
        })
    });
    let what = || {
        format!(
            "{r:?}<{}> n={n} incx={incx} incy={incy} {form:?} scalars {} (first rotm flag {})",
            type_name::<E>(),
            alpha.name(),
            flag_of(0)
        )
    };
    let st = call(
        h,
        r,
        n,
        &mut x,
        incx,
        &mut y,
        incy,
        alpha.coef(),
        c.coef(),
        param.as_ref(),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", what()));
    assert_eq!(st, Status::Success, "{}", what());

    let (mut wx, mut wy) = (x.unchanged(), y.unchanged());
    let (spx, spy) = (span(n, incx), span(n, incy));
    for e in 0..count {
        let mut rx: Vec<Rv<E>> = (0..spx).map(|k| Rv::of(x.val(e, k))).collect();
        let mut ry: Vec<Rv<E>> = (0..spy).map(|k| Rv::of(y.val(e, k))).collect();
        let a = alpha.vals[e].get();
        let cv = E::real_get(c.vals[e]);
        let p = param
            .as_ref()
            .map(|p| core::array::from_fn(|j| p.val(e, j).get().0))
            .unwrap_or([-2.0; 5]);
        let hm = rotm_h(p);
        let sigma = match (r, hm) {
            (Rout::Rot, _) => (cv * cv + a.0 * a.0 + a.1 * a.1).sqrt(),
            (_, Some([h11, h21, h12, h22])) => sigma_max(h11, h12, h21, h22),
            _ => 1.0,
        };
        let step = Step {
            alpha: a,
            c: cv,
            h: hm,
            sigma,
        };
        reference(r, n, incx, incy, &mut rx, &mut ry, &step);
        let tol = |v: &Rv<E>| K * (n + 1) as f64 * E::U * v.sc;
        for (o, w, rv) in [(&x, &mut wx, &rx), (&y, &mut wy, &ry)] {
            for (k, v) in rv.iter().enumerate() {
                let want = match v.exact {
                    Some(b) => Want::Exact(b),
                    None => Want::Near(v.v, tol(v)),
                };
                o.set(w, e, k, want);
            }
        }
    }
    x.check(&|| format!("{} x", what()), &wx);
    y.check(&|| format!("{} y", what()), &wy);
    if let Some(p) = &param {
        p.untouched(&format!("{} param", what()));
    }
}

fn zero_inc_sweep<E: El>(dev: &Device, r: Rout, seed: u64) {
    let mut h = Handle::new(dev).unwrap();
    let mut pool = Pool::new(seed);
    let mut t = 0;
    for n in SIZES {
        for pair in ZERO_PAIRS {
            for form in FORMS {
                zero_inc_case::<E>(dev, &mut h, r, n, pair, form, t, &mut pool);
                t += 1;
            }
        }
    }
}

fn zero_inc_all_types(dev: &Device, r: Rout) {
    zero_inc_sweep::<f32>(dev, r, 1);
    zero_inc_sweep::<f64>(dev, r, 2);
    if r != Rout::Rotm {
        zero_inc_sweep::<Complex32>(dev, r, 3);
        zero_inc_sweep::<Complex64>(dev, r, 4);
    }
}

fn f9_copy_zero_incy_keeps_last(dev: &Device) {
    zero_inc_all_types(dev, Rout::Copy)
}

fn f9_axpy_zero_incy_accumulates_in_order(dev: &Device) {
    zero_inc_all_types(dev, Rout::Axpy)
}

fn f9_swap_zero_increments_chain_the_swaps(dev: &Device) {
    zero_inc_all_types(dev, Rout::Swap)
}

fn f9_rot_zero_increments_run_the_recurrence(dev: &Device) {
    zero_inc_all_types(dev, Rout::Rot)
}

fn f9_rotm_zero_increments_every_flag(dev: &Device) {
    zero_inc_all_types(dev, Rout::Rotm)
}

/// A call that must succeed with `Status::Success`.
fn ok(r: Result<Status, Error>) {
    assert_eq!(r.unwrap(), Status::Success);
}

/// dcopy(2, x, 0, y, 0) and friends, by hand: the values a reader can check at a glance.
fn f9_zero_increments_small_cases_by_hand(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let x = dev.upload(&[1.0f64, 2.0, 3.0]).unwrap();
    let mut y = dev.upload(&[9.0f64, 8.0]).unwrap();
    ok(blas1::copy(&mut h, 2, &x, 0, &mut y, 0));
    assert_eq!(y.to_vec().unwrap(), vec![1.0, 8.0], "dcopy(2, x, 0, y, 0)");
    ok(blas1::copy(&mut h, 3, &x, 1, &mut y, 0));
    assert_eq!(y.to_vec().unwrap(), vec![3.0, 8.0], "dcopy(3, x, 1, y, 0)");
    ok(blas1::copy(&mut h, 2, &x, -2, &mut y, 0));
    assert_eq!(y.to_vec().unwrap(), vec![1.0, 8.0], "dcopy(2, x, -2, y, 0)");
    ok(blas1::axpy(&mut h, 3, 2.0.into(), &x, 1, &mut y, 0));
    assert_eq!(
        y.to_vec().unwrap(),
        vec![13.0, 8.0],
        "daxpy(3, 2, x, 1, y, 0)"
    );
    // dswap(3, x, 1, y, 0): x = [y0, x0, x1], y0 = x2.
    let mut xs = dev.upload(&[1.0f64, 2.0, 3.0]).unwrap();
    let mut ys = dev.upload(&[9.0f64]).unwrap();
    ok(blas1::swap(&mut h, 3, &mut xs, 1, &mut ys, 0));
    assert_eq!(xs.to_vec().unwrap(), vec![9.0, 1.0, 2.0]);
    assert_eq!(ys.to_vec().unwrap(), vec![3.0]);
    // dswap(3, x, 0, y, 0): three swaps of the same pair leave them swapped.
    ok(blas1::swap(&mut h, 3, &mut xs, 0, &mut ys, 0));
    assert_eq!(xs.to_vec().unwrap(), vec![3.0, 1.0, 2.0]);
    assert_eq!(ys.to_vec().unwrap(), vec![9.0]);
    // drot(2, x, 0, y, 0, 0, 1): (x, y) -> (y, -x) twice -> (-x, -y).
    let mut xr = dev.upload(&[1.0f64]).unwrap();
    let mut yr = dev.upload(&[2.0f64]).unwrap();
    ok(blas1::rot(
        &mut h,
        2,
        &mut xr,
        0,
        &mut yr,
        0,
        0.0.into(),
        1.0.into(),
    ));
    assert_eq!(
        (xr.to_vec().unwrap(), yr.to_vec().unwrap()),
        (vec![-1.0], vec![-2.0])
    );
}

/// scal with incx <= 0 is reference BLAS's quick return: nothing is read or written.
fn f3_scal_zero_incx_is_a_quick_return(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let mut pool = Pool::new(7);
    for n in SIZES {
        for form in FORMS {
            for inc in [0isize, -1] {
                let mut x = Opnd::<Complex64>::vector(dev, form, n, inc, &mut pool);
                let sx = x.stride;
                let a = Complex64::new(2.0, 0.5);
                let st = match form {
                    Form::Single => blas1::scal(&mut h, n, a.into(), &mut x.bufs[0], inc),
                    Form::List(_) => blas1::scal_batched(&mut h, n, a.into(), &mut x.muts(), inc),
                    Form::Strided(b) => {
                        blas1::scal_strided_batched(&mut h, n, a.into(), &mut x.bufs[0], inc, sx, b)
                    }
                };
                assert_eq!(st.unwrap(), Status::Success);
                x.untouched(&format!("scal n={n} incx={inc} {form:?}"));
            }
        }
    }
}

/// Entries whose output spans one element (increment 0) may sit one element apart, never on
/// top of each other: stride 0 with more than one entry is InvalidValue, outputs untouched.
fn f9_zero_inc_outputs_of_different_entries_never_overlap(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let x = dev.upload(&[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let p = -7.25f64;
    let mut y = dev.upload(&[p; 4]).unwrap();
    let mut z = dev.upload(&[p; 4]).unwrap();
    let param = dev.upload(&[-1.0f64, 0.0, 1.0, -1.0, 0.0]).unwrap();
    let inv = |r: Result<Status, Error>, parts: &[&str]| {
        let e = r.unwrap_err();
        assert!(matches!(e, Error::InvalidValue(_)), "{e}");
        let m = e.to_string();
        for part in parts {
            assert!(m.contains(part), "{m:?} should name {part:?}");
        }
    };
    inv(
        blas1::copy_strided_batched(&mut h, 3, &x, 1, 3, &mut y, 0, 0, 2),
        &["stride_y = 0", "spans 1"],
    );
    inv(
        blas1::axpy_strided_batched(&mut h, 2, 2.0.into(), &x, 1, 2, &mut y, 0, 0, 3),
        &["stride_y = 0"],
    );
    inv(
        blas1::swap_strided_batched(&mut h, 2, &mut y, 0, 0, &mut z, 1, 2, 2),
        &["stride_x = 0"],
    );
    inv(
        blas1::rot_strided_batched(
            &mut h,
            2,
            &mut y,
            0,
            1,
            &mut z,
            0,
            0,
            0.6.into(),
            0.8.into(),
            2,
        ),
        &["stride_y = 0"],
    );
    inv(
        blas1::rotm_strided_batched(&mut h, 2, &mut y, 0, 0, &mut z, 0, 1, &param, 0, 2),
        &["stride_x = 0"],
    );
    assert_eq!(y.to_vec().unwrap(), vec![p; 4], "y was written");
    assert_eq!(z.to_vec().unwrap(), vec![p; 4], "z was written");
    // One element apart: each entry keeps its own last x.
    ok(blas1::copy_strided_batched(
        &mut h, 2, &x, 1, 2, &mut y, 0, 1, 3,
    ));
    assert_eq!(y.to_vec().unwrap(), vec![2.0, 4.0, 6.0, p]);
    // A stride of 0 with one entry overlaps nothing.
    ok(blas1::copy_strided_batched(
        &mut h, 2, &x, -1, 0, &mut z, 0, 0, 1,
    ));
    assert_eq!(z.to_vec().unwrap(), vec![1.0, p, p, p]);
}

/// During a size query an output increment of 0 answers like any valid call: no workspace.
fn f9_zero_inc_outputs_in_a_size_query(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let x = DeviceBuffer::<f32>::placeholder(4);
    let mut y = DeviceBuffer::<f32>::placeholder(1);
    let mut z = DeviceBuffer::<f32>::placeholder(1);
    h.start_device_memory_size_query().unwrap();
    let r = blas1::axpy(&mut h, 4, 2.0f32.into(), &x, 1, &mut y, 0);
    assert_eq!(r.unwrap(), Status::SizeUnchanged);
    let r = blas1::swap(&mut h, 4, &mut y, 0, &mut z, 0);
    assert_eq!(r.unwrap(), Status::SizeUnchanged);
    assert_eq!(h.stop_device_memory_size_query().unwrap(), 0);
}

// ---- Level 2: zero increments are rejected, as reference BLAS does ------------------------

/// Every Level-2 routine, every form, with a zero increment (and n = 0, where reference BLAS
/// still reports it): InvalidValue naming the increment, reference BLAS and its INFO, with
/// every output untouched; a size query reports it too.
fn level2_zero_incs<E: El>(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let mut pool = Pool::new(31);
    let a = dev
        .upload(&(0..80).map(|_| pool.elem::<E>()).collect::<Vec<_>>())
        .unwrap();
    let x = dev
        .upload(&(0..20).map(|_| pool.elem::<E>()).collect::<Vec<_>>())
        .unwrap();
    let mut y1 = dev.upload(&[nan::<E>(); 20]).unwrap();
    let mut y2 = dev.upload(&[nan::<E>(); 20]).unwrap();
    let (al, be) = (Coef::Host(E::one()), Coef::Host(E::one()));
    let (u, nu) = (Uplo::Upper, Diag::NonUnit);
    let mut query = false;
    for n in [3usize, 0] {
        for form in FORMS {
            // (routine, label, INFO, result) for the zero on x, then on the output.
            let mut results: Vec<(&str, &str, usize, Result<Status, Error>)> = vec![];
            for (incx, incy) in [(0isize, 1isize), (1, 0)] {
                let zero = if incx == 0 { "incx" } else { "incy" };
                let (ys, ysb) = (&mut y1, &mut y2);
                let r = match form {
                    Form::Single => {
                        blas2::gemv(&mut h, Op::N, n, n, al, &a, 4, &x, incx, be, ys, incy)
                    }
                    Form::List(_) => blas2::gemv_batched(
                        &mut h,
                        Op::T,
                        n,
                        n,
                        al,
                        &[&a, &a],
                        4,
                        &[&x, &x],
                        incx,
                        be,
                        &mut [ys, ysb],
                        incy,
                    ),
                    Form::Strided(_) => blas2::gemv_strided_batched(
                        &mut h,
                        Op::C,
                        n,
                        n,
                        al,
                        &a,
                        4,
                        16,
                        &x,
                        incx,
                        0,
                        be,
                        ys,
                        incy,
                        5,
                        2,
                    ),
                };
                results.push(("gemv", zero, if incx == 0 { 8 } else { 11 }, r));
                let (ys, ysb) = (&mut y1, &mut y2);
                let r = match form {
                    Form::Single => blas2::symv(&mut h, u, n, al, &a, 4, &x, incx, be, ys, incy),
                    Form::List(_) => blas2::symv_batched(
                        &mut h,
                        Uplo::Lower,
                        n,
                        al,
                        &[&a, &a],
                        4,
                        &[&x, &x],
                        incx,
                        be,
                        &mut [ys, ysb],
                        incy,
                    ),
                    Form::Strided(_) => blas2::symv_strided_batched(
                        &mut h, u, n, al, &a, 4, 16, &x, incx, 4, be, ys, incy, 5, 2,
                    ),
                };
                results.push(("symv", zero, if incx == 0 { 7 } else { 10 }, r));
            }
            // The triangular routines update x in place: its increment is the output's.
            let (xs, xsb) = (&mut y1, &mut y2);
            let r = match form {
                Form::Single => blas2::trmv(&mut h, u, Op::N, nu, n, &a, 4, xs, 0),
                Form::List(_) => {
                    blas2::trmv_batched(&mut h, u, Op::T, nu, n, &[&a, &a], 4, &mut [xs, xsb], 0)
                }
                Form::Strided(_) => {
                    blas2::trmv_strided_batched(&mut h, u, Op::C, nu, n, &a, 4, 16, xs, 0, 5, 2)
                }
            };
            results.push(("trmv", "incx", 8, r));
            let (xs, xsb) = (&mut y1, &mut y2);
            let r = match form {
                Form::Single => blas2::tbmv(&mut h, u, Op::N, nu, n, 1, &a, 2, xs, 0),
                Form::List(_) => {
                    blas2::tbmv_batched(&mut h, u, Op::T, nu, n, 1, &[&a, &a], 2, &mut [xs, xsb], 0)
                }
                Form::Strided(_) => {
                    blas2::tbmv_strided_batched(&mut h, u, Op::C, nu, n, 1, &a, 2, 8, xs, 0, 5, 2)
                }
            };
            results.push(("tbmv", "incx", 9, r));
            let (xs, xsb) = (&mut y1, &mut y2);
            let r = match form {
                Form::Single => blas2::tpmv(&mut h, u, Op::N, nu, n, &a, xs, 0),
                Form::List(_) => {
                    blas2::tpmv_batched(&mut h, u, Op::T, nu, n, &[&a, &a], &mut [xs, xsb], 0)
                }
                Form::Strided(_) => {
                    blas2::tpmv_strided_batched(&mut h, u, Op::C, nu, n, &a, 6, xs, 0, 5, 2)
                }
            };
            results.push(("tpmv", "incx", 7, r));
            let (xs, xsb) = (&mut y1, &mut y2);
            let r = match form {
                Form::Single => blas2::trsv(&mut h, u, Op::N, nu, n, &a, 4, xs, 0),
                Form::List(_) => {
                    blas2::trsv_batched(&mut h, u, Op::T, nu, n, &[&a, &a], 4, &mut [xs, xsb], 0)
                }
                Form::Strided(_) => {
                    blas2::trsv_strided_batched(&mut h, u, Op::C, nu, n, &a, 4, 16, xs, 0, 5, 2)
                }
            };
            results.push(("trsv", "incx", 8, r));
            for (name, label, info, r) in results {
                let what = format!(
                    "{name}<{}> n={n} {form:?} {label} = 0 (query: {query})",
                    type_name::<E>()
                );
                level2_rejected(&what, r, label, info);
            }
        }
        // The second size runs inside a size query: the check comes before the query's answer.
        if !query {
            h.start_device_memory_size_query().unwrap();
            query = true;
        }
    }
    assert_eq!(h.stop_device_memory_size_query().unwrap(), 0);
    for (name, y) in [("y1", &y1), ("y2", &y2)] {
        let got = y.to_vec().unwrap();
        assert!(
            got.iter().all(|v| v.bits() == nan::<E>().bits()),
            "{name} was written: {got:?}"
        );
    }
}

fn level2_rejected(what: &str, r: Result<Status, Error>, label: &str, info: usize) {
    let e = match r {
        Err(e) => e,
        Ok(st) => panic!("{what}: accepted ({st:?}); reference BLAS rejects it"),
    };
    assert!(matches!(e, Error::InvalidValue(_)), "{what}: {e}");
    let m = e.to_string();
    for part in [
        format!("{label} = 0"),
        "reference BLAS".into(),
        format!("INFO = {info}"),
    ] {
        assert!(m.contains(&part), "{what}: {m:?} should name {part:?}");
    }
}

/// hemv (complex only) with a zero increment on x and on y.
fn hemv_zero_incs<E: El + ComplexScalar>(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let a = dev.upload(&[E::one(); 16]).unwrap();
    let x = dev.upload(&[E::one(); 4]).unwrap();
    let mut y = dev.upload(&[nan::<E>(); 4]).unwrap();
    let (al, be) = (Coef::Host(E::one()), Coef::Host(E::zero()));
    for (incx, incy, label, info) in [(0isize, 1isize, "incx", 7), (1, 0, "incy", 10)] {
        let r = blas2::hemv(
            &mut h,
            Uplo::Upper,
            4,
            al,
            &a,
            4,
            &x,
            incx,
            be,
            &mut y,
            incy,
        );
        level2_rejected(&format!("hemv<{}>", type_name::<E>()), r, label, info);
        let r = blas2::hemv_strided_batched(
            &mut h,
            Uplo::Lower,
            4,
            al,
            &a,
            4,
            0,
            &x,
            incx,
            0,
            be,
            &mut y,
            incy,
            4,
            1,
        );
        level2_rejected(
            &format!("hemv_strided_batched<{}>", type_name::<E>()),
            r,
            label,
            info,
        );
        let r = blas2::hemv_batched(
            &mut h,
            Uplo::Lower,
            4,
            al,
            &[&a],
            4,
            &[&x],
            incx,
            be,
            &mut [&mut y],
            incy,
        );
        level2_rejected(
            &format!("hemv_batched<{}>", type_name::<E>()),
            r,
            label,
            info,
        );
    }
    let got = y.to_vec().unwrap();
    assert!(
        got.iter().all(|v| v.bits() == nan::<E>().bits()),
        "y was written: {got:?}"
    );
}

fn f9_level2_zero_increments_are_invalid_as_in_reference_blas(dev: &Device) {
    level2_zero_incs::<f32>(dev);
    level2_zero_incs::<f64>(dev);
    level2_zero_incs::<Complex32>(dev);
    level2_zero_incs::<Complex64>(dev);
    hemv_zero_incs::<Complex32>(dev);
    hemv_zero_incs::<Complex64>(dev);
}

// ---- band widths k >= n ------------------------------------------------------------------------

/// Row of element (i, j) in BLAS band storage with `k` off-diagonals, if it is stored.
fn band_row(uplo: Uplo, k: usize, i: usize, j: usize) -> Option<usize> {
    match uplo {
        Uplo::Upper => (i <= j && j - i <= k).then(|| k + i - j),
        Uplo::Lower => (i >= j && i - j <= k).then(|| i - j),
    }
}

fn zero_workspace_handle(dev: &Device) -> Handle {
    Handle::with_config(
        dev,
        &HandleConfig {
            device_memory_size: Some(0),
            ..Default::default()
        },
    )
    .unwrap()
}

/// tbmv with k = n and k = n + 3 against dtbmv's result, every uplo, op and diag, lda = k + 1
/// and larger, in three forms, with the workspace algorithm and the in-place one (a handle
/// without workspace). The band's unused rows, the padding rows and a unit diagonal hold NaN:
/// reading any of them would show in the result.
fn band_wider_than_matrix<E: El>(dev: &Device, seed: u64) {
    let mut pool = Pool::new(seed);
    let mut handles = [Handle::new(dev).unwrap(), zero_workspace_handle(dev)];
    let mut t = 0usize;
    for n in [0usize, 1, 2, 5, 33] {
        for k in [n, n + 3] {
            for uplo in [Uplo::Upper, Uplo::Lower] {
                for op in [Op::N, Op::T, Op::C] {
                    for diag in [Diag::NonUnit, Diag::Unit] {
                        for (hi, form) in [
                            (0, FORMS[0]),
                            (0, FORMS[1]),
                            (0, FORMS[2]),
                            (1, Form::Single),
                            (1, Form::Strided(2)),
                        ] {
                            let lda = k + 1 + if t % 2 == 0 { 0 } else { 2 };
                            let incx: isize = if t % 3 == 2 { -2 } else { 1 };
                            tbmv_case::<E>(
                                dev,
                                &mut handles[hi],
                                (n, k, lda, incx),
                                (uplo, op, diag),
                                form,
                                &mut pool,
                            );
                            t += 1;
                        }
                    }
                }
            }
        }
    }
}

fn tbmv_case<E: El>(
    dev: &Device,
    h: &mut Handle,
    (n, k, lda, incx): (usize, usize, usize, isize),
    (uplo, op, diag): (Uplo, Op, Diag),
    form: Form,
    pool: &mut Pool,
) {
    let a_span = if n == 0 { 0 } else { (n - 1) * lda + k + 1 };
    let unit = diag == Diag::Unit;
    let a = Opnd::<E>::new(dev, form, a_span, |_, p| {
        let (j, row) = (p / lda, p % lda);
        // The element in this row of column j, if the band stores one of the matrix.
        let i = match uplo {
            Uplo::Upper => (j + row).checked_sub(k)?,
            Uplo::Lower => j + row,
        };
        let stored = i < n && band_row(uplo, k, i, j) == Some(row);
        (stored && !(unit && i == j)).then(|| pool.elem())
    });
    let mut x = Opnd::<E>::vector(dev, form, n, incx, pool);
    let (sa, sx) = (a.stride, x.stride);
    let what = || {
        format!(
            "tbmv<{}> {uplo:?} {op:?} {diag:?} n={n} k={k} lda={lda} incx={incx} {form:?}",
            type_name::<E>()
        )
    };
    let r = match form {
        Form::Single => blas2::tbmv(h, uplo, op, diag, n, k, a.one(), lda, &mut x.bufs[0], incx),
        Form::List(_) => {
            blas2::tbmv_batched(h, uplo, op, diag, n, k, &a.refs(), lda, &mut x.muts(), incx)
        }
        Form::Strided(b) => blas2::tbmv_strided_batched(
            h,
            uplo,
            op,
            diag,
            n,
            k,
            a.one(),
            lda,
            sa,
            &mut x.bufs[0],
            incx,
            sx,
            b,
        ),
    };
    match r {
        Ok(Status::Success | Status::PerfDegraded) => {}
        other => panic!("{}: {other:?}", what()),
    }
    let mut want = x.unchanged();
    for e in 0..form.count() {
        // A(i, j) in f64 (zero outside the band, one on a unit diagonal).
        let elem = |i: usize, j: usize| -> C {
            if unit && i == j {
                return (1.0, 0.0);
            }
            match band_row(uplo, k, i, j) {
                Some(row) => a.val(e, row + j * lda).get(),
                None => (0.0, 0.0),
            }
        };
        let xv: Vec<C> = (0..n).map(|i| x.val(e, at(n, incx, i)).get()).collect();
        for i in 0..n {
            let (mut s, mut sc) = ((0.0, 0.0), 0.0);
            for j in 0..n {
                let aij = match op {
                    Op::N => elem(i, j),
                    Op::T => elem(j, i),
                    Op::C => conj(elem(j, i)),
                };
                s = cadd(s, cmul(aij, xv[j]));
                sc += mag(aij) * mag(xv[j]);
            }
            let tol = K * (n + 1) as f64 * E::U * sc;
            x.set(&mut want, e, at(n, incx, i), Want::Near(s, tol));
        }
    }
    x.check(&|| what(), &want);
    a.untouched(&format!("{} A", what()));
}

fn f9_tbmv_band_wider_than_matrix_every_uplo_op_diag(dev: &Device) {
    band_wider_than_matrix::<f32>(dev, 41);
    band_wider_than_matrix::<f64>(dev, 42);
    band_wider_than_matrix::<Complex32>(dev, 43);
    band_wider_than_matrix::<Complex64>(dev, 44);
}

/// dtbmv('U', 'N', 'N', 1, 1, A, 3, x, 1) from the issue: A(2, 1) is the diagonal.
fn f9_tbmv_issue_example_n1_k1_lda3(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let a = dev.upload(&[f64::NAN, 3.0, f64::NAN]).unwrap();
    let mut x = dev.upload(&[2.0f64]).unwrap();
    ok(blas2::tbmv(
        &mut h,
        Uplo::Upper,
        Op::N,
        Diag::NonUnit,
        1,
        1,
        &a,
        3,
        &mut x,
        1,
    ));
    assert_eq!(x.to_vec().unwrap(), vec![6.0]);
    let a = dev.upload(&[3.0f64, f64::NAN, f64::NAN]).unwrap();
    ok(blas2::tbmv(
        &mut h,
        Uplo::Lower,
        Op::T,
        Diag::NonUnit,
        1,
        2,
        &a,
        3,
        &mut x,
        1,
    ));
    assert_eq!(x.to_vec().unwrap(), vec![18.0]);
}

/// A size query of tbmv with k >= n answers the same need as `workspace_bytes` (which has no
/// k: the plan does not depend on the band width) and runs nothing.
fn f9_tbmv_band_wider_than_matrix_in_a_size_query(dev: &Device) {
    for (n, k, batch) in [
        (0usize, 3usize, 1usize),
        (1, 1, 1),
        (33, 36, 4),
        (300, 1000, 2),
    ] {
        for op in [Op::N, Op::T] {
            let mut h = Handle::new(dev).unwrap();
            let lda = k + 1;
            let a = DeviceBuffer::<Complex64>::placeholder(batch * n.max(1) * lda);
            let mut x = DeviceBuffer::<Complex64>::placeholder(batch * n.max(1));
            h.start_device_memory_size_query().unwrap();
            let st = blas2::tbmv_strided_batched(
                &mut h,
                Uplo::Lower,
                op,
                Diag::Unit,
                n,
                k,
                &a,
                lda,
                n * lda,
                &mut x,
                1,
                n.max(1),
                batch,
            )
            .unwrap();
            let need = h.stop_device_memory_size_query().unwrap();
            let want = if n == 0 {
                0
            } else {
                blas2::workspace_bytes(dev, "tbmv", op, n, n, 16, batch, false).unwrap()
            };
            assert_eq!(need, want, "n={n} k={k} {op:?} batch={batch} ({st:?})");
        }
    }
}

/// Band widths whose k + 1 or span overflows are InvalidSize, never a panic (M16), in a query
/// too; a huge band on a short buffer is InvalidValue naming both lengths.
fn m16_tbmv_huge_band_width_is_an_error_never_a_panic(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let a = dev.upload(&[1.0f64; 64]).unwrap();
    let mut x = dev.upload(&[2.0f64; 4]).unwrap();
    let (u, l, nu) = (Uplo::Upper, Uplo::Lower, Diag::NonUnit);
    for query in [false, true] {
        if query {
            h.start_device_memory_size_query().unwrap();
        }
        let e = blas2::tbmv(
            &mut h,
            u,
            Op::N,
            nu,
            1,
            usize::MAX,
            &a,
            usize::MAX,
            &mut x,
            1,
        )
        .unwrap_err();
        assert!(
            matches!(e, Error::InvalidSize(_))
                && e.to_string().contains("k = 18446744073709551615"),
            "{e}"
        );
        let e = blas2::tbmv(
            &mut h,
            l,
            Op::T,
            nu,
            2,
            usize::MAX - 1,
            &a,
            usize::MAX,
            &mut x,
            1,
        )
        .unwrap_err();
        assert!(matches!(e, Error::InvalidSize(_)), "{e}");
        let e = blas2::tbmv_strided_batched(
            &mut h,
            l,
            Op::C,
            nu,
            0,
            usize::MAX,
            &a,
            usize::MAX,
            0,
            &mut x,
            1,
            1,
            2,
        )
        .unwrap_err();
        assert!(matches!(e, Error::InvalidSize(_)), "{e}");
    }
    assert_eq!(h.stop_device_memory_size_query().unwrap(), 0);
    let k = 1usize << 40;
    let e = blas2::tbmv(&mut h, u, Op::N, nu, 1, k, &a, k + 1, &mut x, 1).unwrap_err();
    assert!(matches!(e, Error::InvalidValue(_)), "{e}");
    assert!(e.to_string().contains("has 64 elements"), "{e}");
    assert_eq!(x.to_vec().unwrap(), vec![2.0; 4], "x was written");
}

crate::on_both_backends!(
    f9_copy_zero_incy_keeps_last,
    f9_axpy_zero_incy_accumulates_in_order,
    f9_swap_zero_increments_chain_the_swaps,
    f9_rot_zero_increments_run_the_recurrence,
    f9_rotm_zero_increments_every_flag,
    f9_zero_increments_small_cases_by_hand,
    f3_scal_zero_incx_is_a_quick_return,
    f9_zero_inc_outputs_of_different_entries_never_overlap,
    f9_zero_inc_outputs_in_a_size_query,
    f9_level2_zero_increments_are_invalid_as_in_reference_blas,
    f9_tbmv_band_wider_than_matrix_every_uplo_op_diag,
    f9_tbmv_issue_example_n1_k1_lda3,
    f9_tbmv_band_wider_than_matrix_in_a_size_query,
    m16_tbmv_huge_band_width_is_an_error_never_a_panic,
);
