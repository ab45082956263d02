//! `gpublas tour`: what the library is for, section by section — the handle's memory modes, a
//! size query then exactly that workspace, Level 1 to 3, the solver, least squares, the
//! eigensolver and a group of devices — each checked against the answer it should give.

use gpublas::memory::HandleConfig;
use gpublas::{blas1, Device, DeviceBuffer, Error, Handle, Results};

/// Runs the tour on `dev`.
pub(crate) fn tour(dev: &Device) -> Result<(), Error> {
    println!("device: {}\n", dev.name());
    let n = 1 << 20;
    let data: Vec<f64> = (0..n).map(|i| ((i % 7) as f64 - 3.0) * 0.5).collect();
    let x = dev.upload(&data)?;
    let want: f64 = data.iter().map(|v| v.abs()).sum();
    let call = |h: &mut Handle, label: &str| -> Result<(), Error> {
        let mut r = [0.0f64];
        let st = blas1::asum(h, n, &x, 1, Results::Host(&mut r))?;
        println!(
            "  {label}: asum of {n} f64 = {} (expected {want}) -> {st:?}",
            r[0]
        );
        println!("  stats: {}", h.workspace_stats());
        Ok(())
    };
    println!("1. Managed (default): the library allocates 32 MiB at creation and grows on demand");
    let mut h = Handle::with_config(dev, &HandleConfig::default())?;
    call(&mut h, "call")?;

    println!("\n2. Size query, then UserManaged: preallocate exactly what the calls need");
    h.start_device_memory_size_query()?;
    let mut r = [0.0f64];
    let st = blas1::asum(
        &mut h,
        n,
        &DeviceBuffer::<f64>::placeholder(n),
        1,
        Results::Host(&mut r),
    )?;
    let need = h.stop_device_memory_size_query()?;
    println!("  query answered {st:?}: {need} bytes");
    let _ = h.set_device_memory_size(need)?;
    h.reset_workspace_stats();
    call(&mut h, "call")?;

    println!("\n3. UserManaged too small (128 bytes): a reduced-workspace algorithm, same answer");
    let _ = h.set_device_memory_size(128)?;
    call(&mut h, "call")?;

    println!("\n4. UserOwned: a buffer you allocated, lent to the handle and handed back");
    let _ = h.set_workspace(Some(dev.alloc::<u8>(1 << 16)?))?;
    call(&mut h, "call")?;
    let back = h.set_workspace(None)?;
    println!(
        "  handed back: {} bytes",
        back.map(|b| b.len()).unwrap_or(0)
    );

    println!("\n5. Stream-ordered allocation (Managed): leases come from the device's memory pool");
    match h.set_stream_order_alloc(true) {
        Ok(()) => call(&mut h, "call")?,
        Err(e) => println!("  not available: {e}"),
    }

    println!(
        "\n6. Errors carry the numbers: a 64-byte fixed workspace and host results for 100 vectors"
    );
    let mut small = Handle::with_config(
        dev,
        &HandleConfig {
            device_memory_size: Some(64),
            ..Default::default()
        },
    )?;
    let mut many = vec![0.0f64; 100];
    match blas1::asum_strided_batched(&mut small, 10, &x, 1, 10, 100, Results::Host(&mut many)) {
        Ok(st) => println!("  unexpectedly ran: {st:?}"),
        Err(e) => println!("  {e}"),
    }
    tour_level2(dev)
}

