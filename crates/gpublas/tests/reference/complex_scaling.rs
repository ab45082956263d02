//! Complex arithmetic near overflow and underflow (issue 27 item 4, SPEC F3): the complex
//! solves (`trsv`, `trsm`, `trtri`, `getrf` + `getrs`, `potrf` + `potrs`, single, `_batched`
//! and `_strided_batched`) on matrices scaled by `s` near the ends of the range
//! (`Complex64`: 1e±150, 1e±300; `Complex32`: 1e±18, 1e±35), where the textbook complex
//! division `a conj(b) / |b|²` overflows or underflows in `|b|²` and returns NaN; the
//! issue's one-element example; the host's range-reduced division itself; and the host's
//! floating-point exception flags against those reference BLAS raises.
//!
//! Operands are `s` times well-conditioned ones (triangles: diagonal of magnitude in [1, 2]
//! with a random phase, the rest in [-1, 1] / order; right-hand sides `s` times values in
//! [-1, 1]), so solutions are of order one and every intermediate of a sound algorithm is in
//! range. Each result is checked in f64 on the operands divided back by `s` (1 ulp of
//! perturbation): the residual `‖op(A) x − b‖₁ / (‖op(A)‖₁ ‖x‖₁ ε max(n, 1)) < 30` per
//! right-hand side (LAPACK's test threshold, `|re| + |im|` as the magnitude), and closeness
//! (within 1000 n ε) to a reference solution computed here by plain substitution or
//! elimination with the test's own Smith division. Batched forms take four entries, one per
//! scale. `getrf` factors dense matrices (pivoting happens); `potrs` also runs on a factor
//! given scaled by `s`, since a factor potrf writes is only of order `√s`.
//!
//! Flags (host only, a handle on one thread so that every operation runs on the test's
//! thread): read with the C library's `fetestexcept`. Some of what they catch only happens in
//! optimized builds of the library (an optimizer computing a branch's division before the
//! branch, or two divisions in one vector instruction whose unused lanes divide garbage), so
//! they are worth running with `--release` too.

use crate::common;
use crate::common::complex::{cadd, cmul, conj, csub, finite, mag, C, ONE, ZERO};
use gpublas::{
    blas1, blas2, blas3, solver, Coef, Complex32, Complex64, Device, DeviceBuffer, Diag, Element,
    Handle, Op, Results, Scalar, Side, Uplo,
};

// ---- complex arithmetic in f64 (the reference; the rest is in common::complex) -------------

fn cscale(a: C, r: f64) -> C {
    (a.0 * r, a.1 * r)
}
/// Smith's division: the ratio of the smaller part of `b` to the larger replaces `|b|²`.
fn cdiv(a: C, b: C) -> C {
    if b.0.abs() >= b.1.abs() {
        let r = b.1 / b.0;
        let d = b.0 + b.1 * r;
        ((a.0 + a.1 * r) / d, (a.1 - a.0 * r) / d)
    } else {
        let r = b.0 / b.1;
        let d = b.1 + b.0 * r;
        ((a.0 * r + a.1) / d, (a.1 * r - a.0) / d)
    }
}

// ---- the element types, seen from the test side ------------------------------------------

/// The complex element types: built from and read as (re, im) in f64.
trait Cx: Scalar + Element + Copy + std::fmt::Debug {
    /// Machine epsilon.
    const EPS: f64;
    const NAME: &'static str;
    /// The scales operands are multiplied by: two inside the square root of the range (where
    /// the textbook division still works) and two past it.
    const SCALES: [f64; 4];
    fn make(c: C) -> Self;
    fn get(self) -> C;
}

impl Cx for Complex64 {
    const EPS: f64 = f64::EPSILON;
    const NAME: &'static str = "c64";
    const SCALES: [f64; 4] = [1e150, 1e-150, 1e300, 1e-300];
    fn make(c: C) -> Self {
        Complex64::new(c.0, c.1)
    }
    fn get(self) -> C {
        (self.re, self.im)
    }
}

impl Cx for Complex32 {
    const EPS: f64 = f32::EPSILON as f64;
    const NAME: &'static str = "c32";
    const SCALES: [f64; 4] = [1e18, 1e-18, 1e35, 1e-35];
    fn make(c: C) -> Self {
        Complex32::new(c.0 as f32, c.1 as f32)
    }
    fn get(self) -> C {
        (self.re as f64, self.im as f64)
    }
}

/// Orders that cross the kernels' blocks (32-row leaves, 64-row tiles, 128-row inverses).
const SIZES: [usize; 6] = [1, 2, 3, 33, 65, 130];

/// A seeded SplitMix64 generator: deterministic, and fast in debug builds.
struct Gen(u64);

impl Gen {
    fn new(seed: u64) -> Gen {
        Gen(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x2545_f491_4f6c_dd1d)
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [-1, 1).
    fn uni(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (2.0 / (1u64 << 53) as f64) - 1.0
    }
    /// Both parts uniform in [-1, 1) times `s`.
    fn c(&mut self, s: f64) -> C {
        (self.uni() * s, self.uni() * s)
    }
    /// Magnitude `m` with a random phase.
    fn phase(&mut self, m: f64) -> C {
        let t = std::f64::consts::PI * self.uni();
        (m * t.cos(), m * t.sin())
    }
}

// ---- dense matrices in f64 ---------------------------------------------------------------

/// A column-major matrix of (re, im).
#[derive(Clone, Debug)]
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
    /// `op(self)`.
    fn op(&self, op: Op) -> Dense {
        if op == Op::N {
            return self.clone();
        }
        let mut t = Dense::zeros(self.c, self.r);
        for j in 0..self.c {
            for i in 0..self.r {
                let x = self.at(i, j);
                t.set(j, i, if op == Op::C { conj(x) } else { x });
            }
        }
        t
    }
    fn mul(&self, b: &Dense) -> Dense {
        let mut p = Dense::zeros(self.r, b.c);
        for j in 0..b.c {
            for k in 0..self.c {
                let bkj = b.at(k, j);
                for i in 0..self.r {
                    p.v[i + j * self.r] = cadd(p.v[i + j * self.r], cmul(self.at(i, k), bkj));
                }
            }
        }
        p
    }
    /// The largest column sum of magnitudes.
    fn norm1(&self) -> f64 {
        (0..self.c)
            .map(|j| (0..self.r).map(|i| mag(self.at(i, j))).sum::<f64>())
            .fold(0.0, f64::max)
    }
    fn scaled(&self, r: f64) -> Dense {
        Dense {
            r: self.r,
            c: self.c,
            v: self.v.iter().map(|&x| cscale(x, r)).collect(),
        }
    }
    /// The element type's values of this matrix, column-major at leading dimension `r`.
    fn to<E: Cx>(&self) -> Vec<E> {
        self.v.iter().map(|&x| E::make(x)).collect()
    }
    fn from<E: Cx>(r: usize, c: usize, v: &[E]) -> Dense {
        Dense {
            r,
            c,
            v: v[..r * c].iter().map(|x| x.get()).collect(),
        }
    }
}

