//! Dense f64 matrices and the independent references of the QR tests: LAPACK's `larfg` and
//! `geqr2` (`dgeqr2`/`zgeqr2`) in plain loops, `Q` formed by applying the reflectors to the
//! identity, and the checks every test compares with `RESID_MAX`. Unit tests at the end check
//! the references against themselves and show that each check fails on a mutated result.

use super::*;

/// A logical matrix, column-major, in f64.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Dense {
    pub(crate) r: usize,
    pub(crate) c: usize,
    pub(crate) v: Vec<C>,
}

impl Dense {
    pub(crate) fn zeros(r: usize, c: usize) -> Dense {
        Dense {
            r,
            c,
            v: vec![ZERO; r * c],
        }
    }
    /// The first `c` columns of the identity of order `r`.
    pub(crate) fn identity(r: usize, c: usize) -> Dense {
        let mut d = Dense::zeros(r, c);
        for j in 0..r.min(c) {
            d.set(j, j, ONE);
        }
        d
    }
    pub(crate) fn at(&self, i: usize, j: usize) -> C {
        self.v[i + j * self.r]
    }
    pub(crate) fn set(&mut self, i: usize, j: usize, x: C) {
        self.v[i + j * self.r] = x;
    }
    pub(crate) fn col(&self, j: usize) -> &[C] {
        &self.v[j * self.r..(j + 1) * self.r]
    }
    /// `self`, its transpose (`T`) or its conjugate transpose (`C`).
    pub(crate) fn op(&self, op: Op) -> Dense {
        if op == Op::N {
            return self.clone();
        }
        let mut d = Dense::zeros(self.c, self.r);
        for j in 0..self.c {
            for i in 0..self.r {
                let x = self.at(i, j);
                d.set(j, i, if op == Op::C { conj(x) } else { x });
            }
        }
        d
    }
    /// Max column sum of `|re| + |im|`.
    pub(crate) fn norm1(&self) -> f64 {
        (0..self.c)
            .map(|j| self.col(j).iter().map(|&x| mag(x)).sum::<f64>())
            .fold(0.0, f64::max)
    }
    /// The Euclidean norm of column `j`.
    pub(crate) fn col_norm2(&self, j: usize) -> f64 {
        self.col(j)
            .iter()
            .map(|x| x.0 * x.0 + x.1 * x.1)
            .sum::<f64>()
            .sqrt()
    }
    pub(crate) fn all_finite(&self) -> bool {
        self.v.iter().all(|&x| finite(x))
    }
    /// Every value rounded to the element type.
    pub(crate) fn rounded<E: El>(mut self) -> Dense {
        self.v.iter_mut().for_each(|x| *x = round_to::<E>(*x));
        self
    }
    /// `self − b`.
    pub(crate) fn minus(&self, b: &Dense) -> Dense {
        assert_eq!((self.r, self.c), (b.r, b.c));
        Dense {
            r: self.r,
            c: self.c,
            v: self.v.iter().zip(&b.v).map(|(&x, &y)| csub(x, y)).collect(),
        }
    }
}

/// `a b` in plain loops (a column of the result at a time, as axpys).
pub(crate) fn mul(a: &Dense, b: &Dense) -> Dense {
    assert_eq!(a.c, b.r, "mul: {}x{} times {}x{}", a.r, a.c, b.r, b.c);
    let mut p = Dense::zeros(a.r, b.c);
    for j in 0..b.c {
        let out = &mut p.v[j * a.r..(j + 1) * a.r];
        for l in 0..a.c {
            let x = b.v[l + j * b.r];
            if x == ZERO {
                continue;
            }
            for (o, &y) in out.iter_mut().zip(a.col(l)) {
                o.0 += y.0 * x.0 - y.1 * x.1;
                o.1 += y.0 * x.1 + y.1 * x.0;
            }
        }
    }
    p
}

