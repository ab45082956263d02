//! The drop-in as `liblapack.so.3`: every LAPACK symbol of Debian's `liblapack.so.3` that
//! gpublas does not have (`lapack-symbols.txt` less the crate's own routines) is exported as a
//! trampoline into the system's LAPACK, the *backend*, loaded privately on the first forwarded
//! call. The backend's BLAS calls, and its calls of the routines gpublas has, come back to
//! gpublas: it is loaded `RTLD_LOCAL` without `RTLD_DEEPBIND`, so its references resolve in the
//! global scope first, where this library is, and its `NEEDED libblas.so.3` is this library (the
//! SONAME). See docs/design/drop-in-abi-research.md, section 5.
//!
//! The trampolines (x86_64 Linux only; elsewhere nothing is forwarded) are written by build.rs:
//! symbol `NAME` is `jmp *slot(%rip)`. Its slot starts at a stub that keeps every argument
//! register, calls `resolve` with the symbol's index, restores them and jumps to the address
//! returned; `resolve` also stores it in the slot, so later calls cost one indirect jump. Hidden
//! lengths, complex results and any return register pass through untouched.
//!
//! The backend is the first that exists, loads and is not this library itself of:
//! `$GPUBLAS_FALLBACK_LAPACK`; the `liblapack.so.3` the program has loaded already (the drop-in
//! in `LD_PRELOAD` over a program's own LAPACK); Debian's reference LAPACK; OpenBLAS's
//! (pthread, openmp, serial). Files are loaded by absolute path: by name, the loader could
//! return this library. Without a backend, or for a symbol it lacks, the reason goes to
//! standard error once and the routine returns without doing anything.
//! When the backend is loaded, one line on standard error names it and the first routine
//! forwarded (`GPUBLAS_BLAS_VERBOSE=0` leaves it out); [`forwarded_routines`] lists them all.

/// The LAPACK routines forwarded to the backend so far in this process, in the order of their
/// first call (a routine gpublas has, or one not yet called, is not among them).
pub fn forwarded_routines() -> Vec<&'static str> {
    imp::forwarded_routines()
}

/// The LAPACK library that forwarded routines go to, once the first forwarded call has loaded
/// it; `None` before that, or where none was found.
pub fn fallback_library() -> Option<String> {
    imp::fallback_library()
}

/// Every LAPACK routine this library forwards when it is called: the names of Debian's
/// `liblapack.so.3` (lapack-symbols.txt) that gpublas does not implement, in table order.
pub fn forwardable_routines() -> &'static [&'static str] {
    imp::forwardable_routines()
}

/// The LAPACK routines (and BLAS helpers such as `xerbla_`) of Debian's `liblapack.so.3` that
/// this library implements itself on gpublas, as exported (`dgetrf_`, …).
pub fn native_lapack_routines() -> &'static [&'static str] {
    imp::native_lapack_routines()
}

/// The library a program that loads no LAPACK of its own would have its forwarded routines
/// sent to: `$GPUBLAS_FALLBACK_LAPACK` where it names a file, else the first of the Debian
/// locations that exists (looked up, not loaded: loading could still refuse it). `Err` says
/// what was looked for.
pub fn expected_fallback() -> Result<String, String> {
    imp::expected_fallback()
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
mod imp {
    //! No trampolines here: nothing is forwarded.

    /// Nothing is forwarded on this target.
    pub(super) fn forwardable_routines() -> &'static [&'static str] {
        &[]
    }

    /// Without the table, nothing is listed.
    pub(super) fn native_lapack_routines() -> &'static [&'static str] {
        &[]
    }

    /// Nothing is forwarded on this target.
    pub(super) fn expected_fallback() -> Result<String, String> {
        Err("no forwarding on this target (x86_64 Linux only)".into())
    }

    /// Nothing is forwarded on this target.
    pub(super) fn forwarded_routines() -> Vec<&'static str> {
        Vec::new()
    }

    /// Nothing is forwarded on this target.
    pub(super) fn fallback_library() -> Option<String> {
        None
    }
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
mod imp {
    //! The trampolines, the resolver and the backend's loading.

