//! F2, F7, F9: bad arguments. Every refused call leaves every output bit for bit as it was;
//! for gesv and posv that includes the part that would have run first (a bad `ldb`, a short
//! or placeholder `B`, or a list of right-hand sides of another length must not let the
//! factorization of `A` run).

use super::*;
use common::errors::pattern;

/// The operands of the bad calls: matrices holding a known pattern (real data a call would
/// overwrite), pivots and `info` holding poison, all compared after every call.
struct Ops {
    a: DeviceBuffer<f64>,
    b: DeviceBuffer<f64>,
    a1: DeviceBuffer<f64>,
    a2: DeviceBuffer<f64>,
    b1: DeviceBuffer<f64>,
    b2: DeviceBuffer<f64>,
    /// 24 elements: one short of a 5 × 5 matrix.
    a24: DeviceBuffer<f64>,
    b24: DeviceBuffer<f64>,
    /// Written pivots: 32, 8 and 4 elements.
    piv: DeviceBuffer<i32>,
    piv8: DeviceBuffer<i32>,
    piv4: DeviceBuffer<i32>,
    /// Read pivots (getri): 32 and 4 elements of valid rows.
    pin: DeviceBuffer<i32>,
    pin4: DeviceBuffer<i32>,
    /// `info`: 4 and 2 elements, host and device.
    ih: Vec<i32>,
    id: DeviceBuffer<i32>,
    ih2: Vec<i32>,
    id2: DeviceBuffer<i32>,
}

impl Ops {
    fn new(dev: &Device) -> Ops {
        let m = |len: usize| dev.upload(&pattern::<f64>(len)).unwrap();
        let i = |v: i32, len: usize| dev.upload(&vec![v; len]).unwrap();
        Ops {
            a: m(64),
            b: m(64),
            a1: m(64),
            a2: m(64),
            b1: m(64),
            b2: m(64),
            a24: m(24),
            b24: m(24),
            piv: i(PIV_POISON, 32),
            piv8: i(PIV_POISON, 8),
            piv4: i(PIV_POISON, 4),
            pin: i(1, 32),
            pin4: i(1, 4),
            ih: vec![INFO_POISON; 4],
            id: i(INFO_POISON, 4),
            ih2: vec![INFO_POISON; 2],
            id2: i(INFO_POISON, 2),
        }
    }

    /// Records (with the others, see `expect_errs_done`) every output that changed.
    fn unchanged(&self, what: &str) {
        let mut bad = vec![];
        for (name, b) in [
            ("A", &self.a),
            ("B", &self.b),
            ("A1", &self.a1),
            ("A2", &self.a2),
            ("B1", &self.b1),
            ("B2", &self.b2),
            ("A24", &self.a24),
            ("B24", &self.b24),
        ] {
            let got = b.to_vec().unwrap();
            let want = pattern::<f64>(got.len());
            if let Some(p) = (0..got.len()).find(|&p| !same(got[p], want[p])) {
                bad.push(format!("{name}[{p}] = {} (was {})", got[p], want[p]));
            }
        }
        let ints = [
            ("ipiv", &self.piv, PIV_POISON),
            ("ipiv8", &self.piv8, PIV_POISON),
            ("ipiv4", &self.piv4, PIV_POISON),
            ("ipiv in", &self.pin, 1),
            ("ipiv4 in", &self.pin4, 1),
            ("info (device)", &self.id, INFO_POISON),
            ("info2 (device)", &self.id2, INFO_POISON),
        ];
        for (name, b, v) in ints {
            let got = b.to_vec().unwrap();
            if let Some(p) = got.iter().position(|&x| x != v) {
                bad.push(format!("{name}[{p}] = {}", got[p]));
            }
        }
        for (name, h) in [("info (host)", &self.ih), ("info2 (host)", &self.ih2)] {
            if let Some(p) = h.iter().position(|&x| x != INFO_POISON) {
                bad.push(format!("{name}[{p}] = {}", h[p]));
            }
        }
        if !bad.is_empty() {
            ERR_FAILURES.with(|v| {
                v.borrow_mut()
                    .push(format!("{what}: outputs written: {}", bad.join(", ")))
            });
        }
    }
}

