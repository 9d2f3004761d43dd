"""attnlab/step/rows.py: the step's and the GEMMs' results rows, without torch."""

import os
import unittest

from attnlab.scenario import scenario_json
from attnlab.step.parts import PART_NAMES
from attnlab.step.rows import GEMM_COLUMNS, PART_COLUMNS, STEP_COLUMNS, gemm_row, step_row

ENV = {
    "gpu": "a GPU",
    "driver": "1.0",
    "cuda_version": "13.0",
    "commit": "abc torch 2.11",
    "date": "2026-11-25T00:00:00Z",
}


def scenario():
    cli = os.environ.get("ATTNLAB_CLI")
    assert cli, "set ATTNLAB_CLI to the attnlab binary (tests/CMakeLists.txt does)"
    return scenario_json(cli, "nanochat-d24", "test_step_rows")


class StepRows(unittest.TestCase):
    def test_a_step_row_is_a_results_row_with_pass_step(self):
        s = scenario()
        parts = {p: float(i + 1) for i, p in enumerate(PART_NAMES)}
        times = [300.0, 100.0, 200.0]
        row = step_row(s, "varlen", "attnlab", "muon", 1, "after_backward", times, parts, "wgmma-sm90", 10.5, None, ENV)
        self.assertEqual((row["pass"], row["implementation"], row["source"]), ("step", "varlen", "torch-step-attnlab"))
        self.assertEqual((row["median_us"], row["min_us"], row["max_us"], row["reps"]), ("200", "100", "300", 3))
        self.assertEqual((row["heads"], row["head_dim"]), (s["model"]["heads"], s["model"]["head_dim"]))
        self.assertEqual(row["tokens"], sum(s["doc_lengths"]))
        self.assertEqual(row["optimizer"], "muon")
        self.assertEqual(row["gradient_sync"], "", "one GPU synchronizes nothing")
        self.assertEqual(row["step_kernels_us"], f"{sum(parts.values()):.6g}")
        one_gpu = set(STEP_COLUMNS) - {"step_communication_exposed_us"}  # nothing to communicate
        self.assertEqual(set(row) - set(s["results_columns"]), one_gpu)
        for column in ("useful_tflops", "scores_computed", "scores_useful", "rel_l2_error"):
            self.assertNotIn(column, row, "not measured by a step: left empty")

    def test_several_gpus_say_how_much_communication_was_exposed(self):
        parts = {p: 1.0 for p in PART_NAMES}
        row = step_row(scenario(), "varlen", "fa2", "adamw", 4, "during_backward", [5.0], parts, "", 1.0, 1234.5, ENV)
        self.assertEqual(row["step_communication_exposed_us"], "1234.5")
        self.assertEqual(row["gradient_sync"], "during_backward")
        one_gpu = step_row(scenario(), "varlen", "fa2", "adamw", 1, "after_backward", [5.0], parts, "", 1.0, 0.0, ENV)
        self.assertNotIn("step_communication_exposed_us", one_gpu)

    def test_without_a_profile_the_parts_stay_empty(self):
        row = step_row(scenario(), "packed", "fa2", "adamw", 8, "after_backward", [5.0], None, "", 1.0, None, ENV)
        self.assertEqual(row["gpus"], 8)
        self.assertFalse(set(PART_COLUMNS) & set(row))

    def test_unknown_backend_is_refused(self):
        with self.assertRaisesRegex(ValueError, "backend: expected one of fa2, cudnn, attnlab"):
            step_row(scenario(), "packed", "flex", "adamw", 1, "after_backward", [5.0], None, "", 1.0, None, ENV)

    def test_unknown_optimizer_is_refused(self):
        with self.assertRaisesRegex(ValueError, "optimizer: expected one of adamw, muon"):
            step_row(scenario(), "packed", "fa2", "sgd", 1, "after_backward", [5.0], None, "", 1.0, None, ENV)

    def test_unknown_gradient_sync_is_refused(self):
        with self.assertRaisesRegex(ValueError, "gradient_sync: expected one of after_backward, during_backward"):
            step_row(scenario(), "packed", "fa2", "adamw", 2, "overlapped", [5.0], None, "", 1.0, None, ENV)

    def test_gemm_row_prices_two_flops_per_multiply_add(self):
        row = gemm_row("nanochat-d24", "attn.c_q", "fwd", 4096, 1536, 1536, 24, [10.0, 20.0, 30.0], ENV)
        self.assertEqual(row["tflops"], f"{2 * 4096 * 1536 * 1536 / 20e-6 / 1e12:.6g}")
        self.assertEqual(set(row), set(GEMM_COLUMNS))


if __name__ == "__main__":
    unittest.main()
