//! The workspace memory model, rule by rule (SPEC M1–M16), on both backends.

mod common;

use gpublas::memory::{parse_size, HandleConfig, CHUNK, DEFAULT_WORKSPACE_BYTES};
use gpublas::{blas1, Backend, Device, Error, Handle, Results, Status, WorkspaceMode};

fn cfg(size: Option<usize>, soa: bool) -> HandleConfig {
    HandleConfig {
        device_memory_size: size,
        stream_order_alloc: soa,
    }
}

fn managed(dev: &Device) -> Handle {
    Handle::with_config(dev, &cfg(None, false)).unwrap()
}

/// Bytes the device has in use, by the measure that backend offers.
fn in_use(dev: &Device) -> usize {
    match dev.backend() {
        Backend::Host => dev.host_bytes_in_use(),
        Backend::Cuda => dev.total_memory().unwrap() - dev.free_memory().unwrap(),
    }
}

/// A request no device here can satisfy: more than the card (or the host limit) holds.
fn too_big(dev: &Device) -> usize {
    dev.total_memory().unwrap() + (1 << 30)
}

/// A small real call proving the handle still works.
fn still_works(h: &mut Handle) {
    let dev = h.device().clone();
    let x = dev.upload(&[3.0f64, -4.0]).unwrap();
    let mut r = [f64::NAN];
    let st = blas1::nrm2(h, 2, &x, 1, Results::Host(&mut r)).unwrap();
    assert!(matches!(st, Status::Success | Status::PerfDegraded));
    assert_eq!(r[0], 5.0);
}

fn m01_modes_and_predicates(dev: &Device) {
    let mut h = managed(dev);
    assert_eq!(h.workspace_mode(), WorkspaceMode::Managed);
    assert!(h.is_managing_device_memory() && !h.is_user_managing_device_memory());
    let _ = h.set_device_memory_size(1000).unwrap();
    assert_eq!(h.workspace_mode(), WorkspaceMode::UserManaged);
    assert!(!h.is_managing_device_memory() && h.is_user_managing_device_memory());
    let buf = dev.alloc::<u8>(4096).unwrap();
    assert!(h.set_workspace(Some(buf)).unwrap().is_none());
    assert_eq!(h.workspace_mode(), WorkspaceMode::UserOwned);
    assert!(!h.is_managing_device_memory() && !h.is_user_managing_device_memory());
}

fn m02_environment_settings_at_creation(dev: &Device) {
    let h = managed(dev);
    assert_eq!(h.get_device_memory_size(), DEFAULT_WORKSPACE_BYTES);
    let h = Handle::with_config(dev, &cfg(Some(0), false)).unwrap();
    assert_eq!(
        (h.workspace_mode(), h.get_device_memory_size()),
        (WorkspaceMode::Managed, 0)
    );
    let h = Handle::with_config(dev, &cfg(Some(1000), false)).unwrap();
    assert_eq!(h.workspace_mode(), WorkspaceMode::UserManaged);
    assert_eq!(h.get_device_memory_size(), 1024);
    // A size the device cannot hold fails creation with MemoryError.
    let before = in_use(dev);
    let e = Handle::with_config(dev, &cfg(Some(too_big(dev)), false))
        .err()
        .unwrap();
    assert!(
        matches!(e, Error::MemoryError { needed, .. } if needed >= too_big(dev)),
        "{e}"
    );
    drop(h);
    assert!(in_use(dev) <= before + (8 << 20));
}

#[test]
fn m02_size_forms_accepted() {
    assert_eq!(parse_size("123").unwrap(), 123);
    assert_eq!(parse_size("  0x40 ").unwrap(), 64);
    assert_eq!(parse_size("4K").unwrap(), 4096);
    assert_eq!(parse_size("4KiB").unwrap(), 4096);
    assert_eq!(parse_size("3M").unwrap(), 3 << 20);
    assert_eq!(parse_size("3 MiB").unwrap(), 3 << 20);
    assert_eq!(parse_size("2G").unwrap(), 2 << 30);
    assert_eq!(parse_size("1GiB").unwrap(), 1 << 30);
    assert_eq!(parse_size("0").unwrap(), 0);
}