/// The `uplo` triangle of an order-`n` matrix scaled by `s`: a diagonal of magnitude in
/// [1, 2] with a random phase, the rest in [-1, 1] / n; the other triangle NaN (never read).
fn triangle(g: &mut Gen, n: usize, uplo: Uplo, s: f64) -> Dense {
    let mut a = Dense::zeros(n, n);
    for j in 0..n {
        for i in 0..n {
            let x = if i == j {
                let m = 1.0 + 0.5 * (g.uni() + 1.0);
                cscale(g.phase(m), s)
            } else if (uplo == Uplo::Lower) == (i > j) {
                g.c(s / n as f64)
            } else {
                (f64::NAN, f64::NAN)
            };
            a.set(i, j, x);
        }
    }
    a
}

/// The stored triangle of `a` as a full triangular matrix (zeros in the other).
fn tri_full(a: &Dense, uplo: Uplo) -> Dense {
    let mut t = Dense::zeros(a.r, a.c);
    for j in 0..a.c {
        for i in 0..a.r {
            if i == j || (uplo == Uplo::Lower) == (i > j) {
                t.set(i, j, a.at(i, j));
            }
        }
    }
    t
}

/// `x` solving `t x = b` for a full triangular `t` (lower or upper by its zeros), by plain
/// substitution with the test's Smith division.
fn substitute(t: &Dense, lower: bool, b: &Dense) -> Dense {
    let n = t.r;
    let mut x = b.clone();
    for j in 0..b.c {
        let order: Vec<usize> = if lower {
            (0..n).collect()
        } else {
            (0..n).rev().collect()
        };
        for &i in &order {
            let mut s = x.at(i, j);
            for k in 0..n {
                if (lower && k < i) || (!lower && k > i) {
                    s = csub(s, cmul(t.at(i, k), x.at(k, j)));
                }
            }
            x.set(i, j, cdiv(s, t.at(i, i)));
        }
    }
    x
}

/// Checks `x` against `m x = b` (all in f64, of order one): the residual of each column, and
/// closeness to the reference `xr`.
fn check_solution(what: &str, eps: f64, m: &Dense, x: &Dense, b: &Dense, xr: &Dense) {
    let n = m.r;
    assert!(
        x.v.iter().all(|&v| finite(v)),
        "{what}: non-finite solution {:?}",
        &x.v[..x.v.len().min(4)]
    );
    let norm_m = m.norm1();
    let mx = m.mul(x);
    for j in 0..x.c {
        let res: f64 = (0..n).map(|i| mag(csub(mx.at(i, j), b.at(i, j)))).sum();
        let xn: f64 = (0..n).map(|i| mag(x.at(i, j))).sum();
        let ratio = res / (norm_m * xn * eps * n.max(1) as f64);
        assert!(
            ratio < 30.0,
            "{what}: column {j}: residual ratio {ratio:.2} >= 30"
        );
        let err: f64 = (0..n).map(|i| mag(csub(x.at(i, j), xr.at(i, j)))).sum();
        let xrn: f64 = (0..n).map(|i| mag(xr.at(i, j))).sum();
        assert!(
            err <= 1e3 * eps * n.max(1) as f64 * xrn,
            "{what}: column {j}: ‖x − x_ref‖₁ = {err:e} against ‖x_ref‖₁ = {xrn:e}"
        );
    }
}

// ---- batch layouts -----------------------------------------------------------------------

/// Single (the first entry), a list of buffers, or one buffer with the entries one after
/// another (stride: one entry's length).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Form {
    Single,
    List,
    Strided,
}

const FORMS: [Form; 3] = [Form::Single, Form::List, Form::Strided];

/// The entries of one operand, laid out in a form.
struct Laid<E> {
    form: Form,
    len: usize,
    count: usize,
    bufs: Vec<DeviceBuffer<E>>,
}

impl<E: Cx> Laid<E> {
    fn new(dev: &Device, form: Form, entries: &[Vec<E>]) -> Laid<E> {
        let len = entries[0].len();
        let (count, bufs) = match form {
            Form::Single => (1, vec![dev.upload(&entries[0]).unwrap()]),
            Form::List => (
                entries.len(),
                entries.iter().map(|e| dev.upload(e).unwrap()).collect(),
            ),
            Form::Strided => (entries.len(), vec![dev.upload(&entries.concat()).unwrap()]),
        };
        Laid {
            form,
            len,
            count,
            bufs,
        }
    }
    fn one(&self) -> &DeviceBuffer<E> {
        &self.bufs[0]
    }
    fn one_mut(&mut self) -> &mut DeviceBuffer<E> {
        &mut self.bufs[0]
    }
    fn refs(&self) -> Vec<&DeviceBuffer<E>> {
        self.bufs.iter().collect()
    }
    fn muts(&mut self) -> Vec<&mut DeviceBuffer<E>> {
        self.bufs.iter_mut().collect()
    }
    /// Each entry's values after the call.
    fn entries(&self) -> Vec<Vec<E>> {
        match self.form {
            Form::Strided => {
                let all = self.bufs[0].to_vec().unwrap();
                all.chunks(self.len).map(|c| c.to_vec()).collect()
            }
            _ => self.bufs.iter().map(|b| b.to_vec().unwrap()).collect(),
        }
    }
}

/// The scales of a call's entries: all four for batches, one (in rotation) otherwise.
fn scales_for<E: Cx>(form: Form, turn: usize) -> Vec<f64> {
    match form {
        Form::Single => vec![E::SCALES[turn % 4]],
        _ => E::SCALES.to_vec(),
    }
}

fn handle(dev: &Device) -> Handle {
    Handle::new(dev).unwrap()
}

const OPS: [Op; 3] = [Op::N, Op::T, Op::C];
const UPLOS: [Uplo; 2] = [Uplo::Lower, Uplo::Upper];

// ---- trsv --------------------------------------------------------------------------------

