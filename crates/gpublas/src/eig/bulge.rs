//! Stage 2 of the two-stage reduction to tridiagonal form: the Hermitian band left by stage 1
//! (`band.rs`, `kd` subdiagonals in A's lower triangle) becomes real tridiagonal by bulge
//! chasing (LAPACK's `hb2st`): `B = Q2 T Q2ᴴ`, `T` as `d` (diagonal) and `e` (subdiagonal),
//! with vectors each reflector of `Q2` stored in A's free strict upper triangle (the sweep's
//! reflectors fill one of its columns exactly: `kernels/eig.cu`, `eig_sb2st`, says how).
//!
//! CUDA: the band is copied into a workspace with room for the bulge (`2 kd` rows a column),
//! then one cooperative launch chases every sweep (two teams of warps per sweep in flight for
//! bands up to 32, a block for wider ones; progress counters between them), then the diagonal
//! is read out. The host runs the same sweeps in order.
//!
//! Workspace: the band copy (`2 kd · n` elements) and two progress counters per sweep (CUDA).

// (Stage 2 of the GPU `syevd`, whose later stages are not in yet: only its tests call it so far.)
#![allow(dead_code)]

use super::host::{join, split, Cx};
use crate::common::operand::{check_ld, mat_span, span_or, Batch, Checker};
use crate::common::plan::{drive, Routine, WorkspacePlan};
use crate::device::{param, Backend, DeviceBuffer};
use crate::kernels::EIG;
use crate::memory::address;
use crate::{Error, Handle, RealScalar, Scalar, Status, WorkspaceLease};

/// Band widths the kernel is built for (`EIG_SB2ST` in eig.cu).
pub(crate) const KDS: [usize; 3] = [16, 32, 64];
/// Threads of `eig_sb2st` (its launch bound), the block kernel of the widest band.
const THREADS: u32 = 256;
/// The most threads a block of `eig_sb2stt`, the kernel of bands up to 32, holds (its launch
/// bound, `SB2ST_TEAM_THREADS` in eig.cu): a sweep takes two teams of `kd / 8` warps.
const TEAM_THREADS: usize = 512;
/// Reflectors a sweep's ring holds (`SB2ST_RING` in eig.cu).
const RING: usize = 4;

/// The progress counters stage 2 needs for an order-`n` band: two a sweep (u32).
pub(super) fn progress_counters(n: usize) -> usize {
    2 * n.saturating_sub(1)
}

/// The sweeps in flight for an order-`n` band of `kd`: with two teams a sweep (`kd ≤ 32`), a
/// sweep starts about two O parts behind the one before it, and a team pair keeps up with a
/// part of each; as many as a sweep has tasks (fewer hold the chain back: half as many
/// measured 67 ms at 8192 with warp pairs, as slow as one warp a sweep); the block kernel's
/// sweeps start two tasks apart.
fn sweeps_in_flight(n: usize, kd: usize) -> usize {
    #[cfg(test)]
    if let Some(sweeps) = tests::IN_FLIGHT.with(|s| s.get()) {
        return sweeps.clamp(1, n.saturating_sub(1).max(1));
    }
    let tasks0 = n.saturating_sub(1).div_ceil(kd);
    let sweeps = if kd <= 32 { tasks0 + 2 } else { tasks0 / 2 + 2 };
    sweeps.min(n.saturating_sub(1)).max(1)
}

