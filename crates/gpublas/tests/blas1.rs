#![allow(
    clippy::too_many_arguments,
    clippy::type_complexity,
    clippy::needless_range_loop
)]
//! Level-1 reductions against independent f64 references, on both backends (SPEC F1–F7,
//! M6, M8, M9).

mod common;

use common::forms::{Form, FORMS};
use common::{randn, rng};
use gpublas::blas1::{self, Scalar};
use gpublas::{
    bf16, f16, Complex32, Complex64, Device, DeviceBuffer, Error, Handle, HandleConfig, Results,
    Status,
};

const SIZES: &[usize] = &[0, 1, 2, 31, 32, 33, 1023, 1024, 1025, (1 << 20) + 3];

/// Test-side view of an element: built from and read as (re, im), independently of gpublas.
trait T: Scalar + std::fmt::Debug {
    const CPLX: bool;
    /// Relative accuracy expected of a result rounded to this type.
    const EPS: f64;
    fn make(re: f64, im: f64) -> Self;
    fn get(&self) -> (f64, f64);
    /// |re| + |im| computed in the type's own precision, as BLAS compares them.
    fn mag(&self) -> f64;
    fn real_get(r: &Self::Real) -> f64;
    fn real_nan() -> Self::Real;
}
impl T for f32 {
    const CPLX: bool = false;
    const EPS: f64 = 2e-6;
    fn make(re: f64, _: f64) -> Self {
        re as f32
    }
    fn get(&self) -> (f64, f64) {
        (*self as f64, 0.0)
    }
    fn mag(&self) -> f64 {
        self.abs() as f64
    }
    fn real_get(r: &f32) -> f64 {
        *r as f64
    }
    fn real_nan() -> f32 {
        f32::NAN
    }
}
impl T for f64 {
    const CPLX: bool = false;
    const EPS: f64 = 1e-12;
    fn make(re: f64, _: f64) -> Self {
        re
    }
    fn get(&self) -> (f64, f64) {
        (*self, 0.0)
    }
    fn mag(&self) -> f64 {
        self.abs()
    }
    fn real_get(r: &f64) -> f64 {
        *r
    }
    fn real_nan() -> f64 {
        f64::NAN
    }
}
impl T for Complex32 {
    const CPLX: bool = true;
    const EPS: f64 = 2e-6;
    fn make(re: f64, im: f64) -> Self {
        Complex32::new(re as f32, im as f32)
    }
    fn get(&self) -> (f64, f64) {
        (self.re as f64, self.im as f64)
    }
    fn mag(&self) -> f64 {
        (self.re.abs() + self.im.abs()) as f64
    }
    fn real_get(r: &f32) -> f64 {
        *r as f64
    }
    fn real_nan() -> f32 {
        f32::NAN
    }
}
impl T for Complex64 {
    const CPLX: bool = true;
    const EPS: f64 = 1e-12;
    fn make(re: f64, im: f64) -> Self {
        Complex64::new(re, im)
    }
    fn get(&self) -> (f64, f64) {
        (self.re, self.im)
    }
    fn mag(&self) -> f64 {
        self.re.abs() + self.im.abs()
    }
    fn real_get(r: &f64) -> f64 {
        *r
    }
    fn real_nan() -> f64 {
        f64::NAN
    }
}

fn random<E: T>(seed: u64, len: usize) -> Vec<E> {
    let mut r = rng(seed);
    let re = randn(&mut r, len);
    let im = randn(&mut r, len);
    re.iter()
        .zip(&im)
        .map(|(&a, &b)| E::make(a, if E::CPLX { b } else { 0.0 }))
        .collect()
}

/// Logical element i of a vector of n at increment inc (reference BLAS addressing).
fn idx(n: usize, inc: isize, i: usize) -> usize {
    if inc >= 0 {
        i * inc as usize
    } else {
        (n - 1 - i) * inc.unsigned_abs()
    }
}

fn ref_asum<E: T>(x: &[E], n: usize, inc: isize) -> f64 {
    if inc <= 0 {
        return 0.0;
    }
    (0..n)
        .map(|i| {
            let (a, b) = x[idx(n, inc, i)].get();
            a.abs() + b.abs()
        })
        .sum()
}

/// Two-pass scaled norm: independent of the library's one-pass Blue algorithm.
fn ref_nrm2<E: T>(x: &[E], n: usize, inc: isize) -> f64 {
    if inc <= 0 || n == 0 {
        return 0.0;
    }
    let vals: Vec<f64> = (0..n)
        .flat_map(|i| {
            let (a, b) = x[idx(n, inc, i)].get();
            [a, b]
        })
        .collect();
    let scale = vals.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if scale == 0.0 || !scale.is_finite() {
        return if vals.iter().any(|v| v.is_nan()) {
            f64::NAN
        } else {
            scale
        };
    }
    scale
        * vals
            .iter()
            .map(|v| (v / scale) * (v / scale))
            .sum::<f64>()
            .sqrt()
}

