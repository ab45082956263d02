//! The eigensolvers' workspace (F4: one function, [`EigShape::plan`], sizes every part from
//! the arguments alone) and their tuning values.
//!
//! The Jacobi kernel keeps each matrix and its eigenvectors in shared memory and needs no
//! workspace; the only parts are the per-entry results routed to host memory (`info`, the
//! sweeps, the residuals), gathered on the device and copied out after the launches. A fixed
//! workspace too small for the whole batch's results runs the batch in chunks of entries,
//! each chunk's results copied out before the next (`PerfDegraded`, the same answer).

use crate::common::plan::{most_entries, WorkspacePlan};
use crate::kernels::LIST_MAX;
use crate::memory::WorkspaceSlice;
use crate::WorkspaceLease;

/// The eigensolvers' tuning values, in one place beside the plan that uses them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EigParams {
    /// The largest order the Jacobi kernel takes (one thread block per matrix, the matrix and
    /// its eigenvectors in shared memory): `syevj_batched`'s limit and, on CUDA, `syevd`'s.
    pub jacobi_max: usize,
    /// Sweeps `syevd`'s Jacobi path allows before it reports no convergence (it converges
    /// quadratically: about 6 to 12 sweeps).
    pub syevd_sweeps: usize,
    /// Most matrices of a list per launch (their addresses are a kernel parameter).
    pub list_chunk: usize,
    /// Most matrices of a strided batch per launch (one block each: the grid's limit).
    pub strided_chunk: usize,
}

impl EigParams {
    /// The values for the devices gpublas is tuned on.
    pub(crate) fn auto() -> Self {
        EigParams {
            jacobi_max: 64,
            syevd_sweeps: 100,
            list_chunk: LIST_MAX,
            strided_chunk: 1 << 24,
        }
    }
}

/// The padded order the Jacobi kernel runs an order-`n` matrix at (`n ≤ 64`): 8, 16, 32 or
/// 64, the extra rows and columns zero.
pub(crate) fn padded_order(n: usize) -> usize {
    n.next_power_of_two().max(8)
}

/// The workspace parts by name: their sizes in bytes, or the sub-buffers a lease holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EigWorkspace<S> {
    /// `info` of the entries of a chunk, when routed to host memory.
    pub info: S,
    /// The sweeps of the entries of a chunk, when routed to host memory.
    pub sweeps: S,
    /// The residuals of the entries of a chunk, when routed to host memory.
    pub residual: S,
}

impl EigWorkspace<Option<WorkspaceSlice>> {
    /// The parts of a lease laid out by [`EigPlan::sizes`].
    pub(crate) fn leased(lease: &WorkspaceLease<'_>) -> Self {
        EigWorkspace {
            info: lease.buffer(0),
            sweeps: lease.buffer(1),
            residual: lease.buffer(2),
        }
    }
}

/// How a call runs: entries per chunk, and the workspace that takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EigPlan {
    /// Batch entries per chunk (their host-routed results held at once).
    pub entries: usize,
    pub workspace: EigWorkspace<usize>,
}

impl WorkspacePlan for EigPlan {
    fn sizes(&self) -> smallvec::SmallVec<[usize; 4]> {
        let w = &self.workspace;
        smallvec::SmallVec::from_slice(&[w.info, w.sweeps, w.residual])
    }
}

/// What a call's arguments fix for its plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EigShape {
    pub batch: usize,
    /// Bytes of the real type (the residuals).
    pub real_bytes: usize,
    /// Which results go to host memory.
    pub info_host: bool,
    pub sweeps_host: bool,
    pub residual_host: bool,
}

impl EigShape {
    /// The plan for chunks of `entries` (F4: the one function behind every size).
    pub(crate) fn plan(&self, entries: usize) -> EigPlan {
        let entries = entries.clamp(1, self.batch.max(1));
        let part = |routed: bool, bytes: usize| if routed { entries * bytes } else { 0 };
        EigPlan {
            entries,
            workspace: EigWorkspace {
                info: part(self.info_host, 4),
                sweeps: part(self.sweeps_host, 4),
                residual: part(self.residual_host, self.real_bytes),
            },
        }
    }

    /// The plan with enough workspace: the whole batch at once.
    pub(crate) fn full(&self) -> EigPlan {
        self.plan(self.batch)
    }

    /// The largest chunk whose results fit in `capacity` bytes; `None` when not even one
    /// entry's do.
    pub(crate) fn fitted(&self, capacity: usize) -> Option<EigPlan> {
        let e = most_entries(self.batch, |e| self.plan(e).total() <= capacity)?;
        Some(self.plan(e))
    }

    /// What the minimum plan needs, for the `MemoryError` of a workspace too small.
    pub(crate) fn minimum_text(&self) -> String {
        format!(
            "needs at least {} bytes for one entry's results routed to host memory; raise the \
             workspace with set_device_memory_size or pass Results::Device",
            self.plan(1).total()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(batch: usize, host: bool) -> EigShape {
        EigShape {
            batch,
            real_bytes: 8,
            info_host: host,
            sweeps_host: host,
            residual_host: host,
        }
    }

    #[test]
    fn f4_only_host_results_take_workspace() {
        assert_eq!(shape(1000, false).full().total(), 0);
        let p = shape(1000, true).full();
        assert_eq!(
            (p.entries, p.workspace.info, p.workspace.residual),
            (1000, 4000, 8000)
        );
    }

    #[test]
    fn m06_fitted_runs_fewer_entries() {
        let s = shape(100_000, true);
        let full = s.full().total();
        let p = s.fitted(full / 2).unwrap();
        assert!(p.entries < 100_000 && p.total() <= full / 2);
        assert!(s.fitted(16).is_none());
    }

    #[test]
    fn padded_orders() {
        let want = [
            (1, 8),
            (8, 8),
            (9, 16),
            (17, 32),
            (32, 32),
            (33, 64),
            (64, 64),
        ];
        for (n, np) in want {
            assert_eq!(padded_order(n), np, "n = {n}");
        }
    }
}
