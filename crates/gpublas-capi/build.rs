//! Generates the C entry points of every routine from one table, then the C header.
//!
//! Each row names a routine of the Rust crate, its C names per type, and its parameters in
//! order, in a small notation (below). From a row come three C functions per type (single,
//! `_batched`, `_strided_batched`), each converting C integers, enums and raw pointers through
//! `imp::Ctx` and calling the Rust function. The functions go to `$OUT_DIR/routines.rs`
//! (included by `lib.rs`); cbindgen then writes `include/gpublas.h` from `lib.rs`, `imp.rs`
//! and that file, because it cannot see through `include!` or macros.
//!
//! Parameter notation (`;`-separated, in the Rust function's order):
//! - `op X`, `uplo X`, `diag X`, `side X`: an enum; `size X`: a non-negative `int64_t`;
//! - `coef X TY`: a scalar in the handle's pointer mode (`TY` is `T`, the element type, or
//!   `R`, its real type);
//! - `vin X INC [LEN]` / `vout …`: a vector read / written, `LEN` elements at increment `INC`;
//! - `min X LD [ROWS | COLS]` / `mout …`: a column-major matrix read / written;
//! - `din X TY [SPAN]` / `dout …`: a device operand of `SPAN` elements (an `Option<usize>`);
//! - `res X TY`: one result per batch entry in the pointer mode;
//! - `piv X [LEN]` / `pivin X [LEN]`: pivots written / read (device memory; `stride_piv` in
//!   the batched forms); `pivmut X [LEN]`: pivots written, passed to the Rust function as a
//!   `&mut DeviceBuffer<i32>` rather than `Results` (the drivers: gesv); `info X`: one `info`
//!   per batch entry (device memory);
//! - `tau X [LEN]` / `tauin X [LEN]`: Householder scalars written / read, of the element type
//!   (device memory, one array for every form; `stride_X` in the batched forms, rocSOLVER's
//!   `strideP`);
//! - `batch`: where `batch_count` goes.

use std::fmt::Write as _;
use std::path::PathBuf;

/// Element types: prefix, Rust element, C element, Rust real, C real.
const TYPES: [(&str, &str, &str, &str, &str); 4] = [
    ("s", "f32", "f32", "f32", "f32"),
    ("d", "f64", "f64", "f64", "f64"),
    (
        "c",
        "gpublas::Complex32",
        "gpublas_float_complex",
        "f32",
        "f32",
    ),
    (
        "z",
        "gpublas::Complex64",
        "gpublas_double_complex",
        "f64",
        "f64",
    ),
];

