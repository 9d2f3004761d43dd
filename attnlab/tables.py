"""Turns the CSVs of one device run (attnlab-bench rows, the PyTorch peers' rows, and,
where present, `attnlab run`'s rows for the error column) into the Markdown tables of
the README and results/h100/TABLE.md:

  1. the side-by-side summary: our varlen against FlashAttention-2's varlen and the
     best peer of each scenario, and, in a last column per kernel, the varlen time of
     another flash kernel of ours (`attnlab run --kernel` rows in the --run files);
  2. measured ratios against the model's: naive/varlen, padded/varlen, packed/varlen
     time (ours and FlashAttention-2's) beside the scores the model says each computes;
  3. every row of every scenario: time, useful TFLOP/s, ours against each peer;
  4. HBM bytes, model against ncu, for our rows;
  5. each scenario's floor (useful FLOPs at the measured GEMM ceiling, the least bytes at
     the measured copy bandwidth; --ceilings) beside our varlen time and cuDNN's;
  6. our flash kernels side by side on every scenario, layout and head dim (--kernels);
  7. the backward pass: the rows with pass = bwd of the --bench and --peers files, the
     gradients' error from the --run files' bwd rows.

Everything but the layout of the tables comes from the attnlab CLI (CppSide below): the
model's ratios from `attnlab model SCENARIO --format csv`; the peer families
(results/peer_families.csv as the C++ reads it) and each scenario's floor at the ceilings
from `attnlab model SCENARIO --format json --ceilings FILE`; which row of a repeated case
stands (the primary run) from `attnlab results`, the one the GUI and `attnlab model` show.
No GPU needed.

usage: python -m attnlab.tables --bench results/h100/attnlab-bench.csv --peers results/h100/peers.csv \
                        [--run results/h100/attnlab-run.csv] [--ceilings results/h100/ceilings.toml] \
                        [--kernels results/h100/attnlab-bench-two-kernels-*.csv] \
                        [--bytes results/h100/ncu-bytes-mma-sm80.csv] \
                        --attnlab build/cli/attnlab --out results/h100/TABLE.md [--readme README.md]
"""

from __future__ import annotations

import argparse
import csv
import io
import tempfile
from collections import defaultdict
from pathlib import Path

from attnlab.atomic_file import check_replaceable_file, refusal_exits, write_text_atomically
from attnlab.cli import cli_json, run_cli
from attnlab.exits import fail

IMPLEMENTATIONS = ["naive", "padded", "packed", "varlen"]
PROGRAM = "tables"


class CppSide:
    """What the tables take from the attnlab CLI, each asked once."""

    def __init__(self, attnlab: str, ceilings: Path | None):
        self.attnlab, self.ceilings = attnlab, ceilings
        self._costs, self._scenarios = {}, {}

    def costs(self, scenario: str, tile: str) -> dict[str, dict]:
        """`attnlab model` of the scenario at a flash kernel's tile (e.g. "128x128"), by implementation."""
        if (scenario, tile) not in self._costs:
            text = run_cli(self.attnlab, ["model", scenario, "--format", "csv", "--tile", tile], PROGRAM)
            self._costs[(scenario, tile)] = {r["implementation"]: r for r in csv.DictReader(io.StringIO(text))}
        return self._costs[(scenario, tile)]

    def scenario(self, scenario: str) -> dict:
        """The scenario's JSON: the peer families, and its ceilings and floor where --ceilings is given."""
        if scenario not in self._scenarios:
            ceilings = ["--ceilings", str(self.ceilings)] if self.ceilings else []
            args = ["model", scenario, "--format", "json", *ceilings]
            self._scenarios[scenario] = cli_json(self.attnlab, args, PROGRAM)
        return self._scenarios[scenario]

    def primary_rows(self, paths: list[Path] | None) -> list[dict]:
        """The primary run of every case the files hold, as `attnlab results` (and with it the GUI
        and `attnlab model`) chooses it: the row of the first file in name order."""
        if not paths:
            return []
        for path in paths:
            if not path.is_file():
                fail(PROGRAM, f"{path}: no such results file")
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "primary.csv"
            run_cli(self.attnlab, ["results", *map(str, paths), "--out", str(out)], PROGRAM)
            return read_rows(out)


