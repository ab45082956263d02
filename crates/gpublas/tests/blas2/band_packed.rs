//! F1, F3, F10, M6, M8, M9: the band and packed routines (`gbmv`, `sbmv`, `hbmv`, `spmv`,
//! `hpmv`, `tbsv`, `tpsv`) against the f64 references, with NaN in every stored place they
//! must not read (band padding, the other triangle, past the band, a unit diagonal, y when
//! beta = 0).

use super::correctness::{band_widths, tri_suite};
use super::*;

const SMALL: &[usize] = &[0, 1, 2, 31, 32, 33];
const MID: &[usize] = &[63, 64, 65, 127, 128, 129];
const MID_FORMS: &[(Form, isize, isize)] = &[
    (Form::Single, 1, 1),
    (Form::Strided(1), -1, 2),
    (Form::List(7), 1, -1),
    (Form::Strided(7), 2, -3),
];
const INC_PAIRS: &[(isize, isize)] = &[(1, 1), (2, -1), (-3, 2), (-1, -3)];

/// (kl, ku) pairs for an m × n gbmv: none, one side, both unequal, n - 1 and m - 1 wide, and
/// wider than the matrix.
fn gb_bands(m: usize, n: usize) -> Vec<(usize, usize)> {
    let mut v = vec![(0, 0), (1, 0), (0, 1), (2, 1)];
    v.push((m.saturating_sub(1), 1));
    v.push((0, n.saturating_sub(1)));
    v.push((m + 2, n + 1));
    v.dedup();
    v
}

fn gbmv_suite<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0usize;
    for &m in SMALL {
        for &n in SMALL {
            for op in OPS {
                for (kl, ku) in gb_bands(m, n) {
                    // Every layout once per band, increments and lda in rotation.
                    for &form in FORMS {
                        t += 1;
                        let (incx, incy) = INC_PAIRS[t % INC_PAIRS.len()];
                        let lda = kl + ku + 1 + (t % 2) * 2;
                        let c = Case::gbmv(op, m, n, kl, ku, lda, incx, incy);
                        check_case::<E>(&mut h, dev, &mut r, c, form, COEFS[t % COEFS.len()]);
                    }
                }
            }
        }
    }
    for &s in MID {
        for &(m, n) in &[(s, s), (s, 5), (5, s), (s, s / 2 + 3)] {
            for op in OPS {
                for &(form, incx, incy) in MID_FORMS {
                    t += 1;
                    let bands = gb_bands(m, n);
                    let (kl, ku) = bands[t % bands.len()];
                    let c = Case::gbmv(op, m, n, kl, ku, kl + ku + 1 + t % 3, incx, incy);
                    check_case::<E>(&mut h, dev, &mut r, c, form, COEFS[t % COEFS.len()]);
                }
            }
        }
    }
    // Large: band 64 (as the GPU targets), a one-sided and a lopsided band, m != n; and a
    // column of 256 and 257 stored rows, the GPU's band dots' limit for op T/C.
    for &(m, n, kl, ku) in &[
        (1000, 1000, 32, 31),
        (1000, 700, 64, 0),
        (700, 1000, 3, 70),
        (600, 500, 128, 127),
        (600, 500, 128, 128),
    ] {
        for op in OPS {
            for &(form, incx, incy) in &[(Form::Single, 1, 1), (Form::Strided(2), -2, 3)] {
                t += 1;
                let c = Case::gbmv(op, m, n, kl, ku, kl + ku + 4, incx, incy);
                check_case::<E>(&mut h, dev, &mut r, c, form, COEFS[t % COEFS.len()]);
            }
        }
    }
}

