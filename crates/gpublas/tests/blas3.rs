#![allow(
    clippy::too_many_arguments,
    clippy::type_complexity,
    clippy::needless_range_loop
)]
//! Level-3 routines (`gemm`, `symm`, `hemm`, `syrk`, `herk`, `syr2k`, `her2k`, `syrkx`,
//! `herkx`, `trmm`, `gemm_ex`) against independent f64 references written here, on both
//! backends (SPEC F1–F4, F7–F10, M6, M8, M9, M13, M16).
//!
//! Every operand is placed in one of seven batch layouts (single, lists of 0, 1 and 7 entries,
//! strided batches of 0, 1 and 7 entries with gaps between the entries). Everything a call may
//! not write (padding rows of `C`, gaps of strided layouts, one element past each entry, the
//! triangle of `C` a rank-k update leaves alone, the inputs) is compared bit for bit after the
//! call; everything it may not read (padding of the inputs, the unstored triangle of a
//! symmetric, Hermitian or triangular `A`, a unit diagonal, `C` when `beta == 0`, `A` and `B`
//! when a host `alpha == 0`) holds NaN. The imaginary part of a Hermitian `A`'s diagonal holds
//! garbage that `hemm` must ignore.
//!
//! Semantics are reference BLAS (`?gemm`, `?symm`, `?hemm`, `?syrk`, `?herk`, `?syr2k`,
//! `?her2k`, `?trmm`) and cuBLAS's `syrkx`/`herkx`/`gemmEx`: quick returns for `m == 0 || n == 0`
//! and, with host scalars, `(alpha == 0 || k == 0) && beta == 1`; `alpha == 0` makes `C = beta C`
//! without reading `A` or `B` (`trmm`: `B = 0`); the Hermitian updates make the diagonal of `C`
//! real.
//!
//! Tolerances: an element summed over `kk` products may be off by
//! `4 ((kk + 2) eps_acc + eps_io) (|alpha| |row of op(A)| |column of op(B)| + |beta| |c|)`, the
//! norms taken of `|re| + |im|` (a bound on the sum of the products' magnitudes, the classic
//! `gamma_k` bound with room to spare).

mod common;

use common::complex::*;
use common::elem::*;
use common::forms::*;
use common::{fixed_handle, handle, user_owned_handle};
use gpublas::blas3::{self, ComputeType, GemmExIn, GemmExOut};
use gpublas::{
    bf16, f16, Backend, Coef, Complex32, Complex64, ComplexScalar, Device, DeviceBuffer, Diag,
    Error, Handle, Op, RealScalar, Scalar, Side, Status, Uplo,
};

// ---- the element types, seen from the test side ------------------------------------------

/// The four BLAS scalars; the Hermitian routines exist for the complex ones only.
trait T: El + Scalar {
    /// `hemm`, `herk`, `her2k`, `herkx` in `out`'s layout (complex types only).
    fn herm(
        h: &mut Handle,
        c: &Case,
        a: &Placed<Self>,
        b: Option<&Placed<Self>>,
        out: &mut Placed<Self>,
        al: Sc<'_, Self>,
        be: Sc<'_, Self>,
    ) -> Result<Status, Error>;
}

impl T for f32 {
    fn herm(
        _: &mut Handle,
        _: &Case,
        _: &Placed<Self>,
        _: Option<&Placed<Self>>,
        _: &mut Placed<Self>,
        _: Sc<'_, Self>,
        _: Sc<'_, Self>,
    ) -> Result<Status, Error> {
        unreachable!("the Hermitian routines take complex elements only")
    }
}
impl T for f64 {
    fn herm(
        _: &mut Handle,
        _: &Case,
        _: &Placed<Self>,
        _: Option<&Placed<Self>>,
        _: &mut Placed<Self>,
        _: Sc<'_, Self>,
        _: Sc<'_, Self>,
    ) -> Result<Status, Error> {
        unreachable!("the Hermitian routines take complex elements only")
    }
}
impl T for Complex32 {
    fn herm(
        h: &mut Handle,
        c: &Case,
        a: &Placed<Self>,
        b: Option<&Placed<Self>>,
        out: &mut Placed<Self>,
        al: Sc<'_, Self>,
        be: Sc<'_, Self>,
    ) -> Result<Status, Error> {
        herm_forms(h, c, a, b, out, al, be)
    }
}
impl T for Complex64 {
    fn herm(
        h: &mut Handle,
        c: &Case,
        a: &Placed<Self>,
        b: Option<&Placed<Self>>,
        out: &mut Placed<Self>,
        al: Sc<'_, Self>,
        be: Sc<'_, Self>,
    ) -> Result<Status, Error> {
        herm_forms(h, c, a, b, out, al, be)
    }
}

/// A scalar argument in both shapes a routine may take: of the element type, or real
/// (`herk`'s `alpha`, the Hermitian `beta`s).
struct Sc<'a, E: Scalar> {
    full: Coef<'a, E>,
    real: Coef<'a, E::Real>,
}
impl<E: Scalar> Clone for Sc<'_, E> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<E: Scalar> Copy for Sc<'_, E> {}

fn real_of<E: Scalar>(v: f64) -> E::Real {
    <E::Real as RealScalar>::from_f64(v)
}

/// Uniform in [-1, 1) (both parts for complex types), rounded to the type.
fn rnd<E: El>(r: &mut Gen) -> E {
    let re = r.uni();
    let im = if E::CPLX { r.uni() } else { 0.0 };
    E::make(re, im)
}

// ---- the calls ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Rt {
    Gemm,
    Symm,
    Hemm,
    Syrk,
    Herk,
    Syr2k,
    Her2k,
    Syrkx,
    Herkx,
    Trmm,
}

/// One call's shape arguments. `ldc` is the leading dimension of the output (`B` of `trmm`);
/// the rank-k updates have `m == n`.
#[derive(Clone, Copy, Debug)]
struct Case {
    rt: Rt,
    opa: Op,
    opb: Op,
    side: Side,
    uplo: Uplo,
    diag: Diag,
    m: usize,
    n: usize,
    k: usize,
    lda: usize,
    ldb: usize,
    ldc: usize,
}

const OPS: [Op; 3] = [Op::N, Op::T, Op::C];
const UPLOS: [Uplo; 2] = [Uplo::Upper, Uplo::Lower];
const SIDES: [Side; 2] = [Side::Left, Side::Right];
const DIAGS: [Diag; 2] = [Diag::NonUnit, Diag::Unit];

impl Case {
    fn new(rt: Rt, m: usize, n: usize, k: usize) -> Case {
        Case {
            rt,
            opa: Op::N,
            opb: Op::N,
            side: Side::Left,
            uplo: Uplo::Upper,
            diag: Diag::NonUnit,
            m,
            n,
            k,
            lda: 0,
            ldb: 0,
            ldc: 0,
        }
    }

    fn gemm(opa: Op, opb: Op, m: usize, n: usize, k: usize) -> Case {
        Case {
            opa,
            opb,
            ..Case::new(Rt::Gemm, m, n, k)
        }
        .fit(0, 0, 0)
    }

    fn mm(rt: Rt, side: Side, uplo: Uplo, m: usize, n: usize) -> Case {
        Case {
            side,
            uplo,
            ..Case::new(rt, m, n, 0)
        }
        .fit(0, 0, 0)
    }

    fn rk(rt: Rt, uplo: Uplo, op: Op, n: usize, k: usize) -> Case {
        Case {
            uplo,
            opa: op,
            ..Case::new(rt, n, n, k)
        }
        .fit(0, 0, 0)
    }

    fn tr(side: Side, uplo: Uplo, op: Op, diag: Diag, m: usize, n: usize) -> Case {
        Case {
            side,
            uplo,
            opa: op,
            diag,
            ..Case::new(Rt::Trmm, m, n, 0)
        }
        .fit(0, 0, 0)
    }

    /// Leading dimensions: the least valid ones plus `ea`, `eb`, `ec`.
    fn fit(mut self, ea: usize, eb: usize, ec: usize) -> Case {
        self.lda = self.a_dims().0.max(1) + ea;
        self.ldb = self.b_dims().map_or(1, |d| d.0.max(1)) + eb;
        self.ldc = self.c_dims().0.max(1) + ec;
        self
    }

    /// Leading dimensions in rotation with the case counter `t`.
    fn fit_t(self, t: usize) -> Case {
        let e = |d: usize, x: usize| if t % d == 0 { x } else { 0 };
        self.fit(e(3, 3), e(5, 2), e(2, 1))
    }

    fn is_rk(&self) -> bool {
        matches!(
            self.rt,
            Rt::Syrk | Rt::Herk | Rt::Syr2k | Rt::Her2k | Rt::Syrkx | Rt::Herkx
        )
    }

    /// Order of the symmetric, Hermitian or triangular `A`.
    fn order(&self) -> usize {
        if self.side == Side::Left {
            self.m
        } else {
            self.n
        }
    }

    /// Rows and columns of the stored `A`.
    fn a_dims(&self) -> (usize, usize) {
        match self.rt {
            Rt::Gemm if self.opa == Op::N => (self.m, self.k),
            Rt::Gemm => (self.k, self.m),
            Rt::Symm | Rt::Hemm | Rt::Trmm => (self.order(), self.order()),
            _ if self.opa == Op::N => (self.n, self.k),
            _ => (self.k, self.n),
        }
    }

    /// Rows and columns of the stored `B` (`None`: the routine takes no `B` input).
    fn b_dims(&self) -> Option<(usize, usize)> {
        match self.rt {
            Rt::Gemm if self.opb == Op::N => Some((self.k, self.n)),
            Rt::Gemm => Some((self.n, self.k)),
            Rt::Symm | Rt::Hemm => Some((self.m, self.n)),
            Rt::Syr2k | Rt::Her2k | Rt::Syrkx | Rt::Herkx => Some(self.a_dims()),
            _ => None,
        }
    }

    fn c_dims(&self) -> (usize, usize) {
        (self.m, self.n)
    }

    /// Products summed into one element.
    fn kk(&self) -> usize {
        match self.rt {
            Rt::Symm | Rt::Hemm | Rt::Trmm => self.order(),
            Rt::Syr2k | Rt::Her2k => 2 * self.k,
            _ => self.k,
        }
    }

    fn in_tri(&self, i: usize, j: usize) -> bool {
        match self.uplo {
            Uplo::Upper => i <= j,
            Uplo::Lower => i >= j,
        }
    }

    /// Whether the call writes element (i, j) of `C`.
    fn written(&self, i: usize, j: usize) -> bool {
        !self.is_rk() || self.in_tri(i, j)
    }

    /// The Hermitian updates: the diagonal of `C` becomes real.
    fn herm_diag(&self) -> bool {
        matches!(self.rt, Rt::Herk | Rt::Her2k | Rt::Herkx)
    }

    fn empty(&self) -> bool {
        self.m == 0 || self.n == 0
    }

    /// `k == 0` for the routines that have a `k`.
    fn k_zero(&self) -> bool {
        (self.rt == Rt::Gemm || self.is_rk()) && self.k == 0
    }
}

fn herm_forms<E: T + ComplexScalar>(
    h: &mut Handle,
    c: &Case,
    a: &Placed<E>,
    b: Option<&Placed<E>>,
    out: &mut Placed<E>,
    al: Sc<'_, E>,
    be: Sc<'_, E>,
) -> Result<Status, Error> {
    let form = out.form;
    let batch = form_count(form);
    let (sa, so) = (a.stride, out.stride);
    let (m, n, k, lda, ldb, ldc) = (c.m, c.n, c.k, c.lda, c.ldb, c.ldc);
    let (side, uplo, op) = (c.side, c.uplo, c.opa);
    match c.rt {
        Rt::Hemm => {
            let b = b.unwrap();
            match form {
                Form::Single => blas3::hemm(
                    h,
                    side,
                    uplo,
                    m,
                    n,
                    al.full,
                    a.one(),
                    lda,
                    b.one(),
                    ldb,
                    be.full,
                    out.one_mut(),
                    ldc,
                ),
                Form::List(_) => blas3::hemm_batched(
                    h,
                    side,
                    uplo,
                    m,
                    n,
                    al.full,
                    &a.refs(),
                    lda,
                    &b.refs(),
                    ldb,
                    be.full,
                    &mut out.muts(),
                    ldc,
                ),
                Form::Strided(_) => blas3::hemm_strided_batched(
                    h,
                    side,
                    uplo,
                    m,
                    n,
                    al.full,
                    a.one(),
                    lda,
                    sa,
                    b.one(),
                    ldb,
                    b.stride,
                    be.full,
                    out.one_mut(),
                    ldc,
                    so,
                    batch,
                ),
            }
        }
        Rt::Herk => match form {
            Form::Single => blas3::herk(
                h,
                uplo,
                op,
                n,
                k,
                al.real,
                a.one(),
                lda,
                be.real,
                out.one_mut(),
                ldc,
            ),
            Form::List(_) => blas3::herk_batched(
                h,
                uplo,
                op,
                n,
                k,
                al.real,
                &a.refs(),
                lda,
                be.real,
                &mut out.muts(),
                ldc,
            ),
            Form::Strided(_) => blas3::herk_strided_batched(
                h,
                uplo,
                op,
                n,
                k,
                al.real,
                a.one(),
                lda,
                sa,
                be.real,
                out.one_mut(),
                ldc,
                so,
                batch,
            ),
        },
        Rt::Her2k | Rt::Herkx => {
            let b = b.unwrap();
            let x = c.rt == Rt::Herkx;
            match form {
                Form::Single => {
                    let f = if x {
                        blas3::herkx::<E>
                    } else {
                        blas3::her2k::<E>
                    };
                    f(
                        h,
                        uplo,
                        op,
                        n,
                        k,
                        al.full,
                        a.one(),
                        lda,
                        b.one(),
                        ldb,
                        be.real,
                        out.one_mut(),
                        ldc,
                    )
                }
                Form::List(_) => {
                    let f = if x {
                        blas3::herkx_batched::<E>
                    } else {
                        blas3::her2k_batched::<E>
                    };
                    f(
                        h,
                        uplo,
                        op,
                        n,
                        k,
                        al.full,
                        &a.refs(),
                        lda,
                        &b.refs(),
                        ldb,
                        be.real,
                        &mut out.muts(),
                        ldc,
                    )
                }
                Form::Strided(_) => {
                    let f = if x {
                        blas3::herkx_strided_batched::<E>
                    } else {
                        blas3::her2k_strided_batched::<E>
                    };
                    f(
                        h,
                        uplo,
                        op,
                        n,
                        k,
                        al.full,
                        a.one(),
                        lda,
                        sa,
                        b.one(),
                        ldb,
                        b.stride,
                        be.real,
                        out.one_mut(),
                        ldc,
                        so,
                        batch,
                    )
                }
            }
        }
        _ => unreachable!("{:?} is not Hermitian", c.rt),
    }
}

