//! The host backend of the solver's own steps (the rest of its programs run on the executor's
//! block steps): plain loops with the GPU kernels' rules (pivot: the largest `|re| + |im|`, the
//! first of equals; info at the first zero pivot or non-positive diagonal).

use super::program::SolverStep as Step;
use super::HostInts;
use crate::common::faer_host::trsm;
use crate::exec::host::{gemm, Spaces};
use crate::exec::program::Space;
use crate::{Diag, Error, Op, RealScalar, Scalar, Side, Uplo};

/// The error of a step that lies outside its matrix (it names the step).
fn outside_step(s: &Step) -> Error {
    Error::InvalidValue(format!("a solver step lies outside its matrix: {s:?}"))
}

/// Runs one solver step on entry `e`, whose written matrix is space C (E: getri's block of
/// `L`), with pivots and info in `hi`.
pub(crate) fn exec<T: Scalar>(
    spaces: &mut Spaces<'_, T>,
    s: &Step,
    hi: &mut HostInts,
    e: usize,
) -> Result<(), Error> {
    if let Step::CholLeaf { upd: Some(u), .. } = *s {
        let ws = spaces.take(u.sp)?;
        let r = chol_updated(&mut *spaces.c, ws, s, &mut hi.info[e]);
        spaces.put(u.sp, ws);
        return r;
    }
    // getri's product with its block of L in E.
    if let Step::TriMulPlace {
        left,
        lower,
        negate,
        n,
        other,
        t,
        x,
        count,
    } = *s
    {
        if x.sp != Space::C {
            return Err(outside_step(s));
        }
        let shape = (left, lower, negate, n, other);
        let theirs = (t.sp != Space::C).then(|| spaces.take(t.sp)).transpose()?;
        let mut r = Ok(());
        for b in 0..count {
            let (t_at, x_at) = ((t.off + b * t.bs, t.ld), (x.off + b * x.bs, x.ld));
            r = r.and_then(|()| {
                let tri = match theirs.as_deref() {
                    Some(w) => triangle(w, lower, n, t_at),
                    None => triangle(spaces.c, lower, n, t_at),
                };
                tri.and_then(|tri| tri_mul_in_place(spaces.c, shape, &tri, x_at))
                    .unwrap_or_else(|| Err(outside_step(s)))
            });
        }
        if let Some(w) = theirs {
            spaces.put(t.sp, w);
        }
        return r;
    }
    if let Step::TakeLower { rows, cols, a, w } = *s {
        let ws = spaces.take(w.sp)?;
        let r = take_lower(&mut *spaces.c, ws, (rows, cols), a, w);
        spaces.put(w.sp, ws);
        return r;
    }
    let c = &mut *spaces.c;
    let kp = hi.kmin;
    let outside = || outside_step(s);
    match *s {
        Step::Init => {
            if let Some(x) = hi.info.get_mut(e) {
                *x = 0;
            }
        }
        Step::Lu {
            rows,
            cols,
            a,
            k0,
            pivot,
            others: (left, right),
            ..
        } => {
            let ld = a.ld;
            if rows == 0 || cols == 0 {
                return Ok(());
            }
            let last = a.off + (rows - 1) + (cols + right - 1) * ld;
            if last >= c.len() || a.off < left * ld {
                return Err(outside());
            }
            let x = |r: usize, k: usize| a.off + r + k * ld;
            // The panel's columns left of the leaf (`k` from 0) and right of it.
            let other = |r: usize, k: usize| a.off - left * ld + r + k * ld;
            let other_cols = (0..left).chain(left + cols..left + cols + right);
            for j in 0..cols.min(rows) {
                let mut p = j;
                if pivot {
                    let mut best = -1.0f64;
                    for r in j..rows {
                        let v = c[x(r, j)].mag();
                        if v > best {
                            best = v;
                            p = r;
                        }
                    }
                    if let Some(q) = hi.piv.get_mut(e * kp + k0 + j) {
                        *q = (k0 + p + 1) as i32;
                    }
                }
                let d = c[x(p, j)];
                if d == T::zero() {
                    if hi.info[e] == 0 {
                        hi.info[e] = (k0 + j + 1) as i32;
                    }
                    continue;
                }
                if p != j {
                    for k in 0..cols {
                        c.swap(x(j, k), x(p, k));
                    }
                    for k in other_cols.clone() {
                        c.swap(other(j, k), other(p, k));
                    }
                }
                let dv = d.divisor();
                for r in j + 1..rows {
                    c[x(r, j)] = c[x(r, j)].div_by(dv);
                }
                for k in j + 1..cols {
                    let u = c[x(j, k)];
                    for r in j + 1..rows {
                        c[x(r, k)] = c[x(r, k)] - c[x(r, j)] * u;
                    }
                }
            }
        }
        Step::Swap {
            rows,
            cols,
            a,
            k0,
            k1,
            reverse,
            list: _,
        } => {
            if cols == 0 || k1 <= k0 {
                return Ok(());
            }
            if a.off + (rows.max(1) - 1) + (cols - 1) * a.ld >= c.len() {
                return Err(outside());
            }
            let order: Vec<usize> = if reverse {
                (k0..k1).rev().collect()
            } else {
                (k0..k1).collect()
            };
            for col in 0..cols {
                let base = a.off + col * a.ld;
                for &k in &order {
                    let p = hi.piv.get(e * kp + k).copied().unwrap_or(0);
                    // A pivot outside the matrix is ignored (never read out of bounds).
                    if p < 1 || p as usize > rows || k >= rows {
                        continue;
                    }
                    let p = p as usize - 1;
                    if p != k {
                        c.swap(base + k, base + p);
                    }
                }
            }
        }
        Step::DiagInfo { n, a } => {
            if n > 0 && a.off + (n - 1) * (a.ld + 1) >= c.len() {
                return Err(outside());
            }
            let zero = crate::common::host::first_zero_diagonal(c, a.off, a.ld, n);
            if let (Some(i), Some(x)) = (zero, hi.info.get_mut(e)) {
                if *x == 0 {
                    *x = (i + 1) as i32;
                }
            }
        }
        Step::ColSwaps { n, a } => {
            if n == 0 {
                return Ok(());
            }
            if a.off + (n - 1) * (a.ld + 1) >= c.len() {
                return Err(outside());
            }
            for j in (0..n - 1).rev() {
                let p = hi.piv.get(e * kp + j).copied().unwrap_or(0);
                // A pivot outside the matrix is ignored (never read out of bounds).
                if p < 1 || p as usize > n {
                    continue;
                }
                let p = p as usize - 1;
                if p != j {
                    for r in 0..n {
                        c.swap(a.off + r + j * a.ld, a.off + r + p * a.ld);
                    }
                }
            }
        }
        Step::TakeLower { .. } => {}
        Step::TriMulPlace { .. } => {}
        Step::TriInvPlace {
            lower,
            unit,
            n,
            a,
            count,
        } => {
            if a.sp != Space::C {
                return Err(outside());
            }
            for b in 0..count {
                let at = (a.off + b * a.bs, a.ld);
                tri_inverse_in_place(c, (lower, unit), n, at).ok_or_else(outside)??;
            }
        }
        Step::Chol { lower, n, a, k0 } => chol_leaf(c, (lower, n, a, k0), &mut hi.info[e])?,
        Step::CholLeaf {
            lower, n, a, k0, ..
        } => chol_leaf(c, (lower, n, a, k0), &mut hi.info[e])?,
        Step::PanelSolve { .. } => panel_solve(c, s)?,
    }
    Ok(())
}

