//! The CUDA C++ kernel sources, compiled at run time by NVRTC for the device's architecture.
//!
//! A source file can hold several families, each compiled on its own (selected by a
//! `-DGPUBLAS_FAMILY_<X>` define) so a program compiles only what it calls. Every source is
//! preceded by `kernels/complex_div.cuh`, the one complex division of the kernels.

use crate::Error;

/// Device addresses one kernel parameter list holds (`List` in the kernel sources: 3968 × 8
/// bytes fit the 32 KiB parameter limit with the job description).
pub(crate) const LIST_MAX: usize = 3968;

pub use crate::device::KernelModule;

/// A kernel source with the shared prelude (range-reduced division) in front, then the named
/// headers, the file and the files after `;` (which build on the file's types); `#line` keeps
/// NVRTC's line numbers those of each file.
macro_rules! kernel_source {
    ($file:literal $(, $header:literal)* $(; $tail:literal)*) => {
        concat!(
            include_str!("../kernels/complex_div.cuh"),
            $(
                "#line 1 \"",
                $header,
                "\"\n",
                include_str!(concat!("../kernels/", $header)),
            )*
            "#line 1 \"",
            $file,
            "\"\n",
            include_str!(concat!("../kernels/", $file)),
            $(
                "#line 1 \"",
                $tail,
                "\"\n",
                include_str!(concat!("../kernels/", $tail)),
            )*
        )
    };
}

const BLAS1: &str = kernel_source!("blas1.cu");

pub(crate) const ASUM: KernelModule = KernelModule {
    name: "blas1.asum",
    source: BLAS1,
    define: "GPUBLAS_FAMILY_ASUM",
};
pub(crate) const NRM2: KernelModule = KernelModule {
    name: "blas1.nrm2",
    source: BLAS1,
    define: "GPUBLAS_FAMILY_NRM2",
};
pub(crate) const DOT: KernelModule = KernelModule {
    name: "blas1.dot",
    source: BLAS1,
    define: "GPUBLAS_FAMILY_DOT",
};
pub(crate) const IAMAX: KernelModule = KernelModule {
    name: "blas1.iamax",
    source: BLAS1,
    define: "GPUBLAS_FAMILY_IAMAX",
};

const BLAS1U: &str = kernel_source!("blas1u.cu");
const BLAS2: &str = kernel_source!("blas2.cu"; "blas2_regions.cu");

pub(crate) const UPDATE: KernelModule = KernelModule {
    name: "blas1.update",
    source: BLAS1U,
    define: "GPUBLAS_FAMILY_UPDATE",
};
pub(crate) const MV: KernelModule = KernelModule {
    name: "blas2.mv",
    source: BLAS2,
    define: "GPUBLAS_FAMILY_MV",
};
pub(crate) const SV: KernelModule = KernelModule {
    name: "blas2.sv",
    source: BLAS2,
    define: "GPUBLAS_FAMILY_SV",
};

const BLAS2U: &str = kernel_source!("blas2u.cu");

pub(crate) const RANKUPD: KernelModule = KernelModule {
    name: "blas2.rankupd",
    source: BLAS2U,
    define: "GPUBLAS_FAMILY_RANKUPD",
};

const BLAS3: &str = kernel_source!("blas3.cu");

pub(crate) const L3: KernelModule = KernelModule {
    name: "blas3.blocks",
    source: BLAS3,
    define: "GPUBLAS_FAMILY_L3",
};

const SOLVER_SRC: &str = kernel_source!("solver.cu", "lapack.cuh", "solver.cuh");

pub(crate) const SOLVER: KernelModule = KernelModule {
    name: "solver",
    source: SOLVER_SRC,
    define: "GPUBLAS_FAMILY_SOLVER",
};

const CHOL_SRC: &str = kernel_source!("chol.cu", "lapack.cuh", "solver.cuh");

/// The solver's Cholesky kernels (leaves, the blocked Cholesky's leaves and panel solves).
pub(crate) const CHOL: KernelModule = KernelModule {
    name: "solver.chol",
    source: CHOL_SRC,
    define: "GPUBLAS_FAMILY_CHOL",
};

const QR_SRC: &str = kernel_source!("qr.cu", "lapack.cuh");

pub(crate) const QR: KernelModule = KernelModule {
    name: "qr",
    source: QR_SRC,
    define: "GPUBLAS_FAMILY_QR",
};

const CHOLQR_SRC: &str = kernel_source!("cholqr.cu", "lapack.cuh");

/// The QR family's CholeskyQR2 panel (double; its own module, so the QR module's other
/// kernels compile without it).
pub(crate) const CHOLQR: KernelModule = KernelModule {
    name: "qr.cholqr",
    source: CHOLQR_SRC,
    define: "GPUBLAS_FAMILY_CHOLQR",
};

const EIG_SRC: &str = kernel_source!("eig.cu", "lapack.cuh");

/// The eigensolvers' kernels (the Jacobi kernel of `syevj_batched` and small `syevd`).
pub(crate) const EIG: KernelModule = KernelModule {
    name: "eig",
    source: EIG_SRC,
    define: "GPUBLAS_FAMILY_EIG",
};

const EIG_DC_SRC: &str = kernel_source!("eig_dc.cu", "lapack.cuh");

/// The eigensolvers' divide and conquer for the tridiagonal stage (its own module: the
/// stage kernels of `eig.cu` keep their cached builds).
pub(crate) const EIG_DC: KernelModule = KernelModule {
    name: "eig.dc",
    source: EIG_DC_SRC,
    define: "GPUBLAS_FAMILY_EIG_DC",
};

const EIG_Q2_SRC: &str = kernel_source!("eig_q2.cu", "lapack.cuh");

/// The eigensolvers' application of stage 2's reflectors (`Z ← Q2 Z`, one launch).
pub(crate) const EIG_Q2: KernelModule = KernelModule {
    name: "eig.q2",
    source: EIG_Q2_SRC,
    define: "GPUBLAS_FAMILY_EIG_Q2",
};

const TRANSFER_SRC: &str = kernel_source!("transfer.cu");

pub(crate) const TRANSFER: KernelModule = KernelModule {
    name: "transfer",
    source: TRANSFER_SRC,
    define: "GPUBLAS_FAMILY_TRANSFER",
};

/// Every kernel module of the library.
pub const MODULES: &[KernelModule] = &[
    ASUM, NRM2, DOT, IAMAX, UPDATE, MV, SV, RANKUPD, L3, SOLVER, CHOL, QR, CHOLQR, EIG, EIG_DC,
    EIG_Q2, TRANSFER,
];

/// Compiles every kernel module for `arch` (e.g. `"sm_90"`) with NVRTC, without a GPU, to
/// the cubins a GPU of that architecture loads (through the on-disk kernel cache). Returns
/// each module's name and cubin size in bytes. CI runs this, so a kernel that does not compile
/// fails the build.
pub fn compile_all(arch: &'static str) -> Result<Vec<(&'static str, usize)>, Error> {
    MODULES
        .iter()
        .map(|m| crate::device::cuda::cubin(m, arch).map(|bin| (m.name, bin.len())))
        .collect()
}
