//! gpublas: GPU BLAS and LAPACK routines whose handles own their scratch memory.
//!
//! Every routine takes a [`Handle`] first and borrows scratch ("workspace") memory from it,
//! under the memory model of rocBLAS/rocSOLVER (four schemes: managed, user-managed by
//! environment or by call, user-owned; size queries; stream-ordered allocation). Two backends
//! share one semantics: CUDA (NVIDIA GPUs, kernels compiled at run time by NVRTC) and host
//! (the CPU).
//!
//! ```
//! use gpublas::{blas1, Device, Handle, Results};
//! let dev = Device::host();
//! let mut h = Handle::new(&dev)?;
//! let x = dev.upload(&[3.0f64, -4.0])?;
//! let mut r = [0.0f64];
//! let _ = blas1::nrm2(&mut h, 2, &x, 1, Results::Host(&mut r))?;
//! assert_eq!(r[0], 5.0);
//! # Ok::<(), gpublas::Error>(())
//! ```
#![warn(missing_docs)]

pub mod blas1;
pub mod blas2;
pub mod blas3;
mod common;
pub mod device;
mod eig;
mod enums;
mod error;
mod exec;
mod handle;
pub mod kernels;
pub mod memory;
pub mod multi;
mod qr;
pub mod solver;

/// How many elements a buffer must hold for a BLAS operand layout (the spans every routine
/// checks its operands against); `None` when the count overflows.
pub mod spans {
    pub use crate::common::operand::{mat_span, packed_span, vec_span};
}
pub mod transfer;

pub use common::elem::{ComplexScalar, ExAcc, ExInput, RealScalar, Scalar};
pub use common::operand::Results;
pub use common::types::Coef;
pub use device::{Backend, Device, DeviceBuffer, Element, Graph, PinnedBuffer, Stream, Timer};
pub use enums::{Diag, Esort, Evect, Op, Side, Uplo};
pub use error::{Error, Status};
pub use half::{bf16, f16};
pub use handle::Handle;
pub use memory::{HandleConfig, WorkspaceLease, WorkspaceMode, WorkspaceSlice, WorkspaceStats};
pub use num_complex::{Complex32, Complex64};

/// The README's example, compiled and run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
