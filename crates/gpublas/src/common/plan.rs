//! The path every routine takes from its plan to a lease (SPEC F2, F4, M3, M6, F8): the plan
//! with enough workspace is computed from the arguments alone; under a fixed workspace that is
//! too small the routine's reduced plan runs (`PerfDegraded`), or the call fails with
//! `MemoryError` naming both sizes.

use crate::memory::rounded_total;
use crate::{Error, Handle, Status};

/// A routine's workspace plan: the sub-buffer sizes (bytes) it leases.
pub(crate) trait WorkspacePlan: Copy + PartialEq {
    /// Sub-buffer sizes in bytes, in lease order.
    fn sizes(&self) -> smallvec::SmallVec<[usize; 4]>;

    /// Bytes the lease takes (each size rounded up to a chunk).
    fn total(&self) -> usize {
        rounded_total(&self.sizes()).unwrap_or(usize::MAX)
    }
}

/// Picks the plan a call runs with. `fitted(capacity)` returns the best plan within
/// `capacity` bytes, or `None` when not even the minimum fits; `minimum` then explains the
/// minimum in the error (with its figures).
pub(crate) fn choose<P: WorkspacePlan>(
    h: &Handle,
    call: &str,
    full: P,
    fitted: impl FnOnce(usize) -> Option<P>,
    minimum: impl FnOnce() -> String,
) -> Result<(P, Status), Error> {
    let Some(cap) = h.fixed_capacity() else {
        return Ok((full, Status::Success));
    };
    if full.total() <= cap {
        return Ok((full, Status::Success));
    }
    match fitted(cap) {
        Some(p) if p == full => Ok((p, Status::Success)),
        Some(p) => {
            let st = h.note_degraded(call, full.total(), p.total());
            Ok((p, st))
        }
        None => Err(h.note_memory_error(full.total(), cap, &format!("{call}: {}", minimum()))),
    }
}

/// Entries of a batch that fit in `capacity` bytes when each takes `per_entry` bytes on top
/// of `fixed` (F8): at most `batch`, `None` when not even one fits.
pub(crate) fn entries_that_fit(
    capacity: usize,
    fixed: usize,
    per_entry: usize,
    batch: usize,
) -> Option<usize> {
    let room = capacity.checked_sub(fixed)?;
    let n = if per_entry == 0 {
        batch
    } else {
        (room / per_entry).min(batch)
    };
    (n >= 1 || batch == 0).then_some(n.max(1).min(batch.max(1)))
}
