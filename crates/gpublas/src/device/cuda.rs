//! The CUDA backend: the only module that calls `cudarc`'s driver and NVRTC layers.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{result, sys, CudaContext, CudaEvent, CudaGraph, CudaModule, CudaStream};
use cudarc::nvrtc::Ptx;

use super::libs;
use super::KernelModule;
use crate::Error;

fn drv(op: &str) -> impl FnOnce(result::DriverError) -> Error + '_ {
    move |e| Error::driver(op, e)
}

fn is_oom(e: &result::DriverError) -> bool {
    e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY
}

/// One CUDA GPU with its primary context and its compiled kernels.
pub(crate) struct CudaDevice {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) ordinal: usize,
    pub(crate) name: String,
    pub(crate) cc: (u32, u32),
    pub(crate) sm_count: usize,
    /// Most shared memory a block may opt into (bytes).
    pub(crate) smem_optin: usize,
    pub(crate) total_mem: usize,
    pub(crate) pools: bool,
    arch: &'static str,
    kernels: Mutex<KernelCache>,
    pool: Mutex<Option<PoolHandle>>,
    /// Streams of the device's own for uploads and downloads, lent one per transfer, so a
    /// transfer waits for its own copy and nothing else.
    transfer_streams: Mutex<Vec<Arc<CudaStream>>>,
    /// Buffers dropped while streams that used them may still run: freed once their events
    /// have passed (see `CudaMem`'s drop).
    pending_frees: Mutex<Vec<PendingFree>>,
    /// The live allocations of `alloc`, by start address (bytes, their stream users), so a
    /// buffer made from a raw address inside one (`DeviceBuffer::from_raw`, the C interface)
    /// records its streams with the allocation that owns the memory.
    live: Mutex<std::collections::BTreeMap<u64, (usize, std::sync::Weak<StreamUsers>)>>,
}

/// A device allocation waiting for the streams that used it.
struct PendingFree {
    ptr: u64,
    /// Events recorded on the user streams that were busy.
    after: Vec<CudaEvent>,
    /// User streams not given an event yet: every user at the drop, then those being captured
    /// (work queued on them before the capture may still run, and nothing can be recorded on
    /// them until it ends) or whose event could not be recorded.
    unrecorded: Vec<Arc<CudaStream>>,
}

impl PendingFree {
    /// Whether every use has passed (`wait`: waits for the events first). Idle streams drop
    /// out, busy ones get an event; an event that reports an error is not taken as passed:
    /// leaking is safer than freeing under a kernel.
    fn passed(&mut self, dev: &CudaDevice, wait: bool) -> bool {
        self.unrecorded.retain(|s| match is_capturing(s) {
            Ok(false) if stream_idle(s) => false,
            Ok(false) => match dev.new_order_event() {
                Ok(e) if e.record(s).is_ok() => {
                    self.after.push(e);
                    false
                }
                _ => true,
            },
            _ => true,
        });
        if !self.unrecorded.is_empty() {
            return false;
        }
        self.after.iter().all(|e| {
            if wait && e.synchronize().is_err() {
                tracing::error!("waiting for a dropped buffer's last use failed; not freed");
                return false;
            }
            matches!(e.try_is_complete(), Ok(true))
        })
    }
}

#[derive(Clone, Copy)]
struct PoolHandle(sys::CUmemoryPool);
// SAFETY: a memory-pool handle is a plain driver handle, usable from any thread.
unsafe impl Send for PoolHandle {}

/// Compiled kernels: loaded modules by name (held here, so their functions stay valid) and
/// their functions by (globally unique) name.
#[derive(Default)]
struct KernelCache {
    modules: HashMap<&'static str, Arc<CudaModule>>,
    functions: HashMap<String, Function>,
}

#[derive(Clone, Copy)]
struct Function(sys::CUfunction);
// SAFETY: CUfunction handles are valid from any thread while their module is loaded (held in
// the same cache).
unsafe impl Send for Function {}

/// Number of CUDA devices, or why there are none.
pub(crate) fn device_count() -> Result<usize, Error> {
    libs::ensure_driver()?;
    result::init().map_err(drv("cuInit"))?;
    result::device::get_count()
        .map(|c| c.max(0) as usize)
        .map_err(drv("cuDeviceGetCount"))
}

