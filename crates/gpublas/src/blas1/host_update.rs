//! The host backend of the vector updates and rotation set-ups.

use super::update::{Setup, SetupCall, UpdateCall, UpdateKind, XOperand};
use crate::common::host::{at, coef_value, not_host, Par};
use crate::{Error, RealScalar, Scalar};

/// Elements per piece of a unit-stride update: pieces (of one long vector or of many short
/// ones) spread over the threads. Every element is computed alone, so the split never changes
/// a bit.
const PIECE: usize = 1 << 14;

/// One piece of a unit-stride update: x read and y written (axpy, copy), x written (scal), or
/// both written (swap, rot, rotm).
enum Piece<'s, T> {
    In(&'s [T], &'s mut [T]),
    Out(&'s mut [T]),
    Both(&'s mut [T], &'s mut [T]),
}

/// A piece with its entry's scalars (alpha or s; rot's c; rotm's H as [h11, h21, h12, h22]),
/// as a pulp operation so the loop is compiled for the CPU's vector unit.
struct Apply<'s, T: Scalar> {
    kind: UpdateKind,
    alpha: T,
    cr: T::Real,
    h: [T; 4],
    piece: Piece<'s, T>,
}

impl<T: Scalar> pulp::WithSimd for Apply<'_, T> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        apply(self)
    }
}

/// The same formulas as the strided loop in [`run`], element by element.
#[inline(always)]
fn apply<T: Scalar>(a: Apply<'_, T>) {
    let Apply {
        kind,
        alpha,
        cr,
        h,
        piece,
    } = a;
    match piece {
        Piece::In(x, y) => match kind {
            UpdateKind::Axpy => y
                .iter_mut()
                .zip(x)
                .for_each(|(yi, &xi)| *yi = alpha * xi + *yi),
            _ => y.copy_from_slice(x),
        },
        Piece::Out(x) => x.iter_mut().for_each(|xi| *xi = alpha * *xi),
        Piece::Both(x, y) => match kind {
            UpdateKind::Swap => x.swap_with_slice(y),
            UpdateKind::Rot => x.iter_mut().zip(y).for_each(|(xi, yi)| {
                let (a, b) = (*xi, *yi);
                *xi = a.scale(cr) + alpha * b;
                *yi = b.scale(cr) - alpha.conj() * a;
            }),
            _ => {
                let [h11, h21, h12, h22] = h;
                x.iter_mut().zip(y).for_each(|(xi, yi)| {
                    let (a, b) = (*xi, *yi);
                    *xi = h11 * a + h12 * b;
                    *yi = h21 * a + h22 * b;
                })
            }
        },
    }
}

/// Unit-stride updates: every entry cut into pieces of [`PIECE`] elements, the pieces of all
/// entries spread over the threads. `Ok(false)` (nothing written) where the entries are not
/// disjoint slices of at least `n` elements, which the strided loop then handles.
fn run_unit<T: Scalar>(c: &mut UpdateCall<'_, '_, T>, par: &Par) -> Result<bool, Error> {
    let n = c.n;
    let batch = c.x.view().count();
    let one = [T::one(), T::zero(), T::zero(), T::one()];
    let mut scalars = Vec::with_capacity(batch);
    for e in 0..batch {
        let h = match &c.param {
            // flag -2 (None): the identity, nothing to do
            Some(p) => rotm_matrix(
                p.host_entry(e)
                    .and_then(|p| p.get(..5))
                    .ok_or_else(not_host)?,
            ),
            None => Some(one),
        };
        scalars.push((coef_value(&c.alpha, e)?, coef_value(&c.c, e)?, h));
    }
    let kind = c.kind;
    let mut pieces: Vec<Apply<'_, T>> = Vec::new();
    match (&mut c.x, &mut c.y) {
        (XOperand::In(xb), Some(yb)) => {
            let Some(ys) = yb.host_entries_mut() else {
                return Ok(false);
            };
            for (e, y) in ys.into_iter().enumerate() {
                let x = xb.host_entry(e).ok_or_else(not_host)?;
                let (alpha, cr, h) = scalars[e];
                let (Some(x), Some(y)) = (x.get(..n), y.get_mut(..n)) else {
                    return Ok(false);
                };
                for (xp, yp) in x.chunks(PIECE).zip(y.chunks_mut(PIECE)) {
                    pieces.push(Apply {
                        kind,
                        alpha,
                        cr,
                        h: h.unwrap_or(one),
                        piece: Piece::In(xp, yp),
                    });
                }
            }
        }
        (XOperand::Out(xb), None) => {
            let Some(xs) = xb.host_entries_mut() else {
                return Ok(false);
            };
            for (e, x) in xs.into_iter().enumerate() {
                let (alpha, cr, h) = scalars[e];
                let Some(x) = x.get_mut(..n) else {
                    return Ok(false);
                };
                for xp in x.chunks_mut(PIECE) {
                    pieces.push(Apply {
                        kind,
                        alpha,
                        cr,
                        h: h.unwrap_or(one),
                        piece: Piece::Out(xp),
                    });
                }
            }
        }
        (XOperand::Out(xb), Some(yb)) => {
            let (Some(xs), Some(ys)) = (xb.host_entries_mut(), yb.host_entries_mut()) else {
                return Ok(false);
            };
            for (e, (x, y)) in xs.into_iter().zip(ys).enumerate() {
                let (alpha, cr, h) = scalars[e];
                let (Some(x), Some(y)) = (x.get_mut(..n), y.get_mut(..n)) else {
                    return Ok(false);
                };
                let Some(h) = h else { continue };
                for (xp, yp) in x.chunks_mut(PIECE).zip(y.chunks_mut(PIECE)) {
                    pieces.push(Apply {
                        kind,
                        alpha,
                        cr,
                        h,
                        piece: Piece::Both(xp, yp),
                    });
                }
            }
        }
        (XOperand::In(_), None) => {}
    }
    let arch = pulp::Arch::new();
    par.map_items(pieces, |a| arch.dispatch(a));
    Ok(true)
}

