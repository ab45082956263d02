//! The host backend of the eigensolvers: `syevd` per entry with faer's self-adjoint
//! eigendecomposition, `syevj` with the cyclic Jacobi algorithm of the CUDA kernel
//! (`kernels/eig.cu`) step for step in plain loops, so that residuals, sweeps and `info` mean
//! the same on both backends.

use super::plan::padded_order;
use super::{Call, Kind};
use crate::common::faer_host::{cast_err, par_for};
use crate::common::host::{not_host, with_faer_type, PAR_MIN_FLOPS};
use crate::common::operand::Results;
use crate::device::Element;
use crate::{Error, Esort, Evect, Handle, RealScalar, Scalar, Uplo};

/// One entry's results.
struct Out<R> {
    w: Vec<R>,
    info: i32,
    sweeps: i32,
    residual: R,
}

/// Runs every entry of `c`, then writes `W` and the per-entry results.
pub(super) fn run<T: Scalar>(h: &Handle, c: &mut Call<'_, '_, T>) -> Result<(), Error> {
    let (batch, n, lda) = (c.a.count(), c.n, c.lda);
    let spec = Spec {
        kind: c.kind,
        vectors: c.evect == Evect::Original,
        sort: c.sort == Esort::Ascending,
        uplo: c.uplo,
        n,
        lda,
        tol: c.jacobi.as_ref().map(|j| j.abstol),
        max_sweeps: c.jacobi.as_ref().map_or(0, |j| j.max_sweeps),
    };
    let par = h.host_par.clone();
    let _threads = par.enter();
    // Entries small enough that faer would run each on one thread go over the threads
    // instead (each entry's arithmetic is the same on any thread: the same bits).
    let flops = n.saturating_mul(n).saturating_mul(n);
    let spread = batch > 1 && (c.kind == Kind::Syevj || flops < PAR_MIN_FLOPS);
    let entries = if spread {
        c.a.host_entries_mut().filter(|v| v.len() == batch)
    } else {
        None
    };
    let outs: Vec<Out<T::Real>> = match entries {
        Some(entries) => par
            .map_items(entries, |a| one(&spec, a))
            .into_iter()
            .collect::<Result<_, _>>()?,
        None => (0..batch)
            .map(|e| one(&spec, c.a.host_entry_mut(e).ok_or_else(not_host)?))
            .collect::<Result<_, _>>()?,
    };
    let w = c.w.host_slice_mut().ok_or_else(not_host)?;
    for (e, o) in outs.iter().enumerate() {
        w[e * c.stride_w..e * c.stride_w + n].copy_from_slice(&o.w);
    }
    put(&mut c.info, outs.iter().map(|o| o.info))?;
    if let Some(j) = c.jacobi.as_mut() {
        put(&mut j.sweeps, outs.iter().map(|o| o.sweeps))?;
        put(&mut j.residual, outs.iter().map(|o| o.residual))?;
    }
    Ok(())
}

/// Writes one result per entry.
fn put<R: Element>(r: &mut Results<'_, R>, vals: impl Iterator<Item = R>) -> Result<(), Error> {
    let dst = match r {
        Results::Host(s) => Some(&mut **s),
        Results::Device(b) => b.host_slice_mut(),
    }
    .ok_or_else(not_host)?;
    for (d, v) in dst.iter_mut().zip(vals) {
        *d = v;
    }
    Ok(())
}

/// What every entry of a call shares.
struct Spec<R> {
    kind: Kind,
    vectors: bool,
    sort: bool,
    uplo: Uplo,
    n: usize,
    lda: usize,
    tol: Option<R>,
    max_sweeps: usize,
}