/// (re, im, sum of |x||y| as the error scale).
fn ref_dot<E: T>(
    x: &[E],
    incx: isize,
    y: &[E],
    incy: isize,
    n: usize,
    conj: bool,
) -> (f64, f64, f64) {
    let (mut re, mut im, mut sc) = (0.0, 0.0, 0.0);
    for i in 0..n {
        let (a, mut b) = x[idx(n, incx, i)].get();
        let (c, d) = y[idx(n, incy, i)].get();
        if conj {
            b = -b;
        }
        re += a * c - b * d;
        im += a * d + b * c;
        sc += (a.abs() + b.abs()) * (c.abs() + d.abs());
    }
    (re, im, sc)
}

/// Reference BLAS i?amax / i?amin: the sequential loop, strictly better than the running best.
fn ref_iamx<E: T>(x: &[E], n: usize, inc: isize, max: bool) -> i64 {
    if n == 0 || inc <= 0 {
        return 0;
    }
    let mut best = T::mag(&x[0]);
    let mut k = 1;
    for i in 1..n {
        let m = T::mag(&x[i * inc as usize]);
        if (max && m > best) || (!max && m < best) {
            best = m;
            k = i + 1;
        }
    }
    k as i64
}

struct Operand<E> {
    host: Vec<E>,
    buf: DeviceBuffer<E>,
    list: Vec<DeviceBuffer<E>>,
    stride: usize,
    count: usize,
}

fn operand<E: T>(dev: &Device, seed: u64, n: usize, inc: isize, form: Form) -> Operand<E> {
    let span = if n == 0 {
        1
    } else {
        (n - 1) * inc.unsigned_abs() + 1
    };
    match form {
        Form::Single => {
            let h = random::<E>(seed, span);
            Operand {
                buf: dev.upload(&h).unwrap(),
                host: h,
                list: vec![],
                stride: 0,
                count: 1,
            }
        }
        Form::List(c) => {
            let h = random::<E>(seed, span * c.max(1));
            let list = (0..c)
                .map(|v| dev.upload(&h[v * span..(v + 1) * span]).unwrap())
                .collect();
            Operand {
                buf: dev.alloc(1).unwrap(),
                host: h,
                list,
                stride: span,
                count: c,
            }
        }
        Form::Strided(c) => {
            let stride = span + 3; // gaps between vectors must never be read
            let h = random::<E>(seed, stride * c.max(1));
            Operand {
                buf: dev.upload(&h).unwrap(),
                host: h,
                list: vec![],
                stride,
                count: c,
            }
        }
    }
}

impl<E: T> Operand<E> {
    fn vector(&self, v: usize) -> &[E] {
        &self.host[v * self.stride..]
    }
    fn refs(&self) -> Vec<&DeviceBuffer<E>> {
        self.list.iter().collect()
    }
}

/// Runs a one-operand routine in `form`, results to host or device, poisoned first.
fn run1<E: T, R: gpublas::Element + Copy>(
    h: &mut Handle,
    form: Form,
    x: &Operand<E>,
    n: usize,
    inc: isize,
    device_out: bool,
    poison: R,
    single: impl Fn(
        &mut Handle,
        usize,
        &DeviceBuffer<E>,
        isize,
        Results<'_, R>,
    ) -> Result<Status, Error>,
    batched: impl Fn(
        &mut Handle,
        usize,
        &[&DeviceBuffer<E>],
        isize,
        Results<'_, R>,
    ) -> Result<Status, Error>,
    strided: impl Fn(
        &mut Handle,
        usize,
        &DeviceBuffer<E>,
        isize,
        usize,
        usize,
        Results<'_, R>,
    ) -> Result<Status, Error>,
) -> (Status, Vec<R>) {
    let count = x.count;
    let mut host_out = vec![poison; count + 1];
    let mut dev_out = h.device().upload(&host_out).unwrap();
    let out = if device_out {
        Results::Device(&mut dev_out)
    } else {
        Results::Host(&mut host_out)
    };
    let st = match form {
        Form::Single => single(h, n, &x.buf, inc, out),
        Form::List(_) => batched(h, n, &x.refs(), inc, out),
        Form::Strided(_) => strided(h, n, &x.buf, inc, x.stride, count, out),
    }
    .unwrap_or_else(|e| panic!("{form:?} n={n} inc={inc}: {e}"));
    let got = if device_out {
        dev_out.to_vec().unwrap()
    } else {
        host_out
    };
    (st, got)
}

fn check_close(what: &str, got: f64, want: f64, scale: f64, eps: f64) {
    let tol = eps * scale.max(want.abs()).max(1e-300) * 4.0;
    assert!(
        (got - want).abs() <= tol || (got.is_nan() && want.is_nan()),
        "{what}: got {got}, want {want} (tol {tol})"
    );
}

