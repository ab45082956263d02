//! Finding the CUDA libraries without `LD_LIBRARY_PATH`.
//!
//! cudarc loads libraries by bare name and panics when none is found. We check presence first
//! (so a missing library is `Error::LibraryMissing`), and preload libraries from the usual
//! install folders by full path: the dynamic loader then resolves cudarc's bare-name `dlopen`
//! to the already loaded object through its soname.

use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use crate::Error;

/// Folders searched for CUDA libraries, in order.
pub fn library_dirs() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = Vec::new();
    for var in ["GPUBLAS_CUDA_LIB_DIR", "CUDA_PATH", "CUDA_HOME"] {
        if let Some(v) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            roots.push(PathBuf::from(v));
        }
    }
    roots.push(PathBuf::from("/usr/local/cuda"));
    let mut dirs = Vec::new();
    for root in roots {
        for sub in ["", "lib64", "lib", "targets/x86_64-linux/lib"] {
            let d = if sub.is_empty() {
                root.clone()
            } else {
                root.join(sub)
            };
            if d.is_dir() && !dirs.contains(&d) {
                dirs.push(d);
            }
        }
    }
    dirs
}

/// Libraries loaded by full path; kept for the life of the process so their sonames stay resolvable.
fn preloaded() -> &'static Mutex<Vec<libloading::Library>> {
    static LIBS: OnceLock<Mutex<Vec<libloading::Library>>> = OnceLock::new();
    LIBS.get_or_init(|| Mutex::new(Vec::new()))
}

/// Loads the first of `files` found in the library folders and keeps it loaded, so a later
/// `dlopen` by bare name finds it by its soname. Returns the path loaded.
pub fn preload(files: &[&str]) -> Option<PathBuf> {
    for dir in library_dirs() {
        for f in files {
            let p = dir.join(f);
            if p.is_file() {
                // SAFETY: loading a CUDA library runs its initialisers, which are well behaved;
                // the handle is kept alive for the process so no symbol outlives it.
                if let Ok(lib) = unsafe { libloading::Library::new(&p) } {
                    if let Ok(mut v) = preloaded().lock() {
                        v.push(lib);
                    }
                    return Some(p);
                }
            }
        }
    }
    None
}

/// Where NVRTC was found, once it has been.
static NVRTC: OnceLock<Result<String, Error>> = OnceLock::new();
static DRIVER: OnceLock<Result<(), Error>> = OnceLock::new();

/// Makes sure the CUDA driver library can be loaded.
pub(crate) fn ensure_driver() -> Result<(), Error> {
    DRIVER
        .get_or_init(|| {
            // SAFETY: only tries to dlopen the library by its candidate names.
            if unsafe { cudarc::driver::sys::is_culib_present() } {
                Ok(())
            } else {
                Err(Error::LibraryMissing(
                    "the CUDA driver library (libcuda.so.1) was not found: no NVIDIA driver is installed"
                        .into(),
                ))
            }
        })
        .clone()
}

/// Makes sure NVRTC can be loaded; returns where it came from.
pub fn ensure_nvrtc() -> Result<String, Error> {
    NVRTC
        .get_or_init(|| {
            let from = preload(&["libnvrtc.so.13", "libnvrtc.so"]);
            // NVRTC loads its builtins by soname at compile time.
            preload(&["libnvrtc-builtins.so.13.0", "libnvrtc-builtins.so"]);
            // SAFETY: only tries to dlopen the library by its candidate names.
            if unsafe { cudarc::nvrtc::sys::is_culib_present() } {
                Ok(from
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| "the system library path".into()))
            } else {
                Err(Error::LibraryMissing(format!(
                    "NVRTC (libnvrtc.so.13) was not found in the library path nor in {:?}; install CUDA, \
                     or `pip install nvidia-cuda-nvrtc` and set CUDA_PATH to its nvidia/cu13 folder",
                    library_dirs()
                )))
            }
        })
        .clone()
}

/// Makes sure cuBLASLt (the GEMM engine of Level 3) can be loaded.
pub(crate) fn ensure_cublaslt() -> Result<(), Error> {
    static LT: OnceLock<Result<(), Error>> = OnceLock::new();
    LT.get_or_init(|| {
        preload(&["libcublasLt.so.13", "libcublasLt.so"]);
        // SAFETY: only tries to dlopen the library by its candidate names.
        if unsafe { cudarc::cublaslt::sys::is_culib_present() } {
            Ok(())
        } else {
            Err(Error::LibraryMissing(format!(
                "cuBLASLt (libcublasLt.so.13) was not found in the library path nor in {:?}: \
                 Level 3 needs it; install CUDA, or `pip install nvidia-cublas` and set CUDA_PATH \
                 to its nvidia/cu13 folder",
                library_dirs()
            )))
        }
    })
    .clone()
}

/// Makes sure NCCL can be loaded (from the library path, `GPUBLAS_NCCL_LIB_DIR`, or the CUDA
/// folders).
pub(crate) fn ensure_nccl() -> Result<(), Error> {
    static NCCL: OnceLock<Result<(), Error>> = OnceLock::new();
    NCCL.get_or_init(|| {
        if let Some(dir) = std::env::var_os("GPUBLAS_NCCL_LIB_DIR") {
            let p = PathBuf::from(dir).join("libnccl.so.2");
            // SAFETY: loading NCCL runs its initialisers, which are well behaved; the handle
            // is kept for the process so its soname stays resolvable.
            if let Ok(lib) = unsafe { libloading::Library::new(&p) } {
                if let Ok(mut v) = preloaded().lock() {
                    v.push(lib);
                }
            }
        }
        preload(&["libnccl.so.2", "libnccl.so"]);
        // SAFETY: only tries to dlopen the library by its candidate names.
        if unsafe { cudarc::nccl::sys::is_culib_present() } {
            Ok(())
        } else {
            Err(Error::LibraryMissing(format!(
                "NCCL (libnccl.so.2) was not found in the library path, GPUBLAS_NCCL_LIB_DIR, nor \
                 in {:?}: `pip install nvidia-nccl-cu13` and set GPUBLAS_NCCL_LIB_DIR to its \
                 nvidia/nccl/lib folder",
                library_dirs()
            )))
        }
    })
    .clone()
}
