"""GPU time of repeated calls, as attnlab times its kernels (run/timing.cpp: time_on_gpu)."""

from __future__ import annotations

import statistics


def time_calls(torch, call, warmup: int, reps: int, budget_s: float | None = None, min_reps: int = 5) -> list[float]:
    """µs of each of `reps` calls between CUDA events, after `warmup` untimed calls. The calls
    are queued back to back and the host waits only at the end, so its own work hides behind
    the GPU's, as in a training loop. With `budget_s`, one call is timed first and a slow call
    gets fewer reps (at least `min_reps`) and one warm-up, so that the timed calls stay near
    the budget."""
    if budget_s is not None:
        one_call_s = time_calls(torch, call, 0, 1)[0] * 1e-6
        if one_call_s * (warmup + reps) > budget_s:
            reps = max(min_reps, min(reps, int(budget_s / one_call_s)))
            warmup = min(warmup, 1)
    for _ in range(warmup):
        call()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for start, end in events:
        start.record()
        call()
        end.record()
    events[-1][1].synchronize()
    return [start.elapsed_time(end) * 1000.0 for start, end in events]


def summary(us: list[float]) -> tuple[float, float, float, int]:
    """Median, min and max µs of timed calls, and how many there were."""
    if not us:
        raise ValueError("no timed calls")
    return statistics.median(us), min(us), max(us), len(us)
