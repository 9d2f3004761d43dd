#!/usr/bin/env bash
# Everything of the measured step and the PyTorch operator that needs the GPU, from the
# repository root on the GPU machine:
#
#   ATTNLAB_COMMIT=$(git rev-parse --short=12 HEAD) train/device_run.sh OUTDIR [STAGE...]
#
# STAGE (default: all of them, in this order; each has its own time limit):
#   build                 CMake build with PIC static libraries and the attnlab CLI ($ATTNLAB_BUILD,
#                         default build-torch); about 3 to 6 minutes on a fresh machine, seconds after
#   operator              pytorch/test_operator.py: GPU tests against varlen_attn (compiles the
#                         extension, about 1 minute, and one torch.compile test), the operator timed
#                         beside `attnlab run` on uniform-64x512 and nanochat-d24, then the bad-input
#                         test alone (a crash there cannot take the others with it)
#   gemms                 python -m attnlab.step.gemms: the step's matrix products at d24's shapes; under a minute
#   step:SCENARIO:LAYOUT[:BACKEND[:OPTIMIZER]]
#                         python -m attnlab.step for BACKEND (default: fa2, attnlab and cudnn in turn) with
#                         OPTIMIZER (adamw, the default, or muon) on one GPU; each run compiles the
#                         model (1 to 2 minutes, seconds when an identical graph is in the inductor
#                         cache from an earlier run on this machine) and times 25 steps
#   steps                 every step:SCENARIO:LAYOUT of the three d24 scenarios; about 20 to 30 minutes:
#                         split it over device runs (10 minutes each) by naming its stages
#   ddp:N[:SCENARIO[:BACKEND[:OPTIMIZER[:SYNC]]]]
#                         python -m attnlab.step under torchrun with N ranks (a machine with N GPUs), both
#                         layouts; defaults nanochat-d24, fa2, adamw, SYNC during_backward (DDP's buckets
#                         during the backward), after_backward (one pass once it is done) or sharded
#                         (nanochat's optimizer step, with muon)
# With ATTNLAB_GPU_LOCK set to a file, the steps' timed part and the operator stage each hold
# an exclusive flock on it: stages started side by side compile at once but never time at once
# (the ddp stages run without it: every rank would wait on it).
# OUTDIR receives step.csv (results rows, pass = step), step-parts.csv (each part's kernels),
# gemms.csv, operator.csv and logs/.
set -uo pipefail
out=${1:?usage: train/device_run.sh OUTDIR [build|operator|gemms|steps|step:SCENARIO:LAYOUT|ddp:N ...]}
shift
scenarios="nanochat-d24 nanochat-d24-web-mix nanochat-d24-no-window"
all_steps=$(for s in $scenarios; do for l in packed varlen; do echo "step:$s:$l"; done; done)
stages=${*:-build operator gemms steps}
stages=${stages/steps/$all_steps}
build=${ATTNLAB_BUILD:-build-torch}
cli=$build/cli/attnlab
mkdir -p "$out/logs"
# The attnlab package from this checkout (python -m from the root finds it; the operator's test
# script, run by path, finds it through PYTHONPATH).
export PYTHONUNBUFFERED=1 ATTNLAB_SCENARIOS=$PWD/scenarios NCCL_NVLS_ENABLE=0 PYTHONPATH=$PWD
# Both layouts give cu_seqlens one static length (the article's fixed max_num_docs), so packed
# and varlen, and the three scenarios where their windows agree, share one compiled graph
# per backend (attnlab's layouts are constants of the graph: there only the Triton kernels are shared).
max_num_docs=128

limit() { timeout --signal=INT --kill-after=15 "$@"; }

