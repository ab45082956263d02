//! The data of `bench solver`: generated matrices (a stream any part of which is generated on
//! its own, in parallel), the element types of the rows, and the comparisons of two results.

use crate::bench_util::{elems, Rng};
use gpublas::{Complex64, Error, Scalar};
use gpublas_peers::cublas::CublasScalar;

/// The splitmix64 increment of `Rng`: element `k` of a stream is `Rng(seed + k * GAMMA)`'s
/// first value.
pub(super) const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// Value `k` (0-based) of the generator stream `seed`: what the `k + 1`-th call of
/// `Rng(seed).val()` returns, so any part of a matrix is generated on its own (in
/// parallel) and equal to a sequential run.
pub(super) fn val_at(seed: u64, k: u64) -> f64 {
    Rng(seed.wrapping_add(k.wrapping_mul(GAMMA))).val()
}

/// The element types of the rows: `f64` (every group), `f32` and `Complex64` (getrf).
pub(super) trait Elem: Scalar + CublasScalar {
    /// The type in the table and the JSON rows.
    const NAME: &'static str;
    /// The BLAS letter of the type, as in `cusolverDn?getrf`.
    const LETTER: char;
    /// Flops per flop of the real count: a complex multiply-add is 4 real multiplies and
    /// 4 real adds (8 flops against 2).
    const FLOP_SCALE: f64;
    /// Largest relative difference of two LU factorizations accepted as agreement.
    const GETRF_TOL: f64;
    /// Element `k` of a matrix from the generator stream `seed`.
    fn at(seed: u64, k: u64) -> Self;
    /// The real and imaginary parts, widened to f64.
    fn re_im(self) -> (f64, f64);
    /// `self + r`.
    fn plus(self, r: f64) -> Self;
    /// The LU rows factor a matrix with well-separated pivots (`separated`) instead of a
    /// random one: f32's rounding makes near-ties of a random matrix of order 16384 fall
    /// either way (10332 of 16384 pivots differed from cuSOLVER's, both correct), so the
    /// comparison with cuSOLVER would say nothing.
    const SEPARATED: bool;
}

impl Elem for f64 {
    const NAME: &'static str = "f64";
    const LETTER: char = 'D';
    const FLOP_SCALE: f64 = 1.0;
    // n·u is 3.6e-12 at n = 32768: far below, while wrong factors differ by O(1).
    const GETRF_TOL: f64 = 1e-8;
    fn at(seed: u64, k: u64) -> f64 {
        val_at(seed, k)
    }
    fn re_im(self) -> (f64, f64) {
        (self, 0.0)
    }
    fn plus(self, r: f64) -> f64 {
        self + r
    }
    const SEPARATED: bool = false;
}

impl Elem for f32 {
    const NAME: &'static str = "f32";
    const LETTER: char = 'S';
    const FLOP_SCALE: f64 = 1.0;
    // f32's unit roundoff is 2^29 times f64's: n·u is 1e-3 at n = 16384, so two correct
    // factorizations may differ near that; wrong factors still differ by O(1).
    const GETRF_TOL: f64 = 1e-2;
    fn at(seed: u64, k: u64) -> f32 {
        val_at(seed, k) as f32
    }
    fn plus(self, r: f64) -> f32 {
        self + r as f32
    }
    const SEPARATED: bool = true;
    fn re_im(self) -> (f64, f64) {
        (self as f64, 0.0)
    }
}

impl Elem for Complex64 {
    const NAME: &'static str = "c64";
    const LETTER: char = 'Z';
    const FLOP_SCALE: f64 = 4.0;
    const GETRF_TOL: f64 = 1e-8;
    /// Real part: value `2k` of the stream, imaginary part: value `2k + 1`.
    fn at(seed: u64, k: u64) -> Complex64 {
        let k2 = k.wrapping_mul(2);
        Complex64::new(val_at(seed, k2), val_at(seed, k2.wrapping_add(1)))
    }
    fn plus(self, r: f64) -> Complex64 {
        self + r
    }
    const SEPARATED: bool = false;
    fn re_im(self) -> (f64, f64) {
        (self.re, self.im)
    }
}

/// Host threads for generating and comparing gigabytes of matrices.
pub(super) fn threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 32)
}

/// Fills `v` (columns of `rows` entries) in parallel: entry `i` of global column `j` is
/// `f(i, j)`.
pub(super) fn par_fill<T: Send>(v: &mut [T], rows: usize, f: impl Fn(usize, usize) -> T + Sync) {
    if rows == 0 || v.is_empty() {
        return;
    }
    let cols = v.len() / rows;
    let per = cols.div_ceil(threads()).max(1);
    std::thread::scope(|s| {
        for (t, chunk) in v.chunks_mut(per * rows).enumerate() {
            let f = &f;
            s.spawn(move || {
                for (c, col) in chunk.chunks_mut(rows).enumerate() {
                    let j = t * per + c;
                    for (i, x) in col.iter_mut().enumerate() {
                        *x = f(i, j);
                    }
                }
            });
        }
    });
}

