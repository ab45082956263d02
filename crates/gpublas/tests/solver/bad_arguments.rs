//! F7, F9: bad arguments.

use super::*;

fn pattern(len: usize) -> Vec<f64> {
    (0..len).map(|i| -7.5 - i as f64).collect()
}

/// Output buffers holding a known pattern, checked bit for bit at the end.
struct Outs {
    bufs: Vec<DeviceBuffer<f64>>,
}
impl Outs {
    fn new(dev: &Device, lens: &[usize]) -> Outs {
        Outs {
            bufs: lens
                .iter()
                .map(|&l| dev.upload(&pattern(l)).unwrap())
                .collect(),
        }
    }
    fn check(&self) {
        for (i, b) in self.bufs.iter().enumerate() {
            let got = b.to_vec().unwrap();
            let want = pattern(got.len());
            assert!(
                got.iter().zip(&want).all(|(a, b)| same(*a, *b)),
                "output {i} was written: {got:?}"
            );
        }
    }
}

fn f7_bad_leading_dimensions_are_invalid_size_naming_them(dev: &Device) {
    let mut h = handle(dev);
    let a = dev.upload(&[0.5f64; 64]).unwrap();
    let mut ipiv = Ints::new(dev, Loc::Device, vec![PIV_POISON; 32]);
    let mut ipiv_h = Ints::new(dev, Loc::Host, vec![PIV_POISON; 32]);
    let mut info = Ints::new(dev, Loc::Host, vec![INFO_POISON; 4]);
    let mut info_d = Ints::new(dev, Loc::Device, vec![INFO_POISON; 4]);
    let piv_in = dev.upload(&[1i32; 32]).unwrap();
    let mut o = Outs::new(dev, &[64, 64, 64]);
    {
        let [b, b1, b2] = &mut o.bufs[..] else {
            unreachable!()
        };
        let r = solver::getrf(&mut h, 6, 4, b, 5, ipiv.results(), info.results());
        expect_err(r, is_size, &["getrf", "lda = 5", "6"], "getrf lda < m");
        let r = solver::getrf(&mut h, 0, 4, b, 0, ipiv_h.results(), info_d.results());
        expect_err(r, is_size, &["lda = 0"], "getrf lda = 0 with m = 0");
        let r = solver::getrf_batched(
            &mut h,
            4,
            4,
            &mut [&mut *b1, &mut *b2],
            3,
            ipiv.results(),
            4,
            info.results(),
        );
        expect_err(
            r,
            is_size,
            &["getrf_batched", "lda = 3"],
            "getrf_batched lda < m",
        );
        let r = solver::getrf_strided_batched(
            &mut h,
            5,
            2,
            b,
            4,
            10,
            ipiv_h.results(),
            2,
            info_d.results(),
            2,
        );
        expect_err(
            r,
            is_size,
            &["getrf_strided_batched", "lda = 4"],
            "getrf_strided lda < m",
        );
        let r = solver::getrf_npvt(&mut h, 7, 3, b, 6, info.results());
        expect_err(r, is_size, &["getrf_npvt", "lda = 6", "7"], "npvt lda < m");
        let r = solver::getrf_npvt_batched(&mut h, 3, 3, &mut [&mut *b1], 2, info_d.results());
        expect_err(r, is_size, &["lda = 2"], "npvt_batched lda < m");
        let r = solver::getrf_npvt_strided_batched(&mut h, 3, 5, b, 2, 15, info.results(), 2);
        expect_err(r, is_size, &["lda = 2"], "npvt_strided lda < m");
        let r = solver::potrf(&mut h, Uplo::Lower, 5, b, 4, info.results());
        expect_err(r, is_size, &["potrf", "lda = 4", "5"], "potrf lda < n");
        let r = solver::potrf_batched(
            &mut h,
            Uplo::Upper,
            3,
            &mut [&mut *b1, &mut *b2],
            2,
            info_d.results(),
        );
        expect_err(
            r,
            is_size,
            &["potrf_batched", "lda = 2"],
            "potrf_batched lda < n",
        );
        let r = solver::potrf_strided_batched(&mut h, Uplo::Lower, 4, b, 3, 16, info.results(), 2);
        expect_err(r, is_size, &["lda = 3"], "potrf_strided lda < n");
        let r = solver::getrs(&mut h, Op::N, 5, 2, &a, 4, &piv_in, b, 5);
        expect_err(r, is_size, &["getrs", "lda = 4", "5"], "getrs lda < n");
        let r = solver::getrs(&mut h, Op::T, 5, 2, &a, 5, &piv_in, b, 4);
        expect_err(r, is_size, &["getrs", "ldb = 4", "5"], "getrs ldb < n");
        let r = solver::getrs(&mut h, Op::C, 0, 2, &a, 1, &piv_in, b, 0);
        expect_err(r, is_size, &["ldb = 0"], "getrs ldb = 0 with n = 0");
        let r = solver::getrs_batched(
            &mut h,
            Op::N,
            3,
            2,
            &[&a, &a],
            3,
            &piv_in,
            3,
            &mut [&mut *b1, &mut *b2],
            2,
        );
        expect_err(
            r,
            is_size,
            &["getrs_batched", "ldb = 2"],
            "getrs_batched ldb < n",
        );
        let r =
            solver::getrs_strided_batched(&mut h, Op::T, 4, 1, &a, 3, 16, &piv_in, 4, b, 4, 4, 2);
        expect_err(
            r,
            is_size,
            &["getrs_strided_batched", "lda = 3"],
            "getrs_strided lda < n",
        );
        let r = solver::potrs(&mut h, Uplo::Upper, 5, 1, &a, 5, b, 3);
        expect_err(r, is_size, &["potrs", "ldb = 3", "5"], "potrs ldb < n");
        let r = solver::potrs(&mut h, Uplo::Lower, 5, 1, &a, 2, b, 5);
        expect_err(r, is_size, &["potrs", "lda = 2"], "potrs lda < n");
        let r = solver::potrs_batched(&mut h, Uplo::Lower, 3, 1, &[&a], 3, &mut [&mut *b1], 1);
        expect_err(
            r,
            is_size,
            &["potrs_batched", "ldb = 1"],
            "potrs_batched ldb < n",
        );
        let r = solver::potrs_strided_batched(&mut h, Uplo::Upper, 3, 2, &a, 2, 9, b, 3, 6, 2);
        expect_err(
            r,
            is_size,
            &["potrs_strided_batched", "lda = 2"],
            "potrs_strided lda < n",
        );
    }
    o.check();
    ipiv.untouched("bad ld (ipiv)");
    ipiv_h.untouched("bad ld (ipiv host)");
    info.untouched("bad ld (info)");
    info_d.untouched("bad ld (info device)");
    expect_errs_done();
}