/// The stage-2 launch for an order-`n` band of `kd`: kernel, grid, block and shared memory. A
/// band up to 32 wide takes two teams of `kd / 8` warps a sweep (the ring of reflectors
/// between them and each team's partial sums in shared memory), spread over as many SMs as
/// there are, a block holding consecutive sweeps (up to two at 32, four at 16: the hop from
/// one to the next in shared memory), a wider one a block; either grid stays within one block
/// per SM, so the cooperative launch is always resident.
fn sweep_launch(n: usize, kd: usize, elem: usize, sms: usize) -> (String, u32, u32, u32) {
    let sms = sms.max(1);
    let sweeps = sweeps_in_flight(n, kd);
    if kd <= 32 {
        let warps = kd / 8;
        let sweep_threads = 64 * warps;
        let per_block = sweeps.div_ceil(sms).clamp(1, TEAM_THREADS / sweep_threads);
        // GROUP_ELEMS in eig.cu: the ring, A's column-sum partials, O's row 0, norm partials
        // and alpha, B's products and partials
        let group = RING * (kd + 1) + warps * kd + kd + (warps + 1) + kd + warps;
        let grid = sweeps.div_ceil(per_block).min(sms);
        (
            format!("eig_sb2stt{kd}"),
            grid as u32,
            (sweep_threads * per_block) as u32,
            (per_block * group * elem) as u32,
        )
    } else {
        let smem = (2 * kd * (kd + 1) + 3 * kd) * elem;
        (
            format!("eig_sb2st{kd}"),
            sweeps.min(sms) as u32,
            THREADS,
            smem as u32,
        )
    }
}

/// Mirrors `Sb2stp` in eig.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Sb2stp {
    ab: u64,
    ldab: i64,
    a: u64,
    lda: i64,
    e: u64,
    prog: u64,
    n: i64,
    kd: i32,
    pad: i32,
}

/// One band-to-tridiagonal reduction: the band of `kd` subdiagonals in the lower triangle of
/// the order-`n` matrix `a` (`lda`); `d` (`n`) and `e` (`n − 1`) written; with `vectors` the
/// reflectors to `a`'s strict upper triangle.
pub(crate) struct BulgeCall<'a, T: Scalar> {
    pub n: usize,
    pub kd: usize,
    pub a: &'a mut DeviceBuffer<T>,
    pub lda: usize,
    pub d: &'a mut DeviceBuffer<T::Real>,
    pub e: &'a mut DeviceBuffer<T::Real>,
    pub vectors: bool,
}

/// The workspace: the band copy and the progress counters (bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BulgePlan {
    pub band: usize,
    pub progress: usize,
}

impl BulgePlan {
    /// The plan of an order-`n` band of `kd` (F4).
    pub(crate) fn new(n: usize, kd: usize, elem: usize, cuda: bool) -> BulgePlan {
        if !cuda {
            return BulgePlan {
                band: 0,
                progress: 0,
            };
        }
        BulgePlan {
            band: 2 * kd * n * elem,
            progress: 4 * progress_counters(n),
        }
    }
}

impl WorkspacePlan for BulgePlan {
    fn sizes(&self) -> smallvec::SmallVec<[usize; 4]> {
        smallvec::SmallVec::from_slice(&[self.band, self.progress])
    }
}

const NAME: &str = "sytrd_sb2st";

struct BulgeRoutine<'a, T: Scalar> {
    call: BulgeCall<'a, T>,
    cuda: bool,
}

impl<T: Scalar> Routine for BulgeRoutine<'_, T> {
    type Plan = BulgePlan;

    fn name(&self) -> &'static str {
        NAME
    }

    fn check_sizes(&mut self) -> Result<(), Error> {
        let c = &self.call;
        check_ld(NAME, "lda", c.lda, c.n, "n")?;
        if !KDS.contains(&c.kd) {
            return Err(Error::InvalidValue(format!(
                "{NAME}: kd = {}; the kernel takes {KDS:?}",
                c.kd
            )));
        }
        Ok(())
    }

    fn full(&mut self, _h: &mut Handle) -> Result<Option<BulgePlan>, Error> {
        let c = &self.call;
        if c.n == 0 {
            return Ok(None);
        }
        Ok(Some(BulgePlan::new(
            c.n,
            c.kd,
            std::mem::size_of::<T>(),
            self.cuda,
        )))
    }

    fn check_operands(&mut self, h: &mut Handle) -> Result<(), Error> {
        let c = &self.call;
        let ck = Checker { h, call: NAME };
        let why = || format!("A of order n = {} with lda = {}", c.n, c.lda);
        let need = span_or(NAME, mat_span(c.n, c.n, c.lda), &why)?;
        ck.batch("A", &Batch::Single(&*c.a), need, &why, true, None)?;
        let n = c.n;
        ck.batch(
            "d",
            &Batch::Single(&*c.d),
            n,
            &|| format!("n = {n}"),
            true,
            None,
        )?;
        let ne = n.saturating_sub(1);
        ck.batch(
            "e",
            &Batch::Single(&*c.e),
            ne,
            &|| format!("n − 1 = {ne}"),
            true,
            None,
        )
    }

    fn fitted(&mut self, cap: usize) -> Result<Option<BulgePlan>, Error> {
        let c = &self.call;
        let p = BulgePlan::new(c.n, c.kd, std::mem::size_of::<T>(), self.cuda);
        Ok((p.total() <= cap).then_some(p))
    }

    fn minimum(&self) -> String {
        "needs the band copy (2 kd n elements) and two counters per sweep".into()
    }

    fn run(&mut self, lease: &WorkspaceLease<'_>, plan: &BulgePlan) -> Result<(), Error> {
        if self.cuda {
            run_cuda(lease, &mut self.call, plan)
        } else {
            run_host(&mut self.call)
        }
    }
}