/// Runs a call that must fail with `kind` naming `parts`, then checks every output.
fn bad(
    o: &mut Ops,
    what: &str,
    kind: fn(&Error) -> bool,
    parts: &[&str],
    f: impl FnOnce(&mut Ops) -> Result<Status, Error>,
) {
    let r = f(o);
    expect_err(r, kind, parts, what);
    o.unchanged(what);
}

fn f2_f7_gesv_bad_arguments_leave_outputs_untouched(dev: &Device) {
    let mut h = handle(dev);
    let o = &mut Ops::new(dev);
    let h = &mut h;
    // Leading dimensions (size checks; ldb belongs to the second part).
    bad(o, "gesv lda < n", is_size, &["gesv", "lda = 4", "5"], |o| {
        solver::gesv(
            h,
            5,
            2,
            &mut o.a,
            4,
            &mut o.piv,
            &mut o.b,
            5,
            Results::Host(&mut o.ih),
        )
    });
    bad(o, "gesv ldb < n", is_size, &["gesv", "ldb = 4", "5"], |o| {
        solver::gesv(
            h,
            5,
            2,
            &mut o.a,
            5,
            &mut o.piv,
            &mut o.b,
            4,
            Results::Device(&mut o.id),
        )
    });
    bad(o, "gesv lda = 0 with n = 0", is_size, &["lda = 0"], |o| {
        solver::gesv(
            h,
            0,
            2,
            &mut o.a,
            0,
            &mut o.piv,
            &mut o.b,
            1,
            Results::Host(&mut o.ih),
        )
    });
    bad(o, "gesv ldb = 0 with n = 0", is_size, &["ldb = 0"], |o| {
        solver::gesv(
            h,
            0,
            2,
            &mut o.a,
            1,
            &mut o.piv,
            &mut o.b,
            0,
            Results::Host(&mut o.ih),
        )
    });
    bad(
        o,
        "gesv_batched lda < n",
        is_size,
        &["gesv_batched", "lda = 2"],
        |o| {
            solver::gesv_batched(
                h,
                3,
                1,
                &mut [&mut o.a1, &mut o.a2],
                2,
                &mut o.piv,
                3,
                &mut [&mut o.b1, &mut o.b2],
                3,
                Results::Host(&mut o.ih),
            )
        },
    );
    bad(
        o,
        "gesv_batched ldb < n",
        is_size,
        &["gesv_batched", "ldb = 2"],
        |o| {
            solver::gesv_batched(
                h,
                3,
                1,
                &mut [&mut o.a1, &mut o.a2],
                3,
                &mut o.piv,
                3,
                &mut [&mut o.b1, &mut o.b2],
                2,
                Results::Device(&mut o.id),
            )
        },
    );
    bad(
        o,
        "gesv_strided lda < n",
        is_size,
        &["gesv_strided_batched", "lda = 3"],
        |o| {
            solver::gesv_strided_batched(
                h,
                4,
                1,
                &mut o.a,
                3,
                16,
                &mut o.piv,
                4,
                &mut o.b,
                4,
                4,
                Results::Host(&mut o.ih),
                2,
            )
        },
    );
    bad(
        o,
        "gesv_strided ldb < n",
        is_size,
        &["gesv_strided_batched", "ldb = 3"],
        |o| {
            solver::gesv_strided_batched(
                h,
                4,
                2,
                &mut o.a,
                4,
                16,
                &mut o.piv,
                4,
                &mut o.b,
                3,
                8,
                Results::Host(&mut o.ih),
                2,
            )
        },
    );
    // Lists of different lengths.
    bad(o, "gesv_batched A list longer", is_size, &["2", "1"], |o| {
        solver::gesv_batched(
            h,
            3,
            1,
            &mut [&mut o.a1, &mut o.a2],
            3,
            &mut o.piv,
            3,
            &mut [&mut o.b1],
            3,
            Results::Host(&mut o.ih),
        )
    });
    bad(
        o,
        "gesv_batched A list shorter",
        is_size,
        &["1", "2"],
        |o| {
            solver::gesv_batched(
                h,
                3,
                1,
                &mut [&mut o.a1],
                3,
                &mut o.piv,
                3,
                &mut [&mut o.b1, &mut o.b2],
                3,
                Results::Device(&mut o.id),
            )
        },
    );
    // Short buffers.
    bad(o, "gesv ipiv short", is_value, &["ipiv", "4", "5"], |o| {
        solver::gesv(
            h,
            5,
            1,
            &mut o.a,
            5,
            &mut o.piv4,
            &mut o.b,
            5,
            Results::Host(&mut o.ih),
        )
    });
    bad(
        o,
        "gesv_strided ipiv short",
        is_value,
        &["ipiv", "8", "10"],
        |o| {
            solver::gesv_strided_batched(
                h,
                5,
                1,
                &mut o.a,
                5,
                25,
                &mut o.piv8,
                5,
                &mut o.b,
                5,
                5,
                Results::Host(&mut o.ih),
                2,
            )
        },
    );
    bad(
        o,
        "gesv_batched info (host) short",
        is_value,
        &["info", "2", "3"],
        |o| {
            solver::gesv_batched(
                h,
                3,
                1,
                &mut [&mut o.a1, &mut o.a2, &mut o.a],
                3,
                &mut o.piv,
                3,
                &mut [&mut o.b1, &mut o.b2, &mut o.b],
                3,
                Results::Host(&mut o.ih2),
            )
        },
    );
    bad(
        o,
        "gesv_strided info (device) short",
        is_value,
        &["info", "2", "3"],
        |o| {
            solver::gesv_strided_batched(
                h,
                3,
                1,
                &mut o.a,
                3,
                9,
                &mut o.piv,
                3,
                &mut o.b,
                3,
                3,
                Results::Device(&mut o.id2),
                3,
            )
        },
    );
    bad(o, "gesv A short", is_value, &["24", "25"], |o| {
        solver::gesv(
            h,
            5,
            2,
            &mut o.a24,
            5,
            &mut o.piv,
            &mut o.b,
            5,
            Results::Host(&mut o.ih),
        )
    });
    bad(o, "gesv B short", is_value, &["24", "25"], |o| {
        solver::gesv(
            h,
            5,
            5,
            &mut o.a,
            5,
            &mut o.piv,
            &mut o.b24,
            5,
            Results::Host(&mut o.ih),
        )
    });
    // Placeholders outside a query.
    let mut pa = DeviceBuffer::<f64>::placeholder(64);
    let mut pi = DeviceBuffer::<i32>::placeholder(32);
    bad(o, "gesv A placeholder", is_pointer, &["placeholder"], |o| {
        solver::gesv(
            h,
            4,
            1,
            &mut pa,
            4,
            &mut o.piv,
            &mut o.b,
            4,
            Results::Host(&mut o.ih),
        )
    });
    bad(o, "gesv B placeholder", is_pointer, &["placeholder"], |o| {
        solver::gesv(
            h,
            4,
            1,
            &mut o.a,
            4,
            &mut o.piv,
            &mut pa,
            4,
            Results::Host(&mut o.ih),
        )
    });
    bad(
        o,
        "gesv ipiv placeholder",
        is_pointer,
        &["placeholder"],
        |o| {
            solver::gesv(
                h,
                4,
                1,
                &mut o.a,
                4,
                &mut pi,
                &mut o.b,
                4,
                Results::Host(&mut o.ih),
            )
        },
    );
    bad(
        o,
        "gesv info placeholder",
        is_pointer,
        &["placeholder"],
        |o| {
            solver::gesv(
                h,
                4,
                1,
                &mut o.a,
                4,
                &mut o.piv,
                &mut o.b,
                4,
                Results::Device(&mut pi),
            )
        },
    );
    // Pivots of different entries would overlap (written: F9).
    bad(
        o,
        "gesv_strided stride_piv 3 < 4",
        is_size_or_value,
        &["stride_piv"],
        |o| {
            solver::gesv_strided_batched(
                h,
                4,
                1,
                &mut o.a,
                4,
                16,
                &mut o.piv,
                3,
                &mut o.b,
                4,
                4,
                Results::Host(&mut o.ih),
                2,
            )
        },
    );
    bad(
        o,
        "gesv_batched stride_piv 1 < 3",
        is_size_or_value,
        &["stride_piv"],
        |o| {
            solver::gesv_batched(
                h,
                3,
                1,
                &mut [&mut o.a1, &mut o.a2],
                3,
                &mut o.piv,
                1,
                &mut [&mut o.b1, &mut o.b2],
                3,
                Results::Device(&mut o.id),
            )
        },
    );
    // Strided outputs of different entries would overlap (F9).
    bad(
        o,
        "gesv_strided stride_a 8 < 9",
        is_value,
        &["stride_a = 8"],
        |o| {
            solver::gesv_strided_batched(
                h,
                3,
                2,
                &mut o.a,
                3,
                8,
                &mut o.piv,
                3,
                &mut o.b,
                3,
                6,
                Results::Host(&mut o.ih),
                2,
            )
        },
    );
    bad(
        o,
        "gesv_strided stride_b 5 < 6",
        is_value,
        &["stride_b = 5"],
        |o| {
            solver::gesv_strided_batched(
                h,
                3,
                2,
                &mut o.a,
                3,
                9,
                &mut o.piv,
                3,
                &mut o.b,
                3,
                5,
                Results::Host(&mut o.ih),
                2,
            )
        },
    );
    expect_errs_done();
}

