//! The enums every BLAS user knows: the ground floor, below the device layer, so every layer
//! (the device's GEMM engine included) names operations and triangles the same way.

/// What a routine does with a matrix operand: use it as is, transposed, or conjugate-transposed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// `A`.
    N,
    /// `Aᵀ`.
    T,
    /// `Aᴴ` (equal to `Aᵀ` for real types).
    C,
}

/// Which triangle of a triangular, symmetric or Hermitian matrix is stored and read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Uplo {
    /// The upper triangle (`i <= j`).
    Upper,
    /// The lower triangle (`i >= j`).
    Lower,
}

/// Whether a triangular matrix has an implicit unit diagonal (its stored diagonal is not read).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Diag {
    /// The diagonal is taken as ones and never read.
    Unit,
    /// The stored diagonal is used.
    NonUnit,
}

/// On which side of the other operand a matrix multiplies (Level 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// `op(A) · B`.
    Left,
    /// `B · op(A)`.
    Right,
}

/// Whether an eigensolver computes eigenvectors (rocSOLVER's `rocblas_evect`; LAPACK's
/// `jobz`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Evect {
    /// Eigenvalues only (`jobz = 'N'`).
    None,
    /// Eigenvalues and the eigenvectors of the original matrix, which overwrite it
    /// (`jobz = 'V'`).
    Original,
}

/// Whether an eigensolver sorts the eigenvalues it returns (rocSOLVER's `rocblas_esort`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Esort {
    /// In the order the algorithm leaves them (Jacobi: the final diagonal's order).
    None,
    /// Ascending, the eigenvectors permuted with them (ties keep the diagonal's order).
    Ascending,
}
