#!/usr/bin/env bash
set -u
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
which cuobjdump nvdisasm
for b in base new; do
  echo "== $b fwd varlen"; .calls/$b/attnlab run tests/gpu/sanitizer-small.toml --implementations varlen --pass fwd --reps 1 2>&1 | grep -E "error|^varlen|launch" | cut -c1-200
done
echo "== new fwd EAGER"; CUDA_MODULE_LOADING=EAGER .calls/new/attnlab run tests/gpu/sanitizer-small.toml --implementations varlen --pass fwd --reps 1 2>&1 | grep -E "error|^varlen" | cut -c1-200
echo "== new bwd rung1"; .calls/new/attnlab run tests/gpu/sanitizer-small.toml --implementations varlen --pass bwd --kernel wgmma-sm90/bwd-rung1 --reps 1 2>&1 | grep -E "error|^varlen" | cut -c1-200
echo "== new bwd mma"; .calls/new/attnlab run tests/gpu/sanitizer-small.toml --implementations varlen --pass bwd --kernel mma-sm80 --reps 1 2>&1 | grep -E "error|^varlen" | cut -c1-200
cuobjdump -res-usage .calls/new/attnlab 2>&1 | grep -A1 -E "backward_specialized|Function _ZN7attnlab10wgmma_sm907forward" | grep -E "Function|REG" | cut -c1-220 | head -24
cuobjdump -lelf .calls/new/attnlab 2>&1 | head; cuobjdump -lelf .calls/base/attnlab 2>&1 | head
