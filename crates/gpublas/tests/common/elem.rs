//! The element types seen from the test side: built from and read as `(re, im)` in f64,
//! independently of gpublas, plus the fill values tests surround operands with.

use super::complex::C;
use gpublas::{bf16, f16, Complex32, Complex64, Element};

/// Test-side view of an element: built from and read as (re, im), independently of gpublas.
pub trait El: Element + std::fmt::Debug {
    const CPLX: bool;
    /// Machine epsilon of the type.
    const EPS: f64;
    const NAME: &'static str;
    fn make(re: f64, im: f64) -> Self;
    fn get(&self) -> C;
    /// A NaN with a payload no arithmetic produces: what may be neither read (it would spread)
    /// nor written (the bits would change).
    fn pnan() -> Self;
}

pub const F16_PNAN: u16 = 0x7e5a;
pub const F32_PNAN: u32 = 0x7fc0_5a5a;
pub const F64_PNAN: u64 = 0x7ff8_5a5a_5a5a_5a5a;

impl El for f16 {
    const CPLX: bool = false;
    const EPS: f64 = 1.0 / 1024.0;
    const NAME: &'static str = "f16";
    fn make(re: f64, _: f64) -> Self {
        f16::from_f64(re)
    }
    fn get(&self) -> C {
        (self.to_f64(), 0.0)
    }
    fn pnan() -> Self {
        f16::from_bits(F16_PNAN)
    }
}
impl El for bf16 {
    const CPLX: bool = false;
    const EPS: f64 = 1.0 / 128.0;
    const NAME: &'static str = "bf16";
    fn make(re: f64, _: f64) -> Self {
        bf16::from_f64(re)
    }
    fn get(&self) -> C {
        (self.to_f64(), 0.0)
    }
    fn pnan() -> Self {
        bf16::from_bits(F16_PNAN)
    }
}
impl El for f32 {
    const CPLX: bool = false;
    const EPS: f64 = f32::EPSILON as f64;
    const NAME: &'static str = "f32";
    fn make(re: f64, _: f64) -> Self {
        re as f32
    }
    fn get(&self) -> C {
        (*self as f64, 0.0)
    }
    fn pnan() -> Self {
        f32::from_bits(F32_PNAN)
    }
}
impl El for f64 {
    const CPLX: bool = false;
    const EPS: f64 = f64::EPSILON;
    const NAME: &'static str = "f64";
    fn make(re: f64, _: f64) -> Self {
        re
    }
    fn get(&self) -> C {
        (*self, 0.0)
    }
    fn pnan() -> Self {
        f64::from_bits(F64_PNAN)
    }
}
impl El for Complex32 {
    const CPLX: bool = true;
    const EPS: f64 = f32::EPSILON as f64;
    const NAME: &'static str = "c32";
    fn make(re: f64, im: f64) -> Self {
        Complex32::new(re as f32, im as f32)
    }
    fn get(&self) -> C {
        (self.re as f64, self.im as f64)
    }
    fn pnan() -> Self {
        Complex32::new(f32::from_bits(F32_PNAN), f32::from_bits(F32_PNAN))
    }
}
impl El for Complex64 {
    const CPLX: bool = true;
    const EPS: f64 = f64::EPSILON;
    const NAME: &'static str = "c64";
    fn make(re: f64, im: f64) -> Self {
        Complex64::new(re, im)
    }
    fn get(&self) -> C {
        (self.re, self.im)
    }
    fn pnan() -> Self {
        Complex64::new(f64::from_bits(F64_PNAN), f64::from_bits(F64_PNAN))
    }
}

pub fn nan<E: El>() -> E {
    E::make(f64::NAN, f64::NAN)
}

/// What output padding and gaps hold: finite, so that any write (of `beta * gap` too) shows.
pub fn poison<E: El>() -> E {
    E::make(-777.25, 333.5)
}

/// Bit-identical (NaN payloads included).
pub fn same<E: El>(a: E, b: E) -> bool {
    bytemuck::bytes_of(&a) == bytemuck::bytes_of(&b)
}

/// `x` rounded to the element type, back in f64.
pub fn round_to<E: El>(x: C) -> C {
    E::make(x.0, x.1).get()
}

/// A seeded SplitMix64 generator: deterministic, and fast in debug builds (the suites draw
/// tens of millions of values).
#[derive(Clone)]
pub struct Gen(u64);

impl Gen {
    pub fn new(seed: u64) -> Gen {
        Gen(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x2545_f491_4f6c_dd1d)
    }
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [-1, 1).
    pub fn uni(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (2.0 / (1u64 << 53) as f64) - 1.0
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}
