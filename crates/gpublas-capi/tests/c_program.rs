//! The C test program (`tests/c/schemes.c`): compiled by the system C compiler against the
//! generated header and the cdylib, then run on the host backend (or the device named by
//! `GPUBLAS_DEVICE`). It ports the rocSOLVER document's example: the four workspace schemes
//! (M1–M6) and a size query over dgetrf + dgetrs with null device pointers (M7–M9); also
//! Level-1 calls, Householder QR (dgeqrf, dorgqr, dormqr), the LAPACK drivers (dgesv, dgetri,
//! dposv), least squares and the Cholesky inverse (dgels, dpotri) and bad arguments.

use std::path::PathBuf;
use std::process::Command;

/// The directory holding the cdylib: `cargo test` builds it into `target/<profile>/deps/`
/// beside the test binary (and copies it up to `target/<profile>/` only on `cargo build`), so
/// the test binary's own directory comes first; it always holds this run's build.
fn lib_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let deps = exe.parent()?.to_path_buf();
    let up = deps.parent().map(|d| d.to_path_buf());
    [Some(deps), up]
        .into_iter()
        .flatten()
        .find(|d| d.join("libgpublas_capi.so").exists())
}

#[test]
fn m1_m7_c_program_four_schemes_and_query() {
    let exe_dir = std::env::current_exe().ok();
    let Some(dir) = lib_dir() else {
        panic!("libgpublas_capi.so was not built beside the test binary {exe_dir:?} or one directory up");
    };
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let exe = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("schemes");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(&cc)
        .args([
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-D_POSIX_C_SOURCE=200809L",
            "-O1",
        ])
        .arg("-I")
        .arg(crate_dir.join("include"))
        .arg(crate_dir.join("tests/c/schemes.c"))
        .arg("-o")
        .arg(&exe)
        .arg("-L")
        .arg(&dir)
        .arg(format!("-Wl,-rpath,{}", dir.display()))
        .args(["-lgpublas_capi", "-lm"])
        .output()
        .unwrap_or_else(|e| panic!("could not run the C compiler `{cc}`: {e}"));
    assert!(
        out.status.success(),
        "compiling schemes.c failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let device = std::env::var("GPUBLAS_DEVICE").unwrap_or_else(|_| "host".into());
    let run = Command::new(&exe)
        .env("GPUBLAS_DEVICE", &device)
        .env_remove("GPUBLAS_DEVICE_MEMORY_SIZE")
        .output()
        .expect("run the C program");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    println!("{stdout}{stderr}");
    assert!(
        run.status.success(),
        "the C program failed on {device}:\n{stdout}{stderr}"
    );
    assert!(stdout.contains("0 failed"), "{stdout}");
}
