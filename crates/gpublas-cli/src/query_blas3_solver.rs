//! `gpublas query` for Level 3 (gemm, symm, hemm, syrk, herk, syr2k, her2k, syrkx, herkx,
//! trmm, trsm, trtri) and the solver routines (getrf, getrf_npvt, getrs, potrf, potrs, the
//! LAPACK drivers gesv, posv, getri and potri, Householder QR: geqrf, orgqr/ungqr,
//! ormqr/unmqr, Householder LQ: gelqf, ormlq/unmlq, and least squares: gels): the call is
//! made between `start_device_memory_size_query` and
//! `stop_device_memory_size_query` with placeholder operands (nothing is allocated, nothing
//! runs), in the single, strided (`--batch N`) or list (`--batch N --list`) form, like the
//! Level-1 and Level-2 entries.
//!
//! Operands are packed: every leading dimension is the row count of its matrix (at least 1),
//! strided entries one matrix apart, pivots and `tau` one entry's count apart (`min(m, n)` for
//! getrf, geqrf and gelqf, `n` for getrs, gesv and getri, `k` for orgqr, ormqr and ormlq);
//! gels's `B` has `max(m, n)` rows. Level-3 scalars
//! are host values (`alpha = beta = 1`) unless `--device-scalars` (placeholders in device
//! memory, which the block programs copy into per-entry slots); the solver's pivots and `info`
//! go to host memory unless `--device-results`, except the pivots gesv writes and getrs and
//! getri read, which are device memory in every case (the Rust functions take a buffer).

use gpublas::memory::HandleConfig;
use gpublas::{
    blas3, solver, Coef, Complex32, Complex64, ComplexScalar, Device, DeviceBuffer, Diag, Error,
    Handle, Op, Results, Scalar, Side, Status, Uplo,
};

use crate::{bad, overflow, parse_diag, parse_op, parse_uplo, Call, Form, Ph, Query};

/// The Level-3 routines this query knows.
pub(crate) const LEVEL3: &[&str] = &[
    "gemm", "symm", "hemm", "syrk", "herk", "syr2k", "her2k", "syrkx", "herkx", "trmm", "trsm",
    "trtri",
];

/// The solver routines this query knows. orgqr and ungqr (ormqr and unmqr, ormlq and unmlq)
/// are one Rust function under LAPACK's real and complex names: each name takes every type.
pub(crate) const SOLVER: &[&str] = &[
    "getrf",
    "getrf_npvt",
    "getrs",
    "potrf",
    "potrs",
    "gesv",
    "posv",
    "getri",
    "potri",
    "geqrf",
    "orgqr",
    "ungqr",
    "ormqr",
    "unmqr",
    "gelqf",
    "ormlq",
    "unmlq",
    "gels",
];

/// Whether `routine` (lower case) is answered here.
pub(crate) fn handles(routine: &str) -> bool {
    LEVEL3.contains(&routine) || SOLVER.contains(&routine)
}

/// The Hermitian routines: complex types only.
fn hermitian(routine: &str) -> bool {
    matches!(routine, "hemm" | "herk" | "her2k" | "herkx")
}

fn parse_side(v: &str) -> Result<Side, Error> {
    match v.to_ascii_lowercase().as_str() {
        "l" | "left" => Ok(Side::Left),
        "r" | "right" => Ok(Side::Right),
        _ => Err(bad("side", v, "l (left) or r (right)")),
    }
}

/// The parsed arguments of a Level-3 or solver query.
struct Q3 {
    /// Routine, op (op(A)), uplo, diag, m, n, k, batch and form, as the Level-2 query has them.
    c: Call,
    side: Side,
    /// gemm's op(B).
    opb: Op,
    /// Right-hand sides of getrs, potrs, gesv, posv and gels.
    nrhs: usize,
    device_scalars: bool,
}

impl Q3 {
    /// `alpha` and `beta`: host ones, or the device placeholder `s`.
    fn coefs<'a, S: Scalar>(&self, s: &'a DeviceBuffer<S>) -> (Coef<'a, S>, Coef<'a, S>) {
        if self.device_scalars {
            (Coef::Device(s), Coef::Device(s))
        } else {
            (Coef::Host(S::one()), Coef::Host(S::one()))
        }
    }

    /// Placeholder entries of a `rows × cols` matrix packed at leading dimension
    /// `max(1, rows)`; returns the leading dimension too.
    fn mat<T: Scalar>(&self, rows: usize, cols: usize) -> Result<(Ph<T>, usize), Error> {
        let ld = rows.max(1);
        let span = ld
            .checked_mul(cols)
            .ok_or_else(|| overflow(&format!("a {rows} x {cols} matrix")))?;
        Ok((Ph::new(span, &self.c)?, ld))
    }

    /// The order of the triangular or symmetric `A` of symm, hemm, trmm, trsm.
    fn ka(&self) -> usize {
        if self.side == Side::Left {
            self.c.m
        } else {
            self.c.n
        }
    }

    /// Rows and columns of the stored `A` (and `B`) of a rank-k update: `op(A)` is `n × k`.
    fn rk_dims(&self) -> (usize, usize) {
        if self.c.op == Op::N {
            (self.c.n, self.c.k)
        } else {
            (self.c.k, self.c.n)
        }
    }
}

/// `C = alpha op(A) op(B) + beta C`.
fn gemm_q<T: Scalar>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    let (m, n, k, b) = (q.c.m, q.c.n, q.c.k, q.c.batch);
    let (opa, opb) = (q.c.op, q.opb);
    let (ra, ca) = if opa == Op::N { (m, k) } else { (k, m) };
    let (rb, cb) = if opb == Op::N { (k, n) } else { (n, k) };
    let (a, lda) = q.mat::<T>(ra, ca)?;
    let (bm, ldb) = q.mat::<T>(rb, cb)?;
    let (mut c, ldc) = q.mat::<T>(m, n)?;
    let s = DeviceBuffer::<T>::placeholder(1);
    let (al, be) = q.coefs(&s);
    let (sa, sb, sc) = (a.stride, bm.stride, c.stride);
    match q.c.form {
        Form::Single => blas3::gemm(
            h, opa, opb, m, n, k, al, &a.one, lda, &bm.one, ldb, be, &mut c.one, ldc,
        ),
        Form::Strided => blas3::gemm_strided_batched(
            h, opa, opb, m, n, k, al, &a.one, lda, sa, &bm.one, ldb, sb, be, &mut c.one, ldc, sc, b,
        ),
        Form::List => blas3::gemm_batched(
            h,
            opa,
            opb,
            m,
            n,
            k,
            al,
            &a.refs(),
            lda,
            &bm.refs(),
            ldb,
            be,
            &mut c.muts(),
            ldc,
        ),
    }
}

