//! The host rows of `gpublas bench qr`: gpublas's host backend beside faer's blocked
//! Householder QR (`qr_in_place`) called directly on the same values, as `bench_host` does for
//! the other families. Median host-clock time per call, alternating with faer's; inputs
//! restored outside the timed region before every call. A gpublas call that fails is shown in
//! its row (faer is still timed) and the run goes on.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::qr::no_pivoting::factor::{
    qr_in_place, qr_in_place_scratch, recommended_block_size,
};
use faer::{Mat, MatMut, Par};
use gpublas::{solver, Device, Error, Handle, HandleConfig};
use serde_json::{json, Value};

use crate::bench::{median, out};

/// Seconds of one call of `f(false)`, after an untimed `f(true)` that restores its inputs.
fn once(f: &mut dyn FnMut(bool) -> Result<(), Error>) -> Result<f64, Error> {
    f(true)?;
    let s = std::time::Instant::now();
    f(false)?;
    Ok(s.elapsed().as_secs_f64())
}

/// Median seconds of `ours` and of `faer` over `reps` rounds that alternate them (so a slow
/// stretch of a shared machine costs both alike), after one warm-up call of each; `ours`'s
/// first error ends its part (faer goes on).
fn paired(
    reps: usize,
    ours: &mut dyn FnMut(bool) -> Result<(), Error>,
    faer: &mut dyn FnMut(bool) -> Result<(), Error>,
) -> Result<(Result<f64, Error>, f64), Error> {
    let mut ok = once(ours).map(drop);
    once(faer)?;
    let (mut a, mut b) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
    for _ in 0..reps.max(1) {
        if ok.is_ok() {
            match once(ours) {
                Ok(t) => a.push(t),
                Err(e) => ok = Err(e),
            }
        }
        b.push(once(faer)?);
    }
    Ok((ok.map(|()| median(a)), median(b)))
}

/// `gpublas bench qr` on the host backend: geqrf of a square and a tall-skinny f64 matrix.
pub(super) fn run(dev: &Device, quick: bool) -> Result<Vec<Value>, Error> {
    let mut h = Handle::with_config(dev, &HandleConfig::default())?;
    let shapes: [(usize, usize); 2] = if quick {
        [(512, 512), (20_000, 32)]
    } else {
        [(2048, 2048), (200_000, 64)]
    };
    let reps = if quick { 3 } else { 21 };
    let par = Par::rayon(0);
    out!(
        "host backend beside faer 0.24 (qr_in_place) called directly on the same values ({} \
         threads; f64; median of {reps} calls, alternating with faer's; flops 2mn² - 2n³/3; \
         ratio = faer time / gpublas time)",
        h.host_threads()
    );
    out!(
        "{:8} {:>16} | {:>10} {:>9} | {:>10} {:>9} | {:>6}",
        "op",
        "shape",
        "gpublas ms",
        "GFLOP/s",
        "faer ms",
        "GFLOP/s",
        "ratio"
    );
    let mut rows = Vec::new();
    for (m, n) in shapes {
        let a0: Vec<f64> = {
            use rand::{Rng, SeedableRng};
            let mut r = rand::rngs::StdRng::seed_from_u64(11_000 + (m + n) as u64);
            (0..m * n).map(|_| r.gen_range(-1.0..1.0)).collect()
        };
        let k = m.min(n);
        let mut fa = dev.upload(&a0)?;
        let mut tau = dev.alloc::<f64>(k.max(1))?;
        let mut ours = |reset: bool| {
            if reset {
                return fa.copy_from_host(&a0);
            }
            solver::geqrf(&mut h, m, n, &mut fa, m, &mut tau).map(drop)
        };
        let bs = recommended_block_size::<f64>(m, n);
        let mut mine = a0.clone();
        let mut q_coeff = Mat::<f64>::zeros(bs, k);
        let mut mem = MemBuffer::new(qr_in_place_scratch::<f64>(
            m,
            n,
            bs,
            par,
            Default::default(),
        ));
        let mut faer = |reset: bool| {
            if reset {
                mine.copy_from_slice(&a0);
                return Ok(());
            }
            qr_in_place(
                MatMut::from_column_major_slice_mut(&mut mine, m, n),
                q_coeff.as_mut(),
                par,
                MemStack::new(&mut mem),
                Default::default(),
            );
            Ok(())
        };
        let (ours_s, faer_s) = paired(reps, &mut ours, &mut faer)?;
        let (mf, nf) = (m as f64, n as f64);
        let flops = 2.0 * mf * nf * nf - 2.0 * nf * nf * nf / 3.0;
        let gf = |t: f64| flops / t / 1e9;
        let shape = format!("m={m} n={n}");
        let (mine_ms, mine_gf, ratio) = match &ours_s {
            Ok(t) => (
                format!("{:10.3}", t * 1e3),
                format!("{:9.1}", gf(*t)),
                format!("{:6.3}", faer_s / t),
            ),
            Err(_) => (
                format!("{:>10}", "error"),
                format!("{:>9}", ""),
                format!("{:>6}", "n/a"),
            ),
        };
        out!(
            "{:8} {:>16} | {mine_ms} {mine_gf} | {:10.3} {:9.1} | {ratio}",
            "geqrf",
            shape,
            faer_s * 1e3,
            gf(faer_s)
        );
        if let Err(e) = &ours_s {
            out!("    gpublas: {e}");
        }
        let ours_error = ours_s.as_ref().err().map(|e| e.to_string());
        let ours_s = ours_s.ok();
        rows.push(json!({
            "bench": "host", "op": "geqrf", "type": "f64", "m": m, "n": n, "flops": flops,
            "ours_s": ours_s, "faer_s": faer_s, "ratio": ours_s.map(|t| faer_s / t),
            "ours_error": ours_error,
        }));
    }
    Ok(rows)
}
