//! The rows of the LAPACK drivers in `bench solver`: `getri` (the inverse from `getrf`'s
//! factors), `gesv` (getrf + getrs in one call) and `posv` (potrf + potrs in one call), each
//! f64 against the cuSOLVER routines that do the same work (cuSOLVER has no getri, gesv or
//! posv of its own in its dense API), in the same process, on the same stream and data.

use super::*;

/// The status of two gpublas calls timed as one: `PerfDegraded` where either ran degraded.
fn both(first: Status, second: Status) -> Status {
    if first == Status::PerfDegraded {
        first
    } else {
        second
    }
}

/// The inverse of one random f64 `n × n` matrix from the matrix itself (flops 2n³: getrf's
/// 2n³/3 and getri's 4n³/3): gpublas `getrf` then `getri` (one timed unit) against
/// `cusolverDnDgetrf` then `cusolverDnDgetrs` with `B` the identity (the inverse lands in
/// `B`; the pristine identity is copied back before every call, outside the timed region).
/// The inverses and the pivots are compared. Workspace: one gpublas size query over getrf and
/// getri (the larger need), beside `cusolverDnDgetrf_bufferSize` (getrs takes none).
pub(super) fn getri_part(b: &mut Bench<'_>, n: usize, target: f64) -> Result<(), Error> {
    let l = elems(n, n)?;
    // A and the identity, each with its pristine copy, plus room for the workspaces.
    fits(b.dev, "getrf+getri f64", bytes::<f64>(l.saturating_mul(4))?)?;
    let mut w = {
        let host = general::<f64>(n, n, 7000 + n as u64)?;
        Work::new(b.dev, &host, n, 1)?.with_b(b.dev, &identity(n)?)?
    };
    let lwork = b.s.getrf_buffer_size::<f64>(n, n, &w.a, n);
    let TheirWork {
        bytes: their_ws,
        buf: mut work,
    } = their_work::<f64>(b.dev, &lwork)?;
    // getrs's `info` (0, or a bad argument) apart, so that it leaves getrf's in `w.info`.
    let mut solve_info = b.dev.alloc::<i32>(1)?;
    let nf = n as f64;
    let spec = Spec {
        group: "getri",
        op: "getrf+getri".into(),
        ty: f64::NAME,
        shape: format!("n={n}"),
        flops: 2.0 * nf * nf * nf,
        target,
        reps: reps_for(b.quick, n),
        tol: f64::GETRF_TOL,
        rows: n,
        cols: n,
        part: Part::All,
        pivots: true,
        info: true,
    };
    let missing = no_work(&their_ws);
    let theirs = Reference::new(
        "cusolverDnDgetrf+getrs(I)",
        their_ws,
        move |s, _, w: &mut Work<f64>| {
            let Some(work) = work.as_mut() else {
                return Err(missing.clone());
            };
            let (a, x, piv, info) = w.split()?;
            s.getrf(n, n, a, n, work, piv, info)?;
            s.getrs(Op::N, n, n, a, n, piv, x, n, &mut solve_info)
        },
    )
    .result_in_b();
    b.row(
        spec,
        &mut w,
        |h| {
            let mut a = DeviceBuffer::<f64>::placeholder(l);
            let mut p = DeviceBuffer::<i32>::placeholder(n);
            let mut i = DeviceBuffer::<i32>::placeholder(1);
            let _: Status = solver::getrf(
                h,
                n,
                n,
                &mut a,
                n,
                Results::Device(&mut p),
                Results::Device(&mut i),
            )?;
            solver::getri(h, n, &mut a, n, &p, Results::Device(&mut i))
        },
        |h, w| {
            let first = solver::getrf(
                h,
                n,
                n,
                &mut w.a,
                n,
                Results::Device(&mut w.piv),
                Results::Device(&mut w.info),
            )?;
            let second = solver::getri(h, n, &mut w.a, n, &w.piv, Results::Device(&mut w.info))?;
            Ok(both(first, second))
        },
        vec![theirs],
    );
    Ok(())
}

