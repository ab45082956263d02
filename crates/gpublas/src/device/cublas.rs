//! cuBLAS, only to compare against in benchmarks (feature `cublas`).
//!
//! Every wrapper checks its arguments before the raw call: sizes, leading dimensions,
//! increments, strides and batch counts must fit cuBLAS's 32-bit (64-bit for strides)
//! integers, every buffer must be memory of this handle's device and hold every element the
//! call can touch (computed overflow-safe), and outputs of a strided batch must not overlap.
//! Anything else is `Error::InvalidValue` / `Error::InvalidPointer` naming the values, so no
//! wrapper can make cuBLAS read or write out of bounds. The Level-1 and Level-2 wrappers take
//! their scalars (`alpha`, `beta`) and write their results in device buffers (pointer mode
//! DEVICE), so no call waits for the host; the Level-3 wrappers (`gemm_ex`, `syrk`, `trmm`, …)
//! take `alpha` and `beta` as host values (pointer mode HOST, read before the call returns).
//! Each wrapper sets the handle's pointer mode it needs (only when it changes).

use std::cell::Cell;
use std::ffi::{c_int, c_longlong};

use cudarc::cublas::sys;
use num_complex::{Complex32, Complex64};

use super::{libs, Device, DeviceBuffer, DeviceKind, Element, Stream, StreamKind};
use crate::common::operand::{mat_span, vec_span};
use crate::{bf16, f16, Diag, Error, Op, Side, Uplo};

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

mod sealed {
    /// Only the element types cuBLAS is called with here implement the traits of this module
    /// (their sizes decide how many bytes cuBLAS reads and writes per element).
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for super::Complex32 {}
    impl Sealed for super::Complex64 {}
    impl Sealed for super::f16 {}
    impl Sealed for super::bf16 {}
}

/// `f32`, `f64`, `Complex32`, `Complex64` (the complex types have the layout of `cuComplex`
/// and `cuDoubleComplex`: real part, then imaginary part).
pub trait CublasScalar: Element + sealed::Sealed {
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

/// `Complex32` or `Complex64`, with the real type of `herk`'s `alpha` and `beta`.
pub trait CublasComplex: CublasScalar {
    /// `f32` for `Complex32`, `f64` for `Complex64`.
    type Real: Element;
}
impl CublasComplex for Complex32 {
    type Real = f32;
}
impl CublasComplex for Complex64 {
    type Real = f64;
}

/// The arithmetic of a `cublasGemmEx` call (its `cublasComputeType_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CublasCompute {
    /// `CUBLAS_COMPUTE_32F`: IEEE f32 (f16, bf16, f32 and Complex32 inputs).
    F32,
    /// `CUBLAS_COMPUTE_32F_FAST_TF32`: f32 inputs rounded to TF32 on the tensor cores (f32,
    /// Complex32).
    F32FastTf32,
    /// `CUBLAS_COMPUTE_32F_FAST_16F`: f32 inputs rounded to f16 (f32, Complex32).
    F32FastF16,
    /// `CUBLAS_COMPUTE_32F_FAST_16BF`: f32 inputs rounded to bf16 (f32, Complex32).
    F32FastBf16,
    /// `CUBLAS_COMPUTE_64F`: IEEE f64 (f64 and Complex64 inputs).
    F64,
}

impl CublasCompute {
    fn sys(self) -> sys::cublasComputeType_t {
        use sys::cublasComputeType_t as C;
        match self {
            CublasCompute::F32 => C::CUBLAS_COMPUTE_32F,
            CublasCompute::F32FastTf32 => C::CUBLAS_COMPUTE_32F_FAST_TF32,
            CublasCompute::F32FastF16 => C::CUBLAS_COMPUTE_32F_FAST_16F,
            CublasCompute::F32FastBf16 => C::CUBLAS_COMPUTE_32F_FAST_16BF,
            CublasCompute::F64 => C::CUBLAS_COMPUTE_64F,
        }
    }
}

/// Input element types of [`Cublas::gemm_ex`] (`f16`, `bf16`, `f32`, `f64`, `Complex32`,
/// `Complex64`), with the type of `alpha` and `beta` and the compute types cuBLAS allows.
pub trait CublasExIn: Element + sealed::Sealed {
    /// The type of `alpha` and `beta`: `f32` for `f16` and `bf16` inputs, else the input type.
    type Scale: Element;
    #[doc(hidden)]
    const DT: sys::cudaDataType;
    #[doc(hidden)]
    const COMPUTE: &'static [CublasCompute];
}

/// Output element types of [`Cublas::gemm_ex`] for input `I`: `I` itself, or `f32` for `f16`
/// and `bf16` inputs.
pub trait CublasExOut<I: CublasExIn>: Element + sealed::Sealed {
    #[doc(hidden)]
    const DT: sys::cudaDataType;
}

const FP32_COMPUTES: &[CublasCompute] = &[
    CublasCompute::F32,
    CublasCompute::F32FastTf32,
    CublasCompute::F32FastF16,
    CublasCompute::F32FastBf16,
];

