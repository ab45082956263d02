//! The workspace operations of `Handle` (M1–M14).

use super::env::rounded_total;
use super::stats::bump;
use super::{WorkspaceLease, WorkspaceMode, WorkspaceStats, CHUNK};
use crate::device::{DeviceBuffer, LeaseMem, Mem};
use crate::{Error, Handle, Status};

/// Where the workspace memory lives.
pub(crate) enum Storage {
    Empty,
    /// Allocated by the library (`Managed` or `UserManaged`).
    Owned(Mem),
    /// A buffer the user moved in (`UserOwned`).
    User(DeviceBuffer<u8>),
    /// Raw memory from a foreign allocator (`UserOwned`); never freed here.
    Raw {
        addr: u64,
        len: usize,
    },
}

impl Storage {
    fn bytes(&self) -> usize {
        match self {
            Storage::Empty => 0,
            Storage::Owned(m) => m.bytes(),
            Storage::User(b) => b.len(),
            Storage::Raw { len, .. } => *len,
        }
    }

    fn addr(&self) -> u64 {
        match self {
            Storage::Empty => 0,
            Storage::Owned(m) => m.addr(),
            Storage::User(b) => b.device_ptr().unwrap_or(0),
            Storage::Raw { addr, .. } => *addr,
        }
    }
}

/// The granularity of a front hold (bytes): whole multiples of 256, so the leases behind the
/// front start as aligned as the workspace itself (cuBLASLt refuses a workspace slice that is
/// not).
const FRONT_ALIGN: usize = 256;

/// A front hold of `front` bytes as held, and the workspace it needs with `inner` bytes of
/// leases behind it (what a size query records for it).
pub(crate) fn front_and_total(front: usize, inner: usize) -> Result<(usize, usize), Error> {
    let front = front
        .checked_next_multiple_of(FRONT_ALIGN)
        .ok_or_else(|| Error::InvalidSize(format!("a front of {front} bytes overflows")))?;
    Ok((front, rounded_total(&[front, inner])?))
}

/// Bytes at the front of the workspace that a distributed routine holds across the routines
/// it calls (`Handle::hold_front`).
#[derive(Default)]
pub(crate) struct FrontHold {
    bytes: usize,
    /// With stream-ordered allocation the hold is a pool allocation of its own.
    pool: Option<LeaseMem>,
}

impl Handle {
    /// Who owns the workspace (M1).
    pub fn workspace_mode(&self) -> WorkspaceMode {
        self.mode
    }

    /// True exactly in `Managed` mode (M1).
    pub fn is_managing_device_memory(&self) -> bool {
        self.mode == WorkspaceMode::Managed
    }

    /// True exactly in `UserManaged` mode (M1).
    pub fn is_user_managing_device_memory(&self) -> bool {
        self.mode == WorkspaceMode::UserManaged
    }

    /// Bytes the workspace holds (its capacity, not what is in use) (M4).
    pub fn get_device_memory_size(&self) -> usize {
        self.storage.bytes()
    }

    /// Waits for the stream, then drops the current storage; hands a user buffer back.
    fn release_storage(&mut self) -> Result<Option<DeviceBuffer<u8>>, Error> {
        self.stream.synchronize()?;
        Ok(match std::mem::replace(&mut self.storage, Storage::Empty) {
            Storage::User(b) => Some(b),
            _ => None,
        })
    }

    /// `n == 0`: back to `Managed` with capacity 0 (allocation deferred to the first need).
    /// `n > 0`: a fixed workspace of `n` bytes rounded up to a chunk, `UserManaged`. Waits for
    /// the stream first; returns a user-owned buffer the handle held, if any (M4).
    ///
    /// On a failed allocation: `Error::MemoryError`, and the handle is `Managed` with capacity 0.
    pub fn set_device_memory_size(&mut self, n: usize) -> Result<Option<DeviceBuffer<u8>>, Error> {
        let bytes = super::round_up(n).ok_or_else(|| {
            Error::InvalidSize(format!(
                "workspace size {n} overflows when rounded to {CHUNK} bytes"
            ))
        })?;
        let previous = self.release_storage()?;
        self.mode = WorkspaceMode::Managed;
        if bytes == 0 {
            return Ok(previous);
        }
        match self.device.alloc_mem(bytes) {
            Ok(m) => {
                self.storage = Storage::Owned(m);
                self.mode = WorkspaceMode::UserManaged;
                Ok(previous)
            }
            Err(Error::MemoryError { available, .. }) => Err(self.note_memory_error(
                bytes,
                available,
                "set_device_memory_size could not allocate it; the handle is Managed with capacity 0",
            )),
            Err(e) => Err(e),
        }
    }

