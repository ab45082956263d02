//! M6, M8, M9, F4, F8: the rank updates need workspace only for a list batch's address table.

use super::*;
use gpublas::Op;

/// List batches of several routines and types: query with placeholders, preallocate the answer,
/// run with `Success`; the answer is `blas2::workspace_bytes`'s.
fn query_then_preallocate<E: T>(dev: &Device, seed: u64) {
    let mut r = Gen::new(seed);
    for (k, rt) in routines::<E>().into_iter().enumerate() {
        let c = case(rt, Uplo::Lower, 20, 17, 1, 1, -2);
        let batch = 5 + k;
        let al = Alphas::host(alpha_for(rt, k));
        let mut p = prepare::<E>(dev, &mut r, c, Form::List(batch), al, Data::Random);
        let name = format!("{} {c:?} list of {batch}", E::NAME);
        let mut h = fixed_handle(dev, 0);
        h.start_device_memory_size_query().unwrap();
        let st = p
            .call_placeholders(&mut h)
            .unwrap_or_else(|e| panic!("{name}: query with placeholders: {e}"));
        assert_eq!(st, Status::SizeIncreased, "{name}");
        assert_eq!(
            p.call(&mut h).unwrap(),
            Status::SizeUnchanged,
            "{name}: again"
        );
        p.untouched(&format!("{name}: during a query"));
        let size = h.stop_device_memory_size_query().unwrap();
        let ops = if rt.two() { 3 } else { 2 };
        let want = (batch * ops * 8).div_ceil(64) * 64;
        assert_eq!(size, want, "{name}: the table of {batch} entries");
        let elem = std::mem::size_of::<E>();
        let shape = blas2::workspace_bytes(dev, rt.name(), Op::N, c.m, c.n, elem, batch, true)
            .unwrap_or_else(|e| panic!("{name}: workspace_bytes: {e}"));
        assert_eq!(
            shape, size,
            "{name}: workspace_bytes and the query disagree"
        );
        let s = h.workspace_stats();
        assert_eq!((s.leases, s.growths, s.capacity), (0, 0, 0), "{name}: {s}");
        let _ = h.set_device_memory_size(size).unwrap();
        assert_eq!(
            p.call(&mut h).unwrap(),
            Status::Success,
            "{name}: preallocated"
        );
        p.check(&name);
        let s = h.workspace_stats();
        assert_eq!((s.memory_errors, s.degraded_calls), (0, 0), "{name}: {s}");
    }
}
fn m08_m09_list_forms_query_preallocate_success(dev: &Device) {
    query_then_preallocate::<f32>(dev, 71);
    query_then_preallocate::<Complex64>(dev, 72);
}

/// Single and strided calls need nothing: a query answers `SizeUnchanged`, size 0.
fn m08_single_and_strided_need_no_workspace(dev: &Device) {
    let mut r = Gen::new(73);
    for rt in routines::<Complex32>() {
        for form in [Form::Single, Form::Strided(4)] {
            let c = case(rt, Uplo::Upper, 9, 8, 0, -1, 1);
            let mut p =
                prepare::<Complex32>(dev, &mut r, c, form, Alphas::host((0.5, 0.0)), Data::Random);
            let mut h = fixed_handle(dev, 0);
            h.start_device_memory_size_query().unwrap();
            assert_eq!(p.call_placeholders(&mut h).unwrap(), Status::SizeUnchanged);
            assert_eq!(
                h.stop_device_memory_size_query().unwrap(),
                0,
                "{rt:?} {form:?}"
            );
            let need =
                blas2::workspace_bytes(dev, rt.name(), Op::N, c.m, c.n, 8, 4, false).unwrap();
            assert_eq!(need, 0, "{rt:?}");
            // With no workspace at all the call runs as planned.
            assert_eq!(p.call(&mut h).unwrap(), Status::Success);
            p.check(&format!("{rt:?} {form:?}"));
        }
    }
}

/// A fixed workspace too small for the whole table runs the batch in chunks: `PerfDegraded`,
/// the same answers (F8); one too small for even one entry is a `MemoryError` naming both
/// sizes, outputs untouched.
fn f8_m06_small_fixed_workspace_runs_list_batches_in_chunks(dev: &Device) {
    let mut r = Gen::new(74);
    for (k, rt) in routines::<f64>().into_iter().enumerate() {
        let c = case(rt, Uplo::Upper, 6, 5, 0, 1, 1);
        let batch = 40;
        let al = Alphas::host(alpha_for(rt, k));
        let mut p = prepare::<f64>(dev, &mut r, c, Form::List(batch), al, Data::Random);
        let name = format!("{c:?} list of {batch}");
        let mut h = fixed_handle(dev, 256);
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(st, Status::PerfDegraded, "{name}: 256 bytes");
        p.check(&format!("{name} (256 bytes)"));
        let s = h.workspace_stats();
        assert_eq!((s.degraded_calls, s.memory_errors), (1, 0), "{name}: {s}");
        p.reset();
        let mut tiny = fixed_handle(dev, 0);
        let _ = tiny
            .set_workspace(Some(dev.alloc::<u8>(16).unwrap()))
            .unwrap();
        match p.call(&mut tiny) {
            Err(Error::MemoryError {
                needed, available, ..
            }) => {
                assert_eq!(available, 16, "{name}");
                assert!(needed > 16, "{name}: needed {needed}");
            }
            other => panic!("{name}: 16 bytes: {other:?}"),
        }
        p.untouched(&format!("{name}: 16 bytes"));
    }
}

on_both_backends!(
    m08_m09_list_forms_query_preallocate_success,
    m08_single_and_strided_need_no_workspace,
    f8_m06_small_fixed_workspace_runs_list_batches_in_chunks,
);