    use std::ffi::{c_char, c_int, c_void, CStr, CString};
    use std::io::Write as _;
    use std::os::unix::fs::MetadataExt as _;
    use std::panic::catch_unwind;
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::{Mutex, OnceLock};

    include!(concat!(env!("OUT_DIR"), "/forward_names.rs"));

    // The trampolines, the lazy stubs, the common stub and the slots (build.rs, `asm`).
    core::arch::global_asm!(
        include_str!(concat!(env!("OUT_DIR"), "/forward.s")),
        resolve = sym resolve,
        options(att_syntax)
    );

    extern "C" {
        /// Where each trampoline jumps: slot `i` belongs to `NAMES[i]` (forward.s). Written only
        /// through these atomics; the trampolines read it with one aligned 8-byte load.
        static gpublas_blas_fw_slots: [AtomicUsize; COUNT];
        /// Returns at once with zero in every return register (forward.s): the target of a
        /// symbol that cannot be forwarded.
        fn gpublas_blas_fw_missing();
    }

    /// `dladdr1`'s request for the object's `struct link_map` (glibc's `RTLD_DL_LINKMAP`).
    const RTLD_DL_LINKMAP: c_int = 2;

    /// Where the backend is looked for after `$GPUBLAS_FALLBACK_LAPACK`: Debian's reference
    /// LAPACK (package liblapack3), whose BLAS calls all go through `libblas.so.3`, then
    /// OpenBLAS's (whose own getrf, potrf, … call its kernels, not gpublas).
    const CANDIDATES: [&str; 4] = [
        "/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3",
        "/usr/lib/x86_64-linux-gnu/openblas-pthread/liblapack.so.3",
        "/usr/lib/x86_64-linux-gnu/openblas-openmp/liblapack.so.3",
        "/usr/lib/x86_64-linux-gnu/openblas-serial/liblapack.so.3",
    ];

    /// The loaded backend.
    struct Backend {
        /// Its `dlopen` handle (an address: raw pointers are not `Sync`).
        handle: usize,
        /// Its `struct link_map`, which `dladdr1` names for an address inside it.
        map: usize,
        /// Its path, as loaded.
        path: String,
    }

    /// The backend, loaded by the first forwarded call (`None`: none was found).
    static BACKEND: OnceLock<Option<Backend>> = OnceLock::new();

    /// Whether `NAMES[i]` has been resolved once (then it was reported or recorded).
    static SEEN: [AtomicBool; COUNT] = [const { AtomicBool::new(false) }; COUNT];

