#!/usr/bin/env python3
"""GPU tests of attnlab's PyTorch operator (attnlab/ops.py), then its timing beside `attnlab run`.

    python3 pytorch/test_operator.py --build build-torch [--time SCENARIO ... --attnlab CLI --out CSV]

The attnlab package must be importable: installed (`pip install -e .`), or the repository's
root on PYTHONPATH, as CTest and the device scripts run it.

Tests (unittest): outputs and gradients of q, k, v against PyTorch's varlen_attn
(FlashAttention-2) and an fp32 reference, on random inputs with awkward lengths, varlen
documents and packed rows, with and without a window, grouped-query heads, bf16 and fp16,
head dims 64 and 128, an explicit scale; the same under torch.compile(fullgraph=True); on side
streams (two at once); bad inputs refused (shapes, dtypes, scale, lse's device).
Our error against the fp32 reference must be at most twice FA2's, or the dtype's epsilon.

--time: for each scenario, `attnlab run SCENARIO --implementations varlen --pass both`
and the operator on the same problem (the scenario's documents, heads, head dim, dtype and
window, one input set, CUDA events, the same warm-up and repetitions); rows in the results
schema (source torch-attnlab-op) go to --out, and the script fails if the operator's median
is more than 5% above the CLI's. Without a GPU or PyTorch the script says so and exits 77, the
skip code CTest reads (`Python.Operator`).
"""

from __future__ import annotations

import argparse
import csv
import math
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from attnlab.atomic_file import check_replaceable_file, refusal_exits, write_csv
from attnlab.cli import DEFAULT_CLI
from attnlab.scenario import cu_seqlens, scenario_json
from attnlab.timing import summary, time_calls

SKIPPED = 77  # nothing to test here: CTest's SKIP_RETURN_CODE
SLOWER_ALLOWED = 1.05  # the operator may take at most 5% more than `attnlab run` (issue 24)
ARGS = argparse.Namespace()

try:
    import torch
except ImportError:
    torch = None


def gpu_ready() -> bool:
    return torch is not None and torch.cuda.is_available()


def reference(q, k, v, lengths, window_left, scale=None):
    """fp32 causal attention per sequence, each query at most window_left keys back (-1: all);
    scale None: 1/sqrt(head_dim)."""
    group = q.shape[1] // k.shape[1]
    outs, start = [], 0
    for n in lengths:
        qs, ks, vs = (x[start : start + n].float().transpose(0, 1) for x in (q, k, v))
        ks, vs = ks.repeat_interleave(group, 0), vs.repeat_interleave(group, 0)
        s = (qs @ ks.transpose(1, 2)) * (scale if scale is not None else 1 / math.sqrt(q.shape[2]))
        i = torch.arange(n, device=q.device)
        back = i[:, None] - i[None, :]
        keep = back >= 0
        if window_left >= 0:
            keep &= back <= window_left
        outs.append((s.masked_fill(~keep, float("-inf")).softmax(-1) @ vs).transpose(0, 1))
        start += n
    return torch.cat(outs)


def fa2(q, k, v, lengths, window_left, scale=None):
    """varlen_attn with K and V repeated to every query head (it takes no grouped K, V everywhere)."""
    from torch.nn.attention.varlen import varlen_attn

    group = q.shape[1] // k.shape[1]
    cu = torch.tensor(cu_seqlens(lengths), dtype=torch.int32, device=q.device)
    longest = max(lengths)
    return varlen_attn(
        q,
        k.repeat_interleave(group, 1),
        v.repeat_interleave(group, 1),
        cu,
        cu,
        longest,
        longest,
        scale=scale,
        window_size=(window_left, 0),
    )


def outputs_and_gradients(fn, q, k, v, grad_out, leaf_dtype=None):
    """fn's output and the gradients of <out, grad_out> in q, k and v, all in fp32; the inputs
    are leaves of leaf_dtype (default: their own), so an fp32 reference keeps fp32 gradients."""
    leaves = [x.detach().to(leaf_dtype or x.dtype).clone().requires_grad_() for x in (q, k, v)]
    out = fn(*leaves)
    out.backward(grad_out.to(out.dtype))
    return [out.detach().float()] + [x.grad.float() for x in leaves]


def rel_l2(a, b) -> float:
    return float(torch.linalg.vector_norm(a - b) / torch.linalg.vector_norm(b).clamp_min(1e-30))


class OperatorTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        from attnlab import ops

        cls.ops = ops
        ops.load(ARGS.build)

    def random(self, tokens, heads, kv_heads, dim, dtype, seed):
        g = torch.Generator(device="cuda").manual_seed(seed)

        def make(h):
            return torch.randn((tokens, h, dim), generator=g, device="cuda", dtype=torch.float32).to(dtype)

        return make(heads), make(kv_heads), make(kv_heads), make(heads)

    def check(self, lengths, heads, kv_heads, dim, dtype, window_left, layout, scale=None):
        label = (
            f"{len(lengths)} sequences {lengths[:6]}, {heads}/{kv_heads} heads, D {dim}, {dtype}, window {window_left}"
            f", scale {scale}"
        )
        q, k, v, grad_out = self.random(sum(lengths), heads, kv_heads, dim, dtype, seed=len(lengths) + dim + heads)
        ours = outputs_and_gradients(lambda a, b, c: self.ops.attention(a, b, c, layout, scale), q, k, v, grad_out)
        peer = outputs_and_gradients(lambda a, b, c: fa2(a, b, c, lengths, window_left, scale), q, k, v, grad_out)
        exact = outputs_and_gradients(
            lambda a, b, c: reference(a, b, c, lengths, window_left, scale), q, k, v, grad_out, torch.float32
        )
        eps = torch.finfo(dtype).eps
        for name, o, p, e in zip(("out", "dq", "dk", "dv"), ours, peer, exact):
            ours_err, peer_err = rel_l2(o, e), rel_l2(p, e)
            self.assertTrue(math.isfinite(ours_err), f"{label}: {name} not finite")
            self.assertLessEqual(
                ours_err,
                max(2 * peer_err, eps),
                f"{label}: {name} rel L2 {ours_err:.3g} against fp32, FA2's {peer_err:.3g}",
            )

    def test_varlen_documents_against_varlen_attn(self):
        awkward = [1, 63, 65, 511, 513, 300, 17]
        for dtype in (torch.bfloat16, torch.float16):
            for dim in (64, 128):
                for window_left in (-1, 64):
                    for heads, kv_heads in ((4, 4), (8, 2)):
                        with self.subTest(dtype=dtype, dim=dim, window=window_left, heads=heads, kv=kv_heads):
                            layout = self.ops.varlen_layout(awkward, window_left)
                            self.check(awkward, heads, kv_heads, dim, dtype, window_left, layout)

    def test_packed_rows_against_varlen_attn_at_row_boundaries(self):
        rows, row_len = 4, 1024
        for window_left in (-1, 512):
            with self.subTest(window=window_left):
                layout = self.ops.packed_rows_layout(rows, row_len, window_left)
                self.check([row_len] * rows, 12, 12, 128, torch.bfloat16, window_left, layout)

    def test_layout_from_cu_seqlens_is_the_same_layout(self):
        lengths = [5, 700, 90]
        cu = torch.tensor(cu_seqlens(lengths), dtype=torch.int32, device="cuda")
        layout = self.ops.layout_from_cu_seqlens(cu, 128)
        self.assertEqual(layout.positions, sum(lengths))
        self.check(lengths, 4, 4, 128, torch.bfloat16, 128, layout)

    def test_an_explicit_scale_against_varlen_attn(self):
        lengths = [65, 300, 1]
        self.check(lengths, 4, 2, 64, torch.bfloat16, -1, self.ops.varlen_layout(lengths), scale=0.3)

    def test_runs_on_the_current_stream(self):
        """On a side stream held back by a sleep, q and grad_out are written there just before the
        calls: a kernel on any other stream would read them unwritten. Two such streams at once
        share one layout (each call has its own work counter)."""
        lengths = [300, 1, 513, 1100]
        layout = self.ops.varlen_layout(lengths, 256)
        q, k, v, grad_out = self.random(sum(lengths), 8, 4, 128, torch.bfloat16, seed=9)
        expected = outputs_and_gradients(lambda a, b, c: self.ops.attention(a, b, c, layout), q, k, v, grad_out)
        streams = [torch.cuda.Stream(), torch.cuda.Stream()]
        torch.cuda.synchronize()
        results = []
        for stream in streams:
            with torch.cuda.stream(stream):
                torch.cuda._sleep(200_000_000)
                q_late, grad_late = q * 1, grad_out * 1  # written on the side stream after the sleep
                leaves = [x.detach().clone().requires_grad_() for x in (q_late, k, v)]
                out = self.ops.attention(*leaves, layout)
                out.backward(grad_late)
                results.append([out.detach().float()] + [x.grad.float() for x in leaves])
        torch.cuda.synchronize()
        for got in results:
            for name, a, b in zip(("out", "dq", "dk", "dv"), got, expected):
                # dQ is summed by atomics, in any order: equal up to the dtype's rounding.
                self.assertLessEqual(rel_l2(a, b), torch.finfo(torch.bfloat16).eps, name)

    def test_compiled_fullgraph_equals_eager(self):
        lengths = [300, 1000, 748]
        layout = self.ops.varlen_layout(lengths, 256)
        q, k, v, grad_out = self.random(sum(lengths), 8, 4, 128, torch.bfloat16, seed=7)

        def fn(a, b, c):
            return self.ops.attention(a, b, c, layout)

        eager = outputs_and_gradients(fn, q, k, v, grad_out)
        compiled = outputs_and_gradients(torch.compile(fn, fullgraph=True, dynamic=False), q, k, v, grad_out)
        for name, a, b in zip(("out", "dq", "dk", "dv"), compiled, eager):
            # dQ is summed by atomics in any order: equal up to the dtype's rounding.
            self.assertLessEqual(rel_l2(a, b), torch.finfo(torch.bfloat16).eps, name)

    def test_refuses_bad_inputs_with_a_message(self):
        layout = self.ops.varlen_layout([128, 64], -1)
        q, k, v, _ = self.random(192, 4, 4, 128, torch.bfloat16, seed=3)
        cases = [
            ((q[:100], k[:100], v[:100]), "must be (192, 4, 128)"),
            ((q.float(), k, v), "bfloat16 or float16"),
            ((q, k.half(), v), "must be BFloat16"),
            ((q.transpose(0, 1).contiguous().transpose(0, 1), k, v), "contiguous"),
            ((q, k[:, :3], v[:, :3]), "kv_heads"),
        ]
        for args, message in cases:
            with self.subTest(message=message):
                with self.assertRaisesRegex(RuntimeError, re.escape(message)):
                    self.ops.attention(*args, layout)
        with self.assertRaisesRegex(RuntimeError, "no layout"):
            torch.ops.attnlab.flash_forward(q, k, v, 10**6, None)

    def test_refuses_a_scale_that_is_not_positive_and_finite(self):
        layout = self.ops.varlen_layout([128, 64], -1)
        q, k, v, _ = self.random(192, 4, 4, 128, torch.bfloat16, seed=3)
        # 1e39 is past float32; 3e38 is not, but scale * log2(e) is; 1e-50 is 0 in float32.
        for scale in (-1.0, 0.0, -0.0, math.nan, math.inf, -math.inf, 1e39, 3e38, 1e-50):
            with self.subTest(scale=scale):
                with self.assertRaisesRegex(RuntimeError, "scale: expected a softmax scale above 0 and at most "):
                    self.ops.attention(q, k, v, layout, scale)

    def test_backward_refuses_an_lse_on_another_device(self):
        layout = self.ops.varlen_layout([128, 64], -1)
        q, k, v, grad_out = self.random(192, 4, 4, 128, torch.bfloat16, seed=3)
        out, lse = torch.ops.attnlab.flash_forward(q, k, v, layout.handle, None)
        with self.assertRaisesRegex(RuntimeError, re.escape(f"lse must be on cuda:{q.device.index}")):
            torch.ops.attnlab.flash_backward(grad_out, q, k, v, out, lse.cpu(), layout.handle, None)


