//! Devices, streams and buffers: the layer between gpublas and `cudarc`.
//!
//! Everything else in the crate goes through the types here; `unsafe` lives in this module's
//! `cuda.rs`, `libs.rs` and the few marked blocks below.

pub(crate) mod cuda;
pub(crate) mod host;
pub mod kcache;
pub mod libs;
#[doc(hidden)]
pub mod lt;
pub(crate) mod nccl;
mod pinned;

pub use pinned::PinnedBuffer;
pub(crate) use pinned::{Copy2d, Loc};

use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::Error;

/// Element types a `DeviceBuffer` can hold: plain bytes with no invalid bit patterns.
pub trait Element: bytemuck::Pod + Send + Sync + 'static {}
impl<T: bytemuck::Pod + Send + Sync + 'static> Element for T {}

/// Which backend a device runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// The CPU; "device memory" is host memory.
    Host,
    /// An NVIDIA GPU through the CUDA driver.
    Cuda,
}

/// A compute device: the host, or one CUDA GPU. Cheap to clone.
#[derive(Clone)]
pub struct Device(pub(crate) DeviceKind);

#[derive(Clone)]
pub(crate) enum DeviceKind {
    Host(Arc<host::HostDevice>),
    Cuda(Arc<cuda::CudaDevice>),
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Device({})", self.name())
    }
}

impl Device {
    /// The host backend, with no allocation limit.
    pub fn host() -> Device {
        Device(DeviceKind::Host(Arc::new(host::HostDevice::new(
            None, true,
        ))))
    }

    /// A host device that refuses allocations beyond `bytes` in total, so out-of-memory paths
    /// can be tested without a GPU.
    pub fn host_with_limit(bytes: usize) -> Device {
        Device(DeviceKind::Host(Arc::new(host::HostDevice::new(
            Some(bytes),
            true,
        ))))
    }

    /// A host device that reports no memory pools, like a GPU without stream-ordered
    /// allocation, so those refusal paths can be tested (M11).
    pub fn host_without_memory_pools() -> Device {
        Device(DeviceKind::Host(Arc::new(host::HostDevice::new(
            None, false,
        ))))
    }

    /// CUDA GPU number `ordinal`. Errors say what is missing: the driver library, a GPU, or
    /// that ordinal.
    pub fn cuda(ordinal: usize) -> Result<Device, Error> {
        cuda::get(ordinal).map(|d| Device(DeviceKind::Cuda(d)))
    }

    /// Number of CUDA GPUs (0 where there is no driver).
    pub fn cuda_device_count() -> usize {
        cuda::device_count().unwrap_or(0)
    }

    /// The device chosen by `GPUBLAS_DEVICE` (`host`, `cuda`, `cuda:N`); unset, the first
    /// CUDA GPU when a driver and a GPU are found, else the host.
    ///
    /// ```
    /// let dev = gpublas::Device::default()?;
    /// println!("running on {}", dev.name());
    /// # Ok::<(), gpublas::Error>(())
    /// ```
    #[allow(clippy::should_implement_trait)]
    pub fn default() -> Result<Device, Error> {
        match std::env::var("GPUBLAS_DEVICE") {
            Ok(s) if !s.trim().is_empty() => Device::from_selector(&s),
            _ => Ok(Device::cuda(0).unwrap_or_else(|_| Device::host())),
        }
    }

    /// Parses a device selector: `host`, `cuda` (GPU 0) or `cuda:N`.
    pub fn from_selector(selector: &str) -> Result<Device, Error> {
        let s = selector.trim();
        let bad = || {
            Error::InvalidValue(format!(
                "GPUBLAS_DEVICE='{selector}' is not one of host, cuda, cuda:N"
            ))
        };
        let forced = |ordinal: usize| {
            Device::cuda(ordinal).map_err(|e| {
                Error::InvalidValue(format!(
                    "GPUBLAS_DEVICE='{selector}' asks for CUDA device {ordinal}, which is not usable: {e}"
                ))
            })
        };
        match s {
            "host" => Ok(Device::host()),
            "cuda" => forced(0),
            _ => match s.strip_prefix("cuda:") {
                Some(n) => forced(n.trim().parse().map_err(|_| bad())?),
                None => Err(bad()),
            },
        }
    }

    /// Host or CUDA.
    pub fn backend(&self) -> Backend {
        match &self.0 {
            DeviceKind::Host(_) => Backend::Host,
            DeviceKind::Cuda(_) => Backend::Cuda,
        }
    }

    /// A human-readable name ("host" or the GPU's name).
    pub fn name(&self) -> String {
        match &self.0 {
            DeviceKind::Host(_) => "host".into(),
            DeviceKind::Cuda(d) => format!("cuda:{} {}", d.ordinal, d.name),
        }
    }

    /// Compute capability (major, minor) of a GPU; `None` on the host.
    pub fn compute_capability(&self) -> Option<(u32, u32)> {
        match &self.0 {
            DeviceKind::Host(_) => None,
            DeviceKind::Cuda(d) => Some(d.cc),
        }
    }

    /// Total device memory in bytes; the allocation limit on a limited host device, else `None`.
    pub fn total_memory(&self) -> Option<usize> {
        match &self.0 {
            DeviceKind::Host(h) => h.limit(),
            DeviceKind::Cuda(d) => Some(d.total_mem),
        }
    }

