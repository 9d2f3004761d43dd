"""The package as a whole, without torch: each command answers --help under its `python -m` name,
every module that says it is plain Python imports without torch, and no Python file of the
repository edits sys.path (the package is imported, never found by path)."""

import importlib
import importlib.util
import pkgutil
import re
import subprocess
import sys
import tomllib
import unittest
from pathlib import Path

import attnlab

REPO = Path(__file__).resolve().parents[2]
HAS_TORCH = importlib.util.find_spec("torch") is not None
COMMANDS = ["attnlab.step", "attnlab.step.gemms", "attnlab.peers", "attnlab.peers.ceilings", "attnlab.ncu_bytes",
            "attnlab.tables"]
# The model, its optimizer and its attention backends are PyTorch through and through.
NEED_TORCH = {"attnlab.step.attention", "attnlab.step.model", "attnlab.step.optimizer", "attnlab.step.sharded"}


def modules() -> list[str]:
    found = [m.name for m in pkgutil.walk_packages(attnlab.__path__, "attnlab.")]
    return sorted(m for m in found if not m.endswith(".__main__"))  # __main__ runs its command


class Package(unittest.TestCase):
    def test_each_command_answers_help_under_its_python_m_name(self):
        for module in COMMANDS:
            with self.subTest(module=module):
                done = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True,
                                      cwd=REPO)
                self.assertEqual(done.returncode, 0, done.stderr)
                self.assertTrue(done.stdout.startswith(f"usage: python -m {module} "), done.stdout[:80])

    @unittest.skipIf(HAS_TORCH, "PyTorch is installed here")
    def test_every_module_but_the_models_imports_without_torch(self):
        failed = set()
        for module in modules():
            try:
                importlib.import_module(module)
            except ModuleNotFoundError as e:
                self.assertEqual(e.name, "torch", module)
                failed.add(module)
        self.assertEqual(failed, NEED_TORCH)
        self.assertNotIn("torch", sys.modules)

    def test_no_python_file_edits_sys_path(self):
        edits = re.compile(r"sys\.path\.(insert|append|extend)|sys\.path\s*[+]?=")
        files = [p for p in REPO.rglob("*.py") if not {"node_modules", ".git"} & set(p.parts)
                 and not any(part.startswith("build") for part in p.relative_to(REPO).parts)]
        self.assertIn(REPO / "attnlab" / "tables.py", files)
        self.assertEqual([str(p.relative_to(REPO)) for p in files if edits.search(p.read_text())], [])

    def test_pyproject_installs_the_package_and_no_torch(self):
        project = tomllib.loads((REPO / "pyproject.toml").read_text())
        self.assertEqual(project["project"]["name"], "attnlab")
        self.assertEqual(project["project"]["dependencies"], [])
        self.assertEqual(project["tool"]["setuptools"]["packages"]["find"]["include"], ["attnlab", "attnlab.*"])


if __name__ == "__main__":
    unittest.main()
