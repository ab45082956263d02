//! The CUDA backend of the vector updates and rotation set-ups (kernels in
//! `kernels/blas1u.cu`). No workspace: list batches pass their addresses as a kernel
//! parameter, `LIST_MAX` at a time, so every call is capturable.
//!
//! An output increment of 0 (with `n > 1`) chains an entry's steps, so such a call runs
//! reference BLAS's loop on one thread per batch entry: `n` dependent steps at one thread's
//! speed (copy runs only the last step, the one whose value survives). It is a correctness
//! path for a rare call, not a fast one.

use super::update::{Setup, SetupCall, UpdateCall, UpdateKind};
use crate::common::operand::Batch;
use crate::device::{param, Element};
use crate::kernels::{LIST_MAX, UPDATE};
use crate::{Coef, Error, Handle, Scalar};

/// Threads per block of every update kernel (mirrors `THREADS` in kernels/blas1u.cu).
const THREADS: usize = 256;
/// Most entries of a strided batch in one launch (a bound of this runner's launch loop: the
/// updates take no workspace and have no plan to carry it).
const MAX_ENTRIES: usize = 1 << 20;

/// The device address of an operand's entry `e`.
type AddrOf<'a> = Box<dyn Fn(usize) -> u64 + 'a>;

/// Mirrors `UVec` in blas1u.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct UVec {
    base: u64,
    stride: i64,
    inc: i64,
    off0: i64,
}

/// Mirrors `UJob` in blas1u.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct UJob {
    x: UVec,
    y: UVec,
    param: u64,
    param_stride: i64,
    alpha_p: u64,
    c_p: u64,
    alpha_s: i64,
    c_s: i64,
    ar: f64,
    ai: f64,
    cr: f64,
    n: i64,
    e0: i32,
    nent: i32,
    blocks_per: i32,
    list: i32,
    /// Non-zero: one thread per entry runs the steps in order (an output increment of 0).
    seq: i32,
    pad: i32,
}

/// Mirrors `SJob` in blas1u.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct SJob {
    base: [u64; 5],
    stride: [i64; 5],
    nent: i32,
    pad: i32,
}

fn uvec<T: Element>(b: &Batch<'_, T>, e0: usize, n: usize, inc: isize) -> UVec {
    let stride = match b {
        Batch::Strided { stride, .. } => *stride as i64,
        _ => 0,
    };
    UVec {
        base: if b.is_list() { 0 } else { b.entry_addr(e0) },
        stride,
        inc: inc as i64,
        off0: if inc < 0 && n > 0 {
            ((n - 1) * inc.unsigned_abs()) as i64
        } else {
            0
        },
    }
}

fn coef_parts<T: Scalar>(c: &Coef<'_, T>) -> (u64, i64, f64, f64) {
    match c.device() {
        Some((b, per)) => (b.device_ptr().unwrap_or(0), per as i64, 0.0, 0.0),
        None => {
            let (re, im) = c.host().map(|v| v.parts()).unwrap_or((0.0, 0.0));
            (0, 0, re, im)
        }
    }
}

