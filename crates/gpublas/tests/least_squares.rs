#![allow(
    clippy::too_many_arguments,
    clippy::type_complexity,
    clippy::needless_range_loop
)]
//! The LQ and least-squares routines (`gelqf`, `ormlq`/`unmlq`, `gels`, each single, `_batched`
//! and `_strided_batched`) against independent f64 references written here (LAPACK's `larfg`
//! and `gelq2` in plain loops, least-squares and least-norm solutions through f64 Cholesky
//! solves of the Gram matrices), on both backends (SPEC F1–F3, F7–F10, M6, M8, M9).
//!
//! Checks, with `ε` the element type's machine epsilon, `|re| + |im|` as the magnitude of a
//! complex value and `d = max(m, n)`:
//! - gelqf: with `Q_k` the first `k = min(m, n)` rows of `Q = H_{k−1}ᴴ … H_0ᴴ` formed in f64
//!   from the returned rows and scalars (`H_i = I − tau_i v_i v_iᴴ`, `conj(v_i)` stored right
//!   of the diagonal), `‖A − L Q_k‖₁ / (d ‖A‖₁ ε) < 30` and `‖I − Q_k Q_kᴴ‖₁ / (n ε) < 30`;
//!   `L`'s diagonal real (imaginary parts exactly 0); every `tau` exactly 0 or in LAPACK's
//!   range (`1 ≤ Re tau ≤ 2`, `|tau − 1| ≤ 1`); where the reference takes LAPACK's `tau = 0`
//!   branch (a zero row, lower-triangular input, a real matrix's last column) `tau` exactly 0
//!   and the row right of the diagonal exactly zero; on well-conditioned inputs `L`, `tau` and
//!   the vectors equal the reference's within `30 d ε` relative to the rows' norms.
//! - ormlq: `‖C_out − op(Q_ref) C‖₁ / (d ‖C‖₁ ε) < 30` (or `C op(Q_ref)`), `Q_ref` of order
//!   `m` (Left) or `n` (Right) formed explicitly in f64 from the reference `gelq2`'s reflectors
//!   rounded to the type, which are what the call reads.
//! - gels (`op(A)` of `p × q`, `B`'s first `p` rows the right-hand sides, `X` its first `q`):
//!   least squares (`p ≥ q`): `‖op(A)ᴴ (b − op(A) x)‖₁ / (d ‖A‖ (‖b‖₁ + ‖A‖ ‖x‖₁) ε) < 30`
//!   for every column, the rows `q..p` of `B` holding the residual's norm (LAPACK's
//!   documented output); least norm (`p < q`): `‖op(A) x − b‖₁ / (d (‖A‖ ‖x‖₁ + ‖b‖₁) ε) <
//!   30`; on well-conditioned `A` also `x` in the row space of `op(A)` (`‖x − P x‖₁ /
//!   (d ‖x‖₁ ε) < 30`) and `x` against the f64 reference solution; `A`'s output the QR or LQ
//!   factorization (a real diagonal; on well-conditioned input the reference's triangle); with
//!   an exactly zero column (`m ≥ n`) or row (`m < n`) `j`, `info = j + 1` and no error.
//!
//! Operands are placed in batch layouts (single, lists, strided batches with gaps between the
//! entries) at leading dimensions above the least. Everything a call may neither read nor write
//! holds a NaN with a payload naming its place (padding rows, gaps between strided entries, one
//! element past each buffer, `tau`'s slots between entries and past the end) and is compared
//! bit for bit afterwards; ormlq's diagonal and the part of the vectors' rows left of it hold a
//! finite value far from any right one, and in a test of their own the NaN; what
//! a call writes before reading it (gelqf's `tau`, gels's rows of `B` past the right-hand
//! sides) holds a NaN too; a NaN reaching a result fails its check and is reported with its
//! place.

mod common;

use common::complex::*;
use common::elem::*;
use common::forms::*;
use common::{fixed_handle, handle, user_owned_handle};
use gpublas::solver;
use gpublas::{
    Complex32, Complex64, Device, DeviceBuffer, Error, Handle, Op, Scalar, Side, Status,
};

#[path = "least_squares/dense.rs"]
mod dense;
use dense::*;
#[path = "least_squares/poison.rs"]
mod poison;
use poison::*;
#[path = "least_squares/harness.rs"]
mod harness;
use harness::*;

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

