#!/usr/bin/env python3
# kernels/eig.cu (+ complex_div.cuh, lapack.cuh) -> eig_emu.h for the CPU emulator: the whole
# family with its entry points, the dynamic shared memory mapped to the emulator's.
# usage: gen.py KERNELS_DIR
import sys
d = sys.argv[1]
src = open(f'{d}/complex_div.cuh').read() + open(f'{d}/lapack.cuh').read() + open(f'{d}/eig.cu').read()
old = 'extern __shared__ __align__(16) unsigned char eig_smem[];'
assert old in src
src = src.replace(old, 'unsigned char* eig_smem = (unsigned char*)emu_dsm;')
open('eig_emu.h', 'w').write('#pragma once\n#include "cuda_runtime.h"\n#define GPUBLAS_FAMILY_EIG\n' + src)
