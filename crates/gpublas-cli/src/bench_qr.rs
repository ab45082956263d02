//! `gpublas bench qr`: Householder QR (`geqrf`, square and tall-skinny), the explicit `Q`
//! (`orgqr`), `Q`'s product with a matrix (`ormqr`) and the strided-batched `geqrf` against
//! cuSOLVER (`cusolverDn?geqrf` for f64, f32 and Complex64, `cusolverDnDorgqr`,
//! `cusolverDnDormqr`) and cuBLAS (`cublasDgeqrfBatched`), in one process on the same GPU,
//! stream and data. Every row is f64 except the f32 and Complex64 geqrf rows.
//!
//! Every row: the gpublas workspace need of the call from a size query (placeholder
//! operands, nothing runs) beside cuSOLVER's `?_bufferSize` answer for the same call (bytes;
//! cuBLAS's batched QR takes no workspace argument: "none"); one call of each library from the
//! same input (also the warm-up: the first call of a shape compiles kernels and grows the
//! gpublas workspace), whose results are compared; then each library's time, the median of
//! single calls each timed by a CUDA-event pair. The routines work in place: before every call
//! the written matrix is copied back from a pristine device buffer (a cuBLAS copy on the same
//! stream, enqueued before the start event, so the copy is outside the timed region). The
//! gpublas handle is `Managed` (the default); the ratio is gpublas TFLOP/s / reference
//! TFLOP/s, with complex flops counted as real ones (4× the real count).
//!
//! The comparison: with LAPACK's sign convention (`beta = -sign(Re alpha) ‖x‖`) the factors
//! of a full-rank matrix are unique, so both libraries give the same `R`, Householder vectors
//! and `tau` up to rounding. geqrf rows show the relative difference of `R` (the upper
//! trapezoid) and of the reflectors (the vectors below the diagonal, and `tau`), each `max |a -
//! b| / max |b|`; where `R` disagrees, the difference of `|R(i, i)|` tells a sign convention
//! other than LAPACK's (rows of `R` negated) from wrong factors. orgqr compares `Q`, ormqr
//! the product. cuSOLVER's `info` (0, or `-i` for a bad argument) is read once and printed
//! when non-zero.
//!
//! Inputs come from the shared generator (splitmix64, `bench_util::Rng`): entries uniform in
//! ±[0.25, 1) (complex: real and imaginary parts so, from consecutive values). orgqr and ormqr
//! start from cuSOLVER's factors of one random matrix (factored once, not timed), so both
//! libraries apply the same reflectors. A row whose call fails (a routine not built yet, not
//! enough memory) prints the error and the run goes on.
//!
//! On a GPU the command needs a build with cuBLAS and cuSOLVER (`--features cublas`); on the
//! host backend it times gpublas's host geqrf beside faer's (`bench_qr/host.rs`).

use clap::Args;
use gpublas::{Device, Error};

mod host;

/// Options of `gpublas bench qr`.
#[derive(Args)]
pub struct QrArgs {
    /// A smoke run: geqrf at 1024 and 2048 (f32 and Complex64 at 1024), tall-skinny 100000 ×
    /// 16 and 20000 × 64, orgqr and ormqr at 1024 (C 1024 × 1024 and 1024 × 64), batches of
    /// 1000 × 32² and 100 × 64², three timed calls per row.
    #[arg(long)]
    quick: bool,
    /// Only these groups (comma-separated): geqrf, tall, orgqr, ormqr, batched.
    #[arg(long)]
    only: Option<String>,
}

/// `gpublas bench qr`: prints the table (to stderr with `--json`, which prints the rows as
/// JSON on stdout); on the host backend, this family's own host table (the host backend beside
/// faer).
pub fn run(dev: &Device, args: &QrArgs, json: bool) -> Result<(), Error> {
    crate::bench::run_family(
        dev,
        host::run,
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
            "gpublas bench qr compares gpublas with cuSOLVER, which this build leaves out: \
             rebuild with `--features cublas` (cargo build -p gpublas-cli --features \
             gpublas-cli/cublas)"
                .into(),
        ))
    }
}

#[cfg(feature = "cublas")]
mod imp {
    use crate::bench::{median, out};
    use crate::bench_util::{bytes, elems, err, fits, selected, size_query};
    use gpublas::{
        solver, Backend, Complex64, Device, DeviceBuffer, Diag, Error, Handle, HandleConfig, Op,
        Results, Side, Status, Stream, Timer, Uplo, WorkspaceStats,
    };
    use gpublas_peers::cublas::Cublas;
    use gpublas_peers::cusolver::{BatchPtrArray, Cusolver};
    use serde_json::{json, Value};

    /// The groups `--only` selects from, in the order they run.
    const GROUPS: [&str; 6] = ["geqrf", "tall", "orgqr", "ormqr", "gels", "batched"];

    mod data;
    use data::*;

    /// The device buffers of a row: the matrix the calls overwrite (`A` of geqrf and orgqr,
    /// `C` of ormqr), its pristine copy, the `tau` geqrf writes and the `info` cuSOLVER writes.
    struct Work<T: Elem> {
        a: DeviceBuffer<T>,
        a0: DeviceBuffer<T>,
        tau: DeviceBuffer<T>,
        info: DeviceBuffer<i32>,
    }

    impl<T: Elem> Work<T> {
        /// Uploads `host` twice (working copy and pristine copy); `tau` entries of `tau`.
        fn new(dev: &Device, host: &[T], tau: usize) -> Result<Work<T>, Error> {
            Ok(Work {
                a: dev.upload(host)?,
                a0: dev.upload(host)?,
                tau: dev.alloc::<T>(tau.max(1))?,
                info: dev.alloc::<i32>(1)?,
            })
        }

