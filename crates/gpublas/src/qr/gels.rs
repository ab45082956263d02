//! `gels`: full-rank least squares and least-norm solutions through a QR (`m ≥ n`) or LQ
//! (`m < n`) factorization, one call on one lease: the factorization's program on `A` (its
//! `tau` in the workspace, info from its triangle's diagonal), then the solve's program on
//! `B` (the reflectors applied as ormqr/ormlq do, the triangle by blocked substitution).
//! The workspace is the larger of the two programs' parts, with `tau` and host-routed info
//! beside them.

use smallvec::SmallVec;

use super::plan::{QrParams, QrPlan, QrShape, QrWorkspace};
use super::program::{self, GelsSolve, QrStep};
use super::{cuda, Kind, QrFamily};
use crate::common::operand::{
    check_counts, check_int_buffer, check_ld, mat_span, span_or, BatchMut, Checker,
};
use crate::common::plan::{drive, Routine, WorkspacePlan};
use crate::device::lt::{Lt, LT_MAX_WORKSPACE};
use crate::device::{Backend, DeviceBuffer};
use crate::exec::workspace::BlockWorkspace;
use crate::exec::{cuda as exec_cuda, host as exec_host, Operands};
use crate::memory::{address, rounded_total};
use crate::{Error, Handle, Op, Results, Scalar, Status, WorkspaceLease};

/// One gels call.
pub(crate) struct GelsCall<'a, 'b, 'c, T: Scalar> {
    pub name: &'static str,
    pub trans: Op,
    pub m: usize,
    pub n: usize,
    pub nrhs: usize,
    pub a: BatchMut<'a, 'b, T>,
    pub lda: usize,
    pub b: BatchMut<'a, 'c, T>,
    pub ldb: usize,
    pub info: Results<'a, i32>,
}

/// The two programs' plans, and the parts gels adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GelsPlan {
    pub factor: QrPlan,
    pub solve: QrPlan,
    /// Batch entries (all of them: each keeps its `tau` between the programs).
    pub batch: usize,
    /// Scalars per entry (`min(m, n)`).
    pub kt: usize,
    /// i32 values of host-routed info (one per entry; 0 when routed to the device).
    pub ints: usize,
    pub elem: usize,
}

impl GelsPlan {
    fn blocks(&self) -> BlockWorkspace<usize> {
        let (f, s) = (
            self.factor.workspace().blocks,
            self.solve.workspace().blocks,
        );
        BlockWorkspace {
            lt: f.lt.max(s.lt),
            slots: 0,
            e_blocks: f.e_blocks.max(s.e_blocks),
            r_results: f.r_results.max(s.r_results),
        }
    }

    fn tau_bytes(&self) -> usize {
        self.batch * self.kt * self.elem
    }

    /// Bytes of everything but cuBLASLt's part.
    fn own_bytes(&self) -> usize {
        let (b, f) = (self.blocks(), self.factor.workspace());
        rounded_total(&[
            b.e_blocks,
            b.r_results,
            f.exchange,
            f.cholqr,
            self.tau_bytes(),
            self.ints * 4,
        ])
        .unwrap_or(usize::MAX)
    }
}

impl WorkspacePlan for GelsPlan {
    fn sizes(&self) -> SmallVec<[usize; 4]> {
        let mut s = SmallVec::from_buf(self.blocks().list());
        let f = self.factor.workspace();
        s.extend([f.exchange, f.cholqr, self.tau_bytes(), self.ints * 4]);
        s
    }
}

/// The shapes of the two programs.
#[derive(Debug, Clone, Copy)]
struct Shapes {
    factor: QrShape,
    solve: QrShape,
    batch: usize,
    kt: usize,
    ints: usize,
    elem: usize,
}

impl Shapes {
    fn plan(&self, factor: QrPlan, solve: QrPlan) -> GelsPlan {
        // Both programs run the batch in the same groups.
        let entries = factor.entries.min(solve.entries);
        GelsPlan {
            factor: QrPlan { entries, ..factor },
            solve: QrPlan { entries, ..solve },
            batch: self.batch,
            kt: self.kt,
            ints: self.ints,
            elem: self.elem,
        }
    }

    fn full(&self) -> GelsPlan {
        self.plan(self.factor.full(), self.solve.full())
    }

