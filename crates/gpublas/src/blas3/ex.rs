//! `gemm_ex`: matrix products with mixed precision (f16 and bf16 inputs, f32 accumulation)
//! and an explicit compute type.

use smallvec::SmallVec;

use crate::common::host::{coef_value, not_host};
use crate::common::operand::{check_counts, check_ld, mat_span, span_or, Batch, BatchMut, Checker};
use crate::common::plan::{drive, Routine, WorkspacePlan};
use crate::device::lt::{Compute, Dt, Lt, ScalarPtr, Shape, LT_MAX_WORKSPACE};
use crate::device::{DeviceBuffer, Element};
use crate::exec::workspace::SLOTS;
use crate::exec::{cuda as exec_cuda, ScalarArg};
use crate::memory::address;
use crate::{
    bf16, f16, Coef, Complex32, Complex64, Error, Handle, Op, Scalar, Status, WorkspaceLease,
    WorkspaceSlice,
};

mod sealed {
    pub trait Sealed {}
}

/// How a `gemm_ex` accumulates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ComputeType {
    /// IEEE f32 arithmetic (f16, bf16, f32 and Complex32 inputs).
    F32,
    /// f32 inputs rounded to TF32 on the tensor cores, f32 accumulation.
    F32FastTf32,
    /// f32 inputs rounded to f16 on the tensor cores, f32 accumulation.
    F32FastF16,
    /// f32 inputs rounded to bf16 on the tensor cores, f32 accumulation.
    F32FastBf16,
    /// IEEE f64 arithmetic (f64 and Complex64 inputs).
    F64,
}

/// Input element types of `gemm_ex`; `Scale` is the type of `alpha` and `beta`.
pub trait GemmExIn: Element + sealed::Sealed {
    /// The type of `alpha` and `beta` (f32 for the half types).
    type Scale: Scalar;
    #[doc(hidden)]
    const DT: Dt;
    #[doc(hidden)]
    fn to_scale(self) -> Self::Scale;
}

/// Output element types of `gemm_ex` allowed for input `I`: the input type itself, or f32 for
/// f16 and bf16 inputs.
pub trait GemmExOut<I: GemmExIn>: Element {
    #[doc(hidden)]
    const DT: Dt;
    #[doc(hidden)]
    fn to_scale(self) -> I::Scale;
    #[doc(hidden)]
    fn from_scale(v: I::Scale) -> Self;
}

macro_rules! ex_in {
    ($t:ty, $s:ty, $dt:expr, $to:expr, $from:expr) => {
        impl sealed::Sealed for $t {}
        impl GemmExIn for $t {
            type Scale = $s;
            const DT: Dt = $dt;
            fn to_scale(self) -> $s {
                $to(self)
            }
        }
        impl GemmExOut<$t> for $t {
            const DT: Dt = $dt;
            fn to_scale(self) -> $s {
                $to(self)
            }
            fn from_scale(v: $s) -> Self {
                $from(v)
            }
        }
    };
}
fn same<X>(x: X) -> X {
    x
}
ex_in!(f16, f32, Dt::F16, f16::to_f32, f16::from_f32);
ex_in!(bf16, f32, Dt::Bf16, bf16::to_f32, bf16::from_f32);
ex_in!(f32, f32, Dt::F32, same, same);
ex_in!(f64, f64, Dt::F64, same, same);
ex_in!(Complex32, Complex32, Dt::C32, same, same);
ex_in!(Complex64, Complex64, Dt::C64, same, same);
impl GemmExOut<f16> for f32 {
    const DT: Dt = Dt::F32;
    fn to_scale(self) -> f32 {
        self
    }
    fn from_scale(v: f32) -> Self {
        v
    }
}
impl GemmExOut<bf16> for f32 {
    const DT: Dt = Dt::F32;
    fn to_scale(self) -> f32 {
        self
    }
    fn from_scale(v: f32) -> Self {
        v
    }
}