# ---------------------------------------------------------------- timing beside `attnlab run`


def cli_run(scenario: str, warmup: int, reps: int) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run.csv"
        done = subprocess.run(
            [
                ARGS.attnlab,
                "run",
                scenario,
                "--implementations",
                "varlen",
                "--pass",
                "both",
                "--warmup",
                str(warmup),
                "--reps",
                str(reps),
                "--out",
                str(out),
            ],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise RuntimeError(f"attnlab run {scenario}: {done.stderr.strip() or done.returncode}")
        with open(out, newline="") as f:
            return list(csv.DictReader(f))


def time_beside_cli(scenario: str, warmup: int, reps: int) -> tuple[list[dict], list[str]]:
    """Rows for the operator's forward and backward on the scenario, and lines naming any
    pass that is more than SLOWER_ALLOWED times the CLI's median."""
    from attnlab import ops

    s = scenario_json(ARGS.attnlab, scenario, "test_operator")
    cli = {r["pass"]: r for r in cli_run(scenario, warmup, reps)}
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[s["dtype"]]
    layout = ops.varlen_layout(s["doc_lengths"], s["window_left"], cli["fwd"]["kernel"])
    g = torch.Generator(device="cuda").manual_seed(1)

    def make(h):
        return (torch.rand((layout.positions, h, s["head_dim"]), generator=g, device="cuda") * 2 - 1).to(dtype)

    q, k, v, grad_out = make(s["heads"]), make(s["kv_heads"]), make(s["kv_heads"]), make(s["heads"])
    out, lse = torch.ops.attnlab.flash_forward(q, k, v, layout.handle, None)
    calls = {
        "fwd": lambda: torch.ops.attnlab.flash_forward(q, k, v, layout.handle, None),
        "bwd": lambda: torch.ops.attnlab.flash_backward(grad_out, q, k, v, out, lse, layout.handle, None),
    }
    rows, slow = [], []
    for pass_, call in calls.items():
        median, low, high, _ = summary(time_calls(torch, call, warmup, reps))
        theirs = float(cli[pass_]["median_us"])
        print(
            f"{scenario} {pass_}: operator {median:.1f} us, attnlab run {theirs:.1f} us "
            f"({median / theirs:.3f}x), kernel {layout.kernel}",
            flush=True,
        )
        if median > SLOWER_ALLOWED * theirs:
            slow.append(
                f"{scenario} {pass_}: the operator's {median:.1f} us is more than {SLOWER_ALLOWED}x "
                f"attnlab run's {theirs:.1f} us"
            )
        row = {
            c: cli[pass_].get(c, "")
            for c in (
                "scenario",
                "implementation",
                "gpu",
                "dtype",
                "heads",
                "head_dim",
                "causal",
                "pass",
                "scores_computed",
                "scores_useful",
                "kv_heads",
                "tokens",
                "kernel",
                "tile",
                "driver",
                "cuda_version",
                "date",
            )
        }
        useful = float(cli[pass_]["useful_tflops"]) * theirs / median if cli[pass_].get("useful_tflops") else ""
        row.update(
            source="torch-attnlab-op",
            median_us=f"{median:.6g}",
            min_us=f"{low:.6g}",
            max_us=f"{high:.6g}",
            useful_tflops=f"{useful:.6g}" if useful != "" else "",
            reps=reps,
            commit=f"torch {torch.__version__}",
        )
        rows += [cli[pass_], row]
    return rows, slow


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], epilog=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--build", required=True, help="CMake build with PIC static libraries (see pytorch/README.md)")
    ap.add_argument("--time", nargs="*", default=[], metavar="SCENARIO", help="time these scenarios beside attnlab run")
    ap.add_argument("--attnlab", default=DEFAULT_CLI, help="the attnlab CLI (default: $ATTNLAB_CLI, else attnlab)")
    ap.add_argument("--out", type=Path, help="results CSV of the timing rows")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--reps", type=int, default=30)
    args, rest = ap.parse_known_args()
    if args.out:
        with refusal_exits("test_operator"):  # before any GPU work: a path that cannot be written never costs a run
            check_replaceable_file(args.out, "results CSV")
    ARGS.__dict__.update(vars(args))
    if not gpu_ready():
        print("test_operator: no CUDA GPU visible to PyTorch (or no PyTorch): nothing to test here")
        return SKIPPED
    result = unittest.main(argv=[sys.argv[0], *rest], exit=False).result
    if not result.wasSuccessful():
        return 1
    rows, slow = [], []
    for scenario in args.time:
        r, s = time_beside_cli(scenario, args.warmup, args.reps)
        rows += r
        slow += s
    if args.out and rows:
        with refusal_exits("test_operator"):
            write_csv(args.out, list(dict.fromkeys(c for r in rows for c in r)), rows)
    for line in slow:
        print(f"test_operator: {line}", file=sys.stderr)
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
