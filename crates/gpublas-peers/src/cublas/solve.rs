//! Triangular solves (`trsm`, pointer-array batched `trsm`) and the batched small LU and QR
//! on cuBLAS.

use super::*;

/// Device arrays of per-entry pointers for cuBLAS's pointer-array batched triangular solve
/// ([`Cublas::trsm_batched`]): entry `i` of `A` at `a + i * stride_a` elements, of `B` at
/// `b + i * stride_b`. Built once by [`Cublas::batch_ptrs`] (a synchronous upload) so the
/// solves themselves upload nothing; the wrapper checks that the buffers, strides and count
/// it is called with are the ones the arrays were built for.
pub struct CublasBatchPtrs {
    a: DeviceBuffer<u64>,
    b: DeviceBuffer<u64>,
    key: BatchKey,
}

/// What a [`CublasBatchPtrs`] was built for: element size, base addresses, strides, count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BatchKey {
    elem: usize,
    a: u64,
    stride_a: usize,
    b: u64,
    stride_b: usize,
    batch: usize,
}

impl CublasBatchPtrs {
    /// The number of entries the arrays hold.
    pub fn batch(&self) -> usize {
        self.key.batch
    }
}

/// `base + i * stride` elements of `elem` bytes for `i < batch`, overflow-checked.
fn entry_addrs(
    call: &str,
    what: &str,
    base: u64,
    elem: usize,
    stride: usize,
    batch: usize,
) -> Result<Vec<u64>, Error> {
    let step = stride
        .checked_mul(elem)
        .and_then(|s| u64::try_from(s).ok())
        .ok_or_else(|| {
            Error::InvalidValue(format!(
                "cuBLAS {call}: {what} stride {stride} overflows the address space"
            ))
        })?;
    (0..batch as u64)
        .map(|i| {
            i.checked_mul(step)
                .and_then(|o| base.checked_add(o))
                .ok_or_else(|| {
                    Error::InvalidValue(format!(
                        "cuBLAS {call}: entry {i} of {what} overflows the address space"
                    ))
                })
        })
        .collect()
}