    /// The best plan within `cap`: both programs' reduced plans within what gels's own parts
    /// leave, tightened until their larger parts fit together.
    fn fitted(&self, cap: usize) -> Option<GelsPlan> {
        let full = self.full();
        if full.own_bytes() <= cap {
            return Some(full);
        }
        let fixed = rounded_total(&[full.tau_bytes(), self.ints * 4]).ok()?;
        let mut room = cap.checked_sub(fixed)?;
        loop {
            let p = self.plan(self.factor.fitted(room)?, self.solve.fitted(room)?);
            let own = p.own_bytes();
            if own <= cap {
                return Some(p);
            }
            room = room.checked_sub(own - cap)?;
        }
    }
}

impl<T: Scalar> GelsCall<'_, '_, '_, T> {
    fn lq(&self) -> bool {
        self.m < self.n
    }

    fn batch(&self) -> usize {
        self.a.count()
    }

    /// Rows of B: `max(m, n)` (it holds the right-hand sides and the solution).
    fn b_rows(&self) -> usize {
        self.m.max(self.n)
    }

    fn check_sizes(&mut self) -> Result<(), Error> {
        let name = self.name;
        if !T::COMPLEX && self.trans == Op::C {
            self.trans = Op::T;
        }
        if T::COMPLEX && self.trans == Op::T {
            return Err(Error::InvalidValue(format!(
                "{name}: trans = T is not accepted for a complex type; Aᴴ is trans = C"
            )));
        }
        check_ld(name, "lda", self.lda, self.m, "m")?;
        check_ld(name, "ldb", self.ldb, self.b_rows(), "max(m, n)")?;
        span_or(name, mat_span(self.m, self.n, self.lda), &|| self.a_why())?;
        span_or(name, mat_span(self.b_rows(), self.nrhs, self.ldb), &|| {
            self.b_why()
        })?;
        check_counts(name, ("A", self.batch()), ("B", self.b.count()))
    }

    fn a_why(&self) -> String {
        format!("A of {} × {} with lda = {}", self.m, self.n, self.lda)
    }

    fn b_why(&self) -> String {
        format!(
            "B of {} × {} with ldb = {}",
            self.b_rows(),
            self.nrhs,
            self.ldb
        )
    }

    fn check_operands(&self, h: &Handle) -> Result<(), Error> {
        let name = self.name;
        let ck = Checker { h, call: name };
        let need = span_or(name, mat_span(self.m, self.n, self.lda), &|| self.a_why())?;
        ck.batch("A", &self.a.view(), need, &|| self.a_why(), true, None)?;
        let need = span_or(name, mat_span(self.b_rows(), self.nrhs, self.ldb), &|| {
            self.b_why()
        })?;
        ck.batch("B", &self.b.view(), need, &|| self.b_why(), true, None)?;
        let batch = self.batch();
        if let Results::Device(b) = &self.info {
            check_int_buffer(h, name, "info", b)?;
        }
        if self.info.len() < batch {
            return Err(Error::InvalidValue(format!(
                "{name}: info has {} elements; one per entry ({batch}) are needed",
                self.info.len()
            )));
        }
        Ok(())
    }

    /// LAPACK returns at once when there is nothing to solve for; `A` with no rows or no
    /// columns still zeroes `B` (its program is that alone).
    fn quick(&self) -> bool {
        self.batch() == 0 || self.nrhs == 0 || self.b_rows() == 0
    }

    fn shapes(&self, h: &Handle) -> Shapes {
        let lq = self.lq();
        let kt = self.m.min(self.n);
        let base = QrShape {
            kind: if lq { Kind::Gelqf } else { Kind::Geqrf },
            left: true,
            m: self.m,
            n: self.n,
            k: kt,
            batch: self.batch(),
            list: self.a.view().is_list(),
            elem: std::mem::size_of::<T>(),
            sms: h.device().multiprocessor_count(),
            cholqr: super::cholqr_device::<T>(h),
            whole_smem: super::whole_device(h),
            params: QrParams::auto(),
        };
        Shapes {
            factor: base,
            solve: QrShape {
                kind: if lq { Kind::Ormlq } else { Kind::Ormqr },
                m: self.b_rows(),
                n: self.nrhs,
                ..base
            },
            batch: self.batch(),
            kt,
            ints: if self.info.is_host() && h.device().backend() == Backend::Cuda {
                self.batch()
            } else {
                0
            },
            elem: std::mem::size_of::<T>(),
        }
    }

    fn factor_prog(&self) -> program::Prog {
        program::Prog {
            kind: if self.lq() { Kind::Gelqf } else { Kind::Geqrf },
            side: crate::Side::Left,
            op: Op::N,
            m: self.m,
            n: self.n,
            k: self.m.min(self.n),
            ldv: self.lda,
            ldc: self.lda,
            complex: T::COMPLEX,
            c_off: 0,
            c_sp: crate::exec::program::Space::C,
            v_sp: crate::exec::program::Space::A,
            v_off: 0,
            k_off: 0,
        }
    }

    fn solve_prog(&self) -> GelsSolve {
        GelsSolve {
            lq: self.lq(),
            trans: self.trans != Op::N,
            m: self.m,
            n: self.n,
            nrhs: self.nrhs,
            lda: self.lda,
            ldb: self.ldb,
            complex: T::COMPLEX,
        }
    }

    /// The factorization's steps, info from its triangle last.
    fn factor_steps(&self, plan: &QrPlan) -> Vec<program::Step> {
        let mut v = program::build(&self.factor_prog(), plan);
        v.push(crate::exec::program::Step::Family(QrStep::DiagInfo {
            k: self.m.min(self.n),
            a: crate::exec::program::mat(crate::exec::program::Space::C, 0, self.lda, 0),
        }));
        v
    }

    fn solve_steps(&self, plan: &QrPlan) -> Vec<program::Step> {
        if self.nrhs == 0 {
            return Vec::new();
        }
        program::build_gels_solve(&self.solve_prog(), plan)
    }
}

