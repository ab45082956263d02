//! gpublas as a drop-in `libblas.so.3`: the reference BLAS binary interface (gfortran's calling
//! convention) and CBLAS over gpublas, so a program linked against BLAS runs on gpublas unchanged
//! (`LD_LIBRARY_PATH`, see the README).
//!
//! Conventions of the exports (`dgemm_`, …):
//! - Every argument by reference; CHARACTER arguments are read by their first character
//!   (case-insensitive, as LSAME) and their hidden lengths, which many C callers omit, are never
//!   read. COMPLEX functions return their value as gfortran does (in registers).
//! - Arguments are checked in reference BLAS's order; the first illegal one is reported through
//!   `xerbla_` with its position, and the call returns without touching any array. A program's
//!   own `xerbla_` replaces this library's, as with reference BLAS.
//! - The caller's arrays are lent to gpublas without a copy (see `context` for where calls run).
//!
//! Status: every routine of reference BLAS 3.11 (Levels 1, 2 and 3 for s, d, c, z and the mixed
//! ones), its CBLAS (149 `cblas_*` functions, row- and column-major) and LAPACK's `getrf`,
//! `getrs`, `gesv`, `potrf`, `potrs`, `posv` (`lapack`) and `geqrf`, `orgqr`/`ungqr`,
//! `ormqr`/`unmqr`, `gelqf`, `ormlq`/`unmlq`, `gels`, `getri`, `potri` (`lapack_qr`), checked by
//! the reference test programs (`scripts/blas-testers`); every other LAPACK routine is forwarded
//! to the system's LAPACK (`forward`), so the library also stands in as `liblapack.so.3`. Level 3
//! and LAPACK run on the GPU above a crossover (`context`).

#![warn(missing_docs)]

mod args;
pub mod cblas;
mod context;
mod ffi;
mod forward;
pub mod lapack;
pub mod lapack_qr;
pub mod level1;
pub mod level2;
pub mod level3;
mod stage;

use std::ffi::c_char;

pub use ffi::Int;
use ffi::{fortran_text, option, read};
pub use forward::{
    expected_fallback, fallback_library, forwardable_routines, forwarded_routines,
    native_lapack_routines,
};

/// Prints reference BLAS's message for an illegal argument (its `xerbla` then stops the program;
/// this one returns, so the call returns with nothing touched).
pub(crate) fn print_xerbla(routine: &str, info: Int) {
    eprintln!(
        " ** On entry to {} parameter number {info:2} had an illegal value",
        routine.trim_end()
    );
}

/// Reference BLAS `xerbla_`: reports an illegal argument. A program that defines its own
/// `xerbla_` replaces this one for every routine of the library.
///
/// # Safety
/// `srname` points to `len` bytes (or is null) and `info` to an integer.
#[no_mangle]
pub unsafe extern "C" fn xerbla_(srname: *const c_char, info: *const Int, len: usize) {
    // SAFETY: as documented above.
    let (name, info) = unsafe { (fortran_text(srname, len), read(info)) };
    print_xerbla(&name, info);
}

/// Reference BLAS `xerbla_array_`: `xerbla` for callers holding the name as an array of
/// `len` characters (C): the name, blank-padded to 32, goes to the program's `xerbla_`.
///
/// # Safety
/// `srname` points to `*len` bytes and `len`, `info` to integers.
#[no_mangle]
pub unsafe extern "C" fn xerbla_array_(srname: *const c_char, len: *const Int, info: *const Int) {
    // SAFETY: as documented above.
    let (len, info) = unsafe { (read(len), read(info)) };
    // SAFETY: `srname` holds `len` bytes.
    let mut name = unsafe { fortran_text(srname, len.clamp(0, 32) as usize) };
    while name.len() < 32 {
        name.push(' ');
    }
    ffi::xerbla(&name, info);
}

/// Reference BLAS `lsame_`: whether two characters are the same letter regardless of case
/// (LOGICAL: 1 or 0).
///
/// # Safety
/// `a` and `b` each point to at least one byte.
#[no_mangle]
pub unsafe extern "C" fn lsame_(a: *const c_char, b: *const c_char) -> Int {
    // SAFETY: as documented above.
    let (a, b) = unsafe { (option(a), option(b)) };
    Int::from(a == b)
}
