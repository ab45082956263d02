//! The host backend of the Level-1 reductions: the kernels' algorithm in plain Rust, partial
//! states in the leased workspace, the same plan (blocks per vector) as on the GPU.

use super::{Blas1Elem, Blas1Out, Blas1Workspace, Call, Kind, Plan, Results};
use crate::device::host_workspace_bytes;
use crate::memory::WorkspaceSlice;
use crate::{Error, Handle};

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

/// Independent accumulators per unit-stride loop: enough for the compiler to keep several
/// vector registers busy.
const LANES: usize = 8;

/// `sum x·y` (conjugated x for dotc) over unit-stride slices, as (re, im).
#[inline(always)]
fn dot_unit<E: Blas1Elem, const CPLX: bool>(x: &[E], y: &[E], conj: bool) -> (f64, f64) {
    let mut re = [0.0f64; LANES];
    let mut im = [0.0f64; LANES];
    let mut xc = x.chunks_exact(LANES);
    let mut yc = y.chunks_exact(LANES);
    for (xa, ya) in (&mut xc).zip(&mut yc) {
        for k in 0..LANES {
            let (xr, xi) = xa[k].parts();
            let (yr, yi) = ya[k].parts();
            if CPLX {
                let xi = if conj { -xi } else { xi };
                re[k] += xr * yr - xi * yi;
                im[k] += xr * yi + xi * yr;
            } else {
                re[k] += xr * yr;
            }
        }
    }
    for (xv, yv) in xc.remainder().iter().zip(yc.remainder()) {
        let (xr, xi) = xv.parts();
        let (yr, yi) = yv.parts();
        let xi = if conj { -xi } else { xi };
        re[0] += xr * yr - xi * yi;
        im[0] += xr * yi + xi * yr;
    }
    (re.iter().sum(), im.iter().sum())
}

/// `sum |re| + |im|` over a unit-stride slice. Real types leave out the imaginary part's
/// `+ 0.0`, which the compiler may not fold (one add per element less).
#[inline(always)]
fn asum_unit<E: Blas1Elem, const CPLX: bool>(x: &[E]) -> f64 {
    let mut s = [0.0f64; LANES];
    let mut xc = x.chunks_exact(LANES);
    for xa in &mut xc {
        for k in 0..LANES {
            let (r, i) = xa[k].parts();
            s[k] += if CPLX { r.abs() + i.abs() } else { r.abs() };
        }
    }
    for v in xc.remainder() {
        let (r, i) = v.parts();
        s[0] += r.abs() + i.abs();
    }
    s.iter().sum()
}

/// Blue's three sums over a unit-stride slice (big, medium, small).
#[inline(always)]
fn nrm2_unit<E: Blas1Elem, const WIDE: bool, const CPLX: bool>(x: &[E]) -> [f64; 3] {
    // Components narrower than f64 square without overflow or underflow in f64: one sum.
    // f64 components take one pass of plain squares with the largest magnitude beside it, and
    // only when that lies outside Blue's safe range a second pass with his scaling.
    let mut med = [0.0f64; LANES];
    let mut top = [0.0f64; LANES];
    let mut xc = x.chunks_exact(LANES);
    for xa in &mut xc {
        for k in 0..LANES {
            let (r, i) = xa[k].parts();
            med[k] += if CPLX { r * r + i * i } else { r * r };
            if WIDE {
                // Plain comparisons (one vector max each); NaN makes `med` NaN anyway.
                let ar = r.abs();
                top[k] = if ar > top[k] { ar } else { top[k] };
                if CPLX {
                    let ai = i.abs();
                    top[k] = if ai > top[k] { ai } else { top[k] };
                }
            }
        }
    }
    for v in xc.remainder() {
        let (r, i) = v.parts();
        med[0] += r * r + i * i;
        top[0] = top[0].max(r.abs()).max(i.abs());
    }
    let amax = top.iter().fold(0.0f64, |m, v| m.max(*v));
    if !WIDE || amax == 0.0 || (TSML..=TBIG).contains(&amax) {
        return [0.0, med.iter().sum(), 0.0];
    }
    let mut st = [0.0f64; 3];
    for v in x {
        let (r, i) = v.parts();
        blue(&mut st, r);
        blue(&mut st, i);
    }
    st
}

/// Elements per piece of iamax/iamin's search: a piece's extreme is a plain vectorised
/// reduction, and only a piece that beats the best so far is scanned again (in cache) for
/// the index.
const EXT_PIECE: usize = 2048;

