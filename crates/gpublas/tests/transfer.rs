#![allow(clippy::type_complexity, clippy::too_many_arguments)]
//! The auxiliary transfers (`set_vector`, `get_vector`, `set_matrix`, `get_matrix` and their
//! `_async` forms) on both backends, against plain index loops written here: every element
//! type class (4, 8 and 16 bytes), increments of either sign and size on either side, the
//! matrix shapes where the paths change (contiguous, padded, narrow and wide columns), round
//! trips bit for bit, destinations poisoned so every element the call may not write is
//! compared bit for bit afterwards (gaps, padding, one past the end), bad arguments, size
//! queries, small workspaces and graph capture (SPEC F1, F2, F7, M6, M8, M13).

mod common;

use gpublas::memory::HandleConfig;
use gpublas::transfer::{self, Shape};
use gpublas::{
    blas1, Backend, Complex64, Device, DeviceBuffer, Element, Error, Handle, PinnedBuffer, Results,
    Status,
};
use rand::Rng;

/// Random elements with distinct bit patterns (NaN payloads included: these are byte copies).
fn random<T: Element>(n: usize, seed: u64) -> Vec<T> {
    let mut r = common::rng(seed);
    let mut bytes = vec![0u8; n * std::mem::size_of::<T>()];
    r.fill(&mut bytes[..]);
    bytemuck::cast_slice::<u8, T>(&bytes).to_vec()
}

fn poison<T: Element>(n: usize) -> Vec<T> {
    let bytes = vec![0xA5u8; n * std::mem::size_of::<T>()];
    bytemuck::cast_slice::<u8, T>(&bytes).to_vec()
}

fn same<T: Element>(a: &[T], b: &[T]) -> bool {
    bytemuck::cast_slice::<T, u8>(a) == bytemuck::cast_slice::<T, u8>(b)
}

fn span(n: usize, inc: isize) -> usize {
    if n == 0 {
        0
    } else {
        (n - 1) * inc.unsigned_abs() + 1
    }
}

/// Index of element `i` of `n` at `inc` (negative: backwards).
fn at(n: usize, inc: isize, i: usize) -> usize {
    if inc > 0 {
        i * inc as usize
    } else {
        (n - 1 - i) * inc.unsigned_abs()
    }
}

/// The expected destination: `dst` with element `i` of the destination layout replaced by
/// element `i` of the source layout.
fn expect_vec<T: Element>(n: usize, src: &[T], si: isize, dst: &[T], di: isize) -> Vec<T> {
    let mut out = dst.to_vec();
    for i in 0..n {
        out[at(n, di, i)] = src[at(n, si, i)];
    }
    out
}

fn fixed(dev: &Device, bytes: Option<usize>) -> Handle {
    Handle::with_config(
        dev,
        &HandleConfig {
            device_memory_size: bytes,
            ..Default::default()
        },
    )
    .unwrap()
}

fn pinned_from<T: Element>(dev: &Device, v: &[T]) -> PinnedBuffer<T> {
    let mut p = dev.alloc_pinned::<T>(v.len()).unwrap();
    p.copy_from_slice(v);
    p
}

