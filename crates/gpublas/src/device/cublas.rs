//! cuBLAS, only to compare against in benchmarks (feature `cublas`).
//!
//! Every wrapper checks its arguments before the raw call: sizes, leading dimensions,
//! increments, strides and batch counts must fit cuBLAS's 32-bit (64-bit for strides)
//! integers, every buffer must be memory of this handle's device and hold every element the
//! call can touch (computed overflow-safe), and outputs of a strided batch must not overlap.
//! Anything else is `Error::InvalidValue` / `Error::InvalidPointer` naming the values, so no
//! wrapper can make cuBLAS read or write out of bounds. Scalars (`alpha`, `beta`) are device
//! buffers (pointer mode DEVICE), so no call waits for the host.

use std::ffi::{c_int, c_longlong};

use cudarc::cublas::sys;
use num_complex::{Complex32, Complex64};

use super::{libs, Device, DeviceBuffer, DeviceKind, Element, Stream, StreamKind};
use crate::common::operand::{mat_span, vec_span};
use crate::{Diag, Error, Op, Uplo};

/// Level-1 reductions cuBLAS is compared on ([`Cublas::run`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CublasOp {
    /// `cublas?asum`
    Asum,
    /// `cublas?nrm2`
    Nrm2,
    /// `cublas?dot`
    Dot,
    /// `cublasI?amax` (result `i32`)
    Iamax,
}

/// `f32` or `f64`.
pub trait CublasReal: CublasScalar {
    #[doc(hidden)]
    const DOUBLE: bool;
}
impl CublasReal for f32 {
    const DOUBLE: bool = false;
}
impl CublasReal for f64 {
    const DOUBLE: bool = true;
}

/// The cuBLAS type prefix of an element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CublasType {
    /// `f32` (`cublasS…`).
    S,
    /// `f64` (`cublasD…`).
    D,
    /// `Complex32` (`cublasC…`, `cuComplex`).
    C,
    /// `Complex64` (`cublasZ…`, `cuDoubleComplex`).
    Z,
}

/// `f32`, `f64`, `Complex32`, `Complex64` (the complex types have the layout of `cuComplex`
/// and `cuDoubleComplex`: real part, then imaginary part).
pub trait CublasScalar: Element {
    #[doc(hidden)]
    const TYPE: CublasType;
}
impl CublasScalar for f32 {
    const TYPE: CublasType = CublasType::S;
}
impl CublasScalar for f64 {
    const TYPE: CublasType = CublasType::D;
}
impl CublasScalar for Complex32 {
    const TYPE: CublasType = CublasType::C;
}
impl CublasScalar for Complex64 {
    const TYPE: CublasType = CublasType::Z;
}

/// Calls the S, D, C or Z variant of a cuBLAS routine for element type `$t` with the same
/// argument list (raw pointers are cast with `as _` to each variant's pointer type).
macro_rules! typed {
    ($t:ty, $s:ident, $d:ident, $c:ident, $z:ident, ($($arg:expr),* $(,)?)) => {
        match <$t as CublasScalar>::TYPE {
            CublasType::S => sys::$s($($arg),*),
            CublasType::D => sys::$d($($arg),*),
            CublasType::C => sys::$c($($arg),*),
            CublasType::Z => sys::$z($($arg),*),
        }
    };
}

/// A cuBLAS handle on a stream, with scalars and results in device memory (so calls never
/// synchronise).
pub struct Cublas {
    h: sys::cublasHandle_t,
    dev: Device,
}

fn check(op: &str, s: sys::cublasStatus_t) -> Result<(), Error> {
    if s == sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(Error::driver(op, format!("{s:?}")))
    }
}

/// `v` as a cuBLAS `int`.
fn int(call: &str, what: &str, v: usize) -> Result<c_int, Error> {
    c_int::try_from(v).map_err(|_| {
        Error::InvalidValue(format!(
            "cuBLAS {call}: {what} = {v} does not fit cuBLAS's 32-bit int (max {})",
            c_int::MAX
        ))
    })
}

