//! Householder QR on the handle: `geqrf` (A = QR), `orgqr`/`ungqr` (form Q), `ormqr`/`unmqr`
//! (apply Q or Qᴴ from either side without forming it), for `f32`, `f64`, `Complex32`,
//! `Complex64`, each single, `_batched` and `_strided_batched`, with LAPACK's results (R's
//! diagonal real, `tau` in LAPACK's range, `tau = 0` where nothing is reflected).
//!
//! The algorithm is LAPACK's blocked Householder in the compact WY form: per block of
//! reflectors a panel (`geqr2` in one kernel over all its rows, the grid's blocks exchanging
//! partial norms and products), the block's triangular factor `T` (`G = Vᴴ V` as two
//! products, then `larft`'s recurrence in one kernel), and the block reflector applied to the
//! trailing columns as five products per chunk (`larfb`). Both backends run the same program
//! (products on cuBLASLt or faer; the family's steps as kernels or loops).
//!
//! Workspace (one function, F4: `plan.rs`): `V1` and `T` of one block, `G`, orgqr's `X`, the
//! chunk temporaries `W` and `W2`, cuBLASLt's part and the panel's exchange, per entry run at
//! once. A fixed workspace that is too small runs fewer entries at once, narrower chunks, a
//! one-block panel, then narrower blocks (`PerfDegraded`, the same answer within rounding);
//! `MemoryError` below blocks of four reflectors.

pub(crate) mod api;
pub(crate) mod api_gels;
pub(crate) mod api_lq;
pub(crate) mod cuda;
pub(crate) mod gels;
pub(crate) mod host;
pub(crate) mod plan;
pub(crate) mod program;

use crate::common::operand::{check_counts, check_ld, mat_span, span_or, Batch, BatchMut, Checker};
use crate::common::plan::{drive, Routine};
use crate::device::lt::{Lt, LT_MAX_WORKSPACE};
use crate::device::{DeviceBuffer, Stream};
use crate::exec::{cuda as exec_cuda, host as exec_host, FamilySteps, Operands};
use crate::memory::address;
use crate::{Error, Handle, Op, Scalar, Side, Status, WorkspaceLease};
use plan::{QrPlan, QrShape, QrWorkspace};
use program::QrStep;

/// The routine a call runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Geqrf,
    Orgqr,
    Ormqr,
    /// `A = L Q`: geqrf of `Aᴴ` through transposed copies of each block of rows.
    Gelqf,
    /// Apply gelqf's `Q` (geqrf-of-`Aᴴ`'s reflectors, stored in rows).
    Ormlq,
}

/// One call's arguments, for every routine and form.
pub(crate) struct Call<'a, 'b, T: Scalar> {
    pub name: &'static str,
    /// The routine; `side` and `op` are ormqr's.
    pub kind: Kind,
    pub side: Side,
    pub op: Op,
    /// Rows and columns of the matrix written; `k` the reflectors (geqrf: `min(m, n)`).
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// The matrix written (A for geqrf and orgqr, C for ormqr) and its leading dimension.
    pub written: BatchMut<'a, 'b, T>,
    pub ld_written: usize,
    /// ormqr's vectors and their leading dimension.
    pub a: Option<(Batch<'a, T>, usize)>,
    /// geqrf's scalars (written) or orgqr's and ormqr's (read), entries `stride_tau` apart.
    pub tau_out: Option<&'a mut DeviceBuffer<T>>,
    pub tau_in: Option<&'a DeviceBuffer<T>>,
    pub stride_tau: usize,
}

impl<'a, 'b, T: Scalar> Call<'a, 'b, T> {
    /// A geqrf of the `m × n` matrices `a`, scalars to `tau`.
    pub(crate) fn geqrf(
        name: &'static str,
        a: BatchMut<'a, 'b, T>,
        lda: usize,
        (m, n): (usize, usize),
        tau: &'a mut DeviceBuffer<T>,
        stride_tau: usize,
    ) -> Self {
        Call {
            name,
            kind: Kind::Geqrf,
            side: Side::Left,
            op: Op::N,
            m,
            n,
            k: m.min(n),
            written: a,
            ld_written: lda,
            a: None,
            tau_out: Some(tau),
            tau_in: None,
            stride_tau,
        }
    }

