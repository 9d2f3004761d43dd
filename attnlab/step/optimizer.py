"""The step's optimizer: AdamW on every parameter, or nanochat's split, Muon on the blocks'
matrices and AdamW on the embedding and the LM head.

Muon (Keller Jordan, 2024) takes each 2-D weight's momentum, Nesterov-style, and replaces it by
the nearest semi-orthogonal matrix (U·Vᵀ of its singular value decomposition U·S·Vᵀ), found by
a few Newton–Schulz iterations in bf16; the update is scaled by sqrt(max(1, rows / cols)).
Its matrix products run inside the optimizer's step, so the profiler's range around that
step counts them as the optimizer's time (attnlab/step/parts.py), not as the model's GEMMs.
nanochat's settings: Muon lr 0.02, momentum 0.95, 5 iterations; AdamW betas (0.8, 0.95),
eps 1e-10, no weight decay, lr 0.2 for the embedding and 0.004 for the LM head, both scaled
by (width / 768)^-0.5.
"""

from __future__ import annotations

import torch

from attnlab.step.rows import OPTIMIZERS

# The quintic iteration's coefficients: X <- a·X + (b·A + c·A²)·X with A = X·Xᵀ. They push every
# singular value of the normalized X towards 1 in few steps, without converging exactly.
NEWTON_SCHULZ = (3.4445, -4.7750, 2.0315)


def orthogonalize(g: torch.Tensor, steps: int) -> torch.Tensor:
    """The Newton–Schulz estimate of U·Vᵀ for each matrix g = U·S·Vᵀ of a batch (…, rows, cols), in
    bf16, worked on the wide way round (X·Xᵀ is the smaller square)."""
    a, b, c = NEWTON_SCHULZ
    x = g.bfloat16()
    tall = x.size(-2) > x.size(-1)
    if tall:
        x = x.mT
    x = x / (x.norm(dim=(-2, -1), keepdim=True) + 1e-7)  # every singular value at most 1: the iteration's domain
    for _ in range(steps):
        gram = x @ x.mT
        x = a * x + (b * gram + c * (gram @ gram)) @ x
    return x.mT if tall else x


class Muon(torch.optim.Optimizer):
    """Muon over 2-D parameters only. The momentum is an exponential average of the gradients
    (nanochat's form); its scale does not matter, the orthogonalization normalizes it.

    Matrices of one shape are one parameter group, orthogonalized as one batch: each matrix's
    result is its own, but a d24 step launches a few dozen kernels, not a few thousand. Launched
    matrix by matrix, the GPU waits on Python between the small products, and how long depends
    on how far ahead the forward and backward let the CPU run: step times then scatter by a
    third and the layouts' difference drowns in that."""

    def __init__(self, params, lr: float = 0.02, momentum: float = 0.95, steps: int = 5):
        params = list(params)
        if any(p.ndim != 2 for p in params):
            raise ValueError("Muon: every parameter must be a matrix (2-D)")
        shapes = list(dict.fromkeys(p.shape for p in params))
        groups = [{"params": [p for p in params if p.shape == shape]} for shape in shapes]
        super().__init__(groups, dict(lr=lr, momentum=momentum, steps=steps))
        self.orthogonalize = torch.compile(orthogonalize, fullgraph=True, dynamic=False)

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if not params:
                continue
            mu = group["momentum"]
            grads = [p.grad for p in params]
            for p in params:
                if "momentum" not in self.state[p]:
                    self.state[p]["momentum"] = torch.zeros_like(p.grad)
            momenta = [self.state[p]["momentum"] for p in params]
            torch._foreach_lerp_(momenta, grads, 1 - mu)
            nesterov = torch._foreach_lerp(grads, momenta, mu)
            update = self.orthogonalize(torch.stack(nesterov), group["steps"]).to(params[0].dtype)
            rows, cols = params[0].shape
            torch._foreach_add_(params, list(update.unbind(0)), alpha=-group["lr"] * max(1.0, rows / cols) ** 0.5)


class Optimizers:
    """Several optimizers stepped as one."""

    def __init__(self, *optimizers: torch.optim.Optimizer):
        self.optimizers = optimizers

    def step(self):
        for o in self.optimizers:
            o.step()

    def zero_grad(self, set_to_none: bool):
        for o in self.optimizers:
            o.zero_grad(set_to_none=set_to_none)


def nanochat_adamw(groups) -> torch.optim.AdamW:
    """AdamW as nanochat runs it beside Muon: betas (0.8, 0.95), eps 1e-10, no weight decay."""
    return torch.optim.AdamW(groups, betas=(0.8, 0.95), eps=1e-10, weight_decay=0.0, fused=True)


def make_optimizer(name: str, model, width: int, lr: float, shard_over: tuple[int, int] | None = None):
    """`model` is attnlab/step/model.py's GPT; `lr` is AdamW's when it takes every parameter.
    `shard_over` (rank, ranks): nanochat's split stepped as its data-parallel optimizers do
    (attnlab/step/sharded.py), which exchange the gradients themselves."""
    if name not in OPTIMIZERS:
        raise ValueError(f"optimizer: expected one of {', '.join(OPTIMIZERS)}, got {name!r}")
    if name == "adamw":
        if shard_over is not None:
            raise ValueError("optimizer: the sharded step is nanochat's, with Muon")
        return Optimizers(torch.optim.AdamW(model.parameters(), lr=lr, betas=(0.9, 0.95), weight_decay=0.0, fused=True))
    scale = (width / 768) ** -0.5
    head_lrs = [(model.wte, 0.2 * scale), (model.lm_head, 0.004 * scale)]
    if shard_over is None:
        adamw = nanochat_adamw([{"params": module.parameters(), "lr": head_lr} for module, head_lr in head_lrs])
        return Optimizers(adamw, Muon(model.blocks.parameters()))
    from attnlab.step.sharded import ShardedGroup, ShardedOptimizer

    rank, ranks = shard_over
    groups = []
    for module, head_lr in head_lrs:
        (weight,) = module.parameters()
        group = ShardedGroup([weight], stacked=False, rank=rank, world=ranks)
        groups.append((group, nanochat_adamw([{"params": group.shadows, "lr": head_lr}])))
    matrices = list(model.blocks.parameters())
    for shape in dict.fromkeys(p.shape for p in matrices):
        group = ShardedGroup([p for p in matrices if p.shape == shape], stacked=True, rank=rank, world=ranks)
        groups.append((group, Muon(group.shadows)))
    return ShardedOptimizer(groups)