/// One routine: Rust module, Rust function, C base names by type prefix, parameters.
struct Row {
    module: &'static str,
    rust: &'static str,
    names: Vec<(&'static str, String)>,
    params: &'static str,
}

/// `gpublas_{p}{base}` for the given prefixes.
fn named(prefixes: &str, base: &str) -> Vec<(&'static str, String)> {
    TYPES
        .iter()
        .filter(|t| prefixes.contains(t.0))
        .map(|t| (t.0, format!("{}{base}", t.0)))
        .collect()
}

/// Explicit names: `[("s", "sasum"), …]`.
fn explicit(list: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
    list.iter().map(|(p, n)| (*p, n.to_string())).collect()
}

fn rows() -> Vec<Row> {
    let r = |module, rust, names, params| Row {
        module,
        rust,
        names,
        params,
    };
    const A_GEMM: &str =
        "min a lda [if transa == Op::N { m } else { k } | if transa == Op::N { k } else { m }]";
    const B_GEMM: &str =
        "min b ldb [if transb == Op::N { k } else { n } | if transb == Op::N { n } else { k }]";
    const A_RK: &str =
        "min a lda [if trans == Op::N { n } else { k } | if trans == Op::N { k } else { n }]";
    const B_RK: &str =
        "min b ldb [if trans == Op::N { n } else { k } | if trans == Op::N { k } else { n }]";
    const A_SIDE: &str = "min a lda [if side == Side::Left { m } else { n } | if side == Side::Left { m } else { n }]";
    // ormqr's reflectors: k columns of the order of Q (m from the left, n from the right).
    const A_QR: &str = "min a lda [if side == Side::Left { m } else { n } | k]";
    // ormlq's reflectors: k rows of the order of Q (lda ≥ k).
    const A_LQ: &str = "min a lda [k | if side == Side::Left { m } else { n }]";
    let mut v = vec![
        // Level 1 reductions.
        r("blas1", "asum", explicit(&[("s", "sasum"), ("d", "dasum"), ("c", "scasum"), ("z", "dzasum")]),
          "size n; vin x incx [n]; batch; res result R"),
        r("blas1", "nrm2", explicit(&[("s", "snrm2"), ("d", "dnrm2"), ("c", "scnrm2"), ("z", "dznrm2")]),
          "size n; vin x incx [n]; batch; res result R"),
        r("blas1", "iamax", explicit(&[("s", "isamax"), ("d", "idamax"), ("c", "icamax"), ("z", "izamax")]),
          "size n; vin x incx [n]; batch; res result i64"),
        r("blas1", "iamin", explicit(&[("s", "isamin"), ("d", "idamin"), ("c", "icamin"), ("z", "izamin")]),
          "size n; vin x incx [n]; batch; res result i64"),
        r("blas1", "dot", explicit(&[("s", "sdot"), ("d", "ddot"), ("c", "cdotu"), ("z", "zdotu")]),
          "size n; vin x incx [n]; vin y incy [n]; batch; res result T"),
        r("blas1", "dotc", explicit(&[("c", "cdotc"), ("z", "zdotc")]),
          "size n; vin x incx [n]; vin y incy [n]; batch; res result T"),
        // Level 1 updates.
        r("blas1", "axpy", named("sdcz", "axpy"), "size n; coef alpha T; vin x incx [n]; vout y incy [n]; batch"),
        r("blas1", "scal", named("sdcz", "scal"), "size n; coef alpha T; vout x incx [n]; batch"),
        r("blas1", "copy", named("sdcz", "copy"), "size n; vin x incx [n]; vout y incy [n]; batch"),
        r("blas1", "swap", named("sdcz", "swap"), "size n; vout x incx [n]; vout y incy [n]; batch"),
        r("blas1", "rot", named("sdcz", "rot"),
          "size n; vout x incx [n]; vout y incy [n]; coef c R; coef s T; batch"),
        r("blas1", "rotm", named("sd", "rotm"),
          "size n; vout x incx [n]; vout y incy [n]; din param T [Some(5)]; batch"),
        r("blas1", "rotg", named("sdcz", "rotg"),
          "dout a T [Some(1)]; dout b T [Some(1)]; dout c R [Some(1)]; dout s T [Some(1)]; batch"),
        r("blas1", "rotmg", named("sd", "rotmg"),
          "dout d1 T [Some(1)]; dout d2 T [Some(1)]; dout x1 T [Some(1)]; din y1 T [Some(1)]; dout param T [Some(5)]; batch"),
        // Level 2.
        r("blas2", "gemv", named("sdcz", "gemv"),
          "op trans; size m; size n; coef alpha T; min a lda [m | n]; \
           vin x incx [if trans == Op::N { n } else { m }]; coef beta T; \
           vout y incy [if trans == Op::N { m } else { n }]; batch"),
        r("blas2", "symv", named("sdcz", "symv"),
          "uplo uplo; size n; coef alpha T; min a lda [n | n]; vin x incx [n]; coef beta T; vout y incy [n]; batch"),
        r("blas2", "hemv", named("cz", "hemv"),
          "uplo uplo; size n; coef alpha T; min a lda [n | n]; vin x incx [n]; coef beta T; vout y incy [n]; batch"),
        r("blas2", "trmv", named("sdcz", "trmv"),
          "uplo uplo; op trans; diag diag; size n; min a lda [n | n]; vout x incx [n]; batch"),
        r("blas2", "tbmv", named("sdcz", "tbmv"),
          "uplo uplo; op trans; diag diag; size n; size k; min a lda [k.saturating_add(1) | n]; vout x incx [n]; batch"),
        r("blas2", "tpmv", named("sdcz", "tpmv"),
          "uplo uplo; op trans; diag diag; size n; din a T [imp::packed_span(n)]; vout x incx [n]; batch"),
        r("blas2", "trsv", named("sdcz", "trsv"),
          "uplo uplo; op trans; diag diag; size n; min a lda [n | n]; vout x incx [n]; batch"),
        r("blas2", "gbmv", named("sdcz", "gbmv"),
          "op trans; size m; size n; size kl; size ku; coef alpha T; \
           min a lda [kl.saturating_add(ku).saturating_add(1) | n]; \
           vin x incx [if trans == Op::N { n } else { m }]; coef beta T; \
           vout y incy [if trans == Op::N { m } else { n }]; batch"),
        r("blas2", "sbmv", named("sdcz", "sbmv"),
          "uplo uplo; size n; size k; coef alpha T; min a lda [k.saturating_add(1) | n]; vin x incx [n]; coef beta T; vout y incy [n]; batch"),
        r("blas2", "hbmv", named("cz", "hbmv"),
          "uplo uplo; size n; size k; coef alpha T; min a lda [k.saturating_add(1) | n]; vin x incx [n]; coef beta T; vout y incy [n]; batch"),
        r("blas2", "spmv", named("sdcz", "spmv"),
          "uplo uplo; size n; coef alpha T; din a T [imp::packed_span(n)]; vin x incx [n]; coef beta T; vout y incy [n]; batch"),
        r("blas2", "hpmv", named("cz", "hpmv"),
          "uplo uplo; size n; coef alpha T; din a T [imp::packed_span(n)]; vin x incx [n]; coef beta T; vout y incy [n]; batch"),
        r("blas2", "tbsv", named("sdcz", "tbsv"),
          "uplo uplo; op trans; diag diag; size n; size k; min a lda [k.saturating_add(1) | n]; vout x incx [n]; batch"),
        r("blas2", "tpsv", named("sdcz", "tpsv"),
          "uplo uplo; op trans; diag diag; size n; din a T [imp::packed_span(n)]; vout x incx [n]; batch"),
        // Level 2 rank updates.
        r("blas2", "ger", named("sd", "ger"),
          "size m; size n; coef alpha T; vin x incx [m]; vin y incy [n]; mout a lda [m | n]; batch"),
        r("blas2", "geru", named("cz", "geru"),
          "size m; size n; coef alpha T; vin x incx [m]; vin y incy [n]; mout a lda [m | n]; batch"),
        r("blas2", "gerc", named("cz", "gerc"),
          "size m; size n; coef alpha T; vin x incx [m]; vin y incy [n]; mout a lda [m | n]; batch"),
        r("blas2", "syr", named("sdcz", "syr"),
          "uplo uplo; size n; coef alpha T; vin x incx [n]; mout a lda [n | n]; batch"),
        r("blas2", "her", named("cz", "her"),
          "uplo uplo; size n; coef alpha R; vin x incx [n]; mout a lda [n | n]; batch"),
        r("blas2", "syr2", named("sdcz", "syr2"),
          "uplo uplo; size n; coef alpha T; vin x incx [n]; vin y incy [n]; mout a lda [n | n]; batch"),
        r("blas2", "her2", named("cz", "her2"),
          "uplo uplo; size n; coef alpha T; vin x incx [n]; vin y incy [n]; mout a lda [n | n]; batch"),
        r("blas2", "spr", named("sdcz", "spr"),
          "uplo uplo; size n; coef alpha T; vin x incx [n]; dout ap T [imp::packed_span(n)]; batch"),
        r("blas2", "hpr", named("cz", "hpr"),
          "uplo uplo; size n; coef alpha R; vin x incx [n]; dout ap T [imp::packed_span(n)]; batch"),
        r("blas2", "spr2", named("sdcz", "spr2"),
          "uplo uplo; size n; coef alpha T; vin x incx [n]; vin y incy [n]; dout ap T [imp::packed_span(n)]; batch"),
        r("blas2", "hpr2", named("cz", "hpr2"),
          "uplo uplo; size n; coef alpha T; vin x incx [n]; vin y incy [n]; dout ap T [imp::packed_span(n)]; batch"),
        // Level 3.
        r("blas3", "gemm", named("sdcz", "gemm"),
          Box::leak(format!("op transa; op transb; size m; size n; size k; coef alpha T; {A_GEMM}; {B_GEMM}; coef beta T; mout c ldc [m | n]; batch").into_boxed_str())),
        r("blas3", "symm", named("sdcz", "symm"),
          Box::leak(format!("side side; uplo uplo; size m; size n; coef alpha T; {A_SIDE}; min b ldb [m | n]; coef beta T; mout c ldc [m | n]; batch").into_boxed_str())),
        r("blas3", "hemm", named("cz", "hemm"),
          Box::leak(format!("side side; uplo uplo; size m; size n; coef alpha T; {A_SIDE}; min b ldb [m | n]; coef beta T; mout c ldc [m | n]; batch").into_boxed_str())),
        r("blas3", "syrk", named("sdcz", "syrk"),
          Box::leak(format!("uplo uplo; op trans; size n; size k; coef alpha T; {A_RK}; coef beta T; mout c ldc [n | n]; batch").into_boxed_str())),
        r("blas3", "herk", named("cz", "herk"),
          Box::leak(format!("uplo uplo; op trans; size n; size k; coef alpha R; {A_RK}; coef beta R; mout c ldc [n | n]; batch").into_boxed_str())),
        r("blas3", "syr2k", named("sdcz", "syr2k"),
          Box::leak(format!("uplo uplo; op trans; size n; size k; coef alpha T; {A_RK}; {B_RK}; coef beta T; mout c ldc [n | n]; batch").into_boxed_str())),
        r("blas3", "her2k", named("cz", "her2k"),
          Box::leak(format!("uplo uplo; op trans; size n; size k; coef alpha T; {A_RK}; {B_RK}; coef beta R; mout c ldc [n | n]; batch").into_boxed_str())),
        r("blas3", "syrkx", named("sdcz", "syrkx"),
          Box::leak(format!("uplo uplo; op trans; size n; size k; coef alpha T; {A_RK}; {B_RK}; coef beta T; mout c ldc [n | n]; batch").into_boxed_str())),
        r("blas3", "herkx", named("cz", "herkx"),
          Box::leak(format!("uplo uplo; op trans; size n; size k; coef alpha T; {A_RK}; {B_RK}; coef beta R; mout c ldc [n | n]; batch").into_boxed_str())),
        r("blas3", "trmm", named("sdcz", "trmm"),
          Box::leak(format!("side side; uplo uplo; op transa; diag diag; size m; size n; coef alpha T; {A_SIDE}; mout b ldb [m | n]; batch").into_boxed_str())),
        r("blas3", "trsm", named("sdcz", "trsm"),
          Box::leak(format!("side side; uplo uplo; op transa; diag diag; size m; size n; coef alpha T; {A_SIDE}; mout b ldb [m | n]; batch").into_boxed_str())),
        r("blas3", "trsm_ex", named("sdcz", "trsm_ex"),
          Box::leak(format!("side side; uplo uplo; op transa; diag diag; size m; size n; coef alpha T; {A_SIDE}; mout b ldb [m | n]; batch; method inv_a ldinv [if side == Side::Left {{ m }} else {{ n }} | if side == Side::Left {{ m }} else {{ n }}]").into_boxed_str())),
        r("blas3", "trtri", named("sdcz", "trtri"),
          "uplo uplo; diag diag; size n; min a lda [n | n]; mout inv_a ldinv [n | n]; batch"),
        // The solver.
        r("solver", "getrf", named("sdcz", "getrf"),
          "size m; size n; mout a lda [m | n]; piv ipiv [m.min(n)]; info info; batch"),
        r("solver", "getrf_npvt", named("sdcz", "getrf_npvt"),
          "size m; size n; mout a lda [m | n]; info info; batch"),
        r("solver", "getrs", named("sdcz", "getrs"),
          "op trans; size n; size nrhs; min a lda [n | n]; pivin ipiv [n]; mout b ldb [n | nrhs]; batch"),
        r("solver", "potrf", named("sdcz", "potrf"),
          "uplo uplo; size n; mout a lda [n | n]; info info; batch"),
        r("solver", "potrs", named("sdcz", "potrs"),
          "uplo uplo; size n; size nrhs; min a lda [n | n]; mout b ldb [n | nrhs]; batch"),
        // The LAPACK drivers: gesv (getrf then getrs), posv (potrf then potrs), getri (the
        // inverse from getrf's factors and pivots) and potri (from potrf's factor), in
        // rocSOLVER's argument order.
        r("solver", "gesv", named("sdcz", "gesv"),
          "size n; size nrhs; mout a lda [n | n]; pivmut ipiv [n]; mout b ldb [n | nrhs]; info info; batch"),
        r("solver", "posv", named("sdcz", "posv"),
          "uplo uplo; size n; size nrhs; mout a lda [n | n]; mout b ldb [n | nrhs]; info info; batch"),
        r("solver", "getri", named("sdcz", "getri"),
          "size n; mout a lda [n | n]; pivin ipiv [n]; info info; batch"),
        r("solver", "potri", named("sdcz", "potri"),
          "uplo uplo; size n; mout a lda [n | n]; info info; batch"),
        // Householder QR: LAPACK's names, orgqr/ormqr for the real types and ungqr/unmqr for
        // the complex ones (the same Rust functions under both names).
        r("solver", "geqrf", named("sdcz", "geqrf"),
          "size m; size n; mout a lda [m | n]; tau tau [m.min(n)]; batch"),
        r("solver", "orgqr", named("sd", "orgqr"),
          "size m; size n; size k; mout a lda [m | n]; tauin tau [k]; batch"),
        r("solver", "ungqr", named("cz", "ungqr"),
          "size m; size n; size k; mout a lda [m | n]; tauin tau [k]; batch"),
        r("solver", "ormqr", named("sd", "ormqr"),
          Box::leak(format!("side side; op trans; size m; size n; size k; {A_QR}; tauin tau [k]; mout c ldc [m | n]; batch").into_boxed_str())),
        r("solver", "unmqr", named("cz", "unmqr"),
          Box::leak(format!("side side; op trans; size m; size n; size k; {A_QR}; tauin tau [k]; mout c ldc [m | n]; batch").into_boxed_str())),
        // Householder LQ: gelqf, and ormlq/unmlq (the same Rust function) applying its Q,
        // the reflectors in the first k rows of A.
        r("solver", "gelqf", named("sdcz", "gelqf"),
          "size m; size n; mout a lda [m | n]; tau tau [m.min(n)]; batch"),
        r("solver", "ormlq", named("sd", "ormlq"),
          Box::leak(format!("side side; op trans; size m; size n; size k; {A_LQ}; tauin tau [k]; mout c ldc [m | n]; batch").into_boxed_str())),
        r("solver", "unmlq", named("cz", "unmlq"),
          Box::leak(format!("side side; op trans; size m; size n; size k; {A_LQ}; tauin tau [k]; mout c ldc [m | n]; batch").into_boxed_str())),
        // The least-squares driver: QR (m ≥ n) or LQ (m < n) then the solve; B spans
        // max(m, n) rows whatever the operation.
        r("solver", "gels", named("sdcz", "gels"),
          "op trans; size m; size n; size nrhs; mout a lda [m | n]; mout b ldb [m.max(n) | nrhs]; info info; batch"),
    ];
    v.shrink_to_fit();
    v
}

#[derive(Clone, Copy, PartialEq)]
enum Form {
    Single,
    Batched,
    Strided,
}

impl Form {
    fn suffix(self) -> &'static str {
        match self {
            Form::Single => "",
            Form::Batched => "_batched",
            Form::Strided => "_strided_batched",
        }
    }
}

