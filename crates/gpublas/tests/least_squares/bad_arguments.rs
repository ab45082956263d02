//! F2, F7, F9: bad arguments, and outputs that would overlap.

use super::*;
use crate::common::errors::Outs;

/// gelqf: leading dimensions, short `A` and `tau` (single, list entry, strided batch),
/// overlapping outputs (`stride_tau < min(m, n)`, `stride_a` below an entry's span in a batch
/// of more than one), placeholders outside a query: each the right error naming the values
/// involved, every output bit for bit as it was.
fn f2_gelqf_bad_arguments_name_values(dev: &Device) {
    let mut h = handle(dev);
    let mut o = Outs::<f64>::new(dev, &[64, 64, 64, 24, 26, 16, 2, 10]);
    {
        let [b, b1, b2, b24, b26, tau, tau2, tau10] = &mut o.bufs[..] else {
            unreachable!()
        };
        let e = solver::gelqf(&mut h, 6, 4, b, 5, tau);
        expect_err(e, is_size, &["gelqf", "lda = 5", "6"], "gelqf lda < m");
        let e = solver::gelqf(&mut h, 0, 4, b, 0, tau);
        expect_err(e, is_size, &["lda = 0"], "gelqf lda = 0 with m = 0");
        let e = solver::gelqf_batched(&mut h, 4, 4, &mut [&mut *b1, &mut *b2], 3, tau, 4);
        expect_err(
            e,
            is_size,
            &["gelqf_batched", "lda = 3", "4"],
            "gelqf_batched lda < m",
        );
        let e = solver::gelqf_strided_batched(&mut h, 5, 2, b, 4, 10, tau, 2, 2);
        expect_err(
            e,
            is_size,
            &["gelqf_strided_batched", "lda = 4", "5"],
            "gelqf_strided lda < m",
        );
        // tau short: (batch − 1) stride_tau + min(m, n) scalars.
        let e = solver::gelqf(&mut h, 5, 3, b, 5, tau2);
        expect_err(
            e,
            is_value,
            &["gelqf", "tau", "2", "3"],
            "gelqf tall tau short",
        );
        let e = solver::gelqf(&mut h, 3, 5, b, 3, tau2);
        expect_err(
            e,
            is_value,
            &["gelqf", "tau", "2", "3"],
            "gelqf wide tau short",
        );
        let e = solver::gelqf_strided_batched(&mut h, 3, 3, b, 3, 9, tau10, 4, 3);
        expect_err(e, is_value, &["tau", "10", "11"], "gelqf_strided tau short");
        let e = solver::gelqf_batched(&mut h, 2, 4, &mut [&mut *b1, &mut *b2], 2, tau2, 2);
        expect_err(e, is_value, &["tau", "2", "4"], "gelqf_batched tau short");
        // A short.
        let e = solver::gelqf(&mut h, 5, 5, b24, 5, tau);
        expect_err(e, is_value, &["gelqf", "24", "25"], "gelqf A short");
        let e = solver::gelqf_strided_batched(&mut h, 3, 3, b26, 3, 9, tau, 3, 3);
        expect_err(
            e,
            is_value,
            &["26", "27", "stride_a = 9"],
            "gelqf_strided A short",
        );
        let e = solver::gelqf_batched(&mut h, 5, 5, &mut [&mut *b1, &mut *b24], 5, tau, 5);
        expect_err(
            e,
            is_value,
            &["[1]", "24", "25"],
            "gelqf_batched A[1] short",
        );
        // Overlapping outputs (F9).
        let e = solver::gelqf_strided_batched(&mut h, 4, 3, b, 4, 12, tau, 2, 2);
        expect_err(
            e,
            is_value,
            &["gelqf_strided_batched", "stride_tau = 2"],
            "gelqf tau stride 2 < 3",
        );
        let e = solver::gelqf_batched(&mut h, 3, 3, &mut [&mut *b1, &mut *b2], 3, tau, 0);
        expect_err(
            e,
            is_value,
            &["gelqf_batched", "stride_tau = 0"],
            "gelqf list tau stride 0",
        );
        let e = solver::gelqf_strided_batched(&mut h, 3, 3, b, 3, 8, tau, 3, 2);
        expect_err(e, is_value, &["stride_a = 8"], "gelqf A stride 8 < 9");
        // Placeholders outside a query.
        let mut pb = DeviceBuffer::<f64>::placeholder(64);
        let e = solver::gelqf(&mut h, 4, 4, &mut pb, 4, tau);
        expect_err(e, is_pointer, &["placeholder"], "gelqf A placeholder");
        let mut pt = DeviceBuffer::<f64>::placeholder(16);
        let e = solver::gelqf(&mut h, 4, 4, b, 4, &mut pt);
        expect_err(e, is_pointer, &["placeholder"], "gelqf tau placeholder");
    }
    o.check();
    expect_errs_done();
}

