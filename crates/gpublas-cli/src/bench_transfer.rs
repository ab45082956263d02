//! `gpublas bench aux`: the transfers (set/get vector and matrix) in GB/s (bytes of the
//! elements moved / time), beside a plain contiguous copy of the same bytes from the same kind of
//! host memory (the host link's ceiling, measured in the same run) and cuBLAS's
//! `cublasSetVector`/`GetVector`/`SetMatrix`/`GetMatrix` with the same arguments. All calls are
//! synchronous (the async forms are waited for): host wall clock, median of seven.

use std::time::Instant;

use gpublas::{transfer, Backend, Device, DeviceBuffer, Error, Handle, PinnedBuffer};
use serde_json::{json, Value};

#[cfg(feature = "cublas")]
use gpublas_peers::copy::{cublas_matrix, cublas_vector, plain_copy, Way};

/// Arguments of `bench aux`.
#[derive(clap::Args)]
pub struct AuxArgs {
    /// Small sizes (2^20 vectors, 1024² matrices), for a smoke test on the host.
    #[arg(long)]
    quick: bool,
}

/// Host memory of one run: page-locked or pageable.
enum HostBuf {
    Pinned(PinnedBuffer<f32>),
    Pageable(Vec<f32>),
}

impl HostBuf {
    fn slice(&mut self) -> &mut [f32] {
        match self {
            HostBuf::Pinned(p) => p.as_mut_slice(),
            HostBuf::Pageable(v) => v,
        }
    }
}

/// One case: a vector (rows = 1, ld = increments) or a matrix.
#[derive(Clone, Copy)]
struct Case {
    name: &'static str,
    rows: usize,
    cols: usize,
    hld: usize,
    dld: usize,
    vector: bool,
    /// Target against the ceiling, or against cuBLAS.
    ceiling_target: Option<f64>,
    cublas_target: Option<f64>,
}

impl Case {
    fn elems(&self) -> usize {
        self.rows * self.cols
    }
    fn host_len(&self) -> usize {
        (self.cols - 1) * self.hld + self.rows
    }
    fn dev_len(&self) -> usize {
        (self.cols - 1) * self.dld + self.rows
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn time(reps: usize, mut f: impl FnMut() -> Result<(), Error>) -> Result<f64, Error> {
    f()?; // warm-up: staging, kernels, the driver's own buffers
    let mut t = Vec::with_capacity(reps);
    for _ in 0..reps {
        let s = Instant::now();
        f()?;
        t.push(s.elapsed().as_secs_f64());
    }
    Ok(median(t))
}

/// Ours, in the direction `set`, from the given host memory; `async_form` uses the `_async`
/// routine and waits for it.
fn ours(
    h: &mut Handle,
    c: &Case,
    set: bool,
    host: &mut HostBuf,
    dev: &mut DeviceBuffer<f32>,
    async_form: bool,
) -> Result<(), Error> {
    let (n, hi, di) = (c.cols, c.hld as isize, c.dld as isize);
    let _ = match (host, set, c.vector, async_form) {
        (HostBuf::Pinned(p), true, true, true) => transfer::set_vector_async(h, n, p, hi, dev, di)?,
        (HostBuf::Pinned(p), false, true, true) => {
            transfer::get_vector_async(h, n, dev, di, p, hi)?
        }
        (HostBuf::Pinned(p), true, false, true) => {
            transfer::set_matrix_async(h, c.rows, n, p, c.hld, dev, c.dld)?
        }
        (HostBuf::Pinned(p), false, false, true) => {
            transfer::get_matrix_async(h, c.rows, n, dev, c.dld, p, c.hld)?
        }
        (host, true, true, _) => transfer::set_vector(h, n, host.slice(), hi, dev, di)?,
        (host, false, true, _) => transfer::get_vector(h, n, dev, di, host.slice(), hi)?,
        (host, true, false, _) => {
            transfer::set_matrix(h, c.rows, n, host.slice(), c.hld, dev, c.dld)?
        }
        (host, false, false, _) => {
            transfer::get_matrix(h, c.rows, n, dev, c.dld, host.slice(), c.hld)?
        }
    };
    h.synchronize()
}

pub fn run(dev: &Device, a: &AuxArgs, json: bool) -> Result<(), Error> {
    let cuda = dev.backend() == Backend::Cuda;
    let (n, mn, thin) = if a.quick || !cuda {
        (1usize << 20, 1024usize, 1usize << 16)
    } else {
        (1usize << 26, 8192usize, 1usize << 20)
    };
    let v = |name, hi, di, ct| Case {
        name,
        rows: 1,
        cols: n,
        hld: hi,
        dld: di,
        vector: true,
        ceiling_target: ct,
        cublas_target: None,
    };
    let cases = [
        v("vector inc 1/1", 1, 1, Some(0.95)),
        v("vector host inc 2", 2, 1, Some(0.7)),
        v("vector dev inc 2", 1, 2, Some(0.7)),
        v("vector inc 2/2", 2, 2, Some(0.7)),
        Case {
            name: "matrix ld+8",
            rows: mn,
            cols: mn,
            hld: mn + 8,
            dld: mn + 8,
            vector: false,
            ceiling_target: Some(0.95),
            cublas_target: None,
        },
        Case {
            name: "thin 16 rows, host ld 64",
            rows: 16,
            cols: thin,
            hld: 64,
            dld: 16,
            vector: false,
            ceiling_target: None,
            cublas_target: Some(1.15),
        },
    ];
    let mut h = Handle::new(dev)?;
    let mut rows: Vec<Value> = Vec::new();
    let say = |s: String| {
        if json {
            eprintln!("{s}");
        } else {
            println!("{s}");
        }
    };
    say(format!(
        "transfers on {} (f32; GB/s = element bytes / time, median of 7; ceiling = one plain copy of the same bytes from the same host memory)",
        dev.name()
    ));
    say(format!(
        "{:26} {:3} {:8} {:5} | {:>8} | {:>8} {:>6} | {:>8} {:>6} | target",
        "case", "dir", "host", "form", "ours", "ceiling", "ratio", "cuBLAS", "ratio"
    ));
    for pinned in [true, false] {
        for c in &cases {
            let mut host = if pinned {
                let mut p = dev.alloc_pinned::<f32>(c.host_len())?;
                p.iter_mut().enumerate().for_each(|(i, x)| *x = i as f32);
                HostBuf::Pinned(p)
            } else {
                HostBuf::Pageable((0..c.host_len()).map(|i| i as f32).collect())
            };
            let mut d = dev.alloc::<f32>(c.dev_len().max(c.elems()))?;
            let bytes = (c.elems() * 4) as f64;
            for set in [true, false] {
                let forms: &[bool] = if pinned { &[false, true] } else { &[false] };
                for &async_form in forms {
                    let t = time(7, || ours(&mut h, c, set, &mut host, &mut d, async_form))?;
                    let (ceil, cub) = peers(cuda && !async_form, c, set, &mut host, &mut d)?;
                    let gbs = |t: f64| bytes / t / 1e9;
                    let (rc, rb) = (ceil.map(|x| x / t), cub.map(|x| x / t));
                    let target = match (c.ceiling_target, c.cublas_target, pinned, async_form) {
                        (_, _, _, true) => String::new(),
                        (Some(x), _, true, _) => verdict(rc, x, "ceiling"),
                        (_, Some(x), true, _) => verdict(rb, x, "cuBLAS"),
                        (_, _, false, _) => verdict(rc, 0.9, "ceiling"),
                        _ => String::new(),
                    };
                    let f = |o: Option<f64>, w: usize, p: usize| {
                        o.map_or(format!("{:>w$}", "-"), |v| format!("{v:>w$.p$}"))
                    };
                    say(format!(
                        "{:26} {:3} {:8} {:5} | {:8.2} | {} {} | {} {} | {target}",
                        c.name,
                        if set { "set" } else { "get" },
                        if pinned { "pinned" } else { "pageable" },
                        if async_form { "async" } else { "sync" },
                        gbs(t),
                        f(ceil.map(gbs), 8, 2),
                        f(rc, 6, 3),
                        f(cub.map(gbs), 8, 2),
                        f(rb, 6, 3),
                    ));
                    rows.push(json!({
                        "bench": "aux", "case": c.name, "dir": if set { "set" } else { "get" },
                        "host": if pinned { "pinned" } else { "pageable" },
                        "form": if async_form { "async" } else { "sync" },
                        "rows": c.rows, "cols": c.cols, "host_ld": c.hld, "dev_ld": c.dld,
                        "bytes": bytes, "ours_s": t, "ours_gbs": gbs(t),
                        "ceiling_gbs": ceil.map(gbs), "ratio_ceiling": rc,
                        "cublas_gbs": cub.map(gbs), "ratio_cublas": rb, "target": target,
                    }));
                }
            }
        }
    }
    say(format!("workspace: {}", h.workspace_stats()));
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&Value::Array(rows)).unwrap_or_default()
        );
    }
    Ok(())
}

