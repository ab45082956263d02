//! The `_ex` routines, whose element types are arguments (`gpublas_datatype`, as rocBLAS):
//! `gpublas_gemm_ex`, `gpublas_dot_ex`, `gpublas_nrm2_ex` in their three forms. Each checks the
//! combination of types and calls the Rust function for it.

use std::ffi::c_void;

use gpublas::blas1::{ExAcc, ExInput};
use gpublas::blas3::{ComputeType, GemmExIn, GemmExOut};
use gpublas::{bf16, f16, Complex32, Complex64, DeviceBuffer, Error, Op, Status};

use crate::imp::{self, Ctx};
use crate::*;

/// Which of the three forms a call is, with its batch count.
#[derive(Clone, Copy, PartialEq)]
enum Form {
    Single,
    Batched(usize),
    Strided(usize),
}

impl Form {
    fn count(self) -> usize {
        match self {
            Form::Single => 1,
            Form::Batched(b) | Form::Strided(b) => b,
        }
    }
}

/// The error of an operand built for another form than the call's (cannot happen: `In::new`
/// builds a list exactly for the batched form).
fn form_mismatch() -> Error {
    Error::InvalidValue("internal: an operand of another form than the call's".into())
}

/// A read operand in one of the three forms.
enum In<T> {
    One(DeviceBuffer<T>),
    List(Vec<DeviceBuffer<T>>),
}

impl<T: gpublas::Element> In<T> {
    /// # Safety
    /// `ptr` is null, a device pointer spanning `span` (strided: the whole batch), or for a
    /// batched form a host array of `count` such pointers.
    unsafe fn new(
        cx: &Ctx<'_>,
        what: &str,
        form: Form,
        ptr: u64,
        span: Option<usize>,
        stride: usize,
    ) -> Result<Self, Error> {
        let span = match form {
            Form::Strided(b) => imp::strided(span, stride, b),
            _ => span,
        };
        let span = cx.span(what, span)?;
        // SAFETY: as the caller promised.
        unsafe {
            Ok(match form {
                Form::Batched(b) => In::List(cx.list(what, ptr, b, span)?),
                _ => In::One(cx.buf(what, ptr, span)?),
            })
        }
    }

    /// The single buffer of a single or strided form (an error, never a panic, should a
    /// list come here).
    fn one(&self) -> Result<&DeviceBuffer<T>, Error> {
        match self {
            In::One(b) => Ok(b),
            In::List(_) => Err(form_mismatch()),
        }
    }

    fn refs(&self) -> Vec<&DeviceBuffer<T>> {
        match self {
            In::One(b) => vec![b],
            In::List(l) => l.iter().collect(),
        }
    }
}

// ---- gemm_ex ------------------------------------------------------------------------------

/// The converted arguments of a gemm_ex call.
struct Gemm {
    form: Form,
    opa: Op,
    opb: Op,
    m: usize,
    n: usize,
    k: usize,
    alpha: u64,
    a: (u64, usize, usize),
    b: (u64, usize, usize),
    beta: u64,
    c: (u64, usize, usize),
    compute: ComputeType,
}

