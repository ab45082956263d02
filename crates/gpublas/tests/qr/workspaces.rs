//! M6, M8, M9: size queries, preallocated and small fixed workspaces.

use super::*;

const KIB: usize = 1024;

/// Query (placeholders, then the real operands, which must come back untouched and ask for
/// the same), then a handle of exactly that size: `Success`, the right answer, no growth, no
/// degraded call, no memory error.
pub(super) fn m9_one(dev: &Device, job: &mut dyn Job) {
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
    job.check(&name);
    let s = h.workspace_stats();
    assert_eq!(
        (s.memory_errors, s.degraded_calls, s.growths),
        (0, 0, 0),
        "{name}: {s}"
    );
}

fn m08_m09_qr_query_then_preallocate_succeeds(dev: &Device) {
    let mut r = Gen::new(801);
    each(jobs(dev, &mut r, true), |mut job| m9_one(dev, &mut *job));
}

/// During a query the size and shape arguments are checked (a bad one is the call's error),
/// placeholders are accepted for every operand, nothing is allocated; the running size only
/// grows, and a query of several calls asks for the largest of their needs.
fn m08_qr_query_checks_sizes_and_takes_placeholders(dev: &Device) {
    let mut h = fixed_handle(dev, 0);
    h.start_device_memory_size_query().unwrap();
    let mut pa = DeviceBuffer::<f64>::placeholder(200 * 150);
    let mut pt = DeviceBuffer::<f64>::placeholder(150);
    let mut pc = DeviceBuffer::<f64>::placeholder(200 * 150);
    let e = solver::geqrf(&mut h, 10, 10, &mut pa, 9, &mut pt);
    expect_err(e, is_size, &["lda = 9"], "geqrf lda < m during a query");
    let e = solver::orgqr(&mut h, 10, 11, 3, &mut pa, 10, &pt);
    expect_err(e, is_size, &["n = 11"], "orgqr n > m during a query");
    let e = solver::ormqr(
        &mut h,
        Side::Right,
        Op::N,
        10,
        5,
        6,
        &pa,
        5,
        &pt,
        &mut pc,
        10,
    );
    expect_err(e, is_size, &["k = 6"], "ormqr k > n during a query");
    let mut sizes = vec![];
    let st = solver::geqrf(&mut h, 200, 150, &mut pa, 200, &mut pt).unwrap();
    assert!(
        matches!(st, Status::SizeIncreased | Status::SizeUnchanged),
        "{st:?}"
    );
    sizes.push(each_need(dev, |q| {
        solver::geqrf(
            q,
            200,
            150,
            &mut pa.placeholders_like(),
            200,
            &mut pt.placeholders_like(),
        )
    }));
    let st = solver::orgqr(&mut h, 200, 150, 150, &mut pa, 200, &pt).unwrap();
    assert!(
        matches!(st, Status::SizeIncreased | Status::SizeUnchanged),
        "{st:?}"
    );
    sizes.push(each_need(dev, |q| {
        solver::orgqr(q, 200, 150, 150, &mut pa.placeholders_like(), 200, &pt)
    }));
    let st = solver::ormqr_strided_batched(
        &mut h,
        Side::Left,
        Op::T,
        200,
        75,
        150,
        &pa,
        200,
        0,
        &pt,
        0,
        &mut pc,
        200,
        15000,
        2,
    )
    .unwrap();
    assert!(
        matches!(st, Status::SizeIncreased | Status::SizeUnchanged),
        "{st:?}"
    );
    sizes.push(each_need(dev, |q| {
        solver::ormqr_strided_batched(
            q,
            Side::Left,
            Op::T,
            200,
            75,
            150,
            &pa,
            200,
            0,
            &pt,
            0,
            &mut pc.placeholders_like(),
            200,
            15000,
            2,
        )
    }));
    let total = h.stop_device_memory_size_query().unwrap();
    assert_eq!(
        total,
        sizes.iter().copied().max().unwrap(),
        "the query of three calls against each one's need {sizes:?}"
    );
    assert_eq!(h.get_device_memory_size(), 0, "a query allocated");
    expect_errs_done();
}

/// The need of one call asked alone.
fn each_need(dev: &Device, f: impl FnOnce(&mut Handle) -> Result<Status, Error>) -> usize {
    let mut q = fixed_handle(dev, 0);
    q.start_device_memory_size_query().unwrap();
    let _ = f(&mut q).unwrap();
    q.stop_device_memory_size_query().unwrap()
}

/// A placeholder of the same length (the test's own operands stay borrowed by the query).
trait PlaceholderLike {
    fn placeholders_like(&self) -> Self;
}
impl PlaceholderLike for DeviceBuffer<f64> {
    fn placeholders_like(&self) -> Self {
        DeviceBuffer::placeholder(self.len())
    }
}

