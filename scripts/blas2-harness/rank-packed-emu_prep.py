#!/usr/bin/env python3
"""Prepares blas2u.cu for the CPU emulator (rank-packed-emu_test.cpp).

    rank-packed-emu_prep.py SRC OUT [MUTATION]

1. Optionally applies one named mutation (a fault the emulator must catch), asserting that its
   text occurs exactly once.
2. Instruments the plain memory accesses of the kernels: every `col[i] = EXPR;` becomes
   `emu_wr(col + i, EXPR')` with each `col[i]` read in EXPR as `emu_rd(col + i)`, and every
   `x[vidx(j.x, I)]` / `y[vidx(j.y, I)]` becomes `emu_rd(x + vidx(j.x, I))`. The 16-byte
   accesses (__ldcs/__stcs on uint4) are shimmed in rank-packed-emu.h.
3. Asserts that rank_packed has no plain indexing of col/x/y/a/p[k] memory left.
"""
import re
import sys

MUTATIONS = {
    # shifted() ignores the column's misalignment m (uses u[v] as row r0 - m + v).
    "shift_ignores_m": ("if (m == s) r = v >= s ? u[v - s] : pu[V - s + v];",
                        "if (false && m == s) r = v >= s ? u[v - s] : pu[V - s + v];"),
    # The last tile of a column ends at its shifted range like the others.
    "end_no_last": ("const i64 end = min((rt == last || (!lower && rt == ct)) ? n : t0 + rb - mk, hi);",
                    "const i64 end = min(t0 + rb - mk, hi);"),
    # Lane 31's rows past the shifted range are dropped.
    "no_tail": ("if (lr == 31 && end > t0 + rb - mk) {", "if (false && lr == 31 && end > t0 + rb - mk) {"),
    # Lane 0 does not read the m rows above its r0 from x.
    "no_pu": ("pu[v] = (lr == 0 && ip >= 0) ? x[vidx(j.x, ip)] : zero<T>();",
              "pu[v] = (false && lr == 0 && ip >= 0) ? x[vidx(j.x, ip)] : zero<T>();"),
    # Lower: the tile just below the diagonal tile counted as interior.
    "inner_lower_ct1": ("const bool inner = lower ? (rt >= ct + 2 && rt < last) : (rt >= 1 && rt < ct);",
                        "const bool inner = lower ? (rt >= ct + 1 && rt < last) : (rt >= 1 && rt < ct);"),
    # Upper: the first row tile counted as interior (its lane 0 piece starts before the column).
    "inner_upper_rt0": ("const bool inner = lower ? (rt >= ct + 2 && rt < last) : (rt >= 1 && rt < ct);",
                        "const bool inner = lower ? (rt >= ct + 2 && rt < last) : (rt >= 0 && rt < ct);"),
    # The interior group ignores skipped columns (writes them back unchanged: only the access
    # counts can see it).
    "fast_ignores_skip": ("const bool none_skipped = ((skipm >> k0) & ((1u << U) - 1)) == 0;\n        if (inner && none_skipped) {",
                          "const bool none_skipped = ((skipm >> k0) & ((1u << U) - 1)) == 0 || true;\n        if (inner && none_skipped) {"),
    # The element path ignores the ballot's skip bit (zero-coefficient columns read and written
    # back with the same values; no column past n exists: `c >= n` is also tested).
    "elem_ignores_skip": ("const bool skip = (skipm >> (k0 + k)) & 1;\n            T* col = col_of<T>(j, a, c);",
                          "const bool skip = false;\n            T* col = col_of<T>(j, a, c);"),
    # x read past its n elements (the rows of the last row tile past n).
    "x_past_n": ("u[v] = i < n ? x[vidx(j.x, i)] : zero<T>();", "u[v] = x[vidx(j.x, i)];"),
    # The Hermitian diagonal's piece taken by the 16-byte path.
    "diag_vector": ("if (ms >= 0 && !skip && !dg && p0 >= start && p0 + V <= end) {",
                    "if (ms >= 0 && !skip && p0 >= start && p0 + V <= end) {"),
    # packed_shift always 0 (pieces at r0 regardless of the column's alignment).
    "shift_zero": ("return mis % sizeof(T) ? -1 : (int)(mis / sizeof(T));", "return mis % sizeof(T) ? -1 : 0;"),
    # A lane-dependent shuffle in the element path (divergent __shfl_sync with a full mask).
    "divergent_shfl": ("""        for (int k = 0; k < U; k++) {
            const T c1 = shfl(t1s, k0 + k);""", """        for (int k = 0; k < U; k++) {
            const T c1 = lr < 31 ? shfl(t1s, k0 + k) : t1s;"""),
    # Skipped Hermitian columns skipped entirely (the diagonal keeps its imaginary part).
    "herm_skip_all": ("if (skip && !(herm && start <= c && c < end)) continue;", "if (skip) continue;"),
    # A skipped Hermitian column left alone in the tile holding its diagonal's last row.
    "herm_skip_end": ("if (skip && !(herm && start <= c && c < end)) continue;",
                      "if (skip && !(herm && start <= c && c + 1 < end)) continue;"),
    # The group loop stops one tile short at the end of the grid (c64 batches).
    "group_end": ("const i64 end = min(((i64)blockIdx.x + 1) * j.group, tiles * j.nent);\n#pragma unroll 1\n    for (i64 b = (i64)blockIdx.x * j.group; b < end; b++) rank_packed<T, KIND>(j, b);",
                  "const i64 end = min(((i64)blockIdx.x + 1) * j.group, tiles * j.nent - 1);\n#pragma unroll 1\n    for (i64 b = (i64)blockIdx.x * j.group; b < end; b++) rank_packed<T, KIND>(j, b);"),
}


