"""One training micro-batch of a scenario's documents, laid out two ways: plain Python, no torch.

The documents come from the scenario's JSON (attnlab/scenario.py); tokens are drawn
from a seeded generator, the same canonical tokens for both layouts:
  - varlen: the documents concatenated (the canonical order), attention causal inside
    each document (cu_seqlens at document starts), rotary positions counted from each
    document's start;
  - packed: the scenario's packed rows (rows of row_len, padding after a short last row),
    attention causal over each whole row (cu_seqlens at row starts: earlier documents of
    the row are seen), rotary positions counted from each row's start.
A token's target is the next token of its document; a document's last token and padding
have none (IGNORE), so both layouts train on the same (token, target) pairs.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from attnlab.scenario import cu_seqlens, packed_sources

IGNORE = -1  # the loss's ignore_index
LAYOUTS = ("packed", "varlen")


@dataclass
class LayoutBatch:
    layout: str  # "packed" or "varlen"
    tokens: list[int]  # input token at each buffer position (padding: token 0)
    targets: list[int]  # the target at each position, IGNORE where there is none
    positions: list[int]  # rotary position of each buffer position
    sequence_lengths: list[int]  # the attention's sequences: documents, or rows
    max_seqlen: int  # the static longest sequence the attention is told (max_seq_len)

    @property
    def cu_seqlens(self) -> list[int]:
        return cu_seqlens(self.sequence_lengths)


def document_tokens(doc_lengths: list[int], vocab: int, seed: int) -> list[list[int]]:
    """Each document's tokens, uniformly drawn from the vocabulary (the step's time does not depend on them)."""
    draw = random.Random(seed)
    return [[draw.randrange(vocab) for _ in range(n)] for n in doc_lengths]


def next_token_targets(docs: list[list[int]]) -> list[int]:
    """Canonical order: the next token of the same document, IGNORE after each document's last."""
    targets = []
    for d in docs:
        targets += d[1:] + [IGNORE]
    return targets


def padded_cu_seqlens(lengths: list[int], max_num_docs: int) -> list[int]:
    """cu_seqlens of a fixed length max_num_docs + 1, as a compiled loop with static shapes holds it:
    the sequences, then empty ones at the end (their start repeats the total)."""
    if max_num_docs < len(lengths):
        raise ValueError(f"max_num_docs {max_num_docs} is below the batch's {len(lengths)} sequences")
    starts = cu_seqlens(lengths)
    return starts + [starts[-1]] * (max_num_docs - len(lengths))


def layout_batch(scenario: dict, layout: str, vocab: int, seed: int) -> LayoutBatch:
    """The scenario's documents (scenario JSON) as one layout of the micro-batch."""
    lengths, row_len = scenario["doc_lengths"], scenario["row_len"]
    docs = document_tokens(lengths, vocab, seed)
    canonical = [t for d in docs for t in d]
    targets = next_token_targets(docs)
    if layout == "varlen":
        positions = [i for n in lengths for i in range(n)]
        return LayoutBatch("varlen", canonical, targets, positions, list(lengths), max(max(lengths), row_len))
    if layout != "packed":
        raise ValueError(f"layout: expected one of {', '.join(LAYOUTS)}, got {layout!r}")
    source = packed_sources(scenario["packed_rows"], row_len)
    rows = len(source) // row_len
    return LayoutBatch(
        "packed",
        [canonical[t] if t >= 0 else 0 for t in source],
        [targets[t] if t >= 0 else IGNORE for t in source],
        [i for _ in range(rows) for i in range(row_len)],
        [row_len] * rows,
        row_len,
    )


def rank_seed(seed: int, rank: int) -> int:
    """Each data-parallel rank draws its own micro-batch of the scenario's documents."""
    return seed * 1_000_003 + rank
