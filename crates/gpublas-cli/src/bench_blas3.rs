//! `gpublas bench blas3`: Level 3 (gemm, gemm_ex in f16 and bf16, strided-batched gemm, syrk,
//! herk, syr2k, symm, trmm) and the per-call overhead of a small gemm, against cuBLAS in one
//! process on the same GPU, stream and data.
//!
//! Both libraries take `alpha` and `beta` on the host (cuBLAS in pointer mode HOST). The
//! gpublas handle is `Managed` (the default); before a row is timed, one call of each library
//! from the same inputs is compared (and serves as the warm-up that puts the workspace and
//! the heuristic caches in place). Each rate is the median of event-timed batches of
//! back-to-back calls. trmm, which works in place, gets its `B` restored from a host copy
//! before every batch (outside the timed region) and uses a triangle with unit diagonal and
//! off-diagonal entries of size about 1/m, so repeated calls stay finite; the other routines
//! use `beta = 0.5`, so their `C` stays bounded over repeated calls. A row whose call fails
//! (a routine not built yet, not enough memory) prints the error and the run goes on.
//!
//! The `workspace` group (gpublas only, f64, orders 8192 and 16384; 1024 and 2048 with
//! `--quick`) times trmm, syrk, syr2k, symm and trsm on a handle fixed at each call's size
//! query and on one fixed at 8 MiB, and says where 8 MiB costs under 2 %
//! (`bench_blas3/imp/ws.rs`).
//!
//! The command needs a CUDA GPU and a build with cuBLAS (`--features cublas`); otherwise it
//! fails with an error saying so.

use clap::Args;
use gpublas::{Device, Error};

/// Options of `gpublas bench blas3`.
#[derive(Args)]
pub struct Blas3Args {
    /// Sizes 4x smaller in each dimension and fewer repetitions (a smoke test).
    #[arg(long)]
    quick: bool,
    /// Only these groups (comma-separated): gemm, batched, syrk, syr2k, symm, trmm, overhead,
    /// workspace.
    #[arg(long)]
    only: Option<String>,
}

/// `gpublas bench blas3`: prints the table (to stderr with `--json`, which prints the rows as
/// JSON on stdout).
pub fn run(dev: &Device, args: &Blas3Args, json: bool) -> Result<(), Error> {
    crate::bench::run_family(
        dev,
        |d, quick| crate::bench_host::run(d, crate::bench_host::Which::Blas3, quick),
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
            "gpublas bench blas3 compares gpublas with cuBLAS, which this build leaves out: \
             rebuild with `--features cublas` (cargo build -p gpublas-cli --features \
             gpublas-cli/cublas)"
                .into(),
        ))
    }
}

#[cfg(feature = "cublas")]
mod imp {
    use crate::bench_util::{bytes, elems, err, fits, selected, size_query, Rng};
    use std::time::Instant;

    use gpublas::blas3::{self, ComputeType};
    use gpublas::{
        bf16, f16, Backend, Coef, Complex64, Device, DeviceBuffer, Diag, Element, Error, Handle,
        HandleConfig, Op, Scalar, Side, Status, Stream, Uplo, WorkspaceStats,
    };
    use gpublas_peers::cublas::{Cublas, CublasCompute, CublasExIn, CublasExOut};
    use serde_json::{json, Value};

    use crate::bench::{median, out, time_steps, Step};

    /// The `workspace` group: each routine's need against a fixed 8 MiB workspace.
    mod ws;

    /// The groups `--only` selects from, in the order they run.
    const GROUPS: [&str; 8] = [
        "gemm",
        "batched",
        "syrk",
        "syr2k",
        "symm",
        "trmm",
        "overhead",
        "workspace",
    ];

    /// Back-to-back calls per round of the overhead group, and its rounds (median).
    const OVERHEAD_CALLS: usize = 2000;
    const OVERHEAD_ROUNDS: usize = 5;

    /// `alpha` and `beta` of every timed call but the overhead group's (`beta = 0` there).
    const ALPHA: f64 = 1.0;
    const BETA: f64 = 0.5;

    /// The element types of the comparison.
    trait Val: Element {
        const NAME: &'static str;
        /// A value from real and imaginary parts (the imaginary part is dropped for reals).
        fn make(re: f64, im: f64) -> Self;
        /// Real and imaginary parts, widened.
        fn parts(self) -> (f64, f64);
    }

    macro_rules! real_val {
        ($t:ty, $name:literal, |$v:ident| $from:expr, |$s:ident| $to:expr) => {
            impl Val for $t {
                const NAME: &'static str = $name;
                fn make($v: f64, _: f64) -> Self {
                    $from
                }
                fn parts(self) -> (f64, f64) {
                    let $s = self;
                    ($to, 0.0)
                }
            }
        };
    }
    real_val!(f64, "f64", |v| v, |s| s);
    real_val!(f32, "f32", |v| v as f32, |s| s as f64);
    real_val!(f16, "f16", |v| f16::from_f64(v), |s| s.to_f64());
    real_val!(bf16, "bf16", |v| bf16::from_f64(v), |s| s.to_f64());

