#!/usr/bin/env python3
# Compiles packed-regions.cuh with NVRTC (no GPU needed), --ptxas-options=-v, and prints each
# kernel's registers / spills / stack / shared memory, for each architecture.
#   LD_LIBRARY_PATH=.ci-deps/nvidia/cu13/lib python3 scripts/blas2-harness/packed-regions-nvrtc.py [sm_90,sm_80,sm_75]
import ctypes, os, re, sys
here = os.path.dirname(os.path.abspath(__file__))
lib = ctypes.CDLL(os.environ.get("NVRTC", "libnvrtc.so.13"))
src = open(os.path.join(here, "packed-regions.cuh")).read()
failed = False
for arch in (sys.argv[1] if len(sys.argv) > 1 else "sm_90,sm_80").split(","):
    prog = ctypes.c_void_p()
    lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"packed-regions.cu", 0, None, None)
    opts = [f"--gpu-architecture={arch}".encode(), b"-std=c++17", b"--ptxas-options=-v"]
    rc = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    n = ctypes.c_size_t(); lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
    log = ctypes.create_string_buffer(n.value); lib.nvrtcGetProgramLog(prog, log)
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    text = log.value.decode(errors="replace")
    print(f"== {arch}: nvrtcCompileProgram rc {rc}")
    if rc != 0:
        failed = True; print(text); continue
    for line in text.splitlines():
        if "warning" in line.lower() or "error" in line.lower(): print("  " + line)
    cur, info = None, {}
    for line in text.splitlines():
        m = re.search(r"(?:Compiling entry function|Function properties for) '?(\w+)'?", line)
        if m: cur = m.group(1); info.setdefault(cur, []); continue
        if cur and ("stack frame" in line or "Used" in line):
            info[cur].append(re.sub(r"^.*?(\d+ bytes stack|Used)", r"\1", line).strip())
    for k, v in info.items(): print(f"  {k}: " + " | ".join(dict.fromkeys(v)))
sys.exit(1 if failed else 0)
