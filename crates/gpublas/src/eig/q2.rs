//! Applying stage 2's reflectors: `Z ← Q2 Z` (the back-transformation's first half), one
//! reflector at a time in one launch (`kernels/eig_q2.cu`).
//!
//! Stage 2 (`bulge.rs`) leaves reflector `(s, t)` of sweep `s`, task `t` (rows `s + 1 + t·kd ..`,
//! at most `kd` of them) in column `n − 1 − s` of A's strict upper triangle. `Q2` is their
//! product in the order the sweeps made them; a sweep's reflectors share no row, so they
//! commute. The order applied here: group `g` holds sweeps `g·kd .. g·kd + kd`, diamond
//! `(g, t)` task `t` of those (rows `g·kd + 1 + t·kd ..`, `2 kd − 1` of them). `Q2 Z` applies
//! the groups descending, a group's diamonds `t` ascending, a diamond's sweeps descending: each
//! reflector after every one that `Q2` puts right of it and whose rows it meets.
//!
//! CUDA: a block per slab of `Z`'s columns walks that order with several groups in flight, a
//! window of `2 kd` rows per group in registers (complex f64 at `kd` 32: three quarters of
//! it, the rest parked in shared memory; the kernel's header says how), so `Z` is read and
//! written once per round of groups instead of once per diamond level; no workspace. The host
//! applies the reflectors one by one in the same order.

use super::family::EigStep;
use crate::exec::program::{Step, M};
use crate::Scalar;

/// Band widths the kernel is built for (`eig_q2_<kd>` in eig_q2.cu).
pub(crate) const KDS: [usize; 2] = [16, 32];

/// Groups of sweeps of an order-`n` band of `kd`.
pub(crate) fn groups(n: usize, kd: usize) -> usize {
    n.saturating_sub(1).div_ceil(kd)
}

/// Tasks of sweep `s`.
fn tasks(n: usize, kd: usize, s: usize) -> usize {
    n.saturating_sub(1 + s).div_ceil(kd)
}

/// Warps (groups in flight) of the kernel's block for elements of `elem` bytes
/// (`Q2_WARPS` in eig_q2.cu).
pub(crate) fn warps(elem: usize) -> usize {
    if elem == 16 {
        4
    } else {
        8
    }
}

/// Columns of `Z` per block: a lane per column, two for complex types.
pub(crate) fn columns_per_block(complex: bool) -> usize {
    if complex {
        16
    } else {
        32
    }
}

/// The kernel's shared memory in bytes (its layout in eig_q2.cu): per warp two diamonds'
/// reflectors and a half window, and two half windows of rows for the first warp; complex f64
/// at `kd` 32 (`Q2Split`) parks two quarter windows per lane too.
pub(crate) fn smem_bytes(kd: usize, elem: usize, complex: bool) -> usize {
    let tile = columns_per_block(complex) * (kd + 1) * elem;
    let park = if elem == 16 && kd == 32 {
        2 * (kd / 2) * 32 * (elem / 2)
    } else {
        0
    };
    warps(elem) * (2 * kd * kd * elem + tile + park) + 2 * tile
}

/// Appends `Z ← Q2 Z`: `z` the first element of `Z` (`n × m`), `a` the matrix holding the
/// reflectors (band `kd`, one of [`KDS`] on CUDA).
pub(crate) fn build(v: &mut Vec<Step<EigStep>>, (n, kd, m): (usize, usize, usize), a: M, z: M) {
    if groups(n, kd) > 0 && m > 0 {
        v.push(Step::Family(EigStep::ApplyQ2 { a, n, kd, z, m }));
    }
}

/// `Z ← Q2 Z` on the host, reflector by reflector in the kernel's order: `a` holds the
/// reflectors (leading dimension `lda`), `z` is `n × m` (`ldz`).
pub(crate) fn apply_host<T: Scalar>(
    (n, kd, m): (usize, usize, usize),
    a: &[T],
    lda: usize,
    z: &mut [T],
    ldz: usize,
) {
    let mut v = vec![T::zero(); kd];
    for g in (0..groups(n, kd)).rev() {
        for t in 0..tasks(n, kd, g * kd) {
            for c in (0..kd).rev() {
                let s = g * kd + c;
                let row = s + 1 + t * kd;
                if s + 2 > n || row >= n {
                    continue;
                }
                let len = kd.min(n - row);
                let col = &a[(n - 1 - s) * lda + t * kd..][..len];
                let tau = col[0];
                v[0] = T::one();
                v[1..len].copy_from_slice(&col[1..len]);
                for j in 0..m {
                    let zc = &mut z[row + j * ldz..][..len];
                    let mut d = T::zero();
                    for i in 0..len {
                        d = d + v[i].conj() * zc[i];
                    }
                    let w = tau * d;
                    for i in 0..len {
                        zc[i] = zc[i] - v[i] * w;
                    }
                }
            }
        }
    }
}