# Coverage probes in rank_packed (EMU_PROBE(k) counts per case; optional: a mutation may have
# changed the text).
PROBES = [
    ("            if (fast) {\n", "            if (fast) {\n                EMU_PROBE(0);\n"),
    ("                pk.q = __ldcs((const uint4*)(col + p0));", "                EMU_PROBE(1); pk.q = __ldcs((const uint4*)(col + p0));"),
    ("                    if (i >= start && i < end) elem(i, us[v], ws[v]);",
     "                    if (i >= start && i < end) { EMU_PROBE(2); elem(i, us[v], ws[v]); }"),
    ("                    if (v < mk && i >= start && i < end) elem(i, us[v], ws[v]);",
     "                    if (v < mk && i >= start && i < end) { EMU_PROBE(3); elem(i, us[v], ws[v]); }"),
    ("            if (skip && !(herm && start <= c && c < end)) continue;\n",
     "            if (skip && !(herm && start <= c && c < end)) continue;\n            if (skip) EMU_PROBE(4);\n"),
    ("            if (start >= end) continue;\n", "            if (start >= end) { EMU_PROBE(5); continue; }\n"),
    ("                if (herm && i == c) {\n                    const T d = skip",
     "                if (herm && i == c) {\n                    EMU_PROBE(6);\n                    const T d = skip"),
]


def instrument(text):
    for old, new in PROBES:
        if text.count(old) == 1:
            text = text.replace(old, new)
        else:
            sys.stderr.write(f"prep: probe not placed: {old.strip()[:50]}\n")
    def wr(mo):
        lhs_ptr, idx, rhs = mo.group(1), mo.group(2), mo.group(3)
        rhs = rhs.replace(f"{lhs_ptr}[{idx}]", f"emu_rd({lhs_ptr} + {idx})")
        return f"emu_wr({lhs_ptr} + {idx}, {rhs});"
    text, nw = re.subn(r"\b(col)\[(i)\] = (.*);", wr, text)
    text, nr = re.subn(r"\b([xy])\[vidx\(j\.([xy]), (\w+)\)\]", r"emu_rd(\1 + vidx(j.\2, \3))", text)
    return text, nw, nr


def main():
    src, out = sys.argv[1], sys.argv[2]
    mut = sys.argv[3] if len(sys.argv) > 3 else ""
    text = open(src).read()
    if mut:
        old, new = MUTATIONS[mut]
        cnt = text.count(old)
        if cnt != 1:
            sys.exit(f"mutation {mut}: its text occurs {cnt} times")
        text = text.replace(old, new)
    text, nw, nr = instrument(text)
    beg = text.index("__device__ __forceinline__ void rank_packed(")
    end = text.index("template <class T, int KIND> __device__ __forceinline__ void rank_packed_one")
    body = text[beg:end]
    left = re.findall(r"\b(col|x|y|a)\[", body)
    if left or "emu_wr(col + i" not in body:
        sys.exit(f"instrumentation incomplete in rank_packed: {left}")
    open(out, "w").write(text)
    sys.stderr.write(f"prep: mutation '{mut or 'none'}', {nw} scalar writes and {nr} vector reads instrumented\n")


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--list":
        print(" ".join(MUTATIONS))
    else:
        main()
