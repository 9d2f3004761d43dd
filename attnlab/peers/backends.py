"""Each PyTorch peer: how it lays out the scenario's inputs, what it calls (the timed region)
and how its output reads back as one tensor per row of its layout.

A new peer is a function here returning a Peer, its name in ALL_PEERS and in peer_makers,
and its family in results/peer_families.csv (attnlab/README.md, "Add a peer").
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass

from attnlab.exits import Unavailable
from attnlab.peers.problem import Inputs, Scenario
from attnlab.scenario import cu_seqlens

ALL_PEERS = [
    "torch-varlen_attn",
    "torch-varlen_attn-kv-expanded",
    "torch-flex-document-mask",
    "torch-sdpa-flash-padded",
    "torch-sdpa-cudnn-padded",
    "torch-sdpa-efficient-padded",
    "torch-sdpa-flash-packed",
    "torch-sdpa-cudnn-packed",
    "torch-sdpa-efficient-packed",
    "torch-eager-padded",
    "torch-varlen_attn-packed",
    "torch-flex-packed",
]
WINDOW_ONLY_PEERS = {"torch-varlen_attn-packed", "torch-flex-packed"}  # default peers only when windowed


@dataclass
class Peer:
    name: str
    implementation: str  # the attnlab run it stands beside
    layout: str  # whose reference it is checked against
    args: Callable[[int], tuple]  # input set index -> arguments of call
    call: Callable[[tuple], object]  # the timed region
    rows: Callable[[object], list]  # output -> one (heads, length, dim) tensor per layout row
    score_bytes: int = 0  # bytes of S and P one call holds in memory (eager only)


def varlen_attn_peer(torch, s: Scenario, x: Inputs, expand_kv: bool = False) -> Peer:
    """expand_kv: for grouped-query scenarios, K and V repeated to every query head before
    the timed region, as a user must when varlen_attn takes no enable_gqa."""
    group = s.heads // s.kv_heads
    if expand_kv and group == 1:
        raise Unavailable("not a grouped-query scenario (kv_heads == heads): the same as torch-varlen_attn")
    varlen_attn, kwargs = varlen_attn_with_mask(s, enable_gqa=group > 1 and not expand_kv)
    longest = max(s.doc_lengths)

    def args(i):
        q, k, v = x.sets[i]
        return (q, k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)) if expand_kv else (q, k, v)

    return Peer(
        "torch-varlen_attn-kv-expanded" if expand_kv else "torch-varlen_attn",
        "varlen",
        "varlen",
        args,
        lambda a: varlen_attn(a[0], a[1], a[2], x.cu_seqlens, x.cu_seqlens, longest, longest, **kwargs),
        x.document_rows,
    )


def varlen_attn_with_mask(s: Scenario, enable_gqa: bool):
    """varlen_attn and the keyword arguments that give it the scenario's causal rule and window."""
    try:
        from torch.nn.attention.varlen import varlen_attn
    except ImportError as e:
        raise Unavailable(f"torch.nn.attention.varlen.varlen_attn is not importable: {e}") from e
    params = inspect.signature(varlen_attn).parameters
    kwargs = {}
    if s.windowed:
        if "window_size" not in params:
            raise Unavailable("varlen_attn takes no window_size")
        kwargs["window_size"] = s.window_size
    elif s.causal:  # PyTorch 2.9 took is_causal; later versions a (left, right) window
        if "is_causal" in params:
            kwargs["is_causal"] = True
        elif "window_size" in params:
            kwargs["window_size"] = (-1, 0)
        else:
            raise Unavailable("varlen_attn takes neither is_causal nor window_size")
    if enable_gqa:
        if "enable_gqa" not in params:
            raise Unavailable("varlen_attn has no enable_gqa for kv_heads != heads")
        kwargs["enable_gqa"] = True
    return varlen_attn, kwargs


