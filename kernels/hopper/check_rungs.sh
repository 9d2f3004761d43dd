#!/usr/bin/env bash
# (A one-off: remove it once the rungs are measured and kernels/README.md's ladder has their rows.)
# One device call for wgmma-sm90 rungs 2 and 3 (branches hopper-rung2, hopper-rung3), run from
# the main checkout's root on the device. Before the call, on this machine:
#   for r in 2 3; do rm -rf /work/main/.carry/r$r && mkdir -p /work/main/.carry/r$r &&
#     git -C /work/wt/hopper archive hopper-rung$r | tar -x -C /work/main/.carry/r$r; done
#   cp /work/wt/hopper/kernels/hopper/check_rungs.sh /work/main/.carry/  (or: git -C /work/wt/hopper show hopper-rung3:kernels/hopper/check_rungs.sh)
# run: carry [".carry", ".devdeps"], command "bash .carry/check_rungs.sh", timeout ~450 s.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"; root=$PWD; start=$(date +%s)
left() { echo $(( $1 - ($(date +%s) - start) )); }
for r in r2 r3; do
  ( cd .carry/$r && ln -sfn "$root/.devdeps" .devdeps &&
    cmake -S . -B b -G Ninja -DCMAKE_MAKE_PROGRAM=/opt/torch/.venv/bin/ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES=90-real -DATTNLAB_GUI=OFF -DATTNLAB_BENCH=OFF \
      -DATTNLAB_EXTRA_INCLUDES=$PWD/.devdeps/root/usr/include >"$out/build-$r.log" 2>&1 &&
    cmake --build b -j8 --target attnlab attnlab_gpu_tests >>"$out/build-$r.log" 2>&1 ) &
done
wait; echo "built at $(( $(date +%s) - start )) s"
S="uniform-64x512 uniform-16x2048 one-doc-16384"
for r in r3 r2; do  # timing: alone on the GPU, one after the other
  timeout -s KILL 100 .carry/$r/b/cli/attnlab run $S --implementations varlen --kernel wgmma-sm90 --count \
    >"$out/ladder-$r.log" 2>&1; echo "$r ladder rc $?"; grep -E "^scenario|^varlen|counted" "$out/ladder-$r.log"
done
timeout -s KILL 60 .carry/r3/b/cli/attnlab run one-doc-16384 --implementations varlen --kernel mma-sm80 \
  >"$out/ladder-mma.log" 2>&1; grep -E "^varlen" "$out/ladder-mma.log"
# correctness of both rungs side by side (GPU work overlaps: no timing from here on)
for r in r3 r2; do
  timeout -s KILL $(left 420) .carry/$r/b/tests/attnlab_gpu_tests \
    --gtest_filter='*wgmma*:Determinism.*:KernelCounts.*:WindowCounts.*:Windows/*' >"$out/tests-$r.log" 2>&1 &
done
( cd .carry/r3 && for tool in memcheck racecheck synccheck; do
    timeout -s KILL 60 compute-sanitizer --tool $tool --error-exitcode 9 b/cli/attnlab run tests/gpu/sanitizer-small.toml \
      --reps 1 --count --kernel wgmma-sm90 --implementations padded,packed,varlen || echo "SANITIZER FAILED: $tool ($?)"
  done ) >"$out/sanitizer-r3.log" 2>&1 &
wait
for r in r3 r2; do echo "== tests $r"; grep -E "^\[  (PASSED|FAILED) +\]|Failure" "$out/tests-$r.log" | head -20; done
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED" "$out/sanitizer-r3.log"
echo "done at $(( $(date +%s) - start )) s"