/// # Safety
/// The pointers in `g` address what the C documentation requires.
unsafe fn gemm_t<I: GemmExIn, O: GemmExOut<I>>(
    cx: &mut Ctx<'_>,
    g: &Gemm,
) -> Result<Status, Error> {
    let dims = |op: Op, r: usize, c: usize| if op == Op::N { (r, c) } else { (c, r) };
    let (ar, ac) = dims(g.opa, g.m, g.k);
    let (br, bc) = dims(g.opb, g.k, g.n);
    // SAFETY (this block): spans computed from the arguments, as the caller promised.
    unsafe {
        let alpha = cx.coef::<I::Scale>("alpha", g.alpha)?;
        let beta = cx.coef::<I::Scale>("beta", g.beta)?;
        let a = In::<I>::new(cx, "a", g.form, g.a.0, imp::mat_span(ar, ac, g.a.1), g.a.2)?;
        let b = In::<I>::new(cx, "b", g.form, g.b.0, imp::mat_span(br, bc, g.b.1), g.b.2)?;
        let mut c = In::<O>::new(
            cx,
            "c",
            g.form,
            g.c.0,
            imp::mat_span(g.m, g.n, g.c.1),
            g.c.2,
        )?;
        let (lda, ldb, ldc) = (g.a.1, g.b.1, g.c.1);
        use gpublas::blas3 as b3;
        match (g.form, &mut c) {
            (Form::Single, In::One(cb)) => b3::gemm_ex(
                cx.h,
                g.opa,
                g.opb,
                g.m,
                g.n,
                g.k,
                alpha.get(),
                a.one()?,
                lda,
                b.one()?,
                ldb,
                beta.get(),
                cb,
                ldc,
                g.compute,
            ),
            (Form::Strided(bc), In::One(cb)) => b3::gemm_ex_strided_batched(
                cx.h,
                g.opa,
                g.opb,
                g.m,
                g.n,
                g.k,
                alpha.get(),
                a.one()?,
                lda,
                g.a.2,
                b.one()?,
                ldb,
                g.b.2,
                beta.get(),
                cb,
                ldc,
                g.c.2,
                bc,
                g.compute,
            ),
            (_, In::List(cl)) => {
                let mut cr: Vec<&mut DeviceBuffer<O>> = cl.iter_mut().collect();
                b3::gemm_ex_batched(
                    cx.h,
                    g.opa,
                    g.opb,
                    g.m,
                    g.n,
                    g.k,
                    alpha.get(),
                    &a.refs(),
                    lda,
                    &b.refs(),
                    ldb,
                    beta.get(),
                    &mut cr,
                    ldc,
                    g.compute,
                )
            }
            (Form::Batched(_), In::One(_)) => Err(form_mismatch()),
        }
    }
}

/// Converts the C arguments of any gemm_ex form and dispatches on the types.
#[allow(clippy::too_many_arguments)]
unsafe fn gemm_any(
    handle: gpublas_handle,
    name: &'static str,
    form: (i64, Option<i64>, bool), // batch count, strided?, batched?
    ops: (gpublas_operation, gpublas_operation),
    mnk: (i64, i64, i64),
    scalars: (*const c_void, *const c_void),
    a: (*const c_void, gpublas_datatype, i64, i64),
    b: (*const c_void, gpublas_datatype, i64, i64),
    c: (*const c_void, gpublas_datatype, i64, i64),
    compute: gpublas_compute_type,
) -> gpublas_status {
    imp::guard(handle, name, |cx| {
        let batch = cx.size("batch_count", form.0)?;
        let f = match (form.1, form.2) {
            (Some(_), _) => Form::Strided(batch),
            (None, true) => Form::Batched(batch),
            _ => Form::Single,
        };
        let st = |cx: &Ctx<'_>, w: &str, v: i64| {
            if matches!(f, Form::Strided(_)) {
                cx.size(w, v)
            } else {
                Ok(0)
            }
        };
        let g = Gemm {
            form: f,
            opa: cx.op("transa", ops.0)?,
            opb: cx.op("transb", ops.1)?,
            m: cx.size("m", mnk.0)?,
            n: cx.size("n", mnk.1)?,
            k: cx.size("k", mnk.2)?,
            alpha: scalars.0 as u64,
            beta: scalars.1 as u64,
            a: (a.0 as u64, cx.size("lda", a.2)?, st(cx, "stride_a", a.3)?),
            b: (b.0 as u64, cx.size("ldb", b.2)?, st(cx, "stride_b", b.3)?),
            c: (c.0 as u64, cx.size("ldc", c.2)?, st(cx, "stride_c", c.3)?),
            compute: cx.compute(compute)?,
        };
        use crate::{
            GPUBLAS_DATATYPE_BF16_R as BF, GPUBLAS_DATATYPE_F16_R as H,
            GPUBLAS_DATATYPE_F32_C as C, GPUBLAS_DATATYPE_F32_R as S, GPUBLAS_DATATYPE_F64_C as Z,
            GPUBLAS_DATATYPE_F64_R as D,
        };
        // SAFETY (all arms): the caller's pointers, as documented.
        unsafe {
            match (a.1, b.1, c.1) {
                (H, H, H) => gemm_t::<f16, f16>(cx, &g),
                (H, H, S) => gemm_t::<f16, f32>(cx, &g),
                (BF, BF, BF) => gemm_t::<bf16, bf16>(cx, &g),
                (BF, BF, S) => gemm_t::<bf16, f32>(cx, &g),
                (S, S, S) => gemm_t::<f32, f32>(cx, &g),
                (D, D, D) => gemm_t::<f64, f64>(cx, &g),
                (C, C, C) => gemm_t::<Complex32, Complex32>(cx, &g),
                (Z, Z, Z) => gemm_t::<Complex64, Complex64>(cx, &g),
                _ => Err(cx.bad_types(
                    &[("a_type", a.1), ("b_type", b.1), ("c_type", c.1)],
                    "f16/f16/f16, f16/f16/f32, bf16/bf16/bf16, bf16/bf16/f32, and f32, f64, \
                     f32 complex, f64 complex throughout",
                )),
            }
        }
    })
}