#[test]
fn m02_invalid_sizes_name_the_variable_and_text() {
    for bad in [
        "32X",
        "-5",
        "99999999999999999999",
        "",
        "0x",
        "1.5M",
        "M",
        "16EiB",
        "0x1G0",
    ] {
        let lookup = |k: &str| (k == "GPUBLAS_DEVICE_MEMORY_SIZE").then(|| bad.to_string());
        let e = HandleConfig::from_lookup(lookup).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, Error::InvalidValue(_)), "{bad}: {msg}");
        assert!(
            msg.contains("GPUBLAS_DEVICE_MEMORY_SIZE") && msg.contains(&format!("'{bad}'")),
            "{msg}"
        );
    }
    let big = HandleConfig::from_lookup(|k| {
        (k == "GPUBLAS_DEVICE_MEMORY_SIZE").then(|| "17179869184G".into())
    });
    assert!(big.is_err());
    let soa =
        HandleConfig::from_lookup(|k| (k == "GPUBLAS_STREAM_ORDER_ALLOC").then(|| "yes".into()));
    assert!(soa
        .unwrap_err()
        .to_string()
        .contains("GPUBLAS_STREAM_ORDER_ALLOC"));
    let ok = HandleConfig::from_lookup(|k| match k {
        "GPUBLAS_DEVICE_MEMORY_SIZE" => Some("8MiB".into()),
        "GPUBLAS_STREAM_ORDER_ALLOC" => Some("1".into()),
        _ => None,
    })
    .unwrap();
    assert_eq!(ok, cfg(Some(8 << 20), true));
}

#[test]
fn m02_handle_new_reads_the_environment() {
    // Invalid values are rejected by Handle::new itself, not only by the parser. The variable is
    // set for this process only while this test runs; no other test reads the environment.
    let prev = std::env::var("GPUBLAS_DEVICE_MEMORY_SIZE").ok();
    std::env::set_var("GPUBLAS_DEVICE_MEMORY_SIZE", "32X");
    let r = Handle::new(&Device::host());
    match prev {
        Some(v) => std::env::set_var("GPUBLAS_DEVICE_MEMORY_SIZE", v),
        None => std::env::remove_var("GPUBLAS_DEVICE_MEMORY_SIZE"),
    }
    let e = r.err().expect("32X must fail handle creation");
    assert!(e.to_string().contains("'32X'"), "{e}");
}

fn m03_managed_grows_to_exact_need_and_survives_failure(dev: &Device) {
    let mut h = Handle::with_config(dev, &cfg(Some(0), false)).unwrap();
    {
        let l = h.device_malloc(&[1000, 1]).unwrap();
        assert_eq!(l.total_bytes(), 1024 + 64);
    }
    assert_eq!(h.get_device_memory_size(), 1088);
    assert_eq!(h.workspace_stats().growths, 1);
    drop(h.device_malloc(&[500]).unwrap()); // fits: no growth
    assert_eq!(h.workspace_stats().growths, 1);
    let before = in_use(dev);
    let huge = too_big(dev);
    let e = h.device_malloc(&[huge]).err().unwrap();
    match &e {
        Error::MemoryError { needed, .. } => {
            assert_eq!(*needed, gpublas::memory::round_up(huge).unwrap())
        }
        other => panic!("expected MemoryError, got {other}"),
    }
    assert_eq!(h.workspace_mode(), WorkspaceMode::Managed);
    assert_eq!(h.get_device_memory_size(), 0);
    assert_eq!(h.workspace_stats().memory_errors, 1);
    assert!(
        in_use(dev) <= before,
        "failed growth leaked: {} > {before}",
        in_use(dev)
    );
    still_works(&mut h);
}

