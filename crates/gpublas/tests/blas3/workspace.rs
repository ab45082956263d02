//! M6, M8, M9, F4: the workspace.

use super::*;

/// A representative call of every routine (its single, list and strided forms among them).
fn workspace_cases<E: T>() -> Vec<(Case, Form)> {
    let mut v = vec![
        (Case::gemm(OT, ON, 129, 127, 257).fit(3, 0, 1), Form::Single),
        (Case::gemm(ON, OC, 33, 129, 31), Form::Strided(3)),
        (Case::gemm(ON, ON, 31, 33, 32).fit(1, 1, 1), Form::List(7)),
        (Case::mm(Rt::Symm, L, LO, 129, 64), Form::Single),
        (
            Case::mm(Rt::Symm, R, UP, 33, 31).fit(2, 0, 0),
            Form::List(3),
        ),
        (Case::rk(Rt::Syrk, UP, OT, 129, 64), Form::Single),
        (Case::rk(Rt::Syrk, LO, ON, 33, 31), Form::Strided(3)),
        (Case::rk(Rt::Syr2k, UP, ON, 129, 33), Form::Single),
        (Case::rk(Rt::Syrkx, LO, OT, 128, 31), Form::List(2)),
        (Case::tr(L, UP, ON, NU, 129, 64), Form::Single),
        (Case::tr(R, LO, OC, UN, 64, 129).fit(0, 0, 3), Form::List(2)),
        (Case::tr(L, LO, OT, NU, 33, 31), Form::Strided(3)),
    ];
    if E::CPLX {
        v.extend([
            (Case::mm(Rt::Hemm, R, UP, 64, 129), Form::Single),
            (Case::rk(Rt::Herk, LO, OC, 129, 64), Form::Single),
            (Case::rk(Rt::Her2k, LO, OC, 64, 129), Form::Strided(2)),
            (Case::rk(Rt::Herkx, UP, ON, 129, 64), Form::List(2)),
        ]);
    }
    v
}

/// The workspace a query asks for, with placeholders.
fn query_size<E: T>(dev: &Device, p: &Prepared<E>) -> usize {
    let mut q = fixed_handle(dev, 0);
    q.start_device_memory_size_query().unwrap();
    let _ = p
        .call_placeholders(&mut q)
        .unwrap_or_else(|e| panic!("{}: query: {e}", p.name()));
    q.stop_device_memory_size_query().unwrap()
}

const SMALL_WS: usize = 16 << 10;

/// Runs `f` on every item, then fails listing each one that panicked, so that one failing
/// routine does not hide the others.
fn each<X>(items: Vec<X>, mut f: impl FnMut(X)) {
    let mut failures = vec![];
    for x in items {
        if let Err(p) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(x))) {
            failures.push(panic_text(&*p));
        }
    }
    assert!(
        failures.is_empty(),
        "{} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn query_preallocate_small<E: T>(dev: &Device, seed: u64) {
    let mut r = Gen::new(seed);
    let (alpha, beta) = ((0.75, -0.25), (0.5, 0.125));
    each(workspace_cases::<E>(), |(c, form)| {
        let mut p = prepare::<E>(dev, &mut r, c, form, Scal::Host, &[alpha], &[beta]);
        let name = p.name();
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
        // F4: the need depends on the arguments alone: real operands ask for the same.
        let mut q = fixed_handle(dev, 0);
        q.start_device_memory_size_query().unwrap();
        let _ = p.call(&mut q).unwrap();
        let real = q.stop_device_memory_size_query().unwrap();
        assert_eq!(real, size, "{name}: query with real operands");
        let s = h.workspace_stats();
        assert_eq!(
            (s.leases, s.growths, s.capacity, s.memory_errors),
            (0, 0, 0, 0),
            "{name}: {s}"
        );
        // M9: preallocated with the answer, the call runs as planned (a Managed handle of
        // capacity 0 when the answer is 0: it must not grow).
        let _ = h.set_device_memory_size(size).unwrap();
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(st, Status::Success, "{name}: size {size}");
        p.check(&name);
        let s = h.workspace_stats();
        assert_eq!(
            (s.memory_errors, s.degraded_calls, s.growths),
            (0, 0, 0),
            "{name}: {s}"
        );
        // M6: a fixed 16 KiB workspace degrades exactly when the query exceeds it.
        p.reset();
        let mut small = fixed_handle(dev, SMALL_WS);
        let st = p
            .call(&mut small)
            .unwrap_or_else(|e| panic!("{name}: 16 KiB: {e}"));
        let degraded = size > SMALL_WS;
        let expect = if degraded {
            Status::PerfDegraded
        } else {
            Status::Success
        };
        assert_eq!(st, expect, "{name}: 16 KiB workspace, query said {size}");
        p.check(&format!("{name} (16 KiB workspace)"));
        let s = small.workspace_stats();
        assert_eq!(s.degraded_calls, degraded as u64, "{name}: {s}");
        assert_eq!(s.memory_errors, 0, "{name}: {s}");
        assert_eq!(small.get_device_memory_size(), SMALL_WS);
    });
}