    /// `Some(buffer)`: use the caller's buffer as is (its whole length) and become `UserOwned`;
    /// the handle never frees it and drops it with itself unless it is handed back. `None`: back
    /// to `Managed` with capacity 0. Returns the user buffer held before, if any (M5).
    pub fn set_workspace(
        &mut self,
        buffer: Option<DeviceBuffer<u8>>,
    ) -> Result<Option<DeviceBuffer<u8>>, Error> {
        if let Some(b) = &buffer {
            match b.device() {
                None => {
                    return Err(Error::InvalidPointer(format!(
                        "a placeholder of {} bytes cannot be a workspace",
                        b.len()
                    )))
                }
                Some(d) if !d.same_as(&self.device) => {
                    return Err(Error::InvalidPointer(format!(
                        "a workspace on {} given to a handle on {}",
                        d.name(),
                        self.device.name()
                    )))
                }
                Some(_) => {}
            }
            // The handle writes it from now on: earlier calls that named it must be done.
            b.wait_users()?;
        }
        let previous = self.release_storage()?;
        match buffer {
            Some(b) => {
                self.storage = Storage::User(b);
                self.mode = WorkspaceMode::UserOwned;
            }
            None => self.mode = WorkspaceMode::Managed,
        }
        Ok(previous)
    }

    /// Uses `len` bytes of device memory at `ptr` from a foreign allocator as the workspace
    /// (`UserOwned`; never freed by gpublas). Returns the user buffer held before, if any (M5).
    ///
    /// # Safety
    /// `ptr..ptr + len` must be device memory of this handle's device (host memory for a host
    /// device) that stays valid, and is used by nothing else, until the handle lets it go
    /// (another `set_workspace*`, `set_device_memory_size`, or drop).
    pub unsafe fn set_workspace_raw(
        &mut self,
        ptr: u64,
        len: usize,
    ) -> Result<Option<DeviceBuffer<u8>>, Error> {
        if ptr % CHUNK as u64 != 0 {
            return Err(Error::InvalidPointer(format!(
                "workspace pointer {ptr:#x} is not aligned to {CHUNK} bytes (it is {} past a boundary)",
                ptr % CHUNK as u64
            )));
        }
        if ptr == 0 && len > 0 {
            return Err(Error::InvalidPointer(format!(
                "a null workspace pointer with length {len}"
            )));
        }
        let previous = self.release_storage()?;
        self.storage = Storage::Raw { addr: ptr, len };
        self.mode = WorkspaceMode::UserOwned;
        Ok(previous)
    }

    /// Starts a size query (M7). `Error::QueryMismatch` if one is already active.
    pub fn start_device_memory_size_query(&mut self) -> Result<(), Error> {
        if let Some(running) = self.query {
            return Err(Error::QueryMismatch(format!(
                "a size query is already active (running size {running} bytes); stop it first"
            )));
        }
        self.query = Some(0);
        Ok(())
    }

    /// Ends the size query and returns the largest need seen (M7).
    pub fn stop_device_memory_size_query(&mut self) -> Result<usize, Error> {
        match self.query.take() {
            Some(size) => {
                bump(&self.counters.queries);
                Ok(size)
            }
            None => Err(Error::QueryMismatch(
                "stop_device_memory_size_query called with no query active".into(),
            )),
        }
    }

    /// Whether a size query is active (M7).
    pub fn is_device_memory_size_query(&self) -> bool {
        self.query.is_some()
    }

    /// The query step for routines written outside gpublas (M8): records the need of a call
    /// that would lease `sizes`. `Error::QueryMismatch` outside a query.
    pub fn set_optimal_device_memory_size(&mut self, sizes: &[usize]) -> Result<Status, Error> {
        match self.query_step(sizes)? {
            Some(st) => Ok(st),
            None => Err(Error::QueryMismatch(format!(
                "set_optimal_device_memory_size({sizes:?}) called with no query active"
            ))),
        }
    }

    /// During a query: records the need of `sizes` and returns its status; else `None`.
    pub(crate) fn query_step(&mut self, sizes: &[usize]) -> Result<Option<Status>, Error> {
        let Some(running) = self.query else {
            return Ok(None);
        };
        let need = rounded_total(sizes)?;
        Ok(Some(if need > running {
            self.query = Some(need);
            Status::SizeIncreased
        } else {
            Status::SizeUnchanged
        }))
    }