/// One `gemm_ex` call.
pub(crate) struct ExCall<'a, 'b, I: GemmExIn, O: GemmExOut<I>> {
    pub name: &'static str,
    pub opa: Op,
    pub opb: Op,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: Batch<'a, I>,
    pub lda: usize,
    pub b: Batch<'a, I>,
    pub ldb: usize,
    pub c: BatchMut<'a, 'b, O>,
    pub ldc: usize,
    pub alpha: Coef<'a, I::Scale>,
    pub beta: Coef<'a, I::Scale>,
    pub compute: ComputeType,
}

impl ComputeType {
    fn engine(self) -> Compute {
        match self {
            ComputeType::F32 => Compute::F32,
            ComputeType::F32FastTf32 => Compute::F32FastTf32,
            ComputeType::F32FastF16 => Compute::F32FastF16,
            ComputeType::F32FastBf16 => Compute::F32FastBf16,
            ComputeType::F64 => Compute::F64,
        }
    }
}

fn scale_dt<S: Scalar>() -> Dt {
    match S::TAG {
        "s" => Dt::F32,
        "d" => Dt::F64,
        "c" => Dt::C32,
        _ => Dt::C64,
    }
}

impl<I: GemmExIn, O: GemmExOut<I>> ExCall<'_, '_, I, O> {
    fn check(&mut self) -> Result<(), Error> {
        let name = self.name;
        if !<I::Scale as Scalar>::COMPLEX {
            for op in [&mut self.opa, &mut self.opb] {
                if *op == Op::C {
                    *op = Op::T;
                }
            }
        }
        let ok = match I::DT {
            Dt::F16 | Dt::Bf16 => self.compute == ComputeType::F32,
            Dt::F32 | Dt::C32 => self.compute != ComputeType::F64,
            Dt::F64 | Dt::C64 => self.compute == ComputeType::F64,
        };
        if !ok {
            return Err(Error::InvalidValue(format!(
                "{name}: compute type {:?} does not fit {:?} inputs (f16/bf16: F32; f32 and \
                 Complex32: F32 or a fast F32 mode; f64 and Complex64: F64)",
                self.compute,
                I::DT
            )));
        }
        let (ar, br) = (self.a_dims().0, self.b_dims().0);
        check_ld(
            name,
            "lda",
            self.lda,
            ar,
            if self.opa == Op::N { "m" } else { "k" },
        )?;
        check_ld(
            name,
            "ldb",
            self.ldb,
            br,
            if self.opb == Op::N { "k" } else { "n" },
        )?;
        check_ld(name, "ldc", self.ldc, self.m, "m")?;
        for (what, span) in self.spans() {
            span_or(name, span, &|| self.why(what))?;
        }
        check_counts(name, ("A", self.a.count()), ("B", self.b.count()))?;
        check_counts(name, ("A", self.a.count()), ("C", self.c.count()))
    }

    /// Stored rows and columns of A and B.
    fn a_dims(&self) -> (usize, usize) {
        if self.opa == Op::N {
            (self.m, self.k)
        } else {
            (self.k, self.m)
        }
    }

    fn b_dims(&self) -> (usize, usize) {
        if self.opb == Op::N {
            (self.k, self.n)
        } else {
            (self.n, self.k)
        }
    }

