//! Level-1 reductions: `asum`, `nrm2`, `dot`, `dotc`, `iamax`, `iamin`, and the mixed-precision
//! `dot_ex` and `nrm2_ex`, each in single, batched (a list of vectors) and strided-batched
//! form, from one generic implementation (SPEC F1).
//!
//! Semantics follow reference BLAS: `n == 0` gives 0; `incx <= 0` gives 0 for `asum`, `nrm2`,
//! `iamax` and `iamin`; `dot` takes negative increments (the vector is walked backwards);
//! `iamax`/`iamin` return 1-based indices of the first extreme `|re| + |im|`, never pick NaN,
//! and return 1 when `x[0]` is NaN. `nrm2` accumulates with Blue's scaling (as LAPACK's
//! `dnrm2`), so it neither overflows nor underflows. `f32` inputs accumulate in `f64`.
//!
//! Partial results live in the handle's workspace, a few per multiprocessor and vector. With
//! a fixed workspace smaller than that, fewer blocks run and the call returns
//! `Status::PerfDegraded` with the same answer.
//!
//! ```
//! use gpublas::{blas1, Device, Handle, Results, Status};
//! let dev = Device::host();
//! let mut h = Handle::new(&dev)?;
//! let x = dev.upload(&[1.0f32, -2.0, 3.0])?;
//! let y = dev.upload(&[4.0f32, 5.0, 6.0])?;
//! let mut r = [0.0f32];
//! assert_eq!(blas1::dot(&mut h, 3, &x, 1, &y, 1, Results::Host(&mut r))?, Status::Success);
//! assert_eq!(r[0], 12.0);
//! # Ok::<(), gpublas::Error>(())
//! ```

mod api;
mod cuda;
mod cuda_update;
mod host;
mod host_update;
mod update;

pub use crate::common::elem::{Blas1Elem, Blas1Out, ExAcc, ExInput, RealScalar, Scalar};
pub use crate::common::operand::Results;
pub use api::*;
pub use update::*;

use crate::common::operand::{check_counts, span_or, vec_span, Batch, Checker};
use crate::common::plan::{drive, Routine, WorkspacePlan};
use crate::device::{Backend, Element};
pub(crate) use crate::kernels::LIST_MAX;
use crate::memory::{round_up, WorkspaceSlice, CHUNK};
use crate::{Error, Handle, Status, WorkspaceLease};

/// Threads per block of every Level-1 kernel (mirrors `BLOCK` in kernels/blas1.cu).
pub(crate) const BLOCK: usize = 256;

/// The reductions' tuning values, in one place beside the plan that uses them. Kernel facts
/// the sources mirror (`BLOCK`, `LIST_MAX`) stay constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Blas1Params {
    /// Elements one block should at least have before a vector is split over more blocks.
    pub min_per_block: usize,
    /// Blocks per multiprocessor the split aims for.
    pub blocks_per_sm: usize,
    /// What the host backend's split counts as multiprocessors: 64 × 8 = 512 blocks, so a long
    /// vector's blocks balance over the host's threads (fixed by the shape, so the bits never
    /// depend on the threads).
    pub host_sms: usize,
    /// Most vectors of a strided batch in one launch (keeps the grid within 2^31 blocks).
    pub strided_max: usize,
}

impl Blas1Params {
    /// The values for the devices gpublas is tuned on.
    pub(crate) fn auto() -> Self {
        Blas1Params {
            min_per_block: 8192,
            blocks_per_sm: 8,
            host_sms: 64,
            strided_max: 1 << 24,
        }
    }
}

/// The reduction a call computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Asum,
    Nrm2,
    Dot,
    Dotc,
    Iamax,
    Iamin,
}

impl Kind {
    fn two(self) -> bool {
        matches!(self, Kind::Dot | Kind::Dotc)
    }

    /// Bytes of one block's partial state in the workspace (the kernels' states fit in it).
    fn partial_bytes(self) -> usize {
        match self {
            Kind::Asum => 8,
            Kind::Nrm2 => 24,
            Kind::Dot | Kind::Dotc | Kind::Iamax | Kind::Iamin => 16,
        }
    }

    /// Whether `incx <= 0` is a quick return giving 0.
    fn zero_on_nonpositive_inc(self) -> bool {
        !self.two()
    }
}