class Families:
    """The sources the tables single out, from the peer families of the scenario JSON: FlashAttention-2's
    varlen (`varlen_attn`, then with K and V expanded where it takes no GQA), and, for the "PyTorch" column
    of the ratios, FlashAttention-2 where it ran the layout, else eager."""

    def __init__(self, families: list[dict]):
        by_name = {f["name"]: f["sources"] for f in families}
        fa2, eager = by_name.get("FlashAttention-2", {}), by_name.get("PyTorch eager", {})
        self.fa2_varlen = tuple(fa2.get("varlen", []))
        self.fa2_of = {i: tuple(fa2.get(i, []) or eager.get(i, [])) for i in IMPLEMENTATIONS}


def of_pass(rows: list[dict], which: str) -> list[dict]:
    """The rows of one pass; files from before the backward have no pass column: fwd."""
    return [r for r in rows if (r.get("pass") or "fwd") == which]


def read_rows(path: Path) -> list[dict]:
    if not path.is_file():
        fail(PROGRAM, f"{path}: no such results file")
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    for i, r in enumerate(rows, start=2):
        for col in ("scenario", "implementation", "source", "dtype", "head_dim", "median_us"):
            if col not in r:
                fail(PROGRAM, f"{path}: no {col} column")
        if r["median_us"]:
            try:
                r["median_us"] = float(r["median_us"])
            except ValueError:
                fail(PROGRAM, f"{path}:{i}: median_us: expected a number, got {r['median_us']!r}")
    return [r for r in rows if r["median_us"] != ""]


def us(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}"


def times(x: float) -> str:
    return f"{x:.2f}×"


def tflops(r: dict) -> str:
    return f"{float(r['useful_tflops']):.0f}" if r.get("useful_tflops") else ""


def error(x) -> str:
    return f"{float(x):.2e}" if x else ""


def table(header: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out) + "\n"


class Run:
    """All rows of one (scenario, dtype, head dim): ours by implementation, peers by name."""

    def __init__(
        self,
        key,
        ours: dict[str, dict],
        peers: dict[str, dict],
        errors: dict[str, str],
        model,
        other_kernels: dict[str, dict],
    ):
        self.key, self.ours, self.peers, self.errors, self.model = key, ours, peers, errors, model
        self.other_kernels = other_kernels  # varlen rows of our other flash kernels, by kernel

    @property
    def scenario(self) -> str:
        return self.key[0]

    def label(self) -> str:
        return f"`{self.key[0]}`" + ("" if self.is_default else f" ({self.key[1]}, d{self.key[2]})")

    is_default = True

    def best_peer(self, implementations=IMPLEMENTATIONS):
        return min(
            (p for p in self.peers.values() if p["implementation"] in implementations),
            key=lambda r: r["median_us"],
            default=None,
        )

    def same_answer(self) -> tuple[str, ...]:
        """Implementations whose output is the true per-document answer: packed too when its
        rows hold whole documents without bleed (the model says so)."""
        m = self.model.get("packed", {})
        exact = m.get("scores_bleed") == "0" and m.get("scores_useful") == self.model.get("varlen", {}).get(
            "scores_useful"
        )
        return ("naive", "padded", "varlen") + (("packed",) if exact else ())

    def first_peer(self, names):
        return next((self.peers[n] for n in names if n in self.peers), None)


def flash_kernels(bench) -> list[str]:
    """Our flash kernels (padded, packed, varlen; naive's is cuBLAS) in the order they first
    come in the files, as our_flash_kernels (analysis/source_ratios.hpp) lists them."""
    return list(dict.fromkeys(r.get("kernel", "") for r in bench if r["implementation"] != "naive"))


