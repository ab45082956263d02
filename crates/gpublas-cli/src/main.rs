//! `gpublas`: device information, workspace queries, a tour of the memory model, benchmarks.

mod bench;
mod bench_blas2;
mod bench_blas3;
mod bench_eig;
mod bench_host;
mod bench_multi;
mod bench_qr;
mod bench_solver;
mod bench_transfer;
mod bench_trsm;
// The multi-device bench uses its generator and selection without cuBLAS.
#[cfg_attr(not(feature = "cublas"), allow(dead_code))]
mod bench_util;
mod coldstart;
mod drop_in;
mod plot;
mod probe;
mod query_aux;
mod query_blas3_solver;
mod tour;

use clap::{Parser, Subcommand};
use gpublas::memory::{HandleConfig, DEVICE_MEMORY_SIZE_VAR, STREAM_ORDER_ALLOC_VAR};
use gpublas::{
    blas1, blas2, Coef, Complex32, Complex64, ComplexScalar, Device, DeviceBuffer, Diag, Element,
    Error, Handle, Op, RealScalar, Results, Scalar, Status, Uplo,
};

#[derive(Parser)]
#[command(
    name = "gpublas",
    version,
    about = "GPU BLAS whose handles own their scratch memory"
)]
struct Cli {
    /// Device: host, cuda or cuda:N (default: GPUBLAS_DEVICE, else the first GPU, else host).
    #[arg(long, global = true)]
    device: Option<String>,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Backend, device, memory, memory-pool support, workspace and environment settings, and
    /// what the drop-in BLAS/LAPACK library implements and forwards.
    Info {
        /// List every LAPACK routine the drop-in library forwards to the system's LAPACK.
        #[arg(long)]
        forwarded: bool,
    },
    /// Workspace bytes a Level-1, Level-2, Level-3 or solver call needs (a size query:
    /// nothing runs)
    ///
    /// The call is made between start_device_memory_size_query and
    /// stop_device_memory_size_query with placeholder operands, so nothing is allocated.
    /// Level-2 answers are checked against blas2::workspace_bytes.
    ///
    /// Examples: `gpublas query asum --n 1000000 --batch 8`,
    /// `gpublas query gemv --m 4194304 --n 32 --op t --type f32`,
    /// `gpublas query symv --n 16384 --type f64`, `gpublas query trsv --n 16384`,
    /// `gpublas query axpy --n 1000` (the Level-1 updates need none),
    /// `gpublas query gemm --m 8192 --n 8192 --k 8192 --opb t`,
    /// `gpublas query trsm --side r --uplo l --m 8192 --n 8192`,
    /// `gpublas query herk --n 4096 --k 512 --op c --type c32`,
    /// `gpublas query getrf --n 16384 --device-results`,
    /// `gpublas query getrs --n 8192 --nrhs 256`, `gpublas query potrf --n 32 --batch 10000`,
    /// `gpublas query gesv --n 8192 --nrhs 16`, `gpublas query getri --n 4096`,
    /// `gpublas query potri --n 4096 --uplo l`, `gpublas query gelqf --m 4096 --n 16384`,
    /// `gpublas query ormlq --m 16384 --n 16 --k 4096 --op t`,
    /// `gpublas query gels --m 16384 --n 4096 --nrhs 16`,
    /// `gpublas query set_matrix --rows 16 --cols 1048576 --lda 64 --ldb 16`.
    #[command(verbatim_doc_comment)]
    Query(Box<Query>),
    /// Walks through the four workspace schemes, a size query and real Level-1 calls.
    Tour,
    /// One family's first call in this process, timed from the process start (the child of
    /// `gpublas bench coldstart`).
    #[command(hide = true)]
    FirstCall {
        /// blas1, blas2, blas3, solver or transfer.
        #[arg(long)]
        family: String,
    },
    /// Benchmarks (CUDA events on a GPU; the host clock on the host).
    Bench {
        #[command(subcommand)]
        what: BenchWhat,
        /// Print JSON instead of a table.
        #[arg(long, global = true)]
        json: bool,
        /// Also write a plot of rate against size, gpublas beside cuBLAS (e.g.
        /// `gpublas bench blas1 --sweep --svg blas1.svg`).
        #[arg(long, global = true, value_name = "FILE")]
        svg: Option<String>,
    },
}

/// `gpublas bench` targets: those of `bench::What`, Level 3, and the triangular solves.
#[derive(Subcommand)]
enum BenchWhat {
    #[command(flatten)]
    Base(bench::What),
    /// Level 3 (gemm, gemm_ex f16/bf16, strided-batched gemm, syrk, herk, syr2k, symm, trmm,
    /// small-gemm overhead) against cuBLAS, in TFLOP/s; needs a GPU and `--features cublas`.
    Blas3(bench_blas3::Blas3Args),
    /// Triangular solves (trsm: all side/uplo/op/diag combinations, few right-hand sides,
    /// strided-batched, trsm_ex) and trtri against cuBLAS, in TFLOP/s; needs a GPU and
    /// `--features cublas`.
    Trsm(bench_trsm::TrsmArgs),
    /// LAPACK: getrf (f64, f32, Complex64), potrf, getrs, potrs, batched getrf/potrf (f64),
    /// getrf + getri (against getrf + getrs of the identity), gesv and posv against cuSOLVER
    /// and cuBLAS's getrfBatched, in TFLOP/s, with each call's workspace
    /// beside cuSOLVER's bufferSize; needs a GPU and `--features cublas`.
    Solver(bench_solver::SolverArgs),
    /// Householder QR: geqrf (f64, f32, Complex64; square and tall-skinny), orgqr, ormqr, gels
    /// and strided-batched geqrf (f64) against cuSOLVER and cuBLAS's geqrfBatched, in TFLOP/s, with
    /// each call's workspace beside cuSOLVER's bufferSize; needs a GPU and `--features cublas`
    /// (on the host backend: gpublas's host geqrf beside faer's).
    Qr(bench_qr::QrArgs),
    /// Eigensolvers: batched Jacobi (syevj_strided_batched, f64 and Complex64), batched syevd
    /// of small orders and syevd/heevd of large orders (values only and with vectors) against
    /// cuSOLVER (?syevjBatched, ?syevj and ?syevd looped, ?syevd/?heevd, Xsyevd with `--only
    /// x64`), in ms, with each call's workspace beside cuSOLVER's bufferSize and the largest
    /// eigenvalue difference; needs a GPU and `--features cublas` (on the host backend:
    /// gpublas's host syevd and syevj alone).
    Eig(bench_eig::EigArgs),
    /// The distributed routines (gpublas::multi: gemm, potrf, getrf, f64) on one device, on
    /// every GPU of the machine (two handles sharing one GPU where there is only one), against
    /// the one-handle call, with each device's workspace from the group's size query.
    Multi(bench_multi::MultiArgs),
    /// The transfers (set/get vector and matrix, pinned and pageable, sync and async) in GB/s
    /// beside a plain contiguous copy of the same bytes and cuBLAS's Set/GetVector/Matrix.
    Aux(bench_transfer::AuxArgs),
    /// The cost of a fresh process's first call of each routine family, with the kernel cache
    /// warm (median of three fresh processes) and cold (one process with an empty cache).
    Coldstart,
}

