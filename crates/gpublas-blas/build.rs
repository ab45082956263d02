// The drop-in answers to the name programs link: a dynamic loader that meets libblas.so.3 in a
// library's NEEDED list takes an already loaded object of that SONAME (a LAPACK loaded later
// binds its BLAS calls to gpublas).
//
// It also stands in as liblapack.so.3: every LAPACK symbol in lapack-symbols.txt that the crate
// does not define itself gets a trampoline into the system's LAPACK (src/forward.rs). This
// script writes, into OUT_DIR:
// - forward_names.rs: the forwarded names, in trampoline order;
// - forward.s: the trampolines, their slots and the lazy resolver stubs (x86_64, AT&T syntax);
// - forward.map: a version script exporting the trampolines (rustc's own lists only Rust items).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;
use std::{env, fs};

/// The names in lapack-symbols.txt that the crate defines itself: LAPACK's six routines of
/// src/lapack.rs and eight of src/lapack_qr.rs for s, d, c, z, and BLAS's `lsame_`, `xerbla_`,
/// `xerbla_array_` (src/lib.rs), which Debian's liblapack.so.3 exports too. No trampoline for
/// them. A name missing here fails the link (a duplicate symbol); a name here that the sources
/// no longer define fails this script (`check_native`).
const NATIVE: &[&str] = &[
    "lsame_",
    "xerbla_",
    "xerbla_array_",
    "sgetrf_",
    "sgetrs_",
    "sgesv_",
    "spotrf_",
    "spotrs_",
    "sposv_",
    "dgetrf_",
    "dgetrs_",
    "dgesv_",
    "dpotrf_",
    "dpotrs_",
    "dposv_",
    "cgetrf_",
    "cgetrs_",
    "cgesv_",
    "cpotrf_",
    "cpotrs_",
    "cposv_",
    "zgetrf_",
    "zgetrs_",
    "zgesv_",
    "zpotrf_",
    "zpotrs_",
    "zposv_",
    "sgeqrf_",
    "sorgqr_",
    "sormqr_",
    "sgelqf_",
    "sormlq_",
    "sgels_",
    "sgetri_",
    "spotri_",
    "dgeqrf_",
    "dorgqr_",
    "dormqr_",
    "dgelqf_",
    "dormlq_",
    "dgels_",
    "dgetri_",
    "dpotri_",
    "cgeqrf_",
    "cungqr_",
    "cunmqr_",
    "cgelqf_",
    "cunmlq_",
    "cgels_",
    "cgetri_",
    "cpotri_",
    "zgeqrf_",
    "zungqr_",
    "zunmqr_",
    "zgelqf_",
    "zunmlq_",
    "zgels_",
    "zgetri_",
    "zpotri_",
];

fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libblas.so.3");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=lapack-symbols.txt");
    println!("cargo:rerun-if-changed=src");

    let list = fs::read_to_string("lapack-symbols.txt").expect("reading lapack-symbols.txt");
    let all: Vec<&str> = list
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    check_native(&all);
    let names: Vec<&str> = all.into_iter().filter(|n| !NATIVE.contains(n)).collect();

    let out = env::var("OUT_DIR").expect("OUT_DIR");
    let out = Path::new(&out);
    fs::write(out.join("forward_names.rs"), names_rs(&names)).expect("writing forward_names.rs");
    fs::write(out.join("forward.s"), asm(&names)).expect("writing forward.s");
    fs::write(out.join("forward.map"), version_script(&names)).expect("writing forward.map");

    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if arch == "x86_64" && os == "linux" {
        // A second anonymous version script, merged by the linker with rustc's (lld, rustc's
        // default linker on this target; GNU ld refuses two and fails the link loudly).
        println!(
            "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
            out.join("forward.map").display()
        );
    }
}

