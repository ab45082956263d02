#![allow(clippy::too_many_arguments, clippy::needless_range_loop)]
//! The symmetric/Hermitian eigensolvers (`syevd`/`heevd` single, `_batched`,
//! `_strided_batched`; `syevj_batched`/`heevj_batched`, `syevj_strided_batched`) against
//! references written here in f64 (known spectra, and a plain cyclic Jacobi), on both backends
//! (SPEC F1–F3, F7, F9, M6, M8).
//!
//! Checks per entry, with `ε` the element type's machine epsilon and `‖·‖₁` the largest column
//! sum of `|re| + |im|`: `W` ascending (sorted calls) and `|W_i − λ_i| ≤ 30 n ε ‖A‖₁`; with
//! vectors `‖A V − V Λ‖₁ / (‖A‖₁ n ε) < 30` and `‖VᴴV − I‖₁ / (n ε) < 30`; `info` as
//! documented; `syevj`'s residual at most `2 max(tol, ε √n) ‖A‖_F` and its sweeps within
//! `1 ..= max_sweeps`. The matrices: `Q diag(λ) Qᴴ` from known spectra (random, clustered,
//! repeated, widely spread), diagonal, tridiagonal, zero, random, scaled near the ends of the
//! range. The triangle not referenced, the imaginary parts of a Hermitian diagonal, the rows
//! between `n` and `lda`, the gaps between strided entries and `W`'s gaps hold NaNs that must
//! neither be read (they would spread) nor written (they are compared bit for bit).

mod common;

use common::complex::*;
use common::elem::*;
use common::errors::*;
use common::forms::*;
use common::{fixed_handle, handle};
use gpublas::solver;
use gpublas::{
    Complex32, Complex64, Device, DeviceBuffer, Error, Esort, Evect, Handle, RealScalar, Results,
    Scalar, Status, Uplo,
};

/// The four LAPACK scalars.
trait T: El + Scalar {}
impl T for f32 {}
impl T for f64 {}
impl T for Complex32 {}
impl T for Complex64 {}

type Mat = Vec<C>;

// ---- matrices ------------------------------------------------------------------------------

/// `Q diag(lam) Qᴴ` with `Q` a product of `n` random Householder reflectors (complex ones for
/// complex types), exactly Hermitian (the upper triangle mirrored, the diagonal real).
fn from_spectrum(r: &mut Gen, lam: &[f64], cplx: bool) -> Mat {
    let n = lam.len();
    let mut a = vec![ZERO; n * n];
    for i in 0..n {
        a[i + i * n] = (lam[i], 0.0);
    }
    for _ in 0..n.min(8).max(n / 2) {
        let v: Vec<C> = (0..n)
            .map(|_| (r.uni(), if cplx { r.uni() } else { 0.0 }))
            .collect();
        let vv: f64 = v.iter().map(|x| x.0 * x.0 + x.1 * x.1).sum();
        if vv == 0.0 {
            continue;
        }
        // A ← H A H, H = I − 2 v vᴴ / (vᴴ v): left, then right.
        for j in 0..n {
            let mut s = ZERO;
            for i in 0..n {
                s = cadd(s, cmul(conj(v[i]), a[i + j * n]));
            }
            let s = (2.0 * s.0 / vv, 2.0 * s.1 / vv);
            for i in 0..n {
                a[i + j * n] = csub(a[i + j * n], cmul(v[i], s));
            }
        }
        for i in 0..n {
            let mut s = ZERO;
            for j in 0..n {
                s = cadd(s, cmul(a[i + j * n], v[j]));
            }
            let s = (2.0 * s.0 / vv, 2.0 * s.1 / vv);
            for j in 0..n {
                a[i + j * n] = csub(a[i + j * n], cmul(s, conj(v[j])));
            }
        }
    }
    hermitian(a, n)
}

/// The lower triangle mirrored, the diagonal real.
fn hermitian(mut a: Mat, n: usize) -> Mat {
    for j in 0..n {
        a[j + j * n].1 = 0.0;
        for i in j + 1..n {
            a[j + i * n] = conj(a[i + j * n]);
        }
    }
    a
}

/// The matrix kinds of the suites.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Random,
    Spectrum,
    Clustered,
    Repeated,
    Spread,
    Diagonal,
    Tridiagonal,
    Zero,
    /// Random, times 1e200 (f64) or 1e30 (f32): the scaling path.
    Huge,
    /// Random, times 1e-200 (f64) or 1e-30 (f32).
    Tiny,
}

const KINDS: [Kind; 10] = [
    Kind::Random,
    Kind::Spectrum,
    Kind::Clustered,
    Kind::Repeated,
    Kind::Spread,
    Kind::Diagonal,
    Kind::Tridiagonal,
    Kind::Zero,
    Kind::Huge,
    Kind::Tiny,
];

/// An order-`n` Hermitian matrix of `kind`, rounded to `E`, and its eigenvalues (ascending):
/// the spectrum it was built from, or the reference Jacobi's of the rounded matrix.
fn matrix<E: T>(r: &mut Gen, kind: Kind, n: usize) -> (Mat, Vec<f64>) {
    let c = E::CPLX;
    let rnd = |r: &mut Gen| (r.uni(), if c { r.uni() } else { 0.0 });
    let big = if E::EPS > 1e-10 { 1e30 } else { 1e200 };
    let lam: Option<Vec<f64>> = match kind {
        Kind::Spectrum => Some((0..n).map(|_| r.uni() * 4.0).collect()),
        Kind::Clustered => Some((0..n).map(|i| 1.0 + i as f64 * 1e-9 * r.uni()).collect()),
        Kind::Repeated => Some((0..n).map(|i| [1.0, -2.0, 0.5][i % 3]).collect()),
        Kind::Spread => Some(
            (0..n)
                .map(|i| 10f64.powf(-4.0 + 8.0 * i as f64 / n as f64))
                .collect(),
        ),
        _ => None,
    };
    let a = match (kind, &lam) {
        (_, Some(l)) => from_spectrum(r, l, c),
        (Kind::Diagonal, _) => {
            let mut a = vec![ZERO; n * n];
            for i in 0..n {
                a[i + i * n] = (r.uni() * 3.0, 0.0);
            }
            a
        }
        (Kind::Tridiagonal, _) => {
            let mut a = vec![ZERO; n * n];
            for i in 0..n {
                a[i + i * n] = (r.uni(), 0.0);
                if i + 1 < n {
                    a[i + 1 + i * n] = rnd(r);
                }
            }
            hermitian(a, n)
        }
        (Kind::Zero, _) => vec![ZERO; n * n],
        _ => {
            let s = match kind {
                Kind::Huge => big,
                Kind::Tiny => 1.0 / big,
                _ => 1.0,
            };
            let a = (0..n * n)
                .map(|_| rnd(r))
                .map(|x| (x.0 * s, x.1 * s))
                .collect();
            hermitian(a, n)
        }
    };
    let a: Mat = a.iter().map(|&x| round_to::<E>(x)).collect();
    let w = match lam {
        Some(mut l) => {
            l.sort_by(f64::total_cmp);
            l
        }
        None => reference_jacobi(&a, n).0,
    };
    (a, w)
}

