//! cuSOLVER's symmetric and Hermitian eigensolvers (benchmarks of `gpublas bench eig`):
//! `cusolverDn?syevd` / `?heevd` (`_bufferSize` + call; also looped over the entries of a
//! strided batch), the Jacobi solvers `cusolverDn?syevj` / `?heevj` (looped likewise) and
//! `cusolverDn?syevjBatched` / `?heevjBatched` (orders up to 32) with their [`SyevjParams`],
//! and the 64-bit `cusolverDnXsyevd` (`_bufferSize` gives device and host bytes; takes
//! orders whose workspace passes `int`'s range) with its [`DnParams`], for `f32`, `f64`,
//! `Complex32` and `Complex64` (the `he` names for complex types).
//!
//! These symbols are not in the list [`super::ensure_cusolver`] checks (an old cuSOLVER
//! without one of them still runs the other benchmarks): each wrapper looks up the symbols it
//! calls first ([`require_symbols`]), so a missing one is `Error::LibraryMissing` naming it,
//! never a panic in cudarc's loader.

use std::ffi::c_int;
use std::sync::Mutex;

use cudarc::cusolver::sys;

use super::{bspan, check, ensure_cusolver, fill, int, mspan, no_overlap, Cusolver, LworkKey};
use crate::cublas::{CublasScalar, CublasType};
use gpublas::{DeviceBuffer, Error, Evect, Scalar, Uplo};

/// The element types of the eigensolver wrappers: the four cuSOLVER types, whose eigenvalues
/// are of the real type `Scalar::Real` (`f32` for `f32` and `Complex32`, `f64` for `f64` and
/// `Complex64`).
pub trait EigScalar: CublasScalar + Scalar {}
impl<T: CublasScalar + Scalar> EigScalar for T {}

/// Looks up (once per name) whether the loaded cuSOLVER has every symbol of `names`;
/// `Error::LibraryMissing` naming those it lacks (or when cuSOLVER itself cannot be loaded).
pub fn require_symbols(names: &[&str]) -> Result<(), Error> {
    static SEEN: Mutex<Vec<(String, bool)>> = Mutex::new(Vec::new());
    ensure_cusolver()?;
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    let mut missing = Vec::new();
    for &name in names {
        let present = match seen.iter().find(|(k, _)| k == name) {
            Some(&(_, p)) => p,
            None => {
                // SAFETY: `ensure_cusolver` succeeded, so cudarc's `culib` finds a library
                // (it panics only when none loads); looking a symbol up calls nothing.
                let lib = unsafe { sys::culib() };
                let z = format!("{name}\0");
                // SAFETY: only looks the symbol up; the pointer is never called here.
                let p = unsafe { lib.get::<unsafe extern "C" fn()>(z.as_bytes()) }.is_ok();
                seen.push((name.to_string(), p));
                p
            }
        };
        if !present {
            missing.push(name);
        }
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(Error::LibraryMissing(format!(
            "the cuSOLVER library loaded lacks {missing:?} (too old a cuSOLVER?)"
        )))
    }
}

/// The cuSOLVER name of routine `real` (`complex` for complex types) of element type `T`,
/// e.g. `cusolverDnDsyevd`, `cusolverDnZheevjBatched_bufferSize`.
fn symbol<T: CublasScalar>(real: &str, complex: &str, suffix: &str) -> String {
    let (letter, stem) = match T::TYPE {
        CublasType::S => ('S', real),
        CublasType::D => ('D', real),
        CublasType::C => ('C', complex),
        CublasType::Z => ('Z', complex),
    };
    format!("cusolverDn{letter}{stem}{suffix}")
}

/// The routine and its `_bufferSize` of `T`, present in the loaded library.
fn require_pair<T: CublasScalar>(real: &str, complex: &str) -> Result<(), Error> {
    require_symbols(&[
        &symbol::<T>(real, complex, ""),
        &symbol::<T>(real, complex, "_bufferSize"),
    ])
}

