//! The CUDA backend of Level 2 (kernels in `kernels/blas2.cu`).

use super::plan::Plan;
use super::Call;
use crate::{Error, Scalar, WorkspaceLease};

pub(super) fn run<T: Scalar>(
    _lease: &WorkspaceLease<'_>,
    _c: &Call<'_, '_, T>,
    _plan: &Plan,
    _addrs: &[u64],
) -> Result<(), Error> {
    Err(Error::Unsupported("Level 2 on CUDA: not built yet".into()))
}