fn one_operand_routines<E: T>(dev: &Device) {
    let mut h = Handle::with_config(dev, &HandleConfig::default()).unwrap();
    let mut seed = 1;
    for &n in SIZES {
        let big = n > 4096;
        for &inc in &[1isize, 2, 3, 0, -1] {
            for (fi, &form) in FORMS.iter().enumerate() {
                if big
                    && (!matches!(form, Form::Single | Form::Strided(1)) || !(1..=2).contains(&inc))
                {
                    continue;
                }
                seed += 1;
                let x = operand::<E>(dev, seed, n, inc, form);
                let dev_out = fi % 2 == 1;
                let what = |r: &str, v: usize| {
                    format!(
                        "{r}<{}> n={n} inc={inc} {form:?} v={v}",
                        std::any::type_name::<E>()
                    )
                };
                let (_, asum) = run1(
                    &mut h,
                    form,
                    &x,
                    n,
                    inc,
                    dev_out,
                    E::real_nan(),
                    blas1::asum::<E>,
                    blas1::asum_batched::<E>,
                    blas1::asum_strided_batched::<E>,
                );
                let (_, nrm2) = run1(
                    &mut h,
                    form,
                    &x,
                    n,
                    inc,
                    dev_out,
                    E::real_nan(),
                    blas1::nrm2::<E>,
                    blas1::nrm2_batched::<E>,
                    blas1::nrm2_strided_batched::<E>,
                );
                let (_, imax) = run1(
                    &mut h,
                    form,
                    &x,
                    n,
                    inc,
                    dev_out,
                    -7i64,
                    blas1::iamax::<E>,
                    blas1::iamax_batched::<E>,
                    blas1::iamax_strided_batched::<E>,
                );
                let (_, imin) = run1(
                    &mut h,
                    form,
                    &x,
                    n,
                    inc,
                    dev_out,
                    -7i64,
                    blas1::iamin::<E>,
                    blas1::iamin_batched::<E>,
                    blas1::iamin_strided_batched::<E>,
                );
                for v in 0..x.count {
                    let xv = x.vector(v);
                    let want = ref_asum(xv, n, inc);
                    check_close(&what("asum", v), E::real_get(&asum[v]), want, want, E::EPS);
                    let want = ref_nrm2(xv, n, inc);
                    check_close(&what("nrm2", v), E::real_get(&nrm2[v]), want, want, E::EPS);
                    assert_eq!(imax[v], ref_iamx(xv, n, inc, true), "{}", what("iamax", v));
                    assert_eq!(imin[v], ref_iamx(xv, n, inc, false), "{}", what("iamin", v));
                }
                // Exactly the batch's results were written: the one past it keeps its poison.
                assert!(
                    E::real_get(&asum[x.count]).is_nan() && imax[x.count] == -7,
                    "{}",
                    what("extra result", x.count)
                );
            }
        }
    }
}

fn two_operand_routines<E: T>(dev: &Device) {
    let mut h = Handle::with_config(dev, &HandleConfig::default()).unwrap();
    let poison = E::make(f64::NAN, f64::NAN);
    let mut seed = 1000;
    for &n in SIZES {
        let big = n > 4096;
        for &(incx, incy) in &[(1isize, 1isize), (2, 3), (-1, 1), (1, -2), (-3, -1), (0, 1)] {
            for (fi, &form) in FORMS.iter().enumerate() {
                if big
                    && (!matches!(form, Form::Single | Form::Strided(1)) || incx != 1 || incy != 1)
                {
                    continue;
                }
                seed += 2;
                let x = operand::<E>(dev, seed, n, incx, form);
                let y = operand::<E>(dev, seed + 1, n, incy, form);
                let dev_out = fi % 2 == 0;
                for conj in [false, true] {
                    let count = x.count;
                    let mut host_out = vec![poison; count + 1];
                    let mut dev_buf = dev.upload(&host_out).unwrap();
                    let out = if dev_out {
                        Results::Device(&mut dev_buf)
                    } else {
                        Results::Host(&mut host_out)
                    };
                    let st = match (form, conj) {
                        (Form::Single, false) => {
                            blas1::dot(&mut h, n, &x.buf, incx, &y.buf, incy, out)
                        }
                        (Form::Single, true) => {
                            blas1::dotc(&mut h, n, &x.buf, incx, &y.buf, incy, out)
                        }
                        (Form::List(_), false) => {
                            blas1::dot_batched(&mut h, n, &x.refs(), incx, &y.refs(), incy, out)
                        }
                        (Form::List(_), true) => {
                            blas1::dotc_batched(&mut h, n, &x.refs(), incx, &y.refs(), incy, out)
                        }
                        (Form::Strided(_), false) => blas1::dot_strided_batched(
                            &mut h, n, &x.buf, incx, x.stride, &y.buf, incy, y.stride, count, out,
                        ),
                        (Form::Strided(_), true) => blas1::dotc_strided_batched(
                            &mut h, n, &x.buf, incx, x.stride, &y.buf, incy, y.stride, count, out,
                        ),
                    };
                    let _ = st.unwrap_or_else(|e| panic!("dot n={n} {form:?}: {e}"));
                    let got = if dev_out {
                        dev_buf.to_vec().unwrap()
                    } else {
                        host_out
                    };
                    for v in 0..count {
                        let (re, im, sc) = ref_dot(x.vector(v), incx, y.vector(v), incy, n, conj);
                        let (gr, gi) = got[v].get();
                        let what = format!(
                            "dot{}<{}> n={n} incs=({incx},{incy}) {form:?} v={v}",
                            if conj { "c" } else { "" },
                            std::any::type_name::<E>()
                        );
                        check_close(&what, gr, re, sc, E::EPS);
                        check_close(&what, gi, im, sc, E::EPS);
                    }
                    assert!(got[count].get().0.is_nan(), "dot wrote past the batch");
                }
            }
        }
    }
}

