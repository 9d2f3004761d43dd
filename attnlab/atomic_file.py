"""The one way attnlab's Python commands write a file, the C++ writer's rule (core/io/atomic_file.hpp):

- a target that exists and is not a regular file (a folder, a symbolic link, a device, a FIFO, a
  socket), or that the system will not look at (under a file, a symlink loop), is refused in one line,
  "PATH: cannot write the WHAT (why)"; commands call check_replaceable_file on their output paths
  right after reading their flags, before any GPU work, so a bad path never costs a run;
- the text goes to a fresh temporary file beside the target (created exclusively: nothing planted
  there is followed), flushed to disk, then renamed over it: a reader never sees half a file, and
  a failure or Ctrl-C leaves nothing behind;
- the file gets the replaced file's permissions without its setuid, setgid and sticky bits, or a
  new file's mode under the umask (not mkstemp's 0600).

Plain Python: no torch needed.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import stat
import tempfile
from pathlib import Path

from attnlab.exits import fail, printable


class WriteRefused(Exception):
    """A path that cannot be written: the message is one printable line naming it."""


@contextlib.contextmanager
def refusal_exits(program: str):
    """Inside it, a path that cannot be written ends `program` with its one line and exit 2
    (exits.fail), never a traceback or a lost measurement."""
    try:
        yield
    except WriteRefused as e:
        fail(program, str(e))


def _refused(path: Path, what: str, why: str) -> WriteRefused:
    return WriteRefused(f"{printable(str(path))}: cannot write the {what} ({why})")


def check_replaceable_file(path: Path, what: str) -> None:
    """Raises WriteRefused unless `path` is absent or a regular file."""
    path = Path(path)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as e:
        raise _refused(path, what, e.strerror) from None
    if mode is not None and not stat.S_ISREG(mode):
        if stat.S_ISDIR(mode):
            raise _refused(path, what, "it is a folder")
        if stat.S_ISLNK(mode):
            raise _refused(path, what, "it is a symbolic link, which would be replaced; name the file it points to")
        raise _refused(path, what, "it exists and is not a regular file (a device, FIFO or socket)")


def write_text_atomically(path: Path, text: str, what: str) -> None:
    """Writes `text` to `path` by the rule above; raises WriteRefused on any failure."""
    path = Path(path)
    check_replaceable_file(path, what)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if os.path.lexists(path):
            mode = os.lstat(path).st_mode & 0o777
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".")
    except OSError as e:
        raise _refused(path, what, e.strerror) from None
    try:
        with os.fdopen(fd, "w", newline="") as f:
            f.write(text)
            f.flush()
            os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException as e:
        os.unlink(temp)
        if isinstance(e, OSError):
            raise _refused(path, what, e.strerror) from None
        raise


def write_csv(path: Path, columns: list[str], rows: list[dict], what: str = "results CSV") -> None:
    """The header and rows (cells absent from a row left empty), written by the rule above."""
    for r in rows:
        unknown = set(r) - set(columns)
        if unknown:
            raise AssertionError(f"row has columns the results schema lacks: {sorted(unknown)}")
    text = io.StringIO()
    w = csv.DictWriter(text, fieldnames=columns, restval="", lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    write_text_atomically(path, text.getvalue(), what)


def append_rows(path: Path, columns: list[str], rows: list[dict], what: str = "results CSV") -> None:
    """Adds rows to a CSV, keeping the rows it holds: the whole file written again by the rule above."""
    path = Path(path)
    old = []
    if path.is_file():
        with open(path, newline="") as f:
            old = list(csv.DictReader(f))
    write_csv(path, columns, old + rows, what)
