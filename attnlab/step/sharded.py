"""--gradient-sync sharded: nanochat's own data-parallel step (its DistMuon and DistAdamW). No
all-reduce runs beside or after the backward; the optimizer's step does the exchange itself:

1. each group of gradients is reduce-scattered (averaged over the ranks), so a rank holds the
   averaged gradients of its share of the group only;
2. the rank steps the optimizer on that share: 1/N of Muon's Newton–Schulz work, 1/N of AdamW's;
3. the updated share is all-gathered into every rank's parameters.

A reduce-scatter and an all-gather are the two halves of a ring all-reduce, so the gradients cross
the interconnect as they would in one; what changes is that the optimizer's work is split, and
that one group's exchange can run while the rank orthogonalizes another's.
"""

from __future__ import annotations

import torch

from attnlab.step.parts import OPTIMIZER_RANGE


class ShardedGroup:
    """Parameters split over the ranks along a first dimension: several matrices of one shape
    stacked (Muon's batches: rank r owns matrices [r·k, (r + 1)·k) of the stack, padded with zero
    matrices to a multiple of the ranks), or one parameter's rows (the embedding, the LM head).

    The model's gradients become views of one buffer per group, so the reduce-scatter reads them
    in place; the rank's share is held apart (`shadows`, with their own gradients) for an inner
    optimizer to step as if it were the whole model."""

    def __init__(self, params: list[torch.Tensor], stacked: bool, rank: int, world: int):
        first = params[0]
        if any(p.shape != first.shape or p.dtype != first.dtype for p in params):
            raise ValueError("sharded group: every parameter must have one shape and dtype")
        self.params, self.stacked = params, stacked
        if stacked:
            count = -(-len(params) // world) * world
            self.grads = torch.zeros((count, *first.shape), dtype=first.dtype, device=first.device)
            for i, p in enumerate(params):
                p.grad = self.grads[i]
            # The all-gather lands here, then in the parameters: they are separate tensors.
            self.gathered = torch.empty_like(self.grads)
            share = count // world
            self.share = torch.zeros((share, *first.shape), dtype=first.dtype, device=first.device)
            own = params[rank * share : (rank + 1) * share]
            if own:
                self.share[: len(own)] = torch.stack([p.detach() for p in own])
        else:
            (p,) = params
            if p.shape[0] % world:
                raise ValueError(f"sharded group: {p.shape[0]} rows do not split over {world} ranks")
            p.grad = torch.zeros_like(p)
            self.grads = p.grad
            self.gathered = p.detach()  # the all-gather writes the parameter itself
            share = p.shape[0] // world
            self.share = p.detach()[rank * share : (rank + 1) * share].clone()
        self.share_grad = torch.zeros_like(self.share)
        self.shadows = list(self.share.unbind(0)) if stacked else [self.share]
        for shadow, grad in zip(self.shadows, self.share_grad.unbind(0) if stacked else [self.share_grad]):
            shadow.grad = grad

    def copy_back(self):
        """The gathered stack into the parameters (a split parameter received it in place)."""
        if self.stacked:
            torch._foreach_copy_([p.detach() for p in self.params], list(self.gathered[: len(self.params)].unbind(0)))


class ShardedOptimizer:
    """Groups, each with the optimizer that steps its share, stepped as nanochat steps them: every
    reduce-scatter launched at once, then for each group in turn its wait, its share's step and
    its all-gather, so later groups' exchanges run under earlier groups' work."""

    RANGE = OPTIMIZER_RANGE + "ShardedOptimizer.step"  # the optimizer's range for the profiler's parts

    def __init__(self, groups: list[tuple[ShardedGroup, torch.optim.Optimizer]]):
        self.groups = groups

    @torch.no_grad()
    def step(self):
        dist = torch.distributed
        with torch.profiler.record_function(self.RANGE):
            scattered = [
                dist.reduce_scatter_tensor(g.share_grad, g.grads, op=dist.ReduceOp.AVG, async_op=True)
                for g, _ in self.groups
            ]
            gathered = []
            for (group, inner), work in zip(self.groups, scattered):
                work.wait()
                inner.step()
                gathered.append(dist.all_gather_into_tensor(group.gathered, group.share, async_op=True))
            for (group, _), work in zip(self.groups, gathered):
                work.wait()
                group.copy_back()

    def zero_grad(self, set_to_none: bool):
        """The gradient buffers stay the gradients: zeroed, never freed."""
        del set_to_none
        for group, _ in self.groups:
            group.grads.zero_()