/// A gels call through the driver.
struct GelsRoutine<'a, 'b, 'c, T: Scalar> {
    call: GelsCall<'a, 'b, 'c, T>,
    lt: Option<Lt>,
    shapes: Option<Shapes>,
    placeholder: DeviceBuffer<T>,
}

impl<T: Scalar> GelsRoutine<'_, '_, '_, T> {
    fn with_engine_need(&mut self, mut plan: GelsPlan, limit: usize) -> Result<GelsPlan, Error> {
        if let Some(lt) = self.lt.as_mut() {
            let c = &mut self.call;
            let batch = c.batch();
            let steps = c.factor_steps(&plan.factor);
            let ops = Operands::lapack(None, &self.placeholder, c.a.reborrow(), (0, batch));
            plan.factor.lt = exec_cuda::lt_need(lt, &ops, &plan.factor.layout(), &steps, limit)?;
            let steps = c.solve_steps(&plan.solve);
            let ops = Operands::lapack(
                Some(c.a.view()),
                &self.placeholder,
                c.b.reborrow(),
                (0, batch),
            );
            plan.solve.lt = exec_cuda::lt_need(lt, &ops, &plan.solve.layout(), &steps, limit)?;
        }
        Ok(plan)
    }
}

impl<T: Scalar> Routine for GelsRoutine<'_, '_, '_, T> {
    type Plan = GelsPlan;

    fn name(&self) -> &'static str {
        self.call.name
    }

    fn check_sizes(&mut self) -> Result<(), Error> {
        self.call.check_sizes()
    }

    fn full(&mut self, h: &mut Handle) -> Result<Option<GelsPlan>, Error> {
        if self.call.quick() {
            return Ok(None);
        }
        exec_cuda::take_engine(h, &mut self.lt)?;
        let s = self.call.shapes(h);
        self.shapes = Some(s);
        let engine = s.factor.params.engine_budget.min(LT_MAX_WORKSPACE);
        self.with_engine_need(s.full(), engine).map(Some)
    }

    fn check_operands(&mut self, h: &mut Handle) -> Result<(), Error> {
        self.call.check_operands(h)
    }

    fn quick_return(&mut self, h: &mut Handle) -> Result<Status, Error> {
        // info = 0 for every entry (nothing to factor or nothing to solve).
        let batch = self.call.batch();
        self.call.info.zero(h, batch)?;
        Ok(Status::Success)
    }

    fn fitted(&mut self, cap: usize) -> Result<Option<GelsPlan>, Error> {
        let Some(p) = self.shapes.and_then(|s| s.fitted(cap)) else {
            return Ok(None);
        };
        let limit = p.factor.params.engine_budget.min(LT_MAX_WORKSPACE);
        let room = exec_cuda::engine_room(cap, p.own_bytes(), limit).unwrap_or(0);
        self.with_engine_need(p, room).map(Some)
    }

    fn minimum(&self) -> String {
        self.shapes
            .map(|s| {
                format!(
                    "the factorization {}; the solve {}; and {} bytes of tau",
                    s.factor.minimum_text(),
                    s.solve.minimum_text(),
                    s.batch * s.kt * s.elem
                )
            })
            .unwrap_or_default()
    }

    fn run(&mut self, lease: &WorkspaceLease<'_>, plan: &GelsPlan) -> Result<(), Error> {
        match self.lt.as_mut() {
            Some(lt) => run_cuda(lease, lt, &mut self.call, &self.placeholder, plan),
            None => run_host(lease, &mut self.call, &self.placeholder, plan),
        }
    }

    fn finish(&mut self, h: &mut Handle) {
        exec_cuda::give_back(h, self.lt.take());
    }
}

