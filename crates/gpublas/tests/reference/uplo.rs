//! The triangle a routine must not reference (issue 27 item 6; SPEC F3, F7, F10): every routine
//! that takes `uplo`, on both backends, at small orders (1–8) and where blocking changes (63,
//! 64, 65, 127, 129, 257), with leading dimensions above the least, in the three forms (single,
//! `_batched`, `_strided_batched`, rotated over the orders), for the four element types.
//!
//! The triangle a routine must not reference (and a unit diagonal) holds finite poison near 9:
//! a read of it spoils the result, which is checked against a plain f64 reference here, and a
//! write over it shows bit for bit. Padding rows and the gaps between batch entries hold poison
//! too and are compared bit for bit; inputs must come back unchanged. Hermitian inputs carry a
//! random imaginary part on the diagonal, which the routines must ignore.
//!
//! Tolerances: a result summed over `K` products may be off by `8 (K + 2) ε Σ|terms|` (the
//! classic `γ_K` bound with room to spare, `|re| + |im|` as the magnitude); solves and
//! factorizations are checked by their residuals, `|op(A) X − B| ≤ 64 (n + 2) ε |op(A)| |X|`
//! elementwise (the triangular matrices are well conditioned: diagonal magnitude 2–3,
//! off-diagonal entries below `1 / n`).

use crate::common::complex::{cadd, cmul, conj, csub, mag, C, ONE, ZERO};
use crate::zero_dims::{by_form, same_bits, El, Form, Placed, BATCH, FORMS};
use gpublas::{
    blas2, blas3, solver, Coef, Complex32, Complex64, ComplexScalar, Device, Diag, Handle, Op,
    Results, Side, Status, Uplo,
};

/// Orders where nothing, then each family's blocking, changes.
const SIZES: [usize; 11] = [1, 2, 3, 5, 8, 63, 64, 65, 127, 129, 257];

/// Poisoned elements between batch entries.
const GAP: usize = 3;

const UPLOS: [Uplo; 2] = [Uplo::Lower, Uplo::Upper];

fn stored(uplo: Uplo, i: usize, j: usize) -> bool {
    if uplo == Uplo::Lower {
        i >= j
    } else {
        i <= j
    }
}

/// Every variant at the small orders; one of them, rotated by `i`, at the blocked ones (the
/// host backend runs unoptimised in test builds).
fn pick<V: Copy, const N: usize>(n: usize, i: usize, all: [V; N]) -> Vec<V> {
    if n <= 8 {
        all.to_vec()
    } else {
        vec![all[i % N]]
    }
}

/// Whether column `j` of an order-`n` result gets its residual computed: every column up to
/// order 100, then every fourth plus the last of each 32 and of the matrix (the O(n) sum per
/// element is the slow part of these tests unoptimised). Unsampled written elements must
/// still be numbers, and everything unwritten is still compared bit for bit.
fn sampled(n: usize, j: usize) -> bool {
    n <= 100 || j % 4 == 0 || j % 32 == 31 || j + 1 == n
}

/// The form used for the `i`-th case: rotated so every form meets small and blocked orders.
fn form_for(i: usize) -> Form {
    FORMS[i % 3]
}

// ---- data ---------------------------------------------------------------------------------

/// Random test data from xorshift64* (the harness's generator is slow in unoptimised test
/// builds, and these tests fill hundreds of thousands of elements).
struct Gen(u64);

impl Gen {
    fn new(seed: u64) -> Gen {
        Gen(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// Uniform in [0, 1).
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in [lo, hi).
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }
    /// Uniform in [-1, 1) (complex: both parts).
    fn el<T: El>(&mut self) -> T {
        let re = self.range(-1.0, 1.0);
        T::make(re, self.range(-1.0, 1.0))
    }
    fn els<T: El>(&mut self, n: usize) -> Vec<T> {
        (0..n).map(|_| self.el()).collect()
    }
    /// Finite poison near 9: a write over it shows bit for bit, a read of it spoils a result.
    fn poison<T: El>(&mut self) -> T {
        let re = 9.0 + self.next();
        T::make(re, -9.0 - self.next())
    }
}

// ---- layouts ------------------------------------------------------------------------------

/// A matrix operand: `count` entries of `rows × cols` at `ld`, `GAP` elements apart.
#[derive(Debug, Clone, Copy)]
struct Lay {
    rows: usize,
    cols: usize,
    ld: usize,
    count: usize,
}

impl Lay {
    fn new(form: Form, rows: usize, cols: usize, ld: usize) -> Lay {
        Lay {
            rows,
            cols,
            ld,
            count: form.count(),
        }
    }
    fn stride(self) -> usize {
        self.ld * self.cols + GAP
    }
    fn at(self, e: usize, i: usize, j: usize) -> usize {
        e * self.stride() + i + j * self.ld
    }
    /// `(entry, row, column)` of a buffer index inside some entry's `rows × cols`.
    fn locate(self, idx: usize) -> Option<(usize, usize, usize)> {
        let (e, off) = (idx / self.stride(), idx % self.stride());
        let (i, j) = (off % self.ld, off / self.ld);
        (j < self.cols && i < self.rows).then_some((e, i, j))
    }
    /// The buffer: `f(e, i, j)` where it gives a value, poison elsewhere (padding, gaps).
    fn build<T: El>(
        self,
        r: &mut Gen,
        mut f: impl FnMut(usize, usize, usize) -> Option<T>,
    ) -> Vec<T> {
        (0..self.count * self.stride())
            .map(|idx| {
                let (e, i, j) = self.locate(idx)?;
                f(e, i, j)
            })
            .map(|v| v.unwrap_or_else(|| r.poison()))
            .collect()
    }
    fn place<T: El>(self, dev: &Device, form: Form, data: &[T]) -> Placed<T> {
        Placed::new(dev, form, self.stride(), data, false)
    }
}

/// What a checked element must hold.
struct Want {
    v: C,
    /// Largest allowed `|re| + |im|` difference.
    tol: f64,
    /// The imaginary part must be exactly zero (a Hermitian result's diagonal).
    real: bool,
}

/// `f(e, i, j)` gives the expected value where the call writes; everywhere else (unwritten
/// elements, padding, gaps) `after` must be bit-identical to `before`.
fn check<T: El>(
    what: &str,
    lay: Lay,
    before: &[T],
    after: &[T],
    f: impl Fn(usize, usize, usize) -> Option<Want>,
) {
    assert_eq!(before.len(), after.len(), "{what}: length");
    for (idx, (&b, &a)) in before.iter().zip(after).enumerate() {
        let want = lay
            .locate(idx)
            .and_then(|(e, i, j)| f(e, i, j).map(|w| (e, i, j, w)));
        match want {
            Some((e, i, j, w)) => {
                let got = a.get();
                let d = mag(csub(got, w.v));
                assert!(
                    d <= w.tol && (!w.real || got.1 == 0.0),
                    "{what}: entry {e} ({i}, {j}) = {got:?}, want {:?} (difference {d:e}, allowed {:e})",
                    w.v,
                    w.tol
                );
            }
            None => assert!(
                same_bits(a, b),
                "{what}: element {idx} ({:?}) must not be written: {:?} -> {:?}",
                lay.locate(idx),
                b.get(),
                a.get()
            ),
        }
    }
}

/// An input must come back bit-identical.
fn unchanged<T: El>(what: &str, before: &[T], after: &[T]) {
    assert_eq!(before.len(), after.len(), "{what}: length");
    for (idx, (&b, &a)) in before.iter().zip(after).enumerate() {
        assert!(same_bits(a, b), "{what}: input element {idx} changed");
    }
}

/// `8 (K + 2) ε s`: the allowance of a sum of `K` products whose magnitudes add up to `s`.
fn sum_tol<T: El>(k: usize, s: f64) -> f64 {
    8.0 * (k as f64 + 2.0) * T::EPS * s
}

/// The residual allowance of a solve or factorization of order `n`.
fn res_tol<T: El>(n: usize, s: f64) -> f64 {
    64.0 * (n as f64 + 2.0) * T::EPS * s
}

fn ok(what: &str, r: Result<Status, gpublas::Error>) {
    match r {
        Ok(Status::Success) => {}
        other => panic!("{what}: {other:?}"),
    }
}

/// A random scalar of the type (complex: both parts).
fn scalar<T: El>(r: &mut Gen) -> C {
    let im = if T::COMPLEX { r.range(-1.0, 1.0) } else { 0.0 };
    (r.range(0.5, 1.5), im)
}

// ---- matrices -----------------------------------------------------------------------------

/// Entry `e`'s logical matrices: `count` column-major `rows × cols` arrays.
struct Mats<T> {
    rows: usize,
    v: Vec<Vec<T>>,
}

impl<T: El> Mats<T> {
    fn random(r: &mut Gen, count: usize, rows: usize, cols: usize) -> Self {
        Mats {
            rows,
            v: (0..count).map(|_| r.els(rows * cols)).collect(),
        }
    }

