#!/usr/bin/env bash
# The NaN-past-the-valid-end test against a build whose loader skips the zeroing (mutant:
# expected to fail), and the two gradient-comparing tests on the tree's build (expected to pass).
set -u
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
w=/tmp/work3; log=$w/logs; mkdir -p $log; cp .calls/s51/bite.sh $log/
timeout 120 .calls/mutant/attnlab_gpu_tests --gtest_filter='BackwardPadding.*' > $log/mutant.log 2>&1
echo "mutant rc=$?"; grep -E "^\[  (PASSED|FAILED)|Failure|Expected|Which is|dQ value" $log/mutant.log | head -12
timeout 120 .calls/new/attnlab_gpu_tests --gtest_filter='BackwardPadding.*:BackwardDeterminism.*' > $log/new.log 2>&1
echo "new rc=$?"; grep -E "^\[  (PASSED|FAILED|  OK)|^\[       OK|Failure" $log/new.log | head -12
tar czf $OUT/bite.tgz -C $w logs