macro_rules! ex_in {
    ($t:ty, $scale:ty, $dt:ident, $compute:expr) => {
        impl CublasExIn for $t {
            type Scale = $scale;
            const DT: sys::cudaDataType = sys::cudaDataType::$dt;
            const COMPUTE: &'static [CublasCompute] = $compute;
        }
        impl CublasExOut<$t> for $t {
            const DT: sys::cudaDataType = sys::cudaDataType::$dt;
        }
    };
}
ex_in!(f16, f32, CUDA_R_16F, &[CublasCompute::F32]);
ex_in!(bf16, f32, CUDA_R_16BF, &[CublasCompute::F32]);
ex_in!(f32, f32, CUDA_R_32F, FP32_COMPUTES);
ex_in!(f64, f64, CUDA_R_64F, &[CublasCompute::F64]);
ex_in!(Complex32, Complex32, CUDA_C_32F, FP32_COMPUTES);
ex_in!(Complex64, Complex64, CUDA_C_64F, &[CublasCompute::F64]);
impl CublasExOut<f16> for f32 {
    const DT: sys::cudaDataType = sys::cudaDataType::CUDA_R_32F;
}
impl CublasExOut<bf16> for f32 {
    const DT: sys::cudaDataType = sys::cudaDataType::CUDA_R_32F;
}

/// The compute type of a `gemm_ex` with input `I`, or an error when cuBLAS does not pair them.
fn ex_compute<I: CublasExIn>(
    call: &str,
    compute: CublasCompute,
) -> Result<sys::cublasComputeType_t, Error> {
    if I::COMPUTE.contains(&compute) {
        Ok(compute.sys())
    } else {
        Err(Error::InvalidValue(format!(
            "cuBLAS {call}: compute type {compute:?} with {:?} inputs (allowed: {:?})",
            I::DT,
            I::COMPUTE
        )))
    }
}

/// A host scalar for pointer mode HOST, aligned as `cuDoubleComplex` (16 bytes) so that no
/// load cuBLAS makes from it is misaligned; it lives until the call that reads it returns.
#[repr(C, align(16))]
struct HostScalar<T>(T);

impl<T> HostScalar<T> {
    fn ptr(&self) -> *const T {
        &self.0
    }
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
    /// The stream cuBLAS works on: buffers it is given record it, so downloads wait for it.
    stream: Stream,
    /// The handle's pointer mode: HOST (`true`) or DEVICE (`false`).
    host_scalars: Cell<bool>,
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
    mspan_ld(call, "lda", rows, cols, ld)
}

/// [`mspan`] for the operand whose leading dimension is called `ld_name` (lda, ldb, ldc).
fn mspan_ld(
    call: &str,
    ld_name: &str,
    rows: usize,
    cols: usize,
    ld: usize,
) -> Result<usize, Error> {
    if ld < rows.max(1) {
        return Err(Error::InvalidValue(format!(
            "cuBLAS {call}: {ld_name} = {ld} is less than max(1, {rows}) rows"
        )));
    }
    mat_span(rows, cols, ld).ok_or_else(|| {
        Error::InvalidValue(format!(
            "cuBLAS {call}: a {rows} x {cols} matrix at {ld_name} = {ld} overflows the address \
             space"
        ))
    })
}

/// The checked sizes of a gemm: cuBLAS ints and the elements one entry of A, B, C spans.
struct GemmShape {
    m: c_int,
    n: c_int,
    k: c_int,
    lda: c_int,
    ldb: c_int,
    ldc: c_int,
    one_a: usize,
    one_b: usize,
    one_c: usize,
}

impl GemmShape {
    /// `op(A)` `m × k` (stored `m × k` for `N`, else `k × m`), `op(B)` `k × n`, `C` `m × n`.
    #[allow(clippy::too_many_arguments)]
    fn new(
        call: &str,
        opa: Op,
        opb: Op,
        m: usize,
        n: usize,
        k: usize,
        lda: usize,
        ldb: usize,
        ldc: usize,
    ) -> Result<GemmShape, Error> {
        let (ra, ca) = if opa == Op::N { (m, k) } else { (k, m) };
        let (rb, cb) = if opb == Op::N { (k, n) } else { (n, k) };
        Ok(GemmShape {
            m: int(call, "m", m)?,
            n: int(call, "n", n)?,
            k: int(call, "k", k)?,
            lda: int(call, "lda", lda)?,
            ldb: int(call, "ldb", ldb)?,
            ldc: int(call, "ldc", ldc)?,
            one_a: mspan_ld(call, "lda", ra, ca, lda)?,
            one_b: mspan_ld(call, "ldb", rb, cb, ldb)?,
            one_c: mspan_ld(call, "ldc", m, n, ldc)?,
        })
    }
}

/// The rows and columns of the stored `A` (and `B`) of a rank-k update: `op(A)` is `n × k`.
fn rk_dims(op: Op, n: usize, k: usize) -> (usize, usize) {
    if op == Op::N {
        (n, k)
    } else {
        (k, n)
    }
}

