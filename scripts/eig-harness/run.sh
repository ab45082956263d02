#!/bin/sh
# Builds and runs the CPU emulator check of kernels/eig.cu (no GPU needed): ./run.sh [dzsc]
set -e
cd "$(dirname "$0")"
python3 gen.py ../../crates/gpublas/kernels
g++ -std=c++20 -O2 -Wno-unknown-pragmas -I. eig_test.cpp -o /tmp/eig_emu_test -lpthread
/tmp/eig_emu_test "${1:-dzsc}"
