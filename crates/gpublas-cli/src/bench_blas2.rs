//! `gpublas bench blas2`: Level 2 (gemv, symv, hemv, trmv, trsv, strided-batched gemv; the band
//! and packed products and solves and the rank updates in `rest`) and the Level-1 updates
//! (axpy, scal, copy, swap) against cuBLAS, in one process on the same data.
//!
//! Both libraries run on the handle's stream with their scalars in device memory and their
//! results written to device memory, so neither synchronises the host; each row is the median
//! of event-timed batches of back-to-back calls. In-place routines (trmv, trsv) get their `x`
//! restored from a host copy before every batch, outside the timed region, and use a
//! triangle with unit diagonal and off-diagonal entries of size about 1/n, so repeated calls
//! stay finite. A row whose call fails (a CUDA path not built yet, a missing library, not
//! enough memory) prints the error and the run goes on.

use gpublas::{
    blas1, blas2, Backend, Coef, Complex32, Complex64, ComplexScalar, Device, DeviceBuffer, Diag,
    Error, Handle, HandleConfig, Op, Scalar, Status, Uplo,
};
use serde_json::{json, Value};

use crate::bench::{cublas, out, time_steps, Cublas, Step};

/// The read bandwidth the TB/s columns are measured against: what a streaming read reaches on
/// an H100 SXM (HBM3), an assumption printed in the header, not a measurement of this run.
const CEILING_TBS: f64 = 3.07;

#[cfg(feature = "cublas")]
use gpublas_peers::cublas::CublasScalar as CbScalar;
/// Without cuBLAS every element type qualifies (no cuBLAS call is ever made).
#[cfg(not(feature = "cublas"))]
trait CbScalar {}
#[cfg(not(feature = "cublas"))]
impl<T> CbScalar for T {}

/// A small fast generator (splitmix64): gigabytes of inputs are generated on the host.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform magnitude in [0.25, 1) with a random sign: never zero.
    fn val(&mut self) -> f64 {
        let r = self.next();
        let v = 0.25 + 0.75 * ((r >> 11) as f64 / (1u64 << 53) as f64);
        if r & 1 == 0 {
            v
        } else {
            -v
        }
    }
}

/// The element types of the comparison.
trait Elem: Scalar + CbScalar {
    const NAME: &'static str;
    /// A value from real and imaginary parts (the imaginary part is dropped for reals).
    fn make(re: f64, im: f64) -> Self;
    fn rand(r: &mut Rng) -> Self;
    /// `|re| + |im|`.
    fn abs1(self) -> f64;
    /// Relative differences above this are reported as a disagreement.
    const TOL: f64;
}

macro_rules! real_elem {
    ($t:ty, $name:literal, $tol:expr) => {
        impl Elem for $t {
            const NAME: &'static str = $name;
            fn make(re: f64, _: f64) -> Self {
                re as $t
            }
            fn rand(r: &mut Rng) -> Self {
                r.val() as $t
            }
            fn abs1(self) -> f64 {
                self.abs() as f64
            }
            const TOL: f64 = $tol;
        }
    };
}
real_elem!(f32, "f32", 1e-3);
real_elem!(f64, "f64", 1e-9);

macro_rules! complex_elem {
    ($t:ty, $r:ty, $name:literal, $tol:expr) => {
        impl Elem for $t {
            const NAME: &'static str = $name;
            fn make(re: f64, im: f64) -> Self {
                <$t>::new(re as $r, im as $r)
            }
            fn rand(r: &mut Rng) -> Self {
                <$t>::new(r.val() as $r, r.val() as $r)
            }
            fn abs1(self) -> f64 {
                (self.re.abs() + self.im.abs()) as f64
            }
            const TOL: f64 = $tol;
        }
    };
}
complex_elem!(Complex32, f32, "c32", 1e-3);
complex_elem!(Complex64, f64, "c64", 1e-9);

fn host_random<T: Elem>(len: usize, seed: u64) -> Vec<T> {
    let mut r = Rng(seed);
    (0..len).map(|_| T::rand(&mut r)).collect()
}

fn random<T: Elem>(dev: &Device, len: usize, seed: u64) -> Result<DeviceBuffer<T>, Error> {
    dev.upload(&host_random::<T>(len, seed))
}

