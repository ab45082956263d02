//! Level 2: `gemv`, `gbmv`, `symv`, `hemv`, `sbmv`, `hbmv`, `spmv`, `hpmv`, `trmv`, `tbmv`,
//! `tpmv`, `trsv`, `tbsv`, `tpsv` for `f32`, `f64`, `Complex32`, `Complex64` (`hemv`, `hbmv`,
//! `hpmv` complex only), each single, `_batched` (lists of buffers) and `_strided_batched` (one
//! buffer, a stride), from one generic implementation (SPEC F1).
//! The rank updates `ger` (real), `geru`, `gerc` (complex), `syr`, `syr2`, `spr`, `spr2` (all
//! four types; unconjugated for complex ones), `her`, `her2`, `hpr`, `hpr2` (complex) share
//! another (`update.rs`): reference BLAS's loops, only the stored triangle read and written.
//!
//! Matrices are column-major as in BLAS (`m`, `n`, buffer, `lda`); band matrices use the BLAS
//! band layout (`gbmv`: `kl` sub- and `ku` super-diagonals, `lda >= kl + ku + 1`; the
//! symmetric, Hermitian and triangular ones `k` off-diagonals of the stored triangle,
//! `lda >= k + 1`; any widths, as in reference BLAS: rows of a band beyond the matrix are
//! never read), packed ones the BLAS packed layout (`n (n + 1) / 2` elements). Vectors take any non-zero increment; a negative
//! one walks the vector backwards, as reference BLAS does. An increment of 0 is
//! `Error::InvalidValue` here, as reference BLAS rejects it in every Level-2 routine (its
//! `xerbla` check; unlike Level 1, where it is a valid call). `alpha`/`beta` are [`Coef`]s:
//! on the host, or in device memory (then nothing waits and the call can be captured into a
//! graph). `beta == 0` means `y` is not read (NaN there does not propagate); `alpha == 0`
//! means `A` and `x` are not read. Symmetric, Hermitian and triangular routines read only the stored
//! triangle or band (and not the diagonal when it is `Diag::Unit`; `hemv`, `hbmv` and `hpmv`
//! take the diagonal's real part).
//!
//! Workspace (rocBLAS's "column reductions of skinny matrices" and "result array before
//! overwriting input"), from one function (F4, [`workspace_bytes`] answers it for a shape):
//! - `gemv`: partial sums when a product is split over more blocks than it has output tiles
//!   (skinny transposed matrices, short wide ones). A fixed workspace that is too small runs
//!   fewer splits: `PerfDegraded`, same answer within rounding.
//! - `gbmv`: none (the band's columns are short: one pass, its geometry set by the band).
//! - `symv`/`hemv`/`spmv`/`hpmv`: partial sums of both halves of the stored triangle, so the
//!   triangle is read once. Too small a workspace: the triangle is read twice, with no workspace
//!   (`PerfDegraded`).
//! - `symv`/`spmv` for `f32`, `f64` and `Complex32`: the stored triangle in 256 × 256 regions,
//!   each read once through shared memory by one block, with a partial vector per region row:
//!   `elem ceil(n / 256) roundup(n, 32)` bytes per entry (4 / 8 MiB at n = 16384 for 4 / 8-byte
//!   elements). A fixed workspace that holds fewer entries runs
//!   fewer per launch; below one entry the split sweep above runs (`PerfDegraded`).
//! - `sbmv`/`hbmv`: none; one pass in which a block of rows sums the stored columns crossing
//!   its rows and the mirror of its own columns (a column's second read, by the next block,
//!   comes from the L2 cache), so the need does not depend on the band width.
//! - `trmv`/`tbmv`/`tpmv`: the result is built in the workspace before it overwrites `x`.
//!   Too small: an in-place algorithm on one block per matrix (`PerfDegraded`).
//! - `trsv`/`tbsv`/`tpsv`: one block per block of rows (64; 32 for `Complex64`) inverts its
//!   diagonal tile in shared memory, multiplies the solved rows it depends on (for a band,
//!   only the tiles that meet it) as soon as their progress flags (the workspace: 4 bytes per
//!   block of rows) are up, and applies its tile's inverse.
//!   Inverting a tile costs accuracy in proportion to that tile's condition number (a 64 × 64
//!   piece of the diagonal, not the whole matrix): on ill-conditioned triangles use a fixed
//!   workspace below the need, which runs plain substitution on one block per system
//!   (`PerfDegraded`), as do small systems (n ≤ 128) and large batches from the start.
//! - Lists: a table of the buffers' device addresses; when a fixed workspace cannot hold the
//!   whole batch's table, the batch runs in chunks that fit (F8, `PerfDegraded`).
//!
//! ```
//! use gpublas::{blas2, Device, Handle, Op};
//! let dev = Device::host();
//! let mut h = Handle::new(&dev)?;
//! // A = [1 3; 2 4] (column-major), x = [1, 1]
//! let a = dev.upload(&[1.0f64, 2.0, 3.0, 4.0])?;
//! let x = dev.upload(&[1.0f64, 1.0])?;
//! let mut y = dev.upload(&[f64::NAN, f64::NAN])?;
//! blas2::gemv(&mut h, Op::N, 2, 2, 1.0.into(), &a, 2, &x, 1, 0.0.into(), &mut y, 1)?;
//! assert_eq!(y.to_vec()?, vec![4.0, 6.0]);
//! # Ok::<(), gpublas::Error>(())
//! ```

