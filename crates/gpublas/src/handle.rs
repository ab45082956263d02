//! `Handle`: one device, one stream, one workspace.

use crate::device::{Device, Stream, StreamJoiner};
use crate::memory::{
    Counters, FrontHold, HandleConfig, Storage, WorkspaceMode, DEFAULT_WORKSPACE_BYTES,
};
use crate::Error;

/// The object every routine takes first: bound to one device and one stream at a time, owning
/// the workspace that routines borrow scratch memory from. `Send`, not `Sync`.
///
/// ```
/// use gpublas::{Device, Handle, WorkspaceMode};
/// let mut h = Handle::new(&Device::host())?;
/// assert_eq!(h.workspace_mode(), WorkspaceMode::Managed);
/// h.set_device_memory_size(1 << 20)?; // fixed 1 MiB, never grows
/// assert!(h.is_user_managing_device_memory());
/// # Ok::<(), gpublas::Error>(())
/// ```
pub struct Handle {
    pub(crate) device: Device,
    pub(crate) stream: Stream,
    pub(crate) mode: WorkspaceMode,
    pub(crate) storage: Storage,
    /// The front of the workspace held by a distributed routine, if any.
    pub(crate) held: FrontHold,
    pub(crate) query: Option<usize>,
    pub(crate) stream_order: bool,
    pub(crate) counters: Counters,
    joiner: StreamJoiner,
    /// Host scratch for the device addresses of list batches, kept between calls so a list of
    /// thousands of vectors costs no allocation per call (host memory, 16 bytes a vector pair).
    pub(crate) list_addrs: Vec<u64>,
    /// The GEMM engine (CUDA), created on the first Level-3 call, with its shape cache.
    pub(crate) lt: Option<crate::device::lt::Lt>,
    /// Page-locked staging slots of the transfers (CUDA), allocated on first need.
    pub(crate) staging: Vec<crate::device::PinnedBuffer<u8>>,
    /// How the host backend uses threads (`set_host_threads`).
    pub(crate) host_par: crate::common::host::Par,
    /// The side stream of look-ahead programs (CUDA), created on first need.
    side: std::sync::OnceLock<Option<crate::device::SideLane>>,
    /// The third stream (a lane's work beside its own chain), created on first need.
    aux: std::sync::OnceLock<Option<crate::device::SideLane>>,
}

impl Handle {
    /// A handle on `device` with the settings of `GPUBLAS_DEVICE_MEMORY_SIZE` and
    /// `GPUBLAS_STREAM_ORDER_ALLOC` (read once, here; M2, M11).
    pub fn new(device: &Device) -> Result<Handle, Error> {
        Handle::with_config(device, &HandleConfig::from_env()?)
    }

    /// A handle with explicit settings instead of the environment's.
    pub fn with_config(device: &Device, config: &HandleConfig) -> Result<Handle, Error> {
        let stream = device.new_stream()?;
        let mut stream_order = false;
        if config.stream_order_alloc {
            if device.supports_stream_order_alloc() {
                device.enable_stream_order_alloc()?;
                stream_order = true;
            } else {
                tracing::warn!(
                    device = %device.name(),
                    "GPUBLAS_STREAM_ORDER_ALLOC ignored: the device has no memory pools"
                );
            }
        }
        let (mode, bytes) = match config.device_memory_size {
            None if stream_order => (WorkspaceMode::Managed, 0),
            None => (WorkspaceMode::Managed, DEFAULT_WORKSPACE_BYTES),
            Some(0) => (WorkspaceMode::Managed, 0),
            Some(n) => (
                WorkspaceMode::UserManaged,
                crate::memory::round_up(n).unwrap_or(n),
            ),
        };
        let storage = if bytes > 0 {
            Storage::Owned(device.alloc_mem(bytes).map_err(|e| match e {
                Error::MemoryError {
                    needed, available, ..
                } => Error::MemoryError {
                    needed,
                    available,
                    detail: format!(
                        "creating a handle with a {bytes}-byte {mode:?} workspace on {} failed",
                        device.name()
                    ),
                },
                other => other,
            })?)
        } else {
            Storage::Empty
        };
        Ok(Handle {
            device: device.clone(),
            stream,
            mode,
            storage,
            held: FrontHold::default(),
            query: None,
            stream_order,
            counters: Counters::default(),
            joiner: StreamJoiner::default(),
            list_addrs: Vec::new(),
            lt: None,
            staging: Vec::new(),
            host_par: crate::common::host::Par::global(),
            side: std::sync::OnceLock::new(),
            aux: std::sync::OnceLock::new(),
        })
    }

