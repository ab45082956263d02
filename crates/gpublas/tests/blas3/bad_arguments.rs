//! F7, F9, F10: bad arguments.

use super::*;
use crate::common::errors::{expect_err, is_pointer, is_size, is_value, Outs};

fn f7_bad_leading_dimensions_are_invalid_size_naming_values(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let a = up(64);
    let b = up(64);
    let mut o = Outs::<f64>::new(dev, &[64, 64, 64]);
    let (al, be) = (Coef::Host(1.0f64), Coef::Host(0.5f64));
    {
        let [c, c1, c2] = &mut o.bufs[..] else {
            unreachable!()
        };
        let r = blas3::gemm(&mut h, ON, ON, 5, 4, 4, al, &a, 4, &b, 4, be, c, 5);
        expect_err(r, is_size, &["gemm", "lda = 4", "5"], "gemm N lda < m");
        let r = blas3::gemm(&mut h, OT, ON, 5, 4, 6, al, &a, 5, &b, 6, be, c, 5);
        expect_err(r, is_size, &["lda = 5", "6"], "gemm T lda < k");
        let r = blas3::gemm(&mut h, ON, ON, 4, 4, 6, al, &a, 4, &b, 5, be, c, 4);
        expect_err(r, is_size, &["ldb = 5", "6"], "gemm N ldb < k");
        let r = blas3::gemm(&mut h, ON, OC, 4, 5, 6, al, &a, 4, &b, 4, be, c, 4);
        expect_err(r, is_size, &["ldb = 4", "5"], "gemm C ldb < n");
        let r = blas3::gemm(&mut h, ON, ON, 5, 4, 4, al, &a, 5, &b, 4, be, c, 4);
        expect_err(r, is_size, &["ldc = 4", "5"], "gemm ldc < m");
        let r = blas3::gemm(&mut h, ON, ON, 0, 4, 4, al, &a, 0, &b, 4, be, c, 1);
        expect_err(r, is_size, &["lda = 0", "1"], "gemm lda = 0 with m = 0");
        let r = blas3::gemm_strided_batched(
            &mut h, OT, ON, 3, 3, 7, al, &a, 6, 21, &b, 7, 21, be, c, 3, 9, 2,
        );
        expect_err(r, is_size, &["lda = 6", "7"], "gemm_strided lda < k");
        let r = blas3::gemm_batched(
            &mut h,
            ON,
            OT,
            3,
            4,
            2,
            al,
            &[&a, &a],
            3,
            &[&b, &b],
            3,
            be,
            &mut [&mut *c1, &mut *c2],
            3,
        );
        expect_err(r, is_size, &["ldb = 3", "4"], "gemm_batched ldb < n");
        let r = blas3::symm(&mut h, L, UP, 6, 4, al, &a, 5, &b, 6, be, c, 6);
        expect_err(r, is_size, &["symm", "lda = 5", "6"], "symm Left lda < m");
        let r = blas3::symm(&mut h, R, LO, 4, 6, al, &a, 5, &b, 4, be, c, 4);
        expect_err(r, is_size, &["lda = 5", "6"], "symm Right lda < n");
        let r = blas3::symm(&mut h, R, LO, 4, 6, al, &a, 6, &b, 3, be, c, 4);
        expect_err(r, is_size, &["ldb = 3", "4"], "symm ldb < m");
        let r = blas3::symm_strided_batched(
            &mut h, L, UP, 4, 2, al, &a, 4, 16, &b, 4, 8, be, c, 3, 8, 2,
        );
        expect_err(r, is_size, &["ldc = 3", "4"], "symm_strided ldc < m");
        let r = blas3::syrk(&mut h, UP, ON, 6, 4, al, &a, 5, be, c, 6);
        expect_err(r, is_size, &["syrk", "lda = 5", "6"], "syrk N lda < n");
        let r = blas3::syrk(&mut h, LO, OT, 4, 6, al, &a, 5, be, c, 4);
        expect_err(r, is_size, &["lda = 5", "6"], "syrk T lda < k");
        let r = blas3::syrk(&mut h, LO, ON, 6, 2, al, &a, 6, be, c, 5);
        expect_err(r, is_size, &["ldc = 5", "6"], "syrk ldc < n");
        let r = blas3::syr2k(&mut h, UP, ON, 6, 2, al, &a, 6, &b, 5, be, c, 6);
        expect_err(r, is_size, &["syr2k", "ldb = 5", "6"], "syr2k ldb < n");
        let r = blas3::syrkx(&mut h, UP, OT, 3, 7, al, &a, 7, &b, 6, be, c, 3);
        expect_err(r, is_size, &["syrkx", "ldb = 6", "7"], "syrkx T ldb < k");
        let r = blas3::syr2k_batched(
            &mut h,
            LO,
            OT,
            3,
            4,
            al,
            &[&a, &a],
            3,
            &[&b, &b],
            4,
            be,
            &mut [&mut *c1, &mut *c2],
            3,
        );
        expect_err(r, is_size, &["lda = 3", "4"], "syr2k_batched T lda < k");
        let r = blas3::trmm(&mut h, L, UP, ON, UN, 6, 4, al, &a, 5, c, 6);
        expect_err(r, is_size, &["trmm", "lda = 5", "6"], "trmm Left lda < m");
        let r = blas3::trmm(&mut h, R, LO, OT, NU, 4, 6, al, &a, 5, c, 4);
        expect_err(r, is_size, &["lda = 5", "6"], "trmm Right lda < n");
        let r = blas3::trmm(&mut h, L, UP, ON, NU, 4, 2, al, &a, 4, c, 3);
        expect_err(r, is_size, &["ldb = 3", "4"], "trmm ldb < m");
        let r = blas3::trmm_strided_batched(&mut h, R, UP, OC, UN, 5, 3, al, &a, 2, 0, c, 5, 15, 2);
        expect_err(r, is_size, &["lda = 2", "3"], "trmm_strided lda < n");
    }
    o.check();
    // The Hermitian routines, and gemm_ex.
    let cup = |v: usize| dev.upload(&vec![Complex64::new(0.5, -0.25); v]).unwrap();
    let (ca, cb) = (cup(64), cup(64));
    let mut co = Outs::<Complex64>::new(dev, &[64]);
    let z = Coef::Host(Complex64::new(1.0, 0.5));
    let (ra, rb) = (Coef::Host(1.0f64), Coef::Host(0.5f64));
    {
        let c = &mut co.bufs[0];
        let r = blas3::hemm(&mut h, R, UP, 4, 6, z, &ca, 5, &cb, 4, z, c, 4);
        expect_err(r, is_size, &["hemm", "lda = 5", "6"], "hemm Right lda < n");
        let r = blas3::hemm(&mut h, L, LO, 5, 3, z, &ca, 5, &cb, 5, z, c, 4);
        expect_err(r, is_size, &["ldc = 4", "5"], "hemm ldc < m");
        let r = blas3::herk(&mut h, UP, OC, 4, 6, ra, &ca, 5, rb, c, 4);
        expect_err(r, is_size, &["herk", "lda = 5", "6"], "herk C lda < k");
        let r = blas3::herk(&mut h, LO, ON, 6, 2, ra, &ca, 6, rb, c, 5);
        expect_err(r, is_size, &["ldc = 5", "6"], "herk ldc < n");
        let r = blas3::her2k(&mut h, LO, ON, 6, 2, z, &ca, 6, &cb, 5, rb, c, 6);
        expect_err(r, is_size, &["her2k", "ldb = 5", "6"], "her2k ldb < n");
        let r = blas3::herkx(&mut h, UP, OC, 3, 7, z, &ca, 6, &cb, 7, rb, c, 3);
        expect_err(r, is_size, &["herkx", "lda = 6", "7"], "herkx C lda < k");
    }
    co.check();
    let ha = dev.upload(&[f16::from_f64(0.5); 64]).unwrap();
    let mut ho = Outs::<f32>::new(dev, &[64]);
    {
        let c = &mut ho.bufs[0];
        let f = ComputeType::F32;
        let (al, be) = (Coef::Host(1.0f32), Coef::Host(0.0f32));
        let r = blas3::gemm_ex(&mut h, ON, ON, 5, 4, 4, al, &ha, 4, &ha, 4, be, c, 5, f);
        expect_err(r, is_size, &["gemm_ex", "lda = 4", "5"], "gemm_ex lda < m");
        let r = blas3::gemm_ex(&mut h, ON, OT, 4, 5, 4, al, &ha, 4, &ha, 4, be, c, 4, f);
        expect_err(r, is_size, &["ldb = 4", "5"], "gemm_ex T ldb < n");
        let r = blas3::gemm_ex(&mut h, OT, ON, 5, 4, 3, al, &ha, 3, &ha, 3, be, c, 4, f);
        expect_err(r, is_size, &["ldc = 4", "5"], "gemm_ex ldc < m");
    }
    ho.check();
}

