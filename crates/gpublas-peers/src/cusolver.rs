//! cuSOLVER (dense), only to compare against in benchmarks (feature `cublas`).
//!
//! A [`Cusolver`] is a `cusolverDn` handle bound to a gpublas [`Stream`]; its wrappers are
//! `?getrf_bufferSize` + `?getrf` (also looped over the entries of a strided batch with one
//! workspace, [`Cusolver::getrf_looped`]) for `f32`, `f64`, `Complex32` and `Complex64`, and
//! `?getrs`, `?potrf_bufferSize` + `?potrf`, `?potrs` and `?potrfBatched` (pointer arrays,
//! [`BatchPtrArray`]) for `f32` and `f64`; for Householder QR, `?geqrf_bufferSize` + `?geqrf`,
//! `?orgqr`/`?ungqr` (`_bufferSize` + call) and `?ormqr`/`?unmqr` (`_bufferSize` + call) for
//! all four types (the complex names for `Complex32` and `Complex64`). cuBLAS's
//! `cublas?getrfBatched` and `cublas?geqrfBatched` live with the cuBLAS handle
//! ([`crate::cublas::Cublas::getrf_batched`], [`crate::cublas::Cublas::geqrf_batched`]) and
//! take the same [`BatchPtrArray`]. The eigensolvers (`?syevd`/`?heevd`, `?syevj`,
//! `?syevjBatched`, `cusolverDnXsyevd`) are in `cusolver/eig.rs`, which checks their symbols
//! itself ([`require_symbols`]) rather than in [`ensure_cusolver`]'s list.
//!
//! As in `cublas.rs`, every wrapper checks its arguments before the raw call: sizes and leading
//! dimensions must fit cuSOLVER's 32-bit `int`, every buffer must be memory of the handle's
//! device holding every element the call can touch (computed overflow-safe), the workspace at
//! least what `?_bufferSize` asked for, and the entries of a batch must not overlap; anything
//! else is `Error::InvalidValue` / `Error::InvalidPointer` naming the values. Results (pivots,
//! `info`) go to device buffers, so no call waits for the host.
//!
//! Loading: cudarc opens cuSOLVER by bare name (`libcusolver.so`, `.so.13`, `.so.12`, `.so.11`,
//! … — CUDA 13 ships cuSOLVER 12 as `libcusolver.so.12`) and panics when none loads. We first
//! load cuBLAS (through `gpublas::device::libs`) and cuSOLVER's other dependencies (nvJitLink, cuSPARSE)
//! and cuSOLVER itself by full path from `gpublas::device::libs::library_dirs`, so the bare-name
//! `dlopen` resolves through the sonames, then check that cudarc can open it and that every
//! symbol used here is present: a missing library or symbol is `Error::LibraryMissing`.

use std::cell::RefCell;
use std::ffi::c_int;
use std::sync::OnceLock;

use cudarc::cusolver::sys;

use crate::cublas::{CublasReal, CublasScalar, CublasType};
use crate::{driver_error, ensure_cublas};
use gpublas::device::libs;
use gpublas::spans::mat_span;
use gpublas::{Backend, Device, DeviceBuffer, Element, Error, Op, Side, Stream, Uplo};

/// cuSOLVER's library files, tried in this order in each library folder.
const CUSOLVER_FILES: &[&str] = &["libcusolver.so.12", "libcusolver.so.13", "libcusolver.so"];

/// Libraries cuSOLVER links against besides cuBLAS (which [`libs`] loads), each as its
/// candidate file names; loaded by full path first so cuSOLVER's own `DT_NEEDED` entries
/// resolve to them by soname. A dependency that is not found here is left to the system
/// search path.
const CUSOLVER_DEPS: &[&[&str]] = &[
    &["libnvJitLink.so.13", "libnvJitLink.so"],
    &["libcusparse.so.12", "libcusparse.so"],
];

/// Every cuSOLVER symbol the wrappers call: checked once, so a missing one is an error
/// rather than a panic inside cudarc's loader.
const SYMBOLS: &[&str] = &[
    "cusolverDnCreate",
    "cusolverDnDestroy",
    "cusolverDnSetStream",
    "cusolverDnSgetrf_bufferSize",
    "cusolverDnDgetrf_bufferSize",
    "cusolverDnCgetrf_bufferSize",
    "cusolverDnZgetrf_bufferSize",
    "cusolverDnSgetrf",
    "cusolverDnDgetrf",
    "cusolverDnCgetrf",
    "cusolverDnZgetrf",
    "cusolverDnSgetrs",
    "cusolverDnDgetrs",
    "cusolverDnSpotrf_bufferSize",
    "cusolverDnDpotrf_bufferSize",
    "cusolverDnSpotrf",
    "cusolverDnDpotrf",
    "cusolverDnSpotrs",
    "cusolverDnDpotrs",
    "cusolverDnSpotrfBatched",
    "cusolverDnDpotrfBatched",
    "cusolverDnSgeqrf_bufferSize",
    "cusolverDnDgeqrf_bufferSize",
    "cusolverDnCgeqrf_bufferSize",
    "cusolverDnZgeqrf_bufferSize",
    "cusolverDnSgeqrf",
    "cusolverDnDgeqrf",
    "cusolverDnCgeqrf",
    "cusolverDnZgeqrf",
    "cusolverDnSorgqr_bufferSize",
    "cusolverDnDorgqr_bufferSize",
    "cusolverDnCungqr_bufferSize",
    "cusolverDnZungqr_bufferSize",
    "cusolverDnSorgqr",
    "cusolverDnDorgqr",
    "cusolverDnCungqr",
    "cusolverDnZungqr",
    "cusolverDnSormqr_bufferSize",
    "cusolverDnDormqr_bufferSize",
    "cusolverDnCunmqr_bufferSize",
    "cusolverDnZunmqr_bufferSize",
    "cusolverDnSormqr",
    "cusolverDnDormqr",
    "cusolverDnCunmqr",
    "cusolverDnZunmqr",
];

