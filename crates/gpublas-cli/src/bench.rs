//! `gpublas bench`: workspace costs, Level-1 reductions and (in `bench2`) Level-2 and the
//! Level-1 updates against cuBLAS, timed on the device.

use std::time::Instant;

use clap::Subcommand;
use gpublas::{
    blas1, Backend, Device, DeviceBuffer, Element, Error, Handle, HandleConfig, Results, Stream,
    Timer,
};
use serde_json::{json, Value};

/// With `--json`, the human table goes to stderr so stdout holds only JSON.
pub(crate) static TABLE_TO_STDERR: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

macro_rules! out {
    ($($t:tt)*) => {
        if $crate::bench::TABLE_TO_STDERR.load(std::sync::atomic::Ordering::Relaxed) { eprintln!($($t)*) } else { println!($($t)*) }
    };
}
pub(crate) use out;

#[derive(Subcommand)]
pub enum What {
    /// Lease cost per scheme, growth cost, set_stream cost, statistics after warm-up.
    Workspace,
    /// Level-1 reductions: large n, small n (device results) and batches, against cuBLAS.
    Blas1 {
        /// Smaller sizes and fewer repetitions (for a quick check).
        #[arg(long)]
        quick: bool,
        /// Also f32 at every power of four from 2^12 to 2^28 (2^22 with --quick): the rows a
        /// plot of bandwidth against size needs (`--svg FILE`).
        #[arg(long)]
        sweep: bool,
    },
    /// Level 2 (gemv, symv, hemv, trmv, trsv, strided-batched gemv) and the Level-1 updates
    /// (axpy, scal, copy, swap) against cuBLAS, with each call's workspace need.
    Blas2 {
        /// Sizes small enough for the host backend (2048² matrices, 2^20 vectors).
        #[arg(long)]
        quick: bool,
        /// Only the groups whose name contains this text (e.g. "square f32", "trsv").
        #[arg(long)]
        only: Option<String>,
    },
}

pub fn run(dev: &Device, what: &What, json: bool) -> Result<(), Error> {
    TABLE_TO_STDERR.store(json, std::sync::atomic::Ordering::Relaxed);
    let rows = match what {
        What::Workspace => workspace(dev)?,
        What::Blas1 { quick, sweep } => blas1_bench(dev, *quick, *sweep)?,
        What::Blas2 { quick, only } => crate::bench_blas2::run(dev, *quick, only.as_deref())?,
    };
    crate::plot::maybe(
        &format!("gpublas vs cuBLAS on {}: read bandwidth", dev.name()),
        &rows,
    )?;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&Value::Array(rows)).unwrap_or_default()
        );
    }
    Ok(())
}

pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Median host-clock nanoseconds per `op`, over `rounds` rounds of `per` calls.
fn host_ns(
    rounds: usize,
    per: usize,
    mut op: impl FnMut() -> Result<(), Error>,
) -> Result<f64, Error> {
    for _ in 0..per {
        op()?;
    }
    let mut t = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let s = Instant::now();
        for _ in 0..per {
            op()?;
        }
        t.push(s.elapsed().as_nanos() as f64 / per as f64);
    }
    Ok(median(t))
}

