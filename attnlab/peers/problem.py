"""The problem every peer runs: a scenario as attnlab's loader resolves it, random Q, K, V in each
layout's order, and the fp32 attention each peer's output is checked against.

A layout's source map holds, for each (row, position), the canonical token there (documents
concatenated: the varlen buffer) or -1 for padding; the padded and packed inputs are gathers
of the canonical ones, so every peer sees the same values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from attnlab.scenario import cu_seqlens, scenario_json

L2_BYTES = 50 * 1024 * 1024  # H100
ROTATION_BYTES = 4 * L2_BYTES  # the input sets together span at least this much
MAX_INPUT_SETS = 8


@dataclass
class Scenario:
    name: str
    heads: int
    kv_heads: int
    head_dim: int
    dtype: str
    causal: bool
    row_len: int
    padded_length: int
    doc_lengths: list[int]
    packed_rows: list[list[list[int]]]  # per packed row: runs of [canonical start, count]
    scores_useful: dict[str, int]  # per attnlab implementation, all heads (the cost model's)
    columns: list[str]
    window_left: int = -1  # FlashAttention's window_size; -1 = unbounded
    window_right: int = -1

    @property
    def windowed(self) -> bool:
        return self.window_left >= 0 or (self.window_right >= 0 and not self.causal)

    @property
    def window_size(self) -> tuple[int, int]:
        """(left, right) as varlen_attn takes it; causal is right = 0."""
        return (self.window_left, 0 if self.causal else self.window_right)

    def keep_mask(self, torch, extent: int):
        """(extent, extent) bool: query q may attend key k (causal and window; positions inside the row)."""
        i = torch.arange(extent, device="cuda")
        back = i[:, None] - i[None, :]  # q - k
        keep = torch.ones(extent, extent, dtype=torch.bool, device="cuda")
        if self.causal:
            keep &= back >= 0
        if self.window_left >= 0:
            keep &= back <= self.window_left
        if self.window_right >= 0:
            keep &= -back <= self.window_right
        return keep

    @property
    def tokens(self) -> int:
        return sum(self.doc_lengths)

    def useful_flops(self, implementation: str) -> int:
        """4·D per useful score (2·D for QKᵀ, 2·D for PV) of that implementation's layout:
        packed rows that cut a document lose the cells across the cut."""
        return 4 * self.head_dim * self.scores_useful[implementation]

    def input_sets(self) -> int:
        set_bytes = 2 * self.tokens * (2 * self.heads + 2 * self.kv_heads) * self.head_dim  # Q, K, V, O
        return max(1, min(MAX_INPUT_SETS, math.ceil(ROTATION_BYTES / set_bytes)))


def resolve_scenario(attnlab: str, scenario: str) -> Scenario:
    j = scenario_json(attnlab, scenario, "peers")
    return Scenario(
        j["name"],
        j["heads"],
        j["kv_heads"],
        j["head_dim"],
        j["dtype"],
        j["causal"],
        j["row_len"],
        j["padded_length"],
        j["doc_lengths"],
        j["packed_rows"],
        j["scores_useful"],
        j["results_columns"],
        j.get("window_left", -1),
        j.get("window_right", -1),
    )


class Inputs:
    """Random Q, K, V in canonical order (documents concatenated: the varlen buffer),
    several sets of them, and their gathers into the padded and packed layouts.

    A layout's source map holds, for each (row, position), the canonical token there or
    -1 for padding; padding positions hold token 0's values (real data, never zeros)."""

    def __init__(self, torch, s: Scenario, seed: int):
        self.torch, self.s = torch, s
        dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[s.dtype]
        g = torch.Generator(device="cuda").manual_seed(seed)

        def rand(heads):
            u = torch.rand((s.tokens, heads, s.head_dim), generator=g, device="cuda", dtype=torch.float32)
            return (u * 2 - 1).to(dtype)

        self.sets = [(rand(s.heads), rand(s.kv_heads), rand(s.kv_heads)) for _ in range(s.input_sets())]
        self.starts = cu_seqlens(s.doc_lengths)
        self.cu_seqlens = torch.tensor(self.starts, dtype=torch.int32, device="cuda")
        self.doc_id = torch.repeat_interleave(
            torch.arange(len(s.doc_lengths), dtype=torch.int32, device="cuda"),
            torch.tensor(s.doc_lengths, device="cuda"),
        )
        padded = torch.full((len(s.doc_lengths), s.padded_length), -1, dtype=torch.int64)
        for d, n in enumerate(s.doc_lengths):
            padded[d, :n] = torch.arange(self.starts[d], self.starts[d] + n)
        packed = torch.full((len(s.packed_rows), s.row_len), -1, dtype=torch.int64)
        for r, runs in enumerate(s.packed_rows):
            pos = 0
            for start, count in runs:
                packed[r, pos : pos + count] = torch.arange(start, start + count)
                pos += count
        self.source = {"padded": padded.cuda(), "packed": packed.cuda()}
        self.row_lengths = {
            "padded": list(s.doc_lengths),
            "packed": [sum(c for _, c in runs) for runs in s.packed_rows],
        }
        self._references = {}

    def gathered(self, layout: str, x):
        """Canonical (tokens, heads, dim) -> (rows, heads, extent, dim), a transposed view as training code has."""
        src = self.source[layout]
        flat = x.index_select(0, src.clamp(min=0).reshape(-1))
        return flat.reshape(*src.shape, x.shape[1], x.shape[2]).transpose(1, 2)

    def document_rows(self, x):
        """Canonical (tokens, heads, dim) -> one (heads, length, dim) view per document."""
        return [x[a : a + n].transpose(0, 1) for a, n in zip(self.starts, self.s.doc_lengths)]

    def reference(self, layout: str):
        """fp32 attention of input set 0, one (heads, length, dim) tensor per row of the layout:
        per document for varlen and padded, per packed row (bleed included) for packed."""
        key = "packed" if layout == "packed" else "documents"
        if key not in self._references:
            q, k, v = self.sets[0]
            if key == "documents":
                rows = zip(*(self.document_rows(x) for x in (q, k, v)))
            else:
                g = [self.gathered("packed", x) for x in (q, k, v)]
                rows = (
                    (g[0][r, :, :n], g[1][r, :, :n], g[2][r, :, :n]) for r, n in enumerate(self.row_lengths["packed"])
                )
            self._references[key] = fp32_attention(self.torch, rows, self.s)
        return self._references[key]

    def error(self, layout: str, out_rows) -> float:
        refs = self.reference(layout)
        torch = self.torch
        num = sum(float(torch.linalg.vector_norm(o.float() - r) ** 2) for o, r in zip(out_rows, refs))
        den = sum(float(torch.linalg.vector_norm(r) ** 2) for r in refs)
        return math.sqrt(num / den)


def fp32_attention(torch, rows, s: Scenario):
    """Each (q, k, v) of shape (heads, length, dim) in fp32. The memory-efficient backend
    takes fp32 and never holds a length² matrix, as math would for a long document
    (a window needs an explicit length² boolean mask, which SDPA cannot join with is_causal)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    outs = []
    with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]):
        for q, k, v in rows:
            q, k, v = (x.float().unsqueeze(0) for x in (q, k, v))
            masked = {"attn_mask": s.keep_mask(torch, q.shape[2])} if s.windowed else {"is_causal": s.causal}
            outs.append(
                torch.nn.functional.scaled_dot_product_attention(
                    q, k, v, enable_gqa=k.shape[1] != q.shape[1], **masked
                )[0]
            )
    return outs
