//! The public Level-3 routines: thin constructors of a [`Call`] (single, `_batched`,
//! `_strided_batched` generated from one description each).

use super::{run, Call, Kind, ScalarArg};
use crate::common::operand::{Batch, BatchMut};
use crate::device::DeviceBuffer;
use crate::{Coef, ComplexScalar, Diag, Error, Handle, Op, Scalar, Side, Status, Uplo};

/// `C = alpha op(A) op(B) + beta C`, `C` `m × n`, `op(A)` `m × k`, `op(B)` `k × n` (`?gemm`).
#[allow(clippy::too_many_arguments)]
pub fn gemm<T: Scalar>(
    h: &mut Handle,
    opa: Op,
    opb: Op,
    m: usize,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    b: &DeviceBuffer<T>,
    ldb: usize,
    beta: Coef<'_, T>,
    c: &mut DeviceBuffer<T>,
    ldc: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "gemm",
        Kind::Gemm,
        Batch::Single(a),
        lda,
        BatchMut::Single(c),
        ldc,
    );
    call.ops(opa, opb)
        .dims(m, n, k)
        .with_b(Batch::Single(b), ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Full(beta);
    run(h, call)
}

/// `gemm` of each entry of lists of matrices (all the same shape).
#[allow(clippy::too_many_arguments)]
pub fn gemm_batched<T: Scalar>(
    h: &mut Handle,
    opa: Op,
    opb: Op,
    m: usize,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    b: &[&DeviceBuffer<T>],
    ldb: usize,
    beta: Coef<'_, T>,
    c: &mut [&mut DeviceBuffer<T>],
    ldc: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "gemm_batched",
        Kind::Gemm,
        Batch::list(a),
        lda,
        BatchMut::List(c),
        ldc,
    );
    call.ops(opa, opb).dims(m, n, k).with_b(Batch::list(b), ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Full(beta);
    run(h, call)
}

/// `gemm` of `batch` entries at fixed strides (elements) in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn gemm_strided_batched<T: Scalar>(
    h: &mut Handle,
    opa: Op,
    opb: Op,
    m: usize,
    n: usize,
    k: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    b: &DeviceBuffer<T>,
    ldb: usize,
    stride_b: usize,
    beta: Coef<'_, T>,
    c: &mut DeviceBuffer<T>,
    ldc: usize,
    stride_c: usize,
    batch: usize,
) -> Result<Status, Error> {
    let a = Batch::Strided {
        buf: a,
        stride: stride_a,
        count: batch,
    };
    let b = Batch::Strided {
        buf: b,
        stride: stride_b,
        count: batch,
    };
    let c = BatchMut::Strided {
        buf: c,
        stride: stride_c,
        count: batch,
    };
    let mut call = Call::new("gemm_strided_batched", Kind::Gemm, a, lda, c, ldc);
    call.ops(opa, opb).dims(m, n, k).with_b(b, ldb);
    call.alpha = ScalarArg::Full(alpha);
    call.beta = ScalarArg::Full(beta);
    run(h, call)
}

