#!/usr/bin/env python3
# qr.cu (+ lapack.cuh, complex_div.cuh) -> qrs_emu_<tag>.h for the CPU emulator: the helpers
# before PanelExchange (grid_bar's PTX dropped) and qr_small (with its band helpers).
# usage: gen.py QR_CU LAPACK_CUH TAG
import sys, re
qr, lap, tag = sys.argv[1:4]
s = open(qr).read()
a = s.index('template <class T> struct PanelExchange')
pre = s[:a]
pre = re.sub(r'__device__ __forceinline__ void grid_bar\(.*?\n}\n', '', pre, flags=re.S)
b = s.index('// geqrf of a whole matrix of at most 32 x 32')
c = s.index('// geqrf of a whole matrix (at most QR_WHOLE_COLS')
small = s[b:c]
l = open(lap).read()
out = '#pragma once\n#include "cuda_runtime.h"\n' + l + '\n' + pre + '\n' + small + '''
void qr_small_d(Qrp j) { qr_small<double>(j); }
void qr_small_z(Qrp j) { qr_small<double2>(j); }
void qr_small_s(Qrp j) { qr_small<float>(j); }
void qr_small_c(Qrp j) { qr_small<float2>(j); }
'''
open(f'qrs_emu_{tag}.h', 'w').write(out)