/// symm (`herm` false) or hemm: `C = alpha A B + beta C` or `alpha B A + beta C`.
fn mm_q<T: ComplexOrReal>(h: &mut Handle, q: &Q3, herm: bool) -> Result<Status, Error> {
    let (m, n, b, side, uplo) = (q.c.m, q.c.n, q.c.batch, q.side, q.c.uplo);
    let ka = q.ka();
    let (a, lda) = q.mat::<T>(ka, ka)?;
    let (bm, ldb) = q.mat::<T>(m, n)?;
    let (mut c, ldc) = q.mat::<T>(m, n)?;
    let s = DeviceBuffer::<T>::placeholder(1);
    let (al, be) = q.coefs(&s);
    let (sa, sb, sc) = (a.stride, bm.stride, c.stride);
    if herm {
        return T::hemm(h, q, (&a, lda), (&bm, ldb), (&mut c, ldc), (al, be));
    }
    match q.c.form {
        Form::Single => blas3::symm(
            h, side, uplo, m, n, al, &a.one, lda, &bm.one, ldb, be, &mut c.one, ldc,
        ),
        Form::Strided => blas3::symm_strided_batched(
            h, side, uplo, m, n, al, &a.one, lda, sa, &bm.one, ldb, sb, be, &mut c.one, ldc, sc, b,
        ),
        Form::List => blas3::symm_batched(
            h,
            side,
            uplo,
            m,
            n,
            al,
            &a.refs(),
            lda,
            &bm.refs(),
            ldb,
            be,
            &mut c.muts(),
            ldc,
        ),
    }
}

/// The Hermitian calls, which exist for complex types only: implemented for all four
/// scalars so one generic query serves them, refusing the real ones.
trait ComplexOrReal: Scalar {
    /// hemm with the operands `mm_q` built.
    fn hemm(
        h: &mut Handle,
        q: &Q3,
        a: (&Ph<Self>, usize),
        b: (&Ph<Self>, usize),
        c: (&mut Ph<Self>, usize),
        ab: (Coef<'_, Self>, Coef<'_, Self>),
    ) -> Result<Status, Error>;
}

macro_rules! real_no_herm {
    ($t:ty) => {
        impl ComplexOrReal for $t {
            fn hemm(
                _: &mut Handle,
                q: &Q3,
                _: (&Ph<Self>, usize),
                _: (&Ph<Self>, usize),
                _: (&mut Ph<Self>, usize),
                _: (Coef<'_, Self>, Coef<'_, Self>),
            ) -> Result<Status, Error> {
                Err(Error::InvalidValue(format!(
                    "{} takes --type c32 or c64",
                    q.c.routine
                )))
            }
        }
    };
}
real_no_herm!(f32);
real_no_herm!(f64);

macro_rules! complex_herm {
    ($t:ty) => {
        impl ComplexOrReal for $t {
            fn hemm(
                h: &mut Handle,
                q: &Q3,
                (a, lda): (&Ph<Self>, usize),
                (bm, ldb): (&Ph<Self>, usize),
                (c, ldc): (&mut Ph<Self>, usize),
                (al, be): (Coef<'_, Self>, Coef<'_, Self>),
            ) -> Result<Status, Error> {
                let (m, n, b, side, uplo) = (q.c.m, q.c.n, q.c.batch, q.side, q.c.uplo);
                let (sa, sb, sc) = (a.stride, bm.stride, c.stride);
                match q.c.form {
                    Form::Single => blas3::hemm(
                        h, side, uplo, m, n, al, &a.one, lda, &bm.one, ldb, be, &mut c.one, ldc,
                    ),
                    Form::Strided => blas3::hemm_strided_batched(
                        h, side, uplo, m, n, al, &a.one, lda, sa, &bm.one, ldb, sb, be, &mut c.one,
                        ldc, sc, b,
                    ),
                    Form::List => blas3::hemm_batched(
                        h,
                        side,
                        uplo,
                        m,
                        n,
                        al,
                        &a.refs(),
                        lda,
                        &bm.refs(),
                        ldb,
                        be,
                        &mut c.muts(),
                        ldc,
                    ),
                }
            }
        }
    };
}
complex_herm!(Complex32);
complex_herm!(Complex64);

/// syrk: `C = alpha op(A) op(A)ᵀ + beta C` on the `uplo` triangle.
fn syrk_q<T: Scalar>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    let (n, k, b, uplo, op) = (q.c.n, q.c.k, q.c.batch, q.c.uplo, q.c.op);
    let (ra, ca) = q.rk_dims();
    let (a, lda) = q.mat::<T>(ra, ca)?;
    let (mut c, ldc) = q.mat::<T>(n, n)?;
    let s = DeviceBuffer::<T>::placeholder(1);
    let (al, be) = q.coefs(&s);
    let (sa, sc) = (a.stride, c.stride);
    match q.c.form {
        Form::Single => blas3::syrk(h, uplo, op, n, k, al, &a.one, lda, be, &mut c.one, ldc),
        Form::Strided => blas3::syrk_strided_batched(
            h, uplo, op, n, k, al, &a.one, lda, sa, be, &mut c.one, ldc, sc, b,
        ),
        Form::List => blas3::syrk_batched(
            h,
            uplo,
            op,
            n,
            k,
            al,
            &a.refs(),
            lda,
            be,
            &mut c.muts(),
            ldc,
        ),
    }
}

/// herk: `C = alpha op(A) op(A)ᴴ + beta C`, `alpha` and `beta` real.
fn herk_q<T: ComplexScalar>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    let (n, k, b, uplo, op) = (q.c.n, q.c.k, q.c.batch, q.c.uplo, q.c.op);
    let (ra, ca) = q.rk_dims();
    let (a, lda) = q.mat::<T>(ra, ca)?;
    let (mut c, ldc) = q.mat::<T>(n, n)?;
    let s = DeviceBuffer::<T::Real>::placeholder(1);
    let (al, be) = q.coefs(&s);
    let (sa, sc) = (a.stride, c.stride);
    match q.c.form {
        Form::Single => blas3::herk(h, uplo, op, n, k, al, &a.one, lda, be, &mut c.one, ldc),
        Form::Strided => blas3::herk_strided_batched(
            h, uplo, op, n, k, al, &a.one, lda, sa, be, &mut c.one, ldc, sc, b,
        ),
        Form::List => blas3::herk_batched(
            h,
            uplo,
            op,
            n,
            k,
            al,
            &a.refs(),
            lda,
            be,
            &mut c.muts(),
            ldc,
        ),
    }
}

