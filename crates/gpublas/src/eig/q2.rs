//! Applying stage 2's reflectors: `Z ← Q2 Z` (the back-transformation's first half), as
//! block reflectors over diamonds and batched products.
//!
//! A diamond `(g, t)` groups task `t` of the `kd` sweeps of group `g` (sweeps `g·kd ..`): rows
//! `z0 = g·kd + 1 + t·kd ..` (`2 kd − 1` of them), their product `I − V T Vᴴ` (`V` the
//! parallelogram, `T` by `larft`). `Q2` is the product over groups ascending of each group's
//! diamonds with `t` descending (a reflector commutes with those it shares no row with), so
//! `Q2 Z` applies groups descending and `t` ascending. Diamond `(g, t)` must follow `(g, t − 1)`
//! and the diamonds of group `g + 1` whose rows meet its own; level `(G − 1 − g) + t` orders
//! them all (`G` groups), and the diamonds of one level (`g` consecutive, their rows `2 kd`
//! apart) share no row, so each level is one batched product of each kind:
//! `G = Vᴴ V`, `T` (QR's kernel), `VT = V T`, `W = Vᴴ Z_rows`, `Z_rows −= VT W` — the last two
//! for the level's full-height diamonds at once and a clipped last one alone.
//!
//! Workspace per call (elements): in R `V`, `VT` (`2 kd² · d` each), `T` (`kd² · d`) and `W`
//! (`kd · m · d`), `d` the most diamonds of a level; the taus (`kd · d`).

// (Part of the GPU `syevd`, whose other stages are not joined yet: only its tests call it.)
#![allow(dead_code)]

use super::family::{EigFamily, EigStep};
use crate::common::operand::{check_ld, mat_span, span_or, Batch, BatchMut, Checker};
use crate::common::plan::{drive, Routine, WorkspacePlan};
use crate::device::lt::{Lt, LT_MAX_WORKSPACE};
use crate::device::DeviceBuffer;
use crate::exec::program::{mat, Space, Step, K, M};
use crate::exec::workspace::BlockWorkspace;
use crate::exec::{cuda as exec_cuda, host as exec_host, Layout, Operands};
use crate::memory::address;
use crate::qr::program::QrStep;
use crate::qr::QrFamily;
use crate::{Error, Handle, Op, Scalar, Status, WorkspaceLease};

/// A level's diamonds: the first group, how many, and how many of them (the first ones) are
/// full height (`z0 + 2 kd ≤ n`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Level {
    pub g_lo: usize,
    pub count: usize,
    pub full: usize,
}

/// Groups of sweeps of an order-`n` band of `kd`.
pub(crate) fn groups(n: usize, kd: usize) -> usize {
    n.saturating_sub(1).div_ceil(kd)
}

/// Tasks of sweep `s`.
fn tasks(n: usize, kd: usize, s: usize) -> usize {
    (n - 1 - s).div_ceil(kd)
}

/// Level `l`'s diamonds.
pub(crate) fn level(n: usize, kd: usize, l: usize) -> Level {
    let gs = groups(n, kd);
    let g_lo = (gs - 1).saturating_sub(l);
    let mut count = 0;
    let mut full = 0;
    let mut g = g_lo;
    while g < gs {
        let t = l + g + 1 - gs;
        if t >= tasks(n, kd, g * kd) {
            break;
        }
        let z0 = g * kd + 1 + t * kd;
        if z0 + 2 * kd <= n {
            full += 1;
        }
        count += 1;
        g += 1;
    }
    Level { g_lo, count, full }
}

/// The number of levels (`2 G − 1`; 0 without reflectors).
pub(crate) fn levels(n: usize, kd: usize) -> usize {
    (2 * groups(n, kd)).saturating_sub(1)
}

/// The most diamonds of any level.
pub(crate) fn most_diamonds(n: usize, kd: usize) -> usize {
    (0..levels(n, kd))
        .map(|l| level(n, kd, l).count)
        .max()
        .unwrap_or(0)
}

/// Where the parts are in R (element offsets) and the ring's size in diamonds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Q2Parts {
    pub v: usize,
    pub vt: usize,
    pub t: usize,
    pub w: usize,
    /// Elements of R in all.
    pub r_elems: usize,
    pub diamonds: usize,
}