/// An `n × n` matrix (both triangles filled) with unit diagonal and off-diagonal entries of
/// magnitude below 1/n: triangular products and solves with it stay close to `x`.
fn triangle<T: Elem>(dev: &Device, n: usize, seed: u64) -> Result<DeviceBuffer<T>, Error> {
    let mut r = Rng(seed);
    let s = 1.0 / n as f64;
    let mut v = Vec::with_capacity(n * n);
    for j in 0..n {
        for i in 0..n {
            v.push(if i == j {
                T::make(1.0, 0.0)
            } else {
                T::make(r.val() * s, r.val() * s)
            });
        }
    }
    dev.upload(&v)
}

fn scalar<T: Elem>(dev: &Device, v: f64) -> Result<DeviceBuffer<T>, Error> {
    dev.upload(&[T::make(v, 0.0)])
}

/// `Error::MemoryError` when a group's buffers would not fit in the GPU's free memory.
fn fits(dev: &Device, what: &str, bytes: usize) -> Result<(), Error> {
    if dev.backend() != Backend::Cuda {
        return Ok(());
    }
    let free = dev.free_memory()?;
    let margin = 512 << 20;
    if bytes.saturating_add(margin) > free {
        return Err(Error::MemoryError {
            needed: bytes,
            available: free,
            detail: format!("{what} skipped (keeps {margin} bytes spare)"),
        });
    }
    Ok(())
}

fn elems(a: usize, b: usize) -> Result<usize, Error> {
    a.checked_mul(b)
        .ok_or_else(|| Error::InvalidSize(format!("{a} x {b} elements overflow")))
}

fn letter(op: Op) -> &'static str {
    match op {
        Op::N => "N",
        Op::T => "T",
        Op::C => "C",
    }
}

fn tri_letter(uplo: Uplo) -> &'static str {
    match uplo {
        Uplo::Upper => "U",
        Uplo::Lower => "L",
    }
}

/// The vectors of a row: `x` (restored from `x0` before every timed batch when given) and
/// `y`.
struct Vecs<T> {
    x: DeviceBuffer<T>,
    y: DeviceBuffer<T>,
    x0: Option<Vec<T>>,
}

impl<T: Elem> Vecs<T> {
    fn reset(&mut self) -> Result<(), Error> {
        match &self.x0 {
            Some(x0) => self.x.copy_from_host(x0),
            None => Ok(()),
        }
    }

    /// The contents of both vectors.
    fn save(&self) -> Result<(Vec<T>, Vec<T>), Error> {
        Ok((self.x.to_vec()?, self.y.to_vec()?))
    }

    fn restore(&mut self, s: &(Vec<T>, Vec<T>)) -> Result<(), Error> {
        self.x.copy_from_host(&s.0)?;
        self.y.copy_from_host(&s.1)
    }

    /// The vectors a row's routine writes.
    fn outputs(&self, out: Out) -> Result<Vec<T>, Error> {
        Ok(match out {
            Out::X => self.x.to_vec()?,
            Out::Y => self.y.to_vec()?,
            Out::XY => [self.x.to_vec()?, self.y.to_vec()?].concat(),
        })
    }
}

/// Which vectors a routine writes (compared between gpublas and cuBLAS).
#[derive(Clone, Copy)]
enum Out {
    X,
    Y,
    XY,
}

/// `max |a - b| / max |b|` (NaN when a difference is NaN or the lengths differ).
fn rel_diff<T: Elem>(a: &[T], b: &[T]) -> f64 {
    if a.len() != b.len() {
        return f64::NAN;
    }
    let (mut d, mut m) = (0.0f64, 0.0f64);
    for (&p, &q) in a.iter().zip(b) {
        let e = (p - q).abs1();
        if e.is_nan() {
            // f64::max drops NaN: report it instead.
            return f64::NAN;
        }
        d = d.max(e);
        m = m.max(q.abs1());
    }
    if m > 0.0 {
        d / m
    } else {
        d
    }
}

