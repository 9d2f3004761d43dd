"""attnlab/atomic_file.py: every Python writer follows the C++ writer's rule, without torch."""

import contextlib
import csv
import io
import os
import stat
import tempfile
import unittest
from pathlib import Path

from attnlab.atomic_file import (
    WriteRefused,
    append_rows,
    check_replaceable_file,
    refusal_exits,
    write_csv,
    write_text_atomically,
)


class AtomicFile(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.dir = Path(self.folder.name)

    def tearDown(self):
        self.folder.cleanup()

    def refusal(self, path: Path) -> str:
        with self.assertRaises(WriteRefused) as caught:
            write_text_atomically(path, "new\n", "results CSV")
        return str(caught.exception)

    def test_folders_symlinks_fifos_and_devices_are_refused_and_left_alone(self):
        (self.dir / "folder").mkdir()
        (self.dir / "target").write_text("old\n")
        (self.dir / "link").symlink_to(self.dir / "target")
        os.mkfifo(self.dir / "fifo")
        self.assertEqual(
            self.refusal(self.dir / "folder"), f"{self.dir}/folder: cannot write the results CSV (it is a folder)"
        )
        self.assertIn("it is a symbolic link, which would be replaced", self.refusal(self.dir / "link"))
        self.assertIn("it exists and is not a regular file (a device, FIFO or socket)", self.refusal(self.dir / "fifo"))
        self.assertEqual((self.dir / "target").read_text(), "old\n")
        self.assertTrue((self.dir / "link").is_symlink())
        self.assertTrue(stat.S_ISFIFO(os.lstat(self.dir / "fifo").st_mode))
        try:  # a device node made in a temp folder (never a real device), where this user may make one
            os.mknod(self.dir / "null", stat.S_IFCHR | 0o600, os.makedev(1, 3))
        except PermissionError:
            pass
        else:
            self.assertIn("not a regular file", self.refusal(self.dir / "null"))
            self.assertTrue(stat.S_ISCHR(os.lstat(self.dir / "null").st_mode))
        self.assertIn("(Not a directory)", self.refusal(self.dir / "target" / "under-a-file.csv"))
        made = {"fifo", "folder", "link", "target"} | ({"null"} if os.path.lexists(self.dir / "null") else set())
        self.assertEqual({p.name for p in self.dir.iterdir()}, made)  # and no temporary file beside them

    def test_the_replaced_files_permissions_without_setuid_setgid_and_sticky_bits(self):
        target = self.dir / "out.csv"
        target.write_text("old\n")
        os.chmod(target, 0o7750)
        write_text_atomically(target, "new\n", "results CSV")
        self.assertEqual(target.read_text(), "new\n")
        self.assertEqual(stat.S_IMODE(os.stat(target).st_mode), 0o750)

    def test_a_new_file_gets_the_umasks_mode_not_0600(self):
        umask = os.umask(0o022)
        try:
            write_csv(self.dir / "new" / "rows.csv", ["a", "b"], [{"a": 1}])
        finally:
            os.umask(umask)
        written = self.dir / "new" / "rows.csv"
        self.assertEqual(written.read_text(), "a,b\n1,\n")
        self.assertEqual(stat.S_IMODE(os.stat(written).st_mode), 0o644)
        self.assertEqual([p.name for p in written.parent.iterdir()], ["rows.csv"])

    def test_a_failed_write_leaves_the_target_and_no_temporary_file(self):
        target = self.dir / "out.csv"
        target.write_text("old\n")
        with self.assertRaises(AssertionError):
            write_csv(target, ["a"], [{"a": 1, "unknown": 2}])
        self.assertEqual(target.read_text(), "old\n")
        self.assertEqual([p.name for p in self.dir.iterdir()], ["out.csv"])

    def test_paths_in_messages_are_one_printable_line(self):
        odd = self.dir / "x\x1b[31m\n"
        odd.mkdir()
        with self.assertRaises(WriteRefused) as caught:
            check_replaceable_file(odd, "results CSV")
        message = str(caught.exception)
        self.assertNotIn("\x1b", message)
        self.assertNotIn("\n", message)
        self.assertIn("x\\x1b[31m\\n: cannot write the results CSV (it is a folder)", message)

    def test_append_rows_keeps_what_the_file_holds(self):
        path = self.dir / "rows.csv"
        append_rows(path, ["a", "b"], [{"a": 1}])
        append_rows(path, ["a", "b"], [{"a": 2, "b": "x,y"}])
        with open(path, newline="") as f:
            self.assertEqual(list(csv.DictReader(f)), [{"a": "1", "b": ""}, {"a": "2", "b": "x,y"}])


    def test_a_refusal_inside_refusal_exits_is_the_programs_one_line_and_exit_2(self):
        (self.dir / "folder").mkdir()
        with self.assertRaises(SystemExit) as caught, contextlib.redirect_stderr(io.StringIO()) as err:
            with refusal_exits("tables"):
                write_text_atomically(self.dir / "folder", "text", "Markdown file")
        self.assertEqual(caught.exception.code, 2)
        said = f"tables: {self.dir}/folder: cannot write the Markdown file (it is a folder)\n"
        self.assertEqual(err.getvalue(), said)


if __name__ == "__main__":
    unittest.main()