/// Makes sure cuSOLVER (and the cuBLAS it needs) can be loaded and has every symbol used
/// here; returns where it came from.
pub fn ensure_cusolver() -> Result<String, Error> {
    static CUSOLVER: OnceLock<Result<String, Error>> = OnceLock::new();
    CUSOLVER
        .get_or_init(|| {
            ensure_cublas()?;
            for dep in CUSOLVER_DEPS {
                libs::preload(dep);
            }
            let from = libs::preload(CUSOLVER_FILES);
            // SAFETY: only tries to dlopen the library by cudarc's candidate names.
            if !unsafe { sys::is_culib_present() } {
                return Err(Error::LibraryMissing(format!(
                    "cuSOLVER (libcusolver.so.12, which CUDA 13 ships) was not found in the \
                     library path nor in {:?}, or one of its dependencies (libcublas.so.13, \
                     libcublasLt.so.13, libcusparse.so.12, libnvJitLink.so.13) was not: the \
                     solver benchmark needs it; install CUDA, or `pip install nvidia-cusolver \
                     nvidia-cusparse nvidia-nvjitlink nvidia-cublas` and set CUDA_PATH to their \
                     nvidia/cu13 folder",
                    libs::library_dirs()
                )));
            }
            // SAFETY: `is_culib_present` just opened one of the candidates cudarc's `culib`
            // tries, in the same order, so `culib` finds a library (it panics only when none
            // loads); looking a symbol up calls nothing.
            let lib = unsafe { sys::culib() };
            let missing: Vec<&str> = SYMBOLS
                .iter()
                .copied()
                .filter(|s| {
                    let name = format!("{s}\0");
                    // SAFETY: only looks the symbol up; the pointer is never called here.
                    unsafe { lib.get::<unsafe extern "C" fn()>(name.as_bytes()) }.is_err()
                })
                .collect();
            if !missing.is_empty() {
                return Err(Error::LibraryMissing(format!(
                    "the cuSOLVER library loaded lacks {missing:?} (too old a cuSOLVER?)"
                )));
            }
            Ok(from
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "the system library path".into()))
        })
        .clone()
}

fn check(op: &str, s: sys::cusolverStatus_t) -> Result<(), Error> {
    if s == sys::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(driver_error(op, format!("{s:?}")))
    }
}

/// `v` as a cuSOLVER `int`.
fn int(call: &str, what: &str, v: usize) -> Result<c_int, Error> {
    c_int::try_from(v).map_err(|_| {
        Error::InvalidValue(format!(
            "{call}: {what} = {v} does not fit a 32-bit int (max {})",
            c_int::MAX
        ))
    })
}

/// Elements a `rows × cols` matrix at `ld` spans; `ld >= max(1, rows)` as cuSOLVER requires.
fn mspan(call: &str, what: &str, rows: usize, cols: usize, ld: usize) -> Result<usize, Error> {
    if ld < rows.max(1) {
        return Err(Error::InvalidValue(format!(
            "{call}: the leading dimension of {what} ({ld}) is less than max(1, {rows}) rows"
        )));
    }
    mat_span(rows, cols, ld).ok_or_else(|| {
        Error::InvalidValue(format!(
            "{call}: {what}, {rows} x {cols} at leading dimension {ld}, overflows the address \
             space"
        ))
    })
}

/// Elements `batch` entries of `one` elements each, `stride` apart, span.
fn bspan(call: &str, what: &str, one: usize, stride: usize, batch: usize) -> Result<usize, Error> {
    if batch == 0 || one == 0 {
        return Ok(0);
    }
    (batch - 1)
        .checked_mul(stride)
        .and_then(|v| v.checked_add(one))
        .ok_or_else(|| {
            Error::InvalidValue(format!(
                "{call}: {batch} entries of {what} at stride {stride} (each {one} elements) \
                 overflow the address space"
            ))
        })
}

/// Rejects a batch whose entries, written by the call, would overlap.
fn no_overlap(
    call: &str,
    what: &str,
    one: usize,
    stride: usize,
    batch: usize,
) -> Result<(), Error> {
    if batch > 1 && one > 0 && stride < one {
        return Err(Error::InvalidValue(format!(
            "{call}: {what} has stride {stride} but one entry spans {one} elements: {batch} \
             entries would overlap"
        )));
    }
    Ok(())
}

/// The address of `buf` after checking that it is memory of `dev` holding at least `need`
/// elements (`call` names the library and routine in errors).
fn checked_addr<T: Element>(
    call: &str,
    what: &str,
    dev: &Device,
    buf: &DeviceBuffer<T>,
    need: usize,
) -> Result<u64, Error> {
    let Some(addr) = buf
        .device()
        .filter(|d| d.same_as(dev))
        .and(buf.device_ptr())
    else {
        return Err(Error::InvalidPointer(format!(
            "{call}: {what} is {} but the call works on {}",
            match buf.device() {
                Some(d) => format!("memory of {}", d.name()),
                None => format!("a placeholder of {} elements", buf.len()),
            },
            dev.name()
        )));
    };
    if buf.len() < need {
        return Err(Error::InvalidValue(format!(
            "{call}: {what} has {} elements; the call needs {need}",
            buf.len()
        )));
    }
    Ok(addr)
}

/// What a [`BatchPtrArray`] was built for: element size, base address, stride, count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PtrKey {
    elem: usize,
    base: u64,
    stride: usize,
    batch: usize,
}

/// A device array of the `batch` addresses `base + i * stride` (elements) of one buffer: the
/// `A` argument of the pointer-array batched routines (`cusolverDn?potrfBatched`,
/// `cublas?getrfBatched`). Built once by [`BatchPtrArray::new`] (a synchronous upload) so the
/// timed calls upload nothing; every call checks that the array was built for the buffer,
/// stride and count it is given.
pub struct BatchPtrArray {
    ptrs: DeviceBuffer<u64>,
    dev: Device,
    key: PtrKey,
}

impl BatchPtrArray {
    /// The addresses of `batch` entries of `a`, `stride` elements apart, uploaded to `a`'s
    /// device now.
    pub fn new<T: Element>(
        a: &DeviceBuffer<T>,
        stride: usize,
        batch: usize,
    ) -> Result<BatchPtrArray, Error> {
        let call = "BatchPtrArray::new";
        let dev = a.device().ok_or_else(|| {
            Error::InvalidPointer(format!(
                "{call}: A is a placeholder of {} elements",
                a.len()
            ))
        })?;
        let base = checked_addr(call, "A", &dev, a, 0)?;
        let elem = std::mem::size_of::<T>();
        let step = stride
            .checked_mul(elem)
            .and_then(|s| u64::try_from(s).ok())
            .ok_or_else(|| {
                Error::InvalidValue(format!(
                    "{call}: stride {stride} overflows the address space"
                ))
            })?;
        let addrs = (0..batch as u64)
            .map(|i| {
                i.checked_mul(step)
                    .and_then(|o| base.checked_add(o))
                    .ok_or_else(|| {
                        Error::InvalidValue(format!(
                            "{call}: entry {i} overflows the address space"
                        ))
                    })
            })
            .collect::<Result<Vec<u64>, Error>>()?;
        // One element at least: an empty batch still gets a real (unread) allocation.
        let ptrs = if addrs.is_empty() {
            dev.alloc::<u64>(1)?
        } else {
            dev.upload(&addrs)?
        };
        Ok(BatchPtrArray {
            ptrs,
            dev,
            key: PtrKey {
                elem,
                base,
                stride,
                batch,
            },
        })
    }

    /// The number of entries the array holds.
    pub fn batch(&self) -> usize {
        self.key.batch
    }