/// The rank-2k and `x` updates of any scalar: syr2k, syrkx.
fn rk2_q<T: Scalar>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    let (n, k, b, uplo, op) = (q.c.n, q.c.k, q.c.batch, q.c.uplo, q.c.op);
    let (ra, ca) = q.rk_dims();
    let (a, lda) = q.mat::<T>(ra, ca)?;
    let (bm, ldb) = q.mat::<T>(ra, ca)?;
    let (mut c, ldc) = q.mat::<T>(n, n)?;
    let s = DeviceBuffer::<T>::placeholder(1);
    let (al, be) = q.coefs(&s);
    let (sa, sb, sc) = (a.stride, bm.stride, c.stride);
    let x = q.c.routine == "syrkx";
    match (x, q.c.form) {
        (false, Form::Single) => blas3::syr2k(
            h, uplo, op, n, k, al, &a.one, lda, &bm.one, ldb, be, &mut c.one, ldc,
        ),
        (false, Form::Strided) => blas3::syr2k_strided_batched(
            h, uplo, op, n, k, al, &a.one, lda, sa, &bm.one, ldb, sb, be, &mut c.one, ldc, sc, b,
        ),
        (false, Form::List) => blas3::syr2k_batched(
            h,
            uplo,
            op,
            n,
            k,
            al,
            &a.refs(),
            lda,
            &bm.refs(),
            ldb,
            be,
            &mut c.muts(),
            ldc,
        ),
        (true, Form::Single) => blas3::syrkx(
            h, uplo, op, n, k, al, &a.one, lda, &bm.one, ldb, be, &mut c.one, ldc,
        ),
        (true, Form::Strided) => blas3::syrkx_strided_batched(
            h, uplo, op, n, k, al, &a.one, lda, sa, &bm.one, ldb, sb, be, &mut c.one, ldc, sc, b,
        ),
        (true, Form::List) => blas3::syrkx_batched(
            h,
            uplo,
            op,
            n,
            k,
            al,
            &a.refs(),
            lda,
            &bm.refs(),
            ldb,
            be,
            &mut c.muts(),
            ldc,
        ),
    }
}

/// The Hermitian rank-2k and `x` updates: her2k, herkx (`beta` real).
fn her2_q<T: ComplexScalar>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    let (n, k, b, uplo, op) = (q.c.n, q.c.k, q.c.batch, q.c.uplo, q.c.op);
    let (ra, ca) = q.rk_dims();
    let (a, lda) = q.mat::<T>(ra, ca)?;
    let (bm, ldb) = q.mat::<T>(ra, ca)?;
    let (mut c, ldc) = q.mat::<T>(n, n)?;
    let s = DeviceBuffer::<T>::placeholder(1);
    let sr = DeviceBuffer::<T::Real>::placeholder(1);
    let (al, _) = q.coefs(&s);
    let (_, be) = q.coefs(&sr);
    let (sa, sb, sc) = (a.stride, bm.stride, c.stride);
    let x = q.c.routine == "herkx";
    match (x, q.c.form) {
        (false, Form::Single) => blas3::her2k(
            h, uplo, op, n, k, al, &a.one, lda, &bm.one, ldb, be, &mut c.one, ldc,
        ),
        (false, Form::Strided) => blas3::her2k_strided_batched(
            h, uplo, op, n, k, al, &a.one, lda, sa, &bm.one, ldb, sb, be, &mut c.one, ldc, sc, b,
        ),
        (false, Form::List) => blas3::her2k_batched(
            h,
            uplo,
            op,
            n,
            k,
            al,
            &a.refs(),
            lda,
            &bm.refs(),
            ldb,
            be,
            &mut c.muts(),
            ldc,
        ),
        (true, Form::Single) => blas3::herkx(
            h, uplo, op, n, k, al, &a.one, lda, &bm.one, ldb, be, &mut c.one, ldc,
        ),
        (true, Form::Strided) => blas3::herkx_strided_batched(
            h, uplo, op, n, k, al, &a.one, lda, sa, &bm.one, ldb, sb, be, &mut c.one, ldc, sc, b,
        ),
        (true, Form::List) => blas3::herkx_batched(
            h,
            uplo,
            op,
            n,
            k,
            al,
            &a.refs(),
            lda,
            &bm.refs(),
            ldb,
            be,
            &mut c.muts(),
            ldc,
        ),
    }
}

/// trmm and trsm: `B = alpha op(A) B` / solve `op(A) X = alpha B` (or from the right).
fn tri_q<T: Scalar>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    let (m, n, b) = (q.c.m, q.c.n, q.c.batch);
    let (side, uplo, op, diag) = (q.side, q.c.uplo, q.c.op, q.c.diag);
    let ka = q.ka();
    let (a, lda) = q.mat::<T>(ka, ka)?;
    let (mut bm, ldb) = q.mat::<T>(m, n)?;
    let s = DeviceBuffer::<T>::placeholder(1);
    let (al, _) = q.coefs(&s);
    let (sa, sb) = (a.stride, bm.stride);
    let solve = q.c.routine == "trsm";
    match (solve, q.c.form) {
        (false, Form::Single) => blas3::trmm(
            h,
            side,
            uplo,
            op,
            diag,
            m,
            n,
            al,
            &a.one,
            lda,
            &mut bm.one,
            ldb,
        ),
        (false, Form::Strided) => blas3::trmm_strided_batched(
            h,
            side,
            uplo,
            op,
            diag,
            m,
            n,
            al,
            &a.one,
            lda,
            sa,
            &mut bm.one,
            ldb,
            sb,
            b,
        ),
        (false, Form::List) => blas3::trmm_batched(
            h,
            side,
            uplo,
            op,
            diag,
            m,
            n,
            al,
            &a.refs(),
            lda,
            &mut bm.muts(),
            ldb,
        ),
        (true, Form::Single) => blas3::trsm(
            h,
            side,
            uplo,
            op,
            diag,
            m,
            n,
            al,
            &a.one,
            lda,
            &mut bm.one,
            ldb,
        ),
        (true, Form::Strided) => blas3::trsm_strided_batched(
            h,
            side,
            uplo,
            op,
            diag,
            m,
            n,
            al,
            &a.one,
            lda,
            sa,
            &mut bm.one,
            ldb,
            sb,
            b,
        ),
        (true, Form::List) => blas3::trsm_batched(
            h,
            side,
            uplo,
            op,
            diag,
            m,
            n,
            al,
            &a.refs(),
            lda,
            &mut bm.muts(),
            ldb,
        ),
    }
}

