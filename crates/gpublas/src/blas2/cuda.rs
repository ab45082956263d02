//! The CUDA backend of Level 2: builds the kernels' job descriptions and launches them on the
//! handle's stream (kernels in `kernels/blas2.cu`).

use super::plan::{trsv_nb, Algo, Blas2Workspace, Plan, THREADS};
use super::{Call, Kind, Storage};
use crate::common::operand::Batch;
use crate::device::{param, Element};
use crate::kernels::{LIST_MAX, MV, SV};
use crate::memory::{address, WorkspaceSlice};
use crate::{Coef, Diag, Error, Handle, Op, Scalar, Uplo};

/// Most blocks of the one-block-per-output combine pass (beyond, the plain pass is as good).
const WIDE_PASS_BLOCKS: usize = 1 << 16;

/// Dynamic shared memory of symv's region sweep for `elem`-byte elements (mirrors
/// `SR<T>::SMEM_BYTES` in blas2.cu: three stages of a region's columns, 16 of f32 or 8 of f64
/// and c32, x of the region's columns and their sums).
fn symv_region_smem(elem: usize) -> u32 {
    debug_assert!(
        matches!(elem, 4 | 8),
        "the region sweep has f32, f64 and c32 kernels"
    );
    if elem == 4 {
        51200
    } else {
        53248
    }
}

/// Outputs per block of the region sweep's summing pass (mirrors `symv_regions_sum`).
const SYMV_REGION_SUM_OUTPUTS: usize = 32;
/// Columns per block of `b2_dotlean` and `b2_banddot` (a warp each).
const LEAN_DOT_COLUMNS: usize = THREADS / 32;
/// Most stored rows of a band column `b2_banddot` takes (32 lanes × `BD_STEPS` in blas2.cu).
const BAND_DOT_ROWS: usize = 32 * 8;
/// Threads down a column of `b2_bandsym` (`SB_TR` in blas2.cu): a block covers 16 bytes of
/// rows per thread.
const BAND_SYM_THREADS_PER_COLUMN: usize = 16;

/// Mirrors `Vec` in blas2.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct VecArg {
    base: u64,
    stride: i64,
    inc: i64,
    off0: i64,
}

/// Mirrors `Mat` in blas2.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct MatArg {
    base: u64,
    stride: i64,
    lda: i64,
    kb: i64,
    kind: i32,
    pad: i32,
}

/// Mirrors `Job` in blas2.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Job {
    a: MatArg,
    x: VecArg,
    y: VecArg,
    tab: u64,
    part: u64,
    alpha_p: u64,
    beta_p: u64,
    alpha_s: i64,
    beta_s: i64,
    ar: f64,
    ai: f64,
    br: f64,
    bi: f64,
    m: i64,
    n: i64,
    kl: i64,
    ku: i64,
    plen: i64,
    flags: i32,
    splits: i32,
    tr: i32,
    tc: i32,
    rowtiles: i32,
    colgroups: i32,
    e0: i32,
    nent: i32,
    np: i32,
    nq: i32,
    rb: i32,
    cpg: i32,
}

const F_CONJ: i32 = 1;
const F_UNIT: i32 = 2;
const F_SYM: i32 = 4;
const F_HERM: i32 = 8;
const F_DIRECT: i32 = 16;
const F_LOWER: i32 = 32;
const F_TRANS: i32 = 64;
const F_FWD: i32 = 128;

/// Address and element stride of entry `e0` of a batch operand (0 for lists: the table).
fn base_of<T: Element>(b: &Batch<'_, T>, e0: usize) -> (u64, i64) {
    match b {
        Batch::List(_) => (0, 0),
        Batch::Single(_) => (b.entry_addr(0), 0),
        Batch::Strided { stride, .. } => (b.entry_addr(e0), *stride as i64),
    }
}