fn mode(evect: Evect) -> sys::cusolverEigMode_t {
    match evect {
        Evect::None => sys::cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR,
        Evect::Original => sys::cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR,
    }
}

/// A `?_bufferSize` answer as a count of elements.
fn lwork_count(call: &str, lwork: c_int) -> Result<usize, Error> {
    usize::try_from(lwork).map_err(|_| {
        crate::driver_error(
            format!("{call}_bufferSize"),
            format!("returned a negative workspace size ({lwork})"),
        )
    })
}

/// Elements `batch` results of `n` each, `stride` apart (`stride >= n`), span.
fn results_span(
    call: &str,
    what: &str,
    n: usize,
    stride: usize,
    batch: usize,
) -> Result<usize, Error> {
    no_overlap(call, what, n, stride, batch)?;
    bspan(call, what, n, stride, batch)
}

/// The Jacobi controls of `cusolverDn?syevj` and `?syevjBatched` (a `syevjInfo_t`): the
/// tolerance and the sweep limit; eigenvalues sorted ascending (cuSOLVER's default). Not tied
/// to a handle; one object may serve several calls in turn.
pub struct SyevjParams {
    p: sys::syevjInfo_t,
}

impl SyevjParams {
    /// Controls with tolerance `tol` (cuSOLVER stops when `off(A) ≤ tol · ‖A‖_F`) and at most
    /// `max_sweeps` sweeps (`cusolverDnCreateSyevjInfo`, `cusolverDnXsyevjSetTolerance`,
    /// `cusolverDnXsyevjSetMaxSweeps`).
    pub fn new(tol: f64, max_sweeps: usize) -> Result<SyevjParams, Error> {
        let call = "cuSOLVER syevjInfo";
        require_symbols(&[
            "cusolverDnCreateSyevjInfo",
            "cusolverDnDestroySyevjInfo",
            "cusolverDnXsyevjSetTolerance",
            "cusolverDnXsyevjSetMaxSweeps",
        ])?;
        let sweeps = int(call, "max_sweeps", max_sweeps)?;
        let mut p = std::ptr::null_mut();
        // SAFETY: creates a host-side parameter object (the symbols were looked up above); it is
        // owned by `s` (destroyed by its Drop) as soon as it exists.
        unsafe {
            check(
                "cusolverDnCreateSyevjInfo",
                sys::cusolverDnCreateSyevjInfo(&mut p),
            )?;
            let s = SyevjParams { p };
            check(
                "cusolverDnXsyevjSetTolerance",
                sys::cusolverDnXsyevjSetTolerance(p, tol),
            )?;
            check(
                "cusolverDnXsyevjSetMaxSweeps",
                sys::cusolverDnXsyevjSetMaxSweeps(p, sweeps),
            )?;
            Ok(s)
        }
    }
}

impl Drop for SyevjParams {
    fn drop(&mut self) {
        // SAFETY: created by cusolverDnCreateSyevjInfo and destroyed once; the calls that used
        // it have been enqueued (cuSOLVER reads it on the host when a call is made).
        unsafe {
            let _ = sys::cusolverDnDestroySyevjInfo(self.p);
        }
    }
}

/// The options object of cuSOLVER's 64-bit API (`cusolverDnParams_t`, default settings),
/// for [`Cusolver::xsyevd`].
pub struct DnParams {
    p: sys::cusolverDnParams_t,
}

impl DnParams {
    /// Default options (`cusolverDnCreateParams`).
    pub fn new() -> Result<DnParams, Error> {
        require_symbols(&["cusolverDnCreateParams", "cusolverDnDestroyParams"])?;
        let mut p = std::ptr::null_mut();
        // SAFETY: creates a host-side options object (the symbols were looked up above).
        unsafe {
            check(
                "cusolverDnCreateParams",
                sys::cusolverDnCreateParams(&mut p),
            )?
        };
        Ok(DnParams { p })
    }
}