    /// Threads for the host backend's work: `0` (the default) uses rayon's global pool, whose
    /// size follows `RAYON_NUM_THREADS` (else one per core); `1` runs every call on the
    /// calling thread with no other threads (for programs that run many handles on many
    /// threads); `n > 1` gives the handle its own pool of `n` threads. Results are bit-identical
    /// whatever the setting: work is split into pieces that do not depend on it. No effect on
    /// CUDA.
    ///
    /// ```
    /// use gpublas::{Device, Handle};
    /// let mut h = Handle::new(&Device::host())?;
    /// h.set_host_threads(1)?;
    /// assert_eq!(h.host_threads(), 1);
    /// # Ok::<(), gpublas::Error>(())
    /// ```
    pub fn set_host_threads(&mut self, n: usize) -> Result<(), Error> {
        self.host_par = match n {
            0 => crate::common::host::Par::global(),
            1 => crate::common::host::Par::single(),
            n => crate::common::host::Par::pool(n)?,
        };
        Ok(())
    }

    /// How many threads the host backend's calls use (see [`Handle::set_host_threads`]).
    pub fn host_threads(&self) -> usize {
        self.host_par.threads()
    }

    /// The device this handle runs on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The stream the handle's work is submitted to.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// The side lane of look-ahead programs (`None` on the host backend), created on first
    /// use and kept for the handle's life (a graph may hold work captured from it).
    pub(crate) fn side_lane(&self) -> Result<Option<&crate::device::SideLane>, Error> {
        self.lane(&self.side)
    }

    /// The aux lane of programs with `ForkAux` steps, as the side lane.
    pub(crate) fn aux_lane(&self) -> Result<Option<&crate::device::SideLane>, Error> {
        self.lane(&self.aux)
    }

    /// The lane kept in `cell`, created on first use.
    fn lane<'a>(
        &'a self,
        cell: &'a std::sync::OnceLock<Option<crate::device::SideLane>>,
    ) -> Result<Option<&'a crate::device::SideLane>, Error> {
        if cell.get().is_none() {
            let lane = crate::device::SideLane::new(&self.device)?;
            // A handle is used by one thread at a time (`&mut` calls), so no other set can win.
            let _ = cell.set(lane);
        }
        Ok(cell.get().and_then(Option::as_ref))
    }

    /// Moves the handle to `stream` (same device). Never blocks the host: the new stream is made
    /// to wait, by an event, for the work already submitted to the old one (M12).
    pub fn set_stream(&mut self, stream: &Stream) -> Result<(), Error> {
        if !stream.device().same_as(&self.device) {
            return Err(Error::InvalidValue(format!(
                "stream on {} given to a handle on {}",
                stream.device().name(),
                self.device.name()
            )));
        }
        if *stream == self.stream {
            return Ok(());
        }
        self.joiner.order(&self.stream, stream)?;
        self.stream = stream.clone();
        Ok(())
    }

    /// Waits for all work submitted to the handle's stream.
    pub fn synchronize(&self) -> Result<(), Error> {
        self.stream.synchronize()
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // Kernels may still read the workspace: wait before the storage is freed (M15).
        if let Err(e) = self.stream.synchronize() {
            tracing::error!(error = %e, "stream synchronisation failed while dropping a handle");
        }
    }
}
