//! The data of `bench qr`: generated matrices (the generator of `bench solver`: any part of a
//! matrix is generated on its own, in parallel), the element types of the rows, and the
//! comparisons of two results (the factors of `geqrf`, the matrices of `orgqr` and `ormqr`).

use crate::bench_util::{elems, Rng};
use gpublas::{Complex64, Error, Scalar};
use gpublas_peers::cublas::CublasScalar;

/// The splitmix64 increment of `Rng`: element `k` of a stream is `Rng(seed + k * GAMMA)`'s
/// first value.
const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// Value `k` (0-based) of the generator stream `seed`: what the `k + 1`-th call of
/// `Rng(seed).val()` returns.
fn val_at(seed: u64, k: u64) -> f64 {
    Rng(seed.wrapping_add(k.wrapping_mul(GAMMA))).val()
}

/// The element types of the rows: `f64` (every group), `f32` and `Complex64` (square geqrf).
pub(super) trait Elem: Scalar + CublasScalar {
    /// The type in the table and the JSON rows.
    const NAME: &'static str;
    /// The BLAS letter of the type, as in `cusolverDn?geqrf`.
    const LETTER: char;
    /// Flops per flop of the real count: a complex multiply-add is 8 real flops against 2.
    const FLOP_SCALE: f64;
    /// Largest relative difference of two QR results accepted as agreement.
    const TOL: f64;
    /// Element `k` of a matrix from the generator stream `seed`.
    fn at(seed: u64, k: u64) -> Self;
    /// The real and imaginary parts, widened to f64.
    fn re_im(self) -> (f64, f64);
    /// NaN (both parts for complex): what an output is filled with before a compared call,
    /// so an entry the call leaves unwritten shows.
    fn nan() -> Self;
}

impl Elem for f64 {
    const NAME: &'static str = "f64";
    const LETTER: char = 'D';
    const FLOP_SCALE: f64 = 1.0;
    // Two backward-stable QRs of a random matrix of order 16384 differ near cond · u (1e-11
    // or so); wrong factors differ by O(1).
    const TOL: f64 = 1e-8;
    fn at(seed: u64, k: u64) -> f64 {
        val_at(seed, k)
    }
    fn re_im(self) -> (f64, f64) {
        (self, 0.0)
    }
    fn nan() -> f64 {
        f64::NAN
    }
}

impl Elem for f32 {
    const NAME: &'static str = "f32";
    const LETTER: char = 'S';
    const FLOP_SCALE: f64 = 1.0;
    // f32's unit roundoff is 2^29 times f64's.
    const TOL: f64 = 1e-2;
    fn at(seed: u64, k: u64) -> f32 {
        val_at(seed, k) as f32
    }
    fn re_im(self) -> (f64, f64) {
        (self as f64, 0.0)
    }
    fn nan() -> f32 {
        f32::NAN
    }
}

impl Elem for Complex64 {
    const NAME: &'static str = "c64";
    const LETTER: char = 'Z';
    const FLOP_SCALE: f64 = 4.0;
    const TOL: f64 = 1e-8;
    /// Real part: value `2k` of the stream, imaginary part: value `2k + 1`.
    fn at(seed: u64, k: u64) -> Complex64 {
        let k2 = k.wrapping_mul(2);
        Complex64::new(val_at(seed, k2), val_at(seed, k2.wrapping_add(1)))
    }
    fn re_im(self) -> (f64, f64) {
        (self.re, self.im)
    }
    fn nan() -> Complex64 {
        Complex64::new(f64::NAN, f64::NAN)
    }
}

/// Host threads for generating and comparing gigabytes of matrices.
fn threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 32)
}

/// A general `rows × cols` matrix (leading dimension `rows`; `count` `m × n` matrices one
/// after the other are `m × (count n)`), entries uniform in ±[0.25, 1) (complex: both
/// parts) in the generator's order; filled in parallel, by columns.
pub(super) fn general<T: Elem>(rows: usize, cols: usize, seed: u64) -> Result<Vec<T>, Error> {
    let mut v = vec![T::zero(); elems(rows, cols)?];
    if rows == 0 || v.is_empty() {
        return Ok(v);
    }
    let per = cols.div_ceil(threads()).max(1);
    std::thread::scope(|s| {
        for (t, chunk) in v.chunks_mut(per * rows).enumerate() {
            s.spawn(move || {
                let first = (t * per * rows) as u64;
                for (k, x) in chunk.iter_mut().enumerate() {
                    *x = T::at(seed, first + k as u64);
                }
            });
        }
    });
    Ok(v)
}

/// Which entries of each `rows × cols` matrix (leading dimension `rows`) a comparison covers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Part {
    /// Every entry (`Q` of orgqr, `C` of ormqr, a vector of `tau`).
    All,
    /// The upper trapezoid, diagonal included: `R` of geqrf.
    Upper,
    /// Below the diagonal: geqrf's Householder vectors.
    StrictLower,
    /// The moduli of the diagonal entries: `|R(i, i)|`, blind to the sign convention.
    AbsDiagonal,
}