/// Reduces the band of `call` to tridiagonal form.
pub(crate) fn sb2st<T: Scalar>(h: &mut Handle, call: BulgeCall<'_, T>) -> Result<Status, Error> {
    let cuda = h.device().backend() == Backend::Cuda;
    drive(h, &mut BulgeRoutine { call, cuda })
}

fn run_cuda<T: Scalar>(
    lease: &WorkspaceLease<'_>,
    c: &mut BulgeCall<'_, T>,
    _plan: &BulgePlan,
) -> Result<(), Error> {
    let h = lease.handle();
    let stream = h.stream();
    stream.bind()?;
    launch_sweeps::<T>(
        stream,
        h.device().multiprocessor_count(),
        (c.a.device_ptr().unwrap_or(0), c.lda),
        address(lease.buffer(0)),
        (
            c.d.device_ptr().unwrap_or(0),
            c.e.device_ptr().unwrap_or(0),
            address(lease.buffer(1)),
        ),
        (c.n, c.kd),
        c.vectors,
    )
}

/// Stage 2 on `stream`: the band of the order-`n` matrix at `a` (`lda`) copied to `ab`
/// (`2 kd · n` elements), the counters at `prog` zeroed, the sweeps, the diagonal to `d`
/// (`e` from the sweeps).
pub(super) fn launch_sweeps<T: Scalar>(
    stream: &crate::device::Stream,
    sms: usize,
    (a, lda): (u64, usize),
    ab: u64,
    (d, e, prog): (u64, u64, u64),
    (n, kd): (usize, usize),
    vectors: bool,
) -> Result<(), Error> {
    let elem = std::mem::size_of::<T>();
    let ldab = 2 * kd;
    #[cfg(test)]
    let sms = tests::SWEEP_SMS.with(|s| s.get()).unwrap_or(sms);
    let mut p = Sb2stp {
        ab,
        ldab: ldab as i64,
        a,
        lda: lda as i64,
        e,
        prog,
        n: n as i64,
        kd: kd as i32,
        pad: 0,
    };
    let tag = T::TAG;
    let total = (n * ldab) as u32;
    let mut prm = [param(&p)];
    stream.launch_with(
        &EIG,
        &format!("eig_bandcopy_{tag}"),
        (total.div_ceil(256), 1, 1),
        (256, 0),
        false,
        &mut prm,
    )?;
    if n > 1 {
        stream.memset32(prog, 0, progress_counters(n))?;
        let (func, grid, threads, smem) = sweep_launch(n, kd, elem, sms);
        if !vectors {
            p.a = 0;
        }
        let mut prm = [param(&p)];
        stream.launch_with(
            &EIG,
            &format!("{func}_{tag}"),
            (grid, 1, 1),
            (threads, smem),
            true,
            &mut prm,
        )?;
    }
    p.e = d;
    let mut prm = [param(&p)];
    stream.launch_with(
        &EIG,
        &format!("eig_banddiag_{tag}"),
        ((n as u32).div_ceil(256), 1, 1),
        (256, 0),
        false,
        &mut prm,
    )
}

