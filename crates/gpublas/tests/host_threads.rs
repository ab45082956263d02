//! The host backend with threading on and off (`Handle::set_host_threads`): the same calls on
//! one thread, on rayon's global pool and on a handle's own pool of three threads give the
//! same bits (the work splits into pieces fixed by the shape, each summed in a fixed order),
//! and match plain f64 loops. Sizes straddle the splits: one block and many blocks per
//! vector (8192 elements per block), one and many row pieces of gemv (512 rows).

use gpublas::{blas1, blas2, blas3, Coef, Device, Handle, Op, Results};
use rand::{Rng, SeedableRng};

fn data(seed: u64, n: usize) -> Vec<f64> {
    let mut r = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n).map(|_| r.gen_range(-1.0..1.0)).collect()
}

/// Handles with 1 thread, the global pool, and an own pool of 3.
fn handles(dev: &Device) -> Vec<Handle> {
    [1usize, 0, 3]
        .iter()
        .map(|&t| {
            let mut h = Handle::new(dev).unwrap();
            h.set_host_threads(t).unwrap();
            h
        })
        .collect()
}

/// F1 on the host: every reduction, f32 (accumulated in f64) and f64, bit-identical across
/// thread settings and within rounding of an f64 loop.
#[test]
fn f1_reductions_same_bits_on_any_threads() {
    let dev = Device::host();
    for &n in &[1usize, 1000, 8192 * 3 + 5, 1 << 20] {
        let xs = data(1, n);
        let ys = data(2, n);
        let x32: Vec<f32> = xs.iter().map(|&v| v as f32).collect();
        let y32: Vec<f32> = ys.iter().map(|&v| v as f32).collect();
        let (x, y) = (dev.upload(&xs).unwrap(), dev.upload(&ys).unwrap());
        let (xf, yf) = (dev.upload(&x32).unwrap(), dev.upload(&y32).unwrap());
        let mut seen: Vec<Vec<u64>> = Vec::new();
        for mut h in handles(&dev) {
            let mut r = [0.0f64; 4];
            let mut r32 = [0.0f32; 3];
            let mut idx = [0i64; 2];
            let _ = blas1::dot(&mut h, n, &x, 1, &y, 1, Results::Host(&mut r[0..1])).unwrap();
            let _ = blas1::nrm2(&mut h, n, &x, 1, Results::Host(&mut r[1..2])).unwrap();
            let _ = blas1::asum(&mut h, n, &x, 1, Results::Host(&mut r[2..3])).unwrap();
            let _ = blas1::dot(&mut h, n, &xf, 1, &yf, 1, Results::Host(&mut r32[0..1])).unwrap();
            let _ = blas1::nrm2(&mut h, n, &xf, 1, Results::Host(&mut r32[1..2])).unwrap();
            let _ = blas1::asum(&mut h, n, &xf, 1, Results::Host(&mut r32[2..3])).unwrap();
            let _ = blas1::iamax(&mut h, n, &x, 1, Results::Host(&mut idx[0..1])).unwrap();
            let _ = blas1::iamin(&mut h, n, &xf, 1, Results::Host(&mut idx[1..2])).unwrap();
            let _ = blas1::dot(&mut h, n / 2, &x, 2, &y, -2, Results::Host(&mut r[3..4])).unwrap();

            let dot: f64 = xs.iter().zip(&ys).map(|(a, b)| a * b).sum();
            let nrm: f64 = xs.iter().map(|a| a * a).sum::<f64>().sqrt();
            let asum: f64 = xs.iter().map(|a| a.abs()).sum();
            let tol = 1e-13 * n as f64;
            assert!((r[0] - dot).abs() <= tol, "dot n={n}: {} vs {dot}", r[0]);
            assert!((r[1] - nrm).abs() <= tol * nrm.max(1.0), "nrm2 n={n}");
            assert!((r[2] - asum).abs() <= tol * asum.max(1.0), "asum n={n}");
            let d32: f64 = x32
                .iter()
                .zip(&y32)
                .map(|(a, b)| *a as f64 * *b as f64)
                .sum();
            assert!(
                (r32[0] as f64 - d32).abs() <= 1e-6 * d32.abs().max(1.0),
                "f32 dot n={n}"
            );
            let first_max = xs.iter().enumerate().fold((0, -1.0), |(bi, bv), (i, v)| {
                if v.abs() > bv {
                    (i, v.abs())
                } else {
                    (bi, bv)
                }
            });
            assert_eq!(idx[0] as usize, first_max.0 + 1, "iamax n={n}");
            let first_min = x32
                .iter()
                .enumerate()
                .fold((0, f32::INFINITY), |(bi, bv), (i, v)| {
                    if v.abs() < bv {
                        (i, v.abs())
                    } else {
                        (bi, bv)
                    }
                });
            assert_eq!(idx[1] as usize, first_min.0 + 1, "iamin n={n}");
            let m = n / 2;
            let strided: f64 = (0..m).map(|i| xs[2 * i] * ys[2 * (m - 1 - i)]).sum();
            assert!((r[3] - strided).abs() <= tol, "strided dot n={n}");

            let mut bits: Vec<u64> = r.iter().map(|v| v.to_bits()).collect();
            bits.extend(r32.iter().map(|v| v.to_bits() as u64));
            bits.extend(idx.iter().map(|&v| v as u64));
            seen.push(bits);
        }
        assert!(
            seen.windows(2).all(|w| w[0] == w[1]),
            "n={n}: results differ between thread settings: {seen:?}"
        );
    }
}