/// Checks `NATIVE` against the sources: every name in it is a symbol of lapack-symbols.txt
/// and occurs as an identifier in the crate's code (its `fn`, or the argument of the macro
/// that makes it), and every `fn NAME(` of the code whose NAME is a LAPACK symbol is in it.
fn check_native(all: &[&str]) {
    let listed: BTreeSet<&str> = all.iter().copied().collect();
    let mut idents = BTreeSet::new();
    let mut fns = BTreeSet::new();
    for path in sources(Path::new("src")) {
        if path.ends_with("forward.rs") {
            continue;
        }
        let text = fs::read_to_string(&path).expect("reading a source file");
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or("");
            let words: Vec<&str> = code
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .collect();
            for w in words.windows(2) {
                if w[0] == "fn" && listed.contains(w[1]) {
                    fns.insert(w[1].to_string());
                }
            }
            idents.extend(words.iter().map(|w| w.to_string()));
        }
    }
    for name in NATIVE {
        assert!(
            listed.contains(name),
            "build.rs NATIVE: {name} is not in lapack-symbols.txt"
        );
        assert!(
            idents.contains(*name),
            "build.rs NATIVE: {name} is no longer defined in src/; remove it from NATIVE so \
             that it is forwarded"
        );
    }
    for name in &fns {
        assert!(
            NATIVE.contains(&name.as_str()),
            "src/ defines {name}, a LAPACK symbol: add it to NATIVE in build.rs"
        );
    }
}