/// LAPACK's larfg on `alpha` and a vector of squared norm `xn2`: (beta, tau, scal) with
/// `Hᴴ (alpha; x) = (beta; 0)`, `v = (1; x·scal)` (`sb_larfg` in eig.cu).
fn larfg<R: RealScalar>(alpha: Cx<R>, xn2: R) -> (R, Cx<R>, Cx<R>) {
    if xn2 == R::zero() && alpha.im == R::zero() {
        return (alpha.re, Cx::zero(), Cx::zero());
    }
    let mut beta = (alpha.re * alpha.re + alpha.im * alpha.im + xn2).sqrt();
    if alpha.re >= R::zero() {
        beta = -beta;
    }
    let tau = Cx::new((beta - alpha.re) / beta, -alpha.im / beta);
    let (dr, di) = (alpha.re - beta, alpha.im);
    let q = dr * dr + di * di;
    (beta, tau, Cx::new(dr / q, -di / q))
}

/// The host's sweeps for `call`.
fn run_host<T: Scalar>(c: &mut BulgeCall<'_, T>) -> Result<(), Error> {
    let not_host = crate::common::host::not_host;
    let a = c.a.host_slice_mut().ok_or_else(not_host)?;
    let (d, e) = sweeps(c.n, c.kd, a, c.lda, c.vectors);
    c.d.host_slice_mut().ok_or_else(not_host)?[..c.n].copy_from_slice(&d);
    c.e.host_slice_mut().ok_or_else(not_host)?[..e.len()].copy_from_slice(&e);
    Ok(())
}

