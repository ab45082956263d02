#!/bin/bash
# How the nineteenth session measured the drop-in on the GPU machine (the device tool): put
# libgpublas_blas.so (release), the bench binary (bench.c) and Debian 12's .deb files of libblas-test,
# libblas3, liblapack-test, liblapack3, libtmglib3, libgfortran5, libquadmath0 and
# libopenblas0-pthread into .gpu/dropin (debs/ for the packages), carry .gpu, run this there;
# results go to $OUT. Calls: the testers with every Level-3/LAPACK call on the GPU, then the
# speed table against OpenBLAS (all cores) and NVBLAS (its CPU library: OpenBLAS).
cd "$(dirname "$0")/../.."
T0=$(date +%s)
left() { local l=$(( 560 - ($(date +%s) - T0) )); [ $l -gt $1 ] && l=$1; [ $l -lt 5 ] && l=1; echo $l; }
D=$PWD/.gpu/dropin
X=/tmp/x; mkdir -p $X
for f in $D/debs/*.deb; do dpkg-deb -x $f $X 2>/dev/null || (mkdir -p /tmp/ar && cd /tmp/ar && rm -f data.tar* && ar x $f && tar -xf data.tar.* -C $X); done
L=$X/usr/lib/x86_64-linux-gnu
mkdir -p /tmp/di && cp $D/libgpublas_blas.so /tmp/di/ && ln -sf libgpublas_blas.so /tmp/di/libblas.so.3
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"; ls /usr/local/cuda/lib64/libnvblas* 2>/dev/null; } > $OUT/machine.txt
cat $OUT/machine.txt
export GPUBLAS_KERNEL_CACHE=/tmp/kc
mkdir -p /tmp/run && cd /tmp/run
# 1. Testers, Level 3 and LAPACK all on the GPU.
export GPUBLAS_DEVICE=cuda GPUBLAS_BLAS_CROSSOVER=0
for t in d z s c; do
  s=$(date +%s)
  LD_LIBRARY_PATH=/tmp/di:$L timeout $(left 90) $L/blas/xblat3$t < $L/blas/${t}blat3.in > x3$t.log 2>&1
  o=${t}blat3.out; cat x3$t.log >> $o
  r=$(grep -q "END OF TESTS" $o && ! grep -qE "FAIL|FATAL|SUSPECT|NOT DETECTED|CHANGED INCORRECTLY|\*\*\*\*\*" $o && echo pass || echo FAILED)
  echo "xblat3$t on the GPU: $r, $(grep -cE "PASSED THE COMPUTATIONAL" $o) computational, $(( $(date +%s) - s )) s"
  [ $r = pass ] || grep -E -B2 -A3 "FAIL|FATAL|SUSPECT|NOT DETECTED|CHANGED|gpublas" $o | head -20
done
for t in d z; do
  s=$(date +%s)
  LD_LIBRARY_PATH=/tmp/di:$L timeout $(left 90) $L/blas/x${t}cblat3 < $L/blas/${t}in3 > xc3$t.out 2>&1
  o=xc3$t.out
  r=$(grep -q "END OF TESTS" $o && ! grep -qE "FAIL|FATAL|SUSPECT|NOT DETECTED|CHANGED INCORRECTLY|\*\*\*\*\*" $o && echo pass || echo FAILED)
  echo "x${t}cblat3 on the GPU: $r, $(grep -cE "PASSED THE .*COMPUTATIONAL" $o) computational, $(( $(date +%s) - s )) s"
  T=$(echo $t | tr a-z A-Z)
  { head -16 $L/lapack/${t}test.in; echo "${T}GE   11"; echo "${T}PO    9"; } > ${t}gepo.in
  s=$(date +%s)
  LD_PRELOAD=/tmp/di/libblas.so.3 LD_LIBRARY_PATH=/tmp/di:$L:$L/lapack timeout $(left 120) $L/lapack/xlintst$t < ${t}gepo.in > xl$t.out 2>&1
  o=xl$t.out
  r=$(grep -q "End of tests" $o && ! grep -qiE "failed|XERBLA was called|Illegal value|returned with INFO" $o && echo pass || echo FAILED)
  echo "xlintst$t GE/PO on the GPU: $r, $(grep -c "passed the threshold" $o) groups, $(( $(date +%s) - s )) s"
  [ $r = pass ] || grep -iE -B2 -A3 "failed|XERBLA|Illegal|returned|gpublas" $o | head -20
done
cp /tmp/run/*.out $OUT/ 2>/dev/null; tar -czf $OUT/testers.tgz -C /tmp/run . 2>/dev/null; rm -f $OUT/*.out
unset GPUBLAS_DEVICE GPUBLAS_BLAS_CROSSOVER
# 2. Speed: OpenBLAS (all cores), gpublas (default routing), gpublas host backend, NVBLAS.
B=$D/bench
export OPENBLAS_NUM_THREADS=$(nproc)
{
LD_LIBRARY_PATH=$L/openblas-pthread:$L timeout $(left 150) $B openblas
LD_PRELOAD=/tmp/di/libblas.so.3 LD_LIBRARY_PATH=/tmp/di:$L:$L/lapack timeout $(left 150) $B gpublas
GPUBLAS_DEVICE=host LD_PRELOAD=/tmp/di/libblas.so.3 LD_LIBRARY_PATH=/tmp/di:$L:$L/lapack timeout $(left 120) $B gpublas-host dgemm dgemv dtrsm dgetrf
NV=$(ls /usr/local/cuda/lib64/libnvblas.so* 2>/dev/null | head -1)
if [ -n "$NV" ]; then
  printf "NVBLAS_CPU_BLAS_LIB %s\nNVBLAS_GPU_LIST ALL0\nNVBLAS_LOGFILE /tmp/nvblas.log\n" "$L/openblas-pthread/libblas.so.3" > /tmp/nvblas.conf
  NVBLAS_CONFIG_FILE=/tmp/nvblas.conf LD_PRELOAD=$NV LD_LIBRARY_PATH=$L/openblas-pthread:$L timeout $(left 120) $B nvblas dgemm sgemm zgemm dtrsm
else
  echo "no libnvblas under /usr/local/cuda/lib64"
fi
} 2>&1 | tee $OUT/speed.log
echo "elapsed $(( $(date +%s) - T0 )) s"