/// set (host → device) then get (device → host) of one vector, sync or async, checking both
/// destinations in full (one element past the span too).
fn vector_case<T: Element>(
    dev: &Device,
    h: &mut Handle,
    n: usize,
    hi: isize,
    di: isize,
    async_form: bool,
) {
    let what = format!(
        "{} n = {n}, host inc {hi}, device inc {di}, async {async_form}",
        std::any::type_name::<T>()
    );
    let src = random::<T>(span(n, hi) + 1, n as u64 ^ 17);
    let dpois = poison::<T>(span(n, di) + 1);
    let mut d: DeviceBuffer<T> = dev.upload(&dpois).unwrap();
    let st = if async_form {
        let p = pinned_from(dev, &src);
        let st = transfer::set_vector_async(h, n, &p, hi, &mut d, di).unwrap();
        h.synchronize().unwrap();
        st
    } else {
        transfer::set_vector(h, n, &src, hi, &mut d, di).unwrap()
    };
    assert_eq!(st, Status::Success, "{what}");
    let want_d = expect_vec(n, &src, hi, &dpois, di);
    assert!(same(&d.to_vec().unwrap(), &want_d), "set_vector {what}");
    // And back into a poisoned host array at the host increment: a bit-exact round trip.
    let hpois = poison::<T>(span(n, hi) + 1);
    let back = if async_form {
        let mut p = pinned_from(dev, &hpois);
        let st = transfer::get_vector_async(h, n, &d, di, &mut p, hi).unwrap();
        assert_eq!(st, Status::Success, "{what}");
        p.to_vec() // waits for the copy
    } else {
        let mut b = hpois.clone();
        let st = transfer::get_vector(h, n, &d, di, &mut b, hi).unwrap();
        assert_eq!(st, Status::Success, "{what}");
        b
    };
    let want_h = expect_vec(n, &want_d, di, &hpois, hi);
    assert!(same(&back, &want_h), "get_vector {what}");
    let round = expect_vec(n, &src, hi, &hpois, hi);
    assert!(same(&back, &round), "round trip {what}");
}

fn vectors_of<T: Element>(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let incs = [1isize, 2, 3, -1];
    for n in [0usize, 1, 2, 1000] {
        for &hi in &incs {
            for &di in &incs {
                for async_form in [false, true] {
                    vector_case::<T>(dev, &mut h, n, hi, di, async_form);
                }
            }
        }
    }
    // Large: several staging pieces and workspace chunks.
    let big = (1 << 20) + 3;
    for (hi, di) in [(1, 1), (2, 1), (1, 2), (3, -1), (-1, 3)] {
        vector_case::<T>(dev, &mut h, big, hi, di, false);
        vector_case::<T>(dev, &mut h, big, hi, di, true);
    }
}

/// F1: vectors of 4-, 8- and 16-byte elements, increments {1, 2, 3, −1} on either side.
fn f1_transfer_vectors_every_increment(dev: &Device) {
    vectors_of::<f32>(dev);
    vectors_of::<f64>(dev);
    vectors_of::<Complex64>(dev);
}

fn mat_span(rows: usize, cols: usize, ld: usize) -> usize {
    if rows == 0 || cols == 0 {
        0
    } else {
        (cols - 1) * ld + rows
    }
}

fn expect_mat<T: Element>(
    rows: usize,
    cols: usize,
    src: &[T],
    sl: usize,
    dst: &[T],
    dl: usize,
) -> Vec<T> {
    let mut out = dst.to_vec();
    for j in 0..cols {
        for i in 0..rows {
            out[i + j * dl] = src[i + j * sl];
        }
    }
    out
}

fn matrix_case<T: Element>(
    dev: &Device,
    h: &mut Handle,
    (rows, cols, lda, ldb): (usize, usize, usize, usize),
    async_form: bool,
) {
    let what = format!(
        "{} {rows} x {cols}, lda {lda}, ldb {ldb}, async {async_form}",
        std::any::type_name::<T>()
    );
    let a = random::<T>(mat_span(rows, cols, lda) + 1, (rows * 31 + cols) as u64);
    let bpois = poison::<T>(mat_span(rows, cols, ldb) + 1);
    let mut b = dev.upload(&bpois).unwrap();
    if async_form {
        let p = pinned_from(dev, &a);
        let _ = transfer::set_matrix_async(h, rows, cols, &p, lda, &mut b, ldb).unwrap();
        h.synchronize().unwrap();
    } else {
        let _ = transfer::set_matrix(h, rows, cols, &a, lda, &mut b, ldb).unwrap();
    }
    let want_b = expect_mat(rows, cols, &a, lda, &bpois, ldb);
    assert!(same(&b.to_vec().unwrap(), &want_b), "set_matrix {what}");
    // Back from B (leading dimension ldb) into a poisoned host array at lda.
    let hpois = poison::<T>(mat_span(rows, cols, lda) + 1);
    let back = if async_form {
        let mut p = pinned_from(dev, &hpois);
        let _ = transfer::get_matrix_async(h, rows, cols, &b, ldb, &mut p, lda).unwrap();
        p.to_vec()
    } else {
        let mut v = hpois.clone();
        let _ = transfer::get_matrix(h, rows, cols, &b, ldb, &mut v, lda).unwrap();
        v
    };
    assert!(
        same(&back, &expect_mat(rows, cols, &a, lda, &hpois, lda)),
        "get_matrix / round trip {what}"
    );
}

