#![allow(
    clippy::too_many_arguments,
    clippy::type_complexity,
    clippy::needless_range_loop
)]
//! The Householder QR routines (`geqrf`, `orgqr`/`ungqr`, `ormqr`/`unmqr`, each single,
//! `_batched` and `_strided_batched`) against independent f64 references written here
//! (LAPACK's `larfg` and `geqr2` in plain loops), on both backends (SPEC F1–F3, F7–F10,
//! M6, M8, M9).
//!
//! Checks, with `ε` the element type's machine epsilon and `|re| + |im|` as the magnitude of a
//! complex value:
//! - geqrf: with `Q` the thin `m × k` one (`k = min(m, n)`) formed in f64 from the returned
//!   vectors and scalars, `‖A − Q R‖₁ / (max(m, n) ‖A‖₁ ε) < 30` and
//!   `‖I_k − QᴴQ‖₁ / (m ε) < 30`; `R`'s diagonal real (imaginary parts exactly 0); every `tau`
//!   exactly 0 or in LAPACK's range (`1 ≤ Re tau ≤ 2`, `|tau − 1| ≤ 1`); where the reference
//!   takes LAPACK's `tau = 0` branch (nothing below a real diagonal: zero columns, triangular
//!   input, a real square matrix's last column) `tau` exactly 0 and the column below the
//!   diagonal exactly zero; and on well-conditioned inputs (a boosted diagonal, the special
//!   matrices, tall-skinny ones) `R`, `tau` and the vectors equal the reference's within
//!   `30 max(m, n) ε` relative to the columns' norms (the factorization is unique given
//!   LAPACK's sign rule).
//! - orgqr: the vectors and scalars of the reference `geqr2` (rounded to the type) in, the
//!   first `n` columns of `Q` out: `max |Q − Q_ref| / (m ε) < 30` against `Q_ref` formed in f64
//!   from the same rounded values, and `‖I − QᴴQ‖₁ / (m ε) < 30`.
//! - ormqr: `‖C_out − op(Q_ref) C‖₁ / (max(m, n) ‖C‖₁ ε) < 30` (or `C op(Q_ref)`), `Q_ref` of
//!   order `m` (Left) or `n` (Right) formed explicitly in f64.
//!
//! Operands are placed in batch layouts (single, lists, strided batches with gaps between the
//! entries) at leading dimensions above the least. Everything a call may neither read nor write
//! holds a NaN with a payload naming its place (padding rows, gaps between strided entries, one
//! element past each buffer, `tau`'s slots between entries and past the end, the diagonal and
//! upper triangle of the vectors' columns, `orgqr`'s columns past `k`) and is compared bit for
//! bit afterwards; a NaN reaching a result fails its residual and is reported with its place.

mod common;

use common::complex::*;
use common::elem::*;
use common::forms::*;
use common::{fixed_handle, handle, user_owned_handle};
use gpublas::solver;
use gpublas::{
    Complex32, Complex64, Device, DeviceBuffer, Error, Handle, Op, Scalar, Side, Status,
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

/// Magnitude `m` with a random sign (real) or a phase within 60° of the real axis (complex), so
/// that the real part, which decides the sign of `beta`, is at least half the magnitude.
fn boost<E: El>(r: &mut Gen, m: f64) -> C {
    let s = if r.uni() < 0.0 { -1.0 } else { 1.0 };
    if E::CPLX {
        let t = r.uni() * std::f64::consts::FRAC_PI_3;
        round_to::<E>((s * m * t.cos(), m * t.sin()))
    } else {
        round_to::<E>((s * m, 0.0))
    }
}

// ---- poison ------------------------------------------------------------------------------

/// The places a call may neither read nor write, each poisoned with a NaN of its own payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Poison {
    /// Rows between `m` (or the vectors' rows) and the leading dimension.
    Pad = 1,
    /// Elements between the entries of a strided batch.
    Gap = 2,
    /// One element past the end of a matrix buffer.
    End = 3,
    /// `tau`'s slots between the entries (`stride_tau > k`).
    TauGap = 4,
    /// One element past the end of the `tau` buffer.
    TauEnd = 5,
    /// The diagonal and upper triangle of the vectors' columns (`orgqr`, `ormqr`).
    VUpper = 6,
    /// `orgqr`'s columns `k..n` (set to the identity's, never read) and the operands of quick
    /// returns.
    Unread = 7,
    /// `geqrf`'s `tau` outputs before the call (written, never read).
    TauOut = 8,
}