/// syrk/syr2k/syrkx take `N` or `T` (complex: `C` is invalid), herk/her2k/herkx `N` or `C`;
/// gemm_ex's compute type must suit its input type. Outputs stay untouched.
fn f7_wrong_ops_and_compute_types_are_invalid_value(dev: &Device) {
    let mut h = handle(dev);
    let cup = |v: usize| dev.upload(&vec![Complex64::new(0.5, -0.25); v]).unwrap();
    let (ca, cb) = (cup(64), cup(64));
    let mut co = Outs::<Complex64>::new(dev, &[64]);
    let z = Coef::Host(Complex64::new(1.0, 0.5));
    let (ra, rb) = (Coef::Host(1.0f64), Coef::Host(0.5f64));
    {
        let c = &mut co.bufs[0];
        let r = blas3::syrk(&mut h, UP, OC, 4, 4, z, &ca, 4, z, c, 4);
        expect_err(r, is_value, &["syrk"], "syrk complex Op::C");
        let r = blas3::syrk_strided_batched(&mut h, LO, OC, 2, 2, z, &ca, 2, 4, z, c, 2, 4, 2);
        expect_err(r, is_value, &["syrk"], "syrk_strided complex Op::C");
        let r = blas3::syr2k(&mut h, LO, OC, 4, 4, z, &ca, 4, &cb, 4, z, c, 4);
        expect_err(r, is_value, &["syr2k"], "syr2k complex Op::C");
        let r = blas3::syrkx(&mut h, UP, OC, 4, 4, z, &ca, 4, &cb, 4, z, c, 4);
        expect_err(r, is_value, &["syrkx"], "syrkx complex Op::C");
        let r = blas3::herk(&mut h, UP, OT, 4, 4, ra, &ca, 4, rb, c, 4);
        expect_err(r, is_value, &["herk"], "herk Op::T");
        let r = blas3::herk_batched(&mut h, LO, OT, 4, 4, ra, &[&ca], 4, rb, &mut [&mut *c], 4);
        expect_err(r, is_value, &["herk"], "herk_batched Op::T");
        let r = blas3::her2k(&mut h, LO, OT, 4, 4, z, &ca, 4, &cb, 4, rb, c, 4);
        expect_err(r, is_value, &["her2k"], "her2k Op::T");
        let r = blas3::herkx(&mut h, UP, OT, 4, 4, z, &ca, 4, &cb, 4, rb, c, 4);
        expect_err(r, is_value, &["herkx"], "herkx Op::T");
        let r = blas3::gemm_ex(
            &mut h,
            ON,
            ON,
            4,
            4,
            4,
            z,
            &ca,
            4,
            &cb,
            4,
            z,
            c,
            4,
            ComputeType::F32,
        );
        expect_err(r, is_value, &["gemm_ex"], "gemm_ex Complex64 with F32");
    }
    co.check();
    // gemm_ex: compute types that do not suit the input.
    let d = dev.upload(&[0.5f64; 64]).unwrap();
    let s = dev.upload(&[0.5f32; 64]).unwrap();
    let hf = dev.upload(&[f16::from_f64(0.5); 64]).unwrap();
    let bh = dev.upload(&[bf16::from_f64(0.5); 64]).unwrap();
    let c32 = dev.upload(&[Complex32::new(0.5, 0.5); 64]).unwrap();
    let mut od = Outs::<f64>::new(dev, &[64]);
    let mut os = Outs::<f32>::new(dev, &[64, 64]);
    let mut oh = Outs::<f16>::new(dev, &[64]);
    let mut oc = Outs::<Complex32>::new(dev, &[64]);
    {
        let c = &mut od.bufs[0];
        for compute in [ComputeType::F32, ComputeType::F32FastTf32] {
            let (al, be) = (Coef::Host(1.0f64), Coef::Host(0.0f64));
            let r = blas3::gemm_ex(&mut h, ON, ON, 4, 4, 4, al, &d, 4, &d, 4, be, c, 4, compute);
            expect_err(r, is_value, &["gemm_ex"], &format!("f64 with {compute:?}"));
        }
        let [c1, c2] = &mut os.bufs[..] else {
            unreachable!()
        };
        let (al, be) = (Coef::Host(1.0f32), Coef::Host(0.0f32));
        let f64c = ComputeType::F64;
        let r = blas3::gemm_ex(&mut h, ON, ON, 4, 4, 4, al, &s, 4, &s, 4, be, c1, 4, f64c);
        expect_err(r, is_value, &["gemm_ex"], "f32 with F64");
        let r = blas3::gemm_ex(&mut h, OT, ON, 4, 4, 4, al, &hf, 4, &hf, 4, be, c2, 4, f64c);
        expect_err(r, is_value, &["gemm_ex"], "f16 -> f32 with F64");
        let r = blas3::gemm_ex_strided_batched(
            &mut h, ON, ON, 2, 2, 2, al, &bh, 2, 4, &bh, 2, 4, be, c2, 2, 4, 3, f64c,
        );
        expect_err(r, is_value, &["gemm_ex"], "bf16 -> f32 strided with F64");
        let r = blas3::gemm_ex(
            &mut h,
            ON,
            ON,
            4,
            4,
            4,
            al,
            &hf,
            4,
            &hf,
            4,
            be,
            &mut oh.bufs[0],
            4,
            f64c,
        );
        expect_err(r, is_value, &["gemm_ex"], "f16 -> f16 with F64");
        let zc = Coef::Host(Complex32::new(1.0, 0.0));
        let r = blas3::gemm_ex(
            &mut h,
            ON,
            ON,
            4,
            4,
            4,
            zc,
            &c32,
            4,
            &c32,
            4,
            zc,
            &mut oc.bufs[0],
            4,
            f64c,
        );
        expect_err(r, is_value, &["gemm_ex"], "Complex32 with F64");
    }
    od.check();
    os.check();
    oh.check();
    oc.check();
}