    /// The element spans of A, B and C (`None` on overflow).
    fn spans(&self) -> [(&'static str, Option<usize>); 3] {
        let ((ar, ac), (br, bc)) = (self.a_dims(), self.b_dims());
        [
            ("A", mat_span(ar, ac, self.lda)),
            ("B", mat_span(br, bc, self.ldb)),
            ("C", mat_span(self.m, self.n, self.ldc)),
        ]
    }

    /// An operand's shape, for errors.
    fn why(&self, what: &str) -> String {
        let ((r, c), ld) = match what {
            "A" => (self.a_dims(), ("lda", self.lda)),
            "B" => (self.b_dims(), ("ldb", self.ldb)),
            _ => ((self.m, self.n), ("ldc", self.ldc)),
        };
        format!("{what} of {r} × {c} with {} = {}", ld.0, ld.1)
    }

    fn check_operands(&self, h: &Handle) -> Result<(), Error> {
        let ck = Checker { h, call: self.name };
        let [a, b, c] = self
            .spans()
            .map(|(what, span)| span_or(self.name, span, &|| self.why(what)));
        ck.batch("A", &self.a, a?, &|| self.why("A"), false, None)?;
        ck.batch("B", &self.b, b?, &|| self.why("B"), false, None)?;
        ck.batch("C", &self.c.view(), c?, &|| self.why("C"), true, None)?;
        let batch = self.a.count();
        ck.coef("alpha", &self.alpha, batch)?;
        ck.coef("beta", &self.beta, batch)
    }

    /// Host alpha 0 or no inner dimension: only `C = beta C` is left.
    fn scale_only(&self) -> bool {
        self.k == 0 || self.alpha.host() == Some(<I::Scale as Scalar>::zero())
    }
}

/// The workspace parts of a `gemm_ex` by name: cuBLASLt's workspace, zeros standing in for A
/// and B when only `C = beta C` is left, and scalar slots when host and device scalars are
/// mixed. Their sizes in bytes are the plan (`ExPlan`); a lease holds them in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ExWorkspace<S> {
    lt: S,
    zeros: S,
    slots: S,
}

/// The plan of a `gemm_ex`: its parts' sizes in bytes.
type ExPlan = ExWorkspace<usize>;

impl WorkspacePlan for ExPlan {
    fn sizes(&self) -> SmallVec<[usize; 4]> {
        smallvec::smallvec![self.lt, self.zeros, self.slots]
    }
}

impl ExWorkspace<Option<WorkspaceSlice>> {
    /// The parts of a lease laid out by `ExPlan::sizes`.
    fn leased(lease: &WorkspaceLease<'_>) -> Self {
        ExWorkspace {
            lt: lease.buffer(0),
            zeros: lease.buffer(1),
            slots: lease.buffer(2),
        }
    }
}

impl<I: GemmExIn, O: GemmExOut<I>> ExCall<'_, '_, I, O> {
    /// The cuBLASLt product of the call, its algorithm chosen within `limit` bytes.
    fn lt_shape(&self, limit: usize) -> Shape {
        let c = self;
        let scale_only = c.scale_only();
        let per_entry =
            matches!(c.alpha, Coef::DevicePerEntry(_)) || matches!(c.beta, Coef::DevicePerEntry(_));
        let dev_scal = c.alpha.host().is_none() || c.beta.host().is_none();
        let k = if scale_only { 1 } else { c.k };
        let strided = matches!(c.a, Batch::Strided { .. });
        let stride = |b: &Batch<'_, I>| match b {
            Batch::Strided { stride, .. } => *stride as i64,
            _ => 0,
        };
        let batch = if strided && !per_entry && !scale_only {
            c.a.count()
        } else {
            1
        };
        let sc = match &c.c {
            BatchMut::Strided { stride, .. } => *stride as i64,
            _ => 0,
        };
        // User buffers start 256-byte aligned; batched entries are as aligned as their stride.
        let al = |esz: usize, s: i64| {
            let stride = if batch > 1 {
                s.unsigned_abs() * esz as u64
            } else {
                0
            };
            exec_cuda::align_of(&[256, stride])
        };
        let (ta, tb, lda, ldb) = if scale_only {
            (Op::N, Op::N, c.m, 1)
        } else {
            (c.opa, c.opb, c.lda, c.ldb)
        };
        Shape {
            ab: I::DT,
            c: O::DT,
            scale: scale_dt::<I::Scale>(),
            compute: c.compute.engine(),
            ta,
            tb,
            m: c.m,
            n: c.n,
            k,
            lda,
            ldb,
            ldc: c.ldc,
            batch,
            sa: if batch > 1 { stride(&c.a) } else { 0 },
            sb: if batch > 1 { stride(&c.b) } else { 0 },
            sc: if batch > 1 { sc } else { 0 },
            align: [
                al(std::mem::size_of::<I>(), stride(&c.a)),
                al(std::mem::size_of::<I>(), stride(&c.b)),
                al(std::mem::size_of::<O>(), sc),
            ],
            device_scalars: dev_scal,
            limit,
        }
    }

    /// The plan's own parts, cuBLASLt's left out: zeros standing in for A and B when only
    /// `C = beta C` is left, scalar slots when host and device scalars are mixed.
    fn own_parts(&self) -> ExPlan {
        let mixed = self.alpha.host().is_some() != self.beta.host().is_some();
        ExPlan {
            lt: 0,
            zeros: if self.scale_only() {
                (self.m + self.n) * std::mem::size_of::<I>()
            } else {
                0
            },
            slots: if mixed {
                self.a.count() * SLOTS * std::mem::size_of::<I::Scale>()
            } else {
                0
            },
        }
    }
}

