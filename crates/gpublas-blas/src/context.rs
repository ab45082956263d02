//! Where a call runs: one gpublas handle per host thread and place, made on the thread's first
//! call there.
//!
//! Level 1 and Level 2 always run on the host backend (they move as many bytes as they compute
//! with, so copying their operands to a GPU never pays). Level 3 and LAPACK's factorizations and
//! solves run on the GPU when one is there and the call's work is at least the crossover, else
//! on the host backend:
//! - `GPUBLAS_DEVICE`: `host` (never the GPU), `cuda` or `cuda:N` (that GPU); unset: GPU 0 if
//!   there is one. `host-copies` runs the GPU's way (operands copied in and out) on a second
//!   host device: the copies' logic, tested where there is no GPU. CUDA is not touched before the first call above the crossover, so loading
//!   the library (or a `fork()` before such a call) stays cheap and safe.
//! - Each family of calls ([`Family`]) has its own crossover, measured on the H200 (NOTES.md,
//!   issue 32): the work in floating-point operations from which a call goes to the GPU, and
//!   the operations per byte it copies to and from the GPU it needs there (a solve with one
//!   right-hand side, a rank-k update of small k stay on the host: the copies would take
//!   longer than the host's arithmetic). `GPUBLAS_BLAS_CROSSOVER` replaces the work of every
//!   family (`0`: every call goes, whatever its intensity; `inf`: none).

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use gpublas::{Device, Error, Handle};

use crate::stage::{Place, Staging};

/// The kinds of call with a crossover of their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Family {
    /// Level-3 products and updates (`gemm`, `symm`, `syrk`, `trmm`, …).
    Product,
    /// Triangular solves: `trsm`, and `getrs`/`potrs` with their factors given.
    Solve,
    /// LU factorization (`getrf`, and `gesv` with its solve).
    Lu,
    /// Cholesky factorization (`potrf`, and `posv` with its solve).
    Cholesky,
    /// Householder QR and LQ, their products with Q, least squares (`geqrf`, `ormqr`, `gels`, …).
    Qr,
    /// Inverses from LU or Cholesky factors (`getri`, `potri`).
    Inverse,
}

impl Family {
    /// The default crossover: (operations, operations per byte copied). On the H200 (16 host
    /// cores, pageable operands staged through page-locked memory), in fresh processes:
    /// - products: the host backend runs near 600 GFLOP/s and the GPU's time is the copies'
    ///   until some 4e9 operations (dgemm 1024, 2.1e9: GPU 3.4–4.5 ms, host 3.5–4.0; 2048: 7.2–9.4
    ///   against 28–29 ms);
    /// - solves: dtrsm 1024 (1.1e9): GPU 4.6–5.0 ms, host 3.9–4.2; 1536 (3.6e9): 7.3–8.1
    ///   against 9.7–11.7;
    /// - LU: the host's small factorizations are slow (n = 512: 2.8–3.1 ms, GPU 2.4; 1024:
    ///   10.4–11.1 against 5.5), the two even near n = 256 (0.76–0.93 against 0.95);
    /// - Cholesky: the GPU leads from n = 256 (0.48 against 0.79–0.82 ms) on.
    ///
    /// QR and the inverses are not measured yet: they take the solves' values.
    fn default_crossover(self) -> (f64, f64) {
        match self {
            Family::Product => (4e9, 40.0),
            Family::Solve | Family::Qr | Family::Inverse => (2e9, 40.0),
            Family::Lu => (8e7, 16.0),
            Family::Cholesky => (4e6, 5.0),
        }
    }
}

static HOST: OnceLock<Device> = OnceLock::new();
static GPU: OnceLock<Option<Device>> = OnceLock::new();
static CROSSOVER: OnceLock<Option<f64>> = OnceLock::new();

thread_local! {
    static HOST_HANDLE: RefCell<Option<Handle>> = const { RefCell::new(None) };
    static GPU_HANDLE: RefCell<Option<Handle>> = const { RefCell::new(None) };
}

fn host() -> &'static Device {
    HOST.get_or_init(Device::host)
}

/// The GPU calls above the crossover go to, if any (opened on first use).
fn gpu() -> Option<&'static Device> {
    GPU.get_or_init(|| {
        let selector = std::env::var("GPUBLAS_DEVICE").unwrap_or_default();
        match selector.as_str() {
            "host" => None,
            "host-copies" => Some(Device::host()),
            "" => Device::cuda(0).ok(),
            s => match Device::from_selector(s) {
                Ok(d) if d.backend() == gpublas::Backend::Cuda => Some(d),
                Ok(_) => None,
                Err(e) => {
                    eprintln!("gpublas-blas: GPUBLAS_DEVICE={s}: {e}; every call runs on the host");
                    None
                }
            },
        }
    })
    .as_ref()
}

/// `GPUBLAS_BLAS_CROSSOVER`, if set: the work from which a call of any family goes to the GPU.
fn crossover_override() -> Option<f64> {
    *CROSSOVER.get_or_init(|| {
        let v = std::env::var("GPUBLAS_BLAS_CROSSOVER").ok()?;
        match v.trim().parse::<f64>() {
            Ok(x) if x >= 0.0 => Some(x),
            _ => {
                eprintln!(
                    "gpublas-blas: GPUBLAS_BLAS_CROSSOVER={v} is not a number of operations \
                     (or inf); using each family's measured crossover"
                );
                None
            }
        }
    })
}

