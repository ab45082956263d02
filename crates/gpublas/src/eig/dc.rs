//! Stage 3 with vectors on the device: Cuppen's divide and conquer for the real symmetric
//! tridiagonal (`d`, `e`), as a program of the executor over reals (`kernels/eig_dc.cu`; the
//! host backend runs the same algorithm here, step for step).
//!
//! - `DcInit`: the tridiagonal scaled by its largest magnitude (LAPACK's `dstedc`), and torn at
//!   every point `m` with `(m + 1) % leaf == 0`: `d[m]` and `d[m + 1]` lose `|e[m]|` (`leaf(n)`
//!   at most `LEAF`, so that the tree of halvings is balanced).
//! - `DcLeaves`: each leaf by implicit QL with Wilkinson shifts, its eigenvalues ascending into
//!   `d`, its vectors into its block.
//! - Per level, child size `L = leaf, 2 leaf, …` below `n`: the merges at `s = 2L i` of the
//!   children `[s, s + L)` and `[s + L, s + L + n2)` (`n2 = min(L, n − s − L)`; a block with no
//!   partner is carried, copied). `DcMerge` forms, per merge, `z` (the last row of `Q1`, the
//!   first of `Q2`), merges the children's sorted eigenvalues, deflates (LAPACK's `dlaed2`:
//!   small `z`, and close pairs by a rotation), solves the secular equation per root (origin at
//!   the nearer pole, bisection over the bits of the offset), recomputes `z` (Gu–Eisenstat) and
//!   writes the merge's eigenvector matrix `U` (the rotations folded in; columns in ascending
//!   order of the eigenvalues) and the merged eigenvalues to `d`. Two products per merge,
//!   `Z'[top] = Q1 U[top]`, `Z'[bottom] = Q2 U[bottom]` (the level's full merges as one
//!   batched product each).
//!
//! Blocks are stored compact: a level whose blocks have `b` rows keeps the block of rows
//! `[s, s + b)` at `s · b` with leading dimension `b` (`b = min(2L, n)` for a level's output
//! and `U`), so a level takes `n · b` elements: the top level's output is `Z` itself, the
//! levels alternate between `Z` and a second buffer of `≈ n²/2`. The top merge's `U` is split:
//! its first `L` rows in the `U` buffer (`≈ n²/2`, as the level below needs), the others in the
//! first rows of `Z` (free until its products), whose bottom product runs first.
//! - `DcFinish`: the eigenvalues unscaled into `W`, `info` (`n + 1` when the tridiagonal was
//!   not finite: NaN values and vectors; 1 when a leaf did not converge), and for complex calls
//!   `Z` widened into the complex eigenvector matrix.
//!
//! Deflation keeps every merge's products full size (no compression): the programs are fixed
//! by `n` alone, and the device never waits for the host.

use super::family::EigStep;
use crate::exec::program::{at, mat, Step, M};

/// The largest leaf (`DC_LEAF` in eig_dc.cu).
pub(crate) const LEAF: usize = 32;

/// The leaf size of an order-`n` tridiagonal: `⌈n / 2^j⌉` for the fewest levels `j` that
/// bring it to `LEAF` or below (the top merge's children then differ by less than `2^j`).
pub(crate) fn leaf(n: usize) -> usize {
    let mut j = 0;
    while LEAF << j < n {
        j += 1;
    }
    n.div_ceil(1 << j).max(1)
}

/// The child sizes of the merge levels, bottom up.
pub(crate) fn child_sizes(n: usize) -> Vec<usize> {
    let mut v = Vec::new();
    let mut l = leaf(n);
    while l < n {
        v.push(l);
        l *= 2;
    }
    v
}

/// Elements of the second buffer and of `U` (`dc::build`'s `y` and `u`).
pub(crate) fn buffers(n: usize) -> (usize, usize) {
    let sizes = child_sizes(n);
    // (the outputs from the top down alternate between Z and the second buffer)
    let mut outs: Vec<usize> = std::iter::once(leaf(n))
        .chain(sizes.iter().map(|&l| (2 * l).min(n)))
        .collect();
    outs.reverse();
    let y = outs.iter().skip(1).step_by(2).max().copied().unwrap_or(0) * n;
    // (below the top, a level's U; at the top its first L rows)
    let top = sizes.len().saturating_sub(1);
    let u = sizes
        .iter()
        .enumerate()
        .map(|(i, &l)| if i == top { l * n } else { (2 * l).min(n) * n })
        .max()
        .unwrap_or(0);
    (y, u)
}