const POISONS: [Poison; 8] = [
    Poison::Pad,
    Poison::Gap,
    Poison::End,
    Poison::TauGap,
    Poison::TauEnd,
    Poison::VUpper,
    Poison::Unread,
    Poison::TauOut,
];

/// Bits of the f32 and f64 NaNs, the place's number in the low byte.
const NAN32: u32 = 0x7fc0_5a00;
const NAN64: u64 = 0x7ff8_5a5a_5a5a_5a00;

/// The NaN of place `p` in every part of an element.
fn pn<E: El>(p: Poison) -> E {
    let mut e = E::pnan();
    let bytes = bytemuck::bytes_of_mut(&mut e);
    let lane = if E::CPLX {
        bytes.len() / 2
    } else {
        bytes.len()
    };
    for part in bytes.chunks_mut(lane) {
        match lane {
            4 => part.copy_from_slice(&(NAN32 | p as u32).to_ne_bytes()),
            8 => part.copy_from_slice(&(NAN64 | p as u64).to_ne_bytes()),
            _ => unreachable!("{lane}-byte parts"),
        }
    }
    e
}

/// The place a NaN came from, if it carries one of the poison payloads (the host backend's
/// arithmetic keeps payloads; a GPU's gives its canonical NaN).
fn nan_place<E: El>(x: E) -> String {
    let bytes = bytemuck::bytes_of(&x);
    let lane = if E::CPLX {
        bytes.len() / 2
    } else {
        bytes.len()
    };
    for part in bytes.chunks(lane) {
        let low = match lane {
            4 => {
                let b = u32::from_ne_bytes(part.try_into().unwrap());
                (b & !0xff == NAN32).then_some(b & 0xff)
            }
            _ => {
                let b = u64::from_ne_bytes(part.try_into().unwrap());
                (b & !0xff == NAN64).then_some((b & 0xff) as u32)
            }
        };
        if let Some(p) = low.and_then(|l| POISONS.iter().find(|p| **p as u32 == l)) {
            return format!("the {p:?} poison");
        }
    }
    format!("{:?}", x.get())
}

