//! M6, M8, M9, F4, F8: the workspace.

use super::*;

/// A representative call of every routine, including shapes that split (tall skinny
/// transposed, short wide) and the blocked trsv.
fn workspace_cases<E: T>(dev: &Device, r: &mut Gen) -> Vec<(String, Prepared<E>)> {
    let (alpha, beta) = (mk::<E>((0.75, -0.25)), mk::<E>((0.5, 0.125)));
    let mut cases = vec![
        (Case::gemv(Op::T, 1 << 16, 8, 1 << 16, 1, 1), Form::Single),
        (Case::gemv(Op::N, 8, 1 << 16, 8, 1, -1), Form::Single),
        (Case::gemv(Op::C, 1000, 33, 1003, 1, 1), Form::Strided(3)),
        (Case::gemv(Op::N, 300, 7, 300, 2, 1), Form::List(7)),
        (
            Case::sym(Rt::Symv, Uplo::Upper, 1000, 1000, 1, 1),
            Form::Single,
        ),
        (
            Case::tri(
                Rt::Trmv,
                Uplo::Lower,
                Op::T,
                Diag::NonUnit,
                1000,
                0,
                1000,
                1,
            ),
            Form::Single,
        ),
        (
            Case::tri(Rt::Tbmv, Uplo::Upper, Op::N, Diag::Unit, 1000, 5, 6, -1),
            Form::Strided(2),
        ),
        (
            Case::tri(Rt::Tpmv, Uplo::Lower, Op::C, Diag::NonUnit, 500, 0, 0, 1),
            Form::List(2),
        ),
        (
            Case::tri(
                Rt::Trsv,
                Uplo::Upper,
                Op::N,
                Diag::NonUnit,
                1000,
                0,
                1000,
                1,
            ),
            Form::Single,
        ),
        (
            Case::tri(Rt::Trsv, Uplo::Lower, Op::T, Diag::Unit, 300, 0, 300, 2),
            Form::Strided(2),
        ),
        (
            Case::tri(Rt::Trsv, Uplo::Upper, Op::C, Diag::NonUnit, 200, 0, 200, 1),
            Form::List(3),
        ),
    ];
    if E::CPLX {
        cases.push((
            Case::sym(Rt::Hemv, Uplo::Lower, 1000, 1000, -1, 1),
            Form::Single,
        ));
    }
    cases
        .into_iter()
        .map(|(c, form)| {
            (
                format!("{} {c:?} {form:?}", E::NAME),
                prepare(dev, r, c, form, Scal::Host, &[alpha], &[beta], false),
            )
        })
        .collect()
}

fn query_preallocate_small<E: T>(dev: &Device, seed: u64) {
    let mut r = Gen::new(seed);
    for (name, mut p) in workspace_cases::<E>(dev, &mut r) {
        // M8: placeholders are accepted; real operands are not touched; nothing is leased.
        let mut h = fixed_handle(dev, 0);
        h.start_device_memory_size_query().unwrap();
        let st = p
            .call_placeholders(&mut h)
            .unwrap_or_else(|e| panic!("{name}: query with placeholders: {e}"));
        assert!(
            matches!(st, Status::SizeIncreased | Status::SizeUnchanged),
            "{name}: {st:?}"
        );
        let again = p.call(&mut h).unwrap();
        assert_eq!(again, Status::SizeUnchanged, "{name}: the same call again");
        p.untouched(&format!("{name}: during a query"));
        let size = h.stop_device_memory_size_query().unwrap();
        assert_eq!(st == Status::SizeIncreased, size > 0, "{name}: size {size}");
        let s = h.workspace_stats();
        assert_eq!(
            (s.leases, s.growths, s.capacity, s.memory_errors),
            (0, 0, 0, 0),
            "{name}: {s}"
        );
        // M9: preallocated with the answer, the call runs as planned.
        let _ = h.set_device_memory_size(size).unwrap();
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(st, Status::Success, "{name}: size {size}");
        p.check(&name);
        let s = h.workspace_stats();
        assert_eq!((s.memory_errors, s.degraded_calls), (0, 0), "{name}: {s}");
        // M6: a fixed 1 KiB workspace degrades exactly when the query exceeds it.
        p.reset();
        let mut small = fixed_handle(dev, 1024);
        let st = p
            .call(&mut small)
            .unwrap_or_else(|e| panic!("{name}: 1 KiB: {e}"));
        let degraded = size > 1024;
        let expect = if degraded {
            Status::PerfDegraded
        } else {
            Status::Success
        };
        assert_eq!(st, expect, "{name}: 1 KiB workspace, query said {size}");
        p.check(&format!("{name} (1 KiB workspace)"));
        let s = small.workspace_stats();
        assert_eq!(s.degraded_calls, degraded as u64, "{name}: {s}");
        assert_eq!(s.memory_errors, 0, "{name}: {s}");
        assert_eq!(small.get_device_memory_size(), 1024);
    }
}

