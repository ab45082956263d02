#!/bin/sh
# Build the emulator binaries from the current crates/gpublas/kernels/cholqr.cu:
#   cholqr_lib_test[_mma]{,_fix,_stale1,_fix_stale1}
# _mma: GramMma (m8n8k4 by shuffles) instead of GramFma (the same code once pass 1 uses
# GroupGram); _fix: the proposed barrier after chol1's load_sym (EMU_FIX_CHOL1); _stale1:
# shared memory pre-filled with 1.0 instead of NaN.
set -e
cd "$(dirname "$0")"
python3 gen.py
b() {  # suffix flags
    g++ -std=c++20 -O2 -Wall -Wno-unknown-pragmas $2 -I. cholqr_lib_test.cpp -o cholqr_lib_test$1 -lpthread
    g++ -std=c++20 -O2 -Wall -Wno-unknown-pragmas $2 -DEMU_MMA=1 -I. cholqr_lib_test.cpp -o cholqr_lib_test_mma$1 -lpthread
}
b "" ""
b _fix "-DEMU_FIX_CHOL1=1"
b _stale1 "-DEMU_STALE=1.0"
b _fix_stale1 "-DEMU_FIX_CHOL1=1 -DEMU_STALE=1.0"
