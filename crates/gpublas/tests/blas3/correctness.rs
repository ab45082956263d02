//! F1: correctness of every routine, type, form and option.

use super::*;

/// Sizes where blocking changes, small enough for the whole cross product.
const SMALL: &[usize] = &[0, 1, 2, 31, 32, 33];
/// Every op pair, layout and coefficient pair at the small sizes; `big`: (opa, opb, m, n, k).
fn gemm_suite<E: T>(dev: &Device, seed: u64, big: &[(Op, Op, usize, usize, usize)]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0usize;
    for &m in SMALL3 {
        for &n in SMALL3 {
            for &k in SMALL3 {
                for opa in OPS {
                    for opb in OPS {
                        t += 1;
                        let c = Case::gemm(opa, opb, m, n, k).fit_t(t);
                        let (form, co) = (FORMS[t % FORMS.len()], COEFS[t % COEFS.len()]);
                        check_case::<E>(&mut h, dev, &mut r, c, form, co);
                    }
                }
            }
        }
    }
    // 32 (a power of two between the odd sizes) with every op pair.
    for opa in OPS {
        for opb in OPS {
            for &(m, n, k) in &[(32, 32, 32), (32, 31, 33), (1, 32, 2)] {
                t += 1;
                let c = Case::gemm(opa, opb, m, n, k).fit_t(t);
                let (form, co) = (FORMS[t % FORMS.len()], COEFS[t % COEFS.len()]);
                check_case::<E>(&mut h, dev, &mut r, c, form, co);
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
        check_case::<E>(&mut h, dev, &mut r, c, form, co);
    }
}

/// Small outputs with a long `k` (on the GPU split along `k`: partial products, the rest into
/// C with beta, the partials added in a fixed order), in the large cases' layouts (a strided
/// batch of two runs whole) and coefficients (beta 0 and not).
fn long_k_suite<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let cases = [
        (OT, ON, 40, 24, 70001),
        (ON, OC, 64, 130, 40000),
        (OC, OT, 1, 3, 33000),
        (ON, ON, 128, 128, 9000),
        (OT, OC, 33, 65, 4100),
    ];
    for (t, &(opa, opb, m, n, k)) in cases.iter().enumerate() {
        let c = Case::gemm(opa, opb, m, n, k).fit_t(t);
        let (form, co) = (
            BIG_FORMS[t % BIG_FORMS.len()],
            BIG_COEFS[t % BIG_COEFS.len()],
        );
        check_case::<E>(&mut h, dev, &mut r, c, form, co);
    }
}

/// symm (and hemm for complex types): every side, uplo, layout; `big`: (side, uplo, m, n).
fn mm_suite<E: T>(dev: &Device, seed: u64, big: &[(Side, Uplo, usize, usize)]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0usize;
    let rts: &[Rt] = if E::CPLX {
        &[Rt::Symm, Rt::Hemm]
    } else {
        &[Rt::Symm]
    };
    for &rt in rts {
        for &m in SMALL {
            for &n in SMALL {
                for side in SIDES {
                    for uplo in UPLOS {
                        t += 1;
                        let c = Case::mm(rt, side, uplo, m, n).fit_t(t);
                        let (form, co) = (FORMS[t % FORMS.len()], COEFS[t % COEFS.len()]);
                        check_case::<E>(&mut h, dev, &mut r, c, form, co);
                    }
                }
            }
        }
        for &(side, uplo, m, n) in big {
            t += 1;
            let c = Case::mm(rt, side, uplo, m, n).fit_t(t);
            let (form, co) = (
                BIG_FORMS[t % BIG_FORMS.len()],
                BIG_COEFS[t % BIG_COEFS.len()],
            );
            check_case::<E>(&mut h, dev, &mut r, c, form, co);
        }
    }
}

/// The ops a rank-k update takes: `N`, `T` (and `C`, read as `T`, for real types); the
/// Hermitian ones `N`, `C`.
fn rk_ops<E: T>(rt: Rt) -> &'static [Op] {
    if matches!(rt, Rt::Herk | Rt::Her2k | Rt::Herkx) {
        &[Op::N, Op::C]
    } else if E::CPLX {
        &[Op::N, Op::T]
    } else {
        &[Op::N, Op::T, Op::C]
    }
}

