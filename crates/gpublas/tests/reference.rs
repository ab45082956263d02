#![allow(clippy::too_many_arguments, clippy::needless_range_loop)]
//! Valid calls that reference BLAS and LAPACK accept, on both backends (issue 27, SPEC F3, F9,
//! M16): zero increments, band widths past the matrix, zero dimensions, complex arithmetic
//! near overflow and underflow, the triangle a routine must not reference, and transfers and
//! frees that never wait for the whole device. References are plain f64 loops in the tests.

mod common;

#[path = "reference/complex_scaling.rs"]
mod complex_scaling;
#[path = "reference/increments.rs"]
mod increments;
#[path = "reference/stream_order.rs"]
mod stream_order;
#[path = "reference/uplo.rs"]
mod uplo;
#[path = "reference/zero_dims.rs"]
mod zero_dims;