/// The kernel's sweeps on the host, one task after another: the band of the order-`n` matrix
/// `a` (`lda`) to (`d`, `e`); with `vectors` the reflectors to `a`'s strict upper triangle.
pub(super) fn sweeps<T: Scalar>(
    n: usize,
    kd: usize,
    a: &mut [T],
    lda: usize,
    vectors: bool,
) -> (Vec<T::Real>, Vec<T::Real>) {
    let ldab = 2 * kd;
    let cx = |v: T| {
        let (re, im) = split(v);
        Cx::new(re, im)
    };
    let mut ab = vec![Cx::<T::Real>::zero(); ldab * n];
    for j in 0..n {
        for r in 0..=kd.min(n - 1 - j) {
            ab[r + j * ldab] = cx(a[j + r + j * lda]);
        }
    }
    let at = |i: usize, j: usize| (i - j) + j * ldab;
    let mut e = vec![T::Real::zero(); n.saturating_sub(1)];
    let one = Cx::new(T::Real::one(), T::Real::zero());
    let half = T::Real::from_f64(0.5);
    let mut o = vec![Cx::zero(); kd * kd];
    let mut dd = vec![Cx::zero(); kd * kd];
    for s in 0..n.saturating_sub(1) {
        let ts = (n - 1 - s).div_ceil(kd);
        let mut vp: Vec<Cx<T::Real>> = Vec::new();
        let mut taup = Cx::zero();
        for t in 0..ts {
            let j0 = s + 1 + t * kd;
            let nr = kd.min(n - j0);
            let mut v = vec![Cx::zero(); nr];
            let tau;
            if t == 0 {
                let y: Vec<_> = (0..nr).map(|i| ab[at(j0 + i, s)]).collect();
                let xn2 = y[1..].iter().fold(T::Real::zero(), |s, x| s + x.abs2());
                let (beta, tu, scal) = larfg(y[0], xn2);
                tau = tu;
                for i in 0..nr {
                    v[i] = if i == 0 { one } else { y[i].mul(scal) };
                    ab[at(j0 + i, s)] = if i == 0 {
                        Cx::new(beta, T::Real::zero())
                    } else {
                        Cx::zero()
                    };
                }
                e[s] = beta;
            } else {
                let jp = j0 - kd;
                for k in 0..kd {
                    for i in 0..nr {
                        o[i + k * kd] = ab[at(j0 + i, jp + k)];
                    }
                }
                if !taup.is_zero() {
                    for i in 0..nr {
                        let mut acc = Cx::zero();
                        for k in 0..kd {
                            acc = acc.add(o[i + k * kd].mul(vp[k]));
                        }
                        let y = acc.mul(taup);
                        for k in 0..kd {
                            o[i + k * kd] = o[i + k * kd].sub(y.mul(vp[k].conj()));
                        }
                    }
                }
                let xn2 = (1..nr).fold(T::Real::zero(), |s, i| s + o[i].abs2());
                let (beta, tu, scal) = larfg(o[0], xn2);
                tau = tu;
                for i in 0..nr {
                    v[i] = if i == 0 { one } else { o[i].mul(scal) };
                }
                o[0] = Cx::new(beta, T::Real::zero());
                for x in o.iter_mut().take(nr).skip(1) {
                    *x = Cx::zero();
                }
                if !tau.is_zero() {
                    for k in 1..kd {
                        let mut acc = Cx::zero();
                        for i in 0..nr {
                            acc = acc.add(v[i].conj().mul(o[i + k * kd]));
                        }
                        let z = tau.conj().mul(acc);
                        for i in 0..nr {
                            o[i + k * kd] = o[i + k * kd].sub(v[i].mul(z));
                        }
                    }
                }
                for k in 0..kd {
                    for i in 0..nr {
                        ab[at(j0 + i, jp + k)] = o[i + k * kd];
                    }
                }
            }
            // D = Hᴴ D H
            for k in 0..nr {
                for i in k..nr {
                    let d = ab[at(j0 + i, j0 + k)];
                    let d = if i == k {
                        Cx::new(d.re, T::Real::zero())
                    } else {
                        d
                    };
                    dd[i + k * kd] = d;
                    dd[k + i * kd] = d.conj();
                }
            }
            if !tau.is_zero() {
                let x: Vec<_> = (0..nr)
                    .map(|i| {
                        let acc = (0..nr).fold(Cx::zero(), |s, k| s.add(dd[i + k * kd].mul(v[k])));
                        tau.mul(acc)
                    })
                    .collect();
                let cr = (0..nr).fold(T::Real::zero(), |s, i| {
                    s + tau.conj().mul(v[i].conj().mul(x[i])).re
                });
                let w: Vec<_> = (0..nr).map(|i| x[i].sub(v[i].scale(cr * half))).collect();
                for k in 0..nr {
                    for i in k..nr {
                        let upd = v[i].mul(w[k].conj()).add(w[i].mul(v[k].conj()));
                        let mut d = dd[i + k * kd].sub(upd);
                        if i == k {
                            d.im = T::Real::zero();
                        }
                        ab[at(j0 + i, j0 + k)] = d;
                    }
                }
            }
            if vectors {
                let col = (n - 1 - s) * lda + t * kd;
                for i in 0..nr {
                    let x = if i == 0 { tau } else { v[i] };
                    a[col + i] = join::<T>(x.re, x.im);
                }
            }
            vp = v;
            taup = tau;
        }
    }
    let d = (0..n).map(|i| ab[i * ldab].re).collect();
    (d, e)
}

#[cfg(test)]
pub(crate) mod tests {
    //! Stage 2 after stage 1, against the definition in plain f64 loops: the band `B` stage 1
    //! left equals `Q2 T Q2ᴴ` with `T` from `d`, `e` and `Q2` built from the stored reflectors,
    //! `Q2` is unitary, A's lower triangle is untouched (and, without vectors, all of A).

    use super::super::band::tests::{adjoint, max_abs, mul, Elem, Lcg, C};
    use super::super::band::{sy2sb, BandCall};
    use super::*;
    use crate::{Complex64, Device};