/// In a fixed 4 KiB workspace (user-managed) every job at about 200 × 150: `Success` if its
/// query asks for no more, else `PerfDegraded`, with the right answers; no memory error, no
/// growth.
pub(super) fn in_fixed(dev: &Device, job: &mut dyn Job, cap: usize) {
    let name = job.name();
    let size = query(dev, job);
    let mut h = handle(dev);
    let _ = h.set_device_memory_size(cap).unwrap();
    assert!(h.is_user_managing_device_memory());
    job.reset();
    let st = job
        .call(&mut h)
        .unwrap_or_else(|e| panic!("{name}: {cap}-byte workspace (the query said {size}): {e}"));
    eprintln!("{name}: query {size} bytes, in {cap}: {st:?}");
    let want = if size > cap {
        Status::PerfDegraded
    } else {
        Status::Success
    };
    assert_eq!(
        st, want,
        "{name}: {cap}-byte workspace, the query said {size}"
    );
    job.check(&format!("{name} ({cap}-byte workspace)"));
    let s = h.workspace_stats();
    assert_eq!(s.degraded_calls, (size > cap) as u64, "{name}: {s}");
    assert_eq!((s.memory_errors, s.growths), (0, 0), "{name}: {s}");
    assert_eq!(h.get_device_memory_size(), cap);
}

fn m06_qr_small_fixed_workspace_degrades_with_right_answers(dev: &Device) {
    let mut r = Gen::new(811);
    each(jobs(dev, &mut r, false), |mut job| {
        in_fixed(dev, &mut *job, 4 * KIB)
    });
}

/// In a workspace of one chunk (64 bytes, user-managed or user-owned): either the call runs
/// (`Success` if the query asks for no more, else `PerfDegraded`) with the right answers, or it
/// returns `MemoryError` naming what it needs and the 64 bytes there are, outputs untouched.
fn m06_qr_impossibly_small_workspace_errs_cleanly_or_runs(dev: &Device) {
    let mut r = Gen::new(821);
    let mut items = vec![];
    for owned in [false, true] {
        for job in jobs(dev, &mut r, false) {
            items.push((owned, job));
        }
    }
    each(items, |(owned, mut job)| {
        in_one_chunk(dev, &mut *job, owned)
    });
}

/// `job` in a workspace of one chunk (user-owned or user-managed): it runs with the right
/// answers or errs with `MemoryError`, outputs untouched.
pub(super) fn in_one_chunk(dev: &Device, job: &mut dyn Job, owned: bool) {
    let name = format!(
        "{} ({})",
        job.name(),
        if owned { "user-owned" } else { "user-managed" }
    );
    let cap = 64;
    let size = query(dev, job);
    job.reset();
    let mut h = if owned {
        user_owned_handle(dev, cap)
    } else {
        fixed_handle(dev, cap)
    };
    assert_eq!(h.get_device_memory_size(), cap, "{name}");
    match job.call(&mut h) {
        Ok(st) => {
            let want = if size > cap {
                Status::PerfDegraded
            } else {
                Status::Success
            };
            assert_eq!(st, want, "{name}: in {cap} bytes, the query said {size}");
            job.check(&format!("{name} ({cap}-byte workspace)"));
        }
        Err(e @ Error::MemoryError { .. }) => {
            let Error::MemoryError {
                needed, available, ..
            } = &e
            else {
                unreachable!()
            };
            eprintln!("{name}: query {size} bytes, in {cap}: {e}");
            assert!(*needed > *available && size > cap, "{name}: {e}");
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
        Err(e) => panic!("{name}: {cap}-byte workspace: {e}"),
    }
}

/// F8: a batch in a fixed workspace of what one of its entries needs: it runs (in chunks:
/// `PerfDegraded` when the whole batch needs more, else `Success`) with every entry's answer
/// right and in its own place; no memory error, no growth.
fn f8_qr_batches_run_in_chunks_in_a_one_entry_workspace(dev: &Device) {
    use Form::{List, Strided};
    let mut r = Gen::new(831);
    let mut items: Vec<(Box<dyn Job>, Box<dyn Job>)> = vec![];
    let cs = |rt, m, n, k, form| {
        let mut c = QCase::new(rt, m, n, k).with(form, 2);
        c.gap = 1;
        c.tgap = 2;
        c
    };
    let fills = [Fill::WellCond, Fill::Random, Fill::ZeroCol(40)];
    macro_rules! pair {
        ($e:ty, $c:expr) => {{
            let c = $c;
            let one = prepare::<$e>(
                dev,
                &mut r,
                QCase {
                    form: with_count(c.form, 1),
                    ..c
                },
                &fills,
            );
            let all = prepare::<$e>(dev, &mut r, c, &fills);
            items.push((Box::new(one), Box::new(all)));
        }};
    }
    pair!(f64, cs(Rt::Geqrf, 130, 100, 0, Strided(5)));
    pair!(Complex32, cs(Rt::Geqrf, 65, 129, 0, List(6)));
    pair!(f32, cs(Rt::Orgqr, 129, 100, 90, List(5)));
    pair!(Complex64, cs(Rt::Orgqr, 100, 70, 70, Strided(4)));
    pair!(
        f64,
        cs(Rt::Ormqr(Side::Left, Op::T), 129, 50, 100, Strided(5))
    );
    pair!(
        Complex32,
        cs(Rt::Ormqr(Side::Right, Op::C), 40, 129, 64, List(4))
    );
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
        all.check(&format!("{name} (workspace of one entry)"));
        let s = h.workspace_stats();
        assert_eq!((s.memory_errors, s.growths), (0, 0), "{name}: {s}");
    });
}

crate::on_both_backends!(
    f8_qr_batches_run_in_chunks_in_a_one_entry_workspace,
    m08_m09_qr_query_then_preallocate_succeeds,
    m08_qr_query_checks_sizes_and_takes_placeholders,
    m06_qr_small_fixed_workspace_degrades_with_right_answers,
    m06_qr_impossibly_small_workspace_errs_cleanly_or_runs,
);
