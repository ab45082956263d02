#![allow(
    clippy::too_many_arguments,
    clippy::type_complexity,
    clippy::needless_range_loop
)]
//! Level-2 routines (`gemv`, `symv`, `hemv`, `trmv`, `tbmv`, `tpmv`, `trsv`) against
//! independent f64 references, on both backends (SPEC F1–F4, F7–F10, M6, M8, M9).
//!
//! Every operand is placed in one of seven batch layouts (single, lists of 0, 1 and 7 entries,
//! strided batches of 0, 1 and 7 entries with gaps between the entries). Everything a call may
//! not write (gaps of strided layouts and of vectors with |inc| > 1, one element past each
//! entry, the inputs) is compared bit for bit after the call; everything it may not read
//! (matrix padding, the unstored triangle, a unit diagonal, unused band storage, gaps of input
//! vectors, `y` when `beta == 0`) holds NaN.

mod common;

use common::complex::*;
use common::elem::*;
use common::forms::*;
use common::{fixed_handle, handle, user_owned_handle};
use gpublas::blas2;
use gpublas::{
    Coef, Complex32, Complex64, ComplexScalar, Device, DeviceBuffer, Diag, Error, Handle, Op,
    Scalar, Status, Uplo,
};

// ---- the element types, seen from the test side ------------------------------------------

/// The four BLAS scalars, with the accuracy a sum rounded to each reaches; `hemv` exists for
/// the complex ones only.
trait T: El + Scalar {
    /// Relative accuracy, per square root of the summed length, of a sum rounded to this type.
    const TOL: f64;
    /// `hemv` in `y`'s layout (complex types only).
    fn hemv_call(
        h: &mut Handle,
        c: &Case,
        a: &Placed<Self>,
        x: &Placed<Self>,
        y: &mut Placed<Self>,
        alpha: Coef<'_, Self>,
        beta: Coef<'_, Self>,
    ) -> Result<Status, Error>;
}

macro_rules! real_t {
    ($t:ty, $tol:expr) => {
        impl T for $t {
            const TOL: f64 = $tol;
            fn hemv_call(
                _: &mut Handle,
                _: &Case,
                _: &Placed<Self>,
                _: &Placed<Self>,
                _: &mut Placed<Self>,
                _: Coef<'_, Self>,
                _: Coef<'_, Self>,
            ) -> Result<Status, Error> {
                unreachable!("hemv takes complex elements only")
            }
        }
    };
}
macro_rules! complex_t {
    ($t:ty, $tol:expr) => {
        impl T for $t {
            const TOL: f64 = $tol;
            fn hemv_call(
                h: &mut Handle,
                c: &Case,
                a: &Placed<Self>,
                x: &Placed<Self>,
                y: &mut Placed<Self>,
                alpha: Coef<'_, Self>,
                beta: Coef<'_, Self>,
            ) -> Result<Status, Error> {
                hemv_forms(h, c, a, x, y, alpha, beta)
            }
        }
    };
}
real_t!(f32, 1e-5);
real_t!(f64, 1e-12);
complex_t!(Complex32, 1e-5);
complex_t!(Complex64, 1e-12);

/// Uniform in [-1, 1) (both parts for complex types).
fn rnd<E: T>(r: &mut Gen) -> E {
    let re = r.uni();
    let im = if E::CPLX { r.uni() } else { 0.0 };
    E::make(re, im)
}

// ---- vectors and batch layouts -----------------------------------------------------------

/// Logical element i of a vector of `len` at increment `inc` (reference BLAS addressing).
fn idx(len: usize, inc: isize, i: usize) -> usize {
    if inc >= 0 {
        i * inc as usize
    } else {
        (len - 1 - i) * inc.unsigned_abs()
    }
}

/// Elements a vector of `len` at increment `inc` spans.
fn vspan(len: usize, inc: isize) -> usize {
    if len == 0 {
        0
    } else {
        (len - 1) * inc.unsigned_abs() + 1
    }
}

// ---- the calls ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Rt {
    Gemv,
    Symv,
    Hemv,
    Trmv,
    Tbmv,
    Tpmv,
    Trsv,
}

impl Rt {
    fn name(self) -> &'static str {
        match self {
            Rt::Gemv => "gemv",
            Rt::Symv => "symv",
            Rt::Hemv => "hemv",
            Rt::Trmv => "trmv",
            Rt::Tbmv => "tbmv",
            Rt::Tpmv => "tpmv",
            Rt::Trsv => "trsv",
        }
    }
}

/// One call's shape arguments.
#[derive(Clone, Copy, Debug)]
struct Case {
    rt: Rt,
    op: Op,
    uplo: Uplo,
    diag: Diag,
    m: usize,
    n: usize,
    k: usize,
    lda: usize,
    incx: isize,
    incy: isize,
}

const OPS: [Op; 3] = [Op::N, Op::T, Op::C];
const UPLOS: [Uplo; 2] = [Uplo::Upper, Uplo::Lower];
const DIAGS: [Diag; 2] = [Diag::NonUnit, Diag::Unit];

impl Case {
    fn gemv(op: Op, m: usize, n: usize, lda: usize, incx: isize, incy: isize) -> Case {
        Case {
            rt: Rt::Gemv,
            op,
            uplo: Uplo::Upper,
            diag: Diag::NonUnit,
            m,
            n,
            k: 0,
            lda,
            incx,
            incy,
        }
    }

    fn sym(rt: Rt, uplo: Uplo, n: usize, lda: usize, incx: isize, incy: isize) -> Case {
        Case {
            rt,
            op: Op::N,
            uplo,
            diag: Diag::NonUnit,
            m: n,
            n,
            k: 0,
            lda,
            incx,
            incy,
        }
    }

    fn tri(
        rt: Rt,
        uplo: Uplo,
        op: Op,
        diag: Diag,
        n: usize,
        k: usize,
        lda: usize,
        incx: isize,
    ) -> Case {
        Case {
            rt,
            op,
            uplo,
            diag,
            m: n,
            n,
            k,
            lda,
            incx,
            incy: 1,
        }
    }

    fn has_y(&self) -> bool {
        matches!(self.rt, Rt::Gemv | Rt::Symv | Rt::Hemv)
    }

    /// Rows of the logical matrix.
    fn rows(&self) -> usize {
        if self.rt == Rt::Gemv {
            self.m
        } else {
            self.n
        }
    }

    /// Lengths of the input and output vectors.
    fn lens(&self) -> (usize, usize) {
        match (self.rt, self.op) {
            (Rt::Gemv, Op::N) => (self.n, self.m),
            (Rt::Gemv, _) => (self.m, self.n),
            _ => (self.n, self.n),
        }
    }

    /// Elements the stored matrix spans.
    fn a_span(&self) -> usize {
        let (rows, n) = (self.rows(), self.n);
        match self.rt {
            Rt::Tbmv if n == 0 => 0,
            Rt::Tbmv => (n - 1) * self.lda + self.k + 1,
            Rt::Tpmv => n * (n + 1) / 2,
            _ if rows == 0 || n == 0 => 0,
            _ => (n - 1) * self.lda + rows,
        }
    }

    /// Where element (i, j) of the matrix is stored.
    fn pos(&self, i: usize, j: usize) -> usize {
        match (self.rt, self.uplo) {
            (Rt::Tbmv, Uplo::Upper) => self.k + i - j + j * self.lda,
            (Rt::Tbmv, Uplo::Lower) => i - j + j * self.lda,
            (Rt::Tpmv, Uplo::Upper) => i + j * (j + 1) / 2,
            (Rt::Tpmv, Uplo::Lower) => i + j * (2 * self.n - j - 1) / 2,
            _ => i + j * self.lda,
        }
    }

    /// Whether (i, j) is in the stored triangle (and band).
    fn stored(&self, i: usize, j: usize) -> bool {
        let tri = match self.uplo {
            Uplo::Upper => i <= j,
            Uplo::Lower => i >= j,
        };
        match self.rt {
            Rt::Gemv => true,
            Rt::Tbmv => tri && i.abs_diff(j) <= self.k,
            _ => tri,
        }
    }
}

fn hemv_forms<E: T + ComplexScalar>(
    h: &mut Handle,
    c: &Case,
    a: &Placed<E>,
    x: &Placed<E>,
    y: &mut Placed<E>,
    alpha: Coef<'_, E>,
    beta: Coef<'_, E>,
) -> Result<Status, Error> {
    let batch = form_count(y.form);
    let (sa, sx, sy) = (a.stride, x.stride, y.stride);
    match y.form {
        Form::Single => blas2::hemv(
            h,
            c.uplo,
            c.n,
            alpha,
            a.one(),
            c.lda,
            x.one(),
            c.incx,
            beta,
            y.one_mut(),
            c.incy,
        ),
        Form::List(_) => blas2::hemv_batched(
            h,
            c.uplo,
            c.n,
            alpha,
            &a.refs(),
            c.lda,
            &x.refs(),
            c.incx,
            beta,
            &mut y.muts(),
            c.incy,
        ),
        Form::Strided(_) => blas2::hemv_strided_batched(
            h,
            c.uplo,
            c.n,
            alpha,
            a.one(),
            c.lda,
            sa,
            x.one(),
            c.incx,
            sx,
            beta,
            y.one_mut(),
            c.incy,
            sy,
            batch,
        ),
    }
}