/// The eigenvalues (ascending) and eigenvectors of a Hermitian matrix by the textbook cyclic
/// Jacobi method in f64 (Rutishauser's rotation, row-cyclic order).
fn reference_jacobi(a0: &Mat, n: usize) -> (Vec<f64>, Mat) {
    let mut a = a0.clone();
    let scale = a.iter().map(|x| mag(*x)).fold(0.0, f64::max);
    if scale > 0.0 {
        for x in a.iter_mut() {
            *x = (x.0 / scale, x.1 / scale);
        }
    }
    for _sweep in 0..100 {
        let off: f64 = (0..n)
            .flat_map(|j| (0..n).map(move |i| (i, j)))
            .filter(|(i, j)| i != j)
            .map(|(i, j)| a[i + j * n].0.powi(2) + a[i + j * n].1.powi(2))
            .sum();
        if off.sqrt() <= 1e-17 {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = a[p + q * n];
                let g = (apq.0 * apq.0 + apq.1 * apq.1).sqrt();
                if g == 0.0 {
                    continue;
                }
                let (app, aqq) = (a[p + p * n].0, a[q + q * n].0);
                let theta = (aqq - app) / (2.0 * g);
                let t = theta.signum() / (theta.abs() + (1.0 + theta * theta).sqrt());
                let c = 1.0 / (1.0 + t * t).sqrt();
                let s = t * c;
                let ph = (apq.0 / g, apq.1 / g);
                // A ← Jᴴ A J, J = [[c, s φ], [−s conj(φ), c]] on columns/rows p, q.
                let sp = (s * ph.0, s * ph.1);
                for k in 0..n {
                    let (xp, xq) = (a[k + p * n], a[k + q * n]);
                    a[k + p * n] = csub((xp.0 * c, xp.1 * c), cmul(xq, conj(sp)));
                    a[k + q * n] = cadd(cmul(xp, sp), (xq.0 * c, xq.1 * c));
                }
                for k in 0..n {
                    let (xp, xq) = (a[p + k * n], a[q + k * n]);
                    a[p + k * n] = csub((xp.0 * c, xp.1 * c), cmul(sp, xq));
                    a[q + k * n] = cadd(cmul(conj(sp), xp), (xq.0 * c, xq.1 * c));
                }
                a[p + q * n] = ZERO;
                a[q + p * n] = ZERO;
            }
        }
    }
    let mut w: Vec<f64> = (0..n).map(|i| a[i + i * n].0 * scale).collect();
    w.sort_by(f64::total_cmp);
    (w, a)
}

// ---- checks --------------------------------------------------------------------------------

fn norm1(a: &Mat, n: usize) -> f64 {
    (0..n)
        .map(|j| (0..n).map(|i| mag(a[i + j * n])).sum::<f64>())
        .fold(0.0, f64::max)
}

/// The Frobenius norm, scaled (the tiny matrices' squares underflow).
fn frobenius(a: &Mat) -> f64 {
    let s = a.iter().map(|x| mag(*x)).fold(0.0, f64::max);
    if s == 0.0 {
        return 0.0;
    }
    let q: f64 = a
        .iter()
        .map(|x| (x.0 / s).powi(2) + (x.1 / s).powi(2))
        .sum();
    s * q.sqrt()
}

/// Eigenvalues (and vectors) of one entry against the matrix and its reference spectrum.
fn check_entry(
    what: &str,
    eps: f64,
    a: &Mat,
    n: usize,
    lam: &[f64],
    w: &[f64],
    v: Option<&Mat>,
    sorted: bool,
) {
    let an = norm1(a, n).max(f64::MIN_POSITIVE);
    if sorted {
        for i in 1..n {
            assert!(w[i - 1] <= w[i], "{what}: W not ascending at {i}: {w:?}");
        }
    }
    let mut ws = w.to_vec();
    ws.sort_by(f64::total_cmp);
    let tol = 30.0 * n as f64 * eps * an;
    for i in 0..n {
        assert!(
            (ws[i] - lam[i]).abs() <= tol,
            "{what}: eigenvalue {i}: {} against {} (tol {tol:e})",
            ws[i],
            lam[i]
        );
    }
    let Some(v) = v else { return };
    let mut res = 0.0f64;
    let mut orth = 0.0f64;
    for j in 0..n {
        let (mut rs, mut os) = (0.0, 0.0);
        for i in 0..n {
            let mut av = ZERO;
            let mut vv = if i == j { (-1.0, 0.0) } else { ZERO };
            for k in 0..n {
                av = cadd(av, cmul(a[i + k * n], v[k + j * n]));
                vv = cadd(vv, cmul(conj(v[k + i * n]), v[k + j * n]));
            }
            let lv = (w[j] * v[i + j * n].0, w[j] * v[i + j * n].1);
            rs += mag(csub(av, lv));
            os += mag(vv);
        }
        res = res.max(rs);
        orth = orth.max(os);
    }
    let r = res / (an * n as f64 * eps);
    let o = orth / (n as f64 * eps);
    assert!(r < 30.0, "{what}: ‖AV − VΛ‖₁/(‖A‖₁ n ε) = {r}");
    assert!(o < 30.0, "{what}: ‖VᴴV − I‖₁/(n ε) = {o}");
}

