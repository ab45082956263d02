#!/usr/bin/env python3
"""Turn the crate's complex_div.cuh + lapack.cuh + eig_q2.cu (as kernels.rs's kernel_source!
concatenates them, compiled with GPUBLAS_FAMILY_EIG_Q2) into q2_emu.h for the CPU emulator
(cuda_runtime.h here). Always read fresh from disk. Edits (each fails loudly if its target is gone):

  - every function whose body has inline asm outside an `#if __CUDA_ARCH__` branch gets a body
    by its instruction: bar.sync id, n -> emu_bar_sync(id, n); bar.arrive id, n ->
    emu_bar_arrive(id, n); ld.shared (q2_lds) -> `return *p;`. Any other unguarded asm: error.
    The functions EXPECT (q2_bar_sync, q2_bar_arrive, q2_lds) must be among them
    (--allow-missing NAME to drop one, e.g. after a rewrite removed it).
  - `extern __shared__ ... NAME[];` (q2_smem) -> a pointer to emu_dsm (at least one).
  - dmma8844 (lapack.cuh) keeps its `#else` shuffle fallback (__CUDA_ARCH__ is undefined); with
    EMU_FAST_DMMA=1 (the default, set by the includer) its body calls emu_dmma8844 instead: same
    arithmetic, one warp exchange instead of twelve shuffles. Absent dmma8844: a warning.
  - after the edits no unguarded `asm` may remain.
  - every `template <...> __device__ void NAME(const Q2p& p)` gets `#define EMU_HAS_NAME 1` and
    EMU_TYPED_NAME (1: its first template parameter is a type; q2_test.cpp's kernel table
    compiles an entry only when its template exists, in the form it has).
Line counts are kept (replaced bodies are padded) and `#line` directives name the real files,
so compiler errors and debuggers point at the crate's sources.

Mutations (--mutate M, for checking that the harness catches errors):
  refl-order  q2_reflectors applies a diamond's reflectors ascending instead of descending
  mma-order   q2m_diamond applies its 8-reflector blocks J ascending instead of descending
  no-empty    drop the EMPTY wait before a warp overwrites its hand-off tile (unpaired barriers)
  early-release  a warp releases (EMPTY) the tile it takes before reading it (a data race)

usage: gen.py [--out FILE] [--kernels DIR] [--mutate M] [--allow-missing NAME]...
"""
import argparse, hashlib, os, re, sys

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("--out", default=os.path.join(here, "q2_emu.h"))
ap.add_argument("--kernels", default=os.path.join(here, "..", "..", "crates", "gpublas", "kernels"))
ap.add_argument("--src", help="eig_q2.cu to use instead of KERNELS/eig_q2.cu (e.g. from git show)")
ap.add_argument("--mutate", action="append", default=[])
ap.add_argument("--allow-missing", action="append", default=[])
args = ap.parse_args()

EXPECT = ["q2_bar_sync", "q2_bar_arrive", "q2_lds"]
kdir = os.path.abspath(args.kernels)
files = [os.path.join(kdir, "complex_div.cuh"), os.path.join(kdir, "lapack.cuh"),
         os.path.abspath(args.src) if args.src else os.path.join(kdir, "eig_q2.cu")]


def die(msg):
    sys.exit("gen.py: " + msg)


def blob(raw):
    return hashlib.sha1(b"blob %d\0" % len(raw) + raw).hexdigest()


def match_brace(s, i):
    """index just past the } matching the { at s[i] (skipping comments and literals)"""
    assert s[i] == "{"
    depth, k = 0, i
    while k < len(s):
        c = s[k]
        if s.startswith("//", k):
            k = s.find("\n", k)
            continue
        if s.startswith("/*", k):
            k = s.find("*/", k) + 2
            continue
        if c in "\"'":
            e = k + 1
            while s[e] != c:
                e += 2 if s[e] == "\\" else 1
            k = e + 1
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return k + 1
        k += 1
    die("unbalanced braces")


def arch_guarded(s, pos):
    """whether s[pos] lies in a branch taken only when __CUDA_ARCH__ is defined / >= something"""
    stack = []  # per #if: [is_arch_if, in_else]
    for line in s[:pos].split("\n"):
        l = line.strip()
        if re.match(r"#\s*if", l):
            arch = bool(re.match(r"#\s*(if\s+(defined\s*\(?\s*)?__CUDA_ARCH__|ifdef\s+__CUDA_ARCH__)", l)) \
                and "!" not in l
            stack.append([arch, False])
        elif re.match(r"#\s*(else|elif)", l) and stack:
            stack[-1][1] = True
        elif re.match(r"#\s*endif", l) and stack:
            stack.pop()
    return any(a and not e for a, e in stack)


