#![allow(
    clippy::too_many_arguments,
    clippy::type_complexity,
    clippy::needless_range_loop
)]
//! `potri` (the inverse of a Hermitian (symmetric) positive definite matrix from its Cholesky
//! factor, in place; single, `_batched` and `_strided_batched`) against independent f64
//! references written here, on both backends (SPEC F1–F3, F7–F10, M6, M8, M9).
//!
//! Checks, with `ε` the element type's machine epsilon and `|re| + |im|` as the magnitude of a
//! complex value:
//! - From an HPD matrix `A` factored by the library's own `potrf` (in the same layout), and
//!   from a factor built directly (`A = L Lᴴ` or `Uᴴ U` formed in f64 from the factor as
//!   stored): with `X` the Hermitian matrix assembled from the returned `uplo` triangle,
//!   `‖X A − I‖₁ / (‖A‖₁ ‖A⁻¹‖₁ n ε) < 30` (`A⁻¹` the f64 reference inverse); `X`'s diagonal
//!   real (imaginary parts exactly 0); `info = 0`.
//! - A factor with an exactly zero diagonal element `(j, j)` (built directly): `info = j + 1`
//!   (the first such `j`), `Success`, no error.
//!
//! Operands are placed in batch layouts (single, lists, strided batches with gaps between the
//! entries) at leading dimensions above the least. The other triangle, the padding rows, the
//! gaps between strided entries and one element past each buffer hold NaNs whose payloads name
//! their place, and are compared bit for bit after the call (after potrf too); a NaN reaching
//! the result fails its residual and is reported with its place. `info` goes to host or device
//! memory in rotation, one element past the batch's never written.

mod common;