/// The first non-finite element of `v`, with its place.
fn first_nonfinite<E: El>(v: &[E]) -> Option<String> {
    v.iter()
        .position(|x| !finite(x.get()))
        .map(|p| format!("element {p} is {}", nan_place(v[p])))
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

/// `entries` (`span` elements each) in `form`, `gap` elements holding the gap poison between
/// strided entries, one element holding the end poison past each buffer.
fn place<E: El>(
    dev: &Device,
    form: Form,
    span: usize,
    gap: usize,
    entries: &[Vec<E>],
) -> Placed<E> {
    assert_eq!(entries.len(), form_count(form));
    let stride = span + gap;
    let before: Vec<Vec<E>> = match form {
        Form::Single | Form::List(_) => entries
            .iter()
            .map(|e| {
                let mut v = e.clone();
                v.push(pn(Poison::End));
                v
            })
            .collect(),
        Form::Strided(c) => {
            let mut v = vec![pn(Poison::Gap); stride * c + 1];
            for (i, e) in entries.iter().enumerate() {
                v[i * stride..i * stride + span].copy_from_slice(e);
            }
            let last = v.len() - 1;
            v[last] = pn(Poison::End);
            vec![v]
        }
    };
    let bufs = before.iter().map(|v| dev.upload(v).unwrap()).collect();
    Placed {
        form,
        stride,
        bufs,
        before,
    }
}

/// The `rows × cols` entry `v` at `ld` of `after`, in f64.
fn entry<E: El>(
    p: &Placed<E>,
    after: &[Vec<E>],
    v: usize,
    rows: usize,
    cols: usize,
    ld: usize,
) -> Dense {
    let (bi, off) = p.loc(v);
    let mut d = Dense::zeros(rows, cols);
    for j in 0..cols {
        for i in 0..rows {
            d.set(i, j, after[bi][off + i + j * ld].get());
        }
    }
    d
}

/// `d` stored at `ld`, the padding rows poisoned.
fn store<E: El>(d: &Dense, ld: usize) -> Vec<E> {
    let mut st = vec![pn(Poison::Pad); span(d.r, d.c, ld)];
    for j in 0..d.c {
        for i in 0..d.r {
            let x = d.at(i, j);
            st[i + j * ld] = E::make(x.0, x.1);
        }
    }
    st
}

/// The vectors below the diagonal of `v`'s first `k` columns stored as a `v.r × cols` matrix
/// at `ld`: the diagonal and above poisoned (never read), columns `k..cols` poisoned as unread,
/// the padding rows poisoned.
fn store_vectors<E: El>(v: &Dense, k: usize, cols: usize, ld: usize) -> Vec<E> {
    let mut st = vec![pn(Poison::Pad); span(v.r, cols, ld)];
    for j in 0..cols {
        for i in 0..v.r {
            st[i + j * ld] = if j >= k {
                pn(Poison::Unread)
            } else if i <= j {
                pn(Poison::VUpper)
            } else {
                let x = v.at(i, j);
                E::make(x.0, x.1)
            };
        }
    }
    st
}

// ---- cases -------------------------------------------------------------------------------

/// Which routine.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Rt {
    Geqrf,
    Orgqr,
    Ormqr(Side, Op),
}

/// One call's shape and layout.
#[derive(Clone, Copy, Debug)]
struct QCase {
    rt: Rt,
    m: usize,
    n: usize,
    /// Reflectors (`orgqr`, `ormqr`); `min(m, n)` for `geqrf`.
    k: usize,
    lda: usize,
    /// `ormqr`'s `C`.
    ldc: usize,
    form: Form,
    /// Elements between strided entries.
    gap: usize,
    /// `tau` slots between entries beyond `k`.
    tgap: usize,
}

impl QCase {
    fn new(rt: Rt, m: usize, n: usize, k: usize) -> QCase {
        let k = if rt == Rt::Geqrf { m.min(n) } else { k };
        let mut c = QCase {
            rt,
            m,
            n,
            k,
            lda: 0,
            ldc: m.max(1),
            form: Form::Single,
            gap: 0,
            tgap: 0,
        };
        c.lda = c.nq().max(1);
        c
    }

    /// Padding, layout and gaps in rotation with the case counter `t`.
    fn rotate(rt: Rt, m: usize, n: usize, k: usize, t: usize) -> QCase {
        let mut c = QCase::new(rt, m, n, k);
        c.form = if m.max(n) > 129 {
            BIG_FORMS[t % BIG_FORMS.len()]
        } else {
            FORMS[t % FORMS.len()]
        };
        c.lda += [1, 3, 0, 2][t % 4];
        c.ldc += [2, 0, 1][t % 3];
        c.gap = GAPS[(t / 2) % 3];
        c.tgap = [0, 1, 3][(t / 3) % 3];
        c
    }

    fn with(mut self, form: Form, ld_extra: usize) -> QCase {
        self.form = form;
        self.lda = self.nq().max(1) + ld_extra;
        self.ldc = self.m.max(1) + ld_extra;
        self
    }

    /// The order of `Q`: `m`, or `n` for `ormqr` from the right.
    fn nq(&self) -> usize {
        match self.rt {
            Rt::Ormqr(Side::Right, _) => self.n,
            _ => self.m,
        }
    }

    /// Rows and columns of the matrix in `A`.
    fn a_shape(&self) -> (usize, usize) {
        match self.rt {
            Rt::Ormqr(..) => (self.nq(), self.k),
            _ => (self.m, self.n),
        }
    }

    fn stride_tau(&self) -> usize {
        self.k + self.tgap
    }
}

