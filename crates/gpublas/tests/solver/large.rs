//! F1, F7, F10 past 32-bit offsets: f32 `getrf` then `getrs` (one right-hand side) of order
//! 70000 on a GPU. 70000² ≈ 4.9e9 elements > 2³², so an element offset computed in 32 bits
//! wraps and lands inside the matrix. The same code runs at order 300 on both backends.
//!
//! `A` is uniform in [-1, 1) (each column from a stream of its own, so column ranges fill in
//! parallel), `b = A x_true` (f64, rounded to f32) with `x_true` uniform in [-1, 1). Checks, in
//! f64 with plain loops over the host copy of `A` (not the library):
//! - `Status::Success` from both calls, `info == 0`, every pivot `ipiv[j]` in `[j + 1, n]`;
//! - `ρ = ‖b − A x‖∞ / (n ‖A‖∞ ‖x‖∞ ε) < 30`, the suite's solve bound;
//! - `ρ < SHARP_MAX` (0.2). The bound of 30 does not tell a wrong answer at this order: for an
//!   `x` of random values of size `X`, `‖b − A x‖∞ ≈ 4 √n X / 3` against
//!   `n ‖A‖∞ ‖x‖∞ ε ≈ n² X ε / 2`, so `ρ ≈ 8 / (3 n^1.5 ε)`: 1.2–1.8 at n = 70000 in f32
//!   (measured on the host backend with `x` uniform in [-1, 1): 1.4e2 at n = 4000, 4.8e1 at
//!   8000, going as `n^-1.5`, 1.8 at 70000), while right answers gave `ρ` = 0.009–0.016 for
//!   every n from 100 to 8000 (host backend). At n = 300 the sharp bound catches one entry of
//!   `x` off by about 0.2 % of `‖x‖∞`.

use super::*;
use std::time::Instant;

/// The large order: 70000² = 4.9e9 elements, past 2³² (and past 65536², where 32-bit
/// offsets break other libraries).
const LARGE_N: usize = 70_000;

/// The sharp bound on `ρ` (see the module's notes): over 12 times what right answers gave,
/// a sixth to a ninth of what a random `x` gives at order 70000.
const SHARP_MAX: f64 = 0.2;

/// splitmix64's finaliser.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Fills column `j` of the test matrix (uniform in [-1, 1), from a stream of its own).
fn fill_column(seed: u64, j: usize, col: &mut [f32]) {
    let mut g = Gen::new(mix(seed ^ mix(j as u64 + 1)));
    for v in col {
        *v = g.uni() as f32;
    }
}

fn workers() -> usize {
    std::thread::available_parallelism().map_or(1, |p| p.get())
}