/// getri alone: the f64 inverse of order `n` from cuSOLVER's LU factors and pivots of the
/// matrix of [`getri_part`] (factored once here, not timed; flops 4n³/3), gpublas `getri`
/// against `cusolverDnDgetrs` with `B` the identity; before every call the factors (gpublas
/// overwrites them) and the identity are copied back, outside the timed region.
pub(super) fn getri_alone_part(b: &mut Bench<'_>, n: usize) -> Result<(), Error> {
    let l = elems(n, n)?;
    fits(b.dev, "getri f64", bytes::<f64>(l.saturating_mul(4))?)?;
    let mut w = {
        let host = general::<f64>(n, n, 7000 + n as u64)?;
        Work::new(b.dev, &host, 1, 1)?.with_b(b.dev, &identity(n)?)?
    };
    // The pristine copy becomes the factors; the pivots stay out of `w` (poisoned there).
    let mut piv = b.dev.alloc::<i32>(n.max(1))?;
    {
        let lwork = b.s.getrf_buffer_size::<f64>(n, n, &w.a0, n)?;
        let mut work = b.dev.alloc::<f64>(lwork.max(1))?;
        let mut info = b.dev.alloc::<i32>(1)?;
        b.s.getrf(n, n, &mut w.a0, n, &mut work, &mut piv, &mut info)?;
        let i = info.to_vec()?;
        if nonzero(&i) > 0 {
            out!("getri: cusolverDnDgetrf of the matrix returned info {i:?}");
        }
    }
    let nf = n as f64;
    let spec = Spec {
        group: "getri",
        op: "getri".into(),
        ty: f64::NAME,
        shape: format!("n={n}"),
        flops: 4.0 * nf * nf * nf / 3.0,
        target: 1.0,
        reps: reps_for(b.quick, n),
        tol: f64::GETRF_TOL,
        rows: n,
        cols: n,
        part: Part::All,
        pivots: false,
        info: true,
    };
    let piv = &piv;
    let theirs = Reference::new(
        "cusolverDnDgetrs(I)",
        Ok(None),
        move |s, _, w: &mut Work<f64>| {
            let (lu, x, _, info) = w.split()?;
            s.getrs(Op::N, n, n, lu, n, piv, x, n, info)
        },
    )
    .result_in_b();
    b.row(
        spec,
        &mut w,
        |h| {
            let mut a = DeviceBuffer::<f64>::placeholder(l);
            let p = DeviceBuffer::<i32>::placeholder(n);
            let mut i = DeviceBuffer::<i32>::placeholder(1);
            solver::getri(h, n, &mut a, n, &p, Results::Device(&mut i))
        },
        |h, w| solver::getri(h, n, &mut w.a, n, piv, Results::Device(&mut w.info)),
        vec![theirs],
    );
    Ok(())
}

/// gesv: f64 `A X = B` for one random `n × n` matrix and `nrhs` random right-hand sides
/// (flops 2n³/3 + 2n²·nrhs), gpublas `gesv` against `cusolverDnDgetrf` then
/// `cusolverDnDgetrs`; `A` and `B` are copied back before every call, outside the timed region.
/// The factors, the pivots and the solution are compared.
pub(super) fn gesv_part(b: &mut Bench<'_>, n: usize, nrhs: usize) -> Result<(), Error> {
    let l = elems(n, n)?;
    let lb = elems(n, nrhs)?;
    fits(
        b.dev,
        "gesv f64",
        bytes::<f64>(l.saturating_add(lb).saturating_mul(2))?,
    )?;
    let mut w = {
        let host = general::<f64>(n, n, 8000 + n as u64)?;
        let rhs = general::<f64>(n, nrhs, 8100 + nrhs as u64)?;
        Work::new(b.dev, &host, n, 1)?.with_b(b.dev, &rhs)?
    };
    let lwork = b.s.getrf_buffer_size::<f64>(n, n, &w.a, n);
    let TheirWork {
        bytes: their_ws,
        buf: mut work,
    } = their_work::<f64>(b.dev, &lwork)?;
    let mut solve_info = b.dev.alloc::<i32>(1)?;
    let nf = n as f64;
    let spec = Spec {
        group: "gesv",
        op: "gesv".into(),
        ty: f64::NAME,
        shape: format!("n={n} nrhs={nrhs}"),
        flops: 2.0 * nf * nf * nf / 3.0 + 2.0 * nf * nf * nrhs as f64,
        target: 1.0,
        reps: reps_for(b.quick, n),
        tol: f64::GETRF_TOL,
        rows: n,
        cols: n,
        part: Part::All,
        pivots: true,
        info: true,
    };
    let missing = no_work(&their_ws);
    let theirs = Reference::new(
        "cusolverDnDgetrf+getrs",
        their_ws,
        move |s, _, w: &mut Work<f64>| {
            let Some(work) = work.as_mut() else {
                return Err(missing.clone());
            };
            let (a, x, piv, info) = w.split()?;
            s.getrf(n, n, a, n, work, piv, info)?;
            s.getrs(Op::N, n, nrhs, a, n, piv, x, n, &mut solve_info)
        },
    );
    b.row(
        spec,
        &mut w,
        |h| {
            let mut a = DeviceBuffer::<f64>::placeholder(l);
            let mut p = DeviceBuffer::<i32>::placeholder(n);
            let mut x = DeviceBuffer::<f64>::placeholder(lb);
            let mut i = DeviceBuffer::<i32>::placeholder(1);
            solver::gesv(
                h,
                n,
                nrhs,
                &mut a,
                n,
                &mut p,
                &mut x,
                n,
                Results::Device(&mut i),
            )
        },
        |h, w| {
            let (a, x, piv, info) = w.split()?;
            solver::gesv(h, n, nrhs, a, n, piv, x, n, Results::Device(info))
        },
        vec![theirs],
    );
    Ok(())
}

