//! M8, M9: query, preallocate, Success.

use super::*;

/// Query (placeholders, then the real operands, which must come back untouched and ask for the
/// same), then a handle of exactly that size: `Success`, the right answer, no growth.
fn m9_trsm_one<E: T>(dev: &Device, p: &mut Prepared<E>) {
    let name = p.name();
    let size = query_trsm(dev, p);
    let mut q = fixed_handle(dev, 0);
    q.start_device_memory_size_query().unwrap();
    let _ = p
        .call(&mut q)
        .unwrap_or_else(|e| panic!("{name}: query: {e}"));
    p.untouched(&format!("{name}: during a query"));
    assert_eq!(
        q.stop_device_memory_size_query().unwrap(),
        size,
        "{name}: real operands"
    );
    let mut h = fixed_handle(dev, size);
    let st = p
        .call(&mut h)
        .unwrap_or_else(|e| panic!("{name}: workspace {size}: {e}"));
    assert_eq!(
        st,
        Status::Success,
        "{name}: workspace of the query's {size} bytes"
    );
    p.check(&name);
    let s = h.workspace_stats();
    assert_eq!(
        (s.memory_errors, s.degraded_calls, s.growths),
        (0, 0, 0),
        "{name}: {s}"
    );
}

fn m08_m09_trsm_query_then_preallocate_runs_as_planned(dev: &Device) {
    let mut hh = handle(dev);
    let mut r = Gen::new(71);
    let mut items: Vec<(Case, Form, Way, Scal)> = vec![];
    for (i, cb) in combos().into_iter().enumerate() {
        items.push((Case::of(cb, 300, 129), Form::Single, Way::Trsm, Scal::Host));
        let way = [Way::Substitute, Way::Inverse, Way::Invert][i % 3];
        let scal = [Scal::Host, Scal::Device, Scal::PerEntry][i % 3];
        let form = [Form::Strided(3), Form::List(2), Form::Single][i % 3];
        items.push((Case::of(cb, 65, 129).fit(1, 2), form, way, scal));
    }
    each(items, |(c, form, way, scal)| {
        let mut p = prepare::<f64>(
            &mut hh,
            &mut r,
            c,
            form,
            1,
            way,
            scal,
            (-0.75, 0.0),
            Fill::Well,
        );
        m9_trsm_one(dev, &mut p);
    });
    each(vec![(L, UP, OC, NU), (R, LO, ON, UN)], |cb| {
        let c = Case::of(cb, 129, 300);
        let mut p = prepare::<Complex32>(
            &mut hh,
            &mut r,
            c,
            Form::Strided(2),
            0,
            Way::Trsm,
            Scal::Device,
            (0.5, 1.0),
            Fill::Well,
        );
        m9_trsm_one(dev, &mut p);
    });
}

fn m08_m09_trtri_query_then_preallocate_runs_as_planned(dev: &Device) {
    let mut r = Gen::new(72);
    let mut items = vec![];
    for uplo in UPLOS {
        for diag in DIAGS {
            items.push(((uplo, diag, 300, 0, 1), Form::Single));
            items.push(((uplo, diag, 129, 2, 3), Form::Strided(3)));
            items.push(((uplo, diag, 65, 1, 1), Form::List(7)));
        }
    }
    each(items, |(shape, form)| {
        let mut p = prepare_inv::<f64>(dev, &mut r, shape, form, 2, Fill::Well);
        let name = p.name();
        let size = query_trtri(dev, &p);
        let mut q = fixed_handle(dev, 0);
        q.start_device_memory_size_query().unwrap();
        let _ = p
            .call(&mut q)
            .unwrap_or_else(|e| panic!("{name}: query: {e}"));
        p.inv.untouched(&format!("{name}: during a query"));
        assert_eq!(
            q.stop_device_memory_size_query().unwrap(),
            size,
            "{name}: real operands"
        );
        let mut h = fixed_handle(dev, size);
        let st = p
            .call(&mut h)
            .unwrap_or_else(|e| panic!("{name}: workspace {size}: {e}"));
        assert_eq!(
            st,
            Status::Success,
            "{name}: workspace of the query's {size} bytes"
        );
        p.check(&name);
        let s = h.workspace_stats();
        assert_eq!(
            (s.memory_errors, s.degraded_calls, s.growths),
            (0, 0, 0),
            "{name}: {s}"
        );
    });
}

crate::on_both_backends!(
    m08_m09_trsm_query_then_preallocate_runs_as_planned,
    m08_m09_trtri_query_then_preallocate_runs_as_planned,
);