/// The two-stage `syevd`'s scale factor for a largest magnitude `amax` (`eig_scale`): 1
/// within `[lo, hi]` (and for 0 or non-finite), else `2^−exponent(amax)`.
pub(super) fn scale_factor<R: RealScalar>(amax: f64) -> f64 {
    let l = limits::<R>();
    if amax.is_nan()
        || amax <= 0.0
        || amax.is_infinite()
        || (l.lo.to_f64()..=l.hi.to_f64()).contains(&amax)
    {
        return 1.0;
    }
    2f64.powi(-exponent(R::from_f64(amax)))
}

/// The eigenvalues of the tridiagonal (`d`, `e`) by bisection from `eig_bisect`'s Gershgorin
/// interval with its Sturm counts (the kernel splits an interval at eight points a step, this
/// halves it: both stop at adjacent values), divided by `sigma`; `info` `n + 1` and NaN values
/// when `d` or `e` is not finite.
pub(super) fn bisect<R: RealScalar>(d: &[R], e: &[R], sigma: f64, iters: i32) -> (Vec<R>, i32) {
    let n = d.len();
    let l = limits::<R>();
    let finite = d.iter().chain(e).all(|x| x.to_f64().is_finite());
    if !finite {
        return (
            vec![nan::<R>(); n],
            i32::try_from(n + 1).unwrap_or(i32::MAX),
        );
    }
    let ab = |x: R| if x < R::zero() { R::zero() - x } else { x };
    let (mut lo0, mut hi0, mut e2max) = (d[0], d[0], R::zero());
    for i in 0..n {
        let el = if i > 0 { ab(e[i - 1]) } else { R::zero() };
        let er = if i + 1 < n { ab(e[i]) } else { R::zero() };
        let (a, b) = (d[i] - el - er, d[i] + el + er);
        lo0 = if a < lo0 { a } else { lo0 };
        hi0 = if b > hi0 { b } else { hi0 };
        e2max = if er * er > e2max { er * er } else { e2max };
    }
    let tiny = R::from_f64(if std::mem::size_of::<R>() == 4 {
        2f64.powi(-126)
    } else {
        2f64.powi(-1022)
    });
    let pivmin = tiny * if e2max > R::one() { e2max } else { R::one() };
    let big = if ab(lo0) > ab(hi0) { ab(lo0) } else { ab(hi0) };
    let width = hi0 - lo0;
    let span = if width > big * l.eps {
        width
    } else {
        big * l.eps
    };
    let pad = span * l.eps * R::from_f64(4.0) + pivmin;
    let (lo0, hi0) = (lo0 - pad, hi0 + pad);
    let two = R::from_f64(2.0);
    let w = (0..n)
        .map(|k| {
            let (mut lo, mut hi) = (lo0, hi0);
            for _ in 0..iters {
                let x = lo + (hi - lo) / two;
                if x == lo || x == hi {
                    break;
                }
                let mut cnt = 0;
                let mut q = d[0] - x;
                if ab(q) <= pivmin {
                    q = R::zero() - pivmin;
                }
                cnt += usize::from(q < R::zero());
                for i in 1..n {
                    q = d[i] - x - e[i - 1] * e[i - 1] / q;
                    if ab(q) <= pivmin {
                        q = R::zero() - pivmin;
                    }
                    cnt += usize::from(q < R::zero());
                }
                if cnt > k {
                    hi = x;
                } else {
                    lo = x;
                }
            }
            R::from_f64((lo + (hi - lo) / two).to_f64() / sigma)
        })
        .collect();
    (w, 0)
}

/// A NaN of the real type.
fn nan<R: RealScalar>() -> R {
    R::from_f64(f64::NAN)
}

