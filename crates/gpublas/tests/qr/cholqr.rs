//! F1, F5, F10, M6, M8, M9: geqrf where the CUDA backend factors f64 panels (at most 64
//! columns, at least 2048 rows and 8 rows per column) by CholeskyQR2 and Householder
//! reconstruction, and falls back to the Householder panel on the untouched block when the
//! panel is rank deficient, holds a NaN or an Inf, has a column LAPACK reflects with
//! `tau = 0`, has a column whose squared norm leaves [2^-900, 2^900], or is too
//! ill-conditioned. Either way the result is LAPACK's geqrf within rounding: the suite's
//! residual, orthogonality, `tau` and uniqueness checks against the reference `geqr2`, exact
//! values where LAPACK keeps `H = I`, and the poisoned padding, gaps and `tau` slots
//! untouched. The host backend never takes that path; the same tests run there (at 2304²
//! instead of 4096² for the square matrix).

use super::*;
use gpublas::Backend;

const EPS: f64 = f64::EPSILON;
const KIB: usize = 1024;

// ---- operands ------------------------------------------------------------------------------

/// An f64 geqrf of `m × n` at `lda = m + pad` in `form`, strided entries `gap` elements
/// apart, each entry's `tau` `tgap` slots apart.
fn case(m: usize, n: usize, pad: usize, form: Form, gap: usize, tgap: usize) -> QCase {
    let mut c = QCase::new(Rt::Geqrf, m, n, 0).with(form, pad);
    c.gap = gap;
    c.tgap = tgap;
    c
}

/// `inputs` (one per entry) placed for `c` with the suite's poison, and `tau` poisoned.
fn placed(dev: &Device, c: &QCase, inputs: &[Dense]) -> (Placed<f64>, Placed<f64>) {
    assert_eq!(inputs.len(), form_count(c.form));
    let ast: Vec<Vec<f64>> = inputs.iter().map(|a| store::<f64>(a, c.lda)).collect();
    let tst = vec![vec![pn::<f64>(Poison::TauOut); c.k]; inputs.len()];
    let a = place(dev, c.form, span(c.m, c.n, c.lda), c.gap, &ast);
    (a, place_tau(dev, c, &tst))
}

/// A strided pair of `a` factored as `c` says: `Success` and nothing but the outputs
/// written; each entry's factor and `tau`.
fn factor_pair(
    dev: &Device,
    h: &mut Handle,
    c: &QCase,
    a: &Dense,
    what: &str,
) -> Vec<(Dense, Vec<C>)> {
    let (mut pa, mut pt) = placed(dev, c, &[a.clone(), a.clone()]);
    let st = qr_call(h, c, &mut pa, &mut pt, None).unwrap_or_else(|err| panic!("{what}: {err}"));
    assert_eq!(st, Status::Success, "{what}");
    let after = pa.after();
    pa.only_outputs_changed(&after, c.m, c.n, c.lda, &|_, _| true, what);
    let tau_after = pt.after().remove(0);
    (0..2)
        .map(|v| {
            (
                entry(&pa, &after, v, c.m, c.n, c.lda),
                tau_of(c, &tau_after, v),
            )
        })
        .collect()
}

/// `prepare` for given matrices: entry `v` factors `inputs[v]`. The entries are labelled
/// `Fill::Random`, so `check` does not compare with the reference; `expect_lapacks` does.
fn prepare_inputs(dev: &Device, c: QCase, inputs: Vec<Dense>) -> QrRun<f64> {
    let (a, tau) = placed(dev, &c, &inputs);
    let refs = inputs.iter().map(ref_geqr2).collect();
    let count = inputs.len();
    QrRun {
        c,
        a,
        tau,
        cm: None,
        input: inputs,
        want: vec![],
        refs,
        fills: vec![Fill::Random; count],
    }
}

/// Random `m × n` with column `dup` a copy of column `src`: rank `n − 1`.
fn equal_columns(m: usize, n: usize, src: usize, dup: usize, r: &mut Gen) -> Dense {
    let mut a = gen_fill::<f64>(m, n, Fill::Random, r);
    for i in 0..m {
        a.set(i, dup, a.at(i, src));
    }
    a
}

/// Columns `c0..c1` of `d`.
fn columns(d: &Dense, c0: usize, c1: usize) -> Dense {
    Dense {
        r: d.r,
        c: c1 - c0,
        v: d.v[c0 * d.r..c1 * d.r].to_vec(),
    }
}

// ---- checks --------------------------------------------------------------------------------