/// Index of element `i` for an increment that may be 0 (one element visited `n` times).
fn idx(n: usize, inc: isize, i: usize) -> usize {
    if inc == 0 {
        0
    } else {
        at(n, inc, i)
    }
}

/// Unit strides run in parallel pieces; everything else runs reference BLAS's loop, step `i`
/// after step `i - 1`, so an output increment of 0 chains the steps as reference BLAS does.
pub(super) fn run<T: Scalar>(c: &mut UpdateCall<'_, '_, T>, par: &Par) -> Result<(), Error> {
    let x_unit = c.incx == 1;
    let y_unit = c.y.is_none() || c.incy == 1;
    if x_unit && y_unit && run_unit(c, par)? {
        return Ok(());
    }
    let n = c.n;
    let batch = c.x.view().count();
    let (incx, incy) = (c.incx, c.incy);
    for e in 0..batch {
        let alpha = coef_value(&c.alpha, e)?;
        let cr = coef_value(&c.c, e)?;
        let param: Option<Vec<T>> = match &c.param {
            Some(p) => Some(p.host_entry(e).ok_or_else(not_host)?[..5].to_vec()),
            None => None,
        };
        match (&mut c.x, &mut c.y) {
            (XOperand::In(xb), Some(yb)) => {
                let x = xb.host_entry(e).ok_or_else(not_host)?;
                let y = yb.host_entry_mut(e).ok_or_else(not_host)?;
                for i in 0..n {
                    let xi = x[idx(n, incx, i)];
                    let yi = &mut y[idx(n, incy, i)];
                    *yi = match c.kind {
                        UpdateKind::Axpy => alpha * xi + *yi,
                        _ => xi,
                    };
                }
            }
            (XOperand::Out(xb), None) => {
                let x = xb.host_entry_mut(e).ok_or_else(not_host)?;
                for i in 0..n {
                    let xi = &mut x[at(n, incx, i)];
                    *xi = alpha * *xi;
                }
            }
            (XOperand::Out(xb), Some(yb)) => {
                let x = xb.host_entry_mut(e).ok_or_else(not_host)?;
                let y = yb.host_entry_mut(e).ok_or_else(not_host)?;
                let h = param.as_deref().map(rotm_matrix);
                if matches!(h, Some(None)) {
                    continue; // flag -2: identity
                }
                for i in 0..n {
                    let (ix, iy) = (idx(n, incx, i), idx(n, incy, i));
                    let (xi, yi) = (x[ix], y[iy]);
                    let (nx, ny) = match c.kind {
                        UpdateKind::Swap => (yi, xi),
                        UpdateKind::Rot => {
                            (xi.scale(cr) + alpha * yi, yi.scale(cr) - alpha.conj() * xi)
                        }
                        _ => {
                            let [h11, h21, h12, h22] =
                                h.flatten()
                                    .unwrap_or([T::one(), T::zero(), T::zero(), T::one()]);
                            (h11 * xi + h12 * yi, h21 * xi + h22 * yi)
                        }
                    };
                    x[ix] = nx;
                    y[iy] = ny;
                }
            }
            (XOperand::In(_), None) => {}
        }
    }
    Ok(())
}

