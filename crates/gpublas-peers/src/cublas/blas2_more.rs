//! More of Level 2 on cuBLAS (pointer mode DEVICE): the rank updates `ger`, `geru`, `gerc`,
//! `syr`, `syr2`, `her`, `her2`, `spr`, `spr2`, `hpr`, `hpr2`; the band and packed products
//! `gbmv`, `sbmv`, `hbmv`, `spmv`, `hpmv`; the band and packed solves `tbsv`, `tpsv`.
//!
//! cuBLAS has no complex `spr`, `spr2`, `sbmv` or `spmv` (only `hpr`, `hpr2`, `hbmv`, `hpmv`),
//! and `ger` is real only (complex types have `geru` and `gerc`); those wrappers, and `her2`,
//! `hpr2`, `hbmv`, `hpmv` for real types, return `Error::Unsupported` before any other check
//! or call, as `hemv` does. `her` and `hpr` take `T: CublasComplex` (their `alpha` is real).

use gpublas::spans::packed_span;

use super::*;

/// Calls the variants of a cuBLAS routine listed for element type `$t` with one argument list
/// (`Some(status)`), or gives `None` for an element type the list lacks (raw pointers are cast
/// with `as _` to each variant's pointer type).
macro_rules! typed_some {
    ($t:ty, { $($ty:ident => $f:ident),+ $(,)? }, $args:tt) => {
        match <$t as CublasScalar>::TYPE {
            $(CublasType::$ty => Some(sys::$f $args),)+
            #[allow(unreachable_patterns)]
            _ => None,
        }
    };
}

/// `Error::Unsupported` unless `T` is complex (`complex`) or real (`!complex`).
fn family<T: CublasScalar>(call: &str, complex: bool) -> Result<(), Error> {
    let is_complex = matches!(T::TYPE, CublasType::C | CublasType::Z);
    match (complex, is_complex) {
        (true, false) => Err(Error::Unsupported(format!(
            "cuBLAS {call} takes complex types only (Complex32, Complex64)"
        ))),
        (false, true) => Err(Error::Unsupported(format!(
            "cuBLAS {call} takes real types only (f32, f64)"
        ))),
        _ => Ok(()),
    }
}

/// The status of a [`typed_some!`] call; `None` (a type the wrapper rejected before the call,
/// so never reached) is `Error::Unsupported` rather than a panic.
fn status(op: &str, s: Option<sys::cublasStatus_t>) -> Result<(), Error> {
    match s {
        Some(s) => check(op, s),
        None => Err(Error::Unsupported(format!(
            "{op}: cuBLAS has no variant for this element type"
        ))),
    }
}

/// Elements a packed triangle of order `n` holds (`n (n + 1) / 2`), or an error naming `n`.
fn pspan(call: &str, n: usize) -> Result<usize, Error> {
    packed_span(n).ok_or_else(|| {
        Error::InvalidValue(format!(
            "cuBLAS {call}: a packed triangle of order {n} overflows the address space"
        ))
    })
}

/// Which general rank-1 update: `ger` (real), `geru` or `gerc` (complex).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ger {
    Real,
    Unconj,
    Conj,
}

impl Cublas {
    /// `A = alpha x yᵀ + A` (`cublasSger_v2`/`cublasDger_v2`; real types only), `A` an
    /// `m × n` matrix at `lda`; `alpha` is element 0 of a device buffer.
    #[allow(clippy::too_many_arguments)]
    pub fn ger<T: CublasScalar>(
        &self,
        m: usize,
        n: usize,
        alpha: &DeviceBuffer<T>,
        x: &DeviceBuffer<T>,
        incx: isize,
        y: &DeviceBuffer<T>,
        incy: isize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
    ) -> Result<(), Error> {
        self.ger_any(Ger::Real, m, n, alpha, x, incx, y, incy, a, lda)
    }

    /// `A = alpha x yᵀ + A` (`cublasCgeru_v2`/`cublasZgeru_v2`; complex types only), `A` an
    /// `m × n` matrix at `lda`; `alpha` is element 0 of a device buffer.
    #[allow(clippy::too_many_arguments)]
    pub fn geru<T: CublasScalar>(
        &self,
        m: usize,
        n: usize,
        alpha: &DeviceBuffer<T>,
        x: &DeviceBuffer<T>,
        incx: isize,
        y: &DeviceBuffer<T>,
        incy: isize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
    ) -> Result<(), Error> {
        self.ger_any(Ger::Unconj, m, n, alpha, x, incx, y, incy, a, lda)
    }

