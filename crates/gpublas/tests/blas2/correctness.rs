//! F1: correctness of every routine, type and form.

use super::*;

/// Sizes where blocking changes, small enough for the whole cross product.
const SMALL: &[usize] = &[0, 1, 2, 31, 32, 33];
/// Block edges around 64 and 128.
const MID: &[usize] = &[63, 64, 65, 127, 128, 129];
/// A representative set of layouts with increments for the larger sizes.
const MID_FORMS: &[(Form, isize, isize)] = &[
    (Form::Single, 1, 1),
    (Form::Strided(1), -1, 2),
    (Form::List(7), 1, -1),
    (Form::Strided(7), 2, 1),
];
const INC_PAIRS: &[(isize, isize)] = &[(1, 1), (2, -1), (-3, 2)];
/// Edges of symv's 256 × 256 regions on the GPU (f32, f64, c32): one region short of a row,
/// one, one and a row, two short of a row, two and a row.
const REGION_EDGES: &[usize] = &[255, 256, 257, 511, 513];
const INCS: &[isize] = &[1, -1, 2, -3];

fn gemv_suite<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0usize;
    // Every op, layout and increment pair at the small sizes, lda = m and m + 3.
    for &m in SMALL {
        for &n in SMALL {
            for op in OPS {
                for &(incx, incy) in INC_PAIRS {
                    for &form in FORMS {
                        t += 1;
                        let lda = if t % 2 == 0 { m + 3 } else { m.max(1) };
                        let c = Case::gemv(op, m, n, lda, incx, incy);
                        check_case::<E>(&mut h, dev, &mut r, c, form, COEFS[t % COEFS.len()]);
                    }
                }
            }
        }
    }
    // Block edges: square, and with a short other side.
    for &s in MID {
        for &(m, n) in &[(s, s), (s, 5), (5, s)] {
            for op in OPS {
                for &(form, incx, incy) in MID_FORMS {
                    t += 1;
                    if m != n && t % 2 == 0 {
                        continue;
                    }
                    let c = Case::gemv(op, m, n, m + (t % 2) * 3, incx, incy);
                    check_case::<E>(&mut h, dev, &mut r, c, form, COEFS[t % COEFS.len()]);
                }
            }
        }
    }
    // Large products with lda = m: every column aligned, so the GPU's steps that hold only
    // existing, aligned elements take their path without per-element checks.
    for &(m, n) in &[(1000, 1000), (1024, 600), (600, 1024)] {
        for op in OPS {
            for (form, incx, incy) in [(Form::Single, 1, 1), (Form::Strided(2), -1, 2)] {
                t += 1;
                let c = Case::gemv(op, m, n, m, incx, incy);
                check_case::<E>(&mut h, dev, &mut r, c, form, COEFS[t % COEFS.len()]);
            }
        }
    }
    // Large and skinny products, lda = m + 3.
    for &(m, n) in &[(1000, 1000), (300, 7), (7, 300), (1000, 33), (33, 1000)] {
        for op in OPS {
            let mut forms = vec![(Form::Single, 1, 1), (Form::Strided(1), -1, -2)];
            if m != n {
                forms.push((Form::List(7), 2, 1));
            }
            for (form, incx, incy) in forms {
                t += 1;
                let c = Case::gemv(op, m, n, m + 3, incx, incy);
                check_case::<E>(&mut h, dev, &mut r, c, form, COEFS[t % COEFS.len()]);
            }
        }
    }
}

/// Many small matrices in one strided batch: enough entries that the CUDA backend gives each
/// 16 bytes of y (op N) or each column (op T/C) its own thread, several entries to a block
/// (columns of at most 128 bytes and 2048 threads per multiprocessor, `Blas2Params`). Aligned
/// and misaligned columns, rows that end mid-chunk, increments other than one.
fn gemv_many_small_suite<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let rows = 128 / std::mem::size_of::<E>();
    let vec = (16 / std::mem::size_of::<E>()).max(1);
    let threads = dev.multiprocessor_count() * 2048;
    let mut t = 0usize;
    for op in OPS {
        for &(m, n, lda, incx, incy) in &[
            (rows, 16, rows, 1, 1),
            (rows - 1, 5, rows + 1, 2, -1),
            (3, rows, 3, -1, 1),
        ] {
            t += 1;
            let per_entry = if op == Op::N { m.div_ceil(vec) } else { n };
            let batch = threads.div_ceil(per_entry) + 3;
            let c = Case::gemv(op, m, n, lda, incx, incy);
            check_case::<E>(
                &mut h,
                dev,
                &mut r,
                c,
                Form::Strided(batch),
                COEFS[t % COEFS.len()],
            );
        }
    }
}