/// Every entry of `p`'s result is the reference's factorization within rounding (geqrf.rs's
/// tall-skinny test; columns from the first one whose sign LAPACK leaves to rounding, as a
/// copy of an earlier column, are left out by `uniqueness_mismatch`).
fn expect_lapacks(p: &QrRun<f64>, what: &str) {
    let c = &p.c;
    let after = p.a.after();
    let tau_after = p.tau.after().remove(0);
    for v in 0..form_count(c.form) {
        let f = entry(&p.a, &after, v, c.m, c.n, c.lda);
        let tau = tau_of(c, &tau_after, v);
        if let Some(s) = uniqueness_mismatch(&p.input[v], &f, &tau, &p.refs[v], EPS) {
            panic!("{what}: entry {v}: not LAPACK's factorization: {s}");
        }
    }
}

/// Where LAPACK keeps `H = I` for the columns `0..cols` of entry `v`: their `tau` exactly 0
/// and the columns exactly as they were (geqrf.rs's special-columns test).
fn expect_kept(p: &QrRun<f64>, v: usize, cols: usize, what: &str) {
    let c = &p.c;
    let after = p.a.after();
    let tau_after = p.tau.after().remove(0);
    let tau = tau_of(c, &tau_after, v);
    let f = entry(&p.a, &after, v, c.m, c.n, c.lda);
    let a = &p.input[v];
    assert!(
        p.refs[v].zero[..cols].iter().all(|&z| z),
        "{what}: entry {v}: the reference reflects one of the columns 0..{cols}"
    );
    if let Some(j) = (0..cols).find(|&j| tau[j] != ZERO) {
        panic!(
            "{what}: entry {v}: tau[{j}] = {:?}: LAPACK's H = I there wants tau exactly 0",
            tau[j]
        );
    }
    if let Some(p) = (0..c.m * cols).find(|&p| f.v[p] != a.v[p]) {
        panic!(
            "{what}: entry {v}: element ({}, {}) is {:?}, was {:?}: with H = I nothing changes",
            p % c.m,
            p / c.m,
            f.v[p],
            a.v[p]
        );
    }
}

/// The columns `0..cols` of entry `v`'s result (`after`, `tau_after` read back from `p`'s
/// buffers): finite, `tau` in LAPACK's range, a QR of `A`'s first `cols` columns within the
/// residual and orthogonality bounds, and the reference's (these columns depend on `A`'s
/// first `cols` columns alone).
fn leading_columns_ok(
    p: &QrRun<f64>,
    after: &[Vec<f64>],
    tau_after: &[f64],
    v: usize,
    cols: usize,
    what: &str,
) {
    let c = &p.c;
    let w = format!("{what}: entry {v}, columns 0..{cols}");
    let f = columns(&entry(&p.a, after, v, c.m, c.n, c.lda), 0, cols);
    let tau = &tau_of(c, tau_after, v)[..cols];
    if let Some(i) = f.v.iter().position(|&x| !finite(x)) {
        panic!("{w}: element ({}, {}) is {:?}", i % c.m, i / c.m, f.v[i]);
    }
    for (j, &t) in tau.iter().enumerate() {
        assert!(tau_in_range(t, EPS), "{w}: tau[{j}] = {t:?} out of range");
        assert_eq!(f.at(j, j).1, 0.0, "{w}");
    }
    let a = columns(&p.input[v], 0, cols);
    let (res, orth) = qr_residuals(&a, &f, tau, EPS);
    assert!(res < RESID_MAX, "{w}: ‖A − QR‖ ratio {res:.3e}");
    assert!(orth < RESID_MAX, "{w}: ‖I − QᴴQ‖ ratio {orth:.3e}");
    let rf = ref_geqr2(&a);
    if let Some(s) = zero_branch_mismatch(&f, tau, &rf) {
        panic!("{w}: {s}");
    }
    if let Some(s) = uniqueness_mismatch(&a, &f, tau, &rf, EPS) {
        panic!("{w}: not LAPACK's factorization: {s}");
    }
}

/// Runs `p`, expects `Success`, the suite's checks, and the reference's factorization.
fn run_unique(h: &mut Handle, p: &mut QrRun<f64>, what: &str) {
    let st = p.call(h).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(st, Status::Success, "{what}");
    p.check(what);
    expect_lapacks(p, what);
}

// ---- F1, F10: shapes, special matrices, batches --------------------------------------------

/// Tall-skinny shapes: (m, n, lda − m, entries of the batched forms). 4096 × 130 is panels of
/// 64 + 64 + 2 columns (all three CholeskyQR2 on CUDA, with trailing updates between them);
/// 3000 × 1 and 5000 × 17 the narrowest panels; 2048 × 64 the fewest rows the path takes;
/// 20000 × 48 (lda m + 5) the tallest. The two largest run batches of 2 (their references
/// are most of the test's time in a debug build).
const TALL: &[(usize, usize, usize, usize)] = &[
    (4096, 64, 0, 3),
    (20000, 48, 5, 2),
    (2048, 64, 1, 3),
    (5000, 17, 3, 3),
    (3000, 1, 2, 3),
    (4096, 130, 0, 2),
];