/// ormlq: `lda < k` (A is `k × nq`, its rows the vectors), `ldc < m`, `k` above the order of
/// `Q` on either side, lists of different lengths, short `tau`, `A` and `C`, overlapping `C`s,
/// placeholders outside a query, complex `op = T`: each the right error naming the values
/// involved, `C` bit for bit as it was.
fn f2_ormlq_bad_arguments_name_values(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let upt = |v: usize| dev.upload(&vec![1.5f64; v]).unwrap();
    let (a, a14) = (up(64), up(14));
    let (t, t2, t8) = (upt(16), upt(2), upt(8));
    let pa = DeviceBuffer::<f64>::placeholder(64);
    let pt = DeviceBuffer::<f64>::placeholder(16);
    let mut o = Outs::<f64>::new(dev, &[64, 64, 64, 24, 26]);
    {
        let [b, b1, b2, b24, b26] = &mut o.bufs[..] else {
            unreachable!()
        };
        let e = solver::ormlq(&mut h, Side::Left, Op::N, 6, 4, 3, &a, 2, &t, b, 6);
        expect_err(e, is_size, &["ormlq", "lda = 2", "3"], "ormlq lda < k");
        let e = solver::ormlq(&mut h, Side::Right, Op::T, 4, 6, 5, &a, 4, &t, b, 4);
        expect_err(
            e,
            is_size,
            &["ormlq", "lda = 4", "5"],
            "ormlq Right lda < k",
        );
        let e = solver::ormlq(&mut h, Side::Left, Op::C, 4, 3, 2, &a, 2, &t, b, 3);
        expect_err(e, is_size, &["ormlq", "ldc = 3", "4"], "ormlq Left ldc < m");
        let e = solver::ormlq(&mut h, Side::Right, Op::N, 4, 3, 2, &a, 2, &t, b, 3);
        expect_err(
            e,
            is_size,
            &["ormlq", "ldc = 3", "4"],
            "ormlq Right ldc < m",
        );
        let e = solver::ormlq_batched(
            &mut h,
            Side::Left,
            Op::T,
            3,
            3,
            2,
            &[&a],
            1,
            &t,
            2,
            &mut [&mut *b1],
            3,
        );
        expect_err(
            e,
            is_size,
            &["ormlq_batched", "lda = 1", "2"],
            "ormlq_batched lda < k",
        );
        let e = solver::ormlq_strided_batched(
            &mut h,
            Side::Right,
            Op::N,
            3,
            4,
            2,
            &a,
            2,
            8,
            &t,
            2,
            b,
            2,
            12,
            2,
        );
        expect_err(
            e,
            is_size,
            &["ormlq_strided_batched", "ldc = 2", "3"],
            "ormlq_strided ldc",
        );
        // k above the order of Q.
        let e = solver::ormlq(&mut h, Side::Left, Op::N, 4, 6, 5, &a, 5, &t, b, 4);
        expect_err(e, is_size, &["ormlq", "k = 5", "4"], "ormlq Left k > m");
        let e = solver::ormlq(&mut h, Side::Right, Op::C, 6, 3, 4, &a, 4, &t, b, 6);
        expect_err(e, is_size, &["ormlq", "k = 4", "3"], "ormlq Right k > n");
        // Lists of different lengths.
        let e = solver::ormlq_batched(
            &mut h,
            Side::Left,
            Op::N,
            3,
            3,
            2,
            &[&a, &a, &a],
            2,
            &t,
            2,
            &mut [&mut *b1, &mut *b2],
            3,
        );
        expect_err(
            e,
            is_size,
            &["ormlq_batched", "3", "2"],
            "ormlq_batched A list longer than C's",
        );
        // tau short: (batch − 1) stride_tau + k scalars.
        let e = solver::ormlq(&mut h, Side::Left, Op::N, 5, 2, 3, &a, 3, &t2, b, 5);
        expect_err(e, is_value, &["ormlq", "tau", "2", "3"], "ormlq tau short");
        let e = solver::ormlq_batched(
            &mut h,
            Side::Right,
            Op::C,
            2,
            4,
            3,
            &[&a, &a],
            3,
            &t8,
            6,
            &mut [&mut *b1, &mut *b2],
            2,
        );
        expect_err(e, is_value, &["tau", "8", "9"], "ormlq_batched tau short");
        // A (k × nq at lda) and C short.
        let e = solver::ormlq(&mut h, Side::Left, Op::N, 5, 3, 3, &a14, 3, &t, b, 5);
        expect_err(e, is_value, &["ormlq", "14", "15"], "ormlq A short");
        let e = solver::ormlq(&mut h, Side::Right, Op::C, 5, 5, 2, &a, 2, &t, b24, 5);
        expect_err(e, is_value, &["ormlq", "24", "25"], "ormlq C short");
        let e = solver::ormlq_strided_batched(
            &mut h,
            Side::Left,
            Op::N,
            3,
            3,
            3,
            &a,
            3,
            9,
            &t,
            3,
            b26,
            3,
            9,
            3,
        );
        expect_err(
            e,
            is_value,
            &["26", "27", "stride_c = 9"],
            "ormlq_strided C short",
        );
        // Overlapping outputs (F9); inputs may overlap (stride_a = stride_tau = 0 is fine).
        let e = solver::ormlq_strided_batched(
            &mut h,
            Side::Left,
            Op::N,
            3,
            2,
            2,
            &a,
            2,
            0,
            &t,
            0,
            b,
            3,
            5,
            2,
        );
        expect_err(
            e,
            is_value,
            &["ormlq_strided_batched", "stride_c = 5"],
            "ormlq C stride 5 < 6",
        );
        // Placeholders outside a query.
        let e = solver::ormlq(&mut h, Side::Left, Op::N, 4, 4, 4, &pa, 4, &t, b, 4);
        expect_err(e, is_pointer, &["placeholder"], "ormlq A placeholder");
        let e = solver::ormlq(&mut h, Side::Left, Op::N, 4, 4, 4, &a, 4, &pt, b, 4);
        expect_err(e, is_pointer, &["placeholder"], "ormlq tau placeholder");
    }
    o.check();
    ormlq_op_t_is_invalid_for_complex::<Complex32>(dev, &mut h);
    ormlq_op_t_is_invalid_for_complex::<Complex64>(dev, &mut h);
    expect_errs_done();
}