/// Calls the routine of `c` in `out`'s layout.
fn dispatch<E: T>(
    h: &mut Handle,
    c: &Case,
    a: &Placed<E>,
    x: Option<&Placed<E>>,
    out: &mut Placed<E>,
    alpha: Coef<'_, E>,
    beta: Coef<'_, E>,
) -> Result<Status, Error> {
    let form = out.form;
    let batch = form_count(form);
    let (sa, so) = (a.stride, out.stride);
    let (op, uplo, diag, n, k, lda, incx) = (c.op, c.uplo, c.diag, c.n, c.k, c.lda, c.incx);
    match c.rt {
        Rt::Gemv => {
            let x = x.unwrap();
            match form {
                Form::Single => blas2::gemv(
                    h,
                    op,
                    c.m,
                    n,
                    alpha,
                    a.one(),
                    lda,
                    x.one(),
                    incx,
                    beta,
                    out.one_mut(),
                    c.incy,
                ),
                Form::List(_) => blas2::gemv_batched(
                    h,
                    op,
                    c.m,
                    n,
                    alpha,
                    &a.refs(),
                    lda,
                    &x.refs(),
                    incx,
                    beta,
                    &mut out.muts(),
                    c.incy,
                ),
                Form::Strided(_) => blas2::gemv_strided_batched(
                    h,
                    op,
                    c.m,
                    n,
                    alpha,
                    a.one(),
                    lda,
                    sa,
                    x.one(),
                    incx,
                    x.stride,
                    beta,
                    out.one_mut(),
                    c.incy,
                    so,
                    batch,
                ),
            }
        }
        Rt::Symv => {
            let x = x.unwrap();
            match form {
                Form::Single => blas2::symv(
                    h,
                    uplo,
                    n,
                    alpha,
                    a.one(),
                    lda,
                    x.one(),
                    incx,
                    beta,
                    out.one_mut(),
                    c.incy,
                ),
                Form::List(_) => blas2::symv_batched(
                    h,
                    uplo,
                    n,
                    alpha,
                    &a.refs(),
                    lda,
                    &x.refs(),
                    incx,
                    beta,
                    &mut out.muts(),
                    c.incy,
                ),
                Form::Strided(_) => blas2::symv_strided_batched(
                    h,
                    uplo,
                    n,
                    alpha,
                    a.one(),
                    lda,
                    sa,
                    x.one(),
                    incx,
                    x.stride,
                    beta,
                    out.one_mut(),
                    c.incy,
                    so,
                    batch,
                ),
            }
        }
        Rt::Hemv => E::hemv_call(h, c, a, x.unwrap(), out, alpha, beta),
        Rt::Trmv => match form {
            Form::Single => blas2::trmv(h, uplo, op, diag, n, a.one(), lda, out.one_mut(), incx),
            Form::List(_) => {
                blas2::trmv_batched(h, uplo, op, diag, n, &a.refs(), lda, &mut out.muts(), incx)
            }
            Form::Strided(_) => blas2::trmv_strided_batched(
                h,
                uplo,
                op,
                diag,
                n,
                a.one(),
                lda,
                sa,
                out.one_mut(),
                incx,
                so,
                batch,
            ),
        },
        Rt::Tbmv => match form {
            Form::Single => blas2::tbmv(h, uplo, op, diag, n, k, a.one(), lda, out.one_mut(), incx),
            Form::List(_) => blas2::tbmv_batched(
                h,
                uplo,
                op,
                diag,
                n,
                k,
                &a.refs(),
                lda,
                &mut out.muts(),
                incx,
            ),
            Form::Strided(_) => blas2::tbmv_strided_batched(
                h,
                uplo,
                op,
                diag,
                n,
                k,
                a.one(),
                lda,
                sa,
                out.one_mut(),
                incx,
                so,
                batch,
            ),
        },
        Rt::Tpmv => match form {
            Form::Single => blas2::tpmv(h, uplo, op, diag, n, a.one(), out.one_mut(), incx),
            Form::List(_) => {
                blas2::tpmv_batched(h, uplo, op, diag, n, &a.refs(), &mut out.muts(), incx)
            }
            Form::Strided(_) => blas2::tpmv_strided_batched(
                h,
                uplo,
                op,
                diag,
                n,
                a.one(),
                sa,
                out.one_mut(),
                incx,
                so,
                batch,
            ),
        },
        Rt::Trsv => match form {
            Form::Single => blas2::trsv(h, uplo, op, diag, n, a.one(), lda, out.one_mut(), incx),
            Form::List(_) => {
                blas2::trsv_batched(h, uplo, op, diag, n, &a.refs(), lda, &mut out.muts(), incx)
            }
            Form::Strided(_) => blas2::trsv_strided_batched(
                h,
                uplo,
                op,
                diag,
                n,
                a.one(),
                lda,
                sa,
                out.one_mut(),
                incx,
                so,
                batch,
            ),
        },
    }
}

// ---- data and the reference --------------------------------------------------------------

/// The stored matrix (NaN wherever the routine must not read) and the logical matrix it
/// stands for (rows × n, column-major; symmetric/Hermitian completed; unit diagonal as ones).
fn gen_matrix<E: T>(c: &Case, r: &mut Gen) -> (Vec<E>, Vec<C>) {
    let (rows, n) = (c.rows(), c.n);
    let mut st = vec![nan::<E>(); c.a_span()];
    let mut dense = vec![ZERO; rows * n];
    let scale = 1.0 / (n.max(1) as f64).sqrt();
    for j in 0..n {
        for i in 0..rows {
            if !c.stored(i, j) {
                continue;
            }
            let p = c.pos(i, j);
            match c.rt {
                Rt::Gemv => {
                    let v: E = rnd(r);
                    st[p] = v;
                    dense[i + j * rows] = v.get();
                }
                Rt::Symv | Rt::Hemv => {
                    // The diagonal of a Hermitian matrix gets a non-zero imaginary part that
                    // hemv must ignore.
                    let v: E = rnd(r);
                    st[p] = v;
                    let g = v.get();
                    if c.rt == Rt::Hemv {
                        dense[j + i * rows] = conj(g);
                        dense[i + j * rows] = if i == j { (g.0, 0.0) } else { g };
                    } else {
                        dense[j + i * rows] = g;
                        dense[i + j * rows] = g;
                    }
                }
                _ => {
                    if i == j && c.diag == Diag::Unit {
                        dense[i + j * rows] = ONE; // stored diagonal stays NaN
                        continue;
                    }
                    let v: E = if c.rt != Rt::Trsv {
                        rnd(r)
                    } else if i == j {
                        // Well conditioned: |diagonal| in [1, 2), off-diagonal ~ 1/sqrt(n).
                        let re = 1.0 + r.uni().abs();
                        let re = if r.next() % 2 == 0 { re } else { -re };
                        let im = if E::CPLX { 0.5 * r.uni() } else { 0.0 };
                        E::make(re, im)
                    } else {
                        let g = rnd::<E>(r).get();
                        E::make(g.0 * scale, g.1 * scale)
                    };
                    st[p] = v;
                    dense[i + j * rows] = v.get();
                }
            }
        }
    }
    (st, dense)
}

/// A vector of `len` at `inc`: (storage with `gap` between the elements, logical values).
fn gen_vec<E: T>(r: &mut Gen, len: usize, inc: isize, gap: E, nans: bool) -> (Vec<E>, Vec<C>) {
    let mut st = vec![gap; vspan(len, inc)];
    let mut l = Vec::with_capacity(len);
    for i in 0..len {
        let v: E = if nans { nan() } else { rnd(r) };
        st[idx(len, inc, i)] = v;
        l.push(v.get());
    }
    (st, l)
}

/// Element (i, j) of the operator the routine applies: op(A), or the whole symmetric or
/// Hermitian matrix.
fn applied(c: &Case, dense: &[C], i: usize, j: usize) -> C {
    let rows = c.rows();
    match (c.rt, c.op) {
        (Rt::Symv | Rt::Hemv, _) | (_, Op::N) => dense[i + j * rows],
        (_, Op::T) => dense[j + i * rows],
        (_, Op::C) => conj(dense[j + i * rows]),
    }
}

/// The outputs of one entry, each with its tolerance.
fn reference<E: T>(c: &Case, dense: &[C], x: &[C], y: &[C], alpha: C, beta: C) -> Vec<(C, f64)> {
    let (lx, ly) = c.lens();
    let root = ((lx + 1) as f64).sqrt();
    match c.rt {
        Rt::Gemv | Rt::Symv | Rt::Hemv => (0..ly)
            .map(|i| {
                let (mut s, mut sc) = (ZERO, 0.0);
                if alpha != ZERO {
                    for j in 0..lx {
                        let a = applied(c, dense, i, j);
                        s = cadd(s, cmul(a, x[j]));
                        sc += mag(a) * mag(x[j]);
                    }
                }
                let mut v = cmul(alpha, s);
                let mut scale = mag(alpha) * sc;
                if beta != ZERO {
                    v = cadd(v, cmul(beta, y[i]));
                    scale += mag(beta) * mag(y[i]);
                }
                (v, E::TOL * scale * root)
            })
            .collect(),
        Rt::Trmv | Rt::Tbmv | Rt::Tpmv => (0..ly)
            .map(|i| {
                let (mut s, mut sc) = (ZERO, 0.0);
                for j in 0..lx {
                    let a = applied(c, dense, i, j);
                    s = cadd(s, cmul(a, x[j]));
                    sc += mag(a) * mag(x[j]);
                }
                (s, E::TOL * sc * root)
            })
            .collect(),
        Rt::Trsv => {
            let n = c.n;
            let lower = (c.uplo == Uplo::Lower) == (c.op == Op::N);
            let mut sol = x.to_vec();
            let order: Vec<usize> = if lower {
                (0..n).collect()
            } else {
                (0..n).rev().collect()
            };
            for &i in &order {
                let range = if lower { 0..i } else { i + 1..n };
                let mut s = x[i];
                for j in range {
                    s = csub(s, cmul(applied(c, dense, i, j), sol[j]));
                }
                sol[i] = cdiv(s, applied(c, dense, i, i));
            }
            let xmax = sol.iter().chain(x).map(|&v| mag(v)).fold(0.0, f64::max);
            let tol = 8.0 * n as f64 * E::EPS * xmax;
            sol.into_iter().map(|v| (v, tol)).collect()
        }
    }
}

/// Where the scalars of a call live.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scal {
    Host,
    Device,
    PerEntry,
}

/// A call ready to run, with its operands placed and its expected outputs.
struct Prepared<E: T> {
    c: Case,
    a: Placed<E>,
    x: Option<Placed<E>>,
    out: Placed<E>,
    scal: Scal,
    alphas: Vec<E>,
    betas: Vec<E>,
    alpha_buf: Option<DeviceBuffer<E>>,
    beta_buf: Option<DeviceBuffer<E>>,
    want: Vec<Vec<(usize, C, f64)>>,
}

/// Random operands for `c` in `form`. `alphas`/`betas`: one value (host, device) or one per
/// entry (`Scal::PerEntry`). `y` holds NaN where its entry's beta is 0; `nan_a` fills A and x
/// with NaN (for alpha == 0).
fn prepare<E: T>(
    dev: &Device,
    r: &mut Gen,
    c: Case,
    form: Form,
    scal: Scal,
    alphas: &[E],
    betas: &[E],
    nan_a: bool,
) -> Prepared<E> {
    let count = form_count(form);
    let (lx, ly) = c.lens();
    let (mut a_e, mut x_e, mut y_e, mut want) = (vec![], vec![], vec![], vec![]);
    for v in 0..count {
        let e = if scal == Scal::PerEntry { v } else { 0 };
        let (alpha, beta) = (alphas[e], betas[e]);
        let (mut st, dense) = gen_matrix::<E>(&c, r);
        if nan_a {
            st.iter_mut().for_each(|s| *s = nan());
        }
        let quick =
            match c.rt {
                Rt::Gemv => c.m == 0 || c.n == 0,
                _ => c.n == 0,
            } || (scal == Scal::Host && c.has_y() && alpha.get() == ZERO && beta.get() == ONE);
        let outs = if c.has_y() {
            let (xs, xl) = gen_vec::<E>(r, lx, c.incx, nan(), nan_a);
            let (ys, yl) = gen_vec::<E>(r, ly, c.incy, poison(), beta.get() == ZERO);
            let w = reference::<E>(&c, &dense, &xl, &yl, alpha.get(), beta.get());
            x_e.push(xs);
            y_e.push(ys);
            (w, c.incy)
        } else {
            let (xs, xl) = gen_vec::<E>(r, lx, c.incx, poison(), false);
            let w = reference::<E>(&c, &dense, &xl, &[], ONE, ZERO);
            y_e.push(xs);
            (w, c.incx)
        };
        let (w, inc) = outs;
        want.push(if quick {
            vec![]
        } else {
            w.into_iter()
                .enumerate()
                .map(|(i, (val, tol))| (idx(ly, inc, i), val, tol))
                .collect()
        });
        a_e.push(st);
    }
    let a = Placed::new(dev, form, c.a_span(), &a_e, nan());
    let (x, out) = if c.has_y() {
        (
            Some(Placed::new(dev, form, vspan(lx, c.incx), &x_e, nan())),
            Placed::new(dev, form, vspan(ly, c.incy), &y_e, poison()),
        )
    } else {
        (
            None,
            Placed::new(dev, form, vspan(lx, c.incx), &y_e, poison()),
        )
    };
    let upload = |vals: &[E]| {
        let mut v = vals.to_vec();
        v.push(nan()); // one past the values a call may use
        dev.upload(&v).unwrap()
    };
    let (alpha_buf, beta_buf) = match scal {
        Scal::Host => (None, None),
        Scal::Device => (Some(upload(&alphas[..1])), Some(upload(&betas[..1]))),
        Scal::PerEntry => (
            Some(upload(&alphas[..count])),
            Some(upload(&betas[..count])),
        ),
    };
    Prepared {
        c,
        a,
        x,
        out,
        scal,
        alphas: alphas.to_vec(),
        betas: betas.to_vec(),
        alpha_buf,
        beta_buf,
        want,
    }
}

