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
mod ex;
pub(crate) mod plan;
pub(crate) mod program;
pub(crate) mod tri;

pub use api::*;
pub use api_tri::*;
pub use ex::{gemm_ex, gemm_ex_batched, gemm_ex_strided_batched, ComputeType, GemmExIn, GemmExOut};

use crate::common::host::{coef_value, not_host};
use crate::common::operand::{check_counts, check_ld, mat_span, span_or, Batch, BatchMut, Checker};
use crate::common::plan::{drive, Routine};
use crate::device::lt::{Lt, LT_MAX_WORKSPACE};
use crate::exec::program::Step;
use crate::exec::workspace::BlockWorkspace;
pub(crate) use crate::exec::ScalarArg;
use crate::exec::{cuda as exec_cuda, host as exec_host, NoSteps, OnlyBlocks, Operands};
use crate::{Coef, Diag, Error, Handle, Op, Scalar, Side, Status, Uplo, WorkspaceLease};
use plan::{Plan, Shape};

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
        }
    }

    fn ops(&mut self, opa: Op, opb: Op) -> &mut Self {
        self.opa = opa;
        self.opb = opb;
        self
    }

    pub(crate) fn tri(&mut self, side: Side, uplo: Uplo, op: Op, diag: Diag) -> &mut Self {
        self.side = side;
        self.uplo = uplo;
        self.opa = op;
        self.diag = diag;
        self
    }

    pub(crate) fn dims(&mut self, m: usize, n: usize, k: usize) -> &mut Self {
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
            params: plan::Blas3Params::auto(),
        }
    }

    /// The program a plan runs.
    fn program(&self, p: &Plan) -> Vec<Step<NoSteps>> {
        if self.scale_only() {
            program::scale_only(self)
        } else {
            program::build(self, p)
        }
    }
}

impl<'b, T: Scalar> Call<'_, 'b, T> {
    /// The executor's view of the operands: every entry, `B` read beside `A`, `C` written.
    fn operands(&mut self) -> Operands<'_, 'b, T> {
        let range = (0, self.c.count());
        Operands {
            a: self.a,
            b: self.b.map(|b| b.0),
            c: self.c.reborrow(),
            alpha: self.alpha,
            beta: self.beta,
            range,
        }
    }
}

/// A Level-3 call on its way through the driver, with the GEMM engine it borrows from the
/// handle (CUDA).
struct Blas3Routine<'a, 'b, T: Scalar> {
    call: Call<'a, 'b, T>,
    lt: Option<Lt>,
}

impl<T: Scalar> Blas3Routine<'_, '_, T> {
    /// `plan` with cuBLASLt's workspace need for its products, each algorithm chosen within
    /// `limit` bytes (no engine: the host).
    fn with_engine_need(&mut self, mut plan: Plan, limit: usize) -> Result<Plan, Error> {
        if let Some(lt) = self.lt.as_mut() {
            let steps = self.call.program(&plan);
            let ops = self.call.operands();
            plan.lt = exec_cuda::lt_need(lt, &ops, &plan.layout(), &steps, limit)?;
        }
        Ok(plan)
    }
}

impl<T: Scalar> Routine for Blas3Routine<'_, '_, T> {
    type Plan = Plan;

    fn name(&self) -> &'static str {
        self.call.name
    }

    fn check_sizes(&mut self) -> Result<(), Error> {
        self.call.check_ops()?;
        self.call.check_sizes()
    }

    fn full(&mut self, h: &mut Handle) -> Result<Option<Plan>, Error> {
        if self.call.quick() || self.call.a.count() == 0 {
            return Ok(None);
        }
        exec_cuda::take_engine(h, &mut self.lt)?;
        let full = self.call.shape().full();
        self.with_engine_need(full, LT_MAX_WORKSPACE).map(Some)
    }

    fn check_operands(&mut self, h: &mut Handle) -> Result<(), Error> {
        self.call.check_operands(h)
    }

    fn fitted(&mut self, cap: usize) -> Result<Option<Plan>, Error> {
        let Some(p) = self.call.shape().fitted(cap) else {
            return Ok(None);
        };
        let room = exec_cuda::engine_room(cap, p.own_bytes(), LT_MAX_WORKSPACE).unwrap_or(0);
        self.with_engine_need(p, room).map(Some)
    }

    fn minimum(&self) -> String {
        self.call.shape().minimum_text()
    }

    fn run(&mut self, lease: &WorkspaceLease<'_>, plan: &Plan) -> Result<(), Error> {
        let h = lease.handle();
        let ws = BlockWorkspace::leased(lease, 0);
        let c = &mut self.call;
        if self.lt.is_none() && c.kind == Kind::Trsm && c.method != Method::Given {
            // A trsm on the host is faer's blocked triangular solve (the block program's small
            // steps are tuned for GPU kernels); same workspace lease and statuses.
            let _threads = h.host_par.enter();
            for e in 0..c.c.count() {
                let alpha = match &c.alpha {
                    ScalarArg::Full(s) => coef_value(s, e)?,
                    ScalarArg::Real(s) => T::from_real(coef_value(s, e)?),
                };
                let av = c.a.host_entry(e).ok_or_else(not_host)?;
                let bv = c.c.host_entry_mut(e).ok_or_else(not_host)?;
                crate::common::faer_host::trsm(
                    c.side, c.uplo, c.opa, c.diag, c.m, c.n, alpha, av, c.lda, bv, c.ldc,
                )?;
            }
            return Ok(());
        }
        let steps = c.program(plan);
        let name = c.name;
        let mut ops = c.operands();
        match self.lt.as_mut() {
            Some(lt) => exec_cuda::run(h, &ws, lt, &ops, &plan.layout(), &steps, &OnlyBlocks, name),
            None => exec_host::run(h, &ws, &mut ops, &steps, &mut OnlyBlocks),
        }
    }

    fn finish(&mut self, h: &mut Handle) {
        exec_cuda::give_back(h, self.lt.take());
    }
}

/// The one implementation behind every Level-3 routine but `gemm_ex` (F1, F2).
pub(crate) fn run<T: Scalar>(h: &mut Handle, c: Call<'_, '_, T>) -> Result<Status, Error> {
    let mut r = Blas3Routine { call: c, lt: None };
    // Sizes first: the one-column trsm below is only taken by a valid call.
    r.check_sizes()?;
    if !r.call.quick() && r.call.a.count() > 0 {
        if let Some(res) = trsm_vector(h, &mut r.call) {
            return res;
        }
    }
    drive(h, &mut r)
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
