"""nanochat's GPT at a scenario's [model] shape, over a flat buffer of tokens.

Token embedding, RMSNorm without weights, rotary embeddings, QK norm, ReLU² MLP, an
untied LM head and cross-entropy: nanochat's block. The buffer is (tokens, width), no
batch axis: which tokens attend to which is the attention's business alone (`attend`,
attnlab/step/attention.py), so the same model runs packed rows and varlen documents.
Weights are fp32; the step runs under bf16 autocast (train/README.md says why).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass(frozen=True)
class ModelShape:
    layers: int
    width: int
    heads: int
    kv_heads: int
    head_dim: int
    mlp_ratio: int
    vocab: int
    seq_len: int
    layer_windows: tuple[int, ...]  # FlashAttention's left window per layer, -1 = the whole row

    @staticmethod
    def of(scenario: dict) -> ModelShape:
        """The scenario JSON's [model] table (attnlab/scenario.py)."""
        m = scenario["model"]
        if m is None:
            raise ValueError(f"{scenario['name']}: model: missing; the step needs a [model] table")
        return ModelShape(
            m["layers"],
            m["width"],
            m["heads"],
            m["kv_heads"],
            m["head_dim"],
            m["mlp_ratio"],
            m["vocab"],
            m["seq_len"],
            tuple(m["layer_windows"]),
        )


def norm(x: torch.Tensor) -> torch.Tensor:
    return F.rms_norm(x, (x.size(-1),))


def rotary_tables(positions: torch.Tensor, head_dim: int, base: float = 10000.0):
    """cos and sin (tokens, 1, head_dim / 2) in bf16 for each token's position."""
    inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.float32, device=positions.device) / head_dim))
    angles = positions.float()[:, None] * inv_freq[None, :]
    return angles.cos().bfloat16()[:, None, :], angles.sin().bfloat16()[:, None, :]


def apply_rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos + x2 * sin, x2 * cos - x1 * sin], dim=-1)


class Attention(nn.Module):
    def __init__(self, s: ModelShape, window_left: int):
        super().__init__()
        self.s, self.window_left = s, window_left
        self.c_q = nn.Linear(s.width, s.heads * s.head_dim, bias=False)
        self.c_k = nn.Linear(s.width, s.kv_heads * s.head_dim, bias=False)
        self.c_v = nn.Linear(s.width, s.kv_heads * s.head_dim, bias=False)
        self.c_proj = nn.Linear(s.heads * s.head_dim, s.width, bias=False)

    def forward(self, x, cos, sin, attend):
        n, s = x.shape[0], self.s
        q = self.c_q(x).view(n, s.heads, s.head_dim)
        k = self.c_k(x).view(n, s.kv_heads, s.head_dim)
        v = self.c_v(x).view(n, s.kv_heads, s.head_dim)
        q, k = norm(apply_rotary(q, cos, sin)), norm(apply_rotary(k, cos, sin))
        # Autocast may leave the norm in fp32; every attention backend takes bf16.
        y = attend(q.bfloat16(), k.bfloat16(), v.bfloat16(), self.window_left)
        return self.c_proj(y.reshape(n, s.heads * s.head_dim))


class MLP(nn.Module):
    def __init__(self, s: ModelShape):
        super().__init__()
        self.c_fc = nn.Linear(s.width, s.mlp_ratio * s.width, bias=False)
        self.c_proj = nn.Linear(s.mlp_ratio * s.width, s.width, bias=False)

    def forward(self, x):
        return self.c_proj(F.relu(self.c_fc(x)).square())


class Block(nn.Module):
    def __init__(self, s: ModelShape, window_left: int):
        super().__init__()
        self.attn = Attention(s, window_left)
        self.mlp = MLP(s)

    def forward(self, x, cos, sin, attend):
        x = x + self.attn(norm(x), cos, sin, attend)
        return x + self.mlp(norm(x))


class GPT(nn.Module):
    def __init__(self, s: ModelShape):
        super().__init__()
        self.wte = nn.Embedding(s.vocab, s.width)
        self.blocks = nn.ModuleList(Block(s, w) for w in s.layer_windows)
        self.lm_head = nn.Linear(s.width, s.vocab, bias=False)

    def forward(self, tokens, targets, cos, sin, attend, ignore_index: int):
        x = norm(self.wte(tokens))
        for block in self.blocks:
            x = block(x, cos, sin, attend)
        logits = self.lm_head(norm(x)).float()
        return F.cross_entropy(logits, targets, ignore_index=ignore_index)


class TrainingLoss(nn.Module):
    """The model's loss over one batch under bf16 autocast: the module that torch.compile
    compiles and, on several GPUs, DDP wraps (`attend` and the batch are fixed per run)."""

    def __init__(self, model: GPT, attend, ignore_index: int):
        super().__init__()
        self.model, self.attend, self.ignore_index = model, attend, ignore_index

    def forward(self, tokens, targets, cos, sin):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            return self.model(tokens, targets, cos, sin, self.attend, self.ignore_index)