/// A `gemm_ex` call on its way through the driver, with the GEMM engine it borrows (CUDA).
struct ExRoutine<'a, 'b, I: GemmExIn, O: GemmExOut<I>> {
    call: ExCall<'a, 'b, I, O>,
    lt: Option<Lt>,
}

impl<I: GemmExIn, O: GemmExOut<I>> ExRoutine<'_, '_, I, O> {
    /// The plan whose engine part is what cuBLASLt's algorithm needs within `limit` bytes.
    fn with_engine(&mut self, limit: usize) -> Result<ExPlan, Error> {
        let mut p = self.call.own_parts();
        if let Some(lt) = self.lt.as_mut() {
            p.lt = lt.prepare(&self.call.lt_shape(limit))?;
        }
        Ok(p)
    }
}

impl<I: GemmExIn, O: GemmExOut<I>> Routine for ExRoutine<'_, '_, I, O> {
    type Plan = ExPlan;

    fn name(&self) -> &'static str {
        self.call.name
    }

    fn check_sizes(&mut self) -> Result<(), Error> {
        self.call.check()
    }

    fn full(&mut self, h: &mut Handle) -> Result<Option<ExPlan>, Error> {
        let c = &self.call;
        let one = <I::Scale as Scalar>::one();
        let quick = c.m == 0
            || c.n == 0
            || c.a.count() == 0
            || (c.scale_only() && c.beta.host() == Some(one));
        if quick {
            return Ok(None);
        }
        exec_cuda::take_engine(h, &mut self.lt)?;
        self.with_engine(LT_MAX_WORKSPACE).map(Some)
    }

    fn check_operands(&mut self, h: &mut Handle) -> Result<(), Error> {
        self.call.check_operands(h)
    }

    fn fitted(&mut self, cap: usize) -> Result<Option<ExPlan>, Error> {
        let own = self.call.own_parts();
        let Some(room) = crate::memory::rounded_total(&[0, own.zeros, own.slots])
            .ok()
            .and_then(|own| exec_cuda::engine_room(cap, own, LT_MAX_WORKSPACE))
        else {
            return Ok(None);
        };
        self.with_engine(room).map(Some)
    }

    fn minimum(&self) -> String {
        let own = self.call.own_parts();
        format!(
            "needs {} bytes of zeros and {} bytes of scalar slots",
            own.zeros, own.slots
        )
    }

    fn run(&mut self, lease: &WorkspaceLease<'_>, plan: &ExPlan) -> Result<(), Error> {
        match self.lt.as_mut() {
            Some(lt) => {
                let shape = self.call.lt_shape(plan.lt);
                ex_cuda(lease, lt, &self.call, plan, &shape)
            }
            None => ex_host(&mut self.call),
        }
    }

    fn finish(&mut self, h: &mut Handle) {
        exec_cuda::give_back(h, self.lt.take());
    }
}

fn run_ex<I: GemmExIn, O: GemmExOut<I>>(
    h: &mut Handle,
    c: ExCall<'_, '_, I, O>,
) -> Result<Status, Error> {
    drive(h, &mut ExRoutine { call: c, lt: None })
}