/// The `lower`/upper triangle of the order-`n` block at `off` inverted in place: the identity
/// solved against it (faer's triangular solve), then only that triangle written back; the
/// other triangle is not touched, nor the diagonal when `unit` (taken as ones). `None`: the
/// block lies outside `c`.
fn tri_inverse_in_place<T: Scalar>(
    c: &mut [T],
    (lower, unit): (bool, bool),
    n: usize,
    (off, ld): (usize, usize),
) -> Option<Result<(), Error>> {
    if n == 0 {
        return Some(Ok(()));
    }
    if off + (n - 1) * (ld + 1) >= c.len() {
        return None;
    }
    let mut x: Vec<T> = (0..n * n)
        .map(|q| if q % n == q / n { T::one() } else { T::zero() })
        .collect();
    let uplo = if lower { Uplo::Lower } else { Uplo::Upper };
    let diag = if unit { Diag::Unit } else { Diag::NonUnit };
    let (side, op) = (Side::Left, Op::N);
    if let Err(e) = trsm(
        side,
        uplo,
        op,
        diag,
        n,
        n,
        T::one(),
        &c[off..],
        ld,
        &mut x,
        n,
    ) {
        return Some(Err(e));
    }
    let skip = usize::from(unit);
    for col in 0..n {
        let rows = if lower {
            col + skip..n
        } else {
            0..col + 1 - skip
        };
        for i in rows {
            c[off + i + col * ld] = x[i + col * n];
        }
    }
    Some(Ok(()))
}