/// `T` for real types, `C` for complex ones (where `T` is an error).
fn op_t<E: El>() -> Op {
    if E::CPLX {
        Op::C
    } else {
        Op::T
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

/// The layout of case `t` (one or two entries when the matrix is large).
fn form_at(t: usize, m: usize, n: usize) -> Form {
    if m.max(n) > 129 || m * n > 9000 {
        BIG_FORMS[t % BIG_FORMS.len()]
    } else {
        FORMS[t % FORMS.len()]
    }
}

// ---- LQ cases ----------------------------------------------------------------------------

/// Which routine.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Rt {
    Gelqf,
    Ormlq(Side, Op),
}

/// One gelqf or ormlq call's shape and layout.
#[derive(Clone, Copy, Debug)]
struct LCase {
    rt: Rt,
    m: usize,
    n: usize,
    /// Reflectors (`ormlq`); `min(m, n)` for `gelqf`.
    k: usize,
    lda: usize,
    /// `ormlq`'s `C`.
    ldc: usize,
    form: Form,
    /// Elements between strided entries.
    gap: usize,
    /// `tau` slots between entries beyond `k`.
    tgap: usize,
}

impl LCase {
    fn new(rt: Rt, m: usize, n: usize, k: usize) -> LCase {
        let k = if rt == Rt::Gelqf { m.min(n) } else { k };
        let mut c = LCase {
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
        c.lda = c.a_shape().0.max(1);
        c
    }

    /// Padding, layout and gaps in rotation with the case counter `t`.
    fn rotate(rt: Rt, m: usize, n: usize, k: usize, t: usize) -> LCase {
        let mut c = LCase::new(rt, m, n, k);
        c.form = form_at(t, m.max(c.nq()), n);
        c.lda += [1, 3, 0, 2][t % 4];
        c.ldc += [2, 0, 1][t % 3];
        c.gap = GAPS[(t / 2) % 3];
        c.tgap = [0, 1, 3][(t / 3) % 3];
        c
    }

    fn with(mut self, form: Form, ld_extra: usize) -> LCase {
        self.form = form;
        self.lda = self.a_shape().0.max(1) + ld_extra;
        self.ldc = self.m.max(1) + ld_extra;
        self
    }

    /// The order of `Q`: `n` for gelqf and ormlq from the right, `m` from the left.
    fn nq(&self) -> usize {
        match self.rt {
            Rt::Ormlq(Side::Left, _) => self.m,
            _ => self.n,
        }
    }

    /// Rows and columns of the matrix in `A`: gelqf's `m × n`, ormlq's `k × nq`.
    fn a_shape(&self) -> (usize, usize) {
        match self.rt {
            Rt::Ormlq(..) => (self.k, self.nq()),
            Rt::Gelqf => (self.m, self.n),
        }
    }

    fn stride_tau(&self) -> usize {
        self.k + self.tgap
    }
}

/// What an entry's matrix is made of (`gelqf`: the matrix factored; `ormlq`: the `k × nq`
/// matrix whose reference reflectors are used).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fill {
    /// Uniform in [-1, 1) (both parts).
    Random,
    /// Random with a diagonal of magnitude about `3 √max(m, n)` (condition number about 3),
    /// its phase within 60° of the real axis: the factorization is unique and well determined.
    WellCond,
    /// `WellCond` with row `i` exactly zero.
    ZeroRow(usize),
    /// Lower trapezoidal, a real diagonal of magnitude in [2, 3]: every `tau` is 0.
    Lower,
    /// Lower trapezoidal, the diagonal with a phase (complex types): `v = 0`, `tau ≠ 0`.
    LowerPhase,
    Identity,
    Zero,
}

impl Fill {
    /// Whether the reference's `L`, `tau` and vectors are the only right answer.
    fn unique(self) -> bool {
        self != Fill::Random
    }
}

/// The matrix of `fill`, rounded to the type.
fn gen_fill<E: El>(m: usize, n: usize, fill: Fill, r: &mut Gen) -> Dense {
    let mut d = Dense::zeros(m, n);
    match fill {
        Fill::Random | Fill::WellCond | Fill::ZeroRow(_) => {
            d.v.iter_mut().for_each(|x| *x = rnd::<E>(r, 1.0));
            if fill != Fill::Random {
                let s = 3.0 * (m.max(n) as f64).sqrt();
                for j in 0..m.min(n) {
                    let grow = 1.0 + 0.25 * r.uni().abs();
                    let b = boost::<E>(r, s * grow);
                    d.set(j, j, b);
                }
            }
            if let Fill::ZeroRow(z) = fill {
                if z < m {
                    for j in 0..n {
                        d.set(z, j, ZERO);
                    }
                }
            }
        }
        Fill::Lower | Fill::LowerPhase => {
            for i in 0..m {
                for j in 0..n.min(i) {
                    d.set(i, j, rnd::<E>(r, 1.0));
                }
                if i < n {
                    let mag = 2.0 + r.uni().abs();
                    let x = if fill == Fill::Lower {
                        boost::<f64>(r, mag)
                    } else {
                        boost::<E>(r, mag)
                    };
                    d.set(i, i, round_to::<E>(x));
                }
            }
        }
        Fill::Identity => d = Dense::identity(m, n),
        Fill::Zero => {}
    }
    d
}

/// A gelqf or ormlq call ready to run: its operands placed and what each entry must give.
struct LqRun<E: T> {
    c: LCase,
    /// gelqf: the matrix written; ormlq: the vectors read.
    a: Placed<E>,
    /// The scalars: one buffer, entries `stride_tau` apart.
    tau: Placed<E>,
    /// ormlq's `C`.
    cm: Option<Placed<E>>,
    /// Per entry: gelqf's matrix, ormlq's `C` before the call (f64, as uploaded).
    input: Vec<Dense>,
    /// Per entry: ormlq's `op(Q) C` or `C op(Q)`.
    want: Vec<Dense>,
    /// Per entry (gelqf): the reference factorization.
    refs: Vec<Lq>,
    fills: Vec<Fill>,
}

/// `entries` of `k` scalars `stride_tau` apart in one buffer (single: `k`), the slots between
/// them and one past the end poisoned.
fn place_tau<E: El>(dev: &Device, c: &LCase, entries: &[Vec<E>]) -> Placed<E> {
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
fn tau_of<E: El>(c: &LCase, t: &[E], e: usize) -> Vec<C> {
    let at = if c.form == Form::Single {
        0
    } else {
        e * c.stride_tau()
    };
    t[at..at + c.k].iter().map(|x| x.get()).collect()
}

/// The reference reflectors of `g` (`k × nq`) rounded to the type: (rows, scalars).
fn rounded_reflectors<E: El>(g: &Dense) -> (Dense, Vec<C>) {
    let rf = ref_gelq2(g);
    let tau = rf.tau.iter().map(|&t| round_to::<E>(t)).collect();
    (rf.f.rounded::<E>(), tau)
}

/// What ormlq's `A` holds where LAPACK's `?ormlq` never looks (the diagonal, and left of it
/// `L`): `diag` on the diagonal, `left` left of it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Unread {
    /// A finite value far from 1 (`−777.25 + 333.5i`) in both: a result that uses them as
    /// values (the diagonal as the vectors' leading 1, `L` as vector elements) is wrong.
    Finite,
    /// The `Unread` NaN on the diagonal, the finite value left of it.
    NanDiagonal,
    /// The `Unread` NaN left of the diagonal, the finite value on it.
    NanLeft,
}

/// The conjugated vectors right of the diagonal of `v` (`k × nq`) stored at `ld`: the
/// diagonal and left of it as `unread` says, the padding rows poisoned.
fn store_row_vectors<E: El>(v: &Dense, ld: usize, unread: Unread) -> Vec<E> {
    let nan = pn::<E>(Poison::Unread);
    let fin = poison::<E>();
    let (diag, left) = match unread {
        Unread::Finite => (fin, fin),
        Unread::NanDiagonal => (nan, fin),
        Unread::NanLeft => (fin, nan),
    };
    let mut st = vec![pn(Poison::Pad); span(v.r, v.c, ld)];
    for j in 0..v.c {
        for i in 0..v.r {
            st[i + j * ld] = if j == i {
                diag
            } else if j < i {
                left
            } else {
                let x = v.at(i, j);
                E::make(x.0, x.1)
            };
        }
    }
    st
}

/// Operands for `c`, entry `v` made of `fills[v % len]`; ormlq's unread parts of `A` finite.
fn prepare<E: T>(dev: &Device, r: &mut Gen, c: LCase, fills: &[Fill]) -> LqRun<E> {
    prepare_with(dev, r, c, fills, Unread::Finite)
}

/// Operands for `c`, entry `v` made of `fills[v % len]`, ormlq's unread parts of `A` holding
/// what `unread` says.
fn prepare_with<E: T>(
    dev: &Device,
    r: &mut Gen,
    c: LCase,
    fills: &[Fill],
    unread: Unread,
) -> LqRun<E> {
    let count = form_count(c.form);
    let (m, n, k) = (c.m, c.n, c.k);
    let (mut ast, mut tst, mut cst) = (vec![], vec![], vec![]);
    let (mut input, mut want, mut refs, mut fl) = (vec![], vec![], vec![], vec![]);
    for v in 0..count {
        let fill = fills[v % fills.len()];
        fl.push(fill);
        match c.rt {
            Rt::Gelqf => {
                let a = gen_fill::<E>(m, n, fill, r);
                ast.push(store::<E>(&a, c.lda));
                tst.push(vec![pn::<E>(Poison::WriteOnly); k]);
                refs.push(ref_gelq2(&a));
                input.push(a);
            }
            Rt::Ormlq(side, op) => {
                let nq = c.nq();
                let (vs, tau) = rounded_reflectors::<E>(&gen_fill::<E>(k, nq, fill, r));
                ast.push(store_row_vectors::<E>(&vs, c.lda, unread));
                tst.push(tau.iter().map(|t| E::make(t.0, t.1)).collect());
                let cm = gen_fill::<E>(m, n, Fill::Random, r);
                cst.push(store::<E>(&cm, c.ldc));
                want.push(apply_q(side, op, &form_q_lq(&vs, &tau, nq), &cm));
                input.push(cm);
            }
        }
    }
    let (ar, ac) = c.a_shape();
    let a = place(dev, c.form, span(ar, ac, c.lda), c.gap, &ast);
    let tau = place_tau(dev, &c, &tst);
    let cm = matches!(c.rt, Rt::Ormlq(..))
        .then(|| place(dev, c.form, span(m, n, c.ldc), (c.gap + 2) % 8, &cst));
    LqRun {
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
fn lq_call<E: T>(
    h: &mut Handle,
    c: &LCase,
    a: &mut Placed<E>,
    tau: &mut Placed<E>,
    cm: Option<&mut Placed<E>>,
) -> Result<Status, Error> {
    let (m, n, k, lda, st) = (c.m, c.n, c.k, c.lda, c.stride_tau());
    let sa = a.stride;
    match (c.rt, a.form) {
        (Rt::Gelqf, Form::Single) => solver::gelqf(h, m, n, a.one_mut(), lda, tau.one_mut()),
        (Rt::Gelqf, Form::List(_)) => {
            solver::gelqf_batched(h, m, n, &mut a.muts(), lda, tau.one_mut(), st)
        }
        (Rt::Gelqf, Form::Strided(count)) => {
            solver::gelqf_strided_batched(h, m, n, a.one_mut(), lda, sa, tau.one_mut(), st, count)
        }
        (Rt::Ormlq(side, op), form) => {
            let cm = cm.expect("ormlq needs C");
            let (ldc, sc) = (c.ldc, cm.stride);
            match form {
                Form::Single => solver::ormlq(
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
                // unmlq is the same function; the list form goes through its name.
                Form::List(_) => solver::unmlq_batched(
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
                Form::Strided(count) => solver::ormlq_strided_batched(
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

impl<E: T> Job for LqRun<E> {
    fn call(&mut self, h: &mut Handle) -> Result<Status, Error> {
        lq_call(h, &self.c, &mut self.a, &mut self.tau, self.cm.as_mut())
    }

    fn call_placeholders(&self, h: &mut Handle) -> Result<Status, Error> {
        let mut a = self.a.placeholders();
        let mut tau = self.tau.placeholders();
        let mut cm = self.cm.as_ref().map(|p| p.placeholders());
        lq_call(h, &self.c, &mut a, &mut tau, cm.as_mut())
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
            Rt::Gelqf => self.check_gelqf(what),
            Rt::Ormlq(..) => self.check_ormlq(what),
        }
    }
}

impl<E: T> LqRun<E> {
    /// gelqf's `tau`: only the `k` slots of each entry changed.
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

    fn check_gelqf(&self, what: &str) {
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
                let at = first_nonfinite(entry_span(&self.a, &after, v, m, n, c.lda), c.lda)
                    .map(|s| format!("A {s}"))
                    .unwrap_or_else(|| {
                        let p = tau.iter().position(|&t| !finite(t)).unwrap();
                        let t = if c.form == Form::Single {
                            0
                        } else {
                            v * c.stride_tau()
                        };
                        format!("tau[{p}] is {}", nan_place(tau_after[t + p]))
                    });
                panic!("{w}: {at}");
            }
            for i in 0..k {
                let d = f.at(i, i);
                assert!(d.1 == 0.0, "{w}: L({i}, {i}) = {d:?}, want a real diagonal");
                assert!(
                    tau_in_range(tau[i], E::EPS),
                    "{w}: tau[{i}] = {:?} is neither 0 nor in [1, 2] within 1 of 1",
                    tau[i]
                );
            }
            let rf = &self.refs[v];
            if let Some(s) = zero_branch_mismatch(&f, &tau, rf) {
                panic!("{w}: {s}");
            }
            let (res, orth) = lq_residuals(&self.input[v], &f, &tau, E::EPS);
            assert!(
                res < RESID_MAX,
                "{w}: ‖A − L Q‖ ratio {res:.3e} ≥ {RESID_MAX}"
            );
            assert!(
                orth < RESID_MAX,
                "{w}: ‖I − Q Qᴴ‖ ratio {orth:.3e} ≥ {RESID_MAX}"
            );
            if self.fills[v].unique() {
                if let Some(s) = uniqueness_mismatch(&self.input[v], &f, Some(&tau), rf, E::EPS) {
                    panic!("{w}: not LAPACK's factorization: {s}");
                }
            }
        }
    }

    fn check_ormlq(&self, what: &str) {
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
                let s = first_nonfinite(entry_span(cm, &after, v, m, n, c.ldc), c.ldc);
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

// ---- gels cases --------------------------------------------------------------------------

/// One gels call's shape and layout.
#[derive(Clone, Copy, Debug)]
struct GCase {
    trans: Op,
    m: usize,
    n: usize,
    nrhs: usize,
    lda: usize,
    ldb: usize,
    form: Form,
    /// Elements between strided entries.
    gap: usize,
    /// Where `info` goes.
    loc: Loc,
}

impl GCase {
    fn new(trans: Op, m: usize, n: usize, nrhs: usize) -> GCase {
        GCase {
            trans,
            m,
            n,
            nrhs,
            lda: m.max(1),
            ldb: m.max(n).max(1),
            form: Form::Single,
            gap: 0,
            loc: Loc::Host,
        }
    }

    /// Padding, layout, gaps and the routing of `info` in rotation with the case counter `t`.
    fn rotate(trans: Op, m: usize, n: usize, nrhs: usize, t: usize) -> GCase {
        let mut c = GCase::new(trans, m, n, nrhs);
        c.form = form_at(t, m, n);
        c.lda += [2, 0, 1, 3][t % 4];
        c.ldb += [1, 3, 0][t % 3];
        c.gap = GAPS[(t / 2) % 3];
        c.loc = if (t / 3) % 2 == 0 {
            Loc::Host
        } else {
            Loc::Device
        };
        c
    }

    fn with(mut self, form: Form, ld_extra: usize, loc: Loc) -> GCase {
        self.form = form;
        self.lda = self.m.max(1) + ld_extra;
        self.ldb = self.m.max(self.n).max(1) + ld_extra;
        self.loc = loc;
        self
    }

    /// Rows of the right-hand sides: `p`, the rows of `op(A)`.
    fn rows_in(&self) -> usize {
        if self.trans == Op::N {
            self.m
        } else {
            self.n
        }
    }

    fn b_rows(&self) -> usize {
        self.m.max(self.n)
    }
}

/// What a gels entry's `A` is made of.
#[derive(Clone, Copy, Debug, PartialEq)]
enum GFill {
    /// [`Fill::WellCond`]: the solution is compared with the f64 one.
    WellCond,
    /// Uniform in [-1, 1): only the backward checks (normal equations, residual).
    Random,
    /// `WellCond` with column (`m ≥ n`) or row (`m < n`) `j` exactly zero: `R(j, j)` (`L(j, j)`)
    /// is exactly zero, `info = j + 1`.
    Deficient(usize),
    /// Two exactly zero columns (rows): `info` names the first.
    Deficient2(usize, usize),
}

impl GFill {
    fn info(self) -> i32 {
        match self {
            GFill::Deficient(j) => j as i32 + 1,
            GFill::Deficient2(i, j) => i.min(j) as i32 + 1,
            _ => 0,
        }
    }
}

fn gen_gels_a<E: El>(m: usize, n: usize, fill: GFill, r: &mut Gen) -> Dense {
    let base = if fill == GFill::Random {
        Fill::Random
    } else {
        Fill::WellCond
    };
    let mut a = gen_fill::<E>(m, n, base, r);
    let zeros = match fill {
        GFill::Deficient(j) => vec![j],
        GFill::Deficient2(i, j) => vec![i, j],
        _ => vec![],
    };
    for z in zeros {
        if m >= n {
            (0..m).for_each(|i| a.set(i, z, ZERO));
        } else {
            (0..n).for_each(|j| a.set(z, j, ZERO));
        }
    }
    a
}

/// A gels call ready to run.
struct GelsRun<E: T> {
    c: GCase,
    a: Placed<E>,
    b: Placed<E>,
    info: Ints,
    /// Per entry: `A` and the right-hand sides (`rows_in × nrhs`), as uploaded.
    a_in: Vec<Dense>,
    b_in: Vec<Dense>,
    fills: Vec<GFill>,
}

/// The right-hand sides `b` stored at `ldb` as `rows × nrhs` of `B`: rows past `b`'s written
/// before they are read, the padding rows poisoned.
fn store_b<E: El>(b: &Dense, rows: usize, ldb: usize) -> Vec<E> {
    let mut st = vec![pn(Poison::Pad); span(rows, b.c, ldb)];
    for j in 0..b.c {
        for i in 0..rows {
            st[i + j * ldb] = if i < b.r {
                let x = b.at(i, j);
                E::make(x.0, x.1)
            } else {
                pn(Poison::WriteOnly)
            };
        }
    }
    st
}

fn prepare_gels<E: T>(dev: &Device, r: &mut Gen, c: GCase, fills: &[GFill]) -> GelsRun<E> {
    let count = form_count(c.form);
    let (m, n) = (c.m, c.n);
    let (mut ast, mut bst, mut a_in, mut b_in, mut fl) = (vec![], vec![], vec![], vec![], vec![]);
    for v in 0..count {
        let fill = fills[v % fills.len()];
        fl.push(fill);
        let a = gen_gels_a::<E>(m, n, fill, r);
        let b = gen_fill::<E>(c.rows_in(), c.nrhs, Fill::Random, r);
        ast.push(store::<E>(&a, c.lda));
        bst.push(store_b::<E>(&b, c.b_rows(), c.ldb));
        a_in.push(a);
        b_in.push(b);
    }
    let a = place(dev, c.form, span(m, n, c.lda), c.gap, &ast);
    let b = place(
        dev,
        c.form,
        span(c.b_rows(), c.nrhs, c.ldb),
        (c.gap + 3) % 8,
        &bst,
    );
    GelsRun {
        c,
        a,
        b,
        info: Ints::poisoned(dev, c.loc, count),
        a_in,
        b_in,
        fills: fl,
    }
}

fn gels_call<E: T>(
    h: &mut Handle,
    c: &GCase,
    a: &mut Placed<E>,
    b: &mut Placed<E>,
    info: &mut Ints,
) -> Result<Status, Error> {
    let (tr, m, n, nrhs, lda, ldb) = (c.trans, c.m, c.n, c.nrhs, c.lda, c.ldb);
    let (sa, sb) = (a.stride, b.stride);
    match c.form {
        Form::Single => solver::gels(
            h,
            tr,
            m,
            n,
            nrhs,
            a.one_mut(),
            lda,
            b.one_mut(),
            ldb,
            info.results(),
        ),
        Form::List(_) => solver::gels_batched(
            h,
            tr,
            m,
            n,
            nrhs,
            &mut a.muts(),
            lda,
            &mut b.muts(),
            ldb,
            info.results(),
        ),
        Form::Strided(count) => solver::gels_strided_batched(
            h,
            tr,
            m,
            n,
            nrhs,
            a.one_mut(),
            lda,
            sa,
            b.one_mut(),
            ldb,
            sb,
            info.results(),
            count,
        ),
    }
}

impl<E: T> Job for GelsRun<E> {
    fn call(&mut self, h: &mut Handle) -> Result<Status, Error> {
        gels_call(h, &self.c, &mut self.a, &mut self.b, &mut self.info)
    }

    fn call_placeholders(&self, h: &mut Handle) -> Result<Status, Error> {
        let mut a = self.a.placeholders();
        let mut b = self.b.placeholders();
        let mut info = self.info.placeholder();
        gels_call(h, &self.c, &mut a, &mut b, &mut info)
    }

    fn name(&self) -> String {
        let mut fills = self.fills.clone();
        fills.dedup();
        format!("{} gels {:?} {fills:?}", E::NAME, self.c)
    }

    fn reset(&mut self) {
        self.a.reset();
        self.b.reset();
        self.info.reset();
    }

    fn untouched(&self, what: &str) {
        self.a.untouched(&format!("{what} (A)"));
        self.b.untouched(&format!("{what} (B)"));
        self.info.untouched(what);
    }

    fn check(&self, what: &str) {
        let c = &self.c;
        let (m, n, k) = (c.m, c.n, c.m.min(c.n));
        let count = form_count(c.form);
        let want: Vec<i32> = self.fills.iter().map(|f| f.info()).collect();
        self.info.expect(&want, what);
        let a_after = self.a.after();
        self.a
            .only_outputs_changed(&a_after, m, n, c.lda, &|_, _| true, what);
        let b_after = self.b.after();
        let rows = c.b_rows();
        self.b
            .only_outputs_changed(&b_after, rows, c.nrhs, c.ldb, &|_, _| true, what);
        for v in 0..count {
            let fill = self.fills[v];
            let w = format!("{what}: entry {v} ({fill:?})");
            let f = entry(&self.a, &a_after, v, m, n, c.lda);
            if fill.info() != 0 {
                let j = fill.info() as usize - 1;
                assert_eq!(
                    f.at(j, j),
                    ZERO,
                    "{w}: the factor's ({j}, {j}) should be exactly zero"
                );
                continue;
            }
            if !f.all_finite() {
                let s = first_nonfinite(entry_span(&self.a, &a_after, v, m, n, c.lda), c.lda);
                panic!("{w}: A {}", s.unwrap_or_default());
            }
            for i in 0..k {
                let d = f.at(i, i);
                assert!(
                    d.1 == 0.0,
                    "{w}: the factor's ({i}, {i}) = {d:?}, want a real diagonal"
                );
            }
            let a = &self.a_in[v];
            if fill == GFill::WellCond {
                // m ≥ n: geqrf's layout is gelqf's of Aᴴ, conjugate-transposed.
                let mismatch = if m >= n {
                    let ah = a.op(Op::C);
                    uniqueness_mismatch(&ah, &f.op(Op::C), None, &ref_gelq2(&ah), E::EPS)
                } else {
                    uniqueness_mismatch(a, &f, None, &ref_gelq2(a), E::EPS)
                };
                if let Some(s) = mismatch {
                    let what = if m >= n { "QR (R = Lᴴ)" } else { "LQ" };
                    panic!("{w}: A is not LAPACK's {what} factorization: {s}");
                }
            }
            let out = entry(&self.b, &b_after, v, rows, c.nrhs, c.ldb);
            if !out.all_finite() {
                let s =
                    first_nonfinite(entry_span(&self.b, &b_after, v, rows, c.nrhs, c.ldb), c.ldb);
                panic!("{w}: B {}", s.unwrap_or_default());
            }
            let opa = if c.trans == Op::N {
                a.clone()
            } else {
                a.op(Op::C)
            };
            let g = gels_ratios(&opa, &self.b_in[v], &out, fill == GFill::WellCond, E::EPS);
            if let Some(s) = g.failure() {
                panic!("{w}: {s} ({g:?})");
            }
        }
    }
}

#[path = "least_squares/bad_arguments.rs"]
mod bad_arguments;
#[path = "least_squares/cholqr.rs"]
mod cholqr;
#[path = "least_squares/gelqf.rs"]
mod gelqf;
#[path = "least_squares/gels.rs"]
mod gels;
#[path = "least_squares/ormlq.rs"]
mod ormlq;
#[path = "least_squares/quick_returns.rs"]
mod quick_returns;
#[path = "least_squares/reference.rs"]
mod reference;
use reference::*;
#[path = "least_squares/workspaces.rs"]
mod workspaces;