    /// The array's device address, after checking that it was built on `dev` for `batch`
    /// entries of elements of `T` at `base`, `stride` apart.
    pub(crate) fn addr_for<T: Element>(
        &self,
        call: &str,
        (dev, stream): (&Device, &Stream),
        base: u64,
        stride: usize,
        batch: usize,
    ) -> Result<u64, Error> {
        let key = PtrKey {
            elem: std::mem::size_of::<T>(),
            base,
            stride,
            batch,
        };
        if self.key != key || !self.dev.same_as(dev) {
            return Err(Error::InvalidValue(format!(
                "{call}: the pointer array was built for {:?} on {}, the call is {key:?} on {}",
                self.key,
                self.dev.name(),
                dev.name()
            )));
        }
        let addr = checked_addr(call, "the pointer array", dev, &self.ptrs, batch)?;
        // The library reads the array on `stream`: a drop right after waits for it.
        self.ptrs.mark_used(stream);
        Ok(addr)
    }
}

fn fill(uplo: Uplo) -> sys::cublasFillMode_t {
    match uplo {
        Uplo::Upper => sys::cublasFillMode_t::CUBLAS_FILL_MODE_UPPER,
        Uplo::Lower => sys::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER,
    }
}

/// `op` for a real type: `C` is `T`.
fn trans(op: Op) -> sys::cublasOperation_t {
    match op {
        Op::N => sys::cublasOperation_t::CUBLAS_OP_N,
        Op::T | Op::C => sys::cublasOperation_t::CUBLAS_OP_T,
    }
}

/// `op` of `?ormqr` (real types: `C` is `T`) or `?unmqr` (complex types: `N` or `C`; as in
/// LAPACK's `zunmqr`, there is no transpose without conjugation).
fn qr_trans<T: CublasScalar>(call: &str, op: Op) -> Result<sys::cublasOperation_t, Error> {
    match (op, T::TYPE) {
        (Op::T, CublasType::C | CublasType::Z) => Err(Error::InvalidValue(format!(
            "{call}: op = T with a complex type (?unmqr takes N or C)"
        ))),
        (Op::C, CublasType::C | CublasType::Z) => Ok(sys::cublasOperation_t::CUBLAS_OP_C),
        (op, _) => Ok(trans(op)),
    }
}

fn side_mode(side: Side) -> sys::cublasSideMode_t {
    match side {
        Side::Left => sys::cublasSideMode_t::CUBLAS_SIDE_LEFT,
        Side::Right => sys::cublasSideMode_t::CUBLAS_SIDE_RIGHT,
    }
}

/// Calls the S, D, C or Z variant of a cuSOLVER routine for element type `$t` with the same
/// argument list (raw pointers are cast with `as _` to each variant's pointer type).
macro_rules! typed {
    ($t:ty, $s:ident, $d:ident, $c:ident, $z:ident, ($($arg:expr),* $(,)?)) => {
        match <$t as CublasScalar>::TYPE {
            CublasType::S => sys::$s($($arg),*),
            CublasType::D => sys::$d($($arg),*),
            CublasType::C => sys::$c($($arg),*),
            CublasType::Z => sys::$z($($arg),*),
        }
    };
}

/// Which `?_bufferSize` answer a cached workspace size is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LworkKey {
    Getrf {
        ty: CublasType,
        m: usize,
        n: usize,
        lda: usize,
    },
    Potrf {
        ty: CublasType,
        upper: bool,
        n: usize,
        lda: usize,
    },
    Geqrf {
        ty: CublasType,
        m: usize,
        n: usize,
        lda: usize,
    },
    Orgqr {
        ty: CublasType,
        m: usize,
        n: usize,
        k: usize,
        lda: usize,
    },
    Ormqr {
        ty: CublasType,
        side: Side,
        op: Op,
        m: usize,
        n: usize,
        k: usize,
        lda: usize,
        ldc: usize,
    },
    /// `?syevd` / `?heevd`.
    Syevd {
        ty: CublasType,
        vectors: bool,
        upper: bool,
        n: usize,
        lda: usize,
    },
    /// `?syevj` (`batch: None`) and `?syevjBatched` (`Some(batch)`).
    Syevj {
        ty: CublasType,
        vectors: bool,
        upper: bool,
        n: usize,
        lda: usize,
        batch: Option<usize>,
    },
}

mod eig;
pub use eig::{require_symbols, DnParams, EigScalar, SyevjParams, SYEVJ_BATCHED_MAX_N};

/// A cuSOLVER dense handle working on a gpublas stream (CUDA only).
pub struct Cusolver {
    h: sys::cusolverDnHandle_t,
    dev: Device,
    /// The stream the handle works on, kept so it outlives the handle (fields drop after
    /// `Drop::drop` destroys the handle).
    _stream: Stream,
    /// `?_bufferSize` answers (elements), so the workspace check before each call does not ask
    /// cuSOLVER again.
    lwork: RefCell<Vec<(LworkKey, usize)>>,
}

impl Cusolver {
    /// A cuSOLVER dense handle working on `stream` (CUDA only). `Error::LibraryMissing` when
    /// cuSOLVER or a library it needs cannot be loaded.
    pub fn new(stream: &Stream) -> Result<Cusolver, Error> {
        if stream.device().backend() != Backend::Cuda {
            return Err(Error::Unsupported("cuSOLVER on the host backend".into()));
        }
        ensure_cusolver()?;
        stream.device().bind_to_thread()?;
        let mut h = std::ptr::null_mut();
        // SAFETY: plain handle creation in the current (the stream's) context; the library
        // and every symbol used were checked by `ensure_cusolver`. The handle is owned by `c`
        // (destroyed by its Drop) as soon as it exists.
        unsafe {
            check("cusolverDnCreate", sys::cusolverDnCreate(&mut h))?;
            let c = Cusolver {
                h,
                dev: stream.device(),
                _stream: stream.clone(),
                lwork: RefCell::new(Vec::new()),
            };
            check(
                "cusolverDnSetStream",
                sys::cusolverDnSetStream(h, stream.as_raw() as _),
            )?;
            Ok(c)
        }
    }

    /// Makes the handle's context current on this thread (cuSOLVER calls use it).
    fn bind(&self) -> Result<(), Error> {
        if self.dev.backend() != Backend::Cuda {
            return Err(Error::Unsupported("cuSOLVER on the host backend".into()));
        }
        self.dev.bind_to_thread()
    }

    fn ptr<T: Element>(
        &self,
        call: &str,
        what: &str,
        buf: &DeviceBuffer<T>,
        need: usize,
    ) -> Result<u64, Error> {
        let addr = checked_addr(call, what, &self.dev, buf, need)?;
        buf.mark_used(&self._stream);
        Ok(addr)
    }

    fn cached(&self, key: LworkKey) -> Option<usize> {
        self.lwork
            .borrow()
            .iter()
            .find(|(k, _)| *k == key)
            .map(|&(_, v)| v)
    }

    fn remember(&self, key: LworkKey, v: usize) {
        let mut l = self.lwork.borrow_mut();
        if !l.iter().any(|(k, _)| *k == key) {
            l.push((key, v));
        }
    }

