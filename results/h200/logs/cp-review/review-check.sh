#!/usr/bin/env bash
# After the review: the CP and stream GPU tests, `cp --run --nccl` on 2 GPUs (defaults and the
# ring's knobs), the forward of both kernels timed against 9804e67 (.calls/before), alternating,
# then the ring's knobs on 4 GPUs with rows.
set -u
N=.calls/build-new B=.calls/before
nccl_dir=$(python3 -c 'import nvidia.nccl as n; print(n.__path__[0])')/lib
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:$nccl_dir:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
export NCCL_NVLS_ENABLE=0 ATTNLAB_COMMIT=$(cat .calls/commit-now)
log=$OUT/logs; mkdir -p $log $OUT/bench
nvidia-smi > $log/machine.txt 2>&1
CUDA_VISIBLE_DEVICES=0 timeout 60 $N/tests/attnlab_gpu_tests --gtest_filter='Cp*:*Stream*' > $log/tests.log 2>&1
tail -n 2 $log/tests.log; grep -h '^\[  FAILED' $log/tests.log
for extra in "" "--sm-margin 4 --transfer-channels 4"; do
  CUDA_VISIBLE_DEVICES=0,1 timeout 60 $N/cli/attnlab cp web-mix-2048 --ranks 2 --strategy zigzag --run --nccl $extra \
    --reps 10 > "$log/nccl${extra// /}.txt" 2>&1; echo "nccl [$extra] rc=$?"
  grep -E '^run:|^imbalance' "$log/nccl${extra// /}.txt"
done
for round in 1 2; do
  for side in before now; do
    bench=$N/bench/attnlab-bench; [ $side = before ] && bench=$B/attnlab-bench
    for k in wgmma-sm90 mma-sm80; do
      [ $k = mma-sm80 ] && [ $round = 2 ] && continue
      CUDA_VISIBLE_DEVICES=0 timeout 60 $bench uniform-64x512 uniform-16x2048 one-doc-16384 --implementations=varlen \
        --kernel=$k --reps=20 --out=$OUT/bench/$side-$k-$round.csv > $log/bench-$side-$k-$round.log 2>&1 ||
        echo "bench $side $k $round failed"
    done
  done
  echo "== round $round at ${SECONDS}s"
done
python3 - $OUT/bench <<'PY'
import csv, glob, os, sys, collections
med = collections.defaultdict(list)
for f in glob.glob(sys.argv[1] + '/*.csv'):
    side = os.path.basename(f).split('-', 1)[0]
    for r in csv.DictReader(open(f)):
        med[(r['kernel'], r['scenario'], side)].append((float(r['median_us']), r['rel_l2_error']))
for key in sorted({(k, s) for k, s, _ in med}):
    b = [x[0] for x in med[key + ('before',)]]; n = [x[0] for x in med[key + ('now',)]]
    print(key[0], key[1], 'before', b, 'now', n, 'now/before %.3f' % (min(n) / min(b)), 'rel_l2', [x[1] for x in med[key + ('now',)]])
PY
# The ring's knobs on 4 GPUs, every strategy, with rows (last: the first parts matter more).
mkdir -p $OUT/rows
long=results/h100/logs/cp-ranks-one-gpu/one-doc-65536.toml
for spec in "one-doc-65536 $long" "web-mix-2048 web-mix-2048"; do
  set -- $spec
  CUDA_VISIBLE_DEVICES=0,1,2,3 timeout 60 $N/cli/attnlab cp $2 --ranks 4 --run --nccl --sm-margin 4 \
    --transfer-channels 4 --csv $OUT/rows/$1-n4-tuned.csv > $log/cp-$1-n4-tuned.txt 2>&1 || echo "$1 tuned failed: $?"
  echo "== $1 tuned at ${SECONDS}s"; grep -E "^(contiguous|zigzag|documents),|^run:" $log/cp-$1-n4-tuned.txt | paste - -
done
tar czf $OUT/review.tgz -C $OUT logs bench rows && rm -rf $OUT/logs $OUT/bench $OUT/rows