/// The ceiling (a plain copy of the same bytes) and cuBLAS's time for one case, where they
/// are measured (CUDA, synchronous forms, built with cuBLAS).
#[allow(unused_variables)]
fn peers(
    measure: bool,
    c: &Case,
    set: bool,
    host: &mut HostBuf,
    d: &mut DeviceBuffer<f32>,
) -> Result<(Option<f64>, Option<f64>), Error> {
    #[cfg(feature = "cublas")]
    if measure {
        let way = if set { Way::Set } else { Way::Get };
        let elems = c.elems();
        let ceil = time(7, || plain_copy(way, &mut host.slice()[..elems], d))?;
        let cub = if c.vector {
            time(7, || {
                cublas_vector(way, c.cols, host.slice(), c.hld, d, c.dld)
            })?
        } else {
            time(7, || {
                cublas_matrix(way, c.rows, c.cols, host.slice(), c.hld, d, c.dld)
            })?
        };
        return Ok((Some(ceil), Some(cub)));
    }
    Ok((None, None))
}

fn verdict(r: Option<f64>, want: f64, of: &str) -> String {
    match r {
        Some(r) if r >= want => format!(">= {want} x {of}: met"),
        Some(_) => format!(">= {want} x {of}: MISSED"),
        None => format!(">= {want} x {of}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_and_spans() {
        assert_eq!(
            verdict(Some(1.0), 0.95, "ceiling"),
            ">= 0.95 x ceiling: met"
        );
        assert!(verdict(Some(0.5), 0.7, "ceiling").ends_with("MISSED"));
        let c = Case {
            name: "t",
            rows: 16,
            cols: 4,
            hld: 64,
            dld: 16,
            vector: false,
            ceiling_target: None,
            cublas_target: None,
        };
        assert_eq!((c.elems(), c.host_len(), c.dev_len()), (64, 208, 64));
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
    }
}