/// rotm's `H` as [h11, h21, h12, h22] from `[flag, h11, h21, h12, h22]`; `None` for the
/// identity (flag -2).
fn rotm_matrix<T: Scalar>(p: &[T]) -> Option<[T; 4]> {
    let flag = p[0].re().to_f64();
    let one = T::one();
    if flag == -2.0 {
        None
    } else if flag < 0.0 {
        Some([p[1], p[2], p[3], p[4]])
    } else if flag == 0.0 {
        Some([one, p[2], p[3], one])
    } else {
        Some([p[1], -one, one, p[4]])
    }
}

pub(super) fn setup<T: Scalar>(c: &mut SetupCall<'_, '_, T>) -> Result<(), Error> {
    let batch = c.ops[0].1.count();
    for e in 0..batch {
        match c.kind {
            Setup::Rotg => {
                let a = c.ops[0].1.host_entry_mut(e).ok_or_else(not_host)?[0];
                let b = c.ops[1].1.host_entry_mut(e).ok_or_else(not_host)?[0];
                let (r, z, cc, s) = rotg_values(a, b);
                c.ops[0].1.host_entry_mut(e).ok_or_else(not_host)?[0] = r;
                if !T::COMPLEX {
                    c.ops[1].1.host_entry_mut(e).ok_or_else(not_host)?[0] = z;
                }
                c.ops[2].1.host_entry_mut(e).ok_or_else(not_host)?[0] = s;
                if let Some(rb) = c.real.as_mut() {
                    rb.host_entry_mut(e).ok_or_else(not_host)?[0] = cc;
                }
            }
            Setup::Rotmg => {
                let get = |c: &mut SetupCall<'_, '_, T>, k: usize| -> Result<f64, Error> {
                    Ok(c.ops[k].1.host_entry_mut(e).ok_or_else(not_host)?[0]
                        .re()
                        .to_f64())
                };
                let (d1, d2, x1) = (get(c, 0)?, get(c, 1)?, get(c, 2)?);
                let y1 = c
                    .input
                    .as_ref()
                    .and_then(|i| i.host_entry(e))
                    .ok_or_else(not_host)?[0]
                    .re()
                    .to_f64();
                let (d1, d2, x1, p) = rotmg_values(d1, d2, x1, y1);
                for (k, v) in [(0, d1), (1, d2), (2, x1)] {
                    c.ops[k].1.host_entry_mut(e).ok_or_else(not_host)?[0] =
                        T::from_real(T::Real::from_f64(v));
                }
                let out = c.ops[3].1.host_entry_mut(e).ok_or_else(not_host)?;
                for &k in rotmg_written(p[0]) {
                    out[k] = T::from_real(T::Real::from_f64(p[k]));
                }
            }
        }
    }
    Ok(())
}

/// Reference BLAS `?rotg` (classic form; complex `a = 0` as reference 3.10+): returns
/// (r, z, c, s).
pub(crate) fn rotg_values<T: Scalar>(a: T, b: T) -> (T, T, T::Real, T) {
    let zero = T::Real::zero();
    let one = T::Real::one();
    if T::COMPLEX {
        let abs = |v: T| {
            let (re, im) = crate::common::elem::Blas1Elem::parts(v);
            T::Real::from_f64(re.hypot(im))
        };
        let (na, nb) = (abs(a), abs(b));
        if na == zero {
            // Reference BLAS 3.10+: r = |b| (real), s = conj(b) / |b|, c = 0; the identity
            // (c = 1, s = 0, r = 0) when b is 0 too.
            if nb == zero {
                return (T::zero(), b, one, T::zero());
            }
            return (T::from_real(nb), b, zero, b.conj().unscale(nb));
        }
        // Divisions by the real values, as reference zrotg: their reciprocals overflow when
        // `|a|` is subnormal (then inf × 0 gave NaN).
        let scale = na + nb;
        let sa = abs(a.unscale(scale));
        let sb = abs(b.unscale(scale));
        let norm = scale * (sa * sa + sb * sb).sqrt();
        let alpha = a.unscale(na);
        let c = na / norm;
        let s = (alpha * b.conj()).unscale(norm);
        (alpha.scale(norm), b, c, s)
    } else {
        let (ra, rb) = (a.re(), b.re());
        let roe = if ra.abs() > rb.abs() { ra } else { rb };
        let scale = ra.abs() + rb.abs();
        if scale == zero {
            return (T::zero(), T::zero(), one, T::zero());
        }
        let (qa, qb) = (ra / scale, rb / scale);
        let mut r = scale * (qa * qa + qb * qb).sqrt();
        if roe < zero {
            r = -r;
        }
        let c = ra / r;
        let s = rb / r;
        let mut z = one;
        if ra.abs() > rb.abs() {
            z = s;
        }
        // 1 / c only where c is not 0. The divisor is chosen first and hidden from the
        // optimizer: it turns `1 / select(c != 0, c, 1)` into `select(c != 0, 1 / c, 1)`, which
        // divides by 0 (raising divide-by-zero) for a value it throws away.
        let inv_c = one / std::hint::black_box(if c != zero { c } else { one });
        if rb.abs() >= ra.abs() && c != zero {
            z = inv_c;
        }
        (T::from_real(r), T::from_real(z), c, T::from_real(s))
    }
}

