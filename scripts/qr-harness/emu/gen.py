#!/usr/bin/env python3
# Turn ../tsqr.cu's kernels and driver (not its harness) into tsqr_emu.h for the CPU emulation:
# launches become emu_launch calls, dynamic shared memory a static array.
import os, re
here = os.path.dirname(os.path.abspath(__file__))
s = open(os.path.join(here, "..", "tsqr.cu")).read()
s = s.replace("extern __shared__ __align__(16) double tq_dsm[];", "#define tq_dsm emu_dsm")
s = s.replace("__launch_bounds__(64) bq_wsum", "bq_wsum")
s = re.sub(r"(\w+)<<<(.*?)>>>\((\w+)\)", r"emu_launch(\1, \2, \3)", s)
host = s.index("\n#ifndef __CUDACC_RTC__")
end = s.index("// ---- harness ----")
s = s[:host] + "\n#include <cstdio>\n#include <vector>\n#include <algorithm>\n#define CK(x) (void)(x)\n" + s[s.index("using tq::MB;"):end]
open(os.path.join(here, "tsqr_emu.h"), "w").write("#include <cuda_runtime.h>\n" + s)