fn f1_asum_nrm2_iamax_iamin_f32(dev: &Device) {
    one_operand_routines::<f32>(dev)
}
fn f1_asum_nrm2_iamax_iamin_f64(dev: &Device) {
    one_operand_routines::<f64>(dev)
}
fn f1_asum_nrm2_iamax_iamin_c32(dev: &Device) {
    one_operand_routines::<Complex32>(dev)
}
fn f1_asum_nrm2_iamax_iamin_c64(dev: &Device) {
    one_operand_routines::<Complex64>(dev)
}
fn f1_dot_dotc_f32(dev: &Device) {
    two_operand_routines::<f32>(dev)
}
fn f1_dot_dotc_f64(dev: &Device) {
    two_operand_routines::<f64>(dev)
}
fn f1_dot_dotc_c32(dev: &Device) {
    two_operand_routines::<Complex32>(dev)
}
fn f1_dot_dotc_c64(dev: &Device) {
    two_operand_routines::<Complex64>(dev)
}

fn nrm2_of<E: T>(h: &mut Handle, vals: &[E]) -> f64 {
    let x = h.device().upload(vals).unwrap();
    let mut r = [E::real_nan()];
    let _ = blas1::nrm2(h, vals.len(), &x, 1, Results::Host(&mut r)).unwrap();
    E::real_get(&r[0])
}

fn f1_nrm2_extreme_values_neither_overflow_nor_underflow(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    for (vals, want) in [
        (vec![1e300, 1e300, -1e300], 3f64.sqrt() * 1e300),
        (vec![1e-300, -1e-300, 1e-300, 1e-300], 2e-300),
        (vec![3e-320, 4e-320], 5e-320),
        (vec![1e300, 1e-300, 1.0], 1e300),
        (vec![1e-300, 3.0, 4.0, 1e-310], 5.0),
        (vec![1e154, 1e154, 1e-170], 2f64.sqrt() * 1e154),
        (vec![f64::MAX, 0.0], f64::MAX),
    ] {
        let got = nrm2_of(&mut h, &vals);
        assert!(
            ((got - want) / want).abs() < 1e-14,
            "{vals:?}: got {got}, want {want}"
        );
    }
    let got = nrm2_of(
        &mut h,
        &[Complex64::new(1e300, 1e300), Complex64::new(-1e-300, 0.0)],
    );
    assert!(((got - 2f64.sqrt() * 1e300) / got).abs() < 1e-14);
    // f32: values whose squares leave the f32 range.
    for (vals, want) in [
        (vec![2e38f32, 1e38], 5f64.sqrt() * 1e38),
        (vec![1e-40f32, 1e-40], 2f64.sqrt() * 1e-40),
    ] {
        let got = nrm2_of(&mut h, &vals);
        assert!(((got - want) / want).abs() < 1e-5, "{vals:?}: {got}");
    }
    assert!(nrm2_of(&mut h, &[1.0, f64::NAN, 1e300]).is_nan());
    assert!(nrm2_of(&mut h, &[1.0, f64::INFINITY, 2.0]).is_infinite());
    assert!(nrm2_of(&mut h, &[f64::INFINITY, f64::NAN]).is_nan());
    // Large vectors of huge values: every block's partials must stay finite.
    let big = vec![1e300f64; (1 << 20) + 3];
    let got = nrm2_of(&mut h, &big);
    assert!(
        (got / (1e300 * ((1u64 << 20) as f64 + 3.0).sqrt()) - 1.0).abs() < 1e-12,
        "{got}"
    );
}

fn iamx_of<E: T>(h: &mut Handle, vals: &[E], max: bool) -> i64 {
    let x = h.device().upload(vals).unwrap();
    let mut r = [-7i64];
    let st = if max {
        blas1::iamax(h, vals.len(), &x, 1, Results::Host(&mut r))
    } else {
        blas1::iamin(h, vals.len(), &x, 1, Results::Host(&mut r))
    };
    let _ = st.unwrap();
    r[0]
}

