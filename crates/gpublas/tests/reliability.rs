#![allow(clippy::needless_range_loop)]
//! Reliability runs (issue 11): many threads with their own handles and two streams each
//! calling random routines of every family with every result checked; handle and lease cycles
//! that must give all memory back (M10, M15); and one graph holding calls of every family,
//! replayed 1000 times with identical results (M13, F10).

mod common;

use std::time::{Duration, Instant};

use gpublas::memory::HandleConfig;
use gpublas::{
    blas1, blas2, blas3, solver, transfer, Backend, Coef, Device, Diag, Error, Handle, Op, Results,
    Side, Status, Uplo,
};
use rand::Rng;

// ---- f64 references ------------------------------------------------------------------------

/// `C = A B` for column-major `m × k` and `k × n`.
fn ref_gemm(m: usize, n: usize, k: usize, a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for j in 0..n {
        for l in 0..k {
            let blj = b[l + j * k];
            for i in 0..m {
                c[i + j * m] += a[i + l * m] * blj;
            }
        }
    }
    c
}

/// Worst |got - want| / (scale), scale = sum of |terms| + tiny.
fn check_close(what: &str, got: &[f64], want: &[f64], scale: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for i in 0..got.len() {
        let err = (got[i] - want[i]).abs() / scale[i].max(1e-300);
        assert!(
            err <= tol,
            "{what}: element {i}: got {}, want {}, relative error {err:e} > {tol:e}",
            got[i],
            want[i]
        );
    }
}

const EPS: f64 = f64::EPSILON;

// ---- one random call of one family, checked --------------------------------------------

/// Reads `n` contiguous elements of a device buffer in the handle's stream order.
fn read(h: &mut Handle, d: &gpublas::DeviceBuffer<f64>, n: usize) -> Vec<f64> {
    let mut v = vec![f64::NAN; n];
    let _ = transfer::get_vector(h, n, d, 1, &mut v, 1).unwrap();
    v
}

fn write(h: &mut Handle, dev: &Device, v: &[f64]) -> gpublas::DeviceBuffer<f64> {
    let mut d = dev.alloc::<f64>(v.len()).unwrap();
    let _ = transfer::set_vector(h, v.len(), v, 1, &mut d, 1).unwrap();
    d
}