/// Bytes of the scratch the kernels keep per tridiagonal of order `n` (reals of `real`
/// bytes): `DC_REALS` arrays of `n` reals and the scale, then `DC_INTS` arrays of `n` i32 and
/// two flags.
pub(crate) fn scratch_bytes(n: usize, real: usize) -> usize {
    ((DC_REALS * n + 1) * real).div_ceil(8) * 8 + (DC_INTS * n + 2) * 4
}

/// Real arrays of the scratch (mirrors `eig_dc.cu`).
pub(crate) const DC_REALS: usize = 10;
/// Integer arrays of the scratch.
pub(crate) const DC_INTS: usize = 8;

/// The stage-3 program over reals: the tridiagonal in the family's `d`, `e`, its eigenvectors
/// into `z` (`n × n`, leading dimension `n`); `y` and `u` (`buffers(n)` elements) the second
/// buffer and the merges' `U`; with `widen`, `Z` is widened at the end into the complex matrix
/// at `widen` (elements of the complex type). `z`, `y`, `u` and `widen` do not overlap.
pub(crate) fn build(n: usize, z: M, y: M, u: M, widen: Option<M>) -> Vec<Step<EigStep>> {
    let sizes = child_sizes(n);
    let lf = leaf(n);
    // Compact blocks: rows [s, s + b) at s · b, leading dimension b.
    let blk = |x: M, b: usize, s: usize| mat(x.sp, x.off + s * b, b, 0);
    // (the leaves start where the last level leaves the result in `z`)
    let (mut cur, mut other) = if sizes.len() % 2 == 0 { (z, y) } else { (y, z) };
    let mut v = vec![
        Step::Family(EigStep::DcInit { n }),
        Step::Family(EigStep::DcLeaves {
            n,
            leaf: lf,
            z: blk(cur, lf, 0),
        }),
    ];
    for (i, &l) in sizes.iter().enumerate() {
        let b = (2 * l).min(n);
        if i + 1 == sizes.len() {
            // The top merge (the whole matrix): U's rows from L on in Z's first rows, the
            // bottom product first.
            let n2 = n - l;
            let (top, bottom) = (mat(u.sp, u.off, l, 0), mat(z.sp, z.off, n, 0));
            v.push(Step::Family(EigStep::DcMerge {
                n,
                half: l,
                z: blk(cur, l, 0),
                u: top,
                u_bottom: Some(bottom),
            }));
            for (rows, a, bm, c) in [
                (n2, blk(cur, l, l), bottom, at(z, l, 0)),
                (l, blk(cur, l, 0), top, z),
            ] {
                v.push(Step::Gemm {
                    ta: crate::Op::N,
                    tb: crate::Op::N,
                    m: rows,
                    n,
                    k: rows,
                    alpha: crate::exec::program::K::One,
                    a,
                    b: bm,
                    beta: crate::exec::program::K::Zero,
                    c,
                    count: 1,
                });
            }
            cur = z;
            break;
        }
        v.push(Step::Family(EigStep::DcMerge {
            n,
            half: l,
            z: blk(cur, l, 0),
            u: blk(u, b, 0),
            u_bottom: None,
        }));
        let full = n / (2 * l);
        let batched = |x: M, stride: usize| mat(x.sp, x.off, x.ld, stride);
        let gemm = |m: usize, k: usize, cols: usize, a: M, bm: M, c: M, count: usize| Step::Gemm {
            ta: crate::Op::N,
            tb: crate::Op::N,
            m,
            n: cols,
            k,
            alpha: crate::exec::program::K::One,
            a,
            b: bm,
            beta: crate::exec::program::K::Zero,
            c,
            count,
        };
        if full > 0 {
            // Q1 U[top], Q2 U[bottom] of every full merge: children 2L·L apart, U and the
            // output (2L)² apart.
            for r in [0, l] {
                v.push(gemm(
                    l,
                    l,
                    b,
                    batched(blk(cur, l, r), 2 * l * l),
                    batched(at(blk(u, b, 0), r, 0), b * b),
                    batched(at(blk(other, b, 0), r, 0), b * b),
                    full,
                ));
            }
        }
        let s = full * 2 * l;
        let rest = n - s;
        if rest > l {
            let n2 = rest - l;
            for (r, rows) in [(0, l), (l, n2)] {
                v.push(gemm(
                    rows,
                    rows,
                    rest,
                    blk(cur, l, s + r),
                    at(blk(u, b, s), r, 0),
                    at(blk(other, b, s), r, 0),
                    1,
                ));
            }
        } else if rest > 0 {
            v.push(Step::Copy {
                m: rest,
                n: rest,
                src: blk(cur, l, s),
                dst: blk(other, b, s),
            });
        }
        std::mem::swap(&mut cur, &mut other);
    }
    debug_assert_eq!(cur, z);
    v.push(Step::Family(EigStep::DcFinish { n, z, widen }));
    v
}