fn workspace(dev: &Device) -> Result<Vec<Value>, Error> {
    let mut rows = Vec::new();
    let mut row = |name: &str, ns: f64, note: &str| {
        out!("{name:48} {ns:>12.1} ns  {note}");
        rows.push(json!({"bench": "workspace", "what": name, "ns": ns, "note": note}));
    };
    out!("workspace costs on {} (median)", dev.name());
    let sizes = [4096usize, 64];
    let cfg = |size, soa| HandleConfig {
        device_memory_size: size,
        stream_order_alloc: soa,
    };
    let mut managed = Handle::with_config(dev, &cfg(None, false))?;
    row(
        "lease, Managed (steady state)",
        host_ns(51, 10_000, || managed.device_malloc(&sizes).map(drop))?,
        "fixed buffer",
    );
    let mut um = Handle::with_config(dev, &cfg(Some(1 << 20), false))?;
    row(
        "lease, UserManaged",
        host_ns(51, 10_000, || um.device_malloc(&sizes).map(drop))?,
        "fixed buffer",
    );
    let mut uo = Handle::with_config(dev, &cfg(Some(0), false))?;
    let _ = uo.set_workspace(Some(dev.alloc::<u8>(1 << 20)?))?;
    row(
        "lease, UserOwned",
        host_ns(51, 10_000, || uo.device_malloc(&sizes).map(drop))?,
        "fixed buffer",
    );
    if dev.supports_stream_order_alloc() {
        let mut so = Handle::with_config(dev, &cfg(None, true))?;
        row(
            "lease, stream-ordered (steady state)",
            host_ns(51, 2_000, || so.device_malloc(&sizes).map(drop))?,
            "pool alloc + free on the stream",
        );
        so.synchronize()?;
        // Growth, stream-ordered: a lease larger than any before it.
        let mut t = Vec::new();
        for i in 0..9 {
            let s = Instant::now();
            drop(so.device_malloc(&[(64 << 20) + i * (8 << 20)])?);
            t.push(s.elapsed().as_nanos() as f64);
        }
        so.synchronize()?;
        row(
            "growth, stream-ordered (new larger lease)",
            median(t),
            "64..128 MiB, no host synchronisation",
        );
    }
    // Growth, synchronising: each lease needs more than the capacity.
    let mut g = Handle::with_config(dev, &cfg(Some(0), false))?;
    let mut t = Vec::new();
    for i in 0..9 {
        let s = Instant::now();
        drop(g.device_malloc(&[(64 << 20) + i * (8 << 20)])?);
        t.push(s.elapsed().as_nanos() as f64);
    }
    row(
        "growth, Managed synchronising",
        median(t),
        "64..128 MiB: wait, free, allocate",
    );
    // set_stream: alternate between two streams.
    let s1 = dev.new_stream()?;
    let s2 = dev.new_stream()?;
    let mut flip = false;
    row(
        "set_stream (event-ordered, no host wait)",
        host_ns(51, 1_000, || {
            flip = !flip;
            managed.set_stream(if flip { &s1 } else { &s2 })
        })?,
        "",
    );
    // Statistics after warm-up: real calls in Managed mode grow nothing.
    let n = 1 << 24;
    let x = dev.upload(&vec![1.0f32; n])?;
    let mut out = dev.alloc::<f32>(1)?;
    let mut h = Handle::with_config(dev, &cfg(Some(0), false))?;
    for _ in 0..3 {
        let _ = blas1::nrm2(&mut h, n, &x, 1, Results::Device(&mut out))?;
        let _ = blas1::dot(&mut h, n, &x, 1, &x, 1, Results::Device(&mut out))?;
    }
    h.reset_workspace_stats();
    for _ in 0..1000 {
        let _ = blas1::nrm2(&mut h, n, &x, 1, Results::Device(&mut out))?;
        let _ = blas1::asum(&mut h, n, &x, 1, Results::Device(&mut out))?;
    }
    h.synchronize()?;
    let s = h.workspace_stats();
    out!("after warm-up, 2000 Level-1 calls in Managed mode: {s}");
    rows.push(json!({"bench": "workspace", "what": "stats after warm-up", "growths": s.growths, "leases": s.leases, "capacity": s.capacity}));
    Ok(rows)
}

/// Seconds per call: median over `reps` event-timed batches of `inner` calls each.
pub(crate) fn time_calls(
    stream: &Stream,
    reps: usize,
    inner: usize,
    mut op: impl FnMut(usize) -> Result<(), Error>,
) -> Result<f64, Error> {
    time_steps(stream, reps, inner, |s| match s {
        Step::Reset => Ok(()),
        Step::Call(i) => op(i),
    })
}

/// What [`time_steps`] asks of the timed operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Restore the inputs (before the warm-up and before each batch, outside the timed
    /// region): in-place routines that would otherwise compound their results.
    Reset,
    /// Call number `i` of a batch.
    Call(usize),
}