fn m04_set_device_memory_size(dev: &Device) {
    let mut h = managed(dev);
    assert!(h.set_device_memory_size(100).unwrap().is_none());
    assert_eq!(h.get_device_memory_size(), 128);
    assert_eq!(h.workspace_mode(), WorkspaceMode::UserManaged);
    let _ = h.set_device_memory_size(0).unwrap();
    assert_eq!(
        (h.workspace_mode(), h.get_device_memory_size()),
        (WorkspaceMode::Managed, 0)
    );
    // A user-owned buffer is handed back.
    let buf = dev.alloc::<u8>(640).unwrap();
    let _ = h.set_workspace(Some(buf)).unwrap();
    let back = h
        .set_device_memory_size(64)
        .unwrap()
        .expect("user buffer handed back");
    assert_eq!(back.len(), 640);
    // Failure: MemoryError naming the size, then Managed with capacity 0, still usable.
    let e = h.set_device_memory_size(too_big(dev)).unwrap_err();
    assert!(matches!(e, Error::MemoryError { .. }), "{e}");
    assert!(
        e.to_string()
            .contains(&gpublas::memory::round_up(too_big(dev)).unwrap().to_string()),
        "{e}"
    );
    assert_eq!(
        (h.workspace_mode(), h.get_device_memory_size()),
        (WorkspaceMode::Managed, 0)
    );
    still_works(&mut h);
}

fn m05_user_buffers_in_and_out(dev: &Device) {
    let mut h = managed(dev);
    let buf = dev.alloc::<u8>(1000).unwrap(); // not a multiple of a chunk: used as is
    let ptr = buf.device_ptr().unwrap();
    assert!(h.set_workspace(Some(buf)).unwrap().is_none());
    assert_eq!(h.get_device_memory_size(), 1000);
    {
        let l = h.device_malloc(&[900]).unwrap();
        assert_eq!(l.buffer(0).unwrap().device_ptr(), ptr);
    }
    let back = h.set_workspace(None).unwrap().expect("buffer handed back");
    assert_eq!((back.len(), back.device_ptr()), (1000, Some(ptr)));
    assert_eq!(
        (h.workspace_mode(), h.get_device_memory_size()),
        (WorkspaceMode::Managed, 0)
    );
    // Raw form: misaligned pointers are InvalidPointer naming the pointer; state unchanged.
    let raw = dev.alloc::<u8>(4096).unwrap();
    let p = raw.device_ptr().unwrap();
    let e = unsafe { h.set_workspace_raw(p + 8, 1024) }.unwrap_err();
    assert!(
        matches!(e, Error::InvalidPointer(_)) && e.to_string().contains(&format!("{:#x}", p + 8)),
        "{e}"
    );
    assert_eq!(h.workspace_mode(), WorkspaceMode::Managed);
    unsafe { h.set_workspace_raw(p + 64, 2048) }.unwrap();
    assert_eq!(
        (h.workspace_mode(), h.get_device_memory_size()),
        (WorkspaceMode::UserOwned, 2048)
    );
    still_works(&mut h);
    // A placeholder is not memory.
    let e = h
        .set_workspace(Some(gpublas::DeviceBuffer::placeholder(64)))
        .unwrap_err();
    assert!(matches!(e, Error::InvalidPointer(_)), "{e}");
    drop(h);
    assert_eq!(raw.len(), 4096); // raw memory outlives the handle untouched
}

fn m06_fixed_workspaces_never_grow(dev: &Device) {
    let mut h = Handle::with_config(dev, &cfg(Some(256), false)).unwrap();
    let e = h.device_malloc(&[300]).err().unwrap();
    match &e {
        Error::MemoryError {
            needed, available, ..
        } => assert_eq!((*needed, *available), (320, 256)),
        other => panic!("{other}"),
    }
    assert!(e.to_string().contains("UserManaged"), "{e}");
    assert_eq!(h.get_device_memory_size(), 256);
    let _ = h
        .set_workspace(Some(dev.alloc::<u8>(128).unwrap()))
        .unwrap();
    assert!(matches!(
        h.device_malloc(&[129]).err().unwrap(),
        Error::MemoryError {
            needed: 192,
            available: 128,
            ..
        }
    ));
    assert_eq!(h.workspace_stats().growths, 0);
}