mod api;
mod api_tri;
mod cuda;
mod host;
mod plan;
mod update;
mod update_api;
mod update_cuda;
mod update_host;

pub use api::*;
pub use api_tri::*;
pub use plan::workspace_bytes;
pub use update_api::*;

use crate::common::operand::{
    check_counts, check_ld, mat_span, packed_span, span_or, vec_span, Batch, BatchMut, Checker,
};
use crate::common::plan::{drive, Routine};
use crate::device::Backend;
use crate::{Coef, Diag, Error, Handle, Op, Scalar, Status, Uplo, WorkspaceLease};
use plan::{Blas2Workspace, Plan, Shape};

/// The routine a call runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Gemv,
    Symv,
    Hemv,
    /// `trmv`, `tbmv`, `tpmv`.
    Trmv,
    Trsv,
}

/// How the matrix is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Storage {
    Full {
        lda: usize,
    },
    /// BLAS band storage: element (i, j), `j - ku <= i <= j + kl`, at `ku + i - j + j lda`
    /// (symmetric and triangular bands: `(kl, ku)` is `(k, 0)` lower, `(0, k)` upper).
    Band {
        kl: usize,
        ku: usize,
        lda: usize,
    },
    Packed,
}

impl Storage {
    /// The band storage of a symmetric, Hermitian or triangular band matrix with `k`
    /// off-diagonals in its `uplo` triangle.
    fn band(uplo: Uplo, k: usize, lda: usize) -> Storage {
        match uplo {
            Uplo::Upper => Storage::Band { kl: 0, ku: k, lda },
            Uplo::Lower => Storage::Band { kl: k, ku: 0, lda },
        }
    }
}

/// One call's arguments, for every routine, type and form.
pub(crate) struct Call<'a, 'b, T> {
    pub name: &'static str,
    pub kind: Kind,
    pub op: Op,
    pub uplo: Uplo,
    pub diag: Diag,
    pub m: usize,
    pub n: usize,
    pub storage: Storage,
    pub a: Batch<'a, T>,
    /// The input vector of gemv/symv/hemv; `None` where x is updated in place.
    pub x: Option<(Batch<'a, T>, isize)>,
    /// The output vector: y of gemv/symv/hemv, x of trmv/trsv.
    pub out: BatchMut<'a, 'b, T>,
    pub inc_out: isize,
    pub alpha: Coef<'a, T>,
    pub beta: Coef<'a, T>,
}

impl<T: Scalar> Call<'_, '_, T> {
    /// Lengths of the input and output vectors.
    fn lens(&self) -> (usize, usize) {
        match (self.kind, self.op) {
            (Kind::Gemv, Op::N) => (self.n, self.m),
            (Kind::Gemv, _) => (self.m, self.n),
            _ => (self.n, self.n),
        }
    }

    /// Rows of the stored matrix (band: kl + ku + 1).
    fn stored_rows(&self) -> usize {
        match self.storage {
            // kl + ku + 1 overflowing is an error of check_sizes before anything uses this.
            Storage::Band { kl, ku, .. } => kl.saturating_add(ku).saturating_add(1),
            _ => self.m,
        }
    }

    fn a_need(&self) -> Result<usize, Error> {
        let why = || self.a_why();
        match self.storage {
            Storage::Full { lda } => span_or(self.name, mat_span(self.m, self.n, lda), &why),
            Storage::Band { lda, .. } => {
                span_or(self.name, mat_span(self.stored_rows(), self.n, lda), &why)
            }
            Storage::Packed => span_or(self.name, packed_span(self.n), &why),
        }
    }

