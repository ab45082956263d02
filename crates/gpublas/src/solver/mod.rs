//! LAPACK on the handle: `getrf` (LU with partial pivoting), `getrf_npvt`, `getrs`, `potrf`
//! (Cholesky), `potrs`, for `f32`, `f64`, `Complex32`, `Complex64`, each single, `_batched`
//! and `_strided_batched`, with rocSOLVER's semantics (1-based `i32` pivots; `info` 0 or the
//! first zero pivot / non-positive leading minor). Also re-exported here: the QR family
//! (`geqrf`, `orgqr`, `ormqr`, `gelqf`, `ormlq`, `gels`) and the symmetric/Hermitian
//! eigensolvers (`syevd`/`heevd`, `syevj_batched`/`heevj_batched`).
//!
//! The factorizations are recursive (LAPACK's `getrf2`/`potrf2` blocked by recursion): the
//! updates are the library's own trsm and matrix products (cuBLASLt on CUDA, faer on the
//! host), leaves of 32 columns are one kernel (an LU panel over all its rows, every block of
//! the grid cooperating; a one-warp Cholesky), and row interchanges are one kernel per half.
//! Both backends run the same program.
//!
//! Workspace (one function, F4: `plan.rs`): the solves' inverted diagonal blocks and result
//! chunks (as trsm), Cholesky's update diagonal blocks, cuBLASLt's workspace, the panel
//! kernel's exchange slots, and pivots and info routed to host memory (gathered in the
//! workspace, then copied out; device-routed ones are written in place). A fixed workspace
//! that is too small runs fewer batch entries at once (F8), fewer panel blocks, smaller
//! blocks, then substitution (`PerfDegraded`, same answer within rounding); `MemoryError` only
//! when host-routed results of one entry do not fit.

mod api;
pub(crate) mod cuda;
mod drivers;
pub(crate) mod host;
pub(crate) mod plan;
mod program;

pub use crate::eig::api::*;
pub use crate::qr::api::*;
pub use crate::qr::api_gels::*;
pub use crate::qr::api_lq::*;
pub use api::*;
pub use drivers::*;

use crate::blas3;
use crate::common::operand::{
    check_counts, check_int_buffer, check_ld, mat_span, span_or, Batch, BatchMut, Checker,
};
use crate::common::plan::{combined, drive, drive_pass, Pass, Routine};
use crate::device::lt::{Lt, LT_MAX_WORKSPACE};
use crate::device::{DeviceBuffer, Stream};
use crate::exec::{cuda as exec_cuda, host as exec_host, FamilySteps, Operands};
use crate::memory::address;
use crate::{Diag, Error, Handle, Op, Results, Scalar, Side, Status, Uplo, WorkspaceLease};
use plan::{SolverPlan, SolverShape, SolverWorkspace};
use program::{SolverStep, Step};

/// The routine a call runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Getrf,
    GetrfNpvt,
    Getrs,
    Potrf,
    Potrs,
    /// The inverse from getrf's factors and pivots, in place.
    Getri,
    /// The inverse from potrf's factor, in place.
    Potri,
}

