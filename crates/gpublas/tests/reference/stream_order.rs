//! Uploads, downloads and frees are ordered on streams, never on the whole device (issue 27
//! item 5, SPEC M16): one thread's graph capture survives other threads' uploads, calls,
//! downloads and drops; a download waits for the calls that wrote the buffer; a buffer dropped
//! while a call still reads it is not reused before that call has finished.

use gpublas::{blas1, Backend, Device, Handle, Results};
use std::sync::Barrier;

/// Integer-valued data, so every sum below is exact in f64.
fn ints(n: usize, seed: usize) -> Vec<f64> {
    (0..n).map(|i| ((i * 7 + seed * 13) % 17) as f64).collect()
}

/// One thread captures a graph of Level-1 calls again and again and replays it, while three
/// others, each with its own handle, upload vectors, run calls, download the results and drop
/// their buffers. Every capture must end in a graph and every result be exact.
fn m16_capture_beside_uploads_calls_downloads_and_drops(dev: &Device) {
    const ROUNDS: usize = 40;
    const WORKERS: usize = 3;
    let n = 1 << 16;
    let start = Barrier::new(WORKERS + 1);
    std::thread::scope(|sc| {
        let capturer = sc.spawn(|| {
            let mut h = Handle::new(dev).unwrap();
            let x = dev.upload(&ints(n, 1)).unwrap();
            let want: f64 = ints(n, 1).iter().sum();
            let mut out = dev.alloc::<f64>(1).unwrap();
            // Size the workspace first: growth cannot happen under capture.
            h.start_device_memory_size_query().unwrap();
            let _ = blas1::asum(&mut h, n, &x, 1, Results::Device(&mut out)).unwrap();
            let need = h.stop_device_memory_size_query().unwrap();
            h.set_device_memory_size(need).unwrap();
            start.wait();
            for round in 0..ROUNDS {
                if dev.backend() == Backend::Host {
                    let _ = blas1::asum(&mut h, n, &x, 1, Results::Device(&mut out)).unwrap();
                } else {
                    h.stream().begin_capture().unwrap();
                    // Several calls widen the window in which the others act.
                    for _ in 0..8 {
                        let _ = blas1::asum(&mut h, n, &x, 1, Results::Device(&mut out)).unwrap();
                    }
                    let graph = h
                        .stream()
                        .end_capture()
                        .unwrap_or_else(|e| panic!("round {round}: capture broken: {e}"));
                    graph.launch().unwrap();
                    h.synchronize().unwrap();
                }
                assert_eq!(out.to_vec().unwrap()[0], want, "round {round}");
            }
        });
        let workers: Vec<_> = (0..WORKERS)
            .map(|w| {
                let start = &start;
                sc.spawn(move || {
                    let mut h = Handle::new(dev).unwrap();
                    start.wait();
                    for round in 0..ROUNDS {
                        let xs = ints(n, w + round);
                        let ys = ints(n, w + 2 * round + 5);
                        let x = dev.upload(&xs).unwrap();
                        let mut y = dev.upload(&ys).unwrap();
                        let _ = blas1::axpy(&mut h, n, 2.0.into(), &x, 1, &mut y, 1).unwrap();
                        let mut dot = [0.0];
                        let _ =
                            blas1::dot(&mut h, n, &x, 1, &y, 1, Results::Host(&mut dot)).unwrap();
                        let want: Vec<f64> = xs.iter().zip(&ys).map(|(a, b)| 2.0 * a + b).collect();
                        // No synchronisation: the download waits for this handle's stream.
                        assert_eq!(y.to_vec().unwrap(), want, "worker {w} round {round}");
                        let want_dot: f64 = xs.iter().zip(&want).map(|(a, b)| a * b).sum();
                        assert_eq!(dot[0], want_dot, "worker {w} round {round}");
                        drop(x);
                        drop(y);
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        capturer.join().unwrap();
    });
}

/// A download right after calls, with nothing synchronised, sees every call's result; an
/// overwrite waits for the calls still reading the buffer.
fn m16_download_and_overwrite_wait_for_the_calls_that_named_the_buffer(dev: &Device) {
    let n = 1 << 22;
    let mut h = Handle::new(dev).unwrap();
    let mut x = dev.upload(&vec![1.0f64; n]).unwrap();
    let mut y = dev.alloc::<f64>(n).unwrap();
    for _ in 0..20 {
        let _ = blas1::axpy(&mut h, n, 1.0.into(), &x, 1, &mut y, 1).unwrap();
    }
    // The axpys may still be reading x: the overwrite must wait for them.
    x.copy_from_host(&vec![1000.0; n]).unwrap();
    let got = y.to_vec().unwrap();
    assert!(got.iter().all(|&v| v == 20.0), "{:?}", &got[..4]);
    let _ = blas1::axpy(&mut h, n, 1.0.into(), &x, 1, &mut y, 1).unwrap();
    assert!(y.to_vec().unwrap().iter().all(|&v| v == 1020.0));
}

/// A buffer dropped while calls still read it keeps its memory until they have finished: new
/// buffers allocated at once (which may take the same addresses) do not change their results.
fn m16_drop_while_in_use_defers_the_free(dev: &Device) {
    let n = 1 << 22;
    let mut h = Handle::new(dev).unwrap();
    for round in 0..4 {
        let x = dev.upload(&vec![1.0f64; n]).unwrap();
        let mut y = dev.alloc::<f64>(n).unwrap();
        for _ in 0..20 {
            let _ = blas1::axpy(&mut h, n, 1.0.into(), &x, 1, &mut y, 1).unwrap();
        }
        drop(x);
        // Fresh buffers of the same size, filled at once with other values.
        let others: Vec<_> = (0..4)
            .map(|_| dev.upload(&vec![1.0e6f64; n]).unwrap())
            .collect();
        let got = y.to_vec().unwrap();
        let bad = got.iter().filter(|&&v| v != 20.0).count();
        assert_eq!(bad, 0, "round {round}: {bad} elements read reused memory");
        drop(others);
    }
}

crate::on_both_backends!(
    m16_capture_beside_uploads_calls_downloads_and_drops,
    m16_download_and_overwrite_wait_for_the_calls_that_named_the_buffer,
    m16_drop_while_in_use_defers_the_free,
);