/// How a call splits its work, and the workspace that takes (SPEC F4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Vectors per launch.
    pub chunk: usize,
    /// Blocks per vector; 1 means one block writes the result with no partials.
    pub g: usize,
    /// The workspace parts' sizes in bytes.
    pub workspace: Blas1Workspace<usize>,
}

/// The reductions' workspace parts by name: their sizes in bytes (`Plan::workspace`), or the
/// sub-buffers a lease holds for them (`Blas1Workspace::leased`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Blas1Workspace<S> {
    /// The blocks' partial states, `g` per vector of a launch (none with one block per vector).
    pub partials: S,
    /// The results bound for host memory, copied out once the launches are done.
    pub host_results: S,
    /// A list batch's table of vector addresses (x's, then y's), read by one launch over the
    /// whole batch; none when addresses travel as kernel parameters, `LIST_MAX` at a time.
    pub addr_table: S,
}

impl Blas1Workspace<usize> {
    /// The sizes in lease order.
    pub(crate) fn list(&self) -> [usize; 3] {
        [self.partials, self.host_results, self.addr_table]
    }
}

impl Blas1Workspace<Option<WorkspaceSlice>> {
    /// The parts of a lease laid out by `list`.
    pub(crate) fn leased(lease: &WorkspaceLease<'_>) -> Self {
        Blas1Workspace {
            partials: lease.buffer(0),
            host_results: lease.buffer(1),
            addr_table: lease.buffer(2),
        }
    }
}

impl WorkspacePlan for Plan {
    fn sizes(&self) -> smallvec::SmallVec<[usize; 4]> {
        smallvec::SmallVec::from_slice(&self.workspace.list())
    }
}

/// What a call's arguments fix for its plan.
#[derive(Clone, Copy)]
struct Shape {
    kind: Kind,
    n: usize,
    batch: usize,
    list: bool,
    host_results: bool,
    sms: usize,
    out_size: usize,
    params: Blas1Params,
}

impl Shape {
    fn operands(&self) -> usize {
        if self.kind.two() {
            2
        } else {
            1
        }
    }

    /// The plan for `chunk` vectors per launch, with or without an address table.
    fn plan(&self, chunk: usize, addr_table: bool) -> Plan {
        let chunk = chunk.min(self.batch).max(1);
        let target = self.sms * self.params.blocks_per_sm;
        let g = self
            .n
            .div_ceil(self.params.min_per_block)
            .min((target / chunk).max(1))
            .max(1);
        Plan {
            chunk,
            g,
            workspace: Blas1Workspace {
                partials: if g > 1 {
                    chunk * g * self.kind.partial_bytes()
                } else {
                    0
                },
                // Saturating: a batch count too large for memory fails the checks, not here.
                host_results: if self.host_results {
                    self.batch.saturating_mul(self.out_size)
                } else {
                    0
                },
                addr_table: if addr_table {
                    self.batch.saturating_mul(self.operands() * 8)
                } else {
                    0
                },
            },
        }
    }

    /// The plan with enough workspace: depends only on the arguments and the device (F4).
    fn full(&self) -> Plan {
        self.plan(self.params.strided_max, self.list)
    }

    /// The plan that fits in `capacity` bytes: lists first give up their address table, then
    /// every form runs fewer blocks per vector. `None` when not even the host results fit.
    fn fitted(&self, capacity: usize) -> Option<Plan> {
        let full = self.full();
        if full.total() <= capacity {
            return Some(full);
        }
        let base = if self.list {
            self.plan(LIST_MAX / self.operands(), false)
        } else {
            full
        };
        if base.total() <= capacity {
            return Some(base);
        }
        let results = round_up(base.workspace.host_results)?;
        let budget = capacity.checked_sub(results)? / CHUNK * CHUNK;
        let g = (budget / (base.chunk * self.kind.partial_bytes())).min(base.g);
        let g = if g < 2 { 1 } else { g };
        Some(Plan {
            g,
            workspace: Blas1Workspace {
                partials: if g > 1 {
                    base.chunk * g * self.kind.partial_bytes()
                } else {
                    0
                },
                ..base.workspace
            },
            ..base
        })
    }
}

/// One call's arguments, for every routine, type and form.
pub(crate) struct Call<'a, E, R> {
    pub name: &'static str,
    pub kind: Kind,
    pub tag: String,
    pub n: usize,
    pub x: Batch<'a, E>,
    pub incx: isize,
    pub y: Option<(Batch<'a, E>, isize)>,
    pub out: Results<'a, R>,
}

