#!/usr/bin/env bash
# cuBLAS opened on first use: naive's GPU tests and a naive run, forward and backward.
set -u
out=$OUT; log=$out/naive; mkdir -p $log
export ATTNLAB_SCENARIOS=$PWD/scenarios LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-}
N=.calls/new
ldd $N/attnlab | grep -c cublas | sed 's/^/cublas libraries linked: /'
for i in 0 1 2 3; do
  GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$i timeout 200 $N/attnlab_gpu_tests --gtest_filter='*Naive*' > $log/tests-naive-$i.log 2>&1 &
done
wait
echo "naive tests: $(cat $log/tests-naive-*.log | grep -c '^\[       OK') ok, $(cat $log/tests-naive-*.log | grep -c '^\[  FAILED') failed"
grep -hE "^\[  FAILED|Failure" $log/tests-naive-*.log | head
ATTNLAB_COMMIT=$(cat .calls/commit) timeout 120 $N/attnlab run uniform-64x512 --implementations naive,varlen --pass both --reps 10 \
  --out $log/naive-run.csv > $log/naive-run.log 2>&1; echo "run exit $?"
grep -E "^naive|^varlen|error|cublas" $log/naive-run.log | head -12
cd $out && tar czf naive.tgz naive && rm -rf naive
