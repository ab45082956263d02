//! The CUDA rows of `gpublas bench eig` (feature `cublas`): gpublas beside cuSOLVER on one
//! stream (the module documentation of `bench_eig` describes the rows).

use crate::bench::{median, out};
use crate::bench_util::{bytes, elems, err, fits, selected, size_query, Rng};
use gpublas::{
    solver, Backend, Complex64, Device, DeviceBuffer, Error, Esort, Evect, Handle, HandleConfig,
    RealScalar, Results, Status, Stream, Timer, Uplo, WorkspaceStats,
};
use gpublas_peers::cublas::Cublas;
use gpublas_peers::cusolver::{
    require_symbols, Cusolver, DnParams, EigScalar, SyevjParams, SYEVJ_BATCHED_MAX_N,
};
use serde_json::{json, Value};

/// Every group `--only` selects from, in the order they run.
const GROUPS: [&str; 4] = ["jacobi", "small", "syevd", "x64"];
/// The groups run without `--only` (x64's rows take minutes).
const DEFAULT_GROUPS: [&str; 3] = ["jacobi", "small", "syevd"];

/// Sweeps both Jacobi solvers may run (cuSOLVER's default).
const MAX_SWEEPS: usize = 100;

/// The triangle every call reads.
const UPLO: Uplo = Uplo::Lower;

/// The element types of the rows: `f64` and `Complex64`.
trait Elem: EigScalar {
    /// The type in the table and the JSON rows.
    const NAME: &'static str;
    /// The cuSOLVER letter and stem (`Dsyevd`, `Zheevd`): `stem` is `sy` or `he`.
    const LETTER: char;
    const STEM: &'static str;
    /// The Jacobi tolerance: the machine epsilon of the real type.
    const EPS: f64;
    /// Largest relative eigenvalue difference accepted as agreement.
    const TOL: f64;
    /// Value `k` of the generator stream `seed` (complex: values `2k` and `2k + 1`).
    fn at(seed: u64, k: u64) -> Self;
}

/// The splitmix64 increment of `Rng`: value `k` of a stream is `Rng(seed + k * GAMMA)`'s
/// first value.
const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

fn val_at(seed: u64, k: u64) -> f64 {
    Rng(seed.wrapping_add(k.wrapping_mul(GAMMA))).val()
}

impl Elem for f64 {
    const NAME: &'static str = "f64";
    const LETTER: char = 'D';
    const STEM: &'static str = "sy";
    const EPS: f64 = f64::EPSILON;
    // Two backward-stable solvers' eigenvalues differ by about n ε ‖A‖ (4e-12 at 16384);
    // wrong ones by O(1).
    const TOL: f64 = 1e-9;
    fn at(seed: u64, k: u64) -> f64 {
        val_at(seed, k)
    }
}

impl Elem for Complex64 {
    const NAME: &'static str = "c64";
    const LETTER: char = 'Z';
    const STEM: &'static str = "he";
    const EPS: f64 = f64::EPSILON;
    const TOL: f64 = 1e-9;
    fn at(seed: u64, k: u64) -> Complex64 {
        let k2 = k.wrapping_mul(2);
        Complex64::new(val_at(seed, k2), val_at(seed, k2.wrapping_add(1)))
    }
}

/// `v` as f64.
fn re<R: RealScalar>(v: R) -> f64 {
    v.to_f64()
}

/// Host threads for generating matrices.
fn threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 32)
}

/// `count` random symmetric (Hermitian) `n × n` matrices one after the other (leading
/// dimension `n`): entry `(i, j)` of matrix `e` is `(g(i, j) + conj(g(j, i))) / 2` with `g`
/// the generator stream `seed` at the matrix's own elements (so the diagonal of a Hermitian
/// matrix is real); filled in parallel.
fn symmetric<T: Elem>(n: usize, count: usize, seed: u64) -> Result<Vec<T>, Error> {
    let nn = elems(n, n)?;
    let mut v = vec![T::zero(); elems(nn, count)?];
    if v.is_empty() {
        return Ok(v);
    }
    let half = <T::Real as RealScalar>::from_f64(0.5);
    let per = v.len().div_ceil(threads()).max(1);
    std::thread::scope(|s| {
        for (t, chunk) in v.chunks_mut(per).enumerate() {
            s.spawn(move || {
                let first = t * per;
                for (k, x) in chunk.iter_mut().enumerate() {
                    let g = first + k;
                    let (e, r) = (g / nn, g % nn);
                    let (i, j) = (r % n, r / n);
                    let base = (e * nn) as u64;
                    let p = T::at(seed, base + (i + j * n) as u64);
                    let q = T::at(seed, base + (j + i * n) as u64);
                    *x = (p + q.conj()).scale(half);
                }
            });
        }
    });
    Ok(v)
}

