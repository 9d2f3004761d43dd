#!/usr/bin/env bash
# On one H100: the wgmma descriptors made once per tile (new) against HEAD (head). The SASS
# instruction mix of both backward kernels; backward and forward timings, alternating; then
# new's GPU tests (16 shards) beside compute-sanitizer.
set -u
export LD_LIBRARY_PATH=$PWD/.calls/lib:${LD_LIBRARY_PATH:-} ATTNLAB_SCENARIOS=$PWD/scenarios PYTHONUNBUFFERED=1
w=/tmp/work; log=$w/logs; csv=$w/csv; mkdir -p $log $csv; cp .calls/s56/ab.sh $log/
nvidia-smi > $log/nvidia-smi.txt 2>&1; grep -m1 -o "NVIDIA H[0-9]*[^|]*" $log/nvidia-smi.txt
CUOBJDUMP=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -1)
for v in head new; do
  for k in backward forward; do
    timeout 60 $CUOBJDUMP -sass .calls/$v/${k}_bf16.o > $w/sass-$v-$k.txt 2>&1 || echo "cuobjdump $v $k failed"
  done
done
python3 - $w <<'PY' | tee $log/sass-mix.txt
import collections, re, sys
w = sys.argv[1]
for k, want in (("backward", "backward_specializedI13__nv_bfloat16Li128ELb1ELb1ELb0E"), ("forward", "forwardI13__nv_bfloat16Li128E")):
    for v in ("head", "new"):
        funcs = {}; cur = None
        for line in open(f"{w}/sass-{v}-{k}.txt"):
            m = re.search(r"Function : (\S+)", line)
            if m: cur = m.group(1); funcs[cur] = collections.Counter(); continue
            m = re.search(r"/\*[0-9a-f]{4}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", line)
            if m and cur: funcs[cur][m.group(2)] += 1
        for f, c in funcs.items():
            if want in f:
                tot = sum(c.values())
                top = " ".join(f"{o}:{n}" for o, n in c.most_common(14))
                print(f"{k} {v} {f[:70]} total {tot} HGMMA {c['HGMMA']} R2UR {c['R2UR']} | {top}")
                break
PY
gzip -c $w/sass-head-backward.txt > $log/sass-head-backward.txt.gz; gzip -c $w/sass-new-backward.txt > $log/sass-new-backward.txt.gz
echo "== sass at ${SECONDS}s"
timeout 40 .calls/new/attnlab run uniform-64x512 --pass bwd > $log/check-four.log 2>&1 || echo "check failed"
grep -E "^(naive|padded|packed|varlen) " $log/check-four.log | cut -c1-160
bench() { timeout 100 "$@" > /dev/null 2>>$log/bench-errors.log || echo "bench failed: $*"; }
for r in 1 2 3; do
  order="head new"; [ $r = 2 ] && order="new head"
  for v in $order; do
    ATTNLAB_COMMIT=$v bench .calls/$v/attnlab-bench uniform-64x512 uniform-16x2048 one-doc-16384 web-mix-2048 \
      web-mix-2048-window512 --implementations=varlen --pass=bwd --reps=15 --out=$csv/bwd-$v-$r.csv
  done
done
echo "== bwd rounds at ${SECONDS}s"
for r in 1 2; do
  order="head new"; [ $r = 2 ] && order="new head"
  for v in $order; do
    ATTNLAB_COMMIT=$v bench .calls/$v/attnlab-bench uniform-64x512 uniform-16x2048 --implementations=varlen --pass=bwd \
      --dtypes=bf16,fp16 --head-dims=64,128 --reps=15 --out=$csv/variants-$v-$r.csv
    ATTNLAB_COMMIT=$v bench .calls/$v/attnlab-bench uniform-64x512 uniform-16x2048 one-doc-16384 web-mix-2048 \
      --implementations=varlen --pass=fwd --reps=15 --out=$csv/fwd-$v-$r.csv
  done
done
echo "== variants and forward at ${SECONDS}s"
python3 - $csv <<'PY' | tee $log/timing.txt
import csv, glob, statistics, sys
m = {}
for p in glob.glob(sys.argv[1] + "/*.csv"):
    kind = p.split("/")[-1].split("-")[0]
    for r in csv.DictReader(open(p)):
        m.setdefault((kind, r["scenario"], r["dtype"], r["head_dim"]), {}).setdefault(r["commit"], []).append(float(r["median_us"]))
for k in sorted(m):
    v = {c: statistics.mean(x) for c, x in m[k].items()}
    print(*k, " ".join(f"{c} {v[c]:8.1f}" for c in sorted(v)), f"new/head {v['new']/v['head']:.3f}",
          {c: [round(x, 1) for x in xs] for c, xs in m[k].items()})
PY
N=.calls/new
for i in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$i timeout 250 $N/attnlab_gpu_tests > $log/tests-shard$i.log 2>&1 &
done
for tool in racecheck memcheck; do
  ( timeout 250 compute-sanitizer --tool $tool --error-exitcode 9 $N/attnlab run tests/gpu/sanitizer-small.toml \
      --pass bwd --kernel wgmma-sm90 --reps 1 --count || echo "SANITIZER FAILED $tool rc=$?" ) > $log/sanitizer-$tool.log 2>&1 &
done
for tool in racecheck memcheck synccheck; do
  ( timeout 250 compute-sanitizer --tool $tool --error-exitcode 9 --kernel-name kns=backward_specialized \
      $N/attnlab_gpu_tests --gtest_filter='BackwardDeterminism.*:*ManyOneTokenDocuments/fp16_d64_full_wgmma*:*ManyOneTokenDocuments/bf16_d128_causal_wgmma*' \
      || echo "SANITIZER FAILED $tool rc=$?" ) > $log/sanitizer-items-$tool.log 2>&1 &
done
wait
echo "== tests done at ${SECONDS}s: $(cat $log/tests-shard*.log | grep -c '^\[       OK') ok, $(cat $log/tests-shard*.log | grep -c '^\[  FAILED') failed, $(cat $log/tests-shard*.log | grep -c '^\[  SKIPPED') skipped, $(grep -L 'PASSED\|FAILED  \]' $log/tests-shard*.log | wc -l) shards unfinished"
grep -hE "^\[  FAILED|Failure" $log/tests-shard*.log | head -10
for f in $log/sanitizer-*.log; do echo "$(basename $f): $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY|SANITIZER FAILED' $f | tr '\n' ' ')"; done
tar czf $OUT/ab.tgz -C $w logs csv