impl Drop for DnParams {
    fn drop(&mut self) {
        // SAFETY: created by cusolverDnCreateParams and destroyed once.
        unsafe {
            let _ = sys::cusolverDnDestroyParams(self.p);
        }
    }
}

/// The `cudaDataType` of `T` and of its real type (the 64-bit API's `dataTypeA`,
/// `computeType` and `dataTypeW`).
fn data_types<T: CublasScalar>() -> (sys::cudaDataType, sys::cudaDataType) {
    use sys::cudaDataType::*;
    match T::TYPE {
        CublasType::S => (CUDA_R_32F, CUDA_R_32F),
        CublasType::D => (CUDA_R_64F, CUDA_R_64F),
        CublasType::C => (CUDA_C_32F, CUDA_R_32F),
        CublasType::Z => (CUDA_C_64F, CUDA_R_64F),
    }
}

/// The largest order `cusolverDn?syevjBatched` takes.
pub const SYEVJ_BATCHED_MAX_N: usize = 32;

/// Symmetric and Hermitian eigensolvers (`gpublas bench eig`). Eigenvalues are ascending;
/// with `Evect::Original` the eigenvectors overwrite `A`, else `A`'s `uplo` triangle is
/// destroyed (cuSOLVER's documentation).
impl Cusolver {
    /// The workspace, in elements of `T`, of [`Self::syevd`] (`cusolverDn?syevd_bufferSize`,
    /// `?heevd_bufferSize` for complex types); `a` and `w` are the operands of the call.
    #[allow(clippy::too_many_arguments)]
    pub fn syevd_buffer_size<T: EigScalar>(
        &self,
        evect: Evect,
        uplo: Uplo,
        n: usize,
        a: &DeviceBuffer<T>,
        lda: usize,
        w: &DeviceBuffer<T::Real>,
    ) -> Result<usize, Error> {
        let call = "cuSOLVER syevd_bufferSize";
        let key = LworkKey::Syevd {
            ty: T::TYPE,
            vectors: evect == Evect::Original,
            upper: uplo == Uplo::Upper,
            n,
            lda,
        };
        if let Some(v) = self.cached(key) {
            return Ok(v);
        }
        require_pair::<T>("syevd", "heevd")?;
        let (ni, ldi) = (int(call, "n", n)?, int(call, "lda", lda)?);
        let ap = self.ptr(call, "A", a, mspan(call, "A", n, n, lda)?)?;
        let wp = self.ptr(call, "W", w, n)?;
        self.bind()?;
        let (h, j, u) = (self.h, mode(evect), fill(uplo));
        let mut lwork: c_int = 0;
        let l = &mut lwork;
        // SAFETY: a host-side query: A spans an n x n matrix at lda >= max(1, n) and W n
        // elements of the real type on this handle's device (checked above); lwork is a live
        // int it writes; the symbol was looked up above.
        let s = unsafe {
            typed!(
                T,
                cusolverDnSsyevd_bufferSize,
                cusolverDnDsyevd_bufferSize,
                cusolverDnCheevd_bufferSize,
                cusolverDnZheevd_bufferSize,
                (h, j, u, ni, ap as _, ldi, wp as _, l)
            )
        };
        check(&symbol::<T>("syevd", "heevd", "_bufferSize"), s)?;
        let v = lwork_count(&symbol::<T>("syevd", "heevd", ""), lwork)?;
        self.remember(key, v);
        Ok(v)
    }

    /// The eigenvalues (ascending, to `w`) and with `Evect::Original` the eigenvectors (over
    /// `a`) of the symmetric (Hermitian) `n × n` matrix `a` at `lda` given by its `uplo`
    /// triangle (`cusolverDn?syevd`, `?heevd`); `info[0]` gets 0, `i > 0` when the iteration
    /// did not converge, `-i` for a bad argument `i`. `work` holds at least
    /// [`Self::syevd_buffer_size`] elements.
    #[allow(clippy::too_many_arguments)]
    pub fn syevd<T: EigScalar>(
        &self,
        evect: Evect,
        uplo: Uplo,
        n: usize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
        w: &mut DeviceBuffer<T::Real>,
        work: &mut DeviceBuffer<T>,
        info: &mut DeviceBuffer<i32>,
    ) -> Result<(), Error> {
        self.syevd_looped(evect, uplo, n, a, lda, 0, w, 0, work, info, 1)
    }

