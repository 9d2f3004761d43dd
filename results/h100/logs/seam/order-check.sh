#!/usr/bin/env bash
# wgmma-sm90 before (base: 5ee1c8d), as merged (new) and with one K/V state in the consumer (fixed),
# forward and backward on the three uniform scenarios, six rounds with the order rotated each round
# (the GPU's clocks under load change with how long it has been busy); SM clock, power and
# temperature sampled every 200 ms beside.
set -u
d=.calls/dev; log=$OUT/order; mkdir -p $log
export LD_LIBRARY_PATH=$PWD/$d/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $log/gpu.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 200 > $log/clocks.csv 2>&1 &
smi=$!
S="uniform-64x512 uniform-16x2048 one-doc-16384"
builds=(base new fixed)
for r in 0 1 2 3 4 5; do
  for i in 0 1 2; do
    b=${builds[$(( (r + i) % 3 ))]}
    echo "$(date +%H:%M:%S.%N) start $b $r" >> $log/order.txt
    ATTNLAB_COMMIT=$b timeout 60 $d/$b/attnlab-bench $S --implementations=varlen --kernel=wgmma-sm90 --pass=both \
      --reps=30 --out=$log/time-$b-$r.csv > $log/time-$b-$r.log 2>&1 || echo "timing failed: $b $r"
  done
done
kill $smi
for f in $log/time-*.csv; do awk -F, -v f=$(basename $f .csv) 'NR==1{for(i=1;i<=NF;i++) c[$i]=i} NR>1 {printf "%s %s %s %.1f %.1f %.1f\n", f, $1, $c["pass"], $c["median_us"], $c["min_us"], $c["max_us"]}' $f; done
cd $OUT && tar czf order.tgz order && rm -rf order; echo "== end at ${SECONDS}s"