fn symv_hemv_suite<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0usize;
    let rts: &[Rt] = if E::CPLX {
        &[Rt::Symv, Rt::Hemv]
    } else {
        &[Rt::Symv]
    };
    for &rt in rts {
        for &n in SMALL {
            for uplo in UPLOS {
                for &(incx, incy) in INC_PAIRS {
                    for &form in FORMS {
                        t += 1;
                        let lda = if t % 2 == 0 { n + 3 } else { n.max(1) };
                        let c = Case::sym(rt, uplo, n, lda, incx, incy);
                        check_case::<E>(&mut h, dev, &mut r, c, form, COEFS[t % COEFS.len()]);
                    }
                }
            }
        }
        for &n in MID {
            for uplo in UPLOS {
                for &(form, incx, incy) in MID_FORMS {
                    t += 1;
                    let c = Case::sym(rt, uplo, n, n + (t % 2) * 3, incx, incy);
                    check_case::<E>(&mut h, dev, &mut r, c, form, COEFS[t % COEFS.len()]);
                }
            }
        }
        // Region edges, with lda = n (for 256 and 512 aligned columns: 16-byte copies), lda = n
        // + 1 (no column aligned but the first) and lda a multiple of 4 above n (aligned
        // columns, a strided batch's later entries not).
        for &n in REGION_EDGES {
            for uplo in UPLOS {
                for (form, lda, incx, incy) in [
                    (Form::Single, n, 1, 1),
                    (Form::Strided(2), n + 1, -1, 2),
                    (Form::List(3), n.next_multiple_of(4) + 4, 2, -1),
                ] {
                    t += 1;
                    let c = Case::sym(rt, uplo, n, lda, incx, incy);
                    check_case::<E>(&mut h, dev, &mut r, c, form, COEFS[t % COEFS.len()]);
                }
            }
        }
        for uplo in UPLOS {
            for &(form, incx, incy) in &[(Form::Single, 1, 1), (Form::Strided(1), -1, 2)] {
                t += 1;
                let c = Case::sym(rt, uplo, 1000, 1003, incx, incy);
                check_case::<E>(&mut h, dev, &mut r, c, form, COEFS[t % COEFS.len()]);
                // lda = n: aligned columns (the GPU's interior steps).
                t += 1;
                let c = Case::sym(rt, uplo, 1000, 1000, incx, incy);
                check_case::<E>(&mut h, dev, &mut r, c, form, COEFS[t % COEFS.len()]);
            }
        }
    }
}

/// Band widths 0, 1 and n - 1 (those valid for n), and for the newer band routines one wider
/// than the matrix (valid: its rows beyond the matrix are never read); `[0]` for the other
/// routines.
pub(super) fn band_widths(rt: Rt, n: usize) -> Vec<usize> {
    if !rt.banded() {
        return vec![0];
    }
    let mut ks = vec![0, 1, n.saturating_sub(1)];
    ks.retain(|&k| k < n.max(1));
    if rt != Rt::Tbmv {
        ks.push(n + 2);
    }
    ks.dedup();
    ks
}

/// A leading dimension for the routine: the least valid one or three more.
pub(super) fn tri_lda(rt: Rt, n: usize, k: usize, t: usize) -> usize {
    let extra = if t % 2 == 0 { 3 } else { 0 };
    match rt {
        rt if rt.banded() => k + 1 + extra,
        rt if rt.packed() => 0,
        _ => n.max(1) + extra,
    }
}