    /// [`Self::syevd`] of each of `batch` `n × n` matrices `stride_a` elements apart in `a`:
    /// one call per entry, in order, on the handle's stream, all with the one workspace
    /// `work` (the calls are ordered on one stream, so sharing it is safe). Entry `i`'s
    /// eigenvalues go to `w[i * stride_w ..]` (`stride_w >= n`), its `info` to `info[i]`.
    /// Entries must not overlap. A call that fails ends the loop with its error.
    #[allow(clippy::too_many_arguments)]
    pub fn syevd_looped<T: EigScalar>(
        &self,
        evect: Evect,
        uplo: Uplo,
        n: usize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
        stride_a: usize,
        w: &mut DeviceBuffer<T::Real>,
        stride_w: usize,
        work: &mut DeviceBuffer<T>,
        info: &mut DeviceBuffer<i32>,
        batch: usize,
    ) -> Result<(), Error> {
        let call = "cuSOLVER syevd";
        let (ni, ldi) = (int(call, "n", n)?, int(call, "lda", lda)?);
        let one = mspan(call, "A", n, n, lda)?;
        no_overlap(call, "A", one, stride_a, batch)?;
        let ap = self.ptr(call, "A", a, bspan(call, "A", one, stride_a, batch)?)?;
        let wp = self.ptr(call, "W", w, results_span(call, "W", n, stride_w, batch)?)?;
        let ip = self.ptr(call, "info", info, batch)?;
        if batch == 0 {
            return Ok(());
        }
        let lwork = self.syevd_buffer_size(evect, uplo, n, a, lda, w)?;
        let lwi = int(call, "lwork", lwork)?;
        let kp = self.ptr(call, "the workspace", work, lwork)?;
        self.bind()?;
        let (h, j, u) = (self.h, mode(evect), fill(uplo));
        let name = symbol::<T>("syevd", "heevd", "");
        // The byte offsets below stay under the byte lengths of A, W and info (checked
        // above): allocations, so none of the products overflows.
        let esz = std::mem::size_of::<T>() as u64;
        let rsz = std::mem::size_of::<T::Real>() as u64;
        let isz = std::mem::size_of::<i32>() as u64;
        for i in 0..batch as u64 {
            let (ai, wi, ii) = (
                ap + i * stride_a as u64 * esz,
                wp + i * stride_w as u64 * rsz,
                ip + i * isz,
            );
            // SAFETY: entry i is an n x n matrix at lda >= max(1, n) inside A, its n
            // eigenvalues inside W and its info inside info (the spans were checked above,
            // overflow-safe); the workspace holds the lwork elements the query asked for (the
            // count passed); all on this handle's device; A, W, the workspace and info are
            // exclusively borrowed and entries do not overlap, so no output aliases another;
            // the calls run in order on the stream, so the shared workspace is used by one at
            // a time; the symbol was looked up by the query.
            let s = unsafe {
                typed!(
                    T,
                    cusolverDnSsyevd,
                    cusolverDnDsyevd,
                    cusolverDnCheevd,
                    cusolverDnZheevd,
                    (h, j, u, ni, ai as _, ldi, wi as _, kp as _, lwi, ii as _)
                )
            };
            check(&name, s)?;
        }
        Ok(())
    }