FUNC = re.compile(r"(?:__device__|__global__)[^;{}()]*?\b(\w+)\s*\(([^()]*)\)\s*(?:const\s*)?\{")


def functions(s):
    """(name, params, body_start, body_end) of the function definitions"""
    out = []
    for mt in FUNC.finditer(s):
        b = mt.end() - 1
        out.append((mt.group(1), mt.group(2), b, match_brace(s, b)))
    return out


def asm_sites(s, lo=0, hi=None):
    hi = len(s) if hi is None else hi
    return [lo + mt.start() for mt in re.finditer(r"\basm\b", s[lo:hi]) if not arch_guarded(s, lo + mt.start())]


def asm_stmt(s, at):
    """the asm statement's instruction text and operand expressions"""
    i = s.index("(", at)
    depth, k = 0, i
    while True:
        if s[k] == "(":
            depth += 1
        elif s[k] == ")":
            depth -= 1
            if depth == 0:
                break
        elif s[k] == '"':
            k += 1
            while s[k] != '"':
                k += 2 if s[k] == "\\" else 1
        k += 1
    inner = s[i + 1:k]
    parts = inner.split(":")
    text = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', parts[0]))
    ops = []
    for p in parts[1:3]:
        ops += [x.strip() for x in re.findall(r'"[^"]*"\s*\(((?:[^()]|\([^()]*\))*)\)', p)]
    return text, ops


def new_body(name, params, body, fn_text):
    sites = [m.start() for m in re.finditer(r"\basm\b", body)]
    texts = [asm_stmt(body, a) for a in sites]
    ins = [t for t, _ in texts]
    if len(texts) == 1 and re.match(r"\s*bar(rier)?\.(sync|arrive)\b", ins[0]):
        text, ops = texts[0]
        mt = re.match(r"\s*bar(?:rier)?\.(sync|arrive)(?:\.aligned)?\s+([^,;]+?)\s*,\s*([^,;]+?)\s*;", text)
        if not mt:
            die(f"{name}: can't parse {text!r} (a count is needed)")
        def opnd(x):
            x = x.strip()
            return "(" + ops[int(x[1:])] + ")" if x.startswith("%") else x
        return f"{{ emu_bar_{mt.group(1)}({opnd(mt.group(2))}, {opnd(mt.group(3))}); }}"
    if texts and all(re.match(r"\s*ld\.shared\b", t) for t in ins):
        ptrs = [p.strip() for p in params.split(",") if "*" in p]
        if len(ptrs) != 1 or "," in params:
            die(f"{name}: ld.shared emulation wants one pointer parameter, got ({params})")
        pn = re.findall(r"\w+", ptrs[0])[-1]
        return f"{{ return *{pn}; }}"
    die(f"function {name}: unguarded inline asm with no emulation: {ins}")


srcs, raws = [], []
for f in files:
    if not os.path.exists(f):
        die(f"missing {f}")
    raw = open(f, "rb").read()
    raws.append(raw)
    srcs.append(raw.decode())

handled = []
n_smem = 0
out_parts = []
for fi, (f, s) in enumerate(zip(files, srcs)):
    # dynamic shared memory
    def smem(mt):
        global n_smem
        n_smem += 1
        return f"{mt.group(1)}* const {mt.group(2)} = ({mt.group(1)}*)emu_dsm;"
    s = re.sub(r"extern\s+__shared__\s+(?:__align__\s*\(\s*\d+\s*\)\s*)?([A-Za-z_][\w ]*?)\s+(\w+)\s*\[\s*\]\s*;", smem, s)
    # functions with unguarded inline asm
    while True:
        fs = [fn for fn in functions(s) if asm_sites(s, fn[2], fn[3])]
        if not fs:
            break
        name, params, b, e = fs[0]
        body = s[b:e]
        # only the unguarded part matters; a body mixing guarded and unguarded asm is unexpected
        nb = new_body(name, params, body, s)
        nb = nb[:-1] + "\n" * body.count("\n") + "}"
        s = s[:b] + nb + s[e:]
        handled.append(name)
    # dmma8844: the fast emulation (same arithmetic as its fallback)
    fs = [fn for fn in functions(s) if fn[0] == "dmma8844"]
    if fs:
        name, params, b, e = fs[0]
        body = s[b:e]
        if "#else" not in body:
            die("dmma8844 has no #else fallback any more: emulate it (see cuda_runtime.h's emu_dmma8844)")
        l0 = s[:b].count("\n") + 1  # the line of the body's {
        s = (s[:b] + "{\n#if EMU_FAST_DMMA\n    emu_dmma8844(c0, c1, a, b);\n    return;\n#endif\n"
             + f'#line {l0} "{f}"\n' + body[1:] + s[e:])
        handled.append("dmma8844")
    left = asm_sites(s)
    if left:
        die(f"{os.path.basename(f)}: unguarded asm left at offset {left[0]}: {s[left[0]:left[0] + 80]!r}")
    srcs[fi] = s

