//! The executor's workspace parts by name, as every program that runs on it borrows them.

use crate::memory::WorkspaceSlice;
use crate::WorkspaceLease;

/// Scalar slots per batch entry, one per `program::K`: alpha, conj(alpha), beta, 1, 0, -1.
pub(crate) const SLOTS: usize = 6;

/// The executor's workspace parts: their sizes in bytes (`BlockWorkspace<usize>`, from a
/// family's plan), or the sub-buffers a lease holds for them (`BlockWorkspace::leased`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BlockWorkspace<S> {
    /// cuBLASLt's workspace.
    pub lt: S,
    /// Device scalars as per-entry slots (`SLOTS` elements per entry).
    pub slots: S,
    /// E: diagonal blocks, expanded or inverted (and the solver's Cholesky update blocks).
    pub e_blocks: S,
    /// R: result blocks and chunks, products' temporaries.
    pub r_results: S,
}

impl BlockWorkspace<usize> {
    /// How many sub-buffers the parts take in a lease.
    pub(crate) const PARTS: usize = 4;

    /// The sizes in lease order: cuBLASLt first, as its workspace must be 256-byte aligned and
    /// the lease start is.
    pub(crate) fn list(&self) -> [usize; Self::PARTS] {
        [self.lt, self.slots, self.e_blocks, self.r_results]
    }
}

impl BlockWorkspace<Option<WorkspaceSlice>> {
    /// The parts of a lease whose sub-buffers from `first` on were laid out by `list`.
    pub(crate) fn leased(lease: &WorkspaceLease<'_>, first: usize) -> Self {
        BlockWorkspace {
            lt: lease.buffer(first),
            slots: lease.buffer(first + 1),
            e_blocks: lease.buffer(first + 2),
            r_results: lease.buffer(first + 3),
        }
    }
}