/// Calls the routine of `c` in `out`'s layout.
fn dispatch<E: T>(
    h: &mut Handle,
    c: &Case,
    a: &Placed<E>,
    b: Option<&Placed<E>>,
    out: &mut Placed<E>,
    al: Sc<'_, E>,
    be: Sc<'_, E>,
) -> Result<Status, Error> {
    let form = out.form;
    let batch = form_count(form);
    let (sa, so) = (a.stride, out.stride);
    let (m, n, k, lda, ldb, ldc) = (c.m, c.n, c.k, c.lda, c.ldb, c.ldc);
    let (opa, opb, side, uplo, diag) = (c.opa, c.opb, c.side, c.uplo, c.diag);
    let (alpha, beta) = (al.full, be.full);
    match c.rt {
        Rt::Gemm => {
            let b = b.unwrap();
            match form {
                Form::Single => blas3::gemm(
                    h,
                    opa,
                    opb,
                    m,
                    n,
                    k,
                    alpha,
                    a.one(),
                    lda,
                    b.one(),
                    ldb,
                    beta,
                    out.one_mut(),
                    ldc,
                ),
                Form::List(_) => blas3::gemm_batched(
                    h,
                    opa,
                    opb,
                    m,
                    n,
                    k,
                    alpha,
                    &a.refs(),
                    lda,
                    &b.refs(),
                    ldb,
                    beta,
                    &mut out.muts(),
                    ldc,
                ),
                Form::Strided(_) => blas3::gemm_strided_batched(
                    h,
                    opa,
                    opb,
                    m,
                    n,
                    k,
                    alpha,
                    a.one(),
                    lda,
                    sa,
                    b.one(),
                    ldb,
                    b.stride,
                    beta,
                    out.one_mut(),
                    ldc,
                    so,
                    batch,
                ),
            }
        }
        Rt::Symm => {
            let b = b.unwrap();
            match form {
                Form::Single => blas3::symm(
                    h,
                    side,
                    uplo,
                    m,
                    n,
                    alpha,
                    a.one(),
                    lda,
                    b.one(),
                    ldb,
                    beta,
                    out.one_mut(),
                    ldc,
                ),
                Form::List(_) => blas3::symm_batched(
                    h,
                    side,
                    uplo,
                    m,
                    n,
                    alpha,
                    &a.refs(),
                    lda,
                    &b.refs(),
                    ldb,
                    beta,
                    &mut out.muts(),
                    ldc,
                ),
                Form::Strided(_) => blas3::symm_strided_batched(
                    h,
                    side,
                    uplo,
                    m,
                    n,
                    alpha,
                    a.one(),
                    lda,
                    sa,
                    b.one(),
                    ldb,
                    b.stride,
                    beta,
                    out.one_mut(),
                    ldc,
                    so,
                    batch,
                ),
            }
        }
        Rt::Syrk => match form {
            Form::Single => blas3::syrk(
                h,
                uplo,
                opa,
                n,
                k,
                alpha,
                a.one(),
                lda,
                beta,
                out.one_mut(),
                ldc,
            ),
            Form::List(_) => blas3::syrk_batched(
                h,
                uplo,
                opa,
                n,
                k,
                alpha,
                &a.refs(),
                lda,
                beta,
                &mut out.muts(),
                ldc,
            ),
            Form::Strided(_) => blas3::syrk_strided_batched(
                h,
                uplo,
                opa,
                n,
                k,
                alpha,
                a.one(),
                lda,
                sa,
                beta,
                out.one_mut(),
                ldc,
                so,
                batch,
            ),
        },
        Rt::Syr2k | Rt::Syrkx => {
            let b = b.unwrap();
            let x = c.rt == Rt::Syrkx;
            match form {
                Form::Single => {
                    let f = if x {
                        blas3::syrkx::<E>
                    } else {
                        blas3::syr2k::<E>
                    };
                    f(
                        h,
                        uplo,
                        opa,
                        n,
                        k,
                        alpha,
                        a.one(),
                        lda,
                        b.one(),
                        ldb,
                        beta,
                        out.one_mut(),
                        ldc,
                    )
                }
                Form::List(_) => {
                    let f = if x {
                        blas3::syrkx_batched::<E>
                    } else {
                        blas3::syr2k_batched::<E>
                    };
                    f(
                        h,
                        uplo,
                        opa,
                        n,
                        k,
                        alpha,
                        &a.refs(),
                        lda,
                        &b.refs(),
                        ldb,
                        beta,
                        &mut out.muts(),
                        ldc,
                    )
                }
                Form::Strided(_) => {
                    let f = if x {
                        blas3::syrkx_strided_batched::<E>
                    } else {
                        blas3::syr2k_strided_batched::<E>
                    };
                    f(
                        h,
                        uplo,
                        opa,
                        n,
                        k,
                        alpha,
                        a.one(),
                        lda,
                        sa,
                        b.one(),
                        ldb,
                        b.stride,
                        beta,
                        out.one_mut(),
                        ldc,
                        so,
                        batch,
                    )
                }
            }
        }
        Rt::Trmm => match form {
            Form::Single => blas3::trmm(
                h,
                side,
                uplo,
                opa,
                diag,
                m,
                n,
                alpha,
                a.one(),
                lda,
                out.one_mut(),
                ldc,
            ),
            Form::List(_) => blas3::trmm_batched(
                h,
                side,
                uplo,
                opa,
                diag,
                m,
                n,
                alpha,
                &a.refs(),
                lda,
                &mut out.muts(),
                ldc,
            ),
            Form::Strided(_) => blas3::trmm_strided_batched(
                h,
                side,
                uplo,
                opa,
                diag,
                m,
                n,
                alpha,
                a.one(),
                lda,
                sa,
                out.one_mut(),
                ldc,
                so,
                batch,
            ),
        },
        Rt::Hemm | Rt::Herk | Rt::Her2k | Rt::Herkx => E::herm(h, c, a, b, out, al, be),
    }
}

// ---- data and the reference --------------------------------------------------------------

/// A logical matrix, column-major.
#[derive(Clone)]
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
    /// `self`, its transpose or its conjugate transpose.
    fn op(&self, op: Op) -> Dense {
        if op == Op::N {
            return self.clone();
        }
        let mut d = Dense::zeros(self.c, self.r);
        for j in 0..self.c {
            for i in 0..self.r {
                let x = self.at(i, j);
                d.set(j, i, if op == Op::C { conj(x) } else { x });
            }
        }
        d
    }
    /// The rows, each contiguous.
    fn rows(&self) -> Vs {
        Vs::new(self.r, self.c, |v, l| self.at(v, l))
    }
    /// The columns, each contiguous.
    fn cols(&self) -> Vs {
        Vs::new(self.c, self.r, |v, l| self.at(l, v))
    }
}

/// `count` vectors of `len` values, flat (real and imaginary parts apart), with their norms.
struct Vs {
    len: usize,
    re: Vec<f64>,
    im: Vec<f64>,
    /// 2-norm of each vector of |re| + |im|.
    norm: Vec<f64>,
}

impl Vs {
    fn new(count: usize, len: usize, f: impl Fn(usize, usize) -> C) -> Vs {
        let mut re = Vec::with_capacity(count * len);
        let mut im = Vec::with_capacity(count * len);
        let mut norm = Vec::with_capacity(count);
        for v in 0..count {
            let mut s = 0.0;
            for l in 0..len {
                let x = f(v, l);
                re.push(x.0);
                im.push(x.1);
                s += mag(x) * mag(x);
            }
            norm.push(s.sqrt());
        }
        Vs { len, re, im, norm }
    }

    /// Sum over l of self[i][l] * o[j][l].
    fn dot(&self, i: usize, o: &Vs, j: usize, cplx: bool) -> C {
        let n = self.len;
        let ar = &self.re[i * n..(i + 1) * n];
        let br = &o.re[j * n..(j + 1) * n];
        if !cplx {
            let mut s = 0.0;
            for l in 0..n {
                s += ar[l] * br[l];
            }
            return (s, 0.0);
        }
        let ai = &self.im[i * n..(i + 1) * n];
        let bi = &o.im[j * n..(j + 1) * n];
        let (mut sr, mut si) = (0.0, 0.0);
        for l in 0..n {
            sr += ar[l] * br[l] - ai[l] * bi[l];
            si += ar[l] * bi[l] + ai[l] * br[l];
        }
        (sr, si)
    }
}

/// The stored `A` (NaN wherever the routine must not read; all NaN with `nan_all`) and the
/// logical matrix it stands for (symmetric/Hermitian completed, a unit diagonal as ones).
fn gen_a<E: El>(c: &Case, r: &mut Gen, nan_all: bool) -> (Vec<E>, Dense) {
    let (rows, cols) = c.a_dims();
    let mut st = vec![nan::<E>(); span(rows, cols, c.lda)];
    let mut d = Dense::zeros(rows, cols);
    for j in 0..cols {
        for i in 0..rows {
            let p = i + j * c.lda;
            match c.rt {
                Rt::Symm | Rt::Hemm => {
                    if !c.in_tri(i, j) {
                        continue;
                    }
                    // A Hermitian diagonal keeps a random imaginary part hemm must ignore.
                    let v: E = rnd(r);
                    st[p] = v;
                    let g = v.get();
                    if c.rt == Rt::Hemm {
                        if i == j {
                            d.set(i, i, (g.0, 0.0));
                        } else {
                            d.set(i, j, g);
                            d.set(j, i, conj(g));
                        }
                    } else {
                        d.set(i, j, g);
                        d.set(j, i, g);
                    }
                }
                Rt::Trmm => {
                    if !c.in_tri(i, j) {
                        continue;
                    }
                    if i == j && c.diag == Diag::Unit {
                        d.set(i, i, ONE); // the stored diagonal stays NaN
                        continue;
                    }
                    let v: E = rnd(r);
                    st[p] = v;
                    d.set(i, j, v.get());
                }
                _ => {
                    let v: E = rnd(r);
                    st[p] = v;
                    d.set(i, j, v.get());
                }
            }
        }
    }
    if nan_all {
        st.iter_mut().for_each(|s| *s = nan());
    }
    (st, d)
}

/// A general `rows × cols` matrix at `ld` (NaN padding; all NaN with `nan_all`).
fn gen_full<E: El>(
    rows: usize,
    cols: usize,
    ld: usize,
    r: &mut Gen,
    nan_all: bool,
) -> (Vec<E>, Dense) {
    let mut st = vec![nan::<E>(); span(rows, cols, ld)];
    let mut d = Dense::zeros(rows, cols);
    for j in 0..cols {
        for i in 0..rows {
            let v: E = if nan_all { nan() } else { rnd(r) };
            st[i + j * ld] = v;
            d.set(i, j, v.get());
        }
    }
    (st, d)
}

/// The output `C` (`B` of `trmm`): padding rows hold `poison`; the written elements hold NaN
/// when they must not be read (`nan_written`); the other triangle of a rank-k update holds
/// random values that must survive bit for bit. `real_diag`: a real diagonal (for calls where
/// a Hermitian update may or may not make it real, both give the same bits).
fn gen_c<E: El>(c: &Case, r: &mut Gen, nan_written: bool, real_diag: bool) -> (Vec<E>, Dense) {
    let (rows, cols) = c.c_dims();
    let mut st = vec![poison::<E>(); span(rows, cols, c.ldc)];
    let mut d = Dense::zeros(rows, cols);
    for j in 0..cols {
        for i in 0..rows {
            let mut v: E = rnd(r);
            if nan_written && c.written(i, j) {
                v = nan();
            } else if real_diag && i == j {
                v = E::make(v.get().0, 0.0);
            }
            st[i + j * c.ldc] = v;
            d.set(i, j, v.get());
        }
    }
    (st, d)
}

/// The products the routine sums: (coefficient, rows of the left factor, columns of the right).
fn terms(c: &Case, a: &Dense, b: Option<&Dense>, c0: &Dense, alpha: C) -> Vec<(C, Vs, Vs)> {
    let tr = |d: &Dense| d.op(Op::T);
    let ct = |d: &Dense| d.op(Op::C);
    match c.rt {
        Rt::Gemm => vec![(alpha, a.op(c.opa).rows(), b.unwrap().op(c.opb).cols())],
        Rt::Symm | Rt::Hemm => match c.side {
            Side::Left => vec![(alpha, a.rows(), b.unwrap().cols())],
            Side::Right => vec![(alpha, b.unwrap().rows(), a.cols())],
        },
        Rt::Trmm => {
            let ta = a.op(c.opa);
            match c.side {
                Side::Left => vec![(alpha, ta.rows(), c0.cols())],
                Side::Right => vec![(alpha, c0.rows(), ta.cols())],
            }
        }
        Rt::Syrk => {
            let p = a.op(c.opa);
            vec![(alpha, p.rows(), tr(&p).cols())]
        }
        Rt::Herk => {
            let p = a.op(c.opa);
            vec![(alpha, p.rows(), ct(&p).cols())]
        }
        Rt::Syr2k | Rt::Her2k | Rt::Syrkx | Rt::Herkx => {
            let p = a.op(c.opa);
            let q = b.unwrap().op(c.opa);
            match c.rt {
                Rt::Syr2k => vec![
                    (alpha, p.rows(), tr(&q).cols()),
                    (alpha, q.rows(), tr(&p).cols()),
                ],
                Rt::Her2k => vec![
                    (alpha, p.rows(), ct(&q).cols()),
                    (conj(alpha), q.rows(), ct(&p).cols()),
                ],
                Rt::Syrkx => vec![(alpha, p.rows(), tr(&q).cols())],
                _ => vec![(alpha, p.rows(), ct(&q).cols())],
            }
        }
    }
}

/// The outputs of one entry: (position in `C`'s storage, value, tolerance).
fn expected(
    c: &Case,
    a: &Dense,
    b: Option<&Dense>,
    c0: &Dense,
    alpha: C,
    beta: C,
    cplx: bool,
    eps_acc: f64,
    eps_io: f64,
) -> Vec<(usize, C, f64)> {
    let (rows, cols) = c.c_dims();
    let terms = if alpha == ZERO {
        vec![]
    } else {
        terms(c, a, b, c0, alpha)
    };
    let f = 4.0 * ((c.kk() as f64 + 2.0) * eps_acc + eps_io);
    let mut out = vec![];
    for j in 0..cols {
        for i in 0..rows {
            if !c.written(i, j) {
                continue;
            }
            let (mut v, mut sc) = (ZERO, 0.0);
            for (al, l, rr) in &terms {
                v = cadd(v, cmul(*al, l.dot(i, rr, j, cplx)));
                sc += mag(*al) * l.norm[i] * rr.norm[j];
            }
            if c.rt != Rt::Trmm && beta != ZERO {
                let x = c0.at(i, j);
                v = cadd(v, cmul(beta, x));
                sc += mag(beta) * mag(x);
            }
            if c.herm_diag() && i == j {
                v.1 = 0.0;
            }
            // Half-precision outputs round to subnormals below 2^-14: an absolute floor of two
            // of f16's subnormal steps (2^-24 each).
            let floor = if eps_io >= 1.0 / 1024.0 {
                2.0 * 2f64.powi(-24)
            } else {
                0.0
            };
            out.push((i + j * c.ldc, v, f * sc + floor));
        }
    }
    out
}

/// Where the scalars of a call live.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scal {
    Host,
    Device,
    PerEntry,
}

/// Scalars as the routine sees them: rounded to the type, real where the routine takes a real.
fn eff<E: El>(v: C, real: bool) -> C {
    let v = if real { (v.0, 0.0) } else { v };
    E::make(v.0, v.1).get()
}

/// Whether a call leaves everything alone (reference BLAS quick returns).
fn is_quick(c: &Case, host: bool, alpha: C, beta: C) -> bool {
    c.empty() || (host && c.rt != Rt::Trmm && (alpha == ZERO || c.k_zero()) && beta == ONE)
}

/// Device copies of the scalars (one value, or one per entry, then a NaN past them), of the
/// element type and real.
struct ScalBufs<E: Scalar> {
    full: Option<(DeviceBuffer<E>, DeviceBuffer<E>)>,
    real: Option<(DeviceBuffer<E::Real>, DeviceBuffer<E::Real>)>,
}

fn dev_coef<X>(b: &DeviceBuffer<X>, per_entry: bool) -> Coef<'_, X> {
    if per_entry {
        Coef::DevicePerEntry(b)
    } else {
        Coef::Device(b)
    }
}

/// A call ready to run, with its operands placed and its expected outputs.
struct Prepared<E: T> {
    c: Case,
    form: Form,
    a: Placed<E>,
    b: Option<Placed<E>>,
    out: Placed<E>,
    scal: Scal,
    alphas: Vec<C>,
    betas: Vec<C>,
    sbufs: ScalBufs<E>,
    want: Vec<Vec<(usize, C, f64)>>,
}