/// Complex ormlq with `Op::T` (LAPACK's `zunmlq` has no transpose without conjugation):
/// `InvalidValue` in every form, `C` untouched.
fn ormlq_op_t_is_invalid_for_complex<E: T>(dev: &Device, h: &mut Handle) {
    let a = dev.upload(&[E::make(0.5, 0.25); 64]).unwrap();
    let t = dev.upload(&[E::make(1.5, 0.5); 16]).unwrap();
    let mut o = Outs::<E>::new(dev, &[64, 64, 64]);
    {
        let [b, b1, b2] = &mut o.bufs[..] else {
            unreachable!()
        };
        let w = format!("{} ormlq Op::T", E::NAME);
        let e = solver::unmlq(h, Side::Left, Op::T, 4, 4, 2, &a, 2, &t, b, 4);
        expect_err(e, is_value, &["ormlq", "op = T"], &w);
        let e = solver::ormlq_batched(
            h,
            Side::Right,
            Op::T,
            4,
            4,
            2,
            &[&a, &a],
            2,
            &t,
            2,
            &mut [&mut *b1, &mut *b2],
            4,
        );
        expect_err(e, is_value, &["ormlq_batched"], &w);
        let e = solver::unmlq_strided_batched(
            h,
            Side::Left,
            Op::T,
            3,
            3,
            3,
            &a,
            3,
            9,
            &t,
            3,
            b,
            3,
            9,
            2,
        );
        expect_err(e, is_value, &["ormlq_strided_batched"], &w);
    }
    o.check();
}

