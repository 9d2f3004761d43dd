"""The parts of a training step, told apart by the names of the GPU kernels that ran: plain Python.

The step (attnlab/step/command.py) profiles steps with torch.profiler and sums each kernel's time into the first
part whose pattern matches its name (case-insensitive), in the order of PARTS; a kernel
that matches none counts as `other`, and the log names the largest of those so a new
kernel name can be given its part here. A kernel that ran inside the optimizer's step (the
profiler's range around it) is the optimizer's whatever its name: Muon's Newton–Schulz
products are matrix products, but the optimizer's work, not the model's.
"""

from __future__ import annotations

import re
from collections import defaultdict

# (part, pattern), first match wins: the attention kernels first (FA2's, cuDNN's, attnlab's),
# so that their softmax or GEMM-like names never reach the later parts.
PARTS = [
    ("communication", r"nccl"),
    (
        "attention_bwd",
        r"flash_bwd|fmha.*(bwd|bprop)|sdpa.*(bwd|bprop)|bprop.*sdpa|cudnn::fusion::(compute_dot_do_o|convert_dq)|"
        r"attnlab::.*(backward|row_dot|scaled_copy)",
    ),
    ("attention_fwd", r"flash_fwd|fmha|sdpa|attnlab::"),
    ("optimizer", r"adam|multi_tensor_apply"),
    ("loss", r"nll_loss|log_softmax|cross_entropy"),
    ("gemm", r"gemm|nvjet|cutlass|xmma|cublas|matmul|splitk"),
    ("elementwise", r"triton|elementwise|vectorized|reduce|norm|embedding|index|copy|fill|cat_|where|rotary"),
]
PART_NAMES = [p for p, _ in PARTS] + ["other"]
# How torch.optim names the profiler's range around an optimizer's step ("Optimizer.step#AdamW.step");
# an optimizer that steps outside torch.optim names its range the same way.
OPTIMIZER_RANGE = "Optimizer.step#"
_COMPILED = [(part, re.compile(pattern, re.IGNORECASE)) for part, pattern in PARTS]


def part_of(kernel_name: str, in_optimizer: bool = False) -> str:
    """The part of a kernel; `in_optimizer`: it ran inside the optimizer's step (communication
    there stays communication)."""
    for part, pattern in _COMPILED:
        if pattern.search(kernel_name) and (part == "communication" or not in_optimizer):
            return part
    return "optimizer" if in_optimizer else "other"


def split_into_parts(
    kernels: list[tuple[str, float, bool]], steps: int
) -> tuple[dict[str, float], dict[str, list[tuple[str, float]]]]:
    """(kernel name, µs, ran inside the optimizer's step) of `steps` profiled steps -> µs per
    step of each part, and each part's kernels by name with their µs per step, largest first."""
    if steps < 1:
        raise ValueError(f"steps: expected at least 1, got {steps}")
    by_part_and_name = defaultdict(float)
    for name, us, in_optimizer in kernels:
        by_part_and_name[part_of(name, in_optimizer), name] += us / steps
    parts = {p: 0.0 for p in PART_NAMES}
    listed = {p: [] for p in PART_NAMES}
    for (part, name), us in sorted(by_part_and_name.items(), key=lambda kv: -kv[1]):
        parts[part] += us
        listed[part].append((name, us))
    return parts, listed


def exposed_communication_us(kernels: list[tuple[float, float, bool]], steps: int) -> float:
    """(start µs, end µs, is communication) of every kernel of `steps` profiled steps -> µs per step
    during which communication ran and no other kernel did: the communication the step waited for.
    An all-reduce after the backward is exposed whole; one overlapped with the backward's kernels
    (on another stream) only where they left the GPU to it."""
    if steps < 1:
        raise ValueError(f"steps: expected at least 1, got {steps}")
    edges = sorted(
        [(start, 1, communication) for start, _, communication in kernels]
        + [(end, -1, communication) for _, end, communication in kernels]
    )
    exposed, active, last = 0.0, {True: 0, False: 0}, None
    for time, change, communication in edges:
        if last is not None and active[True] > 0 and active[False] == 0:
            exposed += time - last
        active[communication] += change
        last = time
    return exposed / steps