/// The cuBLAS side of a row: `theirs!(T, |c, v| c.gemv(...))` builds the closure where cuBLAS
/// is built, and a closure that cannot be called (no `Cublas` exists) where it is not.
macro_rules! theirs {
    ($t:ty, |$c:ident, $v:ident| $body:expr) => {{
        #[cfg(feature = "cublas")]
        let f = |$c: &Cublas, $v: &mut Vecs<$t>| -> Result<(), Error> { $body };
        #[cfg(not(feature = "cublas"))]
        let f = |c: &Cublas, _: &mut Vecs<$t>| -> Result<(), Error> { match *c {} };
        f
    }};
}

// After `theirs!`, which the module's rows use.
mod rest;

/// A size query of one call: the workspace bytes it needs.
fn size_query(
    h: &mut Handle,
    call: impl FnOnce(&mut Handle) -> Result<Status, Error>,
) -> Result<usize, Error> {
    h.start_device_memory_size_query()?;
    let r = call(h);
    let need = h.stop_device_memory_size_query();
    let _: Status = r?;
    need
}

struct Row {
    op: String,
    ty: &'static str,
    shape: String,
    bytes: f64,
    ws: Result<usize, Error>,
    ours: Result<f64, Error>,
    status: Status,
    /// `None`: no cuBLAS in this run.
    theirs: Option<Result<f64, Error>>,
    /// One call of each from the same inputs: `max |ours - theirs| / max |theirs|` of the
    /// outputs (`None`: no cuBLAS).
    diff: Option<Result<f64, Error>>,
    /// Relative differences above this are reported.
    tol: f64,
}

impl Row {
    fn tbs(&self, t: f64) -> f64 {
        self.bytes / t / 1e12
    }

    fn print(&self) {
        let ws = match &self.ws {
            Ok(b) => format!("{b:>10}"),
            Err(_) => format!("{:>10}", "error"),
        };
        let ours = match &self.ours {
            Ok(t) => format!(
                "{:10.2} {:7.3} {:5.0}%",
                t * 1e6,
                self.tbs(*t),
                100.0 * self.tbs(*t) / CEILING_TBS
            ),
            Err(_) => format!("{:>10} {:>7} {:>6}", "error", "", ""),
        };
        let theirs = match &self.theirs {
            Some(Ok(t)) => format!("{:10.2} {:7.3}", t * 1e6, self.tbs(*t)),
            Some(Err(_)) => format!("{:>10} {:>7}", "error", ""),
            None => format!("{:>10} {:>7}", "n/a", "n/a"),
        };
        let speedup = match self.speedup() {
            Some(s) => format!("{s:6.2}x"),
            None => format!("{:>7}", "n/a"),
        };
        let diff = match &self.diff {
            Some(Ok(d)) => format!("{d:8.1e}"),
            Some(Err(_)) => format!("{:>8}", "error"),
            None => format!("{:>8}", "n/a"),
        };
        out!(
            "{:10} {:4} {:>17} {} | {} | {} | {} {}",
            self.op,
            self.ty,
            self.shape,
            ws,
            ours,
            theirs,
            speedup,
            diff
        );
        if self.status != Status::Success {
            out!("    gpublas returned {:?}", self.status);
        }
        if let Some(Ok(d)) = &self.diff {
            if d.is_nan() || *d > self.tol {
                out!(
                    "    gpublas and cuBLAS DISAGREE: relative difference {d:.2e} > {:.0e}",
                    self.tol
                );
            }
        }
        for (who, e) in [
            ("workspace query", self.ws.as_ref().err()),
            ("gpublas", self.ours.as_ref().err()),
            (
                "cuBLAS",
                self.theirs.as_ref().and_then(|t| t.as_ref().err()),
            ),
            (
                "comparison",
                self.diff.as_ref().and_then(|t| t.as_ref().err()),
            ),
        ] {
            if let Some(e) = e {
                out!("    {who}: {e}");
            }
        }
    }

    fn speedup(&self) -> Option<f64> {
        match (&self.ours, &self.theirs) {
            (Ok(o), Some(Ok(t))) => Some(t / o),
            _ => None,
        }
    }