/// Generates `symm`/`hemm`-shaped routines: `(side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc)`.
macro_rules! mm {
    ($(#[$doc:meta])* $kind:ident, $single:ident, $batched:ident, $strided:ident, $name:literal, $bound:path) => {
        $(#[$doc])*
        #[allow(clippy::too_many_arguments)]
        pub fn $single<T: $bound>(
            h: &mut Handle, side: Side, uplo: Uplo, m: usize, n: usize, alpha: Coef<'_, T>,
            a: &DeviceBuffer<T>, lda: usize, b: &DeviceBuffer<T>, ldb: usize, beta: Coef<'_, T>,
            c: &mut DeviceBuffer<T>, ldc: usize,
        ) -> Result<Status, Error> {
            let mut call = Call::new($name, Kind::$kind, Batch::Single(a), lda, BatchMut::Single(c), ldc);
            call.tri(side, uplo, Op::N, Diag::NonUnit).dims(m, n, 0).with_b(Batch::Single(b), ldb);
            call.alpha = ScalarArg::Full(alpha);
            call.beta = ScalarArg::Full(beta);
            run(h, call)
        }

        #[doc = concat!("`", $name, "` of each entry of lists of matrices.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $batched<T: $bound>(
            h: &mut Handle, side: Side, uplo: Uplo, m: usize, n: usize, alpha: Coef<'_, T>,
            a: &[&DeviceBuffer<T>], lda: usize, b: &[&DeviceBuffer<T>], ldb: usize,
            beta: Coef<'_, T>, c: &mut [&mut DeviceBuffer<T>], ldc: usize,
        ) -> Result<Status, Error> {
            let mut call = Call::new(concat!($name, "_batched"), Kind::$kind, Batch::list(a), lda, BatchMut::List(c), ldc);
            call.tri(side, uplo, Op::N, Diag::NonUnit).dims(m, n, 0).with_b(Batch::list(b), ldb);
            call.alpha = ScalarArg::Full(alpha);
            call.beta = ScalarArg::Full(beta);
            run(h, call)
        }

        #[doc = concat!("`", $name, "` of `batch` entries at fixed strides in one buffer per operand.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $strided<T: $bound>(
            h: &mut Handle, side: Side, uplo: Uplo, m: usize, n: usize, alpha: Coef<'_, T>,
            a: &DeviceBuffer<T>, lda: usize, stride_a: usize, b: &DeviceBuffer<T>, ldb: usize,
            stride_b: usize, beta: Coef<'_, T>, c: &mut DeviceBuffer<T>, ldc: usize,
            stride_c: usize, batch: usize,
        ) -> Result<Status, Error> {
            let a = Batch::Strided { buf: a, stride: stride_a, count: batch };
            let b = Batch::Strided { buf: b, stride: stride_b, count: batch };
            let c = BatchMut::Strided { buf: c, stride: stride_c, count: batch };
            let mut call = Call::new(concat!($name, "_strided_batched"), Kind::$kind, a, lda, c, ldc);
            call.tri(side, uplo, Op::N, Diag::NonUnit).dims(m, n, 0).with_b(b, ldb);
            call.alpha = ScalarArg::Full(alpha);
            call.beta = ScalarArg::Full(beta);
            run(h, call)
        }
    };
}

mm!(
    /// `C = alpha A B + beta C` (`Side::Left`) or `alpha B A + beta C` (`Side::Right`), `A`
    /// symmetric (order `m` or `n`), only its `uplo` triangle read (`?symm`).
    Symm, symm, symm_batched, symm_strided_batched, "symm", Scalar
);
mm!(
    /// As [`symm`] with `A` Hermitian: only its `uplo` triangle read, the imaginary part of its
    /// diagonal taken as zero (`?hemm`).
    Hemm, hemm, hemm_batched, hemm_strided_batched, "hemm", ComplexScalar
);

/// Generates the rank-k updates without `B`: `(uplo, op, n, k, alpha, A, lda, beta, C, ldc)`.
/// `$al`/`$be` are the scalar types (`T` or `T::Real`), `$sa`/`$sb` how they are kept.
macro_rules! rk1 {
    ($(#[$doc:meta])* $kind:ident, $single:ident, $batched:ident, $strided:ident, $name:literal,
     $bound:path, $al:ty, $sa:ident, $be:ty, $sb:ident) => {
        $(#[$doc])*
        #[allow(clippy::too_many_arguments)]
        pub fn $single<T: $bound>(
            h: &mut Handle, uplo: Uplo, op: Op, n: usize, k: usize, alpha: Coef<'_, $al>,
            a: &DeviceBuffer<T>, lda: usize, beta: Coef<'_, $be>, c: &mut DeviceBuffer<T>,
            ldc: usize,
        ) -> Result<Status, Error> {
            let mut call = Call::new($name, Kind::$kind, Batch::Single(a), lda, BatchMut::Single(c), ldc);
            call.tri(Side::Left, uplo, op, Diag::NonUnit).dims(n, n, k);
            call.alpha = ScalarArg::$sa(alpha);
            call.beta = ScalarArg::$sb(beta);
            run(h, call)
        }

        #[doc = concat!("`", $name, "` of each entry of lists of matrices.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $batched<T: $bound>(
            h: &mut Handle, uplo: Uplo, op: Op, n: usize, k: usize, alpha: Coef<'_, $al>,
            a: &[&DeviceBuffer<T>], lda: usize, beta: Coef<'_, $be>,
            c: &mut [&mut DeviceBuffer<T>], ldc: usize,
        ) -> Result<Status, Error> {
            let mut call = Call::new(concat!($name, "_batched"), Kind::$kind, Batch::list(a), lda, BatchMut::List(c), ldc);
            call.tri(Side::Left, uplo, op, Diag::NonUnit).dims(n, n, k);
            call.alpha = ScalarArg::$sa(alpha);
            call.beta = ScalarArg::$sb(beta);
            run(h, call)
        }

        #[doc = concat!("`", $name, "` of `batch` entries at fixed strides in one buffer per operand.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $strided<T: $bound>(
            h: &mut Handle, uplo: Uplo, op: Op, n: usize, k: usize, alpha: Coef<'_, $al>,
            a: &DeviceBuffer<T>, lda: usize, stride_a: usize, beta: Coef<'_, $be>,
            c: &mut DeviceBuffer<T>, ldc: usize, stride_c: usize, batch: usize,
        ) -> Result<Status, Error> {
            let a = Batch::Strided { buf: a, stride: stride_a, count: batch };
            let c = BatchMut::Strided { buf: c, stride: stride_c, count: batch };
            let mut call = Call::new(concat!($name, "_strided_batched"), Kind::$kind, a, lda, c, ldc);
            call.tri(Side::Left, uplo, op, Diag::NonUnit).dims(n, n, k);
            call.alpha = ScalarArg::$sa(alpha);
            call.beta = ScalarArg::$sb(beta);
            run(h, call)
        }
    };
}

