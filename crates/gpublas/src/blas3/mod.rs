//! Level 3: `gemm` and `gemm_ex` (through cuBLASLt on CUDA, faer on the host), and the
//! gemm-based `symm`, `hemm`, `syrk`, `herk`, `syr2k`, `her2k`, `syrkx`, `herkx`, `trmm`,
//! `trsm`, `trsm_ex` and `trtri`, for `f32`, `f64`, `Complex32`, `Complex64` (the Hermitian
//! ones complex only), each single, `_batched` and `_strided_batched`.
//!
//! Triangular solves and inverses (`tri.rs`): trsm inverts `A`'s diagonal blocks (128; 512 with
//! at most 128 right-hand sides) into the workspace (E) and solves recursively, each leaf one
//! product with its inverted block into a chunk of R copied back over `B`, each update one
//! product. Reduced plans: fewer batch entries at once, one block inverted at a time, narrower
//! chunks, smaller blocks, then substitution on the diagonal blocks (no E, no R). `trtri`
//! needs a chunk of one temporary (R); its minimum is one row of the largest level's.
//!
//!
//! Products run on the GEMM engine: cuBLASLt on CUDA (its workspace taken from the handle's
//! lease: a size query includes what the chosen algorithm needs, at most 32 MiB; a smaller
//! fixed workspace gives it only what fits, and `PerfDegraded` when that changes the
//! algorithm), faer on the host. cuBLASLt's choice is cached per handle and shape.
//!
//! The other routines are one block program both backends run (`program.rs`): the triangle is
//! cut into diagonal leaf blocks and, level by level, the off-diagonal blocks of neighbouring
//! pairs, each level one strided-batched product. Workspace (rocBLAS's "block of matrix"),
//! from one function (F4, `plan.rs`):
//! - the diagonal blocks of the rank-k updates are computed into the workspace, then only
//!   their `uplo` triangle is written to `C`;
//! - `symm`/`hemm`/`trmm` expand their diagonal blocks' stored triangle into full blocks;
//! - `trmm` builds its result blocks (a chunk of `B`'s columns or rows) in the workspace
//!   before they overwrite `B`;
//! - device scalars become per-entry slots (`alpha`, `conj(alpha)`, `beta`, 1, 0).
//!
//! A fixed workspace that is too small runs fewer batch entries at once (F8), fewer resident
//! blocks, smaller result chunks, then smaller leaves (`PerfDegraded`, same answer within
//! rounding); `MemoryError` only below one 8 × 8 block. Lists (`_batched`) run one entry at a
//! time. `beta == 0`: `C` is not read; a host `alpha == 0`: `A` and `B` are not read (a device
//! `alpha` equal to 0 is multiplied through, as cuBLAS does).

mod api;
mod api_tri;
pub(crate) mod cuda;
mod ex;
pub(crate) mod host;
pub(crate) mod plan;
pub(crate) mod program;
pub(crate) mod tri;

pub use api::*;
pub use api_tri::*;
pub use ex::{gemm_ex, gemm_ex_batched, gemm_ex_strided_batched, ComputeType, GemmExIn, GemmExOut};

use crate::common::operand::{check_counts, check_ld, mat_span, span_or, Batch, BatchMut, Checker};
use crate::common::plan::{choose, WorkspacePlan};
use crate::device::Backend;
use crate::{Coef, Diag, Error, Handle, Op, Scalar, Side, Status, Uplo};
use plan::{Plan, Shape};
use program::Step;

/// The routine a call runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Gemm,
    Symm,
    Hemm,
    Syrk,
    Herk,
    Syr2k,
    Her2k,
    Syrkx,
    Herkx,
    Trmm,
    Trsm,
    Trtri,
}

/// How trsm treats the diagonal blocks of A.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    /// Inverted into the workspace (reduced plans may substitute).
    Invert,
    /// Substitution, on the caller's request.
    Substitute,
    /// Read from the caller's inverse (operand B).
    Given,
}

