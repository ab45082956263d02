//! Complex arithmetic in f64, as `(re, im)` pairs: what the references compute in,
//! independently of gpublas's own complex types.

/// A complex value of the references.
pub type C = (f64, f64);

pub const ZERO: C = (0.0, 0.0);
pub const ONE: C = (1.0, 0.0);

pub fn cmul(a: C, b: C) -> C {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}
pub fn cadd(a: C, b: C) -> C {
    (a.0 + b.0, a.1 + b.1)
}
pub fn csub(a: C, b: C) -> C {
    (a.0 - b.0, a.1 - b.1)
}
pub fn conj(a: C) -> C {
    (a.0, -a.1)
}
/// `a / b` as `a conj(b) / |b|²` (the same bits as the expanded form: `x + (-y)` is `x - y`).
pub fn cdiv(a: C, b: C) -> C {
    let d = b.0 * b.0 + b.1 * b.1;
    let p = cmul(a, conj(b));
    (p.0 / d, p.1 / d)
}
/// |re| + |im|: the magnitude error bounds and norms are taken of (|a b| ≤ mag(a) mag(b)), and
/// the one LAPACK's pivot search (`i?amax`) uses.
pub fn mag(a: C) -> f64 {
    a.0.abs() + a.1.abs()
}
pub fn finite(a: C) -> bool {
    a.0.is_finite() && a.1.is_finite()
}
