//! `gpublas bench trsm`: the triangular solve (`trsm`, `trsm_strided_batched`, `trsm_ex`) and
//! the triangular inverse (`trtri`) against cuBLAS, in one process on the same GPU, stream
//! and data.
//!
//! Timing as in `gpublas bench blas3`: both libraries take `alpha = 1` on the host (cuBLAS in
//! pointer mode HOST); the gpublas handle is `Managed` (the default); before a row is timed,
//! one call of each library from the same inputs is compared (and serves as the warm-up);
//! each rate is the median of event-timed batches of back-to-back calls, gpublas and cuBLAS
//! one after the other on the same buffers. The solves work in place: `B` is restored from a
//! pristine device copy (a cuBLAS copy on the same stream, enqueued before the timer starts)
//! before every batch, and `A` is a triangle whose diagonal entries have magnitudes in
//! [1, 2) and whose off-diagonal entries are uniform in [-1, 1]/order, so the back-to-back
//! solves of a batch shrink `B` rather than grow it (each row checks that `B` is still finite
//! after its timed calls). `trtri` has no cuBLAS counterpart: its rate is set against the
//! DGEMM rate of the same run and its result against cuBLAS's trsm of `A` against the
//! identity. A row whose call fails (a routine not built yet, not enough memory) prints the
//! error and the run goes on.
//!
//! The command needs a CUDA GPU and a build with cuBLAS (`--features cublas`); otherwise it
//! fails with an error saying so.

use clap::Args;
use gpublas::{Device, Error};

/// Options of `gpublas bench trsm`.
#[derive(Args)]
pub struct TrsmArgs {
    /// Sizes 4x smaller in each dimension (batch counts and right-hand-side counts of the rhs
    /// group stay), main without its 16384 row, fewer repetitions (a smoke test).
    #[arg(long)]
    quick: bool,
    /// Only these groups (comma-separated): main, combos, rhs, batched, trtri, ex.
    #[arg(long)]
    only: Option<String>,
}

/// `gpublas bench trsm`: prints the table (to stderr with `--json`, which prints the rows as
/// JSON on stdout).
pub fn run(dev: &Device, args: &TrsmArgs, json: bool) -> Result<(), Error> {
    crate::bench::run_family(
        dev,
        |d, quick| crate::bench_host::run(d, crate::bench_host::Which::Trsm, quick),
        imp::run,
        args.quick,
        args.only.as_deref(),
        json,
    )
}

#[cfg(not(feature = "cublas"))]
mod imp {
    use gpublas::{Device, Error};
    use serde_json::Value;

    pub(super) fn run(_: &Device, _: bool, _: Option<&str>) -> Result<Vec<Value>, Error> {
        Err(Error::Unsupported(
            "gpublas bench trsm compares gpublas with cuBLAS, which this build leaves out: \
             rebuild with `--features cublas` (cargo build -p gpublas-cli --features \
             gpublas-cli/cublas)"
                .into(),
        ))
    }
}

#[cfg(feature = "cublas")]
mod imp {
    use crate::bench_util::{bytes, elems, err, fits, selected, size_query, Rng};
    use gpublas::blas3::{self, TrsmMethod};
    use gpublas::{
        Backend, Coef, Device, DeviceBuffer, Diag, Error, Handle, HandleConfig, Op, Scalar, Side,
        Status, Stream, Uplo, WorkspaceStats,
    };
    use gpublas_peers::cublas::{Cublas, CublasCompute, CublasScalar};
    use serde_json::{json, Value};

    use crate::bench::{out, time_steps, Step};

    /// The groups `--only` selects from, in the order they run.
    const GROUPS: [&str; 6] = ["main", "combos", "rhs", "batched", "trtri", "ex"];

    /// `alpha` of every solve; `alpha` and `beta` of the DGEMM reference.
    const ALPHA: f64 = 1.0;
    const BETA: f64 = 0.5;

    /// Targets (gpublas TFLOP/s / cuBLAS TFLOP/s) of the groups that have one.
    const TARGET_MAIN: f64 = 1.3;
    const TARGET_COMBOS: f64 = 1.0;
    const TARGET_RHS: f64 = 1.0;
    const TARGET_BATCHED: f64 = 2.0;

    /// The element types of the comparison (real: op C is op T).
    trait Val: Scalar + CublasScalar {
        const NAME: &'static str;
        /// Largest relative difference between gpublas and cuBLAS accepted as agreement.
        const TOL: f64;
        fn make(v: f64) -> Self;
        fn wide(self) -> f64;
    }

    impl Val for f64 {
        const NAME: &'static str = "f64";
        const TOL: f64 = 1e-10;
        fn make(v: f64) -> Self {
            v
        }
        fn wide(self) -> f64 {
            self
        }
    }

    impl Val for f32 {
        const NAME: &'static str = "f32";
        const TOL: f64 = 1e-4;
        fn make(v: f64) -> Self {
            v as f32
        }
        fn wide(self) -> f64 {
            self as f64
        }
    }

    fn host_random<T: Val>(len: usize, seed: u64) -> Vec<T> {
        let mut r = Rng(seed);
        (0..len).map(|_| T::make(r.val())).collect()
    }

