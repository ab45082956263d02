//! The executor's CUDA runner: a program's products through cuBLASLt with the workspace the
//! handle leases, its block operations with the kernels of `kernels/blas3.cu`, a family's
//! steps through its `FamilySteps`, on the handle's stream and its side lane.

use super::program::{Fill, Space, Step, INV_NB, K, M, TRSL_MAX};
use super::workspace::{BlockWorkspace, SLOTS};
use super::{FamilySteps, Layout, Operands, ScalarArg};
use crate::common::operand::Batch;
use crate::device::lt::{Compute, Dt, Lt, ScalarPtr, Shape};
use crate::device::{param, Element, Stream};
use crate::kernels::L3;
use crate::memory::address;
use crate::{Coef, Error, Handle, Op, Scalar, WorkspaceSlice};

/// Threads per block of the block-operation kernels.
const THREADS: u32 = 256;
/// Warps of a `b3_trsl` block, and the columns it solves (`TRSL_WARPS` in blas3.cu).
const TRSL_WARPS: u64 = 8;

/// Blocks of a matrix: `base`, its leading dimension `ld`, blocks `bs` elements apart, batch
/// entries `es` elements apart. Mirrors `MatrixBlocks` in blas3.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct MatrixBlocks {
    base: u64,
    ld: i64,
    bs: i64,
    es: i64,
}

/// One launch of a block operation (expand, tri, scale, copy, trinv, trsv) from `src` to `dst`.
/// Mirrors `BlockOp` in blas3.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct BlockOp {
    src: MatrixBlocks,
    dst: MatrixBlocks,
    beta_p: u64,
    beta_s: i64,
    br: f64,
    bi: f64,
    m: i64,
    n: i64,
    count: i32,
    ne: i32,
    op: i32,
    fill: i32,
    lower: i32,
    herm: i32,
    trans: i32,
    left: i32,
}

/// The `scalars` kernel's arguments: host or device alpha and beta into per-entry slots.
/// Mirrors `ScalarSlotsOp` in blas3.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct ScalarSlotsOp {
    slots: u64,
    alpha_p: u64,
    beta_p: u64,
    alpha_s: i64,
    beta_s: i64,
    ar: f64,
    ai: f64,
    br: f64,
    bi: f64,
    alpha_real: i32,
    beta_real: i32,
    ne: i32,
    pad: i32,
}

/// On a CUDA handle, takes the handle's GEMM engine into `slot` for the call, unless the slot
/// holds it already (`give_back` returns it); the host has none.
pub(crate) fn take_engine(h: &mut Handle, slot: &mut Option<Lt>) -> Result<(), Error> {
    if slot.is_none() && h.device().backend() == crate::device::Backend::Cuda {
        *slot = Some(match h.lt.take() {
            Some(lt) if lt.is_for(h.device()) => lt,
            _ => Lt::new(h.device())?,
        });
    }
    Ok(())
}

/// Returns the engine a call took to its handle.
pub(crate) fn give_back(h: &mut Handle, lt: Option<Lt>) {
    if lt.is_some() {
        h.lt = lt;
    }
}

/// cuBLASLt's workspace is handed out in whole chunks of this many bytes.
const ENGINE_CHUNK: usize = 256;

/// The bytes of a fixed workspace of `cap` bytes left for cuBLASLt beside a plan's own `own`
/// bytes, in whole chunks, at most `limit`; `None` when the own parts do not fit.
pub(crate) fn engine_room(cap: usize, own: usize, limit: usize) -> Option<usize> {
    let room = cap.checked_sub(own)?;
    Some((room / ENGINE_CHUNK * ENGINE_CHUNK).min(limit))
}

fn dt<T: Scalar>() -> (Dt, Compute) {
    match T::TAG {
        "s" => (Dt::F32, Compute::F32),
        "d" => (Dt::F64, Compute::F64),
        "c" => (Dt::C32, Compute::F32),
        _ => (Dt::C64, Compute::F64),
    }
}

/// Largest power of two (at most 256) dividing every value.
pub(crate) fn align_of(vals: &[u64]) -> u32 {
    let mut a = 256u64;
    for &v in vals {
        if v != 0 {
            a = a.min(1 << v.trailing_zeros().min(8));
        }
    }
    a as u32
}

/// Where each space of the current entry chunk starts (device address) and how far apart
/// entries are (elements).
#[derive(Clone, Copy)]
pub(crate) struct Bases {
    a: (u64, i64),
    b: (u64, i64),
    pub(crate) c: (u64, i64),
    e: (u64, i64),
    r: (u64, i64),
    /// Workspace sub-buffers are aligned to at least this.
    ws_align: u64,
}

impl Bases {
    pub(crate) fn of(&self, sp: Space) -> (u64, i64) {
        match sp {
            Space::A => self.a,
            Space::B => self.b,
            Space::C => self.c,
            Space::E => self.e,
            Space::R => self.r,
        }
    }

    fn base_align(&self, sp: Space) -> u64 {
        match sp {
            Space::E | Space::R => self.ws_align,
            // A buffer gpublas allocated starts 256-byte aligned; one over foreign memory or a
            // view inside another (a distributed matrix's tile) may start anywhere aligned for
            // its element. Unknown (0: a size query, a list) counts as allocated.
            _ => match self.of(sp).0 {
                0 => 256,
                a => 1 << a.trailing_zeros().min(8),
            },
        }
    }
}

