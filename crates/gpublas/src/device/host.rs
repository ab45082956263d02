//! The host backend: "device memory" is host memory, counted against an optional limit so that
//! out-of-memory paths are testable without a GPU.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::Error;

/// One chunk of host memory; 64-byte alignment makes every workspace offset chunk-aligned.
#[repr(C, align(64))]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct Chunk([u8; 64]);

pub(crate) struct HostDevice {
    limit: Option<usize>,
    pub(crate) pools: bool,
    used: AtomicUsize,
    next_stream: AtomicU64,
}

impl HostDevice {
    pub(crate) fn new(limit: Option<usize>, pools: bool) -> Self {
        HostDevice {
            limit,
            pools,
            used: AtomicUsize::new(0),
            next_stream: AtomicU64::new(1),
        }
    }

    pub(crate) fn limit(&self) -> Option<usize> {
        self.limit
    }

    pub(crate) fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    pub(crate) fn free(&self) -> usize {
        self.limit
            .map_or(usize::MAX, |l| l.saturating_sub(self.used()))
    }

    pub(crate) fn next_stream_id(&self) -> u64 {
        self.next_stream.fetch_add(1, Ordering::Relaxed)
    }

    /// Reserves `bytes` against the limit, then allocates zeroed chunks.
    pub(crate) fn alloc(&self, bytes: usize) -> Result<Vec<Chunk>, Error> {
        let oom = |available| Error::MemoryError {
            needed: bytes,
            available,
            detail: "host device allocation failed".into(),
        };
        let mut cur = self.used.load(Ordering::Relaxed);
        loop {
            let next = cur.checked_add(bytes).ok_or_else(|| oom(self.free()))?;
            if let Some(l) = self.limit {
                if next > l {
                    return Err(Error::MemoryError {
                        needed: bytes,
                        available: l.saturating_sub(cur),
                        detail: format!("the host device's allocation limit is {l} bytes"),
                    });
                }
            }
            match self
                .used
                .compare_exchange(cur, next, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => break,
                Err(v) => cur = v,
            }
        }
        let n = bytes.div_ceil(64);
        let mut v: Vec<Chunk> = Vec::new();
        if v.try_reserve_exact(n).is_err() {
            self.release(bytes);
            return Err(oom(0));
        }
        v.resize(n, Chunk([0; 64]));
        Ok(v)
    }

    pub(crate) fn release(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::Relaxed);
    }
}