/// An increment as a cuBLAS `int`: non-zero, and its magnitude fits.
fn inc(call: &str, what: &str, v: isize) -> Result<c_int, Error> {
    if v == 0 {
        return Err(Error::InvalidValue(format!(
            "cuBLAS {call}: {what} = 0; these wrappers take non-zero increments"
        )));
    }
    c_int::try_from(v).map_err(|_| {
        Error::InvalidValue(format!(
            "cuBLAS {call}: {what} = {v} does not fit cuBLAS's 32-bit int"
        ))
    })
}

/// A stride as a cuBLAS `long long`.
fn stride(call: &str, what: &str, v: usize) -> Result<c_longlong, Error> {
    c_longlong::try_from(v).map_err(|_| {
        Error::InvalidValue(format!(
            "cuBLAS {call}: {what} = {v} does not fit cuBLAS's 64-bit stride"
        ))
    })
}

/// Elements a vector of `n` elements at `incx` spans, or an error naming them.
fn vspan(call: &str, what: &str, n: usize, incx: isize) -> Result<usize, Error> {
    vec_span(n, incx).ok_or_else(|| {
        Error::InvalidValue(format!(
            "cuBLAS {call}: {what} of {n} elements at increment {incx} overflows the address space"
        ))
    })
}

/// Elements a `rows × cols` matrix at `ld` spans; `ld >= max(1, rows)` as cuBLAS requires.
fn mspan(call: &str, rows: usize, cols: usize, ld: usize) -> Result<usize, Error> {
    if ld < rows.max(1) {
        return Err(Error::InvalidValue(format!(
            "cuBLAS {call}: lda = {ld} is less than max(1, {rows}) rows"
        )));
    }
    mat_span(rows, cols, ld).ok_or_else(|| {
        Error::InvalidValue(format!(
            "cuBLAS {call}: a {rows} x {cols} matrix at lda = {ld} overflows the address space"
        ))
    })
}

/// Elements `batch` entries of `one` elements each, `stride` apart, span.
fn bspan(call: &str, what: &str, one: usize, stride: usize, batch: usize) -> Result<usize, Error> {
    if batch == 0 || one == 0 {
        return Ok(0);
    }
    (batch - 1)
        .checked_mul(stride)
        .and_then(|v| v.checked_add(one))
        .ok_or_else(|| {
            Error::InvalidValue(format!(
                "cuBLAS {call}: {batch} entries of {what} at stride {stride} (each {one} elements) \
                 overflow the address space"
            ))
        })
}

/// Rejects a strided output whose entries would overlap (concurrent writes to one element).
fn no_overlap(
    call: &str,
    what: &str,
    one: usize,
    stride: usize,
    batch: usize,
) -> Result<(), Error> {
    if batch > 1 && one > 0 && stride < one {
        return Err(Error::InvalidValue(format!(
            "cuBLAS {call}: output {what} has stride {stride} but one entry spans {one} elements: \
             {batch} entries would overlap"
        )));
    }
    Ok(())
}

fn fill(uplo: Uplo) -> sys::cublasFillMode_t {
    match uplo {
        Uplo::Upper => sys::cublasFillMode_t::CUBLAS_FILL_MODE_UPPER,
        Uplo::Lower => sys::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER,
    }
}

fn trans(op: Op) -> sys::cublasOperation_t {
    match op {
        Op::N => sys::cublasOperation_t::CUBLAS_OP_N,
        Op::T => sys::cublasOperation_t::CUBLAS_OP_T,
        Op::C => sys::cublasOperation_t::CUBLAS_OP_C,
    }
}

fn diag_type(diag: Diag) -> sys::cublasDiagType_t {
    match diag {
        Diag::Unit => sys::cublasDiagType_t::CUBLAS_DIAG_UNIT,
        Diag::NonUnit => sys::cublasDiagType_t::CUBLAS_DIAG_NON_UNIT,
    }
}

impl Cublas {
    /// A cuBLAS handle working on `stream` (CUDA only).
    pub fn new(stream: &Stream) -> Result<Cublas, Error> {
        let StreamKind::Cuda(s, d) = &stream.0 else {
            return Err(Error::Unsupported("cuBLAS on the host backend".into()));
        };
        libs::ensure_cublas()?;
        d.bind()?;
        let mut h = std::ptr::null_mut();
        // SAFETY: plain handle creation; the stream belongs to the current context. The
        // handle is owned by `c` (destroyed by its Drop) as soon as it exists.
        unsafe {
            check("cublasCreate", sys::cublasCreate_v2(&mut h))?;
            let c = Cublas {
                h,
                dev: stream.device(),
            };
            check(
                "cublasSetStream",
                sys::cublasSetStream_v2(h, s.cu_stream() as _),
            )?;
            check(
                "cublasSetPointerMode",
                sys::cublasSetPointerMode_v2(
                    h,
                    sys::cublasPointerMode_t::CUBLAS_POINTER_MODE_DEVICE,
                ),
            )?;
            Ok(c)
        }
    }