/// `C = alpha op(A) op(B) + beta C` with the element types given as arguments: `a_type` =
/// `b_type` (f16, bf16, f32, f64, complex), `c_type` equal to them or f32 for half inputs;
/// `alpha`/`beta` are f32 for half inputs, else of the input type; `compute_type` as
/// `gpublas::blas3::ComputeType`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn gpublas_gemm_ex(
    handle: gpublas_handle,
    transa: gpublas_operation,
    transb: gpublas_operation,
    m: i64,
    n: i64,
    k: i64,
    alpha: *const c_void,
    a: *const c_void,
    a_type: gpublas_datatype,
    lda: i64,
    b: *const c_void,
    b_type: gpublas_datatype,
    ldb: i64,
    beta: *const c_void,
    c: *mut c_void,
    c_type: gpublas_datatype,
    ldc: i64,
    compute_type: gpublas_compute_type,
) -> gpublas_status {
    // SAFETY: forwarded caller pointers.
    unsafe {
        gemm_any(
            handle,
            "gpublas_gemm_ex",
            (1, None, false),
            (transa, transb),
            (m, n, k),
            (alpha, beta),
            (a, a_type, lda, 0),
            (b, b_type, ldb, 0),
            (c, c_type, ldc, 0),
            compute_type,
        )
    }
}

/// `gpublas_gemm_ex` of each entry of host arrays of device pointers.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn gpublas_gemm_ex_batched(
    handle: gpublas_handle,
    transa: gpublas_operation,
    transb: gpublas_operation,
    m: i64,
    n: i64,
    k: i64,
    alpha: *const c_void,
    a: *const *const c_void,
    a_type: gpublas_datatype,
    lda: i64,
    b: *const *const c_void,
    b_type: gpublas_datatype,
    ldb: i64,
    beta: *const c_void,
    c: *const *mut c_void,
    c_type: gpublas_datatype,
    ldc: i64,
    batch_count: i64,
    compute_type: gpublas_compute_type,
) -> gpublas_status {
    // SAFETY: forwarded caller pointers.
    unsafe {
        gemm_any(
            handle,
            "gpublas_gemm_ex_batched",
            (batch_count, None, true),
            (transa, transb),
            (m, n, k),
            (alpha, beta),
            (a as *const c_void, a_type, lda, 0),
            (b as *const c_void, b_type, ldb, 0),
            (c as *const c_void, c_type, ldc, 0),
            compute_type,
        )
    }
}

/// `gpublas_gemm_ex` of `batch_count` entries at fixed strides.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn gpublas_gemm_ex_strided_batched(
    handle: gpublas_handle,
    transa: gpublas_operation,
    transb: gpublas_operation,
    m: i64,
    n: i64,
    k: i64,
    alpha: *const c_void,
    a: *const c_void,
    a_type: gpublas_datatype,
    lda: i64,
    stride_a: i64,
    b: *const c_void,
    b_type: gpublas_datatype,
    ldb: i64,
    stride_b: i64,
    beta: *const c_void,
    c: *mut c_void,
    c_type: gpublas_datatype,
    ldc: i64,
    stride_c: i64,
    batch_count: i64,
    compute_type: gpublas_compute_type,
) -> gpublas_status {
    // SAFETY: forwarded caller pointers.
    unsafe {
        gemm_any(
            handle,
            "gpublas_gemm_ex_strided_batched",
            (batch_count, Some(0), false),
            (transa, transb),
            (m, n, k),
            (alpha, beta),
            (a, a_type, lda, stride_a),
            (b, b_type, ldb, stride_b),
            (c, c_type, ldc, stride_c),
            compute_type,
        )
    }
}

// ---- dot_ex and nrm2_ex -----------------------------------------------------------------

/// The converted arguments of a dot_ex or nrm2_ex call (`y` absent for nrm2_ex).
struct Red {
    form: Form,
    n: usize,
    x: (u64, isize, usize),
    y: Option<(u64, isize, usize)>,
    result: u64,
}