fn ex_cuda<I: GemmExIn, O: GemmExOut<I>>(
    lease: &WorkspaceLease<'_>,
    lt: &mut Lt,
    c: &ExCall<'_, '_, I, O>,
    plan: &ExPlan,
    s: &Shape,
) -> Result<(), Error> {
    let h = lease.handle();
    let stream = h.stream();
    stream.bind()?;
    let ws = ExWorkspace::leased(lease);
    let (lt_ptr, zeros, slots) = (address(ws.lt), address(ws.zeros), address(ws.slots));
    let selem = std::mem::size_of::<I::Scale>() as u64;
    if plan.zeros > 0 {
        stream.memset32(zeros, 0, plan.zeros.div_ceil(4))?;
    }
    let batch = c.a.count();
    if plan.slots > 0 {
        exec_cuda::fill_slots(
            h,
            slots,
            &ScalarArg::Full(c.alpha),
            &ScalarArg::Full(c.beta),
            0,
            batch,
        )?;
    }
    let host_vals = exec_cuda::Aligned([
        c.alpha.host().unwrap_or(<I::Scale as Scalar>::zero()),
        c.beta.host().unwrap_or(<I::Scale as Scalar>::zero()),
    ]);
    let host_vals = &host_vals.0;
    let scal = |which: usize, e: usize| -> ScalarPtr<'_> {
        let co = if which == 0 { &c.alpha } else { &c.beta };
        if plan.slots > 0 {
            ScalarPtr::Device(slots + (e * SLOTS + if which == 0 { 0 } else { 2 }) as u64 * selem)
        } else if let Some((b, per)) = co.device() {
            ScalarPtr::Device(b.device_ptr().unwrap_or(0) + (e * per) as u64 * selem)
        } else {
            ScalarPtr::Host(bytemuck::bytes_of(&host_vals[which]))
        }
    };
    let calls = if s.batch > 1 { 1 } else { batch };
    let cview = c.c.view();
    for e in 0..calls {
        let (a, b) = if plan.zeros > 0 {
            (zeros, zeros + (c.m * std::mem::size_of::<I>()) as u64)
        } else {
            (c.a.entry_addr(e), c.b.entry_addr(e))
        };
        lt.matmul(
            s,
            stream,
            scal(0, e),
            a,
            b,
            scal(1, e),
            cview.entry_addr(e),
            lt_ptr,
            plan.lt,
        )?;
    }
    Ok(())
}

/// The host form: inputs widened to the scale type, faer's product, the output rounded back.
fn ex_host<I: GemmExIn, O: GemmExOut<I>>(c: &mut ExCall<'_, '_, I, O>) -> Result<(), Error> {
    let ((ar, ac), (br, bc)) = (c.a_dims(), c.b_dims());
    let wide = |b: &Batch<'_, I>, e: usize, len: usize| -> Result<Vec<I::Scale>, Error> {
        let s = b
            .host_entry(e)
            .and_then(|s| s.get(..len))
            .ok_or_else(not_host)?;
        Ok(s.iter().map(|&x| x.to_scale()).collect())
    };
    let scale_only = c.scale_only();
    for e in 0..c.a.count() {
        let alpha = coef_value(&c.alpha, e)?;
        let beta = coef_value(&c.beta, e)?;
        let a = wide(&c.a, e, mat_span(ar, ac, c.lda).unwrap_or(0))?;
        let b = wide(&c.b, e, mat_span(br, bc, c.ldb).unwrap_or(0))?;
        let len = mat_span(c.m, c.n, c.ldc).unwrap_or(0);
        let out: &mut [O] =
            c.c.host_entry_mut(e)
                .and_then(|s| s.get_mut(..len))
                .ok_or_else(not_host)?;
        let zero = <I::Scale as Scalar>::zero();
        let mut cw: Vec<I::Scale> = if beta == zero {
            vec![zero; len]
        } else {
            out[..len].iter().map(|&x| x.to_scale()).collect()
        };
        // Host alpha 0 or k = 0: C = beta C, A and B not read.
        let k = if scale_only { 0 } else { c.k };
        crate::exec::host::gemm(
            c.opa,
            c.opb,
            c.m,
            c.n,
            k,
            alpha,
            (&a, c.lda),
            (&b, c.ldb),
            beta,
            (&mut cw, c.ldc),
        )?;
        for j in 0..c.n {
            for i in 0..c.m {
                out[i + j * c.ldc] = O::from_scale(cw[i + j * c.ldc]);
            }
        }
    }
    Ok(())
}

