//! NCCL between the GPUs of one process: a communicator per device (`ncclCommInitAll`), and
//! block copies between devices as grouped point-to-point sends and receives, each on its
//! device's stream.

use std::ffi::c_void;

use cudarc::nccl::{result, sys};

use super::{Device, DeviceKind, Stream, StreamKind};
use crate::Error;

/// One communicator per device of a group, rank `r` on device `r`.
pub(crate) struct NcclWorld {
    comms: Vec<sys::ncclComm_t>,
}

// SAFETY: NCCL communicators may be used from any thread as long as calls on one are not made
// concurrently; the group that owns the world drives it from one thread at a time (`&mut`).
unsafe impl Send for NcclWorld {}

/// One block copy between two ranks: `height` columns of `width` bytes, `pitch` bytes apart
/// on each side.
pub(crate) struct NcclCopy<'a> {
    pub from: usize,
    pub to: usize,
    pub src: u64,
    pub src_pitch: usize,
    pub src_stream: &'a Stream,
    pub dst: u64,
    pub dst_pitch: usize,
    pub dst_stream: &'a Stream,
    pub width: usize,
    pub height: usize,
}

fn nccl_error(op: &str) -> impl Fn(result::NcclError) -> Error + '_ {
    move |e| Error::driver(op, format!("{e:?}"))
}

fn raw_stream(s: &Stream) -> Result<sys::cudaStream_t, Error> {
    match &s.0 {
        StreamKind::Cuda(cs, _) => Ok(cs.cu_stream() as sys::cudaStream_t),
        StreamKind::Host { .. } => Err(Error::Unsupported("NCCL on a host stream".into())),
    }
}

impl NcclWorld {
    /// A world over `devices`: `None` when they are not distinct GPUs (host devices, or one
    /// GPU named twice, which NCCL refuses); `LibraryMissing` when NCCL cannot be loaded.
    pub(crate) fn new(devices: &[Device]) -> Result<Option<NcclWorld>, Error> {
        let mut ordinals = Vec::with_capacity(devices.len());
        for d in devices {
            match &d.0 {
                DeviceKind::Cuda(c) => ordinals.push(c.ordinal as i32),
                DeviceKind::Host(_) => return Ok(None),
            }
        }
        let mut sorted = ordinals.clone();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.len() != ordinals.len() {
            return Ok(None);
        }
        super::libs::ensure_nccl()?;
        let mut comms: Vec<sys::ncclComm_t> = vec![std::ptr::null_mut(); ordinals.len()];
        // SAFETY: `comms` has one slot per device of `ordinals`, which NCCL fills.
        unsafe {
            result::comm_init_all(comms.as_mut_ptr(), ordinals.len() as i32, ordinals.as_ptr())
        }
        .map_err(nccl_error("ncclCommInitAll"))?;
        Ok(Some(NcclWorld { comms }))
    }

    /// Makes every copy of `copies` (between distinct ranks) in one NCCL group: the send on
    /// the source's stream, the receive on the destination's, each column its own pair
    /// unless both sides are contiguous. The caller has checked every range.
    pub(crate) fn copy(&self, copies: &[NcclCopy<'_>]) -> Result<(), Error> {
        result::group_start().map_err(nccl_error("ncclGroupStart"))?;
        let mut outcome = Ok(());
        'all: for c in copies {
            let contiguous = c.src_pitch == c.width && c.dst_pitch == c.width;
            let (pieces, bytes) = if contiguous {
                (1, c.width * c.height)
            } else {
                (c.height, c.width)
            };
            let (src_stream, dst_stream) =
                match (raw_stream(c.src_stream), raw_stream(c.dst_stream)) {
                    (Ok(s), Ok(d)) => (s, d),
                    (Err(e), _) | (_, Err(e)) => {
                        outcome = Err(e);
                        break;
                    }
                };
            for piece in 0..pieces {
                let src = c.src + (piece * c.src_pitch) as u64;
                let dst = c.dst + (piece * c.dst_pitch) as u64;
                // SAFETY: both ranges lie in device memory of their ranks (checked by the
                // caller) and stay allocated until the streams have passed the copy.
                let r = unsafe {
                    result::send(
                        src as *const c_void,
                        bytes,
                        sys::ncclDataType_t::ncclUint8,
                        c.to as i32,
                        self.comms[c.from],
                        src_stream,
                    )
                    .and_then(|_| {
                        result::recv(
                            dst as *mut c_void,
                            bytes,
                            sys::ncclDataType_t::ncclUint8,
                            c.from as i32,
                            self.comms[c.to],
                            dst_stream,
                        )
                    })
                };
                if let Err(e) = r {
                    outcome = Err(nccl_error("ncclSend/ncclRecv")(e));
                    break 'all;
                }
            }
        }
        let ended = result::group_end().map_err(nccl_error("ncclGroupEnd"));
        outcome.and(ended.map(|_| ()))
    }
}

impl Drop for NcclWorld {
    fn drop(&mut self) {
        for &c in &self.comms {
            // SAFETY: each communicator was made by ncclCommInitAll and is destroyed once;
            // ncclCommDestroy waits for the communicator's work in flight.
            let _ = unsafe { result::comm_destroy(c) };
        }
    }
}
