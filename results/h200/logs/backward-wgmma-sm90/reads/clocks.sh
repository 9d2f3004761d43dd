#!/usr/bin/env bash
# Why one-doc-16384's backward has two speeds: nvidia-smi sampled every 20 ms (SM clock, power,
# temperature, the clock event reasons) while ours runs 40 timed passes, then cuDNN's padded
# backward its own, then ours again.
set -u
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
w=/tmp/work; log=$w/logs; csv=$w/csv; mkdir -p $log $csv; cp .calls/s55/clocks.sh $log/
nvidia-smi --help-query-gpu > $log/query-help.txt 2>&1
reasons=$(grep -o '"clocks_event_reasons.active"\|"clocks_throttle_reasons.active"' $log/query-help.txt | head -1 | tr -d '"')
nvidia-smi -q -d PERFORMANCE,POWER,CLOCK > $log/before.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,${reasons:-clocks.sm} --format=csv,nounits -lms 20 > $log/samples.csv 2>&1 &
sampler=$!
sleep 1
for r in 1 2; do
  date +%T.%N >> $log/marks.txt; echo "ours $r start" >> $log/marks.txt
  ATTNLAB_COMMIT=new timeout 90 .calls/new/attnlab-bench one-doc-16384 --implementations=varlen --pass=bwd --reps=40 \
    --out=$csv/ours-$r.csv > /dev/null 2>>$log/errors.log
  date +%T.%N >> $log/marks.txt; echo "cudnn $r start" >> $log/marks.txt
  timeout 90 python3 -m attnlab.peers one-doc-16384 --pass bwd --peers torch-sdpa-cudnn-padded --reps 40 \
    --attnlab .calls/new/attnlab --out $csv/cudnn-$r.csv >> $log/peers.log 2>&1
done
date +%T.%N >> $log/marks.txt
kill $sampler
nvidia-smi -q -d PERFORMANCE > $log/after.txt 2>&1
python3 - $log $csv <<'PY' | tee $log/summary.txt
import csv, glob, sys, statistics
log, d = sys.argv[1], sys.argv[2]
for p in sorted(glob.glob(d + "/*.csv")):
    for r in csv.DictReader(open(p)):
        print(p.split("/")[-1], r.get("source") or "attnlab", r["median_us"][:7], r["min_us"][:7], r["max_us"][:7])
marks = open(log + "/marks.txt").read().split("\n")
print("marks", [m for m in marks if m])
rows = list(csv.reader(open(log + "/samples.csv")))
print("header", rows[0])
# per window of 0.5 s: mean SM clock, power, the distinct reasons
import datetime
def t(s): return datetime.datetime.strptime(s.strip().split(" ")[1], "%H:%M:%S.%f")
win = {}
for r in rows[1:]:
    try: k = t(r[0]).replace(microsecond=(t(r[0]).microsecond // 500000) * 500000)
    except Exception: continue
    win.setdefault(k, []).append(r)
for k in sorted(win):
    rs = win[k]
    clk = statistics.mean(float(x[1]) for x in rs); pw = statistics.mean(float(x[3]) for x in rs)
    print(k.strftime("%H:%M:%S.%f")[:10], f"sm {clk:6.0f} MHz power {pw:6.1f} W temp {rs[-1][4].strip()} reasons {sorted(set(x[5].strip() for x in rs))}")
PY
tar czf $OUT/clocks.tgz -C $w logs csv
