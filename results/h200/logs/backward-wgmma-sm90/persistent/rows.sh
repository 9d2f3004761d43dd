#!/usr/bin/env bash
# The shipped set's backward rows on this GPU, new tree: attnlab-bench --pass=bwd on every
# shipped scenario (10 passes); uniform-64x512's bwd rows of all four implementations,
# checked; head dim 64 and fp16 before (base) and after (new), one round each.
set -u
N=.calls/new
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
mkdir -p $OUT/csv $OUT/logs; cp .calls/s52/rows.sh $OUT/logs/
scenarios=$(for f in scenarios/*.toml; do basename "$f" .toml; done)
ATTNLAB_COMMIT=$(cat .calls/s52/commit) timeout --signal=INT --kill-after=5 105 $N/attnlab-bench $scenarios --pass=bwd \
  --out=$OUT/csv/attnlab-bench-bwd.csv --reps=10 > $OUT/logs/attnlab-bench-bwd.log 2>&1 || echo "bench failed"
echo "== bench done at ${SECONDS}s"
ATTNLAB_COMMIT=$(cat .calls/s52/commit) timeout 30 $N/attnlab run uniform-64x512 --pass bwd --out $OUT/csv/attnlab-run-bwd.csv \
  > $OUT/logs/four-bwd.log 2>&1 || echo "four implementations bwd failed"
grep -E "^(naive|padded|packed|varlen) " $OUT/logs/four-bwd.log | cut -c1-150
echo "== four done at ${SECONDS}s"
for v in base new; do
  ATTNLAB_COMMIT=$v timeout 25 .calls/$v/attnlab-bench uniform-64x512 uniform-16x2048 --implementations=varlen --pass=bwd \
    --dtypes=bf16,fp16 --head-dims=64,128 --reps=15 --out=$OUT/csv/variants-$v.csv > /dev/null 2>&1 || echo "variants $v failed"
done
echo "== variants done at ${SECONDS}s"