    /// Free device memory in bytes (on the host: what the limit leaves, `usize::MAX` without one).
    pub fn free_memory(&self) -> Result<usize, Error> {
        match &self.0 {
            DeviceKind::Host(h) => Ok(h.free()),
            DeviceKind::Cuda(d) => d.mem_info().map(|m| m.0),
        }
    }

    /// Bytes currently allocated through a host device (0 on CUDA, where the driver keeps count).
    pub fn host_bytes_in_use(&self) -> usize {
        match &self.0 {
            DeviceKind::Host(h) => h.used(),
            DeviceKind::Cuda(_) => 0,
        }
    }

    /// Multiprocessors (GPU) or a fixed parallel width of 4 (host); sizes reduction workspaces.
    pub fn multiprocessor_count(&self) -> usize {
        match &self.0 {
            DeviceKind::Host(_) => 4,
            DeviceKind::Cuda(d) => d.sm_count,
        }
    }

    /// Most shared memory one block may opt into (bytes; 0 on the host).
    pub(crate) fn smem_optin(&self) -> usize {
        match &self.0 {
            DeviceKind::Host(_) => 0,
            DeviceKind::Cuda(d) => d.smem_optin,
        }
    }

    /// Whether stream-ordered allocation (a device memory pool) is available (M11).
    pub fn supports_stream_order_alloc(&self) -> bool {
        match &self.0 {
            DeviceKind::Host(h) => h.pools,
            DeviceKind::Cuda(d) => d.pools,
        }
    }

    /// A new stream on this device.
    pub fn new_stream(&self) -> Result<Stream, Error> {
        Ok(Stream(match &self.0 {
            DeviceKind::Host(h) => StreamKind::Host {
                id: h.next_stream_id(),
                dev: h.clone(),
            },
            DeviceKind::Cuda(d) => StreamKind::Cuda(d.new_stream()?, d.clone()),
        }))
    }

    /// A stream object over a CUDA stream created elsewhere (`CUstream`/`cudaStream_t`; null is
    /// the legacy default stream), for handing to [`Handle::set_stream`](crate::Handle). The
    /// stream is not destroyed when the object is dropped. On the host backend: a new host
    /// stream (the value is ignored).
    ///
    /// # Safety
    /// On CUDA, `raw` must be a stream of this device's primary context that outlives every
    /// use of the returned object, and every buffer named by a call on it until that buffer is
    /// dropped (buffers remember the streams of their calls, to wait for them).
    pub unsafe fn wrap_stream(&self, raw: *mut c_void) -> Result<Stream, Error> {
        match &self.0 {
            DeviceKind::Host(_) => self.new_stream(),
            DeviceKind::Cuda(d) => {
                d.bind()?;
                // SAFETY: as the caller promised.
                let s = unsafe {
                    d.ctx
                        .wrap_borrowed_stream(raw as cudarc::driver::sys::CUstream)
                };
                Ok(Stream(StreamKind::Cuda(s, d.clone())))
            }
        }
    }

    /// Makes the device's context current on the calling thread (CUDA; nothing to do on the
    /// host), for code that calls CUDA libraries on gpublas memory and streams.
    pub fn bind_to_thread(&self) -> Result<(), Error> {
        match &self.0 {
            DeviceKind::Host(_) => Ok(()),
            DeviceKind::Cuda(d) => d.bind(),
        }
    }

    /// Waits for all work submitted to this device, by every thread and handle. The library
    /// itself never does this (it orders its work on streams); it is for programs that want a
    /// whole-device barrier, and it fails while any stream of the device is being captured.
    pub fn synchronize(&self) -> Result<(), Error> {
        match &self.0 {
            DeviceKind::Host(_) => Ok(()),
            DeviceKind::Cuda(d) => {
                d.bind()?;
                d.synchronize()
            }
        }
    }

    /// Allocates raw memory of `bytes` (rounded up to a chunk on the host).
    pub(crate) fn alloc_mem(&self, bytes: usize) -> Result<Mem, Error> {
        match &self.0 {
            DeviceKind::Host(h) => Ok(Mem::Host(HostMem {
                chunks: h.alloc(bytes)?,
                bytes,
                dev: h.clone(),
                borrowed: None,
            })),
            DeviceKind::Cuda(d) => Ok(Mem::Cuda(d.alloc(bytes)?)),
        }
    }

