//! The public rank updates of Level 2: `ger`, `geru`, `gerc`, `syr`, `syr2`, `her`, `her2`,
//! `spr`, `spr2`, `hpr`, `hpr2`, each single, `_batched` (lists of buffers) and
//! `_strided_batched` (one buffer per operand, element strides): thin constructors of an
//! [`UpdCall`] for [`run`]. Argument order is reference BLAS's (rocBLAS's for the batches).

use super::update::{run, Alpha, UpdCall, UpdKind};
use crate::common::operand::{Batch, BatchMut};
use crate::device::DeviceBuffer;
use crate::{Coef, ComplexScalar, Error, Handle, RealScalar, Scalar, Status, Uplo};

/// What distinguishes the routines sharing one [`UpdKind`].
#[derive(Clone, Copy)]
struct Flavor {
    kind: UpdKind,
    conj: bool,
    herm: bool,
    packed: bool,
}

const GER: Flavor = Flavor {
    kind: UpdKind::Ger,
    conj: false,
    herm: false,
    packed: false,
};
const GERC: Flavor = Flavor {
    kind: UpdKind::Ger,
    conj: true,
    herm: false,
    packed: false,
};
const SYR: Flavor = Flavor {
    kind: UpdKind::Syr,
    conj: false,
    herm: false,
    packed: false,
};
const HER: Flavor = Flavor {
    kind: UpdKind::Syr,
    conj: true,
    herm: true,
    packed: false,
};
const SYR2: Flavor = Flavor {
    kind: UpdKind::Syr2,
    conj: false,
    herm: false,
    packed: false,
};
const HER2: Flavor = Flavor {
    kind: UpdKind::Syr2,
    conj: true,
    herm: true,
    packed: false,
};
const SPR: Flavor = Flavor {
    packed: true,
    ..SYR
};
const HPR: Flavor = Flavor {
    packed: true,
    ..HER
};
const SPR2: Flavor = Flavor {
    packed: true,
    ..SYR2
};
const HPR2: Flavor = Flavor {
    packed: true,
    ..HER2
};

/// The call of one routine in one form.
#[allow(clippy::too_many_arguments)]
fn call<'a, 'b, T: Scalar>(
    name: &'static str,
    f: Flavor,
    uplo: Uplo,
    m: usize,
    n: usize,
    alpha: Alpha<'a, T>,
    x: Batch<'a, T>,
    incx: isize,
    y: Option<Batch<'a, T>>,
    incy: isize,
    a: BatchMut<'a, 'b, T>,
    lda: usize,
) -> UpdCall<'a, 'b, T> {
    UpdCall {
        name,
        kind: f.kind,
        conj: f.conj,
        herm: f.herm,
        uplo,
        m,
        n,
        packed: f.packed,
        lda,
        x,
        incx,
        y,
        incy,
        a,
        alpha,
    }
}

/// A strided batch operand.
fn strided<T: crate::device::Element>(
    buf: &DeviceBuffer<T>,
    stride: usize,
    count: usize,
) -> Batch<'_, T> {
    Batch::Strided { buf, stride, count }
}

/// `A += alpha x yᵀ` with `A` an `m × n` general matrix, `x` of `m` elements and `y` of `n` (`?ger`, real types).
///
/// ```
/// use gpublas::{blas2, Device, Handle};
/// let dev = Device::host();
/// let mut h = Handle::new(&dev)?;
/// // A = [1 3; 2 4] (column-major), x = [1, 2], y = [10, 100]
/// let mut a = dev.upload(&[1.0f64, 2.0, 3.0, 4.0])?;
/// let x = dev.upload(&[1.0f64, 2.0])?;
/// let y = dev.upload(&[10.0f64, 100.0])?;
/// blas2::ger(&mut h, 2, 2, 1.0.into(), &x, 1, &y, 1, &mut a, 2)?;
/// assert_eq!(a.to_vec()?, vec![11.0, 22.0, 103.0, 204.0]);
/// # Ok::<(), gpublas::Error>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn ger<T: RealScalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    x: &DeviceBuffer<T>,
    incx: isize,
    y: &DeviceBuffer<T>,
    incy: isize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "ger",
            GER,
            Uplo::Upper,
            m,
            n,
            Alpha::Full(alpha),
            Batch::Single(x),
            incx,
            Some(Batch::Single(y)),
            incy,
            BatchMut::Single(a),
            lda,
        ),
    )
}