/// Each tall-skinny shape single, as a list and as a strided batch with gaps: random (well
/// conditioned) entries, every one the reference's factorization within rounding.
fn f1_f10_geqrf_cholqr_tall_skinny_shapes(dev: &Device) {
    let mut h = handle(dev);
    let mut r = Gen::new(3401);
    let mut items = vec![];
    for (i, &(m, n, pad, count)) in TALL.iter().enumerate() {
        let forms = [Form::Single, Form::List(count), Form::Strided(count)];
        for (t, form) in forms.into_iter().enumerate() {
            let (gap, tgap) = (GAPS[(i + t) % 3], [0, 1, 3][(i + 2 * t) % 3]);
            items.push(case(m, n, pad, form, gap, tgap));
        }
    }
    each(items, |c| {
        let mut p = prepare::<f64>(dev, &mut r, c, &[Fill::Random]);
        let what = p.name();
        run_unique(&mut h, &mut p, &what);
    });
}

/// 4096 × 64 with columns 10 and 40 equal (the Gram matrix singular; LAPACK's result unique up
/// to column 40, whose diagonal is rounding noise), with column 0 zero (`tau[0] = 0`, `R(0,
/// 0) = 0`) and with column 63 zero (beside a full-rank entry in a list): the suite's checks,
/// the reference's factorization where it is unique, and the zero columns kept exactly.
fn f1_geqrf_cholqr_rank_deficient_panel_falls_back(dev: &Device) {
    let (m, n) = (4096, 64);
    let mut h = handle(dev);
    let mut r = Gen::new(3411);
    each(vec![0, 1, 2], |item| {
        let mut p = match item {
            0 => {
                let a = equal_columns(m, n, 10, 40, &mut r);
                prepare_inputs(dev, case(m, n, 1, Form::Single, 0, 0), vec![a])
            }
            1 => prepare::<f64>(
                dev,
                &mut r,
                case(m, n, 0, Form::Single, 0, 0),
                &[Fill::ZeroCol(0)],
            ),
            _ => prepare::<f64>(
                dev,
                &mut r,
                case(m, n, 2, Form::List(2), 0, 1),
                &[Fill::ZeroCol(63), Fill::WellCond],
            ),
        };
        let what = match item {
            0 => format!("columns 10 and 40 equal: {}", p.name()),
            _ => p.name(),
        };
        run_unique(&mut h, &mut p, &what);
        if item == 0 {
            let rf = &p.refs[0];
            assert!(
                (0..40).all(|j| !rf.zero[j]),
                "{what}: the reference's columns"
            );
            return;
        }
        let z = if item == 1 { 0 } else { 63 };
        assert!(p.refs[0].zero[z], "{what}: the reference keeps column {z}");
        let after = p.a.after();
        let f = entry(&p.a, &after, 0, m, n, p.c.lda);
        if let Some(i) = (0..m).find(|&i| f.at(i, z) != ZERO) {
            panic!(
                "{what}: column {z} is zero, its output ({i}, {z}) = {:?}",
                f.at(i, z)
            );
        }
    });
}

/// A NaN at (3000, 20) of 4096 × 64: `Success`, no error; the columns 0..20 and `tau[0..20]`
/// are the reference's (a Householder QR's column `j` depends on `A`'s first `j + 1` columns
/// only, so the NaN reaches neither), and the NaN is not lost: column 20 or `tau[20]` holds
/// it. Single, then strided beside a clean entry (wholly right), then a clean call on the same
/// handle.
fn f1_geqrf_cholqr_nan_panel_falls_back(dev: &Device) {
    let (m, n, at, col) = (4096, 64, 3000, 20);
    let mut h = handle(dev);
    let mut r = Gen::new(3421);
    for form in [Form::Single, Form::Strided(2)] {
        let mut inputs = vec![gen_fill::<f64>(m, n, Fill::Random, &mut r)];
        inputs[0].set(at, col, (f64::NAN, 0.0));
        if form != Form::Single {
            inputs.push(gen_fill::<f64>(m, n, Fill::Random, &mut r));
        }
        let mut p = prepare_inputs(dev, case(m, n, 3, form, 5, 2), inputs);
        let what = format!("NaN at ({at}, {col}): {}", p.name());
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(st, Status::Success, "{what}");
        let after = p.a.after();
        p.a.only_outputs_changed(&after, m, n, p.c.lda, &|_, _| true, &what);
        let tau_after = p.tau.after().remove(0);
        p.tau_slots_only(&tau_after, &what);
        leading_columns_ok(&p, &after, &tau_after, 0, col, &what);
        let f = entry(&p.a, &after, 0, m, n, p.c.lda);
        let tau = tau_of(&p.c, &tau_after, 0);
        assert!(
            (0..m).any(|i| f.at(i, col).0.is_nan()) || tau[col].0.is_nan(),
            "{what}: column {col} and tau[{col}] are NaN-free: LAPACK's have the NaN"
        );
        if form != Form::Single {
            leading_columns_ok(&p, &after, &tau_after, 1, n, &what);
        }
    }
    let mut p = prepare::<f64>(
        dev,
        &mut r,
        case(m, n, 0, Form::Single, 0, 0),
        &[Fill::Random],
    );
    let what = format!("after the NaN calls: {}", p.name());
    run_unique(&mut h, &mut p, &what);
}

