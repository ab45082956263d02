//! The CUDA backend of the eigensolvers: the Jacobi kernel (`kernels/eig.cu`), one thread block
//! per matrix, launched per chunk of entries (a list's addresses as a kernel parameter).

use super::plan::{padded_order, EigParams, EigPlan, EigWorkspace};
use super::{Call, Kind};
use crate::common::operand::Results;
use crate::device::{param, DeviceBuffer, Element};
use crate::kernels::{EIG, LIST_MAX};
use crate::memory::{address, WorkspaceSlice};
use crate::{Error, Esort, Evect, Handle, RealScalar, Scalar, Uplo, WorkspaceLease};

/// Mirrors `Eigp` in eig.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Eigp {
    a: u64,
    lda: i64,
    a_s: i64,
    w: u64,
    w_s: i64,
    info: u64,
    sweeps: u64,
    res: u64,
    tol: f64,
    n: i32,
    ne: i32,
    max_sweeps: i32,
    vectors: i32,
    sort: i32,
    lower: i32,
    nan_info: i32,
    pad: i32,
}

/// Where a chunk's results go: the user's device buffer at the chunk's first entry, or the
/// workspace part gathering them for host memory (0: not wanted).
fn destination<R: Element>(
    r: Option<&Results<'_, R>>,
    part: Option<WorkspaceSlice>,
    e0: usize,
) -> u64 {
    match r {
        Some(Results::Device(b)) => {
            b.device_ptr().unwrap_or(0) + (e0 * std::mem::size_of::<R>()) as u64
        }
        Some(Results::Host(_)) => address(part),
        None => 0,
    }
}

/// Copies a chunk's host-routed results out of their workspace part (waits for the stream).
fn read_back<R: Element>(
    h: &Handle,
    r: Option<&mut Results<'_, R>>,
    part: Option<WorkspaceSlice>,
    (e0, ne): (usize, usize),
) -> Result<(), Error> {
    if let Some(Results::Host(dst)) = r {
        h.stream().read_bytes(
            address(part),
            bytemuck::cast_slice_mut(&mut dst[e0..e0 + ne]),
        )?;
    }
    Ok(())
}

/// Runs every entry of `c` through the Jacobi kernel (`n ≤ 64`).
pub(super) fn run<T: Scalar>(
    lease: &WorkspaceLease<'_>,
    c: &mut Call<'_, '_, T>,
    plan: &EigPlan,
    params: &EigParams,
) -> Result<(), Error> {
    let h = lease.handle();
    let stream = h.stream();
    stream.bind()?;
    let ws = EigWorkspace::leased(lease);
    let (n, batch) = (c.n, c.a.count());
    let np = padded_order(n);
    let threads: u32 = if np <= 32 { 32 } else { 256 };
    let elem = std::mem::size_of::<T>();
    let smem = (2 * np * (np + 1) * elem) as u32;
    let list = c.a.view().is_list();
    let func = format!("eig_jacobi{np}{}_{}", if list { "l" } else { "" }, T::TAG);
    let per_launch = if list {
        params.list_chunk.min(LIST_MAX)
    } else {
        params.strided_chunk
    };
    let chunk = plan.entries.min(per_launch).max(1);
    let (tol, max_sweeps, nan_info) = match (&c.kind, &c.jacobi) {
        (Kind::Syevj, Some(j)) => (j.abstol.to_f64(), j.max_sweeps, 1),
        _ => (0.0, params.syevd_sweeps, n + 1),
    };
    let real = std::mem::size_of::<T::Real>();
    let mut job = Eigp {
        lda: c.lda as i64,
        w_s: c.stride_w as i64,
        tol,
        n: n as i32,
        max_sweeps: max_sweeps.min(i32::MAX as usize) as i32,
        vectors: (c.evect == Evect::Original) as i32,
        sort: (c.sort == Esort::Ascending) as i32,
        lower: (c.uplo == Uplo::Lower) as i32,
        nan_info: nan_info.min(i32::MAX as usize) as i32,
        ..Default::default()
    };
    let w_base = device_addr(c.w);
    let mut ptrs: Vec<u64> = Vec::new();
    for e0 in (0..batch).step_by(chunk) {
        let ne = chunk.min(batch - e0);
        let view = c.a.view();
        job.ne = ne as i32;
        job.w = w_base + (e0 * c.stride_w * real) as u64;
        job.info = destination(Some(&c.info), ws.info, e0);
        job.sweeps = destination(c.jacobi.as_ref().map(|j| &j.sweeps), ws.sweeps, e0);
        job.res = destination(c.jacobi.as_ref().map(|j| &j.residual), ws.residual, e0);
        let grid = (ne as u32, 1, 1);
        if list {
            ptrs.clear();
            ptrs.extend((e0..e0 + ne).map(|v| view.entry_addr(v)));
            ptrs.resize(LIST_MAX, 0);
            let addrs = ptrs.as_mut_ptr() as *mut std::ffi::c_void;
            let mut prm = [param(&job), addrs];
            stream.launch_with(&EIG, &func, grid, (threads, smem), false, &mut prm)?;
        } else {
            job.a = view.entry_addr(e0);
            job.a_s = match view {
                crate::common::operand::Batch::Strided { stride, .. } => stride as i64,
                _ => 0,
            };
            let mut prm = [param(&job)];
            stream.launch_with(&EIG, &func, grid, (threads, smem), false, &mut prm)?;
        }
        read_back(h, Some(&mut c.info), ws.info, (e0, ne))?;
        if let Some(j) = c.jacobi.as_mut() {
            read_back(h, Some(&mut j.sweeps), ws.sweeps, (e0, ne))?;
            read_back(h, Some(&mut j.residual), ws.residual, (e0, ne))?;
        }
    }
    Ok(())
}

fn device_addr<R: Element>(b: &DeviceBuffer<R>) -> u64 {
    b.device_ptr().unwrap_or(0)
}
