//! What every C entry point shares: the handle object, the panic shield, the conversion of C
//! integers, enums and raw pointers into gpublas's types (with the checks C allows), and the
//! last-error message.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, OnceLock};

use gpublas::{
    Coef, Complex32, Complex64, Device, DeviceBuffer, Diag, Element, Error, Handle, Op,
    PinnedBuffer, Results, Scalar, Side, Status, Uplo,
};

use crate::*;

/// Marks a live handle; cleared on destroy so a second destroy is caught (where the memory
/// was not reused).
const MAGIC: u64 = 0x6770_7562_6c61_7321;

/// The object behind a `gpublas_handle`.
pub struct GpublasHandle {
    magic: u64,
    pub(crate) h: Handle,
    pub(crate) dev: Device,
    pub(crate) pointer_mode: gpublas_pointer_mode,
    /// Memory from `gpublas_malloc`, by address.
    pub(crate) allocations: HashMap<u64, DeviceBuffer<u8>>,
}

impl GpublasHandle {
    pub(crate) fn new(h: Handle, dev: Device) -> Self {
        GpublasHandle {
            magic: MAGIC,
            h,
            dev,
            pointer_mode: GPUBLAS_POINTER_MODE_HOST,
            allocations: HashMap::new(),
        }
    }
}

/// The process's default device, opened once so that every handle shares its context and
/// compiled kernels.
pub(crate) fn default_device() -> Result<Device, Error> {
    static DEV: OnceLock<Result<Device, Error>> = OnceLock::new();
    DEV.get_or_init(Device::default).clone()
}

/// A device by selector, opened once per selector for the same reason.
pub(crate) fn named_device(selector: &str) -> Result<Device, Error> {
    static DEVS: Mutex<Vec<(String, Device)>> = Mutex::new(Vec::new());
    let key = selector.trim().to_ascii_lowercase();
    let mut devs = DEVS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, d)) = devs.iter().find(|(k, _)| *k == key) {
        return Ok(d.clone());
    }
    let d = Device::from_selector(&key)?;
    devs.push((key, d.clone()));
    Ok(d)
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

pub(crate) fn set_last_error(msg: String) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

pub(crate) fn last_error_ptr() -> *const c_char {
    // The CString lives in the thread-local until the next error replaces it.
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// The live handle behind `handle`, or `None`.
///
/// # Safety
/// `handle` is null or a pointer from `gpublas_create_handle`.
unsafe fn live<'a>(handle: gpublas_handle) -> Option<&'a mut GpublasHandle> {
    if handle.is_null() {
        return None;
    }
    // SAFETY: non-null handles come from Box::into_raw in gpublas_create_handle.
    let hb = unsafe { &mut *handle };
    (hb.magic == MAGIC).then_some(hb)
}

fn invalid_handle() -> gpublas_status {
    set_last_error("invalid handle: null, or already destroyed".into());
    GPUBLAS_STATUS_INVALID_HANDLE
}

/// Runs `f` on a live handle with no panic crossing the boundary.
pub(crate) fn with_handle(
    handle: gpublas_handle,
    f: impl FnOnce(&mut GpublasHandle) -> Result<Status, Error>,
) -> gpublas_status {
    // SAFETY: the C caller passes a handle from gpublas_create_handle (or null).
    let Some(hb) = (unsafe { live(handle) }) else {
        return invalid_handle();
    };
    shield(|| f(hb))
}

/// Runs `f` with no panic crossing the boundary: its result as a status, a panic as
/// `GPUBLAS_STATUS_INTERNAL_ERROR` with a message.
pub(crate) fn shield(f: impl FnOnce() -> Result<Status, Error>) -> gpublas_status {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => status_of(r),
        Err(_) => {
            set_last_error("internal error: a panic was caught at the C boundary".into());
            GPUBLAS_STATUS_INTERNAL_ERROR
        }
    }
}