fn trsv_scaled<E: Cx>(dev: &Device) {
    let mut h = handle(dev);
    let mut g = Gen::new(27_401);
    let mut turn = 0;
    for n in SIZES {
        for uplo in UPLOS {
            for op in OPS {
                let form = FORMS[turn % 3];
                let scales = scales_for::<E>(form, turn);
                turn += 1;
                let a: Vec<Dense> = scales
                    .iter()
                    .map(|&s| triangle(&mut g, n, uplo, s))
                    .collect();
                let b: Vec<Dense> = scales
                    .iter()
                    .map(|&s| {
                        let mut v = Dense::zeros(n, 1);
                        v.v.iter_mut().for_each(|x| *x = g.c(s));
                        v
                    })
                    .collect();
                let la = Laid::new(
                    dev,
                    form,
                    &a.iter().map(|m| m.to::<E>()).collect::<Vec<_>>(),
                );
                let mut lx = Laid::new(
                    dev,
                    form,
                    &b.iter().map(|m| m.to::<E>()).collect::<Vec<_>>(),
                );
                let (d, cnt) = (Diag::NonUnit, lx.count);
                let _ = match form {
                    Form::Single => {
                        blas2::trsv(&mut h, uplo, op, d, n, la.one(), n, lx.one_mut(), 1)
                    }
                    Form::List => blas2::trsv_batched(
                        &mut h,
                        uplo,
                        op,
                        d,
                        n,
                        &la.refs(),
                        n,
                        &mut lx.muts(),
                        1,
                    ),
                    Form::Strided => blas2::trsv_strided_batched(
                        &mut h,
                        uplo,
                        op,
                        d,
                        n,
                        la.one(),
                        n,
                        n * n,
                        lx.one_mut(),
                        1,
                        n,
                        cnt,
                    ),
                }
                .unwrap();
                for (e, x) in lx.entries().iter().enumerate() {
                    let s = scales[e];
                    // The operands as given (rounded to the type), divided back by s.
                    let ah = Dense::from::<E>(n, n, &la_entry(&la, e)).scaled(1.0 / s);
                    let bh = Dense::from::<E>(n, 1, &b[e].to::<E>()).scaled(1.0 / s);
                    let m = tri_full(&ah, uplo).op(op);
                    let lower = (uplo == Uplo::Lower) == (op == Op::N);
                    let xr = substitute(&m, lower, &bh);
                    let what = format!("{} trsv n={n} {uplo:?} {op:?} {form:?} s={s:e}", E::NAME);
                    check_solution(&what, E::EPS, &m, &Dense::from::<E>(n, 1, x), &bh, &xr);
                }
            }
        }
    }
}

/// Entry `e` of an input as it was uploaded.
fn la_entry<E: Cx>(l: &Laid<E>, e: usize) -> Vec<E> {
    l.entries().swap_remove(e)
}

fn f3_ztrsv_scaled_1e300(dev: &Device) {
    trsv_scaled::<Complex64>(dev);
}

fn f3_ctrsv_scaled_1e35(dev: &Device) {
    trsv_scaled::<Complex32>(dev);
}

// ---- trsm --------------------------------------------------------------------------------

fn trsm_scaled<E: Cx>(dev: &Device) {
    let mut h = handle(dev);
    let mut g = Gen::new(27_402);
    let mut turn = 0;
    let nrhs = 3;
    for n in SIZES {
        for side in [Side::Left, Side::Right] {
            for uplo in UPLOS {
                for op in OPS {
                    let form = FORMS[turn % 3];
                    let substitute_method = turn % 2 == 1;
                    let scales = scales_for::<E>(form, turn);
                    turn += 1;
                    let (m, nc) = if side == Side::Left {
                        (n, nrhs)
                    } else {
                        (nrhs, n)
                    };
                    let a: Vec<Dense> = scales
                        .iter()
                        .map(|&s| triangle(&mut g, n, uplo, s))
                        .collect();
                    let b: Vec<Dense> = scales
                        .iter()
                        .map(|&s| {
                            let mut v = Dense::zeros(m, nc);
                            v.v.iter_mut().for_each(|x| *x = g.c(s));
                            v
                        })
                        .collect();
                    let la = Laid::new(
                        dev,
                        form,
                        &a.iter().map(|x| x.to::<E>()).collect::<Vec<_>>(),
                    );
                    let mut lb = Laid::new(
                        dev,
                        form,
                        &b.iter().map(|x| x.to::<E>()).collect::<Vec<_>>(),
                    );
                    let one = Coef::Host(E::make(ONE));
                    let d = Diag::NonUnit;
                    let cnt = lb.count;
                    let _ = match (form, substitute_method) {
                        (Form::Single, false) => blas3::trsm(
                            &mut h,
                            side,
                            uplo,
                            op,
                            d,
                            m,
                            nc,
                            one,
                            la.one(),
                            n,
                            lb.one_mut(),
                            m,
                        ),
                        (Form::Single, true) => blas3::trsm_ex(
                            &mut h,
                            side,
                            uplo,
                            op,
                            d,
                            m,
                            nc,
                            one,
                            la.one(),
                            n,
                            lb.one_mut(),
                            m,
                            blas3::TrsmMethod::Substitute,
                        ),
                        (Form::List, false) => blas3::trsm_batched(
                            &mut h,
                            side,
                            uplo,
                            op,
                            d,
                            m,
                            nc,
                            one,
                            &la.refs(),
                            n,
                            &mut lb.muts(),
                            m,
                        ),
                        (Form::List, true) => blas3::trsm_ex_batched(
                            &mut h,
                            side,
                            uplo,
                            op,
                            d,
                            m,
                            nc,
                            one,
                            &la.refs(),
                            n,
                            &mut lb.muts(),
                            m,
                            blas3::TrsmMethod::Substitute,
                        ),
                        (Form::Strided, false) => blas3::trsm_strided_batched(
                            &mut h,
                            side,
                            uplo,
                            op,
                            d,
                            m,
                            nc,
                            one,
                            la.one(),
                            n,
                            n * n,
                            lb.one_mut(),
                            m,
                            m * nc,
                            cnt,
                        ),
                        (Form::Strided, true) => blas3::trsm_ex_strided_batched(
                            &mut h,
                            side,
                            uplo,
                            op,
                            d,
                            m,
                            nc,
                            one,
                            la.one(),
                            n,
                            n * n,
                            lb.one_mut(),
                            m,
                            m * nc,
                            cnt,
                            blas3::TrsmMethod::Substitute,
                        ),
                    }
                    .unwrap();
                    for (e, x) in lb.entries().iter().enumerate() {
                        let s = scales[e];
                        let ah = Dense::from::<E>(n, n, &la_entry(&la, e)).scaled(1.0 / s);
                        let bh = Dense::from::<E>(m, nc, &b[e].to::<E>()).scaled(1.0 / s);
                        let x = Dense::from::<E>(m, nc, x);
                        let t = tri_full(&ah, uplo).op(op);
                        let what = format!(
                            "{} trsm{} n={n} {side:?} {uplo:?} {op:?} {form:?} s={s:e}",
                            E::NAME,
                            if substitute_method {
                                "_ex(Substitute)"
                            } else {
                                ""
                            }
                        );
                        if side == Side::Left {
                            let lower = (uplo == Uplo::Lower) == (op == Op::N);
                            let xr = substitute(&t, lower, &bh);
                            check_solution(&what, E::EPS, &t, &x, &bh, &xr);
                        } else {
                            // X op(A) = B is op(A)ᵀ Xᵀ = Bᵀ: each row of X as a column.
                            let tt = t.op(Op::T);
                            let lower = (uplo == Uplo::Lower) != (op == Op::N);
                            let (xt, bt) = (x.op(Op::T), bh.op(Op::T));
                            let xr = substitute(&tt, lower, &bt);
                            check_solution(&what, E::EPS, &tt, &xt, &bt, &xr);
                        }
                    }
                }
            }
        }
    }
}