/// sbmv (and hbmv for complex types) with `band`, else spmv (and hpmv).
fn sym_suite<E: T>(dev: &Device, seed: u64, band: bool) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0usize;
    let rts: &[Rt] = match (band, E::CPLX) {
        (true, true) => &[Rt::Sbmv, Rt::Hbmv],
        (true, false) => &[Rt::Sbmv],
        (false, true) => &[Rt::Spmv, Rt::Hpmv],
        (false, false) => &[Rt::Spmv],
    };
    let lda = |rt: Rt, k: usize, t: usize| if rt.banded() { k + 1 + (t % 2) * 3 } else { 0 };
    for &rt in rts {
        for &n in SMALL {
            for uplo in UPLOS {
                for k in band_widths(rt, n) {
                    for &form in FORMS {
                        for &(incx, incy) in &INC_PAIRS[..2] {
                            t += 1;
                            let c = Case::symband(rt, uplo, n, k, lda(rt, k, t), incx, incy);
                            check_case::<E>(&mut h, dev, &mut r, c, form, COEFS[t % COEFS.len()]);
                        }
                    }
                }
            }
        }
        for &n in MID {
            for uplo in UPLOS {
                for &(form, incx, incy) in MID_FORMS {
                    t += 1;
                    let ks = band_widths(rt, n);
                    let k = ks[t % ks.len()];
                    let c = Case::symband(rt, uplo, n, k, lda(rt, k, t), incx, incy);
                    check_case::<E>(&mut h, dev, &mut r, c, form, COEFS[t % COEFS.len()]);
                }
            }
        }
        for uplo in UPLOS {
            for (k, form, incx, incy) in [(64, Form::Single, 1, 1), (5, Form::Strided(2), -1, 2)] {
                t += 1;
                let c = Case::symband(rt, uplo, 1000, k, lda(rt, k, t), incx, incy);
                check_case::<E>(&mut h, dev, &mut r, c, form, COEFS[t % COEFS.len()]);
            }
        }
        // Edges of spmv's 256 × 256 regions on the GPU (f32, f64, c32; packed columns at every
        // alignment: 16-, 8- and element copies).
        if !band {
            for n in [255, 257, 513] {
                for uplo in UPLOS {
                    for (form, incx, incy) in [
                        (Form::Single, 1, 1),
                        (Form::Strided(2), -1, 2),
                        (Form::List(3), 2, -1),
                    ] {
                        t += 1;
                        let c = Case::symband(rt, uplo, n, 0, 0, incx, incy);
                        check_case::<E>(&mut h, dev, &mut r, c, form, COEFS[t % COEFS.len()]);
                    }
                }
            }
        }
    }
}

/// tbsv with a band of 70 at n = 1000 (over a tile but not two: the GPU's blocked solve
/// multiplies only the tiles that meet the band).
fn tbsv_wide_band<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    for uplo in UPLOS {
        for op in OPS {
            for (diag, form, incx) in [
                (Diag::NonUnit, Form::Single, 1),
                (Diag::Unit, Form::Strided(2), -2),
            ] {
                let c = Case::tri(Rt::Tbsv, uplo, op, diag, 1000, 70, 73, incx);
                check_case::<E>(&mut h, dev, &mut r, c, form, (ONE, ZERO));
            }
        }
    }
}

fn f1_gbmv_all_ops_bands_forms_sizes_f32(dev: &Device) {
    gbmv_suite::<f32>(dev, 211)
}
fn f1_gbmv_all_ops_bands_forms_sizes_f64(dev: &Device) {
    gbmv_suite::<f64>(dev, 212)
}
fn f1_gbmv_all_ops_bands_forms_sizes_c32(dev: &Device) {
    gbmv_suite::<Complex32>(dev, 213)
}
fn f1_gbmv_all_ops_bands_forms_sizes_c64(dev: &Device) {
    gbmv_suite::<Complex64>(dev, 214)
}
fn f1_sbmv_hbmv_all_uplos_bands_forms_sizes_f32(dev: &Device) {
    sym_suite::<f32>(dev, 221, true)
}
fn f1_sbmv_hbmv_all_uplos_bands_forms_sizes_f64(dev: &Device) {
    sym_suite::<f64>(dev, 222, true)
}
fn f1_sbmv_hbmv_all_uplos_bands_forms_sizes_c32(dev: &Device) {
    sym_suite::<Complex32>(dev, 223, true)
}
fn f1_sbmv_hbmv_all_uplos_bands_forms_sizes_c64(dev: &Device) {
    sym_suite::<Complex64>(dev, 224, true)
}
fn f1_spmv_hpmv_all_uplos_forms_sizes_f32(dev: &Device) {
    sym_suite::<f32>(dev, 231, false)
}
fn f1_spmv_hpmv_all_uplos_forms_sizes_f64(dev: &Device) {
    sym_suite::<f64>(dev, 232, false)
}
fn f1_spmv_hpmv_all_uplos_forms_sizes_c32(dev: &Device) {
    sym_suite::<Complex32>(dev, 233, false)
}
fn f1_spmv_hpmv_all_uplos_forms_sizes_c64(dev: &Device) {
    sym_suite::<Complex64>(dev, 234, false)
}
fn f1_tbsv_all_uplos_ops_diags_bands_forms_sizes_f32(dev: &Device) {
    tri_suite::<f32>(dev, 241, Rt::Tbsv);
    tbsv_wide_band::<f32>(dev, 245);
}
fn f1_tbsv_all_uplos_ops_diags_bands_forms_sizes_f64(dev: &Device) {
    tri_suite::<f64>(dev, 242, Rt::Tbsv);
    tbsv_wide_band::<f64>(dev, 246);
}
fn f1_tbsv_all_uplos_ops_diags_bands_forms_sizes_c32(dev: &Device) {
    tri_suite::<Complex32>(dev, 243, Rt::Tbsv);
    tbsv_wide_band::<Complex32>(dev, 247);
}
fn f1_tbsv_all_uplos_ops_diags_bands_forms_sizes_c64(dev: &Device) {
    tri_suite::<Complex64>(dev, 244, Rt::Tbsv);
    tbsv_wide_band::<Complex64>(dev, 248);
}
fn f1_tpsv_all_uplos_ops_diags_forms_sizes_f32(dev: &Device) {
    tri_suite::<f32>(dev, 251, Rt::Tpsv)
}
fn f1_tpsv_all_uplos_ops_diags_forms_sizes_f64(dev: &Device) {
    tri_suite::<f64>(dev, 252, Rt::Tpsv)
}
fn f1_tpsv_all_uplos_ops_diags_forms_sizes_c32(dev: &Device) {
    tri_suite::<Complex32>(dev, 253, Rt::Tpsv)
}
fn f1_tpsv_all_uplos_ops_diags_forms_sizes_c64(dev: &Device) {
    tri_suite::<Complex64>(dev, 254, Rt::Tpsv)
}

