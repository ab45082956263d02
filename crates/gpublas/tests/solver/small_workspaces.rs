//! M6, F8: small fixed workspaces.

use super::*;

const KIB: usize = 1024;

/// Host-routed results of one entry above which 1 KiB may be too small even for the reduced
/// algorithms (the results are gathered in the workspace).
const HOST_RESULTS_MAY_NOT_FIT: usize = 256;

/// In a fixed 1 KiB workspace: `Success` if the query asks for no more, else `PerfDegraded`
/// with the right answer; `MemoryError` (needs > 1 KiB, both sizes named, outputs untouched)
/// only where the results of one entry routed to host memory take more than
/// `HOST_RESULTS_MAY_NOT_FIT` bytes (pivots of order 64 and more).
fn in_1kib(dev: &Device, job: &mut dyn Job) {
    let name = job.name();
    let size = query(dev, job);
    let mut h = handle(dev);
    let _ = h.set_device_memory_size(KIB).unwrap();
    assert!(h.is_user_managing_device_memory());
    job.reset();
    match job.call(&mut h) {
        Ok(st) => {
            let want = if size > KIB {
                Status::PerfDegraded
            } else {
                Status::Success
            };
            eprintln!("{name}: query {size} bytes, in 1 KiB {st:?}");
            assert_eq!(st, want, "{name}: 1 KiB workspace, the query said {size}");
            job.check(&format!("{name} (1 KiB workspace)"));
            let s = h.workspace_stats();
            assert_eq!(s.degraded_calls, (size > KIB) as u64, "{name}: {s}");
            assert_eq!((s.memory_errors, s.growths), (0, 0), "{name}: {s}");
        }
        Err(e @ Error::MemoryError { .. }) => {
            eprintln!("{name}: query {size} bytes, in 1 KiB: {e}");
            let Error::MemoryError {
                needed, available, ..
            } = &e
            else {
                unreachable!()
            };
            assert!(
                job.host_result_bytes() > HOST_RESULTS_MAY_NOT_FIT,
                "{name}: no reduced algorithm in 1 KiB with {} bytes of host-routed results per entry: {e}",
                job.host_result_bytes()
            );
            assert!(size > KIB && *needed > *available, "{name}: {e}");
            assert_eq!(*available, KIB, "{name}: {e}");
            let text = e.to_string();
            assert!(
                text.contains(&needed.to_string()) && text.contains(&available.to_string()),
                "{name}: {text}"
            );
            job.untouched(&format!("{name}: memory error"));
            assert_eq!(h.workspace_stats().memory_errors, 1, "{name}");
        }
        Err(e) => panic!("{name}: 1 KiB workspace: {e}"),
    }
    assert_eq!(h.get_device_memory_size(), KIB);
}

fn m06_in_1kib_degrades_with_right_answers(dev: &Device) {
    let mut r = Gen::new(221);
    each(jobs(dev, &mut r, false), |mut job| in_1kib(dev, &mut *job));
}