// ---- calls ---------------------------------------------------------------------------------

/// Which routine a case calls, with `syevj`'s arguments.
#[derive(Clone, Copy, Debug)]
enum Solver {
    Syevd,
    Syevj {
        sort: Esort,
        abstol: f64,
        max_sweeps: usize,
    },
}

const JACOBI: Solver = Solver::Syevj {
    sort: Esort::Ascending,
    abstol: 0.0,
    max_sweeps: 100,
};

/// One call's setting.
#[derive(Clone, Copy, Debug)]
struct Case {
    solver: Solver,
    form: Form,
    n: usize,
    lda: usize,
    uplo: Uplo,
    evect: Evect,
    /// Elements between the entries' eigenvalues in `W`.
    w_gap: usize,
    /// Results to device buffers (else host slices).
    device_results: bool,
}

/// What a call returned, per entry.
struct Got<E> {
    status: Result<Status, Error>,
    a: Vec<Vec<E>>,
    w: Vec<f64>,
    w_bits: Vec<Vec<u8>>,
    info: Vec<i32>,
    sweeps: Vec<i32>,
    residual: Vec<f64>,
}

/// The NaN the places that are neither read nor written hold.
fn poison_nan<E: T>() -> E {
    E::pnan()
}

/// `a` (order `n`, `uplo` referenced) stored at `lda`: the other triangle, the padding rows
/// and (complex) the diagonal's imaginary parts hold NaNs.
fn store<E: T>(a: &Mat, n: usize, lda: usize, uplo: Uplo) -> Vec<E> {
    let mut s = vec![poison_nan::<E>(); span(n, n, lda)];
    for j in 0..n {
        for i in 0..n {
            let stored = match uplo {
                Uplo::Lower => i >= j,
                Uplo::Upper => i <= j,
            };
            if stored {
                let x = a[i + j * n];
                let im = if i == j && E::CPLX { f64::NAN } else { x.1 };
                s[i + j * lda] = E::make(x.0, im);
            }
        }
    }
    s
}

fn real_nan<E: T>() -> E::Real {
    E::Real::from_f64(f64::from_bits(F64_PNAN))
}

/// Runs `case` on the matrices `mats` (one per entry), `W` and the results pre-filled with
/// NaNs and 77s.
fn call<E: T>(h: &mut Handle, dev: &Device, case: &Case, mats: &[Mat]) -> (Placed<E>, Got<E>) {
    let (n, lda) = (case.n, case.lda);
    let batch = form_count(case.form);
    let entries: Vec<Vec<E>> = mats.iter().map(|m| store(m, n, lda, case.uplo)).collect();
    let mut a = Placed::new(dev, case.form, span(n, n, lda), &entries, poison_nan::<E>());
    let stride_w = n + case.w_gap;
    let w_len = batch.saturating_sub(1) * stride_w + n + 1;
    let mut w = dev.upload(&vec![real_nan::<E>(); w_len]).unwrap();
    let (mut info_h, mut sweeps_h) = (vec![77i32; batch], vec![77i32; batch]);
    let mut res_h = vec![real_nan::<E>(); batch];
    let mut info_d = dev.upload(&info_h).unwrap();
    let mut sweeps_d = dev.upload(&sweeps_h).unwrap();
    let mut res_d = dev.upload(&res_h).unwrap();
    let status = {
        let (info, sweeps, res) = if case.device_results {
            (
                Results::Device(&mut info_d),
                Results::Device(&mut sweeps_d),
                Results::Device(&mut res_d),
            )
        } else {
            (
                Results::Host(&mut info_h[..]),
                Results::Host(&mut sweeps_h[..]),
                Results::Host(&mut res_h[..]),
            )
        };
        let (uplo, ev) = (case.uplo, case.evect);
        match (case.solver, case.form) {
            (Solver::Syevd, Form::Single) => {
                solver::syevd(h, ev, uplo, n, a.one_mut(), lda, &mut w, info)
            }
            (Solver::Syevd, Form::List(_)) => {
                let mut l = a.muts();
                solver::syevd_batched(h, ev, uplo, n, &mut l, lda, &mut w, stride_w, info)
            }
            (Solver::Syevd, Form::Strided(c)) => {
                let s = a.stride;
                solver::heevd_strided_batched(
                    h,
                    ev,
                    uplo,
                    n,
                    a.one_mut(),
                    lda,
                    s,
                    &mut w,
                    stride_w,
                    info,
                    c,
                )
            }
            (
                Solver::Syevj {
                    sort,
                    abstol,
                    max_sweeps,
                },
                Form::List(_) | Form::Single,
            ) => {
                let mut l = a.muts();
                let tol = E::Real::from_f64(abstol);
                solver::syevj_batched(
                    h, sort, ev, uplo, n, &mut l, lda, tol, res, max_sweeps, sweeps, &mut w,
                    stride_w, info,
                )
            }
            (
                Solver::Syevj {
                    sort,
                    abstol,
                    max_sweeps,
                },
                Form::Strided(c),
            ) => {
                let s = a.stride;
                let tol = E::Real::from_f64(abstol);
                solver::heevj_strided_batched(
                    h,
                    sort,
                    ev,
                    uplo,
                    n,
                    a.one_mut(),
                    lda,
                    s,
                    tol,
                    res,
                    max_sweeps,
                    sweeps,
                    &mut w,
                    stride_w,
                    info,
                    c,
                )
            }
        }
    };
    if case.device_results {
        info_h = info_d.to_vec().unwrap();
        sweeps_h = sweeps_d.to_vec().unwrap();
        res_h = res_d.to_vec().unwrap();
    }
    let wv = w.to_vec().unwrap();
    let got = Got {
        status,
        a: a.after(),
        w: wv.iter().map(|x| x.to_f64()).collect(),
        w_bits: wv.iter().map(|x| bytemuck::bytes_of(x).to_vec()).collect(),
        info: info_h,
        sweeps: sweeps_h,
        residual: res_h.iter().map(|x| x.to_f64()).collect(),
    };
    (a, got)
}