/// The device buffers of a row: the matrices the calls overwrite and their pristine copy,
/// each library's eigenvalues and `info`, and gpublas's Jacobi residuals and sweep counts.
struct Work<T: Elem> {
    a: DeviceBuffer<T>,
    a0: DeviceBuffer<T>,
    w: DeviceBuffer<T::Real>,
    w_ref: DeviceBuffer<T::Real>,
    info: DeviceBuffer<i32>,
    info_ref: DeviceBuffer<i32>,
    residual: DeviceBuffer<T::Real>,
    sweeps: DeviceBuffer<i32>,
}

impl<T: Elem> Work<T> {
    /// `count` random matrices of order `n`, uploaded twice.
    fn new(dev: &Device, n: usize, count: usize, seed: u64) -> Result<Work<T>, Error> {
        let host = symmetric::<T>(n, count, seed)?;
        let nw = elems(n, count)?.max(1);
        Ok(Work {
            a: dev.upload(&host)?,
            a0: dev.upload(&host)?,
            w: dev.alloc(nw)?,
            w_ref: dev.alloc(nw)?,
            info: dev.alloc(count.max(1))?,
            info_ref: dev.alloc(count.max(1))?,
            residual: dev.alloc(count.max(1))?,
            sweeps: dev.alloc(count.max(1))?,
        })
    }

    /// Restores `a` from `a0` (a copy on the shared stream, ordered before what follows).
    fn reset(&mut self, c: &Cublas) -> Result<(), Error> {
        c.copy(self.a0.len(), &self.a0, 1, &mut self.a, 1)
    }

    /// Fills both eigenvalue buffers with NaN and both `info`s with `i32::MIN`
    /// (synchronous), so that an entry a call leaves unwritten shows.
    fn poison(&mut self) -> Result<(), Error> {
        let nan = <T::Real as RealScalar>::from_f64(f64::NAN);
        self.w.copy_from_host(&vec![nan; self.w.len()])?;
        self.w_ref.copy_from_host(&vec![nan; self.w_ref.len()])?;
        self.info.copy_from_host(&vec![i32::MIN; self.info.len()])?;
        self.info_ref
            .copy_from_host(&vec![i32::MIN; self.info_ref.len()])
    }
}

/// The comparison of one call of each library from the same input.
struct Agreement {
    /// Largest over the entries of `max_i |λ_i − μ_i| / max_i |μ_i|`.
    rel_diff: f64,
    /// Entries whose `info` is not 0, gpublas's and the reference's.
    info_ours: usize,
    info_theirs: usize,
}

/// The eigenvalue difference of `count` entries of `n` values, `n` apart; NaN when a value is
/// NaN (left unwritten) or the lengths differ.
fn eig_diff(ours: &[f64], theirs: &[f64], n: usize, count: usize) -> f64 {
    let need = n * count;
    if n == 0 || count == 0 {
        return 0.0;
    }
    if ours.len() < need || theirs.len() < need {
        return f64::NAN;
    }
    let mut worst = 0.0f64;
    for (p, q) in ours[..need].chunks(n).zip(theirs[..need].chunks(n)) {
        let (mut d, mut m) = (0.0f64, 0.0f64);
        for (x, y) in p.iter().zip(q) {
            let e = (x - y).abs();
            if e.is_nan() {
                return f64::NAN;
            }
            d = d.max(e);
            m = m.max(y.abs());
        }
        worst = worst.max(if m > 0.0 { d / m } else { d });
    }
    worst
}

fn nonzero(v: &[i32], count: usize) -> usize {
    v.iter().take(count).filter(|&&x| x != 0).count()
}

/// What a row is.
struct Spec {
    group: &'static str,
    op: String,
    ty: &'static str,
    shape: String,
    n: usize,
    count: usize,
    reps: usize,
    tol: f64,
}

/// One call of a reference on the shared stream.
type RefCall<'a, T> = Box<dyn FnMut(&Cusolver, &mut Work<T>) -> Result<(), Error> + 'a>;

/// The routine a row times gpublas against.
struct Reference<'a, T: Elem> {
    /// The routine, as the table and the JSON rows name it.
    name: String,
    /// Its (device) workspace in bytes from its `_bufferSize`, or the query's error.
    ws: Result<usize, Error>,
    /// `Xsyevd`'s host workspace bytes.
    ws_host: Option<usize>,
    call: RefCall<'a, T>,
}

struct Row {
    spec: Spec,
    ws: Result<usize, Error>,
    before: WorkspaceStats,
    after: WorkspaceStats,
    /// Median seconds per call, with the samples.
    ours: Result<(f64, Vec<f64>), Error>,
    status: Status,
    their_name: String,
    their_ws: Result<usize, Error>,
    their_ws_host: Option<usize>,
    theirs: Result<(f64, Vec<f64>), Error>,
    agree: Result<Agreement, Error>,
}

impl Row {
    fn ours_s(&self) -> Option<f64> {
        self.ours.as_ref().ok().map(|t| t.0)
    }

    fn theirs_s(&self) -> Option<f64> {
        self.theirs.as_ref().ok().map(|t| t.0)
    }

    /// gpublas does not take the call yet (`Error::Unsupported`).
    fn unsupported(&self) -> bool {
        matches!(self.ours, Err(Error::Unsupported(_)))
    }