fn m07_query_start_stop_mismatch(dev: &Device) {
    let mut h = managed(dev);
    assert!(matches!(
        h.stop_device_memory_size_query(),
        Err(Error::QueryMismatch(_))
    ));
    assert!(!h.is_device_memory_size_query());
    h.start_device_memory_size_query().unwrap();
    assert!(h.is_device_memory_size_query());
    assert_eq!(
        h.set_optimal_device_memory_size(&[100, 1]).unwrap(),
        Status::SizeIncreased
    );
    let e = h.start_device_memory_size_query().unwrap_err();
    assert!(
        matches!(e, Error::QueryMismatch(_)) && e.to_string().contains("192"),
        "{e}"
    );
    assert!(h.is_device_memory_size_query());
    assert_eq!(
        h.set_optimal_device_memory_size(&[64]).unwrap(),
        Status::SizeUnchanged
    );
    assert_eq!(h.stop_device_memory_size_query().unwrap(), 192);
    assert!(matches!(
        h.set_optimal_device_memory_size(&[1]),
        Err(Error::QueryMismatch(_))
    ));
    still_works(&mut h);
}

fn m08_query_launches_nothing_and_touches_nothing(dev: &Device) {
    let mut h = Handle::with_config(dev, &cfg(Some(0), false)).unwrap();
    h.start_device_memory_size_query().unwrap();
    let x = gpublas::DeviceBuffer::<f64>::placeholder(1 << 22);
    let mut out = [7.0f64];
    let st = blas1::nrm2(&mut h, 1 << 22, &x, 1, Results::Host(&mut out)).unwrap();
    assert_eq!(st, Status::SizeIncreased);
    assert_eq!(out[0], 7.0);
    let st = blas1::asum(&mut h, 10, &x, 1, Results::Host(&mut out)).unwrap();
    assert_eq!(st, Status::SizeUnchanged);
    assert!(matches!(
        h.device_malloc(&[64]),
        Err(Error::QueryMismatch(_))
    ));
    let need = h.stop_device_memory_size_query().unwrap();
    assert!(need > 0 && need % CHUNK == 0);
    let s = h.workspace_stats();
    assert_eq!((s.leases, s.growths, s.capacity, s.queries), (0, 0, 0, 1));
}

fn m10_lease_layout_alignment_and_nesting(dev: &Device) {
    let mut h = Handle::with_config(dev, &cfg(Some(4096), false)).unwrap();
    let base = {
        assert_eq!(h.device_malloc(&[]).unwrap().total_bytes(), 0);
        let mut l = h.device_malloc(&[1, 0, 65, 64]).unwrap();
        let offs: Vec<u64> = (0..4).map(|i| l.buffer(i).unwrap().device_ptr()).collect();
        let base = offs[0];
        assert_eq!(
            offs.iter().map(|o| o - base).collect::<Vec<_>>(),
            vec![0, 64, 64, 192]
        );
        assert!(l.buffer(1).unwrap().is_empty());
        assert_eq!(l.total_bytes(), 256);
        {
            let mut inner = l.device_malloc(&[100]).unwrap();
            assert_eq!(inner.buffer(0).unwrap().device_ptr(), base + 256);
            let innermost = inner.device_malloc(&[64]).unwrap();
            assert_eq!(innermost.buffer(0).unwrap().device_ptr(), base + 384);
        }
        let e = l.device_malloc(&[4096]).err().unwrap();
        assert!(
            matches!(
                e,
                Error::MemoryError {
                    needed: 4096,
                    available: 3840,
                    ..
                }
            ),
            "{e}"
        );
        base
    };
    let l = h.device_malloc(&[8]).unwrap();
    assert_eq!(l.buffer(0).unwrap().device_ptr(), base);
    drop(l);
    assert_eq!(h.workspace_stats().peak_leased, 256 + 128 + 64);
    // A zero-total lease touches no memory even with no workspace at all.
    let mut empty = Handle::with_config(dev, &cfg(Some(0), false)).unwrap();
    assert_eq!(empty.device_malloc(&[0, 0]).unwrap().len(), 2);
    assert_eq!(empty.get_device_memory_size(), 0);
}

