//! Zero dimensions (issue 27 item 3; SPEC M16, F3, F9, F10): every Level-3 routine and every
//! solver routine with each dimension 0 in turn, and batch counts of 0, in the three forms
//! (single, `_batched`, `_strided_batched`). Nothing panics; results are reference BLAS/LAPACK:
//! `m == 0 || n == 0` touches nothing, `k == 0` makes `C = beta C` (quick return when
//! `beta == 1`; `beta == 0` writes zeros without reading `C`; the Hermitian updates make the
//! diagonal real when they scale), factorizations of nothing set `info` to 0. Operands of no
//! elements come both as empty allocations and as null pointers of length 0 (what the C
//! interface makes of them), and zero-length pinned buffers give empty slices.
//!
//! Outputs are poisoned outside what may be written (finite values, so a write shows) and
//! compared bit for bit there; where `C = beta C` is written the reference is an f64 product.

use crate::common::complex::cmul;
use crate::common::elem;
use crate::common::{randn, rng};
use gpublas::blas3::{self, ComputeType};
use gpublas::{
    blas1, blas2, solver, transfer, Coef, Complex32, Complex64, Device, DeviceBuffer, Diag,
    Element, Handle, Op, PinnedBuffer, Results, Scalar, Side, Status, Uplo,
};
use rand::Rng;

// ---- test-side element types (shared with `uplo.rs`) ----------------------------------------

/// An element seen from the test side (`common::elem::El`: built from and read as (re, im) in
/// f64), with its real type built from f64.
pub(crate) trait El: elem::El + Scalar {
    fn real(x: f64) -> Self::Real;
}

impl El for f32 {
    fn real(x: f64) -> f32 {
        x as f32
    }
}
impl El for f64 {
    fn real(x: f64) -> f64 {
        x
    }
}
impl El for Complex32 {
    fn real(x: f64) -> f32 {
        x as f32
    }
}
impl El for Complex64 {
    fn real(x: f64) -> f64 {
        x
    }
}

/// Random values in [-1, 1) (complex: both parts).
pub(crate) fn rand_els<T: El>(r: &mut impl Rng, n: usize) -> Vec<T> {
    let re = randn(r, n);
    let im = randn(r, n);
    (0..n).map(|i| T::make(re[i], im[i])).collect()
}

/// Finite poison around 9: a write over it shows bit for bit, a read of it spoils a result.
pub(crate) fn poison<T: El>(r: &mut impl Rng, n: usize) -> Vec<T> {
    (0..n)
        .map(|_| T::make(9.0 + r.gen_range(0.0..1.0), -9.0 - r.gen_range(0.0..1.0)))
        .collect()
}

/// Bit-identical.
pub(crate) fn same_bits<T: Element>(a: T, b: T) -> bool {
    bytemuck::bytes_of(&a) == bytemuck::bytes_of(&b)
}

// ---- batch forms --------------------------------------------------------------------------

/// The three forms of every routine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Form {
    Single,
    List,
    Strided,
}

pub(crate) const FORMS: [Form; 3] = [Form::Single, Form::List, Form::Strided];

/// Entries of a batched form in these tests (a single call has one).
pub(crate) const BATCH: usize = 3;

impl Form {
    pub(crate) fn count(self) -> usize {
        if self == Form::Single {
            1
        } else {
            BATCH
        }
    }
}

/// An operand in one form: `count` entries of `stride` elements each (one buffer per entry for
/// lists, one buffer for the others). An operand of no elements is a null pointer of length 0
/// when `null` (the C interface's form of it), else an empty allocation.
pub(crate) struct Placed<T> {
    pub(crate) stride: usize,
    bufs: Vec<DeviceBuffer<T>>,
}

impl<T: El> Placed<T> {
    pub(crate) fn new(dev: &Device, form: Form, stride: usize, data: &[T], null: bool) -> Self {
        let count = form.count();
        assert_eq!(data.len(), count * stride, "test layout");
        let up = |d: &[T]| {
            if d.is_empty() && null {
                // SAFETY: a null pointer of no elements addresses no memory.
                unsafe { DeviceBuffer::from_raw(dev, 0, 0) }.unwrap()
            } else {
                dev.upload(d).unwrap()
            }
        };
        let bufs = if form == Form::List {
            (0..count)
                .map(|e| up(&data[e * stride..(e + 1) * stride]))
                .collect()
        } else {
            vec![up(data)]
        };
        Placed { stride, bufs }
    }

    pub(crate) fn one(&self) -> &DeviceBuffer<T> {
        &self.bufs[0]
    }
    pub(crate) fn one_mut(&mut self) -> &mut DeviceBuffer<T> {
        &mut self.bufs[0]
    }
    pub(crate) fn list(&self) -> Vec<&DeviceBuffer<T>> {
        self.bufs.iter().collect()
    }
    pub(crate) fn list_mut(&mut self) -> Vec<&mut DeviceBuffer<T>> {
        self.bufs.iter_mut().collect()
    }
    /// The contents of every entry, in order.
    pub(crate) fn read(&self) -> Vec<T> {
        self.bufs.iter().flat_map(|b| b.to_vec().unwrap()).collect()
    }
}

/// Calls the form's routine: `$single`, `$list` or `$strided` with the operands bound as the
/// form needs (`one`/`one_mut`, `list`/`list_mut`, `one`/`one_mut` plus strides and count).
macro_rules! by_form {
    ($form:expr, single => $s:expr, list => $l:expr, strided => $t:expr $(,)?) => {
        match $form {
            Form::Single => $s,
            Form::List => $l,
            Form::Strided => $t,
        }
    };
}
pub(crate) use by_form;

// ---- expected outputs ---------------------------------------------------------------------

/// The part of `C` a call writes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Region {
    Full,
    Lower,
    Upper,
}

impl Region {
    pub(crate) fn of(uplo: Uplo) -> Self {
        if uplo == Uplo::Lower {
            Region::Lower
        } else {
            Region::Upper
        }
    }
    pub(crate) fn holds(self, i: usize, j: usize) -> bool {
        match self {
            Region::Full => true,
            Region::Lower => i >= j,
            Region::Upper => i <= j,
        }
    }
}