fn m08_m09_m06_query_then_preallocate_then_16kib_f64(dev: &Device) {
    query_preallocate_small::<f64>(dev, 121)
}
fn m08_m09_m06_query_then_preallocate_then_16kib_c32(dev: &Device) {
    query_preallocate_small::<Complex32>(dev, 122)
}

fn m08_m09_m06_gemm_ex_query_then_preallocate_then_16kib(dev: &Device) {
    fn one<I, O>(dev: &Device, r: &mut Gen, c: Case, form: Form, compute: ComputeType)
    where
        I: GemmExIn + El,
        O: GemmExOut<I> + El,
        I::Scale: El,
    {
        let mut p = prepare_ex::<I, O>(
            dev,
            r,
            c,
            form,
            compute,
            Scal::Host,
            &[(0.75, 0.0)],
            &[(-0.5, 0.0)],
        );
        let name = p.name();
        let mut h = fixed_handle(dev, 0);
        h.start_device_memory_size_query().unwrap();
        let st = p
            .call_placeholders(&mut h)
            .unwrap_or_else(|e| panic!("{name}: query: {e}"));
        assert!(
            matches!(st, Status::SizeIncreased | Status::SizeUnchanged),
            "{name}: {st:?}"
        );
        assert_eq!(p.call(&mut h).unwrap(), Status::SizeUnchanged, "{name}");
        p.untouched(&format!("{name}: during a query"));
        let size = h.stop_device_memory_size_query().unwrap();
        let _ = h.set_device_memory_size(size).unwrap();
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(st, Status::Success, "{name}: size {size}");
        p.check(&name);
        let s = h.workspace_stats();
        assert_eq!(
            (s.memory_errors, s.degraded_calls, s.growths),
            (0, 0, 0),
            "{name}: {s}"
        );
        p.out.reset();
        let mut small = fixed_handle(dev, SMALL_WS);
        let st = p
            .call(&mut small)
            .unwrap_or_else(|e| panic!("{name}: 16 KiB: {e}"));
        let expect = if size > SMALL_WS {
            Status::PerfDegraded
        } else {
            Status::Success
        };
        assert_eq!(st, expect, "{name}: 16 KiB, query said {size}");
        p.check(&format!("{name} (16 KiB workspace)"));
    }
    let mut r = Gen::new(123);
    let f = ComputeType::F32;
    one::<f16, f32>(
        dev,
        &mut r,
        Case::gemm(OT, ON, 129, 128, 257),
        Form::Single,
        f,
    );
    one::<bf16, bf16>(
        dev,
        &mut r,
        Case::gemm(ON, OT, 33, 31, 32),
        Form::List(3),
        f,
    );
    one::<f16, f16>(
        dev,
        &mut r,
        Case::gemm(ON, ON, 64, 65, 66).fit(1, 0, 2),
        Form::Strided(2),
        f,
    );
    one::<f32, f32>(
        dev,
        &mut r,
        Case::gemm(OC, ON, 64, 65, 66),
        Form::Strided(2),
        ComputeType::F32FastTf32,
    );
    one::<f64, f64>(
        dev,
        &mut r,
        Case::gemm(OT, ON, 128, 64, 129),
        Form::Single,
        ComputeType::F64,
    );
}

/// The cases: syrk n = 257, k = 64; trmm m = n = 257; symm m = n = 257 (f64) run
/// degraded in a 16 KiB workspace, with the right answers.
fn m06_16kib_degrades_syrk_trmm_symm_of_order_257(dev: &Device) {
    let mut r = Gen::new(124);
    let cases = vec![
        Case::rk(Rt::Syrk, LO, ON, 257, 64),
        Case::tr(L, UP, ON, NU, 257, 257),
        Case::mm(Rt::Symm, L, UP, 257, 257),
    ];
    each(cases, |c| {
        let mut p = prepare::<f64>(
            dev,
            &mut r,
            c,
            Form::Single,
            Scal::Host,
            &[(0.75, 0.0)],
            &[(-0.5, 0.0)],
        );
        let name = p.name();
        let size = query_size(dev, &p);
        assert!(size > SMALL_WS, "{name}: query {size}");
        let mut small = fixed_handle(dev, SMALL_WS);
        let st = p.call(&mut small).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(st, Status::PerfDegraded, "{name}");
        p.check(&name);
        let s = small.workspace_stats();
        assert_eq!((s.degraded_calls, s.memory_errors), (1, 0), "{name}: {s}");
    });
}