    thread_local! {
        /// The SMs `launch_sweeps` spreads the sweeps over instead of the device's (so that a
        /// block holds several sweeps' teams, each several sweeps, at a test's orders).
        pub(super) static SWEEP_SMS: std::cell::Cell<Option<usize>> =
            const { std::cell::Cell::new(None) };
        /// The sweeps in flight instead of `sweeps_in_flight`'s choice (the timing probe's).
        pub(super) static IN_FLIGHT: std::cell::Cell<Option<usize>> =
            const { std::cell::Cell::new(None) };
    }

    fn check<T: Elem>(dev: &Device, n: usize, kd: usize, vectors: bool, seed: u64) {
        let cplx = T::COMPLEX;
        let lda = n + 2;
        let mut r = Lcg(seed);
        let poison = T::make(C::new(f64::NAN, f64::NAN));
        let mut host = vec![poison; lda * n];
        for j in 0..n {
            for i in j..n {
                let im = if cplx && i != j { r.uni() } else { 0.0 };
                host[i + j * lda] = T::make(C::new(r.uni(), im));
            }
        }
        let mut h = Handle::new(dev).unwrap();
        let mut a = dev.upload(&host).unwrap();
        let mut tau = dev.upload(&vec![poison; n]).unwrap();
        let call = BandCall {
            n,
            kd,
            a: &mut a,
            lda,
            tau: &mut tau,
        };
        assert_eq!(sy2sb(&mut h, call).unwrap(), Status::Success);
        let a1 = a.to_vec().unwrap();
        let nan = <T::Real as RealScalar>::from_f64(f64::NAN);
        let mut d = dev.upload(&vec![nan; n + 1]).unwrap();
        let mut e = dev.upload(&vec![nan; n]).unwrap();
        let st = sb2st(
            &mut h,
            BulgeCall {
                n,
                kd,
                a: &mut a,
                lda,
                d: &mut d,
                e: &mut e,
                vectors,
            },
        )
        .unwrap();
        assert_eq!(st, Status::Success);
        let a2 = a.to_vec().unwrap();
        let (dv, ev) = (d.to_vec().unwrap(), e.to_vec().unwrap());
        let what = format!("n = {n}, kd = {kd}, complex = {cplx}, vectors = {vectors}");
        let bits = |x: T| {
            let c = x.get();
            (c.re.to_bits(), c.im.to_bits())
        };
        for j in 0..n {
            for i in 0..lda {
                let kept = i >= j || !vectors || i >= n;
                if kept {
                    assert_eq!(
                        bits(a2[i + j * lda]),
                        bits(a1[i + j * lda]),
                        "{what}: ({i}, {j})"
                    );
                }
            }
        }
        assert!(dv[n].to_f64().is_nan() && ev[n.saturating_sub(1)].to_f64().is_nan());
        let mut b = vec![C::new(0.0, 0.0); n * n];
        for j in 0..n {
            for i in j..(j + kd + 1).min(n) {
                let v = a1[i + j * lda].get();
                let v = if i == j { C::new(v.re, 0.0) } else { v };
                b[i + j * n] = v;
                b[j + i * n] = v.conj();
            }
        }
        let mut tri = vec![C::new(0.0, 0.0); n * n];
        for i in 0..n {
            tri[i + i * n] = C::new(dv[i].to_f64(), 0.0);
            if i + 1 < n {
                let x = C::new(ev[i].to_f64(), 0.0);
                tri[i + 1 + i * n] = x;
                tri[i + (i + 1) * n] = x;
            }
        }
        let eps = if std::mem::size_of::<T::Real>() == 4 {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        };
        if !vectors {
            // The eigenvalues' sum and the sum of their squares are the band's.
            let tr_b: f64 = (0..n).map(|i| b[i + i * n].re).sum();
            let tr_t: f64 = dv[..n].iter().map(|x| x.to_f64()).sum();
            let f_b: f64 = b.iter().map(|x| x.norm_sqr()).sum();
            let f_t: f64 = tri.iter().map(|x| x.norm_sqr()).sum();
            let tol = 30.0 * n as f64 * eps * f_b.sqrt();
            assert!((tr_b - tr_t).abs() < tol, "{what}: trace {tr_b} vs {tr_t}");
            assert!(
                (f_b - f_t).abs() < tol * f_b.sqrt(),
                "{what}: ‖·‖_F² {f_b} vs {f_t}"
            );
            return;
        }
        let q = q2_reference(&a2, n, kd, lda);
        let rec = mul(&mul(&q, &tri, n), &adjoint(&q, n), n);
        let diff: Vec<C> = rec.iter().zip(&b).map(|(x, y)| x - y).collect();
        let res = max_abs(&diff) / (max_abs(&b) * n as f64 * eps);
        let qq = mul(&adjoint(&q, n), &q, n);
        let orth = (0..n * n)
            .map(|x| (qq[x] - if x % (n + 1) == 0 { 1.0 } else { 0.0 }).norm())
            .fold(0.0, f64::max)
            / (n as f64 * eps);
        assert!(
            res < 30.0 && orth < 30.0,
            "{what}: ‖B − Q2 T Q2ᴴ‖ {res:.2}, ‖Q2ᴴQ2 − I‖ {orth:.2} (× n ε)"
        );
    }

