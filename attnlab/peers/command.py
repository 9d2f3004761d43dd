#!/usr/bin/env python3
"""Runs scenarios through the attention kernels a PyTorch user would reach for, timed
like attnlab-bench, and writes one results-schema row per peer.

Peers (`implementation` names the attnlab run each one stands beside):
  torch-varlen_attn                          varlen  torch.nn.attention.varlen.varlen_attn (FlashAttention-2 varlen)
  torch-varlen_attn-kv-expanded              varlen  the same with K, V repeated to every query head (grouped-query
                                                     scenarios, where varlen_attn takes no enable_gqa)
  torch-flex-document-mask                   varlen  compiled FlexAttention over the token buffer, document mask
  torch-sdpa-{flash,cudnn,efficient}-padded  padded  SDPA with one backend on the padded batch
  torch-sdpa-{flash,cudnn,efficient}-packed  packed  SDPA with one backend on the packed rows (with their bleed)
  torch-eager-padded                         naive   matmul, mask, softmax, matmul on the padded batch
  torch-varlen_attn-packed                   packed  varlen_attn over the packed rows, causal over each row with
                                                     the window (sliding-window scenarios only)
  torch-flex-packed                          packed  FlexAttention on the packed rows, sliding-window causal mask
                                                     (sliding-window scenarios only)

Sliding windows follow FlashAttention's window_size = (left, right), -1 = unbounded,
positions counted inside the row (the document for varlen and padded). SDPA's flash and
cuDNN backends take no window: they are reported unavailable; the memory-efficient
backend runs with an explicit boolean mask (causal and window folded in).

--pass bwd (or both) times the backward alone: the forward runs once per input set with
its graph retained, then torch.autograd.grad(out, (q, k, v), grad_out, retain_graph=True)
is timed like the forward. Backward rows leave rel_l2_error empty.

Rows leave the `kernel` column empty: `source` names the peer and with it the backend.

A peer that cannot run here (backend missing, shape refused, too little memory) is
reported on one `SCENARIO PEER: unavailable: REASON` line and gets no row.

The scenario comes from attnlab's own loader: `attnlab model SCENARIO --format json` prints it as
JSON (shape, document lengths, packed rows, useful scores per layout, the results
columns), so lengths, packing, useful FLOPs and columns are the ones the C++ side uses.

Timing: CUDA events around each call after a warm-up; median, min and max over --reps
calls that cycle through input sets spanning several times the L2 cache, so no call
finds its inputs left in L2 by the one before. Error: relative L2 against fp32
attention of the same layout (packed keeps its bleed: that is what packed computes).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import inspect
import math
import shutil
import statistics
import subprocess
import sys
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from atomic_file import WriteRefused, check_replaceable_file, printable, write_csv  # noqa: E402  (bench/atomic_file.py)
from scenario_json import DEFAULT_CLI, import_torch, scenario_json  # noqa: E402  (bench/scenario_json.py)

L2_BYTES = 50 * 1024 * 1024  # H100
ROTATION_BYTES = 4 * L2_BYTES  # the input sets together span at least this much
MAX_INPUT_SETS = 8
MIN_REPS = 5

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
BWD_FLOPS_PER_FWD = 2.5  # FlashAttention's convention: backward useful FLOPs = 2.5 x the forward's


def fail(message: str, code: int = 2):
    print(f"torch_peers: {printable(message)}", file=sys.stderr)
    sys.exit(code)


# ---------------------------------------------------------------- the scenario


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
    j = scenario_json(attnlab, scenario, "torch_peers")
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


@dataclass
class Environment:
    gpu: str
    driver: str
    cuda_version: str
    version: str  # the peers' version (results/README.md: a peer row's commit column)
    date: str


def read_environment(torch) -> Environment:
    driver = ""
    if shutil.which("nvidia-smi"):
        q = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"], capture_output=True, text=True
        )
        driver = q.stdout.strip().splitlines()[0] if q.returncode == 0 and q.stdout.strip() else ""
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return Environment(
        torch.cuda.get_device_name(), driver, torch.version.cuda or "", f"torch {torch.__version__}", date
    )


# ---------------------------------------------------------------- inputs in each layout


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
        self.starts = [0]
        for n in s.doc_lengths:
            self.starts.append(self.starts[-1] + n)
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


# ---------------------------------------------------------------- peers


class Unavailable(Exception):
    """The peer cannot run here; the message says why."""


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
    starts = [0]
    for n in lengths:
        starts.append(starts[-1] + n)
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


def flex_peer(torch, s: Scenario, x: Inputs) -> Peer:
    """The whole token buffer as one sequence, masked to documents. The block mask, built
    once per batch in training, is made outside the timed region."""
    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    except ImportError as e:
        raise Unavailable(f"FlexAttention is not importable: {e}") from e
    doc = x.doc_id

    def document_mask(batch, head, q, kv):
        same = doc[q] == doc[kv]
        if s.windowed:  # inside one document, q - kv is also the distance of positions in it
            return same & window_mod(s, q, kv)
        return same & (q >= kv) if s.causal else same

    mask = create_block_mask(document_mask, None, None, s.tokens, s.tokens, device="cuda")
    compiled = torch.compile(flex_attention, dynamic=False)
    gqa = s.kv_heads != s.heads
    return Peer(
        "torch-flex-document-mask",
        "varlen",
        "varlen",
        lambda i: tuple(t.unsqueeze(0).transpose(1, 2) for t in x.sets[i]),  # (1, heads, tokens, dim)
        lambda a: compiled(a[0], a[1], a[2], block_mask=mask, enable_gqa=gqa),
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
    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    except ImportError as e:
        raise Unavailable(f"FlexAttention is not importable: {e}") from e
    lengths = x.row_lengths["packed"]
    extent = x.source["packed"].shape[1]
    row_length = torch.tensor(lengths, dtype=torch.int64, device="cuda")

    def packed_mask(batch, head, q, kv):
        return (kv < row_length[batch]) & window_mod(s, q, kv)

    mask = create_block_mask(packed_mask, len(lengths), None, extent, extent, device="cuda")
    compiled = torch.compile(flex_attention, dynamic=False)
    gqa = s.kv_heads != s.heads
    return Peer(
        "torch-flex-packed",
        "packed",
        "packed",
        lambda i: tuple(x.gathered("packed", t) for t in x.sets[i]),
        lambda a: compiled(a[0], a[1], a[2], block_mask=mask, enable_gqa=gqa),
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


# ---------------------------------------------------------------- timing


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


def time_peer(torch, peer: Peer, x: Inputs, warmup: int, reps: int, budget_s: float):
    """Median, min and max µs and the error. A slow peer gets fewer reps (at least
    MIN_REPS) so that its timed calls stay near budget_s."""
    args = [peer.args(i) for i in range(len(x.sets))]
    out = first_call(torch, lambda: peer.call(args[0]))
    error = x.error(peer.layout, peer.rows(out))
    del out
    median, lo, hi, reps = timed(torch, lambda i: peer.call(args[i % len(args)]), warmup, reps, budget_s)
    return median, lo, hi, error, reps


def time_backward(torch, peer: Peer, x: Inputs, warmup: int, reps: int, budget_s: float):
    """Median, min and max µs of the backward alone: each input set's forward runs once and
    keeps its graph, then autograd.grad of its output (retain_graph) is what is timed."""
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

    def backward(i):
        j = i % sets
        return torch.autograd.grad(outs[j], leaves[j], grad_outs[j], retain_graph=True)

    first_call(torch, lambda: backward(0))
    return timed(torch, backward, warmup, reps, budget_s)


def timed(torch, call: Callable[[int], object], warmup: int, reps: int, budget_s: float):
    """Median, min and max µs of call(i) over reps calls after a warm-up, and the reps taken.
    A slow call gets fewer reps (at least MIN_REPS) so that its timed calls stay near budget_s."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    call(1)
    end.record()
    torch.cuda.synchronize()
    one_call_s = start.elapsed_time(end) / 1000.0
    if one_call_s * (warmup + reps) > budget_s:
        reps = max(MIN_REPS, min(reps, int(budget_s / one_call_s)))
        warmup = min(warmup, 1)
    for i in range(warmup):
        call(i)
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        starts[i].record()
        call(i)
        ends[i].record()
    torch.cuda.synchronize()
    us = sorted(a.elapsed_time(b) * 1000.0 for a, b in zip(starts, ends))
    return statistics.median(us), us[0], us[-1], reps