/// One call of every band and packed product (hbmv/hpmv for complex types).
fn product_cases<E: T>(incx: isize, incy: isize) -> Vec<Case> {
    let mut v = vec![
        Case::gbmv(Op::N, 65, 33, 3, 7, 12, incx, incy),
        Case::gbmv(Op::C, 33, 65, 40, 0, 41, incx, incy),
        Case::symband(Rt::Sbmv, Uplo::Upper, 65, 4, 7, incx, incy),
        Case::symband(Rt::Spmv, Uplo::Lower, 33, 0, 0, incx, incy),
    ];
    if E::CPLX {
        v.push(Case::symband(Rt::Hbmv, Uplo::Lower, 33, 40, 41, incx, incy));
        v.push(Case::symband(Rt::Hpmv, Uplo::Upper, 65, 0, 0, incx, incy));
    }
    v
}

fn run_prepared<E: T>(h: &mut Handle, p: &mut Prepared<E>, what: &str) {
    let st = p.call(h).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(st, Status::Success, "{what}");
    p.check(what);
}

/// F3 and F10: quick returns touch nothing; beta = 0 does not read y, alpha = 0 reads neither
/// A nor x; device scalars, one or one per entry, follow the same rules.
fn scalar_rules<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let (a, b) = (mk::<E>((0.75, -0.5)), mk::<E>((-1.25, 0.25)));
    let (one, zero, two) = (mk::<E>(ONE), mk::<E>(ZERO), mk::<E>((2.0, 0.5)));
    for form in [Form::Single, Form::List(3), Form::Strided(3)] {
        // m == 0, n == 0: y keeps its values though beta != 1.
        for c in [
            Case::gbmv(Op::N, 5, 0, 1, 1, 3, 1, 1),
            Case::gbmv(Op::T, 0, 5, 2, 0, 3, 1, -2),
            Case::symband(Rt::Sbmv, Uplo::Lower, 0, 2, 3, 1, 1),
            Case::symband(Rt::Spmv, Uplo::Upper, 0, 0, 0, 1, 1),
        ] {
            let mut p = prepare(dev, &mut r, c, form, Scal::Host, &[two], &[two], false);
            let what = format!("{} quick {c:?} {form:?}", E::NAME);
            run_prepared(&mut h, &mut p, &what);
            p.untouched(&what);
        }
        for rt in [Rt::Tbsv, Rt::Tpsv] {
            let c = Case::tri(rt, Uplo::Upper, Op::C, Diag::Unit, 0, 2, 3, -1);
            let mut p = prepare(dev, &mut r, c, form, Scal::Host, &[one], &[zero], false);
            let what = format!("{} quick {c:?} {form:?}", E::NAME);
            run_prepared(&mut h, &mut p, &what);
            p.untouched(&what);
        }
        for &(incx, incy) in &[(1, 1), (-2, 3)] {
            for c in product_cases::<E>(incx, incy) {
                // Host alpha == 0 and beta == 1: nothing read (A and x NaN), nothing written.
                let mut p = prepare(dev, &mut r, c, form, Scal::Host, &[zero], &[one], true);
                let what = format!("{} alpha=0 beta=1 {c:?} {form:?}", E::NAME);
                run_prepared(&mut h, &mut p, &what);
                p.untouched(&what);
                for (alpha, beta, scal, nan_a) in [
                    (a, zero, Scal::Host, false),
                    (zero, b, Scal::Host, true),
                    (zero, zero, Scal::Host, true),
                    (a, b, Scal::Device, false),
                    (zero, one, Scal::Device, true),
                    (one, zero, Scal::Device, false),
                ] {
                    let mut p = prepare(dev, &mut r, c, form, scal, &[alpha], &[beta], nan_a);
                    let what = format!(
                        "{} {c:?} {form:?} {scal:?} alpha={alpha:?} beta={beta:?}",
                        E::NAME
                    );
                    run_prepared(&mut h, &mut p, &what);
                }
                // One scalar pair per entry, zeros among them.
                let count = form_count(form);
                let alphas: Vec<E> = (0..count).map(|e| [a, zero, one][e % 3]).collect();
                let betas: Vec<E> = (0..count).map(|e| [zero, b, one][e % 3]).collect();
                let mut p = prepare(dev, &mut r, c, form, Scal::PerEntry, &alphas, &betas, false);
                let what = format!("{} {c:?} {form:?} per entry", E::NAME);
                run_prepared(&mut h, &mut p, &what);
            }
        }
    }
}