impl Q2Parts {
    /// The parts after `r0` elements of R, for `Z` of `m` columns.
    pub(crate) fn new(n: usize, kd: usize, m: usize, r0: usize) -> Q2Parts {
        let d = most_diamonds(n, kd);
        let v = r0;
        let vt = v + 2 * kd * kd * d;
        let t = vt + 2 * kd * kd * d;
        let w = t + kd * kd * d;
        Q2Parts {
            v,
            vt,
            t,
            w,
            r_elems: w + kd * m * d - r0,
            diamonds: d,
        }
    }
}

/// Appends `Z ← Q2 Z`: `z` the first element of `Z` (`n × m`), `a` the matrix holding the
/// reflectors, the parts in R at `p`, the taus from the family's `tau[k0]`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn build(
    v: &mut Vec<Step<EigStep>>,
    (n, kd, m): (usize, usize, usize),
    a: M,
    z: M,
    p: &Q2Parts,
    k0: usize,
    complex: bool,
) {
    let hop = if complex { Op::C } else { Op::T };
    let gs = groups(n, kd);
    let vm = mat(Space::R, p.v, 2 * kd, 2 * kd * kd);
    let vtm = mat(Space::R, p.vt, 2 * kd, 2 * kd * kd);
    let tm = mat(Space::R, p.t, kd, kd * kd);
    let wm = mat(Space::R, p.w, kd, kd * m);
    for l in 0..levels(n, kd) {
        let lv = level(n, kd, l);
        if lv.count == 0 {
            continue;
        }
        let cnt = lv.count;
        v.push(Step::Family(EigStep::Diamonds {
            a,
            n,
            kd,
            groups: gs,
            level: l,
            g_lo: lv.g_lo,
            count: cnt,
            v: vm,
            k0,
        }));
        let gemm = |ta, tb, (mm, nn, kk), alpha, x: M, y: M, beta, c: M, count| Step::Gemm {
            ta,
            tb,
            m: mm,
            n: nn,
            k: kk,
            alpha,
            a: x,
            b: y,
            beta,
            c,
            count,
        };
        v.push(gemm(
            hop,
            Op::N,
            (kd, kd, 2 * kd),
            K::One,
            vm,
            vm,
            K::Zero,
            tm,
            cnt,
        ));
        v.push(Step::Family(EigStep::Qr(QrStep::TFactor {
            k: kd,
            g: tm,
            t: tm,
            k0,
            count: cnt,
        })));
        v.push(gemm(
            Op::N,
            Op::N,
            (2 * kd, kd, kd),
            K::One,
            vm,
            tm,
            K::Zero,
            vtm,
            cnt,
        ));
        if m == 0 {
            continue;
        }
        // The first diamond's rows; the next ones 2 kd further each.
        let z0 = (lv.g_lo + l + lv.g_lo + 1 - gs) * kd + 1;
        let zrows = |b: usize, bs: usize| M {
            off: z.off + z0 + b * 2 * kd,
            bs,
            ..z
        };
        let nth = |x: M, b: usize, each: usize| M {
            off: x.off + b * each,
            ..x
        };
        if lv.full > 0 {
            let zr = zrows(0, 2 * kd);
            v.push(gemm(
                hop,
                Op::N,
                (kd, m, 2 * kd),
                K::One,
                vm,
                zr,
                K::Zero,
                wm,
                lv.full,
            ));
            v.push(gemm(
                Op::N,
                Op::N,
                (2 * kd, m, kd),
                K::MinusOne,
                vtm,
                wm,
                K::One,
                zr,
                lv.full,
            ));
        }
        if lv.full < cnt {
            // The clipped last diamond: its rows up to n.
            let b = lv.full;
            let rows = n - (z0 + b * 2 * kd);
            let zr = zrows(b, 0);
            let (vb, vtb) = (nth(vm, b, 2 * kd * kd), nth(vtm, b, 2 * kd * kd));
            let wb = nth(wm, b, kd * m);
            v.push(gemm(
                hop,
                Op::N,
                (kd, m, rows),
                K::One,
                vb,
                zr,
                K::Zero,
                wb,
                1,
            ));
            v.push(gemm(
                Op::N,
                Op::N,
                (rows, m, kd),
                K::MinusOne,
                vtb,
                wb,
                K::One,
                zr,
                1,
            ));
        }
    }
}

