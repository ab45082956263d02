#pragma once
// Additions to the CPU emulation (cuda_runtime.h) that cholqr.cu needs: double2, and the kernels
// compiled as C++ with CHQR_EMU (no inline asm, dynamic shared memory = emu_dsm).
#include "cuda_runtime.h"
struct double2 { double x, y; };   // alignment 8 on the CPU (emu_dsm is not 16-byte aligned)
#define CHQR_EMU 1
