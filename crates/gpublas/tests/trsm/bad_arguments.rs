//! F7, F9, F10: bad arguments.

use super::*;
use crate::common::errors::{expect_err, is_pointer, is_size, is_value, Outs};

fn f7_bad_leading_dimensions_are_invalid_size_naming_them(dev: &Device) {
    let mut h = handle(dev);
    let a = dev.upload(&[0.5f64; 64]).unwrap();
    let al = Coef::Host(1.0f64);
    let mut o = Outs::<f64>::new(dev, &[64, 64, 64]);
    {
        let [b, b1, b2] = &mut o.bufs[..] else {
            unreachable!()
        };
        let r = blas3::trsm(&mut h, L, UP, ON, NU, 6, 4, al, &a, 5, b, 6);
        expect_err(r, is_size, &["trsm", "lda = 5", "6"], "trsm Left lda < m");
        let r = blas3::trsm(&mut h, R, LO, OT, UN, 4, 6, al, &a, 5, b, 4);
        expect_err(r, is_size, &["lda = 5", "6"], "trsm Right lda < n");
        let r = blas3::trsm(&mut h, L, UP, OC, NU, 4, 2, al, &a, 4, b, 3);
        expect_err(r, is_size, &["ldb = 3", "4"], "trsm ldb < m");
        let r = blas3::trsm(&mut h, R, UP, ON, NU, 0, 3, al, &a, 3, b, 0);
        expect_err(r, is_size, &["ldb = 0", "1"], "trsm ldb = 0 with m = 0");
        let r = blas3::trsm(&mut h, L, LO, ON, NU, 0, 3, al, &a, 0, b, 1);
        expect_err(r, is_size, &["lda = 0", "1"], "trsm lda = 0 with m = 0");
        let r = blas3::trsm_batched(
            &mut h,
            L,
            LO,
            ON,
            NU,
            4,
            3,
            al,
            &[&a, &a],
            4,
            &mut [&mut *b1, &mut *b2],
            3,
        );
        expect_err(
            r,
            is_size,
            &["trsm_batched", "ldb = 3", "4"],
            "trsm_batched ldb < m",
        );
        let r = blas3::trsm_strided_batched(&mut h, R, UP, OC, UN, 5, 3, al, &a, 2, 0, b, 5, 15, 2);
        expect_err(
            r,
            is_size,
            &["trsm_strided_batched", "lda = 2", "3"],
            "trsm_strided lda < n",
        );
        let inv = TrsmMethod::Inverse((&a, 4));
        let r = blas3::trsm_ex(&mut h, L, UP, ON, NU, 5, 2, al, &a, 5, b, 5, inv);
        expect_err(
            r,
            is_size,
            &["trsm_ex", "ldinv = 4", "5"],
            "trsm_ex ldinv < m",
        );
        let sub = TrsmMethod::Substitute;
        let r = blas3::trsm_ex(&mut h, R, LO, OT, NU, 2, 5, al, &a, 4, b, 2, sub);
        expect_err(r, is_size, &["lda = 4", "5"], "trsm_ex Substitute lda < n");
        let list = [&a, &a];
        let r = blas3::trsm_ex_batched(
            &mut h,
            L,
            UP,
            OT,
            UN,
            3,
            2,
            al,
            &list,
            3,
            &mut [&mut *b1, &mut *b2],
            3,
            TrsmMethod::Inverse((&list, 2)),
        );
        expect_err(
            r,
            is_size,
            &["trsm_ex_batched", "ldinv = 2", "3"],
            "trsm_ex_batched ldinv < m",
        );
        let r = blas3::trsm_ex_strided_batched(
            &mut h,
            R,
            LO,
            OT,
            NU,
            2,
            3,
            al,
            &a,
            3,
            9,
            b,
            2,
            6,
            2,
            TrsmMethod::Inverse((&a, 2, 9)),
        );
        expect_err(r, is_size, &["ldinv = 2", "3"], "trsm_ex_strided ldinv < n");
        // trtri: the output is inv_a.
        let r = blas3::trtri(&mut h, UP, NU, 5, &a, 5, b, 4);
        expect_err(r, is_size, &["trtri", "ldinv = 4", "5"], "trtri ldinv < n");
        let r = blas3::trtri(&mut h, LO, UN, 5, &a, 4, b, 5);
        expect_err(r, is_size, &["lda = 4", "5"], "trtri lda < n");
        let r = blas3::trtri(&mut h, UP, NU, 0, &a, 1, b, 0);
        expect_err(
            r,
            is_size,
            &["ldinv = 0", "1"],
            "trtri ldinv = 0 with n = 0",
        );
        let r = blas3::trtri_batched(&mut h, UP, NU, 3, &[&a], 3, &mut [&mut *b1], 2);
        expect_err(
            r,
            is_size,
            &["trtri_batched", "ldinv = 2", "3"],
            "trtri_batched ldinv < n",
        );
        let r = blas3::trtri_strided_batched(&mut h, LO, NU, 4, &a, 3, 16, b, 4, 16, 2);
        expect_err(
            r,
            is_size,
            &["trtri_strided_batched", "lda = 3", "4"],
            "trtri_strided lda < n",
        );
    }
    o.check();
}