pub(super) fn tri_suite<E: T>(dev: &Device, seed: u64, rt: Rt) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut t = 0usize;
    let mut combos = vec![];
    for uplo in UPLOS {
        for op in OPS {
            for diag in DIAGS {
                combos.push((uplo, op, diag));
            }
        }
    }
    let id = (ONE, ZERO);
    // Every uplo/op/diag, band width and layout at the small sizes; increments in rotation.
    for &n in SMALL {
        for &(uplo, op, diag) in &combos {
            for k in band_widths(rt, n) {
                for &form in FORMS {
                    t += 1;
                    let incx = INCS[t % INCS.len()];
                    let c = Case::tri(rt, uplo, op, diag, n, k, tri_lda(rt, n, k, t), incx);
                    check_case::<E>(&mut h, dev, &mut r, c, form, id);
                }
            }
        }
    }
    for &n in MID {
        for &(uplo, op, diag) in &combos {
            for &(form, incx, _) in &MID_FORMS[..3] {
                t += 1;
                let ks = band_widths(rt, n);
                let k = ks[t % ks.len()];
                let c = Case::tri(rt, uplo, op, diag, n, k, tri_lda(rt, n, k, t), incx);
                check_case::<E>(&mut h, dev, &mut r, c, form, id);
            }
        }
    }
    // Large: every uplo/op/diag; trsv also at 300 (the GPU changes algorithm above 128).
    let bigs: &[usize] = if rt.solve() { &[300, 1000] } else { &[1000] };
    for &n in bigs {
        for (ci, &(uplo, op, diag)) in combos.iter().enumerate() {
            let mut forms = vec![(Form::Single, 1)];
            if ci % 3 == 0 {
                forms.push((Form::Strided(1), -1));
            }
            if n == 300 {
                forms.push((Form::List(3), 2));
                forms.push((Form::Strided(2), -3));
            }
            for (form, incx) in forms {
                t += 1;
                let ks = band_widths(rt, n);
                let k = ks[t % ks.len()];
                let c = Case::tri(rt, uplo, op, diag, n, k, tri_lda(rt, n, k, t), incx);
                check_case::<E>(&mut h, dev, &mut r, c, form, id);
            }
        }
    }
}

fn f1_gemv_all_ops_forms_sizes_f32(dev: &Device) {
    gemv_suite::<f32>(dev, 11)
}
fn f1_gemv_all_ops_forms_sizes_f64(dev: &Device) {
    gemv_suite::<f64>(dev, 12)
}
fn f1_gemv_all_ops_forms_sizes_c32(dev: &Device) {
    gemv_suite::<Complex32>(dev, 13)
}
fn f1_gemv_all_ops_forms_sizes_c64(dev: &Device) {
    gemv_suite::<Complex64>(dev, 14)
}
fn f1_gemv_many_small_matrices_f32(dev: &Device) {
    gemv_many_small_suite::<f32>(dev, 15)
}
fn f1_gemv_many_small_matrices_f64(dev: &Device) {
    gemv_many_small_suite::<f64>(dev, 16)
}
fn f1_gemv_many_small_matrices_c32(dev: &Device) {
    gemv_many_small_suite::<Complex32>(dev, 17)
}
fn f1_gemv_many_small_matrices_c64(dev: &Device) {
    gemv_many_small_suite::<Complex64>(dev, 18)
}
fn f1_symv_hemv_all_uplos_forms_sizes_f32(dev: &Device) {
    symv_hemv_suite::<f32>(dev, 21)
}
fn f1_symv_hemv_all_uplos_forms_sizes_f64(dev: &Device) {
    symv_hemv_suite::<f64>(dev, 22)
}
fn f1_symv_hemv_all_uplos_forms_sizes_c32(dev: &Device) {
    symv_hemv_suite::<Complex32>(dev, 23)
}
fn f1_symv_hemv_all_uplos_forms_sizes_c64(dev: &Device) {
    symv_hemv_suite::<Complex64>(dev, 24)
}
fn f1_trmv_all_uplos_ops_diags_forms_sizes_f32(dev: &Device) {
    tri_suite::<f32>(dev, 31, Rt::Trmv)
}
fn f1_trmv_all_uplos_ops_diags_forms_sizes_f64(dev: &Device) {
    tri_suite::<f64>(dev, 32, Rt::Trmv)
}
fn f1_trmv_all_uplos_ops_diags_forms_sizes_c32(dev: &Device) {
    tri_suite::<Complex32>(dev, 33, Rt::Trmv)
}
fn f1_trmv_all_uplos_ops_diags_forms_sizes_c64(dev: &Device) {
    tri_suite::<Complex64>(dev, 34, Rt::Trmv)
}
fn f1_tbmv_all_uplos_ops_diags_bands_forms_sizes_f32(dev: &Device) {
    tri_suite::<f32>(dev, 41, Rt::Tbmv)
}
fn f1_tbmv_all_uplos_ops_diags_bands_forms_sizes_f64(dev: &Device) {
    tri_suite::<f64>(dev, 42, Rt::Tbmv)
}
fn f1_tbmv_all_uplos_ops_diags_bands_forms_sizes_c32(dev: &Device) {
    tri_suite::<Complex32>(dev, 43, Rt::Tbmv)
}
fn f1_tbmv_all_uplos_ops_diags_bands_forms_sizes_c64(dev: &Device) {
    tri_suite::<Complex64>(dev, 44, Rt::Tbmv)
}
fn f1_tpmv_all_uplos_ops_diags_forms_sizes_f32(dev: &Device) {
    tri_suite::<f32>(dev, 51, Rt::Tpmv)
}
fn f1_tpmv_all_uplos_ops_diags_forms_sizes_f64(dev: &Device) {
    tri_suite::<f64>(dev, 52, Rt::Tpmv)
}
fn f1_tpmv_all_uplos_ops_diags_forms_sizes_c32(dev: &Device) {
    tri_suite::<Complex32>(dev, 53, Rt::Tpmv)
}
fn f1_tpmv_all_uplos_ops_diags_forms_sizes_c64(dev: &Device) {
    tri_suite::<Complex64>(dev, 54, Rt::Tpmv)
}
fn f1_trsv_all_uplos_ops_diags_forms_sizes_f32(dev: &Device) {
    tri_suite::<f32>(dev, 61, Rt::Trsv)
}
fn f1_trsv_all_uplos_ops_diags_forms_sizes_f64(dev: &Device) {
    tri_suite::<f64>(dev, 62, Rt::Trsv)
}
fn f1_trsv_all_uplos_ops_diags_forms_sizes_c32(dev: &Device) {
    tri_suite::<Complex32>(dev, 63, Rt::Trsv)
}
fn f1_trsv_all_uplos_ops_diags_forms_sizes_c64(dev: &Device) {
    tri_suite::<Complex64>(dev, 64, Rt::Trsv)
}

