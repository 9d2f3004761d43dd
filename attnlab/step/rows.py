"""Rows of the measured training step and of the GEMMs at the model's shapes: plain Python.

A step row is a results-schema row (results/README.md) with pass = step, one per
(scenario, layout, attention backend, GPUs); the columns below follow the schema's
required ones. train/README.md, "Results", describes every column.
"""

from __future__ import annotations

from attnlab.step.parts import PART_NAMES
from attnlab.timing import summary

BACKENDS = ("fa2", "cudnn", "attnlab")
OPTIMIZERS = ("adamw", "muon")  # attnlab/step/optimizer.py
# How several GPUs average the gradients (attnlab/step/command.py): in one pass once the backward
# is done, in DDP's buckets, each all-reduced as soon as the backward has produced it, or inside
# nanochat's sharded optimizer step (reduce-scatter, each rank its share, all-gather).
GRADIENT_SYNCS = ("after_backward", "during_backward", "sharded")
SOURCE_PREFIX = "torch-step-"  # source = torch-step-fa2, torch-step-cudnn, torch-step-attnlab

# Columns a step row adds to the schema's: the data-parallel GPUs, how they synchronized the
# gradients (empty on one GPU), the optimizer, the loss (a
# sanity check: the same tokens, but each layout trains its own attention), the profiler's parts
# (µs per step on rank 0) and their sum, and the communication no other kernel ran beside
# (attnlab/step/parts.py); the sum less the communication that was not exposed is the GPU's busy
# time (analysis/measured_step.hpp).
PART_COLUMNS = [f"step_{p}_us" for p in PART_NAMES]
STEP_COLUMNS = [
    "gpus",
    "gradient_sync",
    "optimizer",
    "loss",
    *PART_COLUMNS,
    "step_kernels_us",
    "step_communication_exposed_us",
]

GEMM_COLUMNS = [
    "scenario",
    "gpu",
    "dtype",
    "gemm",
    "pass",
    "m",
    "n",
    "k",
    "per_step",
    "median_us",
    "min_us",
    "max_us",
    "tflops",
    "reps",
    "driver",
    "cuda_version",
    "commit",
    "date",
]


def timing_columns(us: list[float]) -> dict:
    median, low, high, reps = summary(us)
    return {"median_us": f"{median:.6g}", "min_us": f"{low:.6g}", "max_us": f"{high:.6g}", "reps": reps}


def step_row(
    scenario: dict,
    layout: str,
    backend: str,
    optimizer: str,
    gpus: int,
    gradient_sync: str,
    step_us: list[float],
    parts: dict[str, float] | None,
    kernel: str,
    loss: float,
    exposed_us: float | None,
    env: dict,
) -> dict:
    """`scenario` is the scenario's JSON, `parts` the profiler's µs per step of each part
    (None when the profile did not run), `kernel` the attention kernel where attnlab's ran
    (else empty), `gradient_sync` one of GRADIENT_SYNCS (left empty in a 1-GPU row), `exposed_us`
    the exposed communication (None: not profiled, or one GPU), `env` the gpu, driver,
    cuda_version, commit and date columns."""
    if backend not in BACKENDS:
        raise ValueError(f"backend: expected one of {', '.join(BACKENDS)}, got {backend!r}")
    if optimizer not in OPTIMIZERS:
        raise ValueError(f"optimizer: expected one of {', '.join(OPTIMIZERS)}, got {optimizer!r}")
    if gradient_sync not in GRADIENT_SYNCS:
        raise ValueError(f"gradient_sync: expected one of {', '.join(GRADIENT_SYNCS)}, got {gradient_sync!r}")
    m = scenario["model"]
    row = {
        "scenario": scenario["name"],
        "implementation": layout,
        "source": SOURCE_PREFIX + backend,
        "dtype": "bf16",
        "heads": m["heads"],
        "head_dim": m["head_dim"],
        "causal": "true",
        "pass": "step",
        "kv_heads": m["kv_heads"],
        "window_left": scenario["window_left"],  # the scenario's window; each layer's is its [model]'s
        "window_right": scenario["window_right"],
        "tokens": sum(scenario["doc_lengths"]),
        "kernel": kernel,
        "gpus": gpus,
        "gradient_sync": gradient_sync if gpus > 1 else "",
        "optimizer": optimizer,
        "loss": f"{loss:.6g}",
        **timing_columns(step_us),
        **env,
    }
    if parts is not None:
        for part in PART_NAMES:
            row[f"step_{part}_us"] = f"{parts[part]:.6g}"
        row["step_kernels_us"] = f"{sum(parts.values()):.6g}"
    if exposed_us is not None and gpus > 1:
        row["step_communication_exposed_us"] = f"{exposed_us:.6g}"
    return row


def gemm_row(
    scenario: str, gemm: str, pass_: str, m: int, n: int, k: int, per_step: int, us: list[float], env: dict
) -> dict:
    """One product (m x k) @ (k x n) timed `len(us)` times; `per_step` is how often the step runs it."""
    median = summary(us)[0]
    return {
        "scenario": scenario,
        "dtype": "bf16",
        "gemm": gemm,
        "pass": pass_,
        "m": m,
        "n": n,
        "k": k,
        "per_step": per_step,
        "tflops": f"{2 * m * n * k / (median * 1e-6) / 1e12:.6g}",
        **timing_columns(us),
        **env,
    }