    /// A `?_bufferSize` answer as a count of elements.
    fn lwork_count(call: &str, lwork: c_int) -> Result<usize, Error> {
        usize::try_from(lwork).map_err(|_| {
            driver_error(
                format!("cusolverDn?{call}_bufferSize"),
                format!("returned a negative workspace size ({lwork})"),
            )
        })
    }

    /// The workspace, in elements of `T`, that [`Self::getrf`] of an `m × n` matrix at `lda`
    /// needs (`cusolverDn?getrf_bufferSize`); `a` is the matrix of the call.
    pub fn getrf_buffer_size<T: CublasScalar>(
        &self,
        m: usize,
        n: usize,
        a: &DeviceBuffer<T>,
        lda: usize,
    ) -> Result<usize, Error> {
        let call = "cuSOLVER getrf_bufferSize";
        let key = LworkKey::Getrf {
            ty: T::TYPE,
            m,
            n,
            lda,
        };
        if let Some(v) = self.cached(key) {
            return Ok(v);
        }
        let (mi, ni, ldi) = (
            int(call, "m", m)?,
            int(call, "n", n)?,
            int(call, "lda", lda)?,
        );
        let ap = self.ptr(call, "A", a, mspan(call, "A", m, n, lda)?)?;
        self.bind()?;
        let mut lwork: c_int = 0;
        let (h, l) = (self.h, &mut lwork);
        // SAFETY: a host-side query: A spans an m x n matrix at lda >= max(1, m) on this
        // handle's device (checked above), and lwork is a live int it writes.
        let s = unsafe {
            match T::TYPE {
                CublasType::S => sys::cusolverDnSgetrf_bufferSize(h, mi, ni, ap as _, ldi, l),
                CublasType::D => sys::cusolverDnDgetrf_bufferSize(h, mi, ni, ap as _, ldi, l),
                CublasType::C => sys::cusolverDnCgetrf_bufferSize(h, mi, ni, ap as _, ldi, l),
                CublasType::Z => sys::cusolverDnZgetrf_bufferSize(h, mi, ni, ap as _, ldi, l),
            }
        };
        check("cusolverDn?getrf_bufferSize", s)?;
        let v = Self::lwork_count("getrf", lwork)?;
        self.remember(key, v);
        Ok(v)
    }

    /// LU factorization with partial pivoting of the `m × n` matrix `a` at `lda`, in place
    /// (`cusolverDn?getrf`): `min(m, n)` 1-based pivots to `ipiv`, `info` (0, or `i > 0` when
    /// `U(i, i)` is exactly zero) to `info[0]`. `work` holds at least
    /// [`Self::getrf_buffer_size`] elements.
    #[allow(clippy::too_many_arguments)]
    pub fn getrf<T: CublasScalar>(
        &self,
        m: usize,
        n: usize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
        work: &mut DeviceBuffer<T>,
        ipiv: &mut DeviceBuffer<i32>,
        info: &mut DeviceBuffer<i32>,
    ) -> Result<(), Error> {
        let call = "cuSOLVER getrf";
        let lwork = self.getrf_buffer_size(m, n, a, lda)?;
        let (mi, ni, ldi) = (
            int(call, "m", m)?,
            int(call, "n", n)?,
            int(call, "lda", lda)?,
        );
        let ap = self.ptr(call, "A", a, mspan(call, "A", m, n, lda)?)?;
        let wp = self.ptr(call, "the workspace", work, lwork)?;
        let pp = self.ptr(call, "ipiv", ipiv, m.min(n))?;
        let ip = self.ptr(call, "info", info, 1)?;
        self.bind()?;
        // SAFETY: A spans an m x n matrix at lda >= max(1, m), the workspace holds the
        // elements getrf_bufferSize asked for, ipiv min(m, n) ints and info one (checked
        // above, overflow-safe); all on this handle's device; every output is exclusively
        // borrowed, so no two of them alias.
        let s = unsafe { raw_getrf::<T>(self.h, (mi, ni, ldi), ap, wp, pp, ip) };
        check("cusolverDn?getrf", s)
    }

    /// [`Self::getrf`] of each of `batch` `n × n` matrices `stride_a` elements apart in `a`:
    /// one `cusolverDn?getrf` call per entry, in order, on the handle's stream, all with the
    /// one workspace `work` (at least [`Self::getrf_buffer_size`] elements for an `n × n`
    /// matrix at `lda`; the calls are ordered on one stream, so sharing it is safe). Entry
    /// `i`'s `n` pivots go to `ipiv[i * n ..]` and its `info` to `info[i]`: the layout of
    /// `cublas?getrfBatched` and of gpublas's `getrf_strided_batched` with `stride_piv = n`.
    /// Entries must not overlap. A call that fails ends the loop with its error (the entries
    /// before it are enqueued).
    #[allow(clippy::too_many_arguments)]
    pub fn getrf_looped<T: CublasScalar>(
        &self,
        n: usize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
        stride_a: usize,
        work: &mut DeviceBuffer<T>,
        ipiv: &mut DeviceBuffer<i32>,
        info: &mut DeviceBuffer<i32>,
        batch: usize,
    ) -> Result<(), Error> {
        let call = "cuSOLVER getrf (looped)";
        let (ni, ldi) = (int(call, "n", n)?, int(call, "lda", lda)?);
        let one = mspan(call, "A", n, n, lda)?;
        no_overlap(call, "A", one, stride_a, batch)?;
        let span = bspan(call, "A", one, stride_a, batch)?;
        let npiv = n.checked_mul(batch).ok_or_else(|| {
            Error::InvalidValue(format!(
                "{call}: {batch} pivot arrays of {n} overflow the address space"
            ))
        })?;
        let ap = self.ptr(call, "A", a, span)?;
        let pp = self.ptr(call, "ipiv", ipiv, npiv)?;
        let ip = self.ptr(call, "info", info, batch)?;
        if batch == 0 {
            return Ok(());
        }
        let lwork = self.getrf_buffer_size(n, n, a, lda)?;
        let wp = self.ptr(call, "the workspace", work, lwork)?;
        self.bind()?;
        // The byte offsets below stay under the byte lengths of A (it holds `span` elements,
        // (batch - 1) * stride_a + one of them), of ipiv (npiv ints) and of info (batch
        // ints): allocations, so none of the products overflows.
        let esz = std::mem::size_of::<T>() as u64;
        let isz = std::mem::size_of::<i32>() as u64;
        for i in 0..batch as u64 {
            let (ai, pi, ii) = (
                ap + i * stride_a as u64 * esz,
                pp + i * n as u64 * isz,
                ip + i * isz,
            );
            // SAFETY: entry i is an n x n matrix at lda >= max(1, n) inside A (A spans the
            // batch, checked above), its n pivots and its info inside ipiv and info; the
            // workspace holds the elements getrf_bufferSize asked for; all on this handle's
            // device; A, ipiv and info are exclusively borrowed and entries do not overlap, so
            // no output aliases another; the calls run in order on the stream, so the shared
            // workspace is used by one at a time.
            let s = unsafe { raw_getrf::<T>(self.h, (ni, ni, ldi), ai, wp, pi, ii) };
            check("cusolverDn?getrf", s)?;
        }
        Ok(())
    }

