#!/bin/bash
# device: A/B of the whole-LU kernels: DEFS (harness macros: LUR, LURQ, LURH) on the current
# solver.cu, VARS (scratch/*.cu files, with -DLUR); PROF=1: a source-level profile of cur
cd "$(dirname "$0")"
cp ../../crates/gpublas/kernels/solver.cu solver_cur.cu
F="-O3 -arch=sm_90 -std=c++17 -DHAVE_LUB -DONLY8"
for d in ${DEFS:-LUR}; do nvcc $F -D$d -DSOLVER_SRC='"solver_cur.cu"' solbench.cu -o cur_$d > $OUT/nvcc_$d.log 2>&1 & done
for v in $VARS; do cp ../../scratch/$v.cu $v.cu; nvcc $F -DLUR -DSOLVER_SRC="\"$v.cu\"" solbench.cu -o $v > $OUT/nvcc_$v.log 2>&1 & done
wait
grep -i error $OUT/nvcc*.log | head
for d in ${DEFS:-LUR}; do echo "--- $d"; ./cur_$d 2>&1 | grep -E "lub" | tee $OUT/harness_$d.txt; done
for b in $VARS; do echo "--- $b"; ./$b 2>&1 | grep -E "lub" | tee $OUT/harness_$b.txt; done
[ "${PROF:-0}" = 1 ] || exit 0
timeout 240 ncu -k regex:sol_lur -c 1 --section SourceCounters --section WarpStateStats --section InstructionStats -o $OUT/lub ./cur_${PD:-LUR} > $OUT/ncu_run.txt 2>&1
ncu -i $OUT/lub.ncu-rep --page source --csv --print-source sass > $OUT/lub_sass.csv 2>&1
ncu -i $OUT/lub.ncu-rep --page details > $OUT/lub_details.txt 2>&1