    /// Well-conditioned triangular (both triangles filled; the test picks one): diagonal of
    /// magnitude 2–3, the rest below `1 / n`.
    fn triangular(r: &mut Gen, count: usize, n: usize) -> Self {
        let mut m = Self::random(r, count, n, n);
        for v in &mut m.v {
            for j in 0..n {
                for i in 0..n {
                    let (x, y) = v[i + j * n].get();
                    v[i + j * n] = if i == j {
                        T::make(x.signum() * (2.0 + x.abs()), y)
                    } else {
                        T::make(x / n as f64, y / n as f64)
                    };
                }
            }
        }
        m
    }

    /// Hermitian (symmetric for real types) positive definite by diagonal dominance, with a
    /// real diagonal.
    fn hpd(r: &mut Gen, count: usize, n: usize) -> Self {
        let mut m = Self::random(r, count, n, n);
        for v in &mut m.v {
            for j in 0..n {
                for i in 0..j {
                    let (x, y) = v[i + j * n].get();
                    v[j + i * n] = T::make(x, -y);
                }
                let (x, _) = v[j + j * n].get();
                v[j + j * n] = T::make(2.0 * n as f64 + x, 0.0);
            }
        }
        m
    }

    fn get(&self, e: usize, i: usize, j: usize) -> C {
        self.v[e][i + j * self.rows].get()
    }
}

/// `op(M)(i, j)` from `m(i, j)`.
fn opm(op: Op, m: impl Fn(usize, usize) -> C, i: usize, j: usize) -> C {
    match op {
        Op::N => m(i, j),
        Op::T => m(j, i),
        Op::C => conj(m(j, i)),
    }
}

/// The triangular matrix a `uplo`/`diag` call sees in `a`.
fn tri(a: &Mats<impl El>, e: usize, uplo: Uplo, unit: bool, i: usize, j: usize) -> C {
    if i == j && unit {
        ONE
    } else if stored(uplo, i, j) {
        a.get(e, i, j)
    } else {
        ZERO
    }
}

/// The symmetric (`herm`: Hermitian, diagonal taken real) matrix a `uplo` call sees in `a`.
fn sym(a: &Mats<impl El>, e: usize, uplo: Uplo, herm: bool, i: usize, j: usize) -> C {
    if i == j && herm {
        (a.get(e, i, i).0, 0.0)
    } else if stored(uplo, i, j) {
        a.get(e, i, j)
    } else if herm {
        conj(a.get(e, j, i))
    } else {
        a.get(e, j, i)
    }
}

/// The stored form of `a` for a `uplo` call: its triangle (without the diagonal for `unit`),
/// poison elsewhere.
fn store_tri<T: El>(r: &mut Gen, lay: Lay, a: &Mats<T>, uplo: Uplo, unit: bool) -> Vec<T> {
    lay.build(r, |e, i, j| {
        (stored(uplo, i, j) && !(unit && i == j)).then(|| a.v[e][i + j * a.rows])
    })
}

/// The stored form of a general matrix (poison only in padding and gaps).
fn store_all<T: El>(r: &mut Gen, lay: Lay, a: &Mats<T>) -> Vec<T> {
    lay.build(r, |e, i, j| Some(a.v[e][i + j * a.rows]))
}

/// A random imaginary part on the diagonal, which Hermitian routines must ignore.
fn garble_diag<T: El>(r: &mut Gen, a: &mut Mats<T>) {
    let n = a.rows;
    for v in &mut a.v {
        for j in 0..n {
            let (x, _) = v[j + j * n].get();
            v[j + j * n] = T::make(x, r.range(-1.0, 1.0));
        }
    }
}

type R = Result<Status, gpublas::Error>;

// ---- rank-k updates: C's other triangle -----------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq)]
enum Rk {
    Syrk,
    Herk,
    Syr2k,
    Her2k,
    Syrkx,
    Herkx,
}

impl Rk {
    fn herm(self) -> bool {
        matches!(self, Rk::Herk | Rk::Her2k | Rk::Herkx)
    }
    fn ops(self) -> [Op; 2] {
        if self.herm() {
            [Op::N, Op::C]
        } else {
            [Op::N, Op::T]
        }
    }
}

/// One rank-k call's arguments (`alpha` real for herk, `beta` real for the Hermitian ones).
#[derive(Debug)]
struct RkArgs {
    kind: Rk,
    form: Form,
    uplo: Uplo,
    op: Op,
    n: usize,
    k: usize,
    lda: usize,
    ldc: usize,
    alpha: C,
    beta: C,
}

type RkCall<T> = fn(&mut Handle, &RkArgs, &Placed<T>, &Placed<T>, &mut Placed<T>) -> R;

fn rk_sym<T: El>(h: &mut Handle, p: &RkArgs, a: &Placed<T>, b: &Placed<T>, c: &mut Placed<T>) -> R {
    let (sa, sb, sc) = (a.stride, b.stride, c.stride);
    let (uplo, op, n, k, lda, ldc) = (p.uplo, p.op, p.n, p.k, p.lda, p.ldc);
    let al = Coef::Host(T::make(p.alpha.0, p.alpha.1));
    let be = Coef::Host(T::make(p.beta.0, p.beta.1));
    match p.kind {
        Rk::Syrk => by_form!(p.form,
            single => blas3::syrk(h, uplo, op, n, k, al, a.one(), lda, be, c.one_mut(), ldc),
            list => blas3::syrk_batched(h, uplo, op, n, k, al, &a.list(), lda, be, &mut c.list_mut(), ldc),
            strided => blas3::syrk_strided_batched(h, uplo, op, n, k, al, a.one(), lda, sa, be, c.one_mut(), ldc, sc, BATCH),
        ),
        Rk::Syr2k => by_form!(p.form,
            single => blas3::syr2k(h, uplo, op, n, k, al, a.one(), lda, b.one(), lda, be, c.one_mut(), ldc),
            list => blas3::syr2k_batched(h, uplo, op, n, k, al, &a.list(), lda, &b.list(), lda, be, &mut c.list_mut(), ldc),
            strided => blas3::syr2k_strided_batched(h, uplo, op, n, k, al, a.one(), lda, sa, b.one(), lda, sb, be, c.one_mut(), ldc, sc, BATCH),
        ),
        Rk::Syrkx => by_form!(p.form,
            single => blas3::syrkx(h, uplo, op, n, k, al, a.one(), lda, b.one(), lda, be, c.one_mut(), ldc),
            list => blas3::syrkx_batched(h, uplo, op, n, k, al, &a.list(), lda, &b.list(), lda, be, &mut c.list_mut(), ldc),
            strided => blas3::syrkx_strided_batched(h, uplo, op, n, k, al, a.one(), lda, sa, b.one(), lda, sb, be, c.one_mut(), ldc, sc, BATCH),
        ),
        _ => unreachable!("the Hermitian updates take complex elements"),
    }
}

fn rk_herm<T: El + ComplexScalar>(
    h: &mut Handle,
    p: &RkArgs,
    a: &Placed<T>,
    b: &Placed<T>,
    c: &mut Placed<T>,
) -> R {
    let (sa, sb, sc) = (a.stride, b.stride, c.stride);
    let (uplo, op, n, k, lda, ldc) = (p.uplo, p.op, p.n, p.k, p.lda, p.ldc);
    let al = Coef::Host(T::make(p.alpha.0, p.alpha.1));
    let ral = Coef::Host(T::real(p.alpha.0));
    let be = Coef::Host(T::real(p.beta.0));
    match p.kind {
        Rk::Herk => by_form!(p.form,
            single => blas3::herk(h, uplo, op, n, k, ral, a.one(), lda, be, c.one_mut(), ldc),
            list => blas3::herk_batched(h, uplo, op, n, k, ral, &a.list(), lda, be, &mut c.list_mut(), ldc),
            strided => blas3::herk_strided_batched(h, uplo, op, n, k, ral, a.one(), lda, sa, be, c.one_mut(), ldc, sc, BATCH),
        ),
        Rk::Her2k => by_form!(p.form,
            single => blas3::her2k(h, uplo, op, n, k, al, a.one(), lda, b.one(), lda, be, c.one_mut(), ldc),
            list => blas3::her2k_batched(h, uplo, op, n, k, al, &a.list(), lda, &b.list(), lda, be, &mut c.list_mut(), ldc),
            strided => blas3::her2k_strided_batched(h, uplo, op, n, k, al, a.one(), lda, sa, b.one(), lda, sb, be, c.one_mut(), ldc, sc, BATCH),
        ),
        Rk::Herkx => by_form!(p.form,
            single => blas3::herkx(h, uplo, op, n, k, al, a.one(), lda, b.one(), lda, be, c.one_mut(), ldc),
            list => blas3::herkx_batched(h, uplo, op, n, k, al, &a.list(), lda, &b.list(), lda, be, &mut c.list_mut(), ldc),
            strided => blas3::herkx_strided_batched(h, uplo, op, n, k, al, a.one(), lda, sa, b.one(), lda, sb, be, c.one_mut(), ldc, sc, BATCH),
        ),
        _ => rk_sym(h, p, a, b, c),
    }
}

/// Every order, triangle and op of the given updates: the `uplo` triangle of `C` is the
/// reference, the other triangle, padding and gaps bit-identical, `A` and `B` unchanged.
fn rank_k<T: El>(dev: &Device, kinds: &[Rk], call: RkCall<T>) {
    let mut h = Handle::new(dev).unwrap();
    let mut r = Gen::new(601);
    let mut case = 0;
    for &kind in kinds {
        for (si, &n) in SIZES.iter().enumerate() {
            for (ui, uplo) in UPLOS.into_iter().enumerate() {
                for op in pick(n, si + ui, kind.ops()) {
                    case += 1;
                    let form = form_for(case);
                    let k = if n > 8 { 5 } else { 3 };
                    let alpha = if kind == Rk::Herk {
                        (r.range(0.5, 1.5), 0.0)
                    } else {
                        scalar::<T>(&mut r)
                    };
                    let beta = if kind.herm() {
                        (r.range(-1.5, -0.5), 0.0)
                    } else {
                        scalar::<T>(&mut r)
                    };
                    let (ar, ac) = if op == Op::N { (n, k) } else { (k, n) };
                    let (lda, ldc) = (ar + 2, n + 3);
                    let (la, lc) = (Lay::new(form, ar, ac, lda), Lay::new(form, n, n, ldc));
                    let cnt = form.count();
                    let am = Mats::<T>::random(&mut r, cnt, ar, ac);
                    let bm = Mats::<T>::random(&mut r, cnt, ar, ac);
                    let cm = Mats::<T>::random(&mut r, cnt, n, n);
                    let ad = store_all(&mut r, la, &am);
                    let bd = store_all(&mut r, la, &bm);
                    let cd = store_tri(&mut r, lc, &cm, uplo, false);
                    let (a, b) = (la.place(dev, form, &ad), la.place(dev, form, &bd));
                    let mut c = lc.place(dev, form, &cd);
                    let p = RkArgs {
                        kind,
                        form,
                        uplo,
                        op,
                        n,
                        k,
                        lda,
                        ldc,
                        alpha,
                        beta,
                    };
                    let what = format!("{} {p:?}", T::NAME);
                    ok(&what, call(&mut h, &p, &a, &b, &mut c));
                    unchanged(&format!("{what} A"), &ad, &a.read());
                    unchanged(&format!("{what} B"), &bd, &b.read());
                    check(&what, lc, &cd, &c.read(), |e, i, j| {
                        if !stored(uplo, i, j) {
                            return None;
                        }
                        let opa = |x: usize, l: usize| opm(op, |p, q| am.get(e, p, q), x, l);
                        let opb = |x: usize, l: usize| opm(op, |p, q| bm.get(e, p, q), x, l);
                        let terms = if matches!(kind, Rk::Syr2k | Rk::Her2k) {
                            2 * k
                        } else {
                            k
                        };
                        let (mut v, mut s) = (ZERO, 0.0);
                        for l in 0..k {
                            let (t1, t2) = match kind {
                                Rk::Syrk => (cmul(alpha, cmul(opa(i, l), opa(j, l))), ZERO),
                                Rk::Herk => (cmul(alpha, cmul(opa(i, l), conj(opa(j, l)))), ZERO),
                                Rk::Syrkx => (cmul(alpha, cmul(opa(i, l), opb(j, l))), ZERO),
                                Rk::Herkx => (cmul(alpha, cmul(opa(i, l), conj(opb(j, l)))), ZERO),
                                Rk::Syr2k => (
                                    cmul(alpha, cmul(opa(i, l), opb(j, l))),
                                    cmul(alpha, cmul(opb(i, l), opa(j, l))),
                                ),
                                Rk::Her2k => (
                                    cmul(alpha, cmul(opa(i, l), conj(opb(j, l)))),
                                    cmul(conj(alpha), cmul(opb(i, l), conj(opa(j, l)))),
                                ),
                            };
                            v = cadd(v, cadd(t1, t2));
                            s += mag(t1) + mag(t2);
                        }
                        let mut c0 = cm.get(e, i, j);
                        if kind.herm() && i == j {
                            c0.1 = 0.0;
                        }
                        let bc = cmul(beta, c0);
                        v = cadd(v, bc);
                        s += mag(bc);
                        if kind.herm() && i == j {
                            v.1 = 0.0;
                        }
                        Some(Want {
                            v,
                            tol: sum_tol::<T>(terms, s),
                            real: kind.herm() && i == j,
                        })
                    });
                }
            }
        }
    }
}

const SYM_RK: [Rk; 3] = [Rk::Syrk, Rk::Syr2k, Rk::Syrkx];
const ALL_RK: [Rk; 6] = [
    Rk::Syrk,
    Rk::Herk,
    Rk::Syr2k,
    Rk::Her2k,
    Rk::Syrkx,
    Rk::Herkx,
];

fn f3_rank_k_updates_leave_other_triangle_untouched(dev: &Device) {
    rank_k::<f32>(dev, &SYM_RK, rk_sym::<f32>);
    rank_k::<f64>(dev, &SYM_RK, rk_sym::<f64>);
    rank_k::<Complex32>(dev, &ALL_RK, rk_herm::<Complex32>);
    rank_k::<Complex64>(dev, &ALL_RK, rk_herm::<Complex64>);
}

// ---- symm / hemm: A's other triangle --------------------------------------------------------

/// One symm/hemm call's arguments.
#[derive(Debug)]
struct MmArgs {
    herm: bool,
    form: Form,
    side: Side,
    uplo: Uplo,
    m: usize,
    n: usize,
    lda: usize,
    ldb: usize,
    ldc: usize,
    alpha: C,
    beta: C,
}

type MmCall<T> = fn(&mut Handle, &MmArgs, &Placed<T>, &Placed<T>, &mut Placed<T>) -> R;

fn mm_sym<T: El>(h: &mut Handle, p: &MmArgs, a: &Placed<T>, b: &Placed<T>, c: &mut Placed<T>) -> R {
    assert!(!p.herm, "hemm takes complex elements");
    let (sa, sb, sc) = (a.stride, b.stride, c.stride);
    let (side, uplo, m, n, lda, ldb, ldc) = (p.side, p.uplo, p.m, p.n, p.lda, p.ldb, p.ldc);
    let al = Coef::Host(T::make(p.alpha.0, p.alpha.1));
    let be = Coef::Host(T::make(p.beta.0, p.beta.1));
    by_form!(p.form,
        single => blas3::symm(h, side, uplo, m, n, al, a.one(), lda, b.one(), ldb, be, c.one_mut(), ldc),
        list => blas3::symm_batched(h, side, uplo, m, n, al, &a.list(), lda, &b.list(), ldb, be, &mut c.list_mut(), ldc),
        strided => blas3::symm_strided_batched(h, side, uplo, m, n, al, a.one(), lda, sa, b.one(), ldb, sb, be, c.one_mut(), ldc, sc, BATCH),
    )
}

fn mm_herm<T: El + ComplexScalar>(
    h: &mut Handle,
    p: &MmArgs,
    a: &Placed<T>,
    b: &Placed<T>,
    c: &mut Placed<T>,
) -> R {
    if !p.herm {
        return mm_sym(h, p, a, b, c);
    }
    let (sa, sb, sc) = (a.stride, b.stride, c.stride);
    let (side, uplo, m, n, lda, ldb, ldc) = (p.side, p.uplo, p.m, p.n, p.lda, p.ldb, p.ldc);
    let al = Coef::Host(T::make(p.alpha.0, p.alpha.1));
    let be = Coef::Host(T::make(p.beta.0, p.beta.1));
    by_form!(p.form,
        single => blas3::hemm(h, side, uplo, m, n, al, a.one(), lda, b.one(), ldb, be, c.one_mut(), ldc),
        list => blas3::hemm_batched(h, side, uplo, m, n, al, &a.list(), lda, &b.list(), ldb, be, &mut c.list_mut(), ldc),
        strided => blas3::hemm_strided_batched(h, side, uplo, m, n, al, a.one(), lda, sa, b.one(), ldb, sb, be, c.one_mut(), ldc, sc, BATCH),
    )
}

/// symm (and hemm when `herms` holds `true`) at every order of A, both sides and triangles:
/// C is the reference from A's `uplo` triangle alone, A and B unchanged.
fn symm_hemm<T: El>(dev: &Device, herms: &[bool], call: MmCall<T>) {
    let mut h = Handle::new(dev).unwrap();
    let mut r = Gen::new(602);
    let mut case = 0;
    for &herm in herms {
        for (si, &na) in SIZES.iter().enumerate() {
            for (ui, uplo) in UPLOS.into_iter().enumerate() {
                for side in pick(na, si + ui, [Side::Left, Side::Right]) {
                    case += 1;
                    let form = form_for(case);
                    let other = if na > 8 { 4 } else { 3 };
                    let (m, n) = if side == Side::Left {
                        (na, other)
                    } else {
                        (other, na)
                    };
                    let (lda, ldb, ldc) = (na + 1, m + 2, m + 3);
                    let cnt = form.count();
                    let (la, lb, lc) = (
                        Lay::new(form, na, na, lda),
                        Lay::new(form, m, n, ldb),
                        Lay::new(form, m, n, ldc),
                    );
                    let mut am = Mats::<T>::random(&mut r, cnt, na, na);
                    if herm {
                        garble_diag(&mut r, &mut am);
                    }
                    let bm = Mats::<T>::random(&mut r, cnt, m, n);
                    let cm = Mats::<T>::random(&mut r, cnt, m, n);
                    let ad = store_tri(&mut r, la, &am, uplo, false);
                    let bd = store_all(&mut r, lb, &bm);
                    let cd = store_all(&mut r, lc, &cm);
                    let (a, b) = (la.place(dev, form, &ad), lb.place(dev, form, &bd));
                    let mut c = lc.place(dev, form, &cd);
                    let (alpha, beta) = (scalar::<T>(&mut r), scalar::<T>(&mut r));
                    let p = MmArgs {
                        herm,
                        form,
                        side,
                        uplo,
                        m,
                        n,
                        lda,
                        ldb,
                        ldc,
                        alpha,
                        beta,
                    };
                    let what = format!("{} {p:?}", T::NAME);
                    ok(&what, call(&mut h, &p, &a, &b, &mut c));
                    unchanged(&format!("{what} A"), &ad, &a.read());
                    unchanged(&format!("{what} B"), &bd, &b.read());
                    check(&what, lc, &cd, &c.read(), |e, i, j| {
                        let s_a = |x: usize, y: usize| sym(&am, e, uplo, herm, x, y);
                        let (mut v, mut s) = (ZERO, 0.0);
                        for l in 0..na {
                            let t = if side == Side::Left {
                                cmul(s_a(i, l), bm.get(e, l, j))
                            } else {
                                cmul(bm.get(e, i, l), s_a(l, j))
                            };
                            let t = cmul(alpha, t);
                            v = cadd(v, t);
                            s += mag(t);
                        }
                        let bc = cmul(beta, cm.get(e, i, j));
                        Some(Want {
                            v: cadd(v, bc),
                            tol: sum_tol::<T>(na, s + mag(bc)),
                            real: false,
                        })
                    });
                }
            }
        }
    }
}

fn f3_symm_hemm_read_only_their_triangle(dev: &Device) {
    symm_hemm::<f32>(dev, &[false], mm_sym::<f32>);
    symm_hemm::<f64>(dev, &[false], mm_sym::<f64>);
    symm_hemm::<Complex32>(dev, &[false, true], mm_herm::<Complex32>);
    symm_hemm::<Complex64>(dev, &[false, true], mm_herm::<Complex64>);
}

// ---- trmm / trsm / trtri: A's other triangle ------------------------------------------------

const TRI_VARIANTS: [(Op, Diag); 6] = [
    (Op::N, Diag::NonUnit),
    (Op::T, Diag::NonUnit),
    (Op::C, Diag::NonUnit),
    (Op::N, Diag::Unit),
    (Op::T, Diag::Unit),
    (Op::C, Diag::Unit),
];

/// trmm and trsm at every order of A, both sides and triangles, each op and diagonal: B is the
/// reference product (trmm) or solves `op(A) X = alpha B` / `X op(A) = alpha B` to a small
/// residual (trsm), reading only A's `uplo` triangle (not its diagonal when unit); A unchanged.
fn trmm_trsm<T: El>(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let mut r = Gen::new(603);
    let mut case = 0;
    for solve in [false, true] {
        for (si, &na) in SIZES.iter().enumerate() {
            for (ui, uplo) in UPLOS.into_iter().enumerate() {
                for side in [Side::Left, Side::Right] {
                    for (op, diag) in pick(na, si + ui + case, TRI_VARIANTS) {
                        case += 1;
                        let form = form_for(case);
                        // One right-hand side takes trsm's vector path; more take the blocks.
                        let other = [1, 3, 5][case % 3];
                        let (m, n) = if side == Side::Left {
                            (na, other)
                        } else {
                            (other, na)
                        };
                        let (lda, ldb) = (na + 2, m + 1);
                        let cnt = form.count();
                        let (la, lb) = (Lay::new(form, na, na, lda), Lay::new(form, m, n, ldb));
                        let unit = diag == Diag::Unit;
                        let am = Mats::<T>::triangular(&mut r, cnt, na);
                        let bm = Mats::<T>::random(&mut r, cnt, m, n);
                        let ad = store_tri(&mut r, la, &am, uplo, unit);
                        let bd = store_all(&mut r, lb, &bm);
                        let a = la.place(dev, form, &ad);
                        let mut b = lb.place(dev, form, &bd);
                        let alpha = scalar::<T>(&mut r);
                        let al = Coef::Host(T::make(alpha.0, alpha.1));
                        let (sa, sb) = (a.stride, b.stride);
                        let res = if solve {
                            by_form!(form,
                                single => blas3::trsm(&mut h, side, uplo, op, diag, m, n, al, a.one(), lda, b.one_mut(), ldb),
                                list => blas3::trsm_batched(&mut h, side, uplo, op, diag, m, n, al, &a.list(), lda, &mut b.list_mut(), ldb),
                                strided => blas3::trsm_strided_batched(&mut h, side, uplo, op, diag, m, n, al, a.one(), lda, sa, b.one_mut(), ldb, sb, BATCH),
                            )
                        } else {
                            by_form!(form,
                                single => blas3::trmm(&mut h, side, uplo, op, diag, m, n, al, a.one(), lda, b.one_mut(), ldb),
                                list => blas3::trmm_batched(&mut h, side, uplo, op, diag, m, n, al, &a.list(), lda, &mut b.list_mut(), ldb),
                                strided => blas3::trmm_strided_batched(&mut h, side, uplo, op, diag, m, n, al, a.one(), lda, sa, b.one_mut(), ldb, sb, BATCH),
                            )
                        };
                        let what = format!(
                            "{} {} {form:?} {side:?} {uplo:?} {op:?} {diag:?} m={m} n={n}",
                            T::NAME,
                            if solve { "trsm" } else { "trmm" }
                        );
                        ok(&what, res);
                        unchanged(&format!("{what} A"), &ad, &a.read());
                        let got_all = b.read();
                        let got = |e: usize, i: usize, j: usize| got_all[lb.at(e, i, j)].get();
                        // op(A)(x, y) of entry e as the call must see it.
                        let opa = |e: usize, x: usize, y: usize| {
                            opm(op, |p, q| tri(&am, e, uplo, unit, p, q), x, y)
                        };
                        check(&what, lb, &bd, &got_all, |e, i, j| {
                            // trmm: op(A) B or B op(A) of the original B; trsm: the same of
                            // the result X, which must give alpha B.
                            let x = |p: usize, q: usize| {
                                if solve {
                                    got(e, p, q)
                                } else {
                                    bm.get(e, p, q)
                                }
                            };
                            let (mut v, mut s) = (ZERO, 0.0);
                            for l in 0..na {
                                let t = if side == Side::Left {
                                    cmul(opa(e, i, l), x(l, j))
                                } else {
                                    cmul(x(i, l), opa(e, l, j))
                                };
                                v = cadd(v, t);
                                s += mag(t);
                            }
                            if solve {
                                // The residual, against alpha B; the element itself is free.
                                let ab = cmul(alpha, bm.get(e, i, j));
                                let res = mag(csub(v, ab));
                                let tol = res_tol::<T>(na, s + mag(ab));
                                assert!(
                                    res <= tol,
                                    "{what}: entry {e} ({i}, {j}): residual {res:e} > {tol:e}"
                                );
                                Some(Want {
                                    v: got(e, i, j),
                                    tol: 0.0,
                                    real: false,
                                })
                            } else {
                                let v = cmul(alpha, v);
                                Some(Want {
                                    v,
                                    tol: sum_tol::<T>(na, s * mag(alpha)),
                                    real: false,
                                })
                            }
                        });
                    }
                }
            }
        }
    }
}

fn f3_trmm_trsm_read_only_their_triangle(dev: &Device) {
    trmm_trsm::<f32>(dev);
    trmm_trsm::<f64>(dev);
    trmm_trsm::<Complex32>(dev);
    trmm_trsm::<Complex64>(dev);
}

/// trtri at every order, both triangles and diagonals: reads only A's `uplo` triangle (not its
/// diagonal when unit), writes the whole inverse (its other strict triangle zeros, ones on a
/// unit diagonal) and nothing past it; `A X = I` to a small residual; A unchanged.
fn trtri_case<T: El>(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let mut r = Gen::new(604);
    let mut case = 0;
    for &n in &SIZES {
        for uplo in UPLOS {
            for diag in [Diag::NonUnit, Diag::Unit] {
                case += 1;
                let form = form_for(case);
                let (lda, ldi) = (n + 1, n + 2);
                let cnt = form.count();
                let (la, li) = (Lay::new(form, n, n, lda), Lay::new(form, n, n, ldi));
                let unit = diag == Diag::Unit;
                let am = Mats::<T>::triangular(&mut r, cnt, n);
                let ad = store_tri(&mut r, la, &am, uplo, unit);
                let id = li.build(&mut r, |_, _, _| None);
                let a = la.place(dev, form, &ad);
                let mut inv = li.place(dev, form, &id);
                let (sa, si) = (a.stride, inv.stride);
                let res = by_form!(form,
                    single => blas3::trtri(&mut h, uplo, diag, n, a.one(), lda, inv.one_mut(), ldi),
                    list => blas3::trtri_batched(&mut h, uplo, diag, n, &a.list(), lda, &mut inv.list_mut(), ldi),
                    strided => blas3::trtri_strided_batched(&mut h, uplo, diag, n, a.one(), lda, sa, inv.one_mut(), ldi, si, BATCH),
                );
                let what = format!("{} trtri {form:?} {uplo:?} {diag:?} n={n}", T::NAME);
                ok(&what, res);
                unchanged(&format!("{what} A"), &ad, &a.read());
                let got_all = inv.read();
                let x = |e: usize, i: usize, j: usize| got_all[li.at(e, i, j)].get();
                check(&what, li, &id, &got_all, |e, i, j| {
                    if !stored(uplo, i, j) {
                        return Some(Want {
                            v: ZERO,
                            tol: 0.0,
                            real: false,
                        });
                    }
                    if unit && i == j {
                        return Some(Want {
                            v: ONE,
                            tol: 0.0,
                            real: true,
                        });
                    }
                    if !sampled(n, j) {
                        return Some(Want {
                            v: x(e, i, j),
                            tol: 0.0,
                            real: false,
                        });
                    }
                    // (A X)(i, j) = δ(i, j), A and X triangular on the same side: only l
                    // between i and j contributes.
                    let (mut v, mut s) = (ZERO, 0.0);
                    for l in i.min(j)..=i.max(j) {
                        let t = cmul(tri(&am, e, uplo, unit, i, l), x(e, l, j));
                        v = cadd(v, t);
                        s += mag(t);
                    }
                    let want = if i == j { ONE } else { ZERO };
                    let res = mag(csub(v, want));
                    let tol = res_tol::<T>(n, s);
                    assert!(
                        res <= tol,
                        "{what}: entry {e} ({i}, {j}): residual {res:e} > {tol:e}"
                    );
                    Some(Want {
                        v: x(e, i, j),
                        tol: 0.0,
                        real: false,
                    })
                });
            }
        }
    }
}

fn f3_trtri_reads_only_its_triangle(dev: &Device) {
    trtri_case::<f32>(dev);
    trtri_case::<f64>(dev);
    trtri_case::<Complex32>(dev);
    trtri_case::<Complex64>(dev);
}

// ---- potrf / potrs: the other triangle ------------------------------------------------------

/// potrf at every order and triangle, `info` to host or device memory: the stored triangle is
/// a factor with `L Lᴴ = A` (or `Uᴴ U`) to a small residual and a real positive diagonal; the
/// other triangle, padding and gaps bit-identical.
fn potrf_case<T: El>(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let mut r = Gen::new(605);
    let mut case = 0;
    for &n in &SIZES {
        for uplo in UPLOS {
            case += 1;
            let form = form_for(case);
            let lda = n + 2;
            let cnt = form.count();
            let la = Lay::new(form, n, n, lda);
            let am = Mats::<T>::hpd(&mut r, cnt, n);
            let ad = store_tri(&mut r, la, &am, uplo, false);
            let mut a = la.place(dev, form, &ad);
            let sa = a.stride;
            let device_info = case % 2 == 0;
            let mut info_h = vec![-1i32; cnt];
            let mut info_d = dev.upload(&info_h).unwrap();
            let info = if device_info {
                Results::Device(&mut info_d)
            } else {
                Results::Host(&mut info_h[..])
            };
            let res = by_form!(form,
                single => solver::potrf(&mut h, uplo, n, a.one_mut(), lda, info),
                list => solver::potrf_batched(&mut h, uplo, n, &mut a.list_mut(), lda, info),
                strided => solver::potrf_strided_batched(&mut h, uplo, n, a.one_mut(), lda, sa, info, BATCH),
            );
            let what = format!("{} potrf {form:?} {uplo:?} n={n} lda={lda}", T::NAME);
            ok(&what, res);
            let info = if device_info {
                info_d.to_vec().unwrap()
            } else {
                info_h
            };
            assert_eq!(info, vec![0; cnt], "{what}: info");
            let got_all = a.read();
            let f = |e: usize, p: usize, q: usize| got_all[la.at(e, p, q)].get();
            // The lower factor L (Uᴴ for an upper call).
            let l = |e: usize, p: usize, q: usize| {
                if p < q {
                    ZERO
                } else if uplo == Uplo::Lower {
                    f(e, p, q)
                } else {
                    conj(f(e, q, p))
                }
            };
            check(&what, la, &ad, &got_all, |e, i, j| {
                if !stored(uplo, i, j) {
                    return None;
                }
                let x = f(e, i, j);
                if !sampled(n, j) {
                    return Some(Want {
                        v: x,
                        tol: 0.0,
                        real: i == j,
                    });
                }
                let (mut v, mut s) = (ZERO, 0.0);
                for k in 0..=i.min(j) {
                    let t = cmul(l(e, i, k), conj(l(e, j, k)));
                    v = cadd(v, t);
                    s += mag(t);
                }
                let res = mag(csub(v, am.get(e, i, j)));
                let tol = res_tol::<T>(n, s);
                assert!(
                    res <= tol,
                    "{what}: entry {e} ({i}, {j}): residual {res:e} > {tol:e}"
                );
                assert!(
                    i != j || x.0 > 0.0,
                    "{what}: entry {e}: diagonal {i} = {x:?}"
                );
                Some(Want {
                    v: x,
                    tol: 0.0,
                    real: i == j,
                })
            });
        }
    }
}

fn f3_potrf_leaves_other_triangle_untouched(dev: &Device) {
    potrf_case::<f32>(dev);
    potrf_case::<f64>(dev);
    potrf_case::<Complex32>(dev);
    potrf_case::<Complex64>(dev);
}

/// potrs at every order and triangle with a factor whose other triangle is poisoned: `L Lᴴ X =
/// B` to a small residual, the factor unchanged.
fn potrs_case<T: El>(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let mut r = Gen::new(606);
    let mut case = 0;
    for &n in &SIZES {
        for uplo in UPLOS {
            case += 1;
            let form = form_for(case);
            let nrhs = [1, 3, 4][case % 3];
            let (lda, ldb) = (n + 1, n + 3);
            let cnt = form.count();
            let (la, lb) = (Lay::new(form, n, n, lda), Lay::new(form, n, nrhs, ldb));
            let mut am = Mats::<T>::triangular(&mut r, cnt, n);
            for v in &mut am.v {
                for j in 0..n {
                    let x = v[j + j * n].get().0.abs();
                    v[j + j * n] = T::make(x, 0.0);
                }
            }
            let bm = Mats::<T>::random(&mut r, cnt, n, nrhs);
            let ad = store_tri(&mut r, la, &am, uplo, false);
            let bd = store_all(&mut r, lb, &bm);
            let a = la.place(dev, form, &ad);
            let mut b = lb.place(dev, form, &bd);
            let (sa, sb) = (a.stride, b.stride);
            let res = by_form!(form,
                single => solver::potrs(&mut h, uplo, n, nrhs, a.one(), lda, b.one_mut(), ldb),
                list => solver::potrs_batched(&mut h, uplo, n, nrhs, &a.list(), lda, &mut b.list_mut(), ldb),
                strided => solver::potrs_strided_batched(&mut h, uplo, n, nrhs, a.one(), lda, sa, b.one_mut(), ldb, sb, BATCH),
            );
            let what = format!("{} potrs {form:?} {uplo:?} n={n} nrhs={nrhs}", T::NAME);
            ok(&what, res);
            unchanged(&format!("{what} A"), &ad, &a.read());
            let got_all = b.read();
            let x = |e: usize, p: usize, q: usize| got_all[lb.at(e, p, q)].get();
            let l = |e: usize, p: usize, q: usize| {
                if p < q {
                    ZERO
                } else if uplo == Uplo::Lower {
                    am.get(e, p, q)
                } else {
                    conj(am.get(e, q, p))
                }
            };
            // Y = Lᴴ X and |Lᴴ| |X| per entry, then L Y against B.
            let ys: Vec<Vec<(C, f64)>> = (0..cnt)
                .map(|e| {
                    let mut y = vec![(ZERO, 0.0); n * nrhs];
                    for j in 0..nrhs {
                        for p in 0..n {
                            for q in p..n {
                                let t = cmul(conj(l(e, q, p)), x(e, q, j));
                                let c = &mut y[p + j * n];
                                c.0 = cadd(c.0, t);
                                c.1 += mag(l(e, q, p)) * mag(x(e, q, j));
                            }
                        }
                    }
                    y
                })
                .collect();
            check(&what, lb, &bd, &got_all, |e, i, j| {
                let (mut v, mut s) = (ZERO, 0.0);
                for p in 0..=i {
                    let (y, ya) = ys[e][p + j * n];
                    v = cadd(v, cmul(l(e, i, p), y));
                    s += mag(l(e, i, p)) * ya;
                }
                let res = mag(csub(v, bm.get(e, i, j)));
                let tol = res_tol::<T>(n, s);
                assert!(
                    res <= tol,
                    "{what}: entry {e} ({i}, {j}): residual {res:e} > {tol:e}"
                );
                Some(Want {
                    v: x(e, i, j),
                    tol: 0.0,
                    real: false,
                })
            });
        }
    }
}

fn f3_potrs_reads_only_its_triangle(dev: &Device) {
    potrs_case::<f32>(dev);
    potrs_case::<f64>(dev);
    potrs_case::<Complex32>(dev);
    potrs_case::<Complex64>(dev);
}

// ---- Level 2: symv / hemv / trmv / trsv / tbmv ---------------------------------------------

type SvCall<T> = fn(&mut Handle, &SvArgs, &Placed<T>, &Placed<T>, &mut Placed<T>) -> R;

/// One symv/hemv call's arguments (unit increments).
#[derive(Debug)]
struct SvArgs {
    herm: bool,
    form: Form,
    uplo: Uplo,
    n: usize,
    lda: usize,
    alpha: C,
    beta: C,
}

fn sv_sym<T: El>(h: &mut Handle, p: &SvArgs, a: &Placed<T>, x: &Placed<T>, y: &mut Placed<T>) -> R {
    assert!(!p.herm, "hemv takes complex elements");
    let (sa, sx, sy) = (a.stride, x.stride, y.stride);
    let (uplo, n, lda) = (p.uplo, p.n, p.lda);
    let al = Coef::Host(T::make(p.alpha.0, p.alpha.1));
    let be = Coef::Host(T::make(p.beta.0, p.beta.1));
    by_form!(p.form,
        single => blas2::symv(h, uplo, n, al, a.one(), lda, x.one(), 1, be, y.one_mut(), 1),
        list => blas2::symv_batched(h, uplo, n, al, &a.list(), lda, &x.list(), 1, be, &mut y.list_mut(), 1),
        strided => blas2::symv_strided_batched(h, uplo, n, al, a.one(), lda, sa, x.one(), 1, sx, be, y.one_mut(), 1, sy, BATCH),
    )
}

fn sv_herm<T: El + ComplexScalar>(
    h: &mut Handle,
    p: &SvArgs,
    a: &Placed<T>,
    x: &Placed<T>,
    y: &mut Placed<T>,
) -> R {
    if !p.herm {
        return sv_sym(h, p, a, x, y);
    }
    let (sa, sx, sy) = (a.stride, x.stride, y.stride);
    let (uplo, n, lda) = (p.uplo, p.n, p.lda);
    let al = Coef::Host(T::make(p.alpha.0, p.alpha.1));
    let be = Coef::Host(T::make(p.beta.0, p.beta.1));
    by_form!(p.form,
        single => blas2::hemv(h, uplo, n, al, a.one(), lda, x.one(), 1, be, y.one_mut(), 1),
        list => blas2::hemv_batched(h, uplo, n, al, &a.list(), lda, &x.list(), 1, be, &mut y.list_mut(), 1),
        strided => blas2::hemv_strided_batched(h, uplo, n, al, a.one(), lda, sa, x.one(), 1, sx, be, y.one_mut(), 1, sy, BATCH),
    )
}

/// symv (and hemv when `herms` holds `true`) at every order and triangle.
fn symv_hemv<T: El>(dev: &Device, herms: &[bool], call: SvCall<T>) {
    let mut h = Handle::new(dev).unwrap();
    let mut r = Gen::new(607);
    let mut case = 0;
    for &herm in herms {
        for &n in &SIZES {
            for uplo in UPLOS {
                case += 1;
                let form = form_for(case);
                let lda = n + 2;
                let cnt = form.count();
                let (la, lv) = (Lay::new(form, n, n, lda), Lay::new(form, n, 1, n));
                let mut am = Mats::<T>::random(&mut r, cnt, n, n);
                if herm {
                    garble_diag(&mut r, &mut am);
                }
                let (xm, ym) = (
                    Mats::<T>::random(&mut r, cnt, n, 1),
                    Mats::<T>::random(&mut r, cnt, n, 1),
                );
                let ad = store_tri(&mut r, la, &am, uplo, false);
                let (xd, yd) = (store_all(&mut r, lv, &xm), store_all(&mut r, lv, &ym));
                let (a, x) = (la.place(dev, form, &ad), lv.place(dev, form, &xd));
                let mut y = lv.place(dev, form, &yd);
                let (alpha, beta) = (scalar::<T>(&mut r), scalar::<T>(&mut r));
                let p = SvArgs {
                    herm,
                    form,
                    uplo,
                    n,
                    lda,
                    alpha,
                    beta,
                };
                let what = format!("{} {p:?}", T::NAME);
                ok(&what, call(&mut h, &p, &a, &x, &mut y));
                unchanged(&format!("{what} A"), &ad, &a.read());
                unchanged(&format!("{what} x"), &xd, &x.read());
                check(&what, lv, &yd, &y.read(), |e, i, _| {
                    let (mut v, mut s) = (ZERO, 0.0);
                    for l in 0..n {
                        let t = cmul(alpha, cmul(sym(&am, e, uplo, herm, i, l), xm.get(e, l, 0)));
                        v = cadd(v, t);
                        s += mag(t);
                    }
                    let by = cmul(beta, ym.get(e, i, 0));
                    Some(Want {
                        v: cadd(v, by),
                        tol: sum_tol::<T>(n, s + mag(by)),
                        real: false,
                    })
                });
            }
        }
    }
}

fn f3_symv_hemv_read_only_their_triangle(dev: &Device) {
    symv_hemv::<f32>(dev, &[false], sv_sym::<f32>);
    symv_hemv::<f64>(dev, &[false], sv_sym::<f64>);
    symv_hemv::<Complex32>(dev, &[false, true], sv_herm::<Complex32>);
    symv_hemv::<Complex64>(dev, &[false, true], sv_herm::<Complex64>);
}

/// The triangular Level-2 routine a case runs.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Tv {
    Trmv,
    Trsv,
    /// Band storage with this many off-diagonals.
    Tbmv(usize),
}

