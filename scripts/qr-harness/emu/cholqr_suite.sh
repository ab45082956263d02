#!/bin/sh
# The emulator's case list for one set of -D flags (compiled once):
#   CHQR_FLAGS="-DCHQR_LOAD=1 -DCHQR_GRAM=1" ./cholqr_suite.sh
# Prints one line a case: m n kind, then check.py's line or the fallback line.
set -e
emu=$(cd "$(dirname "$0")" && pwd)
wd=$(mktemp -d)   # own a0.bin / out.bin: several suites may run at once
exe=$wd/cholqr_suite
g++ -std=c++20 -O2 -Wno-unknown-pragmas $CHQR_FLAGS -I"$emu" "$emu/cholqr_test.cpp" -o $exe -lpthread
cd $wd
run() {  # m n kind [maxgrid]
    rc=0; out=$($exe "$@") || rc=$?
    if [ $rc -eq 0 ]; then printf '%-16s %s\n' "$1x$2 k$3" "$(python3 "$emu/check.py" "$1" "$2" | tail -1)"
    elif [ $rc -eq 3 ]; then printf '%-16s %s\n' "$1x$2 k$3" "$(echo "$out" | tail -1 | sed 's/^/fallback, /')"
    else echo "$1x$2 k$3 exit $rc"; fi
}
run 300 64 0; run 200 64 0; run 1000 20 0; run 65 64 0; run 64 64 0; run 1 1 0; run 3000 5 0; run 700 32 0
run 2000 64 1; run 5000 64 1
run 2000 64 2; run 1000 20 4; run 1000 64 3
rm -rf $wd
