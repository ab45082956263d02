//! The independent references of the least-squares tests: LAPACK's `larfg` and `gelq2`
//! (`dgelq2`/`zgelq2`: the row conjugated, its reflector, applied from the right to the rows
//! below) in plain f64 loops, `Q = H_{k−1}ᴴ … H_0ᴴ` formed from the stored rows, the
//! least-squares and least-norm solutions through f64 Cholesky solves of the Gram matrices,
//! and the checks every test compares with `RESID_MAX`. Unit tests at the end check the
//! references against themselves and show that each check fails on a mutated result.

use super::*;

/// One reflector of [`larfg`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reflector {
    pub(crate) beta: C,
    pub(crate) tau: C,
    /// LAPACK's `tau = 0` branch: nothing beside the diagonal and a real diagonal (`H = I`).
    pub(crate) zero: bool,
}

/// LAPACK's `zlarfg` (`dlarfg` for real data) without the rescaling of tiny norms: `H` with
/// `Hᴴ (alpha; x) = (beta; 0)`, `beta = −sign(Re alpha) ‖(alpha, x)‖`,
/// `tau = (beta − alpha) / beta`, `x` overwritten with `v`'s tail `x / (alpha − beta)`.
/// `flip` inverts the sign rule: another valid reflector, which only the unit tests use.
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

/// The reference LQ factorization of one matrix.
#[derive(Clone, Debug)]
pub(crate) struct Lq {
    /// `L` on and below the diagonal, the conjugated vectors right of it, as gelqf stores them.
    pub(crate) f: Dense,
    pub(crate) tau: Vec<C>,
    /// Whether row `i` took the `tau = 0` branch.
    pub(crate) zero: Vec<bool>,
    /// The (conjugated) diagonal entry each reflector saw: its real part decides `beta`'s sign.
    pub(crate) alpha: Vec<C>,
}

/// LAPACK's `gelq2`: for each row `i < min(m, n)`, the row `A(i, i..)` conjugated, `larfg` on
/// it, `H_i = I − tau_i v vᴴ` applied from the right to the rows below (`A(i+1.., i..) H_i`),
/// then the row stored conjugated (`L(i, i) = beta`, `conj(v)` right of it).
pub(crate) fn ref_gelq2(a: &Dense) -> Lq {
    gelq2_signed(a, false)
}

pub(crate) fn gelq2_signed(a: &Dense, flip: bool) -> Lq {
    let (m, n) = (a.r, a.c);
    let k = m.min(n);
    let mut f = a.clone();
    let (mut tau, mut zero, mut alphas) = (vec![], vec![], vec![]);
    for i in 0..k {
        let mut y: Vec<C> = (i..n).map(|j| conj(f.at(i, j))).collect();
        let alpha = y[0];
        let h = larfg(alpha, &mut y[1..], flip);
        y[0] = ONE;
        if !h.zero {
            for r in i + 1..m {
                // w = A(r, i..) v; A(r, i..) -= tau w vᴴ
                let mut w = ZERO;
                for (j, &yj) in y.iter().enumerate() {
                    w = cadd(w, cmul(f.at(r, i + j), yj));
                }
                let tw = cmul(h.tau, w);
                for (j, &yj) in y.iter().enumerate() {
                    let x = csub(f.at(r, i + j), cmul(tw, conj(yj)));
                    f.set(r, i + j, x);
                }
            }
        }
        f.set(i, i, h.beta);
        for (j, &yj) in y.iter().enumerate().skip(1) {
            f.set(i, i + j, conj(yj));
        }
        tau.push(h.tau);
        zero.push(h.zero);
        alphas.push(alpha);
    }
    Lq {
        f,
        tau,
        zero,
        alpha: alphas,
    }
}

/// `x := (I − t v vᴴ) x` (`v` and `x` of the same length).
fn reflect(t: C, v: &[C], x: &mut [C]) {
    let w = cmul(t, dotc(v, x));
    if w == ZERO {
        return;
    }
    for (xi, vi) in x.iter_mut().zip(v) {
        *xi = csub(*xi, cmul(*vi, w));
    }
}