/// A scalar argument: of the element type, or real (`herk`'s `alpha`, the Hermitian `beta`s).
pub(crate) enum ScalarArg<'a, T: Scalar> {
    Full(Coef<'a, T>),
    Real(Coef<'a, T::Real>),
}

/// One call's arguments, for every routine and form.
pub(crate) struct Call<'a, 'b, T: Scalar> {
    pub name: &'static str,
    pub kind: Kind,
    pub opa: Op,
    pub opb: Op,
    pub side: Side,
    pub uplo: Uplo,
    pub diag: Diag,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: Batch<'a, T>,
    pub lda: usize,
    pub b: Option<(Batch<'a, T>, usize)>,
    /// C (B for trmm), read and written.
    pub c: BatchMut<'a, 'b, T>,
    pub ldc: usize,
    pub alpha: ScalarArg<'a, T>,
    pub beta: ScalarArg<'a, T>,
    pub method: Method,
    /// Pivots and info of the solver's programs.
    pub ints: Option<crate::solver::Ints>,
    /// The batch entries to run (all when `None`): the solver runs its batch in chunks.
    pub range: Option<(usize, usize)>,
}

impl<'a, 'b, T: Scalar> Call<'a, 'b, T> {
    pub(crate) fn new(
        name: &'static str,
        kind: Kind,
        a: Batch<'a, T>,
        lda: usize,
        c: BatchMut<'a, 'b, T>,
        ldc: usize,
    ) -> Self {
        Call {
            name,
            kind,
            opa: Op::N,
            opb: Op::N,
            side: Side::Left,
            uplo: Uplo::Upper,
            diag: Diag::NonUnit,
            m: 0,
            n: 0,
            k: 0,
            a,
            lda,
            b: None,
            c,
            ldc,
            alpha: ScalarArg::Full(Coef::Host(T::one())),
            beta: ScalarArg::Full(Coef::Host(T::zero())),
            method: Method::Invert,
            ints: None,
            range: None,
        }
    }

    fn ops(&mut self, opa: Op, opb: Op) -> &mut Self {
        self.opa = opa;
        self.opb = opb;
        self
    }

    fn tri(&mut self, side: Side, uplo: Uplo, op: Op, diag: Diag) -> &mut Self {
        self.side = side;
        self.uplo = uplo;
        self.opa = op;
        self.diag = diag;
        self
    }

    fn dims(&mut self, m: usize, n: usize, k: usize) -> &mut Self {
        self.m = m;
        self.n = n;
        self.k = k;
        self
    }

    fn with_b(&mut self, b: Batch<'a, T>, ldb: usize) -> &mut Self {
        self.b = Some((b, ldb));
        self
    }
}

impl<T: Scalar> ScalarArg<'_, T> {
    /// The value when it is on the host.
    fn host(&self) -> Option<T> {
        match self {
            ScalarArg::Full(c) => c.host(),
            ScalarArg::Real(c) => c.host().map(T::from_real),
        }
    }

    fn on_device(&self) -> bool {
        self.host().is_none()
    }

    fn per_entry(&self) -> bool {
        match self {
            ScalarArg::Full(c) => matches!(c, Coef::DevicePerEntry(_)),
            ScalarArg::Real(c) => matches!(c, Coef::DevicePerEntry(_)),
        }
    }
}

impl<T: Scalar> Call<'_, '_, T> {
    /// Order of the triangle the blocks cut (A's for symm/trmm, C's for the rank-k updates).
    fn na(&self) -> usize {
        match self.kind {
            Kind::Symm | Kind::Hemm | Kind::Trmm | Kind::Trsm if self.side == Side::Right => self.n,
            _ => self.m,
        }
    }

    /// Stored rows and columns of A and B.
    fn a_dims(&self) -> (usize, usize) {
        match self.kind {
            Kind::Gemm => {
                if self.opa == Op::N {
                    (self.m, self.k)
                } else {
                    (self.k, self.m)
                }
            }
            Kind::Symm | Kind::Hemm | Kind::Trmm | Kind::Trsm | Kind::Trtri => {
                (self.na(), self.na())
            }
            _ => {
                if self.opa == Op::N {
                    (self.n, self.k)
                } else {
                    (self.k, self.n)
                }
            }
        }
    }

    fn b_dims(&self) -> (usize, usize) {
        match self.kind {
            Kind::Gemm => {
                if self.opb == Op::N {
                    (self.k, self.n)
                } else {
                    (self.n, self.k)
                }
            }
            Kind::Symm | Kind::Hemm => (self.m, self.n),
            _ => self.a_dims(),
        }
    }

    /// Reference-BLAS quick return (F3): nothing is read or written.
    fn quick(&self) -> bool {
        let beta_one = self.beta.host() == Some(T::one());
        let alpha_zero = self.alpha.host() == Some(T::zero());
        match self.kind {
            Kind::Gemm => self.m == 0 || self.n == 0 || ((alpha_zero || self.k == 0) && beta_one),
            Kind::Symm | Kind::Hemm => self.m == 0 || self.n == 0 || (alpha_zero && beta_one),
            Kind::Trmm | Kind::Trsm | Kind::Trtri => self.m == 0 || self.n == 0,
            _ => self.n == 0 || ((alpha_zero || self.k == 0) && beta_one),
        }
    }

    /// Only `C = beta C` (trmm: `B = 0`) is left: host alpha 0, or no inner dimension.
    fn scale_only(&self) -> bool {
        let alpha_zero = self.alpha.host() == Some(T::zero());
        let no_k = matches!(
            self.kind,
            Kind::Gemm
                | Kind::Syrk
                | Kind::Herk
                | Kind::Syr2k
                | Kind::Her2k
                | Kind::Syrkx
                | Kind::Herkx
        ) && self.k == 0;
        (alpha_zero && self.kind != Kind::Trtri) || no_k
    }

    /// Operation checks; real types read `C` as `T` (F2 step 1).
    fn check_ops(&mut self) -> Result<(), Error> {
        let name = self.name;
        if !T::COMPLEX {
            for op in [&mut self.opa, &mut self.opb] {
                if *op == Op::C {
                    *op = Op::T;
                }
            }
        }
        let bad = |op: Op, allowed: &str| {
            Err(Error::InvalidValue(format!(
                "{name}: op = {op:?} is not allowed here; use {allowed}"
            )))
        };
        match self.kind {
            Kind::Syrk | Kind::Syr2k | Kind::Syrkx if self.opa == Op::C => {
                bad(self.opa, "Op::N or Op::T (symmetric update)")
            }
            Kind::Herk | Kind::Her2k | Kind::Herkx if self.opa == Op::T => {
                bad(self.opa, "Op::N or Op::C (Hermitian update)")
            }
            _ => Ok(()),
        }
    }

    fn a_why(&self) -> String {
        let (r, c) = self.a_dims();
        format!("A of {r} × {c} with lda = {}", self.lda)
    }

    fn b_why(&self) -> String {
        let (r, c) = self.b_dims();
        let (what, ld) = self.b_names();
        format!(
            "{what} of {r} × {c} with {ld} = {}",
            self.b.map_or(0, |b| b.1)
        )
    }

    /// Names of operand B and its leading dimension.
    fn b_names(&self) -> (&'static str, &'static str) {
        if self.kind == Kind::Trsm {
            ("invA", "ldinv")
        } else {
            ("B", "ldb")
        }
    }

    /// Names of the output and its leading dimension.
    fn c_names(&self) -> (&'static str, &'static str) {
        match self.kind {
            Kind::Trmm | Kind::Trsm => ("B", "ldb"),
            Kind::Trtri => ("invA", "ldinv"),
            _ => ("C", "ldc"),
        }
    }

    fn c_why(&self) -> String {
        let (what, ld) = self.c_names();
        format!("{what} of {} × {} with {ld} = {}", self.m, self.n, self.ldc)
    }

    /// The argument that gives A's row count.
    fn a_rows_name(&self) -> &'static str {
        match (self.kind, self.opa) {
            (Kind::Gemm, Op::N) => "m",
            (Kind::Gemm, _) => "k",
            (Kind::Trtri, _) => "n",
            (Kind::Symm | Kind::Hemm | Kind::Trmm | Kind::Trsm, _) => {
                if self.side == Side::Left {
                    "m"
                } else {
                    "n"
                }
            }
            (_, Op::N) => "n",
            _ => "k",
        }
    }

    /// Size and shape checks (F2 step 1), spans included (also during a query, M8).
    fn check_sizes(&self) -> Result<(), Error> {
        let name = self.name;
        let (ar, ac) = self.a_dims();
        let a_rows_name = self.a_rows_name();
        check_ld(name, "lda", self.lda, ar, a_rows_name)?;
        span_or(name, mat_span(ar, ac, self.lda), &|| self.a_why())?;
        if let Some((b, ldb)) = &self.b {
            let (br, bc) = self.b_dims();
            let b_rows_name = match (self.kind, self.opb, self.opa) {
                (Kind::Trsm, _, _) => self.a_rows_name(),
                (Kind::Gemm, Op::N, _) => "k",
                (Kind::Gemm, _, _) => "n",
                (Kind::Symm | Kind::Hemm, _, _) => "m",
                (_, _, Op::N) => "n",
                _ => "k",
            };
            let (bname, bld) = self.b_names();
            check_ld(name, bld, *ldb, br, b_rows_name)?;
            span_or(name, mat_span(br, bc, *ldb), &|| self.b_why())?;
            check_counts(name, ("A", self.a.count()), (bname, b.count()))?;
        }
        let (out, ld_name) = self.c_names();
        let rows_name = if self.kind == Kind::Trtri { "n" } else { "m" };
        check_ld(name, ld_name, self.ldc, self.m, rows_name)?;
        span_or(name, mat_span(self.m, self.n, self.ldc), &|| self.c_why())?;
        check_counts(name, ("A", self.a.count()), (out, self.c.count()))
    }

    /// Operand checks (F2 step 3, F7, F9, F10).
    fn check_operands(&self, h: &Handle) -> Result<(), Error> {
        let ck = Checker { h, call: self.name };
        let batch = self.a.count();
        let (ar, ac) = self.a_dims();
        let need = span_or(self.name, mat_span(ar, ac, self.lda), &|| self.a_why())?;
        ck.batch("A", &self.a, need, &|| self.a_why(), false, None)?;
        if let Some((b, ldb)) = &self.b {
            let (br, bc) = self.b_dims();
            let need = span_or(self.name, mat_span(br, bc, *ldb), &|| self.b_why())?;
            ck.batch(self.b_names().0, b, need, &|| self.b_why(), false, None)?;
        }
        let need = span_or(self.name, mat_span(self.m, self.n, self.ldc), &|| {
            self.c_why()
        })?;
        let out = self.c_names().0;
        ck.batch(out, &self.c.view(), need, &|| self.c_why(), true, None)?;
        for (what, s) in [("alpha", &self.alpha), ("beta", &self.beta)] {
            match s {
                ScalarArg::Full(c) => ck.coef(what, c, batch)?,
                ScalarArg::Real(c) => ck.coef(what, c, batch)?,
            }
        }
        Ok(())
    }

    fn shape(&self) -> Shape {
        Shape {
            kind: self.kind,
            na: self.na(),
            other: if self.side == Side::Left {
                self.n
            } else {
                self.m
            },
            batch: self.a.count(),
            list: self.a.is_list(),
            elem: std::mem::size_of::<T>(),
            device_scalars: self.alpha.on_device() || self.beta.on_device(),
            scale_only: self.scale_only(),
            method: self.method,
        }
    }

    /// The program a plan runs.
    fn program(&self, p: &Plan) -> Vec<Step> {
        if self.scale_only() {
            program::scale_only(self)
        } else {
            program::build(self, p)
        }
    }
}

