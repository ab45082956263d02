//! M6, M8, M9, F8: size queries, preallocated, small fixed and one-entry workspaces.

use super::*;

const KIB: usize = 1024;

/// Query (placeholders, then the real operands, which must come back untouched and ask for
/// the same), then a handle of exactly that size: `Success`, the right answer (bit for bit
/// the factorization's), no growth, no degraded call, no memory error.
fn m9_one(dev: &Device, job: &mut dyn Job) {
    let name = job.name();
    let size = query(dev, job);
    let mut q = fixed_handle(dev, 0);
    q.start_device_memory_size_query().unwrap();
    let st = job
        .call(&mut q)
        .unwrap_or_else(|e| panic!("{name}: query: {e}"));
    assert!(
        matches!(st, Status::SizeIncreased | Status::SizeUnchanged),
        "{name}: {st:?} during a query"
    );
    job.untouched(&format!("{name}: during a query"));
    assert_eq!(
        q.stop_device_memory_size_query().unwrap(),
        size,
        "{name}: real operands"
    );
    assert_eq!(q.get_device_memory_size(), 0, "{name}: a query allocated");
    let mut h = fixed_handle(dev, size);
    let st = job
        .call(&mut h)
        .unwrap_or_else(|e| panic!("{name}: workspace {size}: {e}"));
    assert_eq!(
        st,
        Status::Success,
        "{name}: workspace of the query's {size} bytes"
    );
    job.check(&name, true);
    let s = h.workspace_stats();
    assert_eq!(
        (s.memory_errors, s.degraded_calls, s.growths),
        (0, 0, 0),
        "{name}: {s}"
    );
}

fn m08_m09_drivers_query_then_preallocate_succeeds(dev: &Device) {
    let mut r = Gen::new(1901);
    each(jobs(dev, &mut r, true), |mut job| m9_one(dev, &mut *job));
}

/// The need of one call asked alone.
fn each_need(dev: &Device, f: impl FnOnce(&mut Handle) -> Result<Status, Error>) -> usize {
    let mut q = fixed_handle(dev, 0);
    q.start_device_memory_size_query().unwrap();
    let st = f(&mut q).unwrap();
    assert!(matches!(st, Status::SizeIncreased | Status::SizeUnchanged));
    q.stop_device_memory_size_query().unwrap()
}