/// The first `rows` rows of `Q = H_{k−1}ᴴ … H_1ᴴ H_0ᴴ` (order `f.c`; `k = tau.len()`), the
/// reflectors' conjugated vectors right of the diagonal of `f`'s first `k` rows (the diagonal
/// and left of it not read): `Qᴴ = H_0 … H_{k−1}` applied to the identity's first `rows`
/// columns (`H_{k−1}` first), then conjugate-transposed.
pub(crate) fn form_q_lq(f: &Dense, tau: &[C], rows: usize) -> Dense {
    let n = f.c;
    let mut qh = Dense::identity(n, rows);
    let mut v = vec![ZERO; n];
    for i in (0..tau.len()).rev() {
        v[i] = ONE;
        for j in i + 1..n {
            v[j] = conj(f.at(i, j));
        }
        for c in 0..rows {
            reflect(tau[i], &v[i..], &mut qh.v[c * n + i..(c + 1) * n]);
        }
    }
    qh.op(Op::C)
}

/// `L`: the first `cols` columns of the lower trapezoid of `f`.
pub(crate) fn lower(f: &Dense, cols: usize) -> Dense {
    let mut l = Dense::zeros(f.r, cols);
    for j in 0..cols.min(f.c) {
        for i in j..f.r {
            l.set(i, j, f.at(i, j));
        }
    }
    l
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

/// `‖I − QᴴQ‖₁ / (q.r ε)` of the columns of `q`; infinite if `q` holds a non-finite value.
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

/// The two residuals of an LQ factorization `f`, `tau` of `a` (`Q_k` the first `k` rows of
/// `Q` formed from the vectors and scalars): (`‖A − L Q_k‖₁ / (max(m, n) ‖A‖₁ ε)`,
/// `‖I_k − Q_k Q_kᴴ‖₁ / (n ε)`); infinite if the factors hold a non-finite value.
pub(crate) fn lq_residuals(a: &Dense, f: &Dense, tau: &[C], eps: f64) -> (f64, f64) {
    if !f.all_finite() || !tau.iter().all(|&t| finite(t)) {
        return (f64::INFINITY, f64::INFINITY);
    }
    let k = tau.len();
    let qk = form_q_lq(f, tau, k);
    let d = a.minus(&mul(&lower(f, k), &qk));
    let res = ratio(d.norm1(), a.norm1() * a.r.max(a.c).max(1) as f64 * eps);
    (res, orth_residual(&qk.op(Op::C), eps))
}

/// LAPACK's range of `tau`: exactly 0, or `1 ≤ Re tau ≤ 2` and `|tau − 1| ≤ 1`, with a few
/// rounding errors of slack.
pub(crate) fn tau_in_range(t: C, eps: f64) -> bool {
    if t == ZERO {
        return true;
    }
    let s = 10.0 * eps;
    let d = csub(t, ONE);
    t.0 >= 1.0 - s && t.0 <= 2.0 + s && (d.0 * d.0 + d.1 * d.1).sqrt() <= 1.0 + s
}

/// Where `got` (`m × n`, gelqf's layout) and `tau` (if known) differ from the reference
/// factorization `rf` of `a` by more than `30 max(m, n) ε` times the row's norm: `L`
/// elementwise relative to the norm of `A`'s row, `tau_i` and `v_i` relative to
/// `‖a_i‖ / |L(i, i)|`. Rows from the first whose `Re alpha` is too close to 0 for the sign
/// of `beta` to be determined (and the columns of `L` from there) are not compared; those of
/// the `tau = 0` branch are compared exactly by [`zero_branch_mismatch`].
pub(crate) fn uniqueness_mismatch(
    a: &Dense,
    got: &Dense,
    tau: Option<&[C]>,
    rf: &Lq,
    eps: f64,
) -> Option<String> {
    let (m, n) = (a.r, a.c);
    let k = m.min(n);
    let scale = RESID_MAX * m.max(n) as f64 * eps;
    let norms: Vec<f64> = (0..m).map(|i| a.row_norm2(i)).collect();
    let stop = (0..k)
        .find(|&i| !rf.zero[i] && rf.alpha[i].0.abs() <= 100.0 * m.max(n) as f64 * eps * norms[i])
        .unwrap_or(k);
    // |re| + |im| of a difference is at most √2 times its modulus.
    let close = |x: C, y: C, tol: f64| mag(csub(x, y)) <= 2.0 * tol;
    for i in 0..m {
        for j in 0..stop.min(i + 1) {
            let (x, y) = (got.at(i, j), rf.f.at(i, j));
            if !close(x, y, scale * norms[i]) {
                return Some(format!(
                    "L({i}, {j}) = {x:?}, the reference's {y:?} (tolerance {:.2e})",
                    2.0 * scale * norms[i]
                ));
            }
        }
    }
    for i in 0..stop {
        if rf.zero[i] {
            continue;
        }
        let tol = scale * norms[i] / mag(rf.f.at(i, i)).max(f64::MIN_POSITIVE);
        if let Some(tau) = tau {
            if !close(tau[i], rf.tau[i], tol) {
                return Some(format!(
                    "tau[{i}] = {:?}, the reference's {:?} (tolerance {:.2e})",
                    tau[i],
                    rf.tau[i],
                    2.0 * tol
                ));
            }
        }
        for j in i + 1..n {
            let (x, y) = (got.at(i, j), rf.f.at(i, j));
            if !close(x, y, tol) {
                return Some(format!(
                    "conj(v_{i})[{j}] = {x:?}, the reference's {y:?} (tolerance {:.2e})",
                    2.0 * tol
                ));
            }
        }
    }
    None
}

/// Where the reference took LAPACK's `tau = 0` branch (nothing right of a real diagonal):
/// `tau` must be exactly 0 and the row right of the diagonal exactly zero.
pub(crate) fn zero_branch_mismatch(got: &Dense, tau: &[C], rf: &Lq) -> Option<String> {
    for (i, &z) in rf.zero.iter().enumerate() {
        if !z {
            continue;
        }
        if tau[i] != ZERO {
            return Some(format!(
                "tau[{i}] = {:?}: row {i} has nothing right of its real diagonal, want tau = 0 exactly",
                tau[i]
            ));
        }
        if let Some(j) = (i + 1..got.c).find(|&j| got.at(i, j) != ZERO) {
            return Some(format!(
                "conj(v_{i})[{j}] = {:?}: with tau = 0 the row right of the diagonal stays zero",
                got.at(i, j)
            ));
        }
    }
    None
}

/// `‖got − want‖₁ / (max(m, n) ‖c‖₁ ε)` for ormlq, `c` the matrix before the call (`Q` is
/// unitary, so `‖op(Q) C‖ = ‖C‖`); infinite if `got` holds a non-finite value.
pub(crate) fn apply_residual(got: &Dense, want: &Dense, c: &Dense, eps: f64) -> f64 {
    if !got.all_finite() {
        return f64::INFINITY;
    }
    let d = got.minus(want);
    ratio(d.norm1(), c.norm1() * c.r.max(c.c).max(1) as f64 * eps)
}

// ---- least squares and least norm --------------------------------------------------------

/// `min ‖B − M X‖` for a tall `M` (`p × q`, `p ≥ q`, full rank): `(Mᴴ M)⁻¹ Mᴴ B`.
pub(crate) fn ls_solution(mm: &Dense, b: &Dense) -> Dense {
    let mh = mm.op(Op::C);
    chol_solve(&mul(&mh, mm), &mul(&mh, b))
}

/// The least-norm solution of `M X = B` for a wide `M` (`p × q`, `p < q`, full rank):
/// `Mᴴ (M Mᴴ)⁻¹ B`.
pub(crate) fn min_norm_solution(mm: &Dense, b: &Dense) -> Dense {
    let mh = mm.op(Op::C);
    mul(&mh, &chol_solve(&mul(mm, &mh), b))
}

/// `X − P X` with `P = Mᴴ (M Mᴴ)⁻¹ M` the projector on the row space of a wide `M`.
pub(crate) fn off_row_space(mm: &Dense, x: &Dense) -> Dense {
    x.minus(&min_norm_solution(mm, &mul(mm, x)))
}

/// The 1-norm of column `j`.
pub(crate) fn col_norm1(d: &Dense, j: usize) -> f64 {
    d.col(j).iter().map(|&x| mag(x)).sum()
}

/// What a gels result is checked by, each a ratio compared with `RESID_MAX` (the largest over
/// the right-hand sides), `None` where the case has no such check.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct GelsRatios {
    /// Least squares: `‖op(A)ᴴ (b − op(A) x)‖₁ / (d ‖A‖ (‖b‖₁ + ‖A‖ ‖x‖₁) ε)`.
    pub(crate) normal: Option<f64>,
    /// Least squares: the rows of `B` below `X` hold the residual's norm,
    /// `|‖B(q.., j)‖₂ − ‖b − op(A) x‖₂| / (d (‖b‖₁ + ‖A‖ ‖x‖₁) ε)`.
    pub(crate) tail: Option<f64>,
    /// Least norm: `‖op(A) x − b‖₁ / (d (‖A‖ ‖x‖₁ + ‖b‖₁) ε)`.
    pub(crate) residual: Option<f64>,
    /// Least norm, well-conditioned `A`: `‖x − P x‖₁ / (d ‖x‖₁ ε)` (`x` in the row space of
    /// `op(A)`).
    pub(crate) row_space: Option<f64>,
    /// Well-conditioned `A`: the f64 reference solution, `‖x − x_ref‖₁ / (d ε (‖x_ref‖₁ +
    /// ‖r_ref‖₁ / ‖A‖))`.
    pub(crate) reference: Option<f64>,
}