fn f7_short_buffers_list_lengths_placeholders_are_errors(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let a = up(64);
    let b = up(64);
    let mut o = Outs::<f64>::new(dev, &[64, 19, 24, 26, 20, 20]);
    let (al, be) = (Coef::Host(1.0f64), Coef::Host(0.5f64));
    let other = Device::host();
    let oa = other.upload(&[0.5f64; 64]).unwrap();
    let pa = DeviceBuffer::<f64>::placeholder(64);
    {
        let [c, c19, c24, c26, c1, c2] = &mut o.bufs[..] else {
            unreachable!()
        };
        // A, B, C one element too short.
        let a19 = up(19);
        let r = blas3::gemm(&mut h, ON, ON, 5, 4, 4, al, &a19, 5, &b, 4, be, c, 5);
        expect_err(
            r,
            is_value,
            &["has 19 elements", "needs 20"],
            "gemm A short",
        );
        let b15 = up(15);
        let r = blas3::gemm(&mut h, ON, OT, 5, 4, 4, al, &a, 5, &b15, 4, be, c, 5);
        expect_err(
            r,
            is_value,
            &["has 15 elements", "needs 16"],
            "gemm B short",
        );
        let r = blas3::gemm(&mut h, OT, ON, 5, 4, 4, al, &a, 4, &b, 4, be, c19, 5);
        expect_err(
            r,
            is_value,
            &["has 19 elements", "needs 20"],
            "gemm C short",
        );
        let r = blas3::symm(&mut h, L, UP, 5, 3, al, &up(24), 5, &b, 5, be, c, 5);
        expect_err(
            r,
            is_value,
            &["has 24 elements", "needs 25"],
            "symm A short",
        );
        let r = blas3::syrk(&mut h, LO, ON, 5, 3, al, &a, 5, be, c24, 5);
        expect_err(
            r,
            is_value,
            &["has 24 elements", "needs 25"],
            "syrk C short",
        );
        let r = blas3::syr2k(&mut h, UP, OT, 4, 3, al, &a, 3, &up(11), 3, be, c, 4);
        expect_err(
            r,
            is_value,
            &["has 11 elements", "needs 12"],
            "syr2k B short",
        );
        let r = blas3::trmm(&mut h, R, UP, ON, UN, 4, 5, al, &a, 5, c19, 4);
        expect_err(
            r,
            is_value,
            &["has 19 elements", "needs 20"],
            "trmm B short",
        );
        // Strided: the last entry runs past the buffer.
        let a35 = up(35);
        let r = blas3::gemm_strided_batched(
            &mut h, ON, ON, 4, 3, 3, al, &a35, 4, 12, &b, 3, 9, be, c, 4, 12, 3,
        );
        expect_err(
            r,
            is_value,
            &["has 35 elements", "needs 36", "stride_a = 12"],
            "gemm_strided A short",
        );
        let r = blas3::syrk_strided_batched(&mut h, UP, OT, 3, 2, al, &a, 2, 6, be, c26, 3, 9, 3);
        expect_err(
            r,
            is_value,
            &["has 26 elements", "needs 27", "stride_c = 9"],
            "syrk_strided C short",
        );
        let r =
            blas3::trmm_strided_batched(&mut h, L, LO, OT, NU, 3, 3, al, &a, 3, 9, c26, 3, 9, 3);
        expect_err(
            r,
            is_value,
            &["has 26 elements", "needs 27", "stride_b = 9"],
            "trmm_strided B short",
        );
        // One short entry in a list: no entry is written.
        let r = blas3::gemm_batched(
            &mut h,
            ON,
            ON,
            5,
            4,
            4,
            al,
            &[&a, &a19],
            5,
            &[&b, &b],
            4,
            be,
            &mut [&mut *c1, &mut *c2],
            5,
        );
        expect_err(
            r,
            is_value,
            &["has 19 elements", "needs 20"],
            "gemm_batched A[1] short",
        );
        // Lists of different lengths.
        let r = blas3::gemm_batched(
            &mut h,
            ON,
            ON,
            4,
            4,
            4,
            al,
            &[&a, &a],
            4,
            &[&b, &b],
            4,
            be,
            &mut [&mut *c1],
            4,
        );
        expect_err(r, is_size, &["2", "1"], "gemm_batched C list shorter");
        let r = blas3::symm_batched(
            &mut h,
            R,
            LO,
            4,
            4,
            al,
            &[&a, &a],
            4,
            &[&b, &b, &b],
            4,
            be,
            &mut [&mut *c1, &mut *c2],
            4,
        );
        expect_err(r, is_size, &["2", "3"], "symm_batched B list longer");
        let r = blas3::syrk_batched(
            &mut h,
            UP,
            ON,
            4,
            4,
            al,
            &[&a],
            4,
            be,
            &mut [&mut *c1, &mut *c2],
            4,
        );
        expect_err(r, is_size, &["1", "2"], "syrk_batched A list shorter");
        let r = blas3::trmm_batched(
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
            &mut [&mut *c1, &mut *c2],
            4,
        );
        expect_err(r, is_size, &["3", "2"], "trmm_batched A list longer");
        // Placeholders outside a query, buffers of another device.
        let r = blas3::gemm(&mut h, ON, ON, 4, 4, 4, al, &pa, 4, &b, 4, be, c, 4);
        expect_err(r, is_pointer, &["placeholder"], "gemm A placeholder");
        let mut pc = DeviceBuffer::<f64>::placeholder(64);
        let r = blas3::trmm(&mut h, L, UP, ON, NU, 4, 4, al, &a, 4, &mut pc, 4);
        expect_err(r, is_pointer, &["placeholder"], "trmm B placeholder");
        let r = blas3::syrkx(&mut h, LO, ON, 4, 4, al, &a, 4, &pa, 4, be, c, 4);
        expect_err(r, is_pointer, &["placeholder"], "syrkx B placeholder");
        let r = blas3::gemm(&mut h, ON, ON, 4, 4, 4, al, &oa, 4, &b, 4, be, c, 4);
        expect_err(r, is_pointer, &[], "gemm A on another device");
        let r = blas3::symm_strided_batched(
            &mut h, L, UP, 4, 4, al, &a, 4, 0, &oa, 4, 16, be, c, 4, 16, 2,
        );
        expect_err(r, is_pointer, &[], "symm_strided B on another device");
        let mut oc = other.upload(&[1.0f64; 16]).unwrap();
        let r = blas3::syrk(&mut h, UP, ON, 4, 4, al, &a, 4, be, &mut oc, 4);
        expect_err(r, is_pointer, &[], "syrk C on another device");
        assert_eq!(oc.to_vec().unwrap(), vec![1.0; 16]);
    }
    o.check();
    // gemm_ex: short and placeholder operands.
    let hf = dev.upload(&[f16::from_f64(0.5); 19]).unwrap();
    let hf20 = dev.upload(&[f16::from_f64(0.5); 20]).unwrap();
    let mut ho = Outs::<f16>::new(dev, &[20]);
    {
        let c = &mut ho.bufs[0];
        let (al, be) = (Coef::Host(1.0f32), Coef::Host(0.0f32));
        let f = ComputeType::F32;
        let r = blas3::gemm_ex(&mut h, ON, ON, 5, 4, 4, al, &hf, 5, &hf20, 4, be, c, 5, f);
        expect_err(
            r,
            is_value,
            &["has 19 elements", "needs 20"],
            "gemm_ex A short",
        );
        let ph = DeviceBuffer::<f16>::placeholder(64);
        let r = blas3::gemm_ex(&mut h, ON, ON, 4, 4, 4, al, &hf20, 4, &ph, 4, be, c, 4, f);
        expect_err(r, is_pointer, &["placeholder"], "gemm_ex B placeholder");
    }
    ho.check();
}