/// What an entry's matrix is made of (`geqrf`: the matrix factored; `orgqr`, `ormqr`: the
/// matrix whose reference reflectors are used).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fill {
    /// Uniform in [-1, 1) (both parts).
    Random,
    /// Random with a diagonal of magnitude about `3 √max(m, n)` (condition number about 3),
    /// its phase within 60° of the real axis: the factorization is unique and well determined.
    WellCond,
    /// `WellCond` with column `j` exactly zero.
    ZeroCol(usize),
    /// Upper trapezoidal, a real diagonal of magnitude in [2, 3]: every `tau` is 0.
    Upper,
    /// Upper trapezoidal, the diagonal with a phase (complex types): `v = 0`, `tau ≠ 0`.
    UpperPhase,
    Identity,
    Zero,
}

impl Fill {
    /// Whether the reference's `R`, `tau` and vectors are the only right answer.
    fn unique(self) -> bool {
        self != Fill::Random
    }
}

/// The matrix of `fill`, rounded to the type.
fn gen_fill<E: El>(m: usize, n: usize, fill: Fill, r: &mut Gen) -> Dense {
    let mut d = Dense::zeros(m, n);
    match fill {
        Fill::Random | Fill::WellCond | Fill::ZeroCol(_) => {
            d.v.iter_mut().for_each(|x| *x = rnd::<E>(r, 1.0));
            if fill != Fill::Random {
                let s = 3.0 * (m.max(n) as f64).sqrt();
                for j in 0..m.min(n) {
                    let grow = 1.0 + 0.25 * r.uni().abs();
                    let b = boost::<E>(r, s * grow);
                    d.set(j, j, b);
                }
            }
            if let Fill::ZeroCol(z) = fill {
                if z < n {
                    for i in 0..m {
                        d.set(i, z, ZERO);
                    }
                }
            }
        }
        Fill::Upper | Fill::UpperPhase => {
            for j in 0..n {
                for i in 0..m.min(j) {
                    d.set(i, j, rnd::<E>(r, 1.0));
                }
                if j < m {
                    let mag = 2.0 + r.uni().abs();
                    let x = if fill == Fill::Upper {
                        boost::<f64>(r, mag)
                    } else {
                        boost::<E>(r, mag)
                    };
                    d.set(j, j, round_to::<E>(x));
                }
            }
        }
        Fill::Identity => d = Dense::identity(m, n),
        Fill::Zero => {}
    }
    d
}

// ---- one call ----------------------------------------------------------------------------

/// A call ready to run: its operands placed and what each entry must give.
struct QrRun<E: T> {
    c: QCase,
    /// `geqrf`/`orgqr`: the matrix written; `ormqr`: the vectors read.
    a: Placed<E>,
    /// The scalars: one buffer, entries `stride_tau` apart.
    tau: Placed<E>,
    /// `ormqr`'s `C`.
    cm: Option<Placed<E>>,
    /// Per entry: `geqrf`'s matrix, `ormqr`'s `C` before the call (f64, as uploaded).
    input: Vec<Dense>,
    /// Per entry: `orgqr`'s `Q` (first `n` columns), `ormqr`'s `op(Q) C` or `C op(Q)`.
    want: Vec<Dense>,
    /// Per entry (`geqrf`): the reference factorization.
    refs: Vec<Geqr2>,
    fills: Vec<Fill>,
}

/// `entries` of `k` scalars `stride_tau` apart in one buffer (single: `k`), the slots between
/// them and one past the end poisoned.
fn place_tau<E: El>(dev: &Device, c: &QCase, entries: &[Vec<E>]) -> Placed<E> {
    let st = if c.form == Form::Single {
        c.k
    } else {
        c.stride_tau()
    };
    let used = match entries.len() {
        0 => 0,
        n => (n - 1) * st + c.k,
    };
    let mut v = vec![pn(Poison::TauGap); used + 1];
    for (e, t) in entries.iter().enumerate() {
        v[e * st..e * st + c.k].copy_from_slice(t);
    }
    v[used] = pn(Poison::TauEnd);
    Placed {
        form: Form::Single,
        stride: 0,
        bufs: vec![dev.upload(&v).unwrap()],
        before: vec![v],
    }
}