fn m08_m09_m06_query_then_preallocate_then_1kib_f32(dev: &Device) {
    query_preallocate_small::<f32>(dev, 101)
}
fn m08_m09_m06_query_then_preallocate_then_1kib_c64(dev: &Device) {
    query_preallocate_small::<Complex64>(dev, 102)
}

/// During a query sizes and shapes are still checked (M8), and the query stays active.
fn m08_query_still_checks_sizes(dev: &Device) {
    let mut h = fixed_handle(dev, 0);
    h.start_device_memory_size_query().unwrap();
    let a = DeviceBuffer::<f64>::placeholder(100);
    let x = DeviceBuffer::<f64>::placeholder(10);
    let mut y = DeviceBuffer::<f64>::placeholder(10);
    let e = blas2::gemv(
        &mut h,
        Op::N,
        10,
        10,
        1.0.into(),
        &a,
        9,
        &x,
        1,
        0.0.into(),
        &mut y,
        1,
    )
    .unwrap_err();
    assert!(
        matches!(e, Error::InvalidSize(_)) && e.to_string().contains("lda = 9"),
        "{e}"
    );
    let e = blas2::tbmv(
        &mut h,
        Uplo::Upper,
        Op::N,
        Diag::Unit,
        5,
        5,
        &a,
        5,
        &mut y,
        1,
    )
    .unwrap_err();
    // k >= n is valid (reference BLAS); lda < k + 1 is not.
    assert!(
        matches!(e, Error::InvalidSize(_)) && e.to_string().contains("lda = 5"),
        "{e}"
    );
    assert!(h.is_device_memory_size_query());
    // Placeholders too short are not checked during a query (operands are checked later).
    let tiny = DeviceBuffer::<f64>::placeholder(1);
    let st = blas2::trmv(
        &mut h,
        Uplo::Upper,
        Op::N,
        Diag::Unit,
        5,
        &tiny,
        5,
        &mut y,
        1,
    )
    .unwrap();
    assert!(matches!(st, Status::SizeIncreased | Status::SizeUnchanged));
    let _ = h.stop_device_memory_size_query().unwrap();
}

