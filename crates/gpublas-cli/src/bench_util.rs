//! Pieces the cuBLAS comparisons (`bench blas3`, `bench trsm`) share: input generation, size
//! arithmetic, memory and workspace checks, and `--only` group selection.

use gpublas::{Device, Error, Handle, Status};

/// A small fast generator (splitmix64): gigabytes of inputs are generated on the host.
pub(crate) struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform magnitude in [0.25, 1) with a random sign: never zero.
    pub(crate) fn val(&mut self) -> f64 {
        let r = self.next();
        let v = 0.25 + 0.75 * ((r >> 11) as f64 / (1u64 << 53) as f64);
        if r & 1 == 0 {
            v
        } else {
            -v
        }
    }
}

pub(crate) fn elems(a: usize, b: usize) -> Result<usize, Error> {
    a.checked_mul(b)
        .ok_or_else(|| Error::InvalidSize(format!("{a} x {b} elements overflow")))
}

/// Bytes of `len` elements of `T`.
pub(crate) fn bytes<T>(len: usize) -> Result<usize, Error> {
    elems(len, std::mem::size_of::<T>())
}

/// `Error::MemoryError` when a part's buffers would not fit in the GPU's free memory.
pub(crate) fn fits(dev: &Device, what: &str, bytes: usize) -> Result<(), Error> {
    let free = dev.free_memory()?;
    let margin = 1 << 30;
    if bytes.saturating_add(margin) > free {
        return Err(Error::MemoryError {
            needed: bytes,
            available: free,
            detail: format!("{what} skipped (keeps {margin} bytes spare)"),
        });
    }
    Ok(())
}

/// A size query of one call: the workspace bytes it needs.
pub(crate) fn size_query(
    h: &mut Handle,
    call: impl FnOnce(&mut Handle) -> Result<Status, Error>,
) -> Result<usize, Error> {
    h.start_device_memory_size_query()?;
    let r = call(h);
    let need = h.stop_device_memory_size_query();
    let _: Status = r?;
    need
}

pub(crate) fn err(r: Option<&Error>) -> Option<String> {
    r.map(|e| e.to_string())
}

/// The groups `--only` names (all of `groups` when absent).
pub(crate) fn selected(
    only: Option<&str>,
    groups: &[&'static str],
) -> Result<Vec<&'static str>, Error> {
    let Some(list) = only else {
        return Ok(groups.to_vec());
    };
    let mut out = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let g = groups
            .iter()
            .find(|g| g.eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                Error::InvalidValue(format!(
                    "--only {name}: no such group (groups: {})",
                    groups.join(", ")
                ))
            })?;
        if !out.contains(g) {
            out.push(*g);
        }
    }
    if out.is_empty() {
        return Err(Error::InvalidValue(format!(
            "--only '{list}' names no group (groups: {})",
            groups.join(", ")
        )));
    }
    Ok(out)
}