/// Random operands for `c` in `form`. `alphas`/`betas`: one value (host, device) or one per
/// entry (`Scal::PerEntry`). `C` holds NaN where its entry's beta is 0; with a host
/// `alpha == 0`, `A` and `B` are all NaN (and `B` of `trmm`, which then becomes 0).
fn prepare<E: T>(
    dev: &Device,
    r: &mut Gen,
    c: Case,
    form: Form,
    scal: Scal,
    alphas: &[C],
    betas: &[C],
) -> Prepared<E> {
    let count = form_count(form);
    let real_alpha = c.rt == Rt::Herk;
    let alphas: Vec<C> = alphas.iter().map(|&v| eff::<E>(v, real_alpha)).collect();
    let betas: Vec<C> = betas.iter().map(|&v| eff::<E>(v, c.herm_diag())).collect();
    let host = scal == Scal::Host;
    let (mut a_e, mut b_e, mut c_e, mut want) = (vec![], vec![], vec![], vec![]);
    for v in 0..count {
        let e = if scal == Scal::PerEntry { v } else { 0 };
        let (alpha, beta) = (alphas[e], betas[e]);
        let nan_in = host && alpha == ZERO;
        let (ast, ad) = gen_a::<E>(&c, r, nan_in);
        let bd = c
            .b_dims()
            .map(|(rows, cols)| gen_full::<E>(rows, cols, c.ldb, r, nan_in));
        // A Hermitian update that may or may not return early: a real diagonal makes both
        // answers the same bits (reference BLAS decides only for herk and her2k with host
        // scalars).
        let maybe_quick = c.herm_diag()
            && (alpha == ZERO || c.k_zero())
            && beta == ONE
            && (!host || c.rt == Rt::Herkx);
        let nan_c = if c.rt == Rt::Trmm {
            nan_in
        } else {
            beta == ZERO
        };
        let (cst, cd) = gen_c::<E>(&c, r, nan_c, maybe_quick);
        want.push(if is_quick(&c, host, alpha, beta) {
            vec![]
        } else {
            expected(
                &c,
                &ad,
                bd.as_ref().map(|x| &x.1),
                &cd,
                alpha,
                beta,
                E::CPLX,
                E::EPS,
                E::EPS,
            )
        });
        a_e.push(ast);
        if let Some((bst, _)) = bd {
            b_e.push(bst);
        }
        c_e.push(cst);
    }
    let (ar, ac) = c.a_dims();
    let a = Placed::new(dev, form, span(ar, ac, c.lda), &a_e, nan());
    let b = c
        .b_dims()
        .map(|(rows, cols)| Placed::new(dev, form, span(rows, cols, c.ldb), &b_e, nan()));
    let (cr, cc) = c.c_dims();
    let out = Placed::new(dev, form, span(cr, cc, c.ldc), &c_e, poison());
    let n = if scal == Scal::PerEntry { count } else { 1 };
    let sbufs = if host {
        ScalBufs {
            full: None,
            real: None,
        }
    } else {
        let full = |vals: &[C]| {
            let mut v: Vec<E> = vals[..n].iter().map(|x| E::make(x.0, x.1)).collect();
            v.push(nan()); // one past the values a call may use
            dev.upload(&v).unwrap()
        };
        let real = |vals: &[C]| {
            let mut v: Vec<E::Real> = vals[..n].iter().map(|x| real_of::<E>(x.0)).collect();
            v.push(real_of::<E>(f64::NAN));
            dev.upload(&v).unwrap()
        };
        ScalBufs {
            full: Some((full(&alphas), full(&betas))),
            real: Some((real(&alphas), real(&betas))),
        }
    };
    Prepared {
        c,
        form,
        a,
        b,
        out,
        scal,
        alphas,
        betas,
        sbufs,
        want,
    }
}

fn coefs<'s, E: T>(
    scal: Scal,
    alphas: &[C],
    betas: &[C],
    s: &'s ScalBufs<E>,
) -> (Sc<'s, E>, Sc<'s, E>) {
    match scal {
        Scal::Host => {
            let host = |v: C| Sc {
                full: Coef::Host(E::make(v.0, v.1)),
                real: Coef::Host(real_of::<E>(v.0)),
            };
            (host(alphas[0]), host(betas[0]))
        }
        Scal::Device | Scal::PerEntry => {
            let per = scal == Scal::PerEntry;
            let (fa, fb) = s.full.as_ref().unwrap();
            let (ra, rb) = s.real.as_ref().unwrap();
            (
                Sc {
                    full: dev_coef(fa, per),
                    real: dev_coef(ra, per),
                },
                Sc {
                    full: dev_coef(fb, per),
                    real: dev_coef(rb, per),
                },
            )
        }
    }
}

impl<E: T> Prepared<E> {
    fn call(&mut self, h: &mut Handle) -> Result<Status, Error> {
        let (al, be) = coefs(self.scal, &self.alphas, &self.betas, &self.sbufs);
        dispatch(h, &self.c, &self.a, self.b.as_ref(), &mut self.out, al, be)
    }

    /// The same call with placeholders for every operand (host scalars).
    fn call_placeholders(&self, h: &mut Handle) -> Result<Status, Error> {
        let a = self.a.placeholders();
        let b = self.b.as_ref().map(|b| b.placeholders());
        let mut out = self.out.placeholders();
        let none = ScalBufs {
            full: None,
            real: None,
        };
        let (al, be) = coefs(Scal::Host, &self.alphas, &self.betas, &none);
        dispatch(h, &self.c, &a, b.as_ref(), &mut out, al, be)
    }

    fn name(&self) -> String {
        format!(
            "{} {:?} {:?} {:?} alpha={:?} beta={:?}",
            E::NAME,
            self.c,
            self.form,
            self.scal,
            self.alphas,
            self.betas
        )
    }

    /// Outputs as expected, everything else bit-identical.
    fn check(&self, what: &str) {
        self.out.check(what, &self.want);
        self.inputs_untouched(what);
    }

