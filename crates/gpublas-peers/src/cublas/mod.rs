//! cuBLAS, only to compare against in benchmarks.
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

use crate::{driver_error, ensure_cublas};
use gpublas::spans::{mat_span, vec_span};
use gpublas::{
    bf16, f16, Backend, Device, DeviceBuffer, Diag, Element, Error, Op, Side, Stream, Uplo,
};

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
        Err(driver_error(op, format!("{s:?}")))
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
        if stream.device().backend() != Backend::Cuda {
            return Err(Error::Unsupported("cuBLAS on the host backend".into()));
        }
        ensure_cublas()?;
        stream.device().bind_to_thread()?;
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
                sys::cublasSetStream_v2(h, stream.as_raw() as _),
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
        self.dev.bind_to_thread()?;
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
        let Some(addr) = buf
            .device()
            .filter(|d| d.same_as(&self.dev))
            .and(buf.device_ptr())
        else {
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
}

impl Drop for Cublas {
    fn drop(&mut self) {
        // SAFETY: the handle was created by cublasCreate and is destroyed once.
        unsafe {
            let _ = sys::cublasDestroy_v2(self.h);
        }
    }
}

// After `typed!`, which they use (macros are in scope from their definition on).
mod blas1;
mod blas2;
mod blas2_more;
mod blas3;
mod solve;

pub use solve::CublasBatchPtrs;