fn f3_ztrsm_scaled_1e300(dev: &Device) {
    trsm_scaled::<Complex64>(dev);
}

fn f3_ctrsm_scaled_1e35(dev: &Device) {
    trsm_scaled::<Complex32>(dev);
}

// ---- trtri -------------------------------------------------------------------------------

fn trtri_scaled<E: Cx>(dev: &Device) {
    let mut h = handle(dev);
    let mut g = Gen::new(27_403);
    let mut turn = 0;
    for n in SIZES {
        for uplo in UPLOS {
            let form = FORMS[turn % 3];
            let scales = scales_for::<E>(form, turn);
            turn += 1;
            let a: Vec<Dense> = scales
                .iter()
                .map(|&s| triangle(&mut g, n, uplo, s))
                .collect();
            let la = Laid::new(
                dev,
                form,
                &a.iter().map(|x| x.to::<E>()).collect::<Vec<_>>(),
            );
            let zeros = vec![E::make(ZERO); n * n];
            let mut li = Laid::new(dev, form, &vec![zeros; scales.len()]);
            let d = Diag::NonUnit;
            let cnt = li.count;
            let _ = match form {
                Form::Single => blas3::trtri(&mut h, uplo, d, n, la.one(), n, li.one_mut(), n),
                Form::List => {
                    blas3::trtri_batched(&mut h, uplo, d, n, &la.refs(), n, &mut li.muts(), n)
                }
                Form::Strided => blas3::trtri_strided_batched(
                    &mut h,
                    uplo,
                    d,
                    n,
                    la.one(),
                    n,
                    n * n,
                    li.one_mut(),
                    n,
                    n * n,
                    cnt,
                ),
            }
            .unwrap();
            for (e, inv) in li.entries().iter().enumerate() {
                let s = scales[e];
                let what = format!("{} trtri n={n} {uplo:?} {form:?} s={s:e}", E::NAME);
                let t = tri_full(
                    &Dense::from::<E>(n, n, &la_entry(&la, e)).scaled(1.0 / s),
                    uplo,
                );
                // inv(s T) = inv(T) / s: multiplied back by s.
                let x = Dense::from::<E>(n, n, inv).scaled(s);
                assert!(x.v.iter().all(|&v| finite(v)), "{what}: non-finite inverse");
                // LAPACK's xTRT01: ‖T inv − I‖₁ / (‖T‖₁ ‖inv‖₁ ε n) < 30.
                let mut r = t.mul(&x);
                for i in 0..n {
                    r.set(i, i, csub(r.at(i, i), ONE));
                }
                let ratio = r.norm1() / (t.norm1() * x.norm1() * E::EPS * n as f64);
                assert!(ratio < 30.0, "{what}: ratio {ratio:.2} >= 30");
            }
        }
    }
}

fn f3_ztrtri_scaled_1e300(dev: &Device) {
    trtri_scaled::<Complex64>(dev);
}

fn f3_ctrtri_scaled_1e35(dev: &Device) {
    trtri_scaled::<Complex32>(dev);
}

// ---- getrf + getrs -----------------------------------------------------------------------

fn getrf_getrs_scaled<E: Cx>(dev: &Device) {
    let mut h = handle(dev);
    let mut g = Gen::new(27_404);
    let mut turn = 0;
    let nrhs = 2;
    for n in SIZES {
        for op in OPS {
            let form = FORMS[turn % 3];
            let scales = scales_for::<E>(form, turn);
            turn += 1;
            // Dense, no structure but a diagonal a little above the rest: pivoting happens.
            let a: Vec<Dense> = scales
                .iter()
                .map(|&s| {
                    let mut m = Dense::zeros(n, n);
                    for j in 0..n {
                        for i in 0..n {
                            let x = if i == j { g.phase(1.5) } else { g.c(1.0) };
                            m.set(i, j, cscale(x, s));
                        }
                    }
                    m
                })
                .collect();
            let b: Vec<Dense> = scales
                .iter()
                .map(|&s| {
                    let mut v = Dense::zeros(n, nrhs);
                    v.v.iter_mut().for_each(|x| *x = g.c(s));
                    v
                })
                .collect();
            let mut la = Laid::new(
                dev,
                form,
                &a.iter().map(|x| x.to::<E>()).collect::<Vec<_>>(),
            );
            let mut lb = Laid::new(
                dev,
                form,
                &b.iter().map(|x| x.to::<E>()).collect::<Vec<_>>(),
            );
            let cnt = la.count;
            let mut piv = vec![0i32; n * cnt];
            let mut info = vec![0i32; cnt];
            let (rp, ri) = (Results::Host(&mut piv[..]), Results::Host(&mut info[..]));
            let _ = match form {
                Form::Single => solver::getrf(&mut h, n, n, la.one_mut(), n, rp, ri),
                Form::List => solver::getrf_batched(&mut h, n, n, &mut la.muts(), n, rp, n, ri),
                Form::Strided => solver::getrf_strided_batched(
                    &mut h,
                    n,
                    n,
                    la.one_mut(),
                    n,
                    n * n,
                    rp,
                    n,
                    ri,
                    cnt,
                ),
            }
            .unwrap();
            assert!(
                info.iter().all(|&i| i == 0),
                "{} getrf n={n}: info {info:?}",
                E::NAME
            );
            let dpiv = dev.upload(&piv).unwrap();
            let _ = match form {
                Form::Single => {
                    solver::getrs(&mut h, op, n, nrhs, la.one(), n, &dpiv, lb.one_mut(), n)
                }
                Form::List => solver::getrs_batched(
                    &mut h,
                    op,
                    n,
                    nrhs,
                    &la.refs(),
                    n,
                    &dpiv,
                    n,
                    &mut lb.muts(),
                    n,
                ),
                Form::Strided => solver::getrs_strided_batched(
                    &mut h,
                    op,
                    n,
                    nrhs,
                    la.one(),
                    n,
                    n * n,
                    &dpiv,
                    n,
                    lb.one_mut(),
                    n,
                    n * nrhs,
                    cnt,
                ),
            }
            .unwrap();
            for (e, x) in lb.entries().iter().enumerate() {
                let s = scales[e];
                let what = format!("{} getrf+getrs n={n} {op:?} {form:?} s={s:e}", E::NAME);
                let m = Dense::from::<E>(n, n, &a[e].to::<E>())
                    .scaled(1.0 / s)
                    .op(op);
                let bh = Dense::from::<E>(n, nrhs, &b[e].to::<E>()).scaled(1.0 / s);
                let xr = gauss(&m, &bh);
                check_solution(&what, E::EPS, &m, &Dense::from::<E>(n, nrhs, x), &bh, &xr);
            }
        }
    }
}