/// The one implementation behind every Level-3 routine but `gemm_ex` (F1, F2).
pub(crate) fn run<T: Scalar>(h: &mut Handle, mut c: Call<'_, '_, T>) -> Result<Status, Error> {
    // 1. sizes and shapes
    c.check_ops()?;
    c.check_sizes()?;
    let batch = c.a.count();
    let quick = c.quick() || batch == 0;
    if !quick {
        if let Some(r) = trsm_vector(h, &mut c) {
            return r;
        }
    }
    let shape = c.shape();
    let cuda = h.device().backend() == Backend::Cuda;
    let mut lt = if cuda && !quick {
        Some(cuda::engine(h)?)
    } else {
        None
    };
    let full = match (&mut lt, quick) {
        (_, true) => None,
        (Some(lt), false) => {
            let mut p = shape.full();
            let steps = c.program(&p);
            p.lt = cuda::lt_need(lt, &c, &p, &steps, crate::device::lt::LT_MAX_WORKSPACE)?;
            Some(p)
        }
        (None, false) => Some(shape.full()),
    };
    // 2. the query (M8)
    let q = h.query_step(&full.map(|p| p.sizes()).unwrap_or_default());
    if !matches!(q, Ok(None)) {
        cuda::give_back(h, lt);
        return q.map(|s| s.unwrap_or(Status::Success));
    }
    let r = run_checked(h, &mut c, full, &shape, &mut lt);
    cuda::give_back(h, lt);
    r
}

