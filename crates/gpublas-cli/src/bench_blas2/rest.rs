//! `gpublas bench blas2`, the rest of Level 2: band and packed products (gbmv, sbmv, hbmv,
//! spmv, hpmv), band and packed solves (tbsv, tpsv) and the rank updates (ger, syr, syr2, spr,
//! spr2, her, her2, hpr), each against cuBLAS on the same data.
//!
//! Bytes counted: what the call must move at least: the stored band (`(kl + ku + 1) n` or
//! `(k + 1) n` elements, padding corners included, as both libraries read them by column),
//! the packed triangle, the vectors read and written; for the rank updates the matrix (or its
//! stored triangle) read and written. The updated matrix is the compared output of a rank
//! update (it lives in `Vecs::y`); repeated timed calls keep adding to it, which stays finite.

use super::{
    elems, fits, host_random, letter, random, scalar, tri_letter, Bench, Elem, Out, Rng, Vecs,
};
use crate::bench::Cublas;
use gpublas::{blas2, Coef, Complex64, Device, DeviceBuffer, Diag, Error, Op, Uplo};

/// A triangular band of `k + 1` rows in BLAS band storage (`uplo`'s layout): ones on the
/// diagonal, off-diagonal entries below `1 / (k + 1)` in magnitude, so solves stay near `x`.
fn unit_band<T: Elem>(
    dev: &Device,
    n: usize,
    k: usize,
    uplo: Uplo,
    seed: u64,
) -> Result<DeviceBuffer<T>, Error> {
    let mut r = Rng(seed);
    let s = 1.0 / (k + 1) as f64;
    let rows = k + 1;
    // Row of the diagonal inside a column of band storage.
    let diag = if uplo == Uplo::Upper { k } else { 0 };
    let mut v = Vec::with_capacity(elems(rows, n)?);
    for _ in 0..n {
        for i in 0..rows {
            v.push(if i == diag {
                T::make(1.0, 0.0)
            } else {
                T::make(r.val() * s, r.val() * s)
            });
        }
    }
    dev.upload(&v)
}

/// A packed triangle (`uplo`) with ones on the diagonal and off-diagonal entries below `1 / n`.
fn unit_packed<T: Elem>(
    dev: &Device,
    n: usize,
    uplo: Uplo,
    seed: u64,
) -> Result<DeviceBuffer<T>, Error> {
    let mut r = Rng(seed);
    let s = 1.0 / n as f64;
    let mut v = Vec::with_capacity(n * (n + 1) / 2);
    for j in 0..n {
        let rows = if uplo == Uplo::Upper { 0..j + 1 } else { j..n };
        for i in rows {
            v.push(if i == j {
                T::make(1.0, 0.0)
            } else {
                T::make(r.val() * s, r.val() * s)
            });
        }
    }
    dev.upload(&v)
}

