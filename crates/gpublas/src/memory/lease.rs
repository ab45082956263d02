//! `WorkspaceLease`: one routine call's borrow of the workspace (M10).

use smallvec::SmallVec;

use super::env::{round_up, rounded_total};
use crate::device::{host_workspace_bytes, Backend, LeaseMem};
use crate::{Error, Handle};

/// One sub-buffer of a lease: a device address and a length in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkspaceSlice {
    addr: u64,
    len: usize,
}

impl WorkspaceSlice {
    /// Device address of the first byte (a host address on the host backend); chunk-aligned
    /// relative to the workspace start.
    pub fn device_ptr(&self) -> u64 {
        self.addr
    }

    /// Length in bytes, as requested (not rounded).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the sub-buffer is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes `off .. off + len` of the sub-buffer as one of its own (`None` past its end): a
    /// routine whose stages take turns with a part hands each stage its piece.
    pub(crate) fn part(&self, off: usize, len: usize) -> Option<WorkspaceSlice> {
        (off.checked_add(len)? <= self.len).then_some(WorkspaceSlice {
            addr: self.addr + off as u64,
            len,
        })
    }
}

/// Part of the handle's workspace lent to one call, as k chunk-aligned sub-buffers at prefix
/// offsets. Only one lease of a handle lives at a time (it borrows the handle mutably); nested
/// leases come from its unused tail, last-in first-out (each borrows its parent mutably).
///
/// ```
/// use gpublas::{Device, Handle};
/// let mut h = Handle::new(&Device::host())?;
/// let lease = h.device_malloc(&[100, 0, 8])?;
/// assert_eq!(lease.len(), 3);
/// assert_eq!(lease.buffer(1).unwrap().len(), 0);
/// assert_eq!(lease.total_bytes(), 128 + 64);
/// # Ok::<(), gpublas::Error>(())
/// ```
pub struct WorkspaceLease<'a> {
    handle: &'a Handle,
    base: u64,
    total: usize,
    /// Bytes usable from `base`: the lease plus the tail that nested leases may take.
    room: usize,
    subs: SmallVec<[(usize, usize); 4]>,
    _mem: Option<LeaseMem>,
}

impl<'a> WorkspaceLease<'a> {
    /// Lays out `sizes` at `base`; `room` bytes are usable from there.
    pub(crate) fn new(
        handle: &'a Handle,
        base: u64,
        room: usize,
        sizes: &[usize],
        mem: Option<LeaseMem>,
    ) -> Self {
        let mut subs = SmallVec::new();
        let mut off = 0usize;
        for &s in sizes {
            subs.push((off, s));
            // Sizes were checked by rounded_total before a lease is made.
            off += round_up(s).unwrap_or(s);
        }
        handle.counters.lease_started(off);
        WorkspaceLease {
            handle,
            base,
            total: off,
            room,
            subs,
            _mem: mem,
        }
    }

    /// Number of sub-buffers.
    pub fn len(&self) -> usize {
        self.subs.len()
    }

    /// Whether the lease has no sub-buffers.
    pub fn is_empty(&self) -> bool {
        self.subs.is_empty()
    }

    /// Bytes reserved: the sum of the rounded sizes.
    pub fn total_bytes(&self) -> usize {
        self.total
    }

    /// Sub-buffer `i`.
    pub fn buffer(&self, i: usize) -> Option<WorkspaceSlice> {
        self.subs.get(i).map(|&(off, len)| WorkspaceSlice {
            addr: self.base + off as u64,
            len,
        })
    }

    /// Sub-buffer `i` as host bytes (host backend only), for routines written outside gpublas.
    pub fn host_bytes(&mut self, i: usize) -> Option<&mut [u8]> {
        if self.handle.device().backend() != Backend::Host {
            return None;
        }
        let s = self.buffer(i)?;
        Some(host_workspace_bytes(s.addr, s.len))
    }

    /// The handle the lease came from, for launching work while the lease is held.
    pub fn handle(&self) -> &Handle {
        self.handle
    }

    /// A nested lease from this lease's unused tail (or, with stream-ordered allocation in
    /// `Managed` mode, a new pool allocation). Lives no longer than `self` (last-in first-out).
    pub fn device_malloc(&mut self, sizes: &[usize]) -> Result<WorkspaceLease<'_>, Error> {
        let total = rounded_total(sizes)?;
        let h = self.handle;
        if total == 0 {
            return Ok(WorkspaceLease::new(h, 0, 0, sizes, None));
        }
        let tail = self.room - self.total;
        if total <= tail {
            return Ok(WorkspaceLease::new(
                h,
                self.base + self.total as u64,
                tail,
                sizes,
                None,
            ));
        }
        if h.uses_stream_ordered_leases() {
            let mem = h.stream_ordered_alloc(total)?;
            let base = mem.addr();
            return Ok(WorkspaceLease::new(h, base, total, sizes, Some(mem)));
        }
        Err(h.note_memory_error(
            total,
            tail,
            "a nested lease takes only the unused tail of its parent lease; query the need \
             (M7) and preallocate it, or enable stream-ordered allocation (M11)",
        ))
    }
}

impl Drop for WorkspaceLease<'_> {
    fn drop(&mut self) {
        self.handle.counters.lease_ended(self.total);
    }
}

/// Device address of a leased part (0 where the plan gave it no bytes).
pub(crate) fn address(part: Option<WorkspaceSlice>) -> u64 {
    part.map(|s| s.device_ptr()).unwrap_or(0)
}