/// How a product step runs over blocks and entries.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// One batched call over the entries (one block).
    Entries,
    /// One batched call over the blocks, per entry.
    Blocks,
    /// One batched call over the entries, per block.
    BlocksOuter,
}

impl Mode {
    /// Whether the batch runs over entries (else over blocks), the batch count, how many such
    /// calls, and whether the calls walk blocks (else entries).
    fn calls(self, count: usize, ne: usize) -> (bool, usize, usize, bool) {
        match self {
            Mode::Entries => (true, ne, 1, true),
            Mode::Blocks => (false, count, ne, false),
            Mode::BlocksOuter => (true, ne, count, true),
        }
    }
}

fn mode(count: usize, ne: usize, uniform: bool) -> Mode {
    if count == 1 && uniform {
        Mode::Entries
    } else if ne == 1 || !uniform || count >= ne {
        Mode::Blocks
    } else {
        Mode::BlocksOuter
    }
}

/// The cuBLASLt shape of one call of a product step (batch over blocks or entries).
#[allow(clippy::too_many_arguments)]
fn shape<T: Scalar, F>(
    st: &Step<F>,
    bases: &Bases,
    by_entries: bool,
    batch: usize,
    device_scalars: bool,
    limit: usize,
) -> Option<Shape> {
    let Step::Gemm {
        ta,
        tb,
        m,
        n,
        k,
        a,
        b,
        c,
        ..
    } = *st
    else {
        return None;
    };
    let (d, compute) = dt::<T>();
    let elem = std::mem::size_of::<T>() as u64;
    let stride = |x: M| {
        if by_entries {
            bases.of(x.sp).1
        } else {
            x.bs as i64
        }
    };
    // Every address a call of this shape may get: other entries of a strided batch too.
    let al = |x: M| {
        let es = bases.of(x.sp).1.unsigned_abs();
        let mut v = vec![bases.base_align(x.sp), x.off as u64 * elem, es * elem];
        if batch > 1 {
            v.push(stride(x) as u64 * elem);
        }
        align_of(&v)
    };
    Some(Shape {
        ab: d,
        c: d,
        scale: d,
        compute,
        ta,
        tb,
        m,
        n,
        k,
        lda: a.ld,
        ldb: b.ld,
        ldc: c.ld,
        batch,
        sa: if batch > 1 { stride(a) } else { 0 },
        sb: if batch > 1 { stride(b) } else { 0 },
        sc: if batch > 1 { stride(c) } else { 0 },
        align: [al(a), al(b), al(c)],
        device_scalars,
        limit,
    })
}

/// A product with few output tiles and a long `k`, split along `k`: cuBLASLt runs such a
/// product on a few multiprocessors, each walking all of `k` (K = 100,000 with a 64 × 192
/// output ran at about 1.8 TFLOP/s on the H200). The first `parts` chunks of `kc` go into
/// partial products at the start of the engine's slice (`part` elements apart, as one
/// strided batch); the rest of `k` (at least one) goes straight into C with the step's beta;
/// then `b3_sumk` adds the partials to C in a fixed order. Only single products on the main
/// lane (the ones given the engine's slice) split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SplitK {
    pub parts: usize,
    pub kc: usize,
    pub part: usize,
}

/// The least depth of a chunk of a split product.
const SPLIT_DEPTH: usize = 1024;
/// ... and of one whose output is at most `SMALL_TILES` 64 × 64 tiles: such a product is one
/// or two multiprocessors walking `k` (the eigensolver's 32 × 32 × 8160 `VTᴴ X` took 69 µs
/// split in seven on the H200), and its chunks cost little each.
const SPLIT_DEPTH_SMALL: usize = 256;
const SMALL_TILES: usize = 2;
/// Most pieces a product splits into.
const SPLIT_MAX: usize = 32;

impl SplitK {
    /// The split of an `m × n × k` product of `elem`-byte elements on `sms` multiprocessors
    /// with `room` bytes of the engine's slice, or `None` where it does not pay: an output of
    /// more than half as many 64 × 64 tiles as multiprocessors, chunks under `SPLIT_DEPTH` (or
    /// `SPLIT_DEPTH_SMALL`), fewer than three pieces (one chunk runs before the rest, not beside
    /// it: two products in a row and a sum for one), or no room for two partials. The split
    /// depends on `room`: the size query's (the engine's
    /// budget) may split more than a run in the part it sized; a run never splits beyond its
    /// part (`bytes() <= room`, the products get the rest).
    pub(crate) fn of(
        m: usize,
        n: usize,
        k: usize,
        elem: usize,
        sms: usize,
        room: usize,
    ) -> Option<SplitK> {
        let tiles = m.div_ceil(64) * n.div_ceil(64);
        if m == 0 || n == 0 || 2 * tiles > sms {
            return None;
        }
        let part = (m * n).div_ceil(64) * 64;
        let by_room = room / (part * elem).max(1) + 1;
        let depth = if tiles <= SMALL_TILES {
            SPLIT_DEPTH_SMALL
        } else {
            SPLIT_DEPTH
        };
        let pieces = (sms / tiles).min(k / depth).min(SPLIT_MAX).min(by_room);
        if pieces < 3 {
            return None;
        }
        // Chunks of a multiple of 32 (aligned operands), the rest (at least 1) at most one.
        let kc = k.div_ceil(pieces).div_ceil(32) * 32;
        let parts = (pieces - 1).min((k - 1) / kc);
        // (one chunk beside the rest would run after it on the same stream: two products in
        // a row and a sum for one)
        (parts >= 2).then_some(SplitK { parts, kc, part })
    }

