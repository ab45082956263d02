//! F7, F9, F10: bad arguments.

use super::*;
use crate::common::errors::{expect_err, is_pointer, is_size, is_value};

/// Output buffers poisoned with a known pattern, checked bit for bit at the end.
struct Outs {
    bufs: Vec<DeviceBuffer<f64>>,
}
impl Outs {
    fn new(dev: &Device, lens: &[usize]) -> Outs {
        Outs {
            bufs: lens
                .iter()
                .map(|&l| dev.upload(&pattern(l)).unwrap())
                .collect(),
        }
    }
    fn check(&self) {
        for (i, b) in self.bufs.iter().enumerate() {
            let got = b.to_vec().unwrap();
            let want = pattern(got.len());
            assert!(
                got.iter()
                    .zip(&want)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "output {i} was written: {got:?}"
            );
        }
    }
}
fn pattern(len: usize) -> Vec<f64> {
    (0..len).map(|i| -7.5 - i as f64).collect()
}

fn f7_bad_sizes_and_short_buffers_are_errors_with_outputs_untouched(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let a = up(64);
    let x = up(16);
    let mut o = Outs::new(dev, &[16, 4, 8, 40, 3]);
    let (al, be) = (Coef::Host(1.0f64), Coef::Host(0.5f64));
    let (u, l) = (Uplo::Upper, Uplo::Lower);
    let (nu, un) = (Diag::NonUnit, Diag::Unit);
    {
        let [y, y4, x8, ys, _] = &mut o.bufs[..] else {
            unreachable!()
        };
        // Leading dimensions.
        let r = blas2::gemv(&mut h, Op::N, 5, 4, al, &a, 4, &x, 1, be, y, 1);
        expect_err(r, is_size, &["gemv", "lda = 4", "5"], "gemv lda < m");
        let r = blas2::gemv_strided_batched(
            &mut h,
            Op::T,
            6,
            2,
            al,
            &a,
            5,
            12,
            &x,
            1,
            6,
            be,
            ys,
            1,
            2,
            2,
        );
        expect_err(r, is_size, &["lda = 5", "6"], "gemv_strided lda < m");
        let r = blas2::symv(&mut h, u, 6, al, &a, 5, &x, 1, be, y, 1);
        expect_err(r, is_size, &["symv", "lda = 5", "6"], "symv lda < n");
        let r = blas2::trmv(&mut h, l, Op::N, nu, 6, &a, 3, y, 1);
        expect_err(r, is_size, &["trmv", "lda = 3", "6"], "trmv lda < n");
        let r = blas2::trsv(&mut h, u, Op::T, un, 7, &a, 6, y, 1);
        expect_err(r, is_size, &["trsv", "lda = 6", "7"], "trsv lda < n");
        let r = blas2::tbmv(&mut h, u, Op::N, nu, 6, 2, &a, 2, y, 1);
        expect_err(r, is_size, &["tbmv", "lda = 2", "3"], "tbmv lda < k + 1");
        // Band widths k >= n are valid (tests/reference/increments.rs); their A still has to
        // hold (n - 1) lda + k + 1 elements.
        let a39 = up(39);
        let r = blas2::tbmv(&mut h, l, Op::T, un, 4, 9, &a39, 10, y, 1);
        expect_err(
            r,
            is_value,
            &["has 39 elements", "needs 40"],
            "tbmv k > n A short",
        );
        // Zero increments.
        let r = blas2::gemv(&mut h, Op::N, 4, 4, al, &a, 4, &x, 0, be, y, 1);
        expect_err(r, is_value, &["gemv", "incx = 0"], "gemv incx = 0");
        let r = blas2::gemv(&mut h, Op::T, 4, 4, al, &a, 4, &x, 1, be, y, 0);
        expect_err(r, is_value, &["gemv", "incy = 0"], "gemv incy = 0");
        let r = blas2::symv(&mut h, l, 4, al, &a, 4, &x, 1, be, y, 0);
        expect_err(r, is_value, &["incy = 0"], "symv incy = 0");
        let r = blas2::trmv(&mut h, u, Op::C, nu, 4, &a, 4, y, 0);
        expect_err(r, is_value, &["trmv", "incx = 0"], "trmv incx = 0");
        let r = blas2::tpmv(&mut h, u, Op::N, nu, 4, &a, y, 0);
        expect_err(r, is_value, &["incx = 0"], "tpmv incx = 0");
        let r = blas2::trsv_strided_batched(&mut h, u, Op::N, nu, 4, &a, 4, 16, ys, 0, 5, 2);
        expect_err(r, is_value, &["incx = 0"], "trsv_strided incx = 0");
        // A, x, y one element too short.
        let a19 = up(19);
        let r = blas2::gemv(&mut h, Op::N, 5, 4, al, &a19, 5, &x, 1, be, y, 1);
        expect_err(
            r,
            is_value,
            &["has 19 elements", "needs 20"],
            "gemv A short",
        );
        let x6 = up(6);
        let r = blas2::gemv(&mut h, Op::N, 5, 4, al, &a, 5, &x6, 2, be, y, 1);
        expect_err(r, is_value, &["has 6 elements", "needs 7"], "gemv x short");
        let r = blas2::gemv(&mut h, Op::N, 5, 4, al, &a, 5, &x, 1, be, y4, -1);
        expect_err(r, is_value, &["has 4 elements", "needs 5"], "gemv y short");
        let r = blas2::gemv(&mut h, Op::T, 5, 9, al, &a, 5, &x, 1, be, x8, 1);
        expect_err(
            r,
            is_value,
            &["has 8 elements", "needs 9"],
            "gemv T y short",
        );
        let r = blas2::symv(&mut h, u, 4, al, &a, 4, &x, 1, be, y4, 2);
        expect_err(r, is_value, &["has 4 elements", "needs 7"], "symv y short");
        let r = blas2::trmv(&mut h, l, Op::N, nu, 5, &a, 5, x8, -2);
        expect_err(r, is_value, &["has 8 elements", "needs 9"], "trmv x short");
        let r = blas2::trsv(&mut h, l, Op::N, nu, 8, &a19, 3 + 5, x8, 1);
        expect_err(
            r,
            is_value,
            &["has 19 elements", "needs 64"],
            "trsv A short",
        );
        let ap9 = up(9);
        let r = blas2::tpmv(&mut h, u, Op::T, nu, 4, &ap9, y, 1);
        expect_err(
            r,
            is_value,
            &["has 9 elements", "needs 10"],
            "tpmv ap short",
        );
        let a14 = up(14);
        let r = blas2::tbmv(&mut h, u, Op::N, un, 5, 2, &a14, 3, y, 1);
        expect_err(
            r,
            is_value,
            &["has 14 elements", "needs 15"],
            "tbmv A short",
        );
        // Strided: the last entry runs past the buffer.
        let a35 = up(35);
        let r = blas2::gemv_strided_batched(
            &mut h,
            Op::N,
            4,
            3,
            al,
            &a35,
            4,
            12,
            &x,
            1,
            3,
            be,
            ys,
            1,
            4,
            3,
        );
        expect_err(
            r,
            is_value,
            &["has 35 elements", "needs 36", "stride_a = 12"],
            "gemv_strided A short",
        );
        let r = blas2::gemv_strided_batched(
            &mut h,
            Op::N,
            4,
            3,
            al,
            &a,
            4,
            12,
            &x,
            1,
            7,
            be,
            ys,
            1,
            4,
            3,
        );
        expect_err(
            r,
            is_value,
            &["has 16 elements", "needs 17", "stride_x = 7"],
            "gemv_strided x short",
        );
        let r = blas2::trmv_strided_batched(&mut h, u, Op::N, nu, 4, &a, 4, 16, ys, 1, 13, 4);
        expect_err(
            r,
            is_value,
            &["has 40 elements", "needs 43", "stride_x = 13"],
            "trmv_strided x short",
        );
    }
    o.check();
    // One bad entry in a list: no entry is written.
    let mut ys: Vec<DeviceBuffer<f64>> = (0..3).map(|_| dev.upload(&pattern(5)).unwrap()).collect();
    let x3 = up(3);
    let mut ym: Vec<&mut DeviceBuffer<f64>> = ys.iter_mut().collect();
    let r = blas2::gemv_batched(
        &mut h,
        Op::N,
        5,
        4,
        al,
        &[&a, &a, &a],
        5,
        &[&x, &x, &x3],
        1,
        be,
        &mut ym,
        1,
    );
    expect_err(
        r,
        is_value,
        &["x[2] has 3 elements", "needs 4"],
        "gemv_batched x[2] short",
    );
    let r = blas2::trsv_batched(
        &mut h,
        Uplo::Lower,
        Op::N,
        Diag::NonUnit,
        5,
        &[&a, &x],
        5,
        &mut ym[..2],
        1,
    );
    expect_err(
        r,
        is_value,
        &["A[1] has 16 elements", "needs 25"],
        "trsv_batched A[1] short",
    );
    for y in &ys {
        assert_eq!(y.to_vec().unwrap(), pattern(5), "a list entry was written");
    }
}