/// The device for `ordinal`, created once per process so its kernels are compiled once.
pub(crate) fn get(ordinal: usize) -> Result<Arc<CudaDevice>, Error> {
    static DEVICES: OnceLock<Mutex<HashMap<usize, Arc<CudaDevice>>>> = OnceLock::new();
    let count = device_count()?;
    if ordinal >= count {
        return Err(Error::InvalidValue(format!(
            "CUDA device {ordinal} was asked for, but {count} CUDA device(s) were found (valid: 0..{count})"
        )));
    }
    let map = DEVICES.get_or_init(|| Mutex::new(HashMap::new()));
    let mut map = map
        .lock()
        .map_err(|_| Error::driver("device table", "poisoned lock"))?;
    if let Some(d) = map.get(&ordinal) {
        return Ok(d.clone());
    }
    let ctx = CudaContext::new(ordinal).map_err(drv("cuDevicePrimaryCtxRetain"))?;
    // gpublas orders its own work on its own streams; cudarc's per-slice events are not used.
    // SAFETY: no cudarc CudaSlice is ever created by gpublas.
    unsafe { ctx.disable_event_tracking() };
    let attr = |a| ctx.attribute(a).map_err(drv("cuDeviceGetAttribute"));
    let major = attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
    let minor = attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
    let sm = attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
    let pools = attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)? > 0;
    let smem_optin =
        attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?;
    let arch: &'static str = Box::leak(format!("sm_{major}{minor}").into_boxed_str());
    let dev = Arc::new(CudaDevice {
        name: ctx.name().map_err(drv("cuDeviceGetName"))?,
        total_mem: ctx.total_mem().map_err(drv("cuDeviceTotalMem"))?,
        ctx,
        ordinal,
        cc: (major as u32, minor as u32),
        sm_count: sm.max(1) as usize,
        smem_optin: smem_optin.max(0) as usize,
        pools,
        arch,
        kernels: Mutex::new(KernelCache::default()),
        pool: Mutex::new(None),
        transfer_streams: Mutex::new(Vec::new()),
        pending_frees: Mutex::new(Vec::new()),
        live: Mutex::new(std::collections::BTreeMap::new()),
    });
    map.insert(ordinal, dev.clone());
    Ok(dev)
}

/// NVRTC's version (major, minor).
fn nvrtc_version() -> Result<(i32, i32), Error> {
    let (mut a, mut b) = (0, 0);
    // SAFETY: plain out-parameters.
    unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut a, &mut b) }
        .result()
        .map_err(|e| Error::driver("nvrtcVersion", format!("{e:?}")))?;
    Ok((a, b))
}

/// Compiles a kernel module to a cubin for `arch` (a real architecture, e.g. "sm_90"), or
/// takes it from the on-disk cache (`kcache`). Needs NVRTC, not a GPU.
pub(crate) fn cubin(m: &KernelModule, arch: &str) -> Result<Vec<u8>, Error> {
    libs::ensure_nvrtc()?;
    let options = vec![
        format!("--gpu-architecture={arch}"),
        "-std=c++17".to_string(),
        format!("-D{}", m.define),
    ];
    let dir = super::kcache::cache_dir();
    let key = super::kcache::key(m.source, &options, arch, nvrtc_version()?);
    if let Some(bin) = dir.as_deref().and_then(|d| super::kcache::load(d, &key)) {
        return Ok(bin);
    }
    let started = std::time::Instant::now();
    let fail = |what: &str, detail: String| Error::Driver {
        op: format!("NVRTC {what} {} for {arch}", m.name),
        msg: detail,
    };
    let src = std::ffi::CString::new(m.source).map_err(|e| fail("reading", e.to_string()))?;
    let name = std::ffi::CString::new(format!("{}.cu", m.name))
        .map_err(|e| fail("naming", e.to_string()))?;
    let prog = cudarc::nvrtc::result::create_program(&src, Some(&name))
        .map_err(|e| fail("creating", format!("{e:?}")))?;
    // SAFETY: `prog` was created above and is destroyed once, at the end of this block; the
    // cubin buffer is sized by nvrtcGetCUBINSize before nvrtcGetCUBIN fills it.
    let out = unsafe {
        let r = cudarc::nvrtc::result::compile_program(prog, &options)
            .map_err(|e| {
                let log = cudarc::nvrtc::result::get_program_log(prog)
                    .map(|l| l.iter().map(|&c| c as u8 as char).collect::<String>())
                    .unwrap_or_default();
                fail("compiling", format!("{e:?}: {log}"))
            })
            .and_then(|_| {
                let mut size = 0usize;
                cudarc::nvrtc::sys::nvrtcGetCUBINSize(prog, &mut size)
                    .result()
                    .map_err(|e| fail("sizing the cubin of", format!("{e:?}")))?;
                let mut buf = vec![0u8; size];
                cudarc::nvrtc::sys::nvrtcGetCUBIN(prog, buf.as_mut_ptr() as *mut std::ffi::c_char)
                    .result()
                    .map_err(|e| fail("reading the cubin of", format!("{e:?}")))?;
                Ok(buf)
            });
        let _ = cudarc::nvrtc::result::destroy_program(prog);
        r
    }?;
    tracing::info!(
        module = m.name,
        arch,
        ms = started.elapsed().as_millis() as u64,
        "kernels compiled"
    );
    if let Some(d) = dir.as_deref() {
        super::kcache::store(d, &key, &out);
    }
    Ok(out)
}