/// Checks `after` against `before`: inside each entry's `m × n` region at `ld` the value is
/// `beta · before` (`beta == 0`: exactly zero; `herm`: diagonal imaginary parts exactly zero)
/// when `scaled`, bit-identical otherwise; everywhere else bit-identical.
#[allow(clippy::too_many_arguments)]
fn check_beta_c<T: El>(
    what: &str,
    before: &[T],
    after: &[T],
    stride: usize,
    (m, n, ld): (usize, usize, usize),
    region: Region,
    scaled: Option<((f64, f64), bool)>,
) {
    assert_eq!(before.len(), after.len(), "{what}: length");
    for (idx, (&b, &a)) in before.iter().zip(after).enumerate() {
        let off = if stride == 0 { idx } else { idx % stride };
        let (i, j) = (off % ld, off / ld);
        let inside = i < m && j < n && region.holds(i, j);
        match scaled {
            Some((beta, herm)) if inside => {
                let got = a.get();
                let mut want = if beta == (0.0, 0.0) {
                    (0.0, 0.0)
                } else {
                    cmul(beta, b.get())
                };
                if herm && i == j {
                    want.1 = 0.0;
                }
                let exact = beta == (0.0, 0.0) || (herm && i == j);
                let tol = if beta == (0.0, 0.0) {
                    0.0
                } else {
                    4.0 * T::EPS * (want.0.abs() + want.1.abs() + 1e-30)
                };
                let ok_re = (got.0 - want.0).abs() <= tol;
                let ok_im = if exact && herm && i == j {
                    got.1 == 0.0
                } else {
                    (got.1 - want.1).abs() <= tol
                };
                assert!(
                    ok_re && ok_im,
                    "{what}: C[{idx}] ({i}, {j}) = {got:?}, want beta·C = {want:?}"
                );
            }
            _ => assert!(
                same_bits(a, b),
                "{what}: element {idx} ({i}, {j}) changed: {:?} -> {:?}",
                b.get(),
                a.get()
            ),
        }
    }
}

/// An `m × n` output at `ld` in `form`, entries one column of gap apart: random inside (NaN
/// when `beta == 0`, which must not be read), finite poison in the padding and gaps.
fn output<T: El>(
    r: &mut impl Rng,
    form: Form,
    (m, n, ld): (usize, usize, usize),
    nan_inside: bool,
) -> (Vec<T>, usize) {
    let stride = ld * (n + 1) + 1;
    let count = form.count();
    let mut v: Vec<T> = poison(r, count * stride);
    let vals: Vec<T> = rand_els(r, count * stride);
    for e in 0..count {
        for j in 0..n {
            for i in 0..m {
                let at = e * stride + i + j * ld;
                v[at] = if nan_inside {
                    T::make(f64::NAN, f64::NAN)
                } else {
                    vals[at]
                };
            }
        }
    }
    (v, stride)
}

/// An input operand spanning `rows × cols` at `ld` in `form`: `stride == 0` and no elements
/// when it spans nothing.
fn input<T: El>(
    r: &mut impl Rng,
    form: Form,
    (rows, cols, ld): (usize, usize, usize),
) -> (Vec<T>, usize) {
    let span = if rows == 0 || cols == 0 {
        0
    } else {
        (cols - 1) * ld + rows
    };
    let stride = span + if span > 0 { 2 } else { 0 };
    (rand_els(r, form.count() * stride), stride)
}

/// alpha values to try: random and zero.
fn alphas<T: El>(r: &mut impl Rng) -> [T; 2] {
    [T::make(r.gen_range(0.5..1.5), 0.25), T::zero()]
}

/// beta values to try: 0 (C not read), 1 (quick return when nothing is added), random.
fn betas<T: El>(r: &mut impl Rng) -> [(f64, f64); 3] {
    let im = if T::COMPLEX { -0.375 } else { 0.0 };
    [(0.0, 0.0), (1.0, 0.0), (r.gen_range(-1.5..-0.5), im)]
}

fn ok(what: &str, r: Result<Status, gpublas::Error>) {
    match r {
        Ok(Status::Success) => {}
        other => panic!("{what}: {other:?}"),
    }
}

// ---- gemm ---------------------------------------------------------------------------------

/// gemm with m, n, k = 0 in turn, each op pair, alpha random or 0, beta 0, 1 or random.
fn gemm_zero<T: El>(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let mut r = rng(301);
    let ops = [Op::N, Op::T, Op::C];
    for (m, n, k) in [(0, 4, 3), (5, 0, 3), (5, 4, 0), (1, 1, 0), (0, 0, 0)] {
        for form in FORMS {
            for (oi, &opa) in ops.iter().enumerate() {
                let opb = ops[(oi + 1) % 3];
                for alpha in alphas::<T>(&mut r) {
                    for beta in betas::<T>(&mut r) {
                        let null = r.gen_bool(0.5);
                        let (ar, ac) = if opa == Op::N { (m, k) } else { (k, m) };
                        let (br, bc) = if opb == Op::N { (k, n) } else { (n, k) };
                        let (lda, ldb, ldc) = (ar.max(1) + 1, br.max(1) + 2, m.max(1) + 1);
                        let (ad, sa) = input::<T>(&mut r, form, (ar, ac, lda));
                        let (bd, sb) = input::<T>(&mut r, form, (br, bc, ldb));
                        let (cd, sc) = output::<T>(&mut r, form, (m, n, ldc), beta == (0.0, 0.0));
                        let a = Placed::new(dev, form, sa, &ad, null);
                        let b = Placed::new(dev, form, sb, &bd, null);
                        let mut c = Placed::new(dev, form, sc, &cd, null);
                        let be = T::make(beta.0, beta.1);
                        let (al, be) = (Coef::Host(alpha), Coef::Host(be));
                        let res = by_form!(form,
                            single => blas3::gemm(&mut h, opa, opb, m, n, k, al, a.one(), lda, b.one(), ldb, be, c.one_mut(), ldc),
                            list => blas3::gemm_batched(&mut h, opa, opb, m, n, k, al, &a.list(), lda, &b.list(), ldb, be, &mut c.list_mut(), ldc),
                            strided => blas3::gemm_strided_batched(&mut h, opa, opb, m, n, k, al, a.one(), lda, sa, b.one(), ldb, sb, be, c.one_mut(), ldc, sc, BATCH),
                        );
                        let what = format!(
                            "{} gemm {form:?} {opa:?}{opb:?} m={m} n={n} k={k} alpha={:?} beta={beta:?} null={null}",
                            T::NAME,
                            alpha.get()
                        );
                        ok(&what, res);
                        // m or n 0: nothing; k 0 or alpha 0: C = beta C, quick when beta is 1.
                        let scaled = (m > 0 && n > 0 && (k == 0 || alpha == T::zero()))
                            .then_some((beta, false))
                            .filter(|_| beta != (1.0, 0.0));
                        check_beta_c(&what, &cd, &c.read(), sc, (m, n, ldc), Region::Full, scaled);
                        assert_eq!(a.read().len(), ad.len());
                    }
                }
            }
        }
    }
}