/// `ger` of each entry of lists of vectors and matrices (all the same shape).
#[allow(clippy::too_many_arguments)]
pub fn ger_batched<T: RealScalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    y: &[&DeviceBuffer<T>],
    incy: isize,
    a: &mut [&mut DeviceBuffer<T>],
    lda: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "ger_batched",
            GER,
            Uplo::Upper,
            m,
            n,
            Alpha::Full(alpha),
            Batch::list(x),
            incx,
            Some(Batch::list(y)),
            incy,
            BatchMut::List(a),
            lda,
        ),
    )
}

/// `ger` of `batch` entries at fixed strides (elements) in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn ger_strided_batched<T: RealScalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    y: &DeviceBuffer<T>,
    incy: isize,
    stride_y: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    batch: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "ger_strided_batched",
            GER,
            Uplo::Upper,
            m,
            n,
            Alpha::Full(alpha),
            strided(x, stride_x, batch),
            incx,
            Some(strided(y, stride_y, batch)),
            incy,
            BatchMut::Strided {
                buf: a,
                stride: stride_a,
                count: batch,
            },
            lda,
        ),
    )
}

/// `A += alpha x yᵀ` (unconjugated) with `A` an `m × n` general matrix (`?geru`, complex types).
#[allow(clippy::too_many_arguments)]
pub fn geru<T: ComplexScalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    x: &DeviceBuffer<T>,
    incx: isize,
    y: &DeviceBuffer<T>,
    incy: isize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "geru",
            GER,
            Uplo::Upper,
            m,
            n,
            Alpha::Full(alpha),
            Batch::Single(x),
            incx,
            Some(Batch::Single(y)),
            incy,
            BatchMut::Single(a),
            lda,
        ),
    )
}

/// `geru` of each entry of lists of vectors and matrices (all the same shape).
#[allow(clippy::too_many_arguments)]
pub fn geru_batched<T: ComplexScalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    y: &[&DeviceBuffer<T>],
    incy: isize,
    a: &mut [&mut DeviceBuffer<T>],
    lda: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "geru_batched",
            GER,
            Uplo::Upper,
            m,
            n,
            Alpha::Full(alpha),
            Batch::list(x),
            incx,
            Some(Batch::list(y)),
            incy,
            BatchMut::List(a),
            lda,
        ),
    )
}

/// `geru` of `batch` entries at fixed strides (elements) in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn geru_strided_batched<T: ComplexScalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    y: &DeviceBuffer<T>,
    incy: isize,
    stride_y: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    batch: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "geru_strided_batched",
            GER,
            Uplo::Upper,
            m,
            n,
            Alpha::Full(alpha),
            strided(x, stride_x, batch),
            incx,
            Some(strided(y, stride_y, batch)),
            incy,
            BatchMut::Strided {
                buf: a,
                stride: stride_a,
                count: batch,
            },
            lda,
        ),
    )
}

/// `A += alpha x yᴴ` with `A` an `m × n` general matrix (`?gerc`, complex types).
#[allow(clippy::too_many_arguments)]
pub fn gerc<T: ComplexScalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    x: &DeviceBuffer<T>,
    incx: isize,
    y: &DeviceBuffer<T>,
    incy: isize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "gerc",
            GERC,
            Uplo::Upper,
            m,
            n,
            Alpha::Full(alpha),
            Batch::Single(x),
            incx,
            Some(Batch::Single(y)),
            incy,
            BatchMut::Single(a),
            lda,
        ),
    )
}

/// `gerc` of each entry of lists of vectors and matrices (all the same shape).
#[allow(clippy::too_many_arguments)]
pub fn gerc_batched<T: ComplexScalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    y: &[&DeviceBuffer<T>],
    incy: isize,
    a: &mut [&mut DeviceBuffer<T>],
    lda: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "gerc_batched",
            GERC,
            Uplo::Upper,
            m,
            n,
            Alpha::Full(alpha),
            Batch::list(x),
            incx,
            Some(Batch::list(y)),
            incy,
            BatchMut::List(a),
            lda,
        ),
    )
}

/// `gerc` of `batch` entries at fixed strides (elements) in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn gerc_strided_batched<T: ComplexScalar>(
    h: &mut Handle,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    y: &DeviceBuffer<T>,
    incy: isize,
    stride_y: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    batch: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "gerc_strided_batched",
            GERC,
            Uplo::Upper,
            m,
            n,
            Alpha::Full(alpha),
            strided(x, stride_x, batch),
            incx,
            Some(strided(y, stride_y, batch)),
            incy,
            BatchMut::Strided {
                buf: a,
                stride: stride_a,
                count: batch,
            },
            lda,
        ),
    )
}

