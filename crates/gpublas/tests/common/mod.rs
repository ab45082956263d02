//! Shared test harness: the same test bodies run on the host backend (always) and on CUDA
//! (ignored where there is no GPU; run with `--include-ignored` on a GPU machine).
#![allow(dead_code)]

pub mod complex;
pub mod elem;
pub mod errors;
pub mod forms;

use gpublas::{Device, Handle, HandleConfig};
use rand::{Rng, SeedableRng};

/// The host device tests run on: limited, so out-of-memory paths are reachable.
pub const HOST_LIMIT: usize = 1 << 30;

pub fn host() -> Device {
    Device::host_with_limit(HOST_LIMIT)
}

pub fn gpu() -> Device {
    Device::cuda(0).expect("these tests need CUDA GPU 0")
}

/// Generates `host::NAME` and `cuda::NAME` tests calling `NAME(&Device)`.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod host {
            $( #[test] fn $name() { super::$name(&$crate::common::host()) } )*
        }
        mod cuda {
            $(
                #[test]
                #[ignore = "needs a CUDA GPU; run with --include-ignored on a GPU machine"]
                fn $name() {
                    let _serial = $crate::common::gpu_lock(stringify!($name));
                    super::$name(&$crate::common::gpu())
                }
            )*
        }
    };
}

/// A handle with the default configuration (a managed workspace).
pub fn handle(dev: &Device) -> Handle {
    Handle::with_config(dev, &HandleConfig::default()).unwrap()
}

/// `bytes == 0`: managed with nothing allocated; `bytes > 0`: user-managed with that many bytes.
pub fn fixed_handle(dev: &Device, bytes: usize) -> Handle {
    Handle::with_config(
        dev,
        &HandleConfig {
            device_memory_size: Some(bytes),
            ..Default::default()
        },
    )
    .unwrap()
}

/// A handle whose workspace is a user-owned buffer of `bytes` bytes (M5).
pub fn user_owned_handle(dev: &Device, bytes: usize) -> Handle {
    let mut h = fixed_handle(dev, 0);
    let _ = h
        .set_workspace(Some(dev.alloc::<u8>(bytes).unwrap()))
        .unwrap();
    h
}

pub fn rng(seed: u64) -> rand::rngs::StdRng {
    rand::rngs::StdRng::seed_from_u64(seed)
}

/// Uniform values in [-1, 1).
pub fn randn(r: &mut impl Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| r.gen_range(-1.0..1.0)).collect()
}

/// Relative difference, with `scale` as the floor of the denominator.
pub fn rel(a: f64, b: f64, scale: f64) -> f64 {
    if a == b {
        return 0.0;
    }
    (a - b).abs() / b.abs().max(scale).max(f64::MIN_POSITIVE)
}

/// Graph capture forbids context-wide synchronisation, which other tests do (freeing memory),
/// and free-memory readings are only meaningful with nothing else allocating: such tests run
/// alone, the others together.
pub enum GpuGuard {
    Shared(std::sync::RwLockReadGuard<'static, ()>),
    Alone(std::sync::RwLockWriteGuard<'static, ()>),
}

pub fn gpu_lock(test: &str) -> GpuGuard {
    static LOCK: std::sync::RwLock<()> = std::sync::RwLock::new(());
    // Capture tests, and tests that measure the device's free memory, run alone.
    let alone = ["capture", "m02_environment", "m03_", "m15_"];
    if alone.iter().any(|k| test.contains(k)) {
        GpuGuard::Alone(LOCK.write().unwrap_or_else(|e| e.into_inner()))
    } else {
        GpuGuard::Shared(LOCK.read().unwrap_or_else(|e| e.into_inner()))
    }
}
