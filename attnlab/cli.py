"""The attnlab CLI (the C++ side) run from Python: the one place its failures become one line.

Everything the C++ side defines (a scenario's documents and packed rows, the cost model, the
primary run of a repeated case, the peer families, the floors) reaches Python through the
CLI's output, never through a second implementation. Plain Python: no torch needed.
"""

from __future__ import annotations

import json
import os
import subprocess

from attnlab.exits import fail

# The CLI a command runs unless told otherwise (--attnlab): $ATTNLAB_CLI, else attnlab on the PATH.
DEFAULT_CLI = os.environ.get("ATTNLAB_CLI", "attnlab")


def run_cli(attnlab: str, args: list[str], program: str) -> str:
    """What `attnlab ARGS...` prints; a CLI that cannot run or exits non-zero ends `program`
    with one line (the CLI's own, where it printed one) and exit code 2."""
    command = " ".join([attnlab, *args])
    try:
        done = subprocess.run([attnlab, *args], capture_output=True, text=True)
    except OSError as e:
        fail(program, f"cannot run {attnlab}: {e.strerror} (build the attnlab target or pass --attnlab)")
    if done.returncode != 0:
        fail(program, done.stderr.strip() or f"{command} exited with {done.returncode}")
    return done.stdout


def cli_json(attnlab: str, args: list[str], program: str) -> dict:
    """The JSON object `attnlab ARGS...` prints; anything else ends `program` with one line."""
    command = " ".join([attnlab, *args])
    text = run_cli(attnlab, args, program)
    try:
        answer = json.loads(text)
    except ValueError as e:
        fail(program, f"{command} printed no JSON ({e}); is {attnlab} attnlab?")
    if not isinstance(answer, dict):
        fail(program, f"{command} printed JSON that is no object; is {attnlab} attnlab?")
    return answer
