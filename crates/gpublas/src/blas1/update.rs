//! The rest of Level 1: `axpy`, `scal`, `copy`, `swap`, `rot`, `rotm` (vector updates) and
//! `rotg`, `rotmg` (rotation set-up), each single, `_batched` and `_strided_batched`. None of
//! them borrows workspace: a size query answers `SizeUnchanged`.
//!
//! Semantics follow reference BLAS: `n == 0` does nothing; negative increments walk a vector
//! backwards (step `i` touches element `(n - 1 - i) |inc|`); `scal` with `incx <= 0` does
//! nothing; `axpy` with a host `alpha == 0` does nothing. An increment of 0 is a valid call on
//! input and output (F9): the result is what reference BLAS's sequential loop over
//! `i = 0..n` leaves in the one element. On an input it reads that element `n` times; on an
//! output each step reads what the step before wrote:
//! - `copy` with `incy = 0`: `y[0]` ends as the last `x` element visited;
//! - `axpy` with `incy = 0`: `y[0] += alpha x_i`, accumulated in order;
//! - `swap` with `incy = 0`: `y[0]` ends as the last `x` visited, and each `x` element takes the
//!   value `y[0]` held before its step (x shifted by one, the old `y[0]` in front); likewise
//!   with the roles exchanged for `incx = 0`;
//! - `rot`, `rotm`: the rotation is applied step after step through the shared element(s).
//!
//! Cost: a call with an output increment of 0 and `n > 1` cannot run in parallel within a
//! batch entry. On CUDA it runs one thread per batch entry through the reference loop (`copy`
//! copies just the element that wins), so it takes time in proportion to `n` at a single
//! thread's speed; on the host it runs the same loop, entry by entry. Outputs of different
//! batch entries must still not overlap: a strided output whose stride is smaller than one
//! entry's span (stride 0 with more than one entry included) is `Error::InvalidValue`.

use super::{cuda_update, host_update};
use crate::common::operand::{check_counts, span_or, vec_span, Batch, BatchMut, Checker};
use crate::common::plan::{drive, Routine, WorkspacePlan};
use crate::device::{Backend, DeviceBuffer};
use crate::{Coef, Error, Handle, RealScalar, Scalar, Status, WorkspaceLease};

/// A vector update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UpdateKind {
    Axpy,
    Scal,
    Copy,
    Swap,
    Rot,
    Rotm,
}

/// The x operand: read, or read and written.
pub(crate) enum XOperand<'a, 'b, T> {
    In(Batch<'a, T>),
    Out(BatchMut<'a, 'b, T>),
}

impl<T: crate::device::Element> XOperand<'_, '_, T> {
    pub(crate) fn view(&self) -> Batch<'_, T> {
        match self {
            XOperand::In(b) => *b,
            XOperand::Out(b) => b.view(),
        }
    }
}

/// One vector-update call, for every routine, type and form.
pub(crate) struct UpdateCall<'a, 'b, T: Scalar> {
    pub name: &'static str,
    pub kind: UpdateKind,
    pub n: usize,
    pub x: XOperand<'a, 'b, T>,
    pub incx: isize,
    pub y: Option<BatchMut<'a, 'b, T>>,
    pub incy: isize,
    /// axpy's and scal's alpha, rot's s.
    pub alpha: Coef<'a, T>,
    /// rot's c.
    pub c: Coef<'a, T::Real>,
    /// rotm's five parameters per entry.
    pub param: Option<Batch<'a, T>>,
}

impl<T: Scalar> UpdateCall<'_, '_, T> {
    /// Whether an output increment of 0 chains the steps of an entry (each reads what the one
    /// before wrote), so they must run in reference BLAS's order. `scal` with `incx = 0` is a
    /// quick return and never gets here.
    pub(crate) fn sequential(&self) -> bool {
        let x_out = matches!(self.x, XOperand::Out(_));
        self.n > 1 && ((x_out && self.incx == 0) || (self.y.is_some() && self.incy == 0))
    }
}

/// The workspace of the updates and set-ups: none. They still run through [`drive`], so a
/// call takes an empty lease (counted in the statistics' `leases`, 0 bytes) like any routine
/// whose plan needs nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NoWorkspace;

impl WorkspacePlan for NoWorkspace {
    fn sizes(&self) -> smallvec::SmallVec<[usize; 4]> {
        smallvec::SmallVec::new()
    }
}