/// Sizes whose spans or workspace needs overflow the address space are `InvalidSize`, never a
/// panic (M16, F7), outside a query; during a query (placeholders) they must not panic either.
/// Every case runs; the failures are listed together.
fn f7_huge_sizes_are_invalid_size_never_a_panic(dev: &Device) {
    type Call = Box<dyn Fn(&mut Handle, bool) -> Result<Status, Error>>;
    let d = dev.clone();
    // Small real buffers, or placeholders of the same lengths during a query.
    let bufs = move |ph: bool| {
        let mk = |len: usize| {
            if ph {
                DeviceBuffer::<f64>::placeholder(len)
            } else {
                d.upload(&vec![0.5f64; len]).unwrap()
            }
        };
        (mk(64), mk(16), mk(16))
    };
    let bufs = std::rc::Rc::new(bufs);
    let (al, be) = (Coef::Host(1.0f64), Coef::Host(0.5f64));
    let (u, l, nu) = (Uplo::Upper, Uplo::Lower, Diag::NonUnit);
    let mut cases: Vec<(&str, Call)> = vec![];
    macro_rules! case {
        ($name:expr, |$h:ident, $a:ident, $x:ident, $y:ident| $body:expr) => {{
            let b = bufs.clone();
            cases.push((
                $name,
                Box::new(move |$h: &mut Handle, ph: bool| {
                    let ($a, $x, mut $y) = b(ph);
                    let $y = &mut $y;
                    $body
                }),
            ));
        }};
    }
    case!("gemv N m = lda = usize::MAX", |h, a, x, y| blas2::gemv(
        h,
        Op::N,
        usize::MAX,
        2,
        al,
        &a,
        usize::MAX,
        &x,
        1,
        be,
        y,
        1
    ));
    case!("gemv T m = lda = usize::MAX", |h, a, x, y| blas2::gemv(
        h,
        Op::T,
        usize::MAX,
        2,
        al,
        &a,
        usize::MAX,
        &x,
        1,
        be,
        y,
        1
    ));
    case!("gemv_strided stride_a = usize::MAX / 2", |h, a, x, y| {
        blas2::gemv_strided_batched(
            h,
            Op::N,
            2,
            2,
            al,
            &a,
            2,
            usize::MAX / 2,
            &x,
            1,
            2,
            be,
            y,
            1,
            2,
            4,
        )
    });
    case!("symv n = lda = 2^40", |h, a, x, y| blas2::symv(
        h,
        u,
        1 << 40,
        al,
        &a,
        1 << 40,
        &x,
        1,
        be,
        y,
        1
    ));
    case!("trmv n = lda = 2^62", |h, a, _x, y| blas2::trmv(
        h,
        u,
        Op::N,
        nu,
        1 << 62,
        &a,
        1 << 62,
        y,
        1
    ));
    case!("trmv n = 4, incx = isize::MAX", |h, a, _x, y| blas2::trmv(
        h,
        u,
        Op::N,
        nu,
        4,
        &a,
        4,
        y,
        isize::MAX
    ));
    case!("tbmv n = 2^62, k = n - 1", |h, a, _x, y| blas2::tbmv(
        h,
        l,
        Op::T,
        nu,
        1 << 62,
        (1 << 62) - 1,
        &a,
        1 << 62,
        y,
        1
    ));
    case!("tpmv n = usize::MAX / 2", |h, a, _x, y| blas2::tpmv(
        h,
        u,
        Op::N,
        nu,
        usize::MAX / 2,
        &a,
        y,
        1
    ));
    case!("trsv n = lda = 2^40", |h, a, _x, y| blas2::trsv(
        h,
        l,
        Op::C,
        nu,
        1 << 40,
        &a,
        1 << 40,
        y,
        1
    ));
    let mut failures = vec![];
    for (name, f) in &cases {
        for query in [false, true] {
            let mut h = handle(dev);
            if query {
                h.start_device_memory_size_query().unwrap();
            }
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut h, query)));
            let label = if query { "during a query" } else { "" };
            match r {
                Err(p) => {
                    let msg = p
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    failures.push(format!("{name} {label}: panicked: {msg}"));
                }
                Ok(Err(Error::InvalidSize(_))) => {}
                Ok(r) if !query => failures.push(format!("{name}: {r:?}, want InvalidSize")),
                Ok(_) => {}
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

fn f7_placeholders_other_devices_and_list_lengths_are_errors(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let a = up(64);
    let x = up(16);
    let mut o = Outs::new(dev, &[16, 16, 16]);
    let (al, be) = (Coef::Host(1.0f64), Coef::Host(0.5f64));
    let (u, nu) = (Uplo::Upper, Diag::NonUnit);
    let pa = DeviceBuffer::<f64>::placeholder(64);
    let px = DeviceBuffer::<f64>::placeholder(16);
    let other = Device::host();
    let oa = other.upload(&vec![0.5f64; 64]).unwrap();
    let ox = other.upload(&[0.5f64; 16]).unwrap();
    {
        let [y, y1, y2] = &mut o.bufs[..] else {
            unreachable!()
        };
        // Placeholders outside a query.
        let r = blas2::gemv(&mut h, Op::N, 4, 4, al, &pa, 4, &x, 1, be, y, 1);
        expect_err(r, is_pointer, &["placeholder"], "gemv A placeholder");
        let r = blas2::symv(&mut h, u, 4, al, &a, 4, &px, 1, be, y, 1);
        expect_err(r, is_pointer, &["placeholder"], "symv x placeholder");
        let r = blas2::trsv(&mut h, u, Op::N, nu, 4, &pa, 4, y, 1);
        expect_err(r, is_pointer, &["placeholder"], "trsv A placeholder");
        let mut py = DeviceBuffer::<f64>::placeholder(16);
        let r = blas2::gemv(&mut h, Op::N, 4, 4, al, &a, 4, &x, 1, be, &mut py, 1);
        expect_err(r, is_pointer, &["placeholder"], "gemv y placeholder");
        let r = blas2::trmv(&mut h, u, Op::N, nu, 4, &a, 4, &mut py, 1);
        expect_err(r, is_pointer, &["placeholder"], "trmv x placeholder");
        let r = blas2::gemv_batched(
            &mut h,
            Op::T,
            4,
            4,
            al,
            &[&a, &pa],
            4,
            &[&x, &x],
            1,
            be,
            &mut [&mut *y1, &mut *y2],
            1,
        );
        expect_err(r, is_pointer, &["placeholder", "A[1]"], "gemv_batched A[1]");
        // Buffers of another device.
        let r = blas2::gemv(&mut h, Op::N, 4, 4, al, &oa, 4, &x, 1, be, y, 1);
        expect_err(r, is_pointer, &[], "gemv A on another device");
        let r = blas2::hemv(
            &mut h,
            u,
            2,
            Coef::Host(Complex64::new(1.0, 0.0)),
            &dev.upload(&[Complex64::new(1.0, 0.0); 4]).unwrap(),
            2,
            &other.upload(&[Complex64::new(1.0, 0.0); 2]).unwrap(),
            1,
            Coef::Host(Complex64::new(0.0, 0.0)),
            &mut dev.upload(&[Complex64::new(9.0, 9.0); 2]).unwrap(),
            1,
        );
        expect_err(r, is_pointer, &[], "hemv x on another device");
        let r = blas2::gemv_strided_batched(
            &mut h,
            Op::N,
            4,
            4,
            al,
            &a,
            4,
            16,
            &ox,
            1,
            4,
            be,
            y,
            1,
            4,
            2,
        );
        expect_err(r, is_pointer, &[], "gemv_strided x on another device");
        let mut oy = other.upload(&[1.0f64; 16]).unwrap();
        let r = blas2::trmv(&mut h, u, Op::N, nu, 4, &a, 4, &mut oy, 1);
        expect_err(r, is_pointer, &[], "trmv x on another device");
        assert_eq!(oy.to_vec().unwrap(), vec![1.0; 16]);
        let r = blas2::tpmv_batched(
            &mut h,
            u,
            Op::N,
            nu,
            4,
            &[&a, &oa],
            &mut [&mut *y1, &mut *y2],
            1,
        );
        expect_err(
            r,
            is_pointer,
            &["A[1]"],
            "tpmv_batched A[1] on another device",
        );
        // Lists of different lengths.
        let r = blas2::gemv_batched(
            &mut h,
            Op::N,
            4,
            4,
            al,
            &[&a, &a],
            4,
            &[&x, &x],
            1,
            be,
            &mut [&mut *y1],
            1,
        );
        expect_err(r, is_size, &["2", "1"], "gemv_batched y list shorter");
        let r = blas2::symv_batched(
            &mut h,
            u,
            4,
            al,
            &[&a, &a],
            4,
            &[&x, &x, &x],
            1,
            be,
            &mut [&mut *y1, &mut *y2],
            1,
        );
        expect_err(r, is_size, &["2", "3"], "symv_batched x list longer");
        let r = blas2::trmv_batched(
            &mut h,
            u,
            Op::T,
            nu,
            4,
            &[&a],
            4,
            &mut [&mut *y1, &mut *y2],
            1,
        );
        expect_err(r, is_size, &["1", "2"], "trmv_batched x list longer");
    }
    o.check();
}

fn f9_overlapping_strided_outputs_are_invalid(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let a = up(64);
    let x = up(32);
    let mut o = Outs::new(dev, &[32]);
    let (al, be) = (Coef::Host(1.0f64), Coef::Host(0.5f64));
    let (u, nu) = (Uplo::Upper, Diag::NonUnit);
    {
        let y = &mut o.bufs[0];
        let r = blas2::gemv_strided_batched(
            &mut h,
            Op::N,
            5,
            3,
            al,
            &a,
            5,
            15,
            &x,
            1,
            3,
            be,
            y,
            1,
            4,
            2,
        );
        expect_err(
            r,
            is_value,
            &["overlap", "stride_y = 4", "5"],
            "gemv y stride 4 < 5",
        );
        let r = blas2::gemv_strided_batched(
            &mut h,
            Op::T,
            3,
            3,
            al,
            &a,
            3,
            0,
            &x,
            1,
            0,
            be,
            y,
            2,
            4,
            3,
        );
        expect_err(r, is_value, &["overlap", "stride_y = 4"], "gemv y incy 2");
        let r = blas2::symv_strided_batched(&mut h, u, 4, al, &a, 4, 0, &x, 1, 0, be, y, -1, 0, 2);
        expect_err(r, is_value, &["overlap", "stride_y = 0"], "symv y stride 0");
        let r = blas2::trmv_strided_batched(&mut h, u, Op::N, nu, 4, &a, 4, 0, y, 1, 0, 2);
        expect_err(r, is_value, &["overlap", "stride_x = 0"], "trmv x stride 0");
        let r = blas2::tbmv_strided_batched(&mut h, u, Op::N, nu, 4, 1, &a, 2, 0, y, 2, 6, 3);
        expect_err(
            r,
            is_value,
            &["overlap", "stride_x = 6"],
            "tbmv x stride 6 < 7",
        );
        let r = blas2::tpmv_strided_batched(&mut h, u, Op::N, nu, 4, &a, 0, y, 1, 3, 2);
        expect_err(r, is_value, &["overlap", "stride_x = 3"], "tpmv x stride 3");
        let r = blas2::trsv_strided_batched(&mut h, u, Op::N, nu, 4, &a, 4, 0, y, 1, 1, 2);
        expect_err(r, is_value, &["overlap", "stride_x = 1"], "trsv x stride 1");
    }
    o.check();
    // A stride of 0 is fine for a batch of one (nothing to overlap with).
    let y = &mut o.bufs[0];
    let st =
        blas2::trmv_strided_batched(&mut h, u, Op::N, Diag::Unit, 4, &a, 4, 0, y, 1, 0, 1).unwrap();
    assert_eq!(st, Status::Success);
}

fn f10_bad_device_scalars_are_errors(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let a = up(64);
    let x = up(32);
    let mut o = Outs::new(dev, &[32, 8, 8, 8]);
    let be = Coef::Host(0.5f64);
    let ph = DeviceBuffer::<f64>::placeholder(4);
    let empty = dev.upload::<f64>(&[]).unwrap();
    let two = up(2);
    let other = Device::host().upload(&[1.0f64; 4]).unwrap();
    {
        let [y, y1, y2, y3] = &mut o.bufs[..] else {
            unreachable!()
        };
        let r = blas2::gemv(
            &mut h,
            Op::N,
            4,
            4,
            Coef::Device(&ph),
            &a,
            4,
            &x,
            1,
            be,
            y,
            1,
        );
        expect_err(
            r,
            is_pointer,
            &["placeholder", "alpha"],
            "alpha placeholder",
        );
        let r = blas2::symv(
            &mut h,
            Uplo::Lower,
            4,
            be,
            &a,
            4,
            &x,
            1,
            Coef::Device(&ph),
            y,
            1,
        );
        expect_err(r, is_pointer, &["placeholder", "beta"], "beta placeholder");
        let r = blas2::gemv(
            &mut h,
            Op::T,
            4,
            4,
            Coef::Device(&empty),
            &a,
            4,
            &x,
            1,
            be,
            y,
            1,
        );
        expect_err(
            r,
            is_value,
            &["alpha", "has 0 elements", "needs 1"],
            "alpha empty",
        );
        let r = blas2::gemv(
            &mut h,
            Op::T,
            4,
            4,
            Coef::Device(&other),
            &a,
            4,
            &x,
            1,
            be,
            y,
            1,
        );
        expect_err(r, is_pointer, &["alpha"], "alpha on another device");
        let r = blas2::gemv_strided_batched(
            &mut h,
            Op::N,
            4,
            4,
            Coef::DevicePerEntry(&two),
            &a,
            4,
            16,
            &x,
            1,
            4,
            be,
            y,
            1,
            4,
            3,
        );
        expect_err(
            r,
            is_value,
            &["alpha", "has 2 elements", "needs 3"],
            "alpha per entry too short",
        );
        let r = blas2::gemv_batched(
            &mut h,
            Op::N,
            4,
            4,
            be,
            &[&a, &a, &a],
            4,
            &[&x, &x, &x],
            1,
            Coef::DevicePerEntry(&two),
            &mut [&mut *y1, &mut *y2, &mut *y3],
            1,
        );
        expect_err(
            r,
            is_value,
            &["beta", "has 2 elements", "needs 3"],
            "beta per entry too short",
        );
        let r = blas2::symv_strided_batched(
            &mut h,
            Uplo::Upper,
            4,
            Coef::DevicePerEntry(&ph),
            &a,
            4,
            16,
            &x,
            1,
            4,
            be,
            y,
            1,
            4,
            2,
        );
        expect_err(
            r,
            is_pointer,
            &["placeholder"],
            "per-entry alpha placeholder",
        );
    }
    o.check();
}

crate::on_both_backends!(
    f7_bad_sizes_and_short_buffers_are_errors_with_outputs_untouched,
    f7_placeholders_other_devices_and_list_lengths_are_errors,
    f7_huge_sizes_are_invalid_size_never_a_panic,
    f9_overlapping_strided_outputs_are_invalid,
    f10_bad_device_scalars_are_errors,
);
