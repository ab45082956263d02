//! The CUDA backend of the QR family's own steps (`kernels/qr.cu`).

use super::plan::{
    cq_gram_smem, cq_nc, cq_part, cq_solve_smem, tfactor_smem, whole_bytes, CQ_CHOL1_SMEM, CQ_FLAG,
    CQ_LU_SMEM, CQ_TILE, ORG_COLS, PANEL_SMEM,
};

/// Threads of `qr_whole` (`QR_WHOLE_THREADS` in qr.cu).
const WHOLE_THREADS: u32 = 256;
use super::program::{CqPanel, QrStep};
use crate::device::{param, Stream};
use crate::exec::cuda::Bases;
use crate::exec::program::M;
use crate::kernels::{CHOLQR, QR};
use crate::{Error, Scalar};

/// Mirrors `Qrp` in qr.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Qrp {
    a: u64,
    ld: i64,
    es: i64,
    b: u64,
    b_ld: i64,
    b_es: i64,
    t: u64,
    t_ld: i64,
    t_es: i64,
    tau: u64,
    tau_s: i64,
    ex: u64,
    ex_s: i64,
    fl: u64,
    fl_s: i64,
    bs: i64,
    rows: i64,
    cols: i64,
    k0: i32,
    grid: i32,
    ne: i32,
    spare: i32,
    shift: i32,
    pad: i32,
}

/// Device addresses of a program's scalars and scratch.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DevTaus {
    /// `tau` of entry 0, and the elements between entries.
    pub tau: u64,
    pub tau_s: usize,
    /// The panel exchange of the chunk's first entry, and the bytes between entries.
    pub ex: u64,
    pub ex_s: usize,
    /// Blocks of one entry's panel.
    pub grid: usize,
    /// gels's info of entry 0 (i32) and the values between entries.
    pub info: u64,
    pub info_s: usize,
    /// The CholeskyQR2 part of the chunk's first entry, the bytes between entries, and its
    /// partial Grams per entry.
    pub cq: u64,
    pub cq_s: usize,
    pub cq_blocks: usize,
}

/// Mirrors `Cqp` in cholqr.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Cqp {
    a: u64,
    ld: i64,
    es: i64,
    ws: u64,
    ws_s: i64,
    tau: u64,
    tau_s: i64,
    rows: i64,
    tiles: i64,
    cols: i32,
    nblk: i32,
    ne: i32,
    part: i32,
    vf: u64,
    vf_ld: i64,
    vf_es: i64,
    t: u64,
    t_ld: i64,
    t_es: i64,
    vt: u64,
    vt_ld: i64,
    vt_es: i64,
}

/// Launches one CholeskyQR2 step (double only) on `s` for `ne` entries.
fn launch_cholqr<T: Scalar>(
    s: &Stream,
    st: &QrStep,
    (p, tau, ne): (&CqPanel, u64, usize),
    at: impl Fn(M) -> (u64, i64, i64),
    d: &DevTaus,
) -> Result<(), Error> {
    if T::TAG != "d" {
        return Err(Error::InvalidValue(format!(
            "CholeskyQR2 panels are double only, not {}",
            T::TAG
        )));
    }
    let nc = cq_nc(p.cols);
    let tiles = p.rows.div_ceil(CQ_TILE);
    let nblk = tiles.min(d.cq_blocks).max(1);
    let (a, ld, es) = at(p.a);
    let ((vf, vf_ld, vf_es), (t, t_ld, t_es), (vt, vt_ld, vt_es)) = match p.out {
        Some(o) => (at(o.vf), at(o.t), at(o.vt)),
        None => ((0, 0, 0), (0, 0, 0), (0, 0, 0)),
    };
    let j = Cqp {
        a,
        ld,
        es,
        ws: d.cq,
        ws_s: d.cq_s as i64,
        tau,
        tau_s: d.tau_s as i64,
        rows: p.rows as i64,
        tiles: tiles as i64,
        cols: p.cols as i32,
        nblk: nblk as i32,
        ne: ne as i32,
        part: cq_part(nc) as i32,
        vf,
        vf_ld,
        vf_es,
        t,
        t_ld,
        t_es,
        vt,
        vt_ld,
        vt_es,
    };
    let (ne, nblk) = (ne as u32, nblk as u32);
    let (func, grid, smem) = match *st {
        QrStep::CqGram(_) => (format!("qr_cqgram{nc}_d"), (nblk, ne), cq_gram_smem(nc)),
        QrStep::CqReduce { second, .. } => {
            let name = if second {
                "qr_cqreduce2"
            } else {
                "qr_cqreduce"
            };
            let blocks = cq_part(nc).div_ceil(64) as u32;
            (format!("{name}{nc}_d"), (blocks, ne), 0)
        }
        QrStep::CqChol1(_) => (format!("qr_cqchol1{nc}_d"), (ne, 1), CQ_CHOL1_SMEM),
        QrStep::CqSolve(_) => (format!("qr_cqsolve{nc}_d"), (nblk, ne), cq_solve_smem(nc)),
        QrStep::CqLu(_) => (format!("qr_cqlu{nc}_d"), (ne, 1), CQ_LU_SMEM),
        QrStep::CqFinish(_) => (format!("qr_cqfinish{nc}_d"), (nblk, ne), cq_solve_smem(nc)),
        QrStep::CqTFall(_) => (format!("qr_cqtfall{nc}_d"), (ne, 1), CQ_LU_SMEM),
        _ => return Err(Error::InvalidValue("not a CholeskyQR2 step".into())),
    };
    let mut prm = [param(&j)];
    s.launch_with(
        &CHOLQR,
        &func,
        (grid.0, grid.1, 1),
        (256, smem as u32),
        false,
        &mut prm,
    )
}

