//! `gpublas bench eig`: the symmetric and Hermitian eigensolvers against cuSOLVER in one
//! process on the same GPU, stream and data: the batched Jacobi solver
//! (`syevj_strided_batched`, f64 and Complex64, with eigenvectors) against
//! `cusolverDn?syevjBatched` (orders up to 32) or, for larger orders, cuSOLVER's
//! `cusolverDn?syevj` called once per entry on the same stream (`cusolverDn?syevd` so looped
//! where the library lacks `syevj`; the row names the one used); `syevd_strided_batched` of
//! small orders against `cusolverDnDsyevd` looped; `syevd` / `heevd` of large orders (values
//! only and with vectors) against `cusolverDnDsyevd` / `cusolverDnZheevd`; and, only when
//! asked for (`--only x64`), `syevd` against the 64-bit `cusolverDnXsyevd`, which takes orders
//! (32768 with vectors) whose workspace passes the 32-bit API's `int`.
//!
//! Every row: the gpublas workspace need of the call from a size query (placeholder
//! operands, nothing runs) beside cuSOLVER's `_bufferSize` answer for the same call (bytes;
//! `Xsyevd`: device bytes, its host bytes under the row); one call of each library from the
//! same input (also the warm-up), whose eigenvalues are compared: `diff` is the largest over
//! the entries of `max_i |λ_i − μ_i| / max_i |μ_i|` (`λ` gpublas's, `μ` cuSOLVER's, both
//! ascending), with the non-zero `info` values of either side; then each library's time, the
//! median of single calls each timed by a CUDA-event pair (a looped reference: the whole loop
//! timed as one region). The routines work in place: before every call `A` is copied back from
//! a pristine device buffer (a cuBLAS copy on the same stream, enqueued before the start
//! event, outside the timed region). `speedup` = reference time / gpublas time. gpublas's CUDA
//! `syevd` above order 64 is the two-stage reduction (the tridiagonal's eigenvectors by divide
//! and conquer on the device); a row whose gpublas call is refused shows the error and records
//! cuSOLVER's time and workspace alone.
//!
//! Inputs: random symmetric (Hermitian) matrices `(G + Gᴴ) / 2`, `G` from the shared
//! generator (entries uniform in ±[0.25, 1), complex: both parts), fixed seeds. The Jacobi
//! solvers of both libraries run with tolerance ε (the type's machine epsilon: `off(A) ≤ ε ·
//! ‖A‖_F`) and at most 100 sweeps (cuSOLVER's default). All calls take the lower triangle.
//! A row whose call fails (a routine missing from the loaded cuSOLVER, not enough memory)
//! prints the error and the run goes on.
//!
//! On a GPU the command needs a build with cuBLAS and cuSOLVER (`--features cublas`); on the
//! host backend it times gpublas's host `syevd` and `syevj_strided_batched` alone
//! (`bench_eig/host.rs`).

use clap::Args;
use gpublas::{Device, Error};

mod host;

/// Options of `gpublas bench eig`.
#[derive(Args)]
pub struct EigArgs {
    /// A smoke run: batches of 100 (Jacobi at 32² and 64², syevd at 32² and 64²), syevd at
    /// n = 1024 (f64 values only and with vectors, Complex64 with vectors), three timed calls
    /// per row.
    #[arg(long)]
    quick: bool,
    /// Only these groups (comma-separated): jacobi, small, syevd, x64 (x64, cusolverDnXsyevd
    /// at n = 16384 and 32768, runs only when named here).
    #[arg(long)]
    only: Option<String>,
}

/// `gpublas bench eig`: prints the table (to stderr with `--json`, which prints the rows as
/// JSON on stdout).
pub fn run(dev: &Device, args: &EigArgs, json: bool) -> Result<(), Error> {
    crate::bench::run_family(
        dev,
        host::run,
        imp::run,
        args.quick,
        args.only.as_deref(),
        json,
    )
}

#[cfg(not(feature = "cublas"))]
mod imp {
    use gpublas::{Device, Error};
    use serde_json::Value;

    pub(super) fn run(_: &Device, _: bool, _: Option<&str>) -> Result<Vec<Value>, Error> {
        Err(Error::Unsupported(
            "gpublas bench eig compares gpublas with cuSOLVER, which this build leaves out: \
             rebuild with `--features cublas` (cargo build -p gpublas-cli --features \
             gpublas-cli/cublas)"
                .into(),
        ))
    }
}

#[cfg(feature = "cublas")]
mod imp;