/// `Q2` on its own, for the stages' tests.
#[cfg(test)]
pub(crate) mod single {
    use super::{build, EigStep, KDS};
    use crate::common::operand::{check_ld, mat_span, span_or, Batch, BatchMut, Checker};
    use crate::common::plan::{drive, Routine, WorkspacePlan};
    use crate::device::lt::Lt;
    use crate::device::DeviceBuffer;
    use crate::exec::program::{mat, Space, Step};
    use crate::exec::workspace::BlockWorkspace;
    use crate::exec::{cuda as exec_cuda, host as exec_host, Layout, Operands};
    use crate::{Error, Handle, Scalar, Status, WorkspaceLease};

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

    /// Its plan: no workspace beside the engine's (none: the program has no products).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(crate) struct Q2Plan;

    impl WorkspacePlan for Q2Plan {
        fn sizes(&self) -> smallvec::SmallVec<[usize; 4]> {
            let b = BlockWorkspace {
                lt: 0,
                slots: 0,
                e_blocks: 0,
                r_results: 0,
            };
            smallvec::SmallVec::from_buf(b.list())
        }
    }

    const NAME: &str = "ormtr_sb2st";

    struct Q2Routine<'a, T: Scalar> {
        call: Q2Call<'a, T>,
        lt: Option<Lt>,
    }

    impl<T: Scalar> Q2Routine<'_, T> {
        fn steps(&self) -> Vec<Step<EigStep>> {
            let c = &self.call;
            let mut v = Vec::new();
            build(
                &mut v,
                (c.n, c.kd, c.m),
                mat(Space::A, 0, c.lda, 0),
                mat(Space::C, 0, c.ldz, 0),
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
            if !KDS.contains(&c.kd) {
                return Err(Error::InvalidSize(format!(
                    "{NAME}: kd = {} (the kernel takes {KDS:?})",
                    c.kd
                )));
            }
            Ok(())
        }

        fn full(&mut self, h: &mut Handle) -> Result<Option<Q2Plan>, Error> {
            if self.steps().is_empty() {
                return Ok(None);
            }
            exec_cuda::take_engine(h, &mut self.lt)?;
            Ok(Some(Q2Plan))
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

        fn fitted(&mut self, _cap: usize) -> Result<Option<Q2Plan>, Error> {
            Ok(Some(Q2Plan))
        }

        fn minimum(&self) -> String {
            "needs no workspace".into()
        }

        fn run(&mut self, lease: &WorkspaceLease<'_>, _plan: &Q2Plan) -> Result<(), Error> {
            let steps = self.steps();
            let ws = BlockWorkspace::leased(lease, 0);
            let layout = Layout {
                entries: 1,
                e_elems: 0,
                r_elems: 0,
            };
            let a = self.call.a;
            let family = crate::eig::family::EigFamily::<T> {
                qr: crate::qr::QrFamily::Host {
                    tau: Vec::new(),
                    kt: 0,
                    info: Vec::new(),
                },
                tri: None,
                sms: 0,
            };
            match self.lt.take() {
                Some(mut lt) => {
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
                    let mut family = family;
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
    pub(crate) fn q2_apply<T: Scalar>(
        h: &mut Handle,
        call: Q2Call<'_, T>,
    ) -> Result<Status, Error> {
        drive(h, &mut Q2Routine { call, lt: None })
    }
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
    use super::single::{q2_apply, Q2Call};
    use super::*;
    use crate::{Complex64, Device, Handle, RealScalar, Status};

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
        let eps = if std::mem::size_of::<T::Real>() == 4 {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        };
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
            (300, 16),
            (300, 32),
            (513, 32),
        ] {
            check::<f64>(dev, n, kd, n as u64);
            check::<Complex64>(dev, n, kd, 3 + n as u64);
        }
        // single precision through each band width's kernel
        for &(n, kd) in &[(130, 16), (300, 32)] {
            check::<f32>(dev, n, kd, 5 + n as u64);
            check::<crate::Complex32>(dev, n, kd, 7 + n as u64);
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
    fn smem_fits_a_block() {
        // (Hopper's 227 KiB a block may opt into; the four types' element sizes)
        for kd in KDS {
            for (elem, complex) in [(4, false), (8, false), (8, true), (16, true)] {
                let b = smem_bytes(kd, elem, complex);
                assert!(b <= 227 * 1024, "kd {kd}, {elem}-byte elements: {b} bytes");
            }
        }
    }
}