/// Runs `case` on `mats` and checks every entry, every output and every place not written.
fn run_and_check<E: T>(dev: &Device, case: &Case, mats: &[(Mat, Vec<f64>)], what: &str) {
    let mut h = handle(dev);
    let only: Vec<Mat> = mats.iter().map(|m| m.0.clone()).collect();
    let (a, got) = call::<E>(&mut h, dev, case, &only);
    let what = format!("{what} {} {case:?}", E::NAME);
    let st = got
        .status
        .as_ref()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(*st, Status::Success, "{what}");
    let (n, lda) = (case.n, case.lda);
    let stride_w = n + case.w_gap;
    let vectors = case.evect == Evect::Original;
    let sorted = !matches!(
        case.solver,
        Solver::Syevj {
            sort: Esort::None,
            ..
        }
    );
    let nan_bits = bytemuck::bytes_of(&real_nan::<E>()).to_vec();
    for (e, (m, lam)) in mats.iter().enumerate() {
        let we = &got.w[e * stride_w..e * stride_w + n];
        let v = vectors.then(|| {
            let (b, off) = a.loc(e);
            let mut v = vec![ZERO; n * n];
            for j in 0..n {
                for i in 0..n {
                    v[i + j * n] = got.a[b][off + i + j * lda].get();
                }
            }
            v
        });
        let we_ = format!("{what} entry {e}");
        check_entry(&we_, E::EPS, m, n, lam, we, v.as_ref(), sorted);
        assert_eq!(got.info[e], 0, "{we_}: info");
        if let Solver::Syevj {
            abstol, max_sweeps, ..
        } = case.solver
        {
            let tol = if abstol > 0.0 { abstol } else { E::EPS };
            let bound = 2.0 * tol.max(E::EPS * (n as f64).sqrt()) * frobenius(m);
            assert!(
                got.residual[e] <= bound,
                "{we_}: residual {} above {bound:e}",
                got.residual[e]
            );
            assert!(
                (0..=max_sweeps as i32).contains(&got.sweeps[e]),
                "{we_}: {} sweeps",
                got.sweeps[e]
            );
        }
        // W's gap after the entry holds its NaN.
        for p in e * stride_w + n..((e + 1) * stride_w).min(got.w.len()) {
            assert_eq!(got.w_bits[p], nan_bits, "{we_}: W[{p}] (a gap) written");
        }
    }
    let last = got.w_bits.len() - 1;
    assert_eq!(got.w_bits[last], nan_bits, "{what}: W past its end written");
    // A: with vectors only the n × n entries change; without, nothing does.
    let is_out = |i: usize, j: usize| vectors && i < n && j < n;
    a.only_outputs_changed(&got.a, lda, n, lda, &is_out, &what);
}

fn cases_for(solver: Solver) -> Vec<Case> {
    let forms: &[Form] = match solver {
        Solver::Syevd => &[
            Form::Single,
            Form::List(1),
            Form::List(7),
            Form::Strided(1),
            Form::Strided(7),
        ],
        Solver::Syevj { .. } => &[
            Form::List(1),
            Form::List(7),
            Form::Strided(1),
            Form::Strided(7),
        ],
    };
    let mut out = vec![];
    let mut k = 0;
    for &n in &[1usize, 2, 3, 8, 9, 31, 32, 33] {
        for &form in forms {
            k += 1;
            out.push(Case {
                solver,
                form,
                n,
                lda: n + k % 3,
                uplo: if k % 2 == 0 { Uplo::Lower } else { Uplo::Upper },
                evect: if k % 4 == 3 {
                    Evect::None
                } else {
                    Evect::Original
                },
                w_gap: k % 3,
                device_results: k % 5 == 2,
            });
        }
    }
    out
}

fn every_type_and_form<E: T>(dev: &Device, solver: Solver, seed: u64) {
    let mut r = Gen::new(seed);
    for (i, case) in cases_for(solver).iter().enumerate() {
        let kind = KINDS[i % KINDS.len()];
        let mats: Vec<_> = (0..form_count(case.form))
            .map(|_| matrix::<E>(&mut r, kind, case.n))
            .collect();
        run_and_check::<E>(dev, case, &mats, &format!("{kind:?}"));
    }
}

// ---- tests ---------------------------------------------------------------------------------

fn f1_syevd_every_type_and_form(dev: &Device) {
    every_type_and_form::<f64>(dev, Solver::Syevd, 1);
    every_type_and_form::<f32>(dev, Solver::Syevd, 2);
    every_type_and_form::<Complex64>(dev, Solver::Syevd, 3);
    every_type_and_form::<Complex32>(dev, Solver::Syevd, 4);
}

fn f1_syevj_every_type_and_form(dev: &Device) {
    every_type_and_form::<f64>(dev, JACOBI, 5);
    every_type_and_form::<f32>(dev, JACOBI, 6);
    every_type_and_form::<Complex64>(dev, JACOBI, 7);
    every_type_and_form::<Complex32>(dev, JACOBI, 8);
}

/// Every matrix kind at the orders around the kernel's padded sizes and past the Jacobi
/// limit.
fn sizes_and_kinds<E: T>(dev: &Device, seed: u64) {
    let mut r = Gen::new(seed);
    let orders = [15, 16, 17, 63, 64, 65, 127, 128, 129];
    for (i, &n) in orders.iter().enumerate() {
        for (k, &kind) in KINDS.iter().enumerate() {
            // The large orders build from spectra only (no reference Jacobi at 129).
            let kind = if n > 64 && kind == Kind::Random {
                Kind::Spectrum
            } else {
                kind
            };
            if n > 64 && matches!(kind, Kind::Tridiagonal | Kind::Huge | Kind::Tiny) {
                continue;
            }
            let m = matrix::<E>(&mut r, kind, n);
            let mut solvers = vec![Solver::Syevd];
            if n <= 64 {
                solvers.push(JACOBI);
            }
            for solver in solvers {
                let case = Case {
                    solver,
                    form: if matches!(solver, Solver::Syevd) {
                        Form::Single
                    } else {
                        Form::Strided(1)
                    },
                    n,
                    lda: n + 1,
                    uplo: if (i + k) % 2 == 0 {
                        Uplo::Lower
                    } else {
                        Uplo::Upper
                    },
                    evect: Evect::Original,
                    w_gap: 0,
                    device_results: false,
                };
                run_and_check::<E>(dev, &case, std::slice::from_ref(&m), &format!("{kind:?}"));
            }
        }
    }
}