/// The reals the host algorithm runs in (the device's float and double).
pub(crate) trait DcReal: crate::RealScalar {
    const EPS: Self;
    fn hypot(self, o: Self) -> Self;
    fn copysign(self, s: Self) -> Self;
    fn finite(self) -> bool;
    /// The bits of a non-negative value, ordered as the values.
    fn bits(self) -> u64;
    fn from_bits(b: u64) -> Self;
    fn max(self, o: Self) -> Self;
}

macro_rules! dc_real {
    ($t:ty, $u:ty, $eps:expr) => {
        impl DcReal for $t {
            const EPS: Self = $eps;
            fn hypot(self, o: Self) -> Self {
                <$t>::hypot(self, o)
            }
            fn copysign(self, s: Self) -> Self {
                <$t>::copysign(self, s)
            }
            fn finite(self) -> bool {
                self.is_finite()
            }
            fn bits(self) -> u64 {
                self.to_bits() as u64
            }
            fn from_bits(b: u64) -> Self {
                <$t>::from_bits(b as $u)
            }
            fn max(self, o: Self) -> Self {
                <$t>::max(self, o)
            }
        }
    };
}
dc_real!(f32, u32, f32::EPSILON / 2.0);
dc_real!(f64, u64, f64::EPSILON / 2.0);

/// The host's state between the steps (the device keeps it in the scratch).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct DcState {
    /// The scale `DcInit` divided the tridiagonal by.
    pub tnorm: f64,
    pub finite: bool,
    pub failed: bool,
}

fn two<R: DcReal>() -> R {
    R::one() + R::one()
}

/// `DcInit` on the host: scales (`d`, `e`) by their largest magnitude and tears them.
pub(crate) fn init<R: DcReal>(d: &mut [R], e: &mut [R]) -> DcState {
    let n = d.len();
    let e = &mut e[..n.saturating_sub(1)];
    let mut finite = true;
    let mut m = R::zero();
    for &x in d.iter().chain(e.iter()) {
        finite &= x.finite();
        m = m.max(x.abs());
    }
    if m <= R::zero() || !finite {
        m = R::one();
    }
    for x in d.iter_mut().chain(e.iter_mut()) {
        *x = *x / m;
    }
    let lf = leaf(n);
    for t in (lf - 1..n.saturating_sub(1)).step_by(lf) {
        let a = e[t].abs();
        d[t] = d[t] - a;
        d[t + 1] = d[t + 1] - a;
    }
    DcState {
        tnorm: m.to_f64(),
        finite,
        failed: false,
    }
}

