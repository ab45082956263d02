//! The operands of a call where it runs: on the host backend the caller's arrays themselves
//! (lent, no copy); on the GPU a device copy of each (packed, leading dimension = rows), copied
//! in before the call and back after it for what the call writes. A large call whose output
//! splits into independent column tiles runs [`Staging::tiled`] on the GPU: each tile's
//! operands are copied in, and its result back, on a second handle while the products of the
//! neighbouring tile run on the first (the copies go through the handle's page-locked staging
//! slots: `gpublas::transfer`).

use gpublas::{transfer, Device, DeviceBuffer, Element, Error, Handle};

use crate::args::mat_len;
use crate::context::with_copy_handle;
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

    /// Whether the call runs on the GPU (operands copied).
    pub(crate) fn on_gpu(&self) -> bool {
        self.place == Place::Gpu
    }

    /// A device buffer for operands of up to `elements` elements (GPU only).
    fn buffer<T: Element>(&self, elements: usize) -> Result<Staged<T>, Error> {
        Ok(Staged {
            buf: self.dev.alloc::<T>(elements)?,
            ld: 1,
        })
    }

    /// Copies the `rows × cols` matrix at `p` into `s` (packed; GPU only; `s` holds at least
    /// `rows × cols` elements).
    fn load<T: Element>(
        &self,
        h: &mut Handle,
        p: *const T,
        (rows, cols, ld): (Int, Int, Int),
        s: &mut Staged<T>,
    ) -> Result<(), Error> {
        let (r, c) = (rows.max(0) as usize, cols.max(0) as usize);
        s.ld = r.max(1);
        if r > 0 && c > 0 {
            // SAFETY: the caller's array holds the matrix; the slice lives for the copy only.
            let host = unsafe { host_slice(p, mat_len(rows, cols, ld)) };
            let _ = transfer::set_matrix(h, r, c, host, ld as usize, &mut s.buf, r)?;
        }
        Ok(())
    }

    /// Runs a call tile by tile over `n` output columns, `width` at a time (GPU only), with
    /// the copies of one tile overlapping the products of its neighbour. For tile
    /// `(j0, j1)`: `inputs(j0, j1)` are the caller's matrices the tile reads (pointer and
    /// `(rows, cols, ld)`), `output(j0, j1)` the one it writes (copied in first when
    /// `read_output`: a `beta ≠ 0` product), and `compute` runs the tile on the main handle
    /// over their device copies. The main handle's work is ordered after each tile's copies
    /// by the host (the copies are synchronous), and the copies of a tile's result after its
    /// products by a wait on the main handle's stream only.
    #[allow(clippy::type_complexity)]
    pub(crate) fn tiled<T: Element>(
        &self,
        h: &mut Handle,
        (n, width): (usize, usize),
        inputs: &dyn Fn(usize, usize) -> Vec<(*const T, (Int, Int, Int))>,
        (output, read_output): (&dyn Fn(usize, usize) -> (*mut T, (Int, Int, Int)), bool),
        compute: &mut dyn FnMut(
            &mut Handle,
            (usize, usize),
            &[Staged<T>],
            &mut Staged<T>,
        ) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let tiles: Vec<(usize, usize)> = (0..n)
            .step_by(width.max(1))
            .map(|j0| (j0, (j0 + width).min(n)))
            .collect();
        let Some(&first) = tiles.first() else {
            return Ok(());
        };
        let elements = |(p, (r, c, _)): (*const T, (Int, Int, Int))| {
            let _ = p;
            r.max(0) as usize * c.max(0) as usize
        };
        // Two sets of tile buffers, sized by the first (widest) tile, made before anything is
        // copied back: a failed allocation leaves the caller's output untouched.
        let mut slots = Vec::with_capacity(2);
        for _ in 0..tiles.len().min(2) {
            let ins = inputs(first.0, first.1)
                .into_iter()
                .map(|x| self.buffer::<T>(elements(x)))
                .collect::<Result<Vec<_>, Error>>()?;
            let (p, dims) = output(first.0, first.1);
            let out = self.buffer::<T>(elements((p.cast_const(), dims)))?;
            slots.push((ins, out));
        }
        let dev = self.dev.clone();
        let load =
            |hc: &mut Handle, (j0, j1): (usize, usize), slot: &mut (Vec<Staged<T>>, Staged<T>)| {
                for ((p, dims), s) in inputs(j0, j1).into_iter().zip(slot.0.iter_mut()) {
                    self.load(hc, p, dims, s)?;
                }
                let (p, dims) = output(j0, j1);
                if read_output {
                    self.load(hc, p.cast_const(), dims, &mut slot.1)
                } else {
                    slot.1.ld = dims.0.max(1) as usize;
                    Ok(())
                }
            };
        let back = |hc: &mut Handle, (j0, j1): (usize, usize), out: &Staged<T>| {
            let (p, dims) = output(j0, j1);
            self.back(hc, out, p, dims)
        };
        with_copy_handle(&dev, |hc| {
            load(hc, first, &mut slots[0])?;
            for (t, &tile) in tiles.iter().enumerate() {
                let (now, other) = split_pair(&mut slots, t % 2);
                compute(h, tile, &now.0, &mut now.1)?;
                if let Some(other) = other {
                    if t >= 1 {
                        back(hc, tiles[t - 1], &other.1)?;
                    }
                    if let Some(&next) = tiles.get(t + 1) {
                        load(hc, next, other)?;
                    }
                }
                h.synchronize()?;
            }
            let last = tiles.len() - 1;
            back(hc, tiles[last], &slots[last % 2].1)
        })
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

/// The element `i` (0 or 1) of a one- or two-element vector, mutably, and the other one if
/// there is one.
fn split_pair<S>(v: &mut [S], i: usize) -> (&mut S, Option<&mut S>) {
    let (a, b) = v.split_at_mut(1);
    match (i, b.first_mut()) {
        (0, other) => (&mut a[0], other),
        (_, Some(second)) => (second, Some(&mut a[0])),
        (_, None) => (&mut a[0], None),
    }
}
