//! Helpers every family's host backend uses: reference-BLAS vector indexing, scalars read
//! per batch entry, and the error for an operand that is not host memory.

use crate::{Coef, Error, Scalar};

/// The error of a host call given memory that is not host memory (the checks before the
/// call make this unreachable through the public API).
pub(crate) fn not_host() -> Error {
    Error::InvalidPointer("an operand of a host call is not host memory".into())
}

/// The value of a scalar for batch entry `e`.
pub(crate) fn coef_value<T: Scalar>(c: &Coef<'_, T>, e: usize) -> Result<T, Error> {
    match c {
        Coef::Host(v) => Ok(*v),
        Coef::Device(b) => b.host_slice().map(|s| s[0]).ok_or_else(not_host),
        Coef::DevicePerEntry(b) => b.host_slice().map(|s| s[e]).ok_or_else(not_host),
    }
}

/// Index of logical element `i` of a vector of `len` at a non-zero increment `inc` (reference
/// BLAS: a negative increment walks the vector backwards).
pub(crate) fn at(len: usize, inc: isize, i: usize) -> usize {
    if inc > 0 {
        i * inc as usize
    } else {
        (len - 1 - i) * inc.unsigned_abs()
    }
}