    /// `A = alpha x yᴴ + A` (`cublasCgerc_v2`/`cublasZgerc_v2`; complex types only), `A` an
    /// `m × n` matrix at `lda`; `alpha` is element 0 of a device buffer.
    #[allow(clippy::too_many_arguments)]
    pub fn gerc<T: CublasScalar>(
        &self,
        m: usize,
        n: usize,
        alpha: &DeviceBuffer<T>,
        x: &DeviceBuffer<T>,
        incx: isize,
        y: &DeviceBuffer<T>,
        incy: isize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
    ) -> Result<(), Error> {
        self.ger_any(Ger::Conj, m, n, alpha, x, incx, y, incy, a, lda)
    }

    #[allow(clippy::too_many_arguments)]
    fn ger_any<T: CublasScalar>(
        &self,
        kind: Ger,
        m: usize,
        n: usize,
        alpha: &DeviceBuffer<T>,
        x: &DeviceBuffer<T>,
        incx: isize,
        y: &DeviceBuffer<T>,
        incy: isize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
    ) -> Result<(), Error> {
        let (call, op) = match kind {
            Ger::Real => ("ger", "cublas?ger_v2"),
            Ger::Unconj => ("geru", "cublas?geru_v2"),
            Ger::Conj => ("gerc", "cublas?gerc_v2"),
        };
        family::<T>(call, kind != Ger::Real)?;
        let (mi, ni, ldi) = (
            int(call, "m", m)?,
            int(call, "n", n)?,
            int(call, "lda", lda)?,
        );
        let (ix, iy) = (inc(call, "incx", incx)?, inc(call, "incy", incy)?);
        let xp = self.ptr(call, "x", x, vspan(call, "x", m, incx)?)?;
        let yp = self.ptr(call, "y", y, vspan(call, "y", n, incy)?)?;
        let ap = self.ptr(call, "A", a, mspan(call, m, n, lda)?)?;
        let alp = self.ptr(call, "alpha", alpha, 1)?;
        self.bind()?;
        let h = self.h;
        // SAFETY: x spans m elements at incx, y n elements at incy, A an m x n matrix at
        // lda >= max(1, m), alpha one element (checked above, overflow-safe); all on this
        // handle's device; A is exclusively borrowed, so it aliases no input.
        let s = unsafe {
            match kind {
                Ger::Real => typed_some!(
                    T,
                    { S => cublasSger_v2, D => cublasDger_v2 },
                    (h, mi, ni, alp as _, xp as _, ix, yp as _, iy, ap as _, ldi)
                ),
                Ger::Unconj => typed_some!(
                    T,
                    { C => cublasCgeru_v2, Z => cublasZgeru_v2 },
                    (h, mi, ni, alp as _, xp as _, ix, yp as _, iy, ap as _, ldi)
                ),
                Ger::Conj => typed_some!(
                    T,
                    { C => cublasCgerc_v2, Z => cublasZgerc_v2 },
                    (h, mi, ni, alp as _, xp as _, ix, yp as _, iy, ap as _, ldi)
                ),
            }
        };
        status(op, s)
    }