    fn json(&self) -> Value {
        let err = |r: Option<&Error>| r.map(|e| e.to_string());
        json!({
            "bench": "blas2", "op": self.op, "type": self.ty, "shape": self.shape,
            "bytes": self.bytes, "ceiling_tbs": CEILING_TBS,
            "ws_bytes": self.ws.as_ref().ok(), "ws_error": err(self.ws.as_ref().err()),
            "ours_s": self.ours.as_ref().ok(), "ours_tbs": self.ours.as_ref().ok().map(|t| self.tbs(*t)),
            "ours_status": format!("{:?}", self.status), "ours_error": err(self.ours.as_ref().err()),
            "cublas_s": self.theirs.as_ref().and_then(|t| t.as_ref().ok()),
            "cublas_tbs": self.theirs.as_ref().and_then(|t| t.as_ref().ok()).map(|t| self.tbs(*t)),
            "cublas_error": err(self.theirs.as_ref().and_then(|t| t.as_ref().err())),
            "speedup": self.speedup(),
            "max_rel_diff": self.diff.as_ref().and_then(|t| t.as_ref().ok()),
            "diff_error": err(self.diff.as_ref().and_then(|t| t.as_ref().err())),
            "diff_tol": self.tol,
        })
    }
}

/// One run: the gpublas handle, cuBLAS on its stream, the timing, the rows so far.
struct Bench<'d> {
    /// Declared before `h`: the cuBLAS handle goes before the stream it works on.
    c: Option<Cublas>,
    h: Handle,
    dev: &'d Device,
    reps: usize,
    inner: usize,
    /// Run only the groups whose name contains this.
    only: Option<String>,
    rows: Vec<Value>,
}

impl Bench<'_> {
    /// Times `ours` and `theirs` on the same vectors, with a size query of `ours` for the
    /// workspace column and (with cuBLAS) one call of each from the same inputs to compare
    /// their `out` vectors; prints the row (errors included) and keeps its JSON.
    #[allow(clippy::too_many_arguments)]
    fn row<T: Elem>(
        &mut self,
        op: &str,
        shape: String,
        bytes: f64,
        v: &mut Vecs<T>,
        out: Out,
        mut ours: impl FnMut(&mut Handle, &mut Vecs<T>) -> Result<Status, Error>,
        mut theirs: impl FnMut(&Cublas, &mut Vecs<T>) -> Result<(), Error>,
    ) {
        let ws = size_query(&mut self.h, |h| ours(h, v));
        let h = &mut self.h;
        let diff = self.c.as_ref().map(|c| -> Result<f64, Error> {
            let saved = v.save()?;
            let r = ours(h, v).and_then(|_| v.outputs(out));
            v.restore(&saved)?;
            let a = r?;
            let r = theirs(c, v).and_then(|_| v.outputs(out));
            v.restore(&saved)?;
            Ok(rel_diff(&a, &r?))
        });
        let stream = self.h.stream().clone();
        let (reps, inner) = (self.reps, self.inner);
        let h = &mut self.h;
        let mut status = Status::Success;
        let t_ours = time_steps(&stream, reps, inner, |s| match s {
            Step::Reset => v.reset(),
            Step::Call(_) => ours(h, v).map(|st| status = st),
        });
        let t_theirs = match &self.c {
            Some(c) => Some(time_steps(&stream, reps, inner, |s| match s {
                Step::Reset => v.reset(),
                Step::Call(_) => theirs(c, v),
            })),
            // On the host the peer is the machine's read bandwidth for the same bytes.
            None if self.dev.backend() == gpublas::Backend::Host => {
                Some(Ok(crate::probe::host_read_probe(bytes, reps)))
            }
            None => None,
        };
        let row = Row {
            op: op.to_string(),
            ty: T::NAME,
            shape,
            bytes,
            ws,
            ours: t_ours,
            status,
            theirs: t_theirs,
            diff,
            tol: T::TOL,
        };
        row.print();
        self.rows.push(row.json());
    }

    /// Runs one group of rows; an error setting it up (allocation, upload) skips the group.
    fn group(&mut self, name: &str, f: impl FnOnce(&mut Self) -> Result<(), Error>) {
        if self.only.as_deref().is_some_and(|o| !name.contains(o)) {
            return;
        }
        if let Err(e) = f(self) {
            out!("{name}: not run: {e}");
            self.rows
                .push(json!({"bench": "blas2", "group": name, "error": e.to_string()}));
        }
    }
}

