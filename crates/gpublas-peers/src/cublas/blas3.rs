//! Level 3 on cuBLAS: `gemm_ex`, `syrk`, `herk`, `syr2k`, `symm`, `trmm`.

use super::*;

/// Level 3: `alpha` and `beta` are host values (pointer mode HOST, read before each call
/// returns); cuBLAS uses its own default workspace.
impl Cublas {
    /// `C = alpha op(A) op(B) + beta C` (`cublasGemmEx`, default algorithm): `op(A)` `m × k`,
    /// `op(B)` `k × n`, `C` `m × n`; inputs of type `I`, output `O`, arithmetic `compute`
    /// (one of `I::COMPUTE`: `F32` for the half types, `F32` or a fast mode for f32 and
    /// Complex32, `F64` for f64 and Complex64); `alpha`, `beta` of `I::Scale`.
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_ex<I: CublasExIn, O: CublasExOut<I>>(
        &self,
        opa: Op,
        opb: Op,
        m: usize,
        n: usize,
        k: usize,
        alpha: I::Scale,
        a: &DeviceBuffer<I>,
        lda: usize,
        b: &DeviceBuffer<I>,
        ldb: usize,
        beta: I::Scale,
        c: &mut DeviceBuffer<O>,
        ldc: usize,
        compute: CublasCompute,
    ) -> Result<(), Error> {
        let call = "gemmEx";
        let ct = ex_compute::<I>(call, compute)?;
        let g = GemmShape::new(call, opa, opb, m, n, k, lda, ldb, ldc)?;
        let ap = self.ptr(call, "A", a, g.one_a)?;
        let bp = self.ptr(call, "B", b, g.one_b)?;
        let cp = self.ptr(call, "C", c, g.one_c)?;
        self.bind_host()?;
        let (al, be) = (HostScalar(alpha), HostScalar(beta));
        // SAFETY: A, B and C hold the op(A), op(B) and C spans at their leading dimensions
        // (each ld >= max(1, rows), checked above, overflow-safe) in elements of the types
        // I::DT and O::DT name (sealed traits: sizes match); all on this handle's device; C is
        // exclusively borrowed, so it aliases no input; alpha and beta are aligned host values
        // of the scale type cuBLAS expects for `ct` and live until the call returns.
        let s = unsafe {
            sys::cublasGemmEx(
                self.h,
                trans(opa),
                trans(opb),
                g.m,
                g.n,
                g.k,
                al.ptr() as _,
                ap as _,
                I::DT,
                g.lda,
                bp as _,
                I::DT,
                g.ldb,
                be.ptr() as _,
                cp as _,
                O::DT,
                g.ldc,
                ct,
                sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        };
        check("cublasGemmEx", s)
    }

    /// [`Self::gemm_ex`] of `batch` entries at fixed strides (elements) in one buffer per
    /// operand (`cublasGemmStridedBatchedEx`); entries of `C` must not overlap (A and B may,
    /// e.g. stride 0 to share one matrix).
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_strided_batched_ex<I: CublasExIn, O: CublasExOut<I>>(
        &self,
        opa: Op,
        opb: Op,
        m: usize,
        n: usize,
        k: usize,
        alpha: I::Scale,
        a: &DeviceBuffer<I>,
        lda: usize,
        stride_a: usize,
        b: &DeviceBuffer<I>,
        ldb: usize,
        stride_b: usize,
        beta: I::Scale,
        c: &mut DeviceBuffer<O>,
        ldc: usize,
        stride_c: usize,
        batch: usize,
        compute: CublasCompute,
    ) -> Result<(), Error> {
        let call = "gemmStridedBatchedEx";
        let ct = ex_compute::<I>(call, compute)?;
        let g = GemmShape::new(call, opa, opb, m, n, k, lda, ldb, ldc)?;
        let bi = int(call, "batch", batch)?;
        let (sa, sb, sc) = (
            stride(call, "stride_a", stride_a)?,
            stride(call, "stride_b", stride_b)?,
            stride(call, "stride_c", stride_c)?,
        );
        no_overlap(call, "C", g.one_c, stride_c, batch)?;
        let ap = self.ptr(call, "A", a, bspan(call, "A", g.one_a, stride_a, batch)?)?;
        let bp = self.ptr(call, "B", b, bspan(call, "B", g.one_b, stride_b, batch)?)?;
        let cp = self.ptr(call, "C", c, bspan(call, "C", g.one_c, stride_c, batch)?)?;
        self.bind_host()?;
        let (al, be) = (HostScalar(alpha), HostScalar(beta));
        // SAFETY: each of A, B, C holds (batch - 1) * stride + one entry's span elements of
        // the types I::DT and O::DT name, so every entry lies inside its buffer; entries of C
        // do not overlap (checked above, overflow-safe); all on this handle's device; C aliases
        // no input; alpha and beta are aligned host values living until the call returns.
        let s = unsafe {
            sys::cublasGemmStridedBatchedEx(
                self.h,
                trans(opa),
                trans(opb),
                g.m,
                g.n,
                g.k,
                al.ptr() as _,
                ap as _,
                I::DT,
                g.lda,
                sa,
                bp as _,
                I::DT,
                g.ldb,
                sb,
                be.ptr() as _,
                cp as _,
                O::DT,
                g.ldc,
                sc,
                bi,
                ct,
                sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        };
        check("cublasGemmStridedBatchedEx", s)
    }

    /// `C = alpha op(A) op(A)ᵀ + beta C` on the `uplo` triangle of the `n × n` matrix `C`,
    /// `op(A)` `n × k` (`cublas?syrk_v2`); `op` is `N` or `T` (`C` is `T` for real types).
    #[allow(clippy::too_many_arguments)]
    pub fn syrk<T: CublasScalar>(
        &self,
        uplo: Uplo,
        op: Op,
        n: usize,
        k: usize,
        alpha: T,
        a: &DeviceBuffer<T>,
        lda: usize,
        beta: T,
        c: &mut DeviceBuffer<T>,
        ldc: usize,
    ) -> Result<(), Error> {
        let call = "syrk";
        let t = sym_trans::<T>(call, op)?;
        let (ra, ca) = rk_dims(op, n, k);
        let (ni, ki) = (int(call, "n", n)?, int(call, "k", k)?);
        let (ldai, ldci) = (int(call, "lda", lda)?, int(call, "ldc", ldc)?);
        let ap = self.ptr(call, "A", a, mspan_ld(call, "lda", ra, ca, lda)?)?;
        let cp = self.ptr(call, "C", c, mspan_ld(call, "ldc", n, n, ldc)?)?;
        self.bind_host()?;
        let (h, u) = (self.h, fill(uplo));
        let (al, be) = (HostScalar(alpha), HostScalar(beta));
        // SAFETY: A spans op(A)'s stored matrix at lda, C an n x n matrix at ldc (both ld >=
        // max(1, rows), checked above, overflow-safe); both on this handle's device; C aliases
        // no input; alpha and beta are aligned host values of T living until the call returns.
        let s = unsafe {
            typed!(
                T,
                cublasSsyrk_v2,
                cublasDsyrk_v2,
                cublasCsyrk_v2,
                cublasZsyrk_v2,
                (
                    h,
                    u,
                    t,
                    ni,
                    ki,
                    al.ptr() as _,
                    ap as _,
                    ldai,
                    be.ptr() as _,
                    cp as _,
                    ldci
                )
            )
        };
        check("cublas?syrk_v2", s)
    }

    /// `C = alpha op(A) op(A)ᴴ + beta C` on the `uplo` triangle, `alpha` and `beta` real, `op`
    /// `N` or `C` (`cublasCherk_v2`/`cublasZherk_v2`).
    #[allow(clippy::too_many_arguments)]
    pub fn herk<T: CublasComplex>(
        &self,
        uplo: Uplo,
        op: Op,
        n: usize,
        k: usize,
        alpha: T::Real,
        a: &DeviceBuffer<T>,
        lda: usize,
        beta: T::Real,
        c: &mut DeviceBuffer<T>,
        ldc: usize,
    ) -> Result<(), Error> {
        let call = "herk";
        if op == Op::T {
            return Err(Error::InvalidValue(
                "cuBLAS herk: op = T (herk takes N or C)".into(),
            ));
        }
        let (ra, ca) = rk_dims(op, n, k);
        let (ni, ki) = (int(call, "n", n)?, int(call, "k", k)?);
        let (ldai, ldci) = (int(call, "lda", lda)?, int(call, "ldc", ldc)?);
        let ap = self.ptr(call, "A", a, mspan_ld(call, "lda", ra, ca, lda)?)?;
        let cp = self.ptr(call, "C", c, mspan_ld(call, "ldc", n, n, ldc)?)?;
        self.bind_host()?;
        let (h, u, t) = (self.h, fill(uplo), trans(op));
        let (al, be) = (HostScalar(alpha), HostScalar(beta));
        // SAFETY: A spans op(A)'s stored matrix at lda, C an n x n matrix at ldc (checked
        // above, overflow-safe); both on this handle's device; C aliases no input; alpha and
        // beta are aligned host values of T::Real (f32 for Complex32, f64 for Complex64: the
        // only implementations) living until the call returns.
        let s = unsafe {
            match T::TYPE {
                CublasType::C => Some(sys::cublasCherk_v2(
                    h,
                    u,
                    t,
                    ni,
                    ki,
                    al.ptr() as _,
                    ap as _,
                    ldai,
                    be.ptr() as _,
                    cp as _,
                    ldci,
                )),
                CublasType::Z => Some(sys::cublasZherk_v2(
                    h,
                    u,
                    t,
                    ni,
                    ki,
                    al.ptr() as _,
                    ap as _,
                    ldai,
                    be.ptr() as _,
                    cp as _,
                    ldci,
                )),
                CublasType::S | CublasType::D => None,
            }
        };
        match s {
            Some(s) => check("cublas?herk_v2", s),
            None => Err(Error::Unsupported(
                "cuBLAS herk takes complex types only (Complex32, Complex64)".into(),
            )),
        }
    }

    /// `C = alpha op(A) op(B)ᵀ + alpha op(B) op(A)ᵀ + beta C` on the `uplo` triangle of the
    /// `n × n` matrix `C`, `op(A)` and `op(B)` `n × k` (`cublas?syr2k_v2`); `op` as [`Self::syrk`].
    #[allow(clippy::too_many_arguments)]
    pub fn syr2k<T: CublasScalar>(
        &self,
        uplo: Uplo,
        op: Op,
        n: usize,
        k: usize,
        alpha: T,
        a: &DeviceBuffer<T>,
        lda: usize,
        b: &DeviceBuffer<T>,
        ldb: usize,
        beta: T,
        c: &mut DeviceBuffer<T>,
        ldc: usize,
    ) -> Result<(), Error> {
        let call = "syr2k";
        let t = sym_trans::<T>(call, op)?;
        let (ra, ca) = rk_dims(op, n, k);
        let (ni, ki) = (int(call, "n", n)?, int(call, "k", k)?);
        let (ldai, ldbi, ldci) = (
            int(call, "lda", lda)?,
            int(call, "ldb", ldb)?,
            int(call, "ldc", ldc)?,
        );
        let ap = self.ptr(call, "A", a, mspan_ld(call, "lda", ra, ca, lda)?)?;
        let bp = self.ptr(call, "B", b, mspan_ld(call, "ldb", ra, ca, ldb)?)?;
        let cp = self.ptr(call, "C", c, mspan_ld(call, "ldc", n, n, ldc)?)?;
        self.bind_host()?;
        let (h, u) = (self.h, fill(uplo));
        let (al, be) = (HostScalar(alpha), HostScalar(beta));
        // SAFETY: A and B span op(A)'s and op(B)'s stored matrices at lda and ldb, C an n x n
        // matrix at ldc (checked above, overflow-safe); all on this handle's device; C aliases
        // no input; alpha and beta are aligned host values of T living until the call returns.
        let s = unsafe {
            typed!(
                T,
                cublasSsyr2k_v2,
                cublasDsyr2k_v2,
                cublasCsyr2k_v2,
                cublasZsyr2k_v2,
                (
                    h,
                    u,
                    t,
                    ni,
                    ki,
                    al.ptr() as _,
                    ap as _,
                    ldai,
                    bp as _,
                    ldbi,
                    be.ptr() as _,
                    cp as _,
                    ldci
                )
            )
        };
        check("cublas?syr2k_v2", s)
    }

    /// `C = alpha A B + beta C` (`Side::Left`, `A` of order `m`) or `alpha B A + beta C`
    /// (`Side::Right`, order `n`), `A` symmetric with only its `uplo` triangle read, `B` and
    /// `C` `m × n` (`cublas?symm_v2`).
    #[allow(clippy::too_many_arguments)]
    pub fn symm<T: CublasScalar>(
        &self,
        side: Side,
        uplo: Uplo,
        m: usize,
        n: usize,
        alpha: T,
        a: &DeviceBuffer<T>,
        lda: usize,
        b: &DeviceBuffer<T>,
        ldb: usize,
        beta: T,
        c: &mut DeviceBuffer<T>,
        ldc: usize,
    ) -> Result<(), Error> {
        let call = "symm";
        let ka = if side == Side::Left { m } else { n };
        let (mi, ni) = (int(call, "m", m)?, int(call, "n", n)?);
        let (ldai, ldbi, ldci) = (
            int(call, "lda", lda)?,
            int(call, "ldb", ldb)?,
            int(call, "ldc", ldc)?,
        );
        let ap = self.ptr(call, "A", a, mspan_ld(call, "lda", ka, ka, lda)?)?;
        let bp = self.ptr(call, "B", b, mspan_ld(call, "ldb", m, n, ldb)?)?;
        let cp = self.ptr(call, "C", c, mspan_ld(call, "ldc", m, n, ldc)?)?;
        self.bind_host()?;
        let (h, sd, u) = (self.h, side_mode(side), fill(uplo));
        let (al, be) = (HostScalar(alpha), HostScalar(beta));
        // SAFETY: A spans a square matrix of the order `side` names at lda, B and C m x n
        // matrices at ldb and ldc (checked above, overflow-safe); all on this handle's device;
        // C aliases no input; alpha and beta are aligned host values living until the call
        // returns.
        let s = unsafe {
            typed!(
                T,
                cublasSsymm_v2,
                cublasDsymm_v2,
                cublasCsymm_v2,
                cublasZsymm_v2,
                (
                    h,
                    sd,
                    u,
                    mi,
                    ni,
                    al.ptr() as _,
                    ap as _,
                    ldai,
                    bp as _,
                    ldbi,
                    be.ptr() as _,
                    cp as _,
                    ldci
                )
            )
        };
        check("cublas?symm_v2", s)
    }

    /// `B = alpha op(A) B` (`Side::Left`, `A` of order `m`) or `B = alpha B op(A)`
    /// (`Side::Right`, order `n`), `A` triangular, `B` `m × n` overwritten: BLAS's in-place
    /// `?trmm`. cuBLAS's `cublas?trmm_v2` is out of place (`C = alpha op(A) B`); it is called
    /// with `C = B`, `ldc = ldb`, which its documentation gives as the way to get the in-place
    /// operation.
    #[allow(clippy::too_many_arguments)]
    pub fn trmm<T: CublasScalar>(
        &self,
        side: Side,
        uplo: Uplo,
        op: Op,
        diag: Diag,
        m: usize,
        n: usize,
        alpha: T,
        a: &DeviceBuffer<T>,
        lda: usize,
        b: &mut DeviceBuffer<T>,
        ldb: usize,
    ) -> Result<(), Error> {
        let call = "trmm";
        let ka = if side == Side::Left { m } else { n };
        let (mi, ni) = (int(call, "m", m)?, int(call, "n", n)?);
        let (ldai, ldbi) = (int(call, "lda", lda)?, int(call, "ldb", ldb)?);
        let ap = self.ptr(call, "A", a, mspan_ld(call, "lda", ka, ka, lda)?)?;
        let bp = self.ptr(call, "B", b, mspan_ld(call, "ldb", m, n, ldb)?)?;
        self.bind_host()?;
        let (h, sd, u, t, d) = (
            self.h,
            side_mode(side),
            fill(uplo),
            trans(op),
            diag_type(diag),
        );
        let al = HostScalar(alpha);
        // SAFETY: A spans a square matrix of the order `side` names at lda, B an m x n matrix
        // at ldb (checked above, overflow-safe); both on this handle's device; B is exclusively
        // borrowed and passed as both B and C with ldc = ldb (cuBLAS's documented in-place
        // form; no other operands overlap); alpha is an aligned host value living until the
        // call returns.
        let s = unsafe {
            typed!(
                T,
                cublasStrmm_v2,
                cublasDtrmm_v2,
                cublasCtrmm_v2,
                cublasZtrmm_v2,
                (
                    h,
                    sd,
                    u,
                    t,
                    d,
                    mi,
                    ni,
                    al.ptr() as _,
                    ap as _,
                    ldai,
                    bp as _,
                    ldbi,
                    bp as _,
                    ldbi
                )
            )
        };
        check("cublas?trmm_v2", s)
    }
}