fn vec_arg<T: Element>(b: &Batch<'_, T>, e0: usize, len: usize, inc: isize) -> VecArg {
    let (base, stride) = base_of(b, e0);
    VecArg {
        base,
        stride,
        inc: inc as i64,
        off0: if inc < 0 && len > 0 {
            ((len - 1) * inc.unsigned_abs()) as i64
        } else {
            0
        },
    }
}

/// Puts a scalar into the job: a device pointer with its per-entry stride, or the value.
fn coef<T: Scalar>(c: &Coef<'_, T>) -> (u64, i64, f64, f64) {
    match c.device() {
        Some((buf, per)) => (buf.device_ptr().unwrap_or(0), per as i64, 0.0, 0.0),
        None => {
            let (re, im) = c.host().map(|v| v.parts()).unwrap_or((0.0, 0.0));
            (0, 0, re, im)
        }
    }
}

pub(super) fn run<T: Scalar>(
    h: &Handle,
    ws: &Blas2Workspace<Option<WorkspaceSlice>>,
    c: &Call<'_, '_, T>,
    plan: &Plan,
    addrs: &[u64],
) -> Result<(), Error> {
    let stream = h.stream();
    stream.bind()?;
    let shape = c.shape(h);
    let g = shape.geom();
    let tag = T::TAG;
    let elem = std::mem::size_of::<T>();
    let batch = c.a.count();
    let (lx, ly) = c.lens();
    let (m, n) = (c.m as i64, c.n as i64);
    let big = m.max(n) + 1;
    let lower = c.uplo == Uplo::Lower;
    // Which (i, j) exist: j - ku <= i <= j + kl.
    let (kl, ku) = match (c.kind, c.storage) {
        // k >= n (valid, as in reference BLAS) covers the whole matrix or triangle, as `big`
        // does.
        (_, Storage::Band { kl, ku, .. }) => (
            i64::try_from(kl).unwrap_or(big).min(big),
            i64::try_from(ku).unwrap_or(big).min(big),
        ),
        (Kind::Gemv, _) => (big, big),
        _ => {
            if lower {
                (big, 0)
            } else {
                (0, big)
            }
        }
    };
    let (kind, kb, lda) = match c.storage {
        Storage::Full { lda } => (0, 0, lda as i64),
        // The buffer holds the band (checked), so ku fits.
        Storage::Band { ku, lda, .. } => (1, ku as i64, lda as i64),
        Storage::Packed => (if lower { 3 } else { 2 }, 0, 0),
    };
    let mut flags = 0;
    if c.diag == Diag::Unit && matches!(c.kind, Kind::Trmv | Kind::Trsv) {
        flags |= F_UNIT;
    }
    if c.op == Op::C {
        flags |= F_CONJ;
    }
    let (alpha_p, alpha_s, ar, ai) = coef(&c.alpha);
    let (beta_p, beta_s, br, bi) = coef(&c.beta);
    let part = address(ws.partials);
    let table = address(ws.addr_table);
    let trsv_tiles = address(ws.trsv_tiles);
    let out = c.out.view();
    let list = c.a.is_list();
    let ops = if c.x.is_some() { 3 } else { 2 };
    let yslot: i32 = if c.x.is_some() { 2 } else { 1 };
    let mut ptrs: Vec<u64> = Vec::new();

    for e0 in (0..batch).step_by(plan.chunk.max(1)) {
        let ne = plan.chunk.min(batch - e0);
        let (a_base, a_stride) = base_of(&c.a, e0);
        let out_arg = vec_arg(&out, e0, ly, c.inc_out);
        let x_arg = match &c.x {
            Some((x, incx)) => vec_arg(x, e0, lx, *incx),
            None => out_arg,
        };
        if list {
            // The chunk's addresses, [A][x][y], into the table by kernels (capturable).
            let mut chunk_addrs = Vec::with_capacity(ne * ops);
            for k in 0..ops {
                chunk_addrs.extend_from_slice(&addrs[k * batch + e0..k * batch + e0 + ne]);
            }
            for (i, part_addrs) in chunk_addrs.chunks(LIST_MAX).enumerate() {
                ptrs.clear();
                ptrs.extend_from_slice(part_addrs);
                ptrs.resize(LIST_MAX, 0);
                let dst = table + (i * LIST_MAX * 8) as u64;
                let count = part_addrs.len() as i32;
                let l = ptrs.as_mut_ptr() as *mut std::ffi::c_void;
                stream.launch(
                    &MV,
                    "b2_fill",
                    1,
                    THREADS as u32,
                    &mut [param(&dst), param(&count), l],
                )?;
            }
        }
        let base = Job {
            a: MatArg {
                base: a_base,
                stride: a_stride,
                lda,
                kb,
                kind,
                pad: 0,
            },
            x: x_arg,
            y: out_arg,
            tab: if list { table } else { 0 },
            part,
            alpha_p,
            beta_p,
            alpha_s,
            beta_s,
            ar,
            ai,
            br,
            bi,
            m,
            n,
            kl,
            ku,
            plen: ly as i64,
            flags,
            splits: 1,
            tr: g.tr as i32,
            tc: 1,
            rowtiles: shape.row_tiles() as i32,
            colgroups: 1,
            e0: e0 as i32,
            nent: ne as i32,
            np: 0,
            nq: 0,
            rb: g.rows_per_block() as i32,
            cpg: 1,
        };
        let launch = |name: &str,
                      module,
                      grid: usize,
                      block: usize,
                      job: &Job,
                      extra: Option<i32>|
         -> Result<(), Error> {
            let grid = u32::try_from(grid).map_err(|_| {
                Error::InvalidSize(format!("{}: {grid} blocks exceed one launch", c.name))
            })?;
            let func = format!("{name}_{tag}");
            match extra {
                Some(v) => stream.launch(
                    module,
                    &func,
                    grid,
                    block as u32,
                    &mut [param(job), param(&v)],
                ),
                None => stream.launch(module, &func, grid, block as u32, &mut [param(job)]),
            }
        };
        let sweep = |job: &Job, splits: usize| -> Result<(), Error> {
            let cps = c.n.div_ceil(splits).max(1);
            let tc = (THREADS / g.tr).min(cps).max(1);
            let j = Job {
                splits: splits as i32,
                tc: tc as i32,
                ..*job
            };
            let name = match (job.flags & F_SYM != 0, g.rs == 4) {
                (false, false) => "b2_sweep1",
                (false, true) => "b2_sweep4",
                (true, false) => "b2_symsweep1",
                (true, true) => "b2_symsweep4",
            };
            launch(
                name,
                &MV,
                ne * shape.row_tiles() * splits,
                g.tr * tc,
                &j,
                None,
            )
        };
        let dot = |job: &Job, splits: usize| -> Result<(), Error> {
            // Short columns: each thread group takes several (their loads go out together).
            let cpg = shape.dot_columns_per_group();
            let tc = (THREADS / g.tr).min(c.n.div_ceil(cpg)).max(1);
            let groups = c.n.div_ceil(tc * cpg);
            let j = Job {
                splits: splits as i32,
                tc: tc as i32,
                colgroups: groups as i32,
                cpg: cpg as i32,
                ..*job
            };
            launch(
                match (cpg > 1, c.m <= g.tr * g.vec) {
                    (false, _) => "b2_dot",
                    (true, false) => "b2_dotshort",
                    (true, true) => "b2_dotshort1",
                },
                &MV,
                ne * groups * splits,
                g.tr * tc,
                &j,
                Some(yslot),
            )
        };
        let pass2 = |job: &Job, np: usize, nq: usize| -> Result<(), Error> {
            let plen = job.plen as usize;
            // Many partials for few outputs: a block per output sums them together.
            if nq == 0 && np >= 64 && ne.saturating_mul(plen) <= WIDE_PASS_BLOCKS {
                let j = Job {
                    np: np as i32,
                    nq: 0,
                    ..*job
                };
                return launch("b2_pass2w", &MV, ne * plen, THREADS, &j, Some(yslot));
            }
            let per = (job.plen as usize)
                .div_ceil(THREADS)
                .clamp(1, (4096 / ne).max(1));
            let j = Job {
                np: np as i32,
                nq: nq as i32,
                colgroups: per as i32,
                ..*job
            };
            launch("b2_pass2", &MV, ne * per, THREADS, &j, Some(yslot))
        };
        let s = plan.splits;
        match (plan.algo, c.kind) {
            (Algo::SmallBatched, _) => {
                let name = if c.op == Op::N {
                    "b2_small_n"
                } else {
                    "b2_small_t"
                };
                let grid = shape
                    .small_threads_per_entry()
                    .saturating_mul(ne)
                    .div_ceil(THREADS);
                launch(name, &MV, grid, THREADS, &base, None)?
            }
            (Algo::Direct, _) => {
                let j = Job {
                    flags: flags | F_DIRECT,
                    ..base
                };
                // gemv op T/C with long columns (the general kernel's one column per group) on
                // aligned full storage with a contiguous x: the lean column dots (`dot_lean` in
                // blas2.cu), which need every 16-byte load aligned.
                let lean = c.kind == Kind::Gemv
                    && shape.dots()
                    && shape.dot_columns_per_group() == 1
                    && matches!(c.storage, Storage::Full { .. })
                    && x_arg.inc == 1
                    && (lda as u64 * elem as u64) % 16 == 0
                    && if list {
                        (0..2).all(|k| {
                            addrs[k * batch + e0..k * batch + e0 + ne]
                                .iter()
                                .all(|&p| p % 16 == 0)
                        })
                    } else {
                        [(a_base, a_stride), (x_arg.base, x_arg.stride)]
                            .iter()
                            .all(|&(p, st)| p % 16 == 0 && (st as u64 * elem as u64) % 16 == 0)
                    };
                // gbmv op T/C on a narrow band: a warp per column, all its loads in flight
                // (`band_dot` in blas2.cu). Not Complex64: its 16-byte elements took the kernel
                // to 104 registers (H200, 16384, kl = ku = 64: 34.7 us, against 21.0 through the
                // general dot).
                let band_dot = c.kind == Kind::Gemv
                    && elem <= 8
                    && shape.dots()
                    && shape.band_rows.is_some_and(|rows| rows <= BAND_DOT_ROWS);
                // Both take a warp per column.
                let warp_per_column_grid = ne.saturating_mul(c.n.div_ceil(LEAN_DOT_COLUMNS));
                if band_dot {
                    launch("b2_banddot", &MV, warp_per_column_grid, THREADS, &j, None)?
                } else if lean {
                    launch(
                        "b2_dotlean",
                        &MV,
                        warp_per_column_grid,
                        THREADS,
                        &j,
                        Some(yslot),
                    )?
                } else if shape.dots() {
                    dot(&j, 1)?
                } else {
                    sweep(&j, 1)?
                }
            }
            (Algo::Split, Kind::Symv | Kind::Hemv) => {
                let mut f = flags | F_SYM;
                if c.kind == Kind::Hemv {
                    f |= F_HERM | F_CONJ;
                }
                if lower {
                    f |= F_LOWER;
                }
                let nq = shape.row_tiles();
                let j = Job {
                    flags: f,
                    nq: nq as i32,
                    ..base
                };
                sweep(&j, s)?;
                pass2(
                    &Job {
                        splits: s as i32,
                        ..j
                    },
                    s,
                    nq,
                )?;
            }
            (Algo::SymRegions, _) => {
                let (vectors, stride) = shape.region_partials();
                let j = Job {
                    flags: if lower { F_LOWER } else { 0 },
                    plen: stride as i64,
                    ..base
                };
                let regions = vectors.saturating_mul(vectors + 1) / 2;
                let grid = u32::try_from(ne.saturating_mul(regions)).map_err(|_| {
                    Error::InvalidSize(format!(
                        "{}: {ne} x {regions} blocks exceed one launch",
                        c.name
                    ))
                })?;
                stream.launch_with(
                    &MV,
                    &format!("b2_symv_regions_{tag}"),
                    (grid, 1, 1),
                    (THREADS as u32, symv_region_smem(shape.elem)),
                    false,
                    &mut [param(&j)],
                )?;
                let blocks = ne * c.n.div_ceil(SYMV_REGION_SUM_OUTPUTS);
                launch("b2_symv_regions_sum", &MV, blocks, THREADS, &j, None)?;
            }
            (Algo::Split, _) => {
                // trmv writes x only from the partials: alpha 1, beta 0 (not read).
                let j = if c.kind == Kind::Trmv {
                    Job {
                        alpha_p: 0,
                        beta_p: 0,
                        ar: 1.0,
                        ai: 0.0,
                        br: 0.0,
                        bi: 0.0,
                        ..base
                    }
                } else {
                    base
                };
                if shape.dots() {
                    dot(&j, s)?
                } else {
                    sweep(&j, s)?
                }
                pass2(
                    &Job {
                        splits: s as i32,
                        ..j
                    },
                    s,
                    0,
                )?;
            }
            (Algo::SymTwoPass, _) => {
                // The stored triangle with its diagonal, then the strict triangle mirrored.
                let herm = c.kind == Kind::Hemv;
                let j = Job {
                    flags: flags | F_DIRECT | if herm { F_HERM } else { 0 },
                    ..base
                };
                sweep(&j, 1)?;
                // The mirror of the stored triangle without its diagonal (bands run Algo::SymBand).
                let (skl, sku) = if lower { (kl, -1) } else { (-1, ku) };
                let j = Job {
                    flags: F_DIRECT | if herm { F_CONJ } else { 0 },
                    kl: skl,
                    ku: sku,
                    beta_p: 0,
                    br: 1.0,
                    bi: 0.0,
                    ..base
                };
                dot(&j, 1)?;
            }
            (Algo::SymBand, _) => {
                let mut f = flags | if c.kind == Kind::Hemv { F_HERM } else { 0 };
                if lower {
                    f |= F_LOWER;
                }
                let rows = BAND_SYM_THREADS_PER_COLUMN * (16 / elem).max(1);
                let blocks = ne.saturating_mul(c.n.div_ceil(rows));
                launch(
                    "b2_bandsym",
                    &MV,
                    blocks,
                    THREADS,
                    &Job { flags: f, ..base },
                    None,
                )?;
            }
            (Algo::InPlace, _) => {
                let mut f = flags;
                if c.op != Op::N {
                    f |= F_TRANS;
                }
                if lower == (c.op == Op::N) {
                    f |= F_FWD;
                }
                launch(
                    "b2_trmv_ip",
                    &MV,
                    ne,
                    THREADS,
                    &Job { flags: f, ..base },
                    None,
                )?;
            }
            (Algo::TrsvBlocked | Algo::TrsvSubst, _) => {
                let mut f = flags;
                if c.op != Op::N {
                    f |= F_TRANS;
                }
                if lower == (c.op == Op::N) {
                    f |= F_FWD;
                }
                let j = Job { flags: f, ..base };
                // Full storage has kernels of its own (plain addressing, no band test).
                let family = if matches!(c.storage, Storage::Full { .. }) {
                    "trsv"
                } else {
                    "tbsv"
                };
                if plan.algo == Algo::TrsvSubst {
                    launch(&format!("b2_{family}_sub"), &SV, ne, THREADS, &j, None)?;
                } else {
                    let nbk = c.n.div_ceil(trsv_nb(elem));
                    // [progress flags, ticket counter]
                    let progress = trsv_tiles;
                    let blk = format!("b2_{family}_blk_{tag}");
                    for e in 0..ne {
                        let ei = e as i32;
                        stream.memset32(progress, 0, nbk + 2)?;
                        stream.launch(
                            &SV,
                            &blk,
                            nbk as u32,
                            THREADS as u32,
                            &mut [param(&j), param(&ei), param(&progress)],
                        )?;
                    }
                }
            }
        }
    }
    Ok(())
}
