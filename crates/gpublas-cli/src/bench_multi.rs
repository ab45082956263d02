//! `gpublas bench multi`: the distributed routines (`gpublas::multi`: SUMMA `gemm`, `potrf`,
//! `getrf`, f64) against the one-handle call on one device, in one process.
//!
//! Groups: one GPU (the distributed code's overhead over the one-handle call), every GPU of the
//! machine when it has two or more (NCCL where it loads), and, on a machine of one GPU, two
//! handles sharing it (the algorithm's overhead with in-process copies; no speedup can come
//! from it). On the host backend: one and two host devices, small orders. Every row: the
//! median of `reps` calls each timed on the host clock from the call to the end of every
//! device's work, on a fresh copy of the input (copied device to device before the timer
//! starts); TFLOP/s (gemm 2n³, potrf n³/3, getrf 2n³/3); `speedup` = the one-handle time /
//! this time; the workspace of each device from the group's size query, beside the one
//! handle's. cuSOLVERMg is not compared yet (no binding in the peers crate).
//!
//! Inputs: entries uniform in ±[0.25, 1) (`Rng::val`), fixed seeds; potrf's matrix is that,
//! symmetrised, plus n on the diagonal (positive definite).

use std::time::Instant;

use clap::Args;
use gpublas::multi::{self, DeviceGroup, DistMatrix, Layout, Transport};
use gpublas::{
    blas1, blas3, solver, Backend, Device, DeviceBuffer, Error, Handle, Op, Results, Uplo,
};
use serde_json::{json, Value};

use crate::bench::out;
use crate::bench_util::Rng;

/// Options of `gpublas bench multi`.
#[derive(Args)]
pub struct MultiArgs {
    /// A smoke run: orders 2048 and 4096 (host: 256), two timed calls per row.
    #[arg(long)]
    quick: bool,
    /// Orders to run (comma-separated; default 8192,16384 on a GPU, 512 on the host).
    #[arg(long, value_delimiter = ',')]
    sizes: Vec<usize>,
    /// Tile size (default: `Layout::auto_tile`).
    #[arg(long)]
    nb: Option<usize>,
    /// Only these routines (comma-separated): gemm, potrf, getrf.
    #[arg(long)]
    only: Option<String>,
}

/// Groups to time: a label and the devices.
fn groups(dev: &Device) -> Result<Vec<(String, Vec<Device>)>, Error> {
    let mut out = vec![("1 device".to_string(), vec![dev.clone()])];
    if dev.backend() == Backend::Host {
        out.push((
            "2 host devices".into(),
            vec![Device::host(), Device::host()],
        ));
        return Ok(out);
    }
    let count = Device::cuda_device_count();
    if count >= 2 {
        let all = (0..count)
            .map(Device::cuda)
            .collect::<Result<Vec<_>, _>>()?;
        out.push((format!("{count} GPUs"), all));
    } else {
        out.push(("2 handles, 1 GPU".into(), vec![dev.clone(), dev.clone()]));
    }
    Ok(out)
}

/// `gpublas bench multi`: prints the table (to stderr with `--json`, which prints the rows as
/// JSON on stdout).
pub fn run(dev: &Device, args: &MultiArgs, json: bool) -> Result<(), Error> {
    crate::bench::TABLE_TO_STDERR.store(json, std::sync::atomic::Ordering::Relaxed);
    let host = dev.backend() == Backend::Host;
    let sizes = match (&args.sizes[..], args.quick, host) {
        ([], true, true) => vec![256],
        ([], false, true) => vec![512],
        ([], true, false) => vec![2048, 4096],
        ([], false, false) => vec![8192, 16384],
        (s, _, _) => s.to_vec(),
    };
    let reps = if args.quick { 2 } else { 3 };
    let routines = crate::bench_util::selected(args.only.as_deref(), &["gemm", "potrf", "getrf"])?;
    out!(
        "{:<6} {:>6} {:<28} {:>10} {:>8} {:>8} {:>12}  workspace per device (MB)",
        "call",
        "n",
        "devices",
        "ms",
        "TF/s",
        "speedup",
        "one handle"
    );
    let mut rows = Vec::new();
    for &routine in &routines {
        for &n in &sizes {
            let one = one_handle(dev, routine, n, reps)?;
            let flops = flops(routine, n);
            out!(
                "{routine:<6} {n:>6} {:<28} {:>10.2} {:>8.2} {:>8} {:>12}  {:.2}",
                "one handle",
                one.0 * 1e3,
                flops / one.0 / 1e12,
                "1.00",
                "",
                one.1 as f64 / 1e6
            );
            rows.push(json!({"routine": routine, "n": n, "devices": "one handle", "ms": one.0 * 1e3, "workspace": [one.1]}));
            for (label, devices) in groups(dev)? {
                match grouped(&devices, routine, n, args.nb, reps) {
                    Ok((t, ws, transport)) => {
                        let label = format!("{label} ({transport:?})");
                        let mb: Vec<String> = ws
                            .iter()
                            .map(|b| format!("{:.2}", *b as f64 / 1e6))
                            .collect();
                        out!(
                            "{routine:<6} {n:>6} {label:<28} {:>10.2} {:>8.2} {:>8.2} {:>12.2}  {}",
                            t * 1e3,
                            flops / t / 1e12,
                            one.0 / t,
                            one.0 * 1e3,
                            mb.join(" / ")
                        );
                        rows.push(json!({"routine": routine, "n": n, "devices": label, "ms": t * 1e3, "speedup": one.0 / t, "workspace": ws}));
                    }
                    Err(e) => out!("{routine:<6} {n:>6} {label:<28} error: {e}"),
                }
            }
        }
    }
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&Value::Array(rows)).unwrap_or_default()
        );
    }
    Ok(())
}