/// One parsed parameter.
enum P {
    Enum {
        kind: String,
        name: String,
    },
    Size(String),
    Coef {
        name: String,
        ty: String,
    },
    Vec {
        out: bool,
        name: String,
        inc: String,
        len: String,
    },
    Mat {
        out: bool,
        name: String,
        ld: String,
        rows: String,
        cols: String,
    },
    Dev {
        out: bool,
        name: String,
        ty: String,
        span: String,
    },
    Res {
        name: String,
        ty: String,
    },
    /// Pivots: written (`out`), as `Results` or, with `buf`, as a `&mut DeviceBuffer<i32>`;
    /// or read.
    Piv {
        out: bool,
        buf: bool,
        name: String,
        len: String,
    },
    /// Householder scalars: `len` elements per entry in one buffer, `stride_{name}` apart.
    Tau {
        out: bool,
        name: String,
        len: String,
    },
    Info(String),
    /// trsm_ex's method and the optional inverse (`inv_a`, `ldinv`, spanning `[ROWS | COLS]`).
    Method {
        name: String,
        ld: String,
        rows: String,
        cols: String,
    },
    Batch,
}

fn bracket(s: &str) -> (&str, &str) {
    let a = s.find('[').expect("a [ in the parameter");
    let b = s.rfind(']').expect("a ] in the parameter");
    (s[..a].trim(), s[a + 1..b].trim())
}