/// Which routines a square group runs.
#[derive(Clone, Copy)]
struct Parts {
    gemv: bool,
    symv: bool,
    trmv: bool,
    trsv: bool,
}

/// gemv (N, T), symv (U, L), trmv (L; N, T) and trsv (L N, U T) at order `n`.
fn square<T: Elem>(b: &mut Bench<'_>, n: usize, p: Parts) -> Result<(), Error> {
    let dev = b.dev;
    let es = std::mem::size_of::<T>();
    let nn = elems(n, n)?;
    let (dense, tri) = (p.gemv || p.symv, p.trmv || p.trsv);
    fits(
        dev,
        &format!("{} n = {n}", T::NAME),
        elems(nn, es)?.saturating_mul(dense as usize + tri as usize),
    )?;
    let (alpha, beta) = (scalar::<T>(dev, 1.5)?, scalar::<T>(dev, 0.5)?);
    let shape = format!("{n}x{n}");
    let (nf, ef) = (n as f64, es as f64);
    let stored = nf * (nf + 1.0) / 2.0;
    if dense {
        // GPUBLAS_BENCH_LDA_PAD=k pads gemv's leading dimension by k elements (to study how
        // the column stride affects bandwidth); unset, lda = n.
        let pad: usize = std::env::var("GPUBLAS_BENCH_LDA_PAD")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let lda = n + pad;
        let a = random::<T>(dev, elems(lda, n)?, 1)?;
        let mut v = Vecs {
            x: random(dev, n, 2)?,
            y: random(dev, n, 3)?,
            x0: None,
        };
        // A read, x read, y read (beta != 0) and written.
        let gemv_ops: &[Op] = if p.gemv { &[Op::N, Op::T] } else { &[] };
        for &op in gemv_ops {
            b.row(
                &format!("gemv {}", letter(op)),
                if pad > 0 {
                    format!("{shape} lda+{pad}")
                } else {
                    shape.clone()
                },
                ef * (nf * nf + 3.0 * nf),
                &mut v,
                Out::Y,
                |h, v| {
                    blas2::gemv(
                        h,
                        op,
                        n,
                        n,
                        Coef::Device(&alpha),
                        &a,
                        lda,
                        &v.x,
                        1,
                        Coef::Device(&beta),
                        &mut v.y,
                        1,
                    )
                },
                theirs!(T, |c, v| c
                    .gemv(op, n, n, &alpha, &a, lda, &v.x, 1, &beta, &mut v.y, 1)),
            );
        }
        let symv_uplos: &[Uplo] = if p.symv {
            &[Uplo::Upper, Uplo::Lower]
        } else {
            &[]
        };
        for &uplo in symv_uplos {
            b.row(
                &format!("symv {}", tri_letter(uplo)),
                shape.clone(),
                ef * (stored + 3.0 * nf),
                &mut v,
                Out::Y,
                |h, v| {
                    blas2::symv(
                        h,
                        uplo,
                        n,
                        Coef::Device(&alpha),
                        &a,
                        n,
                        &v.x,
                        1,
                        Coef::Device(&beta),
                        &mut v.y,
                        1,
                    )
                },
                theirs!(T, |c, v| c
                    .symv(uplo, n, &alpha, &a, n, &v.x, 1, &beta, &mut v.y, 1)),
            );
        }
    }
    if tri {
        let a = triangle::<T>(dev, n, 4)?;
        let x0 = host_random::<T>(n, 5);
        let mut v = Vecs {
            x: dev.upload(&x0)?,
            y: dev.alloc(1)?,
            x0: Some(x0),
        };
        // The stored triangle read, x read and written.
        let bytes = ef * (stored + 2.0 * nf);
        let mut cases = Vec::new();
        if p.trmv {
            cases.extend([(false, Uplo::Lower, Op::N), (false, Uplo::Lower, Op::T)]);
        }
        if p.trsv {
            cases.extend([(true, Uplo::Lower, Op::N), (true, Uplo::Upper, Op::T)]);
        }
        for (solve, uplo, op) in cases {
            let name = format!(
                "{} {} {}",
                if solve { "trsv" } else { "trmv" },
                tri_letter(uplo),
                letter(op)
            );
            let d = Diag::NonUnit;
            b.row(
                &name,
                shape.clone(),
                bytes,
                &mut v,
                Out::X,
                |h, v| {
                    if solve {
                        blas2::trsv(h, uplo, op, d, n, &a, n, &mut v.x, 1)
                    } else {
                        blas2::trmv(h, uplo, op, d, n, &a, n, &mut v.x, 1)
                    }
                },
                theirs!(T, |c, v| if solve {
                    c.trsv(uplo, op, d, n, &a, n, &mut v.x, 1)
                } else {
                    c.trmv(uplo, op, d, n, &a, n, &mut v.x, 1)
                }),
            );
        }
    }
    Ok(())
}