impl CudaDevice {
    pub(crate) fn bind(&self) -> Result<(), Error> {
        self.ctx.bind_to_thread().map_err(drv("cuCtxSetCurrent"))
    }

    /// Free and total device memory, after freeing the dropped buffers whose users have passed.
    pub(crate) fn mem_info(&self) -> Result<(usize, usize), Error> {
        self.bind()?;
        self.reclaim(false);
        self.ctx.mem_get_info().map_err(drv("cuMemGetInfo"))
    }

    /// Waits for all work on the device: only for the user's explicit `Device::synchronize`
    /// (no call path of the library waits for the whole context).
    pub(crate) fn synchronize(&self) -> Result<(), Error> {
        self.bind()?;
        self.ctx.synchronize().map_err(drv("cuCtxSynchronize"))?;
        self.reclaim(false);
        Ok(())
    }

    /// A device allocation (`cuMemAlloc`). Dropped buffers whose users have passed are freed
    /// first; when the device is full, the allocation waits for the users of the dropped ones
    /// still pending (their streams only) and tries once more.
    pub(crate) fn alloc(self: &Arc<Self>, bytes: usize) -> Result<CudaMem, Error> {
        self.bind()?;
        self.reclaim(false);
        // SAFETY: the context is current; the memory is only handed out as a byte range.
        let mut r = unsafe { result::malloc_sync(bytes.max(1)) };
        if matches!(&r, Err(e) if is_oom(e)) && self.reclaim(true) {
            // SAFETY: as above.
            r = unsafe { result::malloc_sync(bytes.max(1)) };
        }
        match r {
            Ok(ptr) => {
                let users = Arc::new(StreamUsers::default());
                if let Ok(mut live) = self.live.lock() {
                    live.insert(ptr, (bytes.max(1), Arc::downgrade(&users)));
                }
                Ok(CudaMem {
                    ptr,
                    bytes,
                    dev: self.clone(),
                    owned: true,
                    users,
                })
            }
            Err(e) if is_oom(&e) => Err(Error::MemoryError {
                needed: bytes,
                available: self.mem_info().map(|m| m.0).unwrap_or(0),
                detail: format!("cuMemAlloc failed on CUDA device {}", self.ordinal),
            }),
            Err(e) => Err(Error::driver("cuMemAlloc", e)),
        }
    }

    /// Frees the dropped buffers whose users have passed; with `wait`, waits for their events
    /// first (outside the lock, so other threads' drops do not wait with it). Returns whether
    /// anything was freed.
    fn reclaim(&self, wait: bool) -> bool {
        let mut all = match self.pending_frees.lock() {
            Ok(mut pending) if !pending.is_empty() => std::mem::take(&mut *pending),
            _ => return false,
        };
        let mut freed = false;
        all.retain_mut(|p| {
            let done = p.passed(self, wait);
            if done {
                free_now(p.ptr);
                freed = true;
            }
            !done
        });
        if !all.is_empty() {
            if let Ok(mut pending) = self.pending_frees.lock() {
                pending.append(&mut all);
            }
        }
        freed
    }

