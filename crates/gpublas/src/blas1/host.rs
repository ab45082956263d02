//! The host backend of the Level-1 reductions: the kernels' algorithm in plain Rust, partial
//! states in the leased workspace, the same plan (blocks per vector) as on the GPU.

use super::{Blas1Elem, Blas1Out, Call, Kind, Plan, Results};
use crate::device::host_workspace_bytes;
use crate::{Error, WorkspaceLease};

/// Blue's constants for f64 (LAPACK dnrm2).
const TSML: f64 = f64::from_bits(0x2000000000000000); // 2^-511
const TBIG: f64 = f64::from_bits(0x5E50000000000000); // 2^486
const SSML: f64 = f64::from_bits(0x6180000000000000); // 2^537
const SBIG: f64 = f64::from_bits(0x1E50000000000000); // 2^-538

/// A block's partial state, as f64 words: asum [s]; dot [re, im]; nrm2 [big, med, sml];
/// iamax/iamin [value (NaN = none), 0-based index].
fn identity(kind: Kind, st: &mut [f64]) {
    st.fill(0.0);
    if matches!(kind, Kind::Iamax | Kind::Iamin) {
        st[0] = f64::NAN;
        st[1] = f64::MAX;
    }
}

fn blue(st: &mut [f64], v: f64) {
    let ax = v.abs();
    if ax > TBIG {
        st[0] += (ax * SBIG) * (ax * SBIG);
    } else if ax < TSML {
        st[2] += (ax * SSML) * (ax * SSML);
    } else {
        st[1] += ax * ax;
    }
}

fn better(max: bool, bv: f64, bi: f64, av: f64, ai: f64) -> bool {
    if bv.is_nan() {
        return false;
    }
    if av.is_nan() {
        return true;
    }
    (if max { bv > av } else { bv < av }) || (bv == av && bi < ai)
}

fn step<E: Blas1Elem>(kind: Kind, st: &mut [f64], x: E, y: Option<E>, i: usize) {
    match kind {
        Kind::Asum => {
            let (re, im) = x.parts();
            st[0] += re.abs() + im.abs();
        }
        Kind::Nrm2 => {
            let (re, im) = x.parts();
            blue(st, re);
            blue(st, im);
        }
        Kind::Dot | Kind::Dotc => {
            let (xr, mut xi) = x.parts();
            let (yr, yi) = y.map(|y| y.parts()).unwrap_or((0.0, 0.0));
            if kind == Kind::Dotc {
                xi = -xi;
            }
            st[0] += xr * yr - xi * yi;
            st[1] += xr * yi + xi * yr;
        }
        Kind::Iamax | Kind::Iamin => {
            let m = x.mag();
            if better(kind == Kind::Iamax, m, i as f64, st[0], st[1]) {
                st[0] = m;
                st[1] = i as f64;
            }
        }
    }
}

fn combine(kind: Kind, st: &mut [f64], o: &[f64]) {
    match kind {
        Kind::Iamax | Kind::Iamin => {
            if better(kind == Kind::Iamax, o[0], o[1], st[0], st[1]) {
                st[0] = o[0];
                st[1] = o[1];
            }
        }
        _ => st.iter_mut().zip(o).for_each(|(a, b)| *a += b),
    }
}

fn nrm2_finish(big: f64, med: f64, sml: f64) -> f64 {
    if big > 0.0 {
        let big = if med > 0.0 || med.is_nan() {
            big + (med * SBIG) * SBIG
        } else {
            big
        };
        return big.sqrt() / SBIG;
    }
    if sml > 0.0 {
        if med > 0.0 || med.is_nan() {
            let m = med.sqrt();
            let l = sml.sqrt() / SSML;
            let (ymin, ymax) = if l > m { (m, l) } else { (l, m) };
            let r = ymin / ymax;
            return ymax * (1.0 + r * r).sqrt();
        }
        return sml.sqrt() / SSML;
    }
    med.sqrt()
}

fn finish<E: Blas1Elem, R: Blas1Out>(kind: Kind, st: &[f64], x0: E) -> R {
    match kind {
        Kind::Asum => R::from_parts(st[0], 0.0),
        Kind::Nrm2 => R::from_parts(nrm2_finish(st[0], st[1], st[2]), 0.0),
        Kind::Dot | Kind::Dotc => R::from_parts(st[0], st[1]),
        Kind::Iamax | Kind::Iamin => {
            let idx = if x0.mag().is_nan() || st[0].is_nan() {
                1.0
            } else {
                st[1] + 1.0
            };
            R::from_parts(idx, 0.0)
        }
    }
}

/// Element index of logical element `i` of a vector of `n` at increment `inc` from `off`.
fn at(off: usize, n: usize, inc: isize, i: usize) -> usize {
    if inc >= 0 {
        off + i * inc as usize
    } else {
        off + (n - 1 - i) * inc.unsigned_abs()
    }
}

pub(super) fn run<E: Blas1Elem, R: Blas1Out>(
    lease: &WorkspaceLease<'_>,
    c: &mut Call<'_, E, R>,
    plan: Plan,
) -> Result<(), Error> {
    let words = c.kind.partial_bytes() / 8;
    let part_slice = lease
        .buffer(0)
        .map(|s| (s.device_ptr(), s.len()))
        .unwrap_or((0, 0));
    let parts: &mut [f64] = if plan.g > 1 {
        bytemuck::cast_slice_mut(host_workspace_bytes(part_slice.0, part_slice.1))
    } else {
        &mut []
    };
    let mut st = vec![0.0f64; words];
    let batch = c.x.count();
    let n = c.n;
    let mut results: Vec<R> = Vec::with_capacity(batch);
    for v0 in (0..batch).step_by(plan.chunk) {
        let m = plan.chunk.min(batch - v0);
        for v in v0..v0 + m {
            let (xb, xo) = c.x.entry(v);
            let xs = xb
                .host_slice()
                .ok_or_else(|| Error::InvalidPointer("x is not host memory".into()))?;
            let ys = match &c.y {
                Some((yb, incy)) => {
                    let (b, o) = yb.entry(v);
                    Some((
                        b.host_slice()
                            .ok_or_else(|| Error::InvalidPointer("y is not host memory".into()))?,
                        o,
                        *incy,
                    ))
                }
                None => None,
            };
            let g = plan.g;
            for b in 0..g {
                identity(c.kind, &mut st);
                for i in b * n / g..(b + 1) * n / g {
                    let xv = xs[at(xo, n, c.incx, i)];
                    let yv = ys.map(|(ys, yo, incy)| ys[at(yo, n, incy, i)]);
                    step(c.kind, &mut st, xv, yv, i);
                }
                if g > 1 {
                    let k = ((v - v0) * g + b) * words;
                    parts[k..k + words].copy_from_slice(&st);
                }
            }
            if g > 1 {
                identity(c.kind, &mut st);
                for b in 0..g {
                    let k = ((v - v0) * g + b) * words;
                    combine(c.kind, &mut st, &parts[k..k + words]);
                }
            }
            results.push(finish(c.kind, &st, xs[xo]));
        }
    }
    match &mut c.out {
        Results::Host(dst) => dst[..batch].copy_from_slice(&results),
        Results::Device(buf) => {
            let dst = buf
                .host_slice_mut()
                .ok_or_else(|| Error::InvalidPointer("results buffer is not host memory".into()))?;
            dst[..batch].copy_from_slice(&results);
        }
    }
    Ok(())
}