/// [`time_calls`] with a reset step: `op(Step::Reset)` runs before the warm-up and before
/// every timed batch (the event timer starts after it), `op(Step::Call(i))` makes call `i`.
pub(crate) fn time_steps(
    stream: &Stream,
    reps: usize,
    inner: usize,
    mut op: impl FnMut(Step) -> Result<(), Error>,
) -> Result<f64, Error> {
    op(Step::Reset)?;
    for i in 0..inner.min(8) {
        op(Step::Call(i))?;
    }
    stream.synchronize()?;
    let mut t = Vec::with_capacity(reps.max(1));
    for _ in 0..reps.max(1) {
        op(Step::Reset)?;
        let timer = Timer::start(stream)?;
        for i in 0..inner.max(1) {
            op(Step::Call(i))?;
        }
        t.push(timer.stop()? / inner.max(1) as f64);
    }
    Ok(median(t))
}

#[cfg(feature = "cublas")]
pub(crate) type Cublas = gpublas_peers::cublas::Cublas;
/// cuBLAS is not built: never constructed ([`cublas`] returns `None`).
#[cfg(not(feature = "cublas"))]
pub(crate) enum Cublas {}

pub(crate) fn cublas(stream: &Stream) -> Option<Cublas> {
    #[cfg(feature = "cublas")]
    {
        match Cublas::new(stream) {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!("cuBLAS comparison unavailable: {e}");
                None
            }
        }
    }
    #[cfg(not(feature = "cublas"))]
    {
        let _ = stream;
        eprintln!("cuBLAS comparison not built (build with --features cublas)");
        None
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Dot,
    Nrm2,
    Asum,
    Iamax,
}

/// One gpublas call of `op` on x (and y), results to device memory.
fn ours<T: blas1::Scalar<Real = T>>(
    h: &mut Handle,
    op: Op,
    n: usize,
    x: &DeviceBuffer<T>,
    y: &DeviceBuffer<T>,
    r: &mut DeviceBuffer<T>,
    ri: &mut DeviceBuffer<i64>,
) -> Result<(), Error> {
    let _ = match op {
        Op::Dot => blas1::dot(h, n, x, 1, y, 1, Results::Device(r))?,
        Op::Nrm2 => blas1::nrm2(h, n, x, 1, Results::Device(r))?,
        Op::Asum => blas1::asum(h, n, x, 1, Results::Device(r))?,
        Op::Iamax => blas1::iamax(h, n, x, 1, Results::Device(ri))?,
    };
    Ok(())
}

#[cfg(feature = "cublas")]
fn theirs<T: blas1::Scalar + gpublas_peers::cublas::CublasReal>(
    c: &Cublas,
    op: Op,
    n: usize,
    x: &DeviceBuffer<T>,
    y: &DeviceBuffer<T>,
    r: &mut DeviceBuffer<T>,
    ri: &mut DeviceBuffer<i32>,
) -> Result<(), Error> {
    use gpublas_peers::cublas::CublasOp;
    match op {
        Op::Dot => c.run(CublasOp::Dot, n, x, y, r),
        Op::Nrm2 => c.run(CublasOp::Nrm2, n, x, y, r),
        Op::Asum => c.run(CublasOp::Asum, n, x, y, r),
        Op::Iamax => c.run(CublasOp::Iamax, n, x, y, ri),
    }
}

struct Row {
    group: &'static str,
    op: String,
    ty: &'static str,
    n: usize,
    batch: usize,
    bytes: f64,
    ours: f64,
    theirs: Option<f64>,
}

impl Row {
    fn print(&self) {
        let bw = |t: f64| self.bytes / t / 1e12;
        let (ct, cbw, ratio) = match self.theirs {
            Some(t) => (
                format!("{:10.2}", t * 1e6),
                format!("{:8.3}", bw(t)),
                format!("{:6.2}x", t / self.ours),
            ),
            None => ("       n/a".into(), "     n/a".into(), "   n/a".into()),
        };
        out!(
            "{:6} {:6} {:4} {:>10} {:>6} | {:10.2} {:8.3} | {} {} | {}",
            self.group,
            self.op,
            self.ty,
            self.n,
            self.batch,
            self.ours * 1e6,
            bw(self.ours),
            ct,
            cbw,
            ratio
        );
    }