/// The `param` entries reference BLAS writes for a flag: the flag, and only the entries of
/// `H` that the flag does not imply.
pub(crate) fn rotmg_written(flag: f64) -> &'static [usize] {
    if flag == -2.0 {
        &[0]
    } else if flag < 0.0 {
        &[0, 1, 2, 3, 4]
    } else if flag == 0.0 {
        &[0, 2, 3]
    } else {
        &[0, 1, 4]
    }
}

/// Reference BLAS `drotmg`: returns (d1, d2, x1, param); see `rotmg_written` for which
/// entries of `param` are stored.
pub(crate) fn rotmg_values(
    mut d1: f64,
    mut d2: f64,
    mut x1: f64,
    y1: f64,
) -> (f64, f64, f64, [f64; 5]) {
    const GAM: f64 = 4096.0;
    const GAMSQ: f64 = 16777216.0;
    const RGAMSQ: f64 = 5.9604645e-8;
    let (mut h11, mut h12, mut h21, mut h22) = (0.0, 0.0, 0.0, 0.0);
    let mut flag;
    if d1 < 0.0 {
        flag = -1.0;
        d1 = 0.0;
        d2 = 0.0;
        x1 = 0.0;
    } else {
        let p2 = d2 * y1;
        if p2 == 0.0 {
            return (d1, d2, x1, [-2.0, 0.0, 0.0, 0.0, 0.0]);
        }
        let p1 = d1 * x1;
        let q2 = p2 * y1;
        let q1 = p1 * x1;
        if q1.abs() > q2.abs() {
            h21 = -y1 / x1;
            h12 = p2 / p1;
            let u = 1.0 - h12 * h21;
            if u > 0.0 {
                flag = 0.0;
                d1 /= u;
                d2 /= u;
                x1 *= u;
            } else {
                flag = -1.0;
                h11 = 0.0;
                h12 = 0.0;
                h21 = 0.0;
                h22 = 0.0;
                d1 = 0.0;
                d2 = 0.0;
                x1 = 0.0;
            }
        } else if q2 < 0.0 {
            flag = -1.0;
            h11 = 0.0;
            h12 = 0.0;
            h21 = 0.0;
            h22 = 0.0;
            d1 = 0.0;
            d2 = 0.0;
            x1 = 0.0;
        } else {
            flag = 1.0;
            h11 = p1 / p2;
            h22 = x1 / y1;
            let u = 1.0 + h11 * h22;
            let t = d2 / u;
            d2 = d1 / u;
            d1 = t;
            x1 = y1 * u;
        }
        if d1 != 0.0 {
            while d1 <= RGAMSQ || d1 >= GAMSQ {
                if flag == 0.0 {
                    h11 = 1.0;
                    h22 = 1.0;
                    flag = -1.0;
                } else {
                    h21 = -1.0;
                    h12 = 1.0;
                    flag = -1.0;
                }
                if d1 <= RGAMSQ {
                    d1 *= GAM * GAM;
                    x1 /= GAM;
                    h11 /= GAM;
                    h12 /= GAM;
                } else {
                    d1 /= GAM * GAM;
                    x1 *= GAM;
                    h11 *= GAM;
                    h12 *= GAM;
                }
            }
        }
        if d2 != 0.0 {
            while d2.abs() <= RGAMSQ || d2.abs() >= GAMSQ {
                if flag == 0.0 {
                    h11 = 1.0;
                    h22 = 1.0;
                    flag = -1.0;
                } else {
                    h21 = -1.0;
                    h12 = 1.0;
                    flag = -1.0;
                }
                if d2.abs() <= RGAMSQ {
                    d2 *= GAM * GAM;
                    h21 /= GAM;
                    h22 /= GAM;
                } else {
                    d2 /= GAM * GAM;
                    h21 *= GAM;
                    h22 *= GAM;
                }
            }
        }
    }
    let p = if flag < 0.0 {
        [flag, h11, h21, h12, h22]
    } else if flag == 0.0 {
        [flag, 0.0, h21, h12, 0.0]
    } else {
        [flag, h11, 0.0, 0.0, h22]
    };
    (d1, d2, x1, p)
}