    /// Solves `op(A) X = B` with the factors and pivots [`Self::getrf`] wrote for the `n × n`
    /// matrix `A` (`cusolverDn?getrs`; `Op::C` is `Op::T` for these real types); `B`
    /// (`n × nrhs` at `ldb`) is overwritten with `X`; `info[0]` gets 0 (or `-i` for a bad
    /// argument `i`). No workspace.
    #[allow(clippy::too_many_arguments)]
    pub fn getrs<T: CublasReal>(
        &self,
        op: Op,
        n: usize,
        nrhs: usize,
        a: &DeviceBuffer<T>,
        lda: usize,
        ipiv: &DeviceBuffer<i32>,
        b: &mut DeviceBuffer<T>,
        ldb: usize,
        info: &mut DeviceBuffer<i32>,
    ) -> Result<(), Error> {
        let call = "cuSOLVER getrs";
        let (ni, ri) = (int(call, "n", n)?, int(call, "nrhs", nrhs)?);
        let (ldai, ldbi) = (int(call, "lda", lda)?, int(call, "ldb", ldb)?);
        let ap = self.ptr(call, "A", a, mspan(call, "A", n, n, lda)?)?;
        let pp = self.ptr(call, "ipiv", ipiv, n)?;
        let bp = self.ptr(call, "B", b, mspan(call, "B", n, nrhs, ldb)?)?;
        let ip = self.ptr(call, "info", info, 1)?;
        self.bind()?;
        let (h, t) = (self.h, trans(op));
        // SAFETY: A spans an n x n matrix at lda >= max(1, n), ipiv n ints, B an n x nrhs
        // matrix at ldb >= max(1, n), info one int (checked above, overflow-safe); all on this
        // handle's device; B and info are exclusively borrowed, so they alias no input.
        let s = unsafe {
            if T::DOUBLE {
                sys::cusolverDnDgetrs(h, t, ni, ri, ap as _, ldai, pp as _, bp as _, ldbi, ip as _)
            } else {
                sys::cusolverDnSgetrs(h, t, ni, ri, ap as _, ldai, pp as _, bp as _, ldbi, ip as _)
            }
        };
        check("cusolverDn?getrs", s)
    }

    /// The workspace, in elements of `T`, that [`Self::potrf`] of an `n × n` matrix at `lda`
    /// needs (`cusolverDn?potrf_bufferSize`); `a` is the matrix of the call.
    pub fn potrf_buffer_size<T: CublasReal>(
        &self,
        uplo: Uplo,
        n: usize,
        a: &DeviceBuffer<T>,
        lda: usize,
    ) -> Result<usize, Error> {
        let call = "cuSOLVER potrf_bufferSize";
        let key = LworkKey::Potrf {
            ty: T::TYPE,
            upper: uplo == Uplo::Upper,
            n,
            lda,
        };
        if let Some(v) = self.cached(key) {
            return Ok(v);
        }
        let (ni, ldi) = (int(call, "n", n)?, int(call, "lda", lda)?);
        let ap = self.ptr(call, "A", a, mspan(call, "A", n, n, lda)?)?;
        self.bind()?;
        let (h, u) = (self.h, fill(uplo));
        let mut lwork: c_int = 0;
        // SAFETY: a host-side query: A spans an n x n matrix at lda >= max(1, n) on this
        // handle's device (checked above), and lwork is a live int it writes.
        let s = unsafe {
            if T::DOUBLE {
                sys::cusolverDnDpotrf_bufferSize(h, u, ni, ap as _, ldi, &mut lwork)
            } else {
                sys::cusolverDnSpotrf_bufferSize(h, u, ni, ap as _, ldi, &mut lwork)
            }
        };
        check("cusolverDn?potrf_bufferSize", s)?;
        let v = Self::lwork_count("potrf", lwork)?;
        self.remember(key, v);
        Ok(v)
    }

    /// Cholesky factorization of the symmetric positive definite `n × n` matrix `a` at `lda`,
    /// its `uplo` triangle overwritten (`cusolverDn?potrf`); `info[0]` gets 0 or the order of
    /// the first leading minor that is not positive definite. `work` holds at least
    /// [`Self::potrf_buffer_size`] elements.
    pub fn potrf<T: CublasReal>(
        &self,
        uplo: Uplo,
        n: usize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
        work: &mut DeviceBuffer<T>,
        info: &mut DeviceBuffer<i32>,
    ) -> Result<(), Error> {
        let call = "cuSOLVER potrf";
        let lwork = self.potrf_buffer_size(uplo, n, a, lda)?;
        let (ni, ldi, lwi) = (
            int(call, "n", n)?,
            int(call, "lda", lda)?,
            int(call, "lwork", lwork)?,
        );
        let ap = self.ptr(call, "A", a, mspan(call, "A", n, n, lda)?)?;
        let wp = self.ptr(call, "the workspace", work, lwork)?;
        let ip = self.ptr(call, "info", info, 1)?;
        self.bind()?;
        let (h, u) = (self.h, fill(uplo));
        // SAFETY: A spans an n x n matrix at lda >= max(1, n), the workspace holds the lwork
        // elements potrf_bufferSize asked for (the count passed), info one int (checked
        // above, overflow-safe); all on this handle's device; the outputs are exclusively
        // borrowed, so none aliases another.
        let s = unsafe {
            if T::DOUBLE {
                sys::cusolverDnDpotrf(h, u, ni, ap as _, ldi, wp as _, lwi, ip as _)
            } else {
                sys::cusolverDnSpotrf(h, u, ni, ap as _, ldi, wp as _, lwi, ip as _)
            }
        };
        check("cusolverDn?potrf", s)
    }

    /// Solves `A X = B` with the Cholesky factor [`Self::potrf`] wrote in the `uplo` triangle
    /// of the `n × n` matrix `A` (`cusolverDn?potrs`, only that triangle read); `B`
    /// (`n × nrhs` at `ldb`) is overwritten with `X`; `info[0]` gets 0 (or `-i` for a bad
    /// argument `i`). No workspace.
    #[allow(clippy::too_many_arguments)]
    pub fn potrs<T: CublasReal>(
        &self,
        uplo: Uplo,
        n: usize,
        nrhs: usize,
        a: &DeviceBuffer<T>,
        lda: usize,
        b: &mut DeviceBuffer<T>,
        ldb: usize,
        info: &mut DeviceBuffer<i32>,
    ) -> Result<(), Error> {
        let call = "cuSOLVER potrs";
        let (ni, ri) = (int(call, "n", n)?, int(call, "nrhs", nrhs)?);
        let (ldai, ldbi) = (int(call, "lda", lda)?, int(call, "ldb", ldb)?);
        let ap = self.ptr(call, "A", a, mspan(call, "A", n, n, lda)?)?;
        let bp = self.ptr(call, "B", b, mspan(call, "B", n, nrhs, ldb)?)?;
        let ip = self.ptr(call, "info", info, 1)?;
        self.bind()?;
        let (h, u) = (self.h, fill(uplo));
        // SAFETY: A spans an n x n matrix at lda >= max(1, n), B an n x nrhs matrix at
        // ldb >= max(1, n), info one int (checked above, overflow-safe); all on this handle's
        // device; B and info are exclusively borrowed, so they alias no input.
        let s = unsafe {
            if T::DOUBLE {
                sys::cusolverDnDpotrs(h, u, ni, ri, ap as _, ldai, bp as _, ldbi, ip as _)
            } else {
                sys::cusolverDnSpotrs(h, u, ni, ri, ap as _, ldai, bp as _, ldbi, ip as _)
            }
        };
        check("cusolverDn?potrs", s)
    }

