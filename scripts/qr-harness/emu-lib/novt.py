#!/usr/bin/env python3
# The CholeskyQR2 source without VT (Cqp.vt and its stores in cq_lu, cq_finish and cq_tfall
# removed; the rest unchanged): the baseline that the VT outputs must not disturb (A, tau, Vf,
# T bit-identical). Each removal must match exactly once.
# usage: novt.py [SRC] OUT    then gen.py OUT OUT.h and build with -DEMU_HDR='"OUT.h"' -DEMU_NO_VT=1
import os, re, sys
here = os.path.dirname(os.path.abspath(__file__))
src = sys.argv[1] if len(sys.argv) > 2 else os.path.join(here, "..", "..", "..", "crates", "gpublas", "kernels", "cholqr.cu")
s = open(src).read()
def cut(pat):
    global s
    s2, k = re.subn(pat, "", s, flags=re.S)
    if k != 1: sys.exit(f"novt.py: {pat!r} matched {k} times")
    s = s2
cut(r"\n    u64 vt; i64 vt_ld, vt_es;[^\n]*")
# cq_lu: the vt pointer, VT's top block in the T loop, T's fragments over G
cut(r"\n        double\* vt = \(double\*\)p\.vt \+ blockIdx\.x \* p\.vt_es;(?=\n        for \(int e = tid; e < n \* n)")
cut(r"\n            // VT's top block L T.*?vt\[i \+ \(i64\)j \* p\.vt_ld\] = a;")
cut(r"\n        // T as m8n8k4 B fragments.*?x\.G\[e\] = [^\n]*\n        \}")
# cq_finish
cut(r"\n    double\* vt = p\.vf \? [^\n]*")
cut(r"\n        if \(vf\) \{\n            // VT's rows.*?\n            __syncwarp\(\);\n        \}")
# cq_tfall's second pass
cut(r"\n    // VT = Vf T, tile by tile.*?vt\[gi \+ \(i64\)j \* p\.vt_ld\] = a;\n        \}\n    \}")
if re.search(r"\bvt\b|vt_ld|vt_es", re.sub(r"//[^\n]*", "", s)):
    sys.exit("novt.py: vt left")
open(sys.argv[-1], "w").write(s)
