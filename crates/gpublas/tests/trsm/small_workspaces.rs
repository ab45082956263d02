//! M6, F8: small fixed workspaces degrade, same answers.

use super::*;

const KIB: usize = 1024;

/// In a fixed 1 KiB workspace: `PerfDegraded` exactly when the query asks for more (it must
/// for `Invert`), the right answer, no memory error.
fn trsm_in_1kib<E: T>(dev: &Device, p: &mut Prepared<E>) {
    let name = p.name();
    let size = query_trsm(dev, p);
    if matches!(p.way, Way::Trsm | Way::Invert) {
        assert!(size > KIB, "{name}: the query asks for only {size} bytes");
    }
    let mut h = fixed_handle(dev, KIB);
    let st = p
        .call(&mut h)
        .unwrap_or_else(|e| panic!("{name}: 1 KiB workspace: {e}"));
    let degraded = size > KIB;
    let expect = if degraded {
        Status::PerfDegraded
    } else {
        Status::Success
    };
    assert_eq!(st, expect, "{name}: 1 KiB workspace, query said {size}");
    eprintln!("{name}: query {size} bytes, in 1 KiB {st:?}");
    p.check(&format!("{name} (1 KiB workspace)"));
    let s = h.workspace_stats();
    assert_eq!(s.degraded_calls, degraded as u64, "{name}: {s}");
    assert_eq!((s.memory_errors, s.growths), (0, 0), "{name}: {s}");
    assert_eq!(h.get_device_memory_size(), KIB);
}

fn m06_f08_trsm_in_1kib_degrades_with_right_answers(dev: &Device) {
    let mut hh = handle(dev);
    let mut r = Gen::new(81);
    let items: Vec<(Case, Form, Way, bool)> = vec![
        (
            Case::new(L, UP, ON, NU, 129, 129),
            Form::Single,
            Way::Trsm,
            false,
        ),
        (
            Case::new(R, LO, OT, UN, 129, 129).fit(1, 2),
            Form::Single,
            Way::Trsm,
            true,
        ),
        (
            Case::new(L, LO, OC, NU, 129, 129),
            Form::Strided(7),
            Way::Trsm,
            false,
        ),
        (
            Case::new(R, UP, ON, NU, 65, 129),
            Form::List(7),
            Way::Trsm,
            true,
        ),
        (
            Case::new(L, UP, OT, UN, 300, 33),
            Form::Single,
            Way::Invert,
            false,
        ),
        (
            Case::new(R, UP, OC, NU, 64, 129),
            Form::Strided(7),
            Way::Substitute,
            true,
        ),
        (
            Case::new(L, LO, ON, NU, 129, 65),
            Form::Strided(7),
            Way::Inverse,
            false,
        ),
        (
            Case::new(R, LO, OT, NU, 33, 129),
            Form::List(3),
            Way::Inverse,
            true,
        ),
    ];
    each(items, |(c, form, way, cplx)| {
        if cplx {
            let mut p = prepare::<Complex32>(
                &mut hh,
                &mut r,
                c,
                form,
                1,
                way,
                Scal::Host,
                (0.5, -1.0),
                Fill::Well,
            );
            trsm_in_1kib(dev, &mut p);
        } else {
            let mut p = prepare::<f64>(
                &mut hh,
                &mut r,
                c,
                form,
                1,
                way,
                Scal::Host,
                (0.5, 0.0),
                Fill::Well,
            );
            trsm_in_1kib(dev, &mut p);
        }
    });
}

/// Below its full need `trtri` runs a reduced algorithm (`PerfDegraded`, right answers) or,
/// below its minimum, fails with a `MemoryError` naming both sizes and touching nothing; at
/// half, a quarter and 1 KiB of the need at least one size must degrade.
fn trtri_below_need<E: T>(
    dev: &Device,
    r: &mut Gen,
    shape: (Uplo, Diag, usize, usize, usize),
    form: Form,
) {
    let mut p = prepare_inv::<E>(dev, r, shape, form, 1, Fill::Well);
    let name = p.name();
    let full = query_trtri(dev, &p);
    assert!(
        full > 4 * KIB,
        "{name}: the query asks for only {full} bytes"
    );
    let mut degraded = 0;
    for ws in [full / 2, full / 4, KIB] {
        let ws = (ws / 64).max(1) * 64;
        let what = format!("{name} in {ws} of {full} bytes");
        p.inv.reset();
        let mut h = fixed_handle(dev, ws);
        match p.call(&mut h) {
            Ok(Status::PerfDegraded) => {
                eprintln!("{what}: PerfDegraded");
                degraded += 1;
                p.check(&what);
            }
            Ok(st) => panic!("{what}: {st:?}, want PerfDegraded"),
            Err(e @ Error::MemoryError { .. }) => {
                let Error::MemoryError {
                    needed, available, ..
                } = &e
                else {
                    unreachable!()
                };
                eprintln!("{what}: {e}");
                assert!(needed > available, "{what}: {e}");
                assert_eq!((*needed, *available), (full, ws), "{what}: {e}");
                let text = e.to_string();
                assert!(
                    text.contains(&needed.to_string()) && text.contains(&available.to_string()),
                    "{what}: {text}"
                );
                p.inv.untouched(&what);
                assert_eq!(h.workspace_stats().memory_errors, 1, "{what}");
            }
            Err(e) => panic!("{what}: {e}"),
        }
    }
    assert!(
        degraded > 0,
        "{name}: no reduced algorithm at 1/2, 1/4 or 1 KiB of {full} bytes"
    );
}

fn m06_f08_trtri_below_its_need_degrades_with_right_answers(dev: &Device) {
    let mut r = Gen::new(82);
    each(
        vec![
            ((UP, NU, 300, 1, 2), Form::Single, false),
            ((LO, UN, 300, 0, 1), Form::Single, false),
            ((LO, NU, 129, 2, 1), Form::Strided(7), false),
            ((UP, UN, 65, 0, 3), Form::List(7), false),
            ((LO, NU, 129, 1, 1), Form::Single, true),
            ((UP, NU, 128, 3, 2), Form::Strided(3), true),
        ],
        |(shape, form, cplx)| {
            if cplx {
                trtri_below_need::<Complex64>(dev, &mut r, shape, form)
            } else {
                trtri_below_need::<f64>(dev, &mut r, shape, form)
            }
        },
    );
}

crate::on_both_backends!(
    m06_f08_trsm_in_1kib_degrades_with_right_answers,
    m06_f08_trtri_below_its_need_degrades_with_right_answers,
);
