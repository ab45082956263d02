//! The CUDA transfer engine: one copy where both sides are contiguous, 2-D copies for wide
//! columns, the workspace and a scatter/gather kernel for a strided device side, and the
//! handle's pinned staging slots for a host side that must be packed.

use rayon::prelude::*;

use super::layout::{pack, unpack, Side};
use super::{Call, Dir, HostMem, TransferParams};
use crate::device::{host_slice_at, param, Copy2d, Element, Loc, PinnedBuffer, Stream};
use crate::{Error, Handle};

/// Threads per block of the scatter and gather kernels (mirrors `THREADS` in
/// kernels/transfer.cu).
const THREADS: usize = 256;

/// Whether an asynchronous form (page-locked host side) packs on the host: a host side that is
/// not contiguous and whose columns are too narrow for 2-D copies.
pub(super) fn needs_host_packing<T: Element>(c: &Call<'_, T>) -> bool {
    !c.host_side.contiguous() && !c.params.columns_2d(c.host_side, std::mem::size_of::<T>())
}

#[repr(C)]
struct TJob {
    chunk: u64,
    base: u64,
    k0: u64,
    words: u64,
    rows: u64,
    cols: u64,
    ld: u64,
    per: u64,
    reverse: i32,
}

/// Scatters (`gather == false`: workspace → device side) or gathers `len` elements from
/// logical element `k0` on.
fn kernel(
    h: &Handle,
    gather: bool,
    elem: usize,
    ws: u64,
    dev: u64,
    side: Side,
    (k0, len): (usize, usize),
) -> Result<(), Error> {
    let word = [16usize, 8, 4, 2, 1]
        .into_iter()
        .find(|w| elem % w == 0)
        .unwrap_or(1);
    let per = elem / word;
    let job = TJob {
        chunk: ws,
        base: dev,
        k0: k0 as u64,
        words: (len * per) as u64,
        rows: side.rows as u64,
        cols: side.cols as u64,
        ld: side.ld as u64,
        per: per as u64,
        reverse: side.reverse as i32,
    };
    let blocks = (len * per).div_ceil(THREADS).max(1);
    let grid = blocks.min(h.device().multiprocessor_count() * 32) as u32;
    let func = format!("tr_{}_{word}", if gather { "gather" } else { "scatter" });
    h.stream().launch(
        &crate::kernels::TRANSFER,
        &func,
        grid,
        THREADS as u32,
        &mut [param(&job)],
    )
}

/// The next piece `[k0, k1)`: at most `max` elements; with wide columns whole columns, or a
/// piece of one column when a column alone is larger.
fn next(k0: usize, n: usize, max: usize, rows: usize, whole_cols: bool) -> usize {
    let max = max.max(1);
    if whole_cols {
        if rows <= max {
            return (k0 + max / rows * rows).min(n);
        }
        return (k0 + max).min((k0 / rows + 1) * rows).min(n);
    }
    (k0 + max).min(n)
}

struct Ctx<'a> {
    h: &'a Handle,
    elem: usize,
    dir: Dir,
    ds: Side,
    dev: u64,
    ws: Option<(u64, usize)>,
    wide: bool,
    params: TransferParams,
}

impl Ctx<'_> {
    fn s(&self) -> &Stream {
        self.h.stream()
    }

    fn ws(&self) -> Result<(u64, usize), Error> {
        self.ws.ok_or_else(|| {
            Error::driver(
                "transfer",
                "a strided device side without a workspace chunk",
            )
        })
    }

    /// Elements per piece through the workspace.
    fn ws_elems(&self) -> Result<usize, Error> {
        Ok((self.ws()?.1 / self.elem).max(1))
    }

    /// Moves the contiguous run at host address `host` (elements `[k0, k1)`) to or from the
    /// device side.
    fn device_piece(&self, host: usize, k0: usize, k1: usize) -> Result<(), Error> {
        let (e, ds, len) = (self.elem, self.ds, k1 - k0);
        let at = |k: usize| self.dev + (ds.index(k) * e) as u64;
        if ds.contiguous() || (self.wide && k0 / ds.rows == (k1 - 1) / ds.rows) {
            // One run on the device too (a contiguous side, or a piece of one wide column).
            return match self.dir {
                Dir::Set => self
                    .s()
                    .copy_raw(Loc::Dev(at(k0)), Loc::Host(host), len * e),
                Dir::Get => self
                    .s()
                    .copy_raw(Loc::Host(host), Loc::Dev(at(k0)), len * e),
            };
        }
        if self.wide {
            let (w, ld) = (ds.rows * e, ds.ld * e);
            let (d, hp) = (Loc::Dev(at(k0)), Loc::Host(host));
            let (src, src_pitch, dst, dst_pitch) = match self.dir {
                Dir::Set => (hp, w, d, ld),
                Dir::Get => (d, ld, hp, w),
            };
            return self.s().copy_2d(&Copy2d {
                src,
                src_pitch,
                dst,
                dst_pitch,
                width: w,
                height: len / ds.rows,
            });
        }
        let (ws, _) = self.ws()?;
        match self.dir {
            Dir::Set => {
                self.s().copy_raw(Loc::Dev(ws), Loc::Host(host), len * e)?;
                kernel(self.h, false, e, ws, self.dev, ds, (k0, len))
            }
            Dir::Get => {
                kernel(self.h, true, e, ws, self.dev, ds, (k0, len))?;
                self.s().copy_raw(Loc::Host(host), Loc::Dev(ws), len * e)
            }
        }
    }
}

