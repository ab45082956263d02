//! `Status` and `Error`, the two outcomes of every call (SPEC F5, M16).

/// What a successful call did.
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// The call ran with the workspace it wanted.
    Success,
    /// The call ran a reduced-workspace algorithm because a fixed workspace was too small (M6).
    PerfDegraded,
    /// During a size query: this call's need raised the running size (M8).
    SizeIncreased,
    /// During a size query: this call's need fit in the running size (M8).
    SizeUnchanged,
}

/// Every way a gpublas call can fail. Messages name the values involved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A size or shape argument is invalid (negative-like, overflowing, inconsistent).
    #[error("invalid size: {0}")]
    InvalidSize(String),
    /// A value is not accepted (an environment variable, an operand that is too short, …).
    #[error("invalid value: {0}")]
    InvalidValue(String),
    /// A pointer is misaligned, a placeholder where memory is needed, or on another device.
    #[error("invalid pointer: {0}")]
    InvalidPointer(String),
    /// Not enough memory: `needed` bytes were asked for, `available` could be had.
    #[error("out of memory: needs {needed} bytes, {available} bytes available; {detail}")]
    MemoryError {
        /// Bytes the call needed.
        needed: usize,
        /// Bytes that were available to it.
        available: usize,
        /// What happened and how to fix it.
        detail: String,
    },
    /// A size-query call out of order (stop without start, start twice, lease during a query).
    #[error("size-query mismatch: {0}")]
    QueryMismatch(String),
    /// The device or backend cannot do this.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A CUDA library (driver, NVRTC, cuBLAS) could not be found.
    #[error("library missing: {0}")]
    LibraryMissing(String),
    /// A CUDA driver or NVRTC call failed.
    #[error("CUDA error in {op}: {msg}")]
    Driver {
        /// The operation that failed.
        op: String,
        /// The driver's message.
        msg: String,
    },
}

impl Error {
    pub(crate) fn driver(op: impl Into<String>, msg: impl std::fmt::Display) -> Self {
        Error::Driver {
            op: op.into(),
            msg: msg.to_string(),
        }
    }
}