    /// The workspace, in elements of `T`, of [`Self::syevj`] (`cusolverDn?syevj_bufferSize`,
    /// `?heevj_bufferSize`); `a`, `w` and `params` are those of the call.
    #[allow(clippy::too_many_arguments)]
    pub fn syevj_buffer_size<T: EigScalar>(
        &self,
        evect: Evect,
        uplo: Uplo,
        n: usize,
        a: &DeviceBuffer<T>,
        lda: usize,
        w: &DeviceBuffer<T::Real>,
        params: &SyevjParams,
    ) -> Result<usize, Error> {
        let call = "cuSOLVER syevj_bufferSize";
        let key = LworkKey::Syevj {
            ty: T::TYPE,
            vectors: evect == Evect::Original,
            upper: uplo == Uplo::Upper,
            n,
            lda,
            batch: None,
        };
        if let Some(v) = self.cached(key) {
            return Ok(v);
        }
        require_pair::<T>("syevj", "heevj")?;
        let (ni, ldi) = (int(call, "n", n)?, int(call, "lda", lda)?);
        let ap = self.ptr(call, "A", a, mspan(call, "A", n, n, lda)?)?;
        let wp = self.ptr(call, "W", w, n)?;
        self.bind()?;
        let (h, j, u, p) = (self.h, mode(evect), fill(uplo), params.p);
        let mut lwork: c_int = 0;
        let l = &mut lwork;
        // SAFETY: a host-side query: A spans an n x n matrix at lda >= max(1, n) and W n
        // elements on this handle's device (checked above); lwork is a live int it writes;
        // params is a live syevjInfo; the symbol was looked up above.
        let s = unsafe {
            typed!(
                T,
                cusolverDnSsyevj_bufferSize,
                cusolverDnDsyevj_bufferSize,
                cusolverDnCheevj_bufferSize,
                cusolverDnZheevj_bufferSize,
                (h, j, u, ni, ap as _, ldi, wp as _, l, p)
            )
        };
        check(&symbol::<T>("syevj", "heevj", "_bufferSize"), s)?;
        let v = lwork_count(&symbol::<T>("syevj", "heevj", ""), lwork)?;
        self.remember(key, v);
        Ok(v)
    }

    /// The Jacobi eigensolver (`cusolverDn?syevj`, `?heevj`) of each of `batch` `n × n`
    /// matrices `stride_a` elements apart in `a`, one call per entry on the handle's stream
    /// with one workspace (at least [`Self::syevj_buffer_size`] elements) and the one
    /// `params`; eigenvalues of entry `i` to `w[i * stride_w ..]`, its `info` (0, or the
    /// sweeps ran out: `n + 1`, or `-i` for a bad argument) to `info[i]`. For orders
    /// `?syevjBatched` does not take. Entries must not overlap.
    #[allow(clippy::too_many_arguments)]
    pub fn syevj_looped<T: EigScalar>(
        &self,
        evect: Evect,
        uplo: Uplo,
        n: usize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
        stride_a: usize,
        w: &mut DeviceBuffer<T::Real>,
        stride_w: usize,
        work: &mut DeviceBuffer<T>,
        info: &mut DeviceBuffer<i32>,
        params: &SyevjParams,
        batch: usize,
    ) -> Result<(), Error> {
        let call = "cuSOLVER syevj";
        let (ni, ldi) = (int(call, "n", n)?, int(call, "lda", lda)?);
        let one = mspan(call, "A", n, n, lda)?;
        no_overlap(call, "A", one, stride_a, batch)?;
        let ap = self.ptr(call, "A", a, bspan(call, "A", one, stride_a, batch)?)?;
        let wp = self.ptr(call, "W", w, results_span(call, "W", n, stride_w, batch)?)?;
        let ip = self.ptr(call, "info", info, batch)?;
        if batch == 0 {
            return Ok(());
        }
        let lwork = self.syevj_buffer_size(evect, uplo, n, a, lda, w, params)?;
        let lwi = int(call, "lwork", lwork)?;
        let kp = self.ptr(call, "the workspace", work, lwork)?;
        self.bind()?;
        let (h, j, u, p) = (self.h, mode(evect), fill(uplo), params.p);
        let name = symbol::<T>("syevj", "heevj", "");
        let esz = std::mem::size_of::<T>() as u64;
        let rsz = std::mem::size_of::<T::Real>() as u64;
        let isz = std::mem::size_of::<i32>() as u64;
        for i in 0..batch as u64 {
            let (ai, wi, ii) = (
                ap + i * stride_a as u64 * esz,
                wp + i * stride_w as u64 * rsz,
                ip + i * isz,
            );
            // SAFETY: as in `syevd_looped`: entry i's matrix, eigenvalues and info lie inside
            // A, W and info (spans checked above, overflow-safe), the workspace holds the
            // lwork elements asked for, all on this handle's device, no output aliases
            // another, the calls are ordered on one stream; params is a live syevjInfo; the
            // symbol was looked up by the query.
            let s = unsafe {
                typed!(
                    T,
                    cusolverDnSsyevj,
                    cusolverDnDsyevj,
                    cusolverDnCheevj,
                    cusolverDnZheevj,
                    (h, j, u, ni, ai as _, ldi, wi as _, kp as _, lwi, ii as _, p)
                )
            };
            check(&name, s)?;
        }
        Ok(())
    }