/// F4: `workspace_bytes` answers what a query answers.
fn f4_workspace_bytes_agrees_with_the_query(dev: &Device) {
    fn agree<E: T>(dev: &Device, c: Case, form: Form) {
        let count = form_count(form);
        let (lx, ly) = c.lens();
        let ph = |span: usize| {
            let mut p = Placed::<E> {
                form,
                stride: span + GAP,
                bufs: vec![],
                before: vec![],
            };
            let lens: Vec<usize> = match form {
                Form::Single => vec![span + 1],
                Form::List(n) => vec![span + 1; n],
                Form::Strided(n) => vec![(span + GAP) * n + 1],
            };
            p.bufs = lens.iter().map(|&l| DeviceBuffer::placeholder(l)).collect();
            p
        };
        let a = ph(c.a_span());
        let (x, mut out) = if c.has_y() {
            (Some(ph(vspan(lx, c.incx))), ph(vspan(ly, c.incy)))
        } else {
            (None, ph(vspan(lx, c.incx)))
        };
        let mut h = fixed_handle(dev, 0);
        h.start_device_memory_size_query().unwrap();
        let (alpha, beta) = (mk::<E>((0.5, 0.0)), mk::<E>((2.0, 0.0)));
        let _ = dispatch(
            &mut h,
            &c,
            &a,
            x.as_ref(),
            &mut out,
            alpha.into(),
            beta.into(),
        )
        .unwrap_or_else(|e| panic!("{c:?}: {e}"));
        let q = h.stop_device_memory_size_query().unwrap();
        let op = if c.has_y() && c.rt != Rt::Gemv {
            Op::N
        } else {
            c.op
        };
        let w = blas2::workspace_bytes(
            dev,
            c.rt.name(),
            op,
            c.m,
            c.n,
            std::mem::size_of::<E>(),
            count,
            matches!(form, Form::List(_)),
        )
        .unwrap();
        assert_eq!(w, q, "{} {c:?} {form:?}", E::NAME);
    }
    let tri = |rt, uplo, op, n, k, lda| Case::tri(rt, uplo, op, Diag::NonUnit, n, k, lda, 1);
    agree::<f32>(
        dev,
        Case::gemv(Op::T, 1 << 16, 8, 1 << 16, 1, 1),
        Form::Single,
    );
    agree::<f64>(
        dev,
        Case::gemv(Op::N, 8, 1 << 16, 8, 1, 1),
        Form::Strided(3),
    );
    agree::<Complex32>(dev, Case::gemv(Op::C, 16, 16, 16, 1, 1), Form::List(100));
    agree::<f64>(dev, Case::gemv(Op::N, 0, 16, 1, 1, 1), Form::Single);
    agree::<f64>(
        dev,
        Case::sym(Rt::Symv, Uplo::Upper, 1000, 1000, 1, 1),
        Form::Single,
    );
    agree::<Complex64>(
        dev,
        Case::sym(Rt::Hemv, Uplo::Lower, 1000, 1000, 1, 1),
        Form::List(2),
    );
    agree::<f32>(
        dev,
        tri(Rt::Trmv, Uplo::Lower, Op::T, 1000, 0, 1000),
        Form::Single,
    );
    agree::<Complex32>(
        dev,
        tri(Rt::Tbmv, Uplo::Upper, Op::N, 1000, 5, 6),
        Form::Strided(2),
    );
    agree::<f64>(
        dev,
        tri(Rt::Tpmv, Uplo::Lower, Op::C, 500, 0, 0),
        Form::List(4),
    );
    agree::<f64>(
        dev,
        tri(Rt::Trsv, Uplo::Upper, Op::N, 1000, 0, 1000),
        Form::Single,
    );
    agree::<Complex64>(
        dev,
        tri(Rt::Trsv, Uplo::Lower, Op::C, 1000, 0, 1000),
        Form::Single,
    );
    agree::<f32>(
        dev,
        tri(Rt::Trsv, Uplo::Lower, Op::N, 100, 0, 100),
        Form::List(9),
    );
}

/// F8: a list batch of 100 runs in chunks in a 1 KiB workspace, with the same answers.
fn f8_list_batch_of_100_runs_in_chunks_in_1kib(dev: &Device) {
    let mut r = Gen::new(111);
    let (alpha, beta) = (0.75f64, -0.5f64);
    let tri = |rt, uplo, op, diag| Case::tri(rt, uplo, op, diag, 16, 0, 16, 1);
    for c in [
        Case::gemv(Op::T, 16, 16, 16, 1, 1),
        Case::gemv(Op::N, 16, 16, 19, -1, 2),
        Case::sym(Rt::Symv, Uplo::Lower, 16, 16, 1, 1),
        tri(Rt::Trmv, Uplo::Upper, Op::N, Diag::NonUnit),
        tri(Rt::Tpmv, Uplo::Lower, Op::T, Diag::Unit),
        tri(Rt::Trsv, Uplo::Lower, Op::N, Diag::Unit),
        tri(Rt::Trsv, Uplo::Upper, Op::T, Diag::NonUnit),
    ] {
        let name = format!("{c:?} List(100)");
        let mut p = prepare(
            dev,
            &mut r,
            c,
            Form::List(100),
            Scal::Host,
            &[alpha],
            &[beta],
            false,
        );
        let mut q = fixed_handle(dev, 0);
        q.start_device_memory_size_query().unwrap();
        let _ = p.call_placeholders(&mut q).unwrap();
        let size = q.stop_device_memory_size_query().unwrap();
        assert!(size > 1024, "{name}: query {size}");
        let mut small = fixed_handle(dev, 1024);
        let st = p.call(&mut small).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(st, Status::PerfDegraded, "{name}");
        p.check(&name);
        let s = small.workspace_stats();
        assert_eq!((s.degraded_calls, s.memory_errors), (1, 0), "{name}: {s}");
    }
}