fn parse(params: &str) -> Vec<P> {
    params
        .split(';')
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .map(|p| {
            let kind = p.split_whitespace().next().unwrap();
            let words = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
            match kind {
                "op" | "uplo" | "diag" | "side" => P::Enum {
                    kind: kind.into(),
                    name: words(p)[1].clone(),
                },
                "size" => P::Size(words(p)[1].clone()),
                "coef" => {
                    let w = words(p);
                    P::Coef {
                        name: w[1].clone(),
                        ty: w[2].clone(),
                    }
                }
                "res" => {
                    let w = words(p);
                    P::Res {
                        name: w[1].clone(),
                        ty: w[2].clone(),
                    }
                }
                "info" => P::Info(words(p)[1].clone()),
                "method" => {
                    let (head, dims) = bracket(p);
                    let w = words(head);
                    let (rows, cols) = dims.split_once('|').expect("ROWS | COLS");
                    P::Method {
                        name: w[1].clone(),
                        ld: w[2].clone(),
                        rows: rows.trim().into(),
                        cols: cols.trim().into(),
                    }
                }
                "batch" => P::Batch,
                "vin" | "vout" => {
                    let (head, len) = bracket(p);
                    let w = words(head);
                    P::Vec {
                        out: kind == "vout",
                        name: w[1].clone(),
                        inc: w[2].clone(),
                        len: len.into(),
                    }
                }
                "min" | "mout" => {
                    let (head, dims) = bracket(p);
                    let w = words(head);
                    let (rows, cols) = dims.split_once('|').expect("ROWS | COLS");
                    P::Mat {
                        out: kind == "mout",
                        name: w[1].clone(),
                        ld: w[2].clone(),
                        rows: rows.trim().into(),
                        cols: cols.trim().into(),
                    }
                }
                "din" | "dout" => {
                    let (head, span) = bracket(p);
                    let w = words(head);
                    P::Dev {
                        out: kind == "dout",
                        name: w[1].clone(),
                        ty: w[2].clone(),
                        span: span.into(),
                    }
                }
                "piv" | "pivmut" | "pivin" => {
                    let (head, len) = bracket(p);
                    P::Piv {
                        out: kind != "pivin",
                        buf: kind == "pivmut",
                        name: words(head)[1].clone(),
                        len: len.into(),
                    }
                }
                "tau" | "tauin" => {
                    let (head, len) = bracket(p);
                    P::Tau {
                        out: kind == "tau",
                        name: words(head)[1].clone(),
                        len: len.into(),
                    }
                }
                other => panic!("unknown parameter kind {other} in {p}"),
            }
        })
        .collect()
}

