//! Page-locked ("pinned") host memory and the raw copies between host and device that the
//! auxiliary transfers (`crate::transfer`) are built from.
//!
//! Copies take host memory by address: the transfer routines guarantee that it stays valid and
//! untouched until the copy has finished (synchronous forms wait; asynchronous forms only take
//! a `PinnedBuffer`, whose every access and drop waits for the copies that use it).

use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use cudarc::driver::{result, sys, CudaEvent, CudaStream};

use super::cuda::CudaDevice;
use super::{
    host, host_slice_at, host_workspace_bytes, Device, DeviceKind, Element, Stream, StreamKind,
};
use crate::Error;

fn drv(op: &str) -> impl FnOnce(result::DriverError) -> Error + '_ {
    move |e| Error::driver(op, e)
}

/// A host buffer in page-locked memory, allocated through a device: the copy engines read and
/// write it directly, so copies from and to it run at the host link's speed and can be
/// asynchronous (the `_async` transfers take only this type). On the host backend it is
/// ordinary memory.
///
/// Reading or writing it (through `Deref`, `as_slice`, …) first waits for the asynchronous
/// copies that use it, so a slice never sees a copy in flight.
///
/// ```
/// let dev = gpublas::Device::host();
/// let mut p = dev.alloc_pinned::<f32>(4)?;
/// p.copy_from_slice(&[1.0, 2.0, 3.0, 4.0]);
/// assert_eq!(p[2], 3.0);
/// # Ok::<(), gpublas::Error>(())
/// ```
pub struct PinnedBuffer<T> {
    mem: PinnedMem,
    len: usize,
    /// The last asynchronous copy of each stream that used the buffer (CUDA, outside graph
    /// capture), by the stream's raw handle: later accesses and the free wait for all of them.
    pending: Mutex<Vec<(usize, CudaEvent)>>,
    _t: PhantomData<T>,
}

enum PinnedMem {
    Host(Vec<host::Chunk>),
    Cuda {
        addr: usize,
        dev: Arc<CudaDevice>,
        /// Large buffers: huge-page memory from the allocator, registered with the driver
        /// (`cuMemHostRegister`), with its layout; small ones come from `cuMemHostAlloc`.
        registered: Option<std::alloc::Layout>,
    },
    /// Page-locked memory owned elsewhere (`PinnedBuffer::from_raw`).
    Borrowed {
        addr: usize,
        cuda: bool,
    },
}

// SAFETY: the buffer owns its allocation; shared access only reads it, and copies in flight are
// waited for (through `pending`) before any slice of it is handed out.
unsafe impl<T: Send> Send for PinnedBuffer<T> {}
// SAFETY: as above; `pending` is behind a mutex.
unsafe impl<T: Sync> Sync for PinnedBuffer<T> {}

impl<T> std::fmt::Debug for PinnedBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let on = match &self.mem {
            PinnedMem::Host(_) => "host".to_string(),
            PinnedMem::Cuda { dev, .. } => format!("cuda:{}", dev.ordinal),
            PinnedMem::Borrowed { .. } => "memory owned elsewhere".to_string(),
        };
        write!(f, "PinnedBuffer(len {}, pinned for {on})", self.len)
    }
}

