"""A scenario as attnlab's own loader resolves it, for the Python side (the peers, the step, the operator's test).

`attnlab model SCENARIO --format json` prints the shape, the document lengths, the packed
rows, the useful scores per layout, the [model] table with each layer's window and the
results columns, so no command holds a second copy of the loader, the length generators,
the packing or the window pattern. Plain Python: no torch needed.
"""

from __future__ import annotations

from attnlab.cli import cli_json


def scenario_json(attnlab: str, scenario: str, program: str) -> dict:
    """The scenario's JSON object; a CLI that cannot run, refuses the scenario or answers with
    anything but a JSON object ends the program with one line and exit code 2."""
    return cli_json(attnlab, ["model", scenario, "--format", "json"], program)


def packed_sources(packed_rows: list[list[list[int]]], row_len: int) -> list[int]:
    """The packed layout's buffer as canonical token indices, row after row, -1 at padding.
    `packed_rows` is the JSON's runs of [canonical start, count] per row."""
    source = []
    for runs in packed_rows:
        row = [t for start, count in runs for t in range(start, start + count)]
        if len(row) > row_len:
            raise ValueError(f"a packed row holds {len(row)} tokens, more than row_len {row_len}")
        source += row + [-1] * (row_len - len(row))
    return source


def cu_seqlens(lengths: list[int]) -> list[int]:
    """Start of each sequence in one buffer, then the total: FlashAttention's cu_seqlens."""
    starts = [0]
    for n in lengths:
        starts.append(starts[-1] + n)
    return starts