/// hemv (U, L) at order `n`.
fn hermitian<T: Elem + ComplexScalar>(b: &mut Bench<'_>, n: usize) -> Result<(), Error> {
    let dev = b.dev;
    let es = std::mem::size_of::<T>();
    let nn = elems(n, n)?;
    fits(dev, &format!("hemv {} n = {n}", T::NAME), elems(nn, es)?)?;
    let (alpha, beta) = (scalar::<T>(dev, 1.5)?, scalar::<T>(dev, 0.5)?);
    let a = random::<T>(dev, nn, 11)?;
    let mut v = Vecs {
        x: random(dev, n, 12)?,
        y: random(dev, n, 13)?,
        x0: None,
    };
    let (nf, ef) = (n as f64, es as f64);
    for uplo in [Uplo::Upper, Uplo::Lower] {
        b.row(
            &format!("hemv {}", tri_letter(uplo)),
            format!("{n}x{n}"),
            ef * (nf * (nf + 1.0) / 2.0 + 3.0 * nf),
            &mut v,
            Out::Y,
            |h, v| {
                blas2::hemv(
                    h,
                    uplo,
                    n,
                    Coef::Device(&alpha),
                    &a,
                    n,
                    &v.x,
                    1,
                    Coef::Device(&beta),
                    &mut v.y,
                    1,
                )
            },
            theirs!(T, |c, v| c
                .hemv(uplo, n, &alpha, &a, n, &v.x, 1, &beta, &mut v.y, 1)),
        );
    }
    Ok(())
}

/// f32 gemv of skinny matrices: `tall × few` transposed, `few × wide` both ways (one buffer of
/// `tall * few` elements serves both shapes).
fn skinny(b: &mut Bench<'_>, tall: usize, few: usize) -> Result<(), Error> {
    let dev = b.dev;
    let len = elems(tall, few)?;
    fits(dev, "skinny gemv", elems(len, 4)?)?;
    let (alpha, beta) = (scalar::<f32>(dev, 1.5)?, scalar::<f32>(dev, 0.5)?);
    let a = random::<f32>(dev, len, 21)?;
    let mut v = Vecs {
        x: random(dev, tall, 22)?,
        y: random(dev, tall, 23)?,
        x0: None,
    };
    for (op, m, n) in [(Op::T, tall, few), (Op::N, few, tall), (Op::T, few, tall)] {
        let (lx, ly) = if op == Op::N { (n, m) } else { (m, n) };
        b.row(
            &format!("gemv {}", letter(op)),
            format!("{m}x{n}"),
            4.0 * ((m * n) as f64 + lx as f64 + 2.0 * ly as f64),
            &mut v,
            Out::Y,
            |h, v| {
                blas2::gemv(
                    h,
                    op,
                    m,
                    n,
                    Coef::Device(&alpha),
                    &a,
                    m,
                    &v.x,
                    1,
                    Coef::Device(&beta),
                    &mut v.y,
                    1,
                )
            },
            theirs!(f32, |c, v| c
                .gemv(op, m, n, &alpha, &a, m, &v.x, 1, &beta, &mut v.y, 1)),
        );
    }
    Ok(())
}