use common::complex::*;
use common::elem::*;
use common::forms::*;
use common::{fixed_handle, handle, user_owned_handle};
use gpublas::solver;
use gpublas::{
    Complex32, Complex64, Device, DeviceBuffer, Error, Handle, Results, Scalar, Status, Uplo,
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

// ---- cases -------------------------------------------------------------------------------

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

/// One potri call's shape and layout.
#[derive(Clone, Copy, Debug)]
struct PCase {
    uplo: Uplo,
    n: usize,
    lda: usize,
    form: Form,
    gap: usize,
    loc: Loc,
}

impl PCase {
    fn new(uplo: Uplo, n: usize) -> PCase {
        PCase {
            uplo,
            n,
            lda: n.max(1),
            form: Form::Single,
            gap: 0,
            loc: Loc::Host,
        }
    }

    /// Padding, layout, gaps and the routing of `info` in rotation with the case counter `t`.
    fn rotate(uplo: Uplo, n: usize, t: usize) -> PCase {
        let mut c = PCase::new(uplo, n);
        c.form = if n > 129 {
            BIG_FORMS[t % BIG_FORMS.len()]
        } else {
            FORMS[t % FORMS.len()]
        };
        c.lda += [1, 3, 0, 2][t % 4];
        c.gap = GAPS[(t / 2) % 3];
        c.loc = if (t / 3) % 2 == 0 {
            Loc::Host
        } else {
            Loc::Device
        };
        c
    }

    fn with(mut self, form: Form, ld_extra: usize, loc: Loc) -> PCase {
        self.form = form;
        self.lda = self.n.max(1) + ld_extra;
        self.loc = loc;
        self
    }

    /// Whether `(i, j)` is in the stored triangle.
    fn stored(&self, i: usize, j: usize) -> bool {
        match self.uplo {
            Uplo::Lower => i >= j,
            Uplo::Upper => i <= j,
        }
    }
}

/// What an entry is made of.
#[derive(Clone, Copy, Debug, PartialEq)]
enum PFill {
    /// `M Mᴴ / n + I / 10` (`M` uniform in [-1, 1)): condition number about 15 to 30, factored
    /// by the library's potrf.
    Hpd,
    /// `M Mᴴ / n + I / 10⁴`: condition number about 10⁴ to 10⁵, factored by potrf.
    HpdIll,
    /// A factor built directly: a real diagonal in [1, 2], the rest of its triangle uniform in
    /// [-1, 1) / n (both parts).
    Factor,
    /// `Factor` with `(j, j)` exactly zero: `info = j + 1`.
    ZeroDiag(usize),
    /// `Factor` with two exactly zero diagonal elements: `info` names the first.
    ZeroDiag2(usize, usize),
}

impl PFill {
    fn info(self) -> i32 {
        match self {
            PFill::ZeroDiag(j) => j as i32 + 1,
            PFill::ZeroDiag2(i, j) => i.min(j) as i32 + 1,
            _ => 0,
        }
    }

    /// Factored by the library's potrf before potri.
    fn via_potrf(self) -> bool {
        matches!(self, PFill::Hpd | PFill::HpdIll)
    }
}

/// The HPD matrix of `fill` (`Hpd`, `HpdIll`), rounded to the type, Hermitian exactly (a real
/// diagonal).
fn gen_hpd<E: El>(n: usize, fill: PFill, r: &mut Gen) -> Dense {
    let mut m = Dense::zeros(n, n);
    m.v.iter_mut().for_each(|x| *x = rnd::<E>(r, 1.0));
    let mut a = mul(&m, &m.op(gpublas::Op::C));
    let shift = if fill == PFill::HpdIll { 1e-4 } else { 0.1 };
    for j in 0..n {
        for i in 0..n {
            let x = a.at(i, j);
            let x = (x.0 / n as f64, x.1 / n as f64);
            a.set(i, j, x);
        }
        let d = a.at(j, j);
        a.set(j, j, (d.0 + shift, 0.0));
    }
    // Rounded, then made exactly Hermitian from the lower triangle.
    let a = a.rounded::<E>();
    let mut h = a.clone();
    for j in 0..n {
        for i in 0..j {
            h.set(i, j, conj(a.at(j, i)));
        }
    }
    h
}

/// The lower-triangular factor of `fill` (`Factor`, `ZeroDiag`), rounded to the type.
fn gen_factor<E: El>(n: usize, fill: PFill, r: &mut Gen) -> Dense {
    let mut l = Dense::zeros(n, n);
    for j in 0..n {
        l.set(j, j, round_to::<E>((1.5 + 0.5 * r.uni(), 0.0)));
        for i in j + 1..n {
            l.set(i, j, rnd::<E>(r, 1.0 / n as f64));
        }
    }
    let zeros = match fill {
        PFill::ZeroDiag(j) => vec![j],
        PFill::ZeroDiag2(i, j) => vec![i, j],
        _ => vec![],
    };
    for z in zeros {
        l.set(z, z, ZERO);
    }
    l
}

/// `d`'s `uplo` triangle stored at `ld`: the other triangle holding the `Unread` NaN, the
/// padding rows the `Pad` NaN.
fn store_triangle<E: El>(d: &Dense, c: &PCase) -> Vec<E> {
    let n = d.r;
    let mut st = vec![pn(Poison::Pad); span(n, n, c.lda)];
    for j in 0..n {
        for i in 0..n {
            st[i + j * c.lda] = if c.stored(i, j) {
                let x = d.at(i, j);
                E::make(x.0, x.1)
            } else {
                pn(Poison::Unread)
            };
        }
    }
    st
}

/// The Hermitian matrix whose `uplo` triangle `t` holds.
fn hermitian(t: &Dense, uplo: Uplo) -> Dense {
    let n = t.r;
    let mut h = Dense::zeros(n, n);
    for j in 0..n {
        for i in 0..n {
            let lower_half = i >= j;
            let x = if (uplo == Uplo::Lower) == lower_half || i == j {
                t.at(i, j)
            } else {
                conj(t.at(j, i))
            };
            h.set(i, j, x);
        }
    }
    h
}

/// `‖X A − I‖₁ / (‖A‖₁ ‖A⁻¹‖₁ n ε)`; infinite if `x` holds a non-finite value.
fn inverse_residual(x: &Dense, a: &Dense, inv_norm: f64, eps: f64) -> f64 {
    if !x.all_finite() {
        return f64::INFINITY;
    }
    let d = mul(x, a).minus(&Dense::identity(a.r, a.r));
    ratio(d.norm1(), a.norm1() * inv_norm * a.r.max(1) as f64 * eps)
}

/// A potri call ready to run: its operands placed (factored already) and what each entry
/// must give.
struct PotriRun<E: T> {
    c: PCase,
    /// The factors potri reads; `before` is what potrf left (or the factor as built).
    a: Placed<E>,
    info: Ints,
    /// Per entry: the matrix whose inverse is wanted (f64), and the 1-norm of its inverse.
    mats: Vec<Dense>,
    inv_norms: Vec<f64>,
    fills: Vec<PFill>,
}

/// Operands for `c`, entry `v` made of `fills[v % len]`: HPD entries factored by the
/// library's potrf in the same layout (checked: `info = 0`, only the `uplo` triangle written),
/// factors built directly stored as they are.
fn prepare<E: T>(dev: &Device, r: &mut Gen, c: PCase, fills: &[PFill]) -> PotriRun<E> {
    let count = form_count(c.form);
    let n = c.n;
    let (mut st, mut mats, mut inv_norms, mut fl) = (vec![], vec![], vec![], vec![]);
    for v in 0..count {
        let fill = fills[v % fills.len()];
        fl.push(fill);
        let (stored, mat) = if fill.via_potrf() {
            let a = gen_hpd::<E>(n, fill, r);
            (a.clone(), a)
        } else {
            let l = gen_factor::<E>(n, fill, r);
            let a = mul(&l, &l.op(gpublas::Op::C));
            let s = if c.uplo == Uplo::Lower {
                l
            } else {
                l.op(gpublas::Op::C)
            };
            (s, a)
        };
        st.push(store_triangle::<E>(&stored, &c));
        let inv_norm = if fill.info() == 0 && n > 0 {
            chol_solve(&mat, &Dense::identity(n, n)).norm1()
        } else {
            0.0
        };
        mats.push(mat);
        inv_norms.push(inv_norm);
    }
    let mut a = place(dev, c.form, span(n, n, c.lda), c.gap, &st);
    if fl.iter().any(|f| f.via_potrf()) {
        let what = format!("{} potrf before potri {c:?}", E::NAME);
        let mut h = handle(dev);
        let mut info = vec![INFO_POISON; count];
        let res = Results::Host(&mut info);
        let sa = a.stride;
        let done = match c.form {
            Form::Single => solver::potrf(&mut h, c.uplo, n, a.one_mut(), c.lda, res),
            Form::List(_) => solver::potrf_batched(&mut h, c.uplo, n, &mut a.muts(), c.lda, res),
            Form::Strided(k) => {
                solver::potrf_strided_batched(&mut h, c.uplo, n, a.one_mut(), c.lda, sa, res, k)
            }
        };
        assert_eq!(
            done.unwrap_or_else(|e| panic!("{what}: {e}")),
            Status::Success
        );
        // Entries built as factors went through potrf too (a factor of a factor): replace
        // them with what they were.
        let after = a.after();
        a.only_outputs_changed(&after, n, n, c.lda, &|i, j| c.stored(i, j), &what);
        let mut after = after;
        for v in 0..count {
            let (bi, off) = a.loc(v);
            if !fl[v].via_potrf() {
                let s = span(n, n, c.lda);
                after[bi][off..off + s].copy_from_slice(&st[v]);
            } else {
                assert_eq!(info[v], 0, "{what}: entry {v} ({:?})", fl[v]);
            }
        }
        for (b, v) in a.bufs.iter_mut().zip(&after) {
            b.copy_from_host(v).unwrap();
        }
        a.before = after;
    }
    PotriRun {
        c,
        a,
        info: Ints::poisoned(dev, c.loc, count),
        mats,
        inv_norms,
        fills: fl,
    }
}

fn potri_call<E: T>(
    h: &mut Handle,
    c: &PCase,
    a: &mut Placed<E>,
    info: &mut Ints,
) -> Result<Status, Error> {
    let sa = a.stride;
    match c.form {
        Form::Single => solver::potri(h, c.uplo, c.n, a.one_mut(), c.lda, info.results()),
        Form::List(_) => {
            solver::potri_batched(h, c.uplo, c.n, &mut a.muts(), c.lda, info.results())
        }
        Form::Strided(count) => solver::potri_strided_batched(
            h,
            c.uplo,
            c.n,
            a.one_mut(),
            c.lda,
            sa,
            info.results(),
            count,
        ),
    }
}

impl<E: T> Job for PotriRun<E> {
    fn call(&mut self, h: &mut Handle) -> Result<Status, Error> {
        potri_call(h, &self.c, &mut self.a, &mut self.info)
    }

    fn call_placeholders(&self, h: &mut Handle) -> Result<Status, Error> {
        let mut a = self.a.placeholders();
        let mut info = self.info.placeholder();
        potri_call(h, &self.c, &mut a, &mut info)
    }

    fn name(&self) -> String {
        let mut fills = self.fills.clone();
        fills.dedup();
        format!("{} potri {:?} {fills:?}", E::NAME, self.c)
    }

    fn reset(&mut self) {
        self.a.reset();
        self.info.reset();
    }

    fn untouched(&self, what: &str) {
        self.a.untouched(&format!("{what} (A)"));
        self.info.untouched(what);
    }

    fn check(&self, what: &str) {
        let c = &self.c;
        let n = c.n;
        let want: Vec<i32> = self.fills.iter().map(|f| f.info()).collect();
        self.info.expect(&want, what);
        let after = self.a.after();
        self.a
            .only_outputs_changed(&after, n, n, c.lda, &|i, j| c.stored(i, j), what);
        for v in 0..form_count(c.form) {
            let fill = self.fills[v];
            if fill.info() != 0 {
                continue;
            }
            let w = format!("{what}: entry {v} ({fill:?})");
            let t = entry(&self.a, &after, v, n, n, c.lda);
            let x = hermitian(&t, c.uplo);
            if !x.all_finite() {
                let s = first_nonfinite(entry_span(&self.a, &after, v, n, n, c.lda), c.lda);
                panic!("{w}: the inverse's {}", s.unwrap_or_default());
            }
            for j in 0..n {
                let d = t.at(j, j);
                assert!(
                    d.1 == 0.0,
                    "{w}: inv(A)({j}, {j}) = {d:?}, want a real diagonal"
                );
            }
            let res = inverse_residual(&x, &self.mats[v], self.inv_norms[v], E::EPS);
            assert!(
                res < RESID_MAX,
                "{w}: ‖inv(A) A − I‖ / (‖A‖ ‖inv(A)‖ n ε) = {res:.3e} ≥ {RESID_MAX}"
            );
        }
    }
}

// ---- the suites --------------------------------------------------------------------------

/// Orders where blocking changes (leaves of 32, recursion levels).
const ORDERS: &[usize] = &[1, 2, 3, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200];

/// The subset the single-precision types run.
const ORDERS_SUB: &[usize] = &[1, 2, 3, 31, 32, 33, 64, 65];

fn potri_suite<E: T>(dev: &Device, seed: u64, orders: &[usize]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = seed as usize;
    let mut cases = vec![];
    for &n in orders {
        for uplo in [Uplo::Lower, Uplo::Upper] {
            t += 1;
            let fills = match t % 4 {
                0 => vec![PFill::HpdIll, PFill::Hpd],
                2 => vec![PFill::Factor, PFill::Hpd],
                _ => vec![PFill::Hpd],
            };
            cases.push((PCase::rotate(uplo, n, t), fills));
        }
    }
    each(cases, |(c, fills)| {
        let mut p = prepare::<E>(dev, &mut r, c, &fills);
        run_checked(&mut h, &mut p);
    });
}

fn f1_f10_potri_sizes_forms_f64(dev: &Device) {
    potri_suite::<f64>(dev, 2001, ORDERS);
    // The inversion's levels (leaves of 128): three nodes of 256 as one set of steps.
    potri_suite::<f64>(dev, 2005, &[1000])
}
fn f1_f10_potri_sizes_forms_f32(dev: &Device) {
    potri_suite::<f32>(dev, 2002, ORDERS_SUB)
}
fn f1_f10_potri_sizes_forms_c32(dev: &Device) {
    potri_suite::<Complex32>(dev, 2003, ORDERS_SUB)
}
fn f1_f10_potri_sizes_forms_c64(dev: &Device) {
    // (520: leaves of 64, two nodes of 128 on the second level as one set of steps)
    potri_suite::<Complex64>(dev, 2004, &[1, 2, 31, 32, 33, 64, 65, 128, 129, 200, 520])
}

/// A factor with an exactly zero diagonal element `(j, j)` (first, around the leaves of 32,
/// last; two of them): `info = j + 1` (the first), `Success`, only the `uplo` triangle
/// written; regular entries beside it in the same batch inverted as usual.
fn info_cases<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = seed as usize;
    let mut cases = vec![];
    for n in [1, 5, 40, 70] {
        for uplo in [Uplo::Lower, Uplo::Upper] {
            let mut js = vec![0, 31, 32, 33, n - 1];
            js.retain(|&j| j < n);
            js.dedup();
            for j in js {
                t += 1;
                cases.push((
                    PCase::rotate(uplo, n, t),
                    vec![PFill::ZeroDiag(j), PFill::Hpd, PFill::Factor],
                ));
            }
            if n > 2 {
                t += 1;
                let c = PCase::rotate(uplo, n, t).with(Form::Strided(3), 2, Loc::Device);
                cases.push((
                    c,
                    vec![
                        PFill::Factor,
                        PFill::ZeroDiag2(n - 1, 1),
                        PFill::ZeroDiag(0),
                    ],
                ));
            }
        }
    }
    each(cases, |(c, fills)| {
        let mut p = prepare::<E>(dev, &mut r, c, &fills);
        run_checked(&mut h, &mut p);
    });
}