    fn random<T: Val>(dev: &Device, len: usize, seed: u64) -> Result<DeviceBuffer<T>, Error> {
        dev.upload(&host_random::<T>(len, seed))
    }

    /// `count` `m × m` matrices, packed (both triangles filled), each with diagonal entries of
    /// magnitude in [1, 2) (random sign) and off-diagonal entries uniform in [-1, 1]/m: a
    /// well-conditioned triangle for either `uplo`, whose solves do not grow `B`.
    fn triangles<T: Val>(
        dev: &Device,
        m: usize,
        count: usize,
        seed: u64,
    ) -> Result<DeviceBuffer<T>, Error> {
        let mut r = Rng(seed);
        let s = 1.0 / m.max(1) as f64;
        let mut v = Vec::with_capacity(elems(elems(m, m)?, count)?);
        for _ in 0..count {
            for j in 0..m {
                for i in 0..m {
                    v.push(T::make(if i == j {
                        let d = 1.0 + r.unit();
                        if r.next() & 1 == 0 {
                            d
                        } else {
                            -d
                        }
                    } else {
                        (2.0 * r.unit() - 1.0) * s
                    }));
                }
            }
        }
        dev.upload(&v)
    }

    /// `max |a - b| / max |b|` (NaN when a difference is NaN or the lengths differ).
    fn rel_diff<T: Val>(a: &[T], b: &[T]) -> f64 {
        if a.len() != b.len() {
            return f64::NAN;
        }
        let (mut d, mut m) = (0.0f64, 0.0f64);
        for (&p, &q) in a.iter().zip(b) {
            let (p, q) = (p.wide(), q.wide());
            let e = (p - q).abs();
            if e.is_nan() {
                // f64::max drops NaN: report it instead.
                return f64::NAN;
            }
            d = d.max(e);
            m = m.max(q.abs());
        }
        if m > 0.0 {
            d / m
        } else {
            d
        }
    }

    /// The output of a row (`B` of the solves, the inverse of trtri, `C` of the DGEMM
    /// reference) and a pristine device copy of its initial contents.
    struct Out<T> {
        b: DeviceBuffer<T>,
        b0: DeviceBuffer<T>,
    }

    impl<T: Val> Out<T> {
        fn new(dev: &Device, init: &[T]) -> Result<Out<T>, Error> {
            Ok(Out {
                b: dev.upload(init)?,
                b0: dev.upload(init)?,
            })
        }

        fn random(dev: &Device, len: usize, seed: u64) -> Result<Out<T>, Error> {
            Out::new(dev, &host_random::<T>(len, seed))
        }

        /// The `n × n` identity.
        fn identity(dev: &Device, n: usize) -> Result<Out<T>, Error> {
            let mut v = vec![T::make(0.0); elems(n, n)?];
            for i in 0..n {
                v[i + i * n] = T::make(1.0);
            }
            Out::new(dev, &v)
        }

        /// Restores `b` from `b0`: a device-to-device copy enqueued on the cuBLAS handle's
        /// stream (the stream gpublas works on), so it is ordered before what follows.
        fn reset(&mut self, c: &Cublas) -> Result<(), Error> {
            c.copy(self.b0.len(), &self.b0, 1, &mut self.b, 1)
        }

        /// Whether every entry of `b` is finite.
        fn finite(&self) -> Result<bool, Error> {
            Ok(self.b.to_vec()?.iter().all(|v| v.wide().is_finite()))
        }
    }

    /// side, uplo, op, diag of a solve.
    type Tri = (Side, Uplo, Op, Diag);

    const LLNN: Tri = (Side::Left, Uplo::Lower, Op::N, Diag::NonUnit);

    /// `L L N N`-style letters of a solve.
    fn letters((side, uplo, op, diag): Tri) -> String {
        format!(
            "{} {} {} {}",
            if side == Side::Left { "L" } else { "R" },
            if uplo == Uplo::Lower { "L" } else { "U" },
            match op {
                Op::N => "N",
                Op::T => "T",
                Op::C => "C",
            },
            if diag == Diag::NonUnit { "N" } else { "U" }
        )
    }

    /// What a row is: names, flops per call, the agreement tolerance, the target.
    struct Spec {
        group: &'static str,
        op: String,
        ty: String,
        shape: String,
        flops: f64,
        tol: f64,
        /// gpublas TFLOP/s / cuBLAS TFLOP/s the row should reach.
        target: Option<f64>,
        /// What gpublas's result is compared with.
        reference: &'static str,
        /// In place: restore the output before every timed batch and check it is still
        /// finite after the timed calls.
        in_place: bool,
        /// Time the cuBLAS call too (false: it only gives the reference result).
        cublas_timed: bool,
    }

    /// TFLOP/s of a row, where measured.
    #[derive(Clone, Copy, Default)]
    struct Rates {
        ours: Option<f64>,
        theirs: Option<f64>,
    }