fn f2_f7_posv_bad_arguments_leave_outputs_untouched(dev: &Device) {
    let mut h = handle(dev);
    let o = &mut Ops::new(dev);
    let h = &mut h;
    let (lo, up) = (Uplo::Lower, Uplo::Upper);
    bad(o, "posv lda < n", is_size, &["posv", "lda = 4", "5"], |o| {
        solver::posv(
            h,
            lo,
            5,
            2,
            &mut o.a,
            4,
            &mut o.b,
            5,
            Results::Host(&mut o.ih),
        )
    });
    bad(o, "posv ldb < n", is_size, &["posv", "ldb = 4", "5"], |o| {
        solver::posv(
            h,
            up,
            5,
            2,
            &mut o.a,
            5,
            &mut o.b,
            4,
            Results::Device(&mut o.id),
        )
    });
    bad(
        o,
        "posv_batched lda < n",
        is_size,
        &["posv_batched", "lda = 2"],
        |o| {
            solver::posv_batched(
                h,
                up,
                3,
                1,
                &mut [&mut o.a1, &mut o.a2],
                2,
                &mut [&mut o.b1, &mut o.b2],
                3,
                Results::Host(&mut o.ih),
            )
        },
    );
    bad(
        o,
        "posv_batched ldb < n",
        is_size,
        &["posv_batched", "ldb = 1"],
        |o| {
            solver::posv_batched(
                h,
                lo,
                3,
                1,
                &mut [&mut o.a1, &mut o.a2],
                3,
                &mut [&mut o.b1, &mut o.b2],
                1,
                Results::Host(&mut o.ih),
            )
        },
    );
    bad(
        o,
        "posv_strided ldb < n",
        is_size,
        &["posv_strided_batched", "ldb = 3"],
        |o| {
            solver::posv_strided_batched(
                h,
                lo,
                4,
                2,
                &mut o.a,
                4,
                16,
                &mut o.b,
                3,
                8,
                Results::Device(&mut o.id),
                2,
            )
        },
    );
    bad(o, "posv_batched A list longer", is_size, &["2", "1"], |o| {
        solver::posv_batched(
            h,
            up,
            3,
            1,
            &mut [&mut o.a1, &mut o.a2],
            3,
            &mut [&mut o.b1],
            3,
            Results::Host(&mut o.ih),
        )
    });
    bad(
        o,
        "posv_batched info (host) short",
        is_value,
        &["info", "2", "3"],
        |o| {
            solver::posv_batched(
                h,
                lo,
                3,
                1,
                &mut [&mut o.a1, &mut o.a2, &mut o.a],
                3,
                &mut [&mut o.b1, &mut o.b2, &mut o.b],
                3,
                Results::Host(&mut o.ih2),
            )
        },
    );
    bad(
        o,
        "posv_strided info (device) short",
        is_value,
        &["info", "2", "3"],
        |o| {
            solver::posv_strided_batched(
                h,
                up,
                3,
                1,
                &mut o.a,
                3,
                9,
                &mut o.b,
                3,
                3,
                Results::Device(&mut o.id2),
                3,
            )
        },
    );
    bad(o, "posv A short", is_value, &["24", "25"], |o| {
        solver::posv(
            h,
            up,
            5,
            2,
            &mut o.a24,
            5,
            &mut o.b,
            5,
            Results::Host(&mut o.ih),
        )
    });
    bad(o, "posv B short", is_value, &["24", "25"], |o| {
        solver::posv(
            h,
            lo,
            5,
            5,
            &mut o.a,
            5,
            &mut o.b24,
            5,
            Results::Host(&mut o.ih),
        )
    });
    let mut pa = DeviceBuffer::<f64>::placeholder(64);
    let mut pi = DeviceBuffer::<i32>::placeholder(4);
    bad(o, "posv A placeholder", is_pointer, &["placeholder"], |o| {
        solver::posv(
            h,
            lo,
            4,
            1,
            &mut pa,
            4,
            &mut o.b,
            4,
            Results::Host(&mut o.ih),
        )
    });
    bad(o, "posv B placeholder", is_pointer, &["placeholder"], |o| {
        solver::posv(
            h,
            up,
            4,
            1,
            &mut o.a,
            4,
            &mut pa,
            4,
            Results::Host(&mut o.ih),
        )
    });
    bad(
        o,
        "posv info placeholder",
        is_pointer,
        &["placeholder"],
        |o| {
            solver::posv(
                h,
                lo,
                4,
                1,
                &mut o.a,
                4,
                &mut o.b,
                4,
                Results::Device(&mut pi),
            )
        },
    );
    bad(
        o,
        "posv_strided stride_a 10 < 11",
        is_value,
        &["posv_strided_batched", "stride_a = 10"],
        |o| {
            solver::posv_strided_batched(
                h,
                up,
                3,
                1,
                &mut o.a,
                4,
                10,
                &mut o.b,
                3,
                3,
                Results::Host(&mut o.ih),
                3,
            )
        },
    );
    bad(
        o,
        "posv_strided stride_b 0",
        is_value,
        &["posv_strided_batched", "stride_b = 0"],
        |o| {
            solver::posv_strided_batched(
                h,
                lo,
                2,
                2,
                &mut o.a,
                2,
                4,
                &mut o.b,
                3,
                0,
                Results::Host(&mut o.ih),
                2,
            )
        },
    );
    expect_errs_done();
}

