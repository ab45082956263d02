//! The host backend with threading on and off (`Handle::set_host_threads`): the same calls on
//! one thread, on rayon's global pool and on a handle's own pool of three threads give the
//! same bits (the work splits into pieces fixed by the shape, each summed in a fixed order),
//! and match plain f64 loops. Sizes straddle the splits: one block and many blocks per
//! vector (8192 elements per block), one and many row pieces of gemv (512 rows).

use gpublas::{blas1, blas2, blas3, solver, Coef, Device, Handle, Op, Results, Uplo};
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
/// on any threads, and within rounding of an f64 loop. The narrow shapes take the other splits:
/// a tall, narrow op T splits its rows into blocks (70000 rows: two), a short, wide op N
/// takes more column blocks (one row piece: up to 256).
#[test]
fn f10_gemv_same_bits_on_any_threads() {
    let dev = Device::host();
    for &(m, n) in &[
        (7usize, 5usize),
        (513, 300),
        (2000, 1500),
        (70_000, 20),
        (30, 40_000),
    ] {
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

/// F10 on the host: batches of small factorizations spread their matrices over the threads;
/// every matrix of a strided getrf/potrf batch (37 × 37 with a zero column in one matrix, and
/// 33 × 33 positive definite with one indefinite) gives the bits, pivots and info of the same
/// matrix factored alone, on 1 thread, the global pool and 3 threads.
#[test]
fn f10_batched_factorizations_same_bits_on_any_threads() {
    let dev = Device::host();
    let (n, lda, batch) = (37usize, 40usize, 24usize);
    let stride = lda * n + 3;
    let mut a0 = data(8, stride * batch);
    // Matrix 5 has a zero column 9: info 10 there, the factorization completes.
    for r in 0..n {
        a0[5 * stride + r + 9 * lda] = 0.0;
    }
    let (pn, pld) = (33usize, 33usize);
    let pstride = pn * pld;
    let mut p0 = vec![0.0f64; pstride * batch];
    for e in 0..batch {
        let b = data(100 + e as u64, pn * pn);
        for i in 0..pn {
            for k in 0..pn {
                let s: f64 = (0..pn).map(|t| b[i + t * pn] * b[k + t * pn]).sum();
                p0[e * pstride + i + k * pld] = s + if i == k { pn as f64 } else { 0.0 };
            }
        }
    }
    // Matrix 3 is indefinite at order 20.
    p0[3 * pstride + 19 + 19 * pld] = -1e3;
    let mut seen = Vec::new();
    for mut h in handles(&dev) {
        let mut a = dev.upload(&a0).unwrap();
        let (mut piv, mut info) = (vec![0i32; n * batch], vec![-1i32; batch]);
        let _ = solver::getrf_strided_batched(
            &mut h,
            n,
            n,
            &mut a,
            lda,
            stride,
            Results::Host(&mut piv),
            n,
            Results::Host(&mut info),
            batch,
        )
        .unwrap();
        let mut p = dev.upload(&p0).unwrap();
        let mut pinfo = vec![-1i32; batch];
        let _ = solver::potrf_strided_batched(
            &mut h,
            Uplo::Lower,
            pn,
            &mut p,
            pld,
            pstride,
            Results::Host(&mut pinfo),
            batch,
        )
        .unwrap();
        let (a, p) = (a.to_vec().unwrap(), p.to_vec().unwrap());
        // Each matrix alone (one entry: not spread).
        for e in 0..batch {
            let mut one = dev.upload(&a0[e * stride..e * stride + lda * n]).unwrap();
            let (mut piv1, mut info1) = (vec![0i32; n], [-1i32]);
            let _ = solver::getrf(
                &mut h,
                n,
                n,
                &mut one,
                lda,
                Results::Host(&mut piv1),
                Results::Host(&mut info1),
            )
            .unwrap();
            let one = one.to_vec().unwrap();
            assert_eq!(info[e], info1[0], "getrf info of matrix {e}");
            assert_eq!(&piv[e * n..(e + 1) * n], &piv1[..], "pivots of matrix {e}");
            for k in 0..lda * n {
                assert_eq!(
                    a[e * stride + k].to_bits(),
                    one[k].to_bits(),
                    "getrf {e} at {k}"
                );
            }
            let mut onep = dev.upload(&p0[e * pstride..(e + 1) * pstride]).unwrap();
            let mut pinfo1 = [-1i32];
            let _ = solver::potrf(
                &mut h,
                Uplo::Lower,
                pn,
                &mut onep,
                pld,
                Results::Host(&mut pinfo1),
            )
            .unwrap();
            let onep = onep.to_vec().unwrap();
            assert_eq!(pinfo[e], pinfo1[0], "potrf info of matrix {e}");
            for k in 0..pstride {
                assert_eq!(
                    p[e * pstride + k].to_bits(),
                    onep[k].to_bits(),
                    "potrf {e} at {k}"
                );
            }
        }
        assert_eq!(info[5], 10, "the zero column");
        assert_eq!(pinfo[3], 20, "the indefinite minor");
        assert!(info.iter().enumerate().all(|(e, &v)| e == 5 || v == 0));
        // Padding between the strided matrices is untouched.
        for e in 0..batch - 1 {
            for k in lda * n..stride {
                assert_eq!(a[e * stride + k].to_bits(), a0[e * stride + k].to_bits());
            }
        }
        seen.push((a, p, piv, info, pinfo));
    }
    for s in &seen[1..] {
        assert!(s
            .0
            .iter()
            .zip(&seen[0].0)
            .all(|(x, y)| x.to_bits() == y.to_bits()));
        assert!(s
            .1
            .iter()
            .zip(&seen[0].1)
            .all(|(x, y)| x.to_bits() == y.to_bits()));
        assert_eq!((&s.2, &s.3, &s.4), (&seen[0].2, &seen[0].3, &seen[0].4));
    }
}

/// F10 on the host: a strided gemv batch of small matrices spreads its entries over the
/// threads; each entry equals the same gemv alone (bits), on every thread setting, and the
/// elements between strided outputs (increment -2, padding) are untouched.
#[test]
fn f10_batched_gemv_same_bits_as_alone_on_any_threads() {
    let dev = Device::host();
    let (m, n, lda, batch) = (40usize, 33usize, 41usize, 30usize);
    let (sa, sx, sy) = (lda * n + 5, m + 3, 2 * n + 7);
    let a0 = data(20, sa * batch);
    let x0 = data(21, sx * batch);
    let y0 = data(22, sy * batch);
    let (alpha, beta) = (0.75, -1.25);
    let mut seen = Vec::new();
    for mut h in handles(&dev) {
        let (a, x) = (dev.upload(&a0).unwrap(), dev.upload(&x0).unwrap());
        let mut y = dev.upload(&y0).unwrap();
        let _ = blas2::gemv_strided_batched(
            &mut h,
            Op::T,
            m,
            n,
            Coef::Host(alpha),
            &a,
            lda,
            sa,
            &x,
            1,
            sx,
            Coef::Host(beta),
            &mut y,
            -2,
            sy,
            batch,
        )
        .unwrap();
        let y = y.to_vec().unwrap();
        for e in 0..batch {
            let a1 = dev.upload(&a0[e * sa..e * sa + lda * n]).unwrap();
            let x1 = dev.upload(&x0[e * sx..e * sx + m]).unwrap();
            let mut y1 = dev.upload(&y0[e * sy..(e + 1) * sy]).unwrap();
            let _ = blas2::gemv(
                &mut h,
                Op::T,
                m,
                n,
                Coef::Host(alpha),
                &a1,
                lda,
                &x1,
                1,
                Coef::Host(beta),
                &mut y1,
                -2,
            )
            .unwrap();
            let y1 = y1.to_vec().unwrap();
            for k in 0..sy {
                assert_eq!(y[e * sy + k].to_bits(), y1[k].to_bits(), "entry {e} at {k}");
            }
            // The output's own elements changed; the ones between and after did not.
            for k in 0..sy {
                let inside = k < 2 * (n - 1) + 1 && k % 2 == 0;
                if !inside {
                    assert_eq!(y[e * sy + k].to_bits(), y0[e * sy + k].to_bits());
                }
            }
            let x = &x0[e * sx..e * sx + m];
            let a = &a0[e * sa..];
            for i in 0..n {
                let s: f64 = (0..m).map(|r| a[r + i * lda] * x[r]).sum();
                let yi = y0[e * sy + 2 * (n - 1 - i)];
                let want = alpha * s + beta * yi;
                let got = y[e * sy + 2 * (n - 1 - i)];
                assert!((got - want).abs() <= 1e-13 * (m as f64), "{got} vs {want}");
            }
        }
        seen.push(y);
    }
    for s in &seen[1..] {
        assert!(s
            .iter()
            .zip(&seen[0])
            .all(|(p, q)| p.to_bits() == q.to_bits()));
    }
}

/// F1/F10 on the host: the vector updates at unit stride run in pieces of 2^14 elements over
/// the threads (the pieces of every entry of a batch together). Each element is computed
/// alone, so every thread setting gives the same bits; the results match an f64 loop of the
/// reference formulas exactly, the strided batch's padding between entries is untouched, and a
/// rotm entry with flag -2 leaves its vectors alone.
#[test]
fn f1_f10_updates_same_bits_on_any_threads() {
    let dev = Device::host();
    for &n in &[1usize, 1000, (1 << 14) * 3 + 5] {
        let xs = data(30, n);
        let ys = data(31, n);
        let (alpha, c, s) = (0.75f64, 0.6f64, -0.8f64);
        let mut seen: Vec<Vec<Vec<u64>>> = Vec::new();
        for mut h in handles(&dev) {
            let x = dev.upload(&xs).unwrap();
            let mut outs = Vec::new();
            let mut y = dev.upload(&ys).unwrap();
            let _ = blas1::axpy(&mut h, n, Coef::Host(alpha), &x, 1, &mut y, 1).unwrap();
            outs.push(y.to_vec().unwrap());
            let mut y = dev.upload(&ys).unwrap();
            let _ = blas1::copy(&mut h, n, &x, 1, &mut y, 1).unwrap();
            outs.push(y.to_vec().unwrap());
            let mut xm = dev.upload(&xs).unwrap();
            let _ = blas1::scal(&mut h, n, Coef::Host(alpha), &mut xm, 1).unwrap();
            outs.push(xm.to_vec().unwrap());
            let (mut xm, mut y) = (dev.upload(&xs).unwrap(), dev.upload(&ys).unwrap());
            let _ = blas1::swap(&mut h, n, &mut xm, 1, &mut y, 1).unwrap();
            outs.push(xm.to_vec().unwrap());
            outs.push(y.to_vec().unwrap());
            let (mut xm, mut y) = (dev.upload(&xs).unwrap(), dev.upload(&ys).unwrap());
            let _ = blas1::rot(
                &mut h,
                n,
                &mut xm,
                1,
                &mut y,
                1,
                Coef::Host(c),
                Coef::Host(s),
            )
            .unwrap();
            outs.push(xm.to_vec().unwrap());
            outs.push(y.to_vec().unwrap());
            let p = dev.upload(&[-1.0f64, 0.5, -0.25, 2.0, 1.5]).unwrap();
            let (mut xm, mut y) = (dev.upload(&xs).unwrap(), dev.upload(&ys).unwrap());
            let _ = blas1::rotm(&mut h, n, &mut xm, 1, &mut y, 1, &p).unwrap();
            outs.push(xm.to_vec().unwrap());
            outs.push(y.to_vec().unwrap());

            let want: [Vec<f64>; 9] = [
                xs.iter().zip(&ys).map(|(x, y)| alpha * x + y).collect(),
                xs.clone(),
                xs.iter().map(|x| alpha * x).collect(),
                ys.clone(),
                xs.clone(),
                xs.iter().zip(&ys).map(|(x, y)| c * x + s * y).collect(),
                xs.iter().zip(&ys).map(|(x, y)| c * y - s * x).collect(),
                xs.iter().zip(&ys).map(|(x, y)| 0.5 * x + 2.0 * y).collect(),
                xs.iter()
                    .zip(&ys)
                    .map(|(x, y)| -0.25 * x + 1.5 * y)
                    .collect(),
            ];
            for (k, (got, want)) in outs.iter().zip(&want).enumerate() {
                for i in 0..n {
                    assert_eq!(
                        got[i].to_bits(),
                        want[i].to_bits(),
                        "output {k} n={n} i={i}"
                    );
                }
            }
            seen.push(
                outs.iter()
                    .map(|v| v.iter().map(|e| e.to_bits()).collect())
                    .collect(),
            );
        }
        assert!(
            seen.iter().all(|s| *s == seen[0]),
            "n={n}: thread settings differ"
        );
    }

    // A strided batch of short vectors (many entries, each one piece) and one of long vectors
    // (each several pieces), f32: padding untouched, rotm's flag -2 entry untouched.
    for &(n, batch) in &[(100usize, 300usize), ((1 << 14) + 7, 5)] {
        let stride = n + 3;
        let xs: Vec<f32> = data(32, stride * batch).iter().map(|&v| v as f32).collect();
        let ys: Vec<f32> = data(33, stride * batch).iter().map(|&v| v as f32).collect();
        let mut params = Vec::new();
        for e in 0..batch {
            let flag = if e == 1 { -2.0f32 } else { -1.0 };
            params.extend_from_slice(&[flag, 0.5, -0.25, 2.0, 1.5]);
        }
        let mut seen = Vec::new();
        for mut h in handles(&dev) {
            let x = dev.upload(&xs).unwrap();
            let mut y = dev.upload(&ys).unwrap();
            let _ = blas1::axpy_strided_batched(
                &mut h,
                n,
                Coef::Host(-1.5f32),
                &x,
                1,
                stride,
                &mut y,
                1,
                stride,
                batch,
            )
            .unwrap();
            let ya = y.to_vec().unwrap();
            let p = dev.upload(&params).unwrap();
            let (mut xm, mut y) = (dev.upload(&xs).unwrap(), dev.upload(&ys).unwrap());
            let _ = blas1::rotm_strided_batched(
                &mut h, n, &mut xm, 1, stride, &mut y, 1, stride, &p, 5, batch,
            )
            .unwrap();
            let (xr, yr) = (xm.to_vec().unwrap(), y.to_vec().unwrap());
            for e in 0..batch {
                for k in 0..stride {
                    let i = e * stride + k;
                    let (x0, y0) = (xs[i], ys[i]);
                    if k >= n {
                        assert_eq!(ya[i].to_bits(), y0.to_bits(), "axpy padding {e} {k}");
                        assert_eq!(xr[i].to_bits(), x0.to_bits(), "rotm padding {e} {k}");
                        assert_eq!(yr[i].to_bits(), y0.to_bits(), "rotm padding {e} {k}");
                        continue;
                    }
                    // f32 products and sums of the reference formulas, rounded as f32.
                    assert_eq!(ya[i], -1.5f32 * x0 + y0, "axpy {e} {k}");
                    let (wx, wy) = if e == 1 {
                        (x0, y0)
                    } else {
                        (0.5f32 * x0 + 2.0 * y0, -0.25f32 * x0 + 1.5 * y0)
                    };
                    assert_eq!(xr[i].to_bits(), wx.to_bits(), "rotm x {e} {k}");
                    assert_eq!(yr[i].to_bits(), wy.to_bits(), "rotm y {e} {k}");
                }
            }
            seen.push((ya, xr, yr));
        }
        assert!(
            seen.iter().all(|s| *s == seen[0]),
            "n={n}: thread settings differ"
        );
    }
}

/// F10 on the host: full-storage symv, trmv and trsv run in column blocks of 256 fixed by the
/// shape (1000: four blocks, the last short), over the threads: every uplo and op gives the
/// same bits on 1 thread, the global pool and 3 threads, and matches an f64 loop (trsv: the
/// residual of the solve, on a well-conditioned triangle; op N also the bits of the sequential
/// column solve).
#[test]
#[allow(clippy::needless_range_loop)]
fn f10_symv_trmv_trsv_same_bits_on_any_threads() {
    use gpublas::Diag;
    let dev = Device::host();
    let n = 1000usize;
    let lda = n + 3;
    let mut a0 = data(40, lda * n);
    for j in 0..n {
        a0[j + j * lda] += 4.0; // a diagonal far from zero for trsv
        for i in 0..n {
            a0[i + j * lda] *= if i == j { 1.0 } else { 2.0 / n as f64 };
        }
    }
    let x0 = data(41, n);
    let y0 = data(42, n);
    let el = |i: usize, j: usize| a0[i + j * lda];
    for uplo in [Uplo::Lower, Uplo::Upper] {
        let inside = |i: usize, j: usize| match uplo {
            Uplo::Lower => i >= j,
            Uplo::Upper => i <= j,
        };
        let mut seen: Vec<Vec<u64>> = Vec::new();
        for mut h in handles(&dev) {
            let a = dev.upload(&a0).unwrap();
            let x = dev.upload(&x0).unwrap();
            let mut outs: Vec<f64> = Vec::new();
            let mut y = dev.upload(&y0).unwrap();
            let _ = blas2::symv(
                &mut h,
                uplo,
                n,
                Coef::Host(1.0),
                &a,
                lda,
                &x,
                1,
                Coef::Host(0.0),
                &mut y,
                1,
            )
            .unwrap();
            let ys = y.to_vec().unwrap();
            for i in 0..n {
                let w: f64 = (0..n)
                    .map(|j| if inside(i, j) { el(i, j) } else { el(j, i) } * x0[j])
                    .sum();
                assert!((ys[i] - w).abs() <= 1e-13 * n as f64, "symv {uplo:?} {i}");
            }
            outs.extend(&ys);
            for op in [Op::N, Op::T] {
                let opel = |i: usize, j: usize| if op == Op::N { el(i, j) } else { el(j, i) };
                let opin = |i: usize, j: usize| {
                    if op == Op::N {
                        inside(i, j)
                    } else {
                        inside(j, i)
                    }
                };
                let mut v = dev.upload(&x0).unwrap();
                let _ =
                    blas2::trmv(&mut h, uplo, op, Diag::NonUnit, n, &a, lda, &mut v, 1).unwrap();
                let vs = v.to_vec().unwrap();
                for i in 0..n {
                    let w: f64 = (0..n)
                        .filter(|&j| opin(i, j))
                        .map(|j| opel(i, j) * x0[j])
                        .sum();
                    assert!(
                        (vs[i] - w).abs() <= 1e-13 * n as f64,
                        "trmv {uplo:?} {op:?}"
                    );
                }
                outs.extend(&vs);
                let mut v = dev.upload(&x0).unwrap();
                let _ =
                    blas2::trsv(&mut h, uplo, op, Diag::NonUnit, n, &a, lda, &mut v, 1).unwrap();
                let vs = v.to_vec().unwrap();
                for i in 0..n {
                    let r: f64 = (0..n)
                        .filter(|&j| opin(i, j))
                        .map(|j| opel(i, j) * vs[j])
                        .sum();
                    assert!(
                        (r - x0[i]).abs() <= 1e-13 * n as f64,
                        "trsv {uplo:?} {op:?}"
                    );
                }
                if op == Op::N {
                    // The blocks repeat the sequential column solve's operations exactly: the
                    // same bits as that loop (each entry divided, then its column subtracted
                    // from the unsolved rows, in the triangle's order).
                    let mut s = x0.clone();
                    let order: Vec<usize> = match uplo {
                        Uplo::Lower => (0..n).collect(),
                        Uplo::Upper => (0..n).rev().collect(),
                    };
                    for j in order {
                        s[j] /= el(j, j);
                        let m = 0.0 - s[j];
                        for i in (0..n).filter(|&i| i != j && inside(i, j)) {
                            s[i] += el(i, j) * m;
                        }
                    }
                    let same = s.iter().zip(&vs).all(|(p, q)| p.to_bits() == q.to_bits());
                    assert!(same, "trsv {uplo:?} N: not the sequential solve's bits");
                }
                outs.extend(&vs);
            }
            seen.push(outs.iter().map(|v| v.to_bits()).collect());
        }
        assert!(
            seen.iter().all(|s| *s == seen[0]),
            "{uplo:?}: thread settings differ"
        );
    }
}