/// `Σ conj(x_i) y_i`.
fn dotc(x: &[C], y: &[C]) -> C {
    let mut s = ZERO;
    for (a, b) in x.iter().zip(y) {
        s.0 += a.0 * b.0 + a.1 * b.1;
        s.1 += a.0 * b.1 - a.1 * b.0;
    }
    s
}

/// `c := (I − t v vᴴ) c` (`v` and `c` of the same length).
fn reflect(t: C, v: &[C], c: &mut [C]) {
    let w = cmul(t, dotc(v, c));
    if w == ZERO {
        return;
    }
    for (ci, vi) in c.iter_mut().zip(v) {
        ci.0 -= vi.0 * w.0 - vi.1 * w.1;
        ci.1 -= vi.0 * w.1 + vi.1 * w.0;
    }
}

/// One reflector of [`larfg`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reflector {
    pub(crate) beta: C,
    pub(crate) tau: C,
    /// LAPACK's `tau = 0` branch: nothing below the diagonal and a real diagonal (`H = I`).
    pub(crate) zero: bool,
}

/// LAPACK's `zlarfg` (and `dlarfg` for real data) without the rescaling of tiny norms (the
/// tests' values are far from underflow): `H` with `Hᴴ (alpha; x) = (beta; 0)`,
/// `beta = −sign(Re alpha) ‖(alpha, x)‖`, `tau = (beta − alpha) / beta`, `x` overwritten with
/// `v`'s tail `x / (alpha − beta)`. `flip` inverts the sign rule (`beta = +sign(...)`): another
/// valid reflector, which only the unit tests use, to show that the uniqueness check tells them
/// apart.
pub(crate) fn larfg(alpha: C, x: &mut [C], flip: bool) -> Reflector {
    let xnorm = x.iter().map(|v| v.0 * v.0 + v.1 * v.1).sum::<f64>().sqrt();
    if xnorm == 0.0 && alpha.1 == 0.0 {
        return Reflector {
            beta: alpha,
            tau: ZERO,
            zero: true,
        };
    }
    let norm = (alpha.0 * alpha.0 + alpha.1 * alpha.1 + xnorm * xnorm).sqrt();
    let mut beta = -norm.copysign(alpha.0);
    if flip {
        beta = -beta;
    }
    let tau = ((beta - alpha.0) / beta, -alpha.1 / beta);
    let s = cdiv(ONE, (alpha.0 - beta, alpha.1));
    for xi in x.iter_mut() {
        *xi = cmul(*xi, s);
    }
    Reflector {
        beta: (beta, 0.0),
        tau,
        zero: false,
    }
}

/// The reference factorization of one matrix.
#[derive(Clone, Debug)]
pub(crate) struct Geqr2 {
    /// `R` on and above the diagonal, the vectors below it, as `geqrf` stores them.
    pub(crate) f: Dense,
    pub(crate) tau: Vec<C>,
    /// Whether column `j` took the `tau = 0` branch.
    pub(crate) zero: Vec<bool>,
    /// The diagonal entry each reflector saw (its real part decides the sign of `beta`).
    pub(crate) alpha: Vec<C>,
}

/// LAPACK's `geqr2`: for each column `j < min(m, n)`, `larfg` on `A(j.., j)`, then
/// `H_jᴴ = I − conj(tau_j) v vᴴ` applied to the columns right of it.
pub(crate) fn ref_geqr2(a: &Dense) -> Geqr2 {
    geqr2_signed(a, false)
}

pub(crate) fn geqr2_signed(a: &Dense, flip: bool) -> Geqr2 {
    let (m, n) = (a.r, a.c);
    let k = m.min(n);
    let mut f = a.clone();
    let (mut tau, mut zero, mut alphas) = (vec![], vec![], vec![]);
    let mut v = vec![ZERO; m];
    for j in 0..k {
        let alpha = f.at(j, j);
        let col = &mut f.v[j * m..(j + 1) * m];
        let h = larfg(alpha, &mut col[j + 1..], flip);
        col[j] = h.beta;
        v[j] = ONE;
        v[j + 1..].copy_from_slice(&col[j + 1..]);
        for l in j + 1..n {
            reflect(conj(h.tau), &v[j..], &mut f.v[l * m + j..(l + 1) * m]);
        }
        tau.push(h.tau);
        zero.push(h.zero);
        alphas.push(alpha);
    }
    Geqr2 {
        f,
        tau,
        zero,
        alpha: alphas,
    }
}