/// F1: matrices with the leading dimensions equal to or above `rows` on either side, empty
/// shapes, one column, one row, narrow (< 512 bytes) and wide columns.
fn f1_transfer_matrices_every_shape(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let shapes = [
        (0, 5, 1, 1),
        (5, 0, 5, 7),
        (1, 1, 1, 1),
        (7, 1, 7, 9),          // one column
        (1, 300, 1, 4),        // one row
        (16, 500, 16, 16),     // contiguous both
        (16, 500, 64, 16),     // narrow, host padded
        (16, 500, 16, 24),     // narrow, device padded
        (33, 70, 40, 35),      // narrow, both padded
        (300, 40, 300, 308),   // wide (f32: 1200 B), device padded
        (300, 40, 310, 300),   // wide, host padded
        (1030, 9, 1031, 1040), // wide, both padded
    ];
    for s in shapes {
        for async_form in [false, true] {
            matrix_case::<f32>(dev, &mut h, s, async_form);
            matrix_case::<f64>(dev, &mut h, s, async_form);
            matrix_case::<Complex64>(dev, &mut h, s, async_form);
        }
    }
    // Large: many staging pieces, partial columns of a wide matrix (one column > 2 MiB).
    for s in [
        (16, 1 << 17, 64, 16),
        (16, 1 << 17, 16, 20),
        (1 << 20, 3, (1 << 20) + 5, (1 << 20) + 1),
        // Contiguous both sides, 8 MiB of f32: staged from pageable memory.
        (1000, 2100, 1000, 1000),
    ] {
        matrix_case::<f32>(dev, &mut h, s, false);
        matrix_case::<f32>(dev, &mut h, s, true);
    }
}

/// F7, M16: bad arguments are errors that name the values; neither side is touched.
fn f7_transfer_bad_arguments_untouched(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let hv = random::<f64>(20, 1);
    let dpois = poison::<f64>(20);
    let mut d = dev.upload(&dpois).unwrap();
    let mut hw = hv.clone();
    let msg = |e: Error| e.to_string();
    // increment 0
    let e = transfer::set_vector(&mut h, 5, &hv, 0, &mut d, 1).unwrap_err();
    assert!(msg(e).contains("incx = 0"));
    let e = transfer::get_vector(&mut h, 5, &d, 1, &mut hw, 0).unwrap_err();
    assert!(msg(e).contains("incy = 0"));
    // a host slice one element short: n = 10 at inc 2 needs 19
    let e = transfer::set_vector(&mut h, 10, &hv[..18], 2, &mut d, 1).unwrap_err();
    let m = msg(e);
    assert!(m.contains("18") && m.contains("19"), "{m}");
    // a device buffer one element short
    let mut short = dev.upload(&dpois[..9]).unwrap();
    let e = transfer::set_vector(&mut h, 10, &hv, 1, &mut short, 1).unwrap_err();
    let m = msg(e);
    assert!(m.contains('9') && m.contains("10"), "{m}");
    let e = transfer::get_vector(&mut h, 10, &short, 1, &mut hw, 1).unwrap_err();
    assert!(msg(e).contains("10"));
    // lda < rows, ldb < rows
    let e = transfer::set_matrix(&mut h, 4, 3, &hv, 3, &mut d, 4).unwrap_err();
    assert!(msg(e).contains("lda = 3"), "lda");
    let e = transfer::get_matrix(&mut h, 4, 3, &d, 4, &mut hw, 2).unwrap_err();
    assert!(msg(e).contains("ldb = 2"), "ldb");
    // a host matrix one element short: 4 x 3 at lda 6 needs 16
    let e = transfer::set_matrix(&mut h, 4, 3, &hv[..15], 6, &mut d, 4).unwrap_err();
    assert!(msg(e).contains("16"));
    // overflowing sizes
    let e = transfer::set_vector(&mut h, usize::MAX / 2, &hv, 4, &mut d, 1).unwrap_err();
    assert!(matches!(e, Error::InvalidSize(_)), "{e}");
    assert!(
        same(&d.to_vec().unwrap(), &dpois),
        "the device side was written"
    );
    assert!(same(&short.to_vec().unwrap(), &dpois[..9]));
    assert!(same(&hw, &hv), "the host side was written");
    // A pinned buffer of another backend.
    let other = if dev.backend() == Backend::Host {
        None
    } else {
        Some(Device::host())
    };
    if let Some(o) = other {
        let p = o.alloc_pinned::<f64>(20).unwrap();
        let e = transfer::set_vector_async(&mut h, 5, &p, 1, &mut d, 1).unwrap_err();
        assert!(matches!(e, Error::InvalidPointer(_)), "{e}");
    }
}