/// Rust and C types of a type token for one element type.
fn ty(tok: &str, t: &(&str, &str, &str, &str, &str)) -> (String, String) {
    match tok {
        "T" => (t.1.into(), t.2.into()),
        "R" => (t.3.into(), t.4.into()),
        other => (other.into(), other.into()),
    }
}

fn gen_fn(
    out: &mut String,
    row: &Row,
    t: &(&str, &str, &str, &str, &str),
    cname: &str,
    form: Form,
) {
    let ps = parse(row.params);
    let fname = format!("gpublas_{cname}{}", form.suffix());
    let (rt, ct) = (t.1, t.2);
    let mut cparams = vec!["handle: gpublas_handle".to_string()];
    let mut convs = Vec::new();
    let mut ops = Vec::new();
    let mut args = Vec::new();
    let batched = form == Form::Batched;
    let strided = form == Form::Strided;
    let stride_conv = |convs: &mut Vec<String>, s: &str| {
        convs.push(format!("let {s} = cx.size(\"{s}\", {s})?;"));
    };
    // A device operand in this form: C parameter, conversion, argument.
    let operand = |cparams: &mut Vec<String>,
                   convs: &mut Vec<String>,
                   ops: &mut Vec<String>,
                   args: &mut Vec<String>,
                   out: bool,
                   name: &str,
                   rty: &str,
                   cty: &str,
                   span: String,
                   after: &[String]| {
        let ptr = if out { "*mut" } else { "*const" };
        let stride = format!("stride_{name}");
        if batched {
            cparams.push(format!("{name}: *const {ptr} {cty}"));
        } else {
            cparams.push(format!("{name}: {ptr} {cty}"));
        }
        for a in after {
            cparams.push(format!("{a}: i64"));
        }
        let span = if strided {
            cparams.push(format!("{stride}: i64"));
            stride_conv(convs, &stride);
            format!("imp::strided({span}, {stride}, batch_count)")
        } else {
            span
        };
        let m = if out { "mut " } else { "" };
        if batched {
            ops.push(format!(
                "let {m}{name}_list = unsafe {{ cx.list::<{rty}>(\"{name}\", {name} as u64, batch_count, cx.span(\"{name}\", {span})?)? }};"
            ));
            if out {
                ops.push(format!(
                    "let mut {name}: Vec<&mut DeviceBuffer<{rty}>> = {name}_list.iter_mut().collect();"
                ));
            } else {
                ops.push(format!(
                    "let {name}: Vec<&DeviceBuffer<{rty}>> = {name}_list.iter().collect();"
                ));
            }
        } else {
            ops.push(format!(
                "let {m}{name} = unsafe {{ cx.buf::<{rty}>(\"{name}\", {name} as u64, cx.span(\"{name}\", {span})?)? }};"
            ));
        }
        args.push(if out {
            format!("&mut {name}")
        } else {
            format!("&{name}")
        });
        for a in after {
            args.push(a.clone());
        }
        if strided {
            args.push(stride);
        }
    };
    for p in &ps {
        match p {
            P::Enum { kind, name } => {
                let cty = match kind.as_str() {
                    "op" => "gpublas_operation",
                    "uplo" => "gpublas_fill",
                    "diag" => "gpublas_diagonal",
                    _ => "gpublas_side",
                };
                cparams.push(format!("{name}: {cty}"));
                convs.push(format!("let {name} = cx.{kind}(\"{name}\", {name})?;"));
                args.push(name.clone());
            }
            P::Size(name) => {
                cparams.push(format!("{name}: i64"));
                convs.push(format!("let {name} = cx.size(\"{name}\", {name})?;"));
                args.push(name.clone());
            }
            P::Coef { name, ty: tok } => {
                let (r, c) = ty(tok, t);
                cparams.push(format!("{name}: *const {c}"));
                ops.push(format!(
                    "let {name} = unsafe {{ cx.coef::<{r}>(\"{name}\", {name} as u64)? }};"
                ));
                args.push(format!("{name}.get()"));
            }
            P::Vec {
                out,
                name,
                inc,
                len,
            } => {
                convs.push(format!("let {inc} = cx.inc(\"{inc}\", {inc})?;"));
                let span = format!("imp::vec_span({len}, {inc})");
                operand(
                    &mut cparams,
                    &mut convs,
                    &mut ops,
                    &mut args,
                    *out,
                    name,
                    rt,
                    ct,
                    span,
                    std::slice::from_ref(inc),
                );
            }
            P::Mat {
                out,
                name,
                ld,
                rows,
                cols,
            } => {
                convs.push(format!("let {ld} = cx.size(\"{ld}\", {ld})?;"));
                let span = format!("imp::mat_span({rows}, {cols}, {ld})");
                operand(
                    &mut cparams,
                    &mut convs,
                    &mut ops,
                    &mut args,
                    *out,
                    name,
                    rt,
                    ct,
                    span,
                    std::slice::from_ref(ld),
                );
            }
            P::Dev {
                out,
                name,
                ty: tok,
                span,
            } => {
                let (r, c) = ty(tok, t);
                operand(
                    &mut cparams,
                    &mut convs,
                    &mut ops,
                    &mut args,
                    *out,
                    name,
                    &r,
                    &c,
                    span.clone(),
                    &[],
                );
            }
            P::Res { name, ty: tok } => {
                let (r, c) = ty(tok, t);
                cparams.push(format!("{name}: *mut {c}"));
                ops.push(format!(
                    "let mut {name} = unsafe {{ cx.results::<{r}>(\"{name}\", {name} as u64, batch_count)? }};"
                ));
                args.push(format!("{name}.get()"));
            }
            P::Piv {
                out,
                buf,
                name,
                len,
            } => {
                let ptr = if *out { "*mut" } else { "*const" };
                cparams.push(format!("{name}: {ptr} i32"));
                let span = if form == Form::Single {
                    format!("Some({len})")
                } else {
                    cparams.push("stride_piv: i64".into());
                    stride_conv(&mut convs, "stride_piv");
                    format!("imp::strided(Some({len}), stride_piv, batch_count)")
                };
                let m = if *out { "mut " } else { "" };
                ops.push(format!(
                    "let {m}{name} = unsafe {{ cx.buf::<i32>(\"{name}\", {name} as u64, cx.span(\"{name}\", {span})?)? }};"
                ));
                args.push(match (*out, *buf) {
                    (true, false) => format!("Results::Device(&mut {name})"),
                    (true, true) => format!("&mut {name}"),
                    (false, _) => format!("&{name}"),
                });
                if form != Form::Single {
                    args.push("stride_piv".into());
                }
            }
            P::Tau { out, name, len } => {
                let ptr = if *out { "*mut" } else { "*const" };
                cparams.push(format!("{name}: {ptr} {ct}"));
                let stride = format!("stride_{name}");
                let span = if form == Form::Single {
                    format!("Some({len})")
                } else {
                    cparams.push(format!("{stride}: i64"));
                    stride_conv(&mut convs, &stride);
                    format!("imp::strided(Some({len}), {stride}, batch_count)")
                };
                let m = if *out { "mut " } else { "" };
                ops.push(format!(
                    "let {m}{name} = unsafe {{ cx.buf::<{rt}>(\"{name}\", {name} as u64, cx.span(\"{name}\", {span})?)? }};"
                ));
                args.push(if *out {
                    format!("&mut {name}")
                } else {
                    format!("&{name}")
                });
                if form != Form::Single {
                    args.push(stride);
                }
            }
            P::Info(name) => {
                cparams.push(format!("{name}: *mut i32"));
                ops.push(format!(
                    "let mut {name} = unsafe {{ cx.buf::<i32>(\"{name}\", {name} as u64, batch_count)? }};"
                ));
                args.push(format!("Results::Device(&mut {name})"));
            }
            P::Method {
                name,
                ld,
                rows,
                cols,
            } => {
                cparams.push("method: gpublas_trsm_method".into());
                cparams.push(format!("{name}: *const {ct}"));
                cparams.push(format!("{ld}: i64"));
                convs.push(format!("let {ld} = cx.size(\"{ld}\", {ld})?;"));
                let stride = format!("stride_{name}");
                let mut span = format!("imp::mat_span({rows}, {cols}, {ld})");
                if strided {
                    cparams.push(format!("{stride}: i64"));
                    stride_conv(&mut convs, &stride);
                    span = format!("imp::strided({span}, {stride}, batch_count)");
                }
                let inverse = "method == GPUBLAS_TRSM_METHOD_INVERSE";
                if batched {
                    ops.push(format!(
                        "let {name}_list = if {inverse} {{ unsafe {{ cx.list::<{rt}>(\"{name}\", {name} as u64, batch_count, cx.span(\"{name}\", {span})?)? }} }} else {{ Vec::new() }};"
                    ));
                    ops.push(format!(
                        "let {name}_refs: Vec<&DeviceBuffer<{rt}>> = {name}_list.iter().collect();"
                    ));
                    ops.push(format!(
                        "let method = cx.trsm_method(method, ({inverse}).then_some((&{name}_refs[..], {ld})))?;"
                    ));
                } else {
                    ops.push(format!(
                        "let {name}_buf = if {inverse} {{ Some(unsafe {{ cx.buf::<{rt}>(\"{name}\", {name} as u64, cx.span(\"{name}\", {span})?)? }}) }} else {{ None }};"
                    ));
                    let tuple = if strided {
                        format!("(b, {ld}, {stride})")
                    } else {
                        format!("(b, {ld})")
                    };
                    ops.push(format!("let method = cx.trsm_method(method, {name}_buf.as_ref().map(|b| {tuple}))?;"));
                }
                args.push("method".into());
            }
            P::Batch => {
                if form != Form::Single {
                    cparams.push("batch_count: i64".into());
                }
                if strided {
                    args.push("batch_count".into());
                }
            }
        }
    }
    let batch_conv = if form == Form::Single {
        "let batch_count: usize = 1;".to_string()
    } else {
        "let batch_count = cx.size(\"batch_count\", batch_count)?;".to_string()
    };
    let what = match form {
        Form::Single => "",
        Form::Batched => " of each entry of host arrays of device pointers",
        Form::Strided => " of `batch_count` entries at fixed strides",
    };
    let _ = writeln!(
        out,
        "/// `{}::{}{}`{what} for `{rt}` (see the Rust documentation of that function).",
        row.module,
        row.rust,
        form.suffix()
    );
    let _ = writeln!(out, "#[no_mangle]\n#[allow(clippy::too_many_arguments, unused_mut, unused_variables, clippy::unnecessary_cast)]");
    let _ = writeln!(
        out,
        "pub unsafe extern \"C\" fn {fname}(\n    {},\n) -> gpublas_status {{",
        cparams.join(",\n    ")
    );
    let _ = writeln!(out, "    imp::guard(handle, \"{fname}\", |cx| {{");
    let _ = writeln!(out, "        {batch_conv}");
    for l in convs.iter().chain(ops.iter()) {
        // SAFETY comments: every unsafe block converts a caller pointer that the C
        // documentation requires to address the computed span.
        if l.contains("unsafe") {
            let _ = writeln!(out, "        // SAFETY: the caller's pointer addresses the span computed from its arguments.");
        }
        let _ = writeln!(out, "        {l}");
    }
    let _ = writeln!(
        out,
        "        gpublas::{}::{}{}(cx.h, {})",
        row.module,
        row.rust,
        form.suffix(),
        args.join(", ")
    );
    let _ = writeln!(out, "    }})\n}}\n");
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/lib.rs");
    println!("cargo:rerun-if-changed=src/imp.rs");
    println!("cargo:rerun-if-changed=src/ex.rs");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    let mut out = String::from(
        "// Generated by build.rs from its routine table; do not edit.\n\
         #[allow(unused_imports)]\nuse gpublas::{Op, Side, Results};\n\n",
    );
    let mut count = 0;
    for row in rows() {
        for (prefix, cname) in &row.names {
            let t = TYPES
                .iter()
                .find(|t| t.0 == *prefix)
                .expect("a known type prefix");
            for form in [Form::Single, Form::Batched, Form::Strided] {
                gen_fn(&mut out, &row, t, cname, form);
                count += 1;
            }
        }
    }
    let _ = writeln!(
        out,
        "/// How many routine entry points this build generated.\npub const GPUBLAS_ROUTINE_COUNT: usize = {count};"
    );
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let routines = out_dir.join("routines.rs");
    std::fs::write(&routines, out).expect("write routines.rs");

    let crate_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("manifest dir"));
    let config =
        cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let header = cbindgen::Builder::new()
        .with_config(config)
        .with_src(crate_dir.join("src/lib.rs"))
        .with_src(crate_dir.join("src/imp.rs"))
        .with_src(crate_dir.join("src/ex.rs"))
        .with_src(&routines)
        .generate();
    match header {
        Ok(h) => {
            h.write_to_file(out_dir.join("gpublas.h"));
            // The committed copy, rewritten only when its content changes.
            h.write_to_file(crate_dir.join("include/gpublas.h"));
        }
        Err(e) => println!("cargo:warning=cbindgen could not generate gpublas.h: {e}"),
    }
}
