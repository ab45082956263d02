//! Where the elements of one side of a transfer live, and the host-side packing between such a
//! layout and a contiguous run (parallel for large runs).

use super::TransferParams;
use rayon::prelude::*;

/// One side of a transfer: logical element `k` is row `k % rows` of column `k / rows`, stored at
/// `column * ld + row`, columns counted from the end when `reverse` (a vector at a negative
/// increment: `rows = 1`, `ld = |inc|`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Side {
    pub rows: usize,
    pub cols: usize,
    pub ld: usize,
    pub reverse: bool,
}

impl Side {
    /// A vector of `n` elements at increment `inc` (non-zero).
    pub(crate) fn vector(n: usize, inc: isize) -> Side {
        Side {
            rows: 1,
            cols: n,
            ld: inc.unsigned_abs(),
            reverse: inc < 0 && n > 1,
        }
    }

    /// A column-major `rows × cols` matrix with leading dimension `ld`.
    pub(crate) fn matrix(rows: usize, cols: usize, ld: usize) -> Side {
        Side {
            rows,
            cols,
            ld,
            reverse: false,
        }
    }

    /// Elements in the transfer.
    pub(crate) fn count(&self) -> usize {
        self.rows * self.cols
    }

    /// Whether the elements are one contiguous run in order.
    pub(crate) fn contiguous(&self) -> bool {
        !self.reverse && (self.cols <= 1 || self.ld == self.rows)
    }

    /// Storage index of logical element `k`.
    #[inline]
    pub(crate) fn index(&self, k: usize) -> usize {
        let (c, r) = (k / self.rows, k % self.rows);
        let c = if self.reverse { self.cols - 1 - c } else { c };
        c * self.ld + r
    }
}

/// Elements per parallel piece (`TransferParams::piece_bytes`).
fn piece<T>(params: &TransferParams) -> usize {
    (params.piece_bytes / std::mem::size_of::<T>().max(1)).max(1)
}

/// `dst[i] = src[side.index(k0 + i)]` for every `i`: the host side into a contiguous run (in
/// parallel pieces from `params.parallel_bytes` on).
pub(crate) fn pack<T: Copy + Send + Sync>(
    params: &TransferParams,
    src: &[T],
    side: Side,
    k0: usize,
    dst: &mut [T],
) {
    if std::mem::size_of_val(dst) < params.parallel_bytes {
        return pack_range(src, side, k0, dst);
    }
    let p = piece::<T>(params);
    dst.par_chunks_mut(p)
        .enumerate()
        .for_each(|(i, d)| pack_range(src, side, k0 + i * p, d));
}

/// `dst[side.index(k0 + i)] = src[i]` for every `i`: a contiguous run into the host side (in
/// parallel pieces from `params.parallel_bytes` on).
pub(crate) fn unpack<T: Copy + Send + Sync>(
    params: &TransferParams,
    src: &[T],
    side: Side,
    k0: usize,
    dst: &mut [T],
) {
    if std::mem::size_of_val(src) < params.parallel_bytes {
        return unpack_range(src, side, k0, dst, 0);
    }
    // Storage indices are monotone in k (increasing, or decreasing when reversed), so
    // consecutive pieces of the run write disjoint, ordered ranges of `dst`: split it there.
    let p = piece::<T>(params);
    let mut jobs = Vec::with_capacity(src.len().div_ceil(p));
    let mut rest: &mut [T] = dst;
    let mut taken = 0usize;
    let pieces: Vec<(usize, &[T])> = src
        .chunks(p)
        .enumerate()
        .map(|(i, s)| (k0 + i * p, s))
        .collect();
    let order: Box<dyn Iterator<Item = &(usize, &[T])>> = if side.reverse {
        Box::new(pieces.iter().rev())
    } else {
        Box::new(pieces.iter())
    };
    for &(k, s) in order {
        let (a, b) = (side.index(k), side.index(k + s.len() - 1));
        let (lo, hi) = (a.min(b), a.max(b));
        let (_, tail) = std::mem::take(&mut rest).split_at_mut(lo - taken);
        let (mine, tail) = tail.split_at_mut(hi + 1 - lo);
        rest = tail;
        taken = hi + 1;
        jobs.push((k, s, mine, lo));
    }
    jobs.into_par_iter()
        .for_each(|(k, s, d, lo)| unpack_range(s, side, k, d, lo));
}

