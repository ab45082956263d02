//! `gpublas info`'s part about the drop-in BLAS/LAPACK library (crate gpublas-blas).

/// The drop-in library (crate gpublas-blas, `scripts/drop-in`): the LAPACK routines it has,
/// how many it forwards and where they would go.
pub(crate) fn info(list_forwarded: bool) {
    // `dgetrf_` → `getrf` under `d`, in first-seen order: "getrf (s d c z)".
    let mut native: Vec<(String, String)> = Vec::new();
    for name in gpublas_blas::native_lapack_routines() {
        if matches!(*name, "lsame_" | "xerbla_" | "xerbla_array_") {
            continue;
        }
        let (t, base) = name.trim_end_matches('_').split_at(1);
        match native.iter_mut().find(|(b, _)| b == base) {
            Some((_, types)) => types.push_str(t),
            None => native.push((base.to_string(), t.to_string())),
        }
    }
    let native: Vec<String> = native.iter().map(|(b, t)| format!("{b} ({t})")).collect();
    let forwarded = gpublas_blas::forwardable_routines();
    println!("drop-in BLAS/LAPACK (scripts/drop-in DIR; GPUBLAS_BLAS_CROSSOVER, GPUBLAS_FALLBACK_LAPACK):");
    println!(
        "  LAPACK on gpublas ({}): {}",
        native.len(),
        native.join(" ")
    );
    match gpublas_blas::expected_fallback() {
        Ok(lib) => {
            println!(
            "  forwarded ({} routines, on their first call) to {lib}, or to the liblapack.so.3 a \
             program loaded itself{}",
            forwarded.len(),
            if list_forwarded { ":" } else { " (--forwarded lists them)" }
        )
        }
        Err(why) => println!(
            "  {} routines would be forwarded, but no LAPACK is there to take them: {why}",
            forwarded.len()
        ),
    }
    if list_forwarded {
        for line in forwarded.chunks(8) {
            println!("    {}", line.join(" "));
        }
    }
}