fn device(sel: &Option<String>) -> Result<Device, Error> {
    match sel {
        Some(s) => Device::from_selector(s),
        None => Device::default(),
    }
}

fn main() {
    let cli = Cli::parse();
    let r = match &cli.cmd {
        Cmd::Info { forwarded } => info(&cli.device).map(|()| drop_in::info(*forwarded)),
        Cmd::Query(q) => device(&cli.device).and_then(|d| query(&d, q)),
        Cmd::Tour => device(&cli.device).and_then(|d| tour::tour(&d)),
        Cmd::FirstCall { family } => coldstart::child(&cli.device, family),
        Cmd::Bench {
            what: BenchWhat::Coldstart,
            json,
            ..
        } => coldstart::run(&cli.device, *json),
        Cmd::Bench { what, json, svg } => device(&cli.device).and_then(|d| {
            if let Some(p) = svg {
                let _ = plot::SVG.set(p.clone());
            }
            match what {
                BenchWhat::Base(w) => bench::run(&d, w, *json),
                BenchWhat::Blas3(a) => bench_blas3::run(&d, a, *json),
                BenchWhat::Trsm(a) => bench_trsm::run(&d, a, *json),
                BenchWhat::Solver(a) => bench_solver::run(&d, a, *json),
                BenchWhat::Qr(a) => bench_qr::run(&d, a, *json),
                BenchWhat::Eig(a) => bench_eig::run(&d, a, *json),
                BenchWhat::Multi(a) => bench_multi::run(&d, a, *json),
                BenchWhat::Aux(a) => bench_transfer::run(&d, a, *json),
                BenchWhat::Coldstart => coldstart::run(&cli.device, *json),
            }
        }),
    };
    if let Err(e) = r {
        eprintln!("gpublas: {e}");
        std::process::exit(1);
    }
}

fn mib(b: usize) -> String {
    format!("{:.1} MiB", b as f64 / (1 << 20) as f64)
}

fn info(sel: &Option<String>) -> Result<(), Error> {
    let env = |k: &str| std::env::var(k).ok();
    println!("gpublas {}", env!("CARGO_PKG_VERSION"));
    println!("environment:");
    for var in [
        "GPUBLAS_DEVICE",
        DEVICE_MEMORY_SIZE_VAR,
        STREAM_ORDER_ALLOC_VAR,
    ] {
        println!(
            "  {var:28} {}",
            env(var)
                .map(|v| format!("'{v}'"))
                .unwrap_or("(unset)".into())
        );
    }
    let config = HandleConfig::from_env();
    if let Err(e) = &config {
        println!("  INVALID: {e}");
    }
    match gpublas::device::libs::ensure_nvrtc() {
        Ok(p) => println!("NVRTC: {p}"),
        Err(e) => println!("NVRTC: not found ({e})"),
    }
    match gpublas::device::kcache::summary() {
        (Some(dir), n, bytes) => println!(
            "kernel cache: {} ({n} cubins, {}; {} = path or off)",
            dir.display(),
            mib(bytes as usize),
            gpublas::device::kcache::KERNEL_CACHE_VAR
        ),
        (None, _, _) => println!(
            "kernel cache: off ({} = off, or no home directory)",
            gpublas::device::kcache::KERNEL_CACHE_VAR
        ),
    }
    println!("CUDA devices: {}", Device::cuda_device_count());
    let dev = device(sel)?;
    println!("backend: {:?}", dev.backend());
    println!("device: {}", dev.name());
    if let Some((a, b)) = dev.compute_capability() {
        println!(
            "compute capability: {a}.{b}, {} multiprocessors",
            dev.multiprocessor_count()
        );
    }
    match (dev.total_memory(), dev.free_memory()) {
        (Some(t), Ok(f)) => println!("memory: {} total, {} free", mib(t), mib(f)),
        _ => println!("memory: host memory, no limit"),
    }
    println!(
        "memory pools (stream-ordered allocation): {}",
        dev.supports_stream_order_alloc()
    );
    match config.and_then(|c| Handle::with_config(&dev, &c)) {
        Ok(h) => println!(
            "default handle: {:?} workspace, capacity {} bytes, stream-ordered allocation {}",
            h.workspace_mode(),
            h.get_device_memory_size(),
            if h.stream_order_alloc() { "on" } else { "off" }
        ),
        Err(e) => println!("default handle: cannot be created: {e}"),
    }
    Ok(())
}