/// The first `ncols` columns of `Q = H_0 H_1 … H_{k−1}` (`k = tau.len()`), the vectors below
/// the diagonal of the first `k` columns of `f` (`f.r` rows; on and above the diagonal is not
/// read): the identity's columns with `H_{k−1}` applied first, as `org2r` does.
pub(crate) fn form_q(f: &Dense, tau: &[C], ncols: usize) -> Dense {
    let m = f.r;
    let mut q = Dense::identity(m, ncols);
    let mut v = vec![ZERO; m];
    for i in (0..tau.len()).rev() {
        v[i] = ONE;
        v[i + 1..].copy_from_slice(&f.col(i)[i + 1..]);
        // Columns left of `i` are zero in rows `i..` (only later reflectors touched them).
        for j in i.min(ncols)..ncols {
            reflect(tau[i], &v[i..], &mut q.v[j * m + i..(j + 1) * m]);
        }
    }
    q
}

/// `op(Q) c` (`Left`) or `c op(Q)` (`Right`) with an explicit `q`. Real data: `T` and `C` are
/// the same (the values have no imaginary parts).
pub(crate) fn apply_q(side: Side, op: Op, q: &Dense, c: &Dense) -> Dense {
    let oq = q.op(op);
    match side {
        Side::Left => mul(&oq, c),
        Side::Right => mul(c, &oq),
    }
}

/// `R`: the first `rows` rows of the upper trapezoid of `f`.
pub(crate) fn upper(f: &Dense, rows: usize) -> Dense {
    let mut r = Dense::zeros(rows, f.c);
    for j in 0..f.c {
        for i in 0..rows.min(j + 1) {
            r.set(i, j, f.at(i, j));
        }
    }
    r
}

pub(crate) fn ratio(num: f64, den: f64) -> f64 {
    if num == 0.0 {
        0.0
    } else {
        num / den.max(f64::MIN_POSITIVE)
    }
}

/// The bound on every scaled residual.
pub(crate) const RESID_MAX: f64 = 30.0;

/// `‖I − QᴴQ‖₁ / (q.r ε)`; infinite if `q` holds a non-finite value.
pub(crate) fn orth_residual(q: &Dense, eps: f64) -> f64 {
    if !q.all_finite() {
        return f64::INFINITY;
    }
    let mut worst = 0.0f64;
    for j in 0..q.c {
        let mut s = 0.0;
        for i in 0..q.c {
            let mut g = dotc(q.col(i), q.col(j));
            if i == j {
                g.0 -= 1.0;
            }
            s += mag(g);
        }
        worst = worst.max(s);
    }
    ratio(worst, q.r.max(1) as f64 * eps)
}

/// The two residuals of a factorization `f`, `tau` of `a`, `Q` the thin `m × k` one formed
/// from the vectors and scalars: (`‖A − Q R‖₁ / (max(m, n) ‖A‖₁ ε)`,
/// `‖I_k − QᴴQ‖₁ / (m ε)`); infinite if the factors hold a non-finite value.
pub(crate) fn qr_residuals(a: &Dense, f: &Dense, tau: &[C], eps: f64) -> (f64, f64) {
    if !f.all_finite() || !tau.iter().all(|&t| finite(t)) {
        return (f64::INFINITY, f64::INFINITY);
    }
    let k = tau.len();
    let q = form_q(f, tau, k);
    let d = a.minus(&mul(&q, &upper(f, k)));
    let res = ratio(d.norm1(), a.norm1() * a.r.max(a.c).max(1) as f64 * eps);
    (res, orth_residual(&q, eps))
}

