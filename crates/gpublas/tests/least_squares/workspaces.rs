//! M6, M8, M9, F8: size queries, preallocated and small fixed workspaces, batches in a
//! workspace of one entry.

use super::*;

const KIB: usize = 1024;

/// Cases of the query and workspace tests: every routine, several types, layouts, `trans`
/// and `info` routings, about 200 × 150 (`big`: one gelqf of 300 × 500 and one gels of
/// 1000 × 16 too).
fn jobs(dev: &Device, r: &mut Gen, big: bool) -> Vec<Box<dyn Job>> {
    use Form::{List, Single, Strided};
    let mut v: Vec<Box<dyn Job>> = vec![];
    let cs = |rt, m, n, k, form| {
        let mut c = LCase::new(rt, m, n, k).with(form, 1);
        c.gap = 2;
        c.tgap = 1;
        c
    };
    let gs = |trans, m, n, nrhs, form, loc| {
        let mut c = GCase::new(trans, m, n, nrhs).with(form, 1, loc);
        c.gap = 3;
        c
    };
    let well = &[Fill::WellCond][..];
    let rand = &[Fill::Random][..];
    let gwell = &[GFill::WellCond][..];
    if big {
        v.push(Box::new(prepare::<f64>(
            dev,
            r,
            cs(Rt::Gelqf, 300, 500, 0, Single),
            well,
        )));
        v.push(Box::new(prepare_gels::<f64>(
            dev,
            r,
            gs(Op::N, 1000, 16, 3, Single, Loc::Device),
            gwell,
        )));
    }
    v.push(Box::new(prepare::<f64>(
        dev,
        r,
        cs(Rt::Gelqf, 150, 200, 0, Single),
        rand,
    )));
    v.push(Box::new(prepare::<Complex32>(
        dev,
        r,
        cs(Rt::Gelqf, 200, 150, 0, Strided(2)),
        well,
    )));
    v.push(Box::new(prepare::<f32>(
        dev,
        r,
        cs(Rt::Gelqf, 33, 65, 0, List(3)),
        well,
    )));
    v.push(Box::new(prepare::<f64>(
        dev,
        r,
        cs(Rt::Ormlq(Side::Left, Op::T), 200, 150, 150, Single),
        rand,
    )));
    v.push(Box::new(prepare::<Complex32>(
        dev,
        r,
        cs(Rt::Ormlq(Side::Right, Op::N), 150, 200, 150, Strided(2)),
        rand,
    )));
    v.push(Box::new(prepare::<Complex64>(
        dev,
        r,
        cs(Rt::Ormlq(Side::Left, Op::C), 200, 150, 100, List(2)),
        rand,
    )));
    v.push(Box::new(prepare::<f32>(
        dev,
        r,
        cs(Rt::Ormlq(Side::Right, Op::C), 33, 129, 64, List(3)),
        rand,
    )));
    v.push(Box::new(prepare_gels::<f64>(
        dev,
        r,
        gs(Op::N, 200, 150, 3, Single, Loc::Host),
        gwell,
    )));
    v.push(Box::new(prepare_gels::<f64>(
        dev,
        r,
        gs(Op::T, 150, 200, 2, Strided(2), Loc::Device),
        gwell,
    )));
    v.push(Box::new(prepare_gels::<Complex64>(
        dev,
        r,
        gs(Op::C, 100, 150, 5, List(2), Loc::Host),
        gwell,
    )));
    v.push(Box::new(prepare_gels::<f32>(
        dev,
        r,
        gs(Op::T, 129, 65, 1, List(3), Loc::Device),
        gwell,
    )));
    v.push(Box::new(prepare_gels::<Complex32>(
        dev,
        r,
        gs(Op::N, 65, 129, 17, Strided(2), Loc::Host),
        gwell,
    )));
    v
}

fn m08_m09_lq_gels_query_then_preallocate_succeeds(dev: &Device) {
    let mut r = Gen::new(1801);
    each(jobs(dev, &mut r, true), |mut job| {
        query_then_preallocate(dev, &mut *job)
    });
}

/// During a query the size and shape arguments are checked (a bad one is the call's error),
/// placeholders are accepted for every operand (`info` in device memory included), nothing is
/// allocated; a query of several calls asks for the largest of their needs.
fn m08_lq_gels_query_checks_sizes_and_takes_placeholders(dev: &Device) {
    let mut h = fixed_handle(dev, 0);
    h.start_device_memory_size_query().unwrap();
    let ph = |n: usize| DeviceBuffer::<f64>::placeholder(n);
    let (mut pa, mut pt, mut pc) = (ph(200 * 150), ph(150), ph(200 * 150));
    let mut pinfo = DeviceBuffer::<i32>::placeholder(2);
    use gpublas::Results::Device as D;
    let e = solver::gelqf(&mut h, 10, 10, &mut pa, 9, &mut pt);
    expect_err(e, is_size, &["lda = 9"], "gelqf lda < m during a query");
    let e = solver::ormlq(
        &mut h,
        Side::Right,
        Op::N,
        10,
        5,
        6,
        &pa,
        6,
        &pt,
        &mut pc,
        10,
    );
    expect_err(e, is_size, &["k = 6"], "ormlq k > n during a query");
    let e = solver::gels(
        &mut h,
        Op::N,
        10,
        20,
        1,
        &mut pa,
        10,
        &mut pc,
        10,
        D(&mut pinfo),
    );
    expect_err(e, is_size, &["ldb = 10"], "gels ldb < n during a query");
    let mut sizes = vec![];
    let st = solver::gelqf(&mut h, 150, 200, &mut pa, 150, &mut pt).unwrap();
    assert!(
        matches!(st, Status::SizeIncreased | Status::SizeUnchanged),
        "{st:?}"
    );
    sizes.push(each_need(dev, |q| {
        solver::gelqf(q, 150, 200, &mut ph(200 * 150), 150, &mut ph(150))
    }));
    let st = solver::ormlq_strided_batched(
        &mut h,
        Side::Left,
        Op::T,
        200,
        75,
        150,
        &pa,
        150,
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
        solver::ormlq_strided_batched(
            q,
            Side::Left,
            Op::T,
            200,
            75,
            150,
            &pa,
            150,
            0,
            &pt,
            0,
            &mut ph(200 * 150),
            200,
            15000,
            2,
        )
    }));
    let st = solver::gels_strided_batched(
        &mut h,
        Op::N,
        100,
        150,
        3,
        &mut pa,
        100,
        15000,
        &mut pc,
        150,
        450,
        D(&mut pinfo),
        2,
    )
    .unwrap();
    assert!(
        matches!(st, Status::SizeIncreased | Status::SizeUnchanged),
        "{st:?}"
    );
    sizes.push(each_need(dev, |q| {
        solver::gels_strided_batched(
            q,
            Op::N,
            100,
            150,
            3,
            &mut ph(200 * 150),
            100,
            15000,
            &mut ph(200 * 150),
            150,
            450,
            D(&mut DeviceBuffer::<i32>::placeholder(2)),
            2,
        )
    }));
    let total = h.stop_device_memory_size_query().unwrap();
    assert!(sizes.iter().all(|&s| s > 0), "{sizes:?}");
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

