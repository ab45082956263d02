#![allow(
    clippy::too_many_arguments,
    clippy::type_complexity,
    clippy::needless_range_loop
)]
//! The LAPACK drivers (`gesv`, `posv`, `getri`, each single, `_batched` and
//! `_strided_batched`) against independent f64 references written here (LU with partial
//! pivoting, Cholesky, substitution and matrix products in plain loops), on both backends
//! (SPEC F1–F3, F5–F10, M6, M8, M9).
//!
//! Checks, with `ε` the element type's machine epsilon, `‖·‖₁` the largest column sum of
//! magnitudes and `|re| + |im|` as the magnitude of a complex value:
//! - gesv (`Op::N`): for each column `x` of `X`, `‖A x − b‖₁ / (n ‖A‖₁ ‖x‖₁ ε) < 30` with the
//!   original `A` (kept in f64); `A`, `ipiv` and `info` afterwards bit for bit what
//!   `solver::getrf` writes for the same input in the same layout; on diagonally dominant `A`
//!   (condition number a few units) `max |x − x_ref| / (n ‖x_ref‖∞ ε) < 30` against an f64
//!   solve of the same (rounded) data. Exactly singular entries (zero columns of small
//!   integers): `info` = the first zero `U(i, i)` (1-based) from the reference loop; their `B`
//!   is unspecified, the other entries of the batch are still solved.
//! - posv (both `Uplo`s, HPD inputs: `B Bᴴ + n I` and diagonally dominant ones): the same
//!   residual and forward-error bounds; the stored triangle bit for bit what `solver::potrf`
//!   writes; the other triangle (NaN) bit-identical; `info = k` when the leading minor of
//!   order `k` is not positive definite (a negative `A(k−1, k−1)`), `B` then unspecified.
//! - getri (on the factors and pivots `solver::getrf` wrote on the same device):
//!   `‖X A − I‖₁ / (n ‖A‖₁ ‖X‖₁ ε) < 30` and `‖A X − I‖₁ / (n ‖A‖₁ ‖X‖₁ ε) < 30` with the
//!   original `A`; the pivots read and untouched; exactly singular input (zero columns):
//!   `info` = the first zero `U(i, i)` from the reference loop, `A` unspecified but only its
//!   `n × n` entries written.
//! - Where a workspace forces a reduced algorithm (`PerfDegraded`), bits may differ: then
//!   gesv's factors give `‖P A − L U‖₁ / (n ‖A‖₁ ε) < 30` with valid pivots and posv's
//!   `‖A − L Lᴴ‖₁ / (n ‖A‖₁ ε) < 30` with a real positive diagonal.
//!
//! Orders 0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200 and 500 (500 single, f64 and
//! c64), 1, 2, 17 or 64 right-hand sides. Operands are placed in batch layouts (single, lists,
//! strided batches with gaps between the entries, batches of 0, 1 and 7) at leading
//! dimensions above the least; everything a call may neither read nor write (padding rows,
//! gaps, one element past each buffer, posv's unstored triangle, the pivots' gaps, `info` past
//! the batch) holds a NaN payload or a poison value and is compared bit for bit afterwards.
//! `info` goes to host or device memory, in rotation. Bad arguments, quick returns, size
//! queries, preallocated and small fixed workspaces are checked on the same cases.

mod common;

use common::complex::*;
use common::elem::*;
use common::forms::*;
use common::{fixed_handle, handle, user_owned_handle};
use gpublas::solver;
use gpublas::{
    Complex32, Complex64, Device, DeviceBuffer, Error, Handle, Results, Scalar, Status, Uplo,
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
        round_to::<E>((-m, 0.0))
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

/// Orders where the blocking changes (panels of 32, recursion at 64 and 128, getri's blocks).
const SIZES: &[usize] = &[0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200];

/// The subset the single-precision types run.
const SUB: &[usize] = &[0, 1, 2, 3, 31, 32, 33, 64, 65, 128, 129, 200];

/// Right-hand sides, in rotation.
const NRHS: &[usize] = &[1, 2, 17, 64];

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

/// Where `info` goes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Loc {
    Host,
    Device,
}

/// What pivot outputs hold before a call (never a valid pivot).
const PIV_POISON: i32 = -7_000_001;
/// What `info` outputs hold before a call.
const INFO_POISON: i32 = -424_242;
/// What a pivot buffer holds between the entries and past the end (never read nor written).
const PIV_GAP: i32 = -99;