/// During a query the size and shape arguments of both parts are checked (a bad one is the
/// call's error), placeholders are accepted for every operand (`info` in either memory),
/// nothing is allocated; a query of several calls asks for the largest need; gesv and posv
/// ask for at least what their factorization and their solve ask alone.
fn m08_drivers_query_checks_sizes_and_takes_placeholders(dev: &Device) {
    let (n, nrhs) = (200usize, 17usize);
    let mut h = fixed_handle(dev, 0);
    h.start_device_memory_size_query().unwrap();
    let mut pa = DeviceBuffer::<f64>::placeholder(n * n);
    let mut pb = DeviceBuffer::<f64>::placeholder(n * nrhs);
    let mut pp = DeviceBuffer::<i32>::placeholder(n);
    let mut pi = DeviceBuffer::<i32>::placeholder(1);
    let mut hi = [INFO_POISON];
    let e = solver::gesv(
        &mut h,
        10,
        2,
        &mut pa,
        10,
        &mut pp,
        &mut pb,
        9,
        Results::Host(&mut hi),
    );
    expect_err(e, is_size, &["ldb = 9"], "gesv ldb < n during a query");
    let e = solver::posv(
        &mut h,
        Uplo::Lower,
        10,
        2,
        &mut pa,
        9,
        &mut pb,
        10,
        Results::Device(&mut pi),
    );
    expect_err(e, is_size, &["lda = 9"], "posv lda < n during a query");
    let e = solver::getri(&mut h, 10, &mut pa, 8, &pp, Results::Device(&mut pi));
    expect_err(e, is_size, &["lda = 8"], "getri lda < n during a query");
    let mut sizes = vec![];
    let gesv = |q: &mut Handle| {
        solver::gesv(
            q,
            n,
            nrhs,
            &mut DeviceBuffer::<f64>::placeholder(n * n),
            n,
            &mut DeviceBuffer::placeholder(n),
            &mut DeviceBuffer::placeholder(n * nrhs),
            n,
            Results::Device(&mut DeviceBuffer::placeholder(1)),
        )
    };
    let st = gesv(&mut h).unwrap();
    assert!(matches!(st, Status::SizeIncreased | Status::SizeUnchanged));
    sizes.push(each_need(dev, gesv));
    let posv = |q: &mut Handle| {
        solver::posv(
            q,
            Uplo::Upper,
            n,
            nrhs,
            &mut DeviceBuffer::<f64>::placeholder(n * n),
            n,
            &mut DeviceBuffer::placeholder(n * nrhs),
            n,
            Results::Host(&mut [INFO_POISON]),
        )
    };
    let st = posv(&mut h).unwrap();
    assert!(matches!(st, Status::SizeIncreased | Status::SizeUnchanged));
    sizes.push(each_need(dev, posv));
    let getri = |q: &mut Handle| {
        solver::getri_strided_batched(
            q,
            n / 2,
            &mut DeviceBuffer::<f64>::placeholder(n * n),
            n / 2,
            n * n / 4,
            &DeviceBuffer::placeholder(n),
            n / 2,
            Results::Device(&mut DeviceBuffer::placeholder(2)),
            2,
        )
    };
    let st = getri(&mut h).unwrap();
    assert!(matches!(st, Status::SizeIncreased | Status::SizeUnchanged));
    sizes.push(each_need(dev, getri));
    let total = h.stop_device_memory_size_query().unwrap();
    assert_eq!(
        total,
        sizes.iter().copied().max().unwrap(),
        "the query of three calls against each one's need {sizes:?}"
    );
    assert_eq!(h.get_device_memory_size(), 0, "a query allocated");
    // A driver asks for at least what each of its parts asks alone.
    let getrf = each_need(dev, |q| {
        solver::getrf(
            q,
            n,
            n,
            &mut DeviceBuffer::<f64>::placeholder(n * n),
            n,
            Results::Device(&mut DeviceBuffer::placeholder(n)),
            Results::Device(&mut DeviceBuffer::placeholder(1)),
        )
    });
    let getrs = each_need(dev, |q| {
        solver::getrs(
            q,
            gpublas::Op::N,
            n,
            nrhs,
            &DeviceBuffer::<f64>::placeholder(n * n),
            n,
            &DeviceBuffer::placeholder(n),
            &mut DeviceBuffer::placeholder(n * nrhs),
            n,
        )
    });
    assert!(
        sizes[0] >= getrf.max(getrs),
        "gesv asks {} bytes, getrf {getrf}, getrs {getrs}",
        sizes[0]
    );
    let potrf = each_need(dev, |q| {
        solver::potrf(
            q,
            Uplo::Upper,
            n,
            &mut DeviceBuffer::<f64>::placeholder(n * n),
            n,
            Results::Host(&mut [INFO_POISON]),
        )
    });
    let potrs = each_need(dev, |q| {
        solver::potrs(
            q,
            Uplo::Upper,
            n,
            nrhs,
            &DeviceBuffer::<f64>::placeholder(n * n),
            n,
            &mut DeviceBuffer::placeholder(n * nrhs),
            n,
        )
    });
    assert!(
        sizes[1] >= potrf.max(potrs),
        "posv asks {} bytes, potrf {potrf}, potrs {potrs}",
        sizes[1]
    );
    expect_errs_done();
}

/// In a small fixed workspace (`cap` bytes: user-managed, or user-owned): either the call runs
/// (`Success` if the query asks for no more, else `PerfDegraded`) with the right answers, or
/// it returns `MemoryError` naming what it needs and what there is, with every output (both
/// parts' for gesv and posv) untouched.
fn in_fixed(dev: &Device, job: &mut dyn Job, cap: usize, owned: bool) {
    let name = format!(
        "{} ({cap} bytes, {})",
        job.name(),
        if owned { "user-owned" } else { "user-managed" }
    );
    let size = query(dev, job);
    let mut h = if owned {
        user_owned_handle(dev, cap)
    } else {
        let mut h = handle(dev);
        let _ = h.set_device_memory_size(cap).unwrap();
        assert!(h.is_user_managing_device_memory());
        h
    };
    assert_eq!(h.get_device_memory_size(), cap, "{name}");
    job.reset();
    match job.call(&mut h) {
        Ok(st) => {
            eprintln!("{name}: query {size} bytes: {st:?}");
            let want = if size > cap {
                Status::PerfDegraded
            } else {
                Status::Success
            };
            assert_eq!(st, want, "{name}: the query said {size}");
            job.check(&name, st == Status::Success);
            let s = h.workspace_stats();
            assert_eq!(s.degraded_calls, (size > cap) as u64, "{name}: {s}");
            assert_eq!((s.memory_errors, s.growths), (0, 0), "{name}: {s}");
        }
        Err(e @ Error::MemoryError { .. }) => {
            eprintln!("{name}: query {size} bytes: {e}");
            let Error::MemoryError {
                needed, available, ..
            } = &e
            else {
                unreachable!()
            };
            assert!(size > cap && *needed > *available, "{name}: {e}");
            assert_eq!(*available, cap, "{name}: {e}");
            let text = e.to_string();
            assert!(
                text.contains(&needed.to_string()) && text.contains(&available.to_string()),
                "{name}: {text}"
            );
            job.untouched(&format!("{name}: memory error"));
            let s = h.workspace_stats();
            assert_eq!((s.memory_errors, s.growths), (1, 0), "{name}: {s}");
        }
        Err(e) => panic!("{name}: {e}"),
    }
    assert_eq!(h.get_device_memory_size(), cap, "{name}");
}