    fn json(&self) -> Value {
        json!({"bench": "blas1", "group": self.group, "op": self.op, "type": self.ty, "n": self.n, "batch": self.batch,
               "bytes": self.bytes, "ours_s": self.ours, "ours_tbs": self.bytes / self.ours / 1e12,
               "cublas_s": self.theirs, "cublas_tbs": self.theirs.map(|t| self.bytes / t / 1e12),
               "speedup": self.theirs.map(|t| t / self.ours)})
    }
}

fn random<T: Element>(
    dev: &Device,
    n: usize,
    seed: u64,
    make: fn(f64) -> T,
) -> Result<DeviceBuffer<T>, Error> {
    use rand::{Rng, SeedableRng};
    let mut r = rand::rngs::StdRng::seed_from_u64(seed);
    let v: Vec<T> = (0..n).map(|_| make(r.gen_range(-1.0..1.0))).collect();
    dev.upload(&v)
}

/// How one group of the Level-1 comparison is timed.
struct Timing {
    group: &'static str,
    /// Event-timed batches to take the median of.
    reps: usize,
    /// Back-to-back calls per batch (hides launch gaps; the per-call time is the mean).
    inner: usize,
    /// Input sets rotated through, so small inputs are not all served from L2.
    rot: usize,
}

/// gpublas against cuBLAS for every op at every size, results to device memory.
#[allow(clippy::too_many_arguments)]
fn versus<T>(
    dev: &Device,
    h: &mut Handle,
    c: &Option<Cublas>,
    ty: &'static str,
    sizes: &[usize],
    how: &Timing,
    make: fn(f64) -> T,
    rows: &mut Vec<Row>,
) -> Result<(), Error>
where
    T: blas1::Scalar<Real = T> + CublasMaybe,
{
    let rot = how.rot;
    let nmax = *sizes.iter().max().unwrap_or(&1);
    let xs: Vec<_> = (0..rot)
        .map(|i| random(dev, nmax, 10 + i as u64, make))
        .collect::<Result<_, _>>()?;
    let ys: Vec<_> = (0..rot)
        .map(|i| random(dev, nmax, 20 + i as u64, make))
        .collect::<Result<_, _>>()?;
    let mut r = dev.alloc::<T>(1)?;
    let mut ri = dev.alloc::<i64>(1)?;
    let mut ri32 = dev.alloc::<i32>(1)?;
    for &n in sizes {
        for op in [Op::Dot, Op::Nrm2, Op::Asum, Op::Iamax] {
            let operands = if op == Op::Dot { 2.0 } else { 1.0 };
            let bytes = operands * (n * std::mem::size_of::<T>()) as f64;
            let stream = h.stream().clone();
            let t_ours = time_calls(&stream, how.reps, how.inner, |i| {
                ours(h, op, n, &xs[i % rot], &ys[i % rot], &mut r, &mut ri)
            })?;
            let t_theirs = match c {
                Some(c) => Some(time_calls(&stream, how.reps, how.inner, |i| {
                    T::theirs(c, op, n, &xs[i % rot], &ys[i % rot], &mut r, &mut ri32)
                })?),
                // On the host the peer is the machine's read bandwidth for the same bytes.
                None if dev.backend() == Backend::Host => {
                    Some(crate::probe::host_read_probe(bytes, how.reps))
                }
                None => None,
            };
            let row = Row {
                group: how.group,
                op: format!("{op:?}").to_lowercase(),
                ty,
                n,
                batch: 1,
                bytes,
                ours: t_ours,
                theirs: t_theirs,
            };
            row.print();
            rows.push(row);
        }
    }
    Ok(())
}

/// Dispatch to cuBLAS where it is built.
trait CublasMaybe: Sized {
    fn theirs(
        c: &Cublas,
        op: Op,
        n: usize,
        x: &DeviceBuffer<Self>,
        y: &DeviceBuffer<Self>,
        r: &mut DeviceBuffer<Self>,
        ri: &mut DeviceBuffer<i32>,
    ) -> Result<(), Error>;
}
macro_rules! cublas_maybe {
    ($t:ty) => {
        impl CublasMaybe for $t {
            #[allow(unused_variables)]
            fn theirs(
                c: &Cublas,
                op: Op,
                n: usize,
                x: &DeviceBuffer<Self>,
                y: &DeviceBuffer<Self>,
                r: &mut DeviceBuffer<Self>,
                ri: &mut DeviceBuffer<i32>,
            ) -> Result<(), Error> {
                #[cfg(feature = "cublas")]
                {
                    theirs(c, op, n, x, y, r, ri)
                }
                #[cfg(not(feature = "cublas"))]
                {
                    Err(Error::Unsupported("cuBLAS not built".into()))
                }
            }
        }
    };
}
cublas_maybe!(f32);
cublas_maybe!(f64);