    /// Makes the handle's context current on this thread (cuBLAS calls use it).
    fn bind(&self) -> Result<(), Error> {
        match &self.dev.0 {
            DeviceKind::Cuda(d) => d.bind(),
            DeviceKind::Host(_) => Err(Error::Unsupported("cuBLAS on the host backend".into())),
        }
    }

    /// The device address of `buf` after checking that it is memory of this handle's device
    /// holding at least `need` elements (at least one for a scalar).
    fn ptr<T: Element>(
        &self,
        call: &str,
        what: &str,
        buf: &DeviceBuffer<T>,
        need: usize,
    ) -> Result<u64, Error> {
        let Some(addr) = buf.addr_on(&self.dev) else {
            return Err(Error::InvalidPointer(format!(
                "cuBLAS {call}: {what} is {} but cuBLAS works on {}",
                match buf.device() {
                    Some(d) => format!("memory of {}", d.name()),
                    None => format!("a placeholder of {} elements", buf.len()),
                },
                self.dev.name()
            )));
        };
        if buf.len() < need {
            return Err(Error::InvalidValue(format!(
                "cuBLAS {call}: {what} has {} elements; the call needs {need}",
                buf.len()
            )));
        }
        Ok(addr)
    }

    /// Runs `op` on `n` elements of `x` (and `y` for `Dot`) at increment 1; the result goes to
    /// `result[0]` (an `i32` index for `Iamax`, else a `T`).
    pub fn run<T: CublasReal, R: Element>(
        &self,
        op: CublasOp,
        n: usize,
        x: &DeviceBuffer<T>,
        y: &DeviceBuffer<T>,
        result: &mut DeviceBuffer<R>,
    ) -> Result<(), Error> {
        let call = format!("{op:?}");
        let want = if op == CublasOp::Iamax {
            4
        } else {
            std::mem::size_of::<T>()
        };
        if std::mem::size_of::<R>() != want {
            return Err(Error::InvalidValue(format!(
                "cuBLAS {call}: result elements of {} bytes (needs {want})",
                std::mem::size_of::<R>()
            )));
        }
        let ni = int(&call, "n", n)?;
        let xp = self.ptr(&call, "x", x, n)?;
        let yp = self.ptr(&call, "y", y, if op == CublasOp::Dot { n } else { 0 })?;
        let rp = self.ptr(&call, "result", result, 1)?;
        self.bind()?;
        let h = self.h;
        // SAFETY: x and y hold at least n elements of T (y only read by Dot), result at least
        // one R of the size cuBLAS writes (checked above); all on this handle's device.
        let s = unsafe {
            match (op, T::DOUBLE) {
                (CublasOp::Asum, false) => sys::cublasSasum_v2(h, ni, xp as _, 1, rp as _),
                (CublasOp::Asum, true) => sys::cublasDasum_v2(h, ni, xp as _, 1, rp as _),
                (CublasOp::Nrm2, false) => sys::cublasSnrm2_v2(h, ni, xp as _, 1, rp as _),
                (CublasOp::Nrm2, true) => sys::cublasDnrm2_v2(h, ni, xp as _, 1, rp as _),
                (CublasOp::Dot, false) => {
                    sys::cublasSdot_v2(h, ni, xp as _, 1, yp as _, 1, rp as _)
                }
                (CublasOp::Dot, true) => sys::cublasDdot_v2(h, ni, xp as _, 1, yp as _, 1, rp as _),
                (CublasOp::Iamax, false) => sys::cublasIsamax_v2(h, ni, xp as _, 1, rp as _),
                (CublasOp::Iamax, true) => sys::cublasIdamax_v2(h, ni, xp as _, 1, rp as _),
            }
        };
        check("cuBLAS Level-1 call", s)
    }

