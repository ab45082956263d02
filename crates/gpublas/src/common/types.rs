//! Scalars given on the host or in device memory (SPEC F10).

use crate::device::{DeviceBuffer, Element};

/// A scalar argument (`alpha`, `beta`, `c`, `s`): a value on the host, or in device memory so
/// that a call never waits for the host and can be captured into a graph (SPEC F10).
///
/// ```
/// use gpublas::{Coef, Device};
/// let dev = Device::host();
/// let alpha: Coef<'_, f64> = 2.0.into();            // on the host
/// let beta_dev = dev.upload(&[0.5f64])?;
/// let beta = Coef::Device(&beta_dev);                 // element 0, read on the device
/// # let _ = (alpha, beta);
/// # Ok::<(), gpublas::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub enum Coef<'a, T> {
    /// A value on the host, passed by value to the kernels.
    Host(T),
    /// Element 0 of a device buffer, for every batch entry.
    Device(&'a DeviceBuffer<T>),
    /// Element `b` of a device buffer for batch entry `b` (the buffer holds at least one value
    /// per batch entry).
    DevicePerEntry(&'a DeviceBuffer<T>),
}

impl<T> From<T> for Coef<'_, T> {
    fn from(v: T) -> Self {
        Coef::Host(v)
    }
}

impl<T: Element> Coef<'_, T> {
    /// The value when it is on the host.
    pub(crate) fn host(&self) -> Option<T> {
        match self {
            Coef::Host(v) => Some(*v),
            _ => None,
        }
    }

    /// The device buffer and its stride between batch entries (0 or 1 element).
    pub(crate) fn device(&self) -> Option<(&DeviceBuffer<T>, usize)> {
        match self {
            Coef::Host(_) => None,
            Coef::Device(b) => Some((b, 0)),
            Coef::DevicePerEntry(b) => Some((b, 1)),
        }
    }
}
