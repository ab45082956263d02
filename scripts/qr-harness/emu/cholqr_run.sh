#!/bin/sh
# CPU check of cholqr.cu without a GPU: one std::thread per CUDA thread, real barriers and
# shuffles. usage: ./cholqr_run.sh m n [kind [maxgrid]]   (kind: see cholqr_test.cpp)
# Extra -D flags for the kernels: CHQR_FLAGS="-DCHQR_TPR=8" ./cholqr_run.sh ...
set -e
cd "$(dirname "$0")"
g++ -std=c++20 -O2 -Wno-unknown-pragmas $CHQR_FLAGS -I. cholqr_test.cpp -o cholqr_test -lpthread
rc=0; ./cholqr_test "$@" || rc=$?
if [ $rc -eq 0 ]; then python3 check.py "$1" "$2"; elif [ $rc -ne 3 ]; then exit $rc; fi
