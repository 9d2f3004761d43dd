#!/usr/bin/env bash
# One GPU run of everything results/h100/ holds: build attnlab-bench, benchmark every
# shipped scenario, run the PyTorch peers on the same scenarios, then measure each of
# our cases' DRAM bytes under ncu. Run from the repository root on the GPU machine:
#
#   ATTNLAB_COMMIT=$(git rev-parse --short=12 HEAD) bench/device_run.sh OUTDIR [STAGE...]
#
# STAGE is any of build, bench, peers, variants, ncu, ceilings, kernels, bwd (default: the
# first six, in that order; kernels and bwd on request). Each stage
# has a time limit so that a slow one cannot cost the others their results. OUTDIR
# receives attnlab-bench.csv, peers.csv, their -variants.csv twins and logs.tar.gz (the
# peers that could not run are the `unavailable:` lines of logs/peers*.log).
set -uo pipefail
out=${1:?usage: bench/device_run.sh OUTDIR [build|bench|peers|variants|ncu ...]}
shift
stages=${*:-build bench peers variants ncu ceilings}
build=${ATTNLAB_BUILD:-build-device}
mkdir -p "$out/logs"
export PYTHONUNBUFFERED=1 ATTNLAB_SCENARIOS=$PWD/scenarios
# $SCENARIOS (space-separated) narrows the run; by default every shipped scenario.
scenarios=${SCENARIOS:-$(for f in scenarios/*.toml; do basename "$f" .toml; done)}

stage() { [[ " $stages " == *" $1 "* ]]; }
limit() { timeout --signal=INT --kill-after=10 "$@"; }

if stage build; then
  ninja=$(command -v ninja || ls /opt/torch/.venv/bin/ninja 2>/dev/null)
  gen=(); [ -n "$ninja" ] && gen=(-G Ninja -DCMAKE_MAKE_PROGRAM="$ninja")
  deps=(); [ -d .devdeps/root/usr/include ] && deps=(-DATTNLAB_EXTRA_INCLUDES="$PWD/.devdeps/root/usr/include")
  { cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="90-real;80-virtual" \
      -DATTNLAB_GUI=OFF -DATTNLAB_TESTS=OFF "${deps[@]}" &&
    cmake --build "$build" -j"$(nproc)" --target attnlab-bench attnlab; } >"$out/logs/build.log" 2>&1 ||
    { tail -30 "$out/logs/build.log"; echo "device_run: build failed"; exit 1; }
fi
nvidia-smi >"$out/logs/nvidia-smi.txt" 2>&1

# attnlab-bench times 30 passes per case after its warm-up, as the peers time 30 calls:
# the same burst for both (a sustained run lets clocks settle lower, by a few percent).
# The default flash kernel (the fastest the GPU runs), then the teaching kernel's flash rows
# in the same run when the default is another (the tables' last column).
if stage bench; then
  echo "== attnlab-bench"
  # shellcheck disable=SC2086
  limit 140 "$build/bench/attnlab-bench" $scenarios --out="$out/attnlab-bench.csv" --reps=30 \
    --benchmark_counters_tabular=true 2>&1 | tee "$out/logs/attnlab-bench.log"
  if ! grep -q ',mma-sm80,' "$out/attnlab-bench.csv"; then
    # shellcheck disable=SC2086
    limit 120 "$build/bench/attnlab-bench" $scenarios --kernel=mma-sm80 --implementations=padded,packed,varlen \
      --out="$out/attnlab-bench-mma-sm80.csv" --reps=30 2>&1 | tee "$out/logs/attnlab-bench-mma-sm80.log"
  fi
fi

if stage peers; then
  echo "== PyTorch peers"
  # shellcheck disable=SC2086
  limit 240 python3 -m attnlab.peers $scenarios --attnlab "$build/cli/attnlab" \
    --out "$out/peers.csv" 2>&1 | tee "$out/logs/peers.log"
fi

# Both dtypes and head dims of $VARIANT_SCENARIOS (default uniform-64x512), ours and the peers'.
if stage variants; then
  variants=${VARIANT_SCENARIOS:-uniform-64x512}
  echo "== variants: $variants, bf16 and fp16, head dims 64 and 128"
  # shellcheck disable=SC2086
  limit 60 "$build/bench/attnlab-bench" $variants --dtypes=bf16,fp16 --head-dims=64,128 \
    --out="$out/attnlab-bench-variants.csv" --reps=30 2>&1 | tee "$out/logs/attnlab-bench-variants.log"
  # shellcheck disable=SC2086
  limit 120 python3 -m attnlab.peers $variants --dtypes bf16,fp16 --head-dims 64,128 \
    --attnlab "$build/cli/attnlab" --out "$out/peers-variants.csv" 2>&1 | tee "$out/logs/peers-variants.log"
fi

if stage ncu && [ -f "$out/attnlab-bench.csv" ]; then
  echo "== DRAM bytes under ncu"
  limit 200 python3 -m attnlab.ncu_bytes --bench "$build/bench/attnlab-bench" --results "$out/attnlab-bench.csv" \
    --log "$out/logs/ncu.log" 2>&1 | tee "$out/logs/ncu-table.txt"
fi

# The GEMM and copy ceilings the floors are priced at (results/h100/ceilings.toml).
if stage ceilings; then
  echo "== ceilings"
  limit 60 python3 -m attnlab.peers.ceilings 2>&1 | tee "$out/ceilings.toml"
fi

# Both flash kernels on every scenario, head dims 64 and 128: where one is faster (TABLE.md).
if stage kernels; then
  for kernel in wgmma-sm90 mma-sm80; do
    echo "== kernels: $kernel"
    # shellcheck disable=SC2086
    limit 200 "$build/bench/attnlab-bench" $scenarios --kernel=$kernel --implementations=padded,packed,varlen \
      --head-dims=64,128 --reps=10 --out="$out/attnlab-bench-two-kernels-$kernel.csv" 2>&1 |
      tee "$out/logs/attnlab-bench-two-kernels-$kernel.log"
  done
fi

# The backward of every implementation and peer on every scenario (the default backward
# kernel). 10 passes per case: padded long-tail's backward takes seconds a pass. SDPA's
# memory-efficient backend is left out (the slowest of SDPA's backends). The
# peers' CSV is rewritten after each scenario, so a run cut short keeps the finished ones.
if stage bwd; then
  echo "== backward: attnlab-bench --pass bwd"
  # shellcheck disable=SC2086
  limit 280 "$build/bench/attnlab-bench" $scenarios --pass=bwd --out="$out/attnlab-bench-bwd.csv" \
    --reps="${BWD_REPS:-10}" 2>&1 | tee "$out/logs/attnlab-bench-bwd.log"
  echo "== backward: PyTorch peers"
  bwd_peers=${BWD_PEERS:-torch-varlen_attn,torch-varlen_attn-kv-expanded,torch-flex-document-mask,torch-sdpa-flash-padded,torch-sdpa-cudnn-padded,torch-sdpa-flash-packed,torch-sdpa-cudnn-packed,torch-eager-padded}
  # shellcheck disable=SC2086
  limit 300 python3 -m attnlab.peers $scenarios --pass bwd --peers "$bwd_peers" \
    --attnlab "$build/cli/attnlab" --out "$out/peers-bwd.csv" 2>&1 | tee "$out/logs/peers-bwd.log"
fi

tar -czf "$out/logs.tar.gz" -C "$out" logs && rm -rf "$out/logs"
ls -l "$out"
