//! cuBLAS, only to compare against in benchmarks (feature `cublas`).

use cudarc::cublas::sys;

use super::{libs, DeviceBuffer, Element, Stream, StreamKind};
use crate::Error;

/// Level-1 routines cuBLAS is compared on.
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
pub trait CublasReal: Element {
    #[doc(hidden)]
    const DOUBLE: bool;
}
impl CublasReal for f32 {
    const DOUBLE: bool = false;
}
impl CublasReal for f64 {
    const DOUBLE: bool = true;
}

/// A cuBLAS handle on a stream, with results in device memory (so calls never synchronise).
pub struct Cublas {
    h: sys::cublasHandle_t,
}

fn check(op: &str, s: sys::cublasStatus_t) -> Result<(), Error> {
    if s == sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(Error::driver(op, format!("{s:?}")))
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
        // SAFETY: plain handle creation; the stream belongs to the current context.
        unsafe {
            check("cublasCreate", sys::cublasCreate_v2(&mut h))?;
            let c = Cublas { h };
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
        let want = if op == CublasOp::Iamax {
            4
        } else {
            std::mem::size_of::<T>()
        };
        if x.len() < n
            || y.len() < n
            || result.is_empty()
            || std::mem::size_of::<R>() != want
            || n > i32::MAX as usize
        {
            return Err(Error::InvalidValue(format!(
                "cuBLAS {op:?}: n = {n}, x {} and y {} elements, result of {} bytes (needs {want})",
                x.len(),
                y.len(),
                std::mem::size_of::<R>()
            )));
        }
        let (xp, yp, rp) = (
            x.device_ptr().unwrap_or(0),
            y.device_ptr().unwrap_or(0),
            result.device_ptr().unwrap_or(0),
        );
        if xp == 0 || yp == 0 || rp == 0 {
            return Err(Error::InvalidPointer(
                "cuBLAS operands must be device memory".into(),
            ));
        }
        let n = n as i32;
        // SAFETY: x and y hold at least n elements of T, result at least one R of the right
        // size (checked above); all on this handle's device.
        let s = unsafe {
            match (op, T::DOUBLE) {
                (CublasOp::Asum, false) => sys::cublasSasum_v2(self.h, n, xp as _, 1, rp as _),
                (CublasOp::Asum, true) => sys::cublasDasum_v2(self.h, n, xp as _, 1, rp as _),
                (CublasOp::Nrm2, false) => sys::cublasSnrm2_v2(self.h, n, xp as _, 1, rp as _),
                (CublasOp::Nrm2, true) => sys::cublasDnrm2_v2(self.h, n, xp as _, 1, rp as _),
                (CublasOp::Dot, false) => {
                    sys::cublasSdot_v2(self.h, n, xp as _, 1, yp as _, 1, rp as _)
                }
                (CublasOp::Dot, true) => {
                    sys::cublasDdot_v2(self.h, n, xp as _, 1, yp as _, 1, rp as _)
                }
                (CublasOp::Iamax, false) => sys::cublasIsamax_v2(self.h, n, xp as _, 1, rp as _),
                (CublasOp::Iamax, true) => sys::cublasIdamax_v2(self.h, n, xp as _, 1, rp as _),
            }
        };
        check("cuBLAS Level-1 call", s)
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