fn f1_potri_zero_diagonal_sets_info(dev: &Device) {
    info_cases::<f64>(dev, 2011);
    info_cases::<f32>(dev, 2012);
    info_cases::<Complex32>(dev, 2013);
    info_cases::<Complex64>(dev, 2014);
}

/// F3: `n = 0` sets `info = 0` for every entry and writes nothing else (every operand
/// poisoned); a batch of 0 writes nothing at all.
fn f3_potri_quick_returns(dev: &Device) {
    fn one<E: T>(dev: &Device) {
        let mut h = handle(dev);
        let mut r = Gen::new(2021);
        let mut t = 0;
        for form in [
            Form::Single,
            Form::List(3),
            Form::Strided(3),
            Form::List(0),
            Form::Strided(0),
        ] {
            let count = form_count(form);
            for (uplo, n) in [
                (Uplo::Lower, 0),
                (Uplo::Upper, 0),
                (Uplo::Lower, 5),
                (Uplo::Upper, 7),
            ] {
                if n > 0 && count > 0 {
                    continue;
                }
                t += 1;
                let loc = if t % 2 == 0 { Loc::Host } else { Loc::Device };
                let c = PCase::new(uplo, n).with(form, t % 3, loc);
                let mut p = prepare::<E>(dev, &mut r, c, &[PFill::Hpd]);
                let what = format!("{} potri quick return {c:?}", E::NAME);
                let st = p.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(st, Status::Success, "{what}");
                p.info.expect(&vec![0; count], &what);
                p.a.untouched(&format!("{what} (A)"));
            }
        }
    }
    one::<f32>(dev);
    one::<f64>(dev);
    one::<Complex32>(dev);
    one::<Complex64>(dev);
}