fn f7_short_buffers_batch_counts_placeholders_are_errors(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let a = up(64);
    let a24 = up(24);
    let a26 = up(26);
    let a39 = up(39);
    let one = up(1);
    let pa = DeviceBuffer::<f64>::placeholder(64);
    let al = Coef::Host(1.0f64);
    let mut o = Outs::<f64>::new(dev, &[64, 19, 26, 24, 64, 64]);
    {
        let [b, b19, b26, b24, b1, b2] = &mut o.bufs[..] else {
            unreachable!()
        };
        // One element short.
        let r = blas3::trsm(&mut h, L, UP, ON, NU, 5, 3, al, &a24, 5, b, 5);
        expect_err(
            r,
            is_value,
            &["trsm", "has 24 elements", "needs 25"],
            "trsm A short",
        );
        let r = blas3::trsm(&mut h, R, UP, ON, UN, 4, 5, al, &a, 5, b19, 4);
        expect_err(
            r,
            is_value,
            &["has 19 elements", "needs 20"],
            "trsm B short",
        );
        let inv = TrsmMethod::Inverse((&a24, 5));
        let r = blas3::trsm_ex(&mut h, L, LO, OT, NU, 5, 2, al, &a, 5, b, 5, inv);
        expect_err(
            r,
            is_value,
            &["has 24 elements", "needs 25"],
            "trsm_ex inverse short",
        );
        let r =
            blas3::trsm_strided_batched(&mut h, L, LO, OT, NU, 3, 3, al, &a, 3, 9, b26, 3, 9, 3);
        expect_err(
            r,
            is_value,
            &["has 26 elements", "needs 27", "stride_b = 9"],
            "trsm_strided B short",
        );
        let r =
            blas3::trsm_strided_batched(&mut h, L, UP, ON, NU, 4, 2, al, &a39, 4, 12, b, 4, 8, 3);
        expect_err(
            r,
            is_value,
            &["has 39 elements", "needs 40", "stride_a = 12"],
            "trsm_strided A short",
        );
        let r = blas3::trsm_ex_strided_batched(
            &mut h,
            L,
            UP,
            ON,
            NU,
            3,
            2,
            al,
            &a,
            3,
            9,
            b,
            3,
            6,
            3,
            TrsmMethod::Inverse((&a26, 3, 9)),
        );
        expect_err(
            r,
            is_value,
            &["has 26 elements", "needs 27", "stride_inv = 9"],
            "trsm_ex_strided inverse short",
        );
        let r = blas3::trsm_batched(
            &mut h,
            L,
            UP,
            ON,
            NU,
            5,
            3,
            al,
            &[&a, &a24],
            5,
            &mut [&mut *b1, &mut *b2],
            5,
        );
        expect_err(
            r,
            is_value,
            &["A[1]", "has 24 elements", "needs 25"],
            "trsm_batched A[1] short",
        );
        let list = [&a, &a];
        let r = blas3::trsm_ex_batched(
            &mut h,
            R,
            LO,
            ON,
            NU,
            3,
            5,
            al,
            &list,
            5,
            &mut [&mut *b1, &mut *b2],
            3,
            TrsmMethod::Inverse((&[&a, &a24], 5)),
        );
        expect_err(
            r,
            is_value,
            &["[1]", "has 24 elements", "needs 25"],
            "trsm_ex_batched inverse[1] short",
        );
        let r = blas3::trtri(&mut h, UP, NU, 5, &a24, 5, b, 5);
        expect_err(
            r,
            is_value,
            &["trtri", "has 24 elements", "needs 25"],
            "trtri A short",
        );
        let r = blas3::trtri(&mut h, LO, UN, 5, &a, 5, b24, 5);
        expect_err(
            r,
            is_value,
            &["has 24 elements", "needs 25"],
            "trtri inv_a short",
        );
        let r = blas3::trtri_strided_batched(&mut h, UP, NU, 3, &a, 3, 9, b26, 3, 9, 3);
        expect_err(
            r,
            is_value,
            &["has 26 elements", "needs 27", "stride_inv = 9"],
            "trtri_strided inv_a short",
        );
        // Batch counts that differ.
        let r = blas3::trsm_batched(
            &mut h,
            L,
            UP,
            ON,
            NU,
            4,
            4,
            al,
            &[&a, &a, &a],
            4,
            &mut [&mut *b1, &mut *b2],
            4,
        );
        expect_err(r, is_size, &["3", "2"], "trsm_batched A list longer");
        let r = blas3::trsm_ex_batched(
            &mut h,
            L,
            UP,
            ON,
            NU,
            4,
            4,
            al,
            &list,
            4,
            &mut [&mut *b1, &mut *b2],
            4,
            TrsmMethod::Inverse((&[&a], 4)),
        );
        expect_err(
            r,
            is_size,
            &["2", "1"],
            "trsm_ex_batched inverse list shorter",
        );
        let r = blas3::trsm_ex_batched(
            &mut h,
            R,
            LO,
            OC,
            UN,
            4,
            4,
            al,
            &list,
            4,
            &mut [&mut *b1],
            4,
            TrsmMethod::Substitute,
        );
        expect_err(r, is_size, &["2", "1"], "trsm_ex_batched B list shorter");
        let r = blas3::trtri_batched(&mut h, UP, NU, 4, &[&a, &a], 4, &mut [&mut *b1], 4);
        expect_err(r, is_size, &["2", "1"], "trtri_batched inv_a list shorter");
        let r = blas3::trtri_batched(&mut h, LO, NU, 4, &[&a], 4, &mut [&mut *b1, &mut *b2], 4);
        expect_err(r, is_size, &["1", "2"], "trtri_batched A list shorter");
        // Placeholders outside a query.
        let r = blas3::trsm(&mut h, L, UP, ON, NU, 4, 4, al, &pa, 4, b, 4);
        expect_err(r, is_pointer, &["placeholder"], "trsm A placeholder");
        let mut pb = DeviceBuffer::<f64>::placeholder(64);
        let r = blas3::trsm(&mut h, L, UP, ON, NU, 4, 4, al, &a, 4, &mut pb, 4);
        expect_err(r, is_pointer, &["placeholder"], "trsm B placeholder");
        let inv = TrsmMethod::Inverse((&pa, 4));
        let r = blas3::trsm_ex(&mut h, R, UP, ON, NU, 4, 4, al, &a, 4, b, 4, inv);
        expect_err(
            r,
            is_pointer,
            &["placeholder"],
            "trsm_ex inverse placeholder",
        );
        let r = blas3::trtri(&mut h, UP, NU, 4, &a, 4, &mut pb, 4);
        expect_err(r, is_pointer, &["placeholder"], "trtri inv_a placeholder");
        let r = blas3::trtri(&mut h, LO, UN, 4, &pa, 4, b, 4);
        expect_err(r, is_pointer, &["placeholder"], "trtri A placeholder");
        // A device alpha per entry holds one value for two entries.
        let r = blas3::trsm_strided_batched(
            &mut h,
            L,
            UP,
            ON,
            NU,
            2,
            2,
            Coef::DevicePerEntry(&one),
            &a,
            2,
            4,
            b,
            2,
            4,
            2,
        );
        expect_err(
            r,
            is_value,
            &["alpha", "needs 2"],
            "trsm per-entry alpha short",
        );
    }
    o.check();
}