    /// A zero-filled buffer of `len` elements.
    pub fn alloc<T: Element>(&self, len: usize) -> Result<DeviceBuffer<T>, Error> {
        let bytes = len.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| {
            Error::InvalidSize(format!("{len} elements overflow the address space"))
        })?;
        let mem = self.alloc_mem(bytes)?;
        if let Mem::Cuda(m) = &mem {
            m.dev.zero_on_device(m.ptr, bytes)?;
        }
        Ok(DeviceBuffer {
            mem: Some(mem),
            len,
            _t: PhantomData,
        })
    }

    /// A buffer holding a copy of `data`.
    ///
    /// Returns once the copy has landed, so every later call on any stream reads it. It waits
    /// for nothing else: the memory is new (a dropped buffer's memory is reused only after the
    /// streams that used it have passed), so no work of any handle can be using it. For copies
    /// in a handle's stream order, use [`crate::transfer::set_vector`] and its relatives.
    pub fn upload<T: Element>(&self, data: &[T]) -> Result<DeviceBuffer<T>, Error> {
        let mut b = self.alloc_uninit::<T>(data.len())?;
        b.copy_from_host(data)?;
        Ok(b)
    }

    fn alloc_uninit<T: Element>(&self, len: usize) -> Result<DeviceBuffer<T>, Error> {
        let bytes = len.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| {
            Error::InvalidSize(format!("{len} elements overflow the address space"))
        })?;
        Ok(DeviceBuffer {
            mem: Some(self.alloc_mem(bytes)?),
            len,
            _t: PhantomData,
        })
    }

    /// Whether `self` and `other` are the same device.
    pub fn same_as(&self, other: &Device) -> bool {
        match (&self.0, &other.0) {
            (DeviceKind::Host(a), DeviceKind::Host(b)) => Arc::ptr_eq(a, b),
            (DeviceKind::Cuda(a), DeviceKind::Cuda(b)) => a.ordinal == b.ordinal,
            _ => false,
        }
    }
}

/// Raw memory owned by gpublas.
pub(crate) enum Mem {
    Host(HostMem),
    Cuda(cuda::CudaMem),
}

pub(crate) struct HostMem {
    chunks: Vec<host::Chunk>,
    bytes: usize,
    dev: Arc<host::HostDevice>,
    /// Memory owned elsewhere (`DeviceBuffer::from_raw`): its address; `chunks` is empty.
    borrowed: Option<u64>,
}

impl HostMem {
    fn addr(&self) -> u64 {
        self.borrowed.unwrap_or(self.chunks.as_ptr() as u64)
    }

    fn bytes(&self) -> &[u8] {
        match self.borrowed {
            Some(a) => host_workspace_bytes(a, self.bytes),
            None => &bytemuck::cast_slice(&self.chunks)[..self.bytes],
        }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        match self.borrowed {
            Some(a) => host_workspace_bytes(a, self.bytes),
            None => &mut bytemuck::cast_slice_mut(&mut self.chunks)[..self.bytes],
        }
    }
}

impl Drop for HostMem {
    fn drop(&mut self) {
        if self.borrowed.is_none() {
            self.dev.release(self.bytes);
        }
    }
}

impl Mem {
    /// The address of the first byte (a host address on the host backend).
    pub(crate) fn addr(&self) -> u64 {
        match self {
            Mem::Host(h) => h.addr(),
            Mem::Cuda(c) => c.ptr,
        }
    }

    pub(crate) fn bytes(&self) -> usize {
        match self {
            Mem::Host(h) => h.bytes,
            Mem::Cuda(c) => c.bytes,
        }
    }

    pub(crate) fn device(&self) -> Device {
        match self {
            Mem::Host(h) => Device(DeviceKind::Host(h.dev.clone())),
            Mem::Cuda(c) => Device(DeviceKind::Cuda(c.dev.clone())),
        }
    }

    fn host_bytes(&self) -> Option<&[u8]> {
        match self {
            Mem::Host(h) => Some(h.bytes()),
            Mem::Cuda(_) => None,
        }
    }

    fn host_bytes_mut(&mut self) -> Option<&mut [u8]> {
        match self {
            Mem::Host(h) => Some(h.bytes_mut()),
            Mem::Cuda(_) => None,
        }
    }
}

/// Bytes of host memory at a raw address: how host routines reach workspace memory, which the
/// handle lends by address (it may also be user memory handed in through the raw form of M5).
///
/// Callers hold the workspace lease that covers `[addr, addr + len)`, which is exclusive.
pub(crate) fn host_workspace_bytes<'a>(addr: u64, len: usize) -> &'a mut [u8] {
    if len == 0 {
        return &mut [];
    }
    // SAFETY: the range lies inside the handle's workspace (host memory), lent exclusively to
    // one lease, which the returned slice does not outlive in practice (routines use it within
    // the call that holds the lease).
    unsafe { std::slice::from_raw_parts_mut(addr as *mut u8, len) }
}

/// Elements of host memory at a raw address (a pinned buffer or a slice the caller holds),
/// for the transfers' packing, which may run on a driver thread in stream order.
///
/// Callers guarantee that `[addr, addr + len * size_of::<T>())` is live, aligned for `T`, and
/// not accessed otherwise until the step that uses it has finished.
pub(crate) fn host_slice_at<'a, T: Element>(addr: usize, len: usize) -> &'a mut [T] {
    if len == 0 {
        return &mut [];
    }
    // SAFETY: as documented above; the transfer routines order every use of the range.
    unsafe { std::slice::from_raw_parts_mut(addr as *mut T, len) }
}

/// A typed buffer in device memory, or a placeholder (a length and no memory) that only size
/// queries accept (M8).
pub struct DeviceBuffer<T> {
    pub(crate) mem: Option<Mem>,
    len: usize,
    _t: PhantomData<T>,
}

impl<T> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.mem {
            Some(m) => write!(
                f,
                "DeviceBuffer(len {}, on {})",
                self.len,
                m.device().name()
            ),
            None => write!(f, "DeviceBuffer(placeholder, len {})", self.len),
        }
    }
}

