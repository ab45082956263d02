//! `syevd` on CUDA above the Jacobi kernel's orders: the two-stage pipeline as one program of
//! the executor, per batch entry.
//!
//! 1. The working matrix with both triangles (the stored one expanded): A itself with vectors
//!    (it is overwritten anyway), a workspace copy without (A's other triangle is not the
//!    call's to touch); scaled by a power of two where its magnitude calls for it.
//! 2. Stage 1 (`band.rs`): dense to a band of `kd` by products over the whole trailing
//!    matrix, the reflectors `V1` below the band.
//! 3. Stage 2 (`bulge.rs`): the band to real tridiagonal, with vectors the reflectors `V2` into
//!    the free upper triangle.
//! 4. Stage 3: without vectors bisection; with vectors the divide and conquer (`dc.rs`, its
//!    own program over reals), the tridiagonal's eigenvectors to `Z` in the workspace.
//! 5. With vectors: `Z ← Q2 Z` (`q2.rs`), `Z ← Q1 Z` (QR's ormqr program on `V1`), `A ← Z`.
//!
//! Workspace (elements of the type unless said): R holds a scratch region every stage reuses
//! in turn (stage 1's panel parts and products, the band copy `2 kd · n`, the divide and
//! conquer's second buffer and `U` (`≈ n²` reals, and its real `Z` for complex types), ormqr's
//! blocks) and then `Z` (`n²`: the eigenvectors, or without them the working copy); E stage
//! 1's blocks (ormqr's E blocks and, where it fits, cuBLASLt's workspace outside the divide and
//! conquer are in R's scratch, dead by then); the taus (`n`); `d`, `e` (`2n` reals); the sweeps'
//! counters (`2 (n − 1)` u32); the panels' exchange; the divide and conquer's scratch (`O(n)`).
//! `Z ← Q2 Z` takes none.

use super::band::{BandPlan, BandShape};
use super::dc::DcState;
use super::family::{EigFamily, EigStep, Tri};
use super::{Call, Kind};
use crate::common::operand::{BatchMut, Results};
use crate::common::plan::{drive, Routine, WorkspacePlan};
use crate::device::lt::{Lt, LT_MAX_WORKSPACE};
use crate::device::{Backend, DeviceBuffer};
use crate::exec::program::{mat, Fill, Space, Step};
use crate::exec::workspace::BlockWorkspace;
use crate::exec::{cuda as exec_cuda, host as exec_host, Layout, Operands, ScalarArg};
use crate::memory::{address, WorkspaceSlice};
use crate::qr::plan::{QrParams, QrPlan, QrShape};
use crate::qr::program::Prog;
use crate::qr::QrFamily;
use crate::{Coef, Error, Evect, Handle, Op, RealScalar, Scalar, Side, Status, Uplo};
use crate::{Esort, WorkspaceLease};

/// The band width stage 1 leaves for an order-`n` matrix (one the stage-2 kernel is built
/// for): narrow, as stage 2's tasks cost about kd² each on its critical path of n sweeps.
/// H200, values only, 8192: kd 32 306 ms, kd 64 441 ms (stage 2 104 against 289 ms). Complex
/// types with vectors take 16: their `Q2` holds a whole window per lane only there (zheevd
/// with vectors, 8192: kd 16 797 ms, kd 32 879 ms; 4096: 162 against 185 ms).
pub(crate) fn band_width(n: usize, complex: bool, vectors: bool) -> usize {
    #[cfg(test)]
    if let Some(kd) = probe::BAND_WIDTH.with(|w| w.get()) {
        return kd;
    }
    if n <= 256 || (complex && vectors) {
        16
    } else {
        32
    }
}

/// Stage 1's `pair_rows` (`band::PAIR_ROWS`; tests and the probe may set another).
fn pair_rows() -> usize {
    #[cfg(test)]
    if let Some(rows) = probe::PAIR_ROWS.with(|r| r.get()) {
        return rows;
    }
    super::band::PAIR_ROWS
}

/// What the plan depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TwoStageShape {
    pub n: usize,
    pub kd: usize,
    pub elem: usize,
    pub real: usize,
    pub complex: bool,
    pub vectors: bool,
    pub upper: bool,
    pub sms: usize,
    pub cholqr: bool,
    /// Bytes gathering the entries' `info` on the device for host memory (stage 3 writes
    /// them on the device).
    pub infos: usize,
}

/// The plan: stage 1's and ormqr's plans, the layout of R and E, the family's parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TwoStagePlan {
    pub shape: TwoStageShape,
    pub band: BandPlan,
    pub q1: Option<QrPlan>,
    /// Where `Z` (or the working copy) starts in R.
    pub z_off: usize,
    /// E: stage 1's blocks (`Q1`'s are in R's scratch).
    pub e_elems: usize,
    pub r_elems: usize,
    /// The back-transformations' parts in R's scratch, free once the divide and conquer is
    /// done: `Q1`'s E blocks at its start, and its own R from `post_base` on (its blocks, then
    /// `Z`), so that the two never overlap.
    pub post_e: usize,
    pub post_base: usize,
    /// Bytes of R's scratch no step of stages 1, 2 and 4 touches (`[start, end)`): cuBLASLt's
    /// workspace for their products where it fits (`lt_inside`), the divide and conquer's
    /// products then being the only ones the `lt` part serves.
    pub lt_room: (usize, usize),
    pub lt_inside: bool,
    /// Taus (elements): stage 1's (`n`).
    pub taus: usize,
    pub lt: usize,
}