    fn a_why(&self) -> String {
        match self.storage {
            Storage::Full { lda } if self.kind == Kind::Gemv => {
                format!("m = {}, n = {}, lda = {lda}", self.m, self.n)
            }
            Storage::Full { lda } => format!("n = {}, lda = {lda}", self.n),
            Storage::Band { kl, ku, lda } if self.kind == Kind::Gemv => format!(
                "m = {}, n = {}, kl = {kl}, ku = {ku}, lda = {lda}",
                self.m, self.n
            ),
            Storage::Band { kl, ku, lda } => {
                format!("n = {}, k = {}, lda = {lda}", self.n, kl.max(ku))
            }
            Storage::Packed => format!("packed n = {}", self.n),
        }
    }

    /// Reference-BLAS quick return (F3): nothing is read or written.
    fn quick(&self) -> bool {
        let trivial_scalars = matches!(
            (self.alpha.host(), self.beta.host()),
            (Some(a), Some(b)) if a == T::zero() && b == T::one()
        );
        match self.kind {
            Kind::Gemv => self.m == 0 || self.n == 0 || trivial_scalars,
            Kind::Symv | Kind::Hemv => self.n == 0 || trivial_scalars,
            Kind::Trmv | Kind::Trsv => self.n == 0,
        }
    }

    /// The argument positions of the increments in reference BLAS (`xerbla`'s `INFO`):
    /// (input x, output vector).
    fn inc_positions(&self) -> (usize, usize) {
        match (self.kind, self.storage) {
            (Kind::Gemv, Storage::Band { .. }) => (10, 13),
            (Kind::Gemv, _) => (8, 11),
            (Kind::Symv | Kind::Hemv, Storage::Band { .. }) => (8, 11),
            (Kind::Symv | Kind::Hemv, Storage::Packed) => (6, 9),
            (Kind::Symv | Kind::Hemv, Storage::Full { .. }) => (7, 10),
            (_, Storage::Band { .. }) => (0, 9),
            (_, Storage::Packed) => (0, 7),
            (_, Storage::Full { .. }) => (0, 8),
        }
    }

    /// Size and shape checks (F2 step 1), in reference BLAS's order (the leading dimension
    /// before the increments).
    fn check_sizes(&self) -> Result<(), Error> {
        let name = self.name;
        match self.storage {
            Storage::Full { lda } => check_ld(
                name,
                "lda",
                lda,
                self.m,
                if self.kind == Kind::Gemv { "m" } else { "n" },
            ),
            // Any k >= 0, as in reference BLAS: a band wider than the matrix has unused rows.
            Storage::Band { kl, ku, lda } => {
                let general = self.kind == Kind::Gemv;
                let rows = kl.checked_add(ku).and_then(|r| r.checked_add(1));
                let rows = rows.ok_or_else(|| {
                    Error::InvalidSize(if general {
                        format!("{name}: kl = {kl}, ku = {ku} leave no lda >= kl + ku + 1 in the address space")
                    } else {
                        format!(
                            "{name}: k = {} leaves no lda >= k + 1 in the address space",
                            kl.max(ku)
                        )
                    })
                })?;
                check_ld(
                    name,
                    "lda",
                    lda,
                    rows,
                    if general { "kl + ku + 1" } else { "k + 1" },
                )
            }
            Storage::Packed => Ok(()),
        }?;
        // Reference BLAS rejects a zero increment in every Level-2 routine (dgemv.f:
        // `ELSE IF (INCX.EQ.0) INFO = 8`), so gpublas does too.
        let (x_pos, out_pos) = self.inc_positions();
        let incs = [
            ("incx", self.x.as_ref().map(|x| x.1), x_pos),
            (
                if self.x.is_some() { "incy" } else { "incx" },
                Some(self.inc_out),
                out_pos,
            ),
        ];
        for (label, inc, pos) in incs {
            if let Some(inc) = inc {
                check_inc(name, label, inc, pos)?;
            }
        }
        // Every span must exist (no overflow), during a query too (M8).
        self.a_need()?;
        let (lx, ly) = self.lens();
        if let Some((_, incx)) = &self.x {
            span_or(name, vec_span(lx, *incx), &|| {
                format!("{lx} elements at incx = {incx}")
            })?;
        }
        let inc = self.inc_out;
        span_or(name, vec_span(ly, inc), &|| {
            format!("{ly} elements at increment {inc}")
        })?;
        let batch = self.a.count();
        if let Some((x, _)) = &self.x {
            check_counts(name, ("A", batch), ("x", x.count()))?;
        }
        let out_name = if self.x.is_some() { "y" } else { "x" };
        check_counts(name, ("A", batch), (out_name, self.out.count()))
    }