impl<T: Element> DeviceBuffer<T> {
    /// A buffer over `len` elements of memory that gpublas does not own (from another library,
    /// or a C caller): device memory of `dev` at `addr` on a GPU, host memory on the host
    /// backend. Dropping it frees nothing. Inside a buffer gpublas allocated, it shares that
    /// buffer's record of the streams that used it (so the owner's download and free wait for
    /// calls made through it); over foreign memory it records only the calls made through it.
    ///
    /// # Safety
    /// `[addr, addr + len * size_of::<T>())` must be memory of `dev`, aligned for `T`, and
    /// stay allocated while the buffer (and any work that uses it) lives.
    ///
    /// ```
    /// use gpublas::{blas1, Device, DeviceBuffer, Handle, Results};
    /// let dev = Device::host();
    /// let mut h = Handle::new(&dev)?;
    /// let mut v = vec![1.0f64, -2.0, 3.0];
    /// // SAFETY: `v` is host memory (the host backend's "device" memory) and outlives `x`.
    /// let x = unsafe { DeviceBuffer::<f64>::from_raw(&dev, v.as_mut_ptr() as u64, 3)? };
    /// let mut r = [0.0];
    /// let _ = blas1::asum(&mut h, 3, &x, 1, Results::Host(&mut r))?;
    /// assert_eq!(r[0], 6.0);
    /// drop(x); // frees nothing
    /// assert_eq!(v.len(), 3);
    /// # Ok::<(), gpublas::Error>(())
    /// ```
    pub unsafe fn from_raw(dev: &Device, addr: u64, len: usize) -> Result<Self, Error> {
        let bytes = len.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| {
            Error::InvalidSize(format!("{len} elements overflow the address space"))
        })?;
        if addr == 0 && bytes > 0 {
            return Err(Error::InvalidPointer(format!(
                "a null pointer for {len} elements"
            )));
        }
        if addr % std::mem::align_of::<T>() as u64 != 0 {
            return Err(Error::InvalidPointer(format!(
                "address {addr:#x} is not aligned to {} bytes",
                std::mem::align_of::<T>()
            )));
        }
        let mem = match &dev.0 {
            DeviceKind::Host(h) => Mem::Host(HostMem {
                chunks: Vec::new(),
                bytes,
                dev: h.clone(),
                borrowed: Some(addr),
            }),
            DeviceKind::Cuda(d) => Mem::Cuda(cuda::CudaMem::borrowed(d, addr, bytes)),
        };
        Ok(DeviceBuffer {
            mem: Some(mem),
            len,
            _t: PhantomData,
        })
    }

    /// Elements `offset .. offset + len` as a buffer of their own over the same memory (a
    /// tile of a distributed matrix, a sub-matrix handed to a routine): it shares this buffer's
    /// record of the streams that used it, and dropping it frees nothing. `None` past the end
    /// or for a placeholder. Work through a view and through its parent must be ordered by the
    /// caller, as for any two buffers over one memory.
    pub(crate) fn view(&self, offset: usize, len: usize) -> Option<DeviceBuffer<T>> {
        if offset.checked_add(len)? > self.len {
            return None;
        }
        let mem = self.mem.as_ref()?;
        let addr = mem.addr() + (offset * std::mem::size_of::<T>()) as u64;
        // SAFETY: the range lies inside this buffer's memory (checked above), which is aligned
        // for `T` at every element; the view's users keep the parent alive while they use it.
        unsafe { DeviceBuffer::from_raw(&mem.device(), addr, len) }.ok()
    }

    /// `len` elements of workspace memory at `addr` on `dev` as a buffer (dropping it frees
    /// nothing), for a routine that hands leased scratch to other routines as an operand.
    pub(crate) fn over_workspace(dev: &Device, addr: u64, len: usize) -> Result<Self, Error> {
        // SAFETY: the caller holds the workspace range `[addr, addr + len * size_of::<T>())` of
        // `dev` (chunk-aligned, so aligned for `T`) for as long as the buffer is used.
        unsafe { DeviceBuffer::from_raw(dev, addr, len) }
    }

    /// A placeholder of `len` elements with no memory, for size queries.
    pub fn placeholder(len: usize) -> Self {
        DeviceBuffer {
            mem: None,
            len,
            _t: PhantomData,
        }
    }

    /// Length in elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the length is zero.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether this is a placeholder without memory.
    pub fn is_placeholder(&self) -> bool {
        self.mem.is_none()
    }

    /// The device holding the memory (`None` for a placeholder).
    pub fn device(&self) -> Option<Device> {
        self.mem.as_ref().map(Mem::device)
    }

    /// The device address of element 0 (a host address on the host backend); `None` for a
    /// placeholder. For passing to code outside gpublas.
    pub fn device_ptr(&self) -> Option<u64> {
        self.mem.as_ref().map(Mem::addr)
    }

    /// Copies the contents to the host, after the work submitted so far by every call that
    /// named the buffer has finished: it waits for the streams of those calls' handles alone,
    /// never for the whole device (a stream being captured into a graph is not waited for).
    /// For a copy in one handle's stream order, use [`crate::transfer::get_vector`].
    pub fn to_vec(&self) -> Result<Vec<T>, Error> {
        let mem = self.mem.as_ref().ok_or_else(|| {
            Error::InvalidPointer(format!(
                "a placeholder of {} elements has no contents",
                self.len
            ))
        })?;
        let mut out = vec![T::zeroed(); self.len];
        match mem {
            Mem::Host(_) => {
                out.copy_from_slice(self.host_slice().unwrap_or(&[]));
            }
            Mem::Cuda(c) => {
                c.users.wait()?;
                c.dev
                    .copy_to_host(bytemuck::cast_slice_mut(&mut out), c.ptr)?
            }
        }
        Ok(out)
    }

    /// Overwrites the contents with `data` (same length), after the work submitted so far by
    /// every call that named the buffer has finished (their handles' streams alone, as
    /// [`DeviceBuffer::to_vec`]), and returns once the copy has landed.
    /// [`crate::transfer::set_vector`] copies in a handle's stream order instead.
    pub fn copy_from_host(&mut self, data: &[T]) -> Result<(), Error> {
        if data.len() != self.len {
            return Err(Error::InvalidSize(format!(
                "copy of {} elements into a buffer of {}",
                data.len(),
                self.len
            )));
        }
        let mem = self.mem.as_mut().ok_or_else(|| {
            Error::InvalidPointer(format!(
                "a placeholder of {} elements has no memory",
                data.len()
            ))
        })?;
        match mem {
            Mem::Host(_) => {
                if let Some(s) = self.host_slice_mut() {
                    s.copy_from_slice(data);
                }
                Ok(())
            }
            Mem::Cuda(c) => {
                c.users.wait()?;
                c.dev.copy_to_device(c.ptr, bytemuck::cast_slice(data))
            }
        }
    }

    /// Waits for the work of every stream that used the buffer so far (CUDA; nothing on the
    /// host backend or for a placeholder).
    pub(crate) fn wait_users(&self) -> Result<(), Error> {
        match &self.mem {
            Some(Mem::Cuda(c)) => c.users.wait(),
            _ => Ok(()),
        }
    }

    /// Records that work submitted to `stream` from now on may use the buffer, so downloads,
    /// overwrites and the free wait for that stream (cheap when the stream is the last one
    /// recorded; nothing to record on the host backend or for a placeholder). Every gpublas
    /// routine does this for its operands; code that launches its own work on the buffer
    /// (another library on [`Stream::as_raw`]) calls it before that work.
    pub fn mark_used(&self, stream: &Stream) {
        if let (Some(Mem::Cuda(c)), StreamKind::Cuda(s, _)) = (&self.mem, &stream.0) {
            c.users.add(s);
        }
    }

    /// Whether the memory is on `dev` (false for a placeholder); cheap, for per-operand checks.
    pub(crate) fn is_on(&self, dev: &Device) -> bool {
        self.addr_on(dev).is_some()
    }

    /// The address of element 0 if the memory is on `dev`: one match, for long operand lists.
    #[inline]
    pub(crate) fn addr_on(&self, dev: &Device) -> Option<u64> {
        match (&self.mem, &dev.0) {
            (Some(Mem::Host(m)), DeviceKind::Host(d)) if Arc::ptr_eq(&m.dev, d) => Some(m.addr()),
            (Some(Mem::Cuda(m)), DeviceKind::Cuda(d)) if Arc::ptr_eq(&m.dev, d) => Some(m.ptr),
            _ => None,
        }
    }

    /// The contents as a host slice (host backend only).
    pub(crate) fn host_slice(&self) -> Option<&[T]> {
        let bytes = self.mem.as_ref()?.host_bytes()?;
        if self.len == 0 {
            // Memory of no elements may be at any address, null included, and its byte slice is
            // then a fresh empty one, not aligned for `T`: the cast would fail.
            return Some(&[]);
        }
        Some(bytemuck::cast_slice(
            &bytes[..self.len * std::mem::size_of::<T>()],
        ))
    }

    pub(crate) fn host_slice_mut(&mut self) -> Option<&mut [T]> {
        let len = self.len;
        let bytes = self.mem.as_mut()?.host_bytes_mut()?;
        if len == 0 {
            return Some(&mut []);
        }
        Some(bytemuck::cast_slice_mut(
            &mut bytes[..len * std::mem::size_of::<T>()],
        ))
    }
}

