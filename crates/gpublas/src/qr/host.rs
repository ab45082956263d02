//! The host backend of the QR family's own steps: the kernels' rules as loops.

use super::program::QrStep;
use crate::exec::host::Spaces;
use crate::exec::program::{Space, M};
use crate::{Error, Scalar};

/// LAPACK's `safmin` for double (`dlamch('S') / dlamch('E')`): below it `larfg` rescales.
const SAFMIN: f64 = f64::from_bits(54 << 52); // 2^-969

fn parts<T: Scalar>(x: T) -> (f64, f64) {
    crate::common::elem::Blas1Elem::parts(x)
}

fn of_parts<T: Scalar>(re: f64, im: f64) -> T {
    <T as crate::common::elem::Blas1Out>::from_parts(re, im)
}

/// `scale² · ssq`, LAPACK's `lassq`.
fn ssq_add(s: &mut (f64, f64), x: f64) {
    let ax = x.abs();
    if ax.is_nan() {
        s.1 = f64::NAN;
    } else if ax != 0.0 {
        if s.0 < ax {
            let r = s.0 / ax;
            s.1 = 1.0 + s.1 * r * r;
            s.0 = ax;
        } else {
            let r = ax / s.0;
            s.1 += r * r;
        }
    }
}

/// The reflector of `alpha` over a vector of norm `xnorm` (LAPACK's `larfg`, in double):
/// `None` for `H = I`, else (beta, tau, the factor the vector is first multiplied by, then
/// the factor `1 / (alpha − beta)`).
#[allow(clippy::type_complexity)]
fn larfg(ar: f64, ai: f64, xnorm: f64) -> Option<(f64, (f64, f64), f64, (f64, f64))> {
    if xnorm == 0.0 && ai == 0.0 {
        return None;
    }
    let mx = ar.abs().max(ai.abs()).max(xnorm);
    let (a, b, c) = (ar / mx, ai / mx, xnorm / mx);
    let mut beta = mx * (a * a + b * b + c * c).sqrt();
    if ar >= 0.0 {
        beta = -beta;
    }
    let (mut up, mut br, mut sar, mut sai) = (1.0, beta, ar, ai);
    if beta.abs() < SAFMIN {
        up = 1.0 / SAFMIN;
        (br, sar, sai) = (beta * up, ar * up, ai * up);
    }
    let tau = ((br - sar) / br, -sai / br);
    let (dr, di) = (sar - br, sai);
    let s = dr.abs().max(di.abs());
    let (pr, pi) = (dr / s, di / s);
    let q = s * (pr * pr + pi * pi);
    Some((beta, tau, up, (pr / q, -pi / q)))
}

/// LAPACK's `geqr2` on the `rows × cols` block at `a` of `c`: reflectors for the first
/// `min(rows, cols)` columns, applied to every column right of each; scalars to `tau[k0 ..]`.
fn geqr2<T: Scalar>(c: &mut [T], a: M, (rows, cols): (usize, usize), tau: &mut [T], k0: usize) {
    let ld = a.ld;
    let at = |r: usize, col: usize| a.off + r + col * ld;
    for i in 0..cols.min(rows) {
        let mut s = (0.0, 0.0);
        for r in i + 1..rows {
            let (re, im) = parts(c[at(r, i)]);
            ssq_add(&mut s, re);
            ssq_add(&mut s, im);
        }
        let xnorm = s.0 * s.1.sqrt();
        let (ar, ai) = parts(c[at(i, i)]);
        let Some((beta, t, up, scal)) = larfg(ar, ai, xnorm) else {
            tau[k0 + i] = T::zero();
            continue;
        };
        let scal: T = of_parts(scal.0, scal.1);
        let upt = <T::Real as crate::RealScalar>::from_f64(up);
        for r in i + 1..rows {
            let x = if up != 1.0 {
                c[at(r, i)].scale(upt)
            } else {
                c[at(r, i)]
            };
            c[at(r, i)] = x * scal;
        }
        let ctau: T = of_parts(t.0, -t.1);
        for col in i + 1..cols {
            let mut w = c[at(i, col)];
            for r in i + 1..rows {
                w = w + c[at(r, i)].conj() * c[at(r, col)];
            }
            let w = ctau * w;
            c[at(i, col)] = c[at(i, col)] - w;
            for r in i + 1..rows {
                c[at(r, col)] = c[at(r, col)] - c[at(r, i)] * w;
            }
        }
        c[at(i, i)] = of_parts(beta, 0.0);
        tau[k0 + i] = of_parts(t.0, t.1);
    }
}

