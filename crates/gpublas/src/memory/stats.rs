//! Workspace statistics (M14).

use std::cell::Cell;

use super::WorkspaceMode;

/// A snapshot of a handle's workspace statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkspaceStats {
    /// Who owns the workspace now.
    pub mode: WorkspaceMode,
    /// Bytes the workspace holds now (not what is in use).
    pub capacity: usize,
    /// Most bytes leased at once (nested leases included).
    pub peak_leased: usize,
    /// Leases made.
    pub leases: u64,
    /// Synchronising allocations made to grow a `Managed` workspace.
    pub growths: u64,
    /// Stream-ordered allocations made for leases.
    pub stream_ordered_allocs: u64,
    /// Calls that ran a reduced-workspace algorithm (`Status::PerfDegraded`).
    pub degraded_calls: u64,
    /// Calls that failed with `Error::MemoryError`.
    pub memory_errors: u64,
    /// Size queries completed.
    pub queries: u64,
}

impl std::fmt::Display for WorkspaceStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "mode {:?}, capacity {} B, peak leased {} B, {} leases, {} growths, {} stream-ordered allocations, \
             {} degraded calls, {} memory errors, {} queries",
            self.mode,
            self.capacity,
            self.peak_leased,
            self.leases,
            self.growths,
            self.stream_ordered_allocs,
            self.degraded_calls,
            self.memory_errors,
            self.queries
        )
    }
}

/// The live counters; `Cell`s because leases update them through a shared borrow of the handle.
#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) leased_now: Cell<usize>,
    pub(crate) peak_leased: Cell<usize>,
    pub(crate) leases: Cell<u64>,
    pub(crate) growths: Cell<u64>,
    pub(crate) stream_ordered_allocs: Cell<u64>,
    pub(crate) degraded_calls: Cell<u64>,
    pub(crate) memory_errors: Cell<u64>,
    pub(crate) queries: Cell<u64>,
}

pub(crate) fn bump(c: &Cell<u64>) {
    c.set(c.get() + 1);
}

impl Counters {
    pub(crate) fn lease_started(&self, bytes: usize) {
        bump(&self.leases);
        let now = self.leased_now.get() + bytes;
        self.leased_now.set(now);
        if now > self.peak_leased.get() {
            self.peak_leased.set(now);
        }
    }

    pub(crate) fn lease_ended(&self, bytes: usize) {
        self.leased_now
            .set(self.leased_now.get().saturating_sub(bytes));
    }

    pub(crate) fn reset(&self) {
        self.peak_leased.set(self.leased_now.get());
        for c in [
            &self.leases,
            &self.growths,
            &self.stream_ordered_allocs,
            &self.degraded_calls,
            &self.memory_errors,
            &self.queries,
        ] {
            c.set(0);
        }
    }
}
