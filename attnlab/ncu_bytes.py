"""Measures the DRAM bytes of one forward pass of each attnlab row of a results CSV under
Nsight Compute, and writes them into its hbm_bytes_measured column beside the model's
hbm_bytes_model.

Each case runs in its own attnlab-bench process with --profile_one_pass, so the profiler
sees exactly one forward pass (every kernel of it: naive's GEMMs and softmax, or the
tiled kernel), under
  ncu --profile-from-start off --clock-control none --cache-control all
      --metrics dram__bytes_read.sum,dram__bytes_write.sum
Caches are flushed before each kernel, so the figure is a cold pass: what the model counts.

usage: python -m attnlab.ncu_bytes --bench build/bench/attnlab-bench --results results/h100/attnlab-bench.csv
"""

from __future__ import annotations

import argparse
import csv
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from attnlab.atomic_file import check_replaceable_file, refusal_exits, write_csv
from attnlab.exits import fail

METRICS = ("dram__bytes_read.sum", "dram__bytes_write.sum")
NOTE_ABOVE = 0.25  # a measured/model gap beyond this gets a line saying so


def case_name(row: dict) -> str:
    return f"{row['implementation']}/{row['scenario']}/{row['dtype']}/d{row['head_dim']}"


def parse_ncu_csv(text: str) -> tuple[int, int, int]:
    """(bytes read, bytes written, kernels) summed over every profiled kernel of an ncu --csv report."""
    lines = text[text.find('"ID"') :].splitlines() if '"ID"' in text else []
    totals, kernels = dict.fromkeys(METRICS, 0), set()
    for r in csv.DictReader(lines):
        if r.get("Metric Name") in totals:
            if r.get("Metric Unit") not in ("byte", ""):
                raise ValueError(f"expected bytes, got unit {r['Metric Unit']!r} (is --print-units base set?)")
            totals[r["Metric Name"]] += int(float(r["Metric Value"].replace(",", "")))
            kernels.add(r["ID"])
    return totals[METRICS[0]], totals[METRICS[1]], len(kernels)


def measure(ncu: str, bench: str, row: dict, log) -> tuple[int, int, int] | None:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "ncu.csv"
        cmd = [
            ncu,
            "--profile-from-start",
            "off",
            "--clock-control",
            "none",
            "--cache-control",
            "all",
            "--metrics",
            ",".join(METRICS),
            "--csv",
            "--print-units",
            "base",
            "--log-file",
            str(report),
            bench,
            row["scenario"],
            f"--implementations={row['implementation']}",
            f"--dtypes={row['dtype']}",
            f"--head-dims={row['head_dim']}",
            "--warmup=1",
            "--profile-one-pass",
            "--reps=1",
        ]  # the flags above register this one case alone
        if row.get("kernel") and row["implementation"] != "naive":
            cmd.append(f"--kernel={row['kernel']}")  # the flash kernel the row measured
        done = subprocess.run(cmd, capture_output=True, text=True)
        log.write(f"$ {' '.join(cmd)}\n{done.stdout}{done.stderr}")
        text = report.read_text() if report.exists() else ""
        log.write(text + "\n")
        if done.returncode != 0:
            print(f"{case_name(row)}: ncu or the bench failed (exit {done.returncode}); see the log", file=sys.stderr)
            return None
        read, written, kernels = parse_ncu_csv(text)
        return (read, written, kernels) if kernels else None


def write_rows(path: Path, columns: list[str], rows: list[dict]):
    """The results file with the bytes measured so far, written atomically (attnlab/atomic_file.py)."""
    with refusal_exits("ncu_bytes"):
        write_csv(path, columns, rows)


def main():
    ap = argparse.ArgumentParser(prog="python -m attnlab.ncu_bytes", description=__doc__.splitlines()[0])
    ap.add_argument("--bench", required=True, help="the attnlab-bench binary")
    ap.add_argument("--results", required=True, type=Path, help="results CSV whose attnlab rows get hbm_bytes_measured")
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--log", type=Path, help="where to keep ncu's full output (default: beside --results)")
    args = ap.parse_args()
    if not shutil.which(args.ncu):
        fail("ncu_bytes", f"{args.ncu} is not on the PATH: Nsight Compute is needed to measure DRAM bytes", 3)
    if not args.results.is_file():
        fail("ncu_bytes", f"{args.results}: no such results file")
    with refusal_exits("ncu_bytes"):  # the file is rewritten in place: it must be one that can be replaced
        check_replaceable_file(args.results, "results CSV")
    with args.results.open(newline="") as f:
        reader = csv.DictReader(f)
        columns, rows = list(reader.fieldnames or []), list(reader)
    for needed in ("hbm_bytes_model", "hbm_bytes_measured", "source", "implementation"):
        if needed not in columns:
            fail("ncu_bytes", f"{args.results}: no {needed} column")
    log_path = args.log or args.results.with_suffix(".ncu.log")
    print(f"{'case':44} {'model bytes':>15} {'measured bytes':>15} {'measured/model':>14}  kernels")
    with log_path.open("w") as log:
        for row in rows:
            if row["source"] != "attnlab":
                continue
            got = measure(args.ncu, args.bench, row, log)
            if got is None:  # a figure left from an earlier run would pass for this one's
                row["hbm_bytes_measured"] = ""
                write_rows(args.results, columns, rows)
                print(f"{case_name(row):44} {row['hbm_bytes_model']:>15} {'(not measured)':>15}")
                continue
            read, written, kernels = got
            row["hbm_bytes_measured"] = str(read + written)
            model = int(row["hbm_bytes_model"]) if row["hbm_bytes_model"] else 0
            ratio = (read + written) / model if model else float("nan")
            flag = "  <- differs by more than 25%" if abs(ratio - 1) > NOTE_ABOVE else ""
            print(
                f"{case_name(row):44} {model:>15,} {read + written:>15,} {ratio:>14.3f}  {kernels}"
                f"  (read {read:,}, written {written:,}){flag}",
                flush=True,
            )
            write_rows(args.results, columns, rows)  # after each case: a run cut short keeps what it measured
    print(f"# wrote hbm_bytes_measured into {args.results}; ncu's output in {log_path}")


if __name__ == "__main__":
    main()
