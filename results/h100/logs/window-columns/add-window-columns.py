#!/usr/bin/env python3
"""Adds window_left and window_right to the shipped results files of results/h100/ (run once).

The rows were measured before results rows carried their window; each ran its scenario as the
scenario's file defines it, so its window is that file's (`attnlab model NAME --format json`:
window_left, window_right, -1 unbounded). Every other cell is kept byte for byte: each line gains
",window_left,window_right" (the header) or ",LEFT,RIGHT". logs/ keeps the files as measured.

usage: add-window-columns.py ATTNLAB_CLI [results/h100]
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path


def window_of(cli: str, scenario: str, known: dict) -> tuple[int, int]:
    if scenario not in known:
        done = subprocess.run([cli, "model", scenario, "--format", "json"], capture_output=True, text=True, check=True)
        s = json.loads(done.stdout)
        known[scenario] = (s["window_left"], s["window_right"])
    return known[scenario]


def main():
    cli = sys.argv[1]
    folder = Path(sys.argv[2] if len(sys.argv) > 2 else "results/h100")
    known = {}
    for path in sorted(folder.glob("*.csv")):
        lines = path.read_text().split("\n")
        header = next(csv.reader([lines[0]]))
        if "window_left" in header:
            continue
        column = header.index("scenario")
        out = [lines[0] + ",window_left,window_right"]
        for line in lines[1:]:
            if not line:
                out.append(line)
                continue
            left, right = window_of(cli, next(csv.reader([line]))[column], known)
            out.append(f"{line},{left},{right}")
        path.write_text("\n".join(out))
        print(f"{path}: {len(out) - 2} rows")


if __name__ == "__main__":
    main()
