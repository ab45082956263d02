//! F1: nrm2_ex, batched and strided batched forms.

use super::*;

/// Runs nrm2_ex_batched and nrm2_ex_strided_batched with results on the host and on the
/// device, poisoned one past the batch, and compares with `want`.
fn nrm2_ex_forms<X: ExInput, A: ExAcc + Copy + std::fmt::Debug>(
    h: &mut Handle,
    n: usize,
    inc: isize,
    strided: &DeviceBuffer<X>,
    stride: usize,
    list: &[&DeviceBuffer<X>],
    want: &[f64],
    nan: A,
    to_f64: fn(A) -> f64,
    tol: f64,
) {
    let batch = want.len();
    for (form, dev_out) in [(0, false), (0, true), (1, false), (1, true)] {
        let mut host = vec![nan; batch + 1];
        let mut dbuf = h.device().upload(&host).unwrap();
        let out = if dev_out {
            Results::Device(&mut dbuf)
        } else {
            Results::Host(&mut host)
        };
        let what = format!(
            "nrm2_ex<{}, {}> {} n={n} inc={inc} batch={batch} results on {}",
            std::any::type_name::<X>(),
            std::any::type_name::<A>(),
            if form == 0 { "batched" } else { "strided" },
            if dev_out { "device" } else { "host" }
        );
        let st = if form == 0 {
            blas1::nrm2_ex_batched::<X, A>(h, n, list, inc, out)
        } else {
            blas1::nrm2_ex_strided_batched::<X, A>(h, n, strided, inc, stride, batch, out)
        }
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(
            matches!(st, Status::Success | Status::PerfDegraded),
            "{what}: {st:?}"
        );
        let got = if dev_out {
            dbuf.to_vec().unwrap()
        } else {
            host
        };
        for v in 0..batch {
            let g = to_f64(got[v]);
            assert!(
                (g - want[v]).abs() <= tol * want[v].abs(),
                "{what} v={v}: got {g}, want {}",
                want[v]
            );
        }
        assert!(to_f64(got[batch]).is_nan(), "{what}: wrote past the batch");
    }
}

fn f1_nrm2_ex_batched_and_strided_half_bf16_f32(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    for &n in &[0usize, 1, 33, 1025, (1 << 20) + 3] {
        let big = n > BIG;
        let batches: &[usize] = if big { &[0, 2] } else { &[0, 1, 7] };
        let incs: &[isize] = if big { &[1] } else { &[1, 3, -1] };
        for &inc in incs {
            for &batch in batches {
                let sp = span(n, inc);
                let stride = sp + 2;
                let len = stride * batch.max(1);
                let mut r = rng(n as u64 * 31 + batch as u64 * 7 + inc.unsigned_abs() as u64);
                let vals = randn(&mut r, len);
                let a = inc.unsigned_abs();
                // NaN in the gaps, between increments and between entries.
                let live = |k: usize| k % stride < sp && (k % stride) % a == 0;
                macro_rules! case {
                    ($t:ty, $conv:expr, $back:expr) => {{
                        let data: Vec<$t> = (0..len)
                            .map(|k| $conv(if live(k) { vals[k] } else { f64::NAN }))
                            .collect();
                        let want: Vec<f64> = (0..batch)
                            .map(|v| {
                                if inc <= 0 {
                                    return 0.0;
                                }
                                (0..n)
                                    .map(|i| {
                                        let q: f64 = $back(data[v * stride + i * a]);
                                        q * q
                                    })
                                    .sum::<f64>()
                                    .sqrt()
                            })
                            .collect();
                        let sb = dev.upload(&data).unwrap();
                        let lb: Vec<DeviceBuffer<$t>> = (0..batch)
                            .map(|v| dev.upload(&data[v * stride..v * stride + sp]).unwrap())
                            .collect();
                        let lr: Vec<&DeviceBuffer<$t>> = lb.iter().collect();
                        nrm2_ex_forms::<$t, f32>(
                            &mut h,
                            n,
                            inc,
                            &sb,
                            stride,
                            &lr,
                            &want,
                            f32::NAN,
                            |v| v as f64,
                            4e-5,
                        );
                        nrm2_ex_forms::<$t, f64>(
                            &mut h,
                            n,
                            inc,
                            &sb,
                            stride,
                            &lr,
                            &want,
                            f64::NAN,
                            |v| v,
                            4e-13,
                        );
                    }};
                }
                case!(f16, f16::from_f64, |v: f16| v.to_f64());
                case!(bf16, bf16::from_f64, |v: bf16| v.to_f64());
                case!(f32, |v: f64| v as f32, |v: f32| v as f64);
            }
        }
    }
}

crate::on_both_backends!(f1_nrm2_ex_batched_and_strided_half_bf16_f32);