/// The alignment (bytes) of the parts placed inside R's scratch (cuBLASLt's workspace is
/// 256-byte aligned, as the executor's parts are).
const PART_ALIGN: usize = 256;

/// Stage 1's symm/syr2k leaves, and how many are expanded at once.
const SYMM_NB: usize = 256;
const SYMM_EBLOCKS: usize = 4;

impl TwoStageShape {
    /// The plan (F4: every part from the arguments alone).
    pub(crate) fn plan(&self) -> TwoStagePlan {
        let (n, kd) = (self.n, self.kd);
        let band = BandShape {
            n,
            kd,
            elem: self.elem,
            complex: self.complex,
            sms: self.sms,
            cholqr: self.cholqr,
            nb: SYMM_NB,
            eblocks: SYMM_EBLOCKS,
            full: true,
            pair_rows: pair_rows(),
        }
        .plan();
        let reflectors = n > kd + 1;
        let q1 = (self.vectors && reflectors).then(|| {
            QrShape {
                kind: crate::qr::Kind::Ormqr,
                left: true,
                m: n - kd,
                n,
                k: n - kd,
                batch: 1,
                list: false,
                elem: self.elem,
                sms: self.sms,
                cholqr: false,
                whole_smem: 0,
                params: QrParams::auto(),
            }
            .full()
        });
        let bl = band.layout();
        // (the divide and conquer's buffers in reals: Y and U, and for complex types its Z)
        let (dy, du) = super::dc::buffers(n);
        let dc = if !self.vectors {
            0
        } else if self.complex {
            (n * n + dy + du).div_ceil(2)
        } else {
            dy + du
        };
        // (`Q1`'s E and R blocks, each from an aligned start)
        let align = PART_ALIGN / self.elem;
        let (post_e, post_r) = q1.map_or((0, 0), |p| {
            let l = p.layout();
            (l.e_elems, l.r_elems)
        });
        let before_z = post_e.next_multiple_of(align) + post_r.next_multiple_of(align);
        // (the elements stages 1 and 2 use from R's start: the band reduction's parts, the
        // band)
        let early = bl.r_elems.max(2 * kd * n);
        let scratch = [early, before_z, dc]
            .into_iter()
            .max()
            .unwrap_or(0)
            .next_multiple_of(align);
        let post_base = (scratch - post_r) / align * align;
        // (Z: the eigenvectors, or without them the working copy)
        let z = n * n;
        let lt_start = (early.max(post_e) * self.elem).next_multiple_of(PART_ALIGN);
        let lt_end = post_base * self.elem;
        TwoStagePlan {
            shape: *self,
            band,
            q1,
            z_off: scratch,
            // (E a whole number of alignments: R, after it in the lease, starts aligned, and
            // with it the parts placed inside R)
            e_elems: bl.e_elems.next_multiple_of(align),
            r_elems: scratch + z,
            post_e,
            post_base,
            lt_room: (lt_start, lt_end.max(lt_start)),
            lt_inside: false,
            taus: n,
            lt: 0,
        }
    }
}

impl TwoStagePlan {
    fn layout(&self) -> Layout {
        Layout {
            entries: 1,
            e_elems: self.e_elems,
            r_elems: self.r_elems,
        }
    }

    /// The back-transformations' layout: E and R as they see them (inside R's scratch).
    fn post_layout(&self) -> Layout {
        Layout {
            entries: 1,
            e_elems: self.post_e,
            r_elems: self.r_elems - self.post_base,
        }
    }

    /// The workspace parts of the programs before the divide and conquer and after it (the
    /// leased ones `ws`): cuBLASLt's inside R's scratch where it fits, and after it `Q1`'s E
    /// and R inside R too.
    fn stage_parts(
        &self,
        ws: &BlockWorkspace<Option<WorkspaceSlice>>,
    ) -> (
        BlockWorkspace<Option<WorkspaceSlice>>,
        BlockWorkspace<Option<WorkspaceSlice>>,
    ) {
        let elem = self.shape.elem;
        let r = ws.r_results;
        let (start, end) = self.lt_room;
        let lt = match (self.lt_inside, r) {
            (true, Some(r)) => r.part(start, end - start),
            _ => ws.lt,
        };
        let pre = BlockWorkspace { lt, ..*ws };
        let post = BlockWorkspace {
            lt,
            slots: ws.slots,
            e_blocks: r.and_then(|r| r.part(0, self.post_e * elem)),
            r_results: r.and_then(|r| {
                let base = self.post_base * elem;
                r.part(base, r.len().saturating_sub(base))
            }),
        };
        (pre, post)
    }