/// The first extreme magnitude of a unit-stride slice whose element 0 has index `base`:
/// [value (NaN: none), index]. NaN is never picked. Real f32 compares its magnitudes as f32
/// (exact, and four times fewer operations than widening each to f64 first).
#[inline(always)]
fn iamax_unit<E: Blas1Elem>(x: &[E], base: usize, max: bool) -> [f64; 2] {
    if E::TAG == "s" {
        if let Ok(x) = bytemuck::try_cast_slice::<E, f32>(x) {
            return iamax_by::<f32, f32, 16>(x, base, max, |v| v.abs());
        }
    }
    iamax_by::<E, f64, LANES>(x, base, max, |v| v.mag())
}

/// A magnitude iamax/iamin compares: f32 or f64.
trait Mag: Copy + PartialOrd + Into<f64> {
    const NEG: Self;
    const INF: Self;
}

impl Mag for f32 {
    const NEG: f32 = -1.0;
    const INF: f32 = f32::INFINITY;
}

impl Mag for f64 {
    const NEG: f64 = -1.0;
    const INF: f64 = f64::INFINITY;
}

#[inline(always)]
fn iamax_by<E: Copy, M: Mag, const L: usize>(
    x: &[E],
    base: usize,
    max: bool,
    mag: impl Fn(E) -> M,
) -> [f64; 2] {
    let mut st = [f64::NAN, f64::MAX];
    let start = if max { M::NEG } else { M::INF };
    let mut best = start;
    for (p, piece) in x.chunks(EXT_PIECE).enumerate() {
        let mut lane = [start; L];
        let mut xc = piece.chunks_exact(L);
        for xa in &mut xc {
            for k in 0..L {
                // Plain comparisons (one vector max or min each): NaN compares false and is
                // never kept.
                let m = mag(xa[k]);
                let better = if max { m > lane[k] } else { m < lane[k] };
                lane[k] = if better { m } else { lane[k] };
            }
        }
        for &v in xc.remainder() {
            let m = mag(v);
            if (max && m > lane[0]) || (!max && m < lane[0]) {
                lane[0] = m;
            }
        }
        let ext = lane.iter().fold(start, |a, &v| {
            let better = if max { v > a } else { v < a };
            if better {
                v
            } else {
                a
            }
        });
        let none = st[0].is_nan();
        // Equal values keep the earlier index, so only a strictly better piece counts; with
        // nothing found yet, any non-NaN element counts (for iamin: infinities too).
        let scan = if none {
            if max {
                ext > M::NEG
            } else {
                true
            }
        } else if max {
            ext > best
        } else {
            ext < best
        };
        if scan {
            #[allow(clippy::eq_op)]
            if let Some(j) = piece.iter().position(|&v| {
                let m = mag(v);
                m == ext || (none && !max && ext == M::INF && m == m)
            }) {
                best = mag(piece[j]);
                st = [best.into(), (base + p * EXT_PIECE + j) as f64];
            }
        }
    }
    st
}

/// One vector's operands: x (slice, offset), y if any (slice, offset, increment).
type Operands<'s, E> = (&'s [E], usize, Option<(&'s [E], usize, isize)>);

/// The partial state of logical elements `lo..hi` of one vector whose operands have unit
/// stride; inlined into the caller's SIMD context.
#[inline(always)]
fn unit_block<E: Blas1Elem>(
    kind: Kind,
    ops: &Operands<'_, E>,
    lo: usize,
    hi: usize,
    cplx: bool,
) -> [f64; 3] {
    let (xs, xo, ys) = *ops;
    let mut st = [0.0f64; 3];
    let x = &xs[xo + lo..xo + hi];
    match kind {
        Kind::Dot | Kind::Dotc => {
            let (ys, yo, _) = ys.unwrap_or((xs, xo, 1));
            let y = &ys[yo + lo..yo + hi];
            let (re, im) = if cplx {
                dot_unit::<E, true>(x, y, kind == Kind::Dotc)
            } else {
                dot_unit::<E, false>(x, y, false)
            };
            st[0] = re;
            st[1] = im;
        }
        Kind::Asum => {
            st[0] = if cplx {
                asum_unit::<E, true>(x)
            } else {
                asum_unit::<E, false>(x)
            }
        }
        Kind::Nrm2 => {
            st = match (matches!(E::TAG, "d" | "z"), cplx) {
                (true, true) => nrm2_unit::<E, true, true>(x),
                (true, false) => nrm2_unit::<E, true, false>(x),
                (false, true) => nrm2_unit::<E, false, true>(x),
                (false, false) => nrm2_unit::<E, false, false>(x),
            }
        }
        Kind::Iamax | Kind::Iamin => {
            let r = iamax_unit(x, lo, kind == Kind::Iamax);
            st[0] = r[0];
            st[1] = r[1];
        }
    }
    st
}

/// [`unit_block`] as a pulp operation: `with_simd` is inlined into pulp's function compiled for
/// the CPU's vector unit, and `unit_block` into it, so the loops vectorise for that unit (a
/// closure would stay out of line, compiled for the baseline).
struct UnitBlock<'o, 's, E> {
    kind: Kind,
    ops: &'o Operands<'s, E>,
    lo: usize,
    hi: usize,
    cplx: bool,
}

impl<E: Blas1Elem> pulp::WithSimd for UnitBlock<'_, '_, E> {
    type Output = [f64; 3];

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) -> [f64; 3] {
        unit_block(self.kind, self.ops, self.lo, self.hi, self.cplx)
    }
}