/// One entry (its slice starts at the matrix's first element).
fn one<T: Scalar>(s: &Spec<T::Real>, a: &mut [T]) -> Result<Out<T::Real>, Error> {
    let n = s.n;
    // The Hermitian matrix from the stored triangle, the diagonal real; a NaN or infinity
    // there stops the entry before any iteration.
    let mut full = vec![T::zero(); n * n];
    let mut finite = true;
    for j in 0..n {
        for i in 0..n {
            let stored = match s.uplo {
                Uplo::Lower => i >= j,
                Uplo::Upper => i <= j,
            };
            if !stored {
                continue;
            }
            let mut v = a[i + j * s.lda];
            if i == j {
                v = T::from_real(v.re());
            }
            let (re, im) = v.parts();
            finite &= re.is_finite() && im.is_finite();
            full[i + j * n] = v;
            full[j + i * n] = v.conj();
        }
    }
    if !finite {
        let nan_t = {
            let r = nan::<T::Real>();
            join::<T>(r, r)
        };
        if s.vectors {
            for j in 0..n {
                a[j * s.lda..j * s.lda + n].fill(nan_t);
            }
        }
        let info = match s.kind {
            Kind::Syevd => i32::try_from(n + 1).unwrap_or(i32::MAX),
            Kind::Syevj => 1,
        };
        return Ok(Out {
            w: vec![nan(); n],
            info,
            sweeps: 0,
            residual: nan(),
        });
    }
    let (values, vectors, info, sweeps, residual) = match s.kind {
        Kind::Syevd => {
            let (w, v, info) = faer_evd(&full, n, s.vectors)?;
            (w, v, info, 0, T::Real::zero())
        }
        Kind::Syevj => {
            let j = jacobi(&mut full, n, s.tol.unwrap_or(T::Real::zero()), s.max_sweeps);
            (j.w, full, j.info, j.sweeps, j.residual)
        }
    };
    // Ranks: ascending, ties in index order (the kernel's rule).
    let rank: Vec<usize> = (0..n)
        .map(|i| {
            if !s.sort {
                return i;
            }
            (0..n)
                .filter(|&k| values[k] < values[i] || (values[k] == values[i] && k < i))
                .count()
        })
        .collect();
    let mut w = vec![T::Real::zero(); n];
    for i in 0..n {
        w[rank[i]] = values[i];
    }
    if s.vectors {
        for (c, &r) in rank.iter().enumerate() {
            a[r * s.lda..r * s.lda + n].copy_from_slice(&vectors[c * n..c * n + n]);
        }
    }
    Ok(Out {
        w,
        info,
        sweeps,
        residual,
    })
}

/// faer's eigendecomposition of the full Hermitian `n × n` matrix `m` (its lower triangle
/// read): eigenvalues (faer's order), the eigenvectors (`n × n`, column-major; empty without
/// vectors) and `info` (1 when faer's iteration did not converge).
#[allow(clippy::type_complexity)]
fn faer_evd<T: Scalar>(
    m: &[T],
    n: usize,
    vectors: bool,
) -> Result<(Vec<T::Real>, Vec<T>, i32), Error> {
    let mut s = vec![T::zero(); n];
    let mut u = vec![T::zero(); if vectors { n * n } else { 0 }];
    let par = par_for(n.saturating_mul(n).saturating_mul(n));
    let threads = crate::common::host::current_par();
    let ok =
        threads.install(|| with_faer_type!(T, evd_typed, m, &mut s, &mut u, n, vectors, par))?;
    Ok((
        s.iter().map(|v| v.re()).collect(),
        u,
        if ok { 0 } else { 1 },
    ))
}