fn m06_drivers_4kib_workspace_degrades_or_errs_untouched(dev: &Device) {
    let mut r = Gen::new(1911);
    each(jobs(dev, &mut r, false), |mut job| {
        in_fixed(dev, &mut *job, 4 * KIB, false)
    });
}

fn m06_drivers_one_chunk_workspace_degrades_or_errs_untouched(dev: &Device) {
    let mut r = Gen::new(1921);
    let mut items = vec![];
    for owned in [false, true] {
        for job in jobs(dev, &mut r, false) {
            items.push((owned, job));
        }
    }
    each(items, |(owned, mut job)| {
        in_fixed(dev, &mut *job, 64, owned)
    });
}

/// F8: a batch in a fixed workspace of what one of its entries needs: it runs (in chunks:
/// `PerfDegraded` when the whole batch needs more, else `Success`) with every entry's answer
/// and `info` right and in its own place; no memory error, no growth.
fn f8_drivers_batches_run_in_chunks_in_a_one_entry_workspace(dev: &Device) {
    use Form::{List, Strided};
    let mut r = Gen::new(1931);
    let mut items: Vec<(Box<dyn Job>, Box<dyn Job>)> = vec![];
    let cs = |rt, n, nrhs, form, info| {
        let mut c = DCase::new(rt, n, nrhs).with(form, 2, 1);
        c.gap = 1;
        c.pgap = 2;
        c.info = info;
        c
    };
    let lu = [Fill::Dominant, Fill::ZeroCol(20, None), Fill::Random];
    let chol = [Fill::Hpd, Fill::NotPd(30, -1.0), Fill::Gram];
    macro_rules! pair {
        ($e:ty, $c:expr, $fills:expr) => {{
            let c = $c;
            let one = prepare::<$e>(
                dev,
                &mut r,
                DCase {
                    form: with_count(c.form, 1),
                    ..c
                },
                &$fills,
            );
            let all = prepare::<$e>(dev, &mut r, c, &$fills);
            items.push((Box::new(one), Box::new(all)));
        }};
    }
    pair!(f64, cs(Rt::Gesv, 65, 17, Strided(9), Loc::Device), lu);
    pair!(Complex32, cs(Rt::Gesv, 129, 2, List(5), Loc::Host), lu);
    pair!(
        f64,
        cs(Rt::Posv(Uplo::Lower), 65, 3, List(7), Loc::Host),
        chol
    );
    pair!(
        Complex64,
        cs(Rt::Posv(Uplo::Upper), 33, 64, Strided(12), Loc::Device),
        chol
    );
    pair!(f32, cs(Rt::Getri, 129, 0, Strided(5), Loc::Host), lu);
    pair!(Complex64, cs(Rt::Getri, 65, 0, List(6), Loc::Device), lu);
    each(items, |(one, mut all)| {
        let name = all.name();
        let ws = query(dev, &*one).max(64);
        let full = query(dev, &*all);
        let mut h = fixed_handle(dev, ws);
        let st = all
            .call(&mut h)
            .unwrap_or_else(|e| panic!("{name}: workspace of one entry ({ws} bytes): {e}"));
        eprintln!("{name}: one entry {ws} bytes, the batch {full}: {st:?}");
        let want = if full > ws {
            Status::PerfDegraded
        } else {
            Status::Success
        };
        assert_eq!(st, want, "{name}: one entry needs {ws}, the batch {full}");
        all.check(&format!("{name} (workspace of one entry)"), false);
        let s = h.workspace_stats();
        assert_eq!((s.memory_errors, s.growths), (0, 0), "{name}: {s}");
    });
}

crate::on_both_backends!(
    m08_m09_drivers_query_then_preallocate_succeeds,
    m08_drivers_query_checks_sizes_and_takes_placeholders,
    m06_drivers_4kib_workspace_degrades_or_errs_untouched,
    m06_drivers_one_chunk_workspace_degrades_or_errs_untouched,
    f8_drivers_batches_run_in_chunks_in_a_one_entry_workspace,
);