impl Device {
    /// A zero-filled buffer of `len` elements in page-locked host memory, for asynchronous
    /// transfers ([`crate::transfer`]) and host-link-speed copies.
    pub fn alloc_pinned<T: Element>(&self, len: usize) -> Result<PinnedBuffer<T>, Error> {
        let bytes = len.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| {
            Error::InvalidSize(format!("{len} elements overflow the address space"))
        })?;
        let mem = match &self.0 {
            DeviceKind::Host(_) => PinnedMem::Host(vec![
                <host::Chunk as bytemuck::Zeroable>::zeroed(
                );
                bytes.div_ceil(64)
            ]),
            DeviceKind::Cuda(d) => {
                d.bind()?;
                if bytes >= HUGE {
                    huge_registered(d, bytes)?
                } else {
                    // SAFETY: the context is current; the memory is zero-filled below before any
                    // slice of it is made.
                    let p =
                        unsafe { result::malloc_host(bytes.max(1), sys::CU_MEMHOSTALLOC_PORTABLE) }
                            .map_err(|e| Error::MemoryError {
                                needed: bytes,
                                available: 0,
                                detail: format!(
                                    "cuMemHostAlloc of page-locked host memory failed: {e}"
                                ),
                            })?;
                    // SAFETY: `p` heads a fresh allocation of at least `bytes` bytes.
                    unsafe { std::ptr::write_bytes(p as *mut u8, 0, bytes) };
                    PinnedMem::Cuda {
                        addr: p as usize,
                        dev: d.clone(),
                        registered: None,
                    }
                }
            }
        };
        Ok(PinnedBuffer {
            mem,
            len,
            pending: Mutex::new(Vec::new()),
            _t: PhantomData,
        })
    }

    /// Whether `addr` lies in page-locked host memory known to the driver (always false on the
    /// host backend, where it does not matter).
    pub(crate) fn is_pinned(&self, addr: usize) -> bool {
        match &self.0 {
            DeviceKind::Host(_) => false,
            DeviceKind::Cuda(d) => {
                if d.bind().is_err() {
                    return false;
                }
                let mut ty = 0u32;
                let mut attr = sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
                let mut data = [&mut ty as *mut u32 as *mut c_void];
                // SAFETY: a plain attribute query into `ty`; unlike cuPointerGetAttribute, the
                // plural form answers 0 (not an error) for pageable memory, so sanitizers and
                // error hooks stay quiet.
                let r = unsafe {
                    sys::cuPointerGetAttributes(1, &mut attr, data.as_mut_ptr(), addr as u64)
                };
                r == sys::CUresult::CUDA_SUCCESS
                    && ty == sys::CUmemorytype::CU_MEMORYTYPE_HOST as u32
            }
        }
    }
}

impl<T: Element> PinnedBuffer<T> {
    /// A pinned buffer over `len` elements of page-locked host memory that gpublas does not own
    /// (`cudaMallocHost`, `cuMemHostAlloc` or registered memory; ordinary memory on the host
    /// backend), for the asynchronous transfers of a C caller. Dropping it frees nothing and
    /// waits for nothing.
    ///
    /// # Safety
    /// The range must be page-locked memory usable by `dev` (any memory on the host backend),
    /// aligned for `T`, and stay allocated until every copy that uses it has finished.
    pub unsafe fn from_raw(dev: &Device, addr: usize, len: usize) -> Result<Self, Error> {
        let bytes = len.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| {
            Error::InvalidSize(format!("{len} elements overflow the address space"))
        })?;
        if (addr == 0 && bytes > 0) || addr % std::mem::align_of::<T>() != 0 {
            return Err(Error::InvalidPointer(format!(
                "host address {addr:#x} for {len} elements is null or not aligned to {} bytes",
                std::mem::align_of::<T>()
            )));
        }
        let cuda = matches!(dev.0, DeviceKind::Cuda(_));
        if cuda && bytes > 0 && !dev.is_pinned(addr) {
            return Err(Error::InvalidPointer(format!(
                "host address {addr:#x} is not page-locked memory known to the CUDA driver"
            )));
        }
        Ok(PinnedBuffer {
            mem: PinnedMem::Borrowed { addr, cuda },
            len,
            pending: Mutex::new(Vec::new()),
            _t: PhantomData,
        })
    }

    /// Length in elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the length is zero.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The contents, after the asynchronous copies that use the buffer have finished.
    pub fn as_slice(&self) -> &[T] {
        self.wait();
        // Typed from the start: an empty byte slice would fail the aligned cast.
        host_slice_at(self.addr(), self.len)
    }

    /// The contents, writable, after the asynchronous copies that use the buffer have finished.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.wait();
        host_slice_at(self.addr(), self.len)
    }

    /// The host address of element 0 (no waiting: for enqueuing copies).
    pub(crate) fn addr(&self) -> usize {
        match &self.mem {
            PinnedMem::Host(v) => v.as_ptr() as usize,
            PinnedMem::Cuda { addr, .. } => *addr,
            PinnedMem::Borrowed { addr, .. } => *addr,
        }
    }

    /// Whether the buffer was allocated through `dev`'s backend (page-locked for a GPU).
    pub(crate) fn usable_on(&self, dev: &Device) -> bool {
        let on_cuda = matches!(dev.0, DeviceKind::Cuda(_));
        match &self.mem {
            PinnedMem::Host(_) => !on_cuda,
            PinnedMem::Cuda { .. } => on_cuda,
            PinnedMem::Borrowed { cuda, .. } => *cuda == on_cuda,
        }
    }

    /// Records that copies enqueued on `stream` so far use the buffer: later accesses wait for
    /// them. Under graph capture nothing is recorded (replays are ordered by the caller).
    pub(crate) fn mark_used(&self, stream: &Stream) -> Result<(), Error> {
        if let StreamKind::Cuda(s, d) = &stream.0 {
            if stream.is_capturing()? {
                return Ok(());
            }
            let e = d.new_event()?;
            e.record(s).map_err(drv("cuEventRecord"))?;
            let key = s.cu_stream() as usize;
            if let Ok(mut p) = self.pending.lock() {
                // A stream's newer event covers its older one; other streams' stay.
                p.retain(|(k, _)| *k != key);
                p.push((key, e));
            }
        }
        Ok(())
    }

    /// Waits for the copies recorded by `mark_used`, on every stream that recorded one.
    pub(crate) fn wait(&self) {
        wait_all(&self.pending);
    }
}