    fn inputs_untouched(&self, what: &str) {
        self.a.untouched(&format!("{what} (A)"));
        if let Some(b) = &self.b {
            b.untouched(&format!("{what} (B)"));
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

/// Coefficient pairs (alpha, beta) the correctness loops cycle through (real types and real
/// scalars take the real parts): general values, beta = 0 (C is NaN then), beta = 1,
/// alpha = 0 (A and B are NaN then), alpha = 0 with beta = 1 (a quick return).
const COEFS: &[(C, C)] = &[
    ((0.75, -0.25), (-1.25, 0.5)),
    ((1.0, 0.0), (0.0, 0.0)),
    ((-1.5, 0.5), (1.0, 0.0)),
    ((0.0, 0.0), (0.5, -0.75)),
    ((0.5, 1.0), (0.0, 0.0)),
    ((-0.25, 0.0), (2.0, 1.0)),
    ((0.0, 0.0), (1.0, 0.0)),
    ((1.25, -0.5), (-0.5, 0.25)),
];

/// Coefficients of the large cases: alpha != 0 always.
const BIG_COEFS: &[(C, C)] = &[
    ((0.75, -0.25), (-1.25, 0.5)),
    ((1.0, 0.0), (0.0, 0.0)),
    ((-1.5, 0.5), (1.0, 0.0)),
    ((1.25, -0.5), (-0.5, 0.25)),
];

/// Runs `c` in `form` with host scalars on `h` and checks every element of every buffer.
fn check_case<E: T>(h: &mut Handle, dev: &Device, r: &mut Gen, c: Case, form: Form, coefs: (C, C)) {
    let mut p = prepare::<E>(dev, r, c, form, Scal::Host, &[coefs.0], &[coefs.1]);
    let what = p.name();
    let st = p.call(h).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(st, Status::Success, "{what}");
    p.check(&what);
}

// ---- F1: correctness of every routine, type, form and option -----------------------------

/// Sizes where blocking changes, small enough for the whole cross product.
const SMALL: &[usize] = &[0, 1, 2, 31, 32, 33];
/// The cross product of gemm and gemm_ex (three sizes deep).
const SMALL3: &[usize] = &[0, 1, 2, 31, 33];

/// Every op pair, layout and coefficient pair at the small sizes; `big`: (opa, opb, m, n, k).
fn gemm_suite<E: T>(dev: &Device, seed: u64, big: &[(Op, Op, usize, usize, usize)]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0usize;
    for &m in SMALL3 {
        for &n in SMALL3 {
            for &k in SMALL3 {
                for opa in OPS {
                    for opb in OPS {
                        t += 1;
                        let c = Case::gemm(opa, opb, m, n, k).fit_t(t);
                        let (form, co) = (FORMS[t % FORMS.len()], COEFS[t % COEFS.len()]);
                        check_case::<E>(&mut h, dev, &mut r, c, form, co);
                    }
                }
            }
        }
    }
    // 32 (a power of two between the odd sizes) with every op pair.
    for opa in OPS {
        for opb in OPS {
            for &(m, n, k) in &[(32, 32, 32), (32, 31, 33), (1, 32, 2)] {
                t += 1;
                let c = Case::gemm(opa, opb, m, n, k).fit_t(t);
                let (form, co) = (FORMS[t % FORMS.len()], COEFS[t % COEFS.len()]);
                check_case::<E>(&mut h, dev, &mut r, c, form, co);
            }
        }
    }
    for &(opa, opb, m, n, k) in big {
        t += 1;
        let c = Case::gemm(opa, opb, m, n, k).fit_t(t);
        let (form, co) = (
            BIG_FORMS[t % BIG_FORMS.len()],
            BIG_COEFS[t % BIG_COEFS.len()],
        );
        check_case::<E>(&mut h, dev, &mut r, c, form, co);
    }
}

/// symm (and hemm for complex types): every side, uplo, layout; `big`: (side, uplo, m, n).
fn mm_suite<E: T>(dev: &Device, seed: u64, big: &[(Side, Uplo, usize, usize)]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0usize;
    let rts: &[Rt] = if E::CPLX {
        &[Rt::Symm, Rt::Hemm]
    } else {
        &[Rt::Symm]
    };
    for &rt in rts {
        for &m in SMALL {
            for &n in SMALL {
                for side in SIDES {
                    for uplo in UPLOS {
                        t += 1;
                        let c = Case::mm(rt, side, uplo, m, n).fit_t(t);
                        let (form, co) = (FORMS[t % FORMS.len()], COEFS[t % COEFS.len()]);
                        check_case::<E>(&mut h, dev, &mut r, c, form, co);
                    }
                }
            }
        }
        for &(side, uplo, m, n) in big {
            t += 1;
            let c = Case::mm(rt, side, uplo, m, n).fit_t(t);
            let (form, co) = (
                BIG_FORMS[t % BIG_FORMS.len()],
                BIG_COEFS[t % BIG_COEFS.len()],
            );
            check_case::<E>(&mut h, dev, &mut r, c, form, co);
        }
    }
}

/// The ops a rank-k update takes: `N`, `T` (and `C`, read as `T`, for real types); the
/// Hermitian ones `N`, `C`.
fn rk_ops<E: T>(rt: Rt) -> &'static [Op] {
    if matches!(rt, Rt::Herk | Rt::Her2k | Rt::Herkx) {
        &[Op::N, Op::C]
    } else if E::CPLX {
        &[Op::N, Op::T]
    } else {
        &[Op::N, Op::T, Op::C]
    }
}

/// A symmetric rank-k family and its Hermitian twin (complex types): every uplo, op, layout;
/// `big`: (uplo, n, k).
fn rk_suite<E: T>(dev: &Device, seed: u64, fam: (Rt, Rt), big: &[(Uplo, usize, usize)]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0usize;
    let rts = if E::CPLX {
        vec![fam.0, fam.1]
    } else {
        vec![fam.0]
    };
    for rt in rts {
        let ops = rk_ops::<E>(rt);
        for &n in SMALL {
            for &k in SMALL {
                for uplo in UPLOS {
                    for &op in ops {
                        t += 1;
                        let c = Case::rk(rt, uplo, op, n, k).fit_t(t);
                        let (form, co) = (FORMS[t % FORMS.len()], COEFS[t % COEFS.len()]);
                        check_case::<E>(&mut h, dev, &mut r, c, form, co);
                    }
                }
            }
        }
        for &(uplo, n, k) in big {
            t += 1;
            let op = ops[t % ops.len()];
            let c = Case::rk(rt, uplo, op, n, k).fit_t(t);
            let (form, co) = (
                BIG_FORMS[t % BIG_FORMS.len()],
                BIG_COEFS[t % BIG_COEFS.len()],
            );
            check_case::<E>(&mut h, dev, &mut r, c, form, co);
        }
    }
}

/// trmm: every side, uplo, op, diag, layout; `big`: (side, uplo, op, diag, m, n).
fn trmm_suite<E: T>(dev: &Device, seed: u64, big: &[(Side, Uplo, Op, Diag, usize, usize)]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0usize;
    for &m in SMALL {
        for &n in SMALL {
            for side in SIDES {
                for uplo in UPLOS {
                    for op in OPS {
                        for diag in DIAGS {
                            t += 1;
                            let c = Case::tr(side, uplo, op, diag, m, n).fit_t(t);
                            let (form, co) = (FORMS[t % FORMS.len()], COEFS[t % COEFS.len()]);
                            check_case::<E>(&mut h, dev, &mut r, c, form, co);
                        }
                    }
                }
            }
        }
    }
    for &(side, uplo, op, diag, m, n) in big {
        t += 1;
        let c = Case::tr(side, uplo, op, diag, m, n).fit_t(t);
        let (form, co) = (
            BIG_FORMS[t % BIG_FORMS.len()],
            BIG_COEFS[t % BIG_COEFS.len()],
        );
        check_case::<E>(&mut h, dev, &mut r, c, form, co);
    }
}

use Diag::{NonUnit as NU, Unit as UN};
use Op::{C as OC, N as ON, T as OT};
use Side::{Left as L, Right as R};
use Uplo::{Lower as LO, Upper as UP};

fn f1_gemm_all_ops_forms_sizes_f32(dev: &Device) {
    gemm_suite::<f32>(
        dev,
        11,
        &[
            (ON, ON, 127, 128, 129),
            (OT, OC, 129, 127, 128),
            (OC, OT, 257, 257, 257),
            (ON, ON, 33, 129, 31),
        ],
    )
}
fn f1_gemm_all_ops_forms_sizes_f64(dev: &Device) {
    gemm_suite::<f64>(
        dev,
        12,
        &[
            (OT, ON, 128, 128, 128),
            (ON, OC, 257, 33, 129),
            (OC, ON, 31, 257, 33),
        ],
    )
}
fn f1_gemm_all_ops_forms_sizes_c32(dev: &Device) {
    gemm_suite::<Complex32>(
        dev,
        13,
        &[
            (OC, OT, 129, 128, 127),
            (ON, ON, 33, 129, 31),
            (OT, ON, 64, 257, 33),
        ],
    )
}
fn f1_gemm_all_ops_forms_sizes_c64(dev: &Device) {
    gemm_suite::<Complex64>(dev, 14, &[(ON, OC, 128, 129, 127), (OC, OC, 257, 31, 33)])
}
fn f1_symm_hemm_all_sides_uplos_forms_sizes_f32(dev: &Device) {
    mm_suite::<f32>(dev, 21, &[(L, LO, 129, 33), (R, UP, 33, 128)])
}
fn f1_symm_hemm_all_sides_uplos_forms_sizes_f64(dev: &Device) {
    mm_suite::<f64>(dev, 22, &[(L, UP, 257, 129), (R, LO, 127, 128)])
}
fn f1_symm_hemm_all_sides_uplos_forms_sizes_c32(dev: &Device) {
    mm_suite::<Complex32>(dev, 23, &[(R, UP, 129, 257), (L, LO, 128, 127)])
}
fn f1_symm_hemm_all_sides_uplos_forms_sizes_c64(dev: &Device) {
    mm_suite::<Complex64>(dev, 24, &[(L, UP, 127, 31), (R, LO, 33, 129)])
}
fn f1_syrk_herk_all_uplos_ops_forms_sizes_f32(dev: &Device) {
    rk_suite::<f32>(
        dev,
        31,
        (Rt::Syrk, Rt::Herk),
        &[(UP, 129, 33), (LO, 33, 129)],
    )
}
fn f1_syrk_herk_all_uplos_ops_forms_sizes_f64(dev: &Device) {
    rk_suite::<f64>(
        dev,
        32,
        (Rt::Syrk, Rt::Herk),
        &[(LO, 257, 129), (UP, 127, 128), (LO, 128, 64)],
    )
}
fn f1_syrk_herk_all_uplos_ops_forms_sizes_c32(dev: &Device) {
    rk_suite::<Complex32>(
        dev,
        33,
        (Rt::Syrk, Rt::Herk),
        &[(UP, 129, 31), (LO, 31, 127)],
    )
}
fn f1_syrk_herk_all_uplos_ops_forms_sizes_c64(dev: &Device) {
    rk_suite::<Complex64>(
        dev,
        34,
        (Rt::Syrk, Rt::Herk),
        &[(UP, 257, 64), (LO, 128, 129)],
    )
}
fn f1_syr2k_her2k_all_uplos_ops_forms_sizes_f32(dev: &Device) {
    rk_suite::<f32>(
        dev,
        41,
        (Rt::Syr2k, Rt::Her2k),
        &[(LO, 257, 127), (UP, 128, 129)],
    )
}
fn f1_syr2k_her2k_all_uplos_ops_forms_sizes_f64(dev: &Device) {
    rk_suite::<f64>(
        dev,
        42,
        (Rt::Syr2k, Rt::Her2k),
        &[(UP, 129, 33), (LO, 33, 128)],
    )
}
fn f1_syr2k_her2k_all_uplos_ops_forms_sizes_c32(dev: &Device) {
    rk_suite::<Complex32>(
        dev,
        43,
        (Rt::Syr2k, Rt::Her2k),
        &[(UP, 257, 33), (LO, 127, 64)],
    )
}
fn f1_syr2k_her2k_all_uplos_ops_forms_sizes_c64(dev: &Device) {
    rk_suite::<Complex64>(dev, 44, (Rt::Syr2k, Rt::Her2k), &[(LO, 129, 31)])
}
fn f1_syrkx_herkx_all_uplos_ops_forms_sizes_f32(dev: &Device) {
    rk_suite::<f32>(
        dev,
        51,
        (Rt::Syrkx, Rt::Herkx),
        &[(UP, 128, 127), (LO, 129, 33)],
    )
}
fn f1_syrkx_herkx_all_uplos_ops_forms_sizes_f64(dev: &Device) {
    rk_suite::<f64>(
        dev,
        52,
        (Rt::Syrkx, Rt::Herkx),
        &[(LO, 257, 257), (UP, 127, 31)],
    )
}
fn f1_syrkx_herkx_all_uplos_ops_forms_sizes_c32(dev: &Device) {
    rk_suite::<Complex32>(dev, 53, (Rt::Syrkx, Rt::Herkx), &[(LO, 129, 64)])
}
fn f1_syrkx_herkx_all_uplos_ops_forms_sizes_c64(dev: &Device) {
    rk_suite::<Complex64>(
        dev,
        54,
        (Rt::Syrkx, Rt::Herkx),
        &[(UP, 257, 33), (LO, 128, 31)],
    )
}
fn f1_trmm_all_sides_uplos_ops_diags_forms_sizes_f32(dev: &Device) {
    trmm_suite::<f32>(
        dev,
        61,
        &[
            (L, UP, ON, NU, 257, 129),
            (R, LO, OT, UN, 127, 128),
            (L, LO, OC, NU, 129, 33),
        ],
    )
}
fn f1_trmm_all_sides_uplos_ops_diags_forms_sizes_f64(dev: &Device) {
    trmm_suite::<f64>(
        dev,
        62,
        &[
            (R, UP, OC, NU, 129, 257),
            (L, LO, ON, UN, 128, 127),
            (R, LO, OT, NU, 33, 129),
        ],
    )
}
fn f1_trmm_all_sides_uplos_ops_diags_forms_sizes_c32(dev: &Device) {
    trmm_suite::<Complex32>(
        dev,
        63,
        &[(L, UP, OC, UN, 129, 64), (R, UP, ON, NU, 31, 128)],
    )
}
fn f1_trmm_all_sides_uplos_ops_diags_forms_sizes_c64(dev: &Device) {
    trmm_suite::<Complex64>(
        dev,
        64,
        &[(L, LO, OT, NU, 257, 31), (R, UP, OC, UN, 64, 127)],
    )
}

// ---- gemm_ex -----------------------------------------------------------------------------

/// A `gemm_ex` call ready to run: inputs `I`, output `O`, scalars `I::Scale`.
struct ExPrepared<I: GemmExIn, O> {
    c: Case,
    form: Form,
    compute: ComputeType,
    a: Placed<I>,
    b: Placed<I>,
    out: Placed<O>,
    scal: Scal,
    alphas: Vec<C>,
    betas: Vec<C>,
    sbufs: Option<(DeviceBuffer<I::Scale>, DeviceBuffer<I::Scale>)>,
    want: Vec<Vec<(usize, C, f64)>>,
}

/// Accumulation accuracy of a compute type.
fn eps_acc(compute: ComputeType) -> f64 {
    match compute {
        ComputeType::F64 => f64::EPSILON,
        _ => f32::EPSILON as f64,
    }
}

/// Relative error of one product when the inputs are rounded for the tensor cores.
fn eps_inputs(compute: ComputeType) -> f64 {
    match compute {
        ComputeType::F32FastTf32 | ComputeType::F32FastF16 => 1.0 / 1024.0,
        ComputeType::F32FastBf16 => 1.0 / 128.0,
        _ => 0.0,
    }
}

fn prepare_ex<I, O>(
    dev: &Device,
    r: &mut Gen,
    c: Case,
    form: Form,
    compute: ComputeType,
    scal: Scal,
    alphas: &[C],
    betas: &[C],
) -> ExPrepared<I, O>
where
    I: GemmExIn + El,
    O: GemmExOut<I> + El,
    I::Scale: El,
{
    assert_eq!(c.rt, Rt::Gemm);
    let count = form_count(form);
    let alphas: Vec<C> = alphas.iter().map(|&v| eff::<I::Scale>(v, false)).collect();
    let betas: Vec<C> = betas.iter().map(|&v| eff::<I::Scale>(v, false)).collect();
    let host = scal == Scal::Host;
    let eps_io = eps_inputs(compute).max(O::EPS);
    let (mut a_e, mut b_e, mut c_e, mut want) = (vec![], vec![], vec![], vec![]);
    for v in 0..count {
        let e = if scal == Scal::PerEntry { v } else { 0 };
        let (alpha, beta) = (alphas[e], betas[e]);
        let nan_in = host && alpha == ZERO;
        let (ast, ad) = gen_a::<I>(&c, r, nan_in);
        let (br, bc) = c.b_dims().unwrap();
        let (bst, bd) = gen_full::<I>(br, bc, c.ldb, r, nan_in);
        let (cst, cd) = gen_c::<O>(&c, r, beta == ZERO, false);
        want.push(if is_quick(&c, host, alpha, beta) {
            vec![]
        } else {
            expected(
                &c,
                &ad,
                Some(&bd),
                &cd,
                alpha,
                beta,
                I::CPLX,
                eps_acc(compute),
                eps_io,
            )
        });
        a_e.push(ast);
        b_e.push(bst);
        c_e.push(cst);
    }
    let (ar, ac) = c.a_dims();
    let (br, bc) = c.b_dims().unwrap();
    let a = Placed::new(dev, form, span(ar, ac, c.lda), &a_e, nan());
    let b = Placed::new(dev, form, span(br, bc, c.ldb), &b_e, nan());
    let out = Placed::new(dev, form, span(c.m, c.n, c.ldc), &c_e, poison());
    let n = if scal == Scal::PerEntry { count } else { 1 };
    let sbufs = (!host).then(|| {
        let up = |vals: &[C]| {
            let mut v: Vec<I::Scale> = vals[..n]
                .iter()
                .map(|x| <I::Scale as El>::make(x.0, x.1))
                .collect();
            v.push(nan());
            dev.upload(&v).unwrap()
        };
        (up(&alphas), up(&betas))
    });
    ExPrepared {
        c,
        form,
        compute,
        a,
        b,
        out,
        scal,
        alphas,
        betas,
        sbufs,
        want,
    }
}

fn ex_dispatch<I: GemmExIn + El, O: GemmExOut<I> + El>(
    h: &mut Handle,
    c: &Case,
    a: &Placed<I>,
    b: &Placed<I>,
    out: &mut Placed<O>,
    alpha: Coef<'_, I::Scale>,
    beta: Coef<'_, I::Scale>,
    compute: ComputeType,
) -> Result<Status, Error> {
    let form = out.form;
    let batch = form_count(form);
    let so = out.stride;
    match form {
        Form::Single => blas3::gemm_ex(
            h,
            c.opa,
            c.opb,
            c.m,
            c.n,
            c.k,
            alpha,
            a.one(),
            c.lda,
            b.one(),
            c.ldb,
            beta,
            out.one_mut(),
            c.ldc,
            compute,
        ),
        Form::List(_) => blas3::gemm_ex_batched(
            h,
            c.opa,
            c.opb,
            c.m,
            c.n,
            c.k,
            alpha,
            &a.refs(),
            c.lda,
            &b.refs(),
            c.ldb,
            beta,
            &mut out.muts(),
            c.ldc,
            compute,
        ),
        Form::Strided(_) => blas3::gemm_ex_strided_batched(
            h,
            c.opa,
            c.opb,
            c.m,
            c.n,
            c.k,
            alpha,
            a.one(),
            c.lda,
            a.stride,
            b.one(),
            c.ldb,
            b.stride,
            beta,
            out.one_mut(),
            c.ldc,
            so,
            batch,
            compute,
        ),
    }
}

impl<I, O> ExPrepared<I, O>
where
    I: GemmExIn + El,
    O: GemmExOut<I> + El,
    I::Scale: El,
{
    fn call(&mut self, h: &mut Handle) -> Result<Status, Error> {
        let (al, be) = match (&self.sbufs, self.scal) {
            (None, _) => (
                Coef::Host(<I::Scale as El>::make(self.alphas[0].0, self.alphas[0].1)),
                Coef::Host(<I::Scale as El>::make(self.betas[0].0, self.betas[0].1)),
            ),
            (Some((a, b)), s) => {
                let per = s == Scal::PerEntry;
                (dev_coef(a, per), dev_coef(b, per))
            }
        };
        ex_dispatch(
            h,
            &self.c,
            &self.a,
            &self.b,
            &mut self.out,
            al,
            be,
            self.compute,
        )
    }

    fn call_placeholders(&self, h: &mut Handle) -> Result<Status, Error> {
        let (a, b, mut out) = (
            self.a.placeholders(),
            self.b.placeholders(),
            self.out.placeholders(),
        );
        let al = Coef::Host(<I::Scale as El>::make(self.alphas[0].0, self.alphas[0].1));
        let be = Coef::Host(<I::Scale as El>::make(self.betas[0].0, self.betas[0].1));
        ex_dispatch(h, &self.c, &a, &b, &mut out, al, be, self.compute)
    }

    fn name(&self) -> String {
        format!(
            "gemm_ex {} -> {} {:?} {:?} {:?} {:?} alpha={:?} beta={:?}",
            I::NAME,
            O::NAME,
            self.compute,
            self.c,
            self.form,
            self.scal,
            self.alphas,
            self.betas
        )
    }

    fn check(&self, what: &str) {
        self.out.check(what, &self.want);
        self.a.untouched(&format!("{what} (A)"));
        self.b.untouched(&format!("{what} (B)"));
    }

    fn untouched(&self, what: &str) {
        self.out.untouched(what);
        self.a.untouched(&format!("{what} (A)"));
        self.b.untouched(&format!("{what} (B)"));
    }
}

/// Every op pair (in rotation), layout and coefficient pair at the small sizes, then `big`.
fn ex_suite<I, O>(
    dev: &Device,
    seed: u64,
    compute: ComputeType,
    big: &[(Op, Op, usize, usize, usize)],
) where
    I: GemmExIn + El,
    O: GemmExOut<I> + El,
    I::Scale: El,
{
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0usize;
    let run = |h: &mut Handle, r: &mut Gen, c: Case, form: Form, co: (C, C)| {
        let mut p = prepare_ex::<I, O>(dev, r, c, form, compute, Scal::Host, &[co.0], &[co.1]);
        let what = p.name();
        let st = p.call(h).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(st, Status::Success, "{what}");
        p.check(&what);
    };
    for &m in SMALL3 {
        for &n in SMALL3 {
            for &k in SMALL3 {
                for s in 0..2 {
                    t += 1;
                    let (opa, opb) = (OPS[(t + s) % 3], OPS[(t / 3) % 3]);
                    let c = Case::gemm(opa, opb, m, n, k).fit_t(t);
                    let (form, co) = (FORMS[t % FORMS.len()], COEFS[t % COEFS.len()]);
                    run(&mut h, &mut r, c, form, co);
                }
            }
        }
    }
    for &(opa, opb, m, n, k) in big {
        t += 1;
        let c = Case::gemm(opa, opb, m, n, k).fit_t(t);
        let (form, co) = (
            BIG_FORMS[t % BIG_FORMS.len()],
            BIG_COEFS[t % BIG_COEFS.len()],
        );
        run(&mut h, &mut r, c, form, co);
    }
}

fn f1_gemm_ex_f16_bf16_inputs_f32_accumulation(dev: &Device) {
    let f = ComputeType::F32;
    ex_suite::<f16, f16>(dev, 71, f, &[(ON, OT, 129, 128, 64)]);
    ex_suite::<f16, f32>(dev, 72, f, &[(OT, ON, 129, 128, 257)]);
    ex_suite::<bf16, bf16>(dev, 73, f, &[(OC, OC, 127, 257, 33)]);
    ex_suite::<bf16, f32>(dev, 74, f, &[(ON, ON, 128, 127, 129)]);
}

fn f1_gemm_ex_f32_f64_complex_and_tensor_core_modes(dev: &Device) {
    ex_suite::<f32, f32>(dev, 75, ComputeType::F32, &[(ON, ON, 257, 129, 128)]);
    ex_suite::<f32, f32>(
        dev,
        76,
        ComputeType::F32FastTf32,
        &[(OC, ON, 128, 127, 129)],
    );
    ex_suite::<f32, f32>(dev, 77, ComputeType::F32FastF16, &[(ON, OT, 64, 129, 31)]);
    ex_suite::<f32, f32>(dev, 78, ComputeType::F32FastBf16, &[(OT, OT, 33, 65, 127)]);
    ex_suite::<f64, f64>(dev, 79, ComputeType::F64, &[(ON, OC, 129, 257, 33)]);
    ex_suite::<Complex32, Complex32>(dev, 80, ComputeType::F32, &[(OC, OT, 65, 33, 129)]);
    ex_suite::<Complex64, Complex64>(dev, 81, ComputeType::F64, &[(OT, OC, 33, 64, 128)]);
}

// ---- F3, F10: quick returns, beta = 0, alpha = 0, device scalars -------------------------

/// One call of every routine the type has at (m, n, k): rank-k updates take n (and k).
fn all_routines<E: T>(m: usize, n: usize, k: usize) -> Vec<Case> {
    let mut v = vec![
        Case::gemm(ON, OT, m, n, k),
        Case::gemm(OC, ON, m, n, k).fit(2, 1, 3),
        Case::mm(Rt::Symm, L, UP, m, n),
        Case::mm(Rt::Symm, R, LO, m, n).fit(1, 2, 3),
        Case::rk(Rt::Syrk, LO, ON, n, k),
        Case::rk(Rt::Syrk, UP, OT, n, k).fit(3, 0, 1),
        Case::rk(Rt::Syr2k, UP, ON, n, k),
        Case::rk(Rt::Syrkx, LO, OT, n, k).fit(1, 2, 0),
        Case::tr(L, LO, OT, UN, m, n),
        Case::tr(R, UP, ON, NU, m, n).fit(2, 0, 1),
    ];
    if E::CPLX {
        v.extend([
            Case::mm(Rt::Hemm, R, UP, m, n),
            Case::mm(Rt::Hemm, L, LO, m, n).fit(2, 1, 0),
            Case::rk(Rt::Herk, UP, OC, n, k).fit(1, 0, 2),
            Case::rk(Rt::Herk, LO, ON, n, k),
            Case::rk(Rt::Her2k, LO, OC, n, k),
            Case::rk(Rt::Herkx, UP, ON, n, k).fit(0, 3, 1),
        ]);
    }
    v
}

fn run_prepared<E: T>(h: &mut Handle, p: &mut Prepared<E>) {
    let what = p.name();
    let st = p.call(h).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(st, Status::Success, "{what}");
    p.check(&what);
}

fn quick_returns<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let (two, one, zero) = ((2.0, 0.5), ONE, ZERO);
    for form in [
        Form::Single,
        Form::List(3),
        Form::Strided(3),
        Form::List(0),
        Form::Strided(0),
    ] {
        // m == 0 or n == 0: C keeps its values whatever the scalars.
        for &(m, n, k) in &[(0, 5, 3), (4, 0, 3), (0, 0, 2), (0, 3, 0)] {
            for c in all_routines::<E>(m, n, k) {
                if !c.empty() {
                    continue;
                }
                let mut p = prepare::<E>(dev, &mut r, c, form, Scal::Host, &[two], &[two]);
                assert!(p.want.iter().all(|w| w.is_empty()));
                run_prepared(&mut h, &mut p);
                p.untouched(&p.name());
            }
        }
        for c in all_routines::<E>(5, 4, 3) {
            // Host alpha == 0 and beta == 1: nothing read (A and B are NaN), nothing written.
            if c.rt != Rt::Trmm {
                let mut p = prepare::<E>(dev, &mut r, c, form, Scal::Host, &[zero], &[one]);
                run_prepared(&mut h, &mut p);
                p.untouched(&p.name());
            }
        }
        for c in all_routines::<E>(5, 4, 0) {
            if !c.k_zero() {
                continue;
            }
            // k == 0 and beta == 1: a quick return; k == 0 and beta != 1: C = beta C (the
            // Hermitian updates make the diagonal real).
            let mut p = prepare::<E>(dev, &mut r, c, form, Scal::Host, &[two], &[one]);
            run_prepared(&mut h, &mut p);
            p.untouched(&p.name());
            let mut p = prepare::<E>(dev, &mut r, c, form, Scal::Host, &[two], &[(-0.5, 0.25)]);
            run_prepared(&mut h, &mut p);
        }
    }
}

fn f3_quick_returns_touch_nothing(dev: &Device) {
    quick_returns::<f32>(dev, 91);
    quick_returns::<Complex64>(dev, 92);
    // gemm_ex: m == 0, k == 0 with beta == 1, host alpha == 0 with beta == 1.
    let mut h = handle(dev);
    let mut r = Gen::new(93);
    for c in [
        Case::gemm(ON, ON, 0, 4, 3),
        Case::gemm(OT, OC, 5, 4, 0),
        Case::gemm(OC, ON, 5, 4, 3),
    ] {
        for form in [Form::Single, Form::List(2), Form::Strided(2)] {
            let alpha = if c.k == 3 && c.m == 5 { ZERO } else { ONE };
            let mut p = prepare_ex::<f16, f32>(
                dev,
                &mut r,
                c,
                form,
                ComputeType::F32,
                Scal::Host,
                &[alpha],
                &[ONE],
            );
            let what = p.name();
            assert!(p.want.iter().all(|w| w.is_empty()), "{what}");
            let st = p.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(st, Status::Success, "{what}");
            p.untouched(&what);
        }
    }
}

fn zero_scalars<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let (a, b) = ((0.75, -0.5), (-1.25, 0.25));
    for form in [Form::Single, Form::List(3), Form::Strided(3)] {
        for c in all_routines::<E>(65, 33, 17) {
            // (alpha, beta, scalars)
            for (alpha, beta, scal) in [
                (a, ZERO, Scal::Host),     // C NaN, not read
                (ONE, ZERO, Scal::Host),   // C NaN, not read
                (ZERO, b, Scal::Host),     // C = beta C, A and B NaN, not read (trmm: B = 0)
                (ZERO, ZERO, Scal::Host),  // C = 0 from NaN everywhere
                (ZERO, ONE, Scal::Device), // no host quick return: C = C
                (a, ZERO, Scal::Device),   // C NaN, not read
                (ZERO, b, Scal::Device),
            ] {
                let mut p = prepare::<E>(dev, &mut r, c, form, scal, &[alpha], &[beta]);
                run_prepared(&mut h, &mut p);
            }
        }
    }
}