    /// Bytes of the partials (where the products' own engine workspace starts).
    pub(crate) fn bytes(&self, elem: usize) -> usize {
        self.parts * self.part * elem
    }

    /// Elements from one chunk of A and of B to the next.
    fn strides(&self, sh: &Shape) -> (usize, usize) {
        let sa = if sh.ta == Op::N {
            self.kc * sh.lda
        } else {
            self.kc
        };
        let sb = if sh.tb == Op::N {
            self.kc
        } else {
            self.kc * sh.ldb
        };
        (sa, sb)
    }

    /// The strided batch of the first `parts` chunks (into the partials) and the product of the
    /// rest (into C), from the whole product's shape; `lim`: their engine workspace, `base`:
    /// the address (or an alignment) of the partials.
    fn shapes(&self, sh: &Shape, elem: usize, lim: usize, base: u64) -> (Shape, Shape) {
        let (sa, sb) = self.strides(sh);
        let (sa, sb) = (sa as i64, sb as i64);
        let batch = self.parts;
        let e = elem as u64;
        let chunks = Shape {
            k: self.kc,
            ldc: sh.m,
            batch,
            sa: if batch > 1 { sa } else { 0 },
            sb: if batch > 1 { sb } else { 0 },
            sc: if batch > 1 { self.part as i64 } else { 0 },
            align: [
                sh.align[0].min(align_of(&[sa as u64 * e])),
                sh.align[1].min(align_of(&[sb as u64 * e])),
                align_of(&[base, (self.part * elem) as u64]),
            ],
            limit: lim,
            ..*sh
        };
        let q = batch as u64;
        let rest = Shape {
            k: sh.k - batch * self.kc,
            align: [
                sh.align[0].min(align_of(&[q * sa as u64 * e])),
                sh.align[1].min(align_of(&[q * sb as u64 * e])),
                sh.align[2],
            ],
            limit: lim,
            ..*sh
        };
        (chunks, rest)
    }
}

fn entry_stride<T: Element>(b: &Batch<'_, T>) -> i64 {
    match b {
        Batch::Strided { stride, .. } => *stride as i64,
        _ => 0,
    }
}

/// cuBLASLt's workspace need of a program: the most any of its products' algorithms takes,
/// each chosen with at most `limit` bytes.
pub(crate) fn lt_need<T: Scalar, F>(
    lt: &mut Lt,
    ops: &Operands<'_, '_, T>,
    layout: &Layout,
    steps: &[Step<F>],
    limit: usize,
) -> Result<usize, Error> {
    let bases = Bases {
        a: (0, entry_stride(&ops.a)),
        b: (0, ops.b.map_or(0, |b| entry_stride(&b))),
        c: (0, entry_stride(&ops.c.view())),
        e: (0, layout.e_elems as i64),
        r: (0, layout.r_elems as i64),
        ws_align: crate::memory::CHUNK as u64,
    };
    let uniform = !ops.c.view().is_list() && !ops.per_entry_scalars();
    let ne = layout.entries.min(ops.c.count()).max(1);
    let dev_scal = ops.device_scalars();
    let mut need = 0;
    let elem = std::mem::size_of::<T>();
    let sms = lt.multiprocessors();
    for st in steps {
        if let Step::Gemm { count, .. } = *st {
            let (by_entries, batch, outer, _) = mode(count, ne, uniform).calls(count, ne);
            if let Some(s) = shape::<T, F>(st, &bases, by_entries, batch, dev_scal, limit) {
                let split = (outer == 1 && batch == 1)
                    .then(|| SplitK::of(s.m, s.n, s.k, elem, sms, limit))
                    .flatten();
                need = need.max(match split {
                    Some(sp) => {
                        let (chunks, rest) =
                            sp.shapes(&s, elem, limit - sp.bytes(elem), bases.ws_align);
                        sp.bytes(elem) + lt.prepare(&chunks)?.max(lt.prepare(&rest)?)
                    }
                    None => lt.prepare(&s)?,
                });
            }
        }
    }
    Ok(need)
}

/// Host scalars, 16-byte aligned: cuBLASLt may load a complex scalar in one 16-byte access.
#[repr(C, align(16))]
pub(crate) struct Aligned<X>(pub X);

/// Host bytes of a scalar value.
fn host_bytes<T: Scalar>(v: &T) -> &[u8] {
    bytemuck::bytes_of(v)
}

