//! The operands of a call where it runs: on the host backend the caller's arrays themselves
//! (lent, no copy); on the GPU a device copy of each (packed, leading dimension = rows), copied
//! in before the call and back after it for what the call writes.

use gpublas::{transfer, Device, DeviceBuffer, Element, Error, Handle};

use crate::args::mat_len;
use crate::ffi::{borrow, host_slice, host_slice_mut, Int};

/// Where a call runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// The host backend, on the caller's arrays.
    Host,
    /// The GPU, on copies.
    Gpu,
}

/// An operand where the call runs: its buffer and leading dimension there.
pub(crate) struct Staged<T> {
    /// The buffer (the caller's memory on the host backend, a device copy on the GPU).
    pub buf: DeviceBuffer<T>,
    /// Its leading dimension.
    pub ld: usize,
}

/// How a call's operands reach the place it runs.
pub(crate) struct Staging {
    place: Place,
    dev: Device,
}

impl Staging {
    pub(crate) fn new(place: Place, dev: Device) -> Self {
        Staging { place, dev }
    }

    /// The `rows × cols` matrix at `p` (leading dimension `ld`), which the call reads (and may
    /// write: then [`Staging::back`] copies it back).
    pub(crate) fn input<T: Element>(
        &self,
        h: &mut Handle,
        p: *const T,
        (rows, cols, ld): (Int, Int, Int),
    ) -> Result<Staged<T>, Error> {
        let len = mat_len(rows, cols, ld);
        match self.place {
            // SAFETY: the caller's array holds the `len` elements the interface reads there,
            // and the buffer does not outlive the call.
            Place::Host => Ok(Staged {
                buf: unsafe { borrow(&self.dev, p, len) }?,
                ld: ld.max(1) as usize,
            }),
            Place::Gpu => {
                let (r, c) = (rows.max(0) as usize, cols.max(0) as usize);
                let mut buf = self.dev.alloc::<T>(r * c)?;
                if r > 0 && c > 0 {
                    // SAFETY: as above; the slice lives for the copy only.
                    let host = unsafe { host_slice(p, len) };
                    let _ = transfer::set_matrix(h, r, c, host, ld as usize, &mut buf, r)?;
                }
                Ok(Staged { buf, ld: r.max(1) })
            }
        }
    }

    /// The `rows × cols` matrix at `p` that the call only writes: not copied in.
    pub(crate) fn output<T: Element>(
        &self,
        p: *mut T,
        (rows, cols, ld): (Int, Int, Int),
    ) -> Result<Staged<T>, Error> {
        match self.place {
            // SAFETY: as in `input`.
            Place::Host => Ok(Staged {
                buf: unsafe { borrow(&self.dev, p, mat_len(rows, cols, ld)) }?,
                ld: ld.max(1) as usize,
            }),
            Place::Gpu => {
                let (r, c) = (rows.max(0) as usize, cols.max(0) as usize);
                Ok(Staged {
                    buf: self.dev.alloc::<T>(r * c)?,
                    ld: r.max(1),
                })
            }
        }
    }

    /// Copies what the call wrote in `s` back to the caller's matrix at `p` (nothing to do on
    /// the host backend).
    pub(crate) fn back<T: Element>(
        &self,
        h: &mut Handle,
        s: &Staged<T>,
        p: *mut T,
        (rows, cols, ld): (Int, Int, Int),
    ) -> Result<(), Error> {
        if self.place == Place::Host || rows <= 0 || cols <= 0 {
            return Ok(());
        }
        // SAFETY: the caller's array holds the matrix; nothing else touches it during the call.
        let host = unsafe { host_slice_mut(p, mat_len(rows, cols, ld)) };
        let (r, c) = (rows as usize, cols as usize);
        let _ = transfer::get_matrix(h, r, c, &s.buf, s.ld, host, ld as usize)?;
        Ok(())
    }
}