/// An `info` buffer in host or device memory.
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
                "{what}: {:?} info {p} changed from {} to {}",
                self.loc, self.before[p], now[p]
            );
        }
    }
}

/// A pivot buffer (device memory: gesv writes it, getri reads it) and what it held before.
struct Piv {
    buf: DeviceBuffer<i32>,
    before: Vec<i32>,
}

impl Piv {
    fn new(dev: &Device, v: Vec<i32>) -> Piv {
        Piv {
            buf: dev.upload(&v).unwrap(),
            before: v,
        }
    }
    fn now(&self) -> Vec<i32> {
        self.buf.to_vec().unwrap()
    }
    fn reset(&mut self) {
        self.buf.copy_from_host(&self.before).unwrap();
    }
    fn untouched(&self, what: &str) {
        let now = self.now();
        if let Some(p) = (0..now.len()).find(|&p| now[p] != self.before[p]) {
            panic!(
                "{what}: ipiv[{p}] changed from {} to {}",
                self.before[p], now[p]
            );
        }
    }
}

// ---- test matrices -----------------------------------------------------------------------

/// How a matrix is filled.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fill {
    /// Uniform in [-1, 1) (both parts).
    Random,
    /// Random, each column's diagonal entry `2 Σ_{i≠j} |a_ij| + [1, 2]`, rows shuffled:
    /// condition number a few units, the reference solve is the answer to the type's
    /// precision, and the pivots are not the identity.
    Dominant,
    /// Small integers (both parts in [-4, 4]) with columns `k` (and the second, if any) exactly
    /// zero: elimination leaves those columns exactly zero, so `U(k, k) = 0` and `info = k + 1`
    /// in every type and every blocking.
    ZeroCol(usize, Option<usize>),
    /// Hermitian, each row dominated by a real positive diagonal (HPD).
    Hpd,
    /// `B Bᴴ + n I` for a random `B` (HPD, condition number about 2).
    Gram,
    /// HPD, then `A(k−1, k−1)` set to the value: the leading minor of order `k` is not
    /// positive definite, the smaller ones are.
    NotPd(usize, f64),
}

impl Fill {
    /// Whether the reference solve is the answer to the type's precision (well conditioned).
    fn well_conditioned(self) -> bool {
        matches!(self, Fill::Dominant | Fill::Hpd | Fill::Gram)
    }
}

/// Uniform random `m × n`.
fn gen_random<E: El>(m: usize, n: usize, r: &mut Gen) -> Dense {
    let mut d = Dense::zeros(m, n);
    d.v.iter_mut().for_each(|x| *x = rnd::<E>(r, 1.0));
    d
}

/// Random with each column's diagonal entry dominating it twice over, then the rows shuffled:
/// partial pivoting must find each column's dominant entry (the Schur complements of a
/// column-dominant matrix stay dominant), so the pivots are a permutation undone, not the
/// identity.
fn gen_dominant<E: El>(n: usize, r: &mut Gen) -> Dense {
    let mut d = gen_random::<E>(n, n, r);
    for j in 0..n {
        let s: f64 = (0..n).filter(|&i| i != j).map(|i| mag(d.at(i, j))).sum();
        let extra = 1.5 + 0.5 * r.uni();
        let v = with_phase::<E>(r, 2.0 * s + extra);
        d.set(j, j, v);
    }
    for i in (1..n).rev() {
        let k = r.below(i + 1);
        d.swap_rows(i, k);
    }
    d
}

