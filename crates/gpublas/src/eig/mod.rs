//! Symmetric and Hermitian eigensolvers: `syevd`/`heevd` (every order; eigenvalues ascending,
//! eigenvectors optional) and the batched Jacobi solver `syevj_batched`/`heevj_batched`
//! (orders up to 64, with tolerance, sweep limit, per-entry residual and sweep count), for
//! `f32`, `f64`, `Complex32`, `Complex64`, with rocSOLVER's argument order and LAPACK's
//! results (`W` ascending, the orthonormal eigenvectors in the columns of `A`).
//!
//! Backends. The host runs `syevd` per entry with faer's self-adjoint eigendecomposition
//! (tridiagonalization, then QR iteration or divide and conquer) and `syevj` with the same
//! cyclic Jacobi algorithm as the CUDA kernel (`kernels/eig.cu`, described there), in plain
//! loops. On CUDA both run the Jacobi kernel — one thread block per matrix, the matrix and
//! its eigenvectors in shared memory — for orders up to 64 (`syevd` to full precision, sorted).
//! `syevd` of larger orders on CUDA runs the two-stage reduction (`two_stage.rs`: dense to
//! band by blocked Householder and products, band to tridiagonal by bulge chasing, faer's
//! divide and conquer on the host for the tridiagonal, the eigenvectors back through both
//! stages' reflectors by products); its tridiagonal stage waits for the stream, so it is
//! refused during graph capture.
//!
//! Non-finite input: a NaN or infinity in the referenced triangle gives NaN eigenvalues (and,
//! with eigenvectors, a NaN `A`) and `info = n + 1` (`syevd`) or `info = 1` with a NaN residual
//! and 0 sweeps (`syevj`), per entry; nothing iterates on it.
//!
//! Workspace (one function, F4: `plan.rs`): only results routed to host memory; a fixed
//! workspace too small for them runs the batch in chunks (`PerfDegraded`).

pub(crate) mod api;
pub(crate) mod band;
pub(crate) mod bulge;
mod cuda;
pub(crate) mod dc;
mod family;
mod host;
pub(crate) mod plan;
pub(crate) mod q2;
mod two_stage;

use crate::common::operand::{check_int_buffer, check_ld, mat_span, span_or, BatchMut, Checker};
use crate::common::operand::{Batch, Results};
use crate::common::plan::{drive, Routine};
use crate::device::{Backend, DeviceBuffer, Element};
use crate::{Error, Esort, Evect, Handle, Scalar, Status, Uplo, WorkspaceLease};
use plan::{EigParams, EigPlan, EigShape};

/// The routine a call runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Divide and conquer (LAPACK's `syevd`): on the host faer's, on CUDA the Jacobi kernel
    /// for orders up to 64.
    Syevd,
    /// The batched Jacobi solver.
    Syevj,
}

/// `syevj`'s own arguments: tolerance, sweep limit and the per-entry residuals and sweeps.
pub(crate) struct JacobiArgs<'a, R> {
    pub abstol: R,
    pub max_sweeps: usize,
    pub residual: Results<'a, R>,
    pub sweeps: Results<'a, i32>,
}

/// One call's arguments, for every routine and form.
pub(crate) struct Call<'a, 'b, T: Scalar> {
    pub name: &'static str,
    pub kind: Kind,
    pub evect: Evect,
    pub sort: Esort,
    pub uplo: Uplo,
    pub n: usize,
    pub a: BatchMut<'a, 'b, T>,
    pub lda: usize,
    pub w: &'a mut DeviceBuffer<T::Real>,
    pub stride_w: usize,
    pub info: Results<'a, i32>,
    pub jacobi: Option<JacobiArgs<'a, T::Real>>,
}

impl<T: Scalar> Call<'_, '_, T> {
    fn batch(&self) -> usize {
        self.a.count()
    }

    fn a_why(&self) -> String {
        format!("A of order n = {} with lda = {}", self.n, self.lda)
    }

    /// Elements `W` must hold: `(batch − 1)·stride_w + n`.
    fn w_need(&self) -> Option<usize> {
        let batch = self.batch();
        if batch == 0 || self.n == 0 {
            return Some(0);
        }
        (batch - 1).checked_mul(self.stride_w)?.checked_add(self.n)
    }