/// Runs a checked call (CUDA; the stream's context is bound). Synchronous forms return when
/// the copy has finished; asynchronous ones mark their pinned buffer used.
pub(super) fn run<T: Element>(
    h: &Handle,
    c: &mut Call<'_, T>,
    ws: Option<(u64, usize)>,
    staging: &mut Vec<PinnedBuffer<u8>>,
) -> Result<(), Error> {
    let elem = std::mem::size_of::<T>();
    let (hs, ds) = (c.host_side, c.dev_side);
    let n = ds.count();
    let host = match &c.host {
        HostMem::Slice(s) => s.as_ptr() as usize,
        HostMem::SliceMut(s) => s.as_ptr() as usize,
        HostMem::Pinned(p) => p.addr(),
        HostMem::PinnedMut(p) => p.addr(),
    };
    let ctx = Ctx {
        h,
        elem,
        dir: c.dir,
        ds,
        dev: c.dev.buf().device_ptr().unwrap_or(0),
        ws,
        wide: c.params.wide(ds, elem),
        params: c.params,
    };
    let is_async = c.async_form();
    // The user's memory only needs to be page-locked for direct 2-D copies.
    let col2d = c.params.columns_2d(ds, elem);
    let direct_ok = is_async || (col2d && h.device().is_pinned(host));
    let contiguous = hs.contiguous() && ds.contiguous();
    // A large contiguous run in pageable memory: staged (the last branch).
    let stage_pageable = contiguous
        && !is_async
        && n.saturating_mul(elem) >= c.params.staged_contiguous_bytes
        && !h.device().is_pinned(host);
    let r = if contiguous && !stage_pageable {
        ctx.device_piece(host, 0, n)
    } else if col2d && direct_ok && (ctx.wide || !hs.contiguous()) {
        // Page-locked memory and columns of 64 bytes or more: 2-D copies both ways (a contiguous
        // host side with a narrow strided device side goes through the workspace instead).
        let (w, e) = (ds.rows * elem, elem);
        let (hp, dp) = (Loc::Host(host), Loc::Dev(ctx.dev));
        let (src, src_pitch, dst, dst_pitch) = match c.dir {
            Dir::Set => (hp, hs.ld * e, dp, ds.ld * e),
            Dir::Get => (dp, ds.ld * e, hp, hs.ld * e),
        };
        h.stream().copy_2d(&Copy2d {
            src,
            src_pitch,
            dst,
            dst_pitch,
            width: w,
            height: ds.cols,
        })
    } else if hs.contiguous() && !ctx.wide && !stage_pageable {
        // A contiguous host side and a narrow strided device side: pieces through the workspace.
        let step = ctx.ws_elems()?;
        let mut k0 = 0;
        while k0 < n {
            let k1 = (k0 + step).min(n);
            ctx.device_piece(host + k0 * elem, k0, k1)?;
            k0 = k1;
        }
        Ok(())
    } else {
        // The handle's page-locked staging slots, allocated on first need.
        if staging.is_empty() {
            *staging = (0..ctx.params.slots)
                .map(|_| h.device().alloc_pinned::<u8>(ctx.params.slot_bytes))
                .collect::<Result<Vec<_>, _>>()?;
        }
        if is_async {
            host_fn_pieces(&ctx, c, host, staging)
        } else {
            staged(&ctx, c, staging)
        }
    };
    // Pieces already enqueued use the host memory even when a later one failed: mark (or
    // wait) before any error returns, so the buffer is not freed under them.
    let ordered = match c.host.pinned() {
        Some(p) => p.mark_used(h.stream()),
        None => h.stream().synchronize(),
    };
    r?;
    ordered
}

/// Elements per staged piece.
fn staged_max(ctx: &Ctx<'_>) -> Result<usize, Error> {
    let slot = ctx.params.slot_bytes / ctx.elem;
    if ctx.ds.contiguous() || ctx.wide {
        Ok(slot.max(1))
    } else {
        Ok(slot.min(ctx.ws_elems()?).max(1))
    }
}

