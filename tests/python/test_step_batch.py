"""attnlab/step/batch.py: the micro-batch as packed rows and as varlen documents, without torch."""

import os
import unittest

from attnlab.scenario import cu_seqlens, packed_sources, scenario_json
from attnlab.step.batch import IGNORE, document_tokens, layout_batch, next_token_targets, padded_cu_seqlens

# Three documents of 3, 2 and 4 tokens concatenated into rows of 4 (the last row padded),
# as `attnlab model --format json` writes the runs of each packed row.
SMALL = {"name": "small", "doc_lengths": [3, 2, 4], "row_len": 4, "packed_rows": [[[0, 4]], [[4, 4]], [[8, 1]]]}


def pairs(b):
    """The (token, target) pairs a layout trains on."""
    return sorted((t, y) for t, y in zip(b.tokens, b.targets) if y != IGNORE)


class WorkedExample(unittest.TestCase):
    def test_cu_seqlens_and_padding_to_a_static_count(self):
        self.assertEqual(cu_seqlens([3, 2, 4]), [0, 3, 5, 9])
        self.assertEqual(padded_cu_seqlens([3, 2], 4), [0, 3, 5, 5, 5])
        self.assertEqual(padded_cu_seqlens([3, 2], 2), [0, 3, 5])
        with self.assertRaisesRegex(ValueError, "below the batch's 2 sequences"):
            padded_cu_seqlens([3, 2], 1)

    def test_packed_sources_follow_the_runs_and_pad_the_last_row(self):
        self.assertEqual(packed_sources(SMALL["packed_rows"], 4), [0, 1, 2, 3, 4, 5, 6, 7, 8, -1, -1, -1])
        with self.assertRaisesRegex(ValueError, "more than row_len 2"):
            packed_sources([[[0, 3]]], 2)

    def test_targets_stop_at_each_document_end(self):
        self.assertEqual(next_token_targets([[5, 6, 7], [8, 9]]), [6, 7, IGNORE, 9, IGNORE])

    def test_varlen_is_the_documents_in_order(self):
        b = layout_batch(SMALL, "varlen", vocab=50, seed=3)
        docs = document_tokens([3, 2, 4], 50, 3)
        self.assertEqual(b.tokens, docs[0] + docs[1] + docs[2])
        self.assertEqual(b.positions, [0, 1, 2, 0, 1, 0, 1, 2, 3])
        self.assertEqual(b.sequence_lengths, [3, 2, 4])
        self.assertEqual(b.cu_seqlens, [0, 3, 5, 9])
        self.assertEqual(b.max_seqlen, 4)

    def test_packed_rows_hold_the_same_pairs_with_row_positions(self):
        packed, varlen = (layout_batch(SMALL, layout, vocab=50, seed=3) for layout in ("packed", "varlen"))
        self.assertEqual(packed.sequence_lengths, [4, 4, 4])
        self.assertEqual(packed.positions, [0, 1, 2, 3] * 3)
        self.assertEqual(packed.tokens[:9], varlen.tokens)
        self.assertEqual(packed.tokens[9:], [0, 0, 0])
        self.assertEqual(packed.targets[9:], [IGNORE] * 3)
        self.assertEqual(pairs(packed), pairs(varlen))

    def test_unknown_layout_is_refused(self):
        with self.assertRaisesRegex(ValueError, "layout: expected one of packed, varlen"):
            layout_batch(SMALL, "padded", vocab=50, seed=3)


class ShippedScenarios(unittest.TestCase):
    """The d24 scenarios through the CLI (tests/CMakeLists.txt sets ATTNLAB_CLI)."""

    def scenario(self, name):
        cli = os.environ.get("ATTNLAB_CLI")
        self.assertTrue(cli, "set ATTNLAB_CLI to the attnlab binary")
        return scenario_json(cli, name, "test_train_batch")

    def test_both_layouts_train_on_the_same_tokens(self):
        for name in ("nanochat-d24", "nanochat-d24-web-mix", "nanochat-d24-no-window"):
            with self.subTest(name):
                s = self.scenario(name)
                vocab = s["model"]["vocab"]
                packed, varlen = (layout_batch(s, layout, vocab, seed=1) for layout in ("packed", "varlen"))
                self.assertEqual(len(varlen.tokens), sum(s["doc_lengths"]))
                self.assertEqual(len(packed.tokens), len(s["packed_rows"]) * s["row_len"])
                self.assertEqual(pairs(packed), pairs(varlen))
                self.assertEqual(sum(packed.sequence_lengths), len(packed.tokens))

    def test_each_layer_window_follows_the_pattern_and_the_last_layer_is_long(self):
        for name in ("nanochat-d24", "nanochat-d24-no-window"):
            with self.subTest(name):
                m = self.scenario(name)["model"]
                pattern, last = m["window_pattern"], m["layers"] - 1
                expected = [
                    m["short_window"] if pattern[i % len(pattern)] == "S" and i != last else -1
                    for i in range(m["layers"])
                ]
                self.assertEqual(m["layer_windows"], expected)
                self.assertEqual(m["layer_windows"][last], -1)

    def test_a_scenario_without_a_model_has_none(self):
        self.assertIsNone(self.scenario("uniform-64x512")["model"])


if __name__ == "__main__":
    unittest.main()
