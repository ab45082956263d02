//! CBLAS: the C interface of reference BLAS (`cblas_dgemm`, …), row- and column-major.
