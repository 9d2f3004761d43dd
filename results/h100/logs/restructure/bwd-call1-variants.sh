#!/usr/bin/env bash
# Hopper backward variants: SASS of the D=128 timed kernel (base, cur, variants), then
# attnlab-bench bwd (varlen, wgmma-sm90, 30 passes) of base and every variant, interleaved rounds.
set -u
out=$OUT; log=$out/bwd1; mkdir -p $log
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-}
export ATTNLAB_SCENARIOS=$PWD/scenarios
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
[ -e /work/base ] || ln -s "$PWD" /work/base
nvidia-smi > $log/env.txt 2>&1
( export PATH=$PATH:/usr/local/cuda/bin; which cuobjdump nvdisasm
  for f in .calls/bwd-sass/*.cubin; do cuobjdump -sass $f > $out/sass-$(basename $f .cubin).txt 2>&1; done ) > $log/sass.log 2>&1
cd $out && tar czf sass.tgz sass-*.txt && rm -f sass-*.txt; cd - > /dev/null
S="uniform-64x512 uniform-16x2048 one-doc-16384"
V="base bwd-cur bwd-carry bwd-carry_noasm bwd-carry_m1"
for r in 1 2 3; do
  [ $SECONDS -gt 125 ] && break
  for b in $V; do
    ATTNLAB_COMMIT=$b timeout 40 .calls/$b/attnlab-bench $S --implementations=varlen --kernel=wgmma-sm90 --pass=bwd \
      --reps=30 --out=$log/time-$b-$r.csv > $log/time-$b-$r.log 2>&1 || echo "timing failed: $b $r"
  done
  echo "== round $r done at ${SECONDS}s"
done
for f in $log/time-*.csv; do awk -F, -v f=$(basename $f .csv) 'NR>1 {printf "%s %s %s %s\n", f, $1, $9, $10}' $f; done
cd $out && tar czf bwd1.tgz bwd1 && rm -rf bwd1; echo "== end at ${SECONDS}s"