/// One `Z ← Q2 Z` on its own (the stages' tests): `a` holds the reflectors (order `n`, band
/// `kd`), `z` is `n × m` (`ldz`).
pub(crate) struct Q2Call<'a, T: Scalar> {
    pub n: usize,
    pub kd: usize,
    pub a: &'a DeviceBuffer<T>,
    pub lda: usize,
    pub z: &'a mut DeviceBuffer<T>,
    pub ldz: usize,
    pub m: usize,
}

/// Its plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Q2Plan {
    pub parts: Q2Parts,
    pub kd: usize,
    pub elem: usize,
    pub lt: usize,
}

impl Q2Plan {
    fn layout(&self) -> Layout {
        Layout {
            entries: 1,
            e_elems: 0,
            r_elems: self.parts.r_elems,
        }
    }

    fn taus(&self) -> usize {
        self.parts.diamonds * self.kd
    }
}

impl WorkspacePlan for Q2Plan {
    fn sizes(&self) -> smallvec::SmallVec<[usize; 4]> {
        let b = BlockWorkspace {
            lt: self.lt,
            slots: 0,
            e_blocks: 0,
            r_results: self.parts.r_elems * self.elem,
        };
        let mut s = smallvec::SmallVec::from_buf(b.list());
        s.push(self.taus() * self.elem);
        s
    }
}

const NAME: &str = "ormtr_sb2st";

struct Q2Routine<'a, T: Scalar> {
    call: Q2Call<'a, T>,
    lt: Option<Lt>,
    plan: Option<Q2Plan>,
}

impl<T: Scalar> Q2Routine<'_, T> {
    fn steps(&self, p: &Q2Plan) -> Vec<Step<EigStep>> {
        let c = &self.call;
        let mut v = Vec::new();
        build(
            &mut v,
            (c.n, c.kd, c.m),
            mat(Space::A, 0, c.lda, 0),
            mat(Space::C, 0, c.ldz, 0),
            &p.parts,
            0,
            T::COMPLEX,
        );
        v
    }
}

impl<T: Scalar> Routine for Q2Routine<'_, T> {
    type Plan = Q2Plan;

    fn name(&self) -> &'static str {
        NAME
    }

    fn check_sizes(&mut self) -> Result<(), Error> {
        let c = &self.call;
        check_ld(NAME, "lda", c.lda, c.n, "n")?;
        check_ld(NAME, "ldz", c.ldz, c.n, "n")?;
        if c.kd == 0 {
            return Err(Error::InvalidSize(format!("{NAME}: kd = 0")));
        }
        Ok(())
    }

    fn full(&mut self, h: &mut Handle) -> Result<Option<Q2Plan>, Error> {
        let c = &self.call;
        if levels(c.n, c.kd) == 0 {
            return Ok(None);
        }
        exec_cuda::take_engine(h, &mut self.lt)?;
        let mut p = Q2Plan {
            parts: Q2Parts::new(c.n, c.kd, c.m, 0),
            kd: c.kd,
            elem: std::mem::size_of::<T>(),
            lt: 0,
        };
        if let Some(mut lt) = self.lt.take() {
            let steps = self.steps(&p);
            let layout = p.layout();
            let need = {
                let a = self.call.a;
                let ops = Operands::lapack(
                    Some(Batch::Single(a)),
                    a,
                    BatchMut::Single(&mut *self.call.z),
                    (0, 1),
                );
                exec_cuda::lt_need(&mut lt, &ops, &layout, &steps, LT_MAX_WORKSPACE)
            };
            self.lt = Some(lt);
            p.lt = need?;
        }
        self.plan = Some(p);
        Ok(Some(p))
    }

    fn check_operands(&mut self, h: &mut Handle) -> Result<(), Error> {
        let c = &self.call;
        let ck = Checker { h, call: NAME };
        let why = || format!("A of order n = {} with lda = {}", c.n, c.lda);
        let need = span_or(NAME, mat_span(c.n, c.n, c.lda), &why)?;
        ck.batch("A", &Batch::Single(c.a), need, &why, false, None)?;
        let why = || format!("Z of {} x {} with ldz = {}", c.n, c.m, c.ldz);
        let need = span_or(NAME, mat_span(c.n, c.m, c.ldz), &why)?;
        ck.batch("Z", &Batch::Single(&*c.z), need, &why, true, None)
    }

    fn fitted(&mut self, cap: usize) -> Result<Option<Q2Plan>, Error> {
        Ok(self.plan.filter(|p| p.total() <= cap))
    }

    fn minimum(&self) -> String {
        "needs the diamonds' V, VT, T and W of a level".into()
    }

    fn run(&mut self, lease: &WorkspaceLease<'_>, plan: &Q2Plan) -> Result<(), Error> {
        let steps = self.steps(plan);
        let ws = BlockWorkspace::leased(lease, 0);
        let taus = lease.buffer(BlockWorkspace::PARTS);
        let layout = plan.layout();
        let kt = plan.taus();
        let a = self.call.a;
        match self.lt.take() {
            Some(mut lt) => {
                let family = EigFamily::<T> {
                    qr: QrFamily::Dev(crate::qr::cuda::DevTaus {
                        tau: address(taus),
                        ..Default::default()
                    }),
                    tri: None,
                    sms: 0,
                };
                let r = {
                    let ops = Operands::lapack(
                        Some(Batch::Single(a)),
                        a,
                        BatchMut::Single(&mut *self.call.z),
                        (0, 1),
                    );
                    exec_cuda::run(
                        lease.handle(),
                        &ws,
                        &mut lt,
                        &ops,
                        &layout,
                        &steps,
                        &family,
                        NAME,
                    )
                };
                self.lt = Some(lt);
                r
            }
            None => {
                let mut family = EigFamily::<T> {
                    qr: QrFamily::Host {
                        tau: vec![T::zero(); kt],
                        kt,
                        info: Vec::new(),
                    },
                    tri: None,
                    sms: 0,
                };
                let mut ops = Operands::lapack(
                    Some(Batch::Single(a)),
                    a,
                    BatchMut::Single(&mut *self.call.z),
                    (0, 1),
                );
                exec_host::run(lease.handle(), &ws, &mut ops, &steps, &mut family)
            }
        }
    }

    fn finish(&mut self, h: &mut Handle) {
        exec_cuda::give_back(h, self.lt.take());
    }
}

