//! CBLAS: the C interface of reference BLAS (`cblas_dgemm`, …), row- and column-major.
//!
//! Every `cblas_*` routine of reference CBLAS 3.11 is a thin export over the generic function
//! of `crate::level1`, `level2` or `level3` that serves the Fortran routine beneath it, called
//! the way reference CBLAS calls that routine:
//! - Options are C `int` enums (`CblasRowMajor` = 101, …); integers are `int` by value; real
//!   scalars are passed by value, complex ones (and complex arrays) through `void` pointers, as
//!   `cblas.h` declares them.
//! - Row-major calls become the column-major call of the transposed problem, as in reference
//!   CBLAS (dimensions swapped, UPLO, SIDE and TRANS flipped; where no column-major form
//!   exists, conjugated copies or conjugation in place, as the reference does).
//! - Illegal arguments are found before anything is touched, in the order reference CBLAS
//!   finds them (its own checks of the options, then the Fortran routine's checks of the call
//!   it makes), and reported with their position in the CBLAS call (the layout is argument 1)
//!   through the program's `cblas_xerbla`, as the reference testers expect.

pub mod level1;
pub mod level2;
pub mod level3;

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::atomic::{AtomicI32, Ordering};

use gpublas::{Complex32, Complex64, Scalar};

use crate::args::first_illegal;
use crate::ffi::{read, Int};

/// CBLAS's `CBLAS_LAYOUT`, `CBLAS_TRANSPOSE`, `CBLAS_UPLO`, `CBLAS_DIAG` and `CBLAS_SIDE`
/// values (`cblas.h`).
mod enums {
    use std::ffi::c_int;

    pub const ROW_MAJOR: c_int = 101;
    pub const COL_MAJOR: c_int = 102;
    pub const NO_TRANS: c_int = 111;
    pub const TRANS: c_int = 112;
    pub const CONJ_TRANS: c_int = 113;
    pub const UPPER: c_int = 121;
    pub const LOWER: c_int = 122;
    pub const NON_UNIT: c_int = 131;
    pub const UNIT: c_int = 132;
    pub const LEFT: c_int = 141;
    pub const RIGHT: c_int = 142;
}

/// Reference CBLAS's flag "the current call is row-major", read by a `cblas_xerbla` to map
/// argument positions of the Fortran call back to the CBLAS call. This library reports CBLAS
/// positions itself, so it clears the flag before each report: the program's copy where there
/// is one (the CBLAS testers hold one, through a copy relocation). A 4-byte `int`, as in
/// reference CBLAS.
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static RowMajorStrg: AtomicI32 = AtomicI32::new(0);

/// Reference CBLAS's flag "a Fortran routine runs for a CBLAS call", read by its `xerbla_`.
/// Exported for programs that declare it; this library never sets it (its CBLAS routines find
/// every illegal argument before calling the Fortran ones).
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static CBLAS_CallFromC: AtomicI32 = AtomicI32::new(0);

/// A matrix layout of the C interface.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    RowMajor,
    ColMajor,
}

/// How CBLAS passes a BLAS scalar type: real types as themselves (arrays `float *`, scalars by
/// value), complex types through `void` pointers (arrays `void *`, scalars by address).
pub trait CblasScalar: Scalar {
    /// What an array argument points to in `cblas.h`: the type itself, or `void`.
    type Array;
    /// How a scalar argument (alpha, beta) is passed: by value, or by address.
    type Value: Copy;

    /// The scalar a [`Self::Value`] argument stands for.
    ///
    /// # Safety
    /// An address points to a value of `Self`.
    unsafe fn value(v: Self::Value) -> Self;
}

impl CblasScalar for f32 {
    type Array = f32;
    type Value = f32;
    unsafe fn value(v: f32) -> f32 {
        v
    }
}

impl CblasScalar for f64 {
    type Array = f64;
    type Value = f64;
    unsafe fn value(v: f64) -> f64 {
        v
    }
}

impl CblasScalar for Complex32 {
    type Array = c_void;
    type Value = *const c_void;
    unsafe fn value(v: *const c_void) -> Complex32 {
        // SAFETY: as documented on the trait.
        unsafe { read(v.cast()) }
    }
}

impl CblasScalar for Complex64 {
    type Array = c_void;
    type Value = *const c_void;
    unsafe fn value(v: *const c_void) -> Complex64 {
        // SAFETY: as documented on the trait.
        unsafe { read(v.cast()) }
    }
}

