//! Level 1 on cuBLAS: reductions into device buffers and the vector updates (pointer mode
//! DEVICE).

use super::*;

impl Cublas {
    /// Runs `op` on `n` elements of `x` (and `y` for `Dot`) at increment 1; the result goes to
    /// `result[0]` (an `i32` index for `Iamax`, else a `T`).
    pub fn run<T: CublasReal, R: Element>(
        &self,
        op: CublasOp,
        n: usize,
        x: &DeviceBuffer<T>,
        y: &DeviceBuffer<T>,
        result: &mut DeviceBuffer<R>,
    ) -> Result<(), Error> {
        let call = format!("{op:?}");
        let want = if op == CublasOp::Iamax {
            4
        } else {
            std::mem::size_of::<T>()
        };
        if std::mem::size_of::<R>() != want {
            return Err(Error::InvalidValue(format!(
                "cuBLAS {call}: result elements of {} bytes (needs {want})",
                std::mem::size_of::<R>()
            )));
        }
        let ni = int(&call, "n", n)?;
        let xp = self.ptr(&call, "x", x, n)?;
        let yp = self.ptr(&call, "y", y, if op == CublasOp::Dot { n } else { 0 })?;
        let rp = self.ptr(&call, "result", result, 1)?;
        self.bind()?;
        let h = self.h;
        // SAFETY: x and y hold at least n elements of T (y only read by Dot), result at least
        // one R of the size cuBLAS writes (checked above); all on this handle's device.
        let s = unsafe {
            match (op, T::DOUBLE) {
                (CublasOp::Asum, false) => sys::cublasSasum_v2(h, ni, xp as _, 1, rp as _),
                (CublasOp::Asum, true) => sys::cublasDasum_v2(h, ni, xp as _, 1, rp as _),
                (CublasOp::Nrm2, false) => sys::cublasSnrm2_v2(h, ni, xp as _, 1, rp as _),
                (CublasOp::Nrm2, true) => sys::cublasDnrm2_v2(h, ni, xp as _, 1, rp as _),
                (CublasOp::Dot, false) => {
                    sys::cublasSdot_v2(h, ni, xp as _, 1, yp as _, 1, rp as _)
                }
                (CublasOp::Dot, true) => sys::cublasDdot_v2(h, ni, xp as _, 1, yp as _, 1, rp as _),
                (CublasOp::Iamax, false) => sys::cublasIsamax_v2(h, ni, xp as _, 1, rp as _),
                (CublasOp::Iamax, true) => sys::cublasIdamax_v2(h, ni, xp as _, 1, rp as _),
            }
        };
        check("cuBLAS Level-1 call", s)
    }

    /// `y = alpha x + y` over `n` elements (`cublas?axpy_v2`).
    pub fn axpy<T: CublasScalar>(
        &self,
        n: usize,
        alpha: &DeviceBuffer<T>,
        x: &DeviceBuffer<T>,
        incx: isize,
        y: &mut DeviceBuffer<T>,
        incy: isize,
    ) -> Result<(), Error> {
        let call = "axpy";
        let (ni, ix, iy) = (
            int(call, "n", n)?,
            inc(call, "incx", incx)?,
            inc(call, "incy", incy)?,
        );
        let xp = self.ptr(call, "x", x, vspan(call, "x", n, incx)?)?;
        let yp = self.ptr(call, "y", y, vspan(call, "y", n, incy)?)?;
        let alp = self.ptr(call, "alpha", alpha, 1)?;
        self.bind()?;
        let h = self.h;
        // SAFETY: x and y hold n elements at their increments, alpha one element (checked
        // above, overflow-safe); all on this handle's device; y aliases no input.
        let s = unsafe {
            typed!(
                T,
                cublasSaxpy_v2,
                cublasDaxpy_v2,
                cublasCaxpy_v2,
                cublasZaxpy_v2,
                (h, ni, alp as _, xp as _, ix, yp as _, iy)
            )
        };
        check("cublas?axpy_v2", s)
    }

    /// `x = alpha x` over `n` elements (`cublas?scal_v2`).
    pub fn scal<T: CublasScalar>(
        &self,
        n: usize,
        alpha: &DeviceBuffer<T>,
        x: &mut DeviceBuffer<T>,
        incx: isize,
    ) -> Result<(), Error> {
        let call = "scal";
        let (ni, ix) = (int(call, "n", n)?, inc(call, "incx", incx)?);
        let xp = self.ptr(call, "x", x, vspan(call, "x", n, incx)?)?;
        let alp = self.ptr(call, "alpha", alpha, 1)?;
        self.bind()?;
        let h = self.h;
        // SAFETY: x holds n elements at incx, alpha one element (checked above,
        // overflow-safe); both on this handle's device; x is exclusively borrowed.
        let s = unsafe {
            typed!(
                T,
                cublasSscal_v2,
                cublasDscal_v2,
                cublasCscal_v2,
                cublasZscal_v2,
                (h, ni, alp as _, xp as _, ix)
            )
        };
        check("cublas?scal_v2", s)
    }

    /// `y = x` over `n` elements (`cublas?copy_v2`).
    pub fn copy<T: CublasScalar>(
        &self,
        n: usize,
        x: &DeviceBuffer<T>,
        incx: isize,
        y: &mut DeviceBuffer<T>,
        incy: isize,
    ) -> Result<(), Error> {
        let call = "copy";
        let (ni, ix, iy) = (
            int(call, "n", n)?,
            inc(call, "incx", incx)?,
            inc(call, "incy", incy)?,
        );
        let xp = self.ptr(call, "x", x, vspan(call, "x", n, incx)?)?;
        let yp = self.ptr(call, "y", y, vspan(call, "y", n, incy)?)?;
        self.bind()?;
        let h = self.h;
        // SAFETY: x and y hold n elements at their increments (checked above,
        // overflow-safe); both on this handle's device; y aliases no input.
        let s = unsafe {
            typed!(
                T,
                cublasScopy_v2,
                cublasDcopy_v2,
                cublasCcopy_v2,
                cublasZcopy_v2,
                (h, ni, xp as _, ix, yp as _, iy)
            )
        };
        check("cublas?copy_v2", s)
    }

    /// Exchanges `n` elements of `x` and `y` (`cublas?swap_v2`).
    pub fn swap<T: CublasScalar>(
        &self,
        n: usize,
        x: &mut DeviceBuffer<T>,
        incx: isize,
        y: &mut DeviceBuffer<T>,
        incy: isize,
    ) -> Result<(), Error> {
        let call = "swap";
        let (ni, ix, iy) = (
            int(call, "n", n)?,
            inc(call, "incx", incx)?,
            inc(call, "incy", incy)?,
        );
        let xp = self.ptr(call, "x", x, vspan(call, "x", n, incx)?)?;
        let yp = self.ptr(call, "y", y, vspan(call, "y", n, incy)?)?;
        self.bind()?;
        let h = self.h;
        // SAFETY: x and y hold n elements at their increments (checked above,
        // overflow-safe); both on this handle's device; both exclusively borrowed, so
        // distinct.
        let s = unsafe {
            typed!(
                T,
                cublasSswap_v2,
                cublasDswap_v2,
                cublasCswap_v2,
                cublasZswap_v2,
                (h, ni, xp as _, ix, yp as _, iy)
            )
        };
        check("cublas?swap_v2", s)
    }
}