fn pack_range<T: Copy>(src: &[T], side: Side, k0: usize, dst: &mut [T]) {
    if dst.is_empty() {
        return;
    }
    if side.rows == 1 {
        let (n, ld) = (side.cols, side.ld.max(1));
        if ld == 1 && !side.reverse {
            // Contiguous (a pageable run staged through page-locked slots): one memcpy.
            dst.copy_from_slice(&src[k0..k0 + dst.len()]);
        } else if side.reverse {
            let first = (n - 1 - k0) * ld;
            let it = src[..=first].iter().rev().step_by(ld);
            dst.iter_mut().zip(it).for_each(|(d, s)| *d = *s);
        } else {
            let it = src[k0 * ld..].iter().step_by(ld);
            dst.iter_mut().zip(it).for_each(|(d, s)| *d = *s);
        }
        return;
    }
    // Column by column, no division per column; short runs copied inline.
    let (mut c, mut r) = (k0 / side.rows, k0 % side.rows);
    let mut i = 0;
    while i < dst.len() {
        let run = (side.rows - r).min(dst.len() - i);
        let at = c * side.ld + r;
        copy_run(&mut dst[i..i + run], &src[at..at + run]);
        i += run;
        c += 1;
        r = 0;
    }
}

/// A run of a column: inline for short runs (a call to memcpy costs more than 16 elements).
#[inline(always)]
fn copy_run<T: Copy>(d: &mut [T], s: &[T]) {
    if d.len() <= 32 {
        d.iter_mut().zip(s).for_each(|(d, s)| *d = *s);
    } else {
        d.copy_from_slice(s);
    }
}