    /// Reference time / gpublas time.
    fn speedup(&self) -> Option<f64> {
        match (self.ours_s(), self.theirs_s()) {
            (Some(o), Some(t)) if o > 0.0 => Some(t / o),
            _ => None,
        }
    }

    fn disagrees(&self) -> bool {
        self.agree
            .as_ref()
            .is_ok_and(|a| a.rel_diff.is_nan() || a.rel_diff > self.spec.tol)
    }

    fn print(&self) {
        let s = &self.spec;
        let ws = match (&self.ws, self.unsupported()) {
            (Ok(b), _) => format!("{b:>11}"),
            (Err(_), true) => format!("{:>11}", "-"),
            (Err(_), false) => format!("{:>11}", "error"),
        };
        let their_ws = match &self.their_ws {
            Ok(b) => format!("{b:>11}"),
            Err(_) => format!("{:>11}", "error"),
        };
        let ours = match (self.ours_s(), &self.ours) {
            (Some(t), _) => format!("{:>28}", format!("{:.3}", t * 1e3)),
            (None, Err(Error::Unsupported(_))) if s.n > 64 => {
                format!("{:>28}", "unsupported (n > 64 on CUDA)")
            }
            (None, Err(Error::Unsupported(_))) => format!("{:>28}", "unsupported"),
            (None, _) => format!("{:>28}", "error"),
        };
        let theirs = match (self.theirs_s(), &self.theirs) {
            (Some(t), _) => format!("{:10.3}", t * 1e3),
            (None, _) => format!("{:>10}", "error"),
        };
        let speedup = match self.speedup() {
            Some(r) => format!("{r:7.3}"),
            None => format!("{:>7}", "n/a"),
        };
        let agree = match &self.agree {
            Ok(a) => {
                let mark = if self.disagrees() { "FAIL" } else { "ok  " };
                format!("{:8.1e} {mark}", a.rel_diff)
            }
            Err(_) => format!("{:>8}     ", "n/a"),
        };
        out!(
            "{:6} {:12} {:4} {:>14} {ws} {their_ws} | {ours} | {theirs} | {speedup} | {agree} | {}",
            s.group,
            s.op,
            s.ty,
            s.shape,
            self.their_name
        );
        if let Some(hb) = self.their_ws_host {
            out!(
                "    {} also takes {hb} bytes of host workspace",
                self.their_name
            );
        }
        if self.ours.is_ok() && self.status != Status::Success {
            out!("    gpublas returned {:?}", self.status);
        }
        if let Ok(a) = &self.agree {
            if self.disagrees() {
                out!(
                    "    MISMATCH: gpublas and {} DISAGREE on the eigenvalues: relative \
                     difference {:.2e} > {:.0e}",
                    self.their_name,
                    a.rel_diff,
                    s.tol
                );
            }
            if a.info_ours > 0 {
                out!(
                    "    gpublas wrote a non-zero info ({} of {} entries)",
                    a.info_ours,
                    s.count
                );
            }
            if a.info_theirs > 0 {
                out!(
                    "    {} wrote a non-zero info ({} of {} entries)",
                    self.their_name,
                    a.info_theirs,
                    s.count
                );
            }
        }
        let growths = self.after.growths.saturating_sub(self.before.growths);
        if self.ours.is_ok() && growths > 0 {
            out!("    the gpublas workspace grew {growths} times while timed");
        }
        let unsupported = self.unsupported();
        let timed_ok = self.ours.is_ok() && self.theirs.is_ok();
        for (who, e) in [
            (
                "workspace query",
                self.ws.as_ref().err().filter(|_| !unsupported),
            ),
            ("reference workspace query", self.their_ws.as_ref().err()),
            (
                "gpublas",
                self.ours
                    .as_ref()
                    .err()
                    .filter(|_| !unsupported || s.n <= 64),
            ),
            (self.their_name.as_str(), self.theirs.as_ref().err()),
            ("comparison", self.agree.as_ref().err().filter(|_| timed_ok)),
        ] {
            if let Some(e) = e {
                out!("    {who}: {e}");
            }
        }
    }

