//! The environment variables read at handle creation (M2, M11).

use crate::Error;

/// Every requested workspace size is rounded up to a multiple of this many bytes.
pub const CHUNK: usize = 64;

/// Default capacity of a `Managed` handle created with `GPUBLAS_DEVICE_MEMORY_SIZE` unset.
pub const DEFAULT_WORKSPACE_BYTES: usize = 32 << 20;

/// The variable that fixes the workspace size at handle creation (M2).
pub const DEVICE_MEMORY_SIZE_VAR: &str = "GPUBLAS_DEVICE_MEMORY_SIZE";

/// The variable that turns on stream-ordered allocation at handle creation (M11).
pub const STREAM_ORDER_ALLOC_VAR: &str = "GPUBLAS_STREAM_ORDER_ALLOC";

/// `n` rounded up to a whole number of chunks; `None` on overflow.
pub fn round_up(n: usize) -> Option<usize> {
    n.checked_add(CHUNK - 1).map(|v| v / CHUNK * CHUNK)
}

/// The sum of `sizes`, each rounded up to a chunk (the bytes one lease of them takes).
pub fn rounded_total(sizes: &[usize]) -> Result<usize, Error> {
    sizes.iter().try_fold(0usize, |acc, &s| {
        round_up(s).and_then(|r| acc.checked_add(r)).ok_or_else(|| {
            Error::InvalidSize(format!(
                "workspace sizes {sizes:?} overflow the address space when rounded to {CHUNK}-byte chunks"
            ))
        })
    })
}

/// Parses a byte size: decimal or `0x` hex, optional `K`/`KiB`/`M`/`MiB`/`G`/`GiB` suffix
/// (powers of 1024), surrounding spaces ignored.
///
/// ```
/// use gpublas::memory::parse_size;
/// assert_eq!(parse_size(" 64MiB ").unwrap(), 64 << 20);
/// assert_eq!(parse_size("0x100").unwrap(), 256);
/// assert!(parse_size("32X").is_err());
/// ```
pub fn parse_size(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let (num, shift) = [
        ("KiB", 10),
        ("MiB", 20),
        ("GiB", 30),
        ("K", 10),
        ("M", 20),
        ("G", 30),
    ]
    .iter()
    .find_map(|(suf, sh)| t.strip_suffix(suf).map(|n| (n.trim_end(), *sh)))
    .unwrap_or((t, 0));
    let value = if let Some(hex) = num.strip_prefix("0x").or_else(|| num.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16)
    } else if !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) {
        num.parse::<u64>()
    } else {
        return Err(format!(
            "'{text}' is not a byte size (decimal or 0x hex, optional K/KiB/M/MiB/G/GiB)"
        ));
    }
    .map_err(|_| format!("'{text}' is not a byte size that fits in 64 bits"))?;
    value
        .checked_mul(1u64 << shift)
        .and_then(|v| usize::try_from(v).ok())
        .and_then(|v| round_up(v).map(|_| v))
        .ok_or_else(|| format!("'{text}' is larger than the address space"))
}

/// Settings a handle takes at creation, normally read from the environment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HandleConfig {
    /// `GPUBLAS_DEVICE_MEMORY_SIZE`: `None` unset, `Some(0)` managed with nothing allocated,
    /// `Some(n)` user-managed with `n` bytes (M2).
    pub device_memory_size: Option<usize>,
    /// `GPUBLAS_STREAM_ORDER_ALLOC` > 0 (M11).
    pub stream_order_alloc: bool,
}

impl HandleConfig {
    /// Reads the variables from the process environment.
    pub fn from_env() -> Result<HandleConfig, Error> {
        HandleConfig::from_lookup(|k| std::env::var(k).ok())
    }

    /// Reads the variables through `lookup` (for tests and tools that hold their own settings).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<HandleConfig, Error> {
        let device_memory_size =
            match lookup(DEVICE_MEMORY_SIZE_VAR) {
                None => None,
                Some(text) => Some(parse_size(&text).map_err(|why| {
                    Error::InvalidValue(format!("{DEVICE_MEMORY_SIZE_VAR}: {why}"))
                })?),
            };
        let stream_order_alloc = match lookup(STREAM_ORDER_ALLOC_VAR) {
            None => false,
            Some(text) => text.trim().parse::<i64>().map(|v| v > 0).map_err(|_| {
                Error::InvalidValue(format!(
                    "{STREAM_ORDER_ALLOC_VAR}: '{text}' is not an integer (a value > 0 enables it)"
                ))
            })?,
        };
        Ok(HandleConfig {
            device_memory_size,
            stream_order_alloc,
        })
    }
}
