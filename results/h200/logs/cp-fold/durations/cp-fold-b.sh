#!/usr/bin/env bash
# Where a zigzag rank's compute goes: initcheck on the CP pieces after the sums are poisoned
# once (both kernels, one GPU each); each launch's duration under ncu on one GPU (N = 4,
# zigzag, one rep) and, if the machine has nsys, a timeline; the forward before and after, 3
# rounds alternating.
set -u
N=.calls/build-new; B=.calls/before
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
export ATTNLAB_COMMIT=$(cat .calls/cp49/commit)
log=$OUT/logs; mkdir -p $log $OUT/csv
{ nvidia-smi; nvidia-smi topo -m; } > $log/machine.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/machine.txt
finish() { cp .calls/cp49/cp-fold-b.sh $log/; tar czf $OUT/cp-fold-b.tgz -C $OUT logs csv && rm -rf $OUT/logs $OUT/csv; exit 0; }
long=results/h100/logs/cp-ranks-one-gpu/one-doc-65536.toml
g=0
for k in wgmma_sm90 mma_sm80; do
  ( CUDA_VISIBLE_DEVICES=$g timeout 280 compute-sanitizer --tool initcheck --error-exitcode 9 $N/tests/attnlab_gpu_tests \
      --gtest_filter="Kernels/CpPieces.*/${k}_bf16_d128_causal" || echo "SANITIZER FAILED initcheck $k rc=$?" ) > $log/sanitizer-initcheck-$k.log 2>&1 &
  g=$((g + 1))
done
( CUDA_VISIBLE_DEVICES=2 timeout 280 ncu --metrics gpu__time_duration.sum,launch__grid_size,sm__throughput.avg.pct_of_peak_sustained_elapsed \
    --csv --print-units base $N/cli/attnlab cp $long --ranks 4 --strategy zigzag --run --reps 1 --warmup 0 > $log/ncu-zigzag.csv 2> $log/ncu-zigzag.err
  echo "ncu rc=$?" ) &
if command -v nsys > /dev/null; then
  ( CUDA_VISIBLE_DEVICES=3 timeout 200 nsys profile -o $OUT/csv/zigzag --force-overwrite true $N/cli/attnlab cp $long --ranks 4 \
      --strategy zigzag --run --reps 3 --warmup 1 > $log/nsys-run.txt 2>&1
    timeout 60 nsys stats --report cuda_gpu_trace --format csv -o $OUT/csv/zigzag $OUT/csv/zigzag.nsys-rep > $log/nsys-stats.txt 2>&1
    echo "nsys rc=$?"; rm -f $OUT/csv/zigzag.sqlite ) &
else echo "no nsys"; fi
wait
echo "== diagnosis done at ${SECONDS}s"
grep -hE "ERROR SUMMARY|SANITIZER FAILED|PASSED|FAILED" $log/sanitizer-*.log | head -8
S="uniform-16x2048 one-doc-16384"
bench() { CUDA_VISIBLE_DEVICES=0 timeout 100 "$@" > /dev/null 2>>$log/bench-errors.log || echo "bench failed: $*"; }
for r in 1 2 3; do
  sides="before after"; [ $r = 2 ] && sides="after before"
  for side in $sides; do
    bin=$B/attnlab-bench; [ $side = after ] && bin=$N/bench/attnlab-bench
    bench $bin $S --implementations=varlen --pass=fwd --reps=30 --kernel=wgmma-sm90 --out=$OUT/csv/fwd-wgmma-sm90-$side-$r.csv
  done
done
echo "== forward done at ${SECONDS}s"
finish