/// A yes/no question about a live handle; `false` for an invalid one.
pub(crate) fn peek(handle: gpublas_handle, f: impl FnOnce(&GpublasHandle) -> bool) -> bool {
    // SAFETY: as in `with_handle`.
    match unsafe { live(handle) } {
        Some(hb) => catch_unwind(AssertUnwindSafe(|| f(hb))).unwrap_or(false),
        None => false,
    }
}

/// Destroys a handle.
///
/// # Safety
/// `handle` is null or from `gpublas_create_handle`, and no other thread uses it.
pub(crate) unsafe fn destroy(handle: gpublas_handle) -> gpublas_status {
    // SAFETY: as the caller promised.
    if unsafe { live(handle) }.is_none() {
        return invalid_handle();
    }
    shield(|| {
        // SAFETY: a live handle from Box::into_raw; the magic is cleared before the memory is
        // freed so a stale second destroy is refused while the allocator has not reused it.
        let mut b = unsafe { Box::from_raw(handle) };
        b.magic = 0;
        let r = b.h.synchronize();
        b.allocations.clear();
        drop(b);
        r.map(|_| Status::Success)
    })
}

/// Runs a routine's body with a conversion context, no panic crossing the boundary.
pub(crate) fn guard(
    handle: gpublas_handle,
    name: &'static str,
    f: impl FnOnce(&mut Ctx<'_>) -> Result<Status, Error>,
) -> gpublas_status {
    with_handle(handle, |hb| {
        let mut c = Ctx {
            query: hb.h.is_device_memory_size_query(),
            dev: hb.dev.clone(),
            device_mode: hb.pointer_mode == GPUBLAS_POINTER_MODE_DEVICE,
            name,
            h: &mut hb.h,
        };
        f(&mut c)
    })
}

pub(crate) use gpublas::spans::{mat_span, packed_span, vec_span};

/// Elements spanned by `batch` entries of `span` elements, `stride` apart.
pub(crate) fn strided(span: Option<usize>, stride: usize, batch: usize) -> Option<usize> {
    let span = span?;
    if batch == 0 || span == 0 {
        return Some(0);
    }
    (batch - 1).checked_mul(stride)?.checked_add(span)
}

/// A scalar argument held for the length of a call.
pub(crate) enum CoefHold<T> {
    Host(T),
    Dev(DeviceBuffer<T>),
}

impl<T: Element> CoefHold<T> {
    pub(crate) fn get(&self) -> Coef<'_, T> {
        match self {
            CoefHold::Host(v) => Coef::Host(*v),
            CoefHold::Dev(b) => Coef::Device(b),
        }
    }
}

/// A results argument (Level-1 results in the handle's pointer mode) held for a call.
pub(crate) enum ResHold<'a, R> {
    Host(&'a mut [R]),
    Scratch(Vec<R>),
    Dev(DeviceBuffer<R>),
}

impl<R: Element> ResHold<'_, R> {
    pub(crate) fn get(&mut self) -> Results<'_, R> {
        match self {
            ResHold::Host(s) => Results::Host(s),
            ResHold::Scratch(v) => Results::Host(v),
            ResHold::Dev(b) => Results::Device(b),
        }
    }
}

/// The conversion context of one call.
pub struct Ctx<'a> {
    pub(crate) h: &'a mut Handle,
    dev: Device,
    query: bool,
    device_mode: bool,
    name: &'static str,
}