    /// Operand checks (F2 step 3, F7, F9, F10). Collects list addresses for the table.
    fn check_operands(&self, h: &Handle, addrs: &mut Vec<u64>) -> Result<(), Error> {
        let ck = Checker { h, call: self.name };
        let (lx, ly) = self.lens();
        let batch = self.a.count();
        let list = self.a.is_list();
        let a_need = self.a_need()?;
        ck.batch(
            "A",
            &self.a,
            a_need,
            &|| self.a_why(),
            false,
            list.then_some(&mut *addrs),
        )?;
        if let Some((x, incx)) = &self.x {
            let why = || format!("{lx} elements at incx = {incx}");
            let need = span_or(self.name, vec_span(lx, *incx), &why)?;
            ck.batch("x", x, need, &why, false, list.then_some(&mut *addrs))?;
        }
        let out_name = if self.x.is_some() { "y" } else { "x" };
        let inc_name = if self.x.is_some() { "incy" } else { "incx" };
        let inc = self.inc_out;
        let why = || format!("{ly} elements at {inc_name} = {inc}");
        let need = span_or(self.name, vec_span(ly, inc), &why)?;
        ck.batch(
            out_name,
            &self.out.view(),
            need,
            &why,
            true,
            list.then_some(&mut *addrs),
        )?;
        ck.coef("alpha", &self.alpha, batch)?;
        ck.coef("beta", &self.beta, batch)
    }

    fn shape(&self, h: &Handle) -> Shape {
        Shape {
            kind: self.kind,
            op: self.op,
            m: self.m,
            n: self.n,
            elem: std::mem::size_of::<T>(),
            batch: self.a.count(),
            list: self.a.is_list(),
            sms: h.device().multiprocessor_count(),
            params: plan::Blas2Params::auto(),
            band_rows: match (self.kind, self.storage) {
                // tbmv keeps the geometry of its rows (its workspace follows the geometry, and
                // a query names no band width).
                (Kind::Gemv | Kind::Symv | Kind::Hemv, Storage::Band { .. }) => {
                    Some(self.stored_rows().min(self.m))
                }
                _ => None,
            },
        }
    }
}

/// A Level-2 increment must be non-zero: reference BLAS rejects 0 in every Level-2 routine
/// (its `xerbla` check, `INFO = pos`), unlike Level 1, where it is a valid call.
pub(crate) fn check_inc(name: &str, label: &str, inc: isize, pos: usize) -> Result<(), Error> {
    if inc == 0 {
        return Err(Error::InvalidValue(format!(
            "{name}: {label} = 0; Level-2 increments must be non-zero (reference BLAS rejects it too, with INFO = {pos})"
        )));
    }
    Ok(())
}

/// One Level-2 call on its way through [`drive`].
struct MatVec<'a, 'b, T> {
    call: Call<'a, 'b, T>,
    shape: Shape,
    cuda: bool,
    /// A list batch's device addresses (A's, x's, y's), borrowed from the handle while the
    /// call runs.
    addrs: Option<Vec<u64>>,
}

impl<T: Scalar> Routine for MatVec<'_, '_, T> {
    type Plan = Plan;

    fn name(&self) -> &'static str {
        self.call.name
    }

    fn check_sizes(&mut self) -> Result<(), Error> {
        self.call.check_sizes()
    }

    fn full(&mut self, _h: &mut Handle) -> Result<Option<Plan>, Error> {
        let quick = self.call.quick() || self.shape.batch == 0;
        Ok((!quick).then(|| self.shape.full()))
    }

    fn check_operands(&mut self, h: &mut Handle) -> Result<(), Error> {
        let addrs = self.addrs.insert(std::mem::take(&mut h.list_addrs));
        addrs.clear();
        self.call.check_operands(h, addrs)
    }

    fn fitted(&mut self, capacity: usize) -> Result<Option<Plan>, Error> {
        Ok(self.shape.fitted(capacity))
    }

    fn minimum(&self) -> String {
        self.shape.minimum_text()
    }

    fn run(&mut self, lease: &WorkspaceLease<'_>, plan: &Plan) -> Result<(), Error> {
        let h = lease.handle();
        let ws = Blas2Workspace::leased(lease);
        if self.cuda {
            let addrs = self.addrs.as_deref().unwrap_or_default();
            cuda::run(h, &ws, &self.call, plan, addrs)
        } else {
            host::run(h, &ws, &mut self.call, plan)
        }
    }

    fn finish(&mut self, h: &mut Handle) {
        if let Some(addrs) = self.addrs.take() {
            h.list_addrs = addrs;
        }
    }
}

/// The one implementation behind every Level-2 routine (F1, F2).
pub(crate) fn run<T: Scalar>(h: &mut Handle, call: Call<'_, '_, T>) -> Result<Status, Error> {
    let shape = call.shape(h);
    let cuda = h.device().backend() == Backend::Cuda;
    drive(
        h,
        &mut MatVec {
            call,
            shape,
            cuda,
            addrs: None,
        },
    )
}
