#![allow(clippy::too_many_arguments, clippy::needless_range_loop)]
//! Property tests (proptest) of every routine family on the host backend (issue 11): random
//! shapes, increments, leading dimensions, strides and batch counts (overflowing and
//! overlapping ones included), buffers a little too short or long, and random handle states
//! (managed, fixed small or large workspaces, stream-ordered allocation, inside a size query).
//!
//! The oracle, for every call: it does not panic; an `Err` leaves every output bit for bit as
//! it was (M16, F7, F9); during a query it answers `SizeIncreased`/`SizeUnchanged` and writes
//! nothing (M8); otherwise `Ok` matches a plain f64 reference written here, and elements the
//! call may not write are untouched. `PROPTEST_CASES` sets the case count (default 48 per
//! family, which keeps the debug-mode run to seconds).

use gpublas::memory::HandleConfig;
use gpublas::{
    blas1, blas2, blas3, solver, transfer, Coef, Device, DeviceBuffer, Error, Handle, Op, Results,
    Status,
};
use proptest::prelude::*;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ---- handle states -------------------------------------------------------------------------

#[derive(Debug, Clone, Copy)]
struct State {
    /// None: managed default; Some(n): `GPUBLAS_DEVICE_MEMORY_SIZE = n` (0 = managed, empty).
    size: Option<usize>,
    stream_order: bool,
    query: bool,
}

fn state() -> impl Strategy<Value = State> {
    (
        prop_oneof![
            Just(None),
            Just(Some(0)),
            Just(Some(64)),
            Just(Some(1024)),
            Just(Some(1 << 20))
        ],
        any::<bool>(),
        prop::bool::weighted(0.15),
    )
        .prop_map(|(size, stream_order, query)| State {
            size,
            stream_order,
            query,
        })
}

fn handle(dev: &Device, s: State) -> Handle {
    let mut h = Handle::with_config(
        dev,
        &HandleConfig {
            device_memory_size: s.size,
            stream_order_alloc: s.stream_order,
        },
    )
    .expect("handle");
    if s.query {
        h.start_device_memory_size_query().expect("query");
    }
    h
}

/// Runs `call` under the oracle. `outputs` snapshots everything the call may write;
/// `check` compares an `Ok` result with the reference (not called during a query).
fn oracle<O: PartialEq + std::fmt::Debug>(
    s: State,
    before: O,
    run: impl FnOnce() -> (Result<Status, Error>, O),
    check: impl FnOnce(Status, &O),
) {
    let (r, after) =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).expect("the call panicked");
    match r {
        Err(_) => assert_eq!(after, before, "an Err changed an output: {r:?}"),
        Ok(st) if s.query => {
            assert!(
                matches!(st, Status::SizeIncreased | Status::SizeUnchanged),
                "{st:?} during a query"
            );
            assert_eq!(after, before, "a query call wrote an output");
        }
        Ok(st) => check(st, &after),
    }
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// A size: mostly small, sometimes zero, sometimes huge (overflowing).
fn size(max: usize) -> impl Strategy<Value = usize> {
    prop_oneof![
        8 => 0..=max,
        1 => Just(usize::MAX / 3),
        1 => Just(1usize << 62),
    ]
}

fn inc() -> impl Strategy<Value = isize> {
    prop_oneof![4 => 1..=3isize, 2 => -3..=-1isize, 1 => Just(0isize), 1 => Just(isize::MAX / 2)]
}

/// A buffer length near `need` (sometimes one short).
fn near(need: usize, delta: i64) -> usize {
    let need = need.min(1 << 16);
    (need as i64 + delta).max(0) as usize
}

fn vspan(n: usize, inc: isize) -> usize {
    if n == 0 {
        0
    } else {
        (n - 1).saturating_mul(inc.unsigned_abs()).saturating_add(1)
    }
}

/// Element `i` of a vector at `inc` (BLAS: negative walks backwards).
fn vidx(n: usize, inc: isize, i: usize) -> usize {
    if inc >= 0 {
        i * inc as usize
    } else {
        (n - 1 - i) * inc.unsigned_abs()
    }
}