fn f1_eig_sizes_and_matrix_kinds(dev: &Device) {
    sizes_and_kinds::<f64>(dev, 11);
    sizes_and_kinds::<Complex64>(dev, 12);
    sizes_and_kinds::<f32>(dev, 13);
    sizes_and_kinds::<Complex32>(dev, 14);
}

/// `syevd` above the Jacobi kernel's orders (the two-stage pipeline on CUDA) in every form,
/// both triangles, with and without vectors, results to host and device memory.
fn f1_syevd_large_orders_every_form(dev: &Device) {
    let mut r = Gen::new(31);
    let forms = [Form::Single, Form::List(2), Form::Strided(3)];
    for (k, &n) in [65usize, 100, 129].iter().enumerate() {
        for (f, &form) in forms.iter().enumerate() {
            let case = Case {
                solver: Solver::Syevd,
                form,
                n,
                lda: n + f,
                uplo: if (k + f) % 2 == 0 {
                    Uplo::Lower
                } else {
                    Uplo::Upper
                },
                evect: if (k + f) % 3 == 1 {
                    Evect::None
                } else {
                    Evect::Original
                },
                w_gap: f,
                device_results: (k + f) % 2 == 1,
            };
            let kind = [Kind::Spectrum, Kind::Clustered, Kind::Diagonal][(k + f) % 3];
            let mats: Vec<_> = (0..form_count(form))
                .map(|_| matrix::<Complex64>(&mut r, kind, n))
                .collect();
            run_and_check::<Complex64>(dev, &case, &mats, &format!("{kind:?}"));
            let mats: Vec<_> = (0..form_count(form))
                .map(|_| matrix::<f32>(&mut r, kind, n))
                .collect();
            run_and_check::<f32>(dev, &case, &mats, &format!("{kind:?}"));
        }
    }
}

/// `syevd` with vectors at orders where the divide and conquer of stage 3 has four to five
/// merge levels and a partial last merge (257, 500), on the spectra that deflate (repeated,
/// clustered, a diagonal) and on ones that do not.
fn f1_syevd_divide_and_conquer_levels(dev: &Device) {
    let mut r = Gen::new(41);
    for (k, &n) in [257usize, 500].iter().enumerate() {
        let kinds = [
            Kind::Repeated,
            Kind::Clustered,
            Kind::Diagonal,
            Kind::Spread,
            Kind::Spectrum,
        ];
        for (q, &kind) in kinds.iter().enumerate() {
            let case = Case {
                solver: Solver::Syevd,
                form: Form::Single,
                n,
                lda: n + 1,
                uplo: if (k + q) % 2 == 0 {
                    Uplo::Lower
                } else {
                    Uplo::Upper
                },
                evect: Evect::Original,
                w_gap: 0,
                device_results: q % 2 == 1,
            };
            let m = matrix::<f64>(&mut r, kind, n);
            run_and_check::<f64>(dev, &case, std::slice::from_ref(&m), &format!("{kind:?}"));
            if q % 2 == 0 {
                let m = matrix::<Complex32>(&mut r, kind, n);
                run_and_check::<Complex32>(dev, &case, &[m], &format!("{kind:?}"));
            }
        }
    }
}

/// Unsorted Jacobi: the eigenvalues in the final diagonal's order, the vectors with them.
fn f1_syevj_unsorted_and_tolerances(dev: &Device) {
    let mut r = Gen::new(21);
    for &(abstol, sort) in &[
        (0.0, Esort::None),
        (-1.0, Esort::Ascending),
        (1e-6, Esort::Ascending),
    ] {
        let solver = Solver::Syevj {
            sort,
            abstol,
            max_sweeps: 100,
        };
        for &n in &[5usize, 32, 40] {
            let mats: Vec<_> = (0..3)
                .map(|_| matrix::<f64>(&mut r, Kind::Spectrum, n))
                .collect();
            let case = Case {
                solver,
                form: Form::List(3),
                n,
                lda: n,
                uplo: Uplo::Lower,
                evect: Evect::Original,
                w_gap: 1,
                device_results: true,
            };
            if abstol > 1e-10 {
                // A loose tolerance: the residual within it, the eigenvalues within it too.
                let mut h = handle(dev);
                let only: Vec<Mat> = mats.iter().map(|m| m.0.clone()).collect();
                let (_, got) = call::<f64>(&mut h, dev, &case, &only);
                assert_eq!(got.status.unwrap(), Status::Success);
                for (e, (m, lam)) in mats.iter().enumerate() {
                    let fro = frobenius(m);
                    assert!(
                        got.residual[e] <= abstol * fro,
                        "entry {e}: residual {}",
                        got.residual[e]
                    );
                    assert_eq!(got.info[e], 0);
                    for i in 0..n {
                        let wi = got.w[e * (n + 1) + i];
                        assert!(
                            (wi - lam[i]).abs() <= abstol * fro * 2.0,
                            "entry {e} eigenvalue {i}"
                        );
                    }
                }
            } else {
                run_and_check::<f64>(dev, &case, &mats, "unsorted/tolerance");
            }
        }
    }
}