/// F2, F7, F9: `lda < n`, `info` too short (host and device) or a placeholder, short `A`
/// (single, list entry, strided batch), overlapping strided entries, placeholders outside a
/// query: each the right error naming the values involved, `A` and `info` bit for bit as they
/// were.
fn f2_potri_bad_arguments_name_values(dev: &Device) {
    use crate::common::errors::Outs;
    use gpublas::Results::{Device as D, Host as H};
    let mut h = handle(dev);
    let mut o = Outs::<f64>::new(dev, &[64, 64, 64, 15, 26]);
    let mut info = vec![INFO_POISON; 4];
    let mut info1 = vec![INFO_POISON; 1];
    let mut info_dev1 = dev.upload(&[INFO_POISON; 1]).unwrap();
    {
        let [a, a1, a2, a15, a26] = &mut o.bufs[..] else {
            unreachable!()
        };
        let e = solver::potri(&mut h, Uplo::Lower, 4, a, 3, H(&mut info));
        expect_err(e, is_size, &["potri", "lda = 3", "4"], "potri lda < n");
        let e = solver::potri(&mut h, Uplo::Upper, 0, a, 0, H(&mut info));
        expect_err(
            e,
            is_size,
            &["potri", "lda = 0"],
            "potri lda = 0 with n = 0",
        );
        let e = solver::potri_batched(&mut h, Uplo::Upper, 5, &mut [&mut *a1], 4, H(&mut info));
        expect_err(
            e,
            is_size,
            &["potri_batched", "lda = 4", "5"],
            "potri_batched lda < n",
        );
        let e = solver::potri_strided_batched(&mut h, Uplo::Lower, 3, a, 2, 9, H(&mut info), 2);
        expect_err(
            e,
            is_size,
            &["potri_strided_batched", "lda = 2", "3"],
            "potri_strided lda < n",
        );
        // info: one per entry.
        let e = solver::potri_batched(
            &mut h,
            Uplo::Lower,
            3,
            &mut [&mut *a1, &mut *a2],
            3,
            H(&mut info1),
        );
        expect_err(
            e,
            is_value,
            &["potri_batched", "info", "1", "2"],
            "potri host info short",
        );
        let e =
            solver::potri_strided_batched(&mut h, Uplo::Upper, 3, a, 3, 9, D(&mut info_dev1), 3);
        expect_err(
            e,
            is_value,
            &["potri_strided_batched", "info", "1", "3"],
            "potri device info short",
        );
        let mut pinfo = DeviceBuffer::<i32>::placeholder(4);
        let e = solver::potri(&mut h, Uplo::Lower, 3, a, 3, D(&mut pinfo));
        expect_err(
            e,
            is_pointer,
            &["potri", "info", "placeholder"],
            "potri info placeholder",
        );
        // A short.
        let e = solver::potri(&mut h, Uplo::Lower, 4, a15, 4, H(&mut info));
        expect_err(e, is_value, &["potri", "15", "16"], "potri A short");
        let e = solver::potri_batched(
            &mut h,
            Uplo::Upper,
            4,
            &mut [&mut *a1, &mut *a15],
            4,
            H(&mut info),
        );
        expect_err(
            e,
            is_value,
            &["[1]", "15", "16"],
            "potri_batched A[1] short",
        );
        let e = solver::potri_strided_batched(&mut h, Uplo::Lower, 3, a26, 3, 9, H(&mut info), 3);
        expect_err(
            e,
            is_value,
            &["26", "27", "stride_a = 9"],
            "potri_strided A short",
        );
        // Overlapping outputs (F9).
        let e = solver::potri_strided_batched(&mut h, Uplo::Upper, 3, a, 3, 8, H(&mut info), 2);
        expect_err(e, is_value, &["stride_a = 8"], "potri A stride 8 < 9");
        // A placeholder outside a query.
        let mut pa = DeviceBuffer::<f64>::placeholder(64);
        let e = solver::potri(&mut h, Uplo::Lower, 4, &mut pa, 4, H(&mut info));
        expect_err(e, is_pointer, &["placeholder"], "potri A placeholder");
    }
    o.check();
    assert_eq!(info, vec![INFO_POISON; 4], "host info written");
    assert_eq!(info1, vec![INFO_POISON; 1], "host info written");
    assert_eq!(info_dev1.to_vec().unwrap(), vec![INFO_POISON; 1]);
    expect_errs_done();
}