    /// The programs for an entry whose matrix has leading dimension `lda`: up to stage 3's
    /// values (`T`), the divide and conquer with vectors (reals), the back-transformations
    /// (`T`).
    #[allow(clippy::type_complexity)]
    pub(crate) fn build(
        &self,
        lda: usize,
    ) -> (Vec<Step<EigStep>>, Vec<Step<EigStep>>, Vec<Step<EigStep>>) {
        let s = &self.shape;
        let (n, kd) = (s.n, s.kd);
        let user = mat(Space::C, 0, lda, 0);
        let zm = mat(Space::R, self.z_off, n, 0);
        // (Z as the back-transformations see it: R from `post_base` on)
        let z_post = mat(Space::R, self.z_off - self.post_base, n, 0);
        // The working matrix holds both triangles: A itself with vectors (it is overwritten
        // anyway), else a copy (A's other triangle is not the call's to touch).
        let work = if s.vectors { user } else { zm };
        let mut v: Vec<Step<EigStep>> = vec![Step::Expand {
            fill: if s.complex { Fill::Herm } else { Fill::Sym },
            lower: !s.upper,
            n,
            src: user,
            dst: work,
            count: 1,
        }];
        v.push(Step::Family(EigStep::Scale { n, a: work }));
        v.extend(
            super::band::build_at(&self.band, work)
                .into_iter()
                .map(|st| st.map(EigStep::Qr)),
        );
        v.push(Step::Family(EigStep::Sb2st {
            n,
            kd,
            a: work,
            ab: mat(Space::R, 0, 2 * kd, 0),
            vectors: s.vectors,
        }));
        if !s.vectors {
            v.push(Step::Family(EigStep::Bisect { n }));
            return (v, Vec::new(), Vec::new());
        }
        let (dy, _) = super::dc::buffers(n);
        let r = |off: usize| mat(Space::R, off, n, 0);
        let dc = if s.complex {
            // (over reals: Z, Y, U in the scratch, Z widened into the complex one at the end)
            super::dc::build(n, r(0), r(n * n), r(n * n + dy), Some(zm))
        } else {
            super::dc::build(n, zm, r(0), r(dy), None)
        };
        let pre = std::mem::take(&mut v);
        super::q2::build(&mut v, (n, kd, n), work, z_post);
        if let Some(q1) = &self.q1 {
            let prog = Prog {
                kind: crate::qr::Kind::Ormqr,
                side: Side::Left,
                op: Op::N,
                m: n - kd,
                n,
                k: n - kd,
                ldv: lda,
                ldc: n,
                complex: s.complex,
                c_off: z_post.off + kd,
                c_sp: Space::R,
                v_sp: Space::C,
                v_off: kd,
                k_off: 0,
            };
            v.extend(
                crate::qr::program::build(&prog, q1)
                    .into_iter()
                    .map(|st| st.map(EigStep::Qr)),
            );
        }
        v.push(Step::Copy {
            m: n,
            n,
            src: z_post,
            dst: user,
        });
        (pre, dc, v)
    }

    /// The layout of the divide and conquer's program (reals).
    fn real_layout(&self) -> Layout {
        let k = self.shape.elem / self.shape.real;
        Layout {
            entries: 1,
            e_elems: self.e_elems * k,
            r_elems: self.r_elems * k,
        }
    }
}

impl WorkspacePlan for TwoStagePlan {
    fn sizes(&self) -> smallvec::SmallVec<[usize; 4]> {
        let s = &self.shape;
        let b = BlockWorkspace {
            lt: self.lt,
            slots: 0,
            e_blocks: self.e_elems * s.elem,
            r_results: self.r_elems * s.elem,
        };
        let mut v = smallvec::SmallVec::from_buf(b.list());
        v.push(self.band.qr.exchange_per_entry());
        v.push(self.band.qr.cholqr_per_entry());
        v.push(self.taus * s.elem);
        v.push(2 * s.n * s.real + 8);
        v.push(4 * super::bulge::progress_counters(s.n));
        v.push(s.infos);
        v.push(if s.vectors {
            super::dc::scratch_bytes(s.n, s.real)
        } else {
            0
        });
        v
    }
}

/// A two-stage `syevd` call on its way through the driver.
struct TwoStage<'a, 'b, T: Scalar> {
    call: Call<'a, 'b, T>,
    lt: Option<Lt>,
    plan: Option<TwoStagePlan>,
    /// Space A (the programs read no A).
    placeholder: DeviceBuffer<T>,
}

/// The divide and conquer program's operands (it reads and writes only the workspace).
fn real_placeholders<T: Scalar>() -> (DeviceBuffer<T::Real>, DeviceBuffer<T::Real>) {
    (DeviceBuffer::placeholder(0), DeviceBuffer::placeholder(0))
}

fn real_operands<'x, R: Scalar>(
    c: &'x mut DeviceBuffer<R>,
    a: &'x DeviceBuffer<R>,
) -> Operands<'x, 'x, R> {
    Operands::lapack(None, a, BatchMut::Single(c), (0, 1))
}

/// The executor's operands of entry `e` (`alpha` = −½ for stage 1's `W`).
fn operands<'x, 'b, T: Scalar>(
    a: &'x mut BatchMut<'_, 'b, T>,
    placeholder: &'x DeviceBuffer<T>,
    e: usize,
) -> Operands<'x, 'b, T> {
    let mut ops = Operands::lapack(None, placeholder, a.reborrow(), (e, e + 1));
    ops.alpha = ScalarArg::Full(Coef::Host(T::from_real(T::Real::from_f64(-0.5))));
    ops
}