/// trmv, trsv and tbmv at every order, triangle, op and diagonal: `x = op(A) x` is the
/// reference product, trsv's `op(A) x = b` holds to a small residual; only A's `uplo` triangle
/// (band) is read, not its diagonal when unit; A unchanged.
fn tri_mv<T: El>(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let mut r = Gen::new(608);
    let mut case = 0;
    for (si, &n) in SIZES.iter().enumerate() {
        // Band widths below the order (widths past it are another rule's, F9).
        let kinds = [
            Tv::Trmv,
            Tv::Trsv,
            Tv::Tbmv(1.min(n - 1)),
            Tv::Tbmv(4.min(n - 1)),
        ];
        for kind in kinds {
            for (ui, uplo) in UPLOS.into_iter().enumerate() {
                for (op, diag) in pick(n, si + ui + case, TRI_VARIANTS) {
                    case += 1;
                    let form = form_for(case);
                    let cnt = form.count();
                    let unit = diag == Diag::Unit;
                    let am = Mats::<T>::triangular(&mut r, cnt, n);
                    // Full storage, or band storage: column j's stored entries at rows
                    // k + i - j (upper) or i - j (lower), everything else in the band poison.
                    let (la, ad, lda) = match kind {
                        Tv::Tbmv(k) => {
                            let lda = k + 3;
                            let la = Lay::new(form, k + 1, n, lda);
                            let ad = la.build(&mut r, |e, br, j| {
                                let i = if uplo == Uplo::Upper {
                                    (br + j).checked_sub(k)?
                                } else {
                                    br + j
                                };
                                let inside = i < n && i.abs_diff(j) <= k && stored(uplo, i, j);
                                (inside && !(unit && i == j)).then(|| am.v[e][i + j * n])
                            });
                            (la, ad, lda)
                        }
                        _ => {
                            let la = Lay::new(form, n, n, n + 2);
                            (la, store_tri(&mut r, la, &am, uplo, unit), n + 2)
                        }
                    };
                    let band = match kind {
                        Tv::Tbmv(k) => k,
                        _ => n,
                    };
                    let lv = Lay::new(form, n, 1, n);
                    let xm = Mats::<T>::random(&mut r, cnt, n, 1);
                    let xd = store_all(&mut r, lv, &xm);
                    let a = la.place(dev, form, &ad);
                    let mut x = lv.place(dev, form, &xd);
                    let (sa, sx) = (a.stride, x.stride);
                    let res = match kind {
                        Tv::Trmv => by_form!(form,
                            single => blas2::trmv(&mut h, uplo, op, diag, n, a.one(), lda, x.one_mut(), 1),
                            list => blas2::trmv_batched(&mut h, uplo, op, diag, n, &a.list(), lda, &mut x.list_mut(), 1),
                            strided => blas2::trmv_strided_batched(&mut h, uplo, op, diag, n, a.one(), lda, sa, x.one_mut(), 1, sx, BATCH),
                        ),
                        Tv::Trsv => by_form!(form,
                            single => blas2::trsv(&mut h, uplo, op, diag, n, a.one(), lda, x.one_mut(), 1),
                            list => blas2::trsv_batched(&mut h, uplo, op, diag, n, &a.list(), lda, &mut x.list_mut(), 1),
                            strided => blas2::trsv_strided_batched(&mut h, uplo, op, diag, n, a.one(), lda, sa, x.one_mut(), 1, sx, BATCH),
                        ),
                        Tv::Tbmv(k) => by_form!(form,
                            single => blas2::tbmv(&mut h, uplo, op, diag, n, k, a.one(), lda, x.one_mut(), 1),
                            list => blas2::tbmv_batched(&mut h, uplo, op, diag, n, k, &a.list(), lda, &mut x.list_mut(), 1),
                            strided => blas2::tbmv_strided_batched(&mut h, uplo, op, diag, n, k, a.one(), lda, sa, x.one_mut(), 1, sx, BATCH),
                        ),
                    };
                    let what = format!(
                        "{} {kind:?} {form:?} {uplo:?} {op:?} {diag:?} n={n}",
                        T::NAME
                    );
                    ok(&what, res);
                    unchanged(&format!("{what} A"), &ad, &a.read());
                    let got_all = x.read();
                    let got = |e: usize, i: usize| got_all[lv.at(e, i, 0)].get();
                    let at = |e: usize, p: usize, q: usize| {
                        if p.abs_diff(q) > band {
                            ZERO
                        } else {
                            tri(&am, e, uplo, unit, p, q)
                        }
                    };
                    check(&what, lv, &xd, &got_all, |e, i, _| {
                        let solve = kind == Tv::Trsv;
                        let (mut v, mut s) = (ZERO, 0.0);
                        for l in 0..n {
                            let xl = if solve { got(e, l) } else { xm.get(e, l, 0) };
                            let t = cmul(opm(op, |p, q| at(e, p, q), i, l), xl);
                            v = cadd(v, t);
                            s += mag(t);
                        }
                        if solve {
                            let b = xm.get(e, i, 0);
                            let res = mag(csub(v, b));
                            let tol = res_tol::<T>(n, s + mag(b));
                            assert!(
                                res <= tol,
                                "{what}: entry {e} ({i}): residual {res:e} > {tol:e}"
                            );
                            Some(Want {
                                v: got(e, i),
                                tol: 0.0,
                                real: false,
                            })
                        } else {
                            Some(Want {
                                v,
                                tol: sum_tol::<T>(n, s),
                                real: false,
                            })
                        }
                    });
                }
            }
        }
    }
}

fn f3_trmv_trsv_tbmv_read_only_their_triangle(dev: &Device) {
    tri_mv::<f32>(dev);
    tri_mv::<f64>(dev);
    tri_mv::<Complex32>(dev);
    tri_mv::<Complex64>(dev);
}

crate::on_both_backends!(
    f3_rank_k_updates_leave_other_triangle_untouched,
    f3_symm_hemm_read_only_their_triangle,
    f3_trmm_trsm_read_only_their_triangle,
    f3_trtri_reads_only_its_triangle,
    f3_potrf_leaves_other_triangle_untouched,
    f3_potrs_reads_only_its_triangle,
    f3_symv_hemv_read_only_their_triangle,
    f3_trmv_trsv_tbmv_read_only_their_triangle,
);