/// # Safety
/// The pointers in `r` address what the C documentation requires.
unsafe fn red_t<X: ExInput, A: ExAcc>(cx: &mut Ctx<'_>, r: &Red) -> Result<Status, Error> {
    use gpublas::blas1 as b1;
    // SAFETY (this block): spans computed from the arguments, as the caller promised.
    unsafe {
        let x = In::<X>::new(cx, "x", r.form, r.x.0, imp::vec_span(r.n, r.x.1), r.x.2)?;
        let y = match r.y {
            Some(y) => Some(In::<X>::new(
                cx,
                "y",
                r.form,
                y.0,
                imp::vec_span(r.n, y.1),
                y.2,
            )?),
            None => None,
        };
        let mut res = cx.results::<A>("result", r.result, r.form.count())?;
        let (n, incx) = (r.n, r.x.1);
        let y = y.as_ref().zip(r.y);
        match (r.form, y) {
            (Form::Single, Some((y, (_, incy, _)))) => {
                b1::dot_ex(cx.h, n, x.one()?, incx, y.one()?, incy, res.get())
            }
            (Form::Batched(_), Some((y, (_, incy, _)))) => {
                b1::dot_ex_batched(cx.h, n, &x.refs(), incx, &y.refs(), incy, res.get())
            }
            (Form::Strided(b), Some((y, (_, incy, stride_y)))) => b1::dot_ex_strided_batched(
                cx.h,
                n,
                x.one()?,
                incx,
                r.x.2,
                y.one()?,
                incy,
                stride_y,
                b,
                res.get(),
            ),
            (Form::Single, None) => b1::nrm2_ex(cx.h, n, x.one()?, incx, res.get()),
            (Form::Batched(_), None) => b1::nrm2_ex_batched(cx.h, n, &x.refs(), incx, res.get()),
            (Form::Strided(b), None) => {
                b1::nrm2_ex_strided_batched(cx.h, n, x.one()?, incx, r.x.2, b, res.get())
            }
        }
    }
}

/// Converts the C arguments of a dot_ex/nrm2_ex form and dispatches on the types.
#[allow(clippy::too_many_arguments)]
unsafe fn red_any(
    handle: gpublas_handle,
    name: &'static str,
    form: (i64, bool, bool), // batch count, strided, batched
    n: i64,
    x: (*const c_void, gpublas_datatype, i64, i64),
    y: Option<(*const c_void, gpublas_datatype, i64, i64)>,
    result: (*mut c_void, gpublas_datatype),
) -> gpublas_status {
    imp::guard(handle, name, |cx| {
        let batch = cx.size("batch_count", form.0)?;
        let f = match (form.1, form.2) {
            (true, _) => Form::Strided(batch),
            (false, true) => Form::Batched(batch),
            _ => Form::Single,
        };
        let st = |cx: &Ctx<'_>, w: &str, v: i64| if form.1 { cx.size(w, v) } else { Ok(0) };
        let r = Red {
            form: f,
            n: cx.size("n", n)?,
            x: (x.0 as u64, cx.inc("incx", x.2)?, st(cx, "stride_x", x.3)?),
            y: match y {
                Some(y) => Some((y.0 as u64, cx.inc("incy", y.2)?, st(cx, "stride_y", y.3)?)),
                None => None,
            },
            result: result.0 as u64,
        };
        use crate::{
            GPUBLAS_DATATYPE_BF16_R as BF, GPUBLAS_DATATYPE_F16_R as H,
            GPUBLAS_DATATYPE_F32_R as S, GPUBLAS_DATATYPE_F64_R as D,
        };
        let yt = y.map(|y| y.1).unwrap_or(x.1);
        // SAFETY (all arms): the caller's pointers, as documented.
        unsafe {
            match (x.1, yt, result.1) {
                (H, H, S) => red_t::<f16, f32>(cx, &r),
                (H, H, D) => red_t::<f16, f64>(cx, &r),
                (BF, BF, S) => red_t::<bf16, f32>(cx, &r),
                (BF, BF, D) => red_t::<bf16, f64>(cx, &r),
                (S, S, S) => red_t::<f32, f32>(cx, &r),
                (S, S, D) => red_t::<f32, f64>(cx, &r),
                _ => Err(cx.bad_types(
                    &[("x_type", x.1), ("y_type", yt), ("result_type", result.1)],
                    "inputs f16, bf16 or f32 (x and y alike) with an f32 or f64 result",
                )),
            }
        }
    })
}