fn f7_short_buffers_placeholders_and_batch_counts_are_errors(dev: &Device) {
    let mut h = handle(dev);
    let up = |v: usize| dev.upload(&vec![0.5f64; v]).unwrap();
    let a = up(64);
    let a24 = up(24);
    let pa = DeviceBuffer::<f64>::placeholder(64);
    let piv_in = dev.upload(&[1i32; 32]).unwrap();
    let piv4 = dev.upload(&[1i32; 4]).unwrap();
    let ppiv = DeviceBuffer::<i32>::placeholder(32);
    let ip = |loc: Loc, len: usize| Ints::new(dev, loc, vec![PIV_POISON; len]);
    let mut ipiv = ip(Loc::Device, 32);
    let mut ipiv4h = ip(Loc::Host, 4);
    let mut ipiv4d = ip(Loc::Device, 4);
    let mut ipiv12 = ip(Loc::Device, 12);
    let mut info = Ints::new(dev, Loc::Host, vec![INFO_POISON; 4]);
    let mut info0 = Ints::new(dev, Loc::Host, vec![]);
    let mut info2d = Ints::new(dev, Loc::Device, vec![INFO_POISON; 2]);
    let mut info2h = Ints::new(dev, Loc::Host, vec![INFO_POISON; 2]);
    let mut o = Outs::new(dev, &[64, 24, 26, 64, 64, 64]);
    {
        let [b, b24, b26, b1, b2, b3] = &mut o.bufs[..] else {
            unreachable!()
        };
        // A one element short.
        let r = solver::getrf(&mut h, 5, 5, b24, 5, ipiv.results(), info.results());
        expect_err(r, is_value, &["getrf", "24", "25"], "getrf A short");
        let r = solver::getrf_strided_batched(
            &mut h,
            3,
            3,
            b26,
            3,
            9,
            ipiv.results(),
            3,
            info.results(),
            3,
        );
        expect_err(
            r,
            is_value,
            &["26", "27", "stride_a = 9"],
            "getrf_strided A short",
        );
        let r = solver::potrf(&mut h, Uplo::Upper, 5, b24, 5, info.results());
        expect_err(r, is_value, &["potrf", "24", "25"], "potrf A short");
        let r =
            solver::getrf_npvt_batched(&mut h, 5, 5, &mut [&mut *b1, &mut *b24], 5, info.results());
        expect_err(r, is_value, &["[1]", "24", "25"], "npvt_batched A[1] short");
        // ipiv short: min(m, n) pivots, entries stride_piv apart.
        let r = solver::getrf(&mut h, 7, 5, b, 7, ipiv4h.results(), info.results());
        expect_err(r, is_value, &["ipiv", "4", "5"], "getrf ipiv (host) short");
        let r = solver::getrf(&mut h, 5, 6, b, 5, ipiv4d.results(), info.results());
        expect_err(
            r,
            is_value,
            &["ipiv", "4", "5"],
            "getrf ipiv (device) short",
        );
        let r = solver::getrf_strided_batched(
            &mut h,
            3,
            3,
            b,
            3,
            9,
            ipiv12.results(),
            5,
            info.results(),
            3,
        );
        expect_err(
            r,
            is_value,
            &["ipiv", "12", "13"],
            "getrf_strided ipiv short",
        );
        let r = solver::getrf_batched(
            &mut h,
            4,
            4,
            &mut [&mut *b1, &mut *b2, &mut *b3],
            4,
            ipiv12.results(),
            5,
            info.results(),
        );
        expect_err(
            r,
            is_value,
            &["ipiv", "12", "14"],
            "getrf_batched ipiv short",
        );
        // info short: one per entry.
        let r = solver::getrf(&mut h, 3, 3, b, 3, ipiv.results(), info0.results());
        expect_err(r, is_value, &["info"], "getrf info empty");
        let r = solver::getrf_npvt_strided_batched(&mut h, 3, 3, b, 3, 9, info2d.results(), 3);
        expect_err(
            r,
            is_value,
            &["info", "2", "3"],
            "npvt_strided info (device) short",
        );
        let r = solver::potrf_batched(
            &mut h,
            Uplo::Lower,
            3,
            &mut [&mut *b1, &mut *b2, &mut *b3],
            3,
            info2h.results(),
        );
        expect_err(
            r,
            is_value,
            &["info", "2", "3"],
            "potrf_batched info (host) short",
        );
        let r = solver::getrf_strided_batched(
            &mut h,
            2,
            2,
            b,
            2,
            4,
            ipiv.results(),
            2,
            info2h.results(),
            3,
        );
        expect_err(r, is_value, &["info", "2", "3"], "getrf_strided info short");
        // Solves: A, B and the pivots short.
        let r = solver::getrs(&mut h, Op::N, 5, 2, &a24, 5, &piv_in, b, 5);
        expect_err(r, is_value, &["getrs", "24", "25"], "getrs A short");
        let r = solver::getrs(&mut h, Op::N, 5, 5, &a, 5, &piv_in, b24, 5);
        expect_err(r, is_value, &["getrs", "24", "25"], "getrs B short");
        let r = solver::getrs(&mut h, Op::T, 5, 1, &a, 5, &piv4, b, 5);
        expect_err(r, is_value, &["ipiv", "4", "5"], "getrs ipiv short");
        let r = solver::getrs_strided_batched(&mut h, Op::C, 3, 1, &a, 3, 9, &piv4, 3, b, 3, 3, 2);
        expect_err(r, is_value, &["ipiv", "4", "6"], "getrs_strided ipiv short");
        let r = solver::potrs_strided_batched(&mut h, Uplo::Upper, 3, 3, &a, 3, 9, b26, 3, 9, 3);
        expect_err(
            r,
            is_value,
            &["26", "27", "stride_b = 9"],
            "potrs_strided B short",
        );
        let r = solver::potrs_batched(
            &mut h,
            Uplo::Lower,
            5,
            1,
            &[&a, &a24],
            5,
            &mut [&mut *b1, &mut *b2],
            5,
        );
        expect_err(
            r,
            is_value,
            &["[1]", "24", "25"],
            "potrs_batched A[1] short",
        );
        // Batch counts that differ.
        let r = solver::getrs_batched(
            &mut h,
            Op::N,
            4,
            1,
            &[&a, &a, &a],
            4,
            &piv_in,
            4,
            &mut [&mut *b1, &mut *b2],
            4,
        );
        expect_err(r, is_size, &["3", "2"], "getrs_batched A list longer");
        let r = solver::potrs_batched(
            &mut h,
            Uplo::Upper,
            4,
            1,
            &[&a],
            4,
            &mut [&mut *b1, &mut *b2],
            4,
        );
        expect_err(r, is_size, &["1", "2"], "potrs_batched A list shorter");
        // Placeholders outside a query.
        let mut pb = DeviceBuffer::<f64>::placeholder(64);
        let r = solver::getrf(&mut h, 4, 4, &mut pb, 4, ipiv.results(), info.results());
        expect_err(r, is_pointer, &["placeholder"], "getrf A placeholder");
        let mut pi = Ints {
            loc: Loc::Device,
            host: vec![],
            dev: Some(DeviceBuffer::placeholder(32)),
            before: vec![],
        };
        let r = solver::getrf(&mut h, 4, 4, b, 4, pi.results(), info.results());
        expect_err(r, is_pointer, &["placeholder"], "getrf ipiv placeholder");
        let r = solver::potrf(&mut h, Uplo::Lower, 4, b, 4, pi.results());
        expect_err(r, is_pointer, &["placeholder"], "potrf info placeholder");
        let r = solver::getrs(&mut h, Op::N, 4, 1, &a, 4, &ppiv, b, 4);
        expect_err(r, is_pointer, &["placeholder"], "getrs ipiv placeholder");
        let r = solver::potrs(&mut h, Uplo::Upper, 4, 1, &pa, 4, b, 4);
        expect_err(r, is_pointer, &["placeholder"], "potrs A placeholder");
    }
    o.check();
    for (i, x) in [&ipiv, &ipiv4h, &ipiv4d, &ipiv12, &info, &info2d, &info2h]
        .iter()
        .enumerate()
    {
        x.untouched(&format!("short buffers: integer buffer {i}"));
    }
    expect_errs_done();
}