/// One CBLAS call being checked: its name (`"cblas_dgemm"`), for reports.
#[derive(Clone, Copy)]
pub(crate) struct Call(pub(crate) &'static str);

/// An integer argument with its position in the CBLAS call. A row-major call swaps arguments
/// on their way to the Fortran routine; carried along, a check of the Fortran call still names
/// the CBLAS argument.
#[derive(Clone, Copy)]
pub(crate) struct Arg {
    pub(crate) value: Int,
    pub(crate) position: Int,
}

/// `value` as argument number `position`.
pub(crate) fn arg(value: Int, position: Int) -> Arg {
    Arg { value, position }
}

impl Call {
    /// The layout (argument 1), or `None` after reporting an illegal one.
    pub(crate) fn layout(self, value: c_int) -> Option<Layout> {
        match value {
            enums::ROW_MAJOR => Some(Layout::RowMajor),
            enums::COL_MAJOR => Some(Layout::ColMajor),
            _ => self.illegal_option(1, "layout", value),
        }
    }

    /// A CBLAS_TRANSPOSE argument as the Fortran letter it stands for (`N`, `T`, `C`), or
    /// `None` after reporting it (`what`: its name in reference CBLAS's message).
    pub(crate) fn trans(self, position: Int, what: &str, value: c_int) -> Option<u8> {
        match value {
            enums::NO_TRANS => Some(b'N'),
            enums::TRANS => Some(b'T'),
            enums::CONJ_TRANS => Some(b'C'),
            _ => self.illegal_option(position, what, value),
        }
    }

    /// A CBLAS_UPLO argument as `U` or `L`, or `None` after reporting it.
    pub(crate) fn uplo(self, position: Int, value: c_int) -> Option<u8> {
        match value {
            enums::UPPER => Some(b'U'),
            enums::LOWER => Some(b'L'),
            _ => self.illegal_option(position, "Uplo", value),
        }
    }

    /// A CBLAS_DIAG argument as `U` (unit) or `N`, or `None` after reporting it.
    pub(crate) fn diag(self, position: Int, value: c_int) -> Option<u8> {
        match value {
            enums::UNIT => Some(b'U'),
            enums::NON_UNIT => Some(b'N'),
            _ => self.illegal_option(position, "Diag", value),
        }
    }

    /// A CBLAS_SIDE argument as `L` or `R`, or `None` after reporting it.
    pub(crate) fn side(self, position: Int, value: c_int) -> Option<u8> {
        match value {
            enums::LEFT => Some(b'L'),
            enums::RIGHT => Some(b'R'),
            _ => self.illegal_option(position, "Side", value),
        }
    }

    /// Reports an illegal option with reference CBLAS's message.
    fn illegal_option<R>(self, position: Int, what: &str, value: c_int) -> Option<R> {
        report(
            self.0,
            position,
            &format!("Illegal {what} setting, {value}\n"),
        );
        None
    }

    /// Whether the call is legal; if not, the first of `checks` (`(illegal, position)`, in the
    /// order reference CBLAS finds them) that holds is reported.
    pub(crate) fn legal(self, checks: &[(bool, Int)]) -> bool {
        match first_illegal(checks) {
            Some(position) => {
                report(self.0, position, "");
                false
            }
            None => true,
        }
    }
}

/// UPLO of the transposed matrix: a row-major triangle is the other column-major one.
pub(crate) fn flip_uplo(uplo: u8) -> u8 {
    if uplo == b'U' {
        b'L'
    } else {
        b'U'
    }
}

/// SIDE of the transposed product.
pub(crate) fn flip_side(side: u8) -> u8 {
    if side == b'L' {
        b'R'
    } else {
        b'L'
    }
}

type CblasXerbla = unsafe extern "C" fn(Int, *const c_char, *const c_char, ...);

/// Reports argument `position` of `routine` as illegal through the program's `cblas_xerbla`
/// (ELF interposition, as for `xerbla_`: the CBLAS testers define their own), else this
/// library's. `form` is reference CBLAS's message for the argument, already formatted (so
/// free of conversions).
///
/// The position is the CBLAS one, so the program's `RowMajorStrg` is cleared first: a
/// `cblas_xerbla` that sees it set maps Fortran positions of a row-major call back to CBLAS
/// ones, and the testers set it before each row-major call they expect to fail. Both symbols
/// are found through the dynamic loader: the program's copies are the ones that count.
fn report(routine: &str, position: Int, form: &str) {
    // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only looks the symbol up.
    let flag = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"RowMajorStrg".as_ptr()) };
    if !flag.is_null() {
        // SAFETY: `RowMajorStrg` is an aligned C `int` (this library's, or the program's copy
        // of it), which `AtomicI32` may view; it lives as long as the process.
        unsafe { AtomicI32::from_ptr(flag.cast()) }.store(0, Ordering::Relaxed);
    }
    // Our names and messages hold no NUL.
    let rout = CString::new(routine).unwrap_or_default();
    let form = CString::new(form).unwrap_or_default();
    // SAFETY: as for RowMajorStrg.
    let found = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"cblas_xerbla".as_ptr()) };
    if found.is_null() {
        // Not exported (the crate linked statically into a program): print here.
        print_cblas_xerbla(position, &rout, &form);
        return;
    }
    // SAFETY: `cblas_xerbla` has this signature in `cblas.h` (INFO, the routine's name, a
    // printf format, its arguments: none here, the message is formatted). This library's own
    // export takes the three fixed arguments only; on the System V targets it builds for, they
    // travel as in a call without variable arguments.
    unsafe {
        let f = std::mem::transmute::<*mut c_void, CblasXerbla>(found);
        f(position, rout.as_ptr(), form.as_ptr());
    }
}

/// Prints reference CBLAS's message for an illegal argument (its `cblas_xerbla` then exits;
/// this one returns, so the call returns with nothing touched).
fn print_cblas_xerbla(info: Int, rout: &CStr, form: &CStr) {
    if info != 0 {
        eprintln!(
            "Parameter {info} to routine {} was incorrect",
            rout.to_string_lossy()
        );
    }
    eprint!("{}", form.to_string_lossy());
}

/// Reference CBLAS `cblas_xerbla`: reports argument `info` of routine `rout` as illegal, then
/// `form` (a printf format; its conversions are not expanded here, and this library passes
/// formatted messages). A program that defines its own `cblas_xerbla` replaces this one for
/// every CBLAS routine of the library. Unlike the reference, it returns.
///
/// # Safety
/// `rout` and `form` are null or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn cblas_xerbla(info: Int, rout: *const c_char, form: *const c_char) {
    let text = |p: *const c_char| {
        if p.is_null() {
            c""
        } else {
            // SAFETY: as documented above.
            unsafe { CStr::from_ptr(p) }
        }
    };
    print_cblas_xerbla(info, text(rout), text(form));
}
