"""How a peer is measured: its first call (where a refusal becomes Unavailable), its forward
timed with its error, its backward timed alone, and a CUDA context an error left unusable."""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable

from attnlab.exits import Unavailable
from attnlab.peers.backends import Peer
from attnlab.peers.problem import Inputs
from attnlab.timing import summary, time_calls

MIN_REPS = 5  # a slow peer's timed calls, at the least


class ContextLost(Exception):
    """A peer's error left the process's CUDA context unusable (an illegal memory access
    is sticky): no later call in this process can run, so the run stops there, keeping
    the rows its scenario measured before."""

    def __init__(self, where: str, rows: list[dict]):
        super().__init__(where)
        self.rows = rows


def context_alive(torch) -> bool:
    try:
        torch.cuda.synchronize()
        return torch.ones(1, device="cuda").sum().item() == 1
    except Exception:  # the sticky error resurfaces on any later CUDA call
        return False


def first_call(torch, call: Callable[[], object]):
    """Runs a peer's call once (compiling it, where it compiles); a refusal becomes Unavailable."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = call()
            torch.cuda.synchronize()
            return out
        except (RuntimeError, NotImplementedError, ValueError, TypeError) as e:
            reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            why = refusal_reasons(str(w.message) for w in caught)
            raise Unavailable(reason + (f" ({'; '.join(why)})" if why else "")) from e


def refusal_reasons(messages) -> list[str]:
    """SDPA explains a refusal in warnings: keep their first sentences, not the headers
    ("... not used because:") or the note that other backends were switched off."""
    reasons = []
    for m in messages:
        first = m.split("(Triggered internally")[0].strip().split(". ")[0].rstrip(".")
        if first and not first.endswith("because:") and "runtime disabled" not in first and first not in reasons:
            reasons.append(first)
    return reasons[:3]


def cycling(call: Callable[[int], object], sets: int) -> Callable[[], object]:
    """call(i) on input set 0, 1, 2, ... in turn, so that no call finds its inputs left in L2 by the one before."""
    turn = itertools.count()
    return lambda: call(next(turn) % sets)


def time_peer(torch, peer: Peer, x: Inputs, warmup: int, reps: int, budget_s: float):
    """Median, min and max µs, the error and the reps taken. A slow peer gets fewer reps (at least
    MIN_REPS) so that its timed calls stay near budget_s."""
    args = [peer.args(i) for i in range(len(x.sets))]
    out = first_call(torch, lambda: peer.call(args[0]))
    error = x.error(peer.layout, peer.rows(out))
    del out
    us = time_calls(torch, cycling(lambda i: peer.call(args[i]), len(args)), warmup, reps, budget_s, MIN_REPS)
    median, lo, hi, reps = summary(us)
    return median, lo, hi, error, reps


def time_backward(torch, peer: Peer, x: Inputs, warmup: int, reps: int, budget_s: float):
    """Median, min and max µs of the backward alone, and the reps taken: each input set's forward
    runs once and keeps its graph, then autograd.grad of its output (retain_graph) is what is timed."""
    sets = len(x.sets)
    if peer.score_bytes:  # each set's graph keeps S and P; the backward makes their gradients
        free, _ = torch.cuda.mem_get_info()
        need = peer.score_bytes * (sets + 2)
        if need > 0.8 * free:
            raise Unavailable(
                f"backward: S and P of {sets} input sets and their gradients need "
                f"{need / 2**30:.1f} GiB, {free / 2**30:.1f} GiB free"
            )
    leaves = [tuple(t.detach().requires_grad_() for t in peer.args(i)) for i in range(sets)]
    outs = [first_call(torch, lambda a=a: peer.call(a)) for a in leaves]
    grad_outs = [torch.randn_like(o) for o in outs]

    def backward(j):
        return torch.autograd.grad(outs[j], leaves[j], grad_outs[j], retain_graph=True)

    first_call(torch, lambda: backward(0))
    return summary(time_calls(torch, cycling(backward, sets), warmup, reps, budget_s, MIN_REPS))