/// `x` solving `m x = b` by Gaussian elimination with partial pivoting on |re| + |im| (the
/// reference), with the test's Smith division.
fn gauss(m: &Dense, b: &Dense) -> Dense {
    let n = m.r;
    let (mut a, mut x) = (m.clone(), b.clone());
    for k in 0..n {
        let p = (k..n)
            .max_by(|&i, &j| mag(a.at(i, k)).total_cmp(&mag(a.at(j, k))))
            .unwrap_or(k);
        for j in 0..n {
            let t = a.at(k, j);
            a.set(k, j, a.at(p, j));
            a.set(p, j, t);
        }
        for j in 0..x.c {
            let t = x.at(k, j);
            x.set(k, j, x.at(p, j));
            x.set(p, j, t);
        }
        for i in k + 1..n {
            let l = cdiv(a.at(i, k), a.at(k, k));
            for j in k..n {
                a.set(i, j, csub(a.at(i, j), cmul(l, a.at(k, j))));
            }
            for j in 0..x.c {
                x.set(i, j, csub(x.at(i, j), cmul(l, x.at(k, j))));
            }
        }
    }
    substitute(&a, false, &x)
}

fn f3_zgetrf_getrs_scaled_1e300(dev: &Device) {
    getrf_getrs_scaled::<Complex64>(dev);
}

fn f3_cgetrf_getrs_scaled_1e35(dev: &Device) {
    getrf_getrs_scaled::<Complex32>(dev);
}

// ---- potrf + potrs, and potrs on a given factor ------------------------------------------

/// A Hermitian positive definite matrix of order `n` times `s`: `L0 L0ᴴ` for a triangle as
/// [`triangle`] builds (its conditioning), full.
fn hpd(g: &mut Gen, n: usize, s: f64) -> Dense {
    let l = tri_full(&triangle(g, n, Uplo::Lower, 1.0), Uplo::Lower);
    let mut a = l.mul(&l.op(Op::C)).scaled(s);
    for i in 0..n {
        a.set(i, i, (a.at(i, i).0, 0.0));
    }
    a
}

fn potrf_potrs_scaled<E: Cx>(dev: &Device) {
    let mut h = handle(dev);
    let mut g = Gen::new(27_405);
    let mut turn = 0;
    let nrhs = 2;
    for n in SIZES {
        for uplo in UPLOS {
            let form = FORMS[turn % 3];
            let scales = scales_for::<E>(form, turn);
            turn += 1;
            let a: Vec<Dense> = scales.iter().map(|&s| hpd(&mut g, n, s)).collect();
            let b: Vec<Dense> = scales
                .iter()
                .map(|&s| {
                    let mut v = Dense::zeros(n, nrhs);
                    v.v.iter_mut().for_each(|x| *x = g.c(s));
                    v
                })
                .collect();
            let mut la = Laid::new(
                dev,
                form,
                &a.iter().map(|x| x.to::<E>()).collect::<Vec<_>>(),
            );
            let mut lb = Laid::new(
                dev,
                form,
                &b.iter().map(|x| x.to::<E>()).collect::<Vec<_>>(),
            );
            let cnt = la.count;
            let mut info = vec![0i32; cnt];
            let ri = Results::Host(&mut info[..]);
            let _ = match form {
                Form::Single => solver::potrf(&mut h, uplo, n, la.one_mut(), n, ri),
                Form::List => solver::potrf_batched(&mut h, uplo, n, &mut la.muts(), n, ri),
                Form::Strided => {
                    solver::potrf_strided_batched(&mut h, uplo, n, la.one_mut(), n, n * n, ri, cnt)
                }
            }
            .unwrap();
            assert!(
                info.iter().all(|&i| i == 0),
                "{} potrf n={n}: info {info:?}",
                E::NAME
            );
            potrs_call(&mut h, form, uplo, n, nrhs, &la, &mut lb);
            for (e, x) in lb.entries().iter().enumerate() {
                let s = scales[e];
                let what = format!("{} potrf+potrs n={n} {uplo:?} {form:?} s={s:e}", E::NAME);
                let m = Dense::from::<E>(n, n, &a[e].to::<E>()).scaled(1.0 / s);
                let bh = Dense::from::<E>(n, nrhs, &b[e].to::<E>()).scaled(1.0 / s);
                let xr = gauss(&m, &bh);
                check_solution(&what, E::EPS, &m, &Dense::from::<E>(n, nrhs, x), &bh, &xr);
            }
        }
    }
}

fn potrs_call<E: Cx>(
    h: &mut Handle,
    form: Form,
    uplo: Uplo,
    n: usize,
    nrhs: usize,
    la: &Laid<E>,
    lb: &mut Laid<E>,
) {
    let cnt = lb.count;
    let _ = match form {
        Form::Single => solver::potrs(h, uplo, n, nrhs, la.one(), n, lb.one_mut(), n),
        Form::List => solver::potrs_batched(h, uplo, n, nrhs, &la.refs(), n, &mut lb.muts(), n),
        Form::Strided => solver::potrs_strided_batched(
            h,
            uplo,
            n,
            nrhs,
            la.one(),
            n,
            n * n,
            lb.one_mut(),
            n,
            n * nrhs,
            cnt,
        ),
    }
    .unwrap();
}

/// potrs on a factor given scaled by `s` (not one potrf wrote, whose diagonal would be
/// `√s`): its diagonal is where the division is near the range's ends.
fn potrs_factor_scaled<E: Cx>(dev: &Device) {
    let mut h = handle(dev);
    let mut g = Gen::new(27_406);
    let mut turn = 0;
    let nrhs = 2;
    for n in SIZES {
        for uplo in UPLOS {
            let form = FORMS[turn % 3];
            let scales = scales_for::<E>(form, turn);
            turn += 1;
            // A real positive diagonal, as potrf writes.
            let l: Vec<Dense> = scales
                .iter()
                .map(|&s| {
                    let mut t = triangle(&mut g, n, uplo, s);
                    for i in 0..n {
                        let d = t.at(i, i);
                        t.set(i, i, (d.0.hypot(d.1), 0.0));
                    }
                    t
                })
                .collect();
            let b: Vec<Dense> = scales
                .iter()
                .map(|&s| {
                    let mut v = Dense::zeros(n, nrhs);
                    v.v.iter_mut().for_each(|x| *x = g.c(s));
                    v
                })
                .collect();
            let la = Laid::new(
                dev,
                form,
                &l.iter().map(|x| x.to::<E>()).collect::<Vec<_>>(),
            );
            let mut lb = Laid::new(
                dev,
                form,
                &b.iter().map(|x| x.to::<E>()).collect::<Vec<_>>(),
            );
            potrs_call(&mut h, form, uplo, n, nrhs, &la, &mut lb);
            for (e, x) in lb.entries().iter().enumerate() {
                let s = scales[e];
                let what = format!("{} potrs(factor) n={n} {uplo:?} {form:?} s={s:e}", E::NAME);
                // A = F Fᴴ (lower) or Fᴴ F (upper) with F = s F̂; X = A⁻¹ B is X̂ / s.
                let f = tri_full(
                    &Dense::from::<E>(n, n, &l[e].to::<E>()).scaled(1.0 / s),
                    uplo,
                );
                let m = if uplo == Uplo::Lower {
                    f.mul(&f.op(Op::C))
                } else {
                    f.op(Op::C).mul(&f)
                };
                let bh = Dense::from::<E>(n, nrhs, &b[e].to::<E>()).scaled(1.0 / s);
                let xh = Dense::from::<E>(n, nrhs, x).scaled(s);
                let xr = gauss(&m, &bh);
                check_solution(&what, E::EPS, &m, &xh, &bh, &xr);
            }
        }
    }
}

