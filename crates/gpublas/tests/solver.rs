#![allow(
    clippy::too_many_arguments,
    clippy::type_complexity,
    clippy::needless_range_loop
)]
//! The LAPACK routines (`getrf`, `getrf_npvt`, `getrs`, `potrf`, `potrs`, each single,
//! `_batched` and `_strided_batched`) against independent f64 references written here, on both
//! backends (SPEC F1–F3, F5–F10, M6, M8, M9).
//!
//! Checks, with `ε` the element type's machine epsilon and `|re| + |im|` as the magnitude of a
//! complex value:
//! - getrf: `‖P A − L U‖₁ / (max(m, n) ‖A‖₁ ε) < 30` with `P` built from the returned pivots as
//!   sequential interchanges; every pivot in `[j + 1, m]`; on matrices built as
//!   `A = P0 L0 U0` (`|L0(i, j)| ≤ 0.5` below the unit diagonal, `U0`'s diagonal of magnitude in
//!   [1, 2]: each column's pivot beats the others by a factor of 2) the pivots equal both the
//!   construction's and those of a reference partial-pivoting loop; `info` exact (the first
//!   exactly zero `U(i, i)`, 1-based) on exactly singular matrices.
//! - getrf_npvt: `‖A − L U‖₁ / (max(m, n) ‖A‖₁ ε) < 30`, same `info`.
//! - potrf: `‖A − L Lᴴ‖₁ / (n ‖A‖₁ ε) < 30` (or `Uᴴ U`), a real positive diagonal, the
//!   unstored triangle bit-identical, `info = k` when the leading minor of order `k` is broken.
//! - getrs / potrs (factors from the f64 references, rounded to the type): for each column `x`
//!   of `X`, `‖op(A) x − b‖₁ / (n ‖op(A)‖₁ ‖x‖₁ ε) < 30`.
//!
//! Operands are placed in batch layouts (single, lists, strided batches with gaps between the
//! entries) at leading dimensions above the least; everything a call may neither read nor
//! write (padding, gaps, one element past each buffer, the unstored triangle of `potrf`/`potrs`
//! and the pivots' gaps) holds a NaN with a payload of its own and is compared bit for bit
//! afterwards. Pivots and `info` go to host memory or device memory, in rotation.

mod common;

use common::complex::*;
use common::elem::*;
use common::forms::*;
use common::{fixed_handle, handle};
use gpublas::solver;
use gpublas::{
    Complex32, Complex64, Device, DeviceBuffer, Error, Handle, Op, Results, Scalar, Status, Uplo,
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
        (-m, 0.0)
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

/// Where `ipiv` or `info` go.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Loc {
    Host,
    Device,
}

/// What pivot outputs hold before a call (never a valid pivot).
const PIV_POISON: i32 = -7_000_001;
/// What `info` outputs hold before a call.
const INFO_POISON: i32 = -424_242;
/// What an input pivot buffer holds between the entries (a call must not read it).
const PIV_GAP: i32 = -99;

/// An integer result buffer (`ipiv` or `info`) in host or device memory.
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
                "{what}: {:?} integer result {p} changed from {} to {}",
                self.loc, self.before[p], now[p]
            );
        }
    }
}

// ---- test matrices -----------------------------------------------------------------------

/// Columns of the first panel: `Fill::Deficient` is exact up to there.
const PANEL: usize = 32;

/// How a matrix is filled.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fill {
    /// Uniform in [-1, 1) (both parts).
    Random,
    /// Random, and each column diagonally dominant: `|a_jj| = Σ_{i≠j} |a_ij| + [1, 2]`.
    Dominant,
    /// `P0 L0 U0`: well-separated pivots (see `gen_sep`).
    Sep,
    /// `P0 L0 U0` with row and column `k` of `U0` zero: column `k` of `A` is exactly zero
    /// (and a second one, if any): `info = k + 1`.
    ZeroCol(usize, Option<usize>),
    /// `P0 L0 U0` of small dyadic values, row `k` of `U0` zero from its diagonal on but the
    /// column above it kept: column `k` is a combination of the earlier ones, and the elimination
    /// is exact up to that step, so `U(k, k)` is exactly zero (`k < 32`: in the first panel).
    Deficient(usize),
    /// Hermitian, diagonally dominant with a real positive diagonal (HPD).
    Hpd,
    /// `B Bᴴ / n + I / 2`: HPD without dominance.
    Gram,
    /// HPD, then `A(k−1, k−1)` set to the value: the leading minor of order `k` is not
    /// positive definite, the smaller ones are.
    NotPd(usize, f64),
}

/// Uniform random `m × n`.
fn gen_random<E: El>(m: usize, n: usize, r: &mut Gen) -> Dense {
    let mut d = Dense::zeros(m, n);
    d.v.iter_mut().for_each(|x| *x = rnd::<E>(r, 1.0));
    d
}

