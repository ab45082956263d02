//! `gpublas bench coldstart`: what a fresh process pays before its first result, per routine
//! family, with the kernel cache warm (the configured cache, filled by a first run) and cold
//! (an empty cache directory per process, so every kernel module it uses is compiled by NVRTC).
//!
//! Each measurement is a child process (`gpublas first-call --family F`) that times, from its
//! own start: opening the device (context creation), creating a handle, the first call of the
//! family (kernel load or compilation included) with its result on the host, and a second call.

use std::process::Command;
use std::time::Instant;

use gpublas::{blas1, blas2, blas3, solver, transfer, Coef, Device, Error, Handle, Op, Results};

/// The families a child can call.
pub(crate) const FAMILIES: &[&str] = &["blas1", "blas2", "blas3", "solver", "transfer"];

/// One family's first call (and its second, for comparison).
fn call(h: &mut Handle, dev: &Device, family: &str) -> Result<(), Error> {
    let n = 256usize;
    let ones = vec![1.0f64; n * n];
    let a = dev.upload(&ones)?;
    match family {
        "blas1" => {
            let mut r = [0.0f64];
            let _ = blas1::dot(h, n, &a, 1, &a, 1, Results::Host(&mut r))?;
        }
        "blas2" => {
            let mut y = dev.alloc::<f64>(n)?;
            let (one, zero) = (Coef::Host(1.0), Coef::Host(0.0));
            let _ = blas2::gemv(h, Op::N, n, n, one, &a, n, &a, 1, zero, &mut y, 1)?;
            h.synchronize()?;
        }
        "blas3" => {
            let mut c = dev.alloc::<f64>(n * n)?;
            let (one, zero) = (Coef::Host(1.0), Coef::Host(0.0));
            let _ = blas3::gemm(h, Op::N, Op::N, n, n, n, one, &a, n, &a, n, zero, &mut c, n)?;
            h.synchronize()?;
        }
        "solver" => {
            let mut m: Vec<f64> = vec![1.0; n * n];
            for i in 0..n {
                m[i + i * n] = 2.0 * n as f64;
            }
            let mut m = dev.upload(&m)?;
            let (mut piv, mut info) = (vec![0i32; n], [0i32]);
            let _ = solver::getrf(
                h,
                n,
                n,
                &mut m,
                n,
                Results::Host(&mut piv),
                Results::Host(&mut info),
            )?;
        }
        "transfer" => {
            let mut d = dev.alloc::<f64>(2 * n)?;
            let _ = transfer::set_vector(h, n, &ones, 1, &mut d, 2)?;
        }
        other => {
            return Err(Error::InvalidValue(format!(
                "unknown family '{other}' (one of {})",
                FAMILIES.join(", ")
            )))
        }
    }
    Ok(())
}

/// The child: prints one JSON line of milliseconds since its start.
pub(crate) fn child(sel: &Option<String>, family: &str) -> Result<(), Error> {
    let t0 = Instant::now();
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    let dev = crate::device(sel)?;
    let device_ms = ms(t0);
    let t = Instant::now();
    let mut h = Handle::new(&dev)?;
    let handle_ms = ms(t);
    let t = Instant::now();
    call(&mut h, &dev, family)?;
    let first_ms = ms(t);
    let t = Instant::now();
    call(&mut h, &dev, family)?;
    let second_ms = ms(t);
    println!(
        "{{\"family\":\"{family}\",\"device_ms\":{device_ms:.2},\"handle_ms\":{handle_ms:.2},\"first_ms\":{first_ms:.2},\"second_ms\":{second_ms:.2},\"total_ms\":{:.2}}}",
        ms(t0)
    );
    Ok(())
}

/// Runs one child and parses its line.
fn spawn(sel: &Option<String>, family: &str, cache: &str) -> Result<serde_json::Value, Error> {
    let exe = std::env::current_exe()
        .map_err(|e| Error::InvalidValue(format!("cannot find the gpublas executable: {e}")))?;
    let mut cmd = Command::new(exe);
    if let Some(s) = sel {
        cmd.args(["--device", s]);
    }
    cmd.args(["first-call", "--family", family]);
    cmd.env(gpublas::device::kcache::KERNEL_CACHE_VAR, cache);
    let started = Instant::now();
    let out = cmd
        .output()
        .map_err(|e| Error::InvalidValue(format!("spawning a child process failed: {e}")))?;
    let wall = started.elapsed().as_secs_f64() * 1e3;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().unwrap_or("");
    let mut v: serde_json::Value = serde_json::from_str(line).map_err(|e| {
        Error::InvalidValue(format!(
            "child for {family} printed '{line}' ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        ))
    })?;
    v["process_ms"] = serde_json::json!(wall);
    Ok(v)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The parent: three children per family with the warm cache (medians), one with a cold one
/// (compiling a family takes seconds to minutes).
pub(crate) fn run(sel: &Option<String>, json: bool) -> Result<(), Error> {
    let warm = match gpublas::device::kcache::cache_dir() {
        Some(d) => d.display().to_string(),
        None => {
            return Err(Error::InvalidValue(
                "the kernel cache is off; coldstart compares a warm cache with a cold one".into(),
            ))
        }
    };
    let scratch = std::env::temp_dir().join(format!("gpublas-coldstart-{}", std::process::id()));
    let mut rows = Vec::new();
    for &family in FAMILIES {
        // Fill the warm cache for this family first (uncounted).
        spawn(sel, family, &warm)?;
        for (state, reps) in [("warm", 3), ("cold", 1)] {
            let mut samples = Vec::new();
            for rep in 0..reps {
                let cache = if state == "warm" {
                    warm.clone()
                } else {
                    let d = scratch.join(format!("{family}-{rep}"));
                    d.display().to_string()
                };
                samples.push(spawn(sel, family, &cache)?);
            }
            let pick = |k: &str| median(samples.iter().filter_map(|s| s[k].as_f64()).collect());
            rows.push(serde_json::json!({
                "family": family,
                "cache": state,
                "device_ms": pick("device_ms"),
                "handle_ms": pick("handle_ms"),
                "first_ms": pick("first_ms"),
                "second_ms": pick("second_ms"),
                "process_ms": pick("process_ms"),
            }));
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    if json {
        println!("{}", serde_json::Value::Array(rows));
        return Ok(());
    }
    println!(
        "cold start (fresh processes: median of 3 with the warm cache {warm}; one with an empty cache)"
    );
    println!(
        "{:10} {:5} {:>10} {:>10} {:>12} {:>11} {:>12}",
        "family", "cache", "device ms", "handle ms", "1st call ms", "2nd call ms", "process ms"
    );
    for r in &rows {
        println!(
            "{:10} {:5} {:>10.1} {:>10.1} {:>12.1} {:>11.2} {:>12.1}",
            r["family"].as_str().unwrap_or(""),
            r["cache"].as_str().unwrap_or(""),
            r["device_ms"].as_f64().unwrap_or(f64::NAN),
            r["handle_ms"].as_f64().unwrap_or(f64::NAN),
            r["first_ms"].as_f64().unwrap_or(f64::NAN),
            r["second_ms"].as_f64().unwrap_or(f64::NAN),
            r["process_ms"].as_f64().unwrap_or(f64::NAN),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_takes_the_middle() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert!(median(vec![]).is_nan());
    }

    #[test]
    fn every_family_runs_on_the_host() {
        let dev = Device::host();
        let mut h = Handle::new(&dev).unwrap();
        for f in FAMILIES {
            call(&mut h, &dev, f).unwrap();
        }
        assert!(call(&mut h, &dev, "nope").is_err());
    }
}
