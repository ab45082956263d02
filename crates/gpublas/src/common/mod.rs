//! Pieces every routine family stands on: element types, BLAS enums and scalars, batch
//! layouts and the operand checker, and the path from a plan to a lease.

pub(crate) mod elem;
pub(crate) mod faer_host;
pub(crate) mod host;
pub(crate) mod operand;
pub(crate) mod plan;
pub(crate) mod types;