/// Generates the rank-2k and `x` updates: `(uplo, op, n, k, alpha, A, lda, B, ldb, beta, C, ldc)`.
macro_rules! rk2 {
    ($(#[$doc:meta])* $kind:ident, $single:ident, $batched:ident, $strided:ident, $name:literal,
     $bound:path, $be:ty, $sb:ident) => {
        $(#[$doc])*
        #[allow(clippy::too_many_arguments)]
        pub fn $single<T: $bound>(
            h: &mut Handle, uplo: Uplo, op: Op, n: usize, k: usize, alpha: Coef<'_, T>,
            a: &DeviceBuffer<T>, lda: usize, b: &DeviceBuffer<T>, ldb: usize,
            beta: Coef<'_, $be>, c: &mut DeviceBuffer<T>, ldc: usize,
        ) -> Result<Status, Error> {
            let mut call = Call::new($name, Kind::$kind, Batch::Single(a), lda, BatchMut::Single(c), ldc);
            call.tri(Side::Left, uplo, op, Diag::NonUnit).dims(n, n, k).with_b(Batch::Single(b), ldb);
            call.alpha = ScalarArg::Full(alpha);
            call.beta = ScalarArg::$sb(beta);
            run(h, call)
        }

        #[doc = concat!("`", $name, "` of each entry of lists of matrices.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $batched<T: $bound>(
            h: &mut Handle, uplo: Uplo, op: Op, n: usize, k: usize, alpha: Coef<'_, T>,
            a: &[&DeviceBuffer<T>], lda: usize, b: &[&DeviceBuffer<T>], ldb: usize,
            beta: Coef<'_, $be>, c: &mut [&mut DeviceBuffer<T>], ldc: usize,
        ) -> Result<Status, Error> {
            let mut call = Call::new(concat!($name, "_batched"), Kind::$kind, Batch::list(a), lda, BatchMut::List(c), ldc);
            call.tri(Side::Left, uplo, op, Diag::NonUnit).dims(n, n, k).with_b(Batch::list(b), ldb);
            call.alpha = ScalarArg::Full(alpha);
            call.beta = ScalarArg::$sb(beta);
            run(h, call)
        }

        #[doc = concat!("`", $name, "` of `batch` entries at fixed strides in one buffer per operand.")]
        #[allow(clippy::too_many_arguments)]
        pub fn $strided<T: $bound>(
            h: &mut Handle, uplo: Uplo, op: Op, n: usize, k: usize, alpha: Coef<'_, T>,
            a: &DeviceBuffer<T>, lda: usize, stride_a: usize, b: &DeviceBuffer<T>, ldb: usize,
            stride_b: usize, beta: Coef<'_, $be>, c: &mut DeviceBuffer<T>, ldc: usize,
            stride_c: usize, batch: usize,
        ) -> Result<Status, Error> {
            let a = Batch::Strided { buf: a, stride: stride_a, count: batch };
            let b = Batch::Strided { buf: b, stride: stride_b, count: batch };
            let c = BatchMut::Strided { buf: c, stride: stride_c, count: batch };
            let mut call = Call::new(concat!($name, "_strided_batched"), Kind::$kind, a, lda, c, ldc);
            call.tri(Side::Left, uplo, op, Diag::NonUnit).dims(n, n, k).with_b(b, ldb);
            call.alpha = ScalarArg::Full(alpha);
            call.beta = ScalarArg::$sb(beta);
            run(h, call)
        }
    };
}

rk1!(
    /// `C = alpha op(A) op(A)ᵀ + beta C` on the `uplo` triangle of the `n × n` matrix `C`;
    /// `op(A)` is `n × k`, `op` is `N` or `T` (`?syrk`; `C` is read as `T` for real types).
    Syrk, syrk, syrk_batched, syrk_strided_batched, "syrk", Scalar, T, Full, T, Full
);
rk1!(
    /// `C = alpha op(A) op(A)ᴴ + beta C` on the `uplo` triangle, `alpha` and `beta` real, `op`
    /// `N` or `C`; the imaginary parts of `C`'s diagonal are set to zero (`?herk`).
    Herk, herk, herk_batched, herk_strided_batched, "herk", ComplexScalar, T::Real, Real, T::Real, Real
);
rk2!(
    /// `C = alpha op(A) op(B)ᵀ + alpha op(B) op(A)ᵀ + beta C` on the `uplo` triangle (`?syr2k`).
    Syr2k, syr2k, syr2k_batched, syr2k_strided_batched, "syr2k", Scalar, T, Full
);
rk2!(
    /// `C = alpha op(A) op(B)ᴴ + conj(alpha) op(B) op(A)ᴴ + beta C` on the `uplo` triangle,
    /// `beta` real, diagonal made real (`?her2k`).
    Her2k, her2k, her2k_batched, her2k_strided_batched, "her2k", ComplexScalar, T::Real, Real
);
rk2!(
    /// `C = alpha op(A) op(B)ᵀ + beta C` on the `uplo` triangle, for `A`, `B` whose product is
    /// known to be symmetric (`?syrkx`).
    Syrkx, syrkx, syrkx_batched, syrkx_strided_batched, "syrkx", Scalar, T, Full
);
rk2!(
    /// `C = alpha op(A) op(B)ᴴ + beta C` on the `uplo` triangle, `beta` real, diagonal made real
    /// (`?herkx`).
    Herkx, herkx, herkx_batched, herkx_strided_batched, "herkx", ComplexScalar, T::Real, Real
);

/// `B = alpha op(A) B` (`Side::Left`, `A` of order `m`) or `B = alpha B op(A)` (`Side::Right`,
/// order `n`), `A` triangular, `B` `m × n` overwritten (`?trmm`). Result blocks are built in
/// the workspace before they overwrite `B`.
#[allow(clippy::too_many_arguments)]
pub fn trmm<T: Scalar>(
    h: &mut Handle,
    side: Side,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    b: &mut DeviceBuffer<T>,
    ldb: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "trmm",
        Kind::Trmm,
        Batch::Single(a),
        lda,
        BatchMut::Single(b),
        ldb,
    );
    call.tri(side, uplo, op, diag).dims(m, n, 0);
    call.alpha = ScalarArg::Full(alpha);
    run(h, call)
}