if "dmma8844" not in handled:
    print("gen.py: warning: no dmma8844 (lapack.cuh): EMU_FAST_DMMA changes nothing", file=sys.stderr)
for e in EXPECT:
    if e not in handled and e not in args.allow_missing:
        die(f"expected to emulate {e} (inline asm) but found no such function with asm; "
            f"--allow-missing {e} if it is gone on purpose")
if n_smem == 0:
    die("no `extern __shared__ ... []` (q2_smem) found")

q2 = srcs[2]
# mutations (eig_q2.cu only)
MUT = {
    "refl-order": (r"for \(int c = HI - 1; c >= LO; --c\)", "for (int c = LO; c < HI; ++c)"),
    "mma-order": (r"(q2m_block<[^<>;]*>\([^;]*\);)(\s*)(if constexpr \(J > 0\) q2m_diamond<[^<>;]*>\([^;]*\);)",
                  r"\3\2\1"),
    "no-empty": (r"if \(give && tau >= 1\) q2_bar_sync\(Q2_EMPTY\(warp\)\);", "if (0) q2_bar_sync(Q2_EMPTY(warp));"),
    # release before reading: the pairing stays, the tile may be overwritten while read (a race)
    "early-release": (r"(if \(take\) q2_bar_sync\(Q2_FULL\(warp - 1\)\);)((?:(?!if \(release\)).)*?)"
                      r"if \(release\) q2_bar_arrive\(Q2_EMPTY\(warp - 1\)\);",
                      r"\1 if (release) q2_bar_arrive(Q2_EMPTY(warp - 1));\2"),
}
for m in args.mutate:
    if m not in MUT:
        die(f"unknown mutation {m} (have {list(MUT)})")
    pat, rep = MUT[m]
    q2, k = re.subn(pat, rep, q2, flags=re.S)
    if k == 0:
        die(f"mutation {m}: target {pat!r} not found")
    print(f"gen.py: mutation {m}: {k} site(s)", file=sys.stderr)
srcs[2] = q2

kern = re.findall(r"template\s*<([^<>]*)>\s*__device__\s+void\s+(\w+)\s*\(\s*const\s+Q2p\s*&", q2)
if not any(n == "eig_q2" for _, n in kern):
    die("no template eig_q2(const Q2p&) in eig_q2.cu")

ids = [blob(r) for r in raws]
hdr = ["#pragma once",
       "// generated by gen.py (scripts/q2-harness) from " + ", ".join(
           f"{os.path.basename(f)} (blob {i[:12]})" for f, i in zip(files, ids)) + ": do not edit",
       f'#define EMU_SRC_BLOB "{ids[2]}"',
       f'#define EMU_LAPACK_BLOB "{ids[1]}"',
       f'#define EMU_MUTATIONS "{",".join(args.mutate) or "none"}"',
       '#include "cuda_runtime.h"',
       "#ifndef EMU_FAST_DMMA", "#define EMU_FAST_DMMA 1", "#endif",
       "#define GPUBLAS_FAMILY_EIG_Q2 1"]
for params, name in kern:
    typed = 1 if re.match(r"\s*(class|typename)\b", params) else 0
    hdr.append(f"#define EMU_HAS_{name} 1  // template <{params}>")
    hdr.append(f"#define EMU_TYPED_{name} {typed}")
body = []
for f, s in zip(files, srcs):
    body.append(f'#line 1 "{f}"')
    body.append(s if s.endswith("\n") else s + "\n")
tmp = args.out + ".tmp"
open(tmp, "w").write("\n".join(hdr) + "\n" + "\n".join(body))
os.replace(tmp, args.out)
print(f"gen.py: {args.out}: emulated {', '.join(handled)}; smem decls {n_smem}; kernels "
      f"{', '.join(n for _, n in kern)}", file=sys.stderr)