/// Level 3 triangular solves: `alpha` is a host value (pointer mode HOST).
impl Cublas {
    /// Solves `op(A) X = alpha B` (`Side::Left`, `A` of order `m`) or `X op(A) = alpha B`
    /// (`Side::Right`, order `n`), `A` triangular with only its `uplo` triangle read (and not
    /// its diagonal for `Diag::Unit`), `B` `m × n` overwritten with `X` (`cublas?trsm_v2`, in
    /// place).
    #[allow(clippy::too_many_arguments)]
    pub fn trsm<T: CublasScalar>(
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
        let call = "trsm";
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
        // at ldb (both ld >= max(1, rows), checked above, overflow-safe); both on this
        // handle's device; B is exclusively borrowed, so it aliases no input; alpha is an
        // aligned host value of T living until the call returns.
        let s = unsafe {
            typed!(
                T,
                cublasStrsm_v2,
                cublasDtrsm_v2,
                cublasCtrsm_v2,
                cublasZtrsm_v2,
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
                    ldbi
                )
            )
        };
        check("cublas?trsm_v2", s)
    }

    /// The pointer arrays [`Self::trsm_batched`] needs for `batch` entries of `a` and `b` at
    /// strides `stride_a` and `stride_b` (elements): two device arrays of `batch` addresses,
    /// uploaded now (synchronously). Keep them for as many calls as the buffers live; the
    /// addresses are checked again at each call.
    pub fn batch_ptrs<T: CublasScalar>(
        &self,
        a: &DeviceBuffer<T>,
        stride_a: usize,
        b: &DeviceBuffer<T>,
        stride_b: usize,
        batch: usize,
    ) -> Result<CublasBatchPtrs, Error> {
        let call = "batch_ptrs";
        let elem = std::mem::size_of::<T>();
        let ap = self.ptr(call, "A", a, 0)?;
        let bp = self.ptr(call, "B", b, 0)?;
        let pa = entry_addrs(call, "A", ap, elem, stride_a, batch)?;
        let pb = entry_addrs(call, "B", bp, elem, stride_b, batch)?;
        // One element at least: an empty batch still gets real (unread) allocations.
        let up = |v: &[u64]| {
            if v.is_empty() {
                self.dev.alloc::<u64>(1)
            } else {
                self.dev.upload(v)
            }
        };
        Ok(CublasBatchPtrs {
            a: up(&pa)?,
            b: up(&pb)?,
            key: BatchKey {
                elem,
                a: ap,
                stride_a,
                b: bp,
                stride_b,
                batch,
            },
        })
    }

    /// [`Self::trsm`] of `batch` entries at fixed strides (elements) in one buffer per operand,
    /// through `cublas?trsmBatched` with the pointer arrays `ptrs` built by
    /// [`Self::batch_ptrs`] for exactly these buffers, strides and count (checked); entries of
    /// `B` must not overlap (entries of `A` may, e.g. stride 0 to share one triangle).
    #[allow(clippy::too_many_arguments)]
    pub fn trsm_batched<T: CublasScalar>(
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
        stride_a: usize,
        b: &mut DeviceBuffer<T>,
        ldb: usize,
        stride_b: usize,
        batch: usize,
        ptrs: &CublasBatchPtrs,
    ) -> Result<(), Error> {
        let call = "trsmBatched";
        let ka = if side == Side::Left { m } else { n };
        let (mi, ni) = (int(call, "m", m)?, int(call, "n", n)?);
        let (ldai, ldbi) = (int(call, "lda", lda)?, int(call, "ldb", ldb)?);
        let bi = int(call, "batch", batch)?;
        let (one_a, one_b) = (
            mspan_ld(call, "lda", ka, ka, lda)?,
            mspan_ld(call, "ldb", m, n, ldb)?,
        );
        no_overlap(call, "B", one_b, stride_b, batch)?;
        let ap = self.ptr(call, "A", a, bspan(call, "A", one_a, stride_a, batch)?)?;
        let bp = self.ptr(call, "B", b, bspan(call, "B", one_b, stride_b, batch)?)?;
        let key = BatchKey {
            elem: std::mem::size_of::<T>(),
            a: ap,
            stride_a,
            b: bp,
            stride_b,
            batch,
        };
        if ptrs.key != key {
            return Err(Error::InvalidValue(format!(
                "cuBLAS {call}: the pointer arrays were built for {:?}, the call is {key:?}",
                ptrs.key
            )));
        }
        let pa = self.ptr(call, "the A pointer array", &ptrs.a, batch)?;
        let pb = self.ptr(call, "the B pointer array", &ptrs.b, batch)?;
        if batch == 0 {
            return Ok(());
        }
        self.bind_host()?;
        let (h, sd, u, t, d) = (
            self.h,
            side_mode(side),
            fill(uplo),
            trans(op),
            diag_type(diag),
        );
        let al = HostScalar(alpha);
        // SAFETY: the pointer arrays hold `batch` addresses base + i * stride (elements of T)
        // of exactly these A and B buffers (the key, checked above), each on this handle's
        // device; A and B hold (batch - 1) * stride + one entry's span elements, so every
        // entry lies inside its buffer (each ld >= max(1, rows), overflow-safe); entries of B
        // do not overlap and B is exclusively borrowed (aliases no A entry); alpha is an
        // aligned host value of T living until the call returns.
        let s = unsafe {
            typed!(
                T,
                cublasStrsmBatched,
                cublasDtrsmBatched,
                cublasCtrsmBatched,
                cublasZtrsmBatched,
                (
                    h,
                    sd,
                    u,
                    t,
                    d,
                    mi,
                    ni,
                    al.ptr() as _,
                    pa as _,
                    ldai,
                    pb as _,
                    ldbi,
                    bi
                )
            )
        };
        check("cublas?trsmBatched", s)
    }
}

/// LU factorization of small matrices in a batch (benchmarks of `gpublas bench solver`).
impl Cublas {
    /// LU factorization with partial pivoting of `batch` `n × n` matrices `stride_a` elements
    /// apart in `a`, in place (`cublas?getrfBatched`, real types), through the pointer array
    /// `ptrs` built by [`BatchPtrArray::new`](crate::cusolver::BatchPtrArray::new) for exactly
    /// this buffer, stride and count (checked). Entry `i`'s `n` 1-based pivots go to
    /// `ipiv[i * n ..]`, its `info` (0, or `j > 0` when `U(j, j)` is exactly zero) to
    /// `info[i]`. Entries must not overlap.
    #[allow(clippy::too_many_arguments)]
    pub fn getrf_batched<T: CublasReal>(
        &self,
        n: usize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
        stride_a: usize,
        ipiv: &mut DeviceBuffer<i32>,
        info: &mut DeviceBuffer<i32>,
        batch: usize,
        ptrs: &crate::cusolver::BatchPtrArray,
    ) -> Result<(), Error> {
        let call = "getrfBatched";
        let sh = crate::cusolver::GetrfBatchedShape::new(n, lda, stride_a, batch)?;
        let ap = self.ptr(call, "A", a, sh.a_span)?;
        let pa = ptrs.addr_for::<T>(
            "cuBLAS getrfBatched",
            (&self.dev, &self.stream),
            ap,
            stride_a,
            batch,
        )?;
        let pp = self.ptr(call, "ipiv", ipiv, sh.piv)?;
        let ip = self.ptr(call, "info", info, batch)?;
        if batch == 0 {
            return Ok(());
        }
        // No scalars: keep whichever pointer mode the handle has.
        self.bind_with(self.host_scalars.get())?;
        let h = self.h;
        // SAFETY: the pointer array holds `batch` addresses base + i * stride_a (elements of
        // T) of exactly this A buffer on this handle's device (its key, checked above); A holds
        // (batch - 1) * stride_a + one entry's span elements, so every n x n entry at lda >=
        // max(1, n) lies inside it, and the entries do not overlap; ipiv holds n * batch ints
        // and info `batch` (overflow-safe); A, ipiv and info are exclusively borrowed, so they
        // alias nothing else.
        let s = unsafe {
            if T::DOUBLE {
                sys::cublasDgetrfBatched(h, sh.n, pa as _, sh.lda, pp as _, ip as _, sh.batch)
            } else {
                sys::cublasSgetrfBatched(h, sh.n, pa as _, sh.lda, pp as _, ip as _, sh.batch)
            }
        };
        check("cublas?getrfBatched", s)
    }
}