    /// `A = alpha x xᵀ + A` on the `uplo` triangle of the `n × n` `A` at `lda`
    /// (`cublas?syr_v2`; complex types too, without conjugation); `alpha` is element 0 of a
    /// device buffer.
    #[allow(clippy::too_many_arguments)]
    pub fn syr<T: CublasScalar>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: &DeviceBuffer<T>,
        x: &DeviceBuffer<T>,
        incx: isize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
    ) -> Result<(), Error> {
        self.syr_her(false, uplo, n, alpha, x, incx, a, lda)
    }

    /// `A = alpha x xᴴ + A` on the `uplo` triangle of the Hermitian `n × n` `A` at `lda`
    /// (`cublasCher_v2`/`cublasZher_v2`); `alpha` is element 0 of a device buffer of the real
    /// type.
    #[allow(clippy::too_many_arguments)]
    pub fn her<T: CublasComplex>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: &DeviceBuffer<T::Real>,
        x: &DeviceBuffer<T>,
        incx: isize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
    ) -> Result<(), Error> {
        self.syr_her(true, uplo, n, alpha, x, incx, a, lda)
    }

    /// `syr` (`herm = false`, `S = T`) or `her` (`herm = true`, `S = T::Real`, `T` complex):
    /// `S` is the type of `alpha`, which each variant reads; the two callers pair them so.
    #[allow(clippy::too_many_arguments)]
    fn syr_her<T: CublasScalar, S: Element>(
        &self,
        herm: bool,
        uplo: Uplo,
        n: usize,
        alpha: &DeviceBuffer<S>,
        x: &DeviceBuffer<T>,
        incx: isize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
    ) -> Result<(), Error> {
        let (call, op) = if herm {
            ("her", "cublas?her_v2")
        } else {
            ("syr", "cublas?syr_v2")
        };
        if herm {
            family::<T>(call, true)?;
        }
        let (ni, ldi, ix) = (
            int(call, "n", n)?,
            int(call, "lda", lda)?,
            inc(call, "incx", incx)?,
        );
        let xp = self.ptr(call, "x", x, vspan(call, "x", n, incx)?)?;
        let ap = self.ptr(call, "A", a, mspan(call, n, n, lda)?)?;
        let alp = self.ptr(call, "alpha", alpha, 1)?;
        self.bind()?;
        let (h, u) = (self.h, fill(uplo));
        // SAFETY: x spans n elements at incx, A an n x n matrix at lda >= max(1, n) (the
        // updated triangle lies in it), alpha one element of the type the variant reads (T for
        // syr, T::Real for her: f32 for Complex32, f64 for Complex64) (checked above,
        // overflow-safe); all on this handle's device; A is exclusively borrowed.
        let s = unsafe {
            if herm {
                typed_some!(
                    T,
                    { C => cublasCher_v2, Z => cublasZher_v2 },
                    (h, u, ni, alp as _, xp as _, ix, ap as _, ldi)
                )
            } else {
                Some(typed!(
                    T,
                    cublasSsyr_v2,
                    cublasDsyr_v2,
                    cublasCsyr_v2,
                    cublasZsyr_v2,
                    (h, u, ni, alp as _, xp as _, ix, ap as _, ldi)
                ))
            }
        };
        status(op, s)
    }

    /// `A = alpha x yᵀ + alpha y xᵀ + A` on the `uplo` triangle of the `n × n` `A` at `lda`
    /// (`cublas?syr2_v2`; complex types too, without conjugation); `alpha` is element 0 of a
    /// device buffer.
    #[allow(clippy::too_many_arguments)]
    pub fn syr2<T: CublasScalar>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: &DeviceBuffer<T>,
        x: &DeviceBuffer<T>,
        incx: isize,
        y: &DeviceBuffer<T>,
        incy: isize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
    ) -> Result<(), Error> {
        self.syr2_her2(false, uplo, n, alpha, x, incx, y, incy, a, lda)
    }

    /// `A = alpha x yᴴ + conj(alpha) y xᴴ + A` on the `uplo` triangle of the Hermitian
    /// `n × n` `A` at `lda` (`cublasCher2_v2`/`cublasZher2_v2`; complex types only); `alpha`
    /// is element 0 of a device buffer.
    #[allow(clippy::too_many_arguments)]
    pub fn her2<T: CublasScalar>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: &DeviceBuffer<T>,
        x: &DeviceBuffer<T>,
        incx: isize,
        y: &DeviceBuffer<T>,
        incy: isize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
    ) -> Result<(), Error> {
        self.syr2_her2(true, uplo, n, alpha, x, incx, y, incy, a, lda)
    }

    #[allow(clippy::too_many_arguments)]
    fn syr2_her2<T: CublasScalar>(
        &self,
        herm: bool,
        uplo: Uplo,
        n: usize,
        alpha: &DeviceBuffer<T>,
        x: &DeviceBuffer<T>,
        incx: isize,
        y: &DeviceBuffer<T>,
        incy: isize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
    ) -> Result<(), Error> {
        let (call, op) = if herm {
            ("her2", "cublas?her2_v2")
        } else {
            ("syr2", "cublas?syr2_v2")
        };
        if herm {
            family::<T>(call, true)?;
        }
        let (ni, ldi) = (int(call, "n", n)?, int(call, "lda", lda)?);
        let (ix, iy) = (inc(call, "incx", incx)?, inc(call, "incy", incy)?);
        let xp = self.ptr(call, "x", x, vspan(call, "x", n, incx)?)?;
        let yp = self.ptr(call, "y", y, vspan(call, "y", n, incy)?)?;
        let ap = self.ptr(call, "A", a, mspan(call, n, n, lda)?)?;
        let alp = self.ptr(call, "alpha", alpha, 1)?;
        self.bind()?;
        let (h, u) = (self.h, fill(uplo));
        // SAFETY: x and y span n elements at their increments, A an n x n matrix at
        // lda >= max(1, n), alpha one element (checked above, overflow-safe); all on this
        // handle's device; A is exclusively borrowed, so it aliases no input.
        let s = unsafe {
            if herm {
                typed_some!(
                    T,
                    { C => cublasCher2_v2, Z => cublasZher2_v2 },
                    (h, u, ni, alp as _, xp as _, ix, yp as _, iy, ap as _, ldi)
                )
            } else {
                Some(typed!(
                    T,
                    cublasSsyr2_v2,
                    cublasDsyr2_v2,
                    cublasCsyr2_v2,
                    cublasZsyr2_v2,
                    (h, u, ni, alp as _, xp as _, ix, yp as _, iy, ap as _, ldi)
                ))
            }
        };
        status(op, s)
    }

    /// `A = alpha x xᵀ + A` with `A` symmetric, its `uplo` triangle packed column by column in
    /// `n (n + 1) / 2` elements (`cublasSspr_v2`/`cublasDspr_v2`; real types only: cuBLAS has
    /// no complex `spr`); `alpha` is element 0 of a device buffer.
    pub fn spr<T: CublasScalar>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: &DeviceBuffer<T>,
        x: &DeviceBuffer<T>,
        incx: isize,
        ap: &mut DeviceBuffer<T>,
    ) -> Result<(), Error> {
        self.spr_hpr(false, uplo, n, alpha, x, incx, ap)
    }

    /// `A = alpha x xᴴ + A` with `A` Hermitian, its `uplo` triangle packed column by column in
    /// `n (n + 1) / 2` elements (`cublasChpr_v2`/`cublasZhpr_v2`); `alpha` is element 0 of a
    /// device buffer of the real type.
    pub fn hpr<T: CublasComplex>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: &DeviceBuffer<T::Real>,
        x: &DeviceBuffer<T>,
        incx: isize,
        ap: &mut DeviceBuffer<T>,
    ) -> Result<(), Error> {
        self.spr_hpr(true, uplo, n, alpha, x, incx, ap)
    }

    /// `spr` (`herm = false`, `S = T`, `T` real) or `hpr` (`herm = true`, `S = T::Real`, `T`
    /// complex): `S` is the type of `alpha`, which each variant reads; the two callers pair
    /// them so.
    #[allow(clippy::too_many_arguments)]
    fn spr_hpr<T: CublasScalar, S: Element>(
        &self,
        herm: bool,
        uplo: Uplo,
        n: usize,
        alpha: &DeviceBuffer<S>,
        x: &DeviceBuffer<T>,
        incx: isize,
        ap: &mut DeviceBuffer<T>,
    ) -> Result<(), Error> {
        let (call, op) = if herm {
            ("hpr", "cublas?hpr_v2")
        } else {
            ("spr", "cublas?spr_v2")
        };
        family::<T>(call, herm)?;
        let (ni, ix) = (int(call, "n", n)?, inc(call, "incx", incx)?);
        let xp = self.ptr(call, "x", x, vspan(call, "x", n, incx)?)?;
        let app = self.ptr(call, "AP", ap, pspan(call, n)?)?;
        let alp = self.ptr(call, "alpha", alpha, 1)?;
        self.bind()?;
        let (h, u) = (self.h, fill(uplo));
        // SAFETY: x spans n elements at incx, AP the n (n + 1) / 2 elements of the packed
        // triangle, alpha one element of the type the variant reads (T for spr, T::Real for
        // hpr) (checked above, overflow-safe); all on this handle's device; AP is exclusively
        // borrowed, so it aliases no input.
        let s = unsafe {
            if herm {
                typed_some!(
                    T,
                    { C => cublasChpr_v2, Z => cublasZhpr_v2 },
                    (h, u, ni, alp as _, xp as _, ix, app as _)
                )
            } else {
                typed_some!(
                    T,
                    { S => cublasSspr_v2, D => cublasDspr_v2 },
                    (h, u, ni, alp as _, xp as _, ix, app as _)
                )
            }
        };
        status(op, s)
    }

    /// `A = alpha x yᵀ + alpha y xᵀ + A` with `A` symmetric, its `uplo` triangle packed in
    /// `n (n + 1) / 2` elements (`cublasSspr2_v2`/`cublasDspr2_v2`; real types only: cuBLAS
    /// has no complex `spr2`); `alpha` is element 0 of a device buffer.
    #[allow(clippy::too_many_arguments)]
    pub fn spr2<T: CublasScalar>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: &DeviceBuffer<T>,
        x: &DeviceBuffer<T>,
        incx: isize,
        y: &DeviceBuffer<T>,
        incy: isize,
        ap: &mut DeviceBuffer<T>,
    ) -> Result<(), Error> {
        self.spr2_hpr2(false, uplo, n, alpha, x, incx, y, incy, ap)
    }

    /// `A = alpha x yᴴ + conj(alpha) y xᴴ + A` with `A` Hermitian, its `uplo` triangle packed
    /// in `n (n + 1) / 2` elements (`cublasChpr2_v2`/`cublasZhpr2_v2`; complex types only);
    /// `alpha` is element 0 of a device buffer.
    #[allow(clippy::too_many_arguments)]
    pub fn hpr2<T: CublasScalar>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: &DeviceBuffer<T>,
        x: &DeviceBuffer<T>,
        incx: isize,
        y: &DeviceBuffer<T>,
        incy: isize,
        ap: &mut DeviceBuffer<T>,
    ) -> Result<(), Error> {
        self.spr2_hpr2(true, uplo, n, alpha, x, incx, y, incy, ap)
    }

    #[allow(clippy::too_many_arguments)]
    fn spr2_hpr2<T: CublasScalar>(
        &self,
        herm: bool,
        uplo: Uplo,
        n: usize,
        alpha: &DeviceBuffer<T>,
        x: &DeviceBuffer<T>,
        incx: isize,
        y: &DeviceBuffer<T>,
        incy: isize,
        ap: &mut DeviceBuffer<T>,
    ) -> Result<(), Error> {
        let (call, op) = if herm {
            ("hpr2", "cublas?hpr2_v2")
        } else {
            ("spr2", "cublas?spr2_v2")
        };
        family::<T>(call, herm)?;
        let ni = int(call, "n", n)?;
        let (ix, iy) = (inc(call, "incx", incx)?, inc(call, "incy", incy)?);
        let xp = self.ptr(call, "x", x, vspan(call, "x", n, incx)?)?;
        let yp = self.ptr(call, "y", y, vspan(call, "y", n, incy)?)?;
        let app = self.ptr(call, "AP", ap, pspan(call, n)?)?;
        let alp = self.ptr(call, "alpha", alpha, 1)?;
        self.bind()?;
        let (h, u) = (self.h, fill(uplo));
        // SAFETY: x and y span n elements at their increments, AP the n (n + 1) / 2 elements
        // of the packed triangle, alpha one element (checked above, overflow-safe); all on
        // this handle's device; AP is exclusively borrowed, so it aliases no input.
        let s = unsafe {
            typed_some!(
                T,
                {
                    S => cublasSspr2_v2,
                    D => cublasDspr2_v2,
                    C => cublasChpr2_v2,
                    Z => cublasZhpr2_v2,
                },
                (h, u, ni, alp as _, xp as _, ix, yp as _, iy, app as _)
            )
        };
        status(op, s)
    }

    /// `y = alpha op(A) x + beta y` with `A` an `m × n` band matrix of `kl` sub- and `ku`
    /// super-diagonals in band storage at `lda >= kl + ku + 1` (`cublas?gbmv_v2`); `alpha`
    /// and `beta` are element 0 of device buffers.
    #[allow(clippy::too_many_arguments)]
    pub fn gbmv<T: CublasScalar>(
        &self,
        op: Op,
        m: usize,
        n: usize,
        kl: usize,
        ku: usize,
        alpha: &DeviceBuffer<T>,
        a: &DeviceBuffer<T>,
        lda: usize,
        x: &DeviceBuffer<T>,
        incx: isize,
        beta: &DeviceBuffer<T>,
        y: &mut DeviceBuffer<T>,
        incy: isize,
    ) -> Result<(), Error> {
        let call = "gbmv";
        let (lx, ly) = if op == Op::N { (n, m) } else { (m, n) };
        let (mi, ni, kli, kui, ldi) = (
            int(call, "m", m)?,
            int(call, "n", n)?,
            int(call, "kl", kl)?,
            int(call, "ku", ku)?,
            int(call, "lda", lda)?,
        );
        let (ix, iy) = (inc(call, "incx", incx)?, inc(call, "incy", incy)?);
        let band = kl
            .checked_add(ku)
            .and_then(|b| b.checked_add(1))
            .ok_or_else(|| {
                Error::InvalidValue(format!(
                    "cuBLAS {call}: kl + ku + 1 = {kl} + {ku} + 1 overflows the address space"
                ))
            })?;
        let ap = self.ptr(call, "A", a, mspan(call, band, n, lda)?)?;
        let xp = self.ptr(call, "x", x, vspan(call, "x", lx, incx)?)?;
        let yp = self.ptr(call, "y", y, vspan(call, "y", ly, incy)?)?;
        let alp = self.ptr(call, "alpha", alpha, 1)?;
        let bep = self.ptr(call, "beta", beta, 1)?;
        self.bind()?;
        let (h, t) = (self.h, trans(op));
        // SAFETY: A spans n columns of kl + ku + 1 band rows at lda >= kl + ku + 1, x and y
        // the elements of op(A)'s column and row counts at their increments, alpha and beta
        // one element each (checked above, overflow-safe); all on this handle's device; y is
        // exclusively borrowed, so it aliases no input.
        let s = unsafe {
            typed!(
                T,
                cublasSgbmv_v2,
                cublasDgbmv_v2,
                cublasCgbmv_v2,
                cublasZgbmv_v2,
                (
                    h, t, mi, ni, kli, kui, alp as _, ap as _, ldi, xp as _, ix, bep as _, yp as _,
                    iy
                )
            )
        };
        check("cublas?gbmv_v2", s)
    }

    /// `y = alpha A x + beta y` with `A` an `n × n` symmetric band matrix of `k` off-diagonals,
    /// its `uplo` triangle in band storage at `lda >= k + 1` (`cublasSsbmv_v2`/
    /// `cublasDsbmv_v2`; real types only: cuBLAS has no complex `sbmv`); `alpha` and `beta`
    /// are element 0 of device buffers.
    #[allow(clippy::too_many_arguments)]
    pub fn sbmv<T: CublasScalar>(
        &self,
        uplo: Uplo,
        n: usize,
        k: usize,
        alpha: &DeviceBuffer<T>,
        a: &DeviceBuffer<T>,
        lda: usize,
        x: &DeviceBuffer<T>,
        incx: isize,
        beta: &DeviceBuffer<T>,
        y: &mut DeviceBuffer<T>,
        incy: isize,
    ) -> Result<(), Error> {
        self.sbmv_hbmv(false, uplo, n, k, alpha, a, lda, x, incx, beta, y, incy)
    }

    /// `y = alpha A x + beta y` with `A` an `n × n` Hermitian band matrix of `k`
    /// off-diagonals, its `uplo` triangle in band storage at `lda >= k + 1`
    /// (`cublasChbmv_v2`/`cublasZhbmv_v2`; complex types only); `alpha` and `beta` are
    /// element 0 of device buffers.
    #[allow(clippy::too_many_arguments)]
    pub fn hbmv<T: CublasScalar>(
        &self,
        uplo: Uplo,
        n: usize,
        k: usize,
        alpha: &DeviceBuffer<T>,
        a: &DeviceBuffer<T>,
        lda: usize,
        x: &DeviceBuffer<T>,
        incx: isize,
        beta: &DeviceBuffer<T>,
        y: &mut DeviceBuffer<T>,
        incy: isize,
    ) -> Result<(), Error> {
        self.sbmv_hbmv(true, uplo, n, k, alpha, a, lda, x, incx, beta, y, incy)
    }

    #[allow(clippy::too_many_arguments)]
    fn sbmv_hbmv<T: CublasScalar>(
        &self,
        herm: bool,
        uplo: Uplo,
        n: usize,
        k: usize,
        alpha: &DeviceBuffer<T>,
        a: &DeviceBuffer<T>,
        lda: usize,
        x: &DeviceBuffer<T>,
        incx: isize,
        beta: &DeviceBuffer<T>,
        y: &mut DeviceBuffer<T>,
        incy: isize,
    ) -> Result<(), Error> {
        let (call, op) = if herm {
            ("hbmv", "cublas?hbmv_v2")
        } else {
            ("sbmv", "cublas?sbmv_v2")
        };
        family::<T>(call, herm)?;
        let (ni, ki, ldi) = (
            int(call, "n", n)?,
            int(call, "k", k)?,
            int(call, "lda", lda)?,
        );
        let (ix, iy) = (inc(call, "incx", incx)?, inc(call, "incy", incy)?);
        // k fits a 32-bit int (checked above), so k + 1 does not overflow usize.
        let ap = self.ptr(call, "A", a, mspan(call, k + 1, n, lda)?)?;
        let xp = self.ptr(call, "x", x, vspan(call, "x", n, incx)?)?;
        let yp = self.ptr(call, "y", y, vspan(call, "y", n, incy)?)?;
        let alp = self.ptr(call, "alpha", alpha, 1)?;
        let bep = self.ptr(call, "beta", beta, 1)?;
        self.bind()?;
        let (h, u) = (self.h, fill(uplo));
        // SAFETY: A spans n columns of k + 1 band rows at lda >= k + 1, x and y n elements at
        // their increments, alpha and beta one element each (checked above, overflow-safe);
        // all on this handle's device; y is exclusively borrowed, so it aliases no input.
        let s = unsafe {
            typed_some!(
                T,
                {
                    S => cublasSsbmv_v2,
                    D => cublasDsbmv_v2,
                    C => cublasChbmv_v2,
                    Z => cublasZhbmv_v2,
                },
                (h, u, ni, ki, alp as _, ap as _, ldi, xp as _, ix, bep as _, yp as _, iy)
            )
        };
        status(op, s)
    }

    /// `y = alpha A x + beta y` with `A` symmetric, its `uplo` triangle packed in
    /// `n (n + 1) / 2` elements (`cublasSspmv_v2`/`cublasDspmv_v2`; real types only: cuBLAS
    /// has no complex `spmv`); `alpha` and `beta` are element 0 of device buffers.
    #[allow(clippy::too_many_arguments)]
    pub fn spmv<T: CublasScalar>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: &DeviceBuffer<T>,
        ap: &DeviceBuffer<T>,
        x: &DeviceBuffer<T>,
        incx: isize,
        beta: &DeviceBuffer<T>,
        y: &mut DeviceBuffer<T>,
        incy: isize,
    ) -> Result<(), Error> {
        self.spmv_hpmv(false, uplo, n, alpha, ap, x, incx, beta, y, incy)
    }

    /// `y = alpha A x + beta y` with `A` Hermitian, its `uplo` triangle packed in
    /// `n (n + 1) / 2` elements (`cublasChpmv_v2`/`cublasZhpmv_v2`; complex types only);
    /// `alpha` and `beta` are element 0 of device buffers.
    #[allow(clippy::too_many_arguments)]
    pub fn hpmv<T: CublasScalar>(
        &self,
        uplo: Uplo,
        n: usize,
        alpha: &DeviceBuffer<T>,
        ap: &DeviceBuffer<T>,
        x: &DeviceBuffer<T>,
        incx: isize,
        beta: &DeviceBuffer<T>,
        y: &mut DeviceBuffer<T>,
        incy: isize,
    ) -> Result<(), Error> {
        self.spmv_hpmv(true, uplo, n, alpha, ap, x, incx, beta, y, incy)
    }

    #[allow(clippy::too_many_arguments)]
    fn spmv_hpmv<T: CublasScalar>(
        &self,
        herm: bool,
        uplo: Uplo,
        n: usize,
        alpha: &DeviceBuffer<T>,
        ap: &DeviceBuffer<T>,
        x: &DeviceBuffer<T>,
        incx: isize,
        beta: &DeviceBuffer<T>,
        y: &mut DeviceBuffer<T>,
        incy: isize,
    ) -> Result<(), Error> {
        let (call, op) = if herm {
            ("hpmv", "cublas?hpmv_v2")
        } else {
            ("spmv", "cublas?spmv_v2")
        };
        family::<T>(call, herm)?;
        let ni = int(call, "n", n)?;
        let (ix, iy) = (inc(call, "incx", incx)?, inc(call, "incy", incy)?);
        let app = self.ptr(call, "AP", ap, pspan(call, n)?)?;
        let xp = self.ptr(call, "x", x, vspan(call, "x", n, incx)?)?;
        let yp = self.ptr(call, "y", y, vspan(call, "y", n, incy)?)?;
        let alp = self.ptr(call, "alpha", alpha, 1)?;
        let bep = self.ptr(call, "beta", beta, 1)?;
        self.bind()?;
        let (h, u) = (self.h, fill(uplo));
        // SAFETY: AP spans the n (n + 1) / 2 elements of the packed triangle, x and y n
        // elements at their increments, alpha and beta one element each (checked above,
        // overflow-safe); all on this handle's device; y is exclusively borrowed, so it
        // aliases no input.
        let s = unsafe {
            typed_some!(
                T,
                {
                    S => cublasSspmv_v2,
                    D => cublasDspmv_v2,
                    C => cublasChpmv_v2,
                    Z => cublasZhpmv_v2,
                },
                (h, u, ni, alp as _, app as _, xp as _, ix, bep as _, yp as _, iy)
            )
        };
        status(op, s)
    }

    /// Solves `op(A) x = b` in place, `A` an `n × n` triangular band matrix of `k`
    /// off-diagonals, its `uplo` triangle in band storage at `lda >= k + 1`
    /// (`cublas?tbsv_v2`).
    #[allow(clippy::too_many_arguments)]
    pub fn tbsv<T: CublasScalar>(
        &self,
        uplo: Uplo,
        op: Op,
        diag: Diag,
        n: usize,
        k: usize,
        a: &DeviceBuffer<T>,
        lda: usize,
        x: &mut DeviceBuffer<T>,
        incx: isize,
    ) -> Result<(), Error> {
        let call = "tbsv";
        let (ni, ki, ldi, ix) = (
            int(call, "n", n)?,
            int(call, "k", k)?,
            int(call, "lda", lda)?,
            inc(call, "incx", incx)?,
        );
        // k fits a 32-bit int (checked above), so k + 1 does not overflow usize.
        let ap = self.ptr(call, "A", a, mspan(call, k + 1, n, lda)?)?;
        let xp = self.ptr(call, "x", x, vspan(call, "x", n, incx)?)?;
        self.bind()?;
        let (h, u, t, d) = (self.h, fill(uplo), trans(op), diag_type(diag));
        // SAFETY: A spans n columns of k + 1 band rows at lda >= k + 1, x n elements at incx
        // (checked above, overflow-safe); both on this handle's device; x is exclusively
        // borrowed.
        let s = unsafe {
            typed!(
                T,
                cublasStbsv_v2,
                cublasDtbsv_v2,
                cublasCtbsv_v2,
                cublasZtbsv_v2,
                (h, u, t, d, ni, ki, ap as _, ldi, xp as _, ix)
            )
        };
        check("cublas?tbsv_v2", s)
    }

    /// Solves `op(A) x = b` in place, `A` triangular with its `uplo` triangle packed in
    /// `n (n + 1) / 2` elements (`cublas?tpsv_v2`).
    #[allow(clippy::too_many_arguments)]
    pub fn tpsv<T: CublasScalar>(
        &self,
        uplo: Uplo,
        op: Op,
        diag: Diag,
        n: usize,
        ap: &DeviceBuffer<T>,
        x: &mut DeviceBuffer<T>,
        incx: isize,
    ) -> Result<(), Error> {
        let call = "tpsv";
        let (ni, ix) = (int(call, "n", n)?, inc(call, "incx", incx)?);
        let app = self.ptr(call, "AP", ap, pspan(call, n)?)?;
        let xp = self.ptr(call, "x", x, vspan(call, "x", n, incx)?)?;
        self.bind()?;
        let (h, u, t, d) = (self.h, fill(uplo), trans(op), diag_type(diag));
        // SAFETY: AP spans the n (n + 1) / 2 elements of the packed triangle, x n elements at
        // incx (checked above, overflow-safe); both on this handle's device; x is exclusively
        // borrowed.
        let s = unsafe {
            typed!(
                T,
                cublasStpsv_v2,
                cublasDtpsv_v2,
                cublasCtpsv_v2,
                cublasZtpsv_v2,
                (h, u, t, d, ni, app as _, xp as _, ix)
            )
        };
        check("cublas?tpsv_v2", s)
    }
}