fn evd_typed<F: faer::traits::ComplexField + bytemuck::Pod>(
    m: &[impl bytemuck::Pod],
    s: &mut [impl bytemuck::Pod],
    u: &mut [impl bytemuck::Pod],
    n: usize,
    vectors: bool,
    par: faer::Par,
) -> Result<bool, Error> {
    use faer::linalg::evd::{self_adjoint_evd, self_adjoint_evd_scratch, ComputeEigenvectors};
    let m: &[F] = bytemuck::try_cast_slice(m).map_err(cast_err)?;
    let s: &mut [F] = bytemuck::try_cast_slice_mut(s).map_err(cast_err)?;
    let u: &mut [F] = bytemuck::try_cast_slice_mut(u).map_err(cast_err)?;
    let am = faer::MatRef::from_column_major_slice(m, n, n);
    let compute = if vectors {
        ComputeEigenvectors::Yes
    } else {
        ComputeEigenvectors::No
    };
    let params = Default::default();
    let req = self_adjoint_evd_scratch::<F>(n, compute, par, params);
    let mut mem = faer::dyn_stack::MemBuffer::try_new(req).map_err(|_| Error::MemoryError {
        needed: req.size_bytes(),
        available: 0,
        detail: "the host eigensolver's scratch could not be allocated".into(),
    })?;
    let stack = faer::dyn_stack::MemStack::new(&mut mem);
    let um = vectors.then(|| faer::MatMut::from_column_major_slice_mut(u, n, n));
    let sd = faer::diag::DiagMut::from_slice_mut(s);
    Ok(self_adjoint_evd(am, sd, um, par, stack, params).is_ok())
}

// ---- the Jacobi algorithm of kernels/eig.cu ---------------------------------------------

/// The real and imaginary parts of a value (imaginary 0 for real types).
pub(super) fn split<T: Scalar>(v: T) -> (T::Real, T::Real) {
    let parts: &[T::Real] = bytemuck::cast_slice(std::slice::from_ref(&v));
    (parts[0], parts.get(1).copied().unwrap_or(T::Real::zero()))
}

/// The value of these parts (the imaginary part dropped for real types).
pub(super) fn join<T: Scalar>(re: T::Real, im: T::Real) -> T {
    let mut v = T::zero();
    let parts: &mut [T::Real] = bytemuck::cast_slice_mut(std::slice::from_mut(&mut v));
    parts[0] = re;
    if let Some(p) = parts.get_mut(1) {
        *p = im;
    }
    v
}

/// A value as the kernel holds it: two parts of the real type (the imaginary one 0 for real
/// types, so the real arithmetic is the same as the kernel's real instantiation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Cx<R> {
    pub(super) re: R,
    pub(super) im: R,
}

impl<R: RealScalar> Cx<R> {
    pub(super) fn new(re: R, im: R) -> Self {
        Cx { re, im }
    }
    pub(super) fn zero() -> Self {
        Cx::new(R::zero(), R::zero())
    }
    pub(super) fn add(self, b: Self) -> Self {
        Cx::new(self.re + b.re, self.im + b.im)
    }
    pub(super) fn sub(self, b: Self) -> Self {
        Cx::new(self.re - b.re, self.im - b.im)
    }
    pub(super) fn is_zero(self) -> bool {
        self.re == R::zero() && self.im == R::zero()
    }
    /// `a b` (`emul`).
    pub(super) fn mul(self, b: Self) -> Self {
        Cx::new(
            self.re * b.re - self.im * b.im,
            self.re * b.im + self.im * b.re,
        )
    }
    pub(super) fn conj(self) -> Self {
        Cx::new(self.re, -self.im)
    }
    pub(super) fn scale(self, s: R) -> Self {
        Cx::new(self.re * s, self.im * s)
    }
    pub(super) fn abs2(self) -> R {
        self.re * self.re + self.im * self.im
    }
    /// `x c − y d` (`erot`).
    fn rot(x: Self, c: R, y: Self, d: Self) -> Self {
        let yd = y.mul(d);
        Cx::new(x.re * c - yd.re, x.im * c - yd.im)
    }
    /// `x c + y d` (`erotp`).
    fn rotp(x: Self, c: R, y: Self, d: Self) -> Self {
        let yd = y.mul(d);
        Cx::new(x.re * c + yd.re, x.im * c + yd.im)
    }
}

/// The kernel's constants for the real type (`EigLimits` in eig.cu).
pub(super) struct Limits<R> {
    eps: R,
    pub(super) lo: R,
    pub(super) hi: R,
    huge_theta: R,
    /// Exponent range of the scale factor `2^k`.
    kmin: i32,
    kmax: i32,
}