/// F8: a batch whose need grows with the batch count, in a fixed workspace of the need of one
/// entry: runs (in chunks: `PerfDegraded` when the whole batch needs more), the same answers,
/// each entry's `info` and pivots in their own place.
fn f8_batches_run_in_chunks_in_a_one_entry_workspace(dev: &Device) {
    let mut r = Gen::new(231);
    use Form::{List, Strided};
    let mut items: Vec<(Box<dyn Job>, Box<dyn Job>)> = vec![];
    let fc = |rt, n, form, pl: Loc, il: Loc| {
        let mut c = FCase::new(rt, n, n).with(form, 2);
        c.piv = pl;
        c.info = il;
        c.gap = 1;
        c.pgap = 2;
        c
    };
    for (n, form, pl, il) in [
        (65, Strided(7), Loc::Device, Loc::Device),
        (65, List(9), Loc::Host, Loc::Host),
        (33, Strided(40), Loc::Host, Loc::Device),
        (129, List(5), Loc::Device, Loc::Host),
    ] {
        let c = fc(Rt::Getrf, n, form, pl, il);
        let getrf_fills = [
            Fill::Sep,
            Fill::ZeroCol(5, None),
            Fill::Sep,
            Fill::ZeroCol(n * 2 / 3, Some(n - 1)),
        ];
        let one = prepare_fact::<f64>(dev, &mut r, c.with(with_count(form, 1), 2), &getrf_fills);
        let all = prepare_fact::<f64>(dev, &mut r, c, &getrf_fills);
        items.push((Box::new(one), Box::new(all)));
    }
    let c = fc(Rt::Npvt, 64, Strided(9), Loc::Device, Loc::Host);
    let fills = [Fill::Dominant, Fill::ZeroCol(20, None)];
    let one = prepare_fact::<Complex32>(dev, &mut r, c.with(Strided(1), 2), &fills);
    let all = prepare_fact::<Complex32>(dev, &mut r, c, &fills);
    items.push((Box::new(one), Box::new(all)));
    for (uplo, n, form, il) in [
        (Uplo::Lower, 65, List(7), Loc::Host),
        (Uplo::Upper, 33, Strided(12), Loc::Device),
    ] {
        let c = fc(Rt::Potrf(uplo), n, form, Loc::Device, il);
        let fills = [Fill::Hpd, Fill::NotPd(n / 2, -1.0), Fill::Gram];
        let one = prepare_fact::<f64>(dev, &mut r, c.with(with_count(form, 1), 2), &fills);
        let all = prepare_fact::<f64>(dev, &mut r, c, &fills);
        items.push((Box::new(one), Box::new(all)));
    }
    for (rt, n, nrhs, form) in [
        (Srt::Getrs(Op::N), 65, 3, Strided(7)),
        (Srt::Getrs(Op::C), 33, 17, List(7)),
        (Srt::Potrs(Uplo::Upper), 65, 2, Strided(7)),
        (Srt::Potrs(Uplo::Lower), 129, 1, List(4)),
    ] {
        let mut c = SCase::new(rt, n, nrhs).with(form, 1, 2);
        c.gap = 2;
        c.pgap = 1;
        let one = prepare_solve::<Complex64>(
            dev,
            &mut r,
            c.with(with_count(form, 1), 1, 2),
            Fill::Random,
        );
        let all = prepare_solve::<Complex64>(dev, &mut r, c, Fill::Random);
        items.push((Box::new(one), Box::new(all)));
    }
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

/// M6: getrs and potrs in part of their need, where the reduced plan keeps only some of the
/// inverted diagonal leaves in E and inverts them a group at a time, just before the first of
/// each group is used (forward and backward solves, leaves of 128 with a shorter last one):
/// `PerfDegraded` and the right answers.
fn m06_solves_invert_their_leaves_in_groups_in_part_of_their_need(dev: &Device) {
    let mut r = Gen::new(241);
    let mut items = vec![];
    for (rt, n, nrhs) in [
        (Srt::Getrs(Op::N), 600, 200),
        (Srt::Getrs(Op::T), 600, 140),
        (Srt::Potrs(Uplo::Lower), 600, 150),
        (Srt::Potrs(Uplo::Upper), 520, 130),
    ] {
        for part in [2, 3] {
            items.push((SCase::new(rt, n, nrhs), part));
        }
    }
    each(items, |(c, part)| {
        let fill = if matches!(c.rt, Srt::Potrs(_)) {
            Fill::Hpd
        } else {
            Fill::Random
        };
        let mut job = prepare_solve::<f64>(dev, &mut r, c, fill);
        let name = job.name();
        let need = query(dev, &job);
        let cap = (need / part).div_ceil(64) * 64;
        let mut h = fixed_handle(dev, cap);
        let st = job.call(&mut h).unwrap();
        eprintln!("{name}: query {need} bytes, in {cap}: {st:?}");
        assert_eq!(st, Status::PerfDegraded, "{name}: in {cap} of {need} bytes");
        job.check(&format!("{name} (in 1/{part} of its need)"));
    });
}

crate::on_both_backends!(
    m06_solves_invert_their_leaves_in_groups_in_part_of_their_need,
    m06_in_1kib_degrades_with_right_answers,
    f8_batches_run_in_chunks_in_a_one_entry_workspace,
);