/// `sum x[i] * y[i]` of f16/bf16/f32 elements (`x_type` = `y_type`), accumulated and returned
/// in `result_type` (f32 or f64), the result in the pointer mode.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn gpublas_dot_ex(
    handle: gpublas_handle,
    n: i64,
    x: *const c_void,
    x_type: gpublas_datatype,
    incx: i64,
    y: *const c_void,
    y_type: gpublas_datatype,
    incy: i64,
    result: *mut c_void,
    result_type: gpublas_datatype,
) -> gpublas_status {
    // SAFETY: forwarded caller pointers.
    unsafe {
        red_any(
            handle,
            "gpublas_dot_ex",
            (1, false, false),
            n,
            (x, x_type, incx, 0),
            Some((y, y_type, incy, 0)),
            (result, result_type),
        )
    }
}

/// `gpublas_dot_ex` of each pair of a list; one result per pair.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn gpublas_dot_ex_batched(
    handle: gpublas_handle,
    n: i64,
    x: *const *const c_void,
    x_type: gpublas_datatype,
    incx: i64,
    y: *const *const c_void,
    y_type: gpublas_datatype,
    incy: i64,
    batch_count: i64,
    result: *mut c_void,
    result_type: gpublas_datatype,
) -> gpublas_status {
    // SAFETY: forwarded caller pointers.
    unsafe {
        red_any(
            handle,
            "gpublas_dot_ex_batched",
            (batch_count, false, true),
            n,
            (x as *const c_void, x_type, incx, 0),
            Some((y as *const c_void, y_type, incy, 0)),
            (result, result_type),
        )
    }
}

/// `gpublas_dot_ex` of `batch_count` pairs at strides `stride_x`, `stride_y`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn gpublas_dot_ex_strided_batched(
    handle: gpublas_handle,
    n: i64,
    x: *const c_void,
    x_type: gpublas_datatype,
    incx: i64,
    stride_x: i64,
    y: *const c_void,
    y_type: gpublas_datatype,
    incy: i64,
    stride_y: i64,
    batch_count: i64,
    result: *mut c_void,
    result_type: gpublas_datatype,
) -> gpublas_status {
    // SAFETY: forwarded caller pointers.
    unsafe {
        red_any(
            handle,
            "gpublas_dot_ex_strided_batched",
            (batch_count, true, false),
            n,
            (x, x_type, incx, stride_x),
            Some((y, y_type, incy, stride_y)),
            (result, result_type),
        )
    }
}

/// The Euclidean norm of f16/bf16/f32 elements, accumulated and returned in `result_type`.
#[no_mangle]
pub unsafe extern "C" fn gpublas_nrm2_ex(
    handle: gpublas_handle,
    n: i64,
    x: *const c_void,
    x_type: gpublas_datatype,
    incx: i64,
    result: *mut c_void,
    result_type: gpublas_datatype,
) -> gpublas_status {
    // SAFETY: forwarded caller pointers.
    unsafe {
        red_any(
            handle,
            "gpublas_nrm2_ex",
            (1, false, false),
            n,
            (x, x_type, incx, 0),
            None,
            (result, result_type),
        )
    }
}

/// `gpublas_nrm2_ex` of each vector of a list.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn gpublas_nrm2_ex_batched(
    handle: gpublas_handle,
    n: i64,
    x: *const *const c_void,
    x_type: gpublas_datatype,
    incx: i64,
    batch_count: i64,
    result: *mut c_void,
    result_type: gpublas_datatype,
) -> gpublas_status {
    // SAFETY: forwarded caller pointers.
    unsafe {
        red_any(
            handle,
            "gpublas_nrm2_ex_batched",
            (batch_count, false, true),
            n,
            (x as *const c_void, x_type, incx, 0),
            None,
            (result, result_type),
        )
    }
}

/// `gpublas_nrm2_ex` of `batch_count` vectors `stride_x` apart.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn gpublas_nrm2_ex_strided_batched(
    handle: gpublas_handle,
    n: i64,
    x: *const c_void,
    x_type: gpublas_datatype,
    incx: i64,
    stride_x: i64,
    batch_count: i64,
    result: *mut c_void,
    result_type: gpublas_datatype,
) -> gpublas_status {
    // SAFETY: forwarded caller pointers.
    unsafe {
        red_any(
            handle,
            "gpublas_nrm2_ex_strided_batched",
            (batch_count, true, false),
            n,
            (x, x_type, incx, stride_x),
            None,
            (result, result_type),
        )
    }
}