        /// The working and pristine copies of the device matrix `src` (cuBLAS copies on the
        /// shared stream, ordered before what follows).
        fn copied(dev: &Device, c: &Cublas, src: &DeviceBuffer<T>) -> Result<Work<T>, Error> {
            let mut a = dev.alloc::<T>(src.len())?;
            let mut a0 = dev.alloc::<T>(src.len())?;
            c.copy(src.len(), src, 1, &mut a, 1)?;
            c.copy(src.len(), src, 1, &mut a0, 1)?;
            Ok(Work {
                a,
                a0,
                tau: dev.alloc::<T>(1)?,
                info: dev.alloc::<i32>(1)?,
            })
        }

        /// Restores `a` from `a0`: a device-to-device copy enqueued on the stream gpublas,
        /// cuSOLVER and cuBLAS share, so it is ordered before what follows.
        fn reset(&mut self, c: &Cublas) -> Result<(), Error> {
            c.copy(self.a0.len(), &self.a0, 1, &mut self.a, 1)
        }

        /// Fills `tau` with NaN and `info` with `i32::MIN` (synchronous), so that an entry a
        /// call leaves unwritten shows in the comparison.
        fn poison(&mut self) -> Result<(), Error> {
            self.tau.copy_from_host(&vec![T::nan(); self.tau.len()])?;
            self.info.copy_from_host(&[i32::MIN])
        }
    }

    /// What one call left behind, on the host.
    struct Snapshot<T> {
        a: Vec<T>,
        /// geqrf rows only.
        tau: Vec<T>,
        info: Vec<i32>,
    }

    impl<T: Elem> Snapshot<T> {
        fn read(w: &Work<T>, spec: &Spec) -> Result<Snapshot<T>, Error> {
            Ok(Snapshot {
                a: w.a.to_vec()?,
                tau: match spec.check {
                    Check::Factors => w.tau.to_vec()?,
                    Check::Whole => Vec::new(),
                },
                info: w.info.to_vec()?,
            })
        }
    }