/// As `unpack`, into `dst` starting at storage index `lo`.
fn unpack_range<T: Copy>(src: &[T], side: Side, k0: usize, dst: &mut [T], lo: usize) {
    if src.is_empty() {
        return;
    }
    if side.rows == 1 {
        let (n, ld) = (side.cols, side.ld.max(1));
        if ld == 1 && !side.reverse {
            dst[k0 - lo..k0 - lo + src.len()].copy_from_slice(src);
        } else if side.reverse {
            let first = (n - 1 - k0) * ld - lo;
            let it = dst[..=first].iter_mut().rev().step_by(ld);
            it.zip(src).for_each(|(d, s)| *d = *s);
        } else {
            let it = dst[k0 * ld - lo..].iter_mut().step_by(ld);
            it.zip(src).for_each(|(d, s)| *d = *s);
        }
        return;
    }
    let (mut c, mut r) = (k0 / side.rows, k0 % side.rows);
    let mut i = 0;
    while i < src.len() {
        let run = (side.rows - r).min(src.len() - i);
        let at = c * side.ld + r - lo;
        copy_run(&mut dst[at..at + run], &src[i..i + run]);
        i += run;
        c += 1;
        r = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(side: Side) -> Vec<usize> {
        (0..side.count()).map(|k| side.index(k)).collect()
    }

    #[test]
    fn pack_and_unpack_follow_the_layout() {
        let params = TransferParams::auto();
        for side in [
            Side::vector(7, 3),
            Side::vector(7, -2),
            Side::vector(1 << 17, 2),
            Side::vector((1 << 17) + 1, 3),
            Side::vector(1001, 4),
            Side::vector(9, 2),
            Side::vector(33, 5),
            Side::matrix(5, 4, 9),
            Side::matrix(40_000, 3, 40_007),
            Side::matrix(3, 50_000, 4),
        ] {
            let span = (side.cols - 1) * side.ld + side.rows;
            let src: Vec<u32> = (0..span as u32).collect();
            let idx = reference(side);
            for k0 in [0, 1, side.count() / 3] {
                let mut run = vec![u32::MAX; side.count() - k0];
                pack(&params, &src, side, k0, &mut run);
                for (i, v) in run.iter().enumerate() {
                    assert_eq!(*v as usize, idx[k0 + i], "{side:?} k0 {k0} i {i}");
                }
                let mut back = vec![u32::MAX; span];
                unpack(&params, &run, side, k0, &mut back);
                for (i, _) in run.iter().enumerate() {
                    assert_eq!(back[idx[k0 + i]] as usize, idx[k0 + i]);
                }
                let written = run.len();
                assert_eq!(back.iter().filter(|v| **v != u32::MAX).count(), written);
            }
        }
    }
}

/// The host side's packing rate alone (no copy engine), beside a plain parallel copy and a
/// parallel read of the same bytes: `cargo test --release -p gpublas --lib pack_speed --
/// --ignored --nocapture` (the GPU machine's run explains the host-packed transfer rows).
#[cfg(test)]
mod speed {
    use super::*;

    fn rate(bytes: usize, mut f: impl FnMut()) -> f64 {
        f();
        let mut best = f64::MAX;
        for _ in 0..5 {
            let t = std::time::Instant::now();
            f();
            best = best.min(t.elapsed().as_secs_f64());
        }
        bytes as f64 / best / 1e9
    }

    #[test]
    #[ignore]
    fn pack_speed() {
        let params = TransferParams::auto();
        let most = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut threads: Vec<usize> = [1, 2, 4, 8, 16, 32]
            .into_iter()
            .filter(|&t| t < most)
            .collect();
        threads.push(most);
        eprintln!("GB/s of packed elements, best of 5; f32; pieces of 2^19 elements");
        eprintln!("| threads | case | pack | unpack | copy (same bytes) | read (source span) |");
        for &t in &threads {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap();
            pool.install(|| {
                for (side, name) in [
                    (Side::vector(1 << 26, 2), "vector inc 2"),
                    (Side::matrix(16, 1 << 20, 64), "thin 16 × 2^20, ld 64"),
                ] {
                    let span = (side.cols - 1) * side.ld + side.rows;
                    let src = vec![1.0f32; span];
                    let mut dst = vec![0.0f32; 1 << 19];
                    let mut back = vec![2.0f32; span];
                    let n = side.count();
                    let bytes = n * 4;
                    let pk = rate(bytes, || {
                        let mut k = 0;
                        while k < n {
                            let len = (n - k).min(dst.len());
                            pack(&params, &src, side, k, &mut dst[..len]);
                            k += len;
                        }
                    });
                    let up = rate(bytes, || {
                        let mut k = 0;
                        while k < n {
                            let len = (n - k).min(dst.len());
                            unpack(&params, &dst[..len], side, k, &mut back);
                            k += len;
                        }
                    });
                    let flat = vec![1.0f32; n];
                    let mut out = vec![0.0f32; n];
                    let cp = rate(bytes, || {
                        out.par_chunks_mut(1 << 15)
                            .zip(flat.par_chunks(1 << 15))
                            .for_each(|(d, s)| d.copy_from_slice(s));
                    });
                    let mut sink = 0.0f32;
                    let rd = rate(span * 4, || {
                        sink += src
                            .par_chunks(1 << 15)
                            .map(|c| c.iter().fold(0.0f32, |a, b| a + b))
                            .sum::<f32>();
                    });
                    eprintln!("| {t} | {name} | {pk:.1} | {up:.1} | {cp:.1} | {rd:.1} |");
                    assert!(sink > 0.0 && back[0] != 0.0);
                }
            });
        }
    }
}
