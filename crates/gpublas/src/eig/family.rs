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
use crate::{Error, RealScalar, Scalar};

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
    /// The order-`n` matrix at `a` (both triangles) scaled by a power of two into the range
    /// stage 2's sums of squares take, when the largest magnitude of its lower triangle lies
    /// outside it (stage 3 unscales the eigenvalues); its diagonal's imaginary parts zeroed.
    Scale { n: usize, a: M },
    /// Stage 2 (`bulge.rs`): the band of `kd` in the lower triangle of the order-`n` matrix at
    /// `a` to the tridiagonal (the family's `d`, `e`), through the band copy at `ab` (R);
    /// with `vectors` the reflectors to `a`'s strict upper triangle.
    Sb2st {
        n: usize,
        kd: usize,
        a: M,
        ab: M,
        vectors: bool,
    },
    /// Stage 3 on the host: the tridiagonal's eigenvalues to the call's `W` and `info` (and,
    /// with `vectors`, its eigenvectors to `z`, `n × n`); it waits for the stream. A
    /// tridiagonal that is not finite (the input was not) gives NaN values and vectors and
    /// `info = n + 1`.
    Tridiag { n: usize, vectors: bool, z: M },
    /// Stage 3 without vectors, on the device: the tridiagonal's eigenvalues by bisection to
    /// the call's `W`, `info` to the family's `info_dev` (`n + 1` when not finite).
    Bisect { n: usize },
}

/// Mirrors `Bisectp` in eig.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Bisectp {
    d: u64,
    e: u64,
    w: u64,
    amax: u64,
    info: u64,
    n: i64,
    iters: i32,
    pad: i32,
}

/// Halvings of the bisection: enough to reach adjacent values from the Gershgorin interval
/// (it stops there).
fn bisect_iters(real: usize) -> i32 {
    if real == 4 {
        48
    } else {
        96
    }
}

/// Mirrors `Scalep` in eig.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Scalep {
    a: u64,
    lda: i64,
    n: i64,
    amax: u64,
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
/// program's taus) and the eigensolvers' steps, with where the tridiagonal and the results
/// are (none for programs without stages 2 and 3).
pub(crate) struct EigFamily<T: Scalar> {
    pub qr: QrFamily<T>,
    pub tri: Option<Tri<T::Real>>,
    /// The device's multiprocessors (stage 2's blocks in flight).
    pub sms: usize,
}