    fn json(&self, quick: bool) -> Value {
        let s = &self.spec;
        let a = self.agree.as_ref().ok();
        json!({
            "bench": "eig", "group": s.group, "op": s.op, "type": s.ty, "shape": s.shape,
            "n": s.n, "batch": s.count, "quick": quick, "reps": s.reps,
            "ws_bytes": self.ws.as_ref().ok(), "ws_error": err(self.ws.as_ref().err()),
            "reference": self.their_name,
            "cusolver_ws_bytes": self.their_ws.as_ref().ok(),
            "cusolver_ws_host_bytes": self.their_ws_host,
            "cusolver_ws_error": err(self.their_ws.as_ref().err()),
            "ws_capacity": self.after.capacity, "ws_peak_leased": self.after.peak_leased,
            "ws_mode": format!("{:?}", self.after.mode),
            "ws_growths_while_timed": self.after.growths.saturating_sub(self.before.growths),
            "ours_unsupported": self.unsupported(),
            "ours_s": self.ours_s(),
            "ours_samples_s": self.ours.as_ref().ok().map(|t| t.1.clone()),
            "ours_status": self.ours.is_ok().then(|| format!("{:?}", self.status)),
            "ours_error": err(self.ours.as_ref().err()),
            "cusolver_s": self.theirs_s(),
            "cusolver_samples_s": self.theirs.as_ref().ok().map(|t| t.1.clone()),
            "cusolver_error": err(self.theirs.as_ref().err()),
            "speedup": self.speedup(),
            "eig_rel_diff": a.map(|a| a.rel_diff),
            "info_nonzero_ours": a.map(|a| a.info_ours),
            "info_nonzero_cusolver": a.map(|a| a.info_theirs),
            "diff_error": err(self.agree.as_ref().err()),
            "diff_tol": s.tol, "disagree": self.disagrees(),
        })
    }
}

/// Seconds per call: the median of `reps` calls, each after a restore of `w.a` enqueued
/// before its start event (outside the timed region) and timed alone; with the samples.
fn timed<T: Elem>(
    stream: &Stream,
    reps: usize,
    w: &mut Work<T>,
    c: &Cublas,
    mut call: impl FnMut(&mut Work<T>) -> Result<(), Error>,
) -> Result<(f64, Vec<f64>), Error> {
    let mut t = Vec::with_capacity(reps.max(1));
    for _ in 0..reps.max(1) {
        w.reset(c)?;
        let timer = Timer::start(stream)?;
        call(w)?;
        t.push(timer.stop()?);
    }
    Ok((median(t.clone()), t))
}

/// One run: cuSOLVER, cuBLAS and the gpublas handle on one stream, and the rows so far.
struct Bench<'d> {
    /// Holds its own reference to the stream.
    s: Cusolver,
    /// Declared before `h`: the cuBLAS handle goes before the stream it works on.
    c: Cublas,
    h: Handle,
    dev: &'d Device,
    quick: bool,
    rows: Vec<Value>,
}

impl Bench<'_> {
    /// Queries the gpublas workspace (`query`, placeholder operands), compares one call of
    /// gpublas with one of the reference from the same input, then times both (the reference
    /// alone where gpublas fails); prints the row and keeps its JSON.
    fn row<T: Elem>(
        &mut self,
        spec: Spec,
        w: &mut Work<T>,
        query: impl FnOnce(&mut Handle) -> Result<Status, Error>,
        mut ours: impl FnMut(&mut Handle, &mut Work<T>) -> Result<Status, Error>,
        mut theirs: Reference<'_, T>,
    ) {
        let (s, c, h) = (&self.s, &self.c, &mut self.h);
        let (n, count) = (spec.n, spec.count);
        let ws = size_query(h, query);
        let mut status = Status::Success;
        let mine = w
            .poison()
            .and_then(|_| w.reset(c))
            .and_then(|_| ours(h, w))
            .and_then(|st| {
                status = st;
                Ok((w.w.to_vec()?, w.info.to_vec()?))
            });
        let cus = w
            .reset(c)
            .and_then(|_| (theirs.call)(s, w))
            .and_then(|_| Ok((w.w_ref.to_vec()?, w.info_ref.to_vec()?)));
        let agree = match (&mine, &cus) {
            (Ok((p, ip)), Ok((q, iq))) => {
                let p: Vec<f64> = p.iter().map(|&x| re(x)).collect();
                let q: Vec<f64> = q.iter().map(|&x| re(x)).collect();
                Ok(Agreement {
                    rel_diff: eig_diff(&p, &q, n, count),
                    info_ours: nonzero(ip, count),
                    info_theirs: nonzero(iq, count),
                })
            }
            (Err(e), _) | (_, Err(e)) => Err(e.clone()),
        };
        let (mine, cus) = (mine.map(drop), cus.map(drop));
        let stream = h.stream().clone();
        let before = h.workspace_stats();
        let t_ours = match mine {
            Ok(()) => timed(&stream, spec.reps, w, c, |w| {
                ours(h, w).map(|st| status = st)
            }),
            Err(e) => Err(e),
        };
        let after = h.workspace_stats();
        let t_theirs = match cus {
            Ok(()) => timed(&stream, spec.reps, w, c, |w| (theirs.call)(s, w)),
            Err(e) => Err(e),
        };
        let row = Row {
            spec,
            ws,
            before,
            after,
            ours: t_ours,
            status,
            their_name: theirs.name,
            their_ws: theirs.ws,
            their_ws_host: theirs.ws_host,
            theirs: t_theirs,
            agree,
        };
        row.print();
        self.rows.push(row.json(self.quick));
    }

    /// Runs one part of a group; an error setting it up (memory, allocation, upload, a
    /// missing cuSOLVER symbol) is printed and kept as a JSON row, and the run goes on.
    fn part(&mut self, group: &str, what: &str, f: impl FnOnce(&mut Self) -> Result<(), Error>) {
        if let Err(e) = f(self) {
            out!("{group}: {what} not run: {e}");
            self.rows.push(json!({
                "bench": "eig", "group": group, "what": what, "error": e.to_string()
            }));
        }
    }
}