fn m11_stream_ordered_leases(dev: &Device) {
    let mut h = managed(dev);
    if !dev.supports_stream_order_alloc() {
        let e = h.set_stream_order_alloc(true).unwrap_err();
        assert!(matches!(e, Error::Unsupported(_)), "{e}");
        return;
    }
    h.set_stream_order_alloc(true).unwrap();
    assert!(h.stream_order_alloc());
    assert_eq!(h.get_device_memory_size(), 0);
    h.reset_workspace_stats();
    for _ in 0..10 {
        let mut l = h.device_malloc(&[1 << 20, 64]).unwrap();
        let _inner = l.device_malloc(&[4096]).unwrap(); // no tail: its own pool allocation
    }
    let x = dev.upload(&vec![1.0f32; 1 << 20]).unwrap();
    let mut r = [0.0f32];
    assert_eq!(
        blas1::asum(&mut h, 1 << 20, &x, 1, Results::Host(&mut r)).unwrap(),
        Status::Success
    );
    assert_eq!(r[0], (1 << 20) as f32);
    let s = h.workspace_stats();
    assert_eq!(s.growths, 0);
    assert_eq!(s.stream_ordered_allocs, 21);
    // Fixed workspaces keep using their buffer.
    let _ = h.set_device_memory_size(1 << 16).unwrap();
    h.reset_workspace_stats();
    drop(h.device_malloc(&[100]).unwrap());
    assert_eq!(h.workspace_stats().stream_ordered_allocs, 0);
    // Enabled through the configuration (GPUBLAS_STREAM_ORDER_ALLOC): nothing allocated up front.
    let h2 = Handle::with_config(dev, &cfg(None, true)).unwrap();
    assert!(h2.stream_order_alloc());
    assert_eq!(h2.get_device_memory_size(), 0);
}

fn m12_set_stream_orders_work_without_blocking(dev: &Device) {
    let mut h = managed(dev);
    let n = 1 << 22;
    let x = dev.upload(&vec![0.5f32; n]).unwrap();
    let mut out = dev.alloc::<f32>(2).unwrap();
    // Work on the first stream fills the workspace; the second call reuses it on another stream.
    let _ = blas1::asum(&mut h, n, &x, 1, Results::Device(&mut out)).unwrap();
    let s2 = dev.new_stream().unwrap();
    h.set_stream(&s2).unwrap();
    assert_eq!(*h.stream(), s2);
    let mut r = [0.0f32];
    let _ = blas1::nrm2(&mut h, n, &x, 1, Results::Host(&mut r)).unwrap();
    assert!((r[0] as f64 - (n as f64 * 0.25).sqrt()).abs() < 1e-3);
    h.synchronize().unwrap();
    assert_eq!(out.to_vec().unwrap()[0], n as f32 * 0.5);
    // A stream of another device is refused, naming both.
    let other = Device::host().new_stream().unwrap();
    let e = h.set_stream(&other).unwrap_err();
    assert!(matches!(e, Error::InvalidValue(_)), "{e}");
    still_works(&mut h);
}

