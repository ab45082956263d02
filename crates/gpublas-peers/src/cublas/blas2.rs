//! Level 2 on cuBLAS: `gemv`, `symv`, `hemv`, `trmv`, `trsv` (pointer mode DEVICE).

use super::*;

impl Cublas {
    /// `y = alpha op(A) x + beta y` (`cublas?gemv_v2`), `A` an `m × n` matrix at `lda`;
    /// `alpha` and `beta` are element 0 of device buffers.
    #[allow(clippy::too_many_arguments)]
    pub fn gemv<T: CublasScalar>(
        &self,
        op: Op,
        m: usize,
        n: usize,
        alpha: &DeviceBuffer<T>,
        a: &DeviceBuffer<T>,
        lda: usize,
        x: &DeviceBuffer<T>,
        incx: isize,
        beta: &DeviceBuffer<T>,
        y: &mut DeviceBuffer<T>,
        incy: isize,
    ) -> Result<(), Error> {
        let call = "gemv";
        let (lx, ly) = if op == Op::N { (n, m) } else { (m, n) };
        let (mi, ni, ldi) = (
            int(call, "m", m)?,
            int(call, "n", n)?,
            int(call, "lda", lda)?,
        );
        let (ix, iy) = (inc(call, "incx", incx)?, inc(call, "incy", incy)?);
        let ap = self.ptr(call, "A", a, mspan(call, m, n, lda)?)?;
        let xp = self.ptr(call, "x", x, vspan(call, "x", lx, incx)?)?;
        let yp = self.ptr(call, "y", y, vspan(call, "y", ly, incy)?)?;
        let alp = self.ptr(call, "alpha", alpha, 1)?;
        let bep = self.ptr(call, "beta", beta, 1)?;
        self.bind()?;
        let (h, t) = (self.h, trans(op));
        // SAFETY: A spans an m x n matrix at lda (lda >= max(1, m)), x and y the elements of
        // op(A)'s column and row counts at their increments, alpha and beta one element each
        // (checked above, overflow-safe); all on this handle's device; y is exclusively
        // borrowed, so it aliases no input.
        let s = unsafe {
            typed!(
                T,
                cublasSgemv_v2,
                cublasDgemv_v2,
                cublasCgemv_v2,
                cublasZgemv_v2,
                (h, t, mi, ni, alp as _, ap as _, ldi, xp as _, ix, bep as _, yp as _, iy)
            )
        };
        check("cublas?gemv_v2", s)
    }

    /// `gemv` of `batch` entries at fixed strides (elements) in one buffer per operand
    /// (`cublas?gemvStridedBatched`); entries of `y` must not overlap.
    #[allow(clippy::too_many_arguments)]
    pub fn gemv_strided_batched<T: CublasScalar>(
        &self,
        op: Op,
        m: usize,
        n: usize,
        alpha: &DeviceBuffer<T>,
        a: &DeviceBuffer<T>,
        lda: usize,
        stride_a: usize,
        x: &DeviceBuffer<T>,
        incx: isize,
        stride_x: usize,
        beta: &DeviceBuffer<T>,
        y: &mut DeviceBuffer<T>,
        incy: isize,
        stride_y: usize,
        batch: usize,
    ) -> Result<(), Error> {
        let call = "gemvStridedBatched";
        let (lx, ly) = if op == Op::N { (n, m) } else { (m, n) };
        let (mi, ni, ldi) = (
            int(call, "m", m)?,
            int(call, "n", n)?,
            int(call, "lda", lda)?,
        );
        let (ix, iy) = (inc(call, "incx", incx)?, inc(call, "incy", incy)?);
        let bi = int(call, "batch", batch)?;
        let (sa, sx, sy) = (
            stride(call, "stride_a", stride_a)?,
            stride(call, "stride_x", stride_x)?,
            stride(call, "stride_y", stride_y)?,
        );
        let (one_a, one_x, one_y) = (
            mspan(call, m, n, lda)?,
            vspan(call, "x", lx, incx)?,
            vspan(call, "y", ly, incy)?,
        );
        no_overlap(call, "y", one_y, stride_y, batch)?;
        let ap = self.ptr(call, "A", a, bspan(call, "A", one_a, stride_a, batch)?)?;
        let xp = self.ptr(call, "x", x, bspan(call, "x", one_x, stride_x, batch)?)?;
        let yp = self.ptr(call, "y", y, bspan(call, "y", one_y, stride_y, batch)?)?;
        let alp = self.ptr(call, "alpha", alpha, 1)?;
        let bep = self.ptr(call, "beta", beta, 1)?;
        self.bind()?;
        let (h, t) = (self.h, trans(op));
        // SAFETY: each of A, x, y holds (batch - 1) * stride + one entry's span elements, so
        // every entry lies inside its buffer; entries of y do not overlap; alpha and beta hold
        // one element (checked above, overflow-safe); all on this handle's device.
        let s = unsafe {
            typed!(
                T,
                cublasSgemvStridedBatched,
                cublasDgemvStridedBatched,
                cublasCgemvStridedBatched,
                cublasZgemvStridedBatched,
                (
                    h, t, mi, ni, alp as _, ap as _, ldi, sa, xp as _, ix, sx, bep as _, yp as _,
                    iy, sy, bi
                )
            )
        };
        check("cublas?gemvStridedBatched", s)
    }

