"""Measures the two ceilings a kernel's floor is priced at, on the GPU at hand, and prints
them as the TOML tables of results/h100/ceilings.toml:

  [gemm_bf16]  TFLOP/s of one large bf16 matrix product (cuBLAS through torch.matmul);
  [copy]       TB/s of a device-to-device copy, counting the bytes read and written.

Timed as the peers are (attnlab/timing.py: CUDA events, warm-up, median of --reps calls).
A scenario's floor is then the larger of its useful FLOPs at gemm_bf16 and its least bytes at
copy (`attnlab model SCENARIO --format json --ceilings FILE`; the floors table of python -m attnlab.tables).

usage: python -m attnlab.peers.ceilings [--size 8192] [--copy-gib 2] [--reps 30]
"""

from __future__ import annotations

import argparse
import datetime

from attnlab.environment import commit_column
from attnlab.exits import import_torch
from attnlab.timing import summary, time_calls


def main():
    ap = argparse.ArgumentParser(prog="python -m attnlab.peers.ceilings", description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=8192, help="the GEMM's M = N = K (default 8192)")
    ap.add_argument("--copy-gib", type=float, default=2.0, help="GiB copied per call (default 2, far past the L2)")
    ap.add_argument("--reps", type=int, default=30)
    args = ap.parse_args()
    torch = import_torch("ceilings")

    n = args.size
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    gemm_us = summary(time_calls(torch, lambda: torch.matmul(a, b, out=c), 5, args.reps))[0]
    tflops = 2 * n**3 / (gemm_us * 1e-6) / 1e12

    count = int(args.copy_gib * 2**30) // 4
    src = torch.empty(count, device="cuda", dtype=torch.float32).fill_(1.0)
    dst = torch.empty_like(src)
    copy_us = summary(time_calls(torch, lambda: dst.copy_(src), 3, args.reps))[0]
    tbps = 2 * count * 4 / (copy_us * 1e-6) / 1e12

    gpu = torch.cuda.get_device_name()
    date = datetime.date.today().isoformat()
    # Every key the C++ reader requires (analysis/ceilings.hpp), so the output is a ceilings.toml as it stands.
    source = f"python -m attnlab.peers.ceilings ({commit_column(f'torch {torch.__version__}')})"
    print(
        f'[gemm_bf16]\ntflops = {tflops:.1f}\nwhat = "one bf16 matrix product, {n} x {n} times {n} x {n}"\n'
        f'gpu = "{gpu}"\ndate = "{date}"\nsource = "{source}"\n'
    )
    print(
        f'[copy]\ntbps = {tbps:.3f}\nwhat = "a device-to-device copy of {args.copy_gib:g} GiB, bytes read plus '
        f'bytes written"\ngpu = "{gpu}"\ndate = "{date}"\nsource = "{source}"'
    )


if __name__ == "__main__":
    main()