fn m13_growth_during_capture_is_refused(dev: &Device) {
    let mut h = Handle::with_config(dev, &cfg(Some(0), false)).unwrap();
    if dev.backend() == Backend::Host {
        assert!(matches!(
            h.stream().begin_capture(),
            Err(Error::Unsupported(_))
        ));
        return;
    }
    let n = 1 << 22;
    let x = dev.upload(&vec![1.0f64; n]).unwrap();
    let mut out = dev.alloc::<f64>(1).unwrap();
    h.stream().begin_capture().unwrap();
    let e = blas1::asum(&mut h, n, &x, 1, Results::Device(&mut out)).unwrap_err();
    let graph_end = h.stream().end_capture();
    let msg = e.to_string();
    assert!(
        matches!(e, Error::MemoryError { .. })
            && msg.contains("captured")
            && msg.contains("set_device_memory_size"),
        "{msg}"
    );
    drop(graph_end);
    // Preallocated by a query, the same call captures and replays.
    h.start_device_memory_size_query().unwrap();
    let _ = blas1::asum(&mut h, n, &x, 1, Results::Device(&mut out)).unwrap();
    let need = h.stop_device_memory_size_query().unwrap();
    let _ = h.set_device_memory_size(need).unwrap();
    h.stream().begin_capture().unwrap();
    assert_eq!(
        blas1::asum(&mut h, n, &x, 1, Results::Device(&mut out)).unwrap(),
        Status::Success
    );
    let graph = h.stream().end_capture().unwrap();
    graph.launch().unwrap();
    h.synchronize().unwrap();
    assert_eq!(out.to_vec().unwrap()[0], n as f64);
    // A list batch under capture passes its addresses as kernel parameters.
    let xs: Vec<_> = (0..3)
        .map(|i| dev.upload(&vec![i as f64 + 1.0; 1000]).unwrap())
        .collect();
    let xl: Vec<&gpublas::DeviceBuffer<f64>> = xs.iter().collect();
    let mut outs = dev.alloc::<f64>(3).unwrap();
    h.stream().begin_capture().unwrap();
    let st = blas1::dot_batched(&mut h, 1000, &xl, 1, &xl, 1, Results::Device(&mut outs));
    let graph = h.stream().end_capture().unwrap();
    assert_eq!(st.unwrap(), Status::Success);
    graph.launch().unwrap();
    h.synchronize().unwrap();
    assert_eq!(outs.to_vec().unwrap(), vec![1000.0, 4000.0, 9000.0]);
    // Stream-ordered leases become graph allocation nodes.
    let mut h2 = Handle::with_config(dev, &cfg(Some(0), true)).unwrap();
    let mut out2 = dev.alloc::<f64>(1).unwrap();
    h2.stream().begin_capture().unwrap();
    let _ = blas1::nrm2(&mut h2, n, &x, 1, Results::Device(&mut out2)).unwrap();
    let g2 = h2.stream().end_capture().unwrap();
    g2.launch().unwrap();
    h2.synchronize().unwrap();
    assert_eq!(out2.to_vec().unwrap()[0], (n as f64).sqrt());
}

fn m14_statistics_and_reset(dev: &Device) {
    let mut h = Handle::with_config(dev, &cfg(Some(0), false)).unwrap();
    drop(h.device_malloc(&[100]).unwrap());
    drop(h.device_malloc(&[1000]).unwrap());
    let _ = h.device_malloc(&[too_big(dev)]).err();
    h.start_device_memory_size_query().unwrap();
    let _ = h.stop_device_memory_size_query().unwrap();
    let _ = h.set_device_memory_size(64).unwrap();
    let x = dev.upload(&vec![1.0f64; 1 << 20]).unwrap();
    let mut r = [0.0];
    assert_eq!(
        blas1::asum(&mut h, 1 << 20, &x, 1, Results::Host(&mut r)).unwrap(),
        Status::PerfDegraded
    );
    let s = h.workspace_stats();
    assert_eq!(s.mode, WorkspaceMode::UserManaged);
    assert_eq!(s.capacity, 64);
    assert_eq!(
        (
            s.leases,
            s.growths,
            s.memory_errors,
            s.queries,
            s.degraded_calls
        ),
        (3, 2, 1, 1, 1)
    );
    assert_eq!(s.peak_leased, 1024);
    assert!(s.to_string().contains("2 growths"));
    h.reset_workspace_stats();
    let s = h.workspace_stats();
    assert_eq!(
        (
            s.leases,
            s.growths,
            s.memory_errors,
            s.queries,
            s.degraded_calls,
            s.peak_leased
        ),
        (0, 0, 0, 0, 0, 0)
    );
}

