//! Peers of the transfers for `gpublas bench aux` (benchmarks only): cuBLAS's
//! `cublasSetVector`/`GetVector`/`SetMatrix`/`GetMatrix` (synchronous, legacy stream) and a
//! plain contiguous copy of the same bytes (the host link's ceiling).

use crate::{driver_error, ensure_cublas};
use cudarc::cublas::sys as cb;
use cudarc::driver::sys;
use gpublas::{Backend, DeviceBuffer, Element, Error};
use std::ffi::c_void;

/// Which way a peer copy goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Way {
    /// Host to device.
    Set,
    /// Device to host.
    Get,
}

fn cuda_addr<T: Element>(b: &DeviceBuffer<T>) -> Result<u64, Error> {
    match (b.device(), b.device_ptr()) {
        (Some(d), Some(ptr)) if d.backend() == Backend::Cuda => {
            d.bind_to_thread()?;
            Ok(ptr)
        }
        _ => Err(Error::Unsupported(
            "the cuBLAS peers need a CUDA buffer".into(),
        )),
    }
}

fn span(count: usize, inc: usize, run: usize) -> usize {
    if count == 0 {
        0
    } else {
        (count - 1) * inc + run
    }
}

fn int(v: usize, what: &str) -> Result<i32, Error> {
    i32::try_from(v).map_err(|_| Error::InvalidSize(format!("{what} = {v} exceeds cuBLAS's int")))
}

fn check(op: &str, s: cb::cublasStatus_t) -> Result<(), Error> {
    if s == cb::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(driver_error(op, format!("{s:?}")))
    }
}

/// `cublasSetVector`/`cublasGetVector` of `n` elements, host increment `hinc`, device
/// increment `dinc` (positive).
pub fn cublas_vector<T: Element>(
    way: Way,
    n: usize,
    host: &mut [T],
    hinc: usize,
    dev: &mut DeviceBuffer<T>,
    dinc: usize,
) -> Result<(), Error> {
    ensure_cublas()?;
    let d = cuda_addr(dev)?;
    if host.len() < span(n, hinc, 1) || dev.len() < span(n, dinc, 1) {
        return Err(Error::InvalidValue(
            "cublas_vector: a buffer is too short".into(),
        ));
    }
    let e = int(std::mem::size_of::<T>(), "element size")?;
    let (n, hi, di) = (int(n, "n")?, int(hinc, "incx")?, int(dinc, "incy")?);
    // SAFETY: both ranges were checked above; the calls are synchronous.
    unsafe {
        match way {
            Way::Set => check(
                "cublasSetVector",
                cb::cublasSetVector(
                    n,
                    e,
                    host.as_ptr() as *const c_void,
                    hi,
                    d as *mut c_void,
                    di,
                ),
            ),
            Way::Get => check(
                "cublasGetVector",
                cb::cublasGetVector(
                    n,
                    e,
                    d as *const c_void,
                    di,
                    host.as_mut_ptr() as *mut c_void,
                    hi,
                ),
            ),
        }
    }
}

/// `cublasSetMatrix`/`cublasGetMatrix` of `rows × cols`, host leading dimension `hld`, device
/// leading dimension `dld`.
pub fn cublas_matrix<T: Element>(
    way: Way,
    rows: usize,
    cols: usize,
    host: &mut [T],
    hld: usize,
    dev: &mut DeviceBuffer<T>,
    dld: usize,
) -> Result<(), Error> {
    ensure_cublas()?;
    let d = cuda_addr(dev)?;
    if host.len() < span(cols, hld, rows) || dev.len() < span(cols, dld, rows) {
        return Err(Error::InvalidValue(
            "cublas_matrix: a buffer is too short".into(),
        ));
    }
    let e = int(std::mem::size_of::<T>(), "element size")?;
    let (r, c) = (int(rows, "rows")?, int(cols, "cols")?);
    let (hl, dl) = (int(hld, "lda")?, int(dld, "ldb")?);
    // SAFETY: both ranges were checked above; the calls are synchronous.
    unsafe {
        match way {
            Way::Set => check(
                "cublasSetMatrix",
                cb::cublasSetMatrix(
                    r,
                    c,
                    e,
                    host.as_ptr() as *const c_void,
                    hl,
                    d as *mut c_void,
                    dl,
                ),
            ),
            Way::Get => check(
                "cublasGetMatrix",
                cb::cublasGetMatrix(
                    r,
                    c,
                    e,
                    d as *const c_void,
                    dl,
                    host.as_mut_ptr() as *mut c_void,
                    hl,
                ),
            ),
        }
    }
}

/// One plain contiguous copy of `host.len()` elements to or from the start of `dev`
/// (`cuMemcpyHtoD`/`DtoH`, synchronous): the ceiling the transfers are measured against.
pub fn plain_copy<T: Element>(
    way: Way,
    host: &mut [T],
    dev: &mut DeviceBuffer<T>,
) -> Result<(), Error> {
    let d = cuda_addr(dev)?;
    if dev.len() < host.len() {
        return Err(Error::InvalidValue(
            "plain_copy: the device buffer is too short".into(),
        ));
    }
    let bytes = std::mem::size_of_val(host);
    // SAFETY: both ranges were checked above; the copies are synchronous.
    let r = unsafe {
        match way {
            Way::Set => sys::cuMemcpyHtoD_v2(d, host.as_ptr() as *const c_void, bytes),
            Way::Get => sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, d, bytes),
        }
    };
    r.result().map_err(|e| driver_error("cuMemcpy", e))?;
    // From pageable memory the call may return before the DMA lands: wait for it.
    // (A benchmark of the host link alone: waiting for the whole device is what it measures.)
    match dev.device() {
        Some(d) => d.synchronize(),
        None => Ok(()),
    }
}