/// An ordered queue of work on one device.
#[derive(Clone)]
pub struct Stream(pub(crate) StreamKind);

#[derive(Clone)]
pub(crate) enum StreamKind {
    Host { id: u64, dev: Arc<host::HostDevice> },
    Cuda(Arc<cudarc::driver::CudaStream>, Arc<cuda::CudaDevice>),
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            StreamKind::Host { id, .. } => write!(f, "Stream(host #{id})"),
            StreamKind::Cuda(s, d) => write!(f, "Stream(cuda:{} {:?})", d.ordinal, s.cu_stream()),
        }
    }
}

impl PartialEq for Stream {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (StreamKind::Host { id: a, dev: da }, StreamKind::Host { id: b, dev: db }) => {
                a == b && Arc::ptr_eq(da, db)
            }
            (StreamKind::Cuda(a, _), StreamKind::Cuda(b, _)) => a.cu_stream() == b.cu_stream(),
            _ => false,
        }
    }
}

impl Stream {
    /// Waits until all work submitted to this stream has finished.
    pub fn synchronize(&self) -> Result<(), Error> {
        match &self.0 {
            StreamKind::Host { .. } => Ok(()),
            StreamKind::Cuda(s, _) => cuda::stream_sync(s),
        }
    }

    /// The device this stream belongs to.
    pub fn device(&self) -> Device {
        match &self.0 {
            StreamKind::Host { dev, .. } => Device(DeviceKind::Host(dev.clone())),
            StreamKind::Cuda(_, d) => Device(DeviceKind::Cuda(d.clone())),
        }
    }