/// `A += alpha x xᵀ` with `A` symmetric of order `n`, only its `uplo` triangle read and written (`?syr`; for complex types unconjugated, as rocBLAS's `csyr`).
#[allow(clippy::too_many_arguments)]
pub fn syr<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    x: &DeviceBuffer<T>,
    incx: isize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "syr",
            SYR,
            uplo,
            n,
            n,
            Alpha::Full(alpha),
            Batch::Single(x),
            incx,
            None,
            1,
            BatchMut::Single(a),
            lda,
        ),
    )
}

/// `syr` of each entry of lists of vectors and matrices (all the same shape).
#[allow(clippy::too_many_arguments)]
pub fn syr_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    a: &mut [&mut DeviceBuffer<T>],
    lda: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "syr_batched",
            SYR,
            uplo,
            n,
            n,
            Alpha::Full(alpha),
            Batch::list(x),
            incx,
            None,
            1,
            BatchMut::List(a),
            lda,
        ),
    )
}

/// `syr` of `batch` entries at fixed strides (elements) in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn syr_strided_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    batch: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "syr_strided_batched",
            SYR,
            uplo,
            n,
            n,
            Alpha::Full(alpha),
            strided(x, stride_x, batch),
            incx,
            None,
            1,
            BatchMut::Strided {
                buf: a,
                stride: stride_a,
                count: batch,
            },
            lda,
        ),
    )
}

/// `A += alpha x xᴴ` with `A` Hermitian of order `n` and `alpha` real, only its `uplo` triangle read and written; the diagonal's imaginary part becomes zero, as in reference `zher` (`?her`).
#[allow(clippy::too_many_arguments)]
pub fn her<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T::Real>,
    x: &DeviceBuffer<T>,
    incx: isize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "her",
            HER,
            uplo,
            n,
            n,
            Alpha::Real(alpha),
            Batch::Single(x),
            incx,
            None,
            1,
            BatchMut::Single(a),
            lda,
        ),
    )
}

/// `her` of each entry of lists of vectors and matrices (all the same shape).
#[allow(clippy::too_many_arguments)]
pub fn her_batched<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T::Real>,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    a: &mut [&mut DeviceBuffer<T>],
    lda: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "her_batched",
            HER,
            uplo,
            n,
            n,
            Alpha::Real(alpha),
            Batch::list(x),
            incx,
            None,
            1,
            BatchMut::List(a),
            lda,
        ),
    )
}

/// `her` of `batch` entries at fixed strides (elements) in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn her_strided_batched<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T::Real>,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    batch: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "her_strided_batched",
            HER,
            uplo,
            n,
            n,
            Alpha::Real(alpha),
            strided(x, stride_x, batch),
            incx,
            None,
            1,
            BatchMut::Strided {
                buf: a,
                stride: stride_a,
                count: batch,
            },
            lda,
        ),
    )
}

/// `A += alpha x yᵀ + alpha y xᵀ` with `A` symmetric of order `n`, only its `uplo` triangle read and written (`?syr2`; for complex types unconjugated, as rocBLAS's `csyr2`).
#[allow(clippy::too_many_arguments)]
pub fn syr2<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    x: &DeviceBuffer<T>,
    incx: isize,
    y: &DeviceBuffer<T>,
    incy: isize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "syr2",
            SYR2,
            uplo,
            n,
            n,
            Alpha::Full(alpha),
            Batch::Single(x),
            incx,
            Some(Batch::Single(y)),
            incy,
            BatchMut::Single(a),
            lda,
        ),
    )
}

/// `syr2` of each entry of lists of vectors and matrices (all the same shape).
#[allow(clippy::too_many_arguments)]
pub fn syr2_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    y: &[&DeviceBuffer<T>],
    incy: isize,
    a: &mut [&mut DeviceBuffer<T>],
    lda: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "syr2_batched",
            SYR2,
            uplo,
            n,
            n,
            Alpha::Full(alpha),
            Batch::list(x),
            incx,
            Some(Batch::list(y)),
            incy,
            BatchMut::List(a),
            lda,
        ),
    )
}

/// `syr2` of `batch` entries at fixed strides (elements) in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn syr2_strided_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    y: &DeviceBuffer<T>,
    incy: isize,
    stride_y: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    batch: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "syr2_strided_batched",
            SYR2,
            uplo,
            n,
            n,
            Alpha::Full(alpha),
            strided(x, stride_x, batch),
            incx,
            Some(strided(y, stride_y, batch)),
            incy,
            BatchMut::Strided {
                buf: a,
                stride: stride_a,
                count: batch,
            },
            lda,
        ),
    )
}