    /// Leases sub-buffers of `sizes` bytes, each chunk-aligned, from the workspace (M10).
    /// In `Managed` mode the workspace grows to fit (M3), or, with stream-ordered allocation,
    /// the lease is a pool allocation freed in stream order (M11).
    ///
    /// ```
    /// use gpublas::{Device, Handle};
    /// let mut h = Handle::new(&Device::host())?;
    /// let mut outer = h.device_malloc(&[1024])?;
    /// let inner = outer.device_malloc(&[256])?; // from the outer lease's unused tail
    /// assert_eq!(inner.total_bytes(), 256);
    /// # Ok::<(), gpublas::Error>(())
    /// ```
    pub fn device_malloc(&mut self, sizes: &[usize]) -> Result<WorkspaceLease<'_>, Error> {
        if let Some(running) = self.query {
            return Err(Error::QueryMismatch(format!(
                "device_malloc({sizes:?}) during a size query (running size {running} bytes): \
                 routines answer the query instead of leasing"
            )));
        }
        let total = rounded_total(sizes)?;
        if total == 0 {
            return Ok(WorkspaceLease::new(self, 0, 0, sizes, None));
        }
        if self.uses_stream_ordered_leases() {
            let mem = self.stream_ordered_alloc(total)?;
            let base = mem.addr();
            return Ok(WorkspaceLease::new(self, base, total, sizes, Some(mem)));
        }
        // A distributed routine's hold at the front stays where it is: leases of the
        // routines it calls come from behind it, and the workspace cannot move meanwhile.
        let held = self.held.bytes;
        let capacity = self.storage.bytes() - held;
        if total > capacity && held > 0 {
            return Err(self.note_memory_error(
                total,
                capacity,
                &format!(
                    "{held} bytes at the front of the workspace are held by a distributed \
                     routine, which sized the workspace for the routines it calls; this is a \
                     sizing bug, please report it"
                ),
            ));
        }
        if total > capacity {
            if self.mode != WorkspaceMode::Managed {
                return Err(self.note_memory_error(
                    total,
                    capacity,
                    &format!(
                        "the {:?} workspace never grows; raise it with set_device_memory_size",
                        self.mode
                    ),
                ));
            }
            self.grow(total)?;
        }
        let base = self.storage.addr() + held as u64;
        let room = self.storage.bytes() - held;
        Ok(WorkspaceLease::new(self, base, room, sizes, None))
    }

    /// Starts a private size query (M7) that measures the routines a distributed routine is
    /// about to call on this handle (they answer it instead of running); an active query of
    /// the user's is set aside and comes back with [`Handle::end_private_query`].
    pub(crate) fn begin_private_query(&mut self) -> Option<usize> {
        self.query.replace(0)
    }

    /// Ends [`Handle::begin_private_query`]: the largest need seen; the user's query (`saved`)
    /// is active again as it was.
    pub(crate) fn end_private_query(&mut self, saved: Option<usize>) -> usize {
        let need = self.query.take().unwrap_or(0);
        self.query = saved;
        need
    }

    /// Holds `front` bytes at the start of the workspace for a routine that keeps scratch
    /// across the routines it calls (a distributed factorization's panels), with `inner`
    /// bytes behind them for those calls: a `Managed` workspace grows to fit first (the other
    /// modes answer `MemoryError` when `front + inner` does not fit; with stream-ordered
    /// allocation the front is a pool allocation). Returns the front's address; the holder
    /// calls [`Handle::release_front`] when done, on errors too.
    pub(crate) fn hold_front(&mut self, front: usize, inner: usize) -> Result<u64, Error> {
        let (front, total) = front_and_total(front, inner)?;
        if self.held.bytes > 0 || self.held.pool.is_some() {
            return Err(Error::InvalidValue(
                "the workspace's front is already held (distributed routines do not nest)".into(),
            ));
        }
        if front == 0 {
            return Ok(0);
        }
        if self.uses_stream_ordered_leases() {
            let mem = self.stream_ordered_alloc(front)?;
            let addr = mem.addr();
            self.held.pool = Some(mem);
            return Ok(addr);
        }
        let capacity = self.storage.bytes();
        if total > capacity {
            if self.mode != WorkspaceMode::Managed {
                return Err(self.note_memory_error(
                    total,
                    capacity,
                    &format!(
                        "a distributed routine holds {front} bytes of panels and its local calls \
                         need {inner} more; the {:?} workspace never grows: raise it with \
                         set_device_memory_size",
                        self.mode
                    ),
                ));
            }
            self.grow(total)?;
        }
        self.counters.lease_started(front);
        self.held.bytes = front;
        Ok(self.storage.addr())
    }

    /// Ends [`Handle::hold_front`] (in stream order: later leases may reuse the bytes only
    /// after the work submitted so far, as for any lease).
    pub(crate) fn release_front(&mut self) {
        if self.held.bytes > 0 {
            self.counters.lease_ended(self.held.bytes);
        }
        self.held = FrontHold::default();
    }

    /// Replaces the `Managed` workspace by one of exactly `total` bytes (M3, M13).
    fn grow(&mut self, total: usize) -> Result<(), Error> {
        let capacity = self.storage.bytes();
        if self.stream.is_capturing()? {
            return Err(self.note_memory_error(
                total,
                capacity,
                "the handle's stream is being captured into a graph and growing the workspace \
                 would synchronise; preallocate with set_device_memory_size (M4) or enable \
                 stream-ordered allocation with set_stream_order_alloc (M11)",
            ));
        }
        self.stream.synchronize()?;
        self.storage = Storage::Empty;
        match self.device.alloc_mem(total) {
            Ok(m) => {
                self.storage = Storage::Owned(m);
                bump(&self.counters.growths);
                tracing::info!(from = capacity, to = total, device = %self.device.name(), "workspace grown");
                Ok(())
            }
            Err(Error::MemoryError { available, .. }) => Err(self.note_memory_error(
                total,
                available,
                "growing the Managed workspace failed; the handle stays Managed with capacity 0 \
                 and remains usable",
            )),
            Err(e) => Err(e),
        }
    }

    /// Counts and logs a memory error, and builds it.
    pub(crate) fn note_memory_error(&self, needed: usize, available: usize, why: &str) -> Error {
        bump(&self.counters.memory_errors);
        tracing::warn!(needed, available, mode = ?self.mode, "workspace memory error: {why}");
        Error::MemoryError {
            needed,
            available,
            detail: format!("{:?} workspace: {why}", self.mode),
        }
    }

    /// Counts and logs a call that ran its reduced-workspace algorithm.
    pub(crate) fn note_degraded(&self, routine: &str, needed: usize, used: usize) -> Status {
        bump(&self.counters.degraded_calls);
        tracing::info!(
            routine,
            needed,
            used,
            capacity = self.storage.bytes(),
            "reduced-workspace algorithm"
        );
        Status::PerfDegraded
    }

    /// Degraded calls counted so far (a call made of parts counts once: `count_as_one_call`).
    pub(crate) fn degraded_count(&self) -> u64 {
        self.counters.degraded_calls.get()
    }

    /// A call made of parts, each of which may have counted a degraded call since `before`
    /// (from `degraded_count`), counts as one.
    pub(crate) fn count_as_one_call(&self, before: u64) {
        let now = self.counters.degraded_calls.get();
        if now > before + 1 {
            self.counters.degraded_calls.set(before + 1);
        }
    }

    /// The fixed workspace size a routine must fit in, or `None` where the workspace grows.
    pub(crate) fn fixed_capacity(&self) -> Option<usize> {
        match self.mode {
            WorkspaceMode::Managed => None,
            _ => Some(self.storage.bytes()),
        }
    }

    pub(crate) fn uses_stream_ordered_leases(&self) -> bool {
        self.stream_order && self.mode == WorkspaceMode::Managed
    }

    pub(crate) fn stream_ordered_alloc(&self, total: usize) -> Result<LeaseMem, Error> {
        match self.stream.pool_alloc(total) {
            Ok(m) => {
                bump(&self.counters.stream_ordered_allocs);
                Ok(m)
            }
            Err(Error::MemoryError { available, .. }) => Err(self.note_memory_error(
                total,
                available,
                "the stream-ordered allocation failed",
            )),
            Err(e) => Err(e),
        }
    }

    /// Turns stream-ordered allocation on or off (M11). `Error::Unsupported` on a device
    /// without memory pools. Turning it on in `Managed` mode releases the fixed workspace, which
    /// leases no longer use.
    pub fn set_stream_order_alloc(&mut self, enable: bool) -> Result<(), Error> {
        if enable && !self.device.supports_stream_order_alloc() {
            return Err(Error::Unsupported(format!(
                "stream-ordered allocation on {}: the device has no memory pools",
                self.device.name()
            )));
        }
        if enable {
            self.device.enable_stream_order_alloc()?;
            if self.mode == WorkspaceMode::Managed {
                self.release_storage()?;
            }
        }
        self.stream_order = enable;
        Ok(())
    }

    /// Whether stream-ordered allocation is on (M11).
    pub fn stream_order_alloc(&self) -> bool {
        self.stream_order
    }

    /// Whether this handle's device supports stream-ordered allocation (M11).
    pub fn supports_stream_order_alloc(&self) -> bool {
        self.device.supports_stream_order_alloc()
    }

    /// The workspace statistics (M14).
    pub fn workspace_stats(&self) -> WorkspaceStats {
        let c = &self.counters;
        WorkspaceStats {
            mode: self.mode,
            capacity: self.storage.bytes(),
            peak_leased: c.peak_leased.get(),
            leases: c.leases.get(),
            growths: c.growths.get(),
            stream_ordered_allocs: c.stream_ordered_allocs.get(),
            degraded_calls: c.degraded_calls.get(),
            memory_errors: c.memory_errors.get(),
            queries: c.queries.get(),
        }
    }

    /// Clears the counters of `workspace_stats` (M14).
    pub fn reset_workspace_stats(&mut self) {
        self.counters.reset();
    }
}