    /// `y = alpha op(A) x + beta y` (`cublas?gemv_v2`), `A` an `m × n` matrix at `lda`;
    /// `alpha` and `beta` are element 0 of device buffers.
    #[allow(clippy::too_many_arguments)]
    pub fn gemv<T: CublasScalar>(
        &self,
        op: Op,
        m: usize,
        n: usize,
        alpha: &DeviceBuffer<T>,
        a: &DeviceBuffer<T>,
        lda: usize,
        x: &DeviceBuffer<T>,
        incx: isize,
        beta: &DeviceBuffer<T>,
        y: &mut DeviceBuffer<T>,
        incy: isize,
    ) -> Result<(), Error> {
        let call = "gemv";
        let (lx, ly) = if op == Op::N { (n, m) } else { (m, n) };
        let (mi, ni, ldi) = (
            int(call, "m", m)?,
            int(call, "n", n)?,
            int(call, "lda", lda)?,
        );
        let (ix, iy) = (inc(call, "incx", incx)?, inc(call, "incy", incy)?);
        let ap = self.ptr(call, "A", a, mspan(call, m, n, lda)?)?;
        let xp = self.ptr(call, "x", x, vspan(call, "x", lx, incx)?)?;
        let yp = self.ptr(call, "y", y, vspan(call, "y", ly, incy)?)?;
        let alp = self.ptr(call, "alpha", alpha, 1)?;
        let bep = self.ptr(call, "beta", beta, 1)?;
        self.bind()?;
        let (h, t) = (self.h, trans(op));
        // SAFETY: A spans an m x n matrix at lda (lda >= max(1, m)), x and y the elements of
        // op(A)'s column and row counts at their increments, alpha and beta one element each
        // (checked above, overflow-safe); all on this handle's device; y is exclusively
        // borrowed, so it aliases no input.
        let s = unsafe {
            typed!(
                T,
                cublasSgemv_v2,
                cublasDgemv_v2,
                cublasCgemv_v2,
                cublasZgemv_v2,
                (h, t, mi, ni, alp as _, ap as _, ldi, xp as _, ix, bep as _, yp as _, iy)
            )
        };
        check("cublas?gemv_v2", s)
    }

    /// `gemv` of `batch` entries at fixed strides (elements) in one buffer per operand
    /// (`cublas?gemvStridedBatched`); entries of `y` must not overlap.
    #[allow(clippy::too_many_arguments)]
    pub fn gemv_strided_batched<T: CublasScalar>(
        &self,
        op: Op,
        m: usize,
        n: usize,
        alpha: &DeviceBuffer<T>,
        a: &DeviceBuffer<T>,
        lda: usize,
        stride_a: usize,
        x: &DeviceBuffer<T>,
        incx: isize,
        stride_x: usize,
        beta: &DeviceBuffer<T>,
        y: &mut DeviceBuffer<T>,
        incy: isize,
        stride_y: usize,
        batch: usize,
    ) -> Result<(), Error> {
        let call = "gemvStridedBatched";
        let (lx, ly) = if op == Op::N { (n, m) } else { (m, n) };
        let (mi, ni, ldi) = (
            int(call, "m", m)?,
            int(call, "n", n)?,
            int(call, "lda", lda)?,
        );
        let (ix, iy) = (inc(call, "incx", incx)?, inc(call, "incy", incy)?);
        let bi = int(call, "batch", batch)?;
        let (sa, sx, sy) = (
            stride(call, "stride_a", stride_a)?,
            stride(call, "stride_x", stride_x)?,
            stride(call, "stride_y", stride_y)?,
        );
        let (one_a, one_x, one_y) = (
            mspan(call, m, n, lda)?,
            vspan(call, "x", lx, incx)?,
            vspan(call, "y", ly, incy)?,
        );
        no_overlap(call, "y", one_y, stride_y, batch)?;
        let ap = self.ptr(call, "A", a, bspan(call, "A", one_a, stride_a, batch)?)?;
        let xp = self.ptr(call, "x", x, bspan(call, "x", one_x, stride_x, batch)?)?;
        let yp = self.ptr(call, "y", y, bspan(call, "y", one_y, stride_y, batch)?)?;
        let alp = self.ptr(call, "alpha", alpha, 1)?;
        let bep = self.ptr(call, "beta", beta, 1)?;
        self.bind()?;
        let (h, t) = (self.h, trans(op));
        // SAFETY: each of A, x, y holds (batch - 1) * stride + one entry's span elements, so
        // every entry lies inside its buffer; entries of y do not overlap; alpha and beta hold
        // one element (checked above, overflow-safe); all on this handle's device.
        let s = unsafe {
            typed!(
                T,
                cublasSgemvStridedBatched,
                cublasDgemvStridedBatched,
                cublasCgemvStridedBatched,
                cublasZgemvStridedBatched,
                (
                    h, t, mi, ni, alp as _, ap as _, ldi, sa, xp as _, ix, sx, bep as _, yp as _,
                    iy, sy, bi
                )
            )
        };
        check("cublas?gemvStridedBatched", s)
    }