# ---------------------------------------------------------------- output


def run_scenario(torch, s: Scenario, env: Environment, names: list[str], args) -> list[dict]:
    x = Inputs(torch, s, args.seed)
    print(
        f"# {s.name}: {len(s.doc_lengths)} documents, {s.tokens} tokens, {s.heads} heads, d={s.head_dim}, "
        f"{s.dtype}, {'causal' if s.causal else 'non-causal'}, {len(x.sets)} input sets",
        flush=True,
    )
    makers, rows = peer_makers(torch, s, x), []
    if names is None:  # the default: every peer that fits the scenario
        names = [n for n in ALL_PEERS if s.windowed or n not in WINDOW_ONLY_PEERS]
    for name in names:
        for pass_ in args.passes:
            label = name if pass_ == "fwd" else f"{name} {pass_}"
            began = time.monotonic()
            try:
                peer = makers[name]()
                if pass_ == "fwd":
                    median, lo, hi, err, reps = time_peer(torch, peer, x, args.warmup, args.reps, args.budget)
                else:
                    median, lo, hi, reps = time_backward(torch, peer, x, args.warmup, args.reps, args.budget)
            except Unavailable as e:
                print(f"{s.name} {label}: unavailable: {e}", flush=True)
                continue
            except torch.cuda.OutOfMemoryError as e:  # also torch.OutOfMemoryError, which older versions lack
                print(f"{s.name} {label}: unavailable: out of memory ({str(e).splitlines()[0]})", flush=True)
                continue
            except Exception as e:  # one broken peer must not lose the others' rows
                traceback.print_exc()
                print(
                    f"{s.name} {label}: unavailable: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}",
                    flush=True,
                )
                if not context_alive(torch):
                    raise ContextLost(f"{s.name} {label}", rows) from e
                continue
            finally:
                if context_alive(torch):
                    torch.cuda.empty_cache()
            flops = s.useful_flops(peer.implementation) * (1 if pass_ == "fwd" else BWD_FLOPS_PER_FWD)
            tflops = flops / (median * 1e-6) / 1e12
            error = f", rel L2 error {err:.2e}" if pass_ == "fwd" else ""
            print(
                f"{s.name} {label}: median {median:.1f} us (min {lo:.1f}, max {hi:.1f}), "
                f"{tflops:.1f} useful TFLOP/s{error}, {reps} reps ({time.monotonic() - began:.0f} s)",
                flush=True,
            )
            rows.append(
                {
                    "scenario": s.name,
                    "implementation": peer.implementation,
                    "source": name,
                    "gpu": env.gpu,
                    "dtype": s.dtype,
                    "heads": s.heads,
                    "head_dim": s.head_dim,
                    "causal": "true" if s.causal else "false",
                    "pass": pass_,
                    "median_us": f"{median:.6g}",
                    "min_us": f"{lo:.6g}",
                    "max_us": f"{hi:.6g}",
                    "useful_tflops": f"{tflops:.6g}",
                    "scores_useful": s.scores_useful[peer.implementation],
                    "rel_l2_error": f"{err:.6g}" if pass_ == "fwd" else "",
                    "kv_heads": s.kv_heads,
                    "tokens": s.tokens,
                    "window_left": s.window_left,  # the mask the peer ran, FlashAttention's window_size
                    "window_right": s.window_right,
                    "reps": reps,
                    "driver": env.driver,
                    "cuda_version": env.cuda_version,
                    "commit": env.version,
                    "date": env.date,
                }
            )
    return rows