/// Random with each column's diagonal entry dominating it.
fn gen_dominant<E: El>(m: usize, n: usize, r: &mut Gen) -> Dense {
    let mut d = gen_random::<E>(m, n, r);
    for j in 0..m.min(n) {
        let s: f64 = (0..m).filter(|&i| i != j).map(|i| mag(d.at(i, j))).sum();
        let extra = 1.5 + 0.5 * r.uni();
        let v = with_phase::<E>(r, 2.0 * s + extra);
        d.set(j, j, v);
    }
    d
}

/// `A = P0 L0 U0` (`m × n`) and the 0-based pivot rows that produce it. `P0` is a random
/// sequence of interchanges (none at the `zero` steps); `L0` unit lower with
/// `|re| + |im| ≤ 0.5` below the diagonal, so that partial pivoting picks the intended row by
/// a factor of 2 at least, scaled down with the order to keep `A` well conditioned; `U0` upper,
/// its diagonal of magnitude in [1, 2], entries above scaled with the order. `zero_cols`:
/// row and column of `U0` zero (column of `A` zero); `deficient`: row of `U0` zero from the
/// diagonal on. `exact`: the first `PANEL` columns hold small dyadic numbers, so that the
/// elimination of the first panel is exact in every type.
fn gen_sep<E: El>(
    m: usize,
    n: usize,
    zero_cols: &[usize],
    deficient: &[usize],
    exact: bool,
    pivot: bool,
    r: &mut Gen,
) -> (Dense, Vec<usize>) {
    let k = m.min(n);
    let piv: Vec<usize> = (0..k)
        .map(|j| {
            if !pivot || zero_cols.contains(&j) || deficient.contains(&j) {
                j
            } else {
                j + r.below(m - j)
            }
        })
        .collect();
    let lmax = 0.5f64.min((6.0 / k.max(1) as f64).sqrt());
    let umax = 1.0f64.min(2.0 / (n.max(1) as f64).sqrt());
    // Dyadic values for `exact`: multiples of 1/4 (L, up to 0.5) and 1/2 (U, up to 1).
    let q = |r: &mut Gen, step: f64, max: f64| -> f64 {
        let steps = (max / step).round() as i64;
        (r.below(2 * steps as usize + 1) as i64 - steps) as f64 * step
    };
    let mut f = Dense::zeros(m, n);
    for j in 0..n {
        // Only the first panel's columns need to be exact; the others stay well conditioned.
        let dy = exact && j < PANEL;
        for i in 0..m {
            let v = if i > j {
                if j >= k {
                    ZERO
                } else if dy {
                    if E::CPLX {
                        (q(r, 0.25, 0.25), q(r, 0.25, 0.25))
                    } else {
                        (q(r, 0.25, 0.5), 0.0)
                    }
                } else if E::CPLX {
                    (0.5 * lmax * r.uni(), 0.5 * lmax * r.uni())
                } else {
                    (lmax * r.uni(), 0.0)
                }
            } else if i == j {
                if dy {
                    let m = [1.0, 2.0][r.below(2)];
                    let s = [1.0, -1.0][r.below(2)];
                    if E::CPLX && r.below(2) == 1 {
                        (0.0, m * s)
                    } else {
                        (m * s, 0.0)
                    }
                } else {
                    let m = 1.5 + 0.5 * r.uni();
                    with_phase::<E>(r, m)
                }
            } else if dy {
                if E::CPLX {
                    (q(r, 0.5, 0.5), q(r, 0.5, 0.5))
                } else {
                    (q(r, 0.5, 1.0), 0.0)
                }
            } else {
                rnd::<E>(r, umax)
            };
            f.set(i, j, v);
        }
    }
    for &z in zero_cols.iter().chain(deficient) {
        if z >= k {
            continue;
        }
        for j in z..n {
            f.set(z, j, ZERO);
        }
    }
    for &z in zero_cols {
        if z < k {
            for i in 0..z {
                f.set(i, z, ZERO);
            }
        }
    }
    let mut a = lu_product(&f);
    for j in (0..k).rev() {
        a.swap_rows(j, piv[j]);
    }
    (a.rounded::<E>(), piv)
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

/// `B Bᴴ / n + I / 2` for a random `B`, rounded to the type (still Hermitian).
fn gen_gram<E: El>(n: usize, r: &mut Gen) -> Dense {
    let b = gen_random::<E>(n, n, r);
    let mut d = Dense::zeros(n, n);
    for j in 0..n {
        for i in j..n {
            let mut s = ZERO;
            for l in 0..n {
                s = cadd(s, cmul(b.at(i, l), conj(b.at(j, l))));
            }
            s = (s.0 / n as f64, s.1 / n as f64);
            if i == j {
                s = (s.0 + 0.5, 0.0);
            }
            let s = round_to::<E>(s);
            d.set(i, j, s);
            d.set(j, i, conj(s));
        }
    }
    d
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

// ---- factorizations ----------------------------------------------------------------------

/// Which factorization.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Rt {
    Getrf,
    Npvt,
    Potrf(Uplo),
}

/// One factorization call's shape, layout and result routing.
#[derive(Clone, Copy, Debug)]
struct FCase {
    rt: Rt,
    m: usize,
    n: usize,
    lda: usize,
    form: Form,
    /// Elements between strided entries.
    gap: usize,
    /// Pivots between entries beyond `min(m, n)`.
    pgap: usize,
    piv: Loc,
    info: Loc,
}

impl FCase {
    fn new(rt: Rt, m: usize, n: usize) -> FCase {
        FCase {
            rt,
            m,
            n,
            lda: m.max(1),
            form: Form::Single,
            gap: 0,
            pgap: 0,
            piv: Loc::Device,
            info: Loc::Host,
        }
    }

    /// Padding, layout, gaps and routing in rotation with the case counter `t`.
    fn rotate(rt: Rt, m: usize, n: usize, t: usize) -> FCase {
        let form = if m.max(n) > 129 {
            BIG_FORMS[t % BIG_FORMS.len()]
        } else {
            FORMS[t % FORMS.len()]
        };
        FCase {
            rt,
            m,
            n,
            lda: m.max(1) + [1, 3, 0, 2][t % 4],
            form,
            gap: GAPS[(t / 2) % 3],
            pgap: [0, 1, 3][(t / 3) % 3],
            piv: [Loc::Device, Loc::Host][t % 2],
            info: [Loc::Host, Loc::Device, Loc::Device][t % 3],
        }
    }

    fn with(mut self, form: Form, lda_extra: usize) -> FCase {
        self.form = form;
        self.lda = self.m.max(1) + lda_extra;
        self
    }

    fn k(&self) -> usize {
        self.m.min(self.n)
    }

    fn stride_piv(&self) -> usize {
        self.k() + self.pgap
    }
}

/// A factorization ready to run: its operands placed, the logical matrices behind them and
/// what each entry must give.
struct FactRun<E: T> {
    c: FCase,
    a: Placed<E>,
    ipiv: Option<Ints>,
    info: Ints,
    ad: Vec<Dense>,
    fills: Vec<Fill>,
    want_info: Vec<i32>,
    /// 0-based pivot rows each entry must give (well-separated matrices).
    want_piv: Vec<Option<Vec<usize>>>,
}

/// The logical matrix of a fill, the pivots it must give (if determined) and its `info`.
fn gen_fill<E: El>(
    rt: Rt,
    m: usize,
    n: usize,
    fill: Fill,
    r: &mut Gen,
) -> (Dense, Option<Vec<usize>>, i32) {
    let pivot = rt == Rt::Getrf;
    match fill {
        Fill::Random => (gen_random::<E>(m, n, r), None, 0),
        Fill::Dominant => (gen_dominant::<E>(m, n, r), None, 0),
        Fill::Sep | Fill::ZeroCol(..) | Fill::Deficient(_) => {
            let (zc, df, exact): (Vec<usize>, Vec<usize>, bool) = match fill {
                Fill::ZeroCol(a, b) => (std::iter::once(a).chain(b).collect(), vec![], false),
                Fill::Deficient(k) => (vec![], vec![k], true),
                _ => (vec![], vec![], false),
            };
            let (a, piv) = gen_sep::<E>(m, n, &zc, &df, exact, pivot, r);
            let want = zc
                .iter()
                .chain(&df)
                .filter(|&&z| z < m.min(n))
                .map(|&z| z + 1)
                .min()
                .unwrap_or(0);
            // The reference loop must agree with the construction (a check of the test).
            let (_, rp, ri) = ref_lu(&a, pivot);
            assert_eq!(ri, want, "{} {m}x{n} {fill:?}: reference info", E::NAME);
            assert_eq!(rp, piv, "{} {m}x{n} {fill:?}: reference pivots", E::NAME);
            (a, Some(piv), want as i32)
        }
        Fill::Hpd | Fill::Gram | Fill::NotPd(..) => {
            let mut a = if fill == Fill::Gram {
                gen_gram::<E>(n, r)
            } else {
                gen_hpd::<E>(n, r)
            };
            let mut want = 0;
            if let Fill::NotPd(k, v) = fill {
                a.set(k - 1, k - 1, (v, 0.0));
                want = k;
            }
            if n <= 300 || want != 0 {
                let (_, ri) = ref_chol(&a);
                assert_eq!(ri, want, "{} n={n} {fill:?}: reference info", E::NAME);
            }
            (a, None, want as i32)
        }
    }
}

/// Operands for `c`, entry `v` filled with `fills[v % len]`.
fn prepare_fact<E: T>(dev: &Device, r: &mut Gen, c: FCase, fills: &[Fill]) -> FactRun<E> {
    let count = form_count(c.form);
    let tri = match c.rt {
        Rt::Potrf(u) => Some(u),
        _ => None,
    };
    let (mut st, mut ad, mut want_info, mut want_piv, mut fl) =
        (vec![], vec![], vec![], vec![], vec![]);
    for v in 0..count {
        let fill = fills[v % fills.len()];
        let (a, piv, info) = gen_fill::<E>(c.rt, c.m, c.n, fill, r);
        st.push(store::<E>(&a, c.lda, tri));
        ad.push(a);
        want_info.push(info);
        want_piv.push(piv);
        fl.push(fill);
    }
    let a = Placed::with_gap(dev, c.form, span(c.m, c.n, c.lda), c.gap, &st, E::pnan());
    let k = c.k();
    let ipiv = (c.rt == Rt::Getrf).then(|| {
        let len = match c.form {
            Form::Single => k + 1,
            _ => count * c.stride_piv() + 1,
        };
        Ints::new(dev, c.piv, vec![PIV_POISON; len])
    });
    let info = Ints::new(dev, c.info, vec![INFO_POISON; count + 1]);
    FactRun {
        c,
        a,
        ipiv,
        info,
        ad,
        fills: fl,
        want_info,
        want_piv,
    }
}

/// Runs the factorization `c` on `a` in its layout.
fn fact_call<E: T>(
    h: &mut Handle,
    c: &FCase,
    a: &mut Placed<E>,
    ipiv: Option<&mut Ints>,
    info: &mut Ints,
) -> Result<Status, Error> {
    let (m, n, lda, sp) = (c.m, c.n, c.lda, c.stride_piv());
    let sa = a.stride;
    match (c.rt, a.form) {
        (Rt::Getrf, Form::Single) => solver::getrf(
            h,
            m,
            n,
            a.one_mut(),
            lda,
            ipiv.unwrap().results(),
            info.results(),
        ),
        (Rt::Getrf, Form::List(_)) => solver::getrf_batched(
            h,
            m,
            n,
            &mut a.muts(),
            lda,
            ipiv.unwrap().results(),
            sp,
            info.results(),
        ),
        (Rt::Getrf, Form::Strided(count)) => solver::getrf_strided_batched(
            h,
            m,
            n,
            a.one_mut(),
            lda,
            sa,
            ipiv.unwrap().results(),
            sp,
            info.results(),
            count,
        ),
        (Rt::Npvt, Form::Single) => solver::getrf_npvt(h, m, n, a.one_mut(), lda, info.results()),
        (Rt::Npvt, Form::List(_)) => {
            solver::getrf_npvt_batched(h, m, n, &mut a.muts(), lda, info.results())
        }
        (Rt::Npvt, Form::Strided(count)) => {
            solver::getrf_npvt_strided_batched(h, m, n, a.one_mut(), lda, sa, info.results(), count)
        }
        (Rt::Potrf(u), Form::Single) => solver::potrf(h, u, n, a.one_mut(), lda, info.results()),
        (Rt::Potrf(u), Form::List(_)) => {
            solver::potrf_batched(h, u, n, &mut a.muts(), lda, info.results())
        }
        (Rt::Potrf(u), Form::Strided(count)) => {
            solver::potrf_strided_batched(h, u, n, a.one_mut(), lda, sa, info.results(), count)
        }
    }
}

/// A call ready to run, checked the same way by the query, workspace and batch tests.
trait Job {
    fn call(&mut self, h: &mut Handle) -> Result<Status, Error>;
    /// The same call with placeholders for every device operand (host results stay host).
    fn call_placeholders(&self, h: &mut Handle) -> Result<Status, Error>;
    /// The answer is right and nothing else changed.
    fn check(&self, what: &str);
    /// Nothing changed.
    fn untouched(&self, what: &str);
    /// Uploads the original operands again.
    fn reset(&mut self);
    fn name(&self) -> String;
    /// Bytes of the results of one batch entry that go to host memory (pivots, `info`).
    fn host_result_bytes(&self) -> usize;
}

impl<E: T> Job for FactRun<E> {
    fn call(&mut self, h: &mut Handle) -> Result<Status, Error> {
        fact_call(h, &self.c, &mut self.a, self.ipiv.as_mut(), &mut self.info)
    }

    fn call_placeholders(&self, h: &mut Handle) -> Result<Status, Error> {
        let mut a = self.a.placeholders();
        let mut ipiv = self.ipiv.as_ref().map(|p| p.placeholder());
        let mut info = self.info.placeholder();
        fact_call(h, &self.c, &mut a, ipiv.as_mut(), &mut info)
    }

    fn name(&self) -> String {
        let mut fills = self.fills.clone();
        fills.dedup();
        format!("{} {:?} {fills:?}", E::NAME, self.c)
    }

    fn host_result_bytes(&self) -> usize {
        let piv = if self.ipiv.is_some() && self.c.piv == Loc::Host {
            self.c.k()
        } else {
            0
        };
        4 * (piv + usize::from(self.c.info == Loc::Host))
    }

    fn reset(&mut self) {
        self.a.reset();
        if let Some(p) = &mut self.ipiv {
            p.reset();
        }
        self.info.reset();
    }

    fn untouched(&self, what: &str) {
        self.a.untouched(what);
        if let Some(p) = &self.ipiv {
            p.untouched(&format!("{what} (ipiv)"));
        }
        self.info.untouched(&format!("{what} (info)"));
    }

    fn check(&self, what: &str) {
        let c = &self.c;
        let (m, n, k) = (c.m, c.n, c.k());
        let count = form_count(c.form);
        let after = self.a.after();
        let tri = match c.rt {
            Rt::Potrf(u) => Some(u),
            _ => None,
        };
        let is_out = |i: usize, j: usize| match tri {
            None => true,
            Some(Uplo::Lower) => i >= j,
            Some(Uplo::Upper) => i <= j,
        };
        self.a
            .only_outputs_changed(&after, m, n, c.lda, &is_out, what);
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
        // Pivots: 1-based, row j interchanged with a row at or below it; the gaps untouched.
        let mut pivs: Vec<Vec<usize>> = vec![];
        if let Some(ip) = &self.ipiv {
            let got = ip.now();
            let sp = c.stride_piv();
            let mut is_piv = vec![false; got.len()];
            for v in 0..count {
                let mut p0 = vec![];
                for j in 0..k {
                    let x = got[v * sp + j];
                    is_piv[v * sp + j] = true;
                    assert!(
                        x > j as i32 && x <= m as i32,
                        "{what}: entry {v}: ipiv[{j}] = {x}, want a row in [{}, {m}]",
                        j + 1
                    );
                    p0.push(x as usize - 1);
                }
                if let Some(w) = &self.want_piv[v] {
                    if let Some(j) = (0..k).find(|&j| p0[j] != w[j]) {
                        panic!(
                            "{what}: entry {v} ({:?}): ipiv[{j}] = {}, the reference pivots on row {} (1-based)",
                            self.fills[v],
                            p0[j] + 1,
                            w[j] + 1
                        );
                    }
                }
                pivs.push(p0);
            }
            for (p, &isp) in is_piv.iter().enumerate() {
                assert!(
                    isp || got[p] == PIV_POISON,
                    "{what}: ipiv[{p}] is not a pivot of an entry but was written ({})",
                    got[p]
                );
            }
        }
        // The factors.
        for v in 0..count {
            let f = self.a.entry(&after, v, m, n, c.lda);
            let res = match c.rt {
                Rt::Getrf => lu_residual(&self.ad[v], &f, Some(&pivs[v]), E::EPS),
                Rt::Npvt => lu_residual(&self.ad[v], &f, None, E::EPS),
                Rt::Potrf(u) => {
                    if self.want_info[v] != 0 {
                        continue;
                    }
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
                    chol_residual(&self.ad[v], &l, E::EPS)
                }
            };
            assert!(
                res < RESID_MAX,
                "{what}: entry {v} ({:?}): factorization residual ratio {res:.3e} ≥ {RESID_MAX}",
                self.fills[v]
            );
        }
    }
}

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

/// Whether this process runs under compute-sanitizer (from what the tool exports to it).
fn under_sanitizer() -> bool {
    std::env::vars().any(|(k, v)| {
        k.starts_with("NV_SANITIZER_")
            || (k == "CUDA_INJECTION64_PATH" && v.to_lowercase().contains("sanitizer"))
    })
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

// ---- solves --------------------------------------------------------------------------------

/// Which solve.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Srt {
    Getrs(Op),
    Potrs(Uplo),
}

/// One solve call's shape and layout.
#[derive(Clone, Copy, Debug)]
struct SCase {
    rt: Srt,
    n: usize,
    nrhs: usize,
    lda: usize,
    ldb: usize,
    form: Form,
    gap: usize,
    pgap: usize,
}

impl SCase {
    fn new(rt: Srt, n: usize, nrhs: usize) -> SCase {
        SCase {
            rt,
            n,
            nrhs,
            lda: n.max(1),
            ldb: n.max(1),
            form: Form::Single,
            gap: 0,
            pgap: 0,
        }
    }

    fn rotate(rt: Srt, n: usize, nrhs: usize, t: usize) -> SCase {
        let form = if n > 129 {
            BIG_FORMS[t % BIG_FORMS.len()]
        } else {
            FORMS[t % FORMS.len()]
        };
        SCase {
            rt,
            n,
            nrhs,
            lda: n.max(1) + [2, 0, 1, 3][t % 4],
            ldb: n.max(1) + [1, 3, 0][t % 3],
            form,
            gap: GAPS[(t / 2) % 3],
            pgap: [1, 0, 3][(t / 3) % 3],
        }
    }

    fn with(mut self, form: Form, lda_extra: usize, ldb_extra: usize) -> SCase {
        self.form = form;
        self.lda = self.n.max(1) + lda_extra;
        self.ldb = self.n.max(1) + ldb_extra;
        self
    }

    fn stride_piv(&self) -> usize {
        self.n + self.pgap
    }
}

/// A solve ready to run: factors from the f64 references, rounded to the type.
struct SolveRun<E: T> {
    c: SCase,
    a: Placed<E>,
    /// Pivots (getrs) and what was uploaded into them.
    piv: Option<(DeviceBuffer<i32>, Vec<i32>)>,
    b: Placed<E>,
    /// The matrices the factors are of, and the right-hand sides.
    ad: Vec<Dense>,
    bd: Vec<Dense>,
    fill: Fill,
}

/// The pivot buffer of `count` entries `stride` apart (gaps hold `PIV_GAP`), one more element.
fn piv_buffer(entries: &[Vec<i32>], single: bool, stride: usize) -> Vec<i32> {
    if single {
        let mut v = entries[0].clone();
        v.push(PIV_GAP);
        return v;
    }
    let mut v = vec![PIV_GAP; entries.len() * stride + 1];
    for (e, p) in entries.iter().enumerate() {
        v[e * stride..e * stride + p.len()].copy_from_slice(p);
    }
    v
}

fn prepare_solve<E: T>(dev: &Device, r: &mut Gen, c: SCase, fill: Fill) -> SolveRun<E> {
    let count = form_count(c.form);
    let n = c.n;
    let (mut ast, mut ad, mut bst, mut bd, mut pivs) = (vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..count {
        match c.rt {
            Srt::Getrs(_) => {
                let a = match fill {
                    Fill::Dominant => gen_dominant::<E>(n, n, r),
                    Fill::Sep => gen_sep::<E>(n, n, &[], &[], false, true, r).0,
                    _ => gen_random::<E>(n, n, r),
                };
                let (f, p, info) = ref_lu(&a, true);
                assert_eq!(info, 0, "test matrix singular");
                ast.push(store::<E>(&f.rounded::<E>(), c.lda, None));
                pivs.push(p.iter().map(|&x| x as i32 + 1).collect::<Vec<i32>>());
                ad.push(a);
            }
            Srt::Potrs(u) => {
                let a = if fill == Fill::Gram {
                    gen_gram::<E>(n, r)
                } else {
                    gen_hpd::<E>(n, r)
                };
                let (l, info) = ref_chol(&a);
                assert_eq!(info, 0, "test matrix not positive definite");
                let f = match u {
                    Uplo::Lower => l,
                    Uplo::Upper => l.op(Op::C),
                };
                ast.push(store::<E>(&f.rounded::<E>(), c.lda, Some(u)));
                ad.push(a);
            }
        }
        let b = gen_random::<E>(n, c.nrhs, r);
        bst.push(store::<E>(&b, c.ldb, None));
        bd.push(b);
    }
    let a = Placed::with_gap(dev, c.form, span(n, n, c.lda), c.gap, &ast, E::pnan());
    let b = Placed::with_gap(
        dev,
        c.form,
        span(n, c.nrhs, c.ldb),
        (c.gap + 1) % 8,
        &bst,
        E::pnan(),
    );
    let piv = matches!(c.rt, Srt::Getrs(_)).then(|| {
        let v = if count == 0 {
            vec![PIV_GAP]
        } else {
            piv_buffer(&pivs, c.form == Form::Single, c.stride_piv())
        };
        (dev.upload(&v).unwrap(), v)
    });
    SolveRun {
        c,
        a,
        piv,
        b,
        ad,
        bd,
        fill,
    }
}

fn solve_call<E: T>(
    h: &mut Handle,
    c: &SCase,
    a: &Placed<E>,
    piv: Option<&DeviceBuffer<i32>>,
    b: &mut Placed<E>,
) -> Result<Status, Error> {
    let (n, nrhs, lda, ldb, sp) = (c.n, c.nrhs, c.lda, c.ldb, c.stride_piv());
    let (sa, sb) = (a.stride, b.stride);
    match (c.rt, b.form) {
        (Srt::Getrs(op), Form::Single) => {
            solver::getrs(h, op, n, nrhs, a.one(), lda, piv.unwrap(), b.one_mut(), ldb)
        }
        (Srt::Getrs(op), Form::List(_)) => solver::getrs_batched(
            h,
            op,
            n,
            nrhs,
            &a.refs(),
            lda,
            piv.unwrap(),
            sp,
            &mut b.muts(),
            ldb,
        ),
        (Srt::Getrs(op), Form::Strided(count)) => solver::getrs_strided_batched(
            h,
            op,
            n,
            nrhs,
            a.one(),
            lda,
            sa,
            piv.unwrap(),
            sp,
            b.one_mut(),
            ldb,
            sb,
            count,
        ),
        (Srt::Potrs(u), Form::Single) => {
            solver::potrs(h, u, n, nrhs, a.one(), lda, b.one_mut(), ldb)
        }
        (Srt::Potrs(u), Form::List(_)) => {
            solver::potrs_batched(h, u, n, nrhs, &a.refs(), lda, &mut b.muts(), ldb)
        }
        (Srt::Potrs(u), Form::Strided(count)) => solver::potrs_strided_batched(
            h,
            u,
            n,
            nrhs,
            a.one(),
            lda,
            sa,
            b.one_mut(),
            ldb,
            sb,
            count,
        ),
    }
}

impl<E: T> Job for SolveRun<E> {
    fn call(&mut self, h: &mut Handle) -> Result<Status, Error> {
        solve_call(
            h,
            &self.c,
            &self.a,
            self.piv.as_ref().map(|p| &p.0),
            &mut self.b,
        )
    }

    fn call_placeholders(&self, h: &mut Handle) -> Result<Status, Error> {
        let a = self.a.placeholders();
        let mut b = self.b.placeholders();
        let piv = self
            .piv
            .as_ref()
            .map(|p| DeviceBuffer::<i32>::placeholder(p.1.len()));
        solve_call(h, &self.c, &a, piv.as_ref(), &mut b)
    }

    fn name(&self) -> String {
        format!("{} {:?} {:?}", E::NAME, self.c, self.fill)
    }

    fn host_result_bytes(&self) -> usize {
        0
    }

    fn reset(&mut self) {
        self.b.reset();
    }

    fn untouched(&self, what: &str) {
        self.b.untouched(what);
        self.inputs_untouched(what);
    }

    fn check(&self, what: &str) {
        let c = &self.c;
        let after = self.b.after();
        self.b
            .only_outputs_changed(&after, c.n, c.nrhs, c.ldb, &|_, _| true, what);
        self.inputs_untouched(what);
        let op = match c.rt {
            Srt::Getrs(op) => op,
            Srt::Potrs(_) => Op::N,
        };
        for v in 0..form_count(c.form) {
            let x = self.b.entry(&after, v, c.n, c.nrhs, c.ldb);
            let res = solve_residual(&self.ad[v].op(op), &x, &self.bd[v], E::EPS);
            assert!(
                res < RESID_MAX,
                "{what}: entry {v}: solve residual ratio {res:.3e} ≥ {RESID_MAX}"
            );
        }
    }
}

impl<E: T> SolveRun<E> {
    fn inputs_untouched(&self, what: &str) {
        self.a.untouched(&format!("{what} (A)"));
        if let Some((buf, want)) = &self.piv {
            let got = buf.to_vec().unwrap();
            assert_eq!(&got, want, "{what}: the input pivots changed");
        }
    }
}

/// Sizes where blocking changes (panel width 32, recursion at powers of two times 32, trsm
/// leaves of 128).
const SIZES: &[usize] = &[
    0, 1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 257, 500,
];

/// The subset the other types run.
const SUB: &[usize] = &[1, 2, 31, 32, 33, 64, 65, 128, 129, 257];

/// Rectangular shapes (m > n and m < n).
const RECT: &[(usize, usize)] = &[
    (2, 1),
    (1, 2),
    (33, 31),
    (31, 33),
    (65, 32),
    (32, 65),
    (129, 64),
    (64, 129),
    (257, 128),
    (127, 255),
    (500, 129),
    (129, 500),
];

const RECT_SUB: &[(usize, usize)] = &[(2, 1), (33, 31), (32, 65), (129, 64), (64, 257)];

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

/// Cases of the query, workspace and batch tests: every routine, type and layout.
fn jobs(dev: &Device, r: &mut Gen, big: bool) -> Vec<Box<dyn Job>> {
    let mut v: Vec<Box<dyn Job>> = vec![];
    let f = |rt, m, n, form, pl, il| {
        let mut c = FCase::new(rt, m, n).with(form, 1);
        c.piv = pl;
        c.info = il;
        c.gap = 2;
        c.pgap = 1;
        c
    };
    use Form::{List, Single, Strided};
    use Loc::{Device as D, Host as H};
    let s = if big { 500 } else { 257 };
    v.push(Box::new(prepare_fact::<f64>(
        dev,
        r,
        f(Rt::Getrf, s, s, Single, D, D),
        &[Fill::Sep],
    )));
    v.push(Box::new(prepare_fact::<f64>(
        dev,
        r,
        f(Rt::Getrf, 129, 129, Single, H, H),
        &[Fill::Sep],
    )));
    v.push(Box::new(prepare_fact::<f64>(
        dev,
        r,
        f(Rt::Getrf, 257, 129, Strided(3), D, H),
        &[Fill::Sep, Fill::ZeroCol(40, None)],
    )));
    v.push(Box::new(prepare_fact::<Complex32>(
        dev,
        r,
        f(Rt::Getrf, 65, 129, List(2), H, D),
        &[Fill::Sep],
    )));
    v.push(Box::new(prepare_fact::<f32>(
        dev,
        r,
        f(Rt::Getrf, 65, 65, List(7), D, D),
        &[Fill::Sep, Fill::ZeroCol(33, None)],
    )));
    v.push(Box::new(prepare_fact::<Complex64>(
        dev,
        r,
        f(Rt::Getrf, 33, 33, Strided(7), H, H),
        &[Fill::Sep],
    )));
    v.push(Box::new(prepare_fact::<f64>(
        dev,
        r,
        f(Rt::Npvt, s, s, Single, D, H),
        &[Fill::Dominant],
    )));
    v.push(Box::new(prepare_fact::<Complex64>(
        dev,
        r,
        f(Rt::Npvt, 129, 65, Strided(3), D, D),
        &[Fill::Dominant],
    )));
    v.push(Box::new(prepare_fact::<f64>(
        dev,
        r,
        f(Rt::Potrf(Uplo::Lower), s, s, Single, D, D),
        &[Fill::Hpd],
    )));
    v.push(Box::new(prepare_fact::<f64>(
        dev,
        r,
        f(Rt::Potrf(Uplo::Upper), 129, 129, Strided(3), D, H),
        &[Fill::Hpd, Fill::NotPd(70, -1.0)],
    )));
    v.push(Box::new(prepare_fact::<Complex32>(
        dev,
        r,
        f(Rt::Potrf(Uplo::Lower), 65, 65, List(7), D, D),
        &[Fill::Gram],
    )));
    let sc = |rt, n, nrhs, form| {
        let mut c = SCase::new(rt, n, nrhs).with(form, 1, 2);
        c.gap = 1;
        c.pgap = 2;
        c
    };
    v.push(Box::new(prepare_solve::<f64>(
        dev,
        r,
        sc(Srt::Getrs(Op::N), s, 1, Single),
        Fill::Random,
    )));
    v.push(Box::new(prepare_solve::<f64>(
        dev,
        r,
        sc(Srt::Getrs(Op::T), 129, 65, Strided(3)),
        Fill::Random,
    )));
    v.push(Box::new(prepare_solve::<Complex64>(
        dev,
        r,
        sc(Srt::Getrs(Op::C), 65, 7, List(7)),
        Fill::Random,
    )));
    v.push(Box::new(prepare_solve::<f32>(
        dev,
        r,
        sc(Srt::Getrs(Op::N), 129, 33, List(2)),
        Fill::Dominant,
    )));
    v.push(Box::new(prepare_solve::<f64>(
        dev,
        r,
        sc(Srt::Potrs(Uplo::Upper), s, 3, Single),
        Fill::Hpd,
    )));
    v.push(Box::new(prepare_solve::<Complex32>(
        dev,
        r,
        sc(Srt::Potrs(Uplo::Lower), 129, 17, Strided(3)),
        Fill::Hpd,
    )));
    v.push(Box::new(prepare_solve::<f64>(
        dev,
        r,
        sc(Srt::Potrs(Uplo::Lower), 65, 2, List(7)),
        Fill::Gram,
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

#[path = "solver/bad_arguments.rs"]
mod bad_arguments;
#[path = "solver/device_results.rs"]
mod device_results;
#[path = "solver/factorizations.rs"]
mod factorizations;
#[path = "solver/info.rs"]
mod info;
#[path = "solver/large.rs"]
mod large;
#[path = "solver/preallocate.rs"]
mod preallocate;
#[path = "solver/quick_returns.rs"]
mod quick_returns;
#[path = "solver/references.rs"]
mod references;
use references::*;
#[path = "solver/small_workspaces.rs"]
mod small_workspaces;
#[path = "solver/solves.rs"]
mod solves;