fn m16_gemm_k0_is_beta_c(dev: &Device) {
    gemm_zero::<f32>(dev);
    gemm_zero::<f64>(dev);
    gemm_zero::<Complex32>(dev);
    gemm_zero::<Complex64>(dev);
}

/// gemm_ex (f32, f64, c32, c64 with their compute types) with a zero dimension, and a device
/// `beta` with k = 0.
fn gemm_ex_zero<T: El + blas3::GemmExIn<Scale = T> + blas3::GemmExOut<T>>(
    dev: &Device,
    compute: ComputeType,
) {
    let mut h = Handle::new(dev).unwrap();
    let mut r = rng(302);
    for (m, n, k) in [(0, 3, 2), (4, 0, 2), (4, 3, 0)] {
        for form in FORMS {
            for device_beta in [false, true] {
                let beta = (-0.75, if T::COMPLEX { 0.5 } else { 0.0 });
                let (lda, ldb, ldc) = (m.max(1) + 1, k.max(1), m.max(1) + 2);
                let (ad, sa) = input::<T>(&mut r, form, (m, k, lda));
                let (bd, sb) = input::<T>(&mut r, form, (k, n, ldb));
                let (cd, sc) = output::<T>(&mut r, form, (m, n, ldc), false);
                let a = Placed::new(dev, form, sa, &ad, true);
                let b = Placed::new(dev, form, sb, &bd, true);
                let mut c = Placed::new(dev, form, sc, &cd, true);
                let bv = T::make(beta.0, beta.1);
                let bbuf = dev.upload(&[bv]).unwrap();
                let be = if device_beta {
                    Coef::Device(&bbuf)
                } else {
                    Coef::Host(bv)
                };
                let al = Coef::Host(T::one());
                let res = by_form!(form,
                    single => blas3::gemm_ex::<T, T>(&mut h, Op::N, Op::N, m, n, k, al, a.one(), lda, b.one(), ldb, be, c.one_mut(), ldc, compute),
                    list => blas3::gemm_ex_batched::<T, T>(&mut h, Op::N, Op::N, m, n, k, al, &a.list(), lda, &b.list(), ldb, be, &mut c.list_mut(), ldc, compute),
                    strided => blas3::gemm_ex_strided_batched::<T, T>(&mut h, Op::N, Op::N, m, n, k, al, a.one(), lda, sa, b.one(), ldb, sb, be, c.one_mut(), ldc, sc, BATCH, compute),
                );
                let what = format!(
                    "{} gemm_ex {form:?} m={m} n={n} k={k} device beta {device_beta}",
                    T::NAME
                );
                ok(&what, res);
                let scaled = (m > 0 && n > 0).then_some((beta, false));
                check_beta_c(&what, &cd, &c.read(), sc, (m, n, ldc), Region::Full, scaled);
            }
        }
    }
}

fn m16_gemm_ex_zero_dims(dev: &Device) {
    gemm_ex_zero::<f32>(dev, ComputeType::F32);
    gemm_ex_zero::<f64>(dev, ComputeType::F64);
    gemm_ex_zero::<Complex32>(dev, ComputeType::F32);
    gemm_ex_zero::<Complex64>(dev, ComputeType::F64);
}

// ---- symm / hemm --------------------------------------------------------------------------

/// Generates the `m == 0 || n == 0` test body of a symm-shaped routine: nothing written.
macro_rules! mm_zero {
    ($fname:ident, $bound:path, $single:path, $batched:path, $strided:path, $name:literal) => {
        fn $fname<T: El + $bound>(dev: &Device) {
            let mut h = Handle::new(dev).unwrap();
            let mut r = rng(303);
            for (m, n) in [(0, 4), (5, 0), (0, 0)] {
                for side in [Side::Left, Side::Right] {
                    for uplo in [Uplo::Lower, Uplo::Upper] {
                        for form in FORMS {
                            let na = if side == Side::Left { m } else { n };
                            let (lda, ldb, ldc) = (na.max(1) + 1, m.max(1) + 2, m.max(1) + 1);
                            let (ad, sa) = input::<T>(&mut r, form, (na, na, lda));
                            let (bd, sb) = input::<T>(&mut r, form, (m, n, ldb));
                            let (cd, sc) = output::<T>(&mut r, form, (m, n, ldc), false);
                            let a = Placed::new(dev, form, sa, &ad, true);
                            let b = Placed::new(dev, form, sb, &bd, true);
                            let mut c = Placed::new(dev, form, sc, &cd, true);
                            let al = Coef::Host(T::make(0.5, 1.0));
                            let be = Coef::Host(T::make(2.0, 0.0));
                            let res = by_form!(form,
                                single => $single(&mut h, side, uplo, m, n, al, a.one(), lda, b.one(), ldb, be, c.one_mut(), ldc),
                                list => $batched(&mut h, side, uplo, m, n, al, &a.list(), lda, &b.list(), ldb, be, &mut c.list_mut(), ldc),
                                strided => $strided(&mut h, side, uplo, m, n, al, a.one(), lda, sa, b.one(), ldb, sb, be, c.one_mut(), ldc, sc, BATCH),
                            );
                            let what = format!("{} {} {form:?} {side:?} {uplo:?} m={m} n={n}", T::NAME, $name);
                            ok(&what, res);
                            check_beta_c(&what, &cd, &c.read(), sc, (m, n, ldc), Region::Full, None);
                        }
                    }
                }
            }
        }
    };
}

mm_zero!(
    symm_zero,
    Scalar,
    blas3::symm,
    blas3::symm_batched,
    blas3::symm_strided_batched,
    "symm"
);
mm_zero!(
    hemm_zero,
    gpublas::ComplexScalar,
    blas3::hemm,
    blas3::hemm_batched,
    blas3::hemm_strided_batched,
    "hemm"
);

fn f3_symm_hemm_zero_dims_touch_nothing(dev: &Device) {
    symm_zero::<f32>(dev);
    symm_zero::<f64>(dev);
    symm_zero::<Complex32>(dev);
    symm_zero::<Complex64>(dev);
    hemm_zero::<Complex32>(dev);
    hemm_zero::<Complex64>(dev);
}

// ---- rank-k updates -----------------------------------------------------------------------

/// The value of a full scalar.
fn full<T: El>(x: (f64, f64)) -> T {
    T::make(x.0, x.1)
}
/// The value of a real scalar (herk's alpha, the Hermitian betas).
fn realpart<T: El>(x: (f64, f64)) -> T::Real {
    T::real(x.0)
}

