//! Where a call runs: one gpublas handle per host thread, made on the thread's first call, on
//! the process's one device.
//!
//! Today every call runs on the host backend (the caller's arrays are host memory, lent to
//! gpublas without a copy). Routing large calls to the GPU, with staging through the handle's
//! workspace, comes next; `GPUBLAS_DEVICE=cuda` is reported once and runs on the host.

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Once, OnceLock};

use gpublas::{Device, Error, Handle};

static DEVICE: OnceLock<Device> = OnceLock::new();

thread_local! {
    static HANDLE: RefCell<Option<Handle>> = const { RefCell::new(None) };
}

fn device() -> &'static Device {
    DEVICE.get_or_init(|| {
        if std::env::var("GPUBLAS_DEVICE").is_ok_and(|v| v != "host") {
            static NOTE: Once = Once::new();
            NOTE.call_once(|| {
                eprintln!(
                    "gpublas-blas: GPUBLAS_DEVICE={} asked for; the drop-in runs every call on \
                     the host backend for now",
                    std::env::var("GPUBLAS_DEVICE").unwrap_or_default()
                )
            });
        }
        Device::host()
    })
}

/// Runs `f` with this thread's handle and the device, for routine `routine` (its BLAS name,
/// for messages). A valid call that fails in gpublas (out of memory, say) cannot be reported
/// through the BLAS interface: the reason goes to standard error and the outputs are as gpublas
/// left them (untouched: it checks before it writes), and `None` is returned. A panic is
/// caught there too, so none crosses into the caller.
pub(crate) fn run<R>(
    routine: &str,
    f: impl FnOnce(&mut Handle, &Device) -> Result<R, Error>,
) -> Option<R> {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let dev = device();
        HANDLE.with(|cell| match cell.try_borrow_mut() {
            Ok(mut slot) => {
                let h = match slot.as_mut() {
                    Some(h) => h,
                    None => slot.insert(Handle::new(dev)?),
                };
                f(h, dev)
            }
            // Re-entered on this thread (a routine calling back into BLAS): a handle of its own.
            Err(_) => f(&mut Handle::new(dev)?, dev),
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