/// trtri: the inverse of the triangular `n × n` `A`, out of place.
fn trtri_q<T: Scalar>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    let (n, b, uplo, diag) = (q.c.n, q.c.batch, q.c.uplo, q.c.diag);
    let (a, lda) = q.mat::<T>(n, n)?;
    let (mut inv, ldi) = q.mat::<T>(n, n)?;
    let (sa, si) = (a.stride, inv.stride);
    match q.c.form {
        Form::Single => blas3::trtri(h, uplo, diag, n, &a.one, lda, &mut inv.one, ldi),
        Form::Strided => blas3::trtri_strided_batched(
            h,
            uplo,
            diag,
            n,
            &a.one,
            lda,
            sa,
            &mut inv.one,
            ldi,
            si,
            b,
        ),
        Form::List => blas3::trtri_batched(h, uplo, diag, n, &a.refs(), lda, &mut inv.muts(), ldi),
    }
}

/// The entries of a result array (pivots or `info`): `count` values in host memory, or a
/// device placeholder of as many (`--device-results`).
struct Res {
    host: Vec<i32>,
    dev: DeviceBuffer<i32>,
    device: bool,
}

impl Res {
    fn new(count: usize, device: bool) -> Res {
        Res {
            host: if device { Vec::new() } else { vec![0; count] },
            dev: DeviceBuffer::placeholder(count),
            device,
        }
    }

    fn get(&mut self) -> Results<'_, i32> {
        if self.device {
            Results::Device(&mut self.dev)
        } else {
            Results::Host(&mut self.host)
        }
    }
}

/// The entries a batch of per-entry results has, `per` values each.
fn entries(q: &Q3, per: usize) -> Result<usize, Error> {
    let b = match q.c.form {
        Form::Single => 1,
        Form::Strided | Form::List => q.c.batch,
    };
    per.checked_mul(b)
        .ok_or_else(|| overflow(&format!("{b} entries of {per} results")))
}

/// getrf (with pivots) and getrf_npvt of an `m × n` matrix.
fn getrf_q<T: Scalar>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    let (m, n, b) = (q.c.m, q.c.n, q.c.batch);
    let (mut a, lda) = q.mat::<T>(m, n)?;
    let sa = a.stride;
    let sp = m.min(n);
    let mut piv = Res::new(entries(q, sp)?, q.c.device_results);
    let mut info = Res::new(entries(q, 1)?, q.c.device_results);
    let npvt = q.c.routine == "getrf_npvt";
    match (npvt, q.c.form) {
        (false, Form::Single) => solver::getrf(h, m, n, &mut a.one, lda, piv.get(), info.get()),
        (false, Form::Strided) => solver::getrf_strided_batched(
            h,
            m,
            n,
            &mut a.one,
            lda,
            sa,
            piv.get(),
            sp,
            info.get(),
            b,
        ),
        (false, Form::List) => {
            solver::getrf_batched(h, m, n, &mut a.muts(), lda, piv.get(), sp, info.get())
        }
        (true, Form::Single) => solver::getrf_npvt(h, m, n, &mut a.one, lda, info.get()),
        (true, Form::Strided) => {
            solver::getrf_npvt_strided_batched(h, m, n, &mut a.one, lda, sa, info.get(), b)
        }
        (true, Form::List) => solver::getrf_npvt_batched(h, m, n, &mut a.muts(), lda, info.get()),
    }
}

/// getrs: `op(A) X = B` with `getrf`'s factors, `B` `n × nrhs`.
fn getrs_q<T: Scalar>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    let (n, nrhs, b, op) = (q.c.n, q.nrhs, q.c.batch, q.c.op);
    let (a, lda) = q.mat::<T>(n, n)?;
    let (mut x, ldb) = q.mat::<T>(n, nrhs)?;
    let piv = DeviceBuffer::<i32>::placeholder(entries(q, n)?);
    let (sa, sb) = (a.stride, x.stride);
    match q.c.form {
        Form::Single => solver::getrs(h, op, n, nrhs, &a.one, lda, &piv, &mut x.one, ldb),
        Form::Strided => solver::getrs_strided_batched(
            h, op, n, nrhs, &a.one, lda, sa, &piv, n, &mut x.one, ldb, sb, b,
        ),
        Form::List => {
            solver::getrs_batched(h, op, n, nrhs, &a.refs(), lda, &piv, n, &mut x.muts(), ldb)
        }
    }
}

/// potrf: Cholesky of the `n × n` `A` (its `uplo` triangle).
fn potrf_q<T: Scalar>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    let (n, b, uplo) = (q.c.n, q.c.batch, q.c.uplo);
    let (mut a, lda) = q.mat::<T>(n, n)?;
    let sa = a.stride;
    let mut info = Res::new(entries(q, 1)?, q.c.device_results);
    match q.c.form {
        Form::Single => solver::potrf(h, uplo, n, &mut a.one, lda, info.get()),
        Form::Strided => {
            solver::potrf_strided_batched(h, uplo, n, &mut a.one, lda, sa, info.get(), b)
        }
        Form::List => solver::potrf_batched(h, uplo, n, &mut a.muts(), lda, info.get()),
    }
}

/// potrs: `A X = B` with `potrf`'s factor, `B` `n × nrhs`.
fn potrs_q<T: Scalar>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    let (n, nrhs, b, uplo) = (q.c.n, q.nrhs, q.c.batch, q.c.uplo);
    let (a, lda) = q.mat::<T>(n, n)?;
    let (mut x, ldb) = q.mat::<T>(n, nrhs)?;
    let (sa, sb) = (a.stride, x.stride);
    match q.c.form {
        Form::Single => solver::potrs(h, uplo, n, nrhs, &a.one, lda, &mut x.one, ldb),
        Form::Strided => {
            solver::potrs_strided_batched(h, uplo, n, nrhs, &a.one, lda, sa, &mut x.one, ldb, sb, b)
        }
        Form::List => solver::potrs_batched(h, uplo, n, nrhs, &a.refs(), lda, &mut x.muts(), ldb),
    }
}

/// gesv: `A X = B` by getrf then getrs, `A` `n × n`, `B` `n × nrhs`; `n` pivots per entry in
/// device memory, `info` per `--device-results`.
fn gesv_q<T: Scalar>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    let (n, nrhs, b) = (q.c.n, q.nrhs, q.c.batch);
    let (mut a, lda) = q.mat::<T>(n, n)?;
    let (mut x, ldb) = q.mat::<T>(n, nrhs)?;
    let mut piv = DeviceBuffer::<i32>::placeholder(entries(q, n)?);
    let mut info = Res::new(entries(q, 1)?, q.c.device_results);
    let (sa, sb) = (a.stride, x.stride);
    match q.c.form {
        Form::Single => solver::gesv(
            h,
            n,
            nrhs,
            &mut a.one,
            lda,
            &mut piv,
            &mut x.one,
            ldb,
            info.get(),
        ),
        Form::Strided => solver::gesv_strided_batched(
            h,
            n,
            nrhs,
            &mut a.one,
            lda,
            sa,
            &mut piv,
            n,
            &mut x.one,
            ldb,
            sb,
            info.get(),
            b,
        ),
        Form::List => solver::gesv_batched(
            h,
            n,
            nrhs,
            &mut a.muts(),
            lda,
            &mut piv,
            n,
            &mut x.muts(),
            ldb,
            info.get(),
        ),
    }
}