fn f9_overlapping_strided_outputs_are_invalid(dev: &Device) {
    let mut h = handle(dev);
    let a = dev.upload(&[0.5f64; 64]).unwrap();
    let al = Coef::Host(1.0f64);
    let mut o = Outs::<f64>::new(dev, &[64]);
    {
        let b = &mut o.bufs[0];
        let r = blas3::trsm_strided_batched(&mut h, L, UP, ON, NU, 2, 2, al, &a, 2, 0, b, 2, 3, 3);
        expect_err(
            r,
            is_value,
            &["overlap", "stride_b = 3"],
            "trsm B stride 3 < 4",
        );
        let r = blas3::trsm_ex_strided_batched(
            &mut h,
            R,
            LO,
            OC,
            UN,
            3,
            2,
            al,
            &a,
            2,
            4,
            b,
            3,
            0,
            2,
            TrsmMethod::Substitute,
        );
        expect_err(
            r,
            is_value,
            &["overlap", "stride_b = 0"],
            "trsm_ex B stride 0",
        );
        let r = blas3::trsm_ex_strided_batched(
            &mut h,
            L,
            LO,
            ON,
            NU,
            3,
            3,
            al,
            &a,
            3,
            0,
            b,
            4,
            10,
            2,
            TrsmMethod::Inverse((&a, 3, 0)),
        );
        expect_err(
            r,
            is_value,
            &["overlap", "stride_b = 10"],
            "trsm_ex B stride 10 < 11",
        );
        let r = blas3::trtri_strided_batched(&mut h, UP, NU, 3, &a, 3, 0, b, 3, 5, 2);
        expect_err(
            r,
            is_value,
            &["overlap", "stride_inv = 5"],
            "trtri inv_a stride 5 < 9",
        );
    }
    o.check();
    // A stride of 0 is fine for a batch of one (nothing to overlap with).
    let b = &mut o.bufs[0];
    let st =
        blas3::trsm_strided_batched(&mut h, L, UP, ON, UN, 2, 2, al, &a, 2, 0, b, 2, 0, 1).unwrap();
    assert_eq!(st, Status::Success);
    let st = blas3::trtri_strided_batched(&mut h, LO, UN, 2, &a, 2, 0, b, 2, 0, 1).unwrap();
    assert_eq!(st, Status::Success);
}

crate::on_both_backends!(
    f7_bad_leading_dimensions_are_invalid_size_naming_them,
    f7_short_buffers_batch_counts_placeholders_are_errors,
    f9_overlapping_strided_outputs_are_invalid,
);
