//! The eigensolvers' own program steps, beside the QR family's (their programs run QR's
//! panels and `T` factors too), and what runs them on either backend.

use crate::device::{param, Stream};
use crate::exec::cuda::Bases;
use crate::exec::host::Spaces;
use crate::exec::program::{Space, M};
use crate::exec::FamilySteps;
use crate::kernels::EIG;
use crate::qr::program::QrStep;
use crate::qr::QrFamily;
use crate::{Error, Scalar};

/// A step of an eigensolver program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EigStep {
    /// A step of the QR family.
    Qr(QrStep),
    /// The dense `V` (`2 kd × kd` each, `2 kd²` apart, at `v`) and the taus (`kd` each, from
    /// the family's `tau[k0]`) of the `count` diamonds of level `level` from group `g_lo` on,
    /// from the stage-2 reflectors in the strict upper triangle of the order-`n` matrix at
    /// `a` (`q2.rs` says what a diamond and a level are).
    Diamonds {
        a: M,
        n: usize,
        kd: usize,
        groups: usize,
        level: usize,
        g_lo: usize,
        count: usize,
        v: M,
        k0: usize,
    },
}

/// Mirrors `Diap` in eig.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Diap {
    a: u64,
    lda: i64,
    v: u64,
    tau: u64,
    n: i64,
    kd: i32,
    g_lo: i32,
    level: i32,
    groups: i32,
}

/// What runs an eigensolver program's own steps: the QR family's runner (its taus are the
/// program's taus) and the eigensolvers' steps.
pub(crate) struct EigFamily<T> {
    pub qr: QrFamily<T>,
}

/// Where the elements of a diamond's reflector lie: (group, task, first row).
fn diamond(kd: usize, groups: usize, level: usize, g: usize) -> (usize, usize, usize) {
    let t = level + g + 1 - groups;
    (g, t, g * kd + 1 + t * kd)
}

impl<T: Scalar> FamilySteps for EigFamily<T> {
    type Step = EigStep;

    fn launch<U: Scalar>(
        &self,
        stream: &Stream,
        step: &EigStep,
        bases: &Bases,
        entries: (usize, usize),
        side: bool,
    ) -> Result<(), Error> {
        match step {
            EigStep::Qr(s) => self.qr.launch::<U>(stream, s, bases, entries, side),
            &EigStep::Diamonds {
                a,
                n,
                kd,
                groups,
                level,
                g_lo,
                count,
                v,
                k0,
            } => {
                let QrFamily::Dev(d) = &self.qr else {
                    return Err(Error::InvalidValue(
                        "an eigensolver step ran on the other backend than its program's".into(),
                    ));
                };
                let elem = std::mem::size_of::<U>() as u64;
                let addr = |x: M| bases.of(x.sp).0 + x.off as u64 * elem;
                let p = Diap {
                    a: addr(a),
                    lda: a.ld as i64,
                    v: addr(v),
                    tau: d.tau + k0 as u64 * elem,
                    n: n as i64,
                    kd: kd as i32,
                    g_lo: g_lo as i32,
                    level: level as i32,
                    groups: groups as i32,
                };
                let mut prm = [param(&p)];
                stream.launch_with(
                    &EIG,
                    &format!("eig_diamonds_{}", U::TAG),
                    (count as u32, 1, 1),
                    (256, 0),
                    false,
                    &mut prm,
                )
            }
        }
    }

    fn exec<U: Scalar>(
        &mut self,
        spaces: &mut Spaces<'_, U>,
        step: &EigStep,
        entry: usize,
    ) -> Result<(), Error> {
        match step {
            EigStep::Qr(s) => self.qr.exec(spaces, s, entry),
            &EigStep::Diamonds {
                a,
                n,
                kd,
                groups,
                level,
                g_lo,
                count,
                v,
                k0,
            } => {
                let QrFamily::Host { tau, .. } = &mut self.qr else {
                    return Err(Error::InvalidValue(
                        "an eigensolver step ran on the other backend than its program's".into(),
                    ));
                };
                let taus: &mut [U] = bytemuck::try_cast_slice_mut(&mut tau[..])
                    .map_err(|e| Error::InvalidValue(format!("taus of another type: {e}")))?;
                if a.sp == Space::R || v.sp != Space::R {
                    return Err(Error::InvalidValue(
                        "diamonds read the reflectors outside R and write V in R".into(),
                    ));
                }
                let out = spaces.take(Space::R)?;
                let src = spaces.get(a.sp);
                for b in 0..count {
                    let (g, t, z0) = diamond(kd, groups, level, g_lo + b);
                    let vb = &mut out[v.off + b * 2 * kd * kd..][..2 * kd * kd];
                    let tb = &mut taus[k0 + b * kd..][..kd];
                    for c in 0..kd {
                        let s = g * kd + c;
                        let exists = s + 2 <= n && z0 + c < n;
                        let col = &mut vb[c * 2 * kd..][..2 * kd];
                        col.fill(U::zero());
                        tb[c] = U::zero();
                        if !exists {
                            continue;
                        }
                        let len = kd.min(n - z0 - c);
                        let base = a.off + (n - 1 - s) * a.ld + t * kd;
                        tb[c] = src[base];
                        col[c] = U::one();
                        col[c + 1..c + len].copy_from_slice(&src[base + 1..base + len]);
                    }
                }
                spaces.put(Space::R, out);
                Ok(())
            }
        }
    }
}