    /// Lends one of the device's transfer streams to `f` (creating one if all are lent).
    fn with_transfer_stream<R>(
        &self,
        f: impl FnOnce(&CudaStream) -> Result<R, Error>,
    ) -> Result<R, Error> {
        self.bind()?;
        let lent = self
            .transfer_streams
            .lock()
            .map_err(|_| Error::driver("transfer streams", "poisoned lock"))?
            .pop();
        let stream = match lent {
            Some(s) => s,
            None => self.new_stream()?,
        };
        let r = f(&stream);
        if let Ok(mut free) = self.transfer_streams.lock() {
            free.push(stream);
        }
        r
    }

    /// The device's default memory pool, with its release threshold raised so freed memory stays
    /// cached for the next stream-ordered allocation.
    fn pool(&self) -> Result<sys::CUmemoryPool, Error> {
        let mut guard = self
            .pool
            .lock()
            .map_err(|_| Error::driver("memory pool", "poisoned lock"))?;
        if let Some(p) = *guard {
            return Ok(p.0);
        }
        if !self.pools {
            return Err(Error::Unsupported(format!(
                "CUDA device {} ({}) has no memory pools",
                self.ordinal, self.name
            )));
        }
        self.bind()?;
        // SAFETY: cu_device comes from this context; the attribute value is a u64 as documented.
        let pool = unsafe {
            let pool = result::device::get_default_mem_pool(self.ctx.cu_device())
                .map_err(drv("cuDeviceGetDefaultMemPool"))?;
            let mut threshold: u64 = u64::MAX;
            result::mem_pool::set_attribute(
                pool,
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                &mut threshold as *mut u64 as *mut c_void,
            )
            .map_err(drv("cuMemPoolSetAttribute"))?;
            pool
        };
        *guard = Some(PoolHandle(pool));
        Ok(pool)
    }

    /// Prepares the memory pool (done when stream-ordered allocation is switched on).
    pub(crate) fn enable_pool(&self) -> Result<(), Error> {
        self.pool().map(|_| ())
    }

    /// A stream-ordered allocation from the device's pool, freed on `stream` when dropped.
    pub(crate) fn pool_alloc(
        self: &Arc<Self>,
        stream: &Arc<CudaStream>,
        bytes: usize,
    ) -> Result<PoolMem, Error> {
        let pool = self.pool()?;
        // SAFETY: pool and stream belong to this device's context; the memory is only used on
        // `stream` (the handle's), and freed on it.
        let mut r =
            unsafe { result::mem_pool::alloc_async(pool, bytes.max(1), stream.cu_stream()) };
        if matches!(&r, Err(e) if is_oom(e)) && self.reclaim(true) {
            // Dropped buffers waiting for their users held the memory: freed, try again.
            // SAFETY: as above.
            r = unsafe { result::mem_pool::alloc_async(pool, bytes.max(1), stream.cu_stream()) };
        }
        match r {
            Ok(ptr) => Ok(PoolMem {
                ptr,
                stream: stream.clone(),
            }),
            Err(e) if is_oom(&e) => Err(Error::MemoryError {
                needed: bytes,
                available: self.mem_info().map(|m| m.0).unwrap_or(0),
                detail: format!(
                    "cuMemAllocFromPoolAsync failed on CUDA device {}",
                    self.ordinal
                ),
            }),
            Err(e) => Err(Error::driver("cuMemAllocFromPoolAsync", e)),
        }
    }

    pub(crate) fn new_stream(&self) -> Result<Arc<CudaStream>, Error> {
        self.ctx.new_stream().map_err(drv("cuStreamCreate"))
    }

    /// A stream of the highest priority the device offers: its blocks are scheduled before
    /// those of streams of default priority as multiprocessors free up.
    pub(crate) fn new_urgent_stream(&self) -> Result<Arc<CudaStream>, Error> {
        self.bind()?;
        let (_, greatest) =
            result::stream::get_priority_range().map_err(drv("cuCtxGetStreamPriorityRange"))?;
        self.ctx
            .new_stream_with_priority(greatest)
            .map_err(drv("cuStreamCreateWithPriority"))
    }