pub(super) fn limits<R: RealScalar>() -> Limits<R> {
    if std::mem::size_of::<R>() == 4 {
        Limits {
            eps: R::from_f64(f32::EPSILON as f64),
            lo: R::from_f64(2f64.powi(-40)),
            hi: R::from_f64(2f64.powi(40)),
            huge_theta: R::from_f64(2f64.powi(60)),
            kmin: -126,
            kmax: 127,
        }
    } else {
        Limits {
            eps: R::from_f64(f64::EPSILON),
            lo: R::from_f64(2f64.powi(-400)),
            hi: R::from_f64(2f64.powi(400)),
            huge_theta: R::from_f64(2f64.powi(500)),
            kmin: -1022,
            kmax: 1023,
        }
    }
}

/// The exponent field of `v` (unbiased; the kernel reads it from the type's own bits: the
/// same for normal values, and clamped alike for the others).
pub(super) fn exponent<R: RealScalar>(v: R) -> i32 {
    let e = ((v.to_f64().to_bits() >> 52) & 0x7ff) as i32 - 1023;
    if std::mem::size_of::<R>() == 4 && v.to_f64() < 2f64.powi(-126) {
        -127
    } else {
        e
    }
}

/// Pair `k` of round `r` of the circle ordering of `m + 1` items, as (smaller, larger)
/// (`eig_pair`).
fn pair(m: usize, r: usize, k: usize) -> (usize, usize) {
    let (x, y) = if k == 0 {
        (m, r)
    } else {
        ((r + k) % m, (r + m - k) % m)
    }; // (k < m: r + m − k ≥ 0)
    (x.min(y), x.max(y))
}

/// The kernel's block sum of per-thread values `v` (`NT` of them, zero past the columns): a
/// butterfly in each warp of 32, then the warps' sums in order (`eig_sum`).
fn block_sum<R: RealScalar>(mut v: Vec<R>) -> R {
    for warp in v.chunks_mut(32) {
        for o in [16, 8, 4, 2, 1] {
            let prev = warp.to_vec();
            for (i, x) in warp.iter_mut().enumerate() {
                *x = prev[i] + prev[i ^ o];
            }
        }
    }
    let mut s = v[0];
    for w in v.chunks(32).skip(1) {
        s = s + w[0];
    }
    s
}

/// `eig_col_sums` then `eig_sum`: `Σ |a_ij|²` over the padded matrix (`off`: `i ≠ j`).
fn sum_squares<R: RealScalar>(a: &[Cx<R>], np: usize, nt: usize, off: bool) -> R {
    let per = (0..nt)
        .map(|c| {
            let mut s = R::zero();
            if c < np {
                for i in 0..np {
                    if !off || i != c {
                        s = s + a[i + c * np].abs2();
                    }
                }
            }
            s
        })
        .collect();
    block_sum(per)
}

/// A rotation of one pair: `J = [[c, s·φ], [−s·conj(φ), c]]` (`sp` = `s·φ`).
#[derive(Clone, Copy)]
struct Rotation<R> {
    p: usize,
    q: usize,
    c: R,
    sp: Cx<R>,
    skip: bool,
}

/// The Jacobi iteration's results: eigenvalues in diagonal order (unscaled) and the rest.
struct Jacobi<R> {
    w: Vec<R>,
    info: i32,
    sweeps: i32,
    residual: R,
}