/// One vector-update call on its way through [`drive`].
struct Update<'a, 'b, T: Scalar> {
    call: UpdateCall<'a, 'b, T>,
    batch: usize,
}

impl<T: Scalar> Routine for Update<'_, '_, T> {
    type Plan = NoWorkspace;

    fn name(&self) -> &'static str {
        self.call.name
    }

    fn check_sizes(&mut self) -> Result<(), Error> {
        let (c, batch) = (&self.call, self.batch);
        if let Some(y) = &c.y {
            check_counts(c.name, ("x", batch), ("y", y.count()))?;
        }
        if let Some(p) = &c.param {
            check_counts(c.name, ("x", batch), ("param", p.count()))?;
        }
        Ok(())
    }

    fn full(&mut self, _h: &mut Handle) -> Result<Option<NoWorkspace>, Error> {
        let c = &self.call;
        let quick = c.n == 0
            || self.batch == 0
            || (c.kind == UpdateKind::Scal && c.incx <= 0)
            || (c.kind == UpdateKind::Axpy && c.alpha.host() == Some(T::zero()));
        Ok((!quick).then_some(NoWorkspace))
    }

    fn check_operands(&mut self, h: &mut Handle) -> Result<(), Error> {
        let (c, batch) = (&self.call, self.batch);
        let name = c.name;
        let x_out = matches!(c.x, XOperand::Out(_));
        let ck = Checker { h, call: name };
        let n = c.n;
        for (what, b, inc, out) in [
            ("x", Some(c.x.view()), c.incx, x_out),
            ("y", c.y.as_ref().map(|y| y.view()), c.incy, true),
        ] {
            let Some(b) = b else { continue };
            let inc_name = if what == "x" { "incx" } else { "incy" };
            let why = || format!("n = {n} with {inc_name} = {inc}");
            let need = span_or(name, vec_span(n, inc), &why)?;
            ck.batch(what, &b, need, &why, out, None)?;
        }
        if let Some(p) = &c.param {
            ck.batch(
                "param",
                p,
                5,
                &|| "rotm's [flag, h11, h21, h12, h22]".to_string(),
                false,
                None,
            )?;
        }
        ck.coef(
            if c.kind == UpdateKind::Rot {
                "s"
            } else {
                "alpha"
            },
            &c.alpha,
            batch,
        )?;
        ck.coef("c", &c.c, batch)
    }

    fn fitted(&mut self, _capacity: usize) -> Result<Option<NoWorkspace>, Error> {
        Ok(Some(NoWorkspace))
    }

    fn minimum(&self) -> String {
        "needs no workspace".to_string()
    }

    fn run(&mut self, lease: &WorkspaceLease<'_>, _plan: &NoWorkspace) -> Result<(), Error> {
        let h = lease.handle();
        if h.device().backend() == Backend::Cuda {
            cuda_update::run(h, &self.call)
        } else {
            let par = h.host_par.clone();
            host_update::run(&mut self.call, &par)
        }
    }
}

fn run_update<T: Scalar>(h: &mut Handle, call: UpdateCall<'_, '_, T>) -> Result<Status, Error> {
    let batch = call.x.view().count();
    drive(h, &mut Update { call, batch })
}

fn none<'a, R>() -> Coef<'a, R>
where
    R: Scalar,
{
    Coef::Host(R::zero())
}

/// `y = alpha x + y` over `n` elements (`?axpy`).
#[allow(clippy::too_many_arguments)]
pub fn axpy<T: Scalar>(
    h: &mut Handle,
    n: usize,
    alpha: Coef<'_, T>,
    x: &DeviceBuffer<T>,
    incx: isize,
    y: &mut DeviceBuffer<T>,
    incy: isize,
) -> Result<Status, Error> {
    run_update(
        h,
        UpdateCall {
            name: "axpy",
            kind: UpdateKind::Axpy,
            n,
            x: XOperand::In(Batch::Single(x)),
            incx,
            y: Some(BatchMut::Single(y)),
            incy,
            alpha,
            c: none(),
            param: None,
        },
    )
}
/// `axpy` of each pair of a list of `x` and a list of `y`.
#[allow(clippy::too_many_arguments)]
pub fn axpy_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    alpha: Coef<'_, T>,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    y: &mut [&mut DeviceBuffer<T>],
    incy: isize,
) -> Result<Status, Error> {
    run_update(
        h,
        UpdateCall {
            name: "axpy_batched",
            kind: UpdateKind::Axpy,
            n,
            x: XOperand::In(Batch::list(x)),
            incx,
            y: Some(BatchMut::List(y)),
            incy,
            alpha,
            c: none(),
            param: None,
        },
    )
}
/// `axpy` of `batch` pairs of vectors at strides `stride_x`, `stride_y`.
#[allow(clippy::too_many_arguments)]
pub fn axpy_strided_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    alpha: Coef<'_, T>,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    y: &mut DeviceBuffer<T>,
    incy: isize,
    stride_y: usize,
    batch: usize,
) -> Result<Status, Error> {
    run_update(
        h,
        UpdateCall {
            name: "axpy_strided_batched",
            kind: UpdateKind::Axpy,
            n,
            x: XOperand::In(Batch::Strided {
                buf: x,
                stride: stride_x,
                count: batch,
            }),
            incx,
            y: Some(BatchMut::Strided {
                buf: y,
                stride: stride_y,
                count: batch,
            }),
            incy,
            alpha,
            c: none(),
            param: None,
        },
    )
}

