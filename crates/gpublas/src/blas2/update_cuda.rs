//! The CUDA backend of the rank updates: builds the kernels' job description and launches
//! them on the handle's stream (kernels in `kernels/blas2u.cu`).

use super::update::{Alpha, UpdCall, UpdKind, UpdPlan, UpdShape, THREADS};
use crate::common::operand::Batch;
use crate::device::{param, Element};
use crate::kernels::{LIST_MAX, RANKUPD};
use crate::memory::{address, WorkspaceSlice};
use crate::{Coef, Error, Handle, Scalar, Uplo};

/// Mirrors `UVec` in blas2u.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct UVec {
    base: u64,
    stride: i64,
    inc: i64,
    off0: i64,
}

/// Mirrors `RJob` in blas2u.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct RJob {
    a: u64,
    a_stride: i64,
    lda: i64,
    x: UVec,
    y: UVec,
    tab: u64,
    alpha_p: u64,
    alpha_s: i64,
    ar: f64,
    ai: f64,
    m: i64,
    n: i64,
    e0: i64,
    nent: i32,
    flags: i32,
    tr: i32,
    tc: i32,
    cpl: i32,
    tri: i32,
    rowtiles: i32,
    coltiles: i32,
    group: i32,
    pad: i32,
}

const F_CONJ: i32 = 1;
const F_HERM: i32 = 2;
const F_LOWER: i32 = 4;
const F_PACKED: i32 = 8;
const F_REAL: i32 = 16;

/// Address and element stride of entry `e0` of a batch operand (0 for lists: the table).
fn base_of<T: Element>(b: &Batch<'_, T>, e0: usize) -> (u64, i64) {
    match b {
        Batch::List(_) => (0, 0),
        Batch::Single(_) => (b.entry_addr(0), 0),
        Batch::Strided { stride, .. } => (b.entry_addr(e0), *stride as i64),
    }
}

fn uvec<T: Element>(b: &Batch<'_, T>, e0: usize, len: usize, inc: isize) -> UVec {
    let (base, stride) = base_of(b, e0);
    UVec {
        base,
        stride,
        inc: inc as i64,
        off0: if inc < 0 && len > 0 {
            ((len - 1) * inc.unsigned_abs()) as i64
        } else {
            0
        },
    }
}

/// A scalar for the job: a device pointer with its per-entry stride, or the value.
fn coef<T: Scalar>(c: &Coef<'_, T>) -> (u64, i64, f64, f64) {
    match c.device() {
        Some((buf, per)) => (buf.device_ptr().unwrap_or(0), per as i64, 0.0, 0.0),
        None => {
            let (re, im) = c.host().map(|v| v.parts()).unwrap_or((0.0, 0.0));
            (0, 0, re, im)
        }
    }
}

pub(super) fn run<T: Scalar>(
    h: &Handle,
    c: &UpdCall<'_, '_, T>,
    shape: &UpdShape,
    plan: &UpdPlan,
    table: Option<WorkspaceSlice>,
    addrs: &[u64],
) -> Result<(), Error> {
    let stream = h.stream();
    stream.bind()?;
    let g = shape.geom();
    let batch = c.a.count();
    let list = c.x.is_list();
    let table = address(table);
    let (rows, n) = (c.rows(), c.n);
    let mut flags = 0;
    if c.conj {
        flags |= F_CONJ;
    }
    if c.herm {
        flags |= F_HERM;
    }
    if c.uplo == Uplo::Lower && c.kind != UpdKind::Ger {
        flags |= F_LOWER;
    }
    if c.packed {
        flags |= F_PACKED;
    }
    let (alpha_p, alpha_s, ar, ai) = match &c.alpha {
        Alpha::Full(a) => coef(a),
        Alpha::Real(a) => {
            if a.device().is_some() {
                flags |= F_REAL;
            }
            coef(a)
        }
    };
    // A packed triangle of more than one row tile has kernels of its own (their pieces follow
    // each column's alignment).
    let packed_tiles = c.packed && g.tri;
    // rank_packed's warps are its column lanes: square tiles of 32 threads down a column.
    debug_assert!(!packed_tiles || (g.tr == 32 && g.tc == 8), "{g:?}");
    let func = format!(
        "u2_{}_{}",
        match (c.kind, packed_tiles) {
            (UpdKind::Ger, _) => "ger",
            (UpdKind::Syr, false) => "syr",
            (UpdKind::Syr2, false) => "syr2",
            (UpdKind::Syr, true) => "spr",
            (UpdKind::Syr2, true) => "spr2",
        },
        T::TAG
    );
    let a_view = c.a.view();
    let ops = if c.y.is_some() { 3 } else { 2 };
    let mut ptrs: Vec<u64> = Vec::new();
    for e0 in (0..batch).step_by(plan.chunk.max(1)) {
        let ne = plan.chunk.min(batch - e0);
        if list {
            // The chunk's addresses, [A][x][y], into the table by kernels (capturable).
            let mut chunk_addrs = Vec::with_capacity(ne * ops);
            for k in 0..ops {
                chunk_addrs.extend_from_slice(&addrs[k * batch + e0..k * batch + e0 + ne]);
            }
            for (i, part) in chunk_addrs.chunks(LIST_MAX).enumerate() {
                ptrs.clear();
                ptrs.extend_from_slice(part);
                ptrs.resize(LIST_MAX, 0);
                let dst = table + (i * LIST_MAX * 8) as u64;
                let count = part.len() as i32;
                let l = ptrs.as_mut_ptr() as *mut std::ffi::c_void;
                stream.launch(
                    &RANKUPD,
                    "u2_fill",
                    1,
                    THREADS as u32,
                    &mut [param(&dst), param(&count), l],
                )?;
            }
        }
        let (a_base, a_stride) = base_of(&a_view, e0);
        let lda = if c.packed { 0 } else { c.lda as i64 };
        let job = RJob {
            a: a_base,
            a_stride,
            lda,
            x: uvec(&c.x, e0, rows, c.incx),
            y: c.y
                .as_ref()
                .map(|y| uvec(y, e0, n, c.incy))
                .unwrap_or_default(),
            tab: if list { table } else { 0 },
            alpha_p,
            alpha_s,
            ar,
            ai,
            m: rows as i64,
            n: n as i64,
            e0: e0 as i64,
            nent: ne as i32,
            flags,
            tr: g.tr as i32,
            tc: g.tc as i32,
            cpl: g.cpl as i32,
            tri: g.tri as i32,
            rowtiles: g.rowtiles as i32,
            coltiles: g.coltiles as i32,
            group: g.group as i32,
            pad: 0,
        };
        let blocks = ne
            .checked_mul(g.tiles)
            .map(|t| t.div_ceil(g.group))
            .and_then(|b| u32::try_from(b).ok())
            .filter(|&b| b <= i32::MAX as u32)
            .ok_or_else(|| {
                Error::InvalidSize(format!(
                    "{}: {ne} entries of {} blocks exceed one launch",
                    c.name, g.tiles
                ))
            })?;
        stream.launch(&RANKUPD, &func, blocks, THREADS as u32, &mut [param(&job)])?;
    }
    Ok(())
}