impl<E: T> Prepared<E> {
    fn call(&mut self, h: &mut Handle) -> Result<Status, Error> {
        let (alpha, beta) = match self.scal {
            Scal::Host => (Coef::Host(self.alphas[0]), Coef::Host(self.betas[0])),
            Scal::Device => (
                Coef::Device(self.alpha_buf.as_ref().unwrap()),
                Coef::Device(self.beta_buf.as_ref().unwrap()),
            ),
            Scal::PerEntry => (
                Coef::DevicePerEntry(self.alpha_buf.as_ref().unwrap()),
                Coef::DevicePerEntry(self.beta_buf.as_ref().unwrap()),
            ),
        };
        dispatch(
            h,
            &self.c,
            &self.a,
            self.x.as_ref(),
            &mut self.out,
            alpha,
            beta,
        )
    }

    /// The same call with placeholders for every operand (host scalars).
    fn call_placeholders(&self, h: &mut Handle) -> Result<Status, Error> {
        let a = self.a.placeholders();
        let x = self.x.as_ref().map(|x| x.placeholders());
        let mut out = self.out.placeholders();
        dispatch(
            h,
            &self.c,
            &a,
            x.as_ref(),
            &mut out,
            Coef::Host(self.alphas[0]),
            Coef::Host(self.betas[0]),
        )
    }

    /// Outputs as expected, everything else bit-identical.
    fn check(&self, what: &str) {
        self.out.check(what, &self.want);
        self.inputs_untouched(what);
    }

    fn inputs_untouched(&self, what: &str) {
        self.a.untouched(&format!("{what} (A)"));
        if let Some(x) = &self.x {
            x.untouched(&format!("{what} (x)"));
        }
    }

    /// Nothing written anywhere.
    fn untouched(&self, what: &str) {
        self.out.untouched(what);
        self.inputs_untouched(what);
    }

    fn reset(&mut self) {
        self.out.reset();
    }
}

/// Coefficient pairs (alpha, beta) the correctness loops cycle through: general values,
/// beta = 0 (y is NaN then), beta = 1, alpha = 0.
const COEFS: &[(C, C)] = &[
    ((0.75, -0.25), (-1.25, 0.5)),
    ((1.0, 0.0), (0.0, 0.0)),
    ((-1.5, 0.5), (1.0, 0.0)),
    ((0.0, 0.0), (0.5, -0.75)),
    ((0.5, 1.0), (0.0, 0.0)),
    ((-0.25, 0.0), (2.0, 1.0)),
];

fn mk<E: T>(v: C) -> E {
    E::make(v.0, v.1)
}

/// Runs `c` in `form` with host scalars on `h` and checks every element of every buffer.
fn check_case<E: T>(h: &mut Handle, dev: &Device, r: &mut Gen, c: Case, form: Form, coefs: (C, C)) {
    let (alpha, beta) = (mk::<E>(coefs.0), mk::<E>(coefs.1));
    let mut p = prepare(dev, r, c, form, Scal::Host, &[alpha], &[beta], false);
    let what = format!("{} {c:?} {form:?} alpha={alpha:?} beta={beta:?}", E::NAME);
    let st = p.call(h).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(st, Status::Success, "{what}");
    p.check(&what);
}

// ---- F1: correctness of every routine, type and form -------------------------------------

/// Sizes where blocking changes, small enough for the whole cross product.
const SMALL: &[usize] = &[0, 1, 2, 31, 32, 33];
/// Block edges around 64 and 128.
const MID: &[usize] = &[63, 64, 65, 127, 128, 129];
/// A representative set of layouts with increments for the larger sizes.
const MID_FORMS: &[(Form, isize, isize)] = &[
    (Form::Single, 1, 1),
    (Form::Strided(1), -1, 2),
    (Form::List(7), 1, -1),
    (Form::Strided(7), 2, 1),
];
const INC_PAIRS: &[(isize, isize)] = &[(1, 1), (2, -1), (-3, 2)];
const INCS: &[isize] = &[1, -1, 2, -3];

fn gemv_suite<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0usize;
    // Every op, layout and increment pair at the small sizes, lda = m and m + 3.
    for &m in SMALL {
        for &n in SMALL {
            for op in OPS {
                for &(incx, incy) in INC_PAIRS {
                    for &form in FORMS {
                        t += 1;
                        let lda = if t % 2 == 0 { m + 3 } else { m.max(1) };
                        let c = Case::gemv(op, m, n, lda, incx, incy);
                        check_case::<E>(&mut h, dev, &mut r, c, form, COEFS[t % COEFS.len()]);
                    }
                }
            }
        }
    }
    // Block edges: square, and with a short other side.
    for &s in MID {
        for &(m, n) in &[(s, s), (s, 5), (5, s)] {
            for op in OPS {
                for &(form, incx, incy) in MID_FORMS {
                    t += 1;
                    if m != n && t % 2 == 0 {
                        continue;
                    }
                    let c = Case::gemv(op, m, n, m + (t % 2) * 3, incx, incy);
                    check_case::<E>(&mut h, dev, &mut r, c, form, COEFS[t % COEFS.len()]);
                }
            }
        }
    }
    // Large and skinny products, lda = m + 3.
    for &(m, n) in &[(1000, 1000), (300, 7), (7, 300), (1000, 33), (33, 1000)] {
        for op in OPS {
            let mut forms = vec![(Form::Single, 1, 1), (Form::Strided(1), -1, -2)];
            if m != n {
                forms.push((Form::List(7), 2, 1));
            }
            for (form, incx, incy) in forms {
                t += 1;
                let c = Case::gemv(op, m, n, m + 3, incx, incy);
                check_case::<E>(&mut h, dev, &mut r, c, form, COEFS[t % COEFS.len()]);
            }
        }
    }
}

fn symv_hemv_suite<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0usize;
    let rts: &[Rt] = if E::CPLX {
        &[Rt::Symv, Rt::Hemv]
    } else {
        &[Rt::Symv]
    };
    for &rt in rts {
        for &n in SMALL {
            for uplo in UPLOS {
                for &(incx, incy) in INC_PAIRS {
                    for &form in FORMS {
                        t += 1;
                        let lda = if t % 2 == 0 { n + 3 } else { n.max(1) };
                        let c = Case::sym(rt, uplo, n, lda, incx, incy);
                        check_case::<E>(&mut h, dev, &mut r, c, form, COEFS[t % COEFS.len()]);
                    }
                }
            }
        }
        for &n in MID {
            for uplo in UPLOS {
                for &(form, incx, incy) in MID_FORMS {
                    t += 1;
                    let c = Case::sym(rt, uplo, n, n + (t % 2) * 3, incx, incy);
                    check_case::<E>(&mut h, dev, &mut r, c, form, COEFS[t % COEFS.len()]);
                }
            }
        }
        for uplo in UPLOS {
            for &(form, incx, incy) in &[(Form::Single, 1, 1), (Form::Strided(1), -1, 2)] {
                t += 1;
                let c = Case::sym(rt, uplo, 1000, 1003, incx, incy);
                check_case::<E>(&mut h, dev, &mut r, c, form, COEFS[t % COEFS.len()]);
            }
        }
    }
}

/// Band widths 0, 1 and n - 1 (those valid for n); `[0]` for the other routines.
fn band_widths(rt: Rt, n: usize) -> Vec<usize> {
    if rt != Rt::Tbmv {
        return vec![0];
    }
    let mut ks = vec![0, 1, n.saturating_sub(1)];
    ks.retain(|&k| k < n.max(1));
    ks.dedup();
    ks
}

/// A leading dimension for the routine: the least valid one or three more.
fn tri_lda(rt: Rt, n: usize, k: usize, t: usize) -> usize {
    let extra = if t % 2 == 0 { 3 } else { 0 };
    match rt {
        Rt::Tbmv => k + 1 + extra,
        Rt::Tpmv => 0,
        _ => n.max(1) + extra,
    }
}

fn tri_suite<E: T>(dev: &Device, seed: u64, rt: Rt) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0usize;
    let mut combos = vec![];
    for uplo in UPLOS {
        for op in OPS {
            for diag in DIAGS {
                combos.push((uplo, op, diag));
            }
        }
    }
    let id = (ONE, ZERO);
    // Every uplo/op/diag, band width and layout at the small sizes; increments in rotation.
    for &n in SMALL {
        for &(uplo, op, diag) in &combos {
            for k in band_widths(rt, n) {
                for &form in FORMS {
                    t += 1;
                    let incx = INCS[t % INCS.len()];
                    let c = Case::tri(rt, uplo, op, diag, n, k, tri_lda(rt, n, k, t), incx);
                    check_case::<E>(&mut h, dev, &mut r, c, form, id);
                }
            }
        }
    }
    for &n in MID {
        for &(uplo, op, diag) in &combos {
            for &(form, incx, _) in &MID_FORMS[..3] {
                t += 1;
                let ks = band_widths(rt, n);
                let k = ks[t % ks.len()];
                let c = Case::tri(rt, uplo, op, diag, n, k, tri_lda(rt, n, k, t), incx);
                check_case::<E>(&mut h, dev, &mut r, c, form, id);
            }
        }
    }
    // Large: every uplo/op/diag; trsv also at 300 (the GPU changes algorithm above 128).
    let bigs: &[usize] = if rt == Rt::Trsv {
        &[300, 1000]
    } else {
        &[1000]
    };
    for &n in bigs {
        for (ci, &(uplo, op, diag)) in combos.iter().enumerate() {
            let mut forms = vec![(Form::Single, 1)];
            if ci % 3 == 0 {
                forms.push((Form::Strided(1), -1));
            }
            if n == 300 {
                forms.push((Form::List(3), 2));
                forms.push((Form::Strided(2), -3));
            }
            for (form, incx) in forms {
                t += 1;
                let ks = band_widths(rt, n);
                let k = ks[t % ks.len()];
                let c = Case::tri(rt, uplo, op, diag, n, k, tri_lda(rt, n, k, t), incx);
                check_case::<E>(&mut h, dev, &mut r, c, form, id);
            }
        }
    }
}