    /// [`Self::potrf`] of `batch` `n × n` matrices `stride_a` elements apart in `a`, through
    /// `cusolverDn?potrfBatched` with the pointer array `ptrs` built by [`BatchPtrArray::new`]
    /// for exactly this buffer, stride and count (checked); one `info` per entry. cuSOLVER may
    /// use the triangle opposite `uplo` as scratch (its documentation says the other part is
    /// destroyed), so only the `uplo` triangle of the result means anything. Entries must not
    /// overlap. No workspace.
    #[allow(clippy::too_many_arguments)]
    pub fn potrf_batched<T: CublasReal>(
        &self,
        uplo: Uplo,
        n: usize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
        stride_a: usize,
        info: &mut DeviceBuffer<i32>,
        batch: usize,
        ptrs: &BatchPtrArray,
    ) -> Result<(), Error> {
        let call = "cuSOLVER potrfBatched";
        let (ni, ldi, bi) = (
            int(call, "n", n)?,
            int(call, "lda", lda)?,
            int(call, "batch", batch)?,
        );
        let one = mspan(call, "A", n, n, lda)?;
        no_overlap(call, "A", one, stride_a, batch)?;
        let ap = self.ptr(call, "A", a, bspan(call, "A", one, stride_a, batch)?)?;
        let pa = ptrs.addr_for::<T>(call, (&self.dev, &self._stream), ap, stride_a, batch)?;
        let ip = self.ptr(call, "info", info, batch)?;
        if batch == 0 {
            return Ok(());
        }
        self.bind()?;
        let (h, u) = (self.h, fill(uplo));
        // SAFETY: the pointer array holds `batch` addresses base + i * stride_a (elements of
        // T) of exactly this A buffer on this handle's device (its key, checked above); A holds
        // (batch - 1) * stride_a + one entry's span elements, so every n x n entry at lda >=
        // max(1, n) lies inside it, and the entries do not overlap; info holds `batch` ints;
        // A and info are exclusively borrowed, so they alias nothing else.
        let s = unsafe {
            if T::DOUBLE {
                sys::cusolverDnDpotrfBatched(h, u, ni, pa as _, ldi, ip as _, bi)
            } else {
                sys::cusolverDnSpotrfBatched(h, u, ni, pa as _, ldi, ip as _, bi)
            }
        };
        check("cusolverDn?potrfBatched", s)
    }
}

/// Householder QR: `?geqrf`, `?orgqr`/`?ungqr`, `?ormqr`/`?unmqr` for `f32`, `f64`, `Complex32`
/// and `Complex64` (benchmarks of `gpublas bench qr`).
impl Cusolver {
    /// The workspace, in elements of `T`, that [`Self::geqrf`] of an `m × n` matrix at `lda`
    /// needs (`cusolverDn?geqrf_bufferSize`); `a` is the matrix of the call.
    pub fn geqrf_buffer_size<T: CublasScalar>(
        &self,
        m: usize,
        n: usize,
        a: &DeviceBuffer<T>,
        lda: usize,
    ) -> Result<usize, Error> {
        let call = "cuSOLVER geqrf_bufferSize";
        let key = LworkKey::Geqrf {
            ty: T::TYPE,
            m,
            n,
            lda,
        };
        if let Some(v) = self.cached(key) {
            return Ok(v);
        }
        let (mi, ni, ldi) = (
            int(call, "m", m)?,
            int(call, "n", n)?,
            int(call, "lda", lda)?,
        );
        let ap = self.ptr(call, "A", a, mspan(call, "A", m, n, lda)?)?;
        self.bind()?;
        let mut lwork: c_int = 0;
        let (h, l) = (self.h, &mut lwork);
        // SAFETY: a host-side query: A spans an m x n matrix at lda >= max(1, m) on this
        // handle's device (checked above), and lwork is a live int it writes.
        let s = unsafe {
            typed!(
                T,
                cusolverDnSgeqrf_bufferSize,
                cusolverDnDgeqrf_bufferSize,
                cusolverDnCgeqrf_bufferSize,
                cusolverDnZgeqrf_bufferSize,
                (h, mi, ni, ap as _, ldi, l)
            )
        };
        check("cusolverDn?geqrf_bufferSize", s)?;
        let v = Self::lwork_count("geqrf", lwork)?;
        self.remember(key, v);
        Ok(v)
    }

    /// QR factorization of the `m × n` matrix `a` at `lda`, in place (`cusolverDn?geqrf`):
    /// `R` in the upper triangle, the Householder vectors below it (LAPACK's layout), their
    /// `min(m, n)` scalars to `tau`; `info[0]` gets 0 (or `-i` for a bad argument `i`). `work`
    /// holds at least [`Self::geqrf_buffer_size`] elements.
    #[allow(clippy::too_many_arguments)]
    pub fn geqrf<T: CublasScalar>(
        &self,
        m: usize,
        n: usize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
        tau: &mut DeviceBuffer<T>,
        work: &mut DeviceBuffer<T>,
        info: &mut DeviceBuffer<i32>,
    ) -> Result<(), Error> {
        let call = "cuSOLVER geqrf";
        let lwork = self.geqrf_buffer_size(m, n, a, lda)?;
        let (mi, ni, ldi, lwi) = (
            int(call, "m", m)?,
            int(call, "n", n)?,
            int(call, "lda", lda)?,
            int(call, "lwork", lwork)?,
        );
        let ap = self.ptr(call, "A", a, mspan(call, "A", m, n, lda)?)?;
        let tp = self.ptr(call, "tau", tau, m.min(n))?;
        let wp = self.ptr(call, "the workspace", work, lwork)?;
        let ip = self.ptr(call, "info", info, 1)?;
        self.bind()?;
        let h = self.h;
        // SAFETY: A spans an m x n matrix at lda >= max(1, m), tau min(m, n) elements, the
        // workspace the lwork elements geqrf_bufferSize asked for (the count passed), info one
        // int (checked above, overflow-safe); all on this handle's device; the outputs are
        // exclusively borrowed, so none aliases another.
        let s = unsafe {
            typed!(
                T,
                cusolverDnSgeqrf,
                cusolverDnDgeqrf,
                cusolverDnCgeqrf,
                cusolverDnZgeqrf,
                (h, mi, ni, ap as _, ldi, tp as _, wp as _, lwi, ip as _)
            )
        };
        check("cusolverDn?geqrf", s)
    }