def varlen_attn_packed_peer(torch, s: Scenario, x: Inputs) -> Peer:
    """The packed rows as varlen_attn's sequences: causal over each row with the window,
    bleed included (what packed computes), against a window that keeps it short."""
    varlen_attn, kwargs = varlen_attn_with_mask(s, enable_gqa=s.kv_heads != s.heads)
    src = x.source["packed"]
    tokens = src[src >= 0]  # row-major: each row's tokens fill its first positions
    lengths = x.row_lengths["packed"]
    starts = cu_seqlens(lengths)
    cu_rows = torch.tensor(starts, dtype=torch.int32, device="cuda")
    longest = max(lengths)
    return Peer(
        "torch-varlen_attn-packed",
        "packed",
        "packed",
        lambda i: tuple(t.index_select(0, tokens) for t in x.sets[i]),
        lambda a: varlen_attn(a[0], a[1], a[2], cu_rows, cu_rows, longest, longest, **kwargs),
        lambda out: [out[a : a + n].transpose(0, 1) for a, n in zip(starts, lengths)],
    )


def flex_call(torch, s: Scenario, mask_mod, batch: int | None, extent: int) -> Callable[[tuple], object]:
    """FlexAttention, compiled, over the block mask of `mask_mod` on (batch, extent, extent); the
    mask is made here, outside the timed region, as training makes it once per batch."""
    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    except ImportError as e:
        raise Unavailable(f"FlexAttention is not importable: {e}") from e
    mask = create_block_mask(mask_mod, batch, None, extent, extent, device="cuda")
    compiled = torch.compile(flex_attention, dynamic=False)
    gqa = s.kv_heads != s.heads
    return lambda a: compiled(a[0], a[1], a[2], block_mask=mask, enable_gqa=gqa)


def flex_peer(torch, s: Scenario, x: Inputs) -> Peer:
    """The whole token buffer as one sequence, masked to documents."""
    doc = x.doc_id

    def document_mask(batch, head, q, kv):
        same = doc[q] == doc[kv]
        if s.windowed:  # inside one document, q - kv is also the distance of positions in it
            return same & window_mod(s, q, kv)
        return same & (q >= kv) if s.causal else same

    return Peer(
        "torch-flex-document-mask",
        "varlen",
        "varlen",
        lambda i: tuple(t.unsqueeze(0).transpose(1, 2) for t in x.sets[i]),  # (1, heads, tokens, dim)
        flex_call(torch, s, document_mask, None, s.tokens),
        lambda out: [out[0, :, a : a + n] for a, n in zip(x.starts, s.doc_lengths)],
    )


def window_mod(s: Scenario, q, kv):
    """FlexAttention mask_mod term: causal and window on positions q, kv of one row."""
    keep = q >= kv if s.causal else q == q
    if s.window_left >= 0:
        keep = keep & (q - kv <= s.window_left)
    if s.window_right >= 0:
        keep = keep & (kv - q <= s.window_right)
    return keep


def flex_packed_peer(torch, s: Scenario, x: Inputs) -> Peer:
    """The packed rows as a batch, with a sliding-window causal mask over each row (bleed
    included) and its padding keys masked."""
    lengths = x.row_lengths["packed"]
    extent = x.source["packed"].shape[1]
    row_length = torch.tensor(lengths, dtype=torch.int64, device="cuda")

    def packed_mask(batch, head, q, kv):
        return (kv < row_length[batch]) & window_mod(s, q, kv)

    return Peer(
        "torch-flex-packed",
        "packed",
        "packed",
        lambda i: tuple(x.gathered("packed", t) for t in x.sets[i]),
        flex_call(torch, s, packed_mask, len(lengths), extent),
        lambda out: [out[r, :, :n] for r, n in enumerate(lengths)],
    )