/// LAPACK's range of `tau`: exactly 0, or `1 ≤ Re tau ≤ 2` and `|tau − 1| ≤ 1`, with a few
/// rounding errors of slack (`slack` in units of `eps`).
pub(crate) fn tau_in_range(t: C, eps: f64) -> bool {
    if t == ZERO {
        return true;
    }
    let s = 10.0 * eps;
    let d = csub(t, ONE);
    t.0 >= 1.0 - s && t.0 <= 2.0 + s && (d.0 * d.0 + d.1 * d.1).sqrt() <= 1.0 + s
}

/// Where `got` (`m × n`) and `tau` differ from the reference factorization `rf` of `a` by more
/// than `30 max(m, n) ε` times the column's norm: `R` elementwise relative to the norm of `A`'s
/// column, `tau_j` and `v_j` relative to `‖a_j‖ / |R(j, j)|` (a column's own conditioning).
/// Columns from the first whose `Re alpha` is too close to 0 for the sign of `beta` to be
/// determined (and the rows of `R` from there) are not compared; those of the `tau = 0` branch
/// are compared exactly by [`zero_branch_mismatch`].
pub(crate) fn uniqueness_mismatch(
    a: &Dense,
    got: &Dense,
    tau: &[C],
    rf: &Geqr2,
    eps: f64,
) -> Option<String> {
    let (m, n) = (a.r, a.c);
    let k = m.min(n);
    let scale = RESID_MAX * m.max(n) as f64 * eps;
    let norms: Vec<f64> = (0..n).map(|j| a.col_norm2(j)).collect();
    let stop = (0..k)
        .find(|&j| !rf.zero[j] && rf.alpha[j].0.abs() <= 100.0 * m.max(n) as f64 * eps * norms[j])
        .unwrap_or(k);
    // |re| + |im| of a difference is at most √2 times its modulus.
    let close = |x: C, y: C, tol: f64| mag(csub(x, y)) <= 2.0 * tol;
    for j in 0..n {
        for i in 0..stop.min(j + 1) {
            let (x, y) = (got.at(i, j), rf.f.at(i, j));
            if !close(x, y, scale * norms[j]) {
                return Some(format!(
                    "R({i}, {j}) = {x:?}, the reference's {y:?} (tolerance {:.2e})",
                    2.0 * scale * norms[j]
                ));
            }
        }
    }
    for j in 0..stop {
        if rf.zero[j] {
            continue;
        }
        let tol = scale * norms[j] / mag(rf.f.at(j, j)).max(f64::MIN_POSITIVE);
        if !close(tau[j], rf.tau[j], tol) {
            return Some(format!(
                "tau[{j}] = {:?}, the reference's {:?} (tolerance {:.2e})",
                tau[j],
                rf.tau[j],
                2.0 * tol
            ));
        }
        for i in j + 1..m {
            let (x, y) = (got.at(i, j), rf.f.at(i, j));
            if !close(x, y, tol) {
                return Some(format!(
                    "v_{j}[{i}] = {x:?}, the reference's {y:?} (tolerance {:.2e})",
                    2.0 * tol
                ));
            }
        }
    }
    None
}

/// Where the reference took LAPACK's `tau = 0` branch (nothing below the diagonal, a real
/// diagonal): `tau` must be exactly 0 and the column below the diagonal exactly zero.
pub(crate) fn zero_branch_mismatch(got: &Dense, tau: &[C], rf: &Geqr2) -> Option<String> {
    for (j, &z) in rf.zero.iter().enumerate() {
        if !z {
            continue;
        }
        if tau[j] != ZERO {
            return Some(format!(
                "tau[{j}] = {:?}: column {j} has nothing below its real diagonal, want tau = 0 exactly",
                tau[j]
            ));
        }
        if let Some(i) = (j + 1..got.r).find(|&i| got.at(i, j) != ZERO) {
            return Some(format!(
                "v_{j}[{i}] = {:?}: with tau = 0 the column below the diagonal stays zero",
                got.at(i, j)
            ));
        }
    }
    None
}