/// The eigenvalues (ascending, into `d`) and eigenvectors (`z`, `len × len`, leading dimension
/// `ldz`, overwritten) of the tridiagonal (`d`, `e`, `e` of `len − 1`) by implicit QL with
/// Wilkinson shifts; false when an eigenvalue took more than 30 iterations.
pub(crate) fn tql<R: DcReal>(d: &mut [R], e_in: &[R], z: &mut [R], ldz: usize) -> bool {
    let n = d.len();
    let mut e = vec![R::zero(); n];
    e[..n.saturating_sub(1)].copy_from_slice(&e_in[..n.saturating_sub(1)]);
    for j in 0..n {
        for i in 0..n {
            z[i + j * ldz] = if i == j { R::one() } else { R::zero() };
        }
    }
    let mut ok = true;
    for l in 0..n {
        let mut iter = 0;
        loop {
            let mut m = l;
            while m + 1 < n {
                let dd = d[m].abs() + d[m + 1].abs();
                if e[m].abs() <= R::EPS * dd {
                    break;
                }
                m += 1;
            }
            if m == l {
                break;
            }
            if iter == 30 {
                ok = false;
                break;
            }
            iter += 1;
            let mut g = (d[l + 1] - d[l]) / (two::<R>() * e[l]);
            let mut r = g.hypot(R::one());
            g = d[m] - d[l] + e[l] / (g + r.copysign(g));
            let (mut s, mut c, mut p) = (R::one(), R::one(), R::zero());
            let mut underflow = false;
            let mut i = m;
            while i > l {
                i -= 1;
                let f = s * e[i];
                let b = c * e[i];
                r = f.hypot(g);
                e[i + 1] = r;
                if r == R::zero() {
                    d[i + 1] = d[i + 1] - p;
                    e[m] = R::zero();
                    underflow = true;
                    break;
                }
                s = f / r;
                c = g / r;
                g = d[i + 1] - p;
                r = (d[i] - g) * s + two::<R>() * c * b;
                p = s * r;
                d[i + 1] = g + p;
                g = c * r - b;
                for k in 0..n {
                    let f = z[k + (i + 1) * ldz];
                    let zi = z[k + i * ldz];
                    z[k + (i + 1) * ldz] = s * zi + c * f;
                    z[k + i * ldz] = c * zi - s * f;
                }
            }
            if underflow {
                continue;
            }
            d[l] = d[l] - p;
            e[l] = g;
            e[m] = R::zero();
        }
    }
    // Ascending, ties in index order, the columns with them.
    let rank = ranks(d);
    let (d0, z0): (Vec<R>, Vec<R>) = (
        d.to_vec(),
        (0..n * n).map(|x| z[x % n + x / n * ldz]).collect(),
    );
    for j in 0..n {
        d[rank[j]] = d0[j];
        for i in 0..n {
            z[i + rank[j] * ldz] = z0[i + j * n];
        }
    }
    ok
}

/// Each value's place in ascending order, ties in index order (NaN compares as not below).
fn ranks<R: DcReal>(v: &[R]) -> Vec<usize> {
    (0..v.len())
        .map(|j| {
            (0..v.len())
                .filter(|&i| {
                    v[i] < v[j] || (v[i] == v[j] && i < j) || (v[j].to_f64().is_nan() && i < j)
                })
                .count()
        })
        .collect()
}

/// `DcLeaves` on the host: every leaf (`lf` rows) of the order-`n` tridiagonal into `d` and
/// its compact block of `z` (rows `[s, s + lf)` at `s · lf`, leading dimension `lf`); false
/// when a leaf did not converge.
pub(crate) fn leaves<R: DcReal>(d: &mut [R], e: &[R], z: &mut [R], lf: usize) -> bool {
    let n = d.len();
    let mut ok = true;
    for s in (0..n).step_by(lf) {
        let len = lf.min(n - s);
        let ee: Vec<R> = e[s..s + len - 1].to_vec();
        ok &= tql(&mut d[s..s + len], &ee, &mut z[s * lf..], lf);
    }
    ok
}

/// `DcMerge` on the host: every merge of the level with children of `half` (compact at `z`,
/// `U` compact at `u`, or split with `u_bottom`: `dc::build` says how; all in `space`), the
/// couplings in `e`.
pub(crate) fn merge_level<R: DcReal>(
    space: &mut [R],
    d: &mut [R],
    e: &[R],
    half: usize,
    (z, u, u_bottom): (M, M, Option<M>),
) {
    let n = d.len();
    for s in (0..n).step_by(2 * half) {
        if n - s <= half {
            continue;
        }
        let len = (2 * half).min(n - s);
        let q = (z.off + s * half, z.off + (s + half) * half);
        let out = match u_bottom {
            Some(b) => (u.off, u.ld, half, b.off, b.ld),
            None => (u.off + s * u.ld, u.ld, len, 0, 0),
        };
        merge(space, q, out, &mut d[s..s + len], half, e[s + half - 1]);
    }
}

/// One merge's deflation (LAPACK's `dlaed2`): the sorted non-deflated values, their `z` and
/// columns, the deflated values and columns, the rotations `(a, b, c, s)` in order.
#[derive(Debug, Default)]
pub(crate) struct Deflated<R> {
    pub dl: Vec<R>,
    pub w: Vec<R>,
    pub col: Vec<usize>,
    pub dval: Vec<R>,
    pub dcol: Vec<usize>,
    pub rot: Vec<(usize, usize, R, R)>,
}