def group(bench, peers, run, side: CppSide) -> list[Run]:
    keyed = defaultdict(lambda: ({}, {}, {}, {}))
    # One flash kernel per shape, the first of flash_kernels measured in it, so that no ratio
    # divides one kernel's time by another's (the GUI shows each kernel's own ratios).
    kernel_of = {}
    for k in flash_kernels(bench):
        for r in bench:
            if r["implementation"] != "naive" and r.get("kernel", "") == k:
                kernel_of.setdefault((r["scenario"], r["dtype"], r["head_dim"]), k)

    def of_the_kernel(r) -> bool:
        return r["implementation"] == "naive" or r.get("kernel", "") == kernel_of.get(
            (r["scenario"], r["dtype"], r["head_dim"])
        )

    for r in bench:  # files repeating a case hold only its primary run here (CppSide.primary_rows)
        key = (r["scenario"], r["dtype"], r["head_dim"])
        if of_the_kernel(r):
            keyed[key][0].setdefault(r["implementation"], r)
        elif r["implementation"] == "varlen":
            keyed[key][3].setdefault(r["kernel"], r)
    for r in peers:
        keyed[(r["scenario"], r["dtype"], r["head_dim"])][1].setdefault(r["source"], r)
    for r in run:
        key = (r["scenario"], r["dtype"], r["head_dim"])
        if of_the_kernel(r):
            if r.get("rel_l2_error"):
                keyed[key][2][r["implementation"]] = r["rel_l2_error"]
        elif r["implementation"] == "varlen" and key in keyed:
            keyed[key][3].setdefault(r["kernel"], dict(r, another_call=True))
    runs = []
    for key, (ours, peer_rows, errors, other_kernels) in keyed.items():
        if not ours and not peer_rows:
            continue
        # The model at the tile of the kernel that ran the rows (the default tile for peers alone).
        tile = next((o["tile"] for o in ours.values() if o["implementation"] != "naive" and o.get("tile")), "64x64")
        runs.append(Run(key, ours, peer_rows, errors, side.costs(key[0], tile), other_kernels))
    # A scenario's own dtype and head dim come first; extra runs of it follow, marked.
    for r in runs:
        m = r.model.get("varlen", {})
        r.is_default = (r.key[1], r.key[2]) == (m.get("dtype"), m.get("head_dim"))
    return sorted(runs, key=lambda r: (r.scenario, not r.is_default, r.key))


def speedup(peer, ours) -> str:
    """Peer time over ours: above 1, ours is faster."""
    return times(peer["median_us"] / ours["median_us"]) if peer and ours else ""


def table_kernel(runs: list[Run]) -> str:
    """The flash kernel of the tables' varlen rows (the first one measured)."""
    return next((v["kernel"] for r in runs if (v := r.ours.get("varlen")) and v.get("kernel")), "")


def summary(runs: list[Run], families: Families) -> str:
    fa2_varlen = families.fa2_varlen
    rows = []
    others = list(dict.fromkeys(k for r in runs for k in r.other_kernels))  # in file order
    for r in runs:
        v = r.ours.get("varlen")
        fa2 = r.first_peer(fa2_varlen)
        same = r.best_peer(r.same_answer())
        best = r.best_peer()
        rows.append(
            [
                r.label(),
                f"{us(v['median_us'])} ({tflops(v)})" if v else "",
                f"{us(fa2['median_us'])} ({tflops(fa2)})" + ("" if fa2["source"] == fa2_varlen[0] else " ¹")
                if fa2
                else "",
                speedup(fa2, v),
                f"{same['source']}: {us(same['median_us'])}" if same else "",
                speedup(same, v),
                f"{best['source']}: {us(best['median_us'])}" if best and best is not same else "same",
            ]
            + [
                f"{us(o['median_us'])} ({tflops(o)})" + (" ²" if o.get("another_call") else "")
                if (o := r.other_kernels.get(k))
                else ""
                for k in others
            ]
        )
    kernel = table_kernel(runs)
    return (
        table(
            [
                "scenario",
                f"attnlab varlen{', ' + kernel if others else ''} µs (useful TFLOP/s)",
                "FA2 varlen_attn µs (useful TFLOP/s)",
                "its time / attnlab varlen",
                "fastest peer with the per-document answer, µs",
                "its time / attnlab varlen",
                "fastest peer of all (packed rows with bleed give another answer), µs",
            ]
            + [f"attnlab varlen, {k}, µs (useful TFLOP/s)" for k in others],
            rows,
        )
        + (
            "\n¹ K and V repeated to every query head: PyTorch's varlen_attn takes no grouped-query K/V.\n"
            if any(r.first_peer(fa2_varlen) and r.first_peer(fa2_varlen)["source"] != fa2_varlen[0] for r in runs)
            else ""
        )
        + (
            "\n² from an `attnlab run` in another device run.\n"
            if any(o.get("another_call") for r in runs for o in r.other_kernels.values())
            else ""
        )
    )


def ratios(runs: list[Run], families: Families) -> str:
    rows = []
    for r in runs:
        for impl in ("packed", "padded", "naive"):
            m = r.model.get(impl)
            ours = r.ours.get(impl), r.ours.get("varlen")
            fa2 = r.first_peer(families.fa2_of[impl]), r.first_peer(families.fa2_varlen)
            rows.append(
                [
                    r.label(),
                    f"{impl}/varlen",
                    times(float(m["computed_vs_varlen"])) if m else "",
                    times(float(m["attended_vs_varlen"])) if m else "",
                    times(ours[0]["median_us"] / ours[1]["median_us"]) if all(ours) else "",
                    times(fa2[0]["median_us"] / fa2[1]["median_us"]) if all(fa2) else "",
                ]
            )
    return table(
        [
            "scenario",
            "ratio",
            "model: scores computed (at the tile of attnlab's kernel)",
            "model: scores attended",
            "measured time, attnlab",
            "measured time, PyTorch (FA2 varlen_attn; SDPA flash; eager)",
        ],
        rows,
    )


