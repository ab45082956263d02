//! `gpublas bench solver`: LU with partial pivoting (`getrf`), Cholesky (`potrf`), the LU and
//! Cholesky solves (`getrs`, `potrs`), the batched factorizations (`getrf_strided_batched`,
//! `potrf_strided_batched`) and the LAPACK drivers (`getri` after `getrf`, and `getri` alone;
//! `gesv`; `posv`) against cuSOLVER (`cusolverDn?getrf` for f64, f32 and Complex64,
//! `cusolverDnDpotrf`, `cusolverDnDgetrs`, `cusolverDnDpotrs`, `cusolverDnDpotrfBatched`, and
//! `cusolverDnDgetrf` looped over the entries of the larger batches; for the drivers the
//! cuSOLVER routines that do their work: getrf + getrs against the identity for the inverse,
//! getrf + getrs for gesv, potrf + potrs for posv) and cuBLAS (`cublasDgetrfBatched`), in one
//! process on the same GPU, stream and data. Every row is f64 except the f32 and Complex64
//! getrf rows.
//!
//! Every row: the gpublas workspace need of the call from a size query (placeholder
//! operands, nothing runs) beside cuSOLVER's `?_bufferSize` answer for the same call (bytes;
//! the routines without a workspace argument show "none"); one call of each library from the
//! same input (also the warm-up: the first call of a shape compiles kernels and grows the
//! gpublas workspace), whose results are compared (max relative difference of the factors or
//! of the solution, complex entries by modulus; count of differing pivots; non-zero `info`
//! values); then each library's time, the median of single calls each timed by a CUDA-event
//! pair. The factorizations and the solves work in place: before every call the input is
//! copied back from a pristine device buffer (a cuBLAS copy on the same stream, enqueued
//! before the start event, so the copy is outside the timed region, and the host enqueues the
//! timed call while the GPU is still copying; the drivers' rows copy back both `A` and `B`, the
//! getri rows `A` and the identity). The drivers' rows compare the larger of the factors' and
//! the solution's differences (gesv, posv) or the inverses (getri); the workspace of the
//! getrf + getri row is one size query over both calls (the larger need), beside cuSOLVER's
//! getrf `bufferSize`. Pivots and `info` go to device memory (nothing waits). The gpublas
//! handle is `Managed` (the default); the ratio is gpublas TFLOP/s / reference TFLOP/s, with
//! complex flops counted as real ones (4× the real count).
//!
//! The batches of 512² and 2048² matrices have two references: `cublasDgetrfBatched` and
//! `cusolverDnDgetrf` called once per entry on the same stream (one workspace for all, the
//! whole loop timed as one region); both are compared and timed, and the row is rated against
//! the faster one, whose name it shows.
//!
//! Inputs come from the shared generator (splitmix64, `bench_util::Rng`): general matrices
//! uniform in ±[0.25, 1) (complex: real and imaginary parts so, from consecutive values); the
//! SPD matrices of the Cholesky rows are symmetric with such off-diagonal entries and a
//! diagonal of `n + 1 + |v|` (strictly diagonally dominant, so positive definite). `getrs`
//! solves with cuSOLVER's LU factors and pivots of one random matrix and `potrs` with
//! cuSOLVER's lower Cholesky factor of one SPD matrix (each factored once, not timed), so both
//! libraries solve the same system. A row whose call fails (a routine not built yet, not enough
//! memory) prints the error and the run goes on.
//!
//! The command needs a CUDA GPU and a build with cuBLAS and cuSOLVER (`--features cublas`).

use clap::Args;
use gpublas::{Device, Error};

/// Options of `gpublas bench solver`.
#[derive(Args)]
pub struct SolverArgs {
    /// A smoke run: orders 1024 and 2048 (f32 and Complex64 getrf at 2048, upper potrf at
    /// 1024), getrs and potrs at 1024, batches of 1000 × 32², 100 × 128², 20 × 256² and 4 ×
    /// 1024², getri at 1024 and 2048, gesv and posv at 1024 (gesv also 2048 with 16
    /// right-hand sides), three timed calls per row.
    #[arg(long)]
    quick: bool,
    /// Only these groups (comma-separated): getrf, potrf, getrs, potrs, batched, getri, gesv,
    /// posv; `group:text` runs only the group's rows whose shape contains `text` (e.g.
    /// `getrf:n=8192`, `getrf:f32`).
    #[arg(long)]
    only: Option<String>,
}