    /// Size and shape checks (F2 step 1), spans included.
    fn check_sizes(&self, params: &EigParams) -> Result<(), Error> {
        let name = self.name;
        check_ld(name, "lda", self.lda, self.n, "n")?;
        span_or(name, mat_span(self.n, self.n, self.lda), &|| self.a_why())?;
        let batch = self.batch();
        if batch > 1 && self.stride_w < self.n {
            return Err(Error::InvalidValue(format!(
                "{name}: stride_w = {} is less than the n = {} eigenvalues of one entry: the \
                 entries' eigenvalues would overlap",
                self.stride_w, self.n
            )));
        }
        span_or(name, self.w_need(), &|| {
            format!(
                "W of {batch} entries of {} at stride_w = {}",
                self.n, self.stride_w
            )
        })?;
        if let Some(j) = &self.jacobi {
            if self.n > params.jacobi_max {
                return Err(Error::InvalidSize(format!(
                    "{name}: n = {} exceeds {}, the largest order the Jacobi solver takes (one \
                     thread block per matrix); syevd_batched takes any order",
                    self.n, params.jacobi_max
                )));
            }
            if j.max_sweeps == 0 {
                return Err(Error::InvalidSize(format!(
                    "{name}: max_sweeps = 0; at least one sweep is needed"
                )));
            }
        }
        Ok(())
    }

    /// Operand checks (F2 step 3, F7, F9). Outputs cannot overlap each other: each is its
    /// own `&mut` borrow.
    fn check_operands(&self, h: &Handle) -> Result<(), Error> {
        let name = self.name;
        let ck = Checker { h, call: name };
        let batch = self.batch();
        let need = span_or(name, mat_span(self.n, self.n, self.lda), &|| self.a_why())?;
        ck.batch("A", &self.a.view(), need, &|| self.a_why(), true, None)?;
        let w_need = self
            .w_need()
            .ok_or_else(|| Error::InvalidSize(format!("{name}: W's span overflows")))?;
        let w_why = || {
            format!(
                "{batch} entries of n = {} eigenvalues at stride_w = {}",
                self.n, self.stride_w
            )
        };
        ck.batch("W", &Batch::Single(&*self.w), w_need, &w_why, false, None)?;
        check_int_results(h, name, "info", &self.info, batch)?;
        if let Some(j) = &self.jacobi {
            check_int_results(h, name, "n_sweeps", &j.sweeps, batch)?;
            check_real_results(h, name, "residual", &j.residual, batch)?;
        }
        let host_routed = self.info.is_host()
            || self
                .jacobi
                .as_ref()
                .is_some_and(|j| j.sweeps.is_host() || j.residual.is_host());
        if h.device().backend() == Backend::Cuda && host_routed && h.stream().is_capturing()? {
            return Err(Error::Unsupported(format!(
                "{name}: results to host memory need a host synchronisation, which graph capture \
                 forbids; pass device buffers (Results::Device)"
            )));
        }
        Ok(())
    }

    fn shape(&self) -> EigShape {
        EigShape {
            batch: self.batch(),
            real_bytes: std::mem::size_of::<T::Real>(),
            info_host: self.info.is_host(),
            sweeps_host: self.jacobi.as_ref().is_some_and(|j| j.sweeps.is_host()),
            residual_host: self.jacobi.as_ref().is_some_and(|j| j.residual.is_host()),
        }
    }

    fn quick(&self) -> bool {
        self.n == 0 || self.batch() == 0
    }
}

/// An `i32` result destination holds one value per entry and is real memory of the handle's
/// device (F7).
fn check_int_results(
    h: &Handle,
    name: &str,
    what: &str,
    r: &Results<'_, i32>,
    batch: usize,
) -> Result<(), Error> {
    if let Results::Device(b) = r {
        check_int_buffer(h, name, what, b)?;
    }
    check_result_len(name, what, r.len(), batch)
}