/// `gpublas query`: the call whose workspace need is asked for.
#[derive(clap::Args)]
struct Query {
    /// Level 1: asum, nrm2, dot, dotc, iamax, iamin (reductions); axpy, scal, copy, swap,
    /// rot, rotm, rotg, rotmg (updates and rotation set-ups: no workspace). Level 2: gemv,
    /// gbmv, symv, hemv, sbmv, hbmv, spmv, hpmv, trmv, tbmv, tpmv, trsv, tbsv, tpsv, ger, geru,
    /// gerc, syr, syr2, her, her2, spr, spr2, hpr, hpr2. Level 3: gemm, symm, hemm, syrk, herk, syr2k,
    /// her2k, syrkx, herkx, trmm, trsm, trtri. Solver: getrf, getrf_npvt, getrs, potrf, potrs, gesv, posv, getri, potri, geqrf, orgqr (ungqr), ormqr (unmqr), gelqf, ormlq (unmlq), gels.
    /// Transfers: set_vector, get_vector, set_matrix, get_matrix (and `_async`).
    routine: String,
    /// Vector length (Level 1); the order of the matrix, or gemv's columns (Level 2); the
    /// columns of C or B (gemm, symm, hemm, trmm, trsm), the order of C (rank-k updates) or
    /// of A (trtri, getrs, potrf, potrs, gesv, posv, getri, potri), the columns of A (getrf,
    /// geqrf, gelqf, gels), the columns of C (ormqr, ormlq). Not needed by rotg and rotmg.
    #[arg(long)]
    n: Option<usize>,
    /// gemv, gbmv: rows of A; gemm, symm, hemm, trmm, trsm: rows of C or B; getrf, geqrf,
    /// gelqf, gels: rows of A; ormqr, ormlq: rows of C (default: n).
    #[arg(long)]
    m: Option<usize>,
    /// tbmv, tbsv, sbmv, hbmv: off-diagonals of the band; gbmv: both kl and ku (default: 1, or
    /// 0 when n <= 1; any k, as in reference BLAS: k >= n leaves unused band rows). gemm and the rank-k
    /// updates: the inner dimension (default: n). orgqr, ormqr, ormlq: the reflectors (default:
    /// n; for ormqr and ormlq the order of Q).
    #[arg(long)]
    k: Option<usize>,
    /// gemv, gbmv, trmv, tbmv, tpmv, trsv, tbsv, tpsv, trmm, trsm, getrs, gels: op(A) is n (A), t (Aᵀ) or c (Aᴴ);
    /// gemm: op(A); syrk, syr2k, syrkx: n or t; herk, her2k, herkx: n or c; ormqr, ormlq:
    /// op(Q) (t only for real types, as gels).
    #[arg(long, default_value = "n")]
    op: String,
    /// gemm: op(B), n, t or c.
    #[arg(long, default_value = "n")]
    opb: String,
    /// symm, hemm, trmm, trsm: A on the left (l) or the right (r); ormqr, ormlq: Q on the left
    /// or the right.
    #[arg(long, default_value = "l")]
    side: String,
    /// The symmetric, Hermitian and triangular Level-2 routines and the Level-3 routines but
    /// gemm, potrf, potrs, posv, potri: the stored triangle, u (upper) or l (lower).
    #[arg(long, default_value = "u")]
    uplo: String,
    /// trmv, tbmv, tpmv, trsv, tbsv, tpsv, trmm, trsm, trtri: n (non-unit) or u (unit) diagonal.
    #[arg(long, default_value = "n")]
    diag: String,
    /// getrs, potrs, gesv, posv, gels: right-hand sides (default: 1).
    #[arg(long)]
    nrhs: Option<usize>,
    /// Element type: f32, f64, c32 or c64 (default: f64; c64 for hemv, hbmv, hpmv, hemm, herk,
    /// her2k, herkx).
    #[arg(long = "type", value_name = "TYPE")]
    ty: Option<String>,
    /// Number of problems: the strided-batched form when > 1 (the list form with --list).
    #[arg(long, default_value_t = 1)]
    batch: usize,
    /// The `_batched` form (a list of buffers per operand) instead of one strided buffer.
    #[arg(long)]
    list: bool,
    /// Level-1 reductions, getrf, getrf_npvt, potrf: results (pivots, info) to device memory
    /// instead of host memory; gesv, posv, getri, potri, gels: info (gesv's and getri's pivots
    /// are device memory).
    #[arg(long)]
    device_results: bool,
    /// Level 3: alpha and beta in device memory (placeholders) instead of host values.
    #[arg(long)]
    device_scalars: bool,
    /// set_vector, get_vector: the increment of x (default 1).
    #[arg(long, default_value_t = 1, allow_hyphen_values = true)]
    incx: isize,
    /// set_vector, get_vector: the increment of y (default 1).
    #[arg(long, default_value_t = 1, allow_hyphen_values = true)]
    incy: isize,
    /// set_matrix, get_matrix: rows.
    #[arg(long)]
    rows: Option<usize>,
    /// set_matrix, get_matrix: columns.
    #[arg(long)]
    cols: Option<usize>,
    /// set_matrix, get_matrix: leading dimension of A (default: rows).
    #[arg(long)]
    lda: Option<usize>,
    /// set_matrix, get_matrix: leading dimension of B (default: rows).
    #[arg(long)]
    ldb: Option<usize>,
}

/// Which form of a routine a query calls.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    Single,
    Strided,
    List,
}

/// Parsed arguments of a query.
struct Call {
    routine: String,
    op: Op,
    uplo: Uplo,
    diag: Diag,
    m: usize,
    n: usize,
    k: usize,
    batch: usize,
    form: Form,
    device_results: bool,
}

impl Call {
    /// Batch entries and list flag of the call, as `blas2::workspace_bytes` takes them.
    fn batch_list(&self) -> (usize, bool) {
        match self.form {
            Form::Single => (1, false),
            Form::Strided => (self.batch, false),
            Form::List => (self.batch, true),
        }
    }
}

fn bad(what: &str, v: &str, allowed: &str) -> Error {
    Error::InvalidValue(format!("--{what} {v}: expected {allowed}"))
}

fn parse_op(v: &str) -> Result<Op, Error> {
    match v.to_ascii_lowercase().as_str() {
        "n" => Ok(Op::N),
        "t" => Ok(Op::T),
        "c" | "h" => Ok(Op::C),
        _ => Err(bad("op", v, "n, t or c")),
    }
}