    /// An orgqr of the `m × n` matrices `a` from `k` reflectors and `tau`.
    pub(crate) fn orgqr(
        name: &'static str,
        a: BatchMut<'a, 'b, T>,
        lda: usize,
        (m, n, k): (usize, usize, usize),
        tau: &'a DeviceBuffer<T>,
        stride_tau: usize,
    ) -> Self {
        Call {
            name,
            kind: Kind::Orgqr,
            side: Side::Left,
            op: Op::N,
            m,
            n,
            k,
            written: a,
            ld_written: lda,
            a: None,
            tau_out: None,
            tau_in: Some(tau),
            stride_tau,
        }
    }

    /// An ormqr applying the `k` reflectors of `a` and `tau` to the `m × n` matrices `c`.
    pub(crate) fn ormqr(
        name: &'static str,
        (side, op): (Side, Op),
        (m, n, k): (usize, usize, usize),
        a: (Batch<'a, T>, usize),
        (tau, stride_tau): (&'a DeviceBuffer<T>, usize),
        c: BatchMut<'a, 'b, T>,
        ldc: usize,
    ) -> Self {
        Call {
            name,
            kind: Kind::Ormqr,
            side,
            op,
            m,
            n,
            k,
            written: c,
            ld_written: ldc,
            a: Some(a),
            tau_out: None,
            tau_in: Some(tau),
            stride_tau,
        }
    }
}

impl<T: Scalar> Call<'_, '_, T> {
    /// Scalars per entry.
    fn kt(&self) -> usize {
        match self.kind {
            Kind::Geqrf | Kind::Gelqf => self.m.min(self.n),
            _ => self.k,
        }
    }

    /// The routine applies `Q` to a matrix `C` (ormqr, ormlq).
    fn applies(&self) -> bool {
        matches!(self.kind, Kind::Ormqr | Kind::Ormlq)
    }

    /// The routine factors `A` (geqrf, gelqf).
    fn factors(&self) -> bool {
        matches!(self.kind, Kind::Geqrf | Kind::Gelqf)
    }

    /// Order of Q (ormqr: rows of C from the left, columns from the right).
    fn nq(&self) -> usize {
        if self.applies() && self.side == Side::Right {
            self.n
        } else {
            self.m
        }
    }

    fn written_why(&self) -> String {
        let (what, ld) = if self.applies() {
            ("C", "ldc")
        } else {
            ("A", "lda")
        };
        format!(
            "{what} of {} × {} with {ld} = {}",
            self.m, self.n, self.ld_written
        )
    }

    fn a_why(&self) -> String {
        let lda = self.a.as_ref().map_or(0, |a| a.1);
        let (rows, cols) = self.a_shape();
        format!("A of {rows} × {cols} with lda = {lda}")
    }

    /// The reflectors' matrix an apply reads: `nq × k` (ormqr, in columns) or `k × nq`
    /// (ormlq, in rows).
    fn a_shape(&self) -> (usize, usize) {
        if self.kind == Kind::Ormlq {
            (self.k, self.nq())
        } else {
            (self.nq(), self.k)
        }
    }

    /// Size and shape checks (F2 step 1), spans included.
    fn check_sizes(&mut self) -> Result<(), Error> {
        let name = self.name;
        if self.applies() {
            self.op = match (self.op, T::COMPLEX) {
                (Op::C, false) => Op::T,
                (Op::T, true) => {
                    return Err(Error::InvalidValue(format!(
                        "{name}: op = T is not accepted for a complex type; Qᴴ is op = C"
                    )))
                }
                (op, _) => op,
            };
        }
        match self.kind {
            Kind::Geqrf | Kind::Gelqf => check_ld(name, "lda", self.ld_written, self.m, "m")?,
            Kind::Orgqr => {
                if self.n > self.m || self.k > self.n {
                    return Err(Error::InvalidSize(format!(
                        "{name}: needs m ≥ n ≥ k, got m = {}, n = {}, k = {}",
                        self.m, self.n, self.k
                    )));
                }
                check_ld(name, "lda", self.ld_written, self.m, "m")?;
            }
            Kind::Ormqr | Kind::Ormlq => {
                let (nq, q) = if self.side == Side::Left {
                    (self.m, "m")
                } else {
                    (self.n, "n")
                };
                if self.k > nq {
                    return Err(Error::InvalidSize(format!(
                        "{name}: k = {} exceeds {q} = {nq}, the order of Q",
                        self.k
                    )));
                }
                let (a, lda) = self
                    .a
                    .as_ref()
                    .map(|(a, l)| (a.count(), *l))
                    .unwrap_or((0, 0));
                if self.kind == Kind::Ormlq {
                    check_ld(name, "lda", lda, self.k, "k")?;
                } else {
                    check_ld(name, "lda", lda, nq, q)?;
                }
                check_ld(name, "ldc", self.ld_written, self.m, "m")?;
                let (ar, ac) = self.a_shape();
                span_or(name, mat_span(ar, ac, lda), &|| self.a_why())?;
                check_counts(name, ("A", a), ("C", self.written.count()))?;
            }
        }
        span_or(name, mat_span(self.m, self.n, self.ld_written), &|| {
            self.written_why()
        })?;
        let (batch, kt, st) = (self.written.count(), self.kt(), self.stride_tau);
        if self.factors() && batch > 1 && st < kt {
            return Err(Error::InvalidValue(format!(
                "{name}: stride_tau = {st} is less than the {kt} scalars of one entry: the \
                 entries' tau would overlap"
            )));
        }
        Ok(())
    }

    /// Elements tau must hold.
    fn tau_need(&self) -> Option<usize> {
        let (batch, kt) = (self.written.count(), self.kt());
        if batch == 0 || kt == 0 {
            return Some(0);
        }
        (batch - 1).checked_mul(self.stride_tau)?.checked_add(kt)
    }

    /// Operand checks (F2 step 3, F7, F9).
    fn check_operands(&self, h: &Handle) -> Result<(), Error> {
        let name = self.name;
        let ck = Checker { h, call: name };
        let need = span_or(name, mat_span(self.m, self.n, self.ld_written), &|| {
            self.written_why()
        })?;
        let out = if self.applies() { "C" } else { "A" };
        ck.batch(
            out,
            &self.written.view(),
            need,
            &|| self.written_why(),
            true,
            None,
        )?;
        if let Some((a, lda)) = &self.a {
            let (ar, ac) = self.a_shape();
            let need = span_or(name, mat_span(ar, ac, *lda), &|| self.a_why())?;
            ck.batch("A", a, need, &|| self.a_why(), false, None)?;
        }
        let need = self
            .tau_need()
            .ok_or_else(|| Error::InvalidSize(format!("{name}: tau's span overflows")))?;
        let why = || {
            format!(
                "{} entries of {} scalars at stride_tau = {}",
                self.written.count(),
                self.kt(),
                self.stride_tau
            )
        };
        let tau = match (&self.tau_out, self.tau_in) {
            (Some(t), _) => Some(&**t),
            (None, Some(t)) => Some(t),
            _ => None,
        };
        if let Some(t) = tau {
            ck.batch("tau", &Batch::Single(t), need, &why, false, None)?;
        }
        Ok(())
    }

    fn shape(&self, h: &Handle) -> QrShape {
        QrShape {
            kind: self.kind,
            left: self.side == Side::Left,
            m: self.m,
            n: self.n,
            k: self.kt(),
            batch: self.written.count(),
            list: self.written.view().is_list(),
            elem: std::mem::size_of::<T>(),
            sms: h.device().multiprocessor_count(),
            cholqr: cholqr_device::<T>(h),
            whole_smem: whole_device(h),
            params: plan::QrParams::auto(),
        }
    }

    fn prog(&self) -> program::Prog {
        program::Prog {
            kind: self.kind,
            side: self.side,
            op: self.op,
            m: self.m,
            n: self.n,
            k: self.kt(),
            ldv: self.a.as_ref().map_or(self.ld_written, |a| a.1),
            ldc: self.ld_written,
            complex: T::COMPLEX,
            c_off: 0,
            c_sp: crate::exec::program::Space::C,
            v_sp: crate::exec::program::Space::A,
            v_off: 0,
            k_off: 0,
        }
    }

    fn quick(&self) -> bool {
        self.m == 0 || self.n == 0 || self.written.count() == 0 || (self.applies() && self.k == 0)
    }
}

/// Whether `h`'s device runs geqrf's CholeskyQR2 panels for `T`: double on a GPU with FP64
/// tensor cores (compute capability 8.0 on) and the kernels' shared memory.
pub(crate) fn cholqr_device<T: Scalar>(h: &Handle) -> bool {
    let d = h.device();
    T::TAG == "d"
        && d.compute_capability().is_some_and(|cc| cc.0 >= 8)
        && plan::cholqr_fits(d.smem_optin())
}

/// Shared-memory bytes `qr_whole` may take on `h`'s device: its opt-in limit less the kernel's
/// own static part (0 on the host, which never runs it).
pub(crate) fn whole_device(h: &Handle) -> usize {
    h.device().smem_optin().saturating_sub(1024)
}

/// Where a program's steps find the scalars and the panel's exchange: the family's part of a
/// program run, which runs its own steps (`FamilySteps`).
pub(crate) enum QrFamily<T> {
    /// CUDA: device addresses.
    Dev(cuda::DevTaus),
    /// The host: every entry's scalars, `kt` apart, copied in and (geqrf) out; gels's info
    /// per entry.
    Host {
        tau: Vec<T>,
        kt: usize,
        info: Vec<i32>,
    },
}

impl<T: Scalar> FamilySteps for QrFamily<T> {
    type Step = QrStep;

    fn launch<U: Scalar>(
        &self,
        stream: &Stream,
        step: &QrStep,
        bases: &exec_cuda::Bases,
        entries: (usize, usize),
        _side: bool,
    ) -> Result<(), Error> {
        match self {
            QrFamily::Dev(d) => cuda::launch::<U>(stream, step, bases, entries, d),
            QrFamily::Host { .. } => Err(wrong_backend()),
        }
    }

    fn exec<U: Scalar>(
        &mut self,
        spaces: &mut exec_host::Spaces<'_, U>,
        step: &QrStep,
        entry: usize,
    ) -> Result<(), Error> {
        match self {
            QrFamily::Host { tau, kt, info } => {
                let all: &mut [U] = bytemuck::try_cast_slice_mut(&mut tau[..])
                    .map_err(|e| Error::InvalidValue(format!("tau of another type: {e}")))?;
                let taus = &mut all[entry * *kt..(entry + 1) * *kt];
                host::exec(spaces, step, taus, info.get_mut(entry))
            }
            QrFamily::Dev(_) => Err(wrong_backend()),
        }
    }
}

fn wrong_backend() -> Error {
    Error::InvalidValue("a QR step ran on the other backend than its program's".into())
}

/// The executor's view of a call's operands for entries `range`: `C` is the matrix written,
/// `A` ormqr's vectors (`placeholder`, memoryless, for the others, whose programs only use
/// `C`).
fn operands<'x, 'b, T: Scalar>(
    c: &'x mut Call<'_, 'b, T>,
    placeholder: &'x DeviceBuffer<T>,
    range: (usize, usize),
) -> Operands<'x, 'b, T> {
    let a = c.a.as_ref().map(|a| a.0);
    Operands::lapack(a, placeholder, c.written.reborrow(), range)
}

/// A QR call on its way through the driver, with the GEMM engine it borrows (CUDA).
struct QrRoutine<'a, 'b, T: Scalar> {
    call: Call<'a, 'b, T>,
    lt: Option<Lt>,
    /// Set by `full` (it depends on the device).
    shape: Option<QrShape>,
    /// Space A of the programs that read no A.
    placeholder: DeviceBuffer<T>,
}

impl<T: Scalar> QrRoutine<'_, '_, T> {
    /// `plan` with cuBLASLt's workspace need for its products, each algorithm chosen within
    /// `limit` bytes (no engine: the host).
    fn with_engine_need(&mut self, mut plan: QrPlan, limit: usize) -> Result<QrPlan, Error> {
        if let Some(lt) = self.lt.as_mut() {
            let steps = program::build(&self.call.prog(), &plan);
            let all = (0, self.call.written.count());
            let ops = operands(&mut self.call, &self.placeholder, all);
            plan.lt = exec_cuda::lt_need(lt, &ops, &plan.layout(), &steps, limit)?;
        }
        Ok(plan)
    }
}

impl<T: Scalar> Routine for QrRoutine<'_, '_, T> {
    type Plan = QrPlan;

    fn name(&self) -> &'static str {
        self.call.name
    }

    fn check_sizes(&mut self) -> Result<(), Error> {
        self.call.check_sizes()
    }

    fn full(&mut self, h: &mut Handle) -> Result<Option<QrPlan>, Error> {
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

    fn fitted(&mut self, cap: usize) -> Result<Option<QrPlan>, Error> {
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

    fn run(&mut self, lease: &WorkspaceLease<'_>, plan: &QrPlan) -> Result<(), Error> {
        let steps = program::build(&self.call.prog(), plan);
        match self.lt.as_mut() {
            Some(lt) => run_cuda(lease, lt, &mut self.call, &self.placeholder, plan, &steps),
            None => run_host(lease, &mut self.call, &self.placeholder, &steps),
        }
    }

    fn finish(&mut self, h: &mut Handle) {
        exec_cuda::give_back(h, self.lt.take());
    }
}

/// The one implementation behind every QR routine (F1, F2).
pub(crate) fn run<T: Scalar>(h: &mut Handle, c: Call<'_, '_, T>) -> Result<Status, Error> {
    let mut r = QrRoutine {
        call: c,
        lt: None,
        shape: None,
        placeholder: DeviceBuffer::<T>::placeholder(0),
    };
    drive(h, &mut r)
}

fn run_cuda<T: Scalar>(
    lease: &WorkspaceLease<'_>,
    lt: &mut Lt,
    c: &mut Call<'_, '_, T>,
    placeholder: &DeviceBuffer<T>,
    plan: &QrPlan,
    steps: &[program::Step],
) -> Result<(), Error> {
    let h = lease.handle();
    let ws = QrWorkspace::leased(lease);
    let tau = match (&c.tau_out, c.tau_in) {
        (Some(t), _) => t.device_ptr(),
        (None, Some(t)) => t.device_ptr(),
        _ => None,
    }
    .unwrap_or(0);
    let family = QrFamily::<T>::Dev(cuda::DevTaus {
        tau,
        tau_s: c.stride_tau,
        ex: address(ws.exchange),
        ex_s: plan.exchange_per_entry(),
        grid: plan.grid,
        info: 0,
        info_s: 0,
        cq: address(ws.cholqr),
        cq_s: plan.cholqr_per_entry(),
        cq_blocks: plan.cq,
    });
    let (name, batch) = (c.name, c.written.count());
    let ops = operands(c, placeholder, (0, batch));
    exec_cuda::run(
        h,
        &ws.blocks,
        lt,
        &ops,
        &plan.layout(),
        steps,
        &family,
        name,
    )
}

fn run_host<T: Scalar>(
    lease: &WorkspaceLease<'_>,
    c: &mut Call<'_, '_, T>,
    placeholder: &DeviceBuffer<T>,
    steps: &[program::Step],
) -> Result<(), Error> {
    let (batch, kt, st) = (c.written.count(), c.kt(), c.stride_tau);
    let mut tau = vec![T::zero(); batch * kt];
    if let Some(t) = c.tau_in {
        let src = t.host_slice().ok_or_else(crate::common::host::not_host)?;
        for e in 0..batch {
            tau[e * kt..(e + 1) * kt].copy_from_slice(&src[e * st..e * st + kt]);
        }
    }
    let ws = QrWorkspace::leased(lease);
    let mut family = QrFamily::Host {
        tau,
        kt,
        info: Vec::new(),
    };
    {
        let mut ops = operands(c, placeholder, (0, batch));
        exec_host::run(lease.handle(), &ws.blocks, &mut ops, steps, &mut family)?;
    }
    if let (Some(t), QrFamily::Host { tau, .. }) = (c.tau_out.as_mut(), &family) {
        let dst = t
            .host_slice_mut()
            .ok_or_else(crate::common::host::not_host)?;
        for e in 0..batch {
            dst[e * st..e * st + kt].copy_from_slice(&tau[e * kt..(e + 1) * kt]);
        }
    }
    Ok(())
}