/// f32 strided-batched gemv of `batch` square `n × n` matrices, N and T.
fn batched(b: &mut Bench<'_>, batch: usize, n: usize) -> Result<(), Error> {
    let dev = b.dev;
    let sa = elems(n, n)?;
    let len = elems(batch, sa)?;
    fits(dev, "strided-batched gemv", elems(len, 4)?)?;
    let (alpha, beta) = (scalar::<f32>(dev, 1.5)?, scalar::<f32>(dev, 0.5)?);
    let a = random::<f32>(dev, len, 31)?;
    let mut v = Vecs {
        x: random(dev, elems(batch, n)?, 32)?,
        y: random(dev, elems(batch, n)?, 33)?,
        x0: None,
    };
    let nf = n as f64;
    for op in [Op::N, Op::T] {
        b.row(
            &format!("gemv_sb {}", letter(op)),
            format!("{batch} x {n}x{n}"),
            4.0 * batch as f64 * (nf * nf + 3.0 * nf),
            &mut v,
            Out::Y,
            |h, v| {
                blas2::gemv_strided_batched(
                    h,
                    op,
                    n,
                    n,
                    Coef::Device(&alpha),
                    &a,
                    n,
                    sa,
                    &v.x,
                    1,
                    n,
                    Coef::Device(&beta),
                    &mut v.y,
                    1,
                    n,
                    batch,
                )
            },
            theirs!(f32, |c, v| c.gemv_strided_batched(
                op, n, n, &alpha, &a, n, sa, &v.x, 1, n, &beta, &mut v.y, 1, n, batch
            )),
        );
    }
    Ok(())
}

/// axpy, scal, copy, swap over `n` elements.
fn updates<T: Elem>(b: &mut Bench<'_>, n: usize) -> Result<(), Error> {
    let dev = b.dev;
    let es = std::mem::size_of::<T>();
    fits(
        dev,
        &format!("Level-1 updates {}", T::NAME),
        elems(n, 2 * es)?,
    )?;
    // axpy's alpha; scal's is close to 1 so hundreds of calls neither overflow nor underflow.
    let (alpha, s) = (scalar::<T>(dev, 1.5)?, scalar::<T>(dev, 0.999)?);
    let mut v = Vecs {
        x: random(dev, n, 41)?,
        y: random(dev, n, 42)?,
        x0: None,
    };
    let shape = format!("n={n}");
    let bytes = |k: f64| k * (n * es) as f64;
    b.row(
        "axpy",
        shape.clone(),
        bytes(3.0),
        &mut v,
        Out::Y,
        |h, v| blas1::axpy(h, n, Coef::Device(&alpha), &v.x, 1, &mut v.y, 1),
        theirs!(T, |c, v| c.axpy(n, &alpha, &v.x, 1, &mut v.y, 1)),
    );
    b.row(
        "scal",
        shape.clone(),
        bytes(2.0),
        &mut v,
        Out::X,
        |h, v| blas1::scal(h, n, Coef::Device(&s), &mut v.x, 1),
        theirs!(T, |c, v| c.scal(n, &s, &mut v.x, 1)),
    );
    b.row(
        "copy",
        shape.clone(),
        bytes(2.0),
        &mut v,
        Out::Y,
        |h, v| blas1::copy(h, n, &v.x, 1, &mut v.y, 1),
        theirs!(T, |c, v| c.copy(n, &v.x, 1, &mut v.y, 1)),
    );
    b.row(
        "swap",
        shape,
        bytes(4.0),
        &mut v,
        Out::XY,
        |h, v| blas1::swap(h, n, &mut v.x, 1, &mut v.y, 1),
        theirs!(T, |c, v| c.swap(n, &mut v.x, 1, &mut v.y, 1)),
    );
    Ok(())
}