fn run_checked<T: Scalar>(
    h: &mut Handle,
    c: &mut Call<'_, '_, T>,
    full: Option<Plan>,
    shape: &Shape,
    lt: &mut Option<crate::device::lt::Lt>,
) -> Result<Status, Error> {
    // 3. operands (F7)
    c.check_operands(h)?;
    let Some(full) = full else {
        return Ok(Status::Success);
    };
    // 4. the workspace
    let mut lt_err = None;
    let (plan, status) = choose(
        h,
        c.name,
        full,
        |cap| {
            let mut p = shape.fitted(cap)?;
            if let Some(lt) = lt.as_mut() {
                let room = cap.saturating_sub(p.own_bytes()) / CHUNK_LT * CHUNK_LT;
                let steps = c.program(&p);
                match cuda::lt_need(
                    lt,
                    c,
                    &p,
                    &steps,
                    room.min(crate::device::lt::LT_MAX_WORKSPACE),
                ) {
                    Ok(need) => p.lt = need,
                    Err(e) => {
                        lt_err = Some(e);
                        return None;
                    }
                }
            }
            Some(p)
        },
        || shape.minimum_text(),
    )
    .map_err(|e| lt_err.take().unwrap_or(e))?;
    let lease = h.device_malloc(&plan.sizes())?;
    let ws = plan::Blas3Workspace::leased(&lease, 0);
    // 5. compute
    let steps = c.program(&plan);
    let r = match lt.as_mut() {
        Some(lt) => cuda::run(lease.handle(), &ws, lt, c, &plan, &steps),
        None => host::run(lease.handle(), &ws, c, &plan, &steps),
    };
    drop(lease);
    r.map(|_| status)
}