fn f2_f7_getri_bad_arguments_leave_outputs_untouched(dev: &Device) {
    let mut h = handle(dev);
    let o = &mut Ops::new(dev);
    let h = &mut h;
    bad(
        o,
        "getri lda < n",
        is_size,
        &["getri", "lda = 4", "5"],
        |o| solver::getri(h, 5, &mut o.a, 4, &o.pin, Results::Host(&mut o.ih)),
    );
    bad(o, "getri lda = 0 with n = 0", is_size, &["lda = 0"], |o| {
        solver::getri(h, 0, &mut o.a, 0, &o.pin, Results::Device(&mut o.id))
    });
    bad(
        o,
        "getri_batched lda < n",
        is_size,
        &["getri_batched", "lda = 2"],
        |o| {
            solver::getri_batched(
                h,
                3,
                &mut [&mut o.a1, &mut o.a2],
                2,
                &o.pin,
                3,
                Results::Host(&mut o.ih),
            )
        },
    );
    bad(
        o,
        "getri_strided lda < n",
        is_size,
        &["getri_strided_batched", "lda = 3"],
        |o| {
            solver::getri_strided_batched(
                h,
                4,
                &mut o.a,
                3,
                16,
                &o.pin,
                4,
                Results::Device(&mut o.id),
                2,
            )
        },
    );
    bad(o, "getri ipiv short", is_value, &["ipiv", "4", "5"], |o| {
        solver::getri(h, 5, &mut o.a, 5, &o.pin4, Results::Host(&mut o.ih))
    });
    bad(
        o,
        "getri_strided ipiv short",
        is_value,
        &["ipiv", "4", "6"],
        |o| {
            solver::getri_strided_batched(
                h,
                3,
                &mut o.a,
                3,
                9,
                &o.pin4,
                3,
                Results::Host(&mut o.ih),
                2,
            )
        },
    );
    bad(
        o,
        "getri_batched info (host) short",
        is_value,
        &["info", "2", "3"],
        |o| {
            solver::getri_batched(
                h,
                3,
                &mut [&mut o.a1, &mut o.a2, &mut o.a],
                3,
                &o.pin,
                3,
                Results::Host(&mut o.ih2),
            )
        },
    );
    bad(
        o,
        "getri_strided info (device) short",
        is_value,
        &["info", "2", "3"],
        |o| {
            solver::getri_strided_batched(
                h,
                3,
                &mut o.a,
                3,
                9,
                &o.pin,
                3,
                Results::Device(&mut o.id2),
                3,
            )
        },
    );
    bad(o, "getri A short", is_value, &["24", "25"], |o| {
        solver::getri(h, 5, &mut o.a24, 5, &o.pin, Results::Host(&mut o.ih))
    });
    let mut pa = DeviceBuffer::<f64>::placeholder(64);
    let mut pi = DeviceBuffer::<i32>::placeholder(32);
    bad(
        o,
        "getri A placeholder",
        is_pointer,
        &["placeholder"],
        |o| solver::getri(h, 4, &mut pa, 4, &o.pin, Results::Host(&mut o.ih)),
    );
    bad(
        o,
        "getri ipiv placeholder",
        is_pointer,
        &["placeholder"],
        |o| solver::getri(h, 4, &mut o.a, 4, &pi, Results::Host(&mut o.ih)),
    );
    bad(
        o,
        "getri info placeholder",
        is_pointer,
        &["placeholder"],
        |o| solver::getri(h, 4, &mut o.a, 4, &o.pin, Results::Device(&mut pi)),
    );
    bad(
        o,
        "getri_strided stride_a 8 < 9",
        is_value,
        &["getri_strided_batched", "stride_a = 8"],
        |o| {
            solver::getri_strided_batched(
                h,
                3,
                &mut o.a,
                3,
                8,
                &o.pin,
                3,
                Results::Host(&mut o.ih),
                2,
            )
        },
    );
    expect_errs_done();
}

