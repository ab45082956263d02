//! Checks of failed calls shared by the bad-argument tests: the error's kind and the values
//! its message names, and outputs that must stay bit for bit as they were.

use super::elem::{same, El};
use gpublas::{Device, DeviceBuffer, Error, Status};

/// Asserts the error's kind and that its message names `parts` (case-insensitive: "stride_C"
/// names the argument stride_c).
pub fn expect_err(
    r: Result<Status, Error>,
    kind: fn(&Error) -> bool,
    parts: &[&str],
    what: &str,
) -> Error {
    let e = match r {
        Ok(st) => panic!("{what}: expected an error, got {st:?}"),
        Err(e) => e,
    };
    assert!(kind(&e), "{what}: wrong kind: {e:?}");
    let text = e.to_string();
    for p in parts {
        assert!(
            text.to_lowercase().contains(&p.to_lowercase()),
            "{what}: '{text}' lacks '{p}'"
        );
    }
    e
}

pub fn is_size(e: &Error) -> bool {
    matches!(e, Error::InvalidSize(_))
}

pub fn is_value(e: &Error) -> bool {
    matches!(e, Error::InvalidValue(_))
}

pub fn is_pointer(e: &Error) -> bool {
    matches!(e, Error::InvalidPointer(_))
}

/// Output buffers holding a known pattern, checked bit for bit at the end.
pub struct Outs<E> {
    pub bufs: Vec<DeviceBuffer<E>>,
}

impl<E: El> Outs<E> {
    pub fn new(dev: &Device, lens: &[usize]) -> Outs<E> {
        Outs {
            bufs: lens
                .iter()
                .map(|&l| dev.upload(&pattern::<E>(l)).unwrap())
                .collect(),
        }
    }

    pub fn check(&self) {
        for (i, b) in self.bufs.iter().enumerate() {
            let got = b.to_vec().unwrap();
            let want = pattern::<E>(got.len());
            assert!(
                got.iter().zip(&want).all(|(a, b)| same(*a, *b)),
                "output {i} was written: {got:?}"
            );
        }
    }
}

pub fn pattern<E: El>(len: usize) -> Vec<E> {
    (0..len)
        .map(|i| E::make(-7.5 - i as f64, 0.25 * i as f64))
        .collect()
}
