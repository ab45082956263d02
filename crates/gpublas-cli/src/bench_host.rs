//! The host rows of `gpublas bench blas3`, `bench trsm` and `bench solver`: gpublas's host
//! backend beside faer called directly on the same values (the peer the host backend is
//! measured against). Median host-clock time per call; inputs restored outside the timed
//! region before every call.

use faer::linalg::cholesky::llt::factor::{cholesky_in_place, cholesky_in_place_scratch};
use faer::linalg::lu::partial_pivoting::factor::{lu_in_place, lu_in_place_scratch};
use faer::linalg::matmul::matmul;
use faer::linalg::triangular_solve::solve_lower_triangular_in_place;
use faer::{Accum, MatMut, MatRef, Par};
use gpublas::{
    blas3, solver, Coef, Device, Diag, Error, Handle, HandleConfig, Op, Results, Side, Uplo,
};
use serde_json::{json, Value};

use crate::bench::out;

/// Which table.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Which {
    Blas3,
    Trsm,
    Solver,
}

/// Median seconds of `ours(false)` and of `faer(false)` (one call each) over `reps` rounds that
/// alternate them, so a slow stretch of a shared machine costs both alike; `f(true)` restores
/// the inputs, untimed, before each call.
fn paired(
    reps: usize,
    mut ours: impl FnMut(bool) -> Result<(), Error>,
    mut faer: impl FnMut(bool) -> Result<(), Error>,
) -> Result<(f64, f64), Error> {
    let time = |f: &mut dyn FnMut(bool) -> Result<(), Error>| -> Result<f64, Error> {
        f(true)?;
        let s = std::time::Instant::now();
        f(false)?;
        Ok(s.elapsed().as_secs_f64())
    };
    // Warm-up: plans, workspace, faer's first touch.
    time(&mut ours)?;
    time(&mut faer)?;
    let (mut a, mut b) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
    for _ in 0..reps {
        a.push(time(&mut ours)?);
        b.push(time(&mut faer)?);
    }
    Ok((crate::bench::median(a), crate::bench::median(b)))
}

/// Random values in [-1, 1), and a diagonal that makes the matrix well conditioned (and, with
/// `spd`, symmetric positive definite).
fn matrix(n: usize, seed: u64, spd: bool) -> Vec<f64> {
    use rand::{Rng, SeedableRng};
    let mut r = rand::rngs::StdRng::seed_from_u64(seed);
    let mut a: Vec<f64> = (0..n * n).map(|_| r.gen_range(-1.0..1.0)).collect();
    if spd {
        for j in 0..n {
            for i in 0..j {
                a[i + j * n] = a[j + i * n];
            }
        }
    }
    for i in 0..n {
        a[i + i * n] += n as f64;
    }
    a
}

struct Row {
    op: &'static str,
    n: usize,
    flops: f64,
    ours: f64,
    faer: f64,
}

impl Row {
    fn print(&self) {
        let tf = |t: f64| self.flops / t / 1e9;
        out!(
            "{:8} {:>6} | {:10.3} {:9.1} | {:10.3} {:9.1} | {:6.3}",
            self.op,
            self.n,
            self.ours * 1e3,
            tf(self.ours),
            self.faer * 1e3,
            tf(self.faer),
            self.faer / self.ours
        );
    }

    fn json(&self) -> Value {
        json!({"bench": "host", "op": self.op, "type": "f64", "n": self.n, "flops": self.flops,
               "ours_s": self.ours, "faer_s": self.faer, "ratio": self.faer / self.ours})
    }
}