    struct Row {
        spec: Spec,
        ws: Result<usize, Error>,
        /// The handle's workspace statistics before and after the timed gpublas batches.
        before: WorkspaceStats,
        after: WorkspaceStats,
        ours: Result<f64, Error>,
        status: Status,
        /// `None` when cuBLAS is not timed.
        theirs: Option<Result<f64, Error>>,
        /// `max |ours - theirs| / max |theirs|` after one call of each from the same inputs.
        diff: Result<f64, Error>,
        /// In-place rows: whether the output was still finite after each library's timed
        /// calls.
        finite_ours: Option<bool>,
        finite_theirs: Option<bool>,
    }

    impl Row {
        fn tflops(&self, t: f64) -> f64 {
            self.spec.flops / t / 1e12
        }

        fn theirs_s(&self) -> Option<f64> {
            self.theirs.as_ref().and_then(|r| r.as_ref().ok()).copied()
        }

        fn rates(&self) -> Rates {
            Rates {
                ours: self.ours.as_ref().ok().map(|&t| self.tflops(t)),
                theirs: self.theirs_s().map(|t| self.tflops(t)),
            }
        }

        /// gpublas TFLOP/s / cuBLAS TFLOP/s.
        fn ratio(&self) -> Option<f64> {
            match (&self.ours, self.theirs_s()) {
                (Ok(o), Some(t)) => Some(t / o),
                _ => None,
            }
        }

        fn meets_target(&self) -> Option<bool> {
            Some(self.ratio()? >= self.spec.target?)
        }

        fn disagrees(&self) -> bool {
            matches!(&self.diff, Ok(d) if d.is_nan() || *d > self.spec.tol)
        }

        fn print(&self) {
            let ws = match &self.ws {
                Ok(b) => format!("{b:>10}"),
                Err(_) => format!("{:>10}", "error"),
            };
            let time = |r: Option<&Result<f64, Error>>| match r {
                Some(Ok(t)) => format!("{:9.3} {:8.2}", t * 1e3, self.tflops(*t)),
                Some(Err(_)) => format!("{:>9} {:>8}", "error", ""),
                None => format!("{:>9} {:>8}", "-", "-"),
            };
            let ratio = match self.ratio() {
                Some(r) => format!("{r:6.3}"),
                None => format!("{:>6}", "n/a"),
            };
            let target = match (self.spec.target, self.meets_target()) {
                (Some(t), Some(true)) => format!(">={t:<4.1} ok  "),
                (Some(t), Some(false)) => format!(">={t:<4.1} LOW "),
                (Some(t), None) => format!(">={t:<4.1}     "),
                (None, _) => format!("{:10}", ""),
            };
            let diff = match &self.diff {
                Ok(d) if self.disagrees() => format!("{d:8.1e} FAIL"),
                Ok(d) => format!("{d:8.1e} ok  "),
                Err(_) => format!("{:>8}     ", "n/a"),
            };
            out!(
                "{:7} {:15} {:4} {:>18} {} | {} | {} | {} {} | {}",
                self.spec.group,
                self.spec.op,
                self.spec.ty,
                self.spec.shape,
                ws,
                time(Some(&self.ours)),
                time(self.theirs.as_ref()),
                ratio,
                target,
                diff
            );
            if self.status != Status::Success {
                out!("    gpublas returned {:?}", self.status);
            }
            if self.disagrees() {
                if let Ok(d) = &self.diff {
                    out!(
                        "    gpublas and {} DISAGREE: relative difference {d:.2e} > {:.0e}",
                        self.spec.reference,
                        self.spec.tol
                    );
                }
            }
            for (who, f) in [
                ("gpublas", self.finite_ours),
                ("cuBLAS", self.finite_theirs),
            ] {
                if f == Some(false) {
                    out!("    {who}: B holds non-finite values after the timed calls");
                }
            }
            let growths = self.after.growths.saturating_sub(self.before.growths);
            if self.ours.is_ok() && growths > 0 {
                out!("    the gpublas workspace grew {growths} times while timed");
            }
            let timed_ok = self.ours.is_ok() && !matches!(self.theirs, Some(Err(_)));
            let theirs_err = self.theirs.as_ref().and_then(|r| r.as_ref().err());
            for (who, e) in [
                ("workspace query", self.ws.as_ref().err()),
                ("gpublas", self.ours.as_ref().err()),
                ("cuBLAS", theirs_err),
                ("comparison", self.diff.as_ref().err().filter(|_| timed_ok)),
            ] {
                if let Some(e) = e {
                    out!("    {who}: {e}");
                }
            }
        }