impl<T: Element> std::ops::Deref for PinnedBuffer<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Element> std::ops::DerefMut for PinnedBuffer<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<T> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        if let PinnedMem::Cuda {
            addr,
            dev,
            registered,
        } = &self.mem
        {
            // Copies enqueued into it must finish first: wait for the ones `mark_used` recorded
            // (their streams only; a graph launched later is ordered by its caller).
            let _ = dev.bind();
            wait_all(&self.pending);
            match registered {
                Some(layout) => {
                    // SAFETY: registered and allocated with `layout` by `huge_registered`;
                    // unregistered and freed once; nothing uses it now.
                    unsafe {
                        if let Err(e) = sys::cuMemHostUnregister(*addr as *mut c_void).result() {
                            tracing::error!(error = %e, "cuMemHostUnregister failed");
                        }
                        std::alloc::dealloc(*addr as *mut u8, *layout);
                    }
                }
                // SAFETY: `addr` came from cuMemHostAlloc and is freed once; nothing uses it now.
                None => {
                    if let Err(e) = unsafe { result::free_host(*addr as *mut c_void) } {
                        tracing::error!(error = %e, "cuMemFreeHost failed");
                    }
                }
            }
        }
    }
}

/// From this size on, pinned buffers are huge-page memory registered with the driver, like the
/// pageable memory the host packing reads fastest (one H100 run read `cuMemHostAlloc` memory at
/// 10 GB/s against 25 GB/s pageable; across runs the packing rate varies, see NOTES.md).
const HUGE: usize = 2 << 20;