/// A general `rows × cols` matrix (leading dimension `rows`; `count` `n × n` matrices one
/// after the other are `n × (count n)`), entries uniform in ±[0.25, 1) (complex: both
/// parts) in the generator's order.
pub(super) fn general<T: Elem>(rows: usize, cols: usize, seed: u64) -> Result<Vec<T>, Error> {
    let mut v = vec![T::zero(); elems(rows, cols)?];
    par_fill(&mut v, rows, |i, j| T::at(seed, (j * rows + i) as u64));
    Ok(v)
}

/// A random `n × n` matrix plus `±4n` in row `p(j)` of each column `j`, `p` a permutation
/// (`j ↦ (7919 j + 17) mod n`, or the identity where 7919 divides `n`): each column's
/// pivot dominates the rest of it by more than the other entries sum to, and stays so
/// through the elimination, so partial pivoting picks `p` in any precision, while the
/// interchanges still move rows.
pub(super) fn separated<T: Elem>(n: usize, seed: u64) -> Result<Vec<T>, Error> {
    let mut v = general::<T>(n, n, seed)?;
    let step = if n % 7919 == 0 { 1 } else { 7919 };
    for j in 0..n {
        let i = (j * step + if step == 1 { 0 } else { 17 }) % n;
        let sign = if j % 2 == 0 { 1.0 } else { -1.0 };
        v[i + j * n] = v[i + j * n].plus(sign * 4.0 * n as f64);
    }
    Ok(v)
}

/// `count` symmetric positive definite `n × n` matrices one after the other (both
/// triangles stored): off-diagonal entries in ±[0.25, 1), the diagonal `n + 1 + |v|`.
pub(super) fn spd(n: usize, count: usize, seed: u64) -> Result<Vec<f64>, Error> {
    let mut v = vec![0.0; elems(elems(n, n)?, count)?];
    let nf = n as f64;
    par_fill(&mut v, n, |i, j| {
        let (e, c) = (j / n, j % n);
        let (lo, hi) = (i.min(c), i.max(c));
        let x = val_at(seed, ((e * n + hi) * n + lo) as u64);
        if i == c {
            nf + 1.0 + x.abs()
        } else {
            x
        }
    });
    Ok(v)
}

/// The `n × n` identity (f64): the right-hand sides whose solution is the inverse.
pub(super) fn identity(n: usize) -> Result<Vec<f64>, Error> {
    let mut v = vec![0.0; elems(n, n)?];
    par_fill(&mut v, n, |i, j| if i == j { 1.0 } else { 0.0 });
    Ok(v)
}

/// Which entries a comparison covers: all, or the lower or upper triangle (with the
/// diagonal) of each matrix (what potrf writes with `Uplo::Lower` or `Uplo::Upper`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    All,
    Lower,
    Upper,
}

/// `|re + i im|`, exact (no `hypot`) for a real value.
pub(super) fn modulus(re: f64, im: f64) -> f64 {
    if im == 0.0 {
        re.abs()
    } else {
        re.hypot(im)
    }
}