/// `x = alpha x` over `n` elements (`?scal`); nothing happens when `incx <= 0`.
pub fn scal<T: Scalar>(
    h: &mut Handle,
    n: usize,
    alpha: Coef<'_, T>,
    x: &mut DeviceBuffer<T>,
    incx: isize,
) -> Result<Status, Error> {
    run_update(
        h,
        UpdateCall {
            name: "scal",
            kind: UpdateKind::Scal,
            n,
            x: XOperand::Out(BatchMut::Single(x)),
            incx,
            y: None,
            incy: 1,
            alpha,
            c: none(),
            param: None,
        },
    )
}
/// `scal` of each vector of a list.
pub fn scal_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    alpha: Coef<'_, T>,
    x: &mut [&mut DeviceBuffer<T>],
    incx: isize,
) -> Result<Status, Error> {
    run_update(
        h,
        UpdateCall {
            name: "scal_batched",
            kind: UpdateKind::Scal,
            n,
            x: XOperand::Out(BatchMut::List(x)),
            incx,
            y: None,
            incy: 1,
            alpha,
            c: none(),
            param: None,
        },
    )
}
/// `scal` of `batch` vectors `stride_x` elements apart.
#[allow(clippy::too_many_arguments)]
pub fn scal_strided_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    alpha: Coef<'_, T>,
    x: &mut DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    batch: usize,
) -> Result<Status, Error> {
    run_update(
        h,
        UpdateCall {
            name: "scal_strided_batched",
            kind: UpdateKind::Scal,
            n,
            x: XOperand::Out(BatchMut::Strided {
                buf: x,
                stride: stride_x,
                count: batch,
            }),
            incx,
            y: None,
            incy: 1,
            alpha,
            c: none(),
            param: None,
        },
    )
}

/// `y = x` over `n` elements (`?copy`).
pub fn copy<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    y: &mut DeviceBuffer<T>,
    incy: isize,
) -> Result<Status, Error> {
    run_update(
        h,
        UpdateCall {
            name: "copy",
            kind: UpdateKind::Copy,
            n,
            x: XOperand::In(Batch::Single(x)),
            incx,
            y: Some(BatchMut::Single(y)),
            incy,
            alpha: none(),
            c: none(),
            param: None,
        },
    )
}
/// `copy` of each pair of a list of `x` and a list of `y`.
pub fn copy_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    y: &mut [&mut DeviceBuffer<T>],
    incy: isize,
) -> Result<Status, Error> {
    run_update(
        h,
        UpdateCall {
            name: "copy_batched",
            kind: UpdateKind::Copy,
            n,
            x: XOperand::In(Batch::list(x)),
            incx,
            y: Some(BatchMut::List(y)),
            incy,
            alpha: none(),
            c: none(),
            param: None,
        },
    )
}
/// `copy` of `batch` pairs of vectors at strides `stride_x`, `stride_y`.
#[allow(clippy::too_many_arguments)]
pub fn copy_strided_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    y: &mut DeviceBuffer<T>,
    incy: isize,
    stride_y: usize,
    batch: usize,
) -> Result<Status, Error> {
    run_update(
        h,
        UpdateCall {
            name: "copy_strided_batched",
            kind: UpdateKind::Copy,
            n,
            x: XOperand::In(Batch::Strided {
                buf: x,
                stride: stride_x,
                count: batch,
            }),
            incx,
            y: Some(BatchMut::Strided {
                buf: y,
                stride: stride_y,
                count: batch,
            }),
            incy,
            alpha: none(),
            c: none(),
            param: None,
        },
    )
}