fn batches(
    dev: &Device,
    h: &mut Handle,
    c: &Option<Cublas>,
    n: usize,
    batch: usize,
    rows: &mut Vec<Row>,
) -> Result<(), Error> {
    let x = random(dev, n * batch, 3, |v| v)?;
    let y = random(dev, n * batch, 4, |v| v)?;
    let xl: Vec<DeviceBuffer<f64>> = (0..batch)
        .map(|i| random(dev, n, 100 + i as u64, |v| v))
        .collect::<Result<_, _>>()?;
    let yl: Vec<DeviceBuffer<f64>> = (0..batch)
        .map(|i| random(dev, n, 100_000 + i as u64, |v| v))
        .collect::<Result<_, _>>()?;
    let (xr, yr): (Vec<&DeviceBuffer<f64>>, Vec<&DeviceBuffer<f64>>) =
        (xl.iter().collect(), yl.iter().collect());
    let mut r = dev.alloc::<f64>(batch)?;
    let bytes = (2 * n * batch * 8) as f64;
    let stream = h.stream().clone();
    // cuBLAS has no batched Level 1: a loop of single calls.
    let t_loop = match c {
        #[cfg(feature = "cublas")]
        Some(c) => {
            let mut r1 = dev.alloc::<f64>(1)?;
            let mut ri = dev.alloc::<i32>(1)?;
            Some(time_calls(&stream, 5, 1, |_| {
                for v in 0..batch {
                    theirs(c, Op::Dot, n, &xl[v], &yl[v], &mut r1, &mut ri)?;
                }
                Ok(())
            })?)
        }
        _ => None,
    };
    let mut push = |op: &str, t: f64| {
        let row = Row {
            group: "batch",
            op: op.into(),
            ty: "f64",
            n,
            batch,
            bytes,
            ours: t,
            theirs: t_loop,
        };
        row.print();
        rows.push(row);
    };
    let t = time_calls(&stream, 21, 5, |_| {
        blas1::dot_strided_batched(h, n, &x, 1, n, &y, 1, n, batch, Results::Device(&mut r))
            .map(drop)
    })?;
    push("dot-strided", t);
    // A list call: device time per call, and what the host spends enqueueing one (checks of
    // 2 x batch buffers, launches).
    let mut list = |h: &mut Handle, label: &str| -> Result<f64, Error> {
        let t = time_calls(&stream, 21, 5, |_| {
            blas1::dot_batched(h, n, &xr, 1, &yr, 1, Results::Device(&mut r)).map(drop)
        })?;
        let host = host_ns(5, 20, || {
            blas1::dot_batched(h, n, &xr, 1, &yr, 1, Results::Device(&mut r)).map(drop)
        })?;
        h.synchronize()?;
        out!("host enqueue of one {label} call: {:.1} us", host / 1e3);
        Ok(t)
    };
    let t = list(h, "dot-list")?;
    push("dot-list", t);
    // The reduced-workspace path: a fixed workspace with no room for the address table passes
    // the addresses as kernel parameters, LIST_MAX at a time (also the path under capture).
    let mut small = Handle::with_config(
        dev,
        &HandleConfig {
            device_memory_size: Some(64),
            ..Default::default()
        },
    )?;
    small.set_stream(&stream)?;
    let t = list(&mut small, "dot-list-params")?;
    push("dot-list-params", t);
    Ok(())
}