fn coef_parts<T: Scalar>(s: &ScalarArg<'_, T>) -> (u64, i64, i32, f64, f64) {
    fn dev<X: Element>(c: &Coef<'_, X>) -> Option<(u64, i64)> {
        c.device()
            .map(|(b, per)| (b.device_ptr().unwrap_or(0), per as i64))
    }
    match s {
        ScalarArg::Full(c) => match dev(c) {
            Some((p, st)) => (p, st, 0, 0.0, 0.0),
            None => {
                let (r, i) = c.host().map(|v| v.parts()).unwrap_or((0.0, 0.0));
                (0, 0, 0, r, i)
            }
        },
        ScalarArg::Real(c) => match dev(c) {
            Some((p, st)) => (p, st, 1, 0.0, 0.0),
            None => {
                let (r, i) = c
                    .host()
                    .map(crate::common::elem::Blas1Elem::parts)
                    .unwrap_or((0.0, 0.0));
                (0, 0, 1, r, i)
            }
        },
    }
}

/// Runs `steps` on the handle's stream (and side lane) for the entries `ops.range`, in the
/// workspace parts `ws` of a lease the caller holds throughout; `family` runs the family's own
/// steps. With `GPUBLAS_PROFILE_STEPS` set, every step runs on the main lane and is timed
/// (waiting on the stream after each), and the times per step kind are printed.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run<T: Scalar, F: FamilySteps>(
    h: &Handle,
    ws: &BlockWorkspace<Option<WorkspaceSlice>>,
    lt: &mut Lt,
    ops: &Operands<'_, '_, T>,
    layout: &Layout,
    steps: &[Step<F::Step>],
    family: &F,
    name: &str,
) -> Result<(), Error> {
    let stream = h.stream();
    stream.bind()?;
    let mut profile = std::env::var_os("GPUBLAS_PROFILE_STEPS").map(|_| Profile::default());
    // GPUBLAS_PROFILE_HOST: the host's time to issue each step kind (nothing synchronised).
    let mut host_profile = std::env::var_os("GPUBLAS_PROFILE_HOST").map(|_| Profile::default());
    // GPUBLAS_TIMELINE: every step's start and end on its lane, by events (nothing
    // synchronised until the program is issued), printed as `TL lane kind start end` in µs.
    let mut timeline = std::env::var_os("GPUBLAS_TIMELINE").map(|_| Vec::new());
    let t0 = match timeline {
        Some(_) => Some(crate::device::Stamp::on(stream)?),
        None => None,
    };
    let run_start = std::time::Instant::now();
    let mut issued_256: Option<std::time::Duration> = None;
    let side = if profile.is_none() && steps.contains(&Step::Fork) {
        h.side_lane()?
    } else {
        None
    };
    let aux = if profile.is_none() && steps.contains(&Step::ForkAux) {
        h.aux_lane()?
    } else {
        None
    };
    // The stream of the main or side lane (the main one where there is no side lane).
    let base = |l: Lane| match (l, side) {
        (Lane::Side, Some(x)) => x.stream(),
        _ => stream,
    };

    let elem = std::mem::size_of::<T>();
    let sms = lt.multiprocessors();
    let (lt_ptr, slots, e_ptr, r_ptr) = (
        address(ws.lt),
        address(ws.slots),
        address(ws.e_blocks),
        address(ws.r_results),
    );
    let lt_len = ws.lt.map(|s| s.len()).unwrap_or(0);
    let ws_align = [slots, e_ptr, r_ptr]
        .iter()
        .filter(|&&p| p != 0)
        .map(|&p| 1u64 << p.trailing_zeros().min(8))
        .min()
        .unwrap_or(256);
    let (pe, pr) = (layout.e_elems, layout.r_elems);
    let list = ops.c.view().is_list();
    let uniform = !list && !ops.per_entry_scalars();
    let dev_scal = ops.device_scalars();
    let host_vals = Aligned([
        ops.alpha.host().unwrap_or(T::zero()),
        ops.alpha.host().unwrap_or(T::zero()).conj(),
        ops.beta.host().unwrap_or(T::zero()),
        T::one(),
        T::zero(),
        T::zero() - T::one(),
    ]);
    let host_vals = &host_vals.0;
    let step_n = if list { 1 } else { layout.entries.max(1) };
    let (mut e0, end) = ops.range;
    while e0 < end {
        let ne = step_n.min(end - e0);
        // Scalars of this chunk into the slots.
        if dev_scal {
            fill_slots(h, slots, &ops.alpha, &ops.beta, e0, ne)?;
        }
        let addr = |b: &Batch<'_, T>| {
            if list {
                (b.entry_addr(e0), 0)
            } else {
                (b.entry_addr(e0), entry_stride(b))
            }
        };
        let cview = ops.c.view();
        let bases = Bases {
            a: addr(&ops.a),
            b: ops.b.map_or((0, 0), |b| addr(&b)),
            c: addr(&cview),
            e: (e_ptr, pe as i64),
            r: (r_ptr, pr as i64),
            ws_align,
        };
        // The lane the steps go to: the handle's stream, the side lane between a Fork and its
        // Back, the aux lane between a ForkAux and its BackAux (`aux_from`: the lane it left).
        // `open` joins the lanes back if a step fails while they may still run (the workspace
        // is released in the handle stream's order).
        let (mut lane, mut aux_from) = (Lane::Main, Lane::Main);
        let mut open = Unjoined {
            side,
            aux,
            main: stream,
            open: false,
            aux_into: None,
        };
        for st in steps {
            let s = match (lane, aux) {
                (Lane::Aux, Some(x)) => x.stream(),
                (Lane::Aux, None) => base(aux_from),
                (l, _) => base(l),
            };
            // Off the main lane products get no engine workspace (the main lane's use it).
            let off_main = !std::ptr::eq(s, stream);
            let timer = match profile {
                Some(_) => Some(crate::Timer::start(stream)?),
                None => None,
            };
            let began = match (&timeline, st.is_lane_change()) {
                (Some(_), false) => Some(crate::device::Stamp::on(s)?),
                _ => None,
            };
            // Read the clock only when profiling: this loop is every program's hot path.
            let issued = host_profile.as_ref().map(|_| std::time::Instant::now());
            match *st {
                Step::Fork => {
                    if let Some(l) = side {
                        l.fork(stream)?;
                    }
                    (lane, open.open) = (Lane::Side, true);
                }
                Step::Back => lane = Lane::Main,
                Step::Join => {
                    if let Some(l) = side {
                        l.join(stream)?;
                    }
                    (lane, open.open) = (Lane::Main, false);
                }
                Step::ForkAux => {
                    aux_from = lane;
                    if let Some(x) = aux {
                        x.fork(base(aux_from))?;
                    }
                    (lane, open.aux_into) = (Lane::Aux, Some(base(aux_from)));
                }
                Step::BackAux => lane = aux_from,
                Step::JoinAux => {
                    if let Some(x) = aux {
                        x.join(base(aux_from))?;
                    }
                    (lane, open.aux_into) = (aux_from, None);
                }
                Step::Gemm {
                    a,
                    b,
                    c: cm,
                    alpha,
                    beta,
                    count,
                    ..
                } => {
                    let (by_entries, bn, outer, inner_is_entry) =
                        mode(count, ne, uniform).calls(count, ne);
                    // On the side lane no engine workspace (the main lane's products use it
                    // meanwhile).
                    let lim = if off_main { 0 } else { lt_len };
                    let Some(sh) = shape::<T, F::Step>(st, &bases, by_entries, bn, dev_scal, lim)
                    else {
                        continue;
                    };
                    let split = (outer == 1 && bn == 1)
                        .then(|| SplitK::of(sh.m, sh.n, sh.k, elem, sms, lim))
                        .flatten();
                    for o in 0..outer {
                        // o walks entries (Blocks) or blocks (BlocksOuter).
                        let (ent, blk) = if inner_is_entry { (0, o) } else { (o, 0) };
                        let at = |x: M| {
                            let (base, es) = bases.of(x.sp);
                            base + ((x.off + blk * x.bs) as u64 + ent as u64 * es as u64)
                                * elem as u64
                        };
                        let sc = |k: K| {
                            if dev_scal {
                                ScalarPtr::Device(slots + ((ent * SLOTS + k.slot()) * elem) as u64)
                            } else {
                                ScalarPtr::Host(host_bytes(&host_vals[k.slot()]))
                            }
                        };
                        let Some(sp) = split else {
                            let (wp, wl) = if off_main { (0, 0) } else { (lt_ptr, lt_len) };
                            lt.matmul(&sh, s, sc(alpha), at(a), at(b), sc(beta), at(cm), wp, wl)?;
                            continue;
                        };
                        // The partials at the start of the slice, the products' own workspace
                        // after them.
                        let used = sp.bytes(elem);
                        let (chunks, rest) = sp.shapes(&sh, elem, lt_len - used, lt_ptr);
                        let (wp, wl) = (lt_ptr + used as u64, lt_len - used);
                        let (ea, eb) = (at(a), at(b));
                        lt.matmul(&chunks, s, sc(alpha), ea, eb, sc(K::Zero), lt_ptr, wp, wl)?;
                        let (sa, sb) = sp.strides(&sh);
                        let q = (sp.parts * elem) as u64;
                        let (ra, rb) = (ea + sa as u64 * q, eb + sb as u64 * q);
                        lt.matmul(&rest, s, sc(alpha), ra, rb, sc(beta), at(cm), wp, wl)?;
                        launch_sumk::<T>(s, &sp, (sh.m, sh.n), lt_ptr, (at(cm), cm.ld))?;
                    }
                }
                Step::Family(f) => family.launch::<T>(s, &f, &bases, (e0, ne), off_main)?,
                _ => launch_blocks::<T, F::Step>(s, st, &bases, ne, dev_scal, slots, host_vals)?,
            }
            if let (Some(tl), Some(b)) = (timeline.as_mut(), began) {
                let l = match lane {
                    Lane::Main => 'M',
                    Lane::Side => 'S',
                    Lane::Aux => 'A',
                };
                tl.push((l, step_label(st), b, crate::device::Stamp::on(s)?));
            }
            if let (Some(p), Some(t)) = (profile.as_mut(), timer) {
                p.add(st, t.stop()?);
            }
            if let (Some(p), Some(issued)) = (host_profile.as_mut(), issued) {
                p.add(st, issued.elapsed().as_secs_f64());
                // Where the first 256 steps end: launches issued much faster early than late
                // mean a full launch queue, not the host, set the pace.
                if issued_256.is_none() && p.count() >= 256 {
                    issued_256 = Some(run_start.elapsed());
                }
            }
        }
        e0 += ne;
    }
    if let (Some(tl), Some(t0)) = (timeline, t0) {
        let end = crate::device::Stamp::on(stream)?;
        let total = end.ms_since(&t0)?;
        let mut out = format!(
            "TL begin {name} steps={} total_us={:.1}\n",
            steps.len(),
            total * 1e3
        );
        for (l, k, b, e) in &tl {
            let (b, e) = (b.ms_since(&t0)? * 1e3, e.ms_since(&t0)? * 1e3);
            out += &format!("TL {l} {k} {b:.1} {e:.1}\n");
        }
        eprintln!("{out}TL end");
    }
    if let Some(p) = profile {
        p.print("GPUBLAS_PROFILE_STEPS", name, steps.len());
    }
    if let Some(p) = host_profile {
        let all = run_start.elapsed().as_secs_f64() * 1e3;
        let early = issued_256.map_or(0.0, |d| d.as_secs_f64() * 1e3);
        p.print(
            &format!("GPUBLAS_PROFILE_HOST (run {all:.3} ms, first 256 steps {early:.3} ms)"),
            name,
            steps.len(),
        );
    }
    Ok(())
}