/// posv: `A X = B` by potrf then potrs on the `uplo` triangle, `B` `n × nrhs`.
fn posv_q<T: Scalar>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    let (n, nrhs, b, uplo) = (q.c.n, q.nrhs, q.c.batch, q.c.uplo);
    let (mut a, lda) = q.mat::<T>(n, n)?;
    let (mut x, ldb) = q.mat::<T>(n, nrhs)?;
    let mut info = Res::new(entries(q, 1)?, q.c.device_results);
    let (sa, sb) = (a.stride, x.stride);
    match q.c.form {
        Form::Single => solver::posv(
            h,
            uplo,
            n,
            nrhs,
            &mut a.one,
            lda,
            &mut x.one,
            ldb,
            info.get(),
        ),
        Form::Strided => solver::posv_strided_batched(
            h,
            uplo,
            n,
            nrhs,
            &mut a.one,
            lda,
            sa,
            &mut x.one,
            ldb,
            sb,
            info.get(),
            b,
        ),
        Form::List => solver::posv_batched(
            h,
            uplo,
            n,
            nrhs,
            &mut a.muts(),
            lda,
            &mut x.muts(),
            ldb,
            info.get(),
        ),
    }
}

/// getri: the inverse of the `n × n` `A` in place from getrf's factors and `n` pivots per
/// entry (device memory).
fn getri_q<T: Scalar>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    let (n, b) = (q.c.n, q.c.batch);
    let (mut a, lda) = q.mat::<T>(n, n)?;
    let piv = DeviceBuffer::<i32>::placeholder(entries(q, n)?);
    let mut info = Res::new(entries(q, 1)?, q.c.device_results);
    let sa = a.stride;
    match q.c.form {
        Form::Single => solver::getri(h, n, &mut a.one, lda, &piv, info.get()),
        Form::Strided => {
            solver::getri_strided_batched(h, n, &mut a.one, lda, sa, &piv, n, info.get(), b)
        }
        Form::List => solver::getri_batched(h, n, &mut a.muts(), lda, &piv, n, info.get()),
    }
}

/// potri: the inverse of the Hermitian positive definite `n × n` `A` in place from potrf's
/// factor in its `uplo` triangle, `info` per `--device-results`.
fn potri_q<T: Scalar>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    let (n, b, uplo) = (q.c.n, q.c.batch, q.c.uplo);
    let (mut a, lda) = q.mat::<T>(n, n)?;
    let sa = a.stride;
    let mut info = Res::new(entries(q, 1)?, q.c.device_results);
    match q.c.form {
        Form::Single => solver::potri(h, uplo, n, &mut a.one, lda, info.get()),
        Form::Strided => {
            solver::potri_strided_batched(h, uplo, n, &mut a.one, lda, sa, info.get(), b)
        }
        Form::List => solver::potri_batched(h, uplo, n, &mut a.muts(), lda, info.get()),
    }
}

/// geqrf: `A = Q R` of an `m × n` matrix, `tau` of `min(m, n)` scalars per entry.
fn geqrf_q<T: Scalar>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    let (m, n, b) = (q.c.m, q.c.n, q.c.batch);
    let (mut a, lda) = q.mat::<T>(m, n)?;
    let sa = a.stride;
    let st = m.min(n);
    let mut tau = DeviceBuffer::<T>::placeholder(entries(q, st)?);
    match q.c.form {
        Form::Single => solver::geqrf(h, m, n, &mut a.one, lda, &mut tau),
        Form::Strided => {
            solver::geqrf_strided_batched(h, m, n, &mut a.one, lda, sa, &mut tau, st, b)
        }
        Form::List => solver::geqrf_batched(h, m, n, &mut a.muts(), lda, &mut tau, st),
    }
}

/// orgqr (ungqr): the first `n` columns of `Q` from `k` reflectors, overwriting the `m × n`
/// `A`.
fn orgqr_q<T: Scalar>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    let (m, n, k, b) = (q.c.m, q.c.n, q.c.k, q.c.batch);
    let (mut a, lda) = q.mat::<T>(m, n)?;
    let sa = a.stride;
    let tau = DeviceBuffer::<T>::placeholder(entries(q, k)?);
    match q.c.form {
        Form::Single => solver::orgqr(h, m, n, k, &mut a.one, lda, &tau),
        Form::Strided => solver::orgqr_strided_batched(h, m, n, k, &mut a.one, lda, sa, &tau, k, b),
        Form::List => solver::orgqr_batched(h, m, n, k, &mut a.muts(), lda, &tau, k),
    }
}

/// ormqr (unmqr): `C = op(Q) C` or `C op(Q)`, `C` `m × n`, `Q` from `k` reflectors stored in
/// an `nq × k` `A` (`nq` is `m` from the left, `n` from the right).
fn ormqr_q<T: Scalar>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    let (m, n, k, b, side, op) = (q.c.m, q.c.n, q.c.k, q.c.batch, q.side, q.c.op);
    let (a, lda) = q.mat::<T>(q.ka(), k)?;
    let (mut c, ldc) = q.mat::<T>(m, n)?;
    let tau = DeviceBuffer::<T>::placeholder(entries(q, k)?);
    let (sa, sc) = (a.stride, c.stride);
    match q.c.form {
        Form::Single => solver::ormqr(h, side, op, m, n, k, &a.one, lda, &tau, &mut c.one, ldc),
        Form::Strided => solver::ormqr_strided_batched(
            h, side, op, m, n, k, &a.one, lda, sa, &tau, k, &mut c.one, ldc, sc, b,
        ),
        Form::List => solver::ormqr_batched(
            h,
            side,
            op,
            m,
            n,
            k,
            &a.refs(),
            lda,
            &tau,
            k,
            &mut c.muts(),
            ldc,
        ),
    }
}