/// Level 2 in the tour: a skinny transposed gemv whose column dots are split over the
/// workspace, its query, and trsv undoing trmv with the same triangle.
fn tour_level2(dev: &Device) -> Result<(), Error> {
    use gpublas::{blas2, Diag, Op, Uplo};
    println!(
        "
7. Level 2: gemv with Aᵀ of a tall skinny matrix splits each column's dot over blocks"
    );
    let (m, n) = (1 << 18, 8);
    let a: Vec<f64> = (0..m * n).map(|i| ((i % 13) as f64 - 6.0) / 8.0).collect();
    let xs: Vec<f64> = (0..m).map(|i| ((i % 5) as f64 - 2.0) / 4.0).collect();
    let want: Vec<f64> = (0..n)
        .map(|j| (0..m).map(|i| a[i + j * m] * xs[i]).sum())
        .collect();
    let (ad, xd) = (dev.upload(&a)?, dev.upload(&xs)?);
    let mut h = Handle::with_config(
        dev,
        &HandleConfig {
            device_memory_size: Some(0),
            ..Default::default()
        },
    )?;
    h.start_device_memory_size_query()?;
    let _ = blas2::gemv(
        &mut h,
        Op::T,
        m,
        n,
        1.0.into(),
        &DeviceBuffer::placeholder(m * n),
        m,
        &DeviceBuffer::placeholder(m),
        1,
        0.0.into(),
        &mut DeviceBuffer::placeholder(n),
        1,
    )?;
    let need = h.stop_device_memory_size_query()?;
    let _ = h.set_device_memory_size(need)?;
    let mut y = dev.alloc::<f64>(n)?;
    let st = blas2::gemv(
        &mut h,
        Op::T,
        m,
        n,
        1.0.into(),
        &ad,
        m,
        &xd,
        1,
        0.0.into(),
        &mut y,
        1,
    )?;
    let got = y.to_vec()?;
    let err = got
        .iter()
        .zip(&want)
        .map(|(g, w)| (g - w).abs())
        .fold(0.0, f64::max);
    println!("  query: {need} bytes; call -> {st:?}; max |y - reference| = {err:.1e}");
    println!("  stats: {}", h.workspace_stats());

    println!(
        "
8. trmv then trsv with the same triangle gives x back (result array, then solve)"
    );
    let k = 1000;
    let tri: Vec<f64> = (0..k * k)
        .map(|i| {
            if i % k == i / k {
                2.0
            } else {
                ((i % 7) as f64 - 3.0) / (4.0 * k as f64)
            }
        })
        .collect();
    let td = dev.upload(&tri)?;
    let x0: Vec<f64> = (0..k).map(|i| (i % 9) as f64 - 4.0).collect();
    let mut xv = dev.upload(&x0)?;
    let s1 = blas2::trmv(
        &mut h,
        Uplo::Lower,
        Op::N,
        Diag::NonUnit,
        k,
        &td,
        k,
        &mut xv,
        1,
    )?;
    let s2 = blas2::trsv(
        &mut h,
        Uplo::Lower,
        Op::N,
        Diag::NonUnit,
        k,
        &td,
        k,
        &mut xv,
        1,
    )?;
    let back = xv.to_vec()?;
    let err = back
        .iter()
        .zip(&x0)
        .map(|(g, w)| (g - w).abs())
        .fold(0.0, f64::max);
    println!("  trmv -> {s1:?}, trsv -> {s2:?}; max |x - x0| = {err:.1e} (the fixed workspace was sized for the gemv)");
    tour_solver(dev)
}