/// Launches one QR step on `s` for batch entries `e0 .. e0 + ne` of the spaces at `bases`.
pub(crate) fn launch<T: Scalar>(
    s: &Stream,
    st: &QrStep,
    bases: &Bases,
    (e0, ne): (usize, usize),
    d: &DevTaus,
) -> Result<(), Error> {
    let elem = std::mem::size_of::<T>() as u64;
    let at = |x: M| {
        let (base, es) = bases.of(x.sp);
        (base + x.off as u64 * elem, x.ld as i64, es)
    };
    let tau_at = |k0: usize| d.tau + ((e0 * d.tau_s + k0) as u64) * elem;
    let mut j = Qrp {
        ne: ne as i32,
        ex: d.ex,
        ex_s: d.ex_s as i64,
        tau_s: d.tau_s as i64,
        ..Default::default()
    };
    let tag = T::TAG;
    let ne32 = ne as u32;
    match *st {
        QrStep::Init => {
            if d.grid > 1 && d.ex != 0 {
                s.memset32(d.ex, 0, ne * d.ex_s / 4)?;
            }
            Ok(())
        }
        QrStep::CqGram(p)
        | QrStep::CqReduce { p, .. }
        | QrStep::CqChol1(p)
        | QrStep::CqSolve(p)
        | QrStep::CqLu(p)
        | QrStep::CqFinish(p)
        | QrStep::CqTFall(p) => launch_cholqr::<T>(s, st, (&p, tau_at(p.k0), ne), at, d),
        QrStep::Panel {
            rows,
            cols,
            a,
            k0,
            gated,
        } => {
            if gated {
                if d.cq == 0 {
                    return Err(Error::InvalidValue(
                        "a gated panel without a CholeskyQR2 part".into(),
                    ));
                }
                (j.fl, j.fl_s) = (d.cq + CQ_FLAG as u64, d.cq_s as i64);
            }
            (j.a, j.ld, j.es) = at(a);
            (j.rows, j.cols) = (rows as i64, cols as i64);
            j.tau = tau_at(k0);
            j.grid = d.grid.max(1) as i32;
            let grid = d.grid.max(1);
            let own = rows.div_ceil(grid) * cols * elem as usize;
            let (func, smem) = if own <= PANEL_SMEM {
                ("qr_panelsm", own as u32)
            } else {
                ("qr_panel", 0)
            };
            let mut prm = [param(&j)];
            s.launch_with(
                &QR,
                &format!("{func}_{tag}"),
                (grid as u32, ne32, 1),
                (256, smem),
                grid > 1,
                &mut prm,
            )
        }
        QrStep::Small { rows, cols, a } => {
            (j.a, j.ld, j.es) = at(a);
            (j.rows, j.cols) = (rows as i64, cols as i64);
            j.tau = tau_at(0);
            let mut prm = [param(&j)];
            let blocks = (ne as u32).div_ceil(4);
            s.launch(&QR, &format!("qr_small_{tag}"), blocks, 128, &mut prm)
        }
        QrStep::Whole { rows, cols, a } => {
            (j.a, j.ld, j.es) = at(a);
            (j.rows, j.cols) = (rows as i64, cols as i64);
            j.tau = tau_at(0);
            let smem = whole_bytes(rows, cols, elem as usize) as u32;
            let mut prm = [param(&j)];
            s.launch_with(
                &QR,
                &format!("qr_whole_{tag}"),
                (ne32.min(65535), 1, 1),
                (WHOLE_THREADS, smem),
                false,
                &mut prm,
            )
        }
        QrStep::TFactor { k, g, t, k0, count } => {
            if count > 1 && g.bs != t.bs {
                return Err(Error::InvalidValue(
                    "T factors of several blocks with G and T strides that differ".into(),
                ));
            }
            (j.b, j.b_ld, j.b_es) = at(g);
            (j.t, j.t_ld, j.t_es) = at(t);
            j.bs = g.bs as i64;
            j.cols = k as i64;
            j.tau = tau_at(k0);
            let smem = (tfactor_smem(k) * elem as usize) as u32;
            let threads = (4 * k as u32).div_ceil(32).max(1) * 32;
            let mut prm = [param(&j)];
            s.launch_with(
                &QR,
                &format!("qr_tfactor_{tag}"),
                (ne32, count as u32, 1),
                (threads, smem),
                false,
                &mut prm,
            )
        }
        QrStep::OrgBlock { rows, cols, a, x } => {
            (j.a, j.ld, j.es) = at(a);
            (j.b, j.b_ld, j.b_es) = at(x);
            (j.rows, j.cols) = (rows as i64, cols as i64);
            if cols > ORG_COLS {
                return Err(Error::InvalidValue(format!(
                    "orgqr's block of {cols} columns (at most {ORG_COLS} at once)"
                )));
            }
            // V's tile and 32 rows of X, each 32 × (ORG_COLS + 1) (`qr_org`).
            let smem = (2 * 32 * (ORG_COLS + 1) * elem as usize) as u32;
            let mut prm = [param(&j)];
            s.launch_with(
                &QR,
                &format!("qr_org_{tag}"),
                ((rows as u32).div_ceil(32), ne32, 1),
                (256, smem),
                false,
                &mut prm,
            )
        }
        QrStep::Transpose {
            rows,
            cols,
            src,
            dst,
            strict,
        } => {
            if rows == 0 || cols == 0 {
                return Ok(());
            }
            (j.a, j.ld, j.es) = at(src);
            (j.b, j.b_ld, j.b_es) = at(dst);
            (j.rows, j.cols) = (rows as i64, cols as i64);
            j.shift = strict as i32;
            let grid = (cols.div_ceil(32) as u32, rows.div_ceil(32) as u32, ne32);
            let mut prm = [param(&j)];
            s.launch_with(
                &QR,
                &format!("qr_transpose_{tag}"),
                grid,
                (256, 0),
                false,
                &mut prm,
            )
        }
        QrStep::DiagInfo { k, a } => {
            (j.a, j.ld, j.es) = at(a);
            j.cols = k as i64;
            (j.b, j.b_es) = (d.info + (e0 * d.info_s * 4) as u64, d.info_s as i64);
            let mut prm = [param(&j)];
            s.launch(&QR, &format!("qr_diaginfo_{tag}"), ne32, 256, &mut prm)
        }
        QrStep::Identity {
            rows,
            cols,
            a,
            shift,
        } => {
            (j.a, j.ld, j.es) = at(a);
            (j.rows, j.cols) = (rows as i64, cols as i64);
            j.shift = shift as i32;
            let blocks = (rows * cols).div_ceil(256).clamp(1, 4096) as u32;
            let mut prm = [param(&j)];
            s.launch_with(
                &QR,
                &format!("qr_identity_{tag}"),
                (blocks, ne32, 1),
                (256, 0),
                false,
                &mut prm,
            )
        }
    }
}