/// posv: f64 `A X = B` for one SPD `n × n` matrix (lower) and `nrhs` random right-hand sides
/// (flops n³/3 + 2n²·nrhs), gpublas `posv` against `cusolverDnDpotrf` then
/// `cusolverDnDpotrs`; `A` and `B` are copied back before every call, outside the timed region.
/// The factor's triangle and the solution are compared.
pub(super) fn posv_part(b: &mut Bench<'_>, n: usize, nrhs: usize) -> Result<(), Error> {
    let l = elems(n, n)?;
    let lb = elems(n, nrhs)?;
    fits(
        b.dev,
        "posv f64",
        bytes::<f64>(l.saturating_add(lb).saturating_mul(2))?,
    )?;
    let uplo = Uplo::Lower;
    let mut w = {
        let host = spd(n, 1, 9000 + n as u64)?;
        let rhs = general::<f64>(n, nrhs, 9100 + nrhs as u64)?;
        Work::new(b.dev, &host, 1, 1)?.with_b(b.dev, &rhs)?
    };
    let lwork = b.s.potrf_buffer_size::<f64>(uplo, n, &w.a, n);
    let TheirWork {
        bytes: their_ws,
        buf: mut work,
    } = their_work::<f64>(b.dev, &lwork)?;
    let mut solve_info = b.dev.alloc::<i32>(1)?;
    let nf = n as f64;
    let spec = Spec {
        group: "posv",
        op: "posv L".into(),
        ty: f64::NAME,
        shape: format!("n={n} nrhs={nrhs}"),
        flops: nf * nf * nf / 3.0 + 2.0 * nf * nf * nrhs as f64,
        target: 1.0,
        reps: reps_for(b.quick, n),
        tol: 1e-8,
        rows: n,
        cols: n,
        part: Part::Lower,
        pivots: false,
        info: true,
    };
    let missing = no_work(&their_ws);
    let theirs = Reference::new(
        "cusolverDnDpotrf+potrs",
        their_ws,
        move |s, _, w: &mut Work<f64>| {
            let Some(work) = work.as_mut() else {
                return Err(missing.clone());
            };
            let (a, x, _, info) = w.split()?;
            s.potrf(uplo, n, a, n, work, info)?;
            s.potrs(uplo, n, nrhs, a, n, x, n, &mut solve_info)
        },
    );
    b.row(
        spec,
        &mut w,
        |h| {
            let mut a = DeviceBuffer::<f64>::placeholder(l);
            let mut x = DeviceBuffer::<f64>::placeholder(lb);
            let mut i = DeviceBuffer::<i32>::placeholder(1);
            solver::posv(
                h,
                uplo,
                n,
                nrhs,
                &mut a,
                n,
                &mut x,
                n,
                Results::Device(&mut i),
            )
        },
        |h, w| {
            let (a, x, _, info) = w.split()?;
            solver::posv(h, uplo, n, nrhs, a, n, x, n, Results::Device(info))
        },
        vec![theirs],
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_degraded_part_makes_the_pair_degraded() {
        use Status::{PerfDegraded, Success};
        assert_eq!(both(Success, Success), Success);
        assert_eq!(both(PerfDegraded, Success), PerfDegraded);
        assert_eq!(both(Success, PerfDegraded), PerfDegraded);
    }
}