/// A step's kind and, for products, its shape (`GPUBLAS_TIMELINE`).
fn step_label<F: std::fmt::Debug>(st: &Step<F>) -> String {
    if let Step::Gemm { m, n, k, count, .. } = st {
        return format!("Gemm:{m}x{n}x{k}x{count}");
    }
    step_kind(st)
}

/// A step's kind: its variant's name, and for a family's step wrapping another family's, the
/// inner variant too (`Qr.CqGram`).
fn step_kind<F: std::fmt::Debug>(st: &Step<F>) -> String {
    let text = format!("{st:?}");
    let text = text.strip_prefix("Family(").unwrap_or(&text);
    let name = |t: &str| {
        t.split([' ', '{', '(', ')', ','])
            .next()
            .unwrap_or("")
            .to_string()
    };
    let outer = name(text);
    match text[outer.len()..].strip_prefix('(').map(name) {
        Some(inner) if inner.starts_with(char::is_uppercase) => format!("{outer}.{inner}"),
        _ => outer,
    }
}

/// Time per step kind of the programs a call ran (`GPUBLAS_PROFILE_STEPS`: on the device, each
/// step synchronised; `GPUBLAS_PROFILE_HOST`: the host's time to issue them).
#[derive(Default)]
struct Profile {
    kinds: std::collections::BTreeMap<String, (f64, usize)>,
}