/// One sweep is not enough for a random order-32 matrix: info 1, 1 sweep, a finite residual
/// above the tolerance, and the eigenvalues and vectors as far as they got (finite).
fn f1_syevj_max_sweeps_one_reports_no_convergence(dev: &Device) {
    let mut r = Gen::new(31);
    let n = 32;
    let (m, _) = matrix::<f64>(&mut r, Kind::Random, n);
    for form in [Form::List(1), Form::Strided(1)] {
        let case = Case {
            solver: Solver::Syevj {
                sort: Esort::Ascending,
                abstol: 0.0,
                max_sweeps: 1,
            },
            form,
            n,
            lda: n,
            uplo: Uplo::Upper,
            evect: Evect::Original,
            w_gap: 0,
            device_results: false,
        };
        let mut h = handle(dev);
        let (_, got) = call::<f64>(&mut h, dev, &case, std::slice::from_ref(&m));
        assert_eq!(got.status.unwrap(), Status::Success);
        assert_eq!((got.info[0], got.sweeps[0]), (1, 1), "{form:?}");
        let thr = f64::EPSILON * frobenius(&m);
        assert!(
            got.residual[0].is_finite() && got.residual[0] > thr,
            "residual {}",
            got.residual[0]
        );
        assert!(got.w[..n].iter().all(|x| x.is_finite()));
    }
}

/// A NaN or infinity in the referenced triangle: that entry's W (and vectors) NaN, info n + 1
/// (syevd) or 1 with a NaN residual and 0 sweeps (syevj); the other entries unaffected. A NaN in
/// the triangle not referenced (every stored test matrix has them) changes nothing.
fn f1_eig_nan_input_flags_the_entry_only(dev: &Device) {
    let mut r = Gen::new(41);
    for solver in [Solver::Syevd, JACOBI] {
        for (n, bad) in [(5usize, f64::NAN), (33, f64::INFINITY), (1, f64::NAN)] {
            let mats: Vec<_> = (0..3)
                .map(|_| matrix::<Complex64>(&mut r, Kind::Random, n))
                .collect();
            let mut only: Vec<Mat> = mats.iter().map(|m| m.0.clone()).collect();
            // Entry 1, row n−1, column 0 (in the lower triangle).
            only[1][n - 1] = (bad, 0.5);
            if n > 1 {
                only[1][(n - 1) * n] = conj(only[1][n - 1]);
            }
            let case = Case {
                solver,
                form: Form::Strided(3),
                n,
                lda: n + 1,
                uplo: Uplo::Lower,
                evect: Evect::Original,
                w_gap: 0,
                device_results: false,
            };
            let mut h = handle(dev);
            let (a, got) = call::<Complex64>(&mut h, dev, &case, &only);
            assert_eq!(got.status.unwrap(), Status::Success);
            let what = format!("{solver:?} n = {n}");
            let want_info = if matches!(solver, Solver::Syevd) {
                n as i32 + 1
            } else {
                1
            };
            assert_eq!(got.info[1], want_info, "{what}");
            assert!(got.w[n..2 * n].iter().all(|x| x.is_nan()), "{what}: W");
            let (b, off) = a.loc(1);
            for j in 0..n {
                for i in 0..n {
                    let x = got.a[b][off + i + j * (n + 1)].get();
                    assert!(
                        x.0.is_nan() && x.1.is_nan(),
                        "{what}: vector ({i}, {j}) = {x:?}"
                    );
                }
            }
            if let Solver::Syevj { .. } = solver {
                assert!(got.residual[1].is_nan() && got.sweeps[1] == 0, "{what}");
            }
            for e in [0, 2] {
                assert_eq!(got.info[e], 0, "{what}: entry {e}");
                let we = &got.w[e * n..(e + 1) * n];
                check_entry(
                    &format!("{what} entry {e}"),
                    f64::EPSILON,
                    &mats[e].0,
                    n,
                    &mats[e].1,
                    we,
                    None,
                    true,
                );
            }
        }
    }
}

/// Repeated calls give the same bits (fixed reduction orders).
fn f1_eig_repeatable(dev: &Device) {
    let mut r = Gen::new(51);
    let mats: Vec<Mat> = (0..7)
        .map(|_| matrix::<Complex32>(&mut r, Kind::Random, 20).0)
        .collect();
    for solver in [Solver::Syevd, JACOBI] {
        let case = Case {
            solver,
            form: Form::Strided(7),
            n: 20,
            lda: 20,
            uplo: Uplo::Upper,
            evect: Evect::Original,
            w_gap: 0,
            device_results: true,
        };
        let mut h = handle(dev);
        let (_, g1) = call::<Complex32>(&mut h, dev, &case, &mats);
        let (_, g2) = call::<Complex32>(&mut h, dev, &case, &mats);
        assert_eq!(g1.w_bits, g2.w_bits, "{solver:?}: W");
        assert_eq!(g1.sweeps, g2.sweeps);
        let bits = |g: &Got<Complex32>| -> Vec<u8> {
            g.a.iter()
                .flat_map(|b| bytemuck::cast_slice::<_, u8>(b).to_vec())
                .collect()
        };
        assert_eq!(bits(&g1), bits(&g2), "{solver:?}: vectors");
    }
}

/// n = 0: info (and sweeps, residual) 0 per entry, nothing else written; batch 0: nothing at all.
fn f3_eig_quick_returns(dev: &Device) {
    for solver in [Solver::Syevd, JACOBI] {
        for (form, device_results) in [
            (Form::Strided(3), false),
            (Form::List(2), true),
            (Form::Single, false),
        ] {
            if matches!((solver, form), (Solver::Syevj { .. }, Form::Single)) {
                continue;
            }
            let case = Case {
                solver,
                form,
                n: 0,
                lda: 1,
                uplo: Uplo::Lower,
                evect: Evect::Original,
                w_gap: 2,
                device_results,
            };
            let mut h = handle(dev);
            let mats = vec![vec![]; form_count(form)];
            let (a, got) = call::<f64>(&mut h, dev, &case, &mats);
            assert_eq!(got.status.unwrap(), Status::Success);
            let b = form_count(form);
            assert_eq!(got.info, vec![0; b], "{solver:?} {form:?}");
            if let Solver::Syevj { .. } = solver {
                assert_eq!(got.sweeps, vec![0; b]);
                assert_eq!(got.residual, vec![0.0; b]);
            }
            a.untouched("n = 0");
            let nan_bits = bytemuck::bytes_of(&real_nan::<f64>()).to_vec();
            assert!(
                got.w_bits.iter().all(|x| *x == nan_bits),
                "n = 0: W written"
            );
        }
        for form in [Form::Strided(0), Form::List(0)] {
            let case = Case {
                solver,
                form,
                n: 4,
                lda: 4,
                uplo: Uplo::Lower,
                evect: Evect::Original,
                w_gap: 0,
                device_results: false,
            };
            let mut h = handle(dev);
            let (a, got) = call::<f64>(&mut h, dev, &case, &[]);
            assert_eq!(got.status.unwrap(), Status::Success);
            a.untouched("batch 0");
        }
    }
}