pub(crate) fn run(dev: &Device, which: Which, quick: bool) -> Result<Vec<Value>, Error> {
    let mut h = Handle::with_config(dev, &HandleConfig::default())?;
    let n = if quick { 512 } else { 2048 };
    let reps = if quick { 3 } else { 21 };
    let par = Par::rayon(0);
    out!(
        "host backend beside faer {} called directly on the same values ({} threads; f64; \
         median of {reps} calls, alternating with faer's; ratio = faer time / gpublas time)",
        "0.24",
        h.host_threads()
    );
    out!(
        "{:8} {:>6} | {:>10} {:>9} | {:>10} {:>9} | {:>6}",
        "op",
        "n",
        "gpublas ms",
        "GFLOP/s",
        "faer ms",
        "GFLOP/s",
        "ratio"
    );
    let nf = n as f64;
    let mut rows = Vec::new();
    let a0 = matrix(n, 1, which == Which::Solver);
    let b0 = matrix(n, 2, false);
    let a = dev.upload(&a0)?;
    let mut ours_in = dev.upload(&b0)?;
    let mut mine = a0.clone();
    let mut theirs = b0.clone();
    let mut push = |op, flops, ours, faer| {
        let r = Row {
            op,
            n,
            flops,
            ours,
            faer,
        };
        r.print();
        rows.push(r.json());
    };
    match which {
        Which::Blas3 => {
            let b = dev.upload(&b0)?;
            let ours_f = |reset: bool| {
                if reset {
                    return Ok(());
                }
                blas3::gemm(
                    &mut h,
                    Op::N,
                    Op::N,
                    n,
                    n,
                    n,
                    Coef::Host(1.0),
                    &a,
                    n,
                    &b,
                    n,
                    Coef::Host(0.0),
                    &mut ours_in,
                    n,
                )
                .map(drop)
            };
            let (am, bm) = (
                MatRef::from_column_major_slice(&a0, n, n),
                MatRef::from_column_major_slice(&b0, n, n),
            );
            let faer_f = |reset: bool| {
                if reset {
                    return Ok(());
                }
                matmul(
                    MatMut::from_column_major_slice_mut(&mut theirs, n, n),
                    Accum::Replace,
                    am,
                    bm,
                    1.0,
                    par,
                );
                Ok(())
            };
            let (ours, faer) = paired(reps, ours_f, faer_f)?;
            push("gemm NN", 2.0 * nf * nf * nf, ours, faer);
        }
        Which::Trsm => {
            let ours_f = |reset: bool| {
                if reset {
                    return ours_in.copy_from_host(&b0);
                }
                {
                    blas3::trsm(
                        &mut h,
                        Side::Left,
                        Uplo::Lower,
                        Op::N,
                        Diag::NonUnit,
                        n,
                        n,
                        Coef::Host(1.0),
                        &a,
                        n,
                        &mut ours_in,
                        n,
                    )
                    .map(drop)
                }
            };
            let am = MatRef::from_column_major_slice(&a0, n, n);
            let faer_f = |reset: bool| {
                if reset {
                    theirs.copy_from_slice(&b0);
                    return Ok(());
                }
                {
                    solve_lower_triangular_in_place(
                        am,
                        MatMut::from_column_major_slice_mut(&mut theirs, n, n),
                        par,
                    );
                    Ok(())
                }
            };
            let (ours, faer) = paired(reps, ours_f, faer_f)?;
            push("trsm LLNN", nf * nf * nf, ours, faer);
        }
        Which::Solver => {
            let mut fa = dev.upload(&a0)?;
            let mut ipiv = vec![0i32; n];
            let mut info = [0i32];
            let ours_f = |reset: bool| {
                if reset {
                    return fa.copy_from_host(&a0);
                }
                solver::getrf(
                    &mut h,
                    n,
                    n,
                    &mut fa,
                    n,
                    Results::Host(&mut ipiv),
                    Results::Host(&mut info),
                )
                .map(drop)
            };
            let mut perm = vec![0usize; n];
            let mut perm_inv = vec![0usize; n];
            let mut mem = faer::dyn_stack::MemBuffer::new(lu_in_place_scratch::<usize, f64>(
                n,
                n,
                par,
                Default::default(),
            ));
            let faer_f = |reset: bool| {
                if reset {
                    mine.copy_from_slice(&a0);
                    return Ok(());
                }
                {
                    let stack = faer::dyn_stack::MemStack::new(&mut mem);
                    lu_in_place(
                        MatMut::from_column_major_slice_mut(&mut mine, n, n),
                        &mut perm,
                        &mut perm_inv,
                        par,
                        stack,
                        Default::default(),
                    );
                    Ok(())
                }
            };
            let (ours, faer) = paired(reps, ours_f, faer_f)?;
            push("getrf", 2.0 * nf * nf * nf / 3.0, ours, faer);

            let ours_f = |reset: bool| {
                if reset {
                    return fa.copy_from_host(&a0);
                }
                solver::potrf(&mut h, Uplo::Lower, n, &mut fa, n, Results::Host(&mut info))
                    .map(drop)
            };
            let mut mem = faer::dyn_stack::MemBuffer::new(cholesky_in_place_scratch::<f64>(
                n,
                par,
                Default::default(),
            ));
            let faer_f = |reset: bool| {
                if reset {
                    mine.copy_from_slice(&a0);
                    return Ok(());
                }
                {
                    let stack = faer::dyn_stack::MemStack::new(&mut mem);
                    cholesky_in_place(
                        MatMut::from_column_major_slice_mut(&mut mine, n, n),
                        Default::default(),
                        par,
                        stack,
                        Default::default(),
                    )
                    .map(drop)
                    .map_err(|e| Error::InvalidValue(format!("faer cholesky: {e:?}")))
                }
            };
            let (ours, faer) = paired(reps, ours_f, faer_f)?;
            push("potrf L", nf * nf * nf / 3.0, ours, faer);
        }
    }
    Ok(rows)
}