    impl Val for Complex64 {
        const NAME: &'static str = "c64";
        fn make(re: f64, im: f64) -> Self {
            Complex64::new(re, im)
        }
        fn parts(self) -> (f64, f64) {
            (self.re, self.im)
        }
    }

    fn host_random<T: Val>(len: usize, seed: u64) -> Vec<T> {
        let mut r = Rng(seed);
        (0..len).map(|_| T::make(r.val(), r.val())).collect()
    }

    fn random<T: Val>(dev: &Device, len: usize, seed: u64) -> Result<DeviceBuffer<T>, Error> {
        dev.upload(&host_random::<T>(len, seed))
    }

    /// An `m × m` matrix (both triangles filled) with unit diagonal and off-diagonal entries
    /// of magnitude below 1/m: repeated triangular products with it stay close to `B`.
    fn triangle(dev: &Device, m: usize, seed: u64) -> Result<DeviceBuffer<f64>, Error> {
        let mut r = Rng(seed);
        let s = 1.0 / m as f64;
        let mut v = Vec::with_capacity(elems(m, m)?);
        for j in 0..m {
            for i in 0..m {
                v.push(if i == j { 1.0 } else { r.val() * s });
            }
        }
        dev.upload(&v)
    }

    /// `max |a - b| / max |b|` over `|re| + |im|` (NaN when a difference is NaN or the
    /// lengths differ).
    fn rel_diff<T: Val>(a: &[T], b: &[T]) -> f64 {
        if a.len() != b.len() {
            return f64::NAN;
        }
        let (mut d, mut m) = (0.0f64, 0.0f64);
        for (&p, &q) in a.iter().zip(b) {
            let ((pr, pi), (qr, qi)) = (p.parts(), q.parts());
            let e = (pr - qr).abs() + (pi - qi).abs();
            if e.is_nan() {
                // f64::max drops NaN: report it instead.
                return f64::NAN;
            }
            d = d.max(e);
            m = m.max(qr.abs() + qi.abs());
        }
        if m > 0.0 {
            d / m
        } else {
            d
        }
    }

    /// The output of a row (`C`, or `B` of trmm) and its initial contents.
    struct Out<O> {
        c: DeviceBuffer<O>,
        c0: Vec<O>,
    }

    impl<O: Val> Out<O> {
        fn random(dev: &Device, len: usize, seed: u64) -> Result<Out<O>, Error> {
            let c0 = host_random::<O>(len, seed);
            Ok(Out {
                c: dev.upload(&c0)?,
                c0,
            })
        }

        fn reset(&mut self) -> Result<(), Error> {
            self.c.copy_from_host(&self.c0)
        }
    }

    /// What a row is: names, flops per call, the agreement tolerance.
    struct Spec {
        group: &'static str,
        op: String,
        ty: String,
        shape: String,
        flops: f64,
        tol: f64,
        /// Restore the output before every timed batch (in-place routines).
        reset_each_batch: bool,
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
        theirs: Result<f64, Error>,
        /// `max |ours - theirs| / max |theirs|` after one call of each from the same inputs.
        diff: Result<f64, Error>,
    }

    impl Row {
        fn tflops(&self, t: f64) -> f64 {
            self.spec.flops / t / 1e12
        }

        fn rates(&self) -> Rates {
            Rates {
                ours: self.ours.as_ref().ok().map(|&t| self.tflops(t)),
                theirs: self.theirs.as_ref().ok().map(|&t| self.tflops(t)),
            }
        }

        /// gpublas TFLOP/s / cuBLAS TFLOP/s.
        fn ratio(&self) -> Option<f64> {
            match (&self.ours, &self.theirs) {
                (Ok(o), Ok(t)) => Some(t / o),
                _ => None,
            }
        }

        fn disagrees(&self) -> bool {
            matches!(&self.diff, Ok(d) if d.is_nan() || *d > self.spec.tol)
        }

