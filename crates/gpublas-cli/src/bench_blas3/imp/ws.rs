//! The `workspace` group of `gpublas bench blas3`: what the Level-3 routines that run on the
//! block executor (trmm, syrk, syr2k, symm, trsm; f64) ask a size query for, and what running
//! them in a fixed 8 MiB workspace costs instead.
//!
//! Each case is one call timed on two fresh handles on the run's stream: one whose workspace is
//! fixed (`UserManaged`) at exactly the call's query result, and one fixed at [`SMALL`]. Both
//! never grow, so the times compare the full plan with the plan that fits in 8 MiB (cuBLASLt's
//! share of the workspace included). Their timed batches alternate, so drift over a case
//! falls on both alike. The two results, from the same inputs, must agree to
//! [`TOL`]: a reduced plan that computes something else is reported, not timed as a win.

use super::{random, rel_diff, triangle, Bench, Out, ALPHA, BETA};
use crate::bench::{median, out};
use crate::bench_util::{bytes, elems, err, fits, size_query};

use gpublas::blas3;
use gpublas::{
    Coef, DeviceBuffer, Diag, Error, Handle, HandleConfig, Op, Side, Status, Stream, Timer, Uplo,
};
use serde_json::{json, Value};

/// The fixed workspace every case is also timed with (the target need).
const SMALL: usize = 8 << 20;

/// The largest slowdown at [`SMALL`] (percent) for which it may become the full-speed need.
const MAX_COST_PCT: f64 = 2.0;

/// Relative agreement required between the run at the full need and the run at [`SMALL`].
const TOL: f64 = 1e-10;

/// The routines of the group, in the order they run.
const ROUTINES: [&str; 5] = ["trmm", "syrk", "syr2k", "symm", "trsm"];

/// One timed run of a case: the handle's fixed workspace, the last status, the time per call.
struct Run {
    capacity: usize,
    status: Status,
    time: Result<f64, Error>,
}

impl Run {
    fn ms(&self) -> String {
        match &self.time {
            Ok(t) => format!("{:10.3}", t * 1e3),
            Err(_) => format!("{:>10}", "error"),
        }
    }
}

/// One printed row: a routine at one order.
struct WsRow {
    op: String,
    order: usize,
    flops: f64,
    /// The size query of the call (bytes).
    need: usize,
    full: Run,
    small: Run,
    /// `max |small - full| / max |full|` after one call on each handle from the same inputs.
    diff: Result<f64, Error>,
}

impl WsRow {
    /// `(t_small / t_full - 1) * 100`, where both were timed.
    fn cost_pct(&self) -> Option<f64> {
        match (&self.full.time, &self.small.time) {
            (Ok(f), Ok(s)) if *f > 0.0 => Some((s / f - 1.0) * 100.0),
            _ => None,
        }
    }

    fn disagrees(&self) -> bool {
        matches!(&self.diff, Ok(d) if d.is_nan() || *d > TOL)
    }