/// Checks every vector of `b` against `n` and `inc` (F7); for a list, also collects the
/// vectors' device addresses in the same pass (lists can hold thousands of vectors).
fn check_vectors<E: Element>(
    h: &Handle,
    call: &'static str,
    what: &str,
    b: &Batch<'_, E>,
    n: usize,
    inc: isize,
    addrs: &mut Vec<u64>,
) -> Result<(), Error> {
    let inc_name = if what == "x" { "incx" } else { "incy" };
    let why = || format!("n = {n} with {inc_name} = {inc}");
    let need = span_or(call, vec_span(n, inc), &why)?;
    Checker { h, call }.batch(what, b, need, &why, false, Some(addrs))
}

fn check_results<R: Element>(
    h: &Handle,
    call: &str,
    out: &Results<'_, R>,
    batch: usize,
) -> Result<(), Error> {
    if out.len() < batch {
        return Err(Error::InvalidValue(format!(
            "{call}: results hold {} values, the batch has {batch}",
            out.len()
        )));
    }
    if let Results::Device(b) = out {
        match b.device() {
            None => {
                return Err(Error::InvalidPointer(format!(
                    "{call}: the results buffer is a placeholder; placeholders are only accepted during a size query"
                )))
            }
            Some(d) if !d.same_as(h.device()) => {
                return Err(Error::InvalidPointer(format!(
                    "{call}: the results buffer is on {} but the handle is on {}",
                    d.name(),
                    h.device().name()
                )))
            }
            Some(_) => b.mark_used(&h.stream),
        }
    }
    Ok(())
}

/// One reduction call on its way through [`drive`].
struct Reduction<'a, E, R> {
    call: Call<'a, E, R>,
    shape: Shape,
    cuda: bool,
    /// The vectors' device addresses (x's, then y's), borrowed from the handle while the call
    /// runs (lists can hold thousands of vectors).
    addrs: Option<Vec<u64>>,
}

impl<E, R> Reduction<'_, E, R> {
    /// Every result is zero and nothing is read (F3).
    fn quick_zero(&self) -> bool {
        let c = &self.call;
        c.n == 0 || (c.kind.zero_on_nonpositive_inc() && c.incx <= 0)
    }
}

impl<E: Blas1Elem, R: Blas1Out> Routine for Reduction<'_, E, R> {
    type Plan = Plan;

    fn name(&self) -> &'static str {
        self.call.name
    }

    fn check_sizes(&mut self) -> Result<(), Error> {
        if let Some((y, _)) = &self.call.y {
            check_counts(self.call.name, ("x", self.shape.batch), ("y", y.count()))?;
        }
        Ok(())
    }

    fn full(&mut self, _h: &mut Handle) -> Result<Option<Plan>, Error> {
        Ok((!self.quick_zero() && self.shape.batch > 0).then(|| self.shape.full()))
    }

    fn check_operands(&mut self, h: &mut Handle) -> Result<(), Error> {
        let batch = self.shape.batch;
        let c = &self.call;
        check_results(h, c.name, &c.out, batch)?;
        if batch == 0 || self.quick_zero() {
            return Ok(());
        }
        let addrs = self.addrs.insert(std::mem::take(&mut h.list_addrs));
        addrs.clear();
        check_vectors(h, c.name, "x", &c.x, c.n, c.incx, addrs)?;
        if let Some((y, incy)) = &c.y {
            check_vectors(h, c.name, "y", y, c.n, *incy, addrs)?;
        }
        if self.cuda && c.out.is_host() && h.stream().is_capturing()? {
            return Err(Error::Unsupported(format!(
                "{}: results to host memory need a host synchronisation, which graph capture forbids; \
                 pass a device buffer (Results::Device)",
                c.name
            )));
        }
        Ok(())
    }

    fn quick_return(&mut self, h: &mut Handle) -> Result<Status, Error> {
        if self.shape.batch == 0 {
            return Ok(Status::Success);
        }
        quick_zeros(h, &mut self.call.out, self.shape.batch)
    }

    fn fitted(&mut self, capacity: usize) -> Result<Option<Plan>, Error> {
        Ok(self.shape.fitted(capacity))
    }

    fn minimum(&self) -> String {
        let results = self.shape.full().workspace.host_results;
        format!(
            "needs at least {} bytes for {} host results; raise the workspace with \
             set_device_memory_size or pass Results::Device",
            round_up(results).unwrap_or(results),
            self.shape.batch
        )
    }

    fn run(&mut self, lease: &WorkspaceLease<'_>, plan: &Plan) -> Result<(), Error> {
        let h = lease.handle();
        let ws = Blas1Workspace::leased(lease);
        if !self.cuda {
            return host::run(h, &ws, &mut self.call, *plan);
        }
        let addrs = self.addrs.as_deref().unwrap_or_default();
        cuda::run(h, &ws, &self.call, *plan, addrs)?;
        if let Results::Host(dst) = &mut self.call.out {
            cuda::read_results(h, ws.host_results, &mut dst[..self.shape.batch])?;
        }
        Ok(())
    }

    fn finish(&mut self, h: &mut Handle) {
        if let Some(addrs) = self.addrs.take() {
            h.list_addrs = addrs;
        }
    }
}

