//! The CUDA backend of the Level-1 reductions: builds the kernels' job descriptions and
//! launches them on the handle's stream (kernels in `kernels/blas1.cu`).

use super::{
    Batch, Blas1Elem, Blas1Out, Blas1Workspace, Call, Kind, Plan, Results, BLOCK, LIST_MAX,
};
use crate::device::{param, Element};
use crate::kernels::{KernelModule, ASUM, DOT, IAMAX, NRM2};
use crate::memory::{address, WorkspaceSlice};
use crate::{Error, Handle};

/// Mirrors `VecArg` in blas1.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct VecArg {
    base: u64,
    stride: i64,
    inc: i64,
    off0: i64,
}

/// Mirrors `Job` in blas1.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Job {
    x: VecArg,
    y: VecArg,
    n: i64,
    part: u64,
    out: u64,
    xlist: u64,
    ylist: u64,
    g: i32,
    nvec: i32,
}

fn module(kind: Kind) -> &'static KernelModule {
    match kind {
        Kind::Asum => &ASUM,
        Kind::Nrm2 => &NRM2,
        Kind::Dot | Kind::Dotc => &DOT,
        Kind::Iamax | Kind::Iamin => &IAMAX,
    }
}

fn vec_arg<E: Element>(b: &Batch<'_, E>, v0: usize, n: usize, inc: isize) -> VecArg {
    let size = std::mem::size_of::<E>() as u64;
    let (base, stride) = match b {
        Batch::Single(buf) => (buf.device_ptr().unwrap_or(0), 0),
        Batch::List(_) => (0, 0),
        Batch::Strided { buf, stride, .. } => (
            buf.device_ptr().unwrap_or(0) + (v0 * stride) as u64 * size,
            *stride as i64,
        ),
    };
    VecArg {
        base,
        stride,
        inc: inc as i64,
        off0: if inc < 0 && n > 0 {
            ((n - 1) * inc.unsigned_abs()) as i64
        } else {
            0
        },
    }
}

/// How a launch finds its vectors.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Addressing {
    /// Base + stride (single and strided-batched).
    Strided,
    /// A list's addresses as a kernel parameter, `LIST_MAX` at a time (capturable, no table).
    Params,
    /// A list's addresses in a table in the workspace, one launch for the whole batch.
    Table,
}

pub(super) fn run<E: Blas1Elem, R: Blas1Out>(
    h: &Handle,
    ws: &Blas1Workspace<Option<WorkspaceSlice>>,
    c: &Call<'_, E, R>,
    plan: Plan,
    addrs: &[u64],
) -> Result<(), Error> {
    let stream = h.stream();
    stream.bind()?;
    let m = module(c.kind);
    let part = address(ws.partials);
    let out_base = match &c.out {
        Results::Host(_) => address(ws.host_results),
        Results::Device(b) => b.device_ptr().unwrap_or(0),
    };
    let out_size = std::mem::size_of::<R>() as u64;
    let batch = c.x.count();
    let two = c.y.is_some();
    let table = address(ws.addr_table);
    // A pageable host-to-device copy cannot be captured into a graph: under capture a list
    // passes its addresses as kernel parameters instead.
    let addressing = if !c.x.is_list() {
        Addressing::Strided
    } else if plan.workspace.addr_table > 0 && !stream.is_capturing()? {
        stream.write_bytes(table, bytemuck::cast_slice(addrs))?;
        Addressing::Table
    } else {
        Addressing::Params
    };
    let (chunk, suffix) = match addressing {
        Addressing::Strided => (plan.chunk, ""),
        Addressing::Table => (plan.chunk, "a"),
        Addressing::Params => ((LIST_MAX / if two { 2 } else { 1 }).min(plan.chunk), "l"),
    };
    let p1 = format!("{}_p1{suffix}", c.tag);
    let p2 = format!("{}_p2{suffix}", c.tag);
    let mut ptrs: Vec<u64> = Vec::new();
    for v0 in (0..batch).step_by(chunk) {
        let nvec = chunk.min(batch - v0);
        let y = match &c.y {
            Some((y, incy)) => vec_arg(y, v0, c.n, *incy),
            None => VecArg::default(),
        };
        let job = Job {
            x: vec_arg(&c.x, v0, c.n, c.incx),
            y,
            n: c.n as i64,
            part,
            out: out_base + v0 as u64 * out_size,
            xlist: table + 8 * v0 as u64,
            ylist: table + 8 * (batch + v0) as u64,
            g: plan.g as i32,
            nvec: nvec as i32,
        };
        let grid = (plan.g * nvec) as u32;
        if addressing == Addressing::Params {
            // x addresses then y addresses, as checked (F7) and collected by the operand
            // checks (`Reduction::check_operands`); the kernel reads the whole fixed-size list
            // parameter.
            ptrs.clear();
            ptrs.extend_from_slice(&addrs[v0..v0 + nvec]);
            if two {
                ptrs.extend_from_slice(&addrs[batch + v0..batch + v0 + nvec]);
            }
            ptrs.resize(LIST_MAX, 0);
            let list = ptrs.as_mut_ptr() as *mut std::ffi::c_void;
            stream.launch(m, &p1, grid, BLOCK as u32, &mut [param(&job), list])?;
            if plan.g > 1 {
                stream.launch(m, &p2, nvec as u32, BLOCK as u32, &mut [param(&job), list])?;
            }
        } else {
            stream.launch(m, &p1, grid, BLOCK as u32, &mut [param(&job)])?;
            if plan.g > 1 {
                stream.launch(m, &p2, nvec as u32, BLOCK as u32, &mut [param(&job)])?;
            }
        }
    }
    Ok(())
}

/// Copies host results out of their part of the workspace (waits for the stream).
pub(super) fn read_results<R: Element>(
    h: &Handle,
    host_results: Option<WorkspaceSlice>,
    dst: &mut [R],
) -> Result<(), Error> {
    h.stream()
        .read_bytes(address(host_results), bytemuck::cast_slice_mut(dst))
}