fn flops(routine: &str, n: usize) -> f64 {
    let n = n as f64;
    match routine {
        "gemm" => 2.0 * n * n * n,
        "potrf" => n * n * n / 3.0,
        _ => 2.0 * n * n * n / 3.0,
    }
}

/// The input of `routine` (column-major, n × n).
fn input(routine: &str, n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng(seed);
    let mut a: Vec<f64> = (0..n * n).map(|_| rng.val()).collect();
    if routine == "potrf" {
        for j in 0..n {
            for i in 0..j {
                a[i + j * n] = a[j + i * n];
            }
            a[j + j * n] += n as f64;
        }
    }
    a
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The one-handle call: median seconds and its workspace need.
fn one_handle(dev: &Device, routine: &str, n: usize, reps: usize) -> Result<(f64, usize), Error> {
    let mut h = Handle::new(dev)?;
    let pristine = dev.upload(&input(routine, n, 1))?;
    let b = dev.upload(&input("gemm", n, 2))?;
    let mut work: DeviceBuffer<f64> = dev.alloc(n * n)?;
    let mut ipiv = vec![0i32; n];
    let mut call = |h: &mut Handle, work: &mut DeviceBuffer<f64>| -> Result<(), Error> {
        let _ = match routine {
            "gemm" => blas3::gemm(
                h,
                Op::N,
                Op::N,
                n,
                n,
                n,
                1.0.into(),
                &pristine,
                n,
                &b,
                n,
                0.0.into(),
                work,
                n,
            )?,
            "potrf" => solver::potrf(h, Uplo::Lower, n, work, n, Results::Host(&mut [0]))?,
            _ => solver::getrf(
                h,
                n,
                n,
                work,
                n,
                Results::Host(&mut ipiv),
                Results::Host(&mut [0]),
            )?,
        };
        Ok(())
    };
    h.start_device_memory_size_query()?;
    let q = call(&mut h, &mut DeviceBuffer::placeholder(n * n));
    let need = h.stop_device_memory_size_query()?;
    q?;
    let mut times = Vec::new();
    for rep in 0..=reps {
        let _ = blas1::copy(&mut h, n * n, &pristine, 1, &mut work, 1)?;
        h.synchronize()?;
        let t = Instant::now();
        call(&mut h, &mut work)?;
        h.synchronize()?;
        if rep > 0 {
            times.push(t.elapsed().as_secs_f64());
        }
    }
    Ok((median(times), need))
}

/// The distributed call on `devices`: median seconds, each device's workspace need, and the
/// transport the group used.
fn grouped(
    devices: &[Device],
    routine: &str,
    n: usize,
    nb: Option<usize>,
    reps: usize,
) -> Result<(f64, Vec<usize>, Transport), Error> {
    let mut g = DeviceGroup::new(devices)?;
    let layout = Layout::new(
        n,
        n,
        nb.unwrap_or_else(|| Layout::auto_tile(n, g.grid())),
        g.grid(),
    )?;
    let pristine = DistMatrix::from_host(&mut g, n, n, layout.nb, &input(routine, n, 1), n)?;
    let b = DistMatrix::from_host(&mut g, n, n, layout.nb, &input("gemm", n, 2), n)?;
    let mut work = DistMatrix::with_layout(&g, layout)?;
    let mut ipiv = vec![0i32; n];
    let mut call = |g: &mut DeviceGroup, work: &mut DistMatrix<f64>| -> Result<(), Error> {
        match routine {
            "gemm" => {
                let _ = multi::gemm(g, Op::N, Op::N, 1.0, &pristine, &b, 0.0, work)?;
            }
            "potrf" => {
                let _ = multi::potrf(g, Uplo::Lower, work)?;
            }
            _ => {
                let _ = multi::getrf(g, work, &mut ipiv)?;
            }
        }
        Ok(())
    };
    g.start_device_memory_size_query()?;
    let q = call(&mut g, &mut work);
    let needs = g.stop_device_memory_size_query()?;
    q?;
    let mut times = Vec::new();
    for rep in 0..=reps {
        work.copy_from(&mut g, &pristine)?;
        g.synchronize()?;
        let t = Instant::now();
        call(&mut g, &mut work)?;
        g.synchronize()?;
        if rep > 0 {
            times.push(t.elapsed().as_secs_f64());
        }
    }
    let transport = g.transport();
    Ok((median(times), needs, transport))
}