/// gbmv (N, T; kl = ku = `k`), sbmv (L, real types) and spmv (U, L, real types) at order `n`.
pub(super) fn band_products<T: Elem>(b: &mut Bench<'_>, n: usize, k: usize) -> Result<(), Error> {
    let dev = b.dev;
    let es = std::mem::size_of::<T>();
    let packed = n * (n + 1) / 2;
    fits(
        dev,
        &format!("band and packed {} n = {n}", T::NAME),
        elems(packed + (2 * k + 1) * n, es)?,
    )?;
    let (alpha, beta) = (scalar::<T>(dev, 1.5)?, scalar::<T>(dev, 0.5)?);
    let (nf, ef) = (n as f64, es as f64);
    let mut v = Vecs {
        x: random(dev, n, 21)?,
        y: random(dev, n, 22)?,
        x0: None,
    };
    let (kl, ku, lda) = (k, k, 2 * k + 1);
    let band = random::<T>(dev, elems(lda, n)?, 23)?;
    for op in [Op::N, Op::T] {
        b.row(
            &format!("gbmv {}", letter(op)),
            format!("{n} kl=ku={k}"),
            ef * (lda as f64 * nf + 3.0 * nf),
            &mut v,
            Out::Y,
            |h, v| {
                blas2::gbmv(
                    h,
                    op,
                    n,
                    n,
                    kl,
                    ku,
                    Coef::Device(&alpha),
                    &band,
                    lda,
                    &v.x,
                    1,
                    Coef::Device(&beta),
                    &mut v.y,
                    1,
                )
            },
            theirs!(T, |c, v| c.gbmv(
                op, n, n, kl, ku, &alpha, &band, lda, &v.x, 1, &beta, &mut v.y, 1
            )),
        );
    }
    // What this size allows: a copy of the band's bytes (read and written) runs with the same
    // launch and latency costs as the products, which read them once.
    let band_elems = elems(lda, n)?;
    let mut w = Vecs {
        x: random::<T>(dev, band_elems, 25)?,
        y: random::<T>(dev, band_elems, 26)?,
        x0: None,
    };
    b.row(
        "copy",
        format!("band {n}x{lda}"),
        2.0 * ef * band_elems as f64,
        &mut w,
        Out::Y,
        |h, w| gpublas::blas1::copy(h, band_elems, &w.x, 1, &mut w.y, 1),
        theirs!(T, |c, w| c.copy(band_elems, &w.x, 1, &mut w.y, 1)),
    );
    drop(w);
    if T::COMPLEX {
        return Ok(());
    }
    b.row(
        "sbmv L",
        format!("{n} k={k}"),
        ef * ((k + 1) as f64 * nf + 3.0 * nf),
        &mut v,
        Out::Y,
        |h, v| {
            blas2::sbmv(
                h,
                Uplo::Lower,
                n,
                k,
                Coef::Device(&alpha),
                &band,
                k + 1,
                &v.x,
                1,
                Coef::Device(&beta),
                &mut v.y,
                1,
            )
        },
        theirs!(T, |c, v| c.sbmv(
            Uplo::Lower,
            n,
            k,
            &alpha,
            &band,
            k + 1,
            &v.x,
            1,
            &beta,
            &mut v.y,
            1
        )),
    );
    let ap = random::<T>(dev, packed, 24)?;
    for uplo in [Uplo::Upper, Uplo::Lower] {
        b.row(
            &format!("spmv {}", tri_letter(uplo)),
            format!("{n}"),
            ef * (packed as f64 + 3.0 * nf),
            &mut v,
            Out::Y,
            |h, v| {
                blas2::spmv(
                    h,
                    uplo,
                    n,
                    Coef::Device(&alpha),
                    &ap,
                    &v.x,
                    1,
                    Coef::Device(&beta),
                    &mut v.y,
                    1,
                )
            },
            theirs!(T, |c, v| c
                .spmv(uplo, n, &alpha, &ap, &v.x, 1, &beta, &mut v.y, 1)),
        );
    }
    Ok(())
}

/// tbsv (band of `k`) and tpsv, L N and U T, at order `n`.
pub(super) fn band_solves<T: Elem>(b: &mut Bench<'_>, n: usize, k: usize) -> Result<(), Error> {
    let dev = b.dev;
    let es = std::mem::size_of::<T>();
    let packed = n * (n + 1) / 2;
    fits(
        dev,
        &format!("tbsv/tpsv {} n = {n}", T::NAME),
        elems(2 * packed + 2 * (k + 1) * n, es)?,
    )?;
    let (nf, ef) = (n as f64, es as f64);
    let x0 = host_random::<T>(n, 31);
    let mut v = Vecs {
        x: dev.upload(&x0)?,
        y: dev.alloc(1)?,
        x0: Some(x0),
    };
    let d = Diag::NonUnit;
    for (uplo, op) in [(Uplo::Lower, Op::N), (Uplo::Upper, Op::T)] {
        let band = unit_band::<T>(dev, n, k, uplo, 32)?;
        b.row(
            &format!("tbsv {} {}", tri_letter(uplo), letter(op)),
            format!("{n} k={k}"),
            ef * ((k + 1) as f64 * nf + 2.0 * nf),
            &mut v,
            Out::X,
            |h, v| blas2::tbsv(h, uplo, op, d, n, k, &band, k + 1, &mut v.x, 1),
            theirs!(T, |c, v| c.tbsv(
                uplo,
                op,
                d,
                n,
                k,
                &band,
                k + 1,
                &mut v.x,
                1
            )),
        );
    }
    for (uplo, op) in [(Uplo::Lower, Op::N), (Uplo::Upper, Op::T)] {
        let ap = unit_packed::<T>(dev, n, uplo, 33)?;
        b.row(
            &format!("tpsv {} {}", tri_letter(uplo), letter(op)),
            format!("{n}"),
            ef * (packed as f64 + 2.0 * nf),
            &mut v,
            Out::X,
            |h, v| blas2::tpsv(h, uplo, op, d, n, &ap, &mut v.x, 1),
            theirs!(T, |c, v| c.tpsv(uplo, op, d, n, &ap, &mut v.x, 1)),
        );
    }
    Ok(())
}