/// `C = alpha op(A) op(B) + beta C` with input type `I`, output type `O` and the arithmetic
/// of `compute` (`cublasGemmEx`'s contract): f16/bf16 inputs with f32 accumulation and an f16,
/// bf16 or f32 output; f32 with IEEE or tensor-core (TF32, f16, bf16) arithmetic; f64 and the
/// complex types as [`super::gemm`]. `alpha`, `beta` are `I::Scale` (f32 for the half types).
#[allow(clippy::too_many_arguments)]
pub fn gemm_ex<I: GemmExIn, O: GemmExOut<I>>(
    h: &mut Handle,
    opa: Op,
    opb: Op,
    m: usize,
    n: usize,
    k: usize,
    alpha: Coef<'_, I::Scale>,
    a: &DeviceBuffer<I>,
    lda: usize,
    b: &DeviceBuffer<I>,
    ldb: usize,
    beta: Coef<'_, I::Scale>,
    c: &mut DeviceBuffer<O>,
    ldc: usize,
    compute: ComputeType,
) -> Result<Status, Error> {
    run_ex(
        h,
        ExCall {
            name: "gemm_ex",
            opa,
            opb,
            m,
            n,
            k,
            a: Batch::Single(a),
            lda,
            b: Batch::Single(b),
            ldb,
            c: BatchMut::Single(c),
            ldc,
            alpha,
            beta,
            compute,
        },
    )
}

/// `gemm_ex` of each entry of lists of matrices.
#[allow(clippy::too_many_arguments)]
pub fn gemm_ex_batched<I: GemmExIn, O: GemmExOut<I>>(
    h: &mut Handle,
    opa: Op,
    opb: Op,
    m: usize,
    n: usize,
    k: usize,
    alpha: Coef<'_, I::Scale>,
    a: &[&DeviceBuffer<I>],
    lda: usize,
    b: &[&DeviceBuffer<I>],
    ldb: usize,
    beta: Coef<'_, I::Scale>,
    c: &mut [&mut DeviceBuffer<O>],
    ldc: usize,
    compute: ComputeType,
) -> Result<Status, Error> {
    run_ex(
        h,
        ExCall {
            name: "gemm_ex_batched",
            opa,
            opb,
            m,
            n,
            k,
            a: Batch::list(a),
            lda,
            b: Batch::list(b),
            ldb,
            c: BatchMut::List(c),
            ldc,
            alpha,
            beta,
            compute,
        },
    )
}

/// `gemm_ex` of `batch` entries at fixed strides in one buffer per operand.
#[allow(clippy::too_many_arguments)]
pub fn gemm_ex_strided_batched<I: GemmExIn, O: GemmExOut<I>>(
    h: &mut Handle,
    opa: Op,
    opb: Op,
    m: usize,
    n: usize,
    k: usize,
    alpha: Coef<'_, I::Scale>,
    a: &DeviceBuffer<I>,
    lda: usize,
    stride_a: usize,
    b: &DeviceBuffer<I>,
    ldb: usize,
    stride_b: usize,
    beta: Coef<'_, I::Scale>,
    c: &mut DeviceBuffer<O>,
    ldc: usize,
    stride_c: usize,
    batch: usize,
    compute: ComputeType,
) -> Result<Status, Error> {
    run_ex(
        h,
        ExCall {
            name: "gemm_ex_strided_batched",
            opa,
            opb,
            m,
            n,
            k,
            a: Batch::Strided {
                buf: a,
                stride: stride_a,
                count: batch,
            },
            lda,
            b: Batch::Strided {
                buf: b,
                stride: stride_b,
                count: batch,
            },
            ldb,
            c: BatchMut::Strided {
                buf: c,
                stride: stride_c,
                count: batch,
            },
            ldc,
            alpha,
            beta,
            compute,
        },
    )
}