/// A real result destination holds one value per entry and is real memory of the handle's
/// device (F7).
fn check_real_results<R: Element>(
    h: &Handle,
    name: &'static str,
    what: &str,
    r: &Results<'_, R>,
    batch: usize,
) -> Result<(), Error> {
    if let Results::Device(b) = r {
        if b.is_placeholder() || !b.is_on(h.device()) {
            let ck = Checker { h, call: name };
            return ck.batch(
                what,
                &Batch::Single(&**b),
                batch,
                &|| String::new(),
                false,
                None,
            );
        }
        b.mark_used(h.stream());
    }
    check_result_len(name, what, r.len(), batch)
}

fn check_result_len(name: &str, what: &str, len: usize, batch: usize) -> Result<(), Error> {
    if len < batch {
        return Err(Error::InvalidValue(format!(
            "{name}: {what} has {len} elements; one per entry ({batch}) is needed"
        )));
    }
    Ok(())
}

/// Sets the first `n` results to zero (a quick return): at once on the host, a memset in the
/// stream's order on the GPU.
fn zero_results<R: Element>(h: &Handle, r: &mut Results<'_, R>, n: usize) -> Result<(), Error> {
    match r {
        Results::Host(s) => s[..n].fill(R::zeroed()),
        Results::Device(b) => match b.host_slice_mut() {
            Some(s) => s[..n].fill(R::zeroed()),
            None => {
                let addr = b.device_ptr().unwrap_or(0);
                h.stream().bind()?;
                h.stream()
                    .memset32(addr, 0, n * std::mem::size_of::<R>() / 4)?;
            }
        },
    }
    Ok(())
}

/// An eigensolver call on its way through the driver.
struct EigRoutine<'a, 'b, T: Scalar> {
    call: Call<'a, 'b, T>,
    params: EigParams,
    cuda: bool,
}

impl<T: Scalar> EigRoutine<'_, '_, T> {
    fn shape(&self) -> EigShape {
        self.call.shape()
    }
}

impl<T: Scalar> Routine for EigRoutine<'_, '_, T> {
    type Plan = EigPlan;

    fn name(&self) -> &'static str {
        self.call.name
    }

    fn check_sizes(&mut self) -> Result<(), Error> {
        self.call.check_sizes(&self.params)
    }

    fn full(&mut self, _h: &mut Handle) -> Result<Option<EigPlan>, Error> {
        let c = &self.call;
        if c.quick() {
            return Ok(None);
        }
        Ok(Some(self.shape().full()))
    }

    fn check_operands(&mut self, h: &mut Handle) -> Result<(), Error> {
        self.call.check_operands(h)
    }

    fn quick_return(&mut self, h: &mut Handle) -> Result<Status, Error> {
        // n = 0: info 0 (LAPACK), no sweeps and a zero residual (rocSOLVER).
        let batch = self.call.batch();
        if batch > 0 {
            zero_results(h, &mut self.call.info, batch)?;
            if let Some(j) = self.call.jacobi.as_mut() {
                zero_results(h, &mut j.sweeps, batch)?;
                zero_results(h, &mut j.residual, batch)?;
            }
        }
        Ok(Status::Success)
    }

    fn fitted(&mut self, cap: usize) -> Result<Option<EigPlan>, Error> {
        Ok(self.shape().fitted(cap))
    }

    fn minimum(&self) -> String {
        self.shape().minimum_text()
    }

    fn run(&mut self, lease: &WorkspaceLease<'_>, plan: &EigPlan) -> Result<(), Error> {
        if self.cuda {
            cuda::run(lease, &mut self.call, plan, &self.params)
        } else {
            host::run(lease.handle(), &mut self.call)
        }
    }
}

/// The one implementation behind every eigensolver routine (F1, F2).
pub(crate) fn run<T: Scalar>(h: &mut Handle, call: Call<'_, '_, T>) -> Result<Status, Error> {
    let cuda = h.device().backend() == Backend::Cuda;
    if cuda && call.kind == Kind::Syevd && call.n > EigParams::auto().jacobi_max {
        return two_stage::run(h, call);
    }
    let mut r = EigRoutine {
        call,
        params: EigParams::auto(),
        cuda,
    };
    drive(h, &mut r)
}