fn data(len: usize, seed: u64) -> Vec<f64> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

fn tol_close(got: f64, want: f64, scale: f64, what: &str) {
    assert!(
        (got - want).abs() <= 64.0 * f64::EPSILON * scale.max(1.0),
        "{what}: got {got}, want {want}"
    );
}

// ---- Level 1 -------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config())]

    /// dot_strided_batched: results on the host.
    #[test]
    fn prop_blas1_dot(s in state(), n in size(40), incx in inc(), incy in inc(),
                      sx in size(200), sy in size(200), batch in size(4),
                      dx in -2i64..3, dy in -2i64..3, dr in -1i64..2, seed in any::<u64>()) {
        // Both increments 0 make an astronomically long n valid on one-element buffers (a sum
        // of n equal products, as in BLAS): such a call is legal and runs for as long as n
        // says, and so would the oracle's loop. Huge n stays in every other case.
        prop_assume!(!(incx == 0 && incy == 0 && n > 1 << 16));
        let dev = Device::host();
        let mut h = handle(&dev, s);
        let bt = batch.min(8);
        let need_x = if bt == 0 { 0 } else { (bt - 1).saturating_mul(sx).saturating_add(vspan(n, incx)) };
        let need_y = if bt == 0 { 0 } else { (bt - 1).saturating_mul(sy).saturating_add(vspan(n, incy)) };
        let xv = data(near(need_x, dx), seed);
        let yv = data(near(need_y, dy), seed ^ 1);
        let (x, y) = (dev.upload(&xv).unwrap(), dev.upload(&yv).unwrap());
        let mut out = vec![f64::NAN; near(bt, dr)];
        let before = bits(&out);
        oracle(s, before, || {
            let r = blas1::dot_strided_batched(&mut h, n, &x, incx, sx, &y, incy, sy, batch, Results::Host(&mut out));
            (r, bits(&out))
        }, |_, got| {
            assert!(batch <= got.len(), "Ok with {} result slots for a batch of {batch}", got.len());
            for b in 0..batch {
                let (mut w, mut sc) = (0.0, 0.0);
                for i in 0..n {
                    let p = xv[b * sx + vidx(n, incx, i)] * yv[b * sy + vidx(n, incy, i)];
                    w += p;
                    sc += p.abs();
                }
                tol_close(f64::from_bits(got[b]), w, sc * n as f64, "dot");
            }
        });
    }

    /// axpy_strided_batched: y overlapping itself must be refused (F9).
    #[test]
    fn prop_blas1_axpy(s in state(), n in size(40), incx in inc(), incy in inc(),
                       sx in size(200), sy in size(200), batch in size(4),
                       dx in -2i64..3, dy in -2i64..3, seed in any::<u64>()) {
        // As for dot: both increments 0 make an astronomically long n valid on one-element
        // buffers (n updates of one element, as in BLAS), which runs as long as n says (a CI
        // run met n = 2^62 and spent 24 minutes in it), and so would the oracle's loop.
        prop_assume!(!(incx == 0 && incy == 0 && n > 1 << 16));
        let dev = Device::host();
        let mut h = handle(&dev, s);
        let bt = batch.min(8);
        let need_x = if bt == 0 { 0 } else { (bt - 1).saturating_mul(sx).saturating_add(vspan(n, incx)) };
        let need_y = if bt == 0 { 0 } else { (bt - 1).saturating_mul(sy).saturating_add(vspan(n, incy)) };
        let xv = data(near(need_x, dx), seed);
        let yv = data(near(need_y, dy), seed ^ 2);
        let x = dev.upload(&xv).unwrap();
        let mut y = dev.upload(&yv).unwrap();
        let alpha = 0.75;
        oracle(s, bits(&yv), || {
            let r = blas1::axpy_strided_batched(&mut h, n, Coef::Host(alpha), &x, incx, sx, &mut y, incy, sy, batch);
            (r, bits(&y.to_vec().unwrap()))
        }, |_, got| {
            let mut want = yv.clone();
            if n == 0 || batch == 0 {
                assert_eq!(got, &bits(&yv), "a quick return wrote y");
                return;
            }
            for b in 0..batch {
                for i in 0..n {
                    let j = b * sy + vidx(n, incy, i);
                    want[j] += alpha * xv[b * sx + vidx(n, incx, i)];
                }
            }
            for j in 0..want.len() {
                tol_close(f64::from_bits(got[j]), want[j], 2.0, "axpy");
            }
        });
    }
}

