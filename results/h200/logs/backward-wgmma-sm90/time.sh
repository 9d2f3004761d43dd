#!/usr/bin/env bash
# The step cursor and the loader's crossing tiles (new) against the shipped backward (base,
# the tree at 2a07b44), attnlab-bench --pass=bwd, three rounds in alternating order on the
# ladder's scenarios and documents of mixed lengths; head dim 64 and fp16 before and after;
# the peers' backward in the same run; new's gradients checked on web-mix-2048.
set -u
N=.calls/new; B=.calls/base
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
w=/tmp/work; log=$w/logs; csv=$w/csv; mkdir -p $log $csv; cp .calls/s51/time.sh $log/
nvidia-smi > $log/nvidia-smi.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/nvidia-smi.txt
finish() { tar czf $OUT/time.tgz -C $w logs csv; exit 0; }
timeout 90 $N/attnlab run web-mix-2048 --impl varlen,padded --pass bwd --reps 3 > $log/check-web-mix.log 2>&1
echo "check rc=$?"; grep -E "^(varlen|padded) " $log/check-web-mix.log | cut -c1-150
bench() { timeout 120 "$@" > /dev/null 2>>$log/bench-errors.log || echo "bench failed: $*"; }
S="uniform-64x512 uniform-16x2048 one-doc-16384 web-mix-2048 nanochat-d24-web-mix sft-chats"
for r in 1 2 3; do
  order="base new"; [ $r = 2 ] && order="new base"
  for v in $order; do
    export ATTNLAB_COMMIT=$v
    bench .calls/$v/attnlab-bench $S --implementations=varlen --pass=bwd --reps=30 --out=$csv/$v-varlen-$r.csv
    bench .calls/$v/attnlab-bench web-mix-2048 --implementations=padded --pass=bwd --reps=10 --out=$csv/$v-padded-$r.csv
  done
done
echo "== rounds done at ${SECONDS}s"
for r in 1 2; do for v in base new; do
  export ATTNLAB_COMMIT=$v
  bench .calls/$v/attnlab-bench uniform-64x512 uniform-16x2048 --implementations=varlen --pass=bwd --dtypes=bf16,fp16 \
    --head-dims=64,128 --reps=30 --out=$csv/variants-$v-$r.csv
done; done
echo "== variants done at ${SECONDS}s"
unset ATTNLAB_COMMIT
timeout 200 python3 -m attnlab.peers uniform-64x512 uniform-16x2048 one-doc-16384 web-mix-2048 nanochat-d24-web-mix \
  --pass bwd --peers torch-varlen_attn,torch-sdpa-cudnn-padded --attnlab $N/attnlab --out $csv/peers-bwd-same-run.csv \
  > $log/peers.log 2>&1 || echo "peers failed"
echo "== peers done at ${SECONDS}s"
python3 - $csv <<'PY'
import csv, glob, os, statistics, sys
m = {}
for p in glob.glob(sys.argv[1] + "/*.csv"):
    name = os.path.basename(p)[:-4]
    if name.startswith("peers"):
        for r in csv.DictReader(open(p)):
            print(f"peer {r['scenario']:24s} {r['source']:28s} {float(r['median_us']):9.1f}")
        continue
    for r in csv.DictReader(open(p)):
        v = r["commit"]
        key = (r["scenario"], r["implementation"], r["dtype"], r["head_dim"])
        m.setdefault(key, {}).setdefault(v, []).append(float(r["median_us"]))
for k in sorted(m):
    b, n = m[k].get("base", []), m[k].get("new", [])
    if b and n:
        print(*k, f"base {statistics.mean(b):9.1f} new {statistics.mean(n):9.1f} ratio {statistics.mean(n)/statistics.mean(b):.3f}",
              [round(x, 1) for x in b], [round(x, 1) for x in n])
PY
finish