/// M8: a size query over device-strided transfers, then a workspace of that size: every call
/// runs as planned (`Success`), the query's answer equals `workspace_bytes`.
fn m08_transfer_query_preallocate(dev: &Device) {
    let mut h = fixed(dev, Some(0));
    let n = 100_000;
    h.start_device_memory_size_query().unwrap();
    let mut ph = DeviceBuffer::<f32>::placeholder(2 * n);
    let st = transfer::set_vector(&mut h, n, &[], 1, &mut ph, 2).unwrap();
    assert_eq!(st, Status::SizeIncreased);
    let st = transfer::get_matrix(
        &mut h,
        16,
        100,
        &DeviceBuffer::<f32>::placeholder(3200),
        32,
        &mut [],
        16,
    )
    .unwrap();
    assert!(matches!(st, Status::SizeIncreased | Status::SizeUnchanged));
    let need = h.stop_device_memory_size_query().unwrap();
    assert_eq!(
        need,
        transfer::workspace_bytes::<f32>(Shape::Vector { n, dev_inc: 2 })
    );
    assert_eq!(need, n * 4);
    let _ = h.set_device_memory_size(need).unwrap();
    let x = random::<f32>(n, 5);
    let mut d = dev.upload(&poison::<f32>(2 * n)).unwrap();
    assert_eq!(
        transfer::set_vector(&mut h, n, &x, 1, &mut d, 2).unwrap(),
        Status::Success
    );
    let got = d.to_vec().unwrap();
    assert!((0..n).all(|i| got[2 * i].to_bits() == x[i].to_bits()));
}

/// M6: a 1 KiB fixed workspace runs device-strided transfers in 1 KiB pieces (`PerfDegraded`)
/// with the same bytes; transfers that need no workspace still report `Success`.
fn m06_transfer_small_workspace_degraded(dev: &Device) {
    let mut h = fixed(dev, Some(1024));
    let n = 5000;
    let x = random::<f64>(n, 9);
    let dpois = poison::<f64>(3 * n);
    for (hi, di, degraded) in [
        (1isize, 3isize, true),
        (2, -3, true),
        (3, 1, false),
        (1, 1, false),
    ] {
        let mut d = dev.upload(&dpois).unwrap();
        let want = transfer::workspace_bytes::<f64>(Shape::Vector {
            n: n / 3,
            dev_inc: di,
        }) > 1024;
        assert_eq!(want, degraded);
        let st = transfer::set_vector(&mut h, n / 3, &x, hi, &mut d, di).unwrap();
        assert_eq!(
            st,
            if degraded {
                Status::PerfDegraded
            } else {
                Status::Success
            },
            "{hi} {di}"
        );
        let want_d = expect_vec(n / 3, &x, hi, &dpois, di);
        assert!(same(&d.to_vec().unwrap(), &want_d), "{hi} {di}");
        let mut back = poison::<f64>(span(n / 3, hi));
        let st = transfer::get_vector(&mut h, n / 3, &d, di, &mut back, hi).unwrap();
        assert_eq!(
            st,
            if degraded {
                Status::PerfDegraded
            } else {
                Status::Success
            }
        );
        assert!(same(
            &back,
            &expect_vec(n / 3, &x, hi, &poison::<f64>(span(n / 3, hi)), hi)
        ));
    }
    // Narrow matrices with a padded device side too.
    let a = random::<f32>(16 * 400, 3);
    let bpois = poison::<f32>(24 * 400);
    let mut b = dev.upload(&bpois).unwrap();
    let st = transfer::set_matrix(&mut h, 16, 400, &a, 16, &mut b, 24).unwrap();
    assert_eq!(st, Status::PerfDegraded);
    assert!(same(
        &b.to_vec().unwrap(),
        &expect_mat(16, 400, &a, 16, &bpois, 24)
    ));
}