def sdpa_peer(torch, s: Scenario, x: Inputs, backend: str, layout: str) -> Peer:
    from torch.nn.attention import SDPBackend, sdpa_kernel

    chosen = {
        "flash": SDPBackend.FLASH_ATTENTION,
        "cudnn": SDPBackend.CUDNN_ATTENTION,
        "efficient": SDPBackend.EFFICIENT_ATTENTION,
    }[backend]
    src, lengths = x.source[layout], x.row_lengths[layout]
    # Causal rows need no mask: pad keys sit after every valid query. Without the causal
    # rule, ragged rows need a key-padding mask (which the flash backend refuses).
    ragged = any(n != src.shape[1] for n in lengths)
    mask = (src >= 0)[:, None, None, :] if ragged and not s.causal else None
    is_causal = s.causal
    if s.windowed:  # only an explicit mask carries a window; SDPA takes it with is_causal off
        if backend != "efficient":
            raise Unavailable(f"SDPA's {backend} backend takes no window and no explicit mask")
        extent = src.shape[1]
        free, _ = torch.cuda.mem_get_info()
        if 3 * len(lengths) * extent * extent > 0.5 * free:  # the mask, and the 2-byte bias made from it
            raise Unavailable(
                f"a ({len(lengths)}, {extent}, {extent}) window mask does not fit in {free / 2**30:.1f} GiB free"
            )
        window = s.keep_mask(torch, extent)[None, None]
        mask = window & mask if mask is not None else window.expand(len(lengths), 1, extent, extent)
        is_causal = False
    gqa = s.kv_heads != s.heads

    def call(a):
        with sdpa_kernel([chosen]):
            return torch.nn.functional.scaled_dot_product_attention(
                a[0], a[1], a[2], attn_mask=mask, is_causal=is_causal, enable_gqa=gqa
            )

    return Peer(
        f"torch-sdpa-{backend}-{layout}",
        layout,
        layout,
        lambda i: tuple(x.gathered(layout, t) for t in x.sets[i]),
        call,
        lambda out: [out[r, :, :n] for r, n in enumerate(lengths)],
    )


def eager_peer(torch, s: Scenario, x: Inputs) -> Peer:
    """S and P materialized in memory, as a first attention implementation would."""
    src = x.source["padded"]
    rows, extent = src.shape
    need = 2 * rows * s.heads * extent * extent * 2  # S and P, 2-byte elements
    free, _ = torch.cuda.mem_get_info()
    if need > 0.8 * free:
        raise Unavailable(f"S and P need {need / 2**30:.1f} GiB, {free / 2**30:.1f} GiB free")
    keep = (src >= 0)[:, None, None, :]
    if s.windowed:
        keep = keep & s.keep_mask(torch, extent)
    elif s.causal:
        keep = keep & torch.ones(extent, extent, dtype=torch.bool, device="cuda").tril()
    masked = ~keep
    scale = 1.0 / math.sqrt(s.head_dim)
    group = s.heads // s.kv_heads

    def call(a):
        q, k, v = a
        if group > 1:
            k, v = (t.repeat_interleave(group, dim=1) for t in (k, v))
        scores = torch.matmul(q, k.transpose(-2, -1))
        scores.mul_(scale).masked_fill_(masked, float("-inf"))
        return torch.matmul(torch.softmax(scores, dim=-1), v)

    lengths = x.row_lengths["padded"]
    return Peer(
        "torch-eager-padded",
        "naive",
        "padded",
        lambda i: tuple(x.gathered("padded", t) for t in x.sets[i]),
        call,
        lambda out: [out[r, :, :n] for r, n in enumerate(lengths)],
        score_bytes=need,
    )


def peer_makers(torch, s: Scenario, x: Inputs) -> dict[str, Callable[[], Peer]]:
    makers = {
        "torch-varlen_attn": lambda: varlen_attn_peer(torch, s, x),
        "torch-varlen_attn-kv-expanded": lambda: varlen_attn_peer(torch, s, x, expand_kv=True),
        "torch-flex-document-mask": lambda: flex_peer(torch, s, x),
        "torch-eager-padded": lambda: eager_peer(torch, s, x),
        "torch-varlen_attn-packed": lambda: varlen_attn_packed_peer(torch, s, x),
        "torch-flex-packed": lambda: flex_packed_peer(torch, s, x),
    }
    for backend in ("flash", "cudnn", "efficient"):
        for layout in ("padded", "packed"):
            makers[f"torch-sdpa-{backend}-{layout}"] = lambda b=backend, lay=layout: sdpa_peer(torch, s, x, b, lay)
    return makers