/// `A += alpha x yᴴ + conj(alpha) y xᴴ` with `A` Hermitian of order `n`, only its `uplo` triangle read and written; the diagonal's imaginary part becomes zero, as in reference `zher2` (`?her2`).
#[allow(clippy::too_many_arguments)]
pub fn her2<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    x: &DeviceBuffer<T>,
    incx: isize,
    y: &DeviceBuffer<T>,
    incy: isize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "her2",
            HER2,
            uplo,
            n,
            n,
            Alpha::Full(alpha),
            Batch::Single(x),
            incx,
            Some(Batch::Single(y)),
            incy,
            BatchMut::Single(a),
            lda,
        ),
    )
}

/// `her2` of each entry of lists of vectors and matrices (all the same shape).
#[allow(clippy::too_many_arguments)]
pub fn her2_batched<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    y: &[&DeviceBuffer<T>],
    incy: isize,
    a: &mut [&mut DeviceBuffer<T>],
    lda: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "her2_batched",
            HER2,
            uplo,
            n,
            n,
            Alpha::Full(alpha),
            Batch::list(x),
            incx,
            Some(Batch::list(y)),
            incy,
            BatchMut::List(a),
            lda,
        ),
    )
}

/// `her2` of `batch` entries at fixed strides (elements) in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn her2_strided_batched<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    y: &DeviceBuffer<T>,
    incy: isize,
    stride_y: usize,
    a: &mut DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    batch: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "her2_strided_batched",
            HER2,
            uplo,
            n,
            n,
            Alpha::Full(alpha),
            strided(x, stride_x, batch),
            incx,
            Some(strided(y, stride_y, batch)),
            incy,
            BatchMut::Strided {
                buf: a,
                stride: stride_a,
                count: batch,
            },
            lda,
        ),
    )
}

/// `syr` on a packed triangle `ap` of `n (n + 1) / 2` elements (`?spr`).
#[allow(clippy::too_many_arguments)]
pub fn spr<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    x: &DeviceBuffer<T>,
    incx: isize,
    ap: &mut DeviceBuffer<T>,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "spr",
            SPR,
            uplo,
            n,
            n,
            Alpha::Full(alpha),
            Batch::Single(x),
            incx,
            None,
            1,
            BatchMut::Single(ap),
            0,
        ),
    )
}

/// `spr` of each entry of lists of vectors and matrices (all the same shape).
#[allow(clippy::too_many_arguments)]
pub fn spr_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    ap: &mut [&mut DeviceBuffer<T>],
) -> Result<Status, Error> {
    run(
        h,
        call(
            "spr_batched",
            SPR,
            uplo,
            n,
            n,
            Alpha::Full(alpha),
            Batch::list(x),
            incx,
            None,
            1,
            BatchMut::List(ap),
            0,
        ),
    )
}

/// `spr` of `batch` entries at fixed strides (elements) in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn spr_strided_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    ap: &mut DeviceBuffer<T>,
    stride_ap: usize,
    batch: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "spr_strided_batched",
            SPR,
            uplo,
            n,
            n,
            Alpha::Full(alpha),
            strided(x, stride_x, batch),
            incx,
            None,
            1,
            BatchMut::Strided {
                buf: ap,
                stride: stride_ap,
                count: batch,
            },
            0,
        ),
    )
}

/// `her` on a packed triangle `ap` of `n (n + 1) / 2` elements (`?hpr`).
#[allow(clippy::too_many_arguments)]
pub fn hpr<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T::Real>,
    x: &DeviceBuffer<T>,
    incx: isize,
    ap: &mut DeviceBuffer<T>,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "hpr",
            HPR,
            uplo,
            n,
            n,
            Alpha::Real(alpha),
            Batch::Single(x),
            incx,
            None,
            1,
            BatchMut::Single(ap),
            0,
        ),
    )
}

/// `hpr` of each entry of lists of vectors and matrices (all the same shape).
#[allow(clippy::too_many_arguments)]
pub fn hpr_batched<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T::Real>,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    ap: &mut [&mut DeviceBuffer<T>],
) -> Result<Status, Error> {
    run(
        h,
        call(
            "hpr_batched",
            HPR,
            uplo,
            n,
            n,
            Alpha::Real(alpha),
            Batch::list(x),
            incx,
            None,
            1,
            BatchMut::List(ap),
            0,
        ),
    )
}

