//! The CUDA backend of the vector updates and rotation set-ups (kernels in `kernels/blas1u.cu`).

use super::update::{SetupCall, UpdCall};
use crate::{Error, Handle, Scalar};

pub(super) fn run<T: Scalar>(_h: &Handle, _c: &UpdCall<'_, '_, T>) -> Result<(), Error> {
    Err(Error::Unsupported("not built yet".into()))
}

pub(super) fn setup<T: Scalar>(_h: &Handle, _c: &SetupCall<'_, '_, T>) -> Result<(), Error> {
    Err(Error::Unsupported("not built yet".into()))
}