/// Level 3 and the solver in the tour: a symmetric rank-k update and a Cholesky on a default
/// handle, then the rocSOLVER documents' own pattern last: one size query over an LU and its
/// solve, a workspace of exactly that size, the calls and their residual.
/// Least squares in the tour: `min ‖A x − b‖` for a tall `A` by `gels` (Householder QR,
/// `Qᵀ b`, then `R x = (Qᵀ b)[..n]`, one call), its size query first, then exactly that
/// workspace.
fn tour_least_squares(dev: &Device) -> Result<(), Error> {
    use gpublas::{solver, Op, Results};
    let (m, n) = (2000, 300);
    println!(
        "
10. Least squares by gels ({m} × {n}, Householder QR inside): a size query, then that workspace"
    );
    let a: Vec<f64> = (0..m * n)
        .map(|i| {
            (((i * 7919) % 1009) as f64 / 1009.0 - 0.5) + if i % m == i / m { 4.0 } else { 0.0 }
        })
        .collect();
    let b: Vec<f64> = (0..m)
        .map(|r| ((r * 31) % 17) as f64 / 17.0 - 0.5)
        .collect();
    let mut h = Handle::with_config(
        dev,
        &HandleConfig {
            device_memory_size: Some(0),
            ..Default::default()
        },
    )?;
    h.start_device_memory_size_query()?;
    let _ = solver::gels(
        &mut h,
        Op::N,
        m,
        n,
        1,
        &mut DeviceBuffer::<f64>::placeholder(m * n),
        m,
        &mut DeviceBuffer::placeholder(m),
        m,
        Results::Host(&mut [0]),
    )?;
    let need = h.stop_device_memory_size_query()?;
    let _ = h.set_device_memory_size(need)?;
    let (mut ad, mut bd) = (dev.upload(&a)?, dev.upload(&b)?);
    let mut info = [0i32];
    let st = solver::gels(
        &mut h,
        Op::N,
        m,
        n,
        1,
        &mut ad,
        m,
        &mut bd,
        m,
        Results::Host(&mut info),
    )?;
    let x = &bd.to_vec()?[..n];
    // The normal equations: Aᵀ (A x − b) = 0 up to rounding, relative to ‖A‖² ‖x‖.
    let r: Vec<f64> = (0..m)
        .map(|i| (0..n).map(|j| a[i + j * m] * x[j]).sum::<f64>() - b[i])
        .collect();
    let (mut worst, mut norm_a2) = (0.0f64, 0.0f64);
    for j in 0..n {
        let col = &a[j * m..(j + 1) * m];
        worst = worst.max(col.iter().zip(&r).map(|(u, v)| u * v).sum::<f64>().abs());
        norm_a2 += col.iter().map(|v| v * v).sum::<f64>();
    }
    let xn = x.iter().map(|v| v * v).sum::<f64>().sqrt();
    println!(
        "  query: {need} bytes; gels -> {st:?} (info {}); max |Aᵀ(Ax − b)| / (‖A‖² ‖x‖) = {:.1e}",
        info[0],
        worst / (norm_a2 * xn)
    );
    println!("  stats: {}", h.workspace_stats());
    Ok(())
}

fn tour_eig(dev: &Device) -> Result<(), Error> {
    use gpublas::{solver, Evect, Results, Uplo};
    let n = 500;
    println!(
        "
12. Eigenvalues and eigenvectors by syevd (n = {n}; on a GPU the two-stage reduction): a size
    query, then that workspace"
    );
    let a: Vec<f64> = (0..n * n)
        .map(|x| {
            let (i, j) = (x % n, x / n);
            let (i, j) = (i.max(j), i.min(j));
            ((i * 7919 + j * 104_729) % 1009) as f64 / 1009.0 - 0.5
        })
        .collect();
    let mut h = Handle::with_config(
        dev,
        &HandleConfig {
            device_memory_size: Some(0),
            ..Default::default()
        },
    )?;
    h.start_device_memory_size_query()?;
    let _ = solver::syevd(
        &mut h,
        Evect::Original,
        Uplo::Lower,
        n,
        &mut DeviceBuffer::<f64>::placeholder(n * n),
        n,
        &mut DeviceBuffer::placeholder(n),
        Results::Host(&mut [0]),
    )?;
    let need = h.stop_device_memory_size_query()?;
    let _ = h.set_device_memory_size(need)?;
    let (mut ad, mut wd) = (dev.upload(&a)?, dev.upload(&vec![0.0f64; n])?);
    let mut info = [0i32];
    let st = solver::syevd(
        &mut h,
        Evect::Original,
        Uplo::Lower,
        n,
        &mut ad,
        n,
        &mut wd,
        Results::Host(&mut info),
    )?;
    let (z, w) = (ad.to_vec()?, wd.to_vec()?);
    // max over the eigenpairs of ‖A z − λ z‖ / (‖A‖ ‖z‖), ‖A‖ by its largest row sum.
    let norm_a = (0..n)
        .map(|i| (0..n).map(|j| a[i + j * n].abs()).sum::<f64>())
        .fold(0.0, f64::max);
    let mut worst = 0.0f64;
    for (k, &lam) in w.iter().enumerate() {
        let zk = &z[k * n..(k + 1) * n];
        let r = (0..n)
            .map(|i| (0..n).map(|j| a[i + j * n] * zk[j]).sum::<f64>() - lam * zk[i])
            .fold(0.0f64, |m, v| m.max(v.abs()));
        worst = worst.max(r / norm_a);
    }
    println!(
        "  query: {need} bytes; syevd -> {st:?} (info {}); λ from {:.4} to {:.4}, ascending: {}; \
         max ‖Az − λz‖ / ‖A‖ = {worst:.1e}",
        info[0],
        w[0],
        w[n - 1],
        w.windows(2).all(|p| p[0] <= p[1])
    );
    println!("  stats: {}", h.workspace_stats());
    Ok(())
}