fn f1_gemv_all_ops_forms_sizes_f32(dev: &Device) {
    gemv_suite::<f32>(dev, 11)
}
fn f1_gemv_all_ops_forms_sizes_f64(dev: &Device) {
    gemv_suite::<f64>(dev, 12)
}
fn f1_gemv_all_ops_forms_sizes_c32(dev: &Device) {
    gemv_suite::<Complex32>(dev, 13)
}
fn f1_gemv_all_ops_forms_sizes_c64(dev: &Device) {
    gemv_suite::<Complex64>(dev, 14)
}
fn f1_symv_hemv_all_uplos_forms_sizes_f32(dev: &Device) {
    symv_hemv_suite::<f32>(dev, 21)
}
fn f1_symv_hemv_all_uplos_forms_sizes_f64(dev: &Device) {
    symv_hemv_suite::<f64>(dev, 22)
}
fn f1_symv_hemv_all_uplos_forms_sizes_c32(dev: &Device) {
    symv_hemv_suite::<Complex32>(dev, 23)
}
fn f1_symv_hemv_all_uplos_forms_sizes_c64(dev: &Device) {
    symv_hemv_suite::<Complex64>(dev, 24)
}
fn f1_trmv_all_uplos_ops_diags_forms_sizes_f32(dev: &Device) {
    tri_suite::<f32>(dev, 31, Rt::Trmv)
}
fn f1_trmv_all_uplos_ops_diags_forms_sizes_f64(dev: &Device) {
    tri_suite::<f64>(dev, 32, Rt::Trmv)
}
fn f1_trmv_all_uplos_ops_diags_forms_sizes_c32(dev: &Device) {
    tri_suite::<Complex32>(dev, 33, Rt::Trmv)
}
fn f1_trmv_all_uplos_ops_diags_forms_sizes_c64(dev: &Device) {
    tri_suite::<Complex64>(dev, 34, Rt::Trmv)
}
fn f1_tbmv_all_uplos_ops_diags_bands_forms_sizes_f32(dev: &Device) {
    tri_suite::<f32>(dev, 41, Rt::Tbmv)
}
fn f1_tbmv_all_uplos_ops_diags_bands_forms_sizes_f64(dev: &Device) {
    tri_suite::<f64>(dev, 42, Rt::Tbmv)
}
fn f1_tbmv_all_uplos_ops_diags_bands_forms_sizes_c32(dev: &Device) {
    tri_suite::<Complex32>(dev, 43, Rt::Tbmv)
}
fn f1_tbmv_all_uplos_ops_diags_bands_forms_sizes_c64(dev: &Device) {
    tri_suite::<Complex64>(dev, 44, Rt::Tbmv)
}
fn f1_tpmv_all_uplos_ops_diags_forms_sizes_f32(dev: &Device) {
    tri_suite::<f32>(dev, 51, Rt::Tpmv)
}
fn f1_tpmv_all_uplos_ops_diags_forms_sizes_f64(dev: &Device) {
    tri_suite::<f64>(dev, 52, Rt::Tpmv)
}
fn f1_tpmv_all_uplos_ops_diags_forms_sizes_c32(dev: &Device) {
    tri_suite::<Complex32>(dev, 53, Rt::Tpmv)
}
fn f1_tpmv_all_uplos_ops_diags_forms_sizes_c64(dev: &Device) {
    tri_suite::<Complex64>(dev, 54, Rt::Tpmv)
}
fn f1_trsv_all_uplos_ops_diags_forms_sizes_f32(dev: &Device) {
    tri_suite::<f32>(dev, 61, Rt::Trsv)
}
fn f1_trsv_all_uplos_ops_diags_forms_sizes_f64(dev: &Device) {
    tri_suite::<f64>(dev, 62, Rt::Trsv)
}
fn f1_trsv_all_uplos_ops_diags_forms_sizes_c32(dev: &Device) {
    tri_suite::<Complex32>(dev, 63, Rt::Trsv)
}
fn f1_trsv_all_uplos_ops_diags_forms_sizes_c64(dev: &Device) {
    tri_suite::<Complex64>(dev, 64, Rt::Trsv)
}

// ---- F3, F10: quick returns, beta = 0, alpha = 0, device scalars -------------------------

/// Shapes of the scalar tests: gemv both ways, symv, and hemv for complex types.
fn scalar_cases<E: T>(incx: isize, incy: isize) -> Vec<Case> {
    let mut v = vec![
        Case::gemv(Op::N, 33, 65, 36, incx, incy),
        Case::gemv(Op::C, 65, 33, 65, incx, incy),
        Case::sym(Rt::Symv, Uplo::Upper, 65, 65, incx, incy),
        Case::sym(Rt::Symv, Uplo::Lower, 33, 40, incx, incy),
    ];
    if E::CPLX {
        v.push(Case::sym(Rt::Hemv, Uplo::Upper, 33, 33, incx, incy));
        v.push(Case::sym(Rt::Hemv, Uplo::Lower, 65, 70, incx, incy));
    }
    v
}

fn run_prepared<E: T>(h: &mut Handle, p: &mut Prepared<E>, what: &str) {
    let st = p.call(h).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(st, Status::Success, "{what}");
    p.check(what);
}

fn quick_returns<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let (two, one, zero) = (mk::<E>((2.0, 0.5)), mk::<E>(ONE), mk::<E>(ZERO));
    let forms = [Form::Single, Form::List(3), Form::Strided(3)];
    for form in forms {
        // m == 0 or n == 0: y keeps its values even though beta != 1 and it has elements.
        for c in [
            Case::gemv(Op::N, 5, 0, 5, 1, 1),
            Case::gemv(Op::T, 0, 5, 1, 1, -2),
            Case::gemv(Op::C, 0, 4, 1, 2, 1),
            Case::gemv(Op::N, 0, 0, 1, 1, 1),
            Case::sym(Rt::Symv, Uplo::Upper, 0, 1, 1, 1),
        ] {
            let mut p = prepare(dev, &mut r, c, form, Scal::Host, &[two], &[two], false);
            let what = format!("{} quick {c:?} {form:?}", E::NAME);
            run_prepared(&mut h, &mut p, &what);
            p.untouched(&what);
        }
        // Triangular n == 0.
        for rt in [Rt::Trmv, Rt::Tbmv, Rt::Tpmv, Rt::Trsv] {
            let c = Case::tri(rt, Uplo::Lower, Op::T, Diag::NonUnit, 0, 0, 1, 1);
            let mut p = prepare(dev, &mut r, c, form, Scal::Host, &[one], &[zero], false);
            let what = format!("{} quick {c:?} {form:?}", E::NAME);
            run_prepared(&mut h, &mut p, &what);
            p.untouched(&what);
        }
        // Host alpha == 0 and beta == 1: nothing read, nothing written (A and x are NaN).
        for c in scalar_cases::<E>(-2, 1) {
            let mut p = prepare(dev, &mut r, c, form, Scal::Host, &[zero], &[one], true);
            let what = format!("{} alpha=0 beta=1 {c:?} {form:?}", E::NAME);
            run_prepared(&mut h, &mut p, &what);
            p.untouched(&what);
        }
    }
}

fn f3_quick_returns_touch_nothing(dev: &Device) {
    quick_returns::<f32>(dev, 71);
    quick_returns::<Complex64>(dev, 72);
}

fn zero_scalars<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let (a, b) = (mk::<E>((0.75, -0.5)), mk::<E>((-1.25, 0.25)));
    let (one, zero) = (mk::<E>(ONE), mk::<E>(ZERO));
    for form in [Form::Single, Form::List(3), Form::Strided(3)] {
        for &(incx, incy) in &[(1, 1), (-2, 3)] {
            for c in scalar_cases::<E>(incx, incy) {
                // (alpha, beta, scalars, A and x NaN)
                for (alpha, beta, scal, nan_a) in [
                    (a, zero, Scal::Host, false),    // y NaN, not read
                    (one, zero, Scal::Host, false),  // y NaN, not read
                    (zero, b, Scal::Host, true),     // y = beta y, A and x NaN, not read
                    (zero, zero, Scal::Host, true),  // y = 0 from NaN everywhere
                    (zero, one, Scal::Device, true), // no host quick return: y = y
                    (a, zero, Scal::Device, false),
                    (zero, b, Scal::Device, true),
                ] {
                    let mut p = prepare(dev, &mut r, c, form, scal, &[alpha], &[beta], nan_a);
                    let what = format!(
                        "{} {c:?} {form:?} alpha={alpha:?} beta={beta:?} {scal:?} nan_a={nan_a}",
                        E::NAME
                    );
                    run_prepared(&mut h, &mut p, &what);
                }
            }
        }
    }
}

fn f10_beta_zero_ignores_y_and_alpha_zero_ignores_a_and_x(dev: &Device) {
    zero_scalars::<f32>(dev, 81);
    zero_scalars::<f64>(dev, 82);
    zero_scalars::<Complex32>(dev, 83);
    zero_scalars::<Complex64>(dev, 84);
}

fn device_scalars<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let vals: Vec<C> = vec![
        (0.75, -0.5),
        (0.0, 0.0),
        (-1.25, 0.25),
        (1.0, 0.0),
        (2.0, 1.5),
    ];
    let alphas: Vec<E> = vals.iter().map(|&v| mk(v)).collect();
    // Entry 1: alpha 0 with beta != 0; entry 3: beta 0 (y NaN there); entry 4: beta 1.
    let betas: Vec<E> = [(0.5, 0.5), (-2.0, 0.0), (1.5, -1.0), (0.0, 0.0), (1.0, 0.0)]
        .iter()
        .map(|&v| mk(v))
        .collect();
    for c in scalar_cases::<E>(-1, 2) {
        for form in [Form::Single, Form::List(3), Form::Strided(3)] {
            let mut p = prepare(dev, &mut r, c, form, Scal::Device, &alphas, &betas, false);
            let what = format!("{} {c:?} {form:?} Coef::Device", E::NAME);
            run_prepared(&mut h, &mut p, &what);
        }
        for form in [
            Form::Single,
            Form::List(5),
            Form::Strided(5),
            Form::List(0),
            Form::Strided(0),
        ] {
            let mut p = prepare(dev, &mut r, c, form, Scal::PerEntry, &alphas, &betas, false);
            let what = format!("{} {c:?} {form:?} Coef::DevicePerEntry", E::NAME);
            run_prepared(&mut h, &mut p, &what);
        }
    }
}

fn f10_device_scalars_single_and_per_entry(dev: &Device) {
    device_scalars::<f32>(dev, 91);
    device_scalars::<f64>(dev, 92);
    device_scalars::<Complex32>(dev, 93);
    device_scalars::<Complex64>(dev, 94);
}