def details(runs: list[Run]) -> str:
    out = []
    for r in runs:
        lines = []
        v = r.ours.get("varlen")
        for impl in IMPLEMENTATIONS:
            o = r.ours.get(impl)
            if o:
                lines.append(
                    [
                        f"attnlab {impl}",
                        impl,
                        us(o["median_us"]),
                        tflops(o),
                        speedup(o, v),
                        "",
                        error(r.errors.get(impl)),
                    ]
                )
        for name, p in sorted(r.peers.items(), key=lambda kv: kv[1]["median_us"]):
            lines.append(
                [
                    name,
                    p["implementation"],
                    us(p["median_us"]),
                    tflops(p),
                    speedup(p, v),
                    speedup(p, r.ours.get(p["implementation"])),
                    error(p.get("rel_l2_error")),
                ]
            )
        out.append(
            f"#### {r.label()}\n\n"
            + table(
                [
                    "source",
                    "implementation",
                    "median µs",
                    "useful TFLOP/s",
                    "time / attnlab varlen",
                    "time / attnlab, same implementation",
                    "rel L2 error",
                ],
                lines,
            )
        )
    return "\n".join(out)


BYTES_NOTES = {
    "L2": "L2 hits: the query tiles of a row re-read its K and V tiles, partly from L2, while the model counts "
    "every read from HBM.",
    "pad": "pad keys are never loaded (the kernel zero-fills them on chip); the model counts the padded row's keys.",
    "S": "the softmax reads S only at useful cells (its masked loads are skipped); "
    "the model counts a read of every cell of S.",
    "more": "more traffic than the model: re-reads (cuBLAS tiles, K/V) or spills.",
}


def why_bytes_differ(implementation: str, ratio: float, model: dict) -> list[str]:
    """Keys of BYTES_NOTES for a measured/model gap beyond 25%, from what each kernel does."""
    if abs(ratio - 1) <= 0.25:
        return []
    if ratio > 1:
        return ["more"]
    if implementation == "naive":
        return ["S"]
    return ["L2"] + (["pad"] if implementation == "padded" and model.get("scores_padding", "0") != "0" else [])


def bytes_table(bench: list[dict], runs: list[Run]) -> str:
    """Model bytes against ncu's for every row of ours that ncu measured, whichever kernel ran
    it (each row's model bytes are at its own kernel's tile)."""
    models = {r.scenario: r.model for r in runs}
    measured = {}
    for o in bench:  # the first file's row of a (scenario, implementation, kernel) stands
        if o.get("hbm_bytes_model") and o.get("hbm_bytes_measured") and o["scenario"] in models:
            measured.setdefault((o["scenario"], o["implementation"], o.get("kernel", "")), o)
    rows = []
    for (scenario, impl, kernel), o in sorted(
        measured.items(), key=lambda kv: (kv[0][0], kv[0][2], IMPLEMENTATIONS.index(kv[0][1]))
    ):
        model, ncu = int(o["hbm_bytes_model"]), int(o["hbm_bytes_measured"])
        rows.append(
            [
                f"`{scenario}`",
                impl,
                kernel,
                f"{model / 2**30:.3f}",
                f"{ncu / 2**30:.3f}",
                f"{ncu / model:.2f}",
                ", ".join(why_bytes_differ(impl, ncu / model, models[scenario].get(impl, {}))),
                o.get("commit", ""),
            ]
        )
    legend = "".join(f"- `{key}`: {text}\n" for key, text in BYTES_NOTES.items())
    return (
        table(
            [
                "scenario",
                "implementation",
                "kernel",
                "model GiB",
                "ncu GiB (DRAM read + write)",
                "ncu / model",
                "why they differ (beyond 25%)",
                "commit",
            ],
            rows,
        )
        + "\n"
        + legend
    )