fn f3_zpotrf_potrs_scaled_1e300(dev: &Device) {
    potrf_potrs_scaled::<Complex64>(dev);
    potrs_factor_scaled::<Complex64>(dev);
}

fn f3_cpotrf_potrs_scaled_1e35(dev: &Device) {
    potrf_potrs_scaled::<Complex32>(dev);
    potrs_factor_scaled::<Complex32>(dev);
}

// ---- the issue's example -----------------------------------------------------------------

/// `a x = b` with `a = s(1 + i)`, `b = s`: `x = 1 / (1 + i) = (0.5, −0.5)` at every scale,
/// through every solve (the textbook division gave NaN at 1e160 and 1e-300).
fn issue_example<E: Cx>(dev: &Device, scales: &[f64]) {
    let mut h = handle(dev);
    let want = (0.5, -0.5);
    let close = |what: &str, x: E| {
        let x = x.get();
        assert!(
            mag(csub(x, want)) <= 4.0 * E::EPS,
            "{} {what}: x = {x:?}, want {want:?}",
            E::NAME
        );
    };
    for &s in scales {
        let a = dev.upload(&[E::make((s, s))]).unwrap();
        let rhs = || dev.upload(&[E::make((s, 0.0)), E::make((s, 0.0))]).unwrap();
        let one = || Coef::Host(E::make(ONE));
        let (lo, nn, d) = (Uplo::Lower, Op::N, Diag::NonUnit);

        let mut x = rhs();
        let _ = blas2::trsv(&mut h, lo, nn, d, 1, &a, 1, &mut x, 1).unwrap();
        close(&format!("trsv s={s:e}"), x.to_vec().unwrap()[0]);

        // Two right-hand sides: the block program (one is trsv's path).
        let mut x = rhs();
        let _ = blas3::trsm(&mut h, Side::Left, lo, nn, d, 1, 2, one(), &a, 1, &mut x, 1).unwrap();
        close(&format!("trsm s={s:e}"), x.to_vec().unwrap()[1]);

        let mut x = rhs();
        let sub = blas3::TrsmMethod::Substitute;
        let _ = blas3::trsm_ex(
            &mut h,
            Side::Right,
            lo,
            nn,
            d,
            2,
            1,
            one(),
            &a,
            1,
            &mut x,
            2,
            sub,
        )
        .unwrap();
        close(
            &format!("trsm_ex(Substitute) s={s:e}"),
            x.to_vec().unwrap()[0],
        );

        // inv(s(1 + i)) = (0.5, −0.5) / s.
        let mut inv = dev.upload(&[E::make(ZERO)]).unwrap();
        let _ = blas3::trtri(&mut h, lo, d, 1, &a, 1, &mut inv, 1).unwrap();
        let v = inv.to_vec().unwrap()[0].get();
        close(&format!("trtri s={s:e}"), E::make(cscale(v, s)));

        let mut f = dev.upload(&[E::make((s, s))]).unwrap();
        let (mut piv, mut info) = ([0i32], [0i32]);
        let (rp, ri) = (Results::Host(&mut piv[..]), Results::Host(&mut info[..]));
        let _ = solver::getrf(&mut h, 1, 1, &mut f, 1, rp, ri).unwrap();
        let dpiv = dev.upload(&piv).unwrap();
        let mut x = rhs();
        let _ = solver::getrs(&mut h, nn, 1, 2, &f, 1, &dpiv, &mut x, 1).unwrap();
        close(&format!("getrf+getrs s={s:e}"), x.to_vec().unwrap()[1]);

        // potrs with the factor s (real, as potrf writes it): s² x = b for b = s(0.5, −0.5)
        // is x = (0.5, −0.5) / s, checked multiplied back by s.
        let l = dev.upload(&[E::make((s, 0.0))]).unwrap();
        let mut x = dev.upload(&[E::make((0.5 * s, -0.5 * s))]).unwrap();
        let _ = solver::potrs(&mut h, lo, 1, 1, &l, 1, &mut x, 1).unwrap();
        let v = x.to_vec().unwrap()[0].get();
        close(&format!("potrs s={s:e}"), E::make(cscale(v, s)));
    }
}

fn f3_issue27_one_element_example(dev: &Device) {
    issue_example::<Complex64>(dev, &[1e160, 1e-300, 1e300, 1e-160]);
    // Complex32: |b|² overflows past 1.8e19 and underflows below 1.1e-19.
    issue_example::<Complex32>(dev, &[1e20, 1e-20, 1e35, 1e-35]);
}

// ---- the host's division itself ----------------------------------------------------------

/// `v = m 2^k` with `|m|` in [1, 2) (`m = v`, `k = 0` for zero and non-finite `v`): an exact
/// split, for a reference free of overflow and underflow.
fn split(v: f64) -> (f64, i32) {
    if v == 0.0 || !v.is_finite() {
        return (v, 0);
    }
    let mut k = v.abs().log2().floor() as i32;
    let mut m = v * pow2(-k);
    // log2 may be off by one near powers of two.
    if m.abs() >= 2.0 {
        m *= 0.5;
        k += 1;
    } else if m.abs() < 1.0 {
        m *= 2.0;
        k -= 1;
    }
    (m, k)
}

/// 2^k for any k of the range of magnitudes (in two factors where one would overflow).
fn pow2(k: i32) -> f64 {
    if k.abs() <= 1000 {
        2f64.powi(k)
    } else {
        2f64.powi(k / 2) * 2f64.powi(k - k / 2)
    }
}