/// Upper-triangular input (a real diagonal), the identity and the zero matrix at 4096 × 64
/// and 2048 × 40, single and mixed in batches, where LAPACK reflects nothing: every `tau`
/// exactly 0 and `A` exactly unchanged. Then a random 4096 × 64 whose first three columns are
/// already upper triangular: their `tau` exactly 0 and the columns unchanged, the rest the
/// reference's.
fn f1_geqrf_cholqr_keeps_lapack_tau_zero(dev: &Device) {
    let mut h = handle(dev);
    let mut r = Gen::new(3431);
    let mut items = vec![];
    for (i, (m, n)) in [(4096, 64), (2048, 40)].into_iter().enumerate() {
        items.push((case(m, n, i, Form::Single, 0, 0), vec![Fill::Upper]));
        items.push((case(m, n, 1, Form::Single, 0, 0), vec![Fill::Identity]));
        items.push((
            case(m, n, 2, Form::Strided(3), 1, 1),
            vec![Fill::Zero, Fill::Upper, Fill::Identity],
        ));
        items.push((
            case(m, n, 0, Form::List(3), 0, 2),
            vec![Fill::Identity, Fill::Zero, Fill::Upper],
        ));
    }
    each(items, |(c, fills)| {
        let mut p = prepare::<f64>(dev, &mut r, c, &fills);
        let what = p.name();
        run_unique(&mut h, &mut p, &what);
        for v in 0..form_count(c.form) {
            expect_kept(&p, v, c.n, &what);
        }
    });
    let (m, n, lead) = (4096, 64, 3);
    let mut a = gen_fill::<f64>(m, n, Fill::Random, &mut r);
    for j in 0..lead {
        for i in j + 1..m {
            a.set(i, j, ZERO);
        }
        let d = if j == 1 { -3.0 } else { (2 + j) as f64 };
        a.set(j, j, (d, 0.0));
    }
    let mut p = prepare_inputs(dev, case(m, n, 1, Form::Single, 0, 0), vec![a]);
    let what = format!("columns 0..{lead} upper triangular: {}", p.name());
    run_unique(&mut h, &mut p, &what);
    expect_kept(&p, 0, lead, &what);
}

/// `A = Q0 diag(σ) Q1ᵀ` (20000 × 64, `Q0` and `Q1` orthonormal from the reference QR of random
/// matrices, `σ` geometric from 1 to `1/κ`) at `κ` = 1e6 (CholeskyQR2's range) and 3e8 (past
/// it), and a random matrix with columns graded from 1e-8 to 1: the residual and orthogonality
/// bounds; the reference's factorization for κ = 1e6 and the graded columns (a column scaling
/// is a QR's own: the same reflectors).
fn f1_geqrf_cholqr_ill_conditioned(dev: &Device) {
    let (m, n) = (20000, 64);
    let mut h = handle(dev);
    let mut r = Gen::new(3441);
    let q0 = {
        let g = gen_fill::<f64>(m, n, Fill::Random, &mut r);
        let rf = ref_geqr2(&g);
        form_q(&rf.f, &rf.tau, n)
    };
    let q1 = {
        let g = gen_fill::<f64>(n, n, Fill::Random, &mut r);
        let rf = ref_geqr2(&g);
        form_q(&rf.f, &rf.tau, n)
    };
    let mut items = vec![];
    for kappa in [1e6f64, 3e8] {
        let mut b = Dense::zeros(n, n);
        for i in 0..n {
            let s = kappa.powf(-(i as f64) / (n - 1) as f64);
            for j in 0..n {
                b.set(i, j, (s * q1.at(j, i).0, 0.0));
            }
        }
        items.push((format!("κ = {kappa:.0e}"), mul(&q0, &b), kappa < 1e7));
    }
    let mut g = gen_fill::<f64>(m, n, Fill::Random, &mut r);
    for j in 0..n {
        let s = 10f64.powf(-8.0 + 8.0 * j as f64 / (n - 1) as f64);
        for i in 0..m {
            g.set(i, j, (g.at(i, j).0 * s, 0.0));
        }
    }
    items.push(("columns graded 1e-8 … 1".into(), g, true));
    each(items, |(name, a, unique)| {
        let mut p = prepare_inputs(dev, case(m, n, 3, Form::Single, 0, 0), vec![a]);
        let what = format!("{name}: {}", p.name());
        let st = p.call(&mut h).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(st, Status::Success, "{what}");
        p.check(&what);
        if unique {
            expect_lapacks(&p, &what);
        }
    });
}

