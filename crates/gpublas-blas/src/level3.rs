//! Level 3: the reference BLAS matrix-matrix routines for s, d, c, z.