/// x / y with both scaled to order one by powers of two, divided with Smith's algorithm, and
/// scaled back: the reference quotient (in range when the true quotient is).
fn reference_quotient(x: C, y: C) -> C {
    let kx = split(mag(x)).1;
    let ky = split(mag(y)).1;
    let xs = (x.0 * pow2(-kx), x.1 * pow2(-kx));
    let ys = (y.0 * pow2(-ky), y.1 * pow2(-ky));
    let q = cdiv(xs, ys);
    let k = kx - ky;
    (
        q.0 * pow2(k / 2) * pow2(k - k / 2),
        q.1 * pow2(k / 2) * pow2(k - k / 2),
    )
}

/// The host's `safe_div` against the reference on operands whose parts range over the whole
/// exponent range independently (quotients kept in range).
fn division_range<E: Cx>(max_exp: i32) {
    let mut g = Gen::new(27_407);
    let part = |g: &mut Gen| {
        let e = (g.uni() * max_exp as f64).round() as i32;
        let v = g.uni() * 10f64.powi(e);
        if g.next() % 8 == 0 {
            0.0
        } else {
            v
        }
    };
    let mut checked = 0;
    while checked < 20_000 {
        let x = E::make((part(&mut g), part(&mut g))).get();
        let y = E::make((part(&mut g), part(&mut g))).get();
        let want = reference_quotient(x, y);
        let size = mag(want);
        // Only quotients well inside the type's range (no overflow or underflow of their own).
        let (lo, hi) = (10f64.powi(-max_exp + 8), 10f64.powi(max_exp - 8));
        if y == ZERO || !(size > lo && size < hi) {
            continue;
        }
        checked += 1;
        let got = E::make(x).safe_div(E::make(y)).get();
        // Normwise: a few ulps of the quotient's larger part (and the result rounded to E).
        let err = mag(csub(got, want));
        assert!(
            err <= 8.0 * E::EPS * size,
            "{}: {x:?} / {y:?} = {got:?}, want {want:?} (error {:.1} ulps)",
            E::NAME,
            err / (E::EPS * size)
        );
    }
}

#[test]
fn f3_host_complex_division_range() {
    division_range::<Complex64>(300);
    division_range::<Complex32>(36);
    // The issue's quotient, exactly: s / (s (1 + i)).
    for s in [1e160, 1e-300, f64::MAX / 2.0, 1e-310] {
        let q = Complex64::new(s, 0.0).safe_div(Complex64::new(s, s));
        assert_eq!((q.re, q.im), (0.5, -0.5), "s = {s:e}");
    }
    // A real divisor divides each part as real division does.
    let (x, y) = (Complex64::new(1e300, -3e-300), 7e-10);
    let q = x.safe_div(Complex64::new(y, 0.0));
    assert_eq!((q.re, q.im), (1e300 / y, -3e-300 / y));
}

// ---- floating-point exception flags (host) -------------------------------------------------

/// The C library's floating-point environment (the flags of the calling thread).
mod fenv {
    use std::os::raw::c_int;

    extern "C" {
        fn fetestexcept(excepts: c_int) -> c_int;
        fn feclearexcept(excepts: c_int) -> c_int;
    }

    #[cfg(target_arch = "x86_64")]
    pub const FLAGS: Option<[(c_int, &str); 4]> = Some([
        (0x01, "invalid"),
        (0x04, "divide-by-zero"),
        (0x08, "overflow"),
        (0x10, "underflow"),
    ]);
    #[cfg(target_arch = "aarch64")]
    pub const FLAGS: Option<[(c_int, &str); 4]> = Some([
        (0x01, "invalid"),
        (0x02, "divide-by-zero"),
        (0x04, "overflow"),
        (0x08, "underflow"),
    ]);
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    pub const FLAGS: Option<[(c_int, &str); 4]> = None;

    fn all() -> c_int {
        FLAGS.map_or(0, |f| f.iter().map(|x| x.0).sum())
    }

    pub fn clear() {
        // SAFETY: clears flags of this thread's floating-point environment; no memory involved.
        unsafe {
            feclearexcept(all());
        }
    }

    /// The names of the raised flags among invalid, divide-by-zero, overflow and (with
    /// `underflow`) underflow.
    pub fn raised(underflow: bool) -> Vec<&'static str> {
        // SAFETY: reads flags of this thread's floating-point environment.
        let f = unsafe { fetestexcept(all()) };
        FLAGS
            .into_iter()
            .flatten()
            .filter(|&(bit, name)| f & bit != 0 && (underflow || name != "underflow"))
            .map(|(_, name)| name)
            .collect()
    }
}

/// A host handle whose every call runs on the calling thread, so its flags are this thread's.
fn one_thread(dev: &Device) -> Handle {
    let mut h = Handle::new(dev).unwrap();
    h.set_host_threads(1).unwrap();
    h
}

/// Reference rotg raises no divide-by-zero (its `1 / c` is skipped where `c == 0`, and an
/// optimizer must not compute it anyway) and no invalid; complex rotg with a subnormal `|a|`
/// divides by it rather than multiplying by its overflowing reciprocal.
#[test]
fn f3_host_fp_flags_rotg() {
    if fenv::FLAGS.is_none() {
        return; // no known flag layout on this architecture
    }
    let dev = common::host();
    let mut h = one_thread(&dev);
    fn real<R: Cxr>(h: &mut Handle, dev: &Device, a: f64, b: f64) {
        let mut da = dev.upload(&[R::from(a)]).unwrap();
        let mut db = dev.upload(&[R::from(b)]).unwrap();
        let mut dc = dev.upload(&[R::from(0.0)]).unwrap();
        let mut ds = dev.upload(&[R::from(0.0)]).unwrap();
        fenv::clear();
        let _ = blas1::rotg(h, &mut da, &mut db, &mut dc, &mut ds).unwrap();
        let f = fenv::raised(false);
        assert!(f.is_empty(), "rotg({a}, {b}) raised {f:?}");
    }
    for (a, b) in [
        (0.0, 1.0),
        (0.0, -2.0),
        (-0.0, 3.0),
        (1.0, 0.0),
        (0.0, 0.0),
        (3.0, 4.0),
    ] {
        real::<f32>(&mut h, &dev, a, b);
        real::<f64>(&mut h, &dev, a, b);
    }
    fn cplx<E: Cx>(h: &mut Handle, dev: &Device, a: C, b: C) {
        let mut da = dev.upload(&[E::make(a)]).unwrap();
        let mut db = dev.upload(&[E::make(b)]).unwrap();
        let mut dc = dev.upload(&[<E::Real as Scalar>::zero()]).unwrap();
        let mut ds = dev.upload(&[E::make(ZERO)]).unwrap();
        fenv::clear();
        let _ = blas1::rotg(h, &mut da, &mut db, &mut dc, &mut ds).unwrap();
        let f = fenv::raised(false);
        assert!(f.is_empty(), "{} rotg({a:?}, {b:?}) raised {f:?}", E::NAME);
        let (r, s) = (da.to_vec().unwrap()[0].get(), ds.to_vec().unwrap()[0].get());
        assert!(
            finite(r) && finite(s),
            "{} rotg({a:?}, {b:?}): r {r:?}, s {s:?}",
            E::NAME
        );
    }
    for (a, b) in [
        (ZERO, (1.0, 2.0)),
        ((1.0, -1.0), ZERO),
        ((3.0, 0.0), (4.0, 0.0)),
        ((1e-40, 0.0), (1.0, 0.5)),
        ((1e-45, 1e-45), (2e-45, 0.0)),
    ] {
        cplx::<Complex32>(&mut h, &dev, a, b);
    }
    for (a, b) in [
        (ZERO, (1.0, 2.0)),
        ((1.0, -1.0), ZERO),
        ((5e-324, 0.0), (1.0, 0.5)),
        ((1e-310, -1e-310), (3e-310, 0.0)),
    ] {
        cplx::<Complex64>(&mut h, &dev, a, b);
    }
}