/// `bytes` of zeroed, 2 MiB-aligned memory advised for huge pages, touched, then page-locked.
fn huge_registered(d: &Arc<CudaDevice>, bytes: usize) -> Result<PinnedMem, Error> {
    let oom = |what: String| Error::MemoryError {
        needed: bytes,
        available: 0,
        detail: what,
    };
    let layout = std::alloc::Layout::from_size_align(bytes.next_multiple_of(HUGE), HUGE)
        .map_err(|e| oom(format!("page-locked host buffer layout: {e}")))?;
    // SAFETY: a non-zero size (bytes >= HUGE).
    let p = unsafe { std::alloc::alloc(layout) };
    if p.is_null() {
        return Err(oom("allocating host memory for a page-locked buffer".into()));
    }
    // SAFETY: `p` heads `layout.size()` bytes just allocated; the advice only affects how the
    // kernel backs them, and the writes fault them in (as huge pages where it can).
    unsafe {
        libc::madvise(p as *mut c_void, layout.size(), libc::MADV_HUGEPAGE);
        std::ptr::write_bytes(p, 0, layout.size());
    }
    // SAFETY: registers the range just allocated; it is unregistered before being freed.
    let r = unsafe {
        sys::cuMemHostRegister_v2(
            p as *mut c_void,
            layout.size(),
            sys::CU_MEMHOSTREGISTER_PORTABLE,
        )
    };
    if let Err(e) = r.result() {
        // SAFETY: allocated above with this layout, not registered.
        unsafe { std::alloc::dealloc(p, layout) };
        return Err(oom(format!(
            "cuMemHostRegister of a page-locked buffer failed: {e}"
        )));
    }
    Ok(PinnedMem::Cuda {
        addr: p as usize,
        dev: d.clone(),
        registered: Some(layout),
    })
}

/// One side of a raw copy.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Loc {
    /// A host address (pinned or pageable).
    Host(usize),
    /// A device address.
    Dev(u64),
}

/// A copy of `height` rows of `width` bytes, `src_pitch` and `dst_pitch` bytes apart (a
/// column-major matrix: a row here is a column there).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Copy2d {
    pub src: Loc,
    pub src_pitch: usize,
    pub dst: Loc,
    pub dst_pitch: usize,
    pub width: usize,
    pub height: usize,
}

impl Stream {
    /// Copies `bytes` from `src` to `dst` in stream order (host backend: now). Host memory
    /// must stay valid until the copy has finished (the caller waits, or it is a pinned
    /// buffer marked used); the caller has checked both ranges.
    pub(crate) fn copy_raw(&self, dst: Loc, src: Loc, bytes: usize) -> Result<(), Error> {
        if bytes == 0 {
            return Ok(());
        }
        match &self.0 {
            StreamKind::Host { .. } => {
                let (d, s) = (loc_addr(dst), loc_addr(src));
                let from = host_workspace_bytes(s, bytes).to_vec();
                host_workspace_bytes(d, bytes).copy_from_slice(&from);
                Ok(())
            }
            StreamKind::Cuda(s, _) => cuda_copy(s, dst, src, bytes),
        }
    }

    /// A 2-D copy in stream order; as `copy_raw`.
    pub(crate) fn copy_2d(&self, c: &Copy2d) -> Result<(), Error> {
        if c.width == 0 || c.height == 0 {
            return Ok(());
        }
        match &self.0 {
            StreamKind::Host { .. } => {
                for row in 0..c.height {
                    let d = loc_addr(c.dst) + (row * c.dst_pitch) as u64;
                    let s = loc_addr(c.src) + (row * c.src_pitch) as u64;
                    let from = host_workspace_bytes(s, c.width).to_vec();
                    host_workspace_bytes(d, c.width).copy_from_slice(&from);
                }
                Ok(())
            }
            StreamKind::Cuda(s, _) => {
                let (st, sh, sd) = parts(c.src);
                let (dt, dh, dd) = parts(c.dst);
                let p = sys::CUDA_MEMCPY2D_st {
                    srcXInBytes: 0,
                    srcY: 0,
                    srcMemoryType: st,
                    srcHost: sh as *const c_void,
                    srcDevice: sd,
                    srcArray: std::ptr::null_mut(),
                    srcPitch: c.src_pitch,
                    dstXInBytes: 0,
                    dstY: 0,
                    dstMemoryType: dt,
                    dstHost: dh as *mut c_void,
                    dstDevice: dd,
                    dstArray: std::ptr::null_mut(),
                    dstPitch: c.dst_pitch,
                    WidthInBytes: c.width,
                    Height: c.height,
                };
                // SAFETY: both ranges were checked by the caller and stay valid until the copy
                // has finished (see the module docs); `p` is copied by the call.
                unsafe { sys::cuMemcpy2DAsync_v2(&p, s.cu_stream()) }
                    .result()
                    .map_err(drv("cuMemcpy2DAsync"))
            }
        }
    }