impl Profile {
    fn add<F: std::fmt::Debug>(&mut self, st: &Step<F>, seconds: f64) {
        // The kind is the step's name; a family's step is named by its own variant.
        let e = self.kinds.entry(step_kind(st)).or_default();
        e.0 += seconds;
        e.1 += 1;
    }

    /// Steps recorded so far.
    fn count(&self) -> usize {
        self.kinds.values().map(|k| k.1).sum()
    }

    fn print(&self, what: &str, name: &str, steps: usize) {
        let parts: Vec<String> = self
            .kinds
            .iter()
            .map(|(k, (t, n))| format!("{k} {:.3} ms / {n}", t * 1e3))
            .collect();
        // Asked for by name: printed, not logged (no subscriber is needed to see it).
        eprintln!("{what} {name} steps={steps}: {}", parts.join(", "));
    }
}

/// A program's lane: the handle's stream, the side lane or the aux lane.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lane {
    Main,
    Side,
    Aux,
}

/// Joins the aux lane back into the lane it left and the side lane into the main one when
/// dropped while open (a failed step).
struct Unjoined<'a> {
    side: Option<&'a crate::device::SideLane>,
    aux: Option<&'a crate::device::SideLane>,
    main: &'a Stream,
    open: bool,
    aux_into: Option<&'a Stream>,
}

impl Drop for Unjoined<'_> {
    fn drop(&mut self) {
        if let (Some(into), Some(x)) = (self.aux_into, self.aux) {
            let _ = x.join(into);
        }
        if let (true, Some(l)) = (self.open, self.side) {
            // The step's own error is the one reported.
            let _ = l.join(self.main);
        }
    }
}

/// Writes `[alpha, conj(alpha), beta, 1, 0]` of entries `e0 .. e0 + ne` into `slots` (from
/// device scalars, real or of the element type, and host values).
pub(crate) fn fill_slots<T: Scalar>(
    h: &Handle,
    slots: u64,
    alpha: &ScalarArg<'_, T>,
    beta: &ScalarArg<'_, T>,
    e0: usize,
    ne: usize,
) -> Result<(), Error> {
    let elem = std::mem::size_of::<T>();
    let (ap, as_, areal, ar, ai) = coef_parts(alpha);
    let (bp, bs_, breal, br, bi) = coef_parts(beta);
    // The first entry's scalar: per-entry device scalars start at entry e0.
    let from = |p: u64, s: i64, real: i32| {
        if p != 0 {
            p + (e0 as u64) * s as u64 * scal_elem(real, elem)
        } else {
            0
        }
    };
    let sj = ScalarSlotsOp {
        slots,
        alpha_p: from(ap, as_, areal),
        beta_p: from(bp, bs_, breal),
        alpha_s: as_,
        beta_s: bs_,
        ar,
        ai,
        br,
        bi,
        alpha_real: areal,
        beta_real: breal,
        ne: ne as i32,
        pad: 0,
    };
    let mut prm = [param(&sj)];
    h.stream().launch(
        &L3,
        &format!("b3_scalars_{}", T::TAG),
        (ne as u32).div_ceil(THREADS).max(1),
        THREADS,
        &mut prm,
    )
}

