//! M8, M9: query, preallocate, Success.

use super::*;
use gpublas::Backend;

/// Query (placeholders, then the real operands, which must come back untouched and ask for
/// the same), then a handle of exactly that size: `Success`, the right answer, no growth.
fn m9_one(dev: &Device, job: &mut dyn Job) {
    let name = job.name();
    let size = query(dev, job);
    let mut q = fixed_handle(dev, 0);
    q.start_device_memory_size_query().unwrap();
    let _ = job
        .call(&mut q)
        .unwrap_or_else(|e| panic!("{name}: query: {e}"));
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

/// The seed's example: the workspace of a 1024 × 1024 system with one right-hand side
/// (`getrf` then `getrs`) asked with placeholders, then allocated: both calls `Success`, the
/// solve right.
fn m09_query_getrf_getrs_1024(dev: &Device) {
    let n = 1024;
    let (lda, ldb) = (n, n);
    let mut h = handle(dev);
    h.start_device_memory_size_query().unwrap();
    let mut pa = DeviceBuffer::<f64>::placeholder(n * lda);
    let mut pp = DeviceBuffer::<i32>::placeholder(n);
    let mut pi = DeviceBuffer::<i32>::placeholder(1);
    let s1 = solver::getrf(
        &mut h,
        n,
        n,
        &mut pa,
        lda,
        Results::Device(&mut pp),
        Results::Device(&mut pi),
    )
    .unwrap();
    let mut pb = DeviceBuffer::<f64>::placeholder(ldb);
    let s2 = solver::getrs(&mut h, Op::N, n, 1, &pa, lda, &pp, &mut pb, ldb).unwrap();
    for s in [s1, s2] {
        assert!(
            matches!(s, Status::SizeIncreased | Status::SizeUnchanged),
            "{s:?}"
        );
    }
    let need = h.stop_device_memory_size_query().unwrap();
    eprintln!("getrf + getrs 1024 f64: the query asks for {need} bytes");
    let _ = h.set_device_memory_size(need).unwrap();
    assert_eq!(h.get_device_memory_size(), need);
    h.reset_workspace_stats();
    let mut r = Gen::new(201);
    let ad = gen_random::<f64>(n, n, &mut r);
    let bd = gen_random::<f64>(n, 1, &mut r);
    let mut a = dev.upload(&store::<f64>(&ad, lda, None)).unwrap();
    let mut b = dev.upload(&store::<f64>(&bd, ldb, None)).unwrap();
    let mut ipiv = dev.upload(&vec![PIV_POISON; n]).unwrap();
    let mut info = dev.upload(&[INFO_POISON]).unwrap();
    let s1 = solver::getrf(
        &mut h,
        n,
        n,
        &mut a,
        lda,
        Results::Device(&mut ipiv),
        Results::Device(&mut info),
    )
    .unwrap();
    let s2 = solver::getrs(&mut h, Op::N, n, 1, &a, lda, &ipiv, &mut b, ldb).unwrap();
    assert_eq!((s1, s2), (Status::Success, Status::Success));
    assert_eq!(info.to_vec().unwrap(), vec![0]);
    let piv = ipiv.to_vec().unwrap();
    for (j, &p) in piv.iter().enumerate() {
        assert!(p > j as i32 && p <= n as i32, "ipiv[{j}] = {p}");
    }
    let x: Vec<f64> = b.to_vec().unwrap();
    let xd = Dense {
        r: n,
        c: 1,
        v: x.iter().map(|&v| (v, 0.0)).collect(),
    };
    let res = solve_residual(&ad, &xd, &bd, f64::EPSILON);
    assert!(res < RESID_MAX, "solve residual ratio {res:.3e}");
    let s = h.workspace_stats();
    assert_eq!(
        (s.memory_errors, s.degraded_calls, s.growths),
        (0, 0, 0),
        "{s}"
    );
}

fn m08_m09_query_then_preallocate_runs_as_planned(dev: &Device) {
    let mut r = Gen::new(211);
    each(jobs(dev, &mut r, true), |mut job| m9_one(dev, &mut *job));
}

/// During a query the size and shape arguments are checked (a bad one is an error), nothing
/// is allocated, and routines take placeholders for every operand.
fn m08_query_checks_sizes_and_takes_placeholders(dev: &Device) {
    let mut h = fixed_handle(dev, 0);
    h.start_device_memory_size_query().unwrap();
    let mut pa = DeviceBuffer::<f64>::placeholder(100);
    let mut pp = DeviceBuffer::<i32>::placeholder(10);
    let mut pi = DeviceBuffer::<i32>::placeholder(1);
    let e = solver::getrf(
        &mut h,
        10,
        10,
        &mut pa,
        9,
        Results::Device(&mut pp),
        Results::Device(&mut pi),
    );
    expect_err(e, is_size, &["lda"], "getrf lda < m during a query");
    let e = solver::potrf(
        &mut h,
        Uplo::Upper,
        10,
        &mut pa,
        5,
        Results::Device(&mut pi),
    );
    expect_err(e, is_size, &["lda"], "potrf lda < n during a query");
    let mut pb = DeviceBuffer::<f64>::placeholder(100);
    let e = solver::getrs(&mut h, Op::T, 10, 2, &pa, 10, &pp, &mut pb, 9);
    expect_err(e, is_size, &["ldb"], "getrs ldb < n during a query");
    let st = solver::getrf_npvt_strided_batched(
        &mut h,
        10,
        10,
        &mut pa,
        10,
        100,
        Results::Device(&mut pi),
        1,
    )
    .unwrap();
    assert!(matches!(st, Status::SizeIncreased | Status::SizeUnchanged));
    let st = solver::potrs(&mut h, Uplo::Lower, 10, 2, &pa, 10, &mut pb, 10).unwrap();
    assert!(matches!(st, Status::SizeIncreased | Status::SizeUnchanged));
    let _ = h.stop_device_memory_size_query().unwrap();
    assert_eq!(h.get_device_memory_size(), 0);
    expect_errs_done();
}

/// The size queries of the factorizations and solves ask for cuSOLVER's order of workspace at
/// every order the benchmark runs (F4, issue 29): at most 4 MiB of the solver's own parts (the
/// GEMM engine's slice, CUDA only, is capped at 4 MiB more) for getrf, for potrf up to 16384
/// (twice cuSOLVER's 4,194,432 bytes at 32768), and for getrs and potrs at 8192 with 2 to 256
/// right-hand sides (their inverted leaves kept a group at a time), and with one right-hand
/// side at every order (Level 2's trsv: a flag per 64-row block).
fn f4_lu_and_cholesky_queries_stay_within_bounds(dev: &Device) {
    const MIB: usize = 1 << 20;
    let engine = if dev.backend() == Backend::Cuda {
        4 * MIB
    } else {
        0
    };
    for n in [8192usize, 16384, 32768] {
        let mut h = fixed_handle(dev, 0);
        h.start_device_memory_size_query().unwrap();
        let mut pa = DeviceBuffer::<f64>::placeholder(n * n);
        let mut pp = DeviceBuffer::<i32>::placeholder(n);
        let mut pi = DeviceBuffer::<i32>::placeholder(1);
        let _ = solver::getrf(
            &mut h,
            n,
            n,
            &mut pa,
            n,
            Results::Device(&mut pp),
            Results::Device(&mut pi),
        )
        .unwrap();
        let lu = h.stop_device_memory_size_query().unwrap();
        assert!(
            lu <= 4 * MIB + engine,
            "getrf f64 n = {n}: query {lu} bytes"
        );
        h.start_device_memory_size_query().unwrap();
        let _ =
            solver::potrf(&mut h, Uplo::Lower, n, &mut pa, n, Results::Device(&mut pi)).unwrap();
        let chol = h.stop_device_memory_size_query().unwrap();
        let most = if n <= 16384 { 4 * MIB } else { 2 * 4_194_432 };
        assert!(
            chol <= most + engine,
            "potrf f64 n = {n}: query {chol} bytes"
        );
        eprintln!("n = {n}: getrf asks {lu} bytes, potrf {chol}");
    }
    let n = 8192;
    let pa = DeviceBuffer::<f64>::placeholder(n * n);
    let pp = DeviceBuffer::<i32>::placeholder(n);
    for nrhs in [1usize, 2, 16, 64, 129, 256] {
        let mut h = fixed_handle(dev, 0);
        let mut pb = DeviceBuffer::<f64>::placeholder(n * nrhs);
        h.start_device_memory_size_query().unwrap();
        let _ = solver::getrs(&mut h, Op::N, n, nrhs, &pa, n, &pp, &mut pb, n).unwrap();
        let lu = h.stop_device_memory_size_query().unwrap();
        h.start_device_memory_size_query().unwrap();
        let _ = solver::potrs(&mut h, Uplo::Upper, n, nrhs, &pa, n, &mut pb, n).unwrap();
        let chol = h.stop_device_memory_size_query().unwrap();
        let most = 4 * MIB + engine;
        assert!(
            lu <= most && chol <= most,
            "nrhs = {nrhs}: getrs asks {lu} bytes, potrs {chol}"
        );
        eprintln!("n = {n}, nrhs = {nrhs}: getrs asks {lu} bytes, potrs {chol}");
    }
    // One right-hand side needs no inverted tiles in the workspace at any order.
    for n in [16384usize, 32768] {
        let mut h = fixed_handle(dev, 0);
        let pa = DeviceBuffer::<f64>::placeholder(n * n);
        let pp = DeviceBuffer::<i32>::placeholder(n);
        let mut pb = DeviceBuffer::<f64>::placeholder(n);
        h.start_device_memory_size_query().unwrap();
        let _ = solver::getrs(&mut h, Op::N, n, 1, &pa, n, &pp, &mut pb, n).unwrap();
        let _ = solver::potrs(&mut h, Uplo::Lower, n, 1, &pa, n, &mut pb, n).unwrap();
        let both = h.stop_device_memory_size_query().unwrap();
        assert!(
            both <= 64 * 1024,
            "n = {n}, nrhs = 1: getrs and potrs ask {both} bytes"
        );
    }
}

crate::on_both_backends!(
    f4_lu_and_cholesky_queries_stay_within_bounds,
    m09_query_getrf_getrs_1024,
    m08_m09_query_then_preallocate_runs_as_planned,
    m08_query_checks_sizes_and_takes_placeholders,
);
