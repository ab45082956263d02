#!/usr/bin/env python3
# Compile tsqr.cu's device part with NVRTC (sm_90 cubin) and print ptxas's registers / spills per
# kernel, no GPU needed. usage: nvrtc_check.py [tsqr.cu] [-DTSQR_RPL=4 ...]
import ctypes, os, sys
lib = ctypes.CDLL(os.environ.get("NVRTC", "/work/main/.ci-deps/nvidia/cu13/lib/libnvrtc.so.13"))
here = os.path.dirname(os.path.abspath(__file__))
args = sys.argv[1:]
src = args.pop(0) if args and not args[0].startswith("-") else os.path.join(here, "tsqr.cu")
s = open(src).read()
prog = ctypes.c_void_p()
lib.nvrtcCreateProgram(ctypes.byref(prog), s.encode(), b"tsqr.cu", 0, None, None)
opts = [b"-arch=sm_90", b"-std=c++17", b"--ptxas-options=-v", b"-default-device"] + [a.encode() for a in args]
arr = (ctypes.c_char_p * len(opts))(*opts)
r = lib.nvrtcCompileProgram(prog, len(opts), arr)
n = ctypes.c_size_t()
lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
log = ctypes.create_string_buffer(n.value)
lib.nvrtcGetProgramLog(prog, log)
print("compile rc", r)
for line in log.value.decode(errors="replace").splitlines():
    if r or any(k in line for k in ("error", "warning", "Compiling", "registers", "spill", "stack")):
        print(line)
sys.exit(1 if r else 0)
