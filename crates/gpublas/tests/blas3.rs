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

/// The cross product of gemm and gemm_ex (three sizes deep).
const SMALL3: &[usize] = &[0, 1, 2, 31, 33];

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

/// The text of a caught panic.
fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

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

// Short names for the option tables of the tests.
use Diag::{NonUnit as NU, Unit as UN};
use Op::{C as OC, N as ON, T as OT};
use Side::{Left as L, Right as R};
use Uplo::{Lower as LO, Upper as UP};

#[path = "blas3/bad_arguments.rs"]
mod bad_arguments;
#[path = "blas3/capture.rs"]
mod capture;
#[path = "blas3/correctness.rs"]
mod correctness;
#[path = "blas3/gemm_ex.rs"]
mod gemm_ex;
#[path = "blas3/quick_returns.rs"]
mod quick_returns;
#[path = "blas3/workspace.rs"]
mod workspace;