impl Ctx<'_> {
    /// A non-negative size.
    pub(crate) fn size(&self, what: &str, v: i64) -> Result<usize, Error> {
        usize::try_from(v)
            .map_err(|_| Error::InvalidSize(format!("{}: {what} = {v} is negative", self.name)))
    }

    /// An increment (any sign; the routine says which it accepts).
    pub(crate) fn inc(&self, what: &str, v: i64) -> Result<isize, Error> {
        isize::try_from(v).map_err(|_| {
            Error::InvalidSize(format!(
                "{}: {what} = {v} does not fit the address space",
                self.name
            ))
        })
    }

    /// A span, or `InvalidSize` when it overflows.
    pub(crate) fn span(&self, what: &str, s: Option<usize>) -> Result<usize, Error> {
        s.ok_or_else(|| {
            Error::InvalidSize(format!("{}: {what} overflows the address space", self.name))
        })
    }

    fn bad_enum(&self, what: &str, v: i32, allowed: &str) -> Error {
        Error::InvalidValue(format!(
            "{}: {what} = {v} is not one of {allowed}",
            self.name
        ))
    }

    pub(crate) fn op(&self, what: &str, v: gpublas_operation) -> Result<Op, Error> {
        match v {
            GPUBLAS_OPERATION_NONE => Ok(Op::N),
            GPUBLAS_OPERATION_TRANSPOSE => Ok(Op::T),
            GPUBLAS_OPERATION_CONJUGATE_TRANSPOSE => Ok(Op::C),
            _ => Err(self.bad_enum(
                what,
                v,
                "GPUBLAS_OPERATION_NONE/TRANSPOSE/CONJUGATE_TRANSPOSE (111/112/113)",
            )),
        }
    }

    pub(crate) fn uplo(&self, what: &str, v: gpublas_fill) -> Result<Uplo, Error> {
        match v {
            GPUBLAS_FILL_UPPER => Ok(Uplo::Upper),
            GPUBLAS_FILL_LOWER => Ok(Uplo::Lower),
            _ => Err(self.bad_enum(what, v, "GPUBLAS_FILL_UPPER/LOWER (121/122)")),
        }
    }

    pub(crate) fn diag(&self, what: &str, v: gpublas_diagonal) -> Result<Diag, Error> {
        match v {
            GPUBLAS_DIAGONAL_NON_UNIT => Ok(Diag::NonUnit),
            GPUBLAS_DIAGONAL_UNIT => Ok(Diag::Unit),
            _ => Err(self.bad_enum(what, v, "GPUBLAS_DIAGONAL_NON_UNIT/UNIT (131/132)")),
        }
    }

    pub(crate) fn side(&self, what: &str, v: gpublas_side) -> Result<Side, Error> {
        match v {
            GPUBLAS_SIDE_LEFT => Ok(Side::Left),
            GPUBLAS_SIDE_RIGHT => Ok(Side::Right),
            _ => Err(self.bad_enum(what, v, "GPUBLAS_SIDE_LEFT/RIGHT (141/142)")),
        }
    }

    /// trsm_ex's method; `inverse` is the caller's inverse when the method asks for it.
    pub(crate) fn trsm_method<I>(
        &self,
        v: gpublas_trsm_method,
        inverse: Option<I>,
    ) -> Result<gpublas::blas3::TrsmMethod<I>, Error> {
        use gpublas::blas3::TrsmMethod;
        match (v, inverse) {
            (GPUBLAS_TRSM_METHOD_INVERT, _) => Ok(TrsmMethod::Invert),
            (GPUBLAS_TRSM_METHOD_SUBSTITUTE, _) => Ok(TrsmMethod::Substitute),
            (GPUBLAS_TRSM_METHOD_INVERSE, Some(i)) => Ok(TrsmMethod::Inverse(i)),
            _ => Err(self.bad_enum(
                "method",
                v,
                "GPUBLAS_TRSM_METHOD_INVERT/SUBSTITUTE/INVERSE (0/1/2)",
            )),
        }
    }

    pub(crate) fn compute(
        &self,
        v: gpublas_compute_type,
    ) -> Result<gpublas::blas3::ComputeType, Error> {
        use gpublas::blas3::ComputeType as C;
        match v {
            GPUBLAS_COMPUTE_32F => Ok(C::F32),
            GPUBLAS_COMPUTE_32F_FAST_TF32 => Ok(C::F32FastTf32),
            GPUBLAS_COMPUTE_32F_FAST_16F => Ok(C::F32FastF16),
            GPUBLAS_COMPUTE_32F_FAST_16BF => Ok(C::F32FastBf16),
            GPUBLAS_COMPUTE_64F => Ok(C::F64),
            _ => Err(self.bad_enum(
                "compute_type",
                v,
                "GPUBLAS_COMPUTE_32F/32F_FAST_TF32/32F_FAST_16F/32F_FAST_16BF/64F (0..4)",
            )),
        }
    }

    /// `InvalidValue` for a combination of element types the routine does not have.
    pub(crate) fn bad_types(&self, types: &[(&str, gpublas_datatype)], allowed: &str) -> Error {
        let list: Vec<String> = types.iter().map(|(n, v)| format!("{n} = {v}")).collect();
        Error::InvalidValue(format!(
            "{}: {} is not a supported combination; supported: {allowed}",
            self.name,
            list.join(", ")
        ))
    }

    /// A device operand of `len` elements at `ptr`: a placeholder for null during a size
    /// query, `InvalidPointer` for null otherwise (unless nothing is addressed).
    ///
    /// # Safety
    /// `ptr` is null or `len` elements of the handle's device memory, aligned for `T`, valid
    /// for the call.
    pub(crate) unsafe fn buf<T: Element>(
        &self,
        what: &str,
        ptr: u64,
        len: usize,
    ) -> Result<DeviceBuffer<T>, Error> {
        if ptr == 0 {
            if self.query {
                return Ok(DeviceBuffer::placeholder(len));
            }
            if len > 0 {
                return Err(Error::InvalidPointer(format!(
                    "{}: {what} is null but addresses {len} elements",
                    self.name
                )));
            }
        }
        // SAFETY: as the caller promised.
        unsafe { DeviceBuffer::from_raw(&self.dev, ptr, len) }
            .map_err(|e| Error::InvalidPointer(format!("{}: {what}: {e}", self.name)))
    }

    /// The operands of a batched form: a host array of `batch` device pointers, each
    /// addressing `len` elements.
    ///
    /// # Safety
    /// `array` is null or `batch` readable pointers, each as for [`Ctx::buf`].
    pub(crate) unsafe fn list<T: Element>(
        &self,
        what: &str,
        array: u64,
        batch: usize,
        len: usize,
    ) -> Result<Vec<DeviceBuffer<T>>, Error> {
        if batch == 0 {
            return Ok(Vec::new());
        }
        if array == 0 {
            if self.query {
                return Ok((0..batch).map(|_| DeviceBuffer::placeholder(len)).collect());
            }
            return Err(Error::InvalidPointer(format!(
                "{}: the pointer array {what} is null with batch_count = {batch}",
                self.name
            )));
        }
        // A slice of pointers must be aligned, even one C would read unaligned.
        if array % std::mem::align_of::<u64>() as u64 != 0 {
            return Err(Error::InvalidPointer(format!(
                "{}: the pointer array {what} = {array:#x} is not aligned to {} bytes",
                self.name,
                std::mem::align_of::<u64>()
            )));
        }
        // SAFETY: the caller promised `batch` readable pointers at `array` (non-null, aligned).
        let ptrs = unsafe { std::slice::from_raw_parts(array as *const u64, batch) };
        ptrs.iter()
            .enumerate()
            // SAFETY: each entry is a device pointer as the caller promised.
            .map(|(i, &p)| unsafe { self.buf(&format!("{what}[{i}]"), p, len) })
            .collect()
    }

    /// A scalar in the handle's pointer mode. A null host scalar during a size query reads
    /// as one (the need of a call that does the work).
    ///
    /// # Safety
    /// `ptr` is null or one readable `T` in the memory the pointer mode names.
    pub(crate) unsafe fn coef<T: Scalar>(
        &self,
        what: &str,
        ptr: u64,
    ) -> Result<CoefHold<T>, Error> {
        if self.device_mode {
            // SAFETY: as the caller promised.
            return Ok(CoefHold::Dev(unsafe { self.buf(what, ptr, 1)? }));
        }
        if ptr == 0 {
            if self.query {
                return Ok(CoefHold::Host(T::one()));
            }
            return Err(Error::InvalidPointer(format!(
                "{}: {what} is null (pointer mode host)",
                self.name
            )));
        }
        // SAFETY: one readable `T` on the host; C does not promise Rust's alignment.
        Ok(CoefHold::Host(unsafe {
            (ptr as *const T).read_unaligned()
        }))
    }

    /// Level-1 results in the handle's pointer mode: `count` of them.
    ///
    /// # Safety
    /// `ptr` is null or `count` writable `R` in the memory the pointer mode names.
    pub(crate) unsafe fn results<'r, R: Element>(
        &self,
        what: &str,
        ptr: u64,
        count: usize,
    ) -> Result<ResHold<'r, R>, Error> {
        if self.device_mode {
            // SAFETY: as the caller promised.
            return Ok(ResHold::Dev(unsafe { self.buf(what, ptr, count)? }));
        }
        if ptr == 0 {
            if self.query || count == 0 {
                return Ok(ResHold::Scratch(vec![R::zeroed(); count]));
            }
            return Err(Error::InvalidPointer(format!(
                "{}: {what} is null (pointer mode host)",
                self.name
            )));
        }
        if ptr % std::mem::align_of::<R>() as u64 != 0 {
            return Err(Error::InvalidPointer(format!(
                "{}: {what} = {ptr:#x} is not aligned to {} bytes",
                self.name,
                std::mem::align_of::<R>()
            )));
        }
        // SAFETY: `count` writable, aligned `R` on the host, as the caller promised.
        Ok(ResHold::Host(unsafe {
            std::slice::from_raw_parts_mut(ptr as *mut R, count)
        }))
    }
}