/// `trmm` of each entry of lists of matrices.
#[allow(clippy::too_many_arguments)]
pub fn trmm_batched<T: Scalar>(
    h: &mut Handle,
    side: Side,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    a: &[&DeviceBuffer<T>],
    lda: usize,
    b: &mut [&mut DeviceBuffer<T>],
    ldb: usize,
) -> Result<Status, Error> {
    let mut call = Call::new(
        "trmm_batched",
        Kind::Trmm,
        Batch::list(a),
        lda,
        BatchMut::List(b),
        ldb,
    );
    call.tri(side, uplo, op, diag).dims(m, n, 0);
    call.alpha = ScalarArg::Full(alpha);
    run(h, call)
}

/// `trmm` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn trmm_strided_batched<T: Scalar>(
    h: &mut Handle,
    side: Side,
    uplo: Uplo,
    op: Op,
    diag: Diag,
    m: usize,
    n: usize,
    alpha: Coef<'_, T>,
    a: &DeviceBuffer<T>,
    lda: usize,
    stride_a: usize,
    b: &mut DeviceBuffer<T>,
    ldb: usize,
    stride_b: usize,
    batch: usize,
) -> Result<Status, Error> {
    let a = Batch::Strided {
        buf: a,
        stride: stride_a,
        count: batch,
    };
    let b = BatchMut::Strided {
        buf: b,
        stride: stride_b,
        count: batch,
    };
    let mut call = Call::new("trmm_strided_batched", Kind::Trmm, a, lda, b, ldb);
    call.tri(side, uplo, op, diag).dims(m, n, 0);
    call.alpha = ScalarArg::Full(alpha);
    run(h, call)
}