fn parse_uplo(v: &str) -> Result<Uplo, Error> {
    match v.to_ascii_lowercase().as_str() {
        "u" | "upper" => Ok(Uplo::Upper),
        "l" | "lower" => Ok(Uplo::Lower),
        _ => Err(bad("uplo", v, "u or l")),
    }
}

fn parse_diag(v: &str) -> Result<Diag, Error> {
    match v.to_ascii_lowercase().as_str() {
        "n" | "non-unit" | "nonunit" => Ok(Diag::NonUnit),
        "u" | "unit" => Ok(Diag::Unit),
        _ => Err(bad("diag", v, "n (non-unit) or u (unit)")),
    }
}

fn overflow(what: &str) -> Error {
    Error::InvalidSize(format!("{what} overflows the address space"))
}

/// Placeholder operands of a size query: `batch` entries of `span` elements, in one buffer
/// `span` elements apart (single and strided forms) or as a list of buffers (list form).
struct Ph<T> {
    one: DeviceBuffer<T>,
    list: Vec<DeviceBuffer<T>>,
    stride: usize,
}

impl<T: Element> Ph<T> {
    fn new(span: usize, c: &Call) -> Result<Ph<T>, Error> {
        let (one, list) = match c.form {
            Form::Single => (span, 0),
            Form::Strided => (
                span.checked_mul(c.batch)
                    .ok_or_else(|| overflow(&format!("{} entries of {span} elements", c.batch)))?,
                0,
            ),
            Form::List => (0, c.batch),
        };
        Ok(Ph {
            one: DeviceBuffer::placeholder(one),
            list: (0..list).map(|_| DeviceBuffer::placeholder(span)).collect(),
            stride: span,
        })
    }

    fn refs(&self) -> Vec<&DeviceBuffer<T>> {
        self.list.iter().collect()
    }

    fn muts(&mut self) -> Vec<&mut DeviceBuffer<T>> {
        self.list.iter_mut().collect()
    }
}

/// Placeholder operands of a Level-2 call: `A` (with its leading dimension), the input vector
/// `x` (gemv, symv, hemv), the output vector `y` (x of the triangular routines), a scalar.
struct L2<T> {
    a: Ph<T>,
    lda: usize,
    x: Ph<T>,
    y: Ph<T>,
    s: DeviceBuffer<T>,
}

impl<T: Element> L2<T> {
    fn new(c: &Call) -> Result<L2<T>, Error> {
        let (m, n, k) = (c.m, c.n, c.k);
        let gemv = matches!(c.routine.as_str(), "gemv" | "gbmv");
        let rows = if gemv { m } else { n };
        let (lda, a_span) = match c.routine.as_str() {
            "tbmv" | "tbsv" | "sbmv" | "hbmv" | "gbmv" => {
                // gbmv: kl = ku = k.
                let bands = if c.routine == "gbmv" { 2 } else { 1 };
                let rows = k
                    .checked_mul(bands)
                    .and_then(|v| v.checked_add(1))
                    .ok_or_else(|| overflow(&format!("the band rows with k = {k}")))?;
                (rows, rows.checked_mul(n))
            }
            "tpmv" | "tpsv" | "spmv" | "hpmv" => (1, n.checked_mul(n + 1).map(|v| v / 2)),
            _ => (rows.max(1), rows.max(1).checked_mul(n)),
        };
        let a_span = a_span.ok_or_else(|| overflow(&format!("A of {rows} x {n}")))?;
        let (lx, ly) = match (gemv, c.op) {
            (true, Op::N) => (n, m),
            (true, _) => (m, n),
            _ => (n, n),
        };
        Ok(L2 {
            a: Ph::new(a_span, c)?,
            lda,
            x: Ph::new(lx, c)?,
            y: Ph::new(ly, c)?,
            s: DeviceBuffer::placeholder(1),
        })
    }
}