/// The scalars of entry `e` in the `tau` buffer `t`.
fn tau_of<E: El>(c: &QCase, t: &[E], e: usize) -> Vec<C> {
    let at = if c.form == Form::Single {
        0
    } else {
        e * c.stride_tau()
    };
    t[at..at + c.k].iter().map(|x| x.get()).collect()
}

/// The reference reflectors of `g` (`rows × k`) rounded to the type: (vectors, scalars).
fn rounded_reflectors<E: El>(g: &Dense) -> (Dense, Vec<C>) {
    let rf = ref_geqr2(g);
    let tau = rf.tau.iter().map(|&t| round_to::<E>(t)).collect();
    (rf.f.rounded::<E>(), tau)
}

/// Operands for `c`, entry `v` made of `fills[v % len]`.
fn prepare<E: T>(dev: &Device, r: &mut Gen, c: QCase, fills: &[Fill]) -> QrRun<E> {
    let count = form_count(c.form);
    let (m, n, k) = (c.m, c.n, c.k);
    let (mut ast, mut tst, mut cst) = (vec![], vec![], vec![]);
    let (mut input, mut want, mut refs, mut fl) = (vec![], vec![], vec![], vec![]);
    for v in 0..count {
        let fill = fills[v % fills.len()];
        fl.push(fill);
        match c.rt {
            Rt::Geqrf => {
                let a = gen_fill::<E>(m, n, fill, r);
                ast.push(store::<E>(&a, c.lda));
                tst.push(vec![pn::<E>(Poison::TauOut); k]);
                refs.push(ref_geqr2(&a));
                input.push(a);
            }
            Rt::Orgqr => {
                let (vs, tau) = rounded_reflectors::<E>(&gen_fill::<E>(m, k, fill, r));
                ast.push(store_vectors::<E>(&vs, k, n, c.lda));
                tst.push(tau.iter().map(|t| E::make(t.0, t.1)).collect());
                want.push(form_q(&vs, &tau, n));
            }
            Rt::Ormqr(side, op) => {
                let nq = c.nq();
                let (vs, tau) = rounded_reflectors::<E>(&gen_fill::<E>(nq, k, fill, r));
                ast.push(store_vectors::<E>(&vs, k, k, c.lda));
                tst.push(tau.iter().map(|t| E::make(t.0, t.1)).collect());
                let cm = gen_fill::<E>(m, n, Fill::Random, r);
                cst.push(store::<E>(&cm, c.ldc));
                want.push(apply_q(side, op, &form_q(&vs, &tau, nq), &cm));
                input.push(cm);
            }
        }
    }
    let (ar, ac) = c.a_shape();
    let a = place(dev, c.form, span(ar, ac, c.lda), c.gap, &ast);
    let tau = place_tau(dev, &c, &tst);
    let cm = matches!(c.rt, Rt::Ormqr(..))
        .then(|| place(dev, c.form, span(m, n, c.ldc), (c.gap + 2) % 8, &cst));
    QrRun {
        c,
        a,
        tau,
        cm,
        input,
        want,
        refs,
        fills: fl,
    }
}

