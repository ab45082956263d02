#!/bin/bash
# device: the Cholesky leaf kernels (leafbench.cu) of the working tree's chol.cu against an
# older copy (OLD, default ../../.gpu/solver_old.cu: a solver.cu from before the split, built
# with -DOLD_MONOLITHIC, and -DLEAF_OLD unless OLD_NEW=1; OLD_SPLIT=1: OLD is a chol.cu);
# PROF=1 adds Nsight Compute source-level profiles of the current kernels under $OUT.
cd "$(dirname "$0")"
cp ../../crates/gpublas/kernels/chol.cu solver_cur.cu
cp "${OLD:-../../.gpu/solver_old.cu}" solver_old.cu
F="-O3 -arch=sm_90 -std=c++17 -lineinfo -Xptxas=-v"
nvcc $F -DSOLVER_SRC='"solver_cur.cu"' leafbench.cu -o leaf_cur > $OUT/nvcc_cur.log 2>&1 &
nvcc $F -DSOLVER_SRC='"solver_old.cu"' $([ "${OLD_NEW:-0}" = 1 ] || echo -DLEAF_OLD) $([ "${OLD_SPLIT:-0}" = 1 ] || echo -DOLD_MONOLITHIC) leafbench.cu -o leaf_old > $OUT/nvcc_old.log 2>&1 &
for v in $VARS; do cp ../../.gpu/variants/$v.cu var_$v.cu; nvcc $F -DSOLVER_SRC="\"var_$v.cu\"" leafbench.cu -o var_$v > $OUT/nvcc_$v.log 2>&1 & done
wait
grep -E "error|registers|spill" $OUT/nvcc_cur.log | head -12
for v in $VARS; do echo "--- $v"; ./var_$v 2>&1 | grep -E "n=128|rows= 8000" | grep -v " 0.00 us" | cut -c1-50; rm -f $OUT/nvcc_$v.log; done
echo "--- old"; ./leaf_old 2>&1 | tee $OUT/leaf_old.txt | grep -E "us |FAIL" | head -12
echo "--- cur"; ./leaf_cur 2>&1 | tee $OUT/leaf_cur.txt | grep -E "FAIL|  [0-9]+\.[0-9]+ us" | grep -v " 0.00 us" | head -14
grep -c "ok$" $OUT/leaf_cur.txt; grep FAIL $OUT/leaf_cur.txt | head
[ "${PROF:-0}" = 1 ] || exit 0
for k in trsolve_d cholx_d; do
  timeout 120 ncu --clock-control none --warp-sampling-interval 0 -k regex:sol_$k --launch-skip 3 -c 1 --section SourceCounters --section WarpStateStats --section SpeedOfLight -o $OUT/$k ./leaf_cur > $OUT/ncu_$k.txt 2>&1
  ncu -i $OUT/$k.ncu-rep --page source --csv --print-source sass > $OUT/${k}_sass.csv 2>&1
  ncu -i $OUT/$k.ncu-rep --page details > $OUT/${k}_details.txt 2>&1
  grep -E "Duration" $OUT/${k}_details.txt
  python3 ../../.gpu/ncu_top.py $OUT/${k}_sass.csv 25 > $OUT/${k}_top.txt 2>&1; head -3 $OUT/${k}_top.txt | tail -1
  python3 ../../.gpu/regions.py $OUT/${k}_sass.csv >> $OUT/${k}_top.txt 2>&1
  rm -f $OUT/$k.ncu-rep $OUT/${k}_sass.csv $OUT/ncu_$k.txt
done
rm -f $OUT/nvcc_old.log