/// F8: when not even one entry's table fits, `MemoryError` naming both sizes and the
/// per-entry need, with every output untouched.
fn f8_memory_error_when_not_one_entry_fits(dev: &Device) {
    let mut r = Gen::new(112);
    let mut h = user_owned_handle(dev, 8);
    let tri = |rt, n| Case::tri(rt, Uplo::Upper, Op::N, Diag::NonUnit, n, 0, n, 1);
    let mut errors = 0;
    for (c, form) in [
        (Case::gemv(Op::N, 16, 16, 16, 1, 1), Form::List(5)),
        (Case::gemv(Op::T, 1 << 12, 8, 1 << 12, 1, 1), Form::List(2)),
        (
            Case::sym(Rt::Symv, Uplo::Upper, 100, 100, 1, 1),
            Form::List(3),
        ),
        (tri(Rt::Trmv, 16), Form::List(5)),
        (tri(Rt::Trsv, 300), Form::List(2)),
    ] {
        let name = format!("{c:?} {form:?}");
        let mut p = prepare(dev, &mut r, c, form, Scal::Host, &[1.5f64], &[0.5], false);
        let mut q = fixed_handle(dev, 0);
        q.start_device_memory_size_query().unwrap();
        let _ = p.call_placeholders(&mut q).unwrap();
        let size = q.stop_device_memory_size_query().unwrap();
        let e = p.call(&mut h).unwrap_err();
        errors += 1;
        match &e {
            Error::MemoryError {
                needed, available, ..
            } => assert_eq!((*needed, *available), (size, 8), "{name}: {e}"),
            _ => panic!("{name}: {e}"),
        }
        let text = e.to_string();
        for part in [size.to_string(), "8 bytes".to_string(), "64".to_string()] {
            assert!(text.contains(&part), "{name}: '{text}' lacks '{part}'");
        }
        p.untouched(&name);
        assert_eq!(h.workspace_stats().memory_errors, errors, "{name}");
    }
}

/// F8: a workspace that holds one entry's address table (one 64-byte chunk) runs a list batch
/// one entry at a time rather than failing.
fn f8_a_workspace_holding_one_entry_runs_the_list(dev: &Device) {
    let mut r = Gen::new(113);
    let tri = |rt, n| Case::tri(rt, Uplo::Lower, Op::N, Diag::NonUnit, n, 0, n, 1);
    for (c, form) in [
        (Case::gemv(Op::N, 4, 4, 4, 1, 1), Form::List(3)),
        (tri(Rt::Trsv, 4), Form::List(5)),
    ] {
        let name = format!("{c:?} {form:?} in 64 bytes");
        let mut p = prepare(dev, &mut r, c, form, Scal::Host, &[1.5f64], &[0.5], false);
        let mut q = fixed_handle(dev, 0);
        q.start_device_memory_size_query().unwrap();
        let _ = p.call_placeholders(&mut q).unwrap();
        let size = q.stop_device_memory_size_query().unwrap();
        assert!(size > 64, "{name}: query {size}");
        let mut h = fixed_handle(dev, 64);
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(st, Status::PerfDegraded, "{name}");
        p.check(&name);
    }
}

/// M6: routines whose reduced algorithm needs no workspace at all (gemv without splits,
/// symv reading the triangle twice, in-place trmv, substitution trsv) run in a workspace too
/// small for anything, degraded, with the same answers.
fn m06_reduced_algorithms_run_in_an_8_byte_workspace(dev: &Device) {
    let mut r = Gen::new(114);
    let tri = |rt, op, n, k, lda| Case::tri(rt, Uplo::Lower, op, Diag::NonUnit, n, k, lda, 1);
    for (c, form) in [
        (Case::gemv(Op::T, 1 << 16, 8, 1 << 16, 1, 1), Form::Single),
        (
            Case::sym(Rt::Symv, Uplo::Upper, 300, 300, 1, 1),
            Form::Single,
        ),
        (tri(Rt::Trmv, Op::T, 300, 0, 300), Form::Single),
        (tri(Rt::Tbmv, Op::N, 300, 3, 4), Form::Strided(2)),
        (tri(Rt::Tpmv, Op::C, 300, 0, 0), Form::Single),
        (tri(Rt::Trsv, Op::N, 300, 0, 300), Form::Single),
        (tri(Rt::Trsv, Op::T, 300, 0, 300), Form::Strided(2)),
    ] {
        let name = format!("{c:?} {form:?} in 8 bytes");
        let mut p = prepare(dev, &mut r, c, form, Scal::Host, &[1.5f64], &[0.5], false);
        let mut q = fixed_handle(dev, 0);
        q.start_device_memory_size_query().unwrap();
        let _ = p.call_placeholders(&mut q).unwrap();
        let size = q.stop_device_memory_size_query().unwrap();
        assert!(size > 8, "{name}: query {size}");
        let mut h = user_owned_handle(dev, 8);
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(st, Status::PerfDegraded, "{name}");
        p.check(&name);
    }
}