pub(super) fn run<T: Scalar>(h: &Handle, c: &UpdateCall<'_, '_, T>) -> Result<(), Error> {
    let stream = h.stream();
    stream.bind()?;
    let op = match c.kind {
        UpdateKind::Axpy => "axpy",
        UpdateKind::Scal => "scal",
        UpdateKind::Copy => "copy",
        UpdateKind::Swap => "swap",
        UpdateKind::Rot => "rot",
        UpdateKind::Rotm => "rotm",
    };
    let x = c.x.view();
    let y = c.y.as_ref().map(|y| y.view());
    let batch = x.count();
    let list = x.is_list();
    let (alpha_p, alpha_s, ar, ai) = coef_parts(&c.alpha);
    let (c_p, c_s, cr, _) = coef_parts(&c.c);
    let vecw = (16 / std::mem::size_of::<T>()).max(1);
    let ops = 1 + usize::from(y.is_some()) + usize::from(c.param.is_some());
    let chunk = if list { LIST_MAX / ops } else { MAX_ENTRIES };
    let target = h.device().multiprocessor_count() * 32;
    let func = format!("u_{op}_{}{}", T::TAG, if list { "_l" } else { "" });
    let seq = c.sequential();
    let mut ptrs: Vec<u64> = Vec::new();
    for e0 in (0..batch).step_by(chunk) {
        let ne = chunk.min(batch - e0);
        let blocks_per =
            c.n.div_ceil(THREADS * 4 * vecw)
                .clamp(1, (target / ne).max(1));
        let blocks = if seq {
            ne.div_ceil(THREADS)
        } else {
            ne * blocks_per
        };
        let (param_base, param_stride) = match &c.param {
            Some(p @ Batch::Strided { stride, .. }) => (p.entry_addr(e0), *stride as i64),
            Some(p) if !p.is_list() => (p.entry_addr(0), 0),
            _ => (0, 0),
        };
        let job = UJob {
            x: uvec(&x, e0, c.n, c.incx),
            y: y.as_ref()
                .map(|y| uvec(y, e0, c.n, c.incy))
                .unwrap_or_default(),
            param: param_base,
            param_stride,
            alpha_p,
            c_p,
            alpha_s,
            c_s,
            ar,
            ai,
            cr,
            n: c.n as i64,
            e0: e0 as i32,
            nent: ne as i32,
            blocks_per: blocks_per as i32,
            list: list as i32,
            seq: seq as i32,
            pad: 0,
        };
        let grid = u32::try_from(blocks).map_err(|_| {
            Error::InvalidSize(format!("{}: batch too large for one launch", c.name))
        })?;
        if list {
            ptrs.clear();
            ptrs.extend((e0..e0 + ne).map(|e| x.entry_addr(e)));
            if let Some(y) = &y {
                ptrs.extend((e0..e0 + ne).map(|e| y.entry_addr(e)));
            }
            if let Some(p) = &c.param {
                ptrs.extend((e0..e0 + ne).map(|e| p.entry_addr(e)));
            }
            ptrs.resize(LIST_MAX, 0);
            let l = ptrs.as_mut_ptr() as *mut std::ffi::c_void;
            stream.launch(&UPDATE, &func, grid, THREADS as u32, &mut [param(&job), l])?;
        } else {
            stream.launch(&UPDATE, &func, grid, THREADS as u32, &mut [param(&job)])?;
        }
    }
    Ok(())
}

pub(super) fn setup<T: Scalar>(h: &Handle, c: &SetupCall<'_, '_, T>) -> Result<(), Error> {
    let stream = h.stream();
    stream.bind()?;
    let op = match c.kind {
        Setup::Rotg => "rotg",
        Setup::Rotmg => "rotmg",
    };
    // Slots as the kernels read them: rotg a, b, s, c; rotmg d1, d2, x1, param, y1.
    let mut slots: Vec<(i64, AddrOf<'_>)> = Vec::new();
    for (_, b) in &c.ops {
        let v = b.view();
        let stride = if let Batch::Strided { stride, .. } = v {
            stride as i64
        } else {
            0
        };
        slots.push((stride, Box::new(move |e| v.entry_addr(e))));
    }
    if let Some(r) = &c.real {
        let v = r.view();
        let stride = if let Batch::Strided { stride, .. } = v {
            stride as i64
        } else {
            0
        };
        slots.push((stride, Box::new(move |e| v.entry_addr(e))));
    }
    if let Some(i) = &c.input {
        let v = *i;
        let stride = if let Batch::Strided { stride, .. } = v {
            stride as i64
        } else {
            0
        };
        slots.push((stride, Box::new(move |e| v.entry_addr(e))));
    }
    let batch = c.ops[0].1.count();
    let list = c.ops[0].1.view().is_list();
    let chunk = if list {
        LIST_MAX / slots.len()
    } else {
        MAX_ENTRIES
    };
    let func = format!("u_{op}_{}{}", T::TAG, if list { "_l" } else { "" });
    let mut ptrs: Vec<u64> = Vec::new();
    for e0 in (0..batch).step_by(chunk) {
        let ne = chunk.min(batch - e0);
        let mut job = SJob {
            nent: ne as i32,
            ..Default::default()
        };
        for (k, (stride, addr)) in slots.iter().enumerate() {
            job.stride[k] = *stride;
            job.base[k] = if list { 0 } else { addr(e0) };
        }
        let grid = ne.div_ceil(THREADS) as u32;
        if list {
            ptrs.clear();
            for (_, addr) in &slots {
                ptrs.extend((e0..e0 + ne).map(addr));
            }
            ptrs.resize(LIST_MAX, 0);
            let l = ptrs.as_mut_ptr() as *mut std::ffi::c_void;
            stream.launch(&UPDATE, &func, grid, THREADS as u32, &mut [param(&job), l])?;
        } else {
            stream.launch(&UPDATE, &func, grid, THREADS as u32, &mut [param(&job)])?;
        }
    }
    Ok(())
}