    /// `y = alpha A x + beta y` with `A` symmetric (`cublas?symv_v2`), only the `uplo`
    /// triangle read.
    #[allow(clippy::too_many_arguments)]
    pub fn symv<T: CublasScalar>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: &DeviceBuffer<T>,
        a: &DeviceBuffer<T>,
        lda: usize,
        x: &DeviceBuffer<T>,
        incx: isize,
        beta: &DeviceBuffer<T>,
        y: &mut DeviceBuffer<T>,
        incy: isize,
    ) -> Result<(), Error> {
        self.sym_or_he(false, uplo, n, alpha, a, lda, x, incx, beta, y, incy)
    }

    /// `y = alpha A x + beta y` with `A` Hermitian (`cublasChemv_v2`/`cublasZhemv_v2`;
    /// complex types only).
    #[allow(clippy::too_many_arguments)]
    pub fn hemv<T: CublasScalar>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: &DeviceBuffer<T>,
        a: &DeviceBuffer<T>,
        lda: usize,
        x: &DeviceBuffer<T>,
        incx: isize,
        beta: &DeviceBuffer<T>,
        y: &mut DeviceBuffer<T>,
        incy: isize,
    ) -> Result<(), Error> {
        self.sym_or_he(true, uplo, n, alpha, a, lda, x, incx, beta, y, incy)
    }

    #[allow(clippy::too_many_arguments)]
    fn sym_or_he<T: CublasScalar>(
        &self,
        herm: bool,
        uplo: Uplo,
        n: usize,
        alpha: &DeviceBuffer<T>,
        a: &DeviceBuffer<T>,
        lda: usize,
        x: &DeviceBuffer<T>,
        incx: isize,
        beta: &DeviceBuffer<T>,
        y: &mut DeviceBuffer<T>,
        incy: isize,
    ) -> Result<(), Error> {
        let call = if herm { "hemv" } else { "symv" };
        if herm && matches!(T::TYPE, CublasType::S | CublasType::D) {
            return Err(Error::Unsupported(
                "cuBLAS hemv takes complex types only (Complex32, Complex64)".into(),
            ));
        }
        let (ni, ldi) = (int(call, "n", n)?, int(call, "lda", lda)?);
        let (ix, iy) = (inc(call, "incx", incx)?, inc(call, "incy", incy)?);
        let ap = self.ptr(call, "A", a, mspan(call, n, n, lda)?)?;
        let xp = self.ptr(call, "x", x, vspan(call, "x", n, incx)?)?;
        let yp = self.ptr(call, "y", y, vspan(call, "y", n, incy)?)?;
        let alp = self.ptr(call, "alpha", alpha, 1)?;
        let bep = self.ptr(call, "beta", beta, 1)?;
        self.bind()?;
        let (h, u) = (self.h, fill(uplo));
        // SAFETY: A spans an n x n matrix at lda >= max(1, n) (the stored triangle lies in
        // it), x and y n elements at their increments, alpha and beta one element (checked
        // above, overflow-safe); all on this handle's device; y aliases no input. hemv never
        // reaches the real-type arms (returned above).
        let s = unsafe {
            if herm {
                typed!(
                    T,
                    cublasSsymv_v2,
                    cublasDsymv_v2,
                    cublasChemv_v2,
                    cublasZhemv_v2,
                    (h, u, ni, alp as _, ap as _, ldi, xp as _, ix, bep as _, yp as _, iy)
                )
            } else {
                typed!(
                    T,
                    cublasSsymv_v2,
                    cublasDsymv_v2,
                    cublasCsymv_v2,
                    cublasZsymv_v2,
                    (h, u, ni, alp as _, ap as _, ldi, xp as _, ix, bep as _, yp as _, iy)
                )
            }
        };
        check(
            if herm {
                "cublas?hemv_v2"
            } else {
                "cublas?symv_v2"
            },
            s,
        )
    }

    /// `x = op(A) x` with `A` triangular (`cublas?trmv_v2`, in place).
    #[allow(clippy::too_many_arguments)]
    pub fn trmv<T: CublasScalar>(
        &self,
        uplo: Uplo,
        op: Op,
        diag: Diag,
        n: usize,
        a: &DeviceBuffer<T>,
        lda: usize,
        x: &mut DeviceBuffer<T>,
        incx: isize,
    ) -> Result<(), Error> {
        self.tri(false, uplo, op, diag, n, a, lda, x, incx)
    }

    /// Solves `op(A) x = b` in place, `A` triangular (`cublas?trsv_v2`).
    #[allow(clippy::too_many_arguments)]
    pub fn trsv<T: CublasScalar>(
        &self,
        uplo: Uplo,
        op: Op,
        diag: Diag,
        n: usize,
        a: &DeviceBuffer<T>,
        lda: usize,
        x: &mut DeviceBuffer<T>,
        incx: isize,
    ) -> Result<(), Error> {
        self.tri(true, uplo, op, diag, n, a, lda, x, incx)
    }

    #[allow(clippy::too_many_arguments)]
    fn tri<T: CublasScalar>(
        &self,
        solve: bool,
        uplo: Uplo,
        op: Op,
        diag: Diag,
        n: usize,
        a: &DeviceBuffer<T>,
        lda: usize,
        x: &mut DeviceBuffer<T>,
        incx: isize,
    ) -> Result<(), Error> {
        let call = if solve { "trsv" } else { "trmv" };
        let (ni, ldi, ix) = (
            int(call, "n", n)?,
            int(call, "lda", lda)?,
            inc(call, "incx", incx)?,
        );
        let ap = self.ptr(call, "A", a, mspan(call, n, n, lda)?)?;
        let xp = self.ptr(call, "x", x, vspan(call, "x", n, incx)?)?;
        self.bind()?;
        let (h, u, t, d) = (self.h, fill(uplo), trans(op), diag_type(diag));
        // SAFETY: A spans an n x n matrix at lda >= max(1, n), x n elements at incx (checked
        // above, overflow-safe); both on this handle's device; x is exclusively borrowed.
        let s = unsafe {
            if solve {
                typed!(
                    T,
                    cublasStrsv_v2,
                    cublasDtrsv_v2,
                    cublasCtrsv_v2,
                    cublasZtrsv_v2,
                    (h, u, t, d, ni, ap as _, ldi, xp as _, ix)
                )
            } else {
                typed!(
                    T,
                    cublasStrmv_v2,
                    cublasDtrmv_v2,
                    cublasCtrmv_v2,
                    cublasZtrmv_v2,
                    (h, u, t, d, ni, ap as _, ldi, xp as _, ix)
                )
            }
        };
        check(
            if solve {
                "cublas?trsv_v2"
            } else {
                "cublas?trmv_v2"
            },
            s,
        )
    }

    /// `y = alpha x + y` over `n` elements (`cublas?axpy_v2`).
    pub fn axpy<T: CublasScalar>(
        &self,
        n: usize,
        alpha: &DeviceBuffer<T>,
        x: &DeviceBuffer<T>,
        incx: isize,
        y: &mut DeviceBuffer<T>,
        incy: isize,
    ) -> Result<(), Error> {
        let call = "axpy";
        let (ni, ix, iy) = (
            int(call, "n", n)?,
            inc(call, "incx", incx)?,
            inc(call, "incy", incy)?,
        );
        let xp = self.ptr(call, "x", x, vspan(call, "x", n, incx)?)?;
        let yp = self.ptr(call, "y", y, vspan(call, "y", n, incy)?)?;
        let alp = self.ptr(call, "alpha", alpha, 1)?;
        self.bind()?;
        let h = self.h;
        // SAFETY: x and y hold n elements at their increments, alpha one element (checked
        // above, overflow-safe); all on this handle's device; y aliases no input.
        let s = unsafe {
            typed!(
                T,
                cublasSaxpy_v2,
                cublasDaxpy_v2,
                cublasCaxpy_v2,
                cublasZaxpy_v2,
                (h, ni, alp as _, xp as _, ix, yp as _, iy)
            )
        };
        check("cublas?axpy_v2", s)
    }

    /// `x = alpha x` over `n` elements (`cublas?scal_v2`).
    pub fn scal<T: CublasScalar>(
        &self,
        n: usize,
        alpha: &DeviceBuffer<T>,
        x: &mut DeviceBuffer<T>,
        incx: isize,
    ) -> Result<(), Error> {
        let call = "scal";
        let (ni, ix) = (int(call, "n", n)?, inc(call, "incx", incx)?);
        let xp = self.ptr(call, "x", x, vspan(call, "x", n, incx)?)?;
        let alp = self.ptr(call, "alpha", alpha, 1)?;
        self.bind()?;
        let h = self.h;
        // SAFETY: x holds n elements at incx, alpha one element (checked above,
        // overflow-safe); both on this handle's device; x is exclusively borrowed.
        let s = unsafe {
            typed!(
                T,
                cublasSscal_v2,
                cublasDscal_v2,
                cublasCscal_v2,
                cublasZscal_v2,
                (h, ni, alp as _, xp as _, ix)
            )
        };
        check("cublas?scal_v2", s)
    }

    /// `y = x` over `n` elements (`cublas?copy_v2`).
    pub fn copy<T: CublasScalar>(
        &self,
        n: usize,
        x: &DeviceBuffer<T>,
        incx: isize,
        y: &mut DeviceBuffer<T>,
        incy: isize,
    ) -> Result<(), Error> {
        let call = "copy";
        let (ni, ix, iy) = (
            int(call, "n", n)?,
            inc(call, "incx", incx)?,
            inc(call, "incy", incy)?,
        );
        let xp = self.ptr(call, "x", x, vspan(call, "x", n, incx)?)?;
        let yp = self.ptr(call, "y", y, vspan(call, "y", n, incy)?)?;
        self.bind()?;
        let h = self.h;
        // SAFETY: x and y hold n elements at their increments (checked above,
        // overflow-safe); both on this handle's device; y aliases no input.
        let s = unsafe {
            typed!(
                T,
                cublasScopy_v2,
                cublasDcopy_v2,
                cublasCcopy_v2,
                cublasZcopy_v2,
                (h, ni, xp as _, ix, yp as _, iy)
            )
        };
        check("cublas?copy_v2", s)
    }

    /// Exchanges `n` elements of `x` and `y` (`cublas?swap_v2`).
    pub fn swap<T: CublasScalar>(
        &self,
        n: usize,
        x: &mut DeviceBuffer<T>,
        incx: isize,
        y: &mut DeviceBuffer<T>,
        incy: isize,
    ) -> Result<(), Error> {
        let call = "swap";
        let (ni, ix, iy) = (
            int(call, "n", n)?,
            inc(call, "incx", incx)?,
            inc(call, "incy", incy)?,
        );
        let xp = self.ptr(call, "x", x, vspan(call, "x", n, incx)?)?;
        let yp = self.ptr(call, "y", y, vspan(call, "y", n, incy)?)?;
        self.bind()?;
        let h = self.h;
        // SAFETY: x and y hold n elements at their increments (checked above,
        // overflow-safe); both on this handle's device; both exclusively borrowed, so
        // distinct.
        let s = unsafe {
            typed!(
                T,
                cublasSswap_v2,
                cublasDswap_v2,
                cublasCswap_v2,
                cublasZswap_v2,
                (h, ni, xp as _, ix, yp as _, iy)
            )
        };
        check("cublas?swap_v2", s)
    }
}

impl Drop for Cublas {
    fn drop(&mut self) {
        // SAFETY: the handle was created by cublasCreate and is destroyed once.
        unsafe {
            let _ = sys::cublasDestroy_v2(self.h);
        }
    }
}
