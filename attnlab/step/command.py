"""One measured training step of a scenario's [model] over its documents, packed rows or varlen.

    python -m attnlab.step SCENARIO --layout packed|varlen --backend fa2|cudnn|attnlab --out STEP.csv
    torchrun --nproc_per_node N -m attnlab.step ...      # data-parallel, one process per GPU

The model (attnlab/step/model.py) is nanochat's GPT at the scenario's [model] shape; its
forward and loss run under bf16 autocast inside torch.compile(fullgraph=True,
dynamic=False), then the backward, the all-reduce of the gradients over the ranks
(more than one GPU: --gradient-sync during_backward as DDP does it, in buckets while the
backward runs, after_backward, in one pass once it is done, or sharded, inside nanochat's
optimizer step, attnlab/step/sharded.py) and the optimizer's step
(--optimizer: AdamW, or nanochat's Muon with AdamW; attnlab/step/optimizer.py). Every rank
draws its own micro-batch of the scenario's documents (attnlab/step/batch.py). Timing: CUDA
events around each of --steps steps after --warmup (the first compiles); median, min, max on
rank 0. Then --profile-steps steps under torch.profiler split the GPU's time into parts by
kernel name and the optimizer's range (attnlab/step/parts.py). Rank 0 adds one row to --out
(results schema, pass = step) and the kernels of each part to --parts-out.

A backend that cannot run the layout or the model (cuDNN with a window, or on
varlen documents) prints `SCENARIO LAYOUT BACKEND: unavailable: REASON` and exits 0.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import time
from pathlib import Path

from attnlab.atomic_file import append_rows, check_replaceable_file, refusal_exits
from attnlab.cli import DEFAULT_CLI
from attnlab.environment import environment_columns
from attnlab.exits import Unavailable, fail, import_torch
from attnlab.scenario import scenario_json
from attnlab.step.batch import IGNORE, LAYOUTS, layout_batch, padded_cu_seqlens, rank_seed
from attnlab.step.parts import OPTIMIZER_RANGE, exposed_communication_us, part_of, split_into_parts
from attnlab.step.rows import BACKENDS, GRADIENT_SYNCS, OPTIMIZERS, STEP_COLUMNS, step_row
from attnlab.timing import time_calls

PARTS_COLUMNS = ["scenario", "implementation", "source", "gpus", "part", "kernel_name", "us_per_step"]


class GradientAllReduce:
    """--gradient-sync after_backward: the gradients as views of one flat buffer per dtype (as
    DDP's gradient_as_bucket_view), averaged over the ranks in buckets once the backward is done."""

    def __init__(self, torch, params, bucket_elements: int = 1 << 24):
        self.torch, self.buckets = torch, []
        by_dtype = {}
        for p in params:
            by_dtype.setdefault(p.dtype, []).append(p)
        for dtype, group in by_dtype.items():
            flat = torch.zeros(sum(p.numel() for p in group), dtype=dtype, device=group[0].device)
            offset = 0
            for p in group:
                p.grad = flat[offset : offset + p.numel()].view_as(p)
                offset += p.numel()
            self.buckets += [flat[i : i + bucket_elements] for i in range(0, flat.numel(), bucket_elements)]

    def __call__(self):
        dist = self.torch.distributed
        for handle in [dist.all_reduce(b, op=dist.ReduceOp.AVG, async_op=True) for b in self.buckets]:
            handle.wait()


@contextlib.contextmanager
def gpu_to_itself():
    """An exclusive flock on $ATTNLAB_GPU_LOCK while held, where that is set: a run started beside
    others (train/device_run.sh) compiles at once with them but times alone."""
    path = os.environ.get("ATTNLAB_GPU_LOCK")
    if not path:
        yield
        return
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def profile_parts(torch, step, steps: int) -> tuple[dict | None, dict, float | None]:
    """Each part's µs per step, each part's kernels, and the µs per step of exposed communication
    (attnlab/step/parts.py; None where the profiler gave no kernel times)."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
    events = prof.events()
    on_gpu = [e for e in events if e.device_type == torch.autograd.DeviceType.CUDA]
    # A record_function range (Optimizer.step#AdamW.step) is also listed on the GPU as a user
    # annotation spanning its kernels: not a kernel itself (counting it would count those kernels
    # twice), but it tells which kernels the optimizer ran.
    annotations = [e for e in on_gpu if getattr(e, "is_user_annotation", False)]
    launched = [e for e in on_gpu if not getattr(e, "is_user_annotation", False)]
    optimizer_spans = [e.time_range for e in annotations if e.name.startswith(OPTIMIZER_RANGE)]
    kernels = [
        (e.name, e.time_range.elapsed_us(), any(s.start <= e.time_range.start < s.end for s in optimizer_spans))
        for e in launched
    ]
    spans = [(e.time_range.start, e.time_range.end, part_of(e.name) == "communication") for e in launched]
    if not kernels:  # a profiler that lists kernels only under the CPU ops that launched them
        kernels = [(k.name, k.duration, in_optimizer_range(e)) for e in events for k in e.kernels]
    if not kernels:
        print("step: the profiler listed no GPU kernel; the row gets no parts", flush=True)
        return None, {}, None
    parts, listed = split_into_parts(kernels, steps)
    return parts, listed, exposed_communication_us(spans, steps) if spans else None


def in_optimizer_range(op) -> bool:
    """Whether a CPU op ran inside the optimizer's step."""
    while op is not None:
        if op.name.startswith(OPTIMIZER_RANGE):
            return True
        op = op.cpu_parent
    return False


def check_arguments(args, world: int):
    """The flags' own checks and the output paths, before PyTorch or the GPU is touched: a path
    that cannot be written (a folder, a FIFO, a device, a symlink) never costs a run."""
    if args.warmup < 1 or args.steps < 1 or args.profile_steps < 0 or args.max_num_docs < 0:
        fail("step", "--warmup and --steps must be at least 1, --profile-steps and --max-num-docs at least 0")
    if args.gradient_sync == "sharded" and args.optimizer != "muon":
        fail("step", "--gradient-sync sharded is nanochat's optimizer step: it needs --optimizer muon")
    if os.environ.get("ATTNLAB_GPU_LOCK") and world > 1:
        # Each rank would take the lock in turn, and the holder would wait in a collective for a
        # rank still waiting on the lock.
        fail("step", "ATTNLAB_GPU_LOCK is for one-GPU runs: under torchrun every rank would wait on it; unset it")
    with refusal_exits("step"):
        for path in (args.out, args.parts_out):
            if path is not None:
                check_replaceable_file(path, "results CSV")


def static_cu_seqlens(lengths: list[int], max_num_docs: int) -> list[int]:
    """cu_seqlens padded to --max-num-docs (0: the batch's own count); below the batch's count is one line."""
    try:
        return padded_cu_seqlens(lengths, max_num_docs or len(lengths))
    except ValueError as e:
        fail("step", f"--max-num-docs: {e}")


def main():
    ap = argparse.ArgumentParser(
        prog="python -m attnlab.step",
        description=__doc__.splitlines()[0],
        epilog=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("scenario", help="scenario name or .toml path with a [model] table")
    ap.add_argument("--layout", choices=LAYOUTS, required=True)
    ap.add_argument("--backend", choices=BACKENDS, required=True)
    ap.add_argument(
        "--optimizer",
        choices=OPTIMIZERS,
        default="adamw",
        help="adamw: AdamW on every parameter; muon: nanochat's Muon on the blocks' matrices, AdamW on the "
        "embedding and the LM head (attnlab/step/optimizer.py)",
    )
    ap.add_argument(
        "--gradient-sync",
        choices=GRADIENT_SYNCS,
        default="during_backward",
        help="on several GPUs: during_backward, PyTorch's DDP (each bucket all-reduced as soon as the backward "
        "has produced it); after_backward, one all-reduce pass once the backward is done; sharded, nanochat's "
        "optimizer step (gradients reduce-scattered, each rank steps its share, parameters all-gathered; "
        "attnlab/step/sharded.py), with --optimizer muon",
    )
    ap.add_argument("--out", type=Path, required=True, help="results CSV to add the step row to")
    ap.add_argument("--parts-out", type=Path, help="CSV to add each part's kernels to")
    ap.add_argument("--attnlab", default=DEFAULT_CLI, help="the attnlab CLI (default: $ATTNLAB_CLI, else attnlab)")
    ap.add_argument("--build", help="CMake build with PIC static libraries, for --backend attnlab")
    ap.add_argument("--warmup", type=int, default=5, help="untimed steps first (the first one compiles)")
    ap.add_argument("--steps", type=int, default=20, help="timed steps")
    ap.add_argument("--profile-steps", type=int, default=3, help="steps under the profiler (0: no parts)")
    ap.add_argument(
        "--max-num-docs",
        type=int,
        default=0,
        help="pad cu_seqlens to this many sequences with empty ones, for one static shape across "
        "batches (0: the batch's own count)",
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lr", type=float, default=3e-4, help="AdamW's learning rate under --optimizer adamw")
    args = ap.parse_args()
    world = int(os.environ.get("WORLD_SIZE", "1"))  # torchrun's ranks
    check_arguments(args, world)
    torch = import_torch("step")

    rank, local_rank = int(os.environ.get("RANK", "0")), int(os.environ.get("LOCAL_RANK", "0"))
    if not torch.cuda.is_available():
        fail("step", "no CUDA GPU visible to PyTorch", 3)
    torch.cuda.set_device(local_rank)
    if world > 1:
        torch.distributed.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    try:
        with refusal_exits("step"):  # a path made unwritable during the run: one line, not a traceback
            run(args, torch, world, rank, local_rank)
    finally:
        if world > 1:
            torch.distributed.destroy_process_group()


def run(args, torch, world: int, rank: int, local_rank: int):
    from attnlab.step.attention import make_attend
    from attnlab.step.model import GPT, ModelShape, TrainingLoss, rotary_tables
    from attnlab.step.optimizer import make_optimizer

    s = scenario_json(args.attnlab, args.scenario, "step")
    try:
        shape = ModelShape.of(s)
    except ValueError as e:
        fail("step", str(e))
    sync = f" {args.gradient_sync}" if world > 1 else ""
    label = f"{s['name']} {args.layout} {args.backend} {args.optimizer}{sync}"
    batch = layout_batch(s, args.layout, shape.vocab, rank_seed(args.seed, rank))
    device = torch.device("cuda", local_rank)
    tokens = torch.tensor(batch.tokens, dtype=torch.int64, device=device)
    targets = torch.tensor(batch.targets, dtype=torch.int64, device=device)
    cos, sin = rotary_tables(torch.tensor(batch.positions, device=device), shape.head_dim)
    starts = static_cu_seqlens(batch.sequence_lengths, args.max_num_docs)
    cu_seqlens = torch.tensor(starts, dtype=torch.int32, device=device)
    try:
        attend, kernel = make_attend(
            args.backend, batch, cu_seqlens, shape.heads, shape.kv_heads, set(shape.layer_windows), args.build
        )
    except Unavailable as e:
        if rank == 0:
            print(f"{label}: unavailable: {e}", flush=True)
        return

    torch.manual_seed(args.seed)
    model = GPT(shape).to(device)
    model.wte.to(torch.bfloat16)  # nanochat keeps the embedding in bf16: the residual stream is bf16
    sharded = world > 1 and args.gradient_sync == "sharded"
    optimizer = make_optimizer(args.optimizer, model, shape.width, args.lr, (rank, world) if sharded else None)
    training_loss = TrainingLoss(model, attend, IGNORE)
    training_loss.compile(fullgraph=True, dynamic=False)
    forward, all_reduce = training_loss, None
    if world > 1 and args.gradient_sync == "during_backward":
        # Compiled inside DDP: DDP's hooks stay eager, and Dynamo splits the compiled graph at
        # DDP's bucket boundaries (torch._dynamo.config.optimize_ddp), so a bucket's gradients
        # exist, and go out, while the backward of the layers before it still runs.
        from torch.nn.parallel import DistributedDataParallel

        forward = DistributedDataParallel(training_loss, device_ids=[local_rank], gradient_as_bucket_view=True)
    elif world > 1 and not sharded:
        all_reduce = GradientAllReduce(torch, list(model.parameters()))

    losses = []

    def step():
        loss = forward(tokens, targets, cos, sin)
        loss.backward()
        if all_reduce:
            all_reduce()
        optimizer.step()
        optimizer.zero_grad(set_to_none=world == 1)  # on several GPUs the buckets stay the gradients
        losses.append(loss.detach())

    began = time.monotonic()
    step()
    torch.cuda.synchronize()
    if rank == 0:
        print(f"{label}: first step (compiles) {time.monotonic() - began:.0f} s", flush=True)
    with gpu_to_itself():
        us = time_calls(torch, step, args.warmup - 1, args.steps)
        loss_value = float(losses[-1])
        parts, listed, exposed = (None, {}, None)
        if args.profile_steps:
            parts, listed, exposed = profile_parts(torch, step, args.profile_steps)
    if rank != 0:
        return
    row = step_row(
        s,
        args.layout,
        args.backend,
        args.optimizer,
        world,
        args.gradient_sync,
        us,
        parts,
        kernel,
        loss_value,
        exposed,
        environment_columns(torch),
    )
    columns = list(dict.fromkeys(s["results_columns"] + STEP_COLUMNS))
    append_rows(args.out, columns, [row])
    print(
        f"{label}: {world} GPU(s), step median {float(row['median_us']) / 1000:.2f} ms "
        f"(min {float(row['min_us']) / 1000:.2f}, max {float(row['max_us']) / 1000:.2f}) over {len(us)} steps, "
        f"loss {loss_value:.4f}, peak memory {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB",
        flush=True,
    )
    if parts:
        print("  parts (ms per step): " + ", ".join(f"{p} {v / 1000:.2f}" for p, v in parts.items()), flush=True)
        if world > 1 and exposed is not None:
            print(f"  communication exposed: {exposed / 1000:.2f} ms per step", flush=True)
        if args.parts_out:
            source = row["source"]
            append_rows(
                args.parts_out,
                PARTS_COLUMNS,
                [
                    {
                        "scenario": s["name"],
                        "implementation": args.layout,
                        "source": source,
                        "gpus": world,
                        "part": part,
                        "kernel_name": name,
                        "us_per_step": f"{v:.6g}",
                    }
                    for part, kernels in listed.items()
                    for name, v in kernels
                ],
            )