/// Bytes per element of a device scalar (the real type's for the real scalars).
fn scal_elem(real: i32, elem: usize) -> u64 {
    if real != 0 {
        (elem / 2).max(4) as u64
    } else {
        elem as u64
    }
}

/// `b3_sumk`: C (`m × n` at `c`, leading dimension `ldc`) += the partials of split `sp` at
/// `parts` (one entry).
fn launch_sumk<T: Scalar>(
    s: &Stream,
    sp: &SplitK,
    (m, n): (usize, usize),
    parts: u64,
    (c, ldc): (u64, usize),
) -> Result<(), Error> {
    let j = BlockOp {
        src: MatrixBlocks {
            base: parts,
            ld: m as i64,
            bs: sp.part as i64,
            es: 0,
        },
        dst: MatrixBlocks {
            base: c,
            ld: ldc as i64,
            bs: 0,
            es: 0,
        },
        m: m as i64,
        n: n as i64,
        count: sp.parts as i32,
        ne: 1,
        ..Default::default()
    };
    let grid = (m.div_ceil(32) * n.div_ceil(32)).min(1 << 20) as u32;
    let mut prm = [param(&j)];
    s.launch_with(
        &L3,
        &format!("b3_sumk_{}", T::TAG),
        (grid, 1, 1),
        (THREADS, 0),
        false,
        &mut prm,
    )
}

fn launch_blocks<T: Scalar, F>(
    s: &Stream,
    st: &Step<F>,
    bases: &Bases,
    ne: usize,
    dev_scal: bool,
    slots: u64,
    host_vals: &[T; SLOTS],
) -> Result<(), Error> {
    let elem = std::mem::size_of::<T>() as u64;
    let mx = |x: M| {
        let (base, es) = bases.of(x.sp);
        MatrixBlocks {
            base: base + x.off as u64 * elem,
            ld: x.ld as i64,
            bs: x.bs as i64,
            es,
        }
    };
    let mut j = BlockOp {
        ne: ne as i32,
        count: 1,
        ..Default::default()
    };
    let mut beta_k = None;
    let mut kernel = "b3_blocks";
    match *st {
        Step::Expand {
            fill,
            lower,
            n,
            src,
            dst,
            count,
        } => {
            j.op = 0;
            j.fill = match fill {
                Fill::Sym => 0,
                Fill::Herm => 1,
                Fill::Tri { unit: false } => 2,
                Fill::Tri { unit: true } => 3,
            };
            j.lower = lower as i32;
            (j.m, j.n, j.count) = (n as i64, n as i64, count as i32);
            (j.src, j.dst) = (mx(src), mx(dst));
        }
        Step::Tri {
            lower,
            herm,
            n,
            src,
            dst,
            beta,
            count,
        } => {
            j.op = 1;
            j.lower = lower as i32;
            j.herm = herm as i32;
            (j.m, j.n, j.count) = (n as i64, n as i64, count as i32);
            (j.src, j.dst) = (mx(src), mx(dst));
            beta_k = Some(beta);
        }
        Step::Scale {
            tri,
            herm,
            m,
            n,
            dst,
            beta,
        } => {
            j.op = 2;
            j.lower = match tri {
                None => 2,
                Some(l) => l as i32,
            };
            j.herm = herm as i32;
            (j.m, j.n) = (m as i64, n as i64);
            j.dst = mx(dst);
            j.src = j.dst;
            beta_k = Some(beta);
        }
        Step::Copy { m, n, src, dst } => {
            j.op = 3;
            (j.m, j.n) = (m as i64, n as i64);
            (j.src, j.dst) = (mx(src), mx(dst));
        }
        Step::TriInv {
            lower,
            unit,
            n,
            src,
            dst,
            count,
        } => {
            kernel = "b3_trinv";
            j.lower = lower as i32;
            j.fill = unit as i32;
            (j.m, j.n, j.count) = (n as i64, n as i64, count as i32);
            (j.src, j.dst) = (mx(src), mx(dst));
        }
        Step::TriSolve {
            left,
            lower,
            op,
            unit,
            m,
            n,
            a,
            b,
            alpha,
        } => {
            let na = if left { m } else { n };
            kernel = if na <= INV_NB {
                "b3_trsv"
            } else if left && op == Op::N && na <= TRSL_MAX {
                "b3_trsl"
            } else {
                return Err(Error::Unsupported(format!(
                    "substitution on a triangle of order {na} (left {left}, op {op:?}): at most \
                     {INV_NB}, or {TRSL_MAX} on the left with op N"
                )));
            };
            j.left = left as i32;
            j.lower = lower as i32;
            j.fill = unit as i32;
            j.trans = match op {
                Op::N => 0,
                Op::T => 1,
                Op::C => 2,
            };
            (j.m, j.n) = (m as i64, n as i64);
            (j.src, j.dst) = (mx(a), mx(b));
            beta_k = Some(alpha);
        }
        Step::Gemm { .. }
        | Step::Family(_)
        | Step::Fork
        | Step::Back
        | Step::Join
        | Step::ForkAux
        | Step::BackAux
        | Step::JoinAux => return Ok(()),
    }
    if let Some(k) = beta_k {
        let idx = k.slot();
        if dev_scal {
            j.beta_p = slots + idx as u64 * elem;
            j.beta_s = SLOTS as i64;
        } else {
            (j.br, j.bi) = host_vals[idx].parts();
        }
    }
    let (m, n) = (j.m.max(0) as u64, j.n.max(0) as u64);
    let (total, threads) = match kernel {
        "b3_trinv" => (n.div_ceil(32) * j.count as u64 * ne as u64, 32),
        "b3_trsv" => {
            let nv = if j.left != 0 { n } else { m };
            (nv.div_ceil(32) * ne as u64, 32)
        }
        // A block per TRSL_WARPS columns, per entry.
        "b3_trsl" => (n.div_ceil(TRSL_WARPS) * ne as u64, 32 * TRSL_WARPS as u32),
        _ => (
            m.div_ceil(32) * n.div_ceil(32) * j.count as u64 * ne as u64,
            THREADS,
        ),
    };
    if total == 0 {
        return Ok(());
    }
    let grid = total.min(1 << 20) as u32;
    // b3_trsl keeps the triangle (its stored part, packed) in shared memory.
    let shared = if kernel == "b3_trsl" {
        (m * (m + 1) / 2 * elem) as u32
    } else {
        0
    };
    let mut prm = [param(&j)];
    s.launch_with(
        &L3,
        &format!("{kernel}_{}", T::TAG),
        (grid, 1, 1),
        (threads, shared),
        false,
        &mut prm,
    )
}