/// The `lower`/upper triangle of order `n` at `(off, ld)` in `c` as a whole `n × n` matrix
/// (zeros beside it). `None`: it lies outside `c`.
fn triangle<T: Scalar>(
    c: &[T],
    lower: bool,
    n: usize,
    (off, ld): (usize, usize),
) -> Option<Vec<T>> {
    if n > 0 && off + (n - 1) * (ld + 1) >= c.len() {
        return None;
    }
    let mut tri = vec![T::zero(); n * n];
    for k in 0..n {
        let r = if lower { k..n } else { 0..k + 1 };
        for i in r {
            tri[i + k * n] = c[off + i + k * ld];
        }
    }
    Some(tri)
}

/// `x := ±tri x` (`left`; `x` is `n × other`) or `±x tri` (`other × n`) in place in `c` at
/// `(x_off, xld)`, `tri` a whole `n × n` matrix: `x` copied out, one product written back.
/// `None`: `x` lies outside `c`.
fn tri_mul_in_place<T: Scalar>(
    c: &mut [T],
    (left, _lower, negate, n, other): (bool, bool, bool, usize, usize),
    tri: &[T],
    (x_off, xld): (usize, usize),
) -> Option<Result<(), Error>> {
    if n == 0 || other == 0 {
        return Some(Ok(()));
    }
    let (rows, cols) = if left { (n, other) } else { (other, n) };
    if x_off + rows - 1 + (cols - 1) * xld >= c.len() {
        return None;
    }
    let mut xs = vec![T::zero(); rows * cols];
    for k in 0..cols {
        xs[k * rows..(k + 1) * rows].copy_from_slice(&c[x_off + k * xld..x_off + k * xld + rows]);
    }
    let alpha = if negate {
        T::zero() - T::one()
    } else {
        T::one()
    };
    let (a, b) = if left {
        ((tri, n), (&xs[..], rows))
    } else {
        ((&xs[..], rows), (tri, n))
    };
    Some(gemm(
        Op::N,
        Op::N,
        rows,
        cols,
        n,
        alpha,
        a,
        b,
        T::zero(),
        (&mut c[x_off..], xld),
    ))
}

/// getri's `TakeLower` on the host: `w` gets the unit lower trapezoid of the block at `a`,
/// whose strictly lower part becomes zero.
fn take_lower<T: Scalar>(
    c: &mut [T],
    w: &mut [T],
    (rows, cols): (usize, usize),
    a: crate::exec::program::M,
    wm: crate::exec::program::M,
) -> Result<(), Error> {
    if rows == 0 || cols == 0 {
        return Ok(());
    }
    let (last_a, last_w) = (
        a.off + (rows - 1) + (cols - 1) * a.ld,
        wm.off + (rows - 1) + (cols - 1) * wm.ld,
    );
    if last_a >= c.len() || last_w >= w.len() {
        return Err(Error::InvalidValue(
            "getri's block of L lies outside its matrix or the workspace".into(),
        ));
    }
    for k in 0..cols {
        for r in 0..rows {
            let (x, y) = (a.off + r + k * a.ld, wm.off + r + k * wm.ld);
            w[y] = if r > k {
                std::mem::replace(&mut c[x], T::zero())
            } else if r == k {
                T::one()
            } else {
                T::zero()
            };
        }
    }
    Ok(())
}

