#!/usr/bin/env bash
set -u
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
cuobjdump -res-usage .calls/new/attnlab 2>&1 | grep -A1 -E "backward_specialized" | grep -E "Function|REG" | sed -E 's/_ZN7attnlab10wgmma_sm9020backward_specialized//' | cut -c1-200 | head -24
for k in wgmma-sm90/bwd-rung3 wgmma-sm90/bwd-rung4 wgmma-sm90; do
  echo "== new bwd $k"; .calls/new/attnlab run tests/gpu/sanitizer-small.toml --implementations varlen --pass bwd --kernel $k --reps 1 2>&1 | grep -E "error|^varlen" | cut -c1-200
done
echo "== EAGER"; CUDA_MODULE_LOADING=EAGER .calls/new/attnlab run tests/gpu/sanitizer-small.toml --implementations varlen --pass bwd --reps 1 2>&1 | grep -E "error|^varlen" | cut -c1-200
echo "== sanitizer"; compute-sanitizer .calls/new/attnlab run tests/gpu/sanitizer-small.toml --implementations varlen --pass bwd --reps 1 2>&1 | grep -v "^=========     " | head -30