def floors(runs: list[Run], side: CppSide) -> str:
    rows, ceilings = [], None
    for r in runs:
        v = r.ours.get("varlen")
        if not v or not r.is_default:  # the floor is the scenario's own shape's
            continue
        facts = side.scenario(r.scenario)
        ceilings, floor = facts["ceilings"], facts["floor"]
        cudnn = r.peers.get("torch-sdpa-cudnn-padded")
        rows.append(
            [
                r.label(),
                us(v["median_us"]),
                us(floor["flops_us"]),
                us(floor["bytes_us"]),
                times(v["median_us"] / floor["us"]),
                us(cudnn["median_us"]) if cudnn else "",
                speedup(cudnn, v),
            ]
        )
    rates = (f" ({ceilings['tflops']:g} TFLOP/s)", f" ({ceilings['tbps']:g} TB/s)") if ceilings else ("", "")
    return (
        f"Floor: the larger of the useful FLOPs at the measured GEMM ceiling{rates[0]} and the least bytes "
        f"(Q, K, V read once, O written once) at the measured copy bandwidth{rates[1]}; both from the ceilings "
        f"file, the floor from `attnlab model SCENARIO --format json --ceilings FILE`. cuDNN runs on the padded "
        f"batch, with the per-document answer.\n\n"
        + table(
            [
                "scenario",
                "attnlab varlen µs",
                "FLOP floor µs",
                "byte floor µs",
                "attnlab / floor",
                "cuDNN padded µs",
                "its time / attnlab varlen",
            ],
            rows,
        )
    )


def kernels_table(rows: list[dict], first: str) -> str:
    """Each flash kernel's time per (scenario, implementation, dtype, head dim), `first` (the
    kernel of the tables above) beside the others: above 1×, `first` is faster."""
    kernels = sorted(flash_kernels(rows), key=lambda k: k != first)
    cases = defaultdict(dict)
    for r in rows:
        if r["implementation"] != "naive":
            cases[(r["scenario"], r["implementation"], r["dtype"], r["head_dim"])].setdefault(r["kernel"], r)
    lines, ratios_of = [], defaultdict(list)
    for key in sorted(cases, key=lambda k: (k[0], k[1], k[2], int(k[3]))):
        of = cases[key]
        base = of.get(kernels[0])
        cells = []
        for k in kernels[1:]:
            o = of.get(k)
            cells.append(times(o["median_us"] / base["median_us"]) if o and base else "")
            if o and base:
                ratios_of[k].append((o["median_us"] / base["median_us"], key))
        lines.append(
            [f"`{key[0]}`", key[1], key[2], key[3]]
            + [us(of[k]["median_us"]) if k in of else "" for k in kernels]
            + cells
        )
    text = table(
        ["scenario", "implementation", "dtype", "head dim"]
        + [f"{k} µs" for k in kernels]
        + [f"{k} / {kernels[0]}" for k in kernels[1:]],
        lines,
    )
    for k, found in ratios_of.items():
        low, (scenario, impl, dtype, d) = min(found)
        text += (
            f"\n{kernels[0]} is faster than {k} in {sum(x > 1 for x, _ in found)} of {len(found)} cases; "
            f"the least {k} / {kernels[0]} is {times(low)} (`{scenario}`, {impl}, {dtype}, d{d}).\n"
        )
    return text


def provenance(bench, peers) -> str:
    rows = bench + peers
    if not rows:
        return ""
    r = rows[0]

    def values(of, column):
        return ", ".join(sorted({x[column] for x in of if x.get(column)})) or "unknown"

    return (
        f"{r.get('gpu', '')}, driver {r.get('driver', '')}, CUDA {r.get('cuda_version', '')}; attnlab commit "
        f"{values(bench, 'commit')}; peers: {values(peers, 'commit')}; "
        f"{', '.join(sorted({x['date'][:10] for x in rows if x.get('date')}))}. Forward pass, median of "
        f"CUDA-event timings after a warm-up, inputs rotated past the 50 MB L2.\n"
    )


