//! Level 2 through C: the band and packed products and solves, and the rank updates (the
//! routines issue 30 added), with the helpers of `capi.rs`.

use gpublas_capi::*;
use rand::Rng;

use super::{last, rand_vec, rng, C, POISON};

/// dgbmv (m != n, kl != ku, transposed), dsbmv, dspmv, dtbsv and dtpsv through C: band and
/// packed storage with NaN wherever nothing may be read.
pub(crate) fn f10_band_packed_products_and_solves(dev: &str) {
    let c = C::on(dev);
    let mut r = rng(5);
    // dgbmv: A is 37 x 29 with kl = 2, ku = 4, lda = 9 (two rows of padding, NaN).
    let (m, n, kl, ku, lda) = (37usize, 29usize, 2usize, 4usize, 9usize);
    let mut a = vec![f64::NAN; lda * n];
    let mut dense = vec![0.0; m * n];
    for j in 0..n {
        for i in j.saturating_sub(ku)..(j + kl + 1).min(m) {
            let v = r.gen_range(-1.0..1.0);
            a[ku + i - j + j * lda] = v;
            dense[i + j * m] = v;
        }
    }
    let x = rand_vec(&mut r, m);
    let y = vec![f64::NAN; n]; // beta = 0: not read
    let (alpha, beta) = (1.5f64, 0.0f64);
    let (da, dx, dy) = (c.up(&a), c.up(&x), c.up(&y));
    // SAFETY: band storage of lda * n, x of m, y of n.
    let s = unsafe {
        gpublas_dgbmv(
            c.h,
            GPUBLAS_OPERATION_TRANSPOSE,
            m as i64,
            n as i64,
            kl as i64,
            ku as i64,
            &alpha,
            da,
            lda as i64,
            dx,
            1,
            &beta,
            dy,
            1,
        )
    };
    assert_eq!(s, 0, "{}", last());
    let got = c.down(dy, n);
    for j in 0..n {
        let w: f64 = (0..m).map(|i| dense[i + j * m] * x[i]).sum::<f64>() * alpha;
        assert!(
            (got[j] - w).abs() < 1e-12,
            "gbmv entry {j}: {} vs {w}",
            got[j]
        );
    }

    // dsbmv lower (k = 3, lda = 6) and dspmv upper on the same symmetric matrix.
    let (n, k, lda) = (41usize, 3usize, 6usize);
    let mut band = vec![f64::NAN; lda * n];
    let mut packed = vec![0.0; n * (n + 1) / 2];
    let mut dense = vec![0.0; n * n];
    for j in 0..n {
        for i in j..(j + k + 1).min(n) {
            let v = r.gen_range(-1.0..1.0);
            band[i - j + j * lda] = v;
            // upper packed: (j, i) with j <= i at j + i (i + 1) / 2
            packed[j + i * (i + 1) / 2] = v;
            dense[i + j * n] = v;
            dense[j + i * n] = v;
        }
    }
    let x = rand_vec(&mut r, 2 * n);
    let y0 = rand_vec(&mut r, n);
    let (alpha, beta) = (-0.5f64, 2.0f64);
    let want: Vec<f64> = (0..n)
        .map(|i| alpha * (0..n).map(|j| dense[i + j * n] * x[2 * j]).sum::<f64>() + beta * y0[i])
        .collect();
    let (db, dp, dx) = (c.up(&band), c.up(&packed), c.up(&x));
    let (dy1, dy2) = (c.up(&y0), c.up(&y0));
    // SAFETY: band storage of lda * n, packed of n (n + 1) / 2, x of n at increment 2, y of n.
    let (s1, s2) = unsafe {
        (
            gpublas_dsbmv(
                c.h,
                GPUBLAS_FILL_LOWER,
                n as i64,
                k as i64,
                &alpha,
                db,
                lda as i64,
                dx,
                2,
                &beta,
                dy1,
                1,
            ),
            gpublas_dspmv(
                c.h,
                GPUBLAS_FILL_UPPER,
                n as i64,
                &alpha,
                dp,
                dx,
                2,
                &beta,
                dy2,
                1,
            ),
        )
    };
    assert_eq!((s1, s2), (0, 0), "{}", last());
    for (name, d) in [("sbmv", dy1), ("spmv", dy2)] {
        let got = c.down(d, n);
        for i in 0..n {
            assert!((got[i] - want[i]).abs() < 1e-12, "{name} row {i}");
        }
    }

    // dtbsv upper (k = 2, lda = 4) and dtpsv lower: solve, then check the residual.
    let (n, k, lda) = (70usize, 2usize, 4usize);
    let mut band = vec![f64::NAN; lda * n];
    let mut dense = vec![0.0; n * n];
    for j in 0..n {
        for i in j.saturating_sub(k)..=j {
            let v = if i == j {
                3.0 + r.gen_range(0.0..1.0)
            } else {
                r.gen_range(-1.0..1.0)
            };
            band[k + i - j + j * lda] = v;
            dense[i + j * n] = v;
        }
    }
    let b = rand_vec(&mut r, n);
    let (dab, dxb) = (c.up(&band), c.up(&b));
    // SAFETY: band storage of lda * n and x of n.
    let s = unsafe {
        gpublas_dtbsv(
            c.h,
            GPUBLAS_FILL_UPPER,
            GPUBLAS_OPERATION_NONE,
            GPUBLAS_DIAGONAL_NON_UNIT,
            n as i64,
            k as i64,
            dab,
            lda as i64,
            dxb,
            1,
        )
    };
    assert_eq!(s, 0, "{}", last());
    let sol = c.down(dxb, n);
    for i in 0..n {
        let ax: f64 = (0..n).map(|j| dense[i + j * n] * sol[j]).sum();
        assert!((ax - b[i]).abs() < 1e-12, "tbsv residual row {i}");
    }
    let mut packed = vec![0.0; n * (n + 1) / 2];
    let mut dense = vec![0.0; n * n];
    for j in 0..n {
        for i in j..n {
            let v = if i == j {
                3.0
            } else {
                r.gen_range(-1.0..1.0) / n as f64
            };
            packed[i + j * (2 * n - j - 1) / 2] = v;
            dense[i + j * n] = v;
        }
    }
    let (dap, dxp) = (c.up(&packed), c.up(&b));
    // SAFETY: a packed triangle of order n and x of n.
    let s = unsafe {
        gpublas_dtpsv(
            c.h,
            GPUBLAS_FILL_LOWER,
            GPUBLAS_OPERATION_TRANSPOSE,
            GPUBLAS_DIAGONAL_NON_UNIT,
            n as i64,
            dap,
            dxp,
            1,
        )
    };
    assert_eq!(s, 0, "{}", last());
    let sol = c.down(dxp, n);
    for i in 0..n {
        // op(A) = Aᵀ: row i of Aᵀ is column i of A.
        let ax: f64 = (0..n).map(|j| dense[j + i * n] * sol[j]).sum();
        assert!((ax - b[i]).abs() < 1e-12, "tpsv residual row {i}");
    }
}

