"""The programs' one way out on bad input, and the one way a backend says it cannot run.

Plain Python: no torch needed.
"""

from __future__ import annotations

import sys


def printable(text: str) -> str:
    """Text made safe to print on one line, as core/io/input_error.hpp's printable(): control characters
    but tab, and bytes that are not UTF-8 (surrogate escapes in a path), become escapes."""
    return "".join(
        c if c.isprintable() or c == "\t" else c.encode("unicode_escape", "backslashreplace").decode() for c in text
    )


def fail(program: str, message: str, code: int = 2):
    """One printable line on stderr, then exit: 2 for bad input (the project's rule), 3 where
    PyTorch or a GPU is missing."""
    print(f"{program}: {printable(message)}", file=sys.stderr)
    sys.exit(code)


def import_torch(program: str):
    """PyTorch, or one line and exit 3 where it is not installed (as a missing GPU is)."""
    try:
        import torch
    except ImportError as e:
        fail(program, f"PyTorch is not installed here ({e}); this command needs it and a CUDA GPU", 3)
    return torch


class Unavailable(Exception):
    """A backend or peer that cannot run this scenario here; the message says why, and the
    program prints `LABEL: unavailable: REASON` and goes on."""