fn f9_overlapping_strided_outputs_are_invalid(dev: &Device) {
    let mut h = handle(dev);
    let a = dev.upload(&[0.5f64; 64]).unwrap();
    let piv_in = dev.upload(&[1i32; 32]).unwrap();
    let mut ipiv = Ints::new(dev, Loc::Device, vec![PIV_POISON; 32]);
    let mut ipiv_h = Ints::new(dev, Loc::Host, vec![PIV_POISON; 32]);
    let mut info = Ints::new(dev, Loc::Host, vec![INFO_POISON; 4]);
    let mut o = Outs::new(dev, &[64]);
    {
        let b = &mut o.bufs[0];
        let r = solver::getrf_strided_batched(
            &mut h,
            3,
            3,
            b,
            3,
            8,
            ipiv.results(),
            3,
            info.results(),
            2,
        );
        expect_err(
            r,
            is_value,
            &["getrf_strided_batched", "stride_a = 8"],
            "getrf A stride 8 < 9",
        );
        let r = solver::getrf_npvt_strided_batched(&mut h, 4, 2, b, 4, 0, info.results(), 2);
        expect_err(r, is_value, &["stride_a = 0"], "npvt A stride 0");
        let r = solver::potrf_strided_batched(&mut h, Uplo::Upper, 3, b, 4, 10, info.results(), 3);
        expect_err(
            r,
            is_value,
            &["potrf_strided_batched", "stride_a = 10"],
            "potrf A stride 10 < 11",
        );
        let r =
            solver::getrs_strided_batched(&mut h, Op::N, 3, 2, &a, 3, 9, &piv_in, 3, b, 3, 5, 2);
        expect_err(
            r,
            is_value,
            &["getrs_strided_batched", "stride_b = 5"],
            "getrs B stride 5 < 6",
        );
        let r = solver::potrs_strided_batched(&mut h, Uplo::Lower, 2, 2, &a, 2, 4, b, 3, 0, 2);
        expect_err(
            r,
            is_value,
            &["potrs_strided_batched", "stride_b = 0"],
            "potrs B stride 0",
        );
        // Pivots of different entries would overlap.
        let r = solver::getrf_strided_batched(
            &mut h,
            4,
            3,
            b,
            4,
            12,
            ipiv.results(),
            2,
            info.results(),
            2,
        );
        expect_err(
            r,
            is_size_or_value,
            &["stride_piv"],
            "getrf stride_piv 2 < 3",
        );
        let r = solver::getrf_strided_batched(
            &mut h,
            3,
            3,
            b,
            3,
            9,
            ipiv_h.results(),
            0,
            info.results(),
            3,
        );
        expect_err(
            r,
            is_size_or_value,
            &["stride_piv"],
            "getrf stride_piv 0 (host)",
        );
        let mut b1 = dev.upload(&pattern(16)).unwrap();
        let mut b2 = dev.upload(&pattern(16)).unwrap();
        let r = solver::getrf_batched(
            &mut h,
            3,
            3,
            &mut [&mut b1, &mut b2],
            3,
            ipiv.results(),
            1,
            info.results(),
        );
        expect_err(
            r,
            is_size_or_value,
            &["stride_piv"],
            "getrf_batched stride_piv 1 < 3",
        );
        assert_eq!(b1.to_vec().unwrap(), pattern(16));
        assert_eq!(b2.to_vec().unwrap(), pattern(16));
    }
    o.check();
    ipiv.untouched("overlap (ipiv)");
    ipiv_h.untouched("overlap (ipiv host)");
    info.untouched("overlap (info)");
    expect_errs_done();
}