    /// `m >= n >= k`, as `?orgqr` requires.
    fn orgqr_dims(call: &str, m: usize, n: usize, k: usize) -> Result<(), Error> {
        if n > m || k > n {
            return Err(Error::InvalidValue(format!(
                "{call}: needs m >= n >= k, the call has m = {m}, n = {n}, k = {k}"
            )));
        }
        Ok(())
    }

    /// The workspace, in elements of `T`, that [`Self::orgqr`] needs
    /// (`cusolverDn?orgqr_bufferSize`, `?ungqr_bufferSize` for complex types); `a` and `tau`
    /// are the operands of the call.
    pub fn orgqr_buffer_size<T: CublasScalar>(
        &self,
        m: usize,
        n: usize,
        k: usize,
        a: &DeviceBuffer<T>,
        lda: usize,
        tau: &DeviceBuffer<T>,
    ) -> Result<usize, Error> {
        let call = "cuSOLVER orgqr_bufferSize";
        let key = LworkKey::Orgqr {
            ty: T::TYPE,
            m,
            n,
            k,
            lda,
        };
        if let Some(v) = self.cached(key) {
            return Ok(v);
        }
        Self::orgqr_dims(call, m, n, k)?;
        let (mi, ni, ki, ldi) = (
            int(call, "m", m)?,
            int(call, "n", n)?,
            int(call, "k", k)?,
            int(call, "lda", lda)?,
        );
        let ap = self.ptr(call, "A", a, mspan(call, "A", m, n, lda)?)?;
        let tp = self.ptr(call, "tau", tau, k)?;
        self.bind()?;
        let mut lwork: c_int = 0;
        let (h, l) = (self.h, &mut lwork);
        // SAFETY: a host-side query: A spans an m x n matrix at lda >= max(1, m) and tau k
        // elements on this handle's device (checked above), and lwork is a live int it writes.
        let s = unsafe {
            typed!(
                T,
                cusolverDnSorgqr_bufferSize,
                cusolverDnDorgqr_bufferSize,
                cusolverDnCungqr_bufferSize,
                cusolverDnZungqr_bufferSize,
                (h, mi, ni, ki, ap as _, ldi, tp as _, l)
            )
        };
        check("cusolverDn?orgqr_bufferSize", s)?;
        let v = Self::lwork_count("orgqr", lwork)?;
        self.remember(key, v);
        Ok(v)
    }

    /// The first `n` columns of `Q = H_0 … H_{k−1}` (`m × n`, `m >= n >= k`) from
    /// [`Self::geqrf`]'s vectors in the first `k` columns of `a` and its `tau`, overwriting `a`
    /// (`cusolverDn?orgqr`, `?ungqr` for complex types); `info[0]` gets 0 (or `-i` for a bad
    /// argument `i`). `work` holds at least [`Self::orgqr_buffer_size`] elements.
    #[allow(clippy::too_many_arguments)]
    pub fn orgqr<T: CublasScalar>(
        &self,
        m: usize,
        n: usize,
        k: usize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
        tau: &DeviceBuffer<T>,
        work: &mut DeviceBuffer<T>,
        info: &mut DeviceBuffer<i32>,
    ) -> Result<(), Error> {
        let call = "cuSOLVER orgqr";
        let lwork = self.orgqr_buffer_size(m, n, k, a, lda, tau)?;
        let (mi, ni, ki, ldi, lwi) = (
            int(call, "m", m)?,
            int(call, "n", n)?,
            int(call, "k", k)?,
            int(call, "lda", lda)?,
            int(call, "lwork", lwork)?,
        );
        let ap = self.ptr(call, "A", a, mspan(call, "A", m, n, lda)?)?;
        let tp = self.ptr(call, "tau", tau, k)?;
        let wp = self.ptr(call, "the workspace", work, lwork)?;
        let ip = self.ptr(call, "info", info, 1)?;
        self.bind()?;
        let h = self.h;
        // SAFETY: m >= n >= k; A spans an m x n matrix at lda >= max(1, m), tau k elements,
        // the workspace the lwork elements orgqr_bufferSize asked for (the count passed), info
        // one int (checked above, overflow-safe); all on this handle's device; A, the
        // workspace and info are exclusively borrowed, so none aliases tau or another.
        let s = unsafe {
            typed!(
                T,
                cusolverDnSorgqr,
                cusolverDnDorgqr,
                cusolverDnCungqr,
                cusolverDnZungqr,
                (h, mi, ni, ki, ap as _, ldi, tp as _, wp as _, lwi, ip as _)
            )
        };
        check("cusolverDn?orgqr", s)
    }

    /// The order of `Q` in `?ormqr` (`m` for `Side::Left`, `n` for `Right`), after checking
    /// `k <= ` it.
    fn ormqr_order(call: &str, side: Side, m: usize, n: usize, k: usize) -> Result<usize, Error> {
        let nq = if side == Side::Left { m } else { n };
        if k > nq {
            return Err(Error::InvalidValue(format!(
                "{call}: k = {k} reflectors but Q has order {nq} (side {side:?}, m = {m}, n = \
                 {n})"
            )));
        }
        Ok(nq)
    }

    /// The workspace, in elements of `T`, that [`Self::ormqr`] needs
    /// (`cusolverDn?ormqr_bufferSize`, `?unmqr_bufferSize` for complex types); `a`, `tau` and
    /// `c` are the operands of the call.
    #[allow(clippy::too_many_arguments)]
    pub fn ormqr_buffer_size<T: CublasScalar>(
        &self,
        side: Side,
        op: Op,
        m: usize,
        n: usize,
        k: usize,
        a: &DeviceBuffer<T>,
        lda: usize,
        tau: &DeviceBuffer<T>,
        c: &DeviceBuffer<T>,
        ldc: usize,
    ) -> Result<usize, Error> {
        let call = "cuSOLVER ormqr_bufferSize";
        let key = LworkKey::Ormqr {
            ty: T::TYPE,
            side,
            op,
            m,
            n,
            k,
            lda,
            ldc,
        };
        if let Some(v) = self.cached(key) {
            return Ok(v);
        }
        let nq = Self::ormqr_order(call, side, m, n, k)?;
        let t = qr_trans::<T>(call, op)?;
        let (mi, ni, ki) = (int(call, "m", m)?, int(call, "n", n)?, int(call, "k", k)?);
        let (ldai, ldci) = (int(call, "lda", lda)?, int(call, "ldc", ldc)?);
        let ap = self.ptr(call, "A", a, mspan(call, "A", nq, k, lda)?)?;
        let tp = self.ptr(call, "tau", tau, k)?;
        let cp = self.ptr(call, "C", c, mspan(call, "C", m, n, ldc)?)?;
        self.bind()?;
        let mut lwork: c_int = 0;
        let (h, sd, l) = (self.h, side_mode(side), &mut lwork);
        // SAFETY: a host-side query: A spans an nq x k matrix at lda >= max(1, nq), tau k
        // elements, C an m x n matrix at ldc >= max(1, m), all on this handle's device
        // (checked above), and lwork is a live int it writes.
        let s = unsafe {
            typed!(
                T,
                cusolverDnSormqr_bufferSize,
                cusolverDnDormqr_bufferSize,
                cusolverDnCunmqr_bufferSize,
                cusolverDnZunmqr_bufferSize,
                (h, sd, t, mi, ni, ki, ap as _, ldai, tp as _, cp as _, ldci, l)
            )
        };
        check("cusolverDn?ormqr_bufferSize", s)?;
        let v = Self::lwork_count("ormqr", lwork)?;
        self.remember(key, v);
        Ok(v)
    }

