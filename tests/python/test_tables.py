"""attnlab/tables.py takes the peer families and the floors from the C++ side (`attnlab model
--format json`), never from a second reading of results/peer_families.csv or a second byte count."""

import os
import unittest
from pathlib import Path

from attnlab.tables import CppSide, Families, Run, floors

REPO = Path(__file__).resolve().parents[2]


def cli() -> str:
    path = os.environ.get("ATTNLAB_CLI")
    assert path, "set ATTNLAB_CLI to the attnlab binary (tests/CMakeLists.txt does)"
    return path


def varlen_run(scenario: str, median_us: float, default: bool = True) -> Run:
    ours = {"varlen": {"implementation": "varlen", "median_us": median_us, "source": "attnlab"}}
    run = Run((scenario, "bf16", "128"), ours, {}, {}, {}, {})
    run.is_default = default
    return run


class StandIn:
    """A CppSide that answers one floor for every scenario."""

    def __init__(self, floor: dict):
        self.floor = floor

    def scenario(self, scenario: str) -> dict:
        return {"ceilings": {"tflops": 500, "tbps": 2}, "floor": self.floor}


class TablesFromTheCppSide(unittest.TestCase):
    def test_families_are_the_cli_s_in_the_files_order(self):
        families = Families(CppSide(cli(), None).scenario("uniform-64x512")["families"])
        self.assertEqual(families.fa2_varlen, ("torch-varlen_attn", "torch-varlen_attn-kv-expanded"))
        self.assertEqual(families.fa2_of["packed"], ("torch-sdpa-flash-packed", "torch-varlen_attn-packed"))
        self.assertEqual(families.fa2_of["naive"], ("torch-eager-padded",), "no FA2 naive: PyTorch's eager")

    def test_without_families_no_source_is_singled_out(self):
        families = Families([])
        self.assertEqual(families.fa2_varlen, ())
        self.assertEqual(families.fa2_of, {"naive": (), "padded": (), "packed": (), "varlen": ()})

    def test_a_floor_row_is_the_cli_s_floor(self):
        text = floors([varlen_run("s", 300.0)], StandIn({"flops_us": 120.5, "bytes_us": 250.0, "us": 250.0}))
        self.assertIn("(500 TFLOP/s)", text)
        self.assertIn("(2 TB/s)", text)
        self.assertIn("| `s` | 300 | 120 | 250 | 1.20× |  |  |", text)

    def test_a_run_in_another_shape_gets_no_floor_of_the_scenarios_own(self):
        text = floors([varlen_run("s", 300.0, default=False)], StandIn({"flops_us": 1.0, "bytes_us": 2.0, "us": 2.0}))
        self.assertNotIn("`s`", text)

    def test_the_floor_at_the_shipped_ceilings_is_the_cli_s(self):
        side = CppSide(cli(), REPO / "results" / "h100" / "ceilings.toml")
        facts = side.scenario("uniform-64x512")
        self.assertEqual(facts["ceilings"], {"tflops": 756, "tbps": 3})
        floor = facts["floor"]
        self.assertEqual(floor["least_bytes"], 32768 * 128 * 2 * 2 * (16 + 16))  # Q, K, V read, O written
        self.assertEqual(floor["us"], max(floor["flops_us"], floor["bytes_us"]))
        self.assertIn(f"| `uniform-64x512` | 211 | 91.1 | 179 | {211 / floor['us']:.2f}× |",
                      floors([varlen_run("uniform-64x512", 211.0)], side))


if __name__ == "__main__":
    unittest.main()