    /// `n <= 32`, as `?syevjBatched` requires, and the spans of its packed operands.
    fn syevj_batched_dims(
        call: &str,
        n: usize,
        lda: usize,
        batch: usize,
    ) -> Result<(usize, usize), Error> {
        if n > SYEVJ_BATCHED_MAX_N {
            return Err(Error::InvalidValue(format!(
                "{call}: n = {n}, but cusolverDn?syevjBatched takes n <= {SYEVJ_BATCHED_MAX_N}"
            )));
        }
        let one = mspan(call, "A", n, n, lda)?;
        let a = bspan(call, "A", one, one, batch)?;
        let w = bspan(call, "W", n, n, batch)?;
        Ok((a, w))
    }

    /// The workspace, in elements of `T`, of [`Self::syevj_batched`]
    /// (`cusolverDn?syevjBatched_bufferSize`, `?heevjBatched_bufferSize`).
    #[allow(clippy::too_many_arguments)]
    pub fn syevj_batched_buffer_size<T: EigScalar>(
        &self,
        evect: Evect,
        uplo: Uplo,
        n: usize,
        a: &DeviceBuffer<T>,
        lda: usize,
        w: &DeviceBuffer<T::Real>,
        params: &SyevjParams,
        batch: usize,
    ) -> Result<usize, Error> {
        let call = "cuSOLVER syevjBatched_bufferSize";
        let key = LworkKey::Syevj {
            ty: T::TYPE,
            vectors: evect == Evect::Original,
            upper: uplo == Uplo::Upper,
            n,
            lda,
            batch: Some(batch),
        };
        if let Some(v) = self.cached(key) {
            return Ok(v);
        }
        require_pair::<T>("syevjBatched", "heevjBatched")?;
        let (a_span, w_span) = Self::syevj_batched_dims(call, n, lda, batch)?;
        let (ni, ldi, bi) = (
            int(call, "n", n)?,
            int(call, "lda", lda)?,
            int(call, "batch", batch)?,
        );
        let ap = self.ptr(call, "A", a, a_span)?;
        let wp = self.ptr(call, "W", w, w_span)?;
        self.bind()?;
        let (h, j, u, p) = (self.h, mode(evect), fill(uplo), params.p);
        let mut lwork: c_int = 0;
        let l = &mut lwork;
        // SAFETY: a host-side query: A spans `batch` n x n matrices at lda >= max(1, n), one
        // after the other, and W n * batch elements, on this handle's device (checked above);
        // lwork is a live int it writes; params is a live syevjInfo; the symbol was looked up
        // above.
        let s = unsafe {
            typed!(
                T,
                cusolverDnSsyevjBatched_bufferSize,
                cusolverDnDsyevjBatched_bufferSize,
                cusolverDnCheevjBatched_bufferSize,
                cusolverDnZheevjBatched_bufferSize,
                (h, j, u, ni, ap as _, ldi, wp as _, l, p, bi)
            )
        };
        check(
            &symbol::<T>("syevjBatched", "heevjBatched", "_bufferSize"),
            s,
        )?;
        let v = lwork_count(&symbol::<T>("syevjBatched", "heevjBatched", ""), lwork)?;
        self.remember(key, v);
        Ok(v)
    }