/// The `.rs` files under `dir`, recursively.
fn sources(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).expect("reading src/") {
        let path = entry.expect("reading src/").path();
        if path.is_dir() {
            found.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
    found
}

/// `forward_names.rs`: the names, indexed as the slots.
fn names_rs(names: &[&str]) -> String {
    let mut s = String::new();
    writeln!(s, "/// How many symbols are forwarded.").unwrap();
    writeln!(s, "pub(super) const COUNT: usize = {};", names.len()).unwrap();
    s.push_str(
        "/// The forwarded LAPACK symbols (lapack-symbols.txt less the crate's own), in slot order.\n",
    );
    writeln!(s, "pub(super) static NAMES: [&str; COUNT] = [").unwrap();
    for n in names {
        writeln!(s, "    {n:?},").unwrap();
    }
    s.push_str("];\n");
    s.push_str("/// The LAPACK symbols the crate defines itself (build.rs `NATIVE`).\n");
    writeln!(s, "pub(super) static NATIVE: [&str; {}] = [", NATIVE.len()).unwrap();
    for n in NATIVE {
        writeln!(s, "    {n:?},").unwrap();
    }
    s.push_str("];\n");
    s
}

/// `forward.s`, for `global_asm!` with the operand `resolve` (the Rust resolver, `sym`).
///
/// - `NAME`: exported; `jmp *slot(%rip)`. The slot starts at the symbol's lazy stub and holds
///   the backend's address once resolved, so a call costs one indirect jump.
/// - `.Lgpublas_blas_fw_lazy_I`: puts the index in %r11 (no argument register: scratch in the
///   SysV ABI) and goes to the common stub.
/// - `gpublas_blas_fw_common`: saves every register that can carry an argument (rdi, rsi, rdx,
///   rcx, r8, r9; rax, the vector-register count of a variadic call; r10, a static chain;
///   xmm0–xmm7), calls `resolve(index)` on a 16-byte aligned stack, restores them and jumps to
///   the address it returned, with the caller's return address on top of the stack as at entry.
/// - `gpublas_blas_fw_missing`: what a symbol without a backend resolves to; returns zero in
///   every return register and touches nothing.
fn asm(names: &[&str]) -> String {
    let mut s = String::new();
    s.push_str(
        "    .pushsection .text.gpublas_blas_fw,\"ax\",@progbits
    .p2align 4
    .globl gpublas_blas_fw_common
    .hidden gpublas_blas_fw_common
    .type gpublas_blas_fw_common,@function
gpublas_blas_fw_common:
    .cfi_startproc
    pushq %rbp
    .cfi_def_cfa_offset 16
    .cfi_offset %rbp, -16
    movq %rsp, %rbp
    .cfi_def_cfa_register %rbp
    subq $192, %rsp
    movq %rdi, 0(%rsp)
    movq %rsi, 8(%rsp)
    movq %rdx, 16(%rsp)
    movq %rcx, 24(%rsp)
    movq %r8, 32(%rsp)
    movq %r9, 40(%rsp)
    movq %rax, 48(%rsp)
    movq %r10, 56(%rsp)
    movaps %xmm0, 64(%rsp)
    movaps %xmm1, 80(%rsp)
    movaps %xmm2, 96(%rsp)
    movaps %xmm3, 112(%rsp)
    movaps %xmm4, 128(%rsp)
    movaps %xmm5, 144(%rsp)
    movaps %xmm6, 160(%rsp)
    movaps %xmm7, 176(%rsp)
    movq %r11, %rdi
    call {resolve}
    movq %rax, %r11
    movq 0(%rsp), %rdi
    movq 8(%rsp), %rsi
    movq 16(%rsp), %rdx
    movq 24(%rsp), %rcx
    movq 32(%rsp), %r8
    movq 40(%rsp), %r9
    movq 48(%rsp), %rax
    movq 56(%rsp), %r10
    movaps 64(%rsp), %xmm0
    movaps 80(%rsp), %xmm1
    movaps 96(%rsp), %xmm2
    movaps 112(%rsp), %xmm3
    movaps 128(%rsp), %xmm4
    movaps 144(%rsp), %xmm5
    movaps 160(%rsp), %xmm6
    movaps 176(%rsp), %xmm7
    leave
    .cfi_def_cfa %rsp, 8
    jmp *%r11
    .cfi_endproc
    .size gpublas_blas_fw_common, .-gpublas_blas_fw_common

    .p2align 4
    .globl gpublas_blas_fw_missing
    .hidden gpublas_blas_fw_missing
    .type gpublas_blas_fw_missing,@function
gpublas_blas_fw_missing:
    xorl %eax, %eax
    xorl %edx, %edx
    xorps %xmm0, %xmm0
    xorps %xmm1, %xmm1
    ret
    .size gpublas_blas_fw_missing, .-gpublas_blas_fw_missing
",
    );
    // The trampolines packed together (the hot path); the lazy stubs after them.
    for (i, n) in names.iter().enumerate() {
        write!(
            s,
            "
    .p2align 4
    .globl {n}
    .type {n},@function
{n}:
    jmp *gpublas_blas_fw_slots+{off}(%rip)
    .size {n}, .-{n}
",
            off = 8 * i
        )
        .unwrap();
    }
    for i in 0..names.len() {
        write!(
            s,
            "
    .p2align 3
.Lgpublas_blas_fw_lazy_{i}:
    movl ${i}, %r11d
    jmp gpublas_blas_fw_common
"
        )
        .unwrap();
    }
    s.push_str(
        "    .popsection

    .pushsection .data.gpublas_blas_fw,\"aw\",@progbits
    .p2align 3
    .globl gpublas_blas_fw_slots
    .hidden gpublas_blas_fw_slots
    .type gpublas_blas_fw_slots,@object
gpublas_blas_fw_slots:
",
    );
    for i in 0..names.len() {
        writeln!(s, "    .quad .Lgpublas_blas_fw_lazy_{i}").unwrap();
    }
    writeln!(
        s,
        "    .size gpublas_blas_fw_slots, {}\n    .popsection",
        8 * names.len()
    )
    .unwrap();
    s
}

/// `forward.map`: the trampolines, global.
fn version_script(names: &[&str]) -> String {
    let mut s = String::from("{\n  global:\n");
    for n in names {
        writeln!(s, "    {n};").unwrap();
    }
    s.push_str("};\n");
    s
}
