#!/usr/bin/env python3
# Compiles a kernel family of crates/gpublas/kernels/blas2.cu with NVRTC exactly as
# src/kernels.rs and src/device/cuda.rs prepare it (complex_div.cuh in front, `#line 1`, the
# options --gpu-architecture, -std=c++17, -D<family>), plus --ptxas-options=-v, and prints
# each matching kernel's registers, spills, stack and shared memory. No GPU needed.
#
#   LD_LIBRARY_PATH=.ci-deps/nvidia/cu13/lib python3 scripts/blas2-harness/nvrtc_regs.py \
#       [--arch sm_90,sm_80,sm_75] [--family GPUBLAS_FAMILY_MV] [--match symv_regions]
# --src PATH compiles a self-contained prototype instead (as is: no prefix, no family), e.g.
#   ... nvrtc_regs.py --src scripts/blas2-harness/band-smem.cuh --match band_smem --arch sm_90,sm_80
import argparse, ctypes, os, re, sys

here = os.path.dirname(os.path.abspath(__file__))
kdir = os.path.join(here, "..", "..", "crates", "gpublas", "kernels")
ap = argparse.ArgumentParser()
ap.add_argument("--arch", default="sm_90,sm_80,sm_75")
ap.add_argument("--family", default="GPUBLAS_FAMILY_MV")
ap.add_argument("--match", default="symv_regions", help="substring of the kernel names to report ('' for all)")
ap.add_argument("--file", default="blas2.cu")
ap.add_argument("--src", default="", help="a self-contained source to compile as is")
ap.add_argument("--nvrtc", default=os.environ.get("NVRTC", "libnvrtc.so.13"))
a = ap.parse_args()
lib = ctypes.CDLL(a.nvrtc)
if a.src:
    src, a.file, family = open(a.src).read(), os.path.basename(a.src), []
else:
    # The headers kernels.rs puts between complex_div.cuh and the file (kernel_source!'s list).
    heads = {"solver.cu": ["lapack.cuh", "solver.cuh"], "chol.cu": ["lapack.cuh", "solver.cuh"], "eig.cu": ["lapack.cuh"], "cholqr.cu": ["lapack.cuh"]}.get(a.file, [])
    src = open(os.path.join(kdir, "complex_div.cuh")).read() + "".join(
        f'#line 1 "{h}"\n' + open(os.path.join(kdir, h)).read() for h in heads
    ) + f'#line 1 "{a.file}"\n' + open(os.path.join(kdir, a.file)).read()
    # The files kernels.rs appends to a source (kernel_source!'s tail).
    for tail in {"blas2.cu": ["blas2_regions.cu"]}.get(a.file, []):
        src += f'#line 1 "{tail}"\n' + open(os.path.join(kdir, tail)).read()
    family = [f"-D{a.family}".encode()]
failed = False
for arch in a.arch.split(","):
    prog = ctypes.c_void_p()
    lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), a.file.encode(), 0, None, None)
    opts = [f"--gpu-architecture={arch}".encode(), b"-std=c++17", *family, b"--ptxas-options=-v"]
    rc = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    n = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
    log = ctypes.create_string_buffer(n.value)
    lib.nvrtcGetProgramLog(prog, log)
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    text = log.value.decode(errors="replace")
    print(f"== {arch} {a.src or a.family}: nvrtcCompileProgram rc {rc}")
    if rc != 0:
        failed = True
        print(text)
        continue
    for line in text.splitlines():
        if "warning" in line.lower() or "error" in line.lower():
            print("  " + line)
    # ptxas -v: "Compiling entry function 'X'", then "N bytes stack frame, N bytes spill stores,
    # N bytes spill loads" and "Used N registers, ...".
    cur, info = None, {}
    for line in text.splitlines():
        m = re.search(r"(?:Compiling entry function|Function properties for) '?(\w+)'?", line)
        if m:
            cur = m.group(1)
            info.setdefault(cur, [])
            continue
        if cur and ("stack frame" in line or "Used" in line):
            info[cur].append(re.sub(r"^.*?(\d+ bytes stack|Used)", r"\1", line).strip())
    for k, v in info.items():
        if a.match in k:
            print(f"  {k}: " + " | ".join(dict.fromkeys(v)))
sys.exit(1 if failed else 0)