fn f1_iamax_iamin_nan_and_ties(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let nan = f64::NAN;
    assert_eq!(iamx_of(&mut h, &[1.0, -3.0, 3.0, 2.0], true), 2);
    assert_eq!(iamx_of(&mut h, &[1.0, -3.0, 3.0, 1.0], false), 1);
    assert_eq!(iamx_of(&mut h, &[nan, 5.0, 7.0], true), 1);
    assert_eq!(iamx_of(&mut h, &[nan, 5.0, 0.5], false), 1);
    assert_eq!(iamx_of(&mut h, &[1.0, nan, 7.0, nan], true), 3);
    assert_eq!(iamx_of(&mut h, &[4.0, nan, 0.5, nan], false), 3);
    assert_eq!(iamx_of(&mut h, &[1.0, nan, nan], true), 1);
    assert_eq!(
        iamx_of(&mut h, &[f64::INFINITY, 1.0, f64::INFINITY], true),
        1
    );
    // |re| + |im| ties across complex elements.
    let c = |a, b| Complex64::new(a, b);
    assert_eq!(
        iamx_of(
            &mut h,
            &[c(1.0, 0.0), c(-2.0, 1.0), c(1.5, -1.5), c(0.0, 3.0)],
            true
        ),
        2
    );
    assert_eq!(
        iamx_of(
            &mut h,
            &[c(1.0, 2.0), c(0.5, 0.5), c(-1.0, 0.0), c(0.0, 1.0)],
            false
        ),
        2
    );
    // Ties far apart in a large vector: the first index wins across blocks.
    let n = (1 << 20) + 3;
    let mut v = vec![0.25f32; n];
    v[n - 1] = -9.0;
    v[777_777] = 9.0;
    v[12] = 9.0;
    v[5000] = 0.125;
    v[900_000] = -0.125;
    assert_eq!(iamx_of(&mut h, &v, true), 13);
    assert_eq!(iamx_of(&mut h, &v, false), 5001);
    v[3] = f32::NAN;
    assert_eq!(iamx_of(&mut h, &v, true), 13);
}

fn f1_ex_variants_half_bf16_f32(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    for &n in &[0usize, 1, 33, 1025, (1 << 20) + 3] {
        let mut r = rng(n as u64 + 7);
        let a = randn(&mut r, n);
        let b = randn(&mut r, n);
        macro_rules! case {
            ($t:ty, $conv:expr, $back:expr, $tol32:expr) => {{
                let xa: Vec<$t> = a.iter().map(|&v| $conv(v)).collect();
                let xb: Vec<$t> = b.iter().map(|&v| $conv(v)).collect();
                let (mut dot, mut sc, mut ss) = (0.0, 0.0, 0.0);
                for i in 0..n {
                    let (p, q) = ($back(xa[i]), $back(xb[i]));
                    dot += p * q;
                    sc += (p * q).abs();
                    ss += p * p;
                }
                let x = dev.upload(&xa).unwrap();
                let y = dev.upload(&xb).unwrap();
                let mut r32 = [f32::NAN];
                let mut r64 = [f64::NAN];
                let _ = blas1::dot_ex::<$t, f32>(&mut h, n, &x, 1, &y, 1, Results::Host(&mut r32))
                    .unwrap();
                let _ = blas1::dot_ex::<$t, f64>(&mut h, n, &x, 1, &y, 1, Results::Host(&mut r64))
                    .unwrap();
                check_close(
                    &format!("dot_ex {} n={n} f32", stringify!($t)),
                    r32[0] as f64,
                    dot,
                    sc,
                    $tol32,
                );
                check_close(
                    &format!("dot_ex {} n={n} f64", stringify!($t)),
                    r64[0],
                    dot,
                    sc,
                    1e-13,
                );
                let mut d = dev.alloc::<f64>(1).unwrap();
                let _ =
                    blas1::nrm2_ex::<$t, f32>(&mut h, n, &x, 1, Results::Host(&mut r32)).unwrap();
                let _ =
                    blas1::nrm2_ex::<$t, f64>(&mut h, n, &x, 1, Results::Device(&mut d)).unwrap();
                check_close(
                    &format!("nrm2_ex {} n={n} f32", stringify!($t)),
                    r32[0] as f64,
                    ss.sqrt(),
                    0.0,
                    $tol32,
                );
                check_close(
                    &format!("nrm2_ex {} n={n} f64", stringify!($t)),
                    d.to_vec().unwrap()[0],
                    ss.sqrt(),
                    0.0,
                    1e-13,
                );
            }};
        }
        case!(f16, f16::from_f64, |v: f16| v.to_f64(), 1e-5);
        case!(bf16, bf16::from_f64, |v: bf16| v.to_f64(), 1e-5);
        case!(f32, |v: f64| v as f32, |v: f32| v as f64, 1e-5);
    }
    // bf16 reaches 3e38: f32 accumulation of squares must scale instead of overflowing.
    let big = vec![bf16::from_f32(1e38); 4];
    let x = dev.upload(&big).unwrap();
    let mut r = [f32::NAN];
    let _ = blas1::nrm2_ex::<bf16, f32>(&mut h, 4, &x, 1, Results::Host(&mut r)).unwrap();
    let want = 2.0 * bf16::from_f32(1e38).to_f64();
    assert!(((r[0] as f64 - want) / want).abs() < 1e-6, "{}", r[0]);
}