/// The two sides of a transfer of elements of 1, 2, 4, 8 or 16 bytes.
pub(crate) struct Xfer {
    elem: usize,
    host: u64,
    host_len: usize,
    dev: u64,
    dev_len: usize,
}

/// Dispatches on the element size to a type of that size and alignment no larger.
macro_rules! by_size {
    ($elem:expr, $t:ident => $body:expr) => {
        match $elem {
            1 => {
                type $t = u8;
                $body
            }
            2 => {
                type $t = half::f16;
                $body
            }
            4 => {
                type $t = f32;
                $body
            }
            8 => {
                type $t = Complex32;
                $body
            }
            _ => {
                type $t = Complex64;
                $body
            }
        }
    };
}

impl Xfer {
    pub(crate) fn new(
        c: &Ctx<'_>,
        elem_size: i64,
        host: u64,
        host_len: usize,
        dev: u64,
        dev_len: usize,
    ) -> Result<Xfer, Error> {
        match elem_size {
            1 | 2 | 4 | 8 | 16 => Ok(Xfer {
                elem: elem_size as usize,
                host,
                host_len,
                dev,
                dev_len,
            }),
            _ => Err(Error::InvalidValue(format!(
                "{}: elem_size = {elem_size}; supported sizes are 1, 2, 4, 8 and 16 bytes",
                c.name
            ))),
        }
    }