/// M6: in a 64-byte user-owned workspace a call either runs its reduced algorithm (same
/// answers) or fails with `MemoryError` naming the query's size and 64, touching nothing.
fn m06_tiny_workspace_degrades_or_fails_with_outputs_untouched(dev: &Device) {
    let mut r = Gen::new(125);
    let mut h = user_owned_handle(dev, 64);
    let mut errors = 0;
    for (c, form) in workspace_cases::<Complex32>() {
        let mut p = prepare::<Complex32>(
            dev,
            &mut r,
            c,
            form,
            Scal::Host,
            &[(0.5, -0.25)],
            &[(1.5, 0.5)],
        );
        let name = p.name();
        let size = query_size(dev, &p);
        match p.call(&mut h) {
            Ok(st) => {
                let expect = if size > 64 {
                    Status::PerfDegraded
                } else {
                    Status::Success
                };
                assert_eq!(st, expect, "{name}: query said {size}");
                p.check(&name);
            }
            Err(e @ Error::MemoryError { .. }) => {
                errors += 1;
                let Error::MemoryError {
                    needed, available, ..
                } = &e
                else {
                    unreachable!()
                };
                assert_eq!((*needed, *available), (size, 64), "{name}: {e}");
                let text = e.to_string();
                assert!(text.contains(&size.to_string()), "{name}: {text}");
                p.untouched(&name);
            }
            Err(e) => panic!("{name}: {e}"),
        }
        assert_eq!(h.workspace_stats().memory_errors, errors, "{name}");
    }
}

/// During a query sizes and shapes are still checked (M8), and the query stays active.
fn m08_query_still_checks_sizes(dev: &Device) {
    let mut h = fixed_handle(dev, 0);
    h.start_device_memory_size_query().unwrap();
    let a = DeviceBuffer::<f64>::placeholder(100);
    let b = DeviceBuffer::<f64>::placeholder(100);
    let mut c = DeviceBuffer::<f64>::placeholder(100);
    let e = blas3::gemm(
        &mut h,
        Op::N,
        Op::N,
        10,
        10,
        10,
        1.0.into(),
        &a,
        9,
        &b,
        10,
        0.0.into(),
        &mut c,
        10,
    )
    .unwrap_err();
    assert!(
        matches!(e, Error::InvalidSize(_)) && e.to_string().contains("lda = 9"),
        "{e}"
    );
    let e = blas3::trmm(
        &mut h,
        Side::Right,
        Uplo::Upper,
        Op::T,
        Diag::Unit,
        5,
        5,
        1.0.into(),
        &a,
        5,
        &mut c,
        4,
    )
    .unwrap_err();
    assert!(
        matches!(e, Error::InvalidSize(_)) && e.to_string().contains("ldb = 4"),
        "{e}"
    );
    let e = blas3::syrk(
        &mut h,
        Uplo::Lower,
        Op::T,
        6,
        7,
        1.0.into(),
        &a,
        6,
        0.0.into(),
        &mut c,
        6,
    )
    .unwrap_err();
    assert!(
        matches!(e, Error::InvalidSize(_)) && e.to_string().contains("lda = 6"),
        "{e}"
    );
    assert!(h.is_device_memory_size_query());
    // Placeholders too short are not checked during a query (operands are checked later).
    let tiny = DeviceBuffer::<f64>::placeholder(1);
    let mut tiny_c = DeviceBuffer::<f64>::placeholder(1);
    let st = blas3::gemm(
        &mut h,
        Op::T,
        Op::N,
        50,
        40,
        30,
        1.0.into(),
        &tiny,
        30,
        &tiny,
        30,
        0.5.into(),
        &mut tiny_c,
        50,
    )
    .unwrap();
    assert!(matches!(st, Status::SizeIncreased | Status::SizeUnchanged));
    let _ = h.stop_device_memory_size_query().unwrap();
}

crate::on_both_backends!(
    m08_m09_m06_query_then_preallocate_then_16kib_f64,
    m08_m09_m06_query_then_preallocate_then_16kib_c32,
    m08_m09_m06_gemm_ex_query_then_preallocate_then_16kib,
    m06_16kib_degrades_syrk_trmm_symm_of_order_257,
    m06_tiny_workspace_degrades_or_fails_with_outputs_untouched,
    m08_query_still_checks_sizes,
);
