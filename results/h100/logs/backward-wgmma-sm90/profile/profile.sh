#!/usr/bin/env bash
# Backward profile: the three passes' times under ncu, the kernel's sections on two scenarios,
# and the shipped build against one without dQ's reductions (an upper bound on what they cost).
set -u
export ATTNLAB_SCENARIOS=$PWD/scenarios
A=.calls/build-torch/cli/attnlab; B=.calls/build-abl/cli/attnlab
S="uniform-64x512 uniform-16x2048 one-doc-16384 uniform-256x128"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1; cat $OUT/gpu.txt
for r in 1 2; do for b in A B; do
  bin=$A; [ $b = B ] && bin=$B
  timeout 100 $bin run $S --impl varlen --pass bwd --reps 30 --out $OUT/time-$b-$r.csv > $OUT/time-$b-$r.log 2>&1 || echo "time $b $r failed"
done; done
python3 - <<'PY'
import csv,glob,os,statistics
out=os.environ['OUT']; m={}
for p in glob.glob(out+'/time-*.csv'):
    b=os.path.basename(p).split('-')[1]
    for row in csv.DictReader(open(p)): m.setdefault((row['scenario'],b),[]).append(float(row['median_us']))
for s in sorted({k[0] for k in m}):
    a=statistics.mean(m.get((s,'A'),[0])); b=statistics.mean(m.get((s,'B'),[0]))
    print(f"{s:20s} shipped {a:8.1f}  no-dQ-reductions {b:8.1f}  ratio {b/a if a else 0:.3f}")
PY
# Each pass of one backward (no warm-up, one rep): durations and DRAM bytes.
for s in $S; do
  timeout 120 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_red.sum \
    $A run $s --impl varlen --pass bwd --reps 1 --warmup 0 > $OUT/ncu-split-$s.log 2>&1
  echo "== $s"; grep -E "^  [a-z_:<>0-9 ,A-Za-z]*\(|gpu__time|dram__bytes|lts__t_sectors" $OUT/ncu-split-$s.log | sed 's/  */ /g' | cut -c1-150
done
for s in uniform-16x2048 uniform-64x512; do
  timeout 150 ncu -k regex:backward -c 1 --section SpeedOfLight --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy \
    --section SchedulerStats --metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed_op_global_red.sum,lts__t_sectors_op_red.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum \
    $A run $s --impl varlen --pass bwd --reps 1 --warmup 0 > $OUT/ncu-kernel-$s.log 2>&1
done
grep -vE "^==PROF==|^    -----" $OUT/ncu-kernel-uniform-16x2048.log | grep -E "[0-9]" | head -120
