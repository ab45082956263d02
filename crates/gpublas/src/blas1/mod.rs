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
use crate::common::plan::{choose, WorkspacePlan};
use crate::device::{Backend, Element};
pub(crate) use crate::kernels::LIST_MAX;
use crate::memory::{round_up, CHUNK};
use crate::{Error, Handle, Status};

/// Threads per block of every Level-1 kernel.
pub(crate) const BLOCK: usize = 256;
/// Elements one block should at least have before a vector is split over more blocks.
const MIN_PER_BLOCK: usize = 8192;
/// Blocks per multiprocessor the split aims for.
const BLOCKS_PER_SM: usize = 8;
/// What the host backend's split counts as multiprocessors: 64 × 8 = 512 blocks, so a long
/// vector's blocks balance over the host's threads (fixed by the shape, so the bits never
/// depend on the threads).
const HOST_SMS: usize = 64;
/// Most vectors of a strided batch in one launch (keeps the grid within 2^31 blocks).
const STRIDED_MAX: usize = 1 << 24;

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
    /// Bytes of the partials sub-buffer.
    pub partial_bytes: usize,
    /// Bytes of the host-result sub-buffer.
    pub result_bytes: usize,
    /// Bytes of a list batch's table of vector addresses, read by one launch over the whole
    /// batch; 0 when addresses travel as kernel parameters, `LIST_MAX` at a time.
    pub addr_bytes: usize,
}

impl WorkspacePlan for Plan {
    fn sizes(&self) -> smallvec::SmallVec<[usize; 4]> {
        smallvec::smallvec![self.partial_bytes, self.result_bytes, self.addr_bytes]
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
        let target = self.sms * BLOCKS_PER_SM;
        let g = self
            .n
            .div_ceil(MIN_PER_BLOCK)
            .min((target / chunk).max(1))
            .max(1);
        Plan {
            chunk,
            g,
            partial_bytes: if g > 1 {
                chunk * g * self.kind.partial_bytes()
            } else {
                0
            },
            // Saturating: a batch count too large for memory fails the checks, not here.
            result_bytes: if self.host_results {
                self.batch.saturating_mul(self.out_size)
            } else {
                0
            },
            addr_bytes: if addr_table {
                self.batch.saturating_mul(self.operands() * 8)
            } else {
                0
            },
        }
    }

    /// The plan with enough workspace: depends only on the arguments and the device (F4).
    fn full(&self) -> Plan {
        self.plan(STRIDED_MAX, self.list)
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
        let results = round_up(base.result_bytes)?;
        let budget = capacity.checked_sub(results)? / CHUNK * CHUNK;
        let g = (budget / (base.chunk * self.kind.partial_bytes())).min(base.g);
        let g = if g < 2 { 1 } else { g };
        Some(Plan {
            g,
            partial_bytes: if g > 1 {
                base.chunk * g * self.kind.partial_bytes()
            } else {
                0
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

/// The one implementation behind every Level-1 routine (F1, F2).
pub(crate) fn reduce<E: Blas1Elem, R: Blas1Out>(
    h: &mut Handle,
    mut c: Call<'_, E, R>,
) -> Result<Status, Error> {
    // 1. sizes and shapes
    let batch = c.x.count();
    if let Some((y, _)) = &c.y {
        check_counts(c.name, ("x", batch), ("y", y.count()))?;
    }
    let quick_zero = c.n == 0 || (c.kind.zero_on_nonpositive_inc() && c.incx <= 0);
    let shape = Shape {
        kind: c.kind,
        n: c.n,
        batch,
        list: c.x.is_list(),
        host_results: c.out.is_host(),
        sms: if h.device().backend() == crate::device::Backend::Host {
            HOST_SMS
        } else {
            h.device().multiprocessor_count()
        },
        out_size: std::mem::size_of::<R>(),
    };
    let plan = if quick_zero || batch == 0 {
        None
    } else {
        Some(shape.full())
    };
    // 2. the query (M8)
    let sizes = plan.map(|p| p.sizes()).unwrap_or_default();
    if let Some(st) = h.query_step(&sizes)? {
        return Ok(st);
    }
    // 3. operands (F7)
    check_results(h, c.name, &c.out, batch)?;
    if batch == 0 {
        return Ok(Status::Success);
    }
    let Some(full) = plan else {
        return quick_zeros(h, &mut c.out, batch);
    };
    let mut addrs = std::mem::take(&mut h.list_addrs);
    addrs.clear();
    check_vectors(h, c.name, "x", &c.x, c.n, c.incx, &mut addrs)?;
    if let Some((y, incy)) = &c.y {
        check_vectors(h, c.name, "y", y, c.n, *incy, &mut addrs)?;
    }
    let cuda = h.device().backend() == Backend::Cuda;
    if cuda && c.out.is_host() && h.stream().is_capturing()? {
        return Err(Error::Unsupported(format!(
            "{}: results to host memory need a host synchronisation, which graph capture forbids; \
             pass a device buffer (Results::Device)",
            c.name
        )));
    }
    // 4. the workspace
    let (plan, status) = choose(
        h,
        c.name,
        full,
        |cap| shape.fitted(cap),
        || {
            format!(
                "needs at least {} bytes for {batch} host results; raise the workspace with \
                 set_device_memory_size or pass Results::Device",
                round_up(full.result_bytes).unwrap_or(full.result_bytes)
            )
        },
    )?;
    let lease = h.device_malloc(&plan.sizes())?;
    // 5. compute
    if cuda {
        cuda::run(&lease, &c, plan, &addrs)?;
    } else {
        host::run(&lease, &mut c, plan)?;
    }
    if let Results::Host(dst) = &mut c.out {
        if cuda {
            cuda::read_results(&lease, &mut dst[..batch])?;
        }
    }
    drop(lease);
    h.list_addrs = addrs;
    Ok(status)
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
        }
    }

    #[test]
    fn f4_plan_partials_are_o_of_sms_per_vector() {
        let p = shape(Kind::Nrm2, 1 << 28, 1, false, true, 132).full();
        assert_eq!(p.g, 132 * BLOCKS_PER_SM);
        assert_eq!(p.partial_bytes, 132 * BLOCKS_PER_SM * 24);
        let small = shape(Kind::Dot, 4096, 1, false, false, 132).full();
        assert_eq!(small.total(), 0);
        let many = shape(Kind::Dot, 1000, 10_000, true, false, 132).full();
        assert_eq!((many.g, many.chunk, many.addr_bytes), (1, 10_000, 160_000));
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
        assert_eq!((p.addr_bytes, p.chunk), (0, LIST_MAX / 2));
    }
}
