//! The forwarding table `gpublas info` reports: the LAPACK routines gpublas implements and the
//! ones it forwards are disjoint, and together they are the whole of lapack-symbols.txt.

#[test]
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn native_and_forwarded_split_the_lapack_symbols() {
    let list = include_str!("../lapack-symbols.txt");
    let all: std::collections::BTreeSet<&str> = list
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let native = gpublas_blas::native_lapack_routines();
    let forwarded = gpublas_blas::forwardable_routines();
    for n in native {
        assert!(!forwarded.contains(n), "{n} is both native and forwarded");
        assert!(all.contains(n), "{n} is native but not a LAPACK symbol");
    }
    assert_eq!(native.len() + forwarded.len(), all.len());
    for n in ["dgetrf_", "zposv_", "xerbla_"] {
        assert!(native.contains(&n), "{n} should be native");
    }
    for n in ["dgeev_", "zheevd_", "dgesvd_"] {
        assert!(forwarded.contains(&n), "{n} should be forwarded");
    }
    // Nothing has been called: nothing forwarded yet, no backend loaded.
    assert!(gpublas_blas::forwarded_routines().is_empty());
    assert_eq!(gpublas_blas::fallback_library(), None);
}