    /// An event for ordering streams only (no timing: cheaper to record and wait on).
    pub(crate) fn new_order_event(&self) -> Result<CudaEvent, Error> {
        self.ctx
            .new_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))
            .map_err(drv("cuEventCreate"))
    }

    pub(crate) fn new_event(&self) -> Result<CudaEvent, Error> {
        self.ctx.new_event(None).map_err(drv("cuEventCreate"))
    }

    /// Copies host bytes to device memory at `dst` on a transfer stream of the device's own
    /// and waits until they have landed (that stream only). The caller has waited for the
    /// buffer's users (`StreamUsers::wait`); nothing else is waited for.
    pub(crate) fn copy_to_device(&self, dst: u64, src: &[u8]) -> Result<(), Error> {
        if src.is_empty() {
            return Ok(());
        }
        self.with_transfer_stream(|s| {
            // SAFETY: callers pass a `dst` that heads an allocation of at least `src.len()`
            // bytes; `src` outlives the copy (the stream is synchronised before returning).
            unsafe { result::memcpy_htod_async(dst, src, s.cu_stream()) }
                .map_err(drv("cuMemcpyHtoDAsync"))?;
            stream_sync(s)
        })
    }

    /// Fills `bytes` bytes at `dst` with zeros on a transfer stream and waits for it.
    pub(crate) fn zero_on_device(&self, dst: u64, bytes: usize) -> Result<(), Error> {
        if bytes == 0 {
            return Ok(());
        }
        self.with_transfer_stream(|s| {
            // SAFETY: callers pass a `dst` that heads an allocation of at least `bytes` bytes.
            unsafe { sys::cuMemsetD8Async(dst, 0, bytes, s.cu_stream()) }
                .result()
                .map_err(drv("cuMemsetD8Async"))?;
            stream_sync(s)
        })
    }

    /// Copies device memory at `src` to host bytes on a transfer stream and waits for it. The
    /// caller has waited for the buffer's users (`StreamUsers::wait`).
    pub(crate) fn copy_to_host(&self, dst: &mut [u8], src: u64) -> Result<(), Error> {
        if dst.is_empty() {
            return Ok(());
        }
        self.with_transfer_stream(|s| {
            // SAFETY: callers pass a `src` that heads an allocation of at least `dst.len()`
            // bytes; `dst` outlives the copy (the stream is synchronised before returning).
            unsafe { result::memcpy_dtoh_async(dst, src, s.cu_stream()) }
                .map_err(drv("cuMemcpyDtoHAsync"))?;
            stream_sync(s)
        })
    }

    /// Copies host bytes to `dst` in `stream` order; returns once `src` has been staged.
    pub(crate) fn copy_to_device_on(
        &self,
        stream: &CudaStream,
        dst: u64,
        src: &[u8],
    ) -> Result<(), Error> {
        // SAFETY: `dst` heads a workspace range of at least `src.len()` bytes (checked by the
        // caller); from pageable memory the call returns after staging, so `src` may go.
        unsafe { result::memcpy_htod_async(dst, src, stream.cu_stream()) }
            .map_err(drv("cuMemcpyHtoDAsync"))
    }

    /// Copies device bytes to the host in `stream` order and waits for them.
    pub(crate) fn copy_to_host_on(
        &self,
        stream: &CudaStream,
        dst: &mut [u8],
        src: u64,
    ) -> Result<(), Error> {
        // SAFETY: `src` heads a workspace range of at least `dst.len()` bytes (checked by the
        // caller); the copy completes before `dst` is released by the synchronise below.
        unsafe { result::memcpy_dtoh_async(dst, src, stream.cu_stream()) }
            .map_err(drv("cuMemcpyDtoHAsync"))?;
        stream.synchronize().map_err(drv("cuStreamSynchronize"))
    }

    /// The compiled function `func` of kernel source `module`.
    fn function(&self, module: &KernelModule, func: &str) -> Result<sys::CUfunction, Error> {
        let mut cache = self
            .kernels
            .lock()
            .map_err(|_| Error::driver("kernel cache", "poisoned lock"))?;
        if let Some(f) = cache.functions.get(func) {
            return Ok(f.0);
        }
        let m = match cache.modules.get(module.name) {
            Some(m) => m.clone(),
            None => {
                let bin = cubin(module, self.arch)?;
                let m = self
                    .ctx
                    .load_module(Ptx::from_binary(bin))
                    .map_err(drv("cuModuleLoadData"))?;
                cache.modules.insert(module.name, m.clone());
                m
            }
        };
        let f = m.load_function(func).map_err(|e| Error::Driver {
            op: format!("cuModuleGetFunction({func})"),
            msg: e.to_string(),
        })?;
        // Once per function: allow all the dynamic shared memory a block can opt into beside
        // its static part (set per launch, concurrent launches of smaller needs would race).
        let cf = f.cu_function();
        let mut stat = 0i32;
        // SAFETY: `cf` is a function just loaded in this context; both calls only read or
        // raise its attributes.
        unsafe {
            sys::cuFuncGetAttribute(
                &mut stat,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                cf,
            )
            .result()
            .map_err(drv("cuFuncGetAttribute"))?;
            let dynamic = self.smem_optin.saturating_sub(stat.max(0) as usize) as i32;
            sys::cuFuncSetAttribute(
                cf,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                dynamic,
            )
            .result()
            .map_err(drv("cuFuncSetAttribute"))?;
        }
        cache
            .functions
            .insert(func.to_string(), Function(f.cu_function()));
        Ok(f.cu_function())
    }

    /// Launches `func` from kernel source `module` on `stream`.
    ///
    /// Callers (the routines) have checked every device range the kernel reads or writes against
    /// the buffers they were given (SPEC F7) before calling this.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn launch(
        &self,
        stream: &CudaStream,
        module: &KernelModule,
        func: &str,
        grid: (u32, u32, u32),
        block: u32,
        shared: u32,
        params: &mut [*mut c_void],
    ) -> Result<(), Error> {
        self.launch_with(stream, module, func, (grid, block, shared), false, params)
    }

    /// `launch` with dynamic shared memory above 48 KiB allowed and, when `cooperative`, every
    /// block resident at once (the solver's panel kernel synchronises its whole grid).
    pub(crate) fn launch_with(
        &self,
        stream: &CudaStream,
        module: &KernelModule,
        func: &str,
        (grid, block, shared): ((u32, u32, u32), u32, u32),
        cooperative: bool,
        params: &mut [*mut c_void],
    ) -> Result<(), Error> {
        let f = self.function(module, func)?;
        let launch_err = |e: result::DriverError| Error::Driver {
            op: format!("cuLaunchKernel({func}, grid {grid:?}, block {block}, shared {shared})"),
            msg: e.to_string(),
        };
        if self.cc.0 < 9 && !cooperative {
            // SAFETY: `f` is a loaded kernel of this context; each param points to a live value
            // of the type the kernel declares; every device range it touches was checked (F7).
            return unsafe {
                result::launch_kernel(f, grid, (block, 1, 1), shared, stream.cu_stream(), params)
            }
            .map_err(launch_err);
        }
        // Hopper and newer: programmatic dependent launch. The kernel may be scheduled while its
        // predecessor in the stream finishes; every gpublas kernel executes `griddepcontrol.wait`
        // before touching memory, which waits for the predecessor's completion and its writes.
        // A cooperative launch (every block resident at once) is ordered the ordinary way.
        let mut attr = sys::CUlaunchAttribute {
            id: if cooperative {
                sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_COOPERATIVE
            } else {
                sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
            },
            pad: [0; 4],
            value: sys::CUlaunchAttributeValue { pad: [0; 64] },
        };
        if cooperative {
            attr.value.cooperative = 1;
        } else {
            attr.value.programmaticStreamSerializationAllowed = 1;
        }
        let config = sys::CUlaunchConfig {
            gridDimX: grid.0,
            gridDimY: grid.1,
            gridDimZ: grid.2,
            blockDimX: block,
            blockDimY: 1,
            blockDimZ: 1,
            sharedMemBytes: shared,
            hStream: stream.cu_stream(),
            attrs: &mut attr,
            numAttrs: 1,
        };
        // SAFETY: as above; `config` and `attr` outlive the call, which copies them; the driver
        // refuses a cooperative grid that cannot be resident at once, so the panel kernel's
        // exchange cannot wait forever.
        unsafe { sys::cuLaunchKernelEx(&config, f, params.as_mut_ptr(), std::ptr::null_mut()) }
            .result()
            .map_err(launch_err)
    }

    /// Fills `count` 32-bit words at `dst` with `value`, in stream order.
    pub(crate) fn memset32(
        &self,
        stream: &CudaStream,
        dst: u64,
        value: u32,
        count: usize,
    ) -> Result<(), Error> {
        // SAFETY: `dst` heads a workspace range of at least 4*count bytes (checked by the caller).
        unsafe { sys::cuMemsetD32Async(dst, value, count, stream.cu_stream()) }
            .result()
            .map_err(drv("cuMemsetD32Async"))
    }
}