/// Entries of both paths in one batch: 4096 × 64, entry 1 with two equal columns (7 and 50),
/// entries 0 and 2 random, strided with gaps and as a list: every entry right and the
/// reference's where it is unique, nothing outside the entries written.
fn f1_geqrf_cholqr_batch_mixes_paths(dev: &Device) {
    let (m, n) = (4096, 64);
    let mut h = handle(dev);
    let mut r = Gen::new(3451);
    for (form, pad, gap, tgap) in [(Form::Strided(3), 2, 7, 3), (Form::List(3), 1, 0, 1)] {
        let inputs = vec![
            gen_fill::<f64>(m, n, Fill::Random, &mut r),
            equal_columns(m, n, 7, 50, &mut r),
            gen_fill::<f64>(m, n, Fill::Random, &mut r),
        ];
        let mut p = prepare_inputs(dev, case(m, n, pad, form, gap, tgap), inputs);
        let what = format!("entry 1 with columns 7 and 50 equal: {}", p.name());
        run_unique(&mut h, &mut p, &what);
    }
}

/// 20000 × 64 twice on the same handle: bit-identical `A` and `tau` (no order of summation
/// left to the scheduling), and right.
fn f1_geqrf_cholqr_is_deterministic(dev: &Device) {
    let mut h = handle(dev);
    let mut r = Gen::new(3461);
    let mut p = prepare::<f64>(
        dev,
        &mut r,
        case(20000, 64, 1, Form::Single, 0, 0),
        &[Fill::Random],
    );
    let what = p.name();
    run_unique(&mut h, &mut p, &what);
    let (a1, t1) = (p.a.after(), p.tau.after());
    p.reset();
    let st = p
        .call(&mut h)
        .unwrap_or_else(|e| panic!("{what}: again: {e}"));
    assert_eq!(st, Status::Success, "{what}: again");
    let (a2, t2) = (p.a.after(), p.tau.after());
    for (name, x, y) in [("A", &a1[0], &a2[0]), ("tau", &t1[0], &t2[0])] {
        if let Some(i) = (0..x.len()).find(|&i| !same(x[i], y[i])) {
            panic!(
                "{what}: {name}[{i}] is {:e} on the first call, {:e} on the second",
                x[i], y[i]
            );
        }
    }
}

// ---- F1: a square matrix, checked in O(n²) per probe -----------------------------------------

/// A geqrf result in f64: `m` rows at `ld`, the vectors below the diagonal of the first
/// `tau.len()` columns.
struct Reflectors<'a> {
    f: &'a [f64],
    ld: usize,
    m: usize,
    tau: &'a [f64],
}

impl Reflectors<'_> {
    /// `y := H_i y`, `H_i = I − tau_i v_i v_iᵀ`.
    fn reflect(&self, i: usize, y: &mut [f64]) {
        let t = self.tau[i];
        if t == 0.0 {
            return;
        }
        let v = &self.f[i * self.ld + i + 1..i * self.ld + self.m];
        let w = t * (y[i] + v.iter().zip(&y[i + 1..]).map(|(a, b)| a * b).sum::<f64>());
        y[i] -= w;
        y[i + 1..].iter_mut().zip(v).for_each(|(y, v)| *y -= w * v);
    }

    /// `y := Q y` for `y` zero below row `top` (the reflectors past it leave it alone).
    fn q(&self, y: &mut [f64], top: usize) {
        for i in (0..self.tau.len().min(top + 1)).rev() {
            self.reflect(i, y);
        }
    }

    /// `y := Qᵀ y`.
    fn qt(&self, y: &mut [f64]) {
        for i in 0..self.tau.len() {
            self.reflect(i, y);
        }
    }
}

