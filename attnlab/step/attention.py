"""The step's attention, three ways: attend(q, k, v, window_left) -> out, all (positions, heads, head_dim).

  fa2      torch.nn.attention.varlen.varlen_attn (FlashAttention-2) over the layout's
           sequences: documents (varlen) or rows (packed: cu_seqlens at row starts),
           window_size = (window_left, 0), -1 = the whole sequence;
  cudnn    scaled_dot_product_attention with only the cuDNN backend enabled, over the packed
           rows as a (rows, heads, row_len, head_dim) batch, is_causal: packed rows without
           a window only (SDPA takes no window, and varlen is not a batch of equal rows);
  attnlab  attnlab's operator (attnlab/ops.py) on a layout of the same sequences,
           one registered layout per window the model uses.
Everything the attention needs is built here, before the step is compiled, so the compiled
graph sees constant tensors and integers only.
"""

from __future__ import annotations

import torch

from attnlab.exits import Unavailable
from attnlab.step.batch import LayoutBatch


def fa2_attend(batch: LayoutBatch, cu_seqlens: torch.Tensor, heads: int, kv_heads: int):
    from torch.nn.attention.varlen import varlen_attn

    group = heads // kv_heads

    def attend(q, k, v, window_left):
        if group > 1:  # varlen_attn is given K and V per query head
            k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
        return varlen_attn(
            q, k, v, cu_seqlens, cu_seqlens, batch.max_seqlen, batch.max_seqlen, window_size=(window_left, 0)
        )

    return attend


def cudnn_attend(batch: LayoutBatch, windows: set[int]):
    if batch.layout != "packed":
        raise Unavailable("cuDNN SDPA runs the packed rows as a batch; varlen documents are no batch of equal rows")
    if windows != {-1}:
        raise Unavailable(f"SDPA takes no sliding window; this model's layers use windows {sorted(windows)}")
    # Only cuDNN left enabled: SDPA's choice at tracing time cannot fall back to another backend.
    torch.backends.cuda.enable_flash_sdp(False)
    torch.backends.cuda.enable_mem_efficient_sdp(False)
    torch.backends.cuda.enable_math_sdp(False)
    torch.backends.cuda.enable_cudnn_sdp(True)
    rows, row_len = len(batch.sequence_lengths), batch.max_seqlen

    def attend(q, k, v, window_left):
        def as_rows(x):
            return x.view(rows, row_len, x.shape[1], x.shape[2]).transpose(1, 2)

        out = torch.nn.functional.scaled_dot_product_attention(
            as_rows(q), as_rows(k), as_rows(v), is_causal=True, enable_gqa=k.shape[1] != q.shape[1]
        )
        return out.transpose(1, 2).reshape(q.shape)

    return attend


def attnlab_attend(batch: LayoutBatch, windows: set[int], build_dir: str):
    from attnlab import ops

    ops.load(build_dir)
    layouts = {w: ops.varlen_layout(batch.sequence_lengths, w) for w in sorted(windows)}

    def attend(q, k, v, window_left):
        return ops.attention(q, k, v, layouts[window_left])

    return attend, layouts[min(windows)].kernel


def make_attend(
    backend: str,
    batch: LayoutBatch,
    cu_seqlens: torch.Tensor,
    heads: int,
    kv_heads: int,
    windows: set[int],
    build_dir: str | None,
):
    """(attend, kernel): the function the model calls, and attnlab's kernel name (else "")."""
    if backend == "fa2":
        return fa2_attend(batch, cu_seqlens, heads, kv_heads), ""
    if backend == "cudnn":
        return cudnn_attend(batch, windows), ""
    if backend == "attnlab":
        if not build_dir:
            raise Unavailable("attnlab needs --build, a CMake build with PIC static libraries (pytorch/README.md)")
        return attnlab_attend(batch, windows, build_dir)
    raise ValueError(f"backend: expected fa2, cudnn or attnlab, got {backend!r}")