// ---- workspaces --------------------------------------------------------------------------

/// Cases of the query and workspace tests: both triangles, every type, layouts and `info`
/// routings, orders about 150 (`big`: one of 300 too).
fn jobs(dev: &Device, r: &mut Gen, big: bool) -> Vec<Box<dyn Job>> {
    use Form::{List, Single, Strided};
    let mut v: Vec<Box<dyn Job>> = vec![];
    let cs = |uplo, n, form, loc| {
        let mut c = PCase::new(uplo, n).with(form, 1, loc);
        c.gap = 2;
        c
    };
    let hpd = &[PFill::Hpd][..];
    if big {
        v.push(Box::new(prepare::<f64>(
            dev,
            r,
            cs(Uplo::Lower, 300, Single, Loc::Host),
            hpd,
        )));
    }
    v.push(Box::new(prepare::<f64>(
        dev,
        r,
        cs(Uplo::Upper, 150, Single, Loc::Device),
        hpd,
    )));
    v.push(Box::new(prepare::<f64>(
        dev,
        r,
        cs(Uplo::Lower, 100, Strided(2), Loc::Host),
        hpd,
    )));
    v.push(Box::new(prepare::<Complex32>(
        dev,
        r,
        cs(Uplo::Lower, 129, List(2), Loc::Device),
        hpd,
    )));
    v.push(Box::new(prepare::<f32>(
        dev,
        r,
        cs(Uplo::Upper, 65, List(3), Loc::Host),
        hpd,
    )));
    v.push(Box::new(prepare::<Complex64>(
        dev,
        r,
        cs(Uplo::Upper, 100, Strided(2), Loc::Host),
        &[PFill::Factor, PFill::Hpd],
    )));
    v
}