/// F10 on the host: gemv N and T (with increments), one and many row pieces, the same bits
/// on any threads, and within rounding of an f64 loop.
#[test]
fn f10_gemv_same_bits_on_any_threads() {
    let dev = Device::host();
    for &(m, n) in &[(7usize, 5usize), (513, 300), (2000, 1500)] {
        let lda = m + 3;
        let a = data(3, lda * n);
        let da = dev.upload(&a).unwrap();
        for op in [Op::N, Op::T] {
            let (lx, ly) = if op == Op::N { (n, m) } else { (m, n) };
            let x = data(4, 2 * lx);
            let y0 = data(5, ly);
            let dx = dev.upload(&x).unwrap();
            let mut outs = Vec::new();
            for mut h in handles(&dev) {
                let mut dy = dev.upload(&y0).unwrap();
                let _ = blas2::gemv(
                    &mut h,
                    op,
                    m,
                    n,
                    Coef::Host(1.5),
                    &da,
                    lda,
                    &dx,
                    2,
                    Coef::Host(-0.5),
                    &mut dy,
                    1,
                )
                .unwrap();
                outs.push(dy.to_vec().unwrap());
            }
            for (i, yi) in outs[0].iter().enumerate() {
                let s: f64 = (0..lx)
                    .map(|j| {
                        let aij = if op == Op::N {
                            a[i + j * lda]
                        } else {
                            a[j + i * lda]
                        };
                        aij * x[2 * j]
                    })
                    .sum();
                let want = 1.5 * s - 0.5 * y0[i];
                assert!(
                    (yi - want).abs() <= 1e-12 * lx as f64,
                    "gemv {op:?} {m}x{n} row {i}"
                );
            }
            let bits: Vec<Vec<u64>> = outs
                .iter()
                .map(|v| v.iter().map(|x| x.to_bits()).collect())
                .collect();
            assert!(
                bits.windows(2).all(|w| w[0] == w[1]),
                "gemv {op:?} {m}x{n}: differs between thread settings"
            );
        }
    }
}

/// Level 3 through faer: the result with one thread and with several agree within rounding
/// (faer's parallel product may sum in another order, so this one is not bit for bit).
#[test]
fn f10_gemm_one_thread_and_several_agree() {
    let dev = Device::host();
    let n = 300;
    let a = dev.upload(&data(6, n * n)).unwrap();
    let b = dev.upload(&data(7, n * n)).unwrap();
    let mut outs = Vec::new();
    for mut h in handles(&dev) {
        let mut c = dev.upload(&vec![0.0f64; n * n]).unwrap();
        let _ = blas3::gemm(
            &mut h,
            Op::N,
            Op::T,
            n,
            n,
            n,
            Coef::Host(1.0),
            &a,
            n,
            &b,
            n,
            Coef::Host(0.0),
            &mut c,
            n,
        )
        .unwrap();
        outs.push(c.to_vec().unwrap());
    }
    for o in &outs[1..] {
        for (p, q) in outs[0].iter().zip(o) {
            assert!((p - q).abs() <= 1e-12 * (n as f64), "{p} vs {q}");
        }
    }
    let h = {
        let mut h = Handle::new(&dev).unwrap();
        h.set_host_threads(1).unwrap();
        h
    };
    assert_eq!(h.host_threads(), 1);
}