/// QR factorization of small matrices in a batch (benchmarks of `gpublas bench qr`).
impl Cublas {
    /// Householder QR of `batch` `m × n` matrices `stride_a` elements apart in `a`, in place
    /// (`cublas?geqrfBatched`): entry `i`'s `R` in its upper triangle and its Householder
    /// vectors below (LAPACK's layout), its `min(m, n)` scalars to `tau[i * stride_tau ..]`.
    /// Both go through pointer arrays built by
    /// [`BatchPtrArray::new`](crate::cusolver::BatchPtrArray::new) for exactly these buffers,
    /// strides and count (checked): `ptrs.0` for `a`, `ptrs.1` for `tau`. cuBLAS reports only
    /// invalid arguments (in a host `int`, checked before anything runs, so the call does not
    /// wait for the GPU): a negative one is returned as `Error::InvalidValue`. Entries of
    /// either buffer must not overlap.
    #[allow(clippy::too_many_arguments)]
    pub fn geqrf_batched<T: CublasScalar>(
        &self,
        m: usize,
        n: usize,
        a: &mut DeviceBuffer<T>,
        lda: usize,
        stride_a: usize,
        tau: &mut DeviceBuffer<T>,
        stride_tau: usize,
        batch: usize,
        ptrs: (
            &crate::cusolver::BatchPtrArray,
            &crate::cusolver::BatchPtrArray,
        ),
    ) -> Result<(), Error> {
        let call = "geqrfBatched";
        let (mi, ni) = (int(call, "m", m)?, int(call, "n", n)?);
        let (ldi, bi) = (int(call, "lda", lda)?, int(call, "batch", batch)?);
        let one_a = mspan(call, m, n, lda)?;
        // cuBLAS documents each entry's tau as max(1, min(m, n)) elements.
        let one_tau = m.min(n).max(1);
        no_overlap(call, "A", one_a, stride_a, batch)?;
        no_overlap(call, "tau", one_tau, stride_tau, batch)?;
        let ap = self.ptr(call, "A", a, bspan(call, "A", one_a, stride_a, batch)?)?;
        let tp = self.ptr(
            call,
            "tau",
            tau,
            bspan(call, "tau", one_tau, stride_tau, batch)?,
        )?;
        let full = format!("cuBLAS {call}");
        let at = (&self.dev, &self.stream);
        let pa = ptrs.0.addr_for::<T>(&full, at, ap, stride_a, batch)?;
        let pt = ptrs.1.addr_for::<T>(&full, at, tp, stride_tau, batch)?;
        if batch == 0 {
            return Ok(());
        }
        // No scalars: keep whichever pointer mode the handle has.
        self.bind_with(self.host_scalars.get())?;
        let h = self.h;
        let mut info: c_int = 0;
        let ip = &mut info as *mut c_int;
        // SAFETY: the pointer arrays hold `batch` addresses base + i * stride (elements of T)
        // of exactly these A and tau buffers on this handle's device (their keys, checked
        // above); A holds (batch - 1) * stride_a + one entry's span elements, so every m x n
        // entry at lda >= max(1, m) lies inside it, and tau (batch - 1) * stride_tau +
        // max(1, min(m, n)); entries of neither overlap (overflow-safe); A and tau are
        // exclusively borrowed, so they alias nothing else; info is a live host int cuBLAS
        // writes before the call returns.
        let s = unsafe {
            typed!(
                T,
                cublasSgeqrfBatched,
                cublasDgeqrfBatched,
                cublasCgeqrfBatched,
                cublasZgeqrfBatched,
                (h, mi, ni, pa as _, ldi, pt as _, ip, bi)
            )
        };
        check("cublas?geqrfBatched", s)?;
        if info < 0 {
            return Err(Error::InvalidValue(format!(
                "cuBLAS {call}: argument {} rejected (m = {m}, n = {n}, lda = {lda}, batch = \
                 {batch})",
                -info
            )));
        }
        Ok(())
    }
}