/// Random `n × n` (4096; 2304 on the host, whose reference loops are slow): the CUDA backend
/// factors its first 33 panels (rows ≥ 2048) by CholeskyQR2, the rest by Householder, with
/// blocked trailing updates between them. Checked without an O(n³) reference: `R` real, every
/// `tau` in range, each reflector orthogonal (`|tau_j ‖v_j‖² − 2| / (m ε) < 30`), columns of
/// `A − Q R` and of `I − QᵀQ` (the suite's statistics, on the columns at panel and block
/// boundaries and random others) and both applied to random ±1 vectors within the bounds,
/// and the first 128 columns the reference's (they depend on `A`'s first 128 columns only).
fn f1_geqrf_cholqr_square_4096(dev: &Device) {
    let n = if dev.backend() == Backend::Host {
        2304
    } else {
        4096
    };
    let c = case(n, n, 1, Form::Single, 0, 0);
    let (m, k, lda) = (n, n, c.lda);
    let what = format!("f64 geqrf {n} x {n}, lda {lda}");
    let mut r = Gen::new(3471);
    let a = gen_fill::<f64>(m, n, Fill::Random, &mut r);
    let (mut pa, mut pt) = placed(dev, &c, std::slice::from_ref(&a));
    let mut h = handle(dev);
    let st = qr_call(&mut h, &c, &mut pa, &mut pt, None).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(st, Status::Success, "{what}");
    let after = pa.after();
    pa.only_outputs_changed(&after, m, n, lda, &|_, _| true, &what);
    drop(pa);
    let tau_all = pt.after().remove(0);
    assert!(
        same(tau_all[k], pt.before[0][k]),
        "{what}: tau past its end written"
    );
    let f = &after[0];
    let tau = &tau_all[..k];
    if let Some(j) = (0..n).find(|&j| f[j * lda..j * lda + m].iter().any(|x| !x.is_finite())) {
        panic!("{what}: column {j} holds a non-finite value");
    }
    let q = Reflectors { f, ld: lda, m, tau };
    for (j, &t) in tau.iter().enumerate() {
        assert!(tau_in_range((t, 0.0), EPS), "{what}: tau[{j}] = {t:e}");
        let v = &f[j * lda + j + 1..j * lda + m];
        let vv = 1.0 + v.iter().map(|x| x * x).sum::<f64>();
        let d = if t == 0.0 { 0.0 } else { (t * vv - 2.0).abs() };
        let ratio = d / (m as f64 * EPS);
        assert!(
            ratio < RESID_MAX,
            "{what}: reflector {j}: |tau ‖v‖² − 2| / (m ε) = {ratio:.3e}"
        );
    }
    let norm_a = a.norm1();
    let res_den = norm_a * m.max(n) as f64 * EPS;
    let orth_den = m as f64 * EPS;
    // Columns at panel (64), block (128) and CholeskyQR2 (rows ≥ 2048) boundaries, the last
    // ones, and random others.
    let mut cols: Vec<usize> = vec![
        0,
        1,
        31,
        32,
        63,
        64,
        65,
        127,
        128,
        129,
        1023,
        1024,
        2047,
        2048,
        2111,
        2112,
        2113,
        n / 2,
        n - 129,
        n - 128,
        n - 65,
        n - 64,
        n - 63,
        n - 2,
        n - 1,
    ];
    cols.extend((0..8).map(|_| r.below(n)));
    cols.retain(|&j| j < n);
    cols.sort_unstable();
    cols.dedup();
    let mut y = vec![0.0; m];
    for &j in &cols {
        // A e_j − Q R e_j.
        y.iter_mut().for_each(|x| *x = 0.0);
        y[..=j.min(m - 1)].copy_from_slice(&f[j * lda..j * lda + j.min(m - 1) + 1]);
        q.q(&mut y, j);
        let d: f64 = y.iter().zip(a.col(j)).map(|(y, a)| (a.0 - y).abs()).sum();
        let res = ratio(d, res_den);
        assert!(
            res < RESID_MAX,
            "{what}: column {j} of A − QR: ratio {res:.3e}"
        );
        // e_j − Qᵀ Q e_j.
        y.iter_mut().for_each(|x| *x = 0.0);
        y[j] = 1.0;
        q.q(&mut y, j);
        q.qt(&mut y);
        y[j] -= 1.0;
        let orth = ratio(y[..k].iter().map(|x| x.abs()).sum::<f64>(), orth_den);
        let below: f64 = y[k..].iter().map(|x| x.abs()).sum();
        assert!(
            orth < RESID_MAX && ratio(below, orth_den) < RESID_MAX,
            "{what}: column {j} of I − QᵀQ: ratio {orth:.3e}"
        );
    }
    for probe in 0..4 {
        let x: Vec<f64> = (0..n)
            .map(|_| if r.uni() < 0.0 { -1.0 } else { 1.0 })
            .collect();
        let xn = n as f64;
        // (A − Q R) x.
        let mut rx = vec![0.0; m];
        for (j, &xj) in x.iter().enumerate() {
            let top = j.min(m - 1);
            rx[..=top]
                .iter_mut()
                .zip(&f[j * lda..j * lda + top + 1])
                .for_each(|(s, r)| *s += r * xj);
        }
        q.q(&mut rx, m - 1);
        let mut ax = vec![0.0; m];
        for (j, &xj) in x.iter().enumerate() {
            ax.iter_mut()
                .zip(a.col(j))
                .for_each(|(s, a)| *s += a.0 * xj);
        }
        let d: f64 = ax.iter().zip(&rx).map(|(a, b)| (a - b).abs()).sum();
        let res = ratio(d, xn * res_den);
        assert!(
            res < RESID_MAX,
            "{what}: probe {probe}: ‖(A − QR) x‖₁ / ‖x‖₁ ratio {res:.3e}"
        );
        // (I − QᵀQ) x.
        let mut z = x.clone();
        z.resize(m, 0.0);
        q.q(&mut z, m - 1);
        q.qt(&mut z);
        let d: f64 = z.iter().zip(&x).map(|(z, x)| (z - x).abs()).sum();
        let orth = ratio(d, xn * orth_den);
        assert!(
            orth < RESID_MAX,
            "{what}: probe {probe}: ‖(I − QᵀQ) x‖₁ / ‖x‖₁ ratio {orth:.3e}"
        );
    }
    // The first 128 columns: two CholeskyQR2 panels and the update between them.
    let lead = 128.min(n);
    let a0 = columns(&a, 0, lead);
    let mut f0 = Dense::zeros(m, lead);
    for j in 0..lead {
        for i in 0..m {
            f0.set(i, j, (f[i + j * lda], 0.0));
        }
    }
    let t0: Vec<C> = tau[..lead].iter().map(|&t| (t, 0.0)).collect();
    if let Some(s) = uniqueness_mismatch(&a0, &f0, &t0, &ref_geqr2(&a0), EPS) {
        panic!("{what}: columns 0..{lead}: not LAPACK's factorization: {s}");
    }
}