/// Every routine once, as a closure over a handle; used by the workspace tests.
fn every_routine(
    dev: &Device,
    n: usize,
    batch: usize,
) -> Vec<(
    &'static str,
    Box<dyn Fn(&mut Handle) -> (Result<Status, Error>, f64)>,
)> {
    let xs = random::<f64>(5, n * batch);
    let ys = random::<f64>(6, n * batch);
    let zs = random::<Complex32>(7, n * batch);
    let (x, y, z) = (
        dev.upload(&xs).unwrap(),
        dev.upload(&ys).unwrap(),
        dev.upload(&zs).unwrap(),
    );
    let x = std::rc::Rc::new((x, y, z));
    let mut v: Vec<(
        &'static str,
        Box<dyn Fn(&mut Handle) -> (Result<Status, Error>, f64)>,
    )> = Vec::new();
    let c = x.clone();
    v.push((
        "asum",
        Box::new(move |h| {
            let mut r = vec![0.0; batch];
            let s = blas1::asum_strided_batched(h, n, &c.0, 1, n, batch, Results::Host(&mut r));
            (s, r[0])
        }),
    ));
    let c = x.clone();
    v.push((
        "nrm2",
        Box::new(move |h| {
            let mut r = vec![0.0f32; batch];
            let s = blas1::nrm2_strided_batched(h, n, &c.2, 1, n, batch, Results::Host(&mut r));
            (s, r[0] as f64)
        }),
    ));
    let c = x.clone();
    v.push((
        "dot",
        Box::new(move |h| {
            let mut r = vec![0.0; batch];
            let s = blas1::dot_strided_batched(
                h,
                n,
                &c.0,
                1,
                n,
                &c.1,
                1,
                n,
                batch,
                Results::Host(&mut r),
            );
            (s, r[0])
        }),
    ));
    let c = x.clone();
    v.push((
        "dotc",
        Box::new(move |h| {
            let mut r = vec![Complex32::new(0.0, 0.0); batch];
            let s = blas1::dotc_strided_batched(
                h,
                n,
                &c.2,
                1,
                n,
                &c.2,
                1,
                n,
                batch,
                Results::Host(&mut r),
            );
            (s, r[0].re as f64)
        }),
    ));
    let lists: Vec<(DeviceBuffer<f64>, DeviceBuffer<f64>)> = (0..batch)
        .map(|b| {
            (
                dev.upload(&xs[b * n..(b + 1) * n]).unwrap(),
                dev.upload(&ys[b * n..(b + 1) * n]).unwrap(),
            )
        })
        .collect();
    v.push((
        "dot_batched",
        Box::new(move |h| {
            let xl: Vec<&DeviceBuffer<f64>> = lists.iter().map(|p| &p.0).collect();
            let yl: Vec<&DeviceBuffer<f64>> = lists.iter().map(|p| &p.1).collect();
            let mut r = vec![0.0; batch];
            let s = blas1::dot_batched(h, n, &xl, 1, &yl, 1, Results::Host(&mut r));
            (s, r[0])
        }),
    ));
    let c = x.clone();
    v.push((
        "iamax",
        Box::new(move |h| {
            let mut r = vec![0i64; batch];
            let s = blas1::iamax_strided_batched(h, n, &c.0, 1, n, batch, Results::Host(&mut r));
            (s, r[0] as f64)
        }),
    ));
    let c = x.clone();
    v.push((
        "iamin",
        Box::new(move |h| {
            let mut r = vec![0i64; batch];
            let s = blas1::iamin_strided_batched(h, n, &c.2, 1, n, batch, Results::Host(&mut r));
            (s, r[0] as f64)
        }),
    ));
    let c = x.clone();
    v.push((
        "dot_ex",
        Box::new(move |h| {
            let mut r = vec![0.0f64; batch];
            let s = blas1::dot_ex_strided_batched::<f32, f64>(
                h,
                n,
                &c.ex_view(),
                1,
                2 * n,
                &c.ex_view(),
                1,
                2 * n,
                batch,
                Results::Host(&mut r),
            );
            (s, r[0])
        }),
    ));
    v
}