/// The one implementation behind every Level-1 routine (F1, F2).
pub(crate) fn reduce<E: Blas1Elem, R: Blas1Out>(
    h: &mut Handle,
    call: Call<'_, E, R>,
) -> Result<Status, Error> {
    let cuda = h.device().backend() == Backend::Cuda;
    let params = Blas1Params::auto();
    let shape = Shape {
        kind: call.kind,
        n: call.n,
        batch: call.x.count(),
        list: call.x.is_list(),
        host_results: call.out.is_host(),
        sms: if cuda {
            h.device().multiprocessor_count()
        } else {
            params.host_sms
        },
        out_size: std::mem::size_of::<R>(),
        params,
    };
    drive(
        h,
        &mut Reduction {
            call,
            shape,
            cuda,
            addrs: None,
        },
    )
}

/// Quick return: every result is zero; nothing is launched on the host-results path.
fn quick_zeros<R: Blas1Out>(
    h: &Handle,
    out: &mut Results<'_, R>,
    batch: usize,
) -> Result<Status, Error> {
    match out {
        Results::Host(s) => s[..batch].iter_mut().for_each(|v| *v = R::zeroed()),
        Results::Device(b) => match b.host_slice_mut() {
            Some(s) => s[..batch].iter_mut().for_each(|v| *v = R::zeroed()),
            None => {
                let addr = b.device_ptr().unwrap_or(0);
                h.stream().bind()?;
                h.stream()
                    .memset32(addr, 0, batch * std::mem::size_of::<R>() / 4)?;
            }
        },
    }
    Ok(Status::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(kind: Kind, n: usize, batch: usize, list: bool, host: bool, sms: usize) -> Shape {
        Shape {
            kind,
            n,
            batch,
            list,
            host_results: host,
            sms,
            out_size: 8,
            params: Blas1Params::auto(),
        }
    }

    #[test]
    fn f4_plan_partials_are_o_of_sms_per_vector() {
        let p = shape(Kind::Nrm2, 1 << 28, 1, false, true, 132).full();
        let per_sm = Blas1Params::auto().blocks_per_sm;
        assert_eq!(p.g, 132 * per_sm);
        assert_eq!(p.workspace.partials, 132 * per_sm * 24);
        let small = shape(Kind::Dot, 4096, 1, false, false, 132).full();
        assert_eq!(small.total(), 0);
        let many = shape(Kind::Dot, 1000, 10_000, true, false, 132).full();
        assert_eq!(
            (many.g, many.chunk, many.workspace.addr_table),
            (1, 10_000, 160_000)
        );
    }

    #[test]
    fn m06_fitted_plan_shrinks_blocks_and_keeps_results() {
        let s = shape(Kind::Asum, 1 << 24, 1, false, true, 132);
        let p = s.fitted(1024).unwrap();
        assert!(p.total() <= 1024 && p.g < s.full().g && p.g >= 1);
        assert!(shape(Kind::Asum, 10, 200, false, true, 4)
            .fitted(1024)
            .is_none());
        // A list first drops its address table for kernel-parameter chunks.
        let l = shape(Kind::Dot, 1000, 10_000, true, false, 132);
        let p = l.fitted(1024).unwrap();
        assert_eq!((p.workspace.addr_table, p.chunk), (0, LIST_MAX / 2));
    }
}