fn m08_m09_potri_query_then_preallocate_succeeds(dev: &Device) {
    let mut r = Gen::new(2031);
    each(jobs(dev, &mut r, true), |mut job| {
        query_then_preallocate(dev, &mut *job)
    });
}

/// During a query `lda` is checked (a bad one is the call's error), placeholders are accepted
/// for `A` and a device `info`, nothing is allocated.
fn m08_potri_query_checks_sizes_and_takes_placeholders(dev: &Device) {
    let mut h = fixed_handle(dev, 0);
    h.start_device_memory_size_query().unwrap();
    let mut pa = DeviceBuffer::<f64>::placeholder(200 * 200);
    let mut pinfo = DeviceBuffer::<i32>::placeholder(2);
    let e = solver::potri(
        &mut h,
        Uplo::Lower,
        10,
        &mut pa,
        9,
        Results::Device(&mut pinfo),
    );
    expect_err(e, is_size, &["lda = 9"], "potri lda < n during a query");
    let st = solver::potri_strided_batched(
        &mut h,
        Uplo::Upper,
        140,
        &mut pa,
        140,
        140 * 140,
        Results::Device(&mut pinfo),
        2,
    )
    .unwrap();
    assert!(
        matches!(st, Status::SizeIncreased | Status::SizeUnchanged),
        "{st:?}"
    );
    let size = h.stop_device_memory_size_query().unwrap();
    assert_eq!(h.get_device_memory_size(), 0, "a query allocated");
    assert_eq!(size % 64, 0, "{size}");
    expect_errs_done();
}