fn tour_solver(dev: &Device) -> Result<(), Error> {
    use gpublas::{blas3, solver, Op, Results, Uplo};
    let mut h = Handle::with_config(dev, &HandleConfig::default())?;
    let mut info = [0i32];
    println!(
        "
9. Level 3 and Cholesky: C = AᵀA + I by syrk, then potrf"
    );
    let k = 256;
    let m = 512;
    let g: Vec<f64> = (0..m * k).map(|i| ((i % 17) as f64 - 8.0) / 17.0).collect();
    let gd = dev.upload(&g)?;
    let eye: Vec<f64> = (0..k * k)
        .map(|i| if i % k == i / k { 1.0 } else { 0.0 })
        .collect();
    let mut cd = dev.upload(&eye)?;
    let s3 = blas3::syrk(
        &mut h,
        Uplo::Lower,
        Op::T,
        k,
        m,
        1.0.into(),
        &gd,
        m,
        1.0.into(),
        &mut cd,
        k,
    )?;
    let s4 = solver::potrf(&mut h, Uplo::Lower, k, &mut cd, k, Results::Host(&mut info))?;
    let l = cd.to_vec()?;
    // L Lᵀ against AᵀA + I on the diagonal: a cheap residual.
    let mut err: f64 = 0.0;
    for j in 0..k {
        let llt: f64 = (0..=j).map(|p| l[j + p * k] * l[j + p * k]).sum();
        let want: f64 = 1.0 + (0..m).map(|r| g[r + j * m] * g[r + j * m]).sum::<f64>();
        err = err.max((llt - want).abs() / want);
    }
    println!(
        "  syrk -> {s3:?}, potrf -> {s4:?} (info {}); max relative |diag(LLᵀ) - diag(C)| = {err:.1e}",
        info[0]
    );
    println!("  stats: {}", h.workspace_stats());
    tour_least_squares(dev)?;
    let n = 1024;
    println!(
        "
11. Solver: one size query over getrf + getrs (order {n}), then exactly that workspace"
    );
    // A diagonally dominant matrix, so the LU is well conditioned; b = A · ones.
    let a: Vec<f64> = (0..n * n)
        .map(|i| {
            let (r, c) = (i % n, i / n);
            if r == c {
                n as f64
            } else {
                ((r * 7 + c * 3) % 11) as f64 / 11.0 - 0.5
            }
        })
        .collect();
    let b: Vec<f64> = (0..n).map(|r| (0..n).map(|c| a[r + c * n]).sum()).collect();
    let mut h = Handle::with_config(
        dev,
        &HandleConfig {
            device_memory_size: Some(0),
            ..Default::default()
        },
    )?;
    h.start_device_memory_size_query()?;
    let (mut pa, mut pp) = (
        DeviceBuffer::<f64>::placeholder(n * n),
        DeviceBuffer::placeholder(n),
    );
    let mut info = [0i32];
    let _ = solver::getrf(
        &mut h,
        n,
        n,
        &mut pa,
        n,
        Results::Device(&mut pp),
        Results::Host(&mut info),
    )?;
    let _ = solver::getrs(
        &mut h,
        Op::N,
        n,
        1,
        &pa,
        n,
        &pp,
        &mut DeviceBuffer::placeholder(n),
        n,
    )?;
    let need = h.stop_device_memory_size_query()?;
    let _ = h.set_device_memory_size(need)?;
    let (mut ad, mut bd, mut piv) = (dev.upload(&a)?, dev.upload(&b)?, dev.alloc::<i32>(n)?);
    let s1 = solver::getrf(
        &mut h,
        n,
        n,
        &mut ad,
        n,
        Results::Device(&mut piv),
        Results::Host(&mut info),
    )?;
    let s2 = solver::getrs(&mut h, Op::N, n, 1, &ad, n, &piv, &mut bd, n)?;
    let err = bd
        .to_vec()?
        .iter()
        .map(|x| (x - 1.0).abs())
        .fold(0.0, f64::max);
    println!(
        "  query: {need} bytes; getrf -> {s1:?} (info {}), getrs -> {s2:?}; max |x - 1| = {err:.1e}",
        info[0]
    );
    println!("  stats: {}", h.workspace_stats());

    tour_eig(dev)?;
    tour_multi(dev)
}