/// Sizes whose spans or workspace needs overflow the address space are `InvalidSize`, never a
/// panic (M16, F7), outside a query; during a query (placeholders) they must not panic either.
/// Every case runs; the failures are listed together.
fn f7_huge_sizes_are_invalid_size_never_a_panic(dev: &Device) {
    type Call = Box<dyn Fn(&mut Handle, bool) -> Result<Status, Error>>;
    let d = dev.clone();
    let bufs = move |ph: bool| {
        let mk = |len: usize| {
            if ph {
                DeviceBuffer::<f64>::placeholder(len)
            } else {
                d.upload(&vec![0.5f64; len]).unwrap()
            }
        };
        (mk(64), mk(64), mk(64))
    };
    let bufs = std::rc::Rc::new(bufs);
    let (al, be) = (Coef::Host(1.0f64), Coef::Host(0.5f64));
    let big = 1usize << 40;
    let mut cases: Vec<(&str, Call)> = vec![];
    macro_rules! case {
        ($name:expr, |$h:ident, $a:ident, $b:ident, $c:ident| $body:expr) => {{
            let bb = bufs.clone();
            cases.push((
                $name,
                Box::new(move |$h: &mut Handle, ph: bool| {
                    let ($a, $b, mut $c) = bb(ph);
                    let $c = &mut $c;
                    $body
                }),
            ));
        }};
    }
    case!("gemm m = n = k = ld = 2^40", |h, a, b, c| blas3::gemm(
        h, ON, ON, big, big, big, al, &a, big, &b, big, be, c, big
    ));
    case!("gemm T m = usize::MAX", |h, a, b, c| blas3::gemm(
        h,
        OT,
        ON,
        usize::MAX,
        2,
        2,
        al,
        &a,
        2,
        &b,
        2,
        be,
        c,
        usize::MAX
    ));
    case!("gemm_strided stride_a = usize::MAX / 2", |h, a, b, c| {
        blas3::gemm_strided_batched(
            h,
            ON,
            ON,
            2,
            2,
            2,
            al,
            &a,
            2,
            usize::MAX / 2,
            &b,
            2,
            4,
            be,
            c,
            2,
            4,
            4,
        )
    });
    case!("symm m = n = ld = 2^40", |h, a, b, c| blas3::symm(
        h, L, UP, big, big, al, &a, big, &b, big, be, c, big
    ));
    case!("syrk n = k = ld = 2^40", |h, a, _b, c| blas3::syrk(
        h, LO, ON, big, big, al, &a, big, be, c, big
    ));
    case!("syr2k n = ld = 2^40", |h, a, b, c| blas3::syr2k(
        h, UP, OT, big, 2, al, &a, 2, &b, 2, be, c, big
    ));
    case!("syrkx n = 2^62", |h, a, b, c| blas3::syrkx(
        h,
        UP,
        ON,
        1 << 62,
        1,
        al,
        &a,
        1 << 62,
        &b,
        1 << 62,
        be,
        c,
        1 << 62
    ));
    case!("trmm m = n = ld = 2^40", |h, a, _b, c| blas3::trmm(
        h, R, LO, OC, UN, big, big, al, &a, big, c, big
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
                Err(p) => failures.push(format!("{name} {label}: panicked: {}", panic_text(&*p))),
                Ok(Err(Error::InvalidSize(_))) => {}
                Ok(r) if !query => failures.push(format!("{name}: {r:?}, want InvalidSize")),
                Ok(_) => {}
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

fn f9_overlapping_strided_outputs_are_invalid(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let a = up(64);
    let b = up(64);
    let mut o = Outs::<f64>::new(dev, &[64]);
    let (al, be) = (Coef::Host(1.0f64), Coef::Host(0.5f64));
    {
        let c = &mut o.bufs[0];
        let r = blas3::gemm_strided_batched(
            &mut h, ON, ON, 5, 3, 2, al, &a, 5, 10, &b, 2, 6, be, c, 5, 10, 2,
        );
        expect_err(
            r,
            is_value,
            &["overlap", "stride_c = 10", "15"],
            "gemm C stride 10 < 15",
        );
        let r = blas3::symm_strided_batched(
            &mut h, R, UP, 3, 3, al, &a, 3, 0, &b, 3, 0, be, c, 4, 8, 2,
        );
        expect_err(
            r,
            is_value,
            &["overlap", "stride_c = 8"],
            "symm C stride 8 < 11",
        );
        let r = blas3::syrk_strided_batched(&mut h, LO, ON, 4, 2, al, &a, 4, 8, be, c, 4, 0, 2);
        expect_err(r, is_value, &["overlap", "stride_c = 0"], "syrk C stride 0");
        let r = blas3::syrkx_strided_batched(
            &mut h, UP, OT, 3, 2, al, &a, 2, 6, &b, 2, 6, be, c, 3, 5, 3,
        );
        expect_err(
            r,
            is_value,
            &["overlap", "stride_c = 5"],
            "syrkx C stride 5 < 9",
        );
        let r = blas3::trmm_strided_batched(&mut h, L, UP, ON, NU, 2, 2, al, &a, 2, 0, c, 2, 3, 3);
        expect_err(
            r,
            is_value,
            &["overlap", "stride_b = 3"],
            "trmm B stride 3 < 4",
        );
    }
    o.check();
    let ca = dev.upload(&[Complex64::new(0.5, 0.5); 64]).unwrap();
    let mut co = Outs::<Complex64>::new(dev, &[64]);
    {
        let c = &mut co.bufs[0];
        let r = blas3::her2k_strided_batched(
            &mut h,
            UP,
            OC,
            3,
            2,
            Coef::Host(Complex64::new(1.0, 0.0)),
            &ca,
            2,
            0,
            &ca,
            2,
            0,
            Coef::Host(0.5f64),
            c,
            3,
            0,
            2,
        );
        expect_err(
            r,
            is_value,
            &["overlap", "stride_c = 0"],
            "her2k C stride 0",
        );
    }
    co.check();
    let hf = dev.upload(&[f16::from_f64(0.5); 64]).unwrap();
    let mut ho = Outs::<f32>::new(dev, &[64]);
    {
        let r = blas3::gemm_ex_strided_batched(
            &mut h,
            ON,
            ON,
            3,
            3,
            3,
            Coef::Host(1.0f32),
            &hf,
            3,
            9,
            &hf,
            3,
            9,
            Coef::Host(0.0f32),
            &mut ho.bufs[0],
            3,
            8,
            2,
            ComputeType::F32,
        );
        expect_err(
            r,
            is_value,
            &["overlap", "stride_c = 8"],
            "gemm_ex C stride 8 < 9",
        );
    }
    ho.check();
    // A stride of 0 is fine for a batch of one (nothing to overlap with).
    let c = &mut o.bufs[0];
    let st =
        blas3::trmm_strided_batched(&mut h, L, UP, ON, UN, 2, 2, al, &a, 2, 0, c, 2, 0, 1).unwrap();
    assert_eq!(st, Status::Success);
}

fn f10_bad_device_scalars_are_errors(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let a = up(64);
    let b = up(64);
    let mut o = Outs::<f64>::new(dev, &[64, 16, 16, 16]);
    let be = Coef::Host(0.5f64);
    let ph = DeviceBuffer::<f64>::placeholder(4);
    let empty = dev.upload::<f64>(&[]).unwrap();
    let two = up(2);
    let other = Device::host().upload(&[1.0f64; 4]).unwrap();
    {
        let [c, c1, c2, c3] = &mut o.bufs[..] else {
            unreachable!()
        };
        let r = blas3::gemm(
            &mut h,
            ON,
            ON,
            4,
            4,
            4,
            Coef::Device(&ph),
            &a,
            4,
            &b,
            4,
            be,
            c,
            4,
        );
        expect_err(
            r,
            is_pointer,
            &["placeholder", "alpha"],
            "alpha placeholder",
        );
        let r = blas3::symm(
            &mut h,
            L,
            LO,
            4,
            4,
            be,
            &a,
            4,
            &b,
            4,
            Coef::Device(&ph),
            c,
            4,
        );
        expect_err(r, is_pointer, &["placeholder", "beta"], "beta placeholder");
        let r = blas3::syrk(&mut h, UP, OT, 4, 4, Coef::Device(&empty), &a, 4, be, c, 4);
        expect_err(
            r,
            is_value,
            &["alpha", "has 0 elements", "needs 1"],
            "alpha empty",
        );
        let r = blas3::trmm(
            &mut h,
            R,
            UP,
            ON,
            NU,
            4,
            4,
            Coef::Device(&other),
            &a,
            4,
            c,
            4,
        );
        expect_err(r, is_pointer, &["alpha"], "alpha on another device");
        let r = blas3::trmm_strided_batched(
            &mut h,
            L,
            LO,
            OT,
            UN,
            4,
            4,
            Coef::DevicePerEntry(&two),
            &a,
            4,
            16,
            c,
            4,
            16,
            3,
        );
        expect_err(
            r,
            is_value,
            &["alpha", "has 2 elements", "needs 3"],
            "alpha per entry too short",
        );
        let r = blas3::gemm_batched(
            &mut h,
            ON,
            OT,
            4,
            4,
            4,
            be,
            &[&a, &a, &a],
            4,
            &[&b, &b, &b],
            4,
            Coef::DevicePerEntry(&two),
            &mut [&mut *c1, &mut *c2, &mut *c3],
            4,
        );
        expect_err(
            r,
            is_value,
            &["beta", "has 2 elements", "needs 3"],
            "beta per entry too short",
        );
        let r = blas3::syr2k_strided_batched(
            &mut h,
            UP,
            ON,
            4,
            4,
            Coef::DevicePerEntry(&ph),
            &a,
            4,
            16,
            &b,
            4,
            16,
            be,
            c,
            4,
            16,
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
    // herk's real scalars.
    let ca = dev.upload(&[Complex64::new(0.5, 0.5); 64]).unwrap();
    let one_real = dev.upload(&[1.0f64]).unwrap();
    let mut co = Outs::<Complex64>::new(dev, &[64]);
    {
        let r = blas3::herk_strided_batched(
            &mut h,
            LO,
            ON,
            4,
            4,
            Coef::Host(1.0f64),
            &ca,
            4,
            16,
            Coef::DevicePerEntry(&one_real),
            &mut co.bufs[0],
            4,
            16,
            2,
        );
        expect_err(
            r,
            is_value,
            &["beta", "has 1 elements", "needs 2"],
            "herk beta per entry too short",
        );
    }
    co.check();
}

crate::on_both_backends!(
    f7_bad_leading_dimensions_are_invalid_size_naming_values,
    f7_wrong_ops_and_compute_types_are_invalid_value,
    f7_short_buffers_list_lengths_placeholders_are_errors,
    f7_huge_sizes_are_invalid_size_never_a_panic,
    f9_overlapping_strided_outputs_are_invalid,
    f10_bad_device_scalars_are_errors,
);