/// `gpublas bench solver`: prints the table (to stderr with `--json`, which prints the rows
/// as JSON on stdout).
pub fn run(dev: &Device, args: &SolverArgs, json: bool) -> Result<(), Error> {
    crate::bench::run_family(
        dev,
        |d, quick| crate::bench_host::run(d, crate::bench_host::Which::Solver, quick),
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
            "gpublas bench solver compares gpublas with cuSOLVER, which this build leaves out: \
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
        solver, Backend, Complex64, Device, DeviceBuffer, Error, Handle, HandleConfig, Op, Results,
        Status, Stream, Timer, Uplo, WorkspaceStats,
    };
    use gpublas_peers::cublas::Cublas;
    use gpublas_peers::cusolver::{BatchPtrArray, Cusolver};
    use serde_json::{json, Value};

    /// The groups `--only` selects from, in the order they run.
    const GROUPS: [&str; 8] = [
        "getrf", "potrf", "getrs", "potrs", "batched", "getri", "gesv", "posv",
    ];

    mod data;
    use data::*;
    mod drivers;
    mod row;
    use row::Row;

    /// The device buffers of a row: the matrix the calls overwrite (`A`, or `B` of the
    /// solves), its pristine copy, a second overwritten matrix with its pristine copy where the
    /// calls take two (`B` of the drivers gesv and posv, the identity cuSOLVER's getrs turns
    /// into the inverse in the getri rows), and the pivots and `info` the factorizations write.
    struct Work<T: Elem> {
        a: DeviceBuffer<T>,
        a0: DeviceBuffer<T>,
        b: Option<(DeviceBuffer<T>, DeviceBuffer<T>)>,
        piv: DeviceBuffer<i32>,
        info: DeviceBuffer<i32>,
    }

    /// `A`, `B`, the pivots and `info` of a [`Work`] with a second matrix, borrowed at once.
    type Split<'w, T> = (
        &'w mut DeviceBuffer<T>,
        &'w mut DeviceBuffer<T>,
        &'w mut DeviceBuffer<i32>,
        &'w mut DeviceBuffer<i32>,
    );

    impl<T: Elem> Work<T> {
        /// Uploads `host` twice (working copy and pristine copy); `piv` and `info` entries.
        fn new(dev: &Device, host: &[T], piv: usize, info: usize) -> Result<Work<T>, Error> {
            Ok(Work {
                a: dev.upload(host)?,
                a0: dev.upload(host)?,
                b: None,
                piv: dev.alloc::<i32>(piv.max(1))?,
                info: dev.alloc::<i32>(info.max(1))?,
            })
        }

        /// Adds the second matrix: `host` uploaded twice (working copy and pristine copy).
        fn with_b(mut self, dev: &Device, host: &[T]) -> Result<Work<T>, Error> {
            self.b = Some((dev.upload(host)?, dev.upload(host)?));
            Ok(self)
        }

        /// `A`, `B`, the pivots and `info`; an error where the row has no second matrix.
        fn split(&mut self) -> Result<Split<'_, T>, Error> {
            match &mut self.b {
                Some((b, _)) => Ok((&mut self.a, b, &mut self.piv, &mut self.info)),
                None => Err(Error::InvalidValue("the row has no second matrix".into())),
            }
        }

        /// Restores `a` from `a0` (and the second matrix from its copy): device-to-device
        /// copies enqueued on the stream gpublas, cuSOLVER and cuBLAS share, so they are
        /// ordered before what follows.
        fn reset(&mut self, c: &Cublas) -> Result<(), Error> {
            c.copy(self.a0.len(), &self.a0, 1, &mut self.a, 1)?;
            if let Some((b, b0)) = &mut self.b {
                c.copy(b0.len(), b0, 1, b, 1)?;
            }
            Ok(())
        }

        /// Fills the pivots and `info` with `i32::MIN` (synchronous), so that an entry a call
        /// leaves unwritten shows in the comparison.
        fn poison(&mut self) -> Result<(), Error> {
            self.piv.copy_from_host(&vec![i32::MIN; self.piv.len()])?;
            self.info.copy_from_host(&vec![i32::MIN; self.info.len()])
        }
    }

    /// What one call left behind, on the host (`b`: the second matrix, empty without one).
    struct Snapshot<T> {
        a: Vec<T>,
        b: Vec<T>,
        piv: Vec<i32>,
        info: Vec<i32>,
    }

    impl<T: Elem> Snapshot<T> {
        fn read(w: &Work<T>, spec: &Spec) -> Result<Snapshot<T>, Error> {
            Ok(Snapshot {
                a: w.a.to_vec()?,
                b: match &w.b {
                    Some((b, _)) => b.to_vec()?,
                    None => Vec::new(),
                },
                piv: if spec.pivots {
                    w.piv.to_vec()?
                } else {
                    Vec::new()
                },
                info: w.info.to_vec()?,
            })
        }
    }

    /// `a`'s NaN-keeping maximum with `b` (`f64::max` drops a NaN).
    fn max_nan(a: f64, b: f64) -> f64 {
        if a.is_nan() || b.is_nan() {
            f64::NAN
        } else {
            a.max(b)
        }
    }

    /// The comparison of gpublas's snapshot `p` with a reference's `q`: `spec.part` of the
    /// `spec.rows × spec.cols` matrices in `A` (where `in_b`, the reference's result is in its
    /// `B` instead: getrs against the identity), and, where both have a second matrix and
    /// `!in_b`, the larger of that and the whole second matrices' difference (the drivers: the
    /// factors and the solution).
    fn agreement<T: Elem>(p: &Snapshot<T>, q: &Snapshot<T>, spec: &Spec, in_b: bool) -> Agreement {
        let theirs = if in_b { &q.b } else { &q.a };
        let mut d = rel_diff(&p.a, theirs, spec.rows, spec.cols, spec.part);
        let second = !p.b.is_empty() || !q.b.is_empty();
        if second && !in_b {
            let rows = spec.rows.max(1);
            let x = rel_diff(&p.b, &q.b, rows, (q.b.len() / rows).max(1), Part::All);
            d = max_nan(d, x);
        }
        Agreement {
            rel_diff: d,
            piv_diff: spec.pivots.then(|| count_diff(&p.piv, &q.piv)),
            info_ours: spec.info.then(|| nonzero(&p.info)),
            info_theirs: nonzero(&q.info),
        }
    }

    /// The comparison of one call of each library from the same input.
    struct Agreement {
        rel_diff: f64,
        /// Pivots that differ (factorizations with pivoting only).
        piv_diff: Option<usize>,
        /// Non-zero `info` values of gpublas (routines that write one) and the reference.
        info_ours: Option<usize>,
        info_theirs: usize,
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
        /// Shape of the compared matrices (`rows × cols` each) and the part compared.
        rows: usize,
        cols: usize,
        part: Part,
        /// The routine writes pivots (compared).
        pivots: bool,
        /// gpublas writes `info` (the solves do not).
        info: bool,
    }

    /// One call of a reference on the shared stream.
    type RefCall<'a, T> =
        Box<dyn FnMut(&Cusolver, &Cublas, &mut Work<T>) -> Result<(), Error> + 'a>;

    /// A routine a row times gpublas against.
    struct Reference<'a, T: Elem> {
        /// The routine, as the table and the JSON rows name it.
        name: String,
        /// Its workspace in bytes from cuSOLVER's `?_bufferSize` (`None`: the routine takes
        /// no workspace argument), or the query's error.
        ws: Result<Option<usize>, Error>,
        call: RefCall<'a, T>,
        /// The result gpublas leaves in `A` is in `B` here (getrs against the identity leaves
        /// the inverse there and the factors in `A`): the comparison reads `B`.
        in_b: bool,
    }

    impl<'a, T: Elem> Reference<'a, T> {
        fn new(
            name: impl Into<String>,
            ws: Result<Option<usize>, Error>,
            call: impl FnMut(&Cusolver, &Cublas, &mut Work<T>) -> Result<(), Error> + 'a,
        ) -> Reference<'a, T> {
            Reference {
                name: name.into(),
                ws,
                call: Box::new(call),
                in_b: false,
            }
        }

        /// The reference leaves the compared result in `B` (see [`Reference::in_b`]).
        fn result_in_b(mut self) -> Reference<'a, T> {
            self.in_b = true;
            self
        }
    }

    /// A reference's results in a row.
    struct Theirs {
        name: String,
        ws: Result<Option<usize>, Error>,
        /// Median seconds per call, with the samples.
        time: Result<(f64, Vec<f64>), Error>,
        agree: Result<Agreement, Error>,
    }

    impl Theirs {
        fn secs(&self) -> Option<f64> {
            self.time.as_ref().ok().map(|t| t.0)
        }

        /// Timed faster than `other` (or timed where `other` failed).
        fn faster_than(&self, other: &Theirs) -> bool {
            match (self.secs(), other.secs()) {
                (Some(a), Some(b)) => a < b,
                (Some(_), None) => true,
                _ => false,
            }
        }

        fn disagrees(&self, tol: f64) -> bool {
            match &self.agree {
                Ok(a) => {
                    a.rel_diff.is_nan() || a.rel_diff > tol || a.piv_diff.is_some_and(|d| d > 0)
                }
                Err(_) => false,
            }
        }
    }

    /// The fastest of `refs` (the first where none was timed) and the others, in order;
    /// `None` for no references.
    fn fastest(refs: Vec<Theirs>) -> Option<(Theirs, Vec<Theirs>)> {
        let mut refs = refs.into_iter();
        let mut best = refs.next()?;
        let mut others = Vec::new();
        for t in refs {
            if t.faster_than(&best) {
                others.push(std::mem::replace(&mut best, t));
            } else {
                others.push(t);
            }
        }
        Some((best, others))
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
        // GPUBLAS_BENCH_HOST: also print the host's time to enqueue each call (when it comes
        // near the call's device time, the call is bound by its launches, not the GPU).
        let host = std::env::var_os("GPUBLAS_BENCH_HOST").is_some();
        let mut enqueue = Vec::new();
        for _ in 0..reps.max(1) {
            w.reset(c)?;
            let timer = Timer::start(stream)?;
            let t0 = std::time::Instant::now();
            call(w)?;
            enqueue.push(t0.elapsed().as_secs_f64());
            t.push(timer.stop()?);
        }
        if host {
            eprintln!(
                "GPUBLAS_BENCH_HOST enqueue ms {:.3?} device ms {:.3?}",
                enqueue.iter().map(|x| x * 1e3).collect::<Vec<_>>(),
                t.iter().map(|x| x * 1e3).collect::<Vec<_>>()
            );
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
        /// (group, text): a group named here runs only its rows whose shape contains one of
        /// its texts.
        filters: Vec<(String, String)>,
    }

    impl Bench<'_> {
        /// Queries the gpublas workspace (`query`, placeholder operands), compares one call of
        /// gpublas with one of each reference from the same input, then times gpublas and each
        /// reference; rates the row against the fastest reference; prints the row and keeps its
        /// JSON.
        fn row<T: Elem>(
            &mut self,
            spec: Spec,
            w: &mut Work<T>,
            query: impl FnOnce(&mut Handle) -> Result<Status, Error>,
            mut ours: impl FnMut(&mut Handle, &mut Work<T>) -> Result<Status, Error>,
            refs: Vec<Reference<'_, T>>,
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
            // One reference's snapshot at a time beside ours (the host copies can be
            // gigabytes); each is dropped once compared.
            let mut compared = Vec::with_capacity(refs.len());
            for mut r in refs {
                let cus = w
                    .poison()
                    .and_then(|_| w.reset(c))
                    .and_then(|_| (r.call)(s, c, w))
                    .and_then(|_| Snapshot::read(w, &spec));
                let agree = match (&mine, &cus) {
                    (Ok(p), Ok(q)) => Ok(agreement(p, q, &spec, r.in_b)),
                    (Err(e), _) | (_, Err(e)) => Err(e.clone()),
                };
                compared.push((r, cus.map(|_| ()), agree));
            }
            let mine = mine.map(|_| ());
            let stream = h.stream().clone();
            let before = h.workspace_stats();
            let t_ours = match mine {
                Ok(()) => timed(&stream, spec.reps, w, c, |w| {
                    ours(h, w).map(|st| status = st)
                }),
                Err(e) => Err(e),
            };
            let after = h.workspace_stats();
            let reps = spec.reps;
            let done: Vec<Theirs> = compared
                .into_iter()
                .map(|(mut r, called, agree)| Theirs {
                    time: match called {
                        Ok(()) => timed(&stream, reps, w, c, |w| (r.call)(s, c, w)),
                        Err(e) => Err(e),
                    },
                    name: r.name,
                    ws: r.ws,
                    agree,
                })
                .collect();
            let Some((theirs, others)) = fastest(done) else {
                out!("{} {}: no reference to time against", spec.op, spec.shape);
                return;
            };
            let row = Row {
                spec,
                ws,
                before,
                after,
                ours: t_ours,
                status,
                theirs,
                others,
            };
            row.print();
            self.rows.push(row.json(self.quick));
        }

        /// Runs one part of a group; an error setting it up (memory, allocation, upload) is
        /// printed and kept as a JSON row, and the run goes on.
        fn part(
            &mut self,
            group: &str,
            what: &str,
            f: impl FnOnce(&mut Self) -> Result<(), Error>,
        ) {
            let mut mine = self.filters.iter().filter(|(g, _)| g == group).peekable();
            if mine.peek().is_some() && !mine.any(|(_, t)| what.contains(t.as_str())) {
                return;
            }
            if let Err(e) = f(self) {
                out!("{group}: {what} not run: {e}");
                self.rows.push(json!({
                    "bench": "solver", "group": group, "what": what, "error": e.to_string()
                }));
            }
        }
    }

    /// Timed calls per row at order `n`: few for the big factorizations.
    fn reps_for(quick: bool, n: usize) -> usize {
        match (quick, n) {
            (true, _) => 3,
            (false, n) if n >= 16384 => 3,
            _ => 5,
        }
    }

    /// Timed calls per row of a batch of `n × n` matrices: fewer for the larger matrices
    /// (cuBLAS's batched LU is slow there).
    fn batch_reps(quick: bool, n: usize) -> usize {
        match (quick, n) {
            (true, _) => 3,
            (false, n) if n >= 512 => 5,
            _ => 21,
        }
    }

    /// cuSOLVER's workspace of a row: its size in bytes (`None`: the routine takes none) and,
    /// where the size query succeeded, the buffer.
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

    /// getrf: LU with partial pivoting of one random `n × n` matrix of `T` (flops 2n³/3, 4×
    /// that for complex), gpublas `getrf` against `cusolverDn?getrf`.
    fn getrf_part<T: Elem>(b: &mut Bench<'_>, n: usize, target: f64) -> Result<(), Error> {
        let l = elems(n, n)?;
        // The working and pristine copies, plus room for either library's workspace.
        fits(
            b.dev,
            &format!("getrf {}", T::NAME),
            bytes::<T>(l.saturating_mul(2))?,
        )?;
        let mut w = {
            let host = if T::SEPARATED {
                separated::<T>(n, 1000 + n as u64)?
            } else {
                general::<T>(n, n, 1000 + n as u64)?
            };
            Work::new(b.dev, &host, n, 1)?
        };
        let lwork = b.s.getrf_buffer_size::<T>(n, n, &w.a, n);
        let TheirWork {
            bytes: their_ws,
            buf: mut work,
        } = their_work::<T>(b.dev, &lwork)?;
        let nf = n as f64;
        let spec = Spec {
            group: "getrf",
            op: "getrf".into(),
            ty: T::NAME,
            shape: format!("n={n}"),
            flops: T::FLOP_SCALE * 2.0 * nf * nf * nf / 3.0,
            target,
            reps: reps_for(b.quick, n),
            tol: T::GETRF_TOL,
            rows: n,
            cols: n,
            part: Part::All,
            pivots: true,
            info: true,
        };
        let missing = no_work(&their_ws);
        let theirs = Reference::new(
            format!("cusolverDn{}getrf", T::LETTER),
            their_ws,
            move |s, _, w: &mut Work<T>| match work.as_mut() {
                Some(work) => s.getrf(n, n, &mut w.a, n, work, &mut w.piv, &mut w.info),
                None => Err(missing.clone()),
            },
        );
        b.row(
            spec,
            &mut w,
            |h| {
                let mut a = DeviceBuffer::<T>::placeholder(l);
                let mut p = DeviceBuffer::<i32>::placeholder(n);
                let mut i = DeviceBuffer::<i32>::placeholder(1);
                solver::getrf(
                    h,
                    n,
                    n,
                    &mut a,
                    n,
                    Results::Device(&mut p),
                    Results::Device(&mut i),
                )
            },
            |h, w| {
                solver::getrf(
                    h,
                    n,
                    n,
                    &mut w.a,
                    n,
                    Results::Device(&mut w.piv),
                    Results::Device(&mut w.info),
                )
            },
            vec![theirs],
        );
        Ok(())
    }

    /// potrf: f64 Cholesky (`uplo`) of one SPD `n × n` matrix (flops n³/3), gpublas `potrf`
    /// against `cusolverDnDpotrf`; the `uplo` triangles are compared (the other one is not the
    /// factor's).
    fn potrf_part(b: &mut Bench<'_>, n: usize, uplo: Uplo, target: f64) -> Result<(), Error> {
        let l = elems(n, n)?;
        fits(b.dev, "potrf f64", bytes::<f64>(l.saturating_mul(2))?)?;
        let mut w = {
            let host = spd(n, 1, 2000 + n as u64)?;
            Work::new(b.dev, &host, 1, 1)?
        };
        let lwork = b.s.potrf_buffer_size::<f64>(uplo, n, &w.a, n);
        let TheirWork {
            bytes: their_ws,
            buf: mut work,
        } = their_work::<f64>(b.dev, &lwork)?;
        let nf = n as f64;
        let (op, part) = match uplo {
            Uplo::Lower => ("potrf L", Part::Lower),
            Uplo::Upper => ("potrf U", Part::Upper),
        };
        let spec = Spec {
            group: "potrf",
            op: op.into(),
            ty: f64::NAME,
            shape: format!("n={n}"),
            flops: nf * nf * nf / 3.0,
            target,
            reps: reps_for(b.quick, n),
            tol: 1e-10,
            rows: n,
            cols: n,
            part,
            pivots: false,
            info: true,
        };
        let missing = no_work(&their_ws);
        let theirs = Reference::new(
            "cusolverDnDpotrf",
            their_ws,
            move |s, _, w: &mut Work<f64>| match work.as_mut() {
                Some(work) => s.potrf(uplo, n, &mut w.a, n, work, &mut w.info),
                None => Err(missing.clone()),
            },
        );
        b.row(
            spec,
            &mut w,
            |h| {
                let mut a = DeviceBuffer::<f64>::placeholder(l);
                let mut i = DeviceBuffer::<i32>::placeholder(1);
                solver::potrf(h, uplo, n, &mut a, n, Results::Device(&mut i))
            },
            |h, w| solver::potrf(h, uplo, n, &mut w.a, n, Results::Device(&mut w.info)),
            vec![theirs],
        );
        Ok(())
    }

    /// The row of an f64 solve of order `n` with `nrhs` right-hand sides (flops 2n²·nrhs,
    /// target 1.3×), shared by getrs and potrs.
    fn solve_spec(group: &'static str, op: &str, n: usize, nrhs: usize, quick: bool) -> Spec {
        let nf = n as f64;
        Spec {
            group,
            op: op.into(),
            ty: f64::NAME,
            shape: format!("n={n} nrhs={nrhs}"),
            flops: 2.0 * nf * nf * nrhs as f64,
            target: 1.3,
            reps: if quick { 3 } else { 21 },
            tol: 1e-8,
            rows: n,
            cols: nrhs,
            part: Part::All,
            pivots: false,
            info: false,
        }
    }

    /// getrs: f64 `A X = B` at order `n` for each right-hand-side count (flops 2n²·nrhs),
    /// gpublas `getrs` against `cusolverDnDgetrs`, both with cuSOLVER's factors and pivots of
    /// one random matrix (factored once here, not timed).
    fn getrs_part(b: &mut Bench<'_>, n: usize, nrhss: &[usize]) -> Result<(), Error> {
        let l = elems(n, n)?;
        let maxr = nrhss.iter().copied().max().unwrap_or(1);
        fits(
            b.dev,
            "getrs f64",
            bytes::<f64>(l.saturating_add(elems(n, maxr)?.saturating_mul(2)))?,
        )?;
        let mut lu = b.dev.upload(&general::<f64>(n, n, 3000 + n as u64)?)?;
        let mut piv = b.dev.alloc::<i32>(n.max(1))?;
        {
            let lwork = b.s.getrf_buffer_size::<f64>(n, n, &lu, n)?;
            let mut work = b.dev.alloc::<f64>(lwork.max(1))?;
            let mut info = b.dev.alloc::<i32>(1)?;
            b.s.getrf(n, n, &mut lu, n, &mut work, &mut piv, &mut info)?;
            let i = info.to_vec()?;
            if nonzero(&i) > 0 {
                out!("getrs: cusolverDnDgetrf of the system matrix returned info {i:?}");
            }
        }
        for &nrhs in nrhss {
            b.part("getrs", &format!("nrhs={nrhs}"), |b| {
                let lb = elems(n, nrhs)?;
                let mut w = {
                    let host = general::<f64>(n, nrhs, 3100 + nrhs as u64)?;
                    Work::new(b.dev, &host, 1, 1)?
                };
                let spec = solve_spec("getrs", "getrs N", n, nrhs, b.quick);
                let (lu, piv) = (&lu, &piv);
                let theirs =
                    Reference::new("cusolverDnDgetrs", Ok(None), |s, _, w: &mut Work<f64>| {
                        s.getrs(Op::N, n, nrhs, lu, n, piv, &mut w.a, n, &mut w.info)
                    });
                b.row(
                    spec,
                    &mut w,
                    |h| {
                        let a = DeviceBuffer::<f64>::placeholder(l);
                        let p = DeviceBuffer::<i32>::placeholder(n);
                        let mut x = DeviceBuffer::<f64>::placeholder(lb);
                        solver::getrs(h, Op::N, n, nrhs, &a, n, &p, &mut x, n)
                    },
                    |h, w| solver::getrs(h, Op::N, n, nrhs, lu, n, piv, &mut w.a, n),
                    vec![theirs],
                );
                Ok(())
            });
        }
        Ok(())
    }

    /// potrs: f64 `A X = B` with `A` SPD of order `n`, for each right-hand-side count (flops
    /// 2n²·nrhs), gpublas `potrs` against `cusolverDnDpotrs`, both with cuSOLVER's lower
    /// Cholesky factor of one SPD matrix (factored once here, not timed).
    fn potrs_part(b: &mut Bench<'_>, n: usize, nrhss: &[usize]) -> Result<(), Error> {
        let l = elems(n, n)?;
        let maxr = nrhss.iter().copied().max().unwrap_or(1);
        fits(
            b.dev,
            "potrs f64",
            bytes::<f64>(l.saturating_add(elems(n, maxr)?.saturating_mul(2)))?,
        )?;
        let uplo = Uplo::Lower;
        let mut chol = b.dev.upload(&spd(n, 1, 6000 + n as u64)?)?;
        {
            let lwork = b.s.potrf_buffer_size::<f64>(uplo, n, &chol, n)?;
            let mut work = b.dev.alloc::<f64>(lwork.max(1))?;
            let mut info = b.dev.alloc::<i32>(1)?;
            b.s.potrf(uplo, n, &mut chol, n, &mut work, &mut info)?;
            let i = info.to_vec()?;
            if nonzero(&i) > 0 {
                out!("potrs: cusolverDnDpotrf of the system matrix returned info {i:?}");
            }
        }
        for &nrhs in nrhss {
            b.part("potrs", &format!("nrhs={nrhs}"), |b| {
                let lb = elems(n, nrhs)?;
                let mut w = {
                    let host = general::<f64>(n, nrhs, 6100 + nrhs as u64)?;
                    Work::new(b.dev, &host, 1, 1)?
                };
                let spec = solve_spec("potrs", "potrs L", n, nrhs, b.quick);
                let chol = &chol;
                let theirs =
                    Reference::new("cusolverDnDpotrs", Ok(None), |s, _, w: &mut Work<f64>| {
                        s.potrs(uplo, n, nrhs, chol, n, &mut w.a, n, &mut w.info)
                    });
                b.row(
                    spec,
                    &mut w,
                    |h| {
                        let a = DeviceBuffer::<f64>::placeholder(l);
                        let mut x = DeviceBuffer::<f64>::placeholder(lb);
                        solver::potrs(h, uplo, n, nrhs, &a, n, &mut x, n)
                    },
                    |h, w| solver::potrs(h, uplo, n, nrhs, chol, n, &mut w.a, n),
                    vec![theirs],
                );
                Ok(())
            });
        }
        Ok(())
    }

    /// batched getrf: `count` random f64 `n × n` matrices in one buffer (flops 2n³/3 each),
    /// gpublas `getrf_strided_batched` against `cublasDgetrfBatched` (its pointer array built
    /// once, before anything is timed) and, with `looped`, also against `cusolverDnDgetrf`
    /// called once per entry (one workspace; the loop timed as one region): the row is rated
    /// against the faster.
    fn getrf_batched_part(
        b: &mut Bench<'_>,
        count: usize,
        n: usize,
        target: f64,
        looped: bool,
    ) -> Result<(), Error> {
        let one = elems(n, n)?;
        let l = elems(one, count)?;
        fits(
            b.dev,
            "batched getrf f64",
            bytes::<f64>(l.saturating_mul(2))?,
        )?;
        let mut w = {
            let host = general::<f64>(n, elems(n, count)?, 4000 + n as u64)?;
            Work::new(b.dev, &host, elems(n, count)?, count)?
        };
        let ptrs = BatchPtrArray::new(&w.a, one, count)?;
        let mut refs = vec![Reference::new(
            "cublasDgetrfBatched",
            Ok(None),
            move |_, c, w: &mut Work<f64>| {
                c.getrf_batched(n, &mut w.a, n, one, &mut w.piv, &mut w.info, count, &ptrs)
            },
        )];
        if looped {
            let lwork = b.s.getrf_buffer_size::<f64>(n, n, &w.a, n);
            let TheirWork {
                bytes: their_ws,
                buf: mut work,
            } = their_work::<f64>(b.dev, &lwork)?;
            let missing = no_work(&their_ws);
            refs.push(Reference::new(
                "cusolverDnDgetrf loop",
                their_ws,
                move |s, _, w: &mut Work<f64>| match work.as_mut() {
                    Some(work) => {
                        s.getrf_looped(n, &mut w.a, n, one, work, &mut w.piv, &mut w.info, count)
                    }
                    None => Err(missing.clone()),
                },
            ));
        }
        let nf = n as f64;
        let spec = Spec {
            group: "batched",
            op: "getrf_sb".into(),
            ty: f64::NAME,
            shape: format!("{count} x n={n}"),
            flops: 2.0 * nf * nf * nf / 3.0 * count as f64,
            target,
            reps: batch_reps(b.quick, n),
            tol: 1e-10,
            rows: n,
            cols: n,
            part: Part::All,
            pivots: true,
            info: true,
        };
        b.row(
            spec,
            &mut w,
            |h| {
                let mut a = DeviceBuffer::<f64>::placeholder(l);
                let mut p = DeviceBuffer::<i32>::placeholder(n * count);
                let mut i = DeviceBuffer::<i32>::placeholder(count);
                solver::getrf_strided_batched(
                    h,
                    n,
                    n,
                    &mut a,
                    n,
                    one,
                    Results::Device(&mut p),
                    n,
                    Results::Device(&mut i),
                    count,
                )
            },
            |h, w| {
                solver::getrf_strided_batched(
                    h,
                    n,
                    n,
                    &mut w.a,
                    n,
                    one,
                    Results::Device(&mut w.piv),
                    n,
                    Results::Device(&mut w.info),
                    count,
                )
            },
            refs,
        );
        Ok(())
    }

    /// batched potrf: `count` SPD f64 `n × n` matrices in one buffer (flops n³/3 each), lower,
    /// gpublas `potrf_strided_batched` against `cusolverDnDpotrfBatched` (pointer array built
    /// once); the lower triangles are compared (cuSOLVER may use the other as scratch).
    fn potrf_batched_part(b: &mut Bench<'_>, count: usize, n: usize) -> Result<(), Error> {
        let one = elems(n, n)?;
        let l = elems(one, count)?;
        fits(
            b.dev,
            "batched potrf f64",
            bytes::<f64>(l.saturating_mul(2))?,
        )?;
        let mut w = {
            let host = spd(n, count, 5000 + n as u64)?;
            Work::new(b.dev, &host, 1, count)?
        };
        let ptrs = BatchPtrArray::new(&w.a, one, count)?;
        let uplo = Uplo::Lower;
        let nf = n as f64;
        let spec = Spec {
            group: "batched",
            op: "potrf_sb L".into(),
            ty: f64::NAME,
            shape: format!("{count} x n={n}"),
            flops: nf * nf * nf / 3.0 * count as f64,
            target: 2.0,
            reps: batch_reps(b.quick, n),
            tol: 1e-10,
            rows: n,
            cols: n,
            part: Part::Lower,
            pivots: false,
            info: true,
        };
        let theirs = Reference::new(
            "cusolverDnDpotrfBatched",
            Ok(None),
            move |s, _, w: &mut Work<f64>| {
                s.potrf_batched(uplo, n, &mut w.a, n, one, &mut w.info, count, &ptrs)
            },
        );
        b.row(
            spec,
            &mut w,
            |h| {
                let mut a = DeviceBuffer::<f64>::placeholder(l);
                let mut i = DeviceBuffer::<i32>::placeholder(count);
                solver::potrf_strided_batched(
                    h,
                    uplo,
                    n,
                    &mut a,
                    n,
                    one,
                    Results::Device(&mut i),
                    count,
                )
            },
            |h, w| {
                solver::potrf_strided_batched(
                    h,
                    uplo,
                    n,
                    &mut w.a,
                    n,
                    one,
                    Results::Device(&mut w.info),
                    count,
                )
            },
            vec![theirs],
        );
        Ok(())
    }

    /// `gpublas bench solver`: prints the table, returns the JSON rows.
    pub(super) fn run(dev: &Device, quick: bool, only: Option<&str>) -> Result<Vec<Value>, Error> {
        // `group:text` tokens: the group, and only its rows whose shape contains the text.
        let (mut names, mut filters) = (Vec::new(), Vec::new());
        for t in only
            .unwrap_or("")
            .split(',')
            .filter(|t| !t.trim().is_empty())
        {
            let (g, f) = t.split_once(':').unwrap_or((t, ""));
            names.push(g.trim());
            if !f.is_empty() {
                filters.push((g.trim().to_string(), f.trim().to_string()));
            }
        }
        let names = names.join(",");
        let groups = selected(only.map(|_| names.as_str()), &GROUPS)?;
        if dev.backend() != Backend::Cuda {
            return Err(Error::Unsupported(format!(
                "gpublas bench solver compares gpublas with cuSOLVER on a CUDA GPU; the device \
                 is {} (no GPU found, or --device host)",
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
            filters,
        };
        out!(
            "LAPACK (f64; getrf also f32 and Complex64) on {} against cuSOLVER (loaded from \
             {from}) and cuBLAS: median of single calls each timed by a CUDA-event pair (3 calls \
             at n >= 16384, 5 below it (getrf, potrf, the drivers) and for batches of n >= 512, \
             21 for getrs, potrs and the smaller batches; 3 with --quick); before every call the \
             input (the drivers: A and B) is copied back from a pristine device buffer, outside \
             the timed region; gpublas handle {:?}",
            dev.name(),
            b.h.workspace_mode()
        );
        out!(
            "flops: getrf 2n³/3 (complex 8n³/3), potrf n³/3, getrs and potrs 2n²·nrhs (per \
             matrix for batches), getrf+getri 2n³ (the inverse from A; cuSOLVER: getrf, then \
             getrs against the identity), getri 4n³/3 (from cuSOLVER's factors; cuSOLVER: getrs \
             against the identity), gesv 2n³/3 + 2n²·nrhs (cuSOLVER: getrf + getrs), posv n³/3 + \
             2n²·nrhs (cuSOLVER: potrf + potrs); ratio = gpublas TFLOP/s / reference TFLOP/s \
             (where a batch has two references, cublasDgetrfBatched and cusolverDnDgetrf looped \
             over the entries, the faster, named last; the other is shown below the row); ws = \
             gpublas workspace from a size query with placeholders, cuSOLVER ws = its \
             ?_bufferSize (bytes; none = no workspace argument); rel diff = max |gpublas - reference| / max \
             |reference| (complex by modulus; the factor's triangle for potrf; gesv and posv: \
             the larger of the factors' and the solution's; getri: the inverses) after one call \
             of each from the same input, piv = pivots that differ"
        );
        out!(
            "{:7} {:11} {:4} {:>22} {:>11} {:>11} | {:>9} {:>7} | {:>9} {:>7} | {:>6} {:10} | {:>8} {:>6}      | {}",
            "group",
            "op",
            "type",
            "shape",
            "ws bytes",
            "cuSOLVER ws",
            "gpublas ms",
            "TFLOP/s",
            "ref ms",
            "TFLOP/s",
            "ratio",
            "target",
            "rel diff",
            "piv",
            "reference"
        );
        for g in groups {
            match g {
                "getrf" => {
                    let (sizes, other): (&[(usize, f64)], usize) = if quick {
                        (&[(1024, 1.10), (2048, 1.05)], 2048)
                    } else {
                        (&[(8192, 1.10), (16384, 1.05), (32768, 1.02)], 16384)
                    };
                    for &(n, t) in sizes {
                        b.part("getrf", &format!("f64 n={n}"), |b| {
                            getrf_part::<f64>(b, n, t)
                        });
                    }
                    b.part("getrf", &format!("f32 n={other}"), |b| {
                        getrf_part::<f32>(b, other, 1.0)
                    });
                    b.part("getrf", &format!("c64 n={other}"), |b| {
                        getrf_part::<Complex64>(b, other, 1.0)
                    });
                }
                "potrf" => {
                    let (sizes, upper): (&[(usize, f64)], usize) = if quick {
                        (&[(1024, 1.10), (2048, 1.05)], 1024)
                    } else {
                        (&[(8192, 1.10), (16384, 1.05), (32768, 1.02)], 8192)
                    };
                    // GPUBLAS_BENCH_N (orders, comma-separated) replaces the lower rows' orders
                    // (to study size effects; target 1.10).
                    let chosen: Vec<(usize, f64)> = std::env::var("GPUBLAS_BENCH_N")
                        .ok()
                        .map(|v| {
                            v.split(',')
                                .filter_map(|x| x.trim().parse().ok())
                                .map(|n| (n, 1.10))
                                .collect()
                        })
                        .unwrap_or_else(|| sizes.to_vec());
                    for &(n, t) in &chosen {
                        b.part("potrf", &format!("n={n}"), |b| {
                            potrf_part(b, n, Uplo::Lower, t)
                        });
                    }
                    b.part("potrf", &format!("upper n={upper}"), |b| {
                        potrf_part(b, upper, Uplo::Upper, 1.10)
                    });
                }
                "getrs" => {
                    let n = if quick { 1024 } else { 8192 };
                    b.part("getrs", &format!("n={n}"), |b| {
                        getrs_part(b, n, &[1, 16, 256])
                    });
                }
                "potrs" => {
                    let n = if quick { 1024 } else { 8192 };
                    b.part("potrs", &format!("n={n}"), |b| {
                        potrs_part(b, n, &[1, 16, 256])
                    });
                }
                "getri" => {
                    // Issue 31's target at 8192 (the full inverse from A); 1.0 at 4096.
                    let sizes: &[(usize, f64)] = if quick {
                        &[(1024, 1.0), (2048, 1.2)]
                    } else {
                        &[(4096, 1.0), (8192, 1.2)]
                    };
                    for &(n, t) in sizes {
                        b.part("getri", &format!("getrf+getri n={n}"), |b| {
                            drivers::getri_part(b, n, t)
                        });
                        b.part("getri", &format!("getri alone n={n}"), |b| {
                            drivers::getri_alone_part(b, n)
                        });
                    }
                }
                "gesv" => {
                    let shapes: &[(usize, usize)] = if quick {
                        &[(1024, 1), (1024, 256), (2048, 16)]
                    } else {
                        &[(8192, 1), (8192, 256), (16384, 16)]
                    };
                    for &(n, nrhs) in shapes {
                        b.part("gesv", &format!("n={n} nrhs={nrhs}"), |b| {
                            drivers::gesv_part(b, n, nrhs)
                        });
                    }
                }
                "posv" => {
                    let n = if quick { 1024 } else { 8192 };
                    for nrhs in [1, 256] {
                        b.part("posv", &format!("n={n} nrhs={nrhs}"), |b| {
                            drivers::posv_part(b, n, nrhs)
                        });
                    }
                }
                _ => {
                    let (small, large) = if quick { (1000, 100) } else { (10_000, 1000) };
                    // Batches of larger matrices, against the faster of cuBLAS's batched LU
                    // and cuSOLVER's looped over the entries.
                    let big: [(usize, usize); 2] = if quick {
                        [(20, 256), (4, 1024)]
                    } else {
                        [(100, 512), (20, 2048)]
                    };
                    b.part("batched", &format!("getrf {small} x 32"), |b| {
                        getrf_batched_part(b, small, 32, 2.0, false)
                    });
                    b.part("batched", &format!("getrf {large} x 128"), |b| {
                        getrf_batched_part(b, large, 128, 2.0, false)
                    });
                    for (count, n) in big {
                        b.part("batched", &format!("getrf {count} x {n}"), |b| {
                            getrf_batched_part(b, count, n, 1.5, true)
                        });
                    }
                    b.part("batched", &format!("potrf {small} x 32"), |b| {
                        potrf_batched_part(b, small, 32)
                    });
                }
            }
        }
        let st = b.h.workspace_stats();
        out!("gpublas handle workspace: {st}");
        b.rows.push(json!({
            "bench": "solver", "what": "workspace stats", "mode": format!("{:?}", st.mode),
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
        fn rows_are_rated_against_the_fastest_reference() {
            let t = |name: &str, time: Option<f64>| Theirs {
                name: name.into(),
                ws: Ok(None),
                time: time
                    .map(|s| (s, vec![s]))
                    .ok_or(Error::Unsupported("x".into())),
                agree: Err(Error::Unsupported("x".into())),
            };
            let names = |r: Option<(Theirs, Vec<Theirs>)>| {
                r.map(|(b, o)| (b.name, o.into_iter().map(|t| t.name).collect::<Vec<_>>()))
            };
            assert!(fastest(Vec::new()).is_none());
            let r = fastest(vec![t("a", Some(2.0)), t("b", Some(1.0))]);
            assert_eq!(names(r), Some(("b".into(), vec!["a".into()])));
            let r = fastest(vec![t("a", Some(1.0)), t("b", Some(1.0))]);
            assert_eq!(names(r), Some(("a".into(), vec!["b".into()])));
            // A reference that failed loses to one that was timed, else the first is kept.
            let r = fastest(vec![t("a", None), t("b", Some(3.0))]);
            assert_eq!(names(r), Some(("b".into(), vec!["a".into()])));
            let r = fastest(vec![t("a", None), t("b", None)]);
            assert_eq!(names(r), Some(("a".into(), vec!["b".into()])));
        }

        #[test]
        fn only_selects_the_driver_groups() {
            let g = selected(Some("getri,gesv,posv"), &GROUPS).unwrap_or_default();
            assert_eq!(g, vec!["getri", "gesv", "posv"]);
            assert!(selected(Some("gels"), &GROUPS).is_err());
        }

        #[test]
        fn drivers_compare_the_factors_and_the_solution() {
            let (n, nrhs) = (2, 3);
            let spec = Spec {
                group: "gesv",
                op: "gesv".into(),
                ty: "f64",
                shape: String::new(),
                flops: 1.0,
                target: 1.0,
                reps: 1,
                tol: 1e-8,
                rows: n,
                cols: n,
                part: Part::All,
                pivots: true,
                info: true,
            };
            let snap = |a: Vec<f64>, b: Vec<f64>| Snapshot {
                a,
                b,
                piv: vec![1, 2],
                info: vec![0],
            };
            let a = vec![4.0, 1.0, 2.0, 3.0];
            let x = vec![1.0, 2.0, 3.0, 4.0, 5.0, 10.0];
            assert_eq!(x.len(), n * nrhs);
            let mut x2 = x.clone();
            x2[5] = 11.0;
            // The factors agree, the solution differs by 1 / 10.
            let d = agreement(
                &snap(a.clone(), x2),
                &snap(a.clone(), x.clone()),
                &spec,
                false,
            );
            assert!((d.rel_diff - 0.1).abs() < 1e-12);
            assert_eq!(
                (d.piv_diff, d.info_ours, d.info_theirs),
                (Some(0), Some(0), 0)
            );
            let mut a2 = a.clone();
            a2[0] = f64::NAN;
            let d = agreement(
                &snap(a2, x.clone()),
                &snap(a.clone(), x.clone()),
                &spec,
                false,
            );
            assert!(d.rel_diff.is_nan());
            // getri: gpublas's inverse in A against the reference's in B (`nrhs = n`).
            let inv = vec![0.5, 0.25, 0.125, 1.0];
            let mut theirs = snap(a.clone(), inv.clone());
            let d = agreement(&snap(inv.clone(), vec![1.0; n * n]), &theirs, &spec, true);
            assert_eq!(d.rel_diff, 0.0);
            theirs.b[3] = 0.5;
            let d = agreement(&snap(inv, vec![1.0; n * n]), &theirs, &spec, true);
            assert!((d.rel_diff - 1.0).abs() < 1e-12);
        }

        #[test]
        fn rel_diff_of_complex_entries_is_by_modulus() {
            let b = vec![Complex64::new(3.0, 4.0), Complex64::new(0.0, 1.0)];
            let mut a = b.clone();
            a[1] = Complex64::new(0.3, 1.4);
            // |0.3 + 0.4i| / |3 + 4i| = 0.5 / 5.
            assert!((rel_diff(&a, &b, 2, 1, Part::All) - 0.1).abs() < 1e-12);
            a[0].im = f64::NAN;
            assert!(rel_diff(&a, &b, 2, 1, Part::All).is_nan());
        }
    }
}