    /// Runs `f` on a host thread in stream order, after the work enqueued before it (host
    /// backend: now). Not capturable; the caller checks.
    pub(crate) fn host_fn(&self, f: Box<dyn FnOnce() + Send + 'static>) -> Result<(), Error> {
        match &self.0 {
            StreamKind::Host { .. } => {
                f();
                Ok(())
            }
            StreamKind::Cuda(s, _) => {
                let data = Box::into_raw(Box::new(f));
                // SAFETY: `data` is a leaked Box that `run_host_fn` takes back exactly once,
                // when the driver runs it; on failure to enqueue it is taken back here.
                let r = unsafe {
                    sys::cuLaunchHostFunc(s.cu_stream(), Some(run_host_fn), data as *mut c_void)
                }
                .result();
                if let Err(e) = r {
                    // SAFETY: the driver did not take `data`.
                    drop(unsafe { Box::from_raw(data) });
                    return Err(Error::driver("cuLaunchHostFunc", e));
                }
                Ok(())
            }
        }
    }
}

type HostJob = Box<dyn FnOnce() + Send + 'static>;

unsafe extern "C" fn run_host_fn(data: *mut c_void) {
    // SAFETY: `data` is the Box leaked by `host_fn`, passed to this function once.
    let f = unsafe { Box::from_raw(data as *mut HostJob) };
    // A panic must not unwind into the driver.
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err() {
        tracing::error!("a host-side transfer step panicked");
    }
}

fn loc_addr(l: Loc) -> u64 {
    match l {
        Loc::Host(a) => a as u64,
        Loc::Dev(a) => a,
    }
}

fn parts(l: Loc) -> (sys::CUmemorytype, usize, u64) {
    match l {
        Loc::Host(a) => (sys::CUmemorytype::CU_MEMORYTYPE_HOST, a, 0),
        Loc::Dev(a) => (sys::CUmemorytype::CU_MEMORYTYPE_DEVICE, 0, a),
    }
}

fn cuda_copy(s: &CudaStream, dst: Loc, src: Loc, bytes: usize) -> Result<(), Error> {
    // SAFETY: both ranges were checked by the caller and stay valid until the copy has
    // finished (see the module docs).
    unsafe {
        match (dst, src) {
            (Loc::Dev(d), Loc::Host(h)) => {
                sys::cuMemcpyHtoDAsync_v2(d, h as *const c_void, bytes, s.cu_stream())
                    .result()
                    .map_err(drv("cuMemcpyHtoDAsync"))
            }
            (Loc::Host(h), Loc::Dev(d)) => {
                sys::cuMemcpyDtoHAsync_v2(h as *mut c_void, d, bytes, s.cu_stream())
                    .result()
                    .map_err(drv("cuMemcpyDtoHAsync"))
            }
            (Loc::Dev(d), Loc::Dev(v)) => sys::cuMemcpyDtoDAsync_v2(d, v, bytes, s.cu_stream())
                .result()
                .map_err(drv("cuMemcpyDtoDAsync")),
            (Loc::Host(_), Loc::Host(_)) => Err(Error::Unsupported(
                "a host-to-host copy in stream order".into(),
            )),
        }
    }
}

/// Waits for every event in `pending` (the copies of each stream that used a pinned buffer).
fn wait_all(pending: &Mutex<Vec<(usize, CudaEvent)>>) {
    let events = pending
        .lock()
        .map(|mut p| std::mem::take(&mut *p))
        .unwrap_or_default();
    for (_, e) in events {
        if let Err(err) = e.synchronize() {
            tracing::error!(error = %err, "waiting for a copy into a pinned buffer failed");
        }
    }
}