/// Runs the routine of `c` on the operands in their layout.
fn qr_call<E: T>(
    h: &mut Handle,
    c: &QCase,
    a: &mut Placed<E>,
    tau: &mut Placed<E>,
    cm: Option<&mut Placed<E>>,
) -> Result<Status, Error> {
    let (m, n, k, lda, st) = (c.m, c.n, c.k, c.lda, c.stride_tau());
    let sa = a.stride;
    match (c.rt, a.form) {
        (Rt::Geqrf, Form::Single) => solver::geqrf(h, m, n, a.one_mut(), lda, tau.one_mut()),
        (Rt::Geqrf, Form::List(_)) => {
            solver::geqrf_batched(h, m, n, &mut a.muts(), lda, tau.one_mut(), st)
        }
        (Rt::Geqrf, Form::Strided(count)) => {
            solver::geqrf_strided_batched(h, m, n, a.one_mut(), lda, sa, tau.one_mut(), st, count)
        }
        (Rt::Orgqr, Form::Single) => solver::orgqr(h, m, n, k, a.one_mut(), lda, tau.one()),
        (Rt::Orgqr, Form::List(_)) => {
            solver::orgqr_batched(h, m, n, k, &mut a.muts(), lda, tau.one(), st)
        }
        (Rt::Orgqr, Form::Strided(count)) => {
            solver::orgqr_strided_batched(h, m, n, k, a.one_mut(), lda, sa, tau.one(), st, count)
        }
        (Rt::Ormqr(side, op), form) => {
            let cm = cm.expect("ormqr needs C");
            let (ldc, sc) = (c.ldc, cm.stride);
            match form {
                Form::Single => solver::ormqr(
                    h,
                    side,
                    op,
                    m,
                    n,
                    k,
                    a.one(),
                    lda,
                    tau.one(),
                    cm.one_mut(),
                    ldc,
                ),
                Form::List(_) => solver::ormqr_batched(
                    h,
                    side,
                    op,
                    m,
                    n,
                    k,
                    &a.refs(),
                    lda,
                    tau.one(),
                    st,
                    &mut cm.muts(),
                    ldc,
                ),
                Form::Strided(count) => solver::ormqr_strided_batched(
                    h,
                    side,
                    op,
                    m,
                    n,
                    k,
                    a.one(),
                    lda,
                    sa,
                    tau.one(),
                    st,
                    cm.one_mut(),
                    ldc,
                    sc,
                    count,
                ),
            }
        }
    }
}

/// A call ready to run, checked the same way by the query, workspace and batch tests.
trait Job {
    fn call(&mut self, h: &mut Handle) -> Result<Status, Error>;
    /// The same call with placeholders for every operand.
    fn call_placeholders(&self, h: &mut Handle) -> Result<Status, Error>;
    /// The answer is right and nothing else changed.
    fn check(&self, what: &str);
    /// Nothing changed.
    fn untouched(&self, what: &str);
    /// Uploads the original operands again.
    fn reset(&mut self);
    fn name(&self) -> String;
}

impl<E: T> Job for QrRun<E> {
    fn call(&mut self, h: &mut Handle) -> Result<Status, Error> {
        qr_call(h, &self.c, &mut self.a, &mut self.tau, self.cm.as_mut())
    }

    fn call_placeholders(&self, h: &mut Handle) -> Result<Status, Error> {
        let mut a = self.a.placeholders();
        let mut tau = self.tau.placeholders();
        let mut cm = self.cm.as_ref().map(|p| p.placeholders());
        qr_call(h, &self.c, &mut a, &mut tau, cm.as_mut())
    }

    fn name(&self) -> String {
        let mut fills = self.fills.clone();
        fills.dedup();
        format!("{} {:?} {fills:?}", E::NAME, self.c)
    }

    fn reset(&mut self) {
        self.a.reset();
        self.tau.reset();
        if let Some(p) = &mut self.cm {
            p.reset();
        }
    }

    fn untouched(&self, what: &str) {
        self.a.untouched(&format!("{what} (A)"));
        self.tau.untouched(&format!("{what} (tau)"));
        if let Some(p) = &self.cm {
            p.untouched(&format!("{what} (C)"));
        }
    }

    fn check(&self, what: &str) {
        match self.c.rt {
            Rt::Geqrf => self.check_geqrf(what),
            Rt::Orgqr => self.check_orgqr(what),
            Rt::Ormqr(..) => self.check_ormqr(what),
        }
    }
}

impl<E: T> QrRun<E> {
    /// `geqrf`'s `tau`: only the `k` slots of each entry changed.
    fn tau_slots_only(&self, after: &[E], what: &str) {
        let c = &self.c;
        let mut out = vec![false; after.len()];
        for e in 0..form_count(c.form) {
            let at = if c.form == Form::Single {
                0
            } else {
                e * c.stride_tau()
            };
            out[at..at + c.k].iter_mut().for_each(|o| *o = true);
        }
        let before = &self.tau.before[0];
        for p in 0..after.len() {
            assert!(
                out[p] || same(after[p], before[p]),
                "{what}: tau[{p}] is not an output but changed from {} to {:?}",
                nan_place(before[p]),
                after[p].get()
            );
        }
    }