fn random_call(h: &mut Handle, dev: &Device, r: &mut impl Rng) -> &'static str {
    match r.gen_range(0..5) {
        0 => {
            let n = r.gen_range(1..5000);
            let x = common::randn(r, n);
            let y = common::randn(r, n);
            let (dx, dy) = (write(h, dev, &x), write(h, dev, &y));
            let mut out = [f64::NAN];
            let _ = blas1::dot(h, n, &dx, 1, &dy, 1, Results::Host(&mut out)).unwrap();
            let want: f64 = x.iter().zip(&y).map(|(a, b)| a * b).sum();
            let sc: f64 = x.iter().zip(&y).map(|(a, b)| (a * b).abs()).sum();
            check_close("dot", &out, &[want], &[sc], 4.0 * n as f64 * EPS);
            "dot"
        }
        1 => {
            let (m, n) = (r.gen_range(1..200), r.gen_range(1..200));
            let a = common::randn(r, m * n);
            let x = common::randn(r, n);
            let (da, dx) = (write(h, dev, &a), write(h, dev, &x));
            let mut dy = write(h, dev, &vec![f64::NAN; m]);
            let _ = blas2::gemv(
                h,
                Op::N,
                m,
                n,
                Coef::Host(1.0),
                &da,
                m,
                &dx,
                1,
                Coef::Host(0.0),
                &mut dy,
                1,
            )
            .unwrap();
            let want = ref_gemm(m, 1, n, &a, &x);
            let abs_a: Vec<f64> = a.iter().map(|v| v.abs()).collect();
            let abs_x: Vec<f64> = x.iter().map(|v| v.abs()).collect();
            let sc = ref_gemm(m, 1, n, &abs_a, &abs_x);
            check_close("gemv", &read(h, &dy, m), &want, &sc, 4.0 * n as f64 * EPS);
            "gemv"
        }
        2 => {
            let (m, n, k) = (r.gen_range(1..96), r.gen_range(1..96), r.gen_range(1..96));
            let a = common::randn(r, m * k);
            let b = common::randn(r, k * n);
            let (da, db) = (write(h, dev, &a), write(h, dev, &b));
            let mut dc = write(h, dev, &vec![f64::NAN; m * n]);
            let _ = blas3::gemm(
                h,
                Op::N,
                Op::N,
                m,
                n,
                k,
                Coef::Host(1.0),
                &da,
                m,
                &db,
                k,
                Coef::Host(0.0),
                &mut dc,
                m,
            )
            .unwrap();
            let want = ref_gemm(m, n, k, &a, &b);
            let abs_a: Vec<f64> = a.iter().map(|v| v.abs()).collect();
            let abs_b: Vec<f64> = b.iter().map(|v| v.abs()).collect();
            let sc = ref_gemm(m, n, k, &abs_a, &abs_b);
            check_close(
                "gemm",
                &read(h, &dc, m * n),
                &want,
                &sc,
                4.0 * k as f64 * EPS,
            );
            "gemm"
        }
        3 => {
            // A diagonally dominant system: getrf + getrs, residual checked.
            let n = r.gen_range(1..80);
            let mut a = common::randn(r, n * n);
            for i in 0..n {
                a[i + i * n] += 2.0 * n as f64;
            }
            let xt = common::randn(r, n);
            let b = ref_gemm(n, 1, n, &a, &xt);
            let (mut da, mut db) = (write(h, dev, &a), write(h, dev, &b));
            let mut ipiv = dev.alloc::<i32>(n).unwrap();
            let mut info = [-1i32];
            let _ = solver::getrf(
                h,
                n,
                n,
                &mut da,
                n,
                Results::Device(&mut ipiv),
                Results::Host(&mut info),
            )
            .unwrap();
            assert_eq!(info[0], 0, "getrf info");
            let _ = solver::getrs(h, Op::N, n, 1, &da, n, &ipiv, &mut db, n).unwrap();
            let x = read(h, &db, n);
            check_close("getrs", &x, &xt, &vec![1.0; n], 1e3 * n as f64 * EPS);
            "getrf+getrs"
        }
        _ => {
            // A strided round trip through the transfers, bit for bit.
            let n = r.gen_range(1..20_000);
            let (hi, di) = (r.gen_range(1..4isize), r.gen_range(1..4isize));
            let x: Vec<f64> = common::randn(r, (n - 1) * hi as usize + 1);
            let mut d = dev.alloc::<f64>((n - 1) * di as usize + 1).unwrap();
            let _ = transfer::set_vector(h, n, &x, hi, &mut d, di).unwrap();
            let mut back = vec![f64::NAN; n];
            let _ = transfer::get_vector(h, n, &d, di, &mut back, 1).unwrap();
            for i in 0..n {
                assert_eq!(
                    back[i].to_bits(),
                    x[i * hi as usize].to_bits(),
                    "transfer {i}"
                );
            }
            "transfer"
        }
    }
}