/// The `trans` of `syrk`/`syr2k`: `N` or `T` (`C` means `T` for real types; complex types
/// take `N` or `T` only, as cuBLAS does).
fn sym_trans<T: CublasScalar>(call: &str, op: Op) -> Result<sys::cublasOperation_t, Error> {
    match (op, T::TYPE) {
        (Op::C, CublasType::C | CublasType::Z) => Err(Error::InvalidValue(format!(
            "cuBLAS {call}: op = C with a complex type (the symmetric update takes N or T; \
             herk takes N or C)"
        ))),
        (Op::C, _) => Ok(trans(Op::T)),
        (op, _) => Ok(trans(op)),
    }
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

fn side_mode(side: Side) -> sys::cublasSideMode_t {
    match side {
        Side::Left => sys::cublasSideMode_t::CUBLAS_SIDE_LEFT,
        Side::Right => sys::cublasSideMode_t::CUBLAS_SIDE_RIGHT,
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
                stream: stream.clone(),
                host_scalars: Cell::new(false),
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

    /// Makes the handle's context current on this thread (cuBLAS calls use it) with scalars
    /// and results in device memory (pointer mode DEVICE: the Level-1 and Level-2 wrappers).
    fn bind(&self) -> Result<(), Error> {
        self.bind_with(false)
    }

    /// [`Self::bind`] with scalars read from host memory (pointer mode HOST: Level 3).
    fn bind_host(&self) -> Result<(), Error> {
        self.bind_with(true)
    }

    fn bind_with(&self, host_scalars: bool) -> Result<(), Error> {
        match &self.dev.0 {
            DeviceKind::Cuda(d) => d.bind()?,
            DeviceKind::Host(_) => {
                return Err(Error::Unsupported("cuBLAS on the host backend".into()))
            }
        }
        if self.host_scalars.get() != host_scalars {
            let mode = if host_scalars {
                sys::cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST
            } else {
                sys::cublasPointerMode_t::CUBLAS_POINTER_MODE_DEVICE
            };
            // SAFETY: sets a field of this live handle; work already enqueued keeps the mode
            // it was submitted with.
            check("cublasSetPointerMode", unsafe {
                sys::cublasSetPointerMode_v2(self.h, mode)
            })?;
            self.host_scalars.set(host_scalars);
        }
        Ok(())
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
        buf.mark_used(&self.stream);
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

/// Level 3: `alpha` and `beta` are host values (pointer mode HOST, read before each call
/// returns); cuBLAS uses its own default workspace.
impl Cublas {
    /// `C = alpha op(A) op(B) + beta C` (`cublasGemmEx`, default algorithm): `op(A)` `m × k`,
    /// `op(B)` `k × n`, `C` `m × n`; inputs of type `I`, output `O`, arithmetic `compute`
    /// (one of `I::COMPUTE`: `F32` for the half types, `F32` or a fast mode for f32 and
    /// Complex32, `F64` for f64 and Complex64); `alpha`, `beta` of `I::Scale`.
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_ex<I: CublasExIn, O: CublasExOut<I>>(
        &self,
        opa: Op,
        opb: Op,
        m: usize,
        n: usize,
        k: usize,
        alpha: I::Scale,
        a: &DeviceBuffer<I>,
        lda: usize,
        b: &DeviceBuffer<I>,
        ldb: usize,
        beta: I::Scale,
        c: &mut DeviceBuffer<O>,
        ldc: usize,
        compute: CublasCompute,
    ) -> Result<(), Error> {
        let call = "gemmEx";
        let ct = ex_compute::<I>(call, compute)?;
        let g = GemmShape::new(call, opa, opb, m, n, k, lda, ldb, ldc)?;
        let ap = self.ptr(call, "A", a, g.one_a)?;
        let bp = self.ptr(call, "B", b, g.one_b)?;
        let cp = self.ptr(call, "C", c, g.one_c)?;
        self.bind_host()?;
        let (al, be) = (HostScalar(alpha), HostScalar(beta));
        // SAFETY: A, B and C hold the op(A), op(B) and C spans at their leading dimensions
        // (each ld >= max(1, rows), checked above, overflow-safe) in elements of the types
        // I::DT and O::DT name (sealed traits: sizes match); all on this handle's device; C is
        // exclusively borrowed, so it aliases no input; alpha and beta are aligned host values
        // of the scale type cuBLAS expects for `ct` and live until the call returns.
        let s = unsafe {
            sys::cublasGemmEx(
                self.h,
                trans(opa),
                trans(opb),
                g.m,
                g.n,
                g.k,
                al.ptr() as _,
                ap as _,
                I::DT,
                g.lda,
                bp as _,
                I::DT,
                g.ldb,
                be.ptr() as _,
                cp as _,
                O::DT,
                g.ldc,
                ct,
                sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        };
        check("cublasGemmEx", s)
    }

    /// [`Self::gemm_ex`] of `batch` entries at fixed strides (elements) in one buffer per
    /// operand (`cublasGemmStridedBatchedEx`); entries of `C` must not overlap (A and B may,
    /// e.g. stride 0 to share one matrix).
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_strided_batched_ex<I: CublasExIn, O: CublasExOut<I>>(
        &self,
        opa: Op,
        opb: Op,
        m: usize,
        n: usize,
        k: usize,
        alpha: I::Scale,
        a: &DeviceBuffer<I>,
        lda: usize,
        stride_a: usize,
        b: &DeviceBuffer<I>,
        ldb: usize,
        stride_b: usize,
        beta: I::Scale,
        c: &mut DeviceBuffer<O>,
        ldc: usize,
        stride_c: usize,
        batch: usize,
        compute: CublasCompute,
    ) -> Result<(), Error> {
        let call = "gemmStridedBatchedEx";
        let ct = ex_compute::<I>(call, compute)?;
        let g = GemmShape::new(call, opa, opb, m, n, k, lda, ldb, ldc)?;
        let bi = int(call, "batch", batch)?;
        let (sa, sb, sc) = (
            stride(call, "stride_a", stride_a)?,
            stride(call, "stride_b", stride_b)?,
            stride(call, "stride_c", stride_c)?,
        );
        no_overlap(call, "C", g.one_c, stride_c, batch)?;
        let ap = self.ptr(call, "A", a, bspan(call, "A", g.one_a, stride_a, batch)?)?;
        let bp = self.ptr(call, "B", b, bspan(call, "B", g.one_b, stride_b, batch)?)?;
        let cp = self.ptr(call, "C", c, bspan(call, "C", g.one_c, stride_c, batch)?)?;
        self.bind_host()?;
        let (al, be) = (HostScalar(alpha), HostScalar(beta));
        // SAFETY: each of A, B, C holds (batch - 1) * stride + one entry's span elements of
        // the types I::DT and O::DT name, so every entry lies inside its buffer; entries of C
        // do not overlap (checked above, overflow-safe); all on this handle's device; C aliases
        // no input; alpha and beta are aligned host values living until the call returns.
        let s = unsafe {
            sys::cublasGemmStridedBatchedEx(
                self.h,
                trans(opa),
                trans(opb),
                g.m,
                g.n,
                g.k,
                al.ptr() as _,
                ap as _,
                I::DT,
                g.lda,
                sa,
                bp as _,
                I::DT,
                g.ldb,
                sb,
                be.ptr() as _,
                cp as _,
                O::DT,
                g.ldc,
                sc,
                bi,
                ct,
                sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        };
        check("cublasGemmStridedBatchedEx", s)
    }

    /// `C = alpha op(A) op(A)ᵀ + beta C` on the `uplo` triangle of the `n × n` matrix `C`,
    /// `op(A)` `n × k` (`cublas?syrk_v2`); `op` is `N` or `T` (`C` is `T` for real types).
    #[allow(clippy::too_many_arguments)]
    pub fn syrk<T: CublasScalar>(
        &self,
        uplo: Uplo,
        op: Op,
        n: usize,
        k: usize,
        alpha: T,
        a: &DeviceBuffer<T>,
        lda: usize,
        beta: T,
        c: &mut DeviceBuffer<T>,
        ldc: usize,
    ) -> Result<(), Error> {
        let call = "syrk";
        let t = sym_trans::<T>(call, op)?;
        let (ra, ca) = rk_dims(op, n, k);
        let (ni, ki) = (int(call, "n", n)?, int(call, "k", k)?);
        let (ldai, ldci) = (int(call, "lda", lda)?, int(call, "ldc", ldc)?);
        let ap = self.ptr(call, "A", a, mspan_ld(call, "lda", ra, ca, lda)?)?;
        let cp = self.ptr(call, "C", c, mspan_ld(call, "ldc", n, n, ldc)?)?;
        self.bind_host()?;
        let (h, u) = (self.h, fill(uplo));
        let (al, be) = (HostScalar(alpha), HostScalar(beta));
        // SAFETY: A spans op(A)'s stored matrix at lda, C an n x n matrix at ldc (both ld >=
        // max(1, rows), checked above, overflow-safe); both on this handle's device; C aliases
        // no input; alpha and beta are aligned host values of T living until the call returns.
        let s = unsafe {
            typed!(
                T,
                cublasSsyrk_v2,
                cublasDsyrk_v2,
                cublasCsyrk_v2,
                cublasZsyrk_v2,
                (
                    h,
                    u,
                    t,
                    ni,
                    ki,
                    al.ptr() as _,
                    ap as _,
                    ldai,
                    be.ptr() as _,
                    cp as _,
                    ldci
                )
            )
        };
        check("cublas?syrk_v2", s)
    }

    /// `C = alpha op(A) op(A)ᴴ + beta C` on the `uplo` triangle, `alpha` and `beta` real, `op`
    /// `N` or `C` (`cublasCherk_v2`/`cublasZherk_v2`).
    #[allow(clippy::too_many_arguments)]
    pub fn herk<T: CublasComplex>(
        &self,
        uplo: Uplo,
        op: Op,
        n: usize,
        k: usize,
        alpha: T::Real,
        a: &DeviceBuffer<T>,
        lda: usize,
        beta: T::Real,
        c: &mut DeviceBuffer<T>,
        ldc: usize,
    ) -> Result<(), Error> {
        let call = "herk";
        if op == Op::T {
            return Err(Error::InvalidValue(
                "cuBLAS herk: op = T (herk takes N or C)".into(),
            ));
        }
        let (ra, ca) = rk_dims(op, n, k);
        let (ni, ki) = (int(call, "n", n)?, int(call, "k", k)?);
        let (ldai, ldci) = (int(call, "lda", lda)?, int(call, "ldc", ldc)?);
        let ap = self.ptr(call, "A", a, mspan_ld(call, "lda", ra, ca, lda)?)?;
        let cp = self.ptr(call, "C", c, mspan_ld(call, "ldc", n, n, ldc)?)?;
        self.bind_host()?;
        let (h, u, t) = (self.h, fill(uplo), trans(op));
        let (al, be) = (HostScalar(alpha), HostScalar(beta));
        // SAFETY: A spans op(A)'s stored matrix at lda, C an n x n matrix at ldc (checked
        // above, overflow-safe); both on this handle's device; C aliases no input; alpha and
        // beta are aligned host values of T::Real (f32 for Complex32, f64 for Complex64: the
        // only implementations) living until the call returns.
        let s = unsafe {
            match T::TYPE {
                CublasType::C => Some(sys::cublasCherk_v2(
                    h,
                    u,
                    t,
                    ni,
                    ki,
                    al.ptr() as _,
                    ap as _,
                    ldai,
                    be.ptr() as _,
                    cp as _,
                    ldci,
                )),
                CublasType::Z => Some(sys::cublasZherk_v2(
                    h,
                    u,
                    t,
                    ni,
                    ki,
                    al.ptr() as _,
                    ap as _,
                    ldai,
                    be.ptr() as _,
                    cp as _,
                    ldci,
                )),
                CublasType::S | CublasType::D => None,
            }
        };
        match s {
            Some(s) => check("cublas?herk_v2", s),
            None => Err(Error::Unsupported(
                "cuBLAS herk takes complex types only (Complex32, Complex64)".into(),
            )),
        }
    }

    /// `C = alpha op(A) op(B)ᵀ + alpha op(B) op(A)ᵀ + beta C` on the `uplo` triangle of the
    /// `n × n` matrix `C`, `op(A)` and `op(B)` `n × k` (`cublas?syr2k_v2`); `op` as [`Self::syrk`].
    #[allow(clippy::too_many_arguments)]
    pub fn syr2k<T: CublasScalar>(
        &self,
        uplo: Uplo,
        op: Op,
        n: usize,
        k: usize,
        alpha: T,
        a: &DeviceBuffer<T>,
        lda: usize,
        b: &DeviceBuffer<T>,
        ldb: usize,
        beta: T,
        c: &mut DeviceBuffer<T>,
        ldc: usize,
    ) -> Result<(), Error> {
        let call = "syr2k";
        let t = sym_trans::<T>(call, op)?;
        let (ra, ca) = rk_dims(op, n, k);
        let (ni, ki) = (int(call, "n", n)?, int(call, "k", k)?);
        let (ldai, ldbi, ldci) = (
            int(call, "lda", lda)?,
            int(call, "ldb", ldb)?,
            int(call, "ldc", ldc)?,
        );
        let ap = self.ptr(call, "A", a, mspan_ld(call, "lda", ra, ca, lda)?)?;
        let bp = self.ptr(call, "B", b, mspan_ld(call, "ldb", ra, ca, ldb)?)?;
        let cp = self.ptr(call, "C", c, mspan_ld(call, "ldc", n, n, ldc)?)?;
        self.bind_host()?;
        let (h, u) = (self.h, fill(uplo));
        let (al, be) = (HostScalar(alpha), HostScalar(beta));
        // SAFETY: A and B span op(A)'s and op(B)'s stored matrices at lda and ldb, C an n x n
        // matrix at ldc (checked above, overflow-safe); all on this handle's device; C aliases
        // no input; alpha and beta are aligned host values of T living until the call returns.
        let s = unsafe {
            typed!(
                T,
                cublasSsyr2k_v2,
                cublasDsyr2k_v2,
                cublasCsyr2k_v2,
                cublasZsyr2k_v2,
                (
                    h,
                    u,
                    t,
                    ni,
                    ki,
                    al.ptr() as _,
                    ap as _,
                    ldai,
                    bp as _,
                    ldbi,
                    be.ptr() as _,
                    cp as _,
                    ldci
                )
            )
        };
        check("cublas?syr2k_v2", s)
    }

    /// `C = alpha A B + beta C` (`Side::Left`, `A` of order `m`) or `alpha B A + beta C`
    /// (`Side::Right`, order `n`), `A` symmetric with only its `uplo` triangle read, `B` and
    /// `C` `m × n` (`cublas?symm_v2`).
    #[allow(clippy::too_many_arguments)]
    pub fn symm<T: CublasScalar>(
        &self,
        side: Side,
        uplo: Uplo,
        m: usize,
        n: usize,
        alpha: T,
        a: &DeviceBuffer<T>,
        lda: usize,
        b: &DeviceBuffer<T>,
        ldb: usize,
        beta: T,
        c: &mut DeviceBuffer<T>,
        ldc: usize,
    ) -> Result<(), Error> {
        let call = "symm";
        let ka = if side == Side::Left { m } else { n };
        let (mi, ni) = (int(call, "m", m)?, int(call, "n", n)?);
        let (ldai, ldbi, ldci) = (
            int(call, "lda", lda)?,
            int(call, "ldb", ldb)?,
            int(call, "ldc", ldc)?,
        );
        let ap = self.ptr(call, "A", a, mspan_ld(call, "lda", ka, ka, lda)?)?;
        let bp = self.ptr(call, "B", b, mspan_ld(call, "ldb", m, n, ldb)?)?;
        let cp = self.ptr(call, "C", c, mspan_ld(call, "ldc", m, n, ldc)?)?;
        self.bind_host()?;
        let (h, sd, u) = (self.h, side_mode(side), fill(uplo));
        let (al, be) = (HostScalar(alpha), HostScalar(beta));
        // SAFETY: A spans a square matrix of the order `side` names at lda, B and C m x n
        // matrices at ldb and ldc (checked above, overflow-safe); all on this handle's device;
        // C aliases no input; alpha and beta are aligned host values living until the call
        // returns.
        let s = unsafe {
            typed!(
                T,
                cublasSsymm_v2,
                cublasDsymm_v2,
                cublasCsymm_v2,
                cublasZsymm_v2,
                (
                    h,
                    sd,
                    u,
                    mi,
                    ni,
                    al.ptr() as _,
                    ap as _,
                    ldai,
                    bp as _,
                    ldbi,
                    be.ptr() as _,
                    cp as _,
                    ldci
                )
            )
        };
        check("cublas?symm_v2", s)
    }

    /// `B = alpha op(A) B` (`Side::Left`, `A` of order `m`) or `B = alpha B op(A)`
    /// (`Side::Right`, order `n`), `A` triangular, `B` `m × n` overwritten: BLAS's in-place
    /// `?trmm`. cuBLAS's `cublas?trmm_v2` is out of place (`C = alpha op(A) B`); it is called
    /// with `C = B`, `ldc = ldb`, which its documentation gives as the way to get the in-place
    /// operation.
    #[allow(clippy::too_many_arguments)]
    pub fn trmm<T: CublasScalar>(
        &self,
        side: Side,
        uplo: Uplo,
        op: Op,
        diag: Diag,
        m: usize,
        n: usize,
        alpha: T,
        a: &DeviceBuffer<T>,
        lda: usize,
        b: &mut DeviceBuffer<T>,
        ldb: usize,
    ) -> Result<(), Error> {
        let call = "trmm";
        let ka = if side == Side::Left { m } else { n };
        let (mi, ni) = (int(call, "m", m)?, int(call, "n", n)?);
        let (ldai, ldbi) = (int(call, "lda", lda)?, int(call, "ldb", ldb)?);
        let ap = self.ptr(call, "A", a, mspan_ld(call, "lda", ka, ka, lda)?)?;
        let bp = self.ptr(call, "B", b, mspan_ld(call, "ldb", m, n, ldb)?)?;
        self.bind_host()?;
        let (h, sd, u, t, d) = (
            self.h,
            side_mode(side),
            fill(uplo),
            trans(op),
            diag_type(diag),
        );
        let al = HostScalar(alpha);
        // SAFETY: A spans a square matrix of the order `side` names at lda, B an m x n matrix
        // at ldb (checked above, overflow-safe); both on this handle's device; B is exclusively
        // borrowed and passed as both B and C with ldc = ldb (cuBLAS's documented in-place
        // form; no other operands overlap); alpha is an aligned host value living until the
        // call returns.
        let s = unsafe {
            typed!(
                T,
                cublasStrmm_v2,
                cublasDtrmm_v2,
                cublasCtrmm_v2,
                cublasZtrmm_v2,
                (
                    h,
                    sd,
                    u,
                    t,
                    d,
                    mi,
                    ni,
                    al.ptr() as _,
                    ap as _,
                    ldai,
                    bp as _,
                    ldbi,
                    bp as _,
                    ldbi
                )
            )
        };
        check("cublas?trmm_v2", s)
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

/// Device arrays of per-entry pointers for cuBLAS's pointer-array batched triangular solve
/// ([`Cublas::trsm_batched`]): entry `i` of `A` at `a + i * stride_a` elements, of `B` at
/// `b + i * stride_b`. Built once by [`Cublas::batch_ptrs`] (a synchronous upload) so the
/// solves themselves upload nothing; the wrapper checks that the buffers, strides and count
/// it is called with are the ones the arrays were built for.
pub struct CublasBatchPtrs {
    a: DeviceBuffer<u64>,
    b: DeviceBuffer<u64>,
    key: BatchKey,
}

/// What a [`CublasBatchPtrs`] was built for: element size, base addresses, strides, count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BatchKey {
    elem: usize,
    a: u64,
    stride_a: usize,
    b: u64,
    stride_b: usize,
    batch: usize,
}

impl CublasBatchPtrs {
    /// The number of entries the arrays hold.
    pub fn batch(&self) -> usize {
        self.key.batch
    }
}

/// `base + i * stride` elements of `elem` bytes for `i < batch`, overflow-checked.
fn entry_addrs(
    call: &str,
    what: &str,
    base: u64,
    elem: usize,
    stride: usize,
    batch: usize,
) -> Result<Vec<u64>, Error> {
    let step = stride
        .checked_mul(elem)
        .and_then(|s| u64::try_from(s).ok())
        .ok_or_else(|| {
            Error::InvalidValue(format!(
                "cuBLAS {call}: {what} stride {stride} overflows the address space"
            ))
        })?;
    (0..batch as u64)
        .map(|i| {
            i.checked_mul(step)
                .and_then(|o| base.checked_add(o))
                .ok_or_else(|| {
                    Error::InvalidValue(format!(
                        "cuBLAS {call}: entry {i} of {what} overflows the address space"
                    ))
                })
        })
        .collect()
}

/// Level 3 triangular solves: `alpha` is a host value (pointer mode HOST).
impl Cublas {
    /// Solves `op(A) X = alpha B` (`Side::Left`, `A` of order `m`) or `X op(A) = alpha B`
    /// (`Side::Right`, order `n`), `A` triangular with only its `uplo` triangle read (and not
    /// its diagonal for `Diag::Unit`), `B` `m × n` overwritten with `X` (`cublas?trsm_v2`, in
    /// place).
    #[allow(clippy::too_many_arguments)]
    pub fn trsm<T: CublasScalar>(
        &self,
        side: Side,
        uplo: Uplo,
        op: Op,
        diag: Diag,
        m: usize,
        n: usize,
        alpha: T,
        a: &DeviceBuffer<T>,
        lda: usize,
        b: &mut DeviceBuffer<T>,
        ldb: usize,
    ) -> Result<(), Error> {
        let call = "trsm";
        let ka = if side == Side::Left { m } else { n };
        let (mi, ni) = (int(call, "m", m)?, int(call, "n", n)?);
        let (ldai, ldbi) = (int(call, "lda", lda)?, int(call, "ldb", ldb)?);
        let ap = self.ptr(call, "A", a, mspan_ld(call, "lda", ka, ka, lda)?)?;
        let bp = self.ptr(call, "B", b, mspan_ld(call, "ldb", m, n, ldb)?)?;
        self.bind_host()?;
        let (h, sd, u, t, d) = (
            self.h,
            side_mode(side),
            fill(uplo),
            trans(op),
            diag_type(diag),
        );
        let al = HostScalar(alpha);
        // SAFETY: A spans a square matrix of the order `side` names at lda, B an m x n matrix
        // at ldb (both ld >= max(1, rows), checked above, overflow-safe); both on this
        // handle's device; B is exclusively borrowed, so it aliases no input; alpha is an
        // aligned host value of T living until the call returns.
        let s = unsafe {
            typed!(
                T,
                cublasStrsm_v2,
                cublasDtrsm_v2,
                cublasCtrsm_v2,
                cublasZtrsm_v2,
                (
                    h,
                    sd,
                    u,
                    t,
                    d,
                    mi,
                    ni,
                    al.ptr() as _,
                    ap as _,
                    ldai,
                    bp as _,
                    ldbi
                )
            )
        };
        check("cublas?trsm_v2", s)
    }

    /// The pointer arrays [`Self::trsm_batched`] needs for `batch` entries of `a` and `b` at
    /// strides `stride_a` and `stride_b` (elements): two device arrays of `batch` addresses,
    /// uploaded now (synchronously). Keep them for as many calls as the buffers live; the
    /// addresses are checked again at each call.
    pub fn batch_ptrs<T: CublasScalar>(
        &self,
        a: &DeviceBuffer<T>,
        stride_a: usize,
        b: &DeviceBuffer<T>,
        stride_b: usize,
        batch: usize,
    ) -> Result<CublasBatchPtrs, Error> {
        let call = "batch_ptrs";
        let elem = std::mem::size_of::<T>();
        let ap = self.ptr(call, "A", a, 0)?;
        let bp = self.ptr(call, "B", b, 0)?;
        let pa = entry_addrs(call, "A", ap, elem, stride_a, batch)?;
        let pb = entry_addrs(call, "B", bp, elem, stride_b, batch)?;
        // One element at least: an empty batch still gets real (unread) allocations.
        let up = |v: &[u64]| {
            if v.is_empty() {
                self.dev.alloc::<u64>(1)
            } else {
                self.dev.upload(v)
            }
        };
        Ok(CublasBatchPtrs {
            a: up(&pa)?,
            b: up(&pb)?,
            key: BatchKey {
                elem,
                a: ap,
                stride_a,
                b: bp,
                stride_b,
                batch,
            },
        })
    }

    /// [`Self::trsm`] of `batch` entries at fixed strides (elements) in one buffer per operand,
    /// through `cublas?trsmBatched` with the pointer arrays `ptrs` built by
    /// [`Self::batch_ptrs`] for exactly these buffers, strides and count (checked); entries of
    /// `B` must not overlap (entries of `A` may, e.g. stride 0 to share one triangle).
    #[allow(clippy::too_many_arguments)]
    pub fn trsm_batched<T: CublasScalar>(
        &self,
        side: Side,
        uplo: Uplo,
        op: Op,
        diag: Diag,
        m: usize,
        n: usize,
        alpha: T,
        a: &DeviceBuffer<T>,
        lda: usize,
        stride_a: usize,
        b: &mut DeviceBuffer<T>,
        ldb: usize,
        stride_b: usize,
        batch: usize,
        ptrs: &CublasBatchPtrs,
    ) -> Result<(), Error> {
        let call = "trsmBatched";
        let ka = if side == Side::Left { m } else { n };
        let (mi, ni) = (int(call, "m", m)?, int(call, "n", n)?);
        let (ldai, ldbi) = (int(call, "lda", lda)?, int(call, "ldb", ldb)?);
        let bi = int(call, "batch", batch)?;
        let (one_a, one_b) = (
            mspan_ld(call, "lda", ka, ka, lda)?,
            mspan_ld(call, "ldb", m, n, ldb)?,
        );
        no_overlap(call, "B", one_b, stride_b, batch)?;
        let ap = self.ptr(call, "A", a, bspan(call, "A", one_a, stride_a, batch)?)?;
        let bp = self.ptr(call, "B", b, bspan(call, "B", one_b, stride_b, batch)?)?;
        let key = BatchKey {
            elem: std::mem::size_of::<T>(),
            a: ap,
            stride_a,
            b: bp,
            stride_b,
            batch,
        };
        if ptrs.key != key {
            return Err(Error::InvalidValue(format!(
                "cuBLAS {call}: the pointer arrays were built for {:?}, the call is {key:?}",
                ptrs.key
            )));
        }
        let pa = self.ptr(call, "the A pointer array", &ptrs.a, batch)?;
        let pb = self.ptr(call, "the B pointer array", &ptrs.b, batch)?;
        if batch == 0 {
            return Ok(());
        }
        self.bind_host()?;
        let (h, sd, u, t, d) = (
            self.h,
            side_mode(side),
            fill(uplo),
            trans(op),
            diag_type(diag),
        );
        let al = HostScalar(alpha);
        // SAFETY: the pointer arrays hold `batch` addresses base + i * stride (elements of T)
        // of exactly these A and B buffers (the key, checked above), each on this handle's
        // device; A and B hold (batch - 1) * stride + one entry's span elements, so every
        // entry lies inside its buffer (each ld >= max(1, rows), overflow-safe); entries of B
        // do not overlap and B is exclusively borrowed (aliases no A entry); alpha is an
        // aligned host value of T living until the call returns.
        let s = unsafe {
            typed!(
                T,
                cublasStrsmBatched,
                cublasDtrsmBatched,
                cublasCtrsmBatched,
                cublasZtrsmBatched,
                (
                    h,
                    sd,
                    u,
                    t,
                    d,
                    mi,
                    ni,
                    al.ptr() as _,
                    pa as _,
                    ldai,
                    pb as _,
                    ldbi,
                    bi
                )
            )
        };
        check("cublas?trsmBatched", s)
    }
}

/// LU factorization of small matrices in a batch (benchmarks of `gpublas bench solver`).
impl Cublas {
    /// LU factorization with partial pivoting of `batch` `n × n` matrices `stride_a` elements
    /// apart in `a`, in place (`cublas?getrfBatched`, real types), through the pointer array
    /// `ptrs` built by [`BatchPtrArray::new`](super::cusolver::BatchPtrArray::new) for exactly
    /// this buffer, stride and count (checked). Entry `i`'s `n` 1-based pivots go to
    /// `ipiv[i * n ..]`, its `info` (0, or `j > 0` when `U(j, j)` is exactly zero) to
    /// `info[i]`. Entries must not overlap.
    #[allow(clippy::too_many_arguments)]
    pub fn getrf_batched<T: CublasReal>(
        &self,
        n: usize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
        stride_a: usize,
        ipiv: &mut DeviceBuffer<i32>,
        info: &mut DeviceBuffer<i32>,
        batch: usize,
        ptrs: &super::cusolver::BatchPtrArray,
    ) -> Result<(), Error> {
        let call = "getrfBatched";
        let sh = super::cusolver::GetrfBatchedShape::new(n, lda, stride_a, batch)?;
        let ap = self.ptr(call, "A", a, sh.a_span)?;
        let pa = ptrs.addr_for::<T>("cuBLAS getrfBatched", &self.dev, ap, stride_a, batch)?;
        let pp = self.ptr(call, "ipiv", ipiv, sh.piv)?;
        let ip = self.ptr(call, "info", info, batch)?;
        if batch == 0 {
            return Ok(());
        }
        // No scalars: keep whichever pointer mode the handle has.
        self.bind_with(self.host_scalars.get())?;
        let h = self.h;
        // SAFETY: the pointer array holds `batch` addresses base + i * stride_a (elements of
        // T) of exactly this A buffer on this handle's device (its key, checked above); A holds
        // (batch - 1) * stride_a + one entry's span elements, so every n x n entry at lda >=
        // max(1, n) lies inside it, and the entries do not overlap; ipiv holds n * batch ints
        // and info `batch` (overflow-safe); A, ipiv and info are exclusively borrowed, so they
        // alias nothing else.
        let s = unsafe {
            if T::DOUBLE {
                sys::cublasDgetrfBatched(h, sh.n, pa as _, sh.lda, pp as _, ip as _, sh.batch)
            } else {
                sys::cublasSgetrfBatched(h, sh.n, pa as _, sh.lda, pp as _, ip as _, sh.batch)
            }
        };
        check("cublas?getrfBatched", s)
    }
}