impl<T: Scalar> TwoStage<'_, '_, T> {
    fn shape(&self, h: &Handle) -> TwoStageShape {
        let n = self.call.n;
        TwoStageShape {
            n,
            kd: band_width(n, T::COMPLEX, self.call.evect == Evect::Original),
            elem: std::mem::size_of::<T>(),
            real: std::mem::size_of::<T::Real>(),
            complex: T::COMPLEX,
            vectors: self.call.evect == Evect::Original,
            upper: self.call.uplo == Uplo::Upper,
            sms: h.device().multiprocessor_count(),
            cholqr: crate::qr::cholqr_device::<T>(h),
            infos: if self.call.info.is_host() && h.device().backend() == Backend::Cuda {
                4 * self.call.batch()
            } else {
                0
            },
        }
    }
}

const NAME_S: &str = "syevd";

impl<T: Scalar> Routine for TwoStage<'_, '_, T> {
    type Plan = TwoStagePlan;

    fn name(&self) -> &'static str {
        self.call.name
    }

    fn check_sizes(&mut self) -> Result<(), Error> {
        self.call.check_sizes(&super::plan::EigParams::auto())
    }

    fn full(&mut self, h: &mut Handle) -> Result<Option<TwoStagePlan>, Error> {
        if self.call.quick() {
            return Ok(None);
        }
        exec_cuda::take_engine(h, &mut self.lt)?;
        let mut plan = self.shape(h).plan();
        if let Some(mut lt) = self.lt.take() {
            let (pre, dc, post) = plan.build(self.call.lda);
            let need = {
                let ops = operands(&mut self.call.a, &self.placeholder, 0);
                exec_cuda::lt_need(&mut lt, &ops, &plan.layout(), &pre, LT_MAX_WORKSPACE).and_then(
                    |a| {
                        let b = exec_cuda::lt_need(
                            &mut lt,
                            &ops,
                            &plan.post_layout(),
                            &post,
                            LT_MAX_WORKSPACE,
                        )?;
                        Ok(a.max(b))
                    },
                )
            }
            .and_then(|a| {
                let (mut c, r) = real_placeholders::<T>();
                let ops = real_operands(&mut c, &r);
                let b =
                    exec_cuda::lt_need(&mut lt, &ops, &plan.real_layout(), &dc, LT_MAX_WORKSPACE)?;
                Ok((a, b))
            });
            self.lt = Some(lt);
            let (outside_dc, dc_need) = need?;
            // The products outside the divide and conquer borrow R's free scratch where it
            // holds their need; the lt part then serves the divide and conquer alone.
            let (start, end) = plan.lt_room;
            plan.lt_inside = outside_dc > 0 && end - start >= outside_dc;
            // (rounded: the lt part comes first in the lease, so R's start, and cuBLASLt's
            // workspace inside it, stay 256-byte aligned)
            plan.lt = if plan.lt_inside {
                dc_need
            } else {
                outside_dc.max(dc_need)
            }
            .next_multiple_of(PART_ALIGN);
        }
        self.plan = Some(plan);
        Ok(Some(plan))
    }

    fn check_operands(&mut self, h: &mut Handle) -> Result<(), Error> {
        self.call.check_operands(h)?;
        let waits = self.call.info.is_host();
        if h.device().backend() == Backend::Cuda && waits && h.stream().is_capturing()? {
            return Err(Error::Unsupported(format!(
                "{}: n = {}: info to host memory needs the results, which waits for the \
                 stream: not during graph capture (pass info in device memory)",
                self.call.name, self.call.n
            )));
        }
        Ok(())
    }

    fn quick_return(&mut self, h: &mut Handle) -> Result<Status, Error> {
        let batch = self.call.batch();
        if batch > 0 {
            super::zero_results(h, &mut self.call.info, batch)?;
        }
        Ok(Status::Success)
    }

    fn fitted(&mut self, cap: usize) -> Result<Option<TwoStagePlan>, Error> {
        Ok(self.plan.filter(|p| p.total() <= cap))
    }

    fn minimum(&self) -> String {
        self.plan
            .map(|p| {
                format!(
                    "needs {} bytes (the eigenvectors' n² and the stages' scratch); the reduced \
                     plans are not built yet",
                    p.total()
                )
            })
            .unwrap_or_default()
    }

    fn run(&mut self, lease: &WorkspaceLease<'_>, plan: &TwoStagePlan) -> Result<(), Error> {
        let h = lease.handle();
        let (pre, dc, post) = plan.build(self.call.lda);
        let ws = BlockWorkspace::leased(lease, 0);
        let (ws_pre, ws_post) = plan.stage_parts(&ws);
        let exchange = lease.buffer(BlockWorkspace::PARTS);
        let cholqr = lease.buffer(BlockWorkspace::PARTS + 1);
        let taus = lease.buffer(BlockWorkspace::PARTS + 2);
        let reals = lease.buffer(BlockWorkspace::PARTS + 3);
        let prog = lease.buffer(BlockWorkspace::PARTS + 4);
        let info_part = lease.buffer(BlockWorkspace::PARTS + 5);
        let dc_part = lease.buffer(BlockWorkspace::PARTS + 6);
        let (mut real_c, real_a) = real_placeholders::<T>();
        let info_user = match &self.call.info {
            Results::Device(b) => b.device_ptr(),
            Results::Host(_) => None,
        };
        let layout = plan.layout();
        let (n, batch) = (self.call.n, self.call.batch());
        let real = std::mem::size_of::<T::Real>();
        let mut infos = Vec::with_capacity(batch);
        let q = &plan.band.qr;
        match self.lt.take() {
            Some(mut lt) => {
                let w_base = self.call.w.device_ptr().unwrap_or(0);
                for e in 0..batch {
                    let family = EigFamily::<T> {
                        qr: QrFamily::Dev(crate::qr::cuda::DevTaus {
                            tau: address(taus),
                            tau_s: 0,
                            ex: address(exchange),
                            ex_s: q.exchange_per_entry(),
                            grid: q.grid,
                            info: 0,
                            info_s: 0,
                            cq: address(cholqr),
                            cq_s: q.cholqr_per_entry(),
                            cq_blocks: q.cq,
                        }),
                        tri: Some(Tri::Dev {
                            d: address(reals),
                            e: address(reals) + (n * real) as u64,
                            prog: address(prog),
                            amax: address(reals) + (2 * n * real) as u64,
                            w: w_base + (e * self.call.stride_w * real) as u64,
                            info_dev: info_user.unwrap_or_else(|| address(info_part))
                                + 4 * e as u64,
                            dc: address(dc_part),
                        }),
                        sms: plan.shape.sms,
                    };
                    let r = {
                        let ops = operands(&mut self.call.a, &self.placeholder, e);
                        exec_cuda::run(h, &ws_pre, &mut lt, &ops, &layout, &pre, &family, NAME_S)
                    }
                    .and_then(|_| {
                        if dc.is_empty() {
                            return Ok(());
                        }
                        let ops = real_operands(&mut real_c, &real_a);
                        let layout = plan.real_layout();
                        exec_cuda::run(h, &ws, &mut lt, &ops, &layout, &dc, &family, NAME_S)
                    })
                    .and_then(|_| {
                        let ops = operands(&mut self.call.a, &self.placeholder, e);
                        let layout = plan.post_layout();
                        exec_cuda::run(h, &ws_post, &mut lt, &ops, &layout, &post, &family, NAME_S)
                    });
                    if let Err(err) = r {
                        self.lt = Some(lt);
                        return Err(err);
                    }
                }
                self.lt = Some(lt);
            }
            None => {
                for e in 0..batch {
                    let mut family = EigFamily::<T> {
                        qr: QrFamily::Host {
                            tau: vec![T::zero(); plan.taus],
                            kt: plan.taus,
                            info: Vec::new(),
                        },
                        tri: Some(Tri::Host {
                            d: Vec::new(),
                            e: Vec::new(),
                            w: Vec::new(),
                            info: 0,
                            sigma: 1.0,
                            dc: DcState::default(),
                        }),
                        sms: 0,
                    };
                    {
                        let mut ops = operands(&mut self.call.a, &self.placeholder, e);
                        exec_host::run(h, &ws_pre, &mut ops, &pre, &mut family)?;
                        let mut rops = real_operands(&mut real_c, &real_a);
                        exec_host::run(h, &ws, &mut rops, &dc, &mut family)?;
                        exec_host::run(h, &ws_post, &mut ops, &post, &mut family)?;
                    }
                    if let Some(Tri::Host { w, info, .. }) = &family.tri {
                        let dst = self
                            .call
                            .w
                            .host_slice_mut()
                            .ok_or_else(crate::common::host::not_host)?;
                        let at = e * self.call.stride_w;
                        dst[at..at + n].copy_from_slice(w);
                        infos.push(*info);
                    }
                }
            }
        }
        let on_device = h.device().backend() == Backend::Cuda;
        match &mut self.call.info {
            // (stage 3 on the device wrote them; host results gathered in the workspace)
            Results::Host(s) if on_device => h.stream().read_bytes(
                address(info_part),
                bytemuck::cast_slice_mut(&mut s[..batch]),
            )?,
            Results::Device(_) if on_device => {}
            Results::Host(s) => s[..batch].copy_from_slice(&infos),
            Results::Device(b) => match b.host_slice_mut() {
                Some(s) => s[..batch].copy_from_slice(&infos),
                None => h
                    .stream()
                    .write_bytes(b.device_ptr().unwrap_or(0), bytemuck::cast_slice(&infos))?,
            },
        }
        Ok(())
    }

    fn finish(&mut self, h: &mut Handle) {
        exec_cuda::give_back(h, self.lt.take());
    }
}

