"""Runs scenarios through the attention kernels a PyTorch user would reach for, timed
like attnlab-bench, and writes one results-schema row per peer.

    python -m attnlab.peers SCENARIO [SCENARIO...] --out PEERS.csv [--pass fwd|bwd|both] [--peers ...]

Peers (`implementation` names the attnlab run each one stands beside):
  torch-varlen_attn                          varlen  torch.nn.attention.varlen.varlen_attn (FlashAttention-2 varlen)
  torch-varlen_attn-kv-expanded              varlen  the same with K, V repeated to every query head (grouped-query
                                                     scenarios, where varlen_attn takes no enable_gqa)
  torch-flex-document-mask                   varlen  compiled FlexAttention over the token buffer, document mask
  torch-sdpa-{flash,cudnn,efficient}-padded  padded  SDPA with one backend on the padded batch
  torch-sdpa-{flash,cudnn,efficient}-packed  packed  SDPA with one backend on the packed rows (with their bleed)
  torch-eager-padded                         naive   matmul, mask, softmax, matmul on the padded batch
  torch-varlen_attn-packed                   packed  varlen_attn over the packed rows, causal over each row with
                                                     the window (sliding-window scenarios only)
  torch-flex-packed                          packed  FlexAttention on the packed rows, sliding-window causal mask
                                                     (sliding-window scenarios only)

Sliding windows follow FlashAttention's window_size = (left, right), -1 = unbounded,
positions counted inside the row (the document for varlen and padded). SDPA's flash and
cuDNN backends take no window: they are reported unavailable; the memory-efficient
backend runs with an explicit boolean mask (causal and window folded in).

--pass bwd (or both) times the backward alone: the forward runs once per input set with
its graph retained, then torch.autograd.grad(out, (q, k, v), grad_out, retain_graph=True)
is timed like the forward. Backward rows leave rel_l2_error empty.

Rows leave the `kernel` column empty: `source` names the peer and with it the backend.

A peer that cannot run here (backend missing, shape refused, too little memory) is
reported on one `SCENARIO PEER: unavailable: REASON` line and gets no row.

The scenario comes from attnlab's own loader: `attnlab model SCENARIO --format json` prints it as
JSON (shape, document lengths, packed rows, useful scores per layout, the results
columns), so lengths, packing, useful FLOPs and columns are the ones the C++ side uses.

Timing: CUDA events around each call after a warm-up; median, min and max over --reps
calls that cycle through input sets spanning several times the L2 cache, so no call
finds its inputs left in L2 by the one before. Error: relative L2 against fp32
attention of the same layout (packed keeps its bleed: that is what packed computes).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
import traceback
from pathlib import Path

from attnlab.atomic_file import check_replaceable_file, refusal_exits, write_csv
from attnlab.cli import DEFAULT_CLI
from attnlab.environment import Environment, read_environment
from attnlab.exits import Unavailable, fail, import_torch
from attnlab.peers.backends import ALL_PEERS, WINDOW_ONLY_PEERS, peer_makers
from attnlab.peers.measure import MIN_REPS, ContextLost, context_alive, time_backward, time_peer
from attnlab.peers.problem import Inputs, Scenario, resolve_scenario

BWD_FLOPS_PER_FWD = 2.5  # FlashAttention's convention: backward useful FLOPs = 2.5 x the forward's


def run_scenario(torch, s: Scenario, env: Environment, names: list[str], args) -> list[dict]:
    x = Inputs(torch, s, args.seed)
    print(
        f"# {s.name}: {len(s.doc_lengths)} documents, {s.tokens} tokens, {s.heads} heads, d={s.head_dim}, "
        f"{s.dtype}, {'causal' if s.causal else 'non-causal'}, {len(x.sets)} input sets",
        flush=True,
    )
    makers, rows = peer_makers(torch, s, x), []
    if names is None:  # the default: every peer that fits the scenario
        names = [n for n in ALL_PEERS if s.windowed or n not in WINDOW_ONLY_PEERS]
    for name in names:
        for pass_ in args.passes:
            label = name if pass_ == "fwd" else f"{name} {pass_}"
            began = time.monotonic()
            try:
                peer = makers[name]()
                if pass_ == "fwd":
                    median, lo, hi, err, reps = time_peer(torch, peer, x, args.warmup, args.reps, args.budget)
                else:
                    median, lo, hi, reps = time_backward(torch, peer, x, args.warmup, args.reps, args.budget)
            except Unavailable as e:
                print(f"{s.name} {label}: unavailable: {e}", flush=True)
                continue
            except torch.cuda.OutOfMemoryError as e:  # also torch.OutOfMemoryError, which older versions lack
                print(f"{s.name} {label}: unavailable: out of memory ({str(e).splitlines()[0]})", flush=True)
                continue
            except Exception as e:  # one broken peer must not lose the others' rows
                traceback.print_exc()
                print(
                    f"{s.name} {label}: unavailable: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}",
                    flush=True,
                )
                if not context_alive(torch):
                    raise ContextLost(f"{s.name} {label}", rows) from e
                continue
            finally:
                if context_alive(torch):
                    torch.cuda.empty_cache()
            flops = s.useful_flops(peer.implementation) * (1 if pass_ == "fwd" else BWD_FLOPS_PER_FWD)
            tflops = flops / (median * 1e-6) / 1e12
            error = f", rel L2 error {err:.2e}" if pass_ == "fwd" else ""
            print(
                f"{s.name} {label}: median {median:.1f} us (min {lo:.1f}, max {hi:.1f}), "
                f"{tflops:.1f} useful TFLOP/s{error}, {reps} reps ({time.monotonic() - began:.0f} s)",
                flush=True,
            )
            rows.append(
                {
                    "scenario": s.name,
                    "implementation": peer.implementation,
                    "source": name,
                    "gpu": env.gpu,
                    "dtype": s.dtype,
                    "heads": s.heads,
                    "head_dim": s.head_dim,
                    "causal": "true" if s.causal else "false",
                    "pass": pass_,
                    "median_us": f"{median:.6g}",
                    "min_us": f"{lo:.6g}",
                    "max_us": f"{hi:.6g}",
                    "useful_tflops": f"{tflops:.6g}",
                    "scores_useful": s.scores_useful[peer.implementation],
                    "rel_l2_error": f"{err:.6g}" if pass_ == "fwd" else "",
                    "kv_heads": s.kv_heads,
                    "tokens": s.tokens,
                    "window_left": s.window_left,  # the mask the peer ran, FlashAttention's window_size
                    "window_right": s.window_right,
                    "reps": reps,
                    "driver": env.driver,
                    "cuda_version": env.cuda_version,
                    "commit": env.version,
                    "date": env.date,
                }
            )
    return rows


def save_rows(path: Path, columns: list[str], rows: list[dict]):
    """The rows so far, written atomically (attnlab/atomic_file.py); a write that fails is one line."""
    with refusal_exits("peers"):
        write_csv(path, columns, rows)


def main():
    ap = argparse.ArgumentParser(
        prog="python -m attnlab.peers",
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__,
    )
    ap.add_argument("scenarios", nargs="+", help="scenario names or paths, as attnlab takes them")
    ap.add_argument("--out", required=True, type=Path, help="results CSV to write")
    ap.add_argument(
        "--attnlab",
        default=DEFAULT_CLI,
        help="the attnlab CLI, for `attnlab model SCENARIO --format json` "
        "(default: $ATTNLAB_CLI, else attnlab on PATH)",
    )
    ap.add_argument(
        "--peers",
        help="comma-separated subset of: "
        + ", ".join(ALL_PEERS)
        + " (default: all; "
        + ", ".join(sorted(WINDOW_ONLY_PEERS))
        + " only in sliding-window scenarios)",
    )
    ap.add_argument(
        "--pass",
        dest="pass_",
        choices=["fwd", "bwd", "both"],
        default="fwd",
        help="time the forward, the backward alone, or both (default: fwd)",
    )
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--dtypes", help="comma-separated bf16, fp16 (default: each scenario's own)")
    ap.add_argument("--head-dims", help="comma-separated head dims (default: each scenario's own)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--budget",
        type=float,
        default=3.0,
        help=f"seconds of timed calls per peer; slower peers get fewer reps (at least {MIN_REPS})",
    )
    args = ap.parse_args()
    if args.reps < 1 or args.warmup < 0:
        fail("peers", "--reps must be at least 1 and --warmup at least 0")
    names = [n for n in args.peers.split(",") if n] if args.peers is not None else None
    args.passes = ["fwd", "bwd"] if args.pass_ == "both" else [args.pass_]
    if args.dtypes and any(d not in ("bf16", "fp16") for d in args.dtypes.split(",")):
        fail("peers", f"--dtypes: expected bf16 or fp16, got {args.dtypes!r}")
    if args.head_dims and not all(d.isdigit() and int(d) > 0 for d in args.head_dims.split(",")):
        fail("peers", f"--head-dims: expected positive integers, got {args.head_dims!r}")
    for n in names or []:
        if n not in ALL_PEERS:
            fail("peers", f"--peers: unknown peer {n!r}; expected some of {', '.join(ALL_PEERS)}")
    with refusal_exits("peers"):  # before any GPU work: a path that cannot be written never costs a run
        check_replaceable_file(args.out, "results CSV")
    torch = import_torch("peers")
    if not torch.cuda.is_available():
        fail("peers", "no CUDA GPU visible to PyTorch", 3)
    scenarios = [
        dataclasses.replace(s, dtype=dtype, head_dim=dim)
        for s in (resolve_scenario(args.attnlab, name) for name in args.scenarios)
        for dtype in (args.dtypes.split(",") if args.dtypes else [s.dtype])
        for dim in ([int(d) for d in args.head_dims.split(",")] if args.head_dims else [s.head_dim])
    ]
    env = read_environment(torch)
    print(f"# {env.gpu}, driver {env.driver}, CUDA {env.cuda_version}, {env.version}", flush=True)
    rows = []
    # The file is rewritten after each scenario: a run cut short keeps what it measured.
    for i, s in enumerate(scenarios):
        try:
            rows += run_scenario(torch, s, env, names, args)
        except ContextLost as e:
            rows += e.rows
            save_rows(args.out, scenarios[0].columns, rows)
            rest = [x.name for x in scenarios[i:]]
            print(
                f"# wrote {len(rows)} rows to {args.out}; stopped: {e} left the CUDA context unusable, so "
                f"the rest of {s.name} and the scenarios after it did not run (run them in a new process): "
                f"{' '.join(rest)}",
                flush=True,
            )
            sys.exit(1)
        save_rows(args.out, scenarios[0].columns, rows)
        torch.cuda.empty_cache()
    print(f"# wrote {len(rows)} rows to {args.out}")
