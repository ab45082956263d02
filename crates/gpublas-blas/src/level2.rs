//! Level 2: the reference BLAS matrix-vector routines for s, d, c, z.