impl Part {
    /// The rows of column `j` the part covers.
    fn rows(self, j: usize, rows: usize) -> (usize, usize) {
        match self {
            Part::All => (0, rows),
            Part::Upper => (0, (j + 1).min(rows)),
            Part::StrictLower => ((j + 1).min(rows), rows),
            Part::AbsDiagonal => (j.min(rows), (j + 1).min(rows)),
        }
    }
}

/// `|re + i im|`, exact (no `hypot`) for a real value.
fn modulus(re: f64, im: f64) -> f64 {
    if im == 0.0 {
        re.abs()
    } else {
        re.hypot(im)
    }
}

/// `max |a - b| / max |b|` over `part` of matrices of `rows × cols` (leading dimension
/// `rows`) stored one after the other (complex entries by modulus; `AbsDiagonal` compares
/// moduli); NaN when a difference is NaN or the lengths differ. Split over the host's threads.
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
                        let (first, end) = part.rows((t * per + c) % cols, rows);
                        for (p, q) in xa.iter().zip(xb).take(end).skip(first) {
                            let ((pr, pi), (qr, qi)) = (p.re_im(), q.re_im());
                            let (e, r) = if part == Part::AbsDiagonal {
                                let r = modulus(qr, qi);
                                ((modulus(pr, pi) - r).abs(), r)
                            } else {
                                (modulus(pr - qr, pi - qi), modulus(qr, qi))
                            };
                            nan |= e.is_nan();
                            d = d.max(e);
                            m = m.max(r);
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

/// The larger of two relative differences, NaN if either is.
pub(super) fn worst(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
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
        let mut r = Rng(seed);
        let wantz: Vec<Complex64> = (0..rows * cols)
            .map(|_| Complex64::new(r.val(), r.val()))
            .collect();
        assert_eq!(general::<Complex64>(rows, cols, seed).ok(), Some(wantz));
    }

    #[test]
    fn rel_diff_covers_the_part_asked_for() {
        // Two 4 x 3 matrices one after the other.
        let (m, n) = (4, 3);
        let b: Vec<f64> = (0..2 * m * n).map(|k| 1.0 + k as f64).collect();
        let max = (2 * m * n) as f64;
        // Row 2, column 1 of the second matrix: below the diagonal.
        let mut a = b.clone();
        a[m * n + m + 2] += 1.0;
        assert_eq!(rel_diff(&a, &b, m, n, Part::Upper), 0.0);
        assert_eq!(rel_diff(&a, &b, m, n, Part::AbsDiagonal), 0.0);
        assert_eq!(rel_diff(&a, &b, m, n, Part::StrictLower), 1.0 / max);
        assert_eq!(rel_diff(&a, &b, m, n, Part::All), 1.0 / max);
        // The diagonal (row 1, column 1) of the first matrix, its sign flipped: R differs,
        // |R(i, i)| does not.
        let mut d = b.clone();
        d[m + 1] = -d[m + 1];
        assert_eq!(rel_diff(&d, &b, m, n, Part::AbsDiagonal), 0.0);
        assert_eq!(rel_diff(&d, &b, m, n, Part::StrictLower), 0.0);
        assert!(rel_diff(&d, &b, m, n, Part::Upper) > 0.0);
        // Row 0, column 2 of the second matrix: above the diagonal, relative to the largest
        // entry of the upper trapezoids (row 2, column 2 of the second matrix: 23).
        let mut u = b.clone();
        u[m * n + 2 * m] += 2.0;
        assert_eq!(rel_diff(&u, &b, m, n, Part::StrictLower), 0.0);
        assert_eq!(rel_diff(&u, &b, m, n, Part::Upper), 2.0 / 23.0);
        u[0] = f64::NAN;
        assert!(rel_diff(&u, &b, m, n, Part::All).is_nan());
        assert!(rel_diff(&u, &b[1..], m, n, Part::All).is_nan());
        assert!(worst(0.1, f64::NAN).is_nan());
        assert_eq!(worst(0.1, 0.2), 0.2);
    }

    #[test]
    fn rel_diff_of_complex_entries_is_by_modulus() {
        let b = vec![Complex64::new(3.0, 4.0), Complex64::new(0.0, 1.0)];
        let mut a = b.clone();
        a[1] = Complex64::new(0.3, 1.4);
        // |0.3 + 0.4i| / |3 + 4i| = 0.5 / 5.
        assert!((rel_diff(&a, &b, 2, 1, Part::All) - 0.1).abs() < 1e-12);
        // The diagonal by modulus: |3 + 4i| against |-4 + 3i| is no difference.
        let mut c = b.clone();
        c[0] = Complex64::new(-4.0, 3.0);
        assert!(rel_diff(&c, &b, 2, 1, Part::AbsDiagonal) < 1e-15);
    }
}