/// The cyclic Jacobi method of `kernels/eig.cu` on the full Hermitian `n × n` matrix `m`
/// (finite); on return `m` holds the eigenvectors (columns, diagonal order).
fn jacobi<T: Scalar>(m: &mut [T], n: usize, abstol: T::Real, max_sweeps: usize) -> Jacobi<T::Real> {
    let lim = limits::<T::Real>();
    let np = padded_order(n);
    let nt = if np <= 32 { 32 } else { 256 };
    let half = np / 2;
    let one = T::Real::one();
    let two = one + one;
    let mut a = vec![Cx::zero(); np * np];
    let mut v = vec![Cx::zero(); np * np];
    let mut amax = T::Real::zero();
    for j in 0..n {
        for i in 0..n {
            let (re, im) = split(m[i + j * n]);
            a[i + j * np] = Cx::new(re, im);
            let big = if re.abs() > im.abs() {
                re.abs()
            } else {
                im.abs()
            };
            if big > amax {
                amax = big;
            }
        }
    }
    for i in 0..np {
        v[i + i * np] = Cx::new(one, T::Real::zero());
    }
    let mut sigma = one;
    if amax > T::Real::zero() && (amax < lim.lo || amax > lim.hi) {
        let k = (-exponent(amax)).clamp(lim.kmin, lim.kmax);
        sigma = T::Real::from_f64(2f64.powi(k));
        for x in a.iter_mut() {
            *x = x.scale(sigma);
        }
    }
    let tol = if abstol > T::Real::zero() {
        abstol
    } else {
        lim.eps
    };
    let thr = tol * sum_squares(&a, np, nt, false).sqrt();
    let mut off = sum_squares(&a, np, nt, true).sqrt();
    let (mut sweeps, mut info) = (0usize, 0);
    let mut rot = vec![
        Rotation {
            p: 0,
            q: 0,
            c: one,
            sp: Cx::zero(),
            skip: true,
        };
        half
    ];
    loop {
        if off <= thr {
            break;
        }
        if sweeps >= max_sweeps {
            info = 1;
            break;
        }
        let mut rotated = false;
        for r in 0..np - 1 {
            // (1) the rotations and the pairs' diagonal blocks
            for (k, slot) in rot.iter_mut().enumerate() {
                let (p, q) = pair(np - 1, r, k);
                let app = a[p + p * np].re;
                let aqq = a[q + q * np].re;
                let apq = a[p + q * np];
                let g = apq.abs2().sqrt();
                let skip =
                    g == T::Real::zero() || g <= lim.eps * app.abs().sqrt() * aqq.abs().sqrt();
                let (mut c, mut sp) = (one, Cx::zero());
                if !skip {
                    let theta = (aqq - app) / (two * g);
                    let at = theta.abs();
                    let mut t = if at > lim.huge_theta {
                        one / (two * at)
                    } else {
                        one / (at + (one + at * at).sqrt())
                    };
                    if theta < T::Real::zero() {
                        t = -t;
                    }
                    c = one / (one + t * t).sqrt();
                    let s = t * c;
                    sp = Cx::new(apq.re / g, apq.im / g).scale(s);
                    a[p + p * np] = Cx::new(app - t * g, T::Real::zero());
                    a[q + q * np] = Cx::new(aqq + t * g, T::Real::zero());
                    a[p + q * np] = Cx::zero();
                    a[q + p * np] = Cx::zero();
                    rotated = true;
                }
                *slot = Rotation { p, q, c, sp, skip };
            }
            // (2) the off-diagonal blocks J_kᴴ B J_l, with their mirrors
            for x in 0..half * (half - 1) / 2 {
                let (l, k) = pair(half - 1, x / (half / 2), x % (half / 2));
                let (rk, rl) = (rot[k], rot[l]);
                if rk.skip && rl.skip {
                    continue;
                }
                let (pk, qk, pl, ql) = (rk.p, rk.q, rl.p, rl.q);
                let (b00, b01) = (a[pk + pl * np], a[pk + ql * np]);
                let (b10, b11) = (a[qk + pl * np], a[qk + ql * np]);
                let x00 = Cx::rot(b00, rl.c, b01, rl.sp.conj());
                let x01 = Cx::rotp(b01, rl.c, b00, rl.sp);
                let x10 = Cx::rot(b10, rl.c, b11, rl.sp.conj());
                let x11 = Cx::rotp(b11, rl.c, b10, rl.sp);
                let y00 = Cx::rot(x00, rk.c, x10, rk.sp);
                let y01 = Cx::rot(x01, rk.c, x11, rk.sp);
                let y10 = Cx::rotp(x10, rk.c, x00, rk.sp.conj());
                let y11 = Cx::rotp(x11, rk.c, x01, rk.sp.conj());
                a[pk + pl * np] = y00;
                a[pk + ql * np] = y01;
                a[qk + pl * np] = y10;
                a[qk + ql * np] = y11;
                a[pl + pk * np] = y00.conj();
                a[ql + pk * np] = y01.conj();
                a[pl + qk * np] = y10.conj();
                a[ql + qk * np] = y11.conj();
            }
            // (3) V J
            for rk in rot.iter().filter(|r| !r.skip) {
                for i in 0..np {
                    let (vp, vq) = (v[i + rk.p * np], v[i + rk.q * np]);
                    v[i + rk.p * np] = Cx::rot(vp, rk.c, vq, rk.sp.conj());
                    v[i + rk.q * np] = Cx::rotp(vq, rk.c, vp, rk.sp);
                }
            }
        }
        sweeps += 1;
        off = sum_squares(&a, np, nt, true).sqrt();
        if !rotated {
            break;
        }
    }
    for j in 0..n {
        for i in 0..n {
            let x = v[i + j * np];
            m[i + j * n] = join::<T>(x.re, x.im);
        }
    }
    Jacobi {
        w: (0..n).map(|i| a[i + i * np].re / sigma).collect(),
        info,
        sweeps: i32::try_from(sweeps).unwrap_or(i32::MAX),
        residual: off / sigma,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel's index math (`eig_pair` and its use in `eig_jacobi`, mirrored by `pair`):
    /// each round's pairs are disjoint, a sweep meets every pair once, and the pairs of pairs
    /// of phase (2) meet every off-diagonal block once.
    #[test]
    fn round_robin_covers_every_pair_once() {
        for np in [8, 16, 32, 64] {
            let mut seen = vec![0; np * np];
            for r in 0..np - 1 {
                let mut used = vec![false; np];
                for k in 0..np / 2 {
                    let (p, q) = pair(np - 1, r, k);
                    assert!(p < q && !used[p] && !used[q], "np {np} round {r} pair {k}");
                    used[p] = true;
                    used[q] = true;
                    seen[p + q * np] += 1;
                }
            }
            for q in 0..np {
                for p in 0..q {
                    assert_eq!(seen[p + q * np], 1, "np {np}: pair ({p}, {q})");
                }
            }
            let half = np / 2;
            let mut blocks = vec![0; half * half];
            for x in 0..half * (half - 1) / 2 {
                let (l, k) = pair(half - 1, x / (half / 2), x % (half / 2));
                blocks[k + l * half] += 1;
            }
            for l in 0..half {
                for k in l + 1..half {
                    assert_eq!(blocks[k + l * half], 1, "np {np}: block ({k}, {l})");
                }
            }
        }
    }

    /// A 2 × 2 Hermitian matrix: one rotation, exact eigenvalues 1 and 3, one sweep to
    /// rotate and none left (the stopping test then holds).
    #[test]
    fn two_by_two_complex() {
        let i = num_complex::Complex64::new(0.0, 1.0);
        let one = num_complex::Complex64::new(1.0, 0.0);
        let mut m = vec![one * 2.0, -i, i, one * 2.0];
        let j = jacobi(&mut m, 2, 0.0, 10);
        let mut w = j.w.clone();
        w.sort_by(f64::total_cmp);
        assert!(
            (w[0] - 1.0).abs() < 1e-15 && (w[1] - 3.0).abs() < 1e-15,
            "{w:?}"
        );
        assert_eq!((j.info, j.sweeps), (0, 1));
        assert!(j.residual < 1e-15);
    }
}
