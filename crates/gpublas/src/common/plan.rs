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

/// The most batch entries per launch, at most `batch`, for which `fits(entries)` holds (F8):
/// `None` when not even one entry fits. `fits` must be monotone (more entries, more bytes).
pub(crate) fn most_entries(batch: usize, fits: impl Fn(usize) -> bool) -> Option<usize> {
    if !fits(1) {
        return None;
    }
    let (mut lo, mut hi) = (1, batch.max(1));
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(lo)
}