/// Bad arguments: errors naming the values, every output as it was.
fn f2_eig_bad_arguments_leave_outputs_untouched(dev: &Device) {
    let mut h = handle(dev);
    let n = 4;
    let a0: Vec<f64> = (0..2 * n * n).map(|i| i as f64).collect();
    let mut a = dev.upload(&a0).unwrap();
    let mut w = dev.upload(&vec![3.5f64; 2 * n]).unwrap();
    let mut info = vec![9i32; 2];
    let mut sweeps = vec![9i32; 2];
    let mut res = vec![9.0f64; 2];
    let untouched = |a: &DeviceBuffer<f64>, w: &DeviceBuffer<f64>, info: &[i32], what: &str| {
        assert_eq!(a.to_vec().unwrap(), a0, "{what}: A");
        assert!(w.to_vec().unwrap().iter().all(|&x| x == 3.5), "{what}: W");
        assert_eq!(info, &[9, 9], "{what}: info");
    };
    let ev = Evect::Original;
    let lo = Uplo::Lower;
    let e = solver::syevd(
        &mut h,
        ev,
        lo,
        n,
        &mut a,
        3,
        &mut w,
        Results::Host(&mut info),
    );
    expect_err(e, is_size, &["lda = 3", "n"], "syevd lda < n");
    untouched(&a, &w, &info, "lda");
    let e = solver::syevd_strided_batched(
        &mut h,
        ev,
        lo,
        n,
        &mut a,
        n,
        n * n,
        &mut w,
        3,
        Results::Host(&mut info),
        2,
    );
    expect_err(e, is_value, &["stride_w = 3"], "stride_w < n");
    untouched(&a, &w, &info, "stride_w");
    let e = solver::syevd_strided_batched(
        &mut h,
        ev,
        lo,
        n,
        &mut a,
        n,
        n * n,
        &mut w,
        n + 1,
        Results::Host(&mut info),
        2,
    );
    expect_err(e, is_value, &["W has 8 elements", "needs 9"], "W too short");
    untouched(&a, &w, &info, "W short");
    let e = solver::syevd_strided_batched(
        &mut h,
        ev,
        lo,
        n,
        &mut a,
        n,
        n * n + 1,
        &mut w,
        n,
        Results::Host(&mut info),
        2,
    );
    expect_err(e, is_value, &["A", "33"], "A too short");
    untouched(&a, &w, &info, "A short");
    let e = solver::syevd_strided_batched(
        &mut h,
        ev,
        lo,
        n,
        &mut a,
        n,
        n * n,
        &mut w,
        n,
        Results::Host(&mut info[..1]),
        2,
    );
    expect_err(e, is_value, &["info has 1"], "info too short");
    untouched(&a, &w, &info, "info short");
    let mut ph = DeviceBuffer::<f64>::placeholder(2 * n);
    let e = solver::syevd_strided_batched(
        &mut h,
        ev,
        lo,
        n,
        &mut a,
        n,
        n * n,
        &mut ph,
        n,
        Results::Host(&mut info),
        2,
    );
    expect_err(e, is_pointer, &["W", "placeholder"], "placeholder W");
    untouched(&a, &w, &info, "placeholder");
    // syevj: order, sweeps, results.
    let mut big = dev.upload(&vec![0.0f64; 65 * 65]).unwrap();
    let e = solver::syevj_strided_batched(
        &mut h,
        Esort::Ascending,
        ev,
        lo,
        65,
        &mut big,
        65,
        0,
        0.0,
        Results::Host(&mut res[..1]),
        10,
        Results::Host(&mut sweeps[..1]),
        &mut w,
        65,
        Results::Host(&mut info[..1]),
        1,
    );
    expect_err(e, is_size, &["n = 65", "64"], "syevj n > 64");
    let e = solver::syevj_strided_batched(
        &mut h,
        Esort::Ascending,
        ev,
        lo,
        n,
        &mut a,
        n,
        n * n,
        0.0,
        Results::Host(&mut res),
        0,
        Results::Host(&mut sweeps),
        &mut w,
        n,
        Results::Host(&mut info),
        2,
    );
    expect_err(e, is_size, &["max_sweeps = 0"], "syevj max_sweeps 0");
    let e = solver::syevj_strided_batched(
        &mut h,
        Esort::Ascending,
        ev,
        lo,
        n,
        &mut a,
        n,
        n * n,
        0.0,
        Results::Host(&mut res[..1]),
        5,
        Results::Host(&mut sweeps),
        &mut w,
        n,
        Results::Host(&mut info),
        2,
    );
    expect_err(e, is_value, &["residual has 1"], "syevj residual short");
    let mut sw_ph = DeviceBuffer::<i32>::placeholder(2);
    let e = solver::syevj_strided_batched(
        &mut h,
        Esort::Ascending,
        ev,
        lo,
        n,
        &mut a,
        n,
        n * n,
        0.0,
        Results::Host(&mut res),
        5,
        Results::Device(&mut sw_ph),
        &mut w,
        n,
        Results::Host(&mut info),
        2,
    );
    expect_err(
        e,
        is_pointer,
        &["n_sweeps", "placeholder"],
        "syevj sweeps placeholder",
    );
    let e = solver::syevj_strided_batched(
        &mut h,
        Esort::Ascending,
        ev,
        lo,
        n,
        &mut a,
        n,
        n * n - 1,
        0.0,
        Results::Host(&mut res),
        5,
        Results::Host(&mut sweeps),
        &mut w,
        n,
        Results::Host(&mut info),
        2,
    );
    expect_err(
        e,
        is_value,
        &["stride_a = 15", "overlap"],
        "syevj entries overlap",
    );
    untouched(&a, &w, &info, "syevj");
    assert_eq!((sweeps, res), (vec![9, 9], vec![9.0, 9.0]));
}