/// A device allocation (`cuMemAlloc`), freed when dropped once the streams that used it have
/// passed their last use.
pub(crate) struct CudaMem {
    pub(crate) ptr: u64,
    pub(crate) bytes: usize,
    pub(crate) dev: Arc<CudaDevice>,
    /// False for memory owned elsewhere (`DeviceBuffer::from_raw`): never freed here.
    owned: bool,
    /// The streams whose submitted work may use the memory (shared with the allocation that
    /// owns it, for a borrowed range inside one).
    pub(crate) users: Arc<StreamUsers>,
}

impl CudaMem {
    pub(crate) fn borrowed(dev: &Arc<CudaDevice>, ptr: u64, bytes: usize) -> CudaMem {
        let owner = dev.live.lock().ok().and_then(|live| {
            let (start, (len, users)) = live.range(..=ptr).next_back()?;
            (ptr - start < *len as u64).then(|| users.upgrade())?
        });
        CudaMem {
            ptr,
            bytes,
            dev: dev.clone(),
            owned: false,
            users: owner.unwrap_or_default(),
        }
    }
}

impl Drop for CudaMem {
    fn drop(&mut self) {
        if !self.owned {
            return;
        }
        // cuMemFree does not wait for kernels still using the memory, and waiting for the
        // whole context would break other threads' graph captures: the free waits for an event
        // on each stream that used the memory and is still busy, and happens later (at the
        // next allocation, drop or memory query) if any has not passed yet.
        let _ = self.dev.bind();
        if let Ok(mut live) = self.dev.live.lock() {
            live.remove(&self.ptr);
        }
        let mut pending = PendingFree {
            ptr: self.ptr,
            after: Vec::new(),
            unrecorded: self.users.take(),
        };
        if pending.passed(&self.dev, false) {
            free_now(self.ptr);
        } else if let Ok(mut list) = self.dev.pending_frees.lock() {
            list.push(pending);
        }
        self.dev.reclaim(false);
    }
}