/// Generates the zero-dimension test body of a rank-k update: `n == 0` touches nothing,
/// `k == 0` (and a host `alpha == 0`) makes the `uplo` triangle `beta C` (quick return when
/// `beta == 1`), the other triangle untouched. `$b`: whether it takes a `B`; `$al`/`$be` how
/// its scalars are made; `$herm`: the diagonal is made real when scaled; `$ops` its ops.
macro_rules! rk_zero {
    ($fname:ident, $bound:path, $single:path, $batched:path, $strided:path, $name:literal,
     b: $b:tt, $al:ident, $be:ident, $herm:expr, $ops:expr) => {
        fn $fname<T: El + $bound>(dev: &Device) {
            let mut h = Handle::new(dev).unwrap();
            let mut r = rng(304);
            for (n, k) in [(0, 3), (4, 0), (1, 0), (0, 0)] {
                for uplo in [Uplo::Lower, Uplo::Upper] {
                    for op in $ops {
                        for form in FORMS {
                            for (alpha, beta) in [(0.75, 0.5), (0.0, 0.0)]
                                .into_iter()
                                .flat_map(|a| betas::<T>(&mut rng(308)).map(|b| (a, b)))
                            {
                                // Real-scalar routines take the real part only.
                                let beta = if stringify!($be) == "realpart" { (beta.0, 0.0) } else { beta };
                                let alpha = if stringify!($al) == "realpart" { (alpha.0, 0.0) } else { alpha };
                                let (ar, ac) = if op == Op::N { (n, k) } else { (k, n) };
                                let (lda, ldc) = (ar.max(1) + 1, n.max(1) + 2);
                                let (ad, sa) = input::<T>(&mut r, form, (ar, ac, lda));
                                let (bd, sb) = input::<T>(&mut r, form, (ar, ac, lda));
                                let (cd, sc) = output::<T>(&mut r, form, (n, n, ldc), beta == (0.0, 0.0));
                                let a = Placed::new(dev, form, sa, &ad, true);
                                let b = Placed::new(dev, form, sb, &bd, true);
                                let mut c = Placed::new(dev, form, sc, &cd, true);
                                let al = Coef::Host($al::<T>(alpha));
                                let be = Coef::Host($be::<T>(beta));
                                let res = rk_zero!(@call $b, form, $single, $batched, $strided,
                                    (&mut h, uplo, op, n, k, al, &a, lda, &b, lda, be, &mut c, ldc));
                                let what = format!(
                                    "{} {} {form:?} {uplo:?} {op:?} n={n} k={k} alpha={alpha:?} beta={beta:?}",
                                    T::NAME, $name
                                );
                                ok(&what, res);
                                let scaled = (n > 0 && (k == 0 || alpha == (0.0, 0.0)) && beta != (1.0, 0.0))
                                    .then_some((beta, $herm));
                                check_beta_c(&what, &cd, &c.read(), sc, (n, n, ldc), Region::of(uplo), scaled);
                            }
                        }
                    }
                }
            }
        }
    };
    (@call no_b, $form:expr, $single:path, $batched:path, $strided:path,
     ($h:expr, $uplo:expr, $op:expr, $n:expr, $k:expr, $al:expr, $a:expr, $lda:expr, $b:expr, $ldb:expr, $be:expr, $c:expr, $ldc:expr)) => {{
        let _ = ($b, $ldb);
        let (sa, sc) = ($a.stride, $c.stride);
        by_form!($form,
            single => $single($h, $uplo, $op, $n, $k, $al, $a.one(), $lda, $be, $c.one_mut(), $ldc),
            list => $batched($h, $uplo, $op, $n, $k, $al, &$a.list(), $lda, $be, &mut $c.list_mut(), $ldc),
            strided => $strided($h, $uplo, $op, $n, $k, $al, $a.one(), $lda, sa, $be, $c.one_mut(), $ldc, sc, BATCH),
        )
    }};
    (@call with_b, $form:expr, $single:path, $batched:path, $strided:path,
     ($h:expr, $uplo:expr, $op:expr, $n:expr, $k:expr, $al:expr, $a:expr, $lda:expr, $b:expr, $ldb:expr, $be:expr, $c:expr, $ldc:expr)) => {{
        let (sa, sb, sc) = ($a.stride, $b.stride, $c.stride);
        by_form!($form,
            single => $single($h, $uplo, $op, $n, $k, $al, $a.one(), $lda, $b.one(), $ldb, $be, $c.one_mut(), $ldc),
            list => $batched($h, $uplo, $op, $n, $k, $al, &$a.list(), $lda, &$b.list(), $ldb, $be, &mut $c.list_mut(), $ldc),
            strided => $strided($h, $uplo, $op, $n, $k, $al, $a.one(), $lda, sa, $b.one(), $ldb, sb, $be, $c.one_mut(), $ldc, sc, BATCH),
        )
    }};
}

const SYM_OPS: [Op; 2] = [Op::N, Op::T];
const HERM_OPS: [Op; 2] = [Op::N, Op::C];

rk_zero!(syrk_zero, Scalar, blas3::syrk, blas3::syrk_batched, blas3::syrk_strided_batched, "syrk",
    b: no_b, full, full, false, SYM_OPS);
rk_zero!(herk_zero, gpublas::ComplexScalar, blas3::herk, blas3::herk_batched, blas3::herk_strided_batched, "herk",
    b: no_b, realpart, realpart, true, HERM_OPS);
rk_zero!(syr2k_zero, Scalar, blas3::syr2k, blas3::syr2k_batched, blas3::syr2k_strided_batched, "syr2k",
    b: with_b, full, full, false, SYM_OPS);
rk_zero!(her2k_zero, gpublas::ComplexScalar, blas3::her2k, blas3::her2k_batched, blas3::her2k_strided_batched, "her2k",
    b: with_b, full, realpart, true, HERM_OPS);
rk_zero!(syrkx_zero, Scalar, blas3::syrkx, blas3::syrkx_batched, blas3::syrkx_strided_batched, "syrkx",
    b: with_b, full, full, false, SYM_OPS);
rk_zero!(herkx_zero, gpublas::ComplexScalar, blas3::herkx, blas3::herkx_batched, blas3::herkx_strided_batched, "herkx",
    b: with_b, full, realpart, true, HERM_OPS);

fn m16_syrk_herk_k0_is_beta_c(dev: &Device) {
    syrk_zero::<f32>(dev);
    syrk_zero::<f64>(dev);
    syrk_zero::<Complex32>(dev);
    syrk_zero::<Complex64>(dev);
    herk_zero::<Complex32>(dev);
    herk_zero::<Complex64>(dev);
}