fn blas1_bench(dev: &Device, quick: bool, sweep: bool) -> Result<Vec<Value>, Error> {
    let mut h = Handle::with_config(dev, &HandleConfig::default())?;
    let c = if dev.backend() == Backend::Cuda {
        cublas(h.stream())
    } else {
        None
    };
    out!(
        "Level-1 on {} (median; TB/s = bytes read / time; speedup = cuBLAS time / gpublas time)",
        dev.name()
    );
    if dev.backend() == Backend::Host {
        out!(
            "host: {} threads; the cuBLAS columns hold a read-bandwidth probe instead (every thread \
             summing a buffer of the same bytes), so speedup = gpublas bandwidth / the machine's",
            h.host_threads()
        );
    }
    out!(
        "{:6} {:6} {:4} {:>10} {:>6} | {:>10} {:>8} | {:>10} {:>8} | {:>7}",
        "group",
        "op",
        "type",
        "n",
        "batch",
        "ours us",
        "TB/s",
        "cuBLAS us",
        "TB/s",
        "speedup"
    );
    let mut rows = Vec::new();
    let (bigs, reps): (&[usize], usize) = if quick {
        (&[1 << 22], 5)
    } else {
        (&[1 << 26, 1 << 28], 21)
    };
    let large = Timing {
        group: "large",
        reps,
        inner: 5,
        rot: 1,
    };
    let small = Timing {
        group: "small",
        reps: 21,
        inner: 200,
        rot: 8,
    };
    // One large size at a time: a 2^28 f64 pair is 4 GiB.
    for &n in bigs {
        versus::<f32>(
            dev,
            &mut h,
            &c,
            "f32",
            &[n],
            &large,
            |v| v as f32,
            &mut rows,
        )?;
        versus::<f64>(dev, &mut h, &c, "f64", &[n], &large, |v| v, &mut rows)?;
    }
    if sweep {
        let top = if quick { 22 } else { 28 };
        let sizes: Vec<usize> = (6..=top / 2).map(|l| 1usize << (2 * l)).collect();
        let swept = Timing {
            group: "sweep",
            ..large
        };
        for &n in &sizes {
            versus::<f32>(
                dev,
                &mut h,
                &c,
                "f32",
                &[n],
                &swept,
                |v| v as f32,
                &mut rows,
            )?;
        }
    }
    let small_sizes: &[usize] = &[1, 16, 256, 1024, 4096];
    versus::<f32>(
        dev,
        &mut h,
        &c,
        "f32",
        small_sizes,
        &small,
        |v| v as f32,
        &mut rows,
    )?;
    versus::<f64>(
        dev,
        &mut h,
        &c,
        "f64",
        small_sizes,
        &small,
        |v| v,
        &mut rows,
    )?;
    batches(
        dev,
        &mut h,
        &c,
        1000,
        if quick { 1000 } else { 10_000 },
        &mut rows,
    )?;
    let s = h.workspace_stats();
    out!("workspace: {s}");
    Ok(rows.iter().map(Row::json).collect())
}

/// The GPU half of a `gpublas bench` family: gpublas against its peer (cuBLAS or cuSOLVER) in
/// one process, `quick` for a smoke run, `only` selecting groups; returns the rows.
pub(crate) type GpuFamily =
    fn(&Device, bool, Option<&str>) -> Result<Vec<serde_json::Value>, Error>;

/// The host half of a `gpublas bench` family (`quick` for a smoke run); returns the rows.
pub(crate) type HostFamily = fn(&Device, bool) -> Result<Vec<serde_json::Value>, Error>;

/// Runs one `gpublas bench` family: against its peer on a GPU (`on_gpu`), its host table on
/// the host backend (`on_host`: faer called directly, or the family's own). Prints the table
/// (to stderr with `json`, which prints the rows as JSON on stdout).
pub(crate) fn run_family(
    dev: &Device,
    on_host: HostFamily,
    on_gpu: GpuFamily,
    quick: bool,
    only: Option<&str>,
    json: bool,
) -> Result<(), Error> {
    TABLE_TO_STDERR.store(json, std::sync::atomic::Ordering::Relaxed);
    let rows = if dev.backend() == gpublas::Backend::Host {
        on_host(dev, quick)?
    } else {
        on_gpu(dev, quick, only)?
    };
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::Value::Array(rows)).unwrap_or_default()
        );
    }
    Ok(())
}