/// cuSOLVER's workspace of a row: its size in bytes (or the query's error) and, where the
/// query succeeded, the buffer.
struct TheirWork<T: Elem> {
    ws: Result<usize, Error>,
    buf: Option<DeviceBuffer<T>>,
}

/// A cuSOLVER workspace of `lwork` elements (one at least), or the query's error.
fn their_work<T: Elem>(dev: &Device, lwork: Result<usize, Error>) -> Result<TheirWork<T>, Error> {
    Ok(match lwork {
        Ok(l) => TheirWork {
            ws: Ok(bytes::<T>(l)?),
            buf: Some(dev.alloc::<T>(l.max(1))?),
        },
        Err(e) => TheirWork {
            ws: Err(e),
            buf: None,
        },
    })
}

fn missing(ws: &Result<usize, Error>) -> Error {
    match ws {
        Err(e) => e.clone(),
        Ok(_) => Error::InvalidValue("no cuSOLVER workspace".into()),
    }
}

fn vec_tag(evect: Evect) -> &'static str {
    match evect {
        Evect::None => "N",
        Evect::Original => "V",
    }
}

/// Timed calls per row: few for the large orders (16384 with vectors takes seconds per call
/// in cuSOLVER) and for the looped references.
fn reps_for(quick: bool, n: usize, looped: bool) -> usize {
    match (quick, n, looped) {
        (true, _, _) => 3,
        (false, n, _) if n >= 16384 => 2,
        (false, n, _) if n >= 4096 => 3,
        (false, _, true) => 3,
        _ => 11,
    }
}

/// The batched Jacobi row: `count` random matrices of order `n`, with vectors, gpublas
/// `syevj_strided_batched` against `cusolverDn?syevjBatched` (`n <= 32`) or, above,
/// `cusolverDn?syevj` looped over the entries on the same stream (`?syevd` looped where the
/// library lacks `?syevj`).
fn jacobi_part<T: Elem>(b: &mut Bench<'_>, count: usize, n: usize) -> Result<(), Error> {
    let nn = elems(n, n)?;
    let l = elems(nn, count)?;
    let evect = Evect::Original;
    fits(
        b.dev,
        &format!("syevj {}", T::NAME),
        bytes::<T>(l.saturating_mul(2))?,
    )?;
    let mut w = Work::<T>::new(b.dev, n, count, 20_000 + 97 * n as u64 + count as u64)?;
    let params = SyevjParams::new(T::EPS, MAX_SWEEPS)?;
    let (l_, s_) = (T::LETTER, T::STEM);
    let theirs: Reference<'_, T> = if n <= SYEVJ_BATCHED_MAX_N {
        let lwork =
            b.s.syevj_batched_buffer_size::<T>(evect, UPLO, n, &w.a, n, &w.w_ref, &params, count);
        let TheirWork { ws, buf: mut work } = their_work::<T>(b.dev, lwork)?;
        let miss = missing(&ws);
        Reference {
            name: format!("cusolverDn{l_}{s_}evjBatched"),
            ws,
            ws_host: None,
            call: Box::new(move |s, w| match work.as_mut() {
                Some(work) => s.syevj_batched(
                    evect,
                    UPLO,
                    n,
                    &mut w.a,
                    n,
                    &mut w.w_ref,
                    work,
                    &mut w.info_ref,
                    &params,
                    count,
                ),
                None => Err(miss.clone()),
            }),
        }
    } else {
        let syevj = [
            format!("cusolverDn{l_}{s_}evj"),
            format!("cusolverDn{l_}{s_}evj_bufferSize"),
        ];
        if require_symbols(&[&syevj[0], &syevj[1]]).is_ok() {
            let lwork =
                b.s.syevj_buffer_size::<T>(evect, UPLO, n, &w.a, n, &w.w_ref, &params);
            let TheirWork { ws, buf: mut work } = their_work::<T>(b.dev, lwork)?;
            let miss = missing(&ws);
            Reference {
                name: format!("cusolverDn{l_}{s_}evj looped (syevjBatched: n<=32)"),
                ws,
                ws_host: None,
                call: Box::new(move |s, w| match work.as_mut() {
                    Some(work) => s.syevj_looped(
                        evect,
                        UPLO,
                        n,
                        &mut w.a,
                        n,
                        nn,
                        &mut w.w_ref,
                        n,
                        work,
                        &mut w.info_ref,
                        &params,
                        count,
                    ),
                    None => Err(miss.clone()),
                }),
            }
        } else {
            syevd_looped_ref::<T>(b, &w, n, count, evect, "(no syevj in this cuSOLVER)")?
        }
    };
    let spec = Spec {
        group: "jacobi",
        op: format!("syevj_sb {}", vec_tag(evect)),
        ty: T::NAME,
        shape: format!("{count} x n={n}"),
        n,
        count,
        reps: reps_for(b.quick, n, n > SYEVJ_BATCHED_MAX_N),
        tol: T::TOL,
    };
    let tol = <T::Real as RealScalar>::from_f64(T::EPS);
    b.row(
        spec,
        &mut w,
        |h| {
            let mut a = DeviceBuffer::<T>::placeholder(l);
            let mut ev = DeviceBuffer::<T::Real>::placeholder(elems(n, count)?);
            let mut res = DeviceBuffer::<T::Real>::placeholder(count);
            let mut sw = DeviceBuffer::<i32>::placeholder(count);
            let mut info = DeviceBuffer::<i32>::placeholder(count);
            solver::syevj_strided_batched(
                h,
                Esort::Ascending,
                evect,
                UPLO,
                n,
                &mut a,
                n,
                nn,
                tol,
                Results::Device(&mut res),
                MAX_SWEEPS,
                Results::Device(&mut sw),
                &mut ev,
                n,
                Results::Device(&mut info),
                count,
            )
        },
        |h, w| {
            solver::syevj_strided_batched(
                h,
                Esort::Ascending,
                evect,
                UPLO,
                n,
                &mut w.a,
                n,
                nn,
                tol,
                Results::Device(&mut w.residual),
                MAX_SWEEPS,
                Results::Device(&mut w.sweeps),
                &mut w.w,
                n,
                Results::Device(&mut w.info),
                count,
            )
        },
        theirs,
    );
    Ok(())
}