    /// The raw `CUstream` (null for the legacy default stream and on the host backend), for
    /// C callers and interoperation; the stream stays owned by this object.
    pub fn as_raw(&self) -> *mut c_void {
        match &self.0 {
            StreamKind::Host { .. } => std::ptr::null_mut(),
            StreamKind::Cuda(s, _) => s.cu_stream() as *mut c_void,
        }
    }

    /// Whether work on this stream is being captured into a graph.
    pub fn is_capturing(&self) -> Result<bool, Error> {
        match &self.0 {
            StreamKind::Host { .. } => Ok(false),
            StreamKind::Cuda(s, _) => cuda::is_capturing(s),
        }
    }

    /// Starts capturing this stream's work into a graph (CUDA only).
    pub fn begin_capture(&self) -> Result<(), Error> {
        match &self.0 {
            StreamKind::Host { .. } => Err(Error::Unsupported(
                "graph capture on the host backend".into(),
            )),
            StreamKind::Cuda(s, d) => {
                d.bind()?;
                cuda::begin_capture(s)
            }
        }
    }

    /// Ends a capture and returns the executable graph.
    pub fn end_capture(&self) -> Result<Graph, Error> {
        match &self.0 {
            StreamKind::Host { .. } => Err(Error::Unsupported(
                "graph capture on the host backend".into(),
            )),
            StreamKind::Cuda(s, _) => match cuda::end_capture(s)? {
                Some(g) => Ok(Graph(g)),
                None => Err(Error::driver(
                    "cuStreamEndCapture",
                    "the capture recorded no work",
                )),
            },
        }
    }
}

/// An executable graph captured from a stream (CUDA only).
pub struct Graph(cudarc::driver::CudaGraph);

impl Graph {
    /// Replays the graph on the stream it was captured from.
    pub fn launch(&self) -> Result<(), Error> {
        cuda::graph_launch(&self.0)
    }
}

/// Device-side timer for benchmarks: CUDA events on a stream; the host clock on the host.
pub struct Timer {
    inner: TimerKind,
}

enum TimerKind {
    Host(std::time::Instant),
    Cuda {
        start: cudarc::driver::CudaEvent,
        stop: cudarc::driver::CudaEvent,
        stream: Arc<cudarc::driver::CudaStream>,
    },
}

impl Timer {
    /// Starts timing work submitted to `stream` from now on.
    pub fn start(stream: &Stream) -> Result<Timer, Error> {
        Ok(Timer {
            inner: match &stream.0 {
                StreamKind::Host { .. } => TimerKind::Host(std::time::Instant::now()),
                StreamKind::Cuda(s, d) => {
                    let start = cuda::timed_event(d)?;
                    let stop = cuda::timed_event(d)?;
                    cuda::event_record(&start, s)?;
                    TimerKind::Cuda {
                        start,
                        stop,
                        stream: s.clone(),
                    }
                }
            },
        })
    }

    /// Stops timing; waits for the work and returns the elapsed seconds.
    pub fn stop(self) -> Result<f64, Error> {
        match self.inner {
            TimerKind::Host(t) => Ok(t.elapsed().as_secs_f64()),
            TimerKind::Cuda {
                start,
                stop,
                stream,
            } => {
                cuda::event_record(&stop, &stream)?;
                Ok(cuda::event_elapsed_ms(&start, &stop)? as f64 * 1e-3)
            }
        }
    }
}

/// A point in a stream's order, for timelines of the work on several streams (CUDA events,
/// comparable across the streams of a device; the host clock on the host).
pub(crate) enum Stamp {
    Host(std::time::Instant),
    Cuda(cudarc::driver::CudaEvent),
}

impl Stamp {
    /// Marks the point in `stream` after the work submitted so far.
    pub(crate) fn on(stream: &Stream) -> Result<Stamp, Error> {
        match &stream.0 {
            StreamKind::Host { .. } => Ok(Stamp::Host(std::time::Instant::now())),
            StreamKind::Cuda(s, d) => {
                let e = cuda::timed_event(d)?;
                cuda::event_record(&e, s)?;
                Ok(Stamp::Cuda(e))
            }
        }
    }

    /// Milliseconds from `earlier` to this point; waits for this point to be reached.
    pub(crate) fn ms_since(&self, earlier: &Stamp) -> Result<f64, Error> {
        match (earlier, self) {
            (Stamp::Cuda(a), Stamp::Cuda(b)) => Ok(cuda::event_elapsed_ms(a, b)? as f64),
            (Stamp::Host(a), Stamp::Host(b)) => Ok(b.duration_since(*a).as_secs_f64() * 1e3),
            _ => Ok(0.0),
        }
    }
}