/// F9: inputs may overlap: one factor and one set of pivots for every entry (stride 0).
fn f9_strided_solves_may_share_one_factor(dev: &Device) {
    let mut h = handle(dev);
    let mut r = Gen::new(241);
    let count = 5;
    for rt in [
        Srt::Getrs(Op::N),
        Srt::Getrs(Op::C),
        Srt::Potrs(Uplo::Upper),
    ] {
        for n in [7, 65] {
            let one = SCase::new(rt, n, 3).with(Form::Strided(1), 1, 2);
            let s = prepare_solve::<Complex64>(dev, &mut r, one, Fill::Random);
            let c = SCase {
                form: Form::Strided(count),
                pgap: 0,
                ..one
            };
            let (mut bst, mut bd) = (vec![], vec![]);
            for _ in 0..count {
                let b = gen_random::<Complex64>(n, 3, &mut r);
                bst.push(store::<Complex64>(&b, c.ldb, None));
                bd.push(b);
            }
            let mut run = SolveRun::<Complex64> {
                c,
                a: Placed {
                    form: Form::Strided(count),
                    stride: 0,
                    bufs: s.a.bufs,
                    before: s.a.before,
                },
                piv: s.piv,
                b: Placed::with_gap(dev, c.form, span(n, 3, c.ldb), 1, &bst, Complex64::pnan()),
                ad: vec![s.ad[0].clone(); count],
                bd,
                fill: Fill::Random,
            };
            // The pivots are read at stride 0 too.
            let (sa, sb) = (run.a.stride, run.b.stride);
            let what = run.name();
            let st = match rt {
                Srt::Getrs(op) => solver::getrs_strided_batched(
                    &mut h,
                    op,
                    n,
                    3,
                    run.a.one(),
                    c.lda,
                    sa,
                    &run.piv.as_ref().unwrap().0,
                    0,
                    run.b.one_mut(),
                    c.ldb,
                    sb,
                    count,
                ),
                Srt::Potrs(u) => solver::potrs_strided_batched(
                    &mut h,
                    u,
                    n,
                    3,
                    run.a.one(),
                    c.lda,
                    sa,
                    run.b.one_mut(),
                    c.ldb,
                    sb,
                    count,
                ),
            }
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(st, Status::Success, "{what}");
            run.check(&what);
        }
    }
}