        fn print(&self) {
            let ws = match &self.ws {
                Ok(b) => format!("{b:>10}"),
                Err(_) => format!("{:>10}", "error"),
            };
            let time = |r: &Result<f64, Error>| match r {
                Ok(t) => format!("{:9.3} {:8.2}", t * 1e3, self.tflops(*t)),
                Err(_) => format!("{:>9} {:>8}", "error", ""),
            };
            let ratio = match self.ratio() {
                Some(r) => format!("{r:6.3}"),
                None => format!("{:>6}", "n/a"),
            };
            let diff = match &self.diff {
                Ok(d) => format!("{d:8.1e}"),
                Err(_) => format!("{:>8}", "n/a"),
            };
            out!(
                "{:8} {:14} {:8} {:>16} {} | {} | {} | {} {}",
                self.spec.group,
                self.spec.op,
                self.spec.ty,
                self.spec.shape,
                ws,
                time(&self.ours),
                time(&self.theirs),
                ratio,
                diff
            );
            if self.status != Status::Success {
                out!("    gpublas returned {:?}", self.status);
            }
            if self.disagrees() {
                if let Ok(d) = &self.diff {
                    out!(
                        "    gpublas and cuBLAS DISAGREE: relative difference {d:.2e} > {:.0e}",
                        self.spec.tol
                    );
                }
            }
            let growths = self.after.growths.saturating_sub(self.before.growths);
            if self.ours.is_ok() && growths > 0 {
                out!("    the gpublas workspace grew {growths} times while timed");
            }
            let timed_ok = self.ours.is_ok() && self.theirs.is_ok();
            for (who, e) in [
                ("workspace query", self.ws.as_ref().err()),
                ("gpublas", self.ours.as_ref().err()),
                ("cuBLAS", self.theirs.as_ref().err()),
                ("comparison", self.diff.as_ref().err().filter(|_| timed_ok)),
            ] {
                if let Some(e) = e {
                    out!("    {who}: {e}");
                }
            }
        }

        fn json(&self) -> Value {
            let s = &self.spec;
            json!({
                "bench": "blas3", "group": s.group, "op": s.op, "type": s.ty, "shape": s.shape,
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
                "cublas_s": self.theirs.as_ref().ok(), "cublas_tflops": self.rates().theirs,
                "cublas_error": err(self.theirs.as_ref().err()),
                "ratio": self.ratio(),
                "max_rel_diff": self.diff.as_ref().ok(),
                "diff_error": err(self.diff.as_ref().err()),
                "diff_tol": s.tol, "disagree": self.disagrees(),
            })
        }
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
        /// DGEMM rates of this run, by `(m, n, k)` (the syrk group's reference).
        dgemm: Vec<((usize, usize, usize), Rates)>,
    }