// ---- Level 2, Level 3, solver, transfers --------------------------------------------------------

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![Just(Op::N), Just(Op::T)]
}

fn mspan(rows: usize, cols: usize, ld: usize) -> usize {
    if rows == 0 || cols == 0 {
        0
    } else {
        (cols - 1).saturating_mul(ld).saturating_add(rows)
    }
}

proptest! {
    #![proptest_config(config())]

    /// gemv: `y = A x + 0.5 y`.
    #[test]
    fn prop_blas2_gemv(s in state(), o in op(), m in size(24), n in size(24), ldd in 0usize..4,
                       incx in inc(), incy in inc(), da in -1i64..2, dx in -1i64..2, dy in -1i64..2,
                       seed in any::<u64>()) {
        let dev = Device::host();
        let mut h = handle(&dev, s);
        let lda = m.saturating_add(ldd).saturating_sub(1); // sometimes m - 1: invalid
        let (lx, ly) = if o == Op::N { (n, m) } else { (m, n) };
        let av = data(near(mspan(m, n, lda), da), seed);
        let xv = data(near(vspan(lx, incx), dx), seed ^ 3);
        let yv = data(near(vspan(ly, incy), dy), seed ^ 4);
        let (a, x) = (dev.upload(&av).unwrap(), dev.upload(&xv).unwrap());
        let mut y = dev.upload(&yv).unwrap();
        oracle(s, bits(&yv), || {
            let r = blas2::gemv(&mut h, o, m, n, Coef::Host(1.0), &a, lda, &x, incx, Coef::Host(0.5), &mut y, incy);
            (r, bits(&y.to_vec().unwrap()))
        }, |_, got| {
            let mut want = yv.clone();
            if m == 0 || n == 0 {
                assert_eq!(got, &bits(&yv), "a quick return wrote y");
                return;
            }
            for i in 0..ly {
                let (mut acc, mut sc) = (0.0, 0.0);
                for l in 0..lx {
                    let aij = if o == Op::N { av[i + l * lda] } else { av[l + i * lda] };
                    let p = aij * xv[vidx(lx, incx, l)];
                    acc += p;
                    sc += p.abs();
                }
                let j = vidx(ly, incy, i);
                want[j] = acc + 0.5 * yv[j];
                tol_close(f64::from_bits(got[j]), want[j], (sc + 1.0) * lx as f64, "gemv");
            }
            for j in 0..want.len() {
                if (0..ly).all(|i| vidx(ly, incy, i) != j) {
                    assert_eq!(got[j], yv[j].to_bits(), "gemv wrote y[{j}] outside the vector");
                }
            }
        });
    }

    /// gemm_strided_batched: overlapping C entries must be refused (F9).
    #[test]
    fn prop_blas3_gemm(s in state(), oa in op(), ob in op(), m in size(10), n in size(10), k in size(10),
                       ldd in 0usize..3, sc_extra in 0usize..40, sc_short in any::<bool>(), batch in size(3),
                       dc in -1i64..2, seed in any::<u64>()) {
        let dev = Device::host();
        let mut h = handle(&dev, s);
        let bt = batch.min(8);
        let (ar, ac) = if oa == Op::N { (m, k) } else { (k, m) };
        let (br, bc) = if ob == Op::N { (k, n) } else { (n, k) };
        let (lda, ldb, ldc) = (ar.max(1) + ldd, br.max(1) + ldd, m.max(1) + ldd.saturating_sub(1).min(1));
        let (sa, sb) = (mspan(ar, ac, lda), mspan(br, bc, ldb));
        let span_c = mspan(m, n, ldc);
        let stride_c = if sc_short { span_c / 2 } else { span_c.saturating_add(sc_extra) };
        let need = |sp: usize, st: usize| if bt == 0 { 0 } else { (bt - 1).saturating_mul(st).saturating_add(sp) };
        let av = data(near(need(sa, sa), 0), seed);
        let bv = data(near(need(sb, sb), 0), seed ^ 5);
        let cv = data(near(need(span_c, stride_c), dc), seed ^ 6);
        let (a, b) = (dev.upload(&av).unwrap(), dev.upload(&bv).unwrap());
        let mut c = dev.upload(&cv).unwrap();
        oracle(s, bits(&cv), || {
            let r = blas3::gemm_strided_batched(&mut h, oa, ob, m, n, k, Coef::Host(1.0), &a, lda, sa,
                &b, ldb, sb, Coef::Host(-1.0), &mut c, ldc, stride_c, batch);
            (r, bits(&c.to_vec().unwrap()))
        }, |_, got| {
            if m == 0 || n == 0 || batch == 0 {
                assert_eq!(got, &bits(&cv), "a quick return wrote C");
                return;
            }
            for e in 0..batch {
                for j in 0..n {
                    for i in 0..m {
                        let (mut acc, mut scale) = (0.0, 1.0);
                        for l in 0..k {
                            let x = if oa == Op::N { av[e * sa + i + l * lda] } else { av[e * sa + l + i * lda] };
                            let y = if ob == Op::N { bv[e * sb + l + j * ldb] } else { bv[e * sb + j + l * ldb] };
                            acc += x * y;
                            scale += (x * y).abs();
                        }
                        let at = e * stride_c + i + j * ldc;
                        tol_close(f64::from_bits(got[at]), acc - cv[at], scale * (k + 1) as f64, "gemm");
                    }
                }
            }
        });
    }

    /// getrf_strided_batched: P A = L U per entry, pivots in range, info consistent.
    #[test]
    fn prop_solver_getrf(s in state(), m in size(9), n in size(9), ldd in 0usize..3, extra in 0usize..20,
                         batch in size(3), dpiv in -1i64..2, seed in any::<u64>()) {
        let dev = Device::host();
        let mut h = handle(&dev, s);
        let bt = batch.min(8);
        let lda = m.max(1) + ldd;
        let span = mspan(m, n, lda);
        let stride = span.saturating_add(extra);
        let kmin = m.min(n);
        let total = if bt == 0 { 0 } else { (bt - 1).saturating_mul(stride).saturating_add(span) };
        let av = data(near(total, 0), seed);
        let mut a = dev.upload(&av).unwrap();
        let mut piv = vec![-7i32; near(kmin.saturating_mul(bt), dpiv)];
        let mut info = vec![-7i32; bt];
        let before = (bits(&av), piv.clone(), info.clone());
        oracle(s, before, || {
            let r = solver::getrf_strided_batched(&mut h, m, n, &mut a, lda, stride,
                Results::Host(&mut piv), kmin, Results::Host(&mut info), batch);
            (r, (bits(&a.to_vec().unwrap()), piv.clone(), info.clone()))
        }, |_, (got, piv, info)| {
            assert!(info.len() >= batch, "Ok with {} info slots for a batch of {batch}", info.len());
            if m == 0 || n == 0 {
                assert_eq!(got, &bits(&av), "a quick return wrote A");
                assert!(info[..batch].iter().all(|&i| i == 0), "info of a quick return");
                return;
            }
            for e in 0..batch {
                let f = |i: usize, j: usize| f64::from_bits(got[e * stride + i + j * lda]);
                // P A: apply the interchanges to a copy of A.
                let mut pa: Vec<f64> = (0..m * n).map(|t| av[e * stride + t % m + (t / m) * lda]).collect();
                for i in 0..kmin {
                    let p = piv[e * kmin + i];
                    assert!(p > i as i32 && p <= m as i32, "pivot {p} at {i} of entry {e}");
                    let p = p as usize - 1;
                    for j in 0..n {
                        pa.swap(i + j * m, p + j * m);
                    }
                }
                for j in 0..n {
                    for i in 0..m {
                        let mut lu = 0.0;
                        let mut sc = 0.0;
                        for l in 0..=i.min(j).min(kmin.saturating_sub(1)) {
                            let lil = if l == i { 1.0 } else if l < i { f(i, l) } else { 0.0 };
                            let ulj = if l <= j { f(l, j) } else { 0.0 };
                            lu += lil * ulj;
                            sc += (lil * ulj).abs();
                        }
                        if info[e] == 0 {
                            tol_close(lu, pa[i + j * m], (sc + 1.0) * 8.0 * kmin as f64, "P A = L U");
                        }
                    }
                }
            }
        });
    }

    /// set_vector / get_vector: exact, gaps untouched.
    #[test]
    fn prop_transfer_vector(s in state(), n in size(300), incx in inc(), incy in inc(), dx in -1i64..2,
                            dy in -1i64..2, seed in any::<u64>()) {
        // (both increments 0: n copies of one element, valid for any n; as for dot and axpy)
        prop_assume!(!(incx == 0 && incy == 0 && n > 1 << 16));
        let dev = Device::host();
        let mut h = handle(&dev, s);
        let xv = data(near(vspan(n, incx), dx), seed);
        let yv = data(near(vspan(n, incy), dy), seed ^ 7);
        let mut y: DeviceBuffer<f64> = dev.upload(&yv).unwrap();
        oracle(s, bits(&yv), || {
            let r = transfer::set_vector(&mut h, n, &xv, incx, &mut y, incy);
            (r, bits(&y.to_vec().unwrap()))
        }, |_, got| {
            let mut want = bits(&yv);
            for i in 0..n {
                want[vidx(n, incy, i)] = xv[vidx(n, incx, i)].to_bits();
            }
            assert_eq!(got, &want);
        });
        let d = dev.upload(&yv).unwrap();
        let mut hv = xv.clone();
        let mut h = handle(&dev, s);
        oracle(s, bits(&xv), || {
            let r = transfer::get_vector(&mut h, n, &d, incy, &mut hv, incx);
            (r, bits(&hv))
        }, |_, got| {
            let mut want = bits(&xv);
            for i in 0..n {
                want[vidx(n, incx, i)] = yv[vidx(n, incy, i)].to_bits();
            }
            assert_eq!(got, &want);
        });
    }

    /// get_matrix: exact, padding untouched.
    #[test]
    fn prop_transfer_matrix(s in state(), rows in size(40), cols in size(12), la in 0usize..3, lb in 0usize..3,
                            db in -1i64..2, seed in any::<u64>()) {
        let dev = Device::host();
        let mut h = handle(&dev, s);
        let (lda, ldb) = (rows.saturating_add(la).saturating_sub(1).max(1), rows.saturating_add(lb).max(1));
        let av = data(near(mspan(rows, cols, lda), 0), seed);
        let bv = data(near(mspan(rows, cols, ldb), db), seed ^ 8);
        let a = dev.upload(&av).unwrap();
        let mut b = bv.clone();
        oracle(s, bits(&bv), || {
            let r = transfer::get_matrix(&mut h, rows, cols, &a, lda, &mut b, ldb);
            (r, bits(&b))
        }, |_, got| {
            let mut want = bits(&bv);
            if rows == 0 || cols == 0 {
                assert_eq!(got, &want, "an empty transfer wrote B");
                return;
            }
            for j in 0..cols {
                for i in 0..rows {
                    want[i + j * ldb] = av[i + j * lda].to_bits();
                }
            }
            assert_eq!(got, &want);
        });
    }
}