/// `hpr` of `batch` entries at fixed strides (elements) in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn hpr_strided_batched<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T::Real>,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    ap: &mut DeviceBuffer<T>,
    stride_ap: usize,
    batch: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "hpr_strided_batched",
            HPR,
            uplo,
            n,
            n,
            Alpha::Real(alpha),
            strided(x, stride_x, batch),
            incx,
            None,
            1,
            BatchMut::Strided {
                buf: ap,
                stride: stride_ap,
                count: batch,
            },
            0,
        ),
    )
}

/// `syr2` on a packed triangle `ap` of `n (n + 1) / 2` elements (`?spr2`).
#[allow(clippy::too_many_arguments)]
pub fn spr2<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    x: &DeviceBuffer<T>,
    incx: isize,
    y: &DeviceBuffer<T>,
    incy: isize,
    ap: &mut DeviceBuffer<T>,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "spr2",
            SPR2,
            uplo,
            n,
            n,
            Alpha::Full(alpha),
            Batch::Single(x),
            incx,
            Some(Batch::Single(y)),
            incy,
            BatchMut::Single(ap),
            0,
        ),
    )
}

/// `spr2` of each entry of lists of vectors and matrices (all the same shape).
#[allow(clippy::too_many_arguments)]
pub fn spr2_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    y: &[&DeviceBuffer<T>],
    incy: isize,
    ap: &mut [&mut DeviceBuffer<T>],
) -> Result<Status, Error> {
    run(
        h,
        call(
            "spr2_batched",
            SPR2,
            uplo,
            n,
            n,
            Alpha::Full(alpha),
            Batch::list(x),
            incx,
            Some(Batch::list(y)),
            incy,
            BatchMut::List(ap),
            0,
        ),
    )
}

/// `spr2` of `batch` entries at fixed strides (elements) in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn spr2_strided_batched<T: Scalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    y: &DeviceBuffer<T>,
    incy: isize,
    stride_y: usize,
    ap: &mut DeviceBuffer<T>,
    stride_ap: usize,
    batch: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "spr2_strided_batched",
            SPR2,
            uplo,
            n,
            n,
            Alpha::Full(alpha),
            strided(x, stride_x, batch),
            incx,
            Some(strided(y, stride_y, batch)),
            incy,
            BatchMut::Strided {
                buf: ap,
                stride: stride_ap,
                count: batch,
            },
            0,
        ),
    )
}

/// `her2` on a packed triangle `ap` of `n (n + 1) / 2` elements (`?hpr2`).
#[allow(clippy::too_many_arguments)]
pub fn hpr2<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    x: &DeviceBuffer<T>,
    incx: isize,
    y: &DeviceBuffer<T>,
    incy: isize,
    ap: &mut DeviceBuffer<T>,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "hpr2",
            HPR2,
            uplo,
            n,
            n,
            Alpha::Full(alpha),
            Batch::Single(x),
            incx,
            Some(Batch::Single(y)),
            incy,
            BatchMut::Single(ap),
            0,
        ),
    )
}

/// `hpr2` of each entry of lists of vectors and matrices (all the same shape).
#[allow(clippy::too_many_arguments)]
pub fn hpr2_batched<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    x: &[&DeviceBuffer<T>],
    incx: isize,
    y: &[&DeviceBuffer<T>],
    incy: isize,
    ap: &mut [&mut DeviceBuffer<T>],
) -> Result<Status, Error> {
    run(
        h,
        call(
            "hpr2_batched",
            HPR2,
            uplo,
            n,
            n,
            Alpha::Full(alpha),
            Batch::list(x),
            incx,
            Some(Batch::list(y)),
            incy,
            BatchMut::List(ap),
            0,
        ),
    )
}

/// `hpr2` of `batch` entries at fixed strides (elements) in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn hpr2_strided_batched<T: ComplexScalar>(
    h: &mut Handle,
    uplo: Uplo,
    n: usize,
    alpha: Coef<'_, T>,
    x: &DeviceBuffer<T>,
    incx: isize,
    stride_x: usize,
    y: &DeviceBuffer<T>,
    incy: isize,
    stride_y: usize,
    ap: &mut DeviceBuffer<T>,
    stride_ap: usize,
    batch: usize,
) -> Result<Status, Error> {
    run(
        h,
        call(
            "hpr2_strided_batched",
            HPR2,
            uplo,
            n,
            n,
            Alpha::Full(alpha),
            strided(x, stride_x, batch),
            incx,
            Some(strided(y, stride_y, batch)),
            incy,
            BatchMut::Strided {
                buf: ap,
                stride: stride_ap,
                count: batch,
            },
            0,
        ),
    )
}
