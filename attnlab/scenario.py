"""A scenario as attnlab's own loader resolves it, for the Python side (bench/peers, train/, pytorch/).

`attnlab model SCENARIO --format json` prints the shape, the document lengths, the packed
rows, the useful scores per layout, the [model] table with each layer's window and the
results columns, so no script holds a second copy of the loader, the length generators,
the packing or the window pattern. Also the scripts' one-line exits: fail, and import_torch
where PyTorch is missing. Plain Python: no torch needed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from atomic_file import printable

# The CLI a script runs unless told otherwise: $ATTNLAB_CLI, else attnlab on the PATH.
DEFAULT_CLI = os.environ.get("ATTNLAB_CLI", "attnlab")


def fail(program: str, message: str, code: int = 2):
    """One printable line on stderr, then exit: the project's way with bad input."""
    print(f"{program}: {printable(message)}", file=sys.stderr)
    sys.exit(code)


def import_torch(program: str):
    """PyTorch, or one line and exit 3 where it is not installed (as a missing GPU is)."""
    try:
        import torch
    except ImportError as e:
        fail(program, f"PyTorch is not installed here ({e}); this script needs it and a CUDA GPU", 3)
    return torch


def scenario_json(attnlab: str, scenario: str, program: str) -> dict:
    """The scenario's JSON object; a CLI that cannot run, refuses the scenario or answers with
    anything but a JSON object ends the program with one line and exit code 2."""
    try:
        done = subprocess.run([attnlab, "model", scenario, "--format", "json"], capture_output=True, text=True)
    except OSError as e:
        fail(program, f"cannot run {attnlab}: {e.strerror} (build the attnlab target or pass --attnlab)")
    if done.returncode != 0:
        fail(program, done.stderr.strip() or f"{attnlab} model {scenario} --format json exited with {done.returncode}")
    try:
        answer = json.loads(done.stdout)
    except ValueError as e:
        fail(program, f"{attnlab} model {scenario} --format json printed no JSON ({e}); is {attnlab} attnlab?")
    if not isinstance(answer, dict):
        fail(program, f"{attnlab} model {scenario} --format json printed JSON that is no object; is {attnlab} attnlab?")
    return answer


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
