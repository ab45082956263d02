//! The executor: the layer under every family that runs block programs (Level 3, the solver,
//! and the families to come). A family builds a program (`program::Step`s over the operand
//! spaces of `Operands` and the named workspace parts of `BlockWorkspace`); the executor runs
//! it on the CUDA backend (`cuda.rs`: cuBLASLt products fed from the handle's lease, the block
//! kernels, the side lane, the per-step profiler) or on the host (`host.rs`: faer products and
//! plain loops). Steps a family adds of its own (the solver's panel LU, interchanges and
//! Cholesky leaves) reach the executor as `Step::Family` and are run by the family's
//! [`FamilySteps`]. The executor imports no family.

pub(crate) mod cuda;
pub(crate) mod host;
pub(crate) mod program;
pub(crate) mod workspace;

use std::fmt::Debug;

use crate::common::operand::{Batch, BatchMut};
use crate::device::Stream;
use crate::{Coef, Error, Scalar};

/// Steps a family adds to the executor's own, and what runs them. The executor hands each
/// family step over in program order, on the lane the program puts it on.
pub(crate) trait FamilySteps {
    /// The family's step type.
    type Step: Copy + Debug + PartialEq;

    /// Launches `step` on `stream` for batch entries `entries.0 .. entries.0 + entries.1`,
    /// whose spaces start where `bases` says (space C: the written matrices); `side`: the
    /// stream is the side or aux lane, which leave most of the device to the main lane.
    fn launch<T: Scalar>(
        &self,
        stream: &Stream,
        step: &Self::Step,
        bases: &cuda::Bases,
        entries: (usize, usize),
        side: bool,
    ) -> Result<(), Error>;

    /// Runs `step` on the host on batch entry `entry`, whose spaces are `spaces`.
    fn exec<T: Scalar>(
        &mut self,
        spaces: &mut host::Spaces<'_, T>,
        step: &Self::Step,
        entry: usize,
    ) -> Result<(), Error>;
}

/// The step type of a family with no steps of its own (Level 3): it has no values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NoSteps {}

/// The family of programs made only of the executor's own steps (Level 3).
pub(crate) struct OnlyBlocks;

impl FamilySteps for OnlyBlocks {
    type Step = NoSteps;

    fn launch<T: Scalar>(
        &self,
        _: &Stream,
        step: &NoSteps,
        _: &cuda::Bases,
        _: (usize, usize),
        _: bool,
    ) -> Result<(), Error> {
        match *step {}
    }

    fn exec<T: Scalar>(
        &mut self,
        _: &mut host::Spaces<'_, T>,
        step: &NoSteps,
        _: usize,
    ) -> Result<(), Error> {
        match *step {}
    }
}

/// A scalar argument: of the element type, or real (`herk`'s `alpha`, the Hermitian `beta`s).
#[derive(Clone, Copy)]
pub(crate) enum ScalarArg<'a, T: Scalar> {
    Full(Coef<'a, T>),
    Real(Coef<'a, T::Real>),
}

impl<T: Scalar> ScalarArg<'_, T> {
    /// The value when it is on the host.
    pub(crate) fn host(&self) -> Option<T> {
        match self {
            ScalarArg::Full(c) => c.host(),
            ScalarArg::Real(c) => c.host().map(T::from_real),
        }
    }

    pub(crate) fn on_device(&self) -> bool {
        self.host().is_none()
    }

    pub(crate) fn per_entry(&self) -> bool {
        match self {
            ScalarArg::Full(c) => matches!(c, Coef::DevicePerEntry(_)),
            ScalarArg::Real(c) => matches!(c, Coef::DevicePerEntry(_)),
        }
    }
}

/// The caller's operands of a program, by space: `A` and `B` read, `C` written, the scalars
/// behind `K::Alpha`/`K::Beta`, and the batch entries to run.
pub(crate) struct Operands<'x, 'b, T: Scalar> {
    pub a: Batch<'x, T>,
    pub b: Option<Batch<'x, T>>,
    pub c: BatchMut<'x, 'b, T>,
    pub alpha: ScalarArg<'x, T>,
    pub beta: ScalarArg<'x, T>,
    /// Entries `range.0 .. range.1` run (a family may run its batch in chunks).
    pub range: (usize, usize),
}

impl<'x, 'b, T: Scalar> Operands<'x, 'b, T> {
    /// A LAPACK family's operands for entries `range`: `c` written, `a` read (or `placeholder`,
    /// memoryless, for programs that read no A), the scalars 1 and 0.
    pub(crate) fn lapack(
        a: Option<Batch<'x, T>>,
        placeholder: &'x crate::DeviceBuffer<T>,
        c: BatchMut<'x, 'b, T>,
        range: (usize, usize),
    ) -> Self {
        let count = c.count();
        Operands {
            a: a.unwrap_or(Batch::Strided {
                buf: placeholder,
                stride: 0,
                count,
            }),
            b: None,
            c,
            alpha: ScalarArg::Full(Coef::Host(T::one())),
            beta: ScalarArg::Full(Coef::Host(T::zero())),
            range,
        }
    }
}

impl<T: Scalar> Operands<'_, '_, T> {
    /// The scalars differ between entries (device scalars, one per entry).
    pub(crate) fn per_entry_scalars(&self) -> bool {
        self.alpha.per_entry() || self.beta.per_entry()
    }

    /// A scalar lives in device memory.
    pub(crate) fn device_scalars(&self) -> bool {
        self.alpha.on_device() || self.beta.on_device()
    }
}

/// How a plan lays out the workspace per batch entry: how many entries run at once, and the
/// elements of E and R each entry has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub entries: usize,
    pub e_elems: usize,
    pub r_elems: usize,
}
