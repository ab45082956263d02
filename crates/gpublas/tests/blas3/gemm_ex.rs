//! gemm_ex.

use super::*;

/// Every op pair (in rotation), layout and coefficient pair at the small sizes, then `big`.
fn ex_suite<I, O>(
    dev: &Device,
    seed: u64,
    compute: ComputeType,
    big: &[(Op, Op, usize, usize, usize)],
) where
    I: GemmExIn + El,
    O: GemmExOut<I> + El,
    I::Scale: El,
{
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0usize;
    let run = |h: &mut Handle, r: &mut Gen, c: Case, form: Form, co: (C, C)| {
        let mut p = prepare_ex::<I, O>(dev, r, c, form, compute, Scal::Host, &[co.0], &[co.1]);
        let what = p.name();
        let st = p.call(h).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(st, Status::Success, "{what}");
        p.check(&what);
    };
    for &m in SMALL3 {
        for &n in SMALL3 {
            for &k in SMALL3 {
                for s in 0..2 {
                    t += 1;
                    let (opa, opb) = (OPS[(t + s) % 3], OPS[(t / 3) % 3]);
                    let c = Case::gemm(opa, opb, m, n, k).fit_t(t);
                    let (form, co) = (FORMS[t % FORMS.len()], COEFS[t % COEFS.len()]);
                    run(&mut h, &mut r, c, form, co);
                }
            }
        }
    }
    for &(opa, opb, m, n, k) in big {
        t += 1;
        let c = Case::gemm(opa, opb, m, n, k).fit_t(t);
        let (form, co) = (
            BIG_FORMS[t % BIG_FORMS.len()],
            BIG_COEFS[t % BIG_COEFS.len()],
        );
        run(&mut h, &mut r, c, form, co);
    }
}

fn f1_gemm_ex_f16_bf16_inputs_f32_accumulation(dev: &Device) {
    let f = ComputeType::F32;
    ex_suite::<f16, f16>(dev, 71, f, &[(ON, OT, 129, 128, 64)]);
    ex_suite::<f16, f32>(dev, 72, f, &[(OT, ON, 129, 128, 257)]);
    ex_suite::<bf16, bf16>(dev, 73, f, &[(OC, OC, 127, 257, 33)]);
    ex_suite::<bf16, f32>(dev, 74, f, &[(ON, ON, 128, 127, 129)]);
}

fn f1_gemm_ex_f32_f64_complex_and_tensor_core_modes(dev: &Device) {
    ex_suite::<f32, f32>(dev, 75, ComputeType::F32, &[(ON, ON, 257, 129, 128)]);
    ex_suite::<f32, f32>(
        dev,
        76,
        ComputeType::F32FastTf32,
        &[(OC, ON, 128, 127, 129)],
    );
    ex_suite::<f32, f32>(dev, 77, ComputeType::F32FastF16, &[(ON, OT, 64, 129, 31)]);
    ex_suite::<f32, f32>(dev, 78, ComputeType::F32FastBf16, &[(OT, OT, 33, 65, 127)]);
    ex_suite::<f64, f64>(dev, 79, ComputeType::F64, &[(ON, OC, 129, 257, 33)]);
    ex_suite::<Complex32, Complex32>(dev, 80, ComputeType::F32, &[(OC, OT, 65, 33, 129)]);
    ex_suite::<Complex64, Complex64>(dev, 81, ComputeType::F64, &[(OT, OC, 33, 64, 128)]);
}

crate::on_both_backends!(
    f1_gemm_ex_f16_bf16_inputs_f32_accumulation,
    f1_gemm_ex_f32_f64_complex_and_tensor_core_modes,
);