/// Deflation of `D + rho z zᵀ` (`d` the children's values, each child ascending: `[0, n1)`
/// and `[n1, len)`).
pub(crate) fn deflate<R: DcReal>(d: &[R], z: &[R], n1: usize, rho: R) -> Deflated<R> {
    let len = d.len();
    // Merged order: a top value goes before bottom values not below it.
    let mut order = vec![0usize; len];
    for t in 0..len {
        let pos = if t < n1 {
            t + d[n1..].iter().filter(|&&x| x < d[t]).count()
        } else {
            (t - n1) + d[..n1].iter().filter(|&&x| x <= d[t]).count()
        };
        order[pos] = t;
    }
    let mut dmax = R::zero();
    let mut zmax = R::zero();
    for t in 0..len {
        dmax = dmax.max(d[t].abs());
        zmax = zmax.max(z[t].abs());
    }
    let tol = R::from_f64(8.0) * R::EPS * dmax.max(zmax);
    let (mut dv, mut zv) = (d.to_vec(), z.to_vec());
    let mut out = Deflated {
        dl: Vec::new(),
        w: Vec::new(),
        col: Vec::new(),
        dval: Vec::new(),
        dcol: Vec::new(),
        rot: Vec::new(),
    };
    let mut pj: Option<usize> = None;
    for &j in &order {
        if rho * zv[j].abs() <= tol {
            out.dval.push(dv[j]);
            out.dcol.push(j);
            continue;
        }
        let Some(p) = pj else {
            pj = Some(j);
            continue;
        };
        let s0 = zv[p];
        let c0 = zv[j];
        let tau = c0.hypot(s0);
        let t = dv[j] - dv[p];
        let c = c0 / tau;
        let s = R::zero() - s0 / tau;
        if (t * c * s).abs() <= tol {
            zv[j] = tau;
            zv[p] = R::zero();
            out.rot.push((p, j, c, s));
            let tp = dv[p] * c * c + dv[j] * s * s;
            dv[j] = dv[p] * s * s + dv[j] * c * c;
            out.dval.push(tp);
            out.dcol.push(p);
        } else {
            out.dl.push(dv[p]);
            out.w.push(zv[p]);
            out.col.push(p);
        }
        pj = Some(j);
    }
    if let Some(p) = pj {
        out.dl.push(dv[p]);
        out.w.push(zv[p]);
        out.col.push(p);
    }
    out
}

