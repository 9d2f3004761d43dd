"""attnlab/ops.py's choice of what to build the PyTorch extension from, without torch: the binding and
headers of the source tree a CMake build was configured from, and every attnlab library of that build."""

import os
import tempfile
import unittest
from pathlib import Path

from attnlab.ops import extension_inputs


class ExtensionInputs(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.dir = Path(self.folder.name)
        self.source, self.build = self.dir / "src", self.dir / "build"
        (self.source / "pytorch").mkdir(parents=True)
        (self.source / "pytorch" / "attnlab_torch.cpp").write_text("// the binding\n")
        (self.build / "kernels").mkdir(parents=True)
        (self.build / "core").mkdir()

    def tearDown(self):
        self.folder.cleanup()

    def configure(self, pic="BOOL=ON", source=None):
        (self.build / "CMakeCache.txt").write_text(
            f"CMAKE_POSITION_INDEPENDENT_CODE:{pic}\nCMAKE_HOME_DIRECTORY:INTERNAL={source or self.source}\n"
        )

    def libraries(self):
        (self.build / "kernels" / "libattnlab_kernels.a").write_bytes(b"kernels")
        (self.build / "core" / "libattnlab_core.a").write_bytes(b"core")
        (self.build / "core" / "libother.a").write_bytes(b"not ours")

    def test_the_binding_of_the_builds_source_tree_and_every_attnlab_library(self):
        self.configure()
        self.libraries()
        inputs = extension_inputs(self.build)
        self.assertEqual(inputs.source, self.source / "pytorch" / "attnlab_torch.cpp")
        self.assertEqual(inputs.include, self.source)
        self.assertEqual(
            inputs.archives,
            [str(self.build / "core" / "libattnlab_core.a"), str(self.build / "kernels" / "libattnlab_kernels.a")],
        )
        self.assertEqual(inputs.out, self.build / "torch-extension" / inputs.name)
        self.assertRegex(inputs.name, r"^attnlab_torch_[0-9a-f]{12}$")

    def test_a_rebuilt_library_names_a_fresh_extension(self):
        self.configure()
        self.libraries()
        before = extension_inputs(self.build).name
        self.assertEqual(extension_inputs(self.build).name, before)
        (self.build / "core" / "libattnlab_core.a").write_bytes(b"core, rebuilt")
        self.assertNotEqual(extension_inputs(self.build).name, before)

    def test_a_cache_entry_of_any_type_is_read(self):
        self.configure(pic="UNINITIALIZED=ON")
        self.libraries()
        self.assertEqual(extension_inputs(self.build).include, self.source)

    def test_builds_that_cannot_serve_are_refused_naming_what_they_lack(self):
        with self.assertRaisesRegex(RuntimeError, "not a CMake build of position-independent code"):
            extension_inputs(self.build)  # no CMakeCache.txt
        self.configure(pic="BOOL=OFF")
        with self.assertRaisesRegex(RuntimeError, "not a CMake build of position-independent code"):
            extension_inputs(self.build)
        self.configure(source=self.dir / "elsewhere")
        with self.assertRaisesRegex(RuntimeError, "has no attnlab_torch.cpp"):
            extension_inputs(self.build)
        self.configure()
        with self.assertRaisesRegex(RuntimeError, "no libattnlab_kernels.a; build the attnlab_kernels target first"):
            extension_inputs(os.fspath(self.build))


if __name__ == "__main__":
    unittest.main()
