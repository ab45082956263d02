//! The host rows of `gpublas bench eig`: gpublas's host backend alone (no peer is called):
//! `syevd` of one f64 matrix (values only and with vectors) and `syevj_strided_batched` of a
//! batch of small ones, median host-clock time per call, the input restored outside the timed
//! region before every call. A call that fails is shown in its row and the run goes on.

use gpublas::{solver, Device, Error, Esort, Evect, Handle, HandleConfig, Results, Uplo};
use serde_json::{json, Value};

use crate::bench::{median, out};

/// `count` random symmetric `n × n` f64 matrices, `(G + Gᵀ) / 2`, one after the other.
fn symmetric(n: usize, count: usize, seed: u64) -> Vec<f64> {
    use rand::{Rng, SeedableRng};
    let mut r = rand::rngs::StdRng::seed_from_u64(seed);
    let mut v: Vec<f64> = (0..n * n * count).map(|_| r.gen_range(-1.0..1.0)).collect();
    for e in 0..count {
        let m = &mut v[e * n * n..(e + 1) * n * n];
        for j in 0..n {
            for i in j + 1..n {
                let s = 0.5 * (m[i + j * n] + m[j + i * n]);
                m[i + j * n] = s;
                m[j + i * n] = s;
            }
        }
    }
    v
}

/// Median seconds of `reps` calls of `f(false)`, each after an untimed `f(true)` that restores
/// the input, and one warm-up call first.
fn timed(reps: usize, f: &mut dyn FnMut(bool) -> Result<(), Error>) -> Result<f64, Error> {
    f(true)?;
    f(false)?;
    let mut t = Vec::with_capacity(reps.max(1));
    for _ in 0..reps.max(1) {
        f(true)?;
        let s = std::time::Instant::now();
        f(false)?;
        t.push(s.elapsed().as_secs_f64());
    }
    Ok(median(t))
}

/// `gpublas bench eig` on the host backend.
pub(super) fn run(dev: &Device, quick: bool) -> Result<Vec<Value>, Error> {
    let mut h = Handle::with_config(dev, &HandleConfig::default())?;
    let (orders, batch): (&[usize], (usize, usize)) = if quick {
        (&[256], (100, 32))
    } else {
        (&[512, 1024], (1000, 32))
    };
    let reps = if quick { 3 } else { 11 };
    out!(
        "host backend ({} threads; f64; median of {reps} calls after a warm-up; gpublas alone: \
         the cuSOLVER comparison needs a GPU and --features cublas)",
        h.host_threads()
    );
    out!("{:24} {:>16} | {:>10}", "op", "shape", "gpublas ms");
    let mut rows = Vec::new();
    let mut report = |op: &str, shape: String, t: Result<f64, Error>| {
        match &t {
            Ok(s) => out!("{op:24} {shape:>16} | {:10.3}", s * 1e3),
            Err(e) => {
                out!("{op:24} {shape:>16} | {:>10}", "error");
                out!("    gpublas: {e}");
            }
        }
        rows.push(json!({
            "bench": "eig-host", "op": op, "type": "f64", "shape": shape,
            "ours_s": t.as_ref().ok(), "ours_error": t.as_ref().err().map(|e| e.to_string()),
        }));
    };
    for &n in orders {
        let a0 = symmetric(n, 1, 50_000 + n as u64);
        for evect in [Evect::Original, Evect::None] {
            let mut a = dev.upload(&a0)?;
            let mut w = dev.alloc::<f64>(n)?;
            let mut info = [0i32];
            let mut f = |reset: bool| {
                if reset {
                    return a.copy_from_host(&a0);
                }
                solver::syevd(
                    &mut h,
                    evect,
                    Uplo::Lower,
                    n,
                    &mut a,
                    n,
                    &mut w,
                    Results::Host(&mut info),
                )
                .map(drop)
            };
            let t = timed(reps, &mut f);
            let tag = if evect == Evect::Original { "V" } else { "N" };
            report(&format!("syevd {tag}"), format!("n={n}"), t);
        }
    }
    let (count, n) = batch;
    let a0 = symmetric(n, count, 60_000 + n as u64);
    let mut a = dev.upload(&a0)?;
    let mut w = dev.alloc::<f64>(n * count)?;
    let (mut res, mut sweeps, mut info) = (vec![0.0; count], vec![0; count], vec![0; count]);
    let mut f = |reset: bool| {
        if reset {
            return a.copy_from_host(&a0);
        }
        solver::syevj_strided_batched(
            &mut h,
            Esort::Ascending,
            Evect::Original,
            Uplo::Lower,
            n,
            &mut a,
            n,
            n * n,
            f64::EPSILON,
            Results::Host(&mut res),
            100,
            Results::Host(&mut sweeps),
            &mut w,
            n,
            Results::Host(&mut info),
            count,
        )
        .map(drop)
    };
    let t = timed(reps, &mut f);
    report("syevj_sb V", format!("{count} x n={n}"), t);
    Ok(rows)
}