/// The query call of a Level-2 routine other than hemv.
fn query_l2<T: Scalar>(h: &mut Handle, c: &Call) -> Result<Status, Error> {
    let mut o = L2::<T>::new(c)?;
    let (op, uplo, diag, m, n, k, b) = (c.op, c.uplo, c.diag, c.m, c.n, c.k, c.batch);
    let (lda, sa, sx, sy) = (o.lda, o.a.stride, o.x.stride, o.y.stride);
    let (al, be) = (Coef::Device(&o.s), Coef::Device(&o.s));
    let (a, x) = (&o.a, &o.x);
    let y = &mut o.y;
    use Form::*;
    match (c.routine.as_str(), c.form) {
        ("gemv", Single) => blas2::gemv(h, op, m, n, al, &a.one, lda, &x.one, 1, be, &mut y.one, 1),
        ("gemv", Strided) => blas2::gemv_strided_batched(
            h, op, m, n, al, &a.one, lda, sa, &x.one, 1, sx, be, &mut y.one, 1, sy, b,
        ),
        ("gemv", List) => blas2::gemv_batched(
            h,
            op,
            m,
            n,
            al,
            &a.refs(),
            lda,
            &x.refs(),
            1,
            be,
            &mut y.muts(),
            1,
        ),
        ("symv", Single) => blas2::symv(h, uplo, n, al, &a.one, lda, &x.one, 1, be, &mut y.one, 1),
        ("symv", Strided) => blas2::symv_strided_batched(
            h, uplo, n, al, &a.one, lda, sa, &x.one, 1, sx, be, &mut y.one, 1, sy, b,
        ),
        ("symv", List) => blas2::symv_batched(
            h,
            uplo,
            n,
            al,
            &a.refs(),
            lda,
            &x.refs(),
            1,
            be,
            &mut y.muts(),
            1,
        ),
        ("trmv", Single) => blas2::trmv(h, uplo, op, diag, n, &a.one, lda, &mut y.one, 1),
        ("trmv", Strided) => {
            blas2::trmv_strided_batched(h, uplo, op, diag, n, &a.one, lda, sa, &mut y.one, 1, sy, b)
        }
        ("trmv", List) => {
            blas2::trmv_batched(h, uplo, op, diag, n, &a.refs(), lda, &mut y.muts(), 1)
        }
        ("trsv", Single) => blas2::trsv(h, uplo, op, diag, n, &a.one, lda, &mut y.one, 1),
        ("trsv", Strided) => {
            blas2::trsv_strided_batched(h, uplo, op, diag, n, &a.one, lda, sa, &mut y.one, 1, sy, b)
        }
        ("trsv", List) => {
            blas2::trsv_batched(h, uplo, op, diag, n, &a.refs(), lda, &mut y.muts(), 1)
        }
        ("tbmv", Single) => blas2::tbmv(h, uplo, op, diag, n, k, &a.one, lda, &mut y.one, 1),
        ("tbmv", Strided) => blas2::tbmv_strided_batched(
            h, uplo, op, diag, n, k, &a.one, lda, sa, &mut y.one, 1, sy, b,
        ),
        ("tbmv", List) => {
            blas2::tbmv_batched(h, uplo, op, diag, n, k, &a.refs(), lda, &mut y.muts(), 1)
        }
        ("tpmv", Single) => blas2::tpmv(h, uplo, op, diag, n, &a.one, &mut y.one, 1),
        ("tpmv", Strided) => {
            blas2::tpmv_strided_batched(h, uplo, op, diag, n, &a.one, sa, &mut y.one, 1, sy, b)
        }
        ("tpmv", List) => blas2::tpmv_batched(h, uplo, op, diag, n, &a.refs(), &mut y.muts(), 1),
        ("gbmv", Single) => blas2::gbmv(
            h, op, m, n, k, k, al, &a.one, lda, &x.one, 1, be, &mut y.one, 1,
        ),
        ("gbmv", Strided) => blas2::gbmv_strided_batched(
            h, op, m, n, k, k, al, &a.one, lda, sa, &x.one, 1, sx, be, &mut y.one, 1, sy, b,
        ),
        ("gbmv", List) => blas2::gbmv_batched(
            h,
            op,
            m,
            n,
            k,
            k,
            al,
            &a.refs(),
            lda,
            &x.refs(),
            1,
            be,
            &mut y.muts(),
            1,
        ),
        ("sbmv", Single) => {
            blas2::sbmv(h, uplo, n, k, al, &a.one, lda, &x.one, 1, be, &mut y.one, 1)
        }
        ("sbmv", Strided) => blas2::sbmv_strided_batched(
            h, uplo, n, k, al, &a.one, lda, sa, &x.one, 1, sx, be, &mut y.one, 1, sy, b,
        ),
        ("sbmv", List) => blas2::sbmv_batched(
            h,
            uplo,
            n,
            k,
            al,
            &a.refs(),
            lda,
            &x.refs(),
            1,
            be,
            &mut y.muts(),
            1,
        ),
        ("spmv", Single) => blas2::spmv(h, uplo, n, al, &a.one, &x.one, 1, be, &mut y.one, 1),
        ("spmv", Strided) => blas2::spmv_strided_batched(
            h, uplo, n, al, &a.one, sa, &x.one, 1, sx, be, &mut y.one, 1, sy, b,
        ),
        ("spmv", List) => blas2::spmv_batched(
            h,
            uplo,
            n,
            al,
            &a.refs(),
            &x.refs(),
            1,
            be,
            &mut y.muts(),
            1,
        ),
        ("tbsv", Single) => blas2::tbsv(h, uplo, op, diag, n, k, &a.one, lda, &mut y.one, 1),
        ("tbsv", Strided) => blas2::tbsv_strided_batched(
            h, uplo, op, diag, n, k, &a.one, lda, sa, &mut y.one, 1, sy, b,
        ),
        ("tbsv", List) => {
            blas2::tbsv_batched(h, uplo, op, diag, n, k, &a.refs(), lda, &mut y.muts(), 1)
        }
        ("tpsv", Single) => blas2::tpsv(h, uplo, op, diag, n, &a.one, &mut y.one, 1),
        ("tpsv", Strided) => {
            blas2::tpsv_strided_batched(h, uplo, op, diag, n, &a.one, sa, &mut y.one, 1, sy, b)
        }
        ("tpsv", List) => blas2::tpsv_batched(h, uplo, op, diag, n, &a.refs(), &mut y.muts(), 1),
        (other, _) => Err(Error::InvalidValue(format!(
            "'{other}' is not a Level-2 routine of this query"
        ))),
    }
}

/// The query call of hemv, hbmv and hpmv (complex types only).
fn query_hemv<T: ComplexScalar>(h: &mut Handle, c: &Call) -> Result<Status, Error> {
    let mut o = L2::<T>::new(c)?;
    let (uplo, n, k, b) = (c.uplo, c.n, c.k, c.batch);
    let (lda, sa, sx, sy) = (o.lda, o.a.stride, o.x.stride, o.y.stride);
    let (al, be) = (Coef::Device(&o.s), Coef::Device(&o.s));
    let (a, x) = (&o.a, &o.x);
    let y = &mut o.y;
    use Form::*;
    match (c.routine.as_str(), c.form) {
        ("hbmv", Single) => {
            blas2::hbmv(h, uplo, n, k, al, &a.one, lda, &x.one, 1, be, &mut y.one, 1)
        }
        ("hbmv", Strided) => blas2::hbmv_strided_batched(
            h, uplo, n, k, al, &a.one, lda, sa, &x.one, 1, sx, be, &mut y.one, 1, sy, b,
        ),
        ("hbmv", List) => blas2::hbmv_batched(
            h,
            uplo,
            n,
            k,
            al,
            &a.refs(),
            lda,
            &x.refs(),
            1,
            be,
            &mut y.muts(),
            1,
        ),
        ("hpmv", Single) => blas2::hpmv(h, uplo, n, al, &a.one, &x.one, 1, be, &mut y.one, 1),
        ("hpmv", Strided) => blas2::hpmv_strided_batched(
            h, uplo, n, al, &a.one, sa, &x.one, 1, sx, be, &mut y.one, 1, sy, b,
        ),
        ("hpmv", List) => blas2::hpmv_batched(
            h,
            uplo,
            n,
            al,
            &a.refs(),
            &x.refs(),
            1,
            be,
            &mut y.muts(),
            1,
        ),
        (_, Single) => blas2::hemv(h, uplo, n, al, &a.one, lda, &x.one, 1, be, &mut y.one, 1),
        (_, Strided) => blas2::hemv_strided_batched(
            h, uplo, n, al, &a.one, lda, sa, &x.one, 1, sx, be, &mut y.one, 1, sy, b,
        ),
        (_, List) => blas2::hemv_batched(
            h,
            uplo,
            n,
            al,
            &a.refs(),
            lda,
            &x.refs(),
            1,
            be,
            &mut y.muts(),
            1,
        ),
    }
}

