//! How tiles move between the devices of a group: a `Collective` behind one trait, so every
//! distributed algorithm runs unchanged on host devices (in-process copies, which CI tests)
//! and on GPUs.

use crate::device::nccl::{NcclCopy, NcclWorld};
use crate::device::{block_address, copy_block, DeviceBuffer, Element, Stream};
use crate::Error;

/// The root's block of a broadcast, read in the order of its device's stream.
pub(crate) struct Source<'a, T> {
    /// The root's index in the group.
    pub rank: usize,
    pub stream: &'a Stream,
    pub buffer: &'a DeviceBuffer<T>,
    /// First element and column stride of the block.
    pub at: usize,
    pub ld: usize,
}

/// One receiving device's part of a broadcast: a column-major block of a buffer on that
/// device, written in the order of that device's stream.
pub(crate) struct Part<'a, T> {
    /// The receiver's index in the group.
    pub rank: usize,
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

/// NCCL between distinct GPUs: the root sends to each receiver (grouped point-to-point
/// copies, each on its device's stream; the root's own part is a copy on its stream).
pub(crate) struct Nccl(pub NcclWorld);

impl Collective for Nccl {
    fn broadcast<T: Element>(
        &self,
        shape: (usize, usize),
        root: &Source<'_, T>,
        to: &mut [Part<'_, T>],
    ) -> Result<(), Error> {
        let Some(src) = block_address(root.buffer, (root.at, root.ld), shape)? else {
            return Ok(());
        };
        let size = std::mem::size_of::<T>();
        let mut copies = Vec::with_capacity(to.len());
        for part in to.iter_mut() {
            if part.rank == root.rank {
                copy_block(
                    part.stream,
                    shape,
                    root.buffer,
                    (root.at, root.ld),
                    part.buffer,
                    (part.at, part.ld),
                )?;
                continue;
            }
            let Some(dst) = block_address(part.buffer, (part.at, part.ld), shape)? else {
                continue;
            };
            root.buffer.mark_used(root.stream);
            part.buffer.mark_used(part.stream);
            copies.push(NcclCopy {
                from: root.rank,
                to: part.rank,
                src,
                src_pitch: root.ld * size,
                src_stream: root.stream,
                dst,
                dst_pitch: part.ld * size,
                dst_stream: part.stream,
                width: shape.0 * size,
                height: shape.1,
            });
        }
        if copies.is_empty() {
            return Ok(());
        }
        self.0.copy(&copies)
    }
}

/// The collectives a group can use.
pub(crate) enum Comm {
    InProcess(InProcess),
    Nccl(Nccl),
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
            Comm::Nccl(c) => c.broadcast(shape, root, to),
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