/// Complex32 storage viewed as f32 pairs, for the ex routines.
trait AsF32 {
    fn ex_view(&self) -> DeviceBuffer<f32>;
}
impl AsF32
    for (
        DeviceBuffer<f64>,
        DeviceBuffer<f64>,
        DeviceBuffer<Complex32>,
    )
{
    fn ex_view(&self) -> DeviceBuffer<f32> {
        let v: Vec<f32> = self
            .2
            .to_vec()
            .unwrap()
            .iter()
            .flat_map(|c| [c.re, c.im])
            .collect();
        self.2.device().unwrap().upload(&v).unwrap()
    }
}

fn m06_small_fixed_workspace_degrades_with_the_same_answer(dev: &Device) {
    let n = (1 << 20) + 3;
    for (name, f) in every_routine(dev, n, 2) {
        let mut full = Handle::with_config(dev, &HandleConfig::default()).unwrap();
        let (st, want) = f(&mut full);
        assert_eq!(st.unwrap(), Status::Success, "{name}");
        // 1 KiB on a GPU; the host's plan is small enough to fit that, so it gets 128 bytes.
        let cap = if dev.backend() == gpublas::Backend::Host {
            128
        } else {
            1024
        };
        let mut small = Handle::with_config(
            dev,
            &HandleConfig {
                device_memory_size: Some(cap),
                ..Default::default()
            },
        )
        .unwrap();
        let (st, got) = f(&mut small);
        assert_eq!(st.unwrap(), Status::PerfDegraded, "{name}");
        check_close(name, got, want, want.abs(), 1e-5);
        assert_eq!(small.workspace_stats().degraded_calls, 1);
        assert_eq!(small.get_device_memory_size(), cap);
        // Not even the host results fit: MemoryError naming the numbers.
        let mut tiny = Handle::with_config(
            dev,
            &HandleConfig {
                device_memory_size: Some(0),
                ..Default::default()
            },
        )
        .unwrap();
        let _ = tiny
            .set_workspace(Some(dev.alloc::<u8>(8).unwrap()))
            .unwrap();
        let e = f(&mut tiny).0.unwrap_err();
        assert!(
            matches!(e, Error::MemoryError { available: 8, .. }),
            "{name}: {e}"
        );
    }
}

fn m09_query_then_preallocate_never_degrades(dev: &Device) {
    for &(n, batch) in &[(1usize, 1usize), (1025, 7), ((1 << 20) + 3, 1), (5000, 300)] {
        for (name, f) in every_routine(dev, n, batch) {
            let mut h = Handle::with_config(
                dev,
                &HandleConfig {
                    device_memory_size: Some(0),
                    ..Default::default()
                },
            )
            .unwrap();
            h.start_device_memory_size_query().unwrap();
            let (st, _) = f(&mut h);
            assert!(matches!(
                st.unwrap(),
                Status::SizeIncreased | Status::SizeUnchanged
            ));
            let size = h.stop_device_memory_size_query().unwrap();
            let _ = h.set_device_memory_size(size).unwrap();
            let (st, _) = f(&mut h);
            assert_eq!(
                st.unwrap(),
                Status::Success,
                "{name} n={n} batch={batch} size={size}"
            );
            assert_eq!(h.workspace_stats().memory_errors, 0);
        }
    }
}

