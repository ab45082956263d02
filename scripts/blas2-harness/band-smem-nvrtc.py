#!/usr/bin/env python3
# Compiles band-smem.cuh with NVRTC (--ptxas-options=-v), as nvrtc_regs.py does for blas2.cu,
# and prints registers / spills / stack / shared memory of band_smem_s and band_smem_d. No GPU.
#   LD_LIBRARY_PATH=.ci-deps/nvidia/cu13/lib python3 scripts/blas2-harness/band-smem-nvrtc.py [--arch sm_90,sm_80]
import argparse, ctypes, os, re, sys
here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("--arch", default="sm_90,sm_80")
ap.add_argument("--nvrtc", default=os.environ.get("NVRTC", "libnvrtc.so.13"))
ap.add_argument("--ptx", default="", help="write sm_90 PTX here")
a = ap.parse_args()
lib = ctypes.CDLL(a.nvrtc)
src = open(os.path.join(here, "band-smem.cuh")).read()
failed = False
for arch in a.arch.split(","):
    prog = ctypes.c_void_p()
    lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"band-smem.cu", 0, None, None)
    opts = [f"--gpu-architecture={arch}".encode(), b"-std=c++17", b"--ptxas-options=-v"]
    rc = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    n = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
    log = ctypes.create_string_buffer(n.value)
    lib.nvrtcGetProgramLog(prog, log)
    if rc == 0 and a.ptx and arch == "sm_90":
        lib.nvrtcGetPTXSize(prog, ctypes.byref(n))
        ptx = ctypes.create_string_buffer(n.value)
        lib.nvrtcGetPTX(prog, ptx)
        open(a.ptx, "w").write(ptx.value.decode())
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    text = log.value.decode(errors="replace")
    print(f"== {arch}: nvrtcCompileProgram rc {rc}")
    if rc != 0:
        failed = True
        print(text)
        continue
    cur, info = None, {}
    for line in text.splitlines():
        if "warning" in line.lower():
            print("  " + line)
        mm = re.search(r"(?:Compiling entry function|Function properties for) '?(\w+)'?", line)
        if mm:
            cur = mm.group(1); info.setdefault(cur, []); continue
        if cur and ("stack frame" in line or "Used" in line):
            info[cur].append(re.sub(r"^.*?(\d+ bytes stack|Used)", r"\1", line).strip())
    for k, v in info.items():
        print(f"  {k}: " + " | ".join(dict.fromkeys(v)))
sys.exit(1 if failed else 0)