/// Level-2 rank updates through C: dger (lda padding and a negative increment), zher_batched
/// (lists; the diagonal turns real, the other triangle untouched), dspr2_strided_batched
/// (packed), and a zero increment named in the message.
#[allow(clippy::needless_range_loop)]
pub(crate) fn f1_rank_updates_through_c(dev: &str) {
    let c = C::on(dev);
    let mut r = rng(9);
    // dger: 37 × 20, lda 40, incx -2.
    let (m, n, lda) = (37usize, 20usize, 40usize);
    let mut a = vec![POISON; lda * n];
    for j in 0..n {
        for i in 0..m {
            a[i + j * lda] = r.gen_range(-1.0..1.0);
        }
    }
    let x = rand_vec(&mut r, 2 * (m - 1) + 1);
    let y = rand_vec(&mut r, n);
    let alpha = 0.75f64;
    let (da, dx, dy) = (c.up(&a), c.up(&x), c.up(&y));
    // SAFETY: A spans lda * n, x 2 (m - 1) + 1, y n elements.
    let s = unsafe {
        gpublas_dger(
            c.h, m as i64, n as i64, &alpha, dx, -2, dy, 1, da, lda as i64,
        )
    };
    assert_eq!(s, 0, "{}", last());
    let got = c.down(da, lda * n);
    for j in 0..n {
        for i in 0..lda {
            let k = i + j * lda;
            if i < m {
                // x walks backwards: logical x_i is at 2 (m - 1 - i).
                let w = a[k] + x[2 * (m - 1 - i)] * (alpha * y[j]);
                assert!((got[k] - w).abs() < 1e-14, "dger ({i}, {j})");
            } else {
                assert_eq!(got[k].to_bits(), a[k].to_bits(), "dger padding ({i}, {j})");
            }
        }
    }

    // zher_batched, lower, n = 33: two entries through host arrays of device pointers.
    type Z = gpublas_double_complex;
    let z = |r: &mut rand::rngs::StdRng| Z {
        x: r.gen_range(-1.0..1.0),
        y: r.gen_range(-1.0..1.0),
    };
    let nh = 33usize;
    let mut pa = Vec::new();
    let mut px = Vec::new();
    let mut host = Vec::new();
    for _ in 0..2 {
        let a: Vec<Z> = (0..nh * nh).map(|_| z(&mut r)).collect();
        let x: Vec<Z> = (0..nh).map(|_| z(&mut r)).collect();
        pa.push(c.up(&a));
        px.push(c.up(&x) as *const Z);
        host.push((a, x));
    }
    let ralpha = -0.5f64;
    // SAFETY: host arrays of 2 device pointers, each spanning its operand.
    let s = unsafe {
        gpublas_zher_batched(
            c.h,
            GPUBLAS_FILL_LOWER,
            nh as i64,
            &ralpha,
            px.as_ptr(),
            1,
            pa.as_ptr(),
            nh as i64,
            2,
        )
    };
    assert_eq!(s, 0, "{}", last());
    for (e, (a, x)) in host.iter().enumerate() {
        let got = c.down(pa[e], nh * nh);
        for j in 0..nh {
            for i in 0..nh {
                let k = i + j * nh;
                let g = got[k];
                if i < j {
                    assert_eq!(
                        (g.x.to_bits(), g.y.to_bits()),
                        (a[k].x.to_bits(), a[k].y.to_bits())
                    );
                    continue;
                }
                // A += alpha x xᴴ: x_i conj(x_j).
                let pr = x[i].x * x[j].x + x[i].y * x[j].y;
                let pi = x[i].y * x[j].x - x[i].x * x[j].y;
                let (wr, wi) = if i == j {
                    (a[k].x + ralpha * pr, 0.0)
                } else {
                    (a[k].x + ralpha * pr, a[k].y + ralpha * pi)
                };
                assert!(
                    (g.x - wr).abs() < 1e-14 && (g.y - wi).abs() < 1e-14,
                    "zher {e} ({i}, {j})"
                );
                if i == j {
                    assert_eq!(g.y, 0.0, "zher diagonal {e} {j}");
                }
            }
        }
    }

    // dspr2_strided_batched, upper, n = 9, 3 entries at stride 50.
    let (np, batch, sap, sv) = (9usize, 3usize, 50usize, 10usize);
    let len = np * (np + 1) / 2;
    let ap = rand_vec(&mut r, sap * batch);
    let xv = rand_vec(&mut r, sv * batch);
    let yv = rand_vec(&mut r, sv * batch);
    let (dap, dxv, dyv) = (c.up(&ap), c.up(&xv), c.up(&yv));
    let alpha = 1.5f64;
    // SAFETY: strided operands within their buffers.
    let s = unsafe {
        gpublas_dspr2_strided_batched(
            c.h,
            GPUBLAS_FILL_UPPER,
            np as i64,
            &alpha,
            dxv,
            1,
            sv as i64,
            dyv,
            1,
            sv as i64,
            dap,
            sap as i64,
            batch as i64,
        )
    };
    assert_eq!(s, 0, "{}", last());
    let got = c.down(dap, sap * batch);
    for e in 0..batch {
        let (x, y) = (&xv[e * sv..], &yv[e * sv..]);
        for j in 0..np {
            for i in 0..=j {
                let k = e * sap + i + j * (j + 1) / 2;
                let w = ap[k] + x[i] * (alpha * y[j]) + y[i] * (alpha * x[j]);
                assert!((got[k] - w).abs() < 1e-14, "dspr2 {e} ({i}, {j})");
            }
        }
        for k in e * sap + len..(e + 1) * sap {
            assert_eq!(got[k].to_bits(), ap[k].to_bits(), "dspr2 gap {k}");
        }
    }

    // A zero increment: INVALID_VALUE naming it, the output untouched.
    let xf = [1.0f32; 4];
    let (dxf, dapf) = (c.up(&xf), c.up(&[2.0f32; 10]));
    // SAFETY: valid pointers; the increment is the bad argument.
    let s = unsafe { gpublas_sspr(c.h, GPUBLAS_FILL_LOWER, 4, &1.0f32, dxf, 0, dapf) };
    assert_eq!(s, GPUBLAS_STATUS_INVALID_VALUE, "{}", last());
    assert!(last().contains("incx = 0"), "{}", last());
    assert_eq!(c.down(dapf, 10), vec![2.0f32; 10]);
}