/// gels: `lda < m`, `ldb < max(m, n)` (above `m` but below `n`, and the other way), lists of
/// different lengths, `info` too short (host and device) or a placeholder, short `A` and `B`,
/// overlapping outputs, placeholders outside a query, complex `trans = T`: each the right
/// error naming the values involved, `A`, `B` and `info` bit for bit as they were.
fn f2_gels_bad_arguments_name_values(dev: &Device) {
    let mut h = handle(dev);
    let mut o = Outs::<f64>::new(dev, &[64, 64, 64, 64, 64, 24, 26]);
    let mut info_host = vec![INFO_POISON; 4];
    let mut info1 = vec![INFO_POISON; 1];
    let mut info_dev = dev.upload(&[INFO_POISON; 4]).unwrap();
    let mut info_dev1 = dev.upload(&[INFO_POISON; 1]).unwrap();
    {
        let [a, a2, b, b1, b2, b24, b26] = &mut o.bufs[..] else {
            unreachable!()
        };
        use gpublas::Results::{Device as D, Host as H};
        let e = solver::gels(&mut h, Op::N, 6, 4, 1, a, 5, b, 6, H(&mut info_host));
        expect_err(e, is_size, &["gels", "lda = 5", "6"], "gels lda < m");
        let e = solver::gels(&mut h, Op::T, 3, 5, 2, a, 3, b, 4, H(&mut info_host));
        expect_err(
            e,
            is_size,
            &["gels", "ldb = 4", "5"],
            "gels wide ldb ≥ m but < n",
        );
        let e = solver::gels(&mut h, Op::N, 5, 3, 2, a, 5, b, 4, D(&mut info_dev));
        expect_err(
            e,
            is_size,
            &["gels", "ldb = 4", "5"],
            "gels tall ldb ≥ n but < m",
        );
        let e = solver::gels_batched(
            &mut h,
            Op::N,
            3,
            5,
            1,
            &mut [&mut *a],
            3,
            &mut [&mut *b1],
            3,
            H(&mut info_host),
        );
        expect_err(
            e,
            is_size,
            &["gels_batched", "ldb = 3", "5"],
            "gels_batched ldb < n",
        );
        let e = solver::gels_strided_batched(
            &mut h,
            Op::T,
            4,
            2,
            1,
            a,
            3,
            8,
            b,
            4,
            4,
            H(&mut info_host),
            2,
        );
        expect_err(
            e,
            is_size,
            &["gels_strided_batched", "lda = 3", "4"],
            "gels_strided lda < m",
        );
        // Lists of different lengths.
        let e = solver::gels_batched(
            &mut h,
            Op::N,
            3,
            3,
            1,
            &mut [&mut *a, &mut *a2],
            3,
            &mut [&mut *b, &mut *b1, &mut *b2],
            3,
            H(&mut info_host),
        );
        expect_err(
            e,
            is_size,
            &["gels_batched", "2", "3"],
            "gels_batched A list shorter than B's",
        );
        // info: one per entry, device memory of the handle's device.
        let e = solver::gels_batched(
            &mut h,
            Op::N,
            3,
            3,
            1,
            &mut [&mut *a, &mut *a2],
            3,
            &mut [&mut *b1, &mut *b2],
            3,
            H(&mut info1),
        );
        expect_err(
            e,
            is_value,
            &["gels_batched", "info", "1", "2"],
            "gels host info short",
        );
        let e = solver::gels_strided_batched(
            &mut h,
            Op::N,
            3,
            3,
            1,
            a,
            3,
            9,
            b,
            3,
            3,
            D(&mut info_dev1),
            3,
        );
        expect_err(
            e,
            is_value,
            &["gels_strided_batched", "info", "1", "3"],
            "gels device info short",
        );
        let mut pinfo = DeviceBuffer::<i32>::placeholder(4);
        let e = solver::gels(&mut h, Op::N, 3, 3, 1, a, 3, b, 3, D(&mut pinfo));
        expect_err(e, is_pointer, &["gels", "info"], "gels info placeholder");
        // A and B short.
        let e = solver::gels(&mut h, Op::N, 5, 5, 1, b24, 5, b, 5, H(&mut info_host));
        expect_err(e, is_value, &["gels", "24", "25"], "gels A short");
        let e = solver::gels(&mut h, Op::T, 3, 5, 5, a, 3, b24, 5, H(&mut info_host));
        expect_err(e, is_value, &["gels", "24", "25"], "gels B short");
        let e = solver::gels_strided_batched(
            &mut h,
            Op::N,
            3,
            3,
            1,
            b26,
            3,
            9,
            b,
            3,
            3,
            H(&mut info_host),
            3,
        );
        expect_err(
            e,
            is_value,
            &["26", "27", "stride_a = 9"],
            "gels_strided A short",
        );
        let e = solver::gels_batched(
            &mut h,
            Op::N,
            5,
            5,
            5,
            &mut [&mut *a, &mut *a2],
            5,
            &mut [&mut *b1, &mut *b24],
            5,
            H(&mut info_host),
        );
        expect_err(
            e,
            is_value,
            &["B[1]", "24", "25"],
            "gels_batched B[1] short",
        );
        // Overlapping outputs (F9): A and B are both written.
        let e = solver::gels_strided_batched(
            &mut h,
            Op::N,
            3,
            3,
            1,
            a,
            3,
            8,
            b,
            3,
            3,
            H(&mut info_host),
            2,
        );
        expect_err(e, is_value, &["stride_a = 8"], "gels A stride 8 < 9");
        let e = solver::gels_strided_batched(
            &mut h,
            Op::N,
            4,
            2,
            2,
            a,
            4,
            8,
            b,
            4,
            0,
            H(&mut info_host),
            2,
        );
        expect_err(e, is_value, &["stride_b = 0"], "gels B stride 0");
        // Placeholders outside a query.
        let mut pa = DeviceBuffer::<f64>::placeholder(64);
        let e = solver::gels(&mut h, Op::N, 4, 4, 1, &mut pa, 4, b, 4, H(&mut info_host));
        expect_err(e, is_pointer, &["placeholder"], "gels A placeholder");
        let e = solver::gels(&mut h, Op::N, 4, 4, 1, a, 4, &mut pa, 4, H(&mut info_host));
        expect_err(e, is_pointer, &["placeholder"], "gels B placeholder");
    }
    o.check();
    assert_eq!(info_host, vec![INFO_POISON; 4], "host info written");
    assert_eq!(info1, vec![INFO_POISON; 1], "host info written");
    assert_eq!(
        info_dev.to_vec().unwrap(),
        vec![INFO_POISON; 4],
        "device info written"
    );
    assert_eq!(
        info_dev1.to_vec().unwrap(),
        vec![INFO_POISON; 1],
        "device info written"
    );
    gels_trans_t_is_invalid_for_complex::<Complex32>(dev, &mut h);
    gels_trans_t_is_invalid_for_complex::<Complex64>(dev, &mut h);
    expect_errs_done();
}

