//! Householder QR on the handle: `geqrf`, `orgqr`/`ungqr`, `ormqr`/`unmqr`.

pub(crate) mod api;

use crate::common::operand::{Batch, BatchMut};
use crate::device::DeviceBuffer;
use crate::{Error, Handle, Op, Scalar, Side, Status};

/// The routine a call runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Geqrf,
    Orgqr,
    Ormqr,
}

/// One call's arguments, for every routine and form.
pub(crate) struct Call<'a, 'b, T: Scalar> {
    pub name: &'static str,
    pub kind: Kind,
    pub side: Side,
    pub op: Op,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub written: BatchMut<'a, 'b, T>,
    pub ld_written: usize,
    pub a: Option<(Batch<'a, T>, usize)>,
    pub tau_out: Option<&'a mut DeviceBuffer<T>>,
    pub tau_in: Option<&'a DeviceBuffer<T>>,
    pub stride_tau: usize,
}

impl<'a, 'b, T: Scalar> Call<'a, 'b, T> {
    pub(crate) fn geqrf(
        name: &'static str,
        a: BatchMut<'a, 'b, T>,
        lda: usize,
        (m, n): (usize, usize),
        tau: &'a mut DeviceBuffer<T>,
        stride_tau: usize,
    ) -> Self {
        Call {
            name,
            kind: Kind::Geqrf,
            side: Side::Left,
            op: Op::N,
            m,
            n,
            k: m.min(n),
            written: a,
            ld_written: lda,
            a: None,
            tau_out: Some(tau),
            tau_in: None,
            stride_tau,
        }
    }

    pub(crate) fn orgqr(
        name: &'static str,
        a: BatchMut<'a, 'b, T>,
        lda: usize,
        (m, n, k): (usize, usize, usize),
        tau: &'a DeviceBuffer<T>,
        stride_tau: usize,
    ) -> Self {
        Call {
            name,
            kind: Kind::Orgqr,
            side: Side::Left,
            op: Op::N,
            m,
            n,
            k,
            written: a,
            ld_written: lda,
            a: None,
            tau_out: None,
            tau_in: Some(tau),
            stride_tau,
        }
    }

    pub(crate) fn ormqr(
        name: &'static str,
        (side, op): (Side, Op),
        (m, n, k): (usize, usize, usize),
        a: (Batch<'a, T>, usize),
        (tau, stride_tau): (&'a DeviceBuffer<T>, usize),
        c: BatchMut<'a, 'b, T>,
        ldc: usize,
    ) -> Self {
        Call {
            name,
            kind: Kind::Ormqr,
            side,
            op,
            m,
            n,
            k,
            written: c,
            ld_written: ldc,
            a: Some(a),
            tau_out: None,
            tau_in: Some(tau),
            stride_tau,
        }
    }
}

/// The one implementation behind every QR routine (F1, F2).
pub(crate) fn run<T: Scalar>(_h: &mut Handle, c: Call<'_, '_, T>) -> Result<Status, Error> {
    Err(Error::Unsupported(format!("{}: not built yet", c.name)))
}