for stage in $stages; do
  case $stage in
    build)
      echo "== build ($build)"
      ninja=$(command -v ninja || ls /opt/torch/.venv/bin/ninja 2>/dev/null)
      gen=(); [ -n "$ninja" ] && gen=(-G Ninja -DCMAKE_MAKE_PROGRAM="$ninja")
      deps=(); [ -d .devdeps/root/usr/include ] && deps=(-DATTNLAB_EXTRA_INCLUDES="$PWD/.devdeps/root/usr/include")
      { limit 540 cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
          -DCMAKE_CUDA_ARCHITECTURES="90-real;80-virtual" \
          -DATTNLAB_GUI=OFF -DATTNLAB_TESTS=OFF -DATTNLAB_BENCH=OFF "${deps[@]}" &&
        limit 540 cmake --build "$build" -j"$(nproc)" --target attnlab attnlab_kernels; } \
        >"$out/logs/build.log" 2>&1 || { tail -30 "$out/logs/build.log"; echo "device_run: build failed"; exit 1; }
      ;;
    operator)
      echo "== the PyTorch operator"
      gpu_lock=(); [ -n "${ATTNLAB_GPU_LOCK:-}" ] && gpu_lock=(flock "$ATTNLAB_GPU_LOCK")
      # The extension compiles first, outside the lock: it needs no GPU.
      limit 300 python3 -c "from attnlab import ops; ops.load('$build')" \
        >"$out/logs/extension-build.log" 2>&1 || { tail -30 "$out/logs/extension-build.log"; echo "device_run: extension failed"; }
      limit 540 "${gpu_lock[@]}" python3 pytorch/test_operator.py --build "$build" --attnlab "$cli" -v \
        -k varlen -k packed -k layout -k compiled --time uniform-64x512 nanochat-d24 \
        --out "$out/operator.csv" 2>&1 | tee "$out/logs/operator.log"
      limit 120 "${gpu_lock[@]}" python3 pytorch/test_operator.py --build "$build" -v -k refuses 2>&1 |
        tee -a "$out/logs/operator.log"
      ;;
    gemms)
      echo "== GEMMs at the model's shapes"
      limit 120 python3 -m attnlab.step.gemms nanochat-d24 --attnlab "$cli" --out "$out/gemms.csv" 2>&1 |
        tee "$out/logs/gemms.log"
      ;;
    step:*:*)
      IFS=: read -r _ scenario layout backends optimizer <<<"$stage"
      optimizer=${optimizer:-adamw}
      for backend in ${backends:-fa2 attnlab cudnn}; do
        echo "== step $scenario $layout $backend $optimizer"
        limit 360 python3 -m attnlab.step "$scenario" --layout "$layout" --backend "$backend" \
          --optimizer "$optimizer" --max-num-docs "$max_num_docs" --attnlab "$cli" --build "$build" \
          --out "$out/step.csv" --parts-out "$out/step-parts.csv" 2>&1 |
          tee "$out/logs/step-$scenario-$layout-$backend-$optimizer.log"
      done
      ;;
    ddp:*)
      IFS=: read -r _ ranks scenario backend optimizer sync <<<"$stage"
      scenario=${scenario:-nanochat-d24} backend=${backend:-fa2} optimizer=${optimizer:-adamw} sync=${sync:-during_backward}
      for layout in packed varlen; do
        echo "== step $scenario $layout $backend $optimizer on $ranks GPUs, $sync"
        ATTNLAB_GPU_LOCK= limit 400 torchrun --standalone --nproc_per_node "$ranks" -m attnlab.step "$scenario" --layout "$layout" \
          --backend "$backend" --optimizer "$optimizer" --gradient-sync "$sync" --max-num-docs "$max_num_docs" \
          --attnlab "$cli" --build "$build" --out "$out/step.csv" --parts-out "$out/step-parts.csv" 2>&1 |
          tee "$out/logs/step-ddp$ranks-$scenario-$layout-$backend-$optimizer-$sync.log"
      done
      ;;
    *) echo "device_run: unknown stage $stage"; exit 2 ;;
  esac
done
nvidia-smi >"$out/logs/nvidia-smi.txt" 2>&1
echo "device_run: done; $(ls "$out")"