/// Runs `step` on one entry: `tau` holds the entry's scalars.
pub(crate) fn exec<T: Scalar>(
    sp: &mut Spaces<'_, T>,
    step: &QrStep,
    tau: &mut [T],
    info: Option<&mut i32>,
) -> Result<(), Error> {
    match *step {
        QrStep::Transpose {
            rows,
            cols,
            src,
            dst,
            strict,
        } => {
            let d = sp.take(dst.sp)?;
            {
                let s = sp.get(src.sp);
                for c in 0..cols {
                    for r in 0..rows {
                        d[dst.off + c + r * dst.ld] = if strict && c <= r {
                            T::zero()
                        } else {
                            s[src.off + r + c * src.ld].conj()
                        };
                    }
                }
            }
            sp.put(dst.sp, d);
        }
        QrStep::DiagInfo { k, a } => {
            let c = sp.get(a.sp);
            let zero = crate::common::host::first_zero_diagonal(c, a.off, a.ld, k);
            if let Some(x) = info {
                *x = zero.map_or(0, |i| i as i32 + 1);
            }
        }
        QrStep::Init => {}
        // The host has no CholeskyQR2 panels (its plans have none: `cholqr_device`).
        QrStep::CqGram(_)
        | QrStep::CqReduce { .. }
        | QrStep::CqChol1(_)
        | QrStep::CqSolve(_)
        | QrStep::CqLu(_)
        | QrStep::CqFinish(_)
        | QrStep::CqTFall(_) => {
            return Err(Error::Unsupported(
                "CholeskyQR2 panels run on CUDA devices only".into(),
            ))
        }
        QrStep::Panel {
            rows, cols, a, k0, ..
        } => {
            let c = sp.take(a.sp)?;
            geqr2(c, a, (rows, cols), tau, k0);
            sp.put(a.sp, c);
        }
        QrStep::Small { rows, cols, a } | QrStep::Whole { rows, cols, a } => {
            let c = sp.take(Space::C)?;
            geqr2(c, a, (rows, cols), tau, 0);
            sp.put(Space::C, c);
        }
        QrStep::TFactor { k, g, t, k0, count } => {
            for b in 0..count {
                // G copied first: it may be T's own place.
                let gm = sp.get(g.sp);
                let g0 = g.off + b * g.bs;
                let gb: Vec<T> = (0..k * k).map(|q| gm[g0 + q % k + q / k * g.ld]).collect();
                let gv = |p: usize, i: usize| gb[p + i * k];
                let e = sp.take(t.sp)?;
                let ti = |l: usize, p: usize| t.off + b * t.bs + l + p * t.ld;
                for i in 0..k {
                    let taui = tau[k0 + b * k + i];
                    for l in 0..k {
                        e[ti(l, i)] = if l < i {
                            let mut acc = T::zero();
                            for p in l..i {
                                acc = acc + e[ti(l, p)] * gv(p, i);
                            }
                            -(taui * acc)
                        } else if l == i {
                            taui
                        } else {
                            T::zero()
                        };
                    }
                }
                sp.put(t.sp, e);
            }
        }
        QrStep::OrgBlock { rows, cols, a, x } => {
            let c = sp.take(Space::C)?;
            {
                let xm = sp.get(x.sp);
                let mut vrow = vec![T::zero(); cols];
                for r in 0..rows {
                    for (l, v) in vrow.iter_mut().enumerate() {
                        *v = match r.cmp(&l) {
                            std::cmp::Ordering::Greater => c[a.off + r + l * a.ld],
                            std::cmp::Ordering::Equal => T::one(),
                            std::cmp::Ordering::Less => T::zero(),
                        };
                    }
                    for col in 0..cols {
                        let mut acc = T::zero();
                        for (l, v) in vrow.iter().enumerate() {
                            acc = acc + *v * xm[x.off + l + col * x.ld];
                        }
                        let id = if r == col { T::one() } else { T::zero() };
                        c[a.off + r + col * a.ld] = id - acc;
                    }
                }
            }
            sp.put(Space::C, c);
        }
        QrStep::Identity {
            rows,
            cols,
            a,
            shift,
        } => {
            let c = sp.take(a.sp)?;
            for col in 0..cols {
                for r in 0..rows {
                    c[a.off + r + col * a.ld] = if r == col + shift {
                        T::one()
                    } else {
                        T::zero()
                    };
                }
            }
            sp.put(a.sp, c);
        }
    }
    Ok(())
}
