"""Each matrix product of the training step at the model's own shapes, timed with torch.matmul (cuBLAS).

    python -m attnlab.step.gemms SCENARIO [SCENARIO...] --out GEMMS.csv

For every linear layer of the scenario's model (attnlab/step/model.py, read off the module
itself) and M = the micro-batch's tokens, bf16: the forward Y = X·Wᵀ (M x out, inner in),
the backward's dX = dY·W (M x in, inner out) and dW = dYᵀ·X (out x in, inner M). CUDA
events around each of --reps calls after --warmup; one row per (product, pass) with
per_step = how many such products one step runs, so that the sum of median_us x per_step
prices the step's matrix products at measured speed (printed at the end).
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from pathlib import Path

from attnlab.atomic_file import append_rows, check_replaceable_file, refusal_exits
from attnlab.cli import DEFAULT_CLI
from attnlab.environment import environment_columns
from attnlab.exits import fail, import_torch
from attnlab.scenario import scenario_json
from attnlab.step.rows import GEMM_COLUMNS, gemm_row
from attnlab.timing import time_calls


def model_linears(torch, shape) -> Counter:
    """(name, in, out) -> count for every nn.Linear of the model, built on the meta device (no memory)."""
    from attnlab.step.model import GPT

    with torch.device("meta"):
        model = GPT(shape)
    count = Counter()
    for name, module in model.named_modules():
        if isinstance(module, torch.nn.Linear):
            generic = ".".join(part for part in name.split(".") if not part.isdigit() and part != "blocks")
            count[(generic, module.in_features, module.out_features)] += 1
    return count


def check_arguments(args):
    """The flags' own checks and --out, before PyTorch or the GPU is touched."""
    if args.warmup < 0 or args.reps < 1:
        fail("gemms", "--warmup must be at least 0 and --reps at least 1")
    with refusal_exits("gemms"):
        check_replaceable_file(args.out, "GEMM CSV")


def main():
    ap = argparse.ArgumentParser(
        prog="python -m attnlab.step.gemms",
        description=__doc__.splitlines()[0],
        epilog=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("scenarios", nargs="+")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--attnlab", default=DEFAULT_CLI, help="the attnlab CLI (default: $ATTNLAB_CLI, else attnlab)")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--reps", type=int, default=30)
    args = ap.parse_args()
    check_arguments(args)
    torch = import_torch("gemms")

    if not torch.cuda.is_available():
        fail("gemms", "no CUDA GPU visible to PyTorch", 3)
    from attnlab.step.model import ModelShape

    columns = environment_columns(torch)
    rows = []
    for name in args.scenarios:
        s = scenario_json(args.attnlab, name, "gemms")
        try:
            shape = ModelShape.of(s)
        except ValueError as e:
            fail("gemms", str(e))
        m = sum(s["doc_lengths"])
        total = {"fwd": 0.0, "bwd": 0.0}
        for (gemm, n_in, n_out), per_step in model_linears(torch, shape).items():
            x = torch.randn(m, n_in, device="cuda", dtype=torch.bfloat16)
            w = torch.randn(n_out, n_in, device="cuda", dtype=torch.bfloat16)
            dy = torch.randn(m, n_out, device="cuda", dtype=torch.bfloat16)
            products = [
                ("fwd", x, w.t(), m, n_out, n_in),
                ("bwd_input", dy, w, m, n_in, n_out),
                ("bwd_weight", dy.t(), x, n_out, n_in, m),
            ]
            for pass_, a, b, rows_, cols, inner in products:
                us = time_calls(torch, lambda a=a, b=b: torch.matmul(a, b), args.warmup, args.reps)
                rows.append(gemm_row(s["name"], gemm, pass_, rows_, cols, inner, per_step, us, columns))
                total["fwd" if pass_ == "fwd" else "bwd"] += statistics.median(us) * per_step
                print(
                    f"{s['name']} {gemm} {pass_} ({rows_} x {inner}) @ ({inner} x {cols}) x{per_step}: "
                    f"{rows[-1]['median_us']} us, {rows[-1]['tflops']} TFLOP/s",
                    flush=True,
                )
            del x, w, dy
        print(
            f"{s['name']}: matrix products of one step at measured speed: forward {total['fwd'] / 1000:.2f} ms, "
            f"backward {total['bwd'] / 1000:.2f} ms",
            flush=True,
        )
    with refusal_exits("gemms"):  # a path made unwritable during the run: one line, not a traceback
        append_rows(args.out, GEMM_COLUMNS, rows)


if __name__ == "__main__":
    main()