/// The query call of a Level-1 reduction; `host_real` and `host` hold one result per entry.
fn query_reduction<T: Scalar>(
    h: &mut Handle,
    c: &Call,
    host_real: &mut [T::Real],
    host: &mut [T],
) -> Result<Status, Error> {
    let (n, b) = (c.n, c.batch);
    let x = Ph::<T>::new(n, c)?;
    let mut d_real = DeviceBuffer::<T::Real>::placeholder(b);
    let mut d = DeviceBuffer::<T>::placeholder(b);
    let mut d_idx = DeviceBuffer::<i64>::placeholder(b);
    let mut host_idx = vec![0i64; b];
    let dev = c.device_results;
    fn res<'a, R>(dev: bool, h: &'a mut [R], d: &'a mut DeviceBuffer<R>) -> Results<'a, R> {
        if dev {
            Results::Device(d)
        } else {
            Results::Host(h)
        }
    }
    let real = res(dev, host_real, &mut d_real);
    let same = res(dev, host, &mut d);
    let idx = res(dev, &mut host_idx, &mut d_idx);
    // The single form is the strided form with one entry (as before the list form existed).
    let list = c.form == Form::List;
    let xr = x.refs();
    match c.routine.as_str() {
        "asum" if list => blas1::asum_batched(h, n, &xr, 1, real),
        "asum" => blas1::asum_strided_batched(h, n, &x.one, 1, n, b, real),
        "nrm2" if list => blas1::nrm2_batched(h, n, &xr, 1, real),
        "nrm2" => blas1::nrm2_strided_batched(h, n, &x.one, 1, n, b, real),
        "dot" if list => blas1::dot_batched(h, n, &xr, 1, &xr, 1, same),
        "dot" => blas1::dot_strided_batched(h, n, &x.one, 1, n, &x.one, 1, n, b, same),
        "dotc" if list => blas1::dotc_batched(h, n, &xr, 1, &xr, 1, same),
        "dotc" => blas1::dotc_strided_batched(h, n, &x.one, 1, n, &x.one, 1, n, b, same),
        "iamax" if list => blas1::iamax_batched(h, n, &xr, 1, idx),
        "iamax" => blas1::iamax_strided_batched(h, n, &x.one, 1, n, b, idx),
        "iamin" if list => blas1::iamin_batched(h, n, &xr, 1, idx),
        "iamin" => blas1::iamin_strided_batched(h, n, &x.one, 1, n, b, idx),
        other => Err(Error::InvalidValue(format!(
            "'{other}' is not a Level-1 reduction"
        ))),
    }
}

/// The query call of a Level-1 update or rotg (none of them borrows workspace).
fn query_update<T: Scalar>(h: &mut Handle, c: &Call) -> Result<Status, Error> {
    let (n, b) = (c.n, c.batch);
    let one = if matches!(c.routine.as_str(), "rotg") {
        1
    } else {
        n
    };
    let mut x = Ph::<T>::new(one, c)?;
    let mut y = Ph::<T>::new(one, c)?;
    let mut z = Ph::<T>::new(1, c)?;
    let mut cr = Ph::<T::Real>::new(1, c)?;
    let s = DeviceBuffer::<T>::placeholder(1);
    let cs = DeviceBuffer::<T::Real>::placeholder(1);
    let (al, cc) = (Coef::Device(&s), Coef::Device(&cs));
    let (sx, sy) = (x.stride, y.stride);
    use Form::*;
    match (c.routine.as_str(), c.form) {
        ("axpy", Single) => blas1::axpy(h, n, al, &x.one, 1, &mut y.one, 1),
        ("axpy", Strided) => {
            blas1::axpy_strided_batched(h, n, al, &x.one, 1, sx, &mut y.one, 1, sy, b)
        }
        ("axpy", List) => blas1::axpy_batched(h, n, al, &x.refs(), 1, &mut y.muts(), 1),
        ("scal", Single) => blas1::scal(h, n, al, &mut x.one, 1),
        ("scal", Strided) => blas1::scal_strided_batched(h, n, al, &mut x.one, 1, sx, b),
        ("scal", List) => blas1::scal_batched(h, n, al, &mut x.muts(), 1),
        ("copy", Single) => blas1::copy(h, n, &x.one, 1, &mut y.one, 1),
        ("copy", Strided) => blas1::copy_strided_batched(h, n, &x.one, 1, sx, &mut y.one, 1, sy, b),
        ("copy", List) => blas1::copy_batched(h, n, &x.refs(), 1, &mut y.muts(), 1),
        ("swap", Single) => blas1::swap(h, n, &mut x.one, 1, &mut y.one, 1),
        ("swap", Strided) => {
            blas1::swap_strided_batched(h, n, &mut x.one, 1, sx, &mut y.one, 1, sy, b)
        }
        ("swap", List) => blas1::swap_batched(h, n, &mut x.muts(), 1, &mut y.muts(), 1),
        ("rot", Single) => blas1::rot(h, n, &mut x.one, 1, &mut y.one, 1, cc, al),
        ("rot", Strided) => {
            blas1::rot_strided_batched(h, n, &mut x.one, 1, sx, &mut y.one, 1, sy, cc, al, b)
        }
        ("rot", List) => blas1::rot_batched(h, n, &mut x.muts(), 1, &mut y.muts(), 1, cc, al),
        ("rotg", Single) => blas1::rotg(h, &mut x.one, &mut y.one, &mut cr.one, &mut z.one),
        ("rotg", Strided) => blas1::rotg_strided_batched(
            h,
            &mut x.one,
            1,
            &mut y.one,
            1,
            &mut cr.one,
            1,
            &mut z.one,
            1,
            b,
        ),
        ("rotg", List) => blas1::rotg_batched(
            h,
            &mut x.muts(),
            &mut y.muts(),
            &mut cr.muts(),
            &mut z.muts(),
        ),
        (other, _) => Err(Error::InvalidValue(format!(
            "'{other}' is not a Level-1 update of this query"
        ))),
    }
}