impl GelsRatios {
    /// The first ratio at or above the bound, named.
    pub(crate) fn failure(&self) -> Option<String> {
        let all = [
            ("normal equations ‖op(A)ᴴ r‖", self.normal),
            ("residual rows below X ‖B(q..)‖₂ vs ‖r‖₂", self.tail),
            ("residual ‖op(A) X − B‖", self.residual),
            ("row space ‖X − P X‖", self.row_space),
            ("f64 reference ‖X − X_ref‖", self.reference),
        ];
        all.iter().find_map(|(what, r)| match r {
            Some(r) if r.is_nan() || *r >= RESID_MAX => {
                Some(format!("{what} ratio {r:.3e} ≥ {RESID_MAX}"))
            }
            _ => None,
        })
    }
}

/// The checks of a gels result `out` (the first `max(m, n)` rows of `B` after the call) for
/// `op(A)` = `opa` (`p × q`) and right-hand sides `b` (`p × nrhs`); `well`: `A` is well
/// conditioned, so the solution is compared with the f64 one. `d = max(m, n)`.
pub(crate) fn gels_ratios(opa: &Dense, b: &Dense, out: &Dense, well: bool, eps: f64) -> GelsRatios {
    let (p, q) = (opa.r, opa.c);
    let d = p.max(q).max(1) as f64;
    let an = opa.norm1().max(opa.norm_inf());
    let x = out.sub(0, q, 0, b.c);
    let mut g = GelsRatios::default();
    if !x.all_finite() {
        g.reference = Some(f64::INFINITY);
        return g;
    }
    let ax = mul(opa, &x);
    let (mut normal, mut tail, mut resid, mut rows, mut refr) =
        (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
    if p >= q {
        let r = b.minus(&ax);
        let ne = mul(&opa.op(Op::C), &r);
        for j in 0..b.c {
            let s = col_norm1(b, j) + an * col_norm1(&x, j);
            normal = normal.max(ratio(col_norm1(&ne, j), d * an * s * eps));
            let t: f64 = (q..p)
                .map(|i| {
                    let y = out.at(i, j);
                    y.0 * y.0 + y.1 * y.1
                })
                .sum::<f64>()
                .sqrt();
            if !t.is_finite() {
                tail = f64::INFINITY;
            }
            tail = tail.max(ratio((t - r.col_norm2(j)).abs(), d * s * eps));
        }
        g.normal = Some(normal);
        g.tail = Some(tail);
        if well {
            let xr = ls_solution(opa, b);
            let rr = b.minus(&mul(opa, &xr));
            let dx = x.minus(&xr);
            for j in 0..b.c {
                let s = col_norm1(&xr, j) + col_norm1(&rr, j) / an;
                refr = refr.max(ratio(col_norm1(&dx, j), d * s * eps));
            }
            g.reference = Some(refr);
        }
    } else {
        let r = ax.minus(b);
        for j in 0..b.c {
            let s = an * col_norm1(&x, j) + col_norm1(b, j);
            resid = resid.max(ratio(col_norm1(&r, j), d * s * eps));
        }
        g.residual = Some(resid);
        if well {
            let off = off_row_space(opa, &x);
            let xr = min_norm_solution(opa, b);
            let dx = x.minus(&xr);
            for j in 0..b.c {
                rows = rows.max(ratio(col_norm1(&off, j), d * col_norm1(&x, j) * eps));
                refr = refr.max(ratio(col_norm1(&dx, j), d * col_norm1(&xr, j) * eps));
            }
            g.row_space = Some(rows);
            g.reference = Some(refr);
        }
    }
    g
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

/// The reference `gelq2` followed by the reference `Q` gives back `A` with orthonormal rows at
/// f64 accuracy; `L`'s diagonal is real, every `tau` in LAPACK's range; the full `Q` agrees
/// with its first `k` rows; `A Qᴴ = L` through `apply_q`; and a 2 × 3 example worked by hand.
#[test]
fn reference_gelq2_then_q_gives_back_a() {
    let mut r = Gen::new(7);
    for cplx in [false, true] {
        for (m, n) in [(1, 1), (3, 3), (5, 2), (2, 5), (40, 40), (65, 33), (33, 65)] {
            let a = plain_random(m, n, cplx, &mut r);
            let rf = ref_gelq2(&a);
            let k = m.min(n);
            let what = format!("cplx {cplx} {m}x{n}");
            let (res, orth) = lq_residuals(&a, &rf.f, &rf.tau, f64::EPSILON);
            assert!(res < 5.0 && orth < 5.0, "{what}: {res} {orth}");
            for i in 0..k {
                assert_eq!(rf.f.at(i, i).1, 0.0, "{what}");
                assert!(tau_in_range(rf.tau[i], f64::EPSILON), "{what}");
                // LAPACK's tau = 0 branch only for a real last column (nothing right of it).
                assert_eq!(rf.zero[i], i + 1 == n && !cplx, "{what}: row {i}");
            }
            let qf = form_q_lq(&rf.f, &rf.tau, n);
            let qk = form_q_lq(&rf.f, &rf.tau, k);
            assert!(orth_residual(&qf, f64::EPSILON) < 5.0, "{what}");
            assert_eq!(qf.sub(0, k, 0, n), qk, "{what}");
            // A Qᴴ = [L 0].
            let aqh = apply_q(Side::Right, Op::C, &qf, &a);
            let want = lower(&rf.f, n);
            assert!(
                apply_residual(&aqh, &want, &a, f64::EPSILON) < 5.0,
                "{what}: A Qᴴ"
            );
        }
    }
    // By hand: A = [[3, 4, 0], [0, 5, 0]]: row 0 is (3, 4, 0), beta = −5,
    // tau = (−5 − 3) / −5 = 1.6, v = (1, 4 / 8, 0) = (1, 0.5, 0).
    let mut at = Dense::zeros(2, 3);
    at.set(0, 0, (3.0, 0.0));
    at.set(0, 1, (4.0, 0.0));
    at.set(1, 1, (5.0, 0.0));
    let rf = ref_gelq2(&at);
    assert_eq!(rf.f.at(0, 0), (-5.0, 0.0));
    assert!((rf.tau[0].0 - 1.6).abs() < 1e-15);
    assert!((rf.f.at(0, 1).0 - 0.5).abs() < 1e-15);
    // Row 1 after H_0 from the right: (0, 5, 0) − 1.6 · 2.5 · (1, 0.5, 0) = (−4, 3, 0), so
    // L(1, 0) = −4; then (3, 0): nothing right of a real diagonal, LAPACK's tau = 0 branch.
    assert!((rf.f.at(1, 0).0 + 4.0).abs() < 1e-14, "{:?}", rf.f);
    assert!(rf.zero[1] && rf.tau[1] == ZERO);
    assert!((rf.f.at(1, 1).0 - 3.0).abs() < 1e-14);
}

/// The least-squares and least-norm references solve their problems, and every gels check
/// fails on a mutated result: an entry of `X` perturbed, `X` of the transposed problem, the
/// least-squares `X` with a component outside the row space, rows below `X` not holding the
/// residual.
#[test]
fn reference_gels_checks_fail_on_mutations() {
    let mut r = Gen::new(17);
    for cplx in [false, true] {
        let eps = if cplx {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        };
        // Tall: least squares.
        let (p, q) = (40, 12);
        let mut a = plain_random(p, q, cplx, &mut r);
        for j in 0..q {
            a.set(j, j, cadd(a.at(j, j), (3.0 * (p as f64).sqrt(), 0.0)));
        }
        let b = plain_random(p, 3, cplx, &mut r);
        let x = ls_solution(&a, &b);
        // LAPACK's B after the call: X, then (Qᴴ b)(q..) whose norm is the residual's.
        let mut out = Dense::zeros(p, 3);
        let rr = b.minus(&mul(&a, &x));
        for j in 0..3 {
            for i in 0..q {
                out.set(i, j, x.at(i, j));
            }
            // Any vector of the residual's norm will do for the check.
            out.set(q, j, (rr.col_norm2(j), 0.0));
        }
        let g = gels_ratios(&a, &b, &out, true, eps);
        assert!(g.failure().is_none(), "cplx {cplx}: {g:?}");
        let mut bad = out.clone();
        bad.set(3, 1, cadd(bad.at(3, 1), (1e-2, 0.0)));
        let g = gels_ratios(&a, &b, &bad, true, eps);
        assert!(
            g.normal.unwrap() >= RESID_MAX && g.reference.unwrap() >= RESID_MAX,
            "cplx {cplx}: {g:?}"
        );
        let mut bad = out.clone();
        bad.set(q, 2, (rr.col_norm2(2) * 1.01, 0.0));
        let g = gels_ratios(&a, &b, &bad, true, eps);
        assert!(g.tail.unwrap() >= RESID_MAX, "cplx {cplx}: tail {g:?}");
        // Wide: least norm.
        let aw = a.op(Op::C);
        let bw = plain_random(q, 2, cplx, &mut r);
        let xw = min_norm_solution(&aw, &bw);
        let g = gels_ratios(&aw, &bw, &xw, true, eps);
        assert!(g.failure().is_none(), "cplx {cplx}: {g:?}");
        // A solution, but not the least-norm one: add a null-space vector of aw.
        let z = off_row_space(&aw, &plain_random(p, 1, cplx, &mut r));
        let mut bad = xw.clone();
        for i in 0..p {
            bad.set(i, 0, cadd(bad.at(i, 0), cmul(z.at(i, 0), (1e-4, 0.0))));
        }
        let g = gels_ratios(&aw, &bw, &bad, true, eps);
        assert!(
            g.residual.unwrap() < RESID_MAX && g.row_space.unwrap() >= RESID_MAX,
            "cplx {cplx}: null-space component {g:?}"
        );
        assert!(g.reference.unwrap() >= RESID_MAX, "cplx {cplx}: {g:?}");
        let mut bad = xw.clone();
        bad.set(5, 1, cadd(bad.at(5, 1), (1e-3, 0.0)));
        let g = gels_ratios(&aw, &bw, &bad, false, eps);
        assert!(g.residual.unwrap() >= RESID_MAX, "cplx {cplx}: {g:?}");
        // Complex: the solution of Aᵀ x = b (no conjugation) for Aᴴ x = b.
        if cplx {
            let wrong = min_norm_solution(&a.op(Op::T), &bw);
            let g = gels_ratios(&aw, &bw, &wrong, true, eps);
            assert!(g.failure().is_some(), "T for C: {g:?}");
        }
        // NaN in X.
        let mut bad = xw.clone();
        bad.set(0, 0, (f64::NAN, 0.0));
        assert!(gels_ratios(&aw, &bw, &bad, false, eps).failure().is_some());
    }
}

/// Every LQ check fails on a mutated result: a `tau` with its sign flipped or conjugated, one
/// entry of `v` or `L` perturbed, the other sign rule (a valid LQ, not LAPACK's), `ormlq`'s
/// result for the wrong `op`, a `tau ≠ 0` or a written row where LAPACK keeps `H = I`.
#[test]
fn reference_lq_checks_fail_on_mutations() {
    let mut r = Gen::new(11);
    for cplx in [false, true] {
        let eps = if cplx {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        };
        let (m, n) = (30, 40);
        let mut a = plain_random(m, n, cplx, &mut r);
        for j in 0..m {
            a.set(j, j, cadd(a.at(j, j), (3.0 * (n as f64).sqrt(), 0.0)));
        }
        let a = if cplx {
            a.rounded::<Complex32>()
        } else {
            a.rounded::<f64>()
        };
        let rf = ref_gelq2(&a);
        let (f, tau) = (rf.f.clone(), rf.tau.clone());
        let ok = |f: &Dense, tau: &[C]| {
            let (res, orth) = lq_residuals(&a, f, tau, eps);
            res < RESID_MAX && orth < RESID_MAX
        };
        let unique =
            |f: &Dense, tau: &[C]| uniqueness_mismatch(&a, f, Some(tau), &rf, eps).is_none();
        assert!(ok(&f, &tau) && unique(&f, &tau), "cplx {cplx}: unmutated");
        let mut t = tau.clone();
        t[5] = (-t[5].0, -t[5].1);
        assert!(!ok(&f, &t) && !unique(&f, &t), "cplx {cplx}: -tau");
        if cplx {
            let mut t = tau.clone();
            t[5] = conj(t[5]);
            assert!(!ok(&f, &t) && !unique(&f, &t), "conj tau");
            // The vectors stored unconjugated (v where conj(v) belongs).
            let mut g = f.clone();
            for i in 0..m {
                for j in i + 1..n {
                    g.set(i, j, conj(g.at(i, j)));
                }
            }
            assert!(!ok(&g, &tau) && !unique(&g, &tau), "unconjugated vectors");
        }
        let mut g = f.clone();
        g.set(7, 20, cadd(g.at(7, 20), (1e-2, 0.0)));
        assert!(!ok(&g, &tau) && !unique(&g, &tau), "cplx {cplx}: v");
        let mut g = f.clone();
        g.set(9, 3, cadd(g.at(9, 3), (0.1, 0.0)));
        assert!(!ok(&g, &tau) && !unique(&g, &tau), "cplx {cplx}: L");
        let other = gelq2_signed(&a, true);
        assert!(ok(&other.f, &other.tau), "cplx {cplx}: the other sign rule");
        assert!(!unique(&other.f, &other.tau), "cplx {cplx}: the sign rule");
        // ormlq: the result of another op.
        let qf = form_q_lq(&f, &tau, n);
        let c = plain_random(n, 9, cplx, &mut r);
        let want = apply_q(Side::Left, Op::C, &qf, &c);
        assert!(apply_residual(&want, &want, &c, eps) < RESID_MAX);
        let wrong = apply_q(Side::Left, Op::N, &qf, &c);
        assert!(apply_residual(&wrong, &want, &c, eps) >= RESID_MAX, "op");
        if cplx {
            let wrong = apply_q(Side::Left, Op::T, &qf, &c);
            assert!(apply_residual(&wrong, &want, &c, eps) >= RESID_MAX, "T");
        }
    }
    // H = I where LAPACK keeps it: a zero row.
    let mut a = plain_random(3, 5, false, &mut r);
    for j in 0..5 {
        a.set(1, j, ZERO);
    }
    let rf = ref_gelq2(&a);
    assert!(rf.zero[1] && !rf.zero[0]);
    let mut t = rf.tau.clone();
    t[1] = ONE;
    assert!(zero_branch_mismatch(&rf.f, &t, &rf).is_some());
    let mut g = rf.f.clone();
    g.set(1, 3, (1e-300, 0.0));
    assert!(zero_branch_mismatch(&g, &rf.tau, &rf).is_some());
    assert!(zero_branch_mismatch(&rf.f, &rf.tau, &rf).is_none());
}