/// Exchanges `n` elements of `x` and `y` (`?swap`).
pub fn swap<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &mut DeviceBuffer<T>,
    incx: isize,
    y: &mut DeviceBuffer<T>,
    incy: isize,
) -> Result<Status, Error> {
    run_update(
        h,
        UpdateCall {
            name: "swap",
            kind: UpdateKind::Swap,
            n,
            x: XOperand::Out(BatchMut::Single(x)),
            incx,
            y: Some(BatchMut::Single(y)),
            incy,
            alpha: none(),
            c: none(),
            param: None,
        },
    )
}
/// `swap` of each pair of two lists.
pub fn swap_batched<'b, T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &mut [&'b mut DeviceBuffer<T>],
    incx: isize,
    y: &mut [&'b mut DeviceBuffer<T>],
    incy: isize,
) -> Result<Status, Error> {
    run_update(
        h,
        UpdateCall {
            name: "swap_batched",
            kind: UpdateKind::Swap,
            n,
            x: XOperand::Out(BatchMut::List(x)),
            incx,
            y: Some(BatchMut::List(y)),
            incy,
            alpha: none(),
            c: none(),
            param: None,
        },
    )
}
/// `swap` of `batch` pairs of vectors at strides `stride_x`, `stride_y`.
#[allow(clippy::too_many_arguments)]
pub fn swap_strided_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &mut DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    y: &mut DeviceBuffer<T>,
    incy: isize,
    stride_y: usize,
    batch: usize,
) -> Result<Status, Error> {
    run_update(
        h,
        UpdateCall {
            name: "swap_strided_batched",
            kind: UpdateKind::Swap,
            n,
            x: XOperand::Out(BatchMut::Strided {
                buf: x,
                stride: stride_x,
                count: batch,
            }),
            incx,
            y: Some(BatchMut::Strided {
                buf: y,
                stride: stride_y,
                count: batch,
            }),
            incy,
            alpha: none(),
            c: none(),
            param: None,
        },
    )
}

/// Applies a plane rotation: `(x, y) = (c x + s y, c y - conj(s) x)` (`?rot`, and `crot`/`zrot`
/// with a real `c` and a complex `s`).
#[allow(clippy::too_many_arguments)]
pub fn rot<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &mut DeviceBuffer<T>,
    incx: isize,
    y: &mut DeviceBuffer<T>,
    incy: isize,
    c: Coef<'_, T::Real>,
    s: Coef<'_, T>,
) -> Result<Status, Error> {
    run_update(
        h,
        UpdateCall {
            name: "rot",
            kind: UpdateKind::Rot,
            n,
            x: XOperand::Out(BatchMut::Single(x)),
            incx,
            y: Some(BatchMut::Single(y)),
            incy,
            alpha: s,
            c,
            param: None,
        },
    )
}
/// `rot` of each pair of two lists.
#[allow(clippy::too_many_arguments)]
pub fn rot_batched<'b, T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &mut [&'b mut DeviceBuffer<T>],
    incx: isize,
    y: &mut [&'b mut DeviceBuffer<T>],
    incy: isize,
    c: Coef<'_, T::Real>,
    s: Coef<'_, T>,
) -> Result<Status, Error> {
    run_update(
        h,
        UpdateCall {
            name: "rot_batched",
            kind: UpdateKind::Rot,
            n,
            x: XOperand::Out(BatchMut::List(x)),
            incx,
            y: Some(BatchMut::List(y)),
            incy,
            alpha: s,
            c,
            param: None,
        },
    )
}
/// `rot` of `batch` pairs of vectors at strides `stride_x`, `stride_y`.
#[allow(clippy::too_many_arguments)]
pub fn rot_strided_batched<T: Scalar>(
    h: &mut Handle,
    n: usize,
    x: &mut DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    y: &mut DeviceBuffer<T>,
    incy: isize,
    stride_y: usize,
    c: Coef<'_, T::Real>,
    s: Coef<'_, T>,
    batch: usize,
) -> Result<Status, Error> {
    run_update(
        h,
        UpdateCall {
            name: "rot_strided_batched",
            kind: UpdateKind::Rot,
            n,
            x: XOperand::Out(BatchMut::Strided {
                buf: x,
                stride: stride_x,
                count: batch,
            }),
            incx,
            y: Some(BatchMut::Strided {
                buf: y,
                stride: stride_y,
                count: batch,
            }),
            incy,
            alpha: s,
            c,
            param: None,
        },
    )
}