/// Cholesky of the order-`n` diagonal block at `a` (the matrix's column `k0`): the `Chol`
/// step, and the factor of `CholLeaf`; info at the first non-positive pivot.
fn chol_leaf<T: Scalar>(
    c: &mut [T],
    (lower, n, a, k0): (bool, usize, crate::exec::program::M, usize),
    info: &mut i32,
) -> Result<(), Error> {
    let outside = || Error::InvalidValue("a Cholesky leaf lies outside its matrix".into());
    if n == 0 || *info != 0 {
        return Ok(());
    }
    if a.off + (n - 1) * (a.ld + 1) >= c.len() {
        return Err(outside());
    }
    // Stored element (row r, column k) of L = the lower triangle, or of Lᴴ = the upper.
    let at = |r: usize, k: usize| {
        if lower {
            a.off + r + k * a.ld
        } else {
            a.off + k + r * a.ld
        }
    };
    let get = |c: &[T], r: usize, k: usize| {
        let v = c[at(r, k)];
        if lower {
            v
        } else {
            v.conj()
        }
    };
    for j in 0..n {
        let d = c[at(j, j)].re();
        // Not positive, or NaN.
        if d.partial_cmp(&<T::Real as Scalar>::zero()) != Some(std::cmp::Ordering::Greater) {
            *info = (k0 + j + 1) as i32;
            return Ok(());
        }
        let s = d.sqrt();
        c[at(j, j)] = T::from_real(s);
        let inv = <T::Real as Scalar>::one() / s;
        for r in j + 1..n {
            let v = get(c, r, j).scale(inv);
            c[at(r, j)] = if lower { v } else { v.conj() };
        }
        for k in j + 1..n {
            let lkj = get(c, k, j).conj();
            for r in k..n {
                let v = get(c, r, k) - get(c, r, j) * lkj;
                c[at(r, k)] = if lower { v } else { v.conj() };
            }
        }
    }
    Ok(())
}

/// The blocked Cholesky's leaf on the host with its update square (in `w`) added first.
fn chol_updated<T: Scalar>(
    c: &mut [T],
    w: &mut [T],
    st: &Step,
    info: &mut i32,
) -> Result<(), Error> {
    let Step::CholLeaf {
        lower,
        n,
        a,
        k0,
        upd: Some(u),
    } = *st
    else {
        return Ok(());
    };
    if n == 0 || *info != 0 {
        return Ok(());
    }
    let last = |m: crate::exec::program::M| m.off + (n - 1) * (m.ld + 1);
    if last(a) >= c.len() || last(u) >= w.len() {
        return Err(Error::InvalidValue(
            "a Cholesky leaf or its update lies outside its space".into(),
        ));
    }
    // Element (r, k) of L as stored: the lower triangle, or the upper one transposed (real
    // types: no conjugate).
    let at = |r: usize, k: usize| {
        if lower {
            a.off + r + k * a.ld
        } else {
            a.off + k + r * a.ld
        }
    };
    for k in 0..n {
        for r in k..n {
            c[at(r, k)] = c[at(r, k)] + w[u.off + r + k * u.ld];
        }
    }
    chol_leaf(c, (lower, n, a, k0), info)
}

/// `PanelSolve` on the host: each vector (a row of the lower panel, a column of the upper
/// one) `v` becomes `v L⁻ᵀ`, `L` the leaf's factor (`Uᵀ` for upper).
fn panel_solve<T: Scalar>(c: &mut [T], st: &Step) -> Result<(), Error> {
    let Step::PanelSolve {
        lower,
        rows,
        n,
        a,
        l,
    } = *st
    else {
        return Ok(());
    };
    if rows == 0 || n == 0 {
        return Ok(());
    }
    let (vs, es) = if lower { (1, a.ld) } else { (a.ld, 1) };
    if a.off + (rows - 1) * vs + (n - 1) * es >= c.len() || l.off + (n - 1) * (l.ld + 1) >= c.len()
    {
        return Err(Error::InvalidValue(
            "a Cholesky panel or its leaf lies outside its matrix".into(),
        ));
    }
    // L(r, k), r ≥ k, copied out of the matrix first (real types: no conjugate).
    let mut f = vec![T::zero(); n * n];
    for k in 0..n {
        for r in k..n {
            f[r + k * n] = if lower {
                c[l.off + r + k * l.ld]
            } else {
                c[l.off + k + r * l.ld]
            };
        }
    }
    for v in 0..rows {
        let base = a.off + v * vs;
        for k in 0..n {
            let x = c[base + k * es].div_by(f[k + k * n].divisor());
            c[base + k * es] = x;
            for q in k + 1..n {
                c[base + q * es] = c[base + q * es] - x * f[q + k * n];
            }
        }
    }
    Ok(())
}