/// The real rank updates at order `n`: ger, syr L, syr2 L (full storage), spr L, spr2 L.
pub(super) fn rank_updates<T: Elem + gpublas::RealScalar>(
    b: &mut Bench<'_>,
    n: usize,
) -> Result<(), Error> {
    let dev = b.dev;
    let es = std::mem::size_of::<T>();
    let nn = elems(n, n)?;
    fits(
        dev,
        &format!("rank updates {} n = {n}", T::NAME),
        elems(nn, es)?,
    )?;
    let alpha = scalar::<T>(dev, 0.5)?;
    let yv = random::<T>(dev, n, 41)?;
    let (nf, ef) = (n as f64, es as f64);
    let tri = nf * (nf + 1.0) / 2.0;
    {
        let mut v = Vecs {
            x: random(dev, n, 42)?,
            y: random(dev, nn, 43)?,
            x0: None,
        };
        b.row(
            "ger",
            format!("{n}x{n}"),
            ef * (2.0 * nf * nf + 2.0 * nf),
            &mut v,
            Out::Y,
            |h, v| blas2::ger(h, n, n, Coef::Device(&alpha), &v.x, 1, &yv, 1, &mut v.y, n),
            theirs!(T, |c, v| c.ger(n, n, &alpha, &v.x, 1, &yv, 1, &mut v.y, n)),
        );
        b.row(
            "syr L",
            format!("{n}x{n}"),
            ef * (2.0 * tri + nf),
            &mut v,
            Out::Y,
            |h, v| {
                blas2::syr(
                    h,
                    Uplo::Lower,
                    n,
                    Coef::Device(&alpha),
                    &v.x,
                    1,
                    &mut v.y,
                    n,
                )
            },
            theirs!(T, |c, v| c.syr(
                Uplo::Lower,
                n,
                &alpha,
                &v.x,
                1,
                &mut v.y,
                n
            )),
        );
        b.row(
            "syr2 L",
            format!("{n}x{n}"),
            ef * (2.0 * tri + 2.0 * nf),
            &mut v,
            Out::Y,
            |h, v| {
                blas2::syr2(
                    h,
                    Uplo::Lower,
                    n,
                    Coef::Device(&alpha),
                    &v.x,
                    1,
                    &yv,
                    1,
                    &mut v.y,
                    n,
                )
            },
            theirs!(T, |c, v| c.syr2(
                Uplo::Lower,
                n,
                &alpha,
                &v.x,
                1,
                &yv,
                1,
                &mut v.y,
                n
            )),
        );
    }
    let packed = n * (n + 1) / 2;
    let mut v = Vecs {
        x: random(dev, n, 44)?,
        y: random(dev, packed, 45)?,
        x0: None,
    };
    b.row(
        "spr L",
        format!("{n}"),
        ef * (2.0 * tri + nf),
        &mut v,
        Out::Y,
        |h, v| blas2::spr(h, Uplo::Lower, n, Coef::Device(&alpha), &v.x, 1, &mut v.y),
        theirs!(T, |c, v| c.spr(Uplo::Lower, n, &alpha, &v.x, 1, &mut v.y)),
    );
    b.row(
        "spr2 L",
        format!("{n}"),
        ef * (2.0 * tri + 2.0 * nf),
        &mut v,
        Out::Y,
        |h, v| {
            blas2::spr2(
                h,
                Uplo::Lower,
                n,
                Coef::Device(&alpha),
                &v.x,
                1,
                &yv,
                1,
                &mut v.y,
            )
        },
        theirs!(T, |c, v| c.spr2(
            Uplo::Lower,
            n,
            &alpha,
            &v.x,
            1,
            &yv,
            1,
            &mut v.y
        )),
    );
    Ok(())
}