fn f7_bad_arguments_are_errors_with_outputs_untouched(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let x = dev.upload(&random::<f64>(9, 10)).unwrap();
    let y = dev.upload(&random::<f64>(10, 10)).unwrap();
    let mut r = [-5.0f64; 3];
    let mut d = dev.upload(&[-5.0f64; 3]).unwrap();
    let untouched = |r: &[f64], d: &DeviceBuffer<f64>| {
        assert!(r.iter().all(|&v| v == -5.0));
        assert!(d.to_vec().unwrap().iter().all(|&v| v == -5.0));
    };
    // n and inc reach past the end: 4 elements at inc 3 need 10, 5 need 13.
    let e = blas1::asum(&mut h, 5, &x, 3, Results::Host(&mut r)).unwrap_err();
    assert!(
        matches!(e, Error::InvalidValue(_)) && e.to_string().contains("needs 13"),
        "{e}"
    );
    let e = blas1::dot(&mut h, 6, &x, 1, &y, -2, Results::Device(&mut d)).unwrap_err();
    assert!(
        e.to_string().contains("incy = -2") && e.to_string().contains("needs 11"),
        "{e}"
    );
    // A batch stride that runs the last vector past the buffer.
    let e = blas1::nrm2_strided_batched(&mut h, 4, &x, 1, 4, 3, Results::Host(&mut r)).unwrap_err();
    assert!(e.to_string().contains("needs 12"), "{e}");
    let e = blas1::dot_strided_batched(&mut h, 3, &x, 1, 3, &y, 1, 4, 3, Results::Host(&mut r))
        .unwrap_err();
    assert!(e.to_string().contains("stride_y = 4"), "{e}");
    // Placeholders outside a query.
    let p = DeviceBuffer::<f64>::placeholder(10);
    let e = blas1::iamax(&mut h, 10, &p, 1, Results::Host(&mut [0i64])).unwrap_err();
    assert!(
        matches!(e, Error::InvalidPointer(_)) && e.to_string().contains("placeholder"),
        "{e}"
    );
    let mut pr = DeviceBuffer::<f64>::placeholder(1);
    assert!(matches!(
        blas1::asum(&mut h, 3, &x, 1, Results::Device(&mut pr)),
        Err(Error::InvalidPointer(_))
    ));
    // Results too short, lists of different lengths, a list entry too short.
    let e = blas1::asum_strided_batched(&mut h, 2, &x, 1, 2, 5, Results::Host(&mut r)).unwrap_err();
    assert!(
        e.to_string().contains("hold 3 values") && e.to_string().contains("batch has 5"),
        "{e}"
    );
    let short = dev.upload(&[1.0f64; 2]).unwrap();
    let e =
        blas1::dot_batched(&mut h, 3, &[&x, &x], 1, &[&y], 1, Results::Host(&mut r)).unwrap_err();
    assert!(matches!(e, Error::InvalidSize(_)), "{e}");
    let e = blas1::asum_batched(&mut h, 3, &[&x, &short], 1, Results::Host(&mut r)).unwrap_err();
    assert!(e.to_string().contains("x[1] has 2 elements"), "{e}");
    // Overflowing sizes.
    let e = blas1::asum(&mut h, usize::MAX, &x, isize::MAX, Results::Host(&mut r)).unwrap_err();
    assert!(matches!(e, Error::InvalidSize(_)), "{e}");
    // A buffer of another device.
    let other = Device::host().upload(&[1.0f64; 10]).unwrap();
    assert!(matches!(
        blas1::asum(&mut h, 3, &other, 1, Results::Host(&mut r)),
        Err(Error::InvalidPointer(_))
    ));
    untouched(&r, &d);
    // Quick returns write zeros and nothing else.
    let mut r2 = [-5.0f64; 2];
    assert_eq!(
        blas1::asum(&mut h, 0, &x, 1, Results::Host(&mut r2[..1])).unwrap(),
        Status::Success
    );
    assert_eq!(r2, [0.0, -5.0]);
    let mut d2 = dev.upload(&[-5i64, -5]).unwrap();
    let _ = blas1::iamax(&mut h, 10, &x, -1, Results::Device(&mut d2)).unwrap();
    assert_eq!(d2.to_vec().unwrap(), vec![0, -5]);
    let _ = blas1::dot_strided_batched(&mut h, 3, &x, 1, 3, &y, 1, 3, 0, Results::Host(&mut []))
        .unwrap();
}

/// Each call sees the data uploaded just before it, even where the allocator hands back the
/// address of a buffer freed a moment ago (uploads must land before the handle's stream runs).
fn f1_fresh_uploads_are_what_the_next_call_reads(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let n = 1 << 20;
    for round in 0..24 {
        let v: Vec<f32> = (0..n)
            .map(|i| {
                if i == (round * 40_009) % n {
                    0.0
                } else {
                    1.0 + round as f32
                }
            })
            .collect();
        let x = dev.upload(&v).unwrap();
        let mut r = [-7i64];
        let _ = blas1::iamin(&mut h, n, &x, 1, Results::Host(&mut r)).unwrap();
        assert_eq!(r[0] as usize, (round * 40_009) % n + 1, "round {round}");
        let mut s = [0.0f64];
        let xd = dev
            .upload(&v.iter().map(|&a| a as f64).collect::<Vec<_>>())
            .unwrap();
        let _ = blas1::asum(&mut h, n, &xd, 1, Results::Host(&mut s)).unwrap();
        assert_eq!(s[0], (n - 1) as f64 * (1.0 + round as f64), "round {round}");
    }
}

on_both_backends!(
    f1_fresh_uploads_are_what_the_next_call_reads,
    f1_asum_nrm2_iamax_iamin_f32,
    f1_asum_nrm2_iamax_iamin_f64,
    f1_asum_nrm2_iamax_iamin_c32,
    f1_asum_nrm2_iamax_iamin_c64,
    f1_dot_dotc_f32,
    f1_dot_dotc_f64,
    f1_dot_dotc_c32,
    f1_dot_dotc_c64,
    f1_nrm2_extreme_values_neither_overflow_nor_underflow,
    f1_iamax_iamin_nan_and_ties,
    f1_ex_variants_half_bf16_f32,
    m06_small_fixed_workspace_degrades_with_the_same_answer,
    m09_query_then_preallocate_never_degrades,
    f7_bad_arguments_are_errors_with_outputs_untouched,
);