/// trsm with one right-hand side and a host `alpha` is Level 2's `trsv` (then `scal` when
/// `alpha != 1`): its kernel reads `A` once and needs a few launches where the block program
/// needs hundreds. `None`: not such a call. Right side with `Op::C` on complex data stays on
/// the block program (`trsv` has no conjugate-without-transpose).
fn trsm_vector<T: Scalar>(
    h: &mut Handle,
    c: &mut Call<'_, '_, T>,
) -> Option<Result<Status, Error>> {
    let left = c.side == Side::Left;
    let other = if left { c.n } else { c.m };
    let alpha = c.alpha.host()?;
    if c.kind != Kind::Trsm
        || c.method != Method::Invert
        || other != 1
        || alpha == T::zero()
        || (!left && c.opa == Op::C)
    {
        return None;
    }
    let mut go = || -> Result<Status, Error> {
        if !h.is_device_memory_size_query() {
            c.check_operands(h)?;
        }
        let na = c.na();
        // Right: x op(A) = b is op(A)^T x^T = b^T, x a row of B (stride ldb).
        let (op, inc) = if left {
            (c.opa, 1)
        } else if c.opa == Op::N {
            (Op::T, c.ldc as isize)
        } else {
            (Op::N, c.ldc as isize)
        };
        let call = crate::blas2::Call {
            name: c.name,
            kind: crate::blas2::Kind::Trsv,
            op,
            uplo: c.uplo,
            diag: c.diag,
            m: na,
            n: na,
            storage: crate::blas2::Storage::Full { lda: c.lda },
            a: c.a,
            x: None,
            out: c.c.reborrow(),
            inc_out: inc,
            alpha: Coef::Host(T::one()),
            beta: Coef::Host(T::zero()),
        };
        let st = crate::blas2::run(h, call)?;
        if alpha == T::one() {
            return Ok(st);
        }
        use crate::blas1::{scal, scal_batched, scal_strided_batched};
        let a = Coef::Host(alpha);
        let s2 = match c.c.reborrow() {
            BatchMut::Single(x) => scal(h, na, a, x, inc)?,
            BatchMut::List(l) => scal_batched(h, na, a, l, inc)?,
            BatchMut::Strided { buf, stride, count } => {
                scal_strided_batched(h, na, a, buf, inc, stride, count)?
            }
        };
        Ok(if st == Status::Success { s2 } else { st })
    };
    Some(go())
}

/// cuBLASLt's workspace is handed out in whole chunks of this many bytes.
const CHUNK_LT: usize = 256;