def main():
    ap = argparse.ArgumentParser(prog="python -m attnlab.tables", description=__doc__.splitlines()[0])
    ap.add_argument(
        "--bench",
        type=Path,
        nargs="+",
        help="attnlab-bench results CSVs (on repeats, the primary run stands: `attnlab results`)",
    )
    ap.add_argument("--peers", type=Path, nargs="+", help="results CSVs of the PyTorch peers (python -m attnlab.peers)")
    ap.add_argument("--run", type=Path, nargs="+", help="`attnlab run` results CSVs (their rel_l2_error column)")
    ap.add_argument("--ceilings", type=Path, help="ceilings.toml: [gemm_bf16] tflops and [copy] tbps, for the floors")
    ap.add_argument(
        "--kernels",
        type=Path,
        nargs="+",
        help="attnlab-bench CSVs of our flash kernels on the same cases (one device run)",
    )
    ap.add_argument(
        "--bytes",
        type=Path,
        nargs="+",
        help="CSVs whose rows carry ncu's hbm_bytes_measured (default: the --bench files)",
    )
    ap.add_argument(
        "--attnlab", default="build/cli/attnlab", help="the attnlab CLI (for `attnlab model` and `attnlab results`)"
    )
    ap.add_argument("--out", type=Path, help="Markdown file to write (default: print)")
    ap.add_argument(
        "--readme", type=Path, help="also rewrite the summary table between this file's results-summary markers"
    )
    args = ap.parse_args()
    if not args.bench and not args.peers:
        fail(PROGRAM, "give --bench, --peers or both")
    with refusal_exits(PROGRAM):  # before the tables are made: a path that cannot be written is one line
        for path, what in ((args.out, "Markdown file"), (args.readme, "README")):
            if path:
                check_replaceable_file(path, what)
    side = CppSide(args.attnlab, args.ceilings)
    all_bench, all_peers = side.primary_rows(args.bench), side.primary_rows(args.peers)
    bench, peers = of_pass(all_bench, "fwd"), of_pass(all_peers, "fwd")
    all_runs = side.primary_rows(args.run)
    runs = group(bench, peers, of_pass(all_runs, "fwd"), side)
    backward = group(of_pass(all_bench, "bwd"), of_pass(all_peers, "bwd"), of_pass(all_runs, "bwd"), side)
    # The families are the C++ side's, the same in every scenario's JSON.
    families = Families(side.scenario((runs + backward)[0].scenario)["families"] if runs + backward else [])
    extra = []
    if args.ceilings:
        extra += ["## How far from the floor\n", floors(runs, side)]
    if args.kernels:
        kernel_rows = of_pass(side.primary_rows(args.kernels), "fwd")
        extra += [
            "## Our flash kernels side by side\n",
            "One device run, every scenario, each flash layout, head dims 64 and 128 "
            f"(commit {', '.join(sorted({r['commit'] for r in kernel_rows if r.get('commit')}))}).\n",
            kernels_table(kernel_rows, table_kernel(runs)),
        ]
    if backward:
        extra += [
            "## The backward pass\n",
            "Rows with pass = bwd: the backward alone, given the forward's saved outputs; useful FLOPs "
            "2.5× the forward's.\n",
            summary(backward, families),
            "\n",
            details(backward),
        ]
    text = "\n".join(
        [
            "# Measured results (generated by `python -m attnlab.tables`; do not edit by hand)\n",
            provenance(bench, peers),
            "## attnlab varlen against the peers\n",
            summary(runs, families),
            "## Measured ratios against the model\n",
            "Time of each implementation over varlen's on the same documents, beside the ratio of scores the "
            "cost model says it computes (`attnlab model`).\n",
            ratios(runs, families),
            "## HBM traffic: model against Nsight Compute\n",
            "One forward pass under `ncu --clock-control none --cache-control all` (caches flushed before each "
            "kernel), DRAM bytes read + written, beside the cost model's HBM bytes (`core/cost/README.md`).\n",
            bytes_table(of_pass(side.primary_rows(args.bytes), "fwd") if args.bytes else bench, runs),
        ]
        + extra
        + ["## Every row\n", details(runs)]
    )
    if args.out:
        write_atomically(args.out, text)
    else:
        print(text)
    if args.readme:
        block = provenance(bench, peers) + "\n" + summary(runs, families)
        write_atomically(args.readme, with_summary(args.readme, block))


README_BEGIN, README_END = "<!-- results-summary:begin -->", "<!-- results-summary:end -->"


def with_summary(readme: Path, block: str) -> str:
    """The README with the text between its results-summary markers replaced by block."""
    text = readme.read_text()
    begin, end = text.find(README_BEGIN), text.find(README_END)
    if begin < 0 or end < begin:
        fail(PROGRAM, f"{readme}: expected the markers {README_BEGIN} and {README_END}, in that order")
    return text[: begin + len(README_BEGIN)] + "\n" + block + text[end:]


def write_atomically(path: Path, text: str):
    """A table's text, written atomically (attnlab/atomic_file.py); a write that fails is one line."""
    with refusal_exits(PROGRAM):
        write_text_atomically(path, text, "Markdown file")


if __name__ == "__main__":
    main()
