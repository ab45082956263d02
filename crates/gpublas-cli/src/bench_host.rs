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

/// Median seconds of `f(false)` (one call) over `reps` calls; `f(true)` restores the inputs,
/// untimed, before each.
fn median_time(reps: usize, mut f: impl FnMut(bool) -> Result<(), Error>) -> Result<f64, Error> {
    f(true)?;
    f(false)?; // warm-up: plans, workspace, faer's first touch
    let mut t: Vec<f64> = Vec::with_capacity(reps);
    for _ in 0..reps {
        f(true)?;
        let s = std::time::Instant::now();
        f(false)?;
        t.push(s.elapsed().as_secs_f64());
    }
    Ok(crate::bench::median(t))
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
    let reps = if quick { 3 } else { 11 };
    let par = Par::rayon(0);
    out!(
        "host backend beside faer {} called directly on the same values ({} threads; f64; \
         median of {reps} calls; ratio = faer time / gpublas time)",
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
            let ours = median_time(reps, |reset| {
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
            })?;
            let (am, bm) = (
                MatRef::from_column_major_slice(&a0, n, n),
                MatRef::from_column_major_slice(&b0, n, n),
            );
            let faer = median_time(reps, |reset| {
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
            })?;
            push("gemm NN", 2.0 * nf * nf * nf, ours, faer);
        }
        Which::Trsm => {
            let ours = median_time(reps, |reset| {
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
            })?;
            let am = MatRef::from_column_major_slice(&a0, n, n);
            let faer = median_time(reps, |reset| {
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
            })?;
            push("trsm LLNN", nf * nf * nf, ours, faer);
        }
        Which::Solver => {
            let mut fa = dev.upload(&a0)?;
            let mut ipiv = vec![0i32; n];
            let mut info = [0i32];
            let ours = median_time(reps, |reset| {
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
            })?;
            let mut perm = vec![0usize; n];
            let mut perm_inv = vec![0usize; n];
            let mut mem = faer::dyn_stack::MemBuffer::new(lu_in_place_scratch::<usize, f64>(
                n,
                n,
                par,
                Default::default(),
            ));
            let faer = median_time(reps, |reset| {
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
            })?;
            push("getrf", 2.0 * nf * nf * nf / 3.0, ours, faer);

            let ours = median_time(reps, |reset| {
                if reset {
                    return fa.copy_from_host(&a0);
                }
                solver::potrf(&mut h, Uplo::Lower, n, &mut fa, n, Results::Host(&mut info))
                    .map(drop)
            })?;
            let mut mem = faer::dyn_stack::MemBuffer::new(cholesky_in_place_scratch::<f64>(
                n,
                par,
                Default::default(),
            ));
            let faer = median_time(reps, |reset| {
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
            })?;
            push("potrf L", nf * nf * nf / 3.0, ours, faer);
        }
    }
    Ok(rows)
}