/// The query call of rotm or rotmg (real types only).
fn query_rotm<T: RealScalar>(h: &mut Handle, c: &Call) -> Result<Status, Error> {
    let (n, b) = (c.n, c.batch);
    let rotm = c.routine == "rotm";
    let one = if rotm { n } else { 1 };
    let mut x = Ph::<T>::new(one, c)?;
    let mut y = Ph::<T>::new(one, c)?;
    let mut d1 = Ph::<T>::new(1, c)?;
    let mut p = Ph::<T>::new(5, c)?;
    let (sx, sy) = (x.stride, y.stride);
    use Form::*;
    match (rotm, c.form) {
        (true, Single) => blas1::rotm(h, n, &mut x.one, 1, &mut y.one, 1, &p.one),
        (true, Strided) => {
            blas1::rotm_strided_batched(h, n, &mut x.one, 1, sx, &mut y.one, 1, sy, &p.one, 5, b)
        }
        (true, List) => blas1::rotm_batched(h, n, &mut x.muts(), 1, &mut y.muts(), 1, &p.refs()),
        // rotmg(d1, d2, x1, y1, param): x and y serve as d2 and x1, y1 is read only.
        (false, Single) => {
            let y1 = DeviceBuffer::<T>::placeholder(1);
            blas1::rotmg(h, &mut d1.one, &mut x.one, &mut y.one, &y1, &mut p.one)
        }
        (false, Strided) => {
            let y1 = DeviceBuffer::<T>::placeholder(b);
            blas1::rotmg_strided_batched(
                h,
                &mut d1.one,
                1,
                &mut x.one,
                1,
                &mut y.one,
                1,
                &y1,
                1,
                &mut p.one,
                5,
                b,
            )
        }
        (false, List) => {
            let y1 = Ph::<T>::new(1, c)?;
            blas1::rotmg_batched(
                h,
                &mut d1.muts(),
                &mut x.muts(),
                &mut y.muts(),
                &y1.refs(),
                &mut p.muts(),
            )
        }
    }
}

/// The Level-2 rank updates.
const RANK_UPDATES: &[&str] = &[
    "ger", "geru", "gerc", "syr", "syr2", "her", "her2", "spr", "spr2", "hpr", "hpr2",
];

/// A rank update's need, from the shape (`blas2::workspace_bytes`, the function the call's own
/// plan uses, F4): only a list batch's address table takes workspace.
fn query_rank_update(dev: &Device, q: &Query, r: &str) -> Result<(), Error> {
    let n =
        q.n.ok_or_else(|| Error::InvalidValue(format!("{r}: --n is required (the order of A)")))?;
    let m = q.m.unwrap_or(n);
    let complex_only = matches!(r, "geru" | "gerc" | "her" | "her2" | "hpr" | "hpr2");
    let default = if complex_only { "c64" } else { "f64" };
    let ty = q.ty.as_deref().unwrap_or(default).to_ascii_lowercase();
    let elem = match (ty.as_str(), r) {
        ("f32" | "f64", _) if complex_only => None,
        (_, "ger") if ty.starts_with('c') => None,
        ("f32", _) => Some(4),
        ("f64" | "c32", _) => Some(8),
        ("c64", _) => Some(16),
        _ => None,
    }
    .ok_or_else(|| Error::InvalidValue(format!("{r} does not take --type {ty}")))?;
    let need = blas2::workspace_bytes(dev, r, Op::N, m, n, elem, q.batch, q.list)?;
    let form = if q.list { " (list)" } else { "" };
    let shape = if r.starts_with("ger") {
        format!("m={m} n={n}")
    } else {
        format!("n={n}")
    };
    println!(
        "{r} ({ty}) {shape} batch={}{form} on {}: {need} bytes of workspace",
        q.batch,
        dev.name()
    );
    Ok(())
}