    /// `≤8MiB ok` when 8 MiB costs under [`MAX_COST_PCT`], `keeps need` otherwise; a need
    /// already within 8 MiB has nothing to decide (its "cost" is timing noise).
    fn verdict(&self) -> &'static str {
        if self.disagrees() || self.diff.is_err() {
            return "n/a (results)";
        }
        if self.need <= SMALL {
            return "already ≤8MiB";
        }
        match self.cost_pct() {
            Some(c) if c < MAX_COST_PCT => "≤8MiB ok",
            Some(_) => "keeps need",
            None => "n/a (timing)",
        }
    }

    fn print(&self) {
        let cost = match self.cost_pct() {
            Some(c) => format!("{c:7.2}"),
            None => format!("{:>7}", "n/a"),
        };
        let diff = match &self.diff {
            Ok(d) => format!("{d:8.1e}"),
            Err(_) => format!("{:>8}", "n/a"),
        };
        // Derived Debug ignores widths: pad the text.
        let status = format!("{:?}", self.small.status);
        out!(
            "{:9} {:>6} {:>12} {:>8.1} {:>14} | {} {} {} | {} {}",
            self.op,
            self.order,
            self.need,
            self.need as f64 / (1 << 20) as f64,
            status,
            self.full.ms(),
            self.small.ms(),
            cost,
            diff,
            self.verdict()
        );
        if self.full.status != Status::Success {
            out!(
                "    at its own need ({} bytes) the call returned {:?}",
                self.need,
                self.full.status
            );
        }
        if self.disagrees() {
            if let Ok(d) = &self.diff {
                out!(
                    "    the 8 MiB run DISAGREES with the full one: relative difference {d:.2e} \
                     > {TOL:.0e}"
                );
            }
        }
        for (who, e) in [
            ("at the full need", self.full.time.as_ref().err()),
            ("at 8 MiB", self.small.time.as_ref().err()),
            ("comparison", self.diff.as_ref().err()),
        ] {
            if let Some(e) = e {
                out!("    {who}: {e}");
            }
        }
    }

    fn json(&self) -> Value {
        let tflops = |r: &Result<f64, Error>| r.as_ref().ok().map(|t| self.flops / t / 1e12);
        json!({
            "bench": "blas3", "group": "workspace", "op": self.op, "type": "f64",
            "order": self.order, "flops": self.flops,
            "ws_need_bytes": self.need,
            "full_ws_capacity": self.full.capacity,
            "full_status": format!("{:?}", self.full.status),
            "full_s": self.full.time.as_ref().ok(), "full_tflops": tflops(&self.full.time),
            "full_error": err(self.full.time.as_ref().err()),
            "small_ws_bytes": SMALL, "small_ws_capacity": self.small.capacity,
            "small_status": format!("{:?}", self.small.status),
            "small_s": self.small.time.as_ref().ok(), "small_tflops": tflops(&self.small.time),
            "small_error": err(self.small.time.as_ref().err()),
            "cost_pct": self.cost_pct(), "max_cost_pct": MAX_COST_PCT,
            "max_rel_diff": self.diff.as_ref().ok(), "diff_error": err(self.diff.as_ref().err()),
            "diff_tol": TOL, "disagree": self.disagrees(),
            "verdict": self.verdict(),
        })
    }
}

/// A handle on the run's stream whose workspace is fixed at `bytes` (at least one chunk, so it
/// is `UserManaged` and never grows).
fn fixed(b: &Bench<'_>, bytes: usize) -> Result<Handle, Error> {
    let cfg = HandleConfig {
        device_memory_size: Some(bytes.max(1)),
        stream_order_alloc: false,
    };
    let mut h = Handle::with_config(b.dev, &cfg)?;
    h.set_stream(b.h.stream())?;
    Ok(h)
}

/// One event-timed batch of `calls` calls on `h` (the output restored first when `reset`);
/// seconds per call. `status` keeps the last call's.
fn batch(
    stream: &Stream,
    calls: usize,
    reset: bool,
    out: &mut Out<f64>,
    h: &mut Handle,
    status: &mut Status,
    call: &mut impl FnMut(&mut Handle, &mut DeviceBuffer<f64>) -> Result<Status, Error>,
) -> Result<f64, Error> {
    if reset {
        out.reset()?;
    }
    let timer = Timer::start(stream)?;
    for _ in 0..calls {
        *status = call(h, &mut out.c)?;
    }
    Ok(timer.stop()? / calls as f64)
}