fn m16_syr2k_her2k_k0_is_beta_c(dev: &Device) {
    syr2k_zero::<f32>(dev);
    syr2k_zero::<f64>(dev);
    syr2k_zero::<Complex32>(dev);
    syr2k_zero::<Complex64>(dev);
    her2k_zero::<Complex32>(dev);
    her2k_zero::<Complex64>(dev);
}

fn m16_syrkx_herkx_k0_is_beta_c(dev: &Device) {
    syrkx_zero::<f32>(dev);
    syrkx_zero::<f64>(dev);
    syrkx_zero::<Complex32>(dev);
    syrkx_zero::<Complex64>(dev);
    herkx_zero::<Complex32>(dev);
    herkx_zero::<Complex64>(dev);
}

// ---- trmm / trsm / trtri ------------------------------------------------------------------

fn tri_zero<T: El>(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let mut r = rng(305);
    for (m, n) in [(0, 4), (5, 0), (0, 0)] {
        for side in [Side::Left, Side::Right] {
            for (uplo, op, diag) in [
                (Uplo::Lower, Op::N, Diag::NonUnit),
                (Uplo::Upper, Op::T, Diag::Unit),
                (Uplo::Lower, Op::C, Diag::Unit),
            ] {
                for form in FORMS {
                    for alpha in [T::make(0.5, -1.0), T::one(), T::zero()] {
                        let na = if side == Side::Left { m } else { n };
                        let (lda, ldb) = (na.max(1) + 1, m.max(1) + 2);
                        let (ad, sa) = input::<T>(&mut r, form, (na, na, lda));
                        let a = Placed::new(dev, form, sa, &ad, true);
                        let (bd, sb) = output::<T>(&mut r, form, (m, n, ldb), false);
                        for trsm in [false, true] {
                            let mut b = Placed::new(dev, form, sb, &bd, true);
                            let al = Coef::Host(alpha);
                            let res = match trsm {
                                false => by_form!(form,
                                    single => blas3::trmm(&mut h, side, uplo, op, diag, m, n, al, a.one(), lda, b.one_mut(), ldb),
                                    list => blas3::trmm_batched(&mut h, side, uplo, op, diag, m, n, al, &a.list(), lda, &mut b.list_mut(), ldb),
                                    strided => blas3::trmm_strided_batched(&mut h, side, uplo, op, diag, m, n, al, a.one(), lda, sa, b.one_mut(), ldb, sb, BATCH),
                                ),
                                true => by_form!(form,
                                    single => blas3::trsm(&mut h, side, uplo, op, diag, m, n, al, a.one(), lda, b.one_mut(), ldb),
                                    list => blas3::trsm_batched(&mut h, side, uplo, op, diag, m, n, al, &a.list(), lda, &mut b.list_mut(), ldb),
                                    strided => blas3::trsm_strided_batched(&mut h, side, uplo, op, diag, m, n, al, a.one(), lda, sa, b.one_mut(), ldb, sb, BATCH),
                                ),
                            };
                            let what = format!(
                                "{} {} {form:?} {side:?} {uplo:?} {op:?} {diag:?} m={m} n={n} alpha={:?}",
                                T::NAME,
                                if trsm { "trsm" } else { "trmm" },
                                alpha.get()
                            );
                            ok(&what, res);
                            check_beta_c(
                                &what,
                                &bd,
                                &b.read(),
                                sb,
                                (m, n, ldb),
                                Region::Full,
                                None,
                            );
                        }
                    }
                }
            }
        }
    }
    // trtri of order 0.
    for form in FORMS {
        for (uplo, diag) in [(Uplo::Lower, Diag::NonUnit), (Uplo::Upper, Diag::Unit)] {
            let (a, sa) = (Placed::<T>::new(dev, form, 0, &[], true), 0);
            let (id, si) = output::<T>(&mut r, form, (0, 0, 2), false);
            let mut inv = Placed::new(dev, form, si, &id, true);
            let res = by_form!(form,
                single => blas3::trtri(&mut h, uplo, diag, 0, a.one(), 1, inv.one_mut(), 2),
                list => blas3::trtri_batched(&mut h, uplo, diag, 0, &a.list(), 1, &mut inv.list_mut(), 2),
                strided => blas3::trtri_strided_batched(&mut h, uplo, diag, 0, a.one(), 1, sa, inv.one_mut(), 2, si, BATCH),
            );
            let what = format!("{} trtri {form:?} {uplo:?} {diag:?} n=0", T::NAME);
            ok(&what, res);
            check_beta_c(&what, &id, &inv.read(), si, (0, 0, 2), Region::Full, None);
        }
    }
}

fn f3_trmm_trsm_trtri_zero_dims_touch_nothing(dev: &Device) {
    tri_zero::<f32>(dev);
    tri_zero::<f64>(dev);
    tri_zero::<Complex32>(dev);
    tri_zero::<Complex64>(dev);
}

// ---- batch count 0 ------------------------------------------------------------------------