/// Frees a `cuMemAlloc` allocation whose users have all passed.
fn free_now(ptr: u64) {
    // SAFETY: `ptr` came from cuMemAlloc in this context (bound by the caller) and is freed
    // exactly once: by the drop of its `CudaMem`, or from the pending list it moved to.
    if let Err(e) = unsafe { result::free_sync(ptr) } {
        tracing::error!(error = %e, "cuMemFree failed");
    }
}

/// The streams whose submitted work may still use a buffer: the library's calls add their
/// handle's stream when they check an operand, and a download, an overwrite or a free waits
/// for those streams alone (never for the whole device).
#[derive(Default)]
pub(crate) struct StreamUsers {
    /// The address of the stream object added last, plus one (0: none): calls from the same
    /// stream find it here without taking the lock. A stream in `all` is alive, so its address
    /// names no other stream object.
    last: std::sync::atomic::AtomicU64,
    all: Mutex<smallvec::SmallVec<[Arc<CudaStream>; 2]>>,
}

impl StreamUsers {
    /// Records that work submitted to `stream` from now on may use the buffer.
    pub(crate) fn add(&self, stream: &Arc<CudaStream>) {
        use std::sync::atomic::Ordering::Relaxed;
        let key = Arc::as_ptr(stream) as u64 + 1;
        if self.last.load(Relaxed) == key {
            return;
        }
        let Ok(mut all) = self.all.lock() else {
            return;
        };
        if !all.iter().any(|s| Arc::ptr_eq(s, stream)) {
            // Streams that only buffers still hold, with nothing left to run, are done with
            // it. A stream a handle still holds stays even when idle: that handle may be
            // between its check (which found it here) and its launch.
            all.retain(|s| Arc::strong_count(s) > 1 || !stream_idle(s));
            all.push(stream.clone());
        }
        self.last.store(key, Relaxed);
    }