/// The pieces of a staged transfer: rounds of up to `slots / 2` pieces (one half of the
/// slots), small at the start (the copy engine starts early) and at the end (little is left
/// to unpack after the last copy), at most `max` elements.
fn pieces(ctx: &Ctx<'_>, n: usize, max: usize, rows: usize) -> Vec<Vec<(usize, usize)>> {
    let (elem, slots, first) = (ctx.elem, ctx.params.slots, ctx.params.first_piece);
    let (mut rounds, mut k0, mut r) = (Vec::new(), 0, 0usize);
    while k0 < n {
        let mut round = Vec::new();
        while round.len() < slots / 2 && k0 < n {
            let ramp = (first << r.min(8)) / elem;
            let tail = (n - k0) / slots;
            let size = max.min(ramp).min(tail.max(first / elem)).max(1);
            let k1 = next(k0, n, size, rows, ctx.wide);
            round.push((k0, k1));
            k0 = k1;
        }
        rounds.push(round);
        r += 1;
    }
    rounds
}

/// The synchronous forms with a host side that needs packing (or pageable memory with wide
/// columns, or a large contiguous run in pageable memory): a round of pieces is packed (or unpacked) in parallel on the host while the copy
/// engine moves the previous round through the other half of the staging slots.
fn staged<T: Element>(
    ctx: &Ctx<'_>,
    c: &mut Call<'_, T>,
    staging: &[PinnedBuffer<u8>],
) -> Result<(), Error> {
    let (hs, n, p) = (c.host_side, ctx.ds.count(), ctx.params);
    let max = staged_max(ctx)?;
    let rounds = pieces(ctx, n, max, hs.rows);
    let half = ctx.params.slots / 2;
    // Round `r` uses slots `(r % 2) * half ..`.
    let slot = |r: usize, i: usize| (r % 2) * half + i;
    match (&mut c.host, c.dir) {
        (HostMem::Slice(src), Dir::Set) => {
            let src: &[T] = src;
            for (r, round) in rounds.iter().enumerate() {
                let views: Vec<(usize, usize, usize)> = round
                    .iter()
                    .enumerate()
                    .map(|(i, &(a, b))| {
                        staging[slot(r, i)].wait();
                        (staging[slot(r, i)].addr(), a, b)
                    })
                    .collect();
                views.par_iter().for_each(|&(addr, a, b)| {
                    pack(&p, src, hs, a, host_slice_at::<T>(addr, b - a));
                });
                for (i, &(addr, a, b)) in views.iter().enumerate() {
                    ctx.device_piece(addr, a, b)?;
                    staging[slot(r, i)].mark_used(ctx.s())?;
                }
            }
            Ok(())
        }
        (HostMem::SliceMut(dst), Dir::Get) => {
            let dst: &mut [T] = dst;
            let unpack_round = |r: usize, dst: &mut [T]| {
                let round = &rounds[r];
                for i in 0..round.len() {
                    staging[slot(r, i)].wait();
                }
                for (i, &(a, b)) in round.iter().enumerate() {
                    unpack(
                        &p,
                        host_slice_at::<T>(staging[slot(r, i)].addr(), b - a),
                        hs,
                        a,
                        dst,
                    );
                }
            };
            for (r, round) in rounds.iter().enumerate() {
                for (i, &(a, b)) in round.iter().enumerate() {
                    ctx.device_piece(staging[slot(r, i)].addr(), a, b)?;
                    staging[slot(r, i)].mark_used(ctx.s())?;
                }
                // The previous round's copies ran while this one was enqueued.
                if r > 0 {
                    unpack_round(r - 1, dst);
                }
            }
            if !rounds.is_empty() {
                unpack_round(rounds.len() - 1, dst);
            }
            Ok(())
        }
        _ => Err(Error::driver(
            "transfer",
            "host side does not match the direction",
        )),
    }
}

/// The asynchronous forms with a host side that needs packing: the packing runs on a host
/// thread in stream order, one piece after another through the staging slots.
fn host_fn_pieces<T: Element>(
    ctx: &Ctx<'_>,
    c: &Call<'_, T>,
    host: usize,
    staging: &[PinnedBuffer<u8>],
) -> Result<(), Error> {
    let (hs, n, p) = (c.host_side, ctx.ds.count(), ctx.params);
    let host_len = c.host.len();
    let max = staged_max(ctx)?;
    let (mut k0, mut j) = (0, 0);
    while k0 < n {
        let k1 = next(k0, n, max, hs.rows, ctx.wide);
        let i = j % staging.len();
        let slot = staging[i].addr();
        let len = k1 - k0;
        match c.dir {
            Dir::Set => {
                ctx.s().host_fn(Box::new(move || {
                    let src = host_slice_at::<T>(host, host_len);
                    pack(&p, src, hs, k0, host_slice_at::<T>(slot, len));
                }))?;
                ctx.device_piece(slot, k0, k1)?;
            }
            Dir::Get => {
                ctx.device_piece(slot, k0, k1)?;
                ctx.s().host_fn(Box::new(move || {
                    let dst = host_slice_at::<T>(host, host_len);
                    unpack(&p, host_slice_at::<T>(slot, len), hs, k0, dst);
                }))?;
            }
        }
        staging[i].mark_used(ctx.s())?;
        k0 = k1;
        j += 1;
    }
    Ok(())
}