/// `gpublas bench blas2`: prints the table, returns the JSON rows.
pub fn run(dev: &Device, quick: bool, only: Option<&str>) -> Result<Vec<Value>, Error> {
    let h = Handle::with_config(dev, &HandleConfig::default())?;
    let c = if dev.backend() == Backend::Cuda {
        cublas(h.stream())
    } else {
        None
    };
    let (reps, inner) = if quick { (3, 2) } else { (21, 5) };
    let mut b = Bench {
        c,
        h,
        dev,
        reps,
        inner,
        only: only.map(str::to_string),
        rows: Vec::new(),
    };
    out!(
        "Level 2 and Level-1 updates on {} (median of {reps} event-timed batches of {inner} calls)",
        dev.name()
    );
    out!(
        "bytes = matrix read (stored triangle only, n(n+1)/2, for symv/hemv/trmv/trsv) + vectors \
         read + outputs written (y twice: beta = 0.5); alpha = 1.5; scalars in device memory"
    );
    out!(
        "ceiling assumption: {CEILING_TBS} TB/s read bandwidth (H100 SXM); %ceil = gpublas TB/s / \
         ceiling; speedup = cuBLAS time / gpublas time; ws bytes = a size query of the call; \
         rel diff = max |gpublas - cuBLAS| / max |cuBLAS| after one call of each from the same inputs"
    );
    if dev.backend() == Backend::Host {
        out!(
            "host: {} threads; the cuBLAS columns hold a read-bandwidth probe instead (every thread \
             summing a buffer of the same bytes), so speedup = gpublas bandwidth / the machine's",
            b.h.host_threads()
        );
    }
    out!(
        "{:10} {:4} {:>17} {:>10} | {:>10} {:>7} {:>6} | {:>10} {:>7} | {:>7} {:>8}",
        "op",
        "type",
        "shape",
        "ws bytes",
        "gpublas us",
        "TB/s",
        "%ceil",
        "cuBLAS us",
        "TB/s",
        "speedup",
        "rel diff"
    );
    // GPUBLAS_BENCH_N overrides the order of the square groups (to study size effects).
    let big = std::env::var("GPUBLAS_BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if quick { 2048 } else { 16384 });
    let all = Parts {
        gemv: true,
        symv: true,
        trmv: true,
        trsv: false,
    };
    b.group("square f32", |b| square::<f32>(b, big, all));
    b.group("square f64", |b| {
        square::<f64>(b, big, Parts { trsv: true, ..all })
    });
    let solve_only = Parts {
        gemv: false,
        symv: false,
        trmv: false,
        trsv: true,
    };
    b.group("trsv f64", |b| {
        square::<f64>(b, if quick { 512 } else { 4096 }, solve_only)
    });
    let (tall, few) = (if quick { 1 << 16 } else { 4_194_304 }, 32);
    b.group("skinny gemv f32", |b| skinny(b, tall, few));
    b.group("hemv c32", |b| hermitian::<Complex32>(b, big));
    b.group("hemv c64", |b| hermitian::<Complex64>(b, big));
    let batches: [(usize, usize); 2] = if quick {
        [(1000, 64), (10_000, 16)]
    } else {
        [(10_000, 64), (100_000, 16)]
    };
    for (batch, n) in batches {
        b.group(&format!("strided-batched gemv {batch} x {n}x{n}"), |b| {
            batched(b, batch, n)
        });
    }
    // The rest of Level 2: band width 64 (kl = ku = k = 64) as the issue states it.
    let k = 64;
    b.group("band f32", |b| rest::band_products::<f32>(b, big, k));
    b.group("band f64", |b| rest::band_products::<f64>(b, big, k));
    b.group("band c64", |b| rest::band_products::<Complex64>(b, big, k));
    b.group("band solves f32", |b| rest::band_solves::<f32>(b, big, k));
    b.group("band solves f64", |b| rest::band_solves::<f64>(b, big, k));
    b.group("rank updates f32", |b| rest::rank_updates::<f32>(b, big));
    b.group("rank updates f64", |b| rest::rank_updates::<f64>(b, big));
    b.group("hermitian rest c64", |b| {
        rest::hermitian_rest(b, big / 2, k)
    });
    let vn = if quick { 1 << 20 } else { 1 << 28 };
    b.group("updates f32", |b| updates::<f32>(b, vn));
    b.group("updates f64", |b| updates::<f64>(b, vn));
    let s = b.h.workspace_stats();
    out!("gpublas handle workspace: {s}");
    b.rows.push(json!({
        "bench": "blas2", "what": "workspace stats", "mode": format!("{:?}", s.mode),
        "capacity": s.capacity, "peak_leased": s.peak_leased, "leases": s.leases,
        "growths": s.growths, "stream_ordered_allocs": s.stream_ordered_allocs,
        "degraded_calls": s.degraded_calls, "memory_errors": s.memory_errors, "queries": s.queries,
    }));
    Ok(b.rows)
}