/// A symmetric rank-k family and its Hermitian twin (complex types): every uplo, op, layout;
/// `big`: (uplo, n, k).
fn rk_suite<E: T>(dev: &Device, seed: u64, fam: (Rt, Rt), big: &[(Uplo, usize, usize)]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0usize;
    let rts = if E::CPLX {
        vec![fam.0, fam.1]
    } else {
        vec![fam.0]
    };
    for rt in rts {
        let ops = rk_ops::<E>(rt);
        for &n in SMALL {
            for &k in SMALL {
                for uplo in UPLOS {
                    for &op in ops {
                        t += 1;
                        let c = Case::rk(rt, uplo, op, n, k).fit_t(t);
                        let (form, co) = (FORMS[t % FORMS.len()], COEFS[t % COEFS.len()]);
                        check_case::<E>(&mut h, dev, &mut r, c, form, co);
                    }
                }
            }
        }
        for &(uplo, n, k) in big {
            t += 1;
            let op = ops[t % ops.len()];
            let c = Case::rk(rt, uplo, op, n, k).fit_t(t);
            let (form, co) = (
                BIG_FORMS[t % BIG_FORMS.len()],
                BIG_COEFS[t % BIG_COEFS.len()],
            );
            check_case::<E>(&mut h, dev, &mut r, c, form, co);
        }
    }
}

/// trmm: every side, uplo, op, diag, layout; `big`: (side, uplo, op, diag, m, n).
fn trmm_suite<E: T>(dev: &Device, seed: u64, big: &[(Side, Uplo, Op, Diag, usize, usize)]) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0usize;
    for &m in SMALL {
        for &n in SMALL {
            for side in SIDES {
                for uplo in UPLOS {
                    for op in OPS {
                        for diag in DIAGS {
                            t += 1;
                            let c = Case::tr(side, uplo, op, diag, m, n).fit_t(t);
                            let (form, co) = (FORMS[t % FORMS.len()], COEFS[t % COEFS.len()]);
                            check_case::<E>(&mut h, dev, &mut r, c, form, co);
                        }
                    }
                }
            }
        }
    }
    for &(side, uplo, op, diag, m, n) in big {
        t += 1;
        let c = Case::tr(side, uplo, op, diag, m, n).fit_t(t);
        let (form, co) = (
            BIG_FORMS[t % BIG_FORMS.len()],
            BIG_COEFS[t % BIG_COEFS.len()],
        );
        check_case::<E>(&mut h, dev, &mut r, c, form, co);
    }
}