        fn json(&self) -> Value {
            let s = &self.spec;
            let theirs_err = self.theirs.as_ref().and_then(|r| r.as_ref().err());
            json!({
                "bench": "trsm", "group": s.group, "op": s.op, "type": s.ty, "shape": s.shape,
                "flops": s.flops,
                "ws_bytes": self.ws.as_ref().ok(), "ws_error": err(self.ws.as_ref().err()),
                "ws_capacity": self.after.capacity, "ws_peak_leased": self.after.peak_leased,
                "ws_mode": format!("{:?}", self.after.mode),
                "ws_growths_while_timed": self.after.growths.saturating_sub(self.before.growths),
                "ws_stream_ordered_allocs_while_timed": self
                    .after
                    .stream_ordered_allocs
                    .saturating_sub(self.before.stream_ordered_allocs),
                "ours_s": self.ours.as_ref().ok(), "ours_tflops": self.rates().ours,
                "ours_status": format!("{:?}", self.status),
                "ours_error": err(self.ours.as_ref().err()),
                "cublas_timed": s.cublas_timed,
                "cublas_s": self.theirs_s(), "cublas_tflops": self.rates().theirs,
                "cublas_error": err(theirs_err),
                "ratio": self.ratio(),
                "target": s.target, "meets_target": self.meets_target(),
                "reference": s.reference,
                "max_rel_diff": self.diff.as_ref().ok(),
                "diff_error": err(self.diff.as_ref().err()),
                "diff_tol": s.tol, "disagree": self.disagrees(),
                "finite_after_timing_ours": self.finite_ours,
                "finite_after_timing_cublas": self.finite_theirs,
            })
        }
    }

    /// Seconds per call of `call` on `out.b` (median of `reps` event-timed batches of `inner`
    /// calls), `out` restored before the warm-up and, with `each`, before every batch.
    #[allow(clippy::too_many_arguments)]
    fn timed<T: Val>(
        stream: &Stream,
        reps: usize,
        inner: usize,
        each: bool,
        out: &mut Out<T>,
        c: &Cublas,
        mut call: impl FnMut(&mut DeviceBuffer<T>) -> Result<(), Error>,
    ) -> Result<f64, Error> {
        out.reset(c)?;
        time_steps(stream, reps, inner, |s| match s {
            Step::Reset if each => out.reset(c),
            Step::Reset => Ok(()),
            Step::Call(_) => call(&mut out.b),
        })
    }

