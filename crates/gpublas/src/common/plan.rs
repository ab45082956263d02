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
    drive_pass(h, r, Pass::Run)
}

/// How far a call goes through [`drive`]: all the way, or only through its checks (sizes,
/// operands, the plan a fixed workspace leaves it), as a driver checks each part before any
/// part writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pass {
    Check,
    Run,
}

/// [`drive`], or only its checks (`Pass::Check`: nothing is leased, launched or written, and
/// no degraded call is counted).
pub(crate) fn drive_pass<R: Routine>(
    h: &mut Handle,
    r: &mut R,
    pass: Pass,
) -> Result<Status, Error> {
    let out = drive_steps(h, r, pass);
    r.finish(h);
    out
}

fn drive_steps<R: Routine>(h: &mut Handle, r: &mut R, pass: Pass) -> Result<Status, Error> {
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
        return match pass {
            Pass::Run => r.quick_return(h),
            Pass::Check => Ok(Status::Success),
        };
    };
    // 4. the workspace: the full plan, or the best that fits a fixed workspace (M6, F8)
    let (plan, status) = match h.fixed_capacity() {
        Some(cap) if full.total() > cap => match r.fitted(cap)? {
            Some(p) if p == full => (p, Status::Success),
            Some(_) if pass == Pass::Check => return Ok(Status::PerfDegraded),
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
    if pass == Pass::Check {
        return Ok(status);
    }
    let lease = h.device_malloc(&plan.sizes())?;
    // 5. compute
    r.run(&lease, &plan)?;
    Ok(status)
}

/// Runs a call made of `parts` routine calls in order (a LAPACK driver: `gesv` is `getrf`
/// then `getrs`). `part(h, i, pass)` builds part `i` and takes it through [`drive_pass`].
/// Every part is checked before the first runs, so a call that one part would refuse (a bad
/// argument, a fixed workspace below a part's minimum) writes nothing (F2); a size query
/// records the largest part's need (M8); the parts' degraded runs count as one call.
pub(crate) fn drive_parts(
    h: &mut Handle,
    parts: usize,
    mut part: impl FnMut(&mut Handle, usize, Pass) -> Result<Status, Error>,
) -> Result<Status, Error> {
    if !h.is_device_memory_size_query() {
        for i in 0..parts {
            // The status is the run's to give.
            let _ = part(h, i, Pass::Check)?;
        }
    }
    let before = h.degraded_count();
    let mut statuses = smallvec::SmallVec::<[Status; 4]>::new();
    let out = (0..parts).try_for_each(|i| {
        statuses.push(part(h, i, Pass::Run)?);
        Ok::<_, Error>(())
    });
    h.count_as_one_call(before);
    out.map(|()| combined(&statuses))
}

/// The status of a call made of parts: a size query's `SizeIncreased` if any part raised the
/// size, `PerfDegraded` if any part ran reduced, else the first part's.
pub(crate) fn combined(parts: &[Status]) -> Status {
    for s in [Status::SizeIncreased, Status::PerfDegraded] {
        if parts.contains(&s) {
            return s;
        }
    }
    parts.first().copied().unwrap_or(Status::Success)
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