fn tour_multi(dev: &Device) -> Result<(), Error> {
    use gpublas::multi::{self, DeviceGroup, DistMatrix};
    use gpublas::{Backend, Uplo};
    let n = 1024;
    // Every GPU of the machine, or two handles sharing the one GPU, or two host devices.
    let devices: Vec<Device> = match dev.backend() {
        Backend::Host => vec![Device::host(), Device::host()],
        Backend::Cuda if Device::cuda_device_count() >= 2 => (0..Device::cuda_device_count())
            .map(Device::cuda)
            .collect::<Result<_, _>>()?,
        Backend::Cuda => vec![dev.clone(), dev.clone()],
    };
    let mut group = DeviceGroup::new(&devices)?;
    println!(
        "
13. Several devices: a group of {} handles (grid {} x {}, tiles moved {:?}); potrf + potrs
    of an SPD system of order {n} dealt over them in tiles of 128, each device's scratch from
    its own handle (size query per device)",
        group.len(),
        group.grid().rows,
        group.grid().cols,
        group.transport()
    );
    // A symmetric matrix made positive definite by its diagonal; b = A · 1.
    let a: Vec<f64> = (0..n * n)
        .map(|x| {
            let (i, j) = (x % n, x / n);
            let off = ((i.max(j) * 7919 + i.min(j) * 104_729) % 1009) as f64 / 1009.0 - 0.5;
            if i == j {
                n as f64
            } else {
                off
            }
        })
        .collect();
    let b: Vec<f64> = (0..n).map(|i| (0..n).map(|j| a[i + j * n]).sum()).collect();
    let mut da = DistMatrix::from_host(&mut group, n, n, 128, &a, n)?;
    let mut db = DistMatrix::from_host(&mut group, n, 1, 128, &b, n)?;
    group.start_device_memory_size_query()?;
    let _ = multi::potrf(&mut group, Uplo::Lower, &mut da)?;
    let _ = multi::potrs(&mut group, Uplo::Lower, &da, &mut db)?;
    let needs = group.stop_device_memory_size_query()?;
    let f = multi::potrf(&mut group, Uplo::Lower, &mut da)?;
    let st = multi::potrs(&mut group, Uplo::Lower, &da, &mut db)?;
    let err = db
        .to_host(&mut group)?
        .iter()
        .map(|x| (x - 1.0).abs())
        .fold(0.0, f64::max);
    println!(
        "  query: {needs:?} bytes per device; potrf -> {:?} (info {}), potrs -> {st:?}; \
         max |x - 1| = {err:.1e}",
        f.status, f.info
    );
    for r in 0..group.len() {
        println!("  device {r} stats: {}", group.handle(r).workspace_stats());
    }
    Ok(())
}