/// Seconds per call on each of the two handles: the median of `reps` batches of `inner` calls,
/// as the other rows, after a warm-up batch on each. The handles' batches alternate (ABBA), so
/// clock and thermal drift over the case fall on both alike: the cost is a difference of a few
/// percent. A handle whose call fails is timed no further; the other goes on.
fn time_pair(
    stream: &Stream,
    (reps, inner): (usize, usize),
    in_place: bool,
    out: &mut Out<f64>,
    hs: &mut [Handle; 2],
    status: &mut [Status; 2],
    call: &mut impl FnMut(&mut Handle, &mut DeviceBuffer<f64>) -> Result<Status, Error>,
) -> [Result<f64, Error>; 2] {
    let (reps, inner) = (reps.max(1), inner.max(1));
    let mut samples: [Result<Vec<f64>, Error>; 2] = [Ok(Vec::new()), Ok(Vec::new())];
    if let Err(e) = out.reset() {
        return [Err(e.clone()), Err(e)];
    }
    for (i, (h, st)) in hs.iter_mut().zip(status.iter_mut()).enumerate() {
        if let Err(e) = batch(stream, inner.min(8), in_place, out, h, st, call) {
            samples[i] = Err(e);
        }
    }
    if let Err(e) = stream.synchronize() {
        return [Err(e.clone()), Err(e)];
    }
    for r in 0..reps {
        let order = if r % 2 == 0 { [0, 1] } else { [1, 0] };
        for i in order {
            if let Ok(v) = &mut samples[i] {
                match batch(
                    stream,
                    inner,
                    in_place,
                    out,
                    &mut hs[i],
                    &mut status[i],
                    call,
                ) {
                    Ok(t) => v.push(t),
                    Err(e) => samples[i] = Err(e),
                }
            }
        }
    }
    samples.map(|s| s.map(median))
}

/// Queries `call`'s need, then compares and times it on a handle fixed at that need and on one
/// fixed at [`SMALL`]; prints the row and keeps its JSON. `in_place` restores the output before
/// every timed batch (trmm, trsm).
fn case(
    b: &mut Bench<'_>,
    op: &str,
    order: usize,
    flops: f64,
    in_place: bool,
    out: &mut Out<f64>,
    mut call: impl FnMut(&mut Handle, &mut DeviceBuffer<f64>) -> Result<Status, Error>,
) -> Result<(), Error> {
    // The query runs on a default (Managed) handle, as an application would ask it.
    let mut full = Handle::with_config(b.dev, &HandleConfig::default())?;
    full.set_stream(b.h.stream())?;
    let need = size_query(&mut full, |h| call(h, &mut out.c))?;
    let _ = full.set_device_memory_size(need.max(1))?;
    let mut small = fixed(b, SMALL)?;

    let mut once = |h: &mut Handle, out: &mut Out<f64>| {
        out.reset()?;
        let st = call(h, &mut out.c)?;
        Ok::<_, Error>((st, out.c.to_vec()?))
    };
    let mine = once(&mut full, out);
    let other = once(&mut small, out);
    let mut st = [Status::Success; 2];
    let diff = match (mine, other) {
        (Ok((sf, p)), Ok((ss, q))) => {
            st = [sf, ss];
            Ok(rel_diff(&q, &p))
        }
        (Err(e), _) | (_, Err(e)) => Err(e),
    };

    let stream = b.h.stream().clone();
    let mut hs = [full, small];
    let [t_full, t_small] = time_pair(
        &stream,
        (b.reps, b.inner),
        in_place,
        out,
        &mut hs,
        &mut st,
        &mut call,
    );
    let row = WsRow {
        op: op.to_string(),
        order,
        flops,
        need,
        full: Run {
            capacity: hs[0].get_device_memory_size(),
            status: st[0],
            time: t_full,
        },
        small: Run {
            capacity: hs[1].get_device_memory_size(),
            status: st[1],
            time: t_small,
        },
        diff,
    };
    row.print();
    b.rows.push(row.json());
    Ok(())
}