/// Inputs of one call may overlap (F9): one matrix and one x for every entry (stride 0, or a
/// list naming one buffer repeatedly).
fn f9_inputs_may_overlap(dev: &Device) {
    let mut h = handle(dev);
    let (m, n, batch) = (7usize, 5usize, 3usize);
    let a: Vec<f64> = (0..m * n).map(|i| (i % 11) as f64 - 4.0).collect();
    let x: Vec<f64> = (0..n).map(|i| i as f64 * 0.5 - 1.0).collect();
    let want: Vec<f64> = (0..m)
        .map(|i| (0..n).map(|j| a[i + j * m] * x[j]).sum::<f64>())
        .collect();
    let ab = dev.upload(&a).unwrap();
    let xb = dev.upload(&x).unwrap();
    let mut y = dev.upload(&vec![f64::NAN; m * batch + 1]).unwrap();
    let st = blas2::gemv_strided_batched(
        &mut h,
        Op::N,
        m,
        n,
        1.0.into(),
        &ab,
        m,
        0,
        &xb,
        1,
        0,
        0.0.into(),
        &mut y,
        1,
        m,
        batch,
    )
    .unwrap();
    assert_eq!(st, Status::Success);
    let got = y.to_vec().unwrap();
    for e in 0..batch {
        for i in 0..m {
            assert!(
                (got[e * m + i] - want[i]).abs() < 1e-12,
                "entry {e} row {i}"
            );
        }
    }
    assert!(got[m * batch].is_nan());
    // A list naming the same matrix and vector for every entry.
    let mut ys: Vec<DeviceBuffer<f64>> = (0..batch)
        .map(|_| dev.upload(&vec![f64::NAN; m]).unwrap())
        .collect();
    let mut ym: Vec<&mut DeviceBuffer<f64>> = ys.iter_mut().collect();
    let _ = blas2::gemv_batched(
        &mut h,
        Op::N,
        m,
        n,
        1.0.into(),
        &[&ab, &ab, &ab],
        m,
        &[&xb, &xb, &xb],
        1,
        0.0.into(),
        &mut ym,
        1,
    )
    .unwrap();
    for y in &ys {
        let got = y.to_vec().unwrap();
        for i in 0..m {
            assert!((got[i] - want[i]).abs() < 1e-12);
        }
    }
    // trsv with one matrix for every right-hand side.
    let l: Vec<f64> = (0..9).map(|i| if i % 4 == 0 { 2.0 } else { 0.5 }).collect();
    let lb = dev.upload(&l).unwrap();
    let mut xs = dev.upload(&[2.0, 2.5, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let _ = blas2::trsv_strided_batched(
        &mut h,
        Uplo::Lower,
        Op::N,
        Diag::NonUnit,
        3,
        &lb,
        3,
        0,
        &mut xs,
        1,
        3,
        2,
    )
    .unwrap();
    // L = [2 0 0; .5 2 0; .5 .5 2]: [2, 2.5, 3] -> [1, 1, 1]; [4, 5, 6] -> [2, 2, 2]
    assert_eq!(xs.to_vec().unwrap(), vec![1.0, 1.0, 1.0, 2.0, 2.0, 2.0]);
}

// ---- M6, M8, M9, F4, F8: the workspace ----------------------------------------------------

/// A representative call of every routine, including shapes that split (tall skinny
/// transposed, short wide) and the blocked trsv.
fn workspace_cases<E: T>(dev: &Device, r: &mut Gen) -> Vec<(String, Prepared<E>)> {
    let (alpha, beta) = (mk::<E>((0.75, -0.25)), mk::<E>((0.5, 0.125)));
    let mut cases = vec![
        (Case::gemv(Op::T, 1 << 16, 8, 1 << 16, 1, 1), Form::Single),
        (Case::gemv(Op::N, 8, 1 << 16, 8, 1, -1), Form::Single),
        (Case::gemv(Op::C, 1000, 33, 1003, 1, 1), Form::Strided(3)),
        (Case::gemv(Op::N, 300, 7, 300, 2, 1), Form::List(7)),
        (
            Case::sym(Rt::Symv, Uplo::Upper, 1000, 1000, 1, 1),
            Form::Single,
        ),
        (
            Case::tri(
                Rt::Trmv,
                Uplo::Lower,
                Op::T,
                Diag::NonUnit,
                1000,
                0,
                1000,
                1,
            ),
            Form::Single,
        ),
        (
            Case::tri(Rt::Tbmv, Uplo::Upper, Op::N, Diag::Unit, 1000, 5, 6, -1),
            Form::Strided(2),
        ),
        (
            Case::tri(Rt::Tpmv, Uplo::Lower, Op::C, Diag::NonUnit, 500, 0, 0, 1),
            Form::List(2),
        ),
        (
            Case::tri(
                Rt::Trsv,
                Uplo::Upper,
                Op::N,
                Diag::NonUnit,
                1000,
                0,
                1000,
                1,
            ),
            Form::Single,
        ),
        (
            Case::tri(Rt::Trsv, Uplo::Lower, Op::T, Diag::Unit, 300, 0, 300, 2),
            Form::Strided(2),
        ),
        (
            Case::tri(Rt::Trsv, Uplo::Upper, Op::C, Diag::NonUnit, 200, 0, 200, 1),
            Form::List(3),
        ),
    ];
    if E::CPLX {
        cases.push((
            Case::sym(Rt::Hemv, Uplo::Lower, 1000, 1000, -1, 1),
            Form::Single,
        ));
    }
    cases
        .into_iter()
        .map(|(c, form)| {
            (
                format!("{} {c:?} {form:?}", E::NAME),
                prepare(dev, r, c, form, Scal::Host, &[alpha], &[beta], false),
            )
        })
        .collect()
}

fn query_preallocate_small<E: T>(dev: &Device, seed: u64) {
    let mut r = Gen::new(seed);
    for (name, mut p) in workspace_cases::<E>(dev, &mut r) {
        // M8: placeholders are accepted; real operands are not touched; nothing is leased.
        let mut h = fixed_handle(dev, 0);
        h.start_device_memory_size_query().unwrap();
        let st = p
            .call_placeholders(&mut h)
            .unwrap_or_else(|e| panic!("{name}: query with placeholders: {e}"));
        assert!(
            matches!(st, Status::SizeIncreased | Status::SizeUnchanged),
            "{name}: {st:?}"
        );
        let again = p.call(&mut h).unwrap();
        assert_eq!(again, Status::SizeUnchanged, "{name}: the same call again");
        p.untouched(&format!("{name}: during a query"));
        let size = h.stop_device_memory_size_query().unwrap();
        assert_eq!(st == Status::SizeIncreased, size > 0, "{name}: size {size}");
        let s = h.workspace_stats();
        assert_eq!(
            (s.leases, s.growths, s.capacity, s.memory_errors),
            (0, 0, 0, 0),
            "{name}: {s}"
        );
        // M9: preallocated with the answer, the call runs as planned.
        let _ = h.set_device_memory_size(size).unwrap();
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(st, Status::Success, "{name}: size {size}");
        p.check(&name);
        let s = h.workspace_stats();
        assert_eq!((s.memory_errors, s.degraded_calls), (0, 0), "{name}: {s}");
        // M6: a fixed 1 KiB workspace degrades exactly when the query exceeds it.
        p.reset();
        let mut small = fixed_handle(dev, 1024);
        let st = p
            .call(&mut small)
            .unwrap_or_else(|e| panic!("{name}: 1 KiB: {e}"));
        let degraded = size > 1024;
        let expect = if degraded {
            Status::PerfDegraded
        } else {
            Status::Success
        };
        assert_eq!(st, expect, "{name}: 1 KiB workspace, query said {size}");
        p.check(&format!("{name} (1 KiB workspace)"));
        let s = small.workspace_stats();
        assert_eq!(s.degraded_calls, degraded as u64, "{name}: {s}");
        assert_eq!(s.memory_errors, 0, "{name}: {s}");
        assert_eq!(small.get_device_memory_size(), 1024);
    }
}

fn m08_m09_m06_query_then_preallocate_then_1kib_f32(dev: &Device) {
    query_preallocate_small::<f32>(dev, 101)
}
fn m08_m09_m06_query_then_preallocate_then_1kib_c64(dev: &Device) {
    query_preallocate_small::<Complex64>(dev, 102)
}

/// During a query sizes and shapes are still checked (M8), and the query stays active.
fn m08_query_still_checks_sizes(dev: &Device) {
    let mut h = fixed_handle(dev, 0);
    h.start_device_memory_size_query().unwrap();
    let a = DeviceBuffer::<f64>::placeholder(100);
    let x = DeviceBuffer::<f64>::placeholder(10);
    let mut y = DeviceBuffer::<f64>::placeholder(10);
    let e = blas2::gemv(
        &mut h,
        Op::N,
        10,
        10,
        1.0.into(),
        &a,
        9,
        &x,
        1,
        0.0.into(),
        &mut y,
        1,
    )
    .unwrap_err();
    assert!(
        matches!(e, Error::InvalidSize(_)) && e.to_string().contains("lda = 9"),
        "{e}"
    );
    let e = blas2::tbmv(
        &mut h,
        Uplo::Upper,
        Op::N,
        Diag::Unit,
        5,
        5,
        &a,
        5,
        &mut y,
        1,
    )
    .unwrap_err();
    // k >= n is valid (reference BLAS); lda < k + 1 is not.
    assert!(
        matches!(e, Error::InvalidSize(_)) && e.to_string().contains("lda = 5"),
        "{e}"
    );
    assert!(h.is_device_memory_size_query());
    // Placeholders too short are not checked during a query (operands are checked later).
    let tiny = DeviceBuffer::<f64>::placeholder(1);
    let st = blas2::trmv(
        &mut h,
        Uplo::Upper,
        Op::N,
        Diag::Unit,
        5,
        &tiny,
        5,
        &mut y,
        1,
    )
    .unwrap();
    assert!(matches!(st, Status::SizeIncreased | Status::SizeUnchanged));
    let _ = h.stop_device_memory_size_query().unwrap();
}

/// F4: `workspace_bytes` answers what a query answers.
fn f4_workspace_bytes_agrees_with_the_query(dev: &Device) {
    fn agree<E: T>(dev: &Device, c: Case, form: Form) {
        let count = form_count(form);
        let (lx, ly) = c.lens();
        let ph = |span: usize| {
            let mut p = Placed::<E> {
                form,
                stride: span + GAP,
                bufs: vec![],
                before: vec![],
            };
            let lens: Vec<usize> = match form {
                Form::Single => vec![span + 1],
                Form::List(n) => vec![span + 1; n],
                Form::Strided(n) => vec![(span + GAP) * n + 1],
            };
            p.bufs = lens.iter().map(|&l| DeviceBuffer::placeholder(l)).collect();
            p
        };
        let a = ph(c.a_span());
        let (x, mut out) = if c.has_y() {
            (Some(ph(vspan(lx, c.incx))), ph(vspan(ly, c.incy)))
        } else {
            (None, ph(vspan(lx, c.incx)))
        };
        let mut h = fixed_handle(dev, 0);
        h.start_device_memory_size_query().unwrap();
        let (alpha, beta) = (mk::<E>((0.5, 0.0)), mk::<E>((2.0, 0.0)));
        let _ = dispatch(
            &mut h,
            &c,
            &a,
            x.as_ref(),
            &mut out,
            alpha.into(),
            beta.into(),
        )
        .unwrap_or_else(|e| panic!("{c:?}: {e}"));
        let q = h.stop_device_memory_size_query().unwrap();
        let op = if c.has_y() && c.rt != Rt::Gemv {
            Op::N
        } else {
            c.op
        };
        let w = blas2::workspace_bytes(
            dev,
            c.rt.name(),
            op,
            c.m,
            c.n,
            std::mem::size_of::<E>(),
            count,
            matches!(form, Form::List(_)),
        )
        .unwrap();
        assert_eq!(w, q, "{} {c:?} {form:?}", E::NAME);
    }
    let tri = |rt, uplo, op, n, k, lda| Case::tri(rt, uplo, op, Diag::NonUnit, n, k, lda, 1);
    agree::<f32>(
        dev,
        Case::gemv(Op::T, 1 << 16, 8, 1 << 16, 1, 1),
        Form::Single,
    );
    agree::<f64>(
        dev,
        Case::gemv(Op::N, 8, 1 << 16, 8, 1, 1),
        Form::Strided(3),
    );
    agree::<Complex32>(dev, Case::gemv(Op::C, 16, 16, 16, 1, 1), Form::List(100));
    agree::<f64>(dev, Case::gemv(Op::N, 0, 16, 1, 1, 1), Form::Single);
    agree::<f64>(
        dev,
        Case::sym(Rt::Symv, Uplo::Upper, 1000, 1000, 1, 1),
        Form::Single,
    );
    agree::<Complex64>(
        dev,
        Case::sym(Rt::Hemv, Uplo::Lower, 1000, 1000, 1, 1),
        Form::List(2),
    );
    agree::<f32>(
        dev,
        tri(Rt::Trmv, Uplo::Lower, Op::T, 1000, 0, 1000),
        Form::Single,
    );
    agree::<Complex32>(
        dev,
        tri(Rt::Tbmv, Uplo::Upper, Op::N, 1000, 5, 6),
        Form::Strided(2),
    );
    agree::<f64>(
        dev,
        tri(Rt::Tpmv, Uplo::Lower, Op::C, 500, 0, 0),
        Form::List(4),
    );
    agree::<f64>(
        dev,
        tri(Rt::Trsv, Uplo::Upper, Op::N, 1000, 0, 1000),
        Form::Single,
    );
    agree::<Complex64>(
        dev,
        tri(Rt::Trsv, Uplo::Lower, Op::C, 1000, 0, 1000),
        Form::Single,
    );
    agree::<f32>(
        dev,
        tri(Rt::Trsv, Uplo::Lower, Op::N, 100, 0, 100),
        Form::List(9),
    );
}

/// F8: a list batch of 100 runs in chunks in a 1 KiB workspace, with the same answers.
fn f8_list_batch_of_100_runs_in_chunks_in_1kib(dev: &Device) {
    let mut r = Gen::new(111);
    let (alpha, beta) = (0.75f64, -0.5f64);
    let tri = |rt, uplo, op, diag| Case::tri(rt, uplo, op, diag, 16, 0, 16, 1);
    for c in [
        Case::gemv(Op::T, 16, 16, 16, 1, 1),
        Case::gemv(Op::N, 16, 16, 19, -1, 2),
        Case::sym(Rt::Symv, Uplo::Lower, 16, 16, 1, 1),
        tri(Rt::Trmv, Uplo::Upper, Op::N, Diag::NonUnit),
        tri(Rt::Tpmv, Uplo::Lower, Op::T, Diag::Unit),
        tri(Rt::Trsv, Uplo::Lower, Op::N, Diag::Unit),
        tri(Rt::Trsv, Uplo::Upper, Op::T, Diag::NonUnit),
    ] {
        let name = format!("{c:?} List(100)");
        let mut p = prepare(
            dev,
            &mut r,
            c,
            Form::List(100),
            Scal::Host,
            &[alpha],
            &[beta],
            false,
        );
        let mut q = fixed_handle(dev, 0);
        q.start_device_memory_size_query().unwrap();
        let _ = p.call_placeholders(&mut q).unwrap();
        let size = q.stop_device_memory_size_query().unwrap();
        assert!(size > 1024, "{name}: query {size}");
        let mut small = fixed_handle(dev, 1024);
        let st = p.call(&mut small).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(st, Status::PerfDegraded, "{name}");
        p.check(&name);
        let s = small.workspace_stats();
        assert_eq!((s.degraded_calls, s.memory_errors), (1, 0), "{name}: {s}");
    }
}

/// F8: when not even one entry's table fits, `MemoryError` naming both sizes and the
/// per-entry need, with every output untouched.
fn f8_memory_error_when_not_one_entry_fits(dev: &Device) {
    let mut r = Gen::new(112);
    let mut h = user_owned_handle(dev, 8);
    let tri = |rt, n| Case::tri(rt, Uplo::Upper, Op::N, Diag::NonUnit, n, 0, n, 1);
    let mut errors = 0;
    for (c, form) in [
        (Case::gemv(Op::N, 16, 16, 16, 1, 1), Form::List(5)),
        (Case::gemv(Op::T, 1 << 12, 8, 1 << 12, 1, 1), Form::List(2)),
        (
            Case::sym(Rt::Symv, Uplo::Upper, 100, 100, 1, 1),
            Form::List(3),
        ),
        (tri(Rt::Trmv, 16), Form::List(5)),
        (tri(Rt::Trsv, 300), Form::List(2)),
    ] {
        let name = format!("{c:?} {form:?}");
        let mut p = prepare(dev, &mut r, c, form, Scal::Host, &[1.5f64], &[0.5], false);
        let mut q = fixed_handle(dev, 0);
        q.start_device_memory_size_query().unwrap();
        let _ = p.call_placeholders(&mut q).unwrap();
        let size = q.stop_device_memory_size_query().unwrap();
        let e = p.call(&mut h).unwrap_err();
        errors += 1;
        match &e {
            Error::MemoryError {
                needed, available, ..
            } => assert_eq!((*needed, *available), (size, 8), "{name}: {e}"),
            _ => panic!("{name}: {e}"),
        }
        let text = e.to_string();
        for part in [size.to_string(), "8 bytes".to_string(), "64".to_string()] {
            assert!(text.contains(&part), "{name}: '{text}' lacks '{part}'");
        }
        p.untouched(&name);
        assert_eq!(h.workspace_stats().memory_errors, errors, "{name}");
    }
}

/// F8: a workspace that holds one entry's address table (one 64-byte chunk) runs a list batch
/// one entry at a time rather than failing.
fn f8_a_workspace_holding_one_entry_runs_the_list(dev: &Device) {
    let mut r = Gen::new(113);
    let tri = |rt, n| Case::tri(rt, Uplo::Lower, Op::N, Diag::NonUnit, n, 0, n, 1);
    for (c, form) in [
        (Case::gemv(Op::N, 4, 4, 4, 1, 1), Form::List(3)),
        (tri(Rt::Trsv, 4), Form::List(5)),
    ] {
        let name = format!("{c:?} {form:?} in 64 bytes");
        let mut p = prepare(dev, &mut r, c, form, Scal::Host, &[1.5f64], &[0.5], false);
        let mut q = fixed_handle(dev, 0);
        q.start_device_memory_size_query().unwrap();
        let _ = p.call_placeholders(&mut q).unwrap();
        let size = q.stop_device_memory_size_query().unwrap();
        assert!(size > 64, "{name}: query {size}");
        let mut h = fixed_handle(dev, 64);
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(st, Status::PerfDegraded, "{name}");
        p.check(&name);
    }
}

/// M6: routines whose reduced algorithm needs no workspace at all (gemv without splits,
/// symv reading the triangle twice, in-place trmv, substitution trsv) run in a workspace too
/// small for anything, degraded, with the same answers.
fn m06_reduced_algorithms_run_in_an_8_byte_workspace(dev: &Device) {
    let mut r = Gen::new(114);
    let tri = |rt, op, n, k, lda| Case::tri(rt, Uplo::Lower, op, Diag::NonUnit, n, k, lda, 1);
    for (c, form) in [
        (Case::gemv(Op::T, 1 << 16, 8, 1 << 16, 1, 1), Form::Single),
        (
            Case::sym(Rt::Symv, Uplo::Upper, 300, 300, 1, 1),
            Form::Single,
        ),
        (tri(Rt::Trmv, Op::T, 300, 0, 300), Form::Single),
        (tri(Rt::Tbmv, Op::N, 300, 3, 4), Form::Strided(2)),
        (tri(Rt::Tpmv, Op::C, 300, 0, 0), Form::Single),
        (tri(Rt::Trsv, Op::N, 300, 0, 300), Form::Single),
        (tri(Rt::Trsv, Op::T, 300, 0, 300), Form::Strided(2)),
    ] {
        let name = format!("{c:?} {form:?} in 8 bytes");
        let mut p = prepare(dev, &mut r, c, form, Scal::Host, &[1.5f64], &[0.5], false);
        let mut q = fixed_handle(dev, 0);
        q.start_device_memory_size_query().unwrap();
        let _ = p.call_placeholders(&mut q).unwrap();
        let size = q.stop_device_memory_size_query().unwrap();
        assert!(size > 8, "{name}: query {size}");
        let mut h = user_owned_handle(dev, 8);
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(st, Status::PerfDegraded, "{name}");
        p.check(&name);
    }
}

// ---- F7, F9, F10: bad arguments -----------------------------------------------------------

/// Asserts the error's kind and that its message names `parts`.
fn expect_err(
    r: Result<Status, Error>,
    kind: fn(&Error) -> bool,
    parts: &[&str],
    what: &str,
) -> Error {
    let e = match r {
        Ok(st) => panic!("{what}: expected an error, got {st:?}"),
        Err(e) => e,
    };
    assert!(kind(&e), "{what}: wrong kind: {e:?}");
    let text = e.to_string();
    for p in parts {
        // Case-insensitive: "stride_A" names the argument stride_a.
        assert!(
            text.to_lowercase().contains(&p.to_lowercase()),
            "{what}: '{text}' lacks '{p}'"
        );
    }
    e
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

/// Output buffers poisoned with a known pattern, checked bit for bit at the end.
struct Outs {
    bufs: Vec<DeviceBuffer<f64>>,
}
impl Outs {
    fn new(dev: &Device, lens: &[usize]) -> Outs {
        Outs {
            bufs: lens
                .iter()
                .map(|&l| dev.upload(&pattern(l)).unwrap())
                .collect(),
        }
    }
    fn check(&self) {
        for (i, b) in self.bufs.iter().enumerate() {
            let got = b.to_vec().unwrap();
            let want = pattern(got.len());
            assert!(
                got.iter()
                    .zip(&want)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "output {i} was written: {got:?}"
            );
        }
    }
}
fn pattern(len: usize) -> Vec<f64> {
    (0..len).map(|i| -7.5 - i as f64).collect()
}

fn f7_bad_sizes_and_short_buffers_are_errors_with_outputs_untouched(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let a = up(64);
    let x = up(16);
    let mut o = Outs::new(dev, &[16, 4, 8, 40, 3]);
    let (al, be) = (Coef::Host(1.0f64), Coef::Host(0.5f64));
    let (u, l) = (Uplo::Upper, Uplo::Lower);
    let (nu, un) = (Diag::NonUnit, Diag::Unit);
    {
        let [y, y4, x8, ys, _] = &mut o.bufs[..] else {
            unreachable!()
        };
        // Leading dimensions.
        let r = blas2::gemv(&mut h, Op::N, 5, 4, al, &a, 4, &x, 1, be, y, 1);
        expect_err(r, is_size, &["gemv", "lda = 4", "5"], "gemv lda < m");
        let r = blas2::gemv_strided_batched(
            &mut h,
            Op::T,
            6,
            2,
            al,
            &a,
            5,
            12,
            &x,
            1,
            6,
            be,
            ys,
            1,
            2,
            2,
        );
        expect_err(r, is_size, &["lda = 5", "6"], "gemv_strided lda < m");
        let r = blas2::symv(&mut h, u, 6, al, &a, 5, &x, 1, be, y, 1);
        expect_err(r, is_size, &["symv", "lda = 5", "6"], "symv lda < n");
        let r = blas2::trmv(&mut h, l, Op::N, nu, 6, &a, 3, y, 1);
        expect_err(r, is_size, &["trmv", "lda = 3", "6"], "trmv lda < n");
        let r = blas2::trsv(&mut h, u, Op::T, un, 7, &a, 6, y, 1);
        expect_err(r, is_size, &["trsv", "lda = 6", "7"], "trsv lda < n");
        let r = blas2::tbmv(&mut h, u, Op::N, nu, 6, 2, &a, 2, y, 1);
        expect_err(r, is_size, &["tbmv", "lda = 2", "3"], "tbmv lda < k + 1");
        // Band widths k >= n are valid (tests/reference/increments.rs); their A still has to
        // hold (n - 1) lda + k + 1 elements.
        let a39 = up(39);
        let r = blas2::tbmv(&mut h, l, Op::T, un, 4, 9, &a39, 10, y, 1);
        expect_err(
            r,
            is_value,
            &["has 39 elements", "needs 40"],
            "tbmv k > n A short",
        );
        // Zero increments.
        let r = blas2::gemv(&mut h, Op::N, 4, 4, al, &a, 4, &x, 0, be, y, 1);
        expect_err(r, is_value, &["gemv", "incx = 0"], "gemv incx = 0");
        let r = blas2::gemv(&mut h, Op::T, 4, 4, al, &a, 4, &x, 1, be, y, 0);
        expect_err(r, is_value, &["gemv", "incy = 0"], "gemv incy = 0");
        let r = blas2::symv(&mut h, l, 4, al, &a, 4, &x, 1, be, y, 0);
        expect_err(r, is_value, &["incy = 0"], "symv incy = 0");
        let r = blas2::trmv(&mut h, u, Op::C, nu, 4, &a, 4, y, 0);
        expect_err(r, is_value, &["trmv", "incx = 0"], "trmv incx = 0");
        let r = blas2::tpmv(&mut h, u, Op::N, nu, 4, &a, y, 0);
        expect_err(r, is_value, &["incx = 0"], "tpmv incx = 0");
        let r = blas2::trsv_strided_batched(&mut h, u, Op::N, nu, 4, &a, 4, 16, ys, 0, 5, 2);
        expect_err(r, is_value, &["incx = 0"], "trsv_strided incx = 0");
        // A, x, y one element too short.
        let a19 = up(19);
        let r = blas2::gemv(&mut h, Op::N, 5, 4, al, &a19, 5, &x, 1, be, y, 1);
        expect_err(
            r,
            is_value,
            &["has 19 elements", "needs 20"],
            "gemv A short",
        );
        let x6 = up(6);
        let r = blas2::gemv(&mut h, Op::N, 5, 4, al, &a, 5, &x6, 2, be, y, 1);
        expect_err(r, is_value, &["has 6 elements", "needs 7"], "gemv x short");
        let r = blas2::gemv(&mut h, Op::N, 5, 4, al, &a, 5, &x, 1, be, y4, -1);
        expect_err(r, is_value, &["has 4 elements", "needs 5"], "gemv y short");
        let r = blas2::gemv(&mut h, Op::T, 5, 9, al, &a, 5, &x, 1, be, x8, 1);
        expect_err(
            r,
            is_value,
            &["has 8 elements", "needs 9"],
            "gemv T y short",
        );
        let r = blas2::symv(&mut h, u, 4, al, &a, 4, &x, 1, be, y4, 2);
        expect_err(r, is_value, &["has 4 elements", "needs 7"], "symv y short");
        let r = blas2::trmv(&mut h, l, Op::N, nu, 5, &a, 5, x8, -2);
        expect_err(r, is_value, &["has 8 elements", "needs 9"], "trmv x short");
        let r = blas2::trsv(&mut h, l, Op::N, nu, 8, &a19, 3 + 5, x8, 1);
        expect_err(
            r,
            is_value,
            &["has 19 elements", "needs 64"],
            "trsv A short",
        );
        let ap9 = up(9);
        let r = blas2::tpmv(&mut h, u, Op::T, nu, 4, &ap9, y, 1);
        expect_err(
            r,
            is_value,
            &["has 9 elements", "needs 10"],
            "tpmv ap short",
        );
        let a14 = up(14);
        let r = blas2::tbmv(&mut h, u, Op::N, un, 5, 2, &a14, 3, y, 1);
        expect_err(
            r,
            is_value,
            &["has 14 elements", "needs 15"],
            "tbmv A short",
        );
        // Strided: the last entry runs past the buffer.
        let a35 = up(35);
        let r = blas2::gemv_strided_batched(
            &mut h,
            Op::N,
            4,
            3,
            al,
            &a35,
            4,
            12,
            &x,
            1,
            3,
            be,
            ys,
            1,
            4,
            3,
        );
        expect_err(
            r,
            is_value,
            &["has 35 elements", "needs 36", "stride_a = 12"],
            "gemv_strided A short",
        );
        let r = blas2::gemv_strided_batched(
            &mut h,
            Op::N,
            4,
            3,
            al,
            &a,
            4,
            12,
            &x,
            1,
            7,
            be,
            ys,
            1,
            4,
            3,
        );
        expect_err(
            r,
            is_value,
            &["has 16 elements", "needs 17", "stride_x = 7"],
            "gemv_strided x short",
        );
        let r = blas2::trmv_strided_batched(&mut h, u, Op::N, nu, 4, &a, 4, 16, ys, 1, 13, 4);
        expect_err(
            r,
            is_value,
            &["has 40 elements", "needs 43", "stride_x = 13"],
            "trmv_strided x short",
        );
    }
    o.check();
    // One bad entry in a list: no entry is written.
    let mut ys: Vec<DeviceBuffer<f64>> = (0..3).map(|_| dev.upload(&pattern(5)).unwrap()).collect();
    let x3 = up(3);
    let mut ym: Vec<&mut DeviceBuffer<f64>> = ys.iter_mut().collect();
    let r = blas2::gemv_batched(
        &mut h,
        Op::N,
        5,
        4,
        al,
        &[&a, &a, &a],
        5,
        &[&x, &x, &x3],
        1,
        be,
        &mut ym,
        1,
    );
    expect_err(
        r,
        is_value,
        &["x[2] has 3 elements", "needs 4"],
        "gemv_batched x[2] short",
    );
    let r = blas2::trsv_batched(
        &mut h,
        Uplo::Lower,
        Op::N,
        Diag::NonUnit,
        5,
        &[&a, &x],
        5,
        &mut ym[..2],
        1,
    );
    expect_err(
        r,
        is_value,
        &["A[1] has 16 elements", "needs 25"],
        "trsv_batched A[1] short",
    );
    for y in &ys {
        assert_eq!(y.to_vec().unwrap(), pattern(5), "a list entry was written");
    }
}

/// Sizes whose spans or workspace needs overflow the address space are `InvalidSize`, never a
/// panic (M16, F7), outside a query; during a query (placeholders) they must not panic either.
/// Every case runs; the failures are listed together.
fn f7_huge_sizes_are_invalid_size_never_a_panic(dev: &Device) {
    type Call = Box<dyn Fn(&mut Handle, bool) -> Result<Status, Error>>;
    let d = dev.clone();
    // Small real buffers, or placeholders of the same lengths during a query.
    let bufs = move |ph: bool| {
        let mk = |len: usize| {
            if ph {
                DeviceBuffer::<f64>::placeholder(len)
            } else {
                d.upload(&vec![0.5f64; len]).unwrap()
            }
        };
        (mk(64), mk(16), mk(16))
    };
    let bufs = std::rc::Rc::new(bufs);
    let (al, be) = (Coef::Host(1.0f64), Coef::Host(0.5f64));
    let (u, l, nu) = (Uplo::Upper, Uplo::Lower, Diag::NonUnit);
    let mut cases: Vec<(&str, Call)> = vec![];
    macro_rules! case {
        ($name:expr, |$h:ident, $a:ident, $x:ident, $y:ident| $body:expr) => {{
            let b = bufs.clone();
            cases.push((
                $name,
                Box::new(move |$h: &mut Handle, ph: bool| {
                    let ($a, $x, mut $y) = b(ph);
                    let $y = &mut $y;
                    $body
                }),
            ));
        }};
    }
    case!("gemv N m = lda = usize::MAX", |h, a, x, y| blas2::gemv(
        h,
        Op::N,
        usize::MAX,
        2,
        al,
        &a,
        usize::MAX,
        &x,
        1,
        be,
        y,
        1
    ));
    case!("gemv T m = lda = usize::MAX", |h, a, x, y| blas2::gemv(
        h,
        Op::T,
        usize::MAX,
        2,
        al,
        &a,
        usize::MAX,
        &x,
        1,
        be,
        y,
        1
    ));
    case!("gemv_strided stride_a = usize::MAX / 2", |h, a, x, y| {
        blas2::gemv_strided_batched(
            h,
            Op::N,
            2,
            2,
            al,
            &a,
            2,
            usize::MAX / 2,
            &x,
            1,
            2,
            be,
            y,
            1,
            2,
            4,
        )
    });
    case!("symv n = lda = 2^40", |h, a, x, y| blas2::symv(
        h,
        u,
        1 << 40,
        al,
        &a,
        1 << 40,
        &x,
        1,
        be,
        y,
        1
    ));
    case!("trmv n = lda = 2^62", |h, a, _x, y| blas2::trmv(
        h,
        u,
        Op::N,
        nu,
        1 << 62,
        &a,
        1 << 62,
        y,
        1
    ));
    case!("trmv n = 4, incx = isize::MAX", |h, a, _x, y| blas2::trmv(
        h,
        u,
        Op::N,
        nu,
        4,
        &a,
        4,
        y,
        isize::MAX
    ));
    case!("tbmv n = 2^62, k = n - 1", |h, a, _x, y| blas2::tbmv(
        h,
        l,
        Op::T,
        nu,
        1 << 62,
        (1 << 62) - 1,
        &a,
        1 << 62,
        y,
        1
    ));
    case!("tpmv n = usize::MAX / 2", |h, a, _x, y| blas2::tpmv(
        h,
        u,
        Op::N,
        nu,
        usize::MAX / 2,
        &a,
        y,
        1
    ));
    case!("trsv n = lda = 2^40", |h, a, _x, y| blas2::trsv(
        h,
        l,
        Op::C,
        nu,
        1 << 40,
        &a,
        1 << 40,
        y,
        1
    ));
    let mut failures = vec![];
    for (name, f) in &cases {
        for query in [false, true] {
            let mut h = handle(dev);
            if query {
                h.start_device_memory_size_query().unwrap();
            }
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut h, query)));
            let label = if query { "during a query" } else { "" };
            match r {
                Err(p) => {
                    let msg = p
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    failures.push(format!("{name} {label}: panicked: {msg}"));
                }
                Ok(Err(Error::InvalidSize(_))) => {}
                Ok(r) if !query => failures.push(format!("{name}: {r:?}, want InvalidSize")),
                Ok(_) => {}
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

fn f7_placeholders_other_devices_and_list_lengths_are_errors(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let a = up(64);
    let x = up(16);
    let mut o = Outs::new(dev, &[16, 16, 16]);
    let (al, be) = (Coef::Host(1.0f64), Coef::Host(0.5f64));
    let (u, nu) = (Uplo::Upper, Diag::NonUnit);
    let pa = DeviceBuffer::<f64>::placeholder(64);
    let px = DeviceBuffer::<f64>::placeholder(16);
    let other = Device::host();
    let oa = other.upload(&vec![0.5f64; 64]).unwrap();
    let ox = other.upload(&[0.5f64; 16]).unwrap();
    {
        let [y, y1, y2] = &mut o.bufs[..] else {
            unreachable!()
        };
        // Placeholders outside a query.
        let r = blas2::gemv(&mut h, Op::N, 4, 4, al, &pa, 4, &x, 1, be, y, 1);
        expect_err(r, is_pointer, &["placeholder"], "gemv A placeholder");
        let r = blas2::symv(&mut h, u, 4, al, &a, 4, &px, 1, be, y, 1);
        expect_err(r, is_pointer, &["placeholder"], "symv x placeholder");
        let r = blas2::trsv(&mut h, u, Op::N, nu, 4, &pa, 4, y, 1);
        expect_err(r, is_pointer, &["placeholder"], "trsv A placeholder");
        let mut py = DeviceBuffer::<f64>::placeholder(16);
        let r = blas2::gemv(&mut h, Op::N, 4, 4, al, &a, 4, &x, 1, be, &mut py, 1);
        expect_err(r, is_pointer, &["placeholder"], "gemv y placeholder");
        let r = blas2::trmv(&mut h, u, Op::N, nu, 4, &a, 4, &mut py, 1);
        expect_err(r, is_pointer, &["placeholder"], "trmv x placeholder");
        let r = blas2::gemv_batched(
            &mut h,
            Op::T,
            4,
            4,
            al,
            &[&a, &pa],
            4,
            &[&x, &x],
            1,
            be,
            &mut [&mut *y1, &mut *y2],
            1,
        );
        expect_err(r, is_pointer, &["placeholder", "A[1]"], "gemv_batched A[1]");
        // Buffers of another device.
        let r = blas2::gemv(&mut h, Op::N, 4, 4, al, &oa, 4, &x, 1, be, y, 1);
        expect_err(r, is_pointer, &[], "gemv A on another device");
        let r = blas2::hemv(
            &mut h,
            u,
            2,
            Coef::Host(Complex64::new(1.0, 0.0)),
            &dev.upload(&[Complex64::new(1.0, 0.0); 4]).unwrap(),
            2,
            &other.upload(&[Complex64::new(1.0, 0.0); 2]).unwrap(),
            1,
            Coef::Host(Complex64::new(0.0, 0.0)),
            &mut dev.upload(&[Complex64::new(9.0, 9.0); 2]).unwrap(),
            1,
        );
        expect_err(r, is_pointer, &[], "hemv x on another device");
        let r = blas2::gemv_strided_batched(
            &mut h,
            Op::N,
            4,
            4,
            al,
            &a,
            4,
            16,
            &ox,
            1,
            4,
            be,
            y,
            1,
            4,
            2,
        );
        expect_err(r, is_pointer, &[], "gemv_strided x on another device");
        let mut oy = other.upload(&[1.0f64; 16]).unwrap();
        let r = blas2::trmv(&mut h, u, Op::N, nu, 4, &a, 4, &mut oy, 1);
        expect_err(r, is_pointer, &[], "trmv x on another device");
        assert_eq!(oy.to_vec().unwrap(), vec![1.0; 16]);
        let r = blas2::tpmv_batched(
            &mut h,
            u,
            Op::N,
            nu,
            4,
            &[&a, &oa],
            &mut [&mut *y1, &mut *y2],
            1,
        );
        expect_err(
            r,
            is_pointer,
            &["A[1]"],
            "tpmv_batched A[1] on another device",
        );
        // Lists of different lengths.
        let r = blas2::gemv_batched(
            &mut h,
            Op::N,
            4,
            4,
            al,
            &[&a, &a],
            4,
            &[&x, &x],
            1,
            be,
            &mut [&mut *y1],
            1,
        );
        expect_err(r, is_size, &["2", "1"], "gemv_batched y list shorter");
        let r = blas2::symv_batched(
            &mut h,
            u,
            4,
            al,
            &[&a, &a],
            4,
            &[&x, &x, &x],
            1,
            be,
            &mut [&mut *y1, &mut *y2],
            1,
        );
        expect_err(r, is_size, &["2", "3"], "symv_batched x list longer");
        let r = blas2::trmv_batched(
            &mut h,
            u,
            Op::T,
            nu,
            4,
            &[&a],
            4,
            &mut [&mut *y1, &mut *y2],
            1,
        );
        expect_err(r, is_size, &["1", "2"], "trmv_batched x list longer");
    }
    o.check();
}

fn f9_overlapping_strided_outputs_are_invalid(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let a = up(64);
    let x = up(32);
    let mut o = Outs::new(dev, &[32]);
    let (al, be) = (Coef::Host(1.0f64), Coef::Host(0.5f64));
    let (u, nu) = (Uplo::Upper, Diag::NonUnit);
    {
        let y = &mut o.bufs[0];
        let r = blas2::gemv_strided_batched(
            &mut h,
            Op::N,
            5,
            3,
            al,
            &a,
            5,
            15,
            &x,
            1,
            3,
            be,
            y,
            1,
            4,
            2,
        );
        expect_err(
            r,
            is_value,
            &["overlap", "stride_y = 4", "5"],
            "gemv y stride 4 < 5",
        );
        let r = blas2::gemv_strided_batched(
            &mut h,
            Op::T,
            3,
            3,
            al,
            &a,
            3,
            0,
            &x,
            1,
            0,
            be,
            y,
            2,
            4,
            3,
        );
        expect_err(r, is_value, &["overlap", "stride_y = 4"], "gemv y incy 2");
        let r = blas2::symv_strided_batched(&mut h, u, 4, al, &a, 4, 0, &x, 1, 0, be, y, -1, 0, 2);
        expect_err(r, is_value, &["overlap", "stride_y = 0"], "symv y stride 0");
        let r = blas2::trmv_strided_batched(&mut h, u, Op::N, nu, 4, &a, 4, 0, y, 1, 0, 2);
        expect_err(r, is_value, &["overlap", "stride_x = 0"], "trmv x stride 0");
        let r = blas2::tbmv_strided_batched(&mut h, u, Op::N, nu, 4, 1, &a, 2, 0, y, 2, 6, 3);
        expect_err(
            r,
            is_value,
            &["overlap", "stride_x = 6"],
            "tbmv x stride 6 < 7",
        );
        let r = blas2::tpmv_strided_batched(&mut h, u, Op::N, nu, 4, &a, 0, y, 1, 3, 2);
        expect_err(r, is_value, &["overlap", "stride_x = 3"], "tpmv x stride 3");
        let r = blas2::trsv_strided_batched(&mut h, u, Op::N, nu, 4, &a, 4, 0, y, 1, 1, 2);
        expect_err(r, is_value, &["overlap", "stride_x = 1"], "trsv x stride 1");
    }
    o.check();
    // A stride of 0 is fine for a batch of one (nothing to overlap with).
    let y = &mut o.bufs[0];
    let st =
        blas2::trmv_strided_batched(&mut h, u, Op::N, Diag::Unit, 4, &a, 4, 0, y, 1, 0, 1).unwrap();
    assert_eq!(st, Status::Success);
}

fn f10_bad_device_scalars_are_errors(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let a = up(64);
    let x = up(32);
    let mut o = Outs::new(dev, &[32, 8, 8, 8]);
    let be = Coef::Host(0.5f64);
    let ph = DeviceBuffer::<f64>::placeholder(4);
    let empty = dev.upload::<f64>(&[]).unwrap();
    let two = up(2);
    let other = Device::host().upload(&[1.0f64; 4]).unwrap();
    {
        let [y, y1, y2, y3] = &mut o.bufs[..] else {
            unreachable!()
        };
        let r = blas2::gemv(
            &mut h,
            Op::N,
            4,
            4,
            Coef::Device(&ph),
            &a,
            4,
            &x,
            1,
            be,
            y,
            1,
        );
        expect_err(
            r,
            is_pointer,
            &["placeholder", "alpha"],
            "alpha placeholder",
        );
        let r = blas2::symv(
            &mut h,
            Uplo::Lower,
            4,
            be,
            &a,
            4,
            &x,
            1,
            Coef::Device(&ph),
            y,
            1,
        );
        expect_err(r, is_pointer, &["placeholder", "beta"], "beta placeholder");
        let r = blas2::gemv(
            &mut h,
            Op::T,
            4,
            4,
            Coef::Device(&empty),
            &a,
            4,
            &x,
            1,
            be,
            y,
            1,
        );
        expect_err(
            r,
            is_value,
            &["alpha", "has 0 elements", "needs 1"],
            "alpha empty",
        );
        let r = blas2::gemv(
            &mut h,
            Op::T,
            4,
            4,
            Coef::Device(&other),
            &a,
            4,
            &x,
            1,
            be,
            y,
            1,
        );
        expect_err(r, is_pointer, &["alpha"], "alpha on another device");
        let r = blas2::gemv_strided_batched(
            &mut h,
            Op::N,
            4,
            4,
            Coef::DevicePerEntry(&two),
            &a,
            4,
            16,
            &x,
            1,
            4,
            be,
            y,
            1,
            4,
            3,
        );
        expect_err(
            r,
            is_value,
            &["alpha", "has 2 elements", "needs 3"],
            "alpha per entry too short",
        );
        let r = blas2::gemv_batched(
            &mut h,
            Op::N,
            4,
            4,
            be,
            &[&a, &a, &a],
            4,
            &[&x, &x, &x],
            1,
            Coef::DevicePerEntry(&two),
            &mut [&mut *y1, &mut *y2, &mut *y3],
            1,
        );
        expect_err(
            r,
            is_value,
            &["beta", "has 2 elements", "needs 3"],
            "beta per entry too short",
        );
        let r = blas2::symv_strided_batched(
            &mut h,
            Uplo::Upper,
            4,
            Coef::DevicePerEntry(&ph),
            &a,
            4,
            16,
            &x,
            1,
            4,
            be,
            y,
            1,
            4,
            2,
        );
        expect_err(
            r,
            is_pointer,
            &["placeholder"],
            "per-entry alpha placeholder",
        );
    }
    o.check();
}

on_both_backends!(
    f1_gemv_all_ops_forms_sizes_f32,
    f1_gemv_all_ops_forms_sizes_f64,
    f1_gemv_all_ops_forms_sizes_c32,
    f1_gemv_all_ops_forms_sizes_c64,
    f1_symv_hemv_all_uplos_forms_sizes_f32,
    f1_symv_hemv_all_uplos_forms_sizes_f64,
    f1_symv_hemv_all_uplos_forms_sizes_c32,
    f1_symv_hemv_all_uplos_forms_sizes_c64,
    f1_trmv_all_uplos_ops_diags_forms_sizes_f32,
    f1_trmv_all_uplos_ops_diags_forms_sizes_f64,
    f1_trmv_all_uplos_ops_diags_forms_sizes_c32,
    f1_trmv_all_uplos_ops_diags_forms_sizes_c64,
    f1_tbmv_all_uplos_ops_diags_bands_forms_sizes_f32,
    f1_tbmv_all_uplos_ops_diags_bands_forms_sizes_f64,
    f1_tbmv_all_uplos_ops_diags_bands_forms_sizes_c32,
    f1_tbmv_all_uplos_ops_diags_bands_forms_sizes_c64,
    f1_tpmv_all_uplos_ops_diags_forms_sizes_f32,
    f1_tpmv_all_uplos_ops_diags_forms_sizes_f64,
    f1_tpmv_all_uplos_ops_diags_forms_sizes_c32,
    f1_tpmv_all_uplos_ops_diags_forms_sizes_c64,
    f1_trsv_all_uplos_ops_diags_forms_sizes_f32,
    f1_trsv_all_uplos_ops_diags_forms_sizes_f64,
    f1_trsv_all_uplos_ops_diags_forms_sizes_c32,
    f1_trsv_all_uplos_ops_diags_forms_sizes_c64,
    f3_quick_returns_touch_nothing,
    f10_beta_zero_ignores_y_and_alpha_zero_ignores_a_and_x,
    f10_device_scalars_single_and_per_entry,
    f9_inputs_may_overlap,
    m08_m09_m06_query_then_preallocate_then_1kib_f32,
    m08_m09_m06_query_then_preallocate_then_1kib_c64,
    m08_query_still_checks_sizes,
    f4_workspace_bytes_agrees_with_the_query,
    f8_list_batch_of_100_runs_in_chunks_in_1kib,
    f8_memory_error_when_not_one_entry_fits,
    f8_a_workspace_holding_one_entry_runs_the_list,
    m06_reduced_algorithms_run_in_an_8_byte_workspace,
    f7_bad_sizes_and_short_buffers_are_errors_with_outputs_untouched,
    f7_placeholders_other_devices_and_list_lengths_are_errors,
    f7_huge_sizes_are_invalid_size_never_a_panic,
    f9_overlapping_strided_outputs_are_invalid,
    f10_bad_device_scalars_are_errors,
);