    /// One run: cuBLAS and the gpublas handle on one stream, the timing, the rows so far.
    struct Bench<'d> {
        /// Declared before `h`: the cuBLAS handle goes before the stream it works on.
        c: Cublas,
        h: Handle,
        dev: &'d Device,
        reps: usize,
        inner: usize,
        rows: Vec<Value>,
        /// gpublas's f64 `trsm L L N N` rates of this run, by `(m, n)` (the ex group's
        /// reference).
        trsm: Vec<((usize, usize), Rates)>,
    }

    impl Bench<'_> {
        /// Queries the workspace of `ours`, compares one call of each library from the same
        /// output contents, then times both (median of event-timed batches); prints the row
        /// and keeps its JSON. Returns the row's index among the JSON rows and its rates.
        fn row<T: Val>(
            &mut self,
            spec: Spec,
            out: &mut Out<T>,
            mut ours: impl FnMut(&mut Handle, &mut DeviceBuffer<T>) -> Result<Status, Error>,
            mut theirs: impl FnMut(&Cublas, &mut DeviceBuffer<T>) -> Result<(), Error>,
        ) -> (usize, Rates) {
            let (c, h) = (&self.c, &mut self.h);
            let ws = size_query(h, |h| ours(h, &mut out.b));
            let mut status = Status::Success;
            let mine = out
                .reset(c)
                .and_then(|_| ours(h, &mut out.b))
                .and_then(|st| {
                    status = st;
                    out.b.to_vec()
                });
            let cub = out
                .reset(c)
                .and_then(|_| theirs(c, &mut out.b))
                .and_then(|_| out.b.to_vec());
            let diff = match (mine, cub) {
                (Ok(a), Ok(b)) => Ok(rel_diff(&a, &b)),
                (Err(e), _) | (_, Err(e)) => Err(e),
            };
            let stream = h.stream().clone();
            let (reps, inner, each) = (self.reps, self.inner, spec.in_place);
            let before = h.workspace_stats();
            let t_ours = timed(&stream, reps, inner, each, out, c, |b| {
                ours(h, b).map(|st| status = st)
            });
            let after = h.workspace_stats();
            let finite = |out: &Out<T>, t: &Result<f64, Error>| {
                (each && t.is_ok()).then(|| out.finite().unwrap_or(false))
            };
            let finite_ours = finite(out, &t_ours);
            let (t_theirs, finite_theirs) = if spec.cublas_timed {
                let t = timed(&stream, reps, inner, each, out, c, |b| theirs(c, b));
                let f = finite(out, &t);
                (Some(t), f)
            } else {
                (None, None)
            };
            let row = Row {
                spec,
                ws,
                before,
                after,
                ours: t_ours,
                status,
                theirs: t_theirs,
                diff,
                finite_ours,
                finite_theirs,
            };
            row.print();
            self.rows.push(row.json());
            (self.rows.len() - 1, row.rates())
        }

        /// Runs one part of a group; an error setting it up (allocation, upload, memory) is
        /// printed and kept as a JSON row, and the run goes on.
        fn part(
            &mut self,
            group: &str,
            what: &str,
            f: impl FnOnce(&mut Self) -> Result<(), Error>,
        ) {
            if let Err(e) = f(self) {
                out!("{group}: {what} not run: {e}");
                self.rows.push(json!({
                    "bench": "trsm", "group": group, "what": what, "error": e.to_string()
                }));
            }
        }

        /// Adds a comparison of row `idx` (gpublas rate `own`) with a reference rate `r` of
        /// this run (`what` names it, `label` the quotient, `key` prefixes the JSON fields);
        /// a reference without a cuBLAS rate is shown for gpublas only.
        fn versus(
            &mut self,
            idx: usize,
            own: Option<f64>,
            (what, label, key): (&str, &str, &str),
            r: Rates,
        ) {
            let frac = |a: Option<f64>, b: Option<f64>| match (a, b) {
                (Some(a), Some(b)) if b > 0.0 => Some(a / b),
                _ => None,
            };
            let (fo, ft) = (frac(own, r.ours), frac(own, r.theirs));
            let show = |rate: Option<f64>, f: Option<f64>| match (rate, f) {
                (Some(rate), Some(f)) => format!("{rate:.2} TFLOP/s ({label} {f:.3})"),
                (Some(rate), None) => format!("{rate:.2} TFLOP/s"),
                _ => "n/a".to_string(),
            };
            let theirs = match r.theirs {
                Some(_) => format!(", cuBLAS {}", show(r.theirs, ft)),
                None => String::new(),
            };
            out!(
                "    {what} of this run: gpublas {}{theirs}",
                show(r.ours, fo)
            );
            if let Some(o) = self.rows.get_mut(idx).and_then(Value::as_object_mut) {
                o.insert(format!("{key}_what"), json!(what));
                o.insert(format!("{key}_ours_tflops"), json!(r.ours));
                o.insert(format!("{key}_cublas_tflops"), json!(r.theirs));
                o.insert(format!("ours_vs_{key}_ours"), json!(fo));
                o.insert(format!("ours_vs_{key}_cublas"), json!(ft));
            }
        }
    }

    /// One solve `tri` of `m × n` `B` (`out`, restored before every batch) with the triangle
    /// `a` (order `m` for `Side::Left`, `n` for `Side::Right`), gpublas `trsm` against cuBLAS
    /// `?trsm`; flops `m²n` (left) or `mn²` (right).
    #[allow(clippy::too_many_arguments)]
    fn trsm_row<T: Val>(
        b: &mut Bench<'_>,
        group: &'static str,
        tri: Tri,
        (m, n): (usize, usize),
        target: Option<f64>,
        a: &DeviceBuffer<T>,
        out: &mut Out<T>,
    ) -> (usize, Rates) {
        let (side, uplo, op, diag) = tri;
        let ka = if side == Side::Left { m } else { n };
        let (mf, nf) = (m as f64, n as f64);
        let spec = Spec {
            group,
            op: format!("trsm {}", letters(tri)),
            ty: T::NAME.into(),
            shape: format!("m={m} n={n}"),
            flops: if side == Side::Left {
                mf * mf * nf
            } else {
                mf * nf * nf
            },
            tol: T::TOL,
            target,
            reference: "cuBLAS trsm",
            in_place: true,
            cublas_timed: true,
        };
        let one = T::make(ALPHA);
        let r = b.row(
            spec,
            out,
            |h, bm| blas3::trsm(h, side, uplo, op, diag, m, n, Coef::Host(one), a, ka, bm, m),
            |cb, bm| cb.trsm(side, uplo, op, diag, m, n, one, a, ka, bm, m),
        );
        if T::NAME == "f64" && tri == LLNN {
            b.trsm.push(((m, n), r.1));
        }
        r
    }

    /// A triangle of order `ka` and a random `m × n` `B` (with its pristine copy).
    fn solve_inputs<T: Val>(
        b: &Bench<'_>,
        what: &str,
        ka: usize,
        (m, n): (usize, usize),
        seed: u64,
    ) -> Result<(DeviceBuffer<T>, Out<T>), Error> {
        let (la, lb) = (elems(ka, ka)?, elems(m, n)?);
        let need = bytes::<T>(la.saturating_add(lb.saturating_mul(2)))?;
        fits(b.dev, what, need)?;
        let a = triangles::<T>(b.dev, ka, 1, seed)?;
        let out = Out::<T>::random(b.dev, lb, seed + 1)?;
        Ok((a, out))
    }

    /// main: f64 `L L N N` at `m = n = s`.
    fn main_part(b: &mut Bench<'_>, s: usize) -> Result<(), Error> {
        let (a, mut out) = solve_inputs::<f64>(b, "trsm f64", s, (s, s), 101)?;
        trsm_row(b, "main", LLNN, (s, s), Some(TARGET_MAIN), &a, &mut out);
        Ok(())
    }

    /// combos: the 16 side × uplo × op (N, T) × diag solves of type `T` at `m = n = s`.
    fn combos_part<T: Val>(b: &mut Bench<'_>, s: usize) -> Result<(), Error> {
        let what = format!("trsm {}", T::NAME);
        let (a, mut out) = solve_inputs::<T>(b, &what, s, (s, s), 201)?;
        for side in [Side::Left, Side::Right] {
            for uplo in [Uplo::Lower, Uplo::Upper] {
                for op in [Op::N, Op::T] {
                    for diag in [Diag::NonUnit, Diag::Unit] {
                        let tri = (side, uplo, op, diag);
                        trsm_row(b, "combos", tri, (s, s), Some(TARGET_COMBOS), &a, &mut out);
                    }
                }
            }
        }
        Ok(())
    }

    /// rhs: f64 `L L N N` at order `m` with few right-hand sides.
    fn rhs_part(b: &mut Bench<'_>, m: usize, ns: &[usize]) -> Result<(), Error> {
        let maxn = ns.iter().copied().max().unwrap_or(1);
        fits(
            b.dev,
            "trsm f64 rhs",
            bytes::<f64>(elems(m, m)?.saturating_add(elems(m, maxn)?.saturating_mul(2)))?,
        )?;
        let a = triangles::<f64>(b.dev, m, 1, 301)?;
        for &n in ns {
            b.part("rhs", &format!("n={n}"), |b| {
                let mut out = Out::<f64>::random(b.dev, elems(m, n)?, 302 + n as u64)?;
                trsm_row(b, "rhs", LLNN, (m, n), Some(TARGET_RHS), &a, &mut out);
                Ok(())
            });
        }
        Ok(())
    }

    /// batched: `batch` packed f64 `s × s` triangles, `nrhs` right-hand sides each, `L L N
    /// N`: gpublas `trsm_strided_batched` against cuBLAS `?trsmBatched` (its pointer arrays
    /// built once, before anything is timed).
    fn batched_part(b: &mut Bench<'_>, batch: usize, s: usize, nrhs: usize) -> Result<(), Error> {
        let (sa, sb) = (elems(s, s)?, elems(s, nrhs)?);
        let (la, lb) = (elems(batch, sa)?, elems(batch, sb)?);
        fits(
            b.dev,
            "strided-batched trsm f64",
            bytes::<f64>(la.saturating_add(lb.saturating_mul(2)))?,
        )?;
        let a = triangles::<f64>(b.dev, s, batch, 401)?;
        let mut out = Out::<f64>::random(b.dev, lb, 402)?;
        let ptrs = b.c.batch_ptrs(&a, sa, &out.b, sb, batch)?;
        let (sf, nf) = (s as f64, nrhs as f64);
        let spec = Spec {
            group: "batched",
            op: format!("trsm_sb {}", letters(LLNN)),
            ty: "f64".into(),
            shape: format!("{batch} x m={s} n={nrhs}"),
            flops: sf * sf * nf * batch as f64,
            tol: f64::TOL,
            target: Some(TARGET_BATCHED),
            reference: "cuBLAS trsmBatched",
            in_place: true,
            cublas_timed: true,
        };
        let (side, uplo, op, diag) = LLNN;
        b.row(
            spec,
            &mut out,
            |h, bm| {
                blas3::trsm_strided_batched(
                    h,
                    side,
                    uplo,
                    op,
                    diag,
                    s,
                    nrhs,
                    Coef::Host(ALPHA),
                    &a,
                    s,
                    sa,
                    bm,
                    s,
                    sb,
                    batch,
                )
            },
            |cb, bm| {
                cb.trsm_batched(
                    side, uplo, op, diag, s, nrhs, ALPHA, &a, s, sa, bm, s, sb, batch, &ptrs,
                )
            },
        );
        Ok(())
    }

    /// The DGEMM rates of this run at `n³` (gpublas `gemm` and cuBLAS `gemm_ex`, `beta =
    /// 0.5`), printed as a row of their own.
    fn dgemm_ref(b: &mut Bench<'_>, n: usize) -> Rates {
        let mut r = Rates::default();
        b.part("trtri", "DGEMM reference", |b| {
            let l = elems(n, n)?;
            fits(b.dev, "DGEMM f64", bytes::<f64>(l.saturating_mul(4))?)?;
            let a = random::<f64>(b.dev, l, 501)?;
            let bm = random::<f64>(b.dev, l, 502)?;
            let mut c = Out::<f64>::random(b.dev, l, 503)?;
            let nf = n as f64;
            let spec = Spec {
                group: "trtri",
                op: "gemm (ref)".into(),
                ty: "f64".into(),
                shape: format!("{n}x{n}x{n}"),
                flops: 2.0 * nf * nf * nf,
                tol: f64::TOL,
                target: None,
                reference: "cuBLAS gemm_ex",
                in_place: false,
                cublas_timed: true,
            };
            r = b
                .row(
                    spec,
                    &mut c,
                    |h, c| {
                        blas3::gemm(
                            h,
                            Op::N,
                            Op::N,
                            n,
                            n,
                            n,
                            Coef::Host(ALPHA),
                            &a,
                            n,
                            &bm,
                            n,
                            Coef::Host(BETA),
                            c,
                            n,
                        )
                    },
                    |cb, c| {
                        cb.gemm_ex(
                            Op::N,
                            Op::N,
                            n,
                            n,
                            n,
                            ALPHA,
                            &a,
                            n,
                            &bm,
                            n,
                            BETA,
                            c,
                            n,
                            CublasCompute::F64,
                        )
                    },
                )
                .1;
            Ok(())
        });
        r
    }

    /// trtri: f64, non-unit, lower and upper, at order `n` (flops `n³/3`), each set against
    /// the DGEMM rate at `n³` of this run; the result is compared with cuBLAS's trsm of `A`
    /// against the identity (not timed: cuBLAS has no trtri).
    fn trtri_group(b: &mut Bench<'_>, n: usize) {
        let r = dgemm_ref(b, n);
        for uplo in [Uplo::Lower, Uplo::Upper] {
            let ul = if uplo == Uplo::Lower { "L" } else { "U" };
            b.part("trtri", &format!("trtri {ul} N f64"), |b| {
                let l = elems(n, n)?;
                fits(b.dev, "trtri f64", bytes::<f64>(l.saturating_mul(3))?)?;
                let a = triangles::<f64>(b.dev, n, 1, 601)?;
                let mut inv = Out::<f64>::identity(b.dev, n)?;
                let nf = n as f64;
                let spec = Spec {
                    group: "trtri",
                    op: format!("trtri {ul} N"),
                    ty: "f64".into(),
                    shape: format!("n={n}"),
                    flops: nf * nf * nf / 3.0,
                    tol: f64::TOL,
                    target: None,
                    reference: "cuBLAS trsm of A against I",
                    in_place: false,
                    cublas_timed: false,
                };
                let (idx, own) = b.row(
                    spec,
                    &mut inv,
                    |h, x| blas3::trtri(h, uplo, Diag::NonUnit, n, &a, n, x, n),
                    |cb, x| {
                        cb.trsm(
                            Side::Left,
                            uplo,
                            Op::N,
                            Diag::NonUnit,
                            n,
                            n,
                            1.0,
                            &a,
                            n,
                            x,
                            n,
                        )
                    },
                );
                let what = format!("DGEMM {n}x{n}x{n}");
                b.versus(idx, own.ours, (&what, "trtri/DGEMM", "dgemm"), r);
                Ok(())
            });
        }
    }

    /// ex: f64 `L L N N` at `m = n = s` through `trsm_ex` with `A`'s inverse from `trtri`
    /// (computed once, not timed) and with substitution, each against cuBLAS and set against
    /// gpublas's plain `trsm` of this run.
    fn ex_part(b: &mut Bench<'_>, s: usize) -> Result<(), Error> {
        let l = elems(s, s)?;
        fits(b.dev, "trsm_ex f64", bytes::<f64>(l.saturating_mul(4))?)?;
        let (a, mut out) = solve_inputs::<f64>(b, "trsm_ex f64", s, (s, s), 701)?;
        // A's inverse for TrsmMethod::Inverse, not timed; the inverse row is left out when
        // trtri fails.
        let mut inv = b.dev.alloc::<f64>(l)?;
        let have_inv =
            match blas3::trtri(&mut b.h, Uplo::Lower, Diag::NonUnit, s, &a, s, &mut inv, s)
                .and_then(|st| b.h.synchronize().map(|_| st))
            {
                Ok(st) => {
                    if st != Status::Success {
                        out!("ex: trtri for TrsmMethod::Inverse returned {st:?}");
                    }
                    true
                }
                Err(e) => {
                    out!("ex: trsm_ex inverse not run: trtri for TrsmMethod::Inverse failed: {e}");
                    b.rows.push(json!({
                        "bench": "trsm", "group": "ex", "what": "trsm_ex inverse",
                        "error": format!("trtri for TrsmMethod::Inverse: {e}")
                    }));
                    false
                }
            };
        let plain = match b.trsm.iter().find(|(k, _)| *k == (s, s)) {
            Some((_, r)) => *r,
            None => trsm_row(b, "ex", LLNN, (s, s), None, &a, &mut out).1,
        };
        let sf = s as f64;
        let (side, uplo, op, diag) = LLNN;
        let what = format!("plain trsm {} m={s} n={s}", letters(LLNN));
        for (name, inverse) in [("inverse", true), ("subst", false)] {
            if inverse && !have_inv {
                continue;
            }
            let spec = Spec {
                group: "ex",
                op: format!("trsm_ex {name}"),
                ty: "f64".into(),
                shape: format!("m={s} n={s}"),
                flops: sf * sf * sf,
                tol: f64::TOL,
                target: None,
                reference: "cuBLAS trsm",
                in_place: true,
                cublas_timed: true,
            };
            let (idx, own) = b.row(
                spec,
                &mut out,
                |h, bm| {
                    let method = if inverse {
                        TrsmMethod::Inverse((&inv, s))
                    } else {
                        TrsmMethod::Substitute
                    };
                    blas3::trsm_ex(
                        h,
                        side,
                        uplo,
                        op,
                        diag,
                        s,
                        s,
                        Coef::Host(ALPHA),
                        &a,
                        s,
                        bm,
                        s,
                        method,
                    )
                },
                |cb, bm| cb.trsm(side, uplo, op, diag, s, s, ALPHA, &a, s, bm, s),
            );
            // Against gpublas's own trsm only: the reference's cuBLAS rate is this row's.
            let r = Rates {
                ours: plain.ours,
                theirs: None,
            };
            b.versus(idx, own.ours, (&what, "trsm_ex/trsm", "trsm"), r);
        }
        Ok(())
    }

    /// `gpublas bench trsm`: prints the table, returns the JSON rows.
    pub(super) fn run(dev: &Device, quick: bool, only: Option<&str>) -> Result<Vec<Value>, Error> {
        let groups = selected(only, &GROUPS)?;
        if dev.backend() != Backend::Cuda {
            return Err(Error::Unsupported(format!(
                "gpublas bench trsm compares gpublas with cuBLAS on a CUDA GPU; the device is \
                 {} (no GPU found, or --device host)",
                dev.name()
            )));
        }
        // The default configuration (not the environment's): a Managed workspace.
        let mut h = Handle::with_config(dev, &HandleConfig::default())?;
        let c = Cublas::new(h.stream())?;
        // One warm-up call of each library first: gpublas's workspace and plan caches, cuBLAS's
        // and cuBLASLt's initialisation. A failure here shows again in the rows.
        {
            let w = 256;
            let a = random::<f64>(dev, w * w, 1)?;
            let mut cw = dev.alloc::<f64>(w * w)?;
            let mine = blas3::gemm(
                &mut h,
                Op::N,
                Op::N,
                w,
                w,
                w,
                Coef::Host(1.0f64),
                &a,
                w,
                &a,
                w,
                Coef::Host(0.0f64),
                &mut cw,
                w,
            );
            if let Err(e) = &mine {
                eprintln!("gpublas warm-up gemm failed: {e}");
            }
            if let Err(e) = c.gemm_ex(
                Op::N,
                Op::N,
                w,
                w,
                w,
                1.0f64,
                &a,
                w,
                &a,
                w,
                0.0f64,
                &mut cw,
                w,
                CublasCompute::F64,
            ) {
                eprintln!("cuBLAS warm-up gemm failed: {e}");
            }
            h.synchronize()?;
        }
        let (reps, inner) = if quick { (3, 2) } else { (11, 5) };
        let mut b = Bench {
            c,
            h,
            dev,
            reps,
            inner,
            rows: Vec::new(),
            trsm: Vec::new(),
        };
        // Full sizes; --quick divides every dimension by 4 (batch counts and the rhs group's
        // right-hand-side counts stay) and leaves out main's largest size.
        let d = |v: usize| if quick { v / 4 } else { v };
        out!(
            "Triangular solves on {} against cuBLAS (median of {reps} event-timed batches of \
             {inner} calls, B restored from a device copy before each batch; gpublas handle {:?})",
            dev.name(),
            b.h.workspace_mode()
        );
        out!(
            "alpha = {ALPHA} on the host for both; A: |diagonal| in [1, 2), off-diagonal uniform \
             in [-1, 1]/order; flops: trsm left m²n, right mn², trtri n³/3, gemm 2n³; ratio = \
             gpublas TFLOP/s / cuBLAS TFLOP/s, target = the ratio the row should reach; ws \
             bytes = a size query of the call; rel diff = max |gpublas - reference| / max \
             |reference| after one call of each from the same inputs (reference: cuBLAS's \
             result; trtri: cuBLAS trsm of A against I)"
        );
        out!(
            "{:7} {:15} {:4} {:>18} {:>10} | {:>9} {:>8} | {:>9} {:>8} | {:>6} {:10} | {:>13}",
            "group",
            "op",
            "type",
            "shape",
            "ws bytes",
            "gpublas ms",
            "TFLOP/s",
            "cuBLAS ms",
            "TFLOP/s",
            "ratio",
            "target",
            "rel diff"
        );
        for g in groups {
            match g {
                "main" => {
                    let sizes: &[usize] = if quick { &[8192] } else { &[8192, 16384] };
                    for &s in sizes {
                        let s = d(s);
                        b.part("main", &format!("f64 m=n={s}"), |b| main_part(b, s));
                    }
                }
                "combos" => {
                    b.part("combos", "f64", |b| combos_part::<f64>(b, d(8192)));
                    b.part("combos", "f32", |b| combos_part::<f32>(b, d(8192)));
                }
                "rhs" => b.part("rhs", "f64", |b| rhs_part(b, d(8192), &[1, 16, 128])),
                "batched" => b.part("batched", "f64", |b| batched_part(b, 10_000, d(32), d(32))),
                "trtri" => trtri_group(&mut b, d(8192)),
                _ => b.part("ex", "f64", |b| ex_part(b, d(8192))),
            }
        }
        let s = b.h.workspace_stats();
        out!("gpublas handle workspace: {s}");
        b.rows.push(json!({
            "bench": "trsm", "what": "workspace stats", "mode": format!("{:?}", s.mode),
            "capacity": s.capacity, "peak_leased": s.peak_leased, "leases": s.leases,
            "growths": s.growths, "stream_ordered_allocs": s.stream_ordered_allocs,
            "degraded_calls": s.degraded_calls, "memory_errors": s.memory_errors,
            "queries": s.queries,
        }));
        Ok(b.rows)
    }
}