/// The partial state of logical elements `lo..hi` of one vector.
fn block<E: Blas1Elem>(
    kind: Kind,
    n: usize,
    incx: isize,
    ops: &Operands<'_, E>,
    lo: usize,
    hi: usize,
) -> [f64; 3] {
    let (xs, xo, ys) = *ops;
    let mut st = [0.0f64; 3];
    let cplx = matches!(E::TAG, "c" | "z");
    let unit = incx == 1 && ys.is_none_or(|(_, _, incy)| incy == 1);
    if unit && hi > lo {
        // Compiled for the widest vector unit the CPU has (AVX2/AVX-512 where present).
        return pulp::Arch::new().dispatch(UnitBlock {
            kind,
            ops,
            lo,
            hi,
            cplx,
        });
    }
    identity(kind, &mut st);
    for i in lo..hi {
        let xv = xs[at(xo, n, incx, i)];
        let yv = ys.map(|(ys, yo, incy)| ys[at(yo, n, incy, i)]);
        step(kind, &mut st, xv, yv, i);
    }
    st
}

pub(super) fn run<E: Blas1Elem, R: Blas1Out>(
    h: &Handle,
    ws: &Blas1Workspace<Option<WorkspaceSlice>>,
    c: &mut Call<'_, E, R>,
    plan: Plan,
) -> Result<(), Error> {
    let par = h.host_par.clone();
    let words = c.kind.partial_bytes() / 8;
    let part_slice = ws
        .partials
        .map(|s| (s.device_ptr(), s.len()))
        .unwrap_or((0, 0));
    let parts: &mut [f64] = if plan.g > 1 {
        bytemuck::cast_slice_mut(host_workspace_bytes(part_slice.0, part_slice.1))
    } else {
        &mut []
    };
    let batch = c.x.count();
    let (n, incx, kind) = (c.n, c.incx, c.kind);
    let mut ops: Vec<Operands<'_, E>> = Vec::with_capacity(batch);
    for v in 0..batch {
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
        ops.push((xs, xo, ys));
    }
    let finish_one = |st: &[f64], o: &Operands<'_, E>| -> R { finish(kind, st, o.0[o.1]) };
    let g = plan.g;
    let mut results: Vec<R> = Vec::with_capacity(batch);
    for v0 in (0..batch).step_by(plan.chunk) {
        let m = plan.chunk.min(batch - v0);
        if g == 1 {
            // One block per vector: the vectors of the chunk spread over the threads.
            results.extend(par.map(m, |i| {
                let o = &ops[v0 + i];
                finish_one(&block(kind, n, incx, o, 0, n), o)
            }));
            continue;
        }
        for (v, o) in ops.iter().enumerate().skip(v0).take(m) {
            // The plan's blocks (fixed by the shape, not by the threads) spread over the
            // threads; their states meet in the workspace in block order.
            let states = par.map(g, |b| block(kind, n, incx, o, b * n / g, (b + 1) * n / g));
            for (b, st) in states.iter().enumerate() {
                let k = ((v - v0) * g + b) * words;
                parts[k..k + words].copy_from_slice(&st[..words]);
            }
            let mut st = [0.0f64; 3];
            identity(kind, &mut st[..words]);
            for b in 0..g {
                let k = ((v - v0) * g + b) * words;
                combine(kind, &mut st[..words], &parts[k..k + words]);
            }
            results.push(finish_one(&st, o));
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