/// F4: symv and spmv in f32, f64 and c32 need their region partials, `elem ceil(n / 256)
/// roundup(n, 32)` bytes an entry (4 / 8 MiB at n = 16384 for 4 / 8-byte elements), whatever
/// the device and the storage; hemv and Complex64 keep the split sweep.
fn f4_symv_needs_a_partial_vector_per_region_row(dev: &Device) {
    let need = |routine, n, batch, list| {
        blas2::workspace_bytes(dev, routine, Op::N, 0, n, 4, batch, list).unwrap()
    };
    assert_eq!(need("symv", 16384, 1, false), 4 * 64 * 16384);
    assert_eq!(need("symv", 1000, 3, false), 3 * 4 * 4 * 1024);
    assert_eq!(need("symv", 257, 1, false), 4 * 2 * 288);
    assert_eq!(need("symv", 1, 1, false), 4 * 32); // one vector of 32 floats
                                                   // A list adds its address table (3 addresses an entry), each part rounded to 64 bytes.
    assert_eq!(need("symv", 256, 5, true), 5 * 4 * 256 + 128);
    assert_eq!(need("spmv", 1000, 1, false), need("symv", 1000, 1, false));
    // f64 and c32 (8-byte elements) too; hemv/hpmv and c64 keep the split sweep.
    let need8 = |routine, n| blas2::workspace_bytes(dev, routine, Op::N, 0, n, 8, 1, false);
    assert_eq!(need8("symv", 16384).unwrap(), 8 * 64 * 16384);
    assert_eq!(need8("spmv", 1000).unwrap(), 8 * 4 * 1024);
    let split =
        |routine, elem| blas2::workspace_bytes(dev, routine, Op::N, 0, 1000, elem, 1, false);
    assert_ne!(split("hemv", 8).unwrap(), 8 * 4 * 1024);
    assert_ne!(split("symv", 16).unwrap(), 16 * 4 * 1024);
}

/// F8, M6: symv's region partials (f32, f64 and the complex symmetric c32) run a batch a few
/// entries per launch in a workspace that holds a few entries' partials, and below one entry the
/// split sweep or the two-pass algorithm: `PerfDegraded`, the same answers.
fn f8_symv_region_partials_chunk_the_batch(dev: &Device) {
    region_chunks::<f32>(dev, 115);
    region_chunks::<f64>(dev, 116);
    region_chunks::<Complex32>(dev, 117);
}

fn region_chunks<E: T>(dev: &Device, seed: u64) {
    let mut r = Gen::new(seed);
    // n = 300: two region rows of 320 elements.
    let per_entry = std::mem::size_of::<E>() * 2 * 320;
    for (uplo, form) in [
        (Uplo::Lower, Form::Strided(5)),
        (Uplo::Upper, Form::List(5)),
    ] {
        let c = Case::sym(Rt::Symv, uplo, 300, 301, 1, -2);
        let mut p = prepare(
            dev,
            &mut r,
            c,
            form,
            Scal::Host,
            &[E::make(0.75, 0.0)],
            &[E::make(-0.5, 0.0)],
            false,
        );
        let mut q = fixed_handle(dev, 0);
        q.start_device_memory_size_query().unwrap();
        let _ = p.call_placeholders(&mut q).unwrap();
        let size = q.stop_device_memory_size_query().unwrap();
        assert!(size >= 5 * per_entry, "{c:?} {form:?}: query {size}");
        for (bytes, expect) in [
            (size, Status::Success),
            (2 * per_entry + 128, Status::PerfDegraded),
            (per_entry / 2, Status::PerfDegraded),
            (128, Status::PerfDegraded),
        ] {
            let name = format!("{c:?} {form:?} in {bytes} bytes");
            p.reset();
            let mut h = fixed_handle(dev, bytes);
            let st = p.call(&mut h).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(st, expect, "{name}");
            p.check(&name);
            let s = h.workspace_stats();
            assert_eq!(s.memory_errors, 0, "{name}: {s}");
        }
    }
}

crate::on_both_backends!(
    m08_m09_m06_query_then_preallocate_then_1kib_f32,
    m08_m09_m06_query_then_preallocate_then_1kib_c64,
    m08_query_still_checks_sizes,
    f4_workspace_bytes_agrees_with_the_query,
    f8_list_batch_of_100_runs_in_chunks_in_1kib,
    f8_memory_error_when_not_one_entry_fits,
    f8_a_workspace_holding_one_entry_runs_the_list,
    m06_reduced_algorithms_run_in_an_8_byte_workspace,
    f4_symv_needs_a_partial_vector_per_region_row,
    f8_symv_region_partials_chunk_the_batch,
);