/// gelqf: `A = L Q` of an `m × n` matrix, `tau` of `min(m, n)` scalars per entry.
fn gelqf_q<T: Scalar>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    let (m, n, b) = (q.c.m, q.c.n, q.c.batch);
    let (mut a, lda) = q.mat::<T>(m, n)?;
    let sa = a.stride;
    let st = m.min(n);
    let mut tau = DeviceBuffer::<T>::placeholder(entries(q, st)?);
    match q.c.form {
        Form::Single => solver::gelqf(h, m, n, &mut a.one, lda, &mut tau),
        Form::Strided => {
            solver::gelqf_strided_batched(h, m, n, &mut a.one, lda, sa, &mut tau, st, b)
        }
        Form::List => solver::gelqf_batched(h, m, n, &mut a.muts(), lda, &mut tau, st),
    }
}

/// ormlq (unmlq): `C = op(Q) C` or `C op(Q)`, `C` `m × n`, `Q` from `k` reflectors stored in
/// the rows of a `k × nq` `A` (`nq` is `m` from the left, `n` from the right).
fn ormlq_q<T: Scalar>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    let (m, n, k, b, side, op) = (q.c.m, q.c.n, q.c.k, q.c.batch, q.side, q.c.op);
    let (a, lda) = q.mat::<T>(k, q.ka())?;
    let (mut c, ldc) = q.mat::<T>(m, n)?;
    let tau = DeviceBuffer::<T>::placeholder(entries(q, k)?);
    let (sa, sc) = (a.stride, c.stride);
    match q.c.form {
        Form::Single => solver::ormlq(h, side, op, m, n, k, &a.one, lda, &tau, &mut c.one, ldc),
        Form::Strided => solver::ormlq_strided_batched(
            h, side, op, m, n, k, &a.one, lda, sa, &tau, k, &mut c.one, ldc, sc, b,
        ),
        Form::List => solver::ormlq_batched(
            h,
            side,
            op,
            m,
            n,
            k,
            &a.refs(),
            lda,
            &tau,
            k,
            &mut c.muts(),
            ldc,
        ),
    }
}

/// gels: the least-squares or least-norm solution with the `m × n` `A` (op per `--op`), `B`
/// `max(m, n) × nrhs`, `info` per `--device-results`.
fn gels_q<T: Scalar>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    let (m, n, nrhs, b, op) = (q.c.m, q.c.n, q.nrhs, q.c.batch, q.c.op);
    let (mut a, lda) = q.mat::<T>(m, n)?;
    let (mut x, ldb) = q.mat::<T>(m.max(n), nrhs)?;
    let mut info = Res::new(entries(q, 1)?, q.c.device_results);
    let (sa, sb) = (a.stride, x.stride);
    match q.c.form {
        Form::Single => solver::gels(
            h,
            op,
            m,
            n,
            nrhs,
            &mut a.one,
            lda,
            &mut x.one,
            ldb,
            info.get(),
        ),
        Form::Strided => solver::gels_strided_batched(
            h,
            op,
            m,
            n,
            nrhs,
            &mut a.one,
            lda,
            sa,
            &mut x.one,
            ldb,
            sb,
            info.get(),
            b,
        ),
        Form::List => solver::gels_batched(
            h,
            op,
            m,
            n,
            nrhs,
            &mut a.muts(),
            lda,
            &mut x.muts(),
            ldb,
            info.get(),
        ),
    }
}

/// The query call of a routine that exists for all four scalars (hemm through
/// [`ComplexOrReal`]).
fn any_q<T: ComplexOrReal>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    match q.c.routine.as_str() {
        "gemm" => gemm_q::<T>(h, q),
        "symm" => mm_q::<T>(h, q, false),
        "hemm" => mm_q::<T>(h, q, true),
        "syrk" => syrk_q::<T>(h, q),
        "syr2k" | "syrkx" => rk2_q::<T>(h, q),
        "trmm" | "trsm" => tri_q::<T>(h, q),
        "trtri" => trtri_q::<T>(h, q),
        "getrf" | "getrf_npvt" => getrf_q::<T>(h, q),
        "getrs" => getrs_q::<T>(h, q),
        "potrf" => potrf_q::<T>(h, q),
        "potrs" => potrs_q::<T>(h, q),
        "gesv" => gesv_q::<T>(h, q),
        "posv" => posv_q::<T>(h, q),
        "getri" => getri_q::<T>(h, q),
        "potri" => potri_q::<T>(h, q),
        "geqrf" => geqrf_q::<T>(h, q),
        "orgqr" | "ungqr" => orgqr_q::<T>(h, q),
        "ormqr" | "unmqr" => ormqr_q::<T>(h, q),
        "gelqf" => gelqf_q::<T>(h, q),
        "ormlq" | "unmlq" => ormlq_q::<T>(h, q),
        "gels" => gels_q::<T>(h, q),
        other => Err(Error::InvalidValue(format!(
            "'{other}' is not a Level-3 or solver routine of this query"
        ))),
    }
}

/// The query call of herk, her2k, herkx (complex only).
fn herm_q<T: ComplexScalar + ComplexOrReal>(h: &mut Handle, q: &Q3) -> Result<Status, Error> {
    match q.c.routine.as_str() {
        "herk" => herk_q::<T>(h, q),
        "her2k" | "herkx" => her2_q::<T>(h, q),
        _ => any_q::<T>(h, q),
    }
}

fn letter(o: Op) -> &'static str {
    match o {
        Op::N => "N",
        Op::T => "T",
        Op::C => "C",
    }
}

/// The shape part of the answer line.
fn shape(q: &Q3) -> String {
    let c = &q.c;
    let ul = if c.uplo == Uplo::Upper { "U" } else { "L" };
    let dg = if c.diag == Diag::Unit { "U" } else { "N" };
    let sd = if q.side == Side::Left { "L" } else { "R" };
    let (op, m, n, k) = (letter(c.op), c.m, c.n, c.k);
    match c.routine.as_str() {
        "gemm" => format!("opa={op} opb={} m={m} n={n} k={k}", letter(q.opb)),
        "symm" | "hemm" => format!("side={sd} uplo={ul} m={m} n={n}"),
        "syrk" | "herk" | "syr2k" | "her2k" | "syrkx" | "herkx" => {
            format!("uplo={ul} op={op} n={n} k={k}")
        }
        "trmm" | "trsm" => format!("side={sd} uplo={ul} op={op} diag={dg} m={m} n={n}"),
        "trtri" => format!("uplo={ul} diag={dg} n={n}"),
        "getrf" | "getrf_npvt" => format!("m={m} n={n}"),
        "getrs" => format!("op={op} n={n} nrhs={}", q.nrhs),
        "potrf" | "potri" => format!("uplo={ul} n={n}"),
        "gesv" => format!("n={n} nrhs={}", q.nrhs),
        "getri" => format!("n={n}"),
        "geqrf" | "gelqf" => format!("m={m} n={n}"),
        "orgqr" | "ungqr" => format!("m={m} n={n} k={k}"),
        "ormqr" | "unmqr" | "ormlq" | "unmlq" => format!("side={sd} op={op} m={m} n={n} k={k}"),
        "gels" => format!("op={op} m={m} n={n} nrhs={}", q.nrhs),
        // potrs, posv.
        _ => format!("uplo={ul} n={n} nrhs={}", q.nrhs),
    }
}

