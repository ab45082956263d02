//! How tiles move between the devices of a group: a `Collective` behind one trait, so every
//! distributed algorithm runs unchanged on host devices (in-process copies, which CI tests)
//! and on GPUs.

use crate::device::{copy_block, DeviceBuffer, Element, Stream};
use crate::Error;

/// The root's block of a broadcast, read in the order of its device's stream.
pub(crate) struct Source<'a, T> {
    pub stream: &'a Stream,
    pub buffer: &'a DeviceBuffer<T>,
    /// First element and column stride of the block.
    pub at: usize,
    pub ld: usize,
}

/// One receiving device's part of a broadcast: a column-major block of a buffer on that
/// device, written in the order of that device's stream.
pub(crate) struct Part<'a, T> {
    pub stream: &'a Stream,
    pub buffer: &'a mut DeviceBuffer<T>,
    /// First element and column stride of the block.
    pub at: usize,
    pub ld: usize,
}

/// The collective operations the distributed routines use. Every call is made once by the one
/// thread that drives the group, naming every device's part (the single-process model of
/// cuSOLVERMg and of NCCL's grouped calls).
pub(crate) trait Collective: Send {
    /// Copies the `shape = (rows, cols)` block of `root` into every part of `to`, each landing
    /// in its own stream's order after the root's work so far; the root's later work waits for
    /// the copies.
    fn broadcast<T: Element>(
        &self,
        shape: (usize, usize),
        root: &Source<'_, T>,
        to: &mut [Part<'_, T>],
    ) -> Result<(), Error>;
}

/// Copies through the device layer: memcpy on host devices, peer copies between GPUs of one
/// process (ordered by events between the devices' streams).
pub(crate) struct InProcess;

/// The collectives a group can use (NCCL's joins when the CUDA side lands).
pub(crate) enum Comm {
    InProcess(InProcess),
}

impl Collective for Comm {
    fn broadcast<T: Element>(
        &self,
        shape: (usize, usize),
        root: &Source<'_, T>,
        to: &mut [Part<'_, T>],
    ) -> Result<(), Error> {
        match self {
            Comm::InProcess(c) => c.broadcast(shape, root, to),
        }
    }
}

impl Collective for InProcess {
    fn broadcast<T: Element>(
        &self,
        shape: (usize, usize),
        root: &Source<'_, T>,
        to: &mut [Part<'_, T>],
    ) -> Result<(), Error> {
        if shape.0 == 0 || shape.1 == 0 {
            return Ok(());
        }
        for part in to.iter_mut() {
            part.stream.wait_for(root.stream)?;
            copy_block(
                part.stream,
                shape,
                root.buffer,
                (root.at, root.ld),
                part.buffer,
                (part.at, part.ld),
            )?;
        }
        for part in to.iter() {
            root.stream.wait_for(part.stream)?;
        }
        Ok(())
    }
}