    /// `C := op(Q) C` (`Side::Left`, `Q` of order `m`) or `C := C op(Q)` (`Right`, order
    /// `n`) for the `m × n` matrix `c` at `ldc`, with `Q = H_0 … H_{k−1}` given by
    /// [`Self::geqrf`]'s vectors in the first `k` columns of `a` and its `tau`, without
    /// forming `Q` (`cusolverDn?ormqr`, `?unmqr` for complex types, which take `op` `N` or `C`
    /// only); `info[0]` gets 0 (or `-i` for a bad argument `i`). `work` holds at least
    /// [`Self::ormqr_buffer_size`] elements.
    #[allow(clippy::too_many_arguments)]
    pub fn ormqr<T: CublasScalar>(
        &self,
        side: Side,
        op: Op,
        m: usize,
        n: usize,
        k: usize,
        a: &DeviceBuffer<T>,
        lda: usize,
        tau: &DeviceBuffer<T>,
        c: &mut DeviceBuffer<T>,
        ldc: usize,
        work: &mut DeviceBuffer<T>,
        info: &mut DeviceBuffer<i32>,
    ) -> Result<(), Error> {
        let call = "cuSOLVER ormqr";
        let lwork = self.ormqr_buffer_size(side, op, m, n, k, a, lda, tau, c, ldc)?;
        let nq = Self::ormqr_order(call, side, m, n, k)?;
        let t = qr_trans::<T>(call, op)?;
        let (mi, ni, ki) = (int(call, "m", m)?, int(call, "n", n)?, int(call, "k", k)?);
        let (ldai, ldci, lwi) = (
            int(call, "lda", lda)?,
            int(call, "ldc", ldc)?,
            int(call, "lwork", lwork)?,
        );
        let ap = self.ptr(call, "A", a, mspan(call, "A", nq, k, lda)?)?;
        let tp = self.ptr(call, "tau", tau, k)?;
        let cp = self.ptr(call, "C", c, mspan(call, "C", m, n, ldc)?)?;
        let wp = self.ptr(call, "the workspace", work, lwork)?;
        let ip = self.ptr(call, "info", info, 1)?;
        self.bind()?;
        let (h, sd) = (self.h, side_mode(side));
        // SAFETY: k <= nq; A spans an nq x k matrix at lda >= max(1, nq), tau k elements, C an
        // m x n matrix at ldc >= max(1, m), the workspace the lwork elements ormqr_bufferSize
        // asked for (the count passed), info one int (checked above, overflow-safe); all on
        // this handle's device; C, the workspace and info are exclusively borrowed, so none
        // aliases A, tau or another.
        let s = unsafe {
            typed!(
                T,
                cusolverDnSormqr,
                cusolverDnDormqr,
                cusolverDnCunmqr,
                cusolverDnZunmqr,
                (
                    h, sd, t, mi, ni, ki, ap as _, ldai, tp as _, cp as _, ldci, wp as _, lwi,
                    ip as _
                )
            )
        };
        check("cusolverDn?ormqr", s)
    }
}

/// The raw `cusolverDn?getrf` of element type `T` (`(m, n, lda)` as cuSOLVER ints; device
/// addresses of `A`, the workspace, the pivots and `info`).
///
/// # Safety
///
/// The addresses are memory of the handle's device: `A` an `m × n` matrix at `lda >= max(1,
/// m)`, the workspace the elements `?getrf_bufferSize` asked for, `min(m, n)` pivots and one
/// `info`, none of the outputs aliasing another.
unsafe fn raw_getrf<T: CublasScalar>(
    h: sys::cusolverDnHandle_t,
    (m, n, lda): (c_int, c_int, c_int),
    a: u64,
    work: u64,
    ipiv: u64,
    info: u64,
) -> sys::cusolverStatus_t {
    let (p, i) = (ipiv as *mut c_int, info as *mut c_int);
    // SAFETY: the caller's contract above.
    unsafe {
        match T::TYPE {
            CublasType::S => sys::cusolverDnSgetrf(h, m, n, a as _, lda, work as _, p, i),
            CublasType::D => sys::cusolverDnDgetrf(h, m, n, a as _, lda, work as _, p, i),
            CublasType::C => sys::cusolverDnCgetrf(h, m, n, a as _, lda, work as _, p, i),
            CublasType::Z => sys::cusolverDnZgetrf(h, m, n, a as _, lda, work as _, p, i),
        }
    }
}

impl Drop for Cusolver {
    fn drop(&mut self) {
        // The handle frees device memory: its context must be current.
        let _ = self.bind();
        // SAFETY: the handle was created by cusolverDnCreate and is destroyed once; the stream
        // it works on is still alive (`_stream` drops after this).
        unsafe {
            let _ = sys::cusolverDnDestroy(self.h);
        }
    }
}

/// Checks shared by `cublas?getrfBatched` ([`crate::cublas::Cublas::getrf_batched`]): the
/// `n`, `lda`, `batch` ints and the elements `A`, the pivots and `info` must hold.
pub(crate) struct GetrfBatchedShape {
    pub(crate) n: c_int,
    pub(crate) lda: c_int,
    pub(crate) batch: c_int,
    /// Elements of `A` the batch spans.
    pub(crate) a_span: usize,
    /// Ints of the pivots (`n` per entry, entry `i` at `i * n`).
    pub(crate) piv: usize,
}

impl GetrfBatchedShape {
    pub(crate) fn new(
        n: usize,
        lda: usize,
        stride_a: usize,
        batch: usize,
    ) -> Result<GetrfBatchedShape, Error> {
        let call = "cuBLAS getrfBatched";
        let one = mspan(call, "A", n, n, lda)?;
        no_overlap(call, "A", one, stride_a, batch)?;
        Ok(GetrfBatchedShape {
            n: int(call, "n", n)?,
            lda: int(call, "lda", lda)?,
            batch: int(call, "batch", batch)?,
            a_span: bspan(call, "A", one, stride_a, batch)?,
            piv: n.checked_mul(batch).ok_or_else(|| {
                Error::InvalidValue(format!(
                    "{call}: {batch} pivot arrays of {n} overflow the address space"
                ))
            })?,
        })
    }
}