/// One call's arguments, for every routine and form.
pub(crate) struct Call<'a, 'b, T: Scalar> {
    pub name: &'static str,
    pub kind: Kind,
    pub op: Op,
    pub uplo: Uplo,
    /// Rows of the factored matrix (its order for getrs/potrs/potrf).
    pub m: usize,
    /// Columns of the factored matrix; right-hand sides for getrs/potrs.
    pub n: usize,
    /// The matrix written: A for the factorizations, B for the solves (Level 3's C when the
    /// program runs).
    pub written: BatchMut<'a, 'b, T>,
    /// Its leading dimension: the user's `lda` (factorizations) or `ldb` (solves).
    pub ld_written: usize,
    /// The factors a solve reads.
    pub a: Option<(Batch<'a, T>, usize)>,
    /// Pivots written, with their stride between entries.
    pub ipiv: Option<(Results<'a, i32>, usize)>,
    /// Pivots read (getrs), with their stride.
    pub piv_in: Option<(&'a DeviceBuffer<i32>, usize)>,
    pub info: Option<Results<'a, i32>>,
    /// getrs: only the row interchanges (`solve_one_column` runs the solves).
    pub interchanges_only: bool,
}

impl<'a, 'b, T: Scalar> Call<'a, 'b, T> {
    fn new(
        name: &'static str,
        kind: Kind,
        written: BatchMut<'a, 'b, T>,
        ld_written: usize,
    ) -> Self {
        Call {
            name,
            kind,
            op: Op::N,
            uplo: Uplo::Lower,
            m: 0,
            n: 0,
            written,
            ld_written,
            a: None,
            ipiv: None,
            piv_in: None,
            info: None,
            interchanges_only: false,
        }
    }
}

/// Where the steps of one program find pivots, info and the panel kernel's scratch: the
/// solver's part of a program run, which runs its own steps (`FamilySteps`).
pub(crate) enum Ints {
    /// CUDA: device addresses (boxed: the tuning values make them large).
    Dev(Box<DevInts>),
    /// Host backend: values gathered per entry, copied out after the program.
    Host(HostInts),
}

fn no_ints() -> Error {
    Error::InvalidValue("a solver step ran without its pivots and info".into())
}

impl FamilySteps for Ints {
    type Step = SolverStep;

    fn launch<T: Scalar>(
        &self,
        stream: &Stream,
        step: &SolverStep,
        bases: &exec_cuda::Bases,
        entries: (usize, usize),
        side: bool,
    ) -> Result<(), Error> {
        match self {
            Ints::Dev(d) => cuda::launch::<T>(stream, step, bases, entries, d, side),
            Ints::Host(_) => Err(no_ints()),
        }
    }

    fn exec<T: Scalar>(
        &mut self,
        spaces: &mut exec_host::Spaces<'_, T>,
        step: &SolverStep,
        entry: usize,
    ) -> Result<(), Error> {
        match self {
            Ints::Host(hi) => host::exec(spaces, step, hi, entry),
            Ints::Dev(_) => Err(no_ints()),
        }
    }
}

/// Device addresses of a program's integers (entry `e`'s pivots at `piv + e * piv_s` i32s),
/// and the plan's tuning values its launches follow.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DevInts {
    pub piv: u64,
    pub piv_s: usize,
    pub info: u64,
    pub info_s: usize,
    /// The first entry of the chunk (host-routed values are per chunk entry).
    pub first: usize,
    pub piv_chunk: bool,
    pub info_chunk: bool,
    pub slots: u64,
    pub grid: usize,
    /// Gather lists of the interchanges (per chunk entry, `swap_s` i32s apart; 0: none).
    pub swap: u64,
    pub swap_s: usize,
    /// How many such lists, each `swap_s · entries` i32s.
    pub swap_lists: usize,
    /// Batch entries the workspace holds at once.
    pub entries: usize,
    pub params: plan::SolverParams,
    /// The device's multiprocessors (the whole LU's kernel depends on the batch per SM).
    pub sms: usize,
}

/// A program's integers on the host backend: `kmin` pivots and one info per entry.
#[derive(Debug, Default)]
pub(crate) struct HostInts {
    pub piv: Vec<i32>,
    pub kmin: usize,
    pub info: Vec<i32>,
}

impl<'a, 'b, T: Scalar> Call<'a, 'b, T> {
    /// A factorization of the `m × n` matrices `a`, info to `info`.
    fn factor(
        name: &'static str,
        kind: Kind,
        a: BatchMut<'a, 'b, T>,
        lda: usize,
        (m, n): (usize, usize),
        info: Results<'a, i32>,
    ) -> Self {
        let mut c = Call::new(name, kind, a, lda);
        c.m = m;
        c.n = n;
        c.info = Some(info);
        c
    }

    /// A solve with the factors `a` of order `n` for the `n × nrhs` right-hand sides `b`.
    fn solve(
        name: &'static str,
        kind: Kind,
        b: BatchMut<'a, 'b, T>,
        ldb: usize,
        (n, nrhs): (usize, usize),
        a: (Batch<'a, T>, usize),
    ) -> Self {
        let mut c = Call::new(name, kind, b, ldb);
        c.m = n;
        c.n = nrhs;
        c.a = Some(a);
        c
    }
}

impl<T: Scalar> Call<'_, '_, T> {
    fn kmin(&self) -> usize {
        self.m.min(self.n)
    }

    fn factors(&self) -> bool {
        matches!(
            self.kind,
            Kind::Getrf | Kind::GetrfNpvt | Kind::Potrf | Kind::Getri | Kind::Potri
        )
    }

    /// Size and shape checks (F2 step 1), spans included.
    fn check_sizes(&self) -> Result<(), Error> {
        let name = self.name;
        let batch = self.written.count();
        if self.factors() {
            let rows = if matches!(self.kind, Kind::Potrf | Kind::Getri | Kind::Potri) {
                "n"
            } else {
                "m"
            };
            check_ld(name, "lda", self.ld_written, self.m, rows)?;
            span_or(name, mat_span(self.m, self.n, self.ld_written), &|| {
                self.written_why()
            })?;
        } else {
            let (a, lda) = self
                .a
                .as_ref()
                .map(|(a, l)| (a.count(), *l))
                .unwrap_or((0, 0));
            check_ld(name, "lda", lda, self.m, "n")?;
            check_ld(name, "ldb", self.ld_written, self.m, "n")?;
            span_or(name, mat_span(self.m, self.m, lda), &|| self.a_why())?;
            span_or(name, mat_span(self.m, self.n, self.ld_written), &|| {
                self.written_why()
            })?;
            check_counts(name, ("A", a), ("B", batch))?;
        }
        // Written pivots must not overlap (F9); read ones (getrs) may.
        if let Some((_, sp)) = &self.ipiv {
            let kp = self.kmin();
            if batch > 1 && *sp < kp {
                return Err(Error::InvalidValue(format!(
                    "{name}: stride_piv = {sp} is less than the {kp} pivots of one entry: the \
                     entries' pivots would overlap"
                )));
            }
        }
        Ok(())
    }

    fn written_why(&self) -> String {
        if self.factors() {
            format!(
                "A of {} × {} with lda = {}",
                self.m, self.n, self.ld_written
            )
        } else {
            format!(
                "B of {} × {} with ldb = {}",
                self.m, self.n, self.ld_written
            )
        }
    }

    fn a_why(&self) -> String {
        let lda = self.a.as_ref().map_or(0, |a| a.1);
        format!("A of {} × {} with lda = {lda}", self.m, self.m)
    }

    /// Pivots in one entry and the elements the pivot buffer must hold.
    fn piv_need(&self, kp: usize, stride: usize) -> Option<usize> {
        let batch = self.written.count();
        if batch == 0 || kp == 0 {
            return Some(0);
        }
        (batch - 1).checked_mul(stride)?.checked_add(kp)
    }

    /// Operand checks (F2 step 3, F7, F9).
    fn check_operands(&self, h: &Handle) -> Result<(), Error> {
        let name = self.name;
        let ck = Checker { h, call: name };
        let batch = self.written.count();
        let need = span_or(name, mat_span(self.m, self.n, self.ld_written), &|| {
            self.written_why()
        })?;
        let out = if self.factors() { "A" } else { "B" };
        ck.batch(
            out,
            &self.written.view(),
            need,
            &|| self.written_why(),
            true,
            None,
        )?;
        if let Some((a, lda)) = &self.a {
            let need = span_or(name, mat_span(self.m, self.m, *lda), &|| self.a_why())?;
            ck.batch("A", a, need, &|| self.a_why(), false, None)?;
        }
        let short = |what: &str, have: usize, need: usize, why: String| {
            Err(Error::InvalidValue(format!(
                "{name}: {what} has {have} elements; {why} needs {need}"
            )))
        };
        if let Some((ipiv, sp)) = &self.ipiv {
            let kp = self.kmin();
            let need = self
                .piv_need(kp, *sp)
                .ok_or_else(|| Error::InvalidSize(format!("{name}: ipiv's span overflows")))?;
            if let Results::Device(b) = ipiv {
                check_int_buffer(h, name, "ipiv", b)?;
            }
            if ipiv.len() < need {
                let why = format!("{batch} entries of {kp} pivots at stride_piv = {sp}");
                return short("ipiv", ipiv.len(), need, why);
            }
        }
        if let Some((p, sp)) = &self.piv_in {
            let need = self
                .piv_need(self.m, *sp)
                .ok_or_else(|| Error::InvalidSize(format!("{name}: ipiv's span overflows")))?;
            check_int_buffer(h, name, "ipiv", p)?;
            if p.len() < need {
                let why = format!("{batch} entries of {} pivots at stride_piv = {sp}", self.m);
                return short("ipiv", p.len(), need, why);
            }
        }
        if let Some(info) = &self.info {
            if let Results::Device(b) = info {
                check_int_buffer(h, name, "info", b)?;
            }
            if info.len() < batch {
                return short(
                    "info",
                    info.len(),
                    batch,
                    format!("one per entry ({batch})"),
                );
            }
        }
        Ok(())
    }

    fn shape(&self, h: &Handle) -> SolverShape {
        SolverShape {
            kind: self.kind,
            m: self.m,
            n: self.n,
            batch: self.written.count(),
            list: self.written.view().is_list(),
            elem: std::mem::size_of::<T>(),
            complex: T::COMPLEX,
            piv_host: self.ipiv.as_ref().is_some_and(|p| p.0.is_host()),
            info_host: self.info.as_ref().is_some_and(|i| i.is_host()),
            sms: h.device().multiprocessor_count(),
            params: plan::SolverParams::auto(),
            interchanges_only: self.interchanges_only,
        }
    }

    fn prog(&self) -> program::Prog {
        program::Prog {
            kind: self.kind,
            op: self.op,
            uplo: self.uplo,
            m: self.m,
            n: self.n,
            ld_factors: self.a.as_ref().map_or(1, |a| a.1),
            ld_written: self.ld_written,
            interchanges_only: self.interchanges_only,
        }
    }

    fn quick(&self) -> bool {
        self.m == 0 || self.n == 0 || self.written.count() == 0
    }
}

/// The executor's view of a solver call's operands for entries `range`: `C` is the matrix
/// written, `A` the factors a solve reads (`placeholder`, memoryless, for the factorizations,
/// whose programs only use `C`).
fn operands<'x, 'b, T: Scalar>(
    c: &'x mut Call<'_, 'b, T>,
    placeholder: &'x DeviceBuffer<T>,
    range: (usize, usize),
) -> Operands<'x, 'b, T> {
    let a = c.a.as_ref().map(|a| a.0);
    Operands::lapack(a, placeholder, c.written.reborrow(), range)
}

/// A solver call on its way through the driver, with the GEMM engine it borrows (CUDA).
struct SolverRoutine<'a, 'b, T: Scalar> {
    call: Call<'a, 'b, T>,
    lt: Option<Lt>,
    /// Set by `full` (it depends on the device).
    shape: Option<SolverShape>,
    /// Space A of the factorizations' programs, which read no A.
    placeholder: DeviceBuffer<T>,
}

impl<T: Scalar> SolverRoutine<'_, '_, T> {
    /// `plan` with cuBLASLt's workspace need for its products, each algorithm chosen within
    /// `limit` bytes (no engine: the host).
    fn with_engine_need(
        &mut self,
        mut plan: SolverPlan,
        limit: usize,
    ) -> Result<SolverPlan, Error> {
        if let Some(lt) = self.lt.as_mut() {
            let steps = program::build::<T>(&self.call.prog(), &plan);
            let all = (0, self.call.written.count());
            let ops = operands(&mut self.call, &self.placeholder, all);
            plan.p3.lt = exec_cuda::lt_need(lt, &ops, &plan.p3.layout(), &steps, limit)?;
        }
        Ok(plan)
    }
}

impl<T: Scalar> Routine for SolverRoutine<'_, '_, T> {
    type Plan = SolverPlan;

    fn name(&self) -> &'static str {
        self.call.name
    }

    fn check_sizes(&mut self) -> Result<(), Error> {
        if !T::COMPLEX && self.call.op == Op::C {
            self.call.op = Op::T;
        }
        self.call.check_sizes()
    }

    fn full(&mut self, h: &mut Handle) -> Result<Option<SolverPlan>, Error> {
        if self.call.quick() {
            return Ok(None);
        }
        exec_cuda::take_engine(h, &mut self.lt)?;
        let shape = self.call.shape(h);
        self.shape = Some(shape);
        let engine = shape.params.engine_budget.min(LT_MAX_WORKSPACE);
        self.with_engine_need(shape.full(), engine).map(Some)
    }

    fn check_operands(&mut self, h: &mut Handle) -> Result<(), Error> {
        self.call.check_operands(h)
    }

    fn quick_return(&mut self, h: &mut Handle) -> Result<Status, Error> {
        // LAPACK sets info to 0 on a quick return too.
        if self.call.factors() && self.call.written.count() > 0 {
            zero_info(h, &mut self.call)?;
        }
        Ok(Status::Success)
    }

    fn fitted(&mut self, cap: usize) -> Result<Option<SolverPlan>, Error> {
        let Some(p) = self.shape.and_then(|s| s.fitted(cap)) else {
            return Ok(None);
        };
        let limit = p.params.engine_budget.min(LT_MAX_WORKSPACE);
        let room = exec_cuda::engine_room(cap, p.own_bytes(), limit).unwrap_or(0);
        self.with_engine_need(p, room).map(Some)
    }

    fn minimum(&self) -> String {
        self.shape.map(|s| s.minimum_text()).unwrap_or_default()
    }

    fn run(&mut self, lease: &WorkspaceLease<'_>, plan: &SolverPlan) -> Result<(), Error> {
        let steps = program::build::<T>(&self.call.prog(), plan);
        match self.lt.as_mut() {
            Some(lt) => run_cuda(lease, lt, &mut self.call, &self.placeholder, plan, &steps),
            None => run_host(lease, &mut self.call, &self.placeholder, plan, &steps),
        }
    }

    fn finish(&mut self, h: &mut Handle) {
        exec_cuda::give_back(h, self.lt.take());
    }
}

/// The one implementation behind every solver routine (F1, F2).
pub(crate) fn run<T: Scalar>(h: &mut Handle, c: Call<'_, '_, T>) -> Result<Status, Error> {
    if matches!(c.kind, Kind::Getrs | Kind::Potrs) && c.n == 1 && !c.interchanges_only {
        return solve_one_column(h, c);
    }
    run_driven(h, c)
}

/// getrs and potrs with one right-hand side: the interchanges (getrs) as a program of their
/// own, the two triangular solves as Level 3's trsm, which with one column is the trsv kernel:
/// it reads the factors once, where the block solve holds every inverted leaf in the
/// workspace (42 MB at order 8192). The call's own checks come first, so nothing runs for an
/// invalid call, and the parts' checks cannot fail after one has written.
fn solve_one_column<T: Scalar>(h: &mut Handle, mut c: Call<'_, '_, T>) -> Result<Status, Error> {
    if !T::COMPLEX && c.op == Op::C {
        c.op = Op::T;
    }
    c.check_sizes()?;
    let Some((a, lda)) = c.a else {
        return Err(Error::InvalidValue(format!(
            "{}: a solve without its factors",
            c.name
        )));
    };
    if c.quick() {
        return run_driven(h, c);
    }
    if !h.is_device_memory_size_query() {
        c.check_operands(h)?;
    }
    let (name, n, ldb, op, uplo) = (c.name, c.m, c.ld_written, c.op, c.uplo);
    let trsm = |h: &mut Handle, c: &mut Call<'_, '_, T>, uplo: Uplo, op: Op, diag: Diag| {
        let mut t = blas3::Call::new(name, blas3::Kind::Trsm, a, lda, c.written.reborrow(), ldb);
        t.tri(Side::Left, uplo, op, diag).dims(n, 1, 0);
        blas3::run(h, t)
    };
    let swap = |h: &mut Handle, c: &mut Call<'_, '_, T>| {
        let mut s = Call::new(name, Kind::Getrs, c.written.reborrow(), ldb);
        (s.op, s.m, s.n, s.a, s.piv_in) = (op, n, 1, c.a, c.piv_in);
        s.interchanges_only = true;
        run_driven(h, s)
    };
    let degraded_before = h.degraded_count();
    let statuses = (|| {
        Ok::<_, Error>(match c.kind {
            Kind::Getrs if op == Op::N => [
                swap(h, &mut c)?,
                trsm(h, &mut c, Uplo::Lower, Op::N, Diag::Unit)?,
                trsm(h, &mut c, Uplo::Upper, Op::N, Diag::NonUnit)?,
            ],
            Kind::Getrs => [
                trsm(h, &mut c, Uplo::Upper, op, Diag::NonUnit)?,
                trsm(h, &mut c, Uplo::Lower, op, Diag::Unit)?,
                swap(h, &mut c)?,
            ],
            _ => {
                let hop = if T::COMPLEX { Op::C } else { Op::T };
                let (first, second) = if uplo == Uplo::Lower {
                    (Op::N, hop)
                } else {
                    (hop, Op::N)
                };
                [
                    trsm(h, &mut c, uplo, first, Diag::NonUnit)?,
                    trsm(h, &mut c, uplo, second, Diag::NonUnit)?,
                    Status::Success,
                ]
            }
        })
    })();
    h.count_as_one_call(degraded_before);
    Ok(combined(&statuses?))
}

fn run_driven<T: Scalar>(h: &mut Handle, c: Call<'_, '_, T>) -> Result<Status, Error> {
    drive(h, &mut routine(c))
}

fn routine<'a, 'b, T: Scalar>(c: Call<'a, 'b, T>) -> SolverRoutine<'a, 'b, T> {
    SolverRoutine {
        call: c,
        lt: None,
        shape: None,
        placeholder: DeviceBuffer::<T>::placeholder(0),
    }
}

/// [`run`] as one part of a driver (`Pass::Check`: only the checks). A one-column solve's
/// parts (interchanges, trsv) need no workspace a fixed one could lack, so its checks are
/// the call's sizes and operands.
pub(crate) fn run_pass<T: Scalar>(
    h: &mut Handle,
    mut c: Call<'_, '_, T>,
    pass: Pass,
) -> Result<Status, Error> {
    let one_column = matches!(c.kind, Kind::Getrs | Kind::Potrs) && c.n == 1;
    match pass {
        Pass::Run => run(h, c),
        Pass::Check if one_column && !c.interchanges_only => {
            if !T::COMPLEX && c.op == Op::C {
                c.op = Op::T;
            }
            c.check_sizes()?;
            c.check_operands(h)?;
            Ok(Status::Success)
        }
        Pass::Check => drive_pass(h, &mut routine(c), pass),
    }
}

/// info = 0 for every entry (a quick return).
fn zero_info<T: Scalar>(h: &Handle, c: &mut Call<'_, '_, T>) -> Result<(), Error> {
    let batch = c.written.count();
    match c.info.as_mut() {
        Some(info) => info.zero(h, batch),
        None => Ok(()),
    }
}

fn run_cuda<T: Scalar>(
    lease: &crate::WorkspaceLease<'_>,
    lt: &mut crate::device::lt::Lt,
    c: &mut Call<'_, '_, T>,
    placeholder: &DeviceBuffer<T>,
    plan: &SolverPlan,
    steps: &[Step],
) -> Result<(), Error> {
    let h = lease.handle();
    let batch = c.written.count();
    let ws = SolverWorkspace::leased(lease);
    let (ints_ptr, slots) = (address(ws.ints), address(ws.exchange));
    let per = plan.p3.entries.max(1);
    let kmin = c.kmin();
    let piv_host = c.ipiv.as_ref().is_some_and(|p| p.0.is_host());
    let piv_ws = if piv_host && c.kind == Kind::Getrf {
        kmin
    } else {
        0
    };
    let mut dev = DevInts {
        slots,
        grid: plan.grid,
        swap: if plan.swap > 0 {
            ints_ptr + (per * plan.ints * 4) as u64
        } else {
            0
        },
        swap_s: plan.swap,
        swap_lists: plan.swap_lists(),
        entries: per,
        params: plan.params,
        sms: h.device().multiprocessor_count(),
        ..Default::default()
    };
    match (&c.ipiv, &c.piv_in) {
        (Some((Results::Device(b), sp)), _) => {
            dev.piv = b.device_ptr().unwrap_or(0);
            dev.piv_s = *sp;
        }
        (Some((Results::Host(_), _)), _) => {
            dev.piv = ints_ptr;
            dev.piv_s = plan.ints;
            dev.piv_chunk = true;
        }
        (None, Some((b, sp))) => {
            dev.piv = b.device_ptr().unwrap_or(0);
            dev.piv_s = *sp;
        }
        _ => {}
    }
    match &c.info {
        Some(Results::Device(b)) => {
            dev.info = b.device_ptr().unwrap_or(0);
            dev.info_s = 1;
        }
        Some(Results::Host(_)) => {
            dev.info = ints_ptr + (piv_ws * 4) as u64;
            dev.info_s = plan.ints;
            dev.info_chunk = true;
        }
        None => {}
    }
    let mut gathered = vec![0i32; per * plan.ints];
    let mut e0 = 0;
    while e0 < batch {
        let ne = per.min(batch - e0);
        dev.first = e0;
        {
            let name = c.name;
            let ops = operands(c, placeholder, (e0, e0 + ne));
            let layout = plan.p3.layout();
            let family = Ints::Dev(Box::new(dev));
            exec_cuda::run(h, &ws.blocks, lt, &ops, &layout, steps, &family, name)?;
        }
        if plan.ints > 0 {
            let g = &mut gathered[..ne * plan.ints];
            h.stream()
                .read_bytes(ints_ptr, bytemuck::cast_slice_mut(g))?;
            for j in 0..ne {
                let row = &g[j * plan.ints..(j + 1) * plan.ints];
                if let Some((Results::Host(s), sp)) = c.ipiv.as_mut() {
                    let o = (e0 + j) * *sp;
                    s[o..o + piv_ws].copy_from_slice(&row[..piv_ws]);
                }
                if let Some(Results::Host(s)) = c.info.as_mut() {
                    s[e0 + j] = row[piv_ws];
                }
            }
        }
        e0 += ne;
    }
    Ok(())
}

fn run_host<T: Scalar>(
    lease: &crate::WorkspaceLease<'_>,
    c: &mut Call<'_, '_, T>,
    placeholder: &DeviceBuffer<T>,
    _plan: &SolverPlan,
    steps: &[Step],
) -> Result<(), Error> {
    let batch = c.written.count();
    let kp = if matches!(c.kind, Kind::Getrs | Kind::Getri) {
        c.m
    } else {
        c.kmin()
    };
    let mut hi = HostInts {
        piv: vec![0; batch * kp],
        kmin: kp,
        info: vec![0; batch],
    };
    if let Some((b, sp)) = &c.piv_in {
        let src = b.host_slice().ok_or_else(crate::common::host::not_host)?;
        for e in 0..batch {
            hi.piv[e * kp..(e + 1) * kp].copy_from_slice(&src[e * sp..e * sp + kp]);
        }
    }
    if matches!(c.kind, Kind::Potrf | Kind::Getrf) {
        // Whole factorizations on the CPU: faer's blocked Cholesky (left-looking: info is the
        // first failing pivot, only the stored triangle touched), and a blocked LU whose
        // panels follow the program's rules with faer's solves and products for the rest.
        let par = lease.handle().host_par.clone();
        let _threads = par.enter();
        let (kind, uplo, m, n, ld) = (c.kind, c.uplo, c.m, c.n, c.ld_written);
        let one = |a: &mut [T], piv: &mut [i32]| -> Result<i32, Error> {
            if kind == Kind::Potrf {
                crate::common::faer_host::potrf(uplo, m, a, ld)
            } else {
                crate::common::faer_host::getrf(m, n, a, ld, piv)
            }
        };
        // Entries small enough that faer would run each on one thread spread over the
        // threads instead (each entry's arithmetic is the same on any thread: same bits).
        let flops = m.saturating_mul(n).saturating_mul(m.min(n));
        let spread = batch > 1 && kp > 0 && flops < crate::common::host::PAR_MIN_FLOPS;
        let entries = if spread {
            c.written.host_entries_mut().filter(|v| v.len() == batch)
        } else {
            None
        };
        if let Some(entries) = entries {
            let items: Vec<_> = entries.into_iter().zip(hi.piv.chunks_mut(kp)).collect();
            let infos = par.map_items(items, |(a, piv)| one(a, piv));
            for (e, r) in infos.into_iter().enumerate() {
                hi.info[e] = r?;
            }
        } else {
            for e in 0..batch {
                let a = c
                    .written
                    .host_entry_mut(e)
                    .ok_or_else(crate::common::host::not_host)?;
                let piv = &mut hi.piv[e * kp..(e + 1) * kp];
                hi.info[e] = one(a, piv)?;
            }
        }
    } else {
        let ws = SolverWorkspace::leased(lease);
        let mut family = Ints::Host(hi);
        let mut ops = operands(c, placeholder, (0, batch));
        let r = exec_host::run(lease.handle(), &ws.blocks, &mut ops, steps, &mut family);
        let Ints::Host(back) = family else {
            return r;
        };
        hi = back;
        r?;
    }
    if c.kind == Kind::Getrf {
        if let Some((ipiv, sp)) = c.ipiv.as_mut() {
            let dst = match ipiv {
                Results::Host(s) => Some(&mut **s),
                Results::Device(b) => b.host_slice_mut(),
            }
            .ok_or_else(crate::common::host::not_host)?;
            for e in 0..batch {
                dst[e * *sp..e * *sp + kp].copy_from_slice(&hi.piv[e * kp..(e + 1) * kp]);
            }
        }
    }
    if let Some(info) = c.info.as_mut() {
        let dst = match info {
            Results::Host(s) => Some(&mut **s),
            Results::Device(b) => b.host_slice_mut(),
        }
        .ok_or_else(crate::common::host::not_host)?;
        dst[..batch].copy_from_slice(&hi.info);
    }
    Ok(())
}