/// `cusolverDn?syevd` looped over `count` entries of order `n` (one workspace), as a
/// reference; `why` is appended to its name.
fn syevd_looped_ref<'a, T: Elem>(
    b: &Bench<'_>,
    w: &Work<T>,
    n: usize,
    count: usize,
    evect: Evect,
    why: &str,
) -> Result<Reference<'a, T>, Error> {
    let nn = elems(n, n)?;
    let lwork =
        b.s.syevd_buffer_size::<T>(evect, UPLO, n, &w.a, n, &w.w_ref);
    let TheirWork { ws, buf: mut work } = their_work::<T>(b.dev, lwork)?;
    let miss = missing(&ws);
    let name = format!("cusolverDn{}{}evd looped {why}", T::LETTER, T::STEM);
    Ok(Reference {
        name: name.trim_end().to_string(),
        ws,
        ws_host: None,
        call: Box::new(move |s, w| match work.as_mut() {
            Some(work) => s.syevd_looped(
                evect,
                UPLO,
                n,
                &mut w.a,
                n,
                nn,
                &mut w.w_ref,
                n,
                work,
                &mut w.info_ref,
                count,
            ),
            None => Err(miss.clone()),
        }),
    })
}

/// syevd of a batch of small matrices: gpublas `syevd_strided_batched` against
/// `cusolverDn?syevd` looped over the entries.
fn small_part<T: Elem>(
    b: &mut Bench<'_>,
    count: usize,
    n: usize,
    evect: Evect,
) -> Result<(), Error> {
    let nn = elems(n, n)?;
    let l = elems(nn, count)?;
    fits(
        b.dev,
        &format!("batched syevd {}", T::NAME),
        bytes::<T>(l.saturating_mul(2))?,
    )?;
    let mut w = Work::<T>::new(b.dev, n, count, 30_000 + 97 * n as u64 + count as u64)?;
    let theirs = syevd_looped_ref::<T>(b, &w, n, count, evect, "")?;
    let spec = Spec {
        group: "small",
        op: format!("syevd_sb {}", vec_tag(evect)),
        ty: T::NAME,
        shape: format!("{count} x n={n}"),
        n,
        count,
        reps: reps_for(b.quick, n, true),
        tol: T::TOL,
    };
    b.row(
        spec,
        &mut w,
        |h| {
            let mut a = DeviceBuffer::<T>::placeholder(l);
            let mut ev = DeviceBuffer::<T::Real>::placeholder(elems(n, count)?);
            let mut info = DeviceBuffer::<i32>::placeholder(count);
            solver::syevd_strided_batched(
                h,
                evect,
                UPLO,
                n,
                &mut a,
                n,
                nn,
                &mut ev,
                n,
                Results::Device(&mut info),
                count,
            )
        },
        |h, w| {
            solver::syevd_strided_batched(
                h,
                evect,
                UPLO,
                n,
                &mut w.a,
                n,
                nn,
                &mut w.w,
                n,
                Results::Device(&mut w.info),
                count,
            )
        },
        theirs,
    );
    Ok(())
}