/// `syevd` (`heevd`) of every entry of `call` by the two-stage pipeline.
pub(crate) fn run<T: Scalar>(h: &mut Handle, call: Call<'_, '_, T>) -> Result<Status, Error> {
    debug_assert!(call.kind == Kind::Syevd && call.sort == Esort::Ascending);
    drive(
        h,
        &mut TwoStage {
            call,
            lt: None,
            plan: None,
            placeholder: DeviceBuffer::<T>::placeholder(0),
        },
    )
}

#[cfg(test)]
mod tests {
    //! The whole pipeline against the definition in f64 loops: `‖A Z − Z Λ‖` and `‖ZᴴZ − I‖`
    //! below 30 `n ε ‖A‖`, `W` ascending, values alone equal to those with vectors, `U` and
    //! `L`, and without vectors the other triangle untouched.

    use super::super::band::tests::{adjoint, max_abs, mul, Elem, Lcg, C};
    use super::*;
    use crate::{Complex64, Device};

    fn check<T: Elem>(
        dev: &Device,
        n: usize,
        (upper, vectors): (bool, bool),
        scale: f64,
        seed: u64,
    ) {
        let cplx = T::COMPLEX;
        let lda = n + 2;
        let mut r = Lcg(seed);
        let mut a0 = vec![C::new(0.0, 0.0); n * n];
        for j in 0..n {
            for i in j..n {
                let im = if cplx && i != j { r.uni() } else { 0.0 };
                let v = C::new(r.uni(), im) * scale;
                a0[i + j * n] = v;
                a0[j + i * n] = v.conj();
            }
        }
        let poison = T::make(C::new(f64::NAN, f64::NAN));
        let mut host = vec![poison; lda * n];
        for j in 0..n {
            for i in 0..n {
                if (i >= j) != upper || i == j {
                    // (a Hermitian diagonal's imaginary parts are not read: NaN there)
                    let v = a0[i + j * n];
                    let v = if i == j && cplx {
                        C::new(v.re, f64::NAN)
                    } else {
                        v
                    };
                    host[i + j * lda] = T::make(v);
                }
            }
        }
        let mut h = Handle::new(dev).unwrap();
        let mut a = dev.upload(&host).unwrap();
        let nan = <T::Real as RealScalar>::from_f64(f64::NAN);
        let mut w = dev.upload(&vec![nan; n + 1]).unwrap();
        let mut info = [7i32];
        let call = Call {
            name: "syevd",
            kind: Kind::Syevd,
            evect: if vectors {
                Evect::Original
            } else {
                Evect::None
            },
            sort: Esort::Ascending,
            uplo: if upper { Uplo::Upper } else { Uplo::Lower },
            n,
            a: BatchMut::Single(&mut a),
            lda,
            w: &mut w,
            stride_w: n,
            info: Results::Host(&mut info),
            jacobi: None,
        };
        assert_eq!(run(&mut h, call).unwrap(), Status::Success);
        let what = format!(
            "n = {n}, complex = {cplx}, upper = {upper}, vectors = {vectors}, scale = {scale:e}"
        );
        assert_eq!(info[0], 0, "{what}");
        let wv: Vec<f64> = w.to_vec().unwrap().iter().map(|x| x.to_f64()).collect();
        assert!(wv[n].is_nan(), "{what}: W past n written");
        assert!(
            wv[..n].windows(2).all(|p| p[0] <= p[1]),
            "{what}: W not ascending"
        );
        let out = a.to_vec().unwrap();
        let eps = if std::mem::size_of::<T::Real>() == 4 {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        };
        let an = max_abs(&a0);
        // The trace and the Frobenius norm are the spectrum's (compared unscaled).
        let tr: f64 = (0..n).map(|i| a0[i + i * n].re / scale).sum();
        let fro: f64 = a0.iter().map(|x| (x / scale).norm_sqr()).sum();
        let ws: Vec<f64> = wv[..n].iter().map(|x| x / scale).collect();
        let tol = 30.0 * n as f64 * eps * fro.sqrt() * (n as f64).sqrt();
        assert!((ws.iter().sum::<f64>() - tr).abs() < tol, "{what}: trace");
        let f2: f64 = ws.iter().map(|x| x * x).sum();
        let tol = 30.0 * n as f64 * eps * fro;
        assert!((f2 - fro).abs() < tol, "{what}: ‖A‖_F² {f2} vs {fro}");
        if !vectors {
            // The other triangle (and the padding) untouched.
            for j in 0..n {
                for i in 0..lda {
                    let other = i >= n || (if upper { i > j } else { i < j });
                    if other {
                        assert!(
                            out[i + j * lda].get().re.is_nan(),
                            "{what}: ({i}, {j}) written"
                        );
                    }
                }
            }
            return;
        }
        let mut z = vec![C::new(0.0, 0.0); n * n];
        for j in 0..n {
            for i in 0..n {
                z[i + j * n] = out[i + j * lda].get();
            }
        }
        let az = mul(&a0, &z, n);
        let mut res = 0.0f64;
        for j in 0..n {
            for i in 0..n {
                res = res.max((az[i + j * n] - z[i + j * n] * wv[j]).norm());
            }
        }
        let zz = mul(&adjoint(&z, n), &z, n);
        let orth = (0..n * n)
            .map(|x| (zz[x] - if x % (n + 1) == 0 { 1.0 } else { 0.0 }).norm())
            .fold(0.0, f64::max);
        let (res, orth) = (res / (an * n as f64 * eps), orth / (n as f64 * eps));
        assert!(
            res < 30.0 && orth < 30.0,
            "{what}: ‖AZ − ZΛ‖ {res:.2}, ‖ZᴴZ − I‖ {orth:.2}"
        );
    }