/// Complex gels with `trans = T` (LAPACK's `zgels` takes `N` or `C`): `InvalidValue` in every
/// form, `A`, `B` and `info` untouched.
fn gels_trans_t_is_invalid_for_complex<E: T>(dev: &Device, h: &mut Handle) {
    let mut o = Outs::<E>::new(dev, &[64, 64, 64, 64, 64]);
    let mut info = vec![INFO_POISON; 3];
    let mut info_dev = dev.upload(&[INFO_POISON; 3]).unwrap();
    {
        let [a, b, a1, b1, a2] = &mut o.bufs[..] else {
            unreachable!()
        };
        use gpublas::Results::{Device as D, Host as H};
        let w = format!("{} gels trans = T", E::NAME);
        let e = solver::gels(h, Op::T, 4, 3, 2, a, 4, b, 4, H(&mut info));
        expect_err(e, is_value, &["gels", "trans = T"], &w);
        let e = solver::gels_batched(
            h,
            Op::T,
            3,
            4,
            1,
            &mut [&mut *a1],
            3,
            &mut [&mut *b1],
            4,
            D(&mut info_dev),
        );
        expect_err(e, is_value, &["gels_batched"], &w);
        let e = solver::gels_strided_batched(h, Op::T, 3, 3, 1, a2, 3, 9, b, 3, 3, H(&mut info), 2);
        expect_err(e, is_value, &["gels_strided_batched"], &w);
    }
    o.check();
    assert_eq!(info, vec![INFO_POISON; 3], "{}: host info written", E::NAME);
    assert_eq!(info_dev.to_vec().unwrap(), vec![INFO_POISON; 3]);
}

crate::on_both_backends!(
    f2_gelqf_bad_arguments_name_values,
    f2_ormlq_bad_arguments_name_values,
    f2_gels_bad_arguments_name_values,
);