/// `gpublas query` for a Level-3 or solver routine (see the module documentation).
pub(crate) fn query(dev: &Device, q: &Query) -> Result<(), Error> {
    let (_, line) = answer(dev, q)?;
    println!("{line}");
    Ok(())
}

/// The workspace need of the query's call in bytes, and the answer line `query` prints.
fn answer(dev: &Device, q: &Query) -> Result<(usize, String), Error> {
    let routine = q.routine.to_ascii_lowercase();
    let r = routine.as_str();
    let n = q.n.ok_or_else(|| {
        Error::InvalidValue(format!(
            "{r}: --n is required (the order of the matrix, or its columns)"
        ))
    })?;
    let herm = hermitian(r);
    let ty =
        q.ty.as_deref()
            .unwrap_or(if herm { "c64" } else { "f64" })
            .to_ascii_lowercase();
    let level3 = LEVEL3.contains(&r);
    let m = q.m.unwrap_or(n);
    let side = parse_side(&q.side)?;
    // ormqr's and ormlq's default k is the order of Q (every reflector of a square
    // factorization).
    let k = match (r, side) {
        ("ormqr" | "unmqr" | "ormlq" | "unmlq", Side::Left) => q.k.unwrap_or(m),
        _ => q.k.unwrap_or(n),
    };
    let c = Call {
        routine: routine.clone(),
        op: parse_op(&q.op)?,
        uplo: parse_uplo(&q.uplo)?,
        diag: parse_diag(&q.diag)?,
        m,
        n,
        k,
        batch: q.batch,
        form: if q.list {
            Form::List
        } else if q.batch == 1 {
            Form::Single
        } else {
            Form::Strided
        },
        device_results: q.device_results,
    };
    let q3 = Q3 {
        c,
        side,
        opb: parse_op(&q.opb)?,
        nrhs: q.nrhs.unwrap_or(1),
        device_scalars: q.device_scalars,
    };
    let mut h = Handle::with_config(
        dev,
        &HandleConfig {
            device_memory_size: Some(0),
            ..Default::default()
        },
    )?;
    let wrong_type = |allowed: &str| {
        Err(Error::InvalidValue(format!(
            "{r} takes --type {allowed}, not '{ty}'"
        )))
    };
    h.start_device_memory_size_query()?;
    let status = match (herm, ty.as_str()) {
        (true, "c32") => herm_q::<Complex32>(&mut h, &q3),
        (true, "c64") => herm_q::<Complex64>(&mut h, &q3),
        (true, _) => wrong_type("c32 or c64"),
        (false, "f32") => any_q::<f32>(&mut h, &q3),
        (false, "f64") => any_q::<f64>(&mut h, &q3),
        (false, "c32") => any_q::<Complex32>(&mut h, &q3),
        (false, "c64") => any_q::<Complex64>(&mut h, &q3),
        _ => wrong_type("f32, f64, c32 or c64"),
    };
    // Always end the query, even when the call was refused.
    let need = h.stop_device_memory_size_query();
    let _status: Status = status?;
    let need = need?;
    let form = match q3.c.form {
        Form::Single | Form::Strided => "",
        Form::List => " (list)",
    };
    let extra = if level3 {
        if q3.device_scalars && r != "trtri" {
            ", device scalars"
        } else {
            ""
        }
    } else if q3.c.device_results
        && matches!(
            r,
            "getrf" | "getrf_npvt" | "potrf" | "gesv" | "posv" | "getri" | "potri" | "gels"
        )
    {
        ", device results"
    } else {
        ""
    };
    let line = format!(
        "{r} ({ty}{extra}) {} batch={}{form} on {}: {need} bytes of workspace",
        shape(&q3),
        q3.c.batch,
        dev.name()
    );
    Ok((need, line))
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use gpublas::Device;

    use crate::{Cli, Cmd};

    /// `gpublas query ARGS` on the host backend: the need in bytes and the answer line, or the
    /// error.
    fn query(args: &str) -> Result<(usize, String), gpublas::Error> {
        let argv = ["gpublas", "query"]
            .into_iter()
            .chain(args.split_whitespace());
        let cli = Cli::try_parse_from(argv).unwrap_or_else(|e| panic!("{args}: {e}"));
        let Cmd::Query(q) = cli.cmd else {
            panic!("{args}: not a query")
        };
        super::answer(&Device::host(), &q)
    }

    /// The need in bytes and the answer line of `gpublas query ARGS` on the host backend.
    fn ask(args: &str) -> (usize, String) {
        query(args).unwrap_or_else(|e| panic!("{args}: {e}"))
    }

    /// A driver's need is its larger part's (a query records the largest part), in every
    /// form and type; `sizes` and `parts` are the arguments of the driver and of its parts.
    fn largest_part(driver: &str, parts: [&str; 2], sizes: &str) {
        for form in ["", "--batch 3", "--batch 3 --list"] {
            for ty in ["f32", "f64", "c32", "c64"] {
                let tail = format!("{sizes} {form} --type {ty}");
                let (need, line) = ask(&format!("{driver} {tail}"));
                let want = parts.map(|p| ask(&format!("{p} {tail}")).0);
                assert_eq!(need, want[0].max(want[1]), "{line} vs {parts:?}: {want:?}");
            }
        }
    }

    #[test]
    fn gesv_answers_the_larger_of_getrf_and_getrs() {
        largest_part("gesv", ["getrf", "getrs"], "--n 300 --nrhs 16");
        let (_, line) = ask("gesv --n 8192 --nrhs 16");
        assert!(
            line.starts_with("gesv (f64) n=8192 nrhs=16 batch=1 on "),
            "{line}"
        );
        let (_, line) = ask("gesv --n 64 --batch 10 --list --device-results --type c32");
        assert!(
            line.starts_with("gesv (c32, device results) n=64 nrhs=1 batch=10 (list) on "),
            "{line}"
        );
    }

    #[test]
    fn posv_answers_the_larger_of_potrf_and_potrs() {
        for uplo in ["u", "l"] {
            let sizes = format!("--n 300 --nrhs 16 --uplo {uplo}");
            largest_part("posv", ["potrf", "potrs"], &sizes);
        }
        let (_, line) = ask("posv --n 32 --nrhs 4 --uplo l --batch 10000 --device-results");
        assert!(
            line.starts_with("posv (f64, device results) uplo=L n=32 nrhs=4 batch=10000 on "),
            "{line}"
        );
    }

    #[test]
    fn getri_answers_in_every_form() {
        for form in ["", "--batch 3", "--batch 3 --list"] {
            for ty in ["f32", "f64", "c32", "c64"] {
                let (need, line) = ask(&format!("getri --n 300 {form} --type {ty}"));
                assert!(
                    line.starts_with(&format!("getri ({ty}) n=300 batch=")),
                    "{line}"
                );
                assert!(
                    line.ends_with(&format!(": {need} bytes of workspace")),
                    "{line}"
                );
            }
        }
        // A larger order needs at least as much (its block of L is n × nb).
        let (small, _) = ask("getri --n 300");
        let (big, line) = ask("getri --n 4096 --device-results");
        assert!(big >= small, "{line}: {big} < {small}");
        assert!(line.starts_with("getri (f64, device results) n=4096 batch=1 on "));
        // getri's order is --n alone: a refused size is an error, not an answer.
        let e = refused("getri");
        assert!(e.contains("--n is required"), "{e}");
    }

    /// The error of `gpublas query ARGS` on the host backend.
    fn refused(args: &str) -> String {
        query(args).expect_err(args).to_string()
    }

    /// `routine SIZES` in every form and type: the answer line starts with `routine (TYPE)
    /// SHAPE batch=` and ends with its need.
    fn every_form(routine: &str, sizes: &str, shape: &str) {
        for form in ["", "--batch 3", "--batch 3 --list"] {
            for ty in ["f32", "f64", "c32", "c64"] {
                let (need, line) = ask(&format!("{routine} {sizes} {form} --type {ty}"));
                assert!(
                    line.starts_with(&format!("{routine} ({ty}) {shape} batch=")),
                    "{line}"
                );
                assert!(
                    line.ends_with(&format!(": {need} bytes of workspace")),
                    "{line}"
                );
            }
        }
    }

    #[test]
    fn potri_answers_in_every_form() {
        every_form("potri", "--n 300", "uplo=U n=300");
        every_form("potri", "--n 300 --uplo l", "uplo=L n=300");
        let (small, _) = ask("potri --n 300");
        let (big, line) = ask("potri --n 4096");
        assert!(big >= small, "{line}: {big} < {small}");
        let (_, line) = ask("potri --n 300 --uplo l --batch 3 --list --device-results --type c32");
        assert!(
            line.starts_with("potri (c32, device results) uplo=L n=300 batch=3 (list) on "),
            "{line}"
        );
    }

    #[test]
    fn gelqf_answers_in_every_form() {
        every_form("gelqf", "--m 200 --n 300", "m=200 n=300");
        every_form("gelqf", "--m 300 --n 200", "m=300 n=200");
        // --m defaults to --n.
        let (_, line) = ask("gelqf --n 64 --batch 10000");
        assert!(
            line.starts_with("gelqf (f64) m=64 n=64 batch=10000 on "),
            "{line}"
        );
    }

    #[test]
    fn ormlq_and_unmlq_are_one_function() {
        for side in ["l", "r"] {
            for op in ["n", "c"] {
                let sizes = format!("--m 300 --n 40 --k 30 --side {side} --op {op}");
                let (sd, o) = (side.to_uppercase(), op.to_uppercase());
                let shape = format!("side={sd} op={o} m=300 n=40 k=30");
                every_form("ormlq", &sizes, &shape);
                for form in ["", "--batch 3", "--batch 3 --list"] {
                    for ty in ["f32", "f64", "c32", "c64"] {
                        let tail = format!("{sizes} {form} --type {ty}");
                        let (a, line) = ask(&format!("ormlq {tail}"));
                        let (b, _) = ask(&format!("unmlq {tail}"));
                        assert_eq!(a, b, "{line}: unmlq answers {b}");
                    }
                }
            }
        }
        // k defaults to the order of Q: n from the right, m from the left.
        let (_, line) = ask("ormlq --n 300 --m 5 --side r --op t");
        assert!(
            line.starts_with("ormlq (f64) side=R op=T m=5 n=300 k=300 batch=1 on "),
            "{line}"
        );
        let (_, line) = ask("unmlq --n 7 --m 200 --type c64");
        assert!(
            line.starts_with("unmlq (c64) side=L op=N m=200 n=7 k=200 batch=1 on "),
            "{line}"
        );
        // A's k rows must not exceed the order of Q; op T is refused for complex types.
        let e = refused("ormlq --m 10 --n 4 --k 11");
        assert!(e.contains("k = 11"), "{e}");
        let e = refused("unmlq --n 40 --op t --type c32");
        assert!(e.contains("op = T"), "{e}");
    }

    #[test]
    fn gels_needs_at_least_its_parts() {
        // m ≥ n: geqrf, then Qᴴ B by ormqr; m < n: gelqf, then Qᴴ B by ormlq (B of n rows).
        let cases = [
            (
                "--m 300 --n 200",
                "m=300 n=200",
                ["geqrf --m 300 --n 200", "ormqr --m 300 --k 200"],
            ),
            (
                "--m 200 --n 300",
                "m=200 n=300",
                ["gelqf --m 200 --n 300", "ormlq --m 300 --k 200"],
            ),
        ];
        for (sizes, shape, parts) in cases {
            for form in ["", "--batch 3", "--batch 3 --list"] {
                for ty in ["f32", "f64", "c32", "c64"] {
                    let tail = format!("{form} --type {ty}");
                    let (need, line) = ask(&format!("gels {sizes} --nrhs 16 {tail}"));
                    let want = [
                        ask(&format!("{} {tail}", parts[0])).0,
                        ask(&format!("{} --n 16 --op c {tail}", parts[1])).0,
                    ];
                    assert!(
                        need >= want[0].max(want[1]),
                        "{line} vs {parts:?}: {want:?}"
                    );
                }
            }
            let sizes = format!("{sizes} --nrhs 16");
            every_form("gels", &sizes, &format!("op=N {shape} nrhs=16"));
        }
        let (_, line) = ask(
            "gels --m 300 --n 200 --nrhs 16 --op c --type c64 --batch 3 --list --device-results",
        );
        assert!(
            line.starts_with(
                "gels (c64, device results) op=C m=300 n=200 nrhs=16 batch=3 (list) on "
            ),
            "{line}"
        );
        // The defaults: m = n, one right-hand side.
        let (_, line) = ask("gels --n 64 --batch 100");
        assert!(
            line.starts_with("gels (f64) op=N m=64 n=64 nrhs=1 batch=100 on "),
            "{line}"
        );
        let e = refused("gels --m 300 --n 200 --op t --type c64");
        assert!(e.contains("trans = T"), "{e}");
    }
}