fn f3_f10_band_packed_scalar_rules_f32(dev: &Device) {
    scalar_rules::<f32>(dev, 261)
}
fn f3_f10_band_packed_scalar_rules_c64(dev: &Device) {
    scalar_rules::<Complex64>(dev, 262)
}

/// Calls that borrow workspace (spmv/hpmv partials, tbsv/tpsv progress flags, list tables)
/// and calls that borrow none (gbmv, sbmv, hbmv).
fn workspace_cases<E: T>() -> Vec<(Case, Form)> {
    let tri = |rt, uplo, op, n, k, lda| Case::tri(rt, uplo, op, Diag::NonUnit, n, k, lda, 1);
    let mut v = vec![
        (Case::gbmv(Op::N, 1000, 900, 30, 33, 64, 1, 1), Form::Single),
        (
            Case::gbmv(Op::T, 900, 1000, 64, 0, 66, -1, 2),
            Form::List(3),
        ),
        (
            Case::symband(Rt::Sbmv, Uplo::Lower, 1000, 64, 65, 1, 1),
            Form::Strided(2),
        ),
        (
            Case::symband(Rt::Spmv, Uplo::Upper, 1000, 0, 0, 1, -1),
            Form::Single,
        ),
        (
            Case::symband(Rt::Spmv, Uplo::Lower, 300, 0, 0, 2, 1),
            Form::List(3),
        ),
        (
            tri(Rt::Tbsv, Uplo::Upper, Op::N, 1000, 70, 71),
            Form::Single,
        ),
        (tri(Rt::Tbsv, Uplo::Lower, Op::C, 300, 3, 5), Form::List(2)),
        (tri(Rt::Tpsv, Uplo::Lower, Op::T, 1000, 0, 0), Form::Single),
        (
            tri(Rt::Tpsv, Uplo::Upper, Op::N, 300, 0, 0),
            Form::Strided(2),
        ),
    ];
    if E::CPLX {
        v.push((
            Case::symband(Rt::Hbmv, Uplo::Upper, 1000, 64, 65, 1, 1),
            Form::Single,
        ));
        v.push((
            Case::symband(Rt::Hpmv, Uplo::Lower, 1000, 0, 0, -1, 1),
            Form::Single,
        ));
    }
    v
}