/// Applies a modified Givens rotation `H` given by `param = [flag, h11, h21, h12, h22]` in
/// device memory: `(x, y) = (h11 x + h12 y, h21 x + h22 y)` with the BLAS flag conventions
/// (`-2`: identity, `-1`: full `H`, `0`: unit diagonal, `1`: `h12 = 1`, `h21 = -1`) (`?rotm`).
#[allow(clippy::too_many_arguments)]
pub fn rotm<T: RealScalar>(
    h: &mut Handle,
    n: usize,
    x: &mut DeviceBuffer<T>,
    incx: isize,
    y: &mut DeviceBuffer<T>,
    incy: isize,
    param: &DeviceBuffer<T>,
) -> Result<Status, Error> {
    run_update(
        h,
        UpdateCall {
            name: "rotm",
            kind: UpdateKind::Rotm,
            n,
            x: XOperand::Out(BatchMut::Single(x)),
            incx,
            y: Some(BatchMut::Single(y)),
            incy,
            alpha: none(),
            c: none(),
            param: Some(Batch::Single(param)),
        },
    )
}
/// `rotm` of each pair of two lists, with one parameter buffer per pair.
#[allow(clippy::too_many_arguments)]
pub fn rotm_batched<'b, T: RealScalar>(
    h: &mut Handle,
    n: usize,
    x: &mut [&'b mut DeviceBuffer<T>],
    incx: isize,
    y: &mut [&'b mut DeviceBuffer<T>],
    incy: isize,
    param: &[&DeviceBuffer<T>],
) -> Result<Status, Error> {
    run_update(
        h,
        UpdateCall {
            name: "rotm_batched",
            kind: UpdateKind::Rotm,
            n,
            x: XOperand::Out(BatchMut::List(x)),
            incx,
            y: Some(BatchMut::List(y)),
            incy,
            alpha: none(),
            c: none(),
            param: Some(Batch::list(param)),
        },
    )
}
/// `rotm` of `batch` pairs of vectors, parameters `stride_param` elements apart.
#[allow(clippy::too_many_arguments)]
pub fn rotm_strided_batched<T: RealScalar>(
    h: &mut Handle,
    n: usize,
    x: &mut DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    y: &mut DeviceBuffer<T>,
    incy: isize,
    stride_y: usize,
    param: &DeviceBuffer<T>,
    stride_param: usize,
    batch: usize,
) -> Result<Status, Error> {
    run_update(
        h,
        UpdateCall {
            name: "rotm_strided_batched",
            kind: UpdateKind::Rotm,
            n,
            x: XOperand::Out(BatchMut::Strided {
                buf: x,
                stride: stride_x,
                count: batch,
            }),
            incx,
            y: Some(BatchMut::Strided {
                buf: y,
                stride: stride_y,
                count: batch,
            }),
            incy,
            alpha: none(),
            c: none(),
            param: Some(Batch::Strided {
                buf: param,
                stride: stride_param,
                count: batch,
            }),
        },
    )
}

// ---- rotation set-up -------------------------------------------------------------------

/// Which set-up routine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Setup {
    Rotg,
    Rotmg,
}

/// One set-up call: `ops` operands of one element (rotmg's param: five) per entry, all in and
/// out except rotmg's `y1`.
pub(crate) struct SetupCall<'a, 'b, T: Scalar> {
    pub name: &'static str,
    pub kind: Setup,
    /// rotg: a, b, s; rotmg: d1, d2, x1, param.
    pub ops: Vec<(&'static str, BatchMut<'a, 'b, T>)>,
    /// rotg: c.
    pub real: Option<BatchMut<'a, 'b, T::Real>>,
    /// rotmg: y1.
    pub input: Option<Batch<'a, T>>,
}

/// One set-up call on its way through [`drive`].
struct RotationSetup<'a, 'b, T: Scalar> {
    call: SetupCall<'a, 'b, T>,
    batch: usize,
}

impl<T: Scalar> Routine for RotationSetup<'_, '_, T> {
    type Plan = NoWorkspace;

    fn name(&self) -> &'static str {
        self.call.name
    }