fn f10_beta_zero_ignores_c_and_alpha_zero_ignores_a_and_b(dev: &Device) {
    zero_scalars::<f32>(dev, 101);
    zero_scalars::<f64>(dev, 102);
    zero_scalars::<Complex32>(dev, 103);
    zero_scalars::<Complex64>(dev, 104);
}

fn device_scalars<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let alphas: Vec<C> = vec![
        (0.75, -0.5),
        (0.0, 0.0),
        (-1.25, 0.25),
        (1.0, 0.0),
        (2.0, 1.5),
    ];
    // Entry 1: alpha 0 with beta != 0; entry 3: beta 0 (C NaN there); entry 4: beta 1.
    let betas: Vec<C> = vec![(0.5, 0.5), (-2.0, 0.0), (1.5, -1.0), (0.0, 0.0), (1.0, 0.0)];
    for c in all_routines::<E>(33, 17, 9) {
        for form in [Form::Single, Form::List(3), Form::Strided(3)] {
            let mut p = prepare::<E>(dev, &mut r, c, form, Scal::Device, &alphas, &betas);
            run_prepared(&mut h, &mut p);
        }
        for form in [
            Form::Strided(5),
            Form::List(5),
            Form::Strided(0),
            Form::List(0),
        ] {
            let mut p = prepare::<E>(dev, &mut r, c, form, Scal::PerEntry, &alphas, &betas);
            run_prepared(&mut h, &mut p);
        }
    }
}

fn f10_device_scalars_single_and_per_entry(dev: &Device) {
    device_scalars::<f32>(dev, 111);
    device_scalars::<f64>(dev, 112);
    device_scalars::<Complex32>(dev, 113);
    device_scalars::<Complex64>(dev, 114);
    // gemm_ex with device scalars, one per entry on the strided form.
    let mut h = handle(dev);
    let mut r = Gen::new(115);
    let alphas: Vec<C> = vec![(0.5, 0.0), (0.0, 0.0), (-1.5, 0.0)];
    let betas: Vec<C> = vec![(0.0, 0.0), (2.0, 0.0), (1.0, 0.0)];
    for (form, scal) in [
        (Form::Strided(3), Scal::PerEntry),
        (Form::List(3), Scal::PerEntry),
        (Form::Strided(2), Scal::Device),
    ] {
        let c = Case::gemm(OT, ON, 33, 31, 65).fit(1, 2, 3);
        let mut p = prepare_ex::<f16, f32>(
            dev,
            &mut r,
            c,
            form,
            ComputeType::F32,
            scal,
            &alphas,
            &betas,
        );
        let what = p.name();
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(st, Status::Success, "{what}");
        p.check(&what);
        let mut p = prepare_ex::<f64, f64>(
            dev,
            &mut r,
            c,
            form,
            ComputeType::F64,
            scal,
            &alphas,
            &betas,
        );
        let what = p.name();
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(st, Status::Success, "{what}");
        p.check(&what);
    }
}

/// Inputs of one call may overlap (F9): one `A` and one `B` for every entry (stride 0, or a
/// list naming one buffer repeatedly).
fn f9_inputs_may_overlap(dev: &Device) {
    let mut h = handle(dev);
    let (m, n, k, batch) = (7usize, 5usize, 3usize, 3usize);
    let a: Vec<f64> = (0..m * k).map(|i| (i % 11) as f64 - 4.0).collect();
    let b: Vec<f64> = (0..k * n).map(|i| i as f64 * 0.5 - 1.0).collect();
    let want: Vec<f64> = (0..m * n)
        .map(|p| {
            let (i, j) = (p % m, p / m);
            (0..k).map(|l| a[i + l * m] * b[l + j * k]).sum::<f64>()
        })
        .collect();
    let ab = dev.upload(&a).unwrap();
    let bb = dev.upload(&b).unwrap();
    let mut c = dev.upload(&vec![f64::NAN; m * n * batch + 1]).unwrap();
    let st = blas3::gemm_strided_batched(
        &mut h,
        Op::N,
        Op::N,
        m,
        n,
        k,
        1.0.into(),
        &ab,
        m,
        0,
        &bb,
        k,
        0,
        0.0.into(),
        &mut c,
        m,
        m * n,
        batch,
    )
    .unwrap();
    assert_eq!(st, Status::Success);
    let got = c.to_vec().unwrap();
    for e in 0..batch {
        for p in 0..m * n {
            assert!(
                (got[e * m * n + p] - want[p]).abs() < 1e-12,
                "entry {e} {p}"
            );
        }
    }
    assert!(got[m * n * batch].is_nan());
    // syrk with one A named three times in a list: C = A Aᵀ (lower triangle).
    let mut cs: Vec<DeviceBuffer<f64>> = (0..batch)
        .map(|_| dev.upload(&vec![f64::NAN; m * m]).unwrap())
        .collect();
    let mut cm: Vec<&mut DeviceBuffer<f64>> = cs.iter_mut().collect();
    let st = blas3::syrk_batched(
        &mut h,
        Uplo::Lower,
        Op::N,
        m,
        k,
        1.0.into(),
        &[&ab, &ab, &ab],
        m,
        0.0.into(),
        &mut cm,
        m,
    )
    .unwrap();
    assert_eq!(st, Status::Success);
    for cb in &cs {
        let got = cb.to_vec().unwrap();
        for j in 0..m {
            for i in 0..m {
                let w: f64 = (0..k).map(|l| a[i + l * m] * a[j + l * m]).sum();
                if i >= j {
                    assert!((got[i + j * m] - w).abs() < 1e-12, "syrk ({i}, {j})");
                } else {
                    assert!(got[i + j * m].is_nan(), "syrk wrote ({i}, {j})");
                }
            }
        }
    }
    // trmm with one triangular A for every entry of B (stride_a = 0).
    let t: Vec<f64> = vec![2.0, 0.5, 0.25, 9.0, 1.0, -1.0, 9.0, 9.0, 4.0]; // lower, 3 × 3
    let tb = dev.upload(&t).unwrap();
    let mut bs = dev
        .upload(&[1.0, 1.0, 1.0, 2.0, 0.0, -1.0, f64::NAN])
        .unwrap();
    let st = blas3::trmm_strided_batched(
        &mut h,
        Side::Left,
        Uplo::Lower,
        Op::N,
        Diag::NonUnit,
        3,
        1,
        1.0.into(),
        &tb,
        3,
        0,
        &mut bs,
        3,
        3,
        2,
    )
    .unwrap();
    assert_eq!(st, Status::Success);
    let got = bs.to_vec().unwrap();
    // L = [2 0 0; .5 1 0; .25 -1 4]: [1, 1, 1] -> [2, 1.5, 3.25]; [2, 0, -1] -> [4, 1, -3.5]
    assert_eq!(&got[..6], &[2.0, 1.5, 3.25, 4.0, 1.0, -3.5]);
    assert!(got[6].is_nan());
}

// ---- M6, M8, M9, F4: the workspace --------------------------------------------------------

/// A representative call of every routine (its single, list and strided forms among them).
fn workspace_cases<E: T>() -> Vec<(Case, Form)> {
    let mut v = vec![
        (Case::gemm(OT, ON, 129, 127, 257).fit(3, 0, 1), Form::Single),
        (Case::gemm(ON, OC, 33, 129, 31), Form::Strided(3)),
        (Case::gemm(ON, ON, 31, 33, 32).fit(1, 1, 1), Form::List(7)),
        (Case::mm(Rt::Symm, L, LO, 129, 64), Form::Single),
        (
            Case::mm(Rt::Symm, R, UP, 33, 31).fit(2, 0, 0),
            Form::List(3),
        ),
        (Case::rk(Rt::Syrk, UP, OT, 129, 64), Form::Single),
        (Case::rk(Rt::Syrk, LO, ON, 33, 31), Form::Strided(3)),
        (Case::rk(Rt::Syr2k, UP, ON, 129, 33), Form::Single),
        (Case::rk(Rt::Syrkx, LO, OT, 128, 31), Form::List(2)),
        (Case::tr(L, UP, ON, NU, 129, 64), Form::Single),
        (Case::tr(R, LO, OC, UN, 64, 129).fit(0, 0, 3), Form::List(2)),
        (Case::tr(L, LO, OT, NU, 33, 31), Form::Strided(3)),
    ];
    if E::CPLX {
        v.extend([
            (Case::mm(Rt::Hemm, R, UP, 64, 129), Form::Single),
            (Case::rk(Rt::Herk, LO, OC, 129, 64), Form::Single),
            (Case::rk(Rt::Her2k, LO, OC, 64, 129), Form::Strided(2)),
            (Case::rk(Rt::Herkx, UP, ON, 129, 64), Form::List(2)),
        ]);
    }
    v
}

/// The workspace a query asks for, with placeholders.
fn query_size<E: T>(dev: &Device, p: &Prepared<E>) -> usize {
    let mut q = fixed_handle(dev, 0);
    q.start_device_memory_size_query().unwrap();
    let _ = p
        .call_placeholders(&mut q)
        .unwrap_or_else(|e| panic!("{}: query: {e}", p.name()));
    q.stop_device_memory_size_query().unwrap()
}

const SMALL_WS: usize = 16 << 10;

/// The text of a caught panic.
fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Runs `f` on every item, then fails listing each one that panicked, so that one failing
/// routine does not hide the others.
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

fn query_preallocate_small<E: T>(dev: &Device, seed: u64) {
    let mut r = Gen::new(seed);
    let (alpha, beta) = ((0.75, -0.25), (0.5, 0.125));
    each(workspace_cases::<E>(), |(c, form)| {
        let mut p = prepare::<E>(dev, &mut r, c, form, Scal::Host, &[alpha], &[beta]);
        let name = p.name();
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
        // F4: the need depends on the arguments alone: real operands ask for the same.
        let mut q = fixed_handle(dev, 0);
        q.start_device_memory_size_query().unwrap();
        let _ = p.call(&mut q).unwrap();
        let real = q.stop_device_memory_size_query().unwrap();
        assert_eq!(real, size, "{name}: query with real operands");
        let s = h.workspace_stats();
        assert_eq!(
            (s.leases, s.growths, s.capacity, s.memory_errors),
            (0, 0, 0, 0),
            "{name}: {s}"
        );
        // M9: preallocated with the answer, the call runs as planned (a Managed handle of
        // capacity 0 when the answer is 0: it must not grow).
        let _ = h.set_device_memory_size(size).unwrap();
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(st, Status::Success, "{name}: size {size}");
        p.check(&name);
        let s = h.workspace_stats();
        assert_eq!(
            (s.memory_errors, s.degraded_calls, s.growths),
            (0, 0, 0),
            "{name}: {s}"
        );
        // M6: a fixed 16 KiB workspace degrades exactly when the query exceeds it.
        p.reset();
        let mut small = fixed_handle(dev, SMALL_WS);
        let st = p
            .call(&mut small)
            .unwrap_or_else(|e| panic!("{name}: 16 KiB: {e}"));
        let degraded = size > SMALL_WS;
        let expect = if degraded {
            Status::PerfDegraded
        } else {
            Status::Success
        };
        assert_eq!(st, expect, "{name}: 16 KiB workspace, query said {size}");
        p.check(&format!("{name} (16 KiB workspace)"));
        let s = small.workspace_stats();
        assert_eq!(s.degraded_calls, degraded as u64, "{name}: {s}");
        assert_eq!(s.memory_errors, 0, "{name}: {s}");
        assert_eq!(small.get_device_memory_size(), SMALL_WS);
    });
}

fn m08_m09_m06_query_then_preallocate_then_16kib_f64(dev: &Device) {
    query_preallocate_small::<f64>(dev, 121)
}
fn m08_m09_m06_query_then_preallocate_then_16kib_c32(dev: &Device) {
    query_preallocate_small::<Complex32>(dev, 122)
}