    /// What a row compares.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Check {
        /// geqrf's factors: `R`, the reflectors (vectors and `tau`), `|R(i, i)|`.
        Factors,
        /// The whole written matrix (`Q` of orgqr, the product of ormqr).
        Whole,
    }

    /// The comparison of one call of each library from the same input.
    struct Agreement {
        /// `R` (geqrf), `Q` (orgqr) or the product (ormqr).
        rel_diff: f64,
        /// geqrf: the Householder vectors and `tau`, the worse of the two.
        refl_diff: Option<f64>,
        /// geqrf: `|R(i, i)|`, blind to the signs of `R`'s rows.
        diag_diff: Option<f64>,
        /// Non-zero `info` values of the reference (cuSOLVER's routines write one).
        info_theirs: Option<usize>,
    }

    impl Agreement {
        fn new<T: Elem>(spec: &Spec, p: &Snapshot<T>, q: &Snapshot<T>, info: bool) -> Agreement {
            let (r, c) = (spec.rows, spec.cols);
            let info_theirs = info.then(|| nonzero(&q.info));
            match spec.check {
                Check::Factors => Agreement {
                    rel_diff: rel_diff(&p.a, &q.a, r, c, Part::Upper),
                    refl_diff: Some(worst(
                        rel_diff(&p.a, &q.a, r, c, Part::StrictLower),
                        rel_diff(&p.tau, &q.tau, q.tau.len().max(1), 1, Part::All),
                    )),
                    diag_diff: Some(rel_diff(&p.a, &q.a, r, c, Part::AbsDiagonal)),
                    info_theirs,
                },
                Check::Whole => Agreement {
                    rel_diff: rel_diff(&p.a, &q.a, r, c, Part::All),
                    refl_diff: None,
                    diag_diff: None,
                    info_theirs,
                },
            }
        }

        fn off(d: f64, tol: f64) -> bool {
            d.is_nan() || d > tol
        }

        /// The main result or the reflectors differ beyond `tol`.
        fn disagrees(&self, tol: f64) -> bool {
            Self::off(self.rel_diff, tol) || self.refl_diff.is_some_and(|d| Self::off(d, tol))
        }
    }

    /// What a row is.
    struct Spec {
        group: &'static str,
        op: String,
        /// The element type (`Elem::NAME`).
        ty: &'static str,
        shape: String,
        flops: f64,
        /// gpublas TFLOP/s / reference TFLOP/s the row should reach.
        target: f64,
        /// Timed calls per library (the median is reported).
        reps: usize,
        /// Largest relative difference accepted as agreement.
        tol: f64,
        /// Shape of each compared matrix (`rows × cols`, leading dimension `rows`; a batch's
        /// entries one after the other) and what is compared.
        rows: usize,
        cols: usize,
        check: Check,
    }

    /// One call of a reference on the shared stream.
    type RefCall<'a, T> =
        Box<dyn FnMut(&Cusolver, &Cublas, &mut Work<T>) -> Result<(), Error> + 'a>;

    /// The routine a row times gpublas against.
    struct Reference<'a, T: Elem> {
        /// The routine, as the table and the JSON rows name it.
        name: String,
        /// Its workspace in bytes from cuSOLVER's `?_bufferSize` (`None`: the routine takes
        /// no workspace argument), or the query's error.
        ws: Result<Option<usize>, Error>,
        /// It writes `info` to the device (cuSOLVER; cuBLAS's batched QR returns it on the
        /// host, checked by the wrapper).
        info: bool,
        call: RefCall<'a, T>,
    }

    impl<'a, T: Elem> Reference<'a, T> {
        fn new(
            name: impl Into<String>,
            ws: Result<Option<usize>, Error>,
            info: bool,
            call: impl FnMut(&Cusolver, &Cublas, &mut Work<T>) -> Result<(), Error> + 'a,
        ) -> Reference<'a, T> {
            Reference {
                name: name.into(),
                ws,
                info,
                call: Box::new(call),
            }
        }
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
        their_ws: Result<Option<usize>, Error>,
        theirs: Result<(f64, Vec<f64>), Error>,
        agree: Result<Agreement, Error>,
    }

    impl Row {
        fn tflops(&self, t: f64) -> f64 {
            self.spec.flops / t / 1e12
        }

        fn ours_s(&self) -> Option<f64> {
            self.ours.as_ref().ok().map(|t| t.0)
        }

        fn theirs_s(&self) -> Option<f64> {
            self.theirs.as_ref().ok().map(|t| t.0)
        }

        /// gpublas TFLOP/s / reference TFLOP/s.
        fn ratio(&self) -> Option<f64> {
            match (self.ours_s(), self.theirs_s()) {
                (Some(o), Some(t)) if o > 0.0 => Some(t / o),
                _ => None,
            }
        }

        fn meets_target(&self) -> Option<bool> {
            Some(self.ratio()? >= self.spec.target)
        }

        fn disagrees(&self) -> bool {
            self.agree
                .as_ref()
                .is_ok_and(|a| a.disagrees(self.spec.tol))
        }

        /// The lines under the row about the comparison: loud where the results differ.
        fn notes(&self) {
            let s = &self.spec;
            let Ok(a) = &self.agree else {
                return;
            };
            let what = match s.check {
                Check::Factors => "R",
                Check::Whole if s.group == "orgqr" => "Q",
                Check::Whole => "the product",
            };
            if Agreement::off(a.rel_diff, s.tol) {
                out!(
                    "    MISMATCH: gpublas and {} DISAGREE on {what}: relative difference {:.2e} \
                     > {:.0e}",
                    self.their_name,
                    a.rel_diff,
                    s.tol
                );
                if let Some(d) = a.diag_diff {
                    if Agreement::off(d, s.tol) {
                        out!("    |R(i, i)| differ as well ({d:.2e}): the factors are wrong");
                    } else {
                        out!(
                            "    |R(i, i)| agree ({d:.2e}): rows of R differ in sign, a sign \
                             convention other than LAPACK's (beta = -sign(Re alpha) |x|)"
                        );
                    }
                }
            }
            if let Some(d) = a.refl_diff.filter(|&d| Agreement::off(d, s.tol)) {
                out!(
                    "    MISMATCH: gpublas and {} DISAGREE on the reflectors (vectors below the \
                     diagonal, tau): relative difference {d:.2e} > {:.0e}",
                    self.their_name,
                    s.tol
                );
            }
            if let Some(i) = a.info_theirs.filter(|&i| i > 0) {
                out!(
                    "    {} wrote a non-zero info ({i} entries): it rejected an argument",
                    self.their_name
                );
            }
        }

        fn print(&self) {
            let s = &self.spec;
            let ws = match &self.ws {
                Ok(b) => format!("{b:>11}"),
                Err(_) => format!("{:>11}", "error"),
            };
            let their_ws = match &self.their_ws {
                Ok(Some(b)) => format!("{b:>11}"),
                Ok(None) => format!("{:>11}", "none"),
                Err(_) => format!("{:>11}", "error"),
            };
            let time = |r: Option<f64>, failed: bool| match r {
                Some(t) => format!("{:9.3} {:7.2}", t * 1e3, self.tflops(t)),
                None if failed => format!("{:>9} {:>7}", "error", ""),
                None => format!("{:>9} {:>7}", "-", "-"),
            };
            let ratio = match self.ratio() {
                Some(r) => format!("{r:6.3}"),
                None => format!("{:>6}", "n/a"),
            };
            let target = match self.meets_target() {
                Some(true) => format!(">={:<4.2} ok ", s.target),
                Some(false) => format!(">={:<4.2} LOW", s.target),
                None => format!(">={:<4.2}    ", s.target),
            };
            let agree = match &self.agree {
                Ok(a) => {
                    let refl = match a.refl_diff {
                        Some(d) => format!("{d:8.1e}"),
                        None => format!("{:>8}", "-"),
                    };
                    let mark = if self.disagrees() { "FAIL" } else { "ok  " };
                    format!("{:8.1e} {refl} {mark}", a.rel_diff)
                }
                Err(_) => format!("{:>8} {:>8}     ", "n/a", ""),
            };
            out!(
                "{:7} {:9} {:4} {:>20} {} {} | {} | {} | {} {} | {} | {}",
                s.group,
                s.op,
                s.ty,
                s.shape,
                ws,
                their_ws,
                time(self.ours_s(), self.ours.is_err()),
                time(self.theirs_s(), self.theirs.is_err()),
                ratio,
                target,
                agree,
                self.their_name
            );
            if self.status != Status::Success {
                out!("    gpublas returned {:?}", self.status);
            }
            self.notes();
            let growths = self.after.growths.saturating_sub(self.before.growths);
            if self.ours.is_ok() && growths > 0 {
                out!("    the gpublas workspace grew {growths} times while timed");
            }
            let timed_ok = self.ours.is_ok() && self.theirs.is_ok();
            for (who, e) in [
                ("workspace query", self.ws.as_ref().err()),
                ("reference workspace query", self.their_ws.as_ref().err()),
                ("gpublas", self.ours.as_ref().err()),
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
            // The reference's keys are named as `bench solver`'s (cusolver_*), whichever library
            // the row is rated against ("reference" names it).
            json!({
                "bench": "qr", "group": s.group, "op": s.op, "type": s.ty,
                "shape": s.shape, "flops": s.flops, "quick": quick, "reps": s.reps,
                "ws_bytes": self.ws.as_ref().ok(), "ws_error": err(self.ws.as_ref().err()),
                "reference": self.their_name,
                "cusolver_ws_bytes": self.their_ws.as_ref().ok().copied().flatten(),
                "cusolver_ws_none": matches!(self.their_ws, Ok(None)),
                "cusolver_ws_error": err(self.their_ws.as_ref().err()),
                "ws_capacity": self.after.capacity, "ws_peak_leased": self.after.peak_leased,
                "ws_mode": format!("{:?}", self.after.mode),
                "ws_growths_while_timed": self.after.growths.saturating_sub(self.before.growths),
                "ours_s": self.ours_s(), "ours_tflops": self.ours_s().map(|t| self.tflops(t)),
                "ours_samples_s": self.ours.as_ref().ok().map(|t| t.1.clone()),
                "ours_status": self.ours.is_ok().then(|| format!("{:?}", self.status)),
                "ours_error": err(self.ours.as_ref().err()),
                "cusolver_s": self.theirs_s(),
                "cusolver_tflops": self.theirs_s().map(|t| self.tflops(t)),
                "cusolver_samples_s": self.theirs.as_ref().ok().map(|t| t.1.clone()),
                "cusolver_error": err(self.theirs.as_ref().err()),
                "ratio": self.ratio(), "target": s.target, "meets_target": self.meets_target(),
                "max_rel_diff": a.map(|a| a.rel_diff),
                "reflectors_rel_diff": a.and_then(|a| a.refl_diff),
                "abs_diagonal_rel_diff": a.and_then(|a| a.diag_diff),
                "info_nonzero_cusolver": a.and_then(|a| a.info_theirs),
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
        /// gpublas with one of the reference from the same input, then times both; prints the
        /// row and keeps its JSON.
        fn row<T: Elem>(
            &mut self,
            spec: Spec,
            w: &mut Work<T>,
            query: impl FnOnce(&mut Handle) -> Result<Status, Error>,
            mut ours: impl FnMut(&mut Handle, &mut Work<T>) -> Result<Status, Error>,
            mut theirs: Reference<'_, T>,
        ) {
            let (s, c, h) = (&self.s, &self.c, &mut self.h);
            let ws = size_query(h, query);
            let mut status = Status::Success;
            let mine = w
                .poison()
                .and_then(|_| w.reset(c))
                .and_then(|_| ours(h, w))
                .and_then(|st| {
                    status = st;
                    Snapshot::read(w, &spec)
                });
            let cus = w
                .poison()
                .and_then(|_| w.reset(c))
                .and_then(|_| (theirs.call)(s, c, w))
                .and_then(|_| Snapshot::read(w, &spec));
            let agree = match (&mine, &cus) {
                (Ok(p), Ok(q)) => Ok(Agreement::new(&spec, p, q, theirs.info)),
                (Err(e), _) | (_, Err(e)) => Err(e.clone()),
            };
            // The host copies can be gigabytes: gone before the timing.
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
                Ok(()) => timed(&stream, spec.reps, w, c, |w| (theirs.call)(s, c, w)),
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
                theirs: t_theirs,
                agree,
            };
            row.print();
            self.rows.push(row.json(self.quick));
        }

        /// Runs one part of a group; an error setting it up (memory, allocation, upload,
        /// cuSOLVER's factors) is printed and kept as a JSON row, and the run goes on.
        fn part(
            &mut self,
            group: &str,
            what: &str,
            f: impl FnOnce(&mut Self) -> Result<(), Error>,
        ) {
            if let Err(e) = f(self) {
                out!("{group}: {what} not run: {e}");
                self.rows.push(json!({
                    "bench": "qr", "group": group, "what": what, "error": e.to_string()
                }));
            }
        }

        /// cuSOLVER's QR factors of one random f64 `n × n` matrix (factored once here, not
        /// timed): the reflectors below the diagonal (`R` above) and `tau`, the input of the
        /// orgqr and ormqr rows, so both libraries apply the same reflectors.
        fn factors(
            &self,
            n: usize,
            seed: u64,
        ) -> Result<(DeviceBuffer<f64>, DeviceBuffer<f64>), Error> {
            let mut v = self.dev.upload(&general::<f64>(n, n, seed)?)?;
            let mut tau = self.dev.alloc::<f64>(n.max(1))?;
            let lwork = self.s.geqrf_buffer_size::<f64>(n, n, &v, n)?;
            let mut work = self.dev.alloc::<f64>(lwork.max(1))?;
            let mut info = self.dev.alloc::<i32>(1)?;
            self.s
                .geqrf(n, n, &mut v, n, &mut tau, &mut work, &mut info)?;
            let i = info.to_vec()?;
            if nonzero(&i) > 0 {
                return Err(Error::InvalidValue(format!(
                    "cusolverDnDgeqrf of the reflectors' {n} x {n} matrix returned info {i:?}"
                )));
            }
            Ok((v, tau))
        }
    }

    /// Timed calls per row of `flops`: few for the big factorizations (16384² geqrf takes
    /// about 0.3 s per call in cuSOLVER).
    fn reps_for(quick: bool, flops: f64) -> usize {
        match (quick, flops) {
            (true, _) => 3,
            (false, f) if f >= 2e12 => 3,
            (false, f) if f >= 1e11 => 5,
            _ => 21,
        }
    }

    /// geqrf of an `m × n` matrix: 2mn² − 2n³/3 (m ≥ n; the transposed count otherwise).
    fn geqrf_flops(m: usize, n: usize) -> f64 {
        let (p, q) = (m.max(n) as f64, m.min(n) as f64);
        2.0 * p * q * q - 2.0 * q * q * q / 3.0
    }

    /// orgqr of `m × n` from `k` reflectors: 4mnk − 2(m + n)k² + 4k³/3.
    fn orgqr_flops(m: usize, n: usize, k: usize) -> f64 {
        let (m, n, k) = (m as f64, n as f64, k as f64);
        4.0 * m * n * k - 2.0 * (m + n) * k * k + 4.0 * k * k * k / 3.0
    }

    /// ormqr from the left on an `m × n` matrix with `k` reflectors: 4mnk − 2nk².
    fn ormqr_left_flops(m: usize, n: usize, k: usize) -> f64 {
        let (m, n, k) = (m as f64, n as f64, k as f64);
        4.0 * m * n * k - 2.0 * n * k * k
    }

    /// cuSOLVER's workspace of a row: its size in bytes and, where the size query succeeded,
    /// the buffer.
    struct TheirWork<T: Elem> {
        bytes: Result<Option<usize>, Error>,
        buf: Option<DeviceBuffer<T>>,
    }

    /// A cuSOLVER workspace of `lwork` elements (one at least), or the query's error.
    fn their_work<T: Elem>(
        dev: &Device,
        lwork: &Result<usize, Error>,
    ) -> Result<TheirWork<T>, Error> {
        Ok(match lwork {
            Ok(l) => TheirWork {
                bytes: Ok(Some(bytes::<T>(*l)?)),
                buf: Some(dev.alloc::<T>((*l).max(1))?),
            },
            Err(e) => TheirWork {
                bytes: Err(e.clone()),
                buf: None,
            },
        })
    }

    fn no_work(e: &Result<Option<usize>, Error>) -> Error {
        match e {
            Err(e) => e.clone(),
            Ok(_) => Error::InvalidValue("no cuSOLVER workspace".into()),
        }
    }

    /// geqrf: QR of one random `m × n` matrix of `T` (flops 2mn² − 2n³/3, 4× that for
    /// complex), gpublas `geqrf` against `cusolverDn?geqrf`; `group` is "geqrf" (square) or
    /// "tall" (tall-skinny).
    fn geqrf_part<T: Elem>(
        b: &mut Bench<'_>,
        group: &'static str,
        m: usize,
        n: usize,
        target: f64,
    ) -> Result<(), Error> {
        let l = elems(m, n)?;
        let k = m.min(n);
        // The working and pristine copies, plus room for either library's workspace.
        fits(
            b.dev,
            &format!("geqrf {}", T::NAME),
            bytes::<T>(l.saturating_mul(2))?,
        )?;
        let mut w = {
            let host = general::<T>(m, n, 7000 + 31 * m as u64 + n as u64)?;
            Work::new(b.dev, &host, k)?
        };
        let lwork = b.s.geqrf_buffer_size::<T>(m, n, &w.a, m);
        let TheirWork {
            bytes: their_ws,
            buf: mut work,
        } = their_work::<T>(b.dev, &lwork)?;
        let flops = T::FLOP_SCALE * geqrf_flops(m, n);
        let spec = Spec {
            group,
            op: "geqrf".into(),
            ty: T::NAME,
            shape: if m == n {
                format!("n={n}")
            } else {
                format!("m={m} n={n}")
            },
            flops,
            target,
            reps: reps_for(b.quick, flops),
            tol: T::TOL,
            rows: m,
            cols: n,
            check: Check::Factors,
        };
        let missing = no_work(&their_ws);
        let theirs = Reference::new(
            format!("cusolverDn{}geqrf", T::LETTER),
            their_ws,
            true,
            move |s, _, w: &mut Work<T>| match work.as_mut() {
                Some(work) => s.geqrf(m, n, &mut w.a, m, &mut w.tau, work, &mut w.info),
                None => Err(missing.clone()),
            },
        );
        b.row(
            spec,
            &mut w,
            |h| {
                let mut a = DeviceBuffer::<T>::placeholder(l);
                let mut t = DeviceBuffer::<T>::placeholder(k);
                solver::geqrf(h, m, n, &mut a, m, &mut t)
            },
            |h, w| solver::geqrf(h, m, n, &mut w.a, m, &mut w.tau),
            theirs,
        );
        Ok(())
    }

    /// orgqr: the explicit f64 `Q` (`n × n`, `k = n`) from cuSOLVER's factors of one random
    /// matrix (flops 4n³/3), gpublas `orgqr` against `cusolverDnDorgqr`.
    fn orgqr_part(b: &mut Bench<'_>, n: usize) -> Result<(), Error> {
        let (m, k) = (n, n);
        let l = elems(m, n)?;
        // The factors, the working and pristine copies.
        fits(b.dev, "orgqr f64", bytes::<f64>(l.saturating_mul(3))?)?;
        let (v, tau) = b.factors(n, 8000 + n as u64)?;
        let mut w = Work::copied(b.dev, &b.c, &v)?;
        drop(v);
        let tau = &tau;
        let lwork = b.s.orgqr_buffer_size::<f64>(m, n, k, &w.a, m, tau);
        let TheirWork {
            bytes: their_ws,
            buf: mut work,
        } = their_work::<f64>(b.dev, &lwork)?;
        let flops = orgqr_flops(m, n, k);
        let spec = Spec {
            group: "orgqr",
            op: "orgqr".into(),
            ty: f64::NAME,
            shape: format!("n={n} k={k}"),
            flops,
            target: 1.0,
            reps: reps_for(b.quick, flops),
            tol: f64::TOL,
            rows: m,
            cols: n,
            check: Check::Whole,
        };
        let missing = no_work(&their_ws);
        let theirs = Reference::new(
            "cusolverDnDorgqr",
            their_ws,
            true,
            move |s, _, w: &mut Work<f64>| match work.as_mut() {
                Some(work) => s.orgqr(m, n, k, &mut w.a, m, tau, work, &mut w.info),
                None => Err(missing.clone()),
            },
        );
        b.row(
            spec,
            &mut w,
            |h| {
                let mut a = DeviceBuffer::<f64>::placeholder(l);
                let t = DeviceBuffer::<f64>::placeholder(k);
                solver::orgqr(h, m, n, k, &mut a, m, &t)
            },
            |h, w| solver::orgqr(h, m, n, k, &mut w.a, m, tau),
            theirs,
        );
        Ok(())
    }

    /// ormqr: `C := Qᵀ C` (Left, `Op::T`) with the f64 `Q` of order `n` given by cuSOLVER's
    /// `n` reflectors of one random matrix, for each width of `C` (`n × width`; flops 4mnk −
    /// 2nk²), gpublas `ormqr` against `cusolverDnDormqr`.
    fn ormqr_part(b: &mut Bench<'_>, n: usize, widths: &[usize]) -> Result<(), Error> {
        let k = n;
        let lv = elems(n, k)?;
        let maxw = widths.iter().copied().max().unwrap_or(1);
        fits(
            b.dev,
            "ormqr f64",
            bytes::<f64>(lv.saturating_add(elems(n, maxw)?.saturating_mul(2)))?,
        )?;
        let (v, tau) = b.factors(n, 9000 + n as u64)?;
        let (side, op) = (Side::Left, Op::T);
        for &nc in widths {
            b.part("ormqr", &format!("C {n} x {nc}"), |b| {
                let lc = elems(n, nc)?;
                let mut w = {
                    let host = general::<f64>(n, nc, 9100 + nc as u64)?;
                    Work::new(b.dev, &host, 1)?
                };
                let (v, tau) = (&v, &tau);
                let lwork =
                    b.s.ormqr_buffer_size::<f64>(side, op, n, nc, k, v, n, tau, &w.a, n);
                let TheirWork {
                    bytes: their_ws,
                    buf: mut work,
                } = their_work::<f64>(b.dev, &lwork)?;
                let flops = ormqr_left_flops(n, nc, k);
                let spec = Spec {
                    group: "ormqr",
                    op: "ormqr LT".into(),
                    ty: f64::NAME,
                    shape: format!("C {n} x {nc} k={k}"),
                    flops,
                    target: 1.0,
                    reps: reps_for(b.quick, flops),
                    tol: f64::TOL,
                    rows: n,
                    cols: nc,
                    check: Check::Whole,
                };
                let missing = no_work(&their_ws);
                let theirs = Reference::new(
                    "cusolverDnDormqr",
                    their_ws,
                    true,
                    move |s, _, w: &mut Work<f64>| match work.as_mut() {
                        Some(work) => s.ormqr(
                            side,
                            op,
                            n,
                            nc,
                            k,
                            v,
                            n,
                            tau,
                            &mut w.a,
                            n,
                            work,
                            &mut w.info,
                        ),
                        None => Err(missing.clone()),
                    },
                );
                b.row(
                    spec,
                    &mut w,
                    |h| {
                        let a = DeviceBuffer::<f64>::placeholder(lv);
                        let t = DeviceBuffer::<f64>::placeholder(k);
                        let mut c = DeviceBuffer::<f64>::placeholder(lc);
                        solver::ormqr(h, side, op, n, nc, k, &a, n, &t, &mut c, n)
                    },
                    |h, w| solver::ormqr(h, side, op, n, nc, k, v, n, tau, &mut w.a, n),
                    theirs,
                );
                Ok(())
            });
        }
        Ok(())
    }

    /// gels: the least-squares solution of one random f64 `m × n` system with `nrhs`
    /// right-hand sides (flops geqrf's + ormqr's + `n² nrhs`), gpublas `gels` against
    /// `cusolverDnDgeqrf` + `cusolverDnDormqr` (Qᵀ B) + `cublasDtrsm` (R X = (Qᵀ B)[..n]), the
    /// sequence PyTorch's `lstsq` runs. The compared matrix is `B` (the solution in its first
    /// `n` rows, the residual's coordinates below); both calls restore `A` from a pristine copy
    /// inside the timed region (one device copy of `A`, the same for both).
    fn gels_part(
        b: &mut Bench<'_>,
        (m, n, nrhs): (usize, usize, usize),
        target: f64,
    ) -> Result<(), Error> {
        let la = elems(m, n)?;
        let lb = elems(m, nrhs)?;
        fits(
            b.dev,
            "gels f64",
            bytes::<f64>(la.saturating_mul(2).saturating_add(lb.saturating_mul(2)))?,
        )?;
        let a0 = b.dev.upload(&general::<f64>(m, n, 11_000 + n as u64)?)?;
        let mut a = b.dev.alloc::<f64>(la)?;
        let mut w = {
            let host = general::<f64>(m, nrhs, 11_100 + nrhs as u64)?;
            Work::new(b.dev, &host, n)?
        };
        let k = n;
        let lq = b.s.geqrf_buffer_size::<f64>(m, n, &a0, m);
        let lo =
            b.s.ormqr_buffer_size::<f64>(Side::Left, Op::T, m, nrhs, k, &a0, m, &w.tau, &w.a, m);
        let lwork = match (lq, lo) {
            (Ok(x), Ok(y)) => Ok(x.max(y)),
            (Err(e), _) | (_, Err(e)) => Err(e),
        };
        let TheirWork {
            bytes: their_ws,
            buf: mut work,
        } = their_work::<f64>(b.dev, &lwork)?;
        let mut their_a = b.dev.alloc::<f64>(la)?;
        let mut their_tau = b.dev.alloc::<f64>(k.max(1))?;
        let a0r = &a0;
        let flops = geqrf_flops(m, n) + ormqr_left_flops(m, nrhs, k) + (n * n * nrhs) as f64;
        let spec = Spec {
            group: "gels",
            op: "gels N".into(),
            ty: f64::NAME,
            shape: format!("m={m} n={n} nrhs={nrhs}"),
            flops,
            target,
            reps: reps_for(b.quick, flops),
            tol: f64::TOL,
            rows: m,
            cols: nrhs,
            check: Check::Whole,
        };
        let missing = no_work(&their_ws);
        let theirs = Reference::new(
            "cusolverDnDgeqrf + Dormqr + cublasDtrsm",
            their_ws,
            true,
            move |s, c, w: &mut Work<f64>| {
                let Some(work) = work.as_mut() else {
                    return Err(missing.clone());
                };
                c.copy(la, a0r, 1, &mut their_a, 1)?;
                s.geqrf(m, n, &mut their_a, m, &mut their_tau, work, &mut w.info)?;
                s.ormqr(
                    Side::Left,
                    Op::T,
                    m,
                    nrhs,
                    k,
                    &their_a,
                    m,
                    &their_tau,
                    &mut w.a,
                    m,
                    work,
                    &mut w.info,
                )?;
                c.trsm(
                    Side::Left,
                    Uplo::Upper,
                    Op::N,
                    Diag::NonUnit,
                    n,
                    nrhs,
                    1.0,
                    &their_a,
                    m,
                    &mut w.a,
                    m,
                )
            },
        );
        b.row(
            spec,
            &mut w,
            |h| {
                let mut a = DeviceBuffer::<f64>::placeholder(la);
                let mut x = DeviceBuffer::<f64>::placeholder(lb);
                solver::gels(
                    h,
                    Op::N,
                    m,
                    n,
                    nrhs,
                    &mut a,
                    m,
                    &mut x,
                    m,
                    Results::Host(&mut [0]),
                )
            },
            |h, w| {
                let _ = gpublas::blas1::copy(h, la, a0r, 1, &mut a, 1)?;
                let info = Results::Device(&mut w.info);
                solver::gels(h, Op::N, m, n, nrhs, &mut a, m, &mut w.a, m, info)
            },
            theirs,
        );
        Ok(())
    }

    /// batched geqrf: `count` random f64 `n × n` matrices in one buffer (flops 4n³/3 each),
    /// their `tau` `n` apart, gpublas `geqrf_strided_batched` against `cublasDgeqrfBatched`
    /// (its pointer arrays built once, before anything is timed).
    fn geqrf_batched_part(
        b: &mut Bench<'_>,
        count: usize,
        n: usize,
        target: f64,
    ) -> Result<(), Error> {
        let one = elems(n, n)?;
        let l = elems(one, count)?;
        let taus = elems(n, count)?;
        fits(
            b.dev,
            "batched geqrf f64",
            bytes::<f64>(l.saturating_mul(2))?,
        )?;
        let mut w = {
            let host = general::<f64>(n, elems(n, count)?, 10_000 + n as u64)?;
            Work::new(b.dev, &host, taus)?
        };
        let ptrs = (
            BatchPtrArray::new(&w.a, one, count)?,
            BatchPtrArray::new(&w.tau, n, count)?,
        );
        let theirs = Reference::new(
            "cublasDgeqrfBatched",
            Ok(None),
            false,
            move |_, c, w: &mut Work<f64>| {
                c.geqrf_batched(
                    n,
                    n,
                    &mut w.a,
                    n,
                    one,
                    &mut w.tau,
                    n,
                    count,
                    (&ptrs.0, &ptrs.1),
                )
            },
        );
        let flops = geqrf_flops(n, n) * count as f64;
        let spec = Spec {
            group: "batched",
            op: "geqrf_sb".into(),
            ty: f64::NAME,
            shape: format!("{count} x n={n}"),
            flops,
            target,
            reps: reps_for(b.quick, flops),
            tol: f64::TOL,
            rows: n,
            cols: n,
            check: Check::Factors,
        };
        b.row(
            spec,
            &mut w,
            |h| {
                let mut a = DeviceBuffer::<f64>::placeholder(l);
                let mut t = DeviceBuffer::<f64>::placeholder(taus);
                solver::geqrf_strided_batched(h, n, n, &mut a, n, one, &mut t, n, count)
            },
            |h, w| solver::geqrf_strided_batched(h, n, n, &mut w.a, n, one, &mut w.tau, n, count),
            theirs,
        );
        Ok(())
    }

    /// `gpublas bench qr`: prints the table, returns the JSON rows.
    pub(super) fn run(dev: &Device, quick: bool, only: Option<&str>) -> Result<Vec<Value>, Error> {
        let groups = selected(only, &GROUPS)?;
        if dev.backend() != Backend::Cuda {
            return Err(Error::Unsupported(format!(
                "gpublas bench qr compares gpublas with cuSOLVER on a CUDA GPU; the device is \
                 {} (no GPU found, or --device host)",
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
            "Householder QR (f64; geqrf also f32 and Complex64) on {} against cuSOLVER (loaded \
             from {from}) and cuBLAS: median of single calls each timed by a CUDA-event pair (3 \
             for calls of 2 TFLOP or more, 5 from 0.1 TFLOP, 21 below; 3 with --quick); before \
             every call the written matrix is copied back from a pristine device buffer, outside the \
             timed region; gpublas handle {:?}",
            dev.name(),
            b.h.workspace_mode()
        );
        out!(
            "flops: geqrf 2mn² - 2n³/3 (complex 4×), orgqr 4mnk - 2(m+n)k² + 4k³/3, ormqr \
             (left) 4mnk - 2nk², per matrix for batches; ratio = gpublas TFLOP/s / reference \
             TFLOP/s; ws = gpublas workspace from a size query with placeholders, ref ws = \
             cuSOLVER's ?_bufferSize (bytes; none = no workspace argument); diff = max \
             |gpublas - reference| / max |reference| after one call of each from the same \
             input: R for geqrf (refl = the vectors below the diagonal and tau), Q for orgqr, \
             the product for ormqr"
        );
        out!(
            "{:7} {:9} {:4} {:>20} {:>11} {:>11} | {:>9} {:>7} | {:>9} {:>7} | {:>6} {:10} | {:>8} {:>8}      | {}",
            "group",
            "op",
            "type",
            "shape",
            "ws bytes",
            "ref ws",
            "gpublas ms",
            "TFLOP/s",
            "ref ms",
            "TFLOP/s",
            "ratio",
            "target",
            "diff",
            "refl",
            "reference"
        );
        for g in groups {
            match g {
                "geqrf" => {
                    let (sizes, other): (&[(usize, f64)], usize) = if quick {
                        (&[(1024, 1.10), (2048, 1.10)], 1024)
                    } else {
                        (&[(8192, 1.10), (16384, 1.10)], 8192)
                    };
                    for &(n, t) in sizes {
                        b.part("geqrf", &format!("n={n}"), |b| {
                            geqrf_part::<f64>(b, "geqrf", n, n, t)
                        });
                    }
                    b.part("geqrf", &format!("f32 n={other}"), |b| {
                        geqrf_part::<f32>(b, "geqrf", other, other, 1.0)
                    });
                    b.part("geqrf", &format!("c64 n={other}"), |b| {
                        geqrf_part::<Complex64>(b, "geqrf", other, other, 1.0)
                    });
                }
                "tall" => {
                    let shapes: &[(usize, usize, f64)] = if quick {
                        &[(100_000, 16, 5.0), (20_000, 64, 3.0)]
                    } else {
                        &[(1_000_000, 64, 5.0), (100_000, 256, 3.0)]
                    };
                    for &(m, n, t) in shapes {
                        b.part("tall", &format!("m={m} n={n}"), |b| {
                            geqrf_part::<f64>(b, "tall", m, n, t)
                        });
                    }
                }
                "orgqr" => {
                    let n = if quick { 1024 } else { 8192 };
                    b.part("orgqr", &format!("n={n}"), |b| orgqr_part(b, n));
                }
                "ormqr" => {
                    let (n, widths) = if quick {
                        (1024, [1024, 64])
                    } else {
                        (8192, [8192, 256])
                    };
                    b.part("ormqr", &format!("n={n}"), |b| ormqr_part(b, n, &widths));
                }
                "gels" => {
                    let shape = if quick {
                        (4096, 1024, 16)
                    } else {
                        (16384, 4096, 16)
                    };
                    b.part("gels", &format!("{shape:?}"), |b| gels_part(b, shape, 1.2));
                }
                _ => {
                    let batches: [(usize, usize); 2] = if quick {
                        [(1000, 32), (100, 64)]
                    } else {
                        [(10_000, 32), (1000, 128)]
                    };
                    for (count, n) in batches {
                        b.part("batched", &format!("geqrf {count} x {n}"), |b| {
                            geqrf_batched_part(b, count, n, 3.0)
                        });
                    }
                }
            }
        }
        let st = b.h.workspace_stats();
        out!("gpublas handle workspace: {st}");
        b.rows.push(json!({
            "bench": "qr", "what": "workspace stats", "mode": format!("{:?}", st.mode),
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
        fn flop_counts_match_the_issue() {
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs();
            let n = 8192.0f64;
            assert!(close(geqrf_flops(8192, 8192), 4.0 * n * n * n / 3.0));
            // Tall-skinny: 2mn² - 2n³/3, and the transposed shape counts the same.
            let (m, k) = (1e6f64, 64.0f64);
            assert!(close(
                geqrf_flops(1_000_000, 64),
                2.0 * m * k * k - 2.0 * k * k * k / 3.0
            ));
            assert_eq!(geqrf_flops(64, 1_000_000), geqrf_flops(1_000_000, 64));
            // orgqr with k = m = n: 4n³/3; ormqr left with m = k: 2mnk.
            assert!(close(orgqr_flops(8192, 8192, 8192), 4.0 * n * n * n / 3.0));
            assert!(close(
                ormqr_left_flops(8192, 256, 8192),
                2.0 * 256.0 * n * n
            ));
        }

        #[test]
        fn factors_agreement_flags_each_part() {
            let spec = |check| Spec {
                group: "geqrf",
                op: "geqrf".into(),
                ty: "f64",
                shape: String::new(),
                flops: 1.0,
                target: 1.0,
                reps: 1,
                tol: 1e-8,
                rows: 2,
                cols: 2,
                check,
            };
            let q = Snapshot {
                a: vec![2.0, 0.5, 1.0, -3.0],
                tau: vec![1.5, 0.0],
                info: vec![0],
            };
            let same = Snapshot {
                a: q.a.clone(),
                tau: q.tau.clone(),
                info: vec![0],
            };
            let a = Agreement::new(&spec(Check::Factors), &same, &q, true);
            assert!(!a.disagrees(1e-8));
            assert_eq!(a.info_theirs, Some(0));
            // R's second row negated (a sign convention other than LAPACK's): R disagrees,
            // |R(i, i)| does not.
            let mut flipped = Snapshot {
                a: vec![2.0, 0.5, 1.0, 3.0],
                tau: q.tau.clone(),
                info: vec![0],
            };
            let a = Agreement::new(&spec(Check::Factors), &flipped, &q, true);
            assert!(a.disagrees(1e-8));
            assert_eq!(a.diag_diff, Some(0.0));
            // tau left unwritten (NaN): the reflectors disagree.
            flipped.a = q.a.clone();
            flipped.tau[1] = f64::NAN;
            let a = Agreement::new(&spec(Check::Factors), &flipped, &q, false);
            assert!(a.disagrees(1e-8));
            assert!(a.refl_diff.is_some_and(f64::is_nan));
            assert_eq!(a.info_theirs, None);
            // Whole: every entry, no reflectors.
            let a = Agreement::new(&spec(Check::Whole), &flipped, &q, true);
            assert!(!a.disagrees(1e-8));
            assert_eq!(a.refl_diff, None);
        }
    }
}