/// Beyond CholeskyQR2's range of squares: a random 4096 × 64 scaled by 2^510 (the Gram
/// matrix's diagonal overflows) and by 2^-530 (its products are subnormal, its diagonal below
/// 2^-900), strided pairs: with the power of two taken back out of `R` (exact), the
/// reference's factorization of the unscaled matrix within rounding, and the residual and
/// orthogonality bounds (LAPACK's scaled norms make its result scale with `A`).
fn f1_geqrf_cholqr_extreme_scale_falls_back(dev: &Device) {
    let (m, n) = (4096, 64);
    let mut h = handle(dev);
    let mut r = Gen::new(3491);
    for e in [510, -530] {
        let s = 2f64.powi(e);
        let a0 = gen_fill::<f64>(m, n, Fill::Random, &mut r);
        let mut a = a0.clone();
        a.v.iter_mut().for_each(|x| x.0 *= s);
        let c = case(m, n, 2, Form::Strided(2), 3, 1);
        let what = format!("random scaled by 2^{e}: {c:?}");
        let rf = ref_geqr2(&a0);
        for (v, (mut f, tau)) in factor_pair(dev, &mut h, &c, &a, &what)
            .into_iter()
            .enumerate()
        {
            for j in 0..n {
                for i in 0..=j {
                    f.set(i, j, (f.at(i, j).0 / s, 0.0));
                }
            }
            let (res, orth) = qr_residuals(&a0, &f, &tau, EPS);
            assert!(
                res < RESID_MAX && orth < RESID_MAX,
                "{what}: entry {v}: ratios {res:.3e}, {orth:.3e}"
            );
            if let Some(s) = uniqueness_mismatch(&a0, &f, &tau, &rf, EPS) {
                panic!("{what}: entry {v}: not LAPACK's factorization: {s}");
            }
        }
    }
}