fn m15_drop_frees_library_memory_not_raw(dev: &Device) {
    let before = in_use(dev);
    let h = Handle::with_config(dev, &cfg(Some(64 << 20), false)).unwrap();
    assert!(in_use(dev) >= before + (64 << 20) || dev.backend() == Backend::Cuda);
    drop(h);
    assert!(
        in_use(dev) <= before + (2 << 20),
        "{} vs {before}",
        in_use(dev)
    );
    let raw = dev.alloc::<u8>(1 << 16).unwrap();
    let mut h = managed(dev);
    unsafe { h.set_workspace_raw(raw.device_ptr().unwrap(), 1 << 16) }.unwrap();
    drop(h);
    assert_eq!(raw.to_vec().unwrap().len(), 1 << 16); // still valid after the handle is gone
}

fn m16_misuse_is_an_error_never_a_panic(dev: &Device) {
    let mut h = managed(dev);
    let checks: Vec<Result<(), Error>> = vec![
        h.stop_device_memory_size_query().map(|_| ()),
        h.set_optimal_device_memory_size(&[1]).map(|_| ()),
        h.device_malloc(&[usize::MAX]).map(|_| ()),
        h.set_device_memory_size(usize::MAX).map(|_| ()),
        unsafe { h.set_workspace_raw(1, 64) }.map(|_| ()),
    ];
    for c in checks {
        let e = c.unwrap_err();
        assert!(!e.to_string().is_empty());
    }
    still_works(&mut h);
}

#[test]
fn m11_devices_without_pools_refuse_the_setter_and_ignore_the_variable() {
    let dev = Device::host_without_memory_pools();
    let mut h = Handle::with_config(&dev, &cfg(None, true)).unwrap();
    assert!(
        !h.stream_order_alloc(),
        "the variable is ignored (with a logged warning)"
    );
    assert_eq!(h.get_device_memory_size(), DEFAULT_WORKSPACE_BYTES);
    let e = h.set_stream_order_alloc(true).unwrap_err();
    assert!(
        matches!(e, Error::Unsupported(_)) && e.to_string().contains("no memory pools"),
        "{e}"
    );
    assert!(!h.stream_order_alloc());
    still_works(&mut h);
}

#[test]
fn m16_device_selector_errors_name_the_value() {
    for bad in ["gpu", "cuda:x", "cuda:7"] {
        let e = Device::from_selector(bad).unwrap_err();
        assert!(e.to_string().contains(&format!("'{bad}'")), "{e}");
    }
    assert_eq!(
        Device::from_selector(" host ").unwrap().backend(),
        Backend::Host
    );
}

fn m02_handle_is_send(dev: &Device) {
    fn is_send<T: Send>(_: &T) {}
    let h = managed(dev);
    is_send(&h);
    let t = std::thread::spawn(move || {
        let mut h = h;
        still_works(&mut h);
    });
    t.join().unwrap();
}

on_both_backends!(
    m01_modes_and_predicates,
    m02_environment_settings_at_creation,
    m02_handle_is_send,
    m03_managed_grows_to_exact_need_and_survives_failure,
    m04_set_device_memory_size,
    m05_user_buffers_in_and_out,
    m06_fixed_workspaces_never_grow,
    m07_query_start_stop_mismatch,
    m08_query_launches_nothing_and_touches_nothing,
    m10_lease_layout_alignment_and_nesting,
    m11_stream_ordered_leases,
    m12_set_stream_orders_work_without_blocking,
    m13_growth_during_capture_is_refused,
    m14_statistics_and_reset,
    m15_drop_frees_library_memory_not_raw,
    m16_misuse_is_an_error_never_a_panic,
);
