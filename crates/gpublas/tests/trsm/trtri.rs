//! F1: trtri.

use super::*;

const TRTRI_SIZES: &[usize] = &[0, 1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 300];

fn trtri_suite<E: T>(dev: &Device, seed: u64) {
    let mut h = handle(dev);
    let mut r = Gen::new(seed);
    let mut cases = vec![];
    let mut t = seed as usize;
    for uplo in UPLOS {
        for diag in DIAGS {
            for &n in TRTRI_SIZES {
                t += 1;
                let form = if n > 65 {
                    BIG_FORMS[t % 3]
                } else {
                    FORMS[t % FORMS.len()]
                };
                cases.push(((uplo, diag, n, [0, 3, 1][t % 3], [1, 2, 5][t % 3]), form, t));
            }
        }
    }
    each(cases, |(shape, form, t)| {
        let mut p = prepare_inv::<E>(dev, &mut r, shape, form, GAPS[t % 3], Fill::Well);
        let what = p.name();
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(st, Status::Success, "{what}");
        p.check(&what);
    });
}

fn f1_trtri_all_uplos_diags_forms_sizes_f32(dev: &Device) {
    trtri_suite::<f32>(dev, 51)
}
fn f1_trtri_all_uplos_diags_forms_sizes_f64(dev: &Device) {
    trtri_suite::<f64>(dev, 52)
}
fn f1_trtri_all_uplos_diags_forms_sizes_c32(dev: &Device) {
    trtri_suite::<Complex32>(dev, 53)
}
fn f1_trtri_all_uplos_diags_forms_sizes_c64(dev: &Device) {
    trtri_suite::<Complex64>(dev, 54)
}

crate::on_both_backends!(
    f1_trtri_all_uplos_diags_forms_sizes_f32,
    f1_trtri_all_uplos_diags_forms_sizes_f64,
    f1_trtri_all_uplos_diags_forms_sizes_c32,
    f1_trtri_all_uplos_diags_forms_sizes_c64,
);