/// Batched forms with no entries: success, nothing written (buffers empty or poisoned).
fn batch0<T: El + gpublas::ComplexScalar + blas3::GemmExIn<Scale = T> + blas3::GemmExOut<T>>(
    dev: &Device,
) {
    let mut h = Handle::new(dev).unwrap();
    let mut r = rng(306);
    let keep: Vec<T> = poison(&mut r, 40);
    let a = dev.upload(&keep).unwrap();
    let mut c = dev.upload(&keep).unwrap();
    let (one, half) = (Coef::Host(T::one()), Coef::Host(T::make(0.5, 0.0)));
    let re = |x: f64| Coef::Host(T::real(x));
    let (l0, mut m0): (Vec<&DeviceBuffer<T>>, Vec<&mut DeviceBuffer<T>>) = (vec![], vec![]);
    let results: Vec<(&str, Result<Status, gpublas::Error>)> = vec![
        (
            "gemm_batched",
            blas3::gemm_batched(
                &mut h,
                Op::N,
                Op::N,
                4,
                4,
                4,
                one,
                &l0,
                4,
                &l0,
                4,
                half,
                &mut m0,
                4,
            ),
        ),
        (
            "gemm_strided_batched",
            blas3::gemm_strided_batched(
                &mut h,
                Op::N,
                Op::N,
                4,
                4,
                4,
                one,
                &a,
                4,
                16,
                &a,
                4,
                16,
                half,
                &mut c,
                4,
                16,
                0,
            ),
        ),
        (
            "symm_strided_batched",
            blas3::symm_strided_batched(
                &mut h,
                Side::Left,
                Uplo::Lower,
                4,
                4,
                one,
                &a,
                4,
                16,
                &a,
                4,
                16,
                half,
                &mut c,
                4,
                16,
                0,
            ),
        ),
        (
            "hemm_batched",
            blas3::hemm_batched(
                &mut h,
                Side::Right,
                Uplo::Upper,
                4,
                4,
                one,
                &l0,
                4,
                &l0,
                4,
                half,
                &mut m0,
                4,
            ),
        ),
        (
            "syrk_strided_batched",
            blas3::syrk_strided_batched(
                &mut h,
                Uplo::Lower,
                Op::N,
                4,
                4,
                one,
                &a,
                4,
                16,
                half,
                &mut c,
                4,
                16,
                0,
            ),
        ),
        (
            "herk_batched",
            blas3::herk_batched(
                &mut h,
                Uplo::Upper,
                Op::C,
                4,
                4,
                re(1.0),
                &l0,
                4,
                re(0.5),
                &mut m0,
                4,
            ),
        ),
        (
            "syr2k_strided_batched",
            blas3::syr2k_strided_batched(
                &mut h,
                Uplo::Lower,
                Op::T,
                4,
                4,
                one,
                &a,
                4,
                16,
                &a,
                4,
                16,
                half,
                &mut c,
                4,
                16,
                0,
            ),
        ),
        (
            "her2k_strided_batched",
            blas3::her2k_strided_batched(
                &mut h,
                Uplo::Upper,
                Op::N,
                4,
                4,
                one,
                &a,
                4,
                16,
                &a,
                4,
                16,
                re(0.5),
                &mut c,
                4,
                16,
                0,
            ),
        ),
        (
            "syrkx_batched",
            blas3::syrkx_batched(
                &mut h,
                Uplo::Lower,
                Op::N,
                4,
                4,
                one,
                &l0,
                4,
                &l0,
                4,
                half,
                &mut m0,
                4,
            ),
        ),
        (
            "herkx_strided_batched",
            blas3::herkx_strided_batched(
                &mut h,
                Uplo::Lower,
                Op::C,
                4,
                4,
                one,
                &a,
                4,
                16,
                &a,
                4,
                16,
                re(0.5),
                &mut c,
                4,
                16,
                0,
            ),
        ),
        (
            "trmm_strided_batched",
            blas3::trmm_strided_batched(
                &mut h,
                Side::Left,
                Uplo::Lower,
                Op::N,
                Diag::NonUnit,
                4,
                4,
                half,
                &a,
                4,
                16,
                &mut c,
                4,
                16,
                0,
            ),
        ),
        (
            "trsm_batched",
            blas3::trsm_batched(
                &mut h,
                Side::Right,
                Uplo::Upper,
                Op::C,
                Diag::Unit,
                4,
                4,
                half,
                &l0,
                4,
                &mut m0,
                4,
            ),
        ),
        (
            "trsm_strided_batched",
            blas3::trsm_strided_batched(
                &mut h,
                Side::Left,
                Uplo::Lower,
                Op::N,
                Diag::NonUnit,
                4,
                1,
                half,
                &a,
                4,
                16,
                &mut c,
                4,
                4,
                0,
            ),
        ),
        (
            "trtri_strided_batched",
            blas3::trtri_strided_batched(
                &mut h,
                Uplo::Lower,
                Diag::NonUnit,
                4,
                &a,
                4,
                16,
                &mut c,
                4,
                16,
                0,
            ),
        ),
        (
            "gemm_ex_strided_batched",
            blas3::gemm_ex_strided_batched::<T, T>(
                &mut h,
                Op::N,
                Op::T,
                4,
                4,
                4,
                one,
                &a,
                4,
                16,
                &a,
                4,
                16,
                half,
                &mut c,
                4,
                16,
                0,
                compute_of::<T>(),
            ),
        ),
    ];
    for (what, res) in results {
        ok(&format!("{} {what} batch 0", T::NAME), res);
    }
    assert!(c
        .to_vec()
        .unwrap()
        .iter()
        .zip(&keep)
        .all(|(x, y)| same_bits(*x, *y)));

    // The solver: nothing factored, no info written.
    let mut info = [77i32; 2];
    let mut piv = [55i32; 8];
    let ipiv = dev.upload(&[1i32, 2, 3, 4]).unwrap();
    let s = [
        solver::getrf_strided_batched(
            &mut h,
            4,
            4,
            &mut c,
            4,
            16,
            Results::Host(&mut piv),
            4,
            Results::Host(&mut info),
            0,
        ),
        solver::getrf_batched(
            &mut h,
            4,
            4,
            &mut m0,
            4,
            Results::Host(&mut piv),
            4,
            Results::Host(&mut info),
        ),
        solver::getrf_npvt_strided_batched(
            &mut h,
            4,
            4,
            &mut c,
            4,
            16,
            Results::Host(&mut info),
            0,
        ),
        solver::getrs_strided_batched(&mut h, Op::N, 4, 2, &a, 4, 16, &ipiv, 4, &mut c, 4, 8, 0),
        solver::getrs_batched(&mut h, Op::C, 4, 2, &l0, 4, &ipiv, 4, &mut m0, 4),
        solver::potrf_strided_batched(
            &mut h,
            Uplo::Lower,
            4,
            &mut c,
            4,
            16,
            Results::Host(&mut info),
            0,
        ),
        solver::potrf_batched(&mut h, Uplo::Upper, 4, &mut m0, 4, Results::Host(&mut info)),
        solver::potrs_strided_batched(&mut h, Uplo::Upper, 4, 2, &a, 4, 16, &mut c, 4, 8, 0),
        solver::potrs_batched(&mut h, Uplo::Lower, 4, 2, &l0, 4, &mut m0, 4),
    ];
    for (i, res) in s.into_iter().enumerate() {
        ok(&format!("{} solver call {i} batch 0", T::NAME), res);
    }
    assert_eq!(info, [77; 2], "{}: info written for no entries", T::NAME);
    assert_eq!(piv, [55; 8], "{}: pivots written for no entries", T::NAME);
    assert!(c
        .to_vec()
        .unwrap()
        .iter()
        .zip(&keep)
        .all(|(x, y)| same_bits(*x, *y)));
}

/// The compute type of a gemm_ex on `T` itself.
fn compute_of<T: El>() -> ComputeType {
    if T::EPS < 1e-10 {
        ComputeType::F64
    } else {
        ComputeType::F32
    }
}

fn f3_batch_count_zero_touches_nothing(dev: &Device) {
    batch0::<Complex32>(dev);
    batch0::<Complex64>(dev);
}

// ---- the solver ---------------------------------------------------------------------------