/// The tridiagonal and the call's results: device addresses on CUDA (`info` kept here: stage
/// 3 runs on the host), the values on the host.
pub(crate) enum Tri<R> {
    Dev {
        /// `d` (`n` reals), `e` after it (`n`), the sweeps' counters (`n` u32).
        d: u64,
        e: u64,
        prog: u64,
        /// The largest magnitude (a double's bits, `Scale`'s).
        amax: u64,
        /// The entry's eigenvalues.
        w: u64,
        info: std::cell::Cell<i32>,
        /// Where `Bisect` writes the entry's `info` (an i32).
        info_dev: u64,
    },
    Host {
        d: Vec<R>,
        e: Vec<R>,
        w: Vec<R>,
        info: i32,
        /// The scale factor `Scale` applied.
        sigma: f64,
    },
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
            &EigStep::Scale { n, a } => {
                let Some(Tri::Dev { amax, .. }) = &self.tri else {
                    return Err(wrong_backend());
                };
                let elem = std::mem::size_of::<U>() as u64;
                let p = Scalep {
                    a: bases.of(a.sp).0 + a.off as u64 * elem,
                    lda: a.ld as i64,
                    n: n as i64,
                    amax: *amax,
                };
                stream.memset32(*amax, 0, 2)?;
                let blocks = (n * n).div_ceil(256).min(4 * self.sms.max(1)) as u32;
                for k in ["amax", "scale"] {
                    let mut prm = [param(&p)];
                    stream.launch_with(
                        &EIG,
                        &format!("eig_{k}_{}", U::TAG),
                        (blocks.max(1), 1, 1),
                        (256, 0),
                        false,
                        &mut prm,
                    )?;
                }
                Ok(())
            }
            &EigStep::Sb2st {
                n,
                kd,
                a,
                ab,
                vectors,
            } => {
                let Some(Tri::Dev { d, e, prog, .. }) = &self.tri else {
                    return Err(wrong_backend());
                };
                let elem = std::mem::size_of::<U>() as u64;
                let addr = |x: M| bases.of(x.sp).0 + x.off as u64 * elem;
                super::bulge::launch_sweeps::<U>(
                    stream,
                    self.sms,
                    (addr(a), a.ld),
                    addr(ab),
                    (*d, *e, *prog),
                    (n, kd),
                    vectors,
                )
            }
            &EigStep::Bisect { n } => {
                let Some(Tri::Dev {
                    d,
                    e,
                    amax,
                    w,
                    info_dev,
                    ..
                }) = &self.tri
                else {
                    return Err(wrong_backend());
                };
                let real = std::mem::size_of::<T::Real>();
                let p = Bisectp {
                    d: *d,
                    e: *e,
                    w: *w,
                    amax: *amax,
                    info: *info_dev,
                    n: n as i64,
                    iters: bisect_iters(real),
                    pad: 0,
                };
                let tag = if real == 4 { "s" } else { "d" };
                let mut prm = [param(&p)];
                stream.launch_with(
                    &EIG,
                    &format!("eig_bisect_{tag}"),
                    ((n as u32).div_ceil(128), 1, 1),
                    (128, 0),
                    false,
                    &mut prm,
                )
            }
            &EigStep::Tridiag { n, vectors, z } => {
                let Some(Tri::Dev {
                    d,
                    e,
                    amax,
                    w,
                    info,
                    ..
                }) = &self.tri
                else {
                    return Err(wrong_backend());
                };
                let real = std::mem::size_of::<T::Real>();
                let mut dv = vec![T::Real::zero(); n];
                let mut ev = vec![T::Real::zero(); n];
                let mut am = [0u64];
                stream.read_bytes(*d, bytemuck::cast_slice_mut(&mut dv))?;
                stream.read_bytes(*e, bytemuck::cast_slice_mut(&mut ev[..n - 1]))?;
                stream.read_bytes(*amax, bytemuck::cast_slice_mut(&mut am))?;
                let sigma = super::host::scale_factor::<T::Real>(f64::from_bits(am[0]));
                let (wv, zv, code) = stage3::<T>(&dv, &ev[..n - 1], vectors, sigma)?;
                stream.write_bytes(*w, bytemuck::cast_slice(&wv))?;
                let _ = real;
                if vectors {
                    let elem = std::mem::size_of::<U>() as u64;
                    let base = bases.of(z.sp).0 + z.off as u64 * elem;
                    if z.ld == n {
                        stream.write_bytes(base, bytemuck::cast_slice(&zv))?;
                    } else {
                        for j in 0..n {
                            let col = bytemuck::cast_slice(&zv[j * n..(j + 1) * n]);
                            stream.write_bytes(base + (j * z.ld) as u64 * elem, col)?;
                        }
                    }
                }
                info.set(code);
                Ok(())
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
            &EigStep::Scale { n, a } => {
                let Some(Tri::Host { sigma, .. }) = &mut self.tri else {
                    return Err(wrong_backend());
                };
                let m = spaces.take(a.sp)?;
                let mut amax = 0.0f64;
                for j in 0..n {
                    for i in j..n {
                        let (re, im) = super::host::split(m[a.off + i + j * a.ld]);
                        let im = if i == j { 0.0 } else { im.to_f64().abs() };
                        let (re, im) = (re.to_f64().abs(), im);
                        amax = if re.is_nan() || im.is_nan() || amax.is_nan() {
                            f64::NAN
                        } else {
                            amax.max(re).max(im)
                        };
                    }
                }
                *sigma = super::host::scale_factor::<U::Real>(amax);
                // (the diagonal's imaginary parts zeroed, as `eig_scale` does)
                let f = U::Real::from_f64(*sigma);
                for j in 0..n {
                    for i in 0..n {
                        if *sigma == 1.0 && i != j {
                            continue;
                        }
                        let x = &mut m[a.off + i + j * a.ld];
                        let (re, im) = super::host::split(*x);
                        let im = if i == j { U::Real::zero() } else { im * f };
                        *x = super::host::join::<U>(re * f, im);
                    }
                }
                spaces.put(a.sp, m);
                Ok(())
            }
            &EigStep::Sb2st {
                n, kd, a, vectors, ..
            } => {
                let Some(Tri::Host { d, e, .. }) = &mut self.tri else {
                    return Err(wrong_backend());
                };
                let m = spaces.take(a.sp)?;
                let (dv, ev) = super::bulge::sweeps(n, kd, &mut m[a.off..], a.ld, vectors);
                spaces.put(a.sp, m);
                *d = cast_reals(&dv)?;
                *e = cast_reals(&ev)?;
                Ok(())
            }
            &EigStep::Bisect { n } => {
                let Some(Tri::Host {
                    d,
                    e,
                    w,
                    info,
                    sigma,
                }) = &mut self.tri
                else {
                    return Err(wrong_backend());
                };
                let real = std::mem::size_of::<T::Real>();
                let (wv, code) =
                    super::host::bisect(d, &e[..n.saturating_sub(1)], *sigma, bisect_iters(real));
                *w = wv;
                *info = code;
                Ok(())
            }
            &EigStep::Tridiag { n, vectors, z } => {
                let Some(Tri::Host {
                    d,
                    e,
                    w,
                    info,
                    sigma,
                }) = &mut self.tri
                else {
                    return Err(wrong_backend());
                };
                let (wv, zv, code) = stage3::<T>(d, &e[..n.saturating_sub(1)], vectors, *sigma)?;
                *w = wv;
                *info = code;
                if vectors {
                    let out = spaces.take(z.sp)?;
                    let zs: &[U] = bytemuck::try_cast_slice(&zv)
                        .map_err(|e| Error::InvalidValue(format!("Z of another type: {e}")))?;
                    for j in 0..n {
                        out[z.off + j * z.ld..][..n].copy_from_slice(&zs[j * n..(j + 1) * n]);
                    }
                    spaces.put(z.sp, out);
                }
                Ok(())
            }
        }
    }
}