const KIB: usize = 1024;

/// M6: in a fixed 4 KiB workspace (user-managed): the right answers (`PerfDegraded` where the
/// query asked for more) or `MemoryError` with every operand untouched.
fn m06_potri_small_fixed_workspace_degrades_or_errs_cleanly(dev: &Device) {
    let mut r = Gen::new(2041);
    each(jobs(dev, &mut r, false), |mut job| {
        in_fixed(dev, &mut *job, 4 * KIB)
    });
}

/// M6: in a workspace of one chunk (64 bytes, user-owned): the right answers or `MemoryError`
/// naming what it needs and the 64 bytes there are, every operand untouched.
fn m06_potri_impossibly_small_workspace_errs_cleanly_or_runs(dev: &Device) {
    let mut r = Gen::new(2051);
    each(jobs(dev, &mut r, false), |mut job| {
        let name = job.name();
        let cap = 64;
        let size = query(dev, &*job);
        let mut h = user_owned_handle(dev, cap);
        match job.call(&mut h) {
            Ok(st) => {
                let want = if size > cap {
                    Status::PerfDegraded
                } else {
                    Status::Success
                };
                assert_eq!(st, want, "{name}: in {cap} bytes, the query said {size}");
                job.check(&format!("{name} ({cap}-byte workspace)"));
            }
            Err(e @ Error::MemoryError { .. }) => {
                eprintln!("{name}: query {size} bytes, in {cap}: {e}");
                let Error::MemoryError {
                    needed, available, ..
                } = &e
                else {
                    unreachable!()
                };
                assert!(*needed > *available && size > cap, "{name}: {e}");
                assert_eq!(*available, cap, "{name}: {e}");
                job.untouched(&format!("{name}: memory error"));
            }
            Err(e) => panic!("{name}: {cap}-byte workspace: {e}"),
        }
    });
}

