//! The arguments of the reference interface: the options' letters, and how many elements an
//! operand spans (what the caller's array must hold, so what is lent to gpublas).

use gpublas::{Diag, Op, Side, Uplo};

use crate::ffi::{xerbla, Int};

/// Elements a vector of `n` entries `inc` apart spans (reference BLAS: `1 + (n - 1)|inc|`).
pub(crate) fn vec_len(n: Int, inc: Int) -> usize {
    if n <= 0 {
        0
    } else {
        1 + (n as usize - 1) * inc.unsigned_abs() as usize
    }
}

/// Elements a column-major `rows` × `cols` matrix with leading dimension `ld` spans.
pub(crate) fn mat_len(rows: Int, cols: Int, ld: Int) -> usize {
    if rows <= 0 || cols <= 0 {
        0
    } else {
        (cols as usize - 1) * ld.max(1) as usize + rows as usize
    }
}

/// Elements a packed triangle of order `n` holds.
pub(crate) fn packed_len(n: Int) -> usize {
    let n = n.max(0) as usize;
    n * (n + 1) / 2
}

/// The position of the first illegal argument: the first of `checks` (`(illegal, position)`,
/// in reference BLAS's or LAPACK's order) that holds.
pub(crate) fn first_illegal(checks: &[(bool, Int)]) -> Option<Int> {
    checks.iter().find(|c| c.0).map(|c| c.1)
}

/// Whether a call is legal; if not, its first illegal argument (see [`first_illegal`]) is
/// reported through `xerbla` for routine `name`.
pub(crate) fn legal(name: &str, checks: &[(bool, Int)]) -> bool {
    match first_illegal(checks) {
        Some(info) => {
            xerbla(name, info);
            false
        }
        None => true,
    }
}

/// A call's work and traffic: (floating-point operations, bytes of its operands). `real_flops`
/// is counted as for real numbers (four times that for complex ones: a complex multiply-add
/// is four real ones); `elements` are those of its operands, each copied once each way.
pub(crate) fn work<T: gpublas::Scalar>(real_flops: f64, elements: f64) -> (f64, f64) {
    let flops = if T::COMPLEX {
        4.0 * real_flops
    } else {
        real_flops
    };
    (flops, 2.0 * elements * std::mem::size_of::<T>() as f64)
}

/// TRANS: `N`, `T` or `C` (any case); `None` for another letter.
pub(crate) fn op(c: u8) -> Option<Op> {
    match c {
        b'N' => Some(Op::N),
        b'T' => Some(Op::T),
        b'C' => Some(Op::C),
        _ => None,
    }
}

/// UPLO: `U` or `L`.
pub(crate) fn uplo(c: u8) -> Option<Uplo> {
    match c {
        b'U' => Some(Uplo::Upper),
        b'L' => Some(Uplo::Lower),
        _ => None,
    }
}

/// DIAG: `U` (unit) or `N`.
pub(crate) fn diag(c: u8) -> Option<Diag> {
    match c {
        b'U' => Some(Diag::Unit),
        b'N' => Some(Diag::NonUnit),
        _ => None,
    }
}

/// SIDE: `L` or `R`.
pub(crate) fn side(c: u8) -> Option<Side> {
    match c {
        b'L' => Some(Side::Left),
        b'R' => Some(Side::Right),
        _ => None,
    }
}

/// The caller's array at `$p` of `$len` elements, lent to gpublas on `$dev` for the rest of the
/// enclosing closure (`?` on a null or misaligned pointer).
macro_rules! lend {
    ($dev:expr, $p:expr, $len:expr) => {
        // SAFETY: the caller's array holds the elements the reference interface reads there
        // (`$len` of them), and the buffer does not outlive the call.
        unsafe { $crate::ffi::borrow($dev, $p, $len) }?
    };
}
pub(crate) use lend;