    /// The Jacobi eigensolver of `batch` `n × n` matrices (`n <= 32`) stored one after the
    /// other in `a` (entry `i` at `i * lda * n`, the layout cuSOLVER requires)
    /// (`cusolverDn?syevjBatched`, `?heevjBatched`): eigenvalues of entry `i` to `w[i * n ..]`,
    /// its `info` (0, or the sweeps ran out: `n + 1`, or `-i` for a bad argument) to
    /// `info[i]`. `work` holds at least [`Self::syevj_batched_buffer_size`] elements.
    #[allow(clippy::too_many_arguments)]
    pub fn syevj_batched<T: EigScalar>(
        &self,
        evect: Evect,
        uplo: Uplo,
        n: usize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
        w: &mut DeviceBuffer<T::Real>,
        work: &mut DeviceBuffer<T>,
        info: &mut DeviceBuffer<i32>,
        params: &SyevjParams,
        batch: usize,
    ) -> Result<(), Error> {
        let call = "cuSOLVER syevjBatched";
        let (a_span, w_span) = Self::syevj_batched_dims(call, n, lda, batch)?;
        let (ni, ldi, bi) = (
            int(call, "n", n)?,
            int(call, "lda", lda)?,
            int(call, "batch", batch)?,
        );
        let ap = self.ptr(call, "A", a, a_span)?;
        let wp = self.ptr(call, "W", w, w_span)?;
        let ip = self.ptr(call, "info", info, batch)?;
        if batch == 0 {
            return Ok(());
        }
        let lwork = self.syevj_batched_buffer_size(evect, uplo, n, a, lda, w, params, batch)?;
        let lwi = int(call, "lwork", lwork)?;
        let kp = self.ptr(call, "the workspace", work, lwork)?;
        self.bind()?;
        let (h, j, u, p) = (self.h, mode(evect), fill(uplo), params.p);
        // SAFETY: A spans `batch` n x n matrices at lda >= max(1, n) one after the other, W
        // n * batch elements, info `batch` ints, the workspace the lwork elements the query
        // asked for (checked above, overflow-safe); all on this handle's device; the outputs
        // are exclusively borrowed, so none aliases another; params is a live syevjInfo; the
        // symbol was looked up by the query.
        let s = unsafe {
            typed!(
                T,
                cusolverDnSsyevjBatched,
                cusolverDnDsyevjBatched,
                cusolverDnCheevjBatched,
                cusolverDnZheevjBatched,
                (h, j, u, ni, ap as _, ldi, wp as _, kp as _, lwi, ip as _, p, bi)
            )
        };
        check(&symbol::<T>("syevjBatched", "heevjBatched", ""), s)
    }