/// Threads with their own handles, each alternating between two streams of its own, calling
/// random routines of every family for a while; every result is checked.
fn stress_threads_handles_two_streams(dev: &Device) {
    let (threads, secs) = match dev.backend() {
        Backend::Cuda => (16, 10),
        Backend::Host => (4, 1),
    };
    let counts: Vec<usize> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let dev = dev.clone();
                s.spawn(move || {
                    let mut h = Handle::new(&dev).unwrap();
                    let streams = [dev.new_stream().unwrap(), dev.new_stream().unwrap()];
                    let mut r = common::rng(1000 + t as u64);
                    let start = Instant::now();
                    let mut calls = 0usize;
                    while start.elapsed() < Duration::from_secs(secs) {
                        h.set_stream(&streams[calls % 2]).unwrap();
                        random_call(&mut h, &dev, &mut r);
                        calls += 1;
                    }
                    h.synchronize().unwrap();
                    calls
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let total: usize = counts.iter().sum();
    eprintln!("stress: {threads} threads, {secs} s, {total} checked calls ({counts:?})");
    assert!(counts.iter().all(|&c| c > 0));
}

/// Memory in use on the device, as the test can see it.
fn in_use(dev: &Device) -> usize {
    match dev.backend() {
        Backend::Host => dev.host_bytes_in_use(),
        Backend::Cuda => dev.total_memory().unwrap_or(0) - dev.free_memory().unwrap_or(0),
    }
}

/// 10^5 leases over 10^3 handles (managed, growing; every tenth with the default workspace):
/// afterwards the device's memory is back where it started (M10, M15).
fn m15_handle_and_lease_cycles_return_memory(dev: &Device) {
    // Warm up what the first handle creates once per process (context, pools).
    drop(Handle::new(dev).unwrap());
    let before = in_use(dev);
    let mut r = common::rng(7);
    for i in 0..1000 {
        let mut h = if i % 10 == 0 {
            Handle::new(dev).unwrap()
        } else {
            Handle::with_config(
                dev,
                &HandleConfig {
                    device_memory_size: Some(0),
                    ..Default::default()
                },
            )
            .unwrap()
        };
        for _ in 0..100 {
            let sizes = [r.gen_range(0..1 << 20), r.gen_range(0..4096), 0];
            let lease = h.device_malloc(&sizes).unwrap();
            assert_eq!(lease.len(), 3);
        }
    }
    let after = in_use(dev);
    // The driver may round its own bookkeeping to 2 MiB pages; the host count is exact.
    let slack = if dev.backend() == Backend::Host {
        0
    } else {
        2 << 20
    };
    assert!(
        after <= before + slack,
        "memory in use went from {before} to {after} bytes over 1000 handles and 100000 leases"
    );
}

/// Calls of every family on one handle with a preallocated workspace and device results,
/// captured once and replayed 1000 times: identical results every time. The sequence resets
/// its own inputs first (an asynchronous transfer from pinned memory), so every replay
/// recomputes the same thing. The host backend refuses capture.
fn m13_capture_every_family_replayed_1000_times(dev: &Device) {
    let mut h = Handle::with_config(
        dev,
        &HandleConfig {
            device_memory_size: Some(0),
            ..Default::default()
        },
    )
    .unwrap();
    if dev.backend() == Backend::Host {
        assert!(matches!(
            h.stream().begin_capture(),
            Err(Error::Unsupported(_))
        ));
        return;
    }
    let n = 96usize;
    let mut r = common::rng(11);
    let mut a0 = common::randn(&mut r, n * n);
    for i in 0..n {
        a0[i + i * n] += 2.0 * n as f64;
    }
    let b0 = common::randn(&mut r, n);
    let mut pa = dev.alloc_pinned::<f64>(n * n).unwrap();
    pa.copy_from_slice(&a0);
    let mut pb = dev.alloc_pinned::<f64>(n).unwrap();
    pb.copy_from_slice(&b0);
    let mut b = Bufs {
        n,
        pa,
        pb,
        a: dev.alloc(n * n).unwrap(),
        lu: dev.alloc(n * n).unwrap(),
        x: dev.alloc(2 * n).unwrap(),
        y: dev.alloc(n).unwrap(),
        c: dev.alloc(n * n).unwrap(),
        ipiv: dev.alloc(n).unwrap(),
        info: dev.alloc(1).unwrap(),
        dot: dev.alloc(1).unwrap(),
        one: dev.upload(&[1.0f64]).unwrap(),
        zero: dev.upload(&[0.0f64]).unwrap(),
    };
    // Size the workspace for the whole sequence, then run it once uncaptured as the reference.
    h.start_device_memory_size_query().unwrap();
    let _ = sequence(&mut h, &mut b);
    let need = h.stop_device_memory_size_query().unwrap();
    let _ = h.set_device_memory_size(need).unwrap();
    let st = sequence(&mut h, &mut b);
    assert!(st.iter().all(|s| *s == Status::Success), "{st:?}");
    h.synchronize().unwrap();
    let snapshot =
        |h: &mut Handle, y: &gpublas::DeviceBuffer<f64>, d: &gpublas::DeviceBuffer<f64>| {
            let mut v = vec![0.0f64; n + 1];
            let _ = transfer::get_vector(h, n, y, 1, &mut v[..n], 1).unwrap();
            let _ = transfer::get_vector(h, 1, d, 1, &mut v[n..], 1).unwrap();
            v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>()
        };
    let want = snapshot(&mut h, &b.y, &b.dot);
    assert!(want.iter().all(|b| f64::from_bits(*b).is_finite()));
    h.stream().begin_capture().unwrap();
    let st = sequence(&mut h, &mut b);
    let graph = h.stream().end_capture().unwrap();
    assert!(st.iter().all(|s| *s == Status::Success), "{st:?}");
    // Poison the outputs; every replay must rebuild them.
    let _ = blas1::scal(&mut h, n, Coef::Host(f64::NAN), &mut b.y, 1).unwrap();
    for rep in 0..1000 {
        graph.launch().unwrap();
        if rep % 100 == 99 || rep == 0 {
            h.synchronize().unwrap();
            assert!(
                snapshot(&mut h, &b.y, &b.dot) == want,
                "replay {rep} differs"
            );
        }
    }
    h.synchronize().unwrap();
    assert!(
        snapshot(&mut h, &b.y, &b.dot) == want,
        "last replay differs"
    );
}

/// The buffers of the captured sequence.
struct Bufs {
    n: usize,
    pa: gpublas::PinnedBuffer<f64>,
    pb: gpublas::PinnedBuffer<f64>,
    a: gpublas::DeviceBuffer<f64>,
    lu: gpublas::DeviceBuffer<f64>,
    x: gpublas::DeviceBuffer<f64>,
    y: gpublas::DeviceBuffer<f64>,
    c: gpublas::DeviceBuffer<f64>,
    ipiv: gpublas::DeviceBuffer<i32>,
    info: gpublas::DeviceBuffer<i32>,
    dot: gpublas::DeviceBuffer<f64>,
    one: gpublas::DeviceBuffer<f64>,
    zero: gpublas::DeviceBuffer<f64>,
}

/// One call of every family, results in device memory, scalars in device memory.
fn sequence(h: &mut Handle, b: &mut Bufs) -> Vec<Status> {
    let n = b.n;
    let (o, z) = (Coef::Device(&b.one), Coef::Device(&b.zero));
    vec![
        // transfers: A, and b into every other element of x (the scatter kernel)
        transfer::set_matrix_async(h, n, n, &b.pa, n, &mut b.a, n).unwrap(),
        transfer::set_vector_async(h, n, &b.pb, 1, &mut b.x, 2).unwrap(),
        // Level 1: y = A's first column (overwritten below)
        blas1::copy(h, n, &b.a, 1, &mut b.y, 1).unwrap(),
        // Level 2: y = A x
        blas2::gemv(h, Op::N, n, n, o, &b.a, n, &b.x, 2, z, &mut b.y, 1).unwrap(),
        // Level 3: C = A Aᵀ, then a triangular solve with its lower triangle
        blas3::gemm(
            h,
            Op::N,
            Op::T,
            n,
            n,
            n,
            o,
            &b.a,
            n,
            &b.a,
            n,
            z,
            &mut b.c,
            n,
        )
        .unwrap(),
        blas3::trsm(
            h,
            Side::Left,
            Uplo::Lower,
            Op::N,
            Diag::NonUnit,
            n,
            1,
            o,
            &b.c,
            n,
            &mut b.y,
            n,
        )
        .unwrap(),
        // solver: LU of A, solve for y
        blas1::copy(h, n * n, &b.a, 1, &mut b.lu, 1).unwrap(),
        solver::getrf(
            h,
            n,
            n,
            &mut b.lu,
            n,
            Results::Device(&mut b.ipiv),
            Results::Device(&mut b.info),
        )
        .unwrap(),
        solver::getrs(h, Op::N, n, 1, &b.lu, n, &b.ipiv, &mut b.y, n).unwrap(),
        // Level 1 reduction into device memory
        blas1::dot(h, n, &b.x, 2, &b.y, 1, Results::Device(&mut b.dot)).unwrap(),
    ]
}

on_both_backends!(
    stress_threads_handles_two_streams,
    m15_handle_and_lease_cycles_return_memory,
    m13_capture_every_family_replayed_1000_times,
);