/// F7: pivots are data the call cannot trust: rows out of range (0, negative, past `n`) must
/// not make `getrs` read or write outside its buffers; it returns (an error or a result) and
/// only `B`'s entries may change.
fn f7_getrs_out_of_range_pivots_stay_inside_buffers(dev: &Device) {
    let mut h = handle(dev);
    let mut r = Gen::new(251);
    for (n, form) in [
        (5, Form::Single),
        (40, Form::Strided(2)),
        (70, Form::List(2)),
    ] {
        for bad in [0, -3, n as i32 + 1, i32::MAX, i32::MIN] {
            let c = SCase::new(Srt::Getrs(Op::N), n, 2).with(form, 1, 1);
            let mut s = prepare_solve::<f64>(dev, &mut r, c, Fill::Random);
            let (buf, v) = s.piv.as_mut().unwrap();
            for e in 0..form_count(form) {
                let at = if form == Form::Single {
                    0
                } else {
                    e * c.stride_piv()
                };
                v[at + n / 2] = bad;
            }
            buf.copy_from_host(v).unwrap();
            let what = format!("{} with ipiv holding {bad}", s.name());
            match s.call(&mut h) {
                Ok(_) | Err(Error::InvalidValue(_)) => {}
                Err(e) => panic!("{what}: {e}"),
            }
            let after = s.b.after();
            s.b.only_outputs_changed(&after, n, 2, c.ldb, &|_, _| true, &what);
            s.inputs_untouched(&what);
        }
    }
}