/// Kernel parameters: each element points at a live value of the type the kernel declares.
pub(crate) type Params<'a> = &'a mut [*mut c_void];

/// A pointer to `v` for a kernel parameter list.
pub(crate) fn param<T>(v: &T) -> *mut c_void {
    v as *const T as *mut c_void
}

/// Memory of one stream-ordered lease (M11): freed in stream order when dropped.
pub(crate) enum LeaseMem {
    Host(Mem),
    Cuda(cuda::PoolMem),
}

impl LeaseMem {
    pub(crate) fn addr(&self) -> u64 {
        match self {
            LeaseMem::Host(m) => m.addr(),
            LeaseMem::Cuda(p) => p.ptr,
        }
    }
}

impl Stream {
    /// A stream-ordered allocation of `bytes` on this stream (M11).
    pub(crate) fn pool_alloc(&self, bytes: usize) -> Result<LeaseMem, Error> {
        match &self.0 {
            StreamKind::Host { dev, .. } => Ok(LeaseMem::Host(
                Device(DeviceKind::Host(dev.clone())).alloc_mem(bytes)?,
            )),
            StreamKind::Cuda(s, d) => Ok(LeaseMem::Cuda(d.pool_alloc(s, bytes)?)),
        }
    }

    /// Copies host bytes to device address `dst` in stream order. Returns once `src` may be
    /// reused (pageable memory is staged); not capturable into a graph.
    pub(crate) fn write_bytes(&self, dst: u64, src: &[u8]) -> Result<(), Error> {
        match &self.0 {
            StreamKind::Host { .. } => {
                host_workspace_bytes(dst, src.len()).copy_from_slice(src);
                Ok(())
            }
            StreamKind::Cuda(s, d) => d.copy_to_device_on(s, dst, src),
        }
    }

    /// Copies `dst.len()` bytes at device address `src` to the host in stream order and waits.
    pub(crate) fn read_bytes(&self, src: u64, dst: &mut [u8]) -> Result<(), Error> {
        match &self.0 {
            StreamKind::Host { .. } => {
                dst.copy_from_slice(host_workspace_bytes(src, dst.len()));
                Ok(())
            }
            StreamKind::Cuda(s, d) => d.copy_to_host_on(s, dst, src),
        }
    }
}

impl Device {
    /// Prepares stream-ordered allocation (raises the pool's release threshold on CUDA).
    pub(crate) fn enable_stream_order_alloc(&self) -> Result<(), Error> {
        match &self.0 {
            DeviceKind::Host(_) => Ok(()),
            DeviceKind::Cuda(d) => d.enable_pool(),
        }
    }
}

/// Orders a new stream after an old one with a reusable event (M12).
#[derive(Default)]
pub(crate) struct StreamJoiner(Option<cudarc::driver::CudaEvent>);