    /// The names forwarded so far, in the order of their first call.
    static FORWARDED: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());

    /// See [`super::forwarded_routines`].
    pub(super) fn forwarded_routines() -> Vec<&'static str> {
        FORWARDED.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// See [`super::fallback_library`].
    pub(super) fn fallback_library() -> Option<String> {
        BACKEND.get()?.as_ref().map(|b| b.path.clone())
    }

    /// See [`super::forwardable_routines`].
    pub(super) fn forwardable_routines() -> &'static [&'static str] {
        &NAMES
    }

    /// See [`super::native_lapack_routines`].
    pub(super) fn native_lapack_routines() -> &'static [&'static str] {
        &NATIVE
    }

    /// See [`super::expected_fallback`]: `load`'s order without the program's own LAPACK.
    pub(super) fn expected_fallback() -> Result<String, String> {
        let set = std::env::var("GPUBLAS_FALLBACK_LAPACK").unwrap_or_default();
        let paths: Vec<&str> = Some(set.as_str())
            .filter(|s| !s.is_empty())
            .into_iter()
            .chain(CANDIDATES)
            .collect();
        match paths.iter().find_map(|p| std::fs::canonicalize(p).ok()) {
            Some(found) => Ok(found.to_string_lossy().into_owned()),
            None => Err(format!("none of {} exists", paths.join(", "))),
        }
    }

    /// Called by the common stub on the first call of `NAMES[index]` (from any thread, with
    /// the caller's arguments saved): loads the backend once, stores the routine's address in
    /// its slot and returns it, or the address of the returning stub where there is none.
    /// Never unwinds: the stub has no unwind information to unwind through.
    extern "C" fn resolve(index: usize) -> usize {
        let missing = gpublas_blas_fw_missing as *const () as usize;
        let Some(&name) = NAMES.get(index) else {
            return missing;
        };
        catch_unwind(|| {
            let found = match BACKEND.get_or_init(|| load(name)) {
                Some(b) => lookup(b, name),
                None => Err(String::new()), // reported by `load`
            };
            let first = !SEEN[index].swap(true, Ordering::AcqRel);
            let target = match found {
                Ok(addr) => {
                    if first {
                        FORWARDED
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push(name);
                    }
                    addr
                }
                Err(why) => {
                    if first && !why.is_empty() {
                        note(&format!(
                            "{name} cannot be forwarded: {why}; it returns without doing anything"
                        ));
                    }
                    missing
                }
            };
            // SAFETY: the slots are the extern table of forward.s, `COUNT` aligned
            // words that live as long as the library; `index` is in range (checked above).
            unsafe { gpublas_blas_fw_slots[index].store(target, Ordering::Release) };
            target
        })
        .unwrap_or(missing)
    }

    /// One line on standard error (a failed write is ignored: this must not panic).
    fn note(text: &str) {
        let _ = writeln!(std::io::stderr(), "gpublas-blas: {text}");
    }

    /// `dlerror()`'s message, or a placeholder.
    fn dl_error() -> String {
        // SAFETY: dlerror returns null or a NUL-terminated message valid until the next dl*
        // call of this thread; it is copied at once.
        unsafe {
            let e = libc::dlerror();
            if e.is_null() {
                "unknown error".into()
            } else {
                CStr::from_ptr(e).to_string_lossy().into_owned()
            }
        }
    }

    /// This library, as the loader knows it.
    struct Own {
        /// The name it was loaded under (`dli_fname`).
        loaded_as: CString,
        /// Its `struct link_map`.
        map: usize,
        /// Its canonical path and (device, inode), where the file can be read.
        file: Option<(PathBuf, (u64, u64))>,
    }

    /// The object holding `addr`: its `struct link_map` and name (`None`: in no object).
    fn owner(addr: *const c_void) -> Option<(usize, CString)> {
        // SAFETY: Dl_info is plain data that dladdr1 fills; zeroed is a valid initial value.
        let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
        let mut map: *mut c_void = std::ptr::null_mut();
        // SAFETY: dladdr1 only reads the address; RTLD_DL_LINKMAP writes one pointer to `map`.
        let ok = unsafe {
            libc::dladdr1(
                addr,
                &mut info,
                (&mut map as *mut *mut c_void).cast(),
                RTLD_DL_LINKMAP,
            )
        };
        if ok == 0 || info.dli_fname.is_null() {
            return None;
        }
        // SAFETY: dli_fname is the object's NUL-terminated name, valid while it is loaded.
        let name = unsafe { CStr::from_ptr(info.dli_fname) }.to_owned();
        Some((map as usize, name))
    }

    /// This library (found from the address of `resolve`, one of its functions).
    fn own() -> Option<Own> {
        let (map, loaded_as) = owner(resolve as *const c_void)?;
        let path = PathBuf::from(loaded_as.to_string_lossy().into_owned());
        let file = std::fs::canonicalize(&path)
            .ok()
            .and_then(|p| std::fs::metadata(&p).ok().map(|m| (p, (m.dev(), m.ino()))));
        Some(Own {
            loaded_as,
            map,
            file,
        })
    }

    /// Loaded RTLD_LOCAL (ctypes, a Python extension), this library would be invisible to the
    /// backend's global lookups: makes it global. The reference this takes is kept (the
    /// backend depends on this library).
    fn promote(me: &Own) {
        let canonical = me
            .file
            .as_ref()
            .and_then(|(p, _)| CString::new(p.as_os_str().as_encoded_bytes()).ok());
        // The name it was loaded under, else its file (a relative name may no longer lead
        // there): the loader also matches an object by its file.
        for name in std::iter::once(&me.loaded_as).chain(canonical.as_ref()) {
            // SAFETY: a NUL-terminated name; NOLOAD only finds an object already loaded.
            let handle = unsafe {
                libc::dlopen(
                    name.as_ptr(),
                    libc::RTLD_NOW | libc::RTLD_NOLOAD | libc::RTLD_GLOBAL,
                )
            };
            if !handle.is_null() {
                return;
            }
        }
    }

    /// Loads the backend (called once, by the first forwarded call, of `name`), or says on
    /// standard error which candidates were tried and why each was refused.
    fn load(name: &str) -> Option<Backend> {
        let me = own();
        if let Some(me) = &me {
            promote(me);
        }
        let own_map = me.as_ref().map(|m| m.map);
        let own_file = me.and_then(|m| m.file);
        let mut tried = Vec::new();
        let found = |b: Backend| {
            if !std::env::var("GPUBLAS_BLAS_VERBOSE").is_ok_and(|v| v == "0") {
                note(&format!(
                    "forwarding the LAPACK routines gpublas does not have to {} (first: {name})",
                    b.path
                ));
            }
            Some(b)
        };
        match std::env::var("GPUBLAS_FALLBACK_LAPACK") {
            Ok(path) if !path.is_empty() => match open(&path, own_file.as_ref()) {
                Ok(b) => return found(b),
                Err(why) => tried.push(format!("$GPUBLAS_FALLBACK_LAPACK={path}: {why}")),
            },
            _ => tried.push("$GPUBLAS_FALLBACK_LAPACK: not set".into()),
        }
        match already_loaded(own_map) {
            Ok(b) => return found(b),
            Err(why) => tried.push(format!("a liblapack.so.3 already loaded: {why}")),
        }
        for path in CANDIDATES {
            match open(path, own_file.as_ref()) {
                Ok(b) => return found(b),
                Err(why) => tried.push(format!("{path}: {why}")),
            }
        }
        note(&format!(
            "no LAPACK to forward {name} and the other LAPACK routines gpublas does not have \
             to (tried {}); they return without doing anything",
            tried.join("; ")
        ));
        None
    }

    /// The `liblapack.so.3` the program loaded itself, where it is not this library: with the
    /// drop-in in `LD_PRELOAD`, its trampolines come first, and the program's own LAPACK is
    /// the one to forward to.
    fn already_loaded(own_map: Option<usize>) -> Result<Backend, String> {
        // SAFETY: a NUL-terminated name; with NOLOAD nothing is loaded, only an object already
        // loaded under that name (or SONAME, or file) is returned.
        let handle = unsafe {
            libc::dlopen(
                c"liblapack.so.3".as_ptr(),
                libc::RTLD_LAZY | libc::RTLD_NOLOAD,
            )
        };
        if handle.is_null() {
            return Err("none".into());
        }
        let map = link_map(handle)?;
        if Some(map) == own_map {
            // SAFETY: drops the reference NOLOAD took; this library stays loaded.
            unsafe { libc::dlclose(handle) };
            return Err("gpublas-blas itself".into());
        }
        // SAFETY: a live object's link_map, whose second member (link.h, public ABI) is its
        // NUL-terminated name.
        let path = unsafe { CStr::from_ptr((*(map as *const LinkMap)).l_name) };
        usable(Backend {
            handle: handle as usize,
            map,
            path: path.to_string_lossy().into_owned(),
        })
    }

    /// The head of glibc's `struct link_map` (link.h), the members read here.
    #[repr(C)]
    struct LinkMap {
        /// The difference between the object's addresses and those in its file.
        _l_addr: usize,
        /// The object's file name.
        l_name: *const c_char,
    }

    /// The `struct link_map` of a `dlopen` handle.
    fn link_map(handle: *mut c_void) -> Result<usize, String> {
        let mut map: *mut c_void = std::ptr::null_mut();
        // SAFETY: RTLD_DI_LINKMAP writes one pointer to `map`; the handle is live.
        let rc = unsafe {
            libc::dlinfo(
                handle,
                libc::RTLD_DI_LINKMAP,
                (&mut map as *mut *mut c_void).cast(),
            )
        };
        if rc != 0 {
            return Err(dl_error());
        }
        Ok(map as usize)
    }

    /// Opens the candidate at `path`, unless it is missing, fails to load or is this library
    /// (`own`: its canonical path and file id).
    fn open(path: &str, own: Option<&(PathBuf, (u64, u64))>) -> Result<Backend, String> {
        // Canonical: absolute (a bare name would be searched for, and could find this
        // library), and comparable with this library's.
        let canon = std::fs::canonicalize(path).map_err(|e| e.to_string())?;
        let meta = std::fs::metadata(&canon).map_err(|e| e.to_string())?;
        if own.is_some_and(|(p, id)| *p == canon || *id == (meta.dev(), meta.ino())) {
            return Err("is gpublas-blas itself".into());
        }
        let c = CString::new(canon.as_os_str().as_encoded_bytes()).map_err(|e| e.to_string())?;
        // Without RTLD_DEEPBIND: the backend's BLAS references must reach this library.
        // SAFETY: a NUL-terminated absolute path; loading runs the library's initialisers,
        // as for any LAPACK a program links.
        let handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            return Err(dl_error());
        }
        let map = link_map(handle)?;
        usable(Backend {
            handle: handle as usize,
            map,
            path: canon.to_string_lossy().into_owned(),
        })
    }

    /// `b`, if it is a LAPACK: it defines `ilaver_` (every LAPACK since 3.1). A library that
    /// loads but is something else is closed and refused.
    fn usable(b: Backend) -> Result<Backend, String> {
        match lookup(&b, "ilaver_") {
            Ok(_) => Ok(b),
            Err(_) => {
                // SAFETY: the handle this search opened; nothing of it is in use.
                unsafe { libc::dlclose(b.handle as *mut c_void) };
                Err("not a LAPACK (no ilaver_)".into())
            }
        }
    }

    /// `name`'s address in the backend. `dlsym` also searches the backend's dependencies,
    /// this library among them, where `name` is a trampoline: an address outside the
    /// backend is refused (it would jump back here forever).
    fn lookup(b: &Backend, name: &str) -> Result<usize, String> {
        let c = CString::new(name).map_err(|e| e.to_string())?;
        // SAFETY: a live handle and a NUL-terminated name; dlsym only looks the name up.
        let addr = unsafe { libc::dlsym(b.handle as *mut c_void, c.as_ptr()) };
        if addr.is_null() {
            return Err(format!("{} does not define it", b.path));
        }
        match owner(addr) {
            Some((map, _)) if map == b.map => {}
            Some((_, other)) => {
                return Err(format!(
                    "{} does not define it (it resolves to {})",
                    b.path,
                    other.to_string_lossy()
                ))
            }
            None => return Err(format!("{} does not define it", b.path)),
        }
        Ok(addr as usize)
    }
}

#[cfg(all(test, target_arch = "x86_64", target_os = "linux"))]
mod tests {
    use std::ffi::c_char;

    use super::{fallback_library, forwarded_routines};

    extern "C" {
        /// LAPACK's `dlamch_`, here the trampoline (one CHARACTER argument, a result in xmm0).
        fn dlamch_(cmach: *const c_char, len: usize) -> f64;
    }

    /// A call through a trampoline either reaches a backend (then the routine is listed) or,
    /// where this machine has none, returns zero (then nothing is listed).
    #[test]
    fn trampoline_forwards_or_returns() {
        // SAFETY: CMACH points to one character, its hidden length 1.
        let eps = unsafe { dlamch_(c"E".as_ptr(), 1) };
        if fallback_library().is_some() {
            assert_eq!(eps, f64::EPSILON / 2.0);
            assert!(forwarded_routines().contains(&"dlamch_"));
        } else {
            assert_eq!(eps, 0.0);
            assert!(forwarded_routines().is_empty());
        }
    }
}