/// M8, M9, M6, F4: a query with placeholders, then a handle preallocated with its answer runs
/// with `Success`; a fixed workspace below the answer degrades (same results) exactly when the
/// query exceeded it; the answer equals `workspace_bytes` for the shape.
fn query_preallocate_small<E: T>(dev: &Device, seed: u64) {
    let mut r = Gen::new(seed);
    let (alpha, beta) = (mk::<E>((0.75, -0.25)), mk::<E>((0.5, 0.125)));
    for (c, form) in workspace_cases::<E>() {
        let name = format!("{} {c:?} {form:?}", E::NAME);
        let mut p = prepare(dev, &mut r, c, form, Scal::Host, &[alpha], &[beta], false);
        let mut h = fixed_handle(dev, 0);
        h.start_device_memory_size_query().unwrap();
        let st = p
            .call_placeholders(&mut h)
            .unwrap_or_else(|e| panic!("{name}: query: {e}"));
        p.untouched(&format!("{name}: during a query"));
        let size = h.stop_device_memory_size_query().unwrap();
        assert_eq!(
            st == Status::SizeIncreased,
            size > 0,
            "{name}: {st:?} {size}"
        );
        if matches!(c.rt, Rt::Gbmv | Rt::Sbmv | Rt::Hbmv) && !matches!(form, Form::List(_)) {
            assert_eq!(st, Status::SizeUnchanged, "{name}: no workspace");
        }
        let count = form_count(form);
        let op = if c.rt.sym() { Op::N } else { c.op };
        let elem = std::mem::size_of::<E>();
        let list = matches!(form, Form::List(_));
        let shape = blas2::workspace_bytes(dev, c.rt.name(), op, c.m, c.n, elem, count, list);
        assert_eq!(shape.unwrap(), size, "{name}: workspace_bytes");
        let _ = h.set_device_memory_size(size).unwrap();
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(st, Status::Success, "{name}: size {size}");
        p.check(&name);
        // A fixed workspace one chunk short of the answer (or of 1 KiB for the table).
        p.reset();
        let cap = if size > 64 { size - 64 } else { 1024 };
        let mut small = fixed_handle(dev, cap);
        let st = p
            .call(&mut small)
            .unwrap_or_else(|e| panic!("{name}: {cap} bytes: {e}"));
        let expect = if size > cap {
            Status::PerfDegraded
        } else {
            Status::Success
        };
        assert_eq!(st, expect, "{name}: {cap} bytes, query said {size}");
        p.check(&format!("{name} ({cap} bytes of workspace)"));
    }
}

fn m08_m09_m06_band_packed_query_preallocate_degrade_f64(dev: &Device) {
    query_preallocate_small::<f64>(dev, 271)
}
fn m08_m09_m06_band_packed_query_preallocate_degrade_c32(dev: &Device) {
    query_preallocate_small::<Complex32>(dev, 272)
}

crate::on_both_backends!(
    f1_gbmv_all_ops_bands_forms_sizes_f32,
    f1_gbmv_all_ops_bands_forms_sizes_f64,
    f1_gbmv_all_ops_bands_forms_sizes_c32,
    f1_gbmv_all_ops_bands_forms_sizes_c64,
    f1_sbmv_hbmv_all_uplos_bands_forms_sizes_f32,
    f1_sbmv_hbmv_all_uplos_bands_forms_sizes_f64,
    f1_sbmv_hbmv_all_uplos_bands_forms_sizes_c32,
    f1_sbmv_hbmv_all_uplos_bands_forms_sizes_c64,
    f1_spmv_hpmv_all_uplos_forms_sizes_f32,
    f1_spmv_hpmv_all_uplos_forms_sizes_f64,
    f1_spmv_hpmv_all_uplos_forms_sizes_c32,
    f1_spmv_hpmv_all_uplos_forms_sizes_c64,
    f1_tbsv_all_uplos_ops_diags_bands_forms_sizes_f32,
    f1_tbsv_all_uplos_ops_diags_bands_forms_sizes_f64,
    f1_tbsv_all_uplos_ops_diags_bands_forms_sizes_c32,
    f1_tbsv_all_uplos_ops_diags_bands_forms_sizes_c64,
    f1_tpsv_all_uplos_ops_diags_forms_sizes_f32,
    f1_tpsv_all_uplos_ops_diags_forms_sizes_f64,
    f1_tpsv_all_uplos_ops_diags_forms_sizes_c32,
    f1_tpsv_all_uplos_ops_diags_forms_sizes_c64,
    f3_f10_band_packed_scalar_rules_f32,
    f3_f10_band_packed_scalar_rules_c64,
    m08_m09_m06_band_packed_query_preallocate_degrade_f64,
    m08_m09_m06_band_packed_query_preallocate_degrade_c32,
);