    /// `Q2` (`n × n`) from the reflectors in the strict upper triangle of `a` (`lda`), in f64:
    /// the product over sweeps and tasks in order.
    pub(crate) fn q2_reference<T: Elem>(a2: &[T], n: usize, kd: usize, lda: usize) -> Vec<C> {
        let mut q = vec![C::new(0.0, 0.0); n * n];
        for i in 0..n {
            q[i + i * n] = C::new(1.0, 0.0);
        }
        for s in 0..n.saturating_sub(1) {
            let ts = (n - 1 - s).div_ceil(kd);
            for t in 0..ts {
                let j0 = s + 1 + t * kd;
                let nr = kd.min(n - j0);
                let col = (n - 1 - s) * lda + t * kd;
                let tau = a2[col].get();
                let mut v = vec![C::new(1.0, 0.0); nr];
                for (i, x) in v.iter_mut().enumerate().skip(1) {
                    *x = a2[col + i].get();
                }
                // Q := Q (I − tau v vᴴ) on columns j0 ..
                for row in 0..n {
                    let mut acc = C::new(0.0, 0.0);
                    for i in 0..nr {
                        acc += q[row + (j0 + i) * n] * v[i];
                    }
                    let acc = acc * tau;
                    for i in 0..nr {
                        q[row + (j0 + i) * n] -= acc * v[i].conj();
                    }
                }
            }
        }
        q
    }

    fn all(dev: &Device) {
        for &(n, kd) in &[
            (1, 16),
            (2, 16),
            (17, 16),
            (18, 16),
            (50, 16),
            (97, 32),
            (130, 32),
            (200, 64),
            (300, 64),
        ] {
            for vectors in [true, false] {
                check::<f64>(dev, n, kd, vectors, n as u64);
                check::<Complex64>(dev, n, kd, vectors, 5 + n as u64);
            }
        }
        // single precision through each kernel (the warp one for 16 and 32, the block one for 64)
        for &(n, kd) in &[(50, 16), (130, 32), (200, 64)] {
            check::<f32>(dev, n, kd, true, 9 + n as u64);
            check::<crate::Complex32>(dev, n, kd, true, 11 + n as u64);
        }
    }

    #[test]
    fn f1_sb2st_host() {
        all(&Device::host());
    }

    #[test]
    #[ignore = "needs a CUDA GPU; run with --include-ignored on a GPU machine"]
    fn f1_sb2st_cuda() {
        all(&Device::cuda(0).unwrap());
    }

    /// The sweeps on few SMs: one block of two or four sweeps' teams (each several sweeps, its ring
    /// of reflectors reused across them), and three blocks.
    #[test]
    #[ignore = "needs a CUDA GPU; run with --include-ignored on a GPU machine"]
    fn f1_sb2st_few_blocks_cuda() {
        let dev = Device::cuda(0).unwrap();
        for sms in [1, 3] {
            SWEEP_SMS.with(|s| s.set(Some(sms)));
            for &(n, kd) in &[(50, 16), (300, 16), (97, 32), (400, 32)] {
                check::<f64>(&dev, n, kd, true, 21 + n as u64);
                check::<Complex64>(&dev, n, kd, true, 23 + n as u64);
            }
            check::<f32>(&dev, 130, 32, false, 25);
        }
        SWEEP_SMS.with(|s| s.set(None));
    }
}

