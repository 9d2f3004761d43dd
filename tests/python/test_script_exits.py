"""The measuring commands' doors, without torch or a GPU: a bad output path, a bad flag, a missing
PyTorch and a CLI that answers no JSON each end in one printable line and the project's exit code
(2: bad input, 3: no PyTorch or GPU), before any GPU work, never in a traceback."""

import contextlib
import importlib.util
import io
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from attnlab.scenario import scenario_json
from attnlab.step import command as step

REPO = Path(__file__).resolve().parents[2]
HAS_TORCH = importlib.util.find_spec("torch") is not None


def run(module: str, *args: str) -> subprocess.CompletedProcess:
    """`python -m MODULE ARGS...` from the repository's root, as the device scripts run it."""
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, cwd=REPO)


class ScriptExits(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.dir = Path(self.folder.name)

    def tearDown(self):
        self.folder.cleanup()

    def assert_one_line(self, done: subprocess.CompletedProcess, code: int, says: str):
        self.assertEqual(done.returncode, code, done.stderr)
        self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
        self.assertNotIn("Traceback", done.stderr)
        self.assertIn(says, done.stderr)

    def commands(self, out: str):
        return {
            "attnlab.step": ["nanochat-d24", "--layout", "varlen", "--backend", "fa2", "--out", out],
            "attnlab.step.gemms": ["nanochat-d24", "--out", out],
            "attnlab.peers": ["uniform-64x512", "--out", out],
        }

    def test_an_output_path_that_cannot_be_written_is_refused_before_any_gpu_work(self):
        (self.dir / "folder").mkdir()
        for module, args in self.commands(str(self.dir / "folder")).items():
            with self.subTest(module=module):
                self.assert_one_line(run(module, *args), 2, "folder: cannot write the")
        self.assert_one_line(
            run("attnlab.step", "nanochat-d24", "--layout", "varlen", "--backend", "fa2", "--out",
                str(self.dir / "ok.csv"), "--parts-out", str(self.dir / "folder")),
            2,
            "folder: cannot write the results CSV (it is a folder)",
        )

    def test_negative_counts_are_one_line(self):
        self.assert_one_line(
            run("attnlab.step", "nanochat-d24", "--layout", "varlen", "--backend", "fa2", "--out",
                str(self.dir / "ok.csv"), "--max-num-docs", "-1"),
            2,
            "--max-num-docs at least 0",
        )

    def test_the_sharded_step_needs_muon(self):
        self.assert_one_line(
            run("attnlab.step", "nanochat-d24", "--layout", "varlen", "--backend", "fa2", "--out",
                str(self.dir / "ok.csv"), "--gradient-sync", "sharded"),
            2,
            "--gradient-sync sharded is nanochat's optimizer step: it needs --optimizer muon",
        )
        self.assertFalse((self.dir / "ok.csv").exists())

    def test_the_gpu_lock_is_refused_under_torchrun(self):
        args = [sys.executable, "-m", "attnlab.step", "nanochat-d24", "--layout", "varlen", "--backend", "fa2",
                "--out", str(self.dir / "ok.csv")]
        env = {**os.environ, "ATTNLAB_GPU_LOCK": str(self.dir / "lock"), "WORLD_SIZE": "2"}
        done = subprocess.run(args, capture_output=True, text=True, cwd=REPO, env=env)
        self.assert_one_line(done, 2, "ATTNLAB_GPU_LOCK is for one-GPU runs")
        self.assertFalse((self.dir / "ok.csv").exists())

    @unittest.skipIf(HAS_TORCH, "PyTorch is installed here")
    def test_without_pytorch_each_command_says_so_in_one_line(self):
        commands = self.commands(str(self.dir / "ok.csv"))
        commands["attnlab.peers.ceilings"] = []
        for module, args in commands.items():
            with self.subTest(module=module):
                self.assert_one_line(run(module, *args), 3, "PyTorch is not installed here")
        self.assertFalse((self.dir / "ok.csv").exists())

    def test_max_num_docs_below_the_batchs_sequences_is_one_line(self):
        with self.assertRaises(SystemExit) as caught, contextlib.redirect_stderr(io.StringIO()) as err:
            step.static_cu_seqlens([3, 4, 5], 2)
        self.assertEqual(caught.exception.code, 2)
        self.assertEqual(err.getvalue(), "step: --max-num-docs: max_num_docs 2 is below the batch's 3 sequences\n")
        self.assertEqual(step.static_cu_seqlens([3, 4], 0), [0, 3, 7])
        self.assertEqual(step.static_cu_seqlens([3, 4], 3), [0, 3, 7, 7])

    def test_a_cli_that_answers_no_json_is_one_line(self):
        for cli in ("echo", "true"):
            with self.subTest(cli=cli), self.assertRaises(SystemExit) as caught:
                with contextlib.redirect_stderr(io.StringIO()) as err:
                    scenario_json(cli, "nanochat-d24", "step")
            self.assertEqual(caught.exception.code, 2)
            self.assertIn("--format json printed no JSON", err.getvalue())
            self.assertEqual(err.getvalue().count("\n"), 1)


if __name__ == "__main__":
    unittest.main()
