//! The per-handle workspace memory model (SPEC M1–M16): modes, leases, size queries,
//! environment settings and statistics.

mod env;
mod lease;
mod stats;
mod workspace;

pub use env::{
    parse_size, round_up, rounded_total, HandleConfig, CHUNK, DEFAULT_WORKSPACE_BYTES,
    DEVICE_MEMORY_SIZE_VAR, STREAM_ORDER_ALLOC_VAR,
};
pub(crate) use lease::address;
pub use lease::{WorkspaceLease, WorkspaceSlice};
pub(crate) use stats::Counters;
pub use stats::WorkspaceStats;
pub(crate) use workspace::{front_and_total, FrontHold, Storage};

/// Who owns a handle's workspace (M1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WorkspaceMode {
    /// The library: grows on demand, synchronising (or stream-ordered, M11).
    Managed,
    /// Sized by the user, allocated by the library; never grows.
    UserManaged,
    /// Memory the user handed in; never grows, never freed by the library.
    UserOwned,
}
