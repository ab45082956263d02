//! The path every routine takes from its arguments to a lease and a result (SPEC F2, F4, M3,
//! M6, M8, F8), written once: [`drive`] runs a [`Routine`] through size checks, the plan with
//! enough workspace (computed from the arguments alone, also during a size query), the query
//! step, operand checks, the choice of plan under a fixed workspace (the routine's reduced plan
//! runs with `PerfDegraded`, or the call fails with `MemoryError` naming both sizes), the lease
//! and the computation. A family states its shapes and plans; it never writes this path.

use crate::memory::rounded_total;
use crate::{Error, Handle, Status, WorkspaceLease};

/// A routine's workspace plan: the sub-buffer sizes (bytes) it leases.
pub(crate) trait WorkspacePlan: Copy + PartialEq {
    /// Sub-buffer sizes in bytes, in lease order.
    fn sizes(&self) -> smallvec::SmallVec<[usize; 4]>;

    /// Bytes the lease takes (each size rounded up to a chunk).
    fn total(&self) -> usize {
        rounded_total(&self.sizes()).unwrap_or(usize::MAX)
    }
}

/// One call of a routine family, as the driver sees it. Every step but `run` must leave the
/// caller's outputs untouched (F2: outputs are written only once the call is accepted).
pub(crate) trait Routine {
    /// The family's workspace plan.
    type Plan: WorkspacePlan;

    /// The call's name, for messages.
    fn name(&self) -> &'static str;

    /// Size and shape checks (F2 step 1); they also run during a size query.
    fn check_sizes(&mut self) -> Result<(), Error>;

    /// The plan with enough workspace for full speed, from the arguments alone (F4); `None`
    /// when the call has nothing to compute (a quick return, F3).
    fn full(&mut self, h: &mut Handle) -> Result<Option<Self::Plan>, Error>;

    /// Operand checks (F2 step 3, F7, F9, F10): buffers, devices, lengths, overlaps.
    fn check_operands(&mut self, h: &mut Handle) -> Result<(), Error>;

    /// What a quick return writes (zeros for reductions, info 0 for factorizations).
    fn quick_return(&mut self, _h: &mut Handle) -> Result<Status, Error> {
        Ok(Status::Success)
    }

    /// The best plan within `capacity` bytes; `None` when not even the minimum fits.
    fn fitted(&mut self, capacity: usize) -> Result<Option<Self::Plan>, Error>;

    /// What the minimum plan needs and why, for the `MemoryError` of a workspace too small.
    fn minimum(&self) -> String;

    /// Computes with `plan` in the sub-buffers `lease` holds (laid out by `plan.sizes()`).
    fn run(&mut self, lease: &WorkspaceLease<'_>, plan: &Self::Plan) -> Result<(), Error>;

    /// Returns what the call borrowed from the handle (the GEMM engine, address lists,
    /// staging buffers), however it ended.
    fn finish(&mut self, _h: &mut Handle) {}
}

/// Runs one call of a routine: the single implementation of the query → check → choose →
/// lease → run path (F2) behind every family.
pub(crate) fn drive<R: Routine>(h: &mut Handle, r: &mut R) -> Result<Status, Error> {
    let out = drive_steps(h, r);
    r.finish(h);
    out
}

fn drive_steps<R: Routine>(h: &mut Handle, r: &mut R) -> Result<Status, Error> {
    // 1. sizes and shapes, and the plan they call for
    r.check_sizes()?;
    let full = r.full(h)?;
    // 2. the size query (M8): the need is recorded and nothing is read or written
    let sizes = full.as_ref().map(|p| p.sizes()).unwrap_or_default();
    if let Some(st) = h.query_step(&sizes)? {
        return Ok(st);
    }
    // 3. operands (F7)
    r.check_operands(h)?;
    let Some(full) = full else {
        return r.quick_return(h);
    };
    // 4. the workspace: the full plan, or the best that fits a fixed workspace (M6, F8)
    let (plan, status) = match h.fixed_capacity() {
        Some(cap) if full.total() > cap => match r.fitted(cap)? {
            Some(p) if p == full => (p, Status::Success),
            Some(p) => {
                let st = h.note_degraded(r.name(), full.total(), p.total());
                (p, st)
            }
            None => {
                let why = format!("{}: {}", r.name(), r.minimum());
                return Err(h.note_memory_error(full.total(), cap, &why));
            }
        },
        _ => (full, Status::Success),
    };
    let lease = h.device_malloc(&plan.sizes())?;
    // 5. compute
    r.run(&lease, &plan)?;
    Ok(status)
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
