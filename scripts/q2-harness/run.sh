#!/bin/bash
# Build (./build.sh; NOBUILD=1 skips it), then run the default case list on a kernel.
#   ./run.sh KERNEL [q2_test args...]   e.g. ./run.sh mma, ./run.sh d --cases quick,
#                                       ./run.sh mma --cases n300k32m64x3 --repeat 2
#   ./run.sh all [args...]              every kernel of the table (q2_test --list)
#   ./run.sh tsan KERNEL [args...]      the ThreadSanitizer build (default cases: quick ones)
#   ./run.sh mutants                    self-check: each gen.py mutation must be caught
# Exit status nonzero when a case fails (or TSan reports, exit 66; a deadlock, 3).
set -u
cd "$(dirname "$0")"
what=${1:-}
[ -n "$what" ] || { sed -n 2,9p "$0"; exit 2; }
shift
case $what in
tsan) [ "${NOBUILD:-0}" = 1 ] || ./build.sh tsan 2>/dev/null || exit 2
      k=$1; shift
      case " $* " in *" --case"*) exec ./q2_test_tsan --kernel "$k" "$@" ;; esac
      exec ./q2_test_tsan --kernel "$k" --cases 1,3,4,9,12,13 "$@" ;;
mutants)
    [ "${NOBUILD:-0}" = 1 ] || ./build.sh mut || exit 2
    bad=0
    chk() {  # description, command...: the command must fail
        local d=$1; shift
        [ -x "$1" ] || [ "$1" = env ] || { echo "NOT BUILT   $d (stale mutation? see build.sh's output)"; bad=1; return; }
        out=$("$@" 2>&1); rc=$?
        if [ $rc = 0 ]; then echo "NOT CAUGHT  $d"; bad=1
        else echo "caught (rc $rc, $(echo "$out" | grep -cE '^FAIL ') failing cases$(echo "$out" | grep -q 'pairing mismatch' && echo ', pairing mismatch')$(echo "$out" | grep -q 'ThreadSanitizer: data race' && echo ', TSan race')$(echo "$out" | grep -q 'no progress' && echo ', deadlock'))  $d"; fi
    }
    chk "refl-order on d" ./q2_test_refl-order --kernel d --cases quick
    chk "refl-order on z" ./q2_test_refl-order --kernel z --cases quick
    ./q2_test --list | grep -q '^  mma ' && chk "mma-order on mma" ./q2_test_mma-order --kernel mma --cases 1,3,4
    ./q2_test --list | grep -q '^  mmaz ' && chk "mma-order on mmaz" ./q2_test_mma-order --kernel mmaz --cases 1,3
    chk "no-empty on d" env EMU_HANG=5 ./q2_test_no-empty --kernel d --cases 3
    chk "early-release on d (TSan)" ./q2_test_tsan_early-release --kernel d --cases 1,3
    exit $bad ;;
all)
    [ "${NOBUILD:-0}" = 1 ] || ./build.sh || exit 2
    rc=0
    for k in $(./q2_test --list | sed -n '/^kernels/,/^cases/p' | awk 'NF > 1 && $1 != "kernels" && $1 != "cases:" {print $1}'); do
        ./q2_test --kernel "$k" "$@" | tail -1
        [ "${PIPESTATUS[0]}" = 0 ] || rc=1
    done
    exit $rc ;;
*)  [ "${NOBUILD:-0}" = 1 ] || ./build.sh || exit 2
    exec ./q2_test --kernel "$what" "$@" ;;
esac
