#!/usr/bin/env bash
# Why a zigzag rank's full blocks run slower per score than the whole forward: ncu sections on the
# whole forward (launch 0), rank 0's diagonal round (1) and its full 8192 x 8192 round (2), one GPU.
set -u
N=.calls/build-new
export LD_LIBRARY_PATH=$PWD/.calls/dev/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios
log=$OUT/logs; mkdir -p $log
nvidia-smi > $log/machine.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/machine.txt
long=results/h100/logs/cp-ranks-one-gpu/one-doc-65536.toml
CUDA_VISIBLE_DEVICES=0 timeout 200 ncu --kernel-name regex:forward --launch-count 3 --section SpeedOfLight \
  --section MemoryWorkloadAnalysis --section Occupancy --section SchedulerStats --section WarpStateStats \
  --section LaunchStats --section ComputeWorkloadAnalysis --metrics lts__t_sector_hit_rate.pct,dram__bytes_read.sum \
  $N/cli/attnlab cp $long --ranks 4 --strategy zigzag --run --reps 1 --warmup 0 > $log/ncu-sections.txt 2>&1
echo "ncu rc=$?"
grep -E "^  [a-z_:]+.*forward|Duration|Memory Throughput|DRAM Throughput|L2 Hit Rate|Compute \(SM\) Throughput|Issue Slots Busy|No Eligible|Executed Ipc Active|dram__bytes_read|lts__t_sector_hit" $log/ncu-sections.txt | head -60
cp .calls/cp49/cp-profile.sh $log/
tar czf $OUT/cp-profile.tgz -C $OUT logs && rm -rf $OUT/logs