fn m08_m09_m06_gemm_ex_query_then_preallocate_then_16kib(dev: &Device) {
    fn one<I, O>(dev: &Device, r: &mut Gen, c: Case, form: Form, compute: ComputeType)
    where
        I: GemmExIn + El,
        O: GemmExOut<I> + El,
        I::Scale: El,
    {
        let mut p = prepare_ex::<I, O>(
            dev,
            r,
            c,
            form,
            compute,
            Scal::Host,
            &[(0.75, 0.0)],
            &[(-0.5, 0.0)],
        );
        let name = p.name();
        let mut h = fixed_handle(dev, 0);
        h.start_device_memory_size_query().unwrap();
        let st = p
            .call_placeholders(&mut h)
            .unwrap_or_else(|e| panic!("{name}: query: {e}"));
        assert!(
            matches!(st, Status::SizeIncreased | Status::SizeUnchanged),
            "{name}: {st:?}"
        );
        assert_eq!(p.call(&mut h).unwrap(), Status::SizeUnchanged, "{name}");
        p.untouched(&format!("{name}: during a query"));
        let size = h.stop_device_memory_size_query().unwrap();
        let _ = h.set_device_memory_size(size).unwrap();
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(st, Status::Success, "{name}: size {size}");
        p.check(&name);
        let s = h.workspace_stats();
        assert_eq!(
            (s.memory_errors, s.degraded_calls, s.growths),
            (0, 0, 0),
            "{name}: {s}"
        );
        p.out.reset();
        let mut small = fixed_handle(dev, SMALL_WS);
        let st = p
            .call(&mut small)
            .unwrap_or_else(|e| panic!("{name}: 16 KiB: {e}"));
        let expect = if size > SMALL_WS {
            Status::PerfDegraded
        } else {
            Status::Success
        };
        assert_eq!(st, expect, "{name}: 16 KiB, query said {size}");
        p.check(&format!("{name} (16 KiB workspace)"));
    }
    let mut r = Gen::new(123);
    let f = ComputeType::F32;
    one::<f16, f32>(
        dev,
        &mut r,
        Case::gemm(OT, ON, 129, 128, 257),
        Form::Single,
        f,
    );
    one::<bf16, bf16>(
        dev,
        &mut r,
        Case::gemm(ON, OT, 33, 31, 32),
        Form::List(3),
        f,
    );
    one::<f16, f16>(
        dev,
        &mut r,
        Case::gemm(ON, ON, 64, 65, 66).fit(1, 0, 2),
        Form::Strided(2),
        f,
    );
    one::<f32, f32>(
        dev,
        &mut r,
        Case::gemm(OC, ON, 64, 65, 66),
        Form::Strided(2),
        ComputeType::F32FastTf32,
    );
    one::<f64, f64>(
        dev,
        &mut r,
        Case::gemm(OT, ON, 128, 64, 129),
        Form::Single,
        ComputeType::F64,
    );
}

/// The issue's cases: syrk n = 257, k = 64; trmm m = n = 257; symm m = n = 257 (f64) run
/// degraded in a 16 KiB workspace, with the right answers.
fn m06_16kib_degrades_syrk_trmm_symm_of_order_257(dev: &Device) {
    let mut r = Gen::new(124);
    let cases = vec![
        Case::rk(Rt::Syrk, LO, ON, 257, 64),
        Case::tr(L, UP, ON, NU, 257, 257),
        Case::mm(Rt::Symm, L, UP, 257, 257),
    ];
    each(cases, |c| {
        let mut p = prepare::<f64>(
            dev,
            &mut r,
            c,
            Form::Single,
            Scal::Host,
            &[(0.75, 0.0)],
            &[(-0.5, 0.0)],
        );
        let name = p.name();
        let size = query_size(dev, &p);
        assert!(size > SMALL_WS, "{name}: query {size}");
        let mut small = fixed_handle(dev, SMALL_WS);
        let st = p.call(&mut small).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(st, Status::PerfDegraded, "{name}");
        p.check(&name);
        let s = small.workspace_stats();
        assert_eq!((s.degraded_calls, s.memory_errors), (1, 0), "{name}: {s}");
    });
}

/// M6: in a 64-byte user-owned workspace a call either runs its reduced algorithm (same
/// answers) or fails with `MemoryError` naming the query's size and 64, touching nothing.
fn m06_tiny_workspace_degrades_or_fails_with_outputs_untouched(dev: &Device) {
    let mut r = Gen::new(125);
    let mut h = user_owned_handle(dev, 64);
    let mut errors = 0;
    for (c, form) in workspace_cases::<Complex32>() {
        let mut p = prepare::<Complex32>(
            dev,
            &mut r,
            c,
            form,
            Scal::Host,
            &[(0.5, -0.25)],
            &[(1.5, 0.5)],
        );
        let name = p.name();
        let size = query_size(dev, &p);
        match p.call(&mut h) {
            Ok(st) => {
                let expect = if size > 64 {
                    Status::PerfDegraded
                } else {
                    Status::Success
                };
                assert_eq!(st, expect, "{name}: query said {size}");
                p.check(&name);
            }
            Err(e @ Error::MemoryError { .. }) => {
                errors += 1;
                let Error::MemoryError {
                    needed, available, ..
                } = &e
                else {
                    unreachable!()
                };
                assert_eq!((*needed, *available), (size, 64), "{name}: {e}");
                let text = e.to_string();
                assert!(text.contains(&size.to_string()), "{name}: {text}");
                p.untouched(&name);
            }
            Err(e) => panic!("{name}: {e}"),
        }
        assert_eq!(h.workspace_stats().memory_errors, errors, "{name}");
    }
}

