"""attnlab/step/sharded.py on two CUDA GPUs over NCCL: nanochat's sharded optimizer step must leave
every rank with the parameters one unsharded step makes from the ranks' averaged gradients.

Skipped without PyTorch or two CUDA GPUs; the GPU machine runs it:
python3 -m unittest tests/python/test_step_sharded.py -v
"""

import importlib.util
import socket
import unittest

HAS_TORCH = importlib.util.find_spec("torch") is not None
if HAS_TORCH:
    import torch

    GPUS = torch.cuda.device_count() if torch.cuda.is_available() else 0
else:
    GPUS = 0

RANKS = 2


def small_model():
    """The optimizer's view of nanochat's GPT: an embedding, an LM head and blocks of matrices in
    three shapes, one of them 3 matrices (not a multiple of the ranks: the stack is padded)."""
    torch.manual_seed(3)
    model = torch.nn.Module()
    model.wte = torch.nn.Embedding(64, 32)
    model.lm_head = torch.nn.Linear(32, 64, bias=False)
    shapes = [(32, 32)] * 3 + [(32, 128)] * 2 + [(128, 32)] * 2
    model.blocks = torch.nn.ModuleList(torch.nn.Linear(i, o, bias=False) for o, i in shapes)
    model.wte.to(torch.bfloat16)
    return model.cuda()


def rank_gradients(model, rank: int) -> list:
    gen = torch.Generator(device="cuda").manual_seed(100 + rank)
    return [torch.randn(p.shape, device="cuda", generator=gen).to(p.dtype) for p in model.parameters()]


def worker(rank: int, port: int):
    from attnlab.step.optimizer import make_optimizer

    torch.cuda.set_device(rank)
    torch.distributed.init_process_group(
        "nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=RANKS, device_id=torch.device("cuda", rank)
    )
    try:
        sharded_model, whole_model = small_model(), small_model()
        sharded = make_optimizer("muon", sharded_model, 32, 3e-4, shard_over=(rank, RANKS))
        whole = make_optimizer("muon", whole_model, 32, 3e-4)
        heads = {id(p) for m in (sharded_model.wte, sharded_model.lm_head) for p in m.parameters()}
        for step in range(2):
            before_sharded = [p.detach().float().clone() for p in sharded_model.parameters()]
            before_whole = [p.detach().float().clone() for p in whole_model.parameters()]
            for p, g in zip(sharded_model.parameters(), rank_gradients(sharded_model, rank + RANKS * step)):
                p.grad.copy_(g)  # the sharded step's gradients are views of its buffers: filled, never replaced
            per_rank = [rank_gradients(whole_model, r + RANKS * step) for r in range(RANKS)]
            for i, p in enumerate(whole_model.parameters()):
                p.grad = (sum(g[i].float() for g in per_rank) / RANKS).to(p.dtype)
            sharded.step()
            whole.step()
            params = zip(sharded_model.parameters(), whole_model.parameters(), before_sharded, before_whole)
            for i, (s, w, s0, w0) in enumerate(params):
                expected = w.detach().float() - w0
                err = ((s.detach().float() - s0) - expected).norm() / expected.norm()
                # AdamW's update is elementwise: the same arithmetic on the same averaged gradients.
                # Muon's bf16 iteration batched 1 or 2 at a time lands some percent from the same
                # iteration batched 2 or 3 at a time; a wrong share, a missing average or a
                # missing gather is off by about the whole update.
                bound = 0.02 if id(s) in heads else 0.15
                if err > bound:
                    raise AssertionError(f"rank {rank} step {step} parameter {i} {tuple(s.shape)}: {err:.3f} off")
            sharded.zero_grad(set_to_none=True)
            if any(p.grad is None or p.grad.abs().max() != 0 for p in sharded_model.parameters()):
                raise AssertionError("zero_grad: the gradient buffers stay, zeroed")
        # Every rank holds the same parameters, bit for bit: the all-gather replicated each share.
        flat = torch.cat([p.detach().float().flatten() for p in sharded_model.parameters()])
        gathered = [torch.empty_like(flat) for _ in range(RANKS)]
        torch.distributed.all_gather(gathered, flat)
        if not torch.equal(gathered[0], gathered[1]):
            raise AssertionError("the ranks' parameters differ after the sharded steps")
    finally:
        torch.distributed.destroy_process_group()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@unittest.skipUnless(GPUS >= RANKS, f"needs PyTorch with {RANKS} CUDA GPUs")
class ShardedStepOnTwoGpus(unittest.TestCase):
    def test_each_rank_ends_where_one_step_on_the_averaged_gradients_ends(self):
        torch.multiprocessing.spawn(worker, args=(free_port(),), nprocs=RANKS, join=True)

    def test_adamw_alone_is_not_sharded(self):
        from attnlab.step.optimizer import make_optimizer

        with self.assertRaisesRegex(ValueError, "the sharded step is nanochat's, with Muon"):
            make_optimizer("adamw", small_model(), 32, 3e-4, shard_over=(0, RANKS))