    /// The device and host workspace bytes of [`Self::xsyevd`]
    /// (`cusolverDnXsyevd_bufferSize`, the 64-bit API).
    #[allow(clippy::too_many_arguments)]
    pub fn xsyevd_buffer_size<T: EigScalar>(
        &self,
        params: &DnParams,
        evect: Evect,
        uplo: Uplo,
        n: usize,
        a: &DeviceBuffer<T>,
        lda: usize,
        w: &DeviceBuffer<T::Real>,
    ) -> Result<(usize, usize), Error> {
        let call = "cuSOLVER Xsyevd_bufferSize";
        require_symbols(&["cusolverDnXsyevd", "cusolverDnXsyevd_bufferSize"])?;
        let (ni, ldi) = (i64_of(call, "n", n)?, i64_of(call, "lda", lda)?);
        let ap = self.ptr(call, "A", a, mspan(call, "A", n, n, lda)?)?;
        let wp = self.ptr(call, "W", w, n)?;
        self.bind()?;
        let (h, j, u) = (self.h, mode(evect), fill(uplo));
        let (ta, tw) = data_types::<T>();
        let (mut dev_bytes, mut host_bytes) = (0usize, 0usize);
        // SAFETY: a host-side query: A spans an n x n matrix at lda >= max(1, n) of type ta and
        // W n elements of type tw on this handle's device (checked above); the two sizes are
        // live usizes it writes; params is a live cusolverDnParams; the symbol was looked up
        // above.
        let s = unsafe {
            sys::cusolverDnXsyevd_bufferSize(
                h,
                params.p,
                j,
                u,
                ni,
                ta,
                ap as _,
                ldi,
                tw,
                wp as _,
                ta,
                &mut dev_bytes,
                &mut host_bytes,
            )
        };
        check("cusolverDnXsyevd_bufferSize", s)?;
        Ok((dev_bytes, host_bytes))
    }

    /// [`Self::syevd`] through the 64-bit API (`cusolverDnXsyevd`; the compute type is `T`'s):
    /// `dwork` holds at least the device bytes and `hwork` the host bytes
    /// [`Self::xsyevd_buffer_size`] gives.
    #[allow(clippy::too_many_arguments)]
    pub fn xsyevd<T: EigScalar>(
        &self,
        params: &DnParams,
        evect: Evect,
        uplo: Uplo,
        n: usize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
        w: &mut DeviceBuffer<T::Real>,
        dwork: &mut DeviceBuffer<u8>,
        hwork: &mut [u8],
        info: &mut DeviceBuffer<i32>,
    ) -> Result<(), Error> {
        let call = "cuSOLVER Xsyevd";
        let (dev_bytes, host_bytes) = self.xsyevd_buffer_size(params, evect, uplo, n, a, lda, w)?;
        if hwork.len() < host_bytes {
            return Err(Error::InvalidValue(format!(
                "{call}: the host workspace has {} bytes; the call needs {host_bytes}",
                hwork.len()
            )));
        }
        let (ni, ldi) = (i64_of(call, "n", n)?, i64_of(call, "lda", lda)?);
        let ap = self.ptr(call, "A", a, mspan(call, "A", n, n, lda)?)?;
        let wp = self.ptr(call, "W", w, n)?;
        let kp = self.ptr(call, "the device workspace", dwork, dev_bytes)?;
        let ip = self.ptr(call, "info", info, 1)?;
        self.bind()?;
        let (h, j, u) = (self.h, mode(evect), fill(uplo));
        let (ta, tw) = data_types::<T>();
        let hp = if host_bytes == 0 {
            std::ptr::null_mut()
        } else {
            hwork.as_mut_ptr() as *mut std::ffi::c_void
        };
        // SAFETY: A spans an n x n matrix at lda >= max(1, n) of type ta, W n elements of type
        // tw, the device workspace dev_bytes bytes and info one int, all on this handle's
        // device; the host workspace holds host_bytes bytes (checked above) and is exclusively
        // borrowed for the call; the outputs are exclusively borrowed, so none aliases
        // another; params is a live cusolverDnParams; the symbols were looked up by the query.
        let s = unsafe {
            sys::cusolverDnXsyevd(
                h, params.p, j, u, ni, ta, ap as _, ldi, tw, wp as _, ta, kp as _, dev_bytes, hp,
                host_bytes, ip as _,
            )
        };
        check("cusolverDnXsyevd", s)
    }
}

/// `v` as the 64-bit API's `int64_t`.
fn i64_of(call: &str, what: &str, v: usize) -> Result<i64, Error> {
    i64::try_from(v)
        .map_err(|_| Error::InvalidValue(format!("{call}: {what} = {v} does not fit an int64_t")))
}