#[cfg(test)]
mod tests {
    #[derive(Debug)]
    #[allow(dead_code)]
    enum Outer {
        Qr(Inner),
        Sb2st { n: usize },
    }
    #[derive(Debug)]
    #[allow(dead_code)]
    enum Inner {
        CqGram(usize),
        Panel { rows: usize },
    }

    #[test]
    fn step_kinds_name_family_variants() {
        use super::{step_kind, Step};
        let kinds = [
            step_kind(&Step::Family(Outer::Qr(Inner::CqGram(3)))),
            step_kind(&Step::Family(Outer::Qr(Inner::Panel { rows: 2 }))),
            step_kind(&Step::Family(Outer::Sb2st { n: 4 })),
            step_kind(&Step::<Outer>::Fork),
        ];
        assert_eq!(kinds, ["Qr.CqGram", "Qr.Panel", "Sb2st", "Fork"]);
    }

    use super::*;

    /// Every split covers `k` exactly (chunks of a multiple of 32, at least `SPLIT_DEPTH`
    /// deep, or `SPLIT_DEPTH_SMALL` for the smallest outputs, a rest of at least one), fits its
    /// room, and is refused where the output offers enough tiles or `k` is short.
    #[test]
    fn split_k_covers_k_within_its_room() {
        let mut seen = 0;
        for &(m, n) in &[
            (1, 1),
            (16, 16),
            (64, 192),
            (128, 128),
            (40, 24),
            (257, 129),
        ] {
            for k in (0..200_000).step_by(997) {
                for room in [0, 100_000, 4 << 20, 32 << 20] {
                    let Some(sp) = SplitK::of(m, n, k, 8, 132, room) else {
                        continue;
                    };
                    seen += 1;
                    assert!(sp.parts >= 2 && sp.parts < SPLIT_MAX, "{sp:?}");
                    assert_eq!(sp.kc % 32, 0);
                    let small = m.div_ceil(64) * n.div_ceil(64) <= SMALL_TILES;
                    let depth = if small {
                        SPLIT_DEPTH_SMALL
                    } else {
                        SPLIT_DEPTH
                    };
                    assert!(sp.kc >= depth, "{m}x{n}x{k}: {sp:?}");
                    assert!(sp.parts * sp.kc < k && k - sp.parts * sp.kc <= sp.kc);
                    assert!(sp.part >= m * n && sp.bytes(8) <= room);
                    assert!(2 * m.div_ceil(64) * n.div_ceil(64) <= 132);
                }
            }
        }
        assert!(seen > 1000);
        assert_eq!(SplitK::of(8192, 40, 8192, 8, 132, 4 << 20), None);
        // (stage 1's X = A22 VT at 4096: two pieces would be two products in a row)
        assert_eq!(SplitK::of(3808, 32, 3808, 8, 132, 4 << 20), None);
        assert_eq!(SplitK::of(64, 64, 500, 8, 132, 4 << 20), None);
        assert_eq!(SplitK::of(128, 128, 1500, 8, 132, 4 << 20), None);
        let sp = SplitK::of(32, 32, 8160, 8, 132, 4 << 20).unwrap();
        assert_eq!((sp.parts, sp.kc), (28, 288));
        assert_eq!(SplitK::of(64, 64, 100_000, 8, 132, 0), None);
        let sp = SplitK::of(64, 192, 100_000, 8, 132, 4 << 20).unwrap();
        assert_eq!((sp.parts, sp.kc), (31, 3136));
    }
}