    pub(crate) fn all(dev: &Device) {
        for &n in &[65usize, 66, 100, 129, 300] {
            for (k, &(upper, vectors)) in
                [(false, true), (true, true), (false, false), (true, false)]
                    .iter()
                    .enumerate()
            {
                check::<f64>(dev, n, (upper, vectors), 1.0, (n + k) as u64);
                check::<Complex64>(dev, n, (upper, vectors), 1.0, (3 * n + k) as u64);
            }
        }
        for (k, &n) in [65usize, 130].iter().enumerate() {
            check::<f32>(dev, n, (k == 0, true), 1.0, 60 + k as u64);
            check::<crate::Complex32>(dev, n, (k == 1, true), 1.0, 70 + k as u64);
            check::<f32>(dev, n, (k == 1, false), 1.0, 80 + k as u64);
        }
        // Magnitudes whose squares leave the range: the scaling path.
        for (k, &scale) in [1e200, 1e-200].iter().enumerate() {
            check::<f64>(dev, 100, (k == 1, true), scale, 40 + k as u64);
            check::<Complex64>(dev, 100, (k == 0, false), scale, 50 + k as u64);
        }
    }

    /// F4: with vectors, the back-transformations' E and R and cuBLASLt's room lie in R's
    /// scratch apart from each other and from what stages 1 and 2 use before them.
    #[test]
    fn f4_back_transformation_parts_inside_scratch() {
        let cases = [
            (65, 8, false),
            (300, 16, true),
            (1000, 8, false),
            (4096, 16, true),
            (8192, 8, false),
            (130, 4, false),
        ];
        for &(n, elem, complex) in &cases {
            let p = TwoStageShape {
                n,
                kd: band_width(n, complex, true),
                elem,
                real: if complex { elem / 2 } else { elem },
                complex,
                vectors: true,
                upper: false,
                sms: 132,
                cholqr: false,
                infos: 0,
            }
            .plan();
            let (pre, _, post) = p.build(n);
            let early = pre
                .into_iter()
                .map(|mut st| st.extent(Space::R))
                .chain([p.band.layout().r_elems, 2 * p.shape.kd * n])
                .max()
                .unwrap();
            let (mut post_e, mut post_r) = (0, 0);
            for mut st in post {
                post_e = post_e.max(st.extent(Space::E));
                post_r = post_r.max(st.extent(Space::R));
            }
            let what = format!("n = {n}, elem = {elem}");
            let (start, end) = p.lt_room;
            assert!(post_e <= p.post_e && p.post_e > 0, "{what}: Q1's E");
            assert!(post_r <= p.r_elems - p.post_base, "{what}: Q1's R");
            assert!(early * elem <= start && p.post_e * elem <= start, "{what}");
            assert!(end == start.max(p.post_base * elem), "{what}");
            // (at 8192 the room holds cuBLASLt's whole budget; the parts in R start aligned)
            if n == 8192 {
                assert!(end - start >= LT_MAX_WORKSPACE, "{what}: {start} .. {end}");
            }
            assert_eq!((p.e_elems * elem) % PART_ALIGN, 0, "{what}");
            assert!(p.post_base <= p.z_off && p.e_elems == p.band.layout().e_elems);
        }
    }

