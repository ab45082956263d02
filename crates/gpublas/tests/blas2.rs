#![allow(
    clippy::too_many_arguments,
    clippy::type_complexity,
    clippy::needless_range_loop
)]
//! Level-2 routines (`gemv`, `gbmv`, `symv`, `hemv`, `sbmv`, `hbmv`, `spmv`, `hpmv`, `trmv`,
//! `tbmv`, `tpmv`, `trsv`, `tbsv`, `tpsv`) against
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

/// The four BLAS scalars, with the accuracy a sum rounded to each reaches; `hemv`, `hbmv` and
/// `hpmv` exist for the complex ones only.
trait T: El + Scalar {
    /// Relative accuracy, per square root of the summed length, of a sum rounded to this type.
    const TOL: f64;
    /// `hemv`, `hbmv` or `hpmv` (by `c.rt`) in `y`'s layout (complex types only).
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
    Gbmv,
    Sbmv,
    Hbmv,
    Spmv,
    Hpmv,
    Tbsv,
    Tpsv,
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
            Rt::Gbmv => "gbmv",
            Rt::Sbmv => "sbmv",
            Rt::Hbmv => "hbmv",
            Rt::Spmv => "spmv",
            Rt::Hpmv => "hpmv",
            Rt::Tbsv => "tbsv",
            Rt::Tpsv => "tpsv",
        }
    }

    /// y = alpha A x + beta y with A symmetric or Hermitian (full, band or packed).
    fn sym(self) -> bool {
        matches!(
            self,
            Rt::Symv | Rt::Hemv | Rt::Sbmv | Rt::Hbmv | Rt::Spmv | Rt::Hpmv
        )
    }

    fn herm(self) -> bool {
        matches!(self, Rt::Hemv | Rt::Hbmv | Rt::Hpmv)
    }

    /// A general matrix (gemv, gbmv).
    fn general(self) -> bool {
        matches!(self, Rt::Gemv | Rt::Gbmv)
    }

    /// A triangular solve (trsv, tbsv, tpsv).
    fn solve(self) -> bool {
        matches!(self, Rt::Trsv | Rt::Tbsv | Rt::Tpsv)
    }

    fn banded(self) -> bool {
        matches!(self, Rt::Gbmv | Rt::Sbmv | Rt::Hbmv | Rt::Tbmv | Rt::Tbsv)
    }

    fn packed(self) -> bool {
        matches!(self, Rt::Spmv | Rt::Hpmv | Rt::Tpmv | Rt::Tpsv)
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
    /// Band width: `k` of the symmetric/triangular bands, `ku` of gbmv.
    k: usize,
    /// gbmv's sub-diagonals.
    kl: usize,
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
            kl: 0,
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
            kl: 0,
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
            kl: 0,
            lda,
            incx,
            incy: 1,
        }
    }

    /// gbmv with `kl` sub- and `ku` super-diagonals.
    fn gbmv(
        op: Op,
        m: usize,
        n: usize,
        kl: usize,
        ku: usize,
        lda: usize,
        incx: isize,
        incy: isize,
    ) -> Case {
        Case {
            rt: Rt::Gbmv,
            kl,
            k: ku,
            ..Case::gemv(op, m, n, lda, incx, incy)
        }
    }

    /// sbmv/hbmv with `k` off-diagonals (spmv/hpmv take `k = 0`, `lda = 0`).
    fn symband(
        rt: Rt,
        uplo: Uplo,
        n: usize,
        k: usize,
        lda: usize,
        incx: isize,
        incy: isize,
    ) -> Case {
        Case {
            k,
            ..Case::sym(rt, uplo, n, lda, incx, incy)
        }
    }

    /// The stored band (kl, ku) of the band routines.
    fn band(&self) -> Option<(usize, usize)> {
        match (self.rt, self.uplo) {
            (Rt::Gbmv, _) => Some((self.kl, self.k)),
            (rt, Uplo::Upper) if rt.banded() => Some((0, self.k)),
            (rt, Uplo::Lower) if rt.banded() => Some((self.k, 0)),
            _ => None,
        }
    }

    fn has_y(&self) -> bool {
        self.rt.general() || self.rt.sym()
    }

    /// Rows of the logical matrix.
    fn rows(&self) -> usize {
        if self.rt.general() {
            self.m
        } else {
            self.n
        }
    }

    /// Lengths of the input and output vectors.
    fn lens(&self) -> (usize, usize) {
        match (self.rt.general(), self.op) {
            (true, Op::N) => (self.n, self.m),
            (true, _) => (self.m, self.n),
            _ => (self.n, self.n),
        }
    }

    /// Elements the stored matrix spans.
    fn a_span(&self) -> usize {
        let (rows, n) = (self.rows(), self.n);
        match self.band() {
            Some(_) if n == 0 => return 0,
            Some((kl, ku)) => return (n - 1) * self.lda + kl + ku + 1,
            None => {}
        }
        match self.rt {
            rt if rt.packed() => n * (n + 1) / 2,
            _ if rows == 0 || n == 0 => 0,
            _ => (n - 1) * self.lda + rows,
        }
    }

    /// Where element (i, j) of the matrix is stored.
    fn pos(&self, i: usize, j: usize) -> usize {
        if let Some((_, ku)) = self.band() {
            return ku + i - j + j * self.lda;
        }
        match (self.rt.packed(), self.uplo) {
            (true, Uplo::Upper) => i + j * (j + 1) / 2,
            (true, Uplo::Lower) => i + j * (2 * self.n - j - 1) / 2,
            _ => i + j * self.lda,
        }
    }

    /// Whether (i, j) is in the stored triangle (and band).
    fn stored(&self, i: usize, j: usize) -> bool {
        let tri = match self.uplo {
            Uplo::Upper => i <= j,
            Uplo::Lower => i >= j,
        };
        let in_band = match self.band() {
            Some((kl, ku)) => i + ku >= j && i <= j + kl,
            None => true,
        };
        in_band && (self.rt.general() || tri)
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
    let (uplo, n, k, lda, incx, incy) = (c.uplo, c.n, c.k, c.lda, c.incx, c.incy);
    match (c.rt, y.form) {
        (Rt::Hbmv, Form::Single) => blas2::hbmv(
            h,
            uplo,
            n,
            k,
            alpha,
            a.one(),
            lda,
            x.one(),
            incx,
            beta,
            y.one_mut(),
            incy,
        ),
        (Rt::Hbmv, Form::List(_)) => blas2::hbmv_batched(
            h,
            uplo,
            n,
            k,
            alpha,
            &a.refs(),
            lda,
            &x.refs(),
            incx,
            beta,
            &mut y.muts(),
            incy,
        ),
        (Rt::Hbmv, Form::Strided(_)) => blas2::hbmv_strided_batched(
            h,
            uplo,
            n,
            k,
            alpha,
            a.one(),
            lda,
            sa,
            x.one(),
            incx,
            sx,
            beta,
            y.one_mut(),
            incy,
            sy,
            batch,
        ),
        (Rt::Hpmv, Form::Single) => blas2::hpmv(
            h,
            uplo,
            n,
            alpha,
            a.one(),
            x.one(),
            incx,
            beta,
            y.one_mut(),
            incy,
        ),
        (Rt::Hpmv, Form::List(_)) => blas2::hpmv_batched(
            h,
            uplo,
            n,
            alpha,
            &a.refs(),
            &x.refs(),
            incx,
            beta,
            &mut y.muts(),
            incy,
        ),
        (Rt::Hpmv, Form::Strided(_)) => blas2::hpmv_strided_batched(
            h,
            uplo,
            n,
            alpha,
            a.one(),
            sa,
            x.one(),
            incx,
            sx,
            beta,
            y.one_mut(),
            incy,
            sy,
            batch,
        ),
        (_, Form::Single) => blas2::hemv(
            h,
            uplo,
            n,
            alpha,
            a.one(),
            lda,
            x.one(),
            incx,
            beta,
            y.one_mut(),
            incy,
        ),
        (_, Form::List(_)) => blas2::hemv_batched(
            h,
            uplo,
            n,
            alpha,
            &a.refs(),
            lda,
            &x.refs(),
            incx,
            beta,
            &mut y.muts(),
            incy,
        ),
        (_, Form::Strided(_)) => blas2::hemv_strided_batched(
            h,
            uplo,
            n,
            alpha,
            a.one(),
            lda,
            sa,
            x.one(),
            incx,
            sx,
            beta,
            y.one_mut(),
            incy,
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
        Rt::Hemv | Rt::Hbmv | Rt::Hpmv => E::hemv_call(h, c, a, x.unwrap(), out, alpha, beta),
        Rt::Gbmv => {
            let (x, incy, kl, ku) = (x.unwrap(), c.incy, c.kl, c.k);
            match form {
                Form::Single => blas2::gbmv(
                    h,
                    op,
                    c.m,
                    n,
                    kl,
                    ku,
                    alpha,
                    a.one(),
                    lda,
                    x.one(),
                    incx,
                    beta,
                    out.one_mut(),
                    incy,
                ),
                Form::List(_) => blas2::gbmv_batched(
                    h,
                    op,
                    c.m,
                    n,
                    kl,
                    ku,
                    alpha,
                    &a.refs(),
                    lda,
                    &x.refs(),
                    incx,
                    beta,
                    &mut out.muts(),
                    incy,
                ),
                Form::Strided(_) => blas2::gbmv_strided_batched(
                    h,
                    op,
                    c.m,
                    n,
                    kl,
                    ku,
                    alpha,
                    a.one(),
                    lda,
                    sa,
                    x.one(),
                    incx,
                    x.stride,
                    beta,
                    out.one_mut(),
                    incy,
                    so,
                    batch,
                ),
            }
        }
        Rt::Sbmv => {
            let (x, incy) = (x.unwrap(), c.incy);
            match form {
                Form::Single => blas2::sbmv(
                    h,
                    uplo,
                    n,
                    k,
                    alpha,
                    a.one(),
                    lda,
                    x.one(),
                    incx,
                    beta,
                    out.one_mut(),
                    incy,
                ),
                Form::List(_) => blas2::sbmv_batched(
                    h,
                    uplo,
                    n,
                    k,
                    alpha,
                    &a.refs(),
                    lda,
                    &x.refs(),
                    incx,
                    beta,
                    &mut out.muts(),
                    incy,
                ),
                Form::Strided(_) => blas2::sbmv_strided_batched(
                    h,
                    uplo,
                    n,
                    k,
                    alpha,
                    a.one(),
                    lda,
                    sa,
                    x.one(),
                    incx,
                    x.stride,
                    beta,
                    out.one_mut(),
                    incy,
                    so,
                    batch,
                ),
            }
        }
        Rt::Spmv => {
            let (x, incy) = (x.unwrap(), c.incy);
            match form {
                Form::Single => blas2::spmv(
                    h,
                    uplo,
                    n,
                    alpha,
                    a.one(),
                    x.one(),
                    incx,
                    beta,
                    out.one_mut(),
                    incy,
                ),
                Form::List(_) => blas2::spmv_batched(
                    h,
                    uplo,
                    n,
                    alpha,
                    &a.refs(),
                    &x.refs(),
                    incx,
                    beta,
                    &mut out.muts(),
                    incy,
                ),
                Form::Strided(_) => blas2::spmv_strided_batched(
                    h,
                    uplo,
                    n,
                    alpha,
                    a.one(),
                    sa,
                    x.one(),
                    incx,
                    x.stride,
                    beta,
                    out.one_mut(),
                    incy,
                    so,
                    batch,
                ),
            }
        }
        Rt::Tbsv => match form {
            Form::Single => blas2::tbsv(h, uplo, op, diag, n, k, a.one(), lda, out.one_mut(), incx),
            Form::List(_) => blas2::tbsv_batched(
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
            Form::Strided(_) => blas2::tbsv_strided_batched(
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
        Rt::Tpsv => match form {
            Form::Single => blas2::tpsv(h, uplo, op, diag, n, a.one(), out.one_mut(), incx),
            Form::List(_) => {
                blas2::tpsv_batched(h, uplo, op, diag, n, &a.refs(), &mut out.muts(), incx)
            }
            Form::Strided(_) => blas2::tpsv_strided_batched(
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
                rt if rt.general() => {
                    let v: E = rnd(r);
                    st[p] = v;
                    dense[i + j * rows] = v.get();
                }
                rt if rt.sym() => {
                    // The diagonal of a Hermitian matrix gets a non-zero imaginary part that
                    // hemv must ignore.
                    let v: E = rnd(r);
                    st[p] = v;
                    let g = v.get();
                    if c.rt.herm() {
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
                    let v: E = if !c.rt.solve() {
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
        (rt, _) if rt.sym() => dense[i + j * rows],
        (_, Op::N) => dense[i + j * rows],
        (_, Op::T) => dense[j + i * rows],
        (_, Op::C) => conj(dense[j + i * rows]),
    }
}

/// The outputs of one entry, each with its tolerance.
fn reference<E: T>(c: &Case, dense: &[C], x: &[C], y: &[C], alpha: C, beta: C) -> Vec<(C, f64)> {
    let (lx, ly) = c.lens();
    let root = ((lx + 1) as f64).sqrt();
    match c.rt {
        rt if rt.general() || rt.sym() => (0..ly)
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
        _ => {
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
                rt if rt.general() => c.m == 0 || c.n == 0,
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

#[path = "blas2/bad_arguments.rs"]
mod bad_arguments;
#[path = "blas2/band_packed.rs"]
mod band_packed;
#[path = "blas2/band_packed_arguments.rs"]
mod band_packed_arguments;
#[path = "blas2/correctness.rs"]
mod correctness;
#[path = "blas2/quick_returns.rs"]
mod quick_returns;
#[path = "blas2/workspace.rs"]
mod workspace;
