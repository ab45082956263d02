//! `gpublas`: device information, workspace queries, a tour of the memory model, benchmarks.

mod bench;

use clap::{Parser, Subcommand};
use gpublas::memory::{HandleConfig, DEVICE_MEMORY_SIZE_VAR, STREAM_ORDER_ALLOC_VAR};
use gpublas::{blas1, Device, DeviceBuffer, Error, Handle, Results};

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
    /// Backend, device, memory, memory-pool support, workspace and environment settings.
    Info,
    /// Workspace bytes a Level-1 call needs (a size query, nothing runs).
    Query {
        /// asum, nrm2, dot, dotc, iamax or iamin.
        routine: String,
        /// Vector length.
        #[arg(long)]
        n: usize,
        /// Number of vectors (strided-batched form when > 1).
        #[arg(long, default_value_t = 1)]
        batch: usize,
        /// Results to device memory instead of host memory.
        #[arg(long)]
        device_results: bool,
    },
    /// Walks through the four workspace schemes, a size query and real Level-1 calls.
    Tour,
    /// Benchmarks (CUDA events on a GPU; the host clock on the host).
    Bench {
        #[command(subcommand)]
        what: bench::What,
        /// Print JSON instead of a table.
        #[arg(long, global = true)]
        json: bool,
    },
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
        Cmd::Info => info(&cli.device),
        Cmd::Query {
            routine,
            n,
            batch,
            device_results,
        } => device(&cli.device).and_then(|d| query(&d, routine, *n, *batch, *device_results)),
        Cmd::Tour => device(&cli.device).and_then(|d| tour(&d)),
        Cmd::Bench { what, json } => device(&cli.device).and_then(|d| bench::run(&d, what, *json)),
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

fn query(
    dev: &Device,
    routine: &str,
    n: usize,
    batch: usize,
    device_results: bool,
) -> Result<(), Error> {
    let mut h = Handle::with_config(
        dev,
        &HandleConfig {
            device_memory_size: Some(0),
            ..Default::default()
        },
    )?;
    let x = DeviceBuffer::<f64>::placeholder(n * batch);
    let mut host = vec![0.0f64; batch];
    let mut hosti = vec![0i64; batch];
    let mut dres = DeviceBuffer::<f64>::placeholder(batch);
    let mut dresi = DeviceBuffer::<i64>::placeholder(batch);
    h.start_device_memory_size_query()?;
    fn out<'a>(device: bool, h: &'a mut [f64], d: &'a mut DeviceBuffer<f64>) -> Results<'a, f64> {
        if device {
            Results::Device(d)
        } else {
            Results::Host(h)
        }
    }
    let _ = match routine {
        "asum" => blas1::asum_strided_batched(
            &mut h,
            n,
            &x,
            1,
            n,
            batch,
            out(device_results, &mut host, &mut dres),
        )?,
        "nrm2" => blas1::nrm2_strided_batched(
            &mut h,
            n,
            &x,
            1,
            n,
            batch,
            out(device_results, &mut host, &mut dres),
        )?,
        "dot" | "dotc" => blas1::dot_strided_batched(
            &mut h,
            n,
            &x,
            1,
            n,
            &x,
            1,
            n,
            batch,
            out(device_results, &mut host, &mut dres),
        )?,
        "iamax" | "iamin" => {
            let o = if device_results {
                Results::Device(&mut dresi)
            } else {
                Results::Host(&mut hosti)
            };
            blas1::iamax_strided_batched(&mut h, n, &x, 1, n, batch, o)?
        }
        other => {
            return Err(Error::InvalidValue(format!(
                "unknown routine '{other}' (asum, nrm2, dot, dotc, iamax, iamin)"
            )))
        }
    };
    let need = h.stop_device_memory_size_query()?;
    println!(
        "{routine} (f64) n={n} batch={batch} on {}: {need} bytes of workspace",
        dev.name()
    );
    Ok(())
}

fn tour(dev: &Device) -> Result<(), Error> {
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
    Ok(())
}