    /// The host side's address and length, checked (length 0 for null during a query).
    fn host_parts<T: Element>(&self, c: &Ctx<'_>) -> Result<(*mut T, usize), Error> {
        if self.host == 0 {
            if c.query || self.host_len == 0 {
                return Ok((std::ptr::NonNull::<T>::dangling().as_ptr(), 0));
            }
            return Err(Error::InvalidPointer(format!(
                "{}: the host pointer is null but addresses {} elements",
                c.name, self.host_len
            )));
        }
        if self.host % std::mem::align_of::<T>() as u64 != 0 {
            return Err(Error::InvalidPointer(format!(
                "{}: the host pointer {:#x} is not aligned to {} bytes",
                c.name,
                self.host,
                std::mem::align_of::<T>()
            )));
        }
        Ok((self.host as *mut T, self.host_len))
    }

    /// The host side of an async transfer: page-locked memory not owned by gpublas.
    ///
    /// # Safety
    /// As `host_slice`, and the memory is page-locked and outlives the copy.
    unsafe fn host_pinned<T: Element>(&self, c: &Ctx<'_>) -> Result<PinnedBuffer<T>, Error> {
        if self.host == 0 && !c.query && self.host_len > 0 {
            return Err(Error::InvalidPointer(format!(
                "{}: the host pointer is null but addresses {} elements",
                c.name, self.host_len
            )));
        }
        let len = if self.host == 0 { 0 } else { self.host_len };
        // SAFETY: as the caller promised.
        unsafe { PinnedBuffer::from_raw(&c.dev, self.host as usize, len) }
    }