/// Calls `f(first column, columns)` on `workers()` threads over ranges of whole columns of
/// the column-major `n`-row `a`.
fn par_columns<R: Send>(
    a: &mut [f32],
    n: usize,
    f: impl Fn(usize, &mut [f32]) -> R + Sync,
) -> Vec<R> {
    let per = (a.len() / n).div_ceil(workers()).max(1);
    let f = &f;
    std::thread::scope(|s| {
        let hs: Vec<_> = a
            .chunks_mut(per * n)
            .enumerate()
            .map(|(t, c)| s.spawn(move || f(t * per, c)))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// The `n × n` test matrix, column-major, generated in parallel.
fn gen_matrix(n: usize, seed: u64) -> Vec<f32> {
    let mut a = vec![0f32; n * n];
    par_columns(&mut a, n, |j0, cols| {
        for (k, col) in cols.chunks_mut(n).enumerate() {
            fill_column(seed, j0 + k, col);
        }
    });
    a
}

/// `(A x, the row sums of |A|)` in f64, plain loops, in parallel over column ranges (the
/// partial sums are added in thread order, so the result does not depend on timing).
fn mat_vec(a: &[f32], n: usize, x: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let per = n.div_ceil(workers()).max(1);
    let parts: Vec<(Vec<f64>, Vec<f64>)> = std::thread::scope(|s| {
        let hs: Vec<_> = a
            .chunks(per * n)
            .enumerate()
            .map(|(t, cols)| {
                s.spawn(move || {
                    let (mut y, mut rs) = (vec![0f64; n], vec![0f64; n]);
                    for (k, col) in cols.chunks(n).enumerate() {
                        let xj = x[t * per + k];
                        for i in 0..n {
                            let v = col[i] as f64;
                            y[i] += v * xj;
                            rs[i] += v.abs();
                        }
                    }
                    (y, rs)
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let (mut y, mut rs) = (vec![0f64; n], vec![0f64; n]);
    for (py, prs) in &parts {
        for i in 0..n {
            y[i] += py[i];
            rs[i] += prs[i];
        }
    }
    (y, rs)
}

fn inf_norm(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

/// `ρ = ‖b − A x‖∞ / (n ‖A‖∞ ‖x‖∞ ε)`, infinite if `x` holds a non-finite value.
fn residual_ratio(a: &[f32], n: usize, b: &[f32], x: &[f32]) -> f64 {
    if !x.iter().all(|v| v.is_finite()) {
        return f64::INFINITY;
    }
    let xd: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    let (ax, rs) = mat_vec(a, n, &xd);
    let r: Vec<f64> = (0..n).map(|i| b[i] as f64 - ax[i]).collect();
    ratio(
        inf_norm(&r),
        n as f64 * inf_norm(&rs) * inf_norm(&xd) * f32::EPSILON as f64,
    )
}

/// Free host memory (`MemAvailable` of /proc/meminfo) in bytes; `None` where unreadable.
fn host_available() -> Option<usize> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = s.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// What one solve gave.
struct Outcome {
    /// `ρ`.
    ratio: f64,
    /// The host copy of `A`, `b` and the answer, for the checks' own checks.
    a: Vec<f32>,
    b: Vec<f32>,
    x: Vec<f32>,
}

/// getrf + getrs of an `n × n` f32 matrix on `dev` with a default handle, checked as the
/// module says. `None` (with a line saying why) when the device lacks the memory.
fn lu_solve_f32(dev: &Device, n: usize, seed: u64) -> Option<Outcome> {
    let what = format!("f32 getrf + getrs, n = {n}, {}", dev.name());
    let a_bytes = n * n * std::mem::size_of::<f32>();
    let mut h = handle(dev);
    // The workspace the two calls ask for, from a query on placeholders.
    let mut ws = 0;
    for getrs in [false, true] {
        let mut q = fixed_handle(dev, 0);
        q.start_device_memory_size_query().unwrap();
        let mut pa = DeviceBuffer::<f32>::placeholder(n * n);
        let mut pp = DeviceBuffer::<i32>::placeholder(n);
        let mut pb = DeviceBuffer::<f32>::placeholder(n);
        let mut info = [0i32];
        let st = if getrs {
            solver::getrs(&mut q, Op::N, n, 1, &pa, n, &pp, &mut pb, n)
        } else {
            solver::getrf(
                &mut q,
                n,
                n,
                &mut pa,
                n,
                Results::Device(&mut pp),
                Results::Host(&mut info),
            )
        };
        let st = st.unwrap_or_else(|e| panic!("{what}: query: {e}"));
        assert!(
            matches!(st, Status::SizeIncreased | Status::SizeUnchanged),
            "{what}: query: {st:?}"
        );
        ws = ws.max(q.stop_device_memory_size_query().unwrap());
    }
    let need = a_bytes + 3 * n * std::mem::size_of::<f32>() + ws + (512 << 20);
    let free = dev.free_memory().unwrap();
    if free < need {
        eprintln!("{what}: skipped: the device has {free} bytes free, the test needs {need} (A {a_bytes}, workspace {ws}, 512 MiB headroom)");
        return None;
    }

    let t = Instant::now();
    let a = gen_matrix(n, seed);
    let t_gen = t.elapsed();
    let t = Instant::now();
    let mut g = Gen::new(seed ^ 0x5eed);
    let x_true: Vec<f64> = (0..n).map(|_| g.uni()).collect();
    let (ax, _) = mat_vec(&a, n, &x_true);
    let b: Vec<f32> = ax.iter().map(|&v| v as f32).collect();
    let t_b = t.elapsed();

    let t = Instant::now();
    let mut da = match dev.upload(&a) {
        Ok(d) => d,
        Err(e @ Error::MemoryError { .. }) => {
            eprintln!("{what}: skipped: uploading A ({a_bytes} bytes): {e}");
            return None;
        }
        Err(e) => panic!("{what}: uploading A: {e}"),
    };
    let mut db = dev.upload(&b).unwrap();
    let mut piv = dev.upload(&vec![PIV_POISON; n]).unwrap();
    let t_up = t.elapsed();

    let t = Instant::now();
    let mut info = [INFO_POISON];
    let st = solver::getrf(
        &mut h,
        n,
        n,
        &mut da,
        n,
        Results::Device(&mut piv),
        Results::Host(&mut info),
    )
    .unwrap_or_else(|e| panic!("{what}: getrf: {e}"));
    let t_rf = t.elapsed();
    assert_eq!(st, Status::Success, "{what}: getrf status");
    assert_eq!(info[0], 0, "{what}: getrf info on a nonsingular matrix");

    let t = Instant::now();
    let st = solver::getrs(&mut h, Op::N, n, 1, &da, n, &piv, &mut db, n)
        .unwrap_or_else(|e| panic!("{what}: getrs: {e}"));
    let x = db.to_vec().unwrap();
    let t_rs = t.elapsed();
    assert_eq!(st, Status::Success, "{what}: getrs status");
    let p = piv.to_vec().unwrap();
    drop((da, db, piv, h));
    if let Some(j) = (0..n).find(|&j| !(j as i32 + 1..=n as i32).contains(&p[j])) {
        panic!("{what}: ipiv[{j}] = {} outside [{}, {n}]", p[j], j + 1);
    }

    let t = Instant::now();
    let ratio = residual_ratio(&a, n, &b, &x);
    let t_res = t.elapsed();
    eprintln!(
        "{what}: ‖b − A x‖∞ / (n ‖A‖∞ ‖x‖∞ ε) = {ratio:.3e}; \
         workspace {ws} bytes; seconds: generate {:.1}, b {:.1}, upload {:.1}, getrf {:.2}, \
         getrs + download {:.2}, residual {:.1}",
        t_gen.as_secs_f64(),
        t_b.as_secs_f64(),
        t_up.as_secs_f64(),
        t_rf.as_secs_f64(),
        t_rs.as_secs_f64(),
        t_res.as_secs_f64(),
    );
    assert!(
        ratio < RESID_MAX,
        "{what}: ‖b − A x‖∞ / (n ‖A‖∞ ‖x‖∞ ε) = {ratio:.3e} ≥ {RESID_MAX}"
    );
    assert!(
        ratio < SHARP_MAX,
        "{what}: ‖b − A x‖∞ / (n ‖A‖∞ ‖x‖∞ ε) = {ratio:.3e} ≥ {SHARP_MAX}, the sharp bound \
         (right answers gave 0.009–0.016 up to n = 8000 on the host backend)"
    );
    Some(Outcome { ratio, a, b, x })
}

/// Order 300 on both backends: the large test's code where CI runs it, and the checks'
/// own check: wrong answers fail them (one entry of the computed `x` off by 1 % fails the
/// sharp bound; a random `x` fails both).
fn f1_f10_getrf_getrs_f32_residual_order_300(dev: &Device) {
    let n = 300;
    let o = lu_solve_f32(dev, n, 301).expect("300² f32 fits");
    let mut x = o.x.clone();
    let k = (0..n)
        .max_by(|&i, &j| x[i].abs().total_cmp(&x[j].abs()))
        .unwrap();
    x[k] *= 1.01;
    let off = residual_ratio(&o.a, n, &o.b, &x);
    assert!(
        (SHARP_MAX..RESID_MAX).contains(&off),
        "x[{k}] off by 1 %: ρ = {off:.3e}, not in [{SHARP_MAX}, {RESID_MAX}) (right: {:.3e})",
        o.ratio
    );
    let mut g = Gen::new(302);
    let random: Vec<f32> = (0..n).map(|_| g.uni() as f32).collect();
    let off = residual_ratio(&o.a, n, &o.b, &random);
    assert!(
        off > RESID_MAX,
        "a random x: ρ = {off:.3e} within {RESID_MAX}"
    );
}

/// Order 70000 (4.9e9 elements, past 2³²) on the GPU only; skipped with a line saying why on
/// the host backend, under compute-sanitizer, or without the memory (about 20 GB of device
/// memory, and 20 GB of host memory for the host copy with 24 GiB to spare for the rest).
fn f1_f7_getrf_getrs_f32_order_70000_past_32_bit_offsets(dev: &Device) {
    let n = LARGE_N;
    if dev.backend() == gpublas::Backend::Host {
        eprintln!("order {n} runs on CUDA only (the host device has a 1 GiB limit)");
        return;
    }
    if under_sanitizer() {
        eprintln!("order {n}: skipped under compute-sanitizer (too slow instrumented)");
        return;
    }
    let host_need = n * n * std::mem::size_of::<f32>() + (24 << 30);
    match host_available() {
        Some(m) if m >= host_need => {}
        m => {
            eprintln!("order {n}: skipped: host memory available {m:?} bytes, needs {host_need}");
            return;
        }
    }
    let _ = lu_solve_f32(dev, n, 70_000);
}

crate::on_both_backends!(
    f1_f10_getrf_getrs_f32_residual_order_300,
    f1_f7_getrf_getrs_f32_order_70000_past_32_bit_offsets,
);