/// syevd of one matrix of order `n`: gpublas `syevd` (`heevd`) against `cusolverDn?syevd`
/// (`?heevd`), or with `x64` the 64-bit `cusolverDnXsyevd`.
fn syevd_part<T: Elem>(b: &mut Bench<'_>, n: usize, evect: Evect, x64: bool) -> Result<(), Error> {
    let nn = elems(n, n)?;
    // The working and pristine copies and cuSOLVER's workspace (about 2n² elements with
    // vectors).
    fits(
        b.dev,
        &format!("syevd {} n={n}", T::NAME),
        bytes::<T>(nn.saturating_mul(4))?,
    )?;
    let mut w = Work::<T>::new(b.dev, n, 1, 40_000 + n as u64)?;
    let theirs: Reference<'_, T> = if x64 {
        let params = DnParams::new()?;
        let sizes =
            b.s.xsyevd_buffer_size::<T>(&params, evect, UPLO, n, &w.a, n, &w.w_ref);
        let (ws, ws_host, mut dwork, mut hwork) = match sizes {
            Ok((d, hb)) => (
                Ok(d),
                Some(hb),
                Some(b.dev.alloc::<u8>(d.max(1))?),
                vec![0u8; hb.max(1)],
            ),
            Err(e) => (Err(e), None, None, Vec::new()),
        };
        let miss = missing(&ws);
        Reference {
            name: "cusolverDnXsyevd".into(),
            ws,
            ws_host,
            call: Box::new(move |s, w| match dwork.as_mut() {
                Some(d) => s.xsyevd(
                    &params,
                    evect,
                    UPLO,
                    n,
                    &mut w.a,
                    n,
                    &mut w.w_ref,
                    d,
                    &mut hwork,
                    &mut w.info_ref,
                ),
                None => Err(miss.clone()),
            }),
        }
    } else {
        let lwork =
            b.s.syevd_buffer_size::<T>(evect, UPLO, n, &w.a, n, &w.w_ref);
        let TheirWork { ws, buf: mut work } = their_work::<T>(b.dev, lwork)?;
        let miss = missing(&ws);
        Reference {
            name: format!("cusolverDn{}{}evd", T::LETTER, T::STEM),
            ws,
            ws_host: None,
            call: Box::new(move |s, w| match work.as_mut() {
                Some(work) => s.syevd(
                    evect,
                    UPLO,
                    n,
                    &mut w.a,
                    n,
                    &mut w.w_ref,
                    work,
                    &mut w.info_ref,
                ),
                None => Err(miss.clone()),
            }),
        }
    };
    let spec = Spec {
        group: if x64 { "x64" } else { "syevd" },
        op: format!("{}evd {}", T::STEM, vec_tag(evect)),
        ty: T::NAME,
        shape: format!("n={n}"),
        n,
        count: 1,
        reps: reps_for(b.quick, n, false),
        tol: T::TOL,
    };
    b.row(
        spec,
        &mut w,
        |h| {
            let mut a = DeviceBuffer::<T>::placeholder(nn);
            let mut ev = DeviceBuffer::<T::Real>::placeholder(n);
            let mut info = DeviceBuffer::<i32>::placeholder(1);
            solver::syevd(
                h,
                evect,
                UPLO,
                n,
                &mut a,
                n,
                &mut ev,
                Results::Device(&mut info),
            )
        },
        |h, w| {
            solver::syevd(
                h,
                evect,
                UPLO,
                n,
                &mut w.a,
                n,
                &mut w.w,
                Results::Device(&mut w.info),
            )
        },
        theirs,
    );
    Ok(())
}

