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

/// A buffer used before a capture began and dropped during it is not freed under the work
/// still queued before the capture; a download during the capture is an error, not stale data.
fn m16_capture_drop_keeps_memory_of_work_queued_before(dev: &Device) {
    if dev.backend() == Backend::Host {
        return; // no capture on the host backend
    }
    let n = 1 << 22;
    let mut h = Handle::new(dev).unwrap();
    let x = dev.upload(&vec![1.0f64; n]).unwrap();
    let mut y = dev.alloc::<f64>(n).unwrap();
    for _ in 0..20 {
        let _ = blas1::axpy(&mut h, n, 1.0.into(), &x, 1, &mut y, 1).unwrap();
    }
    h.stream().begin_capture().unwrap();
    let during = y.to_vec();
    drop(x);
    // Another thread allocates (a capturing thread may not) what may take x's addresses.
    let others: Vec<_> = std::thread::scope(|sc| {
        sc.spawn(|| {
            (0..4)
                .map(|_| dev.upload(&vec![1.0e6f64; n]).unwrap())
                .collect()
        })
        .join()
        .unwrap()
    });
    let graph = h.stream().end_capture();
    assert!(
        matches!(&during, Err(gpublas::Error::Unsupported(m)) if m.contains("captured")),
        "{during:?}"
    );
    drop(graph);
    let got = y.to_vec().unwrap();
    let bad = got.iter().filter(|&&v| v != 20.0).count();
    assert_eq!(
        bad, 0,
        "{bad} elements read memory freed during the capture"
    );
    drop(others);
}

/// A buffer made from a raw address inside a gpublas allocation (as the C interface makes
/// them) records its calls' streams with the owner: the owner's download waits for them.
fn m16_raw_view_records_streams_with_its_owner(dev: &Device) {
    let n = 1 << 22;
    let mut h = Handle::new(dev).unwrap();
    let x = dev.upload(&vec![1.0f64; n]).unwrap();
    let owner = dev.alloc::<f64>(2 * n).unwrap();
    let addr = owner.device_ptr().unwrap() + (n * 8) as u64;
    // SAFETY: the second half of `owner`, which outlives the view.
    let mut view = unsafe { gpublas::DeviceBuffer::<f64>::from_raw(dev, addr, n) }.unwrap();
    for _ in 0..20 {
        let _ = blas1::axpy(&mut h, n, 1.0.into(), &x, 1, &mut view, 1).unwrap();
    }
    drop(view);
    // No synchronisation: the owner knows the handle's stream through the view.
    let got = owner.to_vec().unwrap();
    assert!(got[..n].iter().all(|&v| v == 0.0));
    let bad = got[n..].iter().filter(|&&v| v != 20.0).count();
    assert_eq!(
        bad, 0,
        "{bad} elements downloaded before the calls finished"
    );
}

crate::on_both_backends!(
    m16_capture_beside_uploads_calls_downloads_and_drops,
    m16_download_and_overwrite_wait_for_the_calls_that_named_the_buffer,
    m16_drop_while_in_use_defers_the_free,
    m16_capture_drop_keeps_memory_of_work_queued_before,
    m16_raw_view_records_streams_with_its_owner,
);