    #[test]
    fn f1_two_stage_host() {
        all(&Device::host());
    }

    #[test]
    #[ignore = "needs a CUDA GPU; run with --include-ignored on a GPU machine"]
    fn f1_two_stage_cuda() {
        all(&Device::cuda(0).unwrap());
    }

    /// Stage 1's panels in pairs wherever two can pair (`pair_rows` 0): the second panel's
    /// `X` corrected for the first's pending update, one update of rank `4 kd` for both;
    /// band 16 (n ≤ 256: two pairs, then two single panels) and 32 (300: three pairs, three
    /// singles), both triangles, with and without vectors.
    fn pairs(dev: &Device) {
        super::probe::PAIR_ROWS.with(|r| r.set(Some(0)));
        let plan = |n: usize| {
            TwoStageShape {
                n,
                kd: band_width(n, false, true),
                elem: 8,
                real: 8,
                complex: false,
                vectors: true,
                upper: false,
                sms: 132,
                cholqr: false,
                infos: 0,
            }
            .plan()
        };
        assert_eq!(super::super::band::pair_count(&plan(100).band), 2);
        assert_eq!(super::super::band::pair_count(&plan(300).band), 3);
        for (k, &n) in [100usize, 300].iter().enumerate() {
            for (j, &(upper, vectors)) in [(false, true), (true, false)].iter().enumerate() {
                let seed = (90 + 4 * k + j) as u64;
                check::<f64>(dev, n, (upper, vectors), 1.0, seed);
                check::<Complex64>(dev, n, (!upper, vectors), 1.0, seed + 2);
            }
        }
        super::probe::PAIR_ROWS.with(|r| r.set(None));
    }