    fn check_sizes(&mut self) -> Result<(), Error> {
        let (c, batch) = (&self.call, self.batch);
        let name = c.name;
        for (what, b) in &c.ops {
            check_counts(name, (c.ops[0].0, batch), (what, b.count()))?;
        }
        if let Some(r) = &c.real {
            check_counts(name, (c.ops[0].0, batch), ("c", r.count()))?;
        }
        if let Some(i) = &c.input {
            check_counts(name, (c.ops[0].0, batch), ("y1", i.count()))?;
        }
        Ok(())
    }

    fn full(&mut self, _h: &mut Handle) -> Result<Option<NoWorkspace>, Error> {
        Ok((self.batch > 0).then_some(NoWorkspace))
    }

    fn check_operands(&mut self, h: &mut Handle) -> Result<(), Error> {
        let c = &self.call;
        let ck = Checker { h, call: c.name };
        for (what, b) in &c.ops {
            let need = if *what == "param" { 5 } else { 1 };
            ck.batch(
                what,
                &b.view(),
                need,
                &|| "one value".to_string(),
                true,
                None,
            )?;
        }
        if let Some(r) = &c.real {
            ck.batch("c", &r.view(), 1, &|| "one value".to_string(), true, None)?;
        }
        if let Some(i) = &c.input {
            ck.batch("y1", i, 1, &|| "one value".to_string(), false, None)?;
        }
        Ok(())
    }

    fn fitted(&mut self, _capacity: usize) -> Result<Option<NoWorkspace>, Error> {
        Ok(Some(NoWorkspace))
    }

    fn minimum(&self) -> String {
        "needs no workspace".to_string()
    }

    fn run(&mut self, lease: &WorkspaceLease<'_>, _plan: &NoWorkspace) -> Result<(), Error> {
        let h = lease.handle();
        if h.device().backend() == Backend::Cuda {
            cuda_update::setup(h, &self.call)
        } else {
            host_update::setup(&mut self.call)
        }
    }
}

fn run_setup<T: Scalar>(h: &mut Handle, call: SetupCall<'_, '_, T>) -> Result<Status, Error> {
    let batch = call.ops[0].1.count();
    drive(h, &mut RotationSetup { call, batch })
}