/// One routine at order `n` (square operands, rank `k = n`), its inputs made here.
fn routine(b: &mut Bench<'_>, name: &str, n: usize) -> Result<(), Error> {
    let dev = b.dev;
    let nn = elems(n, n)?;
    let nf = n as f64;
    let cube = nf * nf * nf;
    // Every case holds at most three n × n matrices on the device.
    fits(
        dev,
        &format!("workspace {name} f64"),
        bytes::<f64>(nn.saturating_mul(3))?,
    )?;
    let seed = 80 + 10 * ROUTINES.iter().position(|r| *r == name).unwrap_or(0) as u64;
    let mut c = Out::<f64>::random(dev, nn, seed)?;
    let (al, be) = (Coef::Host(ALPHA), Coef::Host(BETA));
    match name {
        "trmm" | "trsm" => {
            // Unit diagonal, small off-diagonal entries: repeated products and solves stay
            // near `B`.
            let a = triangle(dev, n, seed + 1)?;
            let (side, uplo, op, diag) = (Side::Left, Uplo::Lower, Op::N, Diag::NonUnit);
            if name == "trmm" {
                case(b, "trmm LLNN", n, cube, true, &mut c, |h, bm| {
                    blas3::trmm(h, side, uplo, op, diag, n, n, al, &a, n, bm, n)
                })
            } else {
                case(b, "trsm LLNN", n, cube, true, &mut c, |h, bm| {
                    blas3::trsm(h, side, uplo, op, diag, n, n, al, &a, n, bm, n)
                })
            }
        }
        "syrk" => {
            let a = random::<f64>(dev, nn, seed + 1)?;
            case(b, "syrk LN", n, cube, false, &mut c, |h, c| {
                blas3::syrk(h, Uplo::Lower, Op::N, n, n, al, &a, n, be, c, n)
            })
        }
        "syr2k" => {
            let a = random::<f64>(dev, nn, seed + 1)?;
            let bm = random::<f64>(dev, nn, seed + 2)?;
            case(b, "syr2k LN", n, 2.0 * cube, false, &mut c, |h, c| {
                blas3::syr2k(h, Uplo::Lower, Op::N, n, n, al, &a, n, &bm, n, be, c, n)
            })
        }
        _ => {
            let a = random::<f64>(dev, nn, seed + 1)?;
            let bm = random::<f64>(dev, nn, seed + 2)?;
            case(b, "symm LL", n, 2.0 * cube, false, &mut c, |h, c| {
                blas3::symm(
                    h,
                    Side::Left,
                    Uplo::Lower,
                    n,
                    n,
                    al,
                    &a,
                    n,
                    &bm,
                    n,
                    be,
                    c,
                    n,
                )
            })
        }
    }
}

/// The group: every routine at 8192 and 16384 (1024 and 2048 with `--quick`).
pub(super) fn group(b: &mut Bench<'_>, quick: bool) {
    let orders: [usize; 2] = if quick { [1024, 2048] } else { [8192, 16384] };
    out!(
        "workspace: f64, each call on a handle fixed at its size query's need and on one fixed \
         at {SMALL} bytes (8 MiB); cost = t(8 MiB) / t(need) - 1; rel diff = max |8 MiB - need| \
         / max |need|; verdict: ≤8MiB ok below {MAX_COST_PCT}% cost, else keeps need"
    );
    out!(
        "{:9} {:>6} {:>12} {:>8} {:>14} | {:>10} {:>10} {:>7} | {:>8} verdict",
        "op",
        "order",
        "need bytes",
        "MiB",
        "status @8MiB",
        "need ms",
        "8MiB ms",
        "cost %",
        "rel diff"
    );
    for name in ROUTINES {
        for n in orders {
            b.part("workspace", &format!("{name} f64 {n}"), |b| {
                routine(b, name, n)
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(need: usize, full: f64, small: f64, diff: f64) -> WsRow {
        let run = |t: f64, status| Run {
            capacity: 0,
            status,
            time: Ok(t),
        };
        WsRow {
            op: "trmm LLNN".into(),
            order: 8192,
            flops: 1.0,
            need,
            full: run(full, Status::Success),
            small: run(small, Status::PerfDegraded),
            diff: Ok(diff),
        }
    }

    #[test]
    fn verdicts() {
        let big = 84 << 20;
        assert_eq!(row(big, 1.0, 1.019, 0.0).verdict(), "≤8MiB ok");
        assert_eq!(row(big, 1.0, 1.021, 0.0).verdict(), "keeps need");
        assert_eq!(row(SMALL, 1.0, 1.5, 0.0).verdict(), "already ≤8MiB");
        assert_eq!(row(big, 1.0, 1.0, 1e-6).verdict(), "n/a (results)");
        assert_eq!(row(big, 1.0, 1.0, f64::NAN).verdict(), "n/a (results)");
        let cost = row(big, 2.0, 3.0, 0.0).cost_pct().unwrap_or(f64::NAN);
        assert!((cost - 50.0).abs() < 1e-12);
    }
}