fn query(dev: &Device, q: &Query) -> Result<(), Error> {
    let routine = q.routine.to_ascii_lowercase();
    let r = routine.as_str();
    const REDUCTIONS: &[&str] = &["asum", "nrm2", "dot", "dotc", "iamax", "iamin"];
    const UPDATES: &[&str] = &[
        "axpy", "scal", "copy", "swap", "rot", "rotm", "rotg", "rotmg",
    ];
    const LEVEL2: &[&str] = &[
        "gemv", "gbmv", "symv", "hemv", "sbmv", "hbmv", "spmv", "hpmv", "trmv", "tbmv", "tpmv",
        "trsv", "tbsv", "tpsv",
    ];
    let hermitian = matches!(r, "hemv" | "hbmv" | "hpmv");
    if query_blas3_solver::handles(r) {
        return query_blas3_solver::query(dev, q);
    }
    if query_aux::handles(r) {
        let args = query_aux::Args {
            routine: routine.clone(),
            n: q.n,
            incx: q.incx,
            incy: q.incy,
            rows: q.rows,
            cols: q.cols,
            lda: q.lda,
            ldb: q.ldb,
            ty: q.ty.as_deref().unwrap_or("f32").to_ascii_lowercase(),
        };
        return query_aux::query(dev, &args);
    }
    if RANK_UPDATES.contains(&r) {
        return query_rank_update(dev, q, r);
    }
    let level2 = LEVEL2.contains(&r);
    if !level2 && !REDUCTIONS.contains(&r) && !UPDATES.contains(&r) {
        return Err(Error::InvalidValue(format!(
            "unknown routine '{}' (Level 1: {}, {}; Level 2: {}; Level 3: {}; solver: {}; transfers: {})",
            q.routine,
            REDUCTIONS.join(", "),
            UPDATES.join(", "),
            [LEVEL2, RANK_UPDATES].concat().join(", "),
            query_blas3_solver::LEVEL3.join(", "),
            query_blas3_solver::SOLVER.join(", "),
            query_aux::TRANSFERS.join(", ")
        )));
    }
    let no_n = matches!(r, "rotg" | "rotmg");
    let n = match q.n {
        Some(n) => n,
        None if no_n => 0,
        None => {
            return Err(Error::InvalidValue(format!(
                "{r}: --n is required (the vector length or the order of the matrix)"
            )))
        }
    };
    let ty =
        q.ty.as_deref()
            .unwrap_or(if hermitian { "c64" } else { "f64" })
            .to_ascii_lowercase();
    let c = Call {
        routine: routine.clone(),
        op: parse_op(&q.op)?,
        uplo: parse_uplo(&q.uplo)?,
        diag: parse_diag(&q.diag)?,
        m: q.m.unwrap_or(n),
        n,
        k: q.k.unwrap_or(1.min(n.saturating_sub(1))),
        batch: q.batch,
        form: if q.list {
            Form::List
        } else if q.batch == 1 {
            Form::Single
        } else {
            Form::Strided
        },
        device_results: q.device_results,
    };
    let mut h = Handle::with_config(
        dev,
        &HandleConfig {
            device_memory_size: Some(0),
            ..Default::default()
        },
    )?;
    let b = c.batch;
    let wrong_type = |allowed: &str| {
        Err(Error::InvalidValue(format!(
            "{r} takes --type {allowed}, not '{ty}'"
        )))
    };
    h.start_device_memory_size_query()?;
    let status = match (r, ty.as_str()) {
        (_, "c32") if hermitian => query_hemv::<Complex32>(&mut h, &c),
        (_, "c64") if hermitian => query_hemv::<Complex64>(&mut h, &c),
        _ if hermitian => wrong_type("c32 or c64"),
        ("rotm" | "rotmg", "f32") => query_rotm::<f32>(&mut h, &c),
        ("rotm" | "rotmg", "f64") => query_rotm::<f64>(&mut h, &c),
        ("rotm" | "rotmg", _) => wrong_type("f32 or f64"),
        (_, "f32") if level2 => query_l2::<f32>(&mut h, &c),
        (_, "f64") if level2 => query_l2::<f64>(&mut h, &c),
        (_, "c32") if level2 => query_l2::<Complex32>(&mut h, &c),
        (_, "c64") if level2 => query_l2::<Complex64>(&mut h, &c),
        (_, "f32") if REDUCTIONS.contains(&r) => {
            query_reduction::<f32>(&mut h, &c, &mut vec![0.0; b], &mut vec![0.0; b])
        }
        (_, "f64") if REDUCTIONS.contains(&r) => {
            query_reduction::<f64>(&mut h, &c, &mut vec![0.0; b], &mut vec![0.0; b])
        }
        (_, "c32") if REDUCTIONS.contains(&r) => query_reduction::<Complex32>(
            &mut h,
            &c,
            &mut vec![0.0; b],
            &mut vec![Complex32::default(); b],
        ),
        (_, "c64") if REDUCTIONS.contains(&r) => query_reduction::<Complex64>(
            &mut h,
            &c,
            &mut vec![0.0; b],
            &mut vec![Complex64::default(); b],
        ),
        (_, "f32") => query_update::<f32>(&mut h, &c),
        (_, "f64") => query_update::<f64>(&mut h, &c),
        (_, "c32") => query_update::<Complex32>(&mut h, &c),
        (_, "c64") => query_update::<Complex64>(&mut h, &c),
        _ => wrong_type("f32, f64, c32 or c64"),
    };
    // Always end the query, even when the call was refused.
    let need = h.stop_device_memory_size_query();
    let _status: Status = status?;
    let need = need?;
    let form = match c.form {
        Form::Single | Form::Strided => "",
        Form::List => " (list)",
    };
    if !level2 {
        let n_part = if no_n {
            String::new()
        } else {
            format!(" n={n}")
        };
        println!(
            "{} ({ty}){n_part} batch={b}{form} on {}: {need} bytes of workspace",
            q.routine,
            dev.name()
        );
        return Ok(());
    }
    let letter = |o: Op| match o {
        Op::N => "N",
        Op::T => "T",
        Op::C => "C",
    };
    let ul = if c.uplo == Uplo::Upper { "U" } else { "L" };
    let dg = if c.diag == Diag::Unit { "U" } else { "N" };
    let shape = match r {
        "gemv" => format!("op={} m={} n={n}", letter(c.op), c.m),
        "gbmv" => format!("op={} m={} n={n} kl=ku={}", letter(c.op), c.m, c.k),
        "symv" | "hemv" | "spmv" | "hpmv" => format!("uplo={ul} n={n}"),
        "sbmv" | "hbmv" => format!("uplo={ul} n={n} k={}", c.k),
        "tbmv" | "tbsv" => format!("uplo={ul} op={} diag={dg} n={n} k={}", letter(c.op), c.k),
        _ => format!("uplo={ul} op={} diag={dg} n={n}", letter(c.op)),
    };
    // The same need from the shape alone; the two must agree.
    let elem = match ty.as_str() {
        "f32" => 4,
        "f64" | "c32" => 8,
        _ => 16,
    };
    let ws_op = if matches!(r, "symv" | "hemv" | "sbmv" | "hbmv" | "spmv" | "hpmv") {
        Op::N
    } else {
        c.op
    };
    let (wb, wl) = c.batch_list();
    let shape_need = blas2::workspace_bytes(dev, r, ws_op, c.m, n, elem, wb, wl)?;
    println!(
        "{r} ({ty}) {shape} batch={b}{form} on {}: {need} bytes of workspace \
         (blas2::workspace_bytes: {shape_need})",
        dev.name()
    );
    if shape_need != need {
        return Err(Error::InvalidValue(format!(
            "the size query ({need} bytes) and blas2::workspace_bytes ({shape_need} bytes) disagree"
        )));
    }
    Ok(())
}
