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
//! - `GPUBLAS_BLAS_CROSSOVER`: the work, in floating-point operations, from which a call goes
//!   to the GPU (`0`: every such call; `inf`: none); default [`DEFAULT_CROSSOVER`]. Unless it
//!   is 0, a call also needs [`MIN_INTENSITY`] operations per byte it moves to and from the
//!   GPU (a solve with one right-hand side, a rank-k update of small k stay on the host: the
//!   copies would take longer than the host's arithmetic).

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use gpublas::{Device, Error, Handle};

use crate::stage::{Place, Staging};

/// Work (floating-point operations) from which a Level-3 or LAPACK call runs on the GPU when
/// `GPUBLAS_BLAS_CROSSOVER` does not say.
pub const DEFAULT_CROSSOVER: f64 = 2e9;

/// Operations per byte copied to and from the GPU below which a call stays on the host: the
/// bus moves about 25 GB/s from pageable memory where a host's cores do about a TFLOP/s, so
/// below some 40 operations a byte the copies alone outlast the host's arithmetic.
pub const MIN_INTENSITY: f64 = 40.0;

static HOST: OnceLock<Device> = OnceLock::new();
static GPU: OnceLock<Option<Device>> = OnceLock::new();
static CROSSOVER: OnceLock<f64> = OnceLock::new();

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

/// The work from which a call goes to the GPU.
pub(crate) fn crossover() -> f64 {
    *CROSSOVER.get_or_init(|| match std::env::var("GPUBLAS_BLAS_CROSSOVER") {
        Err(_) => DEFAULT_CROSSOVER,
        Ok(v) => match v.trim().parse::<f64>() {
            Ok(x) if x >= 0.0 => x,
            _ => {
                eprintln!(
                    "gpublas-blas: GPUBLAS_BLAS_CROSSOVER={v} is not a number of operations \
                     (or inf); using {DEFAULT_CROSSOVER:e}"
                );
                DEFAULT_CROSSOVER
            }
        },
    })
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

/// Runs `f` where a call of `flops` operations on operands of `bytes` belongs (see the module's
/// doc): `f` reaches its operands through the [`Staging`] it is given. Errors and panics as
/// [`run`].
pub(crate) fn run_placed<R>(
    routine: &str,
    (flops, bytes): (f64, f64),
    f: impl FnOnce(&mut Handle, &Staging) -> Result<R, Error>,
) -> Option<R> {
    let cross = crossover();
    if flops >= cross && (cross == 0.0 || flops >= MIN_INTENSITY * bytes) {
        if let Some(dev) = gpu() {
            let staging = Staging::new(Place::Gpu, dev.clone());
            return with_handle(routine, &GPU_HANDLE, dev, |h| f(h, &staging));
        }
    }
    let dev = host();
    let staging = Staging::new(Place::Host, dev.clone());
    with_handle(routine, &HOST_HANDLE, dev, |h| f(h, &staging))
}