/// getrf / getrf_npvt with m or n = 0, getrs with n or nrhs = 0, potrf with n = 0, potrs with n
/// or nrhs = 0: matrices untouched, info 0 (set for every entry), pivots untouched.
fn solver_zero<T: El>(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let mut r = rng(307);
    for form in FORMS {
        let cnt = form.count();
        for device_results in [false, true] {
            // Factorizations.
            for (m, n) in [(0, 3), (4, 0), (0, 0)] {
                let lda = m.max(1) + 1;
                let (ad, sa) = output::<T>(&mut r, form, (m, n, lda), false);
                for which in ["getrf", "getrf_npvt", "potrf"] {
                    if which == "potrf" && m != n {
                        continue;
                    }
                    let mut a = Placed::new(dev, form, sa, &ad, true);
                    let mut info_h = vec![77i32; cnt];
                    let mut piv_h = vec![55i32; cnt * 2];
                    let mut info_d = dev.upload(&info_h).unwrap();
                    let mut piv_d = dev.upload(&piv_h).unwrap();
                    let (piv, info) = if device_results {
                        (Results::Device(&mut piv_d), Results::Device(&mut info_d))
                    } else {
                        (
                            Results::Host(&mut piv_h[..]),
                            Results::Host(&mut info_h[..]),
                        )
                    };
                    let uplo = if r.gen_bool(0.5) {
                        Uplo::Lower
                    } else {
                        Uplo::Upper
                    };
                    let res = match which {
                        "getrf" => by_form!(form,
                            single => solver::getrf(&mut h, m, n, a.one_mut(), lda, piv, info),
                            list => solver::getrf_batched(&mut h, m, n, &mut a.list_mut(), lda, piv, 2, info),
                            strided => solver::getrf_strided_batched(&mut h, m, n, a.one_mut(), lda, sa, piv, 2, info, BATCH),
                        ),
                        "getrf_npvt" => by_form!(form,
                            single => solver::getrf_npvt(&mut h, m, n, a.one_mut(), lda, info),
                            list => solver::getrf_npvt_batched(&mut h, m, n, &mut a.list_mut(), lda, info),
                            strided => solver::getrf_npvt_strided_batched(&mut h, m, n, a.one_mut(), lda, sa, info, BATCH),
                        ),
                        _ => by_form!(form,
                            single => solver::potrf(&mut h, uplo, n, a.one_mut(), lda, info),
                            list => solver::potrf_batched(&mut h, uplo, n, &mut a.list_mut(), lda, info),
                            strided => solver::potrf_strided_batched(&mut h, uplo, n, a.one_mut(), lda, sa, info, BATCH),
                        ),
                    };
                    let what = format!(
                        "{} {which} {form:?} m={m} n={n} device results {device_results}",
                        T::NAME
                    );
                    ok(&what, res);
                    check_beta_c(&what, &ad, &a.read(), sa, (m, n, lda), Region::Full, None);
                    let (info, piv) = if device_results {
                        (info_d.to_vec().unwrap(), piv_d.to_vec().unwrap())
                    } else {
                        (info_h, piv_h)
                    };
                    assert_eq!(info, vec![0; cnt], "{what}: info");
                    assert_eq!(piv, vec![55; cnt * 2], "{what}: pivots");
                }
            }
            // Solves.
            for (n, nrhs) in [(0, 2), (3, 0), (0, 0)] {
                let (lda, ldb) = (n.max(1) + 1, n.max(1) + 2);
                let (ad, sa) = input::<T>(&mut r, form, (n, n, lda));
                let (bd, sb) = output::<T>(&mut r, form, (n, nrhs, ldb), false);
                let a = Placed::new(dev, form, sa, &ad, true);
                let ipiv = dev.upload(&vec![1i32; cnt * n.max(1)]).unwrap();
                let sp = n.max(1);
                for which in ["getrs", "potrs"] {
                    let mut b = Placed::new(dev, form, sb, &bd, true);
                    let res = match which {
                        "getrs" => by_form!(form,
                            single => solver::getrs(&mut h, Op::N, n, nrhs, a.one(), lda, &ipiv, b.one_mut(), ldb),
                            list => solver::getrs_batched(&mut h, Op::T, n, nrhs, &a.list(), lda, &ipiv, sp, &mut b.list_mut(), ldb),
                            strided => solver::getrs_strided_batched(&mut h, Op::C, n, nrhs, a.one(), lda, sa, &ipiv, sp, b.one_mut(), ldb, sb, BATCH),
                        ),
                        _ => by_form!(form,
                            single => solver::potrs(&mut h, Uplo::Lower, n, nrhs, a.one(), lda, b.one_mut(), ldb),
                            list => solver::potrs_batched(&mut h, Uplo::Upper, n, nrhs, &a.list(), lda, &mut b.list_mut(), ldb),
                            strided => solver::potrs_strided_batched(&mut h, Uplo::Lower, n, nrhs, a.one(), lda, sa, b.one_mut(), ldb, sb, BATCH),
                        ),
                    };
                    let what = format!("{} {which} {form:?} n={n} nrhs={nrhs}", T::NAME);
                    ok(&what, res);
                    check_beta_c(
                        &what,
                        &bd,
                        &b.read(),
                        sb,
                        (n, nrhs, ldb),
                        Region::Full,
                        None,
                    );
                }
            }
        }
    }
}

fn f3_solver_zero_dims(dev: &Device) {
    solver_zero::<f32>(dev);
    solver_zero::<f64>(dev);
    solver_zero::<Complex32>(dev);
    solver_zero::<Complex64>(dev);
}

// ---- strided operands that span nothing ---------------------------------------------------