    /// `y = alpha A x + beta y` with `A` symmetric (`cublas?symv_v2`), only the `uplo`
    /// triangle read.
    #[allow(clippy::too_many_arguments)]
    pub fn symv<T: CublasScalar>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: &DeviceBuffer<T>,
        a: &DeviceBuffer<T>,
        lda: usize,
        x: &DeviceBuffer<T>,
        incx: isize,
        beta: &DeviceBuffer<T>,
        y: &mut DeviceBuffer<T>,
        incy: isize,
    ) -> Result<(), Error> {
        self.sym_or_he(false, uplo, n, alpha, a, lda, x, incx, beta, y, incy)
    }

    /// `y = alpha A x + beta y` with `A` Hermitian (`cublasChemv_v2`/`cublasZhemv_v2`;
    /// complex types only).
    #[allow(clippy::too_many_arguments)]
    pub fn hemv<T: CublasScalar>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: &DeviceBuffer<T>,
        a: &DeviceBuffer<T>,
        lda: usize,
        x: &DeviceBuffer<T>,
        incx: isize,
        beta: &DeviceBuffer<T>,
        y: &mut DeviceBuffer<T>,
        incy: isize,
    ) -> Result<(), Error> {
        self.sym_or_he(true, uplo, n, alpha, a, lda, x, incx, beta, y, incy)
    }

    #[allow(clippy::too_many_arguments)]
    fn sym_or_he<T: CublasScalar>(
        &self,
        herm: bool,
        uplo: Uplo,
        n: usize,
        alpha: &DeviceBuffer<T>,
        a: &DeviceBuffer<T>,
        lda: usize,
        x: &DeviceBuffer<T>,
        incx: isize,
        beta: &DeviceBuffer<T>,
        y: &mut DeviceBuffer<T>,
        incy: isize,
    ) -> Result<(), Error> {
        let call = if herm { "hemv" } else { "symv" };
        if herm && matches!(T::TYPE, CublasType::S | CublasType::D) {
            return Err(Error::Unsupported(
                "cuBLAS hemv takes complex types only (Complex32, Complex64)".into(),
            ));
        }
        let (ni, ldi) = (int(call, "n", n)?, int(call, "lda", lda)?);
        let (ix, iy) = (inc(call, "incx", incx)?, inc(call, "incy", incy)?);
        let ap = self.ptr(call, "A", a, mspan(call, n, n, lda)?)?;
        let xp = self.ptr(call, "x", x, vspan(call, "x", n, incx)?)?;
        let yp = self.ptr(call, "y", y, vspan(call, "y", n, incy)?)?;
        let alp = self.ptr(call, "alpha", alpha, 1)?;
        let bep = self.ptr(call, "beta", beta, 1)?;
        self.bind()?;
        let (h, u) = (self.h, fill(uplo));
        // SAFETY: A spans an n x n matrix at lda >= max(1, n) (the stored triangle lies in
        // it), x and y n elements at their increments, alpha and beta one element (checked
        // above, overflow-safe); all on this handle's device; y aliases no input. hemv never
        // reaches the real-type arms (returned above).
        let s = unsafe {
            if herm {
                typed!(
                    T,
                    cublasSsymv_v2,
                    cublasDsymv_v2,
                    cublasChemv_v2,
                    cublasZhemv_v2,
                    (h, u, ni, alp as _, ap as _, ldi, xp as _, ix, bep as _, yp as _, iy)
                )
            } else {
                typed!(
                    T,
                    cublasSsymv_v2,
                    cublasDsymv_v2,
                    cublasCsymv_v2,
                    cublasZsymv_v2,
                    (h, u, ni, alp as _, ap as _, ldi, xp as _, ix, bep as _, yp as _, iy)
                )
            }
        };
        check(
            if herm {
                "cublas?hemv_v2"
            } else {
                "cublas?symv_v2"
            },
            s,
        )
    }

    /// `x = op(A) x` with `A` triangular (`cublas?trmv_v2`, in place).
    #[allow(clippy::too_many_arguments)]
    pub fn trmv<T: CublasScalar>(
        &self,
        uplo: Uplo,
        op: Op,
        diag: Diag,
        n: usize,
        a: &DeviceBuffer<T>,
        lda: usize,
        x: &mut DeviceBuffer<T>,
        incx: isize,
    ) -> Result<(), Error> {
        self.tri(false, uplo, op, diag, n, a, lda, x, incx)
    }

    /// Solves `op(A) x = b` in place, `A` triangular (`cublas?trsv_v2`).
    #[allow(clippy::too_many_arguments)]
    pub fn trsv<T: CublasScalar>(
        &self,
        uplo: Uplo,
        op: Op,
        diag: Diag,
        n: usize,
        a: &DeviceBuffer<T>,
        lda: usize,
        x: &mut DeviceBuffer<T>,
        incx: isize,
    ) -> Result<(), Error> {
        self.tri(true, uplo, op, diag, n, a, lda, x, incx)
    }

    #[allow(clippy::too_many_arguments)]
    fn tri<T: CublasScalar>(
        &self,
        solve: bool,
        uplo: Uplo,
        op: Op,
        diag: Diag,
        n: usize,
        a: &DeviceBuffer<T>,
        lda: usize,
        x: &mut DeviceBuffer<T>,
        incx: isize,
    ) -> Result<(), Error> {
        let call = if solve { "trsv" } else { "trmv" };
        let (ni, ldi, ix) = (
            int(call, "n", n)?,
            int(call, "lda", lda)?,
            inc(call, "incx", incx)?,
        );
        let ap = self.ptr(call, "A", a, mspan(call, n, n, lda)?)?;
        let xp = self.ptr(call, "x", x, vspan(call, "x", n, incx)?)?;
        self.bind()?;
        let (h, u, t, d) = (self.h, fill(uplo), trans(op), diag_type(diag));
        // SAFETY: A spans an n x n matrix at lda >= max(1, n), x n elements at incx (checked
        // above, overflow-safe); both on this handle's device; x is exclusively borrowed.
        let s = unsafe {
            if solve {
                typed!(
                    T,
                    cublasStrsv_v2,
                    cublasDtrsv_v2,
                    cublasCtrsv_v2,
                    cublasZtrsv_v2,
                    (h, u, t, d, ni, ap as _, ldi, xp as _, ix)
                )
            } else {
                typed!(
                    T,
                    cublasStrmv_v2,
                    cublasDtrmv_v2,
                    cublasCtrmv_v2,
                    cublasZtrmv_v2,
                    (h, u, t, d, ni, ap as _, ldi, xp as _, ix)
                )
            }
        };
        check(
            if solve {
                "cublas?trsv_v2"
            } else {
                "cublas?trmv_v2"
            },
            s,
        )
    }
}
