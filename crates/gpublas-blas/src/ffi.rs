//! What the exports need of raw memory and of the dynamic loader: reading the caller's
//! by-reference arguments, lending the caller's arrays to gpublas without a copy, and calling
//! the program's own `xerbla_`. The exports call these with a `// SAFETY:` line each: the
//! reference interface's promise about the caller's pointers.

use std::ffi::{c_char, c_void};

use gpublas::{Device, DeviceBuffer, Element, Error};

/// Fortran's default INTEGER (LP64).
pub type Int = i32;

/// The value behind a by-reference argument.
///
/// # Safety
/// `p` points to a readable `T` (reference BLAS: every scalar argument is one).
pub(crate) unsafe fn read<T: Copy>(p: *const T) -> T {
    // SAFETY: the caller passes a valid pointer, as the Fortran interface requires.
    unsafe { *p }
}

/// The first character of a CHARACTER argument, upper-cased (LSAME); `b' '` for a null
/// pointer. The hidden length gfortran appends is never read: many C callers omit it.
///
/// # Safety
/// `p` is null or points to at least one readable byte.
pub(crate) unsafe fn option(p: *const c_char) -> u8 {
    if p.is_null() {
        return b' ';
    }
    // SAFETY: as documented above.
    unsafe { *p as u8 }.to_ascii_uppercase()
}

/// `len` elements of the caller's array at `p`, lent to gpublas as a buffer of `dev` (host
/// memory on the host backend); dropping it frees nothing.
///
/// # Safety
/// `p` points to `len` elements that stay valid and are not otherwise accessed while the buffer
/// lives (the buffer never outlives the call that made it).
pub(crate) unsafe fn borrow<T: Element>(
    dev: &Device,
    p: *const T,
    len: usize,
) -> Result<DeviceBuffer<T>, Error> {
    // SAFETY: as documented above; gpublas reads or writes at most `len` elements.
    unsafe { DeviceBuffer::from_raw(dev, p as u64, len) }
}

type Xerbla = unsafe extern "C" fn(*const c_char, *const Int, usize);

/// Reports argument number `info` of `routine` as illegal through the program's `xerbla_`
/// (ELF interposition: a program defining its own replaces the library's, as with reference
/// BLAS), else this library's. `routine` is passed as given, its length as the hidden length.
///
/// The lookup goes through the dynamic loader (not a call of `crate::xerbla_`, which the
/// compiler may bind inside the library, and whose address read here would already be the
/// program's through the GOT): it finds the program's `xerbla_` if there is one, else this
/// library's export.
pub(crate) fn xerbla(routine: &str, info: Int) {
    // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only looks the symbol up.
    let found = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"xerbla_".as_ptr()) };
    if found.is_null() {
        // Not exported (the crate linked statically into a program): print here.
        crate::print_xerbla(routine, info);
        return;
    }
    // SAFETY: `xerbla_` has this signature in every BLAS (SRNAME by reference with its hidden
    // length, INFO by reference); the name's bytes live across the call.
    unsafe {
        let f: Xerbla = std::mem::transmute::<*mut c_void, Xerbla>(found);
        f(routine.as_ptr() as *const c_char, &info, routine.len());
    }
}

/// A CHARACTER argument's text: `len` bytes at `p` (none for a null pointer).
///
/// # Safety
/// `p` is null or points to `len` readable bytes.
pub(crate) unsafe fn fortran_text(p: *const c_char, len: usize) -> String {
    if p.is_null() || len == 0 {
        return String::new();
    }
    // SAFETY: as documented above.
    let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, len) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// The caller's array at `p` as a slice of `len` elements (empty for `len == 0`), for copies to
/// and from the GPU.
///
/// # Safety
/// `p` points to `len` readable elements that stay valid and unchanged while the slice lives.
pub(crate) unsafe fn host_slice<'a, T>(p: *const T, len: usize) -> &'a [T] {
    if len == 0 || p.is_null() {
        return &[];
    }
    // SAFETY: as documented above.
    unsafe { std::slice::from_raw_parts(p, len) }
}

/// The caller's array at `p` as a mutable slice of `len` elements (empty for `len == 0`).
///
/// # Safety
/// `p` points to `len` writable elements that nothing else accesses while the slice lives.
pub(crate) unsafe fn host_slice_mut<'a, T>(p: *mut T, len: usize) -> &'a mut [T] {
    if len == 0 || p.is_null() {
        return &mut [];
    }
    // SAFETY: as documented above.
    unsafe { std::slice::from_raw_parts_mut(p, len) }
}