    fn check_geqrf(&self, what: &str) {
        let c = &self.c;
        let (m, n, k) = (c.m, c.n, c.k);
        let after = self.a.after();
        self.a
            .only_outputs_changed(&after, m, n, c.lda, &|_, _| true, what);
        let tau_after = self.tau.after().remove(0);
        self.tau_slots_only(&tau_after, what);
        for v in 0..form_count(c.form) {
            let w = format!("{what}: entry {v} ({:?})", self.fills[v]);
            let f = entry(&self.a, &after, v, m, n, c.lda);
            let tau = tau_of(c, &tau_after, v);
            if !f.all_finite() || !tau.iter().all(|&t| finite(t)) {
                let (bi, off) = self.a.loc(v);
                let span = span(m, n, c.lda);
                let at = first_nonfinite(&after[bi][off..off + span])
                    .map(|s| format!("A {s}"))
                    .unwrap_or_else(|| "tau holds a non-finite value".into());
                panic!("{w}: {at}");
            }
            for j in 0..k {
                let d = f.at(j, j);
                assert!(d.1 == 0.0, "{w}: R({j}, {j}) = {d:?}, want a real diagonal");
                assert!(
                    tau_in_range(tau[j], E::EPS),
                    "{w}: tau[{j}] = {:?} is neither 0 nor in [1, 2] within 1 of 1",
                    tau[j]
                );
            }
            let rf = &self.refs[v];
            if let Some(s) = zero_branch_mismatch(&f, &tau, rf) {
                panic!("{w}: {s}");
            }
            let (res, orth) = qr_residuals(&self.input[v], &f, &tau, E::EPS);
            assert!(
                res < RESID_MAX,
                "{w}: ‖A − QR‖ ratio {res:.3e} ≥ {RESID_MAX}"
            );
            assert!(
                orth < RESID_MAX,
                "{w}: ‖I − QᴴQ‖ ratio {orth:.3e} ≥ {RESID_MAX}"
            );
            if self.fills[v].unique() {
                if let Some(s) = uniqueness_mismatch(&self.input[v], &f, &tau, rf, E::EPS) {
                    panic!("{w}: not LAPACK's factorization: {s}");
                }
            }
        }
    }

    fn check_orgqr(&self, what: &str) {
        let c = &self.c;
        let (m, n) = (c.m, c.n);
        let after = self.a.after();
        self.a
            .only_outputs_changed(&after, m, n, c.lda, &|_, _| true, what);
        self.tau.untouched(&format!("{what} (tau)"));
        for v in 0..form_count(c.form) {
            let w = format!("{what}: entry {v} ({:?})", self.fills[v]);
            let q = entry(&self.a, &after, v, m, n, c.lda);
            if !q.all_finite() {
                let (bi, off) = self.a.loc(v);
                let s = first_nonfinite(&after[bi][off..off + span(m, n, c.lda)]);
                panic!("{w}: Q {}", s.unwrap_or_default());
            }
            let d = max_diff_ratio(&q, &self.want[v], E::EPS);
            assert!(
                d < RESID_MAX,
                "{w}: max |Q − Q_ref| / (m ε) = {d:.3e} ≥ {RESID_MAX}"
            );
            let orth = orth_residual(&q, E::EPS);
            assert!(
                orth < RESID_MAX,
                "{w}: ‖I − QᴴQ‖ ratio {orth:.3e} ≥ {RESID_MAX}"
            );
        }
    }