impl StreamJoiner {
    /// Makes `new` wait for all work submitted to `old` so far; never blocks the host.
    pub(crate) fn order(&mut self, old: &Stream, new: &Stream) -> Result<(), Error> {
        match (&old.0, &new.0) {
            (StreamKind::Cuda(o, d), StreamKind::Cuda(n, _)) => {
                if self.0.is_none() {
                    self.0 = Some(d.new_event()?);
                }
                match &self.0 {
                    Some(e) => cuda::stream_order(e, o, n),
                    None => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }
}

impl Stream {
    /// Makes work submitted to `self` from now on wait for the work submitted to `other` so
    /// far (an event, so across devices too); never blocks the host. Nothing on the host
    /// backend, whose work runs in call order.
    pub(crate) fn wait_for(&self, other: &Stream) -> Result<(), Error> {
        if self == other {
            return Ok(());
        }
        StreamJoiner::default().order(other, self)
    }
}

/// The device address of the `rows × cols` column-major block of `buf` at element `at` with
/// column stride `ld` (`None` for an empty block); `InvalidSize` if it leaves the buffer,
/// `InvalidPointer` for a placeholder.
pub(crate) fn block_address<T: Element>(
    buf: &DeviceBuffer<T>,
    (at, ld): (usize, usize),
    (rows, cols): (usize, usize),
) -> Result<Option<u64>, Error> {
    if rows == 0 || cols == 0 {
        return Ok(None);
    }
    let end = (cols - 1)
        .checked_mul(ld)
        .and_then(|v| v.checked_add(at))
        .and_then(|v| v.checked_add(rows));
    if ld < rows || end.is_none_or(|end| end > buf.len()) {
        return Err(Error::InvalidSize(format!(
            "a {rows} x {cols} block at element {at} (ld {ld}) leaves a buffer of {} elements",
            buf.len()
        )));
    }
    let base = buf
        .device_ptr()
        .ok_or_else(|| Error::InvalidPointer("a block of a placeholder".into()))?;
    Ok(Some(base + (at * std::mem::size_of::<T>()) as u64))
}

/// Copies a `rows × cols` column-major block between two device buffers (on one device or
/// two) in `stream`'s order: elements from `src_at` with column stride `src_ld` to `dst_at`
/// with stride `dst_ld`. `InvalidSize` if either block leaves its buffer.
pub(crate) fn copy_block<T: Element>(
    stream: &Stream,
    shape: (usize, usize),
    src: &DeviceBuffer<T>,
    src_at: (usize, usize),
    dst: &mut DeviceBuffer<T>,
    dst_at: (usize, usize),
) -> Result<(), Error> {
    let (Some(s), Some(d)) = (
        block_address(src, src_at, shape)?,
        block_address(dst, dst_at, shape)?,
    ) else {
        return Ok(());
    };
    let size = std::mem::size_of::<T>();
    src.mark_used(stream);
    dst.mark_used(stream);
    stream.copy_2d(&Copy2d {
        src: Loc::Dev(s),
        src_pitch: src_at.1 * size,
        dst: Loc::Dev(d),
        dst_pitch: dst_at.1 * size,
        width: shape.0 * size,
        height: shape.1,
    })
}

/// A second stream on the handle's device for work that may run beside the handle's stream
/// (the solver's look-ahead panel), ordered with it by events only, so a graph capture of the
/// handle's stream takes the side's work in too (CUDA only).
pub(crate) struct SideLane {
    stream: Stream,
    fork: cudarc::driver::CudaEvent,
    join: cudarc::driver::CudaEvent,
}

impl SideLane {
    /// The side lane of `dev` (`None` on the host backend, whose steps run in program order).
    pub(crate) fn new(dev: &Device) -> Result<Option<SideLane>, Error> {
        match &dev.0 {
            DeviceKind::Host(_) => Ok(None),
            DeviceKind::Cuda(d) => Ok(Some(SideLane {
                stream: Stream(StreamKind::Cuda(d.new_urgent_stream()?, d.clone())),
                fork: d.new_order_event()?,
                join: d.new_order_event()?,
            })),
        }
    }

    /// The side stream.
    pub(crate) fn stream(&self) -> &Stream {
        &self.stream
    }

    /// Work submitted to the side from now on waits for `main`'s work so far.
    pub(crate) fn fork(&self, main: &Stream) -> Result<(), Error> {
        match (&main.0, &self.stream.0) {
            (StreamKind::Cuda(m, _), StreamKind::Cuda(s, _)) => {
                cuda::stream_order(&self.fork, m, s)
            }
            _ => Ok(()),
        }
    }

    /// Work submitted to `main` from now on waits for the side's work so far.
    pub(crate) fn join(&self, main: &Stream) -> Result<(), Error> {
        match (&main.0, &self.stream.0) {
            (StreamKind::Cuda(m, _), StreamKind::Cuda(s, _)) => {
                cuda::stream_order(&self.join, s, m)
            }
            _ => Ok(()),
        }
    }
}

impl Stream {
    /// Launches `func` of `module` with `grid` blocks of `block` threads (CUDA only).
    ///
    /// The caller has checked every device range the kernel touches (SPEC F7).
    pub(crate) fn launch(
        &self,
        module: &KernelModule,
        func: &str,
        grid: u32,
        block: u32,
        params: Params<'_>,
    ) -> Result<(), Error> {
        match &self.0 {
            StreamKind::Host { .. } => Err(Error::Unsupported(format!(
                "kernel {func} launched on the host backend"
            ))),
            StreamKind::Cuda(s, d) => d.launch(s, module, func, (grid, 1, 1), block, 0, params),
        }
    }

    /// `launch` with a 3-D grid, `shared` bytes of dynamic shared memory and, when
    /// `cooperative`, all blocks resident at once (CUDA only).
    pub(crate) fn launch_with(
        &self,
        module: &KernelModule,
        func: &str,
        grid: (u32, u32, u32),
        (block, shared): (u32, u32),
        cooperative: bool,
        params: Params<'_>,
    ) -> Result<(), Error> {
        match &self.0 {
            StreamKind::Host { .. } => Err(Error::Unsupported(format!(
                "kernel {func} launched on the host backend"
            ))),
            StreamKind::Cuda(s, d) => {
                d.launch_with(s, module, func, (grid, block, shared), cooperative, params)
            }
        }
    }

    /// Fills `count` 32-bit words at device address `dst` with `value`, in stream order.
    pub(crate) fn memset32(&self, dst: u64, value: u32, count: usize) -> Result<(), Error> {
        match &self.0 {
            StreamKind::Host { .. } => {
                let b = host_workspace_bytes(dst, count * 4);
                for w in b.chunks_exact_mut(4) {
                    w.copy_from_slice(&value.to_ne_bytes());
                }
                Ok(())
            }
            StreamKind::Cuda(s, d) => d.memset32(s, dst, value, count),
        }
    }

    /// Binds the stream's device to the calling thread (CUDA), so work lands on it (M15).
    pub(crate) fn bind(&self) -> Result<(), Error> {
        match &self.0 {
            StreamKind::Host { .. } => Ok(()),
            StreamKind::Cuda(_, d) => d.bind(),
        }
    }
}

/// One compilation unit: a kernel source and the family define that selects its kernels.
#[derive(Debug, Clone, Copy)]
pub struct KernelModule {
    /// Module name, unique (e.g. `"blas1.dot"`).
    pub name: &'static str,
    /// The CUDA C++ source.
    pub source: &'static str,
    /// The family macro defined when compiling it.
    pub define: &'static str,
}