/// `Z ← Q2 Z` of `call`.
pub(crate) fn q2_apply<T: Scalar>(h: &mut Handle, call: Q2Call<'_, T>) -> Result<Status, Error> {
    drive(
        h,
        &mut Q2Routine {
            call,
            lt: None,
            plan: None,
        },
    )
}

#[cfg(test)]
mod tests {
    //! `Z ← Q2 Z` after stages 1 and 2, against `Q2` built in f64 from the stored reflectors
    //! (`bulge::tests::q2_reference`): on the identity (`Z` becomes `Q2`) and on a random
    //! `n × 5` block with a larger `ldz` (its padding untouched).

    use super::super::band::tests::{max_abs, mul, Elem, Lcg, C};
    use super::super::band::{sy2sb, BandCall};
    use super::super::bulge::tests::q2_reference;
    use super::super::bulge::{sb2st, BulgeCall};
    use super::*;
    use crate::{Complex64, Device, RealScalar};

    fn check<T: Elem>(dev: &Device, n: usize, kd: usize, seed: u64) {
        let cplx = T::COMPLEX;
        let lda = n + 1;
        let mut r = Lcg(seed);
        let mut host = vec![T::zero(); lda * n];
        for j in 0..n {
            for i in j..n {
                let im = if cplx && i != j { r.uni() } else { 0.0 };
                host[i + j * lda] = T::make(C::new(r.uni(), im));
            }
        }
        let mut h = Handle::new(dev).unwrap();
        let mut a = dev.upload(&host).unwrap();
        let mut tau = dev.upload(&vec![T::zero(); n]).unwrap();
        let call = BandCall {
            n,
            kd,
            a: &mut a,
            lda,
            tau: &mut tau,
        };
        assert_eq!(sy2sb(&mut h, call).unwrap(), Status::Success);
        let zero = <T::Real as RealScalar>::from_f64(0.0);
        let mut d = dev.upload(&vec![zero; n]).unwrap();
        let mut e = dev.upload(&vec![zero; n]).unwrap();
        let call = BulgeCall {
            n,
            kd,
            a: &mut a,
            lda,
            d: &mut d,
            e: &mut e,
            vectors: true,
        };
        assert_eq!(sb2st(&mut h, call).unwrap(), Status::Success);
        let q = q2_reference(&a.to_vec().unwrap(), n, kd, lda);
        let what = format!("n = {n}, kd = {kd}, complex = {cplx}");
        let eps = f64::EPSILON;
        // Z = I: Q2 itself.
        let mut ident = vec![T::zero(); n * n];
        for i in 0..n {
            ident[i + i * n] = T::one();
        }
        let mut z = dev.upload(&ident).unwrap();
        let call = Q2Call {
            n,
            kd,
            a: &a,
            lda,
            z: &mut z,
            ldz: n,
            m: n,
        };
        assert_eq!(q2_apply(&mut h, call).unwrap(), Status::Success);
        let got: Vec<C> = z.to_vec().unwrap().iter().map(|x| x.get()).collect();
        let diff: Vec<C> = got.iter().zip(&q).map(|(x, y)| x - y).collect();
        let err = max_abs(&diff) / (n as f64 * eps);
        assert!(err < 30.0, "{what}: ‖Z − Q2‖ {err:.2} × n ε");
        // A random n × 5 block, ldz = n + 3, the padding poisoned.
        let (m, ldz) = (5, n + 3);
        let mut z0 = vec![C::new(0.0, 0.0); n * m];
        let poison = T::make(C::new(f64::NAN, f64::NAN));
        let mut zh = vec![poison; ldz * m];
        for j in 0..m {
            for i in 0..n {
                let v = C::new(r.uni(), if cplx { r.uni() } else { 0.0 });
                z0[i + j * n] = v;
                zh[i + j * ldz] = T::make(v);
            }
        }
        let mut z = dev.upload(&zh).unwrap();
        let call = Q2Call {
            n,
            kd,
            a: &a,
            lda,
            z: &mut z,
            ldz,
            m,
        };
        assert_eq!(q2_apply(&mut h, call).unwrap(), Status::Success);
        let out = z.to_vec().unwrap();
        let mut want = vec![C::new(0.0, 0.0); n * m];
        for j in 0..m {
            for k in 0..n {
                for i in 0..n {
                    want[i + j * n] += q[i + k * n] * z0[k + j * n];
                }
            }
        }
        let mut worst = 0.0f64;
        for j in 0..m {
            for i in 0..ldz {
                let x = out[i + j * ldz].get();
                if i >= n {
                    assert!(x.re.is_nan(), "{what}: padding ({i}, {j}) written");
                } else {
                    worst = worst.max((x - want[i + j * n]).norm());
                }
            }
        }
        let scale = max_abs(&z0);
        assert!(
            worst / (scale * n as f64 * eps) < 30.0,
            "{what}: ‖Q2 Z − ref‖ {:.2} × n ε",
            worst / (scale * n as f64 * eps)
        );
        let _ = mul;
    }