    /// Waits until the work submitted so far to every stream that used the buffer has
    /// finished. A stream being captured into a graph cannot be waited for (work queued on it
    /// before the capture may still run): that is an error naming it.
    pub(crate) fn wait(&self) -> Result<(), Error> {
        let streams: smallvec::SmallVec<[Arc<CudaStream>; 2]> = match self.all.lock() {
            Ok(all) => all.clone(),
            Err(_) => return Err(Error::driver("buffer users", "poisoned lock")),
        };
        for s in &streams {
            if is_capturing(s)? {
                return Err(Error::Unsupported(format!(
                    "the buffer was used on stream {:?}, which is being captured into a graph: \
                     its earlier work cannot be waited for until the capture ends",
                    s.cu_stream()
                )));
            }
            stream_sync(s)?;
        }
        Ok(())
    }

    /// The streams that used the buffer, taken out (the buffer is being freed).
    fn take(&self) -> Vec<Arc<CudaStream>> {
        match self.all.lock() {
            Ok(mut all) => std::mem::take(&mut *all).into_vec(),
            Err(_) => Vec::new(),
        }
    }
}

/// Whether everything submitted to `s` has finished (a stream being captured is not asked).
fn stream_idle(s: &CudaStream) -> bool {
    if !matches!(is_capturing(s), Ok(false)) {
        return false;
    }
    // SAFETY: a plain query of a live stream.
    match unsafe { sys::cuStreamQuery(s.cu_stream()) }.result() {
        Ok(()) => true,
        Err(e) => e.0 != sys::CUresult::CUDA_ERROR_NOT_READY,
    }
}

/// A stream-ordered pool allocation, freed on its stream when dropped (no host synchronisation).
pub(crate) struct PoolMem {
    pub(crate) ptr: u64,
    stream: Arc<CudaStream>,
}

impl Drop for PoolMem {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from cuMemAllocFromPoolAsync on this stream and is freed once, in
        // stream order after every kernel that used it.
        if let Err(e) = unsafe { result::free_async(self.ptr, self.stream.cu_stream()) } {
            tracing::error!(error = %e, "cuMemFreeAsync failed");
        }
    }
}

/// Stream helpers.
pub(crate) fn stream_sync(s: &CudaStream) -> Result<(), Error> {
    s.synchronize().map_err(drv("cuStreamSynchronize"))
}

/// Makes `new` wait for everything submitted to `old` so far, without blocking the host.
pub(crate) fn stream_order(
    event: &CudaEvent,
    old: &CudaStream,
    new: &CudaStream,
) -> Result<(), Error> {
    event.record(old).map_err(drv("cuEventRecord"))?;
    new.wait(event).map_err(drv("cuStreamWaitEvent"))
}

pub(crate) fn is_capturing(s: &CudaStream) -> Result<bool, Error> {
    let st = s.capture_status().map_err(drv("cuStreamIsCapturing"))?;
    Ok(st != sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE)
}

pub(crate) fn begin_capture(s: &CudaStream) -> Result<(), Error> {
    s.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
        .map_err(drv("cuStreamBeginCapture"))
}

pub(crate) fn end_capture(s: &Arc<CudaStream>) -> Result<Option<CudaGraph>, Error> {
    s.end_capture(sys::CUgraphInstantiate_flags(0))
        .map_err(drv("cuStreamEndCapture"))
}

pub(crate) fn graph_launch(g: &CudaGraph) -> Result<(), Error> {
    g.launch().map_err(drv("cuGraphLaunch"))
}

/// Device-side timing for benchmarks.
pub(crate) fn timed_event(dev: &CudaDevice) -> Result<CudaEvent, Error> {
    dev.ctx
        .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
        .map_err(drv("cuEventCreate"))
}

pub(crate) fn event_record(e: &CudaEvent, s: &CudaStream) -> Result<(), Error> {
    e.record(s).map_err(drv("cuEventRecord"))
}

pub(crate) fn event_elapsed_ms(a: &CudaEvent, b: &CudaEvent) -> Result<f32, Error> {
    b.synchronize().map_err(drv("cuEventSynchronize"))?;
    a.elapsed_ms(b).map_err(drv("cuEventElapsedTime"))
}