/// F2: an asynchronous transfer is ordered before the next call on the handle's stream; the
/// pinned buffer of an asynchronous get is readable (it waits) right after the call.
fn f2_transfer_async_then_kernel_sees_data(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let n = 300_000;
    let x: Vec<f64> = (0..n).map(|i| (i % 7) as f64 - 3.0).collect();
    let want: f64 = x.iter().map(|v| v.abs()).sum();
    for (hi, di) in [(1isize, 1isize), (1, 2), (2, 1)] {
        let mut src = vec![0.0; span(n, hi)];
        for i in 0..n {
            src[at(n, hi, i)] = x[i];
        }
        let p = pinned_from(dev, &src);
        let mut d = dev.alloc::<f64>(span(n, di)).unwrap();
        let _ = transfer::set_vector_async(&mut h, n, &p, hi, &mut d, di).unwrap();
        let mut r = [0.0];
        let _ = blas1::asum(&mut h, n, &d, di, Results::Host(&mut r)).unwrap();
        assert_eq!(r[0], want, "asum after set_vector_async ({hi}, {di})");
        let mut back = dev.alloc_pinned::<f64>(n).unwrap();
        let _ = transfer::get_vector_async(&mut h, n, &d, di, &mut back, 1).unwrap();
        assert!(same(&back, &x), "get_vector_async ({hi}, {di})");
    }
}

/// M13: asynchronous transfers from contiguous pinned memory (through the workspace and the
/// scatter kernel) are captured and replayed; one whose host side must be packed on a host
/// thread is refused under capture. The host backend refuses capture.
fn m13_transfer_capture_replay(dev: &Device) {
    let mut h = fixed(dev, Some(1 << 20));
    if dev.backend() == Backend::Host {
        assert!(matches!(
            h.stream().begin_capture(),
            Err(Error::Unsupported(_))
        ));
        return;
    }
    let n = 50_000;
    let x = random::<f32>(n, 21);
    let p = pinned_from(dev, &x);
    let dpois = poison::<f32>(2 * n);
    let mut d = dev.upload(&dpois).unwrap();
    let mut back = dev.alloc_pinned::<f32>(n).unwrap();
    h.stream().begin_capture().unwrap();
    let s1 = transfer::set_vector_async(&mut h, n, &p, 1, &mut d, 2);
    let s2 = transfer::get_vector_async(&mut h, n, &d, 2, &mut back, 1);
    let refused = transfer::set_vector_async(&mut h, n / 2, &p, 2, &mut d, 1);
    let g = h.stream().end_capture().unwrap();
    assert_eq!(s1.unwrap(), Status::Success);
    assert_eq!(s2.unwrap(), Status::Success);
    assert!(matches!(refused, Err(Error::Unsupported(_))), "{refused:?}");
    assert!(same(&d.to_vec().unwrap(), &dpois), "capturing ran a copy");
    for _ in 0..3 {
        g.launch().unwrap();
        h.synchronize().unwrap();
        let got = d.to_vec().unwrap();
        assert!(same(&got, &expect_vec(n, &x, 1, &dpois, 2)));
        assert!(same(&back, &x));
    }
}

on_both_backends!(
    f1_transfer_vectors_every_increment,
    f1_transfer_matrices_every_shape,
    f7_transfer_bad_arguments_untouched,
    m08_transfer_query_preallocate,
    m06_transfer_small_workspace_degraded,
    f2_transfer_async_then_kernel_sees_data,
    m13_transfer_capture_replay,
);