    impl Bench<'_> {
        /// Queries the workspace of `ours`, compares one call of each library from the same
        /// output contents, then times both (median of event-timed batches); prints the row
        /// and keeps its JSON. Returns the row's index among the JSON rows and its rates.
        fn row<O: Val>(
            &mut self,
            spec: Spec,
            out: &mut Out<O>,
            mut ours: impl FnMut(&mut Handle, &mut DeviceBuffer<O>) -> Result<Status, Error>,
            mut theirs: impl FnMut(&Cublas, &mut DeviceBuffer<O>) -> Result<(), Error>,
        ) -> (usize, Rates) {
            let ws = size_query(&mut self.h, |h| ours(h, &mut out.c));
            let mut status = Status::Success;
            let mine = out
                .reset()
                .and_then(|_| ours(&mut self.h, &mut out.c))
                .and_then(|st| {
                    status = st;
                    out.c.to_vec()
                });
            let cub = out
                .reset()
                .and_then(|_| theirs(&self.c, &mut out.c))
                .and_then(|_| out.c.to_vec());
            let diff = match (mine, cub) {
                (Ok(a), Ok(b)) => Ok(rel_diff(&a, &b)),
                (Err(e), _) | (_, Err(e)) => Err(e),
            };
            let stream = self.h.stream().clone();
            let (reps, inner, each) = (self.reps, self.inner, spec.reset_each_batch);
            let before = self.h.workspace_stats();
            let h = &mut self.h;
            let t_ours = out.reset().and_then(|_| {
                time_steps(&stream, reps, inner, |s| match s {
                    Step::Reset if each => out.reset(),
                    Step::Reset => Ok(()),
                    Step::Call(_) => ours(h, &mut out.c).map(|st| status = st),
                })
            });
            let after = self.h.workspace_stats();
            let c = &self.c;
            let t_theirs = out.reset().and_then(|_| {
                time_steps(&stream, reps, inner, |s| match s {
                    Step::Reset if each => out.reset(),
                    Step::Reset => Ok(()),
                    Step::Call(_) => theirs(c, &mut out.c),
                })
            });
            let row = Row {
                spec,
                ws,
                before,
                after,
                ours: t_ours,
                status,
                theirs: t_theirs,
                diff,
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
                    "bench": "blas3", "group": group, "what": what, "error": e.to_string()
                }));
            }
        }

        /// Adds the comparison with the run's DGEMM rate `r` (at `shape`) to row `idx`.
        fn versus_dgemm(&mut self, idx: usize, own: Rates, shape: (usize, usize, usize), r: Rates) {
            let frac = |a: Option<f64>, b: Option<f64>| match (a, b) {
                (Some(a), Some(b)) if b > 0.0 => Some(a / b),
                _ => None,
            };
            let (fo, ft) = (frac(own.ours, r.ours), frac(own.theirs, r.theirs));
            let show = |rate: Option<f64>, f: Option<f64>| match (rate, f) {
                (Some(rate), Some(f)) => format!("{rate:.2} TFLOP/s (ratio {f:.3})"),
                (Some(rate), None) => format!("{rate:.2} TFLOP/s"),
                _ => "n/a".to_string(),
            };
            out!(
                "    DGEMM {}x{}x{} of this run: gpublas {}, cuBLAS {}",
                shape.0,
                shape.1,
                shape.2,
                show(r.ours, fo),
                show(r.theirs, ft)
            );
            if let Some(o) = self.rows.get_mut(idx).and_then(Value::as_object_mut) {
                o.insert(
                    "dgemm_shape".into(),
                    json!(format!("{}x{}x{}", shape.0, shape.1, shape.2)),
                );
                o.insert("dgemm_ours_tflops".into(), json!(r.ours));
                o.insert("dgemm_cublas_tflops".into(), json!(r.theirs));
                o.insert("ours_vs_dgemm".into(), json!(fo));
                o.insert("cublas_vs_dgemm".into(), json!(ft));
            }
        }
    }

    /// `C = alpha A B + beta C`, `A` `m × k`, `B` `k × n` (no transposes), gpublas `ours`
    /// against cuBLAS `gemm_ex` of the same types with `compute`.
    #[allow(clippy::too_many_arguments)]
    fn gemm<I, O>(
        b: &mut Bench<'_>,
        op: &str,
        (m, n, k): (usize, usize, usize),
        tol: f64,
        compute: CublasCompute,
        alpha: I::Scale,
        beta: I::Scale,
        mut ours: impl FnMut(
            &mut Handle,
            &DeviceBuffer<I>,
            &DeviceBuffer<I>,
            &mut DeviceBuffer<O>,
        ) -> Result<Status, Error>,
    ) -> Result<Rates, Error>
    where
        I: Val + CublasExIn,
        O: Val + CublasExOut<I>,
    {
        let dev = b.dev;
        let ty = if I::NAME == O::NAME {
            I::NAME.to_string()
        } else {
            format!("{}>{}", I::NAME, O::NAME)
        };
        let (la, lb, lc) = (elems(m, k)?, elems(k, n)?, elems(m, n)?);
        let need = bytes::<I>(la)?
            .saturating_add(bytes::<I>(lb)?)
            .saturating_add(bytes::<O>(lc)?);
        fits(dev, &format!("{op} {ty}"), need)?;
        let a = random::<I>(dev, la, 1)?;
        let bm = random::<I>(dev, lb, 2)?;
        let mut c = Out::<O>::random(dev, lc, 3)?;
        let spec = Spec {
            group: "gemm",
            op: op.to_string(),
            ty,
            shape: format!("{m}x{n}x{k}"),
            flops: 2.0 * m as f64 * n as f64 * k as f64,
            tol,
            reset_each_batch: false,
        };
        let (_, r) = b.row(
            spec,
            &mut c,
            |h, c| ours(h, &a, &bm, c),
            |cb, c| {
                cb.gemm_ex(
                    Op::N,
                    Op::N,
                    m,
                    n,
                    k,
                    alpha,
                    &a,
                    m,
                    &bm,
                    k,
                    beta,
                    c,
                    m,
                    compute,
                )
            },
        );
        Ok(r)
    }

    /// `blas3::gemm` of a real type against cuBLAS `gemm_ex` with IEEE arithmetic.
    fn gemm_plain<T>(b: &mut Bench<'_>, s: usize, tol: f64) -> Result<Rates, Error>
    where
        T: Val + Scalar + CublasExIn<Scale = T> + CublasExOut<T>,
    {
        let compute = if std::mem::size_of::<T>() == 8 {
            CublasCompute::F64
        } else {
            CublasCompute::F32
        };
        let (al, be) = (T::make(ALPHA, 0.0), T::make(BETA, 0.0));
        gemm::<T, T>(b, "gemm", (s, s, s), tol, compute, al, be, |h, a, bm, c| {
            blas3::gemm(
                h,
                Op::N,
                Op::N,
                s,
                s,
                s,
                Coef::Host(al),
                a,
                s,
                bm,
                s,
                Coef::Host(be),
                c,
                s,
            )
        })
    }

    /// `blas3::gemm_ex` with f32 scalars (the half types, f32 with a fast mode) against
    /// cuBLAS `gemm_ex` with the same types and arithmetic.
    fn gemm_ex_f32_scale<I, O>(
        b: &mut Bench<'_>,
        op: &str,
        s: usize,
        tol: f64,
        ours_compute: ComputeType,
        compute: CublasCompute,
    ) -> Result<Rates, Error>
    where
        I: Val + CublasExIn<Scale = f32> + blas3::GemmExIn<Scale = f32>,
        O: Val + CublasExOut<I> + blas3::GemmExOut<I>,
    {
        let (al, be) = (ALPHA as f32, BETA as f32);
        gemm::<I, O>(b, op, (s, s, s), tol, compute, al, be, |h, a, bm, c| {
            blas3::gemm_ex::<I, O>(
                h,
                Op::N,
                Op::N,
                s,
                s,
                s,
                Coef::Host(al),
                a,
                s,
                bm,
                s,
                Coef::Host(be),
                c,
                s,
                ours_compute,
            )
        })
    }

    /// gemm f64, f32 (IEEE), f32 with TF32, f16 and bf16 (f32 accumulation) at `s³`.
    fn gemm_group(b: &mut Bench<'_>, s: usize) {
        b.part("gemm", "f64", |b| {
            let r = gemm_plain::<f64>(b, s, 1e-10)?;
            b.dgemm.push(((s, s, s), r));
            Ok(())
        });
        b.part("gemm", "f32", |b| gemm_plain::<f32>(b, s, 1e-5).map(drop));
        b.part("gemm", "f32 tf32", |b| {
            gemm_ex_f32_scale::<f32, f32>(
                b,
                "gemm_ex tf32",
                s,
                1e-2,
                ComputeType::F32FastTf32,
                CublasCompute::F32FastTf32,
            )
            .map(drop)
        });
        b.part("gemm", "f16", |b| {
            gemm_ex_f32_scale::<f16, f16>(
                b,
                "gemm_ex",
                s,
                1e-2,
                ComputeType::F32,
                CublasCompute::F32,
            )
            .map(drop)
        });
        b.part("gemm", "bf16", |b| {
            gemm_ex_f32_scale::<bf16, bf16>(
                b,
                "gemm_ex",
                s,
                5e-2,
                ComputeType::F32,
                CublasCompute::F32,
            )
            .map(drop)
        });
    }

    /// `gemm_strided_batched` of `batch` square `s × s` products (packed entries).
    fn batched<T>(b: &mut Bench<'_>, batch: usize, s: usize, tol: f64) -> Result<(), Error>
    where
        T: Val + Scalar + CublasExIn<Scale = T> + CublasExOut<T>,
    {
        let dev = b.dev;
        let ss = elems(s, s)?;
        let len = elems(batch, ss)?;
        fits(
            dev,
            "strided-batched gemm",
            bytes::<T>(len)?.saturating_mul(3),
        )?;
        let a = random::<T>(dev, len, 21)?;
        let bm = random::<T>(dev, len, 22)?;
        let mut c = Out::<T>::random(dev, len, 23)?;
        let (al, be) = (T::make(ALPHA, 0.0), T::make(BETA, 0.0));
        let compute = if std::mem::size_of::<T>() == 8 {
            CublasCompute::F64
        } else {
            CublasCompute::F32
        };
        let sf = s as f64;
        let spec = Spec {
            group: "batched",
            op: "gemm_sb".into(),
            ty: T::NAME.into(),
            shape: format!("{batch} x {s}x{s}x{s}"),
            flops: 2.0 * sf * sf * sf * batch as f64,
            tol,
            reset_each_batch: false,
        };
        b.row(
            spec,
            &mut c,
            |h, c| {
                blas3::gemm_strided_batched(
                    h,
                    Op::N,
                    Op::N,
                    s,
                    s,
                    s,
                    Coef::Host(al),
                    &a,
                    s,
                    ss,
                    &bm,
                    s,
                    ss,
                    Coef::Host(be),
                    c,
                    s,
                    ss,
                    batch,
                )
            },
            |cb, c| {
                cb.gemm_strided_batched_ex(
                    Op::N,
                    Op::N,
                    s,
                    s,
                    s,
                    al,
                    &a,
                    s,
                    ss,
                    &bm,
                    s,
                    ss,
                    be,
                    c,
                    s,
                    ss,
                    batch,
                    compute,
                )
            },
        );
        Ok(())
    }

    /// The gpublas and cuBLAS DGEMM rates at `m × n × k` in this run: the gemm group's when
    /// it ran that shape, else measured now (printed as a row of its own).
    fn dgemm_ref(b: &mut Bench<'_>, m: usize, n: usize, k: usize) -> Rates {
        if let Some((_, r)) = b.dgemm.iter().find(|(s, _)| *s == (m, n, k)) {
            return *r;
        }
        let mut r = Rates::default();
        b.part("syrk", "DGEMM reference", |b| {
            r = gemm::<f64, f64>(
                b,
                "gemm (ref)",
                (m, n, k),
                1e-10,
                CublasCompute::F64,
                ALPHA,
                BETA,
                |h, a, bm, c| {
                    blas3::gemm(
                        h,
                        Op::N,
                        Op::N,
                        m,
                        n,
                        k,
                        Coef::Host(ALPHA),
                        a,
                        m,
                        bm,
                        k,
                        Coef::Host(BETA),
                        c,
                        m,
                    )
                },
            )?;
            b.dgemm.push(((m, n, k), r));
            Ok(())
        });
        r
    }

    /// syrk f64 (lower, N) at order `n`, rank `k`, and herk Complex64 (lower, N) at `n / 2`,
    /// `k / 2`, each with the ratio to the run's DGEMM rate at `n × n × k`.
    fn syrk_group(b: &mut Bench<'_>, n: usize, k: usize) {
        let r = dgemm_ref(b, n, n, k);
        let (nf, kf) = (n as f64, k as f64);
        b.part("syrk", "syrk f64", |b| {
            let dev = b.dev;
            let (la, lc) = (elems(n, k)?, elems(n, n)?);
            fits(dev, "syrk f64", bytes::<f64>(la.saturating_add(lc))?)?;
            let a = random::<f64>(dev, la, 31)?;
            let mut c = Out::<f64>::random(dev, lc, 32)?;
            let spec = Spec {
                group: "syrk",
                op: "syrk L N".into(),
                ty: "f64".into(),
                shape: format!("n={n} k={k}"),
                flops: nf * nf * kf,
                tol: 1e-10,
                reset_each_batch: false,
            };
            let (idx, own) = b.row(
                spec,
                &mut c,
                |h, c| {
                    blas3::syrk(
                        h,
                        Uplo::Lower,
                        Op::N,
                        n,
                        k,
                        Coef::Host(ALPHA),
                        &a,
                        n,
                        Coef::Host(BETA),
                        c,
                        n,
                    )
                },
                |cb, c| cb.syrk(Uplo::Lower, Op::N, n, k, ALPHA, &a, n, BETA, c, n),
            );
            b.versus_dgemm(idx, own, (n, n, k), r);
            Ok(())
        });
        let (hn, hk) = (n / 2, k / 2);
        let (hnf, hkf) = (hn as f64, hk as f64);
        b.part("syrk", "herk c64", |b| {
            let dev = b.dev;
            let (la, lc) = (elems(hn, hk)?, elems(hn, hn)?);
            fits(dev, "herk c64", bytes::<Complex64>(la.saturating_add(lc))?)?;
            let a = random::<Complex64>(dev, la, 33)?;
            let mut c = Out::<Complex64>::random(dev, lc, 34)?;
            let spec = Spec {
                group: "syrk",
                op: "herk L N".into(),
                ty: "c64".into(),
                shape: format!("n={hn} k={hk}"),
                flops: 4.0 * hnf * hnf * hkf,
                tol: 1e-10,
                reset_each_batch: false,
            };
            let (idx, own) = b.row(
                spec,
                &mut c,
                |h, c| {
                    blas3::herk::<Complex64>(
                        h,
                        Uplo::Lower,
                        Op::N,
                        hn,
                        hk,
                        Coef::Host(ALPHA),
                        &a,
                        hn,
                        Coef::Host(BETA),
                        c,
                        hn,
                    )
                },
                |cb, c| {
                    cb.herk::<Complex64>(Uplo::Lower, Op::N, hn, hk, ALPHA, &a, hn, BETA, c, hn)
                },
            );
            b.versus_dgemm(idx, own, (n, n, k), r);
            Ok(())
        });
    }

    /// syr2k f64 (lower, N) at order `n`, rank `k`.
    fn syr2k_group(b: &mut Bench<'_>, n: usize, k: usize) -> Result<(), Error> {
        let dev = b.dev;
        let (la, lc) = (elems(n, k)?, elems(n, n)?);
        fits(
            dev,
            "syr2k f64",
            bytes::<f64>(la.saturating_mul(2).saturating_add(lc))?,
        )?;
        let a = random::<f64>(dev, la, 41)?;
        let bm = random::<f64>(dev, la, 42)?;
        let mut c = Out::<f64>::random(dev, lc, 43)?;
        let (nf, kf) = (n as f64, k as f64);
        let spec = Spec {
            group: "syr2k",
            op: "syr2k L N".into(),
            ty: "f64".into(),
            shape: format!("n={n} k={k}"),
            flops: 2.0 * nf * nf * kf,
            tol: 1e-10,
            reset_each_batch: false,
        };
        b.row(
            spec,
            &mut c,
            |h, c| {
                blas3::syr2k(
                    h,
                    Uplo::Lower,
                    Op::N,
                    n,
                    k,
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
            |cb, c| cb.syr2k(Uplo::Lower, Op::N, n, k, ALPHA, &a, n, &bm, n, BETA, c, n),
        );
        Ok(())
    }

    /// symm f64, left, lower, `m = n`.
    fn symm_group(b: &mut Bench<'_>, m: usize) -> Result<(), Error> {
        let dev = b.dev;
        let n = m;
        let (la, lb) = (elems(m, m)?, elems(m, n)?);
        fits(
            dev,
            "symm f64",
            bytes::<f64>(la.saturating_add(lb.saturating_mul(2)))?,
        )?;
        let a = random::<f64>(dev, la, 51)?;
        let bm = random::<f64>(dev, lb, 52)?;
        let mut c = Out::<f64>::random(dev, lb, 53)?;
        let (mf, nf) = (m as f64, n as f64);
        let spec = Spec {
            group: "symm",
            op: "symm L L".into(),
            ty: "f64".into(),
            shape: format!("m={m} n={n}"),
            flops: 2.0 * mf * mf * nf,
            tol: 1e-10,
            reset_each_batch: false,
        };
        b.row(
            spec,
            &mut c,
            |h, c| {
                blas3::symm(
                    h,
                    Side::Left,
                    Uplo::Lower,
                    m,
                    n,
                    Coef::Host(ALPHA),
                    &a,
                    m,
                    &bm,
                    m,
                    Coef::Host(BETA),
                    c,
                    m,
                )
            },
            |cb, c| {
                cb.symm(
                    Side::Left,
                    Uplo::Lower,
                    m,
                    n,
                    ALPHA,
                    &a,
                    m,
                    &bm,
                    m,
                    BETA,
                    c,
                    m,
                )
            },
        );
        Ok(())
    }

    /// trmm f64, left, lower, N, non-unit, `m = n`, in place (`B` restored before every
    /// timed batch).
    fn trmm_group(b: &mut Bench<'_>, m: usize) -> Result<(), Error> {
        let dev = b.dev;
        let n = m;
        let (la, lb) = (elems(m, m)?, elems(m, n)?);
        fits(dev, "trmm f64", bytes::<f64>(la.saturating_add(lb))?)?;
        let a = triangle(dev, m, 61)?;
        let mut bo = Out::<f64>::random(dev, lb, 62)?;
        let (mf, nf) = (m as f64, n as f64);
        let spec = Spec {
            group: "trmm",
            op: "trmm L L N N".into(),
            ty: "f64".into(),
            shape: format!("m={m} n={n}"),
            flops: mf * mf * nf,
            tol: 1e-10,
            reset_each_batch: true,
        };
        let (side, uplo, op, diag) = (Side::Left, Uplo::Lower, Op::N, Diag::NonUnit);
        b.row(
            spec,
            &mut bo,
            |h, bm| {
                blas3::trmm(
                    h,
                    side,
                    uplo,
                    op,
                    diag,
                    m,
                    n,
                    Coef::Host(ALPHA),
                    &a,
                    m,
                    bm,
                    m,
                )
            },
            |cb, bm| cb.trmm(side, uplo, op, diag, m, n, ALPHA, &a, m, bm, m),
        );
        Ok(())
    }

    /// Host seconds per call: `calls` back-to-back calls enqueued from the host and one
    /// synchronisation, timed with `Instant` (median of rounds, after a warm-up round).
    fn per_call(
        stream: &Stream,
        calls: usize,
        mut f: impl FnMut() -> Result<(), Error>,
    ) -> Result<f64, Error> {
        let calls = calls.max(1);
        for _ in 0..calls {
            f()?;
        }
        stream.synchronize()?;
        let mut t = Vec::with_capacity(OVERHEAD_ROUNDS);
        for _ in 0..OVERHEAD_ROUNDS {
            let start = Instant::now();
            for _ in 0..calls {
                f()?;
            }
            stream.synchronize()?;
            t.push(start.elapsed().as_secs_f64() / calls as f64);
        }
        Ok(median(t))
    }

    /// Steady-state cost of one small f32 gemm (`s³`, `beta = 0`) as seen from the host.
    fn overhead_group(b: &mut Bench<'_>, s: usize, calls: usize) -> Result<(), Error> {
        let dev = b.dev;
        let ss = elems(s, s)?;
        let a = random::<f32>(dev, ss, 71)?;
        let bm = random::<f32>(dev, ss, 72)?;
        let mut c = random::<f32>(dev, ss, 73)?;
        let ours = |h: &mut Handle, c: &mut DeviceBuffer<f32>| {
            blas3::gemm(
                h,
                Op::N,
                Op::N,
                s,
                s,
                s,
                Coef::Host(1.0f32),
                &a,
                s,
                &bm,
                s,
                Coef::Host(0.0f32),
                c,
                s,
            )
        };
        let ws = size_query(&mut b.h, |h| ours(h, &mut c));
        let stream = b.h.stream().clone();
        let before = b.h.workspace_stats();
        let h = &mut b.h;
        let t_ours = per_call(&stream, calls, || ours(h, &mut c).map(drop));
        let after = b.h.workspace_stats();
        let cb = &b.c;
        let t_theirs = per_call(&stream, calls, || {
            cb.gemm_ex(
                Op::N,
                Op::N,
                s,
                s,
                s,
                1.0f32,
                &a,
                s,
                &bm,
                s,
                0.0f32,
                &mut c,
                s,
                CublasCompute::F32,
            )
        });
        let ratio = match (&t_ours, &t_theirs) {
            (Ok(o), Ok(t)) => Some(o / t),
            _ => None,
        };
        let us = |r: &Result<f64, Error>| match r {
            Ok(t) => format!("{:.2} us/call", t * 1e6),
            Err(_) => "error".to_string(),
        };
        out!(
            "overhead gemm f32 {s}x{s}x{s}, {calls} back-to-back calls + 1 sync (median of \
             {OVERHEAD_ROUNDS}): gpublas {}, cuBLAS {}, gpublas/cuBLAS {}",
            us(&t_ours),
            us(&t_theirs),
            ratio.map_or("n/a".to_string(), |r| format!("{r:.3}"))
        );
        let growths = after.growths.saturating_sub(before.growths);
        if t_ours.is_ok() && growths > 0 {
            out!("    the gpublas workspace grew {growths} times while timed");
        }
        for (who, e) in [
            ("workspace query", ws.as_ref().err()),
            ("gpublas", t_ours.as_ref().err()),
            ("cuBLAS", t_theirs.as_ref().err()),
        ] {
            if let Some(e) = e {
                out!("    {who}: {e}");
            }
        }
        b.rows.push(json!({
            "bench": "blas3", "group": "overhead", "op": "gemm", "type": "f32",
            "shape": format!("{s}x{s}x{s}"), "calls": calls, "rounds": OVERHEAD_ROUNDS,
            "ws_bytes": ws.as_ref().ok(), "ws_error": err(ws.as_ref().err()),
            "ws_capacity": after.capacity, "ws_growths_while_timed": growths,
            "ours_us_per_call": t_ours.as_ref().ok().map(|t| t * 1e6),
            "ours_error": err(t_ours.as_ref().err()),
            "cublas_us_per_call": t_theirs.as_ref().ok().map(|t| t * 1e6),
            "cublas_error": err(t_theirs.as_ref().err()),
            "ratio": ratio,
        }));
        Ok(())
    }

    /// `gpublas bench blas3`: prints the table, returns the JSON rows.
    pub(super) fn run(dev: &Device, quick: bool, only: Option<&str>) -> Result<Vec<Value>, Error> {
        let groups = selected(only, &GROUPS)?;
        if dev.backend() != Backend::Cuda {
            return Err(Error::Unsupported(format!(
                "gpublas bench blas3 compares gpublas with cuBLAS on a CUDA GPU; the device is \
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
            let a = random::<f32>(dev, w * w, 1)?;
            let mut cw = dev.alloc::<f32>(w * w)?;
            let mine = blas3::gemm(
                &mut h,
                Op::N,
                Op::N,
                w,
                w,
                w,
                Coef::Host(1.0f32),
                &a,
                w,
                &a,
                w,
                Coef::Host(0.0f32),
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
                1.0f32,
                &a,
                w,
                &a,
                w,
                0.0f32,
                &mut cw,
                w,
                CublasCompute::F32,
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
            dgemm: Vec::new(),
        };
        // Full sizes; --quick divides every dimension by 4 (batch counts stay).
        let d = |v: usize| if quick { v / 4 } else { v };
        out!(
            "Level 3 on {} against cuBLAS (median of {reps} event-timed batches of {inner} calls; \
             gpublas handle {:?})",
            dev.name(),
            b.h.workspace_mode()
        );
        out!(
            "alpha = {ALPHA}, beta = {BETA} (trmm: alpha = {ALPHA}), on the host for both; flops: \
             gemm 2mnk, syrk n²k, herk 4n²k, syr2k 2n²k, symm 2m²n, trmm m²n; ratio = gpublas \
             TFLOP/s / cuBLAS TFLOP/s; ws bytes = a size query of the call; rel diff = max \
             |gpublas - cuBLAS| / max |cuBLAS| after one call of each from the same inputs"
        );
        out!(
            "{:8} {:14} {:8} {:>16} {:>10} | {:>9} {:>8} | {:>9} {:>8} | {:>6} {:>8}",
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
            "rel diff"
        );
        for g in groups {
            match g {
                "gemm" => gemm_group(&mut b, d(8192)),
                "batched" => {
                    b.part("batched", "f32", |b| batched::<f32>(b, 10_000, d(32), 1e-5));
                    b.part("batched", "f64", |b| batched::<f64>(b, 1000, d(128), 1e-10));
                }
                "syrk" => syrk_group(&mut b, d(8192), d(8192)),
                "syr2k" => b.part("syr2k", "f64", |b| syr2k_group(b, d(8192), d(8192))),
                "symm" => b.part("symm", "f64", |b| symm_group(b, d(8192))),
                "trmm" => b.part("trmm", "f64", |b| trmm_group(b, d(8192))),
                "overhead" => b.part("overhead", "f32", |b| {
                    overhead_group(b, d(64), OVERHEAD_CALLS)
                }),
                _ => ws::group(&mut b, quick),
            }
        }
        let s = b.h.workspace_stats();
        out!("gpublas handle workspace: {s}");
        b.rows.push(json!({
            "bench": "blas3", "what": "workspace stats", "mode": format!("{:?}", s.mode),
            "capacity": s.capacity, "peak_leased": s.peak_leased, "leases": s.leases,
            "growths": s.growths, "stream_ordered_allocs": s.stream_ordered_allocs,
            "degraded_calls": s.degraded_calls, "memory_errors": s.memory_errors,
            "queries": s.queries,
        }));
        Ok(b.rows)
    }
}
