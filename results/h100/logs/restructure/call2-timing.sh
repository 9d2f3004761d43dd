#!/usr/bin/env bash
# Call B: both kernels before (base, 010503a) and after (new), forward and backward, on the
# three uniform scenarios, by attnlab-bench (30 timed passes per case), interleaved rounds.
set -u
out=$OUT; log=$out/timing; mkdir -p $log
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-}
export ATTNLAB_SCENARIOS=$PWD/scenarios
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
[ -e /work/base ] || ln -s "$PWD" /work/base
nvidia-smi > $log/env.txt 2>&1
S="uniform-64x512 uniform-16x2048 one-doc-16384"
for r in 1 2 3; do
  [ $SECONDS -gt 140 ] && break
  for k in wgmma-sm90 mma-sm80; do for b in base new; do
    c=$(cat .calls/commit); [ $b = base ] && c=$(cat .calls/base_commit)
    ATTNLAB_COMMIT=$c timeout 45 .calls/$b/attnlab-bench $S --implementations=varlen --kernel=$k --pass=both \
      --reps=30 --out=$log/time-$b-$k-$r.csv > $log/time-$b-$k-$r.log 2>&1 || echo "timing failed: $b $k $r"
  done; done
  echo "== round $r done at ${SECONDS}s"
done
for f in $log/time-*.csv; do awk -F, -v f=$(basename $f .csv) 'NR>1 {printf "%s %s %s %s\n", f, $1, $9, $10}' $f; done
cd $out && tar czf timing.tgz timing && rm -rf timing; echo "== end at ${SECONDS}s"