/// Whether a call of `family` with `flops` operations that copies `bytes` belongs on the GPU,
/// under the override `set` (`GPUBLAS_BLAS_CROSSOVER`).
fn goes_to_gpu(family: Family, (flops, bytes): (f64, f64), set: Option<f64>) -> bool {
    let (work, intensity) = family.default_crossover();
    match set {
        Some(0.0) => true,
        Some(x) => flops >= x && flops >= intensity * bytes,
        None => flops >= work && flops >= intensity * bytes,
    }
}

/// Runs `f` with this thread's handle on `dev` (held in `slot`), catching errors and panics.
fn with_handle<R>(
    routine: &str,
    slot: &'static std::thread::LocalKey<RefCell<Option<Handle>>>,
    dev: &Device,
    f: impl FnOnce(&mut Handle) -> Result<R, Error>,
) -> Option<R> {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        slot.with(|cell| match cell.try_borrow_mut() {
            Ok(mut held) => {
                let h = match held.as_mut() {
                    Some(h) => h,
                    None => held.insert(Handle::new(dev)?),
                };
                f(h)
            }
            // Re-entered on this thread (a routine calling back into BLAS): a handle of its own.
            Err(_) => f(&mut Handle::new(dev)?),
        })
    }));
    match outcome {
        Ok(Ok(v)) => Some(v),
        Ok(Err(e)) => {
            eprintln!("gpublas-blas: {routine}: {e}");
            None
        }
        Err(_) => {
            eprintln!("gpublas-blas: {routine}: internal error (a panic, caught)");
            None
        }
    }
}

/// Runs `f` with this thread's host handle and the host device, for routine `routine` (its
/// BLAS name, for messages). A valid call that fails in gpublas (out of memory, say) cannot be
/// reported through the BLAS interface: the reason goes to standard error, the outputs are as
/// gpublas left them (untouched: it checks before it writes), and `None` is returned. A panic
/// is caught there too, so none crosses into the caller.
pub(crate) fn run<R>(
    routine: &str,
    f: impl FnOnce(&mut Handle, &Device) -> Result<R, Error>,
) -> Option<R> {
    let dev = host();
    with_handle(routine, &HOST_HANDLE, dev, |h| f(h, dev))
}

/// Runs `f` where a call of `family` with `flops` operations on operands of `bytes` belongs
/// (see the module's doc): `f` reaches its operands through the [`Staging`] it is given.
/// Errors and panics as [`run`].
pub(crate) fn run_placed<R>(
    routine: &str,
    family: Family,
    work: (f64, f64),
    f: impl FnOnce(&mut Handle, &Staging) -> Result<R, Error>,
) -> Option<R> {
    if goes_to_gpu(family, work, crossover_override()) {
        if let Some(dev) = gpu() {
            let staging = Staging::new(Place::Gpu, dev.clone());
            return with_handle(routine, &GPU_HANDLE, dev, |h| f(h, &staging));
        }
    }
    let dev = host();
    let staging = Staging::new(Place::Host, dev.clone());
    with_handle(routine, &HOST_HANDLE, dev, |h| f(h, &staging))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::work;

    /// The measured crossovers at the orders they were measured at (square operands, f64).
    #[test]
    fn crossovers_per_family() {
        let n3 = |n: f64| n * n * n;
        let gemm = |n: f64| work::<f64>(2.0 * n3(n), 3.0 * n * n);
        let trsm = |n: f64| work::<f64>(n3(n), 2.0 * n * n);
        let getrf = |n: f64| work::<f64>(2.0 / 3.0 * n3(n), n * n);
        let potrf = |n: f64| work::<f64>(n3(n) / 3.0, n * n);
        let on = |f: Family, w: (f64, f64)| goes_to_gpu(f, w, None);
        assert!(on(Family::Product, gemm(1536.0)) && !on(Family::Product, gemm(1024.0)));
        assert!(on(Family::Solve, trsm(1536.0)) && !on(Family::Solve, trsm(1024.0)));
        assert!(on(Family::Lu, getrf(512.0)) && !on(Family::Lu, getrf(384.0)));
        assert!(on(Family::Cholesky, potrf(256.0)) && !on(Family::Cholesky, potrf(200.0)));
        // A tall, thin LU and a solve with one right-hand side stay on the host.
        assert!(!on(
            Family::Lu,
            work::<f64>(2.0 * 1e6 * 16.0 * 16.0, 1e6 * 16.0)
        ));
        assert!(!on(
            Family::Solve,
            work::<f64>(2.0 * 8192.0 * 8192.0, 8192.0 * 8193.0)
        ));
        // The override: 0 sends everything, infinity nothing, a value replaces each family's work.
        assert!(goes_to_gpu(Family::Solve, trsm(8.0), Some(0.0)));
        assert!(!goes_to_gpu(
            Family::Product,
            gemm(16384.0),
            Some(f64::INFINITY)
        ));
        assert!(!goes_to_gpu(Family::Cholesky, potrf(1024.0), Some(1e9)));
        assert!(goes_to_gpu(Family::Cholesky, potrf(2048.0), Some(1e9)));
    }
}