/// Subnormal columns in the one-warp (32 × 32) and one-block (100 × 60) kernels: every column,
/// or one, scaled by 2^-1030 (44 bits left), strided pairs. The scaled norms must not take
/// the reciprocal of a subnormal maximum (it overflows: NaN). With the scale taken back out of
/// `R`'s columns (exact), the factorization of the unscaled (rounded) matrix within the
/// residual and orthogonality bounds at the precision the input keeps.
fn f1_geqrf_small_and_whole_subnormal_columns(dev: &Device) {
    // 2^-1030 (from its bits: `powi(-1030)` is 1 / 2^1030 = 0 where it is not folded)
    let s = f64::from_bits(1 << 44);
    let mut h = handle(dev);
    let mut r = Gen::new(3493);
    for (m, n) in [(32, 32), (20, 32), (100, 60)] {
        for one in [None, Some(n / 2)] {
            let a0 = gen_fill::<f64>(m, n, Fill::Random, &mut r);
            let scaled = |j: usize| one.is_none_or(|c| c == j);
            // The scaled columns of `x` times `s`, or divided by it (`back`; exact either way:
            // 1 / s itself overflows), in rows `0 .. m`, or `0 ..= j` of column j (`R`).
            let scale = |x: &mut Dense, back: bool, r_only: bool| {
                for j in (0..n).filter(|&j| scaled(j)) {
                    for i in 0..if r_only { (j + 1).min(m) } else { m } {
                        let y = x.at(i, j).0;
                        x.set(i, j, (if back { y / s } else { y * s }, 0.0));
                    }
                }
            };
            let mut a = a0;
            scale(&mut a, false, false);
            // The input as it was rounded, unscaled.
            let mut a1 = a.clone();
            scale(&mut a1, true, false);
            let c = case(m, n, 1, Form::Strided(2), 2, 1);
            let what = format!("{m} × {n}, scaled columns {one:?}: {c:?}");
            for (v, (mut f, tau)) in factor_pair(dev, &mut h, &c, &a, &what)
                .into_iter()
                .enumerate()
            {
                scale(&mut f, true, true);
                let (res, orth) = qr_residuals(&a1, &f, &tau, 2f64.powi(-40));
                assert!(
                    res < RESID_MAX && orth < RESID_MAX,
                    "{what}: entry {v}: ratios {res:.3e}, {orth:.3e}"
                );
            }
        }
    }
}

// ---- M6, M8, M9: workspaces ----------------------------------------------------------------

/// Jobs on the CholeskyQR2 path: 4096 × 64 single, strided with a rank-deficient entry, and
/// 4096 × 130 as a list (two panels and a trailing update).
fn cholqr_jobs(dev: &Device, r: &mut Gen) -> Vec<Box<dyn Job>> {
    vec![
        Box::new(prepare::<f64>(
            dev,
            r,
            case(4096, 64, 0, Form::Single, 0, 0),
            &[Fill::Random],
        )),
        Box::new(prepare::<f64>(
            dev,
            r,
            case(4096, 64, 1, Form::Strided(2), 2, 1),
            &[Fill::ZeroCol(7), Fill::Random],
        )),
        Box::new(prepare::<f64>(
            dev,
            r,
            case(4096, 130, 3, Form::List(2), 0, 2),
            &[Fill::Random],
        )),
    ]
}

/// Query (placeholders, then the real operands), then a handle of exactly that size:
/// `Success`, right answers, no growth, no degraded call, no memory error (workspaces.rs).
fn m08_m09_qr_cholqr_query_then_preallocate_succeeds(dev: &Device) {
    let mut r = Gen::new(3481);
    each(cholqr_jobs(dev, &mut r), |mut job| {
        super::workspaces::m9_one(dev, &mut *job)
    });
}

/// Fixed workspaces below the query's answer: 64 bytes less and 64 KiB run (`PerfDegraded`
/// when the query asked for more, else `Success`, as workspaces.rs's `in_fixed` expects) with
/// right answers. In 64 bytes: either the call runs (`PerfDegraded`, right answers: one panel
/// that fits in shared memory needs no workspace at its least plan on CUDA) or the documented
/// `MemoryError` naming what the call needs and the 64 bytes there are, every operand
/// untouched.
fn m06_qr_cholqr_fixed_workspace_degrades(dev: &Device) {
    let mut r = Gen::new(3491);
    each(cholqr_jobs(dev, &mut r), |mut job| {
        let size = query(dev, &*job);
        for cap in [size.saturating_sub(64).max(64), 64 * KIB] {
            super::workspaces::in_fixed(dev, &mut *job, cap);
        }
        super::workspaces::in_one_chunk(dev, &mut *job, false);
    });
}

crate::on_both_backends!(
    f1_f10_geqrf_cholqr_tall_skinny_shapes,
    f1_geqrf_cholqr_rank_deficient_panel_falls_back,
    f1_geqrf_cholqr_nan_panel_falls_back,
    f1_geqrf_cholqr_keeps_lapack_tau_zero,
    f1_geqrf_cholqr_ill_conditioned,
    f1_geqrf_cholqr_batch_mixes_paths,
    f1_geqrf_cholqr_is_deterministic,
    f1_geqrf_cholqr_square_4096,
    f1_geqrf_cholqr_extreme_scale_falls_back,
    f1_geqrf_small_and_whole_subnormal_columns,
    m08_m09_qr_cholqr_query_then_preallocate_succeeds,
    m06_qr_cholqr_fixed_workspace_degrades,
);
