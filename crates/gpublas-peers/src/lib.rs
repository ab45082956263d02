//! The peers gpublas's benchmarks compare against: cuBLAS (`cublas`), cuSOLVER (`cusolver`)
//! and the host link's plain copies (`copy`), called on gpublas devices, streams and buffers
//! (CUDA only). Not part of the library: only `gpublas bench` (feature `cublas` of the CLI)
//! uses this crate, so the library holds no code that only benchmarks call.
//!
//! Every wrapper checks its arguments before the raw call (sizes, leading dimensions,
//! increments, buffers of the right device holding every element the call can touch) and
//! records its stream on the buffers it is given ([`gpublas::DeviceBuffer::mark_used`]), so a
//! download after a peer call waits for it.

pub mod copy;
pub mod cublas;
pub mod cusolver;

use std::sync::OnceLock;

use gpublas::device::libs;
use gpublas::Error;

/// A failed library call, named.
pub(crate) fn driver_error(op: impl Into<String>, msg: impl std::fmt::Display) -> Error {
    Error::Driver {
        op: op.into(),
        msg: msg.to_string(),
    }
}

/// Makes sure cuBLAS can be loaded (from the folders gpublas searches for CUDA libraries).
pub(crate) fn ensure_cublas() -> Result<(), Error> {
    static CUBLAS: OnceLock<Result<(), Error>> = OnceLock::new();
    CUBLAS
        .get_or_init(|| {
            libs::preload(&["libcublasLt.so.13"]);
            libs::preload(&["libcublas.so.13", "libcublas.so"]);
            // SAFETY: only tries to dlopen the library by its candidate names.
            if unsafe { cudarc::cublas::sys::is_culib_present() } {
                Ok(())
            } else {
                Err(Error::LibraryMissing(
                    "cuBLAS (libcublas.so.13) was not found".into(),
                ))
            }
        })
        .clone()
}