def save_rows(path: Path, columns: list[str], rows: list[dict]):
    """The rows so far, written atomically (bench/atomic_file.py); a write that fails is one line."""
    try:
        write_csv(path, columns, rows)
    except WriteRefused as e:
        fail(str(e))


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__
    )
    ap.add_argument("scenarios", nargs="+", help="scenario names or paths, as attnlab takes them")
    ap.add_argument("--out", required=True, type=Path, help="results CSV to write")
    ap.add_argument(
        "--attnlab",
        default=DEFAULT_CLI,
        help="the attnlab CLI, for `attnlab model SCENARIO --format json` "
        "(default: $ATTNLAB_CLI, else attnlab on PATH)",
    )
    ap.add_argument(
        "--peers",
        help="comma-separated subset of: "
        + ", ".join(ALL_PEERS)
        + " (default: all; "
        + ", ".join(sorted(WINDOW_ONLY_PEERS))
        + " only in sliding-window scenarios)",
    )
    ap.add_argument(
        "--pass",
        dest="pass_",
        choices=["fwd", "bwd", "both"],
        default="fwd",
        help="time the forward, the backward alone, or both (default: fwd)",
    )
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--dtypes", help="comma-separated bf16, fp16 (default: each scenario's own)")
    ap.add_argument("--head-dims", help="comma-separated head dims (default: each scenario's own)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--budget",
        type=float,
        default=3.0,
        help=f"seconds of timed calls per peer; slower peers get fewer reps (at least {MIN_REPS})",
    )
    args = ap.parse_args()
    if args.reps < 1 or args.warmup < 0:
        fail("--reps must be at least 1 and --warmup at least 0")
    names = [n for n in args.peers.split(",") if n] if args.peers is not None else None
    args.passes = ["fwd", "bwd"] if args.pass_ == "both" else [args.pass_]
    if args.dtypes and any(d not in ("bf16", "fp16") for d in args.dtypes.split(",")):
        fail(f"--dtypes: expected bf16 or fp16, got {args.dtypes!r}")
    if args.head_dims and not all(d.isdigit() and int(d) > 0 for d in args.head_dims.split(",")):
        fail(f"--head-dims: expected positive integers, got {args.head_dims!r}")
    for n in names or []:
        if n not in ALL_PEERS:
            fail(f"--peers: unknown peer {n!r}; expected some of {', '.join(ALL_PEERS)}")
    try:  # before any GPU work: a path that cannot be written never costs a run
        check_replaceable_file(args.out, "results CSV")
    except WriteRefused as e:
        fail(str(e))
    torch = import_torch("torch_peers")
    if not torch.cuda.is_available():
        fail("no CUDA GPU visible to PyTorch", 3)
    scenarios = [
        dataclasses.replace(s, dtype=dtype, head_dim=dim)
        for s in (resolve_scenario(args.attnlab, name) for name in args.scenarios)
        for dtype in (args.dtypes.split(",") if args.dtypes else [s.dtype])
        for dim in ([int(d) for d in args.head_dims.split(",")] if args.head_dims else [s.head_dim])
    ]
    env = read_environment(torch)
    print(f"# {env.gpu}, driver {env.driver}, CUDA {env.cuda_version}, {env.version}", flush=True)
    rows = []
    # The file is rewritten after each scenario: a run cut short keeps what it measured.
    for i, s in enumerate(scenarios):
        try:
            rows += run_scenario(torch, s, env, names, args)
        except ContextLost as e:
            rows += e.rows
            save_rows(args.out, scenarios[0].columns, rows)
            rest = [x.name for x in scenarios[i:]]
            print(
                f"# wrote {len(rows)} rows to {args.out}; stopped: {e} left the CUDA context unusable, so "
                f"the rest of {s.name} and the scenarios after it did not run (run them in a new process): "
                f"{' '.join(rest)}",
                flush=True,
            )
            sys.exit(1)
        save_rows(args.out, scenarios[0].columns, rows)
        torch.cuda.empty_cache()
    print(f"# wrote {len(rows)} rows to {args.out}")


if __name__ == "__main__":
    main()