crate::on_both_backends!(
    f1_gemv_all_ops_forms_sizes_f32,
    f1_gemv_all_ops_forms_sizes_f64,
    f1_gemv_all_ops_forms_sizes_c32,
    f1_gemv_all_ops_forms_sizes_c64,
    f1_gemv_many_small_matrices_f32,
    f1_gemv_many_small_matrices_f64,
    f1_gemv_many_small_matrices_c32,
    f1_gemv_many_small_matrices_c64,
    f1_symv_hemv_all_uplos_forms_sizes_f32,
    f1_symv_hemv_all_uplos_forms_sizes_f64,
    f1_symv_hemv_all_uplos_forms_sizes_c32,
    f1_symv_hemv_all_uplos_forms_sizes_c64,
    f1_trmv_all_uplos_ops_diags_forms_sizes_f32,
    f1_trmv_all_uplos_ops_diags_forms_sizes_f64,
    f1_trmv_all_uplos_ops_diags_forms_sizes_c32,
    f1_trmv_all_uplos_ops_diags_forms_sizes_c64,
    f1_tbmv_all_uplos_ops_diags_bands_forms_sizes_f32,
    f1_tbmv_all_uplos_ops_diags_bands_forms_sizes_f64,
    f1_tbmv_all_uplos_ops_diags_bands_forms_sizes_c32,
    f1_tbmv_all_uplos_ops_diags_bands_forms_sizes_c64,
    f1_tpmv_all_uplos_ops_diags_forms_sizes_f32,
    f1_tpmv_all_uplos_ops_diags_forms_sizes_f64,
    f1_tpmv_all_uplos_ops_diags_forms_sizes_c32,
    f1_tpmv_all_uplos_ops_diags_forms_sizes_c64,
    f1_trsv_all_uplos_ops_diags_forms_sizes_f32,
    f1_trsv_all_uplos_ops_diags_forms_sizes_f64,
    f1_trsv_all_uplos_ops_diags_forms_sizes_c32,
    f1_trsv_all_uplos_ops_diags_forms_sizes_c64,
);