    fn all(dev: &Device) {
        for &(n, kd) in &[
            (2, 16),
            (17, 16),
            (40, 16),
            (50, 16),
            (97, 32),
            (130, 32),
            (300, 64),
        ] {
            check::<f64>(dev, n, kd, n as u64);
            check::<Complex64>(dev, n, kd, 3 + n as u64);
        }
    }

    #[test]
    fn f1_q2_apply_host() {
        all(&Device::host());
    }

    #[test]
    #[ignore = "needs a CUDA GPU; run with --include-ignored on a GPU machine"]
    fn f1_q2_apply_cuda() {
        all(&Device::cuda(0).unwrap());
    }

    #[test]
    fn levels_cover_every_diamond_once() {
        for &(n, kd) in &[(2usize, 16usize), (17, 16), (50, 16), (300, 64), (1000, 32)] {
            let gs = groups(n, kd);
            let mut seen = std::collections::HashSet::new();
            for l in 0..levels(n, kd) {
                let lv = level(n, kd, l);
                for b in 0..lv.count {
                    let g = lv.g_lo + b;
                    assert!(seen.insert((g, l + g + 1 - gs)));
                }
            }
            let all: usize = (0..gs).map(|g| tasks(n, kd, g * kd)).sum();
            assert_eq!(seen.len(), all, "n = {n}, kd = {kd}");
        }
    }
}