    #[test]
    fn f1_two_stage_pairs_host() {
        pairs(&Device::host());
    }

    #[test]
    #[ignore = "needs a CUDA GPU; run with --include-ignored on a GPU machine"]
    fn f1_two_stage_pairs_cuda() {
        pairs(&Device::cuda(0).unwrap());
    }
}

#[cfg(test)]
pub(crate) mod probe {
    //! Development timing of the whole two-stage `syevd` on a GPU
    //! (`GPUBLAS_PROFILE_STAGES=1`, filter `probe`; with `GPUBLAS_PROFILE_STEPS` the executor
    //! prints its time per step kind); it asserts nothing about speed.

    use super::*;
    use crate::Device;
    use std::time::Instant;

    thread_local! {
        /// The band width `band_width` answers instead of its own (`GPUBLAS_PROBE_KD`).
        pub(crate) static BAND_WIDTH: std::cell::Cell<Option<usize>> =
            const { std::cell::Cell::new(None) };
        /// The blocks of stage 1's panel kernel instead of the QR plan's
        /// (`GPUBLAS_PROBE_PANEL_GRID`).
        pub(crate) static PANEL_GRID: std::cell::Cell<Option<usize>> =
            const { std::cell::Cell::new(None) };
        /// Stage 1's `pair_rows` (`GPUBLAS_PROBE_PAIR_ROWS` for the probe; the pairs' tests).
        pub(crate) static PAIR_ROWS: std::cell::Cell<Option<usize>> =
            const { std::cell::Cell::new(None) };
    }

    /// Times `syevd` on `T` at each order, band width or panel grid (none: the library's) and
    /// job.
    fn time_syevd<T: Scalar>(
        dev: &Device,
        orders: &[usize],
        kds: &[(Option<usize>, Option<usize>)],
    ) {
        let mut h = Handle::new(dev).unwrap();
        for &n in orders {
            let host: Vec<T> = (0..n * n)
                .map(|x| T::from_real(T::Real::from_f64(((x * 7919) % 1000) as f64 / 1000.0 - 0.5)))
                .collect();
            let mut a = dev.upload(&host).unwrap();
            let mut w = dev.upload(&vec![T::Real::from_f64(0.0); n]).unwrap();
            for &(kd, grid) in kds {
                BAND_WIDTH.with(|b| b.set(kd));
                PANEL_GRID.with(|g| g.set(grid));
                for evect in [Evect::Original, Evect::None] {
                    for rep in 0..2 {
                        a.copy_from_host(&host).unwrap();
                        h.stream().synchronize().unwrap();
                        let t0 = Instant::now();
                        let mut info = [0i32];
                        let st = crate::solver::syevd(
                            &mut h,
                            evect,
                            Uplo::Lower,
                            n,
                            &mut a,
                            n,
                            &mut w,
                            Results::Host(&mut info),
                        )
                        .unwrap();
                        h.stream().synchronize().unwrap();
                        if rep == 1 {
                            eprintln!(
                                "probe syevd {} n {n} kd {kd:?} grid {grid:?} {evect:?}: {:.2} ms ({st:?}, info {})",
                                std::any::type_name::<T>(),
                                t0.elapsed().as_secs_f64() * 1e3,
                                info[0]
                            );
                        }
                    }
                }
            }
            BAND_WIDTH.with(|b| b.set(None));
            PANEL_GRID.with(|g| g.set(None));
        }
    }

    #[test]
    #[ignore = "a development timing probe for a GPU; set GPUBLAS_PROFILE_STAGES"]
    fn probe_syevd_cuda() {
        if std::env::var_os("GPUBLAS_PROFILE_STAGES").is_none() {
            return;
        }
        // GPUBLAS_PROBE_KD=16,32 times those band widths too, GPUBLAS_PROBE_PANEL_GRID=1,4
        // those panel grids; GPUBLAS_PROBE_N=8192 only those orders; GPUBLAS_PROBE_COMPLEX adds
        // Complex64.
        let list = |var: &str| -> Vec<usize> {
            std::env::var(var)
                .map(|l| l.split(',').filter_map(|k| k.trim().parse().ok()).collect())
                .unwrap_or_default()
        };
        let mut kds = vec![(None, None)];
        kds.extend(
            list("GPUBLAS_PROBE_KD")
                .into_iter()
                .map(|k| (Some(k), None)),
        );
        kds.extend(
            list("GPUBLAS_PROBE_PANEL_GRID")
                .into_iter()
                .map(|g| (None, Some(g))),
        );
        if let Some(rows) = list("GPUBLAS_PROBE_PAIR_ROWS").first() {
            PAIR_ROWS.with(|r| r.set(Some(*rows)));
        }
        let mut orders = list("GPUBLAS_PROBE_N");
        if orders.is_empty() {
            orders = vec![4096, 8192];
        }
        let dev = Device::cuda(0).unwrap();
        time_syevd::<f64>(&dev, &orders, &kds);
        if std::env::var_os("GPUBLAS_PROBE_COMPLEX").is_some() {
            time_syevd::<crate::Complex64>(&dev, &orders, &kds);
        }
    }
}
