#!/usr/bin/env bash
# The phase-clock build (phase-clock.patch on c175d14, carried as .calls/diag/attnlab): one
# backward of four scenarios, the grid's cycle totals per phase printed by its last CTA.
set -u
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
for s in uniform-64x512 uniform-16x2048 one-doc-16384 web-mix-2048; do
  echo "== $s"
  timeout 100 .calls/diag/attnlab run $s --implementations varlen --pass bwd --reps 3 > /tmp/$s.log 2>&1; echo rc=$?
  grep PHASES /tmp/$s.log | tail -3
  grep -E "^varlen" /tmp/$s.log | cut -c1-160
done