/// Builds the plane rotation that zeroes `b`: on return `a` holds `r`, `c` and `s` the
/// rotation, and (real types) `b` holds the reconstruction value `z` (`?rotg`). Complex
/// `a = 0` follows reference BLAS 3.10+: `r = |b|`, `s = conj(b) / |b|`, `c = 0` (`c = 1`,
/// `s = 0` when `b` is 0 too). All values are element 0 of their device buffers, so nothing
/// waits.
pub fn rotg<T: Scalar>(
    h: &mut Handle,
    a: &mut DeviceBuffer<T>,
    b: &mut DeviceBuffer<T>,
    c: &mut DeviceBuffer<T::Real>,
    s: &mut DeviceBuffer<T>,
) -> Result<Status, Error> {
    run_setup(
        h,
        SetupCall {
            name: "rotg",
            kind: Setup::Rotg,
            ops: vec![
                ("a", BatchMut::Single(a)),
                ("b", BatchMut::Single(b)),
                ("s", BatchMut::Single(s)),
            ],
            real: Some(BatchMut::Single(c)),
            input: None,
        },
    )
}
/// `rotg` of each entry of four lists.
pub fn rotg_batched<'b, T: Scalar>(
    h: &mut Handle,
    a: &mut [&'b mut DeviceBuffer<T>],
    b: &mut [&'b mut DeviceBuffer<T>],
    c: &mut [&'b mut DeviceBuffer<T::Real>],
    s: &mut [&'b mut DeviceBuffer<T>],
) -> Result<Status, Error> {
    run_setup(
        h,
        SetupCall {
            name: "rotg_batched",
            kind: Setup::Rotg,
            ops: vec![
                ("a", BatchMut::List(a)),
                ("b", BatchMut::List(b)),
                ("s", BatchMut::List(s)),
            ],
            real: Some(BatchMut::List(c)),
            input: None,
        },
    )
}
/// `rotg` of `batch` entries at strides `stride_a`, `stride_b`, `stride_c`, `stride_s`.
#[allow(clippy::too_many_arguments)]
pub fn rotg_strided_batched<T: Scalar>(
    h: &mut Handle,
    a: &mut DeviceBuffer<T>,
    stride_a: usize,
    b: &mut DeviceBuffer<T>,
    stride_b: usize,
    c: &mut DeviceBuffer<T::Real>,
    stride_c: usize,
    s: &mut DeviceBuffer<T>,
    stride_s: usize,
    batch: usize,
) -> Result<Status, Error> {
    run_setup(
        h,
        SetupCall {
            name: "rotg_strided_batched",
            kind: Setup::Rotg,
            ops: vec![
                (
                    "a",
                    BatchMut::Strided {
                        buf: a,
                        stride: stride_a,
                        count: batch,
                    },
                ),
                (
                    "b",
                    BatchMut::Strided {
                        buf: b,
                        stride: stride_b,
                        count: batch,
                    },
                ),
                (
                    "s",
                    BatchMut::Strided {
                        buf: s,
                        stride: stride_s,
                        count: batch,
                    },
                ),
            ],
            real: Some(BatchMut::Strided {
                buf: c,
                stride: stride_c,
                count: batch,
            }),
            input: None,
        },
    )
}

/// Builds the modified Givens rotation that zeroes `sqrt(d2) y1`: updates `d1`, `d2`, `x1`
/// and writes `param = [flag, h11, h21, h12, h22]` (`?rotmg`, reference BLAS algorithm).
pub fn rotmg<T: RealScalar>(
    h: &mut Handle,
    d1: &mut DeviceBuffer<T>,
    d2: &mut DeviceBuffer<T>,
    x1: &mut DeviceBuffer<T>,
    y1: &DeviceBuffer<T>,
    param: &mut DeviceBuffer<T>,
) -> Result<Status, Error> {
    run_setup(
        h,
        SetupCall {
            name: "rotmg",
            kind: Setup::Rotmg,
            ops: vec![
                ("d1", BatchMut::Single(d1)),
                ("d2", BatchMut::Single(d2)),
                ("x1", BatchMut::Single(x1)),
                ("param", BatchMut::Single(param)),
            ],
            real: None,
            input: Some(Batch::Single(y1)),
        },
    )
}
/// `rotmg` of each entry of five lists.
pub fn rotmg_batched<'b, T: RealScalar>(
    h: &mut Handle,
    d1: &mut [&'b mut DeviceBuffer<T>],
    d2: &mut [&'b mut DeviceBuffer<T>],
    x1: &mut [&'b mut DeviceBuffer<T>],
    y1: &[&DeviceBuffer<T>],
    param: &mut [&'b mut DeviceBuffer<T>],
) -> Result<Status, Error> {
    run_setup(
        h,
        SetupCall {
            name: "rotmg_batched",
            kind: Setup::Rotmg,
            ops: vec![
                ("d1", BatchMut::List(d1)),
                ("d2", BatchMut::List(d2)),
                ("x1", BatchMut::List(x1)),
                ("param", BatchMut::List(param)),
            ],
            real: None,
            input: Some(Batch::list(y1)),
        },
    )
}
/// `rotmg` of `batch` entries at the given strides.
#[allow(clippy::too_many_arguments)]
pub fn rotmg_strided_batched<T: RealScalar>(
    h: &mut Handle,
    d1: &mut DeviceBuffer<T>,
    stride_d1: usize,
    d2: &mut DeviceBuffer<T>,
    stride_d2: usize,
    x1: &mut DeviceBuffer<T>,
    stride_x1: usize,
    y1: &DeviceBuffer<T>,
    stride_y1: usize,
    param: &mut DeviceBuffer<T>,
    stride_param: usize,
    batch: usize,
) -> Result<Status, Error> {
    run_setup(
        h,
        SetupCall {
            name: "rotmg_strided_batched",
            kind: Setup::Rotmg,
            ops: vec![
                (
                    "d1",
                    BatchMut::Strided {
                        buf: d1,
                        stride: stride_d1,
                        count: batch,
                    },
                ),
                (
                    "d2",
                    BatchMut::Strided {
                        buf: d2,
                        stride: stride_d2,
                        count: batch,
                    },
                ),
                (
                    "x1",
                    BatchMut::Strided {
                        buf: x1,
                        stride: stride_x1,
                        count: batch,
                    },
                ),
                (
                    "param",
                    BatchMut::Strided {
                        buf: param,
                        stride: stride_param,
                        count: batch,
                    },
                ),
            ],
            real: None,
            input: Some(Batch::Strided {
                buf: y1,
                stride: stride_y1,
                count: batch,
            }),
        },
    )
}
