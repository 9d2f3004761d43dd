"""GPU time of repeated calls, as attnlab times its kernels (kernels/: time_on_gpu)."""

from __future__ import annotations


def time_calls(torch, call, warmup: int, reps: int) -> list[float]:
    """µs of each of `reps` calls between CUDA events, after `warmup` untimed calls. The calls
    are queued back to back and the host waits only at the end, so its own work hides behind
    the GPU's, as in a training loop."""
    for _ in range(warmup):
        call()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for start, end in events:
        start.record()
        call()
        end.record()
    events[-1][1].synchronize()
    return [start.elapsed_time(end) * 1000.0 for start, end in events]