fn wrong_backend() -> Error {
    Error::InvalidValue("an eigensolver step ran on the other backend than its program's".into())
}

/// Reals of the program's type from reals of the step's (the same type, by its size).
fn cast_reals<X: bytemuck::Pod, Y: bytemuck::Pod>(v: &[X]) -> Result<Vec<Y>, Error> {
    bytemuck::try_cast_slice(v)
        .map(|s: &[Y]| s.to_vec())
        .map_err(|e| Error::InvalidValue(format!("reals of another type: {e}")))
}

/// Stage 3 of the tridiagonal (`d`, `e`): the eigenvalues ascending, with `vectors` the
/// eigenvectors as `T` (`n × n`), and `info` (0; 1: not converged; `n + 1`: not finite, the
/// values and vectors NaN); the eigenvalues divided by `sigma` (`Scale`'s factor).
#[allow(clippy::type_complexity)]
fn stage3<T: Scalar>(
    d: &[T::Real],
    e: &[T::Real],
    vectors: bool,
    sigma: f64,
) -> Result<(Vec<T::Real>, Vec<T>, i32), Error> {
    let n = d.len();
    let finite = d.iter().chain(e).all(|x| x.to_f64().is_finite());
    if !finite {
        let nan = T::Real::from_f64(f64::NAN);
        let zs = if vectors {
            vec![super::host::join::<T>(nan, nan); n * n]
        } else {
            Vec::new()
        };
        return Ok((vec![nan; n], zs, i32::try_from(n + 1).unwrap_or(i32::MAX)));
    }
    let (mut w, z, ok) = super::host::tridiagonal(d, e, vectors)?;
    if sigma != 1.0 {
        // (σ a power of two: exact)
        let inv = T::Real::from_f64(1.0 / sigma);
        for x in &mut w {
            *x = *x * inv;
        }
    }
    let zs = z
        .iter()
        .map(|&x| super::host::join::<T>(x, T::Real::zero()))
        .collect();
    Ok((w, zs, if ok { 0 } else { 1 }))
}