/// The Hermitian rows in double complex at order `n`: hbmv L (band of `k`), hpmv L, her L,
/// her2 L, hpr L.
pub(super) fn hermitian_rest(b: &mut Bench<'_>, n: usize, k: usize) -> Result<(), Error> {
    type T = Complex64;
    let dev = b.dev;
    let es = std::mem::size_of::<T>();
    let nn = elems(n, n)?;
    fits(dev, &format!("Hermitian c64 n = {n}"), elems(nn, es)?)?;
    let (alpha, beta) = (scalar::<T>(dev, 1.5)?, scalar::<T>(dev, 0.5)?);
    let real_alpha = dev.upload(&[0.5f64])?;
    let (nf, ef) = (n as f64, es as f64);
    let tri = nf * (nf + 1.0) / 2.0;
    let packed = n * (n + 1) / 2;
    let yv = random::<T>(dev, n, 51)?;
    {
        let band = random::<T>(dev, elems(k + 1, n)?, 52)?;
        let ap = random::<T>(dev, packed, 53)?;
        let mut v = Vecs {
            x: random(dev, n, 54)?,
            y: random(dev, n, 55)?,
            x0: None,
        };
        b.row(
            "hbmv L",
            format!("{n} k={k}"),
            ef * ((k + 1) as f64 * nf + 3.0 * nf),
            &mut v,
            Out::Y,
            |h, v| {
                blas2::hbmv(
                    h,
                    Uplo::Lower,
                    n,
                    k,
                    Coef::Device(&alpha),
                    &band,
                    k + 1,
                    &v.x,
                    1,
                    Coef::Device(&beta),
                    &mut v.y,
                    1,
                )
            },
            theirs!(T, |c, v| c.hbmv(
                Uplo::Lower,
                n,
                k,
                &alpha,
                &band,
                k + 1,
                &v.x,
                1,
                &beta,
                &mut v.y,
                1
            )),
        );
        b.row(
            "hpmv L",
            format!("{n}"),
            ef * (tri + 3.0 * nf),
            &mut v,
            Out::Y,
            |h, v| {
                blas2::hpmv(
                    h,
                    Uplo::Lower,
                    n,
                    Coef::Device(&alpha),
                    &ap,
                    &v.x,
                    1,
                    Coef::Device(&beta),
                    &mut v.y,
                    1,
                )
            },
            theirs!(T, |c, v| c.hpmv(
                Uplo::Lower,
                n,
                &alpha,
                &ap,
                &v.x,
                1,
                &beta,
                &mut v.y,
                1
            )),
        );
    }
    let mut v = Vecs {
        x: random(dev, n, 56)?,
        y: random(dev, nn, 57)?,
        x0: None,
    };
    b.row(
        "her L",
        format!("{n}x{n}"),
        ef * (2.0 * tri + nf),
        &mut v,
        Out::Y,
        |h, v| {
            blas2::her(
                h,
                Uplo::Lower,
                n,
                Coef::Device(&real_alpha),
                &v.x,
                1,
                &mut v.y,
                n,
            )
        },
        theirs!(T, |c, v| c.her(
            Uplo::Lower,
            n,
            &real_alpha,
            &v.x,
            1,
            &mut v.y,
            n
        )),
    );
    b.row(
        "her2 L",
        format!("{n}x{n}"),
        ef * (2.0 * tri + 2.0 * nf),
        &mut v,
        Out::Y,
        |h, v| {
            blas2::her2(
                h,
                Uplo::Lower,
                n,
                Coef::Device(&alpha),
                &v.x,
                1,
                &yv,
                1,
                &mut v.y,
                n,
            )
        },
        theirs!(T, |c, v| c.her2(
            Uplo::Lower,
            n,
            &alpha,
            &v.x,
            1,
            &yv,
            1,
            &mut v.y,
            n
        )),
    );
    let mut v = Vecs {
        x: random(dev, n, 58)?,
        y: random(dev, packed, 59)?,
        x0: None,
    };
    b.row(
        "hpr L",
        format!("{n}"),
        ef * (2.0 * tri + nf),
        &mut v,
        Out::Y,
        |h, v| {
            blas2::hpr(
                h,
                Uplo::Lower,
                n,
                Coef::Device(&real_alpha),
                &v.x,
                1,
                &mut v.y,
            )
        },
        theirs!(T, |c, v| c.hpr(
            Uplo::Lower,
            n,
            &real_alpha,
            &v.x,
            1,
            &mut v.y
        )),
    );
    Ok(())
}