/// A strided operand whose entries span nothing addresses nothing, whatever its stride: an
/// empty (null) buffer with a stride that is not 0 is accepted (the C interface passes such
/// operands with no memory), and the call gives the reference result.
fn strided_empty<T: El + gpublas::ComplexScalar>(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let mut r = rng(309);
    // SAFETY: a null pointer of no elements addresses no memory.
    let none = unsafe { DeviceBuffer::<T>::from_raw(dev, 0, 0) }.unwrap();
    let (n, ldc) = (3usize, 4usize);
    let (cd, sc) = output::<T>(&mut r, Form::Strided, (n, n, ldc), false);
    let beta = (-0.5, 0.25);
    let be = Coef::Host(T::make(beta.0, beta.1));
    let (one, rb) = (Coef::Host(T::one()), Coef::Host(T::real(beta.0)));
    for (what, region, b) in [
        ("gemm_strided_batched", Region::Full, beta),
        ("syr2k_strided_batched", Region::Lower, beta),
        ("her2k_strided_batched", Region::Upper, (beta.0, 0.0)),
    ] {
        let mut c = dev.upload(&cd).unwrap();
        let res = match what {
            "gemm_strided_batched" => blas3::gemm_strided_batched(
                &mut h,
                Op::N,
                Op::T,
                n,
                n,
                0,
                one,
                &none,
                n,
                12,
                &none,
                n,
                5,
                be,
                &mut c,
                ldc,
                sc,
                BATCH,
            ),
            "syr2k_strided_batched" => blas3::syr2k_strided_batched(
                &mut h,
                Uplo::Lower,
                Op::T,
                n,
                0,
                one,
                &none,
                1,
                7,
                &none,
                1,
                9,
                be,
                &mut c,
                ldc,
                sc,
                BATCH,
            ),
            _ => blas3::her2k_strided_batched(
                &mut h,
                Uplo::Upper,
                Op::N,
                n,
                0,
                one,
                &none,
                n,
                7,
                &none,
                n,
                9,
                rb,
                &mut c,
                ldc,
                sc,
                BATCH,
            ),
        };
        let what = format!("{} {what} k=0, empty A and B with strides", T::NAME);
        ok(&what, res);
        let herm = what.contains("her2k");
        let after = c.to_vec().unwrap();
        check_beta_c(&what, &cd, &after, sc, (n, n, ldc), region, Some((b, herm)));
    }
    // Solves with no right-hand sides, B empty with a stride.
    let a = dev.upload(&rand_els::<T>(&mut r, BATCH * 9)).unwrap();
    let ipiv = dev.upload(&[1i32; 9]).unwrap();
    // SAFETY: as above.
    let mut b = unsafe { DeviceBuffer::<T>::from_raw(dev, 0, 0) }.unwrap();
    ok(
        "getrs_strided_batched nrhs=0",
        solver::getrs_strided_batched(&mut h, Op::N, 3, 0, &a, 3, 9, &ipiv, 3, &mut b, 3, 6, BATCH),
    );
    ok(
        "potrs_strided_batched nrhs=0",
        solver::potrs_strided_batched(&mut h, Uplo::Lower, 3, 0, &a, 3, 9, &mut b, 3, 6, BATCH),
    );
}

fn m16_strided_operands_spanning_nothing_take_any_stride(dev: &Device) {
    strided_empty::<Complex32>(dev);
    strided_empty::<Complex64>(dev);
}

// ---- zero-length buffers elsewhere --------------------------------------------------------

/// Pinned buffers of no elements (allocated, and from a null pointer) give empty slices, and
/// the transfers of nothing through them succeed.
fn m16_pinned_zero_length_slices(dev: &Device) {
    let mut p = dev.alloc_pinned::<f64>(0).unwrap();
    assert!(p.as_slice().is_empty());
    assert!(p.as_mut_slice().is_empty());
    assert!(p.is_empty());
    let mut pc = dev.alloc_pinned::<Complex32>(0).unwrap();
    assert!(pc.as_mut_slice().is_empty());
    // SAFETY: a null pointer of no elements addresses no memory.
    let mut q = unsafe { PinnedBuffer::<Complex64>::from_raw(dev, 0, 0) }.unwrap();
    assert!(q.as_slice().is_empty() && q.as_mut_slice().is_empty());
    let mut h = Handle::new(dev).unwrap();
    let mut d = dev.upload(&[1.5f64, 2.5]).unwrap();
    ok(
        "set_vector_async n=0",
        transfer::set_vector_async(&mut h, 0, &p, 1, &mut d, 1),
    );
    ok(
        "get_vector_async n=0",
        transfer::get_vector_async(&mut h, 0, &d, 1, &mut p, 1),
    );
    h.synchronize().unwrap();
    assert_eq!(d.to_vec().unwrap(), vec![1.5, 2.5]);
}

/// Levels 1 and 2 with operands that are null pointers of no elements: no panic, reference
/// quick returns (`gemv` with m or n = 0 leaves y alone), Level-1 results of nothing.
fn m16_level1_level2_null_empty_operands(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    // SAFETY: null pointers of no elements address no memory.
    let (x, mut y) = unsafe {
        (
            DeviceBuffer::<f64>::from_raw(dev, 0, 0).unwrap(),
            DeviceBuffer::<f64>::from_raw(dev, 0, 0).unwrap(),
        )
    };
    let mut res = [9.0f64];
    ok(
        "asum n=0",
        blas1::asum(&mut h, 0, &x, 1, Results::Host(&mut res)),
    );
    assert_eq!(res, [0.0]);
    res = [9.0];
    ok(
        "dot n=0",
        blas1::dot(&mut h, 0, &x, 1, &x, 1, Results::Host(&mut res)),
    );
    assert_eq!(res, [0.0]);
    ok(
        "axpy n=0",
        blas1::axpy(&mut h, 0, Coef::Host(2.0), &x, 1, &mut y, 1),
    );
    ok(
        "scal n=0",
        blas1::scal(&mut h, 0, Coef::Host(2.0), &mut y, 1),
    );
    // gemv: y of 3 with an empty A and x (n = 0) is left alone, as is an empty y (m = 0).
    let mut y3 = dev.upload(&[1.0f64, 2.0, 3.0]).unwrap();
    ok(
        "gemv n=0",
        blas2::gemv(
            &mut h,
            Op::N,
            3,
            0,
            Coef::Host(1.0),
            &x,
            3,
            &x,
            1,
            Coef::Host(0.5),
            &mut y3,
            1,
        ),
    );
    assert_eq!(y3.to_vec().unwrap(), vec![1.0, 2.0, 3.0]);
    let a = dev.upload(&[1.0f64; 6]).unwrap();
    let x3 = dev.upload(&[1.0f64; 3]).unwrap();
    ok(
        "gemv m=0",
        blas2::gemv(
            &mut h,
            Op::N,
            0,
            3,
            Coef::Host(1.0),
            &a,
            1,
            &x3,
            1,
            Coef::Host(0.5),
            &mut y,
            1,
        ),
    );
    ok(
        "trsv n=0",
        blas2::trsv(
            &mut h,
            Uplo::Lower,
            Op::N,
            Diag::NonUnit,
            0,
            &x,
            1,
            &mut y,
            1,
        ),
    );
}

crate::on_both_backends!(
    m16_gemm_k0_is_beta_c,
    m16_gemm_ex_zero_dims,
    f3_symm_hemm_zero_dims_touch_nothing,
    m16_syrk_herk_k0_is_beta_c,
    m16_syr2k_her2k_k0_is_beta_c,
    m16_syrkx_herkx_k0_is_beta_c,
    f3_trmm_trsm_trtri_zero_dims_touch_nothing,
    f3_batch_count_zero_touches_nothing,
    f3_solver_zero_dims,
    m16_strided_operands_spanning_nothing_take_any_stride,
    m16_pinned_zero_length_slices,
    m16_level1_level2_null_empty_operands,
);