fn f1_gemm_all_ops_forms_sizes_f32(dev: &Device) {
    gemm_suite::<f32>(
        dev,
        11,
        &[
            (ON, ON, 127, 128, 129),
            (OT, OC, 129, 127, 128),
            (OC, OT, 257, 257, 257),
            (ON, ON, 33, 129, 31),
        ],
    )
}
fn f1_gemm_all_ops_forms_sizes_f64(dev: &Device) {
    gemm_suite::<f64>(
        dev,
        12,
        &[
            (OT, ON, 128, 128, 128),
            (ON, OC, 257, 33, 129),
            (OC, ON, 31, 257, 33),
        ],
    )
}
fn f1_gemm_all_ops_forms_sizes_c32(dev: &Device) {
    gemm_suite::<Complex32>(
        dev,
        13,
        &[
            (OC, OT, 129, 128, 127),
            (ON, ON, 33, 129, 31),
            (OT, ON, 64, 257, 33),
        ],
    )
}
fn f1_gemm_all_ops_forms_sizes_c64(dev: &Device) {
    gemm_suite::<Complex64>(dev, 14, &[(ON, OC, 128, 129, 127), (OC, OC, 257, 31, 33)])
}
fn f1_gemm_long_k_f32(dev: &Device) {
    long_k_suite::<f32>(dev, 15)
}
fn f1_gemm_long_k_f64(dev: &Device) {
    long_k_suite::<f64>(dev, 16)
}
fn f1_gemm_long_k_c32(dev: &Device) {
    long_k_suite::<Complex32>(dev, 17)
}
fn f1_gemm_long_k_c64(dev: &Device) {
    long_k_suite::<Complex64>(dev, 18)
}
fn f1_symm_hemm_all_sides_uplos_forms_sizes_f32(dev: &Device) {
    mm_suite::<f32>(dev, 21, &[(L, LO, 129, 33), (R, UP, 33, 128)])
}
fn f1_symm_hemm_all_sides_uplos_forms_sizes_f64(dev: &Device) {
    mm_suite::<f64>(dev, 22, &[(L, UP, 257, 129), (R, LO, 127, 128)])
}
fn f1_symm_hemm_all_sides_uplos_forms_sizes_c32(dev: &Device) {
    mm_suite::<Complex32>(dev, 23, &[(R, UP, 129, 257), (L, LO, 128, 127)])
}
fn f1_symm_hemm_all_sides_uplos_forms_sizes_c64(dev: &Device) {
    mm_suite::<Complex64>(dev, 24, &[(L, UP, 127, 31), (R, LO, 33, 129)])
}
fn f1_syrk_herk_all_uplos_ops_forms_sizes_f32(dev: &Device) {
    rk_suite::<f32>(
        dev,
        31,
        (Rt::Syrk, Rt::Herk),
        &[(UP, 129, 33), (LO, 33, 129)],
    )
}
fn f1_syrk_herk_all_uplos_ops_forms_sizes_f64(dev: &Device) {
    rk_suite::<f64>(
        dev,
        32,
        (Rt::Syrk, Rt::Herk),
        &[(LO, 257, 129), (UP, 127, 128), (LO, 128, 64)],
    )
}
fn f1_syrk_herk_all_uplos_ops_forms_sizes_c32(dev: &Device) {
    rk_suite::<Complex32>(
        dev,
        33,
        (Rt::Syrk, Rt::Herk),
        &[(UP, 129, 31), (LO, 31, 127)],
    )
}
fn f1_syrk_herk_all_uplos_ops_forms_sizes_c64(dev: &Device) {
    rk_suite::<Complex64>(
        dev,
        34,
        (Rt::Syrk, Rt::Herk),
        &[(UP, 257, 64), (LO, 128, 129)],
    )
}
fn f1_syr2k_her2k_all_uplos_ops_forms_sizes_f32(dev: &Device) {
    rk_suite::<f32>(
        dev,
        41,
        (Rt::Syr2k, Rt::Her2k),
        &[(LO, 257, 127), (UP, 128, 129)],
    )
}
fn f1_syr2k_her2k_all_uplos_ops_forms_sizes_f64(dev: &Device) {
    rk_suite::<f64>(
        dev,
        42,
        (Rt::Syr2k, Rt::Her2k),
        &[(UP, 129, 33), (LO, 33, 128)],
    )
}
fn f1_syr2k_her2k_all_uplos_ops_forms_sizes_c32(dev: &Device) {
    rk_suite::<Complex32>(
        dev,
        43,
        (Rt::Syr2k, Rt::Her2k),
        &[(UP, 257, 33), (LO, 127, 64)],
    )
}
fn f1_syr2k_her2k_all_uplos_ops_forms_sizes_c64(dev: &Device) {
    rk_suite::<Complex64>(dev, 44, (Rt::Syr2k, Rt::Her2k), &[(LO, 129, 31)])
}
fn f1_syrkx_herkx_all_uplos_ops_forms_sizes_f32(dev: &Device) {
    rk_suite::<f32>(
        dev,
        51,
        (Rt::Syrkx, Rt::Herkx),
        &[(UP, 128, 127), (LO, 129, 33)],
    )
}
fn f1_syrkx_herkx_all_uplos_ops_forms_sizes_f64(dev: &Device) {
    rk_suite::<f64>(
        dev,
        52,
        (Rt::Syrkx, Rt::Herkx),
        &[(LO, 257, 257), (UP, 127, 31)],
    )
}
fn f1_syrkx_herkx_all_uplos_ops_forms_sizes_c32(dev: &Device) {
    rk_suite::<Complex32>(dev, 53, (Rt::Syrkx, Rt::Herkx), &[(LO, 129, 64)])
}
fn f1_syrkx_herkx_all_uplos_ops_forms_sizes_c64(dev: &Device) {
    rk_suite::<Complex64>(
        dev,
        54,
        (Rt::Syrkx, Rt::Herkx),
        &[(UP, 257, 33), (LO, 128, 31)],
    )
}
fn f1_trmm_all_sides_uplos_ops_diags_forms_sizes_f32(dev: &Device) {
    trmm_suite::<f32>(
        dev,
        61,
        &[
            (L, UP, ON, NU, 257, 129),
            (R, LO, OT, UN, 127, 128),
            (L, LO, OC, NU, 129, 33),
        ],
    )
}
fn f1_trmm_all_sides_uplos_ops_diags_forms_sizes_f64(dev: &Device) {
    trmm_suite::<f64>(
        dev,
        62,
        &[
            (R, UP, OC, NU, 129, 257),
            (L, LO, ON, UN, 128, 127),
            (R, LO, OT, NU, 33, 129),
        ],
    )
}
fn f1_trmm_all_sides_uplos_ops_diags_forms_sizes_c32(dev: &Device) {
    trmm_suite::<Complex32>(
        dev,
        63,
        &[(L, UP, OC, UN, 129, 64), (R, UP, ON, NU, 31, 128)],
    )
}
fn f1_trmm_all_sides_uplos_ops_diags_forms_sizes_c64(dev: &Device) {
    trmm_suite::<Complex64>(
        dev,
        64,
        &[(L, LO, OT, NU, 257, 31), (R, UP, OC, UN, 64, 127)],
    )
}