/// A getrf big enough for the look-ahead program (its panels on a second stream) captured into
/// a graph on a workspace preallocated by a query: capturing runs nothing, and every replay
/// gives the bits of an uncaptured call, whose factors and pivots are checked against the
/// reference loop. The host backend refuses capture.
fn m13_f10_capture_lookahead_getrf_replays(dev: &Device) {
    let mut h = fixed_handle(dev, 0);
    if dev.backend() == gpublas::Backend::Host {
        assert!(matches!(
            h.stream().begin_capture(),
            Err(Error::Unsupported(_))
        ));
        return;
    }
    let (m, n, lda) = (700usize, 600usize, 703usize);
    let mut r = Gen::new(211);
    let (ad, _) = gen_sep::<f64>(m, n, &[], &[], false, true, &mut r);
    let a0 = store::<f64>(&ad, lda, None);
    let getrf = |h: &mut Handle,
                 a: &mut DeviceBuffer<f64>,
                 p: &mut DeviceBuffer<i32>,
                 i: &mut DeviceBuffer<i32>| {
        solver::getrf(h, m, n, a, lda, Results::Device(p), Results::Device(i))
    };
    let mut a = dev.upload(&a0).unwrap();
    let mut piv = dev.upload(&vec![PIV_POISON; n]).unwrap();
    let mut info = dev.upload(&[INFO_POISON]).unwrap();
    h.start_device_memory_size_query().unwrap();
    let _ = getrf(&mut h, &mut a, &mut piv, &mut info).unwrap();
    let need = h.stop_device_memory_size_query().unwrap();
    let _ = h.set_device_memory_size(need).unwrap();
    // The uncaptured call, checked against the reference.
    assert_eq!(
        getrf(&mut h, &mut a, &mut piv, &mut info).unwrap(),
        Status::Success
    );
    let (want_a, want_p) = (a.to_vec().unwrap(), piv.to_vec().unwrap());
    assert_eq!(info.to_vec().unwrap(), vec![0]);
    let f = Dense {
        r: m,
        c: n,
        v: (0..n)
            .flat_map(|j| (0..m).map(move |i| (i, j)))
            .map(|(i, j)| (want_a[i + j * lda], 0.0))
            .collect(),
    };
    let p0: Vec<usize> = want_p.iter().map(|&p| (p - 1) as usize).collect();
    let (_, ref_p, _) = ref_lu(&ad, true);
    assert_eq!(p0, ref_p, "pivots differ from the reference loop");
    let res = lu_residual(&ad, &f, Some(&p0), f64::EPSILON);
    assert!(res < RESID_MAX, "LU residual ratio {res:.3e}");
    // Captured: nothing runs until the graph does.
    a.copy_from_host(&a0).unwrap();
    piv.copy_from_host(&vec![PIV_POISON; n]).unwrap();
    info.copy_from_host(&[INFO_POISON]).unwrap();
    h.stream().begin_capture().unwrap();
    let st = getrf(&mut h, &mut a, &mut piv, &mut info);
    let graph = h.stream().end_capture();
    assert_eq!(st.unwrap(), Status::Success);
    let graph = graph.unwrap();
    // Bits: the padding rows hold NaN.
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
    assert!(
        bits(&a.to_vec().unwrap()) == bits(&a0),
        "capturing changed A"
    );
    assert_eq!(info.to_vec().unwrap(), vec![INFO_POISON]);
    for rep in 0..3 {
        a.copy_from_host(&a0).unwrap();
        piv.copy_from_host(&vec![PIV_POISON; n]).unwrap();
        info.copy_from_host(&[INFO_POISON]).unwrap();
        graph.launch().unwrap();
        h.synchronize().unwrap();
        assert!(
            bits(&a.to_vec().unwrap()) == bits(&want_a),
            "replay {rep}: factors differ"
        );
        assert_eq!(piv.to_vec().unwrap(), want_p, "replay {rep}: pivots differ");
        assert_eq!(info.to_vec().unwrap(), vec![0], "replay {rep}: info");
    }
}

crate::on_both_backends!(
    f7_bad_leading_dimensions_are_invalid_size_naming_them,
    f7_short_buffers_placeholders_and_batch_counts_are_errors,
    f9_overlapping_strided_outputs_are_invalid,
    f9_strided_solves_may_share_one_factor,
    f7_getrs_out_of_range_pivots_stay_inside_buffers,
    m13_f10_capture_lookahead_getrf_replays,
);