/// `max |got − want| / (rows ε)` (`|re| + |im|`); infinite if `got` holds a non-finite value.
pub(crate) fn max_diff_ratio(got: &Dense, want: &Dense, eps: f64) -> f64 {
    if !got.all_finite() {
        return f64::INFINITY;
    }
    let d = got
        .v
        .iter()
        .zip(&want.v)
        .map(|(&x, &y)| mag(csub(x, y)))
        .fold(0.0, f64::max);
    ratio(d, got.r.max(1) as f64 * eps)
}

/// `‖got − want‖₁ / (max(m, n) ‖c‖₁ ε)` for `ormqr`, `c` the matrix before the call (`Q` is
/// unitary, so `‖op(Q) C‖ = ‖C‖`); infinite if `got` holds a non-finite value.
pub(crate) fn apply_residual(got: &Dense, want: &Dense, c: &Dense, eps: f64) -> f64 {
    if !got.all_finite() {
        return f64::INFINITY;
    }
    let d = got.minus(want);
    ratio(d.norm1(), c.norm1() * c.r.max(c.c).max(1) as f64 * eps)
}

// ---- the references and the checks, checked ------------------------------------------------

/// Random `m × n` in f64 (both parts where `cplx`).
#[cfg(test)]
fn plain_random(m: usize, n: usize, cplx: bool, r: &mut Gen) -> Dense {
    let mut d = Dense::zeros(m, n);
    for x in d.v.iter_mut() {
        *x = (r.uni(), if cplx { r.uni() } else { 0.0 });
    }
    d
}

/// The reference `geqr2` followed by the reference `Q` gives back `A` with an orthonormal `Q`
/// at f64 accuracy; its `R` has a real diagonal and its `tau`s are in LAPACK's range; the
/// explicit `Q` of order `m` agrees with its thin part and with `H_0 … H_{k−1}` applied one at
/// a time to `C`; and the reflectors rounded to f32 still give a `Q` within the orthogonality
/// bound the `orgqr` tests use.
#[test]
fn reference_geqr2_then_q_gives_back_a() {
    let mut r = Gen::new(7);
    for cplx in [false, true] {
        for (m, n) in [(1, 1), (3, 3), (5, 2), (2, 5), (40, 40), (65, 33), (33, 65)] {
            let a = plain_random(m, n, cplx, &mut r);
            let rf = ref_geqr2(&a);
            let k = m.min(n);
            let what = format!("cplx {cplx} {m}x{n}");
            let (res, orth) = qr_residuals(&a, &rf.f, &rf.tau, f64::EPSILON);
            assert!(res < 5.0 && orth < 5.0, "{what}: {res} {orth}");
            for j in 0..k {
                assert_eq!(rf.f.at(j, j).1, 0.0, "{what}");
                assert!(tau_in_range(rf.tau[j], f64::EPSILON), "{what}");
                // LAPACK's tau = 0 branch only for a real last row (nothing below it).
                assert_eq!(rf.zero[j], j + 1 == m && !cplx, "{what}: column {j}");
            }
            // Full Q: orthonormal, its first k columns the thin Q.
            let qf = form_q(&rf.f, &rf.tau, m);
            let qt = form_q(&rf.f, &rf.tau, k);
            assert!(orth_residual(&qf, f64::EPSILON) < 5.0, "{what}");
            for j in 0..k {
                assert_eq!(qf.col(j), qt.col(j), "{what}: column {j}");
            }
            // Qᴴ A = R (what geqrf's reflectors do to A), through apply_q.
            let qha = apply_q(Side::Left, Op::C, &qf, &a);
            let want_r = upper(&rf.f, m);
            assert!(
                apply_residual(&qha, &want_r, &a, f64::EPSILON) < 5.0,
                "{what}: Qᴴ A"
            );
            // A Q for a square A, both ways of writing it.
            if m == n {
                let aq = apply_q(Side::Right, Op::N, &qf, &a);
                let qta = apply_q(Side::Left, Op::T, &qf, &a.op(Op::T)).op(Op::T);
                assert!(apply_residual(&aq, &qta, &a, f64::EPSILON) < 5.0, "{what}");
            }
            // Rounded to f32, the reflectors are still nearly unitary.
            let v32 = rf.f.clone().rounded::<Complex32>();
            let t32: Vec<C> = rf.tau.iter().map(|&t| round_to::<Complex32>(t)).collect();
            let q32 = form_q(&v32, &t32, m);
            let o = orth_residual(&q32, f32::EPSILON as f64);
            assert!(o < 5.0, "{what}: f32-rounded reflectors: {o}");
        }
    }
    // The tau = 0 branch: a zero column, a column already zero below a real diagonal.
    let mut a = plain_random(6, 4, true, &mut r);
    for i in 0..6 {
        a.set(i, 2, ZERO);
    }
    a.set(0, 0, (2.0, 0.0));
    for i in 1..6 {
        a.set(i, 0, ZERO);
    }
    let rf = ref_geqr2(&a);
    assert_eq!(rf.zero, vec![true, false, true, false]);
    assert_eq!(rf.tau[0], ZERO);
    assert_eq!(rf.tau[2], ZERO);
    assert_eq!(zero_branch_mismatch(&rf.f, &rf.tau, &rf), None);
    let (res, orth) = qr_residuals(&a, &rf.f, &rf.tau, f64::EPSILON);
    assert!(res < 5.0 && orth < 5.0);
    // A complex diagonal with nothing below: a reflector all the same (beta real).
    let mut x: Vec<C> = vec![ZERO; 3];
    let h = larfg((0.6, 0.8), &mut x, false);
    assert!(!h.zero && h.beta.1 == 0.0 && (h.beta.0 + 1.0).abs() < 1e-15);
    assert!(tau_in_range(h.tau, f64::EPSILON) && h.tau.1 != 0.0);
    assert!(x.iter().all(|&v| v == ZERO));
}

