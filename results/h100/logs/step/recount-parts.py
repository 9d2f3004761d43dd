#!/usr/bin/env python3
"""results/h100/attnlab-step.csv from step-as-measured.csv and the per-kernel log step-parts.csv,
with each row's parts summed again by the step's parts (attnlab/step/parts.py) as it reads now.
Two things differ from the parts as measured: the profiler listed the optimizer's record_function
range (Optimizer.step#AdamW.step) as a GPU event spanning AdamW's kernels, which counted those
kernels twice (the step now leaves user annotations out), and cuDNN's backward helpers
(cudnn::fusion::compute_dot_do_o, convert_dq) fell in `other` (now attention_bwd). Run it from the
repository's root with the attnlab package importable (`pip install -e .`, or PYTHONPATH=.)."""

import csv
import sys
from collections import defaultdict
from pathlib import Path

from attnlab.step.parts import split_into_parts

HERE = Path(__file__).resolve().parent

ANNOTATIONS = {"Optimizer.step#AdamW.step"}
KEY = ("scenario", "implementation", "source", "gpus")

kernels = defaultdict(list)  # each row's (kernel name, µs per step, inside the optimizer), annotations left out
with open(HERE / "step-parts.csv", newline="") as f:
    for r in csv.DictReader(f):
        if r["kernel_name"] not in ANNOTATIONS:
            in_optimizer = r["part"] == "optimizer"  # AdamW's kernels: the optimizer's by name too
            kernels[tuple(r[c] for c in KEY)].append((r["kernel_name"], float(r["us_per_step"]), in_optimizer))
with open(HERE / "step-as-measured.csv", newline="") as f:
    reader = csv.DictReader(f)
    columns, rows = reader.fieldnames, list(reader)
for r in rows:
    recounted, _ = split_into_parts(kernels[tuple(r[c] for c in KEY)], 1)
    for part, us in recounted.items():
        r[f"step_{part}_us"] = f"{us:.6g}"
    r["step_kernels_us"] = f"{sum(recounted.values()):.6g}"
out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parents[1] / "attnlab-step.csv"
with open(out, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
