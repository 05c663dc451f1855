"""What the papers' figure scripts share (cars_figures.py, ltrf_figures.py, r2d2_figures.py,
regdem_figures.py, r2d2_table3.py): their command line, a compare folder's compare.json and
its runs' stats.json, and the numbers in them. Every number they print comes from these
JSON files (docs/compare.md, docs/statistics.md)."""

import argparse
import os
import pathlib

from .common import geomean as _geomean
from .common import read_json
from .stats import load_stats

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def arguments(doc):
    """The figure scripts' command line: COMPARE_DIR [--rfsim PATH], as rfsim compare --figures
    runs them (a script adds its own options before parse_args)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", type=pathlib.Path, help="the folder rfsim compare -o wrote")
    ap.add_argument("--rfsim", default=os.path.join(REPO, "build", "rfsim"),
                    help="the rfsim binary, for what the runs' statistics do not hold (default: build/rfsim)")
    return ap


def compare_json(folder):
    """The folder's compare.json (rfsim-compare/1)."""
    return read_json(os.path.join(folder, "compare.json"), "written by rfsim compare")


def geomean(values):
    """Geometric mean of the positive values; nan when there are none (printed as nan)."""
    g = _geomean(values)
    return float("nan") if g is None else g


def value(node, *path):
    """A statistic's value ({"value": V, ...} is V; a plain number is itself), after walking
    the group names in path; None where the path leads nowhere."""
    for p in path:
        if not isinstance(node, dict) or p not in node:
            return None
        node = node[p]
    return node["value"] if isinstance(node, dict) and "value" in node else node


def run_workload(run_dir):
    """The one workload of a run's stats.json, whether its CPU check passed or not; None when the
    run is missing. A stats.json of another schema is an error (StatsError)."""
    if not os.path.exists(os.path.join(run_dir, "stats.json")):
        return None
    (w,) = load_stats(run_dir)["workloads"].values()
    return w


def passed_workload(run_dir):
    """The one workload of a run's stats.json when its CPU check passed; None when the run is
    missing or failed. A stats.json of another schema is an error (StatsError)."""
    w = run_workload(run_dir)
    return w if w and w.get("passed") else None


def launch_sum(run, group, key):
    """A mechanism's statistic summed over a run's launches (0 where a launch lacks it)."""
    return sum(value(l.get("mechanisms", {}).get(group, {}).get(key, 0)) for l in run["launches"])



def sampling_note(folder):
    """Which of a compare folder's runs were sampled (sim.sample, docs/sampling.md) and how much
    of them was extrapolated, as one paragraph of Markdown: the figures built from the folder
    say so beside them."""
    runs = sampled = launches = skipped = blocks = functional = 0
    cycles = extrapolated = 0
    for stats in sorted(pathlib.Path(folder, "runs").glob("*/*/*/stats.json")):
        w = run_workload(stats.parent)
        if not w:
            continue
        runs += 1
        ran = w.get("launches", [])
        s = [l["gpu"].get("sample", {}) for l in ran]
        lskip = sum(value(x, "launches_skipped") or 0 for x in s)
        lblocks = sum(value(x, "blocks_functional") or 0 for x in s)
        lcyc = sum(value(x, "cycles_extrapolated") or 0 for x in s)
        sampled += 1 if lskip or lblocks or lcyc else 0
        launches += len(ran)
        skipped += lskip
        functional += lblocks
        blocks += sum((value(l, "gpu", "blocks") or 0) for l in ran) + lblocks
        cycles += value(w, "summary", "cycles") or 0
        extrapolated += lcyc
    if not runs:
        return "No run of this folder has statistics yet."
    if not sampled:
        return f"No run is sampled: all {runs} runs are simulated in detail, every cycle."
    share = 100.0 * extrapolated / cycles if cycles else 0.0
    return (f"Sampled (`sim.sample`, docs/sampling.md): {sampled} of {runs} runs had part of their work "
            f"run functionally with its cycles extrapolated: {skipped} of {launches} launches skipped, "
            f"{functional} of {blocks} blocks run functionally, {share:.1f} % of the cycles extrapolated. "
            "The error this sampling makes is measured against full runs in docs/sampling.md.")