/// In a fixed 4 KiB workspace (user-managed) every job at about 200 × 150: `Success` if its
/// query asks for no more, else `PerfDegraded`, with the right answers; or `MemoryError`
/// with every operand untouched.
fn m06_lq_gels_small_fixed_workspace_degrades_or_errs_cleanly(dev: &Device) {
    let mut r = Gen::new(1811);
    each(jobs(dev, &mut r, false), |mut job| {
        in_fixed(dev, &mut *job, 4 * KIB)
    });
}

/// In a workspace of one chunk (64 bytes, user-managed or user-owned): the right answers
/// (`PerfDegraded` where the query asked for more) or `MemoryError` naming what it needs and
/// the 64 bytes there are, every operand untouched.
fn m06_lq_gels_impossibly_small_workspace_errs_cleanly_or_runs(dev: &Device) {
    let mut r = Gen::new(1821);
    let mut items = vec![];
    for owned in [false, true] {
        for job in jobs(dev, &mut r, false) {
            items.push((owned, job));
        }
    }
    each(items, |(owned, mut job)| {
        let name = format!(
            "{} ({})",
            job.name(),
            if owned { "user-owned" } else { "user-managed" }
        );
        let cap = 64;
        let size = query(dev, &*job);
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
    });
}

/// F8: a batch in a fixed workspace of what one of its entries needs: it runs (in chunks:
/// `PerfDegraded` when the whole batch needs more, else `Success`) with every entry's answer
/// right and in its own place; no memory error, no growth.
fn f8_lq_gels_batches_run_in_chunks_in_a_one_entry_workspace(dev: &Device) {
    use Form::{List, Strided};
    let mut r = Gen::new(1831);
    let mut items: Vec<(Box<dyn Job>, Box<dyn Job>)> = vec![];
    let cs = |rt, m, n, k, form| {
        let mut c = LCase::new(rt, m, n, k).with(form, 2);
        c.gap = 1;
        c.tgap = 2;
        c
    };
    let fills = [Fill::WellCond, Fill::Random, Fill::ZeroRow(40)];
    macro_rules! pair {
        ($e:ty, $c:expr) => {{
            let c = $c;
            let one = prepare::<$e>(
                dev,
                &mut r,
                LCase {
                    form: with_count(c.form, 1),
                    ..c
                },
                &fills,
            );
            let all = prepare::<$e>(dev, &mut r, c, &fills);
            items.push((Box::new(one), Box::new(all)));
        }};
    }
    pair!(f64, cs(Rt::Gelqf, 100, 130, 0, Strided(5)));
    pair!(Complex32, cs(Rt::Gelqf, 129, 65, 0, List(6)));
    pair!(
        f64,
        cs(Rt::Ormlq(Side::Left, Op::T), 129, 50, 100, Strided(5))
    );
    pair!(
        Complex32,
        cs(Rt::Ormlq(Side::Right, Op::C), 40, 129, 64, List(4))
    );
    let gfills = [GFill::WellCond, GFill::Deficient(3), GFill::Random];
    macro_rules! gpair {
        ($e:ty, $c:expr) => {{
            let c: GCase = $c;
            let one = prepare_gels::<$e>(
                dev,
                &mut r,
                GCase {
                    form: with_count(c.form, 1),
                    ..c
                },
                &gfills,
            );
            let all = prepare_gels::<$e>(dev, &mut r, c, &gfills);
            items.push((Box::new(one), Box::new(all)));
        }};
    }
    gpair!(
        f64,
        GCase::new(Op::N, 130, 100, 3,).with(Strided(5), 2, Loc::Host)
    );
    gpair!(
        Complex64,
        GCase::new(Op::C, 65, 129, 2).with(List(4), 1, Loc::Device)
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
    m08_m09_lq_gels_query_then_preallocate_succeeds,
    m08_lq_gels_query_checks_sizes_and_takes_placeholders,
    m06_lq_gels_small_fixed_workspace_degrades_or_errs_cleanly,
    m06_lq_gels_impossibly_small_workspace_errs_cleanly_or_runs,
    f8_lq_gels_batches_run_in_chunks_in_a_one_entry_workspace,
);