/// The one implementation behind the gels forms.
pub(crate) fn run<T: Scalar>(h: &mut Handle, c: GelsCall<'_, '_, '_, T>) -> Result<Status, Error> {
    let mut r = GelsRoutine {
        call: c,
        lt: None,
        shapes: None,
        placeholder: DeviceBuffer::<T>::placeholder(0),
    };
    drive(h, &mut r)
}

/// gels's parts of a lease: the executor's, the panel's exchange, tau, host-routed info.
fn parts(
    lease: &WorkspaceLease<'_>,
) -> (QrWorkspace<Option<crate::memory::WorkspaceSlice>>, u64, u64) {
    // after the executor's parts, the exchange and the CholeskyQR2 part
    let after = BlockWorkspace::PARTS + 2;
    (
        QrWorkspace::leased(lease),
        address(lease.buffer(after)),
        address(lease.buffer(after + 1)),
    )
}

fn run_cuda<T: Scalar>(
    lease: &WorkspaceLease<'_>,
    lt: &mut Lt,
    c: &mut GelsCall<'_, '_, '_, T>,
    placeholder: &DeviceBuffer<T>,
    plan: &GelsPlan,
) -> Result<(), Error> {
    let h = lease.handle();
    let (ws, tau, ints) = parts(lease);
    let batch = c.batch();
    let (info, info_s) = match &c.info {
        Results::Device(b) => (b.device_ptr().unwrap_or(0), 1),
        Results::Host(_) => (ints, 1),
    };
    let family = |p: &QrPlan| {
        QrFamily::<T>::Dev(cuda::DevTaus {
            tau,
            tau_s: plan.kt,
            ex: address(ws.exchange),
            ex_s: p.exchange_per_entry(),
            grid: p.grid,
            info,
            info_s,
            cq: address(ws.cholqr),
            cq_s: p.cholqr_per_entry(),
            cq_blocks: p.cq,
        })
    };
    let name = c.name;
    let steps = c.factor_steps(&plan.factor);
    let ops = Operands::lapack(None, placeholder, c.a.reborrow(), (0, batch));
    let f = family(&plan.factor);
    exec_cuda::run(
        h,
        &ws.blocks,
        lt,
        &ops,
        &plan.factor.layout(),
        &steps,
        &f,
        name,
    )?;
    let steps = c.solve_steps(&plan.solve);
    if !steps.is_empty() {
        let ops = Operands::lapack(Some(c.a.view()), placeholder, c.b.reborrow(), (0, batch));
        let f = family(&plan.solve);
        exec_cuda::run(
            h,
            &ws.blocks,
            lt,
            &ops,
            &plan.solve.layout(),
            &steps,
            &f,
            name,
        )?;
    }
    if let Results::Host(s) = &mut c.info {
        let mut got = vec![0i32; batch];
        h.stream()
            .read_bytes(ints, bytemuck::cast_slice_mut(&mut got))?;
        s[..batch].copy_from_slice(&got);
    }
    Ok(())
}

fn run_host<T: Scalar>(
    lease: &WorkspaceLease<'_>,
    c: &mut GelsCall<'_, '_, '_, T>,
    placeholder: &DeviceBuffer<T>,
    plan: &GelsPlan,
) -> Result<(), Error> {
    let (ws, _, _) = parts(lease);
    let batch = c.batch();
    let mut family = QrFamily::Host {
        tau: vec![T::zero(); batch * plan.kt],
        kt: plan.kt,
        info: vec![0; batch],
    };
    let steps = c.factor_steps(&plan.factor);
    {
        let mut ops = Operands::lapack(None, placeholder, c.a.reborrow(), (0, batch));
        exec_host::run(lease.handle(), &ws.blocks, &mut ops, &steps, &mut family)?;
    }
    let steps = c.solve_steps(&plan.solve);
    if !steps.is_empty() {
        let mut ops = Operands::lapack(Some(c.a.view()), placeholder, c.b.reborrow(), (0, batch));
        exec_host::run(lease.handle(), &ws.blocks, &mut ops, &steps, &mut family)?;
    }
    let QrFamily::Host { info, .. } = &family else {
        return Ok(());
    };
    let dst = match &mut c.info {
        Results::Host(s) => Some(&mut **s),
        Results::Device(b) => b.host_slice_mut(),
    }
    .ok_or_else(crate::common::host::not_host)?;
    dst[..batch].copy_from_slice(info);
    Ok(())
}
