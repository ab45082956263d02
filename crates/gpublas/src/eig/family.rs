//! The eigensolvers' own program steps, beside the QR family's (their programs run QR's
//! panels and `T` factors too), and what runs them on either backend.

use super::dc::{self, DcReal, DcState};
use crate::device::{param, Stream};
use crate::exec::cuda::Bases;
use crate::exec::host::Spaces;
use crate::exec::program::{Space, M};
use crate::exec::FamilySteps;
use crate::kernels::EIG;
use crate::kernels::EIG_DC;
use crate::kernels::EIG_Q2;
use crate::qr::program::QrStep;
use crate::qr::QrFamily;
use crate::{Error, RealScalar, Scalar};

/// A step of an eigensolver program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EigStep {
    /// A step of the QR family.
    Qr(QrStep),
    /// `Z ← Q2 Z` (`q2.rs`): the stage-2 reflectors of band `kd` in the strict upper triangle
    /// of the order-`n` matrix at `a`, `Z` (`n × m`) at `z`, in another space than `a`.
    ApplyQ2 {
        a: M,
        n: usize,
        kd: usize,
        z: M,
        m: usize,
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
    /// Stage 3 without vectors, on the device: the tridiagonal's eigenvalues by bisection to
    /// the call's `W`, `info` to the family's `info_dev` (`n + 1` when not finite).
    Bisect { n: usize },
    /// Stage 3 with vectors (`dc.rs`, a program over reals): the tridiagonal scaled and torn.
    DcInit { n: usize },
    /// The leaves (`leaf` rows) eigenvalues to `d`, their vectors to their compact blocks at
    /// `z` (`dc.rs` says the layout).
    DcLeaves { n: usize, leaf: usize, z: M },
    /// The merges of the level with children of `half`: their `U` to the compact blocks at
    /// `u` (leading dimension `u.ld`; with `u_bottom`, the one merge's rows from `half` on
    /// there), from the children's vectors compact at `z`; the merged eigenvalues to `d`.
    DcMerge {
        n: usize,
        half: usize,
        z: M,
        u: M,
        u_bottom: Option<M>,
    },
    /// The eigenvalues unscaled to the call's `W`, `info`; with `widen` the eigenvectors `z`
    /// widened into the complex matrix there (elements of the complex type).
    DcFinish { n: usize, z: M, widen: Option<M> },
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

/// Mirrors `Q2p` in eig_q2.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Q2p {
    a: u64,
    lda: i64,
    z: u64,
    ldz: i64,
    n: i64,
    m: i64,
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

/// The tridiagonal and the call's results: device addresses on CUDA, the values on the host.
pub(crate) enum Tri<R> {
    Dev {
        /// `d` (`n` reals), `e` after it (`n`), the sweeps' counters (`2n` u32).
        d: u64,
        e: u64,
        prog: u64,
        /// The largest magnitude (a double's bits, `Scale`'s).
        amax: u64,
        /// The entry's eigenvalues.
        w: u64,
        /// Where stage 3 writes the entry's `info` (an i32).
        info_dev: u64,
        /// The divide and conquer's scratch (`dc::scratch_bytes`; 0 without vectors).
        dc: u64,
    },
    Host {
        d: Vec<R>,
        e: Vec<R>,
        w: Vec<R>,
        info: i32,
        /// The scale factor `Scale` applied.
        sigma: f64,
        /// The divide and conquer's state between its steps.
        dc: DcState,
    },
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
            &EigStep::ApplyQ2 { a, n, kd, z, m } => {
                if !super::q2::KDS.contains(&kd) {
                    return Err(Error::InvalidSize(format!(
                        "Q2's kernel takes bands of {:?}, not kd = {kd}",
                        super::q2::KDS
                    )));
                }
                let elem = std::mem::size_of::<U>();
                let addr = |x: M| bases.of(x.sp).0 + (x.off * elem) as u64;
                let p = Q2p {
                    a: addr(a),
                    lda: a.ld as i64,
                    z: addr(z),
                    ldz: z.ld as i64,
                    n: n as i64,
                    m: m as i64,
                };
                let cols = super::q2::columns_per_block(U::COMPLEX);
                let smem = super::q2::smem_bytes(kd, elem, U::COMPLEX);
                let mut prm = [param(&p)];
                stream.launch_with(
                    &EIG_Q2,
                    &format!("eig_q2_{kd}_{}", U::TAG),
                    (m.div_ceil(cols) as u32, 1, 1),
                    (32 * super::q2::warps(elem) as u32, smem as u32),
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
                // BISECT_WAYS (eig.cu) lanes an eigenvalue
                let lanes = 8 * n as u32;
                stream.launch_with(
                    &EIG,
                    &format!("eig_bisect_{tag}"),
                    (lanes.div_ceil(128), 1, 1),
                    (128, 0),
                    false,
                    &mut prm,
                )
            }
            EigStep::DcInit { .. }
            | EigStep::DcLeaves { .. }
            | EigStep::DcMerge { .. }
            | EigStep::DcFinish { .. } => self.launch_dc::<U>(stream, step, bases),
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
            &EigStep::ApplyQ2 { a, n, kd, z, m } => {
                if a.sp == z.sp {
                    return Err(Error::InvalidValue(
                        "Q2's reflectors and Z in one space".into(),
                    ));
                }
                let out = spaces.take(z.sp)?;
                let src = spaces.get(a.sp);
                super::q2::apply_host((n, kd, m), &src[a.off..], a.ld, &mut out[z.off..], z.ld);
                spaces.put(z.sp, out);
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
                    ..
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
            EigStep::DcInit { .. }
            | EigStep::DcLeaves { .. }
            | EigStep::DcMerge { .. }
            | EigStep::DcFinish { .. } => self.exec_dc(spaces, step),
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

/// Mirrors `Dcp` in eig_dc.cu.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Dcp {
    d: u64,
    e: u64,
    w: u64,
    amax: u64,
    info: u64,
    scratch: u64,
    z: u64,
    u: u64,
    zc: u64,
    u2: u64,
    n: i64,
    ldz: i64,
    ldu: i64,
    ldu2: i64,
    ldc: i64,
    half: i64,
}

/// Threads of the merge kernels' blocks (`DC_THREADS` in eig_dc.cu).
const DC_THREADS: u32 = 128;

impl<T: Scalar> EigFamily<T> {
    /// The divide and conquer's steps on the device (a program over `T::Real`).
    fn launch_dc<U: Scalar>(
        &self,
        stream: &Stream,
        step: &EigStep,
        bases: &Bases,
    ) -> Result<(), Error> {
        let Some(Tri::Dev {
            d,
            e,
            amax,
            w,
            info_dev,
            dc,
            ..
        }) = &self.tri
        else {
            return Err(wrong_backend());
        };
        let real = std::mem::size_of::<T::Real>();
        if std::mem::size_of::<U>() != real {
            return Err(Error::InvalidValue(
                "the divide and conquer runs in a program over reals".into(),
            ));
        }
        let addr = |x: M| bases.of(x.sp).0 + (x.off * real) as u64;
        let mut p = Dcp {
            d: *d,
            e: *e,
            w: *w,
            amax: *amax,
            info: *info_dev,
            scratch: *dc,
            ..Dcp::default()
        };
        let tag = if real == 4 { "s" } else { "d" };
        let go = |name: &str, p: &Dcp, grid: usize, threads: u32| {
            let mut prm = [param(p)];
            stream.launch_with(
                &EIG_DC,
                &format!("eig_dc_{name}_{tag}"),
                (grid.max(1) as u32, 1, 1),
                (threads, 0),
                false,
                &mut prm,
            )
        };
        match *step {
            EigStep::DcInit { n } => {
                (p.n, p.half) = (n as i64, dc::leaf(n) as i64);
                go("init", &p, 1, 1024)
            }
            EigStep::DcLeaves { n, leaf, z } => {
                (p.n, p.z, p.half) = (n as i64, addr(z), leaf as i64);
                go("leaves", &p, n.div_ceil(leaf), 32)
            }
            EigStep::DcMerge {
                n,
                half,
                z,
                u,
                u_bottom,
            } => {
                (p.n, p.half) = (n as i64, half as i64);
                (p.z, p.u, p.ldu) = (addr(z), addr(u), u.ld as i64);
                if let Some(b) = u_bottom {
                    (p.u2, p.ldu2) = (addr(b), b.ld as i64);
                }
                let merges = n.div_ceil(2 * half);
                go("prep", &p, merges, DC_THREADS)?;
                // (a warp per root)
                go(
                    "secular",
                    &p,
                    (n * 32).div_ceil(DC_THREADS as usize),
                    DC_THREADS,
                )?;
                go("weights", &p, n.div_ceil(DC_THREADS as usize), DC_THREADS)?;
                go("vectors", &p, n, DC_THREADS)
            }
            EigStep::DcFinish { n, z, widen } => {
                (p.n, p.z, p.ldz) = (n as i64, addr(z), z.ld as i64);
                if let Some(c) = widen {
                    p.zc = bases.of(c.sp).0 + (c.off * 2 * real) as u64;
                    p.ldc = c.ld as i64;
                }
                go("finish", &p, (n * n).div_ceil(256).min(1024), 256)
            }
            _ => Err(wrong_backend()),
        }
    }

    /// The divide and conquer's steps on the host (`dc.rs`'s algorithm).
    fn exec_dc<U: Scalar>(
        &mut self,
        spaces: &mut Spaces<'_, U>,
        step: &EigStep,
    ) -> Result<(), Error> {
        let r = spaces.take(Space::R)?;
        let out = if std::mem::size_of::<T::Real>() == 4 {
            self.exec_dc_in::<f32, U>(r, step)
        } else {
            self.exec_dc_in::<f64, U>(r, step)
        };
        spaces.put(Space::R, r);
        out
    }

    fn exec_dc_in<R: DcReal + bytemuck::Pod, U: Scalar>(
        &mut self,
        r: &mut [U],
        step: &EigStep,
    ) -> Result<(), Error> {
        let Some(Tri::Host {
            d,
            e,
            w,
            info,
            sigma,
            dc: st,
        }) = &mut self.tri
        else {
            return Err(wrong_backend());
        };
        let cast = |e: bytemuck::PodCastError| Error::InvalidValue(format!("reals: {e}"));
        let space: &mut [R] = bytemuck::try_cast_slice_mut(r).map_err(cast)?;
        let dv: &mut [R] = bytemuck::try_cast_slice_mut(&mut d[..]).map_err(cast)?;
        let ev: &mut [R] = bytemuck::try_cast_slice_mut(&mut e[..]).map_err(cast)?;
        match *step {
            EigStep::DcInit { .. } => *st = dc::init(dv, ev),
            EigStep::DcLeaves { n, leaf, z } => {
                st.failed |= !dc::leaves(&mut dv[..n], ev, &mut space[z.off..], leaf);
            }
            EigStep::DcMerge {
                n,
                half,
                z,
                u,
                u_bottom,
            } => {
                dc::merge_level(space, &mut dv[..n], ev, half, (z, u, u_bottom));
            }
            EigStep::DcFinish { n, z, widen } => {
                let nan = R::from_f64(f64::NAN);
                let f = R::from_f64(st.tnorm / *sigma);
                let wv: Vec<R> = dv[..n]
                    .iter()
                    .map(|&x| if st.finite { x * f } else { nan })
                    .collect();
                *w = cast_reals(&wv)?;
                *info = if !st.finite {
                    i32::try_from(n + 1).unwrap_or(i32::MAX)
                } else {
                    i32::from(st.failed)
                };
                for j in 0..n {
                    for i in 0..n {
                        let x = &mut space[z.off + i + j * z.ld];
                        if !st.finite {
                            *x = nan;
                        }
                        if let Some(c) = widen {
                            let v = *x;
                            let at = 2 * (c.off + i + j * c.ld);
                            space[at] = v;
                            space[at + 1] = R::zero();
                        }
                    }
                }
            }
            _ => return Err(wrong_backend()),
        }
        Ok(())
    }
}