/// `max |a - b| / max |b|` over `part` of matrices of `rows × cols` (leading dimension
/// `rows`) stored one after the other (complex entries by modulus); NaN when a difference
/// is NaN or the lengths differ. Split over the host's threads.
pub(super) fn rel_diff<T: Elem>(a: &[T], b: &[T], rows: usize, cols: usize, part: Part) -> f64 {
    if a.len() != b.len() {
        return f64::NAN;
    }
    if rows == 0 || cols == 0 || a.is_empty() {
        return 0.0;
    }
    let ncols = a.len() / rows;
    let per = ncols.div_ceil(threads()).max(1);
    let parts: Vec<(f64, f64, bool)> = std::thread::scope(|s| {
        let handles: Vec<_> = a
            .chunks(per * rows)
            .zip(b.chunks(per * rows))
            .enumerate()
            .map(|(t, (ca, cb))| {
                s.spawn(move || {
                    let (mut d, mut m, mut nan) = (0.0f64, 0.0f64, false);
                    for (c, (xa, xb)) in ca.chunks(rows).zip(cb.chunks(rows)).enumerate() {
                        let jj = (t * per + c) % cols;
                        let (first, end) = match part {
                            Part::All => (0, rows),
                            Part::Lower => (jj.min(rows), rows),
                            Part::Upper => (0, (jj + 1).min(rows)),
                        };
                        for (p, q) in xa.iter().zip(xb).take(end).skip(first) {
                            let ((pr, pi), (qr, qi)) = (p.re_im(), q.re_im());
                            let e = modulus(pr - qr, pi - qi);
                            nan |= e.is_nan();
                            d = d.max(e);
                            m = m.max(modulus(qr, qi));
                        }
                    }
                    (d, m, nan)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or((f64::NAN, 0.0, true)))
            .collect()
    });
    let (mut d, mut m) = (0.0f64, 0.0f64);
    for (pd, pm, nan) in parts {
        if nan {
            // f64::max drops NaN: report it instead.
            return f64::NAN;
        }
        d = d.max(pd);
        m = m.max(pm);
    }
    if m > 0.0 {
        d / m
    } else {
        d
    }
}

/// Entries that differ (a length difference counts as that many).
pub(super) fn count_diff(a: &[i32], b: &[i32]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x != y).count() + a.len().abs_diff(b.len())
}

pub(super) fn nonzero(v: &[i32]) -> usize {
    v.iter().filter(|&&x| x != 0).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generators_match_the_sequential_stream() {
        let (rows, cols, seed) = (7, 5, 42);
        let mut r = Rng(seed);
        let want: Vec<f64> = (0..rows * cols).map(|_| r.val()).collect();
        assert_eq!(general::<f64>(rows, cols, seed).ok(), Some(want.clone()));
        let want32: Vec<f32> = want.iter().map(|&v| v as f32).collect();
        assert_eq!(general::<f32>(rows, cols, seed).ok(), Some(want32));
        // Complex: consecutive values are the real and imaginary parts.
        let mut r = Rng(seed);
        let wantz: Vec<Complex64> = (0..rows * cols)
            .map(|_| Complex64::new(r.val(), r.val()))
            .collect();
        assert_eq!(general::<Complex64>(rows, cols, seed).ok(), Some(wantz));
    }

    #[test]
    fn separated_pivots_form_a_permutation() {
        for n in [10usize, 7919 * 2] {
            let v = separated::<f32>(n, 3).unwrap_or_default();
            let mut rows: Vec<usize> = (0..n)
                .map(|j| {
                    let big: Vec<usize> = (0..n)
                        .filter(|&i| v[i + j * n].abs() > 2.0 * n as f32)
                        .collect();
                    assert_eq!(big.len(), 1, "n = {n}, column {j}");
                    big[0]
                })
                .collect();
            rows.sort_unstable();
            assert_eq!(rows, (0..n).collect::<Vec<_>>(), "n = {n}");
        }
    }

    #[test]
    fn spd_is_symmetric_and_diagonally_dominant() {
        let (n, count) = (9, 3);
        let v = spd(n, count, 7).unwrap_or_default();
        assert_eq!(v.len(), n * n * count);
        for e in 0..count {
            let m = &v[e * n * n..(e + 1) * n * n];
            for j in 0..n {
                let off: f64 = (0..n).filter(|&i| i != j).map(|i| m[i + j * n].abs()).sum();
                assert!(m[j + j * n] > off);
                for i in 0..n {
                    assert_eq!(m[i + j * n], m[j + i * n]);
                }
            }
        }
    }

    #[test]
    fn identity_has_ones_on_the_diagonal_only() {
        let n = 5;
        let v = identity(n).unwrap_or_default();
        assert_eq!(v.len(), n * n);
        for j in 0..n {
            for i in 0..n {
                assert_eq!(v[i + j * n], if i == j { 1.0 } else { 0.0 });
            }
        }
    }

    #[test]
    fn rel_diff_covers_the_part_asked_for() {
        let n = 4;
        let b: Vec<f64> = (0..2 * n * n).map(|k| 1.0 + k as f64).collect();
        let mut a = b.clone();
        // An upper entry (row 0, column 3) of the second matrix.
        a[n * n + 3 * n] += 100.0;
        assert_eq!(rel_diff(&a, &b, n, n, Part::Lower), 0.0);
        assert!(rel_diff(&a, &b, n, n, Part::Upper) > 1.0);
        assert!(rel_diff(&a, &b, n, n, Part::All) > 1.0);
        // A lower entry (row 3, column 1) of the second matrix.
        let mut c = b.clone();
        c[n * n + n + 3] += 1.0;
        assert_eq!(rel_diff(&c, &b, n, n, Part::Lower), 1.0 / 32.0);
        assert_eq!(rel_diff(&c, &b, n, n, Part::Upper), 0.0);
        // The diagonal (row 2, column 2) belongs to both triangles.
        let mut d = b.clone();
        d[2 * n + 2] += 2.0;
        assert_eq!(rel_diff(&d, &b, n, n, Part::Upper), 2.0 / 32.0);
        assert_eq!(rel_diff(&d, &b, n, n, Part::Lower), 2.0 / 32.0);
        c[0] = f64::NAN;
        assert!(rel_diff(&c, &b, n, n, Part::All).is_nan());
        assert_eq!(count_diff(&[1, 2, 3], &[1, 5]), 2);
    }
}