    /// A vector transfer.
    ///
    /// # Safety
    /// The pointers address the spans given to [`Xfer::new`].
    pub(crate) unsafe fn vector(
        self,
        c: &mut Ctx<'_>,
        set: bool,
        is_async: bool,
        n: usize,
        hinc: isize,
        dinc: isize,
    ) -> Result<Status, Error> {
        use gpublas::transfer as t;
        by_size!(self.elem, T => {
            // SAFETY: the device span as the caller promised.
            let mut d = unsafe { c.buf::<T>("the device pointer", self.dev, self.dev_len)? };
            match (set, is_async) {
                (true, false) => {
                    let (p, len) = self.host_parts::<T>(c)?;
                    // SAFETY: the host span as the caller promised (read only).
                    let x = unsafe { std::slice::from_raw_parts(p, len) };
                    t::set_vector(c.h, n, x, hinc, &mut d, dinc)
                }
                (false, false) => {
                    let (p, len) = self.host_parts::<T>(c)?;
                    // SAFETY: the host span as the caller promised (written).
                    let y = unsafe { std::slice::from_raw_parts_mut(p, len) };
                    t::get_vector(c.h, n, &d, dinc, y, hinc)
                }
                // SAFETY (both): page-locked host memory as the caller promised.
                (true, true) => t::set_vector_async(c.h, n, &unsafe { self.host_pinned::<T>(c)? }, hinc, &mut d, dinc),
                (false, true) => t::get_vector_async(c.h, n, &d, dinc, &mut unsafe { self.host_pinned::<T>(c)? }, hinc),
            }
        })
    }

    /// A matrix transfer of `(rows, cols, host ld, device ld)`.
    ///
    /// # Safety
    /// The pointers address the spans given to [`Xfer::new`].
    pub(crate) unsafe fn matrix(
        self,
        c: &mut Ctx<'_>,
        set: bool,
        is_async: bool,
        (r, k, hl, dl): (usize, usize, usize, usize),
    ) -> Result<Status, Error> {
        use gpublas::transfer as t;
        by_size!(self.elem, T => {
            // SAFETY: the device span as the caller promised.
            let mut d = unsafe { c.buf::<T>("the device pointer", self.dev, self.dev_len)? };
            match (set, is_async) {
                (true, false) => {
                    let (p, len) = self.host_parts::<T>(c)?;
                    // SAFETY: the host span as the caller promised (read only).
                    let a = unsafe { std::slice::from_raw_parts(p, len) };
                    t::set_matrix(c.h, r, k, a, hl, &mut d, dl)
                }
                (false, false) => {
                    let (p, len) = self.host_parts::<T>(c)?;
                    // SAFETY: the host span as the caller promised (written).
                    let b = unsafe { std::slice::from_raw_parts_mut(p, len) };
                    t::get_matrix(c.h, r, k, &d, dl, b, hl)
                }
                // SAFETY (both): page-locked host memory as the caller promised.
                (true, true) => t::set_matrix_async(c.h, r, k, &unsafe { self.host_pinned::<T>(c)? }, hl, &mut d, dl),
                (false, true) => t::get_matrix_async(c.h, r, k, &d, dl, &mut unsafe { self.host_pinned::<T>(c)? }, hl),
            }
        })
    }
}