#[cfg(test)]
mod probe {
    //! Development timing of stages 1 and 2 on a GPU (`GPUBLAS_PROFILE_STAGES=1`, filter
    //! `probe`); it asserts nothing about speed (benchmarks do) and returns at once unset.

    use super::super::band::{sy2sb, BandCall};
    use super::*;
    use crate::Device;
    use std::time::Instant;

    #[test]
    #[ignore = "a development timing probe for a GPU; set GPUBLAS_PROFILE_STAGES"]
    fn probe_stages_cuda() {
        if std::env::var_os("GPUBLAS_PROFILE_STAGES").is_none() {
            return;
        }
        let dev = Device::cuda(0).unwrap();
        let mut h = Handle::new(&dev).unwrap();
        // (GPUBLAS_PROBE_N, _KD: the orders and bands; GPUBLAS_PROBE_IN_FLIGHT: sweeps in
        // flight to try, 0 the library's choice)
        let list = |name: &str, default: &[usize]| -> Vec<usize> {
            std::env::var(name)
                .ok()
                .map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect())
                .unwrap_or_else(|| default.to_vec())
        };
        let flights = list("GPUBLAS_PROBE_IN_FLIGHT", &[0]);
        // (GPUBLAS_PROBE_SMS: the SMs the sweeps spread over instead of the device's)
        if let Some(&sms) = list("GPUBLAS_PROBE_SMS", &[]).first() {
            super::tests::SWEEP_SMS.with(|s| s.set(Some(sms)));
        }
        for &n in &list("GPUBLAS_PROBE_N", &[2048, 4096, 8192]) {
            for &kd in &list("GPUBLAS_PROBE_KD", &[16, 32, 64]) {
                for &flight in &flights {
                    super::tests::IN_FLIGHT.with(|s| s.set((flight > 0).then_some(flight)));
                    let host: Vec<f64> = (0..n * n)
                        .map(|x| ((x * 7919) % 1000) as f64 / 1000.0 - 0.5)
                        .collect();
                    let mut a = dev.upload(&host).unwrap();
                    let mut tau = dev.upload(&vec![0.0f64; n]).unwrap();
                    let mut d = dev.upload(&vec![0.0f64; n]).unwrap();
                    let mut e = dev.upload(&vec![0.0f64; n]).unwrap();
                    for rep in 0..2 {
                        a.copy_from_host(&host).unwrap();
                        h.stream().synchronize().unwrap();
                        let t0 = Instant::now();
                        let call = BandCall {
                            n,
                            kd,
                            a: &mut a,
                            lda: n,
                            tau: &mut tau,
                        };
                        assert_eq!(sy2sb(&mut h, call).unwrap(), Status::Success);
                        h.stream().synchronize().unwrap();
                        let t1 = Instant::now();
                        let call = BulgeCall {
                            n,
                            kd,
                            a: &mut a,
                            lda: n,
                            d: &mut d,
                            e: &mut e,
                            vectors: true,
                        };
                        assert_eq!(sb2st(&mut h, call).unwrap(), Status::Success);
                        h.stream().synchronize().unwrap();
                        let t2 = Instant::now();
                        if rep == 1 {
                            eprintln!(
                            "probe n {n} kd {kd} in flight {flight}: sy2sb {:.2} ms, sb2st {:.2} ms",
                            (t1 - t0).as_secs_f64() * 1e3,
                            (t2 - t1).as_secs_f64() * 1e3
                        );
                        }
                    }
                }
            }
        }
        super::tests::IN_FLIGHT.with(|s| s.set(None));
        super::tests::SWEEP_SMS.with(|s| s.set(None));
    }
}