/// During a query sizes and shapes are still checked (M8), and the query stays active.
fn m08_query_still_checks_sizes(dev: &Device) {
    let mut h = fixed_handle(dev, 0);
    h.start_device_memory_size_query().unwrap();
    let a = DeviceBuffer::<f64>::placeholder(100);
    let b = DeviceBuffer::<f64>::placeholder(100);
    let mut c = DeviceBuffer::<f64>::placeholder(100);
    let e = blas3::gemm(
        &mut h,
        Op::N,
        Op::N,
        10,
        10,
        10,
        1.0.into(),
        &a,
        9,
        &b,
        10,
        0.0.into(),
        &mut c,
        10,
    )
    .unwrap_err();
    assert!(
        matches!(e, Error::InvalidSize(_)) && e.to_string().contains("lda = 9"),
        "{e}"
    );
    let e = blas3::trmm(
        &mut h,
        Side::Right,
        Uplo::Upper,
        Op::T,
        Diag::Unit,
        5,
        5,
        1.0.into(),
        &a,
        5,
        &mut c,
        4,
    )
    .unwrap_err();
    assert!(
        matches!(e, Error::InvalidSize(_)) && e.to_string().contains("ldb = 4"),
        "{e}"
    );
    let e = blas3::syrk(
        &mut h,
        Uplo::Lower,
        Op::T,
        6,
        7,
        1.0.into(),
        &a,
        6,
        0.0.into(),
        &mut c,
        6,
    )
    .unwrap_err();
    assert!(
        matches!(e, Error::InvalidSize(_)) && e.to_string().contains("lda = 6"),
        "{e}"
    );
    assert!(h.is_device_memory_size_query());
    // Placeholders too short are not checked during a query (operands are checked later).
    let tiny = DeviceBuffer::<f64>::placeholder(1);
    let mut tiny_c = DeviceBuffer::<f64>::placeholder(1);
    let st = blas3::gemm(
        &mut h,
        Op::T,
        Op::N,
        50,
        40,
        30,
        1.0.into(),
        &tiny,
        30,
        &tiny,
        30,
        0.5.into(),
        &mut tiny_c,
        50,
    )
    .unwrap();
    assert!(matches!(st, Status::SizeIncreased | Status::SizeUnchanged));
    let _ = h.stop_device_memory_size_query().unwrap();
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
        // Case-insensitive: "stride_C" names the argument stride_c.
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

/// Output buffers holding a known pattern, checked bit for bit at the end.
struct Outs<E> {
    bufs: Vec<DeviceBuffer<E>>,
}
impl<E: El> Outs<E> {
    fn new(dev: &Device, lens: &[usize]) -> Outs<E> {
        Outs {
            bufs: lens
                .iter()
                .map(|&l| dev.upload(&pattern::<E>(l)).unwrap())
                .collect(),
        }
    }
    fn check(&self) {
        for (i, b) in self.bufs.iter().enumerate() {
            let got = b.to_vec().unwrap();
            let want = pattern::<E>(got.len());
            assert!(
                got.iter().zip(&want).all(|(a, b)| same(*a, *b)),
                "output {i} was written: {got:?}"
            );
        }
    }
}
fn pattern<E: El>(len: usize) -> Vec<E> {
    (0..len)
        .map(|i| E::make(-7.5 - i as f64, 0.25 * i as f64))
        .collect()
}

fn f7_bad_leading_dimensions_are_invalid_size_naming_values(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let a = up(64);
    let b = up(64);
    let mut o = Outs::<f64>::new(dev, &[64, 64, 64]);
    let (al, be) = (Coef::Host(1.0f64), Coef::Host(0.5f64));
    {
        let [c, c1, c2] = &mut o.bufs[..] else {
            unreachable!()
        };
        let r = blas3::gemm(&mut h, ON, ON, 5, 4, 4, al, &a, 4, &b, 4, be, c, 5);
        expect_err(r, is_size, &["gemm", "lda = 4", "5"], "gemm N lda < m");
        let r = blas3::gemm(&mut h, OT, ON, 5, 4, 6, al, &a, 5, &b, 6, be, c, 5);
        expect_err(r, is_size, &["lda = 5", "6"], "gemm T lda < k");
        let r = blas3::gemm(&mut h, ON, ON, 4, 4, 6, al, &a, 4, &b, 5, be, c, 4);
        expect_err(r, is_size, &["ldb = 5", "6"], "gemm N ldb < k");
        let r = blas3::gemm(&mut h, ON, OC, 4, 5, 6, al, &a, 4, &b, 4, be, c, 4);
        expect_err(r, is_size, &["ldb = 4", "5"], "gemm C ldb < n");
        let r = blas3::gemm(&mut h, ON, ON, 5, 4, 4, al, &a, 5, &b, 4, be, c, 4);
        expect_err(r, is_size, &["ldc = 4", "5"], "gemm ldc < m");
        let r = blas3::gemm(&mut h, ON, ON, 0, 4, 4, al, &a, 0, &b, 4, be, c, 1);
        expect_err(r, is_size, &["lda = 0", "1"], "gemm lda = 0 with m = 0");
        let r = blas3::gemm_strided_batched(
            &mut h, OT, ON, 3, 3, 7, al, &a, 6, 21, &b, 7, 21, be, c, 3, 9, 2,
        );
        expect_err(r, is_size, &["lda = 6", "7"], "gemm_strided lda < k");
        let r = blas3::gemm_batched(
            &mut h,
            ON,
            OT,
            3,
            4,
            2,
            al,
            &[&a, &a],
            3,
            &[&b, &b],
            3,
            be,
            &mut [&mut *c1, &mut *c2],
            3,
        );
        expect_err(r, is_size, &["ldb = 3", "4"], "gemm_batched ldb < n");
        let r = blas3::symm(&mut h, L, UP, 6, 4, al, &a, 5, &b, 6, be, c, 6);
        expect_err(r, is_size, &["symm", "lda = 5", "6"], "symm Left lda < m");
        let r = blas3::symm(&mut h, R, LO, 4, 6, al, &a, 5, &b, 4, be, c, 4);
        expect_err(r, is_size, &["lda = 5", "6"], "symm Right lda < n");
        let r = blas3::symm(&mut h, R, LO, 4, 6, al, &a, 6, &b, 3, be, c, 4);
        expect_err(r, is_size, &["ldb = 3", "4"], "symm ldb < m");
        let r = blas3::symm_strided_batched(
            &mut h, L, UP, 4, 2, al, &a, 4, 16, &b, 4, 8, be, c, 3, 8, 2,
        );
        expect_err(r, is_size, &["ldc = 3", "4"], "symm_strided ldc < m");
        let r = blas3::syrk(&mut h, UP, ON, 6, 4, al, &a, 5, be, c, 6);
        expect_err(r, is_size, &["syrk", "lda = 5", "6"], "syrk N lda < n");
        let r = blas3::syrk(&mut h, LO, OT, 4, 6, al, &a, 5, be, c, 4);
        expect_err(r, is_size, &["lda = 5", "6"], "syrk T lda < k");
        let r = blas3::syrk(&mut h, LO, ON, 6, 2, al, &a, 6, be, c, 5);
        expect_err(r, is_size, &["ldc = 5", "6"], "syrk ldc < n");
        let r = blas3::syr2k(&mut h, UP, ON, 6, 2, al, &a, 6, &b, 5, be, c, 6);
        expect_err(r, is_size, &["syr2k", "ldb = 5", "6"], "syr2k ldb < n");
        let r = blas3::syrkx(&mut h, UP, OT, 3, 7, al, &a, 7, &b, 6, be, c, 3);
        expect_err(r, is_size, &["syrkx", "ldb = 6", "7"], "syrkx T ldb < k");
        let r = blas3::syr2k_batched(
            &mut h,
            LO,
            OT,
            3,
            4,
            al,
            &[&a, &a],
            3,
            &[&b, &b],
            4,
            be,
            &mut [&mut *c1, &mut *c2],
            3,
        );
        expect_err(r, is_size, &["lda = 3", "4"], "syr2k_batched T lda < k");
        let r = blas3::trmm(&mut h, L, UP, ON, UN, 6, 4, al, &a, 5, c, 6);
        expect_err(r, is_size, &["trmm", "lda = 5", "6"], "trmm Left lda < m");
        let r = blas3::trmm(&mut h, R, LO, OT, NU, 4, 6, al, &a, 5, c, 4);
        expect_err(r, is_size, &["lda = 5", "6"], "trmm Right lda < n");
        let r = blas3::trmm(&mut h, L, UP, ON, NU, 4, 2, al, &a, 4, c, 3);
        expect_err(r, is_size, &["ldb = 3", "4"], "trmm ldb < m");
        let r = blas3::trmm_strided_batched(&mut h, R, UP, OC, UN, 5, 3, al, &a, 2, 0, c, 5, 15, 2);
        expect_err(r, is_size, &["lda = 2", "3"], "trmm_strided lda < n");
    }
    o.check();
    // The Hermitian routines, and gemm_ex.
    let cup = |v: usize| dev.upload(&vec![Complex64::new(0.5, -0.25); v]).unwrap();
    let (ca, cb) = (cup(64), cup(64));
    let mut co = Outs::<Complex64>::new(dev, &[64]);
    let z = Coef::Host(Complex64::new(1.0, 0.5));
    let (ra, rb) = (Coef::Host(1.0f64), Coef::Host(0.5f64));
    {
        let c = &mut co.bufs[0];
        let r = blas3::hemm(&mut h, R, UP, 4, 6, z, &ca, 5, &cb, 4, z, c, 4);
        expect_err(r, is_size, &["hemm", "lda = 5", "6"], "hemm Right lda < n");
        let r = blas3::hemm(&mut h, L, LO, 5, 3, z, &ca, 5, &cb, 5, z, c, 4);
        expect_err(r, is_size, &["ldc = 4", "5"], "hemm ldc < m");
        let r = blas3::herk(&mut h, UP, OC, 4, 6, ra, &ca, 5, rb, c, 4);
        expect_err(r, is_size, &["herk", "lda = 5", "6"], "herk C lda < k");
        let r = blas3::herk(&mut h, LO, ON, 6, 2, ra, &ca, 6, rb, c, 5);
        expect_err(r, is_size, &["ldc = 5", "6"], "herk ldc < n");
        let r = blas3::her2k(&mut h, LO, ON, 6, 2, z, &ca, 6, &cb, 5, rb, c, 6);
        expect_err(r, is_size, &["her2k", "ldb = 5", "6"], "her2k ldb < n");
        let r = blas3::herkx(&mut h, UP, OC, 3, 7, z, &ca, 6, &cb, 7, rb, c, 3);
        expect_err(r, is_size, &["herkx", "lda = 6", "7"], "herkx C lda < k");
    }
    co.check();
    let ha = dev.upload(&[f16::from_f64(0.5); 64]).unwrap();
    let mut ho = Outs::<f32>::new(dev, &[64]);
    {
        let c = &mut ho.bufs[0];
        let f = ComputeType::F32;
        let (al, be) = (Coef::Host(1.0f32), Coef::Host(0.0f32));
        let r = blas3::gemm_ex(&mut h, ON, ON, 5, 4, 4, al, &ha, 4, &ha, 4, be, c, 5, f);
        expect_err(r, is_size, &["gemm_ex", "lda = 4", "5"], "gemm_ex lda < m");
        let r = blas3::gemm_ex(&mut h, ON, OT, 4, 5, 4, al, &ha, 4, &ha, 4, be, c, 4, f);
        expect_err(r, is_size, &["ldb = 4", "5"], "gemm_ex T ldb < n");
        let r = blas3::gemm_ex(&mut h, OT, ON, 5, 4, 3, al, &ha, 3, &ha, 3, be, c, 4, f);
        expect_err(r, is_size, &["ldc = 4", "5"], "gemm_ex ldc < m");
    }
    ho.check();
}

/// syrk/syr2k/syrkx take `N` or `T` (complex: `C` is invalid), herk/her2k/herkx `N` or `C`;
/// gemm_ex's compute type must suit its input type. Outputs stay untouched.
fn f7_wrong_ops_and_compute_types_are_invalid_value(dev: &Device) {
    let mut h = handle(dev);
    let cup = |v: usize| dev.upload(&vec![Complex64::new(0.5, -0.25); v]).unwrap();
    let (ca, cb) = (cup(64), cup(64));
    let mut co = Outs::<Complex64>::new(dev, &[64]);
    let z = Coef::Host(Complex64::new(1.0, 0.5));
    let (ra, rb) = (Coef::Host(1.0f64), Coef::Host(0.5f64));
    {
        let c = &mut co.bufs[0];
        let r = blas3::syrk(&mut h, UP, OC, 4, 4, z, &ca, 4, z, c, 4);
        expect_err(r, is_value, &["syrk"], "syrk complex Op::C");
        let r = blas3::syrk_strided_batched(&mut h, LO, OC, 2, 2, z, &ca, 2, 4, z, c, 2, 4, 2);
        expect_err(r, is_value, &["syrk"], "syrk_strided complex Op::C");
        let r = blas3::syr2k(&mut h, LO, OC, 4, 4, z, &ca, 4, &cb, 4, z, c, 4);
        expect_err(r, is_value, &["syr2k"], "syr2k complex Op::C");
        let r = blas3::syrkx(&mut h, UP, OC, 4, 4, z, &ca, 4, &cb, 4, z, c, 4);
        expect_err(r, is_value, &["syrkx"], "syrkx complex Op::C");
        let r = blas3::herk(&mut h, UP, OT, 4, 4, ra, &ca, 4, rb, c, 4);
        expect_err(r, is_value, &["herk"], "herk Op::T");
        let r = blas3::herk_batched(&mut h, LO, OT, 4, 4, ra, &[&ca], 4, rb, &mut [&mut *c], 4);
        expect_err(r, is_value, &["herk"], "herk_batched Op::T");
        let r = blas3::her2k(&mut h, LO, OT, 4, 4, z, &ca, 4, &cb, 4, rb, c, 4);
        expect_err(r, is_value, &["her2k"], "her2k Op::T");
        let r = blas3::herkx(&mut h, UP, OT, 4, 4, z, &ca, 4, &cb, 4, rb, c, 4);
        expect_err(r, is_value, &["herkx"], "herkx Op::T");
        let r = blas3::gemm_ex(
            &mut h,
            ON,
            ON,
            4,
            4,
            4,
            z,
            &ca,
            4,
            &cb,
            4,
            z,
            c,
            4,
            ComputeType::F32,
        );
        expect_err(r, is_value, &["gemm_ex"], "gemm_ex Complex64 with F32");
    }
    co.check();
    // gemm_ex: compute types that do not suit the input.
    let d = dev.upload(&[0.5f64; 64]).unwrap();
    let s = dev.upload(&[0.5f32; 64]).unwrap();
    let hf = dev.upload(&[f16::from_f64(0.5); 64]).unwrap();
    let bh = dev.upload(&[bf16::from_f64(0.5); 64]).unwrap();
    let c32 = dev.upload(&[Complex32::new(0.5, 0.5); 64]).unwrap();
    let mut od = Outs::<f64>::new(dev, &[64]);
    let mut os = Outs::<f32>::new(dev, &[64, 64]);
    let mut oh = Outs::<f16>::new(dev, &[64]);
    let mut oc = Outs::<Complex32>::new(dev, &[64]);
    {
        let c = &mut od.bufs[0];
        for compute in [ComputeType::F32, ComputeType::F32FastTf32] {
            let (al, be) = (Coef::Host(1.0f64), Coef::Host(0.0f64));
            let r = blas3::gemm_ex(&mut h, ON, ON, 4, 4, 4, al, &d, 4, &d, 4, be, c, 4, compute);
            expect_err(r, is_value, &["gemm_ex"], &format!("f64 with {compute:?}"));
        }
        let [c1, c2] = &mut os.bufs[..] else {
            unreachable!()
        };
        let (al, be) = (Coef::Host(1.0f32), Coef::Host(0.0f32));
        let f64c = ComputeType::F64;
        let r = blas3::gemm_ex(&mut h, ON, ON, 4, 4, 4, al, &s, 4, &s, 4, be, c1, 4, f64c);
        expect_err(r, is_value, &["gemm_ex"], "f32 with F64");
        let r = blas3::gemm_ex(&mut h, OT, ON, 4, 4, 4, al, &hf, 4, &hf, 4, be, c2, 4, f64c);
        expect_err(r, is_value, &["gemm_ex"], "f16 -> f32 with F64");
        let r = blas3::gemm_ex_strided_batched(
            &mut h, ON, ON, 2, 2, 2, al, &bh, 2, 4, &bh, 2, 4, be, c2, 2, 4, 3, f64c,
        );
        expect_err(r, is_value, &["gemm_ex"], "bf16 -> f32 strided with F64");
        let r = blas3::gemm_ex(
            &mut h,
            ON,
            ON,
            4,
            4,
            4,
            al,
            &hf,
            4,
            &hf,
            4,
            be,
            &mut oh.bufs[0],
            4,
            f64c,
        );
        expect_err(r, is_value, &["gemm_ex"], "f16 -> f16 with F64");
        let zc = Coef::Host(Complex32::new(1.0, 0.0));
        let r = blas3::gemm_ex(
            &mut h,
            ON,
            ON,
            4,
            4,
            4,
            zc,
            &c32,
            4,
            &c32,
            4,
            zc,
            &mut oc.bufs[0],
            4,
            f64c,
        );
        expect_err(r, is_value, &["gemm_ex"], "Complex32 with F64");
    }
    od.check();
    os.check();
    oh.check();
    oc.check();
}

fn f7_short_buffers_list_lengths_placeholders_are_errors(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let a = up(64);
    let b = up(64);
    let mut o = Outs::<f64>::new(dev, &[64, 19, 24, 26, 20, 20]);
    let (al, be) = (Coef::Host(1.0f64), Coef::Host(0.5f64));
    let other = Device::host();
    let oa = other.upload(&[0.5f64; 64]).unwrap();
    let pa = DeviceBuffer::<f64>::placeholder(64);
    {
        let [c, c19, c24, c26, c1, c2] = &mut o.bufs[..] else {
            unreachable!()
        };
        // A, B, C one element too short.
        let a19 = up(19);
        let r = blas3::gemm(&mut h, ON, ON, 5, 4, 4, al, &a19, 5, &b, 4, be, c, 5);
        expect_err(
            r,
            is_value,
            &["has 19 elements", "needs 20"],
            "gemm A short",
        );
        let b15 = up(15);
        let r = blas3::gemm(&mut h, ON, OT, 5, 4, 4, al, &a, 5, &b15, 4, be, c, 5);
        expect_err(
            r,
            is_value,
            &["has 15 elements", "needs 16"],
            "gemm B short",
        );
        let r = blas3::gemm(&mut h, OT, ON, 5, 4, 4, al, &a, 4, &b, 4, be, c19, 5);
        expect_err(
            r,
            is_value,
            &["has 19 elements", "needs 20"],
            "gemm C short",
        );
        let r = blas3::symm(&mut h, L, UP, 5, 3, al, &up(24), 5, &b, 5, be, c, 5);
        expect_err(
            r,
            is_value,
            &["has 24 elements", "needs 25"],
            "symm A short",
        );
        let r = blas3::syrk(&mut h, LO, ON, 5, 3, al, &a, 5, be, c24, 5);
        expect_err(
            r,
            is_value,
            &["has 24 elements", "needs 25"],
            "syrk C short",
        );
        let r = blas3::syr2k(&mut h, UP, OT, 4, 3, al, &a, 3, &up(11), 3, be, c, 4);
        expect_err(
            r,
            is_value,
            &["has 11 elements", "needs 12"],
            "syr2k B short",
        );
        let r = blas3::trmm(&mut h, R, UP, ON, UN, 4, 5, al, &a, 5, c19, 4);
        expect_err(
            r,
            is_value,
            &["has 19 elements", "needs 20"],
            "trmm B short",
        );
        // Strided: the last entry runs past the buffer.
        let a35 = up(35);
        let r = blas3::gemm_strided_batched(
            &mut h, ON, ON, 4, 3, 3, al, &a35, 4, 12, &b, 3, 9, be, c, 4, 12, 3,
        );
        expect_err(
            r,
            is_value,
            &["has 35 elements", "needs 36", "stride_a = 12"],
            "gemm_strided A short",
        );
        let r = blas3::syrk_strided_batched(&mut h, UP, OT, 3, 2, al, &a, 2, 6, be, c26, 3, 9, 3);
        expect_err(
            r,
            is_value,
            &["has 26 elements", "needs 27", "stride_c = 9"],
            "syrk_strided C short",
        );
        let r =
            blas3::trmm_strided_batched(&mut h, L, LO, OT, NU, 3, 3, al, &a, 3, 9, c26, 3, 9, 3);
        expect_err(
            r,
            is_value,
            &["has 26 elements", "needs 27", "stride_b = 9"],
            "trmm_strided B short",
        );
        // One short entry in a list: no entry is written.
        let r = blas3::gemm_batched(
            &mut h,
            ON,
            ON,
            5,
            4,
            4,
            al,
            &[&a, &a19],
            5,
            &[&b, &b],
            4,
            be,
            &mut [&mut *c1, &mut *c2],
            5,
        );
        expect_err(
            r,
            is_value,
            &["has 19 elements", "needs 20"],
            "gemm_batched A[1] short",
        );
        // Lists of different lengths.
        let r = blas3::gemm_batched(
            &mut h,
            ON,
            ON,
            4,
            4,
            4,
            al,
            &[&a, &a],
            4,
            &[&b, &b],
            4,
            be,
            &mut [&mut *c1],
            4,
        );
        expect_err(r, is_size, &["2", "1"], "gemm_batched C list shorter");
        let r = blas3::symm_batched(
            &mut h,
            R,
            LO,
            4,
            4,
            al,
            &[&a, &a],
            4,
            &[&b, &b, &b],
            4,
            be,
            &mut [&mut *c1, &mut *c2],
            4,
        );
        expect_err(r, is_size, &["2", "3"], "symm_batched B list longer");
        let r = blas3::syrk_batched(
            &mut h,
            UP,
            ON,
            4,
            4,
            al,
            &[&a],
            4,
            be,
            &mut [&mut *c1, &mut *c2],
            4,
        );
        expect_err(r, is_size, &["1", "2"], "syrk_batched A list shorter");
        let r = blas3::trmm_batched(
            &mut h,
            L,
            UP,
            ON,
            NU,
            4,
            4,
            al,
            &[&a, &a, &a],
            4,
            &mut [&mut *c1, &mut *c2],
            4,
        );
        expect_err(r, is_size, &["3", "2"], "trmm_batched A list longer");
        // Placeholders outside a query, buffers of another device.
        let r = blas3::gemm(&mut h, ON, ON, 4, 4, 4, al, &pa, 4, &b, 4, be, c, 4);
        expect_err(r, is_pointer, &["placeholder"], "gemm A placeholder");
        let mut pc = DeviceBuffer::<f64>::placeholder(64);
        let r = blas3::trmm(&mut h, L, UP, ON, NU, 4, 4, al, &a, 4, &mut pc, 4);
        expect_err(r, is_pointer, &["placeholder"], "trmm B placeholder");
        let r = blas3::syrkx(&mut h, LO, ON, 4, 4, al, &a, 4, &pa, 4, be, c, 4);
        expect_err(r, is_pointer, &["placeholder"], "syrkx B placeholder");
        let r = blas3::gemm(&mut h, ON, ON, 4, 4, 4, al, &oa, 4, &b, 4, be, c, 4);
        expect_err(r, is_pointer, &[], "gemm A on another device");
        let r = blas3::symm_strided_batched(
            &mut h, L, UP, 4, 4, al, &a, 4, 0, &oa, 4, 16, be, c, 4, 16, 2,
        );
        expect_err(r, is_pointer, &[], "symm_strided B on another device");
        let mut oc = other.upload(&[1.0f64; 16]).unwrap();
        let r = blas3::syrk(&mut h, UP, ON, 4, 4, al, &a, 4, be, &mut oc, 4);
        expect_err(r, is_pointer, &[], "syrk C on another device");
        assert_eq!(oc.to_vec().unwrap(), vec![1.0; 16]);
    }
    o.check();
    // gemm_ex: short and placeholder operands.
    let hf = dev.upload(&[f16::from_f64(0.5); 19]).unwrap();
    let hf20 = dev.upload(&[f16::from_f64(0.5); 20]).unwrap();
    let mut ho = Outs::<f16>::new(dev, &[20]);
    {
        let c = &mut ho.bufs[0];
        let (al, be) = (Coef::Host(1.0f32), Coef::Host(0.0f32));
        let f = ComputeType::F32;
        let r = blas3::gemm_ex(&mut h, ON, ON, 5, 4, 4, al, &hf, 5, &hf20, 4, be, c, 5, f);
        expect_err(
            r,
            is_value,
            &["has 19 elements", "needs 20"],
            "gemm_ex A short",
        );
        let ph = DeviceBuffer::<f16>::placeholder(64);
        let r = blas3::gemm_ex(&mut h, ON, ON, 4, 4, 4, al, &hf20, 4, &ph, 4, be, c, 4, f);
        expect_err(r, is_pointer, &["placeholder"], "gemm_ex B placeholder");
    }
    ho.check();
}

/// Sizes whose spans or workspace needs overflow the address space are `InvalidSize`, never a
/// panic (M16, F7), outside a query; during a query (placeholders) they must not panic either.
/// Every case runs; the failures are listed together.
fn f7_huge_sizes_are_invalid_size_never_a_panic(dev: &Device) {
    type Call = Box<dyn Fn(&mut Handle, bool) -> Result<Status, Error>>;
    let d = dev.clone();
    let bufs = move |ph: bool| {
        let mk = |len: usize| {
            if ph {
                DeviceBuffer::<f64>::placeholder(len)
            } else {
                d.upload(&vec![0.5f64; len]).unwrap()
            }
        };
        (mk(64), mk(64), mk(64))
    };
    let bufs = std::rc::Rc::new(bufs);
    let (al, be) = (Coef::Host(1.0f64), Coef::Host(0.5f64));
    let big = 1usize << 40;
    let mut cases: Vec<(&str, Call)> = vec![];
    macro_rules! case {
        ($name:expr, |$h:ident, $a:ident, $b:ident, $c:ident| $body:expr) => {{
            let bb = bufs.clone();
            cases.push((
                $name,
                Box::new(move |$h: &mut Handle, ph: bool| {
                    let ($a, $b, mut $c) = bb(ph);
                    let $c = &mut $c;
                    $body
                }),
            ));
        }};
    }
    case!("gemm m = n = k = ld = 2^40", |h, a, b, c| blas3::gemm(
        h, ON, ON, big, big, big, al, &a, big, &b, big, be, c, big
    ));
    case!("gemm T m = usize::MAX", |h, a, b, c| blas3::gemm(
        h,
        OT,
        ON,
        usize::MAX,
        2,
        2,
        al,
        &a,
        2,
        &b,
        2,
        be,
        c,
        usize::MAX
    ));
    case!("gemm_strided stride_a = usize::MAX / 2", |h, a, b, c| {
        blas3::gemm_strided_batched(
            h,
            ON,
            ON,
            2,
            2,
            2,
            al,
            &a,
            2,
            usize::MAX / 2,
            &b,
            2,
            4,
            be,
            c,
            2,
            4,
            4,
        )
    });
    case!("symm m = n = ld = 2^40", |h, a, b, c| blas3::symm(
        h, L, UP, big, big, al, &a, big, &b, big, be, c, big
    ));
    case!("syrk n = k = ld = 2^40", |h, a, _b, c| blas3::syrk(
        h, LO, ON, big, big, al, &a, big, be, c, big
    ));
    case!("syr2k n = ld = 2^40", |h, a, b, c| blas3::syr2k(
        h, UP, OT, big, 2, al, &a, 2, &b, 2, be, c, big
    ));
    case!("syrkx n = 2^62", |h, a, b, c| blas3::syrkx(
        h,
        UP,
        ON,
        1 << 62,
        1,
        al,
        &a,
        1 << 62,
        &b,
        1 << 62,
        be,
        c,
        1 << 62
    ));
    case!("trmm m = n = ld = 2^40", |h, a, _b, c| blas3::trmm(
        h, R, LO, OC, UN, big, big, al, &a, big, c, big
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
                Err(p) => failures.push(format!("{name} {label}: panicked: {}", panic_text(&*p))),
                Ok(Err(Error::InvalidSize(_))) => {}
                Ok(r) if !query => failures.push(format!("{name}: {r:?}, want InvalidSize")),
                Ok(_) => {}
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

fn f9_overlapping_strided_outputs_are_invalid(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let a = up(64);
    let b = up(64);
    let mut o = Outs::<f64>::new(dev, &[64]);
    let (al, be) = (Coef::Host(1.0f64), Coef::Host(0.5f64));
    {
        let c = &mut o.bufs[0];
        let r = blas3::gemm_strided_batched(
            &mut h, ON, ON, 5, 3, 2, al, &a, 5, 10, &b, 2, 6, be, c, 5, 10, 2,
        );
        expect_err(
            r,
            is_value,
            &["overlap", "stride_c = 10", "15"],
            "gemm C stride 10 < 15",
        );
        let r = blas3::symm_strided_batched(
            &mut h, R, UP, 3, 3, al, &a, 3, 0, &b, 3, 0, be, c, 4, 8, 2,
        );
        expect_err(
            r,
            is_value,
            &["overlap", "stride_c = 8"],
            "symm C stride 8 < 11",
        );
        let r = blas3::syrk_strided_batched(&mut h, LO, ON, 4, 2, al, &a, 4, 8, be, c, 4, 0, 2);
        expect_err(r, is_value, &["overlap", "stride_c = 0"], "syrk C stride 0");
        let r = blas3::syrkx_strided_batched(
            &mut h, UP, OT, 3, 2, al, &a, 2, 6, &b, 2, 6, be, c, 3, 5, 3,
        );
        expect_err(
            r,
            is_value,
            &["overlap", "stride_c = 5"],
            "syrkx C stride 5 < 9",
        );
        let r = blas3::trmm_strided_batched(&mut h, L, UP, ON, NU, 2, 2, al, &a, 2, 0, c, 2, 3, 3);
        expect_err(
            r,
            is_value,
            &["overlap", "stride_b = 3"],
            "trmm B stride 3 < 4",
        );
    }
    o.check();
    let ca = dev.upload(&[Complex64::new(0.5, 0.5); 64]).unwrap();
    let mut co = Outs::<Complex64>::new(dev, &[64]);
    {
        let c = &mut co.bufs[0];
        let r = blas3::her2k_strided_batched(
            &mut h,
            UP,
            OC,
            3,
            2,
            Coef::Host(Complex64::new(1.0, 0.0)),
            &ca,
            2,
            0,
            &ca,
            2,
            0,
            Coef::Host(0.5f64),
            c,
            3,
            0,
            2,
        );
        expect_err(
            r,
            is_value,
            &["overlap", "stride_c = 0"],
            "her2k C stride 0",
        );
    }
    co.check();
    let hf = dev.upload(&[f16::from_f64(0.5); 64]).unwrap();
    let mut ho = Outs::<f32>::new(dev, &[64]);
    {
        let r = blas3::gemm_ex_strided_batched(
            &mut h,
            ON,
            ON,
            3,
            3,
            3,
            Coef::Host(1.0f32),
            &hf,
            3,
            9,
            &hf,
            3,
            9,
            Coef::Host(0.0f32),
            &mut ho.bufs[0],
            3,
            8,
            2,
            ComputeType::F32,
        );
        expect_err(
            r,
            is_value,
            &["overlap", "stride_c = 8"],
            "gemm_ex C stride 8 < 9",
        );
    }
    ho.check();
    // A stride of 0 is fine for a batch of one (nothing to overlap with).
    let c = &mut o.bufs[0];
    let st =
        blas3::trmm_strided_batched(&mut h, L, UP, ON, UN, 2, 2, al, &a, 2, 0, c, 2, 0, 1).unwrap();
    assert_eq!(st, Status::Success);
}

fn f10_bad_device_scalars_are_errors(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let a = up(64);
    let b = up(64);
    let mut o = Outs::<f64>::new(dev, &[64, 16, 16, 16]);
    let be = Coef::Host(0.5f64);
    let ph = DeviceBuffer::<f64>::placeholder(4);
    let empty = dev.upload::<f64>(&[]).unwrap();
    let two = up(2);
    let other = Device::host().upload(&[1.0f64; 4]).unwrap();
    {
        let [c, c1, c2, c3] = &mut o.bufs[..] else {
            unreachable!()
        };
        let r = blas3::gemm(
            &mut h,
            ON,
            ON,
            4,
            4,
            4,
            Coef::Device(&ph),
            &a,
            4,
            &b,
            4,
            be,
            c,
            4,
        );
        expect_err(
            r,
            is_pointer,
            &["placeholder", "alpha"],
            "alpha placeholder",
        );
        let r = blas3::symm(
            &mut h,
            L,
            LO,
            4,
            4,
            be,
            &a,
            4,
            &b,
            4,
            Coef::Device(&ph),
            c,
            4,
        );
        expect_err(r, is_pointer, &["placeholder", "beta"], "beta placeholder");
        let r = blas3::syrk(&mut h, UP, OT, 4, 4, Coef::Device(&empty), &a, 4, be, c, 4);
        expect_err(
            r,
            is_value,
            &["alpha", "has 0 elements", "needs 1"],
            "alpha empty",
        );
        let r = blas3::trmm(
            &mut h,
            R,
            UP,
            ON,
            NU,
            4,
            4,
            Coef::Device(&other),
            &a,
            4,
            c,
            4,
        );
        expect_err(r, is_pointer, &["alpha"], "alpha on another device");
        let r = blas3::trmm_strided_batched(
            &mut h,
            L,
            LO,
            OT,
            UN,
            4,
            4,
            Coef::DevicePerEntry(&two),
            &a,
            4,
            16,
            c,
            4,
            16,
            3,
        );
        expect_err(
            r,
            is_value,
            &["alpha", "has 2 elements", "needs 3"],
            "alpha per entry too short",
        );
        let r = blas3::gemm_batched(
            &mut h,
            ON,
            OT,
            4,
            4,
            4,
            be,
            &[&a, &a, &a],
            4,
            &[&b, &b, &b],
            4,
            Coef::DevicePerEntry(&two),
            &mut [&mut *c1, &mut *c2, &mut *c3],
            4,
        );
        expect_err(
            r,
            is_value,
            &["beta", "has 2 elements", "needs 3"],
            "beta per entry too short",
        );
        let r = blas3::syr2k_strided_batched(
            &mut h,
            UP,
            ON,
            4,
            4,
            Coef::DevicePerEntry(&ph),
            &a,
            4,
            16,
            &b,
            4,
            16,
            be,
            c,
            4,
            16,
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
    // herk's real scalars.
    let ca = dev.upload(&[Complex64::new(0.5, 0.5); 64]).unwrap();
    let one_real = dev.upload(&[1.0f64]).unwrap();
    let mut co = Outs::<Complex64>::new(dev, &[64]);
    {
        let r = blas3::herk_strided_batched(
            &mut h,
            LO,
            ON,
            4,
            4,
            Coef::Host(1.0f64),
            &ca,
            4,
            16,
            Coef::DevicePerEntry(&one_real),
            &mut co.bufs[0],
            4,
            16,
            2,
        );
        expect_err(
            r,
            is_value,
            &["beta", "has 1 elements", "needs 2"],
            "herk beta per entry too short",
        );
    }
    co.check();
}

// ---- M13, F10: graph capture with device scalars -------------------------------------------

/// One capture of gemm (`C1 = alpha A B`) then syrk (`C2 = alpha2 C1 C1ᵀ`, lower triangle),
/// scalars in device memory, on a workspace preallocated by a query; replayed 100 times with
/// bit-identical results. The host backend refuses capture.
fn m13_f10_capture_gemm_then_syrk_replayed_100_times(dev: &Device) {
    let mut h = fixed_handle(dev, 0);
    if dev.backend() == Backend::Host {
        assert!(matches!(
            h.stream().begin_capture(),
            Err(Error::Unsupported(_))
        ));
        return;
    }
    let (m, n, k) = (129usize, 64usize, 257usize);
    let mut r = Gen::new(131);
    let av: Vec<f32> = (0..m * k).map(|_| rnd(&mut r)).collect();
    let bv: Vec<f32> = (0..k * n).map(|_| rnd(&mut r)).collect();
    // beta = 0: C1 and the lower triangle of C2 start as NaN before every replay; the upper
    // triangle of C2 holds values that must survive.
    let c1_init = vec![f32::NAN; m * n];
    let mut c2_init: Vec<f32> = (0..m * m).map(|_| rnd(&mut r)).collect();
    for j in 0..m {
        for i in j..m {
            c2_init[i + j * m] = f32::NAN;
        }
    }
    let a = dev.upload(&av).unwrap();
    let b = dev.upload(&bv).unwrap();
    let mut c1 = dev.upload(&c1_init).unwrap();
    let mut c2 = dev.upload(&c2_init).unwrap();
    let al1 = dev.upload(&[0.75f32]).unwrap();
    let al2 = dev.upload(&[-0.5f32]).unwrap();
    let zero = dev.upload(&[0.0f32]).unwrap();
    let (a1, a2, z) = (Coef::Device(&al1), Coef::Device(&al2), Coef::Device(&zero));
    h.start_device_memory_size_query().unwrap();
    let _ = blas3::gemm(&mut h, ON, ON, m, n, k, a1, &a, m, &b, k, z, &mut c1, m).unwrap();
    let _ = blas3::syrk(&mut h, LO, ON, m, n, a2, &c1, m, z, &mut c2, m).unwrap();
    let need = h.stop_device_memory_size_query().unwrap();
    let _ = h.set_device_memory_size(need).unwrap();
    h.stream().begin_capture().unwrap();
    let s1 = blas3::gemm(&mut h, ON, ON, m, n, k, a1, &a, m, &b, k, z, &mut c1, m);
    let s2 = blas3::syrk(&mut h, LO, ON, m, n, a2, &c1, m, z, &mut c2, m);
    let graph = h.stream().end_capture();
    assert_eq!(s1.unwrap(), Status::Success);
    assert_eq!(s2.unwrap(), Status::Success);
    let graph = graph.unwrap();
    // Capturing ran nothing.
    assert!(c1.to_vec().unwrap().iter().all(|v| v.is_nan()));
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    let mut first: Option<(Vec<u32>, Vec<u32>)> = None;
    for rep in 0..100 {
        c1.copy_from_host(&c1_init).unwrap();
        c2.copy_from_host(&c2_init).unwrap();
        graph.launch().unwrap();
        h.synchronize().unwrap();
        let (g1, g2) = (c1.to_vec().unwrap(), c2.to_vec().unwrap());
        match &first {
            Some((f1, f2)) => {
                assert!(bits(&g1) == *f1, "replay {rep}: C1 differs from replay 0");
                assert!(bits(&g2) == *f2, "replay {rep}: C2 differs from replay 0");
            }
            None => {
                let eps = f32::EPSILON as f64;
                for j in 0..n {
                    for i in 0..m {
                        let (mut s, mut sc) = (0.0, 0.0);
                        for l in 0..k {
                            let p = av[i + l * m] as f64 * bv[l + j * k] as f64;
                            s += p;
                            sc += p.abs();
                        }
                        let tol = 4.0 * (k as f64 + 2.0) * eps * 0.75 * sc;
                        let g = g1[i + j * m] as f64;
                        assert!(
                            (g - 0.75 * s).abs() <= tol,
                            "C1 ({i}, {j}): {g} vs {}",
                            0.75 * s
                        );
                    }
                }
                for j in 0..m {
                    for i in 0..m {
                        let p = i + j * m;
                        if i < j {
                            assert_eq!(g2[p].to_bits(), c2_init[p].to_bits(), "C2 ({i}, {j})");
                            continue;
                        }
                        let (mut s, mut sc) = (0.0, 0.0);
                        for l in 0..n {
                            let x = g1[i + l * m] as f64 * g1[j + l * m] as f64;
                            s += x;
                            sc += x.abs();
                        }
                        let tol = 4.0 * (n as f64 + 2.0) * eps * 0.5 * sc;
                        let g = g2[p] as f64;
                        assert!(
                            (g + 0.5 * s).abs() <= tol,
                            "C2 ({i}, {j}): {g} vs {}",
                            -0.5 * s
                        );
                    }
                }
                first = Some((bits(&g1), bits(&g2)));
            }
        }
    }
}

on_both_backends!(
    f1_gemm_all_ops_forms_sizes_f32,
    f1_gemm_all_ops_forms_sizes_f64,
    f1_gemm_all_ops_forms_sizes_c32,
    f1_gemm_all_ops_forms_sizes_c64,
    f1_symm_hemm_all_sides_uplos_forms_sizes_f32,
    f1_symm_hemm_all_sides_uplos_forms_sizes_f64,
    f1_symm_hemm_all_sides_uplos_forms_sizes_c32,
    f1_symm_hemm_all_sides_uplos_forms_sizes_c64,
    f1_syrk_herk_all_uplos_ops_forms_sizes_f32,
    f1_syrk_herk_all_uplos_ops_forms_sizes_f64,
    f1_syrk_herk_all_uplos_ops_forms_sizes_c32,
    f1_syrk_herk_all_uplos_ops_forms_sizes_c64,
    f1_syr2k_her2k_all_uplos_ops_forms_sizes_f32,
    f1_syr2k_her2k_all_uplos_ops_forms_sizes_f64,
    f1_syr2k_her2k_all_uplos_ops_forms_sizes_c32,
    f1_syr2k_her2k_all_uplos_ops_forms_sizes_c64,
    f1_syrkx_herkx_all_uplos_ops_forms_sizes_f32,
    f1_syrkx_herkx_all_uplos_ops_forms_sizes_f64,
    f1_syrkx_herkx_all_uplos_ops_forms_sizes_c32,
    f1_syrkx_herkx_all_uplos_ops_forms_sizes_c64,
    f1_trmm_all_sides_uplos_ops_diags_forms_sizes_f32,
    f1_trmm_all_sides_uplos_ops_diags_forms_sizes_f64,
    f1_trmm_all_sides_uplos_ops_diags_forms_sizes_c32,
    f1_trmm_all_sides_uplos_ops_diags_forms_sizes_c64,
    f1_gemm_ex_f16_bf16_inputs_f32_accumulation,
    f1_gemm_ex_f32_f64_complex_and_tensor_core_modes,
    f3_quick_returns_touch_nothing,
    f10_beta_zero_ignores_c_and_alpha_zero_ignores_a_and_b,
    f10_device_scalars_single_and_per_entry,
    f9_inputs_may_overlap,
    m08_m09_m06_query_then_preallocate_then_16kib_f64,
    m08_m09_m06_query_then_preallocate_then_16kib_c32,
    m08_m09_m06_gemm_ex_query_then_preallocate_then_16kib,
    m06_16kib_degrades_syrk_trmm_symm_of_order_257,
    m06_tiny_workspace_degrades_or_fails_with_outputs_untouched,
    m08_query_still_checks_sizes,
    f7_bad_leading_dimensions_are_invalid_size_naming_values,
    f7_wrong_ops_and_compute_types_are_invalid_value,
    f7_short_buffers_list_lengths_placeholders_are_errors,
    f7_huge_sizes_are_invalid_size_never_a_panic,
    f9_overlapping_strided_outputs_are_invalid,
    f10_bad_device_scalars_are_errors,
    m13_f10_capture_gemm_then_syrk_replayed_100_times,
);
