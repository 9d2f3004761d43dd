#!/usr/bin/env bash
# What one run on the GPU machine does, building there: build, run the GPU tests,
# compute-sanitizer, and `attnlab run` over the shipped scenarios. Every log goes under $OUT; the end of stdout is a summary.
#   kernels/device_run.sh [build] [tests] [sanitize] [run] [quick] [ladder] [sm80] [hopper-bwd] [operator]
#                         [build-before] [compare]
# sanitize = memcheck, racecheck, synccheck and initcheck, forward and backward, with each
# flash kernel, on tests/gpu/sanitizer-small.toml, and on a few GPU tests;
# quick = `attnlab run` of the default scenario only; run = every shipped scenario;
# ladder = both flash kernels on the three uniform scenarios of kernels/README.md's ladder;
# sm80 = the GPU tests and `attnlab run uniform-64x512` on the sm_80 code path (below);
# hopper-bwd = wgmma-sm90's backward alone: its GPU tests and compute-sanitizer (what it
# passed before it became the default backward, kernel_choice.hpp);
# operator = pytorch/test_operator.py on this build (PyTorch's side streams among its tests);
# build-before, compare = this tree's attnlab-bench timed against another tree's, alternating (below).
# Header-only packages the machine lacks travel in .devdeps/ (carry it).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/attnlab-device-out}
mkdir -p "$out"
build=build-device
tests=$build/tests/attnlab_gpu_tests
attnlab=$build/cli/attnlab
[ $# -eq 0 ] && set -- build tests sanitize run sm80
failed=()

# One run of COMMAND... under compute-sanitizer's TOOL: a header, its report, and a
# "SANITIZER FAILED" line when it found something (or did not finish).
sanitized() {
  local tool=$1
  shift
  echo "---- $tool: $(basename "$1") ${*:2}"
  compute-sanitizer --tool "$tool" --error-exitcode 9 "$@" || echo "SANITIZER FAILED: $tool ($?)"
}
# The GPU tests matching FILTER (all when empty) in four processes at once, into LOG and
# LOG's shards: the fp64 reference checks, not the GPU, bound them (the whole suite in one
# process outlasted a run's stage; 40 to 112 tests ran in four processes in one to two
# minutes). False when one of them failed.
sharded_tests() {
  local log=$1 filter=${2:-*} pids=() ok=0
  for i in 0 1 2 3; do
    GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$i $tests --gtest_filter="$filter" >"$log.shard$i" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || ok=1; done
  cat "$log".shard* >"$log"
  return $ok
}
# The summary lines of a log of sanitized runs; false when one of them failed.
sanitizer_summary() {
  grep -E "^----|ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED|PASSED|FAILED" "$1"
  ! grep -q "SANITIZER FAILED" "$1"
}

for stage in "$@"; do
  echo "== $stage ($(date -u +%H:%M:%S))"
  case $stage in
    build)
      { nvidia-smi; nvcc --version; cmake --version; } >"$out/env.txt" 2>&1
      ninja=$(command -v ninja || echo /opt/torch/.venv/bin/ninja)
      # This H100 runs sm_90 code, or the compute_80 PTX when forced (sm80): the sm_86 and
      # sm_89 code of the default list would only lengthen the build here.
      if ! { cmake -S . -B $build -G Ninja -DCMAKE_MAKE_PROGRAM="$ninja" -DCMAKE_BUILD_TYPE=Release \
               -DCMAKE_CUDA_ARCHITECTURES="90-real;80-virtual" \
               -DATTNLAB_GUI=OFF -DATTNLAB_EXTRA_INCLUDES="$PWD/.devdeps/root/usr/include" &&
             cmake --build $build -j16 --target attnlab attnlab_gpu_tests attnlab-bench; } >"$out/build.log" 2>&1; then
        tail -40 "$out/build.log"
        exit 1
      fi
      grep -E "registers|spill" "$out/build.log" | sort | uniq -c | head -20
      ;;
    tests)
      sharded_tests "$out/tests.log" || failed+=(tests)
      grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|^  [a-z]+ +[a-z]+ +rows|tiles +[0-9]" "$out/tests.log" | head -150
      ;;
    sanitize)
      small=tests/gpu/sanitizer-small.toml
      # The Accuracy names end in _wgmma_sm90 for the Hopper kernel: the trailing * takes both kernels.
      filter='Determinism.*:*ManyOneTokenDocuments/fp16_d64_full*:*PackedMatchesReferenceWithItsBleed/bf16_d64_causal*'
      # Side by side (each sanitized process keeps a core busy; the GPU holds them all).
      pids=()
      for tool in memcheck racecheck synccheck initcheck; do
        for kernel in wgmma-sm90 mma-sm80; do
          sanitized $tool $attnlab run $small --pass both --kernel $kernel --reps 1 --count \
            >"$out/sanitizer-$tool-$kernel.log" 2>&1 &
          pids+=($!)
        done
        sanitized $tool $tests --gtest_filter="$filter" >"$out/sanitizer-$tool-tests.log" 2>&1 &
        pids+=($!)
      done
      wait "${pids[@]}"
      cat "$out"/sanitizer-*-*.log >"$out/sanitizer.log"
      sanitizer_summary "$out/sanitizer.log" || failed+=(sanitize)
      ;;
    quick)
      $attnlab run --count --out "$out/attnlab-run-quick.csv" 2>&1 | tee "$out/run-quick.log" || failed+=(quick)
      ;;
    run)
      scenarios=$(ls scenarios/*.toml | xargs -n1 basename | sed 's/\.toml$//')
      # shellcheck disable=SC2086
      $attnlab run $scenarios --count --out "$out/attnlab-run.csv" >"$out/run.log" 2>&1 || failed+=(run)
      cat "$out/run.log"
      ;;
    ladder)
      # Each rung of wgmma-sm90's forward ladder (kernels/wgmma_sm90/rungs.hpp), a kernel of
      # its own (--kernel wgmma-sm90/rungN, the results' kernel column says so; the last rung
      # has the shipped features), then each rung of its backward's ladder
      # (wgmma-sm90/bwd-rungN, --pass bwd), then both kernels as shipped, both passes. The
      # rungs are numbered from 1 up to the first name --kernel refuses.
      ladder=(uniform-64x512 uniform-16x2048 one-doc-16384 --implementations varlen --count)
      climb() {  # climb NAME_PREFIX PASS
        local rung=1 name
        while [ $rung -le 20 ] && $attnlab run tests/gpu/sanitizer-small.toml --implementations varlen --reps 1 \
          --pass "$2" --kernel "$1$rung" 2>&1 | grep -vq "expected one of"; do
          name=$(basename "$1$rung")
          timeout 120 $attnlab run "${ladder[@]}" --pass "$2" --kernel "$1$rung" \
            --out "$out/attnlab-ladder-$name.csv" >"$out/ladder-$name.log" 2>&1 || failed+=("ladder-$name")
          grep -E "^launch|^kernel|^scenario|^varlen|counted" "$out/ladder-$name.log"
          rung=$((rung + 1))
        done
      }
      climb wgmma-sm90/rung fwd
      climb wgmma-sm90/bwd-rung bwd
      for kernel in wgmma-sm90 mma-sm80; do
        timeout 180 $attnlab run "${ladder[@]}" --pass both --kernel $kernel --out "$out/attnlab-ladder-$kernel.csv" \
          >"$out/ladder-$kernel.log" 2>&1 || failed+=("ladder-$kernel")
        grep -E "^kernel|^scenario|^varlen|counted" "$out/ladder-$kernel.log"
      done
      ;;
    sm80)
      # What an Ampere or Ada GPU would run, on this one: every kernel of ours compiled at
      # load time from the compute_80 PTX in the binary (CUDA_FORCE_PTX_JIT=1), launched
      # with the configuration computed for an sm_86's 100 KB of shared memory per SM
      # (ATTNLAB_LAUNCH_AS=sm_86; kernels/common/launch_config.hpp). The `launch` lines of the run
      # name the PTX the code came from. naive's runs and tests go apart from the rest: its
      # cuBLAS GEMMs may have no PTX this GPU can compile when forced to, which says
      # nothing of our code.
      sm80=(env CUDA_FORCE_PTX_JIT=1 ATTNLAB_LAUNCH_AS=sm_86)
      if cuobjdump=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null); then
        "$cuobjdump" --list-ptx "$attnlab" >"$out/sm80-ptx.txt" 2>&1
        grep -m3 sm_80 "$out/sm80-ptx.txt" || echo "no compute_80 PTX found in $attnlab"
      fi
      timeout 180 "${sm80[@]}" $attnlab run uniform-64x512 --count --impl padded,packed,varlen \
        --out "$out/attnlab-run-sm80.csv" >"$out/sm80-run.log" 2>&1 || failed+=(sm80-run)
      cat "$out/sm80-run.log"
      timeout 240 "${sm80[@]}" $tests --gtest_filter='-*Naive*' >"$out/sm80-tests.log" 2>&1 || failed+=(sm80-tests)
      grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]|Failure" "$out/sm80-tests.log" | head -60
      timeout 90 "${sm80[@]}" $tests --gtest_filter='*Naive*' >"$out/sm80-tests-naive.log" 2>&1 ||
        failed+=(sm80-tests-naive)
      grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]|Failure" "$out/sm80-tests-naive.log" | head -20
      timeout 60 "${sm80[@]}" $attnlab run uniform-64x512 --impl naive >"$out/sm80-run-naive.log" 2>&1 ||
        failed+=(sm80-run-naive)
      tail -5 "$out/sm80-run-naive.log"
      ;;
    hopper-bwd)
      filter='AllConfigs/Backward.*wgmma_sm90:BackwardSmall.*:BackwardWindows.*:BackwardCounts.*:BackwardDeterminism.*'
      sharded_tests "$out/hopper-bwd-tests.log" "$filter" || failed+=(hopper-bwd-tests)
      grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]|Failure" "$out/hopper-bwd-tests.log" | head -40
      {
        for tool in memcheck racecheck synccheck; do
          sanitized $tool $attnlab run tests/gpu/sanitizer-small.toml --pass bwd --kernel wgmma-sm90 --reps 1 --count
        done
      } >"$out/hopper-bwd-sanitizer.log" 2>&1
      sanitizer_summary "$out/hopper-bwd-sanitizer.log" || failed+=(hopper-bwd-sanitizer)
      ;;
    operator)
      # The PyTorch operator's tests (forward and backward against varlen_attn, side streams,
      # torch.compile, refusals) on this build's libraries; the extension compiles first.
      # The script imports the attnlab package of this checkout.
      PYTHONPATH=$PWD timeout 540 python3 pytorch/test_operator.py --build $build -v >"$out/operator.log" 2>&1 ||
        failed+=(operator)
      grep -E "^test_|^Ran|^OK|FAILED|Error" "$out/operator.log" | head -40
      ;;
    build-before)
      # Another tree's attnlab-bench, built as `build` builds this one, for `compare`: its
      # files in $BEFORE_SRC (default build-before-src, carried; e.g. from a checkout,
      # `mkdir build-before-src && git archive 5ee1c8d | tar -x -C build-before-src`).
      ninja=$(command -v ninja || echo /opt/torch/.venv/bin/ninja)
      if ! { cmake -S "${BEFORE_SRC:-build-before-src}" -B build-before -G Ninja -DCMAKE_MAKE_PROGRAM="$ninja" \
               -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="90-real;80-virtual" -DATTNLAB_GUI=OFF \
               -DATTNLAB_TESTS=OFF -DATTNLAB_EXTRA_INCLUDES="$PWD/.devdeps/root/usr/include" &&
             cmake --build build-before -j16 --target attnlab-bench; } >"$out/build-before.log" 2>&1; then
        tail -40 "$out/build-before.log"
        failed+=(build-before)
      fi
      ;;
    compare)
      # Both flash kernels, forward and backward, on the ladder's three scenarios: this tree's
      # attnlab-bench (`build`'s) against build-before's (`build-before`), the two
      # alternating, two rounds. The table: the mean of the rounds' medians, after / before.
      mkdir -p "$out/compare"
      for round in 1 2; do
        for kernel in wgmma-sm90 mma-sm80; do
          for side in before after; do
            bench=build-before/bench/attnlab-bench
            [ $side = after ] && bench=$build/bench/attnlab-bench
            ATTNLAB_COMMIT=$side ATTNLAB_SCENARIOS=$PWD/scenarios timeout 120 $bench uniform-64x512 uniform-16x2048 \
              one-doc-16384 --implementations=varlen --kernel=$kernel --pass=both --reps=30 \
              --out="$out/compare/$side-$kernel-$round.csv" >"$out/compare/$side-$kernel-$round.log" 2>&1 ||
              failed+=("compare-$side-$kernel-$round")
          done
        done
      done
      python3 - "$out/compare" <<'PY' | tee "$out/compare.md"
import csv, glob, os, statistics, sys
medians = {}
for path in glob.glob(os.path.join(sys.argv[1], "*.csv")):
    side = os.path.basename(path).split("-")[0]
    for row in csv.DictReader(open(path)):
        key = (row["kernel"], row["pass"], row["scenario"])
        medians.setdefault(key, {}).setdefault(side, []).append(float(row["median_us"]))
print("| kernel | pass | scenario | before µs | after µs | after / before |")
print("|---|---|---|---|---|---|")
for (kernel, pass_, scenario), sides in sorted(medians.items(), key=lambda kv: (kv[0][0] != "wgmma-sm90", kv[0][1], kv[0][2])):
    if "before" in sides and "after" in sides:
        b, a = statistics.mean(sides["before"]), statistics.mean(sides["after"])
        print(f"| {kernel} | {pass_} | {scenario} | {b:.1f} | {a:.1f} | {a / b:.3f} |")
PY
      ;;
    *) echo "unknown stage $stage"; exit 2 ;;
  esac
done
echo "== done ($(date -u +%H:%M:%S)); failed: ${failed[*]:-none}"
[ ${#failed[@]} -eq 0 ]