/// `gpublas bench eig`: prints the table, returns the JSON rows.
pub(super) fn run(dev: &Device, quick: bool, only: Option<&str>) -> Result<Vec<Value>, Error> {
    let groups = match only {
        Some(_) => selected(only, &GROUPS)?,
        None => DEFAULT_GROUPS.to_vec(),
    };
    if dev.backend() != Backend::Cuda {
        return Err(Error::Unsupported(format!(
            "gpublas bench eig compares gpublas with cuSOLVER on a CUDA GPU; the device is {} \
             (no GPU found, or --device host)",
            dev.name()
        )));
    }
    // The default configuration (not the environment's): a Managed workspace.
    let h = Handle::with_config(dev, &HandleConfig::default())?;
    let c = Cublas::new(h.stream())?;
    let s = Cusolver::new(h.stream())?;
    let from = gpublas_peers::cusolver::ensure_cusolver()?;
    let mut b = Bench {
        s,
        c,
        h,
        dev,
        quick,
        rows: Vec::new(),
    };
    out!(
        "Symmetric/Hermitian eigensolvers (f64; Complex64 where marked c64) on {} against \
         cuSOLVER (loaded from {from}): median of single calls each timed by a CUDA-event pair \
         (11 per row; 3 for looped references and n >= 4096, 2 from 16384; 3 with --quick); \
         before every call A is copied back from a pristine device buffer, outside the timed \
         region; gpublas handle {:?}; lower triangle; Jacobi tolerance ε, at most {MAX_SWEEPS} \
         sweeps",
        dev.name(),
        b.h.workspace_mode()
    );
    out!(
        "ws = gpublas workspace from a size query with placeholders, ref ws = cuSOLVER's \
         _bufferSize (bytes; Xsyevd: device bytes); speedup = reference ms / gpublas ms; diff \
         = max over entries of max|λ - μ| / max|μ| (gpublas's λ, cuSOLVER's μ) after one call \
         of each from the same input; V = with eigenvectors, N = values only"
    );
    out!(
        "{:6} {:12} {:4} {:>14} {:>11} {:>11} | {:>28} | {:>10} | {:>7} | {:>8}      | {}",
        "group",
        "op",
        "type",
        "shape",
        "ws bytes",
        "ref ws",
        "gpublas ms",
        "ref ms",
        "speedup",
        "diff",
        "reference"
    );
    for g in groups {
        match g {
            "jacobi" => {
                let batches: [(usize, usize); 2] = if quick {
                    [(100, 32), (100, 64)]
                } else {
                    [(10_000, 32), (1000, 64)]
                };
                for (count, n) in batches {
                    b.part("jacobi", &format!("f64 {count} x {n}"), |b| {
                        jacobi_part::<f64>(b, count, n)
                    });
                    b.part("jacobi", &format!("c64 {count} x {n}"), |b| {
                        jacobi_part::<Complex64>(b, count, n)
                    });
                }
            }
            "small" => {
                let count = if quick { 100 } else { 1000 };
                for n in [32, 64] {
                    b.part("small", &format!("syevd {count} x {n}"), |b| {
                        small_part::<f64>(b, count, n, Evect::Original)
                    });
                }
            }
            "syevd" => {
                let (real, complex): (&[usize], &[usize]) = if quick {
                    (&[1024], &[1024])
                } else {
                    (&[4096, 8192, 16384], &[4096, 8192])
                };
                for &n in real {
                    for evect in [Evect::Original, Evect::None] {
                        b.part("syevd", &format!("f64 n={n} {}", vec_tag(evect)), |b| {
                            syevd_part::<f64>(b, n, evect, false)
                        });
                    }
                }
                for &n in complex {
                    let modes: &[Evect] = if quick {
                        &[Evect::Original]
                    } else {
                        &[Evect::Original, Evect::None]
                    };
                    for &evect in modes {
                        b.part("syevd", &format!("c64 n={n} {}", vec_tag(evect)), |b| {
                            syevd_part::<Complex64>(b, n, evect, false)
                        });
                    }
                }
            }
            _ => {
                let rows: &[(usize, Evect)] = if quick {
                    &[(1024, Evect::Original)]
                } else {
                    &[
                        (16384, Evect::Original),
                        (32768, Evect::None),
                        (32768, Evect::Original),
                    ]
                };
                for &(n, evect) in rows {
                    b.part("x64", &format!("f64 n={n} {}", vec_tag(evect)), |b| {
                        syevd_part::<f64>(b, n, evect, true)
                    });
                }
            }
        }
    }
    let st = b.h.workspace_stats();
    out!("gpublas handle workspace: {st}");
    b.rows.push(json!({
        "bench": "eig", "what": "workspace stats", "mode": format!("{:?}", st.mode),
        "capacity": st.capacity, "peak_leased": st.peak_leased, "leases": st.leases,
        "growths": st.growths, "stream_ordered_allocs": st.stream_ordered_allocs,
        "degraded_calls": st.degraded_calls, "memory_errors": st.memory_errors,
        "queries": st.queries,
    }));
    Ok(b.rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_matrices_are_symmetric_or_hermitian() {
        let (n, count) = (5, 3);
        let a = symmetric::<f64>(n, count, 7).unwrap_or_default();
        assert_eq!(a.len(), n * n * count);
        for e in 0..count {
            for i in 0..n {
                for j in 0..n {
                    assert_eq!(a[e * n * n + i + j * n], a[e * n * n + j + i * n]);
                }
            }
        }
        let z = symmetric::<Complex64>(n, count, 7).unwrap_or_default();
        for e in 0..count {
            for i in 0..n {
                assert_eq!(z[e * n * n + i + i * n].im, 0.0);
                for j in 0..n {
                    assert_eq!(z[e * n * n + i + j * n], z[e * n * n + j + i * n].conj());
                }
            }
        }
        // Different entries of a batch differ.
        assert_ne!(a[..n * n], a[n * n..2 * n * n]);
    }

    #[test]
    fn eig_diff_is_per_entry_and_flags_nan() {
        let theirs = [1.0, 2.0, 100.0, 200.0];
        let mut ours = theirs;
        assert_eq!(eig_diff(&ours, &theirs, 2, 2), 0.0);
        // 0.1 off in the first entry (max |μ| = 2) weighs more than 1 off in the second
        // (max |μ| = 200).
        ours[0] += 0.1;
        ours[3] += 1.0;
        assert!((eig_diff(&ours, &theirs, 2, 2) - 0.05).abs() < 1e-15);
        ours[1] = f64::NAN;
        assert!(eig_diff(&ours, &theirs, 2, 2).is_nan());
        assert!(eig_diff(&ours[..3], &theirs, 2, 2).is_nan());
        assert_eq!(nonzero(&[0, 3, 0, -1], 3), 1);
    }
}