/// F8: a batch in a fixed workspace of what one of its entries needs: it runs (in chunks) with
/// every entry's answer right and in its own place; no memory error, no growth.
fn f8_potri_batches_run_in_chunks_in_a_one_entry_workspace(dev: &Device) {
    let mut r = Gen::new(2061);
    let mut items: Vec<(Box<dyn Job>, Box<dyn Job>)> = vec![];
    let fills = [PFill::Hpd, PFill::ZeroDiag(40), PFill::Factor];
    for (uplo, n, form, loc) in [
        (Uplo::Lower, 100, Form::Strided(5), Loc::Host),
        (Uplo::Upper, 70, Form::List(6), Loc::Device),
    ] {
        let c = PCase::new(uplo, n).with(form, 2, loc);
        let one = PCase {
            form: with_count(form, 1),
            ..c
        };
        items.push((
            Box::new(prepare::<f64>(dev, &mut r, one, &fills)),
            Box::new(prepare::<f64>(dev, &mut r, c, &fills)),
        ));
        items.push((
            Box::new(prepare::<Complex32>(dev, &mut r, one, &fills)),
            Box::new(prepare::<Complex32>(dev, &mut r, c, &fills)),
        ));
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

// ---- the references and the checks, checked ------------------------------------------------

/// The reference inverse and the residual check: the f64 inverse of an HPD matrix passes, and
/// an inverse with one element off, the transpose of a complex inverse (not its conjugate),
/// the inverse assembled from the wrong triangle or the inverse of another matrix fail.
#[test]
fn reference_potri_checks_fail_on_mutations() {
    let mut r = Gen::new(2071);
    for cplx in [false, true] {
        let n = 40;
        let eps = f32::EPSILON as f64;
        let a = if cplx {
            gen_hpd::<Complex64>(n, PFill::Hpd, &mut r)
        } else {
            gen_hpd::<f64>(n, PFill::Hpd, &mut r)
        };
        let inv = chol_solve(&a, &Dense::identity(n, n));
        let nrm = inv.norm1();
        assert!(
            inverse_residual(&inv, &a, nrm, f64::EPSILON) < 5.0,
            "cplx {cplx}"
        );
        // Assembled from either triangle of itself.
        for uplo in [Uplo::Lower, Uplo::Upper] {
            let x = hermitian(&inv, uplo);
            assert!(
                inverse_residual(&x, &a, nrm, f64::EPSILON) < 5.0,
                "cplx {cplx}"
            );
        }
        let mut bad = inv.clone();
        bad.set(7, 3, cadd(bad.at(7, 3), (1e-2 * nrm, 0.0)));
        assert!(
            inverse_residual(&bad, &a, nrm, eps) >= RESID_MAX,
            "cplx {cplx}: element"
        );
        if cplx {
            let t = inv.op(gpublas::Op::T);
            assert!(inverse_residual(&t, &a, nrm, eps) >= RESID_MAX, "transpose");
            // The upper triangle read as if it were the lower one's conjugate.
            let mut u = inv.clone();
            for j in 0..n {
                for i in j + 1..n {
                    u.set(i, j, inv.at(j, i));
                }
            }
            let x = hermitian(&u, Uplo::Lower);
            assert!(inverse_residual(&x, &a, nrm, eps) >= RESID_MAX, "triangle");
        }
        let other = gen_hpd::<f64>(n, PFill::Hpd, &mut r);
        let oi = chol_solve(&other, &Dense::identity(n, n));
        assert!(
            inverse_residual(&oi, &a, nrm, eps) >= RESID_MAX,
            "cplx {cplx}: other"
        );
        let mut nan = inv.clone();
        nan.set(0, 0, (f64::NAN, 0.0));
        assert_eq!(inverse_residual(&nan, &a, nrm, eps), f64::INFINITY);
    }
}

crate::on_both_backends!(
    f1_f10_potri_sizes_forms_f64,
    f1_f10_potri_sizes_forms_f32,
    f1_f10_potri_sizes_forms_c32,
    f1_f10_potri_sizes_forms_c64,
    f1_potri_zero_diagonal_sets_info,
    f3_potri_quick_returns,
    f2_potri_bad_arguments_name_values,
    m08_m09_potri_query_then_preallocate_succeeds,
    m08_potri_query_checks_sizes_and_takes_placeholders,
    m06_potri_small_fixed_workspace_degrades_or_errs_cleanly,
    m06_potri_impossibly_small_workspace_errs_cleanly_or_runs,
    f8_potri_batches_run_in_chunks_in_a_one_entry_workspace,
);