crate::on_both_backends!(
    f1_gemm_all_ops_forms_sizes_f32,
    f1_gemm_all_ops_forms_sizes_f64,
    f1_gemm_all_ops_forms_sizes_c32,
    f1_gemm_all_ops_forms_sizes_c64,
    f1_gemm_long_k_f32,
    f1_gemm_long_k_f64,
    f1_gemm_long_k_c32,
    f1_gemm_long_k_c64,
    f1_symm_hemm_all_sides_uplos_forms_sizes_f32,
    f1_symm_hemm_all_sides_uplos_forms_sizes_f64,
    f1_symm_hemm_all_sides_uplos_forms_sizes_c32,
    f1_symm_hemm_all_sides_uplos_forms_sizes_c64,
    f1_syrk_herk_all_uplos_ops_forms_sizes_f32,
    f1_syrk_herk_all_uplos_ops_forms_sizes_f64,
    f1_syrk_herk_all_uplos_ops_forms_sizes_c32,
    f1_syrk_herk_all_uplos_ops_forms_sizes_c64,
    f1_syr2k_her2k_all_uplos_ops_forms_sizes_f32,
    f1_syr2k_her2k_all_uplos_ops_forms_sizes_f64,
    f1_syr2k_her2k_all_uplos_ops_forms_sizes_c32,
    f1_syr2k_her2k_all_uplos_ops_forms_sizes_c64,
    f1_syrkx_herkx_all_uplos_ops_forms_sizes_f32,
    f1_syrkx_herkx_all_uplos_ops_forms_sizes_f64,
    f1_syrkx_herkx_all_uplos_ops_forms_sizes_c32,
    f1_syrkx_herkx_all_uplos_ops_forms_sizes_c64,
    f1_trmm_all_sides_uplos_ops_diags_forms_sizes_f32,
    f1_trmm_all_sides_uplos_ops_diags_forms_sizes_f64,
    f1_trmm_all_sides_uplos_ops_diags_forms_sizes_c32,
    f1_trmm_all_sides_uplos_ops_diags_forms_sizes_c64,
);