/// Root `j` of `1 + rho Σ w_i² / (dl_i − λ) = 0` (`dl` ascending, `rho > 0`) as `(o, tau)`:
/// `λ = dl[o] + tau`, `o` the nearer pole, `tau` by bisection over its bits (to adjacent
/// values).
pub(crate) fn secular<R: DcReal>(dl: &[R], w: &[R], rho: R, j: usize) -> (usize, R) {
    let k = dl.len();
    let f = |o: usize, tau: R| {
        let mut s = R::zero();
        for i in 0..k {
            s = s + w[i] * w[i] / ((dl[i] - dl[o]) - tau);
        }
        R::one() + rho * s
    };
    let (o, sgn, tmax) = if j + 1 < k {
        let mid = (dl[j + 1] - dl[j]) / two::<R>();
        if f(j, mid) >= R::zero() {
            (j, R::one(), mid)
        } else {
            (j + 1, R::zero() - R::one(), dl[j + 1] - dl[j] - mid)
        }
    } else {
        let mut s = R::zero();
        for &x in w {
            s = s + x * x;
        }
        (
            j,
            R::one(),
            rho * s * (R::one() + R::from_f64(4.0) * R::EPS),
        )
    };
    // g(t) = sgn f(dl[o] + sgn t): below zero at the pole side, not below at tmax.
    let (mut lo, mut hi) = (0u64, tmax.bits());
    while hi > lo + 1 {
        let mid = lo + (hi - lo) / 2;
        let t = R::from_bits(mid);
        let g = sgn * f(o, sgn * t);
        if g < R::zero() {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (o, sgn * R::from_bits(hi))
}

/// One merge on the host: `z`'s rows from the children `Q1` at `q1` and `Q2` at `q2` (leading
/// dimension `n1` both), the children's values `d` (`len`), `rho_raw` the coupling `e[m]`;
/// writes the merge's `U` (rows below `split` at `u1` with leading dimension `ld1`, the others
/// at `u2`, `ld2`) and the merged values to `d`.
pub(crate) fn merge<R: DcReal>(
    space: &mut [R],
    (q1, q2): (usize, usize),
    (u1, ld1, split, u2, ld2): (usize, usize, usize, usize, usize),
    d: &mut [R],
    n1: usize,
    rho_raw: R,
) {
    let len = d.len();
    let half = R::one() / two::<R>().sqrt();
    let neg = rho_raw < R::zero();
    let z: Vec<R> = (0..len)
        .map(|t| {
            let v = if t < n1 {
                space[q1 + (n1 - 1) + t * n1]
            } else {
                let x = space[q2 + (t - n1) * n1];
                if neg {
                    R::zero() - x
                } else {
                    x
                }
            };
            v * half
        })
        .collect();
    let rho = two::<R>() * rho_raw.abs();
    let df = deflate(d, &z, n1, rho);
    let k = df.dl.len();
    let roots: Vec<(usize, R)> = (0..k).map(|j| secular(&df.dl, &df.w, rho, j)).collect();
    // Gu–Eisenstat: the z for which the computed roots are exact.
    let what: Vec<R> = (0..k)
        .map(|i| {
            let lam = |j: usize| (df.dl[roots[j].0] - df.dl[i]) + roots[j].1;
            let mut p = lam(i);
            for j in 0..k {
                if j != i {
                    p = p * (lam(j) / (df.dl[j] - df.dl[i]));
                }
            }
            (p.abs() / rho).sqrt().copysign(df.w[i])
        })
        .collect();
    // The values of the merge's output columns: roots, then deflated.
    let vals: Vec<R> = roots
        .iter()
        .map(|&(o, t)| df.dl[o] + t)
        .chain(df.dval.iter().copied())
        .collect();
    let rank = ranks(&vals);
    for (t, &r) in rank.iter().enumerate() {
        let mut col = vec![R::zero(); len];
        if t < k {
            let (o, tau) = roots[t];
            let u: Vec<R> = (0..k)
                .map(|i| what[i] / ((df.dl[i] - df.dl[o]) - tau))
                .collect();
            let nrm = u.iter().fold(R::zero(), |a, &x| a + x * x).sqrt();
            for i in 0..k {
                col[df.col[i]] = u[i] / nrm;
            }
        } else {
            col[df.dcol[t - k]] = R::one();
        }
        for &(a, b, c, s) in df.rot.iter().rev() {
            let (xa, xb) = (col[a], col[b]);
            col[a] = c * xa - s * xb;
            col[b] = s * xa + c * xb;
        }
        space[u1 + r * ld1..][..split].copy_from_slice(&col[..split]);
        if split < len {
            space[u2 + r * ld2..][..len - split].copy_from_slice(&col[split..]);
        }
        d[r] = vals[t];
    }
}

#[cfg(test)]
mod tests {
    //! The host algorithm against its definition in f64 loops: `T Z = Z Λ`, `ZᵀZ = I`, `Λ`
    //! ascending with the tridiagonal's trace, on spectra that deflate (repeated, clustered,
    //! zero couplings) and ones that do not.

    use super::*;
    use crate::exec::program::Space;

    /// Runs the whole program's algorithm on the host (the products as plain loops).
    fn solve(d0: &[f64], e0: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let n = d0.len();
        let (mut d, mut e) = (d0.to_vec(), e0.to_vec());
        e.push(0.0);
        let st = init(&mut d, &mut e);
        let (ny, nu) = buffers(n);
        let mut space = vec![f64::NAN; n * n + ny + nu];
        let (z, y, u) = (
            mat(Space::R, 0, n, 0),
            mat(Space::R, n * n, n, 0),
            mat(Space::R, n * n + ny, n, 0),
        );
        let steps = build(n, z, y, u, None);
        for st in &steps {
            match *st {
                Step::Family(EigStep::DcInit { .. }) => {}
                Step::Family(EigStep::DcLeaves { leaf, z, .. }) => {
                    assert!(leaves(&mut d, &e, &mut space[z.off..], leaf));
                }
                Step::Family(EigStep::DcMerge {
                    half,
                    z,
                    u,
                    u_bottom,
                    ..
                }) => {
                    merge_level(&mut space, &mut d, &e, half, (z, u, u_bottom));
                }
                Step::Gemm {
                    m,
                    n: nn,
                    k,
                    a,
                    b,
                    c,
                    count,
                    ..
                } => {
                    for q in 0..count {
                        for j in 0..nn {
                            for i in 0..m {
                                let mut acc = 0.0;
                                for l in 0..k {
                                    acc += space[a.off + q * a.bs + i + l * a.ld]
                                        * space[b.off + q * b.bs + l + j * b.ld];
                                }
                                space[c.off + q * c.bs + i + j * c.ld] = acc;
                            }
                        }
                    }
                }
                Step::Copy { m, n: nn, src, dst } => {
                    for j in 0..nn {
                        for i in 0..m {
                            space[dst.off + i + j * dst.ld] = space[src.off + i + j * src.ld];
                        }
                    }
                }
                Step::Family(EigStep::DcFinish { .. }) => {}
                ref other => panic!("unexpected step {other:?}"),
            }
        }
        let w = d.iter().map(|x| x * st.tnorm).collect();
        (w, space[..n * n].to_vec())
    }

    fn check(d: &[f64], e: &[f64], what: &str) {
        let n = d.len();
        let (w, z) = solve(d, e);
        let tn = d
            .iter()
            .chain(e)
            .fold(0f64, |a, x| a.max(x.abs()))
            .max(1e-300);
        let eps = f64::EPSILON;
        assert!(w.windows(2).all(|p| p[0] <= p[1]), "{what}: not ascending");
        let tr: f64 = d.iter().sum();
        let sw: f64 = w.iter().sum();
        assert!(
            (tr - sw).abs() < 30.0 * n as f64 * eps * tn,
            "{what}: trace"
        );
        let mut res = 0f64;
        let mut orth = 0f64;
        for j in 0..n {
            for i in 0..n {
                let mut tz = d[i] * z[i + j * n];
                if i > 0 {
                    tz += e[i - 1] * z[i - 1 + j * n];
                }
                if i + 1 < n {
                    tz += e[i] * z[i + 1 + j * n];
                }
                res = res.max((tz - w[j] * z[i + j * n]).abs());
            }
            for l in 0..n {
                let dot: f64 = (0..n).map(|i| z[i + j * n] * z[i + l * n]).sum();
                orth = orth.max((dot - if j == l { 1.0 } else { 0.0 }).abs());
            }
        }
        let (res, orth) = (res / (tn * n as f64 * eps), orth / (n as f64 * eps));
        assert!(
            res < 30.0 && orth < 30.0,
            "{what}: res {res:.2} orth {orth:.2}"
        );
    }

    struct Lcg(u64);
    impl Lcg {
        fn uni(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        }
    }

    #[test]
    fn f1_dc_tridiagonal_host() {
        for &n in &[
            1usize, 2, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 200, 257, 513,
        ] {
            // (513: a level carries a block without a partner)
            let mut r = Lcg(n as u64);
            let d: Vec<f64> = (0..n).map(|_| r.uni()).collect();
            let e: Vec<f64> = (0..n.saturating_sub(1)).map(|_| r.uni()).collect();
            check(&d, &e, &format!("random n = {n}"));
            if n > 300 {
                // (the carried block; one kind keeps the debug build's time down)
                continue;
            }
            // Constant diagonal and off-diagonal (close eigenvalues, deflation by rotations).
            check(
                &vec![2.0; n],
                &vec![1.0; n.saturating_sub(1)],
                &format!("toeplitz {n}"),
            );
            // Repeated values: zero couplings (every z deflates), a diagonal.
            let d2: Vec<f64> = (0..n).map(|i| (i % 3) as f64).collect();
            check(
                &d2,
                &vec![0.0; n.saturating_sub(1)],
                &format!("diagonal {n}"),
            );
            // Wilkinson-like: pairs of nearly equal eigenvalues.
            let m = (n as f64 - 1.0) / 2.0;
            let d3: Vec<f64> = (0..n).map(|i| (i as f64 - m).abs()).collect();
            check(
                &d3,
                &vec![1.0; n.saturating_sub(1)],
                &format!("wilkinson {n}"),
            );
            // Widely spread magnitudes and a zero matrix.
            let d4: Vec<f64> = (0..n).map(|i| 10f64.powi((i % 30) as i32 - 15)).collect();
            let e4: Vec<f64> = (0..n.saturating_sub(1)).map(|i| d4[i] * 1e-3).collect();
            check(&d4, &e4, &format!("graded {n}"));
            check(
                &vec![0.0; n],
                &vec![0.0; n.saturating_sub(1)],
                &format!("zero {n}"),
            );
        }
    }
}
