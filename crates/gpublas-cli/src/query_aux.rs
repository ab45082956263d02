//! `gpublas query` for the auxiliary transfers (set_vector, get_vector, set_matrix,
//! get_matrix and their `_async` forms): the call is made between
//! `start_device_memory_size_query` and `stop_device_memory_size_query` with an empty host
//! slice and a placeholder device buffer (nothing is allocated, nothing runs). The answer
//! depends on the device side only; the async forms need what the synchronous ones need.

use gpublas::memory::HandleConfig;
use gpublas::{transfer, Complex32, Complex64, Device, DeviceBuffer, Element, Error, Handle};

/// The transfer routines this query knows.
pub(crate) const TRANSFERS: &[&str] = &[
    "set_vector",
    "get_vector",
    "set_matrix",
    "get_matrix",
    "set_vector_async",
    "get_vector_async",
    "set_matrix_async",
    "get_matrix_async",
];

/// Whether `routine` (lower case) is answered here.
pub(crate) fn handles(routine: &str) -> bool {
    TRANSFERS.contains(&routine)
}

/// The arguments of a transfer query.
pub(crate) struct Args {
    /// Routine name, lower case.
    pub routine: String,
    /// Vectors: elements.
    pub n: Option<usize>,
    /// Vectors: increments (default 1).
    pub incx: isize,
    pub incy: isize,
    /// Matrices: shape and leading dimensions (default: rows).
    pub rows: Option<usize>,
    pub cols: Option<usize>,
    pub lda: Option<usize>,
    pub ldb: Option<usize>,
    /// Element type (default f32).
    pub ty: String,
}

fn missing(r: &str, what: &str) -> Error {
    Error::InvalidValue(format!("{r}: --{what} is required"))
}

fn ask<T: Element>(h: &mut Handle, a: &Args) -> Result<String, Error> {
    let r = a.routine.trim_end_matches("_async");
    let set = r.starts_with("set");
    if r.ends_with("vector") {
        let n = a.n.ok_or_else(|| missing(r, "n"))?;
        let dinc = if set { a.incy } else { a.incx };
        let span = n.saturating_sub(1).saturating_mul(dinc.unsigned_abs()) + n.min(1);
        let mut d = DeviceBuffer::<T>::placeholder(span);
        let _ = if set {
            transfer::set_vector(h, n, &[], a.incx, &mut d, a.incy)?
        } else {
            transfer::get_vector(h, n, &d, a.incx, &mut [], a.incy)?
        };
        Ok(format!("n={n} incx={} incy={}", a.incx, a.incy))
    } else {
        let rows = a.rows.ok_or_else(|| missing(r, "rows"))?;
        let cols = a.cols.ok_or_else(|| missing(r, "cols"))?;
        let lda = a.lda.unwrap_or(rows.max(1));
        let ldb = a.ldb.unwrap_or(rows.max(1));
        let dld = if set { ldb } else { lda };
        let span = if rows == 0 || cols == 0 {
            0
        } else {
            (cols - 1).saturating_mul(dld).saturating_add(rows)
        };
        let mut d = DeviceBuffer::<T>::placeholder(span);
        let _ = if set {
            transfer::set_matrix(h, rows, cols, &[], lda, &mut d, ldb)?
        } else {
            transfer::get_matrix(h, rows, cols, &d, lda, &mut [], ldb)?
        };
        Ok(format!("rows={rows} cols={cols} lda={lda} ldb={ldb}"))
    }
}

/// Answers the query and prints the workspace need.
pub(crate) fn query(dev: &Device, a: &Args) -> Result<(), Error> {
    let mut h = Handle::with_config(
        dev,
        &HandleConfig {
            device_memory_size: Some(0),
            ..Default::default()
        },
    )?;
    h.start_device_memory_size_query()?;
    let shape = match a.ty.as_str() {
        "f32" => ask::<f32>(&mut h, a),
        "f64" => ask::<f64>(&mut h, a),
        "c32" => ask::<Complex32>(&mut h, a),
        "c64" => ask::<Complex64>(&mut h, a),
        "f16" => ask::<gpublas::f16>(&mut h, a),
        "bf16" => ask::<gpublas::bf16>(&mut h, a),
        other => Err(Error::InvalidValue(format!(
            "{}: --type takes f32, f64, c32, c64, f16 or bf16, not '{other}'",
            a.routine
        ))),
    };
    // Always end the query, even when the call was refused.
    let need = h.stop_device_memory_size_query();
    let shape = shape?;
    println!(
        "{} ({}) {shape} on {}: {} bytes of workspace",
        a.routine,
        a.ty,
        dev.name(),
        need?
    );
    Ok(())
}
