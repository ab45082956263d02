#!/bin/sh
# CPU check of tsqr.cu without a GPU: one std::thread per CUDA thread, real barriers and
# shuffles (slow: ~20 s for 300 x 64). usage: ./run.sh m n [kind]
set -e
cd "$(dirname "$0")"
python3 gen.py
g++ -std=c++20 -O2 -Wno-unknown-pragmas -I. test.cpp -o test -lpthread
./test "$@"
python3 check.py "$1" "$2"