/// The real types of rotg's test.
trait Cxr: Scalar<Real = Self> + Element + Copy {
    fn from(v: f64) -> Self;
}
impl Cxr for f32 {
    fn from(v: f64) -> Self {
        v as f32
    }
}
impl Cxr for f64 {
    fn from(v: f64) -> Self {
        v
    }
}

/// The complex solves on operands scaled into the zone where `|b|²` overflows or underflows
/// (but every value of the solution's computation is in range) raise none of invalid,
/// divide-by-zero and overflow, nor underflow at 1e-160 (1e-20), where the textbook division's
/// `|b|²` underflows and nothing else does. Elsewhere underflow is not checked: products of
/// values near 1e-300 may underflow in any order of operations, and the inverses of large
/// triangles that `trsm` and `getrs` multiply by (the blocked algorithm, not substitution)
/// have tiny entries far from the diagonal.
fn solve_flags<E: Cx>(scales: &[(f64, bool)]) {
    let dev = common::host();
    let mut h = one_thread(&dev);
    let mut g = Gen::new(27_408);
    let n = 33;
    for &(s, underflow) in scales {
        let a = triangle(&mut g, n, Uplo::Lower, s).to::<E>();
        let mut b = Dense::zeros(n, 2);
        b.v.iter_mut().for_each(|x| *x = g.c(s));
        let b = b.to::<E>();
        let da = dev.upload(&a).unwrap();
        let check = |what: &str| {
            let f = fenv::raised(underflow);
            assert!(f.is_empty(), "{} {what} s={s:e} raised {f:?}", E::NAME);
        };
        let one = || Coef::Host(E::make(ONE));
        let (lo, d) = (Uplo::Lower, Diag::NonUnit);
        for op in OPS {
            let mut x = dev.upload(&b[..n]).unwrap();
            fenv::clear();
            let _ = blas2::trsv(&mut h, lo, op, d, n, &da, n, &mut x, 1).unwrap();
            check(&format!("trsv {op:?}"));
            for method in [blas3::TrsmMethod::Invert, blas3::TrsmMethod::Substitute] {
                let mut x = dev.upload(&b).unwrap();
                fenv::clear();
                let _ = blas3::trsm_ex(
                    &mut h,
                    Side::Left,
                    lo,
                    op,
                    d,
                    n,
                    2,
                    one(),
                    &da,
                    n,
                    &mut x,
                    n,
                    method,
                )
                .unwrap();
                check(&format!("trsm {op:?}"));
            }
        }
        let mut inv = dev.upload(&vec![E::make(ZERO); n * n]).unwrap();
        fenv::clear();
        let _ = blas3::trtri(&mut h, lo, d, n, &da, n, &mut inv, n).unwrap();
        check("trtri");
        // A unit diagonal is not read: zeros stored there are never divided by, not even for
        // a quotient thrown away (the rest of order one: x is of b's order).
        let mut au = triangle(&mut g, n, lo, 1.0);
        for i in 0..n {
            au.set(i, i, ZERO);
        }
        let dau = dev.upload(&au.to::<E>()).unwrap();
        let u = Diag::Unit;
        for op in OPS {
            let mut x = dev.upload(&b[..n]).unwrap();
            fenv::clear();
            let _ = blas2::trsv(&mut h, lo, op, u, n, &dau, n, &mut x, 1).unwrap();
            check(&format!("trsv unit {op:?}"));
            let mut x = dev.upload(&b).unwrap();
            let sub = blas3::TrsmMethod::Substitute;
            fenv::clear();
            let _ = blas3::trsm_ex(
                &mut h,
                Side::Left,
                lo,
                op,
                u,
                n,
                2,
                one(),
                &dau,
                n,
                &mut x,
                n,
                sub,
            )
            .unwrap();
            check(&format!("trsm unit {op:?}"));
        }
        let mut inv = dev.upload(&vec![E::make(ZERO); n * n]).unwrap();
        fenv::clear();
        let _ = blas3::trtri(&mut h, lo, u, n, &dau, n, &mut inv, n).unwrap();
        check("trtri unit");
        // getrf on the triangle made full (its upper part s times [-1, 1] / n).
        let mut full = Dense::from::<E>(n, n, &a);
        for j in 0..n {
            for i in 0..j {
                full.set(i, j, g.c(s / n as f64));
            }
        }
        let mut f = dev.upload(&full.to::<E>()).unwrap();
        let (mut piv, mut info) = (vec![0i32; n], [0i32]);
        fenv::clear();
        let _ = solver::getrf(
            &mut h,
            n,
            n,
            &mut f,
            n,
            Results::Host(&mut piv),
            Results::Host(&mut info),
        )
        .unwrap();
        check("getrf");
        let dpiv = dev.upload(&piv).unwrap();
        let mut x = dev.upload(&b).unwrap();
        fenv::clear();
        let _ = solver::getrs(&mut h, Op::N, n, 2, &f, n, &dpiv, &mut x, n).unwrap();
        check("getrs");
    }
}

#[test]
fn f3_host_fp_flags_complex_solves_scaled() {
    if fenv::FLAGS.is_none() {
        return; // no known flag layout on this architecture
    }
    solve_flags::<Complex64>(&[
        (1e-160, true),
        (1e160, false),
        (1e300, false),
        (1e-300, false),
    ]);
    solve_flags::<Complex32>(&[(1e-20, true), (1e20, false), (1e35, false), (1e-35, false)]);
}

crate::on_both_backends!(
    f3_ztrsv_scaled_1e300,
    f3_ctrsv_scaled_1e35,
    f3_ztrsm_scaled_1e300,
    f3_ctrsm_scaled_1e35,
    f3_ztrtri_scaled_1e300,
    f3_ctrtri_scaled_1e35,
    f3_zgetrf_getrs_scaled_1e300,
    f3_cgetrf_getrs_scaled_1e35,
    f3_zpotrf_potrs_scaled_1e300,
    f3_cpotrf_potrs_scaled_1e35,
    f3_issue27_one_element_example,
);