/// F9: getri's pivots are read, so entries may share them (stride 0), as inputs may overlap;
/// the inverses are right.
fn f9_getri_strided_entries_may_share_pivots(dev: &Device) {
    let mut h = handle(dev);
    let mut r = Gen::new(1801);
    for n in [7usize, 65] {
        let count = 4;
        let c = DCase::new(Rt::Getri, n, 0).with(Form::Strided(count), 1, 0);
        // One matrix factored, its factors copied into every entry.
        let one = prepare::<Complex64>(dev, &mut r, c.with(Form::Single, 1, 0), &[Fill::Dominant]);
        let f = one.a.before[0][..span(n, n, c.lda)].to_vec();
        let mut run = DrvRun::<Complex64> {
            c: DCase { pgap: 0, ..c },
            a: Placed::with_gap(
                dev,
                c.form,
                span(n, n, c.lda),
                2,
                &vec![f; count],
                Complex64::pnan(),
            ),
            piv: one.piv,
            b: None,
            info: Ints::new(dev, Loc::Device, vec![INFO_POISON; count + 1]),
            ad: vec![one.ad[0].clone(); count],
            bd: vec![],
            fills: vec![Fill::Dominant; count],
            want_info: vec![0; count],
            want_a: vec![],
            want_piv: vec![],
        };
        let what = format!("{} sharing one set of pivots", run.name());
        let sa = run.a.stride;
        let st = solver::getri_strided_batched(
            &mut h,
            n,
            run.a.one_mut(),
            c.lda,
            sa,
            &run.piv.as_ref().unwrap().buf,
            0,
            run.info.results(),
            count,
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(st, Status::Success, "{what}");
        run.check(&what, true);
    }
}

crate::on_both_backends!(
    f2_f7_gesv_bad_arguments_leave_outputs_untouched,
    f2_f7_posv_bad_arguments_leave_outputs_untouched,
    f2_f7_getri_bad_arguments_leave_outputs_untouched,
    f9_getri_strided_entries_may_share_pivots,
);