/// Every check fails on a mutated result: a `tau` with its sign flipped or conjugated, one
/// entry of `v` or `R` perturbed, a factorization with the other sign rule (valid, but not
/// LAPACK's), a `Q` with one entry off or built from the conjugated scalars, `ormqr`'s result
/// for the wrong `op`, `tau`s out of range, a `tau ≠ 0` or a written `v` where LAPACK keeps
/// `H = I`.
#[test]
fn reference_checks_fail_on_mutations() {
    let mut r = Gen::new(11);
    for cplx in [false, true] {
        let eps = if cplx {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        };
        let (m, n) = (40, 30);
        let mut a = plain_random(m, n, cplx, &mut r);
        for j in 0..n {
            a.set(j, j, cadd(a.at(j, j), (3.0 * (m as f64).sqrt(), 0.0)));
        }
        let a = if cplx {
            a.rounded::<Complex32>()
        } else {
            a.rounded::<f64>()
        };
        let rf = ref_geqr2(&a);
        let (f, tau) = (rf.f.clone(), rf.tau.clone());
        let ok = |f: &Dense, tau: &[C]| {
            let (res, orth) = qr_residuals(&a, f, tau, eps);
            res < RESID_MAX && orth < RESID_MAX
        };
        let unique = |f: &Dense, tau: &[C]| uniqueness_mismatch(&a, f, tau, &rf, eps).is_none();
        assert!(
            ok(&f, &tau) && unique(&f, &tau),
            "cplx {cplx}: the unmutated result"
        );
        // tau_5 with its sign flipped.
        let mut t = tau.clone();
        t[5] = (-t[5].0, -t[5].1);
        assert!(!ok(&f, &t) && !unique(&f, &t), "cplx {cplx}: -tau");
        // tau_5 conjugated (complex: H_jᴴ where H_j belongs).
        if cplx {
            let mut t = tau.clone();
            t[5] = conj(t[5]);
            assert!(!ok(&f, &t) && !unique(&f, &t), "conj tau");
        }
        // One entry of v, one of R.
        let mut g = f.clone();
        g.set(20, 7, cadd(g.at(20, 7), (1e-2, 0.0)));
        assert!(!ok(&g, &tau) && !unique(&g, &tau), "cplx {cplx}: v");
        let mut g = f.clone();
        g.set(3, 9, cadd(g.at(3, 9), (0.1, 0.0)));
        assert!(!ok(&g, &tau) && !unique(&g, &tau), "cplx {cplx}: R");
        // The other sign rule: a valid QR, not LAPACK's.
        let other = geqr2_signed(&a, true);
        assert!(
            ok(&other.f, &other.tau),
            "cplx {cplx}: the other sign rule is a QR"
        );
        assert!(!unique(&other.f, &other.tau), "cplx {cplx}: the sign rule");
        // orgqr: Q with one entry off, Q from conjugated scalars.
        let q = form_q(&f, &tau, n);
        let mut g = q.clone();
        g.set(11, 4, cadd(g.at(11, 4), (1e-3, 0.0)));
        assert!(max_diff_ratio(&q, &q, eps) < RESID_MAX);
        assert!(
            max_diff_ratio(&g, &q, eps) >= RESID_MAX,
            "cplx {cplx}: Q entry"
        );
        let mut t = tau.clone();
        t[5] = (-t[5].0, -t[5].1);
        let bad = form_q(&f, &t, n);
        assert!(orth_residual(&bad, eps) >= RESID_MAX, "cplx {cplx}: Q orth");
        if cplx {
            let tc: Vec<C> = tau.iter().map(|&t| conj(t)).collect();
            let qc = form_q(&f, &tc, n);
            assert!(max_diff_ratio(&qc, &q, eps) >= RESID_MAX, "conj Q");
        }
        // ormqr: the result of another op, or of the other side.
        let qf = form_q(&f, &tau, m);
        let c = plain_random(m, 9, cplx, &mut r);
        let want = apply_q(Side::Left, Op::C, &qf, &c);
        assert!(apply_residual(&want, &want, &c, eps) < RESID_MAX);
        let wrong = apply_q(Side::Left, Op::N, &qf, &c);
        assert!(apply_residual(&wrong, &want, &c, eps) >= RESID_MAX, "op");
        if cplx {
            let wrong = apply_q(Side::Left, Op::T, &qf, &c);
            assert!(
                apply_residual(&wrong, &want, &c, eps) >= RESID_MAX,
                "T for C"
            );
        }
        let mut g = want.clone();
        g.set(8, 8, cadd(g.at(8, 8), (0.1, 0.0)));
        assert!(apply_residual(&g, &want, &c, eps) >= RESID_MAX, "C entry");
    }
    // The range of tau.
    for t in [
        (0.5, 0.0),
        (2.5, 0.0),
        (1.0, 1.5),
        (-1.0, 0.0),
        (f64::NAN, 0.0),
    ] {
        assert!(!tau_in_range(t, f64::EPSILON), "{t:?}");
    }
    for t in [ZERO, ONE, (2.0, 0.0), (1.5, 0.5)] {
        assert!(tau_in_range(t, f64::EPSILON), "{t:?}");
    }
    // H = I where LAPACK keeps it.
    let mut a = plain_random(5, 3, false, &mut r);
    for i in 0..5 {
        a.set(i, 1, ZERO);
    }
    let rf = ref_geqr2(&a);
    let mut t = rf.tau.clone();
    t[1] = (1.0, 0.0);
    assert!(zero_branch_mismatch(&rf.f, &t, &rf).is_some());
    let mut g = rf.f.clone();
    g.set(3, 1, (1e-300, 0.0));
    assert!(zero_branch_mismatch(&g, &rf.tau, &rf).is_some());
    // Non-finite values.
    let mut g = rf.f.clone();
    g.set(0, 2, (f64::NAN, 0.0));
    assert_eq!(qr_residuals(&a, &g, &rf.tau, f64::EPSILON).0, f64::INFINITY);
    assert_eq!(max_diff_ratio(&g, &rf.f, 1.0), f64::INFINITY);
}