    fn check_ormqr(&self, what: &str) {
        let c = &self.c;
        let (m, n) = (c.m, c.n);
        let cm = self.cm.as_ref().unwrap();
        let after = cm.after();
        cm.only_outputs_changed(&after, m, n, c.ldc, &|_, _| true, what);
        self.a.untouched(&format!("{what} (A)"));
        self.tau.untouched(&format!("{what} (tau)"));
        for v in 0..form_count(c.form) {
            let w = format!("{what}: entry {v} ({:?})", self.fills[v]);
            let got = entry(cm, &after, v, m, n, c.ldc);
            if !got.all_finite() {
                let (bi, off) = cm.loc(v);
                let s = first_nonfinite(&after[bi][off..off + span(m, n, c.ldc)]);
                panic!("{w}: C {}", s.unwrap_or_default());
            }
            let res = apply_residual(&got, &self.want[v], &self.input[v], E::EPS);
            assert!(
                res < RESID_MAX,
                "{w}: ‖C − op(Q) C_ref‖ ratio {res:.3e} ≥ {RESID_MAX}"
            );
        }
    }
}

// ---- running -----------------------------------------------------------------------------

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

/// Cases of the query and workspace tests: every routine, several types and layouts, about
/// 200 × 150 (`big`: one `geqrf` of 500 × 300 too).
fn jobs(dev: &Device, r: &mut Gen, big: bool) -> Vec<Box<dyn Job>> {
    use Form::{List, Single, Strided};
    let mut v: Vec<Box<dyn Job>> = vec![];
    let cs = |rt, m, n, k, form| {
        let mut c = QCase::new(rt, m, n, k).with(form, 1);
        c.gap = 2;
        c.tgap = 1;
        c
    };
    let well = &[Fill::WellCond][..];
    let rand = &[Fill::Random][..];
    if big {
        v.push(Box::new(prepare::<f64>(
            dev,
            r,
            cs(Rt::Geqrf, 500, 300, 0, Single),
            well,
        )));
    }
    v.push(Box::new(prepare::<f64>(
        dev,
        r,
        cs(Rt::Geqrf, 200, 150, 0, Single),
        rand,
    )));
    v.push(Box::new(prepare::<Complex32>(
        dev,
        r,
        cs(Rt::Geqrf, 150, 200, 0, Strided(2)),
        well,
    )));
    v.push(Box::new(prepare::<f32>(
        dev,
        r,
        cs(Rt::Geqrf, 65, 33, 0, List(3)),
        well,
    )));
    v.push(Box::new(prepare::<f64>(
        dev,
        r,
        cs(Rt::Orgqr, 200, 150, 150, Single),
        rand,
    )));
    v.push(Box::new(prepare::<Complex64>(
        dev,
        r,
        cs(Rt::Orgqr, 200, 150, 120, List(2)),
        rand,
    )));
    v.push(Box::new(prepare::<f32>(
        dev,
        r,
        cs(Rt::Orgqr, 129, 65, 65, Strided(3)),
        rand,
    )));
    v.push(Box::new(prepare::<f64>(
        dev,
        r,
        cs(Rt::Ormqr(Side::Left, Op::T), 200, 150, 150, Single),
        rand,
    )));
    v.push(Box::new(prepare::<Complex32>(
        dev,
        r,
        cs(Rt::Ormqr(Side::Right, Op::N), 150, 200, 150, Strided(2)),
        rand,
    )));
    v.push(Box::new(prepare::<Complex64>(
        dev,
        r,
        cs(Rt::Ormqr(Side::Left, Op::C), 200, 150, 100, List(2)),
        rand,
    )));
    v.push(Box::new(prepare::<f32>(
        dev,
        r,
        cs(Rt::Ormqr(Side::Right, Op::C), 33, 129, 64, List(3)),
        rand,
    )));
    v
}

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

fn is_pointer(e: &Error) -> bool {
    matches!(e, Error::InvalidPointer(_))
}

#[path = "qr/bad_arguments.rs"]
mod bad_arguments;
#[path = "qr/cholqr.rs"]
mod cholqr;
#[path = "qr/geqrf.rs"]
mod geqrf;
#[path = "qr/orgqr.rs"]
mod orgqr;
#[path = "qr/ormqr.rs"]
mod ormqr;
#[path = "qr/quick_returns.rs"]
mod quick_returns;
#[path = "qr/reference.rs"]
mod reference;
use reference::*;
#[path = "qr/workspaces.rs"]
mod workspaces;
