//! The on-disk cache of compiled kernels: one cubin per (source, family, architecture, NVRTC
//! version, options), so a fresh process loads its kernels instead of compiling them.
//!
//! Where: `GPUBLAS_KERNEL_CACHE=path`, or `off` to disable; by default the platform's cache
//! directory (`$XDG_CACHE_HOME/gpublas/kernels`, `~/.cache/gpublas/kernels`, or
//! `%LOCALAPPDATA%\gpublas\kernels`). Entries are written to a temporary file and renamed into
//! place, so processes starting together never see a partial entry; each carries a length and
//! a checksum, so a corrupt or truncated one is recompiled (with a logged warning). A directory
//! that cannot be written only costs speed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The variable that moves or disables the cache.
pub const KERNEL_CACHE_VAR: &str = "GPUBLAS_KERNEL_CACHE";

const MAGIC: &[u8; 8] = b"GPUBLAS1";

/// The cache directory, or `None` when disabled or no home is known.
pub fn cache_dir() -> Option<PathBuf> {
    match std::env::var_os(KERNEL_CACHE_VAR) {
        Some(v) if v == "off" => None,
        Some(v) if !v.is_empty() => Some(PathBuf::from(v)),
        _ => {
            let base = std::env::var_os("XDG_CACHE_HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
                .or_else(|| std::env::var_os("LOCALAPPDATA").map(PathBuf::from))?;
            Some(base.join("gpublas").join("kernels"))
        }
    }
}

/// 64-bit FNV-1a: a stable hash for file names and checksums (not for security: entries are
/// the user's own files).
fn fnv(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in *p {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        // Separate the parts so ("ab", "c") and ("a", "bc") differ.
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The file name of an entry.
pub(crate) fn key(source: &str, options: &[String], arch: &str, nvrtc: (i32, i32)) -> String {
    let version = format!("{}.{}", nvrtc.0, nvrtc.1);
    let opts = options.join("\u{1}");
    let h = fnv(&[
        source.as_bytes(),
        opts.as_bytes(),
        arch.as_bytes(),
        version.as_bytes(),
    ]);
    format!("{arch}-nvrtc{version}-{h:016x}.cubin")
}

/// The cached cubin for `key`, or `None` (missing, unreadable, or corrupt: then recompiled).
pub(crate) fn load(dir: &Path, key: &str) -> Option<Vec<u8>> {
    let path = dir.join(key);
    let data = std::fs::read(&path).ok()?;
    match decode(&data) {
        Some(cubin) => Some(cubin.to_vec()),
        None => {
            tracing::warn!(path = %path.display(), bytes = data.len(), "corrupt kernel cache entry; recompiling");
            None
        }
    }
}

fn decode(data: &[u8]) -> Option<&[u8]> {
    let rest = data.strip_prefix(MAGIC)?;
    let (len, rest) = rest.split_first_chunk::<8>()?;
    let (sum, body) = rest.split_first_chunk::<8>()?;
    let len = usize::try_from(u64::from_le_bytes(*len)).ok()?;
    (body.len() == len && fnv(&[body]) == u64::from_le_bytes(*sum)).then_some(body)
}

/// Stores `cubin` under `key`, atomically; failures are logged and otherwise ignored.
pub(crate) fn store(dir: &Path, key: &str, cubin: &[u8]) {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let tmp = dir.join(format!(
        ".{key}.{}.{}.tmp",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let result = std::fs::create_dir_all(dir)
        .and_then(|_| {
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(MAGIC)?;
            f.write_all(&(cubin.len() as u64).to_le_bytes())?;
            f.write_all(&fnv(&[cubin]).to_le_bytes())?;
            f.write_all(cubin)?;
            f.sync_all()
        })
        .and_then(|_| std::fs::rename(&tmp, dir.join(key)));
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        tracing::info!(dir = %dir.display(), error = %e, "kernel cache not written; kernels will be compiled again next time");
    }
}

/// Where the cache is, how many entries it holds and their bytes (for `gpublas info`).
pub fn summary() -> (Option<PathBuf>, usize, u64) {
    let Some(dir) = cache_dir() else {
        return (None, 0, 0);
    };
    let (mut n, mut bytes) = (0, 0);
    if let Ok(rd) = std::fs::read_dir(&dir) {
        for e in rd.flatten() {
            if e.file_name().to_string_lossy().ends_with(".cubin") {
                n += 1;
                bytes += e.metadata().map(|m| m.len()).unwrap_or(0);
            }
        }
    }
    (Some(dir), n, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_corruption_and_keys() {
        let dir = std::env::temp_dir().join(format!("gpublas-kcache-{}", std::process::id()));
        let k = key("src", &["-DA".into()], "sm_90", (13, 0));
        assert_ne!(k, key("src", &["-DB".into()], "sm_90", (13, 0)));
        assert_ne!(k, key("src", &["-DA".into()], "sm_80", (13, 0)));
        assert_ne!(k, key("src", &["-DA".into()], "sm_90", (13, 1)));
        assert_ne!(k, key("src2", &["-DA".into()], "sm_90", (13, 0)));
        assert!(load(&dir, &k).is_none());
        store(&dir, &k, b"cubin bytes");
        assert_eq!(load(&dir, &k).as_deref(), Some(&b"cubin bytes"[..]));
        // Truncated and bit-flipped entries are refused.
        let path = dir.join(&k);
        let full = std::fs::read(&path).unwrap();
        std::fs::write(&path, &full[..full.len() - 1]).unwrap();
        assert!(load(&dir, &k).is_none());
        let mut flipped = full.clone();
        *flipped.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &flipped).unwrap();
        assert!(load(&dir, &k).is_none());
        // An unwritable location only logs.
        store(Path::new("/proc/gpublas-cannot-write"), &k, b"x");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