/// The size query takes placeholders and asks for the host-routed results only; that much
/// workspace then runs with `Success`, no growth and no degraded call; device-routed results
/// need none.
fn m08_eig_query_preallocate(dev: &Device) {
    let mut r = Gen::new(61);
    let n = 12;
    for (batch, device_results) in [(7usize, false), (200, false), (7, true)] {
        for solver in [Solver::Syevd, JACOBI] {
            let mats: Vec<_> = (0..batch)
                .map(|_| matrix::<f64>(&mut r, Kind::Spectrum, n))
                .collect();
            let case = Case {
                solver,
                form: Form::Strided(batch),
                n,
                lda: n,
                uplo: Uplo::Lower,
                evect: Evect::Original,
                w_gap: 0,
                device_results,
            };
            let size = {
                let mut q = fixed_handle(dev, 0);
                q.start_device_memory_size_query().unwrap();
                let mut pa = DeviceBuffer::<f64>::placeholder(batch * n * n);
                let mut pw = DeviceBuffer::<f64>::placeholder(batch * n);
                let mut pi = DeviceBuffer::<i32>::placeholder(batch);
                let mut ps = DeviceBuffer::<i32>::placeholder(batch);
                let mut pr = DeviceBuffer::<f64>::placeholder(batch);
                let (mut hi, mut hs, mut hr) = (vec![0; batch], vec![0; batch], vec![0.0; batch]);
                let (info, sw, res) = if device_results {
                    (
                        Results::Device(&mut pi),
                        Results::Device(&mut ps),
                        Results::Device(&mut pr),
                    )
                } else {
                    (
                        Results::Host(&mut hi[..]),
                        Results::Host(&mut hs[..]),
                        Results::Host(&mut hr[..]),
                    )
                };
                let st = match solver {
                    Solver::Syevd => solver::syevd_strided_batched(
                        &mut q,
                        Evect::Original,
                        Uplo::Lower,
                        n,
                        &mut pa,
                        n,
                        n * n,
                        &mut pw,
                        n,
                        info,
                        batch,
                    ),
                    Solver::Syevj { .. } => solver::syevj_strided_batched(
                        &mut q,
                        Esort::Ascending,
                        Evect::Original,
                        Uplo::Lower,
                        n,
                        &mut pa,
                        n,
                        n * n,
                        0.0,
                        res,
                        100,
                        sw,
                        &mut pw,
                        n,
                        info,
                        batch,
                    ),
                }
                .unwrap();
                let size = q.stop_device_memory_size_query().unwrap();
                assert_eq!(st == Status::SizeIncreased, size > 0, "{st:?} {size}");
                assert_eq!(q.get_device_memory_size(), 0, "a query allocated");
                size
            };
            assert_eq!(
                size == 0,
                device_results,
                "{solver:?} batch {batch}: {size} bytes"
            );
            let mut h = fixed_handle(dev, size);
            let only: Vec<Mat> = mats.iter().map(|m| m.0.clone()).collect();
            let (_, got) = call::<f64>(&mut h, dev, &case, &only);
            assert_eq!(
                got.status.unwrap(),
                Status::Success,
                "{solver:?} batch {batch}"
            );
            assert!(got.info.iter().all(|&i| i == 0));
            let s = h.workspace_stats();
            assert_eq!(
                (s.memory_errors, s.degraded_calls, s.growths),
                (0, 0, 0),
                "{s}"
            );
        }
    }
}

/// A fixed workspace too small for all the host-routed results runs the batch in chunks:
/// `PerfDegraded`, the same answer; below one entry's need, `MemoryError` naming the sizes.
fn m06_eig_small_workspace_runs_chunks(dev: &Device) {
    let mut r = Gen::new(71);
    let (n, batch) = (6, 100);
    let mats: Vec<_> = (0..batch)
        .map(|_| matrix::<f64>(&mut r, Kind::Spectrum, n))
        .collect();
    let only: Vec<Mat> = mats.iter().map(|m| m.0.clone()).collect();
    let case = Case {
        solver: JACOBI,
        form: Form::Strided(batch),
        n,
        lda: n,
        uplo: Uplo::Lower,
        evect: Evect::Original,
        w_gap: 0,
        device_results: false,
    };
    let mut full = handle(dev);
    let (_, want) = call::<f64>(&mut full, dev, &case, &only);
    assert_eq!(want.status.unwrap(), Status::Success);
    let mut small = fixed_handle(dev, 3 * 128);
    let (_, got) = call::<f64>(&mut small, dev, &case, &only);
    assert_eq!(got.status.unwrap(), Status::PerfDegraded);
    assert_eq!(got.w_bits, want.w_bits);
    assert_eq!((got.info, got.sweeps), (want.info, want.sweeps));
    assert_eq!(got.residual, want.residual);
    let mut tiny = fixed_handle(dev, 64);
    let (_, got) = call::<f64>(&mut tiny, dev, &case, &only);
    let e = got.status.unwrap_err();
    assert!(matches!(e, Error::MemoryError { .. }), "{e:?}");
    assert!(e.to_string().contains("Results::Device"), "{e}");
}

on_both_backends!(
    f1_syevd_every_type_and_form,
    f1_syevj_every_type_and_form,
    f1_eig_sizes_and_matrix_kinds,
    f1_syevd_large_orders_every_form,
    f1_syevd_divide_and_conquer_levels,
    f1_syevj_unsorted_and_tolerances,
    f1_syevj_max_sweeps_one_reports_no_convergence,
    f1_eig_nan_input_flags_the_entry_only,
    f1_eig_repeatable,
    f3_eig_quick_returns,
    f2_eig_bad_arguments_leave_outputs_untouched,
    m08_eig_query_preallocate,
    m06_eig_small_workspace_runs_chunks,
);