/// Small integers with the `zero` columns exactly zero.
fn gen_zero_cols<E: El>(n: usize, zero: &[usize], r: &mut Gen) -> Dense {
    let mut d = Dense::zeros(n, n);
    for j in 0..n {
        for i in 0..n {
            if zero.contains(&j) {
                continue;
            }
            let re = r.below(9) as f64 - 4.0;
            let im = if E::CPLX {
                r.below(9) as f64 - 4.0
            } else {
                0.0
            };
            d.set(i, j, (re, im));
        }
    }
    d
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

/// `B Bᴴ + n I` for a random `B`, rounded to the type (still Hermitian).
fn gen_gram<E: El>(n: usize, r: &mut Gen) -> Dense {
    let b = gen_random::<E>(n, n, r);
    let mut d = Dense::zeros(n, n);
    for j in 0..n {
        for i in j..n {
            let mut s = ZERO;
            for l in 0..n {
                s = cadd(s, cmul(b.at(i, l), conj(b.at(j, l))));
            }
            if i == j {
                s = (s.0 + n as f64, 0.0);
            }
            let s = round_to::<E>(s);
            d.set(i, j, s);
            d.set(j, i, conj(s));
        }
    }
    d
}

/// The logical matrix of a fill and the `info` it must give (from the reference loops).
fn gen_fill<E: El>(n: usize, fill: Fill, r: &mut Gen) -> (Dense, i32) {
    match fill {
        Fill::Random => (gen_random::<E>(n, n, r), 0),
        Fill::Dominant => (gen_dominant::<E>(n, r), 0),
        Fill::ZeroCol(k, k2) => {
            let zero: Vec<usize> = std::iter::once(k).chain(k2).filter(|&z| z < n).collect();
            let want = zero.iter().min().map_or(0, |&z| z + 1);
            // Small integer matrices can be singular by chance at small orders: draw again
            // until the reference loop's first zero pivot is the construction's.
            for _ in 0..100 {
                let a = gen_zero_cols::<E>(n, &zero, r);
                let (_, _, info) = ref_lu(&a);
                if info == want {
                    return (a, want as i32);
                }
            }
            panic!("{} n = {n} {fill:?}: no matrix with info {want}", E::NAME);
        }
        Fill::Hpd => (gen_hpd::<E>(n, r), 0),
        Fill::Gram => (gen_gram::<E>(n, r), 0),
        Fill::NotPd(k, v) => {
            let mut a = gen_hpd::<E>(n, r);
            a.set(k - 1, k - 1, (v, 0.0));
            let (_, info) = ref_chol(&a);
            assert_eq!(info, k, "{} n = {n} {fill:?}: reference info", E::NAME);
            (a, k as i32)
        }
    }
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

// ---- cases -------------------------------------------------------------------------------

/// Which driver.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Rt {
    Gesv,
    Posv(Uplo),
    Getri,
}

/// One driver call's shape, layout and `info` routing.
#[derive(Clone, Copy, Debug)]
struct DCase {
    rt: Rt,
    n: usize,
    /// Right-hand sides (0 for getri).
    nrhs: usize,
    lda: usize,
    ldb: usize,
    form: Form,
    /// Elements between strided entries of `A` (`B`: one more, modulo 8).
    gap: usize,
    /// Pivots between entries beyond `n`.
    pgap: usize,
    info: Loc,
}

impl DCase {
    fn new(rt: Rt, n: usize, nrhs: usize) -> DCase {
        DCase {
            rt,
            n,
            nrhs: if rt == Rt::Getri { 0 } else { nrhs },
            lda: n.max(1),
            ldb: n.max(1),
            form: Form::Single,
            gap: 0,
            pgap: 0,
            info: Loc::Host,
        }
    }

    /// Padding, layout, gaps and routing in rotation with the case counter `t`.
    fn rotate(rt: Rt, n: usize, nrhs: usize, t: usize) -> DCase {
        let form = if n > 129 {
            BIG_FORMS[t % BIG_FORMS.len()]
        } else {
            FORMS[t % FORMS.len()]
        };
        DCase {
            lda: n.max(1) + [1, 3, 2, 0][t % 4],
            ldb: n.max(1) + [2, 1, 3, 1][t % 4],
            form,
            gap: GAPS[(t / 2) % 3],
            pgap: [0, 1, 3][(t / 3) % 3],
            info: [Loc::Host, Loc::Device][(t / 2) % 2],
            ..DCase::new(rt, n, nrhs)
        }
    }

    fn with(mut self, form: Form, lda_extra: usize, ldb_extra: usize) -> DCase {
        self.form = form;
        self.lda = self.n.max(1) + lda_extra;
        self.ldb = self.n.max(1) + ldb_extra;
        self
    }

    fn stride_piv(&self) -> usize {
        self.n + self.pgap
    }

    fn uplo(&self) -> Option<Uplo> {
        match self.rt {
            Rt::Posv(u) => Some(u),
            _ => None,
        }
    }
}

/// A driver call ready to run: its operands placed, the logical matrices behind them and what
/// each entry must give.
struct DrvRun<E: T> {
    c: DCase,
    a: Placed<E>,
    /// gesv: written (poisoned before); getri: getrf's pivots, read.
    piv: Option<Piv>,
    /// gesv, posv.
    b: Option<Placed<E>>,
    info: Ints,
    /// The original matrices and right-hand sides (f64, as uploaded).
    ad: Vec<Dense>,
    bd: Vec<Dense>,
    fills: Vec<Fill>,
    want_info: Vec<i32>,
    /// gesv, posv: `A`'s buffers and the pivot buffer as `getrf`/`potrf` leave them for the
    /// same input in the same layout.
    want_a: Vec<Vec<E>>,
    want_piv: Vec<i32>,
}

/// The pivot buffer of a case: `n` per entry `stride_piv` apart (single: `n`), one more
/// element past the end; `fill` everywhere.
fn piv_len(c: &DCase) -> usize {
    let count = form_count(c.form);
    match c.form {
        Form::Single => c.n + 1,
        _ => count * c.stride_piv() + 1,
    }
}

/// `getrf` or `potrf` of the matrices in `a`, in their layout, pivots to `piv` (device),
/// `info` to host memory.
fn factor_call<E: T>(
    h: &mut Handle,
    c: &DCase,
    a: &mut Placed<E>,
    piv: Option<&mut DeviceBuffer<i32>>,
    info: &mut [i32],
) -> Result<Status, Error> {
    let (n, lda, sp, sa) = (c.n, c.lda, c.stride_piv(), a.stride);
    match (c.rt, a.form) {
        (Rt::Posv(u), Form::Single) => {
            solver::potrf(h, u, n, a.one_mut(), lda, Results::Host(info))
        }
        (Rt::Posv(u), Form::List(_)) => {
            solver::potrf_batched(h, u, n, &mut a.muts(), lda, Results::Host(info))
        }
        (Rt::Posv(u), Form::Strided(count)) => {
            solver::potrf_strided_batched(h, u, n, a.one_mut(), lda, sa, Results::Host(info), count)
        }
        (_, Form::Single) => solver::getrf(
            h,
            n,
            n,
            a.one_mut(),
            lda,
            Results::Device(piv.unwrap()),
            Results::Host(info),
        ),
        (_, Form::List(_)) => solver::getrf_batched(
            h,
            n,
            n,
            &mut a.muts(),
            lda,
            Results::Device(piv.unwrap()),
            sp,
            Results::Host(info),
        ),
        (_, Form::Strided(count)) => solver::getrf_strided_batched(
            h,
            n,
            n,
            a.one_mut(),
            lda,
            sa,
            Results::Device(piv.unwrap()),
            sp,
            Results::Host(info),
            count,
        ),
    }
}

/// Operands for `c`, entry `v` filled with `fills[v % len]`. gesv and posv: the library's
/// `getrf`/`potrf` of the same input in the same layout (on a handle of its own) gives what
/// `A`, the pivots and `info` must hold afterwards; getri: it writes the factors and pivots
/// the call reads.
fn prepare<E: T>(dev: &Device, r: &mut Gen, c: DCase, fills: &[Fill]) -> DrvRun<E> {
    let count = form_count(c.form);
    let n = c.n;
    let tri = c.uplo();
    let (mut ast, mut ad, mut bst, mut bd, mut want_info, mut fl) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    for v in 0..count {
        let fill = fills[v % fills.len()];
        let (a, info) = gen_fill::<E>(n, fill, r);
        ast.push(store::<E>(&a, c.lda, tri));
        ad.push(a);
        want_info.push(info);
        fl.push(fill);
        if c.rt != Rt::Getri {
            let b = gen_random::<E>(n, c.nrhs, r);
            bst.push(store::<E>(&b, c.ldb, None));
            bd.push(b);
        }
    }
    let sa = span(n, n, c.lda);
    let place_a = || Placed::with_gap(dev, c.form, sa, c.gap, &ast, E::pnan());
    let mut a = place_a();
    let b = (c.rt != Rt::Getri).then(|| {
        let sb = span(n, c.nrhs, c.ldb);
        Placed::with_gap(dev, c.form, sb, (c.gap + 1) % 8, &bst, E::pnan())
    });
    let info = Ints::new(dev, c.info, vec![INFO_POISON; count + 1]);
    let what = format!("{} {c:?}: the reference factorization", E::NAME);
    // Managed, nothing allocated up front: grows to the factorization's need.
    let mut h = fixed_handle(dev, 0);
    let mut finfo = vec![INFO_POISON; count + 1];
    let (piv, want_a, want_piv) = match c.rt {
        Rt::Getri => {
            let mut p = Piv::new(dev, vec![PIV_GAP; piv_len(&c)]);
            let st = factor_call(&mut h, &c, &mut a, Some(&mut p.buf), &mut finfo)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(st, Status::Success, "{what}");
            a.snapshot();
            p.before = p.now();
            (Some(p), vec![], vec![])
        }
        Rt::Gesv => {
            let mut fa = place_a();
            let mut fp = dev.upload(&vec![PIV_POISON; piv_len(&c)]).unwrap();
            let st = factor_call(&mut h, &c, &mut fa, Some(&mut fp), &mut finfo)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(st, Status::Success, "{what}");
            let p = Piv::new(dev, vec![PIV_POISON; piv_len(&c)]);
            (Some(p), fa.after(), fp.to_vec().unwrap())
        }
        Rt::Posv(_) => {
            let mut fa = place_a();
            let st = factor_call(&mut h, &c, &mut fa, None, &mut finfo)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(st, Status::Success, "{what}");
            (None, fa.after(), vec![])
        }
    };
    assert_eq!(
        &finfo[..count],
        &want_info[..],
        "{what}: the factorization's info against the reference loop's ({fl:?})"
    );
    DrvRun {
        c,
        a,
        piv,
        b,
        info,
        ad,
        bd,
        fills: fl,
        want_info,
        want_a,
        want_piv,
    }
}

/// Runs the driver of `c` on the operands in their layout.
fn drv_call<E: T>(
    h: &mut Handle,
    c: &DCase,
    a: &mut Placed<E>,
    piv: Option<&mut DeviceBuffer<i32>>,
    b: Option<&mut Placed<E>>,
    info: Results<'_, i32>,
) -> Result<Status, Error> {
    let (n, nrhs, lda, ldb, sp) = (c.n, c.nrhs, c.lda, c.ldb, c.stride_piv());
    let sa = a.stride;
    match (c.rt, a.form) {
        (Rt::Getri, Form::Single) => solver::getri(h, n, a.one_mut(), lda, piv.unwrap(), info),
        (Rt::Getri, Form::List(_)) => {
            solver::getri_batched(h, n, &mut a.muts(), lda, piv.unwrap(), sp, info)
        }
        (Rt::Getri, Form::Strided(count)) => {
            solver::getri_strided_batched(h, n, a.one_mut(), lda, sa, piv.unwrap(), sp, info, count)
        }
        (rt, form) => {
            let b = b.expect("gesv and posv need B");
            let sb = b.stride;
            match (rt, form) {
                (Rt::Gesv, Form::Single) => solver::gesv(
                    h,
                    n,
                    nrhs,
                    a.one_mut(),
                    lda,
                    piv.unwrap(),
                    b.one_mut(),
                    ldb,
                    info,
                ),
                (Rt::Gesv, Form::List(_)) => solver::gesv_batched(
                    h,
                    n,
                    nrhs,
                    &mut a.muts(),
                    lda,
                    piv.unwrap(),
                    sp,
                    &mut b.muts(),
                    ldb,
                    info,
                ),
                (Rt::Gesv, Form::Strided(count)) => solver::gesv_strided_batched(
                    h,
                    n,
                    nrhs,
                    a.one_mut(),
                    lda,
                    sa,
                    piv.unwrap(),
                    sp,
                    b.one_mut(),
                    ldb,
                    sb,
                    info,
                    count,
                ),
                (Rt::Posv(u), Form::Single) => {
                    solver::posv(h, u, n, nrhs, a.one_mut(), lda, b.one_mut(), ldb, info)
                }
                (Rt::Posv(u), Form::List(_)) => solver::posv_batched(
                    h,
                    u,
                    n,
                    nrhs,
                    &mut a.muts(),
                    lda,
                    &mut b.muts(),
                    ldb,
                    info,
                ),
                (Rt::Posv(u), Form::Strided(count)) => solver::posv_strided_batched(
                    h,
                    u,
                    n,
                    nrhs,
                    a.one_mut(),
                    lda,
                    sa,
                    b.one_mut(),
                    ldb,
                    sb,
                    info,
                    count,
                ),
                (Rt::Getri, _) => unreachable!(),
            }
        }
    }
}

/// A call ready to run, checked the same way by the suites, the query and the workspace tests.
trait Job {
    fn call(&mut self, h: &mut Handle) -> Result<Status, Error>;
    /// The same call with placeholders for every device operand (host `info` stays host).
    fn call_placeholders(&self, h: &mut Handle) -> Result<Status, Error>;
    /// The answer is right and nothing else changed; `exact`: gesv's and posv's factors,
    /// pivots and `info` bit for bit those of `getrf`/`potrf` (a full workspace: the same
    /// program), else within the factorization bounds.
    fn check(&self, what: &str, exact: bool);
    /// Nothing changed.
    fn untouched(&self, what: &str);
    /// Uploads the original operands again.
    fn reset(&mut self);
    fn name(&self) -> String;
}

impl<E: T> Job for DrvRun<E> {
    fn call(&mut self, h: &mut Handle) -> Result<Status, Error> {
        drv_call(
            h,
            &self.c,
            &mut self.a,
            self.piv.as_mut().map(|p| &mut p.buf),
            self.b.as_mut(),
            self.info.results(),
        )
    }

    fn call_placeholders(&self, h: &mut Handle) -> Result<Status, Error> {
        let mut a = self.a.placeholders();
        let mut b = self.b.as_ref().map(|b| b.placeholders());
        let mut piv = self
            .piv
            .as_ref()
            .map(|p| DeviceBuffer::<i32>::placeholder(p.before.len()));
        let mut info = self.info.placeholder();
        drv_call(h, &self.c, &mut a, piv.as_mut(), b.as_mut(), info.results())
    }

    fn name(&self) -> String {
        let mut fills = self.fills.clone();
        fills.dedup();
        format!("{} {:?} {fills:?}", E::NAME, self.c)
    }

    fn reset(&mut self) {
        self.a.reset();
        if let Some(b) = &mut self.b {
            b.reset();
        }
        if let Some(p) = &mut self.piv {
            p.reset();
        }
        self.info.reset();
    }

    fn untouched(&self, what: &str) {
        self.a.untouched(&format!("{what} (A)"));
        if let Some(b) = &self.b {
            b.untouched(&format!("{what} (B)"));
        }
        if let Some(p) = &self.piv {
            p.untouched(what);
        }
        self.info.untouched(what);
    }

    fn check(&self, what: &str, exact: bool) {
        let c = &self.c;
        let n = c.n;
        let count = form_count(c.form);
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
        match c.rt {
            Rt::Gesv => self.check_lu(what, exact),
            Rt::Posv(u) => self.check_chol(what, u, exact),
            Rt::Getri => self.check_inverse(what),
        }
        // The solutions.
        if let Some(b) = &self.b {
            let after = b.after();
            b.only_outputs_changed(&after, n, c.nrhs, c.ldb, &|_, _| true, what);
            for v in 0..count {
                if self.want_info[v] != 0 {
                    continue;
                }
                let w = format!("{what}: entry {v} ({:?})", self.fills[v]);
                let x = b.entry(&after, v, n, c.nrhs, c.ldb);
                let res = solve_residual(&self.ad[v], &x, &self.bd[v], E::EPS);
                assert!(
                    res < RESID_MAX,
                    "{w}: solve residual ratio {res:.3e} ≥ {RESID_MAX}"
                );
                if self.fills[v].well_conditioned() {
                    let (f, p, _) = ref_lu(&self.ad[v]);
                    let x_ref = lu_solve(&f, &p, &self.bd[v]);
                    let fe = forward_error(&x, &x_ref, E::EPS);
                    assert!(
                        fe < RESID_MAX,
                        "{w}: forward error ratio {fe:.3e} ≥ {RESID_MAX} against the f64 solve"
                    );
                }
            }
        }
    }
}

impl<E: T> DrvRun<E> {
    /// `A`'s buffers bit for bit `want_a` (padding and gaps included).
    fn same_as_factorization(&self, after: &[Vec<E>], what: &str) {
        for (bi, (got, want)) in after.iter().zip(&self.want_a).enumerate() {
            if let Some(p) = (0..got.len()).find(|&p| !same(got[p], want[p])) {
                panic!(
                    "{what}: A buffer {bi} element {p} is {:?}, the factorization alone writes {:?}",
                    got[p].get(),
                    want[p].get()
                );
            }
        }
    }

    /// gesv's factors and pivots.
    fn check_lu(&self, what: &str, exact: bool) {
        let c = &self.c;
        let n = c.n;
        let after = self.a.after();
        self.a
            .only_outputs_changed(&after, n, n, c.lda, &|_, _| true, what);
        let piv = self.piv.as_ref().unwrap();
        let got = piv.now();
        if exact {
            self.same_as_factorization(&after, what);
            if let Some(p) = (0..got.len()).find(|&p| got[p] != self.want_piv[p]) {
                panic!(
                    "{what}: ipiv[{p}] = {}, getrf writes {}",
                    got[p], self.want_piv[p]
                );
            }
            return;
        }
        let sp = if c.form == Form::Single {
            n
        } else {
            c.stride_piv()
        };
        let mut is_piv = vec![false; got.len()];
        for v in 0..form_count(c.form) {
            let mut p0 = vec![];
            for j in 0..n {
                let x = got[v * sp + j];
                is_piv[v * sp + j] = true;
                assert!(
                    x > j as i32 && x <= n as i32,
                    "{what}: entry {v}: ipiv[{j}] = {x}, want a row in [{}, {n}]",
                    j + 1
                );
                p0.push(x as usize - 1);
            }
            let f = self.a.entry(&after, v, n, n, c.lda);
            let res = lu_residual(&self.ad[v], &f, &p0, E::EPS);
            assert!(
                res < RESID_MAX,
                "{what}: entry {v} ({:?}): ‖P A − L U‖ ratio {res:.3e} ≥ {RESID_MAX}",
                self.fills[v]
            );
        }
        for (p, &isp) in is_piv.iter().enumerate() {
            assert!(
                isp || got[p] == PIV_POISON,
                "{what}: ipiv[{p}] is not a pivot of an entry but was written ({})",
                got[p]
            );
        }
    }

    /// posv's factor; the other triangle never written.
    fn check_chol(&self, what: &str, u: Uplo, exact: bool) {
        let c = &self.c;
        let n = c.n;
        let after = self.a.after();
        let is_out = |i: usize, j: usize| match u {
            Uplo::Lower => i >= j,
            Uplo::Upper => i <= j,
        };
        self.a
            .only_outputs_changed(&after, n, n, c.lda, &is_out, what);
        if exact {
            self.same_as_factorization(&after, what);
            return;
        }
        for v in 0..form_count(c.form) {
            if self.want_info[v] != 0 {
                continue;
            }
            let f = self.a.entry(&after, v, n, n, c.lda);
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
            let res = chol_residual(&self.ad[v], &l, E::EPS);
            assert!(
                res < RESID_MAX,
                "{what}: entry {v} ({:?}): ‖A − L Lᴴ‖ ratio {res:.3e} ≥ {RESID_MAX}",
                self.fills[v]
            );
        }
    }

    /// getri's inverse; the pivots read, never written.
    fn check_inverse(&self, what: &str) {
        let c = &self.c;
        let n = c.n;
        let after = self.a.after();
        self.a
            .only_outputs_changed(&after, n, n, c.lda, &|_, _| true, what);
        self.piv.as_ref().unwrap().untouched(what);
        for v in 0..form_count(c.form) {
            if self.want_info[v] != 0 {
                continue;
            }
            let w = format!("{what}: entry {v} ({:?})", self.fills[v]);
            let x = self.a.entry(&after, v, n, n, c.lda);
            if let Some(p) = x.v.iter().position(|&z| !finite(z)) {
                panic!(
                    "{w}: inv({}, {}) = {:?}",
                    p % n.max(1),
                    p / n.max(1),
                    x.v[p]
                );
            }
            let (left, right) = inverse_residuals(&self.ad[v], &x, E::EPS);
            assert!(
                left < RESID_MAX,
                "{w}: ‖inv(A) A − I‖ ratio {left:.3e} ≥ {RESID_MAX}"
            );
            assert!(
                right < RESID_MAX,
                "{w}: ‖A inv(A) − I‖ ratio {right:.3e} ≥ {RESID_MAX}"
            );
        }
    }
}

// ---- running -----------------------------------------------------------------------------

/// Runs `job` on `h`, expects `Success` and checks it (bits of the factorization included).
fn run_checked(h: &mut Handle, job: &mut dyn Job) {
    let what = job.name();
    let st = job.call(h).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(st, Status::Success, "{what}");
    job.check(&what, true);
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

/// Cases of the query and workspace tests: every driver, type and layout, orders about 200
/// (`big`: order 500 too), `info` in host and device memory.
fn jobs(dev: &Device, r: &mut Gen, big: bool) -> Vec<Box<dyn Job>> {
    use Form::{List, Single, Strided};
    use Loc::{Device as D, Host as H};
    let cs = |rt, n, nrhs, form, info| {
        let mut c = DCase::new(rt, n, nrhs).with(form, 1, 2);
        c.gap = 2;
        c.pgap = 1;
        c.info = info;
        c
    };
    let lu = &[Fill::Dominant, Fill::Random][..];
    let lu_sing = &[Fill::Random, Fill::ZeroCol(40, None), Fill::Dominant][..];
    let mut v: Vec<Box<dyn Job>> = vec![];
    if big {
        v.push(Box::new(prepare::<f64>(
            dev,
            r,
            cs(Rt::Gesv, 500, 17, Single, D),
            lu,
        )));
        v.push(Box::new(prepare::<Complex64>(
            dev,
            r,
            cs(Rt::Getri, 500, 0, Single, H),
            lu,
        )));
        v.push(Box::new(prepare::<f64>(
            dev,
            r,
            cs(Rt::Posv(Uplo::Upper), 500, 64, Single, D),
            &[Fill::Hpd],
        )));
    }
    v.push(Box::new(prepare::<f64>(
        dev,
        r,
        cs(Rt::Gesv, 200, 64, Single, H),
        lu,
    )));
    v.push(Box::new(prepare::<Complex32>(
        dev,
        r,
        cs(Rt::Gesv, 129, 2, Strided(3), D),
        lu_sing,
    )));
    v.push(Box::new(prepare::<f32>(
        dev,
        r,
        cs(Rt::Gesv, 65, 17, List(7), H),
        lu_sing,
    )));
    v.push(Box::new(prepare::<f64>(
        dev,
        r,
        cs(Rt::Posv(Uplo::Lower), 200, 17, Single, D),
        &[Fill::Hpd],
    )));
    v.push(Box::new(prepare::<Complex64>(
        dev,
        r,
        cs(Rt::Posv(Uplo::Upper), 129, 1, List(3), H),
        &[Fill::Gram, Fill::NotPd(70, -1.0)],
    )));
    v.push(Box::new(prepare::<f32>(
        dev,
        r,
        cs(Rt::Posv(Uplo::Lower), 65, 64, Strided(7), D),
        &[Fill::Hpd, Fill::Gram, Fill::NotPd(33, -2.0)],
    )));
    v.push(Box::new(prepare::<f64>(
        dev,
        r,
        cs(Rt::Getri, 200, 0, Single, D),
        &[Fill::Random],
    )));
    v.push(Box::new(prepare::<Complex32>(
        dev,
        r,
        cs(Rt::Getri, 129, 0, Strided(2), H),
        lu,
    )));
    v.push(Box::new(prepare::<f32>(
        dev,
        r,
        cs(Rt::Getri, 65, 0, List(7), D),
        lu_sing,
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

fn is_size_or_value(e: &Error) -> bool {
    matches!(e, Error::InvalidSize(_) | Error::InvalidValue(_))
}

fn is_pointer(e: &Error) -> bool {
    matches!(e, Error::InvalidPointer(_))
}

#[path = "drivers/bad_arguments.rs"]
mod bad_arguments;
#[path = "drivers/device_results.rs"]
mod device_results;
#[path = "drivers/gesv.rs"]
mod gesv;
#[path = "drivers/getri.rs"]
mod getri;
#[path = "drivers/posv.rs"]
mod posv;
#[path = "drivers/quick_returns.rs"]
mod quick_returns;
#[path = "drivers/reference.rs"]
mod reference;
use reference::*;
#[path = "drivers/workspaces.rs"]
mod workspaces;
